//! The data-race detector: every access to Workgroup and buffer memory, checked against the
//! earlier accesses to the same bytes for an order the memory model gives, as Lanescope
//! executes it.
//!
//! Orders it knows (the Vulkan memory model's happens-before, for the barriers a compute
//! shader has):
//! - program order within one invocation;
//! - an OpControlBarrier orders the accesses of the invocations of its execution scope (the
//!   workgroup, or the subgroup) to one memory before it with those after it only when its
//!   semantics (or an OpMemoryBarrier's just before it) carry both that memory's storage class
//!   bit (WorkgroupMemory for Workgroup memory; UniformMemory or ImageMemory for buffers and
//!   images, which are buffer memory here) and Acquire and Release (AcquireRelease, or
//!   SequentiallyConsistent, which Vulkan takes as AcquireRelease). Without them the invocations
//!   wait for each other but their accesses stay unordered: a release barrier synchronizes with
//!   an acquire barrier through a control barrier, and both must name the storage class. A
//!   race across such a barrier names it and what it lacked;
//! - nothing orders accesses of different workgroups (to buffer memory) but atomics, and
//!   atomics never race with atomics.
//!
//! Invocations of one subgroup are not ordered by running in lockstep: such races are reported
//! too, marked as relying on lockstep.
//!
//! What each byte remembers. Within a workgroup, access `E` happens before a later `X` exactly
//! when they are of one invocation, or of one subgroup with an ordering barrier reaching that
//! subgroup between them (`sg_ord` differs), or of two subgroups with an ordering workgroup
//! barrier between them (`wg_ord` differs); accesses of two workgroups are never ordered. These
//! epochs only grow, so the order is transitive. Per byte and per kind of access (read, write,
//! atomic read, atomic write: which pairs conflict depends only on the kinds), a new access `N`
//! keeps itself and at most one earlier record, and that suffices: whenever a future access
//! `X` races with any record of that kind ever made, it races with a kept one. By induction it
//! is enough that {kept} represents {earlier kept} + `N`; the one kept beside `N` is the latest
//! of the first of:
//! 1. a record of another (finished) workgroup: every future access is of another workgroup
//!    than it, so it races with every future conflicting access;
//! 2. a record of `N`'s workgroup and workgroup epoch in another subgroup: a future `X` of
//!    `N`'s subgroup races with it, one of another subgroup with `N` (until an ordering
//!    workgroup barrier, after which nothing of this workgroup races with either, and later
//!    workgroups race with `N`);
//! 3. a record of `N`'s subgroup and subgroup epoch by another invocation: what else is left is
//!    older epochs (ordered before every future access of this workgroup, and racing with later
//!    workgroups only, as `N` does), the same invocation as `N` (racing with a subset of what
//!    `N` races with), or records of `N`'s subgroup ordered before its future accesses (racing
//!    only with other subgroups, as `N` does); a future `X` of `N`'s subgroup in this epoch
//!    races with `N` unless it is `N`'s invocation, and then with this one.
//!
//! A plain write that raced with nothing replaces every record of its bytes: each earlier
//! access then happened before it, so a future access racing with one of them is not ordered
//! after the write and races with it (a plain write conflicts with every kind). So a byte holds
//! at most two records per kind, a word at most 32 (one or two in practice).
//!
//! How records are kept. What every access of one step shares (workgroup, subgroup, barrier
//! epochs, step and instruction) is kept once, as a context in a table that is compacted when
//! it grows; a record names its context by index, so it is 8 bytes and a word keeps up to three
//! inline. A word whose records cover exactly the new access's bytes, and that finds no race
//! to report (a race of an instruction pair reported before is none: each pair is reported
//! once), is decided in place (tested against the general path). A step's accesses of one
//! memory, kind and size, one per lane (a load or store whose lanes point into one memory),
//! share their context, kind and unit, found once for the step.
//!
//! A "word" is a unit of 4 bytes, but of Workgroup memory whose scalars are mostly 16- or 8-bit
//! it is a unit of 2 or 1 bytes: a 16-bit array's element then has records of its own (a write
//! and the two reads kept, decided in place) instead of sharing them with its neighbour (4 to 6
//! records, past the in-place path). Nothing found depends on the unit (tested).

use crate::exec::memory::{Access, AccessKind};
use crate::program::Space;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Memory semantics bits.
const ACQUIRE: u32 = 0x2;
const RELEASE: u32 = 0x4;
const ACQUIRE_RELEASE: u32 = 0x8;
const SEQUENTIALLY_CONSISTENT: u32 = 0x10;
const UNIFORM_MEMORY: u32 = 0x40;
const WORKGROUP_MEMORY: u32 = 0x100;
/// ImageMemory: images live in buffer memory here, so it orders buffer accesses as
/// UniformMemory does (a barrier with only ImageMemory then also orders plain buffer accesses,
/// hiding such a race rather than inventing one).
const IMAGE_MEMORY: u32 = 0x800;

/// The memories ordered separately, by index: Workgroup memory, buffer (and image) memory; and
/// the storage class semantics that order each.
pub(super) const SHARED: usize = 0;
const BUFFER: usize = 1;
const CLASS_BITS: [u32; 2] = [WORKGROUP_MEMORY, UNIFORM_MEMORY | IMAGE_MEMORY];

pub(super) fn class_of(space: Space) -> usize {
    if space == Space::Workgroup {
        SHARED
    } else {
        BUFFER
    }
}

/// What barrier semantics `memory` lack to order memory class `c`: bit 0 its storage class,
/// bit 1 Acquire, bit 2 Release (0: they order it).
pub(super) fn lacks(memory: u32, c: usize) -> u8 {
    let both = memory & (ACQUIRE_RELEASE | SEQUENTIALLY_CONSISTENT) != 0;
    let mut l = 0;
    if memory & CLASS_BITS[c] == 0 {
        l |= 1;
    }
    if !both && memory & ACQUIRE == 0 {
        l |= 2;
    }
    if !both && memory & RELEASE == 0 {
        l |= 4;
    }
    l
}

/// Most distinct races reported (each instruction pair once).
const MAX_RACES: usize = 64;
/// Most words tracked; past it, detection stops (with a note) rather than take the memory.
const MAX_WORDS: usize = 8 << 20;
/// Buffer words below this index are kept in a vector per storage; those past it, in pages.
const DENSE_WORDS: u32 = 1 << 18;
/// The fewest words a storage's vector is grown to at its first access.
const MIN_DENSE: usize = 1 << 10;
/// Most units of Workgroup memory kept in units of less than 4 bytes (a GPU's is at most some
/// hundreds of KiB).
const SMALL_UNITS_MAX: usize = 1 << 20;
/// Buffer words per page of the detector's table.
const PAGE_BITS: u32 = 6;

/// What an access did: atomics are told apart by whether they wrote (an atomic load, or a
/// compare-exchange that failed, only reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    // (the values a record packs)
    Read = 0,
    Write = 1,
    AtomicRead = 2,
    AtomicWrite = 3,
}

impl Kind {
    pub(super) fn writes(self) -> bool {
        matches!(self, Kind::Write | Kind::AtomicWrite)
    }
    pub(super) fn atomic(self) -> bool {
        matches!(self, Kind::AtomicRead | Kind::AtomicWrite)
    }
}

/// Whether accesses of kinds `a` and `b` to one byte race when nothing orders them.
fn conflict(a: Kind, b: Kind) -> bool {
    (a.writes() || b.writes()) && !(a.atomic() && b.atomic())
}

/// One access as the detector reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rec {
    pub inv: u32,
    pub wg: u32,
    pub sg: u32,
    /// Barriers so far in its workgroup that order its memory: workgroup barriers, and those
    /// (of either scope) reaching its subgroup.
    pub wg_ord: u32,
    pub sg_ord: u32,
    /// Control barriers so far, whatever their semantics (to name one that did not order).
    pub wg_ctl: u32,
    pub sg_ctl: u32,
    pub step: u64,
    /// Module instruction index, and the block it is in.
    pub instr: u32,
    pub block: u32,
    pub bytes: u8,
    pub kind: Kind,
}

mod keep;
mod memo;
mod records;
mod run;
#[cfg(test)]
mod tests;

use keep::{decide_inline, keep_scanned, one_beside, scan};
use memo::{give_way, write_in_place};
use records::{AtomicMemo, Ctx, Ctxs, Memo, Pair, Slot, Word, MIN_CTXS};

/// A control barrier that did not order a memory: its module instruction index and semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gap {
    pub instr: u32,
    pub memory: u32,
}

/// A found race: the two accesses (earlier first), where, whether only lockstep execution
/// orders them here, and the barrier between them that did not order this memory.
#[derive(Clone, Debug)]
pub(crate) struct Race {
    pub first: Rec,
    pub second: Rec,
    pub space: Space,
    pub region: u32,
    pub offset: u32,
    pub lockstep: bool,
    pub unordered_by: Option<Gap>,
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
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
}

/// The instruction pairs reported: looked up by the in-place decision of a step's first lane
/// (so a hash set, not an ordered one: nothing iterates it).
pub(super) type Reported = std::collections::HashSet<Pair, BuildHasherDefault<WordHasher>>;

#[derive(Clone, Debug, Default)]
pub(crate) struct Detect {
    /// Workgroup memory of the current workgroup, by unit (dense: it is small), and the units
    /// touched since the workgroup started (to reset only those).
    shared: Vec<Word>,
    touched: Vec<u32>,
    /// Log2 of the bytes a `shared` word (a unit) holds: the size of the scalars most of the
    /// module's Workgroup memory is in (a 16-bit array's element then has records of its own,
    /// as a 32-bit array's does).
    shared_shift: u32,
    /// Buffer memory of the whole dispatch, in pages of words found by (storage, page), and
    /// the page the last access found (accesses are mostly near each other).
    page_of: HashMap<u64, usize, BuildHasherDefault<WordHasher>>,
    /// The first `DENSE_WORDS` words of each storage, by index (grown as touched): no lookup.
    dense: Vec<Vec<Word>>,
    pages: Vec<[Word; 1 << PAGE_BITS]>,
    last_page: (u64, usize),
    /// Epochs of the current workgroup: control barriers of the workgroup and reaching each
    /// subgroup, and per memory class those that ordered it.
    wg_ctl: u32,
    sg_ctl: Vec<u32>,
    wg_ord: [u32; 2],
    sg_ord: [Vec<u32>; 2],
    /// Per memory class, the last control barrier of the workgroup, and the last reaching each
    /// subgroup, that did not order it.
    wg_gap: [Option<Gap>; 2],
    sg_gap: [Vec<Option<Gap>>; 2],
    /// The contexts records name, and the count past which they are compacted.
    ctxs: Ctxs,
    compact_at: usize,
    /// Takes the general path for every word (the in-place one is tested against it).
    #[cfg(test)]
    general: bool,
    /// Words the in-place path decided.
    #[cfg(test)]
    in_place: usize,
    reported: Reported,
    /// The pair last found in `reported` or put there: the lanes of one instruction race with
    /// the same earlier instruction one after another, and a look in the set costs more.
    last_reported: Option<(u32, u32)>,
    /// Two contexts whose instructions are the pair last reported.
    last_ctxs: Option<(u32, u32)>,
    /// The step's last in-place decision, and the records it was for.
    memo: Option<(Memo, u8)>,
    /// The step's last decision for an atomic read and for an atomic write on a word only
    /// whole-word atomics touched: a step's lanes on one counter find it lane after lane.
    atomic_memo: [Option<AtomicMemo>; 2],
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
    /// `unit`: the bytes a record of Workgroup memory covers at most (1, 2 or 4).
    pub fn start_workgroup(&mut self, subgroups: usize, workgroup_bytes: usize, unit: u8) {
        self.ctxs.wg_base = self.ctxs.all.len() as u32;
        let shift = u32::from(unit.clamp(1, 4)).ilog2();
        // (units of a byte or two only where they are few: each takes a word's 32 bytes)
        let shift = if workgroup_bytes >> shift > SMALL_UNITS_MAX {
            2
        } else {
            shift
        };
        let words = workgroup_bytes.div_ceil(1 << shift);
        if self.shared.len() != words || self.shared_shift != shift {
            self.shared_shift = shift;
            self.shared = vec![Word::new(); words];
        } else {
            for w in self.touched.drain(..) {
                self.shared[w as usize].clear();
            }
        }
        self.touched.clear();
        // (the per-subgroup epochs are refilled, not made anew: a workgroup's allocations
        // showed in short runs' profiles)
        let fill = |v: &mut Vec<u32>| {
            v.clear();
            v.resize(subgroups, 0);
        };
        self.wg_ctl = 0;
        fill(&mut self.sg_ctl);
        self.wg_ord = [0; 2];
        self.sg_ord.iter_mut().for_each(fill);
        self.wg_gap = [None; 2];
        for v in &mut self.sg_gap {
            v.clear();
            v.resize(subgroups, None);
        }
    }

    /// Log2 of the bytes a word of memory class `c` holds: Workgroup memory's records are of
    /// units of the module's own scalar size, buffers' of 4 bytes.
    #[inline(always)]
    fn unit_shift(&self, c: usize) -> u32 {
        if c == SHARED {
            self.shared_shift
        } else {
            2
        }
    }

    /// The step and module instruction of the last write to buffer word `w` of storage
    /// `storage` in this dispatch, when the detector saw one.
    pub fn last_write(&self, storage: u32, w: u32) -> Option<(u64, u32)> {
        let word = if w < DENSE_WORDS {
            self.dense.get(storage as usize)?.get(w as usize)?
        } else {
            let key = (u64::from(storage) << 32) | u64::from(w >> PAGE_BITS);
            let page = self.pages.get(*self.page_of.get(&key)?)?;
            &page[(w & ((1 << PAGE_BITS) - 1)) as usize]
        };
        word.iter()
            .filter(|r| r.kind().writes())
            .map(|r| self.ctxs.all[r.ctx as usize])
            .max_by_key(|c| c.step)
            .map(|c| (c.step, c.instr))
    }

    /// A Workgroup-scope control barrier (module instruction `instr`, semantics `memory`)
    /// released the workgroup.
    pub fn workgroup_barrier(&mut self, memory: u32, instr: u32) {
        self.wg_ctl = self.wg_ctl.wrapping_add(1);
        for e in &mut self.sg_ctl {
            *e = e.wrapping_add(1);
        }
        for c in [SHARED, BUFFER] {
            if lacks(memory, c) == 0 {
                self.wg_ord[c] = self.wg_ord[c].wrapping_add(1);
                for e in &mut self.sg_ord[c] {
                    *e = e.wrapping_add(1);
                }
            } else {
                let gap = Some(Gap { instr, memory });
                self.wg_gap[c] = gap;
                self.sg_gap[c].fill(gap);
            }
        }
    }

    /// A Subgroup-scope control barrier of subgroup `g`.
    pub fn subgroup_barrier(&mut self, g: usize, memory: u32, instr: u32) {
        if let Some(e) = self.sg_ctl.get_mut(g) {
            *e = e.wrapping_add(1);
        }
        for c in [SHARED, BUFFER] {
            if lacks(memory, c) == 0 {
                if let Some(e) = self.sg_ord[c].get_mut(g) {
                    *e = e.wrapping_add(1);
                }
            } else if let Some(x) = self.sg_gap[c].get_mut(g) {
                *x = Some(Gap { instr, memory });
            }
        }
    }

    /// The step's bookkeeping before its accesses: the context table compacted when due, and
    /// the last step's memo forgotten. False: detection has stopped.
    fn begin_step(&mut self) -> bool {
        if self.overflow {
            return false;
        }
        if self.ctxs.all.len() >= self.compact_at.max(MIN_CTXS) {
            self.compact();
        }
        self.memo = None;
        self.atomic_memo = [None; 2];
        true
    }

    /// Checks and records the accesses one step made (see [`Detect::run`] for a run).
    pub fn accesses(
        &mut self,
        log: &[Access],
        wg: u32,
        s: u32,
        step: u64,
        (block, instr): (u32, u32),
    ) {
        if !self.begin_step() {
            return;
        }
        // (a division per access showed in profiles; subgroup sizes are powers of two)
        let sg_shift = s.is_power_of_two().then(|| s.trailing_zeros());
        let sg_of = |inv: u32| sg_shift.map_or_else(|| inv / s.max(1), |k| inv >> k);
        // The step's context per memory class (made at its first access) and its subgroup.
        let mut cur: [Option<(u32, u32)>; 2] = [None; 2];
        // The access an atomic instruction read, waiting for its write: an atomic logs its
        // read of the bytes, then (when it stores) its write of them by the same invocation.
        let mut atomic_read: Option<&Access> = None;
        for a in log {
            let kind = match a.kind {
                AccessKind::Read => Kind::Read,
                AccessKind::Write => Kind::Write,
                AccessKind::Atomic => {
                    let same = |p: &&Access| {
                        (p.space, p.storage, p.offset, p.size, p.inv)
                            == (a.space, a.storage, a.offset, a.size, a.inv)
                    };
                    if atomic_read.is_some_and(|p| same(&p)) {
                        Kind::AtomicWrite
                    } else {
                        Kind::AtomicRead
                    }
                }
            };
            atomic_read = (kind == Kind::AtomicRead).then_some(a);
            let sg = sg_of(a.inv);
            let c = class_of(a.space);
            // (a step's lanes are of one subgroup; another subgroup's access, were there one,
            // gets a context of its own)
            let ctx = match cur[c] {
                Some((k, g)) if g == sg => k,
                _ => {
                    let k = self.new_ctx(c, wg, sg, step, (block, instr));
                    cur[c] = Some((k, sg));
                    k
                }
            };
            let shift = self.unit_shift(c);
            let unit = 1 << shift;
            if u32::from(a.size) == unit && a.offset & (unit - 1) == 0 {
                let slot = Slot::new(ctx, a.inv, ((1u32 << unit) - 1) as u8, kind);
                if !self.word_again(a, a.offset >> shift, slot) {
                    self.word(a, a.offset >> shift, slot);
                }
                continue;
            }
            self.units(a, ctx, kind, shift);
        }
    }

    /// Access `a` (of context `ctx` and kind `kind`) in each unit it touches, with the bytes
    /// of it: a unit of `1 << shift` bytes it does not fill, or more than one.
    fn units(&mut self, a: &Access, ctx: u32, kind: Kind, shift: u32) {
        let first = a.offset >> shift;
        let last = (a.offset + u32::from(a.size.max(1)) - 1) >> shift;
        for w in first..=last {
            let lo = a.offset.max(w << shift) - (w << shift);
            let hi = (a.offset + u32::from(a.size)).min((w + 1) << shift) - (w << shift);
            let bytes = ((1u16 << hi) - (1u16 << lo)) as u8;
            let slot = Slot::new(ctx, a.inv, bytes, kind);
            self.word(a, w, slot);
        }
    }

    fn new_ctx(
        &mut self,
        c: usize,
        wg: u32,
        sg: u32,
        step: u64,
        (block, instr): (u32, u32),
    ) -> u32 {
        let at = |v: &Vec<u32>| v.get(sg as usize).copied().unwrap_or(0);
        if self.ctxs.all.capacity() == 0 {
            // (a step makes one: from one context up, the table's growth showed in profiles)
            self.ctxs.all.reserve(1 << 10);
        }
        self.ctxs.all.push(Ctx {
            wg,
            sg,
            wg_ord: self.wg_ord[c],
            sg_ord: at(&self.sg_ord[c]),
            wg_ctl: self.wg_ctl,
            sg_ctl: at(&self.sg_ctl),
            step,
            instr,
            block,
        });
        (self.ctxs.all.len() - 1) as u32
    }

    /// Keeps only the contexts some record names (in order, so those of finished workgroups
    /// stay below `wg_base`), and leaves room for as many again.
    fn compact(&mut self) {
        let n = self.ctxs.all.len();
        let mut map = vec![u32::MAX; n];
        let words = (self.shared.iter())
            .chain(self.dense.iter().flatten())
            .chain(self.pages.iter().flatten());
        for s in words.flat_map(|w| w.iter()) {
            map[s.ctx as usize] = 0;
        }
        let mut kept = 0u32;
        let mut base = self.ctxs.wg_base;
        for (k, m) in map.iter_mut().enumerate() {
            if *m == 0 {
                self.ctxs.all[kept as usize] = self.ctxs.all[k];
                *m = kept;
                kept += 1;
            } else if (k as u32) < self.ctxs.wg_base {
                base -= 1;
            }
        }
        self.ctxs.all.truncate(kept as usize);
        self.ctxs.wg_base = base;
        let words = (self.shared.iter_mut())
            .chain(self.dense.iter_mut().flatten())
            .chain(self.pages.iter_mut().flatten());
        for s in words.flat_map(|w| w.iter_mut()) {
            s.ctx = map[s.ctx as usize];
        }
        self.compact_at = 2 * self.ctxs.all.len();
        self.last_ctxs = None;
    }

    #[inline(never)]
    fn word(&mut self, a: &Access, w: u32, n: Slot) {
        let word = match a.space {
            Space::Workgroup => {
                let Some(word) = self.shared.get_mut(w as usize) else {
                    return;
                };
                if word.is_empty() {
                    self.touched.push(w);
                }
                word
            }
            _ if w < DENSE_WORDS => {
                let st = a.storage as usize;
                if st >= self.dense.len() {
                    self.dense.resize_with(st + 1, Vec::new);
                }
                let v = &mut self.dense[st];
                if w as usize >= v.len() {
                    // (from a few pages up: growing word by word doubled showed in profiles)
                    let len = (w as usize + 1)
                        .max(2 * v.len())
                        .max(MIN_DENSE)
                        .min(DENSE_WORDS as usize);
                    v.resize_with(len, Word::new);
                }
                &mut v[w as usize]
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
                            self.pages.push(std::array::from_fn(|_| Word::new()));
                            n
                        }
                    };
                    self.last_page = (key, at);
                    at
                };
                &mut self.pages[page][(w & ((1 << PAGE_BITS) - 1)) as usize]
            }
        };
        // The common case, decided in place: a word of at most three records (inline), each of
        // the new access's bytes, none racing with it but the pair last reported.
        #[cfg(test)]
        let general = self.general;
        #[cfg(not(test))]
        let general = false;
        if let (Word::Inline(len_ref, recs), false) = (&mut *word, general) {
            let len = usize::from(*len_ref);
            // Lanes of one step mostly find words of the same records (by context, kind,
            // bytes, and whether of the lane's own invocation): the last decision is reused.
            let stays = match self.memo {
                Some((m, stays)) if m.holds(&recs[..len], &n) => Some(stays),
                _ => {
                    let full = self.races.len() >= MAX_RACES;
                    let last = (self.last_ctxs, self.last_reported);
                    let stays =
                        decide_inline(&recs[..len], &n, &self.ctxs, full, last, &self.reported);
                    self.memo = stays.and_then(|s| Some((Memo::of(&recs[..len], &n)?, s)));
                    stays
                }
            };
            if let Some(stays) = stays {
                write_in_place(len_ref, recs, n, stays);
                #[cfg(test)]
                {
                    self.in_place += 1;
                }
                return;
            }
        }
        // An atomic on a word only atomics of its bytes touched (a counter's, a histogram
        // bin's): atomics never race with atomics, and of its kind the record the notes keep
        // beside it stays (what the general path decides for it, without the scan).
        let whole_atomic = |r: &Slot| r.kind().atomic() && r.bytes() == n.bytes();
        if !general && n.bytes() == 0xf && whole_atomic(&n) {
            let at = usize::from(n.kind() == Kind::AtomicWrite);
            // (the step's lanes on one counter find records of the same keys lane after lane:
            // the last decision of the kind is reused; borrowed: a copy of the memo per access
            // showed in profiles)
            if let Some(m) = self.atomic_memo[at]
                .as_ref()
                .filter(|m| m.keys.holds(word, &n))
            {
                m.apply(word, n);
                return;
            }
            if word.len() <= 64 && word.iter().all(whole_atomic) {
                let cover = (word.iter().enumerate())
                    .filter(|(_, r)| r.kind() == n.kind())
                    .fold(0u64, |m, (k, _)| m | 1 << k);
                let kept = one_beside(word, cover, &n, &self.ctxs);
                let drop = cover & !kept.map_or(0, |k| 1 << k);
                match AtomicMemo::of(word, &n, drop) {
                    Some(m) => {
                        m.apply(word, n);
                        self.atomic_memo[at] = Some(m);
                    }
                    None => give_way(word, drop, n),
                }
                return;
            }
        }
        self.memo = None;
        // Every kept record this access races with (a few at most: two per kind and byte).
        let mut found = [None; 8];
        let mut count = 0;
        let sc = scan(word, &n, &self.ctxs);
        if sc.races != 0 && self.races.len() < MAX_RACES {
            // A race with the pair last reported (the lanes of one instruction find the same
            // one word after word) is not collected: it would be dropped.
            let mut m = sc.races;
            while m != 0 && count < found.len() {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                let r = word[k];
                if self.last_ctxs == Some((r.ctx, n.ctx)) {
                    continue;
                }
                let instr = |s: &Slot| self.ctxs.all[s.ctx as usize].instr;
                if self.last_reported == Some((instr(&r), instr(&n))) {
                    self.last_ctxs = Some((r.ctx, n.ctx));
                    continue;
                }
                found[count] = Some((r, sc.lockstep & (1 << k) != 0));
                count += 1;
            }
        }
        keep_scanned(word, n, &sc, &self.ctxs);
        let c = class_of(a.space);
        let shift = self.unit_shift(c);
        for &(prev, lockstep) in found[..count].iter().flatten() {
            let (prev, rec) = (self.ctxs.rec(&prev), self.ctxs.rec(&n));
            let pair = (prev.instr, rec.instr);
            if self.races.len() >= MAX_RACES || self.last_reported == Some(pair) {
                continue;
            }
            self.last_reported = Some(pair);
            self.last_ctxs = None;
            if !self.reported.insert(pair) {
                continue;
            }
            let unordered_by = self.gap(c, &prev, &rec);
            self.races.push(Race {
                first: prev,
                second: rec,
                space: a.space,
                region: a.region,
                offset: (w << shift) + (rec.bytes & prev.bytes).trailing_zeros(),
                lockstep,
                unordered_by,
            });
        }
    }

    /// The control barrier that separated racing `a` and `b` (of memory class `c`, `b` now)
    /// without ordering them, if one did: the last one reaching them that did not order the
    /// class (every one since `a` did not, or the order epochs would differ).
    fn gap(&self, c: usize, a: &Rec, b: &Rec) -> Option<Gap> {
        if a.wg != b.wg {
            None
        } else if a.sg == b.sg {
            (a.sg_ctl != b.sg_ctl)
                .then(|| self.sg_gap[c].get(b.sg as usize).copied().flatten())
                .flatten()
        } else {
            (a.wg_ctl != b.wg_ctl).then_some(self.wg_gap[c]).flatten()
        }
    }
}
