//! Constants: OpConstant*, OpSpecConstant* with the load options' overrides applied, and OpSpecConstantOp folded with the same ALU functions the interpreter uses.

use super::{Ctx, LoadError, LoadOptions};
use crate::alu;
use crate::program::{ConvOp, SpecConstantInfo, Type, TypeId};
use crate::value::{mask, ScalarTy};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op};

impl Ctx<'_> {
    pub(super) fn read_constant(
        &mut self,
        inst: &Instruction,
        opts: &LoadOptions,
    ) -> Result<(), LoadError> {
        let rid = self.result_id(inst)?;
        let ty = self.result_type(inst)?;
        let flat = self.types.flat[ty as usize].clone();
        let spec_id = self.deco_lit(rid, Decoration::SpecId);
        let value: Vec<u64> = match inst.class.opcode {
            Op::ConstantTrue | Op::SpecConstantTrue => vec![1],
            Op::ConstantFalse | Op::SpecConstantFalse => vec![0],
            Op::Constant | Op::SpecConstant => {
                let s = *flat
                    .first()
                    .ok_or_else(|| self.invalid(inst, "constant of non-scalar type"))?;
                let v = match inst.operands.first() {
                    Some(Operand::LiteralBit32(w)) => u64::from(*w),
                    Some(Operand::LiteralBit64(w)) => *w,
                    _ => return Err(self.invalid(inst, "constant without a literal value")),
                };
                vec![v & mask(s.bits())]
            }
            Op::ConstantComposite | Op::SpecConstantComposite
                if matches!(self.types.get(ty), Type::CoopMat(_)) =>
            {
                // One constituent initialises every component.
                let [Operand::IdRef(c)] = inst.operands.as_slice() else {
                    return Err(self.invalid(
                        inst,
                        "a cooperative-matrix constant takes exactly one constituent",
                    ));
                };
                let (ct, cv) = self.consts.get(c).ok_or_else(|| {
                    self.invalid(inst, format!("constituent %{c} is not a constant"))
                })?;
                if cv.len() != 1 || self.types.flat[*ct as usize].first() != flat.first() {
                    return Err(self.invalid(
                        inst,
                        "the constituent must be a scalar of the matrix's component type",
                    ));
                }
                vec![cv[0]; flat.len()]
            }
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let mut v = Vec::with_capacity(flat.len());
                for o in &inst.operands {
                    let Operand::IdRef(c) = o else {
                        return Err(self.invalid(inst, "composite constituent must be an <id>"));
                    };
                    let (_, cv) = self.consts.get(c).ok_or_else(|| {
                        self.invalid(inst, format!("constituent %{c} is not a constant"))
                    })?;
                    v.extend_from_slice(cv);
                }
                if v.len() != flat.len() {
                    return Err(self.invalid(
                        inst,
                        "composite constant has the wrong number of components",
                    ));
                }
                v
            }
            // A null pointer points nowhere: not at the start of the first buffer. A physical
            // one is address 0, where no buffer is.
            Op::ConstantNull if matches!(self.types.get(ty), Type::Pointer { .. }) => {
                vec![if self.types.is_physical_ptr(ty) {
                    0
                } else {
                    crate::program::NULL_PTR
                }]
            }
            Op::ConstantNull | Op::Undef => vec![0; flat.len()],
            _ => self.spec_constant_op(inst, ty)?,
        };
        let mut value = value;
        if let Some(sid) = spec_id {
            if let Some(s) = flat.first() {
                self.spec_infos.push(SpecConstantInfo {
                    spec_id: sid,
                    result_id: rid,
                    name: self
                        .names
                        .get(&rid)
                        .cloned()
                        .unwrap_or_else(|| format!("%{rid}")),
                    ty: *s,
                    default: value[0],
                });
                if let Some(v) = opts.spec.get(&sid) {
                    value[0] = v.bits_for(*s).map_err(|e| {
                        self.invalid_option(
                            inst,
                            format!(
                                "specialization constant {sid} (`{}`): {e}",
                                self.names
                                    .get(&rid)
                                    .cloned()
                                    .unwrap_or_else(|| format!("%{rid}"))
                            ),
                        )
                    })?;
                }
            }
        }
        if self
            .has_deco(rid, Decoration::BuiltIn)
            .is_some_and(|v| v.first() == Some(&(BuiltIn::WorkgroupSize as u32)))
        {
            self.workgroup_size_const = Some(rid);
        }
        if value.len() != flat.len() {
            return Err(self.invalid(inst, "constant does not match its type"));
        }
        let slot = self.alloc_slot(inst, rid, ty)?;
        if inst.class.opcode == Op::Undef {
            self.undef_slots.push((slot, value.len() as u32));
        }
        for (k, v) in value.iter().enumerate() {
            if *v != 0 {
                self.const_slots.push((slot + k as u32, *v));
            }
        }
        self.consts.insert(rid, (ty, value));
        Ok(())
    }

    pub(super) fn spec_constant_op(
        &mut self,
        inst: &Instruction,
        ty: TypeId,
    ) -> Result<Vec<u64>, LoadError> {
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = inst.operands.first() else {
            return Err(self.invalid(inst, "OpSpecConstantOp without an opcode"));
        };
        let arg = |k: usize| -> Result<(TypeId, Vec<u64>), LoadError> {
            match inst.operands.get(k) {
                Some(Operand::IdRef(id)) => self
                    .consts
                    .get(id)
                    .cloned()
                    .ok_or_else(|| self.invalid(inst, format!("%{id} is not a constant"))),
                _ => Err(self.invalid(inst, format!("operand {k} missing"))),
            }
        };
        let lits: Vec<u32> = inst.operands[1..]
            .iter()
            .filter_map(|o| match o {
                Operand::LiteralBit32(w) => Some(*w),
                _ => None,
            })
            .collect();
        let out_flat = self.types.flat[ty as usize].clone();
        let elem = |t: TypeId, this: &Self| {
            this.types.flat[t as usize]
                .first()
                .copied()
                .unwrap_or(ScalarTy::U32)
        };
        if let Some(bop) = super::decode::bin_op(*op) {
            let (ta, a) = arg(1)?;
            let (_, b) = arg(2)?;
            let sty = elem(ta, self);
            return Ok(a
                .iter()
                .zip(b.iter().cycle())
                .map(|(x, y)| alu::bin_in(bop, sty, *x, *y, self.float_controls.of(sty)).0)
                .collect());
        }
        if let Some(uop) = super::decode::un_op(*op) {
            let (ta, a) = arg(1)?;
            let sty = elem(ta, self);
            // Float controls apply to folding too, except to OpQuantizeToF16 (which `un_in`
            // never rounds by them).
            let mode = self.float_controls.of(sty);
            return Ok(a.iter().map(|x| alu::un_in(uop, sty, *x, mode)).collect());
        }
        let conv = match op {
            Op::UConvert => Some(ConvOp::UConvert),
            Op::SConvert => Some(ConvOp::SConvert),
            Op::FConvert => Some(ConvOp::FConvert),
            Op::ConvertFToS => Some(ConvOp::FToS),
            Op::ConvertFToU => Some(ConvOp::FToU),
            Op::ConvertSToF => Some(ConvOp::SToF),
            Op::ConvertUToF => Some(ConvOp::UToF),
            _ => None,
        };
        if let Some(c) = conv {
            let (ta, a) = arg(1)?;
            let from = elem(ta, self);
            let to = out_flat.first().copied().unwrap_or(ScalarTy::U32);
            let modes = alu::ConvModes::new(&self.float_controls, from, to)
                .decorated(self.conversion_rounding(inst)?);
            return Ok(a
                .iter()
                .map(|x| alu::conv_in(c, from, to, *x, modes).0)
                .collect());
        }
        match op {
            Op::CooperativeMatrixLengthKHR => {
                let Some(Operand::IdRef(t)) = inst.operands.get(1) else {
                    return Err(self.invalid(inst, "OpCooperativeMatrixLengthKHR needs a type"));
                };
                let t = self.type_of_id(inst, *t)?;
                match self.types.get(t) {
                    Type::CoopMat(c) => Ok(vec![u64::from(c.length)]),
                    _ => Err(self.invalid(
                        inst,
                        "OpCooperativeMatrixLengthKHR of a type that is not a cooperative matrix",
                    )),
                }
            }
            Op::Select => {
                let (_, c) = arg(1)?;
                let (_, a) = arg(2)?;
                let (_, b) = arg(3)?;
                Ok((0..a.len())
                    .map(|k| {
                        if c[k.min(c.len() - 1)] != 0 {
                            a[k]
                        } else {
                            b[k]
                        }
                    })
                    .collect())
            }
            Op::CompositeExtract => {
                let (mut t, v) = arg(1)?;
                let mut off = 0u32;
                for l in &lits {
                    let (o, _, sub) = self
                        .types
                        .component_range(t, *l)
                        .ok_or_else(|| self.invalid(inst, "index out of range"))?;
                    off += o;
                    t = if sub == TypeId::MAX { ty } else { sub };
                }
                let w = out_flat.len();
                Ok(v[off as usize..off as usize + w].to_vec())
            }
            Op::CompositeInsert => {
                let (_, obj) = arg(1)?;
                let (mut t, mut v) = arg(2)?;
                let mut off = 0u32;
                for l in &lits {
                    let (o, _, sub) = self
                        .types
                        .component_range(t, *l)
                        .ok_or_else(|| self.invalid(inst, "index out of range"))?;
                    off += o;
                    t = if sub == TypeId::MAX { t } else { sub };
                }
                v[off as usize..off as usize + obj.len()].copy_from_slice(&obj);
                Ok(v)
            }
            Op::VectorShuffle => {
                let (_, a) = arg(1)?;
                let (_, b) = arg(2)?;
                Ok(lits
                    .iter()
                    .map(|&i| {
                        let i = i as usize;
                        if i < a.len() {
                            a[i]
                        } else {
                            b.get(i - a.len()).copied().unwrap_or(0)
                        }
                    })
                    .collect())
            }
            other => Err(self.unsupported(
                inst,
                format!(
                    "OpSpecConstantOp with Op{}",
                    lanescope_spirv::op_name(*other)
                ),
            )),
        }
    }
}
