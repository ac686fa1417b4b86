//! The bit maps behind the poison and uninitialized-read layers: one bit per byte, a byte's
//! bit beside the next's for buffer and workgroup memory, and for invocation memory a row per
//! byte holding every invocation's bit (so the lanes of a subgroup at one variable are
//! neighbouring bits).

use crate::lanes::{LaneMask, Mask};
use crate::program::{decode_ptr, is_physical, Space};

/// The bits of `map` from `b0` to `b1`, as (index in `map`, mask) per 64-bit chunk.
pub(super) fn chunks(b0: usize, b1: usize) -> impl Iterator<Item = (usize, u64)> {
    let (c0, c1) = (b0 / 64, b1.div_ceil(64));
    (c0..c1).map(move |c| {
        let lo = b0.max(c * 64) - c * 64;
        let hi = b1.min(c * 64 + 64) - c * 64;
        let m = if hi - lo == 64 {
            u64::MAX
        } else {
            ((1u64 << (hi - lo)) - 1) << lo
        };
        (c, m)
    })
}

/// Bits of a poison map: `n` from `b0`, `stride` apart. A buffer's or workgroup memory's map
/// keeps a byte's bit beside the next byte's (stride 1); the invocation map keeps each byte's
/// invocations side by side (a row per byte), so one invocation's bytes are a row apart and the
/// lanes of a subgroup at one variable are neighbouring bits, checked a chunk at a time.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bits {
    pub b0: usize,
    pub n: usize,
    pub stride: usize,
}

/// Whether any of `bits` of `map` is set (bits past the map's end are clear).
pub(super) fn any_bits(map: &[u64], bits: Bits) -> bool {
    if bits.stride != 1 {
        return (0..bits.n).any(|k| {
            let i = bits.b0 + k * bits.stride;
            map.get(i / 64).is_some_and(|x| x >> (i % 64) & 1 == 1)
        });
    }
    let (b0, b1) = (bits.b0, bits.b0 + bits.n);
    if b1 <= b0 {
        return false;
    }
    if b0 / 64 == (b1 - 1) / 64 {
        // Within one chunk (a scalar or small vector): one test.
        let m = (u64::MAX >> (64 - (b1 - b0))) << (b0 % 64);
        return map.get(b0 / 64).is_some_and(|x| x & m != 0);
    }
    chunks(b0, b1).any(|(c, m)| map.get(c).is_some_and(|x| x & m != 0))
}

/// The tagged pointer every lane of `mask` holds (`ptrs[l]` per lane), decoded; `None` when
/// the lanes' pointers differ or it is a physical address (those go lane by lane).
pub(super) fn shared_ptr(ptrs: &[u64], mask: Mask) -> Option<(Space, u32, u32)> {
    let p = *ptrs.get(mask.trailing_zeros() as usize)?;
    let n = (Mask::BITS - mask.leading_zeros()) as usize;
    let same = if mask & (mask >> 1) == mask >> 1 {
        // The lanes are the first n (the whole subgroup, or a prefix): a plain slice compare.
        ptrs.get(..n)?.iter().all(|x| *x == p)
    } else {
        LaneMask(mask)
            .iter()
            .all(|l| ptrs.get(l as usize) == Some(&p))
    };
    (!is_physical(p) && same).then(|| decode_ptr(p))
}

/// Sets or clears `bits` of `map`, keeping `marked` the number set.
pub(super) fn mark_bits(map: &mut [u64], bits: Bits, on: bool, marked: &mut u64) {
    if bits.stride == 1 {
        for (c, m) in chunks(bits.b0, bits.b0 + bits.n) {
            mark_chunk(map, c, m, on, marked);
        }
    } else {
        for k in 0..bits.n {
            let i = bits.b0 + k * bits.stride;
            mark_chunk(map, i / 64, 1 << (i % 64), on, marked);
        }
    }
}

pub(super) fn mark_chunk(map: &mut [u64], c: usize, m: u64, on: bool, marked: &mut u64) {
    if let Some(x) = map.get_mut(c) {
        let was = *x;
        let now = if on { was | m } else { was & !m };
        // One count of the bits that changed, only when some did (without a POPCNT
        // instruction in the baseline target, a count is a dozen instructions).
        if now != was {
            *x = now;
            let d = u64::from((was ^ now).count_ones());
            *marked = if on { *marked + d } else { *marked - d };
        }
    }
}

/// The chunks of a row of the invocation map that lanes `mask` cover from bit `at` (lane 0's):
/// (chunk, the lanes' bits in it).
pub(super) fn row_chunks(at: usize, mask: Mask) -> impl Iterator<Item = (usize, u64)> {
    let (sh, n) = (at % 64, (Mask::BITS - mask.leading_zeros()) as usize);
    (0..(sh + n).div_ceil(64)).map(move |k| {
        let m = if k == 0 {
            (mask << sh) as u64
        } else {
            (mask >> (64 * k - sh)) as u64
        };
        (at / 64 + k, m)
    })
}
