//! The cooperative-matrix runs in `tests/reference` (recorded on an NVIDIA H100), reproduced
//! word for word with the `nvidia` layout: every buffer, every word. The float MulAdd inputs
//! are exact (small dyadic values: every product and sum is exact), so it is compared exactly
//! too; so is the s8 MulAdd on random inputs (integer arithmetic is exact).

mod common;

use common::{reference_dir, run_reference, to_words, words};
use lanescope_core::Config;
use serde_json::Value;

fn runs(group: &str) -> Vec<(Value, std::path::PathBuf)> {
    let dir = reference_dir(group);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            (
                serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap(),
                f,
            )
        })
        .collect()
}

fn simulate(doc: &Value, group: &str) -> lanescope_core::Simulator {
    let cfg = Config {
        detectors: false,
        ..Config::default()
    };
    run_reference(doc, &reference_dir(group), cfg)
}

/// Compare every word of every buffer; returns the number of words compared.
fn compare(group: &str, expected_runs: usize) -> (usize, Vec<(String, Vec<String>)>) {
    let all = runs(group);
    assert_eq!(all.len(), expected_runs, "{group}");
    let mut words_checked = 0;
    let mut diags = Vec::new();
    for (doc, f) in all {
        let sim = simulate(&doc, group);
        for b in doc["buffers"].as_array().unwrap() {
            let want = words(&b["gpu_final"]);
            let binding = b["binding"].as_u64().unwrap() as u32;
            let got = to_words(sim.buffer(0, binding).unwrap());
            assert_eq!(got.len(), want.len());
            let bad: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
            assert!(
                bad.is_empty(),
                "{} binding {binding}: {} words differ, first at {}: got {:#x}, GPU {:#x}",
                f.display(),
                bad.len(),
                bad[0],
                got[bad[0]],
                want[bad[0]]
            );
            words_checked += want.len();
        }
        diags.push((
            f.file_name().unwrap().to_string_lossy().into_owned(),
            sim.diagnostics()
                .iter()
                .map(|d| d.code.to_string())
                .collect(),
        ));
    }
    (words_checked, diags)
}

#[test]
fn coopmat_runs_match_the_gpu_word_for_word() {
    let (n, diags) = compare("coopmat", 14);
    assert!(n > 10_000, "{n}");
    for (f, d) in diags {
        assert!(d.is_empty(), "{f}: {d:?}");
    }
}

#[test]
fn coopmat_diag_runs_match_the_gpu_word_for_word() {
    let (n, diags) = compare("coopmat_diag", 8);
    assert!(n > 10_000, "{n}");
    for (f, d) in diags {
        // d3 and d5 build the matrix from a per-lane value: not uniform, flagged.
        let want: &[&str] = if f.starts_with("d3_") || f.starts_with("d5_") {
            &["coopmat-nonuniform-operand"]
        } else {
            &[]
        };
        assert_eq!(d, want, "{f}");
    }
}
