//! GLSL and HLSL as real projects build them: `#include` trees read from disk (each line in
//! its own file in the debug information), `-D` macros, target environments, and HLSL compute
//! shaders through glslang's HLSL front end, each run and checked against a model.
#![cfg(not(target_arch = "wasm32"))]

use lanescope_core::program::Program;
use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
use lanescope_front::{compile, CompileError, CompileOptions, Compiled, Language};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A fresh folder holding `files` (path, text).
fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("lanescope-build-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    root
}

fn options(root: &Path, file: &str) -> CompileOptions {
    CompileOptions {
        file_name: file.into(),
        source_dir: Some(root.join(file).parent().unwrap().to_path_buf()),
        ..CompileOptions::default()
    }
}

fn build(
    root: &Path,
    file: &str,
    opts: &CompileOptions,
    language: Language,
) -> Result<Compiled, CompileError> {
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    compile(language, &text, opts)
}

/// Runs one workgroup with `input` as the buffer at 0:0; the buffer's final words.
fn run(words: &[u32], input: Vec<u32>, entry: Option<&str>) -> (Arc<Program>, Vec<u32>) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = LoadOptions {
        entry: entry.map(str::to_string),
        ..LoadOptions::default()
    };
    let prog = Arc::new(load(&bytes, &opts).unwrap_or_else(|e| panic!("{e}")));
    let b = Bindings {
        buffers: vec![(0, 0, input.iter().flat_map(|w| w.to_le_bytes()).collect())],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(Arc::clone(&prog), Config::default(), &b).unwrap();
    assert_eq!(sim.run(10_000_000).unwrap(), Outcome::Finished);
    let out = sim
        .buffer(0, 0)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (prog, out)
}

const TYPES: &str = "#ifndef TYPES_GLSL
#define TYPES_GLSL
#define BIAS 3u
uint twice(uint x) {
    return x * 2u;
}
#endif
";

const HELPER: &str = "#include \"types.glsl\"
uint helper(uint x) {
    uint t = twice(x);
    return t + BIAS;
}
";

const MAIN: &str = "#version 450
#extension GL_GOOGLE_include_directive : require
#include \"lib/helper.glsl\"
#include <types.glsl>
layout(local_size_x = WIDTH) in;
layout(binding = 0) buffer B { uint o[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    o[i] = helper(i) + twice(1u);
}
";

/// main.comp includes lib/helper.glsl (beside it) and <types.glsl> (from an include folder);
/// helper.glsl includes "types.glsl" again, which its own folder lacks: the include folder
/// has it, and its guard keeps the second copy out.
fn include_tree(name: &str) -> PathBuf {
    tree(
        name,
        &[
            ("src/main.comp", MAIN),
            ("src/lib/helper.glsl", HELPER),
            ("inc/types.glsl", TYPES),
        ],
    )
}

#[test]
fn an_include_tree_with_a_header_used_twice_compiles_and_runs() {
    let root = include_tree("tree_twice");
    let mut opts = options(&root, "src/main.comp");
    opts.include_dirs = vec![root.join("inc")];
    opts.defines = vec![("WIDTH".into(), Some("8".into()))];
    let c = build(&root, "src/main.comp", &opts, Language::Glsl).unwrap_or_else(|e| panic!("{e}"));
    let (prog, out) = run(&c.words, vec![0; 8], None);
    let want: Vec<u32> = (0..8).map(|i| i * 2 + 3 + 2).collect();
    assert_eq!(out, want);
    // Each file's lines are in its own file in the debug information, with its text.
    let debug = prog.debug().expect("debug information");
    let names: Vec<&str> = debug.files.iter().map(|f| f.name.as_str()).collect();
    let helper = debug
        .files
        .iter()
        .find(|f| f.name.ends_with("helper.glsl"))
        .unwrap_or_else(|| panic!("{names:?}"));
    assert_eq!(helper.text.as_deref(), Some(HELPER), "{names:?}");
    // The main file's text as written, once: not the text glslang was handed (with its
    // include extension and #line) nor the preprocessed text before it.
    let main = debug
        .files
        .iter()
        .find(|f| f.name.ends_with("main.comp"))
        .unwrap_or_else(|| panic!("{names:?}"));
    assert_eq!(main.text.as_deref(), Some(MAIN), "{names:?}");
    assert!(
        debug
            .files
            .iter()
            .any(|f| f.name.ends_with("types.glsl") && f.text.as_deref() == Some(TYPES)),
        "{names:?}"
    );
    // Each step is on its own file's line: main's after the includes stay main.comp's.
    let lines = lines_run(&c.words);
    for (file, line) in [
        ("main.comp", 9),
        ("helper.glsl", 3),
        ("helper.glsl", 4),
        ("types.glsl", 5),
    ] {
        assert!(
            lines.iter().any(|(f, l)| f.ends_with(file) && *l == line),
            "{file}:{line} not among {lines:?}"
        );
    }
    for (f, l) in &lines {
        let text = if f.ends_with("main.comp") {
            MAIN
        } else if f.ends_with("helper.glsl") {
            HELPER
        } else {
            TYPES
        };
        assert!(
            *l as usize <= text.lines().count(),
            "{f}:{l} is past its end"
        );
    }
}

/// (file, line) of every step of a one-workgroup run of `words` (WIDTH 8).
fn lines_run(words: &[u32]) -> Vec<(String, u32)> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 64])],
        ..Bindings::default()
    };
    let cfg = Config {
        record_trace: true,
        ..Config::default()
    };
    let mut sim = Simulator::new(Arc::clone(&prog), cfg, &b).unwrap();
    sim.run(1_000_000).unwrap();
    let d = prog.debug().unwrap();
    sim.trace()
        .iter()
        .filter_map(|e| {
            let pos = d.pos(prog.step_index(e.block, e.pos))?;
            Some((d.file_name(pos.file)?.to_owned(), pos.line))
        })
        .collect()
}

/// The same tree with no disk (the browser): the headers given as text, found relative to the
/// including file's name and to the include folder, the run and the debug information as from
/// disk.
#[test]
fn an_include_tree_given_as_text_compiles_as_from_disk() {
    let opts = CompileOptions {
        file_name: "main.comp".into(),
        include_dirs: vec!["inc".into()],
        defines: vec![("WIDTH".into(), Some("8".into()))],
        include_files: vec![
            ("lib/helper.glsl".into(), HELPER.into()),
            ("inc/types.glsl".into(), TYPES.into()),
        ],
        ..CompileOptions::default()
    };
    let c = compile(Language::Glsl, MAIN, &opts).unwrap_or_else(|e| panic!("{e}"));
    let (prog, out) = run(&c.words, vec![0; 8], None);
    let want: Vec<u32> = (0..8).map(|i| i * 2 + 3 + 2).collect();
    assert_eq!(out, want);
    let debug = prog.debug().expect("debug information");
    let texts: Vec<(&str, Option<&str>)> = debug
        .files
        .iter()
        .map(|f| (f.name.as_str(), f.text.as_deref()))
        .collect();
    for (name, text) in [
        ("main.comp", MAIN),
        ("lib/helper.glsl", HELPER),
        ("inc/types.glsl", TYPES),
    ] {
        assert!(
            texts.contains(&(name, Some(text))),
            "{name} not in {texts:?}"
        );
    }
    // A header neither given nor on disk: the chain and the places looked in, as from disk.
    let opts = CompileOptions {
        include_files: vec![("lib/helper.glsl".into(), HELPER.into())],
        ..opts
    };
    let e = compile(Language::Glsl, MAIN, &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("types.glsl"), "{e}");
}

#[test]
fn a_missing_include_names_its_chain_and_where_it_looked() {
    let root = include_tree("tree_missing");
    // No include folder: helper.glsl's "types.glsl" is nowhere.
    let mut opts = options(&root, "src/main.comp");
    opts.defines = vec![("WIDTH".into(), None)];
    let e = build(&root, "src/main.comp", &opts, Language::Glsl).unwrap_err();
    let text = e.render("src/main.comp", MAIN);
    assert!(text.contains("helper.glsl:1:"), "{text}");
    assert!(
        text.contains("`types.glsl`, included from ")
            && text.contains("helper.glsl, included from src/main.comp: not found in `"),
        "{text}"
    );
    // Said once, though glslang asks twice (as "..." and again as <...>).
    let helper_lines = text.matches("`types.glsl`, included from ").count();
    assert_eq!(
        helper_lines, 2,
        "one for helper.glsl's include, one for main's <types.glsl>:\n{text}"
    );
    let in_helper = e
        .diagnostics
        .iter()
        .find(|d| d.file.is_some())
        .expect("a line in helper.glsl");
    assert!(in_helper.file.as_deref().unwrap().ends_with("helper.glsl"));
    assert_eq!(in_helper.line, 1);
}

#[test]
fn defines_change_the_specialised_shape() {
    let root = include_tree("tree_defines");
    for width in [4u32, 16] {
        let mut opts = options(&root, "src/main.comp");
        opts.include_dirs = vec![root.join("inc")];
        opts.defines = vec![("WIDTH".into(), Some(width.to_string()))];
        let c = build(&root, "src/main.comp", &opts, Language::Glsl).unwrap();
        let (prog, out) = run(&c.words, vec![0; 16], None);
        assert_eq!(prog.local_size(), [width, 1, 1]);
        let written = out.iter().filter(|w| **w != 0).count() as u32;
        assert_eq!(written, width);
    }
    // A name that is no macro name is refused before glslang sees it.
    let mut opts = options(&root, "src/main.comp");
    opts.defines = vec![("1WIDTH".into(), Some("4".into()))];
    let e = build(&root, "src/main.comp", &opts, Language::Glsl).unwrap_err();
    assert!(e.to_string().contains("not a macro name"), "{e}");
}

#[test]
fn the_target_environment_sets_the_spirv_version() {
    use lanescope_core::spvtext::TargetEnv;
    let root = tree("target", &[("k.comp", "#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer B { uint o[]; };\nvoid main() { o[0] = 7u; }\n")]);
    for (env, version) in [
        (None, 0x0001_0600),
        (Some(TargetEnv::Vulkan1_1), 0x0001_0300),
        (Some(TargetEnv::Vulkan1_2), 0x0001_0500),
        (Some(TargetEnv::Spv1_4), 0x0001_0400),
    ] {
        let mut opts = options(&root, "k.comp");
        opts.target_env = env;
        let c = build(&root, "k.comp", &opts, Language::Glsl).unwrap();
        assert_eq!(c.words[1], version, "{env:?}");
        assert_eq!(run(&c.words, vec![0], None).1, vec![7]);
    }
    let mut opts = options(&root, "k.comp");
    opts.target_env = Some(TargetEnv::OpenCl2_0);
    let e = build(&root, "k.comp", &opts, Language::Glsl).unwrap_err();
    assert!(e.to_string().contains("compile for Vulkan"), "{e}");
}

const HLSL: &str = "RWStructuredBuffer<uint> data : register(u0);
groupshared uint partial[2];

[numthreads(64, 1, 1)]
void CSMain(uint3 tid : SV_GroupThreadID) {
    uint v = data[tid.x];
    uint sum = WaveActiveSum(v);
    uint4 odd = WaveActiveBallot((v & 1u) == 1u);
    uint before = WavePrefixSum(v);
    uint third = WaveReadLaneAt(v, 3);
    if (WaveIsFirstLane()) {
        partial[tid.x / 32] = sum;
    }
    GroupMemoryBarrierWithGroupSync();
    uint total = partial[0] + partial[1];
    uint summary = total * 1000000u + before * 10u + ((odd.x >> (tid.x % 32)) & 1u);
    data[tid.x] = tid.x == 0 ? third : summary;
}
";

/// An HLSL reduction with Wave intrinsics, groupshared memory and a group barrier, against a
/// model: subgroups of 32, so each wave's sums and prefixes are over its own 32 lanes. glslang
/// compiles WavePrefixSum as an inclusive scan (HLSL's is exclusive): the model follows the
/// module, and the compile warns at the call.
#[test]
fn an_hlsl_reduction_and_ballot_match_a_model() {
    let root = tree("hlsl", &[("reduce.hlsl", HLSL)]);
    let mut opts = options(&root, "reduce.hlsl");
    opts.entry = Some("CSMain".into());
    let c = build(&root, "reduce.hlsl", &opts, Language::Hlsl)
        .unwrap_or_else(|e| panic!("{}", e.render("reduce.hlsl", HLSL)));
    let input: Vec<u32> = (0..64).map(|i| (i * 7 + 3) % 50).collect();
    let warned: Vec<_> = c
        .warnings
        .iter()
        .filter(|w| w.message.contains("inclusive scan"))
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", c.warnings);
    assert_eq!((warned[0].line, warned[0].column), (9, 19));
    let (prog, out) = run(&c.words, input.clone(), Some("CSMain"));
    let total: u32 = input.iter().sum();
    for (i, w) in out.iter().enumerate() {
        let wave = &input[i / 32 * 32..i / 32 * 32 + 32];
        // Inclusive, as glslang's module says (DXC's would stop before this lane).
        let before: u32 = wave[..=i % 32].iter().sum();
        let odd = input[i] & 1;
        let want = if i == 0 {
            wave[3]
        } else {
            total * 1_000_000 + before * 10 + odd
        };
        assert_eq!(*w, want, "invocation {i}");
    }
    // With its source: the file and its text in the debug information.
    let debug = prog.debug().expect("debug information");
    assert!(
        debug
            .files
            .iter()
            .any(|f| f.name.ends_with("reduce.hlsl") && f.text.is_some()),
        "{:?}",
        debug.files.iter().map(|f| &f.name).collect::<Vec<_>>()
    );
    // The wrong entry point is a positioned refusal, not a crash.
    opts.entry = Some("Missing".into());
    assert!(build(&root, "reduce.hlsl", &opts, Language::Hlsl).is_err());
}

/// HLSL's `printf` reaches the same debugPrintf log as GLSL's `debugPrintfEXT`.
#[test]
fn hlsl_printf_prints_per_invocation() {
    let src = "RWStructuredBuffer<uint> o : register(u0);\n[numthreads(4, 1, 1)]\n\
               void main(uint3 t : SV_GroupThreadID) {\n    printf(\"lane %u value %d\", t.x, int(t.x) - 2);\n    o[t.x] = t.x;\n}\n";
    let root = tree("hlsl-printf", &[("p.hlsl", src)]);
    let c = build(&root, "p.hlsl", &options(&root, "p.hlsl"), Language::Hlsl)
        .unwrap_or_else(|e| panic!("{}", e.render("p.hlsl", src)));
    let bytes: Vec<u8> = c.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let prog = Arc::new(load(&bytes, &LoadOptions::default()).unwrap());
    let b = Bindings {
        buffers: vec![(0, 0, vec![0; 16])],
        ..Bindings::default()
    };
    let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
    assert_eq!(sim.run(100_000).unwrap(), Outcome::Finished);
    let lines: Vec<String> = sim.printf_lines().iter().map(|l| l.text.clone()).collect();
    assert_eq!(
        lines,
        [
            "lane 0 value -2",
            "lane 1 value -1",
            "lane 2 value 0",
            "lane 3 value 1"
        ]
    );
}
