//! Memory instructions lowered: function variables, loads and stores, copies, access chains,
//! pointer comparisons, conversions and differences, runtime array lengths.

use super::decode_ops::lower_access_chain;
use super::{Ctx, LoadError, PtrInfo};
use crate::program::{BinOp, ConvOp, Inst, Layout, Space, Type};
use crate::value::ScalarTy;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Op;

/// The Aligned literal of the memory operands starting at operand `k` (0 without one): the
/// first literal after the mask, since Aligned is its lowest bit with a parameter.
fn aligned(cx: &Ctx<'_>, inst: &Instruction, k: usize) -> Result<u32, LoadError> {
    let Some(Operand::MemoryAccess(m)) = inst.operands.get(k) else {
        return Ok(0);
    };
    if !m.contains(rspirv::spirv::MemoryAccess::ALIGNED) {
        return Ok(0);
    }
    match inst.operands.get(k + 1) {
        Some(Operand::LiteralBit32(a)) if a.is_power_of_two() => Ok(*a),
        Some(Operand::LiteralBit32(a)) => {
            Err(cx.invalid(inst, format!("Aligned {a} is not a power of two")))
        }
        _ => Err(cx.invalid(inst, "Aligned without its literal")),
    }
}

/// Lowers a memory instruction (one `lower_inner` routes here).
pub(super) fn lower_memory(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Inst, LoadError> {
    let op = inst.class.opcode;
    Ok(match op {
        Op::Variable => {
            let rid = cx.result_id(inst)?;
            let ty = cx.result_type(inst)?;
            let Type::Pointer {
                pointee,
                storage_class,
            } = cx.types.get(ty).clone()
            else {
                return Err(cx.invalid(inst, "OpVariable must have a pointer type"));
            };
            if storage_class != rspirv::spirv::StorageClass::Function as u32 {
                return Err(cx.invalid(
                    inst,
                    "variables inside functions must use the Function storage class",
                ));
            }
            let size = cx.types.size(pointee);
            let align = cx.types.align(pointee).max(4);
            let offset = crate::program::round_up(cx.invocation_bytes, align);
            cx.invocation_bytes = offset
                .checked_add(size)
                .filter(|s| *s <= 1 << 20)
                .ok_or_else(|| {
                    cx.unsupported(inst, "more than 1 MiB of function memory per invocation")
                })?;
            cx.ptr_info.insert(
                rid,
                PtrInfo {
                    pointee,
                    layout: Layout::Plain,
                    space: Space::Invocation,
                    descriptors: None,
                },
            );
            let init = match inst.operands.get(1) {
                Some(Operand::IdRef(c)) => {
                    let leaves = cx.leaves_of(pointee, Layout::Plain);
                    Some((cx.value(inst, *c)?.0, leaves))
                }
                _ => None,
            };
            let (dst, _, _) = cx.dst(inst)?;
            cx.variables.push(crate::program::Variable {
                id: rid,
                name: cx
                    .names
                    .get(&rid)
                    .cloned()
                    .unwrap_or_else(|| format!("%{rid}")),
                space: Space::Invocation,
                storage_class: crate::program::StorageClass::Function,
                offset,
                size,
                binding: None,
                resource: None,
                builtin: None,
                instruction: cx.cur_index,
                initialized: init.is_some(),
            });
            Inst::Variable {
                dst,
                offset,
                size,
                init,
            }
        }
        Op::Load => {
            let (dst, _, _) = cx.dst(inst)?;
            let (ptr, info) = cx.ptr(inst, 0)?;
            if matches!(
                cx.types.get(info.pointee),
                Type::Image(_) | Type::Sampler | Type::SampledImage(_)
            ) {
                // An image or sampler variable's slot holds its handle.
                return Ok(Inst::Copy {
                    dst,
                    src: ptr,
                    n: 1,
                });
            }
            if info.descriptors.is_some() {
                return Err(cx.unsupported(inst, "a load of a whole descriptor array"));
            }
            let leaves = cx.leaves_of(info.pointee, info.layout);
            Inst::Load {
                dst,
                ptr,
                leaves,
                physical: cx.types.is_physical_ptr(info.pointee),
                align: aligned(cx, inst, 1)?,
            }
        }
        Op::Store => {
            let (ptr, info) = cx.ptr(inst, 0)?;
            let (src, _, _) = cx.val(inst, 1)?;
            if info.descriptors.is_some() {
                return Err(cx.unsupported(inst, "a store to a whole descriptor array"));
            }
            let leaves = cx.leaves_of(info.pointee, info.layout);
            Inst::Store {
                ptr,
                src,
                leaves,
                align: aligned(cx, inst, 2)?,
            }
        }
        Op::CopyMemory => {
            let (dst_ptr, di) = cx.ptr(inst, 0)?;
            let (src_ptr, si) = cx.ptr(inst, 1)?;
            if di.descriptors.is_some() || si.descriptors.is_some() {
                return Err(cx.unsupported(inst, "a copy of a whole descriptor array"));
            }
            Inst::CopyMemory {
                dst_ptr,
                src_ptr,
                dst_leaves: cx.leaves_of(di.pointee, di.layout),
                src_leaves: cx.leaves_of(si.pointee, si.layout),
            }
        }
        Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::PtrAccessChain
        | Op::InBoundsPtrAccessChain => return lower_access_chain(cx, inst),
        Op::PtrEqual | Op::PtrNotEqual => {
            let (dst, _, _) = cx.dst(inst)?;
            let (a, _) = cx.ptr(inst, 0)?;
            let (b, _) = cx.ptr(inst, 1)?;
            Inst::Bin {
                op: if op == Op::PtrEqual {
                    BinOp::IEqual
                } else {
                    BinOp::INotEqual
                },
                ty: ScalarTy::Int {
                    bits: 64,
                    signed: false,
                },
                n: 1,
                dst,
                a,
                b,
            }
        }
        Op::ConvertUToPtr => {
            let (dst, _, tr) = cx.dst(inst)?;
            let (a, _, ta) = cx.val(inst, 0)?;
            if !cx.types.is_physical_ptr(tr) {
                return Err(cx.unsupported(
                    inst,
                    "OpConvertUToPtr to pointers other than PhysicalStorageBuffer pointers",
                ));
            }
            Inst::PtrFromBits {
                dst,
                a,
                bits: cx.elem_ty(ta).bits() as u8,
                pair: false,
            }
        }
        Op::ConvertPtrToU => {
            let (dst, _, tr) = cx.dst(inst)?;
            let (a, _, ta) = cx.val(inst, 0)?;
            if !cx.types.is_physical_ptr(ta) {
                return Err(cx.unsupported(
                    inst,
                    "OpConvertPtrToU of pointers other than PhysicalStorageBuffer pointers",
                ));
            }
            Inst::Conv {
                op: ConvOp::UConvert,
                from: ScalarTy::Int {
                    bits: 64,
                    signed: false,
                },
                to: cx.elem_ty(tr),
                n: 1,
                dst,
                a,
                round: None,
            }
        }
        Op::PtrDiff => {
            let (dst, _, tr) = cx.dst(inst)?;
            let (a, info) = cx.ptr(inst, 0)?;
            let (b, _) = cx.ptr(inst, 1)?;
            // The inverse of OpPtrAccessChain's Element step.
            let stride = super::decode_ops::element_stride(cx, inst, 0, info)?;
            Inst::PtrDiff {
                dst,
                a,
                b,
                stride,
                bits: cx.elem_ty(tr).bits() as u8,
            }
        }
        Op::ArrayLength => {
            let (dst, _, _) = cx.dst(inst)?;
            let (ptr, info) = cx.ptr(inst, 0)?;
            let m = cx.lit_op(inst, 1)?;
            let (member_offset, _, mt) = cx
                .types
                .member(info.pointee, info.layout, m)
                .ok_or_else(|| cx.invalid(inst, "OpArrayLength member out of range"))?;
            let Some((stride, _, _, None)) = cx.types.element_step(mt, Layout::Plain) else {
                return Err(cx.invalid(inst, "OpArrayLength member is not a runtime array"));
            };
            Inst::ArrayLength {
                dst,
                ptr,
                member_offset,
                stride,
            }
        }
        _ => {
            return Err(cx.invalid(
                inst,
                format!(
                    "Op{} is not a memory instruction",
                    lanescope_spirv::op_name(op)
                ),
            ))
        }
    })
}
