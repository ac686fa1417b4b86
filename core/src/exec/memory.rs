//! Byte-addressed memories: bound buffers, workgroup memory, per-invocation memory.

mod access_log;
mod marks;

pub use access_log::{Access, AccessKind, AccessLog};

use super::marks::{any_bits, mark_bits, mark_chunk, row_chunks, shared_ptr, Bits};
use crate::lanes::{LaneMask, Mask};
use crate::program::{decode_ptr, encode_ptr, is_physical, Leaf, Space};
use crate::value::ScalarTy;

#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// Buffer storage: one per distinct bound buffer (bindings that alias share one).
    pub buffers: Vec<Vec<u8>>,
    /// For each `Program::resources` entry (a pointer's region), its index in `buffers`.
    pub storage_of: Vec<u32>,
    pub workgroup: Vec<u8>,
    /// `invocations * per_invocation` bytes: Private, Function and Input variables.
    pub invocation: Vec<u8>,
    pub per_invocation: usize,
    /// Poison, one bit per byte, parallel to each memory (so an 8- or 16-bit store defines only
    /// its own bytes); empty until something is poison.
    pub poison: PoisonMaps,
    /// Accesses to shared memory (Workgroup and buffers) made by the current step, when the
    /// race detector listens.
    pub log: Option<AccessLog>,
    /// The pointer every lane of the step's load or store used, when they shared one and the
    /// detectors listen (cleared before each step): their checks need not compare the lanes'
    /// pointers again.
    pub step_ptr: Option<u64>,
    /// The bound buffers' device addresses, sorted by start: what physical pointers resolve
    /// against.
    pub addresses: Vec<AddressRange>,
    /// By region (resource index): the bound image's format and extent, for image resources.
    pub images: Vec<Option<crate::program::image::ImageDesc>>,
    /// By region: the bound sampler, for sampler and combined image sampler resources.
    pub samplers: Vec<Option<crate::program::image::SamplerDesc>>,
    /// Linear filtering's weights quantized (`Config::sub_texel`).
    pub sub_texel: Option<crate::program::image::SubTexel>,
}

/// A bound buffer's device address range and the region (index in `storage_of`) naming it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressRange {
    pub start: u64,
    pub len: u64,
    pub region: u32,
}

#[derive(Clone, Debug, Default)]
pub struct PoisonMaps {
    pub any: bool,
    buffers: Vec<Vec<u64>>,
    workgroup: Vec<u64>,
    invocation: Vec<u64>,
    /// Bytes marked now, per space (buffer, workgroup, invocation): lets a step that touches
    /// only clean memory skip the bookkeeping.
    marked: [u64; 3],
}

impl PoisonMaps {
    /// Nothing marked, the maps' memory kept (a workgroup's start: allocating them afresh
    /// each time showed as page faults in profiles).
    pub fn clear(&mut self) {
        self.any = false;
        for m in &mut self.buffers {
            m.fill(0);
        }
        self.workgroup.fill(0);
        self.invocation.fill(0);
        self.marked = [0; 3];
    }

    /// Whether any byte of `space` is marked now.
    pub fn marked_in(&self, space: Space) -> bool {
        self.marked[space_index(space)] != 0
    }
}

fn space_index(space: Space) -> usize {
    match space {
        Space::Buffer => 0,
        Space::Workgroup => 1,
        Space::Invocation => 2,
    }
}

/// An access that falls outside its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    pub space: Space,
    pub region: u32,
    pub offset: u64,
    pub size: u32,
    pub len: usize,
    /// For a physical address outside every bound buffer: the address.
    pub address: Option<u64>,
}

impl Memory {
    /// A pointer as a tagged (space, region, offset) pointer: a physical address becomes a
    /// pointer into the bound buffer whose range holds it (the one starting there when one
    /// ends where another starts), or an error naming the address when no buffer holds it.
    #[inline]
    pub fn resolve(&self, ptr: u64) -> Result<u64, OutOfBounds> {
        if !is_physical(ptr) {
            return Ok(ptr);
        }
        let k = self.addresses.partition_point(|r| r.start <= ptr);
        if let Some(r) = k.checked_sub(1).map(|k| self.addresses[k]) {
            if ptr - r.start <= r.len && ptr - r.start <= u64::from(u32::MAX) {
                return Ok(encode_ptr(Space::Buffer, r.region, (ptr - r.start) as u32));
            }
        }
        Err(OutOfBounds {
            space: Space::Buffer,
            region: crate::program::PHYSICAL_REGION,
            offset: 0,
            size: 0,
            len: 0,
            address: Some(ptr),
        })
    }

    /// The storage index of resource `region`.
    #[inline]
    pub fn storage(&self, region: u32) -> Option<usize> {
        self.storage_of.get(region as usize).map(|i| *i as usize)
    }

    #[inline]
    fn locate(
        &mut self,
        ptr: u64,
        off: u32,
        size: u32,
        inv: usize,
    ) -> Result<&mut [u8], OutOfBounds> {
        let ptr = self.resolve(ptr).map_err(|o| OutOfBounds {
            size,
            address: o.address.map(|a| a.wrapping_add(u64::from(off))),
            ..o
        })?;
        let (space, region, base) = decode_ptr(ptr);
        let start = u64::from(base) + u64::from(off);
        let (mem, lo): (&mut Vec<u8>, usize) = match space {
            Space::Buffer => match self.storage(region).and_then(|i| self.buffers.get_mut(i)) {
                Some(b) => (b, 0),
                None => {
                    return Err(OutOfBounds {
                        space,
                        region,
                        offset: start,
                        size,
                        len: 0,
                        address: None,
                    });
                }
            },
            Space::Workgroup => (&mut self.workgroup, 0),
            Space::Invocation => {
                let lo = inv * self.per_invocation;
                (&mut self.invocation, lo)
            }
        };
        let limit = match space {
            Space::Invocation => self.per_invocation,
            _ => mem.len(),
        };
        let end = start + u64::from(size);
        if end > limit as u64 {
            return Err(OutOfBounds {
                space,
                region,
                offset: start,
                size,
                len: limit,
                address: None,
            });
        }
        let s = lo + start as usize;
        Ok(&mut mem[s..s + size as usize])
    }

    #[inline]
    pub fn read(&mut self, ptr: u64, leaf: Leaf, inv: usize) -> Result<u64, OutOfBounds> {
        let size = leaf.ty.size_bytes();
        let bytes = self.locate(ptr, leaf.offset, size, inv)?;
        let mut b = [0u8; 8];
        b[..size as usize].copy_from_slice(bytes);
        // (noted once in bounds, after the read: the step's log is read after the step)
        if self.log.is_some() && decode_ptr(ptr).0 != Space::Invocation {
            self.note(ptr, leaf, inv, false);
        }
        let v = u64::from_le_bytes(b);
        Ok(if leaf.ty == ScalarTy::Bool {
            u64::from(v != 0)
        } else {
            v
        })
    }

    /// Reads a leaf without the access rules of a shader's load (for views): `None` when out
    /// of bounds.
    pub fn peek(&self, ptr: u64, leaf: Leaf, inv: usize) -> Option<u64> {
        let (space, region, base) = decode_ptr(self.resolve(ptr).ok()?);
        let size = leaf.ty.size_bytes() as usize;
        let start = base as usize + leaf.offset as usize;
        let (mem, lo, limit): (&[u8], usize, usize) = match space {
            Space::Buffer => {
                let b = self.buffers.get(self.storage(region)?)?;
                (b, 0, b.len())
            }
            Space::Workgroup => (&self.workgroup, 0, self.workgroup.len()),
            Space::Invocation => (
                &self.invocation,
                inv * self.per_invocation,
                self.per_invocation,
            ),
        };
        if start + size > limit {
            return None;
        }
        let bytes = mem.get(lo + start..lo + start + size)?;
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(bytes);
        let v = u64::from_le_bytes(b);
        Some(if leaf.ty == ScalarTy::Bool {
            u64::from(v != 0)
        } else {
            v
        })
    }

    #[inline]
    pub fn write(&mut self, ptr: u64, leaf: Leaf, inv: usize, v: u64) -> Result<(), OutOfBounds> {
        let size = leaf.ty.size_bytes();
        let bytes = self.locate(ptr, leaf.offset, size, inv)?;
        bytes.copy_from_slice(&v.to_le_bytes()[..size as usize]);
        // (noted once in bounds, after the write: the step's log is read after the step)
        if self.log.is_some() && decode_ptr(ptr).0 != Space::Invocation {
            self.note(ptr, leaf, inv, true);
        }
        Ok(())
    }

    /// The bytes of one memory and the base of invocation `inv`'s part of it, when `ptr` is
    /// valid: (memory, start of the invocation's window, window length).
    #[inline]
    pub fn window(&mut self, ptr: u64, inv: usize) -> Option<(&mut [u8], usize, usize)> {
        let (space, region, _) = decode_ptr(self.resolve(ptr).ok()?);
        match space {
            Space::Buffer => self
                .storage(region)
                .and_then(|i| self.buffers.get_mut(i))
                .map(|b| {
                    let n = b.len();
                    (b.as_mut_slice(), 0, n)
                }),
            Space::Workgroup => {
                let n = self.workgroup.len();
                Some((self.workgroup.as_mut_slice(), 0, n))
            }
            Space::Invocation => Some((
                self.invocation.as_mut_slice(),
                inv * self.per_invocation,
                self.per_invocation,
            )),
        }
    }

    /// Length in bytes of the memory a pointer points into (for OpArrayLength).
    pub fn len_of(&self, ptr: u64) -> usize {
        let Ok(ptr) = self.resolve(ptr) else {
            return 0;
        };
        let (space, region, _) = decode_ptr(ptr);
        match space {
            Space::Buffer => self
                .storage(region)
                .and_then(|i| self.buffers.get(i))
                .map_or(0, Vec::len),
            Space::Workgroup => self.workgroup.len(),
            Space::Invocation => self.per_invocation,
        }
    }
}

/// Read a little-endian scalar of `size` bytes at `at`.
#[inline(always)]
pub fn get(mem: &[u8], at: usize, size: u32, ty: ScalarTy) -> u64 {
    let v = match size {
        4 => u64::from(u32::from_le_bytes([
            mem[at],
            mem[at + 1],
            mem[at + 2],
            mem[at + 3],
        ])),
        8 => u64::from_le_bytes(mem[at..at + 8].try_into().unwrap_or([0; 8])),
        2 => u64::from(u16::from_le_bytes([mem[at], mem[at + 1]])),
        _ => u64::from(mem[at]),
    };
    if ty == ScalarTy::Bool {
        u64::from(v != 0)
    } else {
        v
    }
}

/// Write a little-endian scalar of `size` bytes at `at`.
#[inline(always)]
pub fn put(mem: &mut [u8], at: usize, size: u32, v: u64) {
    match size {
        4 => mem[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes()),
        8 => mem[at..at + 8].copy_from_slice(&v.to_le_bytes()),
        2 => mem[at..at + 2].copy_from_slice(&(v as u16).to_le_bytes()),
        _ => mem[at] = v as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Invocation memory of `n` invocations of `per` bytes each.
    fn memory(n: usize, per: usize) -> Memory {
        Memory {
            invocation: vec![0; n * per],
            per_invocation: per,
            ..Memory::default()
        }
    }

    /// A step's same-region accesses of one scalar are logged as a run (no entry per lane),
    /// with the lanes in order; any other access of the step moves the run into the log's
    /// entries first, ahead of its own; an atomic's are never a run.
    #[test]
    fn a_steps_run_of_lane_accesses_is_logged_apart_and_spilled_in_order() {
        use crate::program::{encode_ptr, Leaf};
        use crate::value::ScalarTy;
        let mut mem = Memory {
            buffers: vec![vec![0; 256]],
            storage_of: vec![0],
            log: Some(AccessLog::default()),
            ..Memory::default()
        };
        let leaf = Leaf {
            offset: 4,
            ty: ScalarTy::Int {
                bits: 32,
                signed: false,
            },
        };
        let ptrs: Vec<u64> = (0..8)
            .map(|l| encode_ptr(Space::Buffer, 0, 16 * l))
            .collect();
        let lanes = |mem: &Memory| {
            let log = mem.log.as_ref().expect("logging");
            (log.run_head, log.run.clone(), log.accesses.clone())
        };
        // Lanes 1, 2 and 5 of the subgroup whose first invocation is 8.
        mem.note_lanes(&ptrs, (0b10_0110, 8), &[leaf], true);
        let (head, run, entries) = lanes(&mem);
        let head = head.expect("a run");
        assert_eq!((head.size, head.kind), (4, AccessKind::Write));
        assert_eq!(run, vec![[20, 9], [36, 10], [84, 13]]);
        assert!(entries.is_empty());
        // A later access of the step: the run first, then it.
        mem.note(encode_ptr(Space::Buffer, 0, 200), leaf, 3, false);
        let (head, run, entries) = lanes(&mem);
        assert!(head.is_none() && run.is_empty());
        let got: Vec<_> = entries.iter().map(|a| (a.offset, a.inv, a.kind)).collect();
        use AccessKind::{Read, Write};
        let want = [
            (20, 9, Write),
            (36, 10, Write),
            (84, 13, Write),
            (204, 3, Read),
        ];
        assert_eq!(got, want);
        // Every lane, after a clear: a run of all eight.
        mem.log.as_mut().expect("logging").clear();
        mem.note_lanes(&ptrs, (0xff, 0), &[leaf], false);
        let (head, run, _) = lanes(&mem);
        assert_eq!(head.map(|h| h.kind), Some(Read));
        assert_eq!(run, (0..8).map(|l| [16 * l + 4, l]).collect::<Vec<_>>());
        // An atomic's accesses are entries.
        let log = mem.log.as_mut().expect("logging");
        log.clear();
        log.atomic = true;
        mem.note_lanes(&ptrs, (0b11, 0), &[leaf], true);
        let (head, _, entries) = lanes(&mem);
        assert!(head.is_none());
        assert_eq!(entries.len(), 2);
        assert!(entries.iter().all(|a| a.kind == AccessKind::Atomic));
    }

    /// The lanes' marks at one shared variable, read lane by lane and all at once, agree with
    /// what each lane had marked, for every subgroup size and lane pattern (a subgroup's lanes
    /// straddle chunks of a row when it holds more than 64 invocations).
    #[test]
    fn lanes_sharing_a_variable_read_and_write_the_marks_lane_by_lane() {
        for (n, s) in [(8, 4), (64, 32), (96, 32), (192, 64), (256, 128)] {
            let per = 24;
            let ptr = encode_ptr(Space::Invocation, 0, 8);
            let ptrs = vec![ptr; s];
            for g in 0..n / s {
                let mut mem = memory(n, per);
                // Every third lane, then some lanes cleared again.
                let on: Mask = (0..s).filter(|l| l % 3 == 0).fold(0, |m, l| m | 1 << l);
                mem.mark_lanes(&ptrs, on, g * s, (2, 4), true);
                let off: Mask = (0..s).filter(|l| l % 6 == 0).fold(0, |m, l| m | 1 << l);
                mem.mark_lanes(&ptrs, off, g * s, (0, 8), false);
                let expect = on & !off;
                for l in 0..s {
                    let one = |o, sz| mem.any_span_marked(std::iter::once((ptr, g * s + l)), o, sz);
                    let marked = expect >> l & 1 == 1;
                    assert_eq!(one(2, 4), marked, "{n} invocations, subgroup {g}, lane {l}");
                    assert!(
                        !one(0, 2) && !one(6, 8),
                        "lane {l}: only bytes 10..14 marked"
                    );
                    let all = mem.any_lanes_marked(&ptrs, 1 << l, g * s, 0, 16);
                    assert_eq!(
                        all, marked,
                        "{n} invocations, subgroup {g}, lane {l} at once"
                    );
                }
                // Other subgroups' invocations are untouched.
                for inv in (0..n).filter(|i| i / s != g) {
                    assert!(!mem.any_span_marked(std::iter::once((ptr, inv)), 0, 16));
                }
                assert_eq!(
                    mem.poison.marked[space_index(Space::Invocation)],
                    u64::from(expect.count_ones()) * 4
                );
            }
        }
    }
}
