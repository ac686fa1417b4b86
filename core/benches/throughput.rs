//! Simulator throughput (`cargo bench -p lanescope_core --bench throughput`), measured by
//! criterion as lane-instructions per second (its "elements/s").
//!
//! Three workloads from `assets/`: an ALU-bound loop, divergent control flow, and
//! subgroup-operation-heavy code, each a whole dispatch per iteration. Targets: at least 100
//! million lane-instructions/s on the ALU loop, so a classroom example runs in well under a
//! frame.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lanescope_core::program::Program;
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::path::Path;
use std::sync::Arc;

/// The buffers the app gives an example.
fn bindings(prog: &Program) -> Bindings {
    Bindings::for_example(prog, u64::MAX).expect("the example's buffers fit")
}

fn workload(c: &mut Criterion, name: &str, file: &str, workgroups: [u32; 3], detectors: bool) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../assets")
        .join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let prog =
        Arc::new(load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{file}: {e}")));
    let b = bindings(&prog);
    let cfg = Config {
        workgroups,
        detectors,
        ..Config::default()
    };
    let run = || {
        let mut sim = Simulator::new(Arc::clone(&prog), cfg.clone(), &b).expect("starts");
        sim.run(u64::MAX).expect("runs");
        sim
    };
    let lane_instructions = run().stats().lane_instructions;
    // The speed target is measured with the bug detectors off; with them on it may cost at most
    // twice as much.
    let mut g = c.benchmark_group(if detectors {
        "with detectors"
    } else {
        "throughput"
    });
    g.throughput(Throughput::Elements(lane_instructions));
    g.bench_function(name, |bench| bench.iter(run));
    g.finish();
}

fn throughput(c: &mut Criterion) {
    for detectors in [false, true] {
        workload(c, "alu-bound loop", "alu_loop.spv", [4, 1, 1], detectors);
        workload(
            c,
            "divergent control flow",
            "break_continue.spv",
            [16, 1, 1],
            detectors,
        );
        workload(
            c,
            "subgroup-op heavy",
            "subgroup_reduce.spv",
            [16, 1, 1],
            detectors,
        );
        workload(
            c,
            "workgroup reduction",
            "workgroup_reduce.spv",
            [16, 1, 1],
            detectors,
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = throughput
}
criterion_main!(benches);
