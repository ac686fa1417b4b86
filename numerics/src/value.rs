//! Scalar values as raw bits.
//!
//! Every scalar component of every value is stored as a `u64` holding its raw bits:
//! integers masked to their width (zero-extended, whatever their signedness), floats as their
//! IEEE bit pattern in the low bits (f16 in the low 16, f32 in the low 32), booleans as 0 or 1.
//! Composite values (vectors, matrices, arrays, structs) are flattened into their scalar leaves
//! in declaration order (matrices column by column).

use crate::float::{self, Format, Round};

pub use crate::scalar::ScalarTy;

/// The float format of `ty`; integers read as the IEEE format of their width.
#[inline]
fn format_of(ty: ScalarTy) -> Format {
    Format::of(ty).unwrap_or_else(|| Format::ieee(ty.bits()))
}

/// Read a float of type `ty` (IEEE of any width, or bfloat16) as f64 (exactly).
#[inline]
pub fn float_to_f64(ty: ScalarTy, v: u64) -> f64 {
    float::to_f64(format_of(ty), v)
}

/// Encode an f64 as type `ty`, rounding once to nearest even.
#[inline]
pub fn float_from_f64(ty: ScalarTy, x: f64) -> u64 {
    float::from_f64(x, format_of(ty), Round::Rte)
}

/// Mask selecting the low `bits` bits.
#[inline]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Truncate raw bits to `bits`.
#[inline]
pub fn trunc(v: u64, bits: u32) -> u64 {
    v & mask(bits)
}

/// Interpret the low `bits` bits as a signed integer.
#[inline]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    }
}

/// Read an IEEE float of width `bits` (16, 32 or 64) as f64 (exactly).
#[inline]
pub fn to_f64(v: u64, bits: u32) -> f64 {
    float::to_f64(Format::ieee(bits), v)
}

/// Encode an f64 as an IEEE float of width `bits`, rounding once to nearest even.
#[inline]
pub fn from_f64(x: f64, bits: u32) -> u64 {
    float::from_f64(x, Format::ieee(bits), Round::Rte)
}

/// The f32 of a 32-bit float's raw bits.
#[inline]
pub fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

/// The raw bits of an f32.
#[inline]
pub fn of_f32(x: f32) -> u64 {
    u64::from(x.to_bits())
}

/// Human-readable rendering of one scalar, for the CLI and the app.
pub fn format_scalar(ty: ScalarTy, v: u64) -> String {
    match ty {
        ScalarTy::Bool => (v != 0).to_string(),
        ScalarTy::Int { bits, signed: true } => sext(v, u32::from(bits)).to_string(),
        ScalarTy::Int { bits, .. } => trunc(v, u32::from(bits)).to_string(),
        ScalarTy::Float { bits } => {
            let x = to_f64(v, u32::from(bits));
            format!("{x:?}")
        }
        ScalarTy::BFloat16 => format!("{:?}", float_to_f64(ty, v)),
    }
}

/// Decimal text (what Rust's `f64` parser takes) as a float of type `ty`, rounded once to
/// nearest even; `None` when it is not a number or `ty` not a float.
pub fn parse_float(ty: ScalarTy, text: &str) -> Option<u64> {
    let fmt = Format::of(ty)?;
    match fmt {
        // The standard parsers round decimal text correctly, in software on every target.
        Format::F32 => return text.parse::<f32>().ok().map(|x| u64::from(x.to_bits())),
        Format::F64 => return text.parse::<f64>().ok().map(f64::to_bits),
        Format::F16 | Format::BF16 => {}
    }
    let x = text.parse::<f64>().ok()?;
    let nearest = float::from_f64(x, fmt, Round::Rte);
    if !x.is_finite() {
        return Some(nearest);
    }
    // Going through f64 rounds twice, which can only matter when x is exactly halfway between
    // two neighbours in `fmt` (any such midpoint is an f64, so it would lie between the text's
    // value and x otherwise). Then the text itself says which way: compare it with x exactly.
    let below = float::from_f64(x, fmt, Round::Rtz);
    let lo = float::to_f64(fmt, below);
    if lo == x {
        return Some(nearest);
    }
    let hi = if below & !fmt.sign_bit() == fmt.max_finite() {
        // The neighbour past the largest finite number, as if the exponent went on.
        lo * 2.0 - float::to_f64(fmt, below - 1)
    } else {
        float::to_f64(fmt, below + 1)
    };
    if (lo + hi) / 2.0 != x {
        return Some(nearest);
    }
    match decimal::cmp_abs(text, x.abs()) {
        Some(std::cmp::Ordering::Less) => Some(below),
        Some(std::cmp::Ordering::Greater) => Some(float::from_f64(hi, fmt, Round::Rte)),
        _ => Some(nearest),
    }
}

/// Exact comparison of decimal text with an f64, for `parse_float`'s halfway cases.
mod decimal {
    use std::cmp::Ordering;

    /// `(digits, exponent)` with value `0.digits * 10^exponent`, no leading or trailing zero
    /// digits; `None` for text it does not understand (or zero).
    fn normal(text: &str) -> Option<(Vec<u8>, i64)> {
        let t = text.trim_start_matches(['+', '-']);
        let (mantissa, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
            None => (t, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let all: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
        let lead = all.iter().take_while(|d| **d == 0).count();
        let digits = all[lead..].to_vec();
        let end = digits.iter().rposition(|d| *d != 0)? + 1;
        let point = int.len() as i64 - lead as i64 + exp;
        Some((digits[..end].to_vec(), point))
    }

    /// |text| compared with `x` (finite, positive).
    pub fn cmp_abs(text: &str, x: f64) -> Option<Ordering> {
        let (a, ea) = normal(text)?;
        // Rust prints every digit of a float when given enough precision.
        let (b, eb) = normal(&format!("{x:.1100e}"))?;
        if ea != eb {
            return Some(ea.cmp(&eb));
        }
        let n = a.len().max(b.len());
        let at = |v: &[u8], i: usize| v.get(i).copied().unwrap_or(0);
        Some(
            (0..n)
                .map(|i| at(&a, i).cmp(&at(&b, i)))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_extension() {
        assert_eq!(sext(0xff, 8), -1);
        assert_eq!(sext(0x7f, 8), 127);
        assert_eq!(sext(0x8000_0000, 32), i64::from(i32::MIN));
        assert_eq!(sext(u64::MAX, 64), -1);
    }

    #[test]
    fn float_round_trip() {
        for bits in [16, 32, 64] {
            assert_eq!(to_f64(from_f64(1.5, bits), bits), 1.5);
        }
        assert_eq!(from_f64(1.0, 16), 0x3c00);
    }
}
