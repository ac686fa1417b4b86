//! Images, texel formats and samplers as plain data: what an OpTypeImage declares, what the
//! host binds, and how a texel is laid out in memory.

use crate::value::ScalarTy;

/// The handle value of image resource `image` with sampler resource `sampler`: a buffer
/// pointer to the image's resource whose low 32 bits are the sampler's resource + 1 (0: none).
pub fn handle(image: u32, sampler: Option<u32>) -> u64 {
    super::encode_ptr(super::Space::Buffer, image, sampler.map_or(0, |s| s + 1))
}

/// An image's dimensionality (OpTypeImage's Dim).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Dim {
    /// 1D.
    D1,
    /// 2D.
    D2,
    /// 3D.
    D3,
    /// Cube map: six 2D faces.
    Cube,
    /// A texel buffer.
    Buffer,
}

impl Dim {
    /// Coordinates that address a texel, without the array layer.
    pub fn coords(self) -> u32 {
        match self {
            Dim::D1 | Dim::Buffer => 1,
            Dim::D2 | Dim::Cube => 2,
            Dim::D3 => 3,
        }
    }

    /// The name for messages (`1D`, `2D`, `3D`, `cube`, `texel buffer`).
    pub fn name(self) -> &'static str {
        match self {
            Dim::D1 => "1D",
            Dim::D2 => "2D",
            Dim::D3 => "3D",
            Dim::Cube => "cube",
            Dim::Buffer => "texel buffer",
        }
    }
}

/// What an OpTypeImage declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ImageType {
    /// The dimensionality.
    pub dim: Dim,
    /// Whether the image has array layers.
    pub arrayed: bool,
    /// Several samples per texel (a storage image's Sample operand picks one).
    pub multisampled: bool,
    /// 1: used with a sampler (sampled image, uniform texel buffer); 2: storage image or
    /// storage texel buffer; 0: known only at run time.
    pub sampled: u8,
    /// The declared format; `None` for Unknown (the bound image's format is used).
    pub format: Option<TexelFormat>,
    /// The Sampled Type: the component type reads return and writes take.
    pub component: ScalarTy,
}

impl ImageType {
    /// Texel coordinates including the array layer (or a cube's face).
    pub fn coords(&self) -> u32 {
        match self.dim {
            // A storage cube image is addressed by (x, y, face [+ 6 * layer]).
            Dim::Cube => 3,
            d => d.coords() + u32::from(self.arrayed),
        }
    }

    /// What it is for messages: `2D storage image array (rgba8)`.
    pub fn describe(&self) -> String {
        let what = match (self.dim, self.sampled) {
            (Dim::Buffer, 2) => "storage texel buffer".to_string(),
            (Dim::Buffer, _) => "uniform texel buffer".to_string(),
            (d, 2) => format!("{} storage image", d.name()),
            (d, _) => format!("{} sampled image", d.name()),
        };
        let array = match (self.arrayed, self.multisampled) {
            (true, true) => " multisampled array",
            (true, false) => " array",
            (false, true) => " multisampled",
            (false, false) => "",
        };
        match self.format {
            Some(f) => format!("{what}{array} ({})", f.name),
            None => format!("{what}{array}"),
        }
    }
}

/// How a texel's channels are stored and what a read turns them into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ChannelKind {
    /// Unsigned normalised: n bits read as 0.0..=1.0.
    Unorm,
    /// Signed normalised: read as -1.0..=1.0.
    Snorm,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// Floating point.
    Float,
}

/// A texel format: 1 to 4 channels of one width, tightly packed in r, g, b, a order; or a
/// packed format, whose channels share one 32-bit word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct TexelFormat {
    /// The SPIR-V ImageFormat name in lower case (`rgba8`, `r32ui`, `rgba16f`).
    pub name: &'static str,
    /// The SPIR-V ImageFormat value.
    pub spirv: u32,
    /// Number of channels (1 to 4).
    pub channels: u8,
    /// Bits per channel; for a packed format, of the whole texel word.
    pub bits: u8,
    /// How the channels are stored and read.
    pub kind: ChannelKind,
    /// A packed format's channel widths, r from bit 0 up. Its `Float` channels are the
    /// unsigned 11- and 10-bit floats of Vulkan's B10G11R11_UFLOAT_PACK32.
    pub packed: Option<[u8; 4]>,
}

impl TexelFormat {
    /// Bytes per texel (per sample of a multisampled texel).
    pub fn texel_bytes(&self) -> u32 {
        if self.packed.is_some() {
            return u32::from(self.bits) / 8;
        }
        u32::from(self.channels) * u32::from(self.bits) / 8
    }

    /// Bits of channel `c` (0 = r).
    pub fn channel_bits(&self, c: usize) -> u32 {
        match self.packed {
            Some(w) => u32::from(w.get(c).copied().unwrap_or(0)),
            None => u32::from(self.bits),
        }
    }

    /// Channel `c`'s raw bits as a number: normalised channels scaled to their range, floats
    /// (the packed unsigned small floats too) as they are, integers as integers.
    pub fn channel_value(&self, c: usize, raw: u64) -> f64 {
        use crate::value::{mask, sext};
        let b = self.channel_bits(c);
        match self.kind {
            ChannelKind::Unorm => raw as f64 / mask(b) as f64,
            ChannelKind::Snorm => (sext(raw, b) as f64 / mask(b - 1) as f64).max(-1.0),
            ChannelKind::Float if self.packed.is_some() => ufloat_to_f64(raw, b),
            ChannelKind::Float => crate::value::to_f64(raw, b),
            ChannelKind::Sint => sext(raw, b) as f64,
            ChannelKind::Uint => raw as f64,
        }
    }

    /// The leaf of a packed format's whole texel word.
    pub fn word_leaf(&self) -> super::Leaf {
        super::Leaf {
            offset: 0,
            ty: ScalarTy::Int {
                bits: self.bits,
                signed: false,
            },
        }
    }

    /// A packed texel word's channels, r first.
    pub fn unpack(&self, word: u64) -> [u64; 4] {
        let mut out = [0; 4];
        let mut at = 0;
        for (c, o) in out.iter_mut().enumerate().take(usize::from(self.channels)) {
            let b = self.channel_bits(c);
            *o = (word >> at) & ((1u64 << b) - 1);
            at += b;
        }
        out
    }

    /// The packed texel word holding channels `raw` (each already within its width).
    pub fn pack(&self, raw: [u64; 4]) -> u64 {
        let mut word = 0;
        let mut at = 0;
        for (c, r) in raw.iter().enumerate().take(usize::from(self.channels)) {
            let b = self.channel_bits(c);
            word |= (r & ((1u64 << b) - 1)) << at;
            at += b;
        }
        word
    }

    /// The scalar one channel is stored as.
    pub fn channel_ty(&self) -> ScalarTy {
        match self.kind {
            ChannelKind::Float => ScalarTy::Float { bits: self.bits },
            ChannelKind::Sint => ScalarTy::Int {
                bits: self.bits,
                signed: true,
            },
            _ => ScalarTy::Int {
                bits: self.bits,
                signed: false,
            },
        }
    }

    /// Whether reads give integers (and writes take them).
    pub fn is_integer(&self) -> bool {
        matches!(self.kind, ChannelKind::Uint | ChannelKind::Sint)
    }

    /// The format named `name` (the SPIR-V name in lower case; underscores are ignored, so
    /// GLSL's `rgba8_snorm` is `rgba8snorm`).
    pub fn by_name(name: &str) -> Option<Self> {
        let n: String = name
            .chars()
            .filter(|c| *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        FORMATS.iter().copied().find(|f| f.name == n)
    }

    /// The format with SPIR-V ImageFormat value `v`.
    pub fn by_spirv(v: u32) -> Option<Self> {
        FORMATS.iter().copied().find(|f| f.spirv == v)
    }
}

const fn f(
    name: &'static str,
    spirv: u32,
    channels: u8,
    bits: u8,
    kind: ChannelKind,
) -> TexelFormat {
    TexelFormat {
        name,
        spirv,
        channels,
        bits,
        kind,
        packed: None,
    }
}

const fn packed(
    name: &'static str,
    spirv: u32,
    widths: [u8; 4],
    channels: u8,
    kind: ChannelKind,
) -> TexelFormat {
    TexelFormat {
        packed: Some(widths),
        ..f(name, spirv, channels, 32, kind)
    }
}

/// An unsigned small float of `width` bits (5 exponent bits, bias 15, no sign: 11 and 10
/// bits in R11fG11fB10f) as a number.
pub fn ufloat_to_f64(raw: u64, width: u32) -> f64 {
    let m_bits = width - 5;
    let e = (raw >> m_bits) & 31;
    let m = raw & ((1 << m_bits) - 1);
    match e {
        0 => m as f64 * 2f64.powi(-14 - m_bits as i32),
        31 if m == 0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (m + (1 << m_bits)) as f64 * 2f64.powi(e as i32 - 15 - m_bits as i32),
    }
}

/// A number as an unsigned small float of `width` bits, rounded to nearest even: negative
/// numbers and -0 become 0 (as Vulkan converts them), NaN stays NaN, too large is infinity.
pub fn ufloat_from_f64(x: f64, width: u32) -> u64 {
    let m_bits = width - 5;
    let inf = 31u64 << m_bits;
    if x.is_nan() {
        return inf | 1 << (m_bits - 1);
    }
    if x <= 0.0 {
        return 0;
    }
    if x.is_infinite() {
        return inf;
    }
    // Below 2^-14 the steps are 2^(-14 - m_bits); above, the significand has m_bits + 1 bits.
    // Either way the code counts up without a gap, so a carry into the exponent is right.
    let code = if x < 2f64.powi(-14) {
        (x * 2f64.powi(14 + m_bits as i32)).round_ties_even() as u64
    } else {
        let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let sig = (x * 2f64.powi(m_bits as i32 - e)).round_ties_even() as u64;
        (((e + 15) as u64) << m_bits) + sig - (1 << m_bits)
    };
    code.min(inf)
}

use ChannelKind::{Float, Sint, Snorm, Uint, Unorm};

/// The SPIR-V image formats Lanescope stores: all the ImageFormat values of a compute shader.
pub const FORMATS: &[TexelFormat] = &[
    f("rgba32f", 1, 4, 32, Float),
    f("rgba16f", 2, 4, 16, Float),
    f("r32f", 3, 1, 32, Float),
    f("rgba8", 4, 4, 8, Unorm),
    f("rgba8snorm", 5, 4, 8, Snorm),
    f("rg32f", 6, 2, 32, Float),
    f("rg16f", 7, 2, 16, Float),
    f("r16f", 9, 1, 16, Float),
    f("rgba16", 10, 4, 16, Unorm),
    f("rg16", 12, 2, 16, Unorm),
    f("rg8", 13, 2, 8, Unorm),
    f("r16", 14, 1, 16, Unorm),
    f("r8", 15, 1, 8, Unorm),
    f("rgba16snorm", 16, 4, 16, Snorm),
    f("rg16snorm", 17, 2, 16, Snorm),
    f("rg8snorm", 18, 2, 8, Snorm),
    f("r16snorm", 19, 1, 16, Snorm),
    f("r8snorm", 20, 1, 8, Snorm),
    f("rgba32i", 21, 4, 32, Sint),
    f("rgba16i", 22, 4, 16, Sint),
    f("rgba8i", 23, 4, 8, Sint),
    f("r32i", 24, 1, 32, Sint),
    f("rg32i", 25, 2, 32, Sint),
    f("rg16i", 26, 2, 16, Sint),
    f("rg8i", 27, 2, 8, Sint),
    f("r16i", 28, 1, 16, Sint),
    f("r8i", 29, 1, 8, Sint),
    f("rgba32ui", 30, 4, 32, Uint),
    f("rgba16ui", 31, 4, 16, Uint),
    f("rgba8ui", 32, 4, 8, Uint),
    f("r32ui", 33, 1, 32, Uint),
    f("rg32ui", 35, 2, 32, Uint),
    f("rg16ui", 36, 2, 16, Uint),
    f("rg8ui", 37, 2, 8, Uint),
    f("r16ui", 38, 1, 16, Uint),
    f("r8ui", 39, 1, 8, Uint),
    f("r64ui", 40, 1, 64, Uint),
    f("r64i", 41, 1, 64, Sint),
    packed("r11fg11fb10f", 8, [11, 11, 10, 0], 3, Float),
    packed("rgb10a2", 11, [10, 10, 10, 2], 4, Unorm),
    packed("rgb10a2ui", 34, [10, 10, 10, 2], 4, Uint),
];

/// An image the host binds: its format, extent and samples per texel. Texels are tightly
/// packed, x fastest, then rows, then slices (3D) or array layers (`extent[1]` for 1D arrays,
/// `extent[2]` for 2D arrays; a cube has 6 layers per cube); a multisampled texel's samples
/// are consecutive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ImageDesc {
    /// The texel format.
    pub format: TexelFormat,
    /// Texels along x, y and z; array layers (and cube faces) count along the first dimension
    /// the image does not use.
    pub extent: [u32; 3],
    /// Samples per texel (1 unless multisampled).
    pub samples: u32,
}

impl ImageDesc {
    /// A single-sampled image.
    pub fn new(format: TexelFormat, extent: [u32; 3]) -> Self {
        Self {
            format,
            extent,
            samples: 1,
        }
    }

    /// Number of texels (the product of the extent).
    pub fn texels(&self) -> u64 {
        self.extent.iter().map(|e| u64::from(*e)).product()
    }

    /// Size in bytes of all the texels, every sample included.
    pub fn bytes(&self) -> u64 {
        self.texels() * u64::from(self.samples.max(1)) * u64::from(self.format.texel_bytes())
    }
}

/// How a sampler filters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum Filter {
    /// The nearest texel.
    #[default]
    Nearest,
    /// Linear interpolation of the nearest texels.
    Linear,
}

/// What a sampler reads at coordinates outside the image.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum AddressMode {
    /// The nearest edge texel.
    #[default]
    ClampToEdge,
    /// Wraps around.
    Repeat,
    /// Wraps around, mirrored every other repeat.
    MirroredRepeat,
    /// Outside the image: transparent black (0, 0, 0, 0).
    ClampToBorder,
}

/// A sampler the host binds (one filter for magnification and minification: a bound image has
/// one mip level).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SamplerDesc {
    /// Filter for magnification and minification.
    pub filter: Filter,
    /// Addressing outside the image (the same for every coordinate).
    pub address: AddressMode,
    /// Coordinates in texels instead of 0..1.
    pub unnormalized: bool,
}

impl SamplerDesc {
    /// `nearest|linear[,clamp|repeat|mirror|border]`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut s = Self::default();
        for (k, part) in text.split(',').enumerate() {
            match (k, part.trim()) {
                (0, "nearest") => s.filter = Filter::Nearest,
                (0, "linear") => s.filter = Filter::Linear,
                (1, "clamp") => s.address = AddressMode::ClampToEdge,
                (1, "repeat") => s.address = AddressMode::Repeat,
                (1, "mirror") => s.address = AddressMode::MirroredRepeat,
                (1, "border") => s.address = AddressMode::ClampToBorder,
                (2, "unnormalized") => s.unnormalized = true,
                (0, p) => return Err(format!("filter `{p}`: nearest or linear")),
                (1, p) => {
                    return Err(format!(
                        "address mode `{p}`: clamp, repeat, mirror or border"
                    ))
                }
                (_, p) => return Err(format!("`{p}`: a sampler is FILTER,ADDRESS[,unnormalized]")),
            }
        }
        Ok(s)
    }
}

/// What an image instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageOp {
    /// OpImageRead (imageLoad; a storage texel buffer's read).
    Read,
    /// OpImageWrite (imageStore).
    Write,
    /// OpImageFetch (texelFetch): a texel of a sampled image or uniform texel buffer.
    Fetch,
    /// OpImageSample{Explicit,Implicit}Lod (textureLod, texture): filtered by the sampler.
    Sample,
    /// OpImageQuerySize / OpImageQuerySizeLod.
    QuerySize,
    /// OpImageQueryLevels: one level.
    QueryOne,
    /// OpImageQuerySamples: the bound image's samples per texel.
    QuerySamples,
    /// OpImageTexelPointer: a pointer to one texel, for image atomics.
    TexelPointer,
    /// OpSampledImage: an image with a sampler (`value` holds the sampler).
    Combine,
    /// OpImage: the image of a sampled image.
    Extract,
}

/// An image instruction's operands: register slots and their shapes.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageInst {
    /// What it does.
    pub op: ImageOp,
    /// The result (`u32::MAX`: none) and its component count and type.
    pub dst: u32,
    /// Components of the result.
    pub n: u32,
    /// The result's component type.
    pub result: ScalarTy,
    /// The slot holding the image (or sampled image) handle.
    pub image: u32,
    /// Coordinates: slot, component count, component type (`u32::MAX`: none).
    pub coord: u32,
    /// Components of the coordinates.
    pub coord_n: u32,
    /// The coordinates' component type.
    pub coord_ty: ScalarTy,
    /// The texel a write stores, or the sampler of OpSampledImage: slot, count, type.
    pub value: u32,
    /// Components of `value`.
    pub value_n: u32,
    /// `value`'s component type.
    pub value_ty: ScalarTy,
    /// The Lod operand: slot and type.
    pub lod: Option<(u32, ScalarTy)>,
    /// The Sample operand (multisampled images): slot and type.
    pub sample: Option<(u32, ScalarTy)>,
    /// ConstOffset / Offset: slot, component count, type.
    pub offset: Option<(u32, u32, ScalarTy)>,
    /// The type of the image operand.
    pub ty: ImageType,
}

/// Linear filtering's weights quantized to `bits` fractional bits, rounded down or (`up`) up:
/// the least precision Vulkan lets a device's sampler use is its
/// `VkPhysicalDeviceLimits::subTexelPrecisionBits`; and a normalized format's filtered value
/// moved one step of the format the same way (a device may filter in the format's own
/// precision). The device comparison runs the simulation with it both ways to bound what
/// filtering may leave in a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SubTexel {
    /// Fractional bits kept of each weight.
    pub bits: u8,
    /// Rounded up (else down).
    pub up: bool,
}

impl SubTexel {
    /// Weight `w` (in 0..1) quantized.
    pub fn quantize(self, w: f64) -> f64 {
        let q = f64::from(1u32 << self.bits.min(30));
        if self.up {
            (w * q).ceil() / q
        } else {
            (w * q).floor() / q
        }
    }
}
