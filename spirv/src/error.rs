//! Loading errors: every one names what went wrong and where.

use std::fmt;

/// Where in the module a problem is. (The names are boxed strings: every loading function
/// returns this inside its error, which is kept small.)
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    /// 0-based index of the instruction in the module's instruction stream.
    pub instruction: Option<u32>,
    /// Byte offset of that instruction in the file.
    pub byte_offset: Option<u32>,
    /// The instruction's opcode name (`OpLoad`).
    pub opcode: Option<Box<str>>,
    /// The instruction's result id.
    pub id: Option<u32>,
    /// The name of the function the instruction is in.
    pub function: Option<Box<str>>,
    /// The source position (`file:line[:col]`), when the module carries line information.
    pub source: Option<Box<str>>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(op) = &self.opcode {
            parts.push(op.to_string());
        }
        if let Some(id) = self.id {
            parts.push(format!("%{id}"));
        }
        if let Some(i) = self.instruction {
            parts.push(format!("instruction #{i}"));
        }
        if let Some(b) = self.byte_offset {
            parts.push(format!("byte offset {b}"));
        }
        if let Some(func) = &self.function {
            parts.push(format!("in function {func}"));
        }
        if let Some(src) = &self.source {
            parts.push(format!("from {src}"));
        }
        if parts.is_empty() {
            write!(f, "in the module")
        } else {
            write!(f, "at {}", parts.join(", "))
        }
    }
}

/// Why a module could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum LoadError {
    /// The bytes are not a well-formed SPIR-V binary.
    Malformed {
        /// What is wrong.
        what: String,
        /// Where.
        at: Location,
    },
    /// Well-formed, but breaks a rule of the SPIR-V spec.
    Invalid {
        /// What is wrong.
        what: String,
        /// Where.
        at: Location,
    },
    /// Valid SPIR-V that uses something Lanescope does not simulate (yet).
    Unsupported {
        /// What is wrong.
        what: String,
        /// Where.
        at: Location,
    },
    /// The requested entry point is missing or not a compute shader.
    EntryPoint {
        /// What is wrong.
        what: String,
    },
    /// A load option does not fit the module (e.g. a specialization value of the wrong type).
    Option {
        /// What is wrong.
        what: String,
        /// Where.
        at: Location,
    },
}

impl LoadError {
    /// The variant as a short stable word (`malformed`, `invalid`, `unsupported`,
    /// `entry-point`, `option`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Malformed { .. } => "malformed",
            Self::Invalid { .. } => "invalid",
            Self::Unsupported { .. } => "unsupported",
            Self::EntryPoint { .. } => "entry-point",
            Self::Option { .. } => "option",
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed { what, at } => write!(f, "malformed SPIR-V: {what} ({at})"),
            Self::Invalid { what, at } => write!(f, "invalid SPIR-V: {what} ({at})"),
            Self::Unsupported { what, at } => write!(f, "unsupported: {what} ({at})"),
            Self::EntryPoint { what } => write!(f, "entry point: {what}"),
            Self::Option { what, at } => write!(f, "{what} ({at})"),
        }
    }
}

impl std::error::Error for LoadError {}
