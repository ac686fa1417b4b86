//! The panels around the central area, each a thin drawing function over the app state: the
//! bottom bar, the code pane (source or `disassembly`) and the side panel (`values`: variables,
//! watch and buffers; `diagnostics`), with the folding and sharing of width they all use. The
//! toolbar is `toolbar.rs`.

use super::state::Panes;
use super::{palette, views};
use crate::gui::state::{LanescopeApp, LeftTab};

mod diagnostics;
mod disassembly;
mod values;

pub fn bottom_bar(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    egui::Panel::bottom("status")
        .frame(palette::side_panel(ui.style()))
        .show(ui, |ui| {
            if let Some(e) = app.error.clone() {
                // Wrapped, never cut: an error is read whole. The theme's error colour keeps its
                // contrast in light and dark themes.
                ui.horizontal_wrapped(|ui| {
                    if ui.small_button("dismiss").clicked() {
                        app.error = None;
                    }
                    ui.add(
                        egui::Label::new(
                            egui::RichText::new(format!("Error: {e}"))
                                .color(ui.visuals().error_fg_color),
                        )
                        .wrap(),
                    );
                });
            }
            ui.horizontal(|ui| {
                if let Some(s) = &app.session {
                    let st = s.sim().stats();
                    ui.label(format!(
                        "{} · step {} · {} · {} · {}",
                        s.name,
                        st.steps,
                        crate::report::count(st.lane_instructions, "lane-instruction"),
                        crate::report::count(st.divergences, "divergence"),
                        crate::report::count(st.reconvergences, "reconvergence")
                    ));
                }
                ui.label(&app.status);
                if app.show_frame_time {
                    ui.label(format!("frame {:.1} ms", app.frame_ms()));
                }
            });
        });
}

/// The left panel: the source (editable or from debug information) and the disassembly.
pub fn code(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    foldable(
        app,
        ui,
        Edge {
            open: |p| &mut p.code,
            share: |p| &mut p.code_share,
            panel: egui::Panel::left,
            folded_id: "code-folded",
            open_id: "disassembly",
            default_share: 0.36,
        },
        |_| ("Code".into(), "Show the source and disassembly (Ctrl+B)"),
        |app, ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut app.left_tab, LeftTab::Source, "Source")
                    .on_hover_text(
                        "Your code, or the source the module's debug information carries",
                    );
                ui.selectable_value(&mut app.left_tab, LeftTab::Disassembly, "Disassembly")
                    .on_hover_text("The module's instructions, as spirv-dis prints them");
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if ui
                        .small_button("Hide")
                        .on_hover_text("Fold the code to a strip at the edge (Ctrl+B)")
                        .clicked()
                    {
                        app.panes.code = false;
                    }
                });
            });
            ui.separator();
            match app.left_tab {
                LeftTab::Source => super::editor::source_view(app, ui),
                LeftTab::Disassembly => disassembly::show(app, ui),
            }
        },
    );
}

/// A side panel that folds to a strip at its edge (see [`Edge`]); `strip` names the folded strip
/// and gives its hint.
fn foldable(
    app: &mut LanescopeApp,
    ui: &mut egui::Ui,
    edge: Edge,
    strip: impl FnOnce(&LanescopeApp) -> (String, &'static str),
    contents: impl FnOnce(&mut LanescopeApp, &mut egui::Ui),
) {
    let before = *(edge.open)(&mut app.panes);
    let mut open = before;
    // The open panel's width is a share of the window's, so it grows and shrinks with it; a drag
    // of its edge sets the share. Its contents scroll inside it and never widen it.
    let room = ui.max_rect().width().max(1.0);
    let range = egui::Rangef::new(
        PANEL_MIN_WIDTH.min(room),
        (room * PANEL_MAX_SHARE).max(PANEL_MIN_WIDTH),
    );
    let share = (edge.share)(&mut app.panes).unwrap_or(edge.default_share);
    let want = range.clamp((share * room).round());
    let id = ui.scope_id().with_salt(egui::IdSalt::new(edge.open_id));
    let dragging = ui.input(|i| i.pointer.any_down());
    let stored = egui::containers::panel::PanelState::load(ui.ctx(), id).map(|s| s.size().x);
    if !dragging && stored.is_some_and(|w| (w - want).abs() > 0.5) {
        ui.ctx().data_mut(|d| {
            d.insert_persisted(
                id,
                egui::containers::panel::PanelState {
                    outer_rect: egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(want, 1.0)),
                },
            );
        });
    }
    let frame = palette::side_panel(ui.style());
    egui::Panel::show_switched(
        ui,
        &mut open,
        (edge.panel)(edge.folded_id)
            .frame(frame)
            .exact_size(FOLDED_WIDTH)
            .resizable(false),
        (edge.panel)(edge.open_id)
            .frame(frame)
            .default_size(want)
            .size_range(range)
            .resizable(true),
        |ui, expanded| {
            if expanded {
                contents(app, ui);
                return;
            }
            let (name, hint) = strip(app);
            if folded_strip(ui, &name, hint) {
                *(edge.open)(&mut app.panes) = true;
            }
        },
    );
    if dragging {
        if let Some(w) = egui::containers::panel::PanelState::load(ui.ctx(), id).map(|s| s.size().x)
        {
            if (w - want).abs() > 0.5 {
                *(edge.share)(&mut app.panes) = Some(w / room);
            }
        }
    }
    // A drag of the open panel's edge past its minimum (or a double click on it) folds it too.
    if open != before {
        *(edge.open)(&mut app.panes) = open;
    }
}

/// A foldable side panel: its flag and width share in [`Panes`], the edge's constructor, the
/// folded and open panels' ids, and the open one's share of the window's width by default.
struct Edge {
    open: fn(&mut Panes) -> &mut bool,
    share: fn(&mut Panes) -> &mut Option<f32>,
    panel: fn(&'static str) -> egui::Panel,
    folded_id: &'static str,
    open_id: &'static str,
    default_share: f32,
}

/// The narrowest an open side panel gets, and the largest share of the window it may take.
const PANEL_MIN_WIDTH: f32 = 200.0;
const PANEL_MAX_SHARE: f32 = 0.6;

/// Width of a folded panel's strip.
const FOLDED_WIDTH: f32 = 26.0;

/// A folded panel: a narrow strip with its name written upwards; a click unfolds it.
fn folded_strip(ui: &mut egui::Ui, name: &str, hint: &str) -> bool {
    let rect = ui.available_rect_before_wrap();
    let resp = ui.allocate_rect(rect, egui::Sense::click());
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, name));
    let visuals = ui.style().interact(&resp);
    if resp.hovered() {
        ui.painter().rect_filled(rect, 0.0, visuals.weak_bg_fill);
    }
    let color = visuals.text_color();
    let galley =
        ui.painter()
            .layout_no_wrap(format!("{name} »"), egui::FontId::proportional(14.0), color);
    // Turned a quarter left, the text's top faces the panel's start and reads bottom to top.
    let size = galley.size();
    let pos = egui::pos2(rect.center().x - size.y / 2.0, rect.top() + 10.0 + size.x);
    ui.painter().add(
        egui::epaint::TextShape::new(pos, galley, color).with_angle(-std::f32::consts::FRAC_PI_2),
    );
    resp.on_hover_text(hint).clicked()
}

pub fn side(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    foldable(
        app,
        ui,
        Edge {
            open: |p| &mut p.side,
            share: |p| &mut p.side_share,
            panel: egui::Panel::right,
            folded_id: "inspect-folded",
            open_id: "inspect",
            default_share: 0.30,
        },
        |app| {
            let n = app
                .session
                .as_ref()
                .map_or(0, |s| s.sim().diagnostics().len());
            let name = if n > 0 {
                format!("Values · {n} diagnostics")
            } else {
                "Values".into()
            };
            (
                name,
                "Show the lesson, values, inputs and diagnostics (Ctrl+Alt+B)",
            )
        },
        side_contents,
    );
}

fn side_contents(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        ui.strong(if app.presenter {
            "Lesson"
        } else {
            "Values and inputs"
        });
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui
                .small_button("Hide")
                .on_hover_text("Fold this panel to a strip at the edge (Ctrl+Alt+B)")
                .clicked()
            {
                app.panes.side = false;
            }
        });
    });
    // Both ways: a wide row (a matrix, a long value) scrolls sideways instead of widening the
    // panel.
    egui::ScrollArea::both()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    if let Some(l) = app.lesson.and_then(|i| app.lessons.get(i)) {
                        let size = if app.presenter { 16.0 } else { 13.5 };
                        let mut header = egui::CollapsingHeader::new("Lesson").default_open(true);
                        if app.lesson_scroll {
                            // A lesson just opened: its text open and in sight, wherever the
                            // panel was scrolled to or whether it was folded before.
                            header = header.open(Some(true));
                        }
                        let (count, at) = (app.lessons.len(), app.lesson.unwrap_or(0));
                        let mut go = None;
                        let r = header.show(ui, |ui| {
                            views::lesson::show(ui, l, size);
                            ui.horizontal(|ui| {
                                if ui
                                    .add_enabled(at > 0, egui::Button::new("< Previous"))
                                    .clicked()
                                {
                                    go = Some(at - 1);
                                }
                                ui.weak(format!("lesson {} of {count}", at + 1));
                                if ui
                                    .add_enabled(at + 1 < count, egui::Button::new("Next >"))
                                    .clicked()
                                {
                                    go = Some(at + 1);
                                }
                            });
                        });
                        if app.lesson_scroll {
                            r.header_response.scroll_to_me(Some(egui::Align::TOP));
                        }
                        if let Some(i) = go {
                            app.ask(crate::gui::ask::Action::OpenLesson(i));
                        }
                    }
                    app.lesson_scroll = false;
                    if app.presenter {
                        // On a projector this panel is the lesson's alone.
                        return;
                    }
                    let mut open_run = None;
                    if let Some(sc) = &app.scenario {
                        egui::CollapsingHeader::new(format!("Scenario: {}", sc.name))
                            .id_salt("scenario")
                            .default_open(true)
                            .show(ui, |ui| {
                                ui.add(
                                    egui::Label::new(
                                        egui::RichText::new(&sc.report).monospace().small(),
                                    )
                                    .wrap(),
                                );
                                // Any RUN can be opened to step through.
                                ui.horizontal_wrapped(|ui| {
                                    for (i, (line, pipeline)) in sc.runs.iter().enumerate() {
                                        let text = format!("RUN {} ({pipeline}, line {line})", i + 1);
                                        if ui
                                            .selectable_label(sc.open_run == Some(i), text)
                                            .on_hover_text("Step through this run, from the buffers the script had before it")
                                            .clicked()
                                        {
                                            open_run = Some(i);
                                        }
                                    }
                                });
                            });
                    }
                    if let Some(i) = open_run {
                        app.ask(crate::gui::ask::Action::OpenScenarioRun(i));
                    }
                    // Findings first, with their count: never below the buffer rows.
                    let n = app
                        .session
                        .as_ref()
                        .map_or(0, |s| s.sim().diagnostics().len())
                        + app.scenario.as_ref().map_or(0, |sc| sc.failed.len());
                    egui::CollapsingHeader::new(format!("Diagnostics ({n})"))
                        .id_salt("diagnostics")
                        .default_open(true)
                        .show(ui, |ui| diagnostics::show_diagnostics(app, ui));
                    let printed = app
                        .session
                        .as_ref()
                        .map_or(0, |s| s.sim().printf_lines().len());
                    if printed > 0 {
                        egui::CollapsingHeader::new(format!("Printf ({printed})"))
                            .id_salt("printf")
                            .default_open(true)
                            .show(ui, |ui| super::printf::panel(app, ui));
                    }
                    let has_vars = app.session.as_ref().is_some_and(|s| {
                        s.program
                            .debug()
                            .is_some_and(|d| !d.variables.is_empty())
                    });
                    if has_vars {
                        egui::CollapsingHeader::new("Variables")
                            .default_open(true)
                            .show(ui, |ui| values::show_variables(app, ui));
                    }
                    egui::CollapsingHeader::new("Watch")
                        .default_open(true)
                        .show(ui, |ui| values::show_watch(app, ui));
                    egui::CollapsingHeader::new("Inputs")
                        .default_open(true)
                        .show(ui, |ui| super::inputs::panel(app, ui))
                        .header_response
                        .on_hover_text("Entry point, dispatch, specialization and push constants, and each buffer as the shader declares it");
                    egui::CollapsingHeader::new("Buffers (words)")
                        .id_salt("buffers")
                        .default_open(false)
                        .show(ui, |ui| values::show_buffers(app, ui));
                });
}
