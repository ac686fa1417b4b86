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

mod geometric;
mod pack;
mod real;

use geometric::{geometric, matrix};
use pack::{frexp_ldexp, pack_eval};

use real::{Real, H16};

use crate::float::{arith, FloatControls, Format, Round};
use crate::value::{sext, trunc, ScalarTy};

/// One operand: the type of its scalar components and the components (1 for a scalar, n for a
/// vector, cols*rows for a square matrix, column-major).
pub struct Arg<'a> {
    /// The components' scalar type.
    pub ty: ScalarTy,
    /// The components, as raw bits.
    pub comps: &'a [u64],
}

/// Why an extended instruction could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Glsl450Error {
    /// Not meaningful in a compute shader (InterpolateAt*), or an unknown instruction number.
    Unsupported {
        /// The instruction number.
        inst: u32,
        /// Its name in the grammar.
        name: &'static str,
    },
    /// Operand shapes do not match what the instruction requires.
    BadOperands {
        /// The instruction number.
        inst: u32,
        /// Its name in the grammar.
        name: &'static str,
        /// What does not match.
        detail: String,
    },
}

/// The instruction numbers by name, from rspirv's GLSL.std.450 grammar (`GlslStd450Op`), so the
/// dispatch below reads as the spec's names.
#[allow(non_upper_case_globals, dead_code)] // every instruction, as the grammar has them
mod op {
    use spirv::GlslStd450Op as GLOp;
    pub const Round: u32 = GLOp::Round as u32;
    pub const RoundEven: u32 = GLOp::RoundEven as u32;
    pub const Trunc: u32 = GLOp::Trunc as u32;
    pub const FAbs: u32 = GLOp::FAbs as u32;
    pub const SAbs: u32 = GLOp::SAbs as u32;
    pub const FSign: u32 = GLOp::FSign as u32;
    pub const SSign: u32 = GLOp::SSign as u32;
    pub const Floor: u32 = GLOp::Floor as u32;
    pub const Ceil: u32 = GLOp::Ceil as u32;
    pub const Fract: u32 = GLOp::Fract as u32;
    pub const Radians: u32 = GLOp::Radians as u32;
    pub const Degrees: u32 = GLOp::Degrees as u32;
    pub const Sin: u32 = GLOp::Sin as u32;
    pub const Cos: u32 = GLOp::Cos as u32;
    pub const Tan: u32 = GLOp::Tan as u32;
    pub const Asin: u32 = GLOp::Asin as u32;
    pub const Acos: u32 = GLOp::Acos as u32;
    pub const Atan: u32 = GLOp::Atan as u32;
    pub const Sinh: u32 = GLOp::Sinh as u32;
    pub const Cosh: u32 = GLOp::Cosh as u32;
    pub const Tanh: u32 = GLOp::Tanh as u32;
    pub const Asinh: u32 = GLOp::Asinh as u32;
    pub const Acosh: u32 = GLOp::Acosh as u32;
    pub const Atanh: u32 = GLOp::Atanh as u32;
    pub const Atan2: u32 = GLOp::Atan2 as u32;
    pub const Pow: u32 = GLOp::Pow as u32;
    pub const Exp: u32 = GLOp::Exp as u32;
    pub const Log: u32 = GLOp::Log as u32;
    pub const Exp2: u32 = GLOp::Exp2 as u32;
    pub const Log2: u32 = GLOp::Log2 as u32;
    pub const Sqrt: u32 = GLOp::Sqrt as u32;
    pub const InverseSqrt: u32 = GLOp::InverseSqrt as u32;
    pub const Determinant: u32 = GLOp::Determinant as u32;
    pub const MatrixInverse: u32 = GLOp::MatrixInverse as u32;
    pub const Modf: u32 = GLOp::Modf as u32;
    pub const ModfStruct: u32 = GLOp::ModfStruct as u32;
    pub const FMin: u32 = GLOp::FMin as u32;
    pub const UMin: u32 = GLOp::UMin as u32;
    pub const SMin: u32 = GLOp::SMin as u32;
    pub const FMax: u32 = GLOp::FMax as u32;
    pub const UMax: u32 = GLOp::UMax as u32;
    pub const SMax: u32 = GLOp::SMax as u32;
    pub const FClamp: u32 = GLOp::FClamp as u32;
    pub const UClamp: u32 = GLOp::UClamp as u32;
    pub const SClamp: u32 = GLOp::SClamp as u32;
    pub const FMix: u32 = GLOp::FMix as u32;
    pub const IMix: u32 = GLOp::IMix as u32;
    pub const Step: u32 = GLOp::Step as u32;
    pub const SmoothStep: u32 = GLOp::SmoothStep as u32;
    pub const Fma: u32 = GLOp::Fma as u32;
    pub const Frexp: u32 = GLOp::Frexp as u32;
    pub const FrexpStruct: u32 = GLOp::FrexpStruct as u32;
    pub const Ldexp: u32 = GLOp::Ldexp as u32;
    pub const PackSnorm4x8: u32 = GLOp::PackSnorm4x8 as u32;
    pub const PackUnorm4x8: u32 = GLOp::PackUnorm4x8 as u32;
    pub const PackSnorm2x16: u32 = GLOp::PackSnorm2x16 as u32;
    pub const PackUnorm2x16: u32 = GLOp::PackUnorm2x16 as u32;
    pub const PackHalf2x16: u32 = GLOp::PackHalf2x16 as u32;
    pub const PackDouble2x32: u32 = GLOp::PackDouble2x32 as u32;
    pub const UnpackSnorm2x16: u32 = GLOp::UnpackSnorm2x16 as u32;
    pub const UnpackUnorm2x16: u32 = GLOp::UnpackUnorm2x16 as u32;
    pub const UnpackHalf2x16: u32 = GLOp::UnpackHalf2x16 as u32;
    pub const UnpackSnorm4x8: u32 = GLOp::UnpackSnorm4x8 as u32;
    pub const UnpackUnorm4x8: u32 = GLOp::UnpackUnorm4x8 as u32;
    pub const UnpackDouble2x32: u32 = GLOp::UnpackDouble2x32 as u32;
    pub const Length: u32 = GLOp::Length as u32;
    pub const Distance: u32 = GLOp::Distance as u32;
    pub const Cross: u32 = GLOp::Cross as u32;
    pub const Normalize: u32 = GLOp::Normalize as u32;
    pub const FaceForward: u32 = GLOp::FaceForward as u32;
    pub const Reflect: u32 = GLOp::Reflect as u32;
    pub const Refract: u32 = GLOp::Refract as u32;
    pub const FindILsb: u32 = GLOp::FindILsb as u32;
    pub const FindSMsb: u32 = GLOp::FindSMsb as u32;
    pub const FindUMsb: u32 = GLOp::FindUMsb as u32;
    pub const InterpolateAtCentroid: u32 = GLOp::InterpolateAtCentroid as u32;
    pub const InterpolateAtSample: u32 = GLOp::InterpolateAtSample as u32;
    pub const InterpolateAtOffset: u32 = GLOp::InterpolateAtOffset as u32;
    pub const NMin: u32 = GLOp::NMin as u32;
    pub const NMax: u32 = GLOp::NMax as u32;
    pub const NClamp: u32 = GLOp::NClamp as u32;
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
        op::Atan2
        | op::Pow
        | op::FMin..=op::SMax
        | op::Step
        | op::Ldexp
        | op::Distance
        | op::Cross
        | op::Reflect
        | op::InterpolateAtSample..=op::NMax => 2,
        op::FClamp..=op::IMix
        | op::SmoothStep
        | op::Fma
        | op::FaceForward
        | op::Refract
        | op::NClamp => 3,
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
    let undef = if inst == op::Fma && round != Round::Rte {
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
        op::SAbs
        | op::SSign
        | op::UMin
        | op::SMin
        | op::UMax
        | op::SMax
        | op::UClamp
        | op::SClamp
        | op::FindILsb..=op::FindUMsb => int_eval(inst, out_tys, args, out),
        op::IMix if !args[0].ty.is_float() => int_eval(inst, out_tys, args, out),
        op::Frexp..=op::Ldexp => frexp_ldexp(inst, out_tys, args, out, round),
        op::PackSnorm4x8..=op::UnpackDouble2x32 => pack_eval(inst, out_tys, args, out),
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

/// The f32 result of a component-wise operation that math-heavy loops use (Fma, Fract, Floor,
/// Ceil, Trunc, FAbs) on f32 components under the default float controls, computed exactly as
/// `float_eval::<f32>` does, without its dispatch; `None` for every other operation.
#[inline]
pub fn fast_f32(inst: u32, a: u64, b: u64, c: u64) -> Option<u64> {
    let x = <f32 as Real>::ld(a, 32);
    let r = match inst {
        op::Fma => Real::mul_add(x, <f32 as Real>::ld(b, 32), <f32 as Real>::ld(c, 32)),
        op::Fract => x - Real::floor(x),
        op::Floor => Real::floor(x),
        op::Ceil => Real::ceil(x),
        op::Trunc => Real::trunc(x),
        op::FAbs => Real::abs(x),
        _ => return None,
    };
    Some(r.st(32))
}

/// Whether [`fast_f32`] computes `inst`.
pub fn has_fast_f32(inst: u32) -> bool {
    matches!(
        inst,
        op::Fma | op::Fract | op::Floor | op::Ceil | op::Trunc | op::FAbs
    )
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
            op::SAbs => s(0).wrapping_abs() as u64,
            op::SSign => s(0).signum() as u64,
            op::UMin => u(0).min(u(1)),
            op::SMin => s(0).min(s(1)) as u64,
            op::UMax => u(0).max(u(1)),
            op::SMax => s(0).max(s(1)) as u64,
            // min(max(x, lo), hi) as the spec writes it (`clamp` would panic when lo > hi).
            op::UClamp => {
                undef |= u(1) > u(2);
                u(0).max(u(1)).min(u(2))
            }
            op::SClamp => {
                undef |= s(1) > s(2);
                s(0).max(s(1)).min(s(2)) as u64
            }
            op::IMix => {
                let a = u(2);
                let x = u(0).wrapping_mul(1u64.wrapping_sub(a));
                x.wrapping_add(u(1).wrapping_mul(a))
            }
            op::FindILsb => match u(0) {
                0 => u64::MAX,
                v => u64::from(v.trailing_zeros()),
            },
            // FindSMsb: for negative values, the most significant 0 bit.
            op::FindSMsb => match s(0) {
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

fn float_eval<T: Real>(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    match inst {
        op::Determinant | op::MatrixInverse => return matrix::<T>(inst, out_tys, &args[0], out),
        op::Modf | op::ModfStruct => {
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
        op::Length..=op::Refract => return geometric::<T>(inst, out_tys, args, out),
        _ => {}
    }
    check_args(inst, args, out.len(), true)?;
    let mut undef = false;
    for (k, (o, ty)) in out.iter_mut().zip(out_tys).enumerate() {
        let a = |i: usize| T::ld(comp(&args[i], k), args[i].ty.bits());
        let x = a(0);
        let (r, u) = match inst {
            op::Round => (x.round(), false),
            op::RoundEven => (x.round_ties_even(), false),
            op::Trunc => (x.trunc(), false),
            op::FAbs => (x.abs(), false),
            op::FSign if x > T::ZERO => (T::ONE, false),
            op::FSign if x < T::ZERO => (-T::ONE, false),
            op::FSign => (x, false), // ±0 and NaN pass through
            op::Floor => (x.floor(), false),
            op::Ceil => (x.ceil(), false),
            op::Fract => (x - x.floor(), false),
            op::Radians => (x.to_radians(), false),
            op::Degrees => (x.to_degrees(), false),
            op::Sin => (x.sin(), false),
            op::Cos => (x.cos(), false),
            op::Tan => (x.tan(), false),
            op::Asin => (x.asin(), x.abs() > T::ONE),
            op::Acos => (x.acos(), x.abs() > T::ONE),
            op::Atan => (x.atan(), false),
            op::Sinh => (x.sinh(), false),
            op::Cosh => (x.cosh(), false),
            op::Tanh => (x.tanh(), false),
            op::Asinh => (x.asinh(), false),
            op::Acosh => (x.acosh(), x < T::ONE),
            op::Atanh => (x.atanh(), x.abs() >= T::ONE),
            op::Atan2 => {
                let xx = a(1); // Atan2(y, x)
                (x.atan2(xx), x == T::ZERO && xx == T::ZERO)
            }
            op::Pow => {
                let y = a(1);
                (x.powf(y), x < T::ZERO || (x == T::ZERO && y <= T::ZERO))
            }
            op::Exp => (x.exp(), false),
            op::Log => (x.ln(), x <= T::ZERO),
            op::Exp2 => (x.exp2(), false),
            op::Log2 => (x.log2(), x <= T::ZERO),
            op::Sqrt => (x.sqrt(), x < T::ZERO),
            op::InverseSqrt => (T::ONE / x.sqrt(), x <= T::ZERO),
            op::FMin | op::FMax => {
                let y = a(1);
                let r = if inst == op::FMin {
                    fmin(x, y)
                } else {
                    fmax(x, y)
                };
                (r, x.is_nan() || y.is_nan())
            }
            op::FClamp => {
                let (lo, hi) = (a(1), a(2));
                let nan = x.is_nan() || lo.is_nan() || hi.is_nan();
                (fmin(fmax(x, lo), hi), nan || lo > hi)
            }
            op::FMix | op::IMix => {
                let (y, t) = (a(1), a(2));
                (x * (T::ONE - t) + y * t, false)
            }
            op::Step => (if a(1) < x { T::ZERO } else { T::ONE }, false), // Step(edge, x)
            op::SmoothStep => {
                let (e1, v) = (a(1), a(2));
                let t = fmin(fmax((v - x) / (e1 - x), T::ZERO), T::ONE);
                (t * t * (T::THREE - T::TWO * t), x >= e1)
            }
            op::Fma => (x.mul_add(a(1), a(2)), false),
            op::NMin => (nmin(x, a(1)), false),
            op::NMax => (nmax(x, a(1)), false),
            op::NClamp => {
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

#[cfg(test)]
mod tests;
