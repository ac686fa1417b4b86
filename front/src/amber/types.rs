//! Buffer data types and how amber lays them out: `uint32`, `vec3<float>`, `mat4x3<double>`,
//! `int8[]`, Vulkan format names used as types (`R32G32B32A32_SFLOAT`), under `STD430` (the
//! default) or `STD140`.
//!
//! Amber describes one element of a buffer as a list of segments, values and padding; the
//! buffer is that element repeated. Its rules (`src/format.cc`): a 3-row vector or matrix column
//! pads to 4 components in both layouts; under `STD140` every matrix column and every element
//! of an array type (`T[]`) pads to 4 components as well. Values are read from scripts in that
//! order, padding skipped.

use lanescope_core::float::{self, Format as FloatFormat, Round};
use lanescope_core::program::image::TexelFormat;

/// A component type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `int8`: a signed 8-bit integer.
    I8,
    /// `int16`: a signed 16-bit integer.
    I16,
    /// `int32`: a signed 32-bit integer.
    I32,
    /// `int64`: a signed 64-bit integer.
    I64,
    /// `uint8`: an unsigned 8-bit integer.
    U8,
    /// `uint16`: an unsigned 16-bit integer.
    U16,
    /// `uint32`: an unsigned 32-bit integer.
    U32,
    /// `uint64`: an unsigned 64-bit integer.
    U64,
    /// `float16`: an IEEE half-precision float.
    F16,
    /// `float`: an IEEE single-precision float.
    F32,
    /// `double`: an IEEE double-precision float.
    F64,
}

impl Scalar {
    /// Every component type, to find one by its name.
    pub const ALL: [Self; 11] = [
        Self::I8,
        Self::I16,
        Self::I32,
        Self::I64,
        Self::U8,
        Self::U16,
        Self::U32,
        Self::U64,
        Self::F16,
        Self::F32,
        Self::F64,
    ];

    /// Bytes one component takes.
    pub fn bytes(self) -> usize {
        match self {
            Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 | Self::F16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::I64 | Self::U64 | Self::F64 => 8,
        }
    }

    /// `float16`, `float` or `double`.
    pub fn is_float(self) -> bool {
        matches!(self, Self::F16 | Self::F32 | Self::F64)
    }

    /// A signed integer type (floats are not counted).
    pub fn is_signed(self) -> bool {
        matches!(self, Self::I8 | Self::I16 | Self::I32 | Self::I64)
    }

    /// Amber's name (`int8` ... `uint64`, `float16`, `float`, `double`).
    pub fn name(self) -> &'static str {
        match self {
            Self::I8 => "int8",
            Self::I16 => "int16",
            Self::I32 => "int32",
            Self::I64 => "int64",
            Self::U8 => "uint8",
            Self::U16 => "uint16",
            Self::U32 => "uint32",
            Self::U64 => "uint64",
            Self::F16 => "float16",
            Self::F32 => "float",
            Self::F64 => "double",
        }
    }

    /// The type amber's name `s` names (see [`Scalar::name`]).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The component type of a format's `<bits>_<mode>` pair. UNORM, SNORM, SCALED and SRGB
    /// components hold raw integers in buffers, as amber treats them.
    fn from_format(bits: u32, mode: &str) -> Option<Self> {
        Some(match (mode, bits) {
            ("UINT" | "UNORM" | "USCALED" | "SRGB", 8) => Self::U8,
            ("UINT" | "UNORM" | "USCALED" | "SRGB", 16) => Self::U16,
            ("UINT" | "UNORM" | "USCALED" | "SRGB", 32) => Self::U32,
            ("UINT" | "UNORM" | "USCALED" | "SRGB", 64) => Self::U64,
            ("SINT" | "SNORM" | "SSCALED", 8) => Self::I8,
            ("SINT" | "SNORM" | "SSCALED", 16) => Self::I16,
            ("SINT" | "SNORM" | "SSCALED", 32) => Self::I32,
            ("SINT" | "SNORM" | "SSCALED", 64) => Self::I64,
            ("SFLOAT", 16) => Self::F16,
            ("SFLOAT", 32) => Self::F32,
            ("SFLOAT", 64) => Self::F64,
            _ => return None,
        })
    }
}

/// A buffer's element type: a scalar, vector (`rows` > 1) or matrix (`cols` > 1, column major),
/// possibly marked as an array (`T[]`, which changes the `STD140` layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataType {
    /// The component type.
    pub scalar: Scalar,
    /// Components of a vector or of a matrix column (2 to 4; a format's channel count), else 1.
    pub rows: u32,
    /// Columns of a matrix (2 to 4), else 1.
    pub cols: u32,
    /// Written with `[]`.
    pub array: bool,
    /// The spelling the script used (a format name stays a format name).
    pub name: String,
}

impl DataType {
    /// The scalar type `scalar`, named as amber names it.
    pub fn scalar(scalar: Scalar) -> Self {
        Self {
            scalar,
            rows: 1,
            cols: 1,
            array: false,
            name: scalar.name().into(),
        }
    }

    /// Reads a type as `DATA_TYPE` takes it. `Err` says why a name that looks like a format is
    /// not usable as buffer data (packed, depth/stencil or mixed-width formats).
    pub fn parse(s: &str) -> Result<Self, String> {
        if let Some(t) = Self::parse_amber(s) {
            return Ok(t);
        }
        Self::parse_format(s)
    }

    fn parse_amber(s: &str) -> Option<Self> {
        let (base, array) = match s.strip_suffix("[]") {
            Some(b) => (b, true),
            None => (s, false),
        };
        let dim = |c: u8| (b'2'..=b'4').contains(&c).then(|| u32::from(c - b'0'));
        let (scalar, rows, cols) = if let Some(rest) = base.strip_prefix("vec") {
            let b = rest.as_bytes();
            let rows = dim(*b.first()?)?;
            let inner = rest.get(1..)?.strip_prefix('<')?.strip_suffix('>')?;
            (Scalar::from_name(inner)?, rows, 1)
        } else if let Some(rest) = base.strip_prefix("mat") {
            let b = rest.as_bytes();
            let cols = dim(*b.first()?)?;
            if b.get(1) != Some(&b'x') {
                return None;
            }
            let rows = dim(*b.get(2)?)?;
            let inner = rest.get(3..)?.strip_prefix('<')?.strip_suffix('>')?;
            (Scalar::from_name(inner)?, rows, cols)
        } else {
            (Scalar::from_name(base)?, 1, 1)
        };
        Some(Self {
            scalar,
            rows,
            cols,
            array,
            name: s.to_string(),
        })
    }

    /// A Vulkan format name (`R8G8B8A8_UINT`, `B8G8R8A8_UNORM`, `R32_SFLOAT`): its components in
    /// memory order, as a vector of one component type.
    fn parse_format(s: &str) -> Result<Self, String> {
        let bad = || Err(format!("unknown data type `{s}`"));
        let Some((comps, mode)) = s.split_once('_') else {
            return bad();
        };
        // A packed image format: each element is one texel word, given as a uint32.
        if mode.ends_with("_PACK32") && texel_format_of(s).is_ok() {
            return Ok(Self {
                scalar: Scalar::U32,
                rows: 1,
                cols: 1,
                array: false,
                name: s.to_string(),
            });
        }
        if mode.contains('_') || mode.contains("PACK") {
            return Err(format!(
                "format `{s}` (packed and depth/stencil formats are image data)"
            ));
        }
        let mut widths = Vec::new();
        let mut rest = comps;
        while let Some(c) = rest.chars().next() {
            if !"RGBAXDS".contains(c) {
                return bad();
            }
            let digits: String = rest[1..].chars().take_while(char::is_ascii_digit).collect();
            let Ok(bits) = digits.parse::<u32>() else {
                return bad();
            };
            if c == 'D' || c == 'S' || c == 'X' {
                return Err(format!(
                    "format `{s}` (depth/stencil formats are image data)"
                ));
            }
            widths.push(bits);
            rest = &rest[1 + digits.len()..];
        }
        if widths.is_empty() || widths.len() > 4 {
            return bad();
        }
        if widths.iter().any(|w| *w != widths[0]) {
            return Err(format!(
                "format `{s}` (components of different widths are image data)"
            ));
        }
        let Some(scalar) = Scalar::from_format(widths[0], mode) else {
            return Err(format!(
                "format `{s}` (its {mode} components are image data)"
            ));
        };
        Ok(Self {
            scalar,
            rows: widths.len() as u32,
            cols: 1,
            array: false,
            name: s.to_string(),
        })
    }

    /// A matrix: more than one column, and of more than one row.
    pub fn is_matrix(&self) -> bool {
        self.cols > 1 && self.rows > 1
    }
}

/// How a channel's bits read, as amber's verifier reads them for image probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelMode {
    /// `UNORM`: read as 0 to 1.
    Unorm,
    /// `SNORM`: read as -1 to 1.
    Snorm,
    /// `SRGB`: read as 0 to 1, colour channels then converted from sRGB to linear.
    Srgb,
    /// `UINT`, and amber's unsigned integer types: read as they are.
    Uint,
    /// `SINT`, and amber's signed integer types: read as they are.
    Sint,
    /// `SFLOAT`, and amber's float types: read as they are.
    Float,
    /// USCALED, SSCALED, UFLOAT: not read by probes.
    Other,
}

impl ChannelMode {
    fn from_suffix(mode: &str) -> Self {
        match mode {
            "UNORM" => Self::Unorm,
            "SNORM" => Self::Snorm,
            "SRGB" => Self::Srgb,
            "UINT" => Self::Uint,
            "SINT" => Self::Sint,
            "SFLOAT" => Self::Float,
            _ => Self::Other,
        }
    }

    /// Whether probes scale the channel to 0..1 (-1..1).
    pub fn is_normalized(self) -> bool {
        matches!(self, Self::Unorm | Self::Snorm | Self::Srgb)
    }
}

impl DataType {
    /// The channels one element holds, in memory order: which colour component each value is
    /// (`R`, `G`, `B`, `A`) and how it reads. Amber types name their components R, G, B, A in
    /// order, as amber does (`vec4<float>` is `R32G32B32A32_SFLOAT`); matrices have none.
    pub fn channels(&self) -> Option<Vec<(char, ChannelMode)>> {
        if self.is_matrix() {
            return None;
        }
        if Self::parse_amber(&self.name).is_some() {
            let mode = match self.scalar {
                s if s.is_float() => ChannelMode::Float,
                s if s.is_signed() => ChannelMode::Sint,
                _ => ChannelMode::Uint,
            };
            return Some(
                "RGBA"
                    .chars()
                    .take(self.rows as usize)
                    .map(|c| (c, mode))
                    .collect(),
            );
        }
        let (comps, mode) = self.name.split_once('_')?;
        let mode = ChannelMode::from_suffix(mode);
        Some(
            comps
                .chars()
                .filter(|c| c.is_ascii_alphabetic())
                .map(|c| (c, mode))
                .collect(),
        )
    }

    /// The Vulkan format amber gives an element of this type (`float` is `R32_SFLOAT`,
    /// `vec4<uint8>` is `R8G8B8A8_UINT`); a format name is itself. `None` for matrices.
    pub fn vulkan_format(&self) -> Option<String> {
        if self.is_matrix() {
            return None;
        }
        if Self::parse_amber(&self.name).is_none() {
            return Some(self.name.clone());
        }
        let bits = self.scalar.bytes() * 8;
        let mode = match self.scalar {
            s if s.is_float() => "SFLOAT",
            s if s.is_signed() => "SINT",
            _ => "UINT",
        };
        let comps: String = "RGBA"
            .chars()
            .take(self.rows as usize)
            .map(|c| format!("{c}{bits}"))
            .collect();
        Some(format!("{comps}_{mode}"))
    }
}

fn by_name(name: &str) -> TexelFormat {
    TexelFormat::by_name(name).expect("a format of the core's table")
}

/// The image format Lanescope stores for the Vulkan format `name` (`R8G8B8A8_UNORM` is
/// `rgba8`, `R32_UINT` is `r32ui`, `B10G11R11_UFLOAT_PACK32` is `r11fg11fb10f`), or why there
/// is none: Lanescope's images hold R, RG or RGBA channels of one width, unsigned or signed
/// normalized, integer or float, or one of SPIR-V's three packed formats.
pub fn texel_format_of(name: &str) -> Result<TexelFormat, String> {
    let Some((comps, mode)) = name.split_once('_') else {
        return Err(format!("`{name}` is not a Vulkan format name"));
    };
    match name {
        "B10G11R11_UFLOAT_PACK32" => return Ok(by_name("r11fg11fb10f")),
        "A2B10G10R10_UNORM_PACK32" => return Ok(by_name("rgb10a2")),
        "A2B10G10R10_UINT_PACK32" => return Ok(by_name("rgb10a2ui")),
        _ => {}
    }
    if mode.contains("PACK") {
        return Err("a packed format with no SPIR-V image format".into());
    }
    if mode.contains("BLOCK") {
        return Err("a block-compressed format".into());
    }
    if mode.contains('_') {
        return Err("a format of mixed channels".into());
    }
    let mut letters = String::new();
    let mut widths = Vec::new();
    let mut rest = comps;
    while let Some(c) = rest.chars().next() {
        // (a channel letter may be any character in a hostile file: stepped over by its length)
        let after = &rest[c.len_utf8()..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        let Ok(bits) = digits.parse::<u32>() else {
            return Err(format!("`{name}` is not a Vulkan format name"));
        };
        letters.push(c);
        widths.push(bits);
        rest = &after[digits.len()..];
    }
    if letters.contains(['D', 'S', 'X']) {
        return Err("a depth/stencil format".into());
    }
    match letters.as_str() {
        "R" | "RG" | "RGBA" => {}
        "RGB" | "BGR" => return Err("a 3-channel format".into()),
        "BGRA" | "ABGR" | "ARGB" => {
            return Err(format!(
                "a format in {letters} order (Lanescope's images are R, RG or RGBA)"
            ))
        }
        _ => return Err(format!("`{name}` is not a Vulkan colour format")),
    }
    if widths.iter().any(|w| *w != widths[0]) {
        return Err("a format of channels of different widths".into());
    }
    let suffix = match mode {
        "UNORM" => "",
        "SNORM" => "snorm",
        "UINT" => "ui",
        "SINT" => "i",
        "SFLOAT" => "f",
        m => return Err(format!("a format of {m} channels")),
    };
    let spirv = format!("{}{}{suffix}", letters.to_ascii_lowercase(), widths[0]);
    TexelFormat::by_name(&spirv).ok_or_else(|| {
        format!(
            "{} {}-bit {mode} channels (no SPIR-V image format)",
            letters, widths[0]
        )
    })
}

/// The image format of a buffer whose elements are texels (a texel buffer, an `IMAGE`): its
/// type's Vulkan format, with no padding between elements.
pub fn texel_format(format: &Format) -> Result<TexelFormat, String> {
    let Some(name) = format.ty.vulkan_format() else {
        return Err(format!("{} is a matrix type", format.ty.name));
    };
    let t = texel_format_of(&name).map_err(|why| format!("{name}: {why}"))?;
    if t.texel_bytes() as usize != format.stride() {
        return Err(format!(
            "{} elements are padded to {} bytes under {}",
            format.ty.name,
            format.stride(),
            format.layout_name()
        ));
    }
    Ok(t)
}

/// Buffer layout rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// `STD140`: matrix columns and the elements of array types pad to 4 components too.
    Std140,
    /// `STD430` (the default): only 3-component vectors and columns pad, to 4.
    #[default]
    Std430,
}

/// One part of an element: a value or padding bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    /// One component of this type.
    Value(Scalar),
    /// This many bytes of padding.
    Pad(usize),
}

/// A type under a layout: the segments of one element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    /// The element type.
    pub ty: DataType,
    /// The layout rules `segs` follow.
    pub layout: Layout,
    /// One element's components and padding, in memory order.
    pub segs: Vec<Seg>,
}

impl Format {
    /// `ty` laid out under `layout`, padded by amber's rules (see the module's documentation).
    pub fn new(ty: DataType, layout: Layout) -> Self {
        let pad = (layout == Layout::Std140 && (ty.is_matrix() || ty.array))
            || (ty.cols == 1 && ty.rows == 3)
            || (ty.is_matrix() && ty.rows == 3);
        let mut segs = Vec::new();
        for _ in 0..ty.cols {
            for _ in 0..ty.rows {
                segs.push(Seg::Value(ty.scalar));
            }
            if pad && ty.rows < 4 {
                segs.push(Seg::Pad((4 - ty.rows as usize) * ty.scalar.bytes()));
            }
        }
        Self { ty, layout, segs }
    }

    /// Bytes of one element.
    pub fn stride(&self) -> usize {
        self.segs
            .iter()
            .map(|s| match s {
                Seg::Value(t) => t.bytes(),
                Seg::Pad(n) => *n,
            })
            .sum()
    }

    /// Values in one element.
    pub fn values_per_element(&self) -> usize {
        self.segs
            .iter()
            .filter(|s| matches!(s, Seg::Value(_)))
            .count()
    }

    /// Each value of one element: its byte offset in the element and its type.
    pub fn slots(&self) -> Vec<(usize, Scalar)> {
        let mut at = 0;
        let mut out = Vec::new();
        for s in &self.segs {
            match s {
                Seg::Value(t) => {
                    out.push((at, *t));
                    at += t.bytes();
                }
                Seg::Pad(n) => at += n,
            }
        }
        out
    }

    /// The byte offset and type of value `k` counted from the element at byte `start`
    /// (values run on into the following elements).
    pub fn value_at(&self, start: usize, k: usize) -> (usize, Scalar) {
        let slots = self.slots();
        let n = slots.len().max(1);
        let (off, t) = slots[k % n];
        (start + (k / n) * self.stride() + off, t)
    }

    /// The `STD140`/`STD430` word as scripts spell it.
    pub fn layout_name(&self) -> &'static str {
        match self.layout {
            Layout::Std140 => "STD140",
            Layout::Std430 => "STD430",
        }
    }
}

/// A number as a script writes it: amber keeps integers (as 64 bits, negative ones wrapped)
/// apart from floating-point values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer, as 64 bits (negative ones wrapped): what integer components are given.
    Int(u64),
    /// A floating-point number: what float components are given.
    Float(f64),
}

/// A float16 as amber writes one (`src/float16_helper.cc`): rounded to a 32-bit float, then
/// its mantissa truncated, not rounded, to 10 bits; denormals flushed to zero. Expectations in
/// scripts are computed from these inputs, so they are reproduced exactly. Values outside
/// float16's normal range (which amber garbles) are converted properly.
fn f16_bits(x: f64) -> u16 {
    let b = (x as f32).to_bits();
    let sign = ((b >> 31) as u16) << 15;
    let exp = (b >> 23) & 0xff;
    if exp == 0 {
        return sign;
    }
    match exp.checked_sub(112) {
        Some(e @ 1..=30) => sign | ((e as u16) << 10) | ((b & 0x7f_ffff) >> 13) as u16,
        _ => float::from_f64(f64::from(x as f32), FloatFormat::F16, Round::Rte) as u16,
    }
}

/// A float16 as amber's verifier reads one: denormals read as zero.
fn f16_value(bits: u16) -> f64 {
    if bits & 0x7c00 == 0 {
        return if bits & 0x8000 != 0 { -0.0 } else { 0.0 };
    }
    float::to_f64(FloatFormat::F16, u64::from(bits))
}

/// Writes `v` as a `t` into `out` (which holds at least `t.bytes()`), little-endian.
pub fn encode(t: Scalar, v: Value, out: &mut [u8]) {
    let bits: u64 = match (t, v) {
        (Scalar::F16, Value::Float(x)) => u64::from(f16_bits(x)),
        (Scalar::F32, Value::Float(x)) => u64::from((x as f32).to_bits()),
        (Scalar::F64, Value::Float(x)) => x.to_bits(),
        (Scalar::F16, Value::Int(i)) => u64::from(f16_bits(i as f64)),
        (Scalar::F32, Value::Int(i)) => u64::from((i as f32).to_bits()),
        (Scalar::F64, Value::Int(i)) => (i as f64).to_bits(),
        (_, Value::Int(i)) => i,
        // Parsers refuse floats for integer components; truncate like a C cast if one comes.
        (_, Value::Float(x)) => x as i64 as u64,
    };
    let n = t.bytes();
    out[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
}

/// A value read from a buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Actual {
    /// A signed integer component, sign-extended.
    Signed(i64),
    /// An unsigned integer component.
    Unsigned(u64),
    /// A float component, as an `f64` (float16 denormals read as zero).
    Float(f64),
}

/// Reads a `t` from `bytes` (at least `t.bytes()` long).
pub fn decode(t: Scalar, bytes: &[u8]) -> Actual {
    let mut b = [0u8; 8];
    b[..t.bytes()].copy_from_slice(&bytes[..t.bytes()]);
    let u = u64::from_le_bytes(b);
    match t {
        Scalar::I8 => Actual::Signed(i64::from(u as u8 as i8)),
        Scalar::I16 => Actual::Signed(i64::from(u as u16 as i16)),
        Scalar::I32 => Actual::Signed(i64::from(u as u32 as i32)),
        Scalar::I64 => Actual::Signed(u as i64),
        Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 => Actual::Unsigned(u),
        Scalar::F16 => Actual::Float(f16_value(u as u16)),
        Scalar::F32 => Actual::Float(f64::from(f32::from_bits(u as u32))),
        Scalar::F64 => Actual::Float(f64::from_bits(u)),
    }
}

/// A script value converted to `t` as amber's verifier does (integers truncated to the
/// component's width, floats rounded to its precision), for comparisons and messages.
pub fn expected_as(t: Scalar, v: Value) -> Actual {
    let mut b = [0u8; 8];
    match (t, v) {
        // The verifier compares float16 components as 32-bit floats.
        (Scalar::F16, Value::Float(x)) => return Actual::Float(f64::from(x as f32)),
        (Scalar::F16, Value::Int(i)) => return Actual::Float(f64::from(i as f32)),
        _ => encode(t, v, &mut b),
    }
    decode(t, &b)
}

/// A value formatted for its type: integers in decimal, floats in their shortest exact form.
pub fn format_actual(t: Scalar, a: Actual) -> String {
    match a {
        Actual::Signed(i) => i.to_string(),
        Actual::Unsigned(u) => u.to_string(),
        // float16 values print as the 32-bit float they are exactly, so that reading them back
        // (which truncates to float16) gives the same bits.
        Actual::Float(x) => match t {
            Scalar::F16 | Scalar::F32 => (x as f32).to_string(),
            _ => x.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(s: &str, layout: Layout) -> Format {
        Format::new(DataType::parse(s).unwrap(), layout)
    }

    #[test]
    fn strides_follow_amber() {
        for (t, l, stride, n) in [
            ("uint32", Layout::Std430, 4, 1),
            ("uint32", Layout::Std140, 4, 1),
            ("uint32[]", Layout::Std140, 16, 1),
            ("uint32[]", Layout::Std430, 4, 1),
            ("vec2<float>", Layout::Std140, 8, 2),
            ("vec3<float>", Layout::Std430, 16, 3),
            ("vec3<float16>", Layout::Std430, 8, 3),
            ("vec4<int32>", Layout::Std430, 16, 4),
            ("mat2x2<float>", Layout::Std430, 16, 4),
            ("mat2x2<float>", Layout::Std140, 32, 4),
            ("mat4x3<float>", Layout::Std430, 64, 12),
            ("mat3x3<double>", Layout::Std430, 96, 9),
            ("R32G32B32A32_SFLOAT", Layout::Std430, 16, 4),
            ("R32G32B32_SFLOAT", Layout::Std430, 16, 3),
            ("B8G8R8A8_UNORM", Layout::Std430, 4, 4),
        ] {
            let f = fmt(t, l);
            assert_eq!(
                (f.stride(), f.values_per_element()),
                (stride, n),
                "{t} {l:?}"
            );
        }
        assert!(DataType::parse("vec5<float>").is_err());
        assert!(DataType::parse("mat2x2<vec2<float>>").is_err());
        let e = DataType::parse("E5B9G9R9_UFLOAT_PACK32").unwrap_err();
        assert!(e.contains("packed"), "{e}");
        // A packed image format is a buffer of texel words.
        let t = DataType::parse("B10G11R11_UFLOAT_PACK32").unwrap();
        assert_eq!((t.scalar, t.rows, t.cols), (Scalar::U32, 1, 1));
    }

    #[test]
    fn values_encode_and_decode_by_type() {
        let mut b = [0u8; 8];
        encode(Scalar::I8, Value::Int((-3i64) as u64), &mut b);
        assert_eq!(decode(Scalar::I8, &b), Actual::Signed(-3));
        encode(Scalar::F16, Value::Float(1.5), &mut b);
        assert_eq!(&b[..2], &[0x00, 0x3e]);
        assert_eq!(decode(Scalar::F16, &b), Actual::Float(1.5));
        // Truncated as amber does: 4.8 is 0x44cc (4.796875), not the nearest 0x44cd.
        encode(Scalar::F16, Value::Float(4.8), &mut b);
        assert_eq!(&b[..2], &[0xcc, 0x44]);
        assert_eq!(decode(Scalar::F16, &[0x01, 0x00]), Actual::Float(0.0));
        encode(Scalar::F32, Value::Int((-2i64) as u64), &mut b);
        // An integer written to a float component keeps amber's unsigned reading only when
        // parsers did not convert it first; parsers convert, so this is the raw fallback.
        assert!(matches!(decode(Scalar::F32, &b), Actual::Float(_)));
        assert_eq!(
            format_actual(Scalar::F32, Actual::Float(0.1f32 as f64)),
            "0.1"
        );
        let f = fmt("vec3<float>", Layout::Std430);
        assert_eq!(f.value_at(32, 4), (32 + 16 + 4, Scalar::F32));
    }

    #[test]
    fn vulkan_formats_map_to_image_formats() {
        for (vk, spirv) in [
            ("R8G8B8A8_UNORM", "rgba8"),
            ("R8G8B8A8_SNORM", "rgba8snorm"),
            ("R32_UINT", "r32ui"),
            ("R32_SINT", "r32i"),
            ("R32_SFLOAT", "r32f"),
            ("R16G16B16A16_SFLOAT", "rgba16f"),
            ("R32G32B32A32_SFLOAT", "rgba32f"),
            ("R16G16_UNORM", "rg16"),
            ("R64_UINT", "r64ui"),
            ("R64_SINT", "r64i"),
            ("B10G11R11_UFLOAT_PACK32", "r11fg11fb10f"),
            ("A2B10G10R10_UNORM_PACK32", "rgb10a2"),
            ("A2B10G10R10_UINT_PACK32", "rgb10a2ui"),
        ] {
            assert_eq!(texel_format_of(vk).map(|t| t.name), Ok(spirv), "{vk}");
        }
        for (vk, why) in [
            ("B8G8R8A8_UNORM", "BGRA order"),
            ("R5G6B5_UNORM_PACK16", "packed"),
            ("D24_UNORM_S8_UINT", "mixed"),
            ("D32_SFLOAT", "depth"),
            ("R8G8B8_UINT", "3-channel"),
            ("R8_SRGB", "SRGB"),
            ("R32_UNORM", "no SPIR-V image format"),
            // (a name of non-ASCII channel letters is an error, not a panic)
            ("\u{63d}8_UNORM", "not a Vulkan"),
            ("R8\u{e9}8_UINT", "not a Vulkan"),
        ] {
            let e = texel_format_of(vk).unwrap_err();
            assert!(e.contains(why), "{vk}: {e}");
        }
        let t = |s: &str, l| texel_format(&fmt(s, l)).map(|t| t.name);
        assert_eq!(t("vec4<int32>", Layout::Std430), Ok("rgba32i"));
        assert_eq!(t("uint8", Layout::Std430), Ok("r8ui"));
        assert_eq!(t("vec2<float16>", Layout::Std430), Ok("rg16f"));
        assert!(t("uint32[]", Layout::Std140)
            .unwrap_err()
            .contains("padded to 16"));
        assert!(t("mat2x2<float>", Layout::Std430).is_err());
        let c = DataType::parse("vec2<int8>").unwrap().channels().unwrap();
        assert_eq!(c, [('R', ChannelMode::Sint), ('G', ChannelMode::Sint)]);
        let c = DataType::parse("B8G8R8A8_UNORM")
            .unwrap()
            .channels()
            .unwrap();
        assert_eq!(c[0], ('B', ChannelMode::Unorm));
    }
}
