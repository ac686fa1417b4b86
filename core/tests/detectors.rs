//! The bug detectors: one small shader per detector that must trigger it and the same shader
//! fixed, which must not; and every run recorded on the GPU (`tests/reference`), whose findings
//! are listed and explained here (each checked by hand).

mod common;

use common::{reference_dir, run_reference};
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Every reference run (all groups): (file, findings as "code" or "code (lockstep)").
fn reference_findings() -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for group in ["reconv", "rotate", "dot", "coopmat", "coopmat_diag"] {
        let dir = reference_dir(group);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for f in files {
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
            let sim = run_reference(&doc, &dir, Config::default());
            let mut found: Vec<String> = sim
                .diagnostics()
                .iter()
                .filter(|d| {
                    matches!(
                        d.code.as_str(),
                        "data-race" | "barrier-divergence" | "uninitialized-read"
                    )
                })
                .map(|d| {
                    if d.lockstep {
                        format!("{} (lockstep)", d.code)
                    } else {
                        d.code.to_string()
                    }
                })
                .collect();
            found.sort();
            found.dedup();
            out.insert(
                format!("{group}/{}", f.file_name().unwrap().to_string_lossy()),
                found,
            );
        }
    }
    out
}

/// Every GPU-recorded run is race-free and initialized but for the cooperative-matrix layout
/// probes, whose every lane stores the matrix length to `outp[0]`: a real race (same value,
/// one instruction) that only the subgroup's lockstep execution orders.
#[test]
fn reference_runs_have_only_their_known_findings() {
    let all = reference_findings();
    assert!(all.len() > 100, "{}", all.len());
    for (f, found) in &all {
        let want: &[&str] = if f.starts_with("coopmat/layout_") {
            &["data-race (lockstep)"]
        } else {
            &[]
        };
        assert_eq!(found, want, "{f}");
    }
}

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// Runs a test shader (one workgroup, binding 0 zeroed) and returns its diagnostics.
fn findings(name: &str, detectors: bool) -> Vec<lanescope_core::trace::Diagnostic> {
    let prog = Arc::new(load(&data(name), &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 256])],
        ..Bindings::default()
    };
    let cfg = Config {
        detectors,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, &b).unwrap();
    sim.run(1_000_000).unwrap();
    sim.diagnostics().to_vec()
}

fn codes(d: &[lanescope_core::trace::Diagnostic]) -> Vec<String> {
    let mut v: Vec<String> = d.iter().map(|x| x.code.to_string()).collect();
    v.sort();
    v.dedup();
    v
}

/// Each detector's shader triggers it; the same shader fixed (the barrier, the atomic, the
/// initializer) does not; with the detectors off, none of them report.
#[test]
fn each_detector_triggers_on_its_bug_and_not_on_the_fix() {
    let cases = [
        ("tile_no_barrier.spv", "tile_barrier.spv", "data-race"),
        ("lockstep_race.spv", "lockstep_race_fixed.spv", "data-race"),
        ("histogram.spv", "histogram_fixed.spv", "data-race"),
        (
            "early_return_barrier.spv",
            "early_return_barrier_fixed.spv",
            "barrier-divergence",
        ),
        (
            "uninit_shared.spv",
            "uninit_shared_fixed.spv",
            "uninitialized-read",
        ),
        (
            "uninit_branch.spv",
            "uninit_branch_fixed.spv",
            "uninitialized-read",
        ),
    ];
    for (bug, fixed, code) in cases {
        assert_eq!(codes(&findings(bug, true)), [code], "{bug}");
        assert!(
            findings(fixed, true).is_empty(),
            "{fixed}: {:?}",
            findings(fixed, true)
        );
        let off = codes(&findings(bug, false));
        assert!(
            !off.iter()
                .any(|c| c == "data-race" || c == "uninitialized-read"),
            "{bug} with detectors off: {off:?}"
        );
    }
}

#[test]
fn a_race_names_both_accesses_the_variable_and_lockstep() {
    let d = findings("tile_no_barrier.spv", true);
    let r = &d[0];
    assert_eq!(r.accesses.len(), 2);
    assert_eq!(r.accesses[0].kind, "write");
    assert_eq!(r.accesses[1].kind, "read");
    assert!(r.accesses[0].invocation < 32 && r.accesses[1].invocation >= 32);
    assert!(r.accesses[0].step < r.accesses[1].step);
    assert_eq!(r.variable.as_deref(), Some("tile[0]"));
    assert!(!r.lockstep, "different subgroups");
    let json = serde_json::to_value(r).unwrap();
    assert_eq!(json["code"], "data-race");
    assert_eq!(json["accesses"][0]["kind"], "write");
    assert!(json["accesses"][0].get("invocation").is_some());
    let d = findings("lockstep_race.spv", true);
    assert!(d[0].lockstep, "{:?}", d[0]);
    assert_eq!(serde_json::to_value(&d[0]).unwrap()["lockstep"], true);
    // Atomics do not race with atomics; plain increments do, across and within subgroups.
    let d = findings("histogram.spv", true);
    assert!(d
        .iter()
        .all(|x| x.variable.as_deref().unwrap_or("").starts_with("bins[")));
}

#[test]
fn barrier_divergence_names_who_did_what() {
    let d = findings("early_return_barrier.spv", true);
    assert_eq!(d.len(), 1);
    assert!(
        d[0].message.contains("invocations 0-39 wait"),
        "{}",
        d[0].message
    );
    assert!(
        d[0].message.contains("invocations 40-63 have exited"),
        "{}",
        d[0].message
    );
}

#[test]
fn uninitialized_reads_name_the_memory() {
    let d = findings("uninit_branch.spv", true);
    assert!(d[0].message.contains("`bound`"), "{}", d[0].message);
    assert!(d[0].message.contains("branched on"), "{}", d[0].message);
    let d = findings("uninit_shared.spv", true);
    assert!(
        d[0].message.contains("stored to a buffer"),
        "{}",
        d[0].message
    );
}

/// Invocations whose Function memory is not a whole number of words (a 16-bit variable last):
/// each invocation's memory still starts on a word of its own, so the next invocation's
/// variables are not taken for uninitialized (they were, in every odd lane).
#[test]
fn a_16_bit_variable_does_not_poison_the_next_invocation() {
    let text = "OpCapability Shader
OpCapability Float16
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %lid
OpExecutionMode %main LocalSize 8 1 1
OpDecorate %lid BuiltIn LocalInvocationIndex
OpDecorate %rt ArrayStride 4
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%half = OpTypeFloat 16
%rt = OpTypeRuntimeArray %u32
%blk = OpTypeStruct %rt
%pblk = OpTypePointer StorageBuffer %blk
%buf = OpVariable %pblk StorageBuffer
%pin = OpTypePointer Input %u32
%lid = OpVariable %pin Input
%pfu = OpTypePointer Function %u32
%pfh = OpTypePointer Function %half
%psu = OpTypePointer StorageBuffer %u32
%c0 = OpConstant %u32 0
%h1 = OpConstant %half 1
%main = OpFunction %void None %fn
%entry = OpLabel
%idx = OpVariable %pfu Function
%h = OpVariable %pfh Function
%l = OpLoad %u32 %lid
OpStore %idx %l
OpStore %h %h1
%i = OpLoad %u32 %idx
%p = OpAccessChain %psu %buf %c0 %i
OpStore %p %i
OpReturn
OpFunctionEnd
";
    let words = lanescope_core::spvtext::assemble(text, &Default::default()).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    assert_eq!(
        prog.invocation_bytes() % 4,
        0,
        "{}",
        prog.invocation_bytes()
    );
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 32])],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    sim.run(10_000).unwrap();
    assert_eq!(codes(sim.diagnostics()), Vec::<String>::new());
    let out: Vec<u8> = (0u32..8).flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(sim.buffer(0, 0).unwrap(), &out[..]);
}

/// A run keeps running a tangle's block without asking the scheduler again, also with the
/// detectors on: the same steps, findings, races and buffers as stepping one at a time.
#[test]
fn a_run_with_the_detectors_takes_the_same_steps_as_stepping() {
    for name in [
        "tile_no_barrier.spv",
        "lockstep_race.spv",
        "histogram.spv",
        "uninit_branch.spv",
        "uninit_shared.spv",
    ] {
        let prog = Arc::new(load(&data(name), &LoadOptions::default()).unwrap());
        let b = Bindings {
            buffers: vec![(0, 0, vec![0; 256])],
            ..Bindings::default()
        };
        let cfg = Config {
            detectors: true,
            record_trace: true,
            ..Config::default()
        };
        let mut run = Simulator::new(Arc::clone(&prog), cfg.clone(), &b).unwrap();
        run.run(1_000_000).unwrap();
        let mut stepped = Simulator::new(prog, cfg, &b).unwrap();
        while stepped.step().unwrap() {}
        assert!(!run.diagnostics().is_empty(), "{name}: the bug is found");
        assert_eq!(run.trace(), stepped.trace(), "{name}");
        assert_eq!(
            serde_json::to_string(run.diagnostics()).unwrap(),
            serde_json::to_string(stepped.diagnostics()).unwrap(),
            "{name}"
        );
        assert_eq!(run.buffer(0, 0), stepped.buffer(0, 0), "{name}");
    }
}

/// A buffer the shader only reads, though not declared read-only, is found never written (its
/// reads are then not logged: they race with nothing); one written through a function's
/// pointer parameter, through either side of a selected pointer, directly or by an atomic is
/// not.
#[test]
fn buffers_never_written_are_told_from_those_written_however_the_pointer_travels() {
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/never_written.spv"))
            .unwrap();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let flags: Vec<(u32, bool, bool)> = prog
        .resources()
        .iter()
        .map(|r| (r.binding, r.read_only, r.never_written))
        .collect();
    assert_eq!(
        flags,
        [
            (0, false, true),  // params: only loaded
            (1, false, false), // out: stored
            (2, false, false), // viacall: stored through a parameter
            (3, false, false), // left: one side of a select
            (4, false, false), // right: the other
            (5, false, false), // counter: an atomic
            (6, true, true),   // declared NonWritable, and never written either
        ]
    );
    // It runs as before, with nothing found.
    let b = Bindings::for_example(&prog, u64::MAX).unwrap();
    let mut sim = Simulator::new(Arc::clone(&prog), Config::default(), &b).unwrap();
    sim.run(1_000_000).unwrap();
    let races: Vec<_> = sim
        .diagnostics()
        .iter()
        .filter(|d| d.code == lanescope_core::trace::DiagCode::DataRace)
        .map(|d| d.message.clone())
        .collect();
    assert!(races.iter().all(|m| !m.contains("binding 0")), "{races:?}");
}

/// On every example and test module that runs with the examples' buffers, a buffer found never
/// written holds after the run exactly what it held before (the analysis is only of use if it
/// is safe), and the analysis finds some (it is not trivially "written").
#[test]
fn a_buffer_found_never_written_is_never_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = [root.join("../assets"), root.join("tests/data")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().filter_map(Result::ok))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "spv"))
        .collect();
    files.sort();
    let (mut checked, mut found) = (0, 0);
    for f in files {
        let Ok(prog) = load(&std::fs::read(&f).unwrap(), &LoadOptions::default()) else {
            continue;
        };
        let prog = Arc::new(prog);
        let Ok(b) = Bindings::for_example(&prog, 1 << 24) else {
            continue;
        };
        let Ok(mut sim) = Simulator::new(Arc::clone(&prog), Config::default(), &b) else {
            continue;
        };
        let before: Vec<Option<Vec<u8>>> = prog
            .resources()
            .iter()
            .map(|r| sim.resource_buffer(r).map(<[u8]>::to_vec))
            .collect();
        if sim.run(200_000).is_err() {
            continue;
        }
        checked += 1;
        for (r, was) in prog.resources().iter().zip(before) {
            if r.never_written && !r.read_only {
                found += 1;
                assert_eq!(
                    sim.resource_buffer(r).map(<[u8]>::to_vec),
                    was,
                    "{}: binding {} `{}` was written",
                    f.display(),
                    r.binding,
                    r.name
                );
            }
        }
    }
    assert!(
        checked > 60 && found > 5,
        "{checked} modules, {found} found"
    );
}
