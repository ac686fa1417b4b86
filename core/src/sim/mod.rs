//! The `Simulator` facade: configuration, workgroups, the run loop, stepping, history.
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
use crate::exec::step::{self, Findings, Flow};
use crate::exec::Mask;
use crate::program::{Program, Space};
use crate::sched::{Events, Rng, Schedule, SiblingOrder, Subgroup, SwitchTangles, Tangle};
use crate::trace::DiagCode;
mod bind;
mod control;
mod coop;
mod detect;
mod parallel;
mod poison;
mod source;
mod uninit;
mod views;

use bind::bind_buffers;
pub use bind::{
    default_address, slot_name, Bindings, BufferAddress, BufferAlias, ImageBinding, ADDRESS_ALIGN,
};
pub use source::SourceValue;

use crate::load::{Warning, WarningCode};
use crate::trace::{Diagnostic, PoisonStore, StepEvent};
use std::collections::BTreeSet;
use std::sync::Arc;
use views::builtin_value;

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
    /// Limit on the simulator's memory for one workgroup (registers, workgroup and private
    /// memory), in bytes.
    pub max_memory: u64,
    /// Most steps recorded in the trace; recording stops (with a diagnostic) past it.
    pub max_trace_steps: usize,
    /// Most invocations in one workgroup (the shader's local size).
    pub max_invocations: u32,
    /// Limit on the bytes of all bound buffers and push constants together.
    pub max_buffer_memory: u64,
    /// The workgroups to simulate, by id (empty: every workgroup of the dispatch). The others
    /// are not run: Vulkan gives no order between workgroups, so a workgroup can be looked at
    /// alone unless workgroups communicate (through atomics).
    pub only_workgroups: Vec<[u32; 3]>,
    /// Which tangle, subgroup and workgroup runs when several can.
    pub schedule: Schedule,
    /// Run the bug detectors (data races; barrier divergence counts invocations that have
    /// exited). Off, a run costs less and reports only what the spec's rules say directly.
    pub detectors: bool,
    /// Most debugPrintf lines kept; later ones are counted as dropped.
    pub max_printf_lines: usize,
}

/// Steps a headless run takes before it stops as endless (the CLI's `--max-steps` default).
pub const DEFAULT_MAX_STEPS: u64 = 20_000_000;

pub use crate::lanes::{valid_subgroup_size, HARD_MAX_INVOCATIONS};

impl Default for Config {
    fn default() -> Self {
        Self {
            subgroup_size: 32,
            workgroups: [1, 1, 1],
            switch_tangles: SwitchTangles::PerValue,
            sibling_order: SiblingOrder::LowestLane,
            record_trace: false,
            max_diagnostics: 1000,
            max_memory: 1 << 30,
            max_trace_steps: 5_000_000,
            max_invocations: 4096,
            max_buffer_memory: 1 << 30,
            only_workgroups: Vec::new(),
            schedule: Schedule::Default,
            detectors: true,
            max_printf_lines: 1_000_000,
        }
    }
}

/// A limit a run can hit; the CLI and the app say how to raise each one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    /// `Config::max_invocations`: invocations in one workgroup.
    Invocations,
    /// `Config::max_memory`: the simulator's memory for one workgroup, in bytes.
    Memory,
    /// `Config::max_buffer_memory`: the bound buffers and push constants, in bytes.
    BufferMemory,
}

impl Limit {
    /// What is limited, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Self::Invocations => "invocations per workgroup",
            Self::Memory => "simulator memory per workgroup",
            Self::BufferMemory => "buffer memory",
        }
    }
}

/// Why a run could not start or go on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RunError {
    /// A setting outside what the simulator takes (a subgroup size, a workgroup count).
    #[error("{what}")]
    Setting { what: String },
    /// The host's bindings do not fit the shader: a missing or short buffer, a binding bound
    /// twice, an alias of nothing.
    #[error("{what}")]
    Binding { what: String },
    /// A limit of `Config` is lower than what the run needs.
    #[error("{needs}; the limit is {allowed_text}")]
    Limit {
        limit: Limit,
        /// What the run needs, in words.
        needs: String,
        /// The limit's value in the limit's unit (invocations or bytes).
        allowed: u64,
        allowed_text: String,
    },
    /// Lanes wait at reconvergence points that can never complete.
    #[error("deadlock in workgroup {workgroup:?}, subgroup {subgroup}: lanes {lanes:?} wait at reconvergence points that can never complete (is the control flow structured?)")]
    Deadlock {
        workgroup: [u32; 3],
        subgroup: u32,
        lanes: Vec<u32>,
    },
    /// The program reached a state its loader should have refused (a bug in Lanescope).
    #[error("internal error at {block} in function {function}: {what}")]
    Internal {
        what: String,
        function: String,
        block: String,
    },
}

impl RunError {
    /// The limit this error is about, if it is one (so a front end can say how to raise it).
    pub fn limit(&self) -> Option<Limit> {
        match self {
            Self::Limit { limit, .. } => Some(*limit),
            _ => None,
        }
    }
}

fn setting(what: impl Into<String>) -> RunError {
    RunError::Setting { what: what.into() }
}

fn bind_err(what: impl Into<String>) -> RunError {
    RunError::Binding { what: what.into() }
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
    /// The starting state, for the replay that judges races whose read came first (kept with
    /// the detectors on and when small: see `uninit::MAX_REPLAY_BYTES`).
    initial: Option<Arc<Simulator>>,
    /// A tangle was run by hand (`step_tangle`): a replay under the schedule is another run.
    steered: bool,
}

impl Simulator {
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
        if sim.cfg.detectors {
            sim.detect = Some(Box::default());
            sim.uninit = Some(Box::default());
            sim.mem.log = Some(crate::exec::memory::AccessLog::default());
        }
        sim.start_workgroup();
        if sim.cfg.detectors && sim.footprint_bytes() <= uninit::MAX_REPLAY_BYTES {
            sim.initial = Some(Arc::new(sim.clone()));
        }
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

    pub fn is_finished(&self) -> bool {
        self.finished
    }

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
        if let Some(d) = &mut self.detect {
            d.start_workgroup(nsg, self.mem.workgroup.len());
        }
        self.uninit_start_workgroup();
    }

    /// Choose the tangle to run next: keep running the current one while it can.
    fn select(&mut self) -> Result<Option<(usize, usize)>, RunError> {
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
    fn pick_next(&mut self) -> Option<(usize, usize)> {
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

    fn release_barrier(&mut self) {
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
                sites.entry((t.block, t.inst)).or_default().extend(
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
                    t.inst += 1;
                }
            }
        }
    }

    /// Run up to `budget` steps.
    pub fn run(&mut self, budget: u64) -> Result<Outcome, RunError> {
        let mut left = budget;
        // Under a fixed schedule the running tangle keeps running until it blocks, so the steps
        // of one block run back to back without asking the scheduler again: the same steps as
        // `step` one at a time.
        let batch = !matches!(self.cfg.schedule, Schedule::Random(_));
        while left > 0 {
            if self.finished {
                return Ok(Outcome::Finished);
            }
            let Some((g, ti)) = self.select()? else {
                return Ok(Outcome::Finished);
            };
            loop {
                left -= 1;
                let plain = self.exec_step(g, ti)?;
                if left == 0 || !plain || !batch {
                    break;
                }
                let t = &self.sgs[g].tangles[ti];
                if t.inst as usize >= self.prog.blocks[t.block as usize].insts.len() {
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
        self.steered = true;
        self.exec_step(subgroup, i)?;
        Ok(true)
    }

    /// Runs one step of tangle `ti` of subgroup `g`. True when it was a plain one: an
    /// instruction that only moved the tangle on, with nothing for the scheduler.
    fn exec_step(&mut self, g: usize, ti: usize) -> Result<bool, RunError> {
        let s = self.cfg.subgroup_size as usize;
        let t = self.sgs[g].tangles[ti].clone();
        let block_len = self.prog.blocks[t.block as usize].insts.len();
        self.stats.steps += 1;
        self.stats.lane_instructions += u64::from(t.mask.count_ones());
        if self.cfg.record_trace && self.trace.len() >= self.cfg.max_trace_steps {
            self.cfg.record_trace = false;
            self.diagnose(DiagCode::TraceLimit, format!("the trace holds {} steps, its limit (Config::max_trace_steps); later steps are not recorded", self.cfg.max_trace_steps), g as u32, t.block, t.inst, t.mask);
        }
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
        if !self.prog.blocks[t.block as usize].printfs.is_empty() {
            let at = crate::exec::printf::At {
                workgroup: self.workgroup_id(),
                subgroup: g as u32,
                subgroup_size: s,
                step: self.stats.steps,
                max_lines: self.cfg.max_printf_lines,
            };
            let block = &self.prog.blocks[t.block as usize];
            let regs = &self.sgs[g].regs;
            crate::exec::printf::emit(&mut self.printf, block, t.inst, regs, t.mask, &at);
        }
        if (t.inst as usize) < block_len {
            let mut found = Findings::default();
            // Every lane of a whole subgroup (compared with the all-lanes mask: no popcount).
            let all = if s >= 128 { Mask::MAX } else { (1 << s) - 1 };
            let full = t.mask == self.sgs[g].live && self.sgs[g].live == all;
            if self.uninit.is_some() {
                let prog = Arc::clone(&self.prog);
                self.uninit_check_uses(
                    g,
                    &t,
                    &prog.blocks[t.block as usize].insts[t.inst as usize],
                );
            }
            let flow = {
                // Field borrows only: the program is not cloned on the common path.
                let prog: &Program = &self.prog;
                let inst = &prog.blocks[t.block as usize].insts[t.inst as usize];
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
                step::exec(&mut cx, inst)
            };
            // Nothing to follow up: no poison, no detector, no finding, straight on.
            if found.items.is_empty()
                && matches!(flow, Flow::Next)
                && self.sgs[g].poison.is_empty()
                && !self.mem.poison.any
                && self.uninit.is_none()
                && self.mem.log.is_none()
            {
                self.sgs[g].tangles[ti].inst += 1;
                return Ok(true);
            }
            let prog = Arc::clone(&self.prog);
            let inst = &prog.blocks[t.block as usize].insts[t.inst as usize];
            let new_poison = found
                .items
                .iter()
                .filter(|it| it.0.makes_poison())
                .fold(0, |m, it| m | it.2);
            if new_poison != 0 || !self.sgs[g].poison.is_empty() || self.mem.poison.any {
                self.propagate_poison(g, &t, inst, new_poison, &found.permutation);
            }
            if self.uninit.is_some() {
                self.uninit_propagate(g, &t, inst, &found.permutation);
            }
            for (code, msg, lanes) in found.items {
                self.diagnose(code, msg, g as u32, t.block, t.inst, lanes);
            }
            self.check_accesses(t.block, t.inst);
            self.uninit_replay_step(g, &t);
            let sg = &mut self.sgs[g];
            match flow {
                Flow::Next => sg.tangles[ti].inst += 1,
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
                        d.subgroup_barrier(g, memory, prog.step_index(t.block, t.inst));
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
                            t.inst,
                            t.mask,
                        );
                    }
                    self.sgs[g].tangles[ti].inst += 1;
                }
                Flow::Call => self.call(g, ti, inst),
                Flow::CoopWorkgroup => sg.tangles[ti].at_barrier = true,
            }
            return Ok(false);
        }
        let prog = Arc::clone(&self.prog);
        if self.uninit.is_some() {
            self.uninit_check_branch(g, &t, &prog.blocks[t.block as usize].term);
        }
        self.terminator(g, ti, &prog).map(|()| false)
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
        inst: u32,
        lanes: Mask,
    ) {
        if !self.diag_seen.insert((code, block, inst))
            || self.diags.len() >= self.cfg.max_diagnostics
        {
            return;
        }
        let b = &self.prog.blocks[block as usize];
        let instruction = self.prog.step_index(block, inst);
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

pub fn lanes_list(m: Mask) -> Vec<u32> {
    let mut v = Vec::new();
    let mut m = m;
    while m != 0 {
        v.push(m.trailing_zeros());
        m &= m - 1;
    }
    v
}
