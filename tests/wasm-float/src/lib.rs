//! lanescope_core's float results over a fixed input set, hashed per family: conversions,
//! arithmetic in every float-controls mode, GLSL.std.450 functions, decimal parsing, and whole
//! shaders run by the simulator. The native build and the wasm build must print the same
//! lines (`scripts/wasm-float-test.sh` compares them); correctness itself is checked by
//! lanescope_core's own tests.

use lanescope_core::alu;
use lanescope_core::float::{self, arith, FloatControls, Format, Mode, Round};
use lanescope_core::glsl450::{eval_in, Arg};
use lanescope_core::program::{BinOp, ConvOp};
use lanescope_core::value::{parse_float, ScalarTy};
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::fmt::Write as _;
use std::sync::Arc;

/// FNV-1a over the little-endian bytes of each value, and a count.
struct Digest {
    hash: u64,
    count: u64,
}

impl Digest {
    fn new() -> Self {
        Self {
            hash: 0xcbf2_9ce4_8422_2325,
            count: 0,
        }
    }

    fn add(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.hash ^= u64::from(b);
            self.hash = self.hash.wrapping_mul(0x0100_0000_01b3);
        }
        self.count += 1;
    }
}

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

const FORMATS: [Format; 4] = [Format::F16, Format::BF16, Format::F32, Format::F64];
const ROUNDS: [Round; 2] = [Round::Rte, Round::Rtz];
const MODES: [Mode; 4] = [
    Mode::DEFAULT,
    Mode {
        round: Round::Rtz,
        ftz: false,
    },
    Mode {
        round: Round::Rte,
        ftz: true,
    },
    Mode {
        round: Round::Rtz,
        ftz: true,
    },
];

fn ty_of(fmt: Format) -> ScalarTy {
    match fmt {
        Format::BF16 => ScalarTy::BFloat16,
        f => ScalarTy::Float {
            bits: f.bits() as u8,
        },
    }
}

fn width_mask(fmt: Format) -> u64 {
    (fmt.sign_bit() << 1).wrapping_sub(1)
}

/// Raw bits of `fmt`: random patterns, values near 1, and midpoints between neighbours of a
/// narrower format `near` (and one unit either side).
fn sample(rng: &mut Rng, fmt: Format, near: Format) -> u64 {
    let r = rng.next();
    match r % 4 {
        0 => rng.next() & width_mask(fmt),
        1 => {
            let one = float::from_f64(1.0, fmt, Round::Rte);
            let spread = (fmt.frac_bits() + 6).min(63);
            (one ^ (rng.next() >> (64 - spread))) | (r & fmt.sign_bit())
        }
        _ => {
            let n = rng.next() % near.max_finite();
            let (a, b) = (float::to_f64(near, n), float::to_f64(near, n + 1));
            let mid = float::from_f64((a + b) / 2.0, fmt, Round::Rte);
            let step = (r >> 8) % 3;
            (mid + step).wrapping_sub(1) & width_mask(fmt)
        }
    }
}

fn conversions() -> Digest {
    let mut d = Digest::new();
    let mut rng = Rng(1);
    for fmt in [Format::F16, Format::BF16] {
        for v in 0..=u64::from(u16::MAX) {
            for to in FORMATS {
                for round in ROUNDS {
                    d.add(float::convert(fmt, to, v, round));
                }
            }
        }
    }
    for _ in 0..150_000 {
        for (from, near) in [
            (Format::F64, Format::F32),
            (Format::F64, Format::F16),
            (Format::F64, Format::BF16),
            (Format::F32, Format::F16),
            (Format::F32, Format::BF16),
        ] {
            let v = sample(&mut rng, from, near);
            for round in ROUNDS {
                d.add(float::convert(from, near, v, round));
            }
        }
        let raw = rng.next();
        for to in FORMATS {
            for round in ROUNDS {
                d.add(float::from_i64(raw as i64, to, round));
                d.add(float::from_u64(raw >> (raw % 64), to, round));
            }
            for bits in [8u8, 16, 32, 64] {
                for signed in [false, true] {
                    let ty = ScalarTy::Int { bits, signed };
                    let op = if signed { ConvOp::SToF } else { ConvOp::UToF };
                    d.add(alu::conv(op, ty, ty_of(to), raw).0);
                    d.add(alu::conv(ConvOp::FToS, ty_of(to), ty, raw).0);
                }
            }
        }
    }
    d
}

fn arithmetic() -> Digest {
    let mut d = Digest::new();
    let mut rng = Rng(2);
    let ops = [arith::Op::Add, arith::Op::Sub, arith::Op::Mul, arith::Op::Div];
    let alu_ops = [BinOp::FRem, BinOp::FMod, BinOp::FOrdLessThan, BinOp::FUnordEqual];
    for _ in 0..40_000 {
        for fmt in FORMATS {
            let (a, b, c) = (
                sample(&mut rng, fmt, fmt),
                sample(&mut rng, fmt, fmt),
                sample(&mut rng, fmt, fmt),
            );
            for mode in MODES {
                for op in ops {
                    d.add(arith::binary(op, fmt, a, b, mode));
                }
                d.add(arith::fma(fmt, a, b, c, mode));
                for op in alu_ops {
                    let (v, u) = alu::bin_in(op, ty_of(fmt), a, b, mode);
                    d.add(v << 1 | u64::from(u));
                }
            }
        }
    }
    d
}

/// Every float GLSL.std.450 instruction, component-wise ones on scalars and the rest on
/// vectors and matrices, in f16, f32 and f64, with and without float controls.
fn functions() -> Digest {
    let mut d = Digest::new();
    let mut rng = Rng(3);
    // (instruction, operands, components per operand, result components)
    let mut table: Vec<(u32, usize, usize, usize)> = Vec::new();
    for inst in [1, 2, 3, 4, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21] {
        table.push((inst, 1, 1, 1));
    }
    for inst in [22, 23, 24, 27, 28, 29, 30, 31, 32] {
        table.push((inst, 1, 1, 1));
    }
    for inst in [25, 26, 37, 40, 48, 79, 80] {
        table.push((inst, 2, 1, 1));
    }
    for inst in [43, 46, 49, 50, 81] {
        table.push((inst, 3, 1, 1));
    }
    table.extend([
        (33, 1, 9, 1),
        (34, 1, 9, 9),
        (33, 1, 16, 1),
        (66, 1, 3, 1),
        (67, 2, 3, 1),
        (68, 2, 3, 3),
        (69, 1, 4, 4),
        (70, 3, 3, 3),
        (71, 2, 3, 3),
    ]);
    let mut rtz = FloatControls::default();
    rtz.modes = [MODES[3]; 3];
    for _ in 0..600 {
        for fmt in [Format::F16, Format::F32, Format::F64] {
            let ty = ty_of(fmt);
            for &(inst, n_args, comps, n_out) in &table {
                // Values mostly in [-8, 8), some anywhere.
                let args: Vec<Vec<u64>> = (0..n_args)
                    .map(|_| {
                        (0..comps)
                            .map(|_| {
                                let r = rng.next();
                                if r % 8 == 0 {
                                    r & width_mask(fmt)
                                } else {
                                    let x = (r >> 11) as f64 / (1u64 << 53) as f64 * 16.0 - 8.0;
                                    float::from_f64(x, fmt, Round::Rte)
                                }
                            })
                            .collect()
                    })
                    .collect();
                let list: Vec<Arg<'_>> = args.iter().map(|c| Arg { ty, comps: c }).collect();
                let outs = vec![ty; n_out];
                for fc in [FloatControls::default(), rtz] {
                    let mut out = vec![0; n_out];
                    let u = eval_in(inst, &outs, &list, &mut out, &fc).unwrap_or(true);
                    out.iter().for_each(|v| d.add(*v));
                    d.add(u64::from(u));
                }
            }
            // Refract with its scalar eta.
            let v: Vec<u64> = (0..6).map(|_| sample(&mut rng, fmt, fmt)).collect();
            let eta = [float::from_f64(0.75, fmt, Round::Rte)];
            let list = [
                Arg { ty, comps: &v[..3] },
                Arg { ty, comps: &v[3..] },
                Arg { ty, comps: &eta },
            ];
            let mut out = [0; 3];
            let _ = eval_in(72, &[ty; 3], &list, &mut out, &FloatControls::default());
            out.iter().for_each(|v| d.add(*v));
        }
    }
    d
}

fn parsing() -> Digest {
    let mut d = Digest::new();
    let mut rng = Rng(4);
    for k in 0..20_000 {
        let near = FORMATS[k % 2];
        let v = sample(&mut rng, Format::F64, near);
        let x = f64::from_bits(v);
        let texts = [
            format!("{x}"),
            format!("{x:.3e}"),
            format!("{x:.30e}"),
            format!("{x:.40e}1"),
        ];
        for text in &texts {
            for fmt in FORMATS {
                d.add(parse_float(ty_of(fmt), text).unwrap_or(u64::MAX));
            }
        }
    }
    d
}

/// Whole shaders through the loader and the simulator.
fn shaders() -> Digest {
    let mut d = Digest::new();
    let cases: [(&[u8], Vec<Vec<u8>>); 5] = [
        (
            include_bytes!("../../../assets/alu_loop.spv"),
            vec![words(&(0..64).collect::<Vec<_>>()), vec![0; 512]],
        ),
        (
            include_bytes!("../../../core/tests/data/determinant_f16.spv"),
            vec![halves(&[-6.0, -28.0, -29.5, 0.5, 15.5, 26.5, 39.5, 28.5, -23.5], 28)],
        ),
        (
            include_bytes!("../../../core/tests/data/float_rtz.spv"),
            vec![words(&[
                0x3F80_0000,
                0x4040_0000,
                0x33C0_0000,
                0x3F80_0801,
                0xFFFF_FFFF,
                0x3F80_1FFF,
                0x3A40_0000,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
            ])],
        ),
        (
            include_bytes!("../../../core/tests/data/float_ftz.spv"),
            vec![words(&[1, 0x1D80_0000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])],
        ),
        (
            include_bytes!("../../../core/tests/data/dot_bf16.spv"),
            vec![
                [0x3F80u16, 0x3B80, 0x3B80, 0, 0x3F80, 0x3F80, 0x3F80, 0x3F80]
                    .iter()
                    .flat_map(|h| h.to_le_bytes())
                    .collect(),
                vec![0; 16],
            ],
        ),
    ];
    for (spv, buffers) in cases {
        let prog = Arc::new(load(spv, &LoadOptions::default()).expect("load"));
        let n = buffers.len() as u32;
        let b = Bindings {
            buffers: (0..).zip(buffers).map(|(i, data)| (0, i, data)).collect(),
            ..Bindings::default()
        };
        let cfg = Config {
            workgroups: [2, 1, 1],
            ..Config::default()
        };
        let mut sim = Simulator::new(prog, cfg, &b).expect("simulator");
        sim.run(50_000_000).expect("run");
        for binding in 0..n {
            for c in sim.buffer(0, binding).expect("buffer").chunks(8) {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                d.add(u64::from_le_bytes(w));
            }
        }
    }
    d
}

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn halves(x: &[f64], len: usize) -> Vec<u8> {
    let mut b: Vec<u8> = x
        .iter()
        .flat_map(|v| (float::from_f64(*v, Format::F16, Round::Rte) as u16).to_le_bytes())
        .collect();
    b.resize(len, 0);
    b
}

/// One line per family: name, hash, number of values hashed.
pub fn digest() -> String {
    let mut out = String::new();
    let families: [(&str, fn() -> Digest); 5] = [
        ("conversions", conversions),
        ("arithmetic", arithmetic),
        ("functions", functions),
        ("parsing", parsing),
        ("shaders", shaders),
    ];
    for (name, f) in families {
        let d = f();
        let _ = writeln!(out, "{name} {:016x} {}", d.hash, d.count);
    }
    out
}

/// The digest, for the wasm build (wasm-bindgen exports it to JavaScript).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn float_digest() -> String {
    digest()
}
