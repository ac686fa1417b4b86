//! The toolbar: menus (File, Examples, Lessons, View, Options, Limits), the subgroup size and
//! the stepping controls, one row at 1280 px and in presenter mode.

use super::ask::{Action, Pane};
use super::palette;
use super::session::Settings;
use crate::examples::EXAMPLES;
use crate::gui::session::sibling_order_name;
use crate::gui::state::LanescopeApp;
use lanescope_core::{NamedSetting, SwitchTangles};

/// The toolbar: one row at 1280 px (and in presenter mode). What a person reaches for while
/// stepping stays a click away; files, run options and limits are in menus. Returns what the
/// person asked for.
pub fn toolbar(app: &LanescopeApp, ui: &mut egui::Ui) -> Vec<Action> {
    let mut out = Vec::new();
    egui::Panel::top("toolbar")
        .frame(palette::side_panel(ui.style()))
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
                if !app.presenter {
                    file_menu(app, ui, &mut out);
                }
                examples_menu(ui, &mut out);
                lessons_menu(app, ui, &mut out);
                view_menu(app, ui, &mut out);
                ui.separator();
                if !app.presenter {
                    let mut st = app.settings.clone();
                    let mut restart = subgroup_size(&mut st, ui);
                    restart |= options_menu(&mut st, ui);
                    restart |= limits_menu(&mut st, ui);
                    if restart || st != app.settings {
                        out.push(Action::Settings {
                            settings: Box::new(st),
                            restart,
                        });
                    }
                    ui.separator();
                }
                controls(app, ui, &mut out);
            });
        });
    out
}

/// New (a template), Open, Save, Export and Copy link.
fn file_menu(app: &LanescopeApp, ui: &mut egui::Ui, out: &mut Vec<Action>) {
    crate::gui::widgets::menu(ui, "File", &mut |ui| {
        crate::gui::widgets::menu(ui, "New", &mut |ui| {
            for t in super::editor::TEMPLATES {
                let can = super::compile_job::can_compile(t.language);
                let b = ui.add_enabled(can, egui::Button::new(t.title));
                let b = if can {
                    b
                } else {
                    b.on_disabled_hover_text("this build has no GLSL compiler")
                };
                if b.clicked() {
                    out.push(Action::OpenSource(Box::new(super::editor::Editor::new(
                        t.name,
                        t.language,
                        t.text.to_owned(),
                    ))));
                    ui.close();
                }
            }
        })
        .on_hover_text("Start from a template and edit it: the run follows as you type");
        if ui
            .add(egui::Button::new("Open…").shortcut_text("Ctrl+O"))
            .on_hover_text(
                "Open a module (.spv) or a source (.wgsl, .comp, .spvasm), with the files it includes; or drop them anywhere",
            )
            .clicked()
        {
            out.push(Action::OpenDialog);
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
            out.push(Action::SaveSource);
            ui.close();
        }
        ui.separator();
        if ui
            .add(egui::Button::new("Copy link").shortcut_text("Ctrl+Shift+L"))
            .on_hover_text("A link that opens this module, these settings, this view and this step")
            .clicked()
        {
            out.push(Action::CopyLink);
            ui.close();
        }
        crate::gui::widgets::menu(ui, "Export", &mut |ui| {
            if ui
                .add(egui::Button::new("Window as PNG").shortcut_text("Ctrl+Shift+S"))
                .clicked()
            {
                out.push(Action::ExportPng);
                ui.close();
            }
            if ui
                .add(egui::Button::new("Trace as JSON").shortcut_text("Ctrl+Shift+E"))
                .clicked()
            {
                out.push(Action::ExportTrace);
                ui.close();
            }
            if ui
                .button("Session as AmberScript")
                .on_hover_text(
                    "The shader, its buffers, the dispatch and the settings as an .amber test (the final buffers as expectations once the run has finished)",
                )
                .clicked()
            {
                out.push(Action::ExportAmber);
                ui.close();
            }
        });
    })
    .on_hover_text("New, Open (Ctrl+O), Save (Ctrl+S), Copy link, Export");
}

fn examples_menu(ui: &mut egui::Ui, out: &mut Vec<Action>) {
    crate::gui::widgets::menu(ui, "Examples", &mut |ui| {
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
                    out.push(Action::OpenExample((*name).to_owned()));
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
                    out.push(Action::OpenSource(Box::new(super::editor::Editor::new(
                        &format!("{name}.{ext}"),
                        language,
                        (*source).to_owned(),
                    ))));
                    ui.close();
                }
            });
        }
    });
}

fn lessons_menu(app: &LanescopeApp, ui: &mut egui::Ui, out: &mut Vec<Action>) {
    crate::gui::widgets::menu(ui, "Lessons", &mut |ui| {
        for (i, l) in app.lessons.iter().enumerate() {
            if ui.button(format!("{}. {}", i + 1, l.title)).clicked() {
                out.push(Action::OpenLesson(i));
                ui.close();
            }
        }
    });
}

fn view_menu(app: &LanescopeApp, ui: &mut egui::Ui, out: &mut Vec<Action>) {
    crate::gui::widgets::menu(ui, "View", &mut |ui| {
        let panes = &app.panes;
        for (open, pane, name, keys) in [
            (panes.code, Pane::Code, "Code", "Ctrl+B"),
            (panes.graph, Pane::Graph, "Control flow", "Ctrl+J"),
            (panes.side, Pane::Side, "Values and inputs", "Ctrl+Alt+B"),
        ] {
            if ui
                .add(egui::Button::selectable(open, name).shortcut_text(keys))
                .clicked()
            {
                out.push(Action::TogglePane(pane));
                ui.close();
            }
        }
        if ui
            .add(egui::Button::selectable(app.presenter, "Presenter").shortcut_text("F2"))
            .on_hover_text("Large type on black for a projector; Space steps")
            .clicked()
        {
            out.push(Action::TogglePresenter);
            ui.close();
        }
        if ui
            .add(egui::Button::selectable(app.show_frame_time, "Frame time"))
            .on_hover_text("The time each frame takes, in the bottom bar")
            .clicked()
        {
            out.push(Action::ToggleFrameTime);
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
            out.push(Action::ResetLayout);
            ui.close();
        }
    })
    .on_hover_text("Show or fold the code, the graph and the values panel; presenter mode (F2)");
}

/// The subgroup size: the setting a person changes most, so on the toolbar itself.
fn subgroup_size(st: &mut Settings, ui: &mut egui::Ui) -> bool {
    let mut changed = false;
    let label = ui.label("Subgroup");
    egui::ComboBox::from_id_salt("subgroup-size")
        .width(48.0)
        .selected_text(st.subgroup_size.to_string())
        .show_ui(ui, |ui| {
            for s in [4u32, 8, 16, 32, 64, 128] {
                changed |= ui
                    .selectable_value(&mut st.subgroup_size, s, s.to_string())
                    .changed();
            }
        })
        .response
        .labelled_by(label.id);
    changed
}

/// How the run is scheduled and the detectors (workgroups are in the Inputs panel).
fn options_menu(st: &mut Settings, ui: &mut egui::Ui) -> bool {
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
                        .radio_value(&mut st.switch_tangles, v, name)
                        .changed();
                }
            });
            ui.label("Siblings")
                .on_hover_text("Which of the tangles a divergence makes runs first");
            for (name, o) in crate::gui::session::SIBLING_ORDERS {
                changed |= ui
                    .radio_value(&mut st.sibling_order, o, name)
                    .changed();
            }
            ui.separator();
            changed |= ui
                .checkbox(&mut st.detectors, "Detectors")
                .on_hover_text(
                    "Find data races, barriers some invocations skip by exiting, and reads of memory nobody wrote (off: faster, and only what the spec's rules say directly)",
                )
                .changed();
        })
        .0
        .on_hover_text(format!(
            "Switch {}, siblings {}, detectors {}",
            st.switch_tangles.name(),
            sibling_order_name(st.sibling_order),
            if st.detectors { "on" } else { "off" },
        ));
    changed
}

/// A menu that stays open while a value in it is clicked to type into it.
fn stay_open() -> egui::containers::menu::MenuConfig {
    egui::containers::menu::MenuConfig::new()
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
}

/// The bounds on a run and on a GLSL compile (the errors that stop at one name this menu).
fn limits_menu(st: &mut Settings, ui: &mut egui::Ui) -> bool {
    let mut changed = false;
    egui::containers::menu::MenuButton::new("Limits")
        .config(stay_open())
        .ui(ui, |ui| changed = limits(st, ui));
    changed
}

/// The limits' rows; true when one that bounds the run changed (the compile's bound the next
/// compile only).
fn limits(s: &mut Settings, ui: &mut egui::Ui) -> bool {
    let mut changed = false;
    egui::Grid::new("limits").num_columns(2).show(ui, |ui| {
        let row = |ui: &mut egui::Ui, name: &str, value: egui::DragValue<'_>| {
            let l = ui.label(name);
            let r = ui.add(value).labelled_by(l.id);
            ui.end_row();
            r.changed()
        };
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

fn controls(app: &LanescopeApp, ui: &mut egui::Ui, out: &mut Vec<Action>) {
    use super::session::LineStep;
    if ui
        .button("Step line")
        .on_hover_text(
            "The selected tangle to its next source line, calls stepped over (F10); one instruction when the module has no line information",
        )
        .clicked()
    {
        out.push(Action::StepLine(LineStep::Over));
    }
    if ui
        .button("Into")
        .on_hover_text("Like Step line, into calls (F11)")
        .clicked()
    {
        out.push(Action::StepLine(LineStep::Into));
    }
    if ui
        .button("Out")
        .on_hover_text("Out of the current function (Shift+F11)")
        .clicked()
    {
        out.push(Action::StepLine(LineStep::Out));
    }
    if ui
        .button("Step")
        .on_hover_text("One scheduler step: whichever tangle runs next, one instruction (Alt+F10)")
        .clicked()
    {
        out.push(Action::Step);
    }
    if ui
        .button("Step tangle")
        .on_hover_text("The selected tangle, one instruction (Ctrl+F10)")
        .clicked()
    {
        out.push(Action::StepTangle);
    }
    if ui
        .button("Back")
        .on_hover_text("Step back by the last step's unit: a line or an instruction (Shift+F10)")
        .clicked()
    {
        out.push(Action::StepBack);
    }
    let run_label = if app.running { "Pause" } else { "Run" };
    if ui
        .button(run_label)
        .on_hover_text("Run to the next breakpoint or diagnostic (F5); Esc stops")
        .clicked()
    {
        out.push(Action::ToggleRun);
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
        out.push(Action::ToggleAnimate);
    }
    if !app.presenter {
        ui.spacing_mut().slider_width = 70.0;
        let mut speed = app.settings.speed;
        if ui
            .add(
                egui::Slider::new(&mut speed, 0.5..=60.0)
                    .logarithmic(true)
                    .suffix(" /s"),
            )
            .on_hover_text("Animation speed: steps per second")
            .changed()
        {
            out.push(Action::Speed(speed));
        }
    }
    if ui
        .button("Reset")
        .on_hover_text("Back to step 0 of this run")
        .clicked()
    {
        out.push(Action::Reset);
    }
}
