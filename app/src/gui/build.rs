//! A source's build settings (macros, include folders, target environment, HLSL's entry
//! point, WGSL's override values); the Build section of the Source pane that edits them is `editor/build_view.rs`.

/// A source's build settings as typed in the Build section (GLSL and HLSL; the entry point is
/// HLSL's, the overrides WGSL's): read when the source compiles, a mistake being a compile error.
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
    /// WGSL's override values: `KEY=VALUE` (as `--override` takes them), separated by spaces.
    pub overrides: String,
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

    /// WGSL's override values, or what is wrong with one.
    pub fn overrides(&self) -> Result<Vec<(String, f64)>, String> {
        self.overrides
            .split_whitespace()
            .map(|o| lanescope_front::parse_override(o).map_err(|e| format!("override `{o}`: {e}")))
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
