//! One test per maximal-reconvergence rule, checked against a model of the rule written here
//! (not against recorded GPU output), on random inputs.

#![expect(
    clippy::needless_range_loop,
    reason = "invocation indices index several parallel arrays"
)]

mod common;

use common::{run_probes, Probe, Rng};
use lanescope_core::{Config, SwitchTangles};

const N: usize = 64;

fn inputs(seed: u64) -> Vec<u32> {
    let mut r = Rng(seed);
    (0..N).map(|_| r.next()).collect()
}

/// Lanes (as a ballot) of invocation `inv`'s subgroup of 32 satisfying `pred`.
fn ballot(inv: usize, pred: impl Fn(usize) -> bool) -> u64 {
    let base = inv / 32 * 32;
    (0..32)
        .filter(|&l| pred(base + l))
        .fold(0, |m, l| m | 1 << l)
}

fn find(p: &[Probe], id: u32, aux: u32) -> Probe {
    *p.iter()
        .find(|r| r.id == id && r.aux == aux)
        .unwrap_or_else(|| panic!("no probe {id}/{aux} in {p:?}"))
}

#[test]
fn selection_diverges_and_reconverges_at_the_merge() {
    for seed in 1..6 {
        let v = inputs(seed);
        let p = run_probes("c01_if_else.spv", &v, Config::default());
        for i in 0..N {
            let odd = v[i] & 1 != 0;
            let inner = find(&p[i], if odd { 1 } else { 2 }, 0);
            assert_eq!(
                inner.ballot,
                ballot(i, |j| (v[j] & 1 != 0) == odd),
                "branch tangle, invocation {i}"
            );
            assert_eq!(
                find(&p[i], 3, 0).ballot,
                0xffff_ffff,
                "merge reconverges everyone"
            );
        }
    }
}

#[test]
fn nested_selections_reconverge_at_each_merge() {
    let v = inputs(7);
    let p = run_probes("c03_nested_if.spv", &v, Config::default());
    for i in 0..N {
        if v[i] & 1 != 0 {
            assert_eq!(find(&p[i], 4, 0).ballot, ballot(i, |j| v[j] & 1 != 0));
        } else {
            assert_eq!(find(&p[i], 7, 0).ballot, ballot(i, |j| v[j] & 1 == 0));
        }
        assert_eq!(find(&p[i], 8, 0).ballot, 0xffff_ffff);
    }
}

#[test]
fn loop_iterations_reconverge_at_the_continue_target() {
    let v = inputs(11);
    let p = run_probes("c05_loop_divergent_trip.spv", &v, Config::default());
    for i in 0..N {
        for it in 0..v[i] % 8 {
            assert_eq!(
                find(&p[i], 1, it).ballot,
                ballot(i, |j| v[j] % 8 > it),
                "iteration {it}"
            );
        }
        assert_eq!(
            find(&p[i], 2, 0).ballot,
            0xffff_ffff,
            "loop merge gathers all who entered"
        );
    }
}

#[test]
fn break_block_runs_with_only_the_lanes_breaking_in_that_iteration() {
    let v = inputs(13);
    let p = run_probes("c06_loop_break_in_if.spv", &v, Config::default());
    for i in 0..N {
        let k = v[i] % 8;
        assert_eq!(
            find(&p[i], 2, k).ballot,
            ballot(i, |j| v[j] % 8 == k),
            "break block"
        );
        for it in 0..k {
            assert_eq!(find(&p[i], 3, it).ballot, ballot(i, |j| v[j] % 8 > it));
        }
        assert_eq!(find(&p[i], 4, 0).ballot, 0xffff_ffff);
    }
}

#[test]
fn early_return_escapes_later_merges() {
    let v = inputs(17);
    let p = run_probes("c08_early_return.spv", &v, Config::default());
    for i in 0..N {
        if v[i] & 3 == 0 {
            assert_eq!(find(&p[i], 4, 0).ballot, ballot(i, |j| v[j] & 3 == 0));
        } else {
            assert!(
                p[i].iter().all(|r| r.id != 4),
                "returned lanes run nothing more"
            );
        }
    }
}

#[test]
fn function_return_reconverges_the_caller() {
    let v = inputs(19);
    let p = run_probes("c12_func_divergent_return.spv", &v, Config::default());
    for i in 0..N {
        let r = if v[i] & 1 != 0 {
            1
        } else if v[i] & 2 != 0 {
            2
        } else {
            3
        };
        assert_eq!(find(&p[i], 1, r).ballot, 0xffff_ffff, "after the call");
        if r == 1 {
            assert_eq!(find(&p[i], 11, 0).ballot, ballot(i, |j| v[j] & 1 != 0));
        }
    }
}

#[test]
fn break_and_continue_escape_to_their_targets() {
    let v = inputs(23);
    let p = run_probes("c19_break_and_continue.spv", &v, Config::default());
    for i in 0..N {
        // Model: lane j is in iteration `it` if it has neither broken before.
        let alive =
            |j: usize, it: u32| (0..it).all(|k| (v[j] >> k) & 1 != 0 || k != (v[j] >> 4) % 8);
        for r in &p[i] {
            let it = r.aux;
            let expect = match r.id {
                1 => ballot(i, |j| alive(j, it) && (v[j] >> it) & 1 != 0),
                2 => ballot(i, |j| {
                    alive(j, it) && (v[j] >> it) & 1 == 0 && it == (v[j] >> 4) % 8
                }),
                3 => ballot(i, |j| {
                    alive(j, it) && (v[j] >> it) & 1 == 0 && it != (v[j] >> 4) % 8
                }),
                _ => continue,
            };
            assert_eq!(
                r.ballot, expect,
                "probe {} iteration {it} of invocation {i}",
                r.id
            );
        }
        assert_eq!(find(&p[i], 4, 0).ballot, 0xffff_ffff);
    }
}

#[test]
fn switch_grouping_per_value_and_per_case() {
    let v = inputs(29);
    let per_value = run_probes("c34_switch_multi_label.spv", &v, Config::default());
    let per_case = run_probes(
        "c34_switch_multi_label.spv",
        &v,
        Config {
            switch_tangles: SwitchTangles::PerCase,
            ..Config::default()
        },
    );
    for i in 0..N {
        let s = v[i] % 8;
        if s <= 2 {
            assert_eq!(
                find(&per_value[i], 1, 0).ballot,
                ballot(i, |j| v[j] % 8 == s),
                "one tangle per selector value"
            );
            assert_eq!(
                find(&per_case[i], 1, 0).ballot,
                ballot(i, |j| v[j] % 8 <= 2),
                "one tangle per case construct"
            );
        }
        if s > 3 {
            assert_eq!(
                find(&per_case[i], 3, 0).ballot,
                ballot(i, |j| v[j] % 8 > 3),
                "default gathers all its values"
            );
            assert_eq!(
                find(&per_value[i], 3, 0).ballot,
                ballot(i, |j| v[j] % 8 == s)
            );
        }
        assert_eq!(find(&per_value[i], 4, 0).ballot, 0xffff_ffff);
        assert_eq!(find(&per_case[i], 4, 0).ballot, 0xffff_ffff);
    }
}

#[test]
fn switch_fallthrough_per_case_joins_at_the_next_case() {
    let v = inputs(31);
    let per_case = run_probes(
        "c10_switch.spv",
        &v,
        Config {
            switch_tangles: SwitchTangles::PerCase,
            ..Config::default()
        },
    );
    let per_value = run_probes("c10_switch.spv", &v, Config::default());
    for i in 0..N {
        let s = v[i] % 6;
        if s == 2 || s == 3 {
            // Case 2 falls through into case 3: per case, both groups share case 3's tangle.
            assert_eq!(
                find(&per_case[i], 4, 0).ballot,
                ballot(i, |j| matches!(v[j] % 6, 2 | 3))
            );
            assert_eq!(
                find(&per_value[i], 4, 0).ballot,
                ballot(i, |j| v[j] % 6 == s)
            );
        }
    }
}

#[test]
fn partial_subgroup_has_only_its_lanes() {
    let v: Vec<u32> = inputs(37).into_iter().take(48).collect();
    let p = run_probes("c40_ls48_partial_subgroup.spv", &v, Config::default());
    assert_eq!(
        find(&p[40], 0, 0).ballot,
        0xffff,
        "second subgroup holds 16 lanes"
    );
    assert_eq!(find(&p[3], 0, 0).ballot, 0xffff_ffff);
}
