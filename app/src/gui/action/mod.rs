//! What a person asks for, as values, and the one place that carries it out.
//!
//! The keyboard (`keys.rs`) and the toolbar read the input and return [`Action`]s; the other
//! views send theirs with [`LanescopeApp::ask`], and the frame applies them once they have
//! drawn. Everything that changes the run, the module, the settings or leaves the app (a file,
//! the clipboard) happens here: the methods that do it (`stepping.rs`, `open.rs`, `export.rs`,
//! `links.rs`) are private to this module, so a view that tried to step or reset by itself
//! would not compile. A view keeps its own view state (what is selected, scrolled, zoomed,
//! folded), as egui's widgets do; the Inputs panel edits a copy of the run's initial state,
//! made on the first edit, and asks for it ([`Action::Inputs`]).

mod export;
mod links;
mod open;
mod stepping;

pub use export::png_rgba;
pub(super) use export::{save, Saving};

use super::editor::Editor;
use super::panels::Panes;
use super::session::{LineStep, Session, Settings};
use super::LanescopeApp;
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
    /// A file imported into a buffer's initial contents: the run starts again, saying so.
    Restart(String),
    /// A breakpoint on module instruction `k`, on or off.
    ToggleBreakpoint(u32),
    /// A breakpoint on a source line of a debug-information file, on or off.
    ToggleSourceBreakpoint {
        file: u32,
        line: u32,
    },
    /// The Compare view's two runs.
    Compare,
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

    /// Carries out what a person asked for.
    pub fn apply(&mut self, ctx: &egui::Context, a: Action) {
        match a {
            Action::StepLine(kind) => self.step_line(kind),
            Action::Step => self.step(),
            Action::StepTangle => self.step_selected(),
            Action::StepBack => self.step_back(),
            Action::GoTo(j) => {
                self.goto(j.step);
                if let Some(i) = j.instruction {
                    self.scroll_to_line = Some(i);
                }
                if let Some(l) = j.source_line {
                    self.source_scroll = Some(l);
                }
                if let Some(s) = j.status {
                    self.status = s;
                }
            }
            Action::Run => self.running = true,
            Action::ToggleRun => self.running = !self.running,
            Action::ToggleAnimate => {
                self.animating = !self.animating;
                self.running = false;
            }
            Action::Stop => {
                if self.running || self.animating {
                    if let Some(s) = &self.session {
                        self.status = format!("stopped at step {}", s.step_count());
                    }
                }
                self.running = false;
                self.animating = false;
            }
            Action::Reset => self.reset(),
            Action::Settings { settings, restart } => {
                self.settings = *settings;
                if restart {
                    self.reset();
                }
            }
            Action::Speed(v) => self.settings.speed = v,
            Action::Inputs(inputs, why) => {
                if let Some(s) = &mut self.session {
                    let Inputs {
                        entry,
                        spec,
                        initial,
                    } = *inputs;
                    if entry.is_some() {
                        s.entry = entry;
                    }
                    if let Some(spec) = spec {
                        s.spec = spec;
                    }
                    if let Some(initial) = initial {
                        s.initial = *initial;
                    }
                }
                self.reset();
                self.status = why;
            }
            Action::Restart(why) => {
                self.reset();
                self.status = why;
            }
            Action::ToggleBreakpoint(k) => {
                if let Some(s) = &mut self.session {
                    if !s.breakpoints.remove(&k) {
                        s.breakpoints.insert(k);
                    }
                }
            }
            Action::ToggleSourceBreakpoint { file, line } => {
                self.toggle_source_breakpoint(file, line)
            }
            Action::Compare => self.start_compare(),
            Action::OpenExample(name) => self.open_example(&name),
            Action::OpenSource(ed) => self.open_source(*ed),
            Action::OpenLesson(i) => self.open_lesson(i),
            Action::OpenScenarioRun(i) => {
                if let Some(sc) = self.scenario.clone() {
                    let st = self.own_settings();
                    self.open_amber(&sc.name, sc.script, st, i);
                }
            }
            Action::OpenDialog => self.start_open_dialog(),
            Action::SaveSource => self.save_source(),
            Action::Save(name, mime, bytes) => self.saving = Some(save(name, mime, bytes)),
            Action::CopyLink => self.copy_link(ctx),
            Action::ExportPng => self.export_png(ctx),
            Action::ExportTrace => self.export_trace(),
            Action::ExportAmber => self.export_amber(),
            Action::TogglePane(p) => {
                let open = match p {
                    Pane::Code => &mut self.panes.code,
                    Pane::Graph => &mut self.panes.graph,
                    Pane::Side => &mut self.panes.side,
                };
                *open = !*open;
            }
            Action::TogglePresenter => self.presenter = !self.presenter,
            Action::ToggleFrameTime => self.show_frame_time = !self.show_frame_time,
            Action::ResetLayout => self.panes = Panes::default(),
        }
    }

    /// Applies what the views asked for this frame; a frame follows to show it.
    pub(super) fn apply_asked(&mut self, ctx: &egui::Context) {
        if self.asked.is_empty() {
            return;
        }
        for a in std::mem::take(&mut self.asked) {
            self.apply(ctx, a);
        }
        ctx.request_repaint();
    }
}
