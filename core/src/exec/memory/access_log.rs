//! The log of a step's accesses to shared memory, for the race detector and a parallel run's
//! footprint: what is logged, and when nothing is.

use super::Memory;
use crate::lanes::Mask;
use crate::program::{decode_ptr, Leaf, Space};

/// How an access touched memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    /// Part of an atomic instruction (atomics never race with each other).
    Atomic,
}

/// One access to shared memory: which memory (Workgroup, or a buffer's storage index), the
/// bytes, the invocation (local index) and the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub space: Space,
    /// Storage index of a buffer (0 for Workgroup memory).
    pub storage: u32,
    /// The resource a buffer pointer named (for naming the variable).
    pub region: u32,
    pub offset: u32,
    pub size: u8,
    pub inv: u32,
    pub kind: AccessKind,
}

#[derive(Clone, Debug, Default)]
pub struct AccessLog {
    pub accesses: Vec<Access>,
    /// Set while an atomic instruction runs.
    pub atomic: bool,
    /// Only buffer accesses are wanted (a parallel run's footprint, without the detectors).
    pub buffers_only: bool,
    /// Storages whose reads are not wanted: the shader cannot write them, so their reads race
    /// with nothing and no run's reads of them can depend on another's writes.
    pub unlogged_reads: Vec<bool>,
    /// A step's accesses that are one run (what a same-region load or store of a one-scalar
    /// value makes: of one memory, kind and size, one per lane of one subgroup), kept apart
    /// from `accesses` so that no entry is made per lane: what they share (offset and
    /// invocation aside), and each lane's offset and invocation. The race detector decides
    /// what they share once. Only ever the step's first accesses: any other access of the
    /// step moves them into `accesses` first ([`AccessLog::spill`]).
    pub run_head: Option<Access>,
    pub run: Vec<[u32; 2]>,
}

impl AccessLog {
    /// Whether the step logged nothing.
    pub fn is_empty(&self) -> bool {
        self.accesses.is_empty() && self.run_head.is_none()
    }

    /// Moves a run's accesses into `accesses` (in order: a run is the step's first).
    pub fn spill(&mut self) {
        if let Some(head) = self.run_head.take() {
            let run = self.run.drain(..);
            (self.accesses).extend(run.map(|[offset, inv]| Access {
                offset,
                inv,
                ..head
            }));
        }
    }

    /// Forgets the step's accesses.
    pub fn clear(&mut self) {
        self.accesses.clear();
        self.run_head = None;
        self.run.clear();
    }
}

impl Memory {
    /// Notes an access to shared memory for the race detector, when it listens.
    #[inline]
    pub fn note(&mut self, ptr: u64, leaf: Leaf, inv: usize, write: bool) {
        if self.log.is_none() {
            return;
        }
        let Ok(ptr) = self.resolve(ptr) else {
            return;
        };
        if let Some((log, a)) = self.logged(ptr, write) {
            log.spill();
            log.accesses.push(Access {
                offset: a.offset.wrapping_add(leaf.offset),
                size: leaf.ty.size_bytes() as u8,
                inv: inv as u32,
                ..a
            });
        }
    }

    /// Notes the accesses of the lanes of `mask` through pointers `lanes` into one memory
    /// (all of one space and region, none physical), lane by lane, each leaf in turn: what
    /// [`Memory::note`] notes, decided once for the step.
    pub fn note_lanes(
        &mut self,
        lanes: &[u64],
        (mask, inv_base): (Mask, usize),
        table: &[Leaf],
        write: bool,
    ) {
        let Some(p0) = lanes.get(mask.trailing_zeros() as usize) else {
            return;
        };
        let Some((log, a)) = self.logged(*p0, write) else {
            return;
        };
        let lane = |m: &mut Mask| {
            let l = m.trailing_zeros() as usize;
            *m &= *m - 1;
            l
        };
        let mut m = mask;
        if let ([leaf], true) = (table, log.is_empty() && a.kind != AccessKind::Atomic) {
            // The step's first accesses, one scalar per lane: a run (no entry per lane).
            log.run_head = Some(Access {
                size: leaf.ty.size_bytes() as u8,
                ..a
            });
            let entry = |l: usize| {
                [
                    (lanes[l] as u32).wrapping_add(leaf.offset),
                    (inv_base + l) as u32,
                ]
            };
            log.run.clear();
            if mask.count_ones() as usize == lanes.len() {
                // (every lane: no walk over the mask's bits)
                log.run.extend((0..lanes.len()).map(entry));
            } else {
                log.run.resize(mask.count_ones() as usize, [0; 2]);
                for e in &mut log.run {
                    *e = entry(lane(&mut m));
                }
            }
            return;
        }
        log.spill();
        if let [leaf] = table {
            // (the common case: the leaf's size found once and the lanes' entries made at once,
            // then each lane's offset and invocation filled in: a push per lane cost more)
            let a = Access {
                size: leaf.ty.size_bytes() as u8,
                ..a
            };
            let at = log.accesses.len();
            log.accesses.resize(at + mask.count_ones() as usize, a);
            for e in &mut log.accesses[at..] {
                let l = lane(&mut m);
                e.offset = (lanes[l] as u32).wrapping_add(leaf.offset);
                e.inv = (inv_base + l) as u32;
            }
            return;
        }
        while m != 0 {
            let l = lane(&mut m);
            let base = lanes[l] as u32;
            for leaf in table {
                log.accesses.push(Access {
                    offset: base.wrapping_add(leaf.offset),
                    size: leaf.ty.size_bytes() as u8,
                    inv: (inv_base + l) as u32,
                    ..a
                });
            }
        }
    }

    /// The log and the access (offset: the pointer's; size and invocation to fill in) when an
    /// access through resolved pointer `ptr` is to be logged.
    fn logged(&mut self, ptr: u64, write: bool) -> Option<(&mut AccessLog, Access)> {
        let log = self.log.as_mut()?;
        let (space, region, base) = decode_ptr(ptr);
        let storage = match space {
            Space::Invocation => return None,
            Space::Workgroup if log.buffers_only => return None,
            Space::Workgroup => 0,
            Space::Buffer => *self.storage_of.get(region as usize)?,
        };
        if !write
            && !log.atomic
            && space == Space::Buffer
            && log.unlogged_reads.get(storage as usize) == Some(&true)
        {
            return None;
        }
        let kind = if log.atomic {
            AccessKind::Atomic
        } else if write {
            AccessKind::Write
        } else {
            AccessKind::Read
        };
        let a = Access {
            space,
            storage,
            region,
            offset: base,
            size: 0,
            inv: 0,
            kind,
        };
        Some((log, a))
    }
}
