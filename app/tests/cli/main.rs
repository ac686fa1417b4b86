//! The headless command-line contract.

use std::path::{Path, PathBuf};
use std::process::Command;

mod bindings;
mod gpu;
mod sources;

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lanescope"))
}

/// The run exited with `code` and its error names `says`.
fn fails(o: &std::process::Output, code: i32, says: &str) {
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "{e}");
    assert!(e.contains(says), "{e}");
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
    fails(&o, 1, "--max-steps");
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
    fails(&o, 1, "--max-buffer-memory");

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
    fails(&o, 1, "cannot read");
    let junk = tmp("junk.spv");
    std::fs::write(&junk, b"definitely not spir-v").unwrap();
    let o = exe()
        .args(["run", junk.to_str().unwrap()])
        .output()
        .unwrap();
    fails(&o, 1, "malformed");
    // Missing buffer binding.
    let o = exe()
        .args([
            "run",
            reference("reconv", "c01_if_else.spv").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    fails(&o, 1, "binding");
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
    fails(&o, 1, "could not open a window");
    fails(&o, 1, "lanescope example");
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
    fails(&o, 1, "amd-rdna3");
    let table =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/coopmat_layout_transposed.json");
    // The table has no MatrixA: a clear load error naming the table.
    let o = base(&["--coopmat-layout", &table.display().to_string()]);
    fails(&o, 1, "transposed-example");
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
    fails(&o, 1, "7x16");
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
    fails(&o, 1, "specialization constant 0");
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
    fails(&o, 1, "set 4 binding 4");
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
    fails(&o, 1, "cannot write trace");
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
