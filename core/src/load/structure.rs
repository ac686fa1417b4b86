//! Facts about the structured control flow that the scheduler needs: which blocks can be
//! reconvergence targets, dominators, and which switch cases fall through into which.

use super::{Ctx, LoadError, Location};
use crate::program::{Block, BlockId, FuncId, Function, Inst, Merge, Terminator};
use std::collections::BTreeMap;

/// SPV_KHR_maximal_reconvergence: in a function the entry point reaches, a conditional branch
/// must have two different targets.
pub(super) fn check_maximal_branches(
    functions: &[Function],
    blocks: &[Block],
    entry: FuncId,
) -> Result<(), LoadError> {
    let mut reached = vec![false; functions.len()];
    let mut todo = vec![entry];
    while let Some(f) = todo.pop() {
        let Some(seen) = reached.get_mut(f as usize) else {
            continue;
        };
        if std::mem::replace(seen, true) {
            continue;
        }
        for &b in &functions[f as usize].blocks {
            let b = &blocks[b as usize];
            todo.extend(b.insts.iter().filter_map(|i| match i {
                Inst::Call { func, .. } => Some(*func),
                _ => None,
            }));
            if matches!(b.term, Terminator::BranchConditional { t, f: e, .. } if t == e) {
                return Err(LoadError::Invalid {
                    what: "OpBranchConditional: True Label and False Label must not be the same block in a function reached from an entry point with MaximallyReconvergesKHR".into(),
                    at: Location {
                        instruction: b.inst_indices.last().copied(),
                        id: Some(b.label),
                        function: Some(functions[f as usize].name.as_str().into()),
                        ..Location::default()
                    },
                });
            }
        }
    }
    Ok(())
}

/// Blocks that are a merge block, a continue target or a switch target somewhere.
pub(super) fn reconv_targets(blocks: &[Block]) -> Vec<bool> {
    let mut out = vec![false; blocks.len()];
    for b in blocks {
        match b.merge {
            Some(Merge::Selection { merge }) => out[merge as usize] = true,
            Some(Merge::Loop {
                merge,
                continue_target,
            }) => {
                out[merge as usize] = true;
                out[continue_target as usize] = true;
            }
            None => {}
        }
        if let Terminator::Switch { default, cases, .. } = &b.term {
            out[*default as usize] = true;
            for (_, t) in cases {
                out[*t as usize] = true;
            }
        }
    }
    out
}

/// Every branch stays inside its function, merge declarations name blocks of the same
/// function, and phis name real predecessors.
pub(super) fn check(
    functions: &[Function],
    blocks: &[Block],
    cx: &Ctx<'_>,
) -> Result<(), LoadError> {
    let err = |b: &Block, what: String| LoadError::Invalid {
        what,
        at: Location {
            instruction: Some(b.first_inst_index),
            id: Some(b.label),
            function: functions
                .get(b.func as usize)
                .map(|f| f.name.as_str().into()),
            ..Location::default()
        },
    };
    let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); blocks.len()];
    for (i, b) in blocks.iter().enumerate() {
        for s in b.successors() {
            if blocks[s as usize].func != b.func {
                return Err(err(
                    b,
                    format!(
                        "branch from %{} to %{} in another function",
                        b.label, blocks[s as usize].label
                    ),
                ));
            }
            preds[s as usize].push(i as BlockId);
        }
        let declared = match b.merge {
            Some(Merge::Selection { merge }) => vec![merge],
            Some(Merge::Loop {
                merge,
                continue_target,
            }) => vec![merge, continue_target],
            None => vec![],
        };
        for d in declared {
            if blocks[d as usize].func != b.func {
                return Err(err(
                    b,
                    format!(
                        "merge instruction names %{} of another function",
                        blocks[d as usize].label
                    ),
                ));
            }
        }
    }
    check_structured(functions, blocks)?;
    for (i, b) in blocks.iter().enumerate() {
        for phi in &b.phis {
            for (p, _) in &phi.incoming {
                if !preds[i].contains(p) {
                    return Err(err(
                        b,
                        format!(
                            "OpPhi in %{} names %{}, which is not a predecessor",
                            b.label, blocks[*p as usize].label
                        ),
                    ));
                }
            }
            for p in &preds[i] {
                if !phi.incoming.iter().any(|(q, _)| q == p) {
                    return Err(err(
                        b,
                        format!(
                            "OpPhi in %{} has no value for predecessor %{}",
                            b.label, blocks[*p as usize].label
                        ),
                    ));
                }
            }
        }
    }
    let _ = cx;
    check_calls(functions, blocks)?;
    check_recursion(functions, blocks)
}

/// Shader modules must use structured control flow; tangles are defined only over it.
/// - A conditional branch or switch without a merge instruction may leave a construct (a
///   conditional break or continue), so at most one of its targets may be an ordinary block.
/// - Every back edge (found by a depth-first walk) goes to a loop header (a block with
///   OpLoopMerge) that dominates its source; otherwise the flow is unstructured or irreducible.
fn check_structured(functions: &[Function], blocks: &[Block]) -> Result<(), LoadError> {
    // Named at the block's terminator, the branch at fault.
    let err = |b: &Block, what: String| LoadError::Invalid {
        what,
        at: Location {
            instruction: b.inst_indices.last().copied(),
            id: Some(b.label),
            function: functions
                .get(b.func as usize)
                .map(|f| f.name.as_str().into()),
            ..Location::default()
        },
    };
    // Blocks a branch may reach without a merge instruction: merge blocks, continue targets and
    // loop headers.
    let mut exit = vec![false; blocks.len()];
    for b in blocks {
        match b.merge {
            Some(Merge::Selection { merge }) => exit[merge as usize] = true,
            Some(Merge::Loop {
                merge,
                continue_target,
            }) => {
                exit[merge as usize] = true;
                exit[continue_target as usize] = true;
            }
            None => {}
        }
    }
    for (i, b) in blocks.iter().enumerate() {
        if matches!(b.merge, Some(Merge::Loop { .. })) {
            exit[i] = true;
        }
    }
    for b in blocks {
        if b.merge.is_some()
            || !matches!(
                b.term,
                Terminator::BranchConditional { .. } | Terminator::Switch { .. }
            )
        {
            continue;
        }
        let mut plain: Vec<BlockId> = b
            .successors()
            .into_iter()
            .filter(|s| !exit[*s as usize])
            .collect();
        plain.sort_unstable();
        plain.dedup();
        if plain.len() > 1 {
            return Err(err(
                b,
                format!(
                    "unstructured control flow: %{} branches to %{} and %{} without a merge instruction",
                    b.label, blocks[plain[0] as usize].label, blocks[plain[1] as usize].label
                ),
            ));
        }
    }
    // Iterative depth-first walk per function; a successor still on the stack closes a back
    // edge. 0 = unvisited, 1 = on the stack, 2 = done (blocks are numbered module-wide).
    let mut state = vec![0u8; blocks.len()];
    let mut stack: Vec<(BlockId, Vec<BlockId>, usize)> = Vec::new();
    for f in functions {
        if state[f.entry as usize] != 0 {
            continue;
        }
        state[f.entry as usize] = 1;
        stack.push((f.entry, blocks[f.entry as usize].successors(), 0));
        let mut idom = None;
        while let Some((u, succ, k)) = stack.last_mut() {
            let u = *u;
            let Some(&v) = succ.get(*k) else {
                state[u as usize] = 2;
                stack.pop();
                continue;
            };
            *k += 1;
            match state[v as usize] {
                0 => {
                    state[v as usize] = 1;
                    stack.push((v, blocks[v as usize].successors(), 0));
                }
                1 => {
                    let (ub, vb) = (&blocks[u as usize], &blocks[v as usize]);
                    if !matches!(vb.merge, Some(Merge::Loop { .. })) {
                        return Err(err(
                            ub,
                            format!(
                                "unstructured control flow: a back edge from %{} to %{}, which is not a loop header (no OpLoopMerge)",
                                ub.label, vb.label
                            ),
                        ));
                    }
                    let idom = idom.get_or_insert_with(|| dominators(f, blocks));
                    if !dominates(idom, v, u) {
                        return Err(err(
                            ub,
                            format!(
                                "irreducible control flow: the loop at %{} is entered other than through its header (back edge from %{})",
                                vb.label, ub.label
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Calls match their callee's parameters and result; returns match their function's type.
fn check_calls(functions: &[Function], blocks: &[Block]) -> Result<(), LoadError> {
    for f in functions {
        for &b in &f.blocks {
            let block = &blocks[b as usize];
            let at = || Location {
                instruction: Some(block.first_inst_index),
                id: Some(block.label),
                function: Some(f.name.as_str().into()),
                ..Location::default()
            };
            for i in &block.insts {
                let crate::program::Inst::Call { func, dst, args } = i else {
                    continue;
                };
                let callee = &functions[*func as usize];
                let widths_ok = args.len() == callee.params.len()
                    && args.iter().zip(&callee.params).all(|(a, p)| a.1 == p.1);
                let ret_ok = dst.map(|d| d.1) == callee.ret.map(|r| r.1);
                if !widths_ok || !ret_ok {
                    return Err(LoadError::Invalid {
                        what: format!(
                            "call of {} does not match its parameters or result type",
                            callee.name
                        ),
                        at: at(),
                    });
                }
            }
            let ret_ok = match &block.term {
                Terminator::ReturnValue { n, .. } => f.ret.map(|r| r.1) == Some(*n),
                Terminator::Return => f.ret.is_none(),
                _ => true,
            };
            if !ret_ok {
                return Err(LoadError::Invalid {
                    what: format!(
                        "return in {} does not match the function's result type",
                        f.name
                    ),
                    at: at(),
                });
            }
        }
    }
    Ok(())
}

/// SPIR-V forbids recursion; the executor relies on it (each function's values have fixed slots).
fn check_recursion(functions: &[Function], blocks: &[Block]) -> Result<(), LoadError> {
    let callees: Vec<Vec<u32>> = functions
        .iter()
        .map(|f| {
            f.blocks
                .iter()
                .flat_map(|b| blocks[*b as usize].insts.iter())
                .filter_map(|i| match i {
                    crate::program::Inst::Call { func, .. } => Some(*func),
                    _ => None,
                })
                .collect()
        })
        .collect();
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; functions.len()];
    for start in 0..functions.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some((f, i)) = stack.pop() {
            if let Some(&c) = callees[f].get(i) {
                stack.push((f, i + 1));
                let c = c as usize;
                match state.get(c) {
                    Some(1) => {
                        return Err(LoadError::Invalid {
                            what: format!(
                                "recursion: {} calls {} (SPIR-V shaders may not recurse)",
                                functions[f].name, functions[c].name
                            ),
                            at: Location {
                                function: Some(functions[f].name.as_str().into()),
                                ..Location::default()
                            },
                        });
                    }
                    Some(0) => {
                        state[c] = 1;
                        stack.push((c, 0));
                    }
                    _ => {}
                }
            } else {
                state[f] = 2;
            }
        }
    }
    Ok(())
}

/// Immediate dominators of the blocks of one function (`None` for the entry and unreachable).
pub fn dominators(func: &Function, blocks: &[Block]) -> BTreeMap<BlockId, BlockId> {
    // Reverse post-order by iterative DFS.
    let mut order = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![(func.entry, 0usize)];
    seen.insert(func.entry);
    while let Some((b, i)) = stack.pop() {
        let succ = blocks[b as usize].successors();
        if i < succ.len() {
            stack.push((b, i + 1));
            let s = succ[i];
            if seen.insert(s) {
                stack.push((s, 0));
            }
        } else {
            order.push(b);
        }
    }
    order.reverse();
    let rpo: BTreeMap<BlockId, usize> = order.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    let mut preds: BTreeMap<BlockId, Vec<BlockId>> = BTreeMap::new();
    for b in &order {
        for s in blocks[*b as usize].successors() {
            preds.entry(s).or_default().push(*b);
        }
    }
    let mut idom: BTreeMap<BlockId, BlockId> = BTreeMap::new();
    idom.insert(func.entry, func.entry);
    let mut changed = true;
    while changed {
        changed = false;
        for b in order.iter().skip(1) {
            let mut new: Option<BlockId> = None;
            for p in preds.get(b).map_or(&[][..], Vec::as_slice) {
                if !idom.contains_key(p) {
                    continue;
                }
                new = Some(match new {
                    None => *p,
                    Some(mut a) => {
                        let mut c = *p;
                        while a != c {
                            while rpo[&a] > rpo[&c] {
                                a = idom[&a];
                            }
                            while rpo[&c] > rpo[&a] {
                                c = idom[&c];
                            }
                        }
                        a
                    }
                });
            }
            if let Some(n) = new {
                if idom.get(b) != Some(&n) {
                    idom.insert(*b, n);
                    changed = true;
                }
            }
        }
    }
    idom
}

pub fn dominates(idom: &BTreeMap<BlockId, BlockId>, a: BlockId, mut b: BlockId) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom.get(&b) {
            Some(&p) if p != b => b = p,
            _ => return false,
        }
    }
}

/// For every switch header: each target and the targets that can fall through into it
/// (transitively), found by walking the switch construct (blocks the header dominates and the
/// merge does not).
pub(super) fn switch_fallthrough(
    functions: &[Function],
    blocks: &[Block],
) -> BTreeMap<BlockId, Vec<(BlockId, Vec<BlockId>)>> {
    let mut out = BTreeMap::new();
    for f in functions {
        let mut idom = None;
        for &h in &f.blocks {
            let (Terminator::Switch { default, cases, .. }, Some(Merge::Selection { merge })) =
                (&blocks[h as usize].term, blocks[h as usize].merge)
            else {
                continue;
            };
            let idom = idom.get_or_insert_with(|| dominators(f, blocks));
            let mut targets: Vec<BlockId> = std::iter::once(*default)
                .chain(cases.iter().map(|c| c.1))
                .filter(|t| *t != merge)
                .collect();
            targets.sort_unstable();
            targets.dedup();
            // Direct fall-through edges between case constructs.
            let mut direct: BTreeMap<BlockId, Vec<BlockId>> = BTreeMap::new();
            for &t in &targets {
                let mut stack = vec![t];
                let mut seen = std::collections::BTreeSet::from([t]);
                while let Some(b) = stack.pop() {
                    for s in blocks[b as usize].successors() {
                        if s == merge || !dominates(idom, h, s) || dominates(idom, merge, s) {
                            continue;
                        }
                        if s != t && targets.contains(&s) {
                            direct.entry(s).or_default().push(t);
                            continue;
                        }
                        if seen.insert(s) {
                            stack.push(s);
                        }
                    }
                }
            }
            let mut list = Vec::new();
            for &t in &targets {
                let mut all = Vec::new();
                let mut stack = direct.get(&t).cloned().unwrap_or_default();
                while let Some(x) = stack.pop() {
                    if x != t && !all.contains(&x) {
                        all.push(x);
                        stack.extend(direct.get(&x).cloned().unwrap_or_default());
                    }
                }
                all.sort_unstable();
                list.push((t, all));
            }
            out.insert(h, list);
        }
    }
    out
}
