//! The headless command-line contract.

use std::path::{Path, PathBuf};
use std::process::Command;

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lanescope"))
}

fn reference(group: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/reference")
        .join(group)
        .join(file)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lanescope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn read_words(path: &Path) -> Vec<u32> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn write_words(path: &Path, words: impl Iterator<Item = u32>) {
    let bytes: Vec<u8> = words.flat_map(u32::to_le_bytes).collect();
    std::fs::write(path, bytes).unwrap();
}

fn if_else_args(out: &Path) -> Vec<String> {
    // Inputs named after the output: tests run in parallel and must not rewrite each other's.
    let stem = out.file_name().unwrap().to_string_lossy();
    let inp = tmp(&format!("{stem}.in"));
    let outbuf = tmp(&format!("{stem}.outbuf"));
    write_words(&inp, 0..64);
    write_words(&outbuf, std::iter::repeat_n(0, 64 * 516));
    vec![
        "run".into(),
        reference("reconv", "c01_if_else.spv").display().to_string(),
        "--buffer".into(),
        format!("0:0={}", inp.display()),
        "--buffer".into(),
        format!("0:1={}", outbuf.display()),
        "--out".into(),
        format!("0:1={}", out.display()),
    ]
}

#[test]
fn run_writes_outputs_and_a_json_summary() {
    let out = tmp("result.bin");
    let trace = tmp("trace.json");
    let mut args = if_else_args(&out);
    args.extend([
        "--json".into(),
        "--trace".into(),
        trace.display().to_string(),
    ]);
    let o = exe().args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["entry"], "main");
    assert_eq!(summary["settings"]["subgroup_size"], 32);
    assert!(summary["divergences"].as_u64().unwrap() >= 2);
    assert!(summary["reconvergences"].as_u64().unwrap() >= 2);
    assert!(summary["lane_instructions"].as_u64().unwrap() > summary["steps"].as_u64().unwrap());
    let words = std::fs::read(&out).unwrap();
    assert_eq!(words.len(), 64 * 516 * 4);
    // Invocation 5 recorded 3 probes; the first ballot is the whole subgroup.
    let w = |i: usize| u32::from_le_bytes(words[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(w(5 * 516), 3);
    assert_eq!(w(5 * 516 + 5), 0xffff_ffff);
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    assert_eq!(t["schema"], "lanescope-trace/2");
    assert_eq!(
        t["steps"].as_array().unwrap().len() as u64,
        summary["steps"].as_u64().unwrap()
    );
}

#[test]
fn step_limit_is_an_error_naming_the_flag() {
    let mut args = if_else_args(&tmp("unused.bin"));
    args.extend(["--max-steps".into(), "5".into()]);
    let o = exe().args(&args).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-steps"));
}

#[test]
fn invocation_and_buffer_limits_are_errors_naming_their_flags() {
    let mut args = if_else_args(&tmp("unused2.bin"));
    args.extend(["--max-invocations".into(), "32".into()]);
    let o = exe().args(&args).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("64 invocations") && err.contains("--max-invocations"),
        "{err}"
    );

    // The output buffer is 132 KiB: under a 0 MiB limit it is refused before it is read.
    let mut args = if_else_args(&tmp("unused3.bin"));
    args.extend(["--max-buffer-memory".into(), "0".into()]);
    let o = exe().args(&args).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--max-buffer-memory"), "{err}");

    // Raised, the same run works.
    let mut args = if_else_args(&tmp("unused4.bin"));
    args.extend([
        "--max-invocations".into(),
        "64".into(),
        "--max-buffer-memory".into(),
        "1".into(),
    ]);
    let o = exe().args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["run"],
        vec!["run", "x.spv", "--subgroup-size"],
        vec!["frobnicate"],
        vec!["run", "x.spv", "--switch-tangles", "sometimes"],
        vec!["run", "x.spv", "--max-invocations", "many"],
        vec!["run", "x.spv", "--max-buffer-memory", "-1"],
    ] {
        let o = exe().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn bad_files_exit_1_with_a_message() {
    let o = exe().args(["run", "/nonexistent.spv"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
    let junk = tmp("junk.spv");
    std::fs::write(&junk, b"definitely not spir-v").unwrap();
    let o = exe()
        .args(["run", junk.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("malformed"));
    // Missing buffer binding.
    let o = exe()
        .args([
            "run",
            reference("reconv", "c01_if_else.spv").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("binding"));
}

#[test]
fn example_command_runs_the_built_in_example() {
    let o = exe().arg("example").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("lane-instructions"), "{text}");
}

/// With no display the GUI cannot start: the error says so and names the headless commands.
#[test]
fn gui_without_a_display_is_a_clear_error() {
    let o = exe()
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("could not open a window"), "{err}");
    assert!(err.contains("lanescope example"), "{err}");
}

/// `--coopmat-layout` picks a layout (or reads a JSON table) and `--portability` compares the
/// layouts that support the shader.
#[test]
fn coopmat_layout_and_portability() {
    let shader = reference("coopmat", "layout_A_f16_16x16_rm.spv");
    let src = tmp("cm_src.bin");
    let out = tmp("cm_out.bin");
    // Element (r, c) holds r (f16), the probe's `rowcode` input.
    let halves: Vec<u8> = (0..256u32)
        .flat_map(|e| half_bits(e / 16).to_le_bytes())
        .collect();
    std::fs::write(&src, halves).unwrap();
    write_words(&out, std::iter::repeat_n(0, 1024));
    let base = |extra: &[&str]| {
        let mut a: Vec<String> = vec![
            "run".into(),
            shader.display().to_string(),
            "--buffer".into(),
            format!("0:0={}", src.display()),
            "--buffer".into(),
            format!("0:1={}", out.display()),
        ];
        a.extend(extra.iter().map(|s| (*s).to_string()));
        exe().args(a).output().unwrap()
    };
    for layout in ["nvidia", "amd-rdna3", "portable"] {
        let o = base(&["--coopmat-layout", layout]);
        assert!(
            o.status.success(),
            "{layout}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = base(&["--coopmat-layout", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("amd-rdna3"));
    let table =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/coopmat_layout_transposed.json");
    // The table has no MatrixA: a clear load error naming the table.
    let o = base(&["--coopmat-layout", &table.display().to_string()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("transposed-example"));
    let o = base(&["--portability"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("DIFFERS: buffer set 0 binding 1"), "{text}");
    let o = base(&["--portability", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["portable"], false);
    assert_eq!(v["layouts_run"], 3);
}

/// f16 bits of a small non-negative integer.
fn half_bits(n: u32) -> u16 {
    if n == 0 {
        return 0;
    }
    let e = 31 - n.leading_zeros();
    let frac = (n << (10 - e)) & 0x3ff;
    (((e + 15) << 10) | frac) as u16
}

fn data(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data")
        .join(file)
        .display()
        .to_string()
}

/// `--spec` is applied when the module is loaded, so a shape set by a specialization constant
/// is laid out with its overridden value (the default, 7 rows, no layout supports).
#[test]
fn spec_overrides_apply_at_the_one_load() {
    let buf = tmp("spec_shape.bin");
    let out = tmp("spec_shape.out");
    write_words(&buf, std::iter::repeat_n(0, 32));
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run".to_string(),
            data("coop_spec_shape.spv"),
            "--buffer".into(),
            format!("0:0={}", buf.display()),
            "--out".into(),
            format!("0:0={}", out.display()),
        ];
        a.extend(extra.iter().map(|s| (*s).to_string()));
        exe().args(a).output().unwrap()
    };
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("7x16"));
    let o = run(&["--spec", "0=16"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let words = std::fs::read(&out).unwrap();
    // A 16x16 f16 A matrix over 32 lanes: 8 components per lane.
    assert_eq!(words[..4], 8u32.to_le_bytes());
    // The portability check takes the override too.
    let o = run(&["--spec", "0=16", "--portability", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["layouts_run"].as_u64().unwrap() >= 2, "{v}");
}

/// What Vulkan ignores, Lanescope accepts with a warning: on stderr, and in the `--json`
/// summary.
#[test]
fn unknown_spec_ids_and_unused_bindings_are_warnings() {
    let buf = tmp("warn.bin");
    let extra = tmp("warn_extra.bin");
    write_words(&buf, std::iter::repeat_n(0, 64));
    write_words(&extra, std::iter::repeat_n(0, 4));
    let o = exe()
        .args([
            "run",
            &data("spec_push.spv"),
            "--buffer",
            &format!("0:0={}", buf.display()),
            "--buffer",
            &format!("1:5={}", extra.display()),
            "--push",
            &buf.display().to_string(),
            "--spec",
            "42=7",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("warning [unknown-spec-id]"), "{err}");
    assert!(err.contains("warning [unused-binding]"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["unknown-spec-id", "unused-binding"]);
    assert!(v["warnings"][1]["message"]
        .as_str()
        .unwrap()
        .contains("set 1 binding 5"));
    // A value that does not fit the constant's type is still an error.
    let o = exe()
        .args([
            "run",
            &data("spec_push.spv"),
            "--buffer",
            &format!("0:0={}", buf.display()),
            "--push",
            &buf.display().to_string(),
            "--spec",
            "0=-3",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("specialization constant 0"));
}

/// `--buffer 0:1=@0:0` binds at 0:1 the buffer bound at 0:0; `--out` on either writes the
/// shared bytes.
#[test]
fn one_buffer_at_two_bindings() {
    let buf = tmp("alias.bin");
    write_words(&buf, std::iter::repeat_n(0, 8));
    let (o0, o1) = (tmp("alias.out0"), tmp("alias.out1"));
    let o = exe()
        .args([
            "run",
            &data("host_alias.spv"),
            "--buffer",
            &format!("0:0={}", buf.display()),
            "--buffer",
            "0:1=@0:0",
            "--out",
            &format!("0:0={}", o0.display()),
            "--out",
            &format!("0:1={}", o1.display()),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expect: Vec<u8> = [1u32, 2, 3, 4, 1, 2, 3, 4]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert_eq!(std::fs::read(&o0).unwrap(), expect);
    assert_eq!(std::fs::read(&o1).unwrap(), expect);
    // Sharing a binding where nothing is bound is an error naming it.
    let o = exe()
        .args([
            "run",
            &data("host_alias.spv"),
            "--buffer",
            &format!("0:0={}", buf.display()),
            "--buffer",
            "0:1=@4:4",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("set 4 binding 4"));
}

/// Nonsense settings are usage errors, never a crash (a subgroup size of 0 used to divide by
/// zero in the portability check).
#[test]
fn nonsense_subgroup_sizes_are_usage_errors() {
    for size in ["0", "3", "256", "1024"] {
        let o = exe()
            .args([
                "run",
                &reference("coopmat", "layout_A_f16_16x16_rm.spv")
                    .display()
                    .to_string(),
                "--portability",
                "--subgroup-size",
                size,
            ])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "--subgroup-size {size}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("power of two"));
    }
}

/// The trace is streamed to its file; a write error is reported, not ignored.
#[test]
fn trace_write_errors_are_reported() {
    let mut args = if_else_args(&tmp("trace_err.bin"));
    args.extend(["--trace".into(), "/nonexistent-dir/trace.json".into()]);
    let o = exe().args(&args).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write trace"));
}

/// Generated help for every subcommand, and shell completions.
#[test]
fn help_and_completions() {
    let o = exe().arg("--help").output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("opens the GUI") && text.contains("permalink"),
        "{text}"
    );
    let o = exe().args(["run", "--help"]).output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for flag in [
        "--coopmat-layout",
        "--portability",
        "--buffer",
        "--max-buffer-memory",
    ] {
        assert!(text.contains(flag), "{flag} missing from `run --help`");
    }
    let o = exe().args(["completions", "bash"]).output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("--subgroup-size"));
}

/// `--only-workgroup` runs the named workgroups alone, and warns when the shader's atomics
/// on buffer memory may make them depend on the others.
#[test]
fn only_some_workgroups() {
    let out = tmp("onlywg.bin");
    let count = tmp("onlywg.count");
    write_words(&out, std::iter::repeat_n(0, 12));
    write_words(&count, std::iter::repeat_n(0, 1));
    let (o, c) = (tmp("onlywg.out"), tmp("onlywg.cout"));
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run".to_string(),
            data("per_workgroup.spv"),
            "--workgroups".into(),
            "3".into(),
            "--buffer".into(),
            format!("0:0={}", out.display()),
            "--buffer".into(),
            format!("0:1={}", count.display()),
            "--out".into(),
            format!("0:0={}", o.display()),
            "--out".into(),
            format!("0:1={}", c.display()),
            "--json".into(),
        ];
        a.extend(extra.iter().map(|s| (*s).to_string()));
        exe().args(a).output().unwrap()
    };
    let r = run(&["--only-workgroup", "1,0,0", "--only-workgroup", "2"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let words: Vec<u32> = std::fs::read(&o)
        .unwrap()
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(words, [0, 0, 0, 0, 2, 2, 2, 2, 3, 3, 3, 3]);
    assert_eq!(std::fs::read(&c).unwrap(), 2u32.to_le_bytes());
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["workgroups_run"], 2);
    assert_eq!(v["warnings"][0]["code"], "partial-dispatch-atomics");
    let r = run(&["--only-workgroup", "3,0,0"]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("outside the dispatch"));
}

/// `--explore N` runs N schedules and lists the words that differ between them; a race-free
/// shader lists none. `--schedule` replays one of them.
#[test]
fn explore_finds_order_dependent_results() {
    let buf = tmp("explore.bin");
    write_words(&buf, std::iter::repeat_n(0, 32));
    let run = |shader: &str, extra: &[&str]| {
        let mut a = vec![
            "run".to_string(),
            data(shader),
            "--buffer".into(),
            format!("0:0={}", buf.display()),
            "--json".into(),
        ];
        a.extend(extra.iter().map(|s| (*s).to_string()));
        let o = exe().args(a).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let v = run("tile_no_barrier.spv", &["--explore", "4"]);
    let deps = v["order_dependence"].as_array().unwrap();
    assert_eq!(deps.len(), 32, "{v}");
    assert_eq!(
        deps[0]["schedules"],
        serde_json::json!(["default", "reverse"])
    );
    assert_eq!(deps[0]["values"], serde_json::json!([1, 0]));
    assert_eq!(v["schedules"].as_array().unwrap().len(), 4);
    let v = run("tile_barrier.spv", &["--explore", "4"]);
    assert_eq!(v["order_dependence"], serde_json::json!([]));
    // A schedule named on the command line is the one the summary ran.
    let v = run("tile_no_barrier.spv", &["--schedule", "random:3"]);
    assert_eq!(v["settings"]["schedule"], "random:3");
    let o = exe()
        .args([
            "run",
            &data("tile_no_barrier.spv"),
            "--schedule",
            "sometimes",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn float_spec_values_round_once_from_the_text() {
    // Just above the midpoint between 1 and the next f32: through f64 first, it would become the
    // midpoint itself and then round to even (1.0).
    let shader = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/spec_push.spv");
    let (buf, push, out) = (tmp("spec.in"), tmp("spec.push"), tmp("spec.out"));
    write_words(&buf, std::iter::repeat_n(0, 64));
    write_words(&push, [0, 0].into_iter());
    let o = exe()
        .args(["run", &shader.display().to_string(), "--spec"])
        .arg("2=1.000000059604644775390625000001")
        .args(["--buffer", &format!("0:0={}", buf.display())])
        .args(["--push", &push.display().to_string()])
        .args(["--out", &format!("0:0={}", out.display())])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let words = std::fs::read(&out).unwrap();
    let ratio = u32::from_le_bytes(words[62 * 4..63 * 4].try_into().unwrap());
    assert_eq!(ratio, 0x3F80_0001);
}

fn amber_test(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../front/tests/amber")
        .join(file)
        .display()
        .to_string()
}

/// `lanescope run TEST.amber`: exit 0 when every EXPECT holds, 1 when one fails (naming it),
/// 77 when the script needs something not simulated; `--json` has the report.
#[test]
fn amberscript_exit_status_and_report() {
    let run = |file: &str, json: bool| {
        let mut c = exe();
        c.args(["run", &amber_test(file)]);
        if json {
            c.arg("--json");
        }
        c.output().unwrap()
    };
    let o = run("basic_hex.amber", false);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = run("spec_asm.amber", true);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "pass");
    let o = run("fail_hex.amber", true);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "fail");
    let failed: Vec<&serde_json::Value> = v["expects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["pass"] == false)
        .collect();
    assert!(!failed.is_empty());
    for key in ["line", "buffer", "index", "op", "expected", "actual"] {
        assert!(failed[0].get(key).is_some(), "{key} missing: {}", failed[0]);
    }
    let o = run("skip_feature.amber", false);
    assert_eq!(o.status.code(), Some(77));
    assert!(String::from_utf8_lossy(&o.stdout).contains("ray tracing is not simulated"));
    let o = run("parse_error.amber", false);
    assert_eq!(o.status.code(), Some(1));
}

/// `lanescope dis` prints spirv-dis's text, `lanescope asm` reads it back; `run` takes the
/// assembly directly; errors in the text are `file:line:col: message`.
#[test]
fn assembly_round_trip_and_errors() {
    let spv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/rotate_clustered.spv");
    let text = tmp("dis.spvasm");
    let back = tmp("asm.spv");
    let o = exe()
        .args([
            "dis",
            "--raw-id",
            &spv.display().to_string(),
            "-o",
            &text.display().to_string(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Numeric ids kept: the module's line information took ids after the text's, which
    // numbering by first appearance would not reproduce.
    let o = exe()
        .args([
            "asm",
            "--preserve-numeric-ids",
            &text.display().to_string(),
            "-o",
            &back.display().to_string(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (a, b) = (std::fs::read(&spv).unwrap(), std::fs::read(&back).unwrap());
    assert_eq!(a.len(), b.len());
    // Everything but the generator word (bytes 8..12).
    assert_eq!(a[..8], b[..8]);
    assert_eq!(a[12..], b[12..]);
    let o = exe()
        .args(["dis", &spv.display().to_string()])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("; SPIR-V\n; Version: 1.6\n"));
    let bad = tmp("bad.spvasm");
    std::fs::write(&bad, "OpCapability Shader\n%1 = OpFoo %2\n").unwrap();
    let o = exe()
        .args([
            "asm",
            &bad.display().to_string(),
            "-o",
            &tmp("bad.spv").display().to_string(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with(&format!("{}:2:6: ", bad.display())),
        "{err}"
    );
    let o = exe()
        .args(["run", &text.display().to_string(), "--json"])
        .output()
        .unwrap();
    // The module needs buffers: the error is about them, so the text did assemble and load.
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no buffer bound"));
}

/// Every diagnostic code is in the README's table, and `--no-detectors` turns the detectors
/// off.
#[test]
fn diagnostics_are_documented_and_detectors_can_be_turned_off() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    for code in lanescope_core::trace::DiagCode::ALL {
        assert!(
            readme.contains(&format!("`{code}`")),
            "{code} is not in the README"
        );
    }
    let buf = tmp("nodet.bin");
    write_words(&buf, std::iter::repeat_n(0, 64));
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run".to_string(),
            data("tile_no_barrier.spv"),
            "--buffer".into(),
            format!("0:0={}", buf.display()),
            "--json".into(),
        ];
        a.extend(extra.iter().map(|s| (*s).to_string()));
        let o = exe().args(a).output().unwrap();
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let on = run(&[]);
    assert_eq!(on["diagnostics"][0]["code"], "data-race");
    assert_eq!(on["settings"]["detectors"], true);
    let off = run(&["--no-detectors"]);
    assert_eq!(off["diagnostics"], serde_json::json!([]));
}

/// `--threads N` prints and writes exactly what the serial run does, for independent
/// workgroups (run in parallel) and for workgroups sharing a counter (run serially).
#[test]
fn threads_give_the_serial_output() {
    let input = tmp("threads.in");
    write_words(
        &input,
        (0..24 * 32).map(|i: u32| i.wrapping_mul(2_654_435_761)),
    );
    let zeros = tmp("threads.zero");
    write_words(&zeros, std::iter::repeat_n(0, 24 * 32));
    let count = tmp("threads.count");
    write_words(&count, std::iter::repeat_n(0, 1));
    let run = |shader: &str, threads: &str| {
        let out = tmp(&format!("threads.{shader}.{threads}.out"));
        let o = exe()
            .args([
                "run",
                &data(shader),
                "--workgroups",
                "24",
                "--subgroup-size",
                "16",
                "--buffer",
                &format!("0:0={}", input.display()),
                "--buffer",
                &format!("0:1={}", zeros.display()),
                "--buffer",
                &format!("0:2={}", count.display()),
                "--out",
                &format!("0:1={}", out.display()),
                "--json",
                "--threads",
                threads,
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (o.stdout, std::fs::read(out).unwrap())
    };
    for shader in ["par_tile.spv", "par_shared.spv", "par_tile_oob.spv"] {
        let serial = run(shader, "1");
        for t in ["2", "5", "0"] {
            assert!(run(shader, t) == serial, "{shader} with --threads {t}");
        }
    }
    let o = exe()
        .args(["run", &data("par_tile.spv"), "--threads", "many"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// `--address` fixes a buffer's device address, so a buffer file can hold pointers to it; the
/// JSON summary lists every bound buffer's address and size; bad addresses are usage errors.
#[test]
fn addresses_are_fixed_on_the_command_line_and_listed() {
    // physical_ptr_chain: binding 0 = { pointer to data, uint out[32] }; lane l reads data
    // word 2l through the pointer.
    let root = tmp("addr.root");
    let mut bytes = 0x4000u64.to_le_bytes().to_vec();
    bytes.resize(8 + 32 * 4, 0);
    std::fs::write(&root, &bytes).unwrap();
    let data_file = tmp("addr.data");
    write_words(&data_file, (0..16).map(|i| 500 + i));
    let out = tmp("addr.out");
    let asm = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/asm/physical_ptr_chain.spvasm")
        .display()
        .to_string();
    let o = exe()
        .args([
            "run",
            &asm,
            "--subgroup-size",
            "8",
            "--buffer",
            &format!("0:0={}", root.display()),
            "--buffer",
            &format!("0:1={}", data_file.display()),
            "--address",
            "0:1=0x4000",
            "--out",
            &format!("0:0={}", out.display()),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["buffers"],
        serde_json::json!([
            {"set": 0, "binding": 0, "address": 0x1_0000_0000u64, "size": 136},
            {"set": 0, "binding": 1, "address": 0x4000, "size": 64},
        ])
    );
    let w: Vec<u32> = std::fs::read(&out).unwrap()[8..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w[4 * 3], 506, "lane 3 read data word 6 at 0x4018");
    // The text summary names the addresses too.
    let o = exe()
        .args([
            "run",
            &asm,
            "--buffer",
            &format!("0:0={}", root.display()),
            "--buffer",
            &format!("0:1={}", data_file.display()),
            "--address",
            "0:1=16384",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("0:1 at 0x4000 (64 bytes)"), "{text}");
    for (bad, says) in [
        ("0:1=0x4008", "not aligned to 16 bytes"),
        ("0:1=lots", "is not an address"),
        ("0:1", "SET:BINDING=ADDR"),
    ] {
        let o = exe()
            .args(["run", &asm, "--address", bad])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(says), "{bad}: {e}");
    }
}

/// `--image` binds texels with a format and size, `--sampler` a sampler; `--out` writes the
/// texels back; bad image arguments are usage errors naming what is wrong.
#[test]
fn images_and_samplers_are_bound_on_the_command_line() {
    let storage = data("image_storage.spv");
    let dir = tmp("img");
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let counts = file("counts", (0..16u32).flat_map(|i| i.to_le_bytes()).collect());
    let colors = file("colors", vec![10; 64]);
    let floats = file("floats", vec![0; 64]);
    let layers = file("layers", vec![0; 64]);
    let ints = file("ints", vec![0; 64]);
    let table = file("table", vec![0; 128]);
    let out = file("out", vec![0; 144]);
    let big = file("big", vec![0; 768]);
    let counts_out = dir.join("counts.out");
    let o = exe()
        .args([
            "run",
            &storage,
            "--image",
            &format!("0:0={counts},r32ui,4x4"),
            "--image",
            &format!("0:1={colors},rgba8,4x4"),
            "--image",
            &format!("0:2={floats},r32f,4x4"),
            "--image",
            &format!("0:3={layers},rgba16f,2x2x2"),
            "--image",
            &format!("0:4={ints},r32i,16"),
            "--image",
            &format!("0:5={table},rg32ui,16x1"),
            "--buffer",
            &format!("0:6={out}"),
            "--out",
            &format!("0:0={}", counts_out.display()),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let w: Vec<u32> = std::fs::read(&counts_out)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<u32> = (0..16u32).map(|i| i + i % 4 + 1).collect();
    assert_eq!(w, want, "each texel of counts plus x + 1");
    // A sampled shader without its sampler: a binding error naming it.
    let o = exe()
        .args([
            "run",
            &data("image_sampled.spv"),
            "--image",
            &format!("0:0={floats},r32f,4x4"),
            "--buffer",
            &format!("0:6={table}"),
            "--buffer",
            &format!("0:7={big}"),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("no sampler bound at set 0 binding 0"), "{e}");
    // Wrong sizes and names.
    let o = exe()
        .args([
            "run",
            &storage,
            "--image",
            &format!("0:0={counts},r32ui,4x5"),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("has 64 bytes; 4x5x1 texels of r32ui need 80"),
        "{e}"
    );
    for (bad, says) in [
        (format!("0:0={counts},rgb565,4x4"), "is not an image format"),
        (
            format!("0:0={counts},r32ui,4x0"),
            "not a size of at least 1",
        ),
        (format!("0:0={counts},r32ui,4x4s3"), "samples per texel"),
        (
            "0:0=onlyafile".to_string(),
            "SET:BINDING[ELEMENT]=FILE,FORMAT",
        ),
    ] {
        let o = exe()
            .args(["run", &storage, "--image", &bad])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(says), "{bad}: {e}");
    }
    let o = exe()
        .args(["run", &storage, "--sampler", "0:5=cubic,clamp"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nearest or linear"));
}

/// Descriptor array elements are bound and written back as `SET:BINDING[ELEMENT]`; a missing
/// element is a binding error naming it.
#[test]
fn descriptor_array_elements_are_bound_with_an_index() {
    // buffer_array.comp: three buffers { count; data[] } at 0:0, sums at 0:1, a pick push
    // constant; ins[pick].data[i] += 1000.
    let spv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/buffer_array.spv")
        .display()
        .to_string();
    let mut args: Vec<String> = vec!["run".into(), spv, "--subgroup-size".into(), "4".into()];
    for e in 0..3u32 {
        let f = tmp(&format!("array.{e}"));
        write_words(
            &f,
            std::iter::once(10 + e).chain((0..4 + e).map(|i| e + 1 + i)),
        );
        args.push("--buffer".into());
        args.push(format!("0:0[{e}]={}", f.display()));
    }
    let sums = tmp("array.sums");
    write_words(&sums, std::iter::repeat_n(0, 16));
    let pick = tmp("array.pick");
    write_words(&pick, std::iter::once(2));
    let out = tmp("array.out");
    args.extend([
        "--buffer".into(),
        format!("0:1={}", sums.display()),
        "--push".into(),
        pick.display().to_string(),
        "--out".into(),
        format!("0:0[2]={}", out.display()),
        "--json".into(),
    ]);
    let o = exe().args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let words: Vec<u32> = std::fs::read(&out)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, [12, 1003, 1004, 1005, 1006, 7, 8]);
    // Without element 1 the run does not start, and says which element is missing.
    let k = args.iter().position(|a| a.starts_with("0:0[1]=")).unwrap();
    let mut without = args.clone();
    without.drain(k - 1..=k);
    let o = exe().args(&without).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no buffer bound at set 0 binding 0 element 1"),
        "{err}"
    );
    // Element 2 may share element 1's buffer: the write through element 2 lands there.
    let out1 = tmp("array.out1");
    let shared: Vec<String> = args
        .iter()
        .zip(std::iter::once("").chain(args.iter().map(String::as_str)))
        .map(|(a, before)| match (before, a.starts_with("0:0[2]=")) {
            ("--buffer", true) => "0:0[2]=@0:0[1]".to_string(),
            ("--out", true) => format!("0:0[1]={}", out1.display()),
            _ => a.clone(),
        })
        .collect();
    let o = exe().args(&shared).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let words: Vec<u32> = std::fs::read(&out1)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, [11, 1002, 1003, 1004, 1005, 6]);
}

/// WGSL in the form a browser requires runs from the command line; a directive naga cannot
/// compile is an error at its place in the file.
#[test]
fn wgsl_with_browser_directives_runs() {
    let src = tmp("browser_form.wgsl");
    std::fs::write(
        &src,
        "enable subgroups;\nenable f16;\nrequires packed_4x8_integer_dot_product;\n\
         diagnostic(off, subgroup_uniformity);\n\n\
         @group(0) @binding(0) var<storage, read_write> outp: array<u32>;\n\n\
         @compute @workgroup_size(32)\n\
         fn main(@builtin(local_invocation_index) l: u32) {\n\
         \x20   if (l % 3u == 0u) {\n\
         \x20       outp[l] = subgroupBallot(true).x;\n\
         \x20   }\n\
         \x20   outp[32u + l] = u32(f16(l) + 0.5h) + dot4U8Packed(l, 0x01010101u);\n\
         }\n",
    )
    .unwrap();
    let buf = tmp("browser_form.in");
    let out = tmp("browser_form.out");
    write_words(&buf, std::iter::repeat_n(0, 64));
    let o = exe()
        .args([
            "run",
            src.to_str().unwrap(),
            "--buffer",
            &format!("0:0={}", buf.display()),
            "--out",
            &format!("0:0={}", out.display()),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let w = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    let every_third = (0..32).filter(|l| l % 3 == 0).fold(0u32, |m, l| m | 1 << l);
    for l in 0..32u32 {
        let ballot = if l % 3 == 0 { every_third } else { 0 };
        assert_eq!(w(l as usize), ballot, "ballot of invocation {l}");
        assert_eq!(w(32 + l as usize), l + l, "invocation {l}");
    }

    let bad = tmp("browser_form_bad.wgsl");
    std::fs::write(
        &bad,
        "enable subgroups;\nrequires unrestricted_pointer_parameters;\n\
         @compute @workgroup_size(1)\nfn main() {}\n",
    )
    .unwrap();
    let o = exe().args(["run", bad.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with(&format!("{}:2:10: ", bad.display())),
        "{err}"
    );
    assert!(err.contains("not implemented by naga 30"), "{err}");
}

#[test]
fn debug_printf_lines_on_stdout_in_a_file_and_in_json() {
    let shader = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/printf/printf_divergent.spv")
        .display()
        .to_string();
    let buf = tmp("printf.buf");
    write_words(&buf, std::iter::repeat_n(0, 8));
    let base = [
        "run".to_string(),
        shader,
        "--buffer".into(),
        format!("0:0={}", buf.display()),
    ];
    let o = exe().args(&base).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[wg 0,0,0 inv 0] even 0 v=100");
    assert_eq!(lines[4], "[wg 0,0,0 inv 1] odd 1 v=6");
    assert_eq!(
        lines[15],
        "[wg 0,0,0 inv 7] after 7: 7.000000, 0.500000 7696581394432 10.50%"
    );
    assert!(lines[16].starts_with("entry point"), "{out}");

    // --printf FILE: the lines go there, not to stdout.
    let file = tmp("printf.txt");
    let o = exe()
        .args(&base)
        .args(["--printf", &file.display().to_string()])
        .output()
        .unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.starts_with("entry point"), "{out}");
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(written.lines().count(), 16);
    assert!(written.starts_with("[wg 0,0,0 inv 0] even 0 v=100\n"));

    // --json: every line with who printed it and when.
    let o = exe().args(&base).arg("--json").output().unwrap();
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = v["printf"].as_array().unwrap();
    assert_eq!(p.len(), 16);
    assert_eq!(p[4]["text"], "odd 1 v=6");
    assert_eq!(p[4]["lane"], 1);
    assert_eq!(p[4]["invocation"], 1);
    assert_eq!(p[4]["subgroup"], 0);
    assert_eq!(p[4]["workgroup"], serde_json::json!([0, 0, 0]));
    assert!(p[4]["step"].as_u64().unwrap() > p[0]["step"].as_u64().unwrap());
    assert!(p[4]["instruction"].as_u64().is_some());
    assert_eq!(v["printf_dropped"], 0);

    // From the GLSL source (compiled with debug information): each line's source line.
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/printf/printf_divergent.comp")
        .display()
        .to_string();
    let o = exe()
        .args([
            "run",
            &source,
            "--buffer",
            &format!("0:0={}", buf.display()),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = v["printf"].as_array().unwrap();
    assert_eq!(
        (p[0]["text"].as_str(), p[0]["line"].as_u64()),
        (Some("even 0 v=100"), Some(17))
    );
    assert_eq!(
        (p[4]["text"].as_str(), p[4]["line"].as_u64()),
        (Some("odd 1 v=6"), Some(22))
    );
    assert_eq!(p[8]["line"], 26);

    // The limit: what is dropped is counted in a last line.
    let o = exe()
        .args(&base)
        .args(["--max-printf-lines", "3"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[2], "[wg 0,0,0 inv 4] even 4 v=112");
    assert!(
        lines[3].starts_with("[printf] 13 lines dropped")
            && lines[3].contains("--max-printf-lines"),
        "{out}"
    );
}

/// `-D`, `-I` and `--target-env` reach the GLSL compiler (in its worker process): an include
/// tree beside the file and in an include folder, a macro setting the workgroup width; HLSL
/// compiles with `--entry` naming its function.
#[test]
fn glsl_includes_defines_and_hlsl_entry_points_from_the_command_line() {
    let root = tmp("build-settings");
    std::fs::create_dir_all(root.join("src/lib")).unwrap();
    std::fs::create_dir_all(root.join("inc")).unwrap();
    std::fs::write(
        root.join("inc/bias.glsl"),
        "#ifndef BIAS_GLSL\n#define BIAS_GLSL\nconst uint BIAS = 5u;\n#endif\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/lib/f.glsl"),
        "#include <bias.glsl>\nuint f(uint x) { return x * 3u + BIAS; }\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/k.comp"),
        "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"lib/f.glsl\"\n\
         layout(local_size_x = WIDTH) in;\nlayout(binding = 0) buffer B { uint o[]; };\n\
         void main() { o[gl_LocalInvocationID.x] = f(gl_LocalInvocationID.x); }\n",
    )
    .unwrap();
    let input = root.join("in.bin");
    write_words(&input, std::iter::repeat_n(0, 8));
    let out = root.join("out.bin");
    let run = |extra: &[&str]| {
        exe()
            .arg("run")
            .arg(root.join("src/k.comp"))
            .args(["--buffer", &format!("0:0={}", input.display())])
            .args(["--out", &format!("0:0={}", out.display())])
            .args(extra)
            .output()
            .unwrap()
    };
    let inc = root.join("inc").display().to_string();
    let o = run(&["-I", &inc, "-D", "WIDTH=4", "--target-env", "vulkan1.2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(read_words(&out), vec![5, 8, 11, 14, 0, 0, 0, 0]);
    // Without the include folder: the error names the chain and where it looked.
    let o = run(&["-D", "WIDTH=4"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("f.glsl:1:"), "{err}");
    assert!(err.contains("`bias.glsl`, included from "), "{err}");
    // A nonsense macro name or environment is a usage error (exit 2).
    assert_eq!(run(&["-D", "4X=1"]).status.code(), Some(2));
    assert_eq!(run(&["--target-env", "vulkan9"]).status.code(), Some(2));

    let hlsl = root.join("k.hlsl");
    std::fs::write(
        &hlsl,
        "RWStructuredBuffer<uint> o : register(u0);\n[numthreads(8, 1, 1)]\n\
         void Go(uint3 t : SV_GroupThreadID) { o[t.x] = WaveActiveSum(t.x) + t.x; }\n",
    )
    .unwrap();
    let o = exe()
        .arg("run")
        .arg(&hlsl)
        .args(["--entry", "Go"])
        .args(["--buffer", &format!("0:0={}", input.display())])
        .args(["--out", &format!("0:0={}", out.display())])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        read_words(&out),
        (0..8).map(|i| 28 + i).collect::<Vec<u32>>()
    );
}
