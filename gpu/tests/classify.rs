//! The explanations, checked without a device: the simulation's own words stand in for the
//! device's, with words changed as a device might change them.

mod common;

use common::{simulate, words};
use lanescope_gpu::compare::{compare, prepare, Class, Comparison};
use lanescope_gpu::{DeviceInfo, GpuRun};

/// A device that runs what the simulation runs, at subgroups of 8.
fn device() -> DeviceInfo {
    DeviceInfo {
        name: "stand-in".into(),
        subgroup_size: 8,
        subgroup_operations: vec!["basic"],
        ..DeviceInfo::default()
    }
}

/// The simulation's final buffers as a device run, each passed through `edit(buffer, words)`.
fn device_run(run: &common::Run, resources: &[usize], edit: impl Fn(usize, &mut [u32])) -> GpuRun {
    let buffers = resources
        .iter()
        .enumerate()
        .map(|(k, &ri)| {
            let r = &run.prog.resources()[ri];
            let b = run.sim.resource_buffer(r).expect("bound");
            let mut w: Vec<u32> = b
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            edit(k, &mut w);
            w.iter().flat_map(|x| x.to_le_bytes()).collect()
        })
        .collect();
    GpuRun {
        device: device(),
        subgroup_size: 8,
        buffers,
        without_maximal_reconvergence: false,
        addresses: Vec::new(),
        notes: Vec::new(),
    }
}

/// `run` beside a stand-in device that left its words edited by `edit(buffer, words)`, other
/// words tried under `schedules` schedules.
fn compared(run: &common::Run, schedules: u64, edit: impl Fn(usize, &mut [u32])) -> Comparison {
    let s = run.simulated(schedules);
    let (_, res) = prepare(&s, Vec::new(), &device()).expect("prepares");
    compare(&s, &res, &device_run(run, &res, edit))
}

/// The class word `word` (of any buffer) got, if it differs.
fn class(c: &Comparison, word: usize) -> Option<Class> {
    c.differences
        .iter()
        .find(|d| d.word == word)
        .map(|d| d.class)
}

fn independent() -> common::Run {
    simulate(
        "independent",
        2,
        &[(0, words(128, 1)), (1, vec![0; 1024])],
        8,
    )
}

#[test]
fn identical_words_are_counted_and_nothing_is_listed() {
    let c = compared(&independent(), 4, |_, _| {});
    assert_eq!((c.words, c.identical), (128 + 256, 128 + 256));
    assert!(c.differences.is_empty());
    assert!(Class::ALL.iter().all(|k| c.count(*k) == 0));
}

#[test]
fn a_word_no_explanation_covers_is_unexplained() {
    let c = compared(&independent(), 4, |k, w| {
        if k == 1 {
            w[7] ^= 1;
        }
    });
    assert_eq!(c.count(Class::Unexplained), 1, "{c:#?}");
    let d = &c.differences[0];
    assert_eq!((d.set, d.binding, d.word), (0, 1, 7));
    assert_eq!(d.field.as_deref(), Some("outp[7]"));
}

#[test]
fn a_racing_word_is_explained_by_the_schedule() {
    let run = simulate("race", 2, &[(0, vec![0; 4 * 129])], 8);
    let first_word = |sim: &lanescope_core::Simulator| {
        let b = sim.buffer_element(0, 0, 0).unwrap();
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    };
    let reverse = {
        let cfg = lanescope_core::Config {
            schedule: lanescope_core::Schedule::Reverse,
            ..run.cfg.clone()
        };
        let mut sim = lanescope_core::Simulator::new(run.prog.clone(), cfg, &run.bindings).unwrap();
        sim.run(1_000_000).unwrap();
        first_word(&sim)
    };
    assert_ne!(
        first_word(&run.sim),
        reverse,
        "the schedules disagree on word 0"
    );
    // Another invocation's write left last (the reverse schedule's), and one no schedule of
    // eight leaves: both the order's.
    for (value, reproduced) in [(reverse, true), (77, false)] {
        let c = compared(&run, 8, |_, w| w[0] = value);
        assert_eq!(c.count(Class::Schedule), 1, "{value}: {c:#?}");
        let why = &c.differences[0].why;
        assert_eq!(why.contains("the schedule `"), reproduced, "{why}");
        assert!(why.contains("data race"), "{why}");
    }
    // Its own word, which no other invocation writes, is not.
    let c = compared(&run, 8, |_, w| w[5] += 1);
    assert_eq!(c.count(Class::Unexplained), 1, "{c:#?}");
}

#[test]
fn a_word_poison_reached_is_undefined() {
    let run = simulate("uninit", 1, &[(0, vec![0; 256])], 8);
    // Even invocations read a word nobody wrote; odd ones a written one.
    let c = compared(&run, 2, |_, w| {
        w[4] = 0xdead;
        w[5] = 0xbeef;
    });
    assert_eq!(class(&c, 4), Some(Class::Undefined), "{c:#?}");
    assert_eq!(class(&c, 5), Some(Class::Unexplained), "{c:#?}");
}

#[test]
fn float_words_close_to_the_simulations_are_precision_and_far_ones_are_not() {
    let run = simulate(
        "transcendental",
        1,
        &[(0, words(64, 3)), (1, vec![0; 1024])],
        8,
    );
    let c = compared(&run, 2, |k, w| {
        if k == 1 {
            w[0] += 2; // 2 ulp
            w[1] = (f32::from_bits(w[1]) * 1.5).to_bits();
        }
    });
    assert_eq!(class(&c, 0), Some(Class::Precision), "{c:#?}");
    assert_eq!(class(&c, 1), Some(Class::Unexplained), "{c:#?}");
}

#[test]
fn without_maximal_reconvergence_a_subgroup_result_is_left_open() {
    let run = simulate(
        "divergent_ballot",
        1,
        &[(0, words(64, 9)), (1, vec![0; 256])],
        8,
    );
    let c = compared(&run, 2, |k, w| {
        if k == 1 {
            w[3] ^= 0x10;
        }
    });
    assert_eq!(c.count(Class::LeftOpen), 1, "{c:#?}");
    assert!(c.differences[0].why.contains("MaximallyReconvergesKHR"));
}

#[test]
fn what_the_device_cannot_be_given_is_refused_by_name() {
    let run = simulate("independent", 1, &[(0, words(64, 1)), (1, vec![0; 512])], 8);
    let mut cfg = run.cfg.clone();
    cfg.only_workgroups = vec![[0, 0, 0]];
    let mut s = run.simulated(1);
    s.cfg = &cfg;
    let e = prepare(&s, Vec::new(), &device()).expect_err("refused");
    assert!(e.to_string().contains("--only-workgroup"), "{e}");
}

/// An example from `assets/`, simulated with its app buffers at subgroups of 8.
fn example(name: &str, tangles: lanescope_core::SwitchTangles) -> common::Run {
    let path = format!("{}/../assets/{name}.spv", env!("CARGO_MANIFEST_DIR"));
    common::simulate_file(&path, 1, &[], 8, tangles)
}

#[test]
fn a_switch_grouped_the_other_way_the_specification_allows_is_left_open() {
    use lanescope_core::SwitchTangles;
    let per_case = example("switch_fallthrough", SwitchTangles::PerCase);
    let run = example("switch_fallthrough", SwitchTangles::PerValue);
    let theirs = |k: usize| -> Vec<u32> {
        let r = &per_case.prog.resources()[k];
        lanescope_core::explore::words(per_case.sim.resource_buffer(r).unwrap())
    };
    let s = run.simulated(2);
    let (_, res) = prepare(&s, Vec::new(), &device()).expect("prepares");
    let gpu = device_run(&run, &res, |k, w| w.copy_from_slice(&theirs(res[k])));
    let c = compare(&s, &res, &gpu);
    assert!(c.count(Class::LeftOpen) > 0, "{c:#?}");
    assert_eq!(c.count(Class::LeftOpen), c.words - c.identical, "{c:#?}");
    assert!(c.differences[0].why.contains("per-case"), "{c:#?}");
}

#[test]
fn a_chaotic_float_loop_is_precision_carried_through_its_iterations() {
    use lanescope_core::SwitchTangles;
    let run = example("alu_loop", SwitchTangles::PerValue);
    // What a device that computes fma unfused and its other inexact results at the high edge
    // of their bounds leaves.
    let unfused = lanescope_gpu::precision::variant(&run.spirv, lanescope_gpu::precision::Err::Up)
        .expect("alu_loop has an fma");
    let path = std::env::temp_dir().join(format!("lanescope-variant-{}.spv", std::process::id()));
    std::fs::write(
        &path,
        unfused
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let device_like =
        common::simulate_file(path.to_str().unwrap(), 1, &[], 8, SwitchTangles::PerValue);
    let _ = std::fs::remove_file(&path);
    let s = run.simulated(2);
    let (_, res) = prepare(&s, Vec::new(), &device()).expect("prepares");
    let gpu = device_run(&run, &res, |k, w| {
        let r = &device_like.prog.resources()[res[k]];
        w.copy_from_slice(&lanescope_core::explore::words(
            device_like.sim.resource_buffer(r).unwrap(),
        ));
    });
    let c = compare(&s, &res, &gpu);
    // The f words (slot 1) wander far apart over 256 rounds, yet all are precision.
    assert!(c.count(Class::Precision) > 32, "{c:#?}");
    assert_eq!(c.count(Class::Precision), c.words - c.identical, "{c:#?}");
    assert!(
        c.differences[0].why.contains("the device's value"),
        "{c:#?}"
    );
}

/// Images and samplers are prepared as bound: a combined image sampler as its image (of the
/// bound format and extent, read through a sampler) with the bound sampler; storage images,
/// sampled images and texel buffers of each dimensionality as themselves.
#[test]
fn images_and_samplers_are_prepared_as_bound() {
    use lanescope_core::program::image::{ImageDesc, SamplerDesc, TexelFormat};
    let image = |format: &str, data_len: usize| lanescope_core::ImageBinding {
        set: 0,
        binding: 0,
        element: 0,
        desc: ImageDesc::new(TexelFormat::by_name(format).expect("a format"), [4, 4, 1]),
        data: vec![0; data_len],
    };
    let linear = SamplerDesc::parse("linear,mirror").expect("a sampler");
    let bindings = lanescope_core::Bindings {
        buffers: vec![(0, 1, vec![0; 8 * 16])],
        images: vec![image("rgba8", 64)],
        samplers: vec![(0, 0, linear)],
        ..Default::default()
    };
    let run = common::simulate_bound("sampled", 1, bindings, 8);
    let (dispatch, _) = prepare(&run.simulated(1), Vec::new(), &device()).expect("prepares");
    let tex = dispatch
        .buffers
        .iter()
        .find(|b| b.binding == 0)
        .expect("`tex`");
    assert_eq!(tex.sampler, Some(linear));
    let img = tex.image.expect("an image");
    assert!(img.sampled && !img.integer && img.extent == [4, 4, 1]);

    let mut bindings = lanescope_core::Bindings {
        buffers: vec![(0, 7, vec![0; 64 * 16])],
        ..Default::default()
    };
    for (binding, format, extent, bytes) in [
        (0, "r32ui", [8, 8, 1], 256),
        (1, "rgba8", [8, 8, 1], 256),
        (2, "rgba16f", [8, 8, 4], 2048),
        (3, "r32f", [8, 8, 4], 1024),
        (4, "r32i", [64, 1, 1], 256),
        (5, "rg32ui", [8, 8, 1], 512),
        (6, "r32ui", [64, 1, 1], 256),
    ] {
        bindings.images.push(lanescope_core::ImageBinding {
            set: 0,
            binding,
            element: 0,
            desc: ImageDesc::new(TexelFormat::by_name(format).expect("a format"), extent),
            data: vec![0; bytes],
        });
    }
    let run = common::simulate_bound("images", 1, bindings, 8);
    let (dispatch, _) = prepare(&run.simulated(1), Vec::new(), &device()).expect("prepares");
    let kinds: Vec<_> = dispatch
        .buffers
        .iter()
        .map(|b| {
            b.image
                .map(|i| (i.dim, i.arrayed, i.sampled, i.extent, b.data.len()))
        })
        .collect();
    use lanescope_core::program::image::Dim;
    assert_eq!(
        kinds,
        [
            Some((Dim::D2, false, false, [8, 8, 1], 256)),
            Some((Dim::D2, false, false, [8, 8, 1], 256)),
            Some((Dim::D2, true, false, [8, 8, 4], 2048)),
            Some((Dim::D3, false, false, [8, 8, 4], 1024)),
            Some((Dim::Buffer, false, false, [64, 1, 1], 256)),
            Some((Dim::D2, false, true, [8, 8, 1], 512)),
            Some((Dim::Buffer, false, true, [64, 1, 1], 256)),
            None,
        ]
    );
}
