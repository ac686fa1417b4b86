//! The egui app: toolbar, disassembly, CFG, lanes, watch, buffers, diagnostics, controls.
//! Panels draw from `Session` (the model); nothing here changes simulation results.

pub mod build;
pub mod cfg;
pub mod compile_job;
pub mod dialog;
pub mod disasm;
pub mod editor;
pub mod export;
pub mod fonts;
mod highlight;
mod incoming;
mod inputs;
mod links;
mod open;
pub mod palette;
mod panels;
pub mod permalink;
mod picture;
mod printf;
pub mod session;
mod tabs;
#[cfg(test)]
mod tests;
mod toolbar;
pub mod views;

use crate::examples::{DEFAULT_EXAMPLE, EXAMPLES};
use lanescope_front::Language;
use session::{Session, Settings, Stop, SIBLING_ORDERS};

/// A file the open dialog delivered as (name, bytes), `None` when cancelled, or why there is
/// none (no dialog could be shown, the file could not be read).
type Picked = Result<Option<(String, Vec<u8>)>, String>;
/// What the open dialog or a drop brought: every file (in the browser several at once, the
/// headers of a source among them), none when the dialog was cancelled.
type Opened = Result<Vec<(String, Vec<u8>)>, String>;
/// The Compare view's choices, by the module (its program) and the settings they were tried
/// under: those offered, and those left out with why.
type CompareOptions = (
    (std::sync::Weak<lanescope_core::program::Program>, Settings),
    Vec<tabs::CompareOption>,
    Vec<(tabs::CompareOption, String)>,
);

/// How the error bar words a file dialog that could not be shown (there is no portal, or no
/// D-Bus session): what to do instead.
const NO_DIALOG_HINT: &str = "drop a file on the window or pass it on the command line";

/// Reads a file to open, refusing one past the loader's size limit before reading it.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_module(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let len = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    too_large(len)?;
    std::fs::read(path).map_err(|e| e.to_string())
}

fn too_large(len: u64) -> Result<(), String> {
    let limit = lanescope_core::load::MAX_MODULE_BYTES as u64;
    if len > limit {
        return Err(format!(
            "the file is {} MiB; the largest module Lanescope loads is {} MiB",
            len.div_ceil(1 << 20),
            limit >> 20
        ));
    }
    Ok(())
}

/// Longest a frame may spend simulating; the rest of the frame is drawing.
const SLICE_SECONDS: f64 = 0.012;

/// Steps taken between looks at the clock: a step of a big workgroup can take a tenth of a
/// millisecond or more, so a slice checks often enough to stay near its time.
const STEPS_PER_CHECK: u64 = 32;

pub struct LanescopeApp {
    /// What the open module runs under (the toolbar shows and changes these).
    pub settings: Settings,
    /// Which panes are open, and how the graph and the views share the middle.
    pub panes: panels::Panes,
    /// The person's own settings while a link's or a lesson's are in force: they come back with
    /// the next example or file opened, and they are what is saved between runs.
    own: Option<Settings>,
    pub session: Option<Session>,
    pub error: Option<String>,
    pub status: String,
    /// Running to the next breakpoint / diagnostic / end.
    pub running: bool,
    /// Animated run: steps at `settings.speed` per second.
    pub animating: bool,
    anim_due: f64,
    pub selected_tangle: Option<(u32, u64)>,
    pub selected_id: Option<u32>,
    pub watches: Vec<u32>,
    pub cfg_layout: Option<cfg::CfgLayout>,
    pub cfg_zoom: f32,
    /// How the buffers panel prints words.
    pub buffer_format: BufferFormat,
    pub scroll_to_line: Option<usize>,
    /// Disassembly lines drawn in the last frame, so stepping scrolls only when the current
    /// instruction is out of sight.
    pub disasm_visible: std::ops::Range<usize>,
    /// Lines of the disassembly drawn last frame (a change means another module).
    pub disasm_len: usize,
    open_promise: Option<dialog::Pending<Opened>>,
    /// A link whose source is still compiling: its view, lane and step, applied once it opens.
    link_after_open: Option<Box<permalink::Link>>,
    pub show_frame_time: bool,
    frame_ms: f32,
    /// The view under the CFG.
    pub tab: views::Tab,
    /// Steps the timeline shows.
    pub timeline_span: u64,
    /// Subgroups whose timeline rows the person folded or unfolded (against the default).
    pub timeline_flipped: std::collections::BTreeSet<u32>,
    /// The step and followed subgroup the timeline last scrolled to.
    timeline_seen: Option<(u64, Option<u32>)>,
    /// The followed subgroup's rows and the timeline's visible area, on screen, last frame.
    pub(crate) timeline_view: Option<(egui::Rect, egui::Rect)>,
    /// A lane picked in a view (subgroup, lane): the dot product detail, matrix highlights.
    pub selected_lane: Option<(u32, u32)>,
    pub matrix_sel: views::matrix::Selection,
    /// (step, time) the rotate animation started at.
    pub rotate_anim: (u64, f64),
    pub lessons: Vec<views::lesson::Lesson>,
    /// Index in `lessons` of the open lesson.
    pub lesson: Option<usize>,
    /// A lesson was just opened: its text is brought into view in the next frame.
    pub lesson_scroll: bool,
    /// Large fonts, high contrast, Space steps: for a projector.
    pub presenter: bool,
    /// A step being reached in frame-sized slices (a permalink's step).
    pub seek: Option<u64>,
    /// The page fragment last applied or written, to notice a link pasted into the tab.
    pub last_fragment: String,
    /// What the Compare view's second run changes, the runs under way, and their result.
    pub compare_variant: views::compare::Variant,
    pub compare_runner: Option<views::compare::Runner>,
    /// The Compare view's choices for (module, settings): those offered and those left out.
    compare_options: Option<CompareOptions>,
    /// The app's faces are installed (the first frame does it).
    fonts_set: bool,
    pub comparison: Option<views::compare::Comparison>,
    /// A screenshot asked for (it arrives a frame later), and a save under way.
    shot: std::sync::Arc<std::sync::Mutex<Option<std::sync::Arc<egui::ColorImage>>>>,
    shot_pending: bool,
    saving: Option<export::Saving>,
    /// The person's source, when the module on screen was compiled from it here.
    pub editor: Option<editor::Editor>,
    /// The source file the Source pane shows when a module has several (an index into its
    /// debug information's files); `None` follows the current tangle's file.
    pub source_file: Option<u32>,
    /// The editor's text compiling off the UI thread (natively with a compile worker; GLSL
    /// and HLSL in the browser).
    pub compiling: Option<compile_job::CompileJob>,
    /// The Inputs panel's cell being typed in, fill pattern and an import under way.
    pub inputs: inputs::InputsState,
    /// Fit the graph to its area in the next frame (the Fit button).
    pub cfg_fit: bool,
    /// Presenter mode as the last frame drew it.
    was_presenter: bool,
    /// The CFG block last brought into view (it scrolls when the followed tangle moves on).
    pub cfg_followed: Option<u32>,
    /// The folder of the file opened last by path: an AmberScript's `FILE`s are read there.
    pub script_dir: Option<std::path::PathBuf>,
    /// A source line to bring into view in the next frame.
    pub source_scroll: Option<usize>,
    /// Which of source and disassembly the left panel shows.
    pub left_tab: LeftTab,
    /// Lanes a diagnostic involves, outlined in the lanes grid: (subgroup, lanes).
    pub highlight_lanes: Option<(u32, Vec<u32>)>,
    /// The last AmberScript opened and its report, for the Scenario panel.
    pub scenario: Option<Scenario>,
    /// Where the last source-line step started, so Shift+F10 undoes it whole.
    pub last_unit_start: Option<u64>,
    /// The source line the current tangle stood on last frame (the view follows it when it
    /// moves).
    pub source_last_line: Option<u32>,
}

/// How the buffers panel prints a 32-bit word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferFormat {
    U32,
    I32,
    F32,
    /// Two f16 halves, low first.
    F16,
    Hex,
}

impl BufferFormat {
    pub const ALL: [Self; 5] = [Self::U32, Self::I32, Self::F32, Self::F16, Self::Hex];

    pub fn name(self) -> &'static str {
        match self {
            Self::U32 => "u32",
            Self::I32 => "i32",
            Self::F32 => "f32",
            Self::F16 => "f16",
            Self::Hex => "hex",
        }
    }
}

/// An AmberScript opened in the app: its text (to run it again for another RUN), its report,
/// its runs (script line, pipeline) and the one open.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub script: Vec<u8>,
    pub report: String,
    pub runs: Vec<(usize, String)>,
    pub open_run: Option<usize>,
    /// The script's EXPECTs that failed, in script order.
    pub failed: Vec<FailedExpect>,
}

/// An EXPECT that did not hold (the script report's own entry), and where its word lies in
/// the open run.
#[derive(Clone, Debug)]
pub struct FailedExpect {
    pub expect: lanescope_front::amber::ExpectReport,
    /// (set, binding, byte offset in the bound view) when the open run binds the buffer.
    pub at: Option<(u32, u32, u64)>,
}

/// The left panel's tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeftTab {
    Source,
    Disassembly,
}

impl LanescopeApp {
    pub fn new(settings: Settings) -> Self {
        Self {
            settings,
            panes: Default::default(),
            own: None,
            session: None,
            error: None,
            status: String::new(),
            running: false,
            animating: false,
            anim_due: 0.0,
            selected_tangle: None,
            selected_id: None,
            watches: Vec::new(),
            cfg_layout: None,
            cfg_zoom: 1.0,
            buffer_format: BufferFormat::U32,
            scroll_to_line: None,
            disasm_visible: 0..0,
            disasm_len: 0,
            open_promise: None,
            link_after_open: None,
            show_frame_time: false,
            frame_ms: 0.0,
            tab: views::Tab::Lanes,
            timeline_span: 300,
            timeline_flipped: Default::default(),
            timeline_seen: None,
            timeline_view: None,
            selected_lane: None,
            matrix_sel: views::matrix::Selection::default(),
            rotate_anim: (0, 0.0),
            lessons: views::lesson::all().0,
            lesson: None,
            lesson_scroll: false,
            presenter: false,
            seek: None,
            last_fragment: String::new(),
            compare_variant: views::compare::Variant::Switch,
            compare_runner: None,
            compare_options: None,
            fonts_set: false,
            comparison: None,
            shot: Default::default(),
            shot_pending: false,
            saving: None,
            editor: None,
            source_file: None,
            compiling: None,
            inputs: Default::default(),
            script_dir: None,
            cfg_followed: None,
            was_presenter: false,
            cfg_fit: false,
            source_scroll: None,
            left_tab: LeftTab::Source,
            highlight_lanes: None,
            last_unit_start: None,
            scenario: None,
            source_last_line: None,
        }
    }

    fn export_stem(&self) -> String {
        let s = self.session.as_ref();
        let name = s.map_or("lanescope", |s| s.name.trim_end_matches(".spv"));
        format!("{name}-step{}", s.map_or(0, Session::step_count))
    }

    /// Saves the edited source under its name (a save dialog natively, a download in the
    /// browser).
    pub fn save_source(&mut self) {
        let Some(e) = &self.editor else { return };
        self.saving = Some(export::save(
            e.name.clone(),
            "text/plain",
            e.text.clone().into_bytes(),
        ));
    }

    /// The session as an AmberScript test: the shader (its source when edited here, else the
    /// module as SPIR-V hex), the initial buffers, the push constants, the dispatch and the
    /// settings; when the run has finished, its final buffers become the `EXPECT`s.
    pub fn amber_text(&self) -> Option<String> {
        use lanescope_front::amber::{self, SaveBuffer, SaveSession, SaveShader, ShaderFormat};
        let s = self.session.as_ref()?;
        let words: Vec<u32> = s
            .bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let (format, text) = match &self.editor {
            // GLSL as written when it stands alone; built with settings or includes the
            // script could not carry, the module's assembly keeps it self-contained.
            Some(e)
                if e.language == Language::Glsl
                    && !e.stale
                    && e.build.is_default()
                    && !e.text.contains("#include") =>
            {
                (ShaderFormat::Glsl, e.text.clone())
            }
            Some(e) if e.language == Language::SpirvAsm && !e.stale => {
                (ShaderFormat::SpirvAsm, e.text.clone())
            }
            // WGSL has no AmberScript form and a binary has no text: the module as assembly
            // (hex words when it does not disassemble).
            _ => match lanescope_core::spvtext::disassemble(&words, &Default::default()) {
                Ok(t) => (ShaderFormat::SpirvAsm, t),
                Err(_) => (ShaderFormat::SpirvHex, String::new()),
            },
        };
        // Assembly is assembled for the module's own SPIR-V version.
        let target_env = match (format, words.get(1).map(|v| (v >> 8) & 0xff)) {
            (ShaderFormat::SpirvAsm, Some(minor)) if minor > 0 => Some(format!("spv1.{minor}")),
            _ => None,
        };
        let finished = s.sim().is_finished();
        let initial = &s.initial;
        let buffers = initial
            .buffers
            .iter()
            .map(|(set, binding, data)| (*set, *binding, 0, data))
            .chain(initial.elements.iter().map(|(s, b, e, d)| (*s, *b, *e, d)))
            .map(|(set, binding, element, data)| SaveBuffer {
                set,
                binding,
                array_element: element,
                uniform: s
                    .program
                    .resources
                    .iter()
                    .any(|r| r.set == set && r.binding == binding && r.uniform),
                data: data.clone(),
                element: None,
                expect: finished
                    .then(|| {
                        s.sim()
                            .buffer_element(set, binding, element)
                            .map(<[u8]>::to_vec)
                    })
                    .flatten(),
            })
            .collect();
        let st = &self.settings;
        let session = SaveSession {
            shader: SaveShader {
                format,
                text,
                target_env,
                words,
            },
            entry: Some(s.program.entry_name.clone()),
            buffers,
            aliases: s.initial.aliases.clone(),
            push_constants: s.initial.push_constants.clone(),
            push_constant_type: None,
            spec: s.spec.clone(),
            workgroups: st.workgroups,
            settings: amber::Settings {
                subgroup_size: Some(st.subgroup_size),
                switch_tangles: Some(st.config().switch_tangles),
                sibling_order: Some(st.sibling_order),
                coopmat_layout: lanescope_core::coopmat::LayoutChoice::by_name(&st.coop_layout),
            },
        };
        Some(amber::to_amber(&session))
    }

    /// Saves the session as an AmberScript test (Export menu).
    pub fn export_amber(&mut self) {
        let Some(text) = self.amber_text() else {
            return;
        };
        let stem = self.session.as_ref().map_or("lanescope".to_owned(), |s| {
            s.name
                .rsplit_once('.')
                .map_or(s.name.clone(), |(a, _)| a.to_owned())
        });
        self.saving = Some(export::save(
            format!("{stem}.amber"),
            "text/plain",
            text.into_bytes(),
        ));
    }

    /// Saves the trace (steps, diagnostics, poison stores) as JSON.
    pub fn export_trace(&mut self) {
        let Some(s) = &self.session else { return };
        let json = crate::report::trace_json(s.sim());
        self.saving = Some(export::save(
            format!("{}-trace.json", self.export_stem()),
            "application/json",
            json.into_bytes(),
        ));
    }

    /// Asks for a screenshot of the window; it is saved as PNG when it arrives.
    pub fn export_png(&mut self, ctx: &egui::Context) {
        let slot = std::sync::Arc::clone(&self.shot);
        let repaint = ctx.clone();
        ctx.request_screenshot(move |image| {
            if let Ok(mut s) = slot.lock() {
                *s = Some(image);
            }
            repaint.request_repaint();
        });
        self.shot_pending = true;
        self.status = "taking a screenshot…".into();
    }

    fn poll_exports(&mut self, ctx: &egui::Context) {
        if self.shot_pending {
            let image = self.shot.lock().ok().and_then(|mut s| s.take());
            if let Some(img) = image {
                self.shot_pending = false;
                let [w, h] = img.size;
                let rgba: Vec<u8> = img.pixels.iter().flat_map(|c| c.to_array()).collect();
                let png = export::png_rgba(w as u32, h as u32, &rgba);
                self.saving = Some(export::save(
                    format!("{}.png", self.export_stem()),
                    "image/png",
                    png,
                ));
            } else {
                ctx.request_repaint_after(std::time::Duration::from_millis(50));
            }
        }
        if let Some(p) = &self.saving {
            match p.poll() {
                dialog::Poll::Waiting => {
                    ctx.request_repaint_after(std::time::Duration::from_millis(100));
                    return;
                }
                dialog::Poll::Ready(Ok(Some(msg))) => self.status = msg,
                dialog::Poll::Ready(Ok(None)) => self.status = "not saved".into(),
                dialog::Poll::Ready(Err(e)) => self.dialog_error(e),
                dialog::Poll::Lost => {
                    self.dialog_error(
                        "the save dialog stopped unexpectedly; nothing was saved".into(),
                    );
                }
            }
            self.saving = None;
        }
    }

    /// Starts the Compare view's two runs (advanced a slice per frame).
    pub fn start_compare(&mut self) {
        let Some(s) = &self.session else { return };
        self.comparison = None;
        match views::compare::Runner::new(s, &self.settings, &self.compare_variant) {
            Ok(r) => self.compare_runner = Some(r),
            Err(e) => self.error = Some(e),
        }
    }

    fn compare_slice(&mut self, seconds: f64, now: impl Fn() -> f64) {
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
    fn seek_slice(&mut self, seconds: f64, now: impl Fn() -> f64) {
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

    /// Opens lesson `i`: its example under all of its settings, the view its text starts with,
    /// and the text in sight.
    pub fn open_lesson(&mut self, i: usize) {
        let Some(l) = self.lessons.get(i).cloned() else {
            return;
        };
        let own = self.own_settings();
        let opened = match example(&l.example) {
            Ok((name, bytes)) => self.open_under(&name, bytes, l.settings(&self.settings)),
            Err(e) => {
                self.error = Some(e);
                false
            }
        };
        if opened {
            self.set_aside(own);
            self.lesson = Some(i);
            self.tab = l.view;
            self.lesson_scroll = true;
        }
    }

    /// The person's own settings: the toolbar's, or those a link or a lesson set aside (the
    /// limits and the speed are always the person's). What is saved between runs.
    pub fn own_settings(&self) -> Settings {
        match &self.own {
            Some(o) => o.clone().with_limits_of(&self.settings),
            None => self.settings.clone(),
        }
    }

    /// Keeps the person's settings aside while a link's or a lesson's are in force.
    pub(super) fn set_aside(&mut self, own: Settings) {
        if self.own.is_none() {
            self.own = Some(own);
        }
    }

    /// Jumps to the state right after step `step` (back or forward). The replay runs in
    /// per-frame slices (a jump far into a long run never freezes a frame); a short one
    /// finishes at once.
    pub fn goto(&mut self, step: u64) {
        self.running = false;
        self.animating = false;
        if self.session.is_some() {
            self.seek = Some(step);
            self.seek_slice(SLICE_SECONDS, now_fn());
        }
    }

    /// Toggles a breakpoint on source line `line` of debug file `file`: on the first
    /// instruction of each run of instructions from that line.
    pub fn toggle_source_breakpoint(&mut self, file: u32, line: u32) {
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

    pub fn reset(&mut self) {
        self.running = false;
        self.animating = false;
        self.comparison = None;
        self.compare_runner = None;
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

    fn report(&mut self, r: Result<bool, String>) {
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

    pub fn step(&mut self) {
        self.last_unit_start = None;
        if let Some(s) = &mut self.session {
            let r = s.step();
            self.report(r);
            self.follow();
        }
    }

    /// Keeps the instruction that runs next in sight in the disassembly.
    fn follow(&mut self) {
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
    pub fn step_selected(&mut self) {
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
    pub(super) fn line_step_tangle(&self) -> Option<(usize, u64)> {
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
    pub fn step_line(&mut self, kind: session::LineStep) {
        let has_lines = self
            .session
            .as_ref()
            .is_some_and(|s| s.program.debug.as_ref().is_some_and(|d| d.has_lines()));
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
    pub fn step_back(&mut self) {
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
    pub fn run_slice(&mut self, seconds: f64, now: impl Fn() -> f64) {
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

    fn handle_keys(&mut self, ctx: &egui::Context) {
        use egui::{Key, Modifiers};
        // Shift+F10 first: a key pattern without Shift also matches with Shift held.
        // Space is the presenter's step key, except while typing in the editor.
        let typing = ctx.memory(|m| m.focused().is_some());
        let presenter = self.presenter && !typing;
        let shift_cmd = Modifiers::COMMAND.plus(Modifiers::SHIFT);
        let (png, trace, link) = ctx.input_mut(|i| {
            (
                i.consume_key(shift_cmd, Key::S),
                i.consume_key(shift_cmd, Key::E),
                i.consume_key(shift_cmd, Key::L),
            )
        });
        if png {
            self.export_png(ctx);
        }
        if link {
            self.copy_link(ctx);
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::S)) {
            self.save_source();
        }
        if trace {
            self.export_trace();
        }
        // Modified keys first: a pattern without modifiers also matches with them held. Each
        // press counts, also when several arrive in one frame.
        let (back, out, one, sched, over, into) = ctx.input_mut(|i| {
            let space = |i: &mut egui::InputState, m| {
                if presenter {
                    i.count_and_consume_key(m, Key::Space)
                } else {
                    0
                }
            };
            (
                i.count_and_consume_key(Modifiers::SHIFT, Key::F10) + space(i, Modifiers::SHIFT),
                i.count_and_consume_key(Modifiers::SHIFT, Key::F11),
                i.count_and_consume_key(Modifiers::COMMAND, Key::F10),
                i.count_and_consume_key(Modifiers::ALT, Key::F10),
                i.count_and_consume_key(Modifiers::NONE, Key::F10) + space(i, Modifiers::NONE),
                i.count_and_consume_key(Modifiers::NONE, Key::F11),
            )
        });
        // Ctrl+Alt+B before Ctrl+B, which would also match it.
        let (side, graph, code) = ctx.input_mut(|i| {
            (
                i.consume_key(Modifiers::COMMAND.plus(Modifiers::ALT), Key::B),
                i.consume_key(Modifiers::COMMAND, Key::J),
                i.consume_key(Modifiers::COMMAND, Key::B),
            )
        });
        self.panes.code ^= code;
        self.panes.graph ^= graph;
        self.panes.side ^= side;
        let (run, animate, open, stop, toggle) = ctx.input_mut(|i| {
            (
                i.consume_key(Modifiers::NONE, Key::F5),
                i.consume_key(Modifiers::NONE, Key::F6),
                i.consume_key(Modifiers::COMMAND, Key::O),
                i.consume_key(Modifiers::NONE, Key::Escape),
                i.consume_key(Modifiers::NONE, Key::F2),
            )
        });
        for _ in 0..out {
            self.step_line(session::LineStep::Out);
        }
        for _ in 0..one {
            self.step_selected();
        }
        for _ in 0..sched {
            self.step();
        }
        for _ in 0..over {
            self.step_line(session::LineStep::Over);
        }
        for _ in 0..into {
            self.step_line(session::LineStep::Into);
        }
        if toggle {
            self.presenter = !self.presenter;
        }
        if animate {
            self.animating = !self.animating;
            self.running = false;
        }
        for _ in 0..back {
            self.step_back();
        }
        if run {
            self.running = true;
        }
        if stop {
            if self.running || self.animating {
                if let Some(s) = &self.session {
                    self.status = format!("stopped at step {}", s.step_count());
                }
            }
            self.running = false;
            self.animating = false;
        }
        if open {
            self.start_open_dialog();
        }
    }

    /// The title the window (and the browser tab) shows: module and step, for people and tests.
    pub fn title(&self) -> String {
        match &self.session {
            Some(s) => {
                let stale = if self.editor.as_ref().is_some_and(|e| e.stale) {
                    " (stale: the source does not compile)"
                } else {
                    ""
                };
                format!("Lanescope — {} — step {}{stale}", s.name, s.step_count())
            }
            None => "Lanescope".into(),
        }
    }

    /// The whole UI, one frame.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        if !self.fonts_set {
            // Before any text this pass, so it takes effect at once (the first frame included).
            ctx.set_fonts(fonts::definitions());
            self.fonts_set = true;
        }
        self.handle_keys(&ctx);
        apply_presenter(&ctx, self.presenter);
        // egui's pure red error text is under WCAG AA on both themes' panels (3.9:1 and 4.3:1):
        // a darker red on light, a lighter one on dark.
        for (theme, c) in [
            (egui::Theme::Light, palette::LIGHT_ERROR),
            (egui::Theme::Dark, palette::DARK_ERROR),
        ] {
            if ctx.style_of(theme).visuals.error_fg_color != c {
                ctx.style_mut_of(theme, |s| s.visuals.error_fg_color = c);
            }
        }
        if self.presenter != self.was_presenter {
            // The panes change size: bring the current line back into view.
            self.was_presenter = self.presenter;
            self.source_last_line = None;
            self.cfg_followed = None;
        }
        self.follow_page_fragment();
        self.poll_exports(&ctx);
        if self.seek.is_some() {
            self.seek_slice(SLICE_SECONDS, now_fn());
            ctx.request_repaint();
        }
        if self.compare_runner.is_some() {
            self.compare_slice(SLICE_SECONDS, now_fn());
            ctx.request_repaint();
        }
        self.poll_inputs(&ctx);
        if self.poll_compile() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        if let Some(t) = self.editor.as_ref().and_then(|e| e.edited_at) {
            let now = ctx.input(|i| i.time);
            if now - t >= editor::DEBOUNCE_SECONDS {
                self.recompile();
            } else {
                ctx.request_repaint_after(std::time::Duration::from_secs_f64(
                    editor::DEBOUNCE_SECONDS - (now - t),
                ));
            }
        }
        if self.running {
            let clock = now_fn();
            self.run_slice(SLICE_SECONDS, clock);
            ctx.request_repaint();
        } else if self.animating {
            let t = ctx.input(|i| i.time);
            if t >= self.anim_due {
                self.step();
                self.anim_due = t + 1.0 / f64::from(self.settings.speed.max(0.1));
                if self.session.as_ref().is_some_and(|s| s.sim().is_finished()) {
                    self.animating = false;
                }
            }
            ctx.request_repaint();
        }
        if let Some(s) = &self.session {
            // Before any view asks for a tangle's colour: those alive now get hues apart.
            palette::live_tangles(s.sim().tangles().iter().map(|t| (t.subgroup, t.lanes.0)));
        }
        toolbar::toolbar(self, ui);
        panels::bottom_bar(self, ui);
        if !self.presenter || self.left_tab == LeftTab::Source {
            // On a projector the source stays; the disassembly gives its room to the views.
            panels::code(self, ui);
        }
        // On a projector: the code, the chosen view and the lesson, large, and nothing else (F2
        // brings the values and inputs back).
        if !self.presenter || self.lesson.is_some() {
            panels::side(self, ui);
        }
        tabs::central(self, ui);
        if self.open_promise.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        let dt = (ctx.input(|i| i.unstable_dt) * 1000.0).clamp(0.0, 1000.0);
        self.frame_ms = self.frame_ms * 0.9 + dt * 0.1;
    }

    pub fn frame_ms(&self) -> f32 {
        self.frame_ms
    }
}
/// Presenter mode: everything larger, text at full contrast on a black background.
fn apply_presenter(ctx: &egui::Context, on: bool) {
    let zoom = if on { 1.5 } else { 1.0 };
    if (ctx.zoom_factor() - zoom).abs() > f32::EPSILON {
        ctx.set_zoom_factor(zoom);
    }
    let text = on.then_some(egui::Color32::WHITE);
    if ctx.global_style().visuals.override_text_color != text {
        let mut v = if on || ctx.theme() == egui::Theme::Dark {
            egui::Visuals::dark()
        } else {
            egui::Visuals::light()
        };
        if on {
            v.override_text_color = text;
            v.panel_fill = egui::Color32::BLACK;
            v.window_fill = egui::Color32::BLACK;
            v.extreme_bg_color = egui::Color32::BLACK;
        }
        ctx.set_visuals(v);
    }
}

/// Seconds from some fixed point (wall time; only differences matter).
fn now_fn() -> impl Fn() -> f64 {
    clock
}

/// Seconds on a clock that only moves forward, from some fixed point (only differences matter).
pub(super) fn clock() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
    }
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now() / 1000.0)
    }
}

/// A built-in example's file name and bytes.
fn example(name: &str) -> Result<(String, Vec<u8>), String> {
    EXAMPLES
        .iter()
        .find(|e| e.0 == name)
        .map(|(n, bytes, _)| (format!("{n}.spv"), bytes.to_vec()))
        .ok_or_else(|| format!("no built-in example named `{name}`"))
}

pub struct EframeApp(pub LanescopeApp);

const SETTINGS_KEY: &str = "lanescope-settings";
const EDITOR_KEY: &str = "lanescope-editor";
const PANES_KEY: &str = "lanescope-panes";

/// A value kept between runs, read from eframe's storage (a file natively, `localStorage` in the
/// browser). JSON rather than eframe's RON helpers: `serde_json` is in the build anyway, and RON
/// (with eframe's `persistence`) added ~0.75 MB of code to the browser's download. A value
/// stored in another format, or for another version, reads as none: the defaults.
fn stored<T: serde::de::DeserializeOwned>(
    storage: Option<&dyn eframe::Storage>,
    key: &str,
) -> Option<T> {
    serde_json::from_str(&storage?.get_string(key)?).ok()
}

/// Keeps `value` for the next run (see [`stored`]).
fn store<T: serde::Serialize>(storage: &mut dyn eframe::Storage, key: &str, value: &T) {
    if let Ok(json) = serde_json::to_string(value) {
        storage.set_string(key, json);
    }
}

impl EframeApp {
    /// Starts on `file`, else on the default example; then applies `link` (a permalink
    /// fragment) if given.
    pub fn new(
        cc: &eframe::CreationContext<'_>,
        file: Option<(String, Vec<u8>)>,
        link: Option<String>,
    ) -> Self {
        let settings: Settings = stored(cc.storage, SETTINGS_KEY).unwrap_or_default();
        let mut app = LanescopeApp::new(settings);
        if let Some(p) = stored(cc.storage, PANES_KEY) {
            app.panes = p;
        }
        // The browser comes back to the last edit (a reload loses nothing); natively the
        // person saves their source to a file.
        let last_edit: Option<editor::Editor> = if cfg!(target_arch = "wasm32") && link.is_none() {
            stored::<Option<editor::Editor>>(cc.storage, EDITOR_KEY).flatten()
        } else {
            None
        };
        match (file, last_edit) {
            (Some((name, bytes)), _) => app.open(&name, bytes),
            (None, Some(ed)) => {
                app.open_example(DEFAULT_EXAMPLE);
                app.open_source(ed);
            }
            (None, None) => app.open_example(DEFAULT_EXAMPLE),
        }
        // A source that does not compile stays in the editor with its errors (and its Build
        // section) to be fixed there; anything else that fails shows the example meanwhile.
        if app.session.is_none() && app.error.is_some() && app.editor.is_none() {
            // Keep the error, but give the person something to look at.
            let e = app.error.take();
            app.open_example(DEFAULT_EXAMPLE);
            app.error = e;
        }
        if let Some(fragment) = link {
            match permalink::Link::parse(&fragment) {
                Ok(l) => app.apply_link(l),
                Err(e) => app.error = Some(e),
            }
        }
        Self(app)
    }
}

impl eframe::App for EframeApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let before = self.0.title();
        #[cfg(target_arch = "wasm32")]
        let shown = self.0.shown();
        self.0.show(ui);
        #[cfg(target_arch = "wasm32")]
        web_timing(ui.ctx(), shown, self.0.shown());
        let title = self.0.title();
        if title != before || ui.ctx().cumulative_frame_nr() < 2 {
            #[cfg(target_arch = "wasm32")]
            if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
                doc.set_title(&title);
            }
            #[cfg(not(target_arch = "wasm32"))]
            ui.ctx()
                .send_viewport_cmd(egui::ViewportCommand::Title(title));
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        // A link's or a lesson's settings belong to that session, not to the next start.
        store(storage, SETTINGS_KEY, &self.0.own_settings());
        store(storage, EDITOR_KEY, &self.0.editor);
        store(storage, PANES_KEY, &self.0.panes);
    }
}

impl LanescopeApp {
    /// What a frame shows that a person waits for: the step, and the last edit's time.
    #[cfg(target_arch = "wasm32")]
    fn shown(&self) -> (Option<u64>, Option<f64>) {
        (
            self.session.as_ref().map(|s| s.step_count()),
            self.editor.as_ref().and_then(|e| e.edited_at),
        )
    }
}

/// Browser only: performance marks the end-to-end test times the page by (the first frame, a
/// frame that shows another step, one that lays out an edit) and a count of the frames drawn
/// (`window.lanescopeFrames`), to see that an idle page draws none.
#[cfg(target_arch = "wasm32")]
fn web_timing(
    ctx: &egui::Context,
    before: (Option<u64>, Option<f64>),
    after: (Option<u64>, Option<f64>),
) {
    let Some(w) = web_sys::window() else { return };
    let frames = js_sys::Reflect::get(&w, &"lanescopeFrames".into())
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    let _ = js_sys::Reflect::set(&w, &"lanescopeFrames".into(), &(frames + 1.0).into());
    let Some(p) = w.performance() else { return };
    if ctx.cumulative_frame_nr() == 0 {
        let _ = p.mark("lanescope-first-frame");
    }
    if after.0 != before.0 {
        let _ = p.mark("lanescope-step");
    }
    if after.1.is_some() && after.1 != before.1 {
        let _ = p.mark("lanescope-edit");
    }
}

/// A sibling order as the menus name it.
pub fn sibling_order_name(o: lanescope_core::SiblingOrder) -> &'static str {
    SIBLING_ORDERS
        .iter()
        .find(|(_, x)| *x == o)
        .map_or("", |(n, _)| n)
}
