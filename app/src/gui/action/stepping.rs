//! The app's stepping actions over its session: step, step a tangle, step a line, back, go to
//! a step, reset, the run and the Compare view's runs advanced in frame slices.

use crate::gui::clock::now_fn;
use crate::gui::session::{self, Session, Stop};
use crate::gui::state::{LanescopeApp, SLICE_SECONDS, STEPS_PER_CHECK};
use crate::gui::views;

impl LanescopeApp {
    /// Starts the Compare view's two runs (advanced a slice per frame).
    pub(super) fn start_compare(&mut self) {
        let Some(s) = &self.session else { return };
        self.comparison = None;
        match views::compare::Runner::new(s, &self.settings, &self.compare_variant) {
            Ok(r) => self.compare_runner = Some(r),
            Err(e) => self.error = Some(e),
        }
    }

    /// Starts Compare's run on the GPU (a thread; polled each frame).
    pub(super) fn start_gpu(&mut self) {
        let Some(s) = &self.session else { return };
        // (asked from the keyboard too: the result shows in Compare)
        self.tab = crate::gui::views::Tab::Compare;
        self.gpu_report = None;
        // The WGSL the session was compiled from, if it was, and its override values (the
        // browser's WebGPU runs it with the same).
        let wgsl = self
            .editor
            .as_ref()
            .filter(|e| e.language == lanescope_front::Language::Wgsl && !e.stale)
            .map(|e| crate::gui::gpu_job::Wgsl {
                text: e.text.clone(),
                overrides: e.build.overrides().unwrap_or_default(),
            });
        match crate::gui::gpu_job::GpuJob::start(s, &self.settings, wgsl) {
            Ok(j) => self.gpu_job = Some(j),
            Err(e) => {
                let r = Err(e);
                tell(&r);
                self.gpu_report = Some(r);
            }
        }
    }

    /// Takes the GPU run's outcome once it has finished.
    pub(in crate::gui) fn poll_gpu(&mut self) {
        if let Some(r) = self.gpu_job.as_mut().and_then(|j| j.poll()) {
            tell(&r);
            self.gpu_report = Some(r);
            self.gpu_job = None;
        }
    }

    pub(in crate::gui) fn compare_slice(&mut self, seconds: f64, now: impl Fn() -> f64) {
        let (Some(r), Some(s)) = (&mut self.compare_runner, &self.session) else {
            self.compare_runner = None;
            return;
        };
        let start = now();
        while now() - start < seconds {
            match r.advance(STEPS_PER_CHECK) {
                Ok(false) => {}
                Ok(true) => {
                    self.comparison = Some(views::compare::Comparison::of(r, s));
                    self.compare_runner = None;
                    return;
                }
                Err(e) => {
                    self.error = Some(e);
                    self.compare_runner = None;
                    return;
                }
            }
        }
    }

    /// Advances a pending seek for at most `seconds`.
    pub(in crate::gui) fn seek_slice(&mut self, seconds: f64, now: impl Fn() -> f64) {
        let Some(target) = self.seek else { return };
        let Some(s) = &mut self.session else {
            self.seek = None;
            return;
        };
        let start = now();
        while now() - start < seconds {
            match s.goto_within(target, STEPS_PER_CHECK) {
                Err(e) => {
                    self.error = Some(e);
                    self.seek = None;
                    return;
                }
                Ok(false) => {}
                Ok(true) => {
                    self.seek = None;
                    self.status = if s.step_count() == target {
                        format!("went to step {target}")
                    } else {
                        format!(
                            "the run ends at step {}, before step {target}",
                            s.step_count()
                        )
                    };
                    self.follow();
                    return;
                }
            }
        }
        self.status = format!("going to step {target}… (at {})", s.step_count());
    }

    /// Jumps to the state right after step `step` (back or forward). The replay runs in
    /// per-frame slices (a jump far into a long run never freezes a frame); a short one
    /// finishes at once.
    pub(super) fn goto(&mut self, step: u64) {
        self.running = false;
        self.animating = false;
        if self.session.is_some() {
            self.seek = Some(step);
            self.seek_slice(SLICE_SECONDS, now_fn());
        }
    }

    /// Toggles a breakpoint on source line `line` of debug file `file`: on the first
    /// instruction of each run of instructions from that line.
    pub(super) fn toggle_source_breakpoint(&mut self, file: u32, line: u32) {
        let Some(s) = &mut self.session else { return };
        let first = s.program.line_breakpoints(file, line);
        if first.is_empty() {
            self.status = format!("line {line} has no code to stop at");
            return;
        }
        if first.iter().any(|k| s.breakpoints.contains(k)) {
            for k in first {
                s.breakpoints.remove(&k);
            }
        } else {
            s.breakpoints.extend(first);
        }
    }

    pub(super) fn reset(&mut self) {
        self.running = false;
        self.animating = false;
        self.comparison = None;
        self.compare_runner = None;
        self.gpu_report = None;
        self.gpu_job = None;
        if let Some(s) = &mut self.session {
            match s.reset(&self.settings) {
                Ok(()) => {
                    self.error = None;
                    self.status = "reset".into();
                }
                Err(e) => self.error = Some(e),
            }
        }
    }

    pub(super) fn report(&mut self, r: Result<bool, String>) {
        match r {
            Ok(true) => {}
            Ok(false) => self.status = "finished".into(),
            Err(e) => {
                self.error = Some(e);
                self.running = false;
                self.animating = false;
            }
        }
    }

    pub(super) fn step(&mut self) {
        self.last_unit_start = None;
        if let Some(s) = &mut self.session {
            let r = s.step();
            self.report(r);
            self.follow();
        }
    }

    /// Keeps the instruction that runs next in sight in the disassembly.
    pub(super) fn follow(&mut self) {
        let Some(line) = self.session.as_ref().and_then(Session::focus_instruction) else {
            return;
        };
        let v = &self.disasm_visible;
        let line = line as usize;
        if line < v.start + 1 || line + 2 > v.end {
            self.scroll_to_line = Some(line);
        }
    }

    /// Steps the selected tangle (or the scheduler's pick when none is selected).
    pub(super) fn step_selected(&mut self) {
        self.last_unit_start = None;
        let Some(s) = &mut self.session else { return };
        let r = match self.selected_tangle {
            Some((g, id))
                if s.sim()
                    .tangles()
                    .iter()
                    .any(|t| t.subgroup == g && t.id == id) =>
            {
                s.step_tangle(g as usize, id)
            }
            _ => s.step(),
        };
        self.report(r);
        self.follow();
    }

    /// The tangle a source-level step follows: the selected one while it exists, else the
    /// one on screen (where the last step's tangle stands).
    pub(in crate::gui) fn line_step_tangle(&self) -> Option<(usize, u64)> {
        let s = self.session.as_ref()?;
        let tangles = s.sim().tangles();
        if let Some((g, id)) = self.selected_tangle {
            if tangles.iter().any(|t| t.subgroup == g && t.id == id) {
                return Some((g as usize, id));
            }
        }
        let last = s.sim().trace().last();
        let t = last
            .and_then(|e| {
                tangles
                    .iter()
                    .find(|t| t.subgroup == e.subgroup && t.id == e.tangle)
            })
            .or(tangles.first())?;
        Some((t.subgroup as usize, t.id))
    }

    /// F10 / F11 / Shift+F11: a step by source line. Without line information, F10 and F11 are
    /// one instruction of the selected tangle (the scheduler's pick when none is selected).
    pub(super) fn step_line(&mut self, kind: session::LineStep) {
        let has_lines = self
            .session
            .as_ref()
            .is_some_and(|s| s.program.debug().is_some_and(|d| d.has_lines()));
        if !has_lines {
            if kind != session::LineStep::Out {
                self.step_selected();
            }
            return;
        }
        let Some((g, id)) = self.line_step_tangle() else {
            self.status = "finished".into();
            return;
        };
        let Some(s) = &mut self.session else { return };
        self.last_unit_start = Some(s.step_count());
        let r = s.step_line(g, id, kind);
        self.report(r);
        self.follow();
    }

    /// Undoes the last step, by the unit it took (a source line, or an instruction): a seek,
    /// replayed from a checkpoint in per-frame slices.
    pub(super) fn step_back(&mut self) {
        if let Some(s) = &self.session {
            let n = self.seek.unwrap_or_else(|| s.step_count());
            let to = match self.last_unit_start.take() {
                Some(start) if start < n => start,
                _ => n.saturating_sub(1),
            };
            self.goto(to);
        }
    }

    /// Runs until a breakpoint, a diagnostic or the end, a time slice per frame.
    pub(in crate::gui) fn run_slice(&mut self, seconds: f64, now: impl Fn() -> f64) {
        let Some(s) = &mut self.session else {
            self.running = false;
            return;
        };
        let start = now();
        let mut stopped_elsewhere = false;
        while self.running && now() - start < seconds {
            match s.run_slice(STEPS_PER_CHECK, self.settings.max_steps) {
                Ok(None) => {}
                Ok(Some(stop)) => {
                    self.running = false;
                    self.status = match &stop {
                        Stop::Breakpoint(i) => format!("breakpoint at instruction {i}"),
                        Stop::Diagnostic(code) => format!("stopped at diagnostic `{code}`"),
                        Stop::Finished => "finished".into(),
                    };
                    if let Stop::Breakpoint(i) = stop {
                        self.scroll_to_line = Some(i as usize);
                    } else {
                        stopped_elsewhere = true;
                    }
                }
                Err(e) => {
                    self.running = false;
                    self.error = Some(e);
                    stopped_elsewhere = true;
                }
            }
        }
        if stopped_elsewhere {
            self.follow();
        }
    }
}

/// In the browser, the page's console says how a Run on GPU ended too (for whoever drives the
/// page or reads its log).
fn tell(r: &Result<crate::gui::gpu_job::GpuReport, String>) {
    #[cfg(target_arch = "wasm32")]
    web_sys::console::info_1(
        &match r {
            Ok(g) => {
                let notes: String = g.notes.iter().map(|n| format!(" Note: {n}.")).collect();
                format!("Run on GPU: {}; {}{notes}", g.summary, g.explained)
            }
            Err(e) => format!("Run on GPU: {e}"),
        }
        .into(),
    );
    #[cfg(not(target_arch = "wasm32"))]
    let _ = r;
}
