//! The egui app: toolbar, disassembly, CFG, lanes, watch, buffers, diagnostics, controls. Panels
//! draw from `Session` (the model); nothing here changes simulation results.
//!
//! The app's parts. `main.rs` picks the front: the GUI (no arguments, or a file), or the headless
//! `run`/`example` subcommands (`cli/`: `args.rs` the grammar, `mod.rs` the runs); on wasm, `web.rs` starts eframe on the page's canvas and
//! installs a panic hook that shows a message instead of a dead canvas. `gui/session.rs` owns one
//! `Simulator` and everything about the session that is not drawing (open, reset under new
//! settings, step, step tangle, step back, run slices with breakpoints and a step limit); the app
//! runs long work in slices of about 12 ms per frame, so a frame never blocks. `gui/mod.rs` holds
//! the app's state and draws the frame; what a person asks for is an `action::Action`: the
//! keyboard (`keys.rs`) and the toolbar return them, the other views send theirs with
//! `LanescopeApp::ask`, and `action/` is the one place that carries them out (`stepping.rs`:
//! step, back, go to, run slices; `open.rs`; `export.rs`: saving the source, an AmberScript, the
//! trace, the window; `links.rs` makes and follows permalinks), its methods private to it so a
//! view cannot step or reset by itself; `host.rs` is the app in eframe (the settings, panes and last edit kept
//! as JSON in eframe's storage: a file natively, localStorage in the browser); `disasm.rs` (line k
//! is module instruction k, friendly names), `cfg.rs` (layered layout, edge kinds, tangle chips)
//! compute plain view data; `toolbar.rs` the one-row toolbar (menus, stepping controls), `panels/`
//! the panels around the centre (`disassembly.rs`; the side panel's `values.rs` and
//! `diagnostics.rs`) (each folds to a named strip and takes a share of the window's width; which
//! are open and their shares, `Panes`, are kept beside the settings), `tabs/` the graph and the
//! tabbed views under it (a bar between them shares the height); `palette.rs` is the one colour scheme for lanes and tangles (tangles alive at once
//! get hues apart); `fonts.rs` the two faces, egui's own without hinting programs (`assets/fonts/`,
//! made by `scripts/build-fonts.py`). `action/open.rs` opens what a person brings (a module, a source
//! compiled into the editor, an AmberScript whose RUN opens to step through) and recompiles edits.
//! `inputs/` is the Inputs panel (`values.rs` the data behind it, `import.rs` files into
//! buffers): it asks for a new initial state (entry point and specialization, which reload the
//! module; push constants and buffers, laid out by the core's `Program::resource_fields`) and
//! the run restarts from it. `editor/` is the source pane (`mod.rs` its state and templates,
//! `view.rs` the drawing): the person's
//! code (recompiled through `front` 0.4 s after typing stops, as a `compile_job.rs` job polled each
//! frame: natively a thread driving the worker process, in the browser the compiler module's Web
//! Worker; cancelled when the text changes again; a good compile restarts the run and seeks back to
//! the same step, a failed one keeps the last run, marked stale; `build.rs`'s Build section holds
//! macros, include folders, target and entry point) or the source in the module's debug
//! information, read-only, a tab per file; highlighting (`highlight.rs`) is a small tokenizer per
//! language producing an egui layout job (no highlighter crate: a few hundred bytes of wasm instead
//! of a grammar engine). Stepping by line (`Session::step_line`) follows one tangle until its
//! source position moves. Opening a file goes through `rfd` (the xdg portal natively, a file input
//! taking several files in the browser; `incoming.rs`, with drops) on a worker polled each frame
//! (`dialog.rs`: a worker that dies or a dialog that cannot be shown is an error in the bar, never
//! a panic), or drag-and-drop. A link's or a lesson's settings are set aside from the person's own,
//! which are what is saved. `gui/views/` holds the extension views, each a view-model built from
//! the session (tested on its own) plus a drawing function: `timeline.rs` (bands per lane from the
//! trace, or one band per folded subgroup, scrolled to the subgroup the steps follow; the session
//! keeps steps undone by going back so a click can replay forward), `rotate.rs` and `dot.rs`
//! (explain the rotate / dot product the last step ran or a tangle is about to run; the dot view
//! calls the same `core::dot` functions the engine does), `matrix.rs` (a matrix value through
//! `Simulator::coop_value`; A, B, C and Result of a MulAdd), `compare.rs` (two runs under settings
//! that differ in one thing, advanced in frame slices, compared step by step by invocation index
//! and word by word), `lesson.rs` (the lessons in `assets/lessons/`, embedded by `build.rs`).
//! `permalink.rs` writes and reads the URL fragment (example or deflated module, settings, lane,
//! view, step; every field checked, inflation bounded); `action/export.rs` saves the window as PNG
//! and the trace as JSON. The app records the trace (capped by the Limits menu); history checkpoints do not
//! copy it. The browser build (`scripts/setup-web.sh`, `scripts/build-web.sh`) uses Debian's
//! rustc-web to build std for wasm32 (and clang 16 with wasi-libc and libc++ for glslang's C++, in
//! the layout wasi-sdk has), then wasm-bindgen and wasm-opt (gzip copies beside, served by
//! `scripts/serve.py`); `tests/web/e2e.mjs` drives Chromium. `gui/tests.rs` drives the app with
//! egui_kittest, its image snapshots (`app/tests/snapshots/`) rendered through wgpu on Mesa's
//! software Vulkan. `tests/native/dialogs.sh` drives the native app's real file dialogs under Xvfb
//! (D-Bus session, xdg portal, GTK chooser, xdotool).

pub mod action;
pub mod build;
pub mod cfg;
pub mod compile_job;
pub mod dialog;
pub mod disasm;
pub mod editor;
pub mod fonts;
mod highlight;
mod host;
mod incoming;
mod inputs;
mod keys;
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

pub use host::EframeApp;

use crate::examples::EXAMPLES;
use session::{Session, Settings, SIBLING_ORDERS};

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
    saving: Option<action::Saving>,
    /// What the views asked for this frame, applied once they have drawn.
    asked: Vec<action::Action>,
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
            asked: Vec::new(),
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
        for a in keys::read(&ctx, self.presenter) {
            self.apply(&ctx, a);
        }
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
                self.apply(&ctx, action::Action::Step);
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
        for a in toolbar::toolbar(self, ui) {
            self.apply(&ctx, a);
        }
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
        self.apply_asked(&ctx);
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

/// A sibling order as the menus name it.
pub fn sibling_order_name(o: lanescope_core::SiblingOrder) -> &'static str {
    SIBLING_ORDERS
        .iter()
        .find(|(_, x)| *x == o)
        .map_or("", |(n, _)| n)
}
