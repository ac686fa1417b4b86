//! Vector and matrix instructions: Length, Distance, Cross, Normalize, FaceForward, Reflect, Refract, Determinant, MatrixInverse.

use super::real::Real;
use super::{bad, check_args, check_out, op, Arg, Glsl450Error};
use crate::value::ScalarTy;

/// Dot product in `T`, summed left to right from the first product (not from +0, which
/// would turn a -0 dot product into +0).
pub(super) fn dot<T: Real>(a: &Arg<'_>, b: &Arg<'_>) -> T {
    let (ba, bb) = (a.ty.bits(), b.ty.bits());
    let mut p = a
        .comps
        .iter()
        .zip(b.comps)
        .map(|(x, y)| T::ld(*x, ba) * T::ld(*y, bb));
    let first = p.next().unwrap_or(T::ZERO);
    p.fold(first, |s, v| s + v)
}

/// Length, Distance, Cross, Normalize, FaceForward, Reflect, Refract.
pub(super) fn geometric<T: Real>(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    let n = args[0].comps.len();
    let ld = |i: usize, k: usize| T::ld(args[i].comps[k], args[i].ty.bits());
    let mut undef = false;
    match inst {
        op::Length | op::Distance => {
            check_args(inst, args, n, false)?;
            check_out(inst, out, 1)?;
            let s = if inst == op::Length {
                dot::<T>(&args[0], &args[0])
            } else {
                (0..n).fold(T::ZERO, |s, k| {
                    let d = ld(0, k) - ld(1, k);
                    s + d * d
                })
            };
            out[0] = s.sqrt().st(out_tys[0].bits());
        }
        op::Cross => {
            check_args(inst, args, 3, false)?;
            check_out(inst, out, 3)?;
            let (a, b) = (|k| ld(0, k), |k| ld(1, k));
            let r = [
                a(1) * b(2) - b(1) * a(2),
                a(2) * b(0) - b(2) * a(0),
                a(0) * b(1) - b(0) * a(1),
            ];
            for (o, (v, ty)) in out.iter_mut().zip(r.iter().zip(out_tys)) {
                *o = v.st(ty.bits());
            }
        }
        op::Normalize => {
            check_out(inst, out, n)?;
            let len = dot::<T>(&args[0], &args[0]).sqrt();
            undef = len == T::ZERO;
            for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
                *o = (ld(0, k) / len).st(ty.bits());
            }
        }
        op::FaceForward => {
            // FaceForward(N, I, Nref): dot(Nref, I) < 0 ? N : -N
            check_args(inst, args, n, false)?;
            check_out(inst, out, n)?;
            let keep = dot::<T>(&args[2], &args[1]) < T::ZERO;
            for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
                let v = ld(0, k);
                *o = (if keep { v } else { -v }).st(ty.bits());
            }
        }
        op::Reflect => {
            // Reflect(I, N) = I - 2 dot(N, I) N
            check_args(inst, args, n, false)?;
            check_out(inst, out, n)?;
            let d2 = T::TWO * dot::<T>(&args[1], &args[0]);
            for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
                *o = (ld(0, k) - d2 * ld(1, k)).st(ty.bits());
            }
        }
        _ => {
            // Refract(I, N, eta); zero vector on total internal reflection.
            check_args(inst, &args[..2], n, false)?;
            check_args(inst, &args[2..], 1, false)?;
            check_out(inst, out, n)?;
            let (d, eta) = (dot::<T>(&args[1], &args[0]), ld(2, 0));
            let k = T::ONE - eta * eta * (T::ONE - d * d);
            for (c, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
                let r = if k < T::ZERO {
                    T::ZERO
                } else {
                    eta * ld(0, c) - (eta * d + k.sqrt()) * ld(1, c)
                };
                *o = r.st(ty.bits());
            }
        }
    }
    Ok(undef)
}

/// Matrix minor without row `skip_r` and column `skip_c`; both matrices are column-major with
/// stride equal to their size.
pub(super) fn minor<T: Real>(m: &[T; 16], n: usize, skip_r: usize, skip_c: usize) -> [T; 16] {
    let mut o = [T::ZERO; 16];
    let mut i = 0;
    for c in (0..n).filter(|&c| c != skip_c) {
        for r in (0..n).filter(|&r| r != skip_r) {
            o[i] = m[c * n + r];
            i += 1;
        }
    }
    o
}

/// Determinant by cofactor expansion down column 0 (n <= 4, so at most 24 products).
pub(super) fn det<T: Real>(m: &[T; 16], n: usize) -> T {
    match n {
        1 => m[0],
        2 => m[0] * m[3] - m[2] * m[1],
        _ => (0..n).fold(T::ZERO, |s, r| {
            let t = m[r] * det(&minor(m, n, r, 0), n - 1);
            if r % 2 == 0 {
                s + t
            } else {
                s - t
            }
        }),
    }
}

/// Determinant (33) and MatrixInverse (34, adjugate over determinant).
pub(super) fn matrix<T: Real>(
    inst: u32,
    out_tys: &[ScalarTy],
    a: &Arg<'_>,
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    let l = a.comps.len();
    let n = match l {
        4 => 2,
        9 => 3,
        16 => 4,
        _ => {
            return Err(bad(
                inst,
                format!("{l} components is not a 2x2, 3x3 or 4x4 matrix"),
            ))
        }
    };
    check_out(inst, out, if inst == op::Determinant { 1 } else { l })?;
    let mut m = [T::ZERO; 16];
    for (d, v) in m.iter_mut().zip(a.comps) {
        *d = T::ld(*v, a.ty.bits());
    }
    let d = det(&m, n);
    if inst == op::Determinant {
        out[0] = d.st(out_tys[0].bits());
        return Ok(false);
    }
    // inverse(row r, col c) = cofactor(row c, col r) / det
    for c in 0..n {
        for r in 0..n {
            let cof = det(&minor(&m, n, c, r), n - 1);
            let v = if (r + c) % 2 == 0 { cof } else { -cof };
            out[c * n + r] = (v / d).st(out_tys[c * n + r].bits());
        }
    }
    Ok(d == T::ZERO || !d.is_finite())
}
