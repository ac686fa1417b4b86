//! Mutation testing of the bug detectors on any shader (see `tests/mutation/mod.rs`):
//!
//! ```sh
//! cargo run --release -p lanescope_core --example mutate -- CASE.json...
//! ```
//!
//! A case file names a `.spv` (relative to the case file) and how to run it:
//! `{"spv": "x.spv", "workgroups": [2,1,1], "subgroup_size": 32,
//!   "buffers": [{"set": 0, "binding": 0, "words": 1024, "random": 100}, {"binding": 1, "words": 64}],
//!   "push": [64, 1], "spec": {"0": 128}}`: buffers are zeros, or small random words below
//! `random`, or `"float": true` with `random` for random floats below it. Prints one line per
//! mutant and totals: observable bugs found under every schedule, harmless edits reported.

#[path = "../tests/mutation/mod.rs"]
mod mutation;

use mutation::{mutate, pseudo_random, Case, Truth};
use serde_json::Value;
use std::path::Path;

fn case(path: &Path) -> Result<Case, String> {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?,
    )
    .map_err(|e| format!("{}: {e}", path.display()))?;
    let spv_path = path
        .parent()
        .unwrap_or(Path::new("."))
        .join(doc["spv"].as_str().ok_or("no \"spv\"")?);
    let bytes = std::fs::read(&spv_path).map_err(|e| format!("{}: {e}", spv_path.display()))?;
    let spv = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let u = |v: &Value| v.as_u64().map(|x| x as u32);
    let wg: Vec<u32> = doc["workgroups"]
        .as_array()
        .map(|a| a.iter().filter_map(u).collect())
        .unwrap_or_else(|| vec![1, 1, 1]);
    let mut buffers = Vec::new();
    for (k, b) in doc["buffers"].as_array().into_iter().flatten().enumerate() {
        let n = b["words"].as_u64().ok_or("a buffer without \"words\"")? as usize;
        let mut words = match u(&b["random"]) {
            Some(below) if b["float"].as_bool() == Some(true) => {
                pseudo_random(n, 11 + k as u32, below.max(1) * 16)
                    .into_iter()
                    .map(|x| (x as f32 / 16.0).to_bits())
                    .collect()
            }
            Some(below) => pseudo_random(n, 11 + k as u32, below.max(1)),
            None => vec![u(&b["fill"]).unwrap_or(0); n],
        };
        words.truncate(n);
        buffers.push((
            u(&b["set"]).unwrap_or(0),
            u(&b["binding"]).unwrap_or(k as u32),
            words,
        ));
    }
    Ok(Case {
        name: path.display().to_string(),
        spv,
        workgroups: [wg[0], wg[1], wg[2]],
        subgroup_size: u(&doc["subgroup_size"]).unwrap_or(32),
        buffers,
        push_constants: doc["push"]
            .as_array()
            .map(|a| a.iter().filter_map(u).collect())
            .unwrap_or_default(),
        spec: doc["spec"]
            .as_object()
            .map(|o| {
                o.iter()
                    .filter_map(|(k, v)| Some((k.parse().ok()?, v.as_u64()?)))
                    .collect()
            })
            .unwrap_or_default(),
    })
}

fn main() {
    let (mut observable, mut caught, mut harmless, mut alarms, mut latent) = (0, 0, 0, 0, 0);
    for arg in std::env::args().skip(1) {
        let c = match case(Path::new(&arg)) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{arg}: {e}");
                continue;
            }
        };
        // What the unmutated shader itself reports (a harmless edit that reports only that is
        // not a false alarm).
        let baseline: Vec<std::collections::BTreeSet<String>> = mutation::schedules()
            .into_iter()
            .map(|s| {
                mutation::run_words(&c, &c.spv, s, true)
                    .map(|r| r.findings)
                    .unwrap_or_default()
            })
            .collect();
        let base_codes: std::collections::BTreeSet<String> =
            baseline.iter().flatten().cloned().collect();
        if !base_codes.is_empty() {
            println!("{arg} unmutated: {base_codes:?}");
        }
        let (outcomes, skipped) = match mutate(&c) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("{arg}: the shader itself: {e}");
                continue;
            }
        };
        for o in &outcomes {
            let codes: Vec<String> = o.codes().into_iter().collect();
            let verdict = match o.truth {
                Truth::Observable => {
                    observable += 1;
                    if o.found_under_all() {
                        caught += 1;
                        "caught"
                    } else if o.found_under_any() {
                        "caught under some schedules only"
                    } else {
                        "MISSED"
                    }
                }
                Truth::Harmless => {
                    harmless += 1;
                    let new_findings = o.found.iter().zip(&baseline).any(|(f, b)| !f.is_subset(b));
                    if new_findings {
                        alarms += 1;
                        "FALSE ALARM"
                    } else {
                        "silent"
                    }
                }
                Truth::Latent => {
                    latent += 1;
                    "latent"
                }
            };
            println!("{arg} {}: {:?} {verdict} {codes:?}", o.op, o.truth);
        }
        for (op, why) in skipped {
            println!("{arg} {op}: skipped ({why})");
        }
    }
    println!(
        "observable: {caught} of {observable} caught under every schedule; harmless: {alarms} of {harmless} reported; latent: {latent}"
    );
}
