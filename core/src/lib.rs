//! Lanescope core: loads a SPIR-V compute shader and simulates it invocation by invocation,
//! with tangles scheduled exactly as SPV_KHR_maximal_reconvergence says.
//!
//! Pipeline: bytes -> [`load::load`] -> [`program::Program`] -> [`sim::Simulator`] (executes,
//! schedules tangles, records a [`trace::Trace`]) -> views read by the app and the CLI.
//!
//! Glossary: an *invocation* is one execution of the shader; a *subgroup* is a set of invocations
//! (its *lanes*) that run in lockstep; a *tangle* is the set of invocations executing the same
//! dynamic instance of an instruction; a *record* is a pending reconvergence point (a merge
//! block, continue target, switch target or call return) that lanes wait at.

pub mod alu;
pub mod coopmat;
pub mod dot;
pub(crate) mod exec;
pub mod explore;
pub mod float;
pub mod glsl450;
pub mod history;
pub mod load;
pub mod program;
pub mod value;
pub mod view;

pub use load::{load, LoadError, LoadOptions, SpecValue, Warning, WarningCode};
pub(crate) mod sched;
mod sim;
pub mod spvtext;
pub mod trace;

pub use sched::{NamedSetting, Schedule, SiblingOrder, SwitchTangles};
pub use sim::{
    valid_subgroup_size, Bindings, BufferAlias, Config, Limit, Outcome, RunError, Simulator,
    SourceValue, Stats, DEFAULT_MAX_STEPS, HARD_MAX_INVOCATIONS,
};
