//! Cooperative matrices in the loader: `OpTypeCooperativeMatrixKHR` (with its fragment under
//! the chosen layout) and the instructions on cooperative-matrix values.

use super::decode::{bin_op, un_op};
use super::{Ctx, LoadError};
use crate::coopmat::{CoopKind, CoopOp, CoopType, MulAddFlags, MulAddTypes, Shape, Stride, Use};
use crate::program::{ConvOp, Inst, Type, TypeId};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Scope};
use std::sync::Arc;

impl Ctx<'_> {
    /// A constant operand's value.
    fn const_value(&self, inst: &Instruction, k: usize, what: &str) -> Result<u64, LoadError> {
        let id = self.id_op(inst, k)?;
        self.consts
            .get(&id)
            .and_then(|(_, v)| v.first().copied())
            .ok_or_else(|| {
                self.invalid(inst, format!("{what} %{id} must be a constant instruction"))
            })
    }

    /// Resolve `OpTypeCooperativeMatrixKHR` and lay it out.
    pub(super) fn coop_type(&mut self, inst: &Instruction) -> Result<CoopType, LoadError> {
        let ct = self.type_of_id(inst, self.id_op(inst, 0)?)?;
        let elem = match self.types.get(ct) {
            Type::Scalar(s) if *s != crate::value::ScalarTy::Bool => *s,
            _ => return Err(self.invalid(inst, "Component Type must be a scalar numerical type")),
        };
        let scope = self.const_value(inst, 1, "Scope")?;
        let rows = self.const_value(inst, 2, "Rows")?;
        let cols = self.const_value(inst, 3, "Columns")?;
        let use_raw = self.const_value(inst, 4, "Use")?;
        let use_ = Use::from_spirv(use_raw).ok_or_else(|| {
            self.invalid(
                inst,
                format!("Use {use_raw} is not a cooperative matrix use"),
            )
        })?;
        let workgroup = match scope {
            s if s == Scope::Subgroup as u64 => false,
            s if s == Scope::Workgroup as u64 => true,
            s => {
                return Err(self.unsupported(
                    inst,
                    format!(
                        "cooperative matrices of scope {s} (Subgroup and Workgroup are simulated)"
                    ),
                ))
            }
        };
        if rows == 0 || cols == 0 || rows.checked_mul(cols).is_none_or(|n| n > 1 << 16) {
            return Err(self.unsupported(inst, format!("a {rows}x{cols} cooperative matrix")));
        }
        let lanes = if workgroup {
            let n = self.workgroup_invocations().ok_or_else(|| {
                self.unsupported(
                    inst,
                    "a Workgroup-scope cooperative matrix before the workgroup size is known (use a LocalSize execution mode)",
                )
            })?;
            // Checked before the fragment tables (one entry per invocation) are built.
            if n == 0 || n > u64::from(crate::lanes::HARD_MAX_INVOCATIONS) {
                return Err(self.unsupported(
                    inst,
                    format!(
                        "a Workgroup-scope cooperative matrix in a workgroup of {n} invocations (the simulator takes 1 to {})",
                        crate::lanes::HARD_MAX_INVOCATIONS
                    ),
                ));
            }
            n as u32
        } else {
            self.coop_subgroup_size
        };
        let shape = Shape {
            use_,
            elem,
            rows: rows as u32,
            cols: cols as u32,
            lanes,
            workgroup,
        };
        let frag = self
            .coop_layout
            .fragment(&shape)
            .map_err(|e| self.unsupported(inst, e))?;
        let length = frag.length;
        let index = match self.coop_frags.iter().position(|f| **f == frag) {
            Some(i) => i,
            None => {
                self.coop_frags.push(Arc::new(frag));
                self.coop_frags.len() - 1
            }
        };
        Ok(CoopType {
            elem,
            workgroup,
            rows: rows as u32,
            cols: cols as u32,
            use_,
            frag: index as u32,
            length,
        })
    }

    /// Invocations per workgroup, when known this early (a product of three 32-bit sizes).
    fn workgroup_invocations(&self) -> Option<u64> {
        if let Some((_, v)) = self.workgroup_size_const.and_then(|c| self.consts.get(&c)) {
            return Some(v.iter().take(3).map(|x| u64::from(*x as u32)).product());
        }
        for m in &self.module.execution_modes {
            if !matches!(m.operands.first(), Some(Operand::IdRef(f)) if Some(*f) == self.entry_fn) {
                continue;
            }
            let vals: Vec<u32> = m.operands[2..]
                .iter()
                .filter_map(|o| match (m.operands.get(1), o) {
                    (
                        Some(Operand::ExecutionMode(rspirv::spirv::ExecutionMode::LocalSize)),
                        Operand::LiteralBit32(w),
                    ) => Some(*w),
                    (
                        Some(Operand::ExecutionMode(rspirv::spirv::ExecutionMode::LocalSizeId)),
                        Operand::IdRef(w),
                    ) => self
                        .consts
                        .get(w)
                        .and_then(|(_, v)| v.first())
                        .map(|x| *x as u32),
                    _ => None,
                })
                .collect();
            if vals.len() == 3 {
                return Some(vals.iter().map(|v| u64::from(*v)).product());
            }
        }
        None
    }

    fn coop_of(&self, t: TypeId) -> Option<CoopType> {
        match self.types.get(t) {
            Type::CoopMat(c) => Some(*c),
            _ => None,
        }
    }

    /// A value operand that must be a cooperative matrix.
    fn coop_operand(&self, inst: &Instruction, k: usize) -> Result<(u32, CoopType), LoadError> {
        let (slot, _, t) = self.val(inst, k)?;
        let c = self.coop_of(t).ok_or_else(|| {
            self.invalid(inst, format!("operand {k} must be a cooperative matrix"))
        })?;
        Ok((slot, c))
    }

    fn stride(&self, inst: &Instruction, k: usize) -> Result<Stride, LoadError> {
        let (slot, w, t) = self.val(inst, k).map_err(|_| {
            self.invalid(
                inst,
                "RowMajorKHR and ColumnMajorKHR need a Stride operand (an integer scalar)",
            )
        })?;
        match self.types.get(t) {
            Type::Scalar(crate::value::ScalarTy::Int { bits, signed }) if w == 1 => Ok(Stride {
                slot,
                bits: *bits,
                signed: *signed,
            }),
            _ => Err(self.invalid(inst, "Stride must be an integer scalar")),
        }
    }
}

fn op(kind: CoopKind) -> Inst {
    Inst::Coop(Box::new(CoopOp { kind }))
}

/// Lower an instruction that involves cooperative-matrix values specially; `None` when the
/// ordinary per-lane lowering is right (copies, phis, selects, composite extract/insert,
/// loads and stores of Function/Private variables, calls).
pub(super) fn lower_coop(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Option<Inst>, LoadError> {
    let opc = inst.class.opcode;
    match opc {
        Op::CooperativeMatrixLoadKHR | Op::CooperativeMatrixStoreKHR => {
            let store = opc == Op::CooperativeMatrixStoreKHR;
            let (ptr, info) = cx.ptr(inst, 0)?;
            let (value, ty) = if store {
                cx.coop_operand(inst, 1)?
            } else {
                let (d, _, t) = cx.dst(inst)?;
                let c = cx.coop_of(t).ok_or_else(|| {
                    cx.invalid(inst, "Result Type must be a cooperative matrix type")
                })?;
                (d, c)
            };
            let base = if store { 2 } else { 1 };
            if !matches!(
                cx.types.get(info.pointee),
                Type::Scalar(_) | Type::Vector { .. }
            ) {
                return Err(cx.invalid(
                    inst,
                    format!(
                        "Pointer must point to a scalar or vector (an element of an array), not {}",
                        cx.types.describe(info.pointee)
                    ),
                ));
            }
            let layout = cx.const_value(inst, base, "MemoryLayout")?;
            let col_major = match layout {
                0 => false,
                1 => true,
                l => {
                    return Err(cx.unsupported(
                        inst,
                        format!("MemoryLayout {l} (RowMajorKHR and ColumnMajorKHR are simulated)"),
                    ))
                }
            };
            let stride = cx.stride(inst, base + 1)?;
            Ok(Some(op(CoopKind::Memory {
                store,
                value,
                ty,
                ptr,
                col_major,
                stride,
                unit: cx.types.size(info.pointee),
            })))
        }
        Op::CooperativeMatrixMulAddKHR => {
            let (dst, _, tr) = cx.dst(inst)?;
            let r = cx
                .coop_of(tr)
                .ok_or_else(|| cx.invalid(inst, "Result Type must be a cooperative matrix type"))?;
            let (a, ta) = cx.coop_operand(inst, 0)?;
            let (b, tb) = cx.coop_operand(inst, 1)?;
            let (c, tc) = cx.coop_operand(inst, 2)?;
            let bits = match inst.operands.get(3) {
                Some(Operand::CooperativeMatrixOperands(f)) => f.bits(),
                Some(Operand::LiteralBit32(w)) => *w,
                _ => 0,
            };
            let check = |ok: bool, what: String| {
                if ok {
                    Ok(())
                } else {
                    Err(cx.invalid(inst, what))
                }
            };
            check(
                ta.use_ == Use::A,
                format!("A has Use {}, not MatrixAKHR", ta.use_.name()),
            )?;
            check(
                tb.use_ == Use::B,
                format!("B has Use {}, not MatrixBKHR", tb.use_.name()),
            )?;
            check(
                tc.use_ == Use::Accumulator && r.use_ == Use::Accumulator,
                "C and Result Type must have Use MatrixAccumulatorKHR".into(),
            )?;
            let (m, n, k) = (r.rows, r.cols, ta.cols);
            check(
                ta.rows == m && tc.rows == m,
                format!(
                    "M differs: A has {} rows, C {}, Result {m}",
                    ta.rows, tc.rows
                ),
            )?;
            check(
                tb.cols == n && tc.cols == n,
                format!(
                    "N differs: B has {} columns, C {}, Result {n}",
                    tb.cols, tc.cols
                ),
            )?;
            check(
                tb.rows == k,
                format!("K differs: A has {k} columns but B has {} rows", tb.rows),
            )?;
            check(
                ta.workgroup == r.workgroup
                    && tb.workgroup == r.workgroup
                    && tc.workgroup == r.workgroup,
                "A, B, C and Result Type must have the same scope".into(),
            )?;
            let floats = [ta.elem, tb.elem, tc.elem, r.elem].map(|e| e.is_any_float());
            if floats.iter().any(|f| *f != floats[0]) {
                return Err(
                    cx.unsupported(inst, "a MulAdd mixing integer and floating-point matrices")
                );
            }
            let flags = MulAddFlags::from_bits(bits);
            if floats[0] && bits & 0xf != 0 {
                return Err(cx.invalid(
                    inst,
                    "Matrix{A,B,C,Result}SignedComponentsKHR apply to integer matrices only",
                ));
            }
            if bits & !0x1f != 0 {
                return Err(cx.unsupported(inst, format!("Cooperative Matrix Operands {bits:#x}")));
            }
            Ok(Some(op(CoopKind::MulAdd {
                dst,
                a,
                b,
                c,
                tys: [ta, tb, tc, r],
                types: MulAddTypes {
                    m,
                    n,
                    k,
                    a: ta.elem,
                    b: tb.elem,
                    c: tc.elem,
                    result: r.elem,
                },
                flags,
            })))
        }
        Op::CooperativeMatrixLengthKHR => {
            let (dst, _, _) = cx.dst(inst)?;
            let t = cx.type_of_id(inst, cx.id_op(inst, 0)?)?;
            let c = cx
                .coop_of(t)
                .ok_or_else(|| cx.invalid(inst, "Type must be a cooperative matrix type"))?;
            let src = cx.const_slot(u64::from(c.length));
            Ok(Some(Inst::Copy { dst, src, n: 1 }))
        }
        _ => {
            let Some(rt) = inst.result_type.and_then(|t| cx.type_map.get(&t).copied()) else {
                return Ok(None);
            };
            let Some(r) = cx.coop_of(rt) else {
                return Ok(None);
            };
            lower_value_op(cx, inst, r)
        }
    }
}

/// Instructions producing a cooperative matrix from others (element-wise arithmetic,
/// conversions, construction).
fn lower_value_op(
    cx: &mut Ctx<'_>,
    inst: &Instruction,
    r: CoopType,
) -> Result<Option<Inst>, LoadError> {
    let opc = inst.class.opcode;
    let conv = match opc {
        Op::ConvertFToU => Some(Some(ConvOp::FToU)),
        Op::ConvertFToS => Some(Some(ConvOp::FToS)),
        Op::ConvertSToF => Some(Some(ConvOp::SToF)),
        Op::ConvertUToF => Some(Some(ConvOp::UToF)),
        Op::UConvert => Some(Some(ConvOp::UConvert)),
        Op::SConvert => Some(Some(ConvOp::SConvert)),
        Op::FConvert => Some(Some(ConvOp::FConvert)),
        Op::Bitcast => Some(None),
        _ => None,
    };
    if let Some(cop) = conv {
        let (dst, _, _) = cx.dst(inst)?;
        let (a, from) = cx.coop_operand(inst, 0)?;
        if (from.rows, from.cols, from.workgroup) != (r.rows, r.cols, r.workgroup) {
            return Err(cx.invalid(
                inst,
                "a cooperative-matrix conversion must keep the Scope, Rows and Columns",
            ));
        }
        if from.use_ != r.use_ && !(from.use_ == Use::Accumulator && r.use_ != Use::Accumulator) {
            return Err(cx.invalid(
                inst,
                format!(
                    "a conversion from Use {} to {}",
                    from.use_.name(),
                    r.use_.name()
                ),
            ));
        }
        if cop.is_none()
            && (!matches!(from.elem, crate::value::ScalarTy::Int { .. })
                || !matches!(r.elem, crate::value::ScalarTy::Int { .. })
                || from.elem.bits() != r.elem.bits())
        {
            return Err(cx.invalid(
                inst,
                "OpBitcast of cooperative matrices needs integer component types of one width",
            ));
        }
        if from.frag == r.frag {
            // Same fragment: element i of every lane converts in place.
            let inner = super::decode::lower_plain(cx, inst)?;
            return Ok(Some(op(CoopKind::Elementwise {
                inner: Box::new(inner),
                ty: r,
                uniform: None,
            })));
        }
        if cx.conversion_rounding(inst)?.is_some() {
            return Err(cx.unsupported(
                inst,
                "FPRoundingMode on a conversion between cooperative-matrix fragments",
            ));
        }
        return Ok(Some(op(CoopKind::Convert {
            op: cop,
            dst,
            a,
            from,
            to: r,
        })));
    }
    if opc == Op::CompositeConstruct {
        let (dst, _, _) = cx.dst(inst)?;
        if inst.operands.len() != 1 {
            return Err(cx.invalid(
                inst,
                "OpCompositeConstruct of a cooperative matrix takes exactly one constituent",
            ));
        }
        let (a, w, t) = cx.val(inst, 0)?;
        if w != 1 || cx.elem_ty(t) != r.elem {
            return Err(cx.invalid(
                inst,
                "the constituent must be a scalar of the matrix's component type",
            ));
        }
        return Ok(Some(op(CoopKind::Splat { dst, a, ty: r })));
    }
    let elementwise = matches!(
        opc,
        Op::SNegate
            | Op::FNegate
            | Op::IAdd
            | Op::FAdd
            | Op::ISub
            | Op::FSub
            | Op::FMul
            | Op::IMul
            | Op::FDiv
            | Op::SDiv
            | Op::UDiv
            | Op::MatrixTimesScalar
    );
    if elementwise {
        if r.elem == crate::value::ScalarTy::BFloat16 {
            return Err(cx.unsupported(
                inst,
                "element-wise arithmetic on bf16 cooperative matrices (convert to f32 first)",
            ));
        }
        let float = r.elem.is_any_float();
        let name = format!("Op{}", lanescope_spirv::op_name(opc));
        let fop = name.starts_with("OpF") || opc == Op::MatrixTimesScalar;
        if opc != Op::MatrixTimesScalar && fop != float {
            return Err(cx.invalid(
                inst,
                format!(
                    "{name} on a cooperative matrix of {}",
                    crate::program::scalar_name(r.elem)
                ),
            ));
        }
        let n_ops = if bin_op(opc).is_some() { 2 } else { 1 };
        for k in 0..n_ops {
            let (_, _, t) = cx.val(inst, k)?;
            if (opc != Op::MatrixTimesScalar || k == 0) && cx.coop_of(t) != Some(r) {
                return Err(cx.invalid(
                    inst,
                    "operands must be cooperative matrices of the Result Type",
                ));
            }
        }
        let uniform = if opc == Op::MatrixTimesScalar {
            let (s, w, t) = cx.val(inst, 1)?;
            if w != 1 || cx.elem_ty(t) != r.elem {
                return Err(cx.invalid(inst, "Scalar must have the matrix's component type"));
            }
            Some(s)
        } else {
            None
        };
        let inner = super::decode::lower_plain(cx, inst)?;
        return Ok(Some(op(CoopKind::Elementwise {
            inner: Box::new(inner),
            ty: r,
            uniform,
        })));
    }
    if bin_op(opc).is_some() || un_op(opc).is_some() {
        return Err(cx.invalid(
            inst,
            format!(
                "Op{} is not defined on cooperative matrices",
                lanescope_spirv::op_name(opc)
            ),
        ));
    }
    Ok(None)
}
