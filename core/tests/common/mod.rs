//! Shared helpers for the integration tests: the in-project copy of the GPU reference data.

#![allow(dead_code)]

pub mod pairs;

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub fn reference_dir(group: &str) -> PathBuf {
    // LANESCOPE_REFERENCE points at another copy (e.g. the upstream one) when set.
    let root = std::env::var_os("LANESCOPE_REFERENCE").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference"),
        PathBuf::from,
    );
    root.join(group)
}

/// Words of a buffer description: a plain list, `{words, fill}` or `{words, nonzero: [[i, v]]}`.
pub fn words(v: &Value) -> Vec<u32> {
    if let Some(a) = v.as_array() {
        return a.iter().map(|x| x.as_u64().unwrap() as u32).collect();
    }
    let n = v["words"].as_u64().unwrap() as usize;
    let fill = v.get("fill").and_then(Value::as_u64).unwrap_or(0) as u32;
    let mut out = vec![fill; n];
    if let Some(nz) = v.get("nonzero").and_then(Value::as_array) {
        for p in nz {
            out[p[0].as_u64().unwrap() as usize] = p[1].as_u64().unwrap() as u32;
        }
    }
    out
}

pub fn to_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn to_words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn load_spv(path: &Path) -> lanescope_core::program::Program {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Buffers to bind: (set, binding, initial words).
pub type BufferWords = Vec<(u32, u32, Vec<u32>)>;

/// A recorded run's dispatch and initial buffers.
pub fn reference_inputs(doc: &Value) -> ([u32; 3], BufferWords) {
    let wg: Vec<u32> = doc["workgroups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect();
    let buffers = doc["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["set"].as_u64().unwrap() as u32,
                b["binding"].as_u64().unwrap() as u32,
                words(&b["initial"]),
            )
        })
        .collect();
    ([wg[0], wg[1], wg[2]], buffers)
}

/// Runs a recorded run's shader (in `dir`) on its inputs under `cfg`.
pub fn run_reference(doc: &Value, dir: &Path, cfg: Config) -> Simulator {
    let (wg, buffers) = reference_inputs(doc);
    run(&dir.join(doc["shader"].as_str().unwrap()), wg, buffers, cfg)
}

/// Run a shader with the given buffers; returns the simulator after it finished.
pub fn run(path: &Path, workgroups: [u32; 3], buffers: BufferWords, cfg: Config) -> Simulator {
    let prog = Arc::new(load_spv(path));
    let bindings = Bindings {
        buffers: buffers
            .into_iter()
            .map(|(s, b, w)| (s, b, to_bytes(&w)))
            .collect(),
        push_constants: Vec::new(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config { workgroups, ..cfg }, &bindings).unwrap();
    let out = sim.run(50_000_000).unwrap();
    assert_eq!(
        out,
        lanescope_core::Outcome::Finished,
        "{} did not finish",
        path.display()
    );
    sim
}

/// One probe record of the reconvergence shaders: (probe id, ballot, aux).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub id: u32,
    pub ballot: u64,
    pub aux: u32,
}

pub const REGION: usize = 516;

/// Decode the per-invocation records the `reconv/` shaders write to binding 1.
pub fn probes(out: &[u32], invocation: usize) -> Vec<Probe> {
    let base = invocation * REGION;
    let n = out[base] as usize;
    (0..n.min(128))
        .map(|k| {
            let o = base + 4 + 4 * k;
            Probe {
                id: out[o],
                ballot: u64::from(out[o + 1]) | (u64::from(out[o + 2]) << 32),
                aux: out[o + 3],
            }
        })
        .collect()
}

/// Run a `reconv/` shader with input words `inp` (one per invocation) under `cfg`.
pub fn run_probes(shader: &str, inp: &[u32], cfg: Config) -> Vec<Vec<Probe>> {
    run_probes_at(&reference_dir("reconv").join(shader), inp, cfg)
}

/// Like `run_probes`, for a probe shader anywhere.
pub fn run_probes_at(path: &Path, inp: &[u32], cfg: Config) -> Vec<Vec<Probe>> {
    let path = path.to_path_buf();
    let n = inp.len();
    let sim = run(
        &path,
        [1, 1, 1],
        vec![(0, 0, inp.to_vec()), (0, 1, vec![0; n * REGION])],
        cfg,
    );
    let out = to_words(sim.buffer(0, 1).unwrap());
    (0..n).map(|i| probes(&out, i)).collect()
}

/// Small deterministic generator for test inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}
