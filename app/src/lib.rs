//! The Lanescope app: the egui GUI (native and in the browser), the headless commands, and the
//! browser entry point. `main.rs` picks one; a library so benches and tests can drive the GUI.

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod examples;
pub mod gui;
pub mod report;
#[cfg(target_arch = "wasm32")]
pub mod web;
