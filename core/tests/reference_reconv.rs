//! Every run in `tests/reference/reconv` (recorded on an NVIDIA H100) reproduced word for word
//! with per-value switch tangles, with and without the MaximallyReconvergesKHR mode, under every
//! sibling-tangle order (the spec-defined results must not depend on it).

mod common;

use common::{reference_dir, reference_inputs, run, to_words, words};
use lanescope_core::{Config, SiblingOrder, SwitchTangles};
use serde_json::Value;

fn check_all(order: SiblingOrder) -> usize {
    let dir = reference_dir("reconv");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let (wg, buffers) = reference_inputs(&doc);
        let cfg = Config {
            switch_tangles: SwitchTangles::PerValue,
            sibling_order: order,
            ..Config::default()
        };
        let sim = run(&dir.join(doc["shader"].as_str().unwrap()), wg, buffers, cfg);
        for b in doc["buffers"].as_array().unwrap() {
            let expect = words(&b["gpu_final"]);
            let got = to_words(
                sim.buffer(
                    b["set"].as_u64().unwrap() as u32,
                    b["binding"].as_u64().unwrap() as u32,
                )
                .unwrap(),
            );
            if let Some(i) = (0..expect.len()).find(|&i| got[i] != expect[i]) {
                failures.push(format!(
                    "{}: word {i}: got {:#x}, GPU {:#x}",
                    f.display(),
                    got[i],
                    expect[i]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    files.len()
}

#[test]
fn reproduces_every_reference_run() {
    let n = check_all(SiblingOrder::LowestLane);
    assert!(n >= 100, "expected the whole reference set, found {n} runs");
}

#[test]
fn reference_results_do_not_depend_on_sibling_order() {
    for order in [
        SiblingOrder::HighestLane,
        SiblingOrder::Oldest,
        SiblingOrder::Newest,
    ] {
        check_all(order);
    }
}
