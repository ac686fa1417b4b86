//! The `Simulator` facade: configuration, workgroups, the run loop, stepping, history.

use crate::exec::memory::Memory;
use crate::exec::step::{self, Findings, Flow};
use crate::exec::Mask;
use crate::program::{Inst, Merge, Program, Space, Terminator};
use crate::sched::{Events, Record, RecordKind, SiblingOrder, Subgroup, SwitchTangles, Tangle};
use crate::trace::{Diagnostic, LaneState, StepEvent, TangleView};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Settings of a run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Config {
    pub subgroup_size: u32,
    pub workgroups: [u32; 3],
    pub switch_tangles: SwitchTangles,
    pub sibling_order: SiblingOrder,
    /// Record every step (for `--trace` and the app's timeline).
    pub record_trace: bool,
    /// Most diagnostics kept (each distinct problem is kept once per instruction anyway).
    pub max_diagnostics: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            subgroup_size: 32,
            workgroups: [1, 1, 1],
            switch_tangles: SwitchTangles::PerValue,
            sibling_order: SiblingOrder::LowestLane,
            record_trace: false,
            max_diagnostics: 1000,
        }
    }
}

/// Buffers the host binds before a run.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    /// (set, binding, initial bytes).
    pub buffers: Vec<(u32, u32, Vec<u8>)>,
    pub push_constants: Vec<u8>,
}

/// Why a run could not start or go on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RunError {
    pub message: String,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunError {}

fn err(message: impl Into<String>) -> RunError {
    RunError {
        message: message.into(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Outcome {
    /// Every invocation of every workgroup has finished.
    Finished,
    /// The step budget ran out; `run` can be called again.
    Budget,
}

/// Totals over the run so far.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Stats {
    pub steps: u64,
    pub lane_instructions: u64,
    pub divergences: u64,
    pub reconvergences: u64,
    pub workgroups_done: u32,
}

#[derive(Clone)]
pub struct Simulator {
    prog: Arc<Program>,
    cfg: Config,
    mem: Memory,
    pub(crate) sgs: Vec<Subgroup>,
    wg_linear: u32,
    wg_total: u32,
    next_tangle: u64,
    stats: Stats,
    diags: Vec<Diagnostic>,
    diag_seen: BTreeSet<(&'static str, u32, u32)>,
    trace: Vec<StepEvent>,
    /// The tangle being run: (subgroup, tangle id). Runs until it blocks, then another is picked.
    current: Option<(usize, u64)>,
    finished: bool,
}

impl Simulator {
    pub fn new(prog: Arc<Program>, cfg: Config, bindings: &Bindings) -> Result<Self, RunError> {
        let s = cfg.subgroup_size;
        if !(4..=128).contains(&s) || !s.is_power_of_two() {
            return Err(err(format!(
                "subgroup size {s} must be a power of two from 4 to 128"
            )));
        }
        let [x, y, z] = prog.local_size;
        let invocations = u64::from(x) * u64::from(y) * u64::from(z);
        if invocations == 0 || invocations > 4096 {
            return Err(err(format!(
                "workgroup size {x}x{y}x{z} = {invocations} invocations; supported: 1 to 4096"
            )));
        }
        let wg_total = cfg
            .workgroups
            .iter()
            .map(|w| u64::from(*w))
            .product::<u64>();
        if wg_total == 0 || wg_total > 1 << 20 {
            return Err(err(format!(
                "{wg_total} workgroups requested; supported: 1 to 1048576"
            )));
        }
        let mut buffers = Vec::with_capacity(prog.resources.len());
        for res in &prog.resources {
            let data = if res.push_constant {
                bindings.push_constants.clone()
            } else {
                bindings
                    .buffers
                    .iter()
                    .find(|(st, b, _)| *st == res.set && *b == res.binding)
                    .map(|(_, _, d)| d.clone())
                    .ok_or_else(|| {
                        err(format!(
                            "no buffer bound at set {} binding {} (`{}`, at least {} bytes)",
                            res.set, res.binding, res.name, res.min_size
                        ))
                    })?
            };
            if (data.len() as u64) < u64::from(res.min_size) {
                let what = if res.push_constant {
                    "push constants".to_string()
                } else {
                    format!(
                        "buffer at set {} binding {} (`{}`)",
                        res.set, res.binding, res.name
                    )
                };
                return Err(err(format!(
                    "{what} has {} bytes; the shader's declaration needs at least {}",
                    data.len(),
                    res.min_size
                )));
            }
            buffers.push(data);
        }
        let mut sim = Self {
            prog,
            cfg,
            mem: Memory {
                buffers,
                ..Memory::default()
            },
            sgs: Vec::new(),
            wg_linear: 0,
            wg_total: wg_total as u32,
            next_tangle: 0,
            stats: Stats::default(),
            diags: Vec::new(),
            diag_seen: BTreeSet::new(),
            trace: Vec::new(),
            current: None,
            finished: false,
        };
        sim.start_workgroup();
        Ok(sim)
    }

    pub fn program(&self) -> &Arc<Program> {
        &self.prog
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diags
    }

    pub fn trace(&self) -> &[StepEvent] {
        &self.trace
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    pub fn workgroup_id(&self) -> [u32; 3] {
        let [x, y, _] = self.cfg.workgroups;
        let l = self.wg_linear;
        [l % x, (l / x) % y, l / (x * y)]
    }

    /// Final (or current) contents of the buffer at (set, binding).
    pub fn buffer(&self, set: u32, binding: u32) -> Option<&[u8]> {
        let i = self
            .prog
            .resources
            .iter()
            .position(|r| !r.push_constant && r.set == set && r.binding == binding)?;
        self.mem.buffers.get(i).map(Vec::as_slice)
    }

    fn start_workgroup(&mut self) {
        let prog = Arc::clone(&self.prog);
        let s = self.cfg.subgroup_size as usize;
        let [lx, ly, lz] = prog.local_size;
        let n = (lx * ly * lz) as usize;
        self.mem.workgroup = vec![0; prog.workgroup_bytes as usize];
        self.mem.per_invocation = prog.invocation_bytes as usize;
        self.mem.invocation = vec![0; n * prog.invocation_bytes as usize];
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
                let v: Vec<u64> = builtin_value(
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
        self.sgs.clear();
        for g in 0..nsg {
            let lanes = (n - g * s).min(s);
            let live: Mask = if lanes >= 128 {
                u128::MAX
            } else {
                (1u128 << lanes) - 1
            };
            let mut regs = vec![0u64; slots * s];
            for &(slot, v) in &prog.const_slots {
                regs[slot as usize * s..slot as usize * s + s].fill(v);
            }
            let mut sg = Subgroup::new(g as u32, live, regs);
            self.next_tangle += 1;
            sg.tangles.push(Tangle {
                id: self.next_tangle,
                mask: live,
                block: prog.functions[prog.entry_func as usize].entry,
                inst: 0,
                ctx: None,
                at_barrier: false,
            });
            self.sgs.push(sg);
        }
        self.current = None;
    }

    /// Choose the tangle to run next: keep running the current one while it can.
    fn select(&mut self) -> Result<Option<(usize, usize)>, RunError> {
        if let Some((g, id)) = self.current {
            if let Some(i) = self.sgs[g]
                .tangles
                .iter()
                .position(|t| t.id == id && !t.at_barrier)
            {
                return Ok(Some((g, i)));
            }
        }
        loop {
            for g in 0..self.sgs.len() {
                if let Some(i) = self.sgs[g].pick(self.cfg.sibling_order) {
                    self.current = Some((g, self.sgs[g].tangles[i].id));
                    return Ok(Some((g, i)));
                }
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
                return Err(err(format!(
                    "deadlock in workgroup {:?}, subgroup {}: lanes {} wait at reconvergence points that can never complete (is the control flow structured?)",
                    self.workgroup_id(),
                    sg.index,
                    mask_list(sg.live & !sg.finished)
                )));
            }
            self.stats.workgroups_done += 1;
            if self.wg_linear + 1 >= self.wg_total {
                self.finished = true;
                return Ok(None);
            }
            self.wg_linear += 1;
            self.start_workgroup();
        }
    }

    fn release_barrier(&mut self) {
        let waiting: Mask = self
            .sgs
            .iter()
            .map(|sg| {
                sg.tangles
                    .iter()
                    .filter(|t| t.at_barrier)
                    .fold(0, |m, t| m | t.mask)
            })
            .fold(0, |a, b| a | b);
        let _ = waiting;
        let mut sites = BTreeSet::new();
        let mut partial = false;
        for sg in &self.sgs {
            let at: Mask = sg
                .tangles
                .iter()
                .filter(|t| t.at_barrier)
                .fold(0, |m, t| m | t.mask);
            if at != sg.live & !sg.finished {
                partial = true;
            }
            for t in sg.tangles.iter().filter(|t| t.at_barrier) {
                sites.insert((t.block, t.inst));
            }
        }
        if partial || sites.len() > 1 {
            let (b, i) = sites.iter().next().copied().unwrap_or((0, 0));
            self.diagnose("barrier-divergence", "OpControlBarrier reached by only part of the workgroup, or at different barriers (undefined behaviour); released anyway".into(), 0, b, i, 0);
        }
        for sg in &mut self.sgs {
            for t in &mut sg.tangles {
                if t.at_barrier {
                    t.at_barrier = false;
                    t.inst += 1;
                }
            }
        }
    }

    /// Run up to `budget` steps.
    pub fn run(&mut self, budget: u64) -> Result<Outcome, RunError> {
        for _ in 0..budget {
            if !self.step()? {
                return Ok(Outcome::Finished);
            }
        }
        if self.finished {
            return Ok(Outcome::Finished);
        }
        // A step may be due that only finishes bookkeeping (e.g. moving to the next workgroup).
        if self.select()?.is_none() {
            return Ok(Outcome::Finished);
        }
        Ok(Outcome::Budget)
    }

    /// Execute one instruction of one tangle. Returns false when everything has finished.
    pub fn step(&mut self) -> Result<bool, RunError> {
        if self.finished {
            return Ok(false);
        }
        let Some((g, ti)) = self.select()? else {
            return Ok(false);
        };
        self.exec_step(g, ti)?;
        Ok(true)
    }

    /// Run the given tangle (by id) one instruction, if it is runnable.
    pub fn step_tangle(&mut self, subgroup: usize, id: u64) -> Result<bool, RunError> {
        let Some(i) = self
            .sgs
            .get(subgroup)
            .and_then(|sg| sg.tangles.iter().position(|t| t.id == id && !t.at_barrier))
        else {
            return Ok(false);
        };
        self.current = Some((subgroup, id));
        self.exec_step(subgroup, i)?;
        Ok(true)
    }

    fn exec_step(&mut self, g: usize, ti: usize) -> Result<(), RunError> {
        let prog = Arc::clone(&self.prog);
        let s = self.cfg.subgroup_size as usize;
        let t = self.sgs[g].tangles[ti].clone();
        let block = &prog.blocks[t.block as usize];
        self.stats.steps += 1;
        self.stats.lane_instructions += u64::from(t.mask.count_ones());
        if self.cfg.record_trace {
            self.trace.push(StepEvent {
                step: self.stats.steps,
                workgroup: self.wg_linear,
                subgroup: g as u32,
                tangle: t.id,
                lanes: t.mask,
                block: t.block,
                inst: t.inst,
            });
        }
        if (t.inst as usize) < block.insts.len() {
            let inst = &block.insts[t.inst as usize];
            let mut found = Findings::default();
            let full = t.mask == self.sgs[g].live && self.sgs[g].live.count_ones() as usize == s;
            let flow = {
                let sg = &mut self.sgs[g];
                let mut cx = step::Ctx {
                    prog: &prog,
                    regs: &mut sg.regs,
                    s,
                    mask: t.mask,
                    full,
                    mem: &mut self.mem,
                    inv_base: g * s,
                    found: &mut found,
                };
                step::exec(&mut cx, inst)
            };
            for (code, msg, lanes) in found.items {
                self.diagnose(code, msg, g as u32, t.block, t.inst, lanes);
            }
            let sg = &mut self.sgs[g];
            match flow {
                Flow::Next => sg.tangles[ti].inst += 1,
                Flow::Barrier { workgroup: true } => sg.tangles[ti].at_barrier = true,
                Flow::Barrier { workgroup: false } => {
                    if t.mask != sg.live & !sg.finished {
                        self.diagnose(
                            "barrier-divergence",
                            "subgroup-scope OpControlBarrier executed by only part of the subgroup"
                                .into(),
                            g as u32,
                            t.block,
                            t.inst,
                            t.mask,
                        );
                    }
                    self.sgs[g].tangles[ti].inst += 1;
                }
                Flow::Call => self.call(g, ti, inst),
            }
            return Ok(());
        }
        self.terminator(g, ti, &prog)
    }

    fn call(&mut self, g: usize, ti: usize, inst: &Inst) {
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
        }
        let rec = sg.new_record(Record {
            kind: RecordKind::Call {
                resume: t.inst + 1,
                dst: *dst,
            },
            target: t.block,
            members: t.mask,
            arrived: 0,
            escaped_in: 0,
            parent: t.ctx,
            arrivals: 0,
            func: prog.blocks[t.block as usize].func,
        });
        let tt = &mut sg.tangles[ti];
        tt.block = callee.entry;
        tt.inst = 0;
        tt.ctx = Some(rec);
    }

    fn terminator(&mut self, g: usize, ti: usize, prog: &Program) -> Result<(), RunError> {
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
                let back_edge = ctx
                    .and_then(|c| sg.record(c))
                    .is_some_and(|r| r.kind == RecordKind::Loop { header: t.block });
                let loop_rec = if back_edge {
                    ctx
                } else {
                    Some(sg.new_record(Record {
                        kind: RecordKind::Loop { header: t.block },
                        target: merge,
                        members: t.mask,
                        arrived: 0,
                        escaped_in: 0,
                        parent: ctx,
                        arrivals: 0,
                        func: block.func,
                    }))
                };
                ctx = Some(sg.new_record(Record {
                    kind: RecordKind::Continue,
                    target: continue_target,
                    members: t.mask,
                    arrived: 0,
                    escaped_in: 0,
                    parent: loop_rec,
                    arrivals: 0,
                    func: block.func,
                }));
            }
            Some(Merge::Selection { merge }) => {
                is_switch_header = matches!(block.term, Terminator::Switch { .. });
                let kind = if is_switch_header {
                    RecordKind::Switch { cases: Vec::new() }
                } else {
                    RecordKind::Selection
                };
                ctx = Some(self.sgs[g].new_record(Record {
                    kind,
                    target: merge,
                    members: t.mask,
                    arrived: 0,
                    escaped_in: 0,
                    parent: ctx,
                    arrivals: 0,
                    func: block.func,
                }));
            }
            None => {}
        }
        let lanes_of = |m: Mask| -> Vec<usize> {
            let mut v = Vec::new();
            let mut m = m;
            while m != 0 {
                v.push(m.trailing_zeros() as usize);
                m &= m - 1;
            }
            v
        };
        // Where each lane goes: (target, lanes), in a deterministic order.
        let mut groups: Vec<(u32, Mask)> = Vec::new();
        match &block.term {
            Terminator::Branch { target } => groups.push((*target, t.mask)),
            Terminator::BranchConditional { cond, t: tb, f } => {
                let regs = &self.sgs[g].regs;
                let tm = lanes_of(t.mask)
                    .into_iter()
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
                    "unreachable",
                    what.into(),
                    g as u32,
                    t.block,
                    t.inst,
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
                continue;
            }
            let sg = &mut self.sgs[g];
            let mut staged: Vec<(u32, usize, u64)> = Vec::new();
            for phi in &tb.phis {
                let Some((_, src)) = phi.incoming.iter().find(|(p, _)| *p == t.block) else {
                    return Err(err(format!(
                        "OpPhi in {} has no value for predecessor {}",
                        prog.block_name(target),
                        prog.block_name(t.block)
                    )));
                };
                for k in 0..phi.width {
                    for l in lanes_of(lanes) {
                        staged.push((phi.dst + k, l, sg.regs[(src + k) as usize * s + l]));
                    }
                }
            }
            for (slot, l, v) in staged {
                sg.regs[slot as usize * s + l] = v;
            }
        }
        let sg = &mut self.sgs[g];
        if is_switch_header && mode == SwitchTangles::PerCase {
            let Some(sw) = ctx else {
                return Err(err("internal: switch without record"));
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
            if let Some(c) = sg.send(
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
                    inst: 0,
                    ctx: c,
                    at_barrier: false,
                });
            }
        }
        self.account(ev);
        Ok(())
    }

    fn account(&mut self, ev: Events) {
        self.stats.divergences += ev.divergences;
        self.stats.reconvergences += ev.reconvergences;
    }

    fn diagnose(
        &mut self,
        code: &'static str,
        message: String,
        subgroup: u32,
        block: u32,
        inst: u32,
        lanes: Mask,
    ) {
        if !self.diag_seen.insert((code, block, inst))
            || self.diags.len() >= self.cfg.max_diagnostics
        {
            return;
        }
        let b = &self.prog.blocks[block as usize];
        self.diags.push(Diagnostic {
            code: code.into(),
            message,
            function: self.prog.func_name(b.func),
            block: self.prog.block_name(block),
            instruction: b
                .inst_indices
                .get(inst as usize)
                .copied()
                .unwrap_or(b.first_inst_index),
            workgroup: self.workgroup_id(),
            subgroup,
            lanes: lanes_list(lanes),
            step: self.stats.steps,
        });
    }

    /// The tangles of every subgroup of the current workgroup.
    pub fn tangles(&self) -> Vec<TangleView> {
        let mut out = Vec::new();
        for sg in &self.sgs {
            for t in &sg.tangles {
                out.push(TangleView {
                    subgroup: sg.index,
                    id: t.id,
                    lanes: lanes_list(t.mask),
                    function: self.prog.func_name(self.prog.blocks[t.block as usize].func),
                    block: self.prog.block_name(t.block),
                    block_index: t.block,
                    inst: t.inst,
                    at_barrier: t.at_barrier,
                });
            }
        }
        out
    }

    /// What every lane of subgroup `g` is doing.
    pub fn lane_states(&self, g: usize) -> Vec<LaneState> {
        let Some(sg) = self.sgs.get(g) else {
            return Vec::new();
        };
        let s = self.cfg.subgroup_size as usize;
        (0..s)
            .map(|l| {
                let bit = 1u128 << l;
                if sg.live & bit == 0 {
                    return LaneState::Absent;
                }
                if sg.finished & bit != 0 {
                    return LaneState::Finished;
                }
                if let Some(t) = sg.tangles.iter().find(|t| t.mask & bit != 0) {
                    return if t.at_barrier {
                        LaneState::AtBarrier { tangle: t.id }
                    } else {
                        LaneState::Executing { tangle: t.id }
                    };
                }
                for (id, r) in sg.records.iter().enumerate() {
                    let Some(r) = r else { continue };
                    if r.arrived & bit != 0 {
                        let kind = match r.kind {
                            RecordKind::Selection => "selection merge",
                            RecordKind::Switch { .. } => "switch merge",
                            RecordKind::Case => "switch target",
                            RecordKind::Loop { .. } => "loop merge",
                            RecordKind::Continue => "continue target",
                            RecordKind::Call { .. } => "function return",
                        };
                        return LaneState::Waiting {
                            record: id as u32,
                            kind: kind.into(),
                            block: self.prog.block_name(r.target),
                            for_lanes: lanes_list(r.members & !r.arrived),
                            escaped: r.escaped_in & bit != 0,
                        };
                    }
                }
                LaneState::Finished
            })
            .collect()
    }

    /// The value of SPIR-V id `id` in every lane of subgroup `g` (raw component bits).
    pub fn value_of(&self, g: usize, id: u32) -> Option<Vec<Vec<u64>>> {
        let (slot, width, _) = *self.prog.id_slots.get(&id)?;
        let sg = self.sgs.get(g)?;
        let s = self.cfg.subgroup_size as usize;
        Some(
            (0..s)
                .map(|l| {
                    (0..width)
                        .map(|k| sg.regs[(slot + k) as usize * s + l])
                        .collect()
                })
                .collect(),
        )
    }

    pub fn subgroup_count(&self) -> usize {
        self.sgs.len()
    }
}

#[expect(clippy::too_many_arguments, reason = "every builtin input")]
fn builtin_value(
    b: u32,
    local: [u32; 3],
    wg: [u32; 3],
    nwg: [u32; 3],
    size: [u32; 3],
    index: u32,
    lane: u32,
    sg: u32,
    nsg: u32,
    s: u32,
    lanes: impl Fn(u32) -> u128,
) -> Vec<u64> {
    use rspirv::spirv::BuiltIn as B;
    let v3 = |a: [u32; 3]| a.iter().map(|x| u64::from(*x)).collect::<Vec<_>>();
    let m4 = |m: u128| {
        (0..4)
            .map(|k| ((m >> (32 * k)) as u32).into())
            .collect::<Vec<u64>>()
    };
    let all = lanes(s);
    match B::from_u32(b) {
        Some(B::LocalInvocationId) => v3(local),
        Some(B::GlobalInvocationId) => v3([
            wg[0] * size[0] + local[0],
            wg[1] * size[1] + local[1],
            wg[2] * size[2] + local[2],
        ]),
        Some(B::LocalInvocationIndex) => vec![u64::from(index)],
        Some(B::WorkgroupId) => v3(wg),
        Some(B::NumWorkgroups) => v3(nwg),
        Some(B::WorkgroupSize) => v3(size),
        Some(B::SubgroupSize) => vec![u64::from(s)],
        Some(B::SubgroupLocalInvocationId) => vec![u64::from(lane)],
        Some(B::SubgroupId) => vec![u64::from(sg)],
        Some(B::NumSubgroups) => vec![u64::from(nsg)],
        Some(B::SubgroupEqMask) => m4(1u128 << lane),
        Some(B::SubgroupGeMask) => m4(all & !lanes(lane)),
        Some(B::SubgroupGtMask) => m4(all & !lanes(lane + 1)),
        Some(B::SubgroupLeMask) => m4(lanes(lane + 1)),
        Some(B::SubgroupLtMask) => m4(lanes(lane)),
        _ => vec![0; 4],
    }
}

pub fn lanes_list(m: Mask) -> Vec<u32> {
    let mut v = Vec::new();
    let mut m = m;
    while m != 0 {
        v.push(m.trailing_zeros());
        m &= m - 1;
    }
    v
}

fn mask_list(m: Mask) -> String {
    let v: Vec<String> = lanes_list(m).iter().map(u32::to_string).collect();
    v.join(",")
}
