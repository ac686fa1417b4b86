//! Shader source languages and how a file's language is recognised.

/// A language Lanescope reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Language {
    /// A SPIR-V binary module.
    SpirvBinary,
    /// SPIR-V assembly in the `spirv-as`/`spirv-dis` text format.
    SpirvAsm,
    /// WGSL, compiled by naga.
    Wgsl,
    /// GLSL (compute shaders), compiled by glslang (natively).
    Glsl,
    /// HLSL (compute shaders), compiled by glslang's HLSL front end (natively).
    Hlsl,
    /// An AmberScript test: shaders, buffers, pipelines, runs and expectations.
    Amber,
}

impl Language {
    /// Every language, in the order menus list them.
    pub const ALL: [Self; 6] = [
        Self::SpirvBinary,
        Self::SpirvAsm,
        Self::Wgsl,
        Self::Glsl,
        Self::Hlsl,
        Self::Amber,
    ];

    /// The stable name (as in permalinks and `--json`).
    pub fn name(self) -> &'static str {
        match self {
            Self::SpirvBinary => "spirv",
            Self::SpirvAsm => "spvasm",
            Self::Wgsl => "wgsl",
            Self::Glsl => "glsl",
            Self::Hlsl => "hlsl",
            Self::Amber => "amber",
        }
    }

    /// The language named `s` (see [`Self::name`]).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == s)
    }

    /// The language a file name says (`.spv`, `.spvasm`, `.wgsl`, `.comp`/`.glsl`, `.hlsl`,
    /// `.amber`).
    pub fn from_path(path: &str) -> Option<Self> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "spv" => Self::SpirvBinary,
            "spvasm" | "spasm" => Self::SpirvAsm,
            "wgsl" => Self::Wgsl,
            "comp" | "glsl" => Self::Glsl,
            "hlsl" => Self::Hlsl,
            "amber" => Self::Amber,
            _ => return None,
        })
    }

    /// The language of `bytes` when the name does not say: a SPIR-V binary by its magic number
    /// (either byte order), AmberScript by its `#!amber` line.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.len() >= 4 {
            let m = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            if m == 0x0723_0203 || m == 0x0302_2307 {
                return Some(Self::SpirvBinary);
            }
        }
        let text = std::str::from_utf8(bytes.get(..bytes.len().min(4096))?).ok()?;
        let first = text.lines().map(str::trim).find(|l| !l.is_empty())?;
        if first.starts_with("#!amber") {
            Some(Self::Amber)
        } else if first.starts_with("; SPIR-V") || first.starts_with("OpCapability") {
            Some(Self::SpirvAsm)
        } else if first.starts_with("#version") {
            Some(Self::Glsl)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_paths_are_recognised() {
        for l in Language::ALL {
            assert_eq!(Language::from_name(l.name()), Some(l));
        }
        assert_eq!(Language::from_path("a/b.WGSL"), Some(Language::Wgsl));
        assert_eq!(Language::from_path("x.comp"), Some(Language::Glsl));
        assert_eq!(Language::from_path("x"), None);
        assert_eq!(
            Language::sniff(&0x0723_0203u32.to_le_bytes()),
            Some(Language::SpirvBinary)
        );
        assert_eq!(Language::sniff(b"\n#!amber\nSHADER"), Some(Language::Amber));
        assert_eq!(Language::sniff(b"#version 450\n"), Some(Language::Glsl));
    }
}
