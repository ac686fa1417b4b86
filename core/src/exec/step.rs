//! Executing one non-terminator instruction for the lanes of one tangle.

use super::ext::ext;
use super::lanewise::{bin, dot_sum, index_value, map1};
use super::memops::{
    atomic, check_aligned, load_physical_ptr, load_same_region, load_uniform_ptr, oob_msg, store,
};
use super::memory::Memory;
use super::{subgroup, Mask};
use crate::alu;
use crate::program::{AccessStep, BinOp, Inst, Program, WideOp};
use crate::trace::DiagCode;
use crate::value::{mask as bitmask, sext};

/// What the scheduler must do after an instruction.
pub enum Flow {
    Next,
    Call,
    Barrier {
        workgroup: bool,
        memory: u32,
    },
    /// A Workgroup-scope cooperative-matrix operation: wait until the whole workgroup is there.
    CoopWorkgroup,
}

/// Problems found while executing one instruction, by lane.
#[derive(Default)]
pub struct Findings {
    pub items: Vec<(DiagCode, String, Mask)>,
    /// For a permutation (shuffle, broadcast, rotate): (lane, the lane it read).
    pub permutation: Option<Vec<(usize, usize)>>,
}

impl Findings {
    pub(super) fn add(&mut self, code: DiagCode, msg: impl Into<String>, lanes: Mask) {
        self.add_with(code, lanes, || msg.into());
    }

    /// As [`Findings::add`], the message made only when some lane found it (for a message
    /// formatted on a path every instruction of a kind takes).
    pub(super) fn add_with(&mut self, code: DiagCode, lanes: Mask, msg: impl FnOnce() -> String) {
        if lanes != 0 {
            self.items.push((code, msg(), lanes));
        }
    }
}

pub struct Ctx<'a> {
    pub prog: &'a Program,
    pub regs: &'a mut [u64],
    pub s: usize,
    pub mask: Mask,
    pub full: bool,
    pub mem: &'a mut Memory,
    /// Local invocation index of lane 0.
    pub inv_base: usize,
    pub found: &'a mut Findings,
}

#[inline(always)]
pub(super) fn each(mask: Mask, full: bool, s: usize, mut f: impl FnMut(usize)) {
    if full {
        for l in 0..s {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            f(l);
        }
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "the instruction dispatch is one match"
)]
pub fn exec(c: &mut Ctx<'_>, inst: &Inst) -> Flow {
    let s = c.s;
    let r = |slot: u32, l: usize| slot as usize * s + l;
    match inst {
        Inst::Copy { dst, src, n } => map1(c, *n, *dst, *src, |x| x),
        Inst::Un { op, ty, n, dst, a } => {
            let (op, ty) = (*op, *ty);
            let mode = c.prog.float_controls.of(ty);
            map1(c, *n, *dst, *a, |x| alu::un_in(op, ty, x, mode));
        }
        Inst::Bin {
            op,
            ty,
            n,
            dst,
            a,
            b,
        } => bin(c, *op, *ty, *n, *dst, *a, *b),
        Inst::Wide {
            op,
            ty,
            n,
            dst,
            a,
            b,
        } => {
            let w = ty.bits();
            let m = bitmask(w);
            for k in 0..*n {
                let regs = &mut *c.regs;
                each(c.mask, c.full, s, |l| {
                    let (x, y) = (regs[r(a + k, l)], regs[r(b + k, l)]);
                    let (lo, hi) = match op {
                        WideOp::AddCarry => {
                            let sum = u128::from(x) + u128::from(y);
                            ((sum as u64) & m, u64::from((sum >> w) & 1 == 1))
                        }
                        WideOp::SubBorrow => (x.wrapping_sub(y) & m, u64::from(y > x)),
                        WideOp::UMulExtended => {
                            let p = u128::from(x) * u128::from(y);
                            ((p as u64) & m, ((p >> w) as u64) & m)
                        }
                        WideOp::SMulExtended => {
                            let p = i128::from(sext(x, w)) * i128::from(sext(y, w));
                            ((p as u64) & m, ((p >> w) as u64) & m)
                        }
                    };
                    regs[r(dst + k, l)] = lo;
                    regs[r(dst + n + k, l)] = hi;
                });
            }
        }
        Inst::Conv {
            op,
            from,
            to,
            n,
            dst,
            a,
            round,
        } => {
            let mut undef: Mask = 0;
            let modes = alu::ConvModes::new(&c.prog.float_controls, *from, *to).decorated(*round);
            for k in 0..*n {
                let regs = &mut *c.regs;
                each(c.mask, c.full, s, |l| {
                    let (v, u) = alu::conv_in(*op, *from, *to, regs[r(a + k, l)], modes);
                    regs[r(dst + k, l)] = v;
                    if u {
                        undef |= 1 << l;
                    }
                });
            }
            c.found.add_with(DiagCode::UndefinedResult, undef, || {
                format!("{op:?} of a value out of the destination's range")
            });
        }
        Inst::Bitcast { from, to, dst, a } => {
            let regs = &mut *c.regs;
            each(c.mask, c.full, s, |l| {
                let mut bits: u128 = 0;
                let mut pos = 0;
                let mut out_k = 0u32;
                // Concatenate source components little-endian, splitting as destination
                // components fill up (widths are at most 64 bits, so a u128 buffer suffices).
                let mut ti = to.iter();
                let mut need = ti.next().map_or(0, |t| t.bits());
                for (in_k, f) in (0u32..).zip(from) {
                    bits |= u128::from(regs[r(a + in_k, l)] & bitmask(f.bits())) << pos;
                    pos += f.bits();
                    while need > 0 && pos >= need {
                        regs[r(dst + out_k, l)] = (bits as u64) & bitmask(need);
                        bits >>= need;
                        pos -= need;
                        out_k += 1;
                        need = ti.next().map_or(0, |t| t.bits());
                    }
                }
            });
        }
        Inst::Select {
            dst,
            cond,
            cond_vector,
            a,
            b,
            n,
        } => {
            let regs = &mut *c.regs;
            for k in 0..*n {
                let ck = if *cond_vector { cond + k } else { *cond };
                each(c.mask, c.full, s, |l| {
                    regs[r(dst + k, l)] = if regs[r(ck, l)] != 0 {
                        regs[r(a + k, l)]
                    } else {
                        regs[r(b + k, l)]
                    };
                });
            }
        }
        Inst::Image(i) => super::image::exec(c, i),
        Inst::PtrFromBits { dst, a, bits, pair } => {
            let regs = &mut *c.regs;
            let m = bitmask(u32::from(*bits));
            each(c.mask, c.full, s, |l| {
                let v = if *pair {
                    (regs[r(*a, l)] & 0xffff_ffff) | regs[r(*a + 1, l)] << 32
                } else {
                    regs[r(*a, l)] & m
                };
                regs[r(*dst, l)] = crate::program::physical_from_bits(v);
            });
        }
        Inst::PtrDiff {
            dst,
            a,
            b,
            stride,
            bits,
        } => {
            // Pointers into one object differ only in their byte offsets (the low 32 bits), or
            // physical addresses in the whole address.
            let regs = &mut *c.regs;
            let (stride, mask) = (i64::from((*stride).max(1)), bitmask(u32::from(*bits)));
            each(c.mask, c.full, s, |l| {
                let (pa, pb) = (regs[r(*a, l)], regs[r(*b, l)]);
                let d = if crate::program::is_physical(pa) {
                    pa.wrapping_sub(pb) as i64
                } else {
                    i64::from(pa as u32) - i64::from(pb as u32)
                };
                regs[r(*dst, l)] = (d / stride) as u64 & mask;
            });
        }
        Inst::Shuffle {
            dst,
            a,
            b,
            na,
            comps,
        } => {
            let regs = &mut *c.regs;
            each(c.mask, c.full, s, |l| {
                let vals: Vec<u64> = comps
                    .iter()
                    .map(|&k| {
                        if k == u32::MAX {
                            0
                        } else if k < *na {
                            regs[r(a + k, l)]
                        } else {
                            regs[r(b + k - na, l)]
                        }
                    })
                    .collect();
                for (k, v) in vals.into_iter().enumerate() {
                    regs[r(dst + k as u32, l)] = v;
                }
            });
        }
        Inst::Construct { dst, parts } => {
            let mut off = 0;
            for (src, w) in parts {
                map1(c, *w, dst + off, *src, |x| x);
                off += w;
            }
        }
        Inst::Insert {
            dst,
            composite,
            width,
            object,
            offset,
            n,
        } => {
            if dst != composite {
                map1(c, *width, *dst, *composite, |x| x);
            }
            map1(c, *n, dst + offset, *object, |x| x);
        }
        Inst::ExtractDyn {
            dst,
            src,
            len,
            index,
            index_bits,
        } => {
            let regs = &mut *c.regs;
            let mut bad: Mask = 0;
            each(c.mask, c.full, s, |l| {
                let i = regs[r(*index, l)] & bitmask(u32::from(*index_bits));
                regs[r(*dst, l)] = if i < u64::from(*len) {
                    regs[r(src + i as u32, l)]
                } else {
                    bad |= 1 << l;
                    0
                };
            });
            c.found.add(
                DiagCode::OutOfBounds,
                "OpVectorExtractDynamic index out of range (result undefined, reads 0)",
                bad,
            );
        }
        Inst::InsertDyn {
            dst,
            src,
            len,
            object,
            index,
            index_bits,
        } => {
            map1(c, *len, *dst, *src, |x| x);
            let regs = &mut *c.regs;
            let mut bad: Mask = 0;
            each(c.mask, c.full, s, |l| {
                let i = regs[r(*index, l)] & bitmask(u32::from(*index_bits));
                if i < u64::from(*len) {
                    regs[r(dst + i as u32, l)] = regs[r(*object, l)];
                } else {
                    bad |= 1 << l;
                }
            });
            c.found.add(
                DiagCode::OutOfBounds,
                "OpVectorInsertDynamic index out of range (no component written)",
                bad,
            );
        }
        Inst::Any { dst, a, n } | Inst::All { dst, a, n } => {
            let any = matches!(inst, Inst::Any { .. });
            let regs = &mut *c.regs;
            each(c.mask, c.full, s, |l| {
                let mut v = !any;
                for k in 0..*n {
                    let b = regs[r(a + k, l)] != 0;
                    v = if any { v || b } else { v && b };
                }
                regs[r(*dst, l)] = u64::from(v);
            });
        }
        Inst::Dot { ty, n, dst, a, b } => {
            let regs = &mut *c.regs;
            let mode = c.prog.float_controls.of(*ty);
            each(c.mask, c.full, s, |l| {
                let pairs = (0..*n).map(|k| (regs[r(a + k, l)], regs[r(b + k, l)]));
                regs[r(*dst, l)] = dot_sum(*ty, mode, pairs);
            });
        }
        Inst::Scale {
            ty,
            n,
            dst,
            a,
            s: sc,
        } => {
            let ty = *ty;
            let op = if ty.is_any_float() {
                BinOp::FMul
            } else {
                BinOp::IMul
            };
            let mode = c.prog.float_controls.of(ty);
            for k in 0..*n {
                let regs = &mut *c.regs;
                each(c.mask, c.full, s, |l| {
                    regs[r(dst + k, l)] =
                        alu::bin_in(op, ty, regs[r(a + k, l)], regs[r(*sc, l)], mode).0
                });
            }
        }
        Inst::MatMul {
            ty,
            rows,
            inner,
            cols,
            dst,
            a,
            b,
            a_row_vector,
        } => {
            let regs = &mut *c.regs;
            let mode = c.prog.float_controls.of(*ty);
            each(c.mask, c.full, s, |l| {
                let mut out = Vec::with_capacity((rows * cols) as usize);
                for j in 0..*cols {
                    for i in 0..*rows {
                        let pairs = (0..*inner).map(|k| {
                            let av = if *a_row_vector {
                                regs[r(a + k, l)]
                            } else {
                                regs[r(a + k * rows + i, l)]
                            };
                            (av, regs[r(b + j * inner + k, l)])
                        });
                        out.push(dot_sum(*ty, mode, pairs));
                    }
                }
                for (k, v) in out.into_iter().enumerate() {
                    regs[r(dst + k as u32, l)] = v;
                }
            });
        }
        Inst::Transpose { dst, a, rows, cols } => {
            let regs = &mut *c.regs;
            each(c.mask, c.full, s, |l| {
                let v: Vec<u64> = (0..rows * cols).map(|k| regs[r(a + k, l)]).collect();
                // Source column j, row i -> destination column i, row j.
                for j in 0..*cols {
                    for i in 0..*rows {
                        regs[r(dst + i * cols + j, l)] = v[(j * rows + i) as usize];
                    }
                }
            });
        }
        Inst::Variable {
            dst, offset, init, ..
        } => {
            let p = crate::program::encode_ptr(crate::program::Space::Invocation, 0, *offset);
            let regs = &mut *c.regs;
            each(c.mask, c.full, s, |l| regs[r(*dst, l)] = p);
            if let Some((src, leaves)) = init {
                store(c, *dst, *src, *leaves);
            }
        }
        Inst::Load {
            dst,
            ptr,
            leaves,
            physical,
            align,
        } => {
            if *align > 1 {
                check_aligned(c, *ptr, *align);
            }
            if *physical {
                load_physical_ptr(c, *dst, *ptr, *leaves);
            } else if !load_uniform_ptr(c, *dst, *ptr, *leaves)
                && !load_same_region(c, *dst, *ptr, *leaves)
            {
                let table = &c.prog.leaf_tables[*leaves as usize];
                let mut bad = None;
                let mut bad_lanes: Mask = 0;
                let (regs, mem) = (&mut *c.regs, &mut *c.mem);
                each(c.mask, c.full, s, |l| {
                    let p = regs[r(*ptr, l)];
                    for (k, leaf) in table.iter().enumerate() {
                        regs[r(dst + k as u32, l)] = match mem.read(p, *leaf, c.inv_base + l) {
                            Ok(v) => v,
                            Err(o) => {
                                bad = Some(o);
                                bad_lanes |= 1 << l;
                                0
                            }
                        };
                    }
                });
                if let Some(o) = bad {
                    c.found.add(DiagCode::OutOfBounds, oob_msg(o), bad_lanes);
                }
            }
        }
        Inst::Store {
            ptr,
            src,
            leaves,
            align,
        } => {
            if *align > 1 {
                check_aligned(c, *ptr, *align);
            }
            store(c, *ptr, *src, *leaves);
        }
        Inst::CopyMemory {
            dst_ptr,
            src_ptr,
            dst_leaves,
            src_leaves,
        } => {
            let st = &c.prog.leaf_tables[*src_leaves as usize];
            let dt = &c.prog.leaf_tables[*dst_leaves as usize];
            let mut bad = None;
            let mut bad_lanes: Mask = 0;
            let (regs, mem) = (&mut *c.regs, &mut *c.mem);
            each(c.mask, c.full, s, |l| {
                let (sp, dp) = (regs[r(*src_ptr, l)], regs[r(*dst_ptr, l)]);
                for (sl, dl) in st.iter().zip(dt) {
                    let res = mem
                        .read(sp, *sl, c.inv_base + l)
                        .and_then(|v| mem.write(dp, *dl, c.inv_base + l, v));
                    if let Err(o) = res {
                        bad = Some(o);
                        bad_lanes |= 1 << l;
                    }
                }
            });
            if let Some(o) = bad {
                c.found.add(DiagCode::OutOfBounds, oob_msg(o), bad_lanes);
            }
        }
        Inst::AccessChain { dst, base, steps } => {
            let regs = &mut *c.regs;
            let mut bad: Mask = 0;
            // The constant steps are the same for every lane: summed once.
            let konst = steps.iter().fold(0i64, |o, st| match *st {
                AccessStep::Const(k) => o.wrapping_add(i64::from(k)),
                AccessStep::Shift(d) => o.wrapping_add(d),
                AccessStep::Dyn { .. } | AccessStep::Descriptor { .. } => o,
            });
            // The common shape, one 32-bit array index after constant steps, in a tight loop.
            let mut dyns = steps
                .iter()
                .filter(|st| matches!(st, AccessStep::Dyn { .. } | AccessStep::Descriptor { .. }));
            if let (
                Some(&AccessStep::Dyn {
                    index,
                    bits: 32,
                    signed,
                    stride,
                    len,
                    element: false,
                }),
                None,
            ) = (dyns.next(), dyns.next())
            {
                let (d, b, x) = (*dst as usize * s, *base as usize * s, index as usize * s);
                let limit = len.map_or(i64::MAX, i64::from);
                each(c.mask, c.full, s, |l| {
                    let i = index_value(regs[x + l], 32, signed);
                    if i < 0 || i >= limit {
                        bad |= 1 << l;
                    }
                    let off = konst.wrapping_add(i.wrapping_mul(i64::from(stride)));
                    regs[d + l] = crate::program::ptr_offset(regs[b + l], off);
                });
                c.found.add(
                    DiagCode::OutOfBounds,
                    "access chain index outside its array (undefined behaviour)",
                    bad,
                );
                return Flow::Next;
            }
            each(c.mask, c.full, s, |l| {
                let mut p = regs[r(*base, l)];
                let mut off = konst;
                for st in steps {
                    match *st {
                        AccessStep::Const(_) | AccessStep::Shift(_) => {}
                        AccessStep::Descriptor {
                            index,
                            bits,
                            signed,
                            count,
                            low,
                        } => {
                            let i = index_value(regs[r(index, l)], bits, signed);
                            // The elements are consecutive regions; outside the array the
                            // pointer stays at element 0, with the diagnostic below.
                            if (0..i64::from(count)).contains(&i) {
                                p = p.wrapping_add(((i as u64) << 32) + i as u64 * u64::from(low));
                            } else {
                                bad |= 1 << l;
                            }
                        }
                        AccessStep::Dyn {
                            index,
                            bits,
                            signed,
                            stride,
                            len,
                            element,
                        } => {
                            let i = index_value(regs[r(index, l)], bits, signed);
                            if !element && (i < 0 || len.is_some_and(|n| i >= i64::from(n))) {
                                bad |= 1 << l;
                            }
                            off = off.wrapping_add(i.wrapping_mul(i64::from(stride)));
                        }
                    }
                }
                regs[r(*dst, l)] = crate::program::ptr_offset(p, off);
            });
            c.found.add(
                DiagCode::OutOfBounds,
                "access chain index outside its array (undefined behaviour)",
                bad,
            );
        }
        Inst::ArrayLength {
            dst,
            ptr,
            member_offset,
            stride,
        } => {
            let regs = &mut *c.regs;
            let mem = &*c.mem;
            each(c.mask, c.full, s, |l| {
                let len = mem.len_of(regs[r(*ptr, l)]) as u64;
                regs[r(*dst, l)] =
                    len.saturating_sub(u64::from(*member_offset)) / u64::from((*stride).max(1));
            });
        }
        Inst::Atomic {
            op,
            ty,
            dst,
            ptr,
            value,
            comparator,
        } => atomic(c, *op, *ty, *dst, *ptr, *value, *comparator),
        Inst::Ext {
            opcode: code,
            out_tys,
            dst,
            args,
            ptr_out,
        } => ext(c, *code, out_tys, *dst, args, *ptr_out),
        Inst::IntDot {
            kind,
            packed,
            comp_bits,
            n,
            result_bits,
            dst,
            a,
            b,
            acc,
        } => {
            let regs = &mut *c.regs;
            let mut over: Mask = 0;
            each(c.mask, c.full, s, |l| {
                let get = |slot: u32| -> Vec<u64> {
                    if *packed {
                        crate::dot::unpack4x8(regs[r(slot, l)]).to_vec()
                    } else {
                        (0..*n).map(|k| regs[r(slot + k, l)]).collect()
                    }
                };
                let steps = crate::dot::dot(
                    *kind,
                    &get(*a),
                    &get(*b),
                    *comp_bits,
                    *result_bits,
                    acc.map(|x| regs[r(x, l)]),
                );
                if steps.overflow {
                    over |= 1 << l;
                }
                regs[r(*dst, l)] = steps.result;
            });
            c.found.add(DiagCode::DotOverflow, "a product or sum of the dot product does not fit the result width before the saturating accumulation: the result is undefined (computed as the wrapped dot, then saturated)", over);
        }
        Inst::Subgroup { op, ty, n, dst, a } => {
            let mode = c.prog.float_controls.of(*ty);
            let mut u = subgroup::exec(op, *ty, *n, *dst, *a, c.regs, s, c.mask, mode);
            if u.permutation {
                c.found.permutation = Some(std::mem::take(&mut u.sources));
            }
            if matches!(op, crate::program::SubgroupOp::Rotate { .. }) {
                c.found.add(DiagCode::RotateInactiveSource, "rotate read a lane that is not in the tangle: the value is undefined (read as 0)", u.inactive_source);
                if let Some(cs) = u.bad_cluster {
                    c.found.add(
                        DiagCode::InvalidClusterSize,
                        format!(
                            "ClusterSize {cs} is not a power of two no larger than the subgroup"
                        ),
                        c.mask,
                    );
                }
                if u.nonuniform {
                    c.found.add(
                        DiagCode::NonuniformDelta,
                        "Delta is not dynamically uniform across the tangle",
                        c.mask,
                    );
                }
                return Flow::Next;
            }
            c.found.add(DiagCode::InactiveSource, "subgroup operation read a lane outside the tangle or subgroup (undefined; read as 0, or the lane's own value outside the subgroup)", u.inactive_source);
            c.found.add(
                DiagCode::UndefinedResult,
                "subgroup operation result is undefined (e.g. FindLSB/MSB of an empty ballot)",
                u.other,
            );
            c.found.add(
                DiagCode::UndefinedResult,
                "partitioned operation: the invocation is not in its own Ballot's partition (SPV_NV_shader_subgroup_partitioned requires it; the result is undefined)",
                u.outside_partition,
            );
            if let Some(cs) = u.bad_cluster {
                c.found.add(
                    DiagCode::InvalidClusterSize,
                    format!("ClusterSize {cs} is not a power of two no larger than the subgroup"),
                    c.mask,
                );
            }
            if u.nonuniform {
                c.found.add(DiagCode::NonuniformOperand, "an operand that must be dynamically uniform differs across the tangle (the first lane's value was used)", c.mask);
            }
        }
        Inst::Coop(op) => return super::coop::exec(c, op),
        Inst::Call { .. } => return Flow::Call,
        Inst::Barrier { workgroup, memory } => {
            return Flow::Barrier {
                workgroup: *workgroup,
                memory: *memory,
            }
        }
    }
    Flow::Next
}
