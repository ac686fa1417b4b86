//! The side panel's values: the source variables in scope, the watched ids and the buffers.

use super::super::ask::{Action, Inputs};
use super::super::palette;
use crate::gui::state::LanescopeApp;
use crate::gui::views::{format_components, format_source_lane, UNDEFINED};
use lanescope_core::program::Type;
use lanescope_core::trace::LaneState;

/// The source variables in scope where the followed tangle stands, by name: the value in its
/// first lane, every lane's on hover.
pub(super) fn show_variables(app: &mut LanescopeApp, ui: &mut egui::Ui) {
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
    // Rows laid out from this frame's text alone (no grid: a grid sizes its columns from the
    // last frame, so each variable coming into scope as a line is stepped cost a second pass).
    let mut rows = Vec::new();
    for (vi, v) in vars {
        let Some(val) = sim.source_value(g, vi, k) else {
            continue;
        };
        let tys = s
            .program
            .types()
            .flat
            .get(val.ty as usize)
            .map(Vec::as_slice);
        // Arrays and structs can be long: a line stays short (hover has more).
        let clip = |t: String, n: usize| match t.char_indices().nth(n) {
            Some((i, _)) => format!("{}…", &t[..i]),
            None => t,
        };
        let shown: Vec<(u32, String)> = lanes
            .iter()
            .filter_map(|l| Some((l, clip(format_source_lane(&val, tys, l as usize)?, 28))))
            .collect();
        let mut name = v.name.clone();
        if !val.indexes.is_empty() {
            name.push_str(&format!("{:?}", val.indexes));
        }
        // What a variable with no components to print is (a handle, or runtime arrays alone).
        let opaque = match s.program.types().types.get(val.ty as usize) {
            Some(Type::Image(_) | Type::SampledImage(_)) => "an image: see Inputs (texels)",
            Some(Type::Sampler) => "a sampler",
            _ => "runtime array: see Buffers (words)",
        };
        rows.push((name, shown, opaque));
    }
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let name_width = rows
        .iter()
        .map(|(name, _, _)| {
            ui.painter()
                .layout_no_wrap(name.clone(), font.clone(), egui::Color32::PLACEHOLDER)
                .size()
                .x
        })
        .fold(0.0, f32::max);
    let mut stripes = palette::Stripes::new(ui);
    for (name, shown, opaque) in &rows {
        ui.horizontal(|ui| {
            let w = ui.monospace(name).rect.width();
            ui.add_space((name_width - w).max(0.0));
            let Some((_, first)) = shown.first() else {
                ui.weak("not available here");
                return;
            };
            // A block of runtime arrays alone has no fixed part to print; a handle has none.
            if shown.iter().all(|(_, t)| t.is_empty()) {
                ui.weak(*opaque);
                return;
            }
            let distinct: std::collections::BTreeSet<&String> =
                shown.iter().map(|(_, t)| t).collect();
            // (kept short: at 1280x720 "(+10 other values)" ran past the panel's edge)
            let text = if distinct.len() > 1 {
                format!("{first}  (+{} others)", distinct.len() - 1)
            } else {
                first.clone()
            };
            let mut text = egui::RichText::new(text).monospace();
            if first == UNDEFINED {
                text = text.color(palette::POISON);
            }
            // Every lane's value, built only while hovered.
            ui.label(text).on_hover_ui(|ui| {
                let list: Vec<String> = shown
                    .iter()
                    .take(64)
                    .map(|(l, t)| format!("lane {l}: {t}"))
                    .collect();
                ui.label(list.join("\n"));
            });
        });
        stripes.next(ui);
    }
}

pub(super) fn show_watch(app: &mut LanescopeApp, ui: &mut egui::Ui) {
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
            let poison = s.sim().undefined_of(g, id).unwrap_or_default();
            // Each component printed as its type (hex where the type has no scalar form).
            let comp_tys = s
                .program
                .value_type(id)
                .and_then(|ty| s.program.types().flat.get(ty as usize));
            let states = s.sim().lane_states(g);
            egui::Grid::new(("watch", id, g)).show(ui, |ui| {
                let mut stripes = palette::Stripes::new(ui);
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
                            "undefined: poison, or read from memory not yet written (or computed \
                             from either); the spec leaves this value undefined",
                        );
                    } else {
                        let bits: Vec<String> = v.iter().map(|c| format!("{c:#x}")).collect();
                        r.on_hover_text(format!("bits: {}", bits.join(", ")));
                    }
                    stripes.end_row(ui);
                }
            });
        }
    }
    if let Some(k) = remove {
        app.watches.remove(k);
    }
}

pub(super) fn show_buffers(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        for f in crate::gui::state::BufferFormat::ALL {
            ui.selectable_value(&mut app.buffer_format, f, f.name());
        }
    });
    let Some(s) = &app.session else { return };
    let mut edited = Inputs::default();
    for (ri, r) in s.program.resources().iter().enumerate() {
        if r.push_constant {
            continue;
        }
        // With device addresses, the address pointers to the buffer hold.
        let address = s
            .program
            .physical_addresses()
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
            super::super::picture::show(ui, &r.name, &desc, &data, prev.as_deref());
        }
        let poisoned = s.sim().resource_poisoned_words(ri);
        egui::Grid::new(("buf", ri)).show(ui, |ui| {
            let mut stripes = palette::Stripes::new(ui);
            for (w, chunk) in data.chunks_exact(4).enumerate().take(256) {
                let bits = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                use crate::gui::state::BufferFormat as B;
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
                let slot = (r.set, r.binding, r.element());
                let init = s.initial.bytes(slot.0, slot.1, slot.2);
                if let Some(word) = init.and_then(|b| b.get(w * 4..w * 4 + 4)) {
                    let mut v = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
                    if ui
                        .add(egui::DragValue::new(&mut v).prefix("init "))
                        .on_hover_text(format!("initial value of word {w}"))
                        .changed()
                    {
                        if let Some(b) = edited.initial(s).bytes_mut(slot.0, slot.1, slot.2) {
                            b[w * 4..w * 4 + 4].copy_from_slice(&v.to_le_bytes());
                        }
                    }
                }
                stripes.end_row(ui);
            }
        });
    }
    if edited.initial.is_some() {
        app.ask(Action::Inputs(Box::new(edited), "reset".into()));
    }
}

fn f16(h: u16) -> f64 {
    lanescope_core::value::to_f64(u64::from(h), 16)
}

#[cfg(test)]
mod tests {
    use crate::gui::views::format_components;
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

#[cfg(test)]
mod source_lane_tests {
    use crate::gui::views::{format_source_lane, UNDEFINED};
    use lanescope_core::value::ScalarTy;
    use lanescope_core::SourceValue;

    #[test]
    fn undefined_components_print_as_such() {
        let tys = [ScalarTy::I32, ScalarTy::Float { bits: 32 }, ScalarTy::Bool];
        let value = |undefined: Vec<bool>| SourceValue {
            ty: 0,
            lanes: vec![
                Some(vec![
                    u64::from((-3i32) as u32),
                    u64::from(1.5f32.to_bits()),
                    1,
                ]),
                None,
            ],
            indexes: Vec::new(),
            undefined: vec![undefined, Vec::new()],
        };
        let shown = |u: Vec<bool>| format_source_lane(&value(u), Some(&tys), 0);
        assert_eq!(shown(Vec::new()).as_deref(), Some("-3, 1.5, true"));
        assert_eq!(shown(vec![false, true, true]).as_deref(), Some("-3, ?, ?"));
        assert_eq!(shown(vec![true; 3]).as_deref(), Some(UNDEFINED));
        // A lane without a value.
        assert_eq!(format_source_lane(&value(Vec::new()), Some(&tys), 1), None);
    }
}
