//! The code pane's disassembly: one line per module instruction, the running tangles' chips,
//! breakpoints in the gutter, ids to click and watch.

use super::super::palette;
use crate::gui::state::LanescopeApp;

pub(super) fn show(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    {
        {
            let Some(s) = &app.session else { return };
            let current = s.tangle_instructions();
            let tangles = s.sim().tangles();
            let diags = s.sim().diagnostics();
            let row_h = ui.text_style_height(&egui::TextStyle::Monospace) + 2.0;
            let mut area = egui::ScrollArea::both().auto_shrink([false, false]);
            // In the first frame of another module the area still measures the old one, and an
            // offset past the old end springs back with a velocity that carries it away: draw
            // that frame unscrolled and scroll in the next.
            let lines = s.disasm.lines.len();
            let requested = if app.disasm_len == lines {
                app.scroll_to_line.take()
            } else {
                app.disasm_len = lines;
                ui.ctx().request_repaint();
                None
            };
            if let Some(line) = requested {
                // show_rows spaces rows by their height plus the item spacing.
                let pitch = row_h + ui.spacing().item_spacing.y;
                area = area.vertical_scroll_offset((line as f32 - 5.0).max(0.0) * pitch);
            }
            let selected = app.selected_id;
            let mut toggle_bp = None;
            let mut click_id = None;
            let mut visible = 0..0;
            area.show_rows(ui, row_h, s.disasm.lines.len(), |ui, rows| {
                visible = rows.clone();
                for i in rows {
                    let line = &s.disasm.lines[i];
                    ui.horizontal(|ui| {
                        ui.spacing_mut().item_spacing.x = 4.0;
                        let bp = s.breakpoints.contains(&(i as u32));
                        let (rect, resp) =
                            ui.allocate_exact_size(egui::vec2(12.0, row_h), egui::Sense::click());
                        let label = format!("breakpoint at instruction {i}");
                        resp.widget_info(|| {
                            egui::WidgetInfo::selected(egui::Role::CheckBox, true, bp, &label)
                        });
                        let c = rect.center();
                        if bp {
                            ui.painter().circle_filled(
                                c,
                                4.5,
                                egui::Color32::from_rgb(230, 60, 60),
                            );
                        } else if resp.hovered() {
                            ui.painter().circle_stroke(
                                c,
                                4.5,
                                egui::Stroke::new(1.0, ui.visuals().weak_text_color()),
                            );
                        }
                        if resp.on_hover_text(&label).clicked() {
                            toggle_bp = Some(i as u32);
                        }
                        ui.label(egui::RichText::new(format!("{i:>4}")).monospace().weak());
                        if let Some(d) = diags.iter().find(|d| d.instruction as usize == i) {
                            ui.label(
                                egui::RichText::new(" ! ")
                                    .color(egui::Color32::from_rgb(230, 60, 60))
                                    .strong(),
                            )
                            .on_hover_text(format!("{}: {}", d.code, d.message));
                        }
                        for (id, at) in &current {
                            if *at as usize == i {
                                if let Some(t) = tangles.iter().find(|t| t.id == *id) {
                                    ui.label(
                                        egui::RichText::new(">")
                                            .color(palette::tangle(t.subgroup, t.lanes.0))
                                            .strong(),
                                    )
                                    .on_hover_text(format!(
                                        "tangle {} of subgroup {} is here",
                                        t.id, t.subgroup
                                    ));
                                }
                            }
                        }
                        let mono = |t: &str, id: Option<u32>| {
                            let mut r = egui::RichText::new(t).monospace();
                            if id.is_some() && id == selected {
                                r = r.background_color(egui::Color32::from_rgb(80, 80, 30));
                            }
                            r
                        };
                        if let Some(id) = line.result_id {
                            if ui
                                .add(
                                    egui::Label::new(mono(&line.result, Some(id)))
                                        .sense(egui::Sense::click()),
                                )
                                .clicked()
                            {
                                click_id = Some(id);
                            }
                        }
                        ui.label(mono(&line.opcode, None).strong())
                            .on_hover_text(line.text());
                        for (t, id) in &line.operands {
                            let resp =
                                ui.add(egui::Label::new(mono(t, *id)).sense(egui::Sense::click()));
                            if resp.clicked() {
                                click_id = *id;
                            }
                        }
                    });
                }
            });
            app.disasm_visible = visible;
            if let Some(id) = click_id {
                app.selected_id = Some(id);
                if s.program.has_value(id) && !app.watches.contains(&id) {
                    app.watches.push(id);
                }
            }
            if let Some(i) = toggle_bp {
                app.ask(crate::gui::ask::Action::ToggleBreakpoint(i));
            }
        }
    }
}
