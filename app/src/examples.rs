//! Built-in examples: every `.spv` in `assets/`, embedded at build time.

#[cfg(not(target_arch = "wasm32"))]
use crate::cli::{self, CliError};
use lanescope_core::Bindings;
#[cfg(not(target_arch = "wasm32"))]
use lanescope_core::{load, Config, LoadOptions, Simulator};
#[cfg(not(target_arch = "wasm32"))]
use std::sync::Arc;

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// The example `lanescope` runs with no arguments.
pub const DEFAULT_EXAMPLE: &str = "if_else";

/// Buffers for an example: every buffer sized for 64 words per invocation past its fixed part;
/// binding 0 holds each word's index (the examples read their input there).
pub fn example_bindings(prog: &lanescope_core::program::Program) -> Bindings {
    let [x, y, z] = prog.local_size;
    let invocations = x * y * z;
    let mut b = Bindings::default();
    for r in &prog.resources {
        let size = r.min_size + r.runtime_array_stride.unwrap_or(0) * invocations * 64;
        let size = size.max(16) as usize;
        let mut data = vec![0u8; size];
        if r.binding == 0 {
            for (i, w) in data.chunks_exact_mut(4).enumerate() {
                w.copy_from_slice(&(i as u32).to_le_bytes());
            }
        }
        if r.push_constant {
            b.push_constants = data;
        } else {
            b.buffers.push((r.set, r.binding, data));
        }
    }
    b
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
    let bindings = example_bindings(&prog);
    let mut sim = Simulator::new(Arc::new(prog), Config::default(), &bindings)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    sim.run(cli::DEFAULT_MAX_STEPS)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    Ok(format!(
        "example {name}\n{}",
        crate::report::summary_text(&sim)
    ))
}
