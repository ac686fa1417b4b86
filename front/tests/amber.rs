//! AmberScript scripts of our own (`tests/amber/*.amber`, built from `*.amber.in` by
//! `tests/amber/rebuild.sh`): each says in its header comments what it should give
//! (`# status:`, `# message:`, `# max-steps:`), and marks the EXPECTs that should fail with
//! `# fails`. GLSL and SPIR-V assembly shaders come prebuilt (`tests/amber/shaders/NAME.spv`,
//! looked up by shader name), so no compiler is needed here.

use lanescope_core::Config;
use lanescope_front::amber::{self, parse, RunOptions, Status};
use std::path::PathBuf;

mod common;
use common::{dir, Prebuilt};

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
