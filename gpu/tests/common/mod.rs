//! What the device tests share: a test shader simulated as `lanescope run` would.

use lanescope_core::program::Program;
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator, SwitchTangles};
use std::sync::Arc;

/// A finished simulation of a test shader and what the comparison needs of it.
pub struct Run {
    pub opts: LoadOptions,
    pub prog: Arc<Program>,
    pub cfg: Config,
    pub bindings: Bindings,
    pub sim: Simulator,
    pub spirv: Vec<u32>,
}

impl Run {
    pub fn simulated(&self, schedules: u64) -> lanescope_gpu::compare::Simulated<'_> {
        lanescope_gpu::compare::Simulated {
            opts: &self.opts,
            prog: &self.prog,
            cfg: &self.cfg,
            bindings: &self.bindings,
            sim: &self.sim,
            spirv: &self.spirv,
            schedules,
            max_steps: 10_000_000,
        }
    }
}

/// Pseudo-random words (the same every run).
pub fn words(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    (0..n)
        .flat_map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x.to_le_bytes()
        })
        .collect()
}

/// `gpu/tests/data/NAME.spv` run to the end on `workgroups` with `buffers` at set 0.
pub fn simulate(name: &str, workgroups: u32, buffers: &[(u32, Vec<u8>)], size: u32) -> Run {
    let path = format!("{}/tests/data/{name}.spv", env!("CARGO_MANIFEST_DIR"));
    simulate_file(&path, workgroups, buffers, size, SwitchTangles::PerValue)
}

/// The module at `path` run to the end; with no `buffers`, those the app gives an example.
pub fn simulate_file(
    path: &str,
    workgroups: u32,
    buffers: &[(u32, Vec<u8>)],
    size: u32,
    switch_tangles: SwitchTangles,
) -> Run {
    run_with(path, workgroups, size, switch_tangles, |prog| {
        if buffers.is_empty() {
            Bindings::for_example(prog, u64::MAX).expect("the example's buffers")
        } else {
            Bindings {
                buffers: buffers.iter().map(|(b, d)| (0, *b, d.clone())).collect(),
                ..Bindings::default()
            }
        }
    })
}

/// `gpu/tests/data/NAME.spv` run to the end on `workgroups` with `bindings` (descriptor array
/// elements, shared bindings).
#[allow(dead_code)]
pub fn simulate_bound(name: &str, workgroups: u32, bindings: Bindings, size: u32) -> Run {
    let path = format!("{}/tests/data/{name}.spv", env!("CARGO_MANIFEST_DIR"));
    run_with(&path, workgroups, size, SwitchTangles::PerValue, |_| {
        bindings
    })
}

/// The module at `path` loaded at subgroup size `size`, bound as `bindings` says for it, and run
/// to the end.
fn run_with(
    path: &str,
    workgroups: u32,
    size: u32,
    switch_tangles: SwitchTangles,
    bindings: impl FnOnce(&Program) -> Bindings,
) -> Run {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let opts = LoadOptions {
        subgroup_size: Some(size),
        ..LoadOptions::default()
    };
    let prog = Arc::new(load(&bytes, &opts).unwrap_or_else(|e| panic!("{path}: {e}")));
    let bindings = bindings(&prog);
    let cfg = Config {
        subgroup_size: size,
        workgroups: [workgroups, 1, 1],
        switch_tangles,
        ..Config::default()
    };
    let mut sim = Simulator::new(Arc::clone(&prog), cfg.clone(), &bindings).expect("starts");
    sim.run(10_000_000).expect("runs");
    assert!(sim.is_finished(), "{path} finishes");
    Run {
        opts,
        prog,
        cfg,
        bindings,
        sim,
        spirv: lanescope_core::explore::words(&bytes),
    }
}
