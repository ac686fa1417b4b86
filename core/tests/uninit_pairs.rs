//! The uninitialized-read detector, in bug/fix pairs: each shader reads memory nobody wrote (or
//! an OpUndef) and uses the value where it shows, and must be reported; its fixed variant must
//! not be. Also: poison by byte. (Data races whose read value is dead: `unobserved_races.rs`.)
//!
//! Buffers are bound by the host with their contents, so they are never uninitialized here:
//! only Workgroup, Private and Function memory and OpUndef are.

mod common;

use common::pairs::{module, out_words, run_text, uninit_reads};
use lanescope_core::trace::Diagnostic;

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

/// A Workgroup array of two 16-bit halves, and the constant 9 to write to one.
const SHARED_HALVES: &str = "%u16 = OpTypeInt 16 0
%a2 = OpTypeArray %u16 %c2
%pwa = OpTypePointer Workgroup %a2
%pw16 = OpTypePointer Workgroup %u16
%x = OpVariable %pwa Workgroup
%h9 = OpConstant %u16 9";

/// A 16-bit write defines its own half of a word only: `x[0]` stays uninitialized after
/// `x[1]` is written (it was taken for written: the tracking was by word).
#[test]
fn sixteen_bit_shared_halves() {
    let g = SHARED_HALVES;
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

/// A value read from memory nobody wrote is undefined in the lanes that read it, as the Watch
/// panel shows it; one read from written memory is not.
#[test]
fn a_value_read_from_unwritten_memory_is_undefined() {
    let g = SHARED_HALVES;
    let body = "%w = OpAccessChain %pw16 %x %c1
OpStore %w %h9
%r0 = OpAccessChain %pw16 %x %c0
%v = OpLoad %u16 %r0
%r1 = OpAccessChain %pw16 %x %c1
%d = OpLoad %u16 %r1
%v32 = OpUConvert %u32 %v
%o = OpAccessChain %pout %out %c0 %c0
OpStore %o %v32";
    let names = "OpName %x \"x\"\nOpName %v \"v\"\nOpName %d \"d\"";
    let sim = run_text(&module(1, "OpCapability Int16", names, g, body));
    let p = sim.program();
    let id = |name: &str| (0..4096).find(|&i| p.name_of(i) == name).unwrap();
    assert!(sim.undefined_of(0, id("v")).unwrap()[0]);
    assert!(!sim.undefined_of(0, id("d")).unwrap()[0]);
    // Poison alone knows nothing of it.
    assert!(!sim.poison_of(0, id("v")).unwrap()[0]);
}
