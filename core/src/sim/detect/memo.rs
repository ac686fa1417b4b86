//! The step's last in-place decision (a memo of what it depended on) and its reuse by the
//! step's later lanes: most lanes of one access find words of the same records.

use super::records::{Memo, Slot, Word};
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
    if usize::from(m.len) != recs.len() || m.n != memo_key(n, n) {
        return false;
    }
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
    // (straight-line code per case: the records that stay move down, `n` goes after them)
    let len = match stays & ((1 << *len_ref) - 1) {
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
    };
    *len_ref = len;
}
