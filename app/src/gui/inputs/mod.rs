//! The Inputs panel: entry point, dispatch, subgroup size, specialization constants, push
//! constants, buffers and images (their texels imported and exported), each shown and edited
//! as the shader declares it. Every edit changes the session's initial state and restarts the
//! run from it.

mod import;
pub(in crate::gui) mod values;

#[cfg(test)]
pub(in crate::gui) use import::import_file;
use import::pick_file;
pub use import::poll_import;
pub use values::{export_numbers, fill, import_numbers, read, Fill};
use values::{parse, resize, write};

use super::ask::{Action, Inputs};
use crate::gui::state::LanescopeApp;
use lanescope_core::program::{Field, Program};
use lanescope_core::value::{self};
use lanescope_core::SpecValue;

/// Scalars shown per block before "Show more".
const PAGE: usize = 256;

/// Rows of a buffer's table laid out beyond those in sight, on each side (see `panel`).
const OVERSCAN_ROWS: usize = 3;

/// A text cell that commits on Enter or when it loses focus; returns the committed text.
fn cell(
    ui: &mut egui::Ui,
    edit: &mut Option<(String, String)>,
    key: String,
    shown: String,
    width: f32,
    label: egui::Id,
) -> Option<String> {
    let mut text = match edit {
        Some((k, t)) if *k == key => t.clone(),
        _ => shown.clone(),
    };
    let r = ui
        .add(
            egui::TextEdit::singleline(&mut text)
                // Its own id, not the next free one: rows scrolled out of sight are not laid
                // out, so a cell's place among the widgets moves as the panel scrolls.
                .id_salt(&key)
                .desired_width(width)
                .font(egui::TextStyle::Monospace),
        )
        .labelled_by(label);
    if r.lost_focus() {
        let was_editing = edit.as_ref().is_some_and(|(k, _)| *k == key);
        if was_editing {
            *edit = None;
        }
        return (was_editing && text != shown).then_some(text);
    }
    if r.has_focus() {
        *edit = Some((key, text));
    }
    None
}

/// Path, type and offset of a scalar; the path's label names the cells beside it.
fn field_row(ui: &mut egui::Ui, f: &Field) -> egui::Id {
    let id = ui
        .monospace(if f.path.is_empty() { "·" } else { &f.path })
        .id;
    ui.weak(lanescope_core::program::scalar_name(f.ty));
    ui.weak(format!("+{}", f.offset));
    id
}

/// A block's name as the shader writes it: the variable's, or for an anonymous block
/// (`buffer In { uint inp[]; };`) the block type's.
fn block_name(p: &Program, r: usize) -> String {
    let res = &p.resources()[r];
    if p.names().contains_key(&res.var) {
        return res.name.clone();
    }
    p.resource_type(r)
        .and_then(|t| p.types().spirv_ids.get(t as usize))
        .and_then(|id| p.names().get(id))
        .filter(|n| !n.is_empty())
        .cloned()
        .unwrap_or_else(|| res.name.clone())
}

/// The fill pattern's controls (shared by every buffer and image: the pattern, its constant or
/// seed) and the Fill button, `what` its hover text; whether it was clicked.
fn fill_controls(ui: &mut egui::Ui, st: &mut values::InputsState, ri: usize, what: &str) -> bool {
    let fill_label = ui.label("fill").id;
    egui::ComboBox::from_id_salt(("fill", ri))
        .selected_text(st.fill.name())
        .width(80.0)
        .show_ui(ui, |ui| {
            for f in Fill::ALL {
                ui.selectable_value(&mut st.fill, f, f.name());
            }
        })
        .response
        .labelled_by(fill_label);
    match st.fill {
        Fill::Constant => {
            ui.add(egui::TextEdit::singleline(&mut st.fill_value).desired_width(60.0))
                .labelled_by(fill_label);
        }
        Fill::Random => {
            ui.add(egui::DragValue::new(&mut st.seed).prefix("seed "));
        }
        _ => {}
    }
    ui.button("Fill").on_hover_text(what).clicked()
}

/// A bound image's row: what it is, a fill of its initial texels, Import… of them and Export
/// of them as they are now (the Buffers tab shows them). Whether Fill was clicked.
#[allow(clippy::too_many_arguments)]
fn image_row(
    ui: &mut egui::Ui,
    r: &lanescope_core::program::Resource,
    ri: usize,
    img: &lanescope_core::ImageBinding,
    s: &crate::gui::session::Session,
    st: &mut values::InputsState,
    start_import: &mut Option<(u32, u32, u32)>,
    export: &mut Option<(String, &'static str, Vec<u8>)>,
) -> bool {
    let mut filled = false;
    let d = &img.desc;
    let [w, h, z] = d.extent;
    let what = r
        .image
        .map_or_else(|| "image".to_string(), |t| t.describe());
    // (the bound image's format, where the type leaves it to the binding)
    let of = match r.image.and_then(|t| t.format) {
        Some(_) => String::new(),
        None => format!(" of {}", d.format.name),
    };
    ui.separator();
    ui.label(
        egui::RichText::new(format!(
            "set {} binding {} `{}` ({what}, {w}x{h}x{z} texels{of}, {} bytes)",
            r.set,
            r.binding,
            r.name,
            img.data.len()
        ))
        .strong(),
    );
    ui.horizontal_wrapped(|ui| {
        filled = fill_controls(ui, st, ri, "Set every texel of this image: the index gives each channel of a texel its index");
        if ui
            .button("Import…")
            .on_hover_text("Texels from the first, x fastest: numbers, a channel each as it is stored (0 to 255 for an 8-bit unorm channel, a float for a float channel; a packed format's whole texel), or the image's raw bytes from a .bin file")
            .clicked()
        {
            *start_import = Some((r.set, r.binding, r.element()));
        }
        // (borrowed: a copy of every texel each frame only for a menu that is rarely opened)
        let now = s.sim().resource_buffer(r).unwrap_or(&img.data);
        crate::gui::widgets::menu(ui, "Export", &mut |ui| {
            if ui.button("numbers (.txt)").clicked() {
                *export = Some((
                    format!("{}.txt", r.name),
                    "text/plain",
                    values::export_texels(d, now).into_bytes(),
                ));
                ui.close();
            }
            if ui.button("raw bytes (.bin)").clicked() {
                *export = Some((format!("{}.bin", r.name), "application/octet-stream", now.to_vec()));
                ui.close();
            }
        });
    });
    filled
}

/// The panel.
pub fn panel(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else {
        ui.weak("Open a module to set its inputs.");
        return;
    };
    let program = std::sync::Arc::clone(&s.program);
    let mut restart = false;
    let mut error = None;
    // The dispatch and the subgroup size are settings: asked for as such, with the restart.
    let mut settings = app.settings.clone();
    // What the panel changes of the run's initial state, copied from the session's on the first
    // edit (a frame without one copies nothing) and asked for with the restart.
    let mut inputs = Inputs::default();

    // Entry point, when there is a choice.
    if s.entries.len() > 1 {
        let current = program.entry_name().to_owned();
        let mut pick = None;
        ui.horizontal(|ui| {
            let l = ui.label("Entry point");
            egui::ComboBox::from_id_salt("entry")
                .selected_text(&current)
                .show_ui(ui, |ui| {
                    for e in &s.entries {
                        if ui.selectable_label(*e == current, e).clicked() && *e != current {
                            pick = Some(e.clone());
                        }
                    }
                })
                .response
                .labelled_by(l.id);
        });
        if let Some(e) = pick {
            inputs.entry = Some(e);
            restart = true;
        }
    }

    // The dispatch.
    let [lx, ly, lz] = program.local_size();
    ui.horizontal(|ui| {
        ui.label("Workgroups");
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            let mut v = settings.workgroups[i].max(1);
            if ui
                .add(
                    egui::DragValue::new(&mut v)
                        .range(1..=65535)
                        .prefix(format!("{axis} ")),
                )
                .on_hover_text("workgroups dispatched along this axis")
                .changed()
            {
                settings.workgroups[i] = v;
                restart = true;
            }
        }
        ui.weak(format!("of {lx}×{ly}×{lz}"));
    });
    let wg = settings.workgroups.map(|w| w.max(1));
    if wg.iter().any(|w| *w > 1) {
        // Vulkan runs workgroups in no set order; one of them is usually what a person studies.
        ui.horizontal(|ui| {
            let l = ui.label("Simulate");
            let chosen = app
                .settings
                .only_workgroup
                .filter(|w| (0..3).all(|i| w[i] < wg[i]));
            let mut only = chosen.is_some();
            egui::ComboBox::from_id_salt("only-workgroup")
                .selected_text(if only {
                    "one workgroup"
                } else {
                    "every workgroup"
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut only, false, "every workgroup")
                        .on_hover_text("All of the dispatch, one workgroup after another");
                    ui.selectable_value(&mut only, true, "one workgroup")
                        .on_hover_text("Only the workgroup chosen here; the others are not run");
                })
                .response
                .labelled_by(l.id);
            let mut w = chosen.unwrap_or([0; 3]);
            let mut moved = false;
            if only {
                for (i, axis) in ["x", "y", "z"].iter().enumerate() {
                    moved |= ui
                        .add(
                            egui::DragValue::new(&mut w[i])
                                .range(0..=wg[i] - 1)
                                .prefix(format!("{axis} ")),
                        )
                        .labelled_by(l.id)
                        .on_hover_text(format!("the workgroup's id along {axis}"))
                        .changed();
                }
            }
            let want = only.then_some(w);
            if want != chosen || moved {
                settings.only_workgroup = want;
                restart = true;
            }
        });
        if settings.only_workgroup.is_some() && program.buffer_atomics() {
            ui.label(
                egui::RichText::new(
                    "This shader has atomics on buffer memory: workgroups can see each other's \
                     work through them, so what this one reads may depend on the others, which \
                     Vulkan runs in any order and which are not run here.",
                )
                .color(ui.visuals().warn_fg_color),
            );
        }
    }
    ui.horizontal(|ui| {
        let l = ui.label("Subgroup size");
        let mut sg = settings.subgroup_size;
        egui::ComboBox::from_id_salt("inputs-sg")
            .selected_text(sg.to_string())
            .show_ui(ui, |ui| {
                for n in [4u32, 8, 16, 32, 64, 128] {
                    ui.selectable_value(&mut sg, n, n.to_string());
                }
            })
            .response
            .labelled_by(l.id);
        if sg != settings.subgroup_size {
            settings.subgroup_size = sg;
            restart = true;
        }
    });

    // Words an AmberScript's failed EXPECTs point at: (set, binding, offset) -> what was wanted.
    let failed: Vec<((u32, u32, u64), String)> = app
        .scenario
        .as_ref()
        .map(|sc| {
            sc.failed
                .iter()
                .filter_map(|f| {
                    Some((
                        f.at?,
                        format!(
                            "EXPECT at line {} failed: expected {}, actual {}",
                            f.expect.line, f.expect.expected, f.expect.actual
                        ),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let st = &mut app.inputs;
    let Some(s) = &app.session else { return };

    // Specialization constants: typed, with their defaults.
    if !program.spec_constants().is_empty() {
        ui.separator();
        ui.label(egui::RichText::new("Specialization constants").strong());
        egui::Grid::new("spec").show(ui, |ui| {
            let mut stripes = crate::gui::palette::Stripes::new(ui);
            for c in program.spec_constants() {
                let l = ui
                    .monospace(if c.name.is_empty() { "·" } else { &c.name })
                    .id;
                ui.weak(format!("SpecId {}", c.spec_id));
                ui.weak(lanescope_core::program::scalar_name(c.ty));
                let default = value::format_scalar(c.ty, c.default);
                let now = s
                    .spec
                    .get(&c.spec_id)
                    .and_then(|v| v.bits_for(c.ty).ok())
                    .map_or_else(|| default.clone(), |b| value::format_scalar(c.ty, b));
                if let Some(t) = cell(ui, &mut st.edit, format!("spec{}", c.spec_id), now, 90.0, l)
                {
                    let spec = inputs.spec.get_or_insert_with(|| s.spec.clone());
                    match parse(&t, c.ty) {
                        Ok(b) if b == c.default => {
                            spec.remove(&c.spec_id);
                            restart = true;
                        }
                        Ok(b) => {
                            spec.insert(c.spec_id, SpecValue::Bits(b));
                            restart = true;
                        }
                        Err(e) => error = Some(format!("SpecId {}: {e}", c.spec_id)),
                    }
                }
                ui.weak(format!("default {default}"));
                stripes.end_row(ui);
            }
        });
    }

    // Push constants, by the declared block's members.
    if let Some(ri) = program.resources().iter().position(|r| r.push_constant) {
        let r = &program.resources()[ri];
        ui.separator();
        ui.label(
            egui::RichText::new(format!(
                "Push constants `{}` ({} bytes)",
                block_name(&program, ri),
                r.min_size
            ))
            .strong(),
        );
        let mut pc = s.initial.push_constants.clone();
        if pc.len() < r.min_size as usize {
            pc.resize(r.min_size as usize, 0);
        }
        let fields = program.resource_fields(ri, pc.len() as u64, PAGE * 4);
        egui::Grid::new("push").show(ui, |ui| {
            let mut stripes = crate::gui::palette::Stripes::new(ui);
            for f in &fields.fields {
                let l = field_row(ui, f);
                let now = value::format_scalar(f.ty, read(&pc, f.offset, f.ty));
                if let Some(t) = cell(ui, &mut st.edit, format!("pc{}", f.offset), now, 120.0, l) {
                    match parse(&t, f.ty) {
                        Ok(b) => {
                            write(&mut pc, f.offset, f.ty, b);
                            inputs.initial(s).push_constants = pc.clone();
                            restart = true;
                        }
                        Err(e) => error = Some(format!("push constant {}: {e}", f.path)),
                    }
                }
                stripes.end_row(ui);
            }
        });
    }

    // Buffers, as declared.
    let mut start_import = None;
    let mut export = None;
    for (ri, r) in program.resources().iter().enumerate() {
        if r.push_constant {
            continue;
        }
        let slot = (r.set, r.binding, r.element());
        if let Some(img) = s.initial.image(slot.0, slot.1, slot.2) {
            if image_row(ui, r, ri, img, s, st, &mut start_import, &mut export) {
                if let Some(i) = inputs.initial(s).image_mut(slot.0, slot.1, slot.2) {
                    match values::fill_texels(
                        &i.desc,
                        &mut i.data,
                        st.fill,
                        &st.fill_value,
                        st.seed,
                    ) {
                        Ok(()) => restart = true,
                        Err(e) => error = Some(format!("fill `{}`: {e}", r.name)),
                    }
                }
            }
            continue;
        }
        let Some(len) = s.initial.bytes(slot.0, slot.1, slot.2).map(Vec::len) else {
            continue;
        };
        ui.separator();
        ui.label(
            egui::RichText::new(format!(
                "set {} binding {} `{}` ({len} bytes{})",
                r.set,
                r.binding,
                block_name(&program, ri),
                if r.uniform { ", uniform" } else { "" }
            ))
            .strong(),
        );
        let current = s.sim().resource_buffer(r).map(<[u8]>::to_vec);
        let limit = *st.shown.get(&ri).unwrap_or(&PAGE);
        let fields = program.resource_fields(ri, len as u64, limit);
        ui.horizontal_wrapped(|ui| {
            if let Some((start, stride)) = fields.runtime_array {
                let mut n = (len as u64).saturating_sub(start) / u64::from(stride.max(1));
                let l = ui.label("elements");
                if ui
                    .add(egui::DragValue::new(&mut n).range(0..=(1u64 << 24)))
                    .labelled_by(l.id)
                    .on_hover_text("length of the runtime array at the block's end")
                    .changed()
                {
                    if let Some(b) = inputs.initial(s).bytes_mut(slot.0, slot.1, slot.2) {
                        resize(b, start, stride, n);
                        restart = true;
                    }
                }
            }
            if fill_controls(ui, st, ri, "Set every declared value of this buffer") {
                let mut none = Vec::new();
                let b = inputs
                    .initial(s)
                    .bytes_mut(slot.0, slot.1, slot.2)
                    .unwrap_or(&mut none);
                match fill(&program, ri, b, st.fill, &st.fill_value, st.seed) {
                    Ok(()) => restart = true,
                    Err(e) => error = Some(format!("fill `{}`: {e}", r.name)),
                }
            }
            if ui
                .button("Import…")
                .on_hover_text("Numbers (whitespace- or comma-separated, or a JSON array) read as the declared types, or raw bytes from a .bin file")
                .clicked()
            {
                start_import = Some(slot);
            }
            crate::gui::widgets::menu(ui, "Export", &mut |ui| {
                let data = current.clone().unwrap_or_default();
                if ui.button("numbers (.txt)").clicked() {
                    export = Some((
                        format!("{}.txt", r.name),
                        "text/plain",
                        export_numbers(&program, ri, &data).into_bytes(),
                    ));
                    ui.close();
                }
                if ui.button("raw bytes (.bin)").clicked() {
                    export = Some((format!("{}.bin", r.name), "application/octet-stream", data));
                    ui.close();
                }
            });
        });
        egui::Grid::new(("declared", ri)).show(ui, |ui| {
            let mut stripes = crate::gui::palette::Stripes::new(ui);
            ui.weak("value");
            ui.weak("type");
            ui.weak("offset");
            ui.weak("initial");
            ui.weak("now");
            stripes.end_row(ui);
            let sight = ui.clip_rect().y_range();
            let gap = ui.spacing().item_spacing.y;
            let last = fields.fields.len().saturating_sub(1);
            // Rows out of sight take their room and are not laid out, but which rows are laid
            // out changes only when a row in sight is not among them: then they become those in
            // sight and OVERSCAN_ROWS more on each side. A step that adds or drops a variable
            // above moves the table by a row or two, and a row not laid out the frame before has
            // a text field that egui styles only on its next pass (a second pass and a second
            // frame for each such step).
            let kept = st.laid_out.get(&ri).cloned();
            let mut in_sight: Option<std::ops::Range<usize>> = None;
            for (k, f) in fields.fields.iter().enumerate() {
                let top = ui.cursor().top();
                // The last row is drawn wherever it is: its index and offset are the widest,
                // so the columns keep their widths as the rows scroll by.
                if let Some(h) = st.row_height.filter(|_| k != last) {
                    let seen = top <= sight.max && top + h >= sight.min;
                    if seen {
                        in_sight = Some(in_sight.map_or(k..k + 1, |r| r.start..k + 1));
                    }
                    if !seen && !kept.as_ref().is_some_and(|r| r.contains(&k)) {
                        ui.allocate_space(egui::vec2(0.0, h));
                        stripes.end_row(ui);
                        continue;
                    }
                }
                let l = field_row(ui, f);
                let init = s
                    .initial
                    .bytes(slot.0, slot.1, slot.2)
                    .map_or(&[][..], Vec::as_slice);
                let shown = value::format_scalar(f.ty, read(init, f.offset, f.ty));
                if let Some(t) = cell(
                    ui,
                    &mut st.edit,
                    format!("b{ri}:{}", f.offset),
                    shown,
                    90.0,
                    l,
                ) {
                    match parse(&t, f.ty) {
                        Ok(b) => {
                            if let Some(b2) = inputs.initial(s).bytes_mut(slot.0, slot.1, slot.2) {
                                write(b2, f.offset, f.ty, b);
                            }
                            restart = true;
                        }
                        Err(e) => error = Some(format!("`{}` {}: {e}", r.name, f.path)),
                    }
                }
                let now = current.as_deref().map(|c| read(c, f.offset, f.ty));
                let before = read(init, f.offset, f.ty);
                let fail = failed
                    .iter()
                    .find(|(at, _)| {
                        at.0 == r.set
                            && at.1 == r.binding
                            && (f.offset..f.offset + u64::from(f.ty.size_bytes())).contains(&at.2)
                    })
                    .map(|(_, why)| why);
                match now {
                    Some(v) if fail.is_some() => {
                        ui.label(
                            egui::RichText::new(value::format_scalar(f.ty, v))
                                .monospace()
                                .background_color(ui.visuals().error_fg_color)
                                .color(egui::Color32::BLACK),
                        )
                        .on_hover_text(fail.cloned().unwrap_or_default());
                    }
                    Some(v) if v != before => {
                        ui.label(
                            egui::RichText::new(value::format_scalar(f.ty, v))
                                .monospace()
                                .background_color(super::palette::CHANGED)
                                .color(egui::Color32::BLACK),
                        )
                        .on_hover_text("changed by the run");
                    }
                    Some(v) => {
                        ui.monospace(value::format_scalar(f.ty, v));
                    }
                    None => {
                        ui.weak("—");
                    }
                }
                stripes.end_row(ui);
                st.row_height = Some(ui.cursor().top() - top - gap);
            }
            match in_sight {
                Some(r) if !kept.is_some_and(|k| k.start <= r.start && r.end <= k.end) => {
                    let m = OVERSCAN_ROWS;
                    st.laid_out.insert(ri, r.start.saturating_sub(m)..r.end + m);
                }
                Some(_) => {}
                // (a table scrolled out of sight lays nothing out)
                None => {
                    st.laid_out.remove(&ri);
                }
            }
        });
        if fields.truncated && ui.button("Show more").clicked() {
            st.shown.insert(ri, limit + PAGE);
        }
    }

    if let Some(target) = start_import {
        st.import = Some((target, pick_file()));
    }
    if let Some((name, mime, bytes)) = export {
        app.ask(Action::Save(name, mime, bytes));
    }
    if settings != app.settings {
        app.ask(Action::Settings {
            settings: Box::new(settings),
            restart: false,
        });
    }
    if let Some(e) = error {
        app.error = Some(e);
    } else if restart {
        app.ask(Action::Inputs(
            Box::new(inputs),
            "inputs changed: the run starts again".into(),
        ));
    }
}
