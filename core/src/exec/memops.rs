//! Memory instructions: loads and stores (with a fast path for pointers shared by the whole
//! tangle) and atomics.

use super::memory::{self, Memory, OutOfBounds};
use super::step::{each, Ctx};
use super::Mask;
use crate::program::{AtomicOp, BinOp, Leaf};
use crate::trace::DiagCode;
use crate::value::{mask as bitmask, sext, ScalarTy};

/// The lanes' pointer, when it is the same in every lane (a physical address resolved to the
/// buffer pointer it stands for). The caller checks the access against the memory's bounds.
fn uniform_ptr(c: &Ctx<'_>, ptr: u32) -> Option<u64> {
    let s = c.s;
    let first = c.mask.trailing_zeros() as usize;
    let p = c.regs[ptr as usize * s + first];
    // Stop at the first lane that differs: most per-lane addresses differ from lane 1 on.
    let lanes = &c.regs[ptr as usize * s..ptr as usize * s + s];
    let same = if c.full {
        lanes.iter().all(|q| *q == p)
    } else {
        let mut m = c.mask;
        let mut same = true;
        while m != 0 && same {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            same = lanes[l] == p;
        }
        same
    };
    if !same {
        return None;
    }
    c.mem.resolve(p).ok()
}

/// Bytes from a pointer to the end of the last leaf an access touches.
fn access_end(table: &[Leaf]) -> u64 {
    table
        .iter()
        .map(|l| u64::from(l.offset) + u64::from(l.ty.size_bytes()))
        .max()
        .unwrap_or(0)
}

/// The memory the lanes' pointers (`lanes`, under `mask`) point into, when they differ but
/// all point into one memory (one buffer, the workgroup memory, or the invocations' private
/// memories) and every access is in bounds: (its bytes, its per-invocation stride). The
/// accesses then index it directly; anything else takes the general path, which diagnoses.
/// With the access log on (the race detector, a parallel run's footprint), the accesses are
/// logged as the general path logs them: lane by lane, each leaf in turn (`write`: a store's).
fn same_region<'m>(
    mem: &'m mut Memory,
    lanes: &[u64],
    (mask, inv_base): (Mask, usize),
    table: &[Leaf],
    write: bool,
) -> Option<(&'m mut [u8], usize)> {
    let p0 = lanes[mask.trailing_zeros() as usize];
    // Device addresses resolve per lane.
    if crate::program::is_physical(p0) {
        return None;
    }
    let end = access_end(table);
    let per = base_and_stride(mem, p0).1;
    let (hi, len) = (p0 >> 32, mem.window(p0, 0)?.2 as u64);
    let mut m = mask;
    while m != 0 {
        let q = lanes[m.trailing_zeros() as usize];
        m &= m - 1;
        if q >> 32 != hi || u64::from(q as u32) + end > len {
            return None;
        }
    }
    if mem.log.is_some() {
        mem.note_lanes(lanes, (mask, inv_base), table, write);
    }
    let (bytes, _, _) = mem.window(p0, 0)?;
    Some((bytes, per))
}

/// Loads through per-lane pointers into one memory (`same_region`).
pub(super) fn load_same_region(c: &mut Ctx<'_>, dst: u32, ptr: u32, leaves: u32) -> bool {
    let (s, inv_base, pr) = (c.s, c.inv_base, ptr as usize * c.s);
    let table = &c.prog.leaf_tables[leaves as usize];
    let regs = &mut *c.regs;
    let lanes = &regs[pr..pr + s];
    let Some((mem, per)) = same_region(c.mem, lanes, (c.mask, inv_base), table, false) else {
        return false;
    };
    for (k, leaf) in table.iter().enumerate() {
        let d = (dst as usize + k) * s;
        let size = leaf.ty.size_bytes();
        each(c.mask, c.full, s, |l| {
            let at = (inv_base + l) * per + (regs[pr + l] as u32) as usize + leaf.offset as usize;
            regs[d + l] = memory::get(mem, at, size, leaf.ty);
        });
    }
    true
}

/// Stores through per-lane pointers into one memory (`same_region`), in lane order.
fn store_same_region(c: &mut Ctx<'_>, ptr: u32, src: u32, leaves: u32) -> bool {
    let (s, inv_base, pr) = (c.s, c.inv_base, ptr as usize * c.s);
    let table = &c.prog.leaf_tables[leaves as usize];
    let regs = &*c.regs;
    let lanes = &regs[pr..pr + s];
    let Some((mem, per)) = same_region(c.mem, lanes, (c.mask, inv_base), table, true) else {
        return false;
    };
    each(c.mask, c.full, s, |l| {
        let base = (inv_base + l) * per + (regs[pr + l] as u32) as usize;
        for (k, leaf) in table.iter().enumerate() {
            let v = regs[(src as usize + k) * s + l];
            memory::put(mem, base + leaf.offset as usize, leaf.ty.size_bytes(), v);
        }
    });
    true
}

/// Byte offset of a pointer and the per-invocation stride of its memory (0 when shared).
fn base_and_stride(mem: &Memory, p: u64) -> (usize, usize) {
    let per = if crate::program::decode_ptr(p).0 == crate::program::Space::Invocation {
        mem.per_invocation
    } else {
        0
    };
    ((p as u32) as usize, per)
}

/// Notes a same-address access for the race detector: two invocations stand for all of them,
/// since any race the others are in, one of the first two is in too (they share every epoch).
fn note_first_two(c: &mut Ctx<'_>, p: u64, table: &[Leaf], write: bool) {
    // Private memory races with nothing: decided once, not per lane and leaf (most of a
    // shader's loads and stores are of its own variables).
    if c.mem.log.is_none() || crate::program::decode_ptr(p).0 == crate::program::Space::Invocation {
        return;
    }
    let mut m = if c.full {
        Mask::MAX >> (Mask::BITS as usize - c.s)
    } else {
        c.mask
    };
    for _ in 0..2 {
        if m == 0 {
            break;
        }
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        for leaf in table {
            c.mem.note(p, *leaf, c.inv_base + l, write);
        }
    }
}

pub(super) fn load_uniform_ptr(c: &mut Ctx<'_>, dst: u32, ptr: u32, leaves: u32) -> bool {
    let table = &c.prog.leaf_tables[leaves as usize];
    let Some(p) = uniform_ptr(c, ptr) else {
        return false;
    };
    let (s, inv_base) = (c.s, c.inv_base);
    let (base, per) = base_and_stride(c.mem, p);
    // The whole access in bounds (an invocation's window is as long as any other's).
    let end = base as u64 + access_end(table);
    let Some((mem, _, _)) = c.mem.window(p, 0).filter(|w| end <= w.2 as u64) else {
        return false;
    };
    let regs = &mut *c.regs;
    for (k, leaf) in table.iter().enumerate() {
        let d = (dst as usize + k) * s;
        let size = leaf.ty.size_bytes();
        let off = base + leaf.offset as usize;
        if per == 0 {
            let v = memory::get(mem, off, size, leaf.ty);
            each(c.mask, c.full, s, |l| regs[d + l] = v);
        } else if size == 4 && leaf.ty != ScalarTy::Bool {
            // The common case (32-bit scalars in Function memory) without the size dispatch.
            let base = inv_base * per + off;
            let dst = &mut regs[d..d + s];
            let word = |at: usize| {
                mem.get(at..at + 4).map_or(0, |b| {
                    u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                })
            };
            if c.full {
                for (l, r) in dst.iter_mut().enumerate() {
                    *r = word(base + l * per);
                }
            } else {
                each(c.mask, false, s, |l| dst[l] = word(base + l * per));
            }
        } else {
            each(c.mask, c.full, s, |l| {
                regs[d + l] = memory::get(mem, (inv_base + l) * per + off, size, leaf.ty)
            });
        }
    }
    // Logged once the loads are done (the log is read after the step).
    if c.mem.log.is_some() {
        c.mem.step_ptr = Some(p);
        note_first_two(c, p, table, false);
    }
    true
}

fn store_uniform_ptr(c: &mut Ctx<'_>, ptr: u32, src: u32, leaves: u32) -> bool {
    let table = &c.prog.leaf_tables[leaves as usize];
    let Some(p) = uniform_ptr(c, ptr) else {
        return false;
    };
    let (s, inv_base) = (c.s, c.inv_base);
    let (base, per) = base_and_stride(c.mem, p);
    let end = base as u64 + access_end(table);
    let Some((mem, _, _)) = c.mem.window(p, 0).filter(|w| end <= w.2 as u64) else {
        return false;
    };
    let regs = &*c.regs;
    for (k, leaf) in table.iter().enumerate() {
        let sr = (src as usize + k) * s;
        let size = leaf.ty.size_bytes();
        let off = base + leaf.offset as usize;
        // Lanes store in lane order: with a shared address the highest lane's value stays.
        if size == 4 && per != 0 {
            let base = inv_base * per + off;
            each(c.mask, c.full, s, |l| {
                let at = base + l * per;
                mem[at..at + 4].copy_from_slice(&(regs[sr + l] as u32).to_le_bytes());
            });
        } else {
            each(c.mask, c.full, s, |l| {
                memory::put(mem, (inv_base + l) * per + off, size, regs[sr + l])
            });
        }
    }
    if c.mem.log.is_some() {
        c.mem.step_ptr = Some(p);
        note_first_two(c, p, table, true);
    }
    true
}

pub(super) fn store(c: &mut Ctx<'_>, ptr: u32, src: u32, leaves: u32) {
    if store_uniform_ptr(c, ptr, src, leaves) || store_same_region(c, ptr, src, leaves) {
        return;
    }
    let s = c.s;
    let table = &c.prog.leaf_tables[leaves as usize];
    let mut bad = None;
    let mut bad_lanes: Mask = 0;
    let (regs, mem) = (&mut *c.regs, &mut *c.mem);
    each(c.mask, c.full, s, |l| {
        let p = regs[ptr as usize * s + l];
        for (k, leaf) in table.iter().enumerate() {
            if let Err(o) = mem.write(p, *leaf, c.inv_base + l, regs[(src as usize + k) * s + l]) {
                bad = Some(o);
                bad_lanes |= 1 << l;
            }
        }
    });
    if let Some(o) = bad {
        c.found.add(DiagCode::OutOfBounds, oob_msg(o), bad_lanes);
    }
}

pub(super) fn atomic(
    c: &mut Ctx<'_>,
    op: AtomicOp,
    ty: ScalarTy,
    dst: Option<u32>,
    ptr: u32,
    value: Option<u32>,
    comparator: Option<u32>,
) {
    let s = c.s;
    let w = ty.bits();
    let m = bitmask(w);
    let leaf = Leaf { offset: 0, ty };
    let mode = c.prog.float_controls.of(ty);
    let mut bad = None;
    let mut bad_lanes: Mask = 0;
    let (regs, mem) = (&mut *c.regs, &mut *c.mem);
    if let Some(log) = &mut mem.log {
        log.atomic = true;
    }
    // Lanes perform their atomics one after another, in lane order.
    each(c.mask, false, s, |l| {
        let p = regs[ptr as usize * s + l];
        let inv = c.inv_base + l;
        let old = match mem.read(p, leaf, inv) {
            Ok(v) => v,
            Err(o) => {
                bad = Some(o);
                bad_lanes |= 1 << l;
                return;
            }
        };
        let v = value.map_or(0, |v| regs[v as usize * s + l]);
        let new = match op {
            AtomicOp::Load => None,
            AtomicOp::Store | AtomicOp::Exchange => Some(v),
            AtomicOp::CompareExchange => {
                let cmp = comparator.map_or(0, |k| regs[k as usize * s + l]);
                (old == cmp).then_some(v)
            }
            AtomicOp::IIncrement => Some(old.wrapping_add(1) & m),
            AtomicOp::IDecrement => Some(old.wrapping_sub(1) & m),
            AtomicOp::IAdd => Some(old.wrapping_add(v) & m),
            AtomicOp::ISub => Some(old.wrapping_sub(v) & m),
            AtomicOp::SMin => Some(if sext(v, w) < sext(old, w) { v } else { old }),
            AtomicOp::SMax => Some(if sext(v, w) > sext(old, w) { v } else { old }),
            AtomicOp::UMin => Some(old.min(v)),
            AtomicOp::UMax => Some(old.max(v)),
            AtomicOp::And => Some(old & v),
            AtomicOp::Or => Some(old | v),
            AtomicOp::Xor => Some(old ^ v),
            AtomicOp::FAdd => Some(crate::alu::bin_in(BinOp::FAdd, ty, old, v, mode).0),
        };
        if let Some(n) = new {
            let _ = mem.write(p, leaf, inv, n);
        }
        if let Some(d) = dst {
            regs[d as usize * s + l] = old;
        }
    });
    if let Some(log) = &mut c.mem.log {
        log.atomic = false;
    }
    if let Some(o) = bad {
        c.found.add(DiagCode::OutOfBounds, oob_msg(o), bad_lanes);
    }
}

/// A load of a PhysicalStorageBuffer pointer: the bits loaded, kept inside the physical address
/// space (bits past it would read as another memory's pointer).
pub(super) fn load_physical_ptr(c: &mut Ctx<'_>, dst: u32, ptr: u32, leaves: u32) {
    let s = c.s;
    let mut bad = None;
    let mut bad_lanes: Mask = 0;
    let (regs, mem) = (&mut *c.regs, &mut *c.mem);
    let Some(leaf) = c.prog.leaf_tables[leaves as usize].first().copied() else {
        return;
    };
    each(c.mask, c.full, s, |l| {
        let p = regs[ptr as usize * s + l];
        regs[dst as usize * s + l] = match mem.read(p, leaf, c.inv_base + l) {
            Ok(v) => crate::program::physical_from_bits(v),
            Err(o) => {
                bad = Some(o);
                bad_lanes |= 1 << l;
                0
            }
        };
    });
    if let Some(o) = bad {
        c.found.add(DiagCode::OutOfBounds, oob_msg(o), bad_lanes);
    }
}

/// Device addresses that are not a multiple of the access's Aligned operand (undefined
/// behaviour; the access still happens).
pub(super) fn check_aligned(c: &mut Ctx<'_>, ptr: u32, align: u32) {
    let s = c.s;
    let mut bad: Mask = 0;
    let mut first = None;
    // An address outside every buffer is an out-of-bounds access already.
    let (regs, mem) = (&*c.regs, &mut *c.mem);
    each(c.mask, c.full, s, |l| {
        let p = regs[ptr as usize * s + l];
        if crate::program::is_physical(p) && p % u64::from(align) != 0 && mem.resolve(p).is_ok() {
            bad |= 1 << l;
            first.get_or_insert(p);
        }
    });
    if let Some(p) = first {
        c.found.add(
            DiagCode::Misaligned,
            format!("access at device address {p:#x} is not aligned to {align} bytes, as its Aligned operand says (undefined behaviour; the access is performed)"),
            bad,
        );
    }
}

pub(super) fn oob_msg(o: OutOfBounds) -> String {
    if let Some(a) = o.address {
        return format!(
            "access of {} bytes at device address {a:#x} is outside every bound buffer; the load reads 0 and the store is dropped",
            o.size
        );
    }
    format!(
        "{:?} access of {} bytes at offset {} is outside its {} bytes; the load reads 0 and the store is dropped",
        o.space, o.size, o.offset, o.len
    )
}
