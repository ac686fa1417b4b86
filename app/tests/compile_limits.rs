//! GLSL compiles run in a worker process (`lanescope compile-worker`) under a time and a memory
//! limit: a source that would keep glslang busy for hours ends in an error naming the limit.

use lanescope_front::{
    compile, compile_bounded, CompileLimits, CompileOptions, Language, WorkerCommand,
};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn worker() -> WorkerCommand {
    WorkerCommand {
        program: env!("CARGO_BIN_EXE_lanescope").into(),
        args: vec!["compile-worker".into()],
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lanescope-limits-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Forty nested macros, each twice the one before: `M40` is 2^40 tokens for the preprocessor.
fn macro_bomb() -> String {
    let mut s = String::from("#version 450\nlayout(local_size_x = 1) in;\n#define M0 1\n");
    for k in 1..=40 {
        s.push_str(&format!("#define M{k} M{j}+1 M{j}+1\n", j = k - 1));
    }
    s.push_str("layout(set = 0, binding = 0) buffer B { int x; };\nvoid main() { x = M40; }\n");
    s
}

const NORMAL: &str = include_str!("../../core/tests/data/alias_binding.comp");

#[test]
fn a_macro_bomb_on_the_command_line_stops_at_the_compile_time_limit() {
    let path = tmp("bomb.comp");
    std::fs::write(&path, macro_bomb()).unwrap();
    let start = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_lanescope"))
        .args(["run", &path.display().to_string(), "--compile-timeout", "2"])
        .output()
        .unwrap();
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("GLSL compile stopped after 2 s: the compile time limit"),
        "{err}"
    );
    assert!(err.contains("--compile-timeout"), "{err}");
    // The limit plus the margin a loaded machine needs to start and kill a process.
    assert!(took < Duration::from_secs(12), "took {took:?}");
}

#[test]
fn a_macro_bomb_in_an_amber_script_stops_at_the_compile_time_limit() {
    let path = tmp("bomb.amber");
    let script = format!(
        "#!amber\nSHADER compute bomb GLSL\n{}END\nBUFFER b DATA_TYPE int32 SIZE 1 FILL 0\n\
         PIPELINE compute p\n  ATTACH bomb\n  BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         END\nRUN p 1 1 1\n",
        macro_bomb()
    );
    std::fs::write(&path, script).unwrap();
    let start = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_lanescope"))
        .args(["run", &path.display().to_string(), "--compile-timeout", "2"])
        .output()
        .unwrap();
    let took = start.elapsed();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(all.contains("the compile time limit"), "{all}");
    assert!(took < Duration::from_secs(12), "took {took:?}");
}

#[test]
fn the_worker_runs_under_the_compile_memory_limit() {
    // Too little for glslang to work in: the worker's allocations fail, and the error says which
    // limit (the bomb's memory grows too slowly to reach a larger limit in a test's time).
    let limits = CompileLimits {
        time: Duration::from_secs(60),
        memory: 32 << 20,
    };
    let e = compile_bounded(
        Language::Glsl,
        &macro_bomb(),
        &CompileOptions::default(),
        &limits,
        Some(&worker()),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("32 MiB") && e.contains("compile memory limit"),
        "{e}"
    );
    // The default leaves room for a real shader.
    compile_bounded(
        Language::Glsl,
        NORMAL,
        &CompileOptions::default(),
        &CompileLimits::default(),
        Some(&worker()),
    )
    .unwrap();
}

#[test]
fn a_normal_glsl_file_compiles_to_the_same_module_through_the_worker() {
    let opts = CompileOptions {
        file_name: "alias_binding.comp".into(),
        target_env: None,
        ..Default::default()
    };
    let direct = compile(Language::Glsl, NORMAL, &opts).unwrap();
    let bounded = compile_bounded(
        Language::Glsl,
        NORMAL,
        &opts,
        &CompileLimits::default(),
        Some(&worker()),
    )
    .unwrap();
    assert!(!direct.words.is_empty());
    assert_eq!(bounded.words, direct.words);
    assert_eq!(bounded.warnings, direct.warnings);
    // Errors come back positioned, as in-process.
    let bad = NORMAL.replace("float(i)", "float(nope)");
    let direct = compile(Language::Glsl, &bad, &opts).unwrap_err();
    let bounded = compile_bounded(
        Language::Glsl,
        &bad,
        &opts,
        &CompileLimits::default(),
        Some(&worker()),
    )
    .unwrap_err();
    assert_eq!(bounded, direct);
    assert!(bounded.diagnostics[0].line > 0, "{bounded:?}");
}

#[test]
fn a_normal_glsl_file_runs_through_the_command_line() {
    let path = tmp("alias_binding.comp");
    let buffer = tmp("alias_binding.buf");
    std::fs::write(&path, NORMAL).unwrap();
    std::fs::write(&buffer, [0u8; 32]).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_lanescope"))
        .args([
            "run",
            &path.display().to_string(),
            "--compile-timeout",
            "30",
        ])
        .args(["--buffer", &format!("0:0={}", buffer.display())])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_wgsl_chain_that_overflows_naga_stack_is_an_error_not_a_crash() {
    let src = format!(
        "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
         @compute @workgroup_size(1) fn main() {{ o[0] = {}; }}\n",
        vec!["1u"; 200_000].join("+")
    );
    let limits = CompileLimits {
        time: Duration::from_secs(30),
        ..CompileLimits::default()
    };
    let e = compile_bounded(
        Language::Wgsl,
        &src,
        &CompileOptions::default(),
        &limits,
        Some(&worker()),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("WGSL"), "{e}");
}

#[test]
fn wgsl_compiles_to_the_same_module_through_the_worker() {
    let src = include_str!("../../assets/templates/divergent_loop.wgsl");
    let opts = CompileOptions {
        file_name: "divergent_loop.wgsl".into(),
        ..Default::default()
    };
    let direct = compile(Language::Wgsl, src, &opts).unwrap();
    let bounded = compile_bounded(
        Language::Wgsl,
        src,
        &opts,
        &CompileLimits::default(),
        Some(&worker()),
    )
    .unwrap();
    assert_eq!(bounded.words, direct.words);
}

/// Frames until `done` holds (at most a minute); the slowest frame.
fn run_until(
    h: &mut egui_kittest::Harness<'_, lanescope::gui::LanescopeApp>,
    done: &dyn Fn(&lanescope::gui::LanescopeApp) -> bool,
) -> Duration {
    let start = Instant::now();
    let mut slowest = Duration::ZERO;
    while !done(h.state()) {
        assert!(start.elapsed() < Duration::from_secs(60), "no answer");
        let t = Instant::now();
        h.run_steps(1);
        slowest = slowest.max(t.elapsed());
        std::thread::sleep(Duration::from_millis(5));
    }
    slowest
}

/// The editor compiles off the UI thread: a macro bomb pasted into the source keeps the window
/// answering (every frame returns at once) until the compile stops at its time limit, and
/// text edited while a compile runs cancels it and compiles the new text.
#[test]
fn a_macro_bomb_typed_in_the_editor_never_freezes_the_window() {
    use lanescope::gui::LanescopeApp;
    lanescope::set_compile_worker(worker());
    let mut app = LanescopeApp::new(Default::default());
    app.settings.compile_seconds = 3.0;
    app.open("tile.comp", NORMAL.as_bytes().to_vec());
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    let type_text = |h: &mut egui_kittest::Harness<'_, LanescopeApp>, text: String| {
        let ed = h.state_mut().editor.as_mut().unwrap();
        ed.text = text;
        ed.edited_at = Some(0.0);
    };
    // Frames until the edit's compile has started (the debounce), then until it answers.
    let started = |a: &LanescopeApp| a.compiling.is_some();
    // Opening compiles off the UI thread too: the module opens when the compile answers.
    run_until(&mut h, &|a: &LanescopeApp| a.compiling.is_none());
    assert!(h.state().session.is_some(), "{:?}", h.state().error);
    let answered = |a: &LanescopeApp| {
        a.compiling.is_none() && a.editor.as_ref().is_some_and(|e| e.edited_at.is_none())
    };

    type_text(&mut h, macro_bomb());
    run_until(&mut h, &started);
    let t = Instant::now();
    let slowest = run_until(&mut h, &answered);
    // The window answered all along: no frame took a sizeable part of the compile's 3 s.
    assert!(
        slowest < Duration::from_millis(1000),
        "a frame took {slowest:?}"
    );
    assert!(t.elapsed() >= Duration::from_secs(2), "{:?}", t.elapsed());
    let err = h.state().error.clone().unwrap_or_default();
    assert!(err.contains("compile time limit"), "{err}");
    assert!(h.state().editor.as_ref().unwrap().stale);

    // A bomb again, then the good text while it compiles: the bomb's compile is cancelled
    // and the good text runs well before the bomb's limit.
    type_text(&mut h, macro_bomb());
    run_until(&mut h, &started);
    let t = Instant::now();
    type_text(&mut h, NORMAL.to_string());
    run_until(&mut h, &answered);
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let ed = h.state().editor.as_ref().unwrap();
    assert!(!ed.stale && ed.diagnostics.iter().all(|d| !d.error));
    assert!(
        h.state().status.starts_with("recompiled"),
        "{}",
        h.state().status
    );
}

/// Opening a macro bomb from disk: the file shows in the editor at once, the window keeps
/// answering while it compiles, and the compile stops at its limit with an error naming it.
#[test]
fn opening_a_macro_bomb_file_never_freezes_the_window() {
    use lanescope::gui::LanescopeApp;
    lanescope::set_compile_worker(worker());
    let path = tmp("bomb_open.comp");
    std::fs::write(&path, macro_bomb()).unwrap();
    let mut app = LanescopeApp::new(Default::default());
    app.settings.compile_seconds = 2.0;
    let t = Instant::now();
    app.open(&path.display().to_string(), macro_bomb().into_bytes());
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "open took {:?}",
        t.elapsed()
    );
    assert!(app.compiling.is_some());
    assert_eq!(
        app.editor.as_ref().map(|e| e.text.clone()),
        Some(macro_bomb())
    );
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    let slowest = run_until(&mut h, &|a: &LanescopeApp| a.compiling.is_none());
    assert!(
        slowest < Duration::from_millis(1000),
        "a frame took {slowest:?}"
    );
    let err = h.state().error.clone().unwrap_or_default();
    assert!(err.contains("compile time limit"), "{err}");
}
