//! The float types GLSL.std.450 evaluates in: f32, f64, and `H16` for 16-bit operands.
//!
//! Transcendentals come from the pure-Rust `libm` crate in every build, so the native and
//! the wasm simulator give the same bits (the host C library and the wasm port differ).
//! The operations IEEE defines exactly (sqrt, floor, abs, ...) are the host's: any correct
//! implementation gives the same answer.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::float::{self, arith, Format, Mode, Round};

/// The float operations the evaluator needs.
#[rustfmt::skip]
pub(super) trait Real:
    Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
    + Div<Output = Self> + Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const TWO: Self;
    const THREE: Self;
    /// Decode raw bits of a float `bits` wide.
    fn ld(v: u64, bits: u32) -> Self;
    /// Encode as a float `bits` wide (rounding to nearest even when narrowing; a NaN becomes
    /// the canonical quiet NaN).
    fn st(self, bits: u32) -> u64;
    fn mul_add(self, a: Self, b: Self) -> Self;
    fn powf(self, y: Self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn copysign(self, sign: Self) -> Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_finite(self) -> bool;
    fn abs(self) -> Self; fn floor(self) -> Self; fn ceil(self) -> Self; fn trunc(self) -> Self;
    fn round(self) -> Self; fn round_ties_even(self) -> Self; fn sqrt(self) -> Self;
    fn sin(self) -> Self; fn cos(self) -> Self; fn tan(self) -> Self; fn asin(self) -> Self;
    fn acos(self) -> Self; fn atan(self) -> Self; fn sinh(self) -> Self; fn cosh(self) -> Self;
    fn tanh(self) -> Self; fn asinh(self) -> Self; fn acosh(self) -> Self; fn atanh(self) -> Self;
    fn exp(self) -> Self; fn ln(self) -> Self; fn exp2(self) -> Self; fn log2(self) -> Self;
    fn to_radians(self) -> Self; fn to_degrees(self) -> Self;
}

/// Implements `Real` for a host float: exact operations from std (`$t::$f` resolves to the
/// inherent methods, not back to the trait), the rest from libm.
macro_rules! real {
    ($t:ident, $ld:path, $st:path, fma: $fma:ident, powf: $pow:ident, atan2: $atan2:ident,
        $($f:ident = $lf:ident),* $(,)?) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            const THREE: Self = 3.0;
            #[inline]
            fn ld(v: u64, bits: u32) -> Self { $ld(v, bits) }
            #[inline]
            fn st(self, bits: u32) -> u64 { $st(self, bits) }
            #[inline]
            fn mul_add(self, a: Self, b: Self) -> Self { libm::$fma(self, a, b) }
            #[inline]
            fn powf(self, y: Self) -> Self { libm::$pow(self, y) }
            #[inline]
            fn atan2(self, x: Self) -> Self { libm::$atan2(self, x) }
            #[inline]
            fn copysign(self, s: Self) -> Self { $t::copysign(self, s) }
            real!(@pred $t: is_nan is_infinite is_finite);
            real!(@un $t: abs floor ceil trunc round round_ties_even sqrt to_radians to_degrees);
            $( #[inline] fn $f(self) -> Self { libm::$lf(self) } )*
        }
    };
    (@un $t:ident: $($f:ident)*) => { $( #[inline] fn $f(self) -> Self { $t::$f(self) } )* };
    (@pred $t:ident: $($f:ident)*) => { $( #[inline] fn $f(self) -> bool { $t::$f(self) } )* };
}

real!(f32, ld32, st32, fma: fmaf, powf: powf, atan2: atan2f,
    sin = sinf, cos = cosf, tan = tanf, asin = asinf, acos = acosf, atan = atanf,
    sinh = sinhf, cosh = coshf, tanh = tanhf, asinh = asinhf, acosh = acoshf, atanh = atanhf,
    exp = expf, ln = logf, exp2 = exp2f, log2 = log2f);
real!(f64, ld64, st64, fma: fma, powf: pow, atan2: atan2,
    sin = sin, cos = cos, tan = tan, asin = asin, acos = acos, atan = atan,
    sinh = sinh, cosh = cosh, tanh = tanh, asinh = asinh, acosh = acosh, atanh = atanh,
    exp = exp, ln = log, exp2 = exp2, log2 = log2);

/// Raw bits of a float `bits` wide as an f32 (rounded once if it is an f64).
#[inline]
pub(super) fn ld32(v: u64, bits: u32) -> f32 {
    if bits == 32 {
        return f32::from_bits(v as u32);
    }
    f32::from_bits(float::convert(Format::ieee(bits), Format::F32, v, Round::Rte) as u32)
}

/// An f32 as a float `bits` wide (rounded once if narrower).
#[inline]
pub(super) fn st32(x: f32, bits: u32) -> u64 {
    let v = arith::bits32(x);
    if bits == 32 {
        return v;
    }
    float::convert(Format::F32, Format::ieee(bits), v, Round::Rte)
}

#[inline]
fn ld64(v: u64, bits: u32) -> f64 {
    float::to_f64(Format::ieee(bits), v)
}

#[inline]
fn st64(x: f64, bits: u32) -> u64 {
    if bits == 64 {
        return arith::bits64(x);
    }
    float::result_from_f64(x, Format::ieee(bits), Round::Rte)
}

/// An f16 value (held exactly in an f64) whose every operation rounds to f16, as 16-bit
/// hardware computes: sums, differences, products and quotients are done in f64 and rounded
/// once (exact, or correctly rounded: see `float::arith`); fused multiply-add exactly; every
/// function is evaluated in f64 and rounded once.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub(super) struct H16(f64);

impl H16 {
    #[inline]
    fn near(x: f64) -> Self {
        Self(float::to_f64(
            Format::F16,
            float::result_from_f64(x, Format::F16, Round::Rte),
        ))
    }

    #[inline]
    fn bits(self) -> u64 {
        float::result_from_f64(self.0, Format::F16, Round::Rte)
    }
}

macro_rules! h16_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl $tr for H16 {
            type Output = Self;
            #[inline]
            fn $f(self, o: Self) -> Self {
                Self::near(self.0 $op o.0)
            }
        }
    };
}

h16_op!(Add, add, +);
h16_op!(Sub, sub, -);
h16_op!(Mul, mul, *);
h16_op!(Div, div, /);

impl Neg for H16 {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self(-self.0)
    }
}

/// Functions of f64 rounded once to f16, and exact operations passed through.
macro_rules! h16_fns {
    (rounded: $($f:ident = $lf:ident),*; exact: $($e:ident),*) => {
        $( #[inline] fn $f(self) -> Self { Self::near(libm::$lf(self.0)) } )*
        $( #[inline] fn $e(self) -> Self { Self(f64::$e(self.0)) } )*
    };
}

impl Real for H16 {
    const ZERO: Self = Self(0.0);
    const ONE: Self = Self(1.0);
    const TWO: Self = Self(2.0);
    const THREE: Self = Self(3.0);
    fn ld(v: u64, bits: u32) -> Self {
        Self::near(float::to_f64(Format::ieee(bits), v))
    }
    fn st(self, bits: u32) -> u64 {
        float::convert(Format::F16, Format::ieee(bits), self.bits(), Round::Rte)
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        let r = arith::fma(Format::F16, self.bits(), a.bits(), b.bits(), Mode::DEFAULT);
        Self(float::to_f64(Format::F16, r))
    }
    fn powf(self, y: Self) -> Self {
        Self::near(libm::pow(self.0, y.0))
    }
    fn atan2(self, x: Self) -> Self {
        Self::near(libm::atan2(self.0, x.0))
    }
    fn copysign(self, s: Self) -> Self {
        Self(self.0.copysign(s.0))
    }
    fn is_nan(self) -> bool {
        self.0.is_nan()
    }
    fn is_infinite(self) -> bool {
        self.0.is_infinite()
    }
    fn is_finite(self) -> bool {
        self.0.is_finite()
    }
    fn sqrt(self) -> Self {
        Self::near(self.0.sqrt())
    }
    fn to_radians(self) -> Self {
        Self::near(self.0.to_radians())
    }
    fn to_degrees(self) -> Self {
        Self::near(self.0.to_degrees())
    }
    h16_fns!(rounded: sin = sin, cos = cos, tan = tan, asin = asin, acos = acos, atan = atan,
        sinh = sinh, cosh = cosh, tanh = tanh, asinh = asinh, acosh = acosh, atanh = atanh,
        exp = exp, ln = log, exp2 = exp2, log2 = log2;
        exact: abs, floor, ceil, trunc, round, round_ties_even);
}
