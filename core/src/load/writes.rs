//! Which buffer variables the module can write: a pointer's possible variables followed through
//! access chains, copies, selects, phis and function parameters, and every instruction that may
//! write through a pointer (stores, atomics, copies, cooperative-matrix stores, extended
//! instructions with out-parameters, and any instruction not known to only read) checked.
//!
//! Many shaders leave `readonly` off buffers they only read. The race detector need not log
//! reads of a buffer nothing writes (they race with nothing), and a parallel run need not track
//! them. The analysis only has to be safe: a pointer it cannot follow (loaded from memory, made
//! from an integer) that is written through counts as writing every buffer.
//!
//! Tables are dense, by id (plain vectors: the browser's download pays for each new hash map
//! type); a module whose ids run past [`MAX_ID`] is taken as writing everything.

use rspirv::dr;
use rspirv::spirv::{Op, StorageClass};

/// The variables a pointer may point into, a bit each (bit `k`: `vars[k]`), or [`ANY`].
type Roots = u64;
/// Any buffer at all.
const ANY: Roots = u64::MAX;
/// Most variables followed, and the largest id the tables cover.
const MAX_VARS: usize = 63;
const MAX_ID: u32 = 1 << 22;

/// For each of `vars` (buffer variables' ids), whether some instruction of `module` may write
/// memory it points to.
pub(super) fn written(module: &dr::Module, vars: &[u32]) -> Vec<bool> {
    let all = || vec![true; vars.len()];
    let insts = || {
        module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter()))
    };
    let ids = module
        .types_global_values
        .iter()
        .chain(insts())
        .chain(module.functions.iter().filter_map(|f| f.def.as_ref()))
        .chain(module.functions.iter().flat_map(|f| f.parameters.iter()))
        .filter_map(|i| i.result_id)
        .chain(vars.iter().copied())
        .max()
        .unwrap_or(0);
    if vars.len() > MAX_VARS || ids >= MAX_ID {
        return all();
    }
    let len = ids as usize + 1;
    // Pointer types into memory a buffer may be: their pointers, when not followed, are ANY.
    let mut buffer_ptr_type = vec![false; len];
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
                    buffer_ptr_type[id as usize] = true;
                }
            }
        }
    }
    let mut roots: Vec<Roots> = vec![0; len];
    for (k, v) in vars.iter().enumerate() {
        roots[*v as usize] = 1 << k;
    }
    // A function's index by its id (plus one), for its parameters.
    let mut function_of = vec![0u32; len];
    for (k, f) in module.functions.iter().enumerate() {
        if let Some(id) = f.def.as_ref().and_then(|d| d.result_id) {
            function_of[id as usize] = k as u32 + 1;
        }
    }
    let id = |o: &dr::Operand| match o {
        dr::Operand::IdRef(i) => Some(*i as usize),
        _ => None,
    };
    let of = |roots: &[Roots], o: Option<&dr::Operand>| {
        o.and_then(id)
            .and_then(|i| roots.get(i).copied())
            .unwrap_or(0)
    };
    // The roots of every pointer, to a fixed point (phis and parameters may name later ids);
    // a module that has not settled after many passes counts as writing everything.
    let mut settled = false;
    for _ in 0..256 {
        let mut changed = false;
        let mut add = |roots: &mut [Roots], to: usize, r: Roots| {
            if let Some(x) = roots.get_mut(to) {
                if *x | r != *x {
                    *x |= r;
                    changed = true;
                }
            }
        };
        for inst in insts() {
            // The roots a derived pointer takes from its operands (none yet, when they have
            // none so far: a later pass may give them some); `None` for other instructions.
            let from: Option<Roots> = match inst.class.opcode {
                op if derives_from_first(op) => Some(of(&roots, inst.operands.first())),
                Op::Select => {
                    Some(of(&roots, inst.operands.get(1)) | of(&roots, inst.operands.get(2)))
                }
                Op::Phi => Some(
                    inst.operands
                        .iter()
                        .step_by(2)
                        .fold(0, |m, o| m | of(&roots, Some(o))),
                ),
                Op::FunctionCall => {
                    // Arguments flow into the callee's parameters.
                    let callee = inst.operands.first().and_then(id).map(|f| function_of[f]);
                    if let Some(f) = callee.filter(|f| *f != 0) {
                        let params = &module.functions[f as usize - 1].parameters;
                        let args = inst.operands.get(1..).unwrap_or(&[]);
                        for (p, a) in params.iter().zip(args) {
                            if let Some(p) = p.result_id {
                                let r = of(&roots, Some(a));
                                add(&mut roots, p as usize, r);
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
                .is_some_and(|t| buffer_ptr_type.get(t as usize) == Some(&true));
            match from {
                Some(r) => add(&mut roots, result as usize, r),
                // A buffer pointer from somewhere not followed (loaded from memory, made from an
                // integer, returned by a call, an instruction this does not know).
                None if pointer_result && inst.class.opcode != Op::Variable => {
                    add(&mut roots, result as usize, ANY)
                }
                None => {}
            }
        }
        if !changed {
            settled = true;
            break;
        }
    }
    if !settled {
        return all();
    }
    let mut wrote: Roots = 0;
    for inst in insts() {
        // Operands only read (`None`: every one): nothing written through them here.
        // (a pointer passed on, by a derivation, a select, a phi or a call, is followed above)
        let reads_only: Option<usize> = match inst.class.opcode {
            op if derives_from_first(op)
                || matches!(op, Op::Select | Op::Phi | Op::FunctionCall) =>
            {
                None
            }
            Op::Load
            | Op::AtomicLoad
            | Op::ArrayLength
            | Op::CooperativeMatrixLoadKHR
            | Op::CooperativeMatrixLoadNV
            | Op::PtrEqual
            | Op::PtrNotEqual
            | Op::PtrDiff => None,
            Op::CopyMemory | Op::CopyMemorySized => Some(1),
            _ => Some(usize::MAX),
        };
        let Some(read) = reads_only else {
            continue;
        };
        for (k, o) in inst.operands.iter().enumerate() {
            if k != read {
                wrote |= of(&roots, Some(o));
            }
        }
    }
    (0..vars.len()).map(|k| wrote & (1 << k) != 0).collect()
}

/// Whether `op` makes a pointer into what its first operand points into.
fn derives_from_first(op: Op) -> bool {
    matches!(
        op,
        Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain
            | Op::CopyObject
    )
}
