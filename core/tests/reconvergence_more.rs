//! Reconvergence in structures the GPU reference set lacks (shaders in `tests/data/probe_*`):
//! a switch inside a loop with continue and break, do-while, while(true) with breaks, nested
//! calls with returns inside loops, return from a nested loop. Each checks ballots against a
//! model of the rules, plus a generic consistency check: every lane named in a ballot recorded
//! the same probe with the same ballot.

#![expect(
    clippy::needless_range_loop,
    reason = "invocation indices index several parallel arrays"
)]

mod common;

use common::{run_probes_at, Probe, Rng};
use lanescope_core::{Config, SiblingOrder};
use std::path::Path;

const N: usize = 64;

fn shader(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(format!("probe_{name}.spv"))
}

fn inputs(seed: u64) -> Vec<u32> {
    let mut r = Rng(seed);
    (0..N).map(|_| r.next() ^ (r.next() << 16)).collect()
}

fn ballot(inv: usize, pred: impl Fn(usize) -> bool) -> u64 {
    let base = inv / 32 * 32;
    (0..32)
        .filter(|&l| pred(base + l))
        .fold(0, |m, l| m | 1 << l)
}

fn find(p: &[Probe], id: u32, aux: u32) -> Option<Probe> {
    p.iter().copied().find(|r| r.id == id && r.aux == aux)
}

fn consistent(p: &[Vec<Probe>]) {
    for i in 0..N {
        for r in &p[i] {
            let base = i / 32 * 32;
            assert!(
                r.ballot >> (i % 32) & 1 == 1,
                "invocation {i} missing from its own ballot {r:?}"
            );
            for l in 0..32 {
                if r.ballot >> l & 1 == 1 {
                    assert!(
                        p[base + l].contains(r),
                        "lane {} is in the ballot of {r:?} (invocation {i}) but has no such record",
                        base + l
                    );
                }
            }
        }
    }
}

fn run(name: &str, v: &[u32]) -> Vec<Vec<Probe>> {
    let p = run_probes_at(&shader(name), v, Config::default());
    consistent(&p);
    // Results the spec defines do not depend on which sibling tangle runs first.
    let q = run_probes_at(
        &shader(name),
        v,
        Config {
            sibling_order: SiblingOrder::Newest,
            ..Config::default()
        },
    );
    assert_eq!(p, q, "{name}: sibling order changed the ballots");
    p
}

#[test]
fn switch_inside_a_loop_with_continue_and_break() {
    for seed in 1..4 {
        let v = inputs(seed);
        let p = run("switch_in_loop", &v);
        let sel = |j: usize, i: u32| (v[j] >> i) % 4;
        let breaks = |j: usize, k: u32| sel(j, k) != 0 && (v[j] >> (k + 16)) & 7 == 0;
        let alive = |j: usize, i: u32| (0..i).all(|k| !breaks(j, k));
        for i in 0..N {
            for it in 0..6 {
                if !alive(i, it) {
                    continue;
                }
                assert_eq!(
                    find(&p[i], 1, it).unwrap().ballot,
                    ballot(i, |j| alive(j, it)),
                    "loop top, iteration {it}"
                );
                if sel(i, it) != 0 {
                    assert_eq!(
                        find(&p[i], 7, it).unwrap().ballot,
                        ballot(i, |j| alive(j, it) && sel(j, it) != 0),
                        "after the switch"
                    );
                }
                if sel(i, it) >= 2 {
                    // Per-value: values 2 and 3 share the default's code but not a tangle.
                    assert_eq!(
                        find(&p[i], 5, it).unwrap().ballot,
                        ballot(i, |j| alive(j, it) && sel(j, it) == sel(i, it))
                    );
                }
            }
            assert_eq!(find(&p[i], 9, 0).unwrap().ballot, 0xffff_ffff);
        }
    }
}

#[test]
fn do_while_reconverges_each_iteration() {
    let v = inputs(7);
    let p = run("do_while", &v);
    for i in 0..N {
        for it in 0..=v[i] % 5 {
            assert_eq!(
                find(&p[i], 1, it).unwrap().ballot,
                ballot(i, |j| v[j] % 5 >= it)
            );
        }
        assert_eq!(find(&p[i], 3, 0).unwrap().ballot, 0xffff_ffff);
    }
}

#[test]
fn while_true_with_breaks() {
    let v = inputs(9);
    let p = run("while_true", &v);
    let exit = |j: usize| {
        if (v[j] >> 4) & 1 != 0 {
            v[j] % 3
        } else {
            v[j] % 3 + 1
        }
    };
    for i in 0..N {
        for it in 0..=exit(i) {
            assert_eq!(
                find(&p[i], 1, it).unwrap().ballot,
                ballot(i, |j| exit(j) >= it),
                "iteration {it}"
            );
        }
        assert_eq!(find(&p[i], 4, 0).unwrap().ballot, 0xffff_ffff);
    }
}

#[test]
fn nested_calls_reconverge_after_each_call() {
    let v = inputs(11);
    let p = run("nested_calls", &v);
    for i in 0..N {
        assert_eq!(find(&p[i], 1, 0).unwrap().ballot, 0xffff_ffff, "after f()");
        let third = p[i].iter().find(|r| r.id == 3).unwrap();
        assert_eq!(third.ballot, 0xffff_ffff, "after the if");
        if v[i] & 8 != 0 {
            assert_eq!(
                find(&p[i], 2, 0).unwrap().ballot,
                ballot(i, |j| v[j] & 8 != 0),
                "after the second call"
            );
        }
    }
}

#[test]
fn return_from_a_nested_loop() {
    let v = inputs(13);
    let p = run("return_in_loop", &v);
    let returns = |j: usize| {
        for i in 0..4u32 {
            for k in 0..3u32 {
                match (v[j] >> (i * 3 + k)) & 3 {
                    3 => return true,
                    2 => break,
                    _ => {}
                }
            }
        }
        false
    };
    for i in 0..N {
        match find(&p[i], 6, 0) {
            Some(r) => {
                assert!(!returns(i));
                assert_eq!(r.ballot, ballot(i, |j| !returns(j)));
            }
            None => assert!(returns(i)),
        }
    }
}
