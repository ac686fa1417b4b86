//! The uninitialized layer follows the data after each instruction.

use super::{swap_layers, Origin, MAX_MEM_ORIGINS};
use crate::exec::poison::any;
use crate::program::{decode_ptr, Inst, Space};
use crate::sched::Tangle;
use crate::sim::Simulator;

impl Simulator {
    /// Whether the step just made is nothing for the uninitialized-read detector: no register
    /// of the subgroup may be undefined, no replay target is due, and the step touched no
    /// memory, or loaded or stored through a pointer into memory holding nothing undefined
    /// (what [`Self::uninit_propagate`] would find, decided before the step's slower path).
    #[inline]
    pub(in crate::sim) fn uninit_quiet(
        &self,
        g: usize,
        t: &Tangle,
        inst: &Inst,
        touches_memory: bool,
    ) -> bool {
        let Some(u) = self.uninit.as_ref() else {
            return true;
        };
        if !u.idle(g, self.stats.steps) {
            return false;
        }
        if !touches_memory {
            return true;
        }
        let (Inst::Load { ptr, leaves, .. } | Inst::Store { ptr, leaves, .. }) = inst else {
            return false;
        };
        if !u.mem.marked_in(self.space_of(g, t, *ptr)) {
            return true;
        }
        // A Function variable written in only some lanes (one declared in a branch) keeps
        // the lanes' memory marked for the rest of the workgroup: the bytes accessed decide.
        let s = self.cfg.subgroup_size as usize;
        let ptrs = &self.sgs[g].regs[*ptr as usize * s..][..s];
        let (lo, hi) = leaf_span(&self.prog.leaf_tables[*leaves as usize]);
        let marked = self
            .mem
            .variable_marked_in(&u.mem, ptrs, (t.mask, g * s), lo, hi - lo);
        marked == Some(false)
    }

    /// The memory a same-region access through pointer register `ptr` is in (its first lane's).
    fn space_of(&self, g: usize, t: &Tangle, ptr: u32) -> crate::program::Space {
        let s = self.cfg.subgroup_size as usize;
        let l = t.mask.trailing_zeros() as usize;
        decode_ptr(self.sgs[g].regs[ptr as usize * s + l]).0
    }

    /// After an instruction: the uninitialized layer follows the data, as poison does (the two
    /// layers swap places for the shared propagation code), and a Function variable without an
    /// initializer starts undefined.
    pub(in crate::sim) fn uninit_propagate(
        &mut self,
        g: usize,
        t: &Tangle,
        inst: &Inst,
        perm: &Option<Vec<(usize, usize)>>,
    ) {
        let Some(mut u) = self.uninit.take() else {
            return;
        };
        let memory_op = super::touches_memory(inst);
        let tainted_regs = u.tainted_regs(g);
        if !memory_op && !tainted_regs {
            self.uninit = Some(u);
            return;
        }
        // An operation on defined operands whose result is already defined changes nothing:
        // checked on the operands alone, far cheaper than the propagation. Calls and extended
        // instructions keep the full path (their operands reach further than `reads`).
        if !memory_op && !matches!(inst, Inst::Call { .. } | Inst::Ext { .. }) {
            let layer = &self.sgs[g].uninit;
            let clean = layer.is_empty()
                || (inst
                    .writes()
                    .is_none_or(|(d, w)| any(layer, d, w) & t.mask == 0)
                    && inst
                        .reads()
                        .iter()
                        .all(|(sl, w)| any(layer, *sl, *w) & t.mask == 0));
            if clean {
                self.uninit = Some(u);
                return;
            }
        }
        // A load or store of clean registers through memory that holds nothing undefined
        // changes nothing (the common case once variables are written): checked word by word
        // for the lanes, which is much cheaper than the propagation.
        if memory_op && !tainted_regs && !matches!(inst, Inst::Variable { .. }) {
            let access = match inst {
                Inst::Load { ptr, leaves, .. } | Inst::Store { ptr, leaves, .. } => {
                    Some((*ptr, *leaves))
                }
                // An atomic on defined registers through memory of a space with nothing
                // undefined in it reads defined data and leaves it defined.
                Inst::Atomic { ptr, .. } if !u.mem.marked_in(self.space_of(g, t, *ptr)) => {
                    self.uninit = Some(u);
                    return;
                }
                _ => None,
            };
            let s = self.cfg.subgroup_size as usize;
            if let Some((p, leaves)) = access {
                let clean = !u.mem.marked_in(self.space_of(g, t, p)) || {
                    let (lo, hi) = leaf_span(&self.prog.leaf_tables[leaves as usize]);
                    std::mem::swap(&mut self.mem.poison, &mut u.mem);
                    let ptrs = &self.sgs[g].regs[p as usize * s..][..s];
                    let marked = self.mem.any_lanes_marked(ptrs, t.mask, g * s, lo, hi - lo);
                    std::mem::swap(&mut self.mem.poison, &mut u.mem);
                    !marked
                };
                if clean {
                    self.uninit = Some(u);
                    return;
                }
                // A store of defined registers defines the bytes it writes, whatever they held:
                // what the propagation would do, without it.
                if let Inst::Store { .. } = inst {
                    std::mem::swap(&mut self.mem.poison, &mut u.mem);
                    let ptrs = &self.sgs[g].regs[p as usize * s..][..s];
                    let table = &self.prog.leaf_tables[leaves as usize];
                    let (lo, hi) = leaf_span(table);
                    let sizes: u32 = table.iter().map(|x| x.ty.size_bytes()).sum();
                    if sizes == hi - lo {
                        // (the leaves tile their span, a vector's or a packed struct's: one
                        // call clears it)
                        self.mem
                            .mark_lanes(ptrs, t.mask, g * s, (lo, hi - lo), false);
                    } else {
                        for leaf in table {
                            let span = (leaf.offset, leaf.ty.size_bytes());
                            self.mem.mark_lanes(ptrs, t.mask, g * s, span, false);
                        }
                    }
                    std::mem::swap(&mut self.mem.poison, &mut u.mem);
                    self.uninit = Some(u);
                    return;
                }
            }
        }
        let s = self.cfg.subgroup_size as usize;
        let stores_before = self.poison_stores.len();
        std::mem::swap(&mut self.mem.poison, &mut u.mem);
        swap_layers(&mut self.sgs[g]);
        if let Inst::Variable {
            dst,
            size,
            init: None,
            ..
        } = inst
        {
            let ptrs = &self.sgs[g].regs[*dst as usize * s..][..s];
            self.mem.mark_lanes(ptrs, t.mask, g * s, (0, *size), true);
        } else {
            self.propagate_poison(g, t, inst, 0, perm);
        }
        // Which memory a load or an atomic read undefined data from: named in a later report.
        let read = match inst {
            Inst::Load {
                dst, ptr, leaves, ..
            } => Some((*dst, *ptr, Some(*leaves), "load")),
            Inst::Atomic {
                dst: Some(dst),
                ptr,
                ..
            } => Some((*dst, *ptr, None, "atomic")),
            _ => None,
        };
        if let Some((dst, ptr, leaves, kind)) = read {
            let sg = &self.sgs[g];
            let width = match leaves {
                Some(_) => self.prog.slot_width.get(&dst).copied().unwrap_or(1),
                None => 1,
            };
            let got = if sg.poison.is_empty() {
                0
            } else {
                any(&sg.poison, dst, width) & t.mask
            };
            if got != 0 {
                let l = got.trailing_zeros() as usize;
                let p = sg.regs[ptr as usize * s + l];
                // The first undefined component read, by its leaf's offset.
                let first = (0..width)
                    .find(|k| sg.poison[(dst + k) as usize] >> l & 1 == 1)
                    .unwrap_or(0);
                let leaf_off = leaves
                    .and_then(|t| self.prog.leaf_tables[t as usize].get(first as usize))
                    .map_or(0, |lf| lf.offset);
                let inv = if decode_ptr(p).0 == Space::Invocation {
                    g * s + l
                } else {
                    0
                };
                let at = crate::program::ptr_offset(p, i64::from(leaf_off));
                let origin =
                    u.mem_origin.get(&(at, inv)).cloned().unwrap_or_else(|| {
                        Origin::Undefined(self.describe_read(p, leaf_off, t, kind))
                    });
                for k in 0..width {
                    let lanes = sg.poison[(dst + k) as usize];
                    if lanes & t.mask != 0 {
                        let others = lanes & !t.mask != 0;
                        u.set_origin(&mut self.diags, g, dst + k, origin.clone(), others);
                    }
                }
                let list = &mut u.origin[g];
                list.retain(|o| *o != origin);
                list.push(origin);
                if list.len() > 3 {
                    list.remove(0);
                }
                u.regs[g] = true;
            }
        }
        // Undefined data stored: remember where it came from, for the loads that follow (per
        // lane and per leaf, so a load of any part through any pointer finds it).
        if let Inst::Store {
            ptr, src, leaves, ..
        } = inst
        {
            let sg = &self.sgs[g];
            let table = &self.prog.leaf_tables[*leaves as usize];
            if !sg.poison.is_empty() {
                let n = table.len() as u32;
                let tainted = any(&sg.poison, *src, n) & t.mask;
                let mut lost = Vec::new();
                for l in crate::lanes::LaneMask(tainted).iter().map(|l| l as usize) {
                    let p = sg.regs[*ptr as usize * s + l];
                    let inv = if decode_ptr(p).0 == Space::Invocation {
                        g * s + l
                    } else {
                        0
                    };
                    for (k, leaf) in table.iter().enumerate() {
                        let slot = src + k as u32;
                        if sg.poison[slot as usize] >> l & 1 == 0 {
                            continue;
                        }
                        let Some(o) = u.slot_origin[g].get(&slot) else {
                            continue;
                        };
                        let at = crate::program::ptr_offset(p, i64::from(leaf.offset));
                        if u.mem_origin.len() < MAX_MEM_ORIGINS {
                            u.mem_origin.insert((at, inv), o.clone());
                        } else {
                            lost.push(o.clone());
                        }
                    }
                }
                // A racing read's value whose way through memory is not remembered cannot be
                // followed: count it observed rather than lose it.
                for o in lost {
                    if let Origin::Race(k) = o {
                        u.mark_observed(&mut self.diags, k);
                    }
                }
            }
        }
        // Computed data inherits its operands' origin (undefined memory before a race: a
        // report must not lose it; a race mixed with it is counted observed).
        if u.regs[g] && !self.sgs[g].poison.is_empty() && read.is_none() {
            if let Some((d, w)) = inst.writes() {
                let sg = &self.sgs[g];
                if any(&sg.poison, d, w) & t.mask != 0 {
                    let from: Vec<&Origin> = inst
                        .reads()
                        .iter()
                        .flat_map(|(sl, wd)| (0..*wd).map(move |k| sl + k))
                        .filter(|sl| any(&sg.poison, *sl, 1) & t.mask != 0)
                        .filter_map(|sl| u.slot_origin[g].get(&sl))
                        .collect();
                    let undefined = from
                        .iter()
                        .find(|o| matches!(o, Origin::Undefined(_)))
                        .copied();
                    let pick = undefined.or(from.first().copied()).cloned();
                    let races: Vec<usize> = from
                        .iter()
                        .filter_map(|o| match o {
                            Origin::Race(k) => Some(*k),
                            Origin::Undefined(_) => None,
                        })
                        .collect();
                    let mut sets = Vec::new();
                    if pick.is_some() {
                        for k in 0..w {
                            let lanes = any(&sg.poison, d + k, 1);
                            if lanes & t.mask != 0 {
                                sets.push((d + k, lanes & !t.mask != 0));
                            }
                        }
                    }
                    for (slot, others) in sets {
                        if let Some(o) = pick.as_ref() {
                            u.set_origin(&mut self.diags, g, slot, o.clone(), others);
                        }
                    }
                    // Races mixed with undefined data are observed; several races mixed
                    // share their fate under the one origin the result keeps.
                    match pick {
                        Some(Origin::Race(p)) => {
                            for k in races {
                                u.join(&mut self.diags, p, k);
                            }
                        }
                        _ => {
                            for k in races {
                                u.mark_observed(&mut self.diags, k);
                            }
                        }
                    }
                }
            }
        }
        // An atomic's or a matrix load's result may carry it too.
        if !u.regs[g] && !self.sgs[g].poison.is_empty() {
            if let Some((d, w)) = inst.writes() {
                u.regs[g] = any(&self.sgs[g].poison, d, w) & t.mask != 0;
            }
        }
        swap_layers(&mut self.sgs[g]);
        std::mem::swap(&mut self.mem.poison, &mut u.mem);
        // The propagation noted stores of the layer's data as poison stores: they are not.
        self.poison_stores.truncate(stores_before);
        self.uninit = Some(u);
    }
}

/// The bytes a load or store of `table`'s leaves covers: from the first leaf's offset to the
/// last one's end.
fn leaf_span(table: &[crate::program::Leaf]) -> (u32, u32) {
    let lo = table.iter().map(|x| x.offset).min().unwrap_or(0);
    let hi = table
        .iter()
        .map(|x| x.offset + x.ty.size_bytes())
        .max()
        .unwrap_or(0);
    (lo, hi)
}
