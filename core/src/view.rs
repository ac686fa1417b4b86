//! The views' vocabulary: what an instruction means (as the app's extension views explain it),
//! operands read by handle, lane sets. Front ends see instructions only through these types,
//! never through the interpreter's pre-decoded form.

use crate::dot::DotKind;
use crate::program::{BlockId, Inst, Program, SubgroupOp};
use crate::value::ScalarTy;
use crate::Simulator;

pub use crate::lanes::{index_ranges, LaneMask};

/// An operand of an instruction, to read its value in every lane with
/// [`Simulator::operand_values`]. Named by its SPIR-V id where it has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    pub(crate) slot: u32,
    /// Scalar components per lane.
    pub width: u32,
    /// The SPIR-V id whose value this is, when the operand is one.
    pub id: Option<u32>,
}

/// What an instruction does, for the views that explain it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Meaning {
    /// `OpGroupNonUniformRotateKHR`: each lane reads `value` from the lane `delta` further in
    /// its cluster of `cluster` lanes (the whole subgroup without one).
    Rotate {
        /// The value rotated.
        value: Operand,
        /// How many lanes further each lane reads.
        delta: Operand,
        /// The ClusterSize operand, when there is one.
        cluster: Option<Operand>,
        /// The rotated value each lane gets.
        result: Operand,
        /// The component type of `value`.
        ty: ScalarTy,
    },
    /// `OpSDot`/`OpUDot`/`OpSUDot` and their `AccSat` forms: the dot product of `a` and `b`
    /// (four 8-bit components packed in a 32-bit scalar when `packed`), plus `acc` saturated.
    IntDot {
        /// Which operands are signed (the opcode says).
        kind: DotKind,
        /// Whether `a` and `b` are 32-bit scalars holding four 8-bit components
        /// (`PackedVectorFormat4x8Bit`).
        packed: bool,
        /// Bits of each component of `a` and `b` (8 when `packed`).
        comp_bits: u32,
        /// Bits of the integer result.
        result_bits: u32,
        /// The first operand.
        a: Operand,
        /// The second operand.
        b: Operand,
        /// The accumulator of the `AccSat` forms.
        acc: Option<Operand>,
        /// The dot product (plus `acc`, saturated) each lane gets.
        result: Operand,
    },
    /// `OpCooperativeMatrixMulAddKHR`: Result = A x B + C (SPIR-V ids of the matrices).
    CoopMulAdd {
        /// SPIR-V id of matrix A (`None` when no cooperative-matrix id lives at its register
        /// slot).
        a: Option<u32>,
        /// SPIR-V id of matrix B.
        b: Option<u32>,
        /// SPIR-V id of matrix C, the addend.
        c: Option<u32>,
        /// SPIR-V id of the result matrix.
        result: Option<u32>,
    },
    /// Anything the views do not explain.
    Other,
}

impl Meaning {
    /// Whether this is [`Meaning::Rotate`].
    pub fn is_rotate(&self) -> bool {
        matches!(self, Self::Rotate { .. })
    }
    /// Whether this is [`Meaning::IntDot`].
    pub fn is_int_dot(&self) -> bool {
        matches!(self, Self::IntDot { .. })
    }
    /// Whether this is [`Meaning::CoopMulAdd`].
    pub fn is_coop_muladd(&self) -> bool {
        matches!(self, Self::CoopMulAdd { .. })
    }
}

/// The source lane a rotate reads for `lane` (SPV_KHR_subgroup_rotate): `((lane + delta) &
/// (group - 1)) + (lane & !(group - 1))`, `group` the cluster size or the subgroup size.
pub fn rotate_source(lane: u32, delta: u64, group: u32) -> u32 {
    crate::exec::subgroup::rotate_source(lane as usize, delta, group as usize) as u32
}

impl Program {
    /// The operand at register slot `slot`, `width` components wide.
    fn operand(&self, slot: u32, width: u32) -> Operand {
        let id = self
            .id_slots
            .iter()
            .find(|(_, (s, w, _))| *s == slot && *w == width)
            .map(|(id, _)| *id);
        Operand { slot, width, id }
    }

    /// The SPIR-V id whose value starts at `slot`, if it is a cooperative matrix.
    fn coop_id_at(&self, slot: u32) -> Option<u32> {
        self.id_slots.iter().find_map(|(&id, &(s, _, ty))| {
            (s == slot && matches!(self.types.get(ty), crate::program::Type::CoopMat(_)))
                .then_some(id)
        })
    }

    /// What step `pos` of block `block` does (the terminator is [`Meaning::Other`]).
    pub fn meaning(&self, block: BlockId, pos: u32) -> Meaning {
        let Some(i) = self
            .blocks
            .get(block as usize)
            .and_then(|b| b.insts.get(pos as usize))
        else {
            return Meaning::Other;
        };
        match i {
            Inst::Subgroup {
                op: SubgroupOp::Rotate { delta, cluster },
                ty,
                n,
                dst,
                a,
            } => Meaning::Rotate {
                value: self.operand(*a, *n),
                delta: self.operand(*delta, 1),
                cluster: cluster.map(|c| self.operand(c, 1)),
                result: self.operand(*dst, *n),
                ty: *ty,
            },
            Inst::IntDot {
                kind,
                packed,
                comp_bits,
                n,
                result_bits,
                dst,
                a,
                b,
                acc,
            } => {
                let w = if *packed { 1 } else { *n };
                Meaning::IntDot {
                    kind: *kind,
                    packed: *packed,
                    comp_bits: *comp_bits,
                    result_bits: *result_bits,
                    a: self.operand(*a, w),
                    b: self.operand(*b, w),
                    acc: acc.map(|x| self.operand(x, 1)),
                    result: self.operand(*dst, 1),
                }
            }
            Inst::Coop(op) => match op.kind {
                crate::coopmat::CoopKind::MulAdd { dst, a, b, c, .. } => Meaning::CoopMulAdd {
                    a: self.coop_id_at(a),
                    b: self.coop_id_at(b),
                    c: self.coop_id_at(c),
                    result: self.coop_id_at(dst),
                },
                _ => Meaning::Other,
            },
            _ => Meaning::Other,
        }
    }
}

impl Simulator {
    /// The value of `op` in every lane of subgroup `g` (raw component bits).
    pub fn operand_values(&self, g: usize, op: &Operand) -> Option<Vec<Vec<u64>>> {
        self.slot_values(g, op.slot, op.width)
    }

    /// The lanes of subgroup `g` where `op` holds an undefined (poison) value.
    pub fn operand_poison(&self, g: usize, op: &Operand) -> LaneMask {
        LaneMask(self.slot_poison(g, op.slot, op.width))
    }
}

#[cfg(test)]
mod tests {
    use super::LaneMask;

    #[test]
    fn lane_masks() {
        let m: LaneMask = [0, 1, 2, 3, 8, 10, 11].into_iter().collect();
        assert_eq!(m.ranges(), "0-3,8,10-11");
        assert_eq!(m.count(), 7);
        assert_eq!(m.lowest(), Some(0));
        assert!(m.contains(8) && !m.contains(9) && !m.contains(200));
        assert_eq!(LaneMask::first(128).count(), 128);
        assert_eq!(LaneMask::first(3).to_vec(), [0, 1, 2]);
        assert_eq!(LaneMask::single(127).lowest(), Some(127));
    }
}
