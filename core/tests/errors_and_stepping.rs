//! Bad input ends in a clear error naming what and where; stepping is deterministic and
//! reversible.

mod common;

use common::{reference_dir, to_bytes, to_words, REGION};
use lanescope_core::history::History;
use lanescope_core::{load, Bindings, Config, LoadError, LoadOptions, Outcome, Simulator};
use std::sync::Arc;

fn spv(name: &str) -> Vec<u8> {
    std::fs::read(reference_dir("reconv").join(name)).unwrap()
}

fn bindings(n: usize) -> Bindings {
    let inp: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    Bindings {
        buffers: vec![(0, 0, to_bytes(&inp)), (0, 1, vec![0; n * REGION * 4])],
        push_constants: Vec::new(),
        ..Bindings::default()
    }
}

#[test]
fn truncated_and_garbage_modules_are_malformed_errors() {
    let good = spv("c01_if_else.spv");
    for cut in [3, 19, good.len() - 2, good.len() - 4, good.len() / 2] {
        let e = load(&good[..cut], &LoadOptions::default()).unwrap_err();
        assert!(
            matches!(e, LoadError::Malformed { .. }),
            "cut at {cut}: {e}"
        );
    }
    let mut bad = good.clone();
    bad[0] = 0;
    let e = load(&bad, &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("magic"), "{e}");
    // An instruction claiming more words than the file has: named by index and byte offset.
    let mut huge = good.clone();
    huge[22] = 0xff;
    huge[23] = 0xff;
    let e = load(&huge, &LoadOptions::default()).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("instruction #0") && msg.contains("byte offset 20"),
        "{msg}"
    );
}

#[test]
fn big_endian_modules_load() {
    let good = spv("c01_if_else.spv");
    let be: Vec<u8> = good
        .chunks_exact(4)
        .flat_map(|w| [w[3], w[2], w[1], w[0]])
        .collect();
    assert!(load(&be, &LoadOptions::default()).is_ok());
}

#[test]
fn entry_point_errors() {
    let good = spv("c01_if_else.spv");
    let e = load(
        &good,
        &LoadOptions {
            entry: Some("nope".into()),
            ..LoadOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(e, LoadError::EntryPoint { .. }) && e.to_string().contains("main"),
        "{e}"
    );
}

#[test]
fn unsupported_instructions_are_named() {
    // A cooperative matrix of a shape the default (nvidia) layout was not measured for.
    let bytes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/coopmat_big.spv"),
    )
    .unwrap();
    match load(&bytes, &LoadOptions::default()) {
        Err(LoadError::Unsupported { what, at }) => {
            assert!(what.contains("32x32"), "{what}");
            assert!(at.instruction.is_some());
            assert_eq!(at.opcode.as_deref(), Some("OpTypeCooperativeMatrixKHR"));
        }
        other => panic!("expected an unsupported-instruction error, got {other:?}"),
    }
}

#[test]
fn missing_or_short_buffers_are_run_errors() {
    let prog = Arc::new(load(&spv("c01_if_else.spv"), &LoadOptions::default()).unwrap());
    let e = Simulator::new(Arc::clone(&prog), Config::default(), &Bindings::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("set 0 binding"), "{e}");
    let e = Simulator::new(
        prog,
        Config {
            subgroup_size: 12,
            ..Config::default()
        },
        &bindings(64),
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("power of two"), "{e}");
    let prog = Arc::new(load(&spv("c01_if_else.spv"), &LoadOptions::default()).unwrap());
    let small = Config {
        max_memory: 1024,
        ..Config::default()
    };
    let e = Simulator::new(prog, small, &bindings(64)).err().unwrap();
    assert!(e.limit() == Some(lanescope_core::Limit::Memory), "{e}");
}

#[test]
fn out_of_bounds_store_is_a_diagnostic_not_a_crash() {
    let prog = Arc::new(load(&spv("c01_if_else.spv"), &LoadOptions::default()).unwrap());
    let mut b = bindings(64);
    b.buffers[1].2.truncate(4 * REGION * 10);
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(1_000_000).unwrap(), Outcome::Finished);
    let d = sim
        .diagnostics()
        .iter()
        .find(|d| d.code == "out-of-bounds")
        .expect("diagnostic");
    assert!(!d.lanes.is_empty() && d.function == "main", "{d:?}");
}

#[test]
fn budget_stops_a_run_and_it_resumes() {
    let prog =
        Arc::new(load(&spv("c05_loop_divergent_trip.spv"), &LoadOptions::default()).unwrap());
    let mut a = Simulator::new(Arc::clone(&prog), Config::default(), &bindings(64)).unwrap();
    assert_eq!(a.run(10).unwrap(), Outcome::Budget);
    assert_eq!(a.stats().steps, 10);
    assert_eq!(a.run(10_000_000).unwrap(), Outcome::Finished);
    let mut b = Simulator::new(prog, Config::default(), &bindings(64)).unwrap();
    b.run(10_000_000).unwrap();
    assert_eq!(a.buffer(0, 1), b.buffer(0, 1));
}

#[test]
fn traces_are_deterministic() {
    let prog = Arc::new(load(&spv("c19_break_and_continue.spv"), &LoadOptions::default()).unwrap());
    let cfg = Config {
        record_trace: true,
        ..Config::default()
    };
    let run = || {
        let mut s = Simulator::new(Arc::clone(&prog), cfg.clone(), &bindings(64)).unwrap();
        s.run(10_000_000).unwrap();
        (s.trace().to_vec(), s.stats().lane_instructions)
    };
    let (t1, n1) = run();
    let (t2, n2) = run();
    assert_eq!(t1, t2);
    assert_eq!(n1, n2);
    assert!(t1.len() > 100);
}

#[test]
fn step_back_restores_the_exact_state() {
    let prog = Arc::new(load(&spv("c14_nested_loops.spv"), &LoadOptions::default()).unwrap());
    let sim = Simulator::new(prog, Config::default(), &bindings(64)).unwrap();
    let mut h = History::new(sim, 16);
    for _ in 0..300 {
        h.step().unwrap();
    }
    let at_300 = (
        h.sim().tangles(),
        to_words(h.sim().buffer(0, 1).unwrap()),
        h.sim().lane_states(0),
    );
    for _ in 0..57 {
        h.step().unwrap();
    }
    for _ in 0..57 {
        h.step_back().unwrap();
    }
    assert_eq!(h.sim().stats().steps, 300);
    assert_eq!(
        (
            h.sim().tangles(),
            to_words(h.sim().buffer(0, 1).unwrap()),
            h.sim().lane_states(0)
        ),
        at_300
    );
    h.goto(0).unwrap();
    assert_eq!(h.sim().stats().steps, 0);
    assert_eq!(
        h.sim().tangles().len(),
        2,
        "one converged tangle per subgroup at the start"
    );
}

#[test]
fn stepping_back_keeps_the_trace_of_the_steps_before() {
    let prog = Arc::new(load(&spv("c14_nested_loops.spv"), &LoadOptions::default()).unwrap());
    let cfg = Config {
        record_trace: true,
        ..Config::default()
    };
    let mut straight = Simulator::new(Arc::clone(&prog), cfg.clone(), &bindings(64)).unwrap();
    for _ in 0..150 {
        straight.step().unwrap();
    }
    let mut h = History::new(Simulator::new(prog, cfg, &bindings(64)).unwrap(), 16);
    for _ in 0..400 {
        h.step().unwrap();
    }
    h.goto(150).unwrap();
    assert_eq!(h.sim().trace(), straight.trace(), "back from 400 to 150");
    h.goto(0).unwrap();
    assert!(h.sim().trace().is_empty());
    h.goto(150).unwrap();
    assert_eq!(h.sim().trace(), straight.trace(), "replayed forward to 150");
}

#[test]
fn lanes_waiting_at_a_merge_say_for_whom() {
    let prog = Arc::new(load(&spv("c01_if_else.spv"), &LoadOptions::default()).unwrap());
    let mut sim = Simulator::new(prog, Config::default(), &bindings(64)).unwrap();
    // Run until some lane of subgroup 0 waits at a selection merge.
    let mut seen = false;
    for _ in 0..10_000 {
        if !sim.step().unwrap() {
            break;
        }
        let states = sim.lane_states(0);
        if let Some(lanescope_core::trace::LaneState::Waiting {
            kind, for_lanes, ..
        }) = states
            .iter()
            .find(|s| matches!(s, lanescope_core::trace::LaneState::Waiting { .. }))
        {
            assert_eq!(*kind, lanescope_core::trace::WaitKind::SelectionMerge);
            assert!(!for_lanes.is_empty());
            seen = true;
            break;
        }
    }
    assert!(seen, "some lanes must wait at the if's merge");
}

/// Every input a fuzzer found crashing once (tests/data/fuzz): loading and running it ends in an
/// error or a result, never a panic.
#[test]
fn fuzzer_findings_stay_fixed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        n += 1;
        let Ok(prog) = load(&bytes, &LoadOptions::default()) else {
            continue;
        };
        let mut b = Bindings::default();
        for r in prog.resources() {
            let size = r.min_size as usize + r.runtime_array_stride.unwrap_or(0) as usize * 8;
            if r.push_constant {
                b.push_constants = vec![0; size];
            } else {
                b.buffers.push((r.set, r.binding, vec![0; size]));
            }
        }
        let cfg = Config {
            subgroup_size: 8,
            max_memory: 64 << 20,
            ..Config::default()
        };
        if let Ok(mut sim) = Simulator::new(Arc::new(prog), cfg, &b) {
            let _ = sim.run(2_000);
        }
    }
    assert!(n >= 1);
}

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// Explicit layouts whose strides or offsets make a type pass 4 GiB are refused at the type,
/// not wrapped into a small size that later accesses would trust.
#[test]
fn layouts_past_the_type_size_limit_are_refused() {
    for (file, opcode, bytes) in [
        ("layout_stride_overflow.spv", "OpTypeArray", "8589934592"),
        ("layout_offset_overflow.spv", "OpTypeStruct", "4294967344"),
    ] {
        match load(&data(file), &LoadOptions::default()) {
            Err(LoadError::Unsupported { what, at }) => {
                assert!(what.contains(bytes), "{file}: {what}");
                assert_eq!(at.opcode.as_deref(), Some(opcode), "{file}");
                assert!(at.byte_offset.is_some(), "{file}");
            }
            other => panic!("{file}: expected an unsupported-type error, got {other:?}"),
        }
    }
}

#[test]
fn modules_past_the_size_limit_are_refused_before_parsing() {
    let mut bytes = data("layout_stride_overflow.spv");
    bytes.resize(lanescope_core::load::MAX_MODULE_BYTES + 4, 0);
    match load(&bytes, &LoadOptions::default()) {
        Err(LoadError::Unsupported { what, .. }) => assert!(what.contains("MiB"), "{what}"),
        other => panic!("expected a size error, got {other:?}"),
    }
}

#[test]
fn invocation_and_buffer_limits_stop_a_run_before_it_starts_and_say_how_to_raise_them() {
    let prog = Arc::new(load(&spv("c01_if_else.spv"), &LoadOptions::default()).unwrap());
    let b = bindings(64);
    let few = Config {
        max_invocations: 32,
        ..Config::default()
    };
    let e = Simulator::new(Arc::clone(&prog), few, &b).err().unwrap();
    assert!(e.to_string().contains("64 invocations"), "{e}");
    assert!(e.limit() == Some(lanescope_core::Limit::Invocations), "{e}");
    let bound: usize = b.buffers.iter().map(|(_, _, d)| d.len()).sum();
    let small = Config {
        max_buffer_memory: bound as u64 - 1,
        ..Config::default()
    };
    let e = Simulator::new(Arc::clone(&prog), small, &b).err().unwrap();
    assert!(
        e.limit() == Some(lanescope_core::Limit::BufferMemory),
        "{e}"
    );
    let exact = Config {
        max_buffer_memory: bound as u64,
        max_invocations: 64,
        ..Config::default()
    };
    assert!(Simulator::new(prog, exact, &b).is_ok());
}

/// The checkpoints of step back stay within their memory budget: a large state keeps fewer
/// of them, and stepping back still lands on the exact state.
#[test]
fn checkpoints_stay_within_their_memory_budget() {
    let prog = Arc::new(load(&spv("c14_nested_loops.spv"), &LoadOptions::default()).unwrap());
    let sim = Simulator::new(prog, Config::default(), &bindings(64)).unwrap();
    let each = sim.footprint_bytes();
    assert!(each > 0);
    let mut plenty = History::new(sim.clone(), 4);
    let mut h = History::new(sim, 4);
    h.set_checkpoint_budget(each * 3);
    for _ in 0..400 {
        h.step().unwrap();
        plenty.step().unwrap();
        assert!(h.checkpoint_count() <= 3);
    }
    assert!(plenty.checkpoint_count() > 3);
    h.goto(123).unwrap();
    plenty.goto(123).unwrap();
    assert_eq!(h.sim().tangles(), plenty.sim().tangles());
    assert_eq!(h.sim().buffer(0, 1), plenty.sim().buffer(0, 1));
}

/// One module per kind of hostile input (tests/data/hostile, each .spvasm says what it is):
/// each is refused with an error naming what is wrong and where, or (the valid one) runs.
#[test]
fn hostile_modules_are_errors_naming_what_and_where() {
    let cases: [(&str, &str, &str); 8] = [
        (
            "unstructured_if",
            "unstructured control flow",
            "instruction #",
        ),
        (
            "back_edge_without_loop",
            "not a loop header",
            "instruction #",
        ),
        ("irreducible", "irreducible control flow", "instruction #"),
        (
            "phi_missing_parent",
            "no value for predecessor",
            "instruction #",
        ),
        ("id_of_wrong_kind", "not a value", "OpIAdd"),
        (
            "decoration_after_functions",
            "after the function definitions",
            "byte offset",
        ),
        (
            "huge_local_size",
            "274877906944 invocations",
            "at most 1048576",
        ),
        ("cond_break_without_merge", "", ""),
    ];
    for (name, what, place) in cases {
        let bytes = data(&format!("hostile/{name}.spv"));
        let result = load(&bytes, &LoadOptions::default()).map_err(|e| e.to_string());
        let result = result.and_then(|prog| {
            let b = Bindings::default();
            let mut sim =
                Simulator::new(Arc::new(prog), Config::default(), &b).map_err(|e| e.to_string())?;
            sim.run(10_000).map_err(|e| e.to_string())
        });
        match result {
            Err(msg) => {
                assert!(!what.is_empty(), "{name} must load and run: {msg}");
                assert!(msg.contains(what) && msg.contains(place), "{name}: {msg}");
            }
            Ok(outcome) => {
                assert!(what.is_empty(), "{name} must be refused");
                assert_eq!(outcome, Outcome::Finished, "{name}");
            }
        }
    }
}

/// A far jump back can be taken in slices: each call replays at most its budget, and the
/// slices end exactly where one long jump does.
#[test]
fn a_jump_replays_in_slices_of_a_step_budget() {
    let prog = Arc::new(load(&spv("c14_nested_loops.spv"), &LoadOptions::default()).unwrap());
    let mut whole = History::new(
        Simulator::new(Arc::clone(&prog), Config::default(), &bindings(64)).unwrap(),
        64,
    );
    let mut sliced = History::new(
        Simulator::new(prog, Config::default(), &bindings(64)).unwrap(),
        64,
    );
    for _ in 0..500 {
        whole.step().unwrap();
        sliced.step().unwrap();
    }
    whole.goto(250).unwrap();
    let mut calls = 0;
    while !sliced.goto_within(250, 10).unwrap() {
        calls += 1;
        assert!(sliced.sim().stats().steps <= 250);
    }
    assert!(
        calls >= 1,
        "250 lies between checkpoints: the replay takes more than one slice"
    );
    assert_eq!(sliced.sim().stats().steps, 250);
    assert_eq!(sliced.sim().tangles(), whole.sim().tangles());
    assert_eq!(sliced.sim().buffer(0, 1), whole.sim().buffer(0, 1));
    // Past the end of the run: there when the run finishes.
    let mut n = 0;
    while !sliced.goto_within(u64::MAX, 1000).unwrap() {
        n += 1;
        assert!(n < 10_000);
    }
    assert!(sliced.sim().is_finished());
}
