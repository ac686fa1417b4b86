//! One SPIR-V function-body instruction -> one pre-decoded `Inst`.

use super::decode_ops::{
    is_group_op, lower_bitfield, lower_ext, lower_group_arith, lower_subgroup,
};
use super::{Ctx, LoadError, PtrInfo};
use crate::program::{
    AtomicOp, BinOp, ConvOp, Inst, Layout, ReduceOp, Space, SubgroupOp, Type, TypeId, UnOp, WideOp,
};
use crate::value::ScalarTy;
use rspirv::dr::Instruction;
use rspirv::spirv::{Op, Scope};

pub(crate) fn bin_op(op: Op) -> Option<BinOp> {
    Some(match op {
        Op::IAdd => BinOp::IAdd,
        Op::ISub => BinOp::ISub,
        Op::IMul => BinOp::IMul,
        Op::UDiv => BinOp::UDiv,
        Op::SDiv => BinOp::SDiv,
        Op::UMod => BinOp::UMod,
        Op::SRem => BinOp::SRem,
        Op::SMod => BinOp::SMod,
        Op::FAdd => BinOp::FAdd,
        Op::FSub => BinOp::FSub,
        Op::FMul => BinOp::FMul,
        Op::FDiv => BinOp::FDiv,
        Op::FRem => BinOp::FRem,
        Op::FMod => BinOp::FMod,
        Op::ShiftLeftLogical => BinOp::Shl,
        Op::ShiftRightLogical => BinOp::ShrL,
        Op::ShiftRightArithmetic => BinOp::ShrA,
        Op::BitwiseAnd => BinOp::And,
        Op::BitwiseOr => BinOp::Or,
        Op::BitwiseXor => BinOp::Xor,
        Op::LogicalAnd => BinOp::LogicalAnd,
        Op::LogicalOr => BinOp::LogicalOr,
        Op::LogicalEqual => BinOp::LogicalEqual,
        Op::LogicalNotEqual => BinOp::LogicalNotEqual,
        Op::IEqual => BinOp::IEqual,
        Op::INotEqual => BinOp::INotEqual,
        Op::UGreaterThan => BinOp::UGreaterThan,
        Op::SGreaterThan => BinOp::SGreaterThan,
        Op::UGreaterThanEqual => BinOp::UGreaterThanEqual,
        Op::SGreaterThanEqual => BinOp::SGreaterThanEqual,
        Op::ULessThan => BinOp::ULessThan,
        Op::SLessThan => BinOp::SLessThan,
        Op::ULessThanEqual => BinOp::ULessThanEqual,
        Op::SLessThanEqual => BinOp::SLessThanEqual,
        Op::FOrdEqual => BinOp::FOrdEqual,
        Op::FUnordEqual => BinOp::FUnordEqual,
        Op::FOrdNotEqual => BinOp::FOrdNotEqual,
        Op::FUnordNotEqual => BinOp::FUnordNotEqual,
        Op::FOrdLessThan => BinOp::FOrdLessThan,
        Op::FUnordLessThan => BinOp::FUnordLessThan,
        Op::FOrdGreaterThan => BinOp::FOrdGreaterThan,
        Op::FUnordGreaterThan => BinOp::FUnordGreaterThan,
        Op::FOrdLessThanEqual => BinOp::FOrdLessThanEqual,
        Op::FUnordLessThanEqual => BinOp::FUnordLessThanEqual,
        Op::FOrdGreaterThanEqual => BinOp::FOrdGreaterThanEqual,
        Op::FUnordGreaterThanEqual => BinOp::FUnordGreaterThanEqual,
        _ => return None,
    })
}

pub(crate) fn un_op(op: Op) -> Option<UnOp> {
    Some(match op {
        Op::SNegate => UnOp::SNegate,
        Op::FNegate => UnOp::FNegate,
        Op::Not => UnOp::Not,
        Op::LogicalNot => UnOp::LogicalNot,
        Op::BitReverse => UnOp::BitReverse,
        Op::BitCount => UnOp::BitCount,
        Op::IsNan => UnOp::IsNan,
        Op::IsInf => UnOp::IsInf,
        Op::QuantizeToF16 => UnOp::QuantizeToF16,
        _ => return None,
    })
}

fn atomic_op(op: Op) -> Option<AtomicOp> {
    Some(match op {
        Op::AtomicLoad => AtomicOp::Load,
        Op::AtomicStore => AtomicOp::Store,
        Op::AtomicExchange => AtomicOp::Exchange,
        Op::AtomicCompareExchange => AtomicOp::CompareExchange,
        Op::AtomicIIncrement => AtomicOp::IIncrement,
        Op::AtomicIDecrement => AtomicOp::IDecrement,
        Op::AtomicIAdd => AtomicOp::IAdd,
        Op::AtomicISub => AtomicOp::ISub,
        Op::AtomicSMin => AtomicOp::SMin,
        Op::AtomicUMin => AtomicOp::UMin,
        Op::AtomicSMax => AtomicOp::SMax,
        Op::AtomicUMax => AtomicOp::UMax,
        Op::AtomicAnd => AtomicOp::And,
        Op::AtomicOr => AtomicOp::Or,
        Op::AtomicXor => AtomicOp::Xor,
        Op::AtomicFAddEXT => AtomicOp::FAdd,
        _ => return None,
    })
}

fn group_arith(op: Op) -> Option<ReduceOp> {
    Some(match op {
        Op::GroupNonUniformIAdd => ReduceOp::IAdd,
        Op::GroupNonUniformFAdd => ReduceOp::FAdd,
        Op::GroupNonUniformIMul => ReduceOp::IMul,
        Op::GroupNonUniformFMul => ReduceOp::FMul,
        Op::GroupNonUniformSMin => ReduceOp::SMin,
        Op::GroupNonUniformUMin => ReduceOp::UMin,
        Op::GroupNonUniformFMin => ReduceOp::FMin,
        Op::GroupNonUniformSMax => ReduceOp::SMax,
        Op::GroupNonUniformUMax => ReduceOp::UMax,
        Op::GroupNonUniformFMax => ReduceOp::FMax,
        Op::GroupNonUniformBitwiseAnd => ReduceOp::And,
        Op::GroupNonUniformBitwiseOr => ReduceOp::Or,
        Op::GroupNonUniformBitwiseXor => ReduceOp::Xor,
        Op::GroupNonUniformLogicalAnd => ReduceOp::LogicalAnd,
        Op::GroupNonUniformLogicalOr => ReduceOp::LogicalOr,
        Op::GroupNonUniformLogicalXor => ReduceOp::LogicalXor,
        _ => return None,
    })
}

impl Ctx<'_> {
    pub(super) fn elem_ty(&self, t: TypeId) -> ScalarTy {
        self.types.flat[t as usize]
            .first()
            .copied()
            .unwrap_or(ScalarTy::U32)
    }

    pub(super) fn val(
        &self,
        inst: &Instruction,
        k: usize,
    ) -> Result<(u32, u32, TypeId), LoadError> {
        let id = self.id_op(inst, k)?;
        self.value(inst, id)
    }

    pub(super) fn dst(&self, inst: &Instruction) -> Result<(u32, u32, TypeId), LoadError> {
        let r = self.result_id(inst)?;
        self.value(inst, r)
    }

    pub(super) fn ptr(&self, inst: &Instruction, k: usize) -> Result<(u32, PtrInfo), LoadError> {
        let id = self.id_op(inst, k)?;
        let (slot, _, ty) = self.value(inst, id)?;
        if let Some(info) = self.ptr_info.get(&id).copied() {
            return Ok((slot, info));
        }
        // A pointer chosen at run time (a phi, a load, a call's result: variable pointers):
        // what it points to is in its type.
        match self.types.get(ty) {
            Type::Pointer {
                storage_class,
                pointee,
            } => Ok((
                slot,
                PtrInfo {
                    pointee: *pointee,
                    layout: Layout::Plain,
                    space: super::space_of(*storage_class),
                    descriptors: self.descriptors_of(*storage_class, *pointee),
                },
            )),
            _ => {
                Err(self.unsupported(inst, format!("%{id} is not a pointer Lanescope can follow")))
            }
        }
    }

    /// Scope operand (an <id> of a constant) as a number.
    pub(super) fn scope(&self, inst: &Instruction, k: usize) -> Result<u32, LoadError> {
        let id = self.id_op(inst, k)?;
        self.consts
            .get(&id)
            .and_then(|(_, v)| v.first().copied())
            .map(|v| v as u32)
            .ok_or_else(|| self.invalid(inst, format!("scope %{id} is not a constant")))
    }
}

/// Lower one instruction; `None` for instructions with no run-time effect.
pub(crate) fn lower(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Option<Inst>, LoadError> {
    let lowered = match super::decode_coop::lower_coop(cx, inst)? {
        Some(i) => Some(i),
        None => match super::decode_image::lower_image(cx, inst)? {
            Some(i) => Some(i),
            None => lower_inner(cx, inst)?,
        },
    };
    if let Some(i) = &lowered {
        check_shapes(cx, inst, i)?;
    }
    Ok(lowered)
}

/// Operands and results must have the shapes the executor reads and writes: a malformed
/// module is an error here, never an out-of-range register access later.
fn check_shapes(cx: &Ctx<'_>, inst: &Instruction, i: &Inst) -> Result<(), LoadError> {
    let limit = cx.next_slot;
    for (slot, width) in i.reads() {
        if slot.checked_add(width).is_none_or(|end| end > limit) {
            return Err(cx.invalid(inst, "an operand has the wrong type for this instruction"));
        }
    }
    let declared = |slot: u32| cx.slot_widths.get(&slot).copied().unwrap_or(0);
    if let Some((dst, n)) = i.writes() {
        if declared(dst) < n {
            return Err(cx.invalid(
                inst,
                "the result type is too small for what the instruction produces",
            ));
        }
    }
    let need = match i {
        Inst::Subgroup {
            op: SubgroupOp::Ballot | SubgroupOp::Partition,
            dst,
            ..
        } => Some((*dst, 4)),
        Inst::Load { dst, leaves, .. } => {
            Some((*dst, cx.leaf_tables[*leaves as usize].len() as u32))
        }
        _ => None,
    };
    if let Some((dst, w)) = need {
        if declared(dst) != w {
            return Err(cx.invalid(
                inst,
                "the result type does not match what the instruction produces",
            ));
        }
    }
    match i {
        Inst::Store { src, leaves, .. }
            if declared(*src) != cx.leaf_tables[*leaves as usize].len() as u32 =>
        {
            Err(cx.invalid(
                inst,
                "the stored object's type does not match the pointer's",
            ))
        }
        Inst::Subgroup {
            op:
                SubgroupOp::InverseBallot
                | SubgroupOp::BallotBitExtract { .. }
                | SubgroupOp::BallotBitCount(_)
                | SubgroupOp::BallotFindLsb
                | SubgroupOp::BallotFindMsb,
            a,
            ..
        } if declared(*a) != 4 => {
            Err(cx.invalid(inst, "a ballot operand must be a 4-component vector"))
        }
        _ => Ok(()),
    }
}

/// The ordinary per-lane lowering of an instruction that produces a value.
pub(super) fn lower_plain(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Inst, LoadError> {
    lower_inner(cx, inst)?.ok_or_else(|| cx.invalid(inst, "instruction without an effect"))
}

#[expect(
    clippy::too_many_lines,
    reason = "one arm per opcode family reads best as one match"
)]
fn lower_inner(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Option<Inst>, LoadError> {
    let op = inst.class.opcode;
    if let Some(bop) = bin_op(op) {
        let (dst, n, _) = cx.dst(inst)?;
        let (a, na, ta) = cx.val(inst, 0)?;
        let (b, nb, _) = cx.val(inst, 1)?;
        if na != n || nb != n {
            return Err(cx.invalid(
                inst,
                "operands and result must have the same number of components",
            ));
        }
        return Ok(Some(Inst::Bin {
            op: bop,
            ty: cx.elem_ty(ta),
            n,
            dst,
            a,
            b,
        }));
    }
    if let Some(uop) = un_op(op) {
        let (dst, n, _) = cx.dst(inst)?;
        let (a, _, ta) = cx.val(inst, 0)?;
        return Ok(Some(Inst::Un {
            op: uop,
            ty: cx.elem_ty(ta),
            n,
            dst,
            a,
        }));
    }
    if let Some(aop) = atomic_op(op) {
        let (ptr, info) = cx.ptr(inst, 0)?;
        if info.space == Space::Buffer {
            cx.buffer_atomics = true;
        }
        let ty = cx.elem_ty(info.pointee);
        if !matches!(
            ty,
            ScalarTy::Int { bits: 32 | 64, .. } | ScalarTy::Float { bits: 32 | 64 }
        ) {
            return Err(cx.unsupported(inst, "atomics on types other than 32/64-bit scalars"));
        }
        let (dst, value, comparator) = match aop {
            AtomicOp::Store => (None, Some(cx.val(inst, 3)?.0), None),
            AtomicOp::Load | AtomicOp::IIncrement | AtomicOp::IDecrement => {
                (Some(cx.dst(inst)?.0), None, None)
            }
            AtomicOp::CompareExchange => (
                Some(cx.dst(inst)?.0),
                Some(cx.val(inst, 4)?.0),
                Some(cx.val(inst, 5)?.0),
            ),
            _ => (Some(cx.dst(inst)?.0), Some(cx.val(inst, 3)?.0), None),
        };
        return Ok(Some(Inst::Atomic {
            op: aop,
            ty,
            dst,
            ptr,
            value,
            comparator,
        }));
    }
    if let Some(g) = group_arith(op) {
        return lower_group_arith(cx, inst, g).map(Some);
    }
    Ok(Some(match op {
        Op::Nop | Op::Line | Op::NoLine | Op::MemoryBarrier | Op::ModuleProcessed => {
            return Ok(None)
        }
        Op::CopyObject | Op::CopyLogical => {
            let (dst, n, _) = cx.dst(inst)?;
            let id = cx.id_op(inst, 0)?;
            let (src, _, _) = cx.value(inst, id)?;
            if let Some(p) = cx.ptr_info.get(&id).copied() {
                cx.ptr_info.insert(cx.result_id(inst)?, p);
            }
            Inst::Copy { dst, src, n }
        }
        Op::Undef => {
            // Its slot holds 0; the detectors treat it as undefined until overwritten.
            let (slot, width, _) = cx.dst(inst)?;
            cx.undef_slots.push((slot, width));
            return Ok(None);
        }
        Op::ConvertFToU
        | Op::ConvertFToS
        | Op::ConvertSToF
        | Op::ConvertUToF
        | Op::UConvert
        | Op::SConvert
        | Op::FConvert => {
            let (dst, n, tr) = cx.dst(inst)?;
            let (a, _, ta) = cx.val(inst, 0)?;
            let cop = match op {
                Op::ConvertFToU => ConvOp::FToU,
                Op::ConvertFToS => ConvOp::FToS,
                Op::ConvertSToF => ConvOp::SToF,
                Op::ConvertUToF => ConvOp::UToF,
                Op::UConvert => ConvOp::UConvert,
                Op::SConvert => ConvOp::SConvert,
                _ => ConvOp::FConvert,
            };
            Inst::Conv {
                op: cop,
                from: cx.elem_ty(ta),
                to: cx.elem_ty(tr),
                n,
                dst,
                a,
                round: cx.conversion_rounding(inst)?,
            }
        }
        Op::Bitcast => {
            let (dst, _, tr) = cx.dst(inst)?;
            let (a, _, ta) = cx.val(inst, 0)?;
            let from = cx.types.flat[ta as usize].clone();
            let to = cx.types.flat[tr as usize].clone();
            let bits = |v: &[ScalarTy]| v.iter().map(|s| s.bits()).sum::<u32>();
            if bits(&from) != bits(&to) {
                return Err(cx.invalid(inst, "OpBitcast between types of different total width"));
            }
            if cx.types.is_physical_ptr(tr) {
                return Ok(Some(Inst::PtrFromBits {
                    dst,
                    a,
                    bits: 64,
                    pair: from.len() == 2,
                }));
            }
            if matches!(cx.types.get(tr), Type::Pointer { .. })
                || matches!(cx.types.get(ta), Type::Pointer { .. }) && !cx.types.is_physical_ptr(ta)
            {
                return Err(cx.unsupported(
                    inst,
                    "bitcasts to or from pointers other than PhysicalStorageBuffer pointers",
                ));
            }
            Inst::Bitcast { from, to, dst, a }
        }
        Op::Select => {
            let (dst, n, tr) = cx.dst(inst)?;
            let (cond, nc, _) = cx.val(inst, 0)?;
            let (a, _, _) = cx.val(inst, 1)?;
            let (b, _, _) = cx.val(inst, 2)?;
            if matches!(cx.types.get(tr), Type::Pointer { .. }) {
                let pa = cx.id_op(inst, 1)?;
                let pb = cx.id_op(inst, 2)?;
                let (ia, ib) = (cx.ptr_info.get(&pa).copied(), cx.ptr_info.get(&pb).copied());
                if let (Some(x), Some(y)) = (ia, ib) {
                    if x.layout != y.layout {
                        return Err(cx.invalid(
                            inst,
                            "a variable pointer must not point to a column of a matrix (this select mixes memory layouts)",
                        ));
                    }
                }
                if let Some(p) = ia.or(ib) {
                    cx.ptr_info.insert(cx.result_id(inst)?, p);
                }
            }
            Inst::Select {
                dst,
                cond,
                cond_vector: nc > 1,
                a,
                b,
                n,
            }
        }
        Op::VectorShuffle => {
            let (dst, _, _) = cx.dst(inst)?;
            let (a, na, _) = cx.val(inst, 0)?;
            let (b, nb, _) = cx.val(inst, 1)?;
            let mut comps = Vec::new();
            for k in 2..inst.operands.len() {
                let c = cx.lit_op(inst, k)?;
                if c != u32::MAX && c >= na + nb {
                    return Err(cx.invalid(inst, format!("shuffle component {c} out of range")));
                }
                comps.push(c);
            }
            Inst::Shuffle {
                dst,
                a,
                b,
                na,
                comps,
            }
        }
        Op::CompositeConstruct => {
            let (dst, n, _) = cx.dst(inst)?;
            let mut parts = Vec::new();
            let mut total = 0;
            for k in 0..inst.operands.len() {
                let (s, w, _) = cx.val(inst, k)?;
                parts.push((s, w));
                total += w;
            }
            if total != n {
                return Err(cx.invalid(
                    inst,
                    format!("constituents have {total} components, the result {n}"),
                ));
            }
            Inst::Construct { dst, parts }
        }
        Op::CompositeExtract => {
            let (dst, n, _) = cx.dst(inst)?;
            let (src, _, mut t) = cx.val(inst, 0)?;
            let mut off = 0;
            for k in 1..inst.operands.len() {
                let l = cx.lit_op(inst, k)?;
                let (o, _, sub) = cx
                    .types
                    .component_range(t, l)
                    .ok_or_else(|| cx.invalid(inst, format!("index {l} out of range")))?;
                off += o;
                t = sub;
                if sub == TypeId::MAX && k + 1 < inst.operands.len() {
                    return Err(cx.invalid(inst, "too many indices"));
                }
            }
            Inst::Copy {
                dst,
                src: src + off,
                n,
            }
        }
        Op::CompositeInsert => {
            let (dst, width, _) = cx.dst(inst)?;
            let (object, n, _) = cx.val(inst, 0)?;
            let (composite, _, mut t) = cx.val(inst, 1)?;
            let mut offset = 0;
            for k in 2..inst.operands.len() {
                let l = cx.lit_op(inst, k)?;
                let (o, _, sub) = cx
                    .types
                    .component_range(t, l)
                    .ok_or_else(|| cx.invalid(inst, format!("index {l} out of range")))?;
                offset += o;
                t = sub;
            }
            Inst::Insert {
                dst,
                composite,
                width,
                object,
                offset,
                n,
            }
        }
        Op::VectorExtractDynamic => {
            let (dst, _, _) = cx.dst(inst)?;
            let (src, len, _) = cx.val(inst, 0)?;
            let (index, _, ti) = cx.val(inst, 1)?;
            Inst::ExtractDyn {
                dst,
                src,
                len,
                index,
                index_bits: cx.elem_ty(ti).bits() as u8,
            }
        }
        Op::VectorInsertDynamic => {
            let (dst, _, _) = cx.dst(inst)?;
            let (src, len, _) = cx.val(inst, 0)?;
            let (object, _, _) = cx.val(inst, 1)?;
            let (index, _, ti) = cx.val(inst, 2)?;
            Inst::InsertDyn {
                dst,
                src,
                len,
                object,
                index,
                index_bits: cx.elem_ty(ti).bits() as u8,
            }
        }
        Op::Any | Op::All => {
            let (dst, _, _) = cx.dst(inst)?;
            let (a, n, _) = cx.val(inst, 0)?;
            if op == Op::Any {
                Inst::Any { dst, a, n }
            } else {
                Inst::All { dst, a, n }
            }
        }
        Op::Dot => {
            let (dst, _, _) = cx.dst(inst)?;
            let (a, n, ta) = cx.val(inst, 0)?;
            let (b, _, _) = cx.val(inst, 1)?;
            Inst::Dot {
                ty: cx.elem_ty(ta),
                n,
                dst,
                a,
                b,
            }
        }
        Op::VectorTimesScalar | Op::MatrixTimesScalar => {
            let (dst, n, tr) = cx.dst(inst)?;
            let (a, _, _) = cx.val(inst, 0)?;
            let (s, _, _) = cx.val(inst, 1)?;
            Inst::Scale {
                ty: cx.elem_ty(tr),
                n,
                dst,
                a,
                s,
            }
        }
        Op::MatrixTimesVector
        | Op::VectorTimesMatrix
        | Op::MatrixTimesMatrix
        | Op::OuterProduct => {
            let (dst, _, tr) = cx.dst(inst)?;
            let (a, _, ta) = cx.val(inst, 0)?;
            let (b, _, tb) = cx.val(inst, 1)?;
            let dims = |t: TypeId| -> (u32, u32) {
                match cx.types.get(t) {
                    Type::Matrix { cols, rows, .. } => (*rows, *cols),
                    Type::Vector { n, .. } => (*n, 1),
                    _ => (1, 1),
                }
            };
            let (ar, ac) = dims(ta);
            let (br, bc) = dims(tb);
            let ty = cx.elem_ty(tr);
            match op {
                Op::MatrixTimesVector => Inst::MatMul {
                    ty,
                    rows: ar,
                    inner: ac,
                    cols: 1,
                    dst,
                    a,
                    b,
                    a_row_vector: false,
                },
                // v (1 x n) * M (n x c): result c components.
                Op::VectorTimesMatrix => Inst::MatMul {
                    ty,
                    rows: 1,
                    inner: ar,
                    cols: bc,
                    dst,
                    a,
                    b,
                    a_row_vector: true,
                },
                Op::MatrixTimesMatrix => Inst::MatMul {
                    ty,
                    rows: ar,
                    inner: ac,
                    cols: bc,
                    dst,
                    a,
                    b,
                    a_row_vector: false,
                },
                // Column vector (m x 1) times row vector (1 x n).
                _ => Inst::MatMul {
                    ty,
                    rows: ar,
                    inner: 1,
                    cols: br,
                    dst,
                    a,
                    b,
                    a_row_vector: false,
                },
            }
        }
        Op::Transpose => {
            let (dst, _, _) = cx.dst(inst)?;
            let (a, _, ta) = cx.val(inst, 0)?;
            let Type::Matrix { cols, rows, .. } = cx.types.get(ta).clone() else {
                return Err(cx.invalid(inst, "OpTranspose of a non-matrix"));
            };
            Inst::Transpose { dst, a, rows, cols }
        }
        Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
            let (dst, w, _) = cx.dst(inst)?;
            let (a, n, ta) = cx.val(inst, 0)?;
            let (b, _, _) = cx.val(inst, 1)?;
            if w != 2 * n {
                return Err(cx.invalid(
                    inst,
                    "result must be a struct of two members of the operand type",
                ));
            }
            let wop = match op {
                Op::IAddCarry => WideOp::AddCarry,
                Op::ISubBorrow => WideOp::SubBorrow,
                Op::UMulExtended => WideOp::UMulExtended,
                _ => WideOp::SMulExtended,
            };
            Inst::Wide {
                op: wop,
                ty: cx.elem_ty(ta),
                n,
                dst,
                a,
                b,
            }
        }
        Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract => {
            return lower_bitfield(cx, inst).map(Some);
        }
        Op::Variable
        | Op::Load
        | Op::Store
        | Op::CopyMemory
        | Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::PtrAccessChain
        | Op::InBoundsPtrAccessChain
        | Op::PtrEqual
        | Op::PtrNotEqual
        | Op::ConvertUToPtr
        | Op::ConvertPtrToU
        | Op::PtrDiff
        | Op::ArrayLength => return super::decode_memory::lower_memory(cx, inst).map(Some),
        Op::ExtInst => return lower_ext(cx, inst),
        Op::FunctionCall => {
            let callee = cx.id_op(inst, 0)?;
            let func = *cx
                .funcs
                .get(&callee)
                .ok_or_else(|| cx.invalid(inst, format!("%{callee} is not a function")))?;
            let ty = cx.result_type(inst)?;
            let dst = if matches!(cx.types.get(ty), Type::Void) {
                None
            } else {
                let (s, w, _) = cx.dst(inst)?;
                Some((s, w))
            };
            let mut args = Vec::new();
            for k in 1..inst.operands.len() {
                let (s, w, _) = cx.val(inst, k)?;
                args.push((s, w));
            }
            Inst::Call { func, dst, args }
        }
        Op::ControlBarrier => {
            let exec = cx.scope(inst, 0)?;
            let workgroup = match exec {
                s if s == Scope::Workgroup as u32 => true,
                s if s == Scope::Subgroup as u32 => false,
                s => {
                    return Err(cx.invalid(
                        inst,
                        format!(
                            "OpControlBarrier with execution scope {} (a compute shader's is Workgroup or Subgroup)",
                            Scope::from_u32(s).map_or_else(|| s.to_string(), |x| format!("{x:?}"))
                        ),
                    ))
                }
            };
            // Semantics are an <id> of a constant; an unreadable one orders nothing extra.
            let memory = cx.scope(inst, 2).unwrap_or(0);
            Inst::Barrier { workgroup, memory }
        }
        _ if is_group_op(op) => return lower_subgroup(cx, inst).map(Some),
        Op::SDot | Op::UDot | Op::SUDot | Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat => {
            return super::decode_ops::lower_dot(cx, inst).map(Some);
        }
        _ => {
            return Err(cx.unsupported(
                inst,
                format!("instruction Op{}", lanescope_spirv::op_name(op)),
            ));
        }
    }))
}
