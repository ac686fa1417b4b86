//! Lanescope core: loads a SPIR-V compute shader and simulates it invocation by invocation,
//! with tangles scheduled exactly as SPV_KHR_maximal_reconvergence says.
//!
//! Glossary: an *invocation* is one execution of the shader; a *subgroup* is a set of invocations
//! (its *lanes*) that run in lockstep; a *tangle* is the set of invocations executing the same
//! dynamic instance of an instruction; a *record* is a pending reconvergence point (a merge
//! block, continue target, switch target or call return) that lanes wait at.
//!
//! # The API
//!
//! - [`load`] reads a module into a [`program::Program`] (with its verbatim instructions,
//!   debug information and warnings), under [`LoadOptions`] (entry point, specialization,
//!   cooperative-matrix layout). Errors are a [`LoadError`] naming the instruction.
//! - [`Simulator`] runs it under a [`Config`] with the buffers of [`Bindings`]: [`Simulator::run`]
//!   in budgets, [`Simulator::step`] one tangle instruction at a time; [`history::History`] adds
//!   step back. Read-only views: [`Simulator::tangles`], [`Simulator::lane_states`],
//!   [`Simulator::value_of`] (by SPIR-V id; [`Simulator::undefined_of`] its undefined lanes),
//!   [`Simulator::source_value`] (by source variable, its undefined components marked),
//!   [`Simulator::diagnostics`], [`Simulator::trace`], [`Simulator::buffer`].
//! - [`view`]: what an instruction means to the views ([`view::Meaning`]: a rotate, an integer
//!   dot product, a cooperative MulAdd) with operands read by handle, and [`view::LaneMask`].
//! - [`explore`]: the same dispatch under several [`Schedule`]s, and the words that differ.
//! - [`spvtext`]: SPIR-V assembly text (spirv-dis / spirv-as compatible).
//! - Pure semantics, shared with the executor, from the `lanescope_numerics` crate: [`alu`],
//!   [`float`], [`glsl450`], [`dot`]; [`coopmat`] layouts.
//!
//! ```
//! use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
//! use std::sync::Arc;
//!
//! let bytes = include_bytes!("../../assets/if_else.spv");
//! let prog = Arc::new(load(bytes, &LoadOptions::default()).expect("loads"));
//! // Binding 0 is the input, binding 1 the output (64 invocations, 10 words each).
//! let bindings = Bindings {
//!     buffers: vec![(0, 0, vec![0; 64 * 4]), (0, 1, vec![0; 640 * 4])],
//!     ..Bindings::default()
//! };
//! let mut sim = Simulator::new(Arc::clone(&prog), Config::default(), &bindings).expect("starts");
//! // Step by step: the first step is the whole subgroup entering main.
//! sim.step().unwrap();
//! assert_eq!(sim.tangles()[0].lanes.count(), 32);
//! assert_eq!(sim.run(1_000_000).unwrap(), Outcome::Finished);
//! let out = sim.buffer(0, 1).unwrap();
//! // Slot 8 says which branch each lane took: 1 (then) for lane 0, whose v = 0.
//! assert_eq!(u32::from_le_bytes(out[8 * 64 * 4..8 * 64 * 4 + 4].try_into().unwrap()), 1);
//! assert!(sim.diagnostics().is_empty());
//! ```

#![warn(missing_docs)]

pub mod coopmat;
pub(crate) mod exec;
pub mod explore;
pub mod history;
pub(crate) mod lanes;
pub mod load;
pub mod portability;
pub mod printf;
pub mod program;
pub mod view;

// The numeric semantics live in their own crate, the layer below; re-exported under the names
// the engine and its users have always used.
pub use lanescope_numerics::{alu, dot, float, glsl450, value};
// SPIR-V as bytes and text (reading, debug information, assembly) is the crate beside it.
pub use lanescope_spirv::text as spvtext;

pub use load::{load, LoadError, LoadOptions, SpecValue, Warning, WarningCode};
pub(crate) mod sched;
mod sim;
pub mod trace;

pub use sched::{NamedSetting, Schedule, SiblingOrder, SwitchTangles};
pub use sim::{
    default_address, slot_name, valid_subgroup_size, Bindings, BufferAddress, BufferAlias, Config,
    ImageBinding, Limit, Outcome, RunError, Simulator, SourceValue, Stats, SubTexel, ADDRESS_ALIGN,
    DEFAULT_MAX_STEPS, HARD_MAX_INVOCATIONS,
};
