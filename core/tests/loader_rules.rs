//! What the loader accepts, refuses and warns about: capabilities as an allow-list, extended
//! instruction sets, specialization overrides, Workgroup blocks that alias, descriptor arrays,
//! limits checked before the arithmetic they protect, and host-side buffer aliasing.

mod common;

use common::to_words;
use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::{
    load, Bindings, BufferAlias, Config, LoadError, LoadOptions, Outcome, Simulator, SpecValue,
    WarningCode,
};
use std::path::Path;
use std::sync::Arc;

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

fn run(name: &str, bindings: &Bindings) -> Simulator {
    let prog = Arc::new(load(&data(name), &LoadOptions::default()).unwrap());
    let mut sim = Simulator::new(prog, Config::default(), bindings).unwrap();
    assert_eq!(sim.run(1_000_000).unwrap(), Outcome::Finished);
    sim
}

fn unsupported(e: &LoadError) -> &str {
    match e {
        LoadError::Unsupported { what, .. } => what,
        other => panic!("expected an unsupported error, got {other}"),
    }
}

#[test]
fn workgroup_blocks_alias_from_offset_zero() {
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 32]), (0, 1, vec![0; 32])],
        ..Bindings::default()
    };
    let sim = run("workgroup_explicit_layout.spv", &b);
    let expect: Vec<u32> = (0..8).map(|i| 10 * i + 1).collect();
    // Each word was written through `whole` and read back through `lo`/`hi`.
    assert_eq!(to_words(sim.buffer(0, 0).unwrap()), expect);
    // OpCopyMemory of the whole block sees what was written through it.
    assert_eq!(to_words(sim.buffer(0, 1).unwrap()), expect);
    assert_eq!(sim.program().workgroup_bytes(), 32);
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
}

#[test]
fn declared_but_unused_capabilities_and_sets_are_warnings() {
    let prog = load(&data("cap_unused.spv"), &LoadOptions::default()).unwrap();
    let w: Vec<(WarningCode, &str)> = prog
        .warnings()
        .iter()
        .map(|w| (w.code, w.message.as_str()))
        .collect();
    assert_eq!(w.len(), 3, "{w:?}");
    assert_eq!(w[0].0, WarningCode::UnusedCapability);
    assert!(w[0].1.contains("SampleRateShading"), "{}", w[0].1);
    assert!(w[1].1.contains("DerivativeControl"), "{}", w[1].1);
    assert_eq!(w[2].0, WarningCode::UnusedExtInstSet);
    assert!(w[2].1.contains("OpenCL.std"), "{}", w[2].1);
    // The warnings reach the simulator's list too.
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 4])],
        ..Bindings::default()
    };
    let sim = Simulator::new(Arc::new(prog), Config::default(), &b).unwrap();
    assert_eq!(sim.warnings().len(), 3);
}

#[test]
fn a_used_capability_that_is_not_simulated_is_refused_by_name() {
    let e = load(&data("cap_used.spv"), &LoadOptions::default()).unwrap_err();
    assert!(
        unsupported(&e).contains("capability DerivativeControl"),
        "{e}"
    );
}

#[test]
fn an_unimplemented_extended_instruction_set_is_refused_by_name() {
    let e = load(&data("ext_set_used.spv"), &LoadOptions::default()).unwrap_err();
    assert!(unsupported(&e).contains("`OpenCL.std`"), "{e}");
}

#[test]
fn a_runtime_sized_descriptor_array_is_refused_and_a_sized_one_runs() {
    // data/descriptor_array.spvasm: four buffers at one binding; the store reaches element 1.
    let prog = Arc::new(load(&data("descriptor_array.spv"), &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 4])],
        elements: (1..4).map(|e| (0, 0, e, vec![0; 4])).collect(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    sim.run(1000).unwrap();
    assert_eq!(sim.buffer_element(0, 0, 1), Some(&[4, 0, 0, 0][..]));
    assert_eq!(sim.buffer_element(0, 0, 0), Some(&[0; 4][..]));
    // The same with the array unsized: the number of buffers is not in the module.
    let text = include_str!("data/descriptor_array.spvasm").replace(
        "%arr = OpTypeArray %B %uint_4",
        "%arr = OpTypeRuntimeArray %B",
    );
    let words = lanescope_core::spvtext::assemble(&text, &Default::default()).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let e = load(&bytes, &LoadOptions::default()).unwrap_err();
    assert!(
        unsupported(&e).contains("a runtime-sized array of buffer descriptors"),
        "{e}"
    );
}

#[test]
fn a_huge_workgroup_with_a_workgroup_scope_matrix_is_refused_before_allocating() {
    for layout in [LayoutChoice::Portable, LayoutChoice::Nvidia] {
        let opts = LoadOptions {
            coopmat_layout: layout,
            ..LoadOptions::default()
        };
        let e = load(&data("coop_workgroup_huge.spv"), &opts).unwrap_err();
        assert!(unsupported(&e).contains("4294967296 invocations"), "{e}");
    }
}

#[test]
fn a_subgroup_size_outside_vulkans_range_is_an_option_error() {
    for s in [0, 3, 256, u32::MAX] {
        let opts = LoadOptions {
            subgroup_size: Some(s),
            coopmat_layout: LayoutChoice::Portable,
            ..LoadOptions::default()
        };
        let e = load(&data("host_alias.spv"), &opts).unwrap_err();
        assert!(matches!(e, LoadError::Option { .. }), "{e}");
        let cfg = Config {
            subgroup_size: s,
            ..Config::default()
        };
        let prog = Arc::new(load(&data("host_alias.spv"), &LoadOptions::default()).unwrap());
        assert!(Simulator::new(prog, cfg, &Bindings::default()).is_err());
    }
}

#[test]
fn unknown_spec_ids_are_ignored_with_a_warning_and_text_values_take_the_constants_type() {
    let mut opts = LoadOptions::default();
    opts.spec.insert(99, SpecValue::Text("5".into()));
    opts.spec.insert(0, SpecValue::Text("0x10".into()));
    let prog = load(&data("spec_push.spv"), &opts).unwrap();
    assert_eq!(prog.warnings().len(), 1, "{:?}", prog.warnings());
    assert_eq!(prog.warnings()[0].code, WarningCode::UnknownSpecId);
    assert!(prog.warnings()[0].message.contains("99"));
    // A value that does not fit the constant's type is an error naming it.
    let mut bad = LoadOptions::default();
    bad.spec.insert(0, SpecValue::Text("1.5".into()));
    let e = load(&data("spec_push.spv"), &bad).unwrap_err();
    assert!(matches!(e, LoadError::Option { .. }), "{e}");
    assert!(e.to_string().contains("specialization constant 0"), "{e}");
}

#[test]
fn typed_spec_text_parses_each_type() {
    use lanescope_core::value::ScalarTy;
    let t = |s: &str| SpecValue::Text(s.into());
    let i32t = ScalarTy::I32;
    assert_eq!(t("-1").bits_for(i32t), Ok(0xffff_ffff));
    assert_eq!(t("0xffffffff").bits_for(i32t), Ok(0xffff_ffff));
    assert!(t("4294967296").bits_for(ScalarTy::U32).is_err());
    assert!(t("-1").bits_for(ScalarTy::U32).is_err());
    assert_eq!(
        t("1.5").bits_for(ScalarTy::F32),
        Ok(u64::from(1.5f32.to_bits()))
    );
    assert_eq!(
        t("3").bits_for(ScalarTy::F32),
        Ok(u64::from(3f32.to_bits()))
    );
    assert_eq!(t("true").bits_for(ScalarTy::Bool), Ok(1));
    assert!(t("yes").bits_for(ScalarTy::Bool).is_err());
    assert_eq!(
        SpecValue::Bits(0x1_0000_0005).bits_for(ScalarTy::U32),
        Ok(5)
    );
}

#[test]
fn one_buffer_bound_at_two_bindings_shares_its_storage() {
    let alias = Bindings {
        buffers: vec![(0, 0, vec![0; 32])],
        aliases: vec![BufferAlias {
            set: 0,
            binding: 1,
            of_set: 0,
            of_binding: 0,
            ..Default::default()
        }],
        ..Bindings::default()
    };
    let sim = run("host_alias.spv", &alias);
    let shared = to_words(sim.buffer(0, 0).unwrap());
    assert_eq!(shared, [1, 2, 3, 4, 1, 2, 3, 4]);
    assert_eq!(sim.buffer(0, 1).unwrap(), sim.buffer(0, 0).unwrap());
    // Two separate buffers: binding 1 reads its own zeros.
    let apart = Bindings {
        buffers: vec![(0, 0, vec![0; 32]), (0, 1, vec![0; 32])],
        ..Bindings::default()
    };
    let sim = run("host_alias.spv", &apart);
    assert_eq!(to_words(sim.buffer(0, 1).unwrap()), [0; 8]);
    assert!(sim.warnings().is_empty());
}

#[test]
fn binding_errors_and_warnings() {
    let prog = Arc::new(load(&data("host_alias.spv"), &LoadOptions::default()).unwrap());
    let new = |b: &Bindings| Simulator::new(Arc::clone(&prog), Config::default(), b);
    // An alias of a binding where nothing is bound.
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 32])],
        aliases: vec![BufferAlias {
            set: 0,
            binding: 1,
            of_set: 3,
            of_binding: 3,
            ..Default::default()
        }],
        ..Bindings::default()
    };
    let e = new(&b).err().unwrap();
    assert!(e.to_string().contains("set 3 binding 3"), "{e}");
    // One binding bound twice.
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 32]), (0, 0, vec![0; 32])],
        ..Bindings::default()
    };
    assert!(new(&b).err().unwrap().to_string().contains("bound twice"));
    // A buffer at a binding the shader does not declare: accepted, with a warning, and still
    // readable (it may be an alias's target).
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 32]), (0, 1, vec![0; 32]), (2, 7, vec![9; 4])],
        ..Bindings::default()
    };
    let sim = new(&b).unwrap();
    assert_eq!(sim.warnings().len(), 1);
    assert_eq!(sim.warnings()[0].code, WarningCode::UnusedBinding);
    assert!(sim.warnings()[0].message.contains("set 2 binding 7"));
    assert_eq!(sim.buffer(2, 7).unwrap(), [9; 4]);
}

#[test]
fn what_would_be_silently_wrong_is_refused() {
    let e = load(&data("refuse_exec_mode.spv"), &LoadOptions::default()).unwrap_err();
    assert!(
        unsupported(&e).contains("execution mode EarlyFragmentTests"),
        "{e}"
    );
    let e = load(&data("refuse_output_var.spv"), &LoadOptions::default()).unwrap_err();
    assert!(unsupported(&e).contains("Output storage class"), "{e}");
    let e = load(&data("refuse_barrier_scope.spv"), &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(e, LoadError::Invalid { .. }) && e.to_string().contains("execution scope Device"),
        "{e}"
    );
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    to_words(bytes)
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Capabilities and opcodes from extensions newer than the grammar Lanescope knows: a
/// declaration alone is a warning (ggml declares a Valve dot-product capability in some
/// variants), an instruction Lanescope cannot decode is "unsupported", never "malformed".
#[test]
fn capabilities_and_opcodes_unknown_to_the_grammar() {
    let mut w = words_of(&data("host_alias.spv"));
    // After the header and the first OpCapability, declare capability 6912.
    w.insert(7, 6912);
    w.insert(7, (2 << 16) | 17);
    let prog = load(&bytes_of(&w), &LoadOptions::default()).unwrap();
    assert_eq!(prog.warnings().len(), 1, "{:?}", prog.warnings());
    assert!(prog.warnings()[0].message.contains("capability 6912"));
    // Give an instruction inside the function an opcode the grammar does not have.
    let mut i = 5;
    let mut done = false;
    while i < w.len() {
        let (wc, op) = ((w[i] >> 16) as usize, w[i] & 0xffff);
        if op == 61 && !done {
            // OpLoad -> opcode 6916 with the same operands.
            w[i] = (w[i] & 0xffff_0000) | 6916;
            done = true;
        }
        i += wc;
    }
    assert!(done);
    let e = load(&bytes_of(&w), &LoadOptions::default()).unwrap_err();
    assert!(unsupported(&e).contains("opcode 6916"), "{e}");
    assert!(e.to_string().contains("byte offset"), "{e}");
}
