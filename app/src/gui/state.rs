//! The app's state: what a frame draws from and what the actions change (the frame itself is
//! `gui/mod.rs`, the actions `gui/action/`).

use super::dialog::{self, Opened};
use super::inputs::values::InputsState;
use super::session::{Session, Settings};
use super::{cfg, compile_job, editor, permalink, views};
use crate::examples::EXAMPLES;

/// A second run the Compare view offers: what it changes, and its label.
pub(in crate::gui) type CompareOption = (views::compare::Variant, String);
/// The Compare view's choices, by the module (its program) and the settings they were tried
/// under: those offered, and those left out with why.
pub(in crate::gui) type CompareOptions = (
    (std::sync::Weak<lanescope_core::program::Program>, Settings),
    Vec<CompareOption>,
    Vec<(CompareOption, String)>,
);

/// How the error bar words a file dialog that could not be shown (there is no portal, or no
/// D-Bus session): what to do instead.
pub(in crate::gui) const NO_DIALOG_HINT: &str =
    "drop a file on the window or pass it on the command line";

/// Reads a file to open, refusing one past the loader's size limit before reading it.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_module(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let len = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    too_large(len)?;
    std::fs::read(path).map_err(|e| e.to_string())
}

pub(in crate::gui) fn too_large(len: u64) -> Result<(), String> {
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
pub(in crate::gui) const SLICE_SECONDS: f64 = 0.012;

/// Steps taken between looks at the clock: a step of a big workgroup can take a tenth of a
/// millisecond or more, so a slice checks often enough to stay near its time.
pub(in crate::gui) const STEPS_PER_CHECK: u64 = 32;

pub struct LanescopeApp {
    /// What the open module runs under (the toolbar shows and changes these).
    pub settings: Settings,
    /// Which panes are open, and how the graph and the views share the middle.
    pub panes: Panes,
    /// The person's own settings while a link's or a lesson's are in force: they come back with
    /// the next example or file opened, and they are what is saved between runs.
    pub(in crate::gui) own: Option<Settings>,
    pub session: Option<Session>,
    pub error: Option<String>,
    pub status: String,
    /// Running to the next breakpoint / diagnostic / end.
    pub running: bool,
    /// Animated run: steps at `settings.speed` per second.
    pub animating: bool,
    pub(in crate::gui) anim_due: f64,
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
    pub(in crate::gui) open_promise: Option<dialog::Pending<Opened>>,
    /// A link whose source is still compiling: its view, lane and step, applied once it opens.
    pub(in crate::gui) link_after_open: Option<Box<permalink::Link>>,
    pub show_frame_time: bool,
    pub(in crate::gui) frame_ms: f32,
    /// The view under the CFG.
    pub tab: views::Tab,
    /// Steps the timeline shows.
    pub timeline_span: u64,
    /// Subgroups whose timeline rows the person folded or unfolded (against the default).
    pub timeline_flipped: std::collections::BTreeSet<u32>,
    /// The step and followed subgroup the timeline last scrolled to.
    pub(in crate::gui) timeline_seen: Option<(u64, Option<u32>)>,
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
    pub(in crate::gui) compare_options: Option<CompareOptions>,
    /// The app's faces are installed (the first frame does it).
    pub(in crate::gui) fonts_set: bool,
    pub comparison: Option<views::compare::Comparison>,
    /// Compare's run on the GPU while it runs, then its report or why it could not run.
    pub gpu_job: Option<super::gpu_job::GpuJob>,
    pub gpu_report: Option<Result<super::gpu_job::GpuReport, String>>,
    /// A screenshot asked for (it arrives a frame later), and a save under way.
    pub(in crate::gui) shot:
        std::sync::Arc<std::sync::Mutex<Option<std::sync::Arc<egui::ColorImage>>>>,
    pub(in crate::gui) shot_pending: bool,
    pub(in crate::gui) saving: Option<dialog::Saving>,
    /// What the views asked for this frame, applied once they have drawn.
    pub(in crate::gui) asked: Vec<super::ask::Action>,
    /// The person's source, when the module on screen was compiled from it here.
    pub editor: Option<editor::Editor>,
    /// The source file the Source pane shows when a module has several (an index into its
    /// debug information's files); `None` follows the current tangle's file.
    pub source_file: Option<u32>,
    /// The editor's text compiling off the UI thread (natively with a compile worker; GLSL
    /// and HLSL in the browser).
    pub compiling: Option<compile_job::CompileJob>,
    /// The Inputs panel's cell being typed in, fill pattern and an import under way.
    pub inputs: InputsState,
    /// Fit the graph to its area in the next frame (the Fit button).
    pub cfg_fit: bool,
    /// Presenter mode as the last frame drew it.
    pub(in crate::gui) was_presenter: bool,
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
            gpu_job: None,
            gpu_report: None,
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
    pub(in crate::gui) fn set_aside(&mut self, own: Settings) {
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

    pub fn frame_ms(&self) -> f32 {
        self.frame_ms
    }
}

/// A built-in example's file name and bytes.
pub(in crate::gui) fn example(name: &str) -> Result<(String, Vec<u8>), String> {
    EXAMPLES
        .iter()
        .find(|e| e.0 == name)
        .map(|(n, bytes, _)| (format!("{n}.spv"), bytes.to_vec()))
        .ok_or_else(|| format!("no built-in example named `{name}`"))
}

/// Which panes are open; kept between runs, so a layout the person chose stays.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Panes {
    /// The source and disassembly, left.
    pub code: bool,
    /// The control-flow graph, above the views.
    pub graph: bool,
    /// The lesson, values, inputs and diagnostics, right.
    pub side: bool,
    /// The graph's share of the middle's height, set by dragging the bar under it; `None`:
    /// as much as the open view leaves.
    pub graph_share: Option<f32>,
    /// The code pane's share of the window's width, set by dragging its edge; `None`: the
    /// default.
    pub code_share: Option<f32>,
    /// The values panel's share of the window's width, likewise.
    pub side_share: Option<f32>,
    /// The first screen's hint (press F10, or open lesson 1) has done its job: the person
    /// stepped, opened a lesson or closed it.
    pub welcomed: bool,
}

impl Default for Panes {
    fn default() -> Self {
        Self {
            code: true,
            graph: true,
            side: true,
            graph_share: None,
            code_share: None,
            side_share: None,
            welcomed: false,
        }
    }
}
