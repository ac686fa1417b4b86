//! The Lanes tab: one cell per invocation, coloured by its tangle, with the legend of tangles.

use super::extension::visible_width;
use crate::gui::palette;
use crate::gui::state::LanescopeApp;
use lanescope_core::trace::LaneState;

pub(super) fn show_lanes(app: &mut LanescopeApp, ui: &mut egui::Ui) {
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
                    // The row's cells as one mesh of square-cornered quads, put under the
                    // letters drawn below: two triangles a cell where a rounded, feathered
                    // rectangle took 57, which software WebGL paid for every frame.
                    let cells = ui.painter().add(egui::Shape::Noop);
                    let mut mesh = egui::Mesh::default();
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
                        mesh.add_colored_rect(rect, color);
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
                                0.0,
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
                                    0.0,
                                    egui::Stroke::new(2.0, egui::Color32::WHITE),
                                    egui::StrokeKind::Inside,
                                );
                            }
                        }
                    }
                    ui.painter().set(cells, mesh);
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

/// What each colour means: every tangle now (its lanes and where it stands), then the fixed
/// colours, each with words so colour never carries the meaning alone.
pub(super) fn legend(app: &LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    let sim = s.sim();
    let swatch = |ui: &mut egui::Ui, c: egui::Color32| {
        let (r, _) = ui.allocate_exact_size(egui::vec2(22.0, 12.0), egui::Sense::hover());
        ui.painter().rect_filled(r, 0.0, c);
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
