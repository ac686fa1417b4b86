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
pub(super) use export::save;
#[cfg(target_arch = "wasm32")]
pub(in crate::gui) use links::page_fragment;

use super::ask::{Action, Inputs, Pane};
use super::state::Panes;
use crate::gui::state::LanescopeApp;

impl LanescopeApp {
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
            Action::RunOnGpu => self.start_gpu(),
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
