//! The Build section of the Source pane: the source's build settings (`gui/build.rs`), edited.

use crate::gui::build::TARGET_ENVS;
use crate::gui::state::LanescopeApp;
use lanescope_front::Language;

/// The Build section under the source's header: for GLSL and HLSL macros, include folders,
/// the target environment and HLSL's entry point; for WGSL the overrides' values. A change
/// recompiles (after the typing pause).
pub fn build_section(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let now = ui.input(|i| i.time);
    let Some(e) = app
        .editor
        .as_mut()
        .filter(|e| matches!(e.language, Language::Glsl | Language::Hlsl | Language::Wgsl))
    else {
        return;
    };
    if e.language == Language::Wgsl {
        let title = match e.build.overrides.trim() {
            "" => "Build".to_string(),
            o => format!("Build: {o}"),
        };
        let mut changed = false;
        egui::CollapsingHeader::new(title)
            .id_salt("build-settings")
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.label("Overrides").on_hover_text(
                        "values for the module's `override` constants, as WebGPU's constants and --override take them: KEY=VALUE (the @id, or the name where it has none), separated by spaces; the others keep their initializers",
                    );
                    changed |= ui
                        .add(
                            egui::TextEdit::singleline(&mut e.build.overrides)
                                .hint_text("NAME=VALUE 0=VALUE")
                                .desired_width(260.0),
                        )
                        .changed();
                });
                if let Err(msg) = e.build.overrides() {
                    ui.label(egui::RichText::new(msg).color(ui.visuals().error_fg_color));
                }
            });
        if changed {
            e.edited_at = Some(now);
        }
        return;
    }
    let title = if e.build.is_default() {
        "Build".to_string()
    } else {
        let mut parts = Vec::new();
        if !e.build.defines.trim().is_empty() {
            parts.push(e.build.defines.trim().to_string());
        }
        if !e.build.target_env.is_empty() {
            parts.push(e.build.target_env.clone());
        }
        format!("Build: {}", parts.join(", "))
    };
    let mut changed = false;
    egui::CollapsingHeader::new(title)
        .id_salt("build-settings")
        .show(ui, |ui| {
            egui::Grid::new("build-grid").num_columns(2).show(ui, |ui| {
                ui.label("Defines").on_hover_text(
                    "macros, as -D takes them: NAME or NAME=VALUE, separated by spaces",
                );
                changed |= ui
                    .add(
                        egui::TextEdit::singleline(&mut e.build.defines)
                            .hint_text("NAME=VALUE NAME")
                            .desired_width(260.0),
                    )
                    .changed();
                ui.end_row();
                ui.label("Include folders").on_hover_text(
                    "where #include looks after the file's own folder, as -I: separated by ;",
                );
                changed |= ui
                    .add_enabled(
                        cfg!(not(target_arch = "wasm32")),
                        egui::TextEdit::singleline(&mut e.build.include_dirs)
                            .hint_text("dir;other/dir")
                            .desired_width(260.0),
                    )
                    .changed();
                ui.end_row();
                ui.label("Target");
                egui::ComboBox::from_id_salt("build-target-env")
                    .selected_text(if e.build.target_env.is_empty() {
                        "vulkan1.3 (default)"
                    } else {
                        e.build.target_env.as_str()
                    })
                    .show_ui(ui, |ui| {
                        for t in TARGET_ENVS {
                            let label = if t.is_empty() {
                                "vulkan1.3 (default)"
                            } else {
                                t
                            };
                            changed |= ui
                                .selectable_value(&mut e.build.target_env, (*t).to_string(), label)
                                .changed();
                        }
                    });
                ui.end_row();
                if e.language == Language::Hlsl {
                    ui.label("Entry point");
                    changed |= ui
                        .add(
                            egui::TextEdit::singleline(&mut e.build.entry)
                                .hint_text("main")
                                .desired_width(160.0),
                        )
                        .changed();
                    ui.end_row();
                }
            });
            if let Err(msg) = e.build.defines().and(e.build.target_env()) {
                ui.label(egui::RichText::new(msg).color(ui.visuals().error_fg_color));
            }
        });
    if changed {
        e.edited_at = Some(now);
    }
}
