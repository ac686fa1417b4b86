//! AmberScript, the compute subset (google/amber's `docs/amber_script.md` is the specification
//! followed).
//!
//! - [`parse`] reads a script into a [`Script`]; errors are `LINE:COL: message`.
//!
//! What Lanescope does not simulate (images, samplers, graphics and ray-tracing pipelines,
//! OpenCL C) makes a script *skip*, with the construct and its line named, never fail.

mod lex;
mod parse;
mod script;
pub mod types;

pub use parse::{parse, parse_with_files, ParseError, ReadFile, MAX_SCRIPT_BUFFER_BYTES};
pub use script::{
    Attach, Bind, BindKind, Buffer, Check, Cmp, Command, Expect, Pipeline, RequiredSize,
    Requirement, RequirementKind, Script, Settings, Shader, ShaderFormat, SubgroupControl,
    Tolerance, Unsupported,
};
