//! Executing the cross-lane cooperative-matrix operations (load, store, MulAdd, conversions
//! between layouts) on one scope instance: gather the logical matrices through the layout,
//! compute, scatter. Register access goes through [`ScopeRegs`], so the same code serves a
//! subgroup (one register file) and a workgroup (every subgroup's).

use super::{arith, CoopKind, CoopOp, CoopType, Fragment, Stride};
use crate::alu;
use crate::exec::memory::Memory;
use crate::program::{Leaf, Program};
use crate::trace::DiagCode;
use crate::value::{mask, sext};

/// The registers of the invocations of one scope instance, by index in the instance.
pub trait ScopeRegs {
    /// Invocations in the scope instance.
    fn lanes(&self) -> u32;
    /// Whether invocation `lane` executes this instruction (is in the tangle).
    fn active(&self, lane: u32) -> bool;
    /// Register `slot` of invocation `lane` (raw bits).
    fn get(&self, lane: u32, slot: u32) -> u64;
    /// Writes `v` (raw bits) to register `slot` of invocation `lane`.
    fn set(&mut self, lane: u32, slot: u32, v: u64);
    /// Local invocation index of `lane` (for per-invocation memory).
    fn invocation(&self, lane: u32) -> usize;
}

/// Findings of one operation: (diagnostic code, message, invocations of the scope concerned).
#[derive(Default, Debug)]
pub struct Report {
    /// The findings in the order found.
    pub items: Vec<(DiagCode, String, Vec<u32>)>,
}

impl Report {
    /// Adds a finding, unless `lanes` is empty.
    pub fn add(&mut self, code: DiagCode, msg: impl Into<String>, lanes: Vec<u32>) {
        if !lanes.is_empty() {
            self.items.push((code, msg.into(), lanes));
        }
    }
}

fn active_lanes(r: &dyn ScopeRegs) -> Vec<u32> {
    (0..r.lanes()).filter(|l| r.active(*l)).collect()
}

/// The logical matrix (row-major) of the value at `slot`: each element from its lowest active
/// holder. Reports elements no active lane holds (read as 0) and replicas that disagree.
pub fn gather(frag: &Fragment, slot: u32, r: &dyn ScopeRegs, rep: &mut Report) -> Vec<u64> {
    let len = frag.length;
    let mut out = vec![0u64; frag.elements()];
    let mut seen = vec![false; frag.elements()];
    let mut mismatch = Vec::new();
    for lane in 0..frag.lanes.min(r.lanes()) {
        if !r.active(lane) {
            continue;
        }
        for i in 0..len {
            let e = frag.map[(lane * len + i) as usize];
            if e == super::layout::NONE {
                continue;
            }
            let v = r.get(lane, slot + i);
            if !seen[e as usize] {
                seen[e as usize] = true;
                out[e as usize] = v;
            } else if out[e as usize] != v && mismatch.last() != Some(&lane) {
                mismatch.push(lane);
            }
        }
    }
    if seen.iter().any(|s| !*s) {
        let missing = seen.iter().filter(|s| !**s).count();
        rep.add(
            DiagCode::CoopmatPartialTangle,
            format!("{missing} elements are held only by invocations not executing this instruction: they read as 0"),
            active_lanes(r),
        );
    }
    rep.add(
        DiagCode::CoopmatReplicaMismatch,
        "lanes holding copies of the same element disagree (written per lane); the lowest lane's copy was used",
        mismatch,
    );
    out
}

/// Write the logical matrix `m` into the components of every active invocation.
pub fn scatter(frag: &Fragment, slot: u32, m: &[u64], r: &mut dyn ScopeRegs) {
    let len = frag.length;
    for lane in 0..frag.lanes.min(r.lanes()) {
        if !r.active(lane) {
            continue;
        }
        for i in 0..len {
            let e = frag.map[(lane * len + i) as usize];
            let v = if e == super::layout::NONE {
                0
            } else {
                m[e as usize]
            };
            r.set(lane, slot + i, v);
        }
    }
}

/// The first active lane's value of a scalar operand, reporting lanes that differ from it.
pub fn uniform(r: &dyn ScopeRegs, slot: u32, what: &str, rep: &mut Report) -> u64 {
    let act = active_lanes(r);
    let Some(&first) = act.first() else { return 0 };
    let v = r.get(first, slot);
    let differ: Vec<u32> = act
        .iter()
        .copied()
        .filter(|l| r.get(*l, slot) != v)
        .collect();
    if !differ.is_empty() {
        rep.add(
            DiagCode::CoopmatNonuniformOperand,
            format!("{what} must be dynamically uniform across the scope; lane {first}'s value was used"),
            act,
        );
    }
    v
}

/// Execute a cross-lane operation. Every invocation of the scope instance must be active;
/// otherwise it is reported and the missing invocations' components are read as 0 and not
/// written.
pub fn exec(
    op: &CoopOp,
    prog: &Program,
    r: &mut dyn ScopeRegs,
    mem: &mut Memory,
    rep: &mut Report,
) {
    let frag = |t: &CoopType| &*prog.coop_frags[t.frag as usize];
    let act = active_lanes(r);
    if act.len() as u32 != r.lanes() {
        rep.add(
            DiagCode::CoopmatPartialTangle,
            format!(
                "a cooperative-matrix instruction needs every invocation of its scope; {} of {} execute it",
                act.len(),
                r.lanes()
            ),
            act.clone(),
        );
    }
    match &op.kind {
        CoopKind::Memory {
            store,
            value,
            ty,
            ptr,
            col_major,
            stride,
            unit,
        } => {
            let f = frag(ty);
            let p = uniform(r, *ptr, "the Pointer operand", rep);
            // A physical address: the buffer pointer it stands for (one outside every buffer
            // stays as it is, and every element of it is out of bounds).
            let p = mem.resolve(p).unwrap_or(p);
            let st = stride_value(r, *stride, rep);
            let what = if *store {
                "OpCooperativeMatrixStoreKHR"
            } else {
                "OpCooperativeMatrixLoadKHR"
            };
            if st < 0 || (*store && st == 0) {
                rep.add(
                    DiagCode::CoopmatInvalidStride,
                    format!(
                        "{what} with Stride {st}: it must be {} (undefined behaviour)",
                        if *store {
                            "greater than 0"
                        } else {
                            "0 or more"
                        }
                    ),
                    act.clone(),
                );
            }
            let inv = act.first().map_or(0, |l| r.invocation(*l));
            let esize = ty.elem.size_bytes();
            let mut values = if *store {
                gather(f, *value, r, rep)
            } else {
                vec![0; f.elements()]
            };
            let mut oob = None;
            for row in 0..ty.rows {
                for col in 0..ty.cols {
                    let (major, minor) = if *col_major { (col, row) } else { (row, col) };
                    let off = i128::from(p as u32)
                        + i128::from(major) * i128::from(st) * i128::from(*unit)
                        + i128::from(minor) * i128::from(esize);
                    let e = (row * ty.cols + col) as usize;
                    let leaf = Leaf {
                        offset: 0,
                        ty: ty.elem,
                    };
                    let res = if (0..=i128::from(u32::MAX)).contains(&off) {
                        let q = crate::program::ptr_offset(p, (off - i128::from(p as u32)) as i64);
                        if *store {
                            mem.write(q, leaf, inv, values[e])
                        } else {
                            mem.read(q, leaf, inv).map(|v| values[e] = v)
                        }
                    } else {
                        Err(crate::exec::memory::OutOfBounds {
                            space: crate::program::decode_ptr(p).0,
                            region: 0,
                            offset: off.clamp(0, i128::from(u64::MAX)) as u64,
                            size: esize,
                            len: mem.len_of(p),
                            address: None,
                        })
                    };
                    if let Err(o) = res {
                        oob.get_or_insert((row, col, o));
                    }
                }
            }
            if let Some((row, col, o)) = oob {
                rep.add(
                    DiagCode::OutOfBounds,
                    format!(
                        "{what}: element ({row}, {col}) and maybe others fall at byte {} of a {}-byte {:?} memory; {}",
                        o.offset,
                        o.len,
                        o.space,
                        if *store { "those writes are dropped" } else { "they read as 0" }
                    ),
                    act.clone(),
                );
            }
            if !*store {
                scatter(f, *value, &values, r);
            }
            values.clear();
        }
        CoopKind::MulAdd {
            dst,
            a,
            b,
            c,
            tys,
            types,
            flags,
        } => {
            let av = gather(frag(&tys[0]), *a, r, rep);
            let bv = gather(frag(&tys[1]), *b, r, rep);
            let cv = gather(frag(&tys[2]), *c, r, rep);
            let res = arith::muladd(types, *flags, &av, &bv, &cv, &prog.float_controls);
            let fr = frag(&tys[3]);
            if !res.overflow.is_empty() {
                let (row, col) = (res.overflow[0] / types.n, res.overflow[0] % types.n);
                rep.add(
                    DiagCode::CoopmatOverflow,
                    format!(
                        "OpCooperativeMatrixMulAddKHR with SaturatingAccumulation: A x B overflows the result type at {} elements, first ({row}, {col}); the result is undefined there (computed wrapped, then saturated)",
                        res.overflow.len()
                    ),
                    holders(fr, &res.overflow, r),
                );
            }
            scatter(fr, *dst, &res.value, r);
        }
        CoopKind::Convert {
            op: cop,
            dst,
            a,
            from,
            to,
        } => {
            let v = gather(frag(from), *a, r, rep);
            let modes = alu::ConvModes::new(&prog.float_controls, from.elem, to.elem);
            let mut undefined = Vec::new();
            let out: Vec<u64> = v
                .iter()
                .enumerate()
                .map(|(e, x)| match cop {
                    Some(c) => {
                        let (y, u) = alu::conv_in(*c, from.elem, to.elem, *x, modes);
                        if u {
                            undefined.push(e as u32);
                        }
                        y
                    }
                    None => *x & mask(to.elem.bits()),
                })
                .collect();
            let ft = frag(to);
            if !undefined.is_empty() {
                rep.add(
                    DiagCode::UndefinedResult,
                    format!(
                        "conversion of {} elements out of the destination's range",
                        undefined.len()
                    ),
                    holders(ft, &undefined, r),
                );
            }
            scatter(ft, *dst, &out, r);
        }
        // Per-lane kinds are executed by the caller.
        CoopKind::Splat { .. } | CoopKind::Elementwise { .. } => {}
    }
}

fn stride_value(r: &dyn ScopeRegs, s: Stride, rep: &mut Report) -> i64 {
    let v = uniform(r, s.slot, "the Stride operand", rep);
    if s.signed {
        sext(v, u32::from(s.bits))
    } else {
        (v & mask(u32::from(s.bits))) as i64
    }
}

/// Active invocations holding any of `elements`.
fn holders(f: &Fragment, elements: &[u32], r: &dyn ScopeRegs) -> Vec<u32> {
    let mut want = vec![false; f.elements()];
    for e in elements {
        want[*e as usize] = true;
    }
    (0..f.lanes.min(r.lanes()))
        .filter(|l| {
            r.active(*l)
                && (0..f.length).any(|i| {
                    let e = f.map[(l * f.length + i) as usize];
                    e != super::layout::NONE && want[e as usize]
                })
        })
        .collect()
}

/// The registers of one subgroup as a scope instance.
pub struct SubgroupRegs<'a> {
    /// The subgroup's registers: slot `k` of lane `l` at index `k * s + l`.
    pub regs: &'a mut [u64],
    /// Subgroup size (lanes per register slot).
    pub s: usize,
    /// The lanes executing the instruction (the tangle).
    pub mask: crate::lanes::Mask,
    /// Local invocation index of lane 0.
    pub inv_base: usize,
}

impl ScopeRegs for SubgroupRegs<'_> {
    fn lanes(&self) -> u32 {
        self.s as u32
    }
    fn active(&self, lane: u32) -> bool {
        self.mask >> lane & 1 == 1
    }
    fn get(&self, lane: u32, slot: u32) -> u64 {
        self.regs[slot as usize * self.s + lane as usize]
    }
    fn set(&mut self, lane: u32, slot: u32, v: u64) {
        self.regs[slot as usize * self.s + lane as usize] = v;
    }
    fn invocation(&self, lane: u32) -> usize {
        self.inv_base + lane as usize
    }
}
