//! Lanescope's front ends: what turns what a person writes into what the simulator runs.
//!
//! - [`Language`]: which language a source is in (from its file name or its first bytes).
//! - [`compile`]: WGSL (naga, every build), GLSL and HLSL (glslang, the `glsl` feature: native
//!   builds, and the browser's compiler module `web/glsl`) and SPIR-V assembly
//!   (the core's assembler) to a SPIR-V module with debug information, or positioned errors;
//!   [`compile_bounded`] the same under time and memory limits (GLSL in a worker process).
//! - [`amber`]: AmberScript tests (compute subset): parse, run on the simulator, check the
//!   expectations, save a session as a script.
//!
//! Nothing here draws or touches a window; the app and the CLI call these. Like the core, the
//! crate builds for wasm (compilers that cannot, such as glslang's C++, are native-only and say
//! so in their errors).

pub mod amber;
mod bounded;
mod compile;
mod glsl;
mod language;
#[cfg(feature = "wgsl")]
mod wgsl;

pub use bounded::{
    answer_compile_request, compile_bounded, compile_bounded_cancellable, compile_reply,
    compile_request, serve_compile_worker, CompileLimits, WorkerCommand,
    DEFAULT_COMPILE_MEMORY_MIB, DEFAULT_COMPILE_SECONDS,
};
pub use compile::{
    can_compile, compile, is_macro_name, parse_define, Bounded, CompileError, CompileOptions,
    Compiled, Diagnostic, InProcess,
};
pub use language::Language;
