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

/// An opcode's name without its `Op` prefix, as the grammar spells it (`GroupNonUniformIAdd`),
/// or `"Unknown"`: a lookup in the grammar's table, which the disassembler carries anyway.
/// Formatting opcodes with `{:?}` linked copies of a second table of every name (the
/// browser's first visit was 19 KB gzip larger).
pub fn op_name(op: rspirv::spirv::Op) -> &'static str {
    rspirv::grammar::INSTRUCTION_TABLE
        .iter()
        .find(|i| i.opcode == op)
        .map_or("Unknown", |i| i.opname)
}

#[cfg(test)]
mod op_name_tests {
    use rspirv::spirv::Op;

    /// The names are those `{:?}` gave, for every opcode of the grammar.
    #[test]
    fn names_are_the_debug_names() {
        for i in rspirv::grammar::INSTRUCTION_TABLE.iter() {
            assert_eq!(super::op_name(i.opcode), format!("{:?}", i.opcode));
        }
        assert_eq!(
            super::op_name(Op::GroupNonUniformRotateKHR),
            "GroupNonUniformRotateKHR"
        );
    }
}
