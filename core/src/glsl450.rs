//! The GLSL.std.450 extended instruction set, evaluated for one invocation.
//!
//! Operands and results are raw component bits (see `value`). Float functions compute in the
//! operand's own precision: f32 in f32, f64 in f64, f16 in f32 rounded once to f16.

use crate::value::{mask, sext, ScalarTy};
use half::f16;

/// One operand: the type of its scalar components and the components (1 for a scalar, n for a
/// vector, cols*rows for a square matrix, column-major).
pub struct Arg<'a> {
    pub ty: ScalarTy,
    pub comps: &'a [u64],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Glsl450Error {
    /// Not meaningful in a compute shader (InterpolateAt*), or an unknown instruction number.
    Unsupported { inst: u32, name: &'static str },
    /// Operand shapes do not match what the instruction requires.
    BadOperands {
        inst: u32,
        name: &'static str,
        detail: String,
    },
}

const NAMES: [&str; 82] = [
    "unknown",
    "Round",
    "RoundEven",
    "Trunc",
    "FAbs",
    "SAbs",
    "FSign",
    "SSign",
    "Floor",
    "Ceil",
    "Fract",
    "Radians",
    "Degrees",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Sinh",
    "Cosh",
    "Tanh",
    "Asinh",
    "Acosh",
    "Atanh",
    "Atan2",
    "Pow",
    "Exp",
    "Log",
    "Exp2",
    "Log2",
    "Sqrt",
    "InverseSqrt",
    "Determinant",
    "MatrixInverse",
    "Modf",
    "ModfStruct",
    "FMin",
    "UMin",
    "SMin",
    "FMax",
    "UMax",
    "SMax",
    "FClamp",
    "UClamp",
    "SClamp",
    "FMix",
    "IMix",
    "Step",
    "SmoothStep",
    "Fma",
    "Frexp",
    "FrexpStruct",
    "Ldexp",
    "PackSnorm4x8",
    "PackUnorm4x8",
    "PackSnorm2x16",
    "PackUnorm2x16",
    "PackHalf2x16",
    "PackDouble2x32",
    "UnpackSnorm2x16",
    "UnpackUnorm2x16",
    "UnpackHalf2x16",
    "UnpackSnorm4x8",
    "UnpackUnorm4x8",
    "UnpackDouble2x32",
    "Length",
    "Distance",
    "Cross",
    "Normalize",
    "FaceForward",
    "Reflect",
    "Refract",
    "FindILsb",
    "FindSMsb",
    "FindUMsb",
    "InterpolateAtCentroid",
    "InterpolateAtSample",
    "InterpolateAtOffset",
    "NMin",
    "NMax",
    "NClamp",
];

/// Name of an instruction number, e.g. 31 -> "Sqrt" ("unknown" otherwise).
pub fn name(inst: u32) -> &'static str {
    NAMES.get(inst as usize).copied().unwrap_or("unknown")
}

fn fbits(t: ScalarTy) -> u32 {
    match t {
        ScalarTy::Float { bits } => u32::from(bits),
        _ => 32,
    }
}

/// A float in its working precision: f64 for f64, f32 otherwise.
#[derive(Clone, Copy)]
struct F {
    bits: u32,
}

impl F {
    fn get(self, v: u64) -> f64 {
        match self.bits {
            16 => f64::from(f16::from_bits(v as u16).to_f32()),
            32 => f64::from(f32::from_bits(v as u32)),
            _ => f64::from_bits(v),
        }
    }
    /// Round a result to this precision (f16 via f32 first: the operations were done in f32).
    fn put(self, x: f64) -> u64 {
        match self.bits {
            16 => u64::from(f16::from_f32(x as f32).to_bits()),
            32 => u64::from((x as f32).to_bits()),
            _ => x.to_bits(),
        }
    }
    /// Apply a unary function in the working precision.
    fn un(self, v: u64, f32f: impl Fn(f32) -> f32, f64f: impl Fn(f64) -> f64) -> u64 {
        if self.bits == 64 {
            f64f(f64::from_bits(v)).to_bits()
        } else {
            self.put(f64::from(f32f(self.get(v) as f32)))
        }
    }
    fn bin(
        self,
        a: u64,
        b: u64,
        f32f: impl Fn(f32, f32) -> f32,
        f64f: impl Fn(f64, f64) -> f64,
    ) -> u64 {
        if self.bits == 64 {
            f64f(f64::from_bits(a), f64::from_bits(b)).to_bits()
        } else {
            self.put(f64::from(f32f(self.get(a) as f32, self.get(b) as f32)))
        }
    }
}

fn round_away(x: f64) -> f64 {
    x.round()
}

fn fsign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

fn smin(a: u64, b: u64, w: u32) -> u64 {
    if sext(a, w) <= sext(b, w) {
        a
    } else {
        b
    }
}

fn smax(a: u64, b: u64, w: u32) -> u64 {
    if sext(a, w) >= sext(b, w) {
        a
    } else {
        b
    }
}

/// Component `k` of an operand, broadcasting scalars.
fn at(a: &Arg<'_>, k: usize) -> u64 {
    if a.comps.len() == 1 {
        a.comps[0]
    } else {
        a.comps.get(k).copied().unwrap_or(0)
    }
}

fn determinant(m: &[f64], n: usize) -> f64 {
    let e = |c: usize, r: usize| m[c * n + r];
    match n {
        2 => e(0, 0) * e(1, 1) - e(1, 0) * e(0, 1),
        3 => {
            e(0, 0) * (e(1, 1) * e(2, 2) - e(2, 1) * e(1, 2))
                - e(1, 0) * (e(0, 1) * e(2, 2) - e(2, 1) * e(0, 2))
                + e(2, 0) * (e(0, 1) * e(1, 2) - e(1, 1) * e(0, 2))
        }
        _ => {
            // Laplace expansion along the first column.
            let mut det = 0.0;
            for r in 0..n {
                let minor: Vec<f64> = (1..n)
                    .flat_map(|c| (0..n).filter(move |&rr| rr != r).map(move |rr| (c, rr)))
                    .map(|(c, rr)| e(c, rr))
                    .collect();
                let sign = if r % 2 == 0 { 1.0 } else { -1.0 };
                det += sign * e(0, r) * determinant(&minor, n - 1);
            }
            det
        }
    }
}

fn inverse(m: &[f64], n: usize) -> Vec<f64> {
    let det = determinant(m, n);
    let mut out = vec![0.0; n * n];
    for c in 0..n {
        for r in 0..n {
            // Cofactor of element (row c, column r) gives inverse (row r, column c).
            let minor: Vec<f64> = (0..n)
                .filter(|&cc| cc != r)
                .flat_map(|cc| (0..n).filter(move |&rr| rr != c).map(move |rr| (cc, rr)))
                .map(|(cc, rr)| m[cc * n + rr])
                .collect();
            let sign = if (r + c) % 2 == 0 { 1.0 } else { -1.0 };
            let cof = if n == 1 {
                1.0
            } else {
                determinant(&minor, n - 1)
            };
            out[c * n + r] = sign * cof / det;
        }
    }
    out
}

fn pack_snorm(x: f64, bits: u32) -> u64 {
    let max = f64::from((1u32 << (bits - 1)) - 1);
    let v = (x.clamp(-1.0, 1.0) * max).round() as i64;
    v as u64 & mask(bits)
}

fn pack_unorm(x: f64, bits: u32) -> u64 {
    let max = f64::from((1u32 << bits) - 1);
    (x.clamp(0.0, 1.0) * max).round() as u64
}

/// Evaluate `inst` for one invocation. `out_tys[i]` is the type of output component i. Returns
/// `Ok(true)` when the spec leaves the result undefined for these inputs (a deterministic value is
/// still written). Modf (35) and Frexp (51), whose second result goes through a pointer, take only
/// their first operand here and produce the same layout as ModfStruct/FrexpStruct: the first half
/// of `out` is the returned value, the second half what the caller stores through the pointer.
#[expect(clippy::too_many_lines, reason = "one arm per instruction")]
pub fn eval(
    inst: u32,
    out_tys: &[ScalarTy],
    args: &[Arg<'_>],
    out: &mut [u64],
) -> Result<bool, Glsl450Error> {
    let nm = name(inst);
    let bad = |detail: &str| Glsl450Error::BadOperands {
        inst,
        name: nm,
        detail: detail.into(),
    };
    let arg = |i: usize| args.get(i).ok_or_else(|| bad("missing operand"));
    let a0 = arg(0)?;
    let t = a0.ty;
    let w = t.bits();
    let f = F { bits: fbits(t) };
    let n = out.len();
    let mut undefined = false;
    // Component-wise helpers.
    let map1 = |out: &mut [u64], g: &dyn Fn(u64) -> u64| {
        for (k, o) in out.iter_mut().enumerate() {
            *o = g(at(a0, k));
        }
    };
    match inst {
        1 => map1(out, &|v| f.un(v, f32::round, round_away)),
        2 => map1(out, &|v| {
            f.un(v, f32::round_ties_even, f64::round_ties_even)
        }),
        3 => map1(out, &|v| f.un(v, f32::trunc, f64::trunc)),
        4 => map1(out, &|v| f.un(v, f32::abs, f64::abs)),
        5 => map1(out, &|v| (sext(v, w).unsigned_abs()) & mask(w)),
        6 => map1(out, &|v| f.put(fsign(f.get(v)))),
        7 => map1(out, &|v| (sext(v, w).signum() as u64) & mask(w)),
        8 => map1(out, &|v| f.un(v, f32::floor, f64::floor)),
        9 => map1(out, &|v| f.un(v, f32::ceil, f64::ceil)),
        10 => map1(out, &|v| f.un(v, |x| x - x.floor(), |x| x - x.floor())),
        11 => map1(out, &|v| f.un(v, f32::to_radians, f64::to_radians)),
        12 => map1(out, &|v| f.un(v, f32::to_degrees, f64::to_degrees)),
        13 => map1(out, &|v| f.un(v, f32::sin, f64::sin)),
        14 => map1(out, &|v| f.un(v, f32::cos, f64::cos)),
        15 => map1(out, &|v| f.un(v, f32::tan, f64::tan)),
        16 | 17 => {
            undefined = (0..n).any(|k| f.get(at(a0, k)).abs() > 1.0);
            if inst == 16 {
                map1(out, &|v| f.un(v, f32::asin, f64::asin));
            } else {
                map1(out, &|v| f.un(v, f32::acos, f64::acos));
            }
        }
        18 => map1(out, &|v| f.un(v, f32::atan, f64::atan)),
        19 => map1(out, &|v| f.un(v, f32::sinh, f64::sinh)),
        20 => map1(out, &|v| f.un(v, f32::cosh, f64::cosh)),
        21 => map1(out, &|v| f.un(v, f32::tanh, f64::tanh)),
        22 => map1(out, &|v| f.un(v, f32::asinh, f64::asinh)),
        23 => {
            undefined = (0..n).any(|k| f.get(at(a0, k)) < 1.0);
            map1(out, &|v| f.un(v, f32::acosh, f64::acosh));
        }
        24 => {
            undefined = (0..n).any(|k| f.get(at(a0, k)).abs() >= 1.0);
            map1(out, &|v| f.un(v, f32::atanh, f64::atanh));
        }
        25 => {
            let b = arg(1)?;
            for (k, o) in out.iter_mut().enumerate() {
                let (y, x) = (at(a0, k), at(b, k));
                undefined |= f.get(y) == 0.0 && f.get(x) == 0.0;
                *o = f.bin(y, x, f32::atan2, f64::atan2);
            }
        }
        26 => {
            let b = arg(1)?;
            for (k, o) in out.iter_mut().enumerate() {
                let (x, y) = (at(a0, k), at(b, k));
                undefined |= f.get(x) < 0.0 || (f.get(x) == 0.0 && f.get(y) <= 0.0);
                *o = f.bin(x, y, f32::powf, f64::powf);
            }
        }
        27 => map1(out, &|v| f.un(v, f32::exp, f64::exp)),
        28 | 30 => {
            undefined = (0..n).any(|k| f.get(at(a0, k)) <= 0.0);
            if inst == 28 {
                map1(out, &|v| f.un(v, f32::ln, f64::ln));
            } else {
                map1(out, &|v| f.un(v, f32::log2, f64::log2));
            }
        }
        29 => map1(out, &|v| f.un(v, f32::exp2, f64::exp2)),
        31 => {
            undefined = (0..n).any(|k| f.get(at(a0, k)) < 0.0);
            map1(out, &|v| f.un(v, f32::sqrt, f64::sqrt));
        }
        32 => {
            undefined = (0..n).any(|k| f.get(at(a0, k)) <= 0.0);
            map1(out, &|v| f.un(v, |x| 1.0 / x.sqrt(), |x| 1.0 / x.sqrt()));
        }
        33 | 34 => {
            let len = a0.comps.len();
            let dim = (1..=4)
                .find(|d| d * d == len)
                .filter(|d| *d >= 2)
                .ok_or_else(|| bad("not a square matrix"))?;
            let m: Vec<f64> = a0.comps.iter().map(|v| f.get(*v)).collect();
            if inst == 33 {
                out[0] = f.put(determinant(&m, dim));
            } else {
                undefined = determinant(&m, dim) == 0.0;
                for (o, v) in out.iter_mut().zip(inverse(&m, dim)) {
                    *o = f.put(v);
                }
            }
        }
        35 | 36 => {
            let h = n / 2;
            for k in 0..h {
                let x = f.get(at(a0, k));
                let ip = x.trunc();
                out[k + h] = f.put(ip);
                out[k] = f.put(if x.is_infinite() {
                    0.0f64.copysign(x)
                } else {
                    x - ip
                });
            }
        }
        37 | 40 | 79 | 80 => {
            let b = arg(1)?;
            for (k, o) in out.iter_mut().enumerate() {
                let (x, y) = (f.get(at(a0, k)), f.get(at(b, k)));
                let r = match inst {
                    37 | 79 => x.min(y),
                    _ => x.max(y),
                };
                // FMin/FMax: a NaN operand makes the result undefined; NMin/NMax pick the number.
                undefined |= matches!(inst, 37 | 40) && (x.is_nan() || y.is_nan());
                *o = f.put(r);
            }
        }
        38 | 41 => {
            let b = arg(1)?;
            for (k, o) in out.iter_mut().enumerate() {
                let (x, y) = (at(a0, k) & mask(w), at(b, k) & mask(w));
                *o = if inst == 38 { x.min(y) } else { x.max(y) };
            }
        }
        39 | 42 => {
            let b = arg(1)?;
            for (k, o) in out.iter_mut().enumerate() {
                *o = if inst == 39 {
                    smin(at(a0, k), at(b, k), w)
                } else {
                    smax(at(a0, k), at(b, k), w)
                };
            }
        }
        43 | 81 => {
            let (lo, hi) = (arg(1)?, arg(2)?);
            for (k, o) in out.iter_mut().enumerate() {
                let (x, l, h) = (f.get(at(a0, k)), f.get(at(lo, k)), f.get(at(hi, k)));
                undefined |= l > h || (inst == 43 && (x.is_nan() || l.is_nan() || h.is_nan()));
                *o = f.put(x.max(l).min(h));
            }
        }
        44 => {
            let (lo, hi) = (arg(1)?, arg(2)?);
            for (k, o) in out.iter_mut().enumerate() {
                let (x, l, h) = (
                    at(a0, k) & mask(w),
                    at(lo, k) & mask(w),
                    at(hi, k) & mask(w),
                );
                undefined |= l > h;
                *o = x.max(l).min(h);
            }
        }
        45 => {
            let (lo, hi) = (arg(1)?, arg(2)?);
            for (k, o) in out.iter_mut().enumerate() {
                let (l, h) = (at(lo, k), at(hi, k));
                undefined |= sext(l, w) > sext(h, w);
                *o = smin(smax(at(a0, k), l, w), h, w);
            }
        }
        46 => {
            let (b, c) = (arg(1)?, arg(2)?);
            for (k, o) in out.iter_mut().enumerate() {
                let (x, y, a) = (f.get(at(a0, k)), f.get(at(b, k)), f.get(at(c, k)));
                *o = f.put(x * (1.0 - a) + y * a);
            }
        }
        47 => {
            let (b, c) = (arg(1)?, arg(2)?);
            for (k, o) in out.iter_mut().enumerate() {
                *o = if at(c, k) != 0 { at(b, k) } else { at(a0, k) };
            }
        }
        48 => {
            let x = arg(1)?;
            let fx = F { bits: fbits(x.ty) };
            for (k, o) in out.iter_mut().enumerate() {
                *o = fx.put(if fx.get(at(x, k)) < f.get(at(a0, k)) {
                    0.0
                } else {
                    1.0
                });
            }
        }
        49 => {
            let (e1, x) = (arg(1)?, arg(2)?);
            let fx = F { bits: fbits(x.ty) };
            for (k, o) in out.iter_mut().enumerate() {
                let (lo, hi, v) = (f.get(at(a0, k)), f.get(at(e1, k)), fx.get(at(x, k)));
                undefined |= lo >= hi;
                let tt = ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
                *o = fx.put(tt * tt * (3.0 - 2.0 * tt));
            }
        }
        50 => {
            let (b, c) = (arg(1)?, arg(2)?);
            for (k, o) in out.iter_mut().enumerate() {
                let (x, y, z) = (at(a0, k), at(b, k), at(c, k));
                *o = match f.bits {
                    64 => f64::from_bits(x)
                        .mul_add(f64::from_bits(y), f64::from_bits(z))
                        .to_bits(),
                    32 => u64::from(
                        f32::from_bits(x as u32)
                            .mul_add(f32::from_bits(y as u32), f32::from_bits(z as u32))
                            .to_bits(),
                    ),
                    _ => f.put(f.get(x).mul_add(f.get(y), f.get(z))),
                };
            }
        }
        51 | 52 => {
            let h = n / 2;
            let ew = out_tys.get(h).map_or(32, |t| t.bits());
            for k in 0..h {
                let x = f.get(at(a0, k));
                let (m, e) = frexp(x);
                out[k] = f.put(m);
                out[k + h] = (e as u64) & mask(ew);
            }
        }
        53 => {
            let e = arg(1)?;
            for (k, o) in out.iter_mut().enumerate() {
                let exp = sext(at(e, k), e.ty.bits());
                let limit = match f.bits {
                    16 => 15,
                    32 => 128,
                    _ => 1024,
                };
                undefined |= exp > limit;
                *o = f.put(f.get(at(a0, k)) * 2f64.powi(exp.clamp(-2100, 2100) as i32));
            }
        }
        54 | 55 => {
            let mut r = 0u64;
            for k in 0..4 {
                let x = f.get(at(a0, k));
                let b = if inst == 54 {
                    pack_snorm(x, 8)
                } else {
                    pack_unorm(x, 8)
                };
                r |= (b & 0xff) << (8 * k);
            }
            out[0] = r;
        }
        56 | 57 => {
            let mut r = 0u64;
            for k in 0..2 {
                let x = f.get(at(a0, k));
                let b = if inst == 56 {
                    pack_snorm(x, 16)
                } else {
                    pack_unorm(x, 16)
                };
                r |= (b & 0xffff) << (16 * k);
            }
            out[0] = r;
        }
        58 => {
            out[0] = (0..2).fold(0, |r, k| {
                r | u64::from(f16::from_f32(f32::from_bits(at(a0, k) as u32)).to_bits()) << (16 * k)
            });
        }
        59 => out[0] = (at(a0, 0) & 0xffff_ffff) | (at(a0, 1) << 32),
        60 | 61 | 63 | 64 => {
            let v = at(a0, 0);
            let (count, bits): (u32, u32) = if matches!(inst, 60 | 61) {
                (2, 16)
            } else {
                (4, 8)
            };
            let of = F {
                bits: fbits(out_tys.first().copied().unwrap_or(ScalarTy::F32)),
            };
            for k in 0..count.min(n as u32) {
                let raw = (v >> (bits * k)) & mask(bits);
                let x = if matches!(inst, 60 | 63) {
                    let max = f64::from((1u32 << (bits - 1)) - 1);
                    (sext(raw, bits) as f64 / max).clamp(-1.0, 1.0)
                } else {
                    raw as f64 / f64::from((1u32 << bits) - 1)
                };
                out[k as usize] = of.put(x);
            }
        }
        62 => {
            let v = at(a0, 0);
            for (k, o) in out.iter_mut().take(2).enumerate() {
                *o = u64::from(f16::from_bits((v >> (16 * k)) as u16).to_f32().to_bits());
            }
        }
        65 => {
            let v = at(a0, 0);
            out[0] = v & 0xffff_ffff;
            if n > 1 {
                out[1] = v >> 32;
            }
        }
        66 => {
            let s: f64 = a0.comps.iter().map(|v| f.get(*v).powi(2)).sum();
            out[0] = f.put(s.sqrt());
        }
        67 => {
            let b = arg(1)?;
            let s: f64 = (0..a0.comps.len())
                .map(|k| (f.get(at(a0, k)) - f.get(at(b, k))).powi(2))
                .sum();
            out[0] = f.put(s.sqrt());
        }
        68 => {
            let b = arg(1)?;
            if a0.comps.len() != 3 || b.comps.len() != 3 {
                return Err(bad("Cross needs two 3-component vectors"));
            }
            let (x, y) = (|k: usize| f.get(a0.comps[k]), |k: usize| f.get(b.comps[k]));
            out[0] = f.put(x(1) * y(2) - y(1) * x(2));
            out[1] = f.put(x(2) * y(0) - y(2) * x(0));
            out[2] = f.put(x(0) * y(1) - y(0) * x(1));
        }
        69 => {
            let len = a0
                .comps
                .iter()
                .map(|v| f.get(*v).powi(2))
                .sum::<f64>()
                .sqrt();
            undefined = len == 0.0;
            for (k, o) in out.iter_mut().enumerate() {
                *o = f.put(f.get(at(a0, k)) / len);
            }
        }
        70 => {
            let (i, nref) = (arg(1)?, arg(2)?);
            let d: f64 = (0..n).map(|k| f.get(at(nref, k)) * f.get(at(i, k))).sum();
            for (k, o) in out.iter_mut().enumerate() {
                let v = f.get(at(a0, k));
                *o = f.put(if d < 0.0 { v } else { -v });
            }
        }
        71 => {
            let nn = arg(1)?;
            let d: f64 = (0..n).map(|k| f.get(at(nn, k)) * f.get(at(a0, k))).sum();
            for (k, o) in out.iter_mut().enumerate() {
                *o = f.put(f.get(at(a0, k)) - 2.0 * d * f.get(at(nn, k)));
            }
        }
        72 => {
            let (nn, eta) = (arg(1)?, arg(2)?);
            let fe = F {
                bits: fbits(eta.ty),
            };
            let eta = fe.get(eta.comps[0]);
            let d: f64 = (0..n).map(|k| f.get(at(nn, k)) * f.get(at(a0, k))).sum();
            let kk = 1.0 - eta * eta * (1.0 - d * d);
            for (k, o) in out.iter_mut().enumerate() {
                *o = if kk < 0.0 {
                    f.put(0.0)
                } else {
                    f.put(eta * f.get(at(a0, k)) - (eta * d + kk.sqrt()) * f.get(at(nn, k)))
                };
            }
        }
        73 => map1(out, &|v| {
            let x = v & mask(w);
            if x == 0 {
                mask(32)
            } else {
                u64::from(x.trailing_zeros())
            }
        }),
        74 => map1(out, &|v| {
            let x = sext(v, w);
            let m = if x < 0 { !x } else { x };
            if m == 0 {
                mask(32)
            } else {
                u64::from(63 - m.leading_zeros())
            }
        }),
        75 => map1(out, &|v| {
            let x = v & mask(w);
            if x == 0 {
                mask(32)
            } else {
                u64::from(63 - x.leading_zeros())
            }
        }),
        76..=78 => return Err(Glsl450Error::Unsupported { inst, name: nm }),
        _ => return Err(Glsl450Error::Unsupported { inst, name: nm }),
    }
    // Results narrower than 64 bits keep only their width (e.g. FindILsb's -1 in 32 bits).
    for (o, ty) in out.iter_mut().zip(out_tys) {
        if !ty.is_float() {
            *o &= mask(ty.bits());
        }
    }
    Ok(undefined)
}

/// Mantissa in [0.5, 1) and exponent with x = m * 2^e (0 and non-finite: m = x, e = 0).
fn frexp(x: f64) -> (f64, i64) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let mut e = x.abs().log2().floor() as i64 + 1;
    let mut m = x / 2f64.powi(e as i32);
    // Correct rounding at the edges of log2.
    if m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    } else if m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    (m, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: ScalarTy = ScalarTy::F32;

    fn f(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    fn run(inst: u32, out_tys: &[ScalarTy], args: &[(ScalarTy, &[u64])]) -> (Vec<u64>, bool) {
        let a: Vec<Arg<'_>> = args
            .iter()
            .map(|(ty, c)| Arg { ty: *ty, comps: c })
            .collect();
        let mut out = vec![0; out_tys.len()];
        let u = eval(inst, out_tys, &a, &mut out).unwrap();
        (out, u)
    }

    #[test]
    fn rounding_and_fract() {
        assert_eq!(run(1, &[F32], &[(F32, &[f(2.5)])]).0, vec![f(3.0)]);
        assert_eq!(run(2, &[F32], &[(F32, &[f(2.5)])]).0, vec![f(2.0)]);
        assert_eq!(run(10, &[F32], &[(F32, &[f(-1.25)])]).0, vec![f(0.75)]);
        assert_eq!(
            run(8, &[F32; 2], &[(F32, &[f(-0.5), f(1.5)])]).0,
            vec![f(-1.0), f(1.0)]
        );
    }

    #[test]
    fn integer_min_max_clamp_respect_signedness_and_width() {
        let i8t = ScalarTy::Int {
            bits: 8,
            signed: true,
        };
        assert_eq!(
            run(39, &[i8t], &[(i8t, &[0xff]), (i8t, &[1])]).0,
            vec![0xff],
            "SMin(-1, 1) = -1"
        );
        assert_eq!(
            run(38, &[i8t], &[(i8t, &[0xff]), (i8t, &[1])]).0,
            vec![1],
            "UMin(255, 1) = 1"
        );
        let (v, u) = run(
            45,
            &[ScalarTy::I32],
            &[
                (ScalarTy::I32, &[5]),
                (ScalarTy::I32, &[7]),
                (ScalarTy::I32, &[3]),
            ],
        );
        assert!(u, "SClamp with min > max is undefined");
        assert_eq!(v.len(), 1);
        assert_eq!(
            run(
                44,
                &[ScalarTy::U32],
                &[
                    (ScalarTy::U32, &[9]),
                    (ScalarTy::U32, &[2]),
                    (ScalarTy::U32, &[4])
                ]
            )
            .0,
            vec![4]
        );
    }

    #[test]
    fn fma_is_fused_in_f32() {
        let (a, b, c) = (1.0f32 + f32::EPSILON, 1.0f32 - f32::EPSILON, -1.0f32);
        let want = a.mul_add(b, c);
        assert_ne!(want, a * b + c);
        assert_eq!(
            run(
                50,
                &[F32],
                &[(F32, &[f(a)]), (F32, &[f(b)]), (F32, &[f(c)])]
            )
            .0,
            vec![f(want)]
        );
    }

    #[test]
    fn packing() {
        assert_eq!(
            run(58, &[ScalarTy::U32], &[(F32, &[f(1.0), f(-2.0)])]).0,
            vec![0xC000_3C00]
        );
        assert_eq!(
            run(
                55,
                &[ScalarTy::U32],
                &[(F32, &[f(0.0), f(1.0), f(0.5), f(2.0)])]
            )
            .0,
            vec![0xff80_ff00]
        );
        assert_eq!(
            run(56, &[ScalarTy::U32], &[(F32, &[f(-1.0), f(0.5)])]).0,
            vec![0x4000_8001]
        );
        assert_eq!(
            run(62, &[F32, F32], &[(ScalarTy::U32, &[0xC000_3C00])]).0,
            vec![f(1.0), f(-2.0)]
        );
        assert_eq!(
            run(64, &[F32; 4], &[(ScalarTy::U32, &[0x0000_ff00])]).0,
            vec![f(0.0), f(1.0), f(0.0), f(0.0)]
        );
    }

    #[test]
    fn geometry() {
        let v = [f(3.0), f(4.0)];
        assert_eq!(run(66, &[F32], &[(F32, &v)]).0, vec![f(5.0)]);
        assert_eq!(run(69, &[F32; 2], &[(F32, &v)]).0, vec![f(0.6), f(0.8)]);
        let x = [f(1.0), f(0.0), f(0.0)];
        let y = [f(0.0), f(1.0), f(0.0)];
        assert_eq!(
            run(68, &[F32; 3], &[(F32, &x), (F32, &y)]).0,
            vec![f(0.0), f(0.0), f(1.0)]
        );
        let i = [f(1.0), f(-1.0)];
        let n = [f(0.0), f(1.0)];
        assert_eq!(
            run(71, &[F32; 2], &[(F32, &i), (F32, &n)]).0,
            vec![f(1.0), f(1.0)]
        );
    }

    #[test]
    fn matrices() {
        let m = [2.0f32, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 4.0].map(f);
        assert_eq!(run(33, &[F32], &[(F32, &m)]).0, vec![f(24.0)]);
        let inv = run(34, &[F32; 9], &[(F32, &m)]).0;
        assert_eq!(inv[0], f(0.5));
        assert_eq!(inv[4], f(1.0 / 3.0));
        assert_eq!(f32::from_bits(inv[1] as u32), 0.0);
        let m4 = [
            1.0f32, 2.0, 0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0,
        ]
        .map(f);
        assert_eq!(run(33, &[F32], &[(F32, &m4)]).0, vec![f(-4.0)]);
    }

    #[test]
    fn bit_searches() {
        let u = ScalarTy::U32;
        assert_eq!(run(73, &[u], &[(u, &[0])]).0, vec![0xffff_ffff]);
        assert_eq!(run(73, &[u], &[(u, &[8])]).0, vec![3]);
        assert_eq!(
            run(74, &[ScalarTy::I32], &[(ScalarTy::I32, &[0xffff_ffff])]).0,
            vec![0xffff_ffff]
        );
        assert_eq!(
            run(74, &[ScalarTy::I32], &[(ScalarTy::I32, &[0xffff_fff0])]).0,
            vec![3]
        );
        assert_eq!(run(75, &[u], &[(u, &[0x8000_0000])]).0, vec![31]);
    }

    #[test]
    fn struct_results_and_undefined_flags() {
        let (v, _) = run(52, &[F32, ScalarTy::I32], &[(F32, &[f(8.0)])]);
        assert_eq!(v, vec![f(0.5), 4]);
        let (v, _) = run(36, &[F32, F32], &[(F32, &[f(-2.75)])]);
        assert_eq!(v, vec![f(-0.75), f(-2.0)]);
        assert!(run(31, &[F32], &[(F32, &[f(-1.0)])]).1);
        assert!(run(26, &[F32], &[(F32, &[f(-2.0)]), (F32, &[f(0.5)])]).1);
        assert!(!run(26, &[F32], &[(F32, &[f(2.0)]), (F32, &[f(0.5)])]).1);
        let mut out = [0u64];
        let a = [Arg {
            ty: F32,
            comps: &[f(1.0)],
        }];
        assert!(matches!(
            eval(76, &[F32], &a, &mut out),
            Err(Glsl450Error::Unsupported { .. })
        ));
    }

    #[test]
    fn half_and_double_paths() {
        let h = ScalarTy::Float { bits: 16 };
        assert_eq!(
            run(31, &[h], &[(h, &[0x4400])]).0,
            vec![0x4000],
            "sqrt(4) = 2 in f16"
        );
        let d = ScalarTy::Float { bits: 64 };
        assert_eq!(
            run(31, &[d], &[(d, &[2f64.to_bits()])]).0,
            vec![2f64.sqrt().to_bits()]
        );
    }
}
