//! Lowering of the instruction families with more structure: access chains, extended
//! instructions, bit-field ops and subgroup operations.

use super::{Ctx, ExtSet, LoadError, PtrInfo};
use crate::program::{
    AccessStep, GroupOp, Inst, ReduceOp, SubgroupOp, Type, TypeId, BITFIELD_INSERT,
    BITFIELD_SEXTRACT, BITFIELD_UEXTRACT,
};
use crate::value::ScalarTy;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{GroupOperation, Op, Scope};

pub(super) fn is_group_op(op: Op) -> bool {
    lanescope_spirv::op_name(op).starts_with("GroupNonUniform")
}

pub(super) fn lower_bitfield(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Inst, LoadError> {
    // Lowered as a Construct-free pure op: encode as Ext with a private instruction number.
    let (dst, _, tr) = cx.dst(inst)?;
    let mut args = Vec::new();
    for k in 0..inst.operands.len() {
        let (s, w, t) = cx.val(inst, k)?;
        args.push((s, cx.elem_ty(t), w));
    }
    let code = match inst.class.opcode {
        Op::BitFieldInsert => BITFIELD_INSERT,
        Op::BitFieldSExtract => BITFIELD_SEXTRACT,
        _ => BITFIELD_UEXTRACT,
    };
    Ok(Inst::Ext {
        opcode: code,
        out_tys: cx.types.flat[tr as usize].clone(),
        dst,
        args,
        ptr_out: None,
    })
}

pub(super) fn lower_ext(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Option<Inst>, LoadError> {
    let set = cx.id_op(inst, 0)?;
    match cx.ext_sets.get(&set) {
        Some(ExtSet::NonSemantic) => return Ok(None),
        Some(ExtSet::Glsl) => {}
        Some(ExtSet::Other(name)) => {
            let name = name.clone();
            return Err(cx.unsupported(inst, format!("extended instruction set `{name}`")));
        }
        None => {
            return Err(cx.invalid(
                inst,
                format!("%{set} is not an extended instruction set (OpExtInstImport)"),
            ))
        }
    }
    let code = match inst.operands.get(1) {
        Some(Operand::LiteralExtInstInteger(c)) => *c,
        _ => return Err(cx.invalid(inst, "OpExtInst without an instruction number")),
    };
    if code > 81 || (76..=78).contains(&code) {
        return Err(cx.unsupported(
            inst,
            format!(
                "GLSL.std.450 {} (not available in compute shaders)",
                crate::glsl450::name(code)
            ),
        ));
    }
    let (dst, _, tr) = cx.dst(inst)?;
    let mut out_tys = cx.types.flat[tr as usize].clone();
    let mut args = Vec::new();
    let mut ptr_out = None;
    // Modf (35) and Frexp (51) write their second result through a pointer operand.
    let pointer_form = matches!(code, 35 | 51);
    for k in 2..inst.operands.len() {
        if pointer_form && k == 3 {
            let (p, info) = cx.ptr(inst, k)?;
            out_tys.extend_from_slice(&cx.types.flat[info.pointee as usize].clone());
            ptr_out = Some((p, cx.leaves_of(info.pointee, info.layout)));
            continue;
        }
        let (s, w, t) = cx.val(inst, k)?;
        args.push((s, cx.elem_ty(t), w));
    }
    // SPV_KHR_bfloat16 allows no extended instruction on bfloat16; the evaluator would read it
    // as an IEEE f16.
    if args
        .iter()
        .map(|a| &a.1)
        .chain(&out_tys)
        .any(|t| *t == ScalarTy::BFloat16)
    {
        return Err(cx.unsupported(
            inst,
            format!(
                "GLSL.std.450 {} on bfloat16 operands",
                crate::glsl450::name(code)
            ),
        ));
    }
    Ok(Some(Inst::Ext {
        opcode: code,
        out_tys,
        dst,
        args,
        ptr_out,
    }))
}

/// Bytes between consecutive pointees of the pointer operand `k` (an OpPtrAccessChain's
/// Element, an OpPtrDiff's unit): the pointer type's ArrayStride in explicitly laid out memory
/// (buffers, Block Workgroup memory), else the pointee's natural array stride (an ArrayStride
/// there does not apply).
pub(super) fn element_stride(
    cx: &Ctx<'_>,
    inst: &Instruction,
    k: usize,
    info: PtrInfo,
) -> Result<u32, LoadError> {
    let (_, _, pty) = cx.value(inst, cx.id_op(inst, k)?)?;
    let explicit = match info.space {
        crate::program::Space::Buffer => true,
        crate::program::Space::Workgroup => cx.block_workgroup_vars,
        crate::program::Space::Invocation => false,
    };
    Ok(cx
        .types
        .spirv_ids
        .get(pty as usize)
        .filter(|_| explicit)
        .and_then(|sid| cx.deco_lit(*sid, rspirv::spirv::Decoration::ArrayStride))
        .unwrap_or_else(|| cx.types.natural_stride(info.pointee))
        .max(1))
}

pub(super) fn lower_access_chain(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Inst, LoadError> {
    let (dst, _, _) = cx.dst(inst)?;
    let (base, info) = cx.ptr(inst, 0)?;
    let mut t = info.pointee;
    let mut layout = info.layout;
    let mut steps: Vec<AccessStep> = Vec::new();
    let mut const_off = 0u32;
    let mut first = 1;
    if matches!(
        inst.class.opcode,
        Op::PtrAccessChain | Op::InBoundsPtrAccessChain
    ) {
        first = 2;
        let id = cx.id_op(inst, 1)?;
        let stride = element_stride(cx, inst, 0, info)?;
        // The Element counts whole pointees either way from the base: read as signed whatever
        // its type's signedness.
        match cx.consts.get(&id) {
            Some((ct, v)) => {
                let ity = cx.elem_ty(*ct);
                let idx = crate::value::sext(v.first().copied().unwrap_or(0), ity.bits());
                steps.push(AccessStep::Shift(i64::from(stride).wrapping_mul(idx)));
            }
            None => {
                let (index, _, ti) = cx.value(inst, id)?;
                let ity = cx.elem_ty(ti);
                steps.push(AccessStep::Dyn {
                    index,
                    bits: ity.bits() as u8,
                    signed: true,
                    stride,
                    len: None,
                    element: true,
                });
            }
        }
    }
    let mut picked = info.descriptors.is_none();
    if let Some(count) = info.descriptors {
        // The first index picks the buffer of a descriptor array.
        if first != 1 {
            return Err(cx.unsupported(
                inst,
                "an OpPtrAccessChain on a descriptor array (it would step across arrays)",
            ));
        }
        if let Some(Operand::IdRef(id)) = inst.operands.get(1) {
            let (index, _, ti) = cx.value(inst, *id)?;
            let ity = cx.elem_ty(ti);
            if let Some((ct, v)) = cx.consts.get(id) {
                let cty = cx.elem_ty(*ct);
                let raw = v.first().copied().unwrap_or(0);
                let i = if cty.is_signed() {
                    crate::value::sext(raw, cty.bits())
                } else {
                    raw as i64
                };
                if !(0..i64::from(count)).contains(&i) {
                    return Err(cx.invalid(
                        inst,
                        format!("constant index {i} outside a descriptor array of {count}"),
                    ));
                }
            }
            let (_, sub_layout, elem, _) = cx.types.element_step(t, layout).ok_or_else(|| {
                cx.invalid(inst, format!("cannot index into {}", cx.types.describe(t)))
            })?;
            // An image handle with a sampler names the sampler's resource in its low bits.
            let low = match cx.types.get(elem) {
                Type::Sampler => 1,
                Type::SampledImage(i) => u8::from(i.dim != crate::program::image::Dim::Buffer),
                _ => 0,
            };
            steps.push(AccessStep::Descriptor {
                index,
                bits: ity.bits() as u8,
                signed: ity.is_signed(),
                count,
                low,
            });
            t = elem;
            layout = sub_layout;
            first = 2;
            picked = true;
        }
    }
    for k in first..inst.operands.len() {
        let id = cx.id_op(inst, k)?;
        let constant = cx
            .consts
            .get(&id)
            .map(|(ct, v)| (cx.elem_ty(*ct), v.first().copied().unwrap_or(0)));
        if let Type::Struct { .. } = cx.types.get(t) {
            let Some((_, idx)) = constant else {
                return Err(cx.invalid(inst, "struct index must be a constant"));
            };
            let (off, l, mt) = cx
                .types
                .member(t, layout, idx as u32)
                .ok_or_else(|| cx.invalid(inst, format!("struct member {idx} out of range")))?;
            const_off = const_off.saturating_add(off);
            t = mt;
            layout = l;
            continue;
        }
        let (stride, sub_layout, mut elem, len) =
            cx.types.element_step(t, layout).ok_or_else(|| {
                cx.invalid(inst, format!("cannot index into {}", cx.types.describe(t)))
            })?;
        if elem == TypeId::MAX {
            let s = cx.elem_ty(t);
            elem = cx.scalar_type_id(s);
        }
        match constant {
            Some((ity, idx)) => {
                let idx = if ity.is_signed() {
                    crate::value::sext(idx, ity.bits())
                } else {
                    idx as i64
                };
                if idx < 0 || len.is_some_and(|n| idx >= i64::from(n)) {
                    return Err(cx.invalid(inst, format!("constant index {idx} out of bounds")));
                }
                const_off = const_off.saturating_add((idx as u32).saturating_mul(stride));
            }
            None => {
                let (index, _, ti) = cx.value(inst, id)?;
                let ity = cx.elem_ty(ti);
                if const_off != 0 {
                    steps.push(AccessStep::Const(const_off));
                    const_off = 0;
                }
                steps.push(AccessStep::Dyn {
                    index,
                    bits: ity.bits() as u8,
                    signed: ity.is_signed(),
                    stride,
                    len,
                    element: false,
                });
            }
        }
        t = elem;
        layout = sub_layout;
    }
    if const_off != 0 || steps.is_empty() {
        steps.push(AccessStep::Const(const_off));
    }
    let rid = cx.result_id(inst)?;
    cx.ptr_info.insert(
        rid,
        PtrInfo {
            pointee: t,
            layout,
            space: info.space,
            descriptors: (!picked).then_some(info.descriptors).flatten(),
        },
    );
    Ok(Inst::AccessChain { dst, base, steps })
}

pub(super) fn lower_group_arith(
    cx: &mut Ctx<'_>,
    inst: &Instruction,
    g: ReduceOp,
) -> Result<Inst, LoadError> {
    let scope = cx.scope(inst, 0)?;
    if scope != Scope::Subgroup as u32 {
        return Err(cx.unsupported(
            inst,
            "non-uniform group operations with a scope other than Subgroup",
        ));
    }
    let (dst, n, _) = cx.dst(inst)?;
    let group = match inst.operands.get(1) {
        Some(Operand::GroupOperation(GroupOperation::Reduce)) => GroupOp::Reduce,
        Some(Operand::GroupOperation(GroupOperation::InclusiveScan)) => GroupOp::InclusiveScan,
        Some(Operand::GroupOperation(GroupOperation::ExclusiveScan)) => GroupOp::ExclusiveScan,
        Some(Operand::GroupOperation(GroupOperation::ClusteredReduce)) => {
            GroupOp::Clustered(cx.val(inst, 3)?.0)
        }
        Some(Operand::GroupOperation(
            p @ (GroupOperation::PartitionedReduceEXT
            | GroupOperation::PartitionedInclusiveScanEXT
            | GroupOperation::PartitionedExclusiveScanEXT),
        )) => {
            let (ballot, w, _) = cx.val(inst, 3)?;
            if w != 4 {
                return Err(cx.invalid(inst, "a partitioned operation's Ballot must be a uvec4"));
            }
            GroupOp::Partitioned {
                scan: match p {
                    GroupOperation::PartitionedInclusiveScanEXT => Some(true),
                    GroupOperation::PartitionedExclusiveScanEXT => Some(false),
                    _ => None,
                },
                ballot,
            }
        }
        other => return Err(cx.unsupported(inst, format!("group operation {other:?}"))),
    };
    let (a, _, ta) = cx.val(inst, 2)?;
    Ok(Inst::Subgroup {
        op: SubgroupOp::Arith { op: g, group },
        ty: cx.elem_ty(ta),
        n,
        dst,
        a,
    })
}

pub(super) fn lower_subgroup(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Inst, LoadError> {
    let op = inst.class.opcode;
    // The quad votes and the partition have no Execution scope operand: they are subgroup
    // operations by definition.
    let unscoped = match op {
        Op::GroupNonUniformQuadAllKHR => Some(SubgroupOp::QuadAll),
        Op::GroupNonUniformQuadAnyKHR => Some(SubgroupOp::QuadAny),
        Op::GroupNonUniformPartitionEXT => Some(SubgroupOp::Partition),
        _ => None,
    };
    if let Some(sop) = unscoped {
        let (dst, n, _) = cx.dst(inst)?;
        let (a, w, ta) = cx.val(inst, 0)?;
        if sop == SubgroupOp::Partition && n != 4 {
            return Err(cx.invalid(
                inst,
                "OpGroupNonUniformPartitionNV's result must be a uvec4",
            ));
        }
        return Ok(Inst::Subgroup {
            op: sop,
            ty: cx.elem_ty(ta),
            n: w,
            dst,
            a,
        });
    }
    let scope = cx.scope(inst, 0)?;
    // A Workgroup-scope rotate reads invocation ((L + Delta) & (G - 1)) + (L & !(G - 1)) of the
    // linear local index L, with G the ClusterSize or the subgroup size: subgroups are aligned
    // runs of the linear index, so that invocation is in the same subgroup and the rotate is the
    // subgroup one.
    let rotate_workgroup = op == Op::GroupNonUniformRotateKHR && scope == Scope::Workgroup as u32;
    if scope != Scope::Subgroup as u32 && !rotate_workgroup {
        return Err(cx.unsupported(
            inst,
            format!(
                "Op{} with a scope other than Subgroup",
                lanescope_spirv::op_name(op)
            ),
        ));
    }
    let (dst, n, tr) = cx.dst(inst)?;
    let arg = |k: usize| cx.val(inst, k);
    let (sop, a, ta) = match op {
        Op::GroupNonUniformElect => (SubgroupOp::Elect, 0, tr),
        Op::GroupNonUniformAll => (SubgroupOp::All, arg(1)?.0, arg(1)?.2),
        Op::GroupNonUniformAny => (SubgroupOp::Any, arg(1)?.0, arg(1)?.2),
        Op::GroupNonUniformAllEqual => (SubgroupOp::AllEqual, arg(1)?.0, arg(1)?.2),
        Op::GroupNonUniformBroadcast => (
            SubgroupOp::Broadcast { lane: arg(2)?.0 },
            arg(1)?.0,
            arg(1)?.2,
        ),
        Op::GroupNonUniformBroadcastFirst => (SubgroupOp::BroadcastFirst, arg(1)?.0, arg(1)?.2),
        Op::GroupNonUniformBallot => (SubgroupOp::Ballot, arg(1)?.0, arg(1)?.2),
        Op::GroupNonUniformInverseBallot => (SubgroupOp::InverseBallot, arg(1)?.0, arg(1)?.2),
        Op::GroupNonUniformBallotBitExtract => (
            SubgroupOp::BallotBitExtract { index: arg(2)?.0 },
            arg(1)?.0,
            arg(1)?.2,
        ),
        Op::GroupNonUniformBallotBitCount => {
            let group = match inst.operands.get(1) {
                Some(Operand::GroupOperation(GroupOperation::Reduce)) => GroupOp::Reduce,
                Some(Operand::GroupOperation(GroupOperation::InclusiveScan)) => {
                    GroupOp::InclusiveScan
                }
                Some(Operand::GroupOperation(GroupOperation::ExclusiveScan)) => {
                    GroupOp::ExclusiveScan
                }
                other => {
                    return Err(cx.invalid(
                        inst,
                        format!("group operation {other:?} for a ballot bit count"),
                    ))
                }
            };
            (SubgroupOp::BallotBitCount(group), arg(2)?.0, arg(2)?.2)
        }
        Op::GroupNonUniformBallotFindLSB => (SubgroupOp::BallotFindLsb, arg(1)?.0, arg(1)?.2),
        Op::GroupNonUniformBallotFindMSB => (SubgroupOp::BallotFindMsb, arg(1)?.0, arg(1)?.2),
        Op::GroupNonUniformShuffle => (
            SubgroupOp::Shuffle { lane: arg(2)?.0 },
            arg(1)?.0,
            arg(1)?.2,
        ),
        Op::GroupNonUniformShuffleXor => (
            SubgroupOp::ShuffleXor { mask: arg(2)?.0 },
            arg(1)?.0,
            arg(1)?.2,
        ),
        Op::GroupNonUniformShuffleUp => (
            SubgroupOp::ShuffleUp { delta: arg(2)?.0 },
            arg(1)?.0,
            arg(1)?.2,
        ),
        Op::GroupNonUniformShuffleDown => (
            SubgroupOp::ShuffleDown { delta: arg(2)?.0 },
            arg(1)?.0,
            arg(1)?.2,
        ),
        Op::GroupNonUniformQuadBroadcast => (
            SubgroupOp::QuadBroadcast { index: arg(2)?.0 },
            arg(1)?.0,
            arg(1)?.2,
        ),
        Op::GroupNonUniformRotateKHR => {
            let cluster = if inst.operands.len() > 3 {
                let id = cx.id_op(inst, 3)?;
                if !cx.consts.contains_key(&id) {
                    return Err(
                        cx.invalid(inst, "ClusterSize must come from a constant instruction")
                    );
                }
                Some(cx.value(inst, id)?.0)
            } else {
                None
            };
            (
                SubgroupOp::Rotate {
                    delta: arg(2)?.0,
                    cluster,
                },
                arg(1)?.0,
                arg(1)?.2,
            )
        }
        Op::GroupNonUniformQuadSwap => {
            check_quad_swap_direction(cx, inst)?;
            (
                SubgroupOp::QuadSwap {
                    direction: arg(2)?.0,
                },
                arg(1)?.0,
                arg(1)?.2,
            )
        }
        _ => {
            return Err(cx.unsupported(
                inst,
                format!("instruction Op{}", lanescope_spirv::op_name(op)),
            ))
        }
    };
    let _ = n;
    let width = cx.types.width(ta);
    Ok(Inst::Subgroup {
        op: sop,
        ty: cx.elem_ty(ta),
        n: width,
        dst,
        a,
    })
}

/// OpGroupNonUniformQuadSwap's Direction: a constant instruction, 0, 1 or 2.
fn check_quad_swap_direction(cx: &Ctx<'_>, inst: &Instruction) -> Result<(), LoadError> {
    const RULE: &str = "OpGroupNonUniformQuadSwap Direction must";
    let id = cx.id_op(inst, 2)?;
    match cx.consts.get(&id).and_then(|(_, v)| v.first().copied()) {
        Some(0..=2) => Ok(()),
        Some(d) => Err(cx.invalid(inst, format!("{RULE} be 0, 1 or 2 (it is {d})"))),
        None => Err(cx.invalid(inst, format!("{RULE} come from a constant instruction"))),
    }
}

pub(super) fn lower_dot(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Inst, LoadError> {
    use crate::dot::DotKind;
    let op = inst.class.opcode;
    let kind = match op {
        Op::SDot | Op::SDotAccSat => DotKind::Signed,
        Op::UDot | Op::UDotAccSat => DotKind::Unsigned,
        _ => DotKind::Mixed,
    };
    let (dst, _, tr) = cx.dst(inst)?;
    let result_bits = match cx.types.get(tr) {
        Type::Scalar(crate::value::ScalarTy::Int { bits, .. }) => u32::from(*bits),
        _ => return Err(cx.invalid(inst, "dot product result must be an integer scalar")),
    };
    let (a, na, ta) = cx.val(inst, 0)?;
    let (b, nb, _) = cx.val(inst, 1)?;
    let acc = if matches!(op, Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat) {
        Some(cx.val(inst, 2)?.0)
    } else {
        None
    };
    let packed = inst
        .operands
        .iter()
        .any(|o| matches!(o, Operand::PackedVectorFormat(_)));
    let comp_bits = cx.elem_ty(ta).bits();
    if na != nb {
        return Err(cx.invalid(inst, "dot product operands differ in component count"));
    }
    let (comp_bits, n) = if packed {
        if na != 1 || comp_bits != 32 {
            return Err(cx.invalid(
                inst,
                "PackedVectorFormat4x8Bit operands must be 32-bit scalars",
            ));
        }
        (8, 4)
    } else {
        if na < 2 {
            return Err(cx.invalid(
                inst,
                "scalar dot product operands need PackedVectorFormat4x8Bit",
            ));
        }
        (comp_bits, na)
    };
    if result_bits < comp_bits {
        return Err(cx.invalid(
            inst,
            format!("result width {result_bits} is narrower than the {comp_bits}-bit components"),
        ));
    }
    Ok(Inst::IntDot {
        kind,
        packed,
        comp_bits,
        n,
        result_bits,
        dst,
        a,
        b,
        acc,
    })
}
