//! The Inputs panel and AmberScript in the app: blocks laid out by their declaration, fills,
//! imports and exports, push and specialization constants, entry points, failed EXPECTs and
//! the files a script names.

use super::*;
use crate::gui::ask::Action;

const INPUTS_GLSL: &str = "#version 450
layout(local_size_x = 4) in;
layout(constant_id = 3) const uint K = 7u;
struct P { vec3 pos; float w; uint id; };
layout(std430, set = 0, binding = 0) buffer B { uint count; P items[]; } b;
layout(push_constant) uniform PC { uint n; float scale; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) {
        b.items[i].w = b.items[i].pos.x * pc.scale + float(K);
        b.items[i].id = i + K;
    }
    if (i == 0u) { b.count = pc.n; }
}
";

fn inputs_app() -> LanescopeApp {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_source(crate::gui::editor::Editor::new(
        "inputs.comp",
        lanescope_front::Language::Glsl,
        INPUTS_GLSL.into(),
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    app
}

/// Buffers and push constants read as the shader declares them: member names, vector
/// components, array elements, std430 offsets.
#[test]
fn blocks_are_laid_out_by_their_declaration() {
    let app = inputs_app();
    let p = &app.session.as_ref().unwrap().program;
    let b = p.resources().iter().position(|r| !r.push_constant).unwrap();
    let f = p.resource_fields(b, 16 + 2 * 32, 100);
    let got: Vec<(String, u64, String)> = f
        .fields
        .iter()
        .map(|f| {
            (
                f.path.clone(),
                f.offset,
                lanescope_core::program::scalar_name(f.ty),
            )
        })
        .collect();
    let want = [
        ("b.count", 0, "u32"),
        ("b.items[0].pos.x", 16, "f32"),
        ("b.items[0].pos.y", 20, "f32"),
        ("b.items[0].pos.z", 24, "f32"),
        ("b.items[0].w", 28, "f32"),
        ("b.items[0].id", 32, "u32"),
        ("b.items[1].pos.x", 48, "f32"),
    ];
    for (i, (path, off, ty)) in want.iter().enumerate() {
        assert_eq!(
            got[i],
            (path.to_string(), *off, ty.to_string()),
            "field {i}: {got:?}"
        );
    }
    assert_eq!(f.fields.len(), 11);
    assert_eq!(f.runtime_array, Some((16, 32)));
    assert!(!f.truncated);
    assert!(p.resource_fields(b, 1 << 20, 5).truncated);
    let pc = p.resources().iter().position(|r| r.push_constant).unwrap();
    let paths: Vec<String> = p
        .resource_fields(pc, 8, 10)
        .fields
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert_eq!(paths, ["pc.n", "pc.scale"]);
}

/// Numbers in, numbers out: text and JSON read as the declared types (a runtime array grows to
/// take them), fills by pattern, and errors that name the value.
#[test]
fn buffers_fill_import_and_export_by_their_types() {
    use crate::gui::inputs::{export_numbers, fill, import_numbers, read, Fill};
    let app = inputs_app();
    let p = &app.session.as_ref().unwrap().program;
    let r = p.resources().iter().position(|r| !r.push_constant).unwrap();
    let mut b = vec![0u8; 16 + 32];
    // 1 + 5 + 5 values: one element more than the buffer holds.
    let n = import_numbers(p, r, &mut b, "[2, [1.5, 2, 3, 0.25, 9], 4e0, 5 6 7 8]").unwrap();
    assert_eq!(n, 11);
    assert_eq!(b.len(), 16 + 64, "the runtime array grew by one element");
    let f32_at = |b: &[u8], o: u64| {
        f32::from_bits(read(b, o, lanescope_core::value::ScalarTy::Float { bits: 32 }) as u32)
    };
    assert_eq!(
        read(
            &b,
            0,
            lanescope_core::value::ScalarTy::Int {
                bits: 32,
                signed: false
            }
        ),
        2
    );
    assert_eq!(f32_at(&b, 16), 1.5);
    assert_eq!(f32_at(&b, 28), 0.25);
    assert_eq!(
        read(
            &b,
            32,
            lanescope_core::value::ScalarTy::Int {
                bits: 32,
                signed: false
            }
        ),
        9
    );
    assert_eq!(f32_at(&b, 48), 4.0);
    let text = export_numbers(p, r, &b);
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        ["2", "1.5", "2.0", "3.0", "0.25", "9", "4.0", "5.0", "6.0", "7.0", "8"]
    );
    let mut again = vec![0u8; 16 + 64];
    import_numbers(p, r, &mut again, &text).unwrap();
    assert_eq!(again, b, "export then import is the identity");
    let e = import_numbers(p, r, &mut b, "1 2 x").unwrap_err();
    assert!(
        e.contains("number 3") && e.contains("b.items[0].pos.y") && e.contains("f32"),
        "{e}"
    );
    // Fills: index counts the declared values, random is the same for the same seed.
    fill(p, r, &mut b, Fill::Index, "", 0).unwrap();
    assert_eq!(f32_at(&b, 16), 1.0);
    assert_eq!(
        read(
            &b,
            32,
            lanescope_core::value::ScalarTy::Int {
                bits: 32,
                signed: false
            }
        ),
        5
    );
    let (mut x, mut y) = (b.clone(), b.clone());
    fill(p, r, &mut x, Fill::Random, "", 9).unwrap();
    fill(p, r, &mut y, Fill::Random, "", 9).unwrap();
    assert_eq!(x, y);
    assert!((0.0..1.0).contains(&f32_at(&x, 16)));
    let e = fill(p, r, &mut x, Fill::Constant, "abc", 0).unwrap_err();
    assert!(e.contains("abc"), "{e}");
}

/// Push constants, specialization constants and the dispatch set in the Inputs panel run.
#[test]
fn the_inputs_panel_sets_push_and_spec_constants_and_they_run() {
    let mut app = inputs_app();
    {
        let s = app.session.as_mut().unwrap();
        s.initial.push_constants = [3u32.to_le_bytes(), 2.0f32.to_bits().to_le_bytes()].concat();
        let r = s
            .program
            .resources()
            .iter()
            .position(|r| !r.push_constant)
            .unwrap();
        let b = &mut s.initial.buffers[0].2;
        crate::gui::inputs::import_numbers(&s.program, r, b, "0  1 0 0 0 0  2 0 0 0 0  3 0 0 0 0")
            .unwrap();
        s.spec.insert(3, lanescope_core::SpecValue::Bits(10));
    }
    app.apply(&egui::Context::default(), Action::Reset);
    assert!(app.error.is_none(), "{:?}", app.error);
    finish(&mut app);
    let s = app.session.as_ref().unwrap();
    let out = s.sim().buffer(0, 0).unwrap();
    let u = |o: usize| u32::from_le_bytes(out[o..o + 4].try_into().unwrap());
    let f = |o: usize| f32::from_bits(u(o));
    assert_eq!(u(0), 3, "count = pc.n");
    assert_eq!(
        (f(28), u(32)),
        (12.0, 10),
        "item 0: 1 * 2 + K, 0 + K with K = 10"
    );
    assert_eq!((f(60), u(64)), (14.0, 11));
    assert_eq!((f(92), u(96)), (16.0, 12));
    // Saved as AmberScript, the inputs (specialization included) come along and rerun the same.
    let text = app.amber_text().unwrap();
    assert!(text.contains("SPECIALIZE 3 AS uint32 10"), "{text}");
    let report =
        lanescope_front::amber::run_text(&text, &lanescope_front::InProcess, &Default::default());
    assert_eq!(report.exit_code(), 0, "{}\n{text}", report.to_text());
    // The panel shows all of it by name.
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 1000.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("Specialization constants");
    h.get_by_label("K");
    h.get_by_label("SpecId 3");
    h.get_by_label("default 7");
    h.get_by_label_contains("Push constants `pc` (8 bytes)");
    h.get_by_label("pc.scale");
    h.get_by_label("b.items[0].pos.x");
    // Index fill from the panel, and the run starts again from it.
    h.get_by_label("Fill").click();
    h.run_steps(3);
    let s = h.state().session.as_ref().unwrap();
    assert_eq!(s.step_count(), 0);
    let init = &s.initial.buffers[0].2;
    assert_eq!(
        f32::from_bits(u32::from_le_bytes(init[16..20].try_into().unwrap())),
        1.0
    );
}

/// A module with several compute entry points opens on the first; choosing another loads it
/// (with the buffers both declare kept).
#[test]
fn another_entry_point_is_a_choice_in_inputs() {
    let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
               @compute @workgroup_size(4) fn first(@builtin(local_invocation_index) l: u32) { o[l] = 1u; }\n\
               @compute @workgroup_size(8) fn second(@builtin(local_invocation_index) l: u32) { o[l] = 2u; }\n";
    let mut app = LanescopeApp::new(Settings::default());
    app.open_source(crate::gui::editor::Editor::new(
        "two.wgsl",
        lanescope_front::Language::Wgsl,
        src.into(),
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    let s = app.session.as_ref().unwrap();
    assert_eq!(s.entries, ["first", "second"]);
    assert_eq!(s.program.entry_name(), "first");
    app.session.as_mut().unwrap().entry = Some("second".into());
    app.apply(&egui::Context::default(), Action::Reset);
    assert!(app.error.is_none(), "{:?}", app.error);
    finish(&mut app);
    let s = app.session.as_ref().unwrap();
    assert_eq!(
        (s.program.entry_name(), s.program.local_size()[0]),
        ("second", 8)
    );
    assert_eq!(
        &s.sim().buffer(0, 0).unwrap()[..8],
        &[2, 0, 0, 0, 2, 0, 0, 0]
    );
}

/// A script whose EXPECTs fail shows each in the diagnostics list with expected beside actual;
/// "Last write" goes to the step that wrote the word.
#[test]
fn failed_expectations_are_diagnostics_that_jump_to_the_last_write() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../front/tests/amber/fail_hex.amber"
    );
    let mut app = LanescopeApp::new(Settings::default());
    app.open("fail_hex.amber", std::fs::read(path).unwrap());
    let failed = app.scenario.as_ref().unwrap().failed.clone();
    assert_eq!(
        failed
            .iter()
            .map(|f| f.expect.op.as_str())
            .collect::<Vec<_>>(),
        ["EQ", "EQ_BUFFER", "RMSE_BUFFER", "GT"],
        "{failed:?}"
    );
    let line = failed[0].expect.line;
    assert_eq!(failed[0].at, Some((0, 1, 0)));
    assert!(failed[0].expect.expected.contains('9') && failed[0].expect.actual.contains('8'));
    assert_eq!(failed[3].at, Some((0, 3, 4)));
    finish(&mut app);
    let end = app.session.as_ref().unwrap().step_count();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 1000.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label_contains("Diagnostics (4");
    assert_eq!(h.get_all_by_label("EXPECT failed").count(), 4);
    h.get_by_label_contains(&format!("line {line} · `b` IDX 0 EQ"));
    h.get_all_by_label("Last write").next().unwrap().click();
    h.run_steps(3);
    let s = h.state().session.as_ref().unwrap();
    let at = s.step_count();
    assert!(at > 0 && at < end, "went to step {at} of {end}");
    assert!(
        h.state().status.contains("last write"),
        "{}",
        h.state().status
    );
}

/// A script opened by its path reads the files it names beside it; opened without one (a
/// link, the browser) it says it cannot.
#[test]
fn an_amberscript_reads_the_files_it_names_beside_it() {
    let dir = std::env::temp_dir().join(format!("lanescope-amber-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = "#!amber\n\
        SHADER compute s GLSL\n\
        #version 450\n\
        layout(local_size_x = 4) in;\n\
        layout(set = 0, binding = 0) buffer B { uint v[]; };\n\
        void main() { v[gl_LocalInvocationID.x] *= 2u; }\n\
        END\n\
        BUFFER b DATA_TYPE uint32 SIZE 4 FILE TEXT data.txt\n\
        PIPELINE compute p\n\
        \x20 ATTACH s\n\
        \x20 BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 0\n\
        END\n\
        RUN p 1 1 1\n\
        EXPECT b IDX 0 EQ 2 4 6 8\n";
    std::fs::write(dir.join("data.txt"), "1 2 3 4\n").unwrap();
    let path = dir.join("double.amber");
    let mut app = LanescopeApp::new(Settings::default());
    app.open(&path.display().to_string(), script.as_bytes().to_vec());
    assert!(app.error.is_none(), "{:?}", app.error);
    let sc = app.scenario.clone().unwrap();
    assert_eq!(sc.name, "double.amber");
    assert!(sc.report.starts_with("PASS"), "{}", sc.report);
    assert_eq!(
        app.session.as_ref().unwrap().initial.buffers[0].2,
        [1u32, 2, 3, 4]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    );
    // Without a folder the file cannot be read: the script is skipped, saying which file.
    let mut other = LanescopeApp::new(Settings::default());
    other.open("double.amber", script.as_bytes().to_vec());
    let text =
        other.scenario.map(|s| s.report).unwrap_or_default() + &other.error.unwrap_or_default();
    assert!(text.contains("data.txt"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Inputs › Simulate: one workgroup of a larger dispatch runs alone (the others are not run),
/// and a shader with buffer atomics says what that means.
#[test]
fn one_workgroup_of_the_dispatch_is_simulated_alone() {
    let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
               @group(0) @binding(1) var<storage, read_write> count: atomic<u32>;\n\
               @compute @workgroup_size(4)\n\
               fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {\n\
               \x20   o[w.x * 4u + l] = w.x + 1u;\n\
               \x20   atomicAdd(&count, 1u);\n\
               }\n";
    let mut app = LanescopeApp::new(Settings {
        workgroups: [3, 1, 1],
        ..Settings::default()
    });
    app.open_source(crate::gui::editor::Editor::new(
        "wg.wgsl",
        lanescope_front::Language::Wgsl,
        src.into(),
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 1000.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, "Simulate")
        .click();
    h.run();
    h.get_by_label("one workgroup").click();
    h.run();
    assert_eq!(h.state().settings.only_workgroup, Some([0, 0, 0]));
    h.get_by_label_contains("atomics on buffer memory");
    h.get_all_by_label("Simulate")
        .find(|n| format!("{n:?}").contains("role: SpinButton"))
        .expect("the workgroup's x")
        .set_value_accesskit(2.0);
    h.run();
    assert_eq!(h.state().settings.only_workgroup, Some([2, 0, 0]));
    finish(h.state_mut());
    let s = h.state().session.as_ref().unwrap();
    let out = s.sim().buffer(0, 0).unwrap();
    let words: Vec<u32> = out
        .chunks_exact(4)
        .take(12)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // Buffers start as their word indices: workgroups 0 and 1 left theirs as they were.
    assert_eq!(
        words,
        [0, 1, 2, 3, 4, 5, 6, 7, 3, 3, 3, 3],
        "only workgroup 2 ran"
    );
    let count = u32::from_le_bytes(s.sim().buffer(0, 1).unwrap()[..4].try_into().unwrap());
    assert_eq!(
        count, 4,
        "four increments on top of the counter's initial 0"
    );
    assert_eq!(s.sim().workgroup_id(), [2, 0, 0]);
    // Every workgroup again.
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, "Simulate")
        .click();
    h.run();
    h.get_by_label("every workgroup").click();
    h.run();
    assert_eq!(h.state().settings.only_workgroup, None);
    finish(h.state_mut());
    let s = h.state().session.as_ref().unwrap();
    let count = u32::from_le_bytes(s.sim().buffer(0, 1).unwrap()[..4].try_into().unwrap());
    assert_eq!(count, 12, "all three workgroups ran");
}

/// A descriptor array of buffers: each element is listed and filled on its own in Inputs, runs
/// as its own buffer, and saves as `BIND BUFFER_ARRAY`.
#[test]
fn descriptor_array_elements_are_buffers_of_their_own() {
    let src = "#version 450
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) buffer Part { uint v[2]; } parts[2];
void main() {
    uint i = gl_LocalInvocationID.x;
    parts[i].v[i] = 7 + i;
}
";
    let mut app = LanescopeApp::new(Settings::default());
    app.open_source(crate::gui::editor::Editor::new(
        "parts.comp",
        lanescope_front::Language::Glsl,
        src.into(),
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    {
        let s = app.session.as_ref().unwrap();
        assert_eq!(
            s.initial.elements.len(),
            1,
            "element 1 is bound beside element 0"
        );
    }
    finish(&mut app);
    let s = app.session.as_ref().unwrap();
    let word = |e: u32, k: usize| {
        let b = s.sim().buffer_element(0, 0, e).unwrap();
        u32::from_le_bytes(b[k * 4..k * 4 + 4].try_into().unwrap())
    };
    assert_eq!((word(0, 0), word(1, 1)), (7, 8));
    let text = app.amber_text().unwrap();
    assert!(
        text.contains("BIND BUFFER_ARRAY buf_0_0 buf_0_0_1 AS storage DESCRIPTOR_SET 0 BINDING 0"),
        "{text}"
    );
    let report =
        lanescope_front::amber::run_text(&text, &lanescope_front::InProcess, &Default::default());
    assert_eq!(report.exit_code(), 0, "{}\n{text}", report.to_text());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 1000.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label_contains("`parts[0]`");
    h.get_by_label_contains("`parts[1]`");
    h.get_by_label("parts[1].v[1]");
}

/// An imported file becomes a new initial state asked for with the restart: the session's own
/// is untouched until the frame applies it.
#[test]
fn an_imported_file_is_asked_for_and_applied_with_the_restart() {
    let mut app = inputs_app();
    let (set, binding, element, before) = {
        let s = app.session.as_ref().unwrap();
        let r = s
            .program
            .resources()
            .iter()
            .find(|r| !r.push_constant)
            .unwrap();
        let slot = (r.set, r.binding, r.element());
        (
            slot.0,
            slot.1,
            slot.2,
            s.initial.bytes(slot.0, slot.1, slot.2).unwrap().clone(),
        )
    };
    let bytes: Vec<u8> = (1..=before.len() as u32).map(|i| i as u8).collect();
    let (inputs, why) =
        crate::gui::inputs::import_file(&app, (set, binding, element), "x.bin", bytes.clone())
            .unwrap();
    assert!(why.contains("bytes from x.bin"), "{why}");
    let s = app.session.as_ref().unwrap();
    assert_eq!(s.initial.bytes(set, binding, element), Some(&before));
    app.apply(
        &egui::Context::default(),
        Action::Inputs(Box::new(inputs), why.clone()),
    );
    let s = app.session.as_ref().unwrap();
    assert_eq!(s.initial.bytes(set, binding, element), Some(&bytes));
    assert_eq!(app.status, why);
}

/// A buffer's table builds only the rows in sight (hundreds of rows, each an edit cell and four
/// labels, were most of a frame's work); scrolled, the rows that come into sight are there, with
/// their own values.
#[test]
fn a_buffer_table_builds_the_rows_in_sight() {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("if_else");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("inp[0]");
    assert!(
        h.query_by_label("inp[200]").is_none(),
        "row 200 is out of sight"
    );
    // The last row is built wherever it is (it sets the columns' widths).
    h.get_by_label("inp[255]");
    // Scroll the side panel down until row 200 comes into sight.
    let at = h.get_by_label("inp[0]").rect().center();
    h.hover_at(at);
    for _ in 0..200 {
        if h.query_by_label("inp[200]").is_some() {
            break;
        }
        wheel(&mut h, egui::vec2(0.0, -100.0));
    }
    let row = h.get_by_label("inp[200]").rect();
    assert!(
        h.query_by_label("inp[0]").is_none(),
        "row 0 scrolled out of sight"
    );
    // The row's offset sits on the same line as its name.
    let offset = h.get_by_label("+800").rect();
    assert!(
        (offset.center().y - row.center().y).abs() < 2.0,
        "{row:?} {offset:?}"
    );
}
