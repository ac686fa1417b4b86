//! Arithmetic in each float format, each operation rounded once in the format itself.
//!
//! With the default mode (round to nearest even, denormals kept) f32 and f64 use the host's
//! IEEE operations, and f16 and bf16 compute in f64 and round once: exact for f16 sums,
//! differences and products, and for the rest (bf16 sums, quotients) rounding the f64 result
//! again gives the correctly rounded answer because f64 has more than twice the precision plus
//! two bits (Figueroa's double-rounding bound).
//!
//! Any other mode (RoundingModeRTZ, DenormFlushToZero) goes through an exact software
//! implementation: integer significands in a `u128` (a sticky bit for what an alignment shifts
//! out), rounded once by [`round_pack`]. Every NaN result is the format's canonical quiet NaN,
//! so results do not depend on how the host propagates NaN payloads.

use super::{round_pack, to_f64, unpack, Format, Mode, Round, Unpacked};

/// A binary operation that rounds its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `x + y`.
    Add,
    /// `x - y`.
    Sub,
    /// `x * y`.
    Mul,
    /// `x / y`.
    Div,
}

#[inline]
fn host32(op: Op, x: f32, y: f32) -> f32 {
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
    }
}

#[inline]
fn host64(op: Op, x: f64, y: f64) -> f64 {
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
    }
}

/// An f32 result as bits, NaN canonical.
#[inline(always)]
pub fn bits32(r: f32) -> u64 {
    if r.is_nan() {
        Format::F32.quiet_nan()
    } else {
        u64::from(r.to_bits())
    }
}

/// An f64 result as bits, NaN canonical.
#[inline(always)]
pub fn bits64(r: f64) -> u64 {
    if r.is_nan() {
        Format::F64.quiet_nan()
    } else {
        r.to_bits()
    }
}

/// `a op b` in `fmt` under `mode`.
#[inline]
pub fn binary(op: Op, fmt: Format, a: u64, b: u64, mode: Mode) -> u64 {
    if mode == Mode::DEFAULT {
        nearest(op, fmt, a, b)
    } else {
        soft(op, fmt, a, b, mode)
    }
}

/// The default mode's `a op b`, on the host's floats.
#[inline]
pub fn nearest(op: Op, fmt: Format, a: u64, b: u64) -> u64 {
    match fmt {
        Format::F32 => bits32(host32(
            op,
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
        )),
        Format::F64 => bits64(host64(op, f64::from_bits(a), f64::from_bits(b))),
        Format::F16 | Format::BF16 => {
            let r = host64(op, to_f64(fmt, a), to_f64(fmt, b));
            super::result_from_f64(r, fmt, Round::Rte)
        }
    }
}

/// `a op b` in `fmt` under `mode`, exactly computed and rounded once (any mode).
pub fn soft(op: Op, fmt: Format, a: u64, b: u64, mode: Mode) -> u64 {
    let (a, b) = (mode.flush(fmt, a), mode.flush(fmt, b));
    let r = match op {
        Op::Add => add(fmt, a, b, mode.round),
        Op::Sub => add(fmt, a, b ^ fmt.sign_bit(), mode.round),
        Op::Mul => mul(fmt, a, b, mode.round),
        Op::Div => div(fmt, a, b, mode.round),
    };
    mode.flush(fmt, r)
}

/// `a * b + c` rounded once in `fmt` under `mode`.
pub fn fma(fmt: Format, a: u64, b: u64, c: u64, mode: Mode) -> u64 {
    let [a, b, c] = [a, b, c].map(|v| mode.flush(fmt, v));
    let (na, ua) = unpack(fmt, a);
    let (nb, ub) = unpack(fmt, b);
    let (nc, uc) = unpack(fmt, c);
    let np = na != nb;
    let sign = |neg: bool| if neg { fmt.sign_bit() } else { 0 };
    let r = match (ua, ub, uc) {
        (Unpacked::Nan(_), _, _) | (_, Unpacked::Nan(_), _) | (_, _, Unpacked::Nan(_)) => {
            fmt.quiet_nan()
        }
        (Unpacked::Inf, Unpacked::Zero, _) | (Unpacked::Zero, Unpacked::Inf, _) => fmt.quiet_nan(),
        (Unpacked::Inf, _, _) | (_, Unpacked::Inf, _) => {
            if uc == Unpacked::Inf && nc != np {
                fmt.quiet_nan()
            } else {
                sign(np) | fmt.inf()
            }
        }
        (_, _, Unpacked::Inf) => c,
        (Unpacked::Zero, _, _) | (_, Unpacked::Zero, _) => match uc {
            // An exact zero sum is +0 unless both terms are -0 (no round-down mode here).
            Unpacked::Zero => sign(np && nc),
            _ => c,
        },
        (Unpacked::Finite { mant: ma, exp: ea }, Unpacked::Finite { mant: mb, exp: eb }, _) => {
            let p = u128::from(ma) * u128::from(mb);
            match uc {
                Unpacked::Finite { mant: mc, exp: ec } => {
                    sum(fmt, (np, p, ea + eb), (nc, u128::from(mc), ec), mode.round)
                }
                _ => round_pack(fmt, np, p, ea + eb, false, mode.round),
            }
        }
    };
    mode.flush(fmt, r)
}

fn add(fmt: Format, a: u64, b: u64, round: Round) -> u64 {
    let (na, ua) = unpack(fmt, a);
    let (nb, ub) = unpack(fmt, b);
    match (ua, ub) {
        (Unpacked::Nan(_), _) | (_, Unpacked::Nan(_)) => fmt.quiet_nan(),
        (Unpacked::Inf, Unpacked::Inf) if na != nb => fmt.quiet_nan(),
        (Unpacked::Inf, _) => a,
        (_, Unpacked::Inf) => b,
        (Unpacked::Zero, Unpacked::Zero) => {
            if na && nb {
                fmt.sign_bit()
            } else {
                0
            }
        }
        (Unpacked::Zero, _) => b,
        (_, Unpacked::Zero) => a,
        (Unpacked::Finite { mant: ma, exp: ea }, Unpacked::Finite { mant: mb, exp: eb }) => sum(
            fmt,
            (na, u128::from(ma), ea),
            (nb, u128::from(mb), eb),
            round,
        ),
    }
}

/// `m * 2^e` with the leading bit of `m` (nonzero, below 2^126) moved to bit 125.
#[inline]
fn norm(m: u128, e: i32) -> (u128, i32) {
    let s = m.leading_zeros() as i32 - 2;
    (m << s, e - s)
}

/// The exact sum of two nonzero terms `±m * 2^e` (each m below 2^106), rounded once.
fn sum(fmt: Format, x: (bool, u128, i32), y: (bool, u128, i32), round: Round) -> u64 {
    let (mx, ex) = norm(x.1, x.2);
    let (my, ey) = norm(y.1, y.2);
    // Larger magnitude first.
    let ((nx, mx, ex), (ny, my, ey)) = if (ex, mx) >= (ey, my) {
        ((x.0, mx, ex), (y.0, my, ey))
    } else {
        ((y.0, my, ey), (x.0, mx, ex))
    };
    let d = (ex - ey) as u32;
    // y aligned to x's last bit; what falls off only matters as a sticky bit. The significands
    // have at least 19 zero bits at the bottom, so nothing falls off unless d > 19.
    let (ys, sticky) = if d >= 127 {
        (0, true)
    } else {
        (my >> d, my & ((1u128 << d) - 1) != 0)
    };
    if nx == ny {
        return round_pack(fmt, nx, mx + ys, ex, sticky, round);
    }
    let m = mx - ys;
    if sticky {
        // x - (ys + s) = (m - 1) + (1 - s), and 1 - s is again strictly between 0 and 1.
        // m > 2^124 here, so the significand keeps its precision.
        round_pack(fmt, nx, m - 1, ex, true, round)
    } else if m == 0 {
        0 // x - x is +0 when not rounding downward
    } else {
        round_pack(fmt, nx, m, ex, false, round)
    }
}

fn mul(fmt: Format, a: u64, b: u64, round: Round) -> u64 {
    let (na, ua) = unpack(fmt, a);
    let (nb, ub) = unpack(fmt, b);
    let sign = if na != nb { fmt.sign_bit() } else { 0 };
    match (ua, ub) {
        (Unpacked::Nan(_), _) | (_, Unpacked::Nan(_)) => fmt.quiet_nan(),
        (Unpacked::Inf, Unpacked::Zero) | (Unpacked::Zero, Unpacked::Inf) => fmt.quiet_nan(),
        (Unpacked::Inf, _) | (_, Unpacked::Inf) => sign | fmt.inf(),
        (Unpacked::Zero, _) | (_, Unpacked::Zero) => sign,
        (Unpacked::Finite { mant: ma, exp: ea }, Unpacked::Finite { mant: mb, exp: eb }) => {
            round_pack(
                fmt,
                na != nb,
                u128::from(ma) * u128::from(mb),
                ea + eb,
                false,
                round,
            )
        }
    }
}

fn div(fmt: Format, a: u64, b: u64, round: Round) -> u64 {
    let (na, ua) = unpack(fmt, a);
    let (nb, ub) = unpack(fmt, b);
    let sign = if na != nb { fmt.sign_bit() } else { 0 };
    match (ua, ub) {
        (Unpacked::Nan(_), _) | (_, Unpacked::Nan(_)) => fmt.quiet_nan(),
        (Unpacked::Inf, Unpacked::Inf) | (Unpacked::Zero, Unpacked::Zero) => fmt.quiet_nan(),
        (Unpacked::Inf, _) | (_, Unpacked::Zero) => sign | fmt.inf(),
        (_, Unpacked::Inf) | (Unpacked::Zero, _) => sign,
        (Unpacked::Finite { mant: ma, exp: ea }, Unpacked::Finite { mant: mb, exp: eb }) => {
            // Both significands to 53 bits: the quotient of ma * 2^74 by mb then has 74 or 75
            // bits, and the remainder says whether anything is left below.
            let (sa, sb) = (ma.leading_zeros() - 11, mb.leading_zeros() - 11);
            let (ma, ea) = (u128::from(ma << sa), ea - sa as i32);
            let (mb, eb) = (u128::from(mb << sb), eb - sb as i32);
            let num = ma << 74;
            let (q, r) = (num / mb, num % mb);
            round_pack(fmt, na != nb, q, ea - eb - 74, r != 0, round)
        }
    }
}
