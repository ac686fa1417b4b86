//! The step's last in-place decision (a memo of what it depended on) and its reuse by the
//! step's later lanes: most lanes of one access find words of the same records. Also the
//! step's last decision for an atomic on a counter's word, reused the same way. Both keep
//! their records' keys ([`Keys`]) as raw records (one value per record, compared with a xor).

use super::records::{AtomicMemo, Keys, Slot, Word};
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
        if !m.holds(&recs[..len], &n) {
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

/// What a decision depends on of record `r` but whether it is of the new record's invocation:
/// its context, bytes and kind (its raw value, the invocation bits clear).
#[inline(always)]
pub(super) fn key(r: &Slot) -> u64 {
    raw(r) & !INV
}

impl<const N: usize> Keys<N> {
    /// The keys of a decision for `n` on records `recs` (`None` past `N` records).
    #[inline(always)]
    pub(super) fn of(recs: &[Slot], n: &Slot) -> Option<Self> {
        if recs.len() > N {
            return None;
        }
        let mut m = Keys {
            n: key(n),
            len: recs.len() as u8,
            want: [0; N],
            same: 0,
        };
        for (k, r) in recs.iter().enumerate() {
            m.want[k] = key(r);
            m.same |= u8::from(r.inv() == n.inv()) << k;
        }
        Some(m)
    }

    /// Whether these are the keys of a decision for `n` on records `recs`, compared record by
    /// record as they are read (keys made whole and compared as one showed in profiles as a
    /// load stalled on the stores just made).
    #[inline(always)]
    pub(super) fn holds(&self, recs: &[Slot], n: &Slot) -> bool {
        if usize::from(self.len) != recs.len() || self.n != key(n) {
            return false;
        }
        // (a loop over the records beside the keys, not by index: fewer instructions)
        let (inv, mut same) = (n.inv(), self.same);
        for (r, want) in recs.iter().zip(&self.want) {
            if !raw_holds(r, inv, *want, same & 1 == 1) {
                return false;
            }
            same >>= 1;
        }
        true
    }
}

/// Whether record `r` has the key `want` (`same`: of the new record's invocation) for a new
/// record of invocation `inv`.
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
    /// [`super::records::ATOMIC_MEMO_RECS`] records): which gave way, `drop`.
    pub(super) fn of(recs: &[Slot], n: &Slot, drop: u64) -> Option<Self> {
        Some(AtomicMemo {
            keys: Keys::of(recs, n)?,
            drop,
        })
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
        give_way(word, self.drop, n);
    }
}

/// The records `drop` names (bit per record) give way to `n`, which comes last.
pub(super) fn give_way(word: &mut Word, drop: u64, n: Slot) {
    if drop != 0 {
        word.retain_bits(!drop);
    }
    word.push(n);
}
