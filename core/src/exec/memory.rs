//! Byte-addressed memories: bound buffers, workgroup memory, per-invocation memory.

use crate::program::{decode_ptr, Leaf, Space};
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
    /// Poison, one bit per 4-byte word, parallel to each memory; empty until something is poison.
    pub poison: PoisonMaps,
}

#[derive(Clone, Debug, Default)]
pub struct PoisonMaps {
    pub any: bool,
    buffers: Vec<Vec<u64>>,
    workgroup: Vec<u64>,
    invocation: Vec<u64>,
}

/// An access that falls outside its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    pub space: Space,
    pub region: u32,
    pub offset: u64,
    pub size: u32,
    pub len: usize,
}

impl Memory {
    /// The storage index of resource `region`.
    #[inline]
    pub fn storage(&self, region: u32) -> Option<usize> {
        self.storage_of.get(region as usize).map(|i| *i as usize)
    }

    /// The bytes of resource `region`'s buffer.
    pub fn buffer_of(&self, region: u32) -> Option<&[u8]> {
        self.storage(region)
            .and_then(|i| self.buffers.get(i))
            .map(Vec::as_slice)
    }

    #[inline]
    fn locate(
        &mut self,
        ptr: u64,
        off: u32,
        size: u32,
        inv: usize,
    ) -> Result<&mut [u8], OutOfBounds> {
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
        let (space, region, base) = decode_ptr(ptr);
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
        Ok(())
    }

    /// The bytes of one memory and the base of invocation `inv`'s part of it, when `ptr` is
    /// valid: (memory, start of the invocation's window, window length).
    #[inline]
    pub fn window(&mut self, ptr: u64, inv: usize) -> Option<(&mut [u8], usize, usize)> {
        let (space, region, _) = decode_ptr(ptr);
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

    /// The poison bitmap and word range a leaf covers, if in bounds.
    fn poison_words(
        &mut self,
        ptr: u64,
        leaf: Leaf,
        inv: usize,
    ) -> Option<(&mut Vec<u64>, usize, usize, usize)> {
        let (space, region, base) = decode_ptr(ptr);
        let start = u64::from(base) + u64::from(leaf.offset);
        let end = start + u64::from(leaf.ty.size_bytes());
        let (len, lo, map) = match space {
            Space::Buffer => {
                let i = self.storage(region)?;
                let len = self.buffers.get(i)?.len();
                let maps = &mut self.poison.buffers;
                if maps.len() < self.buffers.len() {
                    maps.resize(self.buffers.len(), Vec::new());
                }
                (len, 0, &mut maps[i])
            }
            Space::Workgroup => (self.workgroup.len(), 0, &mut self.poison.workgroup),
            Space::Invocation => (
                self.per_invocation,
                inv * self.per_invocation,
                &mut self.poison.invocation,
            ),
        };
        if end > len as u64 {
            return None;
        }
        let total_words = match space {
            Space::Invocation => self.invocation.len(),
            Space::Buffer => len,
            Space::Workgroup => len,
        }
        .div_ceil(4);
        if map.len() < total_words.div_ceil(64) {
            map.resize(total_words.div_ceil(64), 0);
        }
        let w0 = (lo + start as usize) / 4;
        let w1 = (lo + end as usize).div_ceil(4);
        Some((map, w0, w1, total_words))
    }

    /// Whether any word of the leaf at `ptr` holds poison.
    pub fn is_poison(&mut self, ptr: u64, leaf: Leaf, inv: usize) -> bool {
        if !self.poison.any {
            return false;
        }
        self.poison_words(ptr, leaf, inv)
            .is_some_and(|(map, w0, w1, _)| (w0..w1).any(|w| map[w / 64] >> (w % 64) & 1 == 1))
    }

    /// Mark (or clear) the words of the leaf at `ptr` as poison.
    pub fn set_poison(&mut self, ptr: u64, leaf: Leaf, inv: usize, on: bool) {
        if !on && !self.poison.any {
            return;
        }
        if on {
            self.poison.any = true;
        }
        if let Some((map, w0, w1, _)) = self.poison_words(ptr, leaf, inv) {
            for w in w0..w1 {
                if on {
                    map[w / 64] |= 1 << (w % 64);
                } else {
                    map[w / 64] &= !(1 << (w % 64));
                }
            }
        }
    }

    /// Poisoned words of the buffer of resource `index` (word indices), for reports.
    pub fn poisoned_words(&self, index: usize) -> Vec<usize> {
        let Some(map) = self
            .storage(index as u32)
            .and_then(|i| self.poison.buffers.get(i))
        else {
            return Vec::new();
        };
        (0..map.len() * 64)
            .filter(|w| map[w / 64] >> (w % 64) & 1 == 1)
            .collect()
    }

    /// Length in bytes of the memory a pointer points into (for OpArrayLength).
    pub fn len_of(&self, ptr: u64) -> usize {
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
