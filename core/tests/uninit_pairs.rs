//! The uninitialized-read detector, in bug/fix pairs: each shader reads memory nobody wrote (or
//! an OpUndef) and uses the value where it shows, and must be reported; its fixed variant must
//! not be. Also: poison by byte, and data races whose read value is dead (unobserved).
//!
//! Buffers are bound by the host with their contents, so they are never uninitialized here:
//! only Workgroup, Private and Function memory and OpUndef are.

use lanescope_core::trace::Diagnostic;
use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::sync::Arc;

/// A module around `body`: `extra_caps` capabilities, `names` (OpName, OpMemberName), `globals` (types,
/// constants, variables after the common ones), a workgroup of `size` invocations, binding 0
/// an array of u32 (`%out`, elements `%pout`), `%lid` the local invocation index, constants
/// `%c0`..`%c7` (u32), `%true`/`%false`, and the function body (after the entry label).
fn module(size: u32, extra_caps: &str, names: &str, globals: &str, body: &str) -> String {
    format!(
        "OpCapability Shader
{extra_caps}
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %lid %out
OpExecutionMode %main LocalSize {size} 1 1
OpName %main \"main\"
{names}
OpDecorate %lid BuiltIn LocalInvocationIndex
OpDecorate %rt ArrayStride 4
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%bool = OpTypeBool
%rt = OpTypeRuntimeArray %u32
%blk = OpTypeStruct %rt
%pblk = OpTypePointer StorageBuffer %blk
%out = OpVariable %pblk StorageBuffer
%pin = OpTypePointer Input %u32
%lid = OpVariable %pin Input
%pout = OpTypePointer StorageBuffer %u32
%pfu = OpTypePointer Function %u32
%pwu = OpTypePointer Workgroup %u32
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%c4 = OpConstant %u32 4
%c5 = OpConstant %u32 5
%c6 = OpConstant %u32 6
%c7 = OpConstant %u32 7
%true = OpConstantTrue %bool
%false = OpConstantFalse %bool
%wg = OpConstant %u32 2
%sem = OpConstant %u32 264
{globals}
%main = OpFunction %void None %fn
%entry = OpLabel
{body}
OpReturn
OpFunctionEnd
"
    )
}

/// Runs a module (text) on one workgroup with 16 zeroed words at binding 0.
fn run_text(text: &str) -> Simulator {
    let opts = lanescope_core::spvtext::AsmOptions {
        source_file: Some("pair.spvasm".into()),
        ..Default::default()
    };
    let words =
        lanescope_core::spvtext::assemble(text, &opts).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")));
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 64])],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    let out = sim.run(100_000).unwrap();
    assert_eq!(out, lanescope_core::Outcome::Finished);
    sim
}

fn uninit_reads(sim: &Simulator) -> Vec<Diagnostic> {
    sim.diagnostics()
        .iter()
        .filter(|d| d.code == "uninitialized-read")
        .cloned()
        .collect()
}

fn out_words(sim: &Simulator) -> Vec<u32> {
    sim.buffer(0, 0)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The bug is reported (returned), the fix is not, and nothing else is reported in either.
fn pair(bug: &str, fixed: &str) -> Diagnostic {
    let sim = run_text(bug);
    let found = uninit_reads(&sim);
    assert!(!found.is_empty(), "the bug is not reported:\n{bug}");
    assert!(
        sim.diagnostics()
            .iter()
            .all(|d| d.code == "uninitialized-read"),
        "{:?}",
        sim.diagnostics()
    );
    let sim = run_text(fixed);
    assert_eq!(
        sim.diagnostics(),
        &[] as &[Diagnostic],
        "the fix is reported:\n{fixed}"
    );
    found[0].clone()
}

/// A 16-bit write defines its own half of a word only: `x[0]` stays uninitialized after
/// `x[1]` is written (it was taken for written: the tracking was by word).
#[test]
fn sixteen_bit_shared_halves() {
    let g = "%u16 = OpTypeInt 16 0
%a2 = OpTypeArray %u16 %c2
%pwa = OpTypePointer Workgroup %a2
%pw16 = OpTypePointer Workgroup %u16
%x = OpVariable %pwa Workgroup
%h9 = OpConstant %u16 9";
    let body = |write: &str| {
        format!(
            "%w = OpAccessChain %pw16 %x %{write}
OpStore %w %h9
%r = OpAccessChain %pw16 %x %c0
%v = OpLoad %u16 %r
%v32 = OpUConvert %u32 %v
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %v32"
        )
    };
    let caps = "OpCapability Int16";
    let d = pair(
        &module(1, caps, "OpName %x \"x\"", g, &body("c1")),
        &module(1, caps, "OpName %x \"x\"", g, &body("c0")),
    );
    assert!(d.message.contains("`x[0]`"), "{}", d.message);
}

/// The same with bytes: writing `b[2]` leaves `b[1]` undefined.
#[test]
fn eight_bit_shared_bytes() {
    let g = "%u8 = OpTypeInt 8 0
%a4 = OpTypeArray %u8 %c4
%pwa = OpTypePointer Workgroup %a4
%pw8 = OpTypePointer Workgroup %u8
%b = OpVariable %pwa Workgroup
%b5 = OpConstant %u8 5";
    let body = |write: &str| {
        format!(
            "%w = OpAccessChain %pw8 %b %{write}
OpStore %w %b5
%r = OpAccessChain %pw8 %b %c1
%v = OpLoad %u8 %r
%v32 = OpUConvert %u32 %v
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %v32"
        )
    };
    let caps = "OpCapability Int8";
    let d = pair(
        &module(1, caps, "OpName %b \"b\"", g, &body("c2")),
        &module(1, caps, "OpName %b \"b\"", g, &body("c1")),
    );
    assert!(d.message.contains("`b[1]`"), "{}", d.message);
}

/// An atomic exchange defines the word: the atomic add after it reads 7, nothing is
/// reported. Without the exchange the add reads memory nobody wrote, and the report names
/// the variable (it claimed an OpUndef the module does not have).
#[test]
fn atomics_define_memory() {
    let g = "%s = OpVariable %pwu Workgroup";
    let add = "%old = OpAtomicIAdd %u32 %s %wg %c0 %c1
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %old";
    let fixed = format!("%x = OpAtomicExchange %u32 %s %wg %c0 %c7\n{add}");
    let d = pair(
        &module(1, "", "OpName %s \"s\"", g, add),
        &module(1, "", "OpName %s \"s\"", g, &fixed),
    );
    assert!(d.message.contains("`s`"), "{}", d.message);
    assert!(d.message.contains("atomic"), "{}", d.message);
    assert!(!d.message.contains("OpUndef"), "{}", d.message);
    let sim = run_text(&module(1, "", "", g, &fixed));
    assert_eq!(out_words(&sim)[0], 7);
}

/// A Function variable loaded before it is written, then filled by OpCompositeInsert of every
/// component (Slang's GetDimensions): defined. Inserting only some leaves the rest undefined.
/// Nested indices (a struct holding the vector) too.
#[test]
fn composite_insert_over_every_component() {
    let g = "%v2 = OpTypeVector %u32 2
%st = OpTypeStruct %v2 %u32
%pfv = OpTypePointer Function %st";
    let body = |inserts: &str| {
        format!(
            "%var = OpVariable %pfv Function
%l = OpLoad %st %var
{inserts}
%e0 = OpCompositeExtract %u32 %last 0 0
%e1 = OpCompositeExtract %u32 %last 0 1
%e2 = OpCompositeExtract %u32 %last 1
%s01 = OpIAdd %u32 %e0 %e1
%s = OpIAdd %u32 %s01 %e2
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %s"
        )
    };
    let all = "%a = OpCompositeInsert %st %c5 %l 0 0
%b = OpCompositeInsert %st %c6 %a 0 1
%last = OpCompositeInsert %st %c7 %b 1";
    let some = "%a = OpCompositeInsert %st %c5 %l 0 0
%last = OpCompositeInsert %st %c7 %a 1";
    pair(
        &module(1, "", "", g, &body(some)),
        &module(1, "", "", g, &body(all)),
    );
    let sim = run_text(&module(1, "", "", g, &body(all)));
    assert_eq!(out_words(&sim)[0], 18);
}

/// A Function variable read before it is written.
#[test]
fn function_variable() {
    let body = |store: bool| {
        format!(
            "%f = OpVariable %pfu Function
{}
%v = OpLoad %u32 %f
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %v",
            if store { "OpStore %f %c3" } else { "" }
        )
    };
    let d = pair(
        &module(1, "", "OpName %f \"count\"", "", &body(false)),
        &module(1, "", "OpName %f \"count\"", "", &body(true)),
    );
    assert!(d.message.contains("`count`"), "{}", d.message);
}

/// A Private variable read before it is written, branched on.
#[test]
fn private_variable_branched_on() {
    let g = "%ppu = OpTypePointer Private %u32
%p = OpVariable %ppu Private";
    let body = |store: bool| {
        format!(
            "{}
%v = OpLoad %u32 %p
%c = OpIEqual %bool %v %c0
OpSelectionMerge %m None
OpBranchConditional %c %t %m
%t = OpLabel
OpBranch %m
%m = OpLabel",
            if store { "OpStore %p %c1" } else { "" }
        )
    };
    let d = pair(
        &module(1, "", "OpName %p \"flag\"", g, &body(false)),
        &module(1, "", "OpName %p \"flag\"", g, &body(true)),
    );
    assert!(d.message.contains("`flag`"), "{}", d.message);
    assert!(d.message.contains("Private memory"), "{}", d.message);
    assert!(d.message.contains("branched on"), "{}", d.message);
}

/// A loop accumulating into a variable that was never set to its start.
#[test]
fn loop_accumulator() {
    let body = |init: &str| {
        format!(
            "%sum = OpVariable %pfu Function
%i = OpVariable %pfu Function
OpStore %i %c0
{init}
OpBranch %head
%head = OpLabel
OpLoopMerge %exit %cont None
OpBranch %check
%check = OpLabel
%iv = OpLoad %u32 %i
%more = OpULessThan %bool %iv %c4
OpBranchConditional %more %bodyb %exit
%bodyb = OpLabel
%sv = OpLoad %u32 %sum
%ns = OpIAdd %u32 %sv %iv
OpStore %sum %ns
OpBranch %cont
%cont = OpLabel
%ni = OpIAdd %u32 %iv %c1
OpStore %i %ni
OpBranch %head
%exit = OpLabel
%r = OpLoad %u32 %sum
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %r"
        )
    };
    pair(
        &module(1, "", "", "", &body("")),
        &module(1, "", "", "", &body("OpStore %sum %c0")),
    );
}

/// A variable written on one side of a branch only: the invocations that took the other side
/// read it undefined.
#[test]
fn written_on_one_branch() {
    let body = |else_store: bool| {
        format!(
            "%f = OpVariable %pfu Function
%id = OpLoad %u32 %lid
%first = OpIEqual %bool %id %c0
OpSelectionMerge %m None
OpBranchConditional %first %t %e
%t = OpLabel
OpStore %f %c1
OpBranch %m
%e = OpLabel
{}
OpBranch %m
%m = OpLabel
%v = OpLoad %u32 %f
%o = OpAccessChain %pout %out %c0 %id
OpStore %o %v",
            if else_store { "OpStore %f %c2" } else { "" }
        )
    };
    let d = pair(
        &module(2, "", "", "", &body(false)),
        &module(2, "", "", "", &body(true)),
    );
    assert_eq!(d.lanes, vec![1]);
}

/// A struct with one member written, the other read.
#[test]
fn struct_member() {
    let g = "%st = OpTypeStruct %u32 %u32
%pfs = OpTypePointer Function %st";
    let body = |read: &str| {
        format!(
            "%var = OpVariable %pfs Function
%wa = OpAccessChain %pfu %var %c0
OpStore %wa %c4
%ra = OpAccessChain %pfu %var %{read}
%v = OpLoad %u32 %ra
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %v"
        )
    };
    let names = "OpName %var \"pair\"
OpName %st \"Pair\"
OpMemberName %st 0 \"a\"
OpMemberName %st 1 \"b\"";
    let d = pair(
        &module(1, "", names, g, &body("c1")),
        &module(1, "", names, g, &body("c0")),
    );
    assert!(d.message.contains("`pair.b`"), "{}", d.message);
}

/// A shared array whose last element nobody wrote, used as an index.
#[test]
fn array_element_used_as_index() {
    let g = "%a4 = OpTypeArray %u32 %c4
%pwa = OpTypePointer Workgroup %a4
%arr = OpVariable %pwa Workgroup";
    let body = |read: &str| {
        format!(
            "%w0 = OpAccessChain %pwu %arr %c0
OpStore %w0 %c1
%w1 = OpAccessChain %pwu %arr %c1
OpStore %w1 %c2
%w2 = OpAccessChain %pwu %arr %c2
OpStore %w2 %c3
%r = OpAccessChain %pwu %arr %{read}
%v = OpLoad %u32 %r
%o = OpAccessChain %pout %out %c0 %v
OpStore %o %c1"
        )
    };
    let d = pair(
        &module(1, "", "OpName %arr \"arr\"", g, &body("c3")),
        &module(1, "", "OpName %arr \"arr\"", g, &body("c2")),
    );
    assert!(d.message.contains("`arr[3]`"), "{}", d.message);
    assert!(d.message.contains("used as an index"), "{}", d.message);
}

/// An OpUndef stored to a buffer is named as the OpUndef it is.
#[test]
fn op_undef_stored() {
    let g = "%u = OpUndef %u32";
    let body = |v: &str| {
        format!(
            "%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %{v}"
        )
    };
    let d = pair(
        &module(1, "", "OpName %u \"junk\"", g, &body("u")),
        &module(1, "", "OpName %u \"junk\"", g, &body("c1")),
    );
    assert!(d.message.contains("OpUndef value junk"), "{}", d.message);
}

/// A defined condition picks one operand of a select, and `false && x` is false whatever x
/// is: the undefined operand not picked is not used.
#[test]
fn select_and_logical_and_with_a_deciding_defined_operand() {
    let body = |cond: &str| {
        format!(
            "%f = OpVariable %pfu Function
%v = OpLoad %u32 %f
%s = OpSelect %u32 %{cond} %c1 %v
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %s
%big = OpUGreaterThan %bool %v %c2
%both = OpLogicalAnd %bool %{cond} %big
OpSelectionMerge %m None
OpBranchConditional %both %t %m
%t = OpLabel
OpBranch %m
%m = OpLabel"
        )
    };
    // Picks %v and branches on it (true && x).
    let bug = module(
        1,
        "",
        "",
        "",
        &body("false").replace("%false %big", "%true %big"),
    );
    let sim = run_text(&bug);
    let d = uninit_reads(&sim);
    assert_eq!(d.len(), 2, "{d:?}");
    pair(
        &module(1, "", "", "", &body("false")),
        &module(
            1,
            "",
            "",
            "",
            &body("true").replace("%true %big", "%false %big"),
        ),
    );
}

/// The report names the variable, where it is declared and the load that read it (file and
/// line of the assembly, which is the module's source here).
#[test]
fn the_report_points_at_the_load() {
    let text = module(
        1,
        "",
        "OpName %f \"count\"",
        "",
        "%f = OpVariable %pfu Function
%v = OpLoad %u32 %f
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %v",
    );
    let line = text
        .lines()
        .position(|l| l.starts_with("%v = OpLoad"))
        .unwrap()
        + 1;
    let d = uninit_reads(&run_text(&text));
    let m = &d[0].message;
    assert!(
        m.contains(&format!("by the load at pair.spvasm:{line}")),
        "{m}"
    );
    assert!(!m.contains("OpVariable %"), "{m}");
    assert!(m.contains("stored to a buffer"), "{m}");
}

/// Poison is by byte too: an undefined 16-bit value stored in one half of a word leaves the
/// other half defined, and a buffer word built from the defined half is not poison.
#[test]
fn poison_stays_in_its_half_word() {
    let g = "%u16 = OpTypeInt 16 0
%a2 = OpTypeArray %u16 %c2
%pwa = OpTypePointer Workgroup %a2
%pw16 = OpTypePointer Workgroup %u16
%x = OpVariable %pwa Workgroup
%h0 = OpConstant %u16 0
%h9 = OpConstant %u16 9";
    let body = "%w0 = OpAccessChain %pw16 %x %c0
OpStore %w0 %h9
%bad = OpUDiv %u16 %h9 %h0
%w1 = OpAccessChain %pw16 %x %c1
OpStore %w1 %bad
%v = OpLoad %u16 %w0
%v32 = OpUConvert %u32 %v
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %v32
%b = OpLoad %u16 %w1
%b32 = OpUConvert %u32 %b
%o1 = OpAccessChain %pout %out %c0 %c1
OpStore %o1 %b32";
    let sim = run_text(&module(1, "OpCapability Int16", "", g, body));
    assert_eq!(sim.poisoned_words(0, 0), vec![1]);
    assert_eq!(out_words(&sim)[0], 9);
}

/// A racing read: the second subgroup reads what invocation 0 wrote with no barrier between.
/// When the value read is dead (only combined with a defined false) the race is still
/// reported, marked unobserved; when it reaches a buffer it is observed.
fn race_module(use_it: bool) -> String {
    let g = "%s = OpVariable %pwu Workgroup
%c32 = OpConstant %u32 32";
    let body = format!(
        "%id = OpLoad %u32 %lid
%first = OpIEqual %bool %id %c0
OpSelectionMerge %m0 None
OpBranchConditional %first %t %m0
%t = OpLabel
OpStore %s %c5
OpBranch %m0
%m0 = OpLabel
%late = OpUGreaterThanEqual %bool %id %c32
OpSelectionMerge %m None
OpBranchConditional %late %e %m
%e = OpLabel
%v = OpLoad %u32 %s
%big = OpUGreaterThan %bool %v %c2
%mine = OpIEqual %bool %id %c0
%go = OpLogicalAnd %bool %big %mine
OpSelectionMerge %m2 None
OpBranchConditional %go %t2 %m2
%t2 = OpLabel
OpBranch %m2
%m2 = OpLabel
{}
OpBranch %m
%m = OpLabel",
        if use_it {
            "%o = OpAccessChain %pout %out %c0 %id\nOpStore %o %v"
        } else {
            ""
        }
    );
    module(64, "", "OpName %s \"s\"", g, &body)
}

#[test]
fn a_race_whose_read_is_dead_is_unobserved() {
    for (use_it, observed) in [(false, false), (true, true)] {
        let sim = run_text(&race_module(use_it));
        let races: Vec<&Diagnostic> = sim
            .diagnostics()
            .iter()
            .filter(|d| d.code == "data-race")
            .collect();
        assert!(!races.is_empty(), "{:?}", sim.diagnostics());
        for r in &races {
            assert_eq!(r.observed, observed, "{r:?}");
            assert_eq!(r.unobserved_note().is_some(), !observed);
        }
        assert!(uninit_reads(&sim).is_empty(), "{:?}", sim.diagnostics());
        let json = serde_json::to_string(races[0]).unwrap();
        assert_eq!(json.contains("\"observed\":false"), !observed, "{json}");
    }
}

/// Invocations 0..3 (subgroup 0) read word 7 of the buffer, then invocation 32 (subgroup 1)
/// writes it with no barrier between: under the default schedule the read comes first.
/// `use_it`: the readers store what they read to their own word.
fn war_module(use_it: bool) -> String {
    let body = format!(
        "%id = OpLoad %u32 %lid
%p7 = OpAccessChain %pout %out %c0 %c7
%early = OpULessThan %bool %id %c4
OpSelectionMerge %m0 None
OpBranchConditional %early %t %m0
%t = OpLabel
%v = OpLoad %u32 %p7
%big = OpUGreaterThan %bool %v %c2
{}
OpBranch %m0
%m0 = OpLabel
%w = OpIEqual %bool %id %c32
OpSelectionMerge %m None
OpBranchConditional %w %e %m
%e = OpLabel
OpStore %p7 %c5
OpBranch %m
%m = OpLabel",
        if use_it {
            "%o = OpAccessChain %pout %out %c0 %id\nOpStore %o %v"
        } else {
            ""
        }
    );
    module(64, "", "", "%c32 = OpConstant %u32 32", &body)
}

#[test]
fn a_race_whose_read_came_first_and_is_dead_is_unobserved() {
    for (use_it, observed) in [(false, false), (true, true)] {
        let sim = run_text(&war_module(use_it));
        let races: Vec<&Diagnostic> = sim
            .diagnostics()
            .iter()
            .filter(|d| d.code == "data-race" && d.accesses[0].kind == "read")
            .collect();
        assert!(!races.is_empty(), "{:?}", sim.diagnostics());
        for r in &races {
            assert_eq!(r.accesses[1].kind, "write", "{r:?}");
            assert!(r.accesses[0].step < r.accesses[1].step, "{r:?}");
            assert_eq!(r.observed, observed, "{r:?}");
            assert_eq!(r.unobserved_note().is_some(), !observed);
        }
        assert!(uninit_reads(&sim).is_empty(), "{:?}", sim.diagnostics());
        let json = serde_json::to_string(races[0]).unwrap();
        assert_eq!(json.contains("\"observed\":false"), !observed, "{json}");
    }
}

/// Subgroup 1 reads `s` racing with invocation 0's write, and the value decides which path of
/// an if/else runs; the if's phi is then combined with a defined false (the shape glslang gives
/// `(a || b > c) && ixj > col`). `on_true`/`on_false` go in the two paths, `after` after the
/// combination; `%fv` is a Function variable set to 0 before the if.
fn steer_module(on_true: &str, on_false: &str, after: &str) -> String {
    let g = "%s = OpVariable %pwu Workgroup
%c32 = OpConstant %u32 32";
    let body = format!(
        "%fv = OpVariable %pfu Function
%id = OpLoad %u32 %lid
%first = OpIEqual %bool %id %c0
OpSelectionMerge %m0 None
OpBranchConditional %first %t %m0
%t = OpLabel
OpStore %s %c5
OpBranch %m0
%m0 = OpLabel
OpStore %fv %c0
%late = OpUGreaterThanEqual %bool %id %c32
OpSelectionMerge %m None
OpBranchConditional %late %e %m
%e = OpLabel
%v = OpLoad %u32 %s
%big = OpUGreaterThan %bool %v %c2
OpSelectionMerge %j None
OpBranchConditional %big %bt %bf
%bt = OpLabel
{on_true}
OpBranch %j
%bf = OpLabel
{on_false}
OpBranch %j
%j = OpLabel
%ph = OpPhi %bool %true %bt %false %bf
%mine = OpIEqual %bool %id %c0
%go = OpLogicalAnd %bool %ph %mine
OpSelectionMerge %m2 None
OpBranchConditional %go %t2 %m2
%t2 = OpLabel
OpBranch %m2
%m2 = OpLabel
{after}
OpBranch %m
%m = OpLabel"
    );
    module(
        64,
        "OpCapability GroupNonUniform",
        "OpName %s \"s\"",
        g,
        &body,
    )
}

/// A racing read that only steers an if/else whose paths write nothing but registers and the
/// function's own variables is unobserved, unless what the if decided (its phi, or a variable
/// it stored to) reaches a buffer, or a path does something observable (a buffer store, a
/// subgroup operation), taken or not.
#[test]
fn a_race_that_only_steers_a_pure_if_is_unobserved() {
    let store_x = "%o = OpAccessChain %pout %out %c0 %id\nOpStore %o %x";
    let cases = [
        ("dead phi", "", "", String::new(), false),
        ("dead variable", "OpStore %fv %c1", "", String::new(), false),
        (
            "variable stored",
            "OpStore %fv %c1",
            "",
            format!("%x = OpLoad %u32 %fv\n{store_x}"),
            true,
        ),
        (
            "variable stored on the other path",
            "",
            "OpStore %fv %c1",
            format!("%x = OpLoad %u32 %fv\n{store_x}"),
            true,
        ),
        (
            "phi stored",
            "",
            "",
            format!("%x = OpSelect %u32 %ph %c1 %c0\n{store_x}"),
            true,
        ),
        (
            "buffer store on the path not taken",
            "",
            "%ob = OpAccessChain %pout %out %c0 %c1\nOpStore %ob %c1",
            String::new(),
            true,
        ),
        (
            "subgroup operation on a path",
            "%el = OpGroupNonUniformElect %bool %c3",
            "",
            String::new(),
            true,
        ),
    ];
    for (what, on_true, on_false, after, observed) in cases {
        let sim = run_text(&steer_module(on_true, on_false, &after));
        let races: Vec<&Diagnostic> = sim
            .diagnostics()
            .iter()
            .filter(|d| d.code == "data-race")
            .collect();
        assert!(!races.is_empty(), "{what}: {:?}", sim.diagnostics());
        for r in &races {
            assert_eq!(r.observed, observed, "{what}: {r:?}");
        }
        assert!(
            uninit_reads(&sim).is_empty(),
            "{what}: {:?}",
            sim.diagnostics()
        );
    }
}

/// A compare-exchange step of a bitonic sort compiled by glslang (bitonic_step.comp): both
/// partners read both elements, only the lower one writes, and with no barrier between the
/// reads and the writes the higher partner's reads race with them. Its reads only steer the
/// short-circuit condition that `ixj > col` then makes false: unobserved. With USE (the
/// higher partner also counts the swaps it saw) the same race is observed.
#[test]
fn a_bitonic_step_race_whose_reads_decide_nothing_is_unobserved() {
    for (file, observed) in [("bitonic_step.spv", false), ("bitonic_step_use.spv", true)] {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).unwrap();
        let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
        let b = Bindings {
            buffers: vec![
                (
                    0,
                    0,
                    (0..64u32).rev().flat_map(|v| v.to_le_bytes()).collect(),
                ),
                (0, 1, vec![0; 256]),
            ],
            ..Bindings::default()
        };
        for schedule in [
            lanescope_core::Schedule::Default,
            lanescope_core::Schedule::Reverse,
        ] {
            let cfg = Config {
                schedule,
                ..Config::default()
            };
            let mut sim = Simulator::new(Arc::clone(&prog), cfg, &b).unwrap();
            assert_eq!(
                sim.run(10_000_000).unwrap(),
                lanescope_core::Outcome::Finished
            );
            let races: Vec<&Diagnostic> = sim
                .diagnostics()
                .iter()
                .filter(|d| d.code == "data-race")
                .collect();
            assert!(!races.is_empty(), "{file} {schedule:?}");
            for r in &races {
                assert_eq!(r.observed, observed, "{file} {schedule:?}: {r:?}");
            }
        }
    }
}
