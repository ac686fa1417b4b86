//! The type of a scalar, below the float formats and the values that use it.

/// The type of one scalar component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ScalarTy {
    /// A boolean (1 or 0).
    Bool,
    /// An integer (`OpTypeInt`).
    Int {
        /// Width: 8, 16, 32 or 64.
        bits: u8,
        /// Signedness as the type declares it (operations decide how bits are read).
        signed: bool,
    },
    /// An IEEE float (`OpTypeFloat`).
    Float {
        /// Width: 16, 32 or 64.
        bits: u8,
    },
    /// bfloat16 (SPV_KHR_bfloat16: `OpTypeFloat 16 BFloat16KHR`): 1 sign, 8 exponent and 7
    /// fraction bits, raw bits in the low 16. Not `is_float()` (an IEEE float): code that
    /// computes on floats asks `is_any_float()` and goes through `float::Format::BF16`.
    BFloat16,
}

impl ScalarTy {
    /// `uint`.
    pub const U32: Self = Self::Int {
        bits: 32,
        signed: false,
    };
    /// `int`.
    pub const I32: Self = Self::Int {
        bits: 32,
        signed: true,
    };
    /// `float`.
    pub const F32: Self = Self::Float { bits: 32 };

    /// Width in bits (booleans count as 1; they have no memory layout).
    #[inline]
    pub fn bits(self) -> u32 {
        match self {
            Self::Bool => 1,
            Self::Int { bits, .. } | Self::Float { bits } => u32::from(bits),
            Self::BFloat16 => 16,
        }
    }

    /// Size in bytes when stored in memory with an explicit layout.
    #[inline]
    pub fn size_bytes(self) -> u32 {
        match self {
            // Booleans have no defined memory layout; store them as 32-bit words.
            Self::Bool => 4,
            Self::Int { bits, .. } | Self::Float { bits } => u32::from(bits) / 8,
            Self::BFloat16 => 2,
        }
    }

    /// An IEEE float (not bfloat16; see `is_any_float`).
    #[inline]
    pub fn is_float(self) -> bool {
        matches!(self, Self::Float { .. })
    }

    /// A signed integer.
    #[inline]
    pub fn is_signed(self) -> bool {
        matches!(self, Self::Int { signed: true, .. })
    }

    /// A floating-point type of any encoding (IEEE or bfloat16).
    #[inline]
    pub fn is_any_float(self) -> bool {
        matches!(self, Self::Float { .. } | Self::BFloat16)
    }
}
