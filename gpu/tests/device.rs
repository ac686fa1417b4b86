//! The comparison on the machine's Vulkan device (Mesa's lavapipe wherever the project's set-up
//! ran): each dispatch with the classifications it may get, gated on what the device reports;
//! a case the device cannot run is skipped with the reason, printed.

mod common;

use common::{simulate, words};
use lanescope_gpu::compare::{compare, prepare, Class, Comparison};
use lanescope_gpu::{DeviceInfo, GpuError};

/// The first device, or why there is none (the test then passes, saying so).
fn device() -> Option<DeviceInfo> {
    match lanescope_gpu::devices() {
        Ok(list) => list.into_iter().next(),
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// `name` on the device beside the simulation, at the device's subgroup size.
fn on_device(
    d: &DeviceInfo,
    name: &str,
    workgroups: u32,
    buffers: &[(u32, Vec<u8>)],
) -> Result<Comparison, GpuError> {
    let run = simulate(name, workgroups, buffers, d.subgroup_size);
    let s = run.simulated(8);
    let (dispatch, resources) = prepare(&s, Vec::new(), d)?;
    let gpu = lanescope_gpu::run(&dispatch)?;
    assert_eq!(gpu.subgroup_size, d.subgroup_size);
    Ok(compare(&s, &resources, &gpu))
}

/// `dispatch` on its device, or `None` (saying why) where the device lacks what it needs (a
/// format, a sampler's kind).
fn run_or_skip(dispatch: &lanescope_gpu::Dispatch<'_>) -> Option<lanescope_gpu::GpuRun> {
    match lanescope_gpu::run(dispatch) {
        Err(GpuError::Unsupported(why)) => {
            eprintln!("skipped: {why}");
            None
        }
        other => Some(other.expect("runs")),
    }
}

/// Whether `d` lacks an operation class `subgroup_ops.comp` uses (saying so: the test is
/// skipped).
fn lacks_what_subgroup_ops_uses(d: &DeviceInfo) -> bool {
    let needed = ["arithmetic", "ballot", "shuffle"];
    let missing = needed.iter().find(|o| !d.subgroup_operations.contains(o));
    if let Some(op) = missing {
        eprintln!("skipped: {} has no {op} subgroup operations", d.name);
    }
    missing.is_some()
}

/// Every differing word has one of `allowed` classes; the words compared are all there.
fn only(c: &Comparison, words: usize, allowed: &[Class]) {
    assert_eq!(c.words, words, "{c:#?}");
    for k in Class::ALL {
        if !allowed.contains(&k) {
            assert_eq!(c.count(k), 0, "no word may be {}: {c:#?}", k.name());
        }
    }
}

#[test]
fn the_device_list_names_each_device_and_its_subgroups() {
    let Some(d) = device() else { return };
    assert!(!d.name.is_empty());
    assert!(d.subgroup_size.is_power_of_two(), "{d:?}");
    if let Some([lo, hi]) = d.subgroup_size_range {
        assert!(lo <= d.subgroup_size && d.subgroup_size <= hi, "{d:?}");
    }
    assert!(d.subgroup_operations.contains(&"basic"), "{d:?}");
}

#[test]
fn independent_invocations_leave_every_word_as_simulated() {
    let Some(d) = device() else { return };
    let c = on_device(
        &d,
        "independent",
        4,
        &[(0, words(256, 1)), (1, vec![0; 2048])],
    )
    .unwrap();
    only(&c, 256 + 512, &[]);
}

#[test]
fn subgroup_operations_agree_at_the_devices_subgroup_size() {
    let Some(d) = device() else { return };
    if lacks_what_subgroup_ops_uses(&d) {
        return;
    }
    let c = on_device(
        &d,
        "subgroup_ops",
        2,
        &[(0, words(128, 2)), (1, vec![0; 4 * 768])],
    )
    .unwrap();
    only(&c, 128 + 768, &[]);
}

#[test]
fn a_race_differs_only_as_the_schedule_explains() {
    let Some(d) = device() else { return };
    let c = on_device(&d, "race", 4, &[(0, vec![0; 4 * 257])]).unwrap();
    only(&c, 257, &[Class::Schedule]);
    if let Some(x) = c.differences.first() {
        assert_eq!(x.word, 0, "only the raced word: {c:#?}");
    }
}

#[test]
fn an_undefined_read_differs_only_as_undefined() {
    let Some(d) = device() else { return };
    let c = on_device(&d, "uninit", 2, &[(0, vec![0; 4 * 64])]).unwrap();
    only(&c, 64, &[Class::Undefined]);
    // An odd invocation's word, which a defined write gave, is never among them.
    assert!(c.differences.iter().all(|x| x.word % 2 == 0), "{c:#?}");
}

#[test]
fn transcendentals_differ_only_within_precision() {
    let Some(d) = device() else { return };
    let c = on_device(
        &d,
        "transcendental",
        2,
        &[(0, words(128, 3)), (1, vec![0; 4 * 512])],
    )
    .unwrap();
    only(&c, 128 + 512, &[Class::Precision]);
    // The correctly rounded x * 2 + 1 (every fourth word) is exact, fused or not.
    assert!(c.differences.iter().all(|x| x.word % 4 != 3), "{c:#?}");
}

/// Every operation of Vulkan's precision table, and each it says is inherited, on f32 scalars
/// and vectors and on doubles: what differs is precision, each within its own bound carried
/// through (none unexplained).
#[test]
fn every_bounded_operation_differs_only_within_precision() {
    let Some(d) = device() else { return };
    let c = on_device(
        &d,
        "inexact_all",
        2,
        &[
            (0, words(64, 5)),
            (1, vec![0; 4 * 32 * 64]),
            (2, vec![0; 8 * 2 * 64]),
        ],
    )
    .unwrap();
    only(&c, 64 + 32 * 64 + 2 * 2 * 64, &[Class::Precision]);
    assert!(c.count(Class::Precision) > 0, "{c:#?}");
}

#[test]
fn integer_dot_products_agree_exactly() {
    let Some(d) = device() else { return };
    if !d.integer_dot_product {
        eprintln!("skipped: {} has no integer dot products", d.name);
        return;
    }
    let c = on_device(&d, "dot", 2, &[(0, words(256, 4)), (1, vec![0; 4 * 384])]).unwrap();
    only(&c, 256 + 384, &[]);
}

#[test]
fn a_ballot_without_maximal_reconvergence_is_left_open_where_it_differs() {
    let Some(d) = device() else { return };
    if !d.subgroup_operations.contains(&"ballot") {
        eprintln!("skipped: {} has no ballot", d.name);
        return;
    }
    let c = on_device(
        &d,
        "divergent_ballot",
        2,
        &[(0, words(128, 5)), (1, vec![0; 4 * 128])],
    )
    .unwrap();
    only(&c, 128 + 128, &[Class::LeftOpen]);
}

#[test]
fn an_extension_the_device_lacks_is_named() {
    let Some(d) = device() else { return };
    if d.subgroup_rotate {
        eprintln!("skipped: {} has subgroup rotate", d.name);
        return;
    }
    let e = on_device(&d, "rotate", 1, &[(0, vec![0; 4 * 64])]).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("SPV_KHR_subgroup_rotate") && text.contains("VK_KHR_shader_subgroup_rotate"),
        "{text}"
    );
}

/// Every built-in example on the device: each runs or is refused naming what the device lacks,
/// and no word that runs differs without an explanation.
#[test]
fn every_example_on_the_device_differs_only_with_an_explanation() {
    let Some(d) = device() else { return };
    let dir = format!("{}/../assets", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".spv"))
        .collect();
    names.sort();
    let (mut ran, mut refused) = (0, Vec::new());
    for name in &names {
        let module = std::fs::read(format!("{dir}/{name}")).unwrap();
        let prog = lanescope_core::load(&module, &Default::default()).unwrap();
        let bindings = lanescope_core::Bindings::for_example(&prog, u64::MAX).unwrap();
        let request = lanescope_gpu::Request {
            module,
            load: Default::default(),
            cfg: lanescope_core::Config::default(),
            bindings,
            device: d.index,
            schedules: 4,
            max_steps: 50_000_000,
        };
        match lanescope_gpu::beside(&request) {
            Ok(c) => {
                ran += 1;
                assert_eq!(c.count(Class::Unexplained), 0, "{name}: {c:#?}");
            }
            Err(e) => {
                // What the device lacks, named (an extension, an operation class, a layout).
                assert!(
                    e.contains(" lacks ") || e.contains("does not support in compute shaders"),
                    "{name}: {e}"
                );
                refused.push(format!("{name}: {e}"));
            }
        }
    }
    eprintln!(
        "{ran} of {} examples ran on {}; refused:\n{}",
        names.len(),
        d.name,
        refused.join("\n")
    );
    assert!(ran > 0, "{refused:#?}");
}

#[test]
fn an_operation_class_the_device_lacks_is_named() {
    let Some(d) = device() else { return };
    if d.subgroup_operations.contains(&"clustered") {
        eprintln!("skipped: {} has clustered operations", d.name);
        return;
    }
    let path = format!(
        "{}/../assets/subgroup_reduce.spv",
        env!("CARGO_MANIFEST_DIR")
    );
    let module = std::fs::read(path).unwrap();
    let prog = lanescope_core::load(&module, &Default::default()).unwrap();
    let request = lanescope_gpu::Request {
        bindings: lanescope_core::Bindings::for_example(&prog, u64::MAX).unwrap(),
        module,
        load: Default::default(),
        cfg: lanescope_core::Config::default(),
        device: d.index,
        schedules: 1,
        max_steps: 1_000_000,
    };
    let e = lanescope_gpu::beside(&request).unwrap_err();
    assert!(e.contains("clustered subgroup operations"), "{e}");
}

/// Cooperative matrices beside the device: the layout is measured by the probe (each of the
/// module's matrix types, a valid table), and the tiled f16 example then differs from the
/// simulation under it in no unexplained word (a MulAdd's float order and precision are left
/// open). Skipped where the device has no cooperative matrices (Mesa 22.3's lavapipe).
#[test]
fn cooperative_matrices_run_under_the_layout_measured_on_the_device() {
    let Some(d) = device() else { return };
    if !d.cooperative_matrix {
        eprintln!("skipped: {} has no cooperative matrices", d.name);
        return;
    }
    let module = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/coopmat_tile_f16.spv"
    ))
    .expect("the example");
    let base = lanescope_core::LoadOptions {
        subgroup_size: Some(d.subgroup_size),
        ..Default::default()
    };
    let layout = lanescope_gpu::layout::device_layout(&d, &module, &base, None)
        .expect("measured")
        .expect("the module has cooperative matrices");
    let lanescope_core::coopmat::LayoutChoice::Table(t) = &layout else {
        panic!("a measured table: {layout:?}");
    };
    assert!(t.check().is_ok() && t.matrices.len() >= 3, "{t:?}");
    let prog = lanescope_core::load(&module, &base).expect("loads");
    let c = lanescope_gpu::beside(&lanescope_gpu::Request {
        module: module.clone(),
        load: base.clone(),
        cfg: lanescope_core::Config {
            subgroup_size: d.subgroup_size,
            ..Default::default()
        },
        bindings: lanescope_core::Bindings::for_example(&prog, 1 << 28).expect("buffers"),
        device: d.index,
        schedules: 4,
        max_steps: 10_000_000,
    })
    .expect("compared");
    assert_eq!(c.count(Class::Unexplained), 0, "{c:#?}");
}

/// A descriptor array of buffers runs on the device with one descriptor per element, each
/// element read back and compared: every word as simulated.
#[test]
fn a_descriptor_array_of_buffers_is_bound_element_by_element() {
    let Some(d) = device() else { return };
    let n = 64;
    let bindings = lanescope_core::Bindings {
        buffers: vec![(0, 0, words(n, 7)), (0, 1, vec![0; 4 * n])],
        elements: vec![(0, 1, 1, vec![0; 4 * n]), (0, 1, 2, vec![0; 4 * n])],
        ..Default::default()
    };
    let run = common::simulate_bound("buffer_array", 2, bindings, d.subgroup_size);
    let s = run.simulated(2);
    let (dispatch, resources) = prepare(&s, Vec::new(), &d).expect("prepares");
    assert_eq!(
        dispatch
            .buffers
            .iter()
            .map(|b| (b.binding, b.element))
            .collect::<Vec<_>>(),
        [(0, 0), (1, 0), (1, 1), (1, 2)]
    );
    let gpu = lanescope_gpu::run(&dispatch).expect("runs");
    let c = compare(&s, &resources, &gpu);
    only(&c, 4 * n, &[]);
    assert_eq!(c.identical, 4 * n, "{c:#?}");
}

/// Two bindings given one buffer (`--buffer 0:1=@0:0`) bind one device buffer at both: what
/// one binding wrote is there, compared once.
#[test]
fn bindings_sharing_a_buffer_share_it_on_the_device() {
    let Some(d) = device() else { return };
    let n = 64;
    let mut data = words(n, 9);
    data.resize(8 * n, 0);
    let bindings = lanescope_core::Bindings {
        buffers: vec![(0, 0, data)],
        aliases: vec![lanescope_core::BufferAlias {
            set: 0,
            binding: 1,
            element: 0,
            of_set: 0,
            of_binding: 0,
            of_element: 0,
        }],
        ..Default::default()
    };
    let run = common::simulate_bound("shared_binding", 2, bindings, d.subgroup_size);
    let s = run.simulated(2);
    let (dispatch, resources) = prepare(&s, Vec::new(), &d).expect("prepares");
    assert_eq!(dispatch.buffers[1].shares, Some(0));
    assert_eq!(resources.len(), 1, "the shared buffer is compared once");
    let gpu = lanescope_gpu::run(&dispatch).expect("runs");
    let c = compare(&s, &resources, &gpu);
    only(&c, 2 * n, &[]);
    assert_eq!(c.identical, 2 * n, "{c:#?}");
    // The written half holds 2 src + 1: the write went through the shared buffer.
    let got = &gpu.buffers[0];
    let first = u32::from_le_bytes(got[4 * n..4 * n + 4].try_into().unwrap());
    let src = u32::from_le_bytes(got[..4].try_into().unwrap());
    assert_eq!(first, src.wrapping_mul(2).wrapping_add(1));
}

/// Images of each kind the device binds without a sampler (storage images 2D, 2D array and 3D,
/// one written from floats into a normalized format; storage and uniform texel buffers; a
/// sampled image read by texelFetch) are made from the simulation's texels and read back
/// texel for texel as it left them.
#[test]
fn images_and_texel_buffers_come_back_as_simulated() {
    use lanescope_core::program::image::{ImageDesc, TexelFormat};
    let Some(d) = device() else { return };
    let image = |binding, format: &str, extent: [u32; 3], data: Vec<u8>| {
        let format = TexelFormat::by_name(format).expect("a format");
        lanescope_core::ImageBinding {
            set: 0,
            binding,
            element: 0,
            desc: ImageDesc::new(format, extent),
            data,
        }
    };
    // Small integers, exact in every format they are read as.
    let halves: Vec<u8> = (0..8 * 8 * 4 * 4)
        .flat_map(|k: u16| (0x3c00 + (k % 97) * 4).to_le_bytes())
        .collect();
    let floats: Vec<u8> = (0..8 * 8 * 4)
        .flat_map(|k: u32| (k as f32 * 0.5).to_le_bytes())
        .collect();
    let bindings = lanescope_core::Bindings {
        buffers: vec![(0, 7, vec![0; 64 * 16])],
        images: vec![
            image(0, "r32ui", [8, 8, 1], words(64, 3)),
            image(1, "rgba8", [8, 8, 1], vec![0; 256]),
            image(2, "rgba16f", [8, 8, 4], halves),
            image(3, "r32f", [8, 8, 4], floats),
            image(4, "r32i", [64, 1, 1], words(64, 5)),
            image(5, "rg32ui", [8, 8, 1], words(128, 11)),
            image(6, "r32ui", [64, 1, 1], words(64, 13)),
        ],
        ..Default::default()
    };
    let run = common::simulate_bound("images", 1, bindings, d.subgroup_size);
    let s = run.simulated(2);
    let (dispatch, resources) = match prepare(&s, Vec::new(), &d) {
        Ok(x) => x,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        dispatch
            .buffers
            .iter()
            .filter(|b| b.image.is_some())
            .count(),
        7
    );
    let Some(gpu) = run_or_skip(&dispatch) else {
        return;
    };
    let c = compare(&s, &resources, &gpu);
    // 64 + 64 + 512 + 256 + 64 + 128 + 64 texel words, and the buffer's 256.
    let total = 64 + 64 + 512 + 256 + 64 + 128 + 64 + 256;
    only(&c, total, &[]);
    assert_eq!(c.identical, total, "{c:#?}");
}

/// Samplers on the device: a linear one between texels, whose words may differ only as the
/// device's sub-texel precision explains, and a nearest one at texel centres, exact.
#[test]
fn sampled_reads_differ_only_within_the_devices_filtering_precision() {
    use lanescope_core::program::image::{ImageDesc, SamplerDesc, TexelFormat};
    let Some(d) = device() else { return };
    let image = |binding, format: &str, data: Vec<u8>| lanescope_core::ImageBinding {
        set: 0,
        binding,
        element: 0,
        desc: ImageDesc::new(TexelFormat::by_name(format).expect("a format"), [8, 8, 1]),
        data,
    };
    let floats: Vec<u8> = (0..64u32)
        .flat_map(|k| (k as f32 * 0.25 - 3.0).to_le_bytes())
        .collect();
    let sampler = |text| SamplerDesc::parse(text).expect("a sampler");
    let bindings = lanescope_core::Bindings {
        buffers: vec![(0, 3, vec![0; 128 * 16])],
        images: vec![image(0, "rgba8", words(64, 21)), image(1, "r32f", floats)],
        samplers: vec![
            (0, 0, sampler("linear,repeat")),
            (0, 2, sampler("nearest,clamp")),
        ],
        ..Default::default()
    };
    let run = common::simulate_bound("sampling", 1, bindings, d.subgroup_size);
    let s = run.simulated(2);
    let (dispatch, resources) = prepare(&s, Vec::new(), &d).expect("prepares");
    let at = |binding| {
        let b = dispatch.buffers.iter().find(|b| b.binding == binding);
        b.map(|b| (b.image.is_some(), b.sampler.is_some()))
    };
    assert_eq!(
        [at(0), at(1), at(2)],
        [Some((true, true)), Some((true, false)), Some((false, true))]
    );
    let Some(gpu) = run_or_skip(&dispatch) else {
        return;
    };
    let c = compare(&s, &resources, &gpu);
    // The two images' texel words and the output's.
    only(&c, 64 + 64 + 128 * 4, &[Class::Precision]);
    // The nearest reads (odd vec4s) are exact.
    for diff in &c.differences {
        assert!(
            diff.binding == 3 && diff.word % 8 < 4,
            "only linear reads may differ: {diff:#?}"
        );
    }
    eprintln!(
        "linear filtering: {} words identical, {} within the device's {} sub-texel bits",
        c.identical,
        c.count(Class::Precision),
        d.sub_texel_bits
    );
}

/// The bindings of `addresses.comp`: push constants holding the addresses of the words in
/// binding 1 and of a list's head in binding 3, the declared buffer holding the address of the
/// output words in binding 2; the list's four nodes link in a ring. `src` is binding 1's
/// contents.
fn address_bindings(src: Vec<u8>, head: u64) -> lanescope_core::Bindings {
    use lanescope_core::default_address;
    let at = |b| default_address(0, b).unwrap();
    let mut out = vec![0u8; 200];
    out[192..].copy_from_slice(&at(2).to_le_bytes());
    let mut nodes = Vec::new();
    for j in 0..4u64 {
        nodes.extend((at(3) + 16 * ((j + 1) % 4)).to_le_bytes());
        nodes.extend((10 * j as u32 + 1).to_le_bytes());
        nodes.extend(0u32.to_le_bytes());
    }
    let mut push = at(1).to_le_bytes().to_vec();
    push.extend(head.to_le_bytes());
    lanescope_core::Bindings {
        buffers: vec![(0, 0, out), (0, 1, src), (0, 2, vec![0; 64]), (0, 3, nodes)],
        push_constants: push,
        ..Default::default()
    }
}

/// Buffers reached by device address: the device places them where it likes, so the inputs'
/// addresses (in push constants, a declared buffer and a list in memory) are moved to the
/// device's buffers, and the simulation compared runs at the device's addresses: every word
/// agrees, the addresses written out included.
#[test]
fn buffers_reached_by_address_are_placed_by_the_device_and_agree() {
    let Some(d) = device() else { return };
    let head = lanescope_core::default_address(0, 3).unwrap();
    let bindings = address_bindings(words(16, 5), head);
    let run = common::simulate_bound("addresses", 1, bindings, d.subgroup_size);
    let s = run.simulated(2);
    let (dispatch, resources) = prepare(&s, Vec::new(), &d).expect("prepares");
    // The three undeclared buffers go to the device without descriptors.
    let undeclared: Vec<u32> = dispatch
        .buffers
        .iter()
        .filter(|b| b.undeclared)
        .map(|b| b.binding)
        .collect();
    assert_eq!(undeclared, [1, 2, 3]);
    let Some(gpu) = run_or_skip(&dispatch) else {
        return;
    };
    assert_eq!(gpu.addresses.len(), 4, "{:?}", gpu.addresses);
    assert!(
        gpu.addresses
            .iter()
            .all(|(slot, a)| Some(*a) != lanescope_core::default_address(slot.0, slot.1)),
        "the device picks its own addresses: {:?}",
        gpu.addresses
    );
    let c = compare(&s, &resources, &gpu);
    // 200 bytes of binding 0, 16 words of binding 1, 16 of binding 2, 16 of binding 3.
    only(&c, 50 + 16 + 16 + 16, &[]);
    assert_eq!(c.identical, c.words, "{c:#?}");
    assert!(
        c.notes[0].contains("7 input words holding addresses were moved"),
        "{:?}",
        c.notes
    );
    assert_eq!(c.notes.len(), 1, "{:?}", c.notes);
    // The addresses written out are the device's: each invocation's node, in binding 3.
    let at3 = gpu.addresses.iter().find(|(s, _)| s.1 == 3).unwrap().1;
    for i in 0..16u64 {
        let got = u64::from_le_bytes(gpu.buffers[0][i as usize * 8..][..8].try_into().unwrap());
        assert_eq!(got, at3 + 16 * ((i % 4 + 1) % 4), "invocation {i}");
    }
    // The output words, through the address binding 0 held.
    let dst = &gpu.buffers[gpu.buffers.len() - 2];
    assert_eq!(
        dst[..4],
        (u32::from_le_bytes(words(1, 5)[..4].try_into().unwrap()).wrapping_mul(3)).to_le_bytes()
    );
}

/// A word of data that lies inside a buffer's address range is moved with the addresses: the
/// run with the buffers elsewhere tells, and the comparison's notes say where.
#[test]
fn data_taken_for_an_address_is_noted() {
    let Some(d) = device() else { return };
    let head = lanescope_core::default_address(0, 3).unwrap();
    // Words 0 and 1 of binding 1 read as a 64-bit word: binding 1's own address plus 4.
    let mut src = words(16, 5);
    src[..8].copy_from_slice(&(lanescope_core::default_address(0, 1).unwrap() + 4).to_le_bytes());
    let run = common::simulate_bound("addresses", 1, address_bindings(src, head), d.subgroup_size);
    let s = run.simulated(2);
    let (dispatch, resources) = prepare(&s, Vec::new(), &d).expect("prepares");
    let Some(gpu) = run_or_skip(&dispatch) else {
        return;
    };
    let c = compare(&s, &resources, &gpu);
    assert_eq!(
        c.identical, c.words,
        "the device and the simulation got the same words: {c:#?}"
    );
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("may be data") && n.contains("set 0 binding 0")),
        "{:?}",
        c.notes
    );
}

/// An address outside every buffer faults on a device: the dispatch is refused before it runs,
/// naming the address.
#[test]
fn an_address_outside_every_buffer_is_refused_before_the_device_runs() {
    let Some(d) = device() else { return };
    let wild = 0x40_0000_0000u64;
    let run = common::simulate_bound(
        "addresses",
        1,
        address_bindings(words(16, 5), wild),
        d.subgroup_size,
    );
    let s = run.simulated(2);
    let e = prepare(&s, Vec::new(), &d)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("outside every bound buffer") && e.contains("0x4000000008"),
        "{e}"
    );
}

/// A device whose API cannot fix the subgroup size (WebGPU's case) is compared with the
/// simulation at each size it may run: the size the device ran at is the one whose simulation
/// agrees (here the device's default, the dispatch asking for none), and the others are noted.
#[test]
fn an_unfixed_subgroup_size_is_found_by_the_simulation_that_agrees() {
    let Some(d) = device() else { return };
    if lacks_what_subgroup_ops_uses(&d) {
        return;
    }
    let path = format!("{}/tests/data/subgroup_ops.spv", env!("CARGO_MANIFEST_DIR"));
    let request = lanescope_gpu::Request {
        module: std::fs::read(path).unwrap(),
        load: lanescope_core::LoadOptions::default(),
        cfg: lanescope_core::Config {
            workgroups: [2, 1, 1],
            ..lanescope_core::Config::default()
        },
        bindings: lanescope_core::Bindings {
            buffers: vec![(0, 0, words(128, 2)), (0, 1, vec![0; 4 * 768])],
            ..lanescope_core::Bindings::default()
        },
        device: d.index,
        schedules: 4,
        max_steps: lanescope_core::DEFAULT_MAX_STEPS,
    };
    // As WebGPU sees the device: a range, and no way to ask for one size of it.
    let unfixed = DeviceInfo {
        subgroup_size_range: None,
        ..d.clone()
    };
    let sizes = lanescope_gpu::sizes_within([4, 64]);
    assert_eq!(sizes, [4, 8, 16, 32, 64]);
    let tries = lanescope_gpu::Candidates::new(&request, &unfixed, &sizes).expect("simulates");
    let (dispatch, resources) = tries.dispatch().expect("prepares");
    assert_eq!(
        dispatch.subgroup_size, None,
        "the dispatch asks for no size"
    );
    let gpu = lanescope_gpu::run(&dispatch).expect("runs");
    let c = tries.finish(&resources, &gpu);
    assert_eq!(c.subgroup_size, d.subgroup_size, "{c:#?}");
    only(&c, 128 + 768, &[]);
    assert_eq!(c.identical, c.words, "{c:#?}");
    let note = c.notes.last().expect("a note of the sizes tried");
    assert!(
        note.contains("simulated at 4, 8, 16, 32 and 64")
            && note.contains(&format!(
                "agree best with the simulation at {},",
                d.subgroup_size
            )),
        "{note}"
    );
    // Every other size leaves words the simulation cannot explain (gl_SubgroupSize is written
    // out), so the choice is not a tie.
    assert!(!note.contains("as well as another"), "{note}");

    // A module whose words do not depend on the size agrees at every size.
    let path = format!("{}/tests/data/independent.spv", env!("CARGO_MANIFEST_DIR"));
    let independent = lanescope_gpu::Request {
        module: std::fs::read(path).unwrap(),
        cfg: lanescope_core::Config {
            workgroups: [4, 1, 1],
            ..lanescope_core::Config::default()
        },
        bindings: lanescope_core::Bindings {
            buffers: vec![(0, 0, words(256, 1)), (0, 1, vec![0; 2048])],
            ..lanescope_core::Bindings::default()
        },
        ..request
    };
    let tries = lanescope_gpu::Candidates::new(&independent, &unfixed, &[4, 8]).expect("simulates");
    let (dispatch, resources) = tries.dispatch().expect("prepares");
    let c = tries.finish(&resources, &lanescope_gpu::run(&dispatch).expect("runs"));
    assert_eq!(c.identical, c.words, "{c:#?}");
    assert!(
        c.notes
            .last()
            .is_some_and(|n| n.contains("do not depend on it")),
        "{:?}",
        c.notes
    );
}

/// Descriptor array elements reached by device address: the device places each element where
/// it likes, the addresses of elements 1 and 2 in the push constants move with them, and the
/// simulation compared runs with the elements at the device's addresses.
#[test]
fn descriptor_array_elements_reached_by_address_agree() {
    let Some(d) = device() else { return };
    let bound = |push: Vec<u8>| lanescope_core::Bindings {
        buffers: vec![(0, 0, vec![0; 64])],
        elements: vec![(0, 0, 1, words(16, 9)), (0, 0, 2, vec![0; 64])],
        push_constants: push,
        ..Default::default()
    };
    // Where the simulation places the elements, for the push constants to point at.
    let first = common::simulate_bound("elements", 1, bound(vec![0; 16]), d.subgroup_size);
    let at = |e: u32| {
        (first.sim.buffer_addresses().into_iter())
            .find(|a| (a.set, a.binding, a.element) == (0, 0, e))
            .unwrap()
            .address
    };
    let mut push = at(1).to_le_bytes().to_vec();
    push.extend(at(2).to_le_bytes());
    let run = common::simulate_bound("elements", 1, bound(push), d.subgroup_size);
    let s = run.simulated(2);
    let (dispatch, resources) = prepare(&s, Vec::new(), &d).expect("prepares");
    assert_eq!(
        dispatch
            .buffers
            .iter()
            .filter(|b| b.address.is_some())
            .count(),
        3,
        "every element has an address on the device"
    );
    let Some(gpu) = run_or_skip(&dispatch) else {
        return;
    };
    let c = compare(&s, &resources, &gpu);
    only(&c, 3 * 16, &[]);
    assert_eq!(c.identical, c.words, "{c:#?}");
    assert!(
        c.notes[0].contains("2 input words holding addresses were moved"),
        "{:?}",
        c.notes
    );
    // Element 2 was written through its address: 2 x element 1 + 1 on the device too.
    let one = words(16, 9);
    let two = &gpu.buffers[2];
    for i in 0..16 {
        let w = |b: &[u8]| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!(w(two), w(&one).wrapping_mul(2).wrapping_add(1), "word {i}");
    }
}
