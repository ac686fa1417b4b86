//! SPV_EXT_long_vector: OpTypeVectorIdEXT, whose length is a constant instruction (here a
//! specialization constant), through loads, arithmetic, shuffles and extraction. The module is
//! assembly (data/asm/long_vector.spvasm), assembled in-process; the spirv-val of these
//! machines predates the extension.

use lanescope_core::{load, Bindings, Config, LoadError, LoadOptions, Simulator, SpecValue};
use std::sync::Arc;

fn module() -> Vec<u8> {
    let text = include_str!("data/asm/long_vector.spvasm");
    let words = lanescope_core::spvtext::assemble(text, &Default::default()).unwrap();
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn load_with(n: Option<u64>) -> Result<lanescope_core::program::Program, Box<LoadError>> {
    let mut opts = LoadOptions::default();
    if let Some(n) = n {
        opts.spec.insert(0, SpecValue::Bits(n));
    }
    load(&module(), &opts).map_err(Box::new)
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn run(n: Option<u64>) -> Vec<f32> {
    let prog = Arc::new(load_with(n).unwrap());
    let mut input = vec![0u8; 160];
    for i in 0..16 {
        input[i * 4..i * 4 + 4].copy_from_slice(&(i as f32 + 1.0).to_le_bytes());
    }
    let b = Bindings {
        buffers: vec![(0, 0, input)],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    sim.run(10_000).unwrap();
    assert!(sim.is_finished());
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    floats(sim.buffer(0, 0).unwrap())
}

/// What the module computes for length `n`, with x = 1, 2, ... 16 in the buffer.
fn model(n: usize) -> Vec<f32> {
    let mut out: Vec<f32> = (0..40)
        .map(|i| if i < 16 { i as f32 + 1.0 } else { 0.0 })
        .collect();
    let x: Vec<f32> = (0..n).map(|i| i as f32 + 1.0).collect();
    let y: Vec<f32> = x.iter().map(|v| v * v + v).collect();
    out[16..16 + n].copy_from_slice(&y);
    let pick = |k: usize| if k < n { x[k] } else { y[k - n] };
    for (j, k) in [5, 7, 0, 2].into_iter().enumerate() {
        out[32 + j] = pick(k);
    }
    out[36] = x[0] + x[5];
    out
}

#[test]
fn a_vector_sized_by_a_specialization_constant_computes_per_component() {
    assert_eq!(run(None), model(6));
    assert_eq!(run(Some(8)), model(8));
    assert_eq!(run(Some(16)), model(16));
}

#[test]
fn a_vector_length_out_of_range_is_named() {
    let e = load_with(Some(1)).unwrap_err().to_string();
    assert!(e.contains("vector of 1 components"), "{e}");
    let e = load_with(Some(5000)).unwrap_err().to_string();
    assert!(
        e.contains("unsupported") && e.contains("a vector of 5000 components (at most 1024)"),
        "{e}"
    );
}
