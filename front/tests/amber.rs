//! AmberScript scripts of our own (`tests/amber/*.amber`, built from `*.amber.in` by
//! `tests/amber/rebuild.sh`): each says in its header comments what it should give
//! (`# status:`, `# message:`, `# max-steps:`), and marks the EXPECTs that should fail with
//! `# fails`. GLSL and SPIR-V assembly shaders come prebuilt (`tests/amber/shaders/NAME.spv`,
//! looked up by shader name), so no compiler is needed here.

use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator, SpecValue};
use lanescope_front::amber::{
    self, parse, to_amber, types::DataType, Compile, CompileError, RunOptions, SaveBuffer,
    SaveSession, SaveShader, Settings, ShaderFormat, Status,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/amber")
}

fn words_of(path: &Path) -> Vec<u32> {
    std::fs::read(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Prebuilt modules by shader name; files relative to the scripts.
struct Prebuilt;

impl Compile for Prebuilt {
    fn compile(
        &self,
        _: ShaderFormat,
        source: &str,
        _: Option<&str>,
        name: &str,
    ) -> Result<Vec<u32>, CompileError> {
        // The script embeds the same source the module was built from.
        let src = ["comp", "spvasm"]
            .iter()
            .find_map(|e| std::fs::read_to_string(dir().join(format!("shaders/{name}.{e}"))).ok())
            .ok_or_else(|| CompileError::Failed(format!("no source for `{name}`")))?;
        if source.trim() != src.trim() {
            return Err(CompileError::Failed(format!(
                "the script's `{name}` differs from shaders/: rerun rebuild.sh"
            )));
        }
        Ok(words_of(&dir().join(format!("shaders/{name}.spv"))))
    }

    fn read_file(&self, path: &str) -> Option<Result<Vec<u8>, String>> {
        Some(std::fs::read(dir().join(path)).map_err(|e| e.to_string()))
    }
}

fn header(text: &str, key: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("# {key}: ")))
        .map(str::to_string)
}

#[test]
fn every_script_gives_what_it_says() {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "amber"))
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        let mut opts = RunOptions::default();
        if let Some(n) = header(&text, "max-steps") {
            opts.max_steps = n.parse().unwrap();
        }
        let report = amber::run_text(&text, &Prebuilt, &opts);
        let shown = report.to_text();
        let want = header(&text, "status").unwrap_or_else(|| panic!("{name}: no status"));
        assert_eq!(report.status.name(), want, "{name}:\n{shown}");
        if let Some(m) = header(&text, "message") {
            let got = report.message.clone().unwrap_or_default();
            assert!(got.contains(&m), "{name}: message `{got}` lacks `{m}`");
        }
        let marked: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                (l.starts_with("EXPECT") || l.starts_with("probe")) && l.ends_with("# fails")
            })
            .map(|(i, _)| i + 1)
            .collect();
        let failed: Vec<usize> = report
            .expects
            .iter()
            .filter(|e| !e.pass)
            .map(|e| e.line)
            .collect();
        assert_eq!(failed, marked, "{name}:\n{shown}");
        if report.status == Status::Pass {
            assert!(
                !report.expects.is_empty() && !report.runs.is_empty(),
                "{name}"
            );
        }
    }
}

#[test]
fn a_failing_expect_names_line_index_expected_and_actual() {
    let text = std::fs::read_to_string(dir().join("fail_hex.amber")).unwrap();
    let r = amber::run_text(&text, &Prebuilt, &RunOptions::default());
    let e = r.expects.iter().find(|e| !e.pass).unwrap();
    assert_eq!(
        (e.buffer.as_str(), e.index, e.op.as_str()),
        ("b", Some(0), "EQ")
    );
    assert_eq!(e.expected, "2 5 9 11");
    assert_eq!(e.actual, "2 5 8 11");
    assert_eq!(e.detail.as_deref(), Some("first at value 2, byte 8"));
    let buf = r.expects.iter().find(|e| e.op == "EQ_BUFFER").unwrap();
    assert_eq!(buf.index, Some(8));
    assert!(
        buf.expected.starts_with("1.5 ") && buf.actual.starts_with("1 "),
        "{buf:?}"
    );
    let text = r.to_text();
    assert!(text.starts_with("FAIL:"), "{text}");
    assert!(
        text.contains("EXPECT b IDX 0 EQ failed (first at value 2, byte 8)"),
        "{text}"
    );
    assert_eq!(r.exit_code(), 1);
}

#[test]
fn the_json_has_exactly_the_documented_fields() {
    let text = std::fs::read_to_string(dir().join("basic_hex.amber")).unwrap();
    let r = amber::run_text(&text, &Prebuilt, &RunOptions::default());
    assert_eq!(r.exit_code(), 0);
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&v), ["expects", "message", "notes", "runs", "status"]);
    assert_eq!(v["status"], "pass");
    assert_eq!(
        keys(&v["expects"][0]),
        ["actual", "buffer", "expected", "index", "line", "op", "pass"]
    );
    let first = text.lines().position(|l| l.starts_with("EXPECT")).unwrap() + 1;
    assert_eq!(v["expects"][0]["line"], first);
    assert_eq!(v["runs"][0]["workgroups"], serde_json::json!([2, 1, 1]));
}

#[test]
fn exit_codes_follow_the_status() {
    let skip = amber::run_text(
        &std::fs::read_to_string(dir().join("skip_image.amber")).unwrap(),
        &Prebuilt,
        &RunOptions::default(),
    );
    assert_eq!((skip.status, skip.exit_code()), (Status::Skip, 77));
    let err = amber::run_text(
        "#!amber\nRUN nothing 1 1 1\n",
        &Prebuilt,
        &RunOptions::default(),
    );
    assert_eq!(err.status, Status::Error);
    assert_eq!(
        err.message.as_deref(),
        Some("2:5: unknown pipeline `nothing`")
    );
    assert_eq!(err.exit_code(), 1);
}

#[test]
fn a_glsl_shader_without_a_compiler_skips_and_hex_needs_none() {
    let text = std::fs::read_to_string(dir().join("layouts_glsl.amber")).unwrap();
    let r = amber::run_text(&text, &amber::NoCompiler, &RunOptions::default());
    assert_eq!(r.status, Status::Skip);
    assert!(r.message.unwrap().contains("no GLSL compiler"));
    let text = std::fs::read_to_string(dir().join("basic_hex.amber")).unwrap();
    let r = amber::run_text(&text, &amber::NoCompiler, &RunOptions::default());
    assert_eq!(r.status, Status::Pass, "{}", r.to_text());
}

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

/// Every script cut at every line, and with each line's numbers made huge or negative, gives a
/// report (never a panic), within small limits.
#[test]
fn broken_scripts_give_reports_not_panics() {
    let opts = RunOptions {
        max_steps: 20_000,
        max_total_steps: 100_000,
        max_commands: 1_000,
        ..RunOptions::default()
    };
    let mut runs = 0;
    for e in std::fs::read_dir(dir()).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "amber") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for cut in 0..lines.len() {
            let _ = amber::run_text(&lines[..cut].join("\n"), &Prebuilt, &opts);
            for big in ["18446744073709551615", "4294967296", "-2147483649", "0"] {
                let mut changed = lines.clone();
                let mangled: String = {
                    let mut out = String::new();
                    let mut in_number = false;
                    for ch in lines[cut].chars() {
                        if ch.is_ascii_digit() {
                            if !in_number {
                                out += big;
                            }
                            in_number = true;
                        } else {
                            in_number = false;
                            out.push(ch);
                        }
                    }
                    out
                };
                if mangled == lines[cut] || lines[cut].starts_with("# status") {
                    continue;
                }
                changed[cut] = &mangled;
                let _ = amber::run_text(&changed.join("\n"), &Prebuilt, &opts);
                runs += 1;
            }
        }
    }
    assert!(runs > 500, "{runs}");
}

#[test]
fn disjoint_windows_of_one_buffer_are_separate_and_overlapping_ones_skip() {
    let hex: Vec<String> = std::fs::read(dir().join("shaders/alias.spv"))
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let script = |second: &str| {
        format!(
            "#!amber\nSHADER compute alias SPIRV-HEX\n{}\nEND\n\
             BUFFER big DATA_TYPE uint32 SIZE 16 FILL 0\nBUFFER c DATA_TYPE uint32 SIZE 4 FILL 1\n\
             PIPELINE compute p\n  ATTACH alias\n\
             \x20 BIND BUFFER big AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_RANGE 32\n\
             \x20 BIND BUFFER big AS storage DESCRIPTOR_SET 0 BINDING 1 {second}\n\
             \x20 BIND BUFFER c AS storage DESCRIPTOR_SET 0 BINDING 2\nEND\n\
             RUN p 1 1 1\nEXPECT big IDX 0 EQ 1 2 3 4 0 0 0 0 0 0 0 0 101 102 103 104\n\
             EXPECT c IDX 0 EQ 3 3 3 3\n",
            hex.join(" ")
        )
    };
    let ok = amber::run_text(
        &script("DESCRIPTOR_OFFSET 32"),
        &Prebuilt,
        &RunOptions::default(),
    );
    assert_eq!(ok.status, Status::Pass, "{}", ok.to_text());
    let overlap = amber::run_text(
        &script("DESCRIPTOR_OFFSET 16"),
        &Prebuilt,
        &RunOptions::default(),
    );
    assert_eq!(overlap.status, Status::Skip);
    assert!(overlap.message.unwrap().contains("overlapping"));
}

fn script_text(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap()
}

fn run_script(text: &str) -> amber::Report {
    amber::run_text(text, &Prebuilt, &RunOptions::default())
}

#[test]
fn an_image_region_probe_names_its_first_failing_texel() {
    let text = script_text("image_storage_glsl.amber")
        + "EXPECT dst IDX 1 1 SIZE 3 2 EQ_RGBA 0 255 0 255\n";
    let line = text.lines().count();
    let r = run_script(&text);
    assert_eq!(r.status, Status::Fail, "{}", r.to_text());
    let e = r.expects.iter().find(|e| !e.pass).unwrap();
    assert_eq!((e.line, e.op.as_str()), (line, "EQ_RGBA"));
    // (1, 1) of a 4-wide RGBA8 image.
    assert_eq!(e.index, Some(20));
    assert_eq!(e.expected, "0 255 0 255 at (1, 1) size 3x2");
    assert_eq!(e.actual, "128 0 0 255");
    let shown = r.to_text();
    assert!(
        shown.contains("EXPECT dst EQ_RGBA failed (4 of 6 texels differ, first at (1, 1))"),
        "{shown}"
    );
}

#[test]
fn image_bindings_must_be_what_the_shader_declares() {
    let text = script_text("image_storage_glsl.amber");
    let with = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        run_script(&text.replace(from, to))
    };
    let r = with(
        "BIND BUFFER vol AS storage_image DESCRIPTOR_SET 0 BINDING 3",
        "BIND BUFFER dst AS storage_image DESCRIPTOR_SET 0 BINDING 3",
    );
    assert_eq!(r.status, Status::Error);
    let m = r.message.unwrap();
    assert!(
        m.contains(
            "RUN write: `dst`, a DIM_2D image, is bound AS storage_image at set 0 binding 3"
        ) && m.contains("where the shader declares `vol`, a 3D storage image (r32f)"),
        "{m}"
    );
    let r = with(
        "BIND BUFFER src AS storage_image",
        "BIND BUFFER src AS sampled_image",
    );
    assert_eq!(r.status, Status::Error);
    assert!(r.message.unwrap().contains("a 2D storage image (r32ui)"));
    // A format that differs from the declared one: the simulator says so.
    let r = with(
        "BIND BUFFER count AS storage_image DESCRIPTOR_SET 0 BINDING 2",
        "BIND BUFFER dst AS storage_image DESCRIPTOR_SET 0 BINDING 2",
    );
    assert_eq!(r.status, Status::Error);
    let m = r.message.unwrap();
    assert!(m.contains("declared r32ui") && m.contains("rgba8"), "{m}");
    // A sampler where the shader declares a sampled image.
    let sampled = script_text("image_sampled_glsl.amber");
    let r = run_script(&sampled.replace(
        "BIND SAMPLER smp_linear DESCRIPTOR_SET 0 BINDING 1",
        "BIND SAMPLER smp_linear DESCRIPTOR_SET 0 BINDING 0",
    ));
    assert_eq!(r.status, Status::Error);
    assert!(r
        .message
        .unwrap()
        .contains("where the shader declares `tex`, not a sampler"));
    let r = run_script(&sampled.replace(
        "AS combined_image_sampler SAMPLER smp_nearest DESCRIPTOR_SET 0 BINDING 0",
        "AS sampled_image DESCRIPTOR_SET 0 BINDING 0",
    ));
    assert_eq!(r.status, Status::Error);
    let m = r.message.unwrap();
    assert!(
        m.contains("is bound AS sampled_image at set 0 binding 0")
            && m.contains("a combined image sampler of a 2D sampled image"),
        "{m}"
    );
}

#[test]
fn an_image_view_and_a_buffer_view_of_one_buffer_skip() {
    let text = script_text("image_texel_glsl.amber").replace(
        "  BIND BUFFER counts AS storage_texel_buffer DESCRIPTOR_SET 0 BINDING 2\n",
        "  BIND BUFFER counts AS storage_texel_buffer DESCRIPTOR_SET 0 BINDING 2\n  BIND BUFFER counts AS storage DESCRIPTOR_SET 0 BINDING 3\n",
    );
    let r = run_script(&text);
    assert_eq!(r.status, Status::Skip, "{}", r.to_text());
    let m = r.message.unwrap();
    assert!(
        m.contains("buffer `counts` is bound AS storage_texel_buffer at set 0 binding 2 and as a buffer at set 0 binding 3"),
        "{m}"
    );
}

#[test]
fn images_written_by_a_run_come_back_and_are_captured_for_the_debugger() {
    let text = script_text("image_storage_glsl.amber");
    let script = parse(&text).unwrap();
    let ex = amber::execute(
        &script,
        &Prebuilt,
        &RunOptions {
            capture_run: Some(0),
            ..RunOptions::default()
        },
    );
    assert_eq!(ex.report.status, Status::Pass, "{}", ex.report.to_text());
    // The first texel of each row is green, the second half red.
    let dst = ex.buffer("dst").unwrap();
    assert_eq!(&dst[..8], &[0, 255, 0, 255, 128, 0, 0, 255]);
    let run = ex.captured.unwrap();
    let images: Vec<(u32, [u32; 3])> = run
        .bindings
        .images
        .iter()
        .map(|i| (i.binding, i.desc.extent))
        .collect();
    assert_eq!(
        images,
        [
            (0, [4, 4, 1]),
            (1, [4, 4, 1]),
            (2, [2, 1, 1]),
            (3, [4, 4, 2])
        ]
    );
    assert!(run.binds.iter().any(|b| b.0 == "vol" && b.2 == 3));
}

/// debugPrintf in a script's shader: each RUN's report carries its lines, per invocation in
/// execution order, and the text report prints them under the run.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_scripts_runs_report_what_their_shaders_printed() {
    let text = "#!amber
SHADER compute printer GLSL
#version 450
#extension GL_EXT_debug_printf : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint o[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    if (i % 2u == 1u) {
        debugPrintfEXT(\"odd %u\", i);
    }
    o[i] = i;
}
END
BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0
PIPELINE compute pipe
  ATTACH printer
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN pipe 2 1 1
EXPECT buf IDX 0 EQ 0 1 2 3
";
    let r = amber::run_text(text, &lanescope_front::InProcess, &RunOptions::default());
    assert_eq!(r.exit_code(), 0, "{}", r.to_text());
    assert_eq!(
        r.runs[0].printf,
        vec![
            "[wg 0,0,0 inv 1] odd 1",
            "[wg 0,0,0 inv 3] odd 3",
            "[wg 1,0,0 inv 1] odd 1",
            "[wg 1,0,0 inv 3] odd 3",
        ]
    );
    assert!(
        r.to_text().contains("  [wg 1,0,0 inv 3] odd 3"),
        "{}",
        r.to_text()
    );
    // The limit: two lines kept, the rest counted.
    let opts = RunOptions {
        config: Config {
            max_printf_lines: 2,
            ..Config::default()
        },
        ..RunOptions::default()
    };
    let r = amber::run_text(text, &lanescope_front::InProcess, &opts);
    assert_eq!(r.runs[0].printf.len(), 3, "{:?}", r.runs[0].printf);
    assert!(
        r.runs[0].printf[2].contains("2 lines dropped"),
        "{:?}",
        r.runs[0].printf
    );
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
