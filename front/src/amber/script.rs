//! A parsed AmberScript: what the runner executes. Indices (`shader`, `buffer`, `pipeline`)
//! point into the script's lists.

use super::types::{Format, Value};
use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::program::image::{AddressMode, Filter, SamplerDesc};
use lanescope_core::{SiblingOrder, SpecValue, SwitchTangles};

#[derive(Clone, Debug, Default)]
pub struct Script {
    pub shaders: Vec<Shader>,
    /// Buffers and images (an `IMAGE` is a buffer with an [`Image`] shape, as in amber).
    pub buffers: Vec<Buffer>,
    pub samplers: Vec<Sampler>,
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

    pub fn sampler_index(&self, name: &str) -> Option<usize> {
        self.samplers.iter().position(|s| s.name == name)
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

/// A buffer as declared: its format and initial bytes (element count × stride; an image's
/// texels, x fastest, then rows, then slices, each texel's samples consecutive).
#[derive(Clone, Debug)]
pub struct Buffer {
    pub name: String,
    pub line: usize,
    pub format: Format,
    pub bytes: Vec<u8>,
    /// The shape of an `IMAGE` (or of a `BUFFER ... WIDTH w HEIGHT h`, a 2D image): what it
    /// binds as `AS storage_image`, `sampled_image` or `combined_image_sampler`, and what
    /// `EXPECT ... IDX x y SIZE w h` reads.
    pub image: Option<Image>,
}

/// An image's dimensionality (`DIM_1D`, `DIM_2D`, `DIM_3D`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageDim {
    D1,
    D2,
    D3,
}

impl ImageDim {
    pub fn keyword(self) -> &'static str {
        match self {
            Self::D1 => "DIM_1D",
            Self::D2 => "DIM_2D",
            Self::D3 => "DIM_3D",
        }
    }

    /// Coordinates that address a texel.
    pub fn coords(self) -> usize {
        match self {
            Self::D1 => 1,
            Self::D2 => 2,
            Self::D3 => 3,
        }
    }
}

/// An image's shape: its extent (1 where a dimension has none) and samples per texel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Image {
    pub dim: ImageDim,
    pub extent: [u32; 3],
    pub samples: u32,
}

impl Image {
    pub fn texels(&self) -> u64 {
        self.extent
            .iter()
            .fold(1u64, |n, e| n.saturating_mul(u64::from(*e)))
    }
}

/// A sampler address mode as scripts name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplerAddress {
    Repeat,
    MirroredRepeat,
    ClampToEdge,
    ClampToBorder,
    MirrorClampToEdge,
}

impl SamplerAddress {
    pub const ALL: [Self; 5] = [
        Self::Repeat,
        Self::MirroredRepeat,
        Self::ClampToEdge,
        Self::ClampToBorder,
        Self::MirrorClampToEdge,
    ];

    pub fn keyword(self) -> &'static str {
        match self {
            Self::Repeat => "repeat",
            Self::MirroredRepeat => "mirrored_repeat",
            Self::ClampToEdge => "clamp_to_edge",
            Self::ClampToBorder => "clamp_to_border",
            Self::MirrorClampToEdge => "mirrored_clamp_to_edge",
        }
    }

    fn mode(self) -> Option<AddressMode> {
        Some(match self {
            Self::Repeat => AddressMode::Repeat,
            Self::MirroredRepeat => AddressMode::MirroredRepeat,
            Self::ClampToEdge => AddressMode::ClampToEdge,
            Self::ClampToBorder => AddressMode::ClampToBorder,
            Self::MirrorClampToEdge => return None,
        })
    }
}

/// `SAMPLER name ...`, as amber defaults it (nearest filtering, repeat on every axis,
/// transparent black border, normalized coordinates, LOD 0 to 1, no comparison).
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    pub name: String,
    pub line: usize,
    pub mag_filter: Filter,
    pub min_filter: Filter,
    /// U, V, W.
    pub address: [SamplerAddress; 3],
    /// The `BORDER_COLOR` keyword (`float_transparent_black` ...).
    pub border: String,
    pub min_lod: f64,
    pub max_lod: f64,
    pub normalized: bool,
    pub compare: bool,
}

impl Sampler {
    pub fn new(name: String, line: usize) -> Self {
        Self {
            name,
            line,
            mag_filter: Filter::Nearest,
            min_filter: Filter::Nearest,
            address: [SamplerAddress::Repeat; 3],
            border: "float_transparent_black".into(),
            min_lod: 0.0,
            max_lod: 1.0,
            normalized: true,
            compare: false,
        }
    }

    /// What the simulator samples with when the sampler reads images of `axes` coordinates,
    /// or what it asks for that the simulator's samplers do not do (one filter for
    /// magnification and minification, one address mode for every axis, a transparent black
    /// border, no depth comparison). LODs need nothing: bound images have one mip level.
    pub fn desc(&self, axes: usize) -> Result<SamplerDesc, String> {
        let name = format!("`{}` (line {})", self.name, self.line);
        if self.compare {
            return Err(format!("SAMPLER {name} with COMPARE on (depth comparison)"));
        }
        let filter_name = |f: Filter| match f {
            Filter::Nearest => "nearest",
            Filter::Linear => "linear",
        };
        if self.mag_filter != self.min_filter {
            return Err(format!(
                "SAMPLER {name} with MAG_FILTER {} and MIN_FILTER {} (Lanescope's samplers filter both the same way)",
                filter_name(self.mag_filter),
                filter_name(self.min_filter)
            ));
        }
        let used = &self.address[..axes.clamp(1, 3)];
        if let Some(k) = used.iter().position(|a| *a != used[0]) {
            return Err(format!(
                "SAMPLER {name} with ADDRESS_MODE_U {} and ADDRESS_MODE_{} {} (Lanescope's samplers address every axis the same way)",
                used[0].keyword(),
                ["U", "V", "W"][k],
                used[k].keyword()
            ));
        }
        let Some(address) = used[0].mode() else {
            return Err(format!(
                "SAMPLER {name} with address mode {} (not simulated)",
                used[0].keyword()
            ));
        };
        if address == AddressMode::ClampToBorder && !self.border.ends_with("transparent_black") {
            return Err(format!(
                "SAMPLER {name} with BORDER_COLOR {} (Lanescope's border is transparent black)",
                self.border
            ));
        }
        Ok(SamplerDesc {
            filter: self.mag_filter,
            address,
            unnormalized: !self.normalized,
        })
    }
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
    /// `BIND SAMPLER`s.
    pub samplers: Vec<SamplerBind>,
}

/// A sampler a pipeline binds, where, and the coordinates of the images it samples (those of
/// its image for a combined image sampler; for a sampler alone, the most of the pipeline's
/// sampled images).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerUse {
    pub line: usize,
    pub sampler: usize,
    pub set: u32,
    pub binding: u32,
    pub axes: usize,
}

impl Pipeline {
    /// Drops what is bound at (set, binding), before a new BIND there.
    pub fn unbind(&mut self, set: u32, binding: u32) {
        self.binds.retain(|o| (o.set, o.binding) != (set, binding));
        self.samplers
            .retain(|o| (o.set, o.binding) != (set, binding));
    }

    /// Every sampler the pipeline binds; `buffers` are the script's.
    pub fn sampler_uses(&self, buffers: &[Buffer]) -> Vec<SamplerUse> {
        let axes_of = |buffer: usize| {
            buffers
                .get(buffer)
                .and_then(|b| b.image)
                .map_or(2, |i| i.dim.coords())
        };
        let sampled = self
            .binds
            .iter()
            .filter(|b| b.kind == BindKind::SampledImage)
            .map(|b| axes_of(b.buffer))
            .max()
            .unwrap_or(1);
        self.binds
            .iter()
            .filter_map(|b| {
                Some(SamplerUse {
                    line: b.line,
                    sampler: b.sampler?,
                    set: b.set,
                    binding: b.binding,
                    axes: axes_of(b.buffer),
                })
            })
            .chain(self.samplers.iter().map(|s| SamplerUse {
                line: s.line,
                sampler: s.sampler,
                set: s.set,
                binding: s.binding,
                axes: sampled,
            }))
            .collect()
    }
}

/// `BIND SAMPLER name DESCRIPTOR_SET s BINDING b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplerBind {
    pub line: usize,
    pub sampler: usize,
    pub set: u32,
    pub binding: u32,
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
    StorageImage,
    SampledImage,
    /// With the sampler [`Bind::sampler`] names.
    CombinedImageSampler,
    UniformTexelBuffer,
    StorageTexelBuffer,
}

impl BindKind {
    pub const ALL: [Self; 9] = [
        Self::Storage,
        Self::Uniform,
        Self::StorageDynamic,
        Self::UniformDynamic,
        Self::StorageImage,
        Self::SampledImage,
        Self::CombinedImageSampler,
        Self::UniformTexelBuffer,
        Self::StorageTexelBuffer,
    ];

    /// The kind `AS word` names.
    pub fn from_keyword(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.keyword() == word)
    }

    pub fn keyword(self) -> &'static str {
        match self {
            Self::Storage => "storage",
            Self::Uniform => "uniform",
            Self::StorageDynamic => "storage_dynamic",
            Self::UniformDynamic => "uniform_dynamic",
            Self::StorageImage => "storage_image",
            Self::SampledImage => "sampled_image",
            Self::CombinedImageSampler => "combined_image_sampler",
            Self::UniformTexelBuffer => "uniform_texel_buffer",
            Self::StorageTexelBuffer => "storage_texel_buffer",
        }
    }

    /// Bound as an image: the whole buffer, its elements the texels.
    pub fn is_image(self) -> bool {
        !matches!(
            self,
            Self::Storage | Self::Uniform | Self::StorageDynamic | Self::UniformDynamic
        )
    }

    pub fn is_texel_buffer(self) -> bool {
        matches!(self, Self::UniformTexelBuffer | Self::StorageTexelBuffer)
    }

    /// Written by the shader (a storage image or storage texel buffer), not sampled.
    pub fn is_storage_image(self) -> bool {
        matches!(self, Self::StorageImage | Self::StorageTexelBuffer)
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
    /// The element of a descriptor array (`BIND BUFFER_ARRAY`); 0 otherwise.
    pub element: u32,
    pub dynamic_offset: u64,
    pub descriptor_offset: u64,
    pub range: Option<u64>,
    /// The sampler of a `combined_image_sampler`.
    pub sampler: Option<usize>,
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
    /// `IDX x y SIZE w h EQ_RGB r g b` / `EQ_RGBA r g b a` on an image's first slice: every
    /// texel's channels, read as amber reads them (normalized channels scaled to 0..1, others
    /// as they are), within the tolerance (0.002 by default) of the values / 255.
    Rgba {
        region: [u32; 4],
        rgba: bool,
        values: [u8; 4],
        tolerance: Vec<Tolerance>,
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
