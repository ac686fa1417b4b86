//! Settings as a user may give them on the command line or in the app, nonsense included
//! (subgroup size 0, huge workgroup counts, unknown layouts, spec values of the wrong type,
//! bindings that alias nothing), over any module: errors are fine; panics, hangs and runaway
//! memory are not. The first 32 bytes choose the settings, the rest is the module.
#![no_main]

use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::portability;
use lanescope_core::{
    load, Bindings, BufferAlias, Config, LoadOptions, SiblingOrder, Simulator, SpecValue,
    SwitchTangles,
};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fn word(d: &[u8], i: usize) -> u32 {
    let b = |k: usize| u32::from(d.get(i + k).copied().unwrap_or(0));
    b(0) | b(1) << 8 | b(2) << 16 | b(3) << 24
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 32 {
        return;
    }
    let (head, module) = data.split_at(32);
    // Small values most of the time, any 32-bit value sometimes.
    let pick = |w: u32, small: u32| if w & 0x8000_0000 == 0 { w % small } else { w };
    let subgroup_size = pick(word(head, 0), 260);
    let layout = match head[4] % 4 {
        0 => LayoutChoice::Nvidia,
        1 => LayoutChoice::AmdRdna3,
        _ => LayoutChoice::Portable,
    };
    let spec_id = pick(word(head, 8), 8);
    let spec = match head[5] % 3 {
        0 => SpecValue::Bits(u64::from(word(head, 12)) << 32 | u64::from(word(head, 16))),
        1 => SpecValue::Text(format!("{}", word(head, 12) as i32)),
        _ => SpecValue::Text(String::from_utf8_lossy(&head[12..20]).into_owned()),
    };
    let opts = LoadOptions {
        entry: None,
        spec: [(spec_id, spec)].into_iter().collect(),
        coopmat_layout: layout,
        subgroup_size: Some(subgroup_size),
    };
    let workgroups = [
        pick(word(head, 20), 4),
        pick(word(head, 24), 3),
        u32::from(head[6] % 2) + 1,
    ];
    let cfg = Config {
        subgroup_size,
        workgroups,
        switch_tangles: if head[7] & 1 == 0 {
            SwitchTangles::PerValue
        } else {
            SwitchTangles::PerCase
        },
        sibling_order: match head[7] >> 1 & 3 {
            0 => SiblingOrder::LowestLane,
            1 => SiblingOrder::HighestLane,
            2 => SiblingOrder::Oldest,
            _ => SiblingOrder::Newest,
        },
        max_memory: 64 << 20,
        max_invocations: pick(word(head, 28), 2048),
        max_buffer_memory: 16 << 20,
        max_trace_steps: 1000,
        record_trace: true,
        ..Config::default()
    };
    let Ok(prog) = load(module, &opts) else { return };
    let mut b = Bindings::default();
    for r in prog.resources() {
        let size = (r.min_size as usize + 64).min(1 << 16);
        if r.push_constant {
            b.push_constants = vec![1; size];
        } else if b.buffers.is_empty() || head[6] & 2 == 0 {
            b.buffers.push((r.set, r.binding, vec![2; size]));
        } else {
            // Share the first buffer, as `--buffer S:B=@S0:B0` does.
            let (of_set, of_binding, _) = b.buffers[0];
            b.aliases.push(BufferAlias { set: r.set, binding: r.binding, of_set, of_binding, ..Default::default() });
        }
    }
    if head[6] & 4 != 0 {
        let report = portability::check(module, &opts, &cfg, &b, 2_000, &[]);
        let _ = report.portable();
        return;
    }
    if let Ok(mut sim) = Simulator::new(Arc::new(prog), cfg, &b) {
        let _ = sim.run(2_000);
        for g in 0..sim.subgroup_count() {
            let _ = sim.lane_states(g);
        }
    }
});
