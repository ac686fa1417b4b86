//! Byte-addressed memories: bound buffers, workgroup memory, per-invocation memory.

mod access_log;

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

    /// The poison bitmap and bit (byte) range a leaf covers, if in bounds.
    fn poison_words(&mut self, ptr: u64, leaf: Leaf, inv: usize) -> Option<(&mut Vec<u64>, Bits)> {
        self.poison_span(ptr, leaf.offset, leaf.ty.size_bytes(), inv)
    }

    /// Bits in a row of the invocation poison map: the invocations, in whole chunks.
    fn inv_row(&self) -> usize {
        (self.invocation.len() / self.per_invocation.max(1)).div_ceil(64) * 64
    }

    /// The invocation poison map, as long as the memory needs.
    fn inv_map(&mut self) -> &mut Vec<u64> {
        let total = self.per_invocation * self.inv_row() / 64;
        let map = &mut self.poison.invocation;
        if map.len() < total {
            map.resize(total, 0);
        }
        map
    }

    /// The poison bitmap and bits of `size` bytes at `off` past `ptr`, if in bounds.
    fn poison_span(
        &mut self,
        ptr: u64,
        off: u32,
        size: u32,
        inv: usize,
    ) -> Option<(&mut Vec<u64>, Bits)> {
        let (space, region, base) = decode_ptr(self.resolve(ptr).ok()?);
        let start = base as usize + off as usize;
        let (end, n) = (start + size as usize, size as usize);
        let contiguous = Bits {
            b0: start,
            n,
            stride: 1,
        };
        match space {
            Space::Buffer => {
                let i = self.storage(region)?;
                let len = self.buffers.get(i)?.len();
                if end > len {
                    return None;
                }
                let maps = &mut self.poison.buffers;
                if maps.len() < self.buffers.len() {
                    maps.resize(self.buffers.len(), Vec::new());
                }
                let map = &mut maps[i];
                if map.len() < len.div_ceil(64) {
                    map.resize(len.div_ceil(64), 0);
                }
                Some((map, contiguous))
            }
            Space::Workgroup => {
                let len = self.workgroup.len();
                if end > len {
                    return None;
                }
                let map = &mut self.poison.workgroup;
                if map.len() < len.div_ceil(64) {
                    map.resize(len.div_ceil(64), 0);
                }
                Some((map, contiguous))
            }
            Space::Invocation => {
                let row = self.inv_row();
                if end > self.per_invocation || inv >= row {
                    return None;
                }
                let bits = Bits {
                    b0: start * row + inv,
                    n,
                    stride: row,
                };
                Some((self.inv_map(), bits))
            }
        }
    }

    /// Whether any byte of `size` bytes at `off` past any of the pointers (each with its
    /// invocation) is marked: the per-lane check of a load or store (no bounds error: an access
    /// out of bounds reads as unmarked; maps shorter than the memory hold no marks past their
    /// end).
    pub fn any_span_marked(
        &self,
        lanes: impl Iterator<Item = (u64, usize)>,
        off: u32,
        size: u32,
    ) -> bool {
        self.any_span_marked_in(&self.poison, lanes, off, size)
    }

    /// [`Memory::any_span_marked`] in the maps `maps` (the uninitialized-read layer's, for
    /// one).
    #[inline]
    pub fn any_span_marked_in(
        &self,
        maps: &PoisonMaps,
        lanes: impl Iterator<Item = (u64, usize)>,
        off: u32,
        size: u32,
    ) -> bool {
        if !maps.any {
            return false;
        }
        for (ptr, inv) in lanes {
            let Ok(ptr) = self.resolve(ptr) else {
                continue;
            };
            let (space, region, base) = decode_ptr(ptr);
            let start = base as usize + off as usize;
            let n = size as usize;
            let (map, len, bits) = match space {
                Space::Buffer => {
                    let Some(i) = self.storage(region) else {
                        continue;
                    };
                    let Some(map) = maps.buffers.get(i) else {
                        continue;
                    };
                    let len = self.buffers.get(i).map_or(0, Vec::len);
                    (
                        map,
                        len,
                        Bits {
                            b0: start,
                            n,
                            stride: 1,
                        },
                    )
                }
                Space::Workgroup => {
                    let bits = Bits {
                        b0: start,
                        n,
                        stride: 1,
                    };
                    (&maps.workgroup, self.workgroup.len(), bits)
                }
                Space::Invocation => {
                    let row = self.inv_row();
                    let bits = Bits {
                        b0: start * row + inv,
                        n,
                        stride: row,
                    };
                    (&maps.invocation, self.per_invocation, bits)
                }
            };
            if start + n > len {
                continue;
            }
            if any_bits(map, bits) {
                return true;
            }
        }
        false
    }

    /// [`Memory::any_span_marked`] for the lanes of `mask` of one subgroup, each through its
    /// pointer `ptrs[l]` (invocation `inv_base + l`). Lanes sharing one variable (a Function
    /// or Private variable, the common case) are checked at their invocations' offsets
    /// directly, without decoding the pointer per lane.
    pub fn any_lanes_marked(
        &self,
        ptrs: &[u64],
        mask: Mask,
        inv_base: usize,
        off: u32,
        size: u32,
    ) -> bool {
        if !self.poison.any || mask == 0 {
            return false;
        }
        let lanes = LaneMask(mask).iter().map(|l| l as usize);
        match self.shared_ptr(ptrs, mask) {
            Some((Space::Invocation, _, base)) => {
                self.inv_span_marked(&self.poison.invocation, base, (mask, inv_base), off, size)
            }
            // One buffer or workgroup span for every lane.
            Some(_) => {
                let l = mask.trailing_zeros() as usize;
                self.any_span_marked(std::iter::once((ptrs[l], inv_base + l)), off, size)
            }
            None => self.any_span_marked(lanes.map(|l| (ptrs[l], inv_base + l)), off, size),
        }
    }

    /// [`shared_ptr`], from the step's load or store when it found one (`step_ptr`): for
    /// `ptrs` and `mask` of that access only.
    #[inline]
    fn shared_ptr(&self, ptrs: &[u64], mask: Mask) -> Option<(Space, u32, u32)> {
        match self.step_ptr {
            Some(p) if !crate::program::is_physical(p) => Some(decode_ptr(p)),
            _ => shared_ptr(ptrs, mask),
        }
    }

    /// Whether any of `size` bytes at `off` past one Invocation-space variable (at `base`) is
    /// marked in invocation map `map` for the lanes of `mask` (invocation `inv_base + l`).
    fn inv_span_marked(
        &self,
        map: &[u64],
        base: u32,
        (mask, inv_base): (Mask, usize),
        off: u32,
        size: u32,
    ) -> bool {
        let start = base as usize + off as usize;
        let (end, row) = (start + size as usize, self.inv_row());
        if end > self.per_invocation {
            return false;
        }
        // The common case: the lanes' bits lie in one chunk of each byte's row (rows are whole
        // chunks, so in the same place in each): one load and test per byte.
        let sh = inv_base % 64;
        if sh + (Mask::BITS - mask.leading_zeros()) as usize <= 64 {
            let (m, c0, stride) = ((mask << sh) as u64, inv_base / 64, row / 64);
            return (start..end).any(|b| map.get(b * stride + c0).is_some_and(|x| x & m != 0));
        }
        (start..end).any(|b| {
            row_chunks(b * row + inv_base, mask)
                .any(|(c, m)| map.get(c).is_some_and(|x| x & m != 0))
        })
    }

    /// [`Memory::any_lanes_marked`] against the marks `maps` (not this memory's poison), for
    /// lanes sharing one Function or Private variable: `None` for any other access.
    pub fn variable_marked_in(
        &self,
        maps: &PoisonMaps,
        ptrs: &[u64],
        lanes: (Mask, usize),
        off: u32,
        size: u32,
    ) -> Option<bool> {
        match self.shared_ptr(ptrs, lanes.0)? {
            (Space::Invocation, _, base) => {
                Some(maps.any && self.inv_span_marked(&maps.invocation, base, lanes, off, size))
            }
            _ => None,
        }
    }

    /// Marks (or clears) `size` bytes at `off` past each lane's pointer, as
    /// [`Memory::any_lanes_marked`] reads them.
    pub fn mark_lanes(
        &mut self,
        ptrs: &[u64],
        mask: Mask,
        inv_base: usize,
        (off, size): (u32, u32),
        on: bool,
    ) {
        if !on && !self.poison.any || mask == 0 {
            return;
        }
        if on {
            self.poison.any = true;
        }
        let lanes = LaneMask(mask).iter().map(|l| l as usize);
        let per = self.per_invocation;
        match self.shared_ptr(ptrs, mask) {
            Some((Space::Invocation, _, base))
                if base as usize + off as usize + size as usize <= per =>
            {
                let start = base as usize + off as usize;
                let row = self.inv_row();
                let k = space_index(Space::Invocation);
                let mut marked = self.poison.marked[k];
                if !on && marked == 0 {
                    return;
                }
                let map = self.inv_map();
                let sh = inv_base % 64;
                if sh + (Mask::BITS - mask.leading_zeros()) as usize <= 64 {
                    // The lanes' bits in one chunk of each byte's row (as `inv_span_marked`
                    // reads them): one chunk per byte, found without the rows' walk.
                    let (m, c0, stride) = ((mask << sh) as u64, inv_base / 64, row / 64);
                    for b in start..start + size as usize {
                        mark_chunk(map, b * stride + c0, m, on, &mut marked);
                    }
                } else {
                    for b in start..start + size as usize {
                        for (c, m) in row_chunks(b * row + inv_base, mask) {
                            mark_chunk(map, c, m, on, &mut marked);
                        }
                    }
                }
                self.poison.marked[k] = marked;
            }
            _ => {
                for l in lanes {
                    let k = space_index(decode_ptr(ptrs[l]).0);
                    let mut marked = self.poison.marked[k];
                    // (a space with no marks has none to clear: a store's lanes to a buffer
                    // skip finding their bits)
                    if !on && marked == 0 {
                        continue;
                    }
                    if let Some((map, bits)) = self.poison_span(ptrs[l], off, size, inv_base + l) {
                        mark_bits(map, bits, on, &mut marked);
                    }
                    self.poison.marked[k] = marked;
                }
            }
        }
    }

    /// Marks (or clears) the `size` bytes at `ptr` as poison.
    pub fn set_poison_range(&mut self, ptr: u64, size: u32, inv: usize, on: bool) {
        if !on && !self.poison.any {
            return;
        }
        if on {
            self.poison.any = true;
        }
        let k = space_index(decode_ptr(ptr).0);
        let mut marked = self.poison.marked[k];
        if let Some((map, bits)) = self.poison_span(ptr, 0, size, inv) {
            mark_bits(map, bits, on, &mut marked);
        }
        self.poison.marked[k] = marked;
    }

    /// Whether any byte of the leaf at `ptr` holds poison.
    pub fn is_poison(&mut self, ptr: u64, leaf: Leaf, inv: usize) -> bool {
        if !self.poison.any {
            return false;
        }
        self.poison_words(ptr, leaf, inv)
            .is_some_and(|(map, bits)| any_bits(map, bits))
    }

    /// Mark (or clear) the bytes of the leaf at `ptr` as poison.
    pub fn set_poison(&mut self, ptr: u64, leaf: Leaf, inv: usize, on: bool) {
        if !on && !self.poison.any {
            return;
        }
        if on {
            self.poison.any = true;
        }
        let k = space_index(decode_ptr(ptr).0);
        let mut marked = self.poison.marked[k];
        if let Some((map, bits)) = self.poison_words(ptr, leaf, inv) {
            mark_bits(map, bits, on, &mut marked);
        }
        self.poison.marked[k] = marked;
    }

    /// Poisoned words of the buffer of resource `index` (indices of the 4-byte words holding a
    /// poisoned byte), for reports.
    pub fn poisoned_words(&self, index: usize) -> Vec<usize> {
        self.marked_words(&self.poison, index)
    }

    /// [`Memory::poisoned_words`] of another layer over this memory (`maps`).
    pub fn marked_words(&self, maps: &PoisonMaps, index: usize) -> Vec<usize> {
        let Some(map) = self.storage(index as u32).and_then(|i| maps.buffers.get(i)) else {
            return Vec::new();
        };
        // A word's four bits share one byte of the map: a nibble per word.
        (0..map.len() * 16)
            .filter(|w| map[w / 16] >> (w % 16 * 4) & 0xf != 0)
            .collect()
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
