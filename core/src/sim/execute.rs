//! One step: an instruction of one tangle, its effects on memory, poison and the detectors,
//! and what it hands to the scheduler.

use super::{lanes_list, RunError, Simulator};
use crate::exec::step::{self, Findings, Flow};
use crate::exec::Mask;
use crate::program::Program;
use crate::sched::Events;
use crate::trace::{DiagCode, Diagnostic, StepEvent};

impl Simulator {
    /// Runs one step of tangle `ti` of subgroup `g`. True when it was a plain one: an
    /// instruction that only moved the tangle on, with nothing for the scheduler.
    /// `prog` is the simulator's own program, borrowed by the caller (a run borrows it once
    /// for all its steps: cloning the `Arc` at each step was a pair of atomic operations on
    /// the hot path).
    pub(super) fn exec_step(
        &mut self,
        g: usize,
        ti: usize,
        prog: &Program,
    ) -> Result<bool, RunError> {
        let s = self.cfg.subgroup_size as usize;
        let t = self.sgs[g].tangles[ti].clone();
        let block_len = prog.blocks[t.block as usize].insts.len();
        self.stats.steps += 1;
        self.stats.lane_instructions += u64::from(t.mask.count_ones());
        if self.cfg.record_trace && self.trace.len() >= self.cfg.max_trace_steps {
            self.cfg.record_trace = false;
            self.diagnose(DiagCode::TraceLimit, format!("the trace holds {} steps, its limit (Config::max_trace_steps); later steps are not recorded", self.cfg.max_trace_steps), g as u32, t.block, t.pos, t.mask);
        }
        if self.cfg.record_trace {
            self.trace.push(StepEvent {
                step: self.stats.steps,
                workgroup: self.wg_linear,
                subgroup: g as u32,
                tangle: t.id,
                lanes: t.mask,
                block: t.block,
                pos: t.pos,
            });
        }
        if !prog.blocks[t.block as usize].printfs.is_empty() {
            let at = crate::exec::printf::At {
                workgroup: self.workgroup_id(),
                subgroup: g as u32,
                subgroup_size: s,
                step: self.stats.steps,
                max_lines: self.cfg.max_printf_lines,
            };
            let block = &prog.blocks[t.block as usize];
            let regs = &self.sgs[g].regs;
            crate::exec::printf::emit(&mut self.printf, block, t.pos, regs, t.mask, &at);
        }
        if (t.pos as usize) < block_len {
            let mut found = Findings::default();
            // Every lane of a whole subgroup (compared with the all-lanes mask: no popcount).
            let all = if s >= 128 { Mask::MAX } else { (1 << s) - 1 };
            let full = t.mask == self.sgs[g].live && self.sgs[g].live == all;
            // (checked here: the call alone showed in profiles of steps with nothing undefined)
            if self.uninit.as_ref().is_some_and(|u| u.tainted_regs(g)) {
                self.uninit_check_uses(g, &t, &prog.blocks[t.block as usize].insts[t.pos as usize]);
            }
            self.mem.step_ptr = None;
            let (flow, touches_memory) = {
                let inst = &prog.blocks[t.block as usize].insts[t.pos as usize];
                let touches_memory = crate::sim::uninit::touches_memory(inst);
                let sg = &mut self.sgs[g];
                let mut cx = step::Ctx {
                    prog,
                    regs: &mut sg.regs,
                    s,
                    mask: t.mask,
                    full,
                    mem: &mut self.mem,
                    inv_base: g * s,
                    found: &mut found,
                };
                (step::exec(&mut cx, inst), touches_memory)
            };
            // Nothing to follow up: no poison, no detector, no finding, no access logged for
            // the race detector or a parallel run's footprint, straight on. (Whether the
            // uninitialized-read layer has anything to follow is found once: a step that logged
            // accesses still skips its propagation when it has none.)
            let inst = &prog.blocks[t.block as usize].insts[t.pos as usize];
            let quiet = self.uninit_quiet(g, &t, inst, touches_memory);
            if found.items.is_empty()
                && matches!(flow, Flow::Next)
                && self.sgs[g].poison.is_empty()
                && !self.mem.poison.any
                && quiet
                && self.mem.log.as_ref().is_none_or(|l| l.is_empty())
            {
                self.sgs[g].tangles[ti].pos += 1;
                return Ok(true);
            }
            let new_poison = found
                .items
                .iter()
                .filter(|it| it.0.makes_poison())
                .fold(0, |m, it| m | it.2);
            if new_poison != 0 || !self.sgs[g].poison.is_empty() || self.mem.poison.any {
                self.propagate_poison(g, &t, inst, new_poison, &found.permutation);
            }
            if !quiet {
                self.uninit_propagate(g, &t, inst, &found.permutation);
            }
            for (code, msg, lanes) in found.items {
                self.diagnose(code, msg, g as u32, t.block, t.pos, lanes);
            }
            self.check_accesses(t.block, t.pos);
            self.uninit_replay_step(g, &t);
            // The detectors' and poison's bookkeeping is nothing for the scheduler: a step that
            // only moves the tangle on stays plain (a run keeps running its block).
            let plain = matches!(flow, Flow::Next);
            let sg = &mut self.sgs[g];
            match flow {
                Flow::Next => sg.tangles[ti].pos += 1,
                Flow::Barrier {
                    workgroup: true, ..
                } => sg.tangles[ti].at_barrier = true,
                Flow::Barrier {
                    workgroup: false,
                    memory,
                } => {
                    // Invocations that exited count: every one of the subgroup must execute it.
                    let expected = if self.detect.is_some() {
                        sg.live
                    } else {
                        sg.live & !sg.finished
                    };
                    let (live, finished) = (sg.live, sg.finished);
                    if let Some(d) = &mut self.detect {
                        d.subgroup_barrier(g, memory, prog.step_index(t.block, t.pos));
                    }
                    if t.mask != expected {
                        let exited = finished & live & !t.mask;
                        let others = live & !finished & !t.mask;
                        let mut msg = format!(
                            "subgroup-scope OpControlBarrier executed by lanes {} of subgroup {g} only",
                            crate::lanes::LaneMask(t.mask).ranges()
                        );
                        if exited != 0 {
                            msg.push_str(&format!(
                                "; lanes {} had exited",
                                crate::lanes::LaneMask(exited).ranges()
                            ));
                        }
                        if others != 0 {
                            msg.push_str(&format!(
                                "; lanes {} were elsewhere",
                                crate::lanes::LaneMask(others).ranges()
                            ));
                        }
                        msg.push_str(" (every invocation of the subgroup must execute it: undefined behaviour)");
                        self.diagnose(
                            DiagCode::BarrierDivergence,
                            msg,
                            g as u32,
                            t.block,
                            t.pos,
                            t.mask,
                        );
                    }
                    self.sgs[g].tangles[ti].pos += 1;
                }
                Flow::Call => self.call(g, ti, inst),
                Flow::CoopWorkgroup => sg.tangles[ti].at_barrier = true,
            }
            return Ok(plain);
        }
        if self.uninit.is_some() {
            self.uninit_check_branch(g, &t, &prog.blocks[t.block as usize].term);
        }
        self.terminator(g, ti, prog).map(|()| false)
    }

    pub(super) fn account(&mut self, ev: Events) {
        self.stats.divergences += ev.divergences;
        self.stats.reconvergences += ev.reconvergences;
    }

    pub(super) fn diagnose(
        &mut self,
        code: DiagCode,
        message: String,
        subgroup: u32,
        block: u32,
        pos: u32,
        lanes: Mask,
    ) {
        if !self.diag_seen.insert((code, block, pos))
            || self.diags.len() >= self.cfg.max_diagnostics
        {
            return;
        }
        let b = &self.prog.blocks[block as usize];
        let instruction = self.prog.step_index(block, pos);
        self.diags.push(Diagnostic {
            code,
            message,
            function: self.prog.func_name(b.func),
            block: self.prog.block_name(block),
            instruction,
            workgroup: self.workgroup_id(),
            subgroup,
            lanes: lanes_list(lanes),
            step: self.stats.steps,
            source: self.prog.source_ref(instruction),
            accesses: Vec::new(),
            address: None,
            variable: None,
            lockstep: false,
            observed: true,
        });
    }
}
