//! Opening what a person brings: modules, sources (compiled here, into the editor) and
//! AmberScript tests; recompiling the edited source. Each path ends in one `Session` and
//! leaves nothing of the module that was open before.

use crate::gui::session::{Session, Settings};
use crate::gui::state::{example, LanescopeApp, LeftTab, Scenario};
use crate::gui::{cfg, editor, views};
use lanescope_front::Language;

impl LanescopeApp {
    /// Opens a module under the person's own settings (a link's or a lesson's end here); on
    /// failure the error bar says why and the current session stays as it was.
    pub fn open(&mut self, name: &str, bytes: Vec<u8>) {
        self.open_with(name, bytes, Vec::new());
    }

    /// Like [`Self::open`], a source with the files its `#include` finds (`(name, text)`:
    /// those picked or dropped with it).
    fn open_with(&mut self, name: &str, bytes: Vec<u8>, includes: Vec<(String, String)>) {
        // A whole path (the command line, the open dialog, a drop): the files an AmberScript
        // names are read beside it; the session is called by the file's name.
        let path = std::path::Path::new(name);
        let name = match (path.parent(), path.file_name()) {
            (Some(dir), Some(file)) if !dir.as_os_str().is_empty() => {
                self.script_dir = Some(dir.to_path_buf());
                file.to_string_lossy().into_owned()
            }
            _ => {
                self.script_dir = None;
                name.to_owned()
            }
        };
        let name = name.as_str();
        let name = match lanescope_front::Language::sniff(&bytes) {
            // A source dropped without a telling extension: name it by its content.
            Some(Language::Glsl) if Language::from_path(name).is_none() => format!("{name}.comp"),
            Some(Language::SpirvAsm) if Language::from_path(name).is_none() => {
                format!("{name}.spvasm")
            }
            _ => name.to_owned(),
        };
        if self.open_file_built(
            &name,
            bytes,
            self.own_settings(),
            crate::gui::build::Build::default(),
            includes,
            true,
        ) {
            self.own = None;
        }
    }

    /// Opens files that came together (the open dialog, a drop): the one to run, and the rest
    /// as files its `#include` finds. The one to run is the first that is not a header: a
    /// `.comp`/`.hlsl`/`.wgsl`/module/script, else a `.glsl` with a `main`, else the first.
    pub(in crate::gui) fn open_together(&mut self, files: Vec<(String, Vec<u8>)>) {
        let rank = |(name, bytes): &(String, Vec<u8>)| {
            let ext = std::path::Path::new(name)
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default();
            match ext.as_str() {
                "comp" | "hlsl" | "wgsl" | "spv" | "spvasm" | "amber" => 0,
                _ if String::from_utf8_lossy(bytes).contains("main") => 1,
                _ => 2,
            }
        };
        let Some(main) = files
            .iter()
            .enumerate()
            .min_by_key(|(i, f)| (rank(f), *i))
            .map(|(i, _)| i)
        else {
            return;
        };
        let mut files = files;
        let (name, bytes) = files.remove(main);
        self.open_with(&name, bytes, text_files(&files));
    }

    /// Opens source text in the editor (a template, the last edit): see [`Self::open`].
    pub fn open_source(&mut self, ed: editor::Editor) {
        let name = ed.name.clone();
        self.open(&name, ed.text.into_bytes());
    }

    /// Like [`Self::open_under`] for any file a person or a link brings: a source is compiled
    /// first and opens in the editor (with its errors when it does not compile).
    pub(super) fn open_file_under(&mut self, name: &str, bytes: Vec<u8>, st: Settings) -> bool {
        self.open_file_built(
            name,
            bytes,
            st,
            crate::gui::build::Build::default(),
            Vec::new(),
            false,
        )
    }

    /// Like [`Self::open_file_under`], a source built with `build` (a link's macros, target
    /// environment and entry point) and `includes` (files its `#include` finds). With `background` (a file the person opened, natively,
    /// with a compile worker) GLSL and HLSL compile off the UI thread: the editor shows the
    /// text at once and [`Self::poll_compile`] opens the module when the compile answers (true
    /// here means it started).
    pub(super) fn open_file_built(
        &mut self,
        name: &str,
        bytes: Vec<u8>,
        st: Settings,
        build: crate::gui::build::Build,
        includes: Vec<(String, String)>,
        background: bool,
    ) -> bool {
        // A compile still running for what was opened before is of no use any more (nor the
        // link that waited for it).
        self.compiling = None;
        self.link_after_open = None;
        let language = lanescope_front::Language::from_path(name)
            .or_else(|| lanescope_front::Language::sniff(&bytes));
        if language == Some(Language::Amber) {
            return self.open_amber(name, bytes, st, 0);
        }
        let Some(l @ (Language::Wgsl | Language::Glsl | Language::Hlsl | Language::SpirvAsm)) =
            language
        else {
            let opened = self.open_under(name, bytes, st);
            if opened {
                self.editor = None;
                self.left_tab = self.default_left_tab();
            }
            return opened;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            self.error = Some(format!("{name}: not UTF-8 text"));
            return false;
        };
        let mut ed = editor::Editor::new(name, l, text);
        ed.source_dir = self.script_dir.clone();
        ed.include_files = includes;
        ed.build = build;
        self.left_tab = LeftTab::Source;

        // The browser's GLSL compiler answers only asynchronously, whoever asks.
        if (background || cfg!(target_arch = "wasm32"))
            && crate::gui::compile_job::in_background(l, false)
        {
            let mut job = crate::gui::compile_job::CompileJob::start(&ed, &st.compile_limits());
            job.open_under = Some(Box::new(st));
            self.status = format!("compiling {name}…");
            self.error = None;
            self.editor = Some(ed);
            self.compiling = Some(job);
            return true;
        }
        let result = ed.compile(&st.compile_limits());
        self.editor = Some(ed);
        self.finish_open(st, result)
    }

    /// Opens the editor's compiled source under `st` (or shows why it did not compile); true
    /// when it opened.
    fn finish_open(
        &mut self,
        st: Settings,
        result: Result<lanescope_front::Compiled, lanescope_front::CompileError>,
    ) -> bool {
        let Some(mut ed) = self.editor.take() else {
            return false;
        };
        let name = ed.name.clone();
        match result {
            Ok(c) => {
                ed.diagnostics = c.warnings.clone();
                let opened = self.open_under(&name, c.bytes(), st);
                ed.stale = !opened && self.session.is_some();
                self.editor = Some(ed);
                opened
            }
            Err(e) => {
                self.error = Some(editor::located(&name, &e));
                ed.diagnostics = e.diagnostics;
                ed.stale = self.session.is_some();
                self.editor = Some(ed);
                false
            }
        }
    }

    /// Runs an AmberScript test and opens its `RUN` number `run_index` (0 the first executed) to
    /// step through: the shader as the
    /// script compiled and specialized it, its buffers as the script had them, the dispatch
    /// and subgroup size of that run. The script's result is in the Scenario panel.
    pub(super) fn open_amber(
        &mut self,
        name: &str,
        bytes: Vec<u8>,
        st: Settings,
        run_index: usize,
    ) -> bool {
        use lanescope_front::amber;
        let Ok(text) = std::str::from_utf8(&bytes) else {
            self.error = Some(format!("{name}: not UTF-8 text"));
            return false;
        };
        let dir = self.script_dir.clone();
        let read = move |p: &str| -> Option<Result<Vec<u8>, String>> {
            if cfg!(target_arch = "wasm32") {
                return None;
            }
            let path = dir.as_ref()?.join(p);
            let meta = std::fs::metadata(&path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()));
            Some(meta.and_then(|m| {
                if m.len() > amber::MAX_SCRIPT_BUFFER_BYTES {
                    return Err(format!(
                        "`{}` has {} bytes, more than a script may bind",
                        path.display(),
                        m.len()
                    ));
                }
                std::fs::read(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
            }))
        };
        let script = match amber::parse_with_files(text, &read) {
            Ok(s) => s,
            Err(e) => {
                self.error = Some(format!("{name}:{e}"));
                return false;
            }
        };
        let cfg = st.config();
        let opts = amber::RunOptions {
            config: cfg.clone(),
            // The script runs here on the UI thread: a bound keeps a frame from becoming long.
            max_steps: st.max_steps.min(5_000_000),
            max_total_steps: st.max_steps.min(20_000_000),
            capture_run: Some(run_index),
            ..amber::RunOptions::default()
        };
        let compiler = lanescope_front::Bounded {
            limits: st.compile_limits(),
            worker: crate::compile_worker(),
        };
        let ex = amber::execute(&script, &compiler, &opts);
        let scenario = Scenario {
            name: name.to_owned(),
            report: ex.report.to_text(),
            runs: ex
                .report
                .runs
                .iter()
                .map(|r| (r.line, r.pipeline.clone()))
                .collect(),
            open_run: ex.captured.as_ref().map(|_| run_index),
            script: bytes.clone(),
            failed: ex
                .report
                .expects
                .iter()
                .filter(|e| !e.pass)
                .map(|e| crate::gui::state::FailedExpect {
                    expect: e.clone(),
                    at: ex.captured.as_ref().and_then(|run| {
                        let (_, set, binding, base) = run.binds.iter().find(|b| b.0 == e.buffer)?;
                        let at = e.index.unwrap_or(0).checked_sub(*base)?;
                        Some((*set, *binding, at))
                    }),
                })
                .collect(),
        };
        let summary = scenario.report.clone();
        let Some(run) = ex.captured else {
            self.error = Some(format!(
                "{name}: no RUN to step through: {}",
                summary.lines().next().unwrap_or("")
            ));
            self.scenario = Some(scenario);
            return false;
        };
        let module: Vec<u8> = run.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let label = format!("{name} — {}", run.shader);
        match Session::from_parts(
            &label,
            module,
            run.program,
            run.bindings,
            run.config.clone(),
        )
        .map(|s| s.with_load(Some(run.entry.clone()), run.spec.clone()))
        {
            Ok(s) => {
                let mut settings = st;
                settings.subgroup_size = run.config.subgroup_size;
                settings.workgroups = run.config.workgroups;
                self.cfg_layout = Some(cfg::CfgLayout::new(&s.program, s.program.entry_func()));
                self.scroll_to_line = Some(s.focus_instruction().unwrap_or(0) as usize);
                self.session = Some(s);
                self.settings = settings;
                self.error = None;
                self.status = format!(
                    "{name}: {} (RUN {} of {}, line {}, is open)",
                    ex.report.status.name(),
                    run_index + 1,
                    ex.report.runs.len(),
                    run.line
                );
                self.forget_module();
                self.editor = None;
                self.scenario = Some(scenario);
                self.left_tab = self.default_left_tab();
                true
            }
            Err(e) => {
                self.error = Some(e);
                self.scenario = Some(scenario);
                false
            }
        }
    }

    /// Everything that belonged to the module on screen (a run under way, selections,
    /// watches, a lesson, a comparison, outlined lanes): a new module starts without them.
    fn forget_module(&mut self) {
        self.running = false;
        self.animating = false;
        self.seek = None;
        self.selected_tangle = None;
        self.selected_lane = None;
        self.selected_id = None;
        self.watches.clear();
        self.inputs = Default::default();
        self.cfg_followed = None;
        self.timeline_flipped.clear();
        self.matrix_sel = views::matrix::Selection::default();
        self.lesson = None;
        self.comparison = None;
        self.compare_runner = None;
        self.gpu_report = None;
        self.gpu_job = None;
        self.highlight_lanes = None;
        self.last_unit_start = None;
    }

    /// The source tab when there is source to show, else the disassembly.
    fn default_left_tab(&self) -> LeftTab {
        let has_source = self.editor.is_some()
            || self.session.as_ref().is_some_and(|s| {
                s.program
                    .debug()
                    .is_some_and(|d| d.files.iter().any(|f| f.text.is_some()))
            });
        if has_source {
            LeftTab::Source
        } else {
            LeftTab::Disassembly
        }
    }

    /// Compiles the edited source again; when it compiles, the run restarts under the same
    /// settings and goes back to the step it was at (or as far as it gets). Natively, with a
    /// compile worker, the compile runs off the UI thread ([`Self::poll_compile`] finishes it);
    /// a compile still running for older text is cancelled.
    pub(in crate::gui) fn recompile(&mut self) {
        let Some(ed) = &mut self.editor else { return };
        ed.edited_at = None;
        if crate::gui::compile_job::in_background(ed.language, true) {
            self.compiling = Some(crate::gui::compile_job::CompileJob::start(
                ed,
                &self.settings.compile_limits(),
            ));
            return;
        }
        let result = ed.compile(&self.settings.compile_limits());
        self.finish_recompile(result);
    }

    /// A background compile's answer, once there is one; true while one is still running.
    pub(in crate::gui) fn poll_compile(&mut self) -> bool {
        let Some(job) = &self.compiling else {
            return false;
        };
        let Some(result) = job.poll() else {
            return true;
        };
        let job = self.compiling.take();
        // An answer for text that has changed since is no answer: the edit recompiles.
        if let Some(mut job) = job {
            if self.editor.as_ref().map(|e| &e.text) == Some(&job.text) {
                match job.open_under.take() {
                    Some(st) => {
                        let link = self.link_after_open.take();
                        if self.finish_open(*st, result) {
                            if let Some(l) = link {
                                self.apply_link_view(*l);
                            }
                        }
                    }
                    None => self.finish_recompile(result),
                }
            }
        }
        false
    }

    fn finish_recompile(
        &mut self,
        result: Result<lanescope_front::Compiled, lanescope_front::CompileError>,
    ) {
        let Some(ed) = &mut self.editor else { return };
        match result {
            Ok(c) => {
                ed.diagnostics = c.warnings.clone();
                let name = ed.name.clone();
                let step = self.session.as_ref().map_or(0, Session::step_count);
                match Session::open(&name, c.bytes(), &self.settings) {
                    Ok(s) => {
                        self.cfg_layout =
                            Some(cfg::CfgLayout::new(&s.program, s.program.entry_func()));
                        self.session = Some(s);
                        self.error = None;
                        self.running = false;
                        self.animating = false;
                        self.comparison = None;
                        self.compare_runner = None;
                        self.gpu_report = None;
                        self.gpu_job = None;
                        self.selected_tangle = None;
                        self.seek = (step > 0).then_some(step);
                        self.status = format!("recompiled {name}");
                        if let Some(ed) = &mut self.editor {
                            ed.stale = false;
                        }
                    }
                    Err(e) => {
                        self.error = Some(e);
                        if let Some(ed) = &mut self.editor {
                            ed.stale = self.session.is_some();
                        }
                    }
                }
            }
            Err(e) => {
                self.error = Some(editor::located(&ed.name, &e));
                ed.diagnostics = e.diagnostics;
                ed.stale = self.session.is_some();
            }
        }
    }

    /// Opens lesson `i`: its example under all of its settings, the view its text starts with,
    /// and the text in sight.
    pub(super) fn open_lesson(&mut self, i: usize) {
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

    pub fn open_example(&mut self, name: &str) {
        match example(name) {
            Ok((n, bytes)) => self.open(&n, bytes),
            Err(e) => self.error = Some(e),
        }
    }

    /// Opens a module under `settings`; true when it opened. Everything that belongs to the
    /// module on screen (selection, watches, a pending jump, a comparison, the lesson) starts
    /// afresh; the person's preferences (view, zoom, number format) stay.
    pub(super) fn open_under(&mut self, name: &str, bytes: Vec<u8>, settings: Settings) -> bool {
        match Session::open(name, bytes, &settings) {
            Ok(s) => {
                self.cfg_layout = Some(cfg::CfgLayout::new(&s.program, s.program.entry_func()));
                // A new module opens where it starts, not at the old one's scroll position.
                self.scroll_to_line = Some(s.focus_instruction().unwrap_or(0) as usize);
                self.session = Some(s);
                self.settings = settings;
                self.error = None;
                self.status = format!("opened {name}");
                self.forget_module();
                self.scenario = None;
                true
            }
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }
}

/// The files that are text, as `(name, text)` (what `#include` can be given).
pub(in crate::gui) fn text_files(files: &[(String, Vec<u8>)]) -> Vec<(String, String)> {
    files
        .iter()
        .filter_map(|(n, b)| String::from_utf8(b.clone()).ok().map(|t| (n.clone(), t)))
        .collect()
}
