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

mod propagate;
mod replay;
mod steer;

use super::Simulator;
use crate::exec::memory::PoisonMaps;
use crate::exec::poison::any;
use crate::exec::Mask;
use crate::program::{
    decode_ptr, encode_ptr, AccessStep, BlockId, Inst, Space, StorageClass, Terminator,
};
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

/// Whether an instruction reads, writes or declares memory: the layer then follows the data
/// through memory (and a Function variable without an initializer starts undefined).
pub(in crate::sim) fn touches_memory(inst: &Inst) -> bool {
    matches!(
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
    )
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
    /// Word indices of the buffer of resource `resource` holding data an uninitialized read
    /// gave.
    pub(in crate::sim) fn words(
        &self,
        mem: &crate::exec::memory::Memory,
        resource: usize,
    ) -> Vec<usize> {
        mem.marked_words(&self.mem, resource)
    }

    /// Whether step `step` of subgroup `g`, an instruction that does not touch memory, leaves
    /// the layer nothing to follow: no register of the subgroup holds undefined data, and no
    /// replayed read is due (the propagation and the replay would return at once).
    pub(in crate::sim) fn idle(&self, g: usize, step: u64) -> bool {
        !self.tainted_regs(g)
            && self
                .replay
                .as_ref()
                .is_none_or(|r| r.targets.get(r.next).is_none_or(|w| w.step > step))
    }

    /// The bytes of Workgroup and invocation memory not yet written, one bit each.
    pub(in crate::sim) fn unwritten(&self) -> &PoisonMaps {
        &self.mem
    }

    /// Whether a register of subgroup `g` may hold undefined data (else its uses need no look).
    #[inline]
    pub(in crate::sim) fn tainted_regs(&self, g: usize) -> bool {
        self.regs.get(g).copied().unwrap_or(false)
    }

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
        u.mem.clear();
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
            match (v.space, v.storage_class) {
                (Space::Workgroup, _) => {
                    let p = encode_ptr(Space::Workgroup, 0, v.offset);
                    self.mem.set_poison_range(p, v.size, 0, true);
                }
                (Space::Invocation, StorageClass::Private) => {
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
        if !self.uninit.as_ref().is_some_and(|u| u.tainted_regs(g)) {
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
            t.pos,
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
}

/// Puts the uninitialized layer where the poison propagation works, or back.
fn swap_layers(sg: &mut crate::sched::Subgroup) {
    std::mem::swap(&mut sg.poison, &mut sg.uninit);
}
