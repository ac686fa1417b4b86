//! The barrier-divergence detector on bug/fix pairs (`tests/data/divergence/`, each built with
//! and without FIXED): every bug is reported under every schedule and subgroup size tried, and
//! every fix is silent (no finding of any detector).

use lanescope_core::{load, Bindings, Config, LoadOptions, Schedule, Simulator};
use std::path::Path;
use std::sync::Arc;

fn codes(file: &str, schedule: Schedule, subgroup_size: u32, workgroups: u32) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/divergence")
        .join(file);
    let bytes = std::fs::read(&path).unwrap();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 1024])],
        ..Bindings::default()
    };
    let cfg = Config {
        schedule,
        subgroup_size,
        workgroups: [workgroups, 1, 1],
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, &b).unwrap();
    sim.run(1_000_000).unwrap();
    assert!(sim.is_finished(), "{file} did not finish");
    let mut v: Vec<String> = sim
        .diagnostics()
        .iter()
        .map(|d| d.code.to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

const PAIRS: [&str; 10] = [
    "if_barrier",
    "loop_trip",
    "call_barrier",
    "break_before",
    "switch_case",
    "subgroup_barrier",
    "two_sites",
    "data_dependent",
    "continue_skip",
    "one_invocation",
];

#[test]
fn every_divergent_barrier_is_reported_and_every_fix_is_silent() {
    let schedules = [
        Schedule::Default,
        Schedule::Reverse,
        Schedule::Random(1),
        Schedule::Random(2),
    ];
    for name in PAIRS {
        for s in schedules {
            for sg in [16, 32] {
                for wgs in [1, 2] {
                    let bug = codes(&format!("{name}.spv"), s, sg, wgs);
                    assert!(
                        bug.iter().any(|c| c == "barrier-divergence"),
                        "{name} under {s:?}, subgroups of {sg}, {wgs} workgroups: {bug:?}"
                    );
                    let fixed = codes(&format!("{name}_fixed.spv"), s, sg, wgs);
                    assert!(
                        fixed.is_empty(),
                        "{name}_fixed under {s:?}, subgroups of {sg}, {wgs} workgroups: {fixed:?}"
                    );
                }
            }
        }
    }
}
