//! The machine's GPU beside the specification: the same dispatch run on a Vulkan device
//! ([`vulkan`]) and every output word that differs from the simulation classified
//! ([`compare`]).
//!
//! This is the one crate that calls into a driver, so the one that may use `unsafe`: every
//! Vulkan call goes through ash's raw bindings (chosen over wgpu's SPIR-V passthrough because a
//! comparison needs control wgpu does not give: the required subgroup size, full subgroups,
//! and enabling `VK_KHR_shader_maximal_reconvergence`, subgroup rotate, cooperative matrices
//! and 8/16-bit storage as the module asks).
#![allow(unsafe_code)]

pub mod compare;
pub mod vulkan;

pub use compare::{compare, Class, Comparison, Difference};
pub use vulkan::{devices, run, DeviceInfo, Dispatch, GpuBuffer, GpuError, GpuRun};
