//! Whole-dispatch kernels: a shared-memory tiled matmul and a cooperative-matrix GEMM (f16
//! inputs, f32 accumulation) against a model, serially and on threads
//! (data/matmul_tiled.comp, data/matmul_coop.comp; the benchmark `kernels` runs them larger).

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator, SpecValue};
use std::sync::Arc;

/// f16 bits of a small integer (exact).
fn f16(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let sign = (b >> 16) & 0x8000;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = (b >> 13) & 0x3ff;
    (sign | ((exp as u32) << 10) | man) as u16
}

fn inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..n * n).map(|i| ((i * 7 + 3) % 9) as f32 - 4.0).collect();
    let b = (0..n * n).map(|i| ((i * 5 + 1) % 7) as f32 - 3.0).collect();
    (a, b)
}

fn run(file: &str, n: u32, threads: usize) -> (Vec<f32>, Simulator) {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap();
    let opts = LoadOptions {
        spec: [(0, SpecValue::Bits(u64::from(n)))].into(),
        subgroup_size: Some(32),
        ..LoadOptions::default()
    };
    let prog = Arc::new(load(&bytes, &opts).unwrap());
    let (a, b) = inputs(n as usize);
    let half = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| f16(*x).to_le_bytes()).collect() };
    let bind = Bindings {
        buffers: vec![
            (0, 0, half(&a)),
            (0, 1, half(&b)),
            (0, 2, vec![0; (n * n * 4) as usize]),
        ],
        ..Bindings::default()
    };
    let cfg = Config {
        workgroups: [n / 16, n / 16, 1],
        detectors: false,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, &bind).unwrap();
    sim.run_threads(u64::MAX, threads).unwrap();
    assert!(sim.is_finished());
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    let c = sim
        .buffer(0, 2)
        .unwrap()
        .chunks_exact(4)
        .map(|w| f32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    (c, sim)
}

fn model(n: usize) -> Vec<f32> {
    let (a, b) = inputs(n);
    let mut c = vec![0.0; n * n];
    for r in 0..n {
        for col in 0..n {
            c[r * n + col] = (0..n).map(|k| a[r * n + k] * b[k * n + col]).sum();
        }
    }
    c
}

#[test]
fn tiled_matmul_computes_the_product() {
    let (c, serial) = run("matmul_tiled.spv", 48, 1);
    assert_eq!(c, model(48));
    let (c4, par) = run("matmul_tiled.spv", 48, 4);
    assert_eq!(c4, c);
    assert_eq!(par.threads_used(), 4);
    assert_eq!(par.stats().steps, serial.stats().steps);
}

#[test]
fn cooperative_matrix_gemm_computes_the_product() {
    let (c, _) = run("matmul_coop.spv", 48, 1);
    assert_eq!(c, model(48));
    let (c3, par) = run("matmul_coop.spv", 48, 3);
    assert_eq!(c3, c);
    assert_eq!(par.threads_used(), 3);
}
