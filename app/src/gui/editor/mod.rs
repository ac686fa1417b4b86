//! The source pane: the user's own code (editable, recompiled as they type) or the source a
//! module's debug information carries (read-only), with line numbers, source-line breakpoints,
//! the current line of each tangle as a full-width band with chips, and errors underlined.

mod build_view;
mod view;

pub use view::{current_line_id, source_view};

use lanescope_front::{Diagnostic, Language};

/// How long typing must pause before the source is compiled again.
pub const DEBOUNCE_SECONDS: f64 = 0.4;

/// Source the person edits.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Editor {
    /// The file name (its extension is the language), as the debug information names it.
    pub name: String,
    pub language: Language,
    pub text: String,
    /// The last compile's messages (errors, or warnings of a good compile).
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
    /// The run on screen comes from an earlier text (the current one does not compile).
    #[serde(skip)]
    pub stale: bool,
    /// When the text last changed with a compile still to do.
    #[serde(skip)]
    pub edited_at: Option<f64>,
    /// The folder the file was opened from: its `#include "..."` look there first.
    #[serde(default)]
    pub source_dir: Option<std::path::PathBuf>,
    /// How the source is built: macros, include folders, target environment, entry point.
    #[serde(default)]
    pub build: super::build::Build,
    /// Files opened or dropped together with this one, `(name, text)`, that its `#include`
    /// finds (in the browser, where there is no folder to look in).
    #[serde(default)]
    pub include_files: Vec<(String, String)>,
}

impl Editor {
    /// Compiles the text as the file it is named after, GLSL in the compile worker under
    /// `limits` (in-process where there is no worker: the browser has no GLSL, tests).
    pub fn compile(
        &self,
        limits: &lanescope_front::CompileLimits,
    ) -> Result<lanescope_front::Compiled, lanescope_front::CompileError> {
        let opts = self.options()?;
        lanescope_front::compile_bounded(
            self.language,
            &self.text,
            &opts,
            limits,
            crate::compile_worker(),
        )
    }

    pub fn new(name: &str, language: Language, text: String) -> Self {
        Self {
            name: name.to_owned(),
            language,
            text,
            diagnostics: Vec::new(),
            stale: false,
            edited_at: None,
            source_dir: None,
            build: super::build::Build::default(),
            include_files: Vec::new(),
        }
    }

    /// What the compiler is told: the file's name and folder and the build settings, or what
    /// is wrong with the settings.
    pub fn options(
        &self,
    ) -> Result<lanescope_front::CompileOptions, lanescope_front::CompileError> {
        let bad = |e: String| lanescope_front::CompileError::message(format!("Build: {e}"));
        let entry = self.build.entry.trim();
        Ok(lanescope_front::CompileOptions {
            file_name: self.name.clone(),
            target_env: self.build.target_env().map_err(bad)?,
            defines: self.build.defines().map_err(bad)?,
            include_dirs: self.build.include_dirs(),
            source_dir: self.source_dir.clone(),
            entry: (!entry.is_empty() && self.language == Language::Hlsl)
                .then(|| entry.to_string()),
            include_files: self.include_files.clone(),
            overrides: if self.language == Language::Wgsl {
                self.build.overrides().map_err(bad)?
            } else {
                Vec::new()
            },
        })
    }
}

/// A compile error for the error bar: `file:line:col: message`, the included file's name where
/// the message is in one.
pub fn located(name: &str, e: &lanescope_front::CompileError) -> String {
    let first = e
        .diagnostics
        .iter()
        .find(|d| d.error)
        .or(e.diagnostics.first());
    match first {
        Some(d) if d.file.is_some() => e.to_string(),
        // `file:line:col: message`, or `file: message` where no line is named.
        Some(d) if d.line == 0 => format!("{name}: {e}"),
        _ => format!("{name}:{e}"),
    }
}

/// A file's name without its folders, for a tab.
pub(super) fn short_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_string()
}

/// A starting point for `New`.
pub struct Template {
    pub title: &'static str,
    pub name: &'static str,
    pub language: Language,
    pub text: &'static str,
}

pub const TEMPLATES: &[Template] = &[
    Template {
        title: "Divergent loop (WGSL)",
        name: "divergent_loop.wgsl",
        language: Language::Wgsl,
        text: include_str!("../../../../assets/templates/divergent_loop.wgsl"),
    },
    Template {
        title: "Subgroup reduction (WGSL)",
        name: "subgroup_reduction.wgsl",
        language: Language::Wgsl,
        text: include_str!("../../../../assets/templates/subgroup_reduction.wgsl"),
    },
    Template {
        title: "Cooperative-matrix MulAdd (WGSL)",
        name: "coop_muladd.wgsl",
        language: Language::Wgsl,
        text: include_str!("../../../../assets/templates/coop_muladd.wgsl"),
    },
    Template {
        title: "Int8 dot product (WGSL)",
        name: "dot_int8.wgsl",
        language: Language::Wgsl,
        text: include_str!("../../../../assets/templates/dot_int8.wgsl"),
    },
    Template {
        title: "Clustered rotate (SPIR-V assembly)",
        name: "rotate_clustered.spvasm",
        language: Language::SpirvAsm,
        text: include_str!("../../../../assets/rotate_clustered.spvasm"),
    },
    Template {
        title: "Maximal reconvergence (GLSL, native)",
        name: "reconverge.comp",
        language: Language::Glsl,
        text: include_str!("../../../../assets/templates/reconverge.comp"),
    },
];

pub fn language_title(l: Language) -> &'static str {
    match l {
        Language::Wgsl => "WGSL",
        Language::Glsl => "GLSL",
        Language::Hlsl => "HLSL",
        Language::SpirvAsm => "SPIR-V assembly",
        Language::SpirvBinary => "SPIR-V",
        Language::Amber => "AmberScript",
    }
}
