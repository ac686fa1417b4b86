//! The side panel's diagnostics: an AmberScript's failed EXPECTs and the run's diagnostics,
//! each jumping to where it happened.

use super::super::ask::{Action, Jump};
use super::super::views;
use crate::gui::state::LanescopeApp;

/// An AmberScript's failed EXPECTs: expected beside actual, and a jump to the step that last
/// wrote the word.
fn show_failed_expects(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(sc) = &app.scenario else { return };
    let Some(s) = &app.session else { return };
    let error = ui.visuals().error_fg_color;
    let mut jump = None;
    for f in &sc.failed {
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.label(egui::RichText::new("EXPECT failed").strong().color(error));
                let idx = f.expect.index.map(|i| format!(" IDX {i}")).unwrap_or_default();
                ui.weak(format!("line {} · `{}`{idx} {}", f.expect.line, f.expect.buffer, f.expect.op));
            });
            ui.add(
                egui::Label::new(
                    egui::RichText::new(format!("expected {}\nactual   {}", f.expect.expected, f.expect.actual))
                        .monospace(),
                )
                .wrap(),
            );
            let Some((set, binding, at)) = f.at else {
                ui.weak("the open run does not bind this buffer");
                return;
            };
            let writer = s.sim().last_write(set, binding, 0, at);
            let b = ui.add_enabled(writer.is_some(), egui::Button::new("Last write").small());
            let b = if writer.is_some() {
                b.on_hover_text(format!(
                    "Go to the step that last wrote byte {at} of set {set} binding {binding}"
                ))
            } else {
                b.on_disabled_hover_text(if s.sim().is_finished() {
                    "No step of this run wrote that word (or the bug detectors, which keep the last writes, are off)"
                } else {
                    "Nothing has written that word yet: run to the end (F5) first"
                })
            };
            if b.clicked() {
                jump = writer;
            }
        });
    }
    if let Some((step, instruction)) = jump {
        app.ask(Action::GoTo(Jump {
            step,
            instruction: Some(instruction as usize),
            source_line: None,
            status: Some(format!(
                "went to step {step}, the last write of the expected word"
            )),
        }));
    }
}

pub(super) fn show_diagnostics(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    show_failed_expects(app, ui);
    let Some(s) = &app.session else { return };
    let diags = s.sim().diagnostics().to_vec();
    let expects_failed = app
        .scenario
        .as_ref()
        .is_some_and(|sc| !sc.failed.is_empty());
    if diags.is_empty() && !expects_failed {
        ui.weak(if app.settings.detectors {
            "No diagnostics."
        } else {
            "No diagnostics (the bug detectors are off: see Detectors in the toolbar)."
        });
    }
    let mut jump = None;
    let mut highlight = None;
    let error = ui.visuals().error_fg_color;
    for (i, d) in diags.iter().enumerate() {
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                // An unobserved race is still a race, shown in the quieter warning colour.
                let colour = if d.observed {
                    error
                } else {
                    ui.visuals().warn_fg_color
                };
                ui.label(egui::RichText::new(d.code.as_str()).strong().color(colour));
                let place = match (&d.source.file, d.source.line) {
                    (Some(f), Some(l)) => format!("{f}:{l}"),
                    (None, Some(l)) => format!("line {l}"),
                    _ => format!("{} in {}", d.block, d.function),
                };
                ui.weak(format!("step {} · {place}", d.step));
                if d.lockstep {
                    ui.weak("· relies on lockstep");
                }
                if !d.observed {
                    ui.weak("· unobserved");
                }
            });
            if let Some(note) = d.unobserved_note() {
                ui.add(egui::Label::new(egui::RichText::new(note).weak().small()).wrap());
            }
            ui.add(egui::Label::new(&d.message).wrap());
            ui.add(
                egui::Label::new(egui::RichText::new(d.code.explanation()).weak().small()).wrap(),
            );
            ui.horizontal_wrapped(|ui| {
                if ui
                    .button("Go to step")
                    .on_hover_text("Go to the step it happened at and show its instruction")
                    .clicked()
                {
                    jump = Some((d.instruction, d.step));
                }
                let lanes = lanescope_core::view::LaneMask(
                    d.lanes
                        .iter()
                        .filter(|l| **l < 128)
                        .fold(0u128, |m, l| m | 1 << l),
                );
                if !d.lanes.is_empty()
                    && ui
                        .button(format!("Show lanes {}", lanes.ranges()))
                        .on_hover_text("Outline the invocations involved in the lanes grid")
                        .clicked()
                {
                    highlight = Some(i);
                }
                ui.hyperlink_to("the rule", d.code.spec_url())
                    .on_hover_text(d.code.spec_url());
            });
            for a in &d.accesses {
                ui.horizontal_wrapped(|ui| {
                    let at = match a.line {
                        Some(l) => format!("{}:{l}", a.file.as_deref().unwrap_or("line")),
                        None => format!("instruction {}", a.instruction),
                    };
                    ui.label(format!(
                        "invocation {} of workgroup {:?}: {} at {at}",
                        a.invocation, a.workgroup, a.kind
                    ));
                    if ui
                        .small_button(format!("step {}", a.step))
                        .on_hover_text("Go to the step that made this access")
                        .clicked()
                    {
                        jump = Some((a.instruction, a.step));
                    }
                });
            }
        });
    }
    if let Some(i) = highlight {
        let d = &diags[i];
        app.highlight_lanes = Some((d.subgroup, d.lanes.clone()));
        app.tab = views::Tab::Lanes;
    }
    if let Some((instruction, step)) = jump {
        let source_line = diags
            .iter()
            .find(|d| d.step == step)
            .and_then(|d| d.source.line)
            .map(|l| l as usize);
        app.ask(Action::GoTo(Jump {
            step,
            instruction: Some(instruction as usize),
            source_line,
            status: None,
        }));
    }
}
