//! Module loading speed (`cargo bench -p lanescope_core --bench load`): parse, check and lower
//! a synthetic 1 MiB compute shader (a chain of 7,500 selection constructs, 15,001 blocks) and
//! every example in `assets/`. Goal: a 1 MB module in under 100 ms natively.

#[path = "support/synth.rs"]
mod synth;

use lanescope_core::{load, LoadOptions};
use std::time::{Duration, Instant};

/// Best time of repeated loads over about a second.
fn best_load(bytes: &[u8]) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut blocks = 0;
    let start = Instant::now();
    let mut runs = 0;
    while start.elapsed() < Duration::from_secs(1) || runs < 3 {
        let t = Instant::now();
        let prog = load(bytes, &LoadOptions::default()).expect("the module loads");
        best = best.min(t.elapsed());
        blocks = prog.blocks.len();
        runs += 1;
    }
    (best, blocks)
}

fn main() {
    if std::env::args().any(|a| a == "--test") {
        return;
    }
    let words = synth::chain_of_ifs(7_500, 64);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let (t, blocks) = best_load(&bytes);
    println!(
        "synthetic module {:>8.2} MiB {blocks:>6} blocks  load {:>7.2} ms  ({:.0} MiB/s)",
        bytes.len() as f64 / (1 << 20) as f64,
        t.as_secs_f64() * 1e3,
        bytes.len() as f64 / (1 << 20) as f64 / t.as_secs_f64()
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "spv"));
    files.sort();
    let mut total = Duration::ZERO;
    for f in &files {
        let bytes = std::fs::read(f).expect("readable asset");
        total += best_load(&bytes).0;
    }
    println!(
        "assets/*.spv ({} modules)     load {:>7.3} ms in all",
        files.len(),
        total.as_secs_f64() * 1e3
    );
}
