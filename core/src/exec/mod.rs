//! The interpreter: pure opcode semantics, memories, subgroup operations, one-instruction steps.

mod coop;
mod ext;
pub mod image;
mod lanewise;
mod marks;
mod memops;
pub mod memory;
pub mod poison;
pub mod printf;
pub mod step;
pub mod subgroup;

pub use crate::lanes::Mask;
