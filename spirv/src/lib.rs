//! SPIR-V modules as bytes and as text, and nothing that executes: the layer between a compiler's
//! output and the engine that lowers and runs it.
//!
//! - [`read::parse`] checks the bytes (header, every instruction's word count, the logical
//!   layout's section order, operands rspirv would panic on) and parses the semantic
//!   instructions with rspirv; errors are a [`LoadError`] naming the instruction and its byte
//!   offset. [`read::entry_points`] lists the entry points without a full parse.
//! - [`SpirvModule`]: the module verbatim, instruction by instruction, numbered as every
//!   location in Lanescope numbers them (diagnostics, breakpoints, disassembly lines).
//! - [`debug`]: source files, lines, scopes, inlining and variables, from `OpLine`/`OpSource`
//!   and `NonSemantic.Shader.DebugInfo.100`.
//! - [`text`]: the assembly language of `spirv-as`/`spirv-dis`, both ways.

#![warn(missing_docs)]

pub mod debug;
mod error;
mod module;
pub mod read;
pub mod text;

pub use error::{LoadError, Location};
pub use module::{literal_string, SpirvModule};
