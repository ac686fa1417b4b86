//! WGSL as browsers take it: the `enable`, `requires` and `diagnostic` directives at the top of
//! a module compile and run, errors keep their places in the user's text, and what naga cannot
//! compile is refused at the directive.

use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
use lanescope_front::{compile, CompileError, CompileOptions, Language};
use std::sync::Arc;

fn build(source: &str) -> Vec<u8> {
    let opts = CompileOptions {
        file_name: "test.wgsl".into(),
        ..CompileOptions::default()
    };
    match compile(Language::Wgsl, source, &opts) {
        Ok(c) => c.bytes(),
        Err(e) => panic!("compile failed:\n{}", e.render("test.wgsl", source)),
    }
}

fn error(source: &str) -> CompileError {
    compile(Language::Wgsl, source, &CompileOptions::default())
        .map(|_| ())
        .expect_err("the source should not compile")
}

/// Runs one workgroup of `module` with `words` output words at binding 0; returns them.
fn run(module: &[u8], words: usize) -> Vec<u32> {
    let prog = Arc::new(load(module, &LoadOptions::default()).expect("load"));
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; words * 4])],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).expect("simulator");
    assert_eq!(sim.run(10_000_000).expect("run"), Outcome::Finished);
    sim.buffer(0, 0)
        .expect("buffer")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The 1-based line and character column of the first `needle` in `text`.
fn place(text: &str, needle: &str) -> (u32, u32) {
    let at = text.find(needle).expect("needle in text");
    let before = &text[..at];
    let line = before.matches('\n').count() as u32 + 1;
    let start = before.rfind('\n').map_or(0, |p| p + 1);
    (line, before[start..].chars().count() as u32 + 1)
}

/// A ballot in non-uniform control flow (what `diagnostic(off, subgroup_uniformity)` is for),
/// an f16 sum and a packed dot product, after `directives`.
fn browser_kernel(directives: &str) -> String {
    format!(
        "{directives}
@group(0) @binding(0) var<storage, read_write> outp: array<u32>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) l: u32) {{
    if (l % 3u == 0u) {{
        outp[l] = subgroupBallot(true).x;
    }}
    let h = f16(l) + 0.5h;
    outp[32u + l] = u32(h * 2.0h);
    outp[64u + l] = dot4U8Packed(l * 0x01010101u, 0x01020304u);
}}
"
    )
}

fn check_browser_kernel(out: &[u32]) {
    let every_third = (0..32).filter(|l| l % 3 == 0).fold(0u32, |m, l| m | 1 << l);
    for l in 0..32u32 {
        let ballot = if l % 3 == 0 { every_third } else { 0 };
        assert_eq!(out[l as usize], ballot, "ballot of invocation {l}");
        assert_eq!(out[32 + l as usize], 2 * l + 1, "f16 of invocation {l}");
        assert_eq!(
            out[64 + l as usize],
            l * (1 + 2 + 3 + 4),
            "dot of invocation {l}"
        );
    }
}

#[test]
fn the_directives_a_browser_requires_compile_and_run() {
    let src = browser_kernel(
        "enable subgroups;\nenable f16;\nrequires packed_4x8_integer_dot_product;\n\
         diagnostic(off, subgroup_uniformity);\n",
    );
    check_browser_kernel(&run(&build(&src), 96));
}

#[test]
fn directives_with_comments_and_odd_spacing_are_read_as_wgsl_reads_them() {
    for directives in [
        "enable  subgroups ,f16 ;",
        "enable f16, subgroups;",
        "enable f16,subgroups,;",
        "enable /* c */ subgroups /* a /* nested */ comment */ , // to the end\n  f16\t,\n;",
        "enable subgroups; enable f16; requires subgroup_uniformity, packed_4x8_integer_dot_product;",
        "// a comment first\ndiagnostic ( off , subgroup_uniformity ) ;\nenable subgroups,\n    f16;",
        "enable /* é, ü: not one byte each */ subgroups; enable f16;",
    ] {
        let src = browser_kernel(directives);
        let opts = CompileOptions::default();
        let module = match compile(Language::Wgsl, &src, &opts) {
            Ok(c) => c.bytes(),
            Err(e) => panic!("{directives:?}:\n{}", e.render("test.wgsl", &src)),
        };
        check_browser_kernel(&run(&module, 96));
    }
}

#[test]
fn errors_after_the_directives_keep_their_line_and_column() {
    let body = "@compute @workgroup_size(1)\nfn main() {\n    let x: u32 = undefined_name;\n}\n";
    let plain = error(body);
    assert_eq!(
        (plain.diagnostics[0].line, plain.diagnostics[0].column),
        (3, 18)
    );
    for directives in [
        "enable subgroups;\nenable f16;\n",
        "enable subgroups;\nrequires subgroup_id;\ndiagnostic(off, subgroup_uniformity);\n",
        // On the line of the error, with characters of several bytes blanked before it.
        "enable /* é ü */ subgroups, f16; ",
    ] {
        let src = format!("{directives}{body}");
        let e = error(&src);
        let d = &e.diagnostics[0];
        assert_eq!((d.line, d.column), place(&src, "undefined_name"), "{e:?}");
        assert_eq!(d.len, plain.diagnostics[0].len);
        assert_eq!(d.message, plain.diagnostics[0].message);
    }
    // One line down for each line of directives, the same column.
    let src = format!("enable subgroups;\n\n{body}");
    let d = &error(&src).diagnostics[0];
    assert_eq!((d.line, d.column), (5, 18));
}

#[test]
fn unrestricted_pointer_parameters_is_refused_at_the_directive() {
    let src = "enable subgroups;\nrequires  unrestricted_pointer_parameters;\n\
               @compute @workgroup_size(1)\nfn main() {}\n";
    let e = error(src);
    assert_eq!(e.diagnostics.len(), 1, "{e:?}");
    let d = &e.diagnostics[0];
    assert_eq!((d.line, d.column), (2, 11), "{e:?}");
    assert_eq!(d.len, "unrestricted_pointer_parameters".len() as u32);
    assert_eq!(
        d.message,
        "`requires unrestricted_pointer_parameters` is not implemented by naga 30, \
         the WGSL compiler Lanescope uses"
    );
    assert!(e.render("x.wgsl", src).starts_with("x.wgsl:2:11: "));
}

#[test]
fn unknown_and_unrunnable_extensions_are_errors_naming_them() {
    let src = "enable subgroups, not_a_thing;\n@compute @workgroup_size(1)\nfn main() {}\n";
    let e = error(src);
    let d = &e.diagnostics[0];
    assert_eq!((d.line, d.column, d.len), (1, 19, 11), "{e:?}");
    assert!(d.message.contains("`not_a_thing`"), "{}", d.message);
    assert!(
        d.message.contains("subgroups"),
        "lists what is taken: {}",
        d.message
    );

    let src = "requires f16;\n@compute @workgroup_size(1)\nfn main() {}\n";
    let d = &error(src).diagnostics[0];
    assert_eq!((d.line, d.column), (1, 10));
    assert!(
        d.message.contains("language extension `f16`"),
        "{}",
        d.message
    );

    let src =
        "enable f16;\n/* */ enable  wgpu_ray_query;\n@compute @workgroup_size(1)\nfn main() {}\n";
    let d = &error(src).diagnostics[0];
    assert_eq!((d.line, d.column), (2, 15));
    assert!(d.message.contains("ray queries"), "{}", d.message);
}

#[test]
fn malformed_directives_are_errors_where_they_go_wrong() {
    let src = "enable subgroups\n@compute @workgroup_size(1)\nfn main() {}\n";
    let d = &error(src).diagnostics[0];
    assert_eq!((d.line, d.column, d.len), (2, 1, 1), "{d:?}");
    assert!(d.message.contains("after `subgroups`"), "{}", d.message);
    let d = &error("requires ;\n").diagnostics[0];
    assert_eq!((d.line, d.column), (1, 10), "{d:?}");
    // An unterminated comment in a directive: an error at the end, no panic.
    let d = &error("enable /* subgroups;").diagnostics[0];
    assert_eq!((d.line, d.column), (1, 21), "{d:?}");
}

#[test]
fn the_source_view_shows_the_users_own_text() {
    let src =
        browser_kernel("enable subgroups;\nenable f16;\ndiagnostic(off, subgroup_uniformity);\n");
    let prog = load(&build(&src), &LoadOptions::default()).expect("load");
    let debug = prog.debug().expect("debug information");
    let texts: Vec<&str> = debug
        .files
        .iter()
        .filter_map(|f| f.text.as_deref())
        .collect();
    assert_eq!(texts, [src.as_str()]);
    // And the ballot's instructions are on the ballot's line.
    let (line, _) = place(&src, "subgroupBallot");
    let lines: Vec<u32> = (0..prog.module().len() as u32)
        .filter_map(|i| prog.source_ref(i).line)
        .collect();
    assert!(
        lines.contains(&line),
        "no instruction on line {line}: {lines:?}"
    );
}

/// What users copy out of the templates works in a browser: subgroup built-ins come with
/// `enable subgroups;`, f16 with `enable f16;`.
#[test]
fn the_wgsl_templates_are_in_the_form_browsers_take() {
    let templates = [
        (
            "divergent_loop.wgsl",
            include_str!("../../assets/templates/divergent_loop.wgsl"),
        ),
        (
            "subgroup_reduction.wgsl",
            include_str!("../../assets/templates/subgroup_reduction.wgsl"),
        ),
        (
            "coop_muladd.wgsl",
            include_str!("../../assets/templates/coop_muladd.wgsl"),
        ),
        (
            "dot_int8.wgsl",
            include_str!("../../assets/templates/dot_int8.wgsl"),
        ),
    ];
    for (name, text) in templates {
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        if code.contains("subgroup") {
            assert!(code.contains("enable subgroups;"), "{name}");
        }
        if code.contains("f16") {
            assert!(code.contains("enable f16;"), "{name}");
        }
        if code.contains("dot4") {
            assert!(
                code.contains("requires packed_4x8_integer_dot_product;"),
                "{name}"
            );
        }
        let opts = CompileOptions {
            file_name: name.into(),
            ..CompileOptions::default()
        };
        if let Err(e) = compile(Language::Wgsl, text, &opts) {
            panic!("{}", e.render(name, text));
        }
    }
}
