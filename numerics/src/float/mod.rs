//! Floats as raw bits: decoding, and rounding exact values to f16, bf16, f32 or f64.
//!
//! Every conversion between float formats and from integers goes through [`round_pack`]: it
//! takes an exact value (integer significand, power-of-two exponent, and a sticky bit for
//! anything below the significand's last bit) and rounds it ONCE, to nearest-even or toward
//! zero, with integer arithmetic only. No host float instruction is involved, so every target
//! (the wasm build included) gives the same bits. NaNs keep their sign and the high bits of
//! their payload and come out quiet, as hardware conversions do.
//!
//! [`arith`] does the arithmetic of each format on top of this, with the rounding and denormal
//! modes of SPV_KHR_float_controls.

pub mod arith;
#[cfg(test)]
mod tests;

use crate::scalar::ScalarTy;

/// A binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// IEEE binary16: 5 exponent bits, 10 fraction bits.
    F16,
    /// bfloat16: 8 exponent bits, 7 fraction bits (the top half of an f32).
    BF16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
}

impl Format {
    /// The format of a float scalar type; `None` for integers and booleans.
    #[inline]
    pub fn of(ty: ScalarTy) -> Option<Self> {
        match ty {
            ScalarTy::Float { bits: 16 } => Some(Self::F16),
            ScalarTy::Float { bits: 32 } => Some(Self::F32),
            ScalarTy::Float { bits: 64 } => Some(Self::F64),
            ScalarTy::BFloat16 => Some(Self::BF16),
            _ => None,
        }
    }

    /// The IEEE format of a width (16, 32 or 64; anything else reads as 32).
    #[inline]
    pub fn ieee(bits: u32) -> Self {
        match bits {
            16 => Self::F16,
            64 => Self::F64,
            _ => Self::F32,
        }
    }

    /// Total width in bits.
    #[inline]
    pub const fn bits(self) -> u32 {
        match self {
            Self::F16 | Self::BF16 => 16,
            Self::F32 => 32,
            Self::F64 => 64,
        }
    }

    /// Fraction (trailing significand) bits.
    #[inline]
    pub const fn frac_bits(self) -> u32 {
        match self {
            Self::F16 => 10,
            Self::BF16 => 7,
            Self::F32 => 23,
            Self::F64 => 52,
        }
    }

    /// Exponent field bits.
    #[inline]
    pub const fn exp_bits(self) -> u32 {
        self.bits() - 1 - self.frac_bits()
    }

    const fn bias(self) -> i32 {
        (1 << (self.exp_bits() - 1)) - 1
    }

    /// Exponent of the smallest normal number.
    const fn emin(self) -> i32 {
        1 - self.bias()
    }

    /// Exponent of the largest finite number.
    const fn emax(self) -> i32 {
        self.bias()
    }

    /// The sign bit, as a mask.
    #[inline]
    pub const fn sign_bit(self) -> u64 {
        1 << (self.bits() - 1)
    }

    const fn frac_mask(self) -> u64 {
        (1 << self.frac_bits()) - 1
    }

    /// Positive infinity (also the mask of the exponent field).
    #[inline]
    pub const fn inf(self) -> u64 {
        ((1 << self.exp_bits()) - 1) << self.frac_bits()
    }

    /// The largest finite number.
    #[inline]
    pub const fn max_finite(self) -> u64 {
        self.inf() - 1
    }

    /// The quiet NaN that arithmetic produces: positive, empty payload.
    #[inline]
    pub const fn quiet_nan(self) -> u64 {
        self.inf() | 1 << (self.frac_bits() - 1)
    }

    /// `v` is a NaN (either sign, quiet or signalling).
    #[inline]
    pub const fn is_nan(self, v: u64) -> bool {
        v & !self.sign_bit() & mask(self.bits()) > self.inf()
    }

    /// `v` is subnormal (zero exponent, nonzero fraction).
    #[inline]
    pub const fn is_subnormal(self, v: u64) -> bool {
        v & self.inf() == 0 && v & self.frac_mask() != 0
    }
}

const fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// Rounding direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Round {
    /// To nearest, ties to even (the default, and RoundingModeRTE).
    #[default]
    Rte,
    /// Toward zero (RoundingModeRTZ).
    Rtz,
}

/// How arithmetic of one width rounds and treats denormals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Mode {
    /// The rounding of results that are not exact.
    pub round: Round,
    /// DenormFlushToZero: denormal operands and results become zero of the same sign.
    pub ftz: bool,
}

impl Mode {
    /// Round to nearest even, denormals kept: what IEEE hardware does by default.
    pub const DEFAULT: Self = Self {
        round: Round::Rte,
        ftz: false,
    };

    /// `v` with a denormal flushed to zero (sign kept) when this mode flushes.
    #[inline]
    pub fn flush(self, fmt: Format, v: u64) -> u64 {
        if self.ftz && fmt.is_subnormal(v) {
            v & fmt.sign_bit()
        } else {
            v
        }
    }
}

/// The entry point's SPV_KHR_float_controls modes, per float width (16, 32, 64).
///
/// Honoured exactly (each operation rounded once in its mode, denormal operands and results
/// flushed): FAdd, FSub, FMul, FDiv, FRem, FMod, FNegate and the float comparisons; OpDot,
/// OpVectorTimesScalar and the matrix products (per product and sum); conversions (the
/// destination width rounds, the source width flushes operands), spec-constant folding;
/// subgroup FAdd/FMul/FMin/FMax; atomic FAdd; cooperative-matrix element-wise arithmetic and
/// conversions. bfloat16 follows the 16-bit modes. Not affected, as Vulkan says:
/// OpQuantizeToF16. Partly: GLSL.std.450 (see `glsl450::eval_in`) and the float MulAdd of
/// cooperative matrices (operands flushed, final rounding in the mode, the accumulation in
/// f64 to nearest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct FloatControls {
    /// Modes for 16-bit (f16 and bf16), 32-bit and 64-bit floats, in that order.
    pub modes: [Mode; 3],
}

impl FloatControls {
    /// The mode of one width (16, 32 or 64).
    #[inline]
    pub fn mode(&self, bits: u32) -> Mode {
        match bits {
            16 => self.modes[0],
            64 => self.modes[2],
            _ => self.modes[1],
        }
    }

    /// The mode of a scalar type's width; the default mode for non-floats.
    #[inline]
    pub fn of(&self, ty: ScalarTy) -> Mode {
        if ty.is_any_float() {
            self.mode(ty.bits())
        } else {
            Mode::DEFAULT
        }
    }

    /// No mode differs from what IEEE hardware does by default.
    #[inline]
    pub fn is_default(&self) -> bool {
        self.modes == [Mode::DEFAULT; 3]
    }
}

/// A decoded float, without its sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unpacked {
    /// Zero.
    Zero,
    /// Infinity.
    Inf,
    /// The fraction field (nonzero).
    Nan(u64),
    /// Exactly `mant * 2^exp`; subnormals are not normalised.
    Finite {
        /// The significand, the implicit bit included.
        mant: u64,
        /// The power of two it is scaled by.
        exp: i32,
    },
}

/// Sign and magnitude of raw bits `v` of `fmt`.
#[inline]
pub fn unpack(fmt: Format, v: u64) -> (bool, Unpacked) {
    let p = fmt.frac_bits();
    let neg = v & fmt.sign_bit() != 0;
    let e = ((v & fmt.inf()) >> p) as i32;
    let f = v & fmt.frac_mask();
    let u = if v & fmt.inf() == fmt.inf() {
        if f == 0 {
            Unpacked::Inf
        } else {
            Unpacked::Nan(f)
        }
    } else if e == 0 {
        if f == 0 {
            Unpacked::Zero
        } else {
            Unpacked::Finite {
                mant: f,
                exp: fmt.emin() - p as i32,
            }
        }
    } else {
        Unpacked::Finite {
            mant: f | 1 << p,
            exp: e - fmt.bias() - p as i32,
        }
    };
    (neg, u)
}

/// What a finite value beyond the largest finite number rounds to.
#[inline]
fn overflow(fmt: Format, round: Round) -> u64 {
    match round {
        Round::Rte => fmt.inf(),
        Round::Rtz => fmt.max_finite(),
    }
}

/// Rounds `±(mant + s) * 2^exp` to `fmt`, where `s` is 0 when `sticky` is false and otherwise
/// some value strictly between 0 and 1. With `sticky`, `mant` must have at least the format's
/// precision plus two bits (then `s` only breaks ties and exactness).
#[inline]
pub fn round_pack(fmt: Format, neg: bool, mant: u128, exp: i32, sticky: bool, round: Round) -> u64 {
    let sign = if neg { fmt.sign_bit() } else { 0 };
    if mant == 0 {
        debug_assert!(!sticky, "a sticky bit below a zero significand");
        return sign;
    }
    let p = fmt.frac_bits() as i32;
    // Exponent of the leading bit.
    let top = exp + 127 - mant.leading_zeros() as i32;
    if top > fmt.emax() {
        return sign | overflow(fmt, round);
    }
    // Exponent of the result's last bit: p below the leading bit, or the subnormals' last bit.
    let lsb = (top - p).max(fmt.emin() - p);
    let drop = lsb - exp;
    let q = if drop <= 0 {
        debug_assert!(!sticky, "too few significand bits under a sticky bit");
        // Exact: at most p + 1 bits after the shift.
        (mant << -drop) as u64
    } else {
        let d = drop as u32;
        let (q, rem, half) = match d {
            0..=127 => (mant >> d, mant & ((1u128 << d) - 1), 1u128 << (d - 1)),
            128 => (0, mant, 1u128 << 127),
            // Below half of the last place: rem < 2^128 <= half.
            _ => (0, 0, 1),
        };
        let up = match round {
            Round::Rtz => false,
            Round::Rte => rem > half || (rem == half && (sticky || q & 1 == 1)),
        };
        (q + u128::from(up)) as u64
    };
    // The significand's leading bit lands on the exponent field, so a carry out of the
    // fraction, or a subnormal rounding up to the smallest normal, comes out right.
    let bits = (((lsb + p + fmt.bias() - 1) as u64) << p) + q;
    if bits >= fmt.inf() {
        return sign | overflow(fmt, round);
    }
    sign | bits
}

/// A NaN of `from` (fraction `f`) in `to`: sign kept, payload's high bits kept, quiet.
#[inline]
fn convert_nan(from: Format, to: Format, neg: bool, f: u64) -> u64 {
    let (fp, tp) = (from.frac_bits(), to.frac_bits());
    let payload = if tp >= fp {
        f << (tp - fp)
    } else {
        f >> (fp - tp)
    };
    let sign = if neg { to.sign_bit() } else { 0 };
    sign | to.quiet_nan() | payload
}

/// Raw bits `v` of `from` converted to `to`, rounded once.
#[inline]
pub fn convert(from: Format, to: Format, v: u64, round: Round) -> u64 {
    if from == to {
        return v & mask(to.bits());
    }
    let (neg, u) = unpack(from, v);
    match u {
        Unpacked::Zero => {
            if neg {
                to.sign_bit()
            } else {
                0
            }
        }
        Unpacked::Inf => (if neg { to.sign_bit() } else { 0 }) | to.inf(),
        Unpacked::Nan(f) => convert_nan(from, to, neg, f),
        Unpacked::Finite { mant, exp } => round_pack(to, neg, u128::from(mant), exp, false, round),
    }
}

/// Raw bits of `fmt` as an f64 (exact; NaNs made quiet).
#[inline]
pub fn to_f64(fmt: Format, v: u64) -> f64 {
    f64::from_bits(match fmt {
        Format::F64 => v,
        _ => widen(fmt, v),
    })
}

/// `convert(fmt, F64, v, _)`, without the general rounding: widening is exact.
#[inline]
fn widen(fmt: Format, v: u64) -> u64 {
    let p = fmt.frac_bits();
    let sign = (v & fmt.sign_bit()) << (64 - fmt.bits());
    let e = (v & fmt.inf()) >> p;
    let f = v & fmt.frac_mask();
    let body = if v & fmt.inf() == fmt.inf() {
        if f == 0 {
            0x7ff << 52
        } else {
            (0x7ff << 52) | 1 << 51 | f << (52 - p)
        }
    } else if e == 0 {
        if f == 0 {
            0
        } else {
            // Subnormal: normalise; every f16/bf16/f32 subnormal is a normal f64.
            let t = 63 - f.leading_zeros(); // index of the leading bit
            let exp = fmt.emin() - p as i32 + t as i32;
            (((exp + 1023) as u64) << 52) | ((f << (52 - t)) & ((1 << 52) - 1))
        }
    } else {
        ((e as i64 - i64::from(fmt.bias()) + 1023) as u64) << 52 | f << (52 - p)
    };
    sign | body
}

/// An f64 rounded once to `fmt` (NaN payloads kept, as a conversion does).
#[inline]
pub fn from_f64(x: f64, fmt: Format, round: Round) -> u64 {
    convert(Format::F64, fmt, x.to_bits(), round)
}

/// The f64 result of some arithmetic rounded once to `fmt`, NaN made the canonical quiet NaN
/// (host arithmetic leaves NaN bits to the platform).
#[inline]
pub fn result_from_f64(x: f64, fmt: Format, round: Round) -> u64 {
    if x.is_nan() {
        fmt.quiet_nan()
    } else {
        from_f64(x, fmt, round)
    }
}

/// An integer `±mag` rounded once to `fmt`.
#[inline]
pub fn from_int(fmt: Format, neg: bool, mag: u64, round: Round) -> u64 {
    // Integers that fit the significand convert exactly: the host's conversion has nothing
    // to round there (the common case in shaders, kept off the general path).
    let sign = if neg { fmt.sign_bit() } else { 0 };
    match fmt {
        Format::F32 if mag < 1 << 24 => sign | u64::from((mag as f32).to_bits()),
        Format::F64 if mag < 1 << 53 => sign | (mag as f64).to_bits(),
        _ => round_pack(fmt, neg, u128::from(mag), 0, false, round),
    }
}

/// A signed integer rounded once to `fmt`.
#[inline]
pub fn from_i64(v: i64, fmt: Format, round: Round) -> u64 {
    from_int(fmt, v < 0, v.unsigned_abs(), round)
}

/// An unsigned integer rounded once to `fmt`.
#[inline]
pub fn from_u64(v: u64, fmt: Format, round: Round) -> u64 {
    from_int(fmt, false, v, round)
}
