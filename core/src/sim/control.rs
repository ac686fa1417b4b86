//! Control flow: terminators (with the merge instructions of their block), calls.

use super::{RunError, Simulator};
use crate::exec::Mask;
use crate::program::{Inst, Merge, Program, Terminator};
use crate::sched::{Events, Record, RecordKind, Sent, SwitchTangles, Tangle};
use std::sync::Arc;

impl Simulator {
    pub(super) fn call(&mut self, g: usize, ti: usize, inst: &Inst) {
        let Inst::Call { func, dst, args } = inst else {
            return;
        };
        let prog = Arc::clone(&self.prog);
        let s = self.cfg.subgroup_size as usize;
        let callee = &prog.functions[*func as usize];
        let sg = &mut self.sgs[g];
        let t = sg.tangles[ti].clone();
        for ((src, w), (param, _)) in args.iter().zip(&callee.params) {
            for k in 0..*w {
                let mut m = t.mask;
                while m != 0 {
                    let l = m.trailing_zeros() as usize;
                    m &= m - 1;
                    sg.regs[(param + k) as usize * s + l] = sg.regs[(src + k) as usize * s + l];
                }
            }
            // Both taint layers follow the values: undefined results and uninitialized data.
            for layer in [&mut sg.poison, &mut sg.uninit] {
                if !layer.is_empty() {
                    for k in 0..*w {
                        let p = layer[(src + k) as usize];
                        crate::exec::poison::set(layer, param + k, 1, t.mask, p);
                    }
                }
            }
        }
        let rec = sg.new_record(Record::new(
            RecordKind::Call {
                resume: t.pos + 1,
                dst: *dst,
            },
            t.block,
            t.mask,
            t.ctx,
            prog.blocks[t.block as usize].func,
        ));
        let tt = &mut sg.tangles[ti];
        tt.block = callee.entry;
        tt.pos = 0;
        tt.ctx = Some(rec);
    }

    pub(super) fn terminator(
        &mut self,
        g: usize,
        ti: usize,
        prog: &Program,
    ) -> Result<(), RunError> {
        let s = self.cfg.subgroup_size as usize;
        let mode = self.cfg.switch_tangles;
        let t = self.sgs[g].tangles.remove(ti);
        let block = &prog.blocks[t.block as usize];
        let mut ev = Events::default();
        let mut ctx = t.ctx;
        // Merge instructions execute with the terminator: create this construct's records.
        let mut is_switch_header = false;
        match block.merge {
            Some(Merge::Loop {
                merge,
                continue_target,
            }) => {
                let sg = &mut self.sgs[g];
                // A back edge: this loop's record encloses the tangle (normally directly).
                let mut back_edge = None;
                let mut inner = Vec::new();
                let mut r = ctx;
                while let Some(id) = r {
                    let Some(rec) = sg.record(id) else { break };
                    if rec.kind == (RecordKind::Loop { header: t.block }) {
                        back_edge = Some(id);
                        break;
                    }
                    if matches!(rec.kind, RecordKind::Call { .. }) {
                        break;
                    }
                    inner.push(id);
                    r = rec.parent;
                }
                let loop_rec = if let Some(l) = back_edge {
                    // Records left open inside the loop (unusual structure) are escaped.
                    for id in inner {
                        sg.escape_and_resolve(id, t.mask, &mut self.next_tangle, &mut ev);
                    }
                    Some(l)
                } else {
                    Some(sg.new_record(Record::new(
                        RecordKind::Loop { header: t.block },
                        merge,
                        t.mask,
                        ctx,
                        block.func,
                    )))
                };
                ctx = Some(sg.new_record(Record::new(
                    RecordKind::Continue,
                    continue_target,
                    t.mask,
                    loop_rec,
                    block.func,
                )));
            }
            Some(Merge::Selection { merge }) => {
                is_switch_header = matches!(block.term, Terminator::Switch { .. });
                let kind = if is_switch_header {
                    RecordKind::Switch { cases: Vec::new() }
                } else {
                    RecordKind::Selection
                };
                ctx =
                    Some(self.sgs[g].new_record(Record::new(kind, merge, t.mask, ctx, block.func)));
            }
            None => {}
        }
        // The lanes of a mask, lowest first (no allocation: this runs at every block's end).
        let lanes_of = |m: Mask| crate::lanes::LaneMask(m).iter().map(|l| l as usize);
        // Where each lane goes: (target, lanes), in a deterministic order.
        let mut groups: Vec<(u32, Mask)> = Vec::new();
        match &block.term {
            Terminator::Branch { target } => groups.push((*target, t.mask)),
            // Both targets the same block (valid before SPIR-V 1.6): every lane takes one
            // edge into one dynamic instance, whatever the condition.
            Terminator::BranchConditional { t: tb, f, .. } if tb == f => {
                groups.push((*tb, t.mask));
            }
            Terminator::BranchConditional { cond, t: tb, f } => {
                let regs = &self.sgs[g].regs;
                let tm = lanes_of(t.mask)
                    .filter(|l| regs[*cond as usize * s + l] != 0)
                    .fold(0u128, |m, l| m | 1 << l);
                if tm != 0 {
                    groups.push((*tb, tm));
                }
                if t.mask & !tm != 0 {
                    groups.push((*f, t.mask & !tm));
                }
            }
            Terminator::Switch {
                selector,
                bits,
                default,
                cases,
            } => {
                let regs = &self.sgs[g].regs;
                let m = crate::value::mask(u32::from(*bits));
                // Per selector value, in order of first lane.
                let mut by_value: Vec<(u64, u32, Mask)> = Vec::new();
                for l in lanes_of(t.mask) {
                    let v = regs[*selector as usize * s + l] & m;
                    let target = cases.iter().find(|c| c.0 == v).map_or(*default, |c| c.1);
                    match by_value.iter_mut().find(|e| e.0 == v) {
                        Some(e) => e.2 |= 1 << l,
                        None => by_value.push((v, target, 1 << l)),
                    }
                }
                match mode {
                    SwitchTangles::PerValue => groups.extend(by_value.iter().map(|e| (e.1, e.2))),
                    SwitchTangles::PerCase => {
                        for (_, target, lanes) in by_value {
                            match groups.iter_mut().find(|gr| gr.0 == target) {
                                Some(gr) => gr.1 |= lanes,
                                None => groups.push((target, lanes)),
                            }
                        }
                    }
                }
            }
            Terminator::Return | Terminator::ReturnValue { .. } => {
                let sg = &mut self.sgs[g];
                let dst = sg.ret(ctx, t.mask, &mut self.next_tangle, &mut ev);
                if let (Terminator::ReturnValue { src, n }, Some((d, _))) = (&block.term, dst) {
                    for k in 0..*n {
                        for l in lanes_of(t.mask) {
                            sg.regs[(d + k) as usize * s + l] = sg.regs[(src + k) as usize * s + l];
                        }
                    }
                    self.copy_poison(g, d, *src, *n, t.mask);
                }
                self.account(ev);
                return Ok(());
            }
            Terminator::Unreachable | Terminator::Kill => {
                let what = if matches!(block.term, Terminator::Unreachable) {
                    "OpUnreachable was executed (undefined behaviour); the lanes stop"
                } else {
                    "OpKill/OpTerminateInvocation in a compute shader; the lanes stop"
                };
                self.diagnose(
                    crate::trace::DiagCode::Unreachable,
                    what.into(),
                    g as u32,
                    t.block,
                    t.pos,
                    t.mask,
                );
                self.sgs[g].terminate(ctx, t.mask, &mut self.next_tangle, &mut ev);
                self.account(ev);
                return Ok(());
            }
        }
        if groups.len() > 1 {
            ev.divergences += 1;
        }
        // Phis of each target read this block's values, lane by lane.
        for &(target, lanes) in &groups {
            let tb = &prog.blocks[target as usize];
            if tb.phis.is_empty() {
                if self.uninit.as_ref().is_some_and(|u| u.steering()) {
                    super::uninit::uninit_merge_arrival(
                        self.uninit.as_deref_mut(),
                        &mut self.diags,
                        &mut self.mem,
                        &mut self.sgs[g],
                        (g, s),
                        (target, lanes),
                        prog,
                    );
                }
                continue;
            }
            let sg = &mut self.sgs[g];
            let mut staged: Vec<(u32, usize, u64)> = Vec::new();
            for phi in &tb.phis {
                let Some((_, src)) = phi.incoming.iter().find(|(p, _)| *p == t.block) else {
                    return Err(RunError::Internal {
                        what: format!(
                            "OpPhi in {} has no value for predecessor {}",
                            prog.block_name(target),
                            prog.block_name(t.block)
                        ),
                        function: prog.func_name(tb.func),
                        block: prog.block_name(target),
                    });
                };
                for k in 0..phi.width {
                    for l in lanes_of(lanes) {
                        staged.push((phi.dst + k, l, sg.regs[(src + k) as usize * s + l]));
                    }
                }
            }
            let tainted = |layer: &[Mask]| -> Vec<(u32, u32, Mask)> {
                if layer.is_empty() {
                    return Vec::new();
                }
                tb.phis
                    .iter()
                    .filter_map(|phi| {
                        phi.incoming
                            .iter()
                            .find(|(p, _)| *p == t.block)
                            .map(|(_, src)| {
                                (
                                    phi.dst,
                                    phi.width,
                                    crate::exec::poison::any(layer, *src, phi.width),
                                )
                            })
                    })
                    .collect()
            };
            let poisoned = tainted(&sg.poison);
            let uninit = tainted(&sg.uninit);
            for (slot, l, v) in staged {
                sg.regs[slot as usize * s + l] = v;
            }
            for (dst, width, p) in poisoned {
                crate::exec::poison::set(&mut sg.poison, dst, width, lanes, p);
            }
            for (dst, width, p) in uninit {
                crate::exec::poison::set(&mut sg.uninit, dst, width, lanes, p);
            }
            if self.uninit.as_ref().is_some_and(|u| u.steering()) {
                super::uninit::uninit_merge_arrival(
                    self.uninit.as_deref_mut(),
                    &mut self.diags,
                    &mut self.mem,
                    sg,
                    (g, s),
                    (target, lanes),
                    prog,
                );
            }
        }
        let sg = &mut self.sgs[g];
        if is_switch_header && mode == SwitchTangles::PerCase {
            let Some(sw) = ctx else {
                return Err(RunError::Internal {
                    what: "a switch without its record".into(),
                    function: prog.func_name(block.func),
                    block: prog.block_name(t.block),
                });
            };
            let merge = sg.record(sw).map_or(0, |r| r.target);
            let falls = prog.fallthrough.get(&t.block).cloned().unwrap_or_default();
            let mut cases = Vec::new();
            for (target, from) in &falls {
                let direct = groups
                    .iter()
                    .filter(|gr| gr.0 == *target)
                    .fold(0, |m, gr| m | gr.1);
                let via = groups
                    .iter()
                    .filter(|gr| from.contains(&gr.0))
                    .fold(0, |m, gr| m | gr.1);
                if direct | via == 0 {
                    continue;
                }
                let id = sg.new_record(Record {
                    kind: RecordKind::Case,
                    target: *target,
                    members: direct | via,
                    arrived: direct,
                    escaped_in: 0,
                    parent: Some(sw),
                    arrivals: u32::from(direct != 0),
                    func: block.func,
                });
                cases.push((*target, id));
            }
            if let Some(Record {
                kind: RecordKind::Switch { cases: c },
                ..
            }) = sg.records.get_mut(sw as usize).and_then(Option::as_mut)
            {
                *c = cases.clone();
            }
            for &(target, lanes) in &groups {
                if target == merge {
                    sg.send(
                        prog,
                        ctx,
                        lanes,
                        target,
                        mode,
                        &mut self.next_tangle,
                        &mut ev,
                    );
                }
            }
            for (_, id) in cases {
                sg.try_resolve(id, &mut self.next_tangle, &mut ev);
            }
            self.account(ev);
            return Ok(());
        }
        let single = groups.len() == 1;
        for (target, lanes) in groups {
            if let Sent::MoveOn(c) = sg.send(
                prog,
                ctx,
                lanes,
                target,
                mode,
                &mut self.next_tangle,
                &mut ev,
            ) {
                // The lanes move on as a tangle: the same one if nothing split.
                let id = if single {
                    t.id
                } else {
                    self.next_tangle += 1;
                    self.next_tangle
                };
                sg.tangles.push(Tangle {
                    id,
                    mask: lanes,
                    block: target,
                    pos: 0,
                    ctx: c,
                    at_barrier: false,
                });
            }
        }
        self.account(ev);
        Ok(())
    }
}
