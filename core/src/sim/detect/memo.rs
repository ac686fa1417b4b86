//! The step's last in-place decision (a memo of what it depended on) and its reuse by the
//! step's later lanes: most lanes of one access find words of the same records. Also the
//! step's last decision for an atomic on a counter's word, reused the same way, and the memo's
//! keys compared as raw records (one value per record) where a loop compares many.

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
pub(super) fn write_case(recs: &mut [Slot; 3], n: Slot, case: u8) -> u8 {
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
pub(super) fn raw_key(key: u64) -> (u64, bool) {
    ((key >> 1 & 0xfff) << 52 | key >> 32, key & 1 == 1)
}

/// Whether raw record `r` has the key `(want, same)` for an access of invocation `inv`.
#[inline(always)]
pub(super) fn raw_holds(r: &Slot, inv: u32, want: u64, same: bool) -> bool {
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
