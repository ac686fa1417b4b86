//! Deciding a word's records when a new access comes: which it races with, and which stay
//! beside it (the module's notes in `detect/mod.rs` say which are kept and why).

use super::records::{Ctxs, Pair, Rel, Slot, Word};
use super::{conflict, Kind};

/// What a new access finds among a word's records, in one pass (over at most 64 records).
pub(super) struct Scan {
    /// The records it races with, and of those the ones only lockstep execution orders.
    pub(super) races: u64,
    pub(super) lockstep: u64,
    /// Whether every record of its bytes covers only its bytes, and whether every one of its
    /// kind covers exactly them: then (the first for a plain write that raced with nothing,
    /// the second otherwise: 32-bit data, and 8- or 16-bit data accessed element by element)
    /// each byte of it is decided alike and wholly, from what the pass found.
    pub(super) subset: bool,
    pub(super) whole: bool,
    /// The records of its bytes; of those, the ones of its kind; and records of no bytes.
    pub(super) overlap: u64,
    pub(super) cover: u64,
    pub(super) empty: u64,
    /// The one of `cover` to keep beside it ([`one_beside`]).
    pub(super) beside: Option<usize>,
}

pub(super) fn scan(recs: &[Slot], n: &Slot, ctxs: &Ctxs) -> Scan {
    let mut sc = Scan {
        races: 0,
        lockstep: 0,
        subset: recs.len() <= 64,
        whole: recs.len() <= 64,
        overlap: 0,
        cover: 0,
        empty: 0,
        beside: None,
    };
    let mut best = 0;
    for (k, r) in recs.iter().enumerate().take(64) {
        let bit = 1u64 << k;
        if r.bytes() & n.bytes() == 0 {
            if r.bytes() == 0 {
                sc.empty |= bit;
            }
            continue;
        }
        sc.subset &= r.bytes() & !n.bytes() == 0;
        sc.overlap |= bit;
        let rel = ctxs.rel(r, n);
        if let Some(lockstep) = race_rel(rel, r, n) {
            sc.races |= bit;
            if lockstep {
                sc.lockstep |= bit;
            }
        }
        if r.kind() == n.kind() {
            sc.whole &= r.bytes() == n.bytes();
            sc.cover |= bit;
            let rank = beside_rank(rel, r, n);
            if rank != 0 && rank >= best {
                (best, sc.beside) = (rank, Some(k));
            }
        }
    }
    sc
}

/// Records `n` among a word's records `recs`, given what [`scan`] found: in one pass when
/// each byte of `n` is decided alike, as [`keep_bytes`] decides them.
pub(super) fn keep_scanned(recs: &mut Word, n: Slot, sc: &Scan, ctxs: &Ctxs) {
    let raced = sc.races != 0;
    let replaces = n.kind() == Kind::Write && !raced;
    if !(if replaces { sc.subset } else { sc.whole }) {
        return keep_bytes(recs, n, raced, ctxs);
    }
    let drop = if replaces {
        sc.overlap | sc.empty
    } else {
        (sc.cover & !sc.beside.map_or(0, |k| 1 << k)) | sc.empty
    };
    if drop != 0 {
        recs.retain_bits(!drop);
    }
    recs.push(n);
}

/// Records `n` among a word's records `recs` (`raced`: it raced with one of them), keeping what
/// the module's notes say, byte by byte.
pub(super) fn keep_bytes(recs: &mut Word, n: Slot, raced: bool, ctxs: &Ctxs) {
    if n.kind() == Kind::Write && !raced {
        for r in recs.iter_mut() {
            r.set_bytes(r.bytes() & !n.bytes());
        }
    } else {
        // Per byte of `n`, the records of its kind that cover it (bytes with the same ones
        // are decided together).
        let mut cover = [0u64; 4];
        for (k, r) in recs.iter().enumerate().take(64) {
            if r.kind() == n.kind() && r.bytes() & n.bytes() != 0 {
                for (b, m) in cover.iter_mut().enumerate() {
                    if r.bytes() & n.bytes() & (1 << b) != 0 {
                        *m |= 1 << k;
                    }
                }
            }
        }
        let mut done = 0u8;
        for b in 0..4 {
            if (n.bytes() & !done) & (1 << b) == 0 || cover[b] == 0 {
                continue;
            }
            let same = (b..4)
                .filter(|&x| n.bytes() & (1 << x) != 0 && cover[x] == cover[b])
                .fold(0u8, |m, x| m | 1 << x);
            done |= same;
            let kept = one_beside(recs, cover[b], &n, ctxs);
            for (k, r) in recs.iter_mut().enumerate().take(64) {
                if cover[b] & (1 << k) != 0 && Some(k) != kept {
                    r.set_bytes(r.bytes() & !same);
                }
            }
        }
    }
    recs.retain(|r| r.bytes() != 0);
    recs.push(n);
}

/// Which one of the records `cands` (bits of indices into `recs`, all of `n`'s kind) to keep
/// beside `n`: the latest of the first class the module's notes list that has one.
pub(super) fn one_beside(recs: &[Slot], cands: u64, n: &Slot, ctxs: &Ctxs) -> Option<usize> {
    let (mut best, mut kept) = (0, None);
    for (k, r) in recs.iter().enumerate().take(64) {
        if cands & (1 << k) == 0 {
            continue;
        }
        let rank = beside_rank(ctxs.rel(r, n), r, n);
        if rank != 0 && rank >= best {
            (best, kept) = (rank, Some(k));
        }
    }
    kept
}

/// The in-place decision for a word of at most three records `recs`, each of `n`'s bytes, with
/// no new race to report (`full`: the report limit is reached; `last`: the contexts and the
/// instruction pair last reported; `reported`: every pair reported): which records stay beside
/// `n` (bit per record), or `None` for the general path (also when they and `n` would not fit
/// the word's three inline).
pub(super) fn decide_inline(
    recs: &[Slot],
    n: &Slot,
    ctxs: &Ctxs,
    full: bool,
    last: (Option<Pair>, Option<Pair>),
    reported: &super::Reported,
) -> Option<u8> {
    let mut raced = false;
    let mut cover = 0u8;
    // The latest record of `n`'s kind of the highest rank, and its rank.
    let (mut best, mut best_rank) = (None, 0);
    for (k, r) in recs.iter().enumerate() {
        if r.bytes() != n.bytes() {
            return None;
        }
        let rel = ctxs.rel(r, n);
        if race_rel(rel, r, n).is_some() {
            raced = true;
            let instr = |s: &Slot| ctxs.all[s.ctx as usize].instr;
            // (a pair reported before, by an earlier workgroup's run of the same code most
            // often, is not reported again: nothing to do but keep the records)
            let pair = (instr(r), instr(n));
            if last.0 != Some((r.ctx, n.ctx))
                && !full
                && last.1 != Some(pair)
                && !reported.contains(&pair)
            {
                return None;
            }
        }
        if r.kind() == n.kind() {
            cover |= 1 << k;
            let rank = beside_rank(rel, r, n);
            if rank != 0 && rank >= best_rank {
                (best, best_rank) = (Some(k), rank);
            }
        }
    }
    // A plain write that raced with nothing replaces them all; otherwise the records of its
    // kind give way to it but the latest of the highest rank.
    if n.kind() == Kind::Write && !raced {
        return Some(0);
    }
    let stays = (!cover | best.map_or(0, |k| 1 << k)) & ((1 << recs.len()) - 1);
    (stays.count_ones() < 3).then_some(stays)
}

/// How a record of `n`'s kind and bytes ranks for being the one kept beside `n`
/// ([`one_beside`]): 3 of another workgroup, 2 of another subgroup in `n`'s workgroup epoch, 1
/// another invocation of `n`'s subgroup in its epoch, 0 none.
pub(super) fn beside_rank(rel: Rel, r: &Slot, n: &Slot) -> u8 {
    match rel {
        Rel::OtherWg => 3,
        Rel::SameWg {
            same_sg: false,
            wg_ord: true,
            ..
        } => 2,
        Rel::SameWg {
            same_sg: true,
            wg_ord: true,
            sg_ord: true,
        } if r.inv() != n.inv() => 1,
        Rel::SameWg { .. } => 0,
    }
}

/// Whether `a` (earlier) and `b` race: `Some(lockstep)` when nothing orders them (`lockstep`:
/// they are in one subgroup, where only lockstep execution orders them here).
#[cfg(test)]
pub(super) fn race(ctxs: &Ctxs, a: &Slot, b: &Slot) -> Option<bool> {
    if a.bytes() & b.bytes() == 0 || !conflict(a.kind(), b.kind()) {
        return None;
    }
    race_rel(ctxs.rel(a, b), a, b)
}

/// [`race`] for records of overlapping bytes whose relation is `rel`.
pub(super) fn race_rel(rel: Rel, a: &Slot, b: &Slot) -> Option<bool> {
    if !conflict(a.kind(), b.kind()) {
        return None;
    }
    match rel {
        Rel::OtherWg => Some(false),
        Rel::SameWg { .. } if a.inv() == b.inv() => None,
        Rel::SameWg {
            same_sg: true,
            sg_ord,
            ..
        } => sg_ord.then_some(true),
        Rel::SameWg { wg_ord, .. } => wg_ord.then_some(false),
    }
}
