//! `OpGroupNonUniform*` over exactly the lanes of the executing tangle.

use super::Mask;
use crate::alu;
use crate::float::{self, Format, Mode};
use crate::program::{BinOp, GroupOp, ReduceOp, SubgroupOp};
use crate::value::{mask as bitmask, sext, ScalarTy};

/// What an operation left undefined, by lane, for diagnostics.
#[derive(Default)]
pub struct Undefined {
    /// Lanes that read from a lane outside the tangle (or the subgroup).
    pub inactive_source: Mask,
    /// A cluster size that is not a power of two or too large.
    pub bad_cluster: Option<u64>,
    /// An operand the spec requires to be dynamically uniform was not.
    pub nonuniform: bool,
    /// Other undefined results (e.g. FindLSB of an empty ballot).
    pub other: Mask,
    /// Lanes of a partitioned operation whose Ballot leaves them out of their own partition.
    pub outside_partition: Mask,
    /// For permutations (shuffles, broadcasts, rotates): (lane, the lane it read).
    pub sources: Vec<(usize, usize)>,
    pub permutation: bool,
}

#[inline]
fn lanes(mask: Mask) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

/// The float format of a float reduction's type (IEEE of its width for a malformed module).
fn fmt_of(ty: ScalarTy) -> Format {
    Format::of(ty).unwrap_or_else(|| Format::ieee(ty.bits()))
}

pub fn identity(op: ReduceOp, ty: ScalarTy) -> u64 {
    let w = ty.bits();
    match op {
        ReduceOp::IAdd
        | ReduceOp::Or
        | ReduceOp::Xor
        | ReduceOp::LogicalOr
        | ReduceOp::LogicalXor
        | ReduceOp::UMax
        | ReduceOp::FAdd => 0,
        ReduceOp::IMul => 1,
        ReduceOp::FMul => float::from_f64(1.0, fmt_of(ty), float::Round::Rte),
        ReduceOp::LogicalAnd => 1,
        ReduceOp::And | ReduceOp::UMin => bitmask(w),
        ReduceOp::SMin => bitmask(w) >> 1,
        ReduceOp::SMax => (bitmask(w) >> 1) + 1,
        ReduceOp::FMin => fmt_of(ty).inf(),
        ReduceOp::FMax => fmt_of(ty).inf() | fmt_of(ty).sign_bit(),
    }
}

/// Where a reduction's accumulator starts: the identity, but -0 for a float sum, so that a sum
/// of -0 values stays -0 (+0 + -0 is +0; -0 + x is x for every x, +0 included).
fn start_of(op: ReduceOp, ty: ScalarTy) -> u64 {
    match op {
        ReduceOp::FAdd => fmt_of(ty).sign_bit(),
        _ => identity(op, ty),
    }
}

/// `vals` combined in order from [`start_of`]; the identity when there are none.
fn reduce(op: ReduceOp, ty: ScalarTy, mode: Mode, vals: impl Iterator<Item = u64>) -> u64 {
    let mut any = false;
    let acc = vals.fold(start_of(op, ty), |acc, v| {
        any = true;
        combine(op, ty, acc, v, mode)
    });
    if any {
        acc
    } else {
        identity(op, ty)
    }
}

/// FMin/FMax of a reduction: picks an operand (a NaN loses to a number, equal values keep `a`).
fn pick(min: bool, ty: ScalarTy, a: u64, b: u64, mode: Mode) -> u64 {
    let f = fmt_of(ty);
    let (a, b) = (mode.flush(f, a), mode.flush(f, b));
    let (x, y) = (float::to_f64(f, a), float::to_f64(f, b));
    let take_b = x.is_nan() || (!y.is_nan() && if min { y < x } else { y > x });
    if take_b {
        b
    } else {
        a
    }
}

/// One step of a reduction or scan; float additions and products round (and flush) as `mode`
/// says for the type's width.
#[inline(always)]
pub fn combine(op: ReduceOp, ty: ScalarTy, a: u64, b: u64, mode: Mode) -> u64 {
    let w = ty.bits();
    match op {
        ReduceOp::IAdd => alu::bin(BinOp::IAdd, ty, a, b).0,
        ReduceOp::FAdd => alu::bin_in(BinOp::FAdd, ty, a, b, mode).0,
        ReduceOp::IMul => alu::bin(BinOp::IMul, ty, a, b).0,
        ReduceOp::FMul => alu::bin_in(BinOp::FMul, ty, a, b, mode).0,
        ReduceOp::SMin => {
            if sext(a, w) <= sext(b, w) {
                a
            } else {
                b
            }
        }
        ReduceOp::SMax => {
            if sext(a, w) >= sext(b, w) {
                a
            } else {
                b
            }
        }
        ReduceOp::UMin => a.min(b),
        ReduceOp::UMax => a.max(b),
        ReduceOp::FMin => pick(true, ty, a, b, mode),
        ReduceOp::FMax => pick(false, ty, a, b, mode),
        ReduceOp::And | ReduceOp::LogicalAnd => a & b,
        ReduceOp::Or | ReduceOp::LogicalOr => a | b,
        ReduceOp::Xor | ReduceOp::LogicalXor => a ^ b,
    }
}

/// Execute one subgroup operation. `size` is the subgroup size, `tangle` the executing lanes.
#[expect(
    clippy::too_many_arguments,
    reason = "register file plus the operation's operands"
)]
#[expect(clippy::too_many_lines, reason = "one arm per operation")]
pub fn exec(
    op: &SubgroupOp,
    ty: ScalarTy,
    n: u32,
    dst: u32,
    a: u32,
    regs: &mut [u64],
    s: usize,
    tangle: Mask,
    mode: Mode,
) -> Undefined {
    let mut u = Undefined::default();
    let r = |slot: u32, l: usize| slot as usize * s + l;
    let first = tangle.trailing_zeros() as usize;
    // An operand that must be dynamically uniform: read it from the first lane, note divergence.
    let uniform = |regs: &[u64], slot: u32, u: &mut Undefined| -> u64 {
        let v = regs[r(slot, first)];
        if lanes(tangle).any(|l| regs[r(slot, l)] != v) {
            u.nonuniform = true;
        }
        v
    };
    // Permutations: read every source first, then write.
    let permute =
        |regs: &mut [u64], src_of: &dyn Fn(&[u64], usize) -> Option<usize>, u: &mut Undefined| {
            let mut vals: Vec<(usize, u32, u64)> =
                Vec::with_capacity(tangle.count_ones() as usize * n as usize);
            u.permutation = true;
            for l in lanes(tangle) {
                let src = src_of(regs, l);
                match src {
                    Some(sl) if sl < s => u.sources.push((l, sl)),
                    None => u.sources.push((l, l)),
                    Some(_) => {}
                }
                for c in 0..n {
                    let v = match src {
                        Some(sl) if sl < s && tangle >> sl & 1 == 1 => regs[r(a + c, sl)],
                        // Source outside the subgroup: the invocation's own value (as the H100 does).
                        None => {
                            u.inactive_source |= 1 << l;
                            regs[r(a + c, l)]
                        }
                        // Source lane not in the tangle: undefined, read as 0 (as the H100 does).
                        Some(_) => {
                            u.inactive_source |= 1 << l;
                            0
                        }
                    };
                    vals.push((l, c, v));
                }
            }
            for (l, c, v) in vals {
                regs[r(dst + c, l)] = v;
            }
        };
    match op {
        SubgroupOp::Elect => {
            for l in lanes(tangle) {
                regs[r(dst, l)] = u64::from(l == first);
            }
        }
        SubgroupOp::All | SubgroupOp::Any => {
            let set = lanes(tangle).filter(|&l| regs[r(a, l)] != 0).count();
            let total = tangle.count_ones() as usize;
            let v = if *op == SubgroupOp::All {
                set == total
            } else {
                set > 0
            };
            for l in lanes(tangle) {
                regs[r(dst, l)] = u64::from(v);
            }
        }
        SubgroupOp::AllEqual => {
            let eq = |x: u64, y: u64| match Format::of(ty) {
                Some(f) => float::to_f64(f, x) == float::to_f64(f, y),
                None => x == y,
            };
            let all =
                lanes(tangle).all(|l| (0..n).all(|c| eq(regs[r(a + c, l)], regs[r(a + c, first)])));
            for l in lanes(tangle) {
                regs[r(dst, l)] = u64::from(all);
            }
        }
        SubgroupOp::Broadcast { lane } => {
            let id = lane_id(uniform(regs, *lane, &mut u));
            permute(regs, &|_, _| Some(id), &mut u);
        }
        SubgroupOp::BroadcastFirst => {
            permute(regs, &|_, _| Some(first), &mut u);
        }
        SubgroupOp::Ballot => {
            let bits: u128 = lanes(tangle)
                .filter(|&l| regs[r(a, l)] != 0)
                .fold(0, |m, l| m | 1 << l);
            for l in lanes(tangle) {
                for c in 0..4u32 {
                    regs[r(dst + c, l)] = ((bits >> (32 * c)) & 0xffff_ffff) as u64;
                }
            }
        }
        SubgroupOp::InverseBallot | SubgroupOp::BallotBitExtract { .. } => {
            for l in lanes(tangle) {
                let idx = match op {
                    SubgroupOp::BallotBitExtract { index } => regs[r(*index, l)],
                    _ => l as u64,
                };
                let v = if idx < 128 {
                    regs[r(a + (idx / 32) as u32, l)] >> (idx % 32) & 1
                } else {
                    0
                };
                regs[r(dst, l)] = v;
            }
        }
        SubgroupOp::BallotBitCount(g) => {
            for l in lanes(tangle) {
                let ballot = ballot_of(regs, a, l, s) & lane_mask(s);
                let m = match g {
                    GroupOp::InclusiveScan => lane_mask(l + 1),
                    GroupOp::ExclusiveScan => lane_mask(l),
                    _ => u128::MAX,
                };
                regs[r(dst, l)] = u64::from((ballot & m).count_ones());
            }
        }
        SubgroupOp::BallotFindLsb | SubgroupOp::BallotFindMsb => {
            for l in lanes(tangle) {
                let ballot = ballot_of(regs, a, l, s) & lane_mask(s);
                regs[r(dst, l)] = if ballot == 0 {
                    u.other |= 1 << l;
                    0xffff_ffff
                } else if *op == SubgroupOp::BallotFindLsb {
                    u64::from(ballot.trailing_zeros())
                } else {
                    u64::from(127 - ballot.leading_zeros())
                };
            }
        }
        SubgroupOp::Shuffle { lane } => {
            permute(regs, &|regs, l| Some(lane_id(regs[r(*lane, l)])), &mut u);
        }
        SubgroupOp::ShuffleXor { mask } => {
            permute(
                regs,
                &|regs, l| Some(lane_id(l as u64 ^ regs[r(*mask, l)])),
                &mut u,
            );
        }
        SubgroupOp::ShuffleUp { delta } => {
            permute(
                regs,
                &|regs, l| (l as u64).checked_sub(regs[r(*delta, l)]).map(lane_id),
                &mut u,
            );
        }
        SubgroupOp::ShuffleDown { delta } => {
            permute(
                regs,
                &|regs, l| {
                    let d = regs[r(*delta, l)];
                    (l as u64)
                        .checked_add(d)
                        .filter(|x| *x < s as u64)
                        .map(lane_id)
                },
                &mut u,
            );
        }
        SubgroupOp::QuadAll | SubgroupOp::QuadAny => {
            let all = *op == SubgroupOp::QuadAll;
            for l in lanes(tangle) {
                let quad = 0xf_u128 << (l & !3) & tangle;
                let set = lanes(quad).filter(|&q| regs[r(a, q)] != 0).count();
                let v = if all {
                    set == quad.count_ones() as usize
                } else {
                    set > 0
                };
                regs[r(dst, l)] = u64::from(v);
            }
        }
        SubgroupOp::Partition => {
            // Lanes holding the same bits in every component share a partition (bitwise, so a
            // NaN is in its own lane's partition).
            let mut out = Vec::with_capacity(tangle.count_ones() as usize);
            for l in lanes(tangle) {
                let bits: u128 = lanes(tangle)
                    .filter(|&m| (0..n).all(|c| regs[r(a + c, m)] == regs[r(a + c, l)]))
                    .fold(0, |acc, m| acc | 1 << m);
                out.push((l, bits));
            }
            for (l, bits) in out {
                for c in 0..4u32 {
                    regs[r(dst + c, l)] = ((bits >> (32 * c)) & 0xffff_ffff) as u64;
                }
            }
        }
        SubgroupOp::QuadBroadcast { index } => {
            // An index of 4 or more is undefined: reported as a read of no lane, like a
            // shuffle's id out of range.
            let i = uniform(regs, *index, &mut u);
            permute(
                regs,
                &|_, l| {
                    Some(if i < 4 {
                        (l & !3) + i as usize
                    } else {
                        usize::MAX
                    })
                },
                &mut u,
            );
        }
        SubgroupOp::QuadSwap { direction } => {
            // The loader refuses a Direction other than a constant 0, 1 or 2.
            let x = match uniform(regs, *direction, &mut u) {
                0 => 1,
                1 => 2,
                _ => 3,
            };
            permute(regs, &|_, l| Some(l ^ x), &mut u);
        }
        SubgroupOp::Rotate { delta, cluster } => {
            let g = match cluster {
                Some(c) => {
                    let cs = uniform(regs, *c, &mut u);
                    if cs == 0 || !cs.is_power_of_two() || cs > s as u64 {
                        u.bad_cluster = Some(cs);
                    }
                    // Still deterministic for a bad size: the largest power of two within range.
                    (cs.clamp(1, s as u64) as usize).next_power_of_two().min(s)
                }
                None => s,
            };
            let _ = uniform(regs, *delta, &mut u);
            permute(
                regs,
                &|regs, l| Some(rotate_source(l, regs[r(*delta, l)], g)),
                &mut u,
            );
        }
        SubgroupOp::Arith { op: eop, group } => {
            let cluster = match group {
                GroupOp::Clustered(c) => {
                    let cs = uniform(regs, *c, &mut u);
                    if cs == 0 || !cs.is_power_of_two() || cs > s as u64 {
                        u.bad_cluster = Some(cs);
                        s
                    } else {
                        cs as usize
                    }
                }
                _ => s,
            };
            // Each lane's result, written back once every lane has read its operand (on the
            // stack: a vector per operation showed in profiles).
            let mut out = [0u64; Mask::BITS as usize];
            for c in 0..n {
                match group {
                    GroupOp::Partitioned { scan, ballot } => {
                        for l in lanes(tangle) {
                            let part = ballot_of(regs, *ballot, l, s) & tangle;
                            if part >> l & 1 == 0 {
                                // The spec requires every invocation in its own partition.
                                u.outside_partition |= 1 << l;
                            }
                            let upto = match scan {
                                None => u128::MAX,
                                Some(true) => lane_mask(l + 1),
                                Some(false) => lane_mask(l),
                            };
                            let vals = lanes(part & upto).map(|m| regs[r(a + c, m)]);
                            out[l] = reduce(*eop, ty, mode, vals);
                        }
                    }
                    GroupOp::Reduce | GroupOp::Clustered(_) => {
                        let mut start = 0;
                        while start < s {
                            let cm = lane_mask(start + cluster) & !lane_mask(start) & tangle;
                            if cm != 0 {
                                let vals = lanes(cm).map(|l| regs[r(a + c, l)]);
                                let acc = reduce(*eop, ty, mode, vals);
                                for l in lanes(cm) {
                                    out[l] = acc;
                                }
                            }
                            start += cluster;
                        }
                    }
                    GroupOp::InclusiveScan | GroupOp::ExclusiveScan => {
                        let mut acc = start_of(*eop, ty);
                        for (k, l) in lanes(tangle).enumerate() {
                            let next = combine(*eop, ty, acc, regs[r(a + c, l)], mode);
                            out[l] = match *group {
                                GroupOp::InclusiveScan => next,
                                // The first lane's exclusive scan is the identity.
                                _ if k == 0 => identity(*eop, ty),
                                _ => acc,
                            };
                            acc = next;
                        }
                    }
                }
                // (every path above gave each lane of the tangle its result)
                for l in lanes(tangle) {
                    regs[r(dst + c, l)] = out[l];
                }
            }
        }
    }
    u
}

/// A lane id operand (any width) as an index: one past `usize` on a narrow host stays out of
/// range (never truncated to a lane), so every host picks the same lane.
#[inline]
fn lane_id(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// The lane a rotate reads: `((lane + delta) & (g - 1)) + (lane & !(g - 1))`, `g` the cluster
/// (or subgroup) size, a power of two; `delta` is unsigned and may exceed `g`.
pub fn rotate_source(lane: usize, delta: u64, g: usize) -> usize {
    let g = g as u64;
    let l = lane as u64;
    (((l.wrapping_add(delta)) & (g - 1)) + (l & !(g - 1))) as usize
}

#[inline]
fn lane_mask(k: usize) -> u128 {
    if k >= 128 {
        u128::MAX
    } else {
        (1u128 << k) - 1
    }
}

fn ballot_of(regs: &[u64], a: u32, l: usize, s: usize) -> u128 {
    (0..4u32).fold(0u128, |m, c| {
        m | (u128::from(regs[(a + c) as usize * s + l] as u32) << (32 * c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regs_with(s: usize, vals: &[u64]) -> Vec<u64> {
        let mut r = vec![0u64; s * 8];
        r[..vals.len()].copy_from_slice(vals);
        r
    }

    #[test]
    fn reduce_and_scans_cover_only_the_tangle() {
        let s = 8;
        let mut regs = regs_with(s, &[1, 2, 3, 4, 5, 6, 7, 8]);
        let tangle: Mask = 0b1011_0101; // lanes 0, 2, 4, 5, 7
        let add = SubgroupOp::Arith {
            op: ReduceOp::IAdd,
            group: GroupOp::Reduce,
        };
        exec(
            &add,
            ScalarTy::U32,
            1,
            1,
            0,
            &mut regs,
            s,
            tangle,
            Mode::DEFAULT,
        );
        assert_eq!(regs[s], 1 + 3 + 5 + 6 + 8);
        assert_eq!(regs[s + 1], 0, "inactive lane untouched");
        let scan = SubgroupOp::Arith {
            op: ReduceOp::IAdd,
            group: GroupOp::ExclusiveScan,
        };
        exec(
            &scan,
            ScalarTy::U32,
            1,
            2,
            0,
            &mut regs,
            s,
            tangle,
            Mode::DEFAULT,
        );
        assert_eq!(
            [
                regs[2 * s],
                regs[2 * s + 2],
                regs[2 * s + 4],
                regs[2 * s + 7]
            ],
            [0, 1, 4, 15]
        );
    }

    #[test]
    fn clustered_reduce() {
        let s = 8;
        let mut regs = regs_with(s, &[1, 2, 3, 4, 5, 6, 7, 8]);
        regs[3 * s..4 * s].fill(4);
        let op = SubgroupOp::Arith {
            op: ReduceOp::IAdd,
            group: GroupOp::Clustered(3),
        };
        let u = exec(
            &op,
            ScalarTy::U32,
            1,
            1,
            0,
            &mut regs,
            s,
            0xff,
            Mode::DEFAULT,
        );
        assert!(u.bad_cluster.is_none());
        assert_eq!(&regs[s..2 * s], &[10, 10, 10, 10, 26, 26, 26, 26]);
    }

    #[test]
    fn shuffle_from_inactive_lane_reads_zero_and_is_flagged() {
        let s = 4;
        let mut regs = regs_with(s, &[10, 11, 12, 13]);
        regs[2 * s..3 * s].copy_from_slice(&[1, 0, 3, 2]);
        let op = SubgroupOp::Shuffle { lane: 2 };
        let u = exec(
            &op,
            ScalarTy::U32,
            1,
            1,
            0,
            &mut regs,
            s,
            0b0111,
            Mode::DEFAULT,
        );
        assert_eq!(&regs[s..s + 3], &[11, 10, 0]);
        assert_eq!(u.inactive_source, 0b0100);
    }

    #[test]
    fn ballot_and_counts() {
        let s = 32;
        let mut regs = vec![0u64; s * 16];
        for (l, r) in regs.iter_mut().take(s).enumerate() {
            *r = u64::from(l % 3 == 0);
        }
        exec(
            &SubgroupOp::Ballot,
            ScalarTy::Bool,
            1,
            1,
            0,
            &mut regs,
            s,
            u128::from(u32::MAX),
            Mode::DEFAULT,
        );
        let expect: u64 = (0..32).filter(|l| l % 3 == 0).map(|l| 1u64 << l).sum();
        assert_eq!(regs[s], expect);
        exec(
            &SubgroupOp::BallotBitCount(GroupOp::Reduce),
            ScalarTy::U32,
            4,
            8,
            1,
            &mut regs,
            s,
            1,
            Mode::DEFAULT,
        );
        assert_eq!(regs[8 * s], 11);
    }
}
