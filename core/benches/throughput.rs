//! Simulator throughput in lane-instructions per second (`cargo bench -p lanescope_core`).
//!
//! Three workloads from `assets/`: an ALU-bound loop, divergent control flow, and
//! subgroup-operation-heavy code. Each runs whole dispatches repeatedly for about a second and
//! reports the best rate. Goal: at least 100 million lane-instructions/s for the ALU loop.

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn bindings(prog: &lanescope_core::program::Program) -> Bindings {
    let [x, y, z] = prog.local_size;
    let inv = x * y * z;
    let mut b = Bindings::default();
    for r in &prog.resources {
        let size = (r.min_size + r.runtime_array_stride.unwrap_or(0) * inv * 64).max(16) as usize;
        let data: Vec<u8> = (0..size / 4)
            .flat_map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes())
            .collect();
        b.buffers.push((r.set, r.binding, data));
    }
    b
}

fn bench(name: &str, file: &str, workgroups: [u32; 3]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../assets")
        .join(file);
    let Ok(bytes) = std::fs::read(&path) else {
        println!("{name:<28} skipped: {} missing", path.display());
        return;
    };
    let prog =
        Arc::new(load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{file}: {e}")));
    let b = bindings(&prog);
    let cfg = Config {
        workgroups,
        ..Config::default()
    };
    let mut best = 0.0f64;
    let mut lane_insts = 0;
    let start = Instant::now();
    let mut runs = 0;
    while start.elapsed() < Duration::from_secs(1) || runs < 3 {
        let mut sim = Simulator::new(Arc::clone(&prog), cfg.clone(), &b).unwrap();
        let t = Instant::now();
        sim.run(u64::MAX).unwrap();
        let dt = t.elapsed().as_secs_f64();
        lane_insts = sim.stats().lane_instructions;
        best = best.max(lane_insts as f64 / dt);
        runs += 1;
    }
    println!(
        "{name:<28} {:>8.1} M lane-instructions/s  ({lane_insts} per dispatch, {runs} runs)",
        best / 1e6
    );
}

fn main() {
    // `cargo test --benches` passes --bench-less flags; run quickly then.
    let quick = std::env::args().any(|a| a == "--test");
    if quick {
        return;
    }
    bench("alu-bound loop", "alu_loop.spv", [4, 1, 1]);
    bench("divergent control flow", "break_continue.spv", [16, 1, 1]);
    bench("subgroup-op heavy", "subgroup_reduce.spv", [16, 1, 1]);
}
