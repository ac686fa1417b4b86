//! `Simulator::run_threads`: workgroups on several threads give the serial run's buffers,
//! counts, diagnostics and final state, and fall back to the serial run where workgroups share
//! buffer words or a diagnostic is reported.

mod common;

use common::{to_bytes, to_words};
use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
use std::sync::Arc;

const GROUPS: u32 = 24;

fn sim(name: &str, detectors: bool) -> Simulator {
    let path = format!("{}/tests/data/{name}.spv", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let n = (GROUPS * 32) as usize;
    // Deterministic, varied input.
    let inp: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) ^ 0x9e37)
        .collect();
    let b = Bindings {
        buffers: vec![
            (0, 0, to_bytes(&inp)),
            (0, 1, vec![0; n * 4]),
            (0, 2, vec![0; 4]),
        ],
        ..Bindings::default()
    };
    let cfg = Config {
        subgroup_size: 16,
        workgroups: [GROUPS, 1, 1],
        detectors,
        ..Config::default()
    };
    Simulator::new(prog, cfg, &b).unwrap()
}

/// Everything a headless run reports, as text.
fn outcome(s: &Simulator) -> String {
    format!(
        "{:?}\n{}\n{}\n{:?}\n{:?}",
        s.stats(),
        serde_json::to_string(s.diagnostics()).unwrap(),
        serde_json::to_string(s.poison_stores()).unwrap(),
        to_words(s.buffer(0, 1).unwrap()),
        (s.buffer(0, 2), s.workgroup_id(), s.is_finished()),
    )
}

fn serial_and_parallel(name: &str, detectors: bool) -> Vec<usize> {
    let mut serial = sim(name, detectors);
    assert_eq!(serial.run(10_000_000).unwrap(), Outcome::Finished);
    let want = outcome(&serial);
    let mut used = Vec::new();
    for threads in [2, 3, 4, 7, 64] {
        let mut p = sim(name, detectors);
        assert_eq!(
            p.run_threads(10_000_000, threads).unwrap(),
            Outcome::Finished
        );
        assert_eq!(outcome(&p), want, "{name}, {threads} threads");
        used.push(p.threads_used());
    }
    used
}

#[test]
fn independent_workgroups_run_in_parallel_with_the_serial_result() {
    // `readonly` In needs no read log; Out and the counter are written.
    let ro: Vec<bool> = sim("par_tile", false)
        .program()
        .resources()
        .iter()
        .map(|r| r.read_only)
        .collect();
    assert_eq!(ro, [true, false]);
    for detectors in [true, false] {
        let used = serial_and_parallel("par_tile", detectors);
        assert_eq!(used, [2, 3, 4, 7, GROUPS as usize], "threads used");
    }
}

#[test]
fn workgroups_sharing_a_counter_or_words_run_serially_with_the_same_result() {
    assert_eq!(serial_and_parallel("par_shared", true), [1; 5]);
    assert_eq!(serial_and_parallel("par_neighbour", false), [1; 5]);
}

#[test]
fn a_run_with_diagnostics_keeps_the_serial_order_and_numbering() {
    let mut serial = sim("par_tile_oob", true);
    serial.run(10_000_000).unwrap();
    assert!(!serial.diagnostics().is_empty());
    assert_eq!(serial_and_parallel("par_tile_oob", true), [1; 5]);
}

#[test]
fn a_budget_counts_every_workgroup_as_the_serial_run_does() {
    let mut serial = sim("par_tile", false);
    serial.run(10_000_000).unwrap();
    let total = serial.stats().steps;
    for budget in [total / 3, total - 1] {
        let mut s = sim("par_tile", false);
        let mut p = sim("par_tile", false);
        assert_eq!(s.run(budget).unwrap(), Outcome::Budget);
        assert_eq!(p.run_threads(budget, 4).unwrap(), Outcome::Budget);
        assert_eq!(outcome(&p), outcome(&s), "budget {budget}");
    }
    let mut p = sim("par_tile", false);
    assert_eq!(p.run_threads(total, 4).unwrap(), Outcome::Finished);
    assert_eq!(p.threads_used(), 4);
}

/// Only the chosen workgroups run, in parallel too.
#[test]
fn chosen_workgroups_run_in_parallel() {
    let pick = |s: &mut Simulator| {
        let mut cfg = s.config().clone();
        cfg.only_workgroups = vec![[3, 0, 0], [9, 0, 0], [17, 0, 0]];
        cfg
    };
    let path = format!("{}/tests/data/par_tile.spv", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let n = (GROUPS * 32) as usize;
    let b = Bindings {
        buffers: vec![(0, 0, vec![1; n * 4]), (0, 1, vec![0; n * 4])],
        ..Bindings::default()
    };
    let cfg = pick(&mut sim("par_tile", true));
    let mut serial = Simulator::new(Arc::clone(&prog), cfg.clone(), &b).unwrap();
    serial.run(10_000_000).unwrap();
    let mut p = Simulator::new(prog, cfg, &b).unwrap();
    p.run_threads(10_000_000, 8).unwrap();
    assert_eq!(p.threads_used(), 3);
    assert_eq!(p.buffer(0, 1), serial.buffer(0, 1));
    assert_eq!(p.stats().workgroups_done, 3);
    let written = to_words(p.buffer(0, 1).unwrap())
        .chunks(32)
        .map(|c| c.iter().any(|w| *w != 0))
        .collect::<Vec<_>>();
    let want: Vec<bool> = (0..GROUPS).map(|g| [3, 9, 17].contains(&g)).collect();
    assert_eq!(written, want);
}

/// The runs' copies of the buffers stay within the buffer memory limit: with room for four
/// copies (the starting and the merged buffers are two of them), two runs.
#[test]
fn the_buffer_memory_limit_bounds_the_copies() {
    let mut s = sim("par_tile", false);
    let bytes: u64 = (GROUPS as u64 * 32 * 4) * 2 + 4;
    let mut cfg = s.config().clone();
    cfg.max_buffer_memory = bytes * 4 + 100;
    let path = format!("{}/tests/data/par_tile.spv", env!("CARGO_MANIFEST_DIR"));
    let prog = Arc::new(load(&std::fs::read(&path).unwrap(), &LoadOptions::default()).unwrap());
    let n = (GROUPS * 32) as usize;
    let b = Bindings {
        buffers: vec![
            (0, 0, vec![1; n * 4]),
            (0, 1, vec![0; n * 4]),
            (0, 2, vec![0; 4]),
        ],
        ..Bindings::default()
    };
    let mut p = Simulator::new(prog, cfg, &b).unwrap();
    p.run_threads(10_000_000, 8).unwrap();
    assert_eq!(p.threads_used(), 2);
    s.run(10_000_000).unwrap();
    assert_eq!(s.stats().workgroups_done, p.stats().workgroups_done);
}

/// A Workgroup-scope cooperative matrix runs its loads and stores when the workgroup's last
/// subgroup arrives, outside a step: a run's last store of that kind still reaches the merged
/// buffers (each workgroup stores its own tile, so the dispatch runs in parallel).
#[test]
fn workgroup_scope_matrix_stores_are_seen_by_the_parallel_run() {
    let path = format!("{}/tests/data/par_coop_wg.spv", env!("CARGO_MANIFEST_DIR"));
    let opts = LoadOptions {
        coopmat_layout: lanescope_core::coopmat::LayoutChoice::Portable,
        ..LoadOptions::default()
    };
    let prog = Arc::new(load(&std::fs::read(&path).unwrap(), &opts).unwrap());
    let groups = 6u32;
    let halves: Vec<u8> = (0..256 * groups)
        .flat_map(|i| [0x3c00u16, 0x4000, 0xbc00][(i % 3) as usize].to_le_bytes())
        .collect();
    let b = Bindings {
        buffers: vec![
            (0, 0, halves.clone()),
            (0, 1, halves),
            (0, 2, vec![0; 1024 * groups as usize]),
        ],
        ..Bindings::default()
    };
    for detectors in [false, true] {
        let cfg = Config {
            workgroups: [groups, 1, 1],
            detectors,
            ..Config::default()
        };
        let mut serial = Simulator::new(Arc::clone(&prog), cfg.clone(), &b).unwrap();
        serial.run(10_000_000).unwrap();
        let mut p = Simulator::new(Arc::clone(&prog), cfg, &b).unwrap();
        p.run_threads(10_000_000, 3).unwrap();
        assert_eq!(p.threads_used(), 3);
        assert!(
            p.buffer(0, 2) == serial.buffer(0, 2),
            "the tiles differ from the serial run (detectors {detectors})"
        );
        assert!(to_words(p.buffer(0, 2).unwrap()).iter().all(|w| *w != 0));
    }
}
