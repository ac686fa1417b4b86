//! Quad votes (SPV_KHR_quad_control) and partitions with partitioned reductions and scans
//! (SPV_NV_shader_subgroup_partitioned), against a model written here. The module is assembly,
//! assembled in-process (data/asm/quad_partition.spvasm; spirv-val passes it).

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use std::sync::Arc;

fn run(subgroup_size: u32) -> Vec<u32> {
    let text = include_str!("data/asm/quad_partition.spvasm");
    let words = lanescope_core::spvtext::assemble(text, &Default::default()).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0xff; 16 * 8 * 4])],
        ..Bindings::default()
    };
    let config = Config {
        subgroup_size,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, config, &b).unwrap();
    sim.run(100_000).unwrap();
    assert!(sim.is_finished());
    let diags: Vec<_> = sim
        .diagnostics()
        .iter()
        .map(|d| d.message.clone())
        .collect();
    assert!(diags.is_empty(), "{diags:?}");
    sim.buffer(0, 0)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn quad_votes_and_partitions_match_the_model() {
    for sg in [4u32, 8, 16] {
        let out = run(sg);
        for l in 0..16u32 {
            let w = &out[l as usize * 8..l as usize * 8 + 8];
            let quad = l & !3..(l & !3) + 4;
            let p = |x: u32| x != 0 && x != 9;
            assert_eq!(
                w[0],
                u32::from(quad.clone().all(p)),
                "sg{sg} lane {l}: QuadAll"
            );
            assert_eq!(
                w[1],
                u32::from(quad.clone().any(|x| x == 6)),
                "sg{sg} lane {l}: QuadAny"
            );
            // The partition holds the lanes of this subgroup with the same l % 3.
            let first = l / sg * sg;
            let same: Vec<u32> = (first..first + sg).filter(|m| m % 3 == l % 3).collect();
            let bits = same.iter().fold(0u32, |b, m| b | 1 << (m - first));
            assert_eq!(w[2], bits, "sg{sg} lane {l}: partition");
            assert_eq!(w[3], same.iter().sum::<u32>(), "sg{sg} lane {l}: reduce");
            let incl: u32 = same.iter().filter(|m| **m <= l).sum();
            assert_eq!(w[4], incl, "sg{sg} lane {l}: inclusive scan");
            assert_eq!(w[5], incl - l, "sg{sg} lane {l}: exclusive scan");
            // Inside `if (l < 6)` only lanes 0-5 vote: quad 1 is lanes 4 and 5, both true.
            let inside: Vec<u32> = quad.clone().filter(|x| *x < 6).collect();
            let want = if l < 6 {
                u32::from(inside.iter().all(|x| p(*x)))
            } else {
                0xffff_ffff
            };
            assert_eq!(w[6], want, "sg{sg} lane {l}: QuadAll of the active lanes");
            assert_eq!(w[7], 0xffff_ffff, "word 7 is not written");
        }
    }
}

/// An invocation whose Ballot leaves it out of its own partition breaks the extension's rule:
/// a diagnostic, not a silent value.
#[test]
fn a_partition_without_the_invocation_is_a_diagnostic() {
    let text = include_str!("data/asm/quad_partition.spvasm").replace(
        "%red = OpGroupNonUniformIAdd %u32 %c3 PartitionedReduceNV %l %part",
        "%zero4 = OpCompositeConstruct %v4u %c0 %c0 %c0 %c0\n\
         %red = OpGroupNonUniformIAdd %u32 %c3 PartitionedReduceNV %l %zero4",
    );
    let words = lanescope_core::spvtext::assemble(&text, &Default::default()).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 16 * 8 * 4])],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    sim.run(100_000).unwrap();
    let d = sim.diagnostics();
    assert!(
        d.iter()
            .any(|d| d.message.contains("not in its own Ballot's partition")),
        "an invocation outside its own partition is reported: {:?}",
        d.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
}

/// A module using the quad-control execution modes loads: they govern derivatives and helper
/// invocations, which compute does not have.
#[test]
fn quad_control_execution_modes_load() {
    let text = include_str!("data/asm/quad_partition.spvasm").replace(
        "OpExecutionMode %main LocalSize 16 1 1",
        "OpExecutionMode %main LocalSize 16 1 1\nOpExecutionMode %main RequireFullQuadsKHR",
    );
    let words = lanescope_core::spvtext::assemble(&text, &Default::default()).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    load(&bytes, &LoadOptions::default()).unwrap();
}
