//! Stepping backwards: periodic checkpoints plus deterministic replay.
//!
//! The simulator is deterministic, so the state after step `n` is reproduced by restoring the
//! last checkpoint at or before `n` and replaying. Steps where the user chose the tangle (step
//! the selected tangle) are remembered so the replay makes the same choice.

use crate::sim::{RunError, Simulator};
use std::collections::BTreeMap;

/// A [`Simulator`] that can also step back: it keeps checkpoints of earlier states and replays
/// from the nearest one (the user's choices of tangle included).
pub struct History {
    sim: Simulator,
    checkpoints: Vec<Simulator>,
    /// Take a checkpoint every this many steps.
    interval: u64,
    /// Step number -> (subgroup, tangle id) chosen by the user for that step.
    forced: BTreeMap<u64, (usize, u64)>,
    /// Most checkpoints kept; older ones are thinned out (every other one dropped).
    max_checkpoints: usize,
    /// Bytes all checkpoints together may hold: a big simulation keeps fewer of them (at least
    /// two) and replays further instead.
    checkpoint_budget: u64,
}

/// Default for [`History::set_checkpoint_budget`].
pub const DEFAULT_CHECKPOINT_BUDGET: u64 = 256 << 20;

impl History {
    /// Starts the history at `sim`'s current state, with a checkpoint every `interval` steps (at
    /// least 1; the spacing doubles when there are too many checkpoints).
    pub fn new(mut sim: Simulator, interval: u64) -> Self {
        Self {
            checkpoints: vec![sim.clone_without_trace()],
            sim,
            interval: interval.max(1),
            forced: BTreeMap::new(),
            max_checkpoints: 64,
            checkpoint_budget: DEFAULT_CHECKPOINT_BUDGET,
        }
    }

    /// Limits the memory the checkpoints take together, in bytes.
    pub fn set_checkpoint_budget(&mut self, bytes: u64) {
        self.checkpoint_budget = bytes;
    }

    /// Checkpoints kept now (for tests and the memory figures).
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// The simulator in its current state (read-only: steps go through the history so it can
    /// replay them).
    pub fn sim(&self) -> &Simulator {
        &self.sim
    }

    fn after_step(&mut self) {
        let n = self.sim.stats().steps;
        if n % self.interval == 0 && self.checkpoints.last().is_none_or(|c| c.stats().steps < n) {
            // Checkpoints hold no trace: it would make them grow with the run.
            self.checkpoints.push(self.sim.clone_without_trace());
            let each = self.sim.footprint_bytes().max(1);
            let cap = usize::try_from(self.checkpoint_budget / each)
                .unwrap_or(usize::MAX)
                .clamp(2, self.max_checkpoints);
            while self.checkpoints.len() > cap {
                // Keep the first; drop every other one after it and double the spacing.
                let kept: Vec<Simulator> = self
                    .checkpoints
                    .drain(..)
                    .enumerate()
                    .filter(|(i, _)| i % 2 == 0)
                    .map(|(_, s)| s)
                    .collect();
                self.checkpoints = kept;
                self.interval *= 2;
            }
        }
    }

    /// One step forward (whichever tangle the scheduler picks). False when finished.
    pub fn step(&mut self) -> Result<bool, RunError> {
        self.truncate_future();
        let ran = self.sim.step()?;
        if ran {
            self.after_step();
        }
        Ok(ran)
    }

    /// One step of a chosen tangle.
    pub fn step_tangle(&mut self, subgroup: usize, id: u64) -> Result<bool, RunError> {
        self.truncate_future();
        let ran = self.sim.step_tangle(subgroup, id)?;
        if ran {
            self.forced.insert(self.sim.stats().steps, (subgroup, id));
            self.after_step();
        }
        Ok(ran)
    }

    /// Go to the state right after step `target` (0 = the start).
    pub fn goto(&mut self, target: u64) -> Result<(), RunError> {
        self.goto_within(target, u64::MAX).map(|_| ())
    }

    /// Heads for the state right after step `target`, replaying at most `budget` steps (going
    /// back first restores the nearest checkpoint, which costs no steps). True when there:
    /// at the target, or at the end of a run that finishes before it. Call again to go on.
    pub fn goto_within(&mut self, target: u64, budget: u64) -> Result<bool, RunError> {
        let now = self.sim.stats().steps;
        if target < now {
            let cp = self
                .checkpoints
                .iter()
                .rev()
                .find(|c| c.stats().steps <= target)
                .cloned();
            if let Some(cp) = cp {
                let trace = self.sim.take_trace();
                self.sim = cp;
                self.sim.restore_trace(trace);
            }
            // Checkpoints past the target stay valid: the replay reproduces them exactly.
        }
        let mut left = budget;
        while self.sim.stats().steps < target {
            if left == 0 {
                return Ok(false);
            }
            left -= 1;
            let next = self.sim.stats().steps + 1;
            let ran = match self.forced.get(&next) {
                Some(&(g, id)) => self.sim.step_tangle(g, id)?,
                None => self.sim.step()?,
            };
            if !ran {
                break;
            }
        }
        Ok(true)
    }

    /// Undo the last step.
    pub fn step_back(&mut self) -> Result<(), RunError> {
        let n = self.sim.stats().steps;
        if n > 0 {
            self.goto(n - 1)?;
        }
        Ok(())
    }

    /// Forget the future after the current step (a new choice was made there).
    pub fn truncate_future(&mut self) {
        let n = self.sim.stats().steps;
        self.checkpoints.retain(|c| c.stats().steps <= n);
        self.forced.retain(|k, _| *k <= n);
    }
}
