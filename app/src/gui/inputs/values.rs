//! The values behind the Inputs panel: scalars read, written and parsed as their type, buffers
//! filled by a pattern, numbers imported and exported as text. No drawing here.

use lanescope_core::program::image::{ImageDesc, TexelFormat};
use lanescope_core::program::Program;
use lanescope_core::value::{self, ScalarTy};
use lanescope_core::SpecValue;

/// Most scalars a fill, an import or an export walks (a 64 MiB buffer of bytes is past it).
const MAX_FIELDS: usize = 1 << 24;

/// How a buffer is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    Zero,
    Constant,
    Index,
    Random,
}

impl Fill {
    pub(super) const ALL: [Fill; 4] = [Fill::Zero, Fill::Constant, Fill::Index, Fill::Random];
    pub(super) fn name(self) -> &'static str {
        match self {
            Fill::Zero => "zero",
            Fill::Constant => "constant",
            Fill::Index => "index",
            Fill::Random => "random",
        }
    }
}

/// Reads one scalar of `ty` at `offset` (zero past the end).
pub fn read(bytes: &[u8], offset: u64, ty: ScalarTy) -> u64 {
    let n = ty.size_bytes() as usize;
    let mut b = [0u8; 8];
    let at = offset as usize;
    if let Some(src) = bytes.get(at..at + n) {
        b[..n].copy_from_slice(src);
    }
    u64::from_le_bytes(b)
}

/// Writes one scalar of `ty` at `offset` (the bytes must reach it).
pub fn write(bytes: &mut [u8], offset: u64, ty: ScalarTy, bits: u64) {
    let n = ty.size_bytes() as usize;
    let at = offset as usize;
    if let Some(dst) = bytes.get_mut(at..at + n) {
        dst.copy_from_slice(&bits.to_le_bytes()[..n]);
    }
}

/// A value typed by a person, as `ty`'s bits; the error names the type.
pub fn parse(text: &str, ty: ScalarTy) -> Result<u64, String> {
    SpecValue::Text(text.trim().to_owned())
        .bits_for(ty)
        .map_err(|e| {
            format!(
                "`{}` is not a {}: {e}",
                text.trim(),
                lanescope_core::program::scalar_name(ty)
            )
        })
}

/// `i` as a value of `ty` (the index fill): floats hold the number, integers wrap to their width.
pub(super) fn of_index(i: u64, ty: ScalarTy) -> u64 {
    if ty.is_any_float() {
        value::float_from_f64(ty, i as f64)
    } else if ty == ScalarTy::Bool {
        i & 1
    } else {
        i & value::mask(ty.bits())
    }
}

/// A reproducible random value of `ty`: integers over their whole range, floats in [0, 1).
pub(super) fn random(state: &mut u64, ty: ScalarTy) -> u64 {
    // splitmix64: small, fast and the same on every platform.
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    if ty.is_any_float() {
        value::float_from_f64(ty, (z >> 11) as f64 / (1u64 << 53) as f64)
    } else if ty == ScalarTy::Bool {
        z & 1
    } else {
        z & value::mask(ty.bits())
    }
}

/// Fills every declared scalar of resource `r` in `bytes`.
pub fn fill(
    p: &Program,
    r: usize,
    bytes: &mut [u8],
    how: Fill,
    constant: &str,
    seed: u64,
) -> Result<(), String> {
    if how == Fill::Zero {
        bytes.fill(0);
        return Ok(());
    }
    let fields = p.resource_fields(r, bytes.len() as u64, MAX_FIELDS).fields;
    let mut state = seed;
    for (i, f) in fields.iter().enumerate() {
        let bits = match how {
            Fill::Constant => parse(constant, f.ty)?,
            Fill::Index => of_index(i as u64, f.ty),
            Fill::Random => random(&mut state, f.ty),
            Fill::Zero => 0,
        };
        write(bytes, f.offset, f.ty, bits);
    }
    Ok(())
}

/// The numbers in a text: whitespace- or comma-separated, or JSON arrays (nested ones
/// flattened).
pub fn numbers(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']'))
        .filter(|t| !t.is_empty())
        .collect()
}

/// Reads numbers into resource `r`'s scalars in declaration order; a runtime array grows to
/// take them all. Returns how many were read; the error names the number and the field.
pub fn import_numbers(
    p: &Program,
    r: usize,
    bytes: &mut Vec<u8>,
    text: &str,
) -> Result<usize, String> {
    let nums = numbers(text);
    let mut fields = p.resource_fields(r, bytes.len() as u64, MAX_FIELDS);
    if nums.len() > fields.fields.len() {
        if let Some((start, stride)) = fields.runtime_array {
            // Grow one element at a time until the numbers fit: elements may hold several.
            let per = p
                .resource_fields(r, start + u64::from(stride), MAX_FIELDS)
                .fields
                .iter()
                .filter(|f| f.offset >= start)
                .count()
                .max(1);
            let need = (nums.len() - fields.fields.len()).div_ceil(per) as u64;
            let len = bytes.len() as u64 + need * u64::from(stride);
            let len = len.min(u64::from(u32::MAX)) as usize;
            bytes.resize(len, 0);
            fields = p.resource_fields(r, bytes.len() as u64, MAX_FIELDS);
        }
    }
    if nums.len() > fields.fields.len() {
        return Err(format!(
            "{} numbers for {} values (the block has no runtime array to grow)",
            nums.len(),
            fields.fields.len()
        ));
    }
    for (i, (t, f)) in nums.iter().zip(&fields.fields).enumerate() {
        let bits = parse(t, f.ty).map_err(|e| format!("number {} ({}): {e}", i + 1, f.path))?;
        write(bytes, f.offset, f.ty, bits);
    }
    Ok(nums.len())
}

/// Resource `r`'s scalars in declaration order, one per line, as `import_numbers` reads them.
pub fn export_numbers(p: &Program, r: usize, bytes: &[u8]) -> String {
    let fields = p.resource_fields(r, bytes.len() as u64, MAX_FIELDS).fields;
    let mut out = String::with_capacity(fields.len() * 8);
    for f in &fields {
        out.push_str(&value::format_scalar(f.ty, read(bytes, f.offset, f.ty)));
        out.push('\n');
    }
    out
}

/// The scalar each number of an image's texels is: a channel as it is stored (an 8-bit unorm
/// channel 0 to 255, a float channel a float), or a packed format's whole texel word.
fn texel_number(f: &TexelFormat) -> ScalarTy {
    if f.packed.is_some() {
        f.word_leaf().ty
    } else {
        f.channel_ty()
    }
}

/// Numbers per texel in [`import_texels`] and [`export_texels`].
fn numbers_per_texel(f: &TexelFormat) -> usize {
    if f.packed.is_some() {
        1
    } else {
        usize::from(f.channels)
    }
}

/// Reads numbers into an image's texels from the first (x fastest, then y, then layers or z;
/// each sample of a multisampled texel in turn), [`texel_number`] each. Returns how many were
/// read; the error names the number, its texel and channel.
pub fn import_texels(desc: &ImageDesc, bytes: &mut [u8], text: &str) -> Result<usize, String> {
    let ty = texel_number(&desc.format);
    let size = u64::from(ty.size_bytes());
    let per = numbers_per_texel(&desc.format);
    let nums = numbers(text);
    let room = bytes.len() as u64 / size;
    if nums.len() as u64 > room {
        return Err(format!(
            "{} numbers for {room} ({} texels of {}, {per} each)",
            nums.len(),
            room / per as u64,
            desc.format.name
        ));
    }
    for (i, t) in nums.iter().enumerate() {
        let bits = parse(t, ty).map_err(|e| {
            let (texel, channel) = (i / per, i % per);
            let channel = if per == 1 {
                String::new()
            } else {
                format!(" channel {}", ["r", "g", "b", "a"][channel])
            };
            format!("number {} (texel {texel}{channel}): {e}", i + 1)
        })?;
        write(bytes, i as u64 * size, ty, bits);
    }
    Ok(nums.len())
}

/// Fills every texel number ([`texel_number`]) of an image: the index fills each channel of a
/// texel with the texel's index (wrapped to the channel's width), the constant each number.
pub fn fill_texels(
    desc: &ImageDesc,
    bytes: &mut [u8],
    how: Fill,
    constant: &str,
    seed: u64,
) -> Result<(), String> {
    let ty = texel_number(&desc.format);
    let constant = match how {
        Fill::Constant => parse(constant, ty)?,
        _ => 0,
    };
    let size = u64::from(ty.size_bytes());
    let per = numbers_per_texel(&desc.format) as u64;
    let mut state = seed;
    for i in 0..bytes.len() as u64 / size {
        let bits = match how {
            Fill::Zero => 0,
            Fill::Constant => constant,
            Fill::Index => of_index(i / per, ty),
            Fill::Random => random(&mut state, ty),
        };
        write(bytes, i * size, ty, bits);
    }
    Ok(())
}

/// An image's texels as numbers, a texel per line, as [`import_texels`] reads them.
pub fn export_texels(desc: &ImageDesc, bytes: &[u8]) -> String {
    let ty = texel_number(&desc.format);
    let size = ty.size_bytes() as usize;
    let per = numbers_per_texel(&desc.format);
    let mut out = String::with_capacity(bytes.len() * 2);
    for texel in bytes.chunks_exact(size * per).take(MAX_FIELDS) {
        for (c, n) in texel.chunks_exact(size).enumerate() {
            if c > 0 {
                out.push(' ');
            }
            out.push_str(&value::format_scalar(ty, read(n, 0, ty)));
        }
        out.push('\n');
    }
    out
}

/// Changes a runtime array's element count (the fixed part stays).
pub fn resize(bytes: &mut Vec<u8>, start: u64, stride: u32, elements: u64) {
    let len = start.saturating_add(elements.saturating_mul(u64::from(stride)));
    bytes.resize(len.min(u64::from(u32::MAX)) as usize, 0);
}

/// The panel's own state: the cell being typed in, how far each block is shown, the fill.
pub struct InputsState {
    /// (cell key, text being typed): committed when the cell loses focus.
    pub(super) edit: Option<(String, String)>,
    /// Scalars shown per resource index.
    pub(super) shown: std::collections::HashMap<usize, usize>,
    pub(super) fill: Fill,
    pub(super) fill_value: String,
    pub(super) seed: u64,
    /// Height of a buffer table's row as last drawn: rows out of sight take that much room and
    /// draw nothing (a block shows hundreds of rows, each an edit cell and four labels).
    pub(super) row_height: Option<f32>,
    /// Per resource index, the rows laid out (see `panel`): those in sight and a margin, kept
    /// while every row in sight stays among them.
    pub(super) laid_out: std::collections::HashMap<usize, std::ops::Range<usize>>,
    /// An import under way: the (set, binding) it goes to and the file.
    pub import: Option<(
        (u32, u32, u32),
        crate::gui::dialog::Pending<crate::gui::dialog::Picked>,
    )>,
}

impl Default for InputsState {
    fn default() -> Self {
        Self {
            edit: None,
            shown: Default::default(),
            fill: Fill::Index,
            fill_value: "1".into(),
            seed: 1,
            row_height: None,
            laid_out: Default::default(),
            import: None,
        }
    }
}
