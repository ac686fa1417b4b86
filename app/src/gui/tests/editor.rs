//! The editor: compile errors marked and fixed, templates, examples' sources, includes and the
//! Build section.

use super::*;
use crate::gui::ask::Action;

#[test]
fn typing_an_error_marks_it_and_fixing_it_restarts_the_run_at_the_same_step() {
    let mut h = harness("if_else");
    let t = &crate::gui::editor::TEMPLATES[0];
    open_first_template(h.state_mut());
    h.run_steps(2);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    assert_eq!(h.state().left_tab, crate::gui::state::LeftTab::Source);
    for _ in 0..3 {
        h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
        h.run_steps(1);
    }
    assert_eq!(steps(&h), 3);
    let before = h.state().editor.as_ref().unwrap().text.clone();
    // Type into the editor as a person would: click in it, then keys.
    let editor = h.get_by_role(egui::accesskit::Role::MultilineTextInput);
    editor.click();
    h.run_steps(2);
    h.get_by_role(egui::accesskit::Role::MultilineTextInput)
        .type_text("@@ ");
    h.run_steps(1);
    assert_ne!(
        h.state().editor.as_ref().unwrap().text,
        before,
        "the text changed"
    );
    until_compiled(&mut h);
    let ed = h.state().editor.as_ref().unwrap();
    assert!(ed.stale, "a compile error keeps the last run, marked stale");
    let d = ed.diagnostics.first().expect("a diagnostic");
    assert!(d.error && d.line > 0, "{d:?}");
    let bar = h.state().error.clone().unwrap_or_default();
    assert!(bar.starts_with(&format!("{}:{}:", t.name, d.line)), "{bar}");
    assert_eq!(steps(&h), 3, "the last good run stays on screen");
    // Fix it: delete what was typed.
    for _ in 0..3 {
        h.key_press(egui::Key::Backspace);
        h.run_steps(1);
    }
    assert_eq!(h.state().editor.as_ref().unwrap().text, before);
    until_compiled(&mut h);
    let ed = h.state().editor.as_ref().unwrap();
    assert!(
        !ed.stale && ed.diagnostics.is_empty(),
        "{:?}",
        ed.diagnostics
    );
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    assert_eq!(steps(&h), 3, "the new run went back to step 3");
}

#[test]
fn every_template_opens_and_runs_to_the_end() {
    for t in crate::gui::editor::TEMPLATES {
        if !lanescope_front::can_compile(t.language) {
            continue;
        }
        let mut app = LanescopeApp::new(Settings::default());
        app.open_source(crate::gui::editor::Editor::new(
            t.name,
            t.language,
            t.text.into(),
        ));
        assert!(app.error.is_none(), "{}: {:?}", t.name, app.error);
        let end = run_to_end(&mut app);
        assert!(end.starts_with("Ok(Some(Finished))"), "{}: {end}", t.name);
    }
}

#[test]
fn every_examples_source_opens_in_the_editor_and_runs() {
    let mut opened = 0;
    for (name, _, source) in crate::examples::EXAMPLES {
        if source.is_empty() {
            continue;
        }
        let (language, ext) = if source.trim_start().starts_with(';') {
            (lanescope_front::Language::SpirvAsm, "spvasm")
        } else {
            (lanescope_front::Language::Glsl, "comp")
        };
        let mut app = LanescopeApp::new(Settings::default());
        app.open_source(crate::gui::editor::Editor::new(
            &format!("{name}.{ext}"),
            language,
            (*source).to_owned(),
        ));
        assert!(app.error.is_none(), "{name}: {:?}", app.error);
        assert!(app.editor.as_ref().is_some_and(|e| !e.stale), "{name}");
        finish(&mut app);
        opened += 1;
    }
    assert!(opened >= 20, "{opened}");
}

/// An example opens on its own GLSL (from the module's debug information): the highlighted
/// line follows the tangle, and the two sides of its `if` are two tangles on two lines.
#[test]
fn an_example_shows_its_glsl_and_the_highlight_follows_the_tangle() {
    let mut h = harness("if_else");
    assert_eq!(h.state().left_tab, crate::gui::state::LeftTab::Source);
    h.get_by_label_contains("source from the module's debug information");
    // Inputs names the anonymous block by its type, and its array by the member.
    h.get_by_label_contains("set 0 binding 0 `In`");
    h.get_by_label("inp[3]");
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..6 {
        h.key_press(egui::Key::F10);
        h.run_steps(2);
        let line = current_source_line(h.state());
        assert_eq!(
            h.state().source_last_line,
            line,
            "the band is on the tangle's line"
        );
        seen.extend(line);
    }
    assert!(seen.len() >= 3, "the highlight moved over {seen:?}");
    let two = super::stepping::scheduler_steps_until_two_lines(&mut h, 200);
    assert!(two, "the if never showed two tangles on two lines");
    // The legend under the lanes says what each colour is: both sides, by their lines.
    h.run_steps(2);
    let sides = h
        .get_all_by_label_contains("subgroup 0, ")
        .filter(|n| format!("{n:?}").contains(" at if_else.comp:"))
        .count();
    assert!(sides >= 2, "{sides} legend rows for subgroup 0");
    h.get_by_label_contains("an undefined value (poison)");
}

/// A GLSL file with includes, opened from disk: the Source pane has a tab per file, following
/// the run shows the included file its current line is in, and a breakpoint on a line of an
/// included file stops the run there.
#[test]
fn an_include_tree_opens_with_a_tab_per_file_and_breaks_in_an_included_file() {
    let root = std::env::temp_dir().join(format!("lanescope-gui-include-{}", std::process::id()));
    std::fs::create_dir_all(root.join("lib")).unwrap();
    std::fs::write(
        root.join("lib/helper.glsl"),
        "uint helper(uint x) {\n    uint y = x * 3u;\n    return y + 1u;\n}\n",
    )
    .unwrap();
    let main = "#version 450\n#include \"lib/helper.glsl\"\nlayout(local_size_x = 4) in;\n\
                layout(binding = 0) buffer B { uint o[]; };\n\
                void main() {\n    o[gl_LocalInvocationID.x] = helper(gl_LocalInvocationID.x);\n}\n";
    let path = root.join("main.comp");
    std::fs::write(&path, main).unwrap();
    let mut app = LanescopeApp::new(Settings::default());
    app.open(&path.display().to_string(), main.as_bytes().to_vec());
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    // A tab per file with text, and the one that follows the run.
    h.get_by_label("follow the run");
    assert!(
        h.query_all_by_label("main.comp").count() >= 2,
        "the name and its tab"
    );
    h.get_by_label("helper.glsl").click();
    h.run_steps(2);
    let helper = {
        let s = h.state().session.as_ref().unwrap();
        let d = s.program.debug().unwrap();
        let f = h.state().source_file.expect("a file picked");
        assert!(d.files[f as usize].name.ends_with("helper.glsl"));
        f
    };
    // A breakpoint on helper.glsl's line 3 (`return y + 1u;`) stops the run inside it.
    h.state_mut().apply(
        &egui::Context::default(),
        Action::ToggleSourceBreakpoint {
            file: helper,
            line: 3,
        },
    );
    assert!(
        !h.state().session.as_ref().unwrap().breakpoints.is_empty(),
        "{}",
        h.state().status
    );
    h.get_by_label("follow the run").click();
    h.key_press(egui::Key::F5);
    for _ in 0..200 {
        h.run_steps(1);
        if !h.state().running {
            break;
        }
    }
    let (g, id) = h.state().line_step_tangle().expect("a tangle");
    let pos = h
        .state()
        .session
        .as_ref()
        .unwrap()
        .sim()
        .tangle_source_pos(g, id)
        .expect("a source position");
    assert_eq!((pos.file, pos.line), (helper, 3), "{}", h.state().status);
    assert!(h.state().source_file.is_none(), "following");
}

/// `app` at 1280x720 with the Source pane's Build section opened.
fn with_build_section_open(app: LanescopeApp) -> Harness<'static, LanescopeApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h.get_by_label("Build").click();
    h.run_steps(2);
    h
}

/// Changes the editor's build settings as typing would, and runs frames until the source has
/// recompiled.
fn retype(h: &mut Harness<'_, LanescopeApp>, edit: impl FnOnce(&mut crate::gui::build::Build)) {
    edit(&mut h.state_mut().editor.as_mut().unwrap().build);
    h.state_mut().editor.as_mut().unwrap().edited_at = Some(0.0);
    for _ in 0..100 {
        h.run_steps(1);
        if h.state().editor.as_ref().unwrap().edited_at.is_none() {
            break;
        }
    }
}

/// The Build section: a GLSL source that needs a macro fails until the macro is typed in the
/// section, then recompiles and runs; a copied link carries the macro and opens the source
/// built with it; a bad name is an error that says which.
#[test]
fn the_build_section_sets_macros_that_recompile_and_travel_with_links() {
    let src = "#version 450\nlayout(local_size_x = WIDTH) in;\n\
               layout(binding = 0) buffer B { uint o[]; };\n\
               void main() { o[gl_LocalInvocationID.x] = 7u; }\n";
    let mut app = LanescopeApp::new(Settings::default());
    app.open("wide.comp", src.as_bytes().to_vec());
    assert!(
        app.error.as_deref().unwrap_or("").contains("WIDTH"),
        "{:?}",
        app.error
    );
    let mut h = with_build_section_open(app);
    h.get_by_label("Defines");
    let type_defines = |h: &mut Harness<'_, LanescopeApp>, text: &str| {
        retype(h, |b| b.defines = text.into());
    };
    type_defines(&mut h, "WIDTH=8");
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let s = h.state().session.as_ref().expect("recompiled");
    assert_eq!(s.program.local_size(), [8, 1, 1]);
    // The section's title shows what is set.
    h.get_by_label("Build: WIDTH=8");
    // A link carries the macros; opening it builds the source with them.
    let link = h.state().link().expect("a link");
    assert_eq!(link.defines.as_deref(), Some("WIDTH=8"));
    let (fragment, complete) = link.format();
    assert!(complete);
    let mut other = LanescopeApp::new(Settings::default());
    other.apply_link(crate::gui::permalink::Link::parse(&fragment).unwrap());
    assert!(other.error.is_none(), "{:?}", other.error);
    assert_eq!(
        other.session.as_ref().unwrap().program.local_size(),
        [8, 1, 1]
    );
    assert_eq!(other.editor.as_ref().unwrap().build.defines, "WIDTH=8");
    // A name that is no macro name: an error naming it, the last good run kept.
    type_defines(&mut h, "9WIDTH=8");
    let err = h.state().error.clone().unwrap_or_default();
    assert!(err.contains("`9WIDTH` is not a macro name"), "{err}");
    assert!(h.state().editor.as_ref().unwrap().stale);
}

/// WGSL's overrides in the Build section: a source whose workgroup size is an override without
/// an initializer fails naming it until a value is typed, then recompiles and runs with it; a
/// copied link carries the values; one that does not parse is an error that says which.
#[test]
fn the_build_section_gives_wgsl_overrides_their_values() {
    let src = "override WIDTH: u32;\n@id(7) override SEVEN: u32 = 7u;\n\
               @group(0) @binding(0) var<storage, read_write> o: array<u32, 64>;\n\
               @compute @workgroup_size(WIDTH)\n\
               fn main(@builtin(local_invocation_index) i: u32) { o[i] = SEVEN; }\n";
    let mut app = LanescopeApp::new(Settings::default());
    app.open("wide.wgsl", src.as_bytes().to_vec());
    let err = app.error.clone().unwrap_or_default();
    assert!(
        err.contains("the override `WIDTH` has no initializer"),
        "{err}"
    );
    let mut h = with_build_section_open(app);
    h.get_by_label("Overrides");
    let type_overrides = |h: &mut Harness<'_, LanescopeApp>, text: &str| {
        retype(h, |b| b.overrides = text.into());
    };
    type_overrides(&mut h, "WIDTH=16 7=9");
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let s = h.state().session.as_ref().expect("recompiled");
    assert_eq!(s.program.local_size(), [16, 1, 1]);
    h.get_by_label("Build: WIDTH=16 7=9");
    let link = h.state().link().expect("a link");
    assert_eq!(link.overrides.as_deref(), Some("WIDTH=16 7=9"));
    let mut other = LanescopeApp::new(Settings::default());
    other.apply_link(crate::gui::permalink::Link::parse(&link.format().0).unwrap());
    assert!(other.error.is_none(), "{:?}", other.error);
    assert_eq!(
        other.session.as_ref().unwrap().program.local_size(),
        [16, 1, 1]
    );
    type_overrides(&mut h, "WIDTH=wide");
    let err = h.state().error.clone().unwrap_or_default();
    assert!(err.contains("override `WIDTH=wide`"), "{err}");
    assert!(h.state().editor.as_ref().unwrap().stale);
}
