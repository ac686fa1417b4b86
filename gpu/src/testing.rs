//! What the crate's unit tests share: a module's words simulated to the end.

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::sync::Arc;

/// A module's words as the bytes a loader reads.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The words of the module at `path` (from the repository's root).
pub fn file_words(path: &str) -> Vec<u32> {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    lanescope_core::explore::words(&std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}")))
}

/// The module simulated to the end, loaded with `opts`, run with `cfg` and `bindings` (the
/// buffers the app gives an example where `None`).
pub fn simulate(
    words: &[u32],
    opts: &LoadOptions,
    cfg: Config,
    bindings: Option<Bindings>,
) -> Simulator {
    let prog = Arc::new(load(&bytes(words), opts).expect("the module loads"));
    let b = bindings
        .unwrap_or_else(|| Bindings::for_example(&prog, u64::MAX).expect("the example's buffers"));
    let mut sim = Simulator::new(prog, cfg, &b).expect("starts");
    sim.run(10_000_000).expect("runs");
    sim
}
