//! Races whose read came first: noted during the run and judged by one deterministic replay at
//! the end, from a kept starting state (is the value read used observably?).

use super::{Replay, WarRead, REPLAY_BASE};
use crate::program::{decode_ptr, Space, StorageClass};
use crate::sched::Tangle;
use crate::sim::Simulator;

impl Simulator {
    /// Race diagnostic `diag`'s read (`read`) came before its write: it is followed in the
    /// replay at the end of the run.
    pub(in crate::sim) fn uninit_note_war(&mut self, diag: usize, read: &crate::sim::detect::Rec) {
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
    pub(in crate::sim) fn uninit_replay_step(&mut self, g: usize, t: &Tangle) {
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
        let instr = self.prog.step_index(t.block, t.pos);
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
    /// from `initial` (its state before its first workgroup started) following those reads; one whose read reached
    /// nothing observable there is marked unobserved. At most one replay per run.
    pub(in crate::sim) fn uninit_classify_war(&mut self, initial: &Simulator) {
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
        // (`initial` is the state before the first workgroup started)
        r.start_workgroup();
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
        let same = matches!(
            r.run(steps.saturating_add(1)),
            Ok(crate::sim::Outcome::Finished)
        ) && r.stats.steps == steps;
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
    pub(super) fn describe_read(&self, p: u64, leaf_off: u32, t: &Tangle, kind: &str) -> String {
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
            _ if var.is_some_and(|v| v.storage_class == StorageClass::Private) => "Private memory",
            _ => "Function memory",
        };
        let instruction = prog.step_index(t.block, t.pos);
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
