//! The step's last in-place decision (a memo of what it depended on) and its reuse by the
//! step's later lanes: most lanes of one access find words of the same records.

use super::records::{AtomicMemo, Memo, Slot, Word, ATOMIC_MEMO_RECS};
use super::Detect;
use crate::exec::memory::Access;
use crate::program::Space;

impl Detect {
    /// The lanes of one step after the first: an access of a whole unit to a word of at most
    /// three records (none too: a buffer's words are empty until first written) that the step's
    /// last in-place decision covers (see [`Detect::word`]), decided here without the word's
    /// full lookup and decision (inlined in the loop over the step's accesses: the call and its
    /// frame were a good part of an access's cost). False: not decided.
    #[inline(always)]
    pub(super) fn word_again(&mut self, a: &Access, w: u32, n: Slot) -> bool {
        #[cfg(test)]
        if self.general {
            return false;
        }
        // (borrowed, not copied: a copy of the memo per access showed in profiles)
        let Some((m, stays)) = &self.memo else {
            return false;
        };
        let shared = a.space == Space::Workgroup;
        let word = if shared {
            self.shared.get_mut(w as usize)
        } else {
            self.dense
                .get_mut(a.storage as usize)
                .and_then(|v| v.get_mut(w as usize))
        };
        let Some(Word::Inline(len_ref, recs)) = word else {
            return false;
        };
        let len = usize::from(*len_ref);
        if !memo_is(m, &recs[..len], &n) {
            return false;
        }
        write_in_place(len_ref, recs, n, *stays);
        // (a Workgroup word's first record: the word is cleared for the next workgroup)
        if len == 0 && shared {
            self.touched.push(w);
        }
        #[cfg(test)]
        {
            self.in_place += 1;
        }
        true
    }
}

impl Detect {
    /// A run's lanes from the first (see [`Detect::run`]), as long as the step's last in-place
    /// decision covers their words: decided in a loop of their own, with the word table, the
    /// new record's key and the decision found once. `n`: the run's record (its invocation
    /// aside). Returns how many lanes it decided.
    #[inline(always)]
    pub(super) fn run_in_place(
        &mut self,
        head: &Access,
        lanes: &[[u32; 2]],
        n: Slot,
        shift: u32,
    ) -> usize {
        #[cfg(test)]
        if self.general {
            return 0;
        }
        let Some((m, stays)) = &self.memo else {
            return 0;
        };
        // (the new record's key does not depend on its invocation)
        if m.n != memo_key(&n, &n) {
            return 0;
        }
        let shared = head.space == Space::Workgroup;
        let Detect {
            shared: words_of_shared,
            dense,
            touched,
            ..
        } = self;
        let words = if shared {
            words_of_shared
        } else {
            match dense.get_mut(head.storage as usize) {
                Some(v) => v,
                None => return 0,
            }
        };
        let run = Run {
            m,
            n,
            shift,
            shared,
        };
        // (one loop per decision: its case known, each lane's write is straight-line code)
        let k = match stays & ((1 << m.len) - 1) {
            0b000 => run.lanes::<0b000>(words, lanes, touched),
            0b001 => run.lanes::<0b001>(words, lanes, touched),
            0b010 => run.lanes::<0b010>(words, lanes, touched),
            0b100 => run.lanes::<0b100>(words, lanes, touched),
            0b011 => run.lanes::<0b011>(words, lanes, touched),
            0b101 => run.lanes::<0b101>(words, lanes, touched),
            _ => run.lanes::<0b110>(words, lanes, touched),
        };
        #[cfg(test)]
        {
            self.in_place += k;
        }
        k
    }
}

/// What [`Detect::run_in_place`] decides by: the memo, the run's record (its invocation
/// aside), the unit's log2 and whether the memory is Workgroup memory.
struct Run<'a> {
    m: &'a Memo,
    n: Slot,
    shift: u32,
    shared: bool,
}

impl Run<'_> {
    /// The lanes from the first whose words the memo covers, each given its record as the
    /// in-place decision `CASE` (the records that stay, masked to the memo's length) says.
    #[inline(always)]
    fn lanes<const CASE: u8>(
        &self,
        words: &mut [Word],
        lanes: &[[u32; 2]],
        touched: &mut Vec<u32>,
    ) -> usize {
        let len = usize::from(self.m.len);
        // The memo's keys as raw records: a record `r` has key `m.recs[i]` for a lane of
        // invocation `inv` exactly when `raw(r) ^ inv << 32` is `want[i]` (same invocation),
        // or differs from it in the invocation's bits only, which are not all zero.
        let (mut want, mut same) = ([0u64; 3], [false; 3]);
        for (i, key) in self.m.recs.iter().enumerate() {
            (want[i], same[i]) = raw_key(*key);
        }
        // (a Workgroup word's first record: the word is cleared for the next workgroup)
        let first_records = len == 0 && self.shared;
        let mut k = 0;
        for &[offset, inv] in lanes {
            if offset & ((1 << self.shift) - 1) != 0 {
                break;
            }
            let w = offset >> self.shift;
            let Some(Word::Inline(len_ref, recs)) = words.get_mut(w as usize) else {
                break;
            };
            if usize::from(*len_ref) != len {
                break;
            }
            let inv = inv & 0xf_ffff;
            let holds = |i: usize| raw_holds(&recs[i], inv, want[i], same[i]);
            // (unrolled by length, which the memo fixes: a loop over the records cost more)
            let keys_hold = match len {
                0 => true,
                1 => holds(0),
                2 => holds(0) && holds(1),
                _ => holds(0) && holds(1) && holds(2),
            };
            if !keys_hold {
                break;
            }
            let n = Slot {
                ctx: self.n.ctx,
                meta: (self.n.meta & !0xf_ffff) | inv,
            };
            *len_ref = write_case(recs, n, CASE);
            if first_records {
                touched.push(w);
            }
            k += 1;
        }
        k
    }
}

/// What an in-place decision on a record `r` for `n` depends on: its context, kind and bytes,
/// and whether it is of `n`'s invocation.
#[inline(always)]
pub(super) fn memo_key(r: &Slot, n: &Slot) -> u64 {
    u64::from(r.ctx) << 32 | u64::from(r.meta >> 20) << 1 | u64::from(r.inv() == n.inv())
}

/// What an in-place decision for `n` on a word of records `recs` (at most three) depends on.
#[inline(always)]
pub(super) fn memo_of(recs: &[Slot], n: &Slot) -> Memo {
    Memo {
        n: memo_key(n, n),
        len: recs.len() as u8,
        recs: std::array::from_fn(|k| recs.get(k).map_or(0, |r| memo_key(r, n))),
    }
}

/// Whether `m` is [`memo_of`] `recs` and `n`, compared key by key as they are made (a memo made
/// whole and compared as one showed in profiles as a load stalled on the stores just made).
#[inline(always)]
pub(super) fn memo_is(m: &Memo, recs: &[Slot], n: &Slot) -> bool {
    usize::from(m.len) == recs.len() && m.n == memo_key(n, n) && keys_are(m, recs, n)
}

/// Whether the records' keys for `n` are `m`'s.
#[inline(always)]
fn keys_are(m: &Memo, recs: &[Slot], n: &Slot) -> bool {
    // (a loop, not a closure: the closure was not always inlined)
    for (r, k) in recs.iter().zip(&m.recs) {
        if memo_key(r, n) != *k {
            return false;
        }
    }
    true
}

/// An in-place decision applied: the records `stays` names (bit per record; at most two), then
/// `n`, written in place (a copy of the word through a temporary showed as a stalled load in
/// profiles).
#[inline(always)]
pub(super) fn write_in_place(len_ref: &mut u8, recs: &mut [Slot; 3], n: Slot, stays: u8) {
    *len_ref = write_case(recs, n, stays & ((1 << *len_ref) - 1));
}

/// [`write_in_place`] for `case`, the records that stay masked to the word's length; returns
/// the word's new length.
#[inline(always)]
fn write_case(recs: &mut [Slot; 3], n: Slot, case: u8) -> u8 {
    // (straight-line code per case: the records that stay move down, `n` goes after them)
    match case {
        0b000 => {
            recs[0] = n;
            1
        }
        0b001 => {
            recs[1] = n;
            2
        }
        0b010 => {
            recs[0] = recs[1];
            recs[1] = n;
            2
        }
        0b100 => {
            recs[0] = recs[2];
            recs[1] = n;
            2
        }
        0b011 => {
            recs[2] = n;
            3
        }
        0b101 => {
            recs[1] = recs[2];
            recs[2] = n;
            3
        }
        // (0b110; [`decide_inline`] keeps at most two)
        _ => {
            recs[0] = recs[1];
            recs[1] = recs[2];
            recs[2] = n;
            3
        }
    }
}

/// The bits of an invocation in a raw record ([`raw`]).
const INV: u64 = 0xf_ffff << 32;

/// A record as one value: its context below, its invocation, bytes and kind above.
#[inline(always)]
fn raw(r: &Slot) -> u64 {
    u64::from(r.meta) << 32 | u64::from(r.ctx)
}

/// The raw record (invocation bits clear) a memo key stands for, and whether the key's record
/// was of the new access's invocation.
#[inline(always)]
fn raw_key(key: u64) -> (u64, bool) {
    ((key >> 1 & 0xfff) << 52 | key >> 32, key & 1 == 1)
}

/// Whether raw record `r` has the key `(want, same)` for an access of invocation `inv`.
#[inline(always)]
fn raw_holds(r: &Slot, inv: u32, want: u64, same: bool) -> bool {
    let x = raw(r) ^ u64::from(inv & 0xf_ffff) << 32;
    if same {
        x == want
    } else {
        x & !INV == want && x & INV != 0
    }
}

impl AtomicMemo {
    /// The memo of a decision for `n` on a word of records `recs` (`None` past
    /// [`ATOMIC_MEMO_RECS`] records): which gave way, `drop`.
    pub(super) fn of(recs: &[Slot], n: &Slot, drop: u64) -> Option<Self> {
        if recs.len() > ATOMIC_MEMO_RECS {
            return None;
        }
        let mut m = AtomicMemo {
            n: memo_key(n, n),
            len: recs.len() as u8,
            want: [0; ATOMIC_MEMO_RECS],
            same: 0,
            drop,
        };
        for (k, r) in recs.iter().enumerate() {
            let (want, same) = raw_key(memo_key(r, n));
            m.want[k] = want;
            m.same |= u8::from(same) << k;
        }
        Some(m)
    }

    /// Whether this is the memo of a decision for `n` on records `recs`.
    #[inline(always)]
    pub(super) fn holds(&self, recs: &[Slot], n: &Slot) -> bool {
        let inv = n.inv();
        usize::from(self.len) == recs.len()
            && self.n == memo_key(n, n)
            && (recs.iter().enumerate())
                .all(|(k, r)| raw_holds(r, inv, self.want[k], self.same >> k & 1 == 1))
    }

    /// The decision applied to `word`: the records that gave way go, `n` comes last.
    #[inline(always)]
    pub(super) fn apply(&self, word: &mut Word, n: Slot) {
        if let (Word::Heap(v), 1) = (&mut *word, self.drop.count_ones()) {
            // (one record giving way, the common case: the rest move down, `n` takes the
            // last place; no change of length, no call to move them)
            let d = self.drop.trailing_zeros() as usize;
            if d < v.len() {
                for i in d + 1..v.len() {
                    v[i - 1] = v[i];
                }
                if let Some(last) = v.last_mut() {
                    *last = n;
                }
                return;
            }
        }
        if self.drop != 0 {
            word.retain_bits(!self.drop);
        }
        word.push(n);
    }
}
