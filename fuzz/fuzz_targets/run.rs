//! Any bytes that load: run one workgroup with every buffer bound (sized from the input) and a
//! small step budget. Errors and diagnostics are fine; panics, hangs and runaway memory are not.
#![no_main]

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let Ok(prog) = load(data, &LoadOptions::default()) else { return };
    let mut b = Bindings::default();
    for (i, r) in prog.resources().iter().enumerate() {
        // Fixed part plus a few runtime-array elements; the contents come from the input.
        let size = (r.min_size as usize + r.runtime_array_stride.unwrap_or(0) as usize * 8).min(1 << 16);
        let bytes: Vec<u8> = (0..size).map(|k| data.get((k * 7 + i) % data.len().max(1)).copied().unwrap_or(0)).collect();
        if r.push_constant {
            b.push_constants = bytes;
        } else {
            b.buffers.push((r.set, r.binding, bytes));
        }
    }
    let cfg = Config { subgroup_size: 8, max_memory: 64 << 20, max_trace_steps: 1000, record_trace: true, ..Config::default() };
    if let Ok(mut sim) = Simulator::new(Arc::new(prog), cfg, &b) {
        let _ = sim.run(2_000);
        for g in 0..sim.subgroup_count() {
            let _ = sim.lane_states(g);
        }
        let _ = sim.tangles();
    }
});
