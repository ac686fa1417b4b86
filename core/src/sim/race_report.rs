//! The race detector's side of a run: each step's accesses fed to it ([`super::detect`]), and
//! each race it finds reported as a diagnostic naming both accesses, the memory and the barrier
//! that did not order them.

use super::detect::{class_of, lacks, Kind, Race, Rec, SHARED};
use crate::program::Space;

impl super::Simulator {
    /// Feeds the race detector the accesses the last step made, and reports new races.
    pub(super) fn check_accesses(&mut self, block: u32, pos: u32) {
        let Some(log) = self.mem.log.as_mut() else {
            return;
        };
        if log.is_empty() {
            return;
        }
        if let Some(f) = self.footprint.as_mut() {
            f.record(log);
        }
        let Some(d) = self.detect.as_mut() else {
            log.clear();
            return;
        };
        let before = d.races.len();
        let instr = self.prog.step_index(block, pos);
        let (wg, s, step) = (self.wg_linear, self.cfg.subgroup_size, self.stats.steps);
        match log.run_head {
            Some(head) => d.run(&head, &log.run, wg, s, step, (block, instr)),
            None => d.accesses(&log.accesses, wg, s, step, (block, instr)),
        }
        log.clear();
        if d.races.len() == before {
            return;
        }
        let new: Vec<Race> = d.races[before..].to_vec();
        for r in new {
            self.report_race(&r);
        }
    }

    fn report_race(&mut self, r: &Race) {
        if self.diags.len() >= self.cfg.max_diagnostics {
            return;
        }
        let [nx, ny, _] = self.cfg.workgroups;
        let wg_id = |l: u32| [l % nx, (l / nx) % ny, l / (nx * ny)];
        let kind = |k: Kind| match k {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::AtomicRead | Kind::AtomicWrite => "atomic",
        };
        let access = |a: &Rec| {
            let src = self.prog.source_ref(a.instr);
            crate::trace::AccessRef {
                invocation: a.inv,
                workgroup: wg_id(a.wg),
                instruction: a.instr,
                file: src.file,
                line: src.line,
                kind: kind(a.kind),
                step: a.step,
            }
        };
        let (first, second) = (access(&r.first), access(&r.second));
        let variable = self.prog.describe_address(r.space, r.region, r.offset);
        let memory = match r.space {
            Space::Workgroup => "Workgroup memory".to_string(),
            _ => self.prog.resources.get(r.region as usize).map_or_else(
                || "a buffer".into(),
                |res| format!("the buffer at set {} binding {}", res.set, res.binding),
            ),
        };
        let place = |a: &crate::trace::AccessRef| match (&a.file, a.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            _ => format!("instruction #{}", a.instruction),
        };
        let who = |a: &crate::trace::AccessRef| {
            if r.first.wg != r.second.wg {
                format!("invocation {} of workgroup {:?}", a.invocation, a.workgroup)
            } else {
                format!("invocation {}", a.invocation)
            }
        };
        let mut message = format!(
            "data race on {} ({memory}, byte {}): {} {}s it at {} (step {}) and {} {}s it at {} (step {}), and nothing orders the two",
            variable.as_deref().unwrap_or("memory"),
            r.offset,
            who(&first),
            first.kind,
            place(&first),
            first.step,
            who(&second),
            second.kind,
            place(&second),
            second.step,
        );
        if let Some(gap) = r.unordered_by {
            let at = self
                .prog
                .source_ref(gap.instr)
                .describe()
                .unwrap_or_else(|| format!("instruction #{}", gap.instr));
            let c = class_of(r.space);
            let l = lacks(gap.memory, c);
            let mut missing = Vec::new();
            if l & 1 != 0 {
                missing.push(if c == SHARED {
                    "no WorkgroupMemory semantics"
                } else {
                    "no UniformMemory semantics"
                });
            }
            missing.push(match l & 6 {
                6 => "no Acquire/Release semantics",
                2 => "no Acquire semantics",
                4 => "no Release semantics",
                _ => "",
            });
            missing.retain(|m| !m.is_empty());
            message.push_str(&format!(
                ": the barrier at {at} between them has {} (semantics {:#x}), so it does not order {}",
                missing.join(" and "),
                gap.memory,
                if c == SHARED { "Workgroup memory" } else { "buffer memory" },
            ));
            if r.lockstep {
                message.push_str(
                    " (only the lockstep execution of their subgroup orders them here, which the memory model does not promise)",
                );
            }
        } else if r.lockstep {
            message.push_str(" except the lockstep execution of their subgroup, which the memory model does not promise (a subgroup or workgroup barrier orders them)");
        } else if r.first.wg != r.second.wg {
            message.push_str(
                " (workgroups run in no order; only atomics may share memory between them)",
            );
        } else {
            message.push_str(" (a barrier between them would)");
        }
        let s = self.cfg.subgroup_size;
        let g = r.second.sg;
        let lanes: Vec<u32> = [r.first, r.second]
            .iter()
            .filter(|a| a.wg == r.second.wg && a.sg == g)
            .map(|a| a.inv % s)
            .collect();
        let func = self
            .prog
            .blocks
            .get(r.second.block as usize)
            .map_or(0, |b| b.func);
        self.diags.push(crate::trace::Diagnostic {
            code: crate::trace::DiagCode::DataRace,
            message,
            function: self.prog.func_name(func),
            block: self.prog.block_name(r.second.block),
            instruction: r.second.instr,
            workgroup: wg_id(r.second.wg),
            subgroup: g,
            lanes,
            step: r.second.step,
            source: self.prog.source_ref(r.second.instr),
            accesses: vec![first, second],
            address: Some(u64::from(r.offset)),
            variable,
            lockstep: r.lockstep,
            observed: true,
        });
        // A read racing with an earlier write, made by this step's load: its value is
        // followed, and the race stays unobserved unless it reaches an observable use.
        if r.second.kind == Kind::Read {
            let k = self.diags.len() - 1;
            if self.uninit_track_race(k, r.second.inv, r.second.block, r.second.instr) {
                self.diags[k].observed = false;
            }
        }
        // A read that came first: its uses have run; the replay at the end of the run judges
        // it.
        if r.first.kind == Kind::Read && r.second.kind.writes() {
            self.uninit_note_war(self.diags.len() - 1, &r.first);
        }
    }
}
