//! Mutation testing of the bug detectors: a shader's SPIR-V is disassembled, changed the way
//! real bugs are made (a barrier deleted or moved above a store, an initialising store
//! dropped, an index aliased to 0) or the way harmless edits are (a barrier doubled, given
//! stronger semantics, or preceded by a memory barrier), reassembled and run.
//!
//! Whether a mutant is buggy is decided without the detectors: it is run under several
//! schedules with the detectors off and its output words compared with the unmutated
//! shader's. A mutant whose output changes under some schedule shows its bug (`Observable`);
//! a harmful edit whose output never changes is `Latent` (a race on equal values, a store of
//! what memory already held); a harmless edit must change nothing. The detectors then run under
//! every schedule and the verdicts are compared with that.
//!
//! Shared by `core/tests/mutations.rs` (the project's own shaders) and
//! `core/examples/mutate.rs` (any shader with a case file, e.g. a checkout of public ones).

#![allow(dead_code)]

use lanescope_core::spvtext::{assemble, disassemble, AsmOptions, DisOptions};
use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Schedule, Simulator};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

/// AcquireRelease | UniformMemory | WorkgroupMemory | ImageMemory.
const STRONG_SEMANTICS: u32 = 0x8 | 0x40 | 0x100 | 0x800;

/// One edit of a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    /// The k-th OpControlBarrier deleted.
    DropBarrier(usize),
    /// The k-th OpControlBarrier moved above the store to Workgroup memory before it in its
    /// block.
    HoistBarrier(usize),
    /// The k-th OpStore to Workgroup memory deleted.
    DropStore(usize),
    /// The last index of the k-th access chain into Workgroup memory replaced by 0.
    AliasIndex(usize),
    /// The k-th OpControlBarrier left without memory semantics (it still synchronises
    /// execution, so no output changes, but it orders no memory: as harmful as deleting it).
    Weaken(usize),
    /// The k-th OpControlBarrier's semantics keep every storage class but lose
    /// Acquire/Release (again ordering nothing).
    Unacquire(usize),
    /// Harmless: the k-th OpControlBarrier doubled.
    DupBarrier(usize),
    /// Harmless: the k-th OpControlBarrier given AcquireRelease and every storage class.
    Strengthen(usize),
    /// Harmless: an OpMemoryBarrier (Workgroup scope, AcquireRelease | WorkgroupMemory) before
    /// the k-th OpControlBarrier.
    FenceBefore(usize),
}

impl Op {
    pub fn harmless(self) -> bool {
        matches!(
            self,
            Op::DupBarrier(_) | Op::Strengthen(_) | Op::FenceBefore(_)
        )
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::DropBarrier(k) => write!(f, "drop-barrier #{k}"),
            Op::HoistBarrier(k) => write!(f, "hoist-barrier #{k}"),
            Op::DropStore(k) => write!(f, "drop-store #{k}"),
            Op::AliasIndex(k) => write!(f, "alias-index #{k}"),
            Op::Weaken(k) => write!(f, "weaken #{k}"),
            Op::Unacquire(k) => write!(f, "unacquire #{k}"),
            Op::DupBarrier(k) => write!(f, "dup-barrier #{k}"),
            Op::Strengthen(k) => write!(f, "strengthen #{k}"),
            Op::FenceBefore(k) => write!(f, "fence-before #{k}"),
        }
    }
}

/// A disassembled module (raw ids) with what the operators need to find.
pub struct Module {
    lines: Vec<String>,
    /// Ids of pointers into Workgroup memory (variables, and access chains from them).
    workgroup_ptrs: BTreeSet<String>,
    /// The 32-bit unsigned integer type's id.
    uint: Option<String>,
    /// Line numbers of the OpControlBarriers, the OpStores to Workgroup memory and the access
    /// chains into it (found once: every mutant indexes them).
    barriers: Vec<usize>,
    stores: Vec<usize>,
    chains: Vec<usize>,
}

fn tokens(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// (result id, opcode, operands) of one line.
fn parse(line: &str) -> (Option<&str>, &str, Vec<&str>) {
    let t = tokens(line);
    if t.len() >= 3 && t[1] == "=" {
        (Some(t[0]), t[2], t[3..].to_vec())
    } else if let Some((op, rest)) = t.split_first() {
        (None, op, rest.to_vec())
    } else {
        (None, "", Vec::new())
    }
}

impl Module {
    pub fn new(words: &[u32]) -> Self {
        let text = disassemble(
            words,
            &DisOptions {
                raw_id: true,
                no_header: true,
                no_indent: true,
            },
        )
        .expect("disassemble");
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut workgroup_ptrs = BTreeSet::new();
        let mut uint = None;
        for l in &lines {
            let (res, op, args) = parse(l);
            match (res, op) {
                (Some(r), "OpVariable") if args.get(1) == Some(&"Workgroup") => {
                    workgroup_ptrs.insert(r.to_string());
                }
                (Some(r), "OpAccessChain" | "OpInBoundsAccessChain")
                    if args.get(1).is_some_and(|b| workgroup_ptrs.contains(*b)) =>
                {
                    workgroup_ptrs.insert(r.to_string());
                }
                (Some(r), "OpTypeInt") if args == ["32", "0"] => uint = Some(r.to_string()),
                _ => {}
            }
        }
        let mut m = Module {
            lines,
            workgroup_ptrs,
            uint,
            barriers: Vec::new(),
            stores: Vec::new(),
            chains: Vec::new(),
        };
        m.barriers = m.find_barriers();
        m.stores = m.find_workgroup_stores();
        m.chains = m.find_workgroup_chains();
        m
    }

    /// Line numbers of the lines `pick` selects.
    fn find(&self, pick: impl Fn(Option<&str>, &str, &[&str]) -> bool) -> Vec<usize> {
        (0..self.lines.len())
            .filter(|&i| {
                let (r, op, a) = parse(&self.lines[i]);
                pick(r, op, &a)
            })
            .collect()
    }

    fn find_barriers(&self) -> Vec<usize> {
        self.find(|_, op, _| op == "OpControlBarrier")
    }

    /// Whether an OpMemoryBarrier comes right before the k-th OpControlBarrier (then it orders
    /// memory whatever the control barrier's own semantics).
    pub fn fenced(&self, k: usize) -> bool {
        let at = self.barriers[k];
        at > 0 && parse(&self.lines[at - 1]).1 == "OpMemoryBarrier"
    }

    fn find_workgroup_stores(&self) -> Vec<usize> {
        self.find(|_, op, a| op == "OpStore" && a.first().is_some_and(|p| self.is_wg(p)))
    }

    fn find_workgroup_chains(&self) -> Vec<usize> {
        self.find(|_, op, a| {
            matches!(op, "OpAccessChain" | "OpInBoundsAccessChain")
                && a.len() >= 3
                && self.is_wg(a[1])
        })
    }

    fn is_wg(&self, id: &str) -> bool {
        self.workgroup_ptrs.contains(id)
    }

    /// Every edit the operators can make of this module.
    pub fn ops(&self) -> Vec<Op> {
        let mut v = Vec::new();
        for k in 0..self.barriers.len() {
            v.push(Op::DropBarrier(k));
            if self.hoist_target(k).is_some() {
                v.push(Op::HoistBarrier(k));
            }
            v.push(Op::DupBarrier(k));
            if self.uint.is_some() {
                v.push(Op::Weaken(k));
                v.push(Op::Unacquire(k));
                v.push(Op::Strengthen(k));
                v.push(Op::FenceBefore(k));
            }
        }
        for k in 0..self.stores.len() {
            v.push(Op::DropStore(k));
        }
        if self.uint.is_some() {
            for k in 0..self.chains.len() {
                v.push(Op::AliasIndex(k));
            }
        }
        v
    }

    /// Where the k-th barrier would move to: the nearest store to Workgroup memory above it
    /// in its block.
    fn hoist_target(&self, k: usize) -> Option<usize> {
        let at = self.barriers[k];
        for i in (0..at).rev() {
            let (_, op, a) = parse(&self.lines[i]);
            match op {
                "OpLabel" => return None,
                "OpStore" if a.first().is_some_and(|p| self.is_wg(p)) => return Some(i),
                _ => {}
            }
        }
        None
    }

    /// `text` (this module, edited) with a prologue that fills every Workgroup variable with
    /// constant data (`pattern` 0 or 1 picks which) and then waits at a workgroup barrier: what
    /// unwritten memory holds then shows in the output only where the shader reads it.
    ///
    /// A Workgroup array sized by a specialization constant is filled at its specialized size
    /// (`spec`, else the default): that constant becomes a plain one in the filled module.
    pub fn with_fill(text: &str, pattern: u32, spec: &BTreeMap<u32, u64>) -> Option<String> {
        let frozen = Self::freeze_lengths(text, spec);
        let lines: Vec<&str> = frozen.lines().collect();
        let mut defs: BTreeMap<&str, (&str, Vec<&str>)> = BTreeMap::new();
        for l in &lines {
            if let (Some(r), op, a) = parse(l) {
                defs.insert(r, (op, a));
            }
        }
        let mut new: Vec<String> = Vec::new();
        let mut made: BTreeMap<String, String> = BTreeMap::new();
        fn constant(
            t: &str,
            pattern: u32,
            defs: &BTreeMap<&str, (&str, Vec<&str>)>,
            new: &mut Vec<String>,
            made: &mut BTreeMap<String, String>,
        ) -> Option<String> {
            if let Some(c) = made.get(t) {
                return Some(c.clone());
            }
            let (op, a) = defs.get(t)?;
            // The right-hand side first: the element constants it names are made on the way.
            let rhs = match *op {
                "OpTypeInt" => {
                    let w: u32 = a[0].parse().ok()?;
                    let bits: u64 = if pattern == 0 {
                        0xA5A5_A5A5_A5A5_A5A5
                    } else {
                        0x3C3C_3C3C_3C3C_3C3C
                    };
                    let v = if w >= 64 {
                        bits
                    } else {
                        bits & ((1u64 << w) - 1)
                    };
                    // Signed types take the value as written: keep it positive.
                    let v = if a[1] == "1" { v >> 1 } else { v };
                    format!("OpConstant {t} {v}")
                }
                "OpTypeFloat" => {
                    let v = if pattern == 0 { "3.5" } else { "-7.75" };
                    format!("OpConstant {t} {v}")
                }
                "OpTypeBool" => {
                    let v = if pattern == 0 {
                        "OpConstantTrue"
                    } else {
                        "OpConstantFalse"
                    };
                    format!("{v} {t}")
                }
                "OpTypeVector" => {
                    let e = constant(a[0], pattern, defs, new, made)?;
                    let n: usize = a[1].parse().ok()?;
                    format!("OpConstantComposite {t} {}", vec![e; n].join(" "))
                }
                "OpTypeArray" => {
                    let e = constant(a[0], pattern, defs, new, made)?;
                    let (cop, ca) = defs.get(a[1])?;
                    if *cop != "OpConstant" {
                        return None;
                    }
                    let n: usize = ca[1].parse().ok()?;
                    if n > 1 << 16 {
                        return None;
                    }
                    format!("OpConstantComposite {t} {}", vec![e; n].join(" "))
                }
                "OpTypeStruct" => {
                    let es: Option<Vec<String>> = a
                        .iter()
                        .map(|m| constant(m, pattern, defs, new, made))
                        .collect();
                    format!("OpConstantComposite {t} {}", es?.join(" "))
                }
                _ => return None,
            };
            let name = format!("%mut_fill{}", made.len());
            new.push(format!("{name} = {rhs}"));
            made.insert(t.to_string(), name.clone());
            Some(name)
        }
        let mut stores = Vec::new();
        for l in &lines {
            if let (Some(v), "OpVariable", a) = parse(l) {
                if a.get(1) != Some(&"Workgroup") {
                    continue;
                }
                let (pop, pa) = defs.get(a[0])?;
                if *pop != "OpTypePointer" {
                    return None;
                }
                let c = constant(pa[1], pattern, &defs, &mut new, &mut made)?;
                stores.push(format!("OpStore {v} {c}"));
            }
        }
        let uint = lines.iter().find_map(|l| match parse(l) {
            (Some(r), "OpTypeInt", a) if a == ["32", "0"] => Some(r),
            _ => None,
        })?;
        new.push(format!("%mut_two = OpConstant {uint} 2"));
        new.push(format!("%mut_sem264 = OpConstant {uint} 264"));
        stores.push("OpControlBarrier %mut_two %mut_two %mut_sem264".into());
        let entry = lines.iter().find_map(|l| match parse(l) {
            (None, "OpEntryPoint", a) => a.get(1).copied(),
            _ => None,
        })?;
        let func = lines.iter().position(|l| parse(l).0 == Some(entry))?;
        let mut body = func + 2;
        while body < lines.len() && parse(lines[body]).1 == "OpVariable" {
            body += 1;
        }
        let first_fn = lines.iter().position(|l| parse(l).1 == "OpFunction")?;
        let mut out: Vec<String> = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            if i == first_fn {
                out.append(&mut new);
            }
            if i == body {
                out.append(&mut stores);
            }
            out.push(l.to_string());
        }
        Some(out.join("\n") + "\n")
    }

    /// `text` with every specialization constant that sizes an array made a plain constant of
    /// its specialized value (its SpecId decoration dropped).
    fn freeze_lengths(text: &str, spec: &BTreeMap<u32, u64>) -> String {
        let mut spec_id: BTreeMap<&str, u32> = BTreeMap::new();
        let mut lengths: BTreeSet<&str> = BTreeSet::new();
        for l in text.lines() {
            match parse(l) {
                (None, "OpDecorate", a) if a.get(1) == Some(&"SpecId") => {
                    if let Some(n) = a.get(2).and_then(|n| n.parse().ok()) {
                        spec_id.insert(a[0], n);
                    }
                }
                (Some(_), "OpTypeArray", a) if a.len() == 2 => {
                    lengths.insert(a[1]);
                }
                _ => {}
            }
        }
        let mut out = String::new();
        for l in text.lines() {
            let (r, op, a) = parse(l);
            match (r, op) {
                (None, "OpDecorate") if a.get(1) == Some(&"SpecId") && lengths.contains(a[0]) => {
                    continue;
                }
                (Some(r), "OpSpecConstant") if lengths.contains(r) && a.len() == 2 => {
                    let value = spec_id
                        .get(r)
                        .and_then(|id| spec.get(id))
                        .map_or_else(|| a[1].to_string(), u64::to_string);
                    out.push_str(&format!("{r} = OpConstant {} {value}\n", a[0]));
                }
                _ => {
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
        out
    }

    /// The text of the module with `op` applied.
    pub fn apply(&self, op: Op) -> String {
        let mut lines = self.lines.clone();
        let uint = self.uint.clone().unwrap_or_default();
        // New constants go right after the uint type (ids by name: the assembler numbers them).
        let add_constant = |lines: &mut Vec<String>, name: &str, value: u32| {
            let at = lines
                .iter()
                .position(|l| parse(l).0 == Some(uint.as_str()))
                .expect("uint type");
            lines.insert(at + 1, format!("%{name} = OpConstant {uint} {value}"));
        };
        match op {
            Op::DropBarrier(k) => {
                lines.remove(self.barriers[k]);
            }
            Op::HoistBarrier(k) => {
                let from = self.barriers[k];
                let to = self.hoist_target(k).expect("hoist target");
                let b = lines.remove(from);
                lines.insert(to, b);
            }
            Op::DropStore(k) => {
                lines.remove(self.stores[k]);
            }
            Op::AliasIndex(k) => {
                let at = self.chains[k];
                let mut t: Vec<String> = tokens(&lines[at]).iter().map(|s| s.to_string()).collect();
                *t.last_mut().unwrap() = "%mut_zero".into();
                lines[at] = t.join(" ");
                add_constant(&mut lines, "mut_zero", 0);
            }
            Op::DupBarrier(k) => {
                let at = self.barriers[k];
                let b = lines[at].clone();
                lines.insert(at, b);
            }
            Op::Weaken(k) | Op::Unacquire(k) => {
                let at = self.barriers[k];
                let (_, _, a) = parse(&lines[at]);
                lines[at] = format!("OpControlBarrier {} {} %mut_sem", a[0], a[1]);
                let sem = if matches!(op, Op::Weaken(_)) {
                    0
                } else {
                    STRONG_SEMANTICS & !0x8
                };
                add_constant(&mut lines, "mut_sem", sem);
            }
            Op::Strengthen(k) => {
                let at = self.barriers[k];
                let (_, _, a) = parse(&lines[at]);
                lines[at] = format!("OpControlBarrier {} {} %mut_sem", a[0], a[1]);
                add_constant(&mut lines, "mut_sem", STRONG_SEMANTICS);
            }
            Op::FenceBefore(k) => {
                let at = self.barriers[k];
                lines.insert(at, "OpMemoryBarrier %mut_scope %mut_fence".into());
                add_constant(&mut lines, "mut_scope", 2);
                add_constant(&mut lines, "mut_fence", 0x8 | 0x100);
            }
        }
        let mut s = lines.join("\n");
        s.push('\n');
        s
    }
}

/// How to run a shader: its dispatch and its buffers.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub spv: Vec<u32>,
    pub workgroups: [u32; 3],
    pub subgroup_size: u32,
    /// (set, binding, initial words).
    pub buffers: Vec<(u32, u32, Vec<u32>)>,
    pub push_constants: Vec<u32>,
    pub spec: BTreeMap<u32, u64>,
}

/// The schedules every mutant runs under.
pub fn schedules() -> Vec<Schedule> {
    let mut v = vec![Schedule::Default, Schedule::Reverse];
    v.extend((1..=4).map(Schedule::Random));
    v
}

/// What one run gave: its buffers' final words and the detectors' codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    pub output: Vec<Vec<u8>>,
    pub findings: BTreeSet<String>,
}

pub fn run_words(
    case: &Case,
    words: &[u32],
    schedule: Schedule,
    detectors: bool,
) -> Result<RunResult, String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = LoadOptions {
        spec: case.spec.iter().map(|(k, v)| (*k, (*v).into())).collect(),
        ..LoadOptions::default()
    };
    let prog = Arc::new(load(&bytes, &opts).map_err(|e| format!("load: {e}"))?);
    let bindings = Bindings {
        buffers: case
            .buffers
            .iter()
            .map(|(s, b, w)| (*s, *b, w.iter().flat_map(|x| x.to_le_bytes()).collect()))
            .collect(),
        push_constants: case
            .push_constants
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect(),
        ..Bindings::default()
    };
    let cfg = Config {
        workgroups: case.workgroups,
        subgroup_size: case.subgroup_size,
        schedule,
        detectors,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, &bindings).map_err(|e| format!("bind: {e}"))?;
    match sim.run(20_000_000).map_err(|e| format!("run: {e}"))? {
        Outcome::Finished => {}
        Outcome::Budget => return Err("did not finish".into()),
    }
    let output = case
        .buffers
        .iter()
        .map(|(s, b, _)| sim.buffer(*s, *b).unwrap_or_default().to_vec())
        .collect();
    let findings = sim
        .diagnostics()
        .iter()
        .filter(|d| {
            matches!(
                d.code.as_str(),
                "data-race" | "uninitialized-read" | "barrier-divergence"
            )
        })
        .map(|d| {
            if d.observed {
                d.code.to_string()
            } else {
                format!("{} (unobserved)", d.code)
            }
        })
        .collect();
    Ok(RunResult { output, findings })
}

/// What the oracle says a mutant is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Truth {
    /// Its output depends on the schedule (a race the run shows), or on what unwritten
    /// Workgroup memory held (an uninitialised read the run shows).
    Observable,
    /// A harmful edit whose output never depended on either (a race on equal values, a store
    /// of what memory already held, or a change of result that is the same under every
    /// schedule: a wrong program, not a race).
    Latent,
    /// A harmless edit (its output must equal the original's).
    Harmless,
}

/// One mutant's outcome.
#[derive(Clone, Debug)]
pub struct MutantResult {
    pub op: Op,
    pub truth: Truth,
    /// Detector codes under each schedule (in `schedules()` order).
    pub found: Vec<BTreeSet<String>>,
}

impl MutantResult {
    pub fn found_under_all(&self) -> bool {
        self.found.iter().all(|f| !f.is_empty())
    }
    pub fn found_under_any(&self) -> bool {
        self.found.iter().any(|f| !f.is_empty())
    }
    pub fn codes(&self) -> BTreeSet<String> {
        self.found.iter().flatten().cloned().collect()
    }
}

fn asm(text: &str) -> Result<Vec<u32>, String> {
    assemble(
        text,
        &AsmOptions {
            preserve_numeric_ids: true,
            ..AsmOptions::default()
        },
    )
    .map_err(|e| format!("assemble: {e}"))
}

/// The module `text` with each fill prologue, assembled (the text itself where it has no
/// Workgroup variable the prologue can fill).
fn filled(text: &str, spec: &BTreeMap<u32, u64>) -> Result<[Vec<u32>; 2], String> {
    match (
        Module::with_fill(text, 0, spec),
        Module::with_fill(text, 1, spec),
    ) {
        (Some(a), Some(b)) => Ok([asm(&a)?, asm(&b)?]),
        _ => {
            let w = asm(text)?;
            Ok([w.clone(), w])
        }
    }
}

/// Mutants that did not assemble, load or finish, with the reason.
pub type Skipped = Vec<(Op, String)>;

/// Runs every mutant of `case`. Mutants that do not assemble, load or finish are left out
/// (with the reason in the second list).
pub fn mutate(case: &Case) -> Result<(Vec<MutantResult>, Skipped), String> {
    let scheds = schedules();
    let module = Module::new(&case.spv);
    let base: Vec<RunResult> = scheds
        .iter()
        .map(|s| run_words(case, &case.spv, *s, false))
        .collect::<Result<_, _>>()?;
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for op in module.ops() {
        let text = module.apply(op);
        let judged = (|| -> Result<MutantResult, String> {
            let words = asm(&text)?;
            let fills = filled(&text, &case.spec)?;
            let mut truth = if op.harmless() {
                Truth::Harmless
            } else {
                Truth::Latent
            };
            let mut first: Option<Vec<Vec<u8>>> = None;
            let mut found = Vec::new();
            for (s, b) in scheds.iter().zip(&base) {
                let a = run_words(case, &fills[0], *s, false)?.output;
                let c = run_words(case, &fills[1], *s, false)?.output;
                let schedule_dependent = first.as_ref().is_some_and(|f| *f != a);
                if op.harmless() {
                    let plain = run_words(case, &words, *s, false)?.output;
                    if plain != b.output || a != c || schedule_dependent {
                        return Err(format!("a harmless edit changed the output under {s:?}"));
                    }
                } else if a != c || schedule_dependent {
                    truth = Truth::Observable;
                }
                first.get_or_insert(a);
                found.push(run_words(case, &words, *s, true)?.findings);
            }
            Ok(MutantResult { op, truth, found })
        })();
        match judged {
            Ok(o) => out.push(o),
            Err(e) => skipped.push((op, e)),
        }
    }
    Ok((out, skipped))
}

/// Small pseudo-random words (a fixed generator: the suite is deterministic).
pub fn pseudo_random(n: usize, seed: u32, below: u32) -> Vec<u32> {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % below
        })
        .collect()
}
