//! 16-bit float arithmetic through the loader and the simulator: every operation rounded to
//! its type, as 16-bit hardware computes. Shaders in `tests/data` (sources beside them).

mod common;

use common::to_words;
use lanescope_core::value::{float_from_f64, float_to_f64, ScalarTy};
use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
use std::path::Path;
use std::sync::Arc;

const F16: ScalarTy = ScalarTy::Float { bits: 16 };

/// Runs one invocation of `shader` with the given byte buffers at set 0, bindings 0, 1, ...
fn run(shader: &str, buffers: Vec<Vec<u8>>) -> Simulator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(shader);
    let prog = Arc::new(load(&std::fs::read(path).unwrap(), &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: (0..).zip(buffers).map(|(i, d)| (0, i, d)).collect(),
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(10_000).unwrap(), Outcome::Finished);
    sim
}

fn halves(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(2)
        .map(|c| float_to_f64(F16, u64::from(u16::from_le_bytes([c[0], c[1]]))))
        .collect()
}

#[test]
fn f16_determinant_and_dot_round_every_step() {
    // Column-major. Exactly, det = -5280 and dot(column 1, column 2) = -161.25; in f16 steps
    // products round (28.5 * 26.5 = 755.25 to 755, 26.5 * -23.5 = -622.75 to -623, ...) and
    // the results are -5296 and -161.5.
    let m = [-6.0, -28.0, -29.5, 0.5, 15.5, 26.5, 39.5, 28.5, -23.5];
    let mut bytes: Vec<u8> = m
        .iter()
        .flat_map(|x| (float_from_f64(F16, *x) as u16).to_le_bytes())
        .collect();
    bytes.resize(28, 0);
    let sim = run("determinant_f16.spv", vec![bytes]);
    let out = sim.buffer(0, 0).unwrap();
    let h = halves(&out[18..22]);
    assert_eq!((h[0], h[1]), (-5296.0, -161.5));
    assert_eq!(
        f32::from_le_bytes([out[24], out[25], out[26], out[27]]),
        -5280.0
    );
}

#[test]
fn bf16_dot_rounds_to_bf16_in_float() {
    // 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: each partial sum rounds back
    // to 1 (ties to even), where the exact dot product is 1 + 2^-7.
    let bf = |x: f64| float_from_f64(ScalarTy::BFloat16, x) as u16;
    let tiny = 2f64.powi(-8);
    let v = [1.0, tiny, tiny, 0.0, 1.0, 1.0, 1.0, 1.0];
    let bytes: Vec<u8> = v.iter().flat_map(|x| bf(*x).to_le_bytes()).collect();
    let sim = run("dot_bf16.spv", vec![bytes, vec![0; 16]]);
    let out = to_words(sim.buffer(0, 1).unwrap());
    assert_eq!(f32::from_bits(out[0]), 1.0);
}
