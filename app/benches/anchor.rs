//! The figure users time (`cargo bench -p lanescope --bench anchor`): `lanescope run` on an
//! ALU-bound anchor, through the command line's own path (arguments parsed, buffers read from
//! files, the detectors on as by default, the summary printed), measured by criterion as
//! lane-instructions per second (its "elements/s").
//!
//! The anchor (`anchor/alu.comp`): 16 workgroups of 64 invocations, each running the same
//! integer/float loop `iters` times (binding 0) with no divergence and writing its own word.
//! The GLSL is compiled once, in-process, by the front end the app uses; `ITERS` below keeps an
//! iteration near a second on a small machine (issue figures use 20,000).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lanescope::cli::{parse_run, run};
use lanescope_front::{compile, CompileOptions, Language};
use std::path::PathBuf;

const ITERS: u32 = 2_000;
const WORKGROUPS: u32 = 16;

/// The module and its two buffers, written once to a folder of their own.
fn files() -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("lanescope-anchor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let source = include_str!("anchor/alu.comp");
    let opts = CompileOptions {
        file_name: "alu.comp".into(),
        ..CompileOptions::default()
    };
    let module = compile(Language::Glsl, source, &opts).expect("the anchor compiles");
    let spv = dir.join("alu.spv");
    std::fs::write(&spv, module.bytes()).expect("written");
    let params = dir.join("params.bin");
    std::fs::write(&params, ITERS.to_le_bytes()).expect("written");
    let out = dir.join("out.bin");
    std::fs::write(&out, vec![0u8; (WORKGROUPS * 64 * 4) as usize]).expect("written");
    (spv, params, out)
}

fn anchor(c: &mut Criterion) {
    let (spv, params, out) = files();
    let args = |extra: &[&str]| {
        let mut a: Vec<String> = vec![
            spv.display().to_string(),
            "--workgroups".into(),
            WORKGROUPS.to_string(),
            "--buffer".into(),
            format!("0:0={}", params.display()),
            "--buffer".into(),
            format!("0:1={}", out.display()),
            "--max-steps".into(),
            "1000000000".into(),
        ];
        a.extend(extra.iter().map(|s| (*s).to_owned()));
        parse_run(&a).expect("the arguments parse")
    };
    // The lane-instructions one run executes, from the summary `run` prints.
    let summary = run(&args(&["--threads", "1"])).expect("the anchor runs");
    let lane_instructions: u64 = summary
        .lines()
        .find_map(|l| {
            let l = l.strip_prefix("executed")?;
            let (_, rest) = l.split_once(" steps, ")?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .expect("the summary counts lane-instructions");
    assert!(
        !summary.contains("[data-race]"),
        "the anchor has no race: {summary}"
    );
    let mut g = c.benchmark_group("lanescope run, ALU anchor");
    g.throughput(Throughput::Elements(lane_instructions));
    g.sample_size(10);
    for (name, extra) in [
        ("detectors on, 1 thread", &["--threads", "1"][..]),
        (
            "detectors off, 1 thread",
            &["--threads", "1", "--no-detectors"][..],
        ),
        ("detectors on, every core", &["--threads", "0"][..]),
    ] {
        let a = args(extra);
        g.bench_function(name, |b| b.iter(|| run(&a).expect("runs")));
    }
    g.finish();
    let _ = std::fs::remove_dir_all(spv.parent().expect("a folder"));
}

criterion_group!(benches, anchor);
criterion_main!(benches);
