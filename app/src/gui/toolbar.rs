//! The toolbar: menus (File, Examples, Lessons, View, Options, Limits), the subgroup size and
//! the stepping controls, one row at 1280 px and in presenter mode.

use super::panels::Panes;
use super::{sibling_order_name, LanescopeApp};
use crate::examples::EXAMPLES;
use lanescope_core::{NamedSetting, SwitchTangles};

/// The toolbar: one row at 1280 px (and in presenter mode). What a person reaches for while
/// stepping stays a click away; files, run options and limits are in menus.
pub fn toolbar(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    egui::Panel::top("toolbar").show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
            if !app.presenter {
                file_menu(app, ui);
            }
            examples_menu(app, ui);
            lessons_menu(app, ui);
            view_menu(app, ui);
            ui.separator();
            if !app.presenter {
                let mut changed = subgroup_size(app, ui);
                changed |= options_menu(app, ui);
                changed |= limits_menu(app, ui);
                if changed {
                    app.reset();
                }
                ui.separator();
            }
            controls(app, ui);
        });
    });
}

/// New (a template), Open, Save, Export and Copy link.
fn file_menu(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    ui.menu_button("File", |ui| {
        ui.menu_button("New", |ui| {
            for t in super::editor::TEMPLATES {
                let can = super::compile_job::can_compile(t.language);
                let b = ui.add_enabled(can, egui::Button::new(t.title));
                let b = if can {
                    b
                } else {
                    b.on_disabled_hover_text("this build has no GLSL compiler")
                };
                if b.clicked() {
                    app.open_source(super::editor::Editor::new(
                        t.name,
                        t.language,
                        t.text.to_owned(),
                    ));
                    ui.close();
                }
            }
        })
        .response
        .on_hover_text("Start from a template and edit it: the run follows as you type");
        if ui
            .add(egui::Button::new("Open…").shortcut_text("Ctrl+O"))
            .on_hover_text(
                "Open a module (.spv) or a source (.wgsl, .comp, .spvasm), with the files it includes; or drop them anywhere",
            )
            .clicked()
        {
            app.start_open_dialog();
            ui.close();
        }
        if ui
            .add_enabled(
                app.editor.is_some(),
                egui::Button::new("Save source").shortcut_text("Ctrl+S"),
            )
            .on_hover_text("Save the source you are editing")
            .clicked()
        {
            app.save_source();
            ui.close();
        }
        ui.separator();
        if ui
            .add(egui::Button::new("Copy link").shortcut_text("Ctrl+Shift+L"))
            .on_hover_text("A link that opens this module, these settings, this view and this step")
            .clicked()
        {
            app.copy_link(ui.ctx());
            ui.close();
        }
        ui.menu_button("Export", |ui| {
            if ui
                .add(egui::Button::new("Window as PNG").shortcut_text("Ctrl+Shift+S"))
                .clicked()
            {
                app.export_png(ui.ctx());
                ui.close();
            }
            if ui
                .add(egui::Button::new("Trace as JSON").shortcut_text("Ctrl+Shift+E"))
                .clicked()
            {
                app.export_trace();
                ui.close();
            }
            if ui
                .button("Session as AmberScript")
                .on_hover_text(
                    "The shader, its buffers, the dispatch and the settings as an .amber test (the final buffers as expectations once the run has finished)",
                )
                .clicked()
            {
                app.export_amber();
                ui.close();
            }
        });
    })
    .response
    .on_hover_text("New, Open (Ctrl+O), Save (Ctrl+S), Copy link, Export");
}

fn examples_menu(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    ui.menu_button("Examples", |ui| {
        for (name, _, source) in EXAMPLES {
            // The source's first comment line says what the example shows.
            let about = source
                .lines()
                .find_map(|l| l.trim().strip_prefix("//").or(l.trim().strip_prefix(";")))
                .map(str::trim)
                .unwrap_or("");
            let about = about
                .split_once(": ")
                .filter(|(n, _)| n == name)
                .map_or(about, |(_, rest)| rest);
            let about = if source.is_empty() && name.ends_with("_no_debug") {
                "compiled without debug information: the disassembly is the main view, as for any module built without -g"
            } else {
                about
            };
            // GLSL sources start with comments or `#version`; assembly with `;`.
            let language = if source.trim_start().starts_with(';') {
                lanescope_front::Language::SpirvAsm
            } else {
                lanescope_front::Language::Glsl
            };
            ui.horizontal(|ui| {
                if ui.button(*name).on_hover_text(about).clicked() {
                    app.open_example(name);
                    ui.close();
                }
                let editable = !source.is_empty() && super::compile_job::can_compile(language);
                let edit = ui.add_enabled(editable, egui::Button::new("edit source").small());
                let edit = if editable {
                    edit.on_hover_text("Open the example's source in the editor")
                } else {
                    edit.on_disabled_hover_text(
                        "this build has no GLSL compiler: it edits WGSL and assembly",
                    )
                };
                if edit.clicked() {
                    let ext = if language == lanescope_front::Language::Glsl {
                        "comp"
                    } else {
                        "spvasm"
                    };
                    app.open_source(super::editor::Editor::new(
                        &format!("{name}.{ext}"),
                        language,
                        (*source).to_owned(),
                    ));
                    ui.close();
                }
            });
        }
    });
}

fn lessons_menu(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    ui.menu_button("Lessons", |ui| {
        let mut open = None;
        for (i, l) in app.lessons.iter().enumerate() {
            if ui.button(format!("{}. {}", i + 1, l.title)).clicked() {
                open = Some(i);
                ui.close();
            }
        }
        if let Some(i) = open {
            app.open_lesson(i);
        }
    });
}

fn view_menu(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    ui.menu_button("View", |ui| {
        let panes = &mut app.panes;
        for (open, name, keys) in [
            (&mut panes.code, "Code", "Ctrl+B"),
            (&mut panes.graph, "Control flow", "Ctrl+J"),
            (&mut panes.side, "Values and inputs", "Ctrl+Alt+B"),
        ] {
            if ui
                .add(egui::Button::selectable(*open, name).shortcut_text(keys))
                .clicked()
            {
                *open = !*open;
                ui.close();
            }
        }
        if ui
            .add(egui::Button::selectable(app.presenter, "Presenter").shortcut_text("F2"))
            .on_hover_text("Large type on black for a projector; Space steps")
            .clicked()
        {
            app.presenter = !app.presenter;
            ui.close();
        }
        if ui
            .add(egui::Button::selectable(app.show_frame_time, "Frame time"))
            .on_hover_text("The time each frame takes, in the bottom bar")
            .clicked()
        {
            app.show_frame_time = !app.show_frame_time;
            ui.close();
        }
        ui.separator();
        if ui
            .button("Reset layout")
            .on_hover_text(
                "Every pane open at its default width, the graph sized for the open view",
            )
            .clicked()
        {
            app.panes = Panes::default();
            ui.close();
        }
    })
    .response
    .on_hover_text("Show or fold the code, the graph and the values panel; presenter mode (F2)");
}

/// The subgroup size: the setting a person changes most, so on the toolbar itself.
fn subgroup_size(app: &mut LanescopeApp, ui: &mut egui::Ui) -> bool {
    let mut changed = false;
    let label = ui.label("Subgroup");
    egui::ComboBox::from_id_salt("subgroup-size")
        .width(48.0)
        .selected_text(app.settings.subgroup_size.to_string())
        .show_ui(ui, |ui| {
            for s in [4u32, 8, 16, 32, 64, 128] {
                changed |= ui
                    .selectable_value(&mut app.settings.subgroup_size, s, s.to_string())
                    .changed();
            }
        })
        .response
        .labelled_by(label.id);
    changed
}

/// How the run is scheduled and the detectors (workgroups are in the Inputs panel).
fn options_menu(app: &mut LanescopeApp, ui: &mut egui::Ui) -> bool {
    let mut changed = false;
    egui::containers::menu::MenuButton::new("Options")
        .config(stay_open())
        .ui(ui, |ui| {
            ui.label("Switch")
                .on_hover_text("How an OpSwitch splits a tangle: one per distinct value, or one per case label");
            ui.horizontal(|ui| {
                for (v, name) in [
                    (SwitchTangles::PerValue, "per-value"),
                    (SwitchTangles::PerCase, "per-case"),
                ] {
                    changed |= ui
                        .radio_value(&mut app.settings.switch_tangles, v, name)
                        .changed();
                }
            });
            ui.label("Siblings")
                .on_hover_text("Which of the tangles a divergence makes runs first");
            for (name, o) in super::SIBLING_ORDERS {
                changed |= ui
                    .radio_value(&mut app.settings.sibling_order, o, name)
                    .changed();
            }
            ui.separator();
            changed |= ui
                .checkbox(&mut app.settings.detectors, "Detectors")
                .on_hover_text(
                    "Find data races, barriers some invocations skip by exiting, and reads of memory nobody wrote (off: faster, and only what the spec's rules say directly)",
                )
                .changed();
        })
        .0
        .on_hover_text(format!(
            "Switch {}, siblings {}, detectors {}",
            app.settings.switch_tangles.name(),
            sibling_order_name(app.settings.sibling_order),
            if app.settings.detectors { "on" } else { "off" },
        ));
    changed
}

/// A menu that stays open while a value in it is clicked to type into it.
fn stay_open() -> egui::containers::menu::MenuConfig {
    egui::containers::menu::MenuConfig::new()
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
}

/// The bounds on a run and on a GLSL compile (the errors that stop at one name this menu).
fn limits_menu(app: &mut LanescopeApp, ui: &mut egui::Ui) -> bool {
    let mut changed = false;
    egui::containers::menu::MenuButton::new("Limits")
        .config(stay_open())
        .ui(ui, |ui| changed = limits(app, ui));
    changed
}

fn limits(app: &mut LanescopeApp, ui: &mut egui::Ui) -> bool {
    let mut changed = false;
    egui::Grid::new("limits").num_columns(2).show(ui, |ui| {
        let row = |ui: &mut egui::Ui, name: &str, value: egui::DragValue<'_>| {
            let l = ui.label(name);
            let r = ui.add(value).labelled_by(l.id);
            ui.end_row();
            r.changed()
        };
        let s = &mut app.settings;
        changed |= row(
            ui,
            "Steps per run",
            egui::DragValue::new(&mut s.max_steps).range(1000..=1_000_000_000),
        );
        changed |= row(
            ui,
            "Memory per workgroup (MiB)",
            egui::DragValue::new(&mut s.max_memory_mib).range(1..=16384),
        );
        changed |= row(
            ui,
            "Invocations per workgroup",
            egui::DragValue::new(&mut s.max_invocations)
                .range(1..=lanescope_core::HARD_MAX_INVOCATIONS),
        );
        changed |= row(
            ui,
            "Buffer memory (MiB)",
            egui::DragValue::new(&mut s.max_buffer_mib).range(1..=4096),
        );
        changed |= row(
            ui,
            "Trace steps kept",
            egui::DragValue::new(&mut s.max_trace_steps).range(1000..=100_000_000),
        );
        changed |= row(
            ui,
            "printf lines kept",
            egui::DragValue::new(&mut s.max_printf_lines).range(1..=100_000_000),
        );
        // They bound the next compile; the run on screen stays as it is.
        row(
            ui,
            "GLSL compile time (s)",
            egui::DragValue::new(&mut s.compile_seconds)
                .range(0.5..=3600.0)
                .speed(0.5),
        );
        row(
            ui,
            "GLSL compile memory (MiB)",
            egui::DragValue::new(&mut s.compile_memory_mib).range(64..=65536),
        );
    });
    changed
}

fn controls(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    use super::session::LineStep;
    if ui
        .button("Step line")
        .on_hover_text(
            "The selected tangle to its next source line, calls stepped over (F10); one instruction when the module has no line information",
        )
        .clicked()
    {
        app.step_line(LineStep::Over);
    }
    if ui
        .button("Into")
        .on_hover_text("Like Step line, into calls (F11)")
        .clicked()
    {
        app.step_line(LineStep::Into);
    }
    if ui
        .button("Out")
        .on_hover_text("Out of the current function (Shift+F11)")
        .clicked()
    {
        app.step_line(LineStep::Out);
    }
    if ui
        .button("Step")
        .on_hover_text("One scheduler step: whichever tangle runs next, one instruction (Alt+F10)")
        .clicked()
    {
        app.step();
    }
    if ui
        .button("Step tangle")
        .on_hover_text("The selected tangle, one instruction (Ctrl+F10)")
        .clicked()
    {
        app.step_selected();
    }
    if ui
        .button("Back")
        .on_hover_text("Step back by the last step's unit: a line or an instruction (Shift+F10)")
        .clicked()
    {
        app.step_back();
    }
    let run_label = if app.running { "Pause" } else { "Run" };
    if ui
        .button(run_label)
        .on_hover_text("Run to the next breakpoint or diagnostic (F5); Esc stops")
        .clicked()
    {
        app.running = !app.running;
    }
    let anim_label = if app.animating {
        "Stop animation"
    } else {
        "Animate"
    };
    if ui
        .button(anim_label)
        .on_hover_text("Step at the speed set beside it (F6)")
        .clicked()
    {
        app.animating = !app.animating;
    }
    if !app.presenter {
        ui.spacing_mut().slider_width = 70.0;
        ui.add(
            egui::Slider::new(&mut app.settings.speed, 0.5..=60.0)
                .logarithmic(true)
                .suffix(" /s"),
        )
        .on_hover_text("Animation speed: steps per second");
    }
    if ui
        .button("Reset")
        .on_hover_text("Back to step 0 of this run")
        .clicked()
    {
        app.reset();
    }
}
