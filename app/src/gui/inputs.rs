//! The Inputs panel: entry point, dispatch, subgroup size, specialization constants, push
//! constants and buffers, each shown and edited as the shader declares it. Every edit changes
//! the session's initial state and restarts the run from it.

use super::LanescopeApp;
use lanescope_core::program::{Field, Program};
use lanescope_core::value::{self, ScalarTy};
use lanescope_core::SpecValue;

/// Scalars shown per block before "Show more".
const PAGE: usize = 256;
/// Most scalars a fill, an import or an export walks (a 64 MiB buffer of bytes is past it).
const MAX_FIELDS: usize = 1 << 24;

/// How a buffer is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    Zero,
    Constant,
    Index,
    Random,
}

impl Fill {
    const ALL: [Fill; 4] = [Fill::Zero, Fill::Constant, Fill::Index, Fill::Random];
    fn name(self) -> &'static str {
        match self {
            Fill::Zero => "zero",
            Fill::Constant => "constant",
            Fill::Index => "index",
            Fill::Random => "random",
        }
    }
}

/// The panel's own state: the cell being typed in, how far each block is shown, the fill.
pub struct InputsState {
    /// (cell key, text being typed): committed when the cell loses focus.
    edit: Option<(String, String)>,
    /// Scalars shown per resource index.
    shown: std::collections::HashMap<usize, usize>,
    fill: Fill,
    fill_value: String,
    seed: u64,
    /// An import under way: the (set, binding) it goes to and the file.
    pub import: Option<((u32, u32, u32), super::dialog::Pending<super::Picked>)>,
}

impl Default for InputsState {
    fn default() -> Self {
        Self {
            edit: None,
            shown: Default::default(),
            fill: Fill::Index,
            fill_value: "1".into(),
            seed: 1,
            import: None,
        }
    }
}

/// Reads one scalar of `ty` at `offset` (zero past the end).
pub fn read(bytes: &[u8], offset: u64, ty: ScalarTy) -> u64 {
    let n = ty.size_bytes() as usize;
    let mut b = [0u8; 8];
    let at = offset as usize;
    if let Some(src) = bytes.get(at..at + n) {
        b[..n].copy_from_slice(src);
    }
    u64::from_le_bytes(b)
}

/// Writes one scalar of `ty` at `offset` (the bytes must reach it).
pub fn write(bytes: &mut [u8], offset: u64, ty: ScalarTy, bits: u64) {
    let n = ty.size_bytes() as usize;
    let at = offset as usize;
    if let Some(dst) = bytes.get_mut(at..at + n) {
        dst.copy_from_slice(&bits.to_le_bytes()[..n]);
    }
}

/// A value typed by a person, as `ty`'s bits; the error names the type.
pub fn parse(text: &str, ty: ScalarTy) -> Result<u64, String> {
    SpecValue::Text(text.trim().to_owned())
        .bits_for(ty)
        .map_err(|e| {
            format!(
                "`{}` is not a {}: {e}",
                text.trim(),
                lanescope_core::program::scalar_name(ty)
            )
        })
}

/// `i` as a value of `ty` (the index fill): floats hold the number, integers wrap to their width.
fn of_index(i: u64, ty: ScalarTy) -> u64 {
    if ty.is_any_float() {
        value::float_from_f64(ty, i as f64)
    } else if ty == ScalarTy::Bool {
        i & 1
    } else {
        i & value::mask(ty.bits())
    }
}

/// A reproducible random value of `ty`: integers over their whole range, floats in [0, 1).
fn random(state: &mut u64, ty: ScalarTy) -> u64 {
    // splitmix64: small, fast and the same on every platform.
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    if ty.is_any_float() {
        value::float_from_f64(ty, (z >> 11) as f64 / (1u64 << 53) as f64)
    } else if ty == ScalarTy::Bool {
        z & 1
    } else {
        z & value::mask(ty.bits())
    }
}

/// Fills every declared scalar of resource `r` in `bytes`.
pub fn fill(
    p: &Program,
    r: usize,
    bytes: &mut [u8],
    how: Fill,
    constant: &str,
    seed: u64,
) -> Result<(), String> {
    if how == Fill::Zero {
        bytes.fill(0);
        return Ok(());
    }
    let fields = p.resource_fields(r, bytes.len() as u64, MAX_FIELDS).fields;
    let mut state = seed;
    for (i, f) in fields.iter().enumerate() {
        let bits = match how {
            Fill::Constant => parse(constant, f.ty)?,
            Fill::Index => of_index(i as u64, f.ty),
            Fill::Random => random(&mut state, f.ty),
            Fill::Zero => 0,
        };
        write(bytes, f.offset, f.ty, bits);
    }
    Ok(())
}

/// The numbers in a text: whitespace- or comma-separated, or JSON arrays (nested ones
/// flattened).
pub fn numbers(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']'))
        .filter(|t| !t.is_empty())
        .collect()
}

/// Reads numbers into resource `r`'s scalars in declaration order; a runtime array grows to
/// take them all. Returns how many were read; the error names the number and the field.
pub fn import_numbers(
    p: &Program,
    r: usize,
    bytes: &mut Vec<u8>,
    text: &str,
) -> Result<usize, String> {
    let nums = numbers(text);
    let mut fields = p.resource_fields(r, bytes.len() as u64, MAX_FIELDS);
    if nums.len() > fields.fields.len() {
        if let Some((start, stride)) = fields.runtime_array {
            // Grow one element at a time until the numbers fit: elements may hold several.
            let per = p
                .resource_fields(r, start + u64::from(stride), MAX_FIELDS)
                .fields
                .iter()
                .filter(|f| f.offset >= start)
                .count()
                .max(1);
            let need = (nums.len() - fields.fields.len()).div_ceil(per) as u64;
            let len = bytes.len() as u64 + need * u64::from(stride);
            let len = len.min(u64::from(u32::MAX)) as usize;
            bytes.resize(len, 0);
            fields = p.resource_fields(r, bytes.len() as u64, MAX_FIELDS);
        }
    }
    if nums.len() > fields.fields.len() {
        return Err(format!(
            "{} numbers for {} values (the block has no runtime array to grow)",
            nums.len(),
            fields.fields.len()
        ));
    }
    for (i, (t, f)) in nums.iter().zip(&fields.fields).enumerate() {
        let bits = parse(t, f.ty).map_err(|e| format!("number {} ({}): {e}", i + 1, f.path))?;
        write(bytes, f.offset, f.ty, bits);
    }
    Ok(nums.len())
}

/// Resource `r`'s scalars in declaration order, one per line, as `import_numbers` reads them.
pub fn export_numbers(p: &Program, r: usize, bytes: &[u8]) -> String {
    let fields = p.resource_fields(r, bytes.len() as u64, MAX_FIELDS).fields;
    let mut out = String::with_capacity(fields.len() * 8);
    for f in &fields {
        out.push_str(&value::format_scalar(f.ty, read(bytes, f.offset, f.ty)));
        out.push('\n');
    }
    out
}

/// Changes a runtime array's element count (the fixed part stays).
pub fn resize(bytes: &mut Vec<u8>, start: u64, stride: u32, elements: u64) {
    let len = start.saturating_add(elements.saturating_mul(u64::from(stride)));
    bytes.resize(len.min(u64::from(u32::MAX)) as usize, 0);
}

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

/// The panel.
pub fn panel(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else {
        ui.weak("Open a module to set its inputs.");
        return;
    };
    let program = std::sync::Arc::clone(&s.program);
    let mut restart = false;
    let mut error = None;

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
            if let Some(s) = &mut app.session {
                s.entry = Some(e);
                restart = true;
            }
        }
    }

    // The dispatch.
    let [lx, ly, lz] = program.local_size();
    ui.horizontal(|ui| {
        ui.label("Workgroups");
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            let mut v = app.settings.workgroups[i].max(1);
            if ui
                .add(
                    egui::DragValue::new(&mut v)
                        .range(1..=65535)
                        .prefix(format!("{axis} ")),
                )
                .on_hover_text("workgroups dispatched along this axis")
                .changed()
            {
                app.settings.workgroups[i] = v;
                restart = true;
            }
        }
        ui.weak(format!("of {lx}×{ly}×{lz}"));
    });
    let wg = app.settings.workgroups.map(|w| w.max(1));
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
                app.settings.only_workgroup = want;
                restart = true;
            }
        });
        if app.settings.only_workgroup.is_some() && program.buffer_atomics() {
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
        let mut sg = app.settings.subgroup_size;
        egui::ComboBox::from_id_salt("inputs-sg")
            .selected_text(sg.to_string())
            .show_ui(ui, |ui| {
                for n in [4u32, 8, 16, 32, 64, 128] {
                    ui.selectable_value(&mut sg, n, n.to_string());
                }
            })
            .response
            .labelled_by(l.id);
        if sg != app.settings.subgroup_size {
            app.settings.subgroup_size = sg;
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
    let Some(s) = &mut app.session else { return };

    // Specialization constants: typed, with their defaults.
    if !program.spec_constants().is_empty() {
        ui.separator();
        ui.label(egui::RichText::new("Specialization constants").strong());
        egui::Grid::new("spec").striped(true).show(ui, |ui| {
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
                    match parse(&t, c.ty) {
                        Ok(b) if b == c.default => {
                            s.spec.remove(&c.spec_id);
                            restart = true;
                        }
                        Ok(b) => {
                            s.spec.insert(c.spec_id, SpecValue::Bits(b));
                            restart = true;
                        }
                        Err(e) => error = Some(format!("SpecId {}: {e}", c.spec_id)),
                    }
                }
                ui.weak(format!("default {default}"));
                ui.end_row();
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
        let pc = &mut s.initial.push_constants;
        if pc.len() < r.min_size as usize {
            pc.resize(r.min_size as usize, 0);
        }
        let fields = program.resource_fields(ri, pc.len() as u64, PAGE * 4);
        egui::Grid::new("push").striped(true).show(ui, |ui| {
            for f in &fields.fields {
                let l = field_row(ui, f);
                let now = value::format_scalar(f.ty, read(pc, f.offset, f.ty));
                if let Some(t) = cell(ui, &mut st.edit, format!("pc{}", f.offset), now, 120.0, l) {
                    match parse(&t, f.ty) {
                        Ok(b) => {
                            write(pc, f.offset, f.ty, b);
                            restart = true;
                        }
                        Err(e) => error = Some(format!("push constant {}: {e}", f.path)),
                    }
                }
                ui.end_row();
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
                    if let Some(b) = s.initial.bytes_mut(slot.0, slot.1, slot.2) {
                        resize(b, start, stride, n);
                        restart = true;
                    }
                }
            }
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
            if ui
                .button("Fill")
                .on_hover_text("Set every declared value of this buffer")
                .clicked()
            {
                let mut none = Vec::new();
                let b = s.initial.bytes_mut(slot.0, slot.1, slot.2).unwrap_or(&mut none);
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
            ui.menu_button("Export", |ui| {
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
        egui::Grid::new(("declared", ri))
            .striped(true)
            .show(ui, |ui| {
                ui.weak("value");
                ui.weak("type");
                ui.weak("offset");
                ui.weak("initial");
                ui.weak("now");
                ui.end_row();
                for f in &fields.fields {
                    let l = field_row(ui, f);
                    let mut none = Vec::new();
                    let init = s
                        .initial
                        .bytes_mut(slot.0, slot.1, slot.2)
                        .unwrap_or(&mut none);
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
                                write(init, f.offset, f.ty, b);
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
                                && (f.offset..f.offset + u64::from(f.ty.size_bytes()))
                                    .contains(&at.2)
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
                    ui.end_row();
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
        app.saving = Some(super::export::save(name, mime, bytes));
    }
    if let Some(e) = error {
        app.error = Some(e);
    } else if restart {
        app.reset();
        app.status = "inputs changed: the run starts again".into();
    }
}

/// Delivers an imported file into its buffer once the dialog answers.
pub fn poll_import(app: &mut LanescopeApp) {
    let Some((target, p)) = &app.inputs.import else {
        return;
    };
    let answer = p.poll();
    let target = *target;
    if matches!(answer, super::dialog::Poll::Waiting) {
        return;
    }
    app.inputs.import = None;
    match answer {
        super::dialog::Poll::Ready(Ok(Some((name, bytes)))) => {
            match import_file(app, target, &name, bytes) {
                Ok(msg) => {
                    app.reset();
                    app.status = msg;
                }
                Err(e) => app.error = Some(format!("{name}: {e}")),
            }
        }
        super::dialog::Poll::Ready(Err(e)) => app.error = Some(e),
        super::dialog::Poll::Lost => {
            app.error = Some("the file dialog stopped unexpectedly".into())
        }
        _ => {}
    }
}

/// Puts a file's contents into the initial buffer at `target`: raw bytes for `.bin`/`.raw`,
/// numbers otherwise.
pub fn import_file(
    app: &mut LanescopeApp,
    (set, binding, element): (u32, u32, u32),
    name: &str,
    bytes: Vec<u8>,
) -> Result<String, String> {
    let s = app.session.as_mut().ok_or("no module is open")?;
    let program = std::sync::Arc::clone(&s.program);
    let at = lanescope_core::slot_name((set, binding, element));
    let ri = program
        .resources()
        .iter()
        .position(|r| {
            !r.push_constant && (r.set, r.binding, r.element()) == (set, binding, element)
        })
        .ok_or_else(|| format!("the shader has no buffer at {at}"))?;
    let r = &program.resources()[ri];
    let buf = s
        .initial
        .bytes_mut(set, binding, element)
        .ok_or_else(|| format!("no buffer is bound at {at}"))?;
    let max = app.settings.max_buffer_mib.saturating_mul(1 << 20);
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".bin") || lower.ends_with(".raw") {
        if bytes.len() as u64 > max {
            return Err(format!(
                "{} bytes pass the buffer-memory limit of {} MiB (raise it in the Limits menu)",
                bytes.len(),
                max >> 20
            ));
        }
        let mut b = bytes;
        let short = b.len() < r.min_size as usize;
        if short {
            b.resize(r.min_size as usize, 0);
        }
        let n = b.len();
        *buf = b;
        return Ok(format!(
            "`{}`: {n} bytes from {name}{}",
            r.name,
            if short {
                " (zero-extended to the declared size)"
            } else {
                ""
            }
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        "not text: numbers are read from text (whitespace- or comma-separated, or a JSON array); raw bytes from a .bin file".to_owned()
    })?;
    let mut b = buf.clone();
    let n = import_numbers(&program, ri, &mut b, &text)?;
    if b.len() as u64 > max {
        return Err(format!(
            "the buffer would need {} bytes, past the buffer-memory limit of {} MiB",
            b.len(),
            max >> 20
        ));
    }
    *buf = b;
    Ok(format!("`{}`: {n} values from {name}", r.name))
}

/// A file picked by the person (any kind), read whole.
fn pick_file() -> super::dialog::Pending<super::Picked> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        super::dialog::Pending::spawn("import", || {
            let picked = super::dialog::native(|| rfd::FileDialog::new().pick_file())?;
            let Some(path) = picked else { return Ok(None) };
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let bytes = super::read_module(&path).map_err(|e| format!("{name}: {e}"))?;
            Ok(Some((name, bytes)))
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        super::dialog::Pending::spawn_local(async {
            let Some(file) = rfd::AsyncFileDialog::new().pick_file().await else {
                return Ok(None);
            };
            let name = file.file_name();
            match super::too_large(file.inner().size() as u64) {
                Ok(()) => Ok(Some((name, file.read().await))),
                Err(e) => Err(format!("{name}: {e}")),
            }
        })
    }
}
