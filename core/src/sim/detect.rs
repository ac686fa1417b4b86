//! The data-race detector: every access to Workgroup and buffer memory, checked against the
//! earlier accesses to the same bytes for an order the memory model gives, as Lanescope
//! executes it.
//!
//! Orders it knows:
//! - program order within one invocation;
//! - a Workgroup-scope OpControlBarrier orders the workgroup's accesses to Workgroup memory
//!   before it with those after it, and to buffer memory when its memory semantics (or an
//!   OpMemoryBarrier's just before it) include UniformMemory or ImageMemory (images are buffer
//!   memory here);
//! - a Subgroup-scope OpControlBarrier does the same for its subgroup;
//! - nothing orders accesses of different workgroups (to buffer memory) but atomics, and
//!   atomics never race with atomics.
//!
//! Invocations of one subgroup are not ordered by running in lockstep: such races are reported
//! too, marked as relying on lockstep. Each word keeps its last write and up to two reads since
//! (of different invocations), which finds a race whenever one exists between the last write
//! and any later access, and between reads and the next write.

use crate::exec::memory::{Access, AccessKind};
use crate::program::Space;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// UniformMemory in memory semantics.
const UNIFORM_MEMORY: u32 = 0x40;
/// ImageMemory in memory semantics: images live in buffer memory here, so it orders buffer
/// accesses as UniformMemory does (a barrier with only ImageMemory then also orders plain
/// buffer accesses, hiding such a race rather than inventing one).
const IMAGE_MEMORY: u32 = 0x800;

/// Most distinct races reported (each instruction pair once).
const MAX_RACES: usize = 64;
/// Most words tracked; past it, detection stops (with a note) rather than take the memory.
const MAX_WORDS: usize = 8 << 20;
/// Buffer words per page of the detector's table.
const PAGE_BITS: u32 = 6;

/// One access as the detector remembers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rec {
    pub inv: u32,
    pub wg: u32,
    pub sg: u32,
    /// Workgroup barrier epochs (any barrier; barriers ordering buffer memory).
    pub wg_epoch: u32,
    pub buf_epoch: u32,
    pub sg_epoch: u32,
    pub step: u64,
    /// Module instruction index, and the block it is in.
    pub instr: u32,
    pub block: u32,
    pub bytes: u8,
    pub kind: AccessKind,
}

#[derive(Clone, Copy, Debug, Default)]
struct Word {
    write: Option<Rec>,
    reads: [Option<Rec>; 2],
}

/// A found race: the two accesses (earlier first), where, and whether only lockstep execution
/// orders them here.
#[derive(Clone, Debug)]
pub(crate) struct Race {
    pub first: Rec,
    pub second: Rec,
    pub space: Space,
    pub region: u32,
    pub offset: u32,
    pub lockstep: bool,
}

/// A cheap hasher for word keys (the map never reaches any output order).
#[derive(Default)]
pub(crate) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(*b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Detect {
    /// Workgroup memory of the current workgroup, by word (dense: it is small), and the words
    /// touched since the workgroup started (to reset only those).
    shared: Vec<Word>,
    touched: Vec<u32>,
    /// Buffer memory of the whole dispatch, in pages of words found by (storage, page), and
    /// the page the last access found (accesses are mostly near each other).
    page_of: HashMap<u64, usize, BuildHasherDefault<WordHasher>>,
    pages: Vec<Box<[Word; 1 << PAGE_BITS]>>,
    last_page: (u64, usize),
    wg_epoch: u32,
    buf_epoch: u32,
    sg_epoch: Vec<u32>,
    /// UniformMemory semantics seen since the last workgroup barrier (per subgroup: a memory
    /// barrier before the control barrier).
    reported: std::collections::BTreeSet<(u32, u32)>,
    pub races: Vec<Race>,
    /// Set when detection stopped at the word limit.
    pub overflow: bool,
}

impl std::fmt::Debug for WordHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WordHasher")
    }
}

impl Detect {
    /// A new workgroup: its Workgroup memory is new memory, and its barriers start again.
    pub fn start_workgroup(&mut self, subgroups: usize, workgroup_bytes: usize) {
        let words = workgroup_bytes.div_ceil(4);
        if self.shared.len() != words {
            self.shared = vec![Word::default(); words];
        } else {
            for w in self.touched.drain(..) {
                self.shared[w as usize] = Word::default();
            }
        }
        self.touched.clear();
        self.wg_epoch = 0;
        self.buf_epoch = self.buf_epoch.wrapping_add(1);
        self.sg_epoch = vec![0; subgroups];
    }

    /// The step and module instruction of the last write to buffer word `w` of storage
    /// `storage` in this dispatch, when the detector saw one.
    pub fn last_write(&self, storage: u32, w: u32) -> Option<(u64, u32)> {
        let key = (u64::from(storage) << 32) | u64::from(w >> PAGE_BITS);
        let page = self.pages.get(*self.page_of.get(&key)?)?;
        let rec = page[(w & ((1 << PAGE_BITS) - 1)) as usize].write?;
        Some((rec.step, rec.instr))
    }

    /// A Workgroup-scope barrier released the workgroup.
    pub fn workgroup_barrier(&mut self, memory: u32) {
        self.wg_epoch += 1;
        if memory & (UNIFORM_MEMORY | IMAGE_MEMORY) != 0 {
            self.buf_epoch += 1;
        }
        for e in &mut self.sg_epoch {
            *e += 1;
        }
    }

    /// A Subgroup-scope barrier of subgroup `g`.
    pub fn subgroup_barrier(&mut self, g: usize, _memory: u32) {
        if let Some(e) = self.sg_epoch.get_mut(g) {
            *e += 1;
        }
    }

    /// Checks and records the accesses one step made (`first_inv` is lane 0's invocation).
    pub fn accesses(
        &mut self,
        log: &[Access],
        wg: u32,
        s: u32,
        step: u64,
        (block, instr): (u32, u32),
    ) {
        if self.overflow {
            return;
        }
        for a in log {
            let sg = a.inv / s;
            let here = Rec {
                inv: a.inv,
                wg,
                sg,
                wg_epoch: self.wg_epoch,
                buf_epoch: self.buf_epoch,
                sg_epoch: self.sg_epoch.get(sg as usize).copied().unwrap_or(0),
                step,
                instr,
                block,
                bytes: 0,
                kind: a.kind,
            };
            // Each word the access touches, with the bytes of it.
            let first = a.offset / 4;
            let last = (a.offset + u32::from(a.size.max(1)) - 1) / 4;
            for w in first..=last {
                let lo = a.offset.max(w * 4) - w * 4;
                let hi = (a.offset + u32::from(a.size)).min(w * 4 + 4) - w * 4;
                let bytes = ((1u16 << hi) - (1u16 << lo)) as u8;
                let rec = Rec { bytes, ..here };
                self.word(a, w, rec);
            }
        }
    }

    fn word(&mut self, a: &Access, w: u32, rec: Rec) {
        let word = match a.space {
            Space::Workgroup => {
                let Some(word) = self.shared.get_mut(w as usize) else {
                    return;
                };
                if word.write.is_none() && word.reads[0].is_none() {
                    self.touched.push(w);
                }
                word
            }
            _ => {
                let key = (u64::from(a.storage) << 32) | u64::from(w >> PAGE_BITS);
                let page = if self.last_page.0 == key && self.last_page.1 < self.pages.len() {
                    self.last_page.1
                } else {
                    let n = self.pages.len();
                    let at = match self.page_of.entry(key) {
                        std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                        std::collections::hash_map::Entry::Vacant(e) => {
                            if n >= MAX_WORDS >> PAGE_BITS {
                                self.overflow = true;
                                return;
                            }
                            e.insert(n);
                            self.pages.push(Box::new([Word::default(); 1 << PAGE_BITS]));
                            n
                        }
                    };
                    self.last_page = (key, at);
                    at
                };
                &mut self.pages[page][(w & ((1 << PAGE_BITS) - 1)) as usize]
            }
        };
        // At most the last write and two reads race with this access.
        let mut found = [None; 3];
        let writes = rec.kind != AccessKind::Read;
        if let Some(prev) = word.write {
            if let Some(lockstep) = race(&prev, &rec, a.space) {
                found[0] = Some((prev, lockstep));
            }
        }
        if writes {
            for (k, r) in word.reads.iter().enumerate() {
                if let Some(r) = r {
                    if let Some(lockstep) = race(r, &rec, a.space) {
                        found[k + 1] = Some((*r, lockstep));
                    }
                }
            }
            word.write = Some(rec);
            word.reads = [None, None];
        } else {
            // Keep the latest read of up to two invocations.
            match word.reads {
                [Some(r), _] if r.inv == rec.inv && r.wg == rec.wg => word.reads[0] = Some(rec),
                [_, Some(r)] if r.inv == rec.inv && r.wg == rec.wg => word.reads[1] = Some(rec),
                [None, _] => word.reads[0] = Some(rec),
                _ => word.reads[1] = Some(rec),
            }
        }
        for (prev, lockstep) in found.into_iter().flatten() {
            if self.races.len() >= MAX_RACES || !self.reported.insert((prev.instr, rec.instr)) {
                continue;
            }
            self.races.push(Race {
                first: prev,
                second: rec,
                space: a.space,
                region: a.region,
                offset: w * 4 + (rec.bytes & prev.bytes).trailing_zeros(),
                lockstep,
            });
        }
    }
}

impl super::Simulator {
    /// Feeds the race detector the accesses the last step made, and reports new races.
    pub(super) fn check_accesses(&mut self, block: u32, inst: u32) {
        let Some(log) = self.mem.log.as_mut() else {
            return;
        };
        if log.accesses.is_empty() {
            return;
        }
        if let Some(f) = self.footprint.as_mut() {
            f.record(&log.accesses);
        }
        let Some(d) = self.detect.as_mut() else {
            log.accesses.clear();
            return;
        };
        let accesses = std::mem::take(&mut log.accesses);
        let before = d.races.len();
        let instr = self.prog.step_index(block, inst);
        d.accesses(
            &accesses,
            self.wg_linear,
            self.cfg.subgroup_size,
            self.stats.steps,
            (block, instr),
        );
        let new: Vec<Race> = d.races[before..].to_vec();
        // Give the buffer back for the next step (no allocation per step).
        if let Some(log) = self.mem.log.as_mut() {
            log.accesses = accesses;
            log.accesses.clear();
        }
        for r in new {
            self.report_race(&r);
        }
    }

    fn report_race(&mut self, r: &Race) {
        if self.diags.len() >= self.cfg.max_diagnostics {
            return;
        }
        let [nx, ny, _] = self.cfg.workgroups;
        let wg_id = |l: u32| [l % nx, (l / nx) % ny, l / (nx * ny)];
        let kind = |k: AccessKind| match k {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
        };
        let access = |a: &Rec| {
            let src = self.prog.source_ref(a.instr);
            crate::trace::AccessRef {
                invocation: a.inv,
                workgroup: wg_id(a.wg),
                instruction: a.instr,
                file: src.file,
                line: src.line,
                kind: kind(a.kind),
                step: a.step,
            }
        };
        let (first, second) = (access(&r.first), access(&r.second));
        let variable = self.prog.describe_address(r.space, r.region, r.offset);
        let memory = match r.space {
            Space::Workgroup => "Workgroup memory".to_string(),
            _ => self.prog.resources.get(r.region as usize).map_or_else(
                || "a buffer".into(),
                |res| format!("the buffer at set {} binding {}", res.set, res.binding),
            ),
        };
        let place = |a: &crate::trace::AccessRef| match (&a.file, a.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            _ => format!("instruction #{}", a.instruction),
        };
        let who = |a: &crate::trace::AccessRef| {
            if r.first.wg != r.second.wg {
                format!("invocation {} of workgroup {:?}", a.invocation, a.workgroup)
            } else {
                format!("invocation {}", a.invocation)
            }
        };
        let mut message = format!(
            "data race on {} ({memory}, byte {}): {} {}s it at {} (step {}) and {} {}s it at {} (step {}), and nothing orders the two",
            variable.as_deref().unwrap_or("memory"),
            r.offset,
            who(&first),
            first.kind,
            place(&first),
            first.step,
            who(&second),
            second.kind,
            place(&second),
            second.step,
        );
        if r.lockstep {
            message.push_str(" except the lockstep execution of their subgroup, which the memory model does not promise (a subgroup or workgroup barrier orders them)");
        } else if r.first.wg != r.second.wg {
            message.push_str(
                " (workgroups run in no order; only atomics may share memory between them)",
            );
        } else {
            message.push_str(" (a barrier between them would)");
        }
        let s = self.cfg.subgroup_size;
        let g = r.second.sg;
        let lanes: Vec<u32> = [r.first, r.second]
            .iter()
            .filter(|a| a.wg == r.second.wg && a.sg == g)
            .map(|a| a.inv % s)
            .collect();
        let func = self
            .prog
            .blocks
            .get(r.second.block as usize)
            .map_or(0, |b| b.func);
        self.diags.push(crate::trace::Diagnostic {
            code: crate::trace::DiagCode::DataRace,
            message,
            function: self.prog.func_name(func),
            block: self.prog.block_name(r.second.block),
            instruction: r.second.instr,
            workgroup: wg_id(r.second.wg),
            subgroup: g,
            lanes,
            step: r.second.step,
            source: self.prog.source_ref(r.second.instr),
            accesses: vec![first, second],
            address: Some(u64::from(r.offset)),
            variable,
            lockstep: r.lockstep,
            observed: true,
        });
        // A read racing with an earlier write, made by this step's load: its value is
        // followed, and the race stays unobserved unless it reaches an observable use.
        if r.second.kind == AccessKind::Read {
            let k = self.diags.len() - 1;
            if self.uninit_track_race(k, r.second.inv, r.second.block, r.second.instr) {
                self.diags[k].observed = false;
            }
        }
    }
}

/// Whether `a` (earlier) and `b` race: `Some(lockstep)` when nothing orders them (`lockstep`:
/// they are in one subgroup, where only lockstep execution orders them here).
fn race(a: &Rec, b: &Rec, space: Space) -> Option<bool> {
    if (a.inv, a.wg) == (b.inv, b.wg) || a.bytes & b.bytes == 0 {
        return None;
    }
    let atomic = |r: &Rec| r.kind == AccessKind::Atomic;
    if atomic(a) && atomic(b) {
        return None;
    }
    if a.kind == AccessKind::Read && b.kind == AccessKind::Read {
        return None;
    }
    let same_sg = a.wg == b.wg && a.sg == b.sg;
    match space {
        Space::Workgroup => {
            if a.wg_epoch != b.wg_epoch || (same_sg && a.sg_epoch != b.sg_epoch) {
                return None;
            }
        }
        _ => {
            if a.wg != b.wg {
                return Some(false);
            }
            if a.buf_epoch != b.buf_epoch || (same_sg && a.sg_epoch != b.sg_epoch) {
                return None;
            }
        }
    }
    Some(same_sg)
}
