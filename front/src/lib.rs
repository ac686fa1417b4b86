//! Lanescope's front ends: what turns what a person writes into what the simulator runs.
//!
//! - [`Language`]: which language a source is in (from its file name or its first bytes).
//! - [`amber`]: AmberScript tests (compute subset): parse, run on the simulator, check the
//!   expectations, save a session as a script.
//!
//! Nothing here draws or touches a window; the app and the CLI call these. Like the core, the
//! crate builds for wasm (compilers that cannot, such as glslang's C++, are native-only and say
//! so in their errors).

pub mod amber;
mod language;

pub use language::Language;
