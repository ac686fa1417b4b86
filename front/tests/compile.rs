//! The in-process compilers: WGSL (naga) programs run and checked against models written here,
//! the examples' GLSL (glslang) run against their committed modules, errors with positions.

use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
use lanescope_front::{compile, CompileOptions, Language};
use std::path::Path;
use std::sync::Arc;

fn build(language: Language, source: &str) -> Vec<u8> {
    let opts = CompileOptions {
        file_name: "test".into(),
        ..CompileOptions::default()
    };
    match compile(language, source, &opts) {
        Ok(c) => c.bytes(),
        Err(e) => panic!("compile failed:\n{}", e.render("test", source)),
    }
}

/// Runs `module` with `buffers` at set 0, bindings 0.., and returns the final buffers.
fn run(module: &[u8], buffers: Vec<Vec<u8>>, workgroups: [u32; 3]) -> (Simulator, Vec<Vec<u8>>) {
    let prog = Arc::new(load(module, &LoadOptions::default()).expect("load"));
    let n = buffers.len() as u32;
    let b = Bindings {
        buffers: (0..).zip(buffers).map(|(i, d)| (0, i, d)).collect(),
        ..Bindings::default()
    };
    let cfg = Config {
        workgroups,
        ..Config::default()
    };
    let mut sim = Simulator::new(prog, cfg, &b).expect("simulator");
    assert_eq!(sim.run(10_000_000).expect("run"), Outcome::Finished);
    let out = (0..n)
        .map(|i| sim.buffer(0, i).expect("buffer").to_vec())
        .collect();
    (sim, out)
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A small deterministic generator for inputs.
fn lcg(seed: &mut u64) -> u32 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 33) as u32
}

#[test]
fn wgsl_divergent_branches_with_subgroup_operations() {
    let src = r"
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
    let v = inp[l];
    var r: u32;
    if (v % 3u == 0u) {
        r = subgroupAdd(v);
    } else if (v % 3u == 1u) {
        r = subgroupMax(v) + 1000000u;
    } else {
        r = subgroupBallot(true).x;
    }
    for (var i = 0u; i < v % 4u; i++) {
        r += subgroupShuffle(v, (lane + 1u) % size);
    }
    outp[l] = r;
    outp[64u + l] = size;
}
";
    let module = build(Language::Wgsl, src);
    let mut seed = 7;
    let inp: Vec<u32> = (0..64).map(|_| lcg(&mut seed) % 1000).collect();
    let (_, out) = run(&module, vec![bytes(&inp), vec![0; 128 * 4]], [1, 1, 1]);
    let got = words(&out[1]);
    // The model: subgroups of 32 invocations; in each branch the operation covers the lanes of
    // the subgroup that took the same branch; the loop's shuffles read the next lane's input
    // (every lane reads from a lane still in the loop only when that lane iterates too: the
    // inputs are chosen so reading an exited lane is not needed, checked below).
    for sg in 0..2 {
        let lanes: Vec<usize> = (sg * 32..sg * 32 + 32).collect();
        for &l in &lanes {
            let v = inp[l];
            let same: Vec<u32> = lanes
                .iter()
                .map(|&k| inp[k])
                .filter(|x| x % 3 == v % 3)
                .collect();
            let mut r = match v % 3 {
                0 => same.iter().sum::<u32>(),
                1 => same.iter().max().unwrap() + 1_000_000,
                _ => lanes
                    .iter()
                    .filter(|&&k| inp[k] % 3 == 2)
                    .fold(0u32, |m, &k| m | 1 << (k - sg * 32)),
            };
            let next = sg * 32 + (l - sg * 32 + 1) % 32;
            for i in 0..v % 4 {
                // The next lane must still be looping for its value to be defined.
                if inp[next] % 4 > i {
                    r = r.wrapping_add(inp[next]);
                } else {
                    r = u32::MAX; // undefined here: compared loosely below
                    break;
                }
            }
            if r != u32::MAX {
                assert_eq!(got[l], r, "invocation {l}: input {v}");
            }
            assert_eq!(got[64 + l], 32);
        }
    }
}

#[test]
fn wgsl_packed_integer_dot_products() {
    let src = r"
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> outp: array<u32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    outp[2u * i] = bitcast<u32>(dot4I8Packed(a[i], b[i]));
    outp[2u * i + 1u] = dot4U8Packed(a[i], b[i]);
}
";
    let module = build(Language::Wgsl, src);
    let mut seed = 11;
    let a: Vec<u32> = (0..64).map(|_| lcg(&mut seed)).collect();
    let b: Vec<u32> = (0..64).map(|_| lcg(&mut seed)).collect();
    let (_, out) = run(
        &module,
        vec![bytes(&a), bytes(&b), vec![0; 128 * 4]],
        [2, 1, 1],
    );
    let got = words(&out[2]);
    for i in 0..64 {
        let (x, y) = (a[i].to_le_bytes(), b[i].to_le_bytes());
        let signed: i32 = (0..4)
            .map(|k| i32::from(x[k] as i8) * i32::from(y[k] as i8))
            .sum();
        let unsigned: u32 = (0..4).map(|k| u32::from(x[k]) * u32::from(y[k])).sum();
        assert_eq!(got[2 * i] as i32, signed, "signed dot {i}");
        assert_eq!(got[2 * i + 1], unsigned, "unsigned dot {i}");
    }
}

/// An integer of magnitude below 2048 as f16 bits (exact).
fn f16_of(n: i32) -> u16 {
    if n == 0 {
        return 0;
    }
    let sign = if n < 0 { 0x8000 } else { 0 };
    let m = n.unsigned_abs();
    let e = 31 - m.leading_zeros();
    sign | ((e + 15) << 10 | ((m << (10 - e)) & 0x3ff)) as u16
}

/// f16 bits holding an integer back to it.
fn int_of(h: u16) -> i32 {
    let e = i32::from(h >> 10 & 0x1f);
    if e == 0 {
        return 0;
    }
    let m = i32::from(h & 0x3ff) | 0x400;
    let v = if e >= 25 {
        m << (e - 25)
    } else {
        m >> (25 - e)
    };
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

#[test]
fn wgsl_cooperative_matrix_multiply_add() {
    let src = r"
enable f16;
enable wgpu_cooperative_matrix;

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f16>;

@compute @workgroup_size(32)
fn main() {
    let ma = coopLoad<coop_mat16x16<f16, A>>(&a[0]);
    let mb = coopLoad<coop_mat16x16<f16, B>>(&b[0]);
    let mc = coopLoad<coop_mat16x16<f16, C>>(&c[0]);
    let r = coopMultiplyAdd(ma, mb, mc);
    coopStore(r, &c[0]);
}
";
    let module = build(Language::Wgsl, src);
    // Small integers: every product and partial sum is an integer below 2048, exact in f16
    // whatever the summation order.
    let mut seed = 3;
    let mut gen =
        |n: usize| -> Vec<i32> { (0..n).map(|_| (lcg(&mut seed) % 7) as i32 - 3).collect() };
    let (a, b, c) = (gen(256), gen(256), gen(256));
    let f = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|x| f16_of(*x).to_le_bytes()).collect() };
    let (_, out) = run(&module, vec![f(&a), f(&b), f(&c)], [1, 1, 1]);
    let got: Vec<i32> = out[2]
        .chunks_exact(2)
        .map(|h| int_of(u16::from_le_bytes([h[0], h[1]])))
        .collect();
    // coopLoad without `T` is column-major with the row count as stride: element (row r,
    // column k) of a 16x16 matrix is at k * 16 + r.
    let at = |m: &[i32], r: usize, k: usize| m[k * 16 + r];
    for r in 0..16 {
        for col in 0..16 {
            let want = at(&c, r, col) + (0..16).map(|k| at(&a, r, k) * at(&b, k, col)).sum::<i32>();
            assert_eq!(got[col * 16 + r], want, "element ({r}, {col})");
        }
    }
}

#[test]
fn wgsl_carries_line_information_for_the_source_view() {
    let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\n\
               @compute @workgroup_size(4)\nfn main(@builtin(local_invocation_index) l: u32) {\n\
               \x20   o[l] = l * 2u;\n}\n";
    let module = build(Language::Wgsl, src);
    let prog = load(&module, &LoadOptions::default()).expect("load");
    let store_lines: Vec<u32> = (0..prog.module().len() as u32)
        .filter_map(|i| prog.source_ref(i).line)
        .collect();
    assert!(
        store_lines.contains(&5),
        "no instruction maps to line 5: {store_lines:?}"
    );
}

#[test]
fn wgsl_errors_point_at_the_code() {
    let src = "@compute @workgroup_size(1)\nfn main() {\n    let x: u32 = undefined_name;\n}\n";
    let e = compile(Language::Wgsl, src, &CompileOptions::default()).unwrap_err();
    let d = &e.diagnostics[0];
    assert_eq!((d.line, d.column), (3, 18), "{e:?}");
    assert_eq!(d.len, "undefined_name".len() as u32);
    let text = e.render("x.wgsl", src);
    assert!(text.starts_with("x.wgsl:3:18: "), "{text}");
    assert!(text.contains("undefined_name"), "{text}");

    let e = compile(Language::Wgsl, "fn f() {}\n", &CompileOptions::default()).unwrap_err();
    assert!(e.to_string().contains("@compute"), "{e}");
}

#[test]
fn spirv_assembly_errors_point_at_the_code() {
    let src = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpBogus %1\n";
    let e = compile(Language::SpirvAsm, src, &CompileOptions::default()).unwrap_err();
    let d = &e.diagnostics[0];
    assert_eq!((d.line, d.column), (3, 1), "{e:?}");
    assert!(e.render("x.spvasm", src).starts_with("x.spvasm:3:1: "));
}

#[cfg(not(target_arch = "wasm32"))]
mod glsl {
    use super::*;

    /// GL_EXT_integer_dot_product (the KHR instructions: OpSDot, OpUDot packed, OpSDotAccSat)
    /// with 8- and 16-bit arithmetic, 8-bit buffer storage and 8/16-bit push constants, against
    /// a model.
    #[test]
    fn glsl_integer_dot_products_and_small_types() {
        let src = r#"#version 460
#extension GL_EXT_integer_dot_product : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer B { uint o[]; };
layout(std430, binding = 1) buffer C { int16_t pad; int8_t b8[]; };
layout(push_constant) uniform P { int16_t k; uint8_t u; } pc;
void main() {
    uint l = gl_LocalInvocationIndex;
    i8vec4 a = i8vec4(int8_t(l), int8_t(-2), int8_t(3), int8_t(l - 16u));
    i8vec4 b = i8vec4(int8_t(5), int8_t(l), int8_t(-7), int8_t(1));
    o[4u * l] = uint(dotEXT(a, b));
    o[4u * l + 1u] = dotPacked4x8EXT(l * 0x01010101u, 0x02030405u);
    o[4u * l + 2u] = uint(dotAccSatEXT(a, b, 2147483600));
    int16_t h = int16_t(l) * pc.k + int16_t(b8[l]);
    b8[l] = int8_t(h);
    o[4u * l + 3u] = uint(int(h)) + uint(pc.u);
}
"#;
        let module = build(Language::Glsl, src);
        let prog = Arc::new(load(&module, &LoadOptions::default()).expect("load"));
        let small: Vec<u8> = [0u8, 0]
            .into_iter()
            .chain((0..32).map(|i| (i * 9) as u8))
            .collect();
        let b = Bindings {
            buffers: vec![(0, 0, vec![0; 32 * 16]), (0, 1, small.clone())],
            push_constants: vec![0xfd, 0xff, 7, 0], // k = -3, u = 7
            ..Bindings::default()
        };
        let mut sim = Simulator::new(prog, Config::default(), &b).expect("simulator");
        assert_eq!(sim.run(1_000_000).expect("run"), Outcome::Finished);
        let o = words(sim.buffer(0, 0).unwrap());
        let b8 = sim.buffer(0, 1).unwrap();
        for l in 0..32i32 {
            let a = [l as i8, -2, 3, (l - 16) as i8];
            let bv = [5i8, l as i8, -7, 1];
            let d: i32 = a
                .iter()
                .zip(bv)
                .map(|(x, y)| i32::from(*x) * i32::from(y))
                .sum();
            assert_eq!(o[4 * l as usize] as i32, d, "lane {l}: dotEXT");
            let packed: u32 = [2u32, 3, 4, 5].iter().map(|y| (l as u32 & 0xff) * y).sum();
            assert_eq!(o[4 * l as usize + 1], packed, "lane {l}: dotPacked4x8EXT");
            let sat =
                (i64::from(d) + 2_147_483_600).clamp(i64::from(i32::MIN), i64::from(i32::MAX));
            assert_eq!(
                o[4 * l as usize + 2] as i32 as i64,
                sat,
                "lane {l}: dotAccSatEXT"
            );
            let h = (l as i16)
                .wrapping_mul(-3)
                .wrapping_add(i16::from(small[2 + l as usize] as i8));
            assert_eq!(
                o[4 * l as usize + 3],
                (i32::from(h) + 7) as u32,
                "lane {l}: 16-bit"
            );
            assert_eq!(b8[2 + l as usize], h as i8 as u8, "lane {l}: 8-bit store");
        }
    }

    /// Every example's GLSL, compiled in-process, runs as its committed module does: the same
    /// buffers and the same diagnostics (the committed modules are built by glslang 13.1 and a
    /// script adding maximal reconvergence; the sources ask for it themselves here). Step counts
    /// are not compared: the newer glslang emits a few instructions differently (for example
    /// 1162 against 1168 steps for coopmat_activation) with the same results.
    #[test]
    fn examples_compile_to_modules_that_run_like_the_committed_ones() {
        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
        let mut checked = 0;
        let mut names: Vec<_> = std::fs::read_dir(&assets)
            .expect("assets")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "comp"))
            .collect();
        names.sort();
        for comp in names {
            let source = std::fs::read_to_string(&comp).expect("read");
            let committed = std::fs::read(comp.with_extension("spv")).expect("committed .spv");
            let compiled = build(Language::Glsl, &source);
            let outcome = |module: &[u8]| {
                let prog = Arc::new(load(module, &LoadOptions::default()).expect("load"));
                let b = Bindings::for_example(&prog, 1 << 20).expect("bindings");
                let mut sim = Simulator::new(prog.clone(), Config::default(), &b).expect("sim");
                sim.run(50_000_000).expect("run");
                let buffers: Vec<Vec<u8>> = b
                    .buffers
                    .iter()
                    .map(|(s, n, _)| sim.buffer(*s, *n).expect("buffer").to_vec())
                    .collect();
                let diags: Vec<_> = sim
                    .diagnostics()
                    .iter()
                    .map(|d| (d.code, d.subgroup, d.lanes.clone()))
                    .collect();
                (prog.maximal_reconvergence(), buffers, diags)
            };
            assert_eq!(
                outcome(&compiled),
                outcome(&committed),
                "{}",
                comp.display()
            );
            checked += 1;
        }
        assert!(checked >= 10, "only {checked} examples");
    }

    #[test]
    fn glsl_errors_point_at_the_code() {
        let src = "#version 460\nlayout(local_size_x = 1) in;\nvoid main() {\n    x = 1;\n}\n";
        let e = compile(Language::Glsl, src, &CompileOptions::default()).unwrap_err();
        let d = &e.diagnostics[0];
        assert_eq!(d.line, 4, "{e:?}");
        assert!(d.message.contains("undeclared identifier"), "{e:?}");
        assert!(e.render("x.comp", src).starts_with("x.comp:4:"), "{e:?}");
    }

    #[test]
    fn glsl_output_has_source_lines_and_maximal_reconvergence() {
        let src = "#version 460\n#extension GL_EXT_maximal_reconvergence : require\n\
                   layout(local_size_x = 4) in;\n\
                   layout(set = 0, binding = 0) buffer B { uint o[]; };\n\
                   void main() [[maximally_reconverges]] {\n\
                   \x20   o[gl_LocalInvocationIndex] = 7u;\n}\n";
        let module = build(Language::Glsl, src);
        let prog = load(&module, &LoadOptions::default()).expect("load");
        assert!(prog.maximal_reconvergence());
        let lines: Vec<u32> = (0..prog.module().len() as u32)
            .filter_map(|i| prog.source_ref(i).line)
            .collect();
        assert!(lines.contains(&6), "{lines:?}");
    }
}

#[test]
fn wgsl_subgroup_builtins_match_a_model() {
    let src = r"
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32,
        @builtin(num_subgroups) nsg: u32,
        @builtin(subgroup_id) sgid: u32) {
    let v = inp[l];
    outp[64u * 0u + l] = subgroupAdd(v);
    outp[64u * 1u + l] = subgroupMax(v);
    outp[64u * 2u + l] = subgroupInclusiveAdd(v);
    outp[64u * 3u + l] = subgroupExclusiveAdd(v);
    outp[64u * 4u + l] = subgroupBroadcast(v, 3u);
    outp[64u * 5u + l] = subgroupShuffle(v, (lane + 5u) % size);
    outp[64u * 6u + l] = subgroupShuffleXor(v, 1u);
    outp[64u * 7u + l] = subgroupBallot(v % 2u == 0u).x;
    outp[64u * 8u + l] = quadBroadcast(v, 2u);
    outp[64u * 9u + l] = quadSwapY(v);
    outp[64u * 10u + l] = nsg * 100u + sgid;
    outp[64u * 11u + l] = select(0u, 1u, subgroupAll(v < 40u));
    outp[64u * 12u + l] = subgroupXor(v);
}
";
    let module = build(Language::Wgsl, src);
    let inp: Vec<u32> = (0..64).map(|i| i * 7 % 50).collect();
    let (_, out) = run(&module, vec![bytes(&inp), vec![0; 13 * 64 * 4]], [1, 1, 1]);
    let got = words(&out[1]);
    let row = |k: usize, l: usize| got[64 * k + l];
    for l in 0..64usize {
        let (g, lane) = (l / 32, l % 32);
        let sg: Vec<u32> = inp[g * 32..g * 32 + 32].to_vec();
        assert_eq!(row(0, l), sg.iter().sum::<u32>(), "add {l}");
        assert_eq!(row(1, l), *sg.iter().max().unwrap(), "max {l}");
        assert_eq!(row(2, l), sg[..=lane].iter().sum::<u32>(), "inclusive {l}");
        assert_eq!(row(3, l), sg[..lane].iter().sum::<u32>(), "exclusive {l}");
        assert_eq!(row(4, l), sg[3], "broadcast {l}");
        assert_eq!(row(5, l), sg[(lane + 5) % 32], "shuffle {l}");
        assert_eq!(row(6, l), inp[l ^ 1], "xor shuffle {l}");
        let ballot = (0..32)
            .filter(|j| sg[*j] % 2 == 0)
            .fold(0u32, |m, j| m | 1 << j);
        assert_eq!(row(7, l), ballot, "ballot {l}");
        assert_eq!(row(8, l), inp[(l & !3) + 2], "quad broadcast {l}");
        assert_eq!(row(9, l), inp[l ^ 2], "quad swap y {l}");
        assert_eq!(row(10, l), 200 + g as u32, "subgroup id {l}");
        assert_eq!(row(11, l), u32::from(sg.iter().all(|x| *x < 40)), "all {l}");
        assert_eq!(row(12, l), sg.iter().fold(0, |a, x| a ^ x), "xor {l}");
    }
}
