//! A run's settings, its limits and errors, and what it reports when it stops.

use crate::program::image::SubTexel;
use crate::sched::{Schedule, SiblingOrder, SwitchTangles};

/// Settings of a run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Config {
    /// Invocations per subgroup (a power of two, 4 to 128).
    pub subgroup_size: u32,
    /// The dispatch: how many workgroups along x, y and z.
    pub workgroups: [u32; 3],
    /// How a switch's tangles are formed (the spec allows either).
    pub switch_tangles: SwitchTangles,
    /// Which of several runnable sibling tangles runs first.
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
    /// Linear filtering with its weights quantized as a device's sampler may quantize them
    /// (`None`: exact weights, what the specification describes).
    pub sub_texel: Option<SubTexel>,
}

/// Steps a headless run takes before it stops as endless (the CLI's `--max-steps` default).
pub const DEFAULT_MAX_STEPS: u64 = 20_000_000;

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
            sub_texel: None,
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
    Setting {
        /// Which setting, and what it takes.
        what: String,
    },
    /// The host's bindings do not fit the shader: a missing or short buffer, a binding bound
    /// twice, an alias of nothing.
    #[error("{what}")]
    Binding {
        /// Which binding, and what is wrong with it.
        what: String,
    },
    /// A limit of `Config` is lower than what the run needs.
    #[error("{needs}; the limit is {allowed_text}")]
    Limit {
        /// Which limit.
        limit: Limit,
        /// What the run needs, in words.
        needs: String,
        /// The limit's value in the limit's unit (invocations or bytes).
        allowed: u64,
        /// The limit's value as messages write it (`4096`, `1048576 KiB`).
        allowed_text: String,
    },
    /// Lanes wait at reconvergence points that can never complete.
    #[error("deadlock in workgroup {workgroup:?}, subgroup {subgroup}: lanes {lanes:?} wait at reconvergence points that can never complete (is the control flow structured?)")]
    Deadlock {
        /// The workgroup's id.
        workgroup: [u32; 3],
        /// The subgroup's index in the workgroup.
        subgroup: u32,
        /// The waiting lanes.
        lanes: Vec<u32>,
    },
    /// The program reached a state its loader should have refused (a bug in Lanescope).
    #[error("internal error at {block} in function {function}: {what}")]
    Internal {
        /// What was found.
        what: String,
        /// The function's name.
        function: String,
        /// The block's name.
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

pub(super) fn setting(what: impl Into<String>) -> RunError {
    RunError::Setting { what: what.into() }
}

pub(super) fn bind_err(what: impl Into<String>) -> RunError {
    RunError::Binding { what: what.into() }
}

/// How a call to `Simulator::run` ended.
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
    /// Steps taken: one instruction for one tangle each.
    pub steps: u64,
    /// Instructions executed by single invocations (each step counts its tangle's lanes).
    pub lane_instructions: u64,
    /// Branches whose lanes went to more than one target.
    pub divergences: u64,
    /// Reconvergence points reached by lanes arriving in more than one tangle.
    pub reconvergences: u64,
    /// Workgroups that have finished.
    pub workgroups_done: u32,
}
