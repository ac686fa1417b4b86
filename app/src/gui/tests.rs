//! The GUI driven as a person would: through its widgets and keys, with egui_kittest.

use super::session::Settings;
use super::LanescopeApp;
use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use lanescope_core::trace::LaneState;

fn harness(example: &str) -> Harness<'static, LanescopeApp> {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example(example);
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h
}

fn steps(h: &Harness<'_, LanescopeApp>) -> u64 {
    h.state().session.as_ref().unwrap().step_count()
}

#[test]
fn stepping_with_the_button_and_f10_moves_the_tangles() {
    let mut h = harness("if_else");
    assert_eq!(steps(&h), 0);
    h.get_by_label("Step").click();
    h.run_steps(2);
    assert_eq!(steps(&h), 1);
    h.key_press(egui::Key::F10);
    h.run_steps(2);
    assert_eq!(steps(&h), 2);
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F10);
    h.run_steps(2);
    assert_eq!(steps(&h), 1, "Shift+F10 steps back");
    // Run (F5) to the end: if_else diverges at its `if`, then every lane finishes.
    h.key_press(egui::Key::F5);
    for _ in 0..200 {
        h.run_steps(1);
        if !h.state().running {
            break;
        }
    }
    let s = h.state().session.as_ref().unwrap();
    assert!(s.sim().is_finished(), "{}", h.state().status);
    assert!(s.sim().stats().divergences > 0);
    assert_eq!(h.state().status, "finished");
    // The lanes grid says so on hover: every lane finished.
    assert!(s
        .sim()
        .lane_states(0)
        .iter()
        .all(|l| *l == LaneState::Finished));
}

#[test]
fn a_breakpoint_clicked_in_the_gutter_stops_the_run_there() {
    let mut h = harness("if_else");
    // The first block's terminator of the entry function.
    let (target, label) = {
        let s = h.state().session.as_ref().unwrap();
        let entry = &s.program.functions[s.program.entry_func as usize];
        let b = &s.program.blocks[entry.entry as usize];
        let t = *b.inst_indices.last().unwrap();
        (t, format!("breakpoint at instruction {t}"))
    };
    h.state_mut().scroll_to_line = Some(target as usize);
    h.run_steps(2);
    h.get_by_label(&label).click();
    h.run_steps(2);
    let bp: Vec<u32> = h
        .state()
        .session
        .as_ref()
        .unwrap()
        .breakpoints
        .iter()
        .copied()
        .collect();
    assert_eq!(bp, vec![target], "the gutter click set the breakpoint");
    let set = target;
    // Run: it stops before executing the instruction with the breakpoint.
    h.key_press(egui::Key::F5);
    for _ in 0..50 {
        h.run_steps(1);
        if !h.state().running {
            break;
        }
    }
    let s = h.state().session.as_ref().unwrap();
    let at: Vec<u32> = s.tangle_instructions().iter().map(|t| t.1).collect();
    assert!(!s.sim().is_finished());
    assert!(at.contains(&set), "stopped at {at:?}, breakpoint {set}");
    assert_eq!(h.state().status, format!("breakpoint at instruction {set}"));
    assert!(s.step_count() > 0);
}

#[test]
fn switching_a_setting_restarts_under_it() {
    let mut h = harness("switch_fallthrough");
    h.key_press(egui::Key::F10);
    h.run_steps(2);
    assert_eq!(steps(&h), 1);
    h.get_by_label("Switch").click();
    h.run_steps(2);
    h.get_by_label("per-case").click();
    h.run_steps(3);
    assert!(h.state().settings.per_case_switch);
    assert_eq!(steps(&h), 0, "a new setting starts the run again");
    let cfg = h.state().session.as_ref().unwrap().sim().config().clone();
    assert_eq!(cfg.switch_tangles, lanescope_core::SwitchTangles::PerCase);
}

#[test]
fn a_bad_file_shows_in_the_error_bar_and_keeps_the_session() {
    let mut h = harness("if_else");
    h.state_mut().open("junk.spv", vec![1, 2, 3, 4, 5]);
    h.run_steps(2);
    let err = h.state().error.clone().expect("an error is shown");
    assert!(err.starts_with("junk.spv:"), "{err}");
    h.get_by_label_contains("Error: junk.spv");
    assert_eq!(h.state().session.as_ref().unwrap().name, "if_else.spv");
}

/// The disassembly follows the run: after a step the instruction that runs next is on screen,
/// even when it lies far below the module's header.
#[test]
fn stepping_scrolls_the_disassembly_to_the_current_instruction() {
    let mut h = harness("if_else");
    // The person scrolls up to read the header...
    h.state_mut().scroll_to_line = Some(0);
    h.run_steps(2);
    assert!(h.state().disasm_visible.start < 5);
    // ...and steps.
    for _ in 0..3 {
        h.key_press(egui::Key::F10);
        h.run_steps(3);
    }
    let line = h
        .state()
        .session
        .as_ref()
        .unwrap()
        .focus_instruction()
        .unwrap() as usize;
    let v = h.state().disasm_visible.clone();
    assert!(
        line > 40,
        "the example's body starts below the header (line {line})"
    );
    assert!(
        v.contains(&line),
        "line {line} not in the drawn lines {v:?}"
    );
    // Its gutter label is on screen, so a breakpoint can be set there with one click.
    h.get_by_label(&format!("breakpoint at instruction {line}"));
}

/// Opening another module shows where it starts, not where the last one was scrolled to.
#[test]
fn opening_a_module_scrolls_to_its_first_instruction() {
    let mut h = harness("loop_divergent");
    h.state_mut().scroll_to_line = Some(0);
    h.run_steps(2);
    assert!(h.state().disasm_visible.start < 5);
    h.state_mut().open_example("subgroup_reduce");
    h.run_steps(3);
    let line = h
        .state()
        .session
        .as_ref()
        .unwrap()
        .focus_instruction()
        .unwrap() as usize;
    let v = h.state().disasm_visible.clone();
    assert!(
        v.contains(&line),
        "line {line} not in the drawn lines {v:?}"
    );
}
