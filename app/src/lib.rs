//! The Lanescope app: the egui GUI (native and in the browser), the headless commands, and the
//! browser entry point. `main.rs` picks one; a library so benches and tests can drive the GUI.

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod examples;
pub mod gui;
pub mod report;
#[cfg(target_arch = "wasm32")]
pub mod web;

use lanescope_front::WorkerCommand;
use std::sync::OnceLock;

static COMPILE_WORKER: OnceLock<WorkerCommand> = OnceLock::new();

/// Names the process bounded compiles run in (`main.rs`: this executable as `lanescope
/// compile-worker`). Set once; later calls are ignored.
pub fn set_compile_worker(worker: WorkerCommand) {
    let _ = COMPILE_WORKER.set(worker);
}

/// The compile worker, when the running program is `lanescope`; `None` (tests, the browser)
/// compiles in-process, without the compile limits.
pub fn compile_worker() -> Option<&'static WorkerCommand> {
    COMPILE_WORKER.get()
}
