//! A parsed AmberScript: what the runner executes. Indices (`shader`, `buffer`, `pipeline`)
//! point into the script's lists.

mod commands;

pub use commands::{Check, Cmp, Command, Expect, Tolerance};

use super::types::Format;
use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::program::image::{AddressMode, Filter, SamplerDesc};
use lanescope_core::{SiblingOrder, SpecValue, SwitchTangles};

/// A whole script: what it declares, each list in declaration order, and its commands.
#[derive(Clone, Debug, Default)]
pub struct Script {
    /// `SHADER`s (VkScript's shader sections).
    pub shaders: Vec<Shader>,
    /// Buffers and images (an `IMAGE` is a buffer with an [`Image`] shape, as in amber).
    pub buffers: Vec<Buffer>,
    /// `SAMPLER`s.
    pub samplers: Vec<Sampler>,
    /// `PIPELINE`s and `DERIVE_PIPELINE`s.
    pub pipelines: Vec<Pipeline>,
    /// Top-level commands in script order.
    pub commands: Vec<Command>,
    /// `DEVICE_FEATURE`, `DEVICE_EXTENSION`, `INSTANCE_EXTENSION` and `DEVICE_PROPERTY`
    /// requirements, checked against the `device` table before any command runs.
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
    /// The index in [`Script::buffers`] of the buffer or image named `name`.
    pub fn buffer_index(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }

    /// The index in [`Script::samplers`] of the sampler named `name`.
    pub fn sampler_index(&self, name: &str) -> Option<usize> {
        self.samplers.iter().position(|s| s.name == name)
    }

    /// The index in [`Script::shaders`] of the shader named `name`.
    pub fn shader_index(&self, name: &str) -> Option<usize> {
        self.shaders.iter().position(|s| s.name == name)
    }

    /// The index in [`Script::pipelines`] of the pipeline named `name`.
    pub fn pipeline_index(&self, name: &str) -> Option<usize> {
        self.pipelines.iter().position(|p| p.name == name)
    }
}

/// What the script uses that Lanescope does not simulate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The script line of the construct (1-based).
    pub line: usize,
    /// The construct, and why it is not simulated where that helps, as the skip message
    /// names it.
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
    /// `GLSL` source, compiled by the caller's `Compile`.
    Glsl,
    /// `SPIRV-ASM`: SPIR-V assembly text, assembled by the caller's `Compile`.
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

/// `SHADER compute name FORMAT [TARGET_ENV env]`, its source inline up to `END` or from a
/// `FILE` or `VIRTUAL_FILE`.
#[derive(Clone, Debug)]
pub struct Shader {
    /// The name `ATTACH` and `SUBGROUP` refer to it by (`vk_shader_N` in VkScript).
    pub name: String,
    /// The script line of the `SHADER` command.
    pub line: usize,
    /// The source's language.
    pub format: ShaderFormat,
    /// The source text; for `SPIRV-HEX` the hex bytes (a `SPIRV-BIN` file becomes such text).
    pub source: String,
    /// Line of the script where the source's first line is (for compiler messages).
    pub source_line: usize,
    /// The `TARGET_ENV` word (`spv1.3`, `vulkan1.1` ...), handed to the compiler as written;
    /// `None` when the script gives none.
    pub target_env: Option<String>,
}

/// A buffer as declared: its format and initial bytes (element count × stride; an image's
/// texels, x fastest, then rows, then slices, each texel's samples consecutive).
#[derive(Clone, Debug)]
pub struct Buffer {
    /// The name commands and `BIND`s refer to it by.
    pub name: String,
    /// The script line of the `BUFFER` or `IMAGE` command.
    pub line: usize,
    /// The element type and layout (`DATA_TYPE t [STD140|STD430]` or `FORMAT f`).
    pub format: Format,
    /// The initial contents, as laid out above.
    pub bytes: Vec<u8>,
    /// The shape of an `IMAGE` (or of a `BUFFER ... WIDTH w HEIGHT h`, a 2D image): what it
    /// binds as `AS storage_image`, `sampled_image` or `combined_image_sampler`, and what
    /// `EXPECT ... IDX x y SIZE w h` reads.
    pub image: Option<Image>,
}

/// An image's dimensionality (`DIM_1D`, `DIM_2D`, `DIM_3D`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageDim {
    /// `DIM_1D`: a width.
    D1,
    /// `DIM_2D` (an `IMAGE`'s default): a width and a height.
    D2,
    /// `DIM_3D`: a width, a height and a depth.
    D3,
}

impl ImageDim {
    /// The word scripts use (`DIM_1D`, `DIM_2D`, `DIM_3D`).
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
    /// How many coordinates address a texel.
    pub dim: ImageDim,
    /// Width, height and depth in texels.
    pub extent: [u32; 3],
    /// `SAMPLES` (1, 2, 4 ... 64); 1 unless the image is multisampled.
    pub samples: u32,
}

impl Image {
    /// Texels in the image, width × height × depth (samples not counted), saturating.
    pub fn texels(&self) -> u64 {
        self.extent
            .iter()
            .fold(1u64, |n, e| n.saturating_mul(u64::from(*e)))
    }
}

/// A sampler address mode as scripts name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplerAddress {
    /// `repeat` (amber's default).
    Repeat,
    /// `mirrored_repeat`.
    MirroredRepeat,
    /// `clamp_to_edge`.
    ClampToEdge,
    /// `clamp_to_border`: reads outside the image give the `BORDER_COLOR`.
    ClampToBorder,
    /// `mirrored_clamp_to_edge`: parsed, not simulated (a sampler using it is skipped where
    /// it is bound).
    MirrorClampToEdge,
}

impl SamplerAddress {
    /// Every mode, to find one by its keyword.
    pub const ALL: [Self; 5] = [
        Self::Repeat,
        Self::MirroredRepeat,
        Self::ClampToEdge,
        Self::ClampToBorder,
        Self::MirrorClampToEdge,
    ];

    /// The word scripts use after `ADDRESS_MODE_U`, `_V` or `_W`.
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
    /// The name `BIND SAMPLER` and `combined_image_sampler` bindings refer to it by.
    pub name: String,
    /// The script line of the `SAMPLER` command.
    pub line: usize,
    /// `MAG_FILTER` (`nearest` or `linear`).
    pub mag_filter: Filter,
    /// `MIN_FILTER`; the simulator's samplers need it equal to `mag_filter`.
    pub min_filter: Filter,
    /// U, V, W.
    pub address: [SamplerAddress; 3],
    /// The `BORDER_COLOR` keyword (`float_transparent_black` ...).
    pub border: String,
    /// `MIN_LOD` (0 for `UNNORMALIZED_COORDS`); unused, as bound images have one mip level.
    pub min_lod: f64,
    /// `MAX_LOD`, at least `min_lod` (0 for `UNNORMALIZED_COORDS`); unused like it.
    pub max_lod: f64,
    /// Coordinates from 0 to 1 (`NORMALIZED_COORDS`); `false` for texel coordinates
    /// (`UNNORMALIZED_COORDS`).
    pub normalized: bool,
    /// `COMPARE on` (depth comparison): not simulated, so the sampler is skipped where it is
    /// bound. `COMPARE_OP` is checked and not kept.
    pub compare: bool,
}

impl Sampler {
    /// The sampler `name` declared at `line`, with amber's defaults.
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

/// `PIPELINE compute name ... END`, or `DERIVE_PIPELINE name FROM parent ... END` (a copy of
/// the parent, then changed): the shader, what is bound, the subgroup settings.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    /// The name `RUN` and `DERIVE_PIPELINE` refer to it by.
    pub name: String,
    /// The script line of the `PIPELINE` or `DERIVE_PIPELINE` command.
    pub line: usize,
    /// The compute shader; `None` when nothing is attached (running the pipeline is an error).
    pub attach: Option<Attach>,
    /// `BIND BUFFER`s, and one per element of a `BIND BUFFER_ARRAY`; a later `BIND` at the
    /// same set and binding replaces what was there.
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
    /// The script line of the `BIND`.
    pub line: usize,
    /// The index in [`Script::samplers`].
    pub sampler: usize,
    /// The `DESCRIPTOR_SET` it is bound in.
    pub set: u32,
    /// The `BINDING` it is bound at.
    pub binding: u32,
    /// Coordinates of the images it samples (1 to 3): the axes whose address modes count.
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
    /// The script line of the `BIND SAMPLER`.
    pub line: usize,
    /// The index in [`Script::samplers`].
    pub sampler: usize,
    /// The `DESCRIPTOR_SET` it is bound in.
    pub set: u32,
    /// The `BINDING` it is bound at.
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
    /// The script line of the `ATTACH`.
    pub line: usize,
    /// The index in [`Script::shaders`].
    pub shader: usize,
    /// `ENTRY_POINT`; `None` means `main`.
    pub entry: Option<String>,
    /// `SPECIALIZE id AS type value`, in order (a later one for the same id wins).
    pub spec: Vec<(u32, SpecValue)>,
}

/// `SUBGROUP shader ... END` (VK_EXT_subgroup_size_control).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubgroupControl {
    /// `REQUIRED_SIZE`: the subgroup size the shader runs at; `None` leaves the run's
    /// configured size.
    pub required_size: Option<RequiredSize>,
    /// `FULLY_POPULATED on`: every subgroup full. A workgroup whose `local_size_x` is not a
    /// multiple of the subgroup size still runs (its last subgroup partial), with a note.
    pub fully_populated: bool,
    /// `VARYING_SIZE on`: the subgroup size may vary. Read and not used: a run has one
    /// subgroup size.
    pub varying_size: bool,
}

/// The size `REQUIRED_SIZE` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequiredSize {
    /// A number of invocations; the script is skipped unless it is a power of two from 4
    /// to 128.
    Size(u32),
    /// `MIN`: the smallest size Lanescope runs, 4.
    Min,
    /// `MAX`: the largest size Lanescope runs, 128.
    Max,
}

/// What `BIND BUFFER ... AS kind` binds a buffer as (`storage` when there is no `AS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindKind {
    /// `storage`: a storage buffer.
    Storage,
    /// `uniform`: a uniform buffer.
    Uniform,
    /// `storage_dynamic`: a storage buffer at a dynamic `OFFSET`.
    StorageDynamic,
    /// `uniform_dynamic`: a uniform buffer at a dynamic `OFFSET`.
    UniformDynamic,
    /// `storage_image`: an image the shader reads and writes.
    StorageImage,
    /// `sampled_image`: an image read through a sampler bound on its own.
    SampledImage,
    /// With the sampler [`Bind::sampler`] names.
    CombinedImageSampler,
    /// `uniform_texel_buffer`: the buffer's elements read as texels.
    UniformTexelBuffer,
    /// `storage_texel_buffer`: the buffer's elements read and written as texels.
    StorageTexelBuffer,
}

impl BindKind {
    /// Every kind, to find one by its keyword.
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

    /// The word after `AS`.
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

    /// A uniform or storage texel buffer: an image with no extent to declare.
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
    /// The script line of the `BIND`.
    pub line: usize,
    /// The index in [`Script::buffers`].
    pub buffer: usize,
    /// What the buffer is bound as.
    pub kind: BindKind,
    /// `DESCRIPTOR_SET`.
    pub set: u32,
    /// `BINDING`.
    pub binding: u32,
    /// The element of a descriptor array (`BIND BUFFER_ARRAY`); 0 otherwise.
    pub element: u32,
    /// `OFFSET` of a dynamic buffer, in bytes; 0 for other kinds.
    pub dynamic_offset: u64,
    /// `DESCRIPTOR_OFFSET` in bytes; 0 when not given.
    pub descriptor_offset: u64,
    /// `DESCRIPTOR_RANGE` in bytes; `None` when not given or -1 (`VK_WHOLE_SIZE`).
    pub range: Option<u64>,
    /// The sampler of a `combined_image_sampler`.
    pub sampler: Option<usize>,
}

impl Bind {
    /// Where the shader's view starts in the buffer: `dynamic_offset + descriptor_offset`
    /// (saturating).
    pub fn offset(&self) -> u64 {
        self.dynamic_offset.saturating_add(self.descriptor_offset)
    }
}

/// The command a requirement is declared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequirementKind {
    /// `DEVICE_FEATURE` (`shaderInt64`, `Storage8BitFeatures.storageBuffer8BitAccess` ...).
    DeviceFeature,
    /// `DEVICE_EXTENSION` (`VK_KHR_...`).
    DeviceExtension,
    /// `INSTANCE_EXTENSION`.
    InstanceExtension,
    /// `DEVICE_PROPERTY` (`FloatControlsProperties.shaderDenormPreserveFloat32` ...).
    DeviceProperty,
}

impl RequirementKind {
    /// The command's word.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::DeviceFeature => "DEVICE_FEATURE",
            Self::DeviceExtension => "DEVICE_EXTENSION",
            Self::InstanceExtension => "INSTANCE_EXTENSION",
            Self::DeviceProperty => "DEVICE_PROPERTY",
        }
    }
}

/// Something the script requires of the device; the script is skipped when Lanescope does not
/// offer it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The script line of the command.
    pub line: usize,
    /// Feature, extension or property.
    pub kind: RequirementKind,
    /// The name as written.
    pub name: String,
}

/// Lanescope's own settings, saved in a script as `# lanescope: key=value ...` comment lines.
/// Each is `None` when not given, which leaves the run's own setting.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// `subgroup-size=N`: the subgroup size of pipelines that require none (a power of two
    /// from 4 to 128).
    pub subgroup_size: Option<u32>,
    /// `switch-tangles=...`: how the invocations that take a switch are grouped into tangles.
    pub switch_tangles: Option<SwitchTangles>,
    /// `sibling-order=...`: which of a subgroup's runnable tangles runs first.
    pub sibling_order: Option<SiblingOrder>,
    /// `coopmat-layout=...`: the cooperative-matrix layout, by a built-in layout's name.
    pub coopmat_layout: Option<LayoutChoice>,
}

impl Settings {
    /// No setting is given (there is no `# lanescope:` line to write).
    pub fn is_empty(&self) -> bool {
        self.subgroup_size.is_none()
            && self.switch_tangles.is_none()
            && self.sibling_order.is_none()
            && self.coopmat_layout.is_none()
    }
}
