//! Arithmetic over a tangle's lanes: an operation applied lane by lane to register slots,
//! with the undefined results it finds, and the float sums and products that dot products and
//! wide operations build on.

use super::step::{each, Ctx};
use super::Mask;
use crate::alu;
use crate::float::{arith, Mode};
use crate::program::BinOp;
use crate::trace::DiagCode;
use crate::value::{mask as bitmask, sext, ScalarTy};

#[inline(always)]
pub(super) fn map1(c: &mut Ctx<'_>, n: u32, dst: u32, a: u32, f: impl Fn(u64) -> u64) {
    let s = c.s;
    for k in 0..n {
        let (d, a) = ((dst + k) as usize * s, (a + k) as usize * s);
        let regs = &mut *c.regs;
        each(c.mask, c.full, s, |l| regs[d + l] = f(regs[a + l]));
    }
}

#[inline(always)]
fn map2(c: &mut Ctx<'_>, n: u32, dst: u32, a: u32, b: u32, f: impl Fn(u64, u64) -> u64) {
    let s = c.s;
    for k in 0..n {
        let (d, a, b) = (
            (dst + k) as usize * s,
            (a + k) as usize * s,
            (b + k) as usize * s,
        );
        let regs = &mut *c.regs;
        each(c.mask, c.full, s, |l| {
            regs[d + l] = f(regs[a + l], regs[b + l])
        });
    }
}

pub(super) fn bin(c: &mut Ctx<'_>, op: BinOp, ty: ScalarTy, n: u32, dst: u32, a: u32, b: u32) {
    let m = bitmask(ty.bits());
    // Float controls are looked up once per instruction; only f32 has a lane loop of its own.
    let mode = c.prog.float_controls.of(ty);
    let host32 = ty == ScalarTy::F32 && mode == Mode::DEFAULT;
    match op {
        BinOp::IAdd => map2(c, n, dst, a, b, |x, y| x.wrapping_add(y) & m),
        BinOp::ISub => map2(c, n, dst, a, b, |x, y| x.wrapping_sub(y) & m),
        BinOp::IMul => map2(c, n, dst, a, b, |x, y| x.wrapping_mul(y) & m),
        BinOp::And | BinOp::LogicalAnd => map2(c, n, dst, a, b, |x, y| x & y),
        BinOp::Or | BinOp::LogicalOr => map2(c, n, dst, a, b, |x, y| x | y),
        BinOp::Xor => map2(c, n, dst, a, b, |x, y| x ^ y),
        BinOp::IEqual => map2(c, n, dst, a, b, |x, y| u64::from(x == y)),
        BinOp::INotEqual => map2(c, n, dst, a, b, |x, y| u64::from(x != y)),
        BinOp::ULessThan => map2(c, n, dst, a, b, |x, y| u64::from(x < y)),
        BinOp::UGreaterThan => map2(c, n, dst, a, b, |x, y| u64::from(x > y)),
        BinOp::ULessThanEqual => map2(c, n, dst, a, b, |x, y| u64::from(x & m <= y & m)),
        BinOp::UGreaterThanEqual => map2(c, n, dst, a, b, |x, y| u64::from(x & m >= y & m)),
        BinOp::SLessThan
        | BinOp::SGreaterThan
        | BinOp::SLessThanEqual
        | BinOp::SGreaterThanEqual => {
            let w = ty.bits();
            let cmp = move |x: u64, y: u64| {
                let (x, y) = (sext(x, w), sext(y, w));
                u64::from(match op {
                    BinOp::SLessThan => x < y,
                    BinOp::SGreaterThan => x > y,
                    BinOp::SLessThanEqual => x <= y,
                    _ => x >= y,
                })
            };
            map2(c, n, dst, a, b, cmp);
        }
        BinOp::Shl | BinOp::ShrL | BinOp::ShrA => shift(c, op, ty, n, dst, a, b),
        BinOp::FAdd if host32 => map2(c, n, dst, a, b, |x, y| f32op(x, y, |p, q| p + q)),
        BinOp::FMul if host32 => map2(c, n, dst, a, b, |x, y| f32op(x, y, |p, q| p * q)),
        BinOp::FSub if host32 => map2(c, n, dst, a, b, |x, y| f32op(x, y, |p, q| p - q)),
        _ => map2_undef(c, op, n, dst, a, b, |x, y| alu::bin_in(op, ty, x, y, mode)),
    }
}

/// `map2` for operations that can be undefined: `f` gives the value and whether it is
/// undefined; the lanes where it is are one diagnostic.
#[inline(always)]
fn map2_undef(
    c: &mut Ctx<'_>,
    op: BinOp,
    n: u32,
    dst: u32,
    a: u32,
    b: u32,
    f: impl Fn(u64, u64) -> (u64, bool),
) {
    let s = c.s;
    let mut undef: Mask = 0;
    for k in 0..n {
        let (d, ai, bi) = (
            (dst + k) as usize * s,
            (a + k) as usize * s,
            (b + k) as usize * s,
        );
        let regs = &mut *c.regs;
        each(c.mask, c.full, s, |l| {
            let (v, u) = f(regs[ai + l], regs[bi + l]);
            regs[d + l] = v;
            if u {
                undef |= 1 << l;
            }
        });
    }
    c.found.add_with(DiagCode::UndefinedResult, undef, || {
        format!("{op:?} has an undefined result (division by zero or shift too large)")
    });
}

/// Shifts: a shift by the width or more is undefined (the result reads 0).
fn shift(c: &mut Ctx<'_>, op: BinOp, ty: ScalarTy, n: u32, dst: u32, a: u32, b: u32) {
    let w = ty.bits();
    let m = bitmask(w);
    map2_undef(c, op, n, dst, a, b, |x, y| {
        let sh = y & m;
        if sh >= u64::from(w) {
            return (0, true);
        }
        let v = match op {
            BinOp::Shl => (x << sh) & m,
            BinOp::ShrL => (x & m) >> sh,
            _ => (sext(x, w) >> sh) as u64 & m,
        };
        (v, false)
    });
}

#[inline(always)]
fn f32op(x: u64, y: u64, f: impl Fn(f32, f32) -> f32) -> u64 {
    arith::bits32(f(f32::from_bits(x as u32), f32::from_bits(y as u32)))
}

/// `acc + x * y`, the product and the sum each rounded to the type (every float type, bf16
/// included) under `mode`, or wrapping integer arithmetic.
fn arith_add(ty: ScalarTy, acc: u64, x: u64, y: u64, mode: Mode) -> u64 {
    let add = if ty.is_any_float() {
        BinOp::FAdd
    } else {
        BinOp::IAdd
    };
    alu::bin_in(add, ty, acc, product(ty, x, y, mode), mode).0
}

/// The sum of the products of `pairs`, left to right from the first product (not from +0:
/// +0 + -0 is +0, so a sum of -0 products started from +0 would lose its sign).
pub(super) fn dot_sum(
    ty: ScalarTy,
    mode: Mode,
    mut pairs: impl Iterator<Item = (u64, u64)>,
) -> u64 {
    let Some((x, y)) = pairs.next() else {
        return 0;
    };
    pairs.fold(product(ty, x, y, mode), |acc, (x, y)| {
        arith_add(ty, acc, x, y, mode)
    })
}

/// `x * y` rounded to the type under `mode`, or wrapping integer arithmetic.
fn product(ty: ScalarTy, x: u64, y: u64, mode: Mode) -> u64 {
    let mul = if ty.is_any_float() {
        BinOp::FMul
    } else {
        BinOp::IMul
    };
    alu::bin_in(mul, ty, x, y, mode).0
}

/// An index operand of `bits` bits as a number.
#[inline(always)]
pub(super) fn index_value(raw: u64, bits: u8, signed: bool) -> i64 {
    if signed {
        sext(raw, u32::from(bits))
    } else {
        (raw & bitmask(u32::from(bits))) as i64
    }
}
