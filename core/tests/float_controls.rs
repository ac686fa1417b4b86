//! SPV_KHR_float_controls through the loader and the simulator: RoundingModeRTZ and
//! DenormFlushToZero change results; the modes that match the default are accepted; widths and
//! combinations that make no sense are refused. Shaders in `tests/data` (sources beside them).

mod common;

use common::{to_bytes, to_words};
use lanescope_core::float::{Mode, Round};
use lanescope_core::{load, Bindings, Config, LoadError, LoadOptions, Outcome, Simulator};
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

/// Runs one invocation of `shader` over 16 words starting with `input`.
fn run(shader: &str, input: &[u32], opts: &LoadOptions) -> Vec<u32> {
    let prog = Arc::new(load(&data(shader), opts).unwrap());
    let mut words = input.to_vec();
    words.resize(16, 0);
    let b = Bindings {
        buffers: vec![(0, 0, to_bytes(&words))],
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(10_000).unwrap(), Outcome::Finished);
    to_words(sim.buffer(0, 0).unwrap())
}

const RTZ_INPUT: [u32; 7] = [
    0x3F80_0000, // 1.0
    0x4040_0000, // 3.0
    0x33C0_0000, // 1.5 * 2^-24
    0x3F80_0801, // 1 + 2^-12 + 2^-23
    0xFFFF_FFFF,
    0x3F80_1FFF,
    0x3A40_0000, // 1.5 * 2^-11
];

#[test]
fn round_toward_zero_for_arithmetic_conversions_and_folding() {
    let prog = load(&data("float_rtz.spv"), &LoadOptions::default()).unwrap();
    let rtz = Mode {
        round: Round::Rtz,
        ftz: false,
    };
    assert_eq!(prog.float_controls().modes, [rtz, rtz, Mode::DEFAULT]);
    let out = run("float_rtz.spv", &RTZ_INPUT, &LoadOptions::default());
    let nearest = run("float_rte.spv", &RTZ_INPUT, &LoadOptions::default());
    // (toward zero, to nearest) for each result.
    let want = [
        (0x3F80_0000, 0x3F80_0001), // 1 + 1.5 * 2^-24
        (0x3F80_1002, 0x3F80_1003), // (1 + 2^-12 + 2^-23)^2
        (0x3EAA_AAAA, 0x3EAA_AAAB), // 1 / 3
        (0x3F80_0000, 0x3F80_2000), // f16(0x3F801FFF)
        (0x4F7F_FFFF, 0x4F80_0000), // f32(0xFFFFFFFF)
        (0x3F80_0000, 0x3F80_2000), // f16 1 + 1.5 * 2^-11
        (0x3F80_0000, 0x3F80_2000), // OpSpecConstantOp FConvert of 0x3F801FFF to f16
    ];
    for (k, (z, n)) in want.iter().enumerate() {
        assert_eq!((out[8 + k], nearest[8 + k]), (*z, *n), "result {k}");
    }
    // A specialised value is folded under the same mode.
    let opts = LoadOptions {
        spec: [(0, 0x3F80_3FFFu64.into())].into_iter().collect(),
        ..LoadOptions::default()
    };
    assert_eq!(run("float_rtz.spv", &RTZ_INPUT, &opts)[14], 0x3F80_2000);
}

#[test]
fn denormals_flush_to_zero_for_their_width_only() {
    let prog = load(&data("float_ftz.spv"), &LoadOptions::default()).unwrap();
    assert!(prog.float_controls().modes[1].ftz && !prog.float_controls().modes[0].ftz);
    let t = 0x1D80_0000; // 2^-70
    let out = run("float_ftz.spv", &[1, t], &LoadOptions::default());
    assert_eq!(out[4], 0, "denormal + denormal");
    assert_eq!(out[5], 0x8000_0000, "a denormal product keeps its sign");
    assert_eq!(out[6], 1, "a denormal equals zero");
    assert_eq!(out[7], 0x8000_0000, "negating a denormal");
    assert_eq!(out[8], 0, "an f32 denormal operand of a conversion is zero");
    assert_eq!(out[9], 0, "Fma's denormal result");
    assert_eq!(out[10], 0, "QuantizeToF16 flushes f16 denormals anyway");
}

#[test]
fn modes_that_cannot_apply_are_refused() {
    let e = load(
        &data("float_controls_bad_width.spv"),
        &LoadOptions::default(),
    )
    .unwrap_err();
    let LoadError::Unsupported { what, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(
        what,
        "execution mode RoundingModeRTZ for 8-bit floats (16, 32 or 64)"
    );
    let e = load(
        &data("float_controls_conflict.spv"),
        &LoadOptions::default(),
    )
    .unwrap_err();
    let LoadError::Invalid { what, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(
        what,
        "execution modes RoundingModeRTE and RoundingModeRTZ both given for 32-bit floats"
    );
}

#[test]
fn fp_rounding_mode_decorations_round_their_conversion() {
    let prog = Arc::new(load(&data("fp_rounding.spv"), &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, to_bytes(&[0x3F80_1FFF])), (0, 1, vec![0; 8])],
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(10_000).unwrap(), Outcome::Finished);
    let out = sim.buffer(0, 1).unwrap();
    let h: Vec<u16> = out
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(h[..3], [0x3C00, 0x3C01, 0x3C01]);
    let e = load(&data("fp_rounding_rtp.spv"), &LoadOptions::default()).unwrap_err();
    let LoadError::Unsupported { what, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(what, "FPRoundingMode RTP (rounding toward an infinity)");
}
