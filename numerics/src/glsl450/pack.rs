//! Frexp and Ldexp, and the Pack/Unpack instructions (norms, halves, doubles).

use super::real::{ld32, st32};
use super::{check_args, check_out, comp, op, Arg, Glsl450Error};
use crate::float::{self, arith, Format, Round};
use crate::value::{mask, sext, to_f64, trunc, ScalarTy};

/// C `frexp`: significand in [0.5, 1) and exponent; (x, 0) for zero, Inf and NaN.
pub(super) fn frexp(x: f64) -> (f64, i64) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    // Scale subnormals up by 2^64 so the exponent field is meaningful.
    let (y, adj) = if x.abs() < f64::MIN_POSITIVE {
        (x * f64::from_bits((1023 + 64) << 52), -64)
    } else {
        (x, 0)
    };
    let b = y.to_bits();
    let e = ((b >> 52) & 0x7ff) as i64 - 1022;
    (f64::from_bits((b & !(0x7ff << 52)) | (1022 << 52)), e + adj)
}

/// `x * 2^n` with a single rounding (musl's scalbn).
pub(super) fn scalbn(x: f64, n: i64) -> f64 {
    let mut n = n.clamp(-5000, 5000);
    let mut y = x;
    let big = f64::from_bits((1023 + 1023) << 52); // 2^1023
    let small = f64::from_bits((1023 - 1022 + 53) << 52); // 2^-969 = 2^-1022 * 2^53
    for _ in 0..2 {
        if n > 1023 {
            y *= big;
            n -= 1023;
        } else if n < -1022 {
            // Keep the final n below -53 so the last multiply rounds only once.
            y *= small;
            n += 1022 - 53;
        }
    }
    let n = n.clamp(-1022, 1023);
    y * f64::from_bits(((0x3ff + n) as u64) << 52)
}

/// Frexp, FrexpStruct and Ldexp, done in f64: exact for every narrower format, and the final
/// conversion rounds once (Ldexp as `round` says).
pub(super) fn frexp_ldexp(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
    round: Round,
) -> Result<bool, Glsl450Error> {
    let xb = args[0].ty.bits();
    let mut undef = false;
    if inst == op::Ldexp {
        check_args(inst, args, out.len(), true)?;
        let e = &args[1];
        for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
            let x = to_f64(comp(&args[0], k), xb);
            let ev = comp(e, k);
            let ev = if e.ty.is_signed() {
                sext(ev, e.ty.bits())
            } else {
                trunc(ev, e.ty.bits()).min(1 << 20) as i64
            };
            let ob = ty.bits();
            *o = float::result_from_f64(scalbn(x, ev), Format::ieee(ob), round);
            // Past the largest exponent + 1 (16 for f16, 128 for f32, 1024 for f64) or
            // overflowing to infinity: undefined.
            let limit = match ob {
                16 => 16,
                32 => 128,
                _ => 1024,
            };
            undef |= ev > limit || (x.is_finite() && !to_f64(*o, ob).is_finite());
        }
        return Ok(undef);
    }
    let n = out.len() / 2;
    check_out(inst, out, 2 * n)?;
    check_args(inst, args, n, false)?;
    for k in 0..n {
        let x = to_f64(args[0].comps[k], xb);
        let (m, e) = frexp(x);
        undef |= !x.is_finite();
        out[k] = float::result_from_f64(m, Format::ieee(out_tys[k].bits()), Round::Rte);
        out[n + k] = trunc(e as u64, out_tys[n + k].bits());
    }
    Ok(undef)
}

/// Pack* and Unpack*, on f32 (and u32 / f64 for the Double forms). Component 0 goes to the
/// least significant bits.
pub(super) fn pack_eval(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    let (in_n, out_n) = match inst {
        op::PackSnorm4x8 | op::PackUnorm4x8 => (4, 1),
        op::PackSnorm2x16..=op::PackDouble2x32 => (2, 1),
        op::UnpackSnorm4x8 | op::UnpackUnorm4x8 => (1, 4),
        _ => (1, 2),
    };
    let a = &args[0];
    check_args(inst, args, in_n, false)?;
    check_out(inst, out, out_n)?;
    let f = |k: usize| ld32(a.comps[k], a.ty.bits());
    match inst {
        op::PackSnorm4x8..=op::PackHalf2x16 => {
            let width = 32 / in_n;
            let mut word = 0u64;
            for k in 0..in_n {
                let c = f(k);
                let field = match inst {
                    op::PackSnorm4x8 => u64::from((c.clamp(-1.0, 1.0) * 127.0).round() as i8 as u8),
                    op::PackUnorm4x8 => u64::from((c.clamp(0.0, 1.0) * 255.0).round() as u8),
                    op::PackSnorm2x16 => {
                        u64::from((c.clamp(-1.0, 1.0) * 32767.0).round() as i16 as u16)
                    }
                    op::PackUnorm2x16 => u64::from((c.clamp(0.0, 1.0) * 65535.0).round() as u16),
                    _ => float::convert(Format::F32, Format::F16, arith::bits32(c), Round::Rte),
                };
                word |= field << (k * width);
            }
            out[0] = trunc(word, out_tys[0].bits());
        }
        op::PackDouble2x32 => out[0] = trunc(a.comps[0], 32) | (trunc(a.comps[1], 32) << 32),
        op::UnpackDouble2x32 => {
            out[0] = trunc(a.comps[0], 32);
            out[1] = trunc(a.comps[0] >> 32, 32);
        }
        _ => {
            let v = trunc(a.comps[0], 32);
            let width = (32 / out_n) as u32;
            for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
                let field = (v >> (k as u32 * width)) & mask(width);
                let r = match inst {
                    op::UnpackSnorm2x16 => {
                        (f32::from(field as u16 as i16) / 32767.0).clamp(-1.0, 1.0)
                    }
                    op::UnpackUnorm2x16 => f32::from(field as u16) / 65535.0,
                    op::UnpackHalf2x16 => ld32(field, 16),
                    op::UnpackSnorm4x8 => (f32::from(field as u8 as i8) / 127.0).clamp(-1.0, 1.0),
                    _ => f32::from(field as u8) / 255.0,
                };
                *o = st32(r, ty.bits());
            }
        }
    }
    Ok(false)
}
