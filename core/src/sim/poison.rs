//! Poison propagation after each instruction (see `exec::poison`), and through memory.

use super::{lanes_list, Simulator};
use crate::exec::poison::{any, set};
use crate::exec::Mask;
use crate::program::{decode_ptr, Inst, Space};
use crate::sched::Tangle;
use crate::trace::PoisonStore;

/// The registers an instruction writes, a load's as wide as its result.
fn written_range(inst: &Inst, width: impl Fn(u32) -> u32) -> Option<(u32, u32)> {
    match inst {
        Inst::Load { dst, .. } => Some((*dst, width(*dst))),
        other => other.writes(),
    }
}

/// Most poison stores remembered (the first ones matter: where undefined data first landed).
const MAX_POISON_STORES: usize = 100;

impl Simulator {
    /// Stores of poison values into memory so far (the first ones).
    pub fn poison_stores(&self) -> &[PoisonStore] {
        &self.poison_stores
    }

    /// Word indices of the buffer of program resource `resource` that hold poison.
    pub fn resource_poisoned_words(&self, resource: usize) -> Vec<usize> {
        self.mem.poisoned_words(resource)
    }

    /// Word indices of the buffer of program resource `resource` that hold data read from
    /// memory nobody wrote (the uninitialized-read detector's layer; empty with the detectors
    /// off).
    pub fn resource_uninitialized_words(&self, resource: usize) -> Vec<usize> {
        self.uninit
            .as_ref()
            .map_or_else(Vec::new, |u| u.words(&self.mem, resource))
    }

    /// Word indices of buffer (set, binding) that hold poison (element 0 of a descriptor
    /// array).
    pub fn poisoned_words(&self, set: u32, binding: u32) -> Vec<usize> {
        self.prog
            .resources
            .iter()
            .position(|r| !r.push_constant && r.set == set && r.binding == binding)
            .map_or_else(Vec::new, |i| self.mem.poisoned_words(i))
    }

    /// Which lanes of subgroup `g` hold a poison (undefined) value for SPIR-V id `id`.
    pub fn poison_of(&self, g: usize, id: u32) -> Option<Vec<bool>> {
        let (slot, width, _) = *self.prog.id_slots.get(&id)?;
        let sg = self.sgs.get(g)?;
        let p = if sg.poison.is_empty() {
            0
        } else {
            any(&sg.poison, slot, width)
        };
        Some(
            (0..self.cfg.subgroup_size)
                .map(|l| p >> l & 1 == 1)
                .collect(),
        )
    }

    /// Which lanes of subgroup `g` hold an undefined value for SPIR-V id `id`: poison, or (with
    /// the detectors on) data read from memory not yet written, or computed from either.
    pub fn undefined_of(&self, g: usize, id: u32) -> Option<Vec<bool>> {
        let (slot, width, _) = *self.prog.id_slots.get(&id)?;
        let sg = self.sgs.get(g)?;
        let p = any(&sg.poison, slot, width) | any(&sg.uninit, slot, width);
        Some(
            (0..self.cfg.subgroup_size)
                .map(|l| p >> l & 1 == 1)
                .collect(),
        )
    }

    /// Lanes of subgroup `g` whose value in `width` slots from `slot` is poison.
    pub(crate) fn slot_poison(&self, g: usize, slot: u32, width: u32) -> crate::exec::Mask {
        self.sgs
            .get(g)
            .filter(|sg| !sg.poison.is_empty())
            .map_or(0, |sg| any(&sg.poison, slot, width))
    }

    pub(super) fn propagate_poison(
        &mut self,
        g: usize,
        t: &Tangle,
        inst: &Inst,
        new: Mask,
        perm: &Option<Vec<(usize, usize)>>,
    ) {
        let s = self.cfg.subgroup_size as usize;
        let inv_base = g * s;
        let prog = std::sync::Arc::clone(&self.prog);
        let sg = &mut self.sgs[g];
        if sg.poison.is_empty() {
            sg.poison = vec![0; prog.num_slots as usize];
        }
        let lanes = |m: Mask| (0..s).filter(move |l| m >> l & 1 == 1);
        let width = |slot: u32| prog.slot_width.get(&slot).copied().unwrap_or(1);
        let mut stored: Mask = 0;
        match inst {
            Inst::Load {
                dst, ptr, leaves, ..
            } => {
                let table = &prog.leaf_tables[*leaves as usize];
                let ptr_p = any(&sg.poison, *ptr, 1);
                for l in lanes(t.mask) {
                    let p = sg.regs[*ptr as usize * s + l];
                    for (k, leaf) in table.iter().enumerate() {
                        let bad = ptr_p >> l & 1 == 1
                            || new >> l & 1 == 1
                            || self.mem.is_poison(p, *leaf, inv_base + l);
                        set(
                            &mut sg.poison,
                            dst + k as u32,
                            1,
                            1 << l,
                            if bad { Mask::MAX } else { 0 },
                        );
                    }
                }
                return;
            }
            Inst::Store {
                ptr, src, leaves, ..
            } => {
                let table = &prog.leaf_tables[*leaves as usize];
                let ptr_p = any(&sg.poison, *ptr, 1);
                for l in lanes(t.mask) {
                    let p = sg.regs[*ptr as usize * s + l];
                    for (k, leaf) in table.iter().enumerate() {
                        let bad = (sg.poison[(src + k as u32) as usize] | ptr_p) >> l & 1 == 1;
                        self.mem.set_poison(p, *leaf, inv_base + l, bad);
                        if bad {
                            stored |= 1 << l;
                        }
                    }
                }
            }
            Inst::CopyMemory {
                dst_ptr,
                src_ptr,
                dst_leaves,
                src_leaves,
            } => {
                let st = &prog.leaf_tables[*src_leaves as usize];
                let dt = &prog.leaf_tables[*dst_leaves as usize];
                for l in lanes(t.mask) {
                    let (sp, dp) = (
                        sg.regs[*src_ptr as usize * s + l],
                        sg.regs[*dst_ptr as usize * s + l],
                    );
                    for (a, b) in st.iter().zip(dt) {
                        let bad = self.mem.is_poison(sp, *a, inv_base + l);
                        self.mem.set_poison(dp, *b, inv_base + l, bad);
                        if bad {
                            stored |= 1 << l;
                        }
                    }
                }
            }
            Inst::Atomic {
                dst,
                ptr,
                value,
                comparator,
                op,
                ty,
            } => {
                let leaf = crate::program::Leaf { offset: 0, ty: *ty };
                let vp = value
                    .iter()
                    .chain(comparator)
                    .fold(0, |m, v| m | any(&sg.poison, *v, 1))
                    | any(&sg.poison, *ptr, 1);
                for l in lanes(t.mask) {
                    let p = sg.regs[*ptr as usize * s + l];
                    let old = self.mem.is_poison(p, leaf, inv_base + l);
                    if let Some(d) = dst {
                        set(
                            &mut sg.poison,
                            *d,
                            1,
                            1 << l,
                            if old { Mask::MAX } else { 0 },
                        );
                    }
                    if *op != crate::program::AtomicOp::Load {
                        // A store or an exchange writes its value whatever the memory held;
                        // the others compute the new value from the old one.
                        let replaces = matches!(
                            op,
                            crate::program::AtomicOp::Store | crate::program::AtomicOp::Exchange
                        );
                        let bad = old && !replaces || vp >> l & 1 == 1;
                        self.mem.set_poison(p, leaf, inv_base + l, bad);
                        if bad {
                            stored |= 1 << l;
                        }
                    }
                }
            }
            Inst::Subgroup { dst, a, n, .. } => {
                let ops = inst.reads();
                let Some((d, w)) = written_range(inst, width) else {
                    return;
                };
                let mut out: Mask = new;
                match perm {
                    Some(sources) => {
                        // Each lane takes the poison of the lane it read (and of the selector).
                        let extra = ops
                            .iter()
                            .skip(1)
                            .fold(0, |m, (sl, wd)| m | any(&sg.poison, *sl, *wd));
                        for &(l, src) in sources {
                            if (any(&sg.poison, *a, *n) >> src & 1 == 1) || extra >> l & 1 == 1 {
                                out |= 1 << l;
                            }
                        }
                    }
                    None => {
                        // Reductions, scans, ballots, votes: any poisoned participant taints all.
                        let p = ops
                            .iter()
                            .fold(0, |m, (sl, wd)| m | any(&sg.poison, *sl, *wd))
                            & t.mask;
                        if p != 0 {
                            out |= t.mask;
                        }
                    }
                }
                let _ = dst;
                set(&mut sg.poison, d, w, t.mask, out);
                return;
            }
            Inst::Copy { dst, src, n } => {
                // Component-precise copies keep composites' clean parts clean.
                for k in 0..*n {
                    let p = sg.poison[(src + k) as usize] | new;
                    set(&mut sg.poison, dst + k, 1, t.mask, p);
                }
                return;
            }
            Inst::Insert {
                dst,
                composite,
                width,
                object,
                offset,
                n,
            } => {
                // The inserted components take the object's poison, the others keep the
                // composite's: a composite filled part by part is defined once every part is.
                for k in 0..*width {
                    let p = if k >= *offset && k < offset + n {
                        sg.poison[(object + k - offset) as usize]
                    } else {
                        sg.poison[(composite + k) as usize]
                    };
                    set(&mut sg.poison, dst + k, 1, t.mask, p | new);
                }
                return;
            }
            Inst::Select {
                dst,
                cond,
                cond_vector,
                a,
                b,
                n,
            } => {
                // A defined condition picks one operand: only that one's poison comes along.
                for k in 0..*n {
                    let ck = if *cond_vector { cond + k } else { *cond };
                    let (cp, ap, bp) = (
                        sg.poison[ck as usize],
                        sg.poison[(a + k) as usize],
                        sg.poison[(b + k) as usize],
                    );
                    let mut p = new | cp;
                    for l in lanes(t.mask & !cp) {
                        let picked = if sg.regs[ck as usize * s + l] != 0 {
                            ap
                        } else {
                            bp
                        };
                        p |= picked & 1 << l;
                    }
                    set(&mut sg.poison, dst + k, 1, t.mask, p);
                }
                return;
            }
            Inst::Bin {
                op: op @ (crate::program::BinOp::LogicalAnd | crate::program::BinOp::LogicalOr),
                n,
                dst,
                a,
                b,
                ..
            } => {
                // `false && x` and `true || x` are defined whatever x is.
                let decisive = u64::from(*op == crate::program::BinOp::LogicalOr);
                for k in 0..*n {
                    let (ap, bp) = (sg.poison[(a + k) as usize], sg.poison[(b + k) as usize]);
                    let mut p = new;
                    for l in lanes((ap | bp) & t.mask) {
                        let settles = |slot: u32, poison: Mask| {
                            poison >> l & 1 == 0 && sg.regs[slot as usize * s + l] == decisive
                        };
                        if !settles(a + k, ap) && !settles(b + k, bp) {
                            p |= 1 << l;
                        }
                    }
                    set(&mut sg.poison, dst + k, 1, t.mask, p);
                }
                return;
            }
            Inst::Construct { dst, parts } => {
                let mut off = 0;
                for (src, w) in parts {
                    for k in 0..*w {
                        let p = sg.poison[(src + k) as usize] | new;
                        set(&mut sg.poison, dst + off + k, 1, t.mask, p);
                    }
                    off += w;
                }
                return;
            }
            Inst::Coop(op) if op.stores() => {
                stored = self.coop_store_poison(g, t, op, new);
                if stored == 0 {
                    return;
                }
            }
            _ => {
                if let Some((d, w)) = written_range(inst, width) {
                    let p = inst
                        .reads()
                        .iter()
                        .fold(new, |m, (sl, wd)| m | any(&sg.poison, *sl, *wd));
                    set(&mut sg.poison, d, w, t.mask, p);
                }
                return;
            }
        }
        if stored != 0 && self.poison_stores.len() < MAX_POISON_STORES {
            let ptr_slot = match inst {
                Inst::Store { ptr, .. } | Inst::Atomic { ptr, .. } => *ptr,
                Inst::CopyMemory { dst_ptr, .. } => *dst_ptr,
                Inst::Coop(op) => match op.kind {
                    crate::coopmat::CoopKind::Memory { ptr, .. } => ptr,
                    _ => return,
                },
                _ => return,
            };
            let first = stored.trailing_zeros() as usize;
            let (space, region, _) = decode_ptr(self.sgs[g].regs[ptr_slot as usize * s + first]);
            let binding = (space == Space::Buffer)
                .then(|| {
                    prog.resources
                        .get(region as usize)
                        .map(|r| (r.set, r.binding))
                })
                .flatten();
            let b = &prog.blocks[t.block as usize];
            let instruction = prog.step_index(t.block, t.pos);
            self.poison_stores.push(PoisonStore {
                step: self.stats.steps,
                function: prog.func_name(b.func),
                block: prog.block_name(t.block),
                instruction,
                source: prog.source_ref(instruction),
                workgroup: self.workgroup_id(),
                subgroup: g as u32,
                lanes: lanes_list(stored),
                memory: format!("{space:?}"),
                binding,
            });
        }
    }

    /// Carry poison along a register copy made by the scheduler (phis, call arguments, returns).
    pub(super) fn copy_poison(&mut self, g: usize, dst: u32, src: u32, width: u32, lanes: Mask) {
        let sg = &mut self.sgs[g];
        for layer in [&mut sg.poison, &mut sg.uninit] {
            if layer.is_empty() {
                continue;
            }
            for k in 0..width {
                let p = layer[(src + k) as usize];
                set(layer, dst + k, 1, lanes, p);
            }
        }
    }
}
