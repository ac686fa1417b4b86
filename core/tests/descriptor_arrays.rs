//! Descriptor arrays of buffers: each element is a buffer of its own, bound as
//! `Bindings::elements` (element 0 in `buffers`), indexed by constants, a push constant and per
//! invocation. Module: data/buffer_array.comp (glslang 13.1, beside its .spv; spirv-val
//! passes it).

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::sync::Arc;

fn module() -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/data/buffer_array.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn read(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Element k: count 10 + k, then 4 + k data words (k + 1, k + 2, ...).
fn element(k: u32) -> Vec<u8> {
    let mut v = vec![10 + k];
    v.extend((0..4 + k).map(|i| k + 1 + i));
    words(&v)
}

fn bindings(pick: u32) -> Bindings {
    Bindings {
        buffers: vec![(0, 0, element(0)), (0, 1, vec![0; 16 * 4])],
        elements: vec![(0, 0, 1, element(1)), (0, 0, 2, element(2))],
        push_constants: pick.to_le_bytes().to_vec(),
        ..Bindings::default()
    }
}

fn run(b: &Bindings, threads: usize, groups: u32) -> Simulator {
    let prog = Arc::new(load(&module(), &LoadOptions::default()).unwrap());
    let cfg = Config {
        subgroup_size: 4,
        workgroups: [groups, 1, 1],
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, b).unwrap();
    if threads > 1 {
        sim.run_threads(1_000_000, threads).unwrap();
    } else {
        sim.run(1_000_000).unwrap();
    }
    assert!(sim.is_finished());
    sim
}

#[test]
fn each_element_is_its_own_buffer() {
    let prog = load(&module(), &LoadOptions::default()).unwrap();
    let names: Vec<_> = prog
        .resources()
        .iter()
        .filter(|r| r.element.is_some())
        .map(|r| (r.name.as_str(), r.element()))
        .collect();
    assert_eq!(names, [("ins[0]", 0), ("ins[1]", 1), ("ins[2]", 2)]);
    let sim = run(&bindings(1), 1, 1);
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    let out = read(sim.buffer(0, 1).unwrap());
    for i in 0..4u32 {
        let d = |k: u32| k + 1 + i;
        assert_eq!(out[i as usize], d(0) + d(1) * 10 + d(2) * 100, "sums[{i}]");
        assert_eq!(
            out[4 + i as usize],
            d(1),
            "ins[pick].data[{i}], before the write"
        );
        assert_eq!(out[8 + i as usize], 10 + i % 3, "ins[i % 3].count");
        assert_eq!(out[12 + i as usize], 4 + i % 3, "ins[i % 3].data.length()");
    }
    // Only element 1 (the picked one) was written.
    let e1 = read(sim.buffer_element(0, 0, 1).unwrap());
    assert_eq!(e1, [11, 1002, 1003, 1004, 1005, 6]);
    assert_eq!(
        read(sim.buffer_element(0, 0, 0).unwrap()),
        read(&element(0))
    );
    assert_eq!(
        read(sim.buffer_element(0, 0, 2).unwrap()),
        read(&element(2))
    );
    assert_eq!(sim.buffer(0, 0), sim.buffer_element(0, 0, 0));
    // Each element has an address of its own: the binding's window, one after another.
    let a = sim.buffer_addresses();
    let at: Vec<_> = a
        .iter()
        .map(|a| (a.binding, a.element, a.address))
        .collect();
    assert_eq!(
        at,
        [
            (0, 0, 0x1_0000_0000),
            (0, 1, 0x1_0000_0020),
            (0, 2, 0x1_0000_0040),
            (1, 0, 0x2_0000_0000)
        ]
    );
}

#[test]
fn threads_give_the_serial_result() {
    // Eight workgroups each add 1000 to element 2's words (a race the run reports, the same
    // with threads as without).
    let b = bindings(2);
    let (one, two) = (run(&b, 1, 8), run(&b, 2, 8));
    assert_eq!(one.diagnostics().len(), two.diagnostics().len());
    for k in 0..3 {
        assert_eq!(one.buffer_element(0, 0, k), two.buffer_element(0, 0, k));
    }
    assert_eq!(one.buffer(0, 1), two.buffer(0, 1));
}

#[test]
fn an_index_outside_the_array_is_a_diagnostic() {
    let sim = run(&bindings(3), 1, 1);
    let d = sim.diagnostics();
    assert!(
        d.iter()
            .any(|d| d.message.contains("access chain index outside its array")),
        "{d:?}"
    );
}

#[test]
fn every_element_must_be_bound_once() {
    let prog = Arc::new(load(&module(), &LoadOptions::default()).unwrap());
    let err = |b: &Bindings| {
        Simulator::new(Arc::clone(&prog), Config::default(), b)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let mut b = bindings(0);
    b.elements.pop();
    let e = err(&b);
    assert!(
        e.contains("no buffer bound at set 0 binding 0 element 2 (`ins[2]`"),
        "{e}"
    );
    let mut b = bindings(0);
    b.elements.push((0, 0, 1, element(1)));
    let e = err(&b);
    assert!(
        e.contains("set 0 binding 0 element 1 is bound twice"),
        "{e}"
    );
    // An element past the array's end is bound but unused: a warning.
    let mut b = bindings(0);
    b.elements.push((0, 0, 3, element(3)));
    let sim = Simulator::new(Arc::clone(&prog), Config::default(), &b).unwrap();
    assert!(
        sim.warnings().iter().any(|w| w
            .message
            .contains("set 0 binding 0 element 3, which the shader does not declare")),
        "{:?}",
        sim.warnings()
    );
}
