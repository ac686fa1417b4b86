//! Built-in examples: every `.spv` in `assets/`, embedded at build time.

#[cfg(not(target_arch = "wasm32"))]
use crate::cli::CliError;
use lanescope_core::Bindings;
#[cfg(not(target_arch = "wasm32"))]
use lanescope_core::{load, Config, LoadOptions, Simulator};
#[cfg(not(target_arch = "wasm32"))]
use std::sync::Arc;

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// The example `lanescope` runs with no arguments.
pub const DEFAULT_EXAMPLE: &str = "if_else";

/// Buffers for an example (the core's one definition, [`Bindings::for_example`]).
pub fn example_bindings(
    prog: &lanescope_core::program::Program,
    max_bytes: u64,
) -> Result<Bindings, String> {
    Bindings::for_example(prog, max_bytes)
}

#[cfg(not(target_arch = "wasm32"))]
pub fn run_example(name: Option<&str>) -> Result<String, CliError> {
    let name = name.unwrap_or(DEFAULT_EXAMPLE);
    let Some((_, bytes, _)) = EXAMPLES.iter().find(|e| e.0 == name) else {
        let all: Vec<&str> = EXAMPLES.iter().map(|e| e.0).collect();
        return Err(CliError::Usage(format!(
            "no example named `{name}`; built in: {}",
            all.join(", ")
        )));
    };
    let prog = load(bytes, &LoadOptions::default())
        .map_err(|e| CliError::Failed(format!("example {name}: {e}")))?;
    let cfg = Config::default();
    let bindings = example_bindings(&prog, cfg.max_buffer_memory)
        .map_err(|e| CliError::Failed(format!("example {name}: {e}")))?;
    let mut sim = Simulator::new(Arc::new(prog), cfg, &bindings)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    sim.run(lanescope_core::DEFAULT_MAX_STEPS)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    Ok(format!(
        "example {name}\n{}",
        crate::report::summary_text(&sim)
    ))
}
