//! Independent workgroups run on several threads, with the result of the serial run.
//!
//! Vulkan gives workgroups no order, and the serial run takes them one after another. The
//! dispatch is cut into contiguous runs of workgroups, each run simulated on its own thread from
//! the same starting memory, recording which buffer words it reads and writes. When no run
//! writes a word another one reads or writes, every workgroup saw exactly what it sees in the
//! serial run, so the buffers (each run's writes applied in order), the counts and the final
//! state are the serial run's. Otherwise (workgroups that talk through memory, atomics on a
//! shared counter), and whenever a run reports a diagnostic or leaves undefined values in a
//! buffer (their order and deduplication belong to one run), the dispatch is run serially
//! instead: the answer never depends on the thread count.

use super::{Outcome, RunError, Simulator, Stats};
use crate::exec::memory::{Access, AccessKind, AccessLog};
use crate::program::Space;
use crate::sched::Schedule;
use std::sync::atomic::Ordering;

/// Steps a run takes between looks at the others' progress against the budget.
const SLICE: u64 = 1 << 16;

/// Most threads one dispatch uses, whatever is asked.
pub const MAX_THREADS: usize = 256;

/// Which words of each buffer storage a run read and wrote (one bit per 4-byte word).
#[derive(Clone, Debug, Default)]
pub(crate) struct Footprint {
    reads: Vec<Vec<u64>>,
    writes: Vec<Vec<u64>>,
}

fn mark(bits: &mut Vec<Vec<u64>>, storage: usize, from: usize, to: usize) {
    if bits.len() <= storage {
        bits.resize(storage + 1, Vec::new());
    }
    let b = &mut bits[storage];
    if b.len() <= to / 64 {
        b.resize(to / 64 + 1, 0);
    }
    for w in from..=to {
        b[w / 64] |= 1 << (w % 64);
    }
}

fn overlaps(a: &[Vec<u64>], b: &[Vec<u64>]) -> bool {
    a.iter()
        .zip(b)
        .any(|(x, y)| x.iter().zip(y).any(|(p, q)| p & q != 0))
}

fn union(into: &mut Vec<Vec<u64>>, from: &[Vec<u64>]) {
    if into.len() < from.len() {
        into.resize(from.len(), Vec::new());
    }
    for (i, f) in from.iter().enumerate() {
        let t = &mut into[i];
        if t.len() < f.len() {
            t.resize(f.len(), 0);
        }
        for (x, y) in t.iter_mut().zip(f) {
            *x |= y;
        }
    }
}

impl Footprint {
    /// Records the buffer accesses a step logged (its run and its entries).
    pub(crate) fn record(&mut self, log: &AccessLog) {
        let run = log.run_head.iter().flat_map(|head| {
            (log.run.iter()).map(|&[offset, inv]| Access {
                offset,
                inv,
                ..*head
            })
        });
        let all = run.chain(log.accesses.iter().copied());
        for a in all.filter(|a| a.space == Space::Buffer) {
            let from = (a.offset / 4) as usize;
            let to = ((a.offset + u32::from(a.size.max(1)) - 1) / 4) as usize;
            let s = a.storage as usize;
            if a.kind != AccessKind::Write {
                mark(&mut self.reads, s, from, to);
            }
            if a.kind != AccessKind::Read {
                mark(&mut self.writes, s, from, to);
            }
        }
    }
}

impl Simulator {
    /// Runs the whole dispatch to its end (or `budget` steps, counted over every workgroup) on
    /// up to `threads` threads: the same buffers, diagnostics, counts and outcome as
    /// [`Simulator::run`] (see the module's documentation for when it falls back to that).
    /// Only a fresh simulator with the default schedule and no trace runs in parallel. After a
    /// parallel run, what only the detectors and the views keep (the race detector's history,
    /// tangle ids) is the last run's.
    pub fn run_threads(&mut self, budget: u64, threads: usize) -> Result<Outcome, RunError> {
        let order: Vec<u32> = if self.wg_order.is_empty() {
            (0..self.wg_total).collect()
        } else {
            self.wg_order.clone()
        };
        let fresh = self.stats.steps == 0 && !self.finished;
        if threads <= 1
            || order.len() < 2
            || !fresh
            || self.cfg.record_trace
            || self.cfg.schedule != Schedule::Default
        {
            return self.run(budget);
        }
        // Each run holds its own copy of the buffers: together they stay within the buffer
        // memory limit (a dispatch over buffers too large to copy runs serially).
        let bytes: u64 = self.mem.buffers.iter().map(|b| b.len() as u64).sum();
        // (the starting buffers and the merged ones are two more)
        let copies = (self.cfg.max_buffer_memory / bytes.max(1)).saturating_sub(2);
        let parts = threads
            .min(order.len())
            .min(MAX_THREADS)
            .min(usize::try_from(copies).unwrap_or(usize::MAX));
        if parts < 2 {
            return self.run(budget);
        }
        let chunks: Vec<&[u32]> = (0..parts)
            .map(|k| &order[k * order.len() / parts..(k + 1) * order.len() / parts])
            .collect();
        // Steps of every run together: past the budget the serial run would stop early, so the
        // runs give up and the serial run says where.
        let total = std::sync::atomic::AtomicU64::new(0);
        let total = &total;
        let read_only = self.read_only_storages();
        let read_only = &read_only;
        let runs: Vec<Option<Simulator>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chunks
                .iter()
                .map(|chunk| {
                    let mut c = self.clone();
                    // A program of its own: the hot paths clone the simulator's `Arc` of it,
                    // and a reference count shared by the threads bounces its cache line
                    // between the cores at every such clone (two threads ran at half speed each).
                    c.prog = std::sync::Arc::new((*self.prog).clone());
                    // A thread the system refuses makes the dispatch run serially.
                    std::thread::Builder::new().spawn_scoped(scope, move || {
                        c.wg_order = chunk.to_vec();
                        c.wg_pos = 0;
                        c.wg_linear = chunk[0];
                        c.footprint = Some(Box::default());
                        if c.mem.log.is_none() {
                            c.mem.log = Some(AccessLog {
                                buffers_only: true,
                                unlogged_reads: read_only.clone(),
                                ..AccessLog::default()
                            });
                        }
                        c.start_workgroup();
                        loop {
                            let before = c.stats.steps;
                            let out = c.run(SLICE).ok()?;
                            let done = c.stats.steps - before;
                            let sum = total.fetch_add(done, Ordering::Relaxed) + done;
                            if sum > budget {
                                return None;
                            }
                            if out == Outcome::Finished {
                                // Accesses made outside a step (a Workgroup-scope cooperative
                                // matrix runs when its last subgroup arrives) and not yet fed
                                // to the footprint.
                                if let (Some(f), Some(log)) = (c.footprint.as_mut(), &c.mem.log) {
                                    f.record(log);
                                }
                                return Some(c);
                            }
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.ok().and_then(|h| h.join().ok().flatten()))
                .collect()
        });
        let Some(runs) = runs.into_iter().collect::<Option<Vec<_>>>() else {
            return self.run(budget);
        };
        let steps: u64 = runs.iter().map(|r| r.stats.steps).sum();
        let clean = runs.iter().all(|r| {
            r.diags.is_empty()
                && r.poison_stores.is_empty()
                && !r.mem.poison.marked_in(Space::Buffer)
        });
        let mut seen_w: Vec<Vec<u64>> = Vec::new();
        let mut seen_rw: Vec<Vec<u64>> = Vec::new();
        let mut independent = true;
        for r in &runs {
            let f = r.footprint.as_deref().expect("a footprint was asked for");
            // A write to a buffer taken as read-only (its reads were not logged): no proof.
            let wrote_read_only = f
                .writes
                .iter()
                .enumerate()
                .any(|(s, w)| read_only.get(s) == Some(&true) && w.iter().any(|x| *x != 0));
            if wrote_read_only || overlaps(&f.writes, &seen_rw) || overlaps(&f.reads, &seen_w) {
                independent = false;
                break;
            }
            union(&mut seen_w, &f.writes);
            union(&mut seen_rw, &f.writes);
            union(&mut seen_rw, &f.reads);
        }
        if !clean || !independent || steps > budget {
            return self.run(budget);
        }
        // Each run's writes on the starting memory, in workgroup order.
        let mut buffers = self.mem.buffers.clone();
        for r in &runs {
            let f = r.footprint.as_deref().expect("a footprint was asked for");
            for (s, words) in f.writes.iter().enumerate() {
                let (Some(dst), Some(src)) = (buffers.get_mut(s), r.mem.buffers.get(s)) else {
                    continue;
                };
                for (i, bits) in words.iter().enumerate() {
                    let mut m = *bits;
                    while m != 0 {
                        let w = i * 64 + m.trailing_zeros() as usize;
                        m &= m - 1;
                        let (lo, hi) = ((w * 4).min(dst.len()), (w * 4 + 4).min(dst.len()));
                        dst[lo..hi].copy_from_slice(&src[lo..hi]);
                    }
                }
            }
        }
        // Each run counted its steps from 0; the serial run counts on through the dispatch.
        let mut printf = crate::printf::PrintfLog::default();
        let mut before = 0;
        for r in &runs {
            printf.append(&r.printf, self.cfg.max_printf_lines, before);
            before += r.stats.steps;
        }
        let mut stats = Stats::default();
        for r in &runs {
            stats.steps += r.stats.steps;
            stats.lane_instructions += r.stats.lane_instructions;
            stats.divergences += r.stats.divergences;
            stats.reconvergences += r.stats.reconvergences;
            stats.workgroups_done += r.stats.workgroups_done;
        }
        // The last run ended where the serial run ends: its final state, with every run's
        // buffers and counts.
        let (cfg, wg_order, log, prog) = (
            self.cfg.clone(),
            std::mem::take(&mut self.wg_order),
            self.mem.log.take(),
            std::sync::Arc::clone(&self.prog),
        );
        *self = runs.into_iter().last().expect("at least two runs");
        self.prog = prog;
        self.mem.buffers = buffers;
        self.mem.log = log;
        self.stats = stats;
        self.printf = printf;
        self.cfg = cfg;
        self.wg_pos = wg_order.len().saturating_sub(1);
        self.wg_order = wg_order;
        self.footprint = None;
        self.threads_used = parts;
        Ok(Outcome::Finished)
    }

    /// How many threads ran the dispatch: 1 unless [`Simulator::run_threads`] ran its
    /// workgroups in parallel.
    pub fn threads_used(&self) -> usize {
        self.threads_used
    }
}
