//! Variable pointers: pointers selected, phi'd, kept in a Function variable, stepped with
//! OpPtrAccessChain and compared (OpPtrEqual/NotEqual with null, OpPtrDiff), against a model.
//! The module is assembly (data/asm/variable_pointers.spvasm; spirv-val passes it).

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::sync::Arc;

fn module(text: &str) -> Vec<u8> {
    let words = lanescope_core::spvtext::assemble(text, &Default::default()).unwrap();
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn run(text: &str) -> (Vec<u32>, Simulator) {
    let prog = Arc::new(load(&module(text), &LoadOptions::default()).unwrap());
    let inp: Vec<u8> = (0u32..16).flat_map(|i| (3 * i + 1).to_le_bytes()).collect();
    let b = Bindings {
        buffers: vec![(0, 0, inp), (0, 1, vec![0; 64 * 4])],
        ..Bindings::default()
    };
    let cfg = Config {
        subgroup_size: 8,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, &b).unwrap();
    sim.run(100_000).unwrap();
    assert!(sim.is_finished());
    let out = sim
        .buffer(0, 1)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (out, sim)
}

#[test]
fn pointers_chosen_at_run_time_load_store_and_compare() {
    let (out, sim) = run(include_str!("data/asm/variable_pointers.spvasm"));
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    for l in 0..16u32 {
        let base = if l < 8 { 0 } else { 8 };
        let sum: u32 = (base..base + 4).map(|i| 3 * i + 1).sum();
        let w = &out[l as usize * 4..l as usize * 4 + 4];
        assert_eq!(w[0], sum, "lane {l}: the walk's sum");
        assert_eq!(w[1] as i32, 4, "lane {l}: PtrDiff forward");
        assert_eq!(w[2] as i32, -4, "lane {l}: PtrDiff back");
        // Equal to what was stored, different from the walked pointer, not null.
        assert_eq!(w[3], 1 | 2, "lane {l}: comparisons");
    }
}

/// A load through a null pointer is an out-of-bounds diagnostic, not a read of the first
/// buffer.
#[test]
fn a_null_pointer_points_nowhere() {
    let text = include_str!("data/asm/variable_pointers.spvasm").replace(
        "%src = OpSelect %psu %low %a0 %a8",
        "%src = OpSelect %psu %low %null %a8",
    );
    let (out, sim) = run(&text);
    let codes: Vec<String> = sim
        .diagnostics()
        .iter()
        .map(|d| format!("{:?}", d.code))
        .collect();
    assert!(codes.iter().any(|c| c.contains("OutOfBounds")), "{codes:?}");
    // Lanes 8-15 took &inp[8] and are unaffected.
    assert_eq!(out[8 * 4], (8..12).map(|i| 3 * i + 1).sum::<u32>());
    assert_eq!(out[8 * 4 + 3], 1 | 2);
    // Lanes 0-7 hold null: equal to null, and their loads read 0.
    assert_eq!(out[0], 0);
    assert_eq!(out[3] & 4, 4, "null equals null");
}

/// Takes &inp[8] as four elements back from &inp[12], the Element `-4` declared as `element`
/// (a constant's type and literal), and checks the walk from there.
fn step_back_from_12(element: &str) {
    let text = include_str!("data/asm/variable_pointers.spvasm")
        .replace(
            "%a8 = OpAccessChain %psu %inb %c0 %c8",
            "%a12 = OpAccessChain %psu %inb %c0 %c12\n%a8 = OpPtrAccessChain %psu %a12 %m4",
        )
        .replace(
            "%c8 = OpConstant %u32 8",
            &format!(
                "%c8 = OpConstant %u32 8\n%c12 = OpConstant %u32 12\n%m4 = OpConstant {element}"
            ),
        );
    let (out, sim) = run(&text);
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    assert_eq!(out[8 * 4], (8..12).map(|i| 3 * i + 1).sum::<u32>());
}

/// An Element stepping back (a negative OpPtrAccessChain index) stays in the object.
#[test]
fn a_negative_element_steps_back() {
    step_back_from_12("%i32 -4");
}

/// The Element is signed whatever its type: 0xFFFFFFFC as a 32-bit unsigned constant steps
/// four words back too.
#[test]
fn an_unsigned_element_is_read_as_signed() {
    step_back_from_12("%u32 4294967292");
}

/// A pointer chosen at run time between a row-major matrix's column (strided in memory) and a
/// plain vector: the spec forbids variable pointers to matrix columns (spirv-val says so too),
/// and one pointer could not read both ways; refused as invalid, naming the rule.
#[test]
fn pointers_into_different_layouts_are_refused() {
    let text = "OpCapability Shader
OpCapability VariablePointersStorageBuffer
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %buf
OpExecutionMode %main LocalSize 1 1 1
OpMemberDecorate %S 0 Offset 0
OpMemberDecorate %S 0 RowMajor
OpMemberDecorate %S 0 MatrixStride 8
OpMemberDecorate %S 1 Offset 16
OpDecorate %S Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%f32 = OpTypeFloat 32
%u32 = OpTypeInt 32 0
%v2 = OpTypeVector %f32 2
%m2 = OpTypeMatrix %v2 2
%S = OpTypeStruct %m2 %v2
%pS = OpTypePointer StorageBuffer %S
%pv2 = OpTypePointer StorageBuffer %v2
%buf = OpVariable %pS StorageBuffer
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%t = OpConstantTrue %bool
%main = OpFunction %void None %fn
%entry = OpLabel
%col = OpAccessChain %pv2 %buf %c0 %c1
%vec = OpAccessChain %pv2 %buf %c1
%p = OpSelect %pv2 %t %col %vec
%x = OpLoad %v2 %p
OpStore %vec %x
OpReturn
OpFunctionEnd
";
    let e = load(&module(text), &LoadOptions::default()).unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e, lanescope_core::load::LoadError::Invalid { .. })
            && msg.contains("must not point to a column of a matrix"),
        "{msg}"
    );
}
