//! Source-level debugging: the debug information of modules compiled with glslang `-g`
//! (OpLine) and `-gVS` (NonSemantic.Shader.DebugInfo.100), inlined (DebugInlinedAt) and with
//! locals promoted to SSA values (DebugValue), and hand-written line information: the line of
//! each step, variables by source name, breakpoints by line, diagnostics by line.

mod common;

use lanescope_core::program::Program;
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/debug")
            .join(name),
    )
    .unwrap()
}

const VARIANTS: [&str; 4] = [
    "loop_switch_g.spv",
    "loop_switch_gvs.spv",
    "loop_switch_inlined.spv",
    "loop_switch_ssa.spv",
];

fn start(name: &str) -> Simulator {
    let prog = Arc::new(load(&data(name), &LoadOptions::default()).unwrap());
    traced(&prog, 64)
}

/// (file name, line) of every step the run took.
fn lines_run(sim: &mut Simulator) -> Vec<(String, u32)> {
    sim.run(1_000_000).unwrap();
    let p = Arc::clone(sim.program());
    let d = p.debug().expect("debug information");
    sim.trace()
        .iter()
        .filter_map(|e| {
            let pos = d.pos(p.step_index(e.block, e.pos))?;
            Some((d.file_name(pos.file)?.to_owned(), pos.line))
        })
        .collect()
}

/// A simulator over `prog` with a zeroed buffer of `bytes` at binding 0, recording its trace.
fn traced(prog: &Arc<Program>, bytes: usize) -> Simulator {
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; bytes])],
        ..Bindings::default()
    };
    let cfg = Config {
        record_trace: true,
        ..Config::default()
    };
    Simulator::new(Arc::clone(prog), cfg, &b).unwrap()
}

/// A simulator over the example `assets/NAME` with the buffers the app gives it (the
/// detectors on, as by default).
fn example(name: &str) -> Simulator {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../assets")
            .join(name),
    )
    .unwrap();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let b = Bindings::for_example(&prog, u64::MAX).unwrap();
    Simulator::new(prog, Config::default(), &b).unwrap()
}

fn file_index(p: &Program, name: &str) -> u32 {
    p.debug().unwrap().file_index(name).unwrap()
}

/// What `acc` holds at line 19 for invocation `l`: the loop adds scale(i) = 3i + 1 for
/// i < l % 3, the switch 10, 20 or 30.
fn acc_model(l: u32) -> u32 {
    let looped: u32 = (0..l % 3).map(|i| 3 * i + 1).sum();
    looped + [10, 20, 30, 30][(l % 4) as usize]
}

#[test]
fn every_variant_carries_its_sources_and_steps_through_their_lines() {
    for v in VARIANTS {
        let mut sim = start(v);
        let p = Arc::clone(sim.program());
        let d = p.debug().unwrap_or_else(|| panic!("{v}: no debug info"));
        let main = &d.files[file_index(&p, "loop_switch.comp") as usize];
        assert!(
            main.text
                .as_deref()
                .unwrap_or("")
                .contains("switch (L % 4u)"),
            "{v}: main source text"
        );
        let inc = &d.files[file_index(&p, "common.glsl") as usize];
        assert!(
            inc.text.as_deref().unwrap_or("").contains("uint scale"),
            "{v}: included source text"
        );
        let lines: BTreeSet<(String, u32)> = lines_run(&mut sim).into_iter().collect();
        let main_lines: BTreeSet<u32> = lines
            .iter()
            .filter(|(f, _)| f.ends_with("loop_switch.comp"))
            .map(|(_, l)| *l)
            .collect();
        for want in [9, 10, 11, 12, 14, 15, 16, 17, 19, 20] {
            assert!(
                main_lines.contains(&want),
                "{v}: line {want} never ran: {main_lines:?}"
            );
        }
        // Nothing runs on lines without code.
        for none in [1, 3, 5, 7, 13, 18] {
            assert!(!main_lines.contains(&none), "{v}: line {none} ran");
        }
        let inc_lines: BTreeSet<u32> = lines
            .iter()
            .filter(|(f, _)| f.ends_with("common.glsl"))
            .map(|(_, l)| *l)
            .collect();
        assert!(
            inc_lines.contains(&2) && inc_lines.contains(&3),
            "{v}: the included function's lines: {inc_lines:?}"
        );
    }
}

#[test]
fn inlined_code_names_its_call_sites() {
    let mut sim = start("loop_switch_inlined.spv");
    sim.run(1_000_000).unwrap();
    let p = Arc::clone(sim.program());
    let d = p.debug().unwrap();
    let mut sites = BTreeSet::new();
    for e in sim.trace() {
        let k = p.step_index(e.block, e.pos);
        let frames = d.frames(k);
        // The body of scale (lines 2 and 3; the compiler attributes the callee's variable to
        // its signature on line 1, in the caller).
        let in_body = frames.first().is_some_and(|f| {
            f.file
                .as_deref()
                .is_some_and(|f| f.ends_with("common.glsl"))
                && f.line >= 2
        });
        if in_body {
            assert_eq!(frames[0].function.as_deref(), Some("scale"), "{frames:?}");
            assert_eq!(frames.len(), 2, "{frames:?}");
            assert_eq!(frames[1].function.as_deref(), Some("main"));
            sites.insert(frames[1].line);
        }
    }
    // Called in the loop (line 12) and after it (line 20).
    assert_eq!(sites, BTreeSet::from([12, 20]));
    // A breakpoint on scale's first line stops in both inlined copies (and in the original
    // definition, which the inliner left in the module uncalled).
    let inc = file_index(&p, "common.glsl");
    assert_eq!(p.line_breakpoints(inc, 2).len(), 3);
    // Not inlined, it is one place.
    let sim = start("loop_switch_gvs.spv");
    let p = Arc::clone(sim.program());
    assert_eq!(
        p.line_breakpoints(file_index(&p, "common.glsl"), 2).len(),
        1
    );
}

#[test]
fn variables_by_source_name_hold_the_values_of_the_source() {
    for v in VARIANTS {
        let mut sim = start(v);
        let p = Arc::clone(sim.program());
        let d = p.debug().unwrap();
        let file = file_index(&p, "loop_switch.comp");
        // Run until every lane waits at line 19 (`outp[L] = acc;`).
        let at_19 = |sim: &Simulator| {
            sim.tangles().iter().all(|t| {
                sim.tangle_instruction(t.subgroup as usize, t.id)
                    .and_then(|k| d.pos(k))
                    .is_some_and(|pos| pos.file == file && pos.line == 19)
            })
        };
        let mut guard = 0;
        while !at_19(&sim) {
            assert!(sim.step().unwrap(), "{v}: finished before line 19");
            guard += 1;
            assert!(guard < 100_000);
        }
        let t = &sim.tangles()[0];
        let k = sim.tangle_instruction(0, t.id).unwrap();
        let names: Vec<String> = sim
            .variables_at(k)
            .iter()
            .map(|(_, v)| v.name.clone())
            .collect();
        for want in ["L", "acc"] {
            assert!(
                names.iter().any(|n| n == want),
                "{v}: {want} not in scope: {names:?}"
            );
        }
        let acc = sim.variable_named(k, "acc").unwrap();
        let val = sim.source_value(0, acc, k).unwrap();
        let l_var = sim.variable_named(k, "L").unwrap();
        let lv = sim.source_value(0, l_var, k).unwrap();
        for lane in 0..8u32 {
            let got = val.lanes[lane as usize].as_ref().unwrap()[0] as u32;
            assert_eq!(got, acc_model(lane), "{v}: acc in lane {lane}");
            let got = lv.lanes[lane as usize].as_ref().unwrap()[0] as u32;
            assert_eq!(got, lane, "{v}: L in lane {lane}");
        }
        // Lanes the partial subgroup does not have hold nothing.
        assert!(val.lanes[8].is_none());
        if v == "loop_switch_gvs.spv" {
            let acc = &d.variables[acc as usize];
            assert_eq!(acc.type_name.as_deref(), Some("uint"));
            assert_eq!(acc.pos.map(|p| p.line), Some(10));
        }
    }
}

#[test]
fn diagnostics_name_the_source_line() {
    for v in VARIANTS {
        let mut sim = start(v);
        sim.run(1_000_000).unwrap();
        let d = sim
            .diagnostics()
            .iter()
            .find(|d| d.code == "out-of-bounds")
            .unwrap_or_else(|| panic!("{v}: no out-of-bounds"));
        assert!(
            d.source
                .file
                .as_deref()
                .unwrap()
                .ends_with("loop_switch.comp"),
            "{v}"
        );
        assert_eq!(d.source.line, Some(20), "{v}");
        let json = serde_json::to_value(d).unwrap();
        assert_eq!(json["line"], 20, "{v}: {json}");
    }
}

/// OpLine before OpLabel (between blocks), after a terminator, and OpNoLine: indices,
/// lines and the disassembly's numbering stay consistent.
#[test]
fn hand_written_lines_between_blocks() {
    let prog = Arc::new(load(&data("lines_between_blocks.spv"), &LoadOptions::default()).unwrap());
    let mut sim = traced(&prog, 16);
    sim.run(10_000).unwrap();
    let d = prog.debug().unwrap();
    assert_eq!(d.files[0].name, "between.txt");
    assert!(d.files[0].text.as_deref().unwrap().contains("line seven"));
    // (opcode, line) of every step of the first subgroup's first lanes, in order.
    let steps: Vec<(u32, Option<u32>)> = sim
        .trace()
        .iter()
        .map(|e| {
            let k = prog.step_index(e.block, e.pos);
            (prog.module().opcode(k as usize), d.pos(k).map(|p| p.line))
        })
        .collect();
    const LOAD: u32 = 61;
    const STORE: u32 = 62;
    const BRANCH: u32 = 249;
    assert_eq!(steps[0], (LOAD, Some(2)), "{steps:?}");
    assert!(steps.contains(&(STORE, Some(5))), "{steps:?}");
    assert!(steps.contains(&(BRANCH, None)), "{steps:?}");
    assert!(steps.contains(&(LOAD, Some(7))), "{steps:?}");
    assert!(steps.contains(&(STORE, Some(8))), "{steps:?}");
    let oob = sim
        .diagnostics()
        .iter()
        .find(|x| x.code == "out-of-bounds")
        .unwrap();
    assert_eq!((oob.source.line, oob.source.column), (Some(7), Some(9)));
    // Module instruction indices name the instruction in the file.
    assert_eq!(
        prog.module().opcode(oob.instruction as usize),
        65 /* OpAccessChain */
    );
    // Line 6 has no code; line 7 is one place.
    assert!(prog.line_breakpoints(0, 6).is_empty());
    assert_eq!(prog.line_breakpoints(0, 7).len(), 1);
}

/// A module without debug information has none, and loads as before.
#[test]
fn no_debug_information() {
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/host_alias.spv"))
            .unwrap();
    let prog = load(&bytes, &LoadOptions::default()).unwrap();
    assert!(prog.debug().is_none());
    assert_eq!(prog.source_ref(10), Default::default());
}

/// Calls nest: inside scale, a tangle is one call deep; back in main, none.
#[test]
fn call_depth_of_a_tangle() {
    let mut sim = start("loop_switch_gvs.spv");
    let p = Arc::clone(sim.program());
    let d = p.debug().unwrap();
    let inc = file_index(&p, "common.glsl");
    let mut max = 0;
    for _ in 0..100_000 {
        if !sim.step().unwrap() {
            break;
        }
        for t in sim.tangles() {
            let depth = sim.tangle_call_depth(t.subgroup as usize, t.id).unwrap();
            let k = sim.tangle_instruction(t.subgroup as usize, t.id).unwrap();
            let in_scale = d.pos(k).is_some_and(|pos| pos.file == inc && pos.line >= 2);
            if in_scale {
                assert_eq!(depth, 1);
            }
            max = max.max(depth);
            let lane = t.lanes.lowest().unwrap();
            assert_eq!(sim.tangle_of_lane(t.subgroup as usize, lane), Some(t.id));
        }
    }
    assert_eq!(max, 1);
}

/// Assembly text made the module's source: every step is on the line its instruction is
/// written on (a merge and its branch on the branch's line), the text's ids keep their
/// numbers, and a text with its own line information is left alone.
#[test]
fn assembly_as_its_own_source() {
    use lanescope_core::spvtext::{assemble, AsmOptions};
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/asm/loop_phi.spvasm"),
    )
    .unwrap();
    let plain = assemble(&text, &AsmOptions::default()).unwrap();
    let opts = AsmOptions {
        source_file: Some("loop_phi.spvasm".into()),
        ..AsmOptions::default()
    };
    let words = assemble(&text, &opts).unwrap();
    assert_eq!(words[3], plain[3] + 1, "one new id, after the text's");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let d = prog.debug().expect("debug information");
    let f = d.file_index("loop_phi.spvasm").unwrap();
    assert_eq!(d.files[f as usize].text.as_deref(), Some(text.as_str()));
    let mut sim = traced(&prog, 16);
    let lines: Vec<u32> = lines_run(&mut sim).into_iter().map(|(_, l)| l).collect();
    let line_of = |needle: &str| {
        text.lines()
            .position(|l| l.contains(needle))
            .map(|i| i as u32 + 1)
            .unwrap()
    };
    let entry = [
        "%acc = OpVariable",
        "%L = OpLoad",
        "OpStore %acc",
        "OpBranch %head",
    ]
    .map(line_of);
    assert_eq!(&lines[..4], &entry);
    // The loop header: the comparison, then the merge + branch pair on the branch's line.
    assert_eq!(
        &lines[4..6],
        &[
            line_of("%more = OpULessThan"),
            line_of("OpBranchConditional")
        ]
    );
    assert_eq!(*lines.last().unwrap(), line_of("OpReturn"));
    // Text that already has line information keeps exactly its own.
    let dis = lanescope_core::spvtext::disassemble(&words, &Default::default()).unwrap();
    let again = assemble(&dis, &opts).unwrap();
    let count = |w: &[u32], op: u32| {
        let mut i = 5;
        let mut n = 0;
        while i < w.len() {
            n += usize::from(w[i] & 0xffff == op);
            i += (w[i] >> 16).max(1) as usize;
        }
        n
    };
    assert_eq!(count(&again, 8), count(&words, 8), "OpLine count");
    assert_eq!(count(&again, 3), 1, "one OpSource");
    // A text longer than one instruction holds continues in OpSourceContinued.
    let long = format!("; {}\n{text}", "é".repeat(200_000));
    let words = assemble(&long, &opts).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = load(&bytes, &LoadOptions::default()).unwrap();
    let d = prog.debug().unwrap();
    assert_eq!(d.files[0].text.as_deref(), Some(long.as_str()));
    assert_eq!(count(&words, 2), 1, "one OpSourceContinued");
}

/// A module compiled from HLSL with NonSemantic.Shader.DebugInfo.100 (as DXC and Slang emit
/// it; built here by glslang's HLSL front end): it opens with its HLSL text, the language
/// named, and its steps on the HLSL lines.
#[test]
fn an_hlsl_module_with_nonsemantic_debug_info_opens_with_its_source() {
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hlsl/wave_sum.spv"))
            .unwrap();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    assert_eq!(prog.entry_name(), "CSMain");
    let d = prog.debug().expect("debug information");
    let f = d
        .files
        .iter()
        .find(|f| f.name.ends_with("wave_sum.hlsl"))
        .expect("the HLSL file");
    assert!(f.text.as_deref().unwrap_or("").contains("WaveActiveSum(v)"));
    assert_eq!(f.language.as_deref(), Some("HLSL"));
    let mut sim = traced(&prog, 128);
    let lines: BTreeSet<u32> = lines_run(&mut sim)
        .into_iter()
        .filter(|(file, _)| file.ends_with("wave_sum.hlsl"))
        .map(|(_, l)| l)
        .collect();
    // `uint v = data[tid.x];`, `WaveActiveSum`, the store.
    assert!([7, 8, 9].iter().all(|l| lines.contains(l)), "{lines:?}");
}

#[test]
fn a_nameless_block_instance_is_no_variable_in_scope() {
    // The example's buffers are GLSL blocks declared without an instance name: the debug
    // information gives each instance the name "", and the source names only their members.
    let mut sim = example("switch_fallthrough.spv");
    let d = sim.program().debug().unwrap();
    assert!(
        d.variables.iter().any(|v| v.name.is_empty()),
        "the module no longer has a nameless variable: the test checks nothing"
    );
    let mut seen = std::collections::BTreeSet::new();
    loop {
        for t in sim.tangles() {
            let k = sim.tangle_instruction(t.subgroup as usize, t.id).unwrap();
            for (_, v) in sim.variables_at(k) {
                assert!(
                    !v.name.is_empty(),
                    "a nameless variable in scope at instruction {k}"
                );
                seen.insert(v.name.clone());
            }
        }
        if !sim.step().unwrap() {
            break;
        }
    }
    for want in ["L", "v", "sel", "b_"] {
        assert!(seen.contains(want), "{want} never in scope: {seen:?}");
    }
}

#[test]
fn a_variable_before_its_first_assignment_is_undefined() {
    let mut sim = example("switch_fallthrough.spv");
    let value_of_l = |sim: &Simulator| {
        let t = sim.tangles()[0];
        let k = sim.tangle_instruction(t.subgroup as usize, t.id).unwrap();
        let var = sim.variable_named(k, "L")?;
        sim.source_value(t.subgroup as usize, var, k)
    };
    let mut guard = 0;
    let mut step = |sim: &mut Simulator| {
        assert!(sim.step().unwrap());
        guard += 1;
        assert!(guard < 100, "L never in scope, or never assigned");
    };
    while value_of_l(&sim).is_none() {
        step(&mut sim);
    }
    // At its line, `uint L = gl_LocalInvocationIndex;` not run yet: L holds whatever its
    // bytes are.
    let before = value_of_l(&sim).unwrap();
    assert!(
        before.undefined.iter().all(|u| u == &[true]),
        "{:?}",
        before.undefined
    );
    while !value_of_l(&sim).unwrap().undefined[0].is_empty() {
        step(&mut sim);
    }
    let after = value_of_l(&sim).unwrap();
    assert!(
        after.undefined.iter().all(Vec::is_empty),
        "{:?}",
        after.undefined
    );
    for (l, v) in after.lanes.iter().enumerate() {
        assert_eq!(v.as_ref().unwrap()[0], l as u64, "L in lane {l}");
    }
}

#[test]
fn an_array_being_filled_is_undefined_only_where_not_yet_written() {
    // `float a[8];` filled by a loop, one element an iteration.
    let mut sim = example("coopmat_tile_f16.spv");
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..2000 {
        let at = sim.tangles().first().map(|t| {
            let k = sim.tangle_instruction(t.subgroup as usize, t.id).unwrap();
            (t.subgroup as usize, k)
        });
        if let Some((g, var, k)) = at.and_then(|(g, k)| Some((g, sim.variable_named(k, "a")?, k))) {
            let v = sim.source_value(g, var, k).unwrap();
            let u = &v.undefined[0];
            // (components written so far are the first ones, in order)
            let written = if u.is_empty() {
                8
            } else {
                u.iter().filter(|&&x| !x).count()
            };
            assert!(
                u.is_empty() || (u.len() == 8 && u.iter().skip(written).all(|&x| x)),
                "{u:?}"
            );
            seen.insert(written);
        }
        if !sim.step().unwrap() {
            break;
        }
    }
    assert_eq!(seen, (0..=8).collect(), "elements written as the loop ran");
}
