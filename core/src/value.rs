//! Scalar values as raw bits.
//!
//! Every scalar component of every value is stored as a `u64` holding its raw bits:
//! integers masked to their width (zero-extended, whatever their signedness), floats as their
//! IEEE bit pattern in the low bits (f16 in the low 16, f32 in the low 32), booleans as 0 or 1.
//! Composite values (vectors, matrices, arrays, structs) are flattened into their scalar leaves
//! in declaration order (matrices column by column).

use half::f16;

/// The type of one scalar component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ScalarTy {
    Bool,
    Int {
        bits: u8,
        signed: bool,
    },
    Float {
        bits: u8,
    },
    /// bfloat16 (SPV_KHR_bfloat16: `OpTypeFloat 16 BFloat16KHR`): 1 sign, 8 exponent and 7
    /// fraction bits, raw bits in the low 16. Not `is_float()`: the spec allows it only in
    /// conversions, memory and cooperative matrices, which handle it explicitly.
    BFloat16,
}

impl ScalarTy {
    pub const U32: Self = Self::Int {
        bits: 32,
        signed: false,
    };
    pub const I32: Self = Self::Int {
        bits: 32,
        signed: true,
    };
    pub const F32: Self = Self::Float { bits: 32 };

    /// Width in bits (booleans count as 1; they have no memory layout).
    pub fn bits(self) -> u32 {
        match self {
            Self::Bool => 1,
            Self::Int { bits, .. } | Self::Float { bits } => u32::from(bits),
            Self::BFloat16 => 16,
        }
    }

    /// Size in bytes when stored in memory with an explicit layout.
    pub fn size_bytes(self) -> u32 {
        match self {
            // Booleans have no defined memory layout; store them as 32-bit words.
            Self::Bool => 4,
            Self::Int { bits, .. } | Self::Float { bits } => u32::from(bits) / 8,
            Self::BFloat16 => 2,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Self::Float { .. })
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Self::Int { signed: true, .. })
    }

    /// A floating-point type of any encoding (IEEE or bfloat16).
    pub fn is_any_float(self) -> bool {
        matches!(self, Self::Float { .. } | Self::BFloat16)
    }
}

/// Read a float of type `ty` (IEEE of any width, or bfloat16) as f64.
#[inline]
pub fn float_to_f64(ty: ScalarTy, v: u64) -> f64 {
    match ty {
        ScalarTy::BFloat16 => half::bf16::from_bits(v as u16).to_f64(),
        _ => to_f64(v, ty.bits()),
    }
}

/// Encode an f64 as type `ty`, rounding to nearest even.
#[inline]
pub fn float_from_f64(ty: ScalarTy, x: f64) -> u64 {
    match ty {
        ScalarTy::BFloat16 => u64::from(half::bf16::from_f64(x).to_bits()),
        _ => from_f64(x, ty.bits()),
    }
}

/// Mask selecting the low `bits` bits.
#[inline]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Truncate raw bits to `bits`.
#[inline]
pub fn trunc(v: u64, bits: u32) -> u64 {
    v & mask(bits)
}

/// Interpret the low `bits` bits as a signed integer.
#[inline]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    }
}

/// Read a float of width `bits` (16, 32 or 64) as f64.
#[inline]
pub fn to_f64(v: u64, bits: u32) -> f64 {
    match bits {
        16 => f16::from_bits(v as u16).to_f64(),
        32 => f64::from(f32::from_bits(v as u32)),
        _ => f64::from_bits(v),
    }
}

/// Encode an f64 as a float of width `bits`, rounding to nearest even.
#[inline]
pub fn from_f64(x: f64, bits: u32) -> u64 {
    match bits {
        16 => u64::from(f16::from_f64(x).to_bits()),
        32 => u64::from((x as f32).to_bits()),
        _ => x.to_bits(),
    }
}

#[inline]
pub fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

#[inline]
pub fn of_f32(x: f32) -> u64 {
    u64::from(x.to_bits())
}

#[inline]
pub fn f16_of(v: u64) -> f16 {
    f16::from_bits(v as u16)
}

#[inline]
pub fn of_f16(x: f16) -> u64 {
    u64::from(x.to_bits())
}

/// Human-readable rendering of one scalar, for the CLI and the app.
pub fn format_scalar(ty: ScalarTy, v: u64) -> String {
    match ty {
        ScalarTy::Bool => (v != 0).to_string(),
        ScalarTy::Int { bits, signed: true } => sext(v, u32::from(bits)).to_string(),
        ScalarTy::Int { bits, .. } => trunc(v, u32::from(bits)).to_string(),
        ScalarTy::Float { bits } => {
            let x = to_f64(v, u32::from(bits));
            format!("{x:?}")
        }
        ScalarTy::BFloat16 => format!("{:?}", float_to_f64(ty, v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_extension() {
        assert_eq!(sext(0xff, 8), -1);
        assert_eq!(sext(0x7f, 8), 127);
        assert_eq!(sext(0x8000_0000, 32), i64::from(i32::MIN));
        assert_eq!(sext(u64::MAX, 64), -1);
    }

    #[test]
    fn float_round_trip() {
        for bits in [16, 32, 64] {
            assert_eq!(to_f64(from_f64(1.5, bits), bits), 1.5);
        }
        assert_eq!(from_f64(1.0, 16), 0x3c00);
    }
}
