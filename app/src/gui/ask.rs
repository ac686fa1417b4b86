//! What a person asks for, as values: the keyboard and the toolbar return them, the other views
//! send them with [`LanescopeApp::ask`], and `gui/action/` carries them out once the views have
//! drawn.

use super::editor::Editor;
use super::session::{LineStep, Session, Settings};
use crate::gui::state::LanescopeApp;
use lanescope_core::{Bindings, SpecValue};
use std::collections::BTreeMap;

/// One thing a person asked for.
#[derive(Debug)]
pub enum Action {
    /// The followed tangle to its next source line (over or into calls), or out of its
    /// function.
    StepLine(LineStep),
    /// One scheduler step: whichever tangle runs next, one instruction.
    Step,
    /// The selected tangle, one instruction.
    StepTangle,
    /// Undo the last step by its unit (a line or an instruction).
    StepBack,
    /// The state right after a step, then what asked for it brought into view.
    GoTo(Jump),
    /// Run to the next breakpoint or diagnostic; `ToggleRun` pauses a run under way.
    Run,
    ToggleRun,
    /// Animate at the set speed, or stop animating (either way a run under way pauses).
    ToggleAnimate,
    /// Stop running and animating.
    Stop,
    /// Back to step 0 of this run.
    Reset,
    /// New settings; the run starts again under them when `restart` (the compile's limits
    /// bound the next compile only).
    Settings {
        settings: Box<Settings>,
        restart: bool,
    },
    /// The animation's speed, steps per second (the run goes on).
    Speed(f32),
    /// A new initial state for the run (what changed of it): it starts again, saying why.
    Inputs(Box<Inputs>, String),
    /// A breakpoint on module instruction `k`, on or off.
    ToggleBreakpoint(u32),
    /// A breakpoint on a source line of a debug-information file, on or off.
    ToggleSourceBreakpoint {
        file: u32,
        line: u32,
    },
    /// The Compare view's two runs.
    Compare,
    /// The Compare view's run on the machine's GPU beside the simulation.
    RunOnGpu,
    OpenExample(String),
    /// A source in the editor, compiled and run.
    OpenSource(Box<Editor>),
    /// Lesson `i` (0-based) with its example and settings.
    OpenLesson(usize),
    /// RUN `i` of the AmberScript open in the Scenario panel.
    OpenScenarioRun(usize),
    /// The file dialog.
    OpenDialog,
    SaveSource,
    /// A file to save (or download in the browser): name, media type, bytes.
    Save(String, &'static str, Vec<u8>),
    CopyLink,
    ExportPng,
    ExportTrace,
    ExportAmber,
    TogglePane(Pane),
    TogglePresenter,
    ToggleFrameTime,
    /// Every pane open at its default width.
    ResetLayout,
}

/// A pane the View menu and the keyboard fold and unfold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Code,
    Graph,
    Side,
}

/// What the Inputs panel (or a buffer's initial word in the values panel) changed of the run's
/// initial state; `None` keeps the session's.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Another entry point (the module loads again).
    pub entry: Option<String>,
    /// The specialization constants, by SpecId (those absent take their defaults).
    pub spec: Option<BTreeMap<u32, SpecValue>>,
    /// The buffers and push constants before the first step.
    pub initial: Option<Box<Bindings>>,
}

impl Inputs {
    /// The initial buffers to edit: the session's, copied on the first edit.
    pub fn initial(&mut self, s: &Session) -> &mut Bindings {
        self.initial
            .get_or_insert_with(|| Box::new(s.initial.clone()))
    }
}

/// Where a jump lands and what it brings into view once there.
#[derive(Debug, Default)]
pub struct Jump {
    pub step: u64,
    /// A disassembly line (a module instruction's index).
    pub instruction: Option<usize>,
    /// A source line.
    pub source_line: Option<usize>,
    /// What the status bar says instead of "went to step N".
    pub status: Option<String>,
}

impl Action {
    /// A jump to `step` that brings nothing else into view.
    pub fn go_to(step: u64) -> Self {
        Self::GoTo(Jump {
            step,
            ..Jump::default()
        })
    }
}

impl LanescopeApp {
    /// Asks for `a`: the frame applies it once the views have drawn (in the order asked).
    pub fn ask(&mut self, a: Action) {
        self.asked.push(a);
    }
}
