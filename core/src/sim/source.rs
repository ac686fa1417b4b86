//! Source-level views: where a tangle is in the source, which source variables are in scope
//! there, and their values lane by lane.

use super::Simulator;
use crate::program::debug::{SourcePos, SourceVariable, VarHome};
use crate::program::{Layout, Type, TypeId};
use crate::trace::SourceRef;

/// A source variable's value in every lane of a subgroup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceValue {
    /// The variable's SPIR-V type (the pointee for variables in memory), to format the lanes.
    pub ty: TypeId,
    /// Per lane: the raw components, or `None` where the lane has no value (not live, or the
    /// variable is not readable there).
    pub lanes: Vec<Option<Vec<u64>>>,
    /// For a variable given by `DebugValue` with indexes: the part of it this value is.
    pub indexes: Vec<u32>,
    /// Per lane, per component: whether it is undefined: poison, or (with the detectors on)
    /// memory not yet written, as a variable is before its first assignment (`lanes` then
    /// holds what the bytes happen to be). Empty for a lane whose components are all defined.
    pub undefined: Vec<Vec<bool>>,
}

impl Simulator {
    /// Module instruction index where tangle `id` of subgroup `g` is (its next instruction).
    pub fn tangle_instruction(&self, g: usize, id: u64) -> Option<u32> {
        let t = self.sgs.get(g)?.tangles.iter().find(|t| t.id == id)?;
        Some(self.prog.step_index(t.block, t.pos))
    }

    /// How many calls deep tangle `id` of subgroup `g` is (0 in the entry point), counting the
    /// OpFunctionCalls it is inside, not the source functions inlined into them (see
    /// [`crate::program::debug::DebugInfo::frames`] for those).
    pub fn tangle_call_depth(&self, g: usize, id: u64) -> Option<u32> {
        let sg = self.sgs.get(g)?;
        let t = sg.tangles.iter().find(|t| t.id == id)?;
        let mut depth = 0;
        let mut r = t.ctx;
        let mut guard = 0;
        while let Some(rid) = r {
            let rec = sg.record(rid)?;
            if matches!(rec.kind, crate::sched::RecordKind::Call { .. }) {
                depth += 1;
            }
            r = rec.parent;
            guard += 1;
            if guard > 1 << 20 {
                break;
            }
        }
        Some(depth)
    }

    /// The source position to show for tangle `id` of subgroup `g`: its instruction's, or, in
    /// a function with no line information (a helper the compiler wrote, such as naga's
    /// checked division), the position of the innermost call with one.
    pub fn tangle_source_pos(&self, g: usize, id: u64) -> Option<SourcePos> {
        let d = self.prog.debug.as_ref()?;
        let sg = self.sgs.get(g)?;
        let t = sg.tangles.iter().find(|t| t.id == id)?;
        if let Some(p) = d.pos(self.prog.step_index(t.block, t.pos)) {
            return Some(p);
        }
        // Instructions without a line of their own (a function's variables and the branch into
        // its body, as compilers emit them before the first line) stand for the line the tangle
        // is about to run: the next one with a line, through blocks it can only go on to.
        let (mut b, mut from) = (t.block, t.pos as usize + 1);
        for _ in 0..16 {
            let Some(bl) = self.prog.blocks.get(b as usize) else {
                break;
            };
            if let Some(p) = bl.inst_indices.iter().skip(from).find_map(|&k| d.pos(k)) {
                return Some(p);
            }
            match bl.successors()[..] {
                [next] if next != b => (b, from) = (next, 0),
                _ => break,
            }
        }
        // A block with no line up to its branch or return (the test of an `if` whose condition
        // was computed before, a function's closing return): the line the function's code
        // reached last before it, in module order.
        let k = self.prog.step_index(t.block, t.pos);
        let start = self
            .prog
            .blocks
            .get(t.block as usize)
            .and_then(|bl| self.prog.functions.get(bl.func as usize))
            .and_then(|f| {
                f.blocks
                    .iter()
                    .filter_map(|&b| self.prog.blocks.get(b as usize))
                    .map(|b| b.first_inst_index)
                    .min()
            });
        if let Some(start) = start {
            if let Some(p) = (start..k).rev().find_map(|j| d.pos(j)) {
                return Some(p);
            }
        }
        let mut r = t.ctx;
        let mut guard = 0;
        while let Some(rid) = r {
            let rec = sg.record(rid)?;
            if let crate::sched::RecordKind::Call { resume, .. } = rec.kind {
                let call = self.prog.step_index(rec.target, resume.saturating_sub(1));
                if let Some(p) = d.pos(call) {
                    return Some(p);
                }
            }
            r = rec.parent;
            guard += 1;
            if guard > 1 << 20 {
                break;
            }
        }
        None
    }

    /// The tangle lane `lane` of subgroup `g` is in, if it is in one (not waiting or done).
    pub fn tangle_of_lane(&self, g: usize, lane: u32) -> Option<u64> {
        self.sgs
            .get(g)?
            .tangles
            .iter()
            .find(|t| lane < 128 && t.mask >> lane & 1 == 1)
            .map(|t| t.id)
    }

    /// Where tangle `id` of subgroup `g` is in the source.
    pub fn tangle_source(&self, g: usize, id: u64) -> SourceRef {
        self.tangle_instruction(g, id)
            .map(|k| self.prog.source_ref(k))
            .unwrap_or_default()
    }

    /// The source position of module instruction `k`, when known.
    pub fn source_pos(&self, k: u32) -> Option<SourcePos> {
        self.prog.debug.as_ref()?.pos(k)
    }

    /// Source variables visible at module instruction `k`: those of every scope enclosing it
    /// (declared at or before its line, when both are known), then the globals. A name
    /// declared in an inner scope hides the same name further out. A variable without a name
    /// (the instance of a GLSL block declared without one, whose members the source names
    /// directly) is not one the source can name, and is left out.
    pub fn variables_at(&self, k: u32) -> Vec<(u32, &SourceVariable)> {
        let Some(d) = &self.prog.debug else {
            return Vec::new();
        };
        let origin = d.origin(k);
        let scope = origin.and_then(|o| o.scope);
        let here = origin.and_then(|o| o.pos);
        let mut out: Vec<(u32, &SourceVariable)> = Vec::new();
        let visible = |v: &SourceVariable| {
            !v.name.is_empty()
                && match v.scope {
                    None => true,
                    Some(s) => {
                        d.encloses(s, scope)
                            && match (v.pos, here) {
                                (Some(vp), Some(h)) if vp.file == h.file => vp.line <= h.line,
                                _ => true,
                            }
                    }
                }
        };
        // Innermost first: deeper scopes hide outer names.
        let depth = |v: &SourceVariable| {
            let mut n = 0;
            let mut s = v.scope;
            while let Some(x) = s {
                n += 1;
                s = d.scopes.get(x as usize).and_then(|sc| sc.parent);
                if n > 256 {
                    break;
                }
            }
            n
        };
        let mut cands: Vec<(u32, &SourceVariable)> = d
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| visible(v))
            .map(|(i, v)| (i as u32, v))
            .collect();
        cands.sort_by_key(|(i, v)| (std::cmp::Reverse(depth(v)), *i));
        for (i, v) in cands {
            if !out.iter().any(|(_, o)| o.name == v.name) {
                out.push((i, v));
            }
        }
        out
    }

    /// The variable named `name` visible at module instruction `k`.
    pub fn variable_named(&self, k: u32, name: &str) -> Option<u32> {
        self.variables_at(k)
            .into_iter()
            .find(|(_, v)| v.name == name)
            .map(|(i, _)| i)
    }

    /// The value of source variable `var` (an index into the program's debug variables) in
    /// every lane of subgroup `g`, as it is at module instruction `k`.
    pub fn source_value(&self, g: usize, var: u32, k: u32) -> Option<SourceValue> {
        let d = self.prog.debug.as_ref()?;
        let v = d.variables.get(var as usize)?;
        let sg = self.sgs.get(g)?;
        let s = self.cfg.subgroup_size as usize;
        let live = |l: usize| sg.live >> l & 1 == 1;
        match &v.home {
            VarHome::Memory { pointer } => {
                let &(slot, _, pty) = self.prog.id_slots.get(pointer)?;
                let Type::Pointer { pointee, .. } = self.prog.types.get(pty) else {
                    return None;
                };
                let leaves = self.prog.types.leaves(*pointee, Layout::Plain);
                let unwritten = self.uninit.as_ref().map(|u| u.unwritten());
                // A variable lies in one memory: when neither layer marks a byte of it (the
                // common case once written), no lane's leaves need a look.
                let space = (0..s)
                    .find(|&l| live(l))
                    .and_then(|l| self.mem.resolve(sg.regs[slot as usize * s + l]).ok())
                    .map(|p| crate::program::decode_ptr(p).0);
                let whole = leaves
                    .iter()
                    .map(|l| l.offset + l.ty.size_bytes())
                    .max()
                    .unwrap_or(0);
                let any_marked = space.is_some_and(|sp| {
                    self.mem.poison.marked_in(sp) || unwritten.is_some_and(|m| m.marked_in(sp))
                });
                let undefined = (0..s)
                    .map(|l| {
                        if !any_marked {
                            return Vec::new();
                        }
                        let p = sg.regs[slot as usize * s + l];
                        let marked = |off: u32, size: u32| {
                            let at = std::iter::once((p, g * s + l));
                            self.mem.any_span_marked(at.clone(), off, size)
                                || unwritten
                                    .is_some_and(|m| self.mem.any_span_marked_in(m, at, off, size))
                        };
                        // (the whole variable first: one look when all of it is written)
                        if !live(l) || !marked(0, whole) {
                            return Vec::new();
                        }
                        let leaf =
                            |leaf: &crate::program::Leaf| marked(leaf.offset, leaf.ty.size_bytes());
                        per_component(true, leaves.iter().map(leaf))
                    })
                    .collect();
                let lanes = (0..s)
                    .map(|l| {
                        if !live(l) {
                            return None;
                        }
                        let p = sg.regs[slot as usize * s + l];
                        leaves
                            .iter()
                            .map(|leaf| self.mem.peek(p, *leaf, g * s + l))
                            .collect::<Option<Vec<u64>>>()
                    })
                    .collect();
                Some(SourceValue {
                    ty: *pointee,
                    lanes,
                    indexes: Vec::new(),
                    undefined,
                })
            }
            VarHome::Values { values } => {
                // The last DebugValue at or before `k` in the module's order.
                let at = values
                    .iter()
                    .filter(|x| x.at <= k)
                    .max_by_key(|x| x.at)
                    .or_else(|| values.iter().min_by_key(|x| x.at))?;
                let &(slot, width, ty) = self.prog.id_slots.get(&at.value)?;
                // (the uninitialized-read layer's registers are kept only with the detectors)
                let layer =
                    |m: &[crate::exec::Mask], c: u32| crate::exec::poison::any(m, slot + c, 1);
                let undefined = (0..s)
                    .map(|l| {
                        let bad = |c: u32| {
                            let m = layer(&sg.poison, c) | layer(&sg.uninit, c);
                            m >> l & 1 == 1
                        };
                        per_component(live(l), (0..width).map(bad))
                    })
                    .collect();
                let lanes = (0..s)
                    .map(|l| {
                        live(l).then(|| {
                            (0..width)
                                .map(|c| sg.regs[(slot + c) as usize * s + l])
                                .collect()
                        })
                    })
                    .collect();
                Some(SourceValue {
                    ty,
                    lanes,
                    indexes: at.indexes.clone(),
                    undefined,
                })
            }
        }
    }
}

/// A lane's undefined components from each one's flag: empty when none is (or the lane is not
/// live).
fn per_component(live: bool, flags: impl Iterator<Item = bool>) -> Vec<bool> {
    if !live {
        return Vec::new();
    }
    let v: Vec<bool> = flags.collect();
    if v.iter().any(|&b| b) {
        v
    } else {
        Vec::new()
    }
}
