//! Lessons: each opens its example under the settings its text depends on, in sight, and the bug
//! lessons stop where their text says.

use super::*;
use crate::gui::ask::Action;

#[test]
fn a_lesson_opens_its_example_and_presenter_mode_steps_with_space() {
    let mut h = harness("if_else");
    h.get_by_label("Lessons").click();
    h.run_steps(2);
    let first = h.state().lessons[0].title.clone();
    h.get_by_label(&format!("1. {first}")).click();
    h.run_steps(3);
    assert_eq!(h.state().lesson, Some(0));
    let example = h.state().lessons[0].example.clone();
    assert_eq!(
        h.state().session.as_ref().unwrap().name,
        format!("{example}.spv")
    );
    h.get_by_label("Lesson");
    h.key_press(egui::Key::F2);
    h.run_steps(3);
    assert!(h.state().presenter);
    // The code, the views and the lesson's text: the values and inputs step aside.
    assert!(h.query_by_label("Values and inputs").is_none());
    assert!(h.query_by_label("Inputs").is_none());
    assert!(
        h.query_by_label(&first).is_some(),
        "the lesson's title is in sight"
    );
    h.get_by_label("Lanes");
    let line = current_source_line(h.state());
    h.key_press(egui::Key::Space);
    h.run_steps(2);
    let stepped = steps(&h);
    assert!(stepped >= 1, "Space steps in presenter mode");
    assert_ne!(
        current_source_line(h.state()),
        line,
        "Space is F10 there: a source line"
    );
    h.key_press(egui::Key::F2);
    h.run_steps(3);
    assert!(!h.state().presenter);
    h.key_press(egui::Key::Space);
    h.run_steps(2);
    assert_eq!(steps(&h), stepped, "and only there");
}

/// A lesson's text describes what is on screen, so a lesson runs the same whatever was set
/// before it: by hand, or by a link. The link case is the one found in use: `sg=16` made
/// lesson 1 run four subgroups of 16 under text about two of 32.
#[test]
fn every_lesson_fixes_every_setting_its_text_depends_on() {
    let mut plain = LanescopeApp::new(Settings::default());
    let mut by_hand = LanescopeApp::new(Settings {
        subgroup_size: 8,
        workgroups: [2, 1, 1],
        switch_tangles: lanescope_core::SwitchTangles::PerCase,
        sibling_order: lanescope_core::SiblingOrder::Newest,
        coop_layout: lanescope_core::coopmat::LayoutChoice::AmdRdna3,
        ..Settings::default()
    });
    let mut by_link = LanescopeApp::new(Settings::default());
    by_link.apply_link(link(
        "#example=if_else&sg=16&wg=1,2,1&switch=per-case&order=2&layout=portable&view=compare",
    ));
    assert!(by_link.error.is_none(), "{:?}", by_link.error);
    by_link.apply(&egui::Context::default(), Action::OpenLesson(0));
    let s = by_link.session.as_ref().unwrap();
    assert_eq!(s.name, "if_else.spv");
    assert_eq!(
        (s.sim().config().subgroup_size, s.sim().subgroup_count()),
        (32, 2),
        "lesson 1 speaks of two subgroups of 32"
    );
    let lessons = plain.lessons.clone();
    for (i, l) in lessons.iter().enumerate() {
        let mut seen = Vec::new();
        for app in [&mut plain, &mut by_hand, &mut by_link] {
            app.apply(&egui::Context::default(), Action::OpenLesson(i));
            assert!(app.error.is_none(), "{}: {:?}", l.slug, app.error);
            let s = app.session.as_ref().unwrap();
            let config = serde_json::to_string(s.sim().config()).unwrap();
            let layout = s.program.coop_layout().name();
            let (tab, lesson) = (app.tab, app.lesson);
            seen.push((config, layout, tab, lesson, run_to_end(app)));
        }
        assert_eq!(
            seen[0], seen[1],
            "{}: opened over settings set by hand",
            l.slug
        );
        assert_eq!(
            seen[0], seen[2],
            "{}: opened over a link's settings",
            l.slug
        );
        assert_eq!(seen[0].2, l.view, "{}", l.slug);
    }
}

/// Opening a lesson brings its text into sight, even with the panel scrolled far down to the
/// buffers or the lesson folded away.
#[test]
fn an_opened_lessons_text_is_in_sight() {
    let mut h = harness("if_else");
    h.state_mut()
        .apply(&egui::Context::default(), Action::OpenLesson(0));
    h.run_steps(3);
    // Fold the lesson and scroll the side panel to the bottom of the buffers.
    h.get_by_label("Lesson").click();
    h.run_steps(3);
    h.event(egui::Event::PointerMoved(egui::pos2(1300.0, 600.0)));
    for _ in 0..5 {
        wheel(&mut h, egui::vec2(0.0, -4000.0));
    }
    assert!(
        h.query_by_label("Lesson")
            .is_none_or(|n| n.rect().bottom() < 0.0),
        "the panel is scrolled past the lesson"
    );
    h.get_by_label("Lessons").click();
    h.run_steps(2);
    let second = h.state().lessons[1].title.clone();
    h.get_by_label(&format!("2. {second}")).click();
    h.run_steps(4);
    assert_eq!(h.state().lesson, Some(1));
    let title = h.get_by_label(&second).rect();
    assert!(
        title.top() >= 0.0 && title.bottom() <= 900.0,
        "the lesson's title is on screen: {title:?}"
    );
}

/// The bug lessons say where F5 stops and what is found there: check each claim.
#[test]
fn bug_lessons_stop_where_their_text_says() {
    use crate::gui::session::Stop;
    use lanescope_core::trace::DiagCode;
    let cases = [
        ("bug_reduction_no_barrier", 40, DiagCode::DataRace),
        ("bug_early_return_barrier", 42, DiagCode::BarrierDivergence),
        ("bug_histogram", 13, DiagCode::DataRace),
        ("bug_tile_other_subgroup", 34, DiagCode::DataRace),
    ];
    for (example, step, code) in cases {
        let mut app = LanescopeApp::new(Settings::default());
        let i = app
            .lessons
            .iter()
            .position(|l| l.example == example)
            .unwrap_or_else(|| panic!("no lesson for {example}"));
        app.apply(&egui::Context::default(), Action::OpenLesson(i));
        let text = app.lessons[i].body.join("\n");
        assert!(text.contains(&format!("step {step} ")), "{example}: {text}");
        let s = app.session.as_mut().unwrap();
        let stop = s.run_slice(100_000, u64::MAX).unwrap();
        assert_eq!(stop, Some(Stop::Diagnostic(code)), "{example}");
        assert_eq!(s.step_count(), step, "{example}");
        if example == "bug_early_return_barrier" {
            let states = s.sim().lane_states(1);
            assert!(states[8..32].iter().all(|l| *l == LaneState::Finished));
        }
    }
    // The reduction's wrong sum and the histogram's lost increments, as the lessons say.
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("bug_reduction_no_barrier");
    finish(&mut app);
    let out = app.session.as_ref().unwrap().sim().buffer(0, 1).unwrap()[..4].to_vec();
    assert_eq!(u32::from_le_bytes(out.try_into().unwrap()), 528);
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("bug_histogram");
    finish(&mut app);
    let bins = app.session.as_ref().unwrap().sim().buffer(0, 1).unwrap()[..32].to_vec();
    assert!(bins.chunks(4).all(|b| b == [2, 0, 0, 0]), "{bins:?}");
}
