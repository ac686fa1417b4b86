//! AmberScript, the compute subset: parse a script, run it on the simulator, check its expectations
//! (google/amber's `docs/amber_script.md` is the specification followed).
//!
//! - [`parse`] reads a script into a [`Script`]; errors are `LINE:COL: message`. VkScript files
//!   (amber's older `[section]` format) are read too, their compute subset.
//! - [`run`] / [`execute`] run it with a [`Compile`] implementation the caller supplies for `GLSL`
//!   and `SPIRV-ASM` shaders (`SPIRV-HEX` is decoded here) and give a [`Report`].
//! - [`to_amber`] saves a single-dispatch session as a script that parses back.
//!
//! Images (`IMAGE`, bound `AS storage_image`, `sampled_image`, `combined_image_sampler`,
//! `uniform_texel_buffer` or `storage_texel_buffer`), samplers (`SAMPLER`, `BIND SAMPLER`) and
//! region probes (`EXPECT img IDX x y SIZE w h EQ_RGBA ...`) are simulated for the R, RG and RGBA
//! formats the simulator stores, with one mip level.
//!
//! What Lanescope does not simulate (other image formats, mip levels, samplers with separate
//! min/mag filters, per-axis address modes, opaque borders or depth comparison, graphics and
//! ray-tracing pipelines, OpenCL C, device features outside [`device`]'s table) makes a script
//! *skip*, with the construct and its line named, never fail.
//!
//! # How it is built
//!
//!
//! `lex.rs` tokenizes as amber does (positions kept for `LINE:COL` errors); `parse.rs` reads
//! AmberScript statement by statement, a file per command under `parse/` (`shader.rs`, `buffer.rs`,
//! `image.rs` with samplers, `pipeline.rs`, `bind.rs`, `commands.rs`: RUN, COPY, CLEAR, REPEAT,
//! EXPECT) and `vkscript.rs` VkScript into one `Script` (shaders, buffers as bytes in amber's
//! STD140/STD430 layout from `types.rs`, pipelines, commands, requirements). Anything not simulated
//! (graphics, ray tracing, OpenCL C) stops the parse with an `Unsupported` note, and a requirement
//! outside `device.rs`'s table does the same: such a script is *skipped*. `run.rs` executes
//! commands in order over the buffers: each `RUN` compiles its shader through the caller's
//! `Compile` (once per shader), loads it once per entry point, specialization and subgroup size,
//! binds the pipeline's buffers (one window of a buffer shared by several bindings is one storage,
//! `Bindings::aliases`), runs the `Simulator` within a step limit and writes the bytes back.
//! `expect.rs` checks `EXPECT`s with amber's verifier rules (float16 written with amber's
//! truncation, float `EQ` within 1e-8 relative, `TOLERANCE` absolute or `%`); `report.rs` is the
//! `Report` (JSON, text, exit code 0/1/77); `save.rs` writes a session as a script, with `#
//! lanescope:` settings comments that the parser reads back.

pub mod device;
mod expect;
mod lex;
mod parse;
mod report;
mod run;
mod save;
mod script;
pub mod types;
mod vkscript;

pub use parse::{parse, parse_with_files, ParseError, ReadFile, MAX_SCRIPT_BUFFER_BYTES};
pub use report::{ExpectReport, Report, RunReport, Status};
pub use run::{
    decode_hex, execute, run, run_text, BufferState, CapturedRun, Compile, CompileError, Execution,
    NoCompiler, RunOptions,
};
pub use save::{to_amber, SaveBuffer, SaveSession, SaveShader};
pub use script::{
    Attach, Bind, BindKind, Buffer, Check, Cmp, Command, Expect, Image, ImageDim, Pipeline,
    RequiredSize, Requirement, RequirementKind, Sampler, SamplerAddress, SamplerBind, SamplerUse,
    Script, Settings, Shader, ShaderFormat, SubgroupControl, Tolerance, Unsupported,
};
