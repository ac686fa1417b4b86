//! Golden traces of the examples in `assets/`: the tangle structure (every block entry: step,
//! subgroup, lanes, block) and the final buffers. Regenerate with `UPDATE_GOLDEN=1` after a
//! deliberate change, and review the diff.

mod common;

use common::to_words;
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// The same buffers the app gives an example: 64 words per invocation past each buffer's fixed
/// part, binding 0 holding each word's index.
fn example_bindings(prog: &lanescope_core::program::Program) -> Bindings {
    let [x, y, z] = prog.local_size;
    let mut b = Bindings::default();
    for r in &prog.resources {
        let size =
            (r.min_size + r.runtime_array_stride.unwrap_or(0) * x * y * z * 64).max(16) as usize;
        let mut data = vec![0u8; size];
        if r.binding == 0 {
            for (i, w) in data.chunks_exact_mut(4).enumerate() {
                w.copy_from_slice(&(i as u32).to_le_bytes());
            }
        }
        b.buffers.push((r.set, r.binding, data));
    }
    b
}

fn golden_text(spv: &Path) -> String {
    let prog = Arc::new(
        load(&std::fs::read(spv).unwrap(), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", spv.display())),
    );
    let b = example_bindings(&prog);
    let cfg = Config {
        record_trace: true,
        workgroups: [2, 1, 1],
        ..Config::default()
    };
    let mut sim = Simulator::new(Arc::clone(&prog), cfg, &b).unwrap();
    sim.run(10_000_000).unwrap();
    assert!(sim.is_finished(), "{} did not finish", spv.display());
    let st = sim.stats();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "steps {} lane-instructions {} divergences {} reconvergences {}",
        st.steps, st.lane_instructions, st.divergences, st.reconvergences
    );
    for d in sim.diagnostics() {
        let _ = writeln!(
            s,
            "diagnostic {} {} {} lanes {:?}",
            d.code, d.block, d.instruction, d.lanes
        );
    }
    for r in &prog.resources {
        let words = to_words(sim.buffer(r.set, r.binding).unwrap());
        // FNV-1a over the words: compact, and any change shows.
        let h = words.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, w| {
            (h ^ u64::from(*w)).wrapping_mul(0x100_0000_01b3)
        });
        let _ = writeln!(
            s,
            "buffer {}:{} words {} fnv {h:016x}",
            r.set,
            r.binding,
            words.len()
        );
    }
    for e in sim.trace().iter().filter(|e| e.inst == 0) {
        let _ = writeln!(
            s,
            "{} wg{} sg{} {:#x} {}",
            e.step,
            e.workgroup,
            e.subgroup,
            e.lanes,
            prog.block_name(e.block)
        );
    }
    s
}

#[test]
fn examples_match_their_golden_traces() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let assets = root.join("../assets");
    let golden = root.join("tests/golden");
    let mut spvs: Vec<_> = std::fs::read_dir(&assets)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "spv"))
        .collect();
    spvs.sort();
    assert!(spvs.len() >= 8, "expected the example shaders in assets/");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut diffs = Vec::new();
    for spv in &spvs {
        let name = spv.file_stem().unwrap().to_string_lossy().to_string();
        let text = golden_text(spv);
        let file = golden.join(format!("{name}.trace"));
        if update {
            std::fs::create_dir_all(&golden).unwrap();
            std::fs::write(&file, &text).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&file)
            .unwrap_or_else(|_| panic!("{} missing: run with UPDATE_GOLDEN=1", file.display()));
        if want != text {
            let line = want
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            diffs.push(format!(
                "{name}: first difference at line {}:\n  golden: {}\n  now:    {}",
                line + 1,
                want.lines().nth(line).unwrap_or(""),
                text.lines().nth(line).unwrap_or("")
            ));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
