//! Workgroup-scope cooperative-matrix operations (run once for the whole workgroup) and the
//! cooperative-matrix views.

use super::Simulator;
use crate::coopmat::exec::{exec as exec_cross, Report, ScopeRegs};
use crate::coopmat::{CoopType, Fragment, LayoutChoice};
use crate::exec::Mask;
use crate::program::{Inst, Type};
use crate::sched::Subgroup;
use std::sync::Arc;

/// Every subgroup's registers as one Workgroup scope instance (lane = local invocation index).
struct WorkgroupRegs<'a> {
    sgs: &'a mut [Subgroup],
    masks: Vec<Mask>,
    s: usize,
    n: u32,
}

impl ScopeRegs for WorkgroupRegs<'_> {
    fn lanes(&self) -> u32 {
        self.n
    }
    fn active(&self, lane: u32) -> bool {
        let (g, l) = (lane as usize / self.s, lane as usize % self.s);
        self.masks.get(g).is_some_and(|m| m >> l & 1 == 1)
    }
    fn get(&self, lane: u32, slot: u32) -> u64 {
        let (g, l) = (lane as usize / self.s, lane as usize % self.s);
        self.sgs[g].regs[slot as usize * self.s + l]
    }
    fn set(&mut self, lane: u32, slot: u32, v: u64) {
        let (g, l) = (lane as usize / self.s, lane as usize % self.s);
        self.sgs[g].regs[slot as usize * self.s + l] = v;
    }
    fn invocation(&self, lane: u32) -> usize {
        lane as usize
    }
}

impl Simulator {
    /// Run the Workgroup-scope cooperative-matrix operations tangles wait at, once per
    /// instruction for every invocation waiting there. False when none waits.
    pub(super) fn release_coop(&mut self) -> bool {
        let prog = Arc::clone(&self.prog);
        // (block, inst) -> waiting (subgroup, tangle index) pairs, in a deterministic order.
        let mut sites: std::collections::BTreeMap<(u32, u32), Vec<(usize, usize)>> =
            std::collections::BTreeMap::new();
        for (g, sg) in self.sgs.iter().enumerate() {
            for (i, t) in sg.tangles.iter().enumerate() {
                if !t.at_barrier {
                    continue;
                }
                let inst = prog.blocks[t.block as usize].insts.get(t.pos as usize);
                if matches!(inst, Some(Inst::Coop(_))) {
                    sites.entry((t.block, t.pos)).or_default().push((g, i));
                }
            }
        }
        if sites.is_empty() {
            return false;
        }
        let s = self.cfg.subgroup_size as usize;
        let [x, y, z] = prog.local_size;
        let n = x * y * z;
        for ((block, at), waiting) in sites {
            let Some(Inst::Coop(op)) = prog.blocks[block as usize].insts.get(at as usize) else {
                continue;
            };
            let mut masks = vec![0 as Mask; self.sgs.len()];
            for &(g, i) in &waiting {
                masks[g] |= self.sgs[g].tangles[i].mask;
            }
            let mut rep = Report::default();
            {
                let mut regs = WorkgroupRegs {
                    sgs: &mut self.sgs,
                    masks: masks.clone(),
                    s,
                    n,
                };
                exec_cross(op, &prog, &mut regs, &mut self.mem, &mut rep);
            }
            for (code, msg, lanes) in rep.items {
                let mut per = vec![0 as Mask; self.sgs.len()];
                for l in lanes {
                    per[l as usize / s] |= 1 << (l as usize % s);
                }
                for (g, m) in per.iter().enumerate() {
                    if *m != 0 {
                        self.diagnose(code, msg.clone(), g as u32, block, at, *m);
                    }
                }
                if code.makes_poison() {
                    for &(g, i) in &waiting {
                        let t = self.sgs[g].tangles[i].clone();
                        self.propagate_poison(
                            g,
                            &t,
                            &prog.blocks[block as usize].insts[at as usize],
                            per[g],
                            &None,
                        );
                    }
                }
            }
            for &(g, i) in &waiting {
                let t = &mut self.sgs[g].tangles[i];
                t.at_barrier = false;
                t.pos += 1;
            }
        }
        true
    }

    /// Carry poison from the components of a Subgroup-scope `OpCooperativeMatrixStoreKHR`
    /// into the memory words of the elements they hold; returns the lanes that stored poison.
    pub(super) fn coop_store_poison(
        &mut self,
        g: usize,
        t: &crate::sched::Tangle,
        op: &crate::coopmat::CoopOp,
        new: Mask,
    ) -> Mask {
        let crate::coopmat::CoopKind::Memory {
            value,
            ty,
            ptr,
            col_major,
            stride,
            unit,
            ..
        } = &op.kind
        else {
            return 0;
        };
        if ty.workgroup || t.mask == 0 {
            return 0;
        }
        let s = self.cfg.subgroup_size as usize;
        let frag = Arc::clone(&self.prog.coop_frags[ty.frag as usize]);
        let sg = &self.sgs[g];
        let first = t.mask.trailing_zeros() as usize;
        let p = sg.regs[*ptr as usize * s + first];
        let p = self.mem.resolve(p).unwrap_or(p);
        let raw = sg.regs[stride.slot as usize * s + first];
        let st = if stride.signed {
            crate::value::sext(raw, u32::from(stride.bits))
        } else {
            (raw & crate::value::mask(u32::from(stride.bits))) as i64
        };
        let mut stored: Mask = 0;
        let mut marks = Vec::new();
        for (e, &h) in frag.owner.iter().enumerate() {
            let (lane, comp) = ((h / frag.length) as usize, h % frag.length);
            let bad = (sg.poison.get((value + comp) as usize).copied().unwrap_or(0) | new) >> lane
                & 1
                == 1;
            let (row, col) = (e as u32 / ty.cols, e as u32 % ty.cols);
            let (major, minor) = if *col_major { (col, row) } else { (row, col) };
            let off = i128::from(p as u32)
                + i128::from(major) * i128::from(st) * i128::from(*unit)
                + i128::from(minor) * i128::from(ty.elem.size_bytes());
            if !(0..=i128::from(u32::MAX)).contains(&off) {
                continue;
            }
            if bad {
                stored |= 1 << lane;
            }
            marks.push((
                crate::program::ptr_offset(p, (off - i128::from(p as u32)) as i64),
                bad,
            ));
        }
        let leaf = crate::program::Leaf {
            offset: 0,
            ty: ty.elem,
        };
        // Clean elements first: poison is kept per 4-byte word, which narrow elements share.
        marks.sort_by_key(|m| m.1);
        for (q, bad) in marks {
            self.mem.set_poison(q, leaf, g * s + first, bad);
        }
        stored
    }

    /// The cooperative-matrix layout the program was loaded with.
    pub fn coop_layout(&self) -> &LayoutChoice {
        &self.prog.coop_layout
    }

    /// The cooperative-matrix value `id` as subgroup `g` (or, at Workgroup scope, the
    /// workgroup) holds it now.
    pub fn coop_value(&self, g: usize, id: u32) -> Option<CoopValue> {
        let (slot, _, ty) = *self.prog.id_slots.get(&id)?;
        let Type::CoopMat(ct) = self.prog.types.get(ty).clone() else {
            return None;
        };
        let frag = Arc::clone(&self.prog.coop_frags[ct.frag as usize]);
        let s = self.cfg.subgroup_size as usize;
        let read = |lane: u32, k: u32| -> u64 {
            let (sg, l) = if ct.workgroup {
                (lane as usize / s, lane as usize % s)
            } else {
                (g, lane as usize)
            };
            self.sgs
                .get(sg)
                .map_or(0, |x| x.regs[(slot + k) as usize * s + l])
        };
        let mut elements = vec![0u64; frag.elements()];
        let mut holders = vec![Vec::new(); frag.elements()];
        for lane in 0..frag.lanes {
            for i in 0..frag.length {
                let e = frag.map[(lane * frag.length + i) as usize];
                if e == crate::coopmat::layout::NONE {
                    continue;
                }
                if holders[e as usize].is_empty() {
                    elements[e as usize] = read(lane, i);
                }
                holders[e as usize].push((lane, i));
            }
        }
        Some(CoopValue {
            id,
            ty: ct,
            layout: self.prog.coop_layout.name(),
            elements,
            holders,
            fragment: frag,
        })
    }
}

/// A cooperative-matrix value for the views: the logical matrix and who holds each element.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CoopValue {
    pub id: u32,
    /// Component type, scope, rows, columns, use and per-invocation length.
    pub ty: CoopType,
    pub layout: String,
    /// Row-major raw bits of each element (from its lowest holder).
    pub elements: Vec<u64>,
    /// For each element: every (lane, component) holding it under the layout.
    pub holders: Vec<Vec<(u32, u32)>>,
    #[serde(skip)]
    pub fragment: Arc<Fragment>,
}
