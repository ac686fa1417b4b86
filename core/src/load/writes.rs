//! Which buffer variables the module can write: a pointer's possible variables followed through
//! access chains, copies, selects, phis and function parameters, and every instruction that may
//! write through a pointer (stores, atomics, copies, cooperative-matrix stores, extended
//! instructions with out-parameters, and any instruction not known to only read) checked.
//!
//! Many shaders leave `readonly` off buffers they only read. The race detector need not log
//! reads of a buffer nothing writes (they race with nothing), and a parallel run need not track
//! them. The analysis only has to be safe: a pointer it cannot follow (loaded from memory, made
//! from an integer) that is written through counts as writing every buffer.

use rspirv::dr;
use rspirv::spirv::{Op, StorageClass};
use std::collections::HashMap;

/// The variables a pointer may point into: a set of the tracked ones (bit `k`: variable `k`),
/// or any buffer at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Roots {
    Set(u64),
    Any,
}

impl Roots {
    fn union(self, other: Roots) -> Roots {
        match (self, other) {
            (Roots::Set(a), Roots::Set(b)) => Roots::Set(a | b),
            _ => Roots::Any,
        }
    }
}

/// For each of `vars` (buffer variables' ids), whether some instruction of `module` may write
/// memory it points to.
pub(super) fn written(module: &dr::Module, vars: &[u32]) -> Vec<bool> {
    if vars.len() > 64 {
        return vec![true; vars.len()];
    }
    // Pointer types into memory a buffer may be: their pointers, when not followed, are Any.
    let mut buffer_ptr_types = std::collections::HashSet::new();
    for t in &module.types_global_values {
        if t.class.opcode == Op::TypePointer || t.class.opcode == Op::TypeUntypedPointerKHR {
            let class = match t.operands.first() {
                Some(dr::Operand::StorageClass(c)) => *c,
                _ => StorageClass::Generic,
            };
            if matches!(
                class,
                StorageClass::StorageBuffer
                    | StorageClass::Uniform
                    | StorageClass::PhysicalStorageBuffer
                    | StorageClass::Generic
            ) {
                if let Some(id) = t.result_id {
                    buffer_ptr_types.insert(id);
                }
            }
        }
    }
    let mut roots: HashMap<u32, Roots> = vars
        .iter()
        .enumerate()
        .map(|(k, v)| (*v, Roots::Set(1 << k)))
        .collect();
    let params: HashMap<u32, Vec<u32>> = module
        .functions
        .iter()
        .filter_map(|f| {
            let id = f.def.as_ref()?.result_id?;
            Some((
                id,
                f.parameters.iter().filter_map(|p| p.result_id).collect(),
            ))
        })
        .collect();
    let id = |o: Option<&dr::Operand>| match o {
        Some(dr::Operand::IdRef(i)) => Some(*i),
        _ => None,
    };
    let insts = || {
        module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter()))
    };
    // The roots of every pointer, to a fixed point (phis and parameters may name later ids).
    for _ in 0..64 {
        let mut changed = false;
        let mut add = |roots: &mut HashMap<u32, Roots>, to: u32, r: Roots| {
            let now = roots.get(&to).map_or(r, |x| x.union(r));
            if roots.get(&to) != Some(&now) {
                roots.insert(to, now);
                changed = true;
            }
        };
        for inst in insts() {
            let of = |roots: &HashMap<u32, Roots>, o: Option<&dr::Operand>| {
                id(o).and_then(|i| roots.get(&i).copied())
            };
            // The roots a derived pointer takes from its operands (none yet, when they have
            // none so far: a later pass may give them some); `None` for other instructions.
            let from: Option<Option<Roots>> = match inst.class.opcode {
                Op::AccessChain
                | Op::InBoundsAccessChain
                | Op::PtrAccessChain
                | Op::InBoundsPtrAccessChain
                | Op::CopyObject => Some(of(&roots, inst.operands.first())),
                Op::Select => Some(
                    [1, 2]
                        .iter()
                        .filter_map(|k| of(&roots, inst.operands.get(*k)))
                        .reduce(Roots::union),
                ),
                Op::Phi => Some(
                    inst.operands
                        .iter()
                        .step_by(2)
                        .filter_map(|o| of(&roots, Some(o)))
                        .reduce(Roots::union),
                ),
                Op::FunctionCall => {
                    // Arguments flow into the callee's parameters.
                    if let Some(ps) = id(inst.operands.first()).and_then(|f| params.get(&f)) {
                        for (p, a) in ps.iter().zip(&inst.operands[1..]) {
                            if let Some(r) = of(&roots, Some(a)) {
                                add(&mut roots, *p, r);
                            }
                        }
                    }
                    None
                }
                _ => None,
            };
            let Some(result) = inst.result_id else {
                continue;
            };
            let pointer_result = inst
                .result_type
                .is_some_and(|t| buffer_ptr_types.contains(&t));
            match from {
                Some(Some(r)) => add(&mut roots, result, r),
                Some(None) => {}
                // A buffer pointer from somewhere not followed (loaded from memory, made from an
                // integer, returned by a call, an instruction this does not know).
                None if pointer_result && !matches!(inst.class.opcode, Op::Variable) => {
                    add(&mut roots, result, Roots::Any)
                }
                None => {}
            }
        }
        if !changed {
            break;
        }
    }
    let mut wrote = Roots::Set(0);
    for inst in insts() {
        // Operands read only: nothing written through them here.
        let reads_only: &[usize] = match inst.class.opcode {
            Op::Load
            | Op::AtomicLoad
            | Op::ArrayLength
            | Op::CooperativeMatrixLoadKHR
            | Op::CooperativeMatrixLoadNV
            | Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain
            | Op::CopyObject
            | Op::Select
            | Op::Phi
            | Op::FunctionCall
            | Op::PtrEqual
            | Op::PtrNotEqual
            | Op::PtrDiff => &[usize::MAX],
            Op::CopyMemory | Op::CopyMemorySized => &[1],
            _ => &[],
        };
        for (k, o) in inst.operands.iter().enumerate() {
            let Some(r) = id(Some(o)).and_then(|i| roots.get(&i).copied()) else {
                continue;
            };
            if reads_only.first() == Some(&usize::MAX) || reads_only.contains(&k) {
                continue;
            }
            wrote = wrote.union(r);
        }
    }
    (0..vars.len())
        .map(|k| match wrote {
            Roots::Any => true,
            Roots::Set(m) => m & (1 << k) != 0,
        })
        .collect()
}
