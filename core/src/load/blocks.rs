//! Blocks: phis, merge instructions, terminators; other instructions go to `decode`.

use super::{decode, Ctx, LoadError};
use crate::program::{Block, Inst, Terminator, Type};
use crate::value::{mask, ScalarTy};
use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::Op;

impl Ctx<'_> {
    pub(super) fn lower_block(&mut self, func: u32, b: &dr::Block) -> Result<Block, LoadError> {
        let label_inst = b.label.as_ref();
        let label = label_inst.and_then(|l| l.result_id).unwrap_or(0);
        if let Some(l) = label_inst {
            self.set_cur(l);
        }
        let mut phis = Vec::new();
        let mut insts = Vec::new();
        let mut inst_indices = Vec::new();
        let mut merge = None;
        let mut term = None;
        let label_index = self.cur_index;
        // Memory semantics of OpMemoryBarriers waiting for the next OpControlBarrier.
        let mut pending_semantics = 0u32;
        let mut printfs = Vec::new();
        let mut prev = label_index;
        for inst in &b.instructions {
            self.set_cur(inst);
            // debugPrintf calls between the last kept instruction and this one run before it.
            self.lower_printfs(prev + 1..self.cur_index, insts.len() as u32, &mut printfs)?;
            prev = self.cur_index;
            if inst.class.opcode == Op::MemoryBarrier {
                pending_semantics |= self.scope(inst, 1).unwrap_or(0);
                continue;
            }
            let here = self.cur_index;
            if term.is_some() {
                return Err(self.invalid(inst, "instruction after the block's terminator"));
            }
            match inst.class.opcode {
                Op::Phi => phis.push(self.lower_phi(inst)?),
                Op::SelectionMerge | Op::LoopMerge => merge = Some(self.lower_merge(inst)?),
                Op::Line | Op::NoLine | Op::Nop => {}
                Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Return
                | Op::ReturnValue
                | Op::Unreachable
                | Op::Kill
                | Op::TerminateInvocation => {
                    term = Some(self.lower_terminator(inst)?);
                    inst_indices.push(here);
                }
                _ => {
                    if let Some(mut i) = decode::lower(self, inst)? {
                        if let Inst::Barrier { memory, .. } = &mut i {
                            *memory |= std::mem::take(&mut pending_semantics);
                        }
                        insts.push(i);
                        inst_indices.push(here);
                    }
                }
            }
        }
        let term = term.ok_or_else(|| LoadError::Invalid {
            what: format!("block %{label} has no terminator"),
            at: self.loc(label_inst),
        })?;
        let first_inst_index = label_index + 1;
        Ok(Block {
            label,
            func,
            phis,
            insts,
            term,
            merge,
            first_inst_index,
            inst_indices,
            printfs,
        })
    }

    pub fn block_of(&self, inst: &Instruction, id: u32) -> Result<u32, LoadError> {
        self.labels
            .get(&id)
            .copied()
            .ok_or_else(|| self.invalid(inst, format!("%{id} is not a label")))
    }

    pub(super) fn lower_phi(
        &mut self,
        inst: &Instruction,
    ) -> Result<crate::program::Phi, LoadError> {
        let rid = self.result_id(inst)?;
        let (dst, width, _) = self.value(inst, rid)?;
        let mut incoming = Vec::new();
        // A pointer phi: what its incoming pointers point into, as far as known here (values
        // from back edges are not lowered yet). One memory layout, or an error: the spec forbids
        // variable pointers to matrix columns, whose layout a plain vector's does not share.
        let mut pointer = None;
        for pair in inst.operands.chunks(2) {
            if let [Operand::IdRef(v), _] = pair {
                if let Some(info) = self.ptr_info.get(v).copied() {
                    match pointer {
                        None => pointer = Some(info),
                        Some(p) if p.layout != info.layout => {
                            return Err(self.invalid(
                                inst,
                                "a variable pointer must not point to a column of a matrix (this phi mixes memory layouts)",
                            ))
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        if let Some(p) = pointer {
            self.ptr_info.insert(rid, p);
        }
        for pair in inst.operands.chunks(2) {
            match pair {
                [Operand::IdRef(v), Operand::IdRef(p)] => {
                    let (s, w, _) = self.value(inst, *v)?;
                    if w != width {
                        return Err(
                            self.invalid(inst, format!("phi operand %{v} has the wrong type"))
                        );
                    }
                    incoming.push((self.block_of(inst, *p)?, s));
                }
                _ => return Err(self.invalid(inst, "OpPhi operands must be (value, parent) pairs")),
            }
        }
        Ok(crate::program::Phi {
            dst,
            width,
            incoming,
        })
    }

    pub(super) fn lower_merge(
        &mut self,
        inst: &Instruction,
    ) -> Result<crate::program::Merge, LoadError> {
        let merge = self.block_of(inst, self.id_op(inst, 0)?)?;
        if inst.class.opcode == Op::LoopMerge {
            let continue_target = self.block_of(inst, self.id_op(inst, 1)?)?;
            Ok(crate::program::Merge::Loop {
                merge,
                continue_target,
            })
        } else {
            Ok(crate::program::Merge::Selection { merge })
        }
    }

    pub(super) fn lower_terminator(&mut self, inst: &Instruction) -> Result<Terminator, LoadError> {
        Ok(match inst.class.opcode {
            Op::Branch => Terminator::Branch {
                target: self.block_of(inst, self.id_op(inst, 0)?)?,
            },
            Op::BranchConditional => {
                let (cond, _, cty) = self.value(inst, self.id_op(inst, 0)?)?;
                if self.types.get(cty) != &Type::Scalar(ScalarTy::Bool) {
                    return Err(self.invalid(inst, "condition must be a boolean scalar"));
                }
                let t = self.block_of(inst, self.id_op(inst, 1)?)?;
                let f = self.block_of(inst, self.id_op(inst, 2)?)?;
                let version = self.module.header.as_ref().map_or((1, 0), |h| h.version());
                if t == f && version >= (1, 6) {
                    return Err(self.invalid(
                        inst,
                        "OpBranchConditional: True Label and False Label must not be the same block from SPIR-V 1.6 on",
                    ));
                }
                Terminator::BranchConditional { cond, t, f }
            }
            Op::Switch => {
                let (selector, _, sty) = self.value(inst, self.id_op(inst, 0)?)?;
                let bits = match self.types.get(sty) {
                    Type::Scalar(ScalarTy::Int { bits, .. }) => *bits,
                    _ => {
                        return Err(self.invalid(inst, "switch selector must be an integer scalar"))
                    }
                };
                let default = self.block_of(inst, self.id_op(inst, 1)?)?;
                let mut cases = Vec::new();
                for pair in inst.operands[2..].chunks(2) {
                    let lit = match pair.first() {
                        Some(Operand::LiteralBit32(v)) => u64::from(*v),
                        Some(Operand::LiteralBit64(v)) => *v,
                        _ => return Err(self.invalid(inst, "bad OpSwitch case literal")),
                    };
                    let target = match pair.get(1) {
                        Some(Operand::IdRef(t)) => self.block_of(inst, *t)?,
                        _ => return Err(self.invalid(inst, "bad OpSwitch case target")),
                    };
                    cases.push((lit & mask(u32::from(bits)), target));
                }
                Terminator::Switch {
                    selector,
                    bits,
                    default,
                    cases,
                }
            }
            Op::Return => Terminator::Return,
            Op::ReturnValue => {
                let (src, n, _) = self.value(inst, self.id_op(inst, 0)?)?;
                Terminator::ReturnValue { src, n }
            }
            Op::Unreachable => Terminator::Unreachable,
            _ => Terminator::Kill,
        })
    }
}
