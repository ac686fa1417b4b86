//! Order dependence: run one dispatch under several schedules (default, reverse, then random
//! seeds) and report the output words that differ between them. A result that changes with the
//! schedule depends on an order the hardware does not promise: a missing barrier, a race, a
//! subgroup assumed to run first.

use crate::program::Program;
use crate::sched::Schedule;
use crate::sim::{Bindings, Config, Outcome, Simulator};
use serde::Serialize;
use std::sync::Arc;

/// How one schedule's run went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScheduleRun {
    /// The schedule (serialized as `default`, `reverse` or `random:SEED`).
    pub schedule: Schedule,
    /// Why it did not finish (an error or the step limit), if so.
    pub failed: Option<String>,
    /// Steps the run took (0 when it failed).
    pub steps: u64,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// An output word on which two schedules disagree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OrderDependence {
    /// Descriptor set of the buffer.
    pub set: u32,
    /// Binding of the buffer in its set.
    pub binding: u32,
    /// The descriptor array element (absent from JSON for element 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub element: u32,
    /// Index of the 32-bit word in the buffer.
    pub word: usize,
    /// The two schedules (the first is the one every other is compared with).
    pub schedules: [Schedule; 2],
    /// The word's value under each of the two schedules, in the same order.
    pub values: [u32; 2],
}

/// What [`explore`] found: how each schedule's run went, and the output words that differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exploration {
    /// One per schedule tried, in the order tried.
    pub runs: Vec<ScheduleRun>,
    /// The differing words (at most 256, each once, with the first schedule that disagrees), by
    /// set, binding, element and word.
    pub order_dependence: Vec<OrderDependence>,
    /// Differing words beyond those listed (each word counted once, however many schedules
    /// disagree on it).
    pub more: usize,
}

/// Most differing words listed.
const MAX_LISTED: usize = 256;

/// A buffer's bytes as little-endian 32-bit words (a short tail padded with zeros).
pub fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

/// A finished run's buffers as (set, binding, words, poisoned word indices).
type Outputs = Vec<((u32, u32, u32), Vec<u32>, Vec<usize>)>;

/// Runs the dispatch under `n` schedules ([`Schedule::nth`]) and compares every bound buffer
/// word by word with the first schedule's; words holding poison in either run are skipped
/// (their values are undefined anyway).
pub fn explore(
    prog: &Arc<Program>,
    cfg: &Config,
    bindings: &Bindings,
    n: u64,
    max_steps: u64,
) -> Exploration {
    let mut runs = Vec::new();
    let mut first: Option<(Schedule, Outputs)> = None;
    let mut found = Vec::new();
    let mut more = 0;
    // Per output buffer, one bit per word already found to differ (allocated at its first).
    let mut differs: Vec<Vec<u64>> = Vec::new();
    for k in 0..n.max(1) {
        let schedule = Schedule::nth(k);
        let c = Config {
            schedule,
            ..cfg.clone()
        };
        let outputs = Simulator::new(Arc::clone(prog), c, bindings)
            .map_err(|e| e.to_string())
            .and_then(|mut sim| match sim.run(max_steps) {
                Ok(Outcome::Finished) => Ok(sim),
                Ok(Outcome::Budget) => Err(format!("did not finish within {max_steps} steps")),
                Err(e) => Err(e.to_string()),
            });
        let sim = match outputs {
            Ok(sim) => sim,
            Err(e) => {
                runs.push(ScheduleRun {
                    schedule,
                    failed: Some(e),
                    steps: 0,
                });
                continue;
            }
        };
        runs.push(ScheduleRun {
            schedule,
            failed: None,
            steps: sim.stats().steps,
        });
        let outs: Outputs = prog
            .resources
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.push_constant)
            .filter_map(|(ri, r)| {
                let b = sim.resource_buffer(r)?;
                Some((
                    (r.set, r.binding, r.element()),
                    words(b),
                    sim.resource_poisoned_words(ri),
                ))
            })
            .collect();
        let Some((ref_name, ref_outs)) = &first else {
            first = Some((schedule, outs));
            continue;
        };
        differs.resize(ref_outs.len(), Vec::new());
        for (((slot, a, pa), (_, b, pb)), seen) in ref_outs.iter().zip(&outs).zip(&mut differs) {
            let (set, binding, element) = slot;
            for (w, (x, y)) in a.iter().zip(b).enumerate() {
                if x == y || pa.binary_search(&w).is_ok() || pb.binary_search(&w).is_ok() {
                    continue;
                }
                // One entry (or one count past the list) per word: the first schedule that
                // disagrees.
                if seen.is_empty() {
                    *seen = vec![0; a.len().div_ceil(64)];
                }
                if seen[w / 64] >> (w % 64) & 1 == 1 {
                    continue;
                }
                seen[w / 64] |= 1 << (w % 64);
                if found.len() >= MAX_LISTED {
                    more += 1;
                    continue;
                }
                found.push(OrderDependence {
                    set: *set,
                    binding: *binding,
                    element: *element,
                    word: w,
                    schedules: [*ref_name, schedule],
                    values: [*x, *y],
                });
            }
        }
    }
    found.sort_by_key(|d| (d.set, d.binding, d.element, d.word));
    Exploration {
        runs,
        order_dependence: found,
        more,
    }
}
