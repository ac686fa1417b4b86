//! Pure scalar semantics of the arithmetic, logical and conversion instructions.
//!
//! Each function takes raw component bits (see `value`) and returns raw bits plus, where the
//! SPIR-V spec leaves the result undefined, `true` in the second element.

use crate::float::{self, arith, Format, Mode};
use crate::value::{mask, sext, trunc, ScalarTy};

/// A one-operand operation (`OpSNegate`, `OpNot`, `OpIsNan`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `OpSNegate`
    SNegate,
    /// `OpFNegate`
    FNegate,
    /// `OpNot`
    Not,
    /// `OpLogicalNot`
    LogicalNot,
    /// `OpBitReverse`
    BitReverse,
    /// `OpBitCount`
    BitCount,
    /// `OpIsNan`
    IsNan,
    /// `OpIsInf`
    IsInf,
    /// `OpQuantizeToF16`
    QuantizeToF16,
}

/// A two-operand operation: integer and float arithmetic, shifts, bitwise and logical
/// operations, comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `OpIAdd`
    IAdd,
    /// `OpISub`
    ISub,
    /// `OpIMul`
    IMul,
    /// `OpUDiv`
    UDiv,
    /// `OpSDiv`
    SDiv,
    /// `OpUMod`
    UMod,
    /// `OpSRem`
    SRem,
    /// `OpSMod`
    SMod,
    /// `OpFAdd`
    FAdd,
    /// `OpFSub`
    FSub,
    /// `OpFMul`
    FMul,
    /// `OpFDiv`
    FDiv,
    /// `OpFRem`
    FRem,
    /// `OpFMod`
    FMod,
    /// `OpShiftLeftLogical`
    Shl,
    /// `OpShiftRightLogical`
    ShrL,
    /// `OpShiftRightArithmetic`
    ShrA,
    /// `OpBitwiseAnd`
    And,
    /// `OpBitwiseOr`
    Or,
    /// `OpBitwiseXor`
    Xor,
    /// `OpLogicalAnd`
    LogicalAnd,
    /// `OpLogicalOr`
    LogicalOr,
    /// `OpLogicalEqual`
    LogicalEqual,
    /// `OpLogicalNotEqual`
    LogicalNotEqual,
    /// `OpIEqual`
    IEqual,
    /// `OpINotEqual`
    INotEqual,
    /// `OpUGreaterThan`
    UGreaterThan,
    /// `OpSGreaterThan`
    SGreaterThan,
    /// `OpUGreaterThanEqual`
    UGreaterThanEqual,
    /// `OpSGreaterThanEqual`
    SGreaterThanEqual,
    /// `OpULessThan`
    ULessThan,
    /// `OpSLessThan`
    SLessThan,
    /// `OpULessThanEqual`
    ULessThanEqual,
    /// `OpSLessThanEqual`
    SLessThanEqual,
    /// `OpFOrdEqual`
    FOrdEqual,
    /// `OpFUnordEqual`
    FUnordEqual,
    /// `OpFOrdNotEqual`
    FOrdNotEqual,
    /// `OpFUnordNotEqual`
    FUnordNotEqual,
    /// `OpFOrdLessThan`
    FOrdLessThan,
    /// `OpFUnordLessThan`
    FUnordLessThan,
    /// `OpFOrdGreaterThan`
    FOrdGreaterThan,
    /// `OpFUnordGreaterThan`
    FUnordGreaterThan,
    /// `OpFOrdLessThanEqual`
    FOrdLessThanEqual,
    /// `OpFUnordLessThanEqual`
    FUnordLessThanEqual,
    /// `OpFOrdGreaterThanEqual`
    FOrdGreaterThanEqual,
    /// `OpFUnordGreaterThanEqual`
    FUnordGreaterThanEqual,
}

/// A conversion between scalar types (`OpConvertFToU`, `OpUConvert`, `OpFConvert`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvOp {
    /// `OpConvertFToU`
    FToU,
    /// `OpConvertFToS`
    FToS,
    /// `OpConvertSToF`
    SToF,
    /// `OpConvertUToF`
    UToF,
    /// `OpUConvert`
    UConvert,
    /// `OpSConvert`
    SConvert,
    /// `OpFConvert`
    FConvert,
}

/// The float format of `ty`; a non-float type (a malformed module) reads as the IEEE format of
/// its width, never a panic.
#[inline]
fn fmt_of(ty: ScalarTy) -> Format {
    Format::of(ty).unwrap_or_else(|| Format::ieee(ty.bits()))
}

/// A float's value for comparisons (exact; NaN bits do not matter there).
#[inline]
fn value(fmt: Format, v: u64) -> f64 {
    match fmt {
        Format::F32 => f64::from(f32::from_bits(v as u32)),
        Format::F64 => f64::from_bits(v),
        _ => float::to_f64(fmt, v),
    }
}

#[inline]
fn fcmp(fmt: Format, a: u64, b: u64, mode: Mode) -> Option<std::cmp::Ordering> {
    let (a, b) = (mode.flush(fmt, a), mode.flush(fmt, b));
    value(fmt, a).partial_cmp(&value(fmt, b))
}

/// FRem (sign of `a`) or FMod (sign of `b`). The remainder itself is exact; FMod's correction
/// `r + b` is an addition rounded under `mode`.
fn remainder(op: BinOp, fmt: Format, a: u64, b: u64, mode: Mode) -> u64 {
    let (a, b) = (mode.flush(fmt, a), mode.flush(fmt, b));
    let (x, y) = (float::to_f64(fmt, a), float::to_f64(fmt, b));
    let r = libm::fmod(x, y);
    if r.is_nan() {
        return fmt.quiet_nan();
    }
    // Exact in f64, and representable in `fmt`: this conversion does not round.
    let rb = float::from_f64(r, fmt, float::Round::Rte);
    if op == BinOp::FMod && r != 0.0 && (r < 0.0) != (y < 0.0) {
        return arith::binary(arith::Op::Add, fmt, rb, b, mode);
    }
    mode.flush(fmt, rb)
}

/// Binary operation on one component under the default float mode. Returns (bits, undefined).
#[inline]
pub fn bin(op: BinOp, ty: ScalarTy, a: u64, b: u64) -> (u64, bool) {
    bin_in(op, ty, a, b, Mode::DEFAULT)
}

/// Binary operation on one component; float operations round and flush as `mode` (the mode
/// of the operands' width) says. Returns (bits, undefined).
#[inline]
pub fn bin_in(op: BinOp, ty: ScalarTy, a: u64, b: u64, mode: Mode) -> (u64, bool) {
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
        _ => float_bin(op, ty, a, b, mode),
    }
}

/// The float operations of `bin_in`, out of line so the integer ones stay small.
#[inline(never)]
fn float_bin(op: BinOp, ty: ScalarTy, a: u64, b: u64, mode: Mode) -> (u64, bool) {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let f = fmt_of(ty);
    let bool_of = |c: bool| (u64::from(c), false);
    let farith = |o: arith::Op| arith::binary(o, f, a, b, mode);
    let zero_divisor = || value(f, mode.flush(f, b)) == 0.0;
    let fc = || fcmp(f, a, b, mode);
    match op {
        BinOp::FAdd => (farith(arith::Op::Add), false),
        BinOp::FSub => (farith(arith::Op::Sub), false),
        BinOp::FMul => (farith(arith::Op::Mul), false),
        BinOp::FDiv => (farith(arith::Op::Div), zero_divisor()),
        BinOp::FRem | BinOp::FMod => (remainder(op, f, a, b, mode), zero_divisor()),
        BinOp::FOrdEqual => bool_of(fc() == Some(Equal)),
        BinOp::FUnordEqual => bool_of(matches!(fc(), None | Some(Equal))),
        BinOp::FOrdNotEqual => bool_of(matches!(fc(), Some(Less | Greater))),
        BinOp::FUnordNotEqual => bool_of(fc() != Some(Equal)),
        BinOp::FOrdLessThan => bool_of(fc() == Some(Less)),
        BinOp::FUnordLessThan => bool_of(matches!(fc(), None | Some(Less))),
        BinOp::FOrdGreaterThan => bool_of(fc() == Some(Greater)),
        BinOp::FUnordGreaterThan => bool_of(matches!(fc(), None | Some(Greater))),
        BinOp::FOrdLessThanEqual => bool_of(matches!(fc(), Some(Less | Equal))),
        BinOp::FUnordLessThanEqual => bool_of(fc() != Some(Greater)),
        BinOp::FOrdGreaterThanEqual => bool_of(matches!(fc(), Some(Greater | Equal))),
        BinOp::FUnordGreaterThanEqual => bool_of(fc() != Some(Less)),
        // Integer operations are all handled by `bin_in`.
        _ => (0, true),
    }
}

/// Unary operation on one component under the default float mode.
#[inline]
pub fn un(op: UnOp, ty: ScalarTy, a: u64) -> u64 {
    un_in(op, ty, a, Mode::DEFAULT)
}

/// Unary operation on one component; FNegate flushes a denormal operand under `mode`.
#[inline]
pub fn un_in(op: UnOp, ty: ScalarTy, a: u64, mode: Mode) -> u64 {
    let w = ty.bits();
    let m = mask(w);
    let fmt = fmt_of(ty);
    match op {
        UnOp::SNegate => a.wrapping_neg() & m,
        UnOp::FNegate => mode.flush(fmt, a) ^ fmt.sign_bit(),
        UnOp::Not => !a & m,
        UnOp::LogicalNot => u64::from(a == 0),
        UnOp::BitReverse => (a & m).reverse_bits() >> (64 - w),
        UnOp::BitCount => u64::from((a & m).count_ones()),
        UnOp::IsNan => u64::from(fmt.is_nan(a)),
        UnOp::IsInf => u64::from(a & !fmt.sign_bit() & mask(fmt.bits()) == fmt.inf()),
        UnOp::QuantizeToF16 => quantize_to_f16(a),
    }
}

/// OpQuantizeToF16: to f16 and back, to nearest even whatever the float controls say (they do
/// not apply to it); denormal f16 results flush to zero (keeping the sign), as the spec allows.
fn quantize_to_f16(a: u64) -> u64 {
    let h = float::convert(Format::F32, Format::F16, a, float::Round::Rte);
    let h = if Format::F16.is_subnormal(h) {
        h & Format::F16.sign_bit()
    } else {
        h
    };
    float::convert(Format::F16, Format::F32, h, float::Round::Rte)
}

/// The float modes a conversion obeys: the source width's (denormal operands) and the
/// destination width's (rounding and denormal results).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConvModes {
    /// The source width's mode.
    pub from: Mode,
    /// The destination width's mode.
    pub to: Mode,
}

impl ConvModes {
    /// The modes `fc` gives a conversion from `from` to `to`.
    #[inline]
    pub fn new(fc: &float::FloatControls, from: ScalarTy, to: ScalarTy) -> Self {
        Self {
            from: fc.of(from),
            to: fc.of(to),
        }
    }

    /// With an FPRoundingMode decoration's rounding, which overrides the width's.
    #[must_use]
    #[inline]
    pub fn decorated(mut self, round: Option<float::Round>) -> Self {
        if let Some(r) = round {
            self.to.round = r;
        }
        self
    }
}

/// Numeric conversion of one component under the default float mode. Returns (bits,
/// undefined).
#[inline]
pub fn conv(op: ConvOp, from: ScalarTy, to: ScalarTy, a: u64) -> (u64, bool) {
    conv_in(op, from, to, a, ConvModes::default())
}

/// Numeric conversion of one component, rounded once as the destination width's mode says.
/// Returns (bits, undefined).
#[inline]
pub fn conv_in(op: ConvOp, from: ScalarTy, to: ScalarTy, a: u64, modes: ConvModes) -> (u64, bool) {
    let fw = from.bits();
    let tw = to.bits();
    match op {
        ConvOp::UConvert => (trunc(a, fw) & mask(tw), false),
        ConvOp::SConvert => (sext(a, fw) as u64 & mask(tw), false),
        ConvOp::FConvert => {
            let (ff, tf) = (fmt_of(from), fmt_of(to));
            let x = modes.from.flush(ff, a);
            let r = float::convert(ff, tf, x, modes.to.round);
            (modes.to.flush(tf, r), false)
        }
        ConvOp::SToF => (
            float::from_i64(sext(a, fw), fmt_of(to), modes.to.round),
            false,
        ),
        ConvOp::UToF => (
            float::from_u64(trunc(a, fw), fmt_of(to), modes.to.round),
            false,
        ),
        ConvOp::FToU | ConvOp::FToS => {
            let ff = fmt_of(from);
            let x = float::to_f64(ff, modes.from.flush(ff, a)).trunc();
            let signed = op == ConvOp::FToS;
            // Powers of two, exact in f64 (tw <= 64).
            let two = |n: u32| f64::from_bits(u64::from(1023 + n) << 52);
            let (lo, hi) = if signed {
                (-two(tw - 1), two(tw - 1) - 1.0)
            } else {
                (0.0, two(tw) - 1.0)
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

    const F16: ScalarTy = ScalarTy::Float { bits: 16 };
    const BF16: ScalarTy = ScalarTy::BFloat16;
    const F64: ScalarTy = ScalarTy::Float { bits: 64 };

    #[test]
    fn conversions_round_once_from_every_source() {
        let f = ScalarTy::F32;
        // Low mantissa bits past the first dropped one decide (a software path that drops them
        // first rounds these to even).
        assert_eq!(conv(ConvOp::FConvert, f, BF16, 0x3F80_8001).0, 0x3F81);
        assert_eq!(conv(ConvOp::FConvert, f, F16, 0x3F80_1001).0, 0x3C01);
        let x = f64::from(f32::from_bits(0x3F80_1001)).to_bits();
        assert_eq!(conv(ConvOp::FConvert, F64, F16, x).0, 0x3C01);
        assert_eq!(
            conv(
                ConvOp::FConvert,
                F64,
                BF16,
                f64::from(f32::from_bits(0x3F80_8001)).to_bits()
            )
            .0,
            0x3F81
        );
        assert_eq!(
            crate::value::float_from_f64(BF16, f64::from(f32::from_bits(0x3F80_8001))),
            0x3F81
        );
        // 2^60 + 2^36 + 1 is just above the bf16 and f32 midpoints: i64 -> f64 would round it
        // onto them first.
        let u64t = ScalarTy::Int {
            bits: 64,
            signed: false,
        };
        let v = (1u64 << 60) + (1 << 36) + 1;
        assert_eq!(conv(ConvOp::UToF, u64t, f, v).0, u64::from(0x5D80_0001u32));
        let v = (1u64 << 60) + (1 << 52) + 1;
        assert_eq!(conv(ConvOp::UToF, u64t, BF16, v).0, 0x5D81);
        // The destination width's float controls round toward zero.
        let rtz = ConvModes {
            from: Mode::DEFAULT,
            to: Mode {
                round: float::Round::Rtz,
                ftz: false,
            },
        };
        assert_eq!(
            conv_in(ConvOp::FConvert, f, BF16, 0x3F80_FFFF, rtz).0,
            0x3F80
        );
        assert_eq!(
            conv_in(ConvOp::UToF, ScalarTy::U32, f, 0xFFFF_FFFF, rtz).0,
            0x4F7F_FFFF
        );
    }

    #[test]
    fn sixteen_bit_arithmetic_rounds_each_operation() {
        let h = |x: f64| float::from_f64(x, Format::F16, float::Round::Rte);
        // 2048 + 1 = 2049 is halfway between f16 neighbours: to even, 2048.
        assert_eq!(bin(BinOp::FAdd, F16, h(2048.0), h(1.0)).0, h(2048.0));
        assert_eq!(
            bin(
                BinOp::FMul,
                F16,
                h(1.0 + 1.0 / 1024.0),
                h(1.0 + 1.0 / 1024.0)
            )
            .0,
            h(1.0 + 2.0 / 1024.0)
        );
        assert_eq!(bin(BinOp::FDiv, F16, h(1.0), h(3.0)).0, 0x3555);
        // bf16 arithmetic in bf16, not as f16 bits.
        let b = |x: f64| float::from_f64(x, Format::BF16, float::Round::Rte);
        assert_eq!(bin(BinOp::FAdd, BF16, b(256.0), b(1.0)).0, b(256.0));
        assert_eq!(
            bin(BinOp::FMul, BF16, b(3.0), b(2f64.powi(100))).0,
            b(3.0 * 2f64.powi(100))
        );
        assert_eq!(
            bin(
                BinOp::FMul,
                BF16,
                b(1.0 + 1.0 / 128.0),
                b(1.0 + 1.0 / 128.0)
            )
            .0,
            b(1.0 + 2.0 / 128.0)
        );
        assert_eq!(bin(BinOp::FOrdLessThan, BF16, b(-1.0), b(1e-30)).0, 1);
        assert_eq!(un(UnOp::FNegate, BF16, b(2.0)), b(-2.0));
        assert_eq!(un(UnOp::IsNan, BF16, 0x7FC1), 1);
        assert_eq!(un(UnOp::IsInf, BF16, 0xFF80), 1);
        assert_eq!(un(UnOp::IsInf, BF16, 0x7C00), 0);
    }

    #[test]
    fn nan_results_are_canonical() {
        let (inf, ninf) = (f32::INFINITY.to_bits(), f32::NEG_INFINITY.to_bits());
        let q = Format::F32.quiet_nan();
        let f = ScalarTy::F32;
        assert_eq!(bin(BinOp::FAdd, f, u64::from(inf), u64::from(ninf)).0, q);
        assert_eq!(bin(BinOp::FMul, f, 0xFFC1_2345, 0x3F80_0000).0, q);
        assert_eq!(bin(BinOp::FRem, f, 0x3F80_0000, 0).0, q);
        assert_eq!(bin(BinOp::FSub, F16, 0x7C00, 0x7C00).0, 0x7E00);
    }

    #[test]
    fn float_controls_in_arithmetic() {
        let f = ScalarTy::F32;
        let rtz = Mode {
            round: float::Round::Rtz,
            ftz: false,
        };
        let ftz = Mode {
            round: float::Round::Rte,
            ftz: true,
        };
        let x = |v: f32| u64::from(v.to_bits());
        assert_eq!(bin_in(BinOp::FDiv, f, x(2.0), x(3.0), rtz).0, 0x3F2A_AAAA);
        assert_eq!(bin(BinOp::FDiv, f, x(2.0), x(3.0)).0, 0x3F2A_AAAB);
        // FMod's correction r + y rounds too.
        let r = bin_in(BinOp::FMod, f, x(-1e-30), x(1.0), rtz).0;
        assert_eq!(r, 0x3F7F_FFFF);
        assert_eq!(bin(BinOp::FMod, f, x(-1e-30), x(1.0)).0, x(1.0));
        // A denormal operand is zero: comparisons and division by it.
        let den = 1u64;
        assert_eq!(bin_in(BinOp::FOrdEqual, f, den, 0x8000_0000, ftz).0, 1);
        assert_eq!(bin(BinOp::FOrdEqual, f, den, 0).0, 0);
        assert!(bin_in(BinOp::FDiv, f, x(1.0), den, ftz).1);
        assert_eq!(un_in(UnOp::FNegate, f, den, ftz), 0x8000_0000);
        // OpQuantizeToF16 ignores them: to nearest even.
        assert_eq!(
            un_in(
                UnOp::QuantizeToF16,
                f,
                0x3F80_1001,
                Mode {
                    round: float::Round::Rtz,
                    ftz: true
                }
            ),
            0x3F80_2000
        );
    }
}
