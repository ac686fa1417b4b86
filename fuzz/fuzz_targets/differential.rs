//! Race-free shaders (the reconvergence reference shaders and the examples) on fuzzed inputs,
//! run under two sibling-tangle orders: results the spec defines must not depend on the order,
//! so every buffer must come out identical.
#![no_main]

use lanescope_core::{load, Bindings, Config, LoadOptions, SiblingOrder, Simulator, SwitchTangles};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

const SHADERS: &[&[u8]] = &[
    include_bytes!("../../core/tests/reference/reconv/c01_if_else.spv"),
    include_bytes!("../../core/tests/reference/reconv/c03_nested_if.spv"),
    include_bytes!("../../core/tests/reference/reconv/c05_loop_divergent_trip.spv"),
    include_bytes!("../../core/tests/reference/reconv/c06_loop_break_in_if.spv"),
    include_bytes!("../../core/tests/reference/reconv/c08_early_return.spv"),
    include_bytes!("../../core/tests/reference/reconv/c10_switch.spv"),
    include_bytes!("../../core/tests/reference/reconv/c12_func_divergent_return.spv"),
    include_bytes!("../../core/tests/reference/reconv/c14_nested_loops.spv"),
    include_bytes!("../../core/tests/reference/reconv/c19_break_and_continue.spv"),
    include_bytes!("../../core/tests/reference/reconv/c25_elect_and_vote.spv"),
    include_bytes!("../../core/tests/reference/reconv/c34_switch_multi_label.spv"),
    include_bytes!("../../core/tests/reference/reconv/c40_ls48_partial_subgroup.spv"),
    include_bytes!("../../assets/break_continue.spv"),
    include_bytes!("../../assets/function_calls.spv"),
    include_bytes!("../../assets/switch_fallthrough.spv"),
    include_bytes!("../../assets/subgroup_reduce.spv"),
    include_bytes!("../../assets/subgroup_shuffle.spv"),
];

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let shader = SHADERS[data[0] as usize % SHADERS.len()];
    let size = [4u32, 8, 16, 32, 64][data[1] as usize % 5];
    let switch = if data[2] & 1 == 0 { SwitchTangles::PerValue } else { SwitchTangles::PerCase };
    let input = &data[3..];
    let prog = Arc::new(load(shader, &LoadOptions::default()).expect("built-in shader loads"));
    let [x, y, z] = prog.local_size();
    let inv = (x * y * z) as usize;
    let mut b = Bindings::default();
    for r in prog.resources() {
        let size = r.min_size as usize + r.runtime_array_stride.unwrap_or(0) as usize * inv * 516;
        let bytes: Vec<u8> = if r.binding == 0 { (0..size).map(|k| input.get(k % input.len().max(1)).copied().unwrap_or(0)).collect() } else { vec![0; size] };
        b.buffers.push((r.set, r.binding, bytes));
    }
    let run = |order| {
        let cfg = Config { subgroup_size: size, switch_tangles: switch, sibling_order: order, ..Config::default() };
        let mut sim = Simulator::new(Arc::clone(&prog), cfg, &b).expect("bindings fit");
        sim.run(5_000_000).expect("runs");
        prog.resources().iter().map(|r| sim.buffer(r.set, r.binding).map(<[u8]>::to_vec)).collect::<Vec<_>>()
    };
    assert_eq!(run(SiblingOrder::LowestLane), run(SiblingOrder::Newest), "sibling order changed a result");
});
