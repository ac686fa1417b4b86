//! Cooperative matrices beyond the GPU reference: every layout on the same programs, the
//! diagnostics, Workgroup scope, element-wise operations and conversions, load-time errors,
//! the views and the portability check.

mod common;

use common::{reference_dir, to_bytes, to_words, words};
use lanescope_core::coopmat::{LayoutChoice, Table};
use lanescope_core::portability;
use lanescope_core::value::{float_from_f64, float_to_f64, ScalarTy};
use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const F16: ScalarTy = ScalarTy::Float { bits: 16 };

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn opts(layout: LayoutChoice) -> LoadOptions {
    LoadOptions {
        coopmat_layout: layout,
        ..LoadOptions::default()
    }
}

fn sim(path: &Path, o: &LoadOptions, buffers: Vec<(u32, Vec<u8>)>) -> Simulator {
    let bytes = std::fs::read(path).unwrap();
    let prog = Arc::new(load(&bytes, o).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    let b = Bindings {
        buffers: buffers.into_iter().map(|(k, d)| (0, k, d)).collect(),
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut s = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(s.run(10_000_000).unwrap(), Outcome::Finished);
    s
}

fn codes(s: &Simulator) -> Vec<String> {
    let mut v: Vec<String> = s.diagnostics().iter().map(|d| d.code.to_string()).collect();
    v.sort();
    v.dedup();
    v
}

fn halves(v: &[f64]) -> Vec<u8> {
    v.iter()
        .flat_map(|x| (float_from_f64(F16, *x) as u16).to_le_bytes())
        .collect()
}

fn read_halves(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(2)
        .map(|c| float_to_f64(F16, u64::from(u16::from_le_bytes([c[0], c[1]]))))
        .collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    to_words(b).iter().map(|w| f32::from_bits(*w)).collect()
}

/// The H100 MulAdd runs give the same result under every layout that supports them: the
/// arithmetic is defined on the logical matrix.
#[test]
fn muladd_is_layout_independent() {
    let mut ran = 0;
    for (shader, run) in [
        ("muladd_f16f16_f32f32_16x16x16", "__exact"),
        ("muladd_s8s8_s32s32_16x16x32", "__random"),
    ] {
        let dir = reference_dir("coopmat");
        let doc: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{shader}{run}.json"))).unwrap(),
        )
        .unwrap();
        for layout in LayoutChoice::builtin() {
            let bytes = std::fs::read(dir.join(format!("{shader}.spv"))).unwrap();
            if load(&bytes, &opts(layout.clone())).is_err() {
                // amd-rdna3 has no 16x32 s8 MatrixA.
                assert!(shader.contains("s8") && layout == LayoutChoice::AmdRdna3);
                continue;
            }
            let bufs = doc["buffers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| {
                    (
                        b["binding"].as_u64().unwrap() as u32,
                        to_bytes(&words(&b["initial"])),
                    )
                })
                .collect();
            let s = sim(
                &dir.join(format!("{shader}.spv")),
                &opts(layout.clone()),
                bufs,
            );
            let want = words(&doc["buffers"][3]["gpu_final"]);
            assert_eq!(
                to_words(s.buffer(0, 3).unwrap()),
                want,
                "{shader} {layout:?}"
            );
            assert!(codes(&s).is_empty());
            ran += 1;
        }
    }
    assert_eq!(ran, 5);
}

fn diag_run(mode: u64, layout: LayoutChoice) -> Simulator {
    let mut o = opts(layout);
    o.spec.insert(0, mode.into());
    let src: Vec<f64> = (0..2048).map(|i| f64::from(i % 64)).collect();
    sim(
        &data("coopmat_diag.spv"),
        &o,
        vec![(0, halves(&src)), (1, vec![0; 2 * 4096])],
    )
}

#[test]
fn diagnostics_of_each_case() {
    let cases: [(u64, &[&str]); 6] = [
        (0, &["coopmat-partial-tangle"]),
        (1, &["coopmat-nonuniform-operand"]),
        (2, &["out-of-bounds"]),
        (3, &["coopmat-nonuniform-operand"]),
        (4, &[]),
        (5, &["coopmat-invalid-stride"]),
    ];
    for (mode, want) in cases {
        let s = diag_run(mode, LayoutChoice::Nvidia);
        assert_eq!(codes(&s), *want, "mode {mode}");
        for d in s.diagnostics() {
            assert!(d.message.len() > 20 && d.instruction > 0, "{d:?}");
        }
    }
    // A partial tangle leaves lanes' elements undefined: poison reaches the store.
    let s = diag_run(0, LayoutChoice::Nvidia);
    assert!(!s.poison_stores().is_empty());
    // Per-lane writes to a replicated layout make the copies of an element disagree.
    let s = diag_run(4, LayoutChoice::AmdRdna3);
    assert_eq!(codes(&s), ["coopmat-replica-mismatch"]);
    // Under nvidia, lane l's component 0 is element (l / 4, 2 (l % 4)): it holds l.
    let s = diag_run(4, LayoutChoice::Nvidia);
    let out = read_halves(s.buffer(0, 1).unwrap());
    for l in 0..32usize {
        assert_eq!(out[(l / 4) * 16 + 2 * (l % 4)], l as f64);
    }
    // The non-uniform stride uses lane 0's (16): a plain copy.
    let s = diag_run(1, LayoutChoice::Portable);
    let out = read_halves(s.buffer(0, 1).unwrap());
    assert_eq!(
        &out[..256],
        &(0..256).map(|i| f64::from(i % 64)).collect::<Vec<_>>()[..]
    );
}

#[test]
fn saturating_overflow_is_reported() {
    let a: Vec<u8> = (0..256).map(|i| if i < 16 { 255 } else { 1 }).collect();
    let b = a.clone();
    let c: Vec<u8> = (0..256u32)
        .flat_map(|i| (if i == 17 { 0xfff0u16 } else { 0 }).to_le_bytes())
        .collect();
    let s = sim(
        &data("coopmat_saturate.spv"),
        &opts(LayoutChoice::Portable),
        vec![(0, a), (1, b), (2, c), (3, vec![0; 512])],
    );
    assert_eq!(codes(&s), ["coopmat-overflow"]);
    let d: Vec<u16> = s
        .buffer(0, 3)
        .unwrap()
        .chunks_exact(2)
        .map(|x| u16::from_le_bytes([x[0], x[1]]))
        .collect();
    // Row 0 x column 0: 16 * 255 * 255 overflows 16 bits (undefined: flagged, and poison).
    assert!(s.poisoned_words(0, 3).contains(&0));
    assert!(s.poison_stores().iter().any(|p| p.binding == Some((0, 3))));
    // Row 1 x column 1 (B column-major, so column 1 is b[16..32]): 16, plus 0xfff0 saturates.
    assert_eq!(d[17], 0xffff);
    // Row 1 x column 2: 16 exactly.
    assert_eq!(d[18], 16);
    // The layout with these types is required: nvidia has no u8 16x16 MatrixA.
    let bytes = std::fs::read(data("coopmat_saturate.spv")).unwrap();
    let e = load(&bytes, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("16x16") && e.contains("portable"), "{e}");
}

#[test]
fn workgroup_scope_spans_the_subgroups() {
    let a: Vec<f64> = (0..256).map(|i| f64::from(i % 7) - 3.0).collect();
    let b: Vec<f64> = (0..256).map(|i| f64::from(i % 5) * 0.5).collect();
    let c: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let s = sim(
        &data("coopmat_workgroup.spv"),
        &opts(LayoutChoice::Portable),
        vec![
            (0, halves(&a)),
            (1, halves(&b)),
            (2, c.iter().flat_map(|x| x.to_le_bytes()).collect()),
            (3, vec![0; 1024]),
            (4, vec![0; 1024]),
        ],
    );
    assert!(codes(&s).is_empty(), "{:?}", s.diagnostics());
    let d = floats(s.buffer(0, 3).unwrap());
    for i in 0..16 {
        for j in 0..16 {
            let want: f64 = (0..16).map(|k| a[i * 16 + k] * b[k * 16 + j]).sum::<f64>()
                + f64::from(c[i * 16 + j]);
            assert_eq!(f64::from(d[i * 16 + j]), want);
        }
    }
    // portable over 64 invocations: element e = i * 64 + L holds L * 100 + i; stored
    // column-major, element (r, c) lands at word c * 16 + r.
    let e = floats(s.buffer(0, 4).unwrap());
    for el in 0..256usize {
        let (r, col) = (el / 16, el % 16);
        let (i, inv) = (el / 64, el % 64);
        assert_eq!(e[col * 16 + r], (inv * 100 + i) as f32);
    }
    // The view of a workgroup value covers both subgroups.
    assert_eq!(s.subgroup_count(), 2);
}

/// A layout where f16 accumulators are the transpose of f32 ones, so f32 -> f16 moves
/// elements between lanes.
fn transposing_table() -> LayoutChoice {
    let comps = |f: &dyn Fn(u32, u32) -> (u32, u32)| -> String {
        let lanes: Vec<String> = (0..32)
            .map(|l| {
                let c: Vec<String> = (0..8)
                    .map(|i| {
                        let (r, col) = f(l, i);
                        format!("[{r},{col}]")
                    })
                    .collect();
                format!("[{}]", c.join(","))
            })
            .collect();
        format!("[{}]", lanes.join(","))
    };
    let rowwise = comps(&|l, i| ((l * 8 + i) / 16, (l * 8 + i) % 16));
    let colwise = comps(&|l, i| ((l * 8 + i) % 16, (l * 8 + i) / 16));
    let text = format!(
        r#"{{"name": "test-transposed", "lanes": 32, "matrices": [
        {{"use": "Accumulator", "rows": 16, "cols": 16, "types": ["f32", "i32"], "components": {rowwise}}},
        {{"use": "Accumulator", "rows": 16, "cols": 16, "types": ["f16"], "components": {colwise}}}]}}"#
    );
    LayoutChoice::Table(Arc::new(Table::from_json(&text).unwrap()))
}

#[test]
fn elementwise_ops_and_conversions_under_every_layout() {
    let c: Vec<f32> = (0..256).map(|i| (i as f32) * 0.25 - 31.875).collect();
    for layout in [
        LayoutChoice::Nvidia,
        LayoutChoice::AmdRdna3,
        LayoutChoice::Portable,
        transposing_table(),
    ] {
        let s = sim(
            &data("coopmat_elementwise.spv"),
            &opts(layout.clone()),
            vec![
                (0, c.iter().flat_map(|x| x.to_le_bytes()).collect()),
                (1, vec![0; 1024]),
                (2, vec![0; 512]),
                (3, vec![0; 1024]),
                (4, vec![0; 1024]),
            ],
        );
        assert!(codes(&s).is_empty(), "{layout:?}: {:?}", s.diagnostics());
        let g = floats(s.buffer(0, 1).unwrap());
        let h = read_halves(s.buffer(0, 2).unwrap());
        let i: Vec<i32> = to_words(s.buffer(0, 3).unwrap())
            .iter()
            .map(|w| *w as i32)
            .collect();
        let q = floats(s.buffer(0, 4).unwrap());
        for e in 0..256 {
            let want = -2.0 * c[e];
            assert_eq!(g[e], want, "{layout:?} g[{e}]");
            // h is stored column-major.
            let (r, col) = (e / 16, e % 16);
            assert_eq!(h[col * 16 + r], f64::from(want), "{layout:?} h");
            assert_eq!(i[e], want.trunc() as i32, "{layout:?} i");
            assert_eq!(q[e], -2.0, "{layout:?} q");
        }
    }
    // Under the table, the f32 -> f16 conversion is a gather/scatter between layouts.
    let bytes = std::fs::read(data("coopmat_elementwise.spv")).unwrap();
    let p = load(&bytes, &opts(transposing_table())).unwrap();
    assert!(p.coop_fragments().len() >= 2);
}

#[test]
fn load_errors_name_the_instruction() {
    let big = std::fs::read(data("coopmat_big.spv")).unwrap();
    let e = load(&big, &LoadOptions::default()).unwrap_err().to_string();
    assert!(e.contains("32x32") && e.contains("`portable`"), "{e}");
    assert!(e.contains("OpTypeCooperativeMatrixKHR"), "{e}");
    assert!(load(&big, &opts(LayoutChoice::Portable)).is_ok());
    let e = load(&big, &opts(LayoutChoice::AmdRdna3))
        .unwrap_err()
        .to_string();
    assert!(e.contains("amd-rdna3"), "{e}");
    let bad = std::fs::read(data("coopmat_bad_k.spv")).unwrap();
    let e = load(&bad, &opts(LayoutChoice::Portable))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("K differs") && e.contains("OpCooperativeMatrixMulAddKHR"),
        "{e}"
    );
    // Subgroup-scope fragments are built for one subgroup size.
    let p = Arc::new(load(&big, &opts(LayoutChoice::Portable)).unwrap());
    let cfg = Config {
        subgroup_size: 64,
        ..Config::default()
    };
    let e = Simulator::new(p, cfg, &Bindings::default()).err().unwrap();
    assert!(e.to_string().contains("subgroup size 32"), "{e}");
}

#[test]
fn views_show_elements_and_holders() {
    // d4 of the H100 set writes l * 8 + i into component i of lane l.
    let dir = reference_dir("coopmat_diag");
    let bytes = std::fs::read(dir.join("d4_write_const_store.spv")).unwrap();
    for layout in [LayoutChoice::Nvidia, LayoutChoice::AmdRdna3] {
        let prog = Arc::new(load(&bytes, &opts(layout.clone())).unwrap());
        let b = Bindings {
            buffers: (0..4).map(|k| (0, k, vec![0u8; 4096])).collect(),
            push_constants: Vec::new(),
            ..Bindings::default()
        };
        let mut s = Simulator::new(Arc::clone(&prog), Config::default(), &b).unwrap();
        s.run(1_000_000).unwrap();
        // The matrix stored is the last coopmat value written before the store.
        let id = prog
            .values()
            .filter(|&(_, t)| {
                matches!(
                    prog.types().get(t),
                    lanescope_core::program::Type::CoopMat(_)
                )
            })
            .map(|(id, _)| id)
            .max()
            .unwrap();
        let v = s.coop_value(0, id).unwrap();
        assert_eq!((v.ty.rows, v.ty.cols), (16, 16));
        assert_eq!(v.layout, layout.name());
        for (e, hs) in v.holders.iter().enumerate() {
            let n = if layout == LayoutChoice::AmdRdna3 {
                2
            } else {
                1
            };
            assert_eq!(hs.len(), n);
            let (l, i) = hs[0];
            let want = if i < 8 { f64::from(l * 8 + i) } else { 0.0 };
            assert_eq!(float_to_f64(F16, v.elements[e]), want);
        }
    }
}

#[test]
fn portability_check_finds_layout_dependent_buffers() {
    // The layout probe writes each lane's components in lane order: layout-dependent.
    let dir = reference_dir("coopmat");
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("layout_A_f16_16x16_rm__rowcode.json")).unwrap(),
    )
    .unwrap();
    let b = Bindings {
        buffers: doc["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    0,
                    x["binding"].as_u64().unwrap() as u32,
                    to_bytes(&words(&x["initial"])),
                )
            })
            .collect(),
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let bytes = std::fs::read(dir.join("layout_A_f16_16x16_rm.spv")).unwrap();
    let r = portability::check(
        &bytes,
        &LoadOptions::default(),
        &Config::default(),
        &b,
        1_000_000,
        &[],
    );
    assert_eq!(r.ran(), 3);
    assert!(!r.portable());
    assert!(r.differences.iter().all(|d| d.binding == 1 && d.words > 0));
    // The MulAdd is portable.
    let bytes = std::fs::read(data("coopmat_elementwise.spv")).unwrap();
    let b = Bindings {
        buffers: (0..5).map(|k| (0, k, vec![0x3f; 1024])).collect(),
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let r = portability::check(
        &bytes,
        &LoadOptions::default(),
        &Config::default(),
        &b,
        1_000_000,
        &[],
    );
    assert_eq!(r.ran(), 3);
    assert!(r.portable(), "{:?}", r.differences);
    // A shape only portable supports: one run, the others skipped with the reason.
    let bytes = std::fs::read(data("coopmat_big.spv")).unwrap();
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 8192])],
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let r = portability::check(
        &bytes,
        &LoadOptions::default(),
        &Config::default(),
        &b,
        1_000_000,
        &[],
    );
    assert_eq!(r.ran(), 1);
    assert!(r.runs[0].skipped.as_ref().unwrap().contains("32x32"));
}

/// The JSON layout shipped in `assets/` parses, and under it the conversion example (whose
/// f16 accumulator is laid out differently from the f32 one) still converts every element.
#[test]
fn asset_layout_table_moves_elements_in_conversions() {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let text = std::fs::read_to_string(assets.join("coopmat_layout_transposed.json")).unwrap();
    let layout = LayoutChoice::Table(Arc::new(Table::from_json(&text).unwrap()));
    let inp: Vec<u8> = (0..64u32).flat_map(u32::to_le_bytes).collect();
    let s = sim(
        &assets.join("coopmat_convert.spv"),
        &opts(layout),
        vec![(0, inp), (1, vec![0; 1024]), (2, vec![0; 1024])],
    );
    // Both subgroups store the same matrices to the same words: a real (if harmless) race,
    // and nothing else.
    assert!(
        codes(&s).iter().all(|c| c == "data-race"),
        "{:?}",
        codes(&s)
    );
    let h = read_halves(&s.buffer(0, 1).unwrap()[..512]);
    let i = to_words(&s.buffer(0, 2).unwrap()[..1024]);
    for e in 0..256 {
        let x = (e as f64 - 100.0) / 4.0;
        assert_eq!(h[e], x);
        assert_eq!(i[e] as i32, x.trunc() as i32);
    }
    let p = s.program();
    assert_eq!(
        p.coop_fragments().len(),
        2,
        "f32/i32 and f16 accumulators differ"
    );
}
