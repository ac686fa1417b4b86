//! Poison: a per-lane flag on every register component marking a value the spec leaves
//! undefined, and everything computed from it. Undefined results get a deterministic value; the
//! flag is how the app shows where undefined data travelled.
//!
//! Registers keep one lane mask per slot (`Subgroup::poison`), memories one bit per word
//! (`memory::PoisonMaps`). Nothing is tracked until the first poison appears.

use super::Mask;
use crate::program::{Inst, SubgroupOp};

/// Value operands of an instruction as (slot, width); pointers excluded for memory operations
/// (their poison comes from memory).
pub fn operands(inst: &Inst) -> Vec<(u32, u32)> {
    match inst {
        Inst::Nop | Inst::Variable { .. } | Inst::Call { .. } | Inst::Barrier { .. } => vec![],
        Inst::Coop(op) => op.operands(),
        Inst::Copy { src, n, .. } => vec![(*src, *n)],
        Inst::Un { a, n, .. }
        | Inst::Conv { a, n, .. }
        | Inst::Any { a, n, .. }
        | Inst::All { a, n, .. } => vec![(*a, *n)],
        Inst::Bin { a, b, n, .. } | Inst::Wide { a, b, n, .. } | Inst::Dot { a, b, n, .. } => {
            vec![(*a, *n), (*b, *n)]
        }
        Inst::Bitcast { a, from, .. } => vec![(*a, from.len() as u32)],
        Inst::Select {
            cond,
            cond_vector,
            a,
            b,
            n,
            ..
        } => vec![
            (*cond, if *cond_vector { *n } else { 1 }),
            (*a, *n),
            (*b, *n),
        ],
        Inst::Shuffle {
            a, b, na, comps, ..
        } => {
            let nb = comps
                .iter()
                .filter(|c| **c != u32::MAX)
                .map(|c| c + 1)
                .max()
                .unwrap_or(0)
                .saturating_sub(*na);
            vec![(*a, *na), (*b, nb)]
        }
        Inst::Construct { parts, .. } => parts.clone(),
        Inst::Insert {
            composite,
            width,
            object,
            n,
            ..
        } => vec![(*composite, *width), (*object, *n)],
        Inst::ExtractDyn {
            src, len, index, ..
        } => vec![(*src, *len), (*index, 1)],
        Inst::InsertDyn {
            src,
            len,
            object,
            index,
            ..
        } => vec![(*src, *len), (*object, 1), (*index, 1)],
        Inst::Scale { a, n, s, .. } => vec![(*a, *n), (*s, 1)],
        Inst::MatMul {
            a,
            b,
            rows,
            inner,
            cols,
            a_row_vector,
            ..
        } => {
            let na = if *a_row_vector { *inner } else { rows * inner };
            vec![(*a, na), (*b, inner * cols)]
        }
        Inst::Transpose { a, rows, cols, .. } => vec![(*a, rows * cols)],
        Inst::Load { .. } | Inst::CopyMemory { .. } | Inst::ArrayLength { .. } => vec![],
        Inst::Store { .. } => vec![],
        Inst::AccessChain { steps, .. } => steps
            .iter()
            .filter_map(|s| match s {
                crate::program::AccessStep::Dyn { index, .. } => Some((*index, 1)),
                crate::program::AccessStep::Const(_) => None,
            })
            .collect(),
        Inst::Atomic {
            value, comparator, ..
        } => value.iter().chain(comparator).map(|v| (*v, 1)).collect(),
        Inst::Ext { args, .. } => args.iter().map(|(s, _, n)| (*s, *n)).collect(),
        Inst::IntDot {
            a,
            b,
            acc,
            packed,
            n,
            ..
        } => {
            let w = if *packed { 1 } else { *n };
            let mut v = vec![(*a, w), (*b, w)];
            v.extend(acc.map(|x| (x, 1)));
            v
        }
        Inst::Subgroup { a, n, op, .. } => {
            let mut v = if matches!(op, SubgroupOp::Elect) {
                vec![]
            } else {
                vec![(*a, *n)]
            };
            match op {
                SubgroupOp::Broadcast { lane } | SubgroupOp::Shuffle { lane } => v.push((*lane, 1)),
                SubgroupOp::ShuffleXor { mask } => v.push((*mask, 1)),
                SubgroupOp::ShuffleUp { delta }
                | SubgroupOp::ShuffleDown { delta }
                | SubgroupOp::Rotate { delta, .. } => v.push((*delta, 1)),
                SubgroupOp::BallotBitExtract { index } | SubgroupOp::QuadBroadcast { index } => {
                    v.push((*index, 1))
                }
                _ => {}
            }
            v
        }
    }
}

/// The result of an instruction as (slot, width).
pub fn dest(inst: &Inst, result_width: impl Fn(u32) -> u32) -> Option<(u32, u32)> {
    let d = match inst {
        Inst::Copy { dst, .. }
        | Inst::Un { dst, .. }
        | Inst::Bin { dst, .. }
        | Inst::Wide { dst, .. }
        | Inst::Conv { dst, .. }
        | Inst::Bitcast { dst, .. }
        | Inst::Select { dst, .. }
        | Inst::Shuffle { dst, .. }
        | Inst::Construct { dst, .. }
        | Inst::Insert { dst, .. }
        | Inst::ExtractDyn { dst, .. }
        | Inst::InsertDyn { dst, .. }
        | Inst::Any { dst, .. }
        | Inst::All { dst, .. }
        | Inst::Dot { dst, .. }
        | Inst::Scale { dst, .. }
        | Inst::MatMul { dst, .. }
        | Inst::Transpose { dst, .. }
        | Inst::Load { dst, .. }
        | Inst::AccessChain { dst, .. }
        | Inst::ArrayLength { dst, .. }
        | Inst::Ext { dst, .. }
        | Inst::IntDot { dst, .. }
        | Inst::Subgroup { dst, .. } => *dst,
        Inst::Atomic { dst: Some(d), .. } => *d,
        Inst::Coop(op) => return op.written(),
        _ => return None,
    };
    Some((d, result_width(d)))
}

/// Per-lane OR of the poison of `width` slots from `slot`.
pub fn any(poison: &[Mask], slot: u32, width: u32) -> Mask {
    poison
        .get(slot as usize..(slot + width) as usize)
        .map_or(0, |p| p.iter().fold(0, |m, x| m | x))
}

/// Set the poison of `width` slots from `slot` to `value` for the lanes in `lanes`.
pub fn set(poison: &mut [Mask], slot: u32, width: u32, lanes: Mask, value: Mask) {
    if let Some(p) = poison.get_mut(slot as usize..(slot + width) as usize) {
        for x in p {
            *x = (*x & !lanes) | (value & lanes);
        }
    }
}

/// Diagnostic codes whose lanes get an undefined (poison) result.
pub const POISON_CODES: [&str; 8] = [
    "undefined-result",
    "coopmat-overflow",
    "coopmat-partial-tangle",
    "coopmat-replica-mismatch",
    "inactive-source",
    "rotate-inactive-source",
    "dot-overflow",
    "out-of-bounds",
];

/// The register range an instruction writes, as the executor writes it: (slot, components).
pub fn written(inst: &Inst) -> Option<(u32, u32)> {
    Some(match inst {
        Inst::Copy { dst, n, .. }
        | Inst::Un { dst, n, .. }
        | Inst::Bin { dst, n, .. }
        | Inst::Conv { dst, n, .. }
        | Inst::Select { dst, n, .. }
        | Inst::Scale { dst, n, .. } => (*dst, *n),
        Inst::Wide { dst, n, .. } => (*dst, 2 * n),
        Inst::Bitcast { dst, to, .. } => (*dst, to.len() as u32),
        Inst::Shuffle { dst, comps, .. } => (*dst, comps.len() as u32),
        Inst::Construct { dst, parts } => (*dst, parts.iter().map(|p| p.1).sum()),
        Inst::Insert { dst, width, .. } => (*dst, *width),
        Inst::InsertDyn { dst, len, .. } => (*dst, *len),
        Inst::MatMul {
            dst, rows, cols, ..
        }
        | Inst::Transpose {
            dst, rows, cols, ..
        } => (*dst, rows * cols),
        Inst::Ext {
            dst,
            out_tys,
            ptr_out,
            ..
        } => (
            *dst,
            if ptr_out.is_some() {
                out_tys.len() as u32 / 2
            } else {
                out_tys.len() as u32
            },
        ),
        Inst::Subgroup { dst, op, n, .. } => (
            *dst,
            match op {
                SubgroupOp::Ballot => 4,
                SubgroupOp::Elect
                | SubgroupOp::All
                | SubgroupOp::Any
                | SubgroupOp::AllEqual
                | SubgroupOp::InverseBallot
                | SubgroupOp::BallotBitExtract { .. }
                | SubgroupOp::BallotBitCount(_)
                | SubgroupOp::BallotFindLsb
                | SubgroupOp::BallotFindMsb => 1,
                _ => *n,
            },
        ),
        Inst::ExtractDyn { dst, .. }
        | Inst::Any { dst, .. }
        | Inst::All { dst, .. }
        | Inst::Dot { dst, .. }
        | Inst::IntDot { dst, .. }
        | Inst::AccessChain { dst, .. }
        | Inst::ArrayLength { dst, .. }
        | Inst::Variable { dst, .. } => (*dst, 1),
        Inst::Atomic { dst: Some(d), .. } => (*d, 1),
        Inst::Coop(op) => return op.written(),
        Inst::Load { .. }
        | Inst::Store { .. }
        | Inst::CopyMemory { .. }
        | Inst::Atomic { dst: None, .. }
        | Inst::Nop
        | Inst::Call { .. }
        | Inst::Barrier { .. } => return None,
    })
}
