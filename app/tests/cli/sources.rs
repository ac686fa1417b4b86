//! What the command line reads besides modules: AmberScript, SPIR-V assembly, WGSL in the
//! browser's form, GLSL with includes and defines, HLSL; and debugPrintf's lines.

use super::*;

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
    fails(&o, 1, "no buffer bound");
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

/// `--override KEY=VALUE` gives a WGSL source's overrides their values (by @id or by name), the
/// others keep their initializers; a key the module lacks, and `--override` on a module that is
/// not WGSL, are errors saying so.
#[test]
fn wgsl_overrides_from_the_command_line() {
    let src = tmp("overrides.wgsl");
    std::fs::write(
        &src,
        "@id(3) override SCALE: u32 = 2u;\noverride OFFSET: u32 = 5u;\n\
         @group(0) @binding(0) var<storage, read_write> data: array<u32, 64>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(local_invocation_index) i: u32) { data[i] = i * SCALE + OFFSET; }\n",
    )
    .unwrap();
    let buf = tmp("overrides-in.bin");
    std::fs::write(&buf, vec![0u8; 256]).unwrap();
    let out = tmp("overrides-out.bin");
    let run = |extra: &[&str]| {
        exe()
            .args(["run", &src.display().to_string()])
            .args(["--buffer", &format!("0:0={}", buf.display())])
            .args(["--out", &format!("0:0={}", out.display())])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(read_words(&out)[..3], [5, 7, 9]);
    let o = run(&["--override", "3=10", "--override", "OFFSET=1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(read_words(&out)[..3], [1, 11, 21]);
    fails(&run(&["--override", "SCALE=1"]), 1, "`SCALE` has @id(3)");
    fails(
        &run(&["--override", "WIDTH=1"]),
        1,
        "no override with that @id or name",
    );
    let o = exe()
        .args([
            "run",
            &reference("reconv", "c01_if_else.spv").display().to_string(),
        ])
        .args(["--override", "3=1"])
        .output()
        .unwrap();
    fails(&o, 1, "--override gives WGSL overrides their values");
}
