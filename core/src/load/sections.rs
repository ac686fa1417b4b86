//! Module-level sections: capabilities, instruction numbering, names and decorations, entry
//! points and their execution modes.

use super::{Ctx, ExtSet, LoadError, LoadOptions, Location};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Op;
use std::collections::HashMap;

impl Ctx<'_> {
    /// Numbers rspirv's instructions by their index in the verbatim stream (rspirv keeps the
    /// semantic instructions in stream order; the debug-only ones never reach it).
    pub(super) fn index_ids(&mut self) -> Result<(), LoadError> {
        let mut ids = HashMap::new();
        let mut at = HashMap::new();
        let mut n = 0usize;
        for inst in super::capabilities::all_instructions(self.module) {
            let Some(&k) = self.kept.get(n) else {
                break;
            };
            n += 1;
            at.insert(std::ptr::from_ref(inst) as usize, k);
            if let Some(r) = inst.result_id {
                ids.insert(r, k);
            }
        }
        if n != self.kept.len() {
            return Err(LoadError::Malformed {
                what: format!(
                    "{} instructions parsed where the stream holds {}",
                    n,
                    self.kept.len()
                ),
                at: Location::default(),
            });
        }
        self.id_index = ids;
        self.inst_index = at;
        Ok(())
    }

    /// Makes `inst` the instruction errors name.
    pub fn set_cur(&mut self, inst: &Instruction) {
        if let Some(i) = self.inst_index.get(&(std::ptr::from_ref(inst) as usize)) {
            self.cur_index = *i;
        }
    }

    pub(super) fn read_debug_and_annotations(&mut self) {
        for i in &self.module.debug_names {
            if i.class.opcode == Op::MemberName {
                if let (
                    Some(Operand::IdRef(t)),
                    Some(Operand::LiteralBit32(m)),
                    Some(Operand::LiteralString(s)),
                ) = (i.operands.first(), i.operands.get(1), i.operands.get(2))
                {
                    self.member_names.insert((*t, *m), s.clone());
                }
            }
            if i.class.opcode == Op::Name {
                if let (Some(Operand::IdRef(id)), Some(Operand::LiteralString(s))) =
                    (i.operands.first(), i.operands.get(1))
                {
                    if !s.is_empty() {
                        self.names.insert(*id, s.clone());
                    }
                }
            }
        }
        for i in &self.module.ext_inst_imports {
            if let (Some(r), Some(Operand::LiteralString(s))) = (i.result_id, i.operands.first()) {
                let set = if s == "GLSL.std.450" {
                    ExtSet::Glsl
                } else if s.starts_with("NonSemantic.") {
                    ExtSet::NonSemantic
                } else {
                    ExtSet::Other(s.clone())
                };
                self.ext_sets.insert(r, set);
            }
        }
        for i in &self.module.annotations {
            let lits = |ops: &[Operand]| -> Vec<u32> {
                ops.iter()
                    .filter_map(|o| match o {
                        Operand::LiteralBit32(w) => Some(*w),
                        Operand::BuiltIn(b) => Some(*b as u32),
                        Operand::IdRef(w) => Some(*w),
                        _ => None,
                    })
                    .collect()
            };
            match (i.class.opcode, i.operands.as_slice()) {
                (
                    Op::Decorate | Op::DecorateId,
                    [Operand::IdRef(t), Operand::Decoration(d), rest @ ..],
                ) => {
                    self.decos.entry(*t).or_default().push((*d, lits(rest)));
                }
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(t), Operand::LiteralBit32(m), Operand::Decoration(d), rest @ ..],
                ) => {
                    self.member_decos
                        .entry((*t, *m))
                        .or_default()
                        .push((*d, lits(rest)));
                }
                _ => {}
            }
        }
    }

    pub(super) fn pick_entry(
        &self,
        opts: &LoadOptions,
    ) -> Result<(u32, String, Vec<u32>), LoadError> {
        let mut all = Vec::new();
        for e in &self.module.entry_points {
            if let (
                Some(Operand::ExecutionModel(model)),
                Some(Operand::IdRef(f)),
                Some(Operand::LiteralString(name)),
            ) = (e.operands.first(), e.operands.get(1), e.operands.get(2))
            {
                let iface: Vec<u32> = e.operands[3..]
                    .iter()
                    .filter_map(|o| match o {
                        Operand::IdRef(w) => Some(*w),
                        _ => None,
                    })
                    .collect();
                all.push((*model, *f, name.clone(), iface));
            }
        }
        let list = || {
            all.iter()
                .map(|(m, _, n, _)| format!("{n} ({m:?})"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let chosen = match &opts.entry {
            Some(want) => {
                all.iter()
                    .find(|(_, _, n, _)| n == want)
                    .ok_or_else(|| LoadError::EntryPoint {
                        what: format!("no entry point named `{want}`; the module has: {}", list()),
                    })?
            }
            None => {
                let compute: Vec<_> = all
                    .iter()
                    .filter(|(m, ..)| *m == rspirv::spirv::ExecutionModel::GLCompute)
                    .collect();
                match compute.as_slice() {
                    [one] => *one,
                    [] if all.is_empty() => {
                        return Err(LoadError::EntryPoint {
                            what: "the module has no entry point".into(),
                        })
                    }
                    [] => {
                        return Err(LoadError::EntryPoint {
                            what: format!("no GLCompute entry point; the module has: {}", list()),
                        })
                    }
                    _ => {
                        return Err(LoadError::EntryPoint {
                            what: format!("several compute entry points; choose one: {}", list()),
                        })
                    }
                }
            }
        };
        if chosen.0 != rspirv::spirv::ExecutionModel::GLCompute {
            return Err(LoadError::EntryPoint {
                what: format!(
                    "`{}` is a {:?} entry point; Lanescope simulates GLCompute shaders only",
                    chosen.2, chosen.0
                ),
            });
        }
        Ok((chosen.1, chosen.2.clone(), chosen.3.clone()))
    }

    pub(super) fn local_size(&self, entry: u32) -> Result<[u32; 3], LoadError> {
        if let Some(c) = self.workgroup_size_const {
            if let Some((_, v)) = self.consts.get(&c) {
                if v.len() == 3 {
                    return Ok([v[0] as u32, v[1] as u32, v[2] as u32]);
                }
            }
        }
        for m in &self.module.execution_modes {
            if !matches!(m.operands.first(), Some(Operand::IdRef(f)) if *f == entry) {
                continue;
            }
            match m.operands.get(1) {
                Some(Operand::ExecutionMode(rspirv::spirv::ExecutionMode::LocalSize)) => {
                    let v: Vec<u32> = m.operands[2..]
                        .iter()
                        .filter_map(|o| match o {
                            Operand::LiteralBit32(w) => Some(*w),
                            _ => None,
                        })
                        .collect();
                    if v.len() == 3 {
                        return Ok([v[0], v[1], v[2]]);
                    }
                }
                Some(Operand::ExecutionMode(rspirv::spirv::ExecutionMode::LocalSizeId)) => {
                    let mut out = [1u32; 3];
                    for (k, o) in m.operands[2..].iter().take(3).enumerate() {
                        let id = match o {
                            Operand::IdRef(w) | Operand::LiteralBit32(w) => *w,
                            _ => 0,
                        };
                        let (_, v) = self.consts.get(&id).ok_or_else(|| LoadError::Invalid {
                            what: format!("LocalSizeId operand %{id} is not a constant"),
                            at: Location::default(),
                        })?;
                        out[k] = v.first().copied().unwrap_or(1) as u32;
                    }
                    return Ok(out);
                }
                _ => {}
            }
        }
        Err(LoadError::Invalid {
            what: "compute entry point has no LocalSize or LocalSizeId execution mode".into(),
            at: Location::default(),
        })
    }
}
