//! Memory's byte marks (poison, and the uninitialized-read layer's unwritten bytes): set,
//! cleared and looked up per span, per lane and per variable.

use super::{
    any_bits, decode_ptr, mark_bits, mark_chunk, row_chunks, shared_ptr, space_index, Bits,
    LaneMask, Leaf, Mask, Memory, PoisonMaps, Space,
};

impl Memory {
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
        self.mark_poison(ptr, 0, size, inv, on);
    }

    /// Marks (or clears) the `size` bytes `off` bytes past `ptr` as poison.
    fn mark_poison(&mut self, ptr: u64, off: u32, size: u32, inv: usize, on: bool) {
        if !on && !self.poison.any {
            return;
        }
        if on {
            self.poison.any = true;
        }
        let k = space_index(decode_ptr(ptr).0);
        let mut marked = self.poison.marked[k];
        if let Some((map, bits)) = self.poison_span(ptr, off, size, inv) {
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
        self.mark_poison(ptr, leaf.offset, leaf.ty.size_bytes(), inv, on);
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
}
