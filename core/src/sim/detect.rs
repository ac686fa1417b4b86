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
//! to report, is decided in place (tested against the general path).

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
/// Buffer words per page of the detector's table.
const PAGE_BITS: u32 = 6;

/// What an access did: atomics are told apart by whether they wrote (an atomic load, or a
/// compare-exchange that failed, only reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Read,
    Write,
    AtomicRead,
    AtomicWrite,
}

impl Kind {
    pub(super) fn writes(self) -> bool {
        matches!(self, Kind::Write | Kind::AtomicWrite)
    }
    fn atomic(self) -> bool {
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

/// What every access of one step to one memory class shares: a word's records name it by
/// index instead of carrying it (a record is then 8 bytes, not 48, and two records of one
/// step are told to be in one context by comparing two indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ctx {
    wg: u32,
    sg: u32,
    wg_ord: u32,
    sg_ord: u32,
    wg_ctl: u32,
    sg_ctl: u32,
    step: u64,
    instr: u32,
    block: u32,
}

/// One access as a word keeps it: its step's context, and packed in one word its invocation
/// (below 2^20, `HARD_MAX_INVOCATIONS`), bytes and kind (8 bytes, moved as one register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    ctx: u32,
    meta: u32,
}

impl Slot {
    fn new(ctx: u32, inv: u32, bytes: u8, kind: Kind) -> Self {
        debug_assert!(inv < crate::lanes::HARD_MAX_INVOCATIONS);
        let kind = match kind {
            Kind::Read => 0,
            Kind::Write => 1,
            Kind::AtomicRead => 2,
            Kind::AtomicWrite => 3,
        };
        Slot {
            ctx,
            meta: (inv & 0xf_ffff) | u32::from(bytes & 0xf) << 20 | kind << 24,
        }
    }
    fn inv(&self) -> u32 {
        self.meta & 0xf_ffff
    }
    fn bytes(&self) -> u8 {
        (self.meta >> 20) as u8 & 0xf
    }
    fn set_bytes(&mut self, bytes: u8) {
        self.meta = (self.meta & !(0xf << 20)) | u32::from(bytes & 0xf) << 20;
    }
    fn kind(&self) -> Kind {
        [Kind::Read, Kind::Write, Kind::AtomicRead, Kind::AtomicWrite]
            [(self.meta >> 24) as usize & 3]
    }
}

/// The records of one word (see the module's notes on which are kept): one or two in
/// practice, up to three kept inline (no allocation; the word is 32 bytes).
#[derive(Clone, Debug)]
enum Word {
    Inline(u8, [Slot; 3]),
    Heap(Vec<Slot>),
}

const NO_SLOT: Slot = Slot { ctx: 0, meta: 0 };

impl Default for Word {
    fn default() -> Self {
        Word::Inline(0, [NO_SLOT; 3])
    }
}

impl PartialEq for Word {
    fn eq(&self, o: &Self) -> bool {
        **self == **o
    }
}

impl std::ops::Deref for Word {
    type Target = [Slot];
    fn deref(&self) -> &[Slot] {
        match self {
            Word::Inline(n, s) => &s[..usize::from(*n)],
            Word::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for Word {
    fn deref_mut(&mut self) -> &mut [Slot] {
        match self {
            Word::Inline(n, s) => &mut s[..usize::from(*n)],
            Word::Heap(v) => v,
        }
    }
}

impl Word {
    fn new() -> Self {
        Self::default()
    }

    fn clear(&mut self) {
        match self {
            Word::Inline(n, _) => *n = 0,
            Word::Heap(v) => v.clear(),
        }
    }

    fn push(&mut self, s: Slot) {
        match self {
            Word::Inline(n, a) if *n < 3 => {
                a[usize::from(*n)] = s;
                *n += 1;
            }
            Word::Inline(_, a) => {
                let mut v = Vec::with_capacity(4);
                v.extend_from_slice(a);
                v.push(s);
                *self = Word::Heap(v);
            }
            Word::Heap(v) => v.push(s),
        }
    }

    /// Keeps the records whose bit is set in `keep`.
    fn retain_bits(&mut self, keep: u64) {
        let mut k = 0;
        self.retain(|_| {
            k += 1;
            keep & (1 << (k - 1)) != 0
        });
    }

    fn retain(&mut self, mut f: impl FnMut(&Slot) -> bool) {
        match self {
            Word::Inline(n, a) => {
                let mut k = 0;
                for i in 0..usize::from(*n) {
                    if f(&a[i]) {
                        a[k] = a[i];
                        k += 1;
                    }
                }
                *n = k as u8;
            }
            Word::Heap(v) => v.retain(f),
        }
    }
}

#[cfg(test)]
impl FromIterator<Slot> for Word {
    fn from_iter<I: IntoIterator<Item = Slot>>(it: I) -> Self {
        let mut w = Word::new();
        for s in it {
            w.push(s);
        }
        w
    }
}

/// The contexts records name. Contexts are made in order and workgroups run one after
/// another, so every context below `wg_base` is of a finished workgroup.
#[derive(Clone, Debug, Default)]
struct Ctxs {
    all: Vec<Ctx>,
    wg_base: u32,
}

/// How a kept record stands to a new access (of the current workgroup).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rel {
    /// Of a finished workgroup.
    OtherWg,
    /// Of this workgroup: whether of the same subgroup, and whether no barrier ordering the
    /// memory lies between them for the workgroup and for the subgroup.
    SameWg {
        same_sg: bool,
        wg_ord: bool,
        sg_ord: bool,
    },
}

impl Ctxs {
    fn rel(&self, r: &Slot, n: &Slot) -> Rel {
        if r.ctx == n.ctx {
            return Rel::SameWg {
                same_sg: true,
                wg_ord: true,
                sg_ord: true,
            };
        }
        if r.ctx < self.wg_base {
            return Rel::OtherWg;
        }
        let (a, b) = (&self.all[r.ctx as usize], &self.all[n.ctx as usize]);
        if a.wg != b.wg {
            return Rel::OtherWg;
        }
        Rel::SameWg {
            same_sg: a.sg == b.sg,
            wg_ord: a.wg_ord == b.wg_ord,
            sg_ord: a.sg_ord == b.sg_ord,
        }
    }

    fn rec(&self, s: &Slot) -> Rec {
        let c = &self.all[s.ctx as usize];
        Rec {
            inv: s.inv(),
            wg: c.wg,
            sg: c.sg,
            wg_ord: c.wg_ord,
            sg_ord: c.sg_ord,
            wg_ctl: c.wg_ctl,
            sg_ctl: c.sg_ctl,
            step: c.step,
            instr: c.instr,
            block: c.block,
            bytes: s.bytes(),
            kind: s.kind(),
        }
    }
}

/// Two contexts, or two instructions, of a race.
type Pair = (u32, u32);

/// What an in-place decision depends on: the new access (context, bytes, kind) and the word's
/// records (context, bytes, kind, and whether of the new access's invocation), packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Memo {
    n: u64,
    len: u8,
    recs: [u64; 2],
}

/// Contexts kept before the first compaction, and the least room a compaction leaves.
const MIN_CTXS: usize = 1 << 14;

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
    reported: std::collections::BTreeSet<(u32, u32)>,
    /// The pair last found in `reported` or put there: the lanes of one instruction race with
    /// the same earlier instruction one after another, and a look in the set costs more.
    last_reported: Option<(u32, u32)>,
    /// Two contexts whose instructions are the pair last reported.
    last_ctxs: Option<(u32, u32)>,
    /// The step's last in-place decision, and the records it was for.
    memo: Option<(Memo, u8)>,
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
        self.ctxs.wg_base = self.ctxs.all.len() as u32;
        let words = workgroup_bytes.div_ceil(4);
        if self.shared.len() != words {
            self.shared = vec![Word::new(); words];
        } else {
            for w in self.touched.drain(..) {
                self.shared[w as usize].clear();
            }
        }
        self.touched.clear();
        self.wg_ctl = 0;
        self.sg_ctl = vec![0; subgroups];
        self.wg_ord = [0; 2];
        self.sg_ord = [vec![0; subgroups], vec![0; subgroups]];
        self.wg_gap = [None; 2];
        self.sg_gap = [vec![None; subgroups], vec![None; subgroups]];
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

    /// Checks and records the accesses one step made.
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
        if self.ctxs.all.len() >= self.compact_at.max(MIN_CTXS) {
            self.compact();
        }
        self.memo = None;
        // The step's context per memory class (made at its first access) and its subgroup.
        let mut cur: [Option<(u32, u32)>; 2] = [None; 2];
        // The access an atomic instruction read, waiting for its write: an atomic logs its
        // read of the bytes, then (when it stores) its write of them by the same invocation.
        let mut atomic_read: Option<&Access> = None;
        // (a division per access showed in profiles; subgroup sizes are powers of two)
        let shift = s.is_power_of_two().then(|| s.trailing_zeros());
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
            let sg = shift.map_or_else(|| a.inv / s.max(1), |k| a.inv >> k);
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
            if a.size == 4 && a.offset % 4 == 0 {
                let slot = Slot::new(ctx, a.inv, 0xf, kind);
                self.word(a, a.offset / 4, slot);
                continue;
            }
            // Each word the access touches, with the bytes of it.
            let first = a.offset / 4;
            let last = (a.offset + u32::from(a.size.max(1)) - 1) / 4;
            for w in first..=last {
                let lo = a.offset.max(w * 4) - w * 4;
                let hi = (a.offset + u32::from(a.size)).min(w * 4 + 4) - w * 4;
                let bytes = ((1u16 << hi) - (1u16 << lo)) as u8;
                let slot = Slot::new(ctx, a.inv, bytes, kind);
                self.word(a, w, slot);
            }
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
                    let len = (w as usize + 1).max(2 * v.len()).min(DENSE_WORDS as usize);
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
        // The common case, decided in place: a word of at most two records, each of the new
        // access's bytes, none racing with it but the pair last reported.
        #[cfg(test)]
        let general = self.general;
        #[cfg(not(test))]
        let general = false;
        let two = word.len() <= 2;
        if let (Word::Inline(len_ref, recs), true, false) = (&mut *word, two, general) {
            let len = usize::from(*len_ref);
            // Lanes of one step mostly find words of the same records (by context, kind,
            // bytes, and whether of the lane's own invocation): the last decision is reused.
            let key = |r: &Slot| {
                u64::from(r.ctx) << 32
                    | u64::from(r.meta >> 20) << 1
                    | u64::from(r.inv() == n.inv())
            };
            let memo = Memo {
                n: key(&n),
                len: len as u8,
                recs: std::array::from_fn(|k| if k < len { key(&recs[k]) } else { 0 }),
            };
            let stays = match self.memo {
                Some((m, stays)) if m == memo => Some(stays),
                _ => {
                    let full = self.races.len() >= MAX_RACES;
                    let last = (self.last_ctxs, self.last_reported);
                    let stays = decide_inline(&recs[..len], &n, &self.ctxs, full, last);
                    self.memo = stays.map(|s| (memo, s));
                    stays
                }
            };
            if let Some(stays) = stays {
                // The kept records, then `n`, written in place (a copy of the word through a
                // temporary showed as a stalled load in profiles).
                let keep0 = len > 0 && stays & 1 != 0;
                let keep1 = len > 1 && stays & 2 != 0;
                match (keep0, keep1) {
                    (false, false) => {
                        recs[0] = n;
                        *len_ref = 1;
                    }
                    (true, false) => {
                        recs[1] = n;
                        *len_ref = 2;
                    }
                    (false, true) => {
                        recs[0] = recs[1];
                        recs[1] = n;
                        *len_ref = 2;
                    }
                    (true, true) => {
                        recs[2] = n;
                        *len_ref = 3;
                    }
                }
                #[cfg(test)]
                {
                    self.in_place += 1;
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
                offset: w * 4 + (rec.bytes & prev.bytes).trailing_zeros(),
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

/// What a new access finds among a word's records, in one pass (over at most 64 records).
struct Scan {
    /// The records it races with, and of those the ones only lockstep execution orders.
    races: u64,
    lockstep: u64,
    /// Whether every record of its bytes covers only its bytes, and whether every one of its
    /// kind covers exactly them: then (the first for a plain write that raced with nothing,
    /// the second otherwise: 32-bit data, and 8- or 16-bit data accessed element by element)
    /// each byte of it is decided alike and wholly, from what the pass found.
    subset: bool,
    whole: bool,
    /// The records of its bytes; of those, the ones of its kind; and records of no bytes.
    overlap: u64,
    cover: u64,
    empty: u64,
    /// The one of `cover` to keep beside it ([`one_beside`]).
    beside: Option<usize>,
}

fn scan(recs: &[Slot], n: &Slot, ctxs: &Ctxs) -> Scan {
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
fn keep_scanned(recs: &mut Word, n: Slot, sc: &Scan, ctxs: &Ctxs) {
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
fn keep_bytes(recs: &mut Word, n: Slot, raced: bool, ctxs: &Ctxs) {
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
fn one_beside(recs: &[Slot], cands: u64, n: &Slot, ctxs: &Ctxs) -> Option<usize> {
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

/// The in-place decision for a word of at most two records `recs`, each of `n`'s bytes, with
/// no new race to report (`full`: the report limit is reached; `last`: the contexts and the
/// instruction pair last reported): which records stay beside `n` (bit per record), or `None`
/// for the general path.
fn decide_inline(
    recs: &[Slot],
    n: &Slot,
    ctxs: &Ctxs,
    full: bool,
    last: (Option<Pair>, Option<Pair>),
) -> Option<u8> {
    let mut raced = false;
    let mut cover = 0u8;
    let mut rank = [0u8; 2];
    for (k, r) in recs.iter().enumerate() {
        if r.bytes() != n.bytes() {
            return None;
        }
        let rel = ctxs.rel(r, n);
        if race_rel(rel, r, n).is_some() {
            raced = true;
            let instr = |s: &Slot| ctxs.all[s.ctx as usize].instr;
            if last.0 != Some((r.ctx, n.ctx)) && !full && last.1 != Some((instr(r), instr(n))) {
                return None;
            }
        }
        if r.kind() == n.kind() {
            cover |= 1 << k;
            rank[k] = beside_rank(rel, r, n);
        }
    }
    // A plain write that raced with nothing replaces them all; otherwise the records of its
    // kind give way to it but the latest of the highest rank.
    if n.kind() == Kind::Write && !raced {
        return Some(0);
    }
    let best = if rank[1] != 0 && rank[1] >= rank[0] {
        1
    } else if rank[0] != 0 {
        0
    } else {
        2
    };
    Some(!cover | (1 << best))
}

/// How a record of `n`'s kind and bytes ranks for being the one kept beside `n`
/// ([`one_beside`]): 3 of another workgroup, 2 of another subgroup in `n`'s workgroup epoch, 1
/// another invocation of `n`'s subgroup in its epoch, 0 none.
fn beside_rank(rel: Rel, r: &Slot, n: &Slot) -> u8 {
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
fn race(ctxs: &Ctxs, a: &Slot, b: &Slot) -> Option<bool> {
    if a.bytes() & b.bytes() == 0 || !conflict(a.kind(), b.kind()) {
        return None;
    }
    race_rel(ctxs.rel(a, b), a, b)
}

/// [`race`] for records of overlapping bytes whose relation is `rel`.
fn race_rel(rel: Rel, a: &Slot, b: &Slot) -> Option<bool> {
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

#[cfg(test)]
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self, m: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % m
        }
    }

    /// A random context: one or two workgroups, subgroups and epochs.
    fn ctx(rng: &mut Rng, step: u64) -> Ctx {
        Ctx {
            wg: rng.next(2) as u32,
            sg: rng.next(2) as u32,
            wg_ord: rng.next(2) as u32,
            sg_ord: rng.next(2) as u32,
            wg_ctl: 0,
            sg_ctl: 0,
            step,
            instr: rng.next(5) as u32,
            block: 0,
        }
    }

    /// Random records, each of a context of its own or of one already made (`ctxs` grows), and
    /// `n`'s of the current workgroup when `wg_base` says others are finished.
    fn slot(rng: &mut Rng, ctxs: &mut Ctxs) -> Slot {
        let masks = [0xf, 0xf, 0x3, 0xc, 0x1, 0x2, 0x4, 0x8, 0x6, 0x7];
        let kinds = [Kind::Read, Kind::Write, Kind::AtomicRead, Kind::AtomicWrite];
        let k = if ctxs.all.is_empty() || rng.next(3) == 0 {
            let c = ctx(rng, ctxs.all.len() as u64);
            ctxs.all.push(c);
            ctxs.all.len() - 1
        } else {
            rng.next(ctxs.all.len() as u64) as usize
        };
        let inv = rng.next(4) as u32;
        let bytes = masks[rng.next(masks.len() as u64) as usize];
        Slot::new(k as u32, inv, bytes, kinds[rng.next(4) as usize])
    }

    /// The race test on whole records, as the module's notes state it.
    fn race_of(a: &Rec, b: &Rec) -> Option<bool> {
        if a.bytes & b.bytes == 0 || (a.inv, a.wg) == (b.inv, b.wg) || !conflict(a.kind, b.kind) {
            return None;
        }
        if a.wg != b.wg {
            Some(false)
        } else if a.sg == b.sg {
            (a.sg_ord == b.sg_ord).then_some(true)
        } else {
            (a.wg_ord == b.wg_ord).then_some(false)
        }
    }

    /// The one-pass path (`scan`, `keep_scanned`) keeps exactly what the byte-by-byte path
    /// keeps and finds the races the race test finds, on words of random records (whole words,
    /// halves, bytes and odd masks; every kind; one or two workgroups, subgroups and epochs;
    /// records sharing a context); and the race test on records that name contexts is the one
    /// on whole records.
    #[test]
    fn one_pass_keeps_what_byte_by_byte_keeps() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut fast, mut differed, mut mixed, mut shared) = (0, 0, 0, 0);
        for case in 0..20_000u64 {
            let mut ctxs = Ctxs::default();
            let len = rng.next(6);
            let recs: Word = (0..len).map(|_| slot(&mut rng, &mut ctxs)).collect();
            let n = slot(&mut rng, &mut ctxs);
            let sc = scan(&recs, &n, &ctxs);
            for (k, r) in recs.iter().enumerate() {
                let want = race_of(&ctxs.rec(r), &ctxs.rec(&n));
                assert_eq!(race(&ctxs, r, &n), want, "case {case}: {r:?} {n:?}");
                let found = (sc.races & (1 << k) != 0).then_some(sc.lockstep & (1 << k) != 0);
                assert_eq!(found, want, "case {case}: scan, record {k}");
                shared += usize::from(r.ctx == n.ctx);
            }
            // The record kept beside `n`, as the module's notes list the classes, on whole
            // records: the latest of another workgroup, else of another subgroup in `n`'s
            // workgroup epoch, else another invocation of `n`'s subgroup in its epoch.
            let cands =
                (0..recs.len()).fold(0u64, |m, k| m | u64::from(recs[k].kind() == n.kind()) << k);
            let (w, nr) = (|k: usize| ctxs.rec(&recs[k]), ctxs.rec(&n));
            let latest = |f: &dyn Fn(&Rec) -> bool| {
                (0..recs.len())
                    .rev()
                    .find(|&k| cands & (1 << k) != 0 && f(&w(k)))
            };
            let want = latest(&|r| r.wg != nr.wg)
                .or_else(|| latest(&|r| r.wg == nr.wg && r.wg_ord == nr.wg_ord && r.sg != nr.sg))
                .or_else(|| {
                    latest(&|r| {
                        (r.wg, r.wg_ord, r.sg, r.sg_ord) == (nr.wg, nr.wg_ord, nr.sg, nr.sg_ord)
                            && r.inv != nr.inv
                    })
                });
            assert_eq!(
                one_beside(&recs, cands, &n, &ctxs),
                want,
                "case {case}: beside"
            );
            let raced = recs.iter().any(|r| race(&ctxs, r, &n).is_some());
            let (mut a, mut b) = (recs.clone(), recs.clone());
            keep_scanned(&mut a, n, &sc, &ctxs);
            keep_bytes(&mut b, n, raced, &ctxs);
            assert_eq!(a, b, "case {case}: {recs:?} + {n:?}");
            // (how often the one-pass path decided, and for records not all of `n`'s bytes
            // or none, for the test's own reach)
            let one = if n.kind() == Kind::Write && !raced {
                sc.subset
            } else {
                sc.whole
            };
            let uniform = recs
                .iter()
                .all(|r| r.bytes() & n.bytes() == 0 || r.bytes() == n.bytes());
            fast += usize::from(one);
            mixed += usize::from(one && !uniform);
            differed += usize::from(!one);
        }
        assert!(
            fast > 2_000 && differed > 2_000 && mixed > 500,
            "{fast} {differed} {mixed}"
        );
        assert!(shared > 2_000, "{shared}");
    }

    /// A word is 32 bytes, three records inline, and a record 8 (the detector's table is
    /// walked word by word).
    #[test]
    fn words_are_small() {
        assert_eq!(std::mem::size_of::<Slot>(), 8);
        assert!(
            std::mem::size_of::<Word>() <= 32,
            "{}",
            std::mem::size_of::<Word>()
        );
        let s = Slot::new(7, (1 << 20) - 1, 0xa, Kind::AtomicWrite);
        assert_eq!(
            (s.ctx, s.inv(), s.bytes(), s.kind()),
            (7, (1 << 20) - 1, 0xa, Kind::AtomicWrite)
        );
    }

    /// Records of finished workgroups are told apart by their index alone, and a compaction
    /// keeps every record's context and that split.
    #[test]
    fn compaction_keeps_what_records_name() {
        let mut d = Detect::default();
        d.start_workgroup(2, 64);
        let log = |off: u32, inv: u32, kind| Access {
            space: Space::Buffer,
            storage: 0,
            region: 0,
            offset: off,
            size: 4,
            inv,
            kind,
        };
        // Workgroup 0 writes words 0..8 step after step; workgroup 1 reads them.
        for step in 0..3 * MIN_CTXS as u64 {
            let off = (step % 8) as u32 * 4;
            d.accesses(&[log(off, 0, AccessKind::Write)], 0, 32, step, (0, 7));
        }
        assert!(d.ctxs.all.len() < 2 * MIN_CTXS, "{}", d.ctxs.all.len());
        let before = d.last_write(0, 3);
        assert_eq!(before, Some((3 * MIN_CTXS as u64 - 5, 7)));
        d.start_workgroup(2, 64);
        d.accesses(&[log(12, 1, AccessKind::Read)], 1, 32, 1 << 40, (0, 9));
        assert_eq!(d.races.len(), 1);
        assert_eq!(
            (d.races[0].first.wg, d.races[0].first.step),
            (0, before.unwrap().0)
        );
        assert_eq!((d.races[0].second.wg, d.races[0].second.instr), (1, 9));
    }

    /// Every word the detector keeps, in a fixed order (records as whole records).
    fn words(d: &Detect) -> Vec<Vec<Rec>> {
        let mut keys: Vec<_> = d.page_of.iter().map(|(k, v)| (*k, *v)).collect();
        keys.sort();
        (d.shared.iter())
            .chain(d.dense.iter().flatten())
            .chain(keys.iter().flat_map(|(_, p)| d.pages[*p].iter()))
            .map(|w| w.iter().map(|s| d.ctxs.rec(s)).collect())
            .collect()
    }

    /// The in-place path for words of one or two records decides as the general path does:
    /// random dispatches (three workgroups of two subgroups, barriers that order or not,
    /// reads, writes and atomics of 1, 2, 4 and 8 bytes, aligned or not, to a buffer and to
    /// Workgroup memory) leave the same records and report the same races either way.
    #[test]
    fn the_in_place_path_decides_as_the_general_path() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut in_place, mut races) = (0, 0);
        for case in 0..300 {
            let mut fast = Detect::default();
            let mut general = Detect {
                general: true,
                ..Detect::default()
            };
            let mut step = 0;
            for wg in 0..3 {
                for d in [&mut fast, &mut general] {
                    d.start_workgroup(2, 64);
                }
                for _ in 0..40 {
                    step += 1;
                    match rng.next(12) {
                        0 => {
                            let memory = [0x108, 0x48, 0x100, 0x8][rng.next(4) as usize];
                            for d in [&mut fast, &mut general] {
                                d.workgroup_barrier(memory, 99);
                            }
                        }
                        1 => {
                            let (g, memory) =
                                (rng.next(2) as usize, [0x108, 0x48][rng.next(2) as usize]);
                            for d in [&mut fast, &mut general] {
                                d.subgroup_barrier(g, memory, 98);
                            }
                        }
                        _ => {
                            let space = [Space::Buffer, Space::Workgroup][rng.next(2) as usize];
                            let size: u8 = [4, 4, 4, 1, 2, 8][rng.next(6) as usize];
                            let kind = [AccessKind::Read, AccessKind::Write, AccessKind::Atomic]
                                [rng.next(3) as usize];
                            let g = rng.next(2) as u32;
                            let mut log = Vec::new();
                            for l in 0..8 {
                                if rng.next(4) == 0 {
                                    continue;
                                }
                                let offset = if rng.next(8) == 0 {
                                    rng.next(56) as u32
                                } else {
                                    rng.next(56 / u64::from(size)) as u32 * u32::from(size)
                                };
                                let a = Access {
                                    space,
                                    storage: 0,
                                    region: 0,
                                    offset,
                                    size,
                                    inv: g * 8 + l,
                                    kind,
                                };
                                log.push(a);
                                // An atomic that stores logs its write after its read.
                                if kind == AccessKind::Atomic && rng.next(2) == 0 {
                                    log.push(a);
                                }
                            }
                            let at = (0, rng.next(6) as u32);
                            for d in [&mut fast, &mut general] {
                                d.accesses(&log, wg, 8, step, at);
                            }
                        }
                    }
                }
            }
            assert_eq!(words(&fast), words(&general), "case {case}");
            let pairs = |d: &Detect| -> Vec<_> {
                d.races
                    .iter()
                    .map(|r| (r.first, r.second, r.offset, r.lockstep, r.unordered_by))
                    .collect()
            };
            assert_eq!(pairs(&fast), pairs(&general), "case {case}");
            in_place += fast.in_place;
            races += fast.races.len();
        }
        assert!(in_place > 10_000 && races > 1_000, "{in_place} {races}");
    }
}
