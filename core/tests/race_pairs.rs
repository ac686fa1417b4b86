//! The race detector on small bug/fix pairs: each bug shader has a real data race, which must be
//! reported whatever the schedule (default, reverse, random:1..3); its fixed variant must report
//! nothing under any of them. Shaders are SPIR-V assembly built here and assembled in-process;
//! workgroups of 12 invocations run as three subgroups of 4.

use lanescope_core::trace::Diagnostic;
use lanescope_core::{load, Bindings, Config, LoadOptions, Schedule, Simulator};
use std::sync::Arc;

/// Builds a compute shader's `main` from statements, with these ids at hand:
/// `%lidv` (LocalInvocationIndex), `%x` (Workgroup uint), `%x16` (Workgroup ushort[2]),
/// `%x8` (Workgroup uchar[4]), `%out` (set 0 binding 0: uint[]), `%uint_N` for N in 0..=16,
/// `%semH` for semantics 0xH in `SEMANTICS`, and the scopes `%wg` (Workgroup) and `%sgs`
/// (Subgroup).
struct Shader {
    body: String,
    next: u32,
}

const SEMANTICS: [u32; 10] = [
    0, 0x100, 0x108, 0x104, 0x102, 0x140, 0x148, 0x40, 0x48, 0xd48,
];

impl Shader {
    fn new() -> Self {
        Shader {
            body: String::new(),
            next: 0,
        }
    }

    fn id(&mut self) -> u32 {
        self.next += 1;
        self.next
    }

    /// Statements every invocation runs.
    fn all(mut self, code: &str) -> Self {
        let n = self.id();
        self.body.push_str(&code.replace('#', &n.to_string()));
        self.body.push('\n');
        self
    }

    /// Statements only invocation `inv` runs (`#` in them becomes a fresh number).
    fn only(mut self, inv: u32, code: &str) -> Self {
        let n = self.id();
        let code = code.replace('#', &n.to_string());
        self.body.push_str(&format!(
            "%c{n} = OpIEqual %bool %lidv %uint_{inv}
OpSelectionMerge %m{n} None
OpBranchConditional %c{n} %t{n} %m{n}
%t{n} = OpLabel
{code}
OpBranch %m{n}
%m{n} = OpLabel
"
        ));
        self
    }

    /// Statements only invocation `inv` of workgroup (`wg`, 0, 0) runs.
    fn only_at(mut self, wg: u32, inv: u32, code: &str) -> Self {
        let n = self.id();
        let code = code.replace('#', &n.to_string());
        self.body.push_str(&format!(
            "%a{n} = OpIEqual %bool %lidv %uint_{inv}
%b{n} = OpIEqual %bool %widx %uint_{wg}
%c{n} = OpLogicalAnd %bool %a{n} %b{n}
OpSelectionMerge %m{n} None
OpBranchConditional %c{n} %t{n} %m{n}
%t{n} = OpLabel
{code}
OpBranch %m{n}
%m{n} = OpLabel
"
        ));
        self
    }

    fn barrier(self, semantics: u32) -> Self {
        self.all(&format!("OpControlBarrier %wg %wg %sem{semantics:x}"))
    }

    fn subgroup_barrier(self, semantics: u32) -> Self {
        self.all(&format!("OpControlBarrier %sgs %sgs %sem{semantics:x}"))
    }

    fn text(&self) -> String {
        let consts: String = (0..=16)
            .map(|k| format!("%uint_{k} = OpConstant %uint {k}\n"))
            .collect();
        let sems: String = SEMANTICS
            .iter()
            .map(|s| format!("%sem{s:x} = OpConstant %uint {s}\n"))
            .collect();
        format!(
            "OpCapability Shader
OpCapability Int8
OpCapability Int16
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %lid %wid
OpExecutionMode %main LocalSize 12 1 1
OpName %x \"x\"
OpName %x16 \"x16\"
OpName %x8 \"x8\"
OpDecorate %lid BuiltIn LocalInvocationIndex
OpDecorate %wid BuiltIn WorkgroupId
OpDecorate %rt ArrayStride 4
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%ushort = OpTypeInt 16 0
%uchar = OpTypeInt 8 0
{consts}{sems}%wg = OpConstant %uint 2
%sgs = OpConstant %uint 3
%us7 = OpConstant %ushort 7
%uc7 = OpConstant %uchar 7
%a2s = OpTypeArray %ushort %uint_2
%a4c = OpTypeArray %uchar %uint_4
%rt = OpTypeRuntimeArray %uint
%blk = OpTypeStruct %rt
%pblk = OpTypePointer StorageBuffer %blk
%pbu = OpTypePointer StorageBuffer %uint
%pin = OpTypePointer Input %uint
%v3 = OpTypeVector %uint 3
%pin3 = OpTypePointer Input %v3
%wid = OpVariable %pin3 Input
%pwu = OpTypePointer Workgroup %uint
%pws = OpTypePointer Workgroup %ushort
%pwc = OpTypePointer Workgroup %uchar
%pwa2s = OpTypePointer Workgroup %a2s
%pwa4c = OpTypePointer Workgroup %a4c
%lid = OpVariable %pin Input
%out = OpVariable %pblk StorageBuffer
%x = OpVariable %pwu Workgroup
%x16 = OpVariable %pwa2s Workgroup
%x8 = OpVariable %pwa4c Workgroup
%main = OpFunction %void None %fn
%entry = OpLabel
%lidv = OpLoad %uint %lid
%wid3 = OpLoad %v3 %wid
%widx = OpCompositeExtract %uint %wid3 0
{}OpReturn
OpFunctionEnd
",
            self.body
        )
    }
}

/// Statements: `x = k`; `out[lid] = x`; `out[0] = k` and a load of `out[0]` (a buffer word);
/// the same on halves and bytes of Workgroup memory.
fn store_x(k: u32) -> String {
    format!("OpStore %x %uint_{k}")
}
const READ_X: &str = "%v# = OpLoad %uint %x
%p# = OpAccessChain %pbu %out %uint_0 %lidv
OpStore %p# %v#";
fn store_out0(k: u32) -> String {
    format!("%q# = OpAccessChain %pbu %out %uint_0 %uint_0\nOpStore %q# %uint_{k}")
}
const READ_OUT0: &str = "%q# = OpAccessChain %pbu %out %uint_0 %uint_0
%v# = OpLoad %uint %q#";
fn store_half(i: u32) -> String {
    format!("%h# = OpAccessChain %pws %x16 %uint_{i}\nOpStore %h# %us7")
}
fn read_half(i: u32) -> String {
    format!(
        "%h# = OpAccessChain %pws %x16 %uint_{i}
%v# = OpLoad %ushort %h#
%z# = OpUConvert %uint %v#
%p# = OpAccessChain %pbu %out %uint_0 %lidv
OpStore %p# %z#"
    )
}
fn store_byte(i: u32) -> String {
    format!("%h# = OpAccessChain %pwc %x8 %uint_{i}\nOpStore %h# %uc7")
}
fn read_byte(i: u32) -> String {
    format!(
        "%h# = OpAccessChain %pwc %x8 %uint_{i}
%v# = OpLoad %uchar %h#
%z# = OpUConvert %uint %v#
%p# = OpAccessChain %pbu %out %uint_0 %lidv
OpStore %p# %z#"
    )
}

fn schedules() -> Vec<Schedule> {
    let mut v = vec![Schedule::Default, Schedule::Reverse];
    v.extend((1..=3).map(Schedule::Random));
    v
}

fn run(text: &str, workgroups: [u32; 3], schedule: Schedule) -> Vec<Diagnostic> {
    let words = lanescope_core::spvtext::assemble(text, &Default::default())
        .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 256])],
        ..Bindings::default()
    };
    let cfg = Config {
        subgroup_size: 4,
        workgroups,
        schedule,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, &b).unwrap();
    sim.run(1_000_000).unwrap();
    sim.diagnostics().to_vec()
}

fn races(d: &[Diagnostic]) -> Vec<&Diagnostic> {
    d.iter()
        .filter(|d| d.code.as_str() == "data-race")
        .collect()
}

/// `text` with an unused Workgroup array of 64 halves, or of 256 bytes, declared after the
/// others: most Workgroup memory is then of 16-bit, or 8-bit, scalars, and the race detector
/// keeps its records of that memory in units of 2, or 1, bytes.
fn padded(text: &str, pad: &str) -> String {
    let decl = match pad {
        "16" => "%a64s = OpTypeArray %ushort %uint_64\n%pwpad = OpTypePointer Workgroup %a64s\n",
        _ => "%a256c = OpTypeArray %uchar %uint_256\n%pwpad = OpTypePointer Workgroup %a256c\n",
    };
    let at = "%x8 = OpVariable %pwa4c Workgroup\n";
    assert!(text.contains(at));
    text.replace(
        at,
        &format!("%uint_64 = OpConstant %uint 64\n%uint_256 = OpConstant %uint 256\n{decl}{at}%pad = OpVariable %pwpad Workgroup\n"),
    )
}

/// `message` without its instruction numbers (`#N`: the padding moves them).
fn no_instrs(message: &str) -> String {
    let mut out = String::new();
    let mut after_hash = false;
    for c in message.chars() {
        if !(after_hash && c.is_ascii_digit()) {
            out.push(c);
            after_hash = c == '#';
        }
    }
    out
}

/// The bug reports a race under every schedule (each report between the invocations given,
/// when given), and the fix reports nothing; both alike with the detector's records of
/// Workgroup memory in units of 4, 2 and 1 bytes. Returns the bug's race messages.
fn pair(name: &str, bug: &Shader, fix: &Shader, workgroups: [u32; 3]) -> Vec<String> {
    let mut messages = Vec::new();
    for s in schedules() {
        let d = run(&bug.text(), workgroups, s);
        let r = races(&d);
        assert!(
            !r.is_empty(),
            "{name}: no race reported under {s:?}: {d:#?}"
        );
        let these: Vec<String> = r.iter().map(|d| d.message.clone()).collect();
        let d = run(&fix.text(), workgroups, s);
        assert!(d.is_empty(), "{name} fixed, under {s:?}: {d:#?}");
        for pad in ["16", "8"] {
            let d = run(&padded(&bug.text(), pad), workgroups, s);
            let r: Vec<String> = races(&d).iter().map(|d| no_instrs(&d.message)).collect();
            let want: Vec<String> = these.iter().map(|m| no_instrs(m)).collect();
            assert_eq!(r, want, "{name}, {pad}-bit units, under {s:?}");
            let d = run(&padded(&fix.text(), pad), workgroups, s);
            assert!(
                d.is_empty(),
                "{name} fixed, {pad}-bit units, under {s:?}: {d:#?}"
            );
        }
        messages.extend(these);
    }
    messages
}

/// Item 1 (eviction): `x` written by 0, barrier, read by 0, barrier, read by 4 and 8 and
/// written by 8. Invocation 0's old read must not push out invocation 4's racing one.
#[test]
fn an_ordered_old_read_does_not_evict_the_racing_one() {
    let bug = Shader::new()
        .only(0, &store_x(1))
        .barrier(0x108)
        .only(0, READ_X)
        .barrier(0x108)
        .only(4, READ_X)
        .only(8, READ_X)
        .only(8, &store_x(2));
    let fix = Shader::new()
        .only(0, &store_x(1))
        .barrier(0x108)
        .only(0, READ_X)
        .barrier(0x108)
        .only(4, READ_X)
        .only(8, READ_X)
        .barrier(0x108)
        .only(8, &store_x(2));
    let m = pair("eviction", &bug, &fix, [1, 1, 1]);
    assert!(
        m.iter()
            .any(|m| m.contains("invocation 4 reads") && m.contains("invocation 8 writes")),
        "{m:#?}"
    );
}

/// Many readers: a whole subgroup's reads are ordered before the write by a subgroup barrier,
/// another subgroup's are not (and an older epoch's read sits there too).
#[test]
fn many_readers_keep_the_one_that_races() {
    let make = |fixed: bool| {
        let s = Shader::new()
            .only(0, &store_x(1))
            .barrier(0x108)
            .only(0, READ_X)
            .barrier(0x108);
        let mut s = (4..12).fold(s, |s, i| s.only(i, READ_X));
        s = if fixed {
            s.barrier(0x108)
        } else {
            s.subgroup_barrier(0x108)
        };
        s.only(8, &store_x(2))
    };
    let m = pair("many readers", &make(false), &make(true), [1, 1, 1]);
    assert!(
        m.iter().all(|m| m.contains("invocation 8 writes")
            && ["4", "5", "6", "7"]
                .iter()
                .any(|i| m.contains(&format!("invocation {i} reads")))),
        "{m:#?}"
    );
}

/// Item 2 (16-bit): invocation 0 writes x16[0], 4 writes x16[1], 8 reads x16[0].
#[test]
fn a_write_to_the_other_half_does_not_hide_a_race() {
    let bug = Shader::new()
        .only(0, &store_half(0))
        .only(4, &store_half(1))
        .only(8, &read_half(0));
    let fix = Shader::new()
        .only(0, &store_half(0))
        .only(4, &store_half(1))
        .barrier(0x108)
        .only(8, &read_half(0));
    let m = pair("16-bit", &bug, &fix, [1, 1, 1]);
    assert!(
        m.iter()
            .all(|m| m.contains("x16[0]") && m.contains("invocation 0 writes")),
        "{m:#?}"
    );
}

/// 8-bit: the four bytes of one word written by three subgroups; invocation 9 reads byte 1.
#[test]
fn bytes_of_one_word_are_tracked_apart() {
    let make = |fixed: bool| {
        let s = Shader::new()
            .only(4, &store_byte(1))
            .only(0, &store_byte(0))
            .only(8, &store_byte(2))
            .only(5, &store_byte(3));
        let s = if fixed { s.barrier(0x108) } else { s };
        s.only(9, &read_byte(1))
    };
    let m = pair("8-bit", &make(false), &make(true), [1, 1, 1]);
    assert!(
        m.iter().all(|m| m.contains("x8[1]")
            && m.contains("invocation 4 writes")
            && m.contains("invocation 9 reads")),
        "{m:#?}"
    );
}

/// Epochs across several barriers: the write and the read meet in one epoch after two
/// barriers (each access earlier is ordered).
#[test]
fn accesses_meet_in_a_later_epoch() {
    let make = |fixed: bool| {
        let s = Shader::new()
            .only(0, &store_x(1))
            .barrier(0x108)
            .only(4, READ_X)
            .barrier(0x108)
            .only(8, READ_X);
        let s = if fixed { s.barrier(0x108) } else { s };
        s.only(0, &store_x(3)).barrier(0x108).only(5, READ_X)
    };
    let m = pair("epochs", &make(false), &make(true), [1, 1, 1]);
    assert!(
        m.iter()
            .all(|m| m.contains("invocation 8 reads") && m.contains("invocation 0 writes")),
        "{m:#?}"
    );
}

/// Atomics vs plain accesses: every invocation adds atomically, and 4 reads plainly with no
/// barrier. Fixed: a barrier before the plain read, and an atomic load beside it (reads do
/// not race with reads, atomic or not).
#[test]
fn plain_reads_race_with_atomic_writes_not_atomic_loads() {
    let add = "%r# = OpAtomicIAdd %uint %x %wg %sem0 %uint_1";
    let load = "%r# = OpAtomicLoad %uint %x %wg %sem0";
    let bug = Shader::new()
        .only(0, &store_x(0))
        .barrier(0x108)
        .all(add)
        .only(4, READ_X);
    let fix = Shader::new()
        .only(0, &store_x(0))
        .barrier(0x108)
        .all(add)
        .barrier(0x108)
        .only(4, READ_X)
        .all(load);
    let m = pair("atomics", &bug, &fix, [1, 1, 1]);
    assert!(
        m.iter()
            .all(|m| m.contains("atomics it") && m.contains("invocation 4 reads")),
        "{m:#?}"
    );
}

/// An atomic load, then another subgroup's atomic add (atomics do not race with atomics, so
/// nothing orders the two), a subgroup barrier, and a plain write: the write races with the
/// load, which the add must not hide.
#[test]
fn an_atomic_between_does_not_hide_a_race_with_an_atomic_load() {
    let make = |fixed: bool| {
        let s = Shader::new()
            .only(0, &store_x(0))
            .barrier(0x108)
            .only(0, "%r# = OpAtomicLoad %uint %x %wg %sem0")
            .only(4, "%r# = OpAtomicIAdd %uint %x %wg %sem0 %uint_1")
            .subgroup_barrier(0x108);
        let s = if fixed { s.barrier(0x108) } else { s };
        s.only(5, &store_x(2))
    };
    let m = pair("atomic between", &make(false), &make(true), [1, 1, 1]);
    assert!(
        m.iter().all(
            |m| m.contains("invocation 0 atomics") && m.contains("invocation 5 writes")
                || m.contains("invocation 5 writes") && m.contains("invocation 0 atomics")
        ),
        "{m:#?}"
    );
}

/// Item 3: a control barrier without memory semantics orders nothing.
#[test]
fn a_control_only_barrier_orders_nothing() {
    let bug = Shader::new()
        .only(0, &store_x(1))
        .barrier(0)
        .only(4, READ_X);
    let fix = Shader::new()
        .only(0, &store_x(1))
        .barrier(0x108)
        .only(4, READ_X);
    let m = pair("control only", &bug, &fix, [1, 1, 1]);
    assert!(
        m.iter().all(|m| m.contains("no WorkgroupMemory semantics")
            && m.contains("no Acquire/Release semantics")
            && m.contains("the barrier at instruction #")),
        "{m:#?}"
    );
    // The memory barrier GLSL's memoryBarrierShared() puts before a control barrier gives it
    // the semantics.
    let fix2 = Shader::new()
        .only(0, &store_x(1))
        .all("OpMemoryBarrier %wg %sem108")
        .barrier(0)
        .only(4, READ_X);
    pair(
        "control only, memory barrier before",
        &bug,
        &fix2,
        [1, 1, 1],
    );
}

/// Item 3: WorkgroupMemory without Acquire/Release (relaxed), or with only one of them.
#[test]
fn a_barrier_without_acquire_release_orders_nothing() {
    let make = |sem: u32| {
        Shader::new()
            .only(0, &store_x(1))
            .barrier(sem)
            .only(4, READ_X)
    };
    let fix = make(0x108);
    for (sem, lacks) in [
        (0x100, "no Acquire/Release semantics"),
        (0x104, "no Acquire semantics"),
        (0x102, "no Release semantics"),
    ] {
        let m = pair(&format!("semantics {sem:#x}"), &make(sem), &fix, [1, 1, 1]);
        assert!(
            m.iter()
                .all(|m| m.contains(lacks) && !m.contains("WorkgroupMemory")),
            "{m:#?}"
        );
    }
}

/// Item 3: a subgroup barrier orders its subgroup's Workgroup memory only with semantics.
#[test]
fn a_subgroup_barrier_needs_semantics() {
    let make = |sem: u32| {
        Shader::new()
            .only(0, &store_x(1))
            .subgroup_barrier(sem)
            .only(1, READ_X)
    };
    let m = pair("subgroup barrier", &make(0), &make(0x108), [1, 1, 1]);
    assert!(
        m.iter()
            .all(|m| m.contains("no WorkgroupMemory semantics") && m.contains("lockstep")),
        "{m:#?}"
    );
    // What glslang gives subgroupBarrier() (0xd48) orders both memories.
    pair("subgroup barrier 0xd48", &make(0), &make(0xd48), [1, 1, 1]);
}

/// A subgroup barrier with WorkgroupMemory semantics does not order buffer memory.
#[test]
fn a_subgroup_barrier_orders_only_the_memories_it_names() {
    let make = |sem: u32| {
        Shader::new()
            .only(0, &store_out0(5))
            .subgroup_barrier(sem)
            .only(1, READ_OUT0)
    };
    let m = pair(
        "subgroup barrier, buffer",
        &make(0x108),
        &make(0x48),
        [1, 1, 1],
    );
    assert!(
        m.iter().all(|m| m.contains("no UniformMemory semantics")),
        "{m:#?}"
    );
}

/// Buffer memory across workgroups: nothing but atomics orders them.
#[test]
fn workgroups_race_on_a_buffer_word() {
    let bug = Shader::new().only(0, &store_out0(5));
    let add = "%q# = OpAccessChain %pbu %out %uint_0 %uint_0
%r# = OpAtomicIAdd %uint %q# %uint_1 %sem0 %uint_1";
    let fix = Shader::new().only(0, add);
    let m = pair("across workgroups", &bug, &fix, [3, 1, 1]);
    assert!(
        m.iter().all(|m| m.contains("workgroups run in no order")),
        "{m:#?}"
    );
    // Readers in two workgroups, a writer in a third.
    let load = "%q# = OpAccessChain %pbu %out %uint_0 %uint_0
%r# = OpAtomicLoad %uint %q# %uint_1 %sem0";
    let bug = Shader::new()
        .only_at(0, 0, READ_OUT0)
        .only_at(1, 4, READ_OUT0)
        .only_at(1, 5, READ_OUT0)
        .only_at(2, 8, &store_out0(3));
    let fix = Shader::new()
        .only_at(0, 0, load)
        .only_at(1, 4, load)
        .only_at(1, 5, load)
        .only_at(2, 8, add);
    let m = pair("across workgroups, reads", &bug, &fix, [3, 1, 1]);
    assert!(
        m.iter().all(|m| m.contains("workgroups run in no order")),
        "{m:#?}"
    );
}

/// Buffer memory within a workgroup: barrier() (WorkgroupMemory only) does not order it;
/// UniformMemory semantics on the barrier, or on a memory barrier before it, do; UniformMemory
/// without Acquire/Release does not.
#[test]
fn buffer_memory_needs_uniform_memory_semantics() {
    let make = |sem: u32, before: Option<u32>| {
        let s = Shader::new().only(0, &store_out0(5));
        let s = match before {
            Some(m) => s.all(&format!("OpMemoryBarrier %wg %sem{m:x}")),
            None => s,
        };
        s.barrier(sem).only(4, READ_OUT0)
    };
    let m = pair(
        "buffer, barrier()",
        &make(0x108, None),
        &make(0x148, None),
        [1, 1, 1],
    );
    assert!(
        m.iter().all(|m| m.contains("no UniformMemory semantics")),
        "{m:#?}"
    );
    pair(
        "buffer, memoryBarrierBuffer()",
        &make(0x108, None),
        &make(0x108, Some(0x48)),
        [1, 1, 1],
    );
    let m = pair(
        "buffer, relaxed",
        &make(0x140, None),
        &make(0x148, None),
        [1, 1, 1],
    );
    assert!(
        m.iter().all(|m| m.contains("no Acquire/Release semantics")),
        "{m:#?}"
    );
}
