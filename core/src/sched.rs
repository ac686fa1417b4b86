//! Tangle scheduling under SPV_KHR_maximal_reconvergence.
//!
//! A *record* is a pending reconvergence point created by a dynamic instance of a merge
//! instruction (selection merge, loop merge, continue target, switch targets) or of an
//! OpFunctionCall. Its `members` are the invocations of the tangle that created it, minus those
//! that escaped since; `arrived` are those already waiting at its target. When every member has
//! arrived the record resolves into one tangle at its target. Records nest: each tangle and each
//! record points to its enclosing record (`parent`), which mirrors the construct nesting.
//!
//! Divergence happens only at OpBranchConditional and OpSwitch; reconvergence only when a record
//! resolves. A branch to a block is matched against the enclosing records, innermost first: the
//! first one whose target it is receives the lanes, and every record passed on the way is
//! escaped by them (a break, a continue, or a branch out of a switch).

use crate::exec::Mask;
use crate::program::{BlockId, FuncId, Program};
use serde::Serialize;

pub type RecordId = u32;

/// Where lanes sent to a block went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sent {
    /// No record received them: they move on to the block, in this record context.
    MoveOn(Option<RecordId>),
    /// A record whose target the block is received them: they wait there.
    Received,
}

/// How the invocations that take a switch are grouped into tangles (the spec allows either).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwitchTangles {
    /// One tangle per selector value through the whole case construct, until the merge.
    PerValue,
    /// Invocations reaching the same case construct (directly or by fallthrough) share a tangle.
    PerCase,
}

/// Which of a subgroup's runnable tangles runs first under [`Schedule::Default`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiblingOrder {
    /// Run the tangle holding the lowest-numbered lane first.
    LowestLane,
    /// Run the tangle holding the highest-numbered lane first.
    HighestLane,
    /// Run the tangle created first.
    Oldest,
    /// Run the tangle created last (depth-first).
    Newest,
}

/// How the scheduler chooses among what can run. Results the spec defines never depend on it;
/// a result that does depends on an order the hardware does not promise.
// Serialized by its name (`random:7`), as every report writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// Subgroups in order, each tangle running until it blocks, siblings by the sibling
    /// order; workgroups in order.
    Default,
    /// Subgroups and workgroups in reverse order, siblings highest lane first.
    Reverse,
    /// At every step a tangle chosen at random among every one that can run, and the
    /// workgroups in a random order, from this seed (so a schedule can be replayed).
    Random(u64),
}

impl Schedule {
    /// `default`, `reverse` or `random:SEED`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "default" => Some(Self::Default),
            "reverse" => Some(Self::Reverse),
            _ => s
                .strip_prefix("random:")
                .and_then(|n| n.parse().ok())
                .map(Self::Random),
        }
    }

    /// The `n`-th schedule an exploration tries: default, reverse, then random seeds 1, 2, ...
    pub fn nth(n: u64) -> Self {
        match n {
            0 => Self::Default,
            1 => Self::Reverse,
            k => Self::Random(k - 1),
        }
    }
}

impl Serialize for Schedule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Schedule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Self::parse(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown schedule `{name}` (default, reverse or random:SEED)"
            ))
        })
    }
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::Reverse => f.write_str("reverse"),
            Self::Random(seed) => write!(f, "random:{seed}"),
        }
    }
}

/// A small deterministic generator (SplitMix64): the random schedules must be the same on
/// every platform and replay identically from a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// A setting that is one of a few named values (kebab-case, as in `--json` and on the command
/// line).
pub trait NamedSetting: Sized + Copy + 'static {
    /// Every value, in the order menus list them.
    const ALL: &'static [Self];
    /// The value's kebab-case name.
    fn name(self) -> &'static str;
    /// The value named `s`.
    fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.name() == s)
    }
    /// The names, for help text and errors.
    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|v| v.name()).collect()
    }
}

impl NamedSetting for SwitchTangles {
    const ALL: &'static [Self] = &[Self::PerValue, Self::PerCase];
    fn name(self) -> &'static str {
        match self {
            Self::PerValue => "per-value",
            Self::PerCase => "per-case",
        }
    }
}

impl NamedSetting for SiblingOrder {
    const ALL: &'static [Self] = &[
        Self::LowestLane,
        Self::HighestLane,
        Self::Oldest,
        Self::Newest,
    ];
    fn name(self) -> &'static str {
        match self {
            Self::LowestLane => "lowest-lane",
            Self::HighestLane => "highest-lane",
            Self::Oldest => "oldest",
            Self::Newest => "newest",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RecordKind {
    /// OpSelectionMerge of an if: reconverge at the merge block.
    Selection,
    /// OpSelectionMerge of a switch: reconverge at the merge block; `cases` are the per-case
    /// target records (per-case grouping only).
    Switch { cases: Vec<(BlockId, RecordId)> },
    /// A switch target under per-case grouping.
    Case,
    /// OpLoopMerge: reconverge at the loop merge; `header` identifies back edges.
    Loop { header: BlockId },
    /// The continue target of one iteration.
    Continue,
    /// An OpFunctionCall: reconverge after it, at instruction `resume` of the target block.
    Call {
        resume: u32,
        dst: Option<(u32, u32)>,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub kind: RecordKind,
    pub target: BlockId,
    pub members: Mask,
    pub arrived: Mask,
    /// Arrived lanes that escaped an inner construct to get here (break, continue, return).
    pub escaped_in: Mask,
    pub parent: Option<RecordId>,
    /// Number of separate arrivals (more than one means the resolution reconverges).
    pub arrivals: u32,
    pub func: FuncId,
}

impl Record {
    /// A record nobody has arrived at yet.
    pub fn new(
        kind: RecordKind,
        target: BlockId,
        members: Mask,
        parent: Option<RecordId>,
        func: FuncId,
    ) -> Self {
        Self {
            kind,
            target,
            members,
            arrived: 0,
            escaped_in: 0,
            parent,
            arrivals: 0,
            func,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Tangle {
    pub id: u64,
    pub mask: Mask,
    pub block: BlockId,
    /// Position of the next instruction within the block (`insts.len()` is the terminator).
    #[serde(rename = "inst")]
    pub pos: u32,
    pub ctx: Option<RecordId>,
    pub at_barrier: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Subgroup {
    pub index: u32,
    /// Lanes that exist (the last subgroup of a workgroup may be partial).
    pub live: Mask,
    pub regs: Vec<u64>,
    pub tangles: Vec<Tangle>,
    pub records: Vec<Option<Record>>,
    free: Vec<RecordId>,
    pub finished: Mask,
    /// Poison lanes per register slot (empty until the first poison value; see `exec::poison`).
    pub poison: Vec<Mask>,
    /// Lanes per register slot holding data nobody initialized (memory read before any write,
    /// OpUndef), for the uninitialized-read detector; empty when it is off or nothing is.
    pub uninit: Vec<Mask>,
}

/// What scheduling did, for statistics and the trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct Events {
    pub divergences: u64,
    pub reconvergences: u64,
}

impl Subgroup {
    pub fn new(index: u32, live: Mask, regs: Vec<u64>) -> Self {
        Self {
            index,
            live,
            regs,
            ..Self::default()
        }
    }

    pub fn record(&self, id: RecordId) -> Option<&Record> {
        self.records.get(id as usize).and_then(Option::as_ref)
    }

    pub fn new_record(&mut self, rec: Record) -> RecordId {
        if let Some(id) = self.free.pop() {
            self.records[id as usize] = Some(rec);
            id
        } else {
            self.records.push(Some(rec));
            (self.records.len() - 1) as RecordId
        }
    }

    fn drop_record(&mut self, id: RecordId) -> Option<Record> {
        let r = self.records.get_mut(id as usize)?.take();
        if r.is_some() {
            self.free.push(id);
        }
        r
    }

    /// Lanes leave a record for good.
    fn escape(&mut self, id: RecordId, lanes: Mask) {
        let Some(rec) = self.records.get_mut(id as usize).and_then(Option::as_mut) else {
            return;
        };
        rec.members &= !lanes;
        if let RecordKind::Switch { cases } = &rec.kind {
            let cases: Vec<RecordId> = cases.iter().map(|c| c.1).collect();
            for c in cases {
                self.escape(c, lanes);
            }
        }
    }

    fn arrive(&mut self, id: RecordId, lanes: Mask, escaped: bool) {
        let Some(rec) = self.records.get_mut(id as usize).and_then(Option::as_mut) else {
            return;
        };
        rec.arrived |= lanes;
        rec.arrivals += 1;
        if escaped {
            rec.escaped_in |= lanes;
        }
        if let RecordKind::Switch { cases } = &rec.kind {
            let cases: Vec<RecordId> = cases.iter().map(|c| c.1).collect();
            for c in cases {
                self.escape(c, lanes);
            }
        }
    }

    /// Resolve a record whose members have all arrived: a new tangle at its target.
    pub fn try_resolve(&mut self, id: RecordId, next_id: &mut u64, ev: &mut Events) {
        let Some(rec) = self.record(id) else { return };
        if rec.members & !rec.arrived != 0 {
            return;
        }
        if let RecordKind::Switch { cases } = &rec.kind {
            // Case records still pending with no members left are dead.
            let cases: Vec<RecordId> = cases.iter().map(|c| c.1).collect();
            for c in cases {
                if self
                    .record(c)
                    .is_some_and(|r| r.members == 0 && r.arrived == 0)
                {
                    self.drop_record(c);
                }
            }
        }
        let Some(rec) = self.drop_record(id) else {
            return;
        };
        if rec.arrived == 0 {
            return;
        }
        if rec.arrivals > 1 {
            ev.reconvergences += 1;
        }
        // A block that is also the enclosing record's target (say, a selection merge that is a
        // continue target too): the lanes arrive there as well.
        if let Some(p) = rec.parent {
            if self.record(p).is_some_and(|pr| {
                pr.target == rec.target
                    && !matches!(pr.kind, RecordKind::Call { .. } | RecordKind::Case)
            }) {
                self.arrive(p, rec.arrived, rec.escaped_in != 0);
                self.try_resolve(p, next_id, ev);
                return;
            }
        }
        let pos = match rec.kind {
            RecordKind::Call { resume, .. } => resume,
            _ => 0,
        };
        *next_id += 1;
        self.tangles.push(Tangle {
            id: *next_id,
            mask: rec.arrived,
            block: rec.target,
            pos,
            ctx: rec.parent,
            at_barrier: false,
        });
    }

    /// Send `lanes`, leaving a block with context `ctx`, to block `target`: a record whose
    /// target it is receives them, or they move on.
    #[expect(
        clippy::too_many_arguments,
        reason = "the branch plus the scheduler's counters"
    )]
    pub fn send(
        &mut self,
        prog: &Program,
        ctx: Option<RecordId>,
        lanes: Mask,
        target: BlockId,
        mode: SwitchTangles,
        next_id: &mut u64,
        ev: &mut Events,
    ) -> Sent {
        if !prog
            .is_reconv_target
            .get(target as usize)
            .copied()
            .unwrap_or(false)
        {
            return Sent::MoveOn(ctx);
        }
        let mut path: Vec<RecordId> = Vec::new();
        let mut r = ctx;
        let mut found = None;
        while let Some(id) = r {
            let Some(rec) = self.record(id) else { break };
            if matches!(rec.kind, RecordKind::Call { .. }) {
                break;
            }
            if rec.target == target && !matches!(rec.kind, RecordKind::Case) {
                found = Some(id);
                break;
            }
            if mode == SwitchTangles::PerCase {
                if let RecordKind::Switch { cases } = &rec.kind {
                    if let Some((_, c)) = cases.iter().find(|(b, _)| *b == target) {
                        if self.record(*c).is_some() {
                            found = Some(*c);
                            break;
                        }
                    }
                }
            }
            path.push(id);
            r = rec.parent;
        }
        let Some(found) = found else {
            return Sent::MoveOn(ctx);
        };
        for &p in &path {
            self.escape(p, lanes);
        }
        self.arrive(found, lanes, !path.is_empty());
        for &p in &path {
            self.try_resolve(p, next_id, ev);
        }
        self.try_resolve(found, next_id, ev);
        Sent::Received
    }

    /// Lanes return from the current function: they escape every record up to the call record,
    /// and arrive there. With no call record (the entry point), they finish.
    pub fn ret(
        &mut self,
        ctx: Option<RecordId>,
        lanes: Mask,
        next_id: &mut u64,
        ev: &mut Events,
    ) -> Option<(u32, u32)> {
        let mut path = Vec::new();
        let mut r = ctx;
        let mut call = None;
        while let Some(id) = r {
            let Some(rec) = self.record(id) else { break };
            if let RecordKind::Call { dst, .. } = rec.kind {
                call = Some((id, dst));
                break;
            }
            path.push(id);
            r = rec.parent;
        }
        for &p in &path {
            self.escape(p, lanes);
        }
        let dst = match call {
            Some((id, dst)) => {
                self.arrive(id, lanes, !path.is_empty());
                dst
            }
            None => {
                self.finished |= lanes;
                None
            }
        };
        for &p in &path {
            self.try_resolve(p, next_id, ev);
        }
        if let Some((id, _)) = call {
            self.try_resolve(id, next_id, ev);
        }
        dst
    }

    /// Lanes terminate (OpUnreachable, OpKill): they escape every record, call records too.
    pub fn terminate(
        &mut self,
        ctx: Option<RecordId>,
        lanes: Mask,
        next_id: &mut u64,
        ev: &mut Events,
    ) {
        let mut path = Vec::new();
        let mut r = ctx;
        while let Some(id) = r {
            let Some(rec) = self.record(id) else { break };
            path.push(id);
            r = rec.parent;
        }
        for &p in &path {
            self.escape(p, lanes);
        }
        self.finished |= lanes;
        for &p in &path {
            self.try_resolve(p, next_id, ev);
        }
    }

    /// Lanes leave a record for good, which may complete it.
    pub fn escape_and_resolve(
        &mut self,
        id: RecordId,
        lanes: Mask,
        next_id: &mut u64,
        ev: &mut Events,
    ) {
        self.escape(id, lanes);
        self.try_resolve(id, next_id, ev);
    }

    /// Index of the next tangle to run under `order`, among those not at a barrier.
    pub fn pick(&self, order: SiblingOrder) -> Option<usize> {
        let runnable = self
            .tangles
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.at_barrier);
        match order {
            SiblingOrder::LowestLane => runnable.min_by_key(|(_, t)| t.mask.trailing_zeros()),
            SiblingOrder::HighestLane => runnable.min_by_key(|(_, t)| t.mask.leading_zeros()),
            SiblingOrder::Oldest => runnable.min_by_key(|(_, t)| t.id),
            SiblingOrder::Newest => runnable.max_by_key(|(_, t)| t.id),
        }
        .map(|(i, _)| i)
    }
}
