//! The `Simulator` facade: configuration, workgroups, the run loop, stepping, history. Here the
//! facade, its state and the run loop; `config.rs` the settings, limits and errors;
//! `workgroup.rs` starting a workgroup, picking the next tangle and barriers; `execute.rs` one
//! step; `control.rs` terminators; `views.rs` what the views read.
//!
//! How a run executes (`sim/`, `exec/`, `sched.rs`). `Simulator` is the one facade; `sim/bind.rs`
//! turns the host's `Bindings` (buffers, descriptor array elements, aliases, images, samplers,
//! device addresses) into the run's memory, one storage per bound buffer. Per subgroup it keeps a
//! register file laid out slot-major (`regs[slot * size + lane]`, raw `u64` bits per component),
//! its tangles and its reconvergence records. A step executes one instruction for one tangle:
//! `exec/step.rs` (arithmetic in `numerics/src/alu.rs`, GLSL.std.450 in `numerics/src/glsl450/`,
//! subgroup operations over exactly the tangle's lanes in `exec/subgroup.rs`, memories in
//! `exec/memory.rs`). Terminators go to the scheduler:
//! - a merge instruction creates a *record* (selection merge, switch, loop merge, continue target
//!   per iteration, per-case switch targets) holding the tangle's lanes; a call creates a call
//!   record;
//! - a branch is matched against the enclosing records, innermost first: the first whose target it
//!   is receives the lanes (they wait there), and every record passed on the way is escaped (break,
//!   continue, leaving a switch); a return escapes up to the call record;
//! - a record whose members have all arrived becomes one tangle at its target.
//!
//! The current tangle runs until it blocks; then `SiblingOrder` picks the next. A workgroup barrier
//! releases when nothing else can run. Everything is deterministic: no hashing reaches the order,
//! no clocks, threads or files (the core builds for wasm).
//!
//! Floats (`numerics/src/float/`): every conversion (between f16, bf16, f32, f64 and from integers,
//! in instructions, spec-constant folding, GLSL.std.450, cooperative matrices and parsing) rounds
//! once, by integer arithmetic (`round_pack`), to nearest even or toward zero. Arithmetic is done
//! in each format's own precision, every operation rounded to its type (f16 and bf16 too,
//! `float/arith.rs`); NaN results are one canonical quiet NaN; transcendentals come from the `libm`
//! crate. So the native and the wasm builds give the same bits, which `scripts/wasm-float-test.sh`
//! checks (`tests/wasm-float/`). SPV_KHR_float_controls: the loader records per width (16/32/64)
//! the rounding and denormal modes (`Program::float_controls`, `load/float_controls.rs`);
//! RoundingModeRTZ and DenormFlushToZero switch that width's arithmetic, conversions and folding to
//! an exact software path (the default path stays the host's IEEE operations); FPRoundingMode
//! decorations round their conversion. What GLSL.std.450 honours of them is documented on
//! `glsl450::eval_in`.
//!
//! `history.rs` adds step back: checkpoints plus deterministic replay; the checkpoints share a
//! memory budget (a big state keeps fewer and replays further). `numerics/src/dot.rs` holds the
//! integer dot product arithmetic as pure functions that keep every intermediate (for the app's
//! view).
//!
//! `sim/parallel.rs` (`Simulator::run_threads`, the CLI's `--threads`) runs contiguous runs of
//! workgroups on threads, each a clone of the fresh simulator recording the buffer words it reads
//! and writes from the same access log; disjoint footprints and no diagnostics mean the serial
//! result, assembled from the runs (writes in order, counts summed, the last run's final state);
//! anything else reruns serially.
//!
//! Bug detectors (`Config::detectors`, on by default): `exec/memory.rs` logs each access
//! (invocation, instruction, step, kind) for `sim/detect.rs`, which keeps per byte a few records
//! (read, write, atomic read, atomic write, with the barrier epochs they ran in; the retention rule
//! keeps, provably, one that races with any later access whenever a dropped one would) and reports
//! `data-race` when two invocations' accesses are not ordered by a barrier of the right scope that
//! carries the memory's semantics bit and Acquire/Release (its own or an OpMemoryBarrier's just
//! before it; lockstep alone is marked); barrier divergence counts exited invocations;
//! `sim/uninit/` is a second poison layer (per byte) for memory nobody wrote and OpUndef, reported
//! (`uninitialized-read`) only where the value is used observably, naming the variable and the load
//! it came from; it also follows a racing read's value to mark races whose value reaches nothing
//! `observed: false` (a read that came first is judged by one deterministic replay at the end of
//! the run from a kept starting state; a branch on such a value is not a use where its selection
//! construct is pure, writing only registers and its function's variables: the merge's phis and
//! those variables carry the value on, `sim/uninit/steer.rs`).
//!
//! `exec/printf.rs` records NonSemantic.DebugPrintf calls (formats checked at load by
//! `load/decode_printf.rs`, formatted by `printf.rs`) as lines per invocation in execution order,
//! inside the step of the instruction after the call, so printing changes no step.
//!
//! `sched.rs`'s `Schedule` (default, reverse, random:SEED) and `explore.rs` find results that
//! depend on the order subgroups run in.
//!
//! Poison (`exec/poison.rs`, `sim/poison.rs`): one lane mask per register slot and one bit per
//! memory byte mark values the spec leaves undefined; after each instruction it flows from the
//! operands to the result (component-precise for copies and constructions, by source lane for
//! shuffles and rotates), through phis, calls and memory. Nothing is tracked (no cost) until the
//! first undefined value appears.

use crate::exec::memory::Memory;
use crate::exec::Mask;
use crate::program::Program;
use crate::sched::{Rng, Schedule, Subgroup};
use crate::trace::DiagCode;
mod bind;
mod config;
mod control;
mod coop;
mod detect;
mod execute;
mod parallel;
mod poison;
mod race_report;
mod source;
mod uninit;
mod views;
mod workgroup;

pub use crate::program::image::SubTexel;
use bind::bind_buffers;
pub use bind::{
    default_address, slot_name, Bindings, BufferAddress, BufferAlias, ImageBinding, ADDRESS_ALIGN,
};
use config::{bind_err, setting};
pub use config::{Config, Limit, Outcome, RunError, Stats, DEFAULT_MAX_STEPS};
pub use source::SourceValue;

use crate::load::{Warning, WarningCode};
use crate::trace::{Diagnostic, PoisonStore, StepEvent};
use std::collections::BTreeSet;
use std::sync::Arc;

pub use crate::lanes::{valid_subgroup_size, HARD_MAX_INVOCATIONS};

/// One dispatch of a program, simulated invocation by invocation: the facade over the engine.
/// Cloning it copies the whole state (the history's checkpoints are clones).
#[derive(Clone)]
pub struct Simulator {
    prog: Arc<Program>,
    cfg: Config,
    mem: Memory,
    pub(crate) sgs: Vec<Subgroup>,
    wg_linear: u32,
    /// The linear indices of the workgroups to run, in the order they run (every one, in
    /// order, when empty).
    wg_order: Vec<u32>,
    /// Position of the current workgroup in `wg_order`.
    wg_pos: usize,
    wg_total: u32,
    /// The random schedule's generator (part of the state: a replay makes the same choices).
    rng: Rng,
    next_tangle: u64,
    stats: Stats,
    diags: Vec<Diagnostic>,
    diag_seen: BTreeSet<(DiagCode, u32, u32)>,
    trace: Vec<StepEvent>,
    /// The tangle being run: (subgroup, tangle id). Runs until it blocks, then another is picked.
    current: Option<(usize, u64)>,
    finished: bool,
    poison_stores: Vec<PoisonStore>,
    /// The program's warnings and those about the bindings, in that order.
    warnings: Vec<Warning>,
    /// Every bound (set, binding, element), direct or shared, with its index in `mem.buffers`.
    bound: Vec<(bind::Slot, u32)>,
    /// The race detector, when `Config::detectors` is on.
    detect: Option<Box<detect::Detect>>,
    /// The uninitialized-read detector, when `Config::detectors` is on.
    uninit: Option<Box<uninit::Uninit>>,
    /// The buffer words read and written, while a parallel run needs them.
    footprint: Option<Box<parallel::Footprint>>,
    /// How many threads ran the dispatch (1 unless `run_threads` ran it in parallel).
    threads_used: usize,
    /// The debugPrintf lines so far.
    printf: crate::printf::PrintfLog,
    /// The state before the first workgroup started, for the replay that judges races whose
    /// read came first (kept with the detectors on and when small: see
    /// `uninit::MAX_REPLAY_BYTES`).
    initial: Option<Arc<Simulator>>,
    /// A tangle was run by hand (`step_tangle`): a replay under the schedule is another run.
    steered: bool,
}

impl Simulator {
    /// A fresh run of `prog` under `cfg` with the host's `bindings`, at the start of the first
    /// workgroup; fails when a setting or a binding does not fit or a limit is too low.
    pub fn new(prog: Arc<Program>, cfg: Config, bindings: &Bindings) -> Result<Self, RunError> {
        let s = cfg.subgroup_size;
        if !valid_subgroup_size(s) {
            return Err(setting(format!(
                "subgroup size {s} must be a power of two from 4 to 128"
            )));
        }
        let subgroup_coop = prog
            .types
            .types
            .iter()
            .any(|t| matches!(t, crate::program::Type::CoopMat(c) if !c.workgroup));
        if subgroup_coop && prog.coop_subgroup_size != s {
            return Err(setting(format!(
                "the program's Subgroup-scope cooperative matrices were laid out for subgroup size {} (LoadOptions::subgroup_size), not {s}",
                prog.coop_subgroup_size
            )));
        }
        let [x, y, z] = prog.local_size;
        let invocations = u64::from(x) * u64::from(y) * u64::from(z);
        let max_inv = cfg.max_invocations.min(HARD_MAX_INVOCATIONS);
        if invocations == 0 {
            return Err(setting(format!(
                "workgroup size {x}x{y}x{z} has no invocations"
            )));
        }
        if invocations > u64::from(HARD_MAX_INVOCATIONS) {
            return Err(setting(format!(
                "workgroup size {x}x{y}x{z} = {invocations} invocations; the simulator takes at most {HARD_MAX_INVOCATIONS}"
            )));
        }
        if invocations > u64::from(max_inv) {
            return Err(RunError::Limit {
                limit: Limit::Invocations,
                needs: format!("workgroup size {x}x{y}x{z} = {invocations} invocations"),
                allowed: u64::from(max_inv),
                allowed_text: max_inv.to_string(),
            });
        }
        let subgroups = invocations.div_ceil(u64::from(s));
        let need = u64::from(prog.num_slots) * u64::from(s) * 8 * subgroups
            + invocations * u64::from(prog.invocation_bytes)
            + u64::from(prog.workgroup_bytes);
        if need > cfg.max_memory {
            return Err(RunError::Limit {
                limit: Limit::Memory,
                needs: format!(
                    "simulating a workgroup of this shader needs {} KiB (registers and private memory)",
                    need.div_ceil(1024)
                ),
                allowed: cfg.max_memory,
                allowed_text: format!("{} KiB", cfg.max_memory >> 10),
            });
        }
        // Three 32-bit counts: their product can pass 64 bits.
        let wg_total = cfg
            .workgroups
            .iter()
            .try_fold(1u64, |p, w| p.checked_mul(u64::from(*w)))
            .unwrap_or(u64::MAX);
        if wg_total == 0 || wg_total > 1 << 20 {
            return Err(setting(format!(
                "{wg_total} workgroups requested; supported: 1 to 1048576"
            )));
        }
        let bound: u64 = bindings
            .buffers
            .iter()
            .map(|(_, _, d)| d.len() as u64)
            .chain(bindings.elements.iter().map(|e| e.3.len() as u64))
            .chain(bindings.images.iter().map(|i| i.data.len() as u64))
            .sum::<u64>()
            + bindings.push_constants.len() as u64;
        if bound > cfg.max_buffer_memory {
            return Err(RunError::Limit {
                limit: Limit::BufferMemory,
                needs: format!("the bound buffers hold {} KiB", bound.div_ceil(1024)),
                allowed: cfg.max_buffer_memory,
                allowed_text: format!("{} KiB", cfg.max_buffer_memory >> 10),
            });
        }
        let mut wg_order = Vec::new();
        for w in &cfg.only_workgroups {
            let [nx, ny, nz] = cfg.workgroups;
            if w[0] >= nx || w[1] >= ny || w[2] >= nz {
                return Err(setting(format!(
                    "workgroup ({}, {}, {}) is outside the dispatch of {nx}x{ny}x{nz} workgroups",
                    w[0], w[1], w[2]
                )));
            }
            wg_order.push(w[0] + nx * (w[1] + ny * w[2]));
        }
        wg_order.sort_unstable();
        wg_order.dedup();
        let mut rng = Rng(match cfg.schedule {
            Schedule::Random(seed) => seed,
            _ => 0,
        });
        if cfg.schedule != Schedule::Default {
            if wg_order.is_empty() {
                wg_order = (0..wg_total as u32).collect();
            }
            match cfg.schedule {
                Schedule::Reverse => wg_order.reverse(),
                Schedule::Random(_) => {
                    for i in (1..wg_order.len()).rev() {
                        wg_order.swap(i, rng.below(i + 1));
                    }
                }
                Schedule::Default => {}
            }
        }
        let (mem, mut warnings, bound) = bind_buffers(&prog, bindings)?;
        if !wg_order.is_empty() && prog.buffer_atomics {
            warnings.push(Warning {
                code: WarningCode::PartialDispatchAtomics,
                message: format!(
                    "only {} of the dispatch's {wg_total} workgroups run, and the shader has atomics on buffer memory: what they read can depend on the workgroups left out",
                    wg_order.len()
                ),
            });
        }
        let mut sim = Self {
            prog,
            cfg,
            mem,
            warnings,
            bound,
            sgs: Vec::new(),
            wg_linear: wg_order.first().copied().unwrap_or(0),
            wg_order,
            wg_pos: 0,
            wg_total: wg_total as u32,
            rng,
            detect: None,
            uninit: None,
            footprint: None,
            threads_used: 1,
            next_tangle: 0,
            stats: Stats::default(),
            diags: Vec::new(),
            diag_seen: BTreeSet::new(),
            trace: Vec::new(),
            current: None,
            finished: false,
            poison_stores: Vec::new(),
            printf: crate::printf::PrintfLog::default(),
            initial: None,
            steered: false,
        };
        sim.mem.sub_texel = sim.cfg.sub_texel;
        if sim.cfg.detectors {
            sim.detect = Some(Box::default());
            sim.uninit = Some(Box::default());
            // Reads of memory nothing writes cannot race: not logged.
            sim.mem.log = Some(crate::exec::memory::AccessLog {
                unlogged_reads: sim.read_only_storages(),
                ..Default::default()
            });
        }
        // The starting state a replay runs from, taken before the first workgroup starts (a
        // replay starts it again): its registers need no copy.
        let fresh = (sim.cfg.detectors && sim.footprint_bytes() <= uninit::MAX_REPLAY_BYTES)
            .then(|| sim.clone());
        sim.start_workgroup();
        if sim.footprint_bytes() <= uninit::MAX_REPLAY_BYTES {
            sim.initial = fresh.map(Arc::new);
        }
        Ok(sim)
    }

    /// Per buffer storage, whether the shader can write none of its bindings: declared
    /// read-only, or never written by any instruction (none are, when device addresses can
    /// reach every buffer).
    fn read_only_storages(&self) -> Vec<bool> {
        let mut read_only = vec![!self.prog.physical_addresses; self.mem.buffers.len()];
        for (r, s) in self.mem.storage_of.iter().enumerate() {
            if !self
                .prog
                .resources
                .get(r)
                .is_some_and(|r| r.read_only || r.never_written)
            {
                if let Some(x) = read_only.get_mut(*s as usize) {
                    *x = false;
                }
            }
        }
        read_only
    }

    /// The program being run.
    pub fn program(&self) -> &Arc<Program> {
        &self.prog
    }

    /// The run's settings.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Totals over the run so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// What the run found so far (undefined behaviour, races, limits hit), in the order found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diags
    }

    /// Every step so far, when `Config::record_trace` is on.
    pub fn trace(&self) -> &[StepEvent] {
        &self.trace
    }

    /// The debugPrintf lines printed so far, in execution order (and how many were dropped).
    pub fn printf_lines(&self) -> &crate::printf::PrintfLog {
        &self.printf
    }

    /// Bytes this state holds (registers, memories, poison maps), not counting the trace: what
    /// a checkpoint of it costs.
    pub fn footprint_bytes(&self) -> u64 {
        let m = &self.mem;
        let mem =
            m.buffers.iter().map(Vec::len).sum::<usize>() + m.workgroup.len() + m.invocation.len();
        let regs: usize = self
            .sgs
            .iter()
            .map(|g| g.regs.len() * 8 + g.poison.len() * std::mem::size_of::<Mask>())
            .sum();
        // Poison maps (poison and uninitialized data) are at most one bit per byte of memory.
        (mem + mem / 4 + regs) as u64
    }

    /// A copy of the state without the trace, for checkpoints: the trace only grows, so a
    /// restored checkpoint gets the current trace back, cut to its step ([`Self::restore_trace`]).
    pub fn clone_without_trace(&mut self) -> Self {
        let trace = std::mem::take(&mut self.trace);
        let copy = self.clone();
        self.trace = trace;
        copy
    }

    /// Gives back a trace taken from a later state of the same run, keeping the steps up to
    /// this state's.
    pub fn restore_trace(&mut self, mut trace: Vec<StepEvent>) {
        let keep = trace.partition_point(|e| e.step <= self.stats.steps);
        trace.truncate(keep);
        self.trace = trace;
    }

    /// Takes the trace out (leaving it empty).
    pub fn take_trace(&mut self) -> Vec<StepEvent> {
        std::mem::take(&mut self.trace)
    }

    /// Whether every invocation of every workgroup has finished.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The id of the workgroup running now.
    pub fn workgroup_id(&self) -> [u32; 3] {
        let [x, y, _] = self.cfg.workgroups;
        let l = self.wg_linear;
        [l % x, (l / x) % y, l / (x * y)]
    }

    /// Final (or current) contents of the buffer bound at (set, binding), whether the shader
    /// declares that binding or not; bindings that share a buffer give the same bytes.
    /// At a descriptor array's binding, its element 0.
    pub fn buffer(&self, set: u32, binding: u32) -> Option<&[u8]> {
        self.buffer_element(set, binding, 0)
    }

    /// Final (or current) contents of element `element` of the descriptor array bound at
    /// (set, binding) (element 0: the buffer bound there).
    pub fn buffer_element(&self, set: u32, binding: u32, element: u32) -> Option<&[u8]> {
        let (_, i) = self
            .bound
            .iter()
            .find(|(k, _)| *k == (set, binding, element))?;
        self.mem.buffers.get(*i as usize).map(Vec::as_slice)
    }

    /// The contents of the buffer resource `r` of the program reads and writes.
    pub fn resource_buffer(&self, r: &crate::program::Resource) -> Option<&[u8]> {
        self.buffer_element(r.set, r.binding, r.element())
    }

    /// The image bound for resource `resource` (an image resource of the program).
    pub fn image_of(&self, resource: usize) -> Option<crate::program::image::ImageDesc> {
        self.mem.images.get(resource).copied().flatten()
    }

    /// Every bound buffer's device address and size, by (set, binding); bindings that share a
    /// buffer share its address.
    pub fn buffer_addresses(&self) -> Vec<BufferAddress> {
        let mut out: Vec<BufferAddress> = self
            .bound
            .iter()
            .filter_map(|((set, binding, element), storage)| {
                let r = self
                    .mem
                    .addresses
                    .iter()
                    .find(|r| self.mem.storage(r.region) == Some(*storage as usize))?;
                Some(BufferAddress {
                    set: *set,
                    binding: *binding,
                    element: *element,
                    address: r.start,
                    size: r.len,
                })
            })
            .collect();
        out.sort_by_key(|a| (a.set, a.binding, a.element));
        out
    }

    /// The step and module instruction of the last write so far to the word holding byte
    /// `offset` of the buffer bound at (set, binding) and descriptor array element `element`
    /// (0 for a single buffer). Known only with the bug detectors on (they keep the last write
    /// of every word); `None` when nothing wrote it.
    pub fn last_write(
        &self,
        set: u32,
        binding: u32,
        element: u32,
        offset: u64,
    ) -> Option<(u64, u32)> {
        let (_, i) = self
            .bound
            .iter()
            .find(|(k, _)| *k == (set, binding, element))?;
        let w = u32::try_from(offset / 4).ok()?;
        self.detect.as_ref()?.last_write(*i, w)
    }

    /// Warnings about the program and its bindings: things that are accepted but probably not
    /// what was meant.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Run up to `budget` steps.
    pub fn run(&mut self, budget: u64) -> Result<Outcome, RunError> {
        let mut left = budget;
        // Under a fixed schedule the running tangle keeps running until it blocks, so the steps
        // of one block run back to back without asking the scheduler again: the same steps as
        // `step` one at a time.
        let batch = !matches!(self.cfg.schedule, Schedule::Random(_));
        let prog = Arc::clone(&self.prog);
        while left > 0 {
            if self.finished {
                return Ok(Outcome::Finished);
            }
            let Some((g, ti)) = self.select()? else {
                return Ok(Outcome::Finished);
            };
            loop {
                left -= 1;
                let plain = self.exec_step(g, ti, &prog)?;
                if left == 0 || !plain || !batch {
                    break;
                }
                let t = &self.sgs[g].tangles[ti];
                if t.pos as usize >= prog.blocks[t.block as usize].insts.len() {
                    break;
                }
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
        let prog = Arc::clone(&self.prog);
        self.exec_step(g, ti, &prog)?;
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
        self.steered = true;
        let prog = Arc::clone(&self.prog);
        self.exec_step(subgroup, i, &prog)?;
        Ok(true)
    }
}

/// The lanes of `m`, in increasing order.
pub fn lanes_list(m: Mask) -> Vec<u32> {
    let mut v = Vec::new();
    let mut m = m;
    while m != 0 {
        v.push(m.trailing_zeros());
        m &= m - 1;
    }
    v
}
