//! Any text as an AmberScript (or VkScript): parsing ends in a script or an error naming the
//! place, and running the script (SPIR-V assembly and hex shaders; GLSL is refused, since
//! glslang is C++ that this crate does not fuzz) ends in a report, never a panic or a hang.
#![no_main]

use lanescope_core::Config;
use lanescope_front::amber::{self, Compile, CompileError, ShaderFormat};
use libfuzzer_sys::fuzz_target;

struct AssemblyOnly;

impl Compile for AssemblyOnly {
    fn compile(
        &self,
        format: ShaderFormat,
        source: &str,
        target_env: Option<&str>,
        name: &str,
    ) -> Result<Vec<u32>, CompileError> {
        match format {
            ShaderFormat::Glsl => Err(CompileError::Unavailable("no GLSL under the fuzzer".into())),
            _ => lanescope_front::InProcess.compile(format, source, target_env, name),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(script) = amber::parse(text) else {
        return;
    };
    let opts = amber::RunOptions {
        config: Config {
            max_memory: 64 << 20,
            max_invocations: 1024,
            max_buffer_memory: 16 << 20,
            max_trace_steps: 1000,
            ..Config::default()
        },
        max_steps: 20_000,
        max_total_steps: 100_000,
        max_commands: 10_000,
        max_expect_reports: 1000,
        ..amber::RunOptions::default()
    };
    let _ = amber::execute(&script, &AssemblyOnly, &opts);
});
