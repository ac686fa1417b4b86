//! How the race detector keeps its records: a step's shared context once, in a table; a
//! record naming it by index with its invocation, bytes and kind packed (8 bytes); a word's
//! records, up to three inline.

use super::{Kind, Rec};

/// What every access of one step to one memory class shares: a word's records name it by
/// index instead of carrying it (a record is then 8 bytes, not 48, and two records of one
/// step are told to be in one context by comparing two indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ctx {
    pub(super) wg: u32,
    pub(super) sg: u32,
    pub(super) wg_ord: u32,
    pub(super) sg_ord: u32,
    pub(super) wg_ctl: u32,
    pub(super) sg_ctl: u32,
    pub(super) step: u64,
    pub(super) instr: u32,
    pub(super) block: u32,
}

/// One access as a word keeps it: its step's context, and packed in one word its invocation
/// (below 2^20, `HARD_MAX_INVOCATIONS`), bytes and kind (8 bytes, moved as one register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) ctx: u32,
    pub(super) meta: u32,
}

impl Slot {
    pub(super) fn new(ctx: u32, inv: u32, bytes: u8, kind: Kind) -> Self {
        debug_assert!(inv < crate::lanes::HARD_MAX_INVOCATIONS);
        Slot {
            ctx,
            meta: (inv & 0xf_ffff) | u32::from(bytes & 0xf) << 20 | (kind as u32) << 24,
        }
    }
    pub(super) fn inv(&self) -> u32 {
        self.meta & 0xf_ffff
    }
    pub(super) fn bytes(&self) -> u8 {
        (self.meta >> 20) as u8 & 0xf
    }
    pub(super) fn set_bytes(&mut self, bytes: u8) {
        self.meta = (self.meta & !(0xf << 20)) | u32::from(bytes & 0xf) << 20;
    }
    pub(super) fn kind(&self) -> Kind {
        match (self.meta >> 24) & 3 {
            0 => Kind::Read,
            1 => Kind::Write,
            2 => Kind::AtomicRead,
            _ => Kind::AtomicWrite,
        }
    }
}

/// The records of one word (see the module's notes on which are kept): one or two in
/// practice, up to three kept inline (no allocation; the word is 32 bytes).
#[derive(Clone, Debug)]
pub(super) enum Word {
    Inline(u8, [Slot; 3]),
    Heap(Vec<Slot>),
}

pub(super) const NO_SLOT: Slot = Slot { ctx: 0, meta: 0 };

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
    pub(super) fn new() -> Self {
        Self::default()
    }

    pub(super) fn clear(&mut self) {
        match self {
            Word::Inline(n, _) => *n = 0,
            Word::Heap(v) => v.clear(),
        }
    }

    pub(super) fn push(&mut self, s: Slot) {
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
    pub(super) fn retain_bits(&mut self, keep: u64) {
        let mut k = 0;
        self.retain(|_| {
            k += 1;
            keep & (1 << (k - 1)) != 0
        });
    }

    pub(super) fn retain(&mut self, mut f: impl FnMut(&Slot) -> bool) {
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
pub(super) struct Ctxs {
    pub(super) all: Vec<Ctx>,
    pub(super) wg_base: u32,
}

/// How a kept record stands to a new access (of the current workgroup).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rel {
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
    pub(super) fn rel(&self, r: &Slot, n: &Slot) -> Rel {
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

    pub(super) fn rec(&self, s: &Slot) -> Rec {
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
pub(super) type Pair = (u32, u32);

/// What a decision for a new record `n` on a word of at most `N` records depends on (see
/// [`super::memo`]): `n`'s key, and each record's (as one value, see `memo::raw`: its context,
/// bytes and kind, the invocation bits clear), and (bit per record) whether it was of `n`'s
/// invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Keys<const N: usize> {
    pub(super) n: u64,
    pub(super) len: u8,
    pub(super) want: [u64; N],
    pub(super) same: u8,
}

/// The step's last in-place decision's keys (a word's at most three records).
pub(super) type Memo = Keys<3>;

/// A step's last decision for an atomic on a word only whole-word atomics touched: the keys of
/// the records it was for, and which of them gave way (bit per record).
#[derive(Clone, Copy, Debug)]
pub(super) struct AtomicMemo {
    pub(super) keys: Keys<ATOMIC_MEMO_RECS>,
    pub(super) drop: u64,
}

/// The most records an [`AtomicMemo`] is kept for (a counter's word holds four: two per kind).
pub(super) const ATOMIC_MEMO_RECS: usize = 8;

/// Contexts kept before the first compaction, and the least room a compaction leaves.
pub(super) const MIN_CTXS: usize = 1 << 14;
