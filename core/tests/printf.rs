//! debugPrintfEXT / NonSemantic.DebugPrintf: lines per invocation in execution order, formats
//! refused at load, and printing that changes neither results nor steps.

mod common;

use common::{to_bytes, to_words};
use lanescope_core::{load, Bindings, Config, LoadError, LoadOptions, SiblingOrder, Simulator};
use std::sync::Arc;

const DIVERGENT: &[u8] = include_bytes!("data/printf/printf_divergent.spv");
const PLAIN: &[u8] = include_bytes!("data/printf/printf_divergent_plain.spv");

fn sim(bytes: &[u8], cfg: Config) -> Simulator {
    let prog = Arc::new(load(bytes, &LoadOptions::default()).unwrap());
    let n = cfg.workgroups[0] as usize * 8;
    let b = Bindings {
        buffers: vec![(0, 0, to_bytes(&vec![0; n]))],
        ..Bindings::default()
    };
    Simulator::new(prog, cfg, &b).unwrap()
}

fn finish(mut s: Simulator) -> Simulator {
    assert_eq!(s.run(1_000_000).unwrap(), lanescope_core::Outcome::Finished);
    s
}

fn texts(s: &Simulator) -> Vec<String> {
    s.printf_lines().iter().map(|l| l.text.clone()).collect()
}

fn after_lines() -> Vec<String> {
    // v is 3i + 100 for even i, 6i for odd i; the last value is v / 4 in %5.2f.
    [
        "after 0: 0.000000, 0.500000 0 25.00%",
        "after 1: 1.000000, 0.500000 1099511627776  1.50%",
        "after 2: 2.000000, 0.500000 2199023255552 26.50%",
        "after 3: 3.000000, 0.500000 3298534883328  4.50%",
        "after 4: 4.000000, 0.500000 4398046511104 28.00%",
        "after 5: 5.000000, 0.500000 5497558138880  7.50%",
        "after 6: 6.000000, 0.500000 6597069766656 29.50%",
        "after 7: 7.000000, 0.500000 7696581394432 10.50%",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn divergent_branches_print_in_execution_order() {
    let s = finish(sim(DIVERGENT, Config::default()));
    let mut want: Vec<String> = [
        "even 0 v=100",
        "even 2 v=106",
        "even 4 v=112",
        "even 6 v=118",
    ]
    .map(String::from)
    .to_vec();
    want.extend(["odd 1 v=6", "odd 3 v=12", "odd 5 v=1e", "odd 7 v=2a"].map(String::from));
    want.extend(after_lines());
    assert_eq!(texts(&s), want);
    let lines: Vec<_> = s.printf_lines().iter().cloned().collect();
    // Who printed: lane = invocation in one subgroup; one step per tangle and call.
    for l in &lines {
        assert_eq!((l.workgroup, l.subgroup), ([0, 0, 0], 0));
        assert_eq!(l.lane, l.invocation);
        assert!(l.text.contains(&format!(" {}", l.invocation)), "{l:?}");
    }
    let steps: Vec<u64> = lines.iter().map(|l| l.step).collect();
    assert!(steps[..4].iter().all(|x| *x == steps[0]));
    assert!(steps[4..8].iter().all(|x| *x == steps[4]));
    assert!(steps[8..].iter().all(|x| *x == steps[8]));
    assert!(steps[0] < steps[4] && steps[4] < steps[8]);
    // Each line names its OpExtInst, three different ones.
    let prog = s.program();
    for k in [0, 4, 8] {
        let i = lines[k].instruction as usize;
        assert_eq!(prog.module().opcode(i), 12, "{:?}", lines[k]);
    }
    assert_eq!(s.printf_lines().dropped(), 0);
}

#[test]
fn the_schedule_decides_the_order() {
    let cfg = Config {
        sibling_order: SiblingOrder::HighestLane,
        ..Config::default()
    };
    let s = finish(sim(DIVERGENT, cfg));
    let t = texts(&s);
    // The odd side's tangle holds lane 7: it runs first; lanes print in increasing order.
    assert_eq!(&t[..2], ["odd 1 v=6", "odd 3 v=12"]);
    assert_eq!(&t[4..6], ["even 0 v=100", "even 2 v=106"]);
    assert_eq!(t[8..], after_lines());
}

/// The module without its DebugPrintf instructions (what Lanescope ran before it printed).
fn without_printf(bytes: &[u8]) -> Vec<u8> {
    let words = to_words(bytes);
    let mut out = words[..5].to_vec();
    let mut set = None;
    let mut k = 5;
    while k < words.len() {
        let n = (words[k] >> 16) as usize;
        let inst = &words[k..k + n];
        if inst[0] & 0xffff == 11 && inst[2..].iter().any(|w| *w == u32::from_le_bytes(*b"NonS")) {
            set = Some(inst[1]);
        }
        if !(inst[0] & 0xffff == 12 && Some(inst[3]) == set) {
            out.extend_from_slice(inst);
        }
        k += n;
    }
    to_bytes(&out)
}

#[test]
fn printing_changes_no_result_and_no_step() {
    let cfg = Config {
        record_trace: true,
        workgroups: [2, 1, 1],
        ..Config::default()
    };
    let stripped = without_printf(DIVERGENT);
    assert_ne!(stripped.len(), DIVERGENT.len());
    let a = finish(sim(DIVERGENT, cfg.clone()));
    let b = finish(sim(&stripped, cfg.clone()));
    assert_eq!(a.printf_lines().len(), 32);
    assert!(b.printf_lines().is_empty());
    assert_eq!(a.stats().steps, b.stats().steps);
    assert_eq!(a.stats().lane_instructions, b.stats().lane_instructions);
    let key = |s: &Simulator| -> Vec<(u64, u32, u32, u128)> {
        s.trace()
            .iter()
            .map(|e| (e.step, e.block, e.pos, e.lanes))
            .collect()
    };
    assert_eq!(key(&a), key(&b));
    assert_eq!(a.buffer(0, 0), b.buffer(0, 0));
    // The same shader compiled without the calls computes the same.
    let c = finish(sim(PLAIN, cfg));
    assert_eq!(a.buffer(0, 0), c.buffer(0, 0));
    assert!(c.printf_lines().is_empty());
}

#[test]
fn workgroups_in_parallel_print_what_the_serial_run_prints() {
    let cfg = Config {
        workgroups: [4, 1, 1],
        ..Config::default()
    };
    let serial = finish(sim(DIVERGENT, cfg.clone()));
    let mut par = sim(DIVERGENT, cfg);
    par.run_threads(1_000_000, 2).unwrap();
    assert_eq!(par.threads_used(), 2);
    let a: Vec<_> = serial.printf_lines().iter().cloned().collect();
    let b: Vec<_> = par.printf_lines().iter().cloned().collect();
    assert_eq!(a.len(), 64);
    assert_eq!(a, b);
    assert_eq!(a[63].workgroup, [3, 0, 0]);
}

#[test]
fn the_line_limit_counts_what_it_drops() {
    let cfg = Config {
        max_printf_lines: 10,
        ..Config::default()
    };
    let s = finish(sim(DIVERGENT, cfg));
    assert_eq!(s.printf_lines().len(), 10);
    assert_eq!(s.printf_lines().dropped(), 6);
}

/// A compute shader printing `fmt` with the constant 7 (a uint) as its argument(s).
fn asm(fmt: &str, args: &str) -> Result<lanescope_core::program::Program, Box<LoadError>> {
    let text = format!(
        r#"OpCapability Shader
OpCapability Int64
OpExtension "SPV_KHR_non_semantic_info"
%pf = OpExtInstImport "NonSemantic.DebugPrintf"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 4 1 1
%fmt = OpString "{fmt}"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%u7 = OpConstant %uint 7
%l7 = OpConstant %ulong 7
%main = OpFunction %void None %fn
%l = OpLabel
%p = OpExtInst %void %pf 1 %fmt {args}
OpReturn
OpFunctionEnd
"#
    );
    let words = lanescope_core::spvtext::assemble(&text, &Default::default()).unwrap();
    load(&to_bytes(&words), &LoadOptions::default()).map_err(Box::new)
}

#[test]
fn constants_print_and_the_return_step_carries_them() {
    let prog = Arc::new(asm("seven %u, long %lu", "%u7 %l7").unwrap());
    let mut s = Simulator::new(prog, Config::default(), &Bindings::default()).unwrap();
    s.run(100).unwrap();
    let t = texts(&s);
    assert_eq!(t, vec!["seven 7, long 7"; 4]);
    // The call precedes OpReturn: it prints in the step that returns, the first step.
    assert!(s.printf_lines().iter().all(|l| l.step == 1));
    assert_eq!(s.stats().steps, 1);
}

#[test]
fn formats_the_layers_refuse_are_load_errors() {
    for (fmt, args, says) in [
        ("value %s", "%u7", "`%s`"),
        ("%d and %d", "%u7", "2 specifiers but 1 arguments"),
        ("%-4d", "%u7", "only flag"),
        ("%v2u", "%u7", "vector specifier"),
        ("%lld", "%l7", "length modifier"),
    ] {
        match asm(fmt, args).map_err(|e| *e) {
            Err(LoadError::Invalid { what, at }) => {
                assert!(what.contains(says) && what.contains(fmt), "{fmt}: {what}");
                assert_eq!(at.opcode.as_deref(), Some("OpExtInst"));
                // The instruction's own index: the 17th of the module.
                assert_eq!(at.instruction, Some(16), "{fmt}");
            }
            other => panic!("{fmt}: {other:?}"),
        }
    }
    // What the layers print only with a warning is refused as unsupported.
    match asm("%lu", "%u7").map_err(|e| *e) {
        Err(LoadError::Unsupported { what, .. }) => assert!(what.contains("64-bit"), "{what}"),
        other => panic!("{other:?}"),
    }
}
