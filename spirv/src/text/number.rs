//! Numeric literals written and read exactly as SPIRV-Tools does: integers by the signedness
//! and width of their type, 32- and 64-bit floats in C++ stream notation with enough digits to
//! round-trip (`%.9g` / `%.17g`), and everything else (subnormals, infinities, NaNs, halves,
//! bfloat16, fp8) as hex floats like `0x1.8p+0`. Reading follows its parser's quirks too (C-style
//! bases for integers, sign-extension of hex literals, truncation toward zero for halves), so that
//! text from `spirv-dis` assembles to the same words here as with `spirv-as`.

/// How a number's bits are to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumKind {
    Signed,
    Unsigned,
    Float,
}

/// A floating-point encoding other than IEEE (OpTypeFloat's optional operand).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FpEnc {
    /// Deduced from the width: IEEE binary16/32/64.
    Ieee,
    BFloat16,
    E4M3,
    E5M2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NumType {
    pub(crate) kind: NumKind,
    pub(crate) width: u32,
    pub(crate) enc: FpEnc,
}

impl NumType {
    pub(crate) const U32: NumType = NumType {
        kind: NumKind::Unsigned,
        width: 32,
        enc: FpEnc::Ieee,
    };
    pub(crate) const F32: NumType = NumType {
        kind: NumKind::Float,
        width: 32,
        enc: FpEnc::Ieee,
    };

    /// Words a literal of this type takes.
    pub(crate) fn words(self) -> usize {
        self.width.div_ceil(32) as usize
    }
}

/// The layout of a binary floating-point format.
#[derive(Clone, Copy, Debug)]
struct Fmt {
    bits: u32,
    exp_bits: u32,
    frac_bits: u32,
    bias: i64,
    has_inf: bool,
}

const F16: Fmt = Fmt {
    bits: 16,
    exp_bits: 5,
    frac_bits: 10,
    bias: 15,
    has_inf: true,
};
const BF16: Fmt = Fmt {
    bits: 16,
    exp_bits: 8,
    frac_bits: 7,
    bias: 127,
    has_inf: true,
};
const F32: Fmt = Fmt {
    bits: 32,
    exp_bits: 8,
    frac_bits: 23,
    bias: 127,
    has_inf: true,
};
const F64: Fmt = Fmt {
    bits: 64,
    exp_bits: 11,
    frac_bits: 52,
    bias: 1023,
    has_inf: true,
};
const E4M3: Fmt = Fmt {
    bits: 8,
    exp_bits: 4,
    frac_bits: 3,
    bias: 7,
    has_inf: false,
};
const E5M2: Fmt = Fmt {
    bits: 8,
    exp_bits: 5,
    frac_bits: 2,
    bias: 15,
    has_inf: true,
};

impl Fmt {
    fn frac_mask(self) -> u64 {
        (1u64 << self.frac_bits) - 1
    }
    fn exp_mask(self) -> u64 {
        ((1u64 << self.exp_bits) - 1) << self.frac_bits
    }
    fn sign_mask(self) -> u64 {
        1u64 << (self.bits - 1)
    }
    fn word_mask(self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }
}

/// Formats the words of a literal; empty where SPIRV-Tools prints nothing (widths it cannot
/// show).
pub(crate) fn format_literal(words: &[u32], ty: NumType) -> String {
    match words {
        [w] => match ty.kind {
            NumKind::Signed => (*w as i32).to_string(),
            NumKind::Unsigned => w.to_string(),
            NumKind::Float => match ty.enc {
                FpEnc::BFloat16 => hex_float(u64::from(w & 0xffff), BF16),
                FpEnc::E4M3 => hex_float(u64::from(w & 0xff), E4M3),
                FpEnc::E5M2 => hex_float(u64::from(w & 0xff), E5M2),
                FpEnc::Ieee => match ty.width {
                    16 => hex_float(u64::from(w & 0xffff), F16),
                    32 => format_f32(*w),
                    _ => String::new(),
                },
            },
        },
        [lo, hi] => {
            let bits = u64::from(*lo) | (u64::from(*hi) << 32);
            match ty.kind {
                NumKind::Signed => (bits as i64).to_string(),
                NumKind::Unsigned => bits.to_string(),
                NumKind::Float => format_f64(bits),
            }
        }
        _ => String::new(),
    }
}

fn format_f32(bits: u32) -> String {
    let v = f32::from_bits(bits);
    if v == 0.0 || v.is_normal() {
        format_general(f64::from(v), 9)
    } else {
        hex_float(u64::from(bits), F32)
    }
}

fn format_f64(bits: u64) -> String {
    let v = f64::from_bits(bits);
    if v == 0.0 || v.is_normal() {
        format_general(v, 17)
    } else {
        hex_float(bits, F64)
    }
}

/// C's `%.{precision}g`, which is what a C++ stream prints by default.
fn format_general(v: f64, precision: usize) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let sci = format!("{:.*e}", precision - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= precision as i64 {
        let mantissa = trim_fraction(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (precision as i64 - 1 - exp).max(0) as usize;
        trim_fraction(&format!("{v:.decimals$}")).to_string()
    }
}

fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// SPIRV-Tools' hex float notation: `0x1.8p+0`, `-0x1p-149`, `0x0p+0`.
fn hex_float(bits: u64, f: Fmt) -> String {
    let negative = bits & f.sign_mask() != 0;
    let exponent = ((bits & f.exp_mask()) >> f.frac_bits) as i64;
    let nibbles = f.frac_bits.div_ceil(4);
    let overflow = nibbles * 4 - f.frac_bits;
    let mut fraction = (bits & f.frac_mask()) << overflow;
    let is_zero = exponent == 0 && fraction == 0;
    let is_denorm = exponent == 0 && !is_zero;
    let mut exp = if is_zero { 0 } else { exponent - f.bias };
    if is_denorm {
        let top = 1u64 << (f.frac_bits + overflow - 1);
        while fraction & top == 0 {
            fraction <<= 1;
            exp -= 1;
        }
        // The leading one becomes the implicit one.
        fraction <<= 1;
        fraction &= (1u64 << (f.frac_bits + overflow)) - 1;
    }
    let mut nibbles = nibbles as usize;
    while nibbles > 0 && fraction & 0xf == 0 {
        fraction >>= 4;
        nibbles -= 1;
    }
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(if is_zero { "0x0" } else { "0x1" });
    if nibbles > 0 {
        out.push_str(&format!(".{fraction:0nibbles$x}"));
    }
    out.push('p');
    if exp >= 0 {
        out.push('+');
    }
    out.push_str(&exp.to_string());
    out
}

/// An integer as a C++ stream reads it with `setbase(0)`: optional sign, then `0x` hex, leading
/// `0` octal, or decimal, using all of the text. Returns the sign and magnitude.
fn read_c_integer(text: &str) -> Option<(bool, u128)> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) =
        if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            (16, hex)
        } else if rest.len() > 1 && rest.starts_with('0') {
            (8, &rest[1..])
        } else {
            (10, rest)
        };
    if digits.is_empty() {
        return None;
    }
    let mut value: u128 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        value = value
            .checked_mul(u128::from(radix))?
            .checked_add(u128::from(d))?;
        if value > u128::from(u64::MAX) + 1 {
            return None;
        }
    }
    Some((negative, value))
}

/// `ParseNumber<uint32_t>`: what spirv-as takes for a numeric id such as `%12`.
pub(crate) fn read_u32(text: &str) -> Option<u32> {
    match read_c_integer(text)? {
        (false, v) => u32::try_from(v).ok(),
        (true, 0) => Some(0),
        (true, _) => None,
    }
}

/// Encodes an integer literal of the given width and signedness, low word first.
pub(crate) fn encode_integer(
    text: &str,
    width: u32,
    signed: bool,
    out: &mut Vec<u32>,
) -> Result<(), String> {
    if width > 64 {
        return Err(format!("Unsupported {width}-bit integer literals"));
    }
    let negative = text.starts_with('-');
    if negative && !signed {
        return Err("Cannot put a negative number in an unsigned literal".to_string());
    }
    let is_hex = text.starts_with("0x") || text.starts_with("0X");
    let magnitude_full: u64 = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let overflow_mask = !magnitude_full;
    let bits: u64 = if negative {
        let value: i64 = match read_c_integer(text) {
            Some((true, m)) if m <= 1u128 << 63 => (m as i128).wrapping_neg() as i64,
            Some((false, m)) if m <= i64::MAX as u128 => m as i64,
            _ => return Err(format!("Invalid signed integer literal: {text}")),
        };
        let sign_mask = (magnitude_full >> 1) + 1;
        let v = value as u64;
        if (v & overflow_mask) != overflow_mask || (v & sign_mask) != sign_mask {
            return Err(format!(
                "Integer {value} does not fit in a {width}-bit signed integer"
            ));
        }
        v
    } else {
        let value: u64 = match read_c_integer(text) {
            Some((false, m)) if m <= u128::from(u64::MAX) => m as u64,
            _ => return Err(format!("Invalid unsigned integer literal: {text}")),
        };
        let (magnitude, sign_mask) = if signed {
            (magnitude_full >> 1, (magnitude_full >> 1) + 1)
        } else {
            (magnitude_full, 0)
        };
        let failed = if is_hex {
            value & overflow_mask != 0
        } else {
            value & magnitude != value
        };
        if failed {
            let shown = if is_hex {
                format!("{value:#x}")
            } else {
                value.to_string()
            };
            let sign = if signed { "signed" } else { "unsigned" };
            return Err(format!(
                "Integer {shown} does not fit in a {width}-bit {sign} integer"
            ));
        }
        // A hex literal with the type's sign bit set stands for a negative number.
        if is_hex && value & sign_mask != 0 {
            value | overflow_mask
        } else {
            value
        }
    };
    if width > 32 {
        out.push(bits as u32);
        out.push((bits >> 32) as u32);
    } else {
        out.push(bits as u32);
    }
    Ok(())
}

/// Encodes a floating-point literal of the given type.
pub(crate) fn encode_float(text: &str, ty: NumType, out: &mut Vec<u32>) -> Result<(), String> {
    let (fmt, what) = match (ty.enc, ty.width) {
        (FpEnc::E4M3, _) => (E4M3, "E4M3 float"),
        (FpEnc::E5M2, _) => (E5M2, "E5M2 float"),
        (FpEnc::BFloat16, _) => (BF16, "bfloat16"),
        (FpEnc::Ieee, 16) => (F16, "16-bit float"),
        (FpEnc::Ieee, 32) => (F32, "32-bit float"),
        (FpEnc::Ieee, 64) => (F64, "64-bit float"),
        (FpEnc::Ieee, w) => return Err(format!("Unsupported {w}-bit float literals")),
    };
    let bits = read_float(text, fmt).ok_or_else(|| format!("Invalid {what} literal: {text}"))?;
    if fmt.bits == 64 {
        out.push(bits as u32);
        out.push((bits >> 32) as u32);
    } else {
        out.push(bits as u32);
    }
    Ok(())
}

/// SPIRV-Tools' float reader: hex floats by its own algorithm, decimals by the C++ stream
/// (correctly rounded to float or double; narrower formats truncated from float).
fn read_float(text: &str, f: Fmt) -> Option<u64> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        return read_hex_float(hex, negative, f);
    }
    let decimal = if negative {
        if rest.starts_with(['+', '-']) {
            return None;
        }
        rest
    } else {
        text
    };
    if !is_decimal_syntax(decimal) {
        return None;
    }
    if f.bits == 64 {
        let v: f64 = decimal.parse().ok()?;
        let v = if negative { -v } else { v };
        return (!v.is_infinite()).then_some(v.to_bits());
    }
    let v: f32 = decimal.parse().ok()?;
    let v = if negative { -v } else { v };
    if v.is_infinite() {
        return None;
    }
    if f.bits == 32 {
        return Some(u64::from(v.to_bits()));
    }
    // E4M3 has no infinity; SPIRV-Tools refuses what lies past its largest value.
    if !f.has_inf && !(-448.0..=448.0).contains(&v) {
        return None;
    }
    let bits = truncate_from_f32(v.to_bits(), f);
    let is_inf = f.has_inf && bits & !f.sign_mask() == f.exp_mask();
    (!is_inf).then_some(bits)
}

/// What a C++ stream accepts as a decimal float: sign, digits with an optional point, and an
/// optional exponent. (Rust's parser would also take `inf` and `NaN`.)
fn is_decimal_syntax(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mut digits = 0;
    let mut points = 0;
    for c in mantissa.chars() {
        match c {
            '0'..='9' => digits += 1,
            '.' => points += 1,
            _ => return false,
        }
    }
    if digits == 0 || points > 1 {
        return false;
    }
    match exponent {
        None => true,
        Some(e) => {
            let e = e.strip_prefix(['+', '-']).unwrap_or(e);
            !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
        }
    }
}

/// Narrows a float to a smaller format rounding toward zero, as SPIRV-Tools' `castTo` does,
/// infinities for values past the format's range (its largest value where it has none).
fn truncate_from_f32(x: u32, f: Fmt) -> u64 {
    let negative = x & 0x8000_0000 != 0;
    let sign = if negative { f.sign_mask() } else { 0 };
    if x & 0x7fff_ffff == 0 {
        return sign;
    }
    let significand = u64::from(x & 0x7f_ffff);
    let raw_exp = i64::from((x >> 23) & 0xff);
    // Unbiased exponent of the value normalized to 1.xxx, and its fraction bits.
    let (exponent, normalized) = if raw_exp == 0 {
        let mut e = -127i64;
        let mut s = significand;
        while s & (1 << 22) == 0 {
            s <<= 1;
            e -= 1;
        }
        let mut n = significand;
        for _ in e..=-127 {
            n <<= 1;
        }
        (e, n & 0x7f_ffff)
    } else {
        (raw_exp - 127, significand)
    };
    let rounded = normalized >> (23 - f.frac_bits);
    let is_inf = exponent > f.bias || (raw_exp == 0xff);
    if is_inf {
        return if f.has_inf {
            sign | f.exp_mask()
        } else {
            // The largest finite value: all ones but the last mantissa bit pattern of NaN.
            sign | ((f.exp_mask() | f.frac_mask()) - 1)
        };
    }
    // The exponent passes through the narrower format's signed integer type.
    let mut exponent = match f.bits {
        8 => i64::from(exponent as i8),
        16 => i64::from(exponent as i16),
        _ => exponent,
    };
    let min_exponent = -f.bias;
    let mut sig = rounded;
    if exponent <= min_exponent {
        sig |= 1 << f.frac_bits;
        sig >>= 1;
    }
    while exponent < min_exponent {
        sig >>= 1;
        exponent += 1;
    }
    let biased = ((exponent + f.bias) as u64) << f.frac_bits;
    sign | (biased & f.exp_mask()) | (sig & f.frac_mask())
}

/// SPIRV-Tools' hex float reader (the text after `0x`): bits past the format's precision are
/// dropped, exponents past its range saturate to infinity.
fn read_hex_float(s: &str, negative: bool, f: Fmt) -> Option<u64> {
    let bytes = s.as_bytes();
    let mut pos = 0;
    let peek = |pos: usize| bytes.get(pos).copied();
    let width = f.bits;
    let max_position = u64::from(width - 1);
    let int_max: i64 = if width == 64 {
        i64::MAX
    } else {
        (1i64 << (width - 1)) - 1
    };
    let int_min = -int_max - 1;
    let set_bit = |value: u64, bit: bool, n: u64| -> u64 {
        if bit && n <= max_position {
            value | (1u64 << (max_position - n))
        } else {
            value
        }
    };

    let mut exponent: i64 = f.bias;
    let mut fraction: u64 = 0;
    let mut fraction_index: u64 = 0;
    while peek(pos) == Some(b'0') {
        pos += 1;
    }
    let mut has_integer_part = false;
    let mut bits_written = false;
    let mut seen_dot = false;
    let mut seen_p = false;
    while !seen_p && !seen_dot {
        match peek(pos) {
            Some(b'.') => seen_dot = true,
            Some(b'p') => seen_p = true,
            Some(c) if c.is_ascii_hexdigit() => {
                has_integer_part = true;
                let nibble = (c as char).to_digit(16)?;
                for i in (0..4).rev() {
                    let bit = nibble & (1 << i) != 0;
                    if bits_written {
                        fraction = set_bit(fraction, bit, fraction_index);
                        fraction_index = fraction_index.saturating_add(1);
                        if exponent == int_max {
                            return None;
                        }
                        exponent += 1;
                    }
                    bits_written |= bit;
                }
            }
            _ => return None,
        }
        pos += 1;
    }
    let mut bits_written = false;
    while seen_dot && !seen_p {
        match peek(pos) {
            Some(b'p') => seen_p = true,
            Some(c) if c.is_ascii_hexdigit() => {
                let nibble = (c as char).to_digit(16)?;
                for i in (0..4).rev() {
                    let bit = nibble & (1 << i) != 0;
                    bits_written |= bit;
                    if !has_integer_part && !bits_written {
                        if exponent == int_min {
                            return None;
                        }
                        exponent -= 1;
                    } else {
                        fraction = set_bit(fraction, bit, fraction_index);
                        fraction_index = fraction_index.saturating_add(1);
                    }
                }
            }
            _ => return None,
        }
        pos += 1;
    }

    let mut seen_sign = false;
    let mut sign: i64 = 1;
    let mut seen_digits = false;
    let mut written: i64 = 0;
    let overflow = int_max - 1;
    loop {
        match peek(pos) {
            Some(c @ (b'-' | b'+')) if !seen_digits => {
                if seen_sign {
                    return None;
                }
                seen_sign = true;
                sign = if c == b'-' { -1 } else { 1 };
            }
            Some(c) if c.is_ascii_digit() => {
                seen_digits = true;
                let digit = i64::from(c - b'0');
                if written >= (overflow - digit) / 10 {
                    written = overflow;
                } else {
                    written = written * 10 + digit;
                }
            }
            _ => break,
        }
        pos += 1;
    }
    if !seen_digits || pos != bytes.len() {
        return None;
    }
    let written = written * sign;
    if written >= 0 && exponent >= 0 {
        exponent = if overflow - exponent > written {
            written + exponent
        } else {
            overflow
        };
    } else if written < 0 && exponent < 0 {
        exponent = if overflow + exponent > -written {
            written + exponent
        } else {
            -overflow
        };
    } else {
        exponent += written;
    }

    let word_mask = f.word_mask();
    let mut is_zero = !has_integer_part && fraction == 0;
    if !has_integer_part && !is_zero {
        fraction = (fraction << 1) & word_mask;
        exponent -= 1;
    } else if is_zero {
        exponent = 0;
    }
    if exponent <= 0 && !is_zero {
        fraction >>= 1;
        fraction |= 1u64 << (width - 1);
    }
    fraction = (fraction >> (width - f.frac_bits)) & f.frac_mask();
    let max_exponent = (1i64 << f.exp_bits) - 1;
    while exponent < 0 && !is_zero {
        fraction >>= 1;
        exponent += 1;
        fraction &= f.frac_mask();
        if fraction == 0 {
            is_zero = true;
            exponent = 0;
        }
    }
    if exponent > max_exponent {
        exponent = max_exponent;
        fraction = 0;
    }
    let mut bits = if negative { f.sign_mask() } else { 0 };
    bits |= fraction;
    bits |= ((exponent as u64) << f.frac_bits) & f.exp_mask();
    Some(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_text(v: f32) -> String {
        format_literal(&[v.to_bits()], NumType::F32)
    }

    #[test]
    fn floats_print_like_a_cpp_stream() {
        assert_eq!(f32_text(0.5), "0.5");
        assert_eq!(f32_text(1.0), "1");
        assert_eq!(f32_text(-0.0), "-0");
        assert_eq!(f32_text(0.1), "0.100000001");
        assert_eq!(f32_text(1e10), "1e+10");
        assert_eq!(f32_text(123456789.0), "123456792");
        assert_eq!(f32_text(1234567890.0), "1.23456794e+09");
        assert_eq!(f32_text(0.0001), "9.99999975e-05");
        assert_eq!(f32_text(f32::INFINITY), "0x1p+128");
        assert_eq!(f32_text(-f32::INFINITY), "-0x1p+128");
        assert_eq!(f32_text(f32::NAN), "0x1.8p+128");
        assert_eq!(f32_text(f32::from_bits(1)), "0x1p-149");
        let half = NumType {
            kind: NumKind::Float,
            width: 16,
            enc: FpEnc::Ieee,
        };
        assert_eq!(format_literal(&[0x3e00], half), "0x1.8p+0");
        assert_eq!(format_literal(&[0], half), "0x0p+0");
        let double = NumType {
            kind: NumKind::Float,
            width: 64,
            enc: FpEnc::Ieee,
        };
        let b = 0.1f64.to_bits();
        assert_eq!(
            format_literal(&[b as u32, (b >> 32) as u32], double),
            "0.10000000000000001"
        );
    }

    #[test]
    fn floats_read_back() {
        for bits in [
            0u32,
            0x8000_0000,
            1,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x3f80_0000,
            0x0040_0000,
            0x7f7f_ffff,
            0x3dcc_cccd,
            0x0080_0000,
            0x8000_0001,
        ] {
            let text = format_literal(&[bits], NumType::F32);
            let mut out = Vec::new();
            encode_float(&text, NumType::F32, &mut out).unwrap();
            assert_eq!(out, [bits], "{text}");
        }
        let half = NumType {
            kind: NumKind::Float,
            width: 16,
            enc: FpEnc::Ieee,
        };
        for bits in [0u32, 0x3e00, 0x0001, 0x7c00, 0x7e00, 0x8001, 0x7bff, 0x0400] {
            let text = format_literal(&[bits], half);
            let mut out = Vec::new();
            encode_float(&text, half, &mut out).unwrap();
            assert_eq!(out, [bits], "{text}");
        }
        let mut out = Vec::new();
        encode_float("1.5", half, &mut out).unwrap();
        encode_float("0.1", half, &mut out).unwrap();
        assert_eq!(out, [0x3e00, 0x2e66]);
        assert!(encode_float("inf", NumType::F32, &mut out).is_err());
        assert!(encode_float("1e39", NumType::F32, &mut out).is_err());
        assert!(encode_float("70000", half, &mut out).is_err());
    }

    #[test]
    fn integers_read_as_spirv_as_does() {
        let enc = |t: &str, w, s| {
            let mut v = Vec::new();
            encode_integer(t, w, s, &mut v).map(|()| v)
        };
        assert_eq!(enc("-1", 32, true), Ok(vec![0xffff_ffff]));
        assert_eq!(enc("0x10", 32, false), Ok(vec![16]));
        assert_eq!(enc("010", 32, false), Ok(vec![8]));
        assert_eq!(enc("0xffff", 16, true), Ok(vec![0xffff_ffff]));
        assert_eq!(enc("-1", 64, true), Ok(vec![0xffff_ffff, 0xffff_ffff]));
        assert_eq!(
            enc("0xffffffffffff", 64, false),
            Ok(vec![0xffff_ffff, 0xffff])
        );
        assert!(enc("-1", 32, false).is_err());
        assert!(enc("4294967296", 32, false).is_err());
        assert!(enc("2147483648", 32, true).is_err());
        assert!(enc("-2147483649", 32, true).is_err());
        assert!(enc("1.5", 32, false).is_err());
        assert_eq!(read_u32("12"), Some(12));
        assert_eq!(read_u32("abc"), None);
    }
}
