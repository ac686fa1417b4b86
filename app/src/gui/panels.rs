//! The panels around the central area (bottom bar, code and disassembly, values: variables,
//! watch, buffers, diagnostics), each a thin drawing function over the app state; the toolbar
//! is `toolbar.rs`.

use super::views;
use super::{palette, LanescopeApp, LeftTab};
use lanescope_core::trace::LaneState;

pub fn bottom_bar(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    egui::Panel::bottom("status").show(ui, |ui| {
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
                LeftTab::Disassembly => disassembly(app, ui),
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
    egui::Panel::show_switched(
        ui,
        &mut open,
        (edge.panel)(edge.folded_id)
            .exact_size(FOLDED_WIDTH)
            .resizable(false),
        (edge.panel)(edge.open_id)
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

/// A folded panel: a narrow strip with its name written upwards; a click unfolds it.
fn folded_strip(ui: &mut egui::Ui, name: &str, hint: &str) -> bool {
    let rect = ui.available_rect_before_wrap();
    let resp = ui.allocate_rect(rect, egui::Sense::click());
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, name));
    let visuals = ui.style().interact(&resp);
    if resp.hovered() {
        ui.painter().rect_filled(rect, 2.0, visuals.weak_bg_fill);
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

fn disassembly(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    {
        {
            let Some(s) = &mut app.session else { return };
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
            if let Some(i) = toggle_bp {
                if !s.breakpoints.remove(&i) {
                    s.breakpoints.insert(i);
                }
            }
            if let Some(id) = click_id {
                app.selected_id = Some(id);
                if s.program.id_slots.contains_key(&id) && !app.watches.contains(&id) {
                    app.watches.push(id);
                }
            }
        }
    }
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
                            app.open_lesson(i);
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
                        if let Some(sc) = app.scenario.clone() {
                            let st = app.own_settings();
                            app.open_amber(&sc.name, sc.script, st, i);
                        }
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
                        .show(ui, |ui| diagnostics(app, ui));
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
                            .debug
                            .as_ref()
                            .is_some_and(|d| !d.variables.is_empty())
                    });
                    if has_vars {
                        egui::CollapsingHeader::new("Variables")
                            .default_open(true)
                            .show(ui, |ui| variables(app, ui));
                    }
                    egui::CollapsingHeader::new("Watch")
                        .default_open(true)
                        .show(ui, |ui| watch(app, ui));
                    egui::CollapsingHeader::new("Inputs")
                        .default_open(true)
                        .show(ui, |ui| super::inputs::panel(app, ui))
                        .header_response
                        .on_hover_text("Entry point, dispatch, specialization and push constants, and each buffer as the shader declares it");
                    egui::CollapsingHeader::new("Buffers (words)")
                        .id_salt("buffers")
                        .default_open(false)
                        .show(ui, |ui| buffers(app, ui));
                });
}

/// The source variables in scope where the followed tangle stands, by name: the value in its
/// first lane, every lane's on hover.
fn variables(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some((g, id)) = app.line_step_tangle() else {
        ui.weak("No tangle is running.");
        return;
    };
    let Some(s) = &app.session else { return };
    let sim = s.sim();
    let Some(k) = sim.tangle_instruction(g, id) else {
        return;
    };
    let lanes = sim
        .tangles()
        .iter()
        .find(|t| t.subgroup as usize == g && t.id == id)
        .map(|t| t.lanes)
        .unwrap_or_default();
    let vars = sim.variables_at(k);
    if vars.is_empty() {
        ui.weak("No source variables in scope here.");
        return;
    }
    ui.add(
        egui::Label::new(
            egui::RichText::new(format!(
                "subgroup {g}, tangle {id} (lanes {}): first lane's value; hover for every lane",
                lanes.ranges()
            ))
            .weak(),
        )
        .wrap(),
    );
    egui::Grid::new("variables").striped(true).show(ui, |ui| {
        for (vi, v) in vars {
            let Some(val) = sim.source_value(g, vi, k) else {
                continue;
            };
            let tys = s.program.types.flat.get(val.ty as usize).map(Vec::as_slice);
            // Arrays and structs can be long: a line stays short (hover has more).
            let clip = |t: String, n: usize| match t.char_indices().nth(n) {
                Some((i, _)) => format!("{}…", &t[..i]),
                None => t,
            };
            let shown: Vec<(u32, String)> = lanes
                .iter()
                .filter_map(|l| {
                    let c = val.lanes.get(l as usize)?.as_ref()?;
                    Some((l, clip(format_components(tys, c), 28)))
                })
                .collect();
            let mut name = v.name.clone();
            if !val.indexes.is_empty() {
                name.push_str(&format!("{:?}", val.indexes));
            }
            ui.monospace(name);
            let Some((_, first)) = shown.first() else {
                ui.weak("not available here");
                ui.end_row();
                continue;
            };
            let distinct: std::collections::BTreeSet<&String> =
                shown.iter().map(|(_, t)| t).collect();
            let text = if distinct.len() > 1 {
                format!("{first}  (+{} other values)", distinct.len() - 1)
            } else {
                first.clone()
            };
            let list: Vec<String> = shown
                .iter()
                .take(64)
                .map(|(l, t)| format!("lane {l}: {t}"))
                .collect();
            ui.monospace(text).on_hover_text(list.join("\n"));
            ui.end_row();
        }
    });
}

fn watch(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    if app.watches.is_empty() {
        ui.weak("Click an id in the disassembly to watch it.");
    }
    let mut remove = None;
    for (k, &id) in app.watches.iter().enumerate() {
        ui.horizontal(|ui| {
            ui.monospace(s.program.name_of(id));
            if ui.small_button("remove").clicked() {
                remove = Some(k);
            }
        });
        for g in 0..s.sim().subgroup_count() {
            let Some(values) = s.sim().value_of(g, id) else {
                continue;
            };
            let poison = s.sim().poison_of(g, id).unwrap_or_default();
            // Each component printed as its type (hex where the type has no scalar form).
            let comp_tys = s
                .program
                .id_slots
                .get(&id)
                .and_then(|&(_, _, ty)| s.program.types.flat.get(ty as usize));
            let states = s.sim().lane_states(g);
            egui::Grid::new(("watch", id, g))
                .striped(true)
                .show(ui, |ui| {
                    for (lane, v) in values.iter().enumerate() {
                        let active = matches!(
                            states.get(lane),
                            Some(LaneState::Executing { .. } | LaneState::AtBarrier { .. })
                        );
                        if matches!(states.get(lane), Some(LaneState::Absent) | None) {
                            continue;
                        }
                        let mut t =
                            egui::RichText::new(format_components(comp_tys.map(Vec::as_slice), v))
                                .monospace();
                        if !active {
                            t = t.weak();
                        }
                        if poison.get(lane) == Some(&true) {
                            t = t.color(palette::POISON);
                        }
                        ui.label(format!("sg{g} lane {lane}"));
                        let r = ui.label(t);
                        if poison.get(lane) == Some(&true) {
                            r.on_hover_text(
                                "undefined (poison): the spec leaves this value undefined",
                            );
                        } else {
                            let bits: Vec<String> = v.iter().map(|c| format!("{c:#x}")).collect();
                            r.on_hover_text(format!("bits: {}", bits.join(", ")));
                        }
                        ui.end_row();
                    }
                });
        }
    }
    if let Some(k) = remove {
        app.watches.remove(k);
    }
}

/// A watched value's components as their types print them (`-3`, `1.5`, `true`); raw hex bits
/// where the types are unknown (pointers, opaque values).
pub fn format_components(tys: Option<&[lanescope_core::value::ScalarTy]>, v: &[u64]) -> String {
    let parts: Vec<String> = match tys {
        Some(tys) if tys.len() == v.len() => tys
            .iter()
            .zip(v)
            .map(|(&ty, &c)| lanescope_core::value::format_scalar(ty, c))
            .collect(),
        _ => v.iter().map(|c| format!("{c:#x}")).collect(),
    };
    parts.join(", ")
}

fn buffers(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        for f in super::BufferFormat::ALL {
            ui.selectable_value(&mut app.buffer_format, f, f.name());
        }
    });
    let Some(s) = &mut app.session else { return };
    let mut edited = false;
    for (ri, r) in s.program.resources.clone().iter().enumerate() {
        if r.push_constant {
            continue;
        }
        // With device addresses, the address pointers to the buffer hold.
        let address = s
            .program
            .physical_addresses
            .then(|| {
                s.sim()
                    .buffer_addresses()
                    .into_iter()
                    .find(|a| (a.set, a.binding, a.element) == (r.set, r.binding, r.element()))
            })
            .flatten()
            .map_or_else(String::new, |a| format!(" at {:#x}", a.address));
        ui.label(format!(
            "set {} binding {} `{}`{address}",
            r.set, r.binding, r.name
        ));
        let Some(data) = s.sim().resource_buffer(r).map(<[u8]>::to_vec) else {
            continue;
        };
        let prev = s.previous_buffers.get(ri).cloned();
        // A 2D (or layered) image: a picture of its texels beside the words.
        if let Some(desc) = s.sim().image_of(ri) {
            super::picture::show(ui, &r.name, &desc, &data, prev.as_deref());
        }
        let poisoned = s.sim().resource_poisoned_words(ri);
        egui::Grid::new(("buf", ri)).striped(true).show(ui, |ui| {
            for (w, chunk) in data.chunks_exact(4).enumerate().take(256) {
                let bits = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                use super::BufferFormat as B;
                let text = match app.buffer_format {
                    B::U32 => bits.to_string(),
                    B::I32 => (bits as i32).to_string(),
                    B::F32 => f32::from_bits(bits).to_string(),
                    B::F16 => format!("{} {}", f16(bits as u16), f16((bits >> 16) as u16)),
                    B::Hex => format!("{bits:#010x}"),
                };
                ui.monospace(format!("[{w}]"));
                let changed = prev
                    .as_ref()
                    .is_some_and(|p| p.get(w * 4..w * 4 + 4) != Some(chunk));
                let mut t = egui::RichText::new(text).monospace();
                if changed {
                    t = t
                        .background_color(palette::CHANGED)
                        .color(egui::Color32::BLACK);
                }
                if poisoned.contains(&w) {
                    t = t.color(palette::POISON);
                }
                ui.label(t);
                // Initial contents are editable; a change restarts the run from them.
                if let Some(init) = s.initial.bytes_mut(r.set, r.binding, r.element()) {
                    if let Some(word) = init.get_mut(w * 4..w * 4 + 4) {
                        let mut v = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
                        if ui
                            .add(egui::DragValue::new(&mut v).prefix("init "))
                            .on_hover_text(format!("initial value of word {w}"))
                            .changed()
                        {
                            word.copy_from_slice(&v.to_le_bytes());
                            edited = true;
                        }
                    }
                }
                ui.end_row();
            }
        });
    }
    if edited {
        app.reset();
    }
}

fn f16(h: u16) -> f64 {
    lanescope_core::value::to_f64(u64::from(h), 16)
}

/// An AmberScript's failed EXPECTs: expected beside actual, and a jump to the step that last
/// wrote the word.
fn failed_expects(app: &mut LanescopeApp, ui: &mut egui::Ui) {
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
    if let Some((step, inst)) = jump {
        app.goto(step);
        app.scroll_to_line = Some(inst as usize);
        app.status = format!("went to step {step}, the last write of the expected word");
    }
}

fn diagnostics(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    failed_expects(app, ui);
    let Some(s) = &mut app.session else { return };
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
    if let Some((inst, step)) = jump {
        app.goto(step);
        app.scroll_to_line = Some(inst as usize);
        if let Some(line) = diags
            .iter()
            .find(|d| d.step == step)
            .and_then(|d| d.source.line)
        {
            app.source_scroll = Some(line as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::format_components;
    use lanescope_core::value::ScalarTy;

    #[test]
    fn watched_components_print_as_their_types() {
        let tys = [ScalarTy::I32, ScalarTy::Float { bits: 32 }, ScalarTy::Bool];
        let v = [u64::from((-3i32) as u32), u64::from(1.5f32.to_bits()), 1];
        assert_eq!(format_components(Some(&tys), &v), "-3, 1.5, true");
        // Types that do not match the value's width: raw bits.
        assert_eq!(format_components(Some(&tys[..1]), &[1, 2]), "0x1, 0x2");
        assert_eq!(format_components(None, &[255]), "0xff");
    }
}
