//! Whole dispatches of real kernels (`cargo bench -p lanescope_core --bench kernels`): a
//! shared-memory tiled matmul and a cooperative-matrix GEMM, f16 inputs and f32 accumulation
//! (tests/data/matmul_tiled.comp, matmul_coop.comp), at N = 128 (64 workgroups), on one
//! thread and on every core. `LANESCOPE_MATMUL_N` sets another N (a multiple of 16), e.g. 512
//! for the README's figures. Throughput is in lane-instructions per second; "detectors" runs
//! with the bug detectors on (the default run's cost, targeted at 1.5x of the plain run).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator, SpecValue};
use std::path::Path;
use std::sync::Arc;

fn kernel(c: &mut Criterion, name: &str, file: &str) {
    let n: u32 = std::env::var("LANESCOPE_MATMUL_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(128);
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let opts = LoadOptions {
        spec: [(0, SpecValue::Bits(u64::from(n)))].into(),
        subgroup_size: Some(32),
        ..LoadOptions::default()
    };
    let prog = Arc::new(load(&bytes, &opts).unwrap_or_else(|e| panic!("{file}: {e}")));
    // Small integers in f16 (0x3c00 = 1.0, 0x4000 = 2.0, 0xbc00 = -1.0).
    let halves = |k: usize| -> Vec<u8> {
        (0..(n * n) as usize)
            .flat_map(|i| [0x3c00u16, 0x4000, 0xbc00][(i + k) % 3].to_le_bytes())
            .collect()
    };
    let b = Bindings {
        buffers: vec![
            (0, 0, halves(0)),
            (0, 1, halves(1)),
            (0, 2, vec![0; (n * n * 4) as usize]),
        ],
        ..Bindings::default()
    };
    let cfg = |detectors: bool| Config {
        workgroups: [n / 16, n / 16, 1],
        detectors,
        ..Config::default()
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let run_with = |threads: usize, detectors: bool| {
        let mut sim = Simulator::new(Arc::clone(&prog), cfg(detectors), &b).expect("starts");
        sim.run_threads(u64::MAX, threads).expect("runs");
        assert!(sim.is_finished());
        sim
    };
    let run = |threads: usize| run_with(threads, false);
    let lane_instructions = run(1).stats().lane_instructions;
    let mut g = c.benchmark_group(format!("{name} {n}x{n}x{n}"));
    g.throughput(Throughput::Elements(lane_instructions));
    g.bench_function("1 thread", |bench| bench.iter(|| run(1)));
    g.bench_function(format!("{cores} threads"), |bench| {
        bench.iter(|| run(cores))
    });
    g.bench_function("1 thread, detectors", |bench| {
        bench.iter(|| run_with(1, true))
    });
    g.finish();
}

fn kernels(c: &mut Criterion) {
    kernel(c, "tiled matmul", "matmul_tiled.spv");
    kernel(c, "coop-matrix GEMM", "matmul_coop.spv");
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = kernels
}
criterion_main!(benches);
