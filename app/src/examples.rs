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

/// Buffers for an example: every buffer sized for 64 words per invocation past its fixed part
/// (fewer where that would pass `max_bytes`, the buffer-memory limit); binding 0 holds each
/// word's index (the examples read their input there). Fails, allocating nothing, when the
/// fixed parts alone pass the limit.
pub fn example_bindings(
    prog: &lanescope_core::program::Program,
    max_bytes: u64,
) -> Result<Bindings, String> {
    let [x, y, z] = prog.local_size;
    let invocations = u64::from(x) * u64::from(y) * u64::from(z);
    let fixed: u64 = prog.resources.iter().map(|r| u64::from(r.min_size)).sum();
    if fixed > max_bytes {
        return Err(format!(
            "the shader's buffers need {} KiB; the buffer-memory limit is {} KiB (raise it in the Limits menu)",
            fixed.div_ceil(1024),
            max_bytes >> 10
        ));
    }
    // What the runtime arrays may take, shared evenly among the buffers that have one.
    let growing = prog
        .resources
        .iter()
        .filter(|r| r.runtime_array_stride.is_some_and(|s| s > 0))
        .count()
        .max(1) as u64;
    let share = (max_bytes - fixed) / growing;
    let mut b = Bindings::default();
    for r in &prog.resources {
        let stride = u64::from(r.runtime_array_stride.unwrap_or(0));
        let elements = share
            .checked_div(stride)
            .map_or(0, |fit| fit.min(invocations.saturating_mul(64)));
        let size = (u64::from(r.min_size) + stride * elements).max(16);
        let mut data = vec![0u8; size as usize];
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
    Ok(b)
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
