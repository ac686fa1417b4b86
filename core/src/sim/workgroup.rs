//! Running a workgroup: starting it, picking the tangle that runs next, releasing barriers.

use super::views::builtin_value;
use super::{lanes_list, RunError, Simulator};
use crate::exec::Mask;
use crate::program::Space;
use crate::sched::{Schedule, SiblingOrder, Subgroup, Tangle};
use crate::trace::DiagCode;
use std::sync::Arc;

impl Simulator {
    pub(super) fn start_workgroup(&mut self) {
        let prog = Arc::clone(&self.prog);
        let s = self.cfg.subgroup_size as usize;
        let [lx, ly, lz] = prog.local_size;
        let n = (lx * ly * lz) as usize;
        // The last workgroup's memory and registers are reused: allocating them afresh for
        // each workgroup showed in profiles of small dispatches.
        let zeroed = |v: &mut Vec<u8>, len: usize| {
            v.clear();
            v.resize(len, 0);
        };
        zeroed(&mut self.mem.workgroup, prog.workgroup_bytes as usize);
        self.mem.per_invocation = prog.invocation_bytes as usize;
        zeroed(&mut self.mem.invocation, n * prog.invocation_bytes as usize);
        for (space, off, bytes) in &prog.initializers {
            let o = *off as usize;
            match space {
                Space::Workgroup => self.mem.workgroup[o..o + bytes.len()].copy_from_slice(bytes),
                Space::Invocation => {
                    for inv in 0..n {
                        let b = inv * self.mem.per_invocation + o;
                        self.mem.invocation[b..b + bytes.len()].copy_from_slice(bytes);
                    }
                }
                Space::Buffer => {}
            }
        }
        let wg = self.workgroup_id();
        let nsg = n.div_ceil(s);
        for inv in 0..n {
            let local = [
                inv as u32 % lx,
                (inv as u32 / lx) % ly,
                inv as u32 / (lx * ly),
            ];
            let lane = (inv % s) as u32;
            let sg = (inv / s) as u32;
            let lanes_in = |k: u32| -> u128 {
                if k >= 128 {
                    u128::MAX
                } else {
                    (1u128 << k) - 1
                }
            };
            for &(off, builtin, comps) in &prog.inputs {
                let v = builtin_value(
                    builtin,
                    local,
                    wg,
                    self.cfg.workgroups,
                    prog.local_size,
                    inv as u32,
                    lane,
                    sg,
                    nsg as u32,
                    s as u32,
                    lanes_in,
                );
                let base = inv * self.mem.per_invocation + off as usize;
                for (k, x) in v.iter().take(comps as usize).enumerate() {
                    let b = base + 4 * k;
                    if b + 4 <= self.mem.invocation.len() {
                        self.mem.invocation[b..b + 4].copy_from_slice(&(*x as u32).to_le_bytes());
                    }
                }
            }
        }
        let slots = prog.num_slots as usize;
        let mut spare: Vec<Vec<u64>> = self.sgs.drain(..).map(|sg| sg.regs).collect();
        for g in 0..nsg {
            let lanes = (n - g * s).min(s);
            let live: Mask = if lanes >= 128 {
                u128::MAX
            } else {
                (1u128 << lanes) - 1
            };
            let mut regs = spare.pop().unwrap_or_default();
            regs.clear();
            regs.resize(slots * s, 0);
            for &(slot, v) in &prog.const_slots {
                regs[slot as usize * s..slot as usize * s + s].fill(v);
            }
            let mut sg = Subgroup::new(g as u32, live, regs);
            self.next_tangle += 1;
            sg.tangles.push(Tangle {
                id: self.next_tangle,
                mask: live,
                block: prog.functions[prog.entry_func as usize].entry,
                pos: 0,
                ctx: None,
                at_barrier: false,
            });
            self.sgs.push(sg);
        }
        self.current = None;
        if let Some(d) = &mut self.detect {
            d.start_workgroup(nsg, self.mem.workgroup.len(), prog.workgroup_unit);
        }
        self.uninit_start_workgroup();
    }

    /// Choose the tangle to run next: keep running the current one while it can.
    pub(super) fn select(&mut self) -> Result<Option<(usize, usize)>, RunError> {
        let random = matches!(self.cfg.schedule, Schedule::Random(_));
        if let Some((g, id)) = self.current.filter(|_| !random) {
            if let Some(i) = self.sgs[g]
                .tangles
                .iter()
                .position(|t| t.id == id && !t.at_barrier)
            {
                return Ok(Some((g, i)));
            }
        }
        loop {
            if let Some((g, i)) = self.pick_next() {
                self.current = Some((g, self.sgs[g].tangles[i].id));
                return Ok(Some((g, i)));
            }
            // Nothing runnable: release a barrier, move to the next workgroup, or stop.
            if self
                .sgs
                .iter()
                .any(|sg| sg.tangles.iter().any(|t| t.at_barrier))
            {
                self.release_barrier();
                continue;
            }
            if let Some(sg) = self.sgs.iter().find(|sg| sg.finished != sg.live) {
                return Err(RunError::Deadlock {
                    workgroup: self.workgroup_id(),
                    subgroup: sg.index,
                    lanes: lanes_list(sg.live & !sg.finished),
                });
            }
            self.stats.workgroups_done += 1;
            let next = if self.wg_order.is_empty() {
                Some(self.wg_linear + 1).filter(|n| *n < self.wg_total)
            } else {
                self.wg_pos += 1;
                self.wg_order.get(self.wg_pos).copied()
            };
            let Some(next) = next else {
                self.finished = true;
                // A parallel run's part is not the run (and has no race when it is kept).
                if let Some(initial) = self.initial.take() {
                    if !self.steered && self.footprint.is_none() {
                        self.uninit_classify_war(&initial);
                    }
                    self.initial = Some(initial);
                }
                return Ok(None);
            };
            self.wg_linear = next;
            self.start_workgroup();
        }
    }

    /// The tangle to run next under the schedule, among every subgroup's runnable ones.
    pub(super) fn pick_next(&mut self) -> Option<(usize, usize)> {
        match self.cfg.schedule {
            Schedule::Default => (0..self.sgs.len())
                .find_map(|g| self.sgs[g].pick(self.cfg.sibling_order).map(|i| (g, i))),
            Schedule::Reverse => (0..self.sgs.len())
                .rev()
                .find_map(|g| self.sgs[g].pick(SiblingOrder::HighestLane).map(|i| (g, i))),
            Schedule::Random(_) => {
                let runnable: Vec<(usize, usize)> = self
                    .sgs
                    .iter()
                    .enumerate()
                    .flat_map(|(g, sg)| {
                        sg.tangles
                            .iter()
                            .enumerate()
                            .filter(|(_, t)| !t.at_barrier)
                            .map(move |(i, _)| (g, i))
                    })
                    .collect();
                if runnable.is_empty() {
                    None
                } else {
                    Some(runnable[self.rng.below(runnable.len())])
                }
            }
        }
    }

    pub(super) fn release_barrier(&mut self) {
        // Workgroup-scope cooperative-matrix operations run once the workgroup waits for them.
        if self.release_coop() {
            return;
        }
        // Who waits at which barrier, who has exited, who is elsewhere (local invocation
        // indices), for the report.
        let s = self.cfg.subgroup_size;
        let mut sites: std::collections::BTreeMap<(u32, u32), Vec<u32>> = Default::default();
        let (mut exited, mut elsewhere) = (Vec::new(), Vec::new());
        let mut first_sg = None;
        let counts_exited = self.detect.is_some();
        for sg in &self.sgs {
            let at: Mask = sg
                .tangles
                .iter()
                .filter(|t| t.at_barrier)
                .fold(0, |m, t| m | t.mask);
            for t in sg.tangles.iter().filter(|t| t.at_barrier) {
                first_sg.get_or_insert(sg.index);
                sites.entry((t.block, t.pos)).or_default().extend(
                    crate::lanes::LaneMask(t.mask)
                        .iter()
                        .map(|l| sg.index * s + l),
                );
            }
            let base = sg.index * s;
            if counts_exited {
                exited.extend(
                    crate::lanes::LaneMask(sg.finished & sg.live)
                        .iter()
                        .map(|l| base + l),
                );
            }
            elsewhere.extend(
                crate::lanes::LaneMask(sg.live & !sg.finished & !at)
                    .iter()
                    .map(|l| base + l),
            );
        }
        let memory = sites
            .keys()
            .filter_map(
                |(b, i)| match self.prog.blocks[*b as usize].insts.get(*i as usize) {
                    Some(crate::program::Inst::Barrier { memory, .. }) => Some(*memory),
                    _ => None,
                },
            )
            .fold(0, |m, x| m | x);
        if let Some(d) = &mut self.detect {
            let (b, i) = sites.keys().next().copied().unwrap_or((0, 0));
            d.workgroup_barrier(memory, self.prog.step_index(b, i));
        }
        if !exited.is_empty() || !elsewhere.is_empty() || sites.len() > 1 {
            let ranges = |v: &[u32]| crate::lanes::index_ranges(v, ",");
            let mut parts: Vec<String> = sites
                .iter()
                .map(|((b, i), invs)| {
                    let k = self.prog.step_index(*b, *i);
                    let at = self
                        .prog
                        .source_ref(k)
                        .describe()
                        .unwrap_or_else(|| format!("instruction #{k}"));
                    format!("invocations {} wait at the barrier at {at}", ranges(invs))
                })
                .collect();
            if !exited.is_empty() {
                parts.push(format!("invocations {} have exited", ranges(&exited)));
            }
            if !elsewhere.is_empty() {
                parts.push(format!(
                    "invocations {} wait elsewhere (at a reconvergence point)",
                    ranges(&elsewhere)
                ));
            }
            let (b, i) = sites.keys().next().copied().unwrap_or((0, 0));
            self.diagnose(
                DiagCode::BarrierDivergence,
                format!(
                    "a workgroup barrier not executed by every invocation of the workgroup (undefined behaviour; released anyway): {}",
                    parts.join("; ")
                ),
                first_sg.unwrap_or(0),
                b,
                i,
                0,
            );
        }
        for sg in &mut self.sgs {
            for t in &mut sg.tangles {
                if t.at_barrier {
                    t.at_barrier = false;
                    t.pos += 1;
                }
            }
        }
    }
}
