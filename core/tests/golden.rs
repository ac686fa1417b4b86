//! Golden traces of the examples in `assets/`: the tangle structure (every block entry: step,
//! subgroup, lanes, block) and the final buffers, as insta snapshots (`tests/snapshots/`;
//! review a deliberate change with `cargo insta review`, or `INSTA_UPDATE=always`).
//!
//! A snapshot only says the engine did what it did before, so each is cross-checked by
//! assertions that do not come from the snapshot: every step's tangle is a non-empty set of
//! the subgroup's live lanes and tangles of one subgroup never overlap, and the final buffers do
//! not depend on the sibling order (results the spec defines cannot).

mod common;

use common::to_words;
use lanescope_core::{load, Bindings, Config, LoadOptions, Schedule, SiblingOrder, Simulator};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// The buffers the app gives an example.
fn example_bindings(prog: &lanescope_core::program::Program) -> Bindings {
    Bindings::for_example(prog, u64::MAX).unwrap()
}

fn run(spv: &Path, order: SiblingOrder) -> Simulator {
    run_with(spv, order, Schedule::Default)
}

fn run_with(spv: &Path, order: SiblingOrder, schedule: Schedule) -> Simulator {
    let prog = Arc::new(
        load(&std::fs::read(spv).unwrap(), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", spv.display())),
    );
    let b = example_bindings(&prog);
    let cfg = Config {
        record_trace: true,
        workgroups: [2, 1, 1],
        sibling_order: order,
        schedule,
        // Two workgroups of an example write the same words (they are written for one); the
        // detectors' findings on the examples are checked on their own dispatch below.
        detectors: false,
        ..Config::default()
    };
    let mut sim = Simulator::new(Arc::clone(&prog), cfg, &b).unwrap();
    // Step by step, checking the tangles of every subgroup as they are.
    let mut steps = 0;
    while sim.step().unwrap() {
        steps += 1;
        assert!(steps < 10_000_000, "{} did not finish", spv.display());
        if steps % 7 == 0 {
            check_tangles(&sim, spv);
        }
    }
    assert!(sim.is_finished(), "{} did not finish", spv.display());
    sim
}

/// Tangles of one subgroup are disjoint, non-empty, and made of lanes that exist.
fn check_tangles(sim: &Simulator, spv: &Path) {
    let size = sim.config().subgroup_size;
    let mut seen: std::collections::BTreeMap<u32, Vec<u32>> = std::collections::BTreeMap::new();
    for t in sim.tangles() {
        assert!(!t.lanes.is_empty(), "{}: empty tangle", spv.display());
        let lanes = seen.entry(t.subgroup).or_default();
        for l in &t.lanes.to_vec() {
            assert!(
                *l < size,
                "{}: lane {l} outside the subgroup",
                spv.display()
            );
            assert!(
                !lanes.contains(l),
                "{}: lane {l} of subgroup {} in two tangles",
                spv.display(),
                t.subgroup
            );
            lanes.push(*l);
        }
    }
}

fn golden_text(spv: &Path) -> String {
    let sim = run(spv, SiblingOrder::LowestLane);
    let prog = Arc::clone(sim.program());
    // The sibling order and the schedule are scheduling choices: what ends in the buffers
    // cannot depend on them.
    let others = [
        (SiblingOrder::HighestLane, Schedule::Default),
        (SiblingOrder::Oldest, Schedule::Default),
        (SiblingOrder::Newest, Schedule::Default),
        (SiblingOrder::LowestLane, Schedule::Reverse),
        (SiblingOrder::LowestLane, Schedule::Random(1)),
        (SiblingOrder::LowestLane, Schedule::Random(2)),
    ];
    // The bug_ examples are wrong on purpose: their results depend on the schedule.
    let racy = spv
        .file_stem()
        .is_some_and(|s| s.to_string_lossy().starts_with("bug_"));
    for (order, schedule) in others.into_iter().filter(|_| !racy) {
        let other = run_with(spv, order, schedule);
        for r in prog.resources().iter().filter(|r| !r.push_constant) {
            assert_eq!(
                sim.buffer(r.set, r.binding),
                other.buffer(r.set, r.binding),
                "{}: buffer {}:{} differs under {order:?}, {schedule}",
                spv.display(),
                r.set,
                r.binding
            );
        }
    }
    let st = sim.stats();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "steps {} lane-instructions {} divergences {} reconvergences {}",
        st.steps, st.lane_instructions, st.divergences, st.reconvergences
    );
    for d in sim.diagnostics() {
        let _ = writeln!(
            s,
            "diagnostic {} {} {} lanes {:?}",
            d.code, d.block, d.instruction, d.lanes
        );
    }
    for r in prog.resources() {
        let words = to_words(sim.buffer(r.set, r.binding).unwrap());
        // FNV-1a over the words: compact, and any change shows.
        let h = words.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, w| {
            (h ^ u64::from(*w)).wrapping_mul(0x100_0000_01b3)
        });
        let _ = writeln!(
            s,
            "buffer {}:{} words {} fnv {h:016x}",
            r.set,
            r.binding,
            words.len()
        );
    }
    for e in sim.trace().iter().filter(|e| e.pos == 0) {
        let _ = writeln!(
            s,
            "{} wg{} sg{} {:#x} {}",
            e.step,
            e.workgroup,
            e.subgroup,
            e.lanes,
            prog.block_name(e.block)
        );
    }
    s
}

#[test]
fn examples_match_their_golden_traces() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let assets = root.join("../assets");
    let mut spvs: Vec<_> = std::fs::read_dir(&assets)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "spv"))
        .collect();
    spvs.sort();
    assert!(spvs.len() >= 8, "expected the example shaders in assets/");
    for spv in &spvs {
        let name = spv.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(name, golden_text(spv));
    }
}

/// The bug detectors on every example as the app runs it (one workgroup): the only findings
/// are the ones listed here, each checked by hand to be real.
#[test]
fn examples_have_only_their_known_detector_findings() {
    // coopmat_convert: both subgroups store the same converted matrices to the same words.
    // rotate_divergent: its point is a rotate reading lanes outside the tangle.
    // bug_*: the classic bugs the lessons teach, each must be found (and only it).
    let known: &[(&str, &str)] = &[
        ("coopmat_convert", "data-race"),
        ("rotate_divergent", "rotate-inactive-source"),
        ("bug_reduction_no_barrier", "data-race"),
        // Invocation 0 reads partial[32..63] before subgroup 1 wrote them, and stores the sum.
        ("bug_reduction_no_barrier", "uninitialized-read"),
        ("bug_early_return_barrier", "barrier-divergence"),
        ("bug_histogram", "data-race"),
        ("bug_tile_other_subgroup", "data-race"),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut spvs: Vec<_> = std::fs::read_dir(root.join("../assets"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "spv"))
        .collect();
    spvs.sort();
    for spv in &spvs {
        let name = spv.file_stem().unwrap().to_string_lossy().to_string();
        let prog = Arc::new(load(&std::fs::read(spv).unwrap(), &LoadOptions::default()).unwrap());
        let b = example_bindings(&prog);
        let mut sim = Simulator::new(Arc::clone(&prog), Config::default(), &b).unwrap();
        sim.run(10_000_000).unwrap();
        if name.starts_with("bug_") {
            assert!(
                !sim.diagnostics().is_empty(),
                "{name}: its bug was not found"
            );
        }
        for d in sim.diagnostics() {
            assert!(
                known.contains(&(name.as_str(), d.code.as_str())),
                "{name}: {}: {}",
                d.code,
                d.message
            );
        }
    }
}
