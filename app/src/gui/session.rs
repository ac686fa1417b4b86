//! What the GUI is looking at: one loaded module, the settings it runs under, and the stepping
//! history. No drawing here, so tests can drive it directly.

use super::disasm::Disassembly;
use crate::examples::example_bindings;
use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::history::History;
use lanescope_core::program::Program;
use lanescope_core::trace::StepEvent;
use lanescope_core::{
    load, Config, LoadOptions, SiblingOrder, Simulator, SpecValue, SwitchTangles,
};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Settings a person picks in the toolbar; persisted between runs.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    pub subgroup_size: u32,
    pub workgroups: [u32; 3],
    pub switch_tangles: SwitchTangles,
    pub sibling_order: SiblingOrder,
    /// Steps a "run" may take before it stops with a message.
    pub max_steps: u64,
    /// Memory a workgroup's simulation may use, MiB.
    pub max_memory_mib: u64,
    /// Steps the trace keeps (for step back and the views); later steps are not recorded.
    pub max_trace_steps: usize,
    /// Most invocations in one workgroup.
    pub max_invocations: u32,
    /// Most debugPrintf lines kept (the Printf panel says how many were dropped past it).
    pub max_printf_lines: usize,
    /// Memory all buffers together may take, MiB.
    pub max_buffer_mib: u64,
    /// Seconds a GLSL compile may take before it is stopped.
    pub compile_seconds: f64,
    /// Memory a GLSL compile's process may map, MiB.
    pub compile_memory_mib: u64,
    /// Instructions per second of the animated run.
    pub speed: f32,
    /// Cooperative-matrix fragment layout (kept by its name; a built-in one).
    #[serde(
        serialize_with = "layout_by_name",
        deserialize_with = "layout_or_default"
    )]
    pub coop_layout: LayoutChoice,
    /// Run the bug detectors (data races, barriers skipped by exiting, uninitialized reads).
    pub detectors: bool,
    /// Which tangle, subgroup and workgroup runs first (kept as `default`, `reverse`,
    /// `random:SEED`).
    #[serde(deserialize_with = "schedule_or_default")]
    pub schedule: lanescope_core::Schedule,
    /// Simulate only this workgroup of the dispatch (`None`: all of them, one after another).
    pub only_workgroup: Option<[u32; 3]>,
}

/// A layout is kept by its name (a user's table is not kept: it comes back as the default).
fn layout_by_name<S: serde::Serializer>(l: &LayoutChoice, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&l.name())
}

/// A kept layout name this build does not have is the default layout.
fn layout_or_default<'de, D: serde::Deserializer<'de>>(d: D) -> Result<LayoutChoice, D::Error> {
    let v = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
    Ok(v.as_str()
        .and_then(LayoutChoice::by_name)
        .unwrap_or_default())
}

/// A kept schedule this build cannot read is the default one: the rest of the settings stay.
fn schedule_or_default<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<lanescope_core::Schedule, D::Error> {
    let v = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
    Ok(v.as_str()
        .and_then(lanescope_core::Schedule::parse)
        .unwrap_or(lanescope_core::Schedule::Default))
}

impl Default for Settings {
    fn default() -> Self {
        // The core's defaults, except where the app keeps less: the trace it records for
        // every step (the views and step back read it) and the buffers it fills itself.
        let core = Config::default();
        Self {
            subgroup_size: core.subgroup_size,
            workgroups: core.workgroups,
            switch_tangles: core.switch_tangles,
            sibling_order: core.sibling_order,
            max_steps: lanescope_core::DEFAULT_MAX_STEPS,
            max_memory_mib: core.max_memory >> 20,
            max_trace_steps: 1_000_000,
            max_invocations: core.max_invocations,
            max_printf_lines: core.max_printf_lines,
            max_buffer_mib: 256,
            compile_seconds: lanescope_front::DEFAULT_COMPILE_SECONDS,
            compile_memory_mib: lanescope_front::DEFAULT_COMPILE_MEMORY_MIB,
            speed: 8.0,
            coop_layout: LayoutChoice::default(),
            detectors: core.detectors,
            schedule: lanescope_core::Schedule::Default,
            only_workgroup: None,
        }
    }
}

pub const SIBLING_ORDERS: [(&str, SiblingOrder); 4] = [
    ("lowest lane first", SiblingOrder::LowestLane),
    ("highest lane first", SiblingOrder::HighestLane),
    ("oldest first", SiblingOrder::Oldest),
    ("newest first", SiblingOrder::Newest),
];

impl Settings {
    /// These settings with the limits and speed of `other`: links and lessons fix how a module
    /// runs, never how far the person lets it run.
    pub fn with_limits_of(self, other: &Settings) -> Settings {
        Settings {
            max_steps: other.max_steps,
            max_memory_mib: other.max_memory_mib,
            max_trace_steps: other.max_trace_steps,
            max_invocations: other.max_invocations,
            max_printf_lines: other.max_printf_lines,
            max_buffer_mib: other.max_buffer_mib,
            compile_seconds: other.compile_seconds,
            compile_memory_mib: other.compile_memory_mib,
            speed: other.speed,
            ..self
        }
    }

    /// How long and how big a GLSL compile may get (a nonsense persisted value: the default).
    pub fn compile_limits(&self) -> lanescope_front::CompileLimits {
        let seconds = self.compile_seconds;
        lanescope_front::CompileLimits {
            time: std::time::Duration::try_from_secs_f64(seconds)
                .ok()
                .filter(|d| !d.is_zero())
                .unwrap_or_else(|| lanescope_front::CompileLimits::default().time),
            memory: self.compile_memory_mib.max(16).saturating_mul(1 << 20),
        }
    }

    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            subgroup_size: Some(self.subgroup_size),
            coopmat_layout: self.coop_layout.clone(),
            ..LoadOptions::default()
        }
    }

    pub fn config(&self) -> Config {
        Config {
            subgroup_size: self.subgroup_size,
            workgroups: self.workgroups.map(|w| w.max(1)),
            switch_tangles: self.switch_tangles,
            sibling_order: self.sibling_order,
            max_memory: self.max_memory_mib.saturating_mul(1 << 20),
            max_trace_steps: self.max_trace_steps,
            max_invocations: self.max_invocations,
            max_printf_lines: self.max_printf_lines,
            max_buffer_memory: self.max_buffer_mib.saturating_mul(1 << 20),
            // The timeline, the views and step back read it.
            record_trace: true,
            detectors: self.detectors,
            schedule: self.schedule,
            // A chosen workgroup left outside a smaller dispatch means all of them again.
            only_workgroups: self
                .only_workgroup
                .filter(|w| (0..3).all(|i| w[i] < self.workgroups[i].max(1)))
                .into_iter()
                .collect(),
            ..Config::default()
        }
    }
}

/// How far a source-level step goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineStep {
    /// To the next source line, calls stepped over.
    Over,
    /// To the next source line, into calls.
    Into,
    /// Out of the current function.
    Out,
}

/// Most instructions one source-level step takes before it gives up (an endless loop on one
/// line must not freeze the app).
const LINE_STEP_LIMIT: u32 = 100_000;

/// Why a run stopped before the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    Breakpoint(u32),
    Diagnostic(lanescope_core::trace::DiagCode),
    Finished,
}

pub struct Session {
    pub name: String,
    pub bytes: Vec<u8>,
    pub program: Arc<Program>,
    pub history: History,
    pub disasm: Disassembly,
    /// Module instruction indices with a breakpoint.
    pub breakpoints: BTreeSet<u32>,
    /// Buffer contents before the last step, to highlight what it changed.
    pub previous_buffers: Vec<Vec<u8>>,
    /// Initial buffer contents (editable in the Buffers panel).
    pub initial: lanescope_core::Bindings,
    /// Steps undone by going back, so the timeline still shows them and a click can go
    /// forward again; dropped when a new step is taken.
    pub future: Vec<StepEvent>,
    /// The module's GLCompute entry points, in module order (the Inputs panel offers them).
    pub entries: Vec<String>,
    /// The entry point and specialization to load with (the Inputs panel edits them; a reset
    /// loads again when they differ from `loaded`).
    pub entry: Option<String>,
    pub spec: BTreeMap<u32, SpecValue>,
    loaded: (Option<String>, BTreeMap<u32, SpecValue>),
}

/// The GLCompute entry points of a module (none when it does not parse: the load says why).
fn compute_entries(bytes: &[u8]) -> Vec<String> {
    lanescope_core::load::entry_points(bytes)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(n, compute)| compute.then_some(n))
        .collect()
}

/// Buffers for another entry point of the same module: each binding both declare keeps its
/// contents (grown to the new declaration's fixed part), the rest start as for an example.
fn carry_buffers(
    p: &Program,
    old: &lanescope_core::Bindings,
    settings: &Settings,
) -> Result<lanescope_core::Bindings, String> {
    let mut fresh = example_bindings(p, settings.max_buffer_mib.saturating_mul(1 << 20))?;
    // A buffer keeps its old contents, grown to the new declaration's fixed part.
    let keep = |slot: (u32, u32, u32), bytes: &mut Vec<u8>| {
        if let Some(kept) = old.bytes(slot.0, slot.1, slot.2) {
            let min = bytes.len().min(
                p.resources()
                    .iter()
                    .find(|r| (r.set, r.binding, r.element()) == slot)
                    .map_or(0, |r| r.min_size as usize),
            );
            bytes.clone_from(kept);
            if bytes.len() < min {
                bytes.resize(min, 0);
            }
        }
    };
    for (set, binding, bytes) in &mut fresh.buffers {
        keep((*set, *binding, 0), bytes);
    }
    for (set, binding, element, bytes) in &mut fresh.elements {
        keep((*set, *binding, *element), bytes);
    }
    let pc = p
        .resources()
        .iter()
        .find(|r| r.push_constant)
        .map_or(0, |r| r.min_size as usize);
    fresh.push_constants = old.push_constants.clone();
    if fresh.push_constants.len() < pc {
        fresh.push_constants.resize(pc, 0);
    }
    Ok(fresh)
}

/// A run error for the error bar: a limit says where to raise it.
fn run_error(name: &str, e: &lanescope_core::RunError) -> String {
    match e.limit() {
        Some(_) => format!("{name}: {e} (raise it in the Limits menu)"),
        None => format!("{name}: {e}"),
    }
}

impl Session {
    /// What the module loads with under `settings`: the session's entry point and
    /// specialization with the settings' subgroup size and layout (every run of this module,
    /// Compare's and the GPU's included, loads so).
    pub fn load_options(&self, settings: &Settings) -> LoadOptions {
        LoadOptions {
            entry: self.entry.clone(),
            spec: self.spec.clone(),
            ..settings.load_options()
        }
    }

    /// Loads `bytes` and starts a simulator. Errors are ready for the error bar.
    pub fn open(name: &str, bytes: Vec<u8>, settings: &Settings) -> Result<Self, String> {
        // A module with several compute entry points opens on the first; Inputs offers the rest.
        let all = compute_entries(&bytes);
        let entry = all.first().filter(|_| all.len() > 1).cloned();
        let opts = LoadOptions {
            entry: entry.clone(),
            ..settings.load_options()
        };
        let program = Arc::new(load(&bytes, &opts).map_err(|e| format!("{name}: {e}"))?);
        let initial = example_bindings(&program, settings.max_buffer_mib.saturating_mul(1 << 20))
            .map_err(|e| format!("{name}: {e} (raise it in the Limits menu)"))?;
        Ok(
            Self::with_entries(name, bytes, program, initial, settings.config(), all)?
                .with_load(entry, BTreeMap::new()),
        )
    }

    /// Records the entry point and specialization `program` was loaded with (an AmberScript's
    /// pipeline), so a reset loads the same way.
    pub fn with_load(mut self, entry: Option<String>, spec: BTreeMap<u32, SpecValue>) -> Self {
        self.entry = entry.clone();
        self.spec = spec.clone();
        self.loaded = (entry, spec);
        self
    }

    /// A session on a loaded module with its buffers and configuration (the trace is always
    /// recorded: the views and step back read it); an AmberScript's `RUN` opens this way.
    pub fn from_parts(
        name: &str,
        bytes: Vec<u8>,
        program: Arc<Program>,
        initial: lanescope_core::Bindings,
        cfg: Config,
    ) -> Result<Self, String> {
        let entries = compute_entries(&bytes);
        Self::with_entries(name, bytes, program, initial, cfg, entries)
    }

    /// [`Self::from_parts`] with the module's compute entry points already read.
    fn with_entries(
        name: &str,
        bytes: Vec<u8>,
        program: Arc<Program>,
        initial: lanescope_core::Bindings,
        cfg: Config,
        entries: Vec<String>,
    ) -> Result<Self, String> {
        let disasm = Disassembly::new(&program);
        let cfg = Config {
            record_trace: true,
            ..cfg
        };
        let sim =
            Simulator::new(Arc::clone(&program), cfg, &initial).map_err(|e| run_error(name, &e))?;
        Ok(Self {
            name: name.to_owned(),
            bytes,
            program,
            history: History::new(sim, 256),
            disasm,
            breakpoints: BTreeSet::new(),
            previous_buffers: Vec::new(),
            initial,
            future: Vec::new(),
            entries,
            entry: None,
            spec: BTreeMap::new(),
            loaded: (None, BTreeMap::new()),
        })
    }

    /// Starts again from step 0 under `settings`, keeping breakpoints and initial buffers.
    pub fn reset(&mut self, settings: &Settings) -> Result<(), String> {
        let wanted = (self.entry.clone(), self.spec.clone());
        let program = if settings.subgroup_size == self.program.coop_subgroup_size()
            && settings.coop_layout == *self.program.coop_layout()
            && wanted == self.loaded
        {
            Arc::clone(&self.program)
        } else {
            // Cooperative-matrix fragments depend on the subgroup size and the layout, constants
            // on the specialization, everything on the entry point: load again.
            let opts = self.load_options(settings);
            let p = Arc::new(load(&self.bytes, &opts).map_err(|e| format!("{}: {e}", self.name))?);
            if p.resources() != self.program.resources() {
                self.initial = carry_buffers(&p, &self.initial, settings)?;
            }
            p
        };
        let sim = Simulator::new(Arc::clone(&program), settings.config(), &self.initial)
            .map_err(|e| run_error(&self.name, &e))?;
        self.program = program;
        self.loaded = wanted;
        self.history = History::new(sim, 256);
        self.previous_buffers.clear();
        self.future.clear();
        Ok(())
    }

    pub fn sim(&self) -> &Simulator {
        self.history.sim()
    }

    pub fn step_count(&self) -> u64 {
        self.sim().stats().steps
    }

    fn snapshot_buffers(&mut self) {
        let resources = &self.program.resources();
        let sim = self.history.sim();
        self.previous_buffers = resources
            .iter()
            .map(|r| sim.resource_buffer(r).unwrap_or_default().to_vec())
            .collect();
    }

    /// One instruction of the tangle the scheduler picks. False when finished.
    pub fn step(&mut self) -> Result<bool, String> {
        self.snapshot_buffers();
        self.future.clear();
        self.history.step().map_err(|e| e.to_string())
    }

    /// One instruction of a chosen tangle.
    pub fn step_tangle(&mut self, subgroup: usize, tangle: u64) -> Result<bool, String> {
        self.snapshot_buffers();
        self.future.clear();
        self.history
            .step_tangle(subgroup, tangle)
            .map_err(|e| e.to_string())
    }

    /// Steps tangle `id` of subgroup `g` by source line (see [`LineStep`]): instructions of that
    /// tangle until it stands on another line (at the same call depth or shallower for `Over`,
    /// out of its function for `Out`), it splits, merges or finishes, or a limit. One
    /// instruction when the module has no line information. False when the run finished.
    pub fn step_line(&mut self, g: usize, id: u64, kind: LineStep) -> Result<bool, String> {
        let sim = self.sim();
        let has_lines = self.program.debug().is_some_and(|d| d.has_lines());
        let (true, Some(depth)) = (has_lines, sim.tangle_call_depth(g, id)) else {
            return self.step_tangle(g, id);
        };
        // Code with no line (a prologue the compiler wrote) steps to the first line.
        let start = sim.tangle_source_pos(g, id);
        let lanes_of = |sim: &Simulator, id: u64| {
            sim.tangles()
                .iter()
                .find(|t| t.subgroup as usize == g && t.id == id)
                .map(|t| t.lanes)
        };
        let mut id = id;
        let Some(lanes) = lanes_of(sim, id) else {
            return self.step_tangle(g, id);
        };
        for _ in 0..LINE_STEP_LIMIT {
            let before = self.step_count();
            // False also when the tangle cannot run now (below); the run's end ends the step.
            if !self.step_tangle(g, id)? && self.sim().is_finished() {
                return Ok(false);
            }
            if self.step_count() == before {
                // It waits (at a barrier, for the other subgroups): the scheduler runs them
                // until it can go on, as a debugger's step over lets the other threads run.
                if !self.step()? {
                    return Ok(false);
                }
                if self.step_count() == before {
                    return Ok(true); // nothing can run
                }
            }
            let sim = self.sim();
            if lanes_of(sim, id).is_none() {
                // A return from a call continues as a new tangle: follow it when it holds the
                // same lanes; a split, a merge or the end stops here.
                let next = lanes
                    .lowest()
                    .and_then(|l| sim.tangle_of_lane(g, l))
                    .filter(|n| lanes_of(sim, *n) == Some(lanes));
                match next {
                    Some(n) => id = n,
                    None => return Ok(true),
                }
            }
            let Some(d) = sim.tangle_call_depth(g, id) else {
                return Ok(true);
            };
            let Some(p) = sim.tangle_source_pos(g, id) else {
                continue;
            };
            let moved = start.is_none_or(|st| (p.file, p.line) != (st.file, st.line));
            let done = match kind {
                LineStep::Over => d <= depth && moved,
                LineStep::Into => moved || d > depth,
                LineStep::Out => d < depth || (start.is_none() && d <= depth),
            };
            if done {
                return Ok(true);
            }
        }
        Ok(true)
    }

    pub fn step_back(&mut self) -> Result<(), String> {
        let n = self.step_count();
        self.goto(n.saturating_sub(1))
    }

    /// Goes to the state right after step `target`, back (replaying from a checkpoint) or
    /// forward (replaying the same choices), keeping the undone steps for the timeline.
    pub fn goto(&mut self, target: u64) -> Result<(), String> {
        self.goto_within(target, u64::MAX).map(|_| ())
    }

    /// Like [`Session::goto`], replaying at most `budget` steps; true when there (see
    /// `History::goto_within`). The app calls it a slice per frame.
    pub fn goto_within(&mut self, target: u64, budget: u64) -> Result<bool, String> {
        let now = self.step_count();
        if target < now {
            let trace = self.sim().trace();
            let from = trace.partition_point(|e| e.step <= target);
            let mut undone: Vec<StepEvent> = trace[from..].to_vec();
            undone.append(&mut self.future);
            self.future = undone;
        }
        let there = self
            .history
            .goto_within(target, budget)
            .map_err(|e| e.to_string())?;
        let reached = self.step_count();
        self.future.retain(|e| e.step > reached);
        self.previous_buffers.clear();
        Ok(there)
    }

    /// Every recorded step, including the undone ones still ahead.
    pub fn events(&self) -> impl Iterator<Item = &StepEvent> {
        self.sim().trace().iter().chain(&self.future)
    }

    /// The recorded steps numbered `first..=last` (both lists are in step order).
    pub fn events_in(&self, first: u64, last: u64) -> impl Iterator<Item = &StepEvent> {
        fn part(v: &[StepEvent], first: u64, last: u64) -> &[StepEvent] {
            let lo = v.partition_point(|e| e.step < first);
            let hi = v.partition_point(|e| e.step <= last).max(lo);
            &v[lo..hi]
        }
        let trace = part(self.sim().trace(), first, last);
        let future = part(&self.future, first, last);
        trace.iter().chain(future)
    }

    /// The number of the last step recorded (undone ones included).
    pub fn last_event_step(&self) -> u64 {
        self.future
            .last()
            .or_else(|| self.sim().trace().last())
            .map_or(0, |e| e.step)
    }

    /// Module instruction index each tangle is about to execute.
    pub fn tangle_instructions(&self) -> Vec<(u64, u32)> {
        self.sim()
            .tangles()
            .iter()
            .map(|t| (t.id, self.program.step_index(t.block, t.pos)))
            .collect()
    }

    /// The instruction to show after a step: where the tangle that just ran now stands (or the
    /// first live tangle when it split, finished or the trace is capped).
    pub fn focus_instruction(&self) -> Option<u32> {
        let at = self.tangle_instructions();
        let tangles = self.sim().tangles();
        let last = self.sim().trace().last();
        let by_last = last.and_then(|e| {
            tangles
                .iter()
                .position(|t| t.subgroup == e.subgroup && t.id == e.tangle)
                .or_else(|| tangles.iter().position(|t| t.subgroup == e.subgroup))
        });
        let t = tangles.get(by_last.unwrap_or(0))?;
        at.iter().find(|(id, _)| *id == t.id).map(|&(_, i)| i)
    }

    /// Runs at most `max_steps` steps, stopping before an instruction with a breakpoint (after at
    /// least one step), at a new diagnostic, at the end, or at the step limit.
    pub fn run_slice(&mut self, max_steps: u64, limit: u64) -> Result<Option<Stop>, String> {
        let diagnostics_before = self.sim().diagnostics().len();
        for _ in 0..max_steps {
            if self.step_count() >= limit {
                return Err(format!(
                    "stopped at the step limit ({limit} steps); raise it in the Limits menu"
                ));
            }
            self.future.clear();
            if !self.history.step().map_err(|e| e.to_string())? {
                return Ok(Some(Stop::Finished));
            }
            if let Some(d) = self.sim().diagnostics().get(diagnostics_before) {
                return Ok(Some(Stop::Diagnostic(d.code)));
            }
            if let Some(&(_, k)) = self
                .tangle_instructions()
                .iter()
                .find(|(_, i)| self.breakpoints.contains(i))
            {
                return Ok(Some(Stop::Breakpoint(k)));
            }
        }
        Ok(None)
    }
}

/// A sibling order as the menus name it.
pub fn sibling_order_name(o: lanescope_core::SiblingOrder) -> &'static str {
    SIBLING_ORDERS
        .iter()
        .find(|(_, x)| *x == o)
        .map_or("", |(n, _)| n)
}
