//! The central area: the control-flow graph above, the lanes and the extension views in tabs
//! below.

use super::views::Tab;
use super::{cfg, palette};
use crate::gui::state::LanescopeApp;
use lanescope_core::trace::LaneState;

mod extension;
mod lanes;

// The compare options are what the Compare tab offers; the tests ask for them too.
#[cfg(test)]
pub(super) use extension::compare_options;
use extension::{compare_tab, dot_tab, matrix_tab, rotate_tab, timeline_tab};
use lanes::show_lanes;

pub fn central(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    egui::CentralPanel::default()
        .frame(palette::central_panel(ui.style()))
        .show(ui, |ui| {
            let Some(s) = &app.session else {
                ui.label("Open a .spv file or pick an example.");
                return;
            };
            if s.step_count() > 0 || app.lesson.is_some() {
                app.panes.welcomed = true;
            }
            if !app.panes.welcomed && welcome(ui) {
                app.panes.welcomed = true;
                app.ask(crate::gui::ask::Action::OpenLesson(0));
                return;
            }
            let Some(s) = &app.session else { return };
            let tangles = s.sim().tangles();
            // The tangle a step follows (its block is outlined, and scrolled into view when it
            // changes); the graph shows the function it is in: the callee after F11, the caller
            // again after its return.
            let followed = app.line_step_tangle().and_then(|(g, id)| {
                tangles
                    .iter()
                    .find(|t| t.subgroup as usize == g && t.id == id)
            });
            if let Some(func) = followed
                .and_then(|t| s.program.blocks().get(t.block as usize))
                .map(|b| b.func)
            {
                if app.cfg_layout.as_ref().is_some_and(|l| l.func != func) {
                    app.cfg_layout = Some(cfg::CfgLayout::new(&s.program, func));
                    // Scroll to the running block in the new graph.
                    app.cfg_followed = None;
                }
            }
            // Wrapped: at 1280 wide the zoom and Fit would otherwise run past the panel.
            ui.horizontal_wrapped(|ui| {
                let (word, hint) = if app.panes.graph {
                    (
                        "Hide",
                        "Fold the graph and give the views its room (Ctrl+J)",
                    )
                } else {
                    (
                        "Show",
                        "Show the control-flow graph above the views (Ctrl+J)",
                    )
                };
                ui.heading("Control flow");
                if ui.small_button(word).on_hover_text(hint).clicked() {
                    app.panes.graph = !app.panes.graph;
                }
                if !app.panes.graph {
                    return;
                }
                if let Some(l) = &app.cfg_layout {
                    ui.weak(s.program.func_name(l.func));
                }
                // The slider, its value and its name are one row of their own inside the wrapped
                // row: to the next row first when they would not fit (else they widen the panel
                // and everything under it).
                // (A wrapped row's available width is the whole row's: measure what is left.)
                if ui.max_rect().right() - ui.cursor().min.x < ui.spacing().slider_width + 100.0 {
                    ui.end_row();
                }
                ui.add(egui::Slider::new(&mut app.cfg_zoom, 0.3..=2.0).text("zoom"));
                if ui
                    .button("Fit")
                    .on_hover_text(
                        "Zoom so the whole graph fits (Ctrl+scroll zooms, drag the bars to pan)",
                    )
                    .clicked()
                {
                    app.cfg_fit = true;
                }
            });
            if ui.input(|i| i.modifiers.command) {
                let z = ui.input(|i| i.smooth_scroll_delta.y);
                app.cfg_zoom = (app.cfg_zoom * (1.0 + z * 0.002)).clamp(0.3, 2.0);
            }
            let mut waiting = Vec::new();
            for g in 0..s.sim().subgroup_count() {
                for (lane, st) in s.sim().lane_states(g).into_iter().enumerate() {
                    if matches!(st, LaneState::Waiting { .. }) {
                        waiting.push((g as u32, lane as u32, st));
                    }
                }
            }
            // The lanes grid and its legend (a row per tangle, up to 16, and six of fixed colours).
            let legend_h = 20.0 * (tangles.len().min(16) + 7) as f32;
            let lanes_h = 70.0 + 24.0 * s.sim().subgroup_count().min(8) as f32 + legend_h;
            let bottom_h = if app.tab == Tab::Lanes {
                lanes_h.min(ui.available_height() * 0.5)
            } else {
                (ui.available_height() * 0.58).max(lanes_h)
            };
            // The graph's height: what the view leaves, or the share the person dragged it to.
            let total = ui.available_height();
            let graph_h = app
                .panes
                .graph_share
                .map_or(total - bottom_h, |f| f * total)
                .clamp(80.0, (total - 120.0).max(80.0));
            if std::mem::take(&mut app.cfg_fit) {
                if let Some(l) = &app.cfg_layout {
                    let size = cfg::graph_size(l);
                    let avail = egui::vec2(ui.available_width(), graph_h);
                    app.cfg_zoom = (avail.x / size.x).min(avail.y / size.y).clamp(0.3, 2.0);
                }
            }
            let mut clicked = None;
            let running = followed.map(|t| (t.block, palette::tangle(t.subgroup, t.lanes.0)));
            let moved = running.map(|r| r.0) != app.cfg_followed;
            let graph = app.panes.graph;
            let layout = app.cfg_layout.as_ref().filter(|_| graph);
            if let Some(layout) = layout {
                egui::ScrollArea::both()
                    .id_salt("cfg")
                    .max_height(graph_h)
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        // Blocks where a diagnostic happened get a red outline.
                        let flagged: Vec<u32> = s
                            .sim()
                            .diagnostics()
                            .iter()
                            .filter_map(|d| {
                                s.program
                                    .blocks()
                                    .iter()
                                    .position(|b| b.inst_indices.contains(&d.instruction))
                                    .map(|b| b as u32)
                            })
                            .collect();
                        let overlay = cfg::Overlay {
                            tangles: &tangles,
                            waiting: &waiting,
                            flagged: &flagged,
                            running: running.map(|(b, c)| (b, c, moved)),
                        };
                        clicked = cfg::show(ui, &s.program, layout, &overlay, app.cfg_zoom);
                    });
            }
            if let Some(b) = clicked {
                app.scroll_to_line = s
                    .program
                    .blocks()
                    .get(b as usize)
                    .map(|bl| bl.first_inst_index as usize);
            }
            // Folded, the graph follows nothing: shown again, it scrolls to the running block.
            app.cfg_followed = running.map(|r| r.0).filter(|_| graph);
            if graph {
                split_bar(ui, &mut app.panes.graph_share, graph_h, total);
            } else {
                ui.separator();
            }
            // Wraps on a narrow window rather than cutting the last tabs off.
            ui.horizontal_wrapped(|ui| {
                // A tab that does not fit moves to the next row whole, never shortened.
                ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
                for t in Tab::ALL {
                    ui.selectable_value(&mut app.tab, t, egui::RichText::new(t.label()).heading());
                }
            });
            match app.tab {
                Tab::Lanes => show_lanes(app, ui),
                Tab::Timeline => timeline_tab(app, ui),
                Tab::Rotate => rotate_tab(app, ui),
                Tab::Dot => dot_tab(app, ui),
                Tab::Matrix => matrix_tab(app, ui),
                Tab::Compare => compare_tab(app, ui),
            }
        });
}

/// The first screen's hint: what to press, or where a learner starts. True when the person asks
/// for the first lesson; closing it (or stepping) sets `Panes::welcomed`, which keeps it away.
fn welcome(ui: &mut egui::Ui) -> bool {
    let mut lesson = false;
    egui::Frame::group(ui.style())
        .fill(ui.visuals().faint_bg_color)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.strong("Start here:");
                ui.label("press F10 to run the selected tangle to its next source line, and watch the lanes split and meet again; or");
                lesson = ui
                    .button("Open lesson 1")
                    .on_hover_text("A guided tour, ten short lessons (the Lessons menu)")
                    .clicked();
            });
        });
    lesson
}

/// The bar between the graph and the views: drag it to share the height differently, double
/// click it to go back to sizing by the open view.
fn split_bar(ui: &mut egui::Ui, share: &mut Option<f32>, graph_h: f32, total: f32) {
    let (rect, resp) = ui.allocate_exact_size(
        egui::vec2(ui.available_width(), 8.0),
        egui::Sense::click_and_drag(),
    );
    resp.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Splitter, true, "graph and views divider")
    });
    let resp = resp
        .on_hover_cursor(egui::CursorIcon::ResizeVertical)
        .on_hover_text("Drag to share the height between the graph and the views; double click to size by the view");
    let stroke = if resp.hovered() || resp.dragged() {
        ui.visuals().widgets.hovered.fg_stroke
    } else {
        ui.visuals().widgets.noninteractive.bg_stroke
    };
    ui.painter().hline(rect.x_range(), rect.center().y, stroke);
    if resp.dragged() && total > 0.0 {
        *share = Some(((graph_h + resp.drag_delta().y) / total).clamp(0.1, 0.9));
    }
    if resp.double_clicked() {
        *share = None;
    }
}
