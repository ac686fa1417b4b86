//! Data races whose read value is dead: still reported, marked unobserved, where the value
//! read decides nothing that shows; observed where it reaches a buffer. (The modules are built
//! as the uninitialized-read pairs' are: `uninit_pairs.rs`.)

mod common;

use common::pairs::{module, races, run_text, uninit_reads};
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::sync::Arc;

/// A racing read: the second subgroup reads what invocation 0 wrote with no barrier between.
/// When the value read is dead (only combined with a defined false) the race is still
/// reported, marked unobserved; when it reaches a buffer it is observed.
fn race_module(use_it: bool) -> String {
    let g = "%s = OpVariable %pwu Workgroup
%c32 = OpConstant %u32 32";
    let body = format!(
        "%id = OpLoad %u32 %lid
%first = OpIEqual %bool %id %c0
OpSelectionMerge %m0 None
OpBranchConditional %first %t %m0
%t = OpLabel
OpStore %s %c5
OpBranch %m0
%m0 = OpLabel
%late = OpUGreaterThanEqual %bool %id %c32
OpSelectionMerge %m None
OpBranchConditional %late %e %m
%e = OpLabel
%v = OpLoad %u32 %s
%big = OpUGreaterThan %bool %v %c2
%mine = OpIEqual %bool %id %c0
%go = OpLogicalAnd %bool %big %mine
OpSelectionMerge %m2 None
OpBranchConditional %go %t2 %m2
%t2 = OpLabel
OpBranch %m2
%m2 = OpLabel
{}
OpBranch %m
%m = OpLabel",
        if use_it {
            "%o = OpAccessChain %pout %out %c0 %id\nOpStore %o %v"
        } else {
            ""
        }
    );
    module(64, "", "OpName %s \"s\"", g, &body)
}

#[test]
fn a_race_whose_read_is_dead_is_unobserved() {
    for (use_it, observed) in [(false, false), (true, true)] {
        let sim = run_text(&race_module(use_it));
        let races = races(&sim);
        assert!(!races.is_empty(), "{:?}", sim.diagnostics());
        for r in &races {
            assert_eq!(r.observed, observed, "{r:?}");
            assert_eq!(r.unobserved_note().is_some(), !observed);
        }
        assert!(uninit_reads(&sim).is_empty(), "{:?}", sim.diagnostics());
        let json = serde_json::to_string(races[0]).unwrap();
        assert_eq!(json.contains("\"observed\":false"), !observed, "{json}");
    }
}

/// Invocations 0..3 (subgroup 0) read word 7 of the buffer, then invocation 32 (subgroup 1)
/// writes it with no barrier between: under the default schedule the read comes first.
/// `use_it`: the readers store what they read to their own word.
fn war_module(use_it: bool) -> String {
    let body = format!(
        "%id = OpLoad %u32 %lid
%p7 = OpAccessChain %pout %out %c0 %c7
%early = OpULessThan %bool %id %c4
OpSelectionMerge %m0 None
OpBranchConditional %early %t %m0
%t = OpLabel
%v = OpLoad %u32 %p7
%big = OpUGreaterThan %bool %v %c2
{}
OpBranch %m0
%m0 = OpLabel
%w = OpIEqual %bool %id %c32
OpSelectionMerge %m None
OpBranchConditional %w %e %m
%e = OpLabel
OpStore %p7 %c5
OpBranch %m
%m = OpLabel",
        if use_it {
            "%o = OpAccessChain %pout %out %c0 %id\nOpStore %o %v"
        } else {
            ""
        }
    );
    module(64, "", "", "%c32 = OpConstant %u32 32", &body)
}

#[test]
fn a_race_whose_read_came_first_and_is_dead_is_unobserved() {
    for (use_it, observed) in [(false, false), (true, true)] {
        let sim = run_text(&war_module(use_it));
        let races: Vec<_> = races(&sim)
            .into_iter()
            .filter(|d| d.accesses[0].kind == "read")
            .collect();
        assert!(!races.is_empty(), "{:?}", sim.diagnostics());
        for r in &races {
            assert_eq!(r.accesses[1].kind, "write", "{r:?}");
            assert!(r.accesses[0].step < r.accesses[1].step, "{r:?}");
            assert_eq!(r.observed, observed, "{r:?}");
            assert_eq!(r.unobserved_note().is_some(), !observed);
        }
        assert!(uninit_reads(&sim).is_empty(), "{:?}", sim.diagnostics());
        let json = serde_json::to_string(races[0]).unwrap();
        assert_eq!(json.contains("\"observed\":false"), !observed, "{json}");
    }
}

/// Subgroup 1 reads `s` racing with invocation 0's write, and the value decides which path of
/// an if/else runs; the if's phi is then combined with a defined false (the shape glslang gives
/// `(a || b > c) && ixj > col`). `on_true`/`on_false` go in the two paths, `after` after the
/// combination; `%fv` is a Function variable set to 0 before the if.
fn steer_module(on_true: &str, on_false: &str, after: &str) -> String {
    let g = "%s = OpVariable %pwu Workgroup
%c32 = OpConstant %u32 32";
    let body = format!(
        "%fv = OpVariable %pfu Function
%id = OpLoad %u32 %lid
%first = OpIEqual %bool %id %c0
OpSelectionMerge %m0 None
OpBranchConditional %first %t %m0
%t = OpLabel
OpStore %s %c5
OpBranch %m0
%m0 = OpLabel
OpStore %fv %c0
%late = OpUGreaterThanEqual %bool %id %c32
OpSelectionMerge %m None
OpBranchConditional %late %e %m
%e = OpLabel
%v = OpLoad %u32 %s
%big = OpUGreaterThan %bool %v %c2
OpSelectionMerge %j None
OpBranchConditional %big %bt %bf
%bt = OpLabel
{on_true}
OpBranch %j
%bf = OpLabel
{on_false}
OpBranch %j
%j = OpLabel
%ph = OpPhi %bool %true %bt %false %bf
%mine = OpIEqual %bool %id %c0
%go = OpLogicalAnd %bool %ph %mine
OpSelectionMerge %m2 None
OpBranchConditional %go %t2 %m2
%t2 = OpLabel
OpBranch %m2
%m2 = OpLabel
{after}
OpBranch %m
%m = OpLabel"
    );
    module(
        64,
        "OpCapability GroupNonUniform",
        "OpName %s \"s\"",
        g,
        &body,
    )
}

/// A racing read that only steers an if/else whose paths write nothing but registers and the
/// function's own variables is unobserved, unless what the if decided (its phi, or a variable
/// it stored to) reaches a buffer, or a path does something observable (a buffer store, a
/// subgroup operation), taken or not.
#[test]
fn a_race_that_only_steers_a_pure_if_is_unobserved() {
    let store_x = "%o = OpAccessChain %pout %out %c0 %id\nOpStore %o %x";
    let cases = [
        ("dead phi", "", "", String::new(), false),
        ("dead variable", "OpStore %fv %c1", "", String::new(), false),
        (
            "variable stored",
            "OpStore %fv %c1",
            "",
            format!("%x = OpLoad %u32 %fv\n{store_x}"),
            true,
        ),
        (
            "variable stored on the other path",
            "",
            "OpStore %fv %c1",
            format!("%x = OpLoad %u32 %fv\n{store_x}"),
            true,
        ),
        (
            "phi stored",
            "",
            "",
            format!("%x = OpSelect %u32 %ph %c1 %c0\n{store_x}"),
            true,
        ),
        (
            "buffer store on the path not taken",
            "",
            "%ob = OpAccessChain %pout %out %c0 %c1\nOpStore %ob %c1",
            String::new(),
            true,
        ),
        (
            "subgroup operation on a path",
            "%el = OpGroupNonUniformElect %bool %c3",
            "",
            String::new(),
            true,
        ),
    ];
    for (what, on_true, on_false, after, observed) in cases {
        let sim = run_text(&steer_module(on_true, on_false, &after));
        let races = races(&sim);
        assert!(!races.is_empty(), "{what}: {:?}", sim.diagnostics());
        for r in &races {
            assert_eq!(r.observed, observed, "{what}: {r:?}");
        }
        assert!(
            uninit_reads(&sim).is_empty(),
            "{what}: {:?}",
            sim.diagnostics()
        );
    }
}

/// A compare-exchange step of a bitonic sort compiled by glslang (bitonic_step.comp): both
/// partners read both elements, only the lower one writes, and with no barrier between the
/// reads and the writes the higher partner's reads race with them. Its reads only steer the
/// short-circuit condition that `ixj > col` then makes false: unobserved. With USE (the
/// higher partner also counts the swaps it saw) the same race is observed.
#[test]
fn a_bitonic_step_race_whose_reads_decide_nothing_is_unobserved() {
    for (file, observed) in [("bitonic_step.spv", false), ("bitonic_step_use.spv", true)] {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).unwrap();
        let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
        let b = Bindings {
            buffers: vec![
                (
                    0,
                    0,
                    (0..64u32).rev().flat_map(|v| v.to_le_bytes()).collect(),
                ),
                (0, 1, vec![0; 256]),
            ],
            ..Bindings::default()
        };
        for schedule in [
            lanescope_core::Schedule::Default,
            lanescope_core::Schedule::Reverse,
        ] {
            let cfg = Config {
                schedule,
                ..Config::default()
            };
            let mut sim = Simulator::new(Arc::clone(&prog), cfg, &b).unwrap();
            assert_eq!(
                sim.run(10_000_000).unwrap(),
                lanescope_core::Outcome::Finished
            );
            let races = races(&sim);
            assert!(!races.is_empty(), "{file} {schedule:?}");
            for r in &races {
                assert_eq!(r.observed, observed, "{file} {schedule:?}: {r:?}");
            }
        }
    }
}
