//! The detectors under mutation: every shader in `tests/data/mutation/` (each correct, using
//! shared memory the way real kernels do: reductions, tiles, scans, histograms, 8- and 16-bit
//! data, buffer exchange) is mutated by `mutation::Module::ops`, and
//! - every mutant whose output changes under some schedule (a bug the run shows) must be
//!   reported under every schedule;
//! - every harmless edit must be silent under every schedule;
//! - the unmutated shaders are silent;
//! - harmful edits whose output never changes (latent bugs) are listed with their verdicts in a
//!   snapshot, each checked by hand.

mod mutation;

use mutation::{mutate, pseudo_random, Case, Op, Truth};
use std::fmt::Write;
use std::path::Path;

fn case(file: &str, workgroups: u32, input_words: usize, output_words: usize) -> Case {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/mutation")
            .join(file),
    )
    .unwrap();
    let spv = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Case {
        name: file.into(),
        spv,
        workgroups: [workgroups, 1, 1],
        subgroup_size: 16,
        buffers: vec![
            (0, 0, pseudo_random(input_words, 7, 200)),
            (0, 1, vec![0; output_words]),
        ],
        push_constants: Vec::new(),
        spec: Default::default(),
    }
}

fn cases() -> Vec<Case> {
    vec![
        case("reduce_tree.spv", 2, 128, 2),
        case("transpose_tile.spv", 2, 512, 512),
        case("scan_pingpong.spv", 2, 128, 128),
        case("histogram_bins.spv", 2, 128, 16),
        case("f16_pairs.spv", 2, 128, 128),
        case("u8_rotate.spv", 2, 128, 128),
        case("softmax_row.spv", 2, 64, 64),
        case("stencil_halo.spv", 2, 128, 128),
        case("buffer_exchange.spv", 2, 128, 128),
        case("private_accumulate.spv", 2, 128, 128),
    ]
}

#[test]
fn the_detectors_find_every_observable_mutant_and_stay_silent_on_harmless_ones() {
    let mut report = String::new();
    let mut misses = Vec::new();
    let mut alarms = Vec::new();
    let (mut observable, mut caught, mut harmless, mut latent, mut weakened) = (0, 0, 0, 0, 0);
    for c in cases() {
        // The shaders themselves are correct.
        for s in mutation::schedules() {
            let r = mutation::run_words(&c, &c.spv, s, true).unwrap();
            assert!(
                r.findings.is_empty(),
                "{} under {s:?}: {:?}",
                c.name,
                r.findings
            );
        }
        let (outcomes, skipped) = mutate(&c).unwrap();
        assert!(
            skipped.is_empty(),
            "{}: mutants that did not run: {skipped:?}",
            c.name
        );
        // A barrier without memory semantics, or without Acquire/Release, orders nothing: the
        // detectors must treat it as deleted (reported exactly when deleting it is), unless a
        // memory barrier right before it orders the memory.
        let module = mutation::Module::new(&c.spv);
        for o in &outcomes {
            if let Op::Weaken(k) | Op::Unacquire(k) = o.op {
                let dropped = outcomes
                    .iter()
                    .find(|d| d.op == Op::DropBarrier(k))
                    .unwrap();
                weakened += 1;
                let expected = !module.fenced(k) && dropped.found_under_any();
                if o.found_under_all() != expected || o.found_under_any() != expected {
                    misses.push(format!(
                        "{} {}: {:?}, while deleting the barrier gives {:?}",
                        c.name, o.op, o.found, dropped.found
                    ));
                }
            }
        }
        for o in &outcomes {
            if matches!(o.op, Op::Weaken(_) | Op::Unacquire(_)) {
                continue;
            }
            let codes: Vec<String> = o.codes().into_iter().collect();
            match o.truth {
                Truth::Observable => {
                    observable += 1;
                    if o.found_under_all() {
                        caught += 1;
                    } else {
                        misses.push(format!("{} {}: {:?}", c.name, o.op, o.found));
                    }
                }
                Truth::Harmless => {
                    harmless += 1;
                    if o.found_under_any() {
                        alarms.push(format!("{} {}: {codes:?}", c.name, o.op));
                    }
                }
                Truth::Latent => {
                    latent += 1;
                    let all = if o.found_under_all() {
                        ""
                    } else if o.found_under_any() {
                        " (not under every schedule)"
                    } else {
                        ""
                    };
                    writeln!(report, "{} {}: {codes:?}{all}", c.name, o.op).unwrap();
                }
            }
        }
    }
    eprintln!(
        "mutants: {observable} observable ({caught} caught under every schedule), {harmless} harmless ({} false alarms), {latent} latent, {weakened} barriers weakened",
        alarms.len()
    );
    assert!(observable >= 40, "too few observable mutants: {observable}");
    assert!(harmless >= 40, "too few harmless mutants: {harmless}");
    assert!(misses.is_empty(), "missed bugs:\n{}", misses.join("\n"));
    assert!(alarms.is_empty(), "false alarms:\n{}", alarms.join("\n"));
    insta::assert_snapshot!("latent_mutants", report);
}
