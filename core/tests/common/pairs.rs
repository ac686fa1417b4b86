//! Modules written as SPIR-V text around a body, run on one workgroup: the detectors' bug/fix
//! pairs and race tests build their shaders this way.

use lanescope_core::trace::Diagnostic;
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::sync::Arc;

/// A module around `body`: `extra_caps` capabilities, `names` (OpName, OpMemberName), `globals` (types,
/// constants, variables after the common ones), a workgroup of `size` invocations, binding 0
/// an array of u32 (`%out`, elements `%pout`), `%lid` the local invocation index, constants
/// `%c0`..`%c7` (u32), `%true`/`%false`, and the function body (after the entry label).
pub fn module(size: u32, extra_caps: &str, names: &str, globals: &str, body: &str) -> String {
    format!(
        "OpCapability Shader
{extra_caps}
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %lid %out
OpExecutionMode %main LocalSize {size} 1 1
OpName %main \"main\"
{names}
OpDecorate %lid BuiltIn LocalInvocationIndex
OpDecorate %rt ArrayStride 4
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%bool = OpTypeBool
%rt = OpTypeRuntimeArray %u32
%blk = OpTypeStruct %rt
%pblk = OpTypePointer StorageBuffer %blk
%out = OpVariable %pblk StorageBuffer
%pin = OpTypePointer Input %u32
%lid = OpVariable %pin Input
%pout = OpTypePointer StorageBuffer %u32
%pfu = OpTypePointer Function %u32
%pwu = OpTypePointer Workgroup %u32
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%c4 = OpConstant %u32 4
%c5 = OpConstant %u32 5
%c6 = OpConstant %u32 6
%c7 = OpConstant %u32 7
%true = OpConstantTrue %bool
%false = OpConstantFalse %bool
%wg = OpConstant %u32 2
%sem = OpConstant %u32 264
{globals}
%main = OpFunction %void None %fn
%entry = OpLabel
{body}
OpReturn
OpFunctionEnd
"
    )
}

/// Runs a module (text) on one workgroup with 16 zeroed words at binding 0.
pub fn run_text(text: &str) -> Simulator {
    let opts = lanescope_core::spvtext::AsmOptions {
        source_file: Some("pair.spvasm".into()),
        ..Default::default()
    };
    let words =
        lanescope_core::spvtext::assemble(text, &opts).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")));
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 64])],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    let out = sim.run(100_000).unwrap();
    assert_eq!(out, lanescope_core::Outcome::Finished);
    sim
}

/// The run's data-race diagnostics.
pub fn races(sim: &Simulator) -> Vec<&Diagnostic> {
    sim.diagnostics()
        .iter()
        .filter(|d| d.code == "data-race")
        .collect()
}

pub fn uninit_reads(sim: &Simulator) -> Vec<Diagnostic> {
    sim.diagnostics()
        .iter()
        .filter(|d| d.code == "uninitialized-read")
        .cloned()
        .collect()
}

pub fn out_words(sim: &Simulator) -> Vec<u32> {
    sim.buffer(0, 0)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
