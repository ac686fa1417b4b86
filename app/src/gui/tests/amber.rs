//! AmberScript in the app: a session saved as a script, a script opened to step through, any run
//! of it opened from the scenario panel.

use super::*;
use crate::gui::ask::Action;

#[test]
fn a_finished_session_saved_as_amberscript_passes_its_own_expectations() {
    let mut cases: Vec<LanescopeApp> = Vec::new();
    let mut a = LanescopeApp::new(Settings::default());
    a.open_example("subgroup_reduce");
    cases.push(a);
    let t = crate::gui::editor::TEMPLATES
        .iter()
        .find(|t| t.language == lanescope_front::Language::Glsl)
        .unwrap();
    let mut b = LanescopeApp::new(Settings {
        subgroup_size: 16,
        ..Settings::default()
    });
    b.open_source(crate::gui::editor::Editor::new(
        t.name,
        t.language,
        t.text.into(),
    ));
    cases.push(b);
    for mut app in cases {
        assert!(app.error.is_none(), "{:?}", app.error);
        finish(&mut app);
        let text = app.amber_text().unwrap();
        assert!(text.contains("EXPECT"), "{text}");
        if app.editor.is_none() {
            // A module without source goes as assembly for its own SPIR-V version.
            assert!(text.contains("SHADER compute shader SPIRV-ASM"), "{text}");
        }
        let report = lanescope_front::amber::run_text(
            &text,
            &lanescope_front::InProcess,
            &Default::default(),
        );
        assert_eq!(report.exit_code(), 0, "{}\n{text}", report.to_text());
    }
}

#[test]
fn an_amberscript_opens_its_first_run_to_step_through_and_reports_the_script() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../front/tests/amber/subgroup_glsl.amber"
    );
    let bytes = std::fs::read(path).unwrap();
    let mut h = harness("if_else");
    h.state_mut().open("subgroup_glsl.amber", bytes);
    h.run_steps(2);
    let app = h.state();
    assert!(app.error.is_none(), "{:?}", app.error);
    let sc = app.scenario.as_ref().expect("the script's report");
    assert!(sc.report.starts_with("PASS"), "{}", sc.report);
    assert_eq!(sc.runs.len(), 2);
    let s = app.session.as_ref().unwrap();
    assert_eq!(s.step_count(), 0);
    // The first RUN's pipeline requires subgroups of 8.
    assert_eq!(s.sim().config().subgroup_size, 8);
    assert_eq!(app.settings.subgroup_size, 8);
    // Step it to the end: every invocation wrote the subgroup size.
    h.key_press(egui::Key::F5);
    for _ in 0..100 {
        h.run_steps(1);
        if !h.state().running {
            break;
        }
    }
    let s = h.state().session.as_ref().unwrap();
    assert!(s.sim().is_finished());
    let size = s.sim().buffer(0, 0).unwrap();
    assert!(size.chunks(4).all(|w| w == [8, 0, 0, 0]), "{size:?}");
    // A script that does not parse is an error naming its line; the session stays.
    h.state_mut()
        .open("bad.amber", b"#!amber\nBUFFER\n".to_vec());
    h.run_steps(1);
    assert!(
        h.state()
            .error
            .as_deref()
            .unwrap_or("")
            .starts_with("bad.amber:"),
        "{:?}",
        h.state().error
    );
    assert!(h
        .state()
        .session
        .as_ref()
        .unwrap()
        .name
        .starts_with("subgroup_glsl.amber"));
}

#[test]
fn any_run_of_an_amberscript_opens_from_the_scenario_panel() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../front/tests/amber/subgroup_glsl.amber"
    );
    let mut app = LanescopeApp::new(Settings::default());
    app.open("subgroup_glsl.amber", std::fs::read(path).unwrap());
    let sc = app.scenario.clone().unwrap();
    assert_eq!(sc.open_run, Some(0));
    // The second RUN's pipeline takes the script's default subgroup size, 4.
    app.apply(&egui::Context::default(), Action::OpenScenarioRun(1));
    assert!(app.error.is_none(), "{:?}", app.error);
    assert_eq!(app.scenario.as_ref().unwrap().open_run, Some(1));
    assert_eq!(
        app.session.as_ref().unwrap().sim().config().subgroup_size,
        4
    );
    assert!(app.status.contains("RUN 2 of 2"), "{}", app.status);
}
