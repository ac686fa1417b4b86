//! The central area: the control-flow graph above, the lanes and the extension views in tabs
//! below.

use super::views::{self, Tab};
use super::{cfg, palette, sibling_order_name, LanescopeApp};
use lanescope_core::trace::LaneState;

pub fn central(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    egui::CentralPanel::default().show(ui, |ui| {
        let Some(s) = &app.session else {
            ui.label("Open a .spv file or pick an example.");
            return;
        };
        if s.step_count() > 0 || app.lesson.is_some() {
            app.panes.welcomed = true;
        }
        if !app.panes.welcomed && welcome(ui) {
            app.panes.welcomed = true;
            app.open_lesson(0);
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
            Tab::Lanes => lanes(app, ui),
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

fn timeline_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    ui.horizontal_wrapped(|ui| {
        ui.add(
            egui::Slider::new(&mut app.timeline_span, 20..=5000)
                .logarithmic(true)
                .text("steps shown"),
        );
        ui.weak(
            "bands: tangles (colour) per lane; white line: the current step; faded: undone steps",
        );
    });
    let width = visible_width(ui);
    let height = ui.available_height();
    // Lane by lane while every lane gets 4 points; past that one band per subgroup. A click on
    // a subgroup's label flips it.
    let sim = s.sim();
    let lanes: usize = (0..sim.subgroup_count())
        .map(|g| {
            sim.lane_states(g)
                .iter()
                .filter(|l| **l != LaneState::Absent)
                .count()
        })
        .sum();
    let folded = lanes as f32 * 4.0 + 18.0 + 4.0 * sim.subgroup_count() as f32 > height;
    let flipped = &app.timeline_flipped;
    let t = views::timeline::Timeline::build(s, app.timeline_span, None, |g| {
        folded != flipped.contains(&g)
    });
    // The subgroup a step follows: its label marked, and its rows and the current step
    // scrolled into sight whenever either changes.
    let follow = app.line_step_tangle().map(|(g, _)| g as u32);
    let seen = (s.step_count(), follow);
    let scroll = app.timeline_seen != Some(seen);
    app.timeline_seen = Some(seen);
    let out = egui::ScrollArea::both()
        .id_salt("timeline")
        // No wider than what is on screen, or scrolling to the current step stops short.
        .max_width(width + 12.0)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            views::timeline::show(ui, &t, width, height, follow.map(|g| (g, scroll)))
        });
    app.timeline_view = out
        .inner
        .followed
        .map(|f| (f, ui.clip_rect().intersect(out.inner_rect)));
    match out.inner.click {
        Some(views::timeline::Click::Step(step)) => app.goto(step),
        Some(views::timeline::Click::Toggle(g)) if !app.timeline_flipped.remove(&g) => {
            app.timeline_flipped.insert(g);
        }
        Some(views::timeline::Click::Toggle(_)) => {}
        None => {}
    }
}

/// Width from the cursor to the right edge of what is on screen (a wide row above can make
/// `available_width` larger than the panel).
fn visible_width(ui: &egui::Ui) -> f32 {
    (ui.clip_rect().right() - ui.cursor().min.x - 12.0).max(100.0)
}

fn no_site(ui: &mut egui::Ui, what: &str) {
    ui.weak(format!(
        "No {what} here. This view explains the {what} the last step executed, or one a tangle \
         is about to execute: step (F10) or run to a breakpoint on one."
    ));
}

fn rotate_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    let Some(site) = views::find_site_since(
        s,
        app.selected_tangle,
        app.last_unit_start,
        views::rotate::is_rotate,
    ) else {
        no_site(ui, "OpGroupNonUniformRotateKHR");
        return;
    };
    let Some(v) = views::rotate::RotateView::build(s, &site) else {
        return;
    };
    let now = ui.input(|i| i.time);
    let step = s.step_count();
    if app.rotate_anim.0 != step {
        app.rotate_anim = (step, now);
    }
    let progress = if site.executed {
        ((now - app.rotate_anim.1) / 0.8).clamp(0.0, 1.0) as f32
    } else {
        1.0
    };
    if progress < 1.0 {
        ui.ctx().request_repaint();
    }
    let width = visible_width(ui);
    egui::ScrollArea::both()
        .id_salt("rotate")
        .auto_shrink([false, false])
        .show(ui, |ui| views::rotate::show(ui, &v, progress, width));
}

fn dot_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    let Some(site) = views::find_site_since(
        s,
        app.selected_tangle,
        app.last_unit_start,
        views::dot::is_dot,
    ) else {
        no_site(ui, "integer dot product");
        return;
    };
    let Some(v) = views::dot::DotView::build(s, &site) else {
        return;
    };
    let lane = app
        .selected_lane
        .filter(|(g, _)| *g == site.subgroup)
        .map(|(_, l)| l);
    let picked = views::dot::show(ui, &v, lane);
    if let Some(l) = picked {
        app.selected_lane = Some((site.subgroup, l));
    }
}

fn compare_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    use views::compare::Variant;
    let (options, refused) = compare_options(app);
    if !options.iter().any(|o| o.0 == app.compare_variant) {
        app.compare_variant = Variant::Switch;
    }
    let current = options
        .iter()
        .find(|o| o.0 == app.compare_variant)
        .map_or(String::new(), |o| o.1.clone());
    ui.horizontal_wrapped(|ui| {
        ui.label("A: the current settings. B: the same but");
        egui::ComboBox::from_id_salt("compare-variant")
            .selected_text(current)
            .show_ui(ui, |ui| {
                for (v, label) in options {
                    if ui
                        .selectable_value(&mut app.compare_variant, v, label)
                        .changed()
                    {
                        app.comparison = None;
                    }
                }
            });
        if let Some(r) = &app.compare_runner {
            let [a, b] = r.progress();
            ui.spinner();
            ui.label(format!("running: {a} and {b} steps"));
            if ui.button("Cancel").clicked() {
                app.compare_runner = None;
            }
        } else if ui.button("Run both").clicked() {
            app.start_compare();
        }
        if !refused.is_empty() {
            ui.weak(format!("({} more do not apply)", refused.len()))
                .on_hover_text(
                    refused
                        .iter()
                        .map(|((_, label), why)| format!("{label}: {why}"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
        }
    });
    let Some(c) = &app.comparison else {
        if app.compare_runner.is_none() {
            ui.weak("Run both to the end, then see the first step where they part and the buffer words that differ.");
        }
        return;
    };
    let mut go = None;
    if let Some(s) = &app.session {
        let prog = std::sync::Arc::clone(&s.program);
        egui::ScrollArea::vertical()
            .id_salt("compare")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                go = views::compare::show(ui, c, &|b| prog.block_name(b))
            });
    }
    if let Some(step) = go {
        app.goto(step);
    }
}

fn matrix_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let mut relayout = false;
    // A layout with no fragment for this module's matrix types is shown, greyed, with why.
    let (_, refused) = compare_options(app);
    ui.horizontal(|ui| {
        egui::ComboBox::from_label("Fragment layout")
            .selected_text(app.settings.coop_layout.clone())
            .show_ui(ui, |ui| {
                for l in lanescope_core::coopmat::LayoutChoice::builtin() {
                    let name = l.name();
                    let why = refused.iter().find_map(|((v, _), why)| {
                        (*v == views::compare::Variant::Layout(name.clone())).then_some(why)
                    });
                    let r = ui.add_enabled(
                        why.is_none(),
                        egui::Button::selectable(app.settings.coop_layout == name, &name),
                    );
                    if let Some(why) = why {
                        r.on_disabled_hover_text(why);
                    } else if r.clicked() && app.settings.coop_layout != name {
                        app.settings.coop_layout = name;
                        relayout = true;
                    }
                }
            });
        ui.weak("click an element: its lane's elements light up; in a Result, the row of A and column of B that fed it");
    });
    if relayout {
        // The layout is a load-time choice: reload at the same step, so the grids re-colour
        // over the same values.
        let step = app.session.as_ref().map_or(0, |s| s.step_count());
        app.reset();
        app.goto(step);
    }
    let Some(s) = &app.session else { return };
    let site = views::find_site_since(
        s,
        app.selected_tangle,
        app.last_unit_start,
        views::matrix::is_muladd,
    );
    let g = app.selected_tangle.map_or(0, |t| t.0);
    let v = views::matrix::MatrixView::build(s, site.as_ref(), app.selected_id, g);
    if v.grids.is_empty() {
        no_site(ui, "OpCooperativeMatrixMulAddKHR (or selected matrix id)");
        return;
    }
    let avail = egui::vec2(visible_width(ui), ui.available_height());
    egui::ScrollArea::both()
        .id_salt("matrix")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            views::matrix::show(ui, &v, &mut app.matrix_sel, avail)
        });
}

fn lanes(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    let mut select = None;
    let mut app_lane = None;
    egui::ScrollArea::vertical()
        .id_salt("lanes")
        // No wider than what is on screen: the legend wraps instead of running under the
        // values panel.
        .max_width(visible_width(ui) + 12.0)
        .show(ui, |ui| {
            for g in 0..s.sim().subgroup_count() {
                ui.horizontal(|ui| {
                    ui.spacing_mut().item_spacing.x = 2.0;
                    ui.monospace(format!("sg{g:<3}"));
                    let states = s.sim().lane_states(g);
                    // A tangle's colour comes from its lanes.
                    let tangles = s.sim().tangles();
                    let mask_of = |id: u64| {
                        tangles
                            .iter()
                            .find(|t| t.subgroup as usize == g && t.id == id)
                            .map_or(0, |t| t.lanes.0)
                    };
                    // Cells shrink so a whole subgroup fits the panel's width.
                    let cell =
                        (ui.available_width() / states.len().max(1) as f32 - 2.0).clamp(4.0, 16.0);
                    for (lane, st) in states.into_iter().enumerate() {
                        let (color, text) = match &st {
                            LaneState::Absent => continue,
                            LaneState::Executing { tangle } => (
                                palette::tangle(g as u32, mask_of(*tangle)),
                                format!("lane {lane}: executing in tangle {tangle}"),
                            ),
                            LaneState::AtBarrier { tangle } => (
                                palette::tangle(g as u32, mask_of(*tangle)).gamma_multiply(0.6),
                                format!("lane {lane}: at a barrier (tangle {tangle})"),
                            ),
                            LaneState::Waiting {
                                kind,
                                block,
                                for_lanes,
                                escaped,
                                ..
                            } => (
                                palette::WAITING,
                                format!(
                                    "lane {lane}: waiting at the {} {} for lanes {}{}",
                                    kind.describe(),
                                    s.program.block_name(*block),
                                    for_lanes.ranges(),
                                    if *escaped { " (escaped)" } else { "" }
                                ),
                            ),
                            LaneState::Finished => {
                                (palette::FINISHED, format!("lane {lane}: finished"))
                            }
                        };
                        let (rect, resp) =
                            ui.allocate_exact_size(egui::vec2(cell, 16.0), egui::Sense::click());
                        ui.painter().rect_filled(rect, 2.0, color);
                        // The tangle's letter (as in the legend) where the cell has room.
                        if let (
                            LaneState::Executing { tangle } | LaneState::AtBarrier { tangle },
                            true,
                        ) = (&st, cell >= 9.0)
                        {
                            ui.painter().text(
                                rect.center(),
                                egui::Align2::CENTER_CENTER,
                                palette::tangle_letter(&tangles, g as u32, *tangle),
                                egui::FontId::monospace(9.0),
                                palette::text_on(color),
                            );
                        }
                        let resp = resp.on_hover_text(text);
                        if resp.clicked() {
                            app_lane = Some((g as u32, lane as u32));
                            if let LaneState::Executing { tangle }
                            | LaneState::AtBarrier { tangle } = st
                            {
                                select = Some((g as u32, tangle));
                            }
                        }
                        if app
                            .highlight_lanes
                            .as_ref()
                            .is_some_and(|(sg, ls)| *sg == g as u32 && ls.contains(&(lane as u32)))
                        {
                            ui.painter().rect_stroke(
                                rect.expand(1.0),
                                2.0,
                                egui::Stroke::new(2.5, egui::Color32::from_rgb(240, 60, 60)),
                                egui::StrokeKind::Outside,
                            );
                        }
                        if let (Some((sg, t)), LaneState::Executing { tangle }) =
                            (app.selected_tangle, &st)
                        {
                            if sg == g as u32 && t == *tangle {
                                ui.painter().rect_stroke(
                                    rect,
                                    2.0,
                                    egui::Stroke::new(2.0, egui::Color32::WHITE),
                                    egui::StrokeKind::Inside,
                                );
                            }
                        }
                    }
                });
            }
            ui.add_space(8.0);
            egui::CollapsingHeader::new("Legend")
                .default_open(true)
                .show(ui, |ui| legend(app, ui));
        });
    if select.is_some() {
        app.selected_tangle = select;
    }
    if app_lane.is_some() {
        app.selected_lane = app_lane;
        app.matrix_sel.lane = app_lane.map(|l| l.1);
    }
}

/// What the Compare view offers, and how many settings it left out (with why), kept until the
/// module or the settings change: the layouts and sizes are tried by loading the module.
pub(super) fn compare_options(
    app: &mut LanescopeApp,
) -> (Vec<CompareOption>, Vec<(CompareOption, String)>) {
    // The module by its program's allocation: the cache holds a `Weak` to it, so the address
    // cannot be reused by another module while the entry lives.
    let program = app.session.as_ref().map_or_else(std::sync::Weak::new, |s| {
        std::sync::Arc::downgrade(&s.program)
    });
    if let Some(((p, st), offered, refused)) = &app.compare_options {
        if p.ptr_eq(&program) && *st == app.settings {
            return (offered.clone(), refused.clone());
        }
    }
    let key = (program, app.settings.clone());
    let mut offered = Vec::new();
    let mut refused = Vec::new();
    for (v, label) in all_compare_options(app) {
        match app
            .session
            .as_ref()
            .and_then(|s| views::compare::refusal(s, &app.settings, &v))
        {
            Some(why) => refused.push(((v, label), why)),
            None => offered.push((v, label)),
        }
    }
    app.compare_options = Some((key, offered.clone(), refused.clone()));
    (offered, refused)
}

pub(super) type CompareOption = (views::compare::Variant, String);

/// Every setting the second run could change, before trying which the module takes.
fn all_compare_options(app: &LanescopeApp) -> Vec<CompareOption> {
    use views::compare::Variant;
    let st = &app.settings;
    let mut options = vec![(
        Variant::Switch,
        format!(
            "switch grouping ({})",
            match st.switch_tangles {
                lanescope_core::SwitchTangles::PerCase => "per-value",
                lanescope_core::SwitchTangles::PerValue => "per-case",
            }
        ),
    )];
    for n in [4u32, 8, 16, 32, 64, 128]
        .into_iter()
        .filter(|n| *n != st.subgroup_size)
    {
        options.push((Variant::SubgroupSize(n), format!("subgroup size {n}")));
    }
    // Fragment layouts only matter to a module with cooperative matrices.
    let has_coop = app
        .session
        .as_ref()
        .is_some_and(|s| s.program.uses_coop_matrices());
    for l in lanescope_core::coopmat::LayoutChoice::builtin()
        .into_iter()
        .filter(|_| has_coop)
    {
        if l.name() != st.coop_layout {
            options.push((
                Variant::Layout(l.name()),
                format!("fragment layout {}", l.name()),
            ));
        }
    }
    for o in super::SIBLING_ORDERS
        .map(|(_, o)| o)
        .into_iter()
        .filter(|o| *o != st.sibling_order)
    {
        options.push((
            Variant::Order(o),
            format!("sibling order: {}", sibling_order_name(o)),
        ));
    }
    for sc in ["default", "reverse", "random:1", "random:2"]
        .into_iter()
        .filter(|sc| *sc != st.schedule)
    {
        options.push((
            Variant::Schedule(sc.into()),
            format!("schedule: {sc} (which subgroup runs first)"),
        ));
    }
    options
}

/// What each colour means: every tangle now (its lanes and where it stands), then the fixed
/// colours, each with words so colour never carries the meaning alone.
fn legend(app: &LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    let sim = s.sim();
    let swatch = |ui: &mut egui::Ui, c: egui::Color32| {
        let (r, _) = ui.allocate_exact_size(egui::vec2(22.0, 12.0), egui::Sense::hover());
        ui.painter().rect_filled(r, 2.0, c);
    };
    let tangles = sim.tangles();
    const MAX: usize = 16;
    for t in tangles.iter().take(MAX) {
        ui.horizontal(|ui| {
            swatch(ui, palette::tangle(t.subgroup, t.lanes.0));
            let at = match sim.tangle_source_pos(t.subgroup as usize, t.id) {
                Some(p) => {
                    let file = s
                        .program
                        .debug()
                        .and_then(|d| d.file_name(p.file))
                        .unwrap_or("line");
                    format!("{file}:{}", p.line)
                }
                None => s.program.block_name(t.block),
            };
            let n = t.lanes.count();
            // Wrapped: a scattered tangle's lane ranges can be long.
            ui.add(
                egui::Label::new(format!(
                    "{} · subgroup {}, {n} lane{} ({}) at {at}{}",
                    palette::tangle_letter(&tangles, t.subgroup, t.id),
                    t.subgroup,
                    if n == 1 { "" } else { "s" },
                    t.lanes.ranges(),
                    if t.at_barrier {
                        ", waiting at a barrier"
                    } else {
                        ""
                    }
                ))
                .wrap(),
            );
        });
    }
    if tangles.len() > MAX {
        ui.weak(format!("… and {} more tangles", tangles.len() - MAX));
    }
    ui.weak("A tangle's colour comes from its lanes (the same lanes keep it through a loop); its letter marks its lanes in the grid.");
    for (c, what) in [
        (
            palette::WAITING,
            "waiting at a merge for the rest of its tangle",
        ),
        (palette::FINISHED, "finished"),
        (
            palette::CHANGED,
            "a value the last step changed (buffers, Inputs)",
        ),
        (palette::POISON, "an undefined value (poison)"),
    ] {
        ui.horizontal(|ui| {
            swatch(ui, c);
            ui.label(what);
        });
    }
    ui.weak("White outline: the selected tangle. Red outline: the lanes of a diagnostic.");
}
