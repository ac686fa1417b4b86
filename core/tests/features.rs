//! Loader and executor features on small shaders in `tests/data` (sources beside them).

mod common;

use common::{to_bytes, to_words};
use lanescope_core::{load, Bindings, Config, LoadError, LoadOptions, Outcome, Simulator};
use std::path::Path;
use std::sync::Arc;

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

fn push(offset: u32, bias: f32) -> Vec<u8> {
    [offset.to_le_bytes(), bias.to_bits().to_le_bytes()].concat()
}

fn run_spec(spec: &[(u32, u64)], push_constants: Vec<u8>) -> Vec<u32> {
    let opts = LoadOptions {
        spec: spec.iter().map(|(k, v)| (*k, (*v).into())).collect(),
        ..LoadOptions::default()
    };
    let prog = Arc::new(load(&data("spec_push.spv"), &opts).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 256])],
        push_constants,
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(100_000).unwrap(), Outcome::Finished);
    to_words(sim.buffer(0, 0).unwrap())
}

#[test]
fn specialization_constants_defaults_and_overrides() {
    let prog = load(&data("spec_push.spv"), &LoadOptions::default()).unwrap();
    let ids: Vec<u32> = prog.spec_constants().iter().map(|s| s.spec_id).collect();
    assert!(
        ids.contains(&0) && ids.contains(&1) && ids.contains(&2) && ids.contains(&7),
        "{ids:?}"
    );
    // Defaults: local size from LocalSizeId's spec constant default (1).
    assert_eq!(prog.local_size(), [1, 1, 1]);
    let w = run_spec(&[(7, 8)], push(10, 0.25));
    assert_eq!(&w[..8], &[10, 13, 16, 19, 22, 25, 28, 31]);
    assert_eq!(
        w[63], 8,
        "gl_WorkGroupSize follows the specialised local size"
    );
    assert_eq!(f32::from_bits(w[62]), 0.75);
    let w = run_spec(
        &[(7, 4), (0, 5), (1, 1), (2, 2.0f32.to_bits().into())],
        push(1, 1.0),
    );
    assert_eq!(&w[..4], &[1001, 1006, 1011, 1016]);
    assert_eq!(f32::from_bits(w[62]), 3.0);
}

#[test]
fn push_constants_must_be_large_enough() {
    let prog = Arc::new(load(&data("spec_push.spv"), &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 256])],
        push_constants: vec![0; 4],
        ..Bindings::default()
    };
    let e = Simulator::new(prog, Config::default(), &b).err().unwrap();
    assert!(e.to_string().contains("push constants"), "{e}");
}

#[test]
fn workgroup_memory_is_shared_across_subgroups_with_barriers() {
    for size in [4, 32, 64, 128] {
        let prog = Arc::new(load(&data("shared_barrier.spv"), &LoadOptions::default()).unwrap());
        let b = Bindings {
            buffers: vec![(0, 0, vec![0; 96 * 4])],
            push_constants: Vec::new(),
            ..Bindings::default()
        };
        let mut sim = Simulator::new(
            prog,
            Config {
                subgroup_size: size,
                workgroups: [3, 1, 1],
                ..Config::default()
            },
            &b,
        )
        .unwrap();
        assert_eq!(sim.run(1_000_000).unwrap(), Outcome::Finished);
        let w = to_words(sim.buffer(0, 0).unwrap());
        for l in 0..96u32 {
            assert_eq!(
                w[l as usize],
                (95 - l) * (95 - l) + 7 + (l / size) * 100_000,
                "invocation {l}, subgroup size {size}"
            );
        }
        // The three workgroups write the same output words: a real race between workgroups,
        // and the only finding (the barrier orders the tile within each workgroup).
        for d in sim.diagnostics() {
            assert_eq!(d.code, "data-race", "{d:?}");
            assert_ne!(d.accesses[0].workgroup, d.accesses[1].workgroup, "{d:?}");
        }
        assert!(!sim.diagnostics().is_empty());
        assert_eq!(sim.stats().workgroups_done, 3);
    }
}

#[test]
fn declarations_aliasing_one_binding_share_the_buffer() {
    let prog = Arc::new(load(&data("alias_binding.spv"), &LoadOptions::default()).unwrap());
    assert_eq!(prog.resources().len(), 1, "{:?}", prog.resources());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 8 * 4])],
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(100_000).unwrap(), Outcome::Finished);
    let w = to_words(sim.buffer(0, 0).unwrap());
    for i in 0..4 {
        let expected = (i as f32 + 0.5).to_bits();
        assert_eq!(w[i], expected, "float view, word {i}");
        assert_eq!(
            w[i + 4],
            expected,
            "uint view read what the float view wrote, word {i}"
        );
    }
}

#[test]
fn an_infinite_loop_stops_at_the_budget() {
    let prog = Arc::new(load(&data("infinite_loop.spv"), &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, to_bytes(&[0; 32]))],
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(100_000).unwrap(), Outcome::Budget);
    // The even lanes finished their four iterations and left the loop.
    assert_eq!(to_words(sim.buffer(0, 0).unwrap())[0], 4);
}

#[test]
fn recursion_is_rejected_by_name() {
    match load(&data("recursion.spv"), &LoadOptions::default()) {
        Err(LoadError::Invalid { what, .. }) => {
            assert!(what.contains("recursion") && what.contains('f'), "{what}")
        }
        other => panic!("expected a recursion error, got {other:?}"),
    }
}

#[test]
fn unreachable_is_a_diagnostic_and_stops_those_lanes() {
    let prog = Arc::new(load(&data("unreachable.spv"), &LoadOptions::default()).unwrap());
    let mut sim = Simulator::new(prog, Config::default(), &Bindings::default()).unwrap();
    assert_eq!(sim.run(1000).unwrap(), Outcome::Finished);
    let d = &sim.diagnostics()[0];
    assert_eq!(d.code, "unreachable");
    assert_eq!(d.lanes, vec![1, 3, 5, 7]);
}

#[test]
fn rotate_diagnostics_name_the_rule_and_the_instruction() {
    let prog = Arc::new(load(&data("rotate_diagnostics.spv"), &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 96 * 4])],
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(1000).unwrap(), Outcome::Finished);
    let w = to_words(sim.buffer(0, 0).unwrap());
    assert_eq!(
        &w[..8],
        &[65, 66, 67, 64, 69, 70, 71, 68],
        "clean clustered rotate"
    );
    let codes: Vec<&str> = sim.diagnostics().iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes,
        vec!["nonuniform-delta", "invalid-cluster-size"],
        "the clean rotate raises nothing"
    );
    for d in sim.diagnostics() {
        assert_eq!(d.function, "main");
        assert_eq!(d.lanes.len(), 32);
    }
    assert!(sim.diagnostics()[0].instruction < sim.diagnostics()[1].instruction);
}

#[test]
fn dot_overflow_is_diagnosed_only_where_the_spec_leaves_it_undefined() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/dot");
    for (shader, words, expect) in [
        ("dot_packed4x8.spv", 64 * 24 * 2, true),
        ("dot_v4i32.spv", 64 * 12 * 2, true),
    ] {
        let prog = Arc::new(
            load(
                &std::fs::read(dir.join(shader)).unwrap(),
                &LoadOptions::default(),
            )
            .unwrap(),
        );
        // Small inputs: nothing overflows.
        let small: Vec<u32> = (0..64 * 32).map(|i| i % 3).collect();
        let b = Bindings {
            buffers: vec![(0, 0, to_bytes(&small)), (0, 1, vec![0; words * 4])],
            push_constants: Vec::new(),
            ..Bindings::default()
        };
        let mut sim = Simulator::new(Arc::clone(&prog), Config::default(), &b).unwrap();
        sim.run(1_000_000).unwrap();
        assert!(
            sim.diagnostics().iter().all(|d| d.code != "dot-overflow"),
            "{shader}: {:?}",
            sim.diagnostics()
        );
        assert!(sim.poisoned_words(0, 1).is_empty());
        // Extreme inputs: the AccSat forms overflow for narrow results.
        let big: Vec<u32> = vec![0x8080_8080; 64 * 32];
        let b = Bindings {
            buffers: vec![(0, 0, to_bytes(&big)), (0, 1, vec![0; words * 4])],
            push_constants: Vec::new(),
            ..Bindings::default()
        };
        let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
        sim.run(1_000_000).unwrap();
        assert_eq!(
            sim.diagnostics().iter().any(|d| d.code == "dot-overflow"),
            expect,
            "{shader}"
        );
        // The undefined results are poison in the output buffer, and only those words.
        let poisoned = sim.poisoned_words(0, 1);
        assert_eq!(!poisoned.is_empty(), expect, "{shader}");
        assert!(poisoned.len() < words, "clean results stay clean");
    }
}

fn run_asset(name: &str, subgroup_size: u32) -> (Vec<u32>, Simulator) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../assets")
        .join(name);
    let prog = Arc::new(load(&std::fs::read(path).unwrap(), &LoadOptions::default()).unwrap());
    let inp: Vec<u32> = (0..64).map(|i| i * 7 + 3).collect();
    let b = Bindings {
        buffers: vec![(0, 0, to_bytes(&inp)), (0, 1, vec![0; 64 * 64 * 4])],
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let cfg = Config {
        subgroup_size,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, &b).unwrap();
    assert_eq!(sim.run(1_000_000).unwrap(), Outcome::Finished);
    (to_words(sim.buffer(0, 1).unwrap()), sim)
}

#[test]
fn rotate_examples_compute_what_their_comments_say() {
    for s in [4u32, 8, 32, 64] {
        let x = |l: u32| l * 7 + 3 + l;
        let (w, sim) = run_asset("rotate_convolution.spv", s);
        assert!(sim.diagnostics().is_empty());
        for l in 0..64u32 {
            let base = l / s * s;
            let left = x(base + (l + s - 1) % s);
            let right = x(base + (l + 1) % s);
            assert_eq!(
                w[l as usize],
                left + 2 * x(l) + right,
                "convolution, lane {l}, subgroup {s}"
            );
        }
        let (w, _) = run_asset("rotate_clustered.spv", s);
        for l in 0..64u32 {
            let in_cluster = |g: u32, d: u32| {
                let g = g.min(s);
                x((l + d) % g + l / g * g)
            };
            assert_eq!(
                w[l as usize],
                in_cluster(4, 1),
                "cluster 4, lane {l}, subgroup {s}"
            );
            assert_eq!(w[64 + l as usize], in_cluster(8, 3));
            assert_eq!(w[128 + l as usize], in_cluster(4, 5));
            assert_eq!(w[192 + l as usize], x(l));
        }
    }
    let (w, sim) = run_asset("rotate_divergent.spv", 32);
    let d = &sim.diagnostics()[0];
    assert_eq!(d.code, "rotate-inactive-source");
    assert_eq!(
        d.lanes,
        (0..32)
            .filter(|l| l % 3 == 2 || *l == 31)
            .collect::<Vec<u32>>()
    );
    assert_eq!(
        w[64 + 5],
        (6 * 7 + 3) + 6,
        "after the merge the rotate is defined"
    );
    let poisoned = sim.poisoned_words(0, 1);
    assert!(
        poisoned.contains(&2)
            && poisoned.contains(&31)
            && !poisoned.contains(&1)
            && !poisoned.contains(&(64 + 2))
    );
}

#[test]
fn rotate_moves_every_component_type() {
    let prog = Arc::new(load(&data("rotate_types.spv"), &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 9 * 32 * 4])],
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(10_000).unwrap(), Outcome::Finished);
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    let w = to_words(sim.buffer(0, 0).unwrap());
    for l in 0..32u32 {
        let src = u64::from((l + 1) % 32);
        let r = &w[l as usize * 9..l as usize * 9 + 9];
        assert_eq!(u64::from(r[0]), src & 1, "bool");
        let i = (u64::from(r[1]) | u64::from(r[2]) << 32) as i64;
        assert_eq!(i, src as i64 * (1 << 40) - 7, "i64");
        assert_eq!(
            f64::from_bits(u64::from(r[3]) | u64::from(r[4]) << 32),
            src as f64 + 0.5,
            "f64"
        );
        assert_eq!(
            &r[5..8],
            &[src as u32, 2 * src as u32, 3 * src as u32],
            "u16 vector"
        );
        assert_eq!(f32::from_bits(r[8]), src as f32, "f16");
    }
}

#[test]
fn alu_self_checks_pass() {
    // Forty self-checking comparisons (tests/data/alu_checks.comp): 8/16/64-bit integers, f16/f64,
    // conversions, bit operations, GLSL.std.450, matrices, explicit layouts, atomics, phis.
    let prog = Arc::new(load(&data("alu_checks.spv"), &LoadOptions::default()).unwrap());
    let inp: Vec<u32> = (0..16).collect();
    let b = Bindings {
        buffers: vec![
            (0, 0, to_bytes(&inp)),
            (0, 1, vec![0; 256]),
            (0, 2, vec![0; 256]),
        ],
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(
        prog,
        Config {
            subgroup_size: 4,
            ..Config::default()
        },
        &b,
    )
    .unwrap();
    assert_eq!(sim.run(100_000).unwrap(), Outcome::Finished);
    let w = to_words(sim.buffer(0, 1).unwrap());
    let failed: Vec<usize> = (0..40).filter(|&k| w[k] != 1).collect();
    assert!(failed.is_empty(), "checks failed: {failed:?}");
    // The divisions by zero of check 10 are reported, and their result is poison in outp[10].
    assert!(sim
        .diagnostics()
        .iter()
        .any(|d| d.code == "undefined-result"));
    assert_eq!(sim.poisoned_words(0, 1), vec![10]);
}
