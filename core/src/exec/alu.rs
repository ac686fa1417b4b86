//! Pure scalar semantics of the arithmetic, logical and conversion instructions.
//!
//! Each function takes raw component bits (see `value`) and returns raw bits plus, where the
//! SPIR-V spec leaves the result undefined, `true` in the second element.

use crate::program::{BinOp, ConvOp, UnOp};
use crate::value::{mask, sext, to_f64, trunc, ScalarTy};
use half::f16;

#[inline]
fn fbits(ty: ScalarTy) -> u32 {
    match ty {
        ScalarTy::Float { bits } => u32::from(bits),
        _ => 32,
    }
}

/// Apply a float function in the operand's own precision (f16 via f32, rounded once).
#[inline]
fn fop2(
    bits: u32,
    a: u64,
    b: u64,
    f32f: impl Fn(f32, f32) -> f32,
    f64f: impl Fn(f64, f64) -> f64,
) -> u64 {
    match bits {
        16 => {
            let r = f32f(
                f16::from_bits(a as u16).to_f32(),
                f16::from_bits(b as u16).to_f32(),
            );
            u64::from(f16::from_f32(r).to_bits())
        }
        32 => u64::from(f32f(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits()),
        _ => f64f(f64::from_bits(a), f64::from_bits(b)).to_bits(),
    }
}

#[inline]
fn fcmp(bits: u32, a: u64, b: u64) -> Option<std::cmp::Ordering> {
    to_f64(a, bits).partial_cmp(&to_f64(b, bits))
}

/// Binary operation on one component. Returns (bits, undefined).
#[inline]
pub fn bin(op: BinOp, ty: ScalarTy, a: u64, b: u64) -> (u64, bool) {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let w = ty.bits();
    let m = mask(w);
    let bool_of = |c: bool| (u64::from(c), false);
    match op {
        BinOp::IAdd => (a.wrapping_add(b) & m, false),
        BinOp::ISub => (a.wrapping_sub(b) & m, false),
        BinOp::IMul => (a.wrapping_mul(b) & m, false),
        BinOp::UDiv => (a & m).checked_div(b & m).map_or((0, true), |q| (q, false)),
        BinOp::UMod => (a & m).checked_rem(b & m).map_or((0, true), |q| (q, false)),
        BinOp::SDiv | BinOp::SRem | BinOp::SMod => {
            let (x, y) = (sext(a, w), sext(b, w));
            let min = if w >= 64 {
                i64::MIN
            } else {
                -(1i64 << (w - 1))
            };
            if y == 0 || (x == min && y == -1) {
                return (0, true);
            }
            let r = match op {
                BinOp::SDiv => x.wrapping_div(y),
                BinOp::SRem => x.wrapping_rem(y),
                _ => {
                    let r = x.wrapping_rem(y);
                    if r != 0 && ((r < 0) != (y < 0)) {
                        r + y
                    } else {
                        r
                    }
                }
            };
            (r as u64 & m, false)
        }
        BinOp::FAdd => (fop2(w, a, b, |x, y| x + y, |x, y| x + y), false),
        BinOp::FSub => (fop2(w, a, b, |x, y| x - y, |x, y| x - y), false),
        BinOp::FMul => (fop2(w, a, b, |x, y| x * y, |x, y| x * y), false),
        BinOp::FDiv => {
            let undefined = to_f64(b, w) == 0.0;
            (fop2(w, a, b, |x, y| x / y, |x, y| x / y), undefined)
        }
        BinOp::FRem => {
            let undefined = to_f64(b, w) == 0.0;
            (fop2(w, a, b, |x, y| x % y, |x, y| x % y), undefined)
        }
        BinOp::FMod => {
            let undefined = to_f64(b, w) == 0.0;
            // Result takes the sign of the divisor: x - y * floor(x / y).
            let r = fop2(
                w,
                a,
                b,
                |x, y| {
                    let r = x % y;
                    if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                        r + y
                    } else {
                        r
                    }
                },
                |x, y| {
                    let r = x % y;
                    if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                        r + y
                    } else {
                        r
                    }
                },
            );
            (r, undefined)
        }
        BinOp::Shl | BinOp::ShrL | BinOp::ShrA => {
            let s = b & m;
            if s >= u64::from(w) {
                return (0, true);
            }
            let r = match op {
                BinOp::Shl => (a << s) & m,
                BinOp::ShrL => (a & m) >> s,
                _ => (sext(a, w) >> s) as u64 & m,
            };
            (r, false)
        }
        BinOp::And | BinOp::LogicalAnd => (a & b, false),
        BinOp::Or | BinOp::LogicalOr => (a | b, false),
        BinOp::Xor => (a ^ b, false),
        BinOp::LogicalEqual => bool_of(a == b),
        BinOp::LogicalNotEqual => bool_of(a != b),
        BinOp::IEqual => bool_of(a & m == b & m),
        BinOp::INotEqual => bool_of(a & m != b & m),
        BinOp::UGreaterThan => bool_of(a & m > b & m),
        BinOp::UGreaterThanEqual => bool_of(a & m >= b & m),
        BinOp::ULessThan => bool_of(a & m < b & m),
        BinOp::ULessThanEqual => bool_of(a & m <= b & m),
        BinOp::SGreaterThan => bool_of(sext(a, w) > sext(b, w)),
        BinOp::SGreaterThanEqual => bool_of(sext(a, w) >= sext(b, w)),
        BinOp::SLessThan => bool_of(sext(a, w) < sext(b, w)),
        BinOp::SLessThanEqual => bool_of(sext(a, w) <= sext(b, w)),
        BinOp::FOrdEqual => bool_of(fcmp(w, a, b) == Some(Equal)),
        BinOp::FUnordEqual => bool_of(matches!(fcmp(w, a, b), None | Some(Equal))),
        BinOp::FOrdNotEqual => bool_of(matches!(fcmp(w, a, b), Some(Less | Greater))),
        BinOp::FUnordNotEqual => bool_of(fcmp(w, a, b) != Some(Equal)),
        BinOp::FOrdLessThan => bool_of(fcmp(w, a, b) == Some(Less)),
        BinOp::FUnordLessThan => bool_of(matches!(fcmp(w, a, b), None | Some(Less))),
        BinOp::FOrdGreaterThan => bool_of(fcmp(w, a, b) == Some(Greater)),
        BinOp::FUnordGreaterThan => bool_of(matches!(fcmp(w, a, b), None | Some(Greater))),
        BinOp::FOrdLessThanEqual => bool_of(matches!(fcmp(w, a, b), Some(Less | Equal))),
        BinOp::FUnordLessThanEqual => bool_of(fcmp(w, a, b) != Some(Greater)),
        BinOp::FOrdGreaterThanEqual => bool_of(matches!(fcmp(w, a, b), Some(Greater | Equal))),
        BinOp::FUnordGreaterThanEqual => bool_of(fcmp(w, a, b) != Some(Less)),
    }
}

/// Unary operation on one component.
#[inline]
pub fn un(op: UnOp, ty: ScalarTy, a: u64) -> u64 {
    let w = ty.bits();
    let m = mask(w);
    match op {
        UnOp::SNegate => a.wrapping_neg() & m,
        UnOp::FNegate => a ^ (1u64 << (fbits(ty) - 1)),
        UnOp::Not => !a & m,
        UnOp::LogicalNot => u64::from(a == 0),
        UnOp::BitReverse => (a & m).reverse_bits() >> (64 - w),
        UnOp::BitCount => u64::from((a & m).count_ones()),
        UnOp::IsNan => u64::from(to_f64(a, fbits(ty)).is_nan()),
        UnOp::IsInf => u64::from(to_f64(a, fbits(ty)).is_infinite()),
        UnOp::QuantizeToF16 => {
            let h = f16::from_f32(f32::from_bits(a as u32));
            // Denormal f16 results flush to zero (keeping the sign), as the spec allows.
            let h = if h.classify() == std::num::FpCategory::Subnormal {
                f16::from_bits(h.to_bits() & 0x8000)
            } else {
                h
            };
            u64::from(h.to_f32().to_bits())
        }
    }
}

/// Numeric conversion of one component. Returns (bits, undefined).
#[inline]
pub fn conv(op: ConvOp, from: ScalarTy, to: ScalarTy, a: u64) -> (u64, bool) {
    let fw = from.bits();
    let tw = to.bits();
    match op {
        ConvOp::UConvert => (trunc(a, fw) & mask(tw), false),
        ConvOp::SConvert => (sext(a, fw) as u64 & mask(tw), false),
        ConvOp::FConvert => {
            let x = crate::value::float_to_f64(from, a);
            (crate::value::float_from_f64(to, x), false)
        }
        ConvOp::SToF | ConvOp::UToF if to == ScalarTy::BFloat16 => {
            let v = if op == ConvOp::SToF {
                sext(a, fw) as f64
            } else {
                trunc(a, fw) as f64
            };
            // Integers up to 2^53 convert exactly to f64, so this rounds once.
            (crate::value::float_from_f64(to, v), false)
        }
        ConvOp::SToF => (int_to_float(sext(a, fw) as i128, tw), false),
        ConvOp::UToF => (int_to_float(i128::from(trunc(a, fw)), tw), false),
        ConvOp::FToU | ConvOp::FToS => {
            let x = crate::value::float_to_f64(from, a).trunc();
            let signed = op == ConvOp::FToS;
            let (lo, hi) = if signed {
                (-(2f64.powi(tw as i32 - 1)), 2f64.powi(tw as i32 - 1) - 1.0)
            } else {
                (0.0, 2f64.powi(tw as i32) - 1.0)
            };
            if x.is_nan() {
                return (0, true);
            }
            // Out-of-range values are undefined; clamp to give a deterministic answer.
            let undefined = x < lo || x > hi;
            let c = x.clamp(lo, hi);
            let r = if signed { (c as i64) as u64 } else { c as u64 };
            (r & mask(tw), undefined)
        }
    }
}

/// Integer to float with a single rounding to the destination width.
fn int_to_float(v: i128, bits: u32) -> u64 {
    match bits {
        16 => {
            // i128 -> f32 rounds once; f32 -> f16 could double-round only for values beyond
            // f16's range (which become infinity anyway) or with > 24 significant bits.
            let f = v as f64;
            u64::from(f16::from_f64(f).to_bits())
        }
        32 => u64::from((v as f32).to_bits()),
        _ => (v as f64).to_bits(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_rules() {
        let i = ScalarTy::I32;
        assert_eq!(
            bin(BinOp::SDiv, i, (-7i32) as u32 as u64, 2).0,
            (-3i32) as u32 as u64
        );
        assert_eq!(
            bin(BinOp::SRem, i, (-7i32) as u32 as u64, 2).0,
            (-1i32) as u32 as u64
        );
        assert_eq!(bin(BinOp::SMod, i, (-7i32) as u32 as u64, 2).0, 1);
        assert!(bin(BinOp::UDiv, ScalarTy::U32, 1, 0).1);
        assert!(bin(BinOp::SDiv, i, 0x8000_0000, 0xffff_ffff).1);
    }

    #[test]
    fn shifts_and_compares() {
        let u = ScalarTy::U32;
        assert_eq!(
            bin(BinOp::ShrA, ScalarTy::I32, 0x8000_0000, 4).0,
            0xf800_0000
        );
        assert!(bin(BinOp::Shl, u, 1, 32).1);
        assert_eq!(bin(BinOp::SLessThan, ScalarTy::I32, 0xffff_ffff, 0).0, 1);
        assert_eq!(bin(BinOp::ULessThan, u, 0xffff_ffff, 0).0, 0);
        let nan = u64::from(f32::NAN.to_bits());
        assert_eq!(bin(BinOp::FUnordEqual, ScalarTy::F32, nan, 0).0, 1);
        assert_eq!(bin(BinOp::FOrdNotEqual, ScalarTy::F32, nan, 0).0, 0);
    }

    #[test]
    fn conversions() {
        let f = ScalarTy::F32;
        let x = u64::from((-3.7f32).to_bits());
        assert_eq!(
            conv(ConvOp::FToS, f, ScalarTy::I32, x).0,
            (-3i32) as u32 as u64
        );
        assert_eq!(
            conv(
                ConvOp::SConvert,
                ScalarTy::Int {
                    bits: 8,
                    signed: true
                },
                ScalarTy::I32,
                0x80
            )
            .0,
            0xffff_ff80
        );
        assert_eq!(
            conv(ConvOp::UToF, ScalarTy::U32, f, 16_777_217).0,
            u64::from(16_777_216f32.to_bits())
        );
        assert_eq!(
            conv(
                ConvOp::FConvert,
                f,
                ScalarTy::Float { bits: 16 },
                u64::from(1.0f32.to_bits())
            )
            .0,
            0x3c00
        );
    }
}
