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

/// A module whose 32 invocations each store `%res` (a u32 computed by `op` from `%v`, which is
/// the lane index plus 100, in block `%entry`) at `buf[l]`. 64-bit constants `%big` =
/// 0x1_0000_0001 and `%hi` = 0x1_0000_0000 are at hand, and `%f0`, a 32-bit float +0.
fn lane_op_module(op: &str) -> String {
    format!(
        "; Version: 1.5
OpCapability Shader
OpCapability Int64
OpCapability GroupNonUniform
OpCapability GroupNonUniformBallot
OpCapability GroupNonUniformShuffle
OpCapability GroupNonUniformShuffleRelative
OpCapability GroupNonUniformQuad
OpCapability GroupNonUniformArithmetic
OpCapability GroupNonUniformClustered
OpCapability GroupNonUniformRotateKHR
OpExtension \"SPV_KHR_subgroup_rotate\"
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
%u64 = OpTypeInt 64 0
%f32 = OpTypeFloat 32
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
%c3 = OpConstant %u32 3
%c5 = OpConstant %u32 5
%c4 = OpConstant %u32 4
%c100 = OpConstant %u32 100
%f0 = OpConstant %f32 0
%big = OpConstant %u64 4294967297
%hi = OpConstant %u64 4294967296
%true = OpConstantTrue %bool
%main = OpFunction %void None %fn
%entry = OpLabel
%l = OpLoad %u32 %lid
%v = OpIAdd %u32 %l %c100
{op}
%p = OpAccessChain %psu %buf %c0 %l
OpStore %p %res
OpReturn
OpFunctionEnd
"
    )
}

/// Runs `lane_op_module(op)`: the stored words and the diagnostics' codes.
fn run_lane_op(op: &str) -> (Vec<u32>, Vec<String>) {
    let sim = run_asm(&lane_op_module(op), 32);
    let codes = sim
        .diagnostics()
        .iter()
        .map(|d| d.code.to_string())
        .collect();
    (buffer_words(&sim), codes)
}

/// Lane ids, deltas and cluster sizes are compared as 64-bit values: 0x1_0000_0001 is out of
/// range (never lane 1, as a cast to a 32-bit `usize` would make it in the browser build).
#[test]
fn sixty_four_bit_lane_operands_are_out_of_range() {
    let own: Vec<u32> = (100..132).collect();
    // Shuffle and Broadcast read no lane: undefined, reported, read as 0.
    for op in [
        "%res = OpGroupNonUniformShuffle %u32 %c3 %v %big",
        "%res = OpGroupNonUniformBroadcast %u32 %c3 %v %big",
        "%res = OpGroupNonUniformShuffleXor %u32 %c3 %v %hi",
    ] {
        let (out, codes) = run_lane_op(op);
        assert_eq!(out, vec![0; 32], "{op}");
        assert!(
            codes.iter().any(|c| c == "inactive-source"),
            "{op}: {codes:?}"
        );
    }
    // ShuffleUp/Down past the subgroup: the lane's own value (not the neighbour's), reported.
    for op in [
        "%res = OpGroupNonUniformShuffleDown %u32 %c3 %v %big",
        "%res = OpGroupNonUniformShuffleUp %u32 %c3 %v %big",
    ] {
        let (out, codes) = run_lane_op(op);
        assert_eq!(out, own, "{op}");
        assert!(
            codes.iter().any(|c| c == "inactive-source"),
            "{op}: {codes:?}"
        );
    }
    // Bit 0x1_0000_0001 of an all-ones ballot is no bit of it.
    let (out, _) = run_lane_op(
        "%bal = OpGroupNonUniformBallot %v4u %c3 %true
%bit = OpGroupNonUniformBallotBitExtract %bool %c3 %bal %big
%res = OpSelect %u32 %bit %c1 %c0",
    );
    assert_eq!(out, vec![0; 32]);
    // A cluster size of 2^32 is larger than the subgroup.
    let (_, codes) = run_lane_op("%res = OpGroupNonUniformRotateKHR %u32 %c3 %v %c1 %hi");
    assert!(
        codes.iter().any(|c| c == "invalid-cluster-size"),
        "{codes:?}"
    );
}

/// QuadBroadcast's Index of 4 or more gives an undefined value, reported like a shuffle's id
/// out of range (it was masked to the quad silently).
#[test]
fn quad_broadcast_index_out_of_range_is_reported() {
    let (out, codes) = run_lane_op("%res = OpGroupNonUniformQuadBroadcast %u32 %c3 %v %c5");
    assert!(codes.iter().any(|c| c == "inactive-source"), "{codes:?}");
    assert_eq!(out, vec![0; 32]);
    // In range: lane 1 of each quad.
    let (out, codes) = run_lane_op("%res = OpGroupNonUniformQuadBroadcast %u32 %c3 %v %c1");
    assert!(codes.is_empty(), "{codes:?}");
    assert_eq!(
        out,
        (0..32).map(|l| 100 + (l & !3) + 1).collect::<Vec<u32>>()
    );
}

/// QuadSwap's Direction is a constant 0, 1 or 2; anything else is an invalid module.
#[test]
fn quad_swap_direction_out_of_range_is_refused() {
    let bytes = assemble(&lane_op_module(
        "%res = OpGroupNonUniformQuadSwap %u32 %c3 %v %c3",
    ));
    match load(&bytes, &LoadOptions::default()) {
        Err(lanescope_core::LoadError::Invalid { what, .. }) => assert!(
            what.contains("OpGroupNonUniformQuadSwap Direction must be 0, 1 or 2"),
            "{what}"
        ),
        other => panic!("expected an invalid module, got {:?}", other.map(|_| ())),
    }
    // A Direction computed at run time is refused too.
    let bytes = assemble(&lane_op_module(
        "%d = OpBitwiseAnd %u32 %l %c1
%res = OpGroupNonUniformQuadSwap %u32 %c3 %v %d",
    ));
    assert!(matches!(
        load(&bytes, &LoadOptions::default()),
        Err(lanescope_core::LoadError::Invalid { .. })
    ));
    // Vertical: lane l reads l ^ 2.
    let (out, codes) = run_lane_op("%res = OpGroupNonUniformQuadSwap %u32 %c3 %v %c1");
    assert!(codes.is_empty(), "{codes:?}");
    assert_eq!(out, (0..32).map(|l| 100 + (l ^ 2)).collect::<Vec<u32>>());
}

/// OpDot (and each component of a matrix product, which is a dot product) sums from the first
/// product: (-0, -0)·(1, 1) is -0 + -0 = -0 in f16, f32 and f64, not the +0 a sum started from
/// +0 gives.
#[test]
fn dot_of_negative_zero_products_is_negative_zero() {
    let text = "OpCapability Shader
OpCapability Float16
OpCapability Float64
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %buf
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %arr ArrayStride 4
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %Buf Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%f16 = OpTypeFloat 16
%f32 = OpTypeFloat 32
%f64 = OpTypeFloat 64
%v2h = OpTypeVector %f16 2
%v2f = OpTypeVector %f32 2
%v2d = OpTypeVector %f64 2
%m2f = OpTypeMatrix %v2f 2
%arr = OpTypeRuntimeArray %u32
%Buf = OpTypeStruct %arr
%pBuf = OpTypePointer StorageBuffer %Buf
%buf = OpVariable %pBuf StorageBuffer
%psu = OpTypePointer StorageBuffer %u32
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%c4 = OpConstant %u32 4
%h0 = OpConstant %f16 0
%h1 = OpConstant %f16 1
%f0 = OpConstant %f32 0
%f1 = OpConstant %f32 1
%d0 = OpConstant %f64 0
%d1 = OpConstant %f64 1
%main = OpFunction %void None %fn
%entry = OpLabel
%nh = OpFNegate %f16 %h0
%nf = OpFNegate %f32 %f0
%nd = OpFNegate %f64 %d0
%zh = OpCompositeConstruct %v2h %nh %nh
%oh = OpCompositeConstruct %v2h %h1 %h1
%zf = OpCompositeConstruct %v2f %nf %nf
%of = OpCompositeConstruct %v2f %f1 %f1
%zd = OpCompositeConstruct %v2d %nd %nd
%od = OpCompositeConstruct %v2d %d1 %d1
%dh = OpDot %f16 %zh %oh
%df = OpDot %f32 %zf %of
%dd = OpDot %f64 %zd %od
%m = OpCompositeConstruct %m2f %zf %zf
%mv = OpMatrixTimesVector %v2f %m %of
%vm = OpVectorTimesMatrix %v2f %of %m
%dh32 = OpFConvert %f32 %dh
%dd32 = OpFConvert %f32 %dd
%mv0 = OpCompositeExtract %f32 %mv 0
%vm1 = OpCompositeExtract %f32 %vm 1
%w0 = OpBitcast %u32 %dh32
%w1 = OpBitcast %u32 %df
%w2 = OpBitcast %u32 %dd32
%w3 = OpBitcast %u32 %mv0
%w4 = OpBitcast %u32 %vm1
%p0 = OpAccessChain %psu %buf %c0 %c0
OpStore %p0 %w0
%p1 = OpAccessChain %psu %buf %c0 %c1
OpStore %p1 %w1
%p2 = OpAccessChain %psu %buf %c0 %c2
OpStore %p2 %w2
%p3 = OpAccessChain %psu %buf %c0 %c3
OpStore %p3 %w3
%p4 = OpAccessChain %psu %buf %c0 %c4
OpStore %p4 %w4
OpReturn
OpFunctionEnd
";
    let sim = run_asm(text, 5);
    // f16 dot, f32 dot, f64 dot, matrix x vector, vector x matrix: each -0.
    assert_eq!(buffer_words(&sim), vec![0x8000_0000; 5]);
}

/// `--explore` counts each differing word once: two subgroups both write all of 320 words
/// (more than the 256 listed), so the last writer of each word depends on the schedule, and
/// several schedules disagree with the first on the same words.
#[test]
fn explore_counts_distinct_words() {
    use lanescope_core::explore::explore;
    use lanescope_core::Schedule;
    let mut stores = String::new();
    for k in 0..10 {
        stores.push_str(&format!(
            "%i{k} = OpIAdd %u32 %base %c{k}
%p{k} = OpAccessChain %psu %buf %c0 %i{k}
OpStore %p{k} %who
"
        ));
    }
    let consts: String = (0..=10)
        .map(|k| format!("%c{k} = OpConstant %u32 {k}\n"))
        .collect();
    let text = format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %lid %buf
OpExecutionMode %main LocalSize 64 1 1
OpDecorate %lid BuiltIn LocalInvocationIndex
OpDecorate %arr ArrayStride 4
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %Buf Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%arr = OpTypeRuntimeArray %u32
%Buf = OpTypeStruct %arr
%pBuf = OpTypePointer StorageBuffer %Buf
%buf = OpVariable %pBuf StorageBuffer
%pin = OpTypePointer Input %u32
%lid = OpVariable %pin Input
%psu = OpTypePointer StorageBuffer %u32
{consts}%c32 = OpConstant %u32 32
%main = OpFunction %void None %fn
%entry = OpLabel
%l = OpLoad %u32 %lid
%sg = OpUDiv %u32 %l %c32
%who = OpIAdd %u32 %sg %c1
%lane = OpUMod %u32 %l %c32
%base = OpIMul %u32 %lane %c10
{stores}OpReturn
OpFunctionEnd
"
    );
    let prog = Arc::new(load(&assemble(&text), &LoadOptions::default()).unwrap());
    let bindings = Bindings {
        buffers: vec![(0, 0, vec![0; 320 * 4])],
        ..Bindings::default()
    };
    let n = 8;
    let cfg = Config {
        detectors: false,
        ..Config::default()
    };
    let x = explore(&prog, &cfg, &bindings, n, 1_000_000);
    assert!(x.runs.iter().all(|r| r.failed.is_none()), "{:?}", x.runs);
    // The same comparison here: each schedule's words against the first's.
    let outputs: Vec<Vec<u32>> = (0..n)
        .map(|k| {
            let c = Config {
                schedule: Schedule::nth(k),
                ..cfg.clone()
            };
            let mut sim = Simulator::new(Arc::clone(&prog), c, &bindings).unwrap();
            sim.run(1_000_000).unwrap();
            words_of(sim.buffer(0, 0).unwrap())
        })
        .collect();
    let disagreeing = |w: usize| {
        outputs[1..]
            .iter()
            .filter(|o| o[w] != outputs[0][w])
            .count()
    };
    let distinct = (0..320).filter(|&w| disagreeing(w) > 0).count();
    assert!(
        distinct > 256,
        "{distinct} words differ: too few to pass the list"
    );
    assert!(
        (0..320).any(|w| disagreeing(w) > 1),
        "no word on which several schedules disagree"
    );
    assert_eq!(x.order_dependence.len(), 256);
    assert_eq!(x.order_dependence.len() + x.more, distinct);
}

/// Specialization constants sharing one SpecId with different defaults (the workgroup size's
/// and `BLOCK_SIZE`'s): unspecialized, the workgroup is 1x1x1 while BLOCK_SIZE is 128, so the
/// loader warns, naming each with its default and how to set them all; specialized, both take
/// the value and nothing is said.
#[test]
fn shared_spec_id_with_different_defaults_warns() {
    use lanescope_core::WarningCode;
    let prog = load(&data("shared_spec_id.spv"), &LoadOptions::default()).unwrap();
    assert_eq!(prog.local_size(), [1, 1, 1]);
    let shared: Vec<_> = prog
        .warnings()
        .iter()
        .filter(|w| w.code == WarningCode::SharedSpecId)
        .collect();
    assert_eq!(shared.len(), 1, "{:?}", prog.warnings());
    let m = &shared[0].message;
    for part in [
        "SpecId 0",
        "BLOCK_SIZE (%",
        "default 128",
        "local_size_x, default 1",
        "--spec 0=VALUE sets all 3",
    ] {
        assert!(m.contains(part), "{part:?} not in: {m}");
    }
    assert_eq!(WarningCode::SharedSpecId.as_str(), "shared-spec-id");

    let mut opts = LoadOptions::default();
    opts.spec.insert(0, 64u64.into());
    let prog = Arc::new(load(&data("shared_spec_id.spv"), &opts).unwrap());
    assert!(prog.warnings().is_empty(), "{:?}", prog.warnings());
    assert_eq!(prog.local_size(), [64, 1, 1]);
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 64 * 4])],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    sim.run(100_000).unwrap();
    assert_eq!(buffer_words(&sim), vec![64; 64]);
}

/// Two constants sharing a SpecId (here with the same default, then different ones) in
/// assembly: the same default says nothing; different ones name both by OpName or id.
#[test]
fn shared_spec_id_names_both_constants() {
    use lanescope_core::WarningCode;
    let module = |b: u32| {
        format!(
            "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpName %first \"FIRST\"
OpDecorate %first SpecId 7
OpDecorate %second SpecId 7
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%first = OpSpecConstant %u32 5
%second = OpSpecConstant %u32 {b}
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"
        )
    };
    let prog = load(&assemble(&module(5)), &LoadOptions::default()).unwrap();
    assert!(prog.warnings().is_empty(), "{:?}", prog.warnings());
    let prog = load(&assemble(&module(9)), &LoadOptions::default()).unwrap();
    assert_eq!(prog.warnings().len(), 1, "{:?}", prog.warnings());
    assert_eq!(prog.warnings()[0].code, WarningCode::SharedSpecId);
    let m = &prog.warnings()[0].message;
    assert!(
        m.contains("FIRST (%") && m.contains("default 5") && m.contains("default 9"),
        "{m}"
    );
    assert!(m.contains("--spec 7=VALUE sets both"), "{m}");
}

/// From SPIR-V 1.6 on, and under MaximallyReconvergesKHR in any version, a conditional
/// branch's two targets must differ: such a module is refused, naming the rule.
#[test]
fn equal_branch_targets_are_invalid_from_spirv_1_6_and_under_maximal_reconvergence() {
    let body = format!(
        "OpSelectionMerge %M None
OpBranchConditional %odd %L %L
%L = OpLabel
{}OpBranch %M
%M = OpLabel
OpReturn
OpFunctionEnd
",
        ballot_store("l", "%c0")
    );
    let v16 = format!("{BALLOT_HEAD}{body}").replace("; Version: 1.5", "; Version: 1.6");
    let maximal = format!("{BALLOT_HEAD}{body}")
        .replace(
            "OpMemoryModel",
            "OpExtension \"SPV_KHR_maximal_reconvergence\"\nOpMemoryModel",
        )
        .replace(
            "OpExecutionMode %main LocalSize 32 1 1",
            "OpExecutionMode %main LocalSize 32 1 1\nOpExecutionMode %main MaximallyReconvergesKHR",
        );
    for (text, rule) in [
        (v16, "from SPIR-V 1.6 on"),
        (maximal, "MaximallyReconvergesKHR"),
    ] {
        match load(&assemble(&text), &LoadOptions::default()) {
            Err(lanescope_core::LoadError::Invalid { what, .. }) => {
                assert!(what.contains("must not be the same block"), "{what}");
                assert!(what.contains(rule), "{what}");
            }
            other => panic!("expected an invalid module, got {:?}", other.map(|_| ())),
        }
    }
}

/// A subgroup float sum of -0 values is -0 (it started from the identity +0, and +0 + -0 is
/// +0); an exclusive scan's first lane is still the identity, +0.
#[test]
fn subgroup_sum_of_negative_zeros_is_negative_zero() {
    let neg = 0x8000_0000u32;
    for (group, want_first) in [
        ("Reduce", neg),
        ("InclusiveScan", neg),
        ("ExclusiveScan", 0),
        ("ClusteredReduce", neg),
    ] {
        let cluster = if group == "ClusteredReduce" {
            " %c4"
        } else {
            ""
        };
        let (out, codes) = run_lane_op(&format!(
            "%nz = OpFNegate %f32 %f0
%sum = OpGroupNonUniformFAdd %f32 %c3 {group} %nz{cluster}
%res = OpBitcast %u32 %sum"
        ));
        assert!(codes.is_empty(), "{group}: {codes:?}");
        let mut want = vec![neg; 32];
        want[0] = want_first;
        assert_eq!(out, want, "{group}");
    }
    // A sum with a +0 in it is +0.
    let (out, _) = run_lane_op(
        "%nz = OpFNegate %f32 %f0
%odd = OpBitwiseAnd %u32 %l %c1
%isodd = OpIEqual %bool %odd %c1
%x = OpSelect %f32 %isodd %nz %f0
%sum = OpGroupNonUniformFAdd %f32 %c3 Reduce %x
%res = OpBitcast %u32 %sum",
    );
    assert_eq!(out, vec![0; 32]);
}
