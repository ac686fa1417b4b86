//! The GLSL.std.450 extended instruction set, evaluated for one invocation on raw-bit scalars.
//!
//! Float math runs in the operands' own precision: f32 in f32, f64 in f64, and f16 in f16 (every
//! addition, subtraction, multiplication and division of a compound function such as
//! Determinant, Length or SmoothStep rounded to f16, as 16-bit hardware does; each elementary
//! function evaluated in f64 and rounded once). Transcendentals come from the `libm` crate in
//! every build (see `real`). bfloat16 operands are refused at load (SPV_KHR_bfloat16 allows
//! none here). Where the spec leaves the choice to the implementation:
//! - Round, and the rounding inside `Pack{S,U}norm*`, send halfway cases away from zero.
//! - FMin/FMax with a NaN operand return what `y < x ? y : x` (resp. `x < y ? y : x`) gives,
//!   and are flagged undefined; FClamp is built from them.
//! - FSign(NaN) is NaN and FSign(±0) is ±0 (not flagged).
//! - Normalize of a zero-length vector and MatrixInverse of a matrix whose determinant is 0 or
//!   not finite are flagged undefined (both divide by zero).
//! - Frexp of ±Inf or NaN gives (x, 0), flagged undefined.
//! - IMix (47, absent from current revisions of the spec) blends like FMix on floats and computes
//!   `x * (1 - a) + y * a` with wrapping arithmetic on integers.

mod real;

use real::{ld32, st32, Real, H16};

use crate::float::{self, arith, FloatControls, Format, Round};
use crate::value::{mask, sext, to_f64, trunc, ScalarTy};

/// One operand: the type of its scalar components and the components (1 for a scalar, n for a
/// vector, cols*rows for a square matrix, column-major).
pub struct Arg<'a> {
    pub ty: ScalarTy,
    pub comps: &'a [u64],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Glsl450Error {
    /// Not meaningful in a compute shader (InterpolateAt*), or an unknown instruction number.
    Unsupported { inst: u32, name: &'static str },
    /// Operand shapes do not match what the instruction requires.
    BadOperands {
        inst: u32,
        name: &'static str,
        detail: String,
    },
}

#[rustfmt::skip]
const NAMES: [&str; 82] = [
    "unknown", "Round", "RoundEven", "Trunc", "FAbs", "SAbs", "FSign", "SSign", "Floor", "Ceil",
    "Fract", "Radians", "Degrees", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
    "Tanh", "Asinh", "Acosh", "Atanh", "Atan2", "Pow", "Exp", "Log", "Exp2", "Log2", "Sqrt",
    "InverseSqrt", "Determinant", "MatrixInverse", "Modf", "ModfStruct", "FMin", "UMin", "SMin",
    "FMax", "UMax", "SMax", "FClamp", "UClamp", "SClamp", "FMix", "IMix", "Step", "SmoothStep",
    "Fma", "Frexp", "FrexpStruct", "Ldexp", "PackSnorm4x8", "PackUnorm4x8", "PackSnorm2x16",
    "PackUnorm2x16", "PackHalf2x16", "PackDouble2x32", "UnpackSnorm2x16", "UnpackUnorm2x16",
    "UnpackHalf2x16", "UnpackSnorm4x8", "UnpackUnorm4x8", "UnpackDouble2x32", "Length",
    "Distance", "Cross", "Normalize", "FaceForward", "Reflect", "Refract", "FindILsb", "FindSMsb",
    "FindUMsb", "InterpolateAtCentroid", "InterpolateAtSample", "InterpolateAtOffset", "NMin",
    "NMax", "NClamp",
];

/// Name of an instruction number, e.g. 31 -> "Sqrt" ("unknown" otherwise).
pub fn name(inst: u32) -> &'static str {
    NAMES.get(inst as usize).copied().unwrap_or("unknown")
}

/// Number of value operands each instruction takes (the pointer forms Modf/Frexp count only
/// their first operand, as the caller passes only that one).
fn arity(inst: u32) -> usize {
    match inst {
        25 | 26 | 37..=42 | 48 | 53 | 67 | 68 | 71 | 77..=80 => 2,
        43..=47 | 49 | 50 | 70 | 72 | 81 => 3,
        _ => 1,
    }
}

fn bad(inst: u32, detail: String) -> Glsl450Error {
    Glsl450Error::BadOperands {
        inst,
        name: name(inst),
        detail,
    }
}

/// Evaluate `inst` for ONE invocation, writing one raw value per entry of `out_tys` into `out`.
///
/// Returns `Ok(true)` when the spec calls the result undefined for these inputs (a value is
/// still written: what the natural IEEE computation gives), `Ok(false)` otherwise.
///
/// Component-wise instructions accept a 1-component operand where the others are vectors and
/// broadcast it. For ModfStruct/FrexpStruct `out` holds the flattened struct: the n components
/// of member 0 (fraction / significand) then the n components of member 1 (whole part /
/// exponent). Modf (35) and Frexp (51), the pointer forms, take only their first operand and
/// produce the same 2n layout; the caller stores the second half through the pointer itself.
///
/// This is the default float mode (round to nearest even, denormals kept); see [`eval_in`].
pub fn eval(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    eval_in(inst, out_tys, args, out, &FloatControls::default())
}

/// [`eval`] under the entry point's float controls `fc`.
///
/// DenormFlushToZero flushes every float operand and result of a flushing width (Vulkan lets
/// the steps inside a function flush or not, only its result must not be denormal).
/// RoundingModeRTZ rounds Fma (exactly fused) and Ldexp toward zero; every other function
/// keeps rounding to nearest even: the exact ones (FAbs, Floor, FMin, Frexp, ...) are
/// unaffected, and the transcendental and compound ones (Sin, Pow, Length, Determinant, FMix,
/// SmoothStep, Pack*, ...) round their steps to nearest, within the precision Vulkan allows
/// them but not what a device computing every step toward zero would give.
#[inline]
pub fn eval_in(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
    fc: &FloatControls,
) -> Result<bool, Glsl450Error> {
    if fc.is_default() {
        return dispatch(inst, out_tys, args, out, Round::Rte);
    }
    let flush = |ty: ScalarTy, v: u64| match Format::of(ty) {
        Some(f) => fc.of(ty).flush(f, v),
        None => v,
    };
    let flushed: Vec<Vec<u64>> = args
        .iter()
        .map(|a| a.comps.iter().map(|v| flush(a.ty, *v)).collect())
        .collect();
    let args: Vec<Arg<'_>> = args
        .iter()
        .zip(&flushed)
        .map(|(a, comps)| Arg { ty: a.ty, comps })
        .collect();
    let round = out_tys.first().map_or(Round::Rte, |t| fc.of(*t).round);
    let undef = if inst == 50 && round != Round::Rte {
        fma_rounded(&args, out_tys, out, fc)?
    } else {
        dispatch(inst, out_tys, &args, out, round)?
    };
    for (o, ty) in out.iter_mut().zip(out_tys) {
        *o = flush(*ty, *o);
    }
    Ok(undef)
}

/// Fma rounded once in its own format under the controls' mode (the default path computes
/// the same exactly fused value, rounded to nearest).
fn fma_rounded(
    args: &[Arg<'_>],
    out_tys: &[ScalarTy],
    out: &mut [u64],
    fc: &FloatControls,
) -> Result<bool, Glsl450Error> {
    if args.len() != 3 || out.len() != out_tys.len() {
        let (a, o) = (args.len(), out.len());
        return Err(bad(50, format!("{a} operands and {o} results")));
    }
    check_args(50, args, out.len(), true)?;
    for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
        let fmt = Format::of(*ty).unwrap_or(Format::F32);
        let [a, b, c] = [0, 1, 2].map(|i| comp(&args[i], k));
        *o = arith::fma(fmt, a, b, c, fc.of(*ty));
    }
    Ok(false)
}

/// Checks the operands and evaluates by family; `round` applies where the family honours
/// RoundingModeRTZ (see `eval_in`).
#[inline]
fn dispatch(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
    round: Round,
) -> Result<bool, Glsl450Error> {
    if !(1..=81).contains(&inst) || (76..=78).contains(&inst) {
        return Err(Glsl450Error::Unsupported {
            inst,
            name: name(inst),
        });
    }
    if out.len() != out_tys.len() {
        let (o, t) = (out.len(), out_tys.len());
        return Err(bad(inst, format!("{o} output slots for {t} output types")));
    }
    let want = arity(inst);
    if args.len() != want {
        let got = args.len();
        return Err(bad(inst, format!("{got} operands, expected {want}")));
    }
    match inst {
        5 | 7 | 38 | 39 | 41 | 42 | 44 | 45 | 73..=75 => int_eval(inst, out_tys, args, out),
        47 if !args[0].ty.is_float() => int_eval(inst, out_tys, args, out),
        51..=53 => frexp_ldexp(inst, out_tys, args, out, round),
        54..=65 => pack_eval(inst, out_tys, args, out),
        _ => {
            let fbits = |t: ScalarTy| match t {
                ScalarTy::Float { bits } => Some(bits),
                _ => None,
            };
            let bits = out_tys.first().and_then(|t| fbits(*t));
            match bits.or_else(|| fbits(args[0].ty)) {
                Some(64) => float_eval::<f64>(inst, out_tys, args, out),
                Some(16) => float_eval::<H16>(inst, out_tys, args, out),
                _ => float_eval::<f32>(inst, out_tys, args, out),
            }
        }
    }
}

/// Component `k` of an operand, broadcasting a 1-component operand.
#[inline]
fn comp(a: &Arg<'_>, k: usize) -> u64 {
    if a.comps.len() == 1 {
        a.comps[0]
    } else {
        a.comps[k]
    }
}

/// Every operand must have `n` components, or a single one (broadcast) when `bcast`.
fn check_args(inst: u32, args: &[Arg<'_>], n: usize, bcast: bool) -> Result<(), Glsl450Error> {
    for (i, a) in args.iter().enumerate() {
        let l = a.comps.len();
        if l != n && !(bcast && l == 1) {
            return Err(bad(
                inst,
                format!("operand {i} has {l} components, expected {n}"),
            ));
        }
    }
    Ok(())
}

fn check_out(inst: u32, out: &[u64], n: usize) -> Result<(), Glsl450Error> {
    let l = out.len();
    if l != n {
        return Err(bad(inst, format!("{l} result components, expected {n}")));
    }
    Ok(())
}

/// Integer instructions; the operation's signedness comes from the instruction, the width
/// from each operand's type, and the result is truncated to the output type's width.
fn int_eval(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    check_args(inst, args, out.len(), true)?;
    let mut undef = false;
    for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
        let u = |i: usize| trunc(comp(&args[i], k), args[i].ty.bits());
        let s = |i: usize| sext(comp(&args[i], k), args[i].ty.bits());
        let r = match inst {
            5 => s(0).wrapping_abs() as u64,
            7 => s(0).signum() as u64,
            38 => u(0).min(u(1)),
            39 => s(0).min(s(1)) as u64,
            41 => u(0).max(u(1)),
            42 => s(0).max(s(1)) as u64,
            // min(max(x, lo), hi) as the spec writes it (`clamp` would panic when lo > hi).
            44 => {
                undef |= u(1) > u(2);
                u(0).max(u(1)).min(u(2))
            }
            45 => {
                undef |= s(1) > s(2);
                s(0).max(s(1)).min(s(2)) as u64
            }
            47 => {
                let a = u(2);
                let x = u(0).wrapping_mul(1u64.wrapping_sub(a));
                x.wrapping_add(u(1).wrapping_mul(a))
            }
            73 => match u(0) {
                0 => u64::MAX,
                v => u64::from(v.trailing_zeros()),
            },
            // FindSMsb: for negative values, the most significant 0 bit.
            74 => match s(0) {
                v if v < 0 => msb(!v as u64),
                v => msb(v as u64),
            },
            _ => msb(u(0)),
        };
        *o = trunc(r, ty.bits());
    }
    Ok(undef)
}

/// Index of the highest set bit, or -1 (all ones) for 0.
fn msb(v: u64) -> u64 {
    if v == 0 {
        u64::MAX
    } else {
        u64::from(63 - v.leading_zeros())
    }
}

/// FMin: `y < x ? y : x`.
fn fmin<T: Real>(x: T, y: T) -> T {
    if y < x {
        y
    } else {
        x
    }
}

/// FMax: `x < y ? y : x`.
fn fmax<T: Real>(x: T, y: T) -> T {
    if x < y {
        y
    } else {
        x
    }
}

/// NMin/NMax: like FMin/FMax, but a NaN operand loses to a number.
fn nmin<T: Real>(x: T, y: T) -> T {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else {
        fmin(x, y)
    }
}

fn nmax<T: Real>(x: T, y: T) -> T {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else {
        fmax(x, y)
    }
}

/// Dot product in `T`, summed left to right from the first product (not from +0, which
/// would turn a -0 dot product into +0).
fn dot<T: Real>(a: &Arg<'_>, b: &Arg<'_>) -> T {
    let (ba, bb) = (a.ty.bits(), b.ty.bits());
    let mut p = a
        .comps
        .iter()
        .zip(b.comps)
        .map(|(x, y)| T::ld(*x, ba) * T::ld(*y, bb));
    let first = p.next().unwrap_or(T::ZERO);
    p.fold(first, |s, v| s + v)
}

fn float_eval<T: Real>(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    match inst {
        33 | 34 => return matrix::<T>(inst, out_tys, &args[0], out),
        35 | 36 => {
            // (fraction, whole), both with the sign of x; Modf(±Inf) = (±0, ±Inf).
            let n = out.len() / 2;
            check_out(inst, out, 2 * n)?;
            check_args(inst, args, n, false)?;
            for k in 0..n {
                let x = T::ld(args[0].comps[k], args[0].ty.bits());
                let whole = x.trunc();
                let frac = if x.is_infinite() { T::ZERO } else { x - whole };
                out[k] = frac.copysign(x).st(out_tys[k].bits());
                out[n + k] = whole.st(out_tys[n + k].bits());
            }
            return Ok(false);
        }
        66..=72 => return geometric::<T>(inst, out_tys, args, out),
        _ => {}
    }
    check_args(inst, args, out.len(), true)?;
    let mut undef = false;
    for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
        let a = |i: usize| T::ld(comp(&args[i], k), args[i].ty.bits());
        let x = a(0);
        let (r, u) = match inst {
            1 => (x.round(), false),
            2 => (x.round_ties_even(), false),
            3 => (x.trunc(), false),
            4 => (x.abs(), false),
            6 if x > T::ZERO => (T::ONE, false),
            6 if x < T::ZERO => (-T::ONE, false),
            6 => (x, false), // ±0 and NaN pass through
            8 => (x.floor(), false),
            9 => (x.ceil(), false),
            10 => (x - x.floor(), false),
            11 => (x.to_radians(), false),
            12 => (x.to_degrees(), false),
            13 => (x.sin(), false),
            14 => (x.cos(), false),
            15 => (x.tan(), false),
            16 => (x.asin(), x.abs() > T::ONE),
            17 => (x.acos(), x.abs() > T::ONE),
            18 => (x.atan(), false),
            19 => (x.sinh(), false),
            20 => (x.cosh(), false),
            21 => (x.tanh(), false),
            22 => (x.asinh(), false),
            23 => (x.acosh(), x < T::ONE),
            24 => (x.atanh(), x.abs() >= T::ONE),
            25 => {
                let xx = a(1); // Atan2(y, x)
                (x.atan2(xx), x == T::ZERO && xx == T::ZERO)
            }
            26 => {
                let y = a(1);
                (x.powf(y), x < T::ZERO || (x == T::ZERO && y <= T::ZERO))
            }
            27 => (x.exp(), false),
            28 => (x.ln(), x <= T::ZERO),
            29 => (x.exp2(), false),
            30 => (x.log2(), x <= T::ZERO),
            31 => (x.sqrt(), x < T::ZERO),
            32 => (T::ONE / x.sqrt(), x <= T::ZERO),
            37 | 40 => {
                let y = a(1);
                let r = if inst == 37 { fmin(x, y) } else { fmax(x, y) };
                (r, x.is_nan() || y.is_nan())
            }
            43 => {
                let (lo, hi) = (a(1), a(2));
                let nan = x.is_nan() || lo.is_nan() || hi.is_nan();
                (fmin(fmax(x, lo), hi), nan || lo > hi)
            }
            46 | 47 => {
                let (y, t) = (a(1), a(2));
                (x * (T::ONE - t) + y * t, false)
            }
            48 => (if a(1) < x { T::ZERO } else { T::ONE }, false), // Step(edge, x)
            49 => {
                let (e1, v) = (a(1), a(2));
                let t = fmin(fmax((v - x) / (e1 - x), T::ZERO), T::ONE);
                (t * t * (T::THREE - T::TWO * t), x >= e1)
            }
            50 => (x.mul_add(a(1), a(2)), false),
            79 => (nmin(x, a(1)), false),
            80 => (nmax(x, a(1)), false),
            81 => {
                let (lo, hi) = (a(1), a(2));
                (nmin(nmax(x, lo), hi), lo > hi)
            }
            _ => {
                return Err(Glsl450Error::Unsupported {
                    inst,
                    name: name(inst),
                })
            }
        };
        undef |= u;
        *o = r.st(ty.bits());
    }
    Ok(undef)
}

/// Length, Distance, Cross, Normalize, FaceForward, Reflect, Refract.
fn geometric<T: Real>(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    let n = args[0].comps.len();
    let ld = |i: usize, k: usize| T::ld(args[i].comps[k], args[i].ty.bits());
    let mut undef = false;
    match inst {
        66 | 67 => {
            check_args(inst, args, n, false)?;
            check_out(inst, out, 1)?;
            let s = if inst == 66 {
                dot::<T>(&args[0], &args[0])
            } else {
                (0..n).fold(T::ZERO, |s, k| {
                    let d = ld(0, k) - ld(1, k);
                    s + d * d
                })
            };
            out[0] = s.sqrt().st(out_tys[0].bits());
        }
        68 => {
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
        69 => {
            check_out(inst, out, n)?;
            let len = dot::<T>(&args[0], &args[0]).sqrt();
            undef = len == T::ZERO;
            for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
                *o = (ld(0, k) / len).st(ty.bits());
            }
        }
        70 => {
            // FaceForward(N, I, Nref): dot(Nref, I) < 0 ? N : -N
            check_args(inst, args, n, false)?;
            check_out(inst, out, n)?;
            let keep = dot::<T>(&args[2], &args[1]) < T::ZERO;
            for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
                let v = ld(0, k);
                *o = (if keep { v } else { -v }).st(ty.bits());
            }
        }
        71 => {
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
fn minor<T: Real>(m: &[T; 16], n: usize, skip_r: usize, skip_c: usize) -> [T; 16] {
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
fn det<T: Real>(m: &[T; 16], n: usize) -> T {
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
fn matrix<T: Real>(
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
    check_out(inst, out, if inst == 33 { 1 } else { l })?;
    let mut m = [T::ZERO; 16];
    for (d, v) in m.iter_mut().zip(a.comps) {
        *d = T::ld(*v, a.ty.bits());
    }
    let d = det(&m, n);
    if inst == 33 {
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

/// C `frexp`: significand in [0.5, 1) and exponent; (x, 0) for zero, Inf and NaN.
fn frexp(x: f64) -> (f64, i64) {
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
fn scalbn(x: f64, n: i64) -> f64 {
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
fn frexp_ldexp(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
    round: Round,
) -> Result<bool, Glsl450Error> {
    let xb = args[0].ty.bits();
    let mut undef = false;
    if inst == 53 {
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
fn pack_eval(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    let (in_n, out_n) = match inst {
        54 | 55 => (4, 1),
        56..=59 => (2, 1),
        63 | 64 => (1, 4),
        _ => (1, 2),
    };
    let a = &args[0];
    check_args(inst, args, in_n, false)?;
    check_out(inst, out, out_n)?;
    let f = |k: usize| ld32(a.comps[k], a.ty.bits());
    match inst {
        54..=58 => {
            let width = 32 / in_n;
            let mut word = 0u64;
            for k in 0..in_n {
                let c = f(k);
                let field = match inst {
                    54 => u64::from((c.clamp(-1.0, 1.0) * 127.0).round() as i8 as u8),
                    55 => u64::from((c.clamp(0.0, 1.0) * 255.0).round() as u8),
                    56 => u64::from((c.clamp(-1.0, 1.0) * 32767.0).round() as i16 as u16),
                    57 => u64::from((c.clamp(0.0, 1.0) * 65535.0).round() as u16),
                    _ => float::convert(Format::F32, Format::F16, arith::bits32(c), Round::Rte),
                };
                word |= field << (k * width);
            }
            out[0] = trunc(word, out_tys[0].bits());
        }
        59 => out[0] = trunc(a.comps[0], 32) | (trunc(a.comps[1], 32) << 32),
        65 => {
            out[0] = trunc(a.comps[0], 32);
            out[1] = trunc(a.comps[0] >> 32, 32);
        }
        _ => {
            let v = trunc(a.comps[0], 32);
            let width = (32 / out_n) as u32;
            for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
                let field = (v >> (k as u32 * width)) & mask(width);
                let r = match inst {
                    60 => (f32::from(field as u16 as i16) / 32767.0).clamp(-1.0, 1.0),
                    61 => f32::from(field as u16) / 65535.0,
                    62 => ld32(field, 16),
                    63 => (f32::from(field as u8 as i8) / 127.0).clamp(-1.0, 1.0),
                    _ => f32::from(field as u8) / 255.0,
                };
                *o = st32(r, ty.bits());
            }
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests;
