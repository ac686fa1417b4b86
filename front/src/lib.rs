//! Lanescope's front ends: what turns what a person writes into what the simulator runs.
//!
//! - [`Language`]: which language a source is in (from its file name or its first bytes).
//! - [`compile`]: WGSL (naga, every build), GLSL and HLSL (glslang, the `glsl` feature: native
//!   builds, and the browser's compiler module `web/glsl`) and SPIR-V assembly (the core's
//!   assembler) to a SPIR-V module with debug information, or positioned errors;
//!   [`compile_bounded`] the same under time and memory limits (GLSL in a worker process).
//! - [`amber`]: AmberScript tests (compute subset): parse, run on the simulator, check the
//!   expectations, save a session as a script.
//!
//! Nothing here draws or touches a window; the app and the CLI call these. Like the core, the crate
//! builds for wasm (compilers that cannot, such as glslang's C++, are native-only and say so in
//! their errors).
//!
//! How the compilers run: `compile.rs` is the one entry point: text in a `Language`, out a SPIR-V
//! module or `Diagnostic`s with line, column and span. `wgsl.rs`: naga's WGSL front end, validator
//! (with the subgroup, f16, int64 and cooperative-matrix capabilities Lanescope runs) and SPIR-V
//! back end at 1.6 with debug information (OpSource text and OpLine) (the `wgsl` feature).
//! `glsl.rs`: glslang for GLSL and HLSL (the `glsl` feature). Both are on by default and off in the
//! browser app, which loads `web/glsl` (glslang for wasm32 and naga behind the worker's JSON
//! protocol) in a Web Worker at the first compile; `glsl` is off in the sanitizer fuzz builds;
//! `#include` read from files given as text, then from disk, through glslang's include callbacks,
//! `-D` macros as its preamble; the `glslang` crate's safe API cannot ask for debug information, so
//! this one module (the only `unsafe` in the workspace) drives glslang's C interface through the
//! crate's own FFI (`glslang-sys`) as `glslangValidator -gVS` does, on handles it owns and frees
//! once. `bounded.rs` runs a GLSL, HLSL or WGSL compile in a child process (the app's own binary
//! with a hidden `compile-worker` subcommand) under a time limit and a memory rlimit, so a hostile
//! source is an error naming the limit, never a hang or an abort of the app. SPIR-V assembly goes
//! to `spirv::text` (`core::spvtext`), which (given a file name) adds the text as its OpSource and
//! an OpLine per instruction (`spirv/src/text/lines.rs`), so assembly is stepped and shown as its
//! own source.

#![warn(missing_docs)]

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
    can_compile, compile, is_macro_name, parse_define, parse_override, Bounded, CompileError,
    CompileOptions, Compiled, Diagnostic, InProcess,
};
pub use language::Language;
