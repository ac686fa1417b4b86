//! A source's build settings (macros, include folders, target environment, HLSL's entry
//! point) and the Build section of the Source pane that edits them.

use super::LanescopeApp;
use lanescope_front::Language;

/// A source's build settings as typed in the Build section (GLSL and HLSL; the entry point is
/// HLSL's): read when the source compiles, a mistake being a compile error.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Build {
    /// `NAME` or `NAME=VALUE` (as `-D` takes them), separated by spaces.
    pub defines: String,
    /// Folders `#include` searches, separated by `;` or new lines.
    pub include_dirs: String,
    /// A target environment's name (`vulkan1.2`, `spv1.5`); empty: Vulkan 1.3.
    pub target_env: String,
    /// HLSL's entry point function; empty: `main`.
    pub entry: String,
}

impl Build {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// The macros, or what is wrong with one.
    pub fn defines(&self) -> Result<Vec<(String, Option<String>)>, String> {
        self.defines
            .split_whitespace()
            .map(|d| lanescope_front::parse_define(d).map_err(|e| format!("define `{d}`: {e}")))
            .collect()
    }

    pub fn include_dirs(&self) -> Vec<std::path::PathBuf> {
        self.include_dirs
            .split([';', '\n'])
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(std::path::PathBuf::from)
            .collect()
    }

    pub fn target_env(&self) -> Result<Option<lanescope_core::spvtext::TargetEnv>, String> {
        let t = self.target_env.trim();
        if t.is_empty() {
            return Ok(None);
        }
        t.parse()
            .map(Some)
            .map_err(|_| format!("target environment `{t}`: not one glslang knows"))
    }
}

/// The target environments the Build section offers (empty: the default).
pub const TARGET_ENVS: &[&str] = &[
    "",
    "vulkan1.0",
    "vulkan1.1",
    "vulkan1.2",
    "vulkan1.3",
    "vulkan1.4",
    "spv1.0",
    "spv1.3",
    "spv1.4",
    "spv1.5",
    "spv1.6",
];

/// The Build section under the source's header (GLSL and HLSL): macros, include folders, the
/// target environment and HLSL's entry point. A change recompiles (after the typing pause).
pub fn build_section(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let now = ui.input(|i| i.time);
    let Some(e) = app
        .editor
        .as_mut()
        .filter(|e| matches!(e.language, Language::Glsl | Language::Hlsl))
    else {
        return;
    };
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
