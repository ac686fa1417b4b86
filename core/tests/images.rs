//! Images: storage images in several formats (read, write, size, atomics), texel buffers, and
//! sampled images (texelFetch; textureLod with nearest and linear filtering under each address
//! mode, on 2D, 2D array, 3D and cube images, with combined and separate samplers), against a
//! model; and the packed formats. Modules: data/image_*.comp (glslang 13.1, beside their .spv;
//! spirv-val passes them).

use lanescope_core::program::image::{AddressMode, Filter, ImageDesc, SamplerDesc, TexelFormat};
use lanescope_core::{load, Bindings, Config, ImageBinding, LoadOptions, RunError, Simulator};
use std::sync::Arc;

fn module(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn image(set: u32, binding: u32, format: &str, extent: [u32; 3], data: Vec<u8>) -> ImageBinding {
    ImageBinding {
        set,
        binding,
        element: 0,
        desc: ImageDesc::new(TexelFormat::by_name(format).unwrap(), extent),
        data,
    }
}

fn f32s(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn run(name: &str, b: &Bindings) -> Simulator {
    let prog = Arc::new(load(&module(name), &LoadOptions::default()).unwrap());
    let cfg = Config {
        subgroup_size: 8,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, b).unwrap();
    sim.run(1_000_000).unwrap();
    assert!(sim.is_finished());
    sim
}

fn half(x: f32) -> u16 {
    // Exact for the small integers the test uses.
    let (m, e) = (x.abs(), x.abs().log2().floor() as i32);
    if x == 0.0 {
        return 0;
    }
    let frac = ((m / 2f32.powi(e) - 1.0) * 1024.0) as u16;
    (u16::from(x < 0.0) << 15) | (((e + 15) as u16) << 10) | frac
}

fn storage_bindings() -> Bindings {
    let counts: Vec<u8> = (0..16u32).flat_map(|i| (i * 100).to_le_bytes()).collect();
    let colors: Vec<u8> = (0..64u32).map(|i| (i * 4 + 1) as u8).collect();
    // 2x2 texels of 4 channels per layer: layer 0 holds 1..=16, layer 1 zeros.
    let layers: Vec<u8> = (0..32u32)
        .flat_map(|i| half(if i < 16 { i as f32 + 1.0 } else { 0.0 }).to_le_bytes())
        .collect();
    let ints: Vec<u8> = (0..16i32).flat_map(|i| (i * 3 - 7).to_le_bytes()).collect();
    let table: Vec<u8> = (0..32u32).flat_map(|i| (i * 11).to_le_bytes()).collect();
    Bindings {
        buffers: vec![(0, 6, vec![0; 16 + 16 * 8])],
        images: vec![
            image(0, 0, "r32ui", [4, 4, 1], counts),
            image(0, 1, "rgba8", [4, 4, 1], colors),
            image(0, 2, "r32f", [4, 4, 1], vec![0; 64]),
            image(0, 3, "rgba16f", [2, 2, 2], layers),
            image(0, 4, "r32i", [16, 1, 1], ints),
            image(0, 5, "rg32ui", [16, 1, 1], table),
        ],
        ..Bindings::default()
    }
}

#[test]
fn storage_images_and_texel_buffers_read_write_and_count() {
    let sim = run("image_storage.spv", &storage_bindings());
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    let counts = words(sim.buffer(0, 0).unwrap());
    let colors = sim.buffer(0, 1).unwrap();
    let floats = words(sim.buffer(0, 2).unwrap());
    for y in 0..4u32 {
        for x in 0..4u32 {
            let i = (y * 4 + x) as usize;
            assert_eq!(counts[i], i as u32 * 100 + x + 1, "counts ({x}, {y})");
            assert_eq!(
                f32::from_bits(floats[i]),
                (x * 10 + y) as f32,
                "floats ({x}, {y})"
            );
            for c in 0..4 {
                let before = (i * 4 + c) as u32 * 4 + 1;
                assert_eq!(
                    u32::from(colors[i * 4 + c]),
                    255 - before,
                    "colors ({x}, {y}).{c}"
                );
            }
        }
    }
    let layers = sim.buffer(0, 3).unwrap();
    for k in 0..16 {
        let v = u16::from_le_bytes([layers[32 + 2 * k], layers[33 + 2 * k]]);
        assert_eq!(v, half(2.0 * (k as f32 + 1.0)), "layer 1 channel {k}");
    }
    let ints = words(sim.buffer(0, 4).unwrap());
    for (i, v) in ints.iter().enumerate() {
        assert_eq!(*v as i32, -(i as i32 * 3 - 7));
    }
    let out = words(sim.buffer(0, 6).unwrap());
    assert_eq!(&out[..4], &[4, 4, 2, 16], "imageSize");
    for i in 0..16u32 {
        assert_eq!(
            &out[4 + 2 * i as usize..6 + 2 * i as usize],
            &[2 * i * 11, (2 * i + 1) * 11]
        );
    }
}

#[test]
fn an_image_access_outside_the_image_is_a_diagnostic_naming_the_texel() {
    // A 4x3 colors image: row 3 is outside.
    let mut b = storage_bindings();
    b.images[1] = image(0, 1, "rgba8", [4, 3, 1], vec![7; 48]);
    let sim = run("image_storage.spv", &b);
    let d = sim.diagnostics();
    assert!(!d.is_empty());
    assert!(
        d.iter()
            .any(|d| d.message.contains("texel (0, 3)") && d.message.contains("4x3x1 rgba8")),
        "{d:?}"
    );
}

fn bind_error(name: &str, b: &Bindings) -> String {
    let prog = Arc::new(load(&module(name), &LoadOptions::default()).unwrap());
    match Simulator::new(prog, Config::default(), b) {
        Err(RunError::Binding { what }) => what,
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("bound"),
    }
}

#[test]
fn images_must_match_their_declarations() {
    let mut b = storage_bindings();
    b.images[0] = image(0, 0, "r32f", [4, 4, 1], vec![0; 64]);
    let e = bind_error("image_storage.spv", &b);
    assert!(e.contains("declared r32ui") && e.contains("r32f"), "{e}");
    let mut b = storage_bindings();
    b.images[1].data.pop();
    let e = bind_error("image_storage.spv", &b);
    assert!(e.contains("64 bytes, but its data has 63"), "{e}");
    let mut b = storage_bindings();
    b.images[2] = image(0, 2, "r32f", [4, 2, 2], vec![0; 64]);
    let e = bind_error("image_storage.spv", &b);
    assert!(e.contains("WIDTHxHEIGHTx1"), "{e}");
    let mut b = storage_bindings();
    let img = b.images.remove(4);
    b.buffers.push((0, 4, img.data));
    let e = bind_error("image_storage.spv", &b);
    assert!(
        e.contains("takes an image, and a buffer is bound there"),
        "{e}"
    );
    let mut b = storage_bindings();
    b.images.remove(0);
    let e = bind_error("image_storage.spv", &b);
    assert!(e.contains("no image bound at set 0 binding 0"), "{e}");
}

// The sampled-image model.

const AT: [[f32; 4]; 8] = [
    [0.125, 0.125, 0.0, 0.0],
    [0.25, 0.125, 1.0, 1.0],
    [0.45, 1.4, 2.0, 0.3],
    [-0.1, 1.2, 3.0, 3.0],
    [0.9, 0.85, 1.6, 0.75],
    [0.55, 0.05, 2.4, 0.2],
    [1.3, -0.4, 5.0, 1.0],
    [0.1, 0.5, 0.49, 0.6],
];

fn tex_value(x: i64, y: i64) -> f32 {
    (x + 10 * y) as f32
}

fn wrap(i: i64, n: i64, mode: AddressMode) -> Option<i64> {
    match mode {
        AddressMode::ClampToEdge => Some(i.max(0).min(n - 1)),
        AddressMode::Repeat => Some(((i % n) + n) % n),
        AddressMode::MirroredRepeat => {
            let t = ((i % (2 * n)) + 2 * n) % (2 * n);
            Some(if t < n { t } else { 2 * n - 1 - t })
        }
        AddressMode::ClampToBorder => (i >= 0 && i < n).then_some(i),
    }
}

/// Filters `f(texel)` over axes of `sizes` at normalised `u`.
fn filter(s: &SamplerDesc, u: &[f32], sizes: &[i64], f: &dyn Fn(&[i64]) -> f32) -> f32 {
    let axes = u.len();
    let mut total = 0.0f64;
    let corners = if s.filter == Filter::Linear {
        1 << axes
    } else {
        1
    };
    for k in 0..corners {
        let mut w = 1.0f64;
        let mut at = vec![0i64; axes];
        let mut border = false;
        for a in 0..axes {
            let t = f64::from(u[a]) * sizes[a] as f64;
            let (i, wt) = if s.filter == Filter::Linear {
                let t = t - 0.5;
                let second = k >> a & 1 == 1;
                let fr = t - t.floor();
                (
                    t.floor() as i64 + i64::from(second),
                    if second { fr } else { 1.0 - fr },
                )
            } else {
                (t.floor() as i64, 1.0)
            };
            w *= wt;
            match wrap(i, sizes[a], s.address) {
                Some(i) => at[a] = i,
                None => border = true,
            }
        }
        if !border {
            total += w * f64::from(f(&at));
        }
    }
    total as f32
}

fn cube_face([x, y, z]: [f32; 3]) -> u32 {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if ax >= ay && ax >= az {
        u32::from(x < 0.0)
    } else if ay >= az {
        2 + u32::from(y < 0.0)
    } else {
        4 + u32::from(z < 0.0)
    }
}

fn sampled_bindings(s: SamplerDesc) -> Bindings {
    let tex = f32s((0..16).map(|i| tex_value(i % 4, i / 4)));
    let arr = f32s((0..12).map(|i| (i / 4 * 100 + i % 2 + 10 * (i / 2 % 2)) as f32));
    let vol = f32s((0..8).map(|i| (i % 2 + 10 * (i / 2 % 2) + 100 * (i / 4)) as f32));
    let cube = f32s((0..6).map(|f| f as f32 * 1000.0));
    Bindings {
        buffers: vec![
            (0, 6, f32s(AT.iter().flatten().copied())),
            (0, 7, vec![0; 8 * 6 * 16]),
        ],
        images: vec![
            image(0, 0, "r32f", [4, 4, 1], tex.clone()),
            image(0, 1, "r32f", [2, 2, 3], arr),
            image(0, 2, "r32f", [2, 2, 2], vol),
            image(0, 3, "r32f", [1, 1, 6], cube),
            image(0, 4, "r32f", [4, 4, 1], tex),
        ],
        samplers: (0..6).map(|b| (0, b, s)).collect(),
        ..Bindings::default()
    }
}

#[test]
fn sampled_images_filter_and_address_as_the_sampler_says() {
    for filter_mode in [Filter::Nearest, Filter::Linear] {
        for address in [
            AddressMode::ClampToEdge,
            AddressMode::Repeat,
            AddressMode::MirroredRepeat,
            AddressMode::ClampToBorder,
        ] {
            let s = SamplerDesc {
                filter: filter_mode,
                address,
                unnormalized: false,
            };
            let sim = run("image_sampled.spv", &sampled_bindings(s));
            let out: Vec<f32> = words(sim.buffer(0, 7).unwrap())
                .iter()
                .map(|w| f32::from_bits(*w))
                .collect();
            let what = format!("{filter_mode:?} {address:?}");
            let close = |got: f32, want: f32, k: &str| {
                assert!(
                    (got - want).abs() < 1e-4,
                    "{what} {k}: got {got}, want {want}"
                );
            };
            for (i, a) in AT.iter().enumerate() {
                let o = |k: usize, c: usize| out[(i * 6 + k) * 4 + c];
                let tex = filter(&s, &a[..2], &[4, 4], &|t| tex_value(t[0], t[1]));
                close(o(0, 0), tex, &format!("lane {i} tex"));
                // Alpha is 1 inside the image and 0 in the (transparent black) border.
                let alpha = filter(&s, &a[..2], &[4, 4], &|_| 1.0);
                close(o(0, 3), alpha, &format!("lane {i} tex alpha"));
                close(o(5, 0), tex, &format!("lane {i} separate sampler"));
                let (fx, fy) = (a[2] as i64, a[3] as i64);
                let fetch = if fx < 4 && fy < 4 {
                    tex_value(fx, fy)
                } else {
                    0.0
                };
                close(o(1, 0), fetch, &format!("lane {i} fetch"));
                let layer = (a[2].round_ties_even().clamp(0.0, 2.0)) as i64;
                let arr = filter(&s, &a[..2], &[2, 2], &|t| {
                    (layer * 100 + t[0] + 10 * t[1]) as f32
                });
                close(o(2, 0), arr, &format!("lane {i} array"));
                let vol = filter(&s, &[a[0], a[1], a[3]], &[2, 2, 2], &|t| {
                    (t[0] + 10 * t[1] + 100 * t[2]) as f32
                });
                close(o(3, 0), vol, &format!("lane {i} 3D"));
                let face = cube_face([a[0] - 0.5, a[1] - 0.5, a[3] - 0.5]);
                close(o(4, 0), face as f32 * 1000.0, &format!("lane {i} cube"));
            }
            // Lane 6 fetches (5, 1), outside the 4x4 image.
            let d = sim.diagnostics();
            assert_eq!(d.len(), 1, "{what}: {d:?}");
            assert!(
                d[0].message.contains("texel fetch at texel (5, 1)"),
                "{}",
                d[0].message
            );
            assert_eq!(d[0].lanes, vec![6]);
        }
    }
}

#[test]
fn a_sampler_must_be_bound() {
    let mut b = sampled_bindings(SamplerDesc::default());
    b.samplers.retain(|(_, binding, _)| *binding != 5);
    let e = bind_error("image_sampled.spv", &b);
    assert!(e.contains("no sampler bound at set 0 binding 5"), "{e}");
}

#[test]
fn sampler_and_format_names_parse() {
    assert_eq!(
        SamplerDesc::parse("linear,mirror").unwrap(),
        SamplerDesc {
            filter: Filter::Linear,
            address: AddressMode::MirroredRepeat,
            unnormalized: false
        }
    );
    assert!(SamplerDesc::parse("cubic,clamp")
        .unwrap_err()
        .contains("nearest or linear"));
    assert!(SamplerDesc::parse("linear,wrap")
        .unwrap_err()
        .contains("repeat"));
    assert_eq!(
        TexelFormat::by_name("rgba8_snorm").unwrap().name,
        "rgba8snorm"
    );
    assert_eq!(TexelFormat::by_name("R32UI").unwrap().texel_bytes(), 4);
    assert!(TexelFormat::by_name("r11g11b10f").is_none());
}

#[test]
fn multisampled_images_keep_each_sample() {
    let mut desc = ImageDesc::new(TexelFormat::by_name("r32ui").unwrap(), [2, 2, 1]);
    desc.samples = 4;
    let b = Bindings {
        buffers: vec![(0, 1, vec![0; 20])],
        images: vec![ImageBinding {
            set: 0,
            binding: 0,
            element: 0,
            desc,
            data: vec![0; 64],
        }],
        ..Bindings::default()
    };
    let sim = run("image_multisample.spv", &b);
    let texels = words(sim.buffer(0, 0).unwrap());
    for i in 0..4u32 {
        for s in 0..4u32 {
            let want = i * 10 + s + if s == 1 { 100 } else { 0 };
            assert_eq!(texels[(i * 4 + s) as usize], want, "texel {i} sample {s}");
        }
    }
    let out = words(sim.buffer(0, 1).unwrap());
    assert_eq!(out[0], 4, "imageSamples");
    for i in 0..4u32 {
        assert_eq!(out[1 + i as usize], 4 * i * 10 + 6 + 100);
    }
    // The write to sample 4: one diagnostic for the four invocations, nothing written.
    let d = sim.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].message.contains("sample 4 (of 4)"), "{}", d[0].message);
    assert_eq!(d[0].lanes, vec![0, 1, 2, 3]);
    // A single-sampled image is not a multisampled one.
    let mut single = b.clone();
    single.images[0].desc.samples = 1;
    single.images[0].data.truncate(16);
    let e = bind_error("image_multisample.spv", &single);
    assert!(e.contains("1 sample per texel"), "{e}");
}

#[test]
fn a_sampler_buffer_is_a_texel_buffer_without_a_sampler() {
    let b = Bindings {
        buffers: vec![(0, 1, vec![0; 16])],
        images: vec![image(0, 0, "r32f", [4, 1, 1], f32s([1.0, 2.0, 3.0, 4.0]))],
        ..Bindings::default()
    };
    let sim = run("image_sampler_buffer.spv", &b);
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    let out: Vec<f32> = words(sim.buffer(0, 1).unwrap())
        .iter()
        .map(|w| f32::from_bits(*w))
        .collect();
    assert_eq!(out, [2.0, 4.0, 6.0, 8.0]);
}

/// Packed formats (data/image_packed.comp): R11fG11fB10f's unsigned small floats round to
/// nearest even, clamp negatives to 0 and overflow to infinity; Rgb10A2 is unorm; Rgb10a2ui
/// keeps the low bits of each channel. The small-float results are worked out by hand.
#[test]
fn packed_formats_pack_round_and_unpack() {
    let src: [[f32; 4]; 8] = [
        [1.0, 0.5, -2.0, 1.0],
        [0.0, 65024.0, 70000.0, 0.0],
        [2f32.powi(-16), 2f32.powi(-16), 2f32.powi(-16), 0.5],
        [
            1.0 + 1.0 / 128.0,
            1.0 + 3.0 / 128.0,
            1.0 + 3.0 / 128.0,
            0.34,
        ],
        [100.3, 0.1, 3.0, 0.66],
        [-0.0, 1e-9, 0.75, 0.2],
        [65535.0, 64000.0, 64600.0, 1.5],
        [2f32.powi(-10), 5.5, 0.3, -1.0],
    ];
    let inf = f32::INFINITY;
    let small: [[f32; 3]; 8] = [
        [1.0, 0.5, 0.0],
        [0.0, 65024.0, inf],
        [2f32.powi(-16), 2f32.powi(-16), 2f32.powi(-16)],
        [1.0, 1.03125, 1.03125],
        [100.0, 0.099609375, 3.0],
        [0.0, 0.0, 0.75],
        [inf, 64000.0, 64512.0],
        [2f32.powi(-10), 5.5, 0.296875],
    ];
    let texels = |format: &str| image(0, 0, format, [8, 1, 1], vec![0; 32]);
    let mut images = vec![
        texels("r11fg11fb10f"),
        texels("rgb10a2"),
        texels("rgb10a2ui"),
    ];
    for (k, img) in images.iter_mut().enumerate() {
        img.binding = k as u32;
    }
    let b = Bindings {
        buffers: vec![
            (0, 3, f32s(src.iter().flatten().copied())),
            (0, 4, vec![0; 3 * 8 * 16]),
        ],
        images,
        ..Bindings::default()
    };
    let sim = run("image_packed.spv", &b);
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    let out = words(sim.buffer(0, 4).unwrap());
    let unorm = |x: f32, bits: u32| {
        let m = ((1u32 << bits) - 1) as f64;
        ((f64::from(x).clamp(0.0, 1.0) * m).round_ties_even() / m) as f32
    };
    for i in 0..8 {
        let t = &src[7 - i];
        let got = |base: usize, c: usize| out[base + i * 4 + c];
        for (c, want) in small[7 - i].iter().enumerate() {
            assert_eq!(
                f32::from_bits(got(0, c)),
                *want,
                "r11fg11fb10f texel {} channel {c}",
                7 - i
            );
        }
        assert_eq!(f32::from_bits(got(0, 3)), 1.0, "r11fg11fb10f has no alpha");
        for (c, x) in t.iter().enumerate() {
            let bits = if c == 3 { 2 } else { 10 };
            assert_eq!(
                f32::from_bits(got(32, c)),
                unorm(*x, bits),
                "rgb10a2 texel {} channel {c}",
                7 - i
            );
            let ui = ((x.abs() * 100.0) as u32) & ((1 << bits) - 1);
            assert_eq!(got(64, c), ui, "rgb10a2ui texel {} channel {c}", 7 - i);
        }
    }
    // The words in memory: r in the low bits. Texel 0 of rgb10a2ui is 100, 50, 200 and 0.
    let ui = words(sim.buffer(0, 2).unwrap());
    assert_eq!(ui[0], 100 | 50 << 10 | 200 << 20);
    // R11fG11fB10f texel 0: 1.0 is 15 << 6, 0.5 is 14 << 6, and blue is 0.
    let sf = words(sim.buffer(0, 0).unwrap());
    assert_eq!(sf[0], (15 << 6) | (14 << 6) << 11);
}

/// Arrays of image descriptors (data/image_array.comp): each element is an image of its own,
/// bound with `ImageBinding::element`; one sampler serves every element of a binding.
#[test]
fn arrays_of_images_pick_an_image_per_index() {
    let element =
        |binding: u32, element: u32, format: &str, extent: [u32; 3], data: Vec<u8>| ImageBinding {
            element,
            ..image(0, binding, format, extent, data)
        };
    // Texture k holds 100k + x + 10y in every channel; table k holds 1000k + x.
    let texture = |k: u32| {
        let v: Vec<f32> = (0..8u32)
            .flat_map(|t| [(100 * k + t % 4 + 10 * (t / 4)) as f32; 4])
            .collect();
        element(1, k, "rgba32f", [4, 2, 1], f32s(v))
    };
    let table = |k: u32| {
        element(
            2,
            k,
            "r32f",
            [4, 1, 1],
            f32s((0..4).map(|x| (1000 * k + x) as f32)),
        )
    };
    let pick = 2u32;
    let b = Bindings {
        buffers: vec![(0, 3, vec![0; 3 * 4 * 16])],
        images: vec![
            element(0, 0, "r32ui", [4, 2, 1], vec![0; 32]),
            element(0, 1, "r32ui", [4, 2, 1], vec![0; 32]),
            texture(0),
            texture(1),
            texture(2),
            table(0),
            table(1),
        ],
        samplers: vec![(0, 1, SamplerDesc::parse("nearest,clamp").unwrap())],
        push_constants: pick.to_le_bytes().to_vec(),
        ..Bindings::default()
    };
    let sim = run("image_array.spv", &b);
    assert!(sim.diagnostics().is_empty(), "{:?}", sim.diagnostics());
    let c0 = words(sim.buffer_element(0, 0, 0).unwrap());
    let c1 = words(sim.buffer_element(0, 0, 1).unwrap());
    assert_eq!(
        c0,
        [10, 0, 12, 0, 77, 0, 0, 0],
        "lanes 0 and 2, and the store at (0, 1)"
    );
    assert_eq!(c1, [0, 11, 0, 13, 0, 0, 0, 0], "lanes 1 and 3");
    let out: Vec<f32> = words(sim.buffer(0, 3).unwrap())
        .iter()
        .map(|w| f32::from_bits(*w))
        .collect();
    for i in 0..4u32 {
        let at = |k: usize| &out[k * 16 + i as usize * 4..k * 16 + i as usize * 4 + 4];
        let f = (100 * (i % 3) + i) as f32;
        assert_eq!(at(0), [f; 4], "texelFetch(textures[{}])", i % 3);
        let s = (100 * pick + i) as f32;
        assert_eq!(at(1), [s; 4], "textureLod(textures[pick])");
        let t = (1000 * (i % 2) + i) as f32;
        assert_eq!(at(2), [t, 0.0, 0.0, 1.0], "texelFetch(table[{}])", i % 2);
    }
}
