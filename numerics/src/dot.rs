//! SPV_KHR_integer_dot_product arithmetic as small pure functions, with every intermediate
//! kept so a view can show bytes, extension, products, sum, accumulator and clamp.

use crate::value::{mask, sext};

/// Signedness of the two operands (the opcode decides, not the operand types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum DotKind {
    /// OpSDot: both signed.
    Signed,
    /// OpUDot: both unsigned.
    Unsigned,
    /// OpSUDot: the first signed, the second unsigned.
    Mixed,
}

impl DotKind {
    fn first_signed(self) -> bool {
        self != Self::Unsigned
    }
    fn second_signed(self) -> bool {
        self == Self::Signed
    }
    /// Whether the result (and the saturating accumulation) is signed.
    #[inline]
    pub fn result_signed(self) -> bool {
        self != Self::Unsigned
    }
}

/// Every step of one dot product.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DotSteps {
    /// Operand components after sign or zero extension.
    pub a: Vec<i128>,
    /// The second operand's components, likewise.
    pub b: Vec<i128>,
    /// Exact, except a product of 64-bit components past i128 (wrapped; `overflow` is set).
    pub products: Vec<i128>,
    /// The exact sum of the products (wrapped past i128, which sets `overflow`).
    pub sum: i128,
    /// The sum wrapped to the result width (as raw bits).
    pub wrapped: u64,
    /// Accumulator (for the AccSat forms), extended per the opcode's signedness.
    pub acc: Option<i128>,
    /// `wrapped` (as a number of the result's signedness) plus the accumulator, exactly.
    pub total: Option<i128>,
    /// The result bits.
    pub result: u64,
    /// AccSat only: a product or partial sum did not fit the result width (undefined result).
    pub overflow: bool,
    /// AccSat only: the final addition saturated.
    pub clamped: bool,
}

/// The four 8-bit components of a `PackedVectorFormat4x8Bit` operand, component 0 in the lowest
/// byte.
#[inline]
pub fn unpack4x8(v: u64) -> [u64; 4] {
    [
        v & 0xff,
        (v >> 8) & 0xff,
        (v >> 16) & 0xff,
        (v >> 24) & 0xff,
    ]
}

fn extend(v: u64, bits: u32, signed: bool) -> i128 {
    if signed {
        i128::from(sext(v, bits))
    } else {
        i128::from(v & mask(bits))
    }
}

/// Range of a `bits`-wide integer of the given signedness.
fn range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Dot product of `a` and `b` (components of `comp_bits`), result `result_bits` wide, with an
/// optional saturating accumulator (the AccSat forms).
pub fn dot(
    kind: DotKind,
    a: &[u64],
    b: &[u64],
    comp_bits: u32,
    result_bits: u32,
    acc: Option<u64>,
) -> DotSteps {
    let ea: Vec<i128> = a
        .iter()
        .map(|v| extend(*v, comp_bits, kind.first_signed()))
        .collect();
    let eb: Vec<i128> = b
        .iter()
        .map(|v| extend(*v, comp_bits, kind.second_signed()))
        .collect();
    let (lo, hi) = range(result_bits, kind.result_signed());
    let mut overflow = false;
    let mut sum = 0i128;
    let mut products = Vec::with_capacity(ea.len());
    // 64-bit components can take a product or sum past i128: that is far outside any result
    // range (an overflow), and wrapping keeps the low bits, which are all the result needs.
    for (x, y) in ea.iter().zip(&eb) {
        let p = match x.checked_mul(*y) {
            Some(p) => {
                overflow |= p < lo || p > hi;
                p
            }
            None => {
                overflow = true;
                x.wrapping_mul(*y)
            }
        };
        sum = match sum.checked_add(p) {
            Some(s) => {
                overflow |= s < lo || s > hi;
                s
            }
            None => {
                overflow = true;
                sum.wrapping_add(p)
            }
        };
        products.push(p);
    }
    let wrapped = (sum as u64) & mask(result_bits);
    let Some(acc) = acc else {
        return DotSteps {
            a: ea,
            b: eb,
            products,
            sum,
            wrapped,
            acc: None,
            total: None,
            result: wrapped,
            overflow: false,
            clamped: false,
        };
    };
    let acc = extend(acc, result_bits, kind.result_signed());
    // Where the dot itself overflowed the spec leaves the result undefined; like the H100, use
    // the wrapped dot and saturate the accumulation.
    let total = extend(wrapped, result_bits, kind.result_signed()) + acc;
    let clamped_total = total.clamp(lo, hi);
    DotSteps {
        a: ea,
        b: eb,
        products,
        sum,
        wrapped,
        acc: Some(acc),
        total: Some(total),
        result: (clamped_total as u64) & mask(result_bits),
        overflow,
        clamped: clamped_total != total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_bytes_component_zero_lowest() {
        assert_eq!(unpack4x8(0x0403_0201), [1, 2, 3, 4]);
    }

    #[test]
    fn signed_packed_with_saturation() {
        // (-128)^2 * 4 = 65536 overflows 16 bits: undefined, wrapped to 0, then 0 + 5.
        let s = dot(
            DotKind::Signed,
            &unpack4x8(0x8080_8080),
            &unpack4x8(0x8080_8080),
            8,
            16,
            Some(5),
        );
        assert_eq!(s.sum, 65536);
        assert!(s.overflow);
        assert_eq!(s.result, 5);
        // Within range: 4 * 100 * 100 = 40000 in 32 bits, + i32::MAX saturates.
        let s = dot(
            DotKind::Signed,
            &[100; 4],
            &[100; 4],
            8,
            32,
            Some(0x7fff_ffff),
        );
        assert!(!s.overflow && s.clamped);
        assert_eq!(s.result, 0x7fff_ffff);
    }

    #[test]
    fn mixed_signedness_extends_each_side_its_way() {
        let s = dot(DotKind::Mixed, &[0xff], &[0xff], 8, 32, None);
        assert_eq!(s.products, vec![-255]);
        assert_eq!(s.result, (-255i32) as u32 as u64);
        let u = dot(DotKind::Unsigned, &[0xff], &[0xff], 8, 32, None);
        assert_eq!(u.result, 65025);
    }

    /// Wide-integer reference, written independently: exact sum in i128, wrap, saturate.
    fn reference(
        kind: DotKind,
        a: &[u64],
        b: &[u64],
        cb: u32,
        rb: u32,
        acc: Option<u64>,
    ) -> (u64, bool) {
        let sx = |v: u64, s: bool| -> i128 {
            let v = v & ((1u128 << cb) - 1) as u64;
            if s && v >> (cb - 1) & 1 == 1 {
                i128::from(v) - (1i128 << cb)
            } else {
                i128::from(v)
            }
        };
        let (s1, s2) = match kind {
            DotKind::Signed => (true, true),
            DotKind::Unsigned => (false, false),
            DotKind::Mixed => (true, false),
        };
        // Exact modulo 2^128, so exact in the low `rb` bits that the result keeps.
        let exact: i128 = a.iter().zip(b).fold(0i128, |t, (x, y)| {
            t.wrapping_add(sx(*x, s1).wrapping_mul(sx(*y, s2)))
        });
        let modulus = 1i128 << rb;
        let low = exact.rem_euclid(modulus);
        let Some(acc) = acc else {
            return (low as u64, false);
        };
        let signed = kind != DotKind::Unsigned;
        let as_num = |v: i128| {
            if signed && v >= modulus / 2 {
                v - modulus
            } else {
                v
            }
        };
        let accn = as_num(i128::from(acc) & (modulus - 1));
        let (lo, hi) = if signed {
            (-modulus / 2, modulus / 2 - 1)
        } else {
            (0, modulus - 1)
        };
        let r = (as_num(low) + accn).clamp(lo, hi);
        (r.rem_euclid(modulus) as u64, true)
    }

    #[test]
    fn matches_a_wide_integer_reference_on_random_inputs() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let kind = [DotKind::Signed, DotKind::Unsigned, DotKind::Mixed][(next() % 3) as usize];
            let cb = [8u32, 16, 32, 64][(next() % 4) as usize];
            let rbs: Vec<u32> = [8u32, 16, 32, 64]
                .into_iter()
                .filter(|r| *r >= cb)
                .collect();
            let rb = rbs[(next() % rbs.len() as u64) as usize];
            let n = [2usize, 3, 4, 8, 16][(next() % 5) as usize];
            let a: Vec<u64> = (0..n).map(|_| next() & mask(cb)).collect();
            let b: Vec<u64> = (0..n).map(|_| next() & mask(cb)).collect();
            let acc = (next() % 2 == 0).then(|| next() & mask(rb));
            let s = dot(kind, &a, &b, cb, rb, acc);
            let (want, _) = reference(kind, &a, &b, cb, rb, acc);
            assert_eq!(
                s.result, want,
                "{kind:?} {cb}->{rb} a={a:?} b={b:?} acc={acc:?}"
            );
            // The overflow flag is exactly "some product or partial sum leaves the range".
            if acc.is_some() {
                let (lo, hi) = range(rb, kind.result_signed());
                // Past i128 is past every result range.
                let mut part = Some(0i128);
                let mut ov = false;
                for (x, y) in s.a.iter().zip(&s.b) {
                    let p = x.checked_mul(*y);
                    part = part.zip(p).and_then(|(t, p)| t.checked_add(p));
                    let out = |v: Option<i128>| v.is_none_or(|v| v < lo || v > hi);
                    ov |= out(p) || out(part);
                }
                assert_eq!(s.overflow, ov);
            }
        }
    }
}
