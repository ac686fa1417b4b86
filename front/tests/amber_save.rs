//! Sessions saved as AmberScript (`to_amber`): each parses back and runs, in Lanescope's own
//! runner, to the buffers the session had; descriptor arrays, push constants, specialization and
//! shared bindings kept; a script reduced to the words a report names.

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator, SpecValue};
use lanescope_front::amber::{
    self, parse, to_amber, types::DataType, Compile, CompileError, RunOptions, SaveBuffer,
    SaveSession, SaveShader, Settings, ShaderFormat, Status,
};
use std::collections::BTreeMap;
use std::sync::Arc;

mod common;
use common::{dir, words_of, Prebuilt};

/// Always the same module.
struct Fixed(Vec<u32>);

impl Compile for Fixed {
    fn compile(
        &self,
        _: ShaderFormat,
        _: &str,
        _: Option<&str>,
        _: &str,
    ) -> Result<Vec<u32>, CompileError> {
        Ok(self.0.clone())
    }
}

fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs a session directly on the simulator: the final bytes of each (set, binding).
fn simulate(s: &SaveSession) -> Vec<Vec<u8>> {
    let bytes: Vec<u8> = s
        .shader
        .words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let opts = LoadOptions {
        spec: s.spec.clone(),
        subgroup_size: s.settings.subgroup_size,
        ..LoadOptions::default()
    };
    let prog = Arc::new(load(&bytes, &opts).unwrap());
    let cfg = Config {
        workgroups: s.workgroups,
        subgroup_size: s.settings.subgroup_size.unwrap_or(32),
        ..Config::default()
    };
    let b = Bindings {
        buffers: s
            .buffers
            .iter()
            .filter(|b| b.array_element == 0)
            .map(|b| (b.set, b.binding, b.data.clone()))
            .collect(),
        elements: s
            .buffers
            .iter()
            .filter(|b| b.array_element > 0)
            .map(|b| (b.set, b.binding, b.array_element, b.data.clone()))
            .collect(),
        aliases: s.aliases.clone(),
        push_constants: s.push_constants.clone(),
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, cfg, &b).unwrap();
    sim.run(1_000_000).unwrap();
    s.buffers
        .iter()
        .map(|b| {
            sim.buffer_element(b.set, b.binding, b.array_element)
                .unwrap()
                .to_vec()
        })
        .collect()
}

fn round_trip(mut s: SaveSession) {
    let out = simulate(&s);
    for (b, o) in s.buffers.iter_mut().zip(&out) {
        b.expect = Some(o.clone());
    }
    let text = to_amber(&s);
    let script = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let ex = amber::execute(
        &script,
        &Fixed(s.shader.words.clone()),
        &RunOptions::default(),
    );
    assert_eq!(
        ex.report.status,
        Status::Pass,
        "{}\n{text}",
        ex.report.to_text()
    );
    for (b, o) in s.buffers.iter().zip(&out) {
        let name = match b.array_element {
            0 => format!("buf_{}_{}", b.set, b.binding),
            e => format!("buf_{}_{}_{e}", b.set, b.binding),
        };
        assert_eq!(ex.buffer(&name).unwrap(), o.as_slice(), "{name}\n{text}");
    }
    assert_eq!(
        ex.report.runs[0].subgroup_size,
        s.settings.subgroup_size.unwrap_or(32)
    );
}

fn buffer(binding: u32, data: Vec<u8>, element: Option<&str>) -> SaveBuffer {
    SaveBuffer {
        set: 0,
        binding,
        array_element: 0,
        uniform: false,
        data,
        element: element.map(|t| DataType::parse(t).unwrap()),
        expect: None,
        expect_only: None,
    }
}

/// A session with descriptor arrays saves each element as a buffer of its own, bound with
/// `BIND BUFFER_ARRAY`, and runs back to the same results.
#[test]
fn a_saved_session_keeps_descriptor_arrays() {
    let words = words_of(&dir().join("shaders/buffer_array.spv"));
    let element = |binding: u32, k: u32, data: Vec<u8>, uniform: bool| SaveBuffer {
        array_element: k,
        uniform,
        ..buffer(binding, data, None)
    };
    let session = SaveSession {
        shader: SaveShader {
            format: ShaderFormat::SpirvHex,
            text: String::new(),
            target_env: None,
            words,
        },
        entry: None,
        buffers: vec![
            element(0, 0, u32_bytes(&[1, 2, 3, 4]), false),
            element(1, 0, u32_bytes(&[3, 0, 0, 0]), true),
            element(0, 1, u32_bytes(&[5, 6, 7, 8]), false),
            element(0, 2, u32_bytes(&[10, 20, 30, 40]), false),
            element(1, 1, u32_bytes(&[100, 0, 0, 0]), true),
        ],
        aliases: Vec::new(),
        push_constants: Vec::new(),
        push_constant_type: None,
        spec: BTreeMap::new(),
        workgroups: [1, 1, 1],
        settings: Settings::default(),
    };
    let text = to_amber(&session);
    assert!(
        text.contains(
            "BIND BUFFER_ARRAY buf_0_0 buf_0_0_1 buf_0_0_2 AS storage DESCRIPTOR_SET 0 BINDING 0"
        ),
        "{text}"
    );
    assert!(
        text.contains("BIND BUFFER_ARRAY buf_0_1 buf_0_1_1 AS uniform DESCRIPTOR_SET 0 BINDING 1"),
        "{text}"
    );
    assert_eq!(simulate(&session)[3], u32_bytes(&[32, 62, 92, 122]));
    round_trip(session);
}

#[test]
fn a_saved_session_parses_back_and_runs_to_the_same_buffers() {
    let add = words_of(&dir().join("shaders/add.spv"));
    let source = std::fs::read_to_string(dir().join("shaders/add.comp")).unwrap();
    let settings = Settings {
        subgroup_size: Some(16),
        switch_tangles: Some(lanescope_core::SwitchTangles::PerCase),
        sibling_order: Some(lanescope_core::SiblingOrder::LowestLane),
        coopmat_layout: Some(lanescope_core::coopmat::LayoutChoice::Nvidia),
    };
    let session = SaveSession {
        shader: SaveShader {
            format: ShaderFormat::Glsl,
            text: source,
            target_env: None,
            words: add.clone(),
        },
        entry: None,
        buffers: vec![
            buffer(0, u32_bytes(&[1, 2, 3, 4, 5, 6, 7, 8]), None),
            buffer(1, u32_bytes(&[0; 8]), None),
            // Infinity and NaN cannot be written as float text: saved as words instead.
            buffer(
                2,
                f32_bytes(&[1.0, -0.1, f32::INFINITY, f32::NAN, 3.5, 1e-3, 0.0, 2.0]),
                Some("float"),
            ),
            buffer(3, u32_bytes(&[9; 8]), Some("int32")),
        ],
        aliases: Vec::new(),
        push_constants: Vec::new(),
        push_constant_type: None,
        spec: BTreeMap::new(),
        workgroups: [2, 1, 1],
        settings,
    };
    let text = to_amber(&session);
    assert!(text.contains(
        "# lanescope: subgroup-size=16 switch-tangles=per-case sibling-order=lowest-lane coopmat-layout=nvidia"
    ));
    assert!(
        text.contains("BUFFER buf_0_3 DATA_TYPE int32 DATA\n9 9"),
        "{text}"
    );
    assert!(
        text.contains("BUFFER buf_0_2 DATA_TYPE uint32 DATA"),
        "{text}"
    );
    let back = parse(&text).unwrap();
    assert_eq!(back.settings.subgroup_size, Some(16));
    assert_eq!(
        back.settings.switch_tangles,
        session.settings.switch_tangles
    );
    round_trip(session.clone());

    // Finite floats stay floats.
    let mut floats = session;
    floats.buffers[2].data = f32_bytes(&[1.0, -0.1, 0.3, 1e-7, 3.5, 1e-3, 0.0, 2.0]);
    assert!(to_amber(&floats).contains("BUFFER buf_0_2 DATA_TYPE float DATA"));
    round_trip(floats);
}

#[test]
fn a_saved_session_keeps_push_constants_specialization_and_shared_bindings() {
    let spec = words_of(&dir().join("shaders/spec.spv"));
    let text = std::fs::read_to_string(dir().join("shaders/spec.spvasm")).unwrap();
    let mut values = BTreeMap::new();
    values.insert(0, SpecValue::Bits(3));
    values.insert(1, SpecValue::Text("0.5".into()));
    let session = SaveSession {
        shader: SaveShader {
            format: ShaderFormat::SpirvAsm,
            text,
            target_env: Some("spv1.3".into()),
            words: spec.clone(),
        },
        entry: Some("main".into()),
        buffers: vec![
            buffer(0, u32_bytes(&[0, 0]), None),
            buffer(1, f32_bytes(&[0.0, 0.0]), Some("float")),
        ],
        aliases: Vec::new(),
        push_constants: u32_bytes(&[5]),
        push_constant_type: None,
        spec: values,
        workgroups: [1, 1, 1],
        settings: Settings::default(),
    };
    let saved = to_amber(&session);
    assert!(
        saved.contains(
            "ATTACH shader ENTRY_POINT main SPECIALIZE 0 AS uint32 3 SPECIALIZE 1 AS float 0.5"
        ),
        "{saved}"
    );
    assert!(
        saved.contains("BIND BUFFER push_constants AS push_constant"),
        "{saved}"
    );
    assert_eq!(simulate(&session)[0], u32_bytes(&[15, 16]));
    round_trip(session);

    // One buffer at two bindings.
    let alias = words_of(&dir().join("shaders/alias.spv"));
    let shared = SaveSession {
        shader: SaveShader {
            format: ShaderFormat::SpirvHex,
            text: String::new(),
            target_env: None,
            words: alias,
        },
        entry: None,
        buffers: vec![
            buffer(0, u32_bytes(&[0; 8]), None),
            buffer(2, u32_bytes(&[1, 2, 3, 4]), None),
        ],
        aliases: vec![lanescope_core::BufferAlias {
            set: 0,
            binding: 1,
            of_set: 0,
            of_binding: 0,
            ..Default::default()
        }],
        push_constants: Vec::new(),
        push_constant_type: None,
        spec: BTreeMap::new(),
        workgroups: [1, 1, 1],
        settings: Settings::default(),
    };
    let saved = to_amber(&shared);
    assert!(
        saved.contains("BIND BUFFER buf_0_0 AS storage DESCRIPTOR_SET 0 BINDING 1"),
        "{saved}"
    );
    assert_eq!(
        simulate(&shared)[0],
        u32_bytes(&[1, 2, 3, 4, 101, 102, 103, 104])
    );
    round_trip(shared);
}

/// A script reduced to the words a report names (`--gpu-amber`'s unexplained words): one
/// `EXPECT` per word, at its element, nothing else checked; a wrong expectation fails there.
#[test]
fn a_script_can_expect_only_the_words_named() {
    let add = words_of(&dir().join("shaders/add.spv"));
    // b[x] = a[x] * 2 + x.
    let out = u32_bytes(&[2, 5, 8, 11, 14, 17, 20, 23]);
    let mut b1 = buffer(1, u32_bytes(&[0; 8]), None);
    b1.expect = Some(out.clone());
    b1.expect_only = Some(vec![4, 20]);
    let mut session = SaveSession {
        shader: SaveShader {
            format: ShaderFormat::SpirvHex,
            text: String::new(),
            target_env: None,
            words: add,
        },
        entry: None,
        buffers: vec![
            buffer(0, u32_bytes(&[1, 2, 3, 4, 5, 6, 7, 8]), None),
            b1,
            buffer(2, f32_bytes(&[1.0; 8]), Some("float")),
            buffer(3, u32_bytes(&[0; 8]), Some("int32")),
        ],
        aliases: Vec::new(),
        push_constants: Vec::new(),
        push_constant_type: None,
        spec: BTreeMap::new(),
        workgroups: [2, 1, 1],
        settings: Settings::default(),
    };
    let text = to_amber(&session);
    let expects: Vec<&str> = text.lines().filter(|l| l.starts_with("EXPECT")).collect();
    assert_eq!(
        expects,
        ["EXPECT buf_0_1 IDX 4 EQ 5", "EXPECT buf_0_1 IDX 20 EQ 17"],
        "{text}"
    );
    let r = amber::run_text(&text, &Prebuilt, &RunOptions::default());
    assert!(
        r.expects.iter().all(|e| e.pass) && r.expects.len() == 2,
        "{r:#?}"
    );
    // The simulation's value wrong at one word: that EXPECT fails, naming it.
    let mut wrong = out;
    wrong[20] ^= 1;
    session.buffers[1].expect = Some(wrong);
    let r = amber::run_text(&to_amber(&session), &Prebuilt, &RunOptions::default());
    let failed: Vec<_> = r.expects.iter().filter(|e| !e.pass).collect();
    assert_eq!(failed.len(), 1, "{r:#?}");
    assert_eq!(failed[0].index, Some(20));
}
