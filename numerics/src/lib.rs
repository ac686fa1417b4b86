//! SPIR-V's numeric semantics as pure functions on raw bits, the layer under Lanescope's engine
//! (as wasmi keeps its opcode semantics apart from its executor): nothing here knows of a
//! module, an invocation or a subgroup.
//!
//! - [`scalar`]: the type of a scalar ([`scalar::ScalarTy`], also `value::ScalarTy`), at
//!   the bottom: the float formats and the values both read it.
//! - [`value`]: raw component bits: masks, sign extension, conversions to and from `f64`,
//!   formatting and parsing.
//! - [`float`]: the float formats (f16, bf16, f32, f64), rounding modes and the float
//!   controls (rounding and denormal flushing per width) with exactly rounded arithmetic.
//! - [`alu`]: the arithmetic, logical and conversion instructions ([`alu::BinOp`],
//!   [`alu::UnOp`], [`alu::ConvOp`]).
//! - [`glsl450`]: the GLSL.std.450 extended instructions.
//! - [`dot`]: the integer dot products of SPV_KHR_integer_dot_product.
//! - [`coopmat`]: the cooperative-matrix MulAdd on logical matrices.
//!
//! The engine (`lanescope_core`) re-exports these modules under the same names.

#![warn(missing_docs)]

pub mod alu;
pub mod coopmat;
pub mod dot;
pub mod float;
pub mod glsl450;
pub mod scalar;
pub mod value;
