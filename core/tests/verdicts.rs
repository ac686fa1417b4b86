//! Verdicts the simulator once got wrong, each with the smallest shader that shows it.

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::sync::Arc;

fn assemble(text: &str) -> Vec<u8> {
    let words = lanescope_core::spvtext::assemble(text, &Default::default()).unwrap();
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs an assembled module with one storage buffer (set 0, binding 0) of `words` words;
/// returns the simulator after it finished.
fn run_asm(text: &str, words: usize) -> Simulator {
    let prog = Arc::new(load(&assemble(text), &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; words * 4])],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    sim.run(1_000_000).unwrap();
    assert!(sim.is_finished());
    sim
}

fn buffer_words(sim: &Simulator) -> Vec<u32> {
    words_of(sim.buffer(0, 0).unwrap())
}

/// The declarations the ballot shaders share: 32 invocations, a buffer of u32 `%buf`, the
/// local index `%lid`, `%odd` computed in `%entry`.
const BALLOT_HEAD: &str = "; Version: 1.5
OpCapability Shader
OpCapability GroupNonUniform
OpCapability GroupNonUniformBallot
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %lid %buf
OpExecutionMode %main LocalSize 32 1 1
OpDecorate %lid BuiltIn LocalInvocationIndex
OpDecorate %arr ArrayStride 4
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %Buf Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%u32 = OpTypeInt 32 0
%v4u = OpTypeVector %u32 4
%arr = OpTypeRuntimeArray %u32
%Buf = OpTypeStruct %arr
%pBuf = OpTypePointer StorageBuffer %Buf
%buf = OpVariable %pBuf StorageBuffer
%pin = OpTypePointer Input %u32
%lid = OpVariable %pin Input
%psu = OpTypePointer StorageBuffer %u32
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%c32 = OpConstant %u32 32
%true = OpConstantTrue %bool
%main = OpFunction %void None %fn
%entry = OpLabel
%l = OpLoad %u32 %lid
%bit = OpBitwiseAnd %u32 %l %c1
%odd = OpIEqual %bool %bit %c1
";

/// Stores this tangle's ballot (low word) at `buf[base + l]`.
fn ballot_store(name: &str, base: &str) -> String {
    format!(
        "%b_{name} = OpGroupNonUniformBallot %v4u %c3 %true
%x_{name} = OpCompositeExtract %u32 %b_{name} 0
%i_{name} = OpIAdd %u32 {base} %l
%p_{name} = OpAccessChain %psu %buf %c0 %i_{name}
OpStore %p_{name} %x_{name}
"
    )
}

/// `OpBranchConditional %c %L %L` (valid before SPIR-V 1.6): every lane takes the one edge
/// into one dynamic instance of `%L`, so a ballot there holds all lanes, whether `%L` is the
/// selection's merge block or a block inside the construct.
#[test]
fn conditional_branch_with_equal_targets_keeps_one_tangle() {
    // %L inside the selection, the merge block elsewhere.
    let inside = format!(
        "{BALLOT_HEAD}OpSelectionMerge %M None
OpBranchConditional %odd %L %L
%L = OpLabel
{}OpBranch %M
%M = OpLabel
{}OpReturn
OpFunctionEnd
",
        ballot_store("l", "%c0"),
        ballot_store("m", "%c32"),
    );
    let sim = run_asm(&inside, 64);
    assert_eq!(buffer_words(&sim), vec![0xffff_ffff; 64]);
    assert_eq!(sim.stats().divergences, 0);

    // %L is the merge block itself.
    let merge = format!(
        "{BALLOT_HEAD}OpSelectionMerge %L None
OpBranchConditional %odd %L %L
%L = OpLabel
{}OpReturn
OpFunctionEnd
",
        ballot_store("l", "%c0"),
    );
    let sim = run_asm(&merge, 32);
    assert_eq!(buffer_words(&sim), vec![0xffff_ffff; 32]);
    assert_eq!(sim.stats().divergences, 0);

    // In a loop of two iterations: the body's selection sends every lane to %L by either edge,
    // and the selection's merge block continues by both edges.
    let looped = format!(
        "{BALLOT_HEAD}OpBranch %head
%head = OpLabel
%it = OpPhi %u32 %c0 %entry %next %cont
OpLoopMerge %exit %cont None
OpBranch %body
%body = OpLabel
%c = OpIEqual %bool %bit %it
OpSelectionMerge %M None
OpBranchConditional %c %L %L
%L = OpLabel
%base = OpIMul %u32 %it %c32
{}OpBranch %M
%M = OpLabel
OpBranchConditional %odd %cont %cont
%cont = OpLabel
%next = OpIAdd %u32 %it %c1
%again = OpULessThan %bool %next %c2
OpBranchConditional %again %head %exit
%exit = OpLabel
OpReturn
OpFunctionEnd
",
        ballot_store("l", "%base"),
    );
    let sim = run_asm(&looped, 64);
    assert_eq!(buffer_words(&sim), vec![0xffff_ffff; 64]);
    assert_eq!(sim.stats().divergences, 0);
}

fn data(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Two views of one binding with a push-constant block declared between them: the push
/// constants (which have no set or binding) are no descriptor array element, the module loads,
/// and the 16-bit view reads the halves of the 32-bit view's words.
#[test]
fn aliased_binding_with_push_constants_between() {
    let prog = Arc::new(load(&data("alias_push_between.spv"), &LoadOptions::default()).unwrap());
    let input = [0x1234_5678u32, 0x9abc_def0, 0x0001_ffff, 0x8000_0001];
    let b = Bindings {
        buffers: vec![
            (0, 0, input.iter().flat_map(|w| w.to_le_bytes()).collect()),
            (0, 1, vec![0; 12 * 4]),
        ],
        push_constants: 77u32.to_le_bytes().to_vec(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    sim.run(100_000).unwrap();
    assert!(sim.is_finished());
    let out = words_of(sim.buffer(0, 1).unwrap());
    let want: Vec<u32> = input.iter().flat_map(|&w| [w, w, 77]).collect();
    assert_eq!(out, want);
}
