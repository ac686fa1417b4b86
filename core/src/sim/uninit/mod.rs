//! The uninitialized-read detector. Workgroup, Private and Function memory without an
//! initializer, and OpUndef values, are undefined until written. Such data is tracked as a
//! second taint layer beside poison, with the same propagation (through arithmetic, copies,
//! phis, calls and memory), and reported where it is *used observably*: stored to a buffer,
//! branched on, used as an index or address, or fed to a subgroup operation or an atomic.
//! Copies, partial composites, phis and inserts only carry it. Memory is tracked by byte, so
//! an 8- or 16-bit store defines only what it writes; an atomic store or exchange defines its
//! word, the other atomics keep it undefined (they compute from the old value).
//!
//! The value a racing read returned (a data race's later access, a load) is undefined too:
//! it is followed by the same layer under its race's name, and reaching an observable use
//! marks the race observed instead of reporting an uninitialized read. A branch on it is not
//! observable by itself where the selection construct it heads is pure (its paths write only
//! registers and the function's own variables; see [`Pure`]): the merge's phis and those
//! variables take its origin instead, and are followed on.
//!
//! A race whose read came first (read, then a write) is found after the read's uses ran. When
//! the run finishes, the dispatch is replayed from its start (the run is deterministic): the
//! replay taints those reads as they happen, under names of their own, and a race whose read
//! reached nothing observable there is marked unobserved. The replay needs the starting state,
//! kept only while it is small ([`MAX_REPLAY_BYTES`]); past it, or after a run steered tangle by
//! tangle, such races stay observed.

mod steer;

use super::Simulator;
use crate::exec::memory::PoisonMaps;
use crate::exec::poison::any;
use crate::exec::Mask;
use crate::program::{decode_ptr, encode_ptr, AccessStep, BlockId, Inst, Space, Terminator};
use crate::sched::Tangle;
use crate::trace::DiagCode;
pub(in crate::sim) use steer::uninit_merge_arrival;
use steer::Pure;

/// Origins of the reads a replay follows: `Origin::Race(REPLAY_BASE + i)` is its `i`th.
const REPLAY_BASE: usize = usize::MAX / 2;
/// Most pairs of races whose data mixed (they share their fate); past it both count observed.
const MAX_JOINS: usize = 1 << 12;
/// Largest starting state (buffers, memories, registers) kept for the replay, in bytes.
pub(super) const MAX_REPLAY_BYTES: u64 = 64 << 20;

/// A race's read that came before its write: the moment to find it again in a replay.
#[derive(Clone, Debug)]
pub(crate) struct WarRead {
    /// The race's diagnostic.
    diag: usize,
    step: u64,
    inv: u32,
    wg: u32,
    block: u32,
    instr: u32,
}

/// What a replay follows and found, by target.
#[derive(Clone, Debug, Default)]
struct Replay {
    targets: Vec<WarRead>,
    /// The first target not yet due.
    next: usize,
    /// The read ran where it was expected and its value was followed.
    hit: Vec<bool>,
    observed: Vec<bool>,
}

/// Where tainted data came from.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Origin {
    /// Memory nobody wrote, or an OpUndef: the words of the report naming it.
    Undefined(String),
    /// The value a racing read returned: the index of the race's diagnostic. It is not an
    /// uninitialized read; reaching an observable use marks that race observed.
    Race(usize),
}

/// What the detector keeps between steps.
#[derive(Clone, Debug, Default)]
pub(crate) struct Uninit {
    /// The memory layer: one bit per byte of Workgroup and invocation memory not yet written.
    mem: PoisonMaps,
    /// Per subgroup, the memory its latest uninitialized reads came from (for the report; the
    /// few latest distinct ones, most recent last).
    origin: Vec<Vec<Origin>>,
    /// Per subgroup, whether any register holds uninitialized data (skip the work when not).
    regs: Vec<bool>,
    /// Per subgroup, where the data in a register came from, by slot (carried along by the
    /// instructions that compute from it).
    slot_origin: Vec<std::collections::BTreeMap<u32, Origin>>,
    /// Where undefined data stored to memory came from, by (pointer, invocation for
    /// invocation memory): a later load names the first memory read, not the variable the
    /// data passed through.
    mem_origin: std::collections::HashMap<(u64, usize), Origin>,
    /// Races whose read came first, for the replay at the end of the run.
    war: Vec<WarRead>,
    /// In a replay: the reads it follows.
    replay: Option<Box<Replay>>,
    /// Pairs of races whose data mixed in one register: when one is observed, so is the other.
    joined: Vec<(usize, usize)>,
    /// Selection headers judged so far: the construct when it is pure (see [`Pure`]).
    pure: std::collections::HashMap<BlockId, Option<std::sync::Arc<Pure>>>,
    /// Lanes on their way through a pure construct a racing read's value steered: at its
    /// merge, the phis they take and the variables it stores to carry that value's origin
    /// (subgroup, construct, lanes, origin).
    pending: Vec<(usize, std::sync::Arc<Pure>, Mask, Origin)>,
}

impl Uninit {
    /// Whether lanes are on their way through a pure construct a racing read steered.
    pub(super) fn steering(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Race `k` (a diagnostic, or a replay's target) reached an observable use: it, and every
    /// race whose data mixed with it, is observed.
    fn mark_observed(&mut self, diags: &mut [crate::trace::Diagnostic], k: usize) {
        let mut todo = vec![k];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(k) = todo.pop() {
            if !seen.insert(k) {
                continue;
            }
            if let Some(i) = k.checked_sub(REPLAY_BASE) {
                if let Some(x) = self.replay.as_mut().and_then(|r| r.observed.get_mut(i)) {
                    *x = true;
                }
            } else if let Some(d) = diags.get_mut(k) {
                d.observed = true;
            }
            for &(a, b) in &self.joined {
                if a == k {
                    todo.push(b);
                } else if b == k {
                    todo.push(a);
                }
            }
        }
    }

    /// The data of races `a` and `b` mixed in a register, which keeps one origin: from now on
    /// they are observed together (too many such pairs: both are observed now).
    fn join(&mut self, diags: &mut [crate::trace::Diagnostic], a: usize, b: usize) {
        if a == b || self.joined.contains(&(a, b)) || self.joined.contains(&(b, a)) {
            return;
        }
        if self.joined.len() >= MAX_JOINS {
            self.mark_observed(diags, a);
            self.mark_observed(diags, b);
        } else {
            self.joined.push((a, b));
        }
    }

    /// Slot `slot` of subgroup `g` gets origin `o` while `others` (lanes outside the
    /// instruction's) still hold data of its old origin: a race's data there is not lost.
    fn set_origin(
        &mut self,
        diags: &mut [crate::trace::Diagnostic],
        g: usize,
        slot: u32,
        o: Origin,
        others: bool,
    ) {
        if others {
            if let Some(Origin::Race(old)) = self.slot_origin[g].get(&slot).cloned() {
                match o {
                    Origin::Race(new) => self.join(diags, old, new),
                    Origin::Undefined(_) => self.mark_observed(diags, old),
                }
            }
        }
        self.slot_origin[g].insert(slot, o);
    }
}

/// Most pointers whose stored data's origin is remembered.
const MAX_MEM_ORIGINS: usize = 1 << 16;

impl Simulator {
    /// A workgroup starts: its Workgroup memory and every invocation's Private memory are
    /// undefined but for variables with an initializer; OpUndef registers are undefined.
    pub(super) fn uninit_start_workgroup(&mut self) {
        let Some(mut u) = self.uninit.take() else {
            return;
        };
        let prog = std::sync::Arc::clone(&self.prog);
        let n = self.sgs.len();
        u.mem = PoisonMaps::default();
        u.origin = vec![Vec::new(); n];
        u.slot_origin = vec![Default::default(); n];
        u.mem_origin.clear();
        u.pending.clear();
        u.regs = vec![!prog.undef_slots.is_empty(); n];
        std::mem::swap(&mut self.mem.poison, &mut u.mem);
        let invocations = self.mem.invocation.len() / self.mem.per_invocation.max(1);
        for v in &prog.variables {
            if v.initialized || v.size == 0 {
                continue;
            }
            match (v.space, v.storage_class.as_str()) {
                (Space::Workgroup, _) => {
                    let p = encode_ptr(Space::Workgroup, 0, v.offset);
                    self.mem.set_poison_range(p, v.size, 0, true);
                }
                (Space::Invocation, "Private") => {
                    let p = encode_ptr(Space::Invocation, 0, v.offset);
                    for inv in 0..invocations {
                        self.mem.set_poison_range(p, v.size, inv, true);
                    }
                }
                _ => {}
            }
        }
        std::mem::swap(&mut self.mem.poison, &mut u.mem);
        // OpUndef values are named by their ids.
        let mut undef = std::collections::BTreeMap::new();
        if !prog.undef_slots.is_empty() {
            for (id, (slot, _, _)) in &prog.id_slots {
                if prog.undef_slots.iter().any(|(s, _)| s == slot) {
                    undef.insert(*slot, *id);
                }
            }
        }
        for (g, sg) in self.sgs.iter_mut().enumerate() {
            sg.uninit.clear();
            if !prog.undef_slots.is_empty() {
                sg.uninit = vec![0; prog.num_slots as usize];
                for &(slot, width) in &prog.undef_slots {
                    crate::exec::poison::set(&mut sg.uninit, slot, width, Mask::MAX, Mask::MAX);
                    let name = undef.get(&slot).map_or_else(
                        || "an OpUndef value".to_string(),
                        |id| format!("the OpUndef value {}", prog.name_of(*id)),
                    );
                    for k in 0..width {
                        u.slot_origin[g].insert(slot + k, Origin::Undefined(name.clone()));
                    }
                }
            }
        }
        self.uninit = Some(u);
    }

    /// Before an instruction runs: an observable use of uninitialized data is reported.
    pub(super) fn uninit_check_uses(&mut self, g: usize, t: &Tangle, inst: &Inst) {
        let Some(u) = &self.uninit else { return };
        if !u.regs.get(g).copied().unwrap_or(false) {
            return;
        }
        let sg = &self.sgs[g];
        if sg.uninit.is_empty() {
            return;
        }
        let s = self.cfg.subgroup_size as usize;
        let layer = &sg.uninit;
        let tainted = |slot: u32, width: u32| any(layer, slot, width) & t.mask;
        let (lanes, what, slots): (Mask, &str, Vec<u32>) = match inst {
            Inst::Store {
                ptr, src, leaves, ..
            } => {
                // Only a store to a buffer lets the data out; the lanes whose pointer is one.
                let n = self.prog.leaf_tables[*leaves as usize].len() as u32;
                let to_buffer = crate::lanes::LaneMask(t.mask)
                    .iter()
                    .filter(|l| {
                        decode_ptr(sg.regs[*ptr as usize * s + *l as usize]).0 == Space::Buffer
                    })
                    .fold(0 as Mask, |m, l| m | 1 << l);
                (
                    tainted(*src, n) & to_buffer,
                    "stored to a buffer",
                    (0..n).map(|k| src + k).collect(),
                )
            }
            Inst::AccessChain { steps, .. } => {
                let idx: Vec<u32> = steps
                    .iter()
                    .filter_map(|st| match st {
                        AccessStep::Dyn { index, .. } | AccessStep::Descriptor { index, .. } => {
                            Some(*index)
                        }
                        AccessStep::Const(_) | AccessStep::Shift(_) => None,
                    })
                    .collect();
                let m = idx.iter().fold(0, |m, i| m | tainted(*i, 1));
                (m, "used as an index", idx)
            }
            Inst::Load { ptr, .. } => (tainted(*ptr, 1), "used as an address", vec![*ptr]),
            Inst::Subgroup { .. } | Inst::Atomic { .. } => {
                let ops = inst.reads();
                let m = ops.iter().fold(0, |m, (sl, w)| m | tainted(*sl, *w));
                let what = if matches!(inst, Inst::Atomic { .. }) {
                    "used by an atomic operation"
                } else {
                    "fed to a subgroup operation"
                };
                (m, what, ops.iter().map(|(sl, _)| *sl).collect())
            }
            Inst::ExtractDyn { index, .. } | Inst::InsertDyn { index, .. } => {
                (tainted(*index, 1), "used as an index", vec![*index])
            }
            _ => return,
        };
        if lanes != 0 {
            let tainted_slots: Vec<u32> = slots
                .into_iter()
                .filter(|sl| tainted(*sl, 1) != 0)
                .collect();
            self.report_uninit(g, t, lanes, what, &tainted_slots);
        }
    }

    /// Before a terminator: a branch on uninitialized data.
    pub(super) fn uninit_check_branch(&mut self, g: usize, t: &Tangle, term: &Terminator) {
        let Some(u) = &self.uninit else { return };
        if !u.regs.get(g).copied().unwrap_or(false) || self.sgs[g].uninit.is_empty() {
            return;
        }
        let layer = &self.sgs[g].uninit;
        let slot = match term {
            Terminator::BranchConditional { cond, .. } => *cond,
            Terminator::Switch { selector, .. } => *selector,
            _ => return,
        };
        let lanes = any(layer, slot, 1) & t.mask;
        if lanes == 0 {
            return;
        }
        let origin = u.slot_origin.get(g).and_then(|m| m.get(&slot)).cloned();
        if let Some(o @ Origin::Race(_)) = origin {
            if self.uninit_steer_pure(g, t, lanes, o) {
                return;
            }
        }
        self.report_uninit(g, t, lanes, "branched on", &[slot]);
    }

    fn report_uninit(&mut self, g: usize, t: &Tangle, lanes: Mask, what: &str, slots: &[u32]) {
        // Where the data came from: the registers' own origins, else the latest reads.
        let mut origins: Vec<Origin> = Vec::new();
        if let Some(u) = &self.uninit {
            for s in slots {
                if let Some(o) = u.slot_origin.get(g).and_then(|m| m.get(s)) {
                    if !origins.contains(o) {
                        origins.push(o.clone());
                    }
                }
            }
            if origins.is_empty() {
                origins = u.origin.get(g).cloned().unwrap_or_default();
            }
        }
        // A racing read's value reached an observable use: its race is observed.
        if let Some(u) = self.uninit.as_mut() {
            for o in &origins {
                if let Origin::Race(k) = o {
                    u.mark_observed(&mut self.diags, *k);
                }
            }
        }
        let undefined: Vec<&str> = origins
            .iter()
            .filter_map(|o| match o {
                Origin::Undefined(s) => Some(s.as_str()),
                Origin::Race(_) => None,
            })
            .collect();
        if undefined.is_empty() && !origins.is_empty() {
            return;
        }
        let origin = if undefined.is_empty() {
            // Nothing remembered where it came from: say so rather than guess.
            "an undefined value (from memory nobody wrote or an OpUndef)".to_string()
        } else {
            undefined.join(" or ")
        };
        self.diagnose(
            DiagCode::UninitializedRead,
            format!(
                "{origin} is {what}, but nothing wrote it before it was read: its value is undefined"
            ),
            g as u32,
            t.block,
            t.inst,
            lanes,
        );
    }

    /// A data race was reported as diagnostic `diag`: when its read is the load this step
    /// made, the value it returned is tracked like uninitialized data, and the race stays
    /// unobserved unless that value reaches an observable use. Returns whether it is tracked
    /// (a read that came first has run its uses already, and an atomic's or a copy's read is
    /// not followed: those count as observed).
    pub(super) fn uninit_track_race(
        &mut self,
        diag: usize,
        reader: u32,
        block: u32,
        instr: u32,
    ) -> bool {
        let s = self.cfg.subgroup_size as usize;
        let (g, l) = (reader as usize / s, reader as usize % s);
        let prog = std::sync::Arc::clone(&self.prog);
        let Some(b) = prog.blocks.get(block as usize) else {
            return false;
        };
        let Some(k) = b.inst_indices.iter().position(|i| *i == instr) else {
            return false;
        };
        let Some(Inst::Load { dst, .. }) = b.insts.get(k) else {
            return false;
        };
        let Some(mut u) = self.uninit.take() else {
            return false;
        };
        if g >= self.sgs.len() || g >= u.regs.len() {
            self.uninit = Some(u);
            return false;
        }
        let width = prog.slot_width.get(dst).copied().unwrap_or(1);
        let sg = &mut self.sgs[g];
        if sg.uninit.is_empty() {
            sg.uninit = vec![0; prog.num_slots as usize];
        }
        // Registers keep one origin per slot: other lanes' uninitialized data there keeps its
        // name (a report must not lose it), and the race counts as observed.
        let others = any(&sg.uninit, *dst, width) & !(1 << l);
        let shared = (0..width)
            .any(|k| matches!(u.slot_origin[g].get(&(dst + k)), Some(Origin::Undefined(_))));
        if others != 0 && shared {
            self.uninit = Some(u);
            return false;
        }
        crate::exec::poison::set(&mut sg.uninit, *dst, width, 1 << l, Mask::MAX);
        for k in 0..width {
            let others = any(&sg.uninit, dst + k, 1) & !(1 << l) != 0;
            u.set_origin(&mut self.diags, g, dst + k, Origin::Race(diag), others);
        }
        // For registers the origin does not follow into (phis, calls).
        let list = &mut u.origin[g];
        list.push(Origin::Race(diag));
        if list.len() > 3 {
            list.remove(0);
        }
        u.regs[g] = true;
        self.uninit = Some(u);
        true
    }

    /// After an instruction: the uninitialized layer follows the data, as poison does (the two
    /// layers swap places for the shared propagation code), and a Function variable without an
    /// initializer starts undefined.
    pub(super) fn uninit_propagate(
        &mut self,
        g: usize,
        t: &Tangle,
        inst: &Inst,
        perm: &Option<Vec<(usize, usize)>>,
    ) {
        let Some(mut u) = self.uninit.take() else {
            return;
        };
        let memory_op = matches!(
            inst,
            Inst::Load { .. }
                | Inst::Store { .. }
                | Inst::CopyMemory { .. }
                | Inst::Atomic { .. }
                | Inst::Variable { .. }
                | Inst::Coop(_)
                | Inst::Ext {
                    ptr_out: Some(_),
                    ..
                }
        );
        let tainted_regs = u.regs.get(g).copied().unwrap_or(false);
        if !memory_op && !tainted_regs {
            self.uninit = Some(u);
            return;
        }
        // An operation on defined operands whose result is already defined changes nothing:
        // checked on the operands alone, far cheaper than the propagation. Calls and extended
        // instructions keep the full path (their operands reach further than `reads`).
        if !memory_op && !matches!(inst, Inst::Call { .. } | Inst::Ext { .. }) {
            let layer = &self.sgs[g].uninit;
            let clean = layer.is_empty()
                || (inst
                    .writes()
                    .is_none_or(|(d, w)| any(layer, d, w) & t.mask == 0)
                    && inst
                        .reads()
                        .iter()
                        .all(|(sl, w)| any(layer, *sl, *w) & t.mask == 0));
            if clean {
                self.uninit = Some(u);
                return;
            }
        }
        // A load or store of clean registers through memory that holds nothing undefined
        // changes nothing (the common case once variables are written): checked word by word
        // for the lanes, which is much cheaper than the propagation.
        if memory_op && !tainted_regs && !matches!(inst, Inst::Variable { .. }) {
            let access = match inst {
                Inst::Load { ptr, leaves, .. } | Inst::Store { ptr, leaves, .. } => {
                    Some((*ptr, *leaves))
                }
                _ => None,
            };
            let s = self.cfg.subgroup_size as usize;
            if let Some((p, leaves)) = access {
                let l = t.mask.trailing_zeros() as usize;
                let space = decode_ptr(self.sgs[g].regs[p as usize * s + l]).0;
                let clean = !u.mem.marked_in(space) || {
                    let table = &self.prog.leaf_tables[leaves as usize];
                    let lo = table.iter().map(|x| x.offset).min().unwrap_or(0);
                    let hi = table
                        .iter()
                        .map(|x| x.offset + x.ty.size_bytes())
                        .max()
                        .unwrap_or(0);
                    std::mem::swap(&mut self.mem.poison, &mut u.mem);
                    let regs = &self.sgs[g].regs;
                    let lanes = crate::lanes::LaneMask(t.mask)
                        .iter()
                        .map(|l| (regs[p as usize * s + l as usize], g * s + l as usize));
                    let marked = self.mem.any_span_marked(lanes, lo, hi - lo);
                    std::mem::swap(&mut self.mem.poison, &mut u.mem);
                    !marked
                };
                if clean {
                    self.uninit = Some(u);
                    return;
                }
            }
        }
        let s = self.cfg.subgroup_size as usize;
        let stores_before = self.poison_stores.len();
        std::mem::swap(&mut self.mem.poison, &mut u.mem);
        swap_layers(&mut self.sgs[g]);
        if let Inst::Variable {
            dst,
            size,
            init: None,
            ..
        } = inst
        {
            let sg = &self.sgs[g];
            let ptrs: Vec<(usize, u64)> = crate::lanes::LaneMask(t.mask)
                .iter()
                .map(|l| (l as usize, sg.regs[*dst as usize * s + l as usize]))
                .collect();
            for (l, p) in ptrs {
                self.mem.set_poison_range(p, *size, g * s + l, true);
            }
        } else {
            self.propagate_poison(g, t, inst, 0, perm);
        }
        // Which memory a load or an atomic read undefined data from: named in a later report.
        let read = match inst {
            Inst::Load {
                dst, ptr, leaves, ..
            } => Some((*dst, *ptr, Some(*leaves), "load")),
            Inst::Atomic {
                dst: Some(dst),
                ptr,
                ..
            } => Some((*dst, *ptr, None, "atomic")),
            _ => None,
        };
        if let Some((dst, ptr, leaves, kind)) = read {
            let sg = &self.sgs[g];
            let width = match leaves {
                Some(_) => self.prog.slot_width.get(&dst).copied().unwrap_or(1),
                None => 1,
            };
            let got = if sg.poison.is_empty() {
                0
            } else {
                any(&sg.poison, dst, width) & t.mask
            };
            if got != 0 {
                let l = got.trailing_zeros() as usize;
                let p = sg.regs[ptr as usize * s + l];
                // The first undefined component read, by its leaf's offset.
                let first = (0..width)
                    .find(|k| sg.poison[(dst + k) as usize] >> l & 1 == 1)
                    .unwrap_or(0);
                let leaf_off = leaves
                    .and_then(|t| self.prog.leaf_tables[t as usize].get(first as usize))
                    .map_or(0, |lf| lf.offset);
                let inv = if decode_ptr(p).0 == Space::Invocation {
                    g * s + l
                } else {
                    0
                };
                let at = crate::program::ptr_offset(p, i64::from(leaf_off));
                let origin =
                    u.mem_origin.get(&(at, inv)).cloned().unwrap_or_else(|| {
                        Origin::Undefined(self.describe_read(p, leaf_off, t, kind))
                    });
                for k in 0..width {
                    let lanes = sg.poison[(dst + k) as usize];
                    if lanes & t.mask != 0 {
                        let others = lanes & !t.mask != 0;
                        u.set_origin(&mut self.diags, g, dst + k, origin.clone(), others);
                    }
                }
                let list = &mut u.origin[g];
                list.retain(|o| *o != origin);
                list.push(origin);
                if list.len() > 3 {
                    list.remove(0);
                }
                u.regs[g] = true;
            }
        }
        // Undefined data stored: remember where it came from, for the loads that follow (per
        // lane and per leaf, so a load of any part through any pointer finds it).
        if let Inst::Store {
            ptr, src, leaves, ..
        } = inst
        {
            let sg = &self.sgs[g];
            let table = &self.prog.leaf_tables[*leaves as usize];
            if !sg.poison.is_empty() {
                let n = table.len() as u32;
                let tainted = any(&sg.poison, *src, n) & t.mask;
                let mut lost = Vec::new();
                for l in crate::lanes::LaneMask(tainted).iter().map(|l| l as usize) {
                    let p = sg.regs[*ptr as usize * s + l];
                    let inv = if decode_ptr(p).0 == Space::Invocation {
                        g * s + l
                    } else {
                        0
                    };
                    for (k, leaf) in table.iter().enumerate() {
                        let slot = src + k as u32;
                        if sg.poison[slot as usize] >> l & 1 == 0 {
                            continue;
                        }
                        let Some(o) = u.slot_origin[g].get(&slot) else {
                            continue;
                        };
                        let at = crate::program::ptr_offset(p, i64::from(leaf.offset));
                        if u.mem_origin.len() < MAX_MEM_ORIGINS {
                            u.mem_origin.insert((at, inv), o.clone());
                        } else {
                            lost.push(o.clone());
                        }
                    }
                }
                // A racing read's value whose way through memory is not remembered cannot be
                // followed: count it observed rather than lose it.
                for o in lost {
                    if let Origin::Race(k) = o {
                        u.mark_observed(&mut self.diags, k);
                    }
                }
            }
        }
        // Computed data inherits its operands' origin (undefined memory before a race: a
        // report must not lose it; a race mixed with it is counted observed).
        if u.regs[g] && !self.sgs[g].poison.is_empty() && read.is_none() {
            if let Some((d, w)) = inst.writes() {
                let sg = &self.sgs[g];
                if any(&sg.poison, d, w) & t.mask != 0 {
                    let from: Vec<&Origin> = inst
                        .reads()
                        .iter()
                        .flat_map(|(sl, wd)| (0..*wd).map(move |k| sl + k))
                        .filter(|sl| any(&sg.poison, *sl, 1) & t.mask != 0)
                        .filter_map(|sl| u.slot_origin[g].get(&sl))
                        .collect();
                    let undefined = from
                        .iter()
                        .find(|o| matches!(o, Origin::Undefined(_)))
                        .copied();
                    let pick = undefined.or(from.first().copied()).cloned();
                    let races: Vec<usize> = from
                        .iter()
                        .filter_map(|o| match o {
                            Origin::Race(k) => Some(*k),
                            Origin::Undefined(_) => None,
                        })
                        .collect();
                    let mut sets = Vec::new();
                    if pick.is_some() {
                        for k in 0..w {
                            let lanes = any(&sg.poison, d + k, 1);
                            if lanes & t.mask != 0 {
                                sets.push((d + k, lanes & !t.mask != 0));
                            }
                        }
                    }
                    for (slot, others) in sets {
                        if let Some(o) = pick.as_ref() {
                            u.set_origin(&mut self.diags, g, slot, o.clone(), others);
                        }
                    }
                    // Races mixed with undefined data are observed; several races mixed
                    // share their fate under the one origin the result keeps.
                    match pick {
                        Some(Origin::Race(p)) => {
                            for k in races {
                                u.join(&mut self.diags, p, k);
                            }
                        }
                        _ => {
                            for k in races {
                                u.mark_observed(&mut self.diags, k);
                            }
                        }
                    }
                }
            }
        }
        // An atomic's or a matrix load's result may carry it too.
        if !u.regs[g] && !self.sgs[g].poison.is_empty() {
            if let Some((d, w)) = inst.writes() {
                u.regs[g] = any(&self.sgs[g].poison, d, w) & t.mask != 0;
            }
        }
        swap_layers(&mut self.sgs[g]);
        std::mem::swap(&mut self.mem.poison, &mut u.mem);
        // The propagation noted stores of the layer's data as poison stores: they are not.
        self.poison_stores.truncate(stores_before);
        self.uninit = Some(u);
    }
}

impl Simulator {
    /// Race diagnostic `diag`'s read (`read`) came before its write: it is followed in the
    /// replay at the end of the run.
    pub(super) fn uninit_note_war(&mut self, diag: usize, read: &super::detect::Rec) {
        if let Some(u) = self.uninit.as_mut() {
            u.war.push(WarRead {
                diag,
                step: read.step,
                inv: read.inv,
                wg: read.wg,
                block: read.block,
                instr: read.instr,
            });
        }
    }

    /// In a replay, after the step of tangle `t` of subgroup `g`: the reads due at this step
    /// are tainted as a racing read that came second is.
    pub(super) fn uninit_replay_step(&mut self, g: usize, t: &Tangle) {
        let Some(r) = self.uninit.as_mut().and_then(|u| u.replay.as_mut()) else {
            return;
        };
        let step = self.stats.steps;
        let mut due = Vec::new();
        while let Some(w) = r.targets.get(r.next).filter(|w| w.step <= step) {
            if w.step == step {
                due.push((r.next, w.clone()));
            }
            r.next += 1;
        }
        if due.is_empty() {
            return;
        }
        let s = self.cfg.subgroup_size as usize;
        let instr = self.prog.step_index(t.block, t.inst);
        let mut prev: Option<(usize, u32)> = None;
        for (i, w) in due {
            // The same read as the previous target's (one load, two races): one taint.
            if let Some((p, inv)) = prev.filter(|(_, inv)| *inv == w.inv) {
                if let Some(u) = self.uninit.as_mut() {
                    u.join(&mut self.diags, REPLAY_BASE + p, REPLAY_BASE + i);
                    if let Some(r) = u.replay.as_mut() {
                        r.hit[i] = r.hit[p];
                    }
                }
                prev = Some((p, inv));
                continue;
            }
            prev = Some((i, w.inv));
            let (wg, l) = (w.inv as usize / s, w.inv as usize % s);
            // The moment is the read's only when the step ran its instruction for its lane.
            let here = w.wg == self.wg_linear
                && (w.block, w.instr) == (t.block, instr)
                && wg == g
                && t.mask >> l & 1 == 1;
            let followed = here && self.uninit_track_race(REPLAY_BASE + i, w.inv, w.block, w.instr);
            if let Some(r) = self.uninit.as_mut().and_then(|u| u.replay.as_mut()) {
                r.hit[i] = followed;
            }
        }
    }

    /// The run finished: races whose read came first are judged by a replay of the dispatch
    /// from `initial` (its starting state) following those reads; one whose read reached
    /// nothing observable there is marked unobserved. At most one replay per run.
    pub(super) fn uninit_classify_war(&mut self, initial: &Simulator) {
        let Some(u) = self.uninit.as_mut() else {
            return;
        };
        let mut targets = std::mem::take(&mut u.war);
        targets.retain(|w| self.diags.get(w.diag).is_some_and(|d| d.observed));
        if targets.is_empty() {
            return;
        }
        targets.sort_by_key(|w| (w.step, w.inv));
        let n = targets.len();
        let mut r = initial.clone();
        // Only the followed reads matter: no race detection, no trace.
        r.detect = None;
        r.mem.log = None;
        r.footprint = None;
        r.cfg.record_trace = false;
        let Some(ru) = r.uninit.as_mut() else {
            return;
        };
        ru.replay = Some(Box::new(Replay {
            targets: targets.clone(),
            next: 0,
            hit: vec![false; n],
            observed: vec![false; n],
        }));
        let steps = self.stats.steps;
        let same = matches!(r.run(steps.saturating_add(1)), Ok(super::Outcome::Finished))
            && r.stats.steps == steps;
        let Some(rep) = r.uninit.as_mut().and_then(|u| u.replay.take()) else {
            return;
        };
        if !same {
            return;
        }
        for (i, w) in targets.iter().enumerate() {
            if rep.hit[i] && !rep.observed[i] {
                if let Some(d) = self.diags.get_mut(w.diag) {
                    d.observed = false;
                }
            }
        }
    }

    /// Names undefined data a load or atomic read: the variable (and member or element), the
    /// memory, where it is declared and where it was read.
    fn describe_read(&self, p: u64, leaf_off: u32, t: &Tangle, kind: &str) -> String {
        let prog = &self.prog;
        let (space, region, base) = decode_ptr(p);
        let off = base + leaf_off;
        let var = prog
            .variables
            .iter()
            .find(|v| v.space == space && off >= v.offset && off < v.offset + v.size.max(1));
        // The source's own name for the variable, when the debug information gives one.
        let source_var = var.and_then(|v| {
            prog.debug.as_ref()?.variables.iter().find(|sv| {
                matches!(sv.home, crate::program::debug::VarHome::Memory { pointer } if pointer == v.id)
            })
        });
        let name = prog
            .describe_address(space, region, off)
            .filter(|n| !n.is_empty() && !n.starts_with('%'))
            .or_else(|| source_var.map(|sv| sv.name.clone()))
            .or_else(|| prog.describe_address(space, region, off));
        let declared = var.and_then(|v| {
            prog.source_ref(v.instruction).describe().or_else(|| {
                let d = prog.debug.as_ref()?;
                let pos = source_var?.pos?;
                Some(format!(
                    "{}:{}",
                    d.file_name(pos.file).unwrap_or("?"),
                    pos.line
                ))
            })
        });
        let what = match space {
            Space::Workgroup => "Workgroup memory",
            _ if var.is_some_and(|v| v.storage_class == "Private") => "Private memory",
            _ => "Function memory",
        };
        let instruction = prog.step_index(t.block, t.inst);
        let at = prog.source_ref(instruction).describe().map_or_else(
            || format!("instruction #{instruction}"),
            |d| format!("{d} (instruction #{instruction})"),
        );
        format!(
            "data read from `{}` ({what}{}) by the {kind} at {at}",
            name.unwrap_or_else(|| "memory".into()),
            declared.map_or_else(String::new, |d| format!(", declared at {d}"))
        )
    }
}

/// Puts the uninitialized layer where the poison propagation works, or back.
fn swap_layers(sg: &mut crate::sched::Subgroup) {
    std::mem::swap(&mut sg.poison, &mut sg.uninit);
}
