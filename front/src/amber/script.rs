//! A parsed AmberScript: what the runner executes. Indices (`shader`, `buffer`, `pipeline`)
//! point into the script's lists.

use super::types::{Format, Value};
use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::{SiblingOrder, SpecValue, SwitchTangles};

#[derive(Clone, Debug, Default)]
pub struct Script {
    pub shaders: Vec<Shader>,
    pub buffers: Vec<Buffer>,
    pub pipelines: Vec<Pipeline>,
    /// Top-level commands in script order.
    pub commands: Vec<Command>,
    pub requirements: Vec<Requirement>,
    /// The first construct Lanescope does not simulate; parsing stops there and running the
    /// script skips it.
    pub unsupported: Option<Unsupported>,
    /// Lanescope's settings from `# lanescope:` comments.
    pub settings: Settings,
    /// Things accepted but ignored (a `SHADER_OPTIMIZATION` block), each naming its line.
    pub notes: Vec<String>,
}

impl Script {
    pub fn buffer_index(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }

    pub fn shader_index(&self, name: &str) -> Option<usize> {
        self.shaders.iter().position(|s| s.name == name)
    }

    pub fn pipeline_index(&self, name: &str) -> Option<usize> {
        self.pipelines.iter().position(|p| p.name == name)
    }
}

/// What the script uses that Lanescope does not simulate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    pub line: usize,
    pub what: String,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unsupported (skipped): {} at line {}",
            self.what, self.line
        )
    }
}

/// A shader's source language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShaderFormat {
    Glsl,
    SpirvAsm,
    /// Hex bytes of a SPIR-V binary (decoded here, never compiled).
    SpirvHex,
}

impl ShaderFormat {
    /// The word scripts use (`GLSL`, `SPIRV-ASM`, `SPIRV-HEX`).
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Glsl => "GLSL",
            Self::SpirvAsm => "SPIRV-ASM",
            Self::SpirvHex => "SPIRV-HEX",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Shader {
    pub name: String,
    pub line: usize,
    pub format: ShaderFormat,
    pub source: String,
    /// Line of the script where the source's first line is (for compiler messages).
    pub source_line: usize,
    pub target_env: Option<String>,
}

/// A buffer as declared: its format and initial bytes (element count × stride).
#[derive(Clone, Debug)]
pub struct Buffer {
    pub name: String,
    pub line: usize,
    pub format: Format,
    pub bytes: Vec<u8>,
}

#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    pub name: String,
    pub line: usize,
    pub attach: Option<Attach>,
    pub binds: Vec<Bind>,
    /// The buffer bound `AS push_constant`.
    pub push_constant: Option<usize>,
    /// `SUBGROUP` settings, for the shader they name.
    pub subgroup: Vec<(usize, SubgroupControl)>,
}

impl Pipeline {
    /// The subgroup settings of the attached shader.
    pub fn subgroup_control(&self) -> SubgroupControl {
        let Some(a) = &self.attach else {
            return SubgroupControl::default();
        };
        self.subgroup
            .iter()
            .find(|(s, _)| *s == a.shader)
            .map(|(_, c)| *c)
            .unwrap_or_default()
    }
}

/// `ATTACH`: the compute shader, its entry point and specialization.
#[derive(Clone, Debug)]
pub struct Attach {
    pub line: usize,
    pub shader: usize,
    pub entry: Option<String>,
    /// `SPECIALIZE id AS type value`, in order (a later one for the same id wins).
    pub spec: Vec<(u32, SpecValue)>,
}

/// `SUBGROUP shader ... END` (VK_EXT_subgroup_size_control).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubgroupControl {
    pub required_size: Option<RequiredSize>,
    pub fully_populated: bool,
    pub varying_size: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequiredSize {
    Size(u32),
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindKind {
    Storage,
    Uniform,
    StorageDynamic,
    UniformDynamic,
}

impl BindKind {
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Storage => "storage",
            Self::Uniform => "uniform",
            Self::StorageDynamic => "storage_dynamic",
            Self::UniformDynamic => "uniform_dynamic",
        }
    }
}

/// `BIND BUFFER ... DESCRIPTOR_SET s BINDING b`: the shader sees the buffer's bytes from
/// `dynamic_offset + descriptor_offset`, `range` of them (to the end when `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bind {
    pub line: usize,
    pub buffer: usize,
    pub kind: BindKind,
    pub set: u32,
    pub binding: u32,
    pub dynamic_offset: u64,
    pub descriptor_offset: u64,
    pub range: Option<u64>,
}

impl Bind {
    pub fn offset(&self) -> u64 {
        self.dynamic_offset.saturating_add(self.descriptor_offset)
    }
}

#[derive(Clone, Debug)]
pub enum Command {
    Run {
        line: usize,
        pipeline: usize,
        groups: [u32; 3],
    },
    Expect(Expect),
    Copy {
        line: usize,
        from: usize,
        to: usize,
    },
    /// `CLEAR buffer`: zeroes the buffer (amber's `CLEAR` of a graphics pipeline is
    /// unsupported).
    Clear {
        line: usize,
        buffer: usize,
    },
    Repeat {
        line: usize,
        count: u32,
        body: Vec<Command>,
    },
    /// VkScript's `ssbo B N`: the buffer becomes `len` bytes (cut or zero-extended).
    Resize {
        line: usize,
        buffer: usize,
        len: u64,
    },
    /// VkScript's `subdata` and `uniform`: bytes written at `offset`, the buffer growing to
    /// hold them.
    Write {
        line: usize,
        buffer: usize,
        offset: usize,
        bytes: Vec<u8>,
    },
}

#[derive(Clone, Debug)]
pub struct Expect {
    pub line: usize,
    pub buffer: usize,
    pub check: Check,
}

#[derive(Clone, Debug)]
pub enum Check {
    /// `IDX offset [TOLERANCE ...] OP values...`: `offset` in bytes, values in the buffer's
    /// format from there on.
    Values {
        offset: u64,
        op: Cmp,
        tolerance: Vec<Tolerance>,
        values: Vec<Value>,
    },
    EqBuffer(usize),
    Rmse {
        other: usize,
        tolerance: f64,
    },
    HistogramEmd {
        other: usize,
        tolerance: f64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "EQ" => Self::Eq,
            "NE" => Self::Ne,
            "LT" => Self::Lt,
            "LE" => Self::Le,
            "GT" => Self::Gt,
            "GE" => Self::Ge,
            _ => return None,
        })
    }

    pub fn keyword(self) -> &'static str {
        match self {
            Self::Eq => "EQ",
            Self::Ne => "NE",
            Self::Lt => "LT",
            Self::Le => "LE",
            Self::Gt => "GT",
            Self::Ge => "GE",
        }
    }
}

/// A `TOLERANCE` value: absolute, or with `%` relative to the expected value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub value: f64,
    pub percent: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequirementKind {
    DeviceFeature,
    DeviceExtension,
    InstanceExtension,
    DeviceProperty,
}

impl RequirementKind {
    pub fn keyword(self) -> &'static str {
        match self {
            Self::DeviceFeature => "DEVICE_FEATURE",
            Self::DeviceExtension => "DEVICE_EXTENSION",
            Self::InstanceExtension => "INSTANCE_EXTENSION",
            Self::DeviceProperty => "DEVICE_PROPERTY",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    pub line: usize,
    pub kind: RequirementKind,
    pub name: String,
}

/// Lanescope's own settings, saved in a script as `# lanescope: key=value ...` comment lines.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub subgroup_size: Option<u32>,
    pub switch_tangles: Option<SwitchTangles>,
    pub sibling_order: Option<SiblingOrder>,
    pub coopmat_layout: Option<LayoutChoice>,
}

impl Settings {
    pub fn is_empty(&self) -> bool {
        self.subgroup_size.is_none()
            && self.switch_tangles.is_none()
            && self.sibling_order.is_none()
            && self.coopmat_layout.is_none()
    }
}
