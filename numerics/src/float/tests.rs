//! `float` against an independent reference.
//!
//! The reference never rounds by bit manipulation: it holds exact values as `m * 2^e` with a
//! `u128` significand, finds the target's neighbours of a value by binary search over the
//! target's bit patterns (comparing exactly), and picks between them by comparing the value
//! exactly with their midpoint. Arithmetic results come from the host's IEEE operations plus
//! an exact error term (TwoSum, or an fma remainder), which the software arithmetic in
//! `arith` does not use.

use super::arith::{self, Op};
use super::*;
use std::cmp::Ordering;

/// Release builds check many millions of inputs; debug builds a fraction of them.
const SCALE: usize = if cfg!(debug_assertions) { 1 } else { 40 };

/// xorshift64*: deterministic test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const ALL: [Format; 4] = [Format::F16, Format::BF16, Format::F32, Format::F64];

/// A nonnegative exact value `m * 2^e`.
#[derive(Clone, Copy, Debug)]
struct Ex {
    m: u128,
    e: i32,
}

fn cmp_ex(a: Ex, b: Ex) -> Ordering {
    match (a.m == 0, b.m == 0) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => {
            // Position just above the leading bit, then the significands aligned at bit 127.
            let (za, zb) = (a.m.leading_zeros(), b.m.leading_zeros());
            let (ta, tb) = (a.e + 128 - za as i32, b.e + 128 - zb as i32);
            ta.cmp(&tb).then((a.m << za).cmp(&(b.m << zb)))
        }
    }
}

/// Exact midpoint of two values whose exponents are close (neighbours in some format).
fn midpoint(a: Ex, b: Ex) -> Ex {
    let e = a.e.min(b.e);
    Ex {
        m: (a.m << (a.e - e)) + (b.m << (b.e - e)),
        e: e - 1,
    }
}

/// Field layout of a format, written out from its definition.
fn layout(fmt: Format) -> (u32, u32) {
    match fmt {
        Format::F16 => (5, 10),
        Format::BF16 => (8, 7),
        Format::F32 => (8, 23),
        Format::F64 => (11, 52),
    }
}

fn max_bits(fmt: Format) -> u64 {
    let (eb, p) = layout(fmt);
    (((1u64 << eb) - 1) << p) - 1
}

fn sign_of(fmt: Format) -> u64 {
    let (eb, p) = layout(fmt);
    1 << (eb + p)
}

/// The value of nonnegative finite bits.
fn value_of(fmt: Format, bits: u64) -> Ex {
    let (eb, p) = layout(fmt);
    let bias = (1i32 << (eb - 1)) - 1;
    let e = (bits >> p) as i32;
    let f = u128::from(bits & ((1 << p) - 1));
    if e == 0 {
        Ex {
            m: f,
            e: 1 - bias - p as i32,
        }
    } else {
        Ex {
            m: f + (1 << p),
            e: e - bias - p as i32,
        }
    }
}

/// The correctly rounded bits of `±x` in `fmt`. `resid` is the sign (relative to |x|) of a
/// remainder beyond x smaller than anything that could move x past a neighbour or midpoint.
fn reference(fmt: Format, neg: bool, x: Ex, resid: i8, round: Round) -> u64 {
    let sign = if neg { sign_of(fmt) } else { 0 };
    if x.m == 0 {
        assert_eq!(resid, 0);
        return sign;
    }
    let max = max_bits(fmt);
    // The largest bits whose value is <= x.
    let lo = if cmp_ex(value_of(fmt, max), x) != Ordering::Greater {
        max
    } else {
        let (mut lo, mut hi) = (0, max);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if cmp_ex(value_of(fmt, mid), x) == Ordering::Greater {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        lo
    };
    let vlo = value_of(fmt, lo);
    let exact = cmp_ex(vlo, x) == Ordering::Equal;
    let bits = match round {
        Round::Rtz if exact && resid < 0 => lo - 1,
        Round::Rtz => lo,
        Round::Rte if exact => lo,
        Round::Rte => {
            let (eb, _) = layout(fmt);
            // Past the largest finite number the next value would be 2^(emax + 1).
            let vhi = if lo == max {
                Ex {
                    m: 1,
                    e: 1 << (eb - 1),
                }
            } else {
                value_of(fmt, lo + 1)
            };
            match cmp_ex(x, midpoint(vlo, vhi)).then(resid.cmp(&0)) {
                Ordering::Less => lo,
                Ordering::Greater => lo + 1,
                Ordering::Equal => lo + (lo & 1),
            }
        }
    };
    sign | bits
}

/// Reference conversion of raw bits of `from` (NaNs: sign, quiet bit, high payload bits).
fn reference_convert(from: Format, to: Format, v: u64, round: Round) -> u64 {
    let (eb, p) = layout(from);
    let (teb, tp) = layout(to);
    let neg = v & sign_of(from) != 0;
    let mag = v & (sign_of(from) - 1);
    let inf = ((1u64 << eb) - 1) << p;
    let tinf = ((1u64 << teb) - 1) << tp;
    let tsign = if neg { sign_of(to) } else { 0 };
    if mag > inf {
        let f = mag & ((1 << p) - 1);
        let payload = if tp >= p {
            f << (tp - p)
        } else {
            f >> (p - tp)
        };
        return tsign | tinf | 1 << (tp - 1) | payload;
    }
    if mag == inf {
        return tsign | tinf;
    }
    reference(to, neg, value_of(from, mag), 0, round)
}

/// Raw bits of `fmt`: uniform, near its range, its neighbours' midpoints and next to them,
/// subnormals, the overflow boundary, NaNs and zeros.
fn sample(rng: &mut Rng, fmt: Format, near: Format) -> u64 {
    let (eb, p) = layout(fmt);
    let sign = if rng.next() & 1 == 1 { sign_of(fmt) } else { 0 };
    let width_mask = (sign_of(fmt) << 1).wrapping_sub(1);
    let from_f64 = |x: f64| -> u64 {
        // Only exact f64 values are built below, and `fmt` is at least as wide as `near`.
        reference_convert(Format::F64, fmt, x.to_bits(), Round::Rte)
    };
    let (neb, np) = layout(near);
    let nbias = (1i32 << (neb - 1)) - 1;
    let ulp_step = |x: u64, d: i64| x.wrapping_add(d as u64);
    match rng.below(10) {
        0 => rng.next() & width_mask,
        1 | 2 => {
            // A value whose exponent lies around `near`'s range, random significand.
            let e = rng.below(u64::from(np) + 2 * nbias as u64 + 8) as i32 - nbias - np as i32 - 4;
            let bias = (1i32 << (eb - 1)) - 1;
            let be = (e + bias).clamp(1, (1 << eb) - 2) as u64;
            sign | be << p | (rng.next() & ((1 << p) - 1))
        }
        3..=6 => {
            // Exactly between two neighbours in `near`, or an ulp of `fmt` either side.
            let n = rng.below(max_bits(near));
            let a = value_of(near, n);
            let b = value_of(near, n + 1);
            let m = midpoint(a, b);
            let x = m.m as f64 * 2f64.powi(m.e);
            let mid = from_f64(x) | sign;
            if fmt == near {
                return n | sign;
            }
            match rng.below(3) {
                0 => mid,
                1 => ulp_step(mid, 1),
                _ => ulp_step(mid, -1),
            }
        }
        7 => {
            // Around `near`'s smallest subnormal and largest finite number.
            let tiny = value_of(near, 1);
            let huge = value_of(near, max_bits(near));
            let pick = if rng.next() & 1 == 1 { tiny } else { huge };
            let scale = 2f64.powi(rng.below(3) as i32 - 1);
            let x = from_f64(pick.m as f64 * 2f64.powi(pick.e) * scale) | sign;
            ulp_step(x, rng.below(5) as i64 - 2) & width_mask
        }
        8 => {
            // Subnormals of `fmt` and of `near` alike.
            sign | (rng.next() & ((1 << p) - 1))
        }
        _ => match rng.below(4) {
            0 => sign,
            1 => sign | (((1u64 << eb) - 1) << p),
            // NaNs with a random payload, quiet or signalling.
            _ => sign | (((1u64 << eb) - 1) << p) | (rng.next() & ((1 << p) - 1)).max(1),
        },
    }
}

#[test]
fn every_f16_and_bf16_decodes_exactly_and_round_trips() {
    for fmt in [Format::F16, Format::BF16] {
        let (eb, p) = layout(fmt);
        for v in 0..=u16::MAX {
            let v = u64::from(v);
            let x = to_f64(fmt, v);
            // Independent decode: sign * 2^(e - bias) * (1 + f / 2^p), or subnormal.
            let (s, e, f) = (v >> 15, (v >> p) & ((1 << eb) - 1), v & ((1 << p) - 1));
            let bias = (1i32 << (eb - 1)) - 1;
            let mag = if e == (1 << eb) - 1 {
                if f == 0 {
                    f64::INFINITY
                } else {
                    f64::NAN
                }
            } else if e == 0 {
                f as f64 * 2f64.powi(1 - bias - p as i32)
            } else {
                (1.0 + f as f64 / f64::from(1u32 << p)) * 2f64.powi(e as i32 - bias)
            };
            let want = if s == 1 { -mag } else { mag };
            if want.is_nan() {
                assert!(
                    x.is_nan() && x.is_sign_negative() == (s == 1),
                    "{fmt:?} {v:#x}"
                );
            } else {
                assert_eq!(x.to_bits(), want.to_bits(), "{fmt:?} {v:#x}");
            }
            // Round trips through every wider format; NaNs come back quiet.
            let quiet = if fmt.is_nan(v) { v | 1 << (p - 1) } else { v };
            for wide in [Format::F32, Format::F64] {
                let w = convert(fmt, wide, v, Round::Rte);
                assert_eq!(
                    w,
                    reference_convert(fmt, wide, v, Round::Rte),
                    "{fmt:?} {v:#x}"
                );
                for round in [Round::Rte, Round::Rtz] {
                    assert_eq!(convert(wide, fmt, w, round), quiet, "{fmt:?} {v:#x}");
                }
            }
            assert_eq!(from_f64(x, fmt, Round::Rte), quiet, "{fmt:?} {v:#x}");
            // To the other 16-bit format, against the reference.
            let other = if fmt == Format::F16 {
                Format::BF16
            } else {
                Format::F16
            };
            for round in [Round::Rte, Round::Rtz] {
                assert_eq!(
                    convert(fmt, other, v, round),
                    reference_convert(fmt, other, v, round),
                    "{fmt:?} -> {other:?} {v:#x} {round:?}"
                );
            }
        }
    }
}

#[test]
fn narrowing_conversions_round_once_as_the_reference_does() {
    let pairs = [
        (Format::F64, Format::F32, 4_000_000),
        (Format::F64, Format::F16, 4_000_000),
        (Format::F64, Format::BF16, 4_000_000),
        (Format::F32, Format::F16, 5_000_000),
        (Format::F32, Format::BF16, 5_000_000),
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut total = 0;
    for (from, to, n) in pairs {
        for k in 0..n * SCALE / 40 {
            let v = sample(&mut rng, from, to);
            let round = if k % 2 == 0 { Round::Rte } else { Round::Rtz };
            let got = convert(from, to, v, round);
            let want = reference_convert(from, to, v, round);
            assert_eq!(got, want, "{from:?} {v:#x} -> {to:?} {round:?}");
            total += 1;
        }
    }
    assert!(total >= 22_000_000 * SCALE / 40, "{total}");
}

#[test]
fn reported_double_rounding_cases() {
    // Low mantissa bits decide: 0x3F808001 is just above the bf16 midpoint 0x3F808000.
    assert_eq!(
        convert(Format::F32, Format::BF16, 0x3F80_8001, Round::Rte),
        0x3F81
    );
    assert_eq!(
        convert(Format::F32, Format::BF16, 0x3F80_8000, Round::Rte),
        0x3F80
    );
    assert_eq!(
        convert(Format::F32, Format::BF16, 0x3F80_8001, Round::Rtz),
        0x3F80
    );
    // 0x3F801001 is just above the f16 midpoint between 0x3C00 and 0x3C01.
    assert_eq!(
        convert(Format::F32, Format::F16, 0x3F80_1001, Round::Rte),
        0x3C01
    );
    assert_eq!(
        convert(Format::F32, Format::F16, 0x3F80_1000, Round::Rte),
        0x3C00
    );
    let x = f64::from(f32::from_bits(0x3F80_1001));
    assert_eq!(from_f64(x, Format::F16, Round::Rte), 0x3C01);
    // Overflow: the f16 midpoint past 65504 goes to infinity, below it to 65504.
    assert_eq!(from_f64(65520.0, Format::F16, Round::Rte), 0x7C00);
    assert_eq!(from_f64(65519.99, Format::F16, Round::Rte), 0x7BFF);
    assert_eq!(from_f64(1e300, Format::F16, Round::Rtz), 0x7BFF);
    // Half the smallest subnormal ties to zero; a hair more rounds up.
    assert_eq!(from_f64(2f64.powi(-25), Format::F16, Round::Rte), 0);
    assert_eq!(
        from_f64(2f64.powi(-25) * 1.000_001, Format::F16, Round::Rte),
        1
    );
    assert_eq!(from_f64(-0.0, Format::BF16, Round::Rte), 0x8000);
}

#[test]
fn integers_round_once_to_every_format() {
    use crate::alu::conv;
    use crate::alu::ConvOp;
    let mut rng = Rng(77);
    let widths = [8u8, 16, 32, 64];
    let mut total = 0;
    for k in 0..2_000_000 * SCALE / 40 {
        let to = ALL[k % 4];
        let bits = widths[(k / 4) % 4];
        let signed = k % 3 == 0;
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        let raw = match rng.below(4) {
            0 => rng.next(),
            // Halfway between two neighbours in `to`, and one either side.
            1 if bits == 64 => {
                let (_, p) = layout(to);
                let shift = rng.below(if to == Format::F16 {
                    6
                } else {
                    62 - u64::from(p)
                }) as u32;
                let base = (rng.next() >> 12 | 1 << 51) >> (51 - p.min(51));
                let mid = (base << 1 | 1) << shift;
                mid.wrapping_add(rng.below(3)).wrapping_sub(1)
            }
            // Above 2^53, where f64 itself rounds.
            2 => rng.next() | 1 << 60,
            // Any magnitude up to the width.
            _ => {
                let w = rng.below(u64::from(bits)) + 1;
                rng.next() >> (64 - w)
            }
        } & mask;
        let ty = ScalarTy::Int { bits, signed };
        let fty = match to {
            Format::BF16 => ScalarTy::BFloat16,
            f => ScalarTy::Float {
                bits: f.bits() as u8,
            },
        };
        let v = if signed {
            (raw << (64 - bits)) as i64 >> (64 - bits)
        } else {
            raw as i64
        };
        let (neg, mag) = if signed {
            (v < 0, v.unsigned_abs())
        } else {
            (false, raw)
        };
        let want = reference(
            to,
            neg,
            Ex {
                m: u128::from(mag),
                e: 0,
            },
            0,
            Round::Rte,
        );
        let op = if signed { ConvOp::SToF } else { ConvOp::UToF };
        assert_eq!(conv(op, ty, fty, raw).0, want, "{ty:?} {raw:#x} -> {to:?}");
        let rtz = reference(
            to,
            neg,
            Ex {
                m: u128::from(mag),
                e: 0,
            },
            0,
            Round::Rtz,
        );
        assert_eq!(
            from_int(to, neg, mag, Round::Rtz),
            rtz,
            "{raw:#x} -> {to:?} rtz"
        );
        total += 2;
    }
    assert!(total >= 4_000_000 * SCALE / 40);
    // 2^53 + 1 to f32 must not round through f64 first.
    let v = (1u64 << 53) + 1 + (1 << 29);
    let want = reference(
        Format::F32,
        false,
        Ex {
            m: u128::from(v),
            e: 0,
        },
        0,
        Round::Rte,
    );
    assert_eq!(from_u64(v, Format::F32, Round::Rte), want);
}

/// The exact result of `a op b` as an f64 plus the sign of what lies beyond it, for operands
/// of `fmt` (f64 operands: only where no step underflows or overflows).
fn host_exact(op: Op, fmt: Format, a: u64, b: u64) -> Option<(f64, i8)> {
    let (x, y) = (to_f64(fmt, a), to_f64(fmt, b));
    let sgn = |v: f64| {
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    };
    let y = if op == Op::Sub { -y } else { y };
    let (r, err) = match op {
        Op::Add | Op::Sub => {
            // TwoSum: r + err is exactly x + y.
            let r = x + y;
            let bb = r - x;
            (r, (x - (r - bb)) + (y - bb))
        }
        Op::Mul => {
            let r = x * y;
            (r, libm::fma(x, y, -r))
        }
        Op::Div => {
            let r = x / y;
            // x - r*y, exact; the quotient's remainder has that sign times y's.
            (r, libm::fma(-r, y, x) * y.signum())
        }
    };
    if !r.is_finite() || !err.is_finite() {
        return None;
    }
    // Error terms are exact only away from the subnormals (f64 operands only get near them).
    let small = |v: f64| v != 0.0 && v.abs() < 2f64.powi(-900);
    if small(r) || small(x) || small(y) {
        return None;
    }
    Some((r, sgn(err) * if r < 0.0 { -1 } else { 1 }))
}

fn reference_op(op: Op, fmt: Format, a: u64, b: u64, mode: Mode) -> Option<u64> {
    let a = mode.flush(fmt, a);
    let b = mode.flush(fmt, b);
    let (x, y) = (to_f64(fmt, a), to_f64(fmt, b));
    if x.is_nan() || y.is_nan() {
        return Some(fmt.quiet_nan());
    }
    let host = match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
    };
    if host.is_nan() {
        return Some(fmt.quiet_nan());
    }
    if !x.is_finite() || !y.is_finite() || host == 0.0 || (op == Op::Div && y == 0.0) {
        // Infinities, exact zeros and divisions by zero: exact, in f64 as in `fmt`.
        if fmt == Format::F64 || host.is_infinite() || host == 0.0 {
            let r = reference_convert(Format::F64, fmt, host.to_bits(), mode.round);
            return Some(mode.flush(fmt, r));
        }
    }
    let (r, resid) = host_exact(op, fmt, a, b)?;
    let neg = r.is_sign_negative();
    let bits = r.to_bits() & !(1 << 63);
    let out = if fmt == Format::F64 {
        // r is already the nearest; toward zero steps back when the rest points inward.
        let mag = match mode.round {
            Round::Rtz if resid < 0 => bits - 1,
            _ => bits,
        };
        (if neg { 1 << 63 } else { 0 }) | mag
    } else {
        reference(fmt, neg, value_of(Format::F64, bits), resid, mode.round)
    };
    Some(mode.flush(fmt, out))
}

/// Operand pairs: random bits, close exponents, near-cancellation, subnormals.
fn operands(rng: &mut Rng, fmt: Format) -> (u64, u64) {
    let a = sample(rng, fmt, fmt);
    let (eb, p) = layout(fmt);
    let b = match rng.below(4) {
        0 => sample(rng, fmt, fmt),
        1 => a ^ sign_of(fmt) ^ (rng.below(1 << 4)),
        2 => {
            let shift = rng.below(u64::from(p) + 4);
            let e = ((a >> p) & ((1 << eb) - 1)).saturating_sub(shift).max(1);
            (a & sign_of(fmt)) ^ (e << p) ^ (rng.next() & ((1 << p) - 1))
        }
        _ => rng.next() & ((1 << p) - 1),
    };
    (a, b)
}

#[test]
fn arithmetic_rounds_once_in_every_mode() {
    let mut rng = Rng(4242);
    let modes = [
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
    let (mut checked, n) = (0, 1_500_000 * SCALE / 40);
    for k in 0..n {
        let fmt = ALL[k % 4];
        let op = [Op::Add, Op::Sub, Op::Mul, Op::Div][(k / 4) % 4];
        let mode = modes[(k / 16) % 4];
        let (a, b) = operands(&mut rng, fmt);
        let got = arith::binary(op, fmt, a, b, mode);
        let soft = arith::soft(op, fmt, a, b, mode);
        assert_eq!(
            got, soft,
            "fast and soft paths: {fmt:?} {op:?} {a:#x} {b:#x} {mode:?}"
        );
        if let Some(want) = reference_op(op, fmt, a, b, mode) {
            assert_eq!(got, want, "{fmt:?} {op:?} {a:#x} {b:#x} {mode:?}");
            checked += 1;
        }
    }
    assert!(checked > n * 9 / 10, "{checked} of {n}");
}

#[test]
fn round_toward_zero_at_the_boundaries() {
    let rtz = Mode {
        round: Round::Rtz,
        ftz: false,
    };
    let f = |x: f32| u64::from(x.to_bits());
    // 1 + 2^-24 (halfway) and 1 + 2^-24 + 2^-47 (just above) truncate to 1.
    let add = |a, b| arith::binary(Op::Add, Format::F32, f(a), f(b), rtz);
    assert_eq!(add(1.0, 2f32.powi(-24)), f(1.0));
    assert_eq!(add(1.0, 2f32.powi(-24) + 2f32.powi(-47)), f(1.0));
    // 1 - 2^-60 is just below 1: toward zero gives the largest float below 1.
    assert_eq!(add(1.0, -(2f32.powi(-60))), f(1.0) - 1);
    assert_eq!(add(-1.0, 2f32.powi(-60)), f(-1.0) - 1);
    // Overflow stays finite.
    assert_eq!(add(f32::MAX, f32::MAX), f(f32::MAX));
    let mul = |a, b| arith::binary(Op::Mul, Format::F32, f(a), f(b), rtz);
    assert_eq!(mul(-f32::MAX, 2.0), f(-f32::MAX));
    // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: the tail is cut.
    let one_ulp = f32::from_bits(0x3F80_0001);
    assert_eq!(mul(one_ulp, one_ulp), 0x3F80_0002);
    // 1 / 3 truncated, and a subnormal quotient.
    let div = |a, b| arith::binary(Op::Div, Format::F32, f(a), f(b), rtz);
    assert_eq!(div(1.0, 3.0), 0x3EAA_AAAA);
    assert_eq!(div(f32::from_bits(3), 2.0), 1);
    // Flushing: a denormal operand is zero, a denormal result is zero of its sign.
    let ftz = Mode {
        round: Round::Rte,
        ftz: true,
    };
    let tiny = f32::from_bits(1);
    assert_eq!(
        arith::binary(Op::Add, Format::F32, f(tiny), f(tiny), ftz),
        0
    );
    assert_eq!(
        arith::binary(
            Op::Mul,
            Format::F32,
            f(-2f32.powi(-70)),
            f(2f32.powi(-70)),
            ftz
        ),
        0x8000_0000
    );
    // f16: 2048 + 1 is halfway; toward zero and to even both give 2048, 2048 + 3 differs.
    let h = |x: f64| from_f64(x, Format::F16, Round::Rte);
    let hadd = |a, b, m| arith::binary(Op::Add, Format::F16, h(a), h(b), m);
    assert_eq!(hadd(2048.0, 3.0, rtz), h(2050.0));
    assert_eq!(hadd(2048.0, 3.0, Mode::DEFAULT), h(2052.0));
    assert_eq!(hadd(65504.0, 65504.0, rtz), 0x7BFF);
}

#[test]
fn fused_multiply_add_rounds_once() {
    let mut rng = Rng(99);
    for k in 0..300_000 * SCALE / 40 {
        let fmt = [Format::F16, Format::F32, Format::F64][k % 3];
        let (a, b) = operands(&mut rng, fmt);
        let c = sample(&mut rng, fmt, fmt);
        let got = arith::fma(fmt, a, b, c, Mode::DEFAULT);
        let want = match fmt {
            Format::F32 => {
                let x = |v: u64| f32::from_bits(v as u32);
                arith::bits32(libm::fmaf(x(a), x(b), x(c)))
            }
            Format::F64 => arith::bits64(libm::fma(
                f64::from_bits(a),
                f64::from_bits(b),
                f64::from_bits(c),
            )),
            _ => {
                // f16 products are exact in f64; TwoSum gives the sum's rest.
                let p = to_f64(fmt, a) * to_f64(fmt, b);
                let cc = to_f64(fmt, c);
                let s = p + cc;
                if s.is_nan() {
                    fmt.quiet_nan()
                } else if !s.is_finite() || s == 0.0 || !p.is_finite() {
                    result_from_f64(s, fmt, Round::Rte)
                } else {
                    let bb = s - p;
                    let err = (p - (s - bb)) + (cc - bb);
                    let resid = if err == 0.0 {
                        0
                    } else if (err > 0.0) == (s > 0.0) {
                        1
                    } else {
                        -1
                    };
                    let bits = s.to_bits() & !(1 << 63);
                    reference(fmt, s < 0.0, value_of(Format::F64, bits), resid, Round::Rte)
                }
            }
        };
        assert_eq!(got, want, "{fmt:?} fma({a:#x}, {b:#x}, {c:#x})");
    }
}

#[test]
fn decimal_text_rounds_once() {
    use crate::value::parse_float;
    let f16 = ScalarTy::Float { bits: 16 };
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even, and a digit either way
    // decides (the f64 parse alone would round both to the midpoint).
    assert_eq!(parse_float(f16, "1.00048828125"), Some(0x3C00));
    assert_eq!(parse_float(f16, "1.000488281250000000000001"), Some(0x3C01));
    assert_eq!(parse_float(f16, "1.000488281249999999999999"), Some(0x3C00));
    assert_eq!(
        parse_float(f16, "-1.000488281250000000000001e0"),
        Some(0xBC01)
    );
    assert_eq!(
        parse_float(f16, "0.0001000488281250000000000001e4"),
        Some(0x3C01)
    );
    // 1 + 3 * 2^-11 ties up to even.
    assert_eq!(parse_float(f16, "1.00146484375"), Some(0x3C02));
    assert_eq!(parse_float(f16, "65520"), Some(0x7C00));
    assert_eq!(parse_float(f16, "65519.9999999999999999"), Some(0x7BFF));
    assert_eq!(parse_float(ScalarTy::BFloat16, "1.00390625"), Some(0x3F80));
    assert_eq!(
        parse_float(ScalarTy::BFloat16, "1.00390625000000000001"),
        Some(0x3F81)
    );
    assert_eq!(
        parse_float(ScalarTy::F32, "0.1"),
        Some(u64::from(0.1f32.to_bits()))
    );
    assert_eq!(parse_float(f16, "x"), None);
    assert_eq!(parse_float(ScalarTy::I32, "1"), None);
    // Every f16 midpoint, written exactly and nudged by one more digit.
    let mut rng = Rng(5);
    for _ in 0..2000 {
        let n = rng.below(0x7BFF);
        let m = midpoint(value_of(Format::F16, n), value_of(Format::F16, n + 1));
        let x = m.m as f64 * 2f64.powi(m.e);
        // Exact: f16 midpoints have at most 25 binary fraction digits.
        let text = format!("{x:.45}");
        assert_eq!(parse_float(f16, &text), Some(n + (n & 1)), "{text}");
        assert_eq!(
            parse_float(f16, &format!("{text}1")),
            Some(n + 1),
            "{text}1"
        );
        // 10^-45 below the midpoint: decrement the last digit, borrowing.
        let mut down = text.into_bytes();
        for d in down.iter_mut().rev().filter(|d| **d != b'.') {
            if *d == b'0' {
                *d = b'9';
            } else {
                *d -= 1;
                break;
            }
        }
        let down = String::from_utf8(down).unwrap();
        assert_eq!(parse_float(f16, &down), Some(n), "{down}");
    }
}
