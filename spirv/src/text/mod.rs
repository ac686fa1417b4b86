//! SPIR-V assembly text: a disassembler and an assembler that agree with SPIRV-Tools 2025.5.
//!
//! [`disassemble`] prints exactly what `spirv-dis` prints (friendly names, indentation, literal
//! notation, header comment); [`assemble`] reads the `spirv-as` language and produces the words
//! `spirv-as` produces, ids numbered the same way, except for the generator word, which is
//! [`GENERATOR`]. Both work from the grammar rspirv carries (see `grammar.rs`), so they know the
//! same instructions, enumerants and extended instruction sets as the rest of the crate.
//!
//! Where the two tools are not followed (all rare in shaders):
//! - operand kinds private to OpenCL.DebugInfo.100 / DebugInfo (flags, encodings) are numbers;
//! - opcode aliases (`OpSDotKHR`) are not accepted, enumerant aliases are;
//! - literal-float parameters of Intel decorations read as integers;
//! - `!<word>` immediates and `OpUnknown(...)` are not part of the language read here;
//! - opcodes are not checked against the target environment's SPIR-V version;
//! - a `%name` used but never defined is an error here (spirv-as gives it a fresh id), except
//!   numeric ones such as `%12`, which disassembled invalid modules can contain;
//! - strings that are not UTF-8 print with U+FFFD in place of the bad bytes.
//!
//! Assembling the `--raw-id` text of a module with [`AsmOptions::preserve_numeric_ids`] gives the
//! module back, except the generator word and the bound, which is the largest id plus one as
//! spirv-as computes it. Assembling the default text numbers ids by first appearance.

mod asm;
mod binary;
mod dis;
mod generators;
mod grammar;
mod lines;
mod names;
mod number;

pub use asm::assemble;
pub use dis::{disassemble, disassemble_lines, DisLine};

use std::fmt;
use std::str::FromStr;

/// The generator word [`assemble`] writes: the upper half is 0x4C53 ("LS"), which the SPIR-V
/// tool registry has not assigned; the lower half is this assembler's version. spirv-dis shows
/// it as `Unknown(19539); 1`.
pub const GENERATOR: u32 = 0x4C53_0001;

/// How to print a module. The defaults are spirv-dis's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DisOptions {
    /// Print ids as numbers (`%12`), as `spirv-dis --raw-id` does.
    pub raw_id: bool,
    /// Leave out the header comment (`--no-header`).
    pub no_header: bool,
    /// Do not align the opcode column (`--no-indent`).
    pub no_indent: bool,
}

/// How to assemble text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AsmOptions {
    /// Keep numeric ids (`%12` is id 12) and give names the ids left free, lowest first
    /// (`spirv-as --preserve-numeric-ids`). Otherwise every id, numeric or named, is numbered
    /// by first appearance.
    pub preserve_numeric_ids: bool,
    /// The environment whose SPIR-V version goes in the header. As with `spirv-as
    /// --target-env`, it wins over a `; Version: 1.x` comment at the top of the text; with
    /// neither the version is 1.6.
    pub target_env: Option<TargetEnv>,
    /// Make the text the module's source (not something spirv-as does): with a file name, the
    /// module gets `OpString` (the name), `OpSource Unknown 0` holding the text, and an `OpLine`
    /// on every function-body instruction pointing at its line, so a debugger steps the
    /// assembly as written. A text that carries its own debug information (`OpSource`,
    /// `OpLine` or NonSemantic.Shader.DebugInfo) is left as it is. New ids come after every
    /// id of the text, so the text's ids keep their numbers.
    pub source_file: Option<String>,
}

/// A target environment, named as `spirv-as --target-env` names it.
// Each variant is the `--target-env` value its name spells (`Vulkan1_1Spv1_4` is
// `vulkan1.1spv1.4`); `FromStr` and `Display` read and write those names.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetEnv {
    Spv1_0,
    Spv1_1,
    Spv1_2,
    Spv1_3,
    Spv1_4,
    Spv1_5,
    Spv1_6,
    Vulkan1_0,
    Vulkan1_1,
    Vulkan1_1Spv1_4,
    Vulkan1_2,
    Vulkan1_3,
    Vulkan1_4,
    OpenCl1_2,
    OpenCl1_2Embedded,
    OpenCl2_0,
    OpenCl2_0Embedded,
    OpenCl2_1,
    OpenCl2_1Embedded,
    OpenCl2_2,
    OpenCl2_2Embedded,
    OpenGl4_0,
    OpenGl4_1,
    OpenGl4_2,
    OpenGl4_3,
    OpenGl4_5,
}

impl TargetEnv {
    /// Every environment.
    pub const ALL: [TargetEnv; 26] = [
        TargetEnv::Vulkan1_0,
        TargetEnv::Vulkan1_1Spv1_4,
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
        TargetEnv::Vulkan1_4,
        TargetEnv::Spv1_0,
        TargetEnv::Spv1_1,
        TargetEnv::Spv1_2,
        TargetEnv::Spv1_3,
        TargetEnv::Spv1_4,
        TargetEnv::Spv1_5,
        TargetEnv::Spv1_6,
        TargetEnv::OpenCl1_2Embedded,
        TargetEnv::OpenCl1_2,
        TargetEnv::OpenCl2_0Embedded,
        TargetEnv::OpenCl2_0,
        TargetEnv::OpenCl2_1Embedded,
        TargetEnv::OpenCl2_1,
        TargetEnv::OpenCl2_2Embedded,
        TargetEnv::OpenCl2_2,
        TargetEnv::OpenGl4_0,
        TargetEnv::OpenGl4_1,
        TargetEnv::OpenGl4_2,
        TargetEnv::OpenGl4_3,
        TargetEnv::OpenGl4_5,
    ];

    /// The name `spirv-as --target-env` takes.
    pub fn name(self) -> &'static str {
        use TargetEnv as T;
        match self {
            T::Spv1_0 => "spv1.0",
            T::Spv1_1 => "spv1.1",
            T::Spv1_2 => "spv1.2",
            T::Spv1_3 => "spv1.3",
            T::Spv1_4 => "spv1.4",
            T::Spv1_5 => "spv1.5",
            T::Spv1_6 => "spv1.6",
            T::Vulkan1_0 => "vulkan1.0",
            T::Vulkan1_1 => "vulkan1.1",
            T::Vulkan1_1Spv1_4 => "vulkan1.1spv1.4",
            T::Vulkan1_2 => "vulkan1.2",
            T::Vulkan1_3 => "vulkan1.3",
            T::Vulkan1_4 => "vulkan1.4",
            T::OpenCl1_2 => "opencl1.2",
            T::OpenCl1_2Embedded => "opencl1.2embedded",
            T::OpenCl2_0 => "opencl2.0",
            T::OpenCl2_0Embedded => "opencl2.0embedded",
            T::OpenCl2_1 => "opencl2.1",
            T::OpenCl2_1Embedded => "opencl2.1embedded",
            T::OpenCl2_2 => "opencl2.2",
            T::OpenCl2_2Embedded => "opencl2.2embedded",
            T::OpenGl4_0 => "opengl4.0",
            T::OpenGl4_1 => "opengl4.1",
            T::OpenGl4_2 => "opengl4.2",
            T::OpenGl4_3 => "opengl4.3",
            T::OpenGl4_5 => "opengl4.5",
        }
    }

    /// The SPIR-V version (major, minor) a module for this environment declares, as SPIRV-Tools
    /// maps it: Vulkan 1.1 is SPIR-V 1.3, Vulkan 1.2 is 1.5, Vulkan 1.3 and 1.4 are 1.6.
    pub fn spirv_version(self) -> (u8, u8) {
        use TargetEnv as T;
        match self {
            T::Spv1_0
            | T::Vulkan1_0
            | T::OpenCl1_2
            | T::OpenCl1_2Embedded
            | T::OpenCl2_0
            | T::OpenCl2_0Embedded
            | T::OpenCl2_1
            | T::OpenCl2_1Embedded
            | T::OpenGl4_0
            | T::OpenGl4_1
            | T::OpenGl4_2
            | T::OpenGl4_3
            | T::OpenGl4_5 => (1, 0),
            T::Spv1_1 => (1, 1),
            T::Spv1_2 | T::OpenCl2_2 | T::OpenCl2_2Embedded => (1, 2),
            T::Spv1_3 | T::Vulkan1_1 => (1, 3),
            T::Spv1_4 | T::Vulkan1_1Spv1_4 => (1, 4),
            T::Spv1_5 | T::Vulkan1_2 => (1, 5),
            T::Spv1_6 | T::Vulkan1_3 | T::Vulkan1_4 => (1, 6),
        }
    }
}

impl fmt::Display for TargetEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TargetEnv {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TargetEnv::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("unknown target environment '{s}'"))
    }
}

/// An assembly error at a place in the text: 1-based line and column (in characters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct AsmError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong, in spirv-as's words where it has them.
    pub message: String,
}

/// A disassembly error: the binary could not be read at `word` (counted from the magic number).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("word {word}: {message}")]
pub struct DisError {
    /// The word index (0 is the magic number).
    pub word: usize,
    /// What is wrong.
    pub message: String,
}
