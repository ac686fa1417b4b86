//! A step's run of lane accesses (what a load or store whose lanes point into one memory
//! logs: one access per lane, of one memory, kind and size): what they share decided once, and
//! the lanes whose words the step's last in-place decision covers decided in a loop of their
//! own.

use super::memo::{key, raw_holds, write_case};
use super::records::{Memo, Slot, Word};
use super::{class_of, Detect, Kind};
use crate::exec::memory::{Access, AccessKind};
use crate::program::Space;

impl Detect {
    /// Checks and records the accesses of one step that are a run
    /// ([`crate::exec::memory::AccessLog::run_head`]): `head` what they share, `lanes` each
    /// one's offset and invocation. What the loop over a step's accesses decides per access
    /// (kind, subgroup, context, unit, the word table) is decided once.
    pub fn run(
        &mut self,
        head: &Access,
        lanes: &[[u32; 2]],
        wg: u32,
        s: u32,
        step: u64,
        (block, instr): (u32, u32),
    ) {
        let (Some(&[_, inv0]), Some(&[_, inv1])) = (lanes.first(), lanes.last()) else {
            return;
        };
        let sg = inv0 / s.max(1);
        let kind = match head.kind {
            AccessKind::Read if sg == inv1 / s.max(1) => Kind::Read,
            AccessKind::Write if sg == inv1 / s.max(1) => Kind::Write,
            _ => {
                // (atomics, or lanes of two subgroups: not what the log makes a run of; the
                // general loop, should one come)
                let log: Vec<Access> = (lanes.iter())
                    .map(|&[offset, inv]| Access {
                        offset,
                        inv,
                        ..*head
                    })
                    .collect();
                self.accesses(&log, wg, s, step, (block, instr));
                return;
            }
        };
        if !self.begin_step() {
            return;
        }
        let c = class_of(head.space);
        let ctx = self.new_ctx(c, wg, sg, step, (block, instr));
        let shift = self.unit_shift(c);
        let unit = 1u32 << shift;
        let at = |&[offset, inv]: &[u32; 2]| Access {
            offset,
            inv,
            ..*head
        };
        if u32::from(head.size) != unit {
            for l in lanes {
                self.units(&at(l), ctx, kind, shift);
            }
            return;
        }
        let bytes = ((1u32 << unit) - 1) as u8;
        let mut k = 0;
        while k < lanes.len() {
            // The lanes whose words the step's memo decides, in a loop of their own (the
            // word table found once); then the next lane the full way.
            k += self.run_in_place(head, &lanes[k..], Slot::new(ctx, 0, bytes, kind), shift);
            let Some(l) = lanes.get(k) else {
                break;
            };
            let a = at(l);
            if a.offset & (unit - 1) != 0 {
                self.units(&a, ctx, kind, shift);
            } else {
                self.word(&a, a.offset >> shift, Slot::new(ctx, a.inv, bytes, kind));
            }
            k += 1;
        }
    }
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
        if m.n != key(&n) {
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
        // (the keys held in locals for the loop: read through the memo per lane they cost more)
        let (want, same) = (self.m.want, self.m.same);
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
            let holds = |i: usize| raw_holds(&recs[i], inv, want[i], same >> i & 1 == 1);
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
