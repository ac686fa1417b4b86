//! Built-in examples: every `.spv` in `assets/`, embedded at build time.

use lanescope_core::Bindings;

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
