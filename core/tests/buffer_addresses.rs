//! Buffer device addresses (PhysicalStorageBufferAddresses): every bound buffer has a device
//! address, pointers in buffers hold addresses, and accesses through them reach the buffer whose
//! range holds the address. Modules: data/buffer_reference.comp (glslang 13.1, beside its .spv)
//! and data/asm/physical_ptr_chain.spvasm (spirv-val passes both).

use lanescope_core::{
    default_address, load, Bindings, BufferAlias, Config, LoadOptions, RunError, Simulator,
    WarningCode,
};
use std::sync::Arc;

fn glsl_module() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/buffer_reference.spv"
    ))
    .unwrap()
}

fn asm_module() -> Vec<u8> {
    let text = include_str!("data/asm/physical_ptr_chain.spvasm");
    let words = lanescope_core::spvtext::assemble(text, &Default::default()).unwrap();
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

const SRC: u64 = 0x2_0000_0000;
const NODES: u64 = 0x1000;

/// The roots buffer: src, dst, head, counter (as a uvec2), sum, wild.
fn roots(dst: u64, counter: u64, wild: u64) -> Vec<u8> {
    let mut r = Vec::new();
    for v in [SRC, dst, NODES, counter, 0, wild] {
        r.extend_from_slice(&v.to_le_bytes());
    }
    r
}

/// Bindings for the GLSL module: roots at 0:0, src (16 floats) at 0:1, dst (32 floats) at
/// 0:2, the list's three nodes at 0:3 (fixed at 0x1000), and a counter at 5:7, a binding the
/// shader does not declare.
fn glsl_bindings(wild: u64) -> Bindings {
    let src: Vec<u8> = (0..16)
        .flat_map(|i| (i as f32 * 10.0).to_le_bytes())
        .collect();
    // node 0 -> node 2 -> node 1 -> null, values 5, 11, 7.
    let mut nodes = Vec::new();
    for (next, value) in [(NODES + 32, 5u32), (0, 7), (NODES + 16, 11)] {
        nodes.extend_from_slice(&next.to_le_bytes());
        nodes.extend_from_slice(&value.to_le_bytes());
        nodes.extend_from_slice(&[0; 4]);
    }
    let counter = default_address(5, 7).unwrap();
    Bindings {
        buffers: vec![
            (0, 0, roots(default_address(0, 2).unwrap(), counter, wild)),
            (0, 1, src),
            (0, 2, vec![0; 32 * 4]),
            (0, 3, nodes),
            (5, 7, vec![0; 16]),
        ],
        addresses: vec![(0, 3, NODES)],
        ..Bindings::default()
    }
}

fn run(bytes: &[u8], b: &Bindings, threads: usize) -> Simulator {
    let prog = Arc::new(load(bytes, &LoadOptions::default()).unwrap());
    let cfg = Config {
        subgroup_size: 4,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, b).unwrap();
    sim.run_threads(1_000_000, threads).unwrap();
    assert!(sim.is_finished());
    sim
}

#[test]
fn glsl_buffer_references_reach_the_buffers_their_addresses_name() {
    let sim = run(&glsl_module(), &glsl_bindings(0x7_0000_0000), 1);
    let dst: Vec<f32> = words(sim.buffer(0, 2).unwrap())
        .iter()
        .map(|w| f32::from_bits(*w))
        .collect();
    for i in 0..8 {
        assert_eq!(dst[i], i as f32 * 20.0 + i as f32, "dst[{i}]");
        assert_eq!(
            dst[i + 8],
            (i + 2) as f32 * 10.0,
            "dst[{}]: moved by 8 bytes",
            i + 8
        );
        assert_eq!(
            dst[i + 24],
            (100 + i) as f32,
            "dst[{}]: through Word",
            i + 24
        );
    }
    // The atomic went to the undeclared binding through the uvec2-made pointer: 1 + .. + 8.
    assert_eq!(words(sim.buffer(5, 7).unwrap())[0], 36);
    let r = sim.buffer(0, 0).unwrap();
    let sum = u64::from_le_bytes(r[32..40].try_into().unwrap());
    assert_eq!(
        sum,
        NODES + 5 + 11 + 7,
        "the list's head address plus its values"
    );
    // The store through an address no buffer holds: one diagnostic naming the address.
    let d = sim.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code.to_string(), "out-of-bounds");
    assert!(d[0].message.contains("0x700000000"), "{}", d[0].message);
    assert!(
        d[0].message.contains("outside every bound buffer"),
        "{}",
        d[0].message
    );
    // An undeclared binding bound only to give memory an address is not warned about.
    assert!(
        !sim.warnings()
            .iter()
            .any(|w| w.code == WarningCode::UnusedBinding),
        "{:?}",
        sim.warnings()
    );
    let a = sim.buffer_addresses();
    let at = |s, b| a.iter().find(|x| (x.set, x.binding) == (s, b)).unwrap();
    assert_eq!(at(0, 1).address, SRC);
    assert_eq!(at(0, 3).address, NODES);
    assert_eq!(at(0, 3).size, 48);
    assert_eq!(at(5, 7).address, 0x0005_0008_0000_0000);
}

#[test]
fn threads_give_the_serial_result_through_physical_pointers() {
    let b = glsl_bindings(0x7_0000_0000);
    let one = run(&glsl_module(), &b, 1);
    // Eight workgroups of eight, each writing the same words: they overlap, so the parallel run
    // must fall back to the serial one and agree with it.
    for threads in [2, 3] {
        let prog = Arc::new(load(&glsl_module(), &LoadOptions::default()).unwrap());
        let cfg = Config {
            subgroup_size: 4,
            workgroups: [4, 1, 1],
            ..Config::default()
        };
        let mut serial = Simulator::new(Arc::clone(&prog), cfg.clone(), &b).unwrap();
        serial.run(1_000_000).unwrap();
        let mut par = Simulator::new(prog, cfg, &b).unwrap();
        par.run_threads(1_000_000, threads).unwrap();
        for (s, bd) in [(0, 0), (0, 2), (5, 7)] {
            assert_eq!(
                serial.buffer(s, bd),
                par.buffer(s, bd),
                "{s}:{bd}, {threads} threads"
            );
        }
        assert_eq!(words(par.buffer(5, 7).unwrap())[0], 4 * 36);
    }
    assert_eq!(words(one.buffer(5, 7).unwrap())[0], 36);
}

#[test]
fn ptr_access_chain_steps_by_the_pointer_types_array_stride() {
    let data: Vec<u8> = (0u32..16).flat_map(|i| (1000 + i).to_le_bytes()).collect();
    let data_at = 0x10_0000u64;
    let mut root = data_at.to_le_bytes().to_vec();
    root.resize(8 + 32 * 4, 0);
    let b = Bindings {
        buffers: vec![(0, 0, root), (0, 1, data)],
        addresses: vec![(0, 1, data_at)],
        ..Bindings::default()
    };
    let sim = run(&asm_module(), &b, 1);
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    let out = words(&sim.buffer(0, 0).unwrap()[8..]);
    for l in 0..8u32 {
        let w = &out[l as usize * 4..l as usize * 4 + 4];
        assert_eq!(w[0], 1000 + 2 * l, "lane {l}: every other word");
        assert_eq!(w[1], 8 * l, "lane {l}: bytes from the base");
        let addr = u64::from(w[2]) | u64::from(w[3]) << 32;
        assert_eq!(addr, data_at + 8 * u64::from(l), "lane {l}: the address");
    }
}

#[test]
fn a_pointer_stepped_past_its_buffer_reaches_the_buffer_at_that_address() {
    // data is 16 bytes, so lanes 2.. step past it; the next buffer starts right after.
    let data: Vec<u8> = (0u32..4).flat_map(|i| (1000 + i).to_le_bytes()).collect();
    let mut root = 0x2000u64.to_le_bytes().to_vec();
    root.resize(8 + 32 * 4, 0);
    let b = Bindings {
        buffers: vec![(0, 0, root), (0, 1, data), (0, 2, vec![0xff; 64])],
        addresses: vec![(0, 1, 0x2000), (0, 2, 0x2010)],
        ..Bindings::default()
    };
    let sim = run(&asm_module(), &b, 1);
    let out = words(&sim.buffer(0, 0).unwrap()[8..]);
    assert_eq!(out[0], 1000);
    assert_eq!(out[4], 1002);
    // Lane 2 reads 0x2010: the start of binding 2, which holds that address.
    assert_eq!(out[8], 0xffff_ffff);
    let d = sim.diagnostics();
    assert!(d.is_empty(), "{d:?}");
}

fn bind_error(b: &Bindings) -> String {
    let prog = Arc::new(load(&asm_module(), &LoadOptions::default()).unwrap());
    match Simulator::new(prog, Config::default(), b) {
        Err(RunError::Binding { what }) => what,
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("bound"),
    }
}

#[test]
fn addresses_must_be_aligned_apart_and_bound() {
    let base = Bindings {
        buffers: vec![(0, 0, vec![0; 64]), (0, 1, vec![0; 64])],
        ..Bindings::default()
    };
    let with = |a: Vec<(u32, u32, u64)>| Bindings {
        addresses: a,
        ..base.clone()
    };
    let e = bind_error(&with(vec![(0, 1, 0x1008)]));
    assert!(e.contains("not aligned to 16"), "{e}");
    let e = bind_error(&with(vec![(0, 0, 0x1000), (0, 1, 0x1030)]));
    assert!(e.contains("overlap"), "{e}");
    assert!(
        e.contains("set 0 binding 0") && e.contains("set 0 binding 1"),
        "{e}"
    );
    let e = bind_error(&with(vec![(3, 3, 0x1000)]));
    assert!(e.contains("no buffer is bound"), "{e}");
    let e = bind_error(&with(vec![(0, 0, 0)]));
    assert!(e.contains("outside the simulated address space"), "{e}");
    let e = bind_error(&with(vec![(0, 0, 1 << 62)]));
    assert!(e.contains("outside the simulated address space"), "{e}");
    // A descriptor array element's address: bound, aligned, apart from the others.
    let elements = |a: Vec<(u32, u32, u32, u64)>| Bindings {
        elements: vec![(0, 1, 1, vec![0; 64])],
        element_addresses: a,
        ..with(vec![(0, 1, 0x1000)])
    };
    let e = bind_error(&elements(vec![(0, 1, 2, 0x2000)]));
    assert!(
        e.contains("set 0 binding 1 element 2, where no buffer is bound"),
        "{e}"
    );
    let e = bind_error(&elements(vec![(0, 1, 1, 0x2004)]));
    assert!(
        e.contains("set 0 binding 1 element 1 is not aligned"),
        "{e}"
    );
    let e = bind_error(&elements(vec![(0, 1, 1, 0x1020)]));
    assert!(e.contains("overlap") && e.contains("element 1"), "{e}");
    let prog = Arc::new(load(&asm_module(), &LoadOptions::default()).unwrap());
    let sim = Simulator::new(prog, Config::default(), &elements(vec![(0, 1, 1, 0x3000)])).unwrap();
    let at = |e: u32| {
        (sim.buffer_addresses().into_iter())
            .find(|a| (a.set, a.binding, a.element) == (0, 1, e))
            .map(|a| a.address)
    };
    assert_eq!((at(0), at(1)), (Some(0x1000), Some(0x3000)));
    // Adjacent ranges are fine; a buffer bound at two bindings has one address.
    let ok = Bindings {
        aliases: vec![BufferAlias {
            set: 1,
            binding: 0,
            of_set: 0,
            of_binding: 1,
            ..Default::default()
        }],
        ..with(vec![(0, 0, 0x1000), (0, 1, 0x1040)])
    };
    let prog = Arc::new(load(&asm_module(), &LoadOptions::default()).unwrap());
    let sim = Simulator::new(Arc::clone(&prog), Config::default(), &ok).unwrap();
    let a = sim.buffer_addresses();
    assert_eq!(a.len(), 3);
    assert_eq!(a[1].address, 0x1040);
    assert_eq!((a[2].set, a[2].address), (1, 0x1040));
    let clash = Bindings {
        addresses: vec![(0, 1, 0x1040), (1, 0, 0x2000)],
        ..ok
    };
    let e = bind_error(&clash);
    assert!(e.contains("shares the buffer"), "{e}");
}

#[test]
fn a_default_address_moves_out_of_the_way_of_a_fixed_one() {
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 64]), (0, 1, vec![0; 64])],
        addresses: vec![(0, 0, default_address(0, 1).unwrap())],
        ..Bindings::default()
    };
    let prog = Arc::new(load(&asm_module(), &LoadOptions::default()).unwrap());
    let sim = Simulator::new(prog, Config::default(), &b).unwrap();
    let a = sim.buffer_addresses();
    assert_eq!(a[0].address, default_address(0, 1).unwrap());
    assert_ne!(a[1].address, a[0].address);
    assert_eq!(a[1].address % 16, 0);
}

#[test]
fn a_pointer_read_from_memory_past_the_address_space_points_nowhere() {
    // The base pointer's bits say 0x6000..., which as a tagged pointer would name Workgroup
    // memory: as an address it is outside every buffer.
    let mut root = 0x6000_0000_0000_0000u64.to_le_bytes().to_vec();
    root.resize(8 + 32 * 4, 0);
    let b = Bindings {
        buffers: vec![(0, 0, root), (0, 1, vec![0; 64])],
        ..Bindings::default()
    };
    let sim = run(&asm_module(), &b, 1);
    let d = sim.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].message.contains("outside every bound buffer"),
        "{}",
        d[0].message
    );
}

/// An Aligned memory operand the address does not meet is a `misaligned` diagnostic for the
/// lanes concerned; the access still happens (data/buffer_reference_aligned.comp).
#[test]
fn a_device_address_off_its_aligned_operand_is_diagnosed() {
    let bytes = std::fs::read(format!(
        "{}/tests/data/buffer_reference_aligned.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let data_at = default_address(0, 1).unwrap();
    let mut root = data_at.to_le_bytes().to_vec();
    root.resize(16 + 4 * 16, 0);
    let data: Vec<u8> = (0..20u32).flat_map(|w| (100 + w).to_le_bytes()).collect();
    let b = Bindings {
        buffers: vec![(0, 0, root), (0, 1, data)],
        ..Bindings::default()
    };
    let sim = run(&bytes, &b, 1);
    let d = sim.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code.to_string(), "misaligned");
    assert_eq!(d[0].lanes, [3]);
    assert!(
        d[0].message.contains(&format!("{:#x}", data_at + 52))
            && d[0].message.contains("not aligned to 16 bytes"),
        "{}",
        d[0].message
    );
    let out = words(&sim.buffer(0, 0).unwrap()[16..]);
    assert_eq!(&out[..12], (100..112).collect::<Vec<u32>>());
    assert_eq!(
        &out[12..],
        [113, 114, 115, 116],
        "performed at the misaligned address"
    );
}
