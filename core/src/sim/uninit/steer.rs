//! Races whose value only steers a pure selection construct: the branch on it is no
//! observable use; what it decides (the merge's phis, the Function variables the construct
//! stores to) takes its origin and is followed on by the uninitialized layer.

use super::{Origin, Uninit, MAX_MEM_ORIGINS};
use crate::exec::poison::any;
use crate::exec::Mask;
use crate::program::{decode_ptr, BlockId, Inst, Merge, Program, Space, Terminator};
use crate::sched::Tangle;
use crate::sim::Simulator;

/// A selection construct whose paths change nothing but registers and variables of its own
/// function: no buffer, Workgroup or Private store, atomic, image, subgroup operation,
/// barrier, call, debugPrintf, loop or exit. Which of its paths ran can be seen only in the
/// phis of its merge and in those variables, so a racing read's value that decides the branch
/// reaches only them (and is observed only if they are).
#[derive(Clone, Debug)]
pub(crate) struct Pure {
    merge: BlockId,
    /// The Function variables its paths may store to: the register holding each one's
    /// pointer, and its size in bytes.
    vars: Vec<(u32, u32)>,
}

/// Most blocks a construct may have to be judged pure (larger ones count as observable).
const MAX_PURE_BLOCKS: usize = 256;
/// Largest Function variable a pure construct may store to (its bytes get an origin each).
const MAX_PURE_VAR_BYTES: u32 = 256;

/// The construct headed by `header` when it is a pure selection construct.
fn pure_selection(prog: &Program, header: BlockId) -> Option<Pure> {
    let hb = prog.blocks.get(header as usize)?;
    let Some(Merge::Selection { merge }) = hb.merge else {
        return None;
    };
    let func = prog.functions.get(hb.func as usize)?;
    // The function's own variables, and access chains into them, by pointer register.
    let mut var_size = std::collections::HashMap::new();
    let mut chain_base = std::collections::HashMap::new();
    for b in &func.blocks {
        for inst in &prog.blocks.get(*b as usize)?.insts {
            match inst {
                Inst::Variable { dst, size, .. } => {
                    var_size.insert(*dst, *size);
                }
                Inst::AccessChain { dst, base, .. } => {
                    chain_base.insert(*dst, *base);
                }
                _ => {}
            }
        }
    }
    let root = |mut p: u32| {
        for _ in 0..64 {
            if var_size.contains_key(&p) {
                return Some(p);
            }
            p = *chain_base.get(&p)?;
        }
        None
    };
    let mut vars: Vec<(u32, u32)> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = hb.successors();
    while let Some(b) = todo.pop() {
        if b == merge || !seen.insert(b) {
            continue;
        }
        if b == header || seen.len() > MAX_PURE_BLOCKS {
            return None;
        }
        let blk = prog.blocks.get(b as usize)?;
        if matches!(blk.merge, Some(Merge::Loop { .. }))
            || !blk.printfs.is_empty()
            || blk.func != hb.func
            || !matches!(
                blk.term,
                Terminator::Branch { .. }
                    | Terminator::BranchConditional { .. }
                    | Terminator::Switch { .. }
            )
        {
            return None;
        }
        for inst in &blk.insts {
            let stored = match inst {
                Inst::Store { ptr, .. } => Some(*ptr),
                Inst::CopyMemory { dst_ptr, .. } => Some(*dst_ptr),
                Inst::Ext {
                    ptr_out: Some((p, _)),
                    ..
                } => Some(*p),
                Inst::Image(_)
                | Inst::Atomic { .. }
                | Inst::Subgroup { .. }
                | Inst::Call { .. }
                | Inst::Barrier { .. }
                | Inst::Coop(_)
                | Inst::Variable { .. } => return None,
                _ => None,
            };
            if let Some(p) = stored {
                let v = root(p)?;
                let size = *var_size.get(&v)?;
                if size > MAX_PURE_VAR_BYTES {
                    return None;
                }
                if !vars.iter().any(|x| x.0 == v) {
                    vars.push((v, size));
                }
            }
        }
        todo.extend(blk.successors());
    }
    Some(Pure { merge, vars })
}

/// Lanes of subgroup `sg` (number `g`) arrive at block `target`, where they have just taken
/// its phis: lanes a racing read steered through a pure construct merging there take that
/// read's origin in every phi and in every variable the construct stores to.
pub(in crate::sim) fn uninit_merge_arrival(
    u: Option<&mut Uninit>,
    diags: &mut [crate::trace::Diagnostic],
    mem: &mut crate::exec::memory::Memory,
    sg: &mut crate::sched::Subgroup,
    (g, s): (usize, usize),
    (target, lanes): (BlockId, Mask),
    prog: &Program,
) {
    let Some(u) = u else { return };
    let mut i = 0;
    while i < u.pending.len() {
        let (pg, pure, pl, o) = &mut u.pending[i];
        if *pg != g || pure.merge != target || *pl & lanes == 0 {
            i += 1;
            continue;
        }
        let hit = *pl & lanes;
        *pl &= !hit;
        let (pure, o) = (std::sync::Arc::clone(pure), o.clone());
        if *pl == 0 {
            u.pending.swap_remove(i);
        } else {
            i += 1;
        }
        // The variables its paths store to: either path may have written them.
        if !pure.vars.is_empty() {
            std::mem::swap(&mut mem.poison, &mut u.mem);
            for &(slot, size) in &pure.vars {
                for l in crate::lanes::LaneMask(hit).iter().map(|l| l as usize) {
                    let p = sg.regs[slot as usize * s + l];
                    let inv = if decode_ptr(p).0 == Space::Invocation {
                        g * s + l
                    } else {
                        0
                    };
                    mem.set_poison_range(p, size, g * s + l, true);
                    for off in 0..size {
                        let at = crate::program::ptr_offset(p, i64::from(off));
                        u.mem_origin.insert((at, inv), o.clone());
                    }
                }
            }
            std::mem::swap(&mut mem.poison, &mut u.mem);
        }
        let Some(tb) = prog.blocks.get(target as usize) else {
            continue;
        };
        if tb.phis.is_empty() {
            continue;
        }
        if sg.uninit.is_empty() {
            sg.uninit = vec![0; prog.num_slots as usize];
        }
        for phi in &tb.phis {
            for k in 0..phi.width {
                let others = any(&sg.uninit, phi.dst + k, 1) & !hit != 0;
                crate::exec::poison::set(&mut sg.uninit, phi.dst + k, 1, hit, Mask::MAX);
                u.set_origin(diags, g, phi.dst + k, o.clone(), others);
            }
        }
        if let Some(r) = u.regs.get_mut(g) {
            *r = true;
        }
    }
}

impl Simulator {
    /// A racing read's value (origin `o`) decides the branch of `lanes` at a pure selection
    /// header: what it decides reaches only the merge's phis and the Function variables the
    /// construct stores to, which take its origin when the lanes arrive at the merge
    /// ([`uninit_merge_arrival`]). Returns false, changing nothing, where the construct is not
    /// pure.
    pub(super) fn uninit_steer_pure(
        &mut self,
        g: usize,
        t: &Tangle,
        lanes: Mask,
        o: Origin,
    ) -> bool {
        let Some(mut u) = self.uninit.take() else {
            return false;
        };
        let pure = match u.pure.get(&t.block) {
            Some(p) => p.clone(),
            None => {
                let p = pure_selection(&self.prog, t.block).map(std::sync::Arc::new);
                u.pure.insert(t.block, p.clone());
                p
            }
        };
        let bytes: usize = pure.as_ref().map_or(0, |p| {
            p.vars.iter().map(|v| v.1 as usize).sum::<usize>() * lanes.count_ones() as usize
        });
        let Some(pure) = pure.filter(|_| u.mem_origin.len() + bytes <= MAX_MEM_ORIGINS) else {
            self.uninit = Some(u);
            return false;
        };
        u.pending.push((g, pure, lanes, o));
        self.uninit = Some(u);
        true
    }
}
