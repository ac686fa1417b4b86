//! WGSL's pipeline-overridable constants (`override`): given their values as WebGPU's
//! `constants` gives them (by `@id`, or by name where there is none), the others their
//! initializers (one computed from another included), and every mistake named.

use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
use lanescope_front::{compile, parse_override, CompileError, CompileOptions, Language};
use std::sync::Arc;

const SOURCE: &str = "@id(3) override SCALE: u32 = 2u;
override OFFSET: u32 = 5u;
override TWICE: u32 = OFFSET * 2u;
override NEGATE: bool = false;
override SIZE: u32 = 4u;
@group(0) @binding(0) var<storage, read_write> data: array<i32, 64>;
@compute @workgroup_size(SIZE)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    var v = i32(g.x * SCALE + OFFSET + TWICE);
    if NEGATE { v = -v; }
    data[g.x] = v;
}
";

fn compiled(source: &str, overrides: &[(&str, f64)]) -> Result<Vec<u8>, CompileError> {
    let opts = CompileOptions {
        file_name: "o.wgsl".into(),
        overrides: overrides
            .iter()
            .map(|(k, v)| ((*k).to_string(), *v))
            .collect(),
        ..CompileOptions::default()
    };
    compile(Language::Wgsl, source, &opts).map(|c| c.bytes())
}

/// The first 8 words of binding 0 after one workgroup.
fn run(overrides: &[(&str, f64)]) -> (Vec<i32>, [u32; 3]) {
    let module =
        compiled(SOURCE, overrides).unwrap_or_else(|e| panic!("{}", e.render("o.wgsl", SOURCE)));
    let prog = Arc::new(load(&module, &LoadOptions::default()).expect("load"));
    let size = prog.local_size();
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 256])],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).expect("simulator");
    assert_eq!(sim.run(1_000_000).expect("run"), Outcome::Finished);
    let words = sim.buffer(0, 0).expect("buffer")[..32]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (words, size)
}

#[test]
fn overrides_take_their_initializers_or_the_values_given() {
    let (v, size) = run(&[]);
    assert_eq!(size, [4, 1, 1]);
    assert_eq!(v, [15, 17, 19, 21, 0, 0, 0, 0]);
    // By @id, by name, a boolean, and one an initializer depends on (TWICE follows OFFSET),
    // the workgroup size included.
    let (v, size) = run(&[("3", 10.0), ("OFFSET", 1.0), ("NEGATE", 1.0), ("SIZE", 8.0)]);
    assert_eq!(size, [8, 1, 1]);
    assert_eq!(v, [-3, -13, -23, -33, -43, -53, -63, -73]);
}

fn message(overrides: &[(&str, f64)], source: &str) -> String {
    compiled(source, overrides)
        .map(|_| ())
        .expect_err("refused")
        .render("o.wgsl", source)
}

#[test]
fn each_mistake_is_named() {
    // An override with an @id is keyed by its id.
    let m = message(&[("SCALE", 1.0)], SOURCE);
    assert!(
        m.contains("`SCALE` has @id(3): give its value as `3=VALUE`"),
        "{m}"
    );
    let m = message(&[("WIDTH", 1.0)], SOURCE);
    assert!(m.contains("no override with that @id or name"), "{m}");
    // A value its type cannot hold, with every override's type.
    let m = message(&[("3", -1.0)], SOURCE);
    assert!(
        m.contains("does not fit its type") && m.contains("`SCALE` (u32) = -1"),
        "{m}"
    );
    // No initializer and no value: at the declaration.
    let bare = "override N: u32;\n@group(0) @binding(0) var<storage, read_write> d: array<u32, 4>;\n@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) { d[i] = N; }\n";
    let m = message(&[], bare);
    assert!(
        m.starts_with("o.wgsl:1:1: ") && m.contains("no initializer and no value"),
        "{m}"
    );
    assert!(compiled(bare, &[("N", 7.0)]).is_ok());
}

#[test]
fn override_values_parse_as_webgpu_keys_them() {
    assert_eq!(parse_override("3=7").unwrap(), ("3".into(), 7.0));
    assert_eq!(
        parse_override("SCALE=0x10").unwrap(),
        ("SCALE".into(), 16.0)
    );
    assert_eq!(parse_override("on=true").unwrap(), ("on".into(), 1.0));
    assert_eq!(parse_override("x=-2.5").unwrap(), ("x".into(), -2.5));
    for bad in ["3", "=1", "a-b=1", "x=inf", "x=NaN", "x=seven"] {
        assert!(parse_override(bad).is_err(), "{bad}");
    }
}
