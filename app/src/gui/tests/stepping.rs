//! Stepping: F10 and the buttons, breakpoints, settings that restart the run, scrolling to the
//! current instruction and line, the timeline, every key press counted.

use super::*;

#[test]
fn stepping_with_the_button_and_f10_moves_the_tangles() {
    let mut h = harness("if_else");
    assert_eq!(steps(&h), 0);
    h.get_by_label("Step").click();
    h.run_steps(2);
    assert_eq!(steps(&h), 1);
    // Alt+F10: one scheduler step.
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
    h.run_steps(2);
    assert_eq!(steps(&h), 2);
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F10);
    h.run_steps(2);
    assert_eq!(steps(&h), 1, "Shift+F10 steps back");
    // F10: the example carries its GLSL's lines, so one press runs a whole source line.
    let line = current_source_line(h.state());
    h.key_press(egui::Key::F10);
    h.run_steps(2);
    assert!(steps(&h) > 2, "a line step runs several instructions");
    assert_ne!(current_source_line(h.state()), line);
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
        let entry = &s.program.functions()[s.program.entry_func() as usize];
        let b = &s.program.blocks()[entry.entry as usize];
        let t = *b.inst_indices.last().unwrap();
        (t, format!("breakpoint at instruction {t}"))
    };
    show_disassembly(&mut h);
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
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
    h.run_steps(2);
    assert_eq!(steps(&h), 1);
    h.get_by_label("Options").click();
    h.run_steps(2);
    h.get_by_label("per-case").click();
    h.run_steps(3);
    assert_eq!(
        h.state().settings.switch_tangles,
        lanescope_core::SwitchTangles::PerCase
    );
    assert_eq!(steps(&h), 0, "a new setting starts the run again");
    let cfg = h.state().session.as_ref().unwrap().sim().config().clone();
    assert_eq!(cfg.switch_tangles, lanescope_core::SwitchTangles::PerCase);
}

/// The disassembly follows the run: after a step the instruction that runs next is on screen,
/// even when it lies far below the module's header.
#[test]
fn stepping_scrolls_the_disassembly_to_the_current_instruction() {
    let mut h = harness("if_else");
    show_disassembly(&mut h);
    // The person scrolls up to read the header...
    h.state_mut().scroll_to_line = Some(0);
    h.run_steps(2);
    assert!(h.state().disasm_visible.start < 5);
    // ...and steps.
    for _ in 0..3 {
        h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
        h.run_steps(3);
    }
    let line = focus_line_drawn(&h);
    assert!(
        line > 40,
        "the example's body starts below the header (line {line})"
    );
    // Its gutter label is on screen, so a breakpoint can be set there with one click.
    h.get_by_label(&format!("breakpoint at instruction {line}"));
}

/// Opening another module shows where it starts, not where the last one was scrolled to.
#[test]
fn opening_a_module_scrolls_to_its_first_instruction() {
    let mut h = harness("loop_divergent");
    show_disassembly(&mut h);
    h.state_mut().scroll_to_line = Some(0);
    h.run_steps(2);
    assert!(h.state().disasm_visible.start < 5);
    // The fallback example has no source: it opens on its disassembly.
    h.state_mut().open_example("if_else_no_debug");
    h.run_steps(3);
    assert_eq!(h.state().left_tab, crate::gui::state::LeftTab::Disassembly);
    focus_line_drawn(&h);
}

#[test]
fn clicking_the_timeline_goes_back_and_forward_to_that_step() {
    let mut h = harness("if_else");
    for _ in 0..30 {
        h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
        h.run_steps(1);
    }
    assert_eq!(steps(&h), 30);
    h.get_by_label("Timeline").click();
    h.run_steps(3);
    let r = h.get_by_label("timeline").rect();
    // 56 points of subgroup labels, then 30 equal step columns (and a 4-point margin).
    let step_w = (r.width() - 60.0) / 30.0;
    let x = |step: u64| r.left() + 56.0 + step_w * (step as f32 - 0.5);
    click_at(&mut h, egui::pos2(x(10), r.center().y));
    assert_eq!(steps(&h), 10, "{}", h.state().status);
    // The undone steps are still drawn: a click to their right replays forward.
    let r2 = h.get_by_label("timeline").rect();
    assert_eq!(r2, r, "the timeline keeps its 30 steps");
    click_at(&mut h, egui::pos2(x(25), r.center().y));
    assert_eq!(steps(&h), 25);
    assert_eq!(h.state().status, "went to step 25");
}

/// Scheduler steps (Alt+F10), at most `max`, until subgroup 0 has tangles on two different
/// source lines; whether it got there.
pub(super) fn scheduler_steps_until_two_lines(
    h: &mut Harness<'_, LanescopeApp>,
    max: usize,
) -> bool {
    for _ in 0..max {
        h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
        h.run_steps(1);
        let sim = h.state().session.as_ref().unwrap().sim();
        let lines: std::collections::BTreeSet<u32> = sim
            .tangles()
            .iter()
            .filter(|t| t.subgroup == 0)
            .filter_map(|t| sim.tangle_source_pos(0, t.id).map(|p| p.line))
            .collect();
        if lines.len() >= 2 {
            return true;
        }
    }
    false
}

#[test]
fn f10_steps_by_source_line_and_a_diverged_loop_shows_two_lines() {
    let mut h = harness("if_else");
    open_first_template(h.state_mut());
    h.run_steps(2);
    // F10: each press moves the tangle to another source line (or splits it).
    let mut lines = vec![current_source_line(h.state())];
    for _ in 0..6 {
        let before = (steps(&h), current_source_line(h.state()));
        h.key_press(egui::Key::F10);
        h.run_steps(1);
        let after = current_source_line(h.state());
        assert!(steps(&h) > before.0, "F10 took no step");
        let split = h.state().session.as_ref().unwrap().sim().tangles().len() > 1;
        assert!(
            split || after != before.1,
            "F10 stayed on line {:?}",
            before.1
        );
        lines.push(after);
        assert_eq!(h.state().source_last_line.is_some(), after.is_some());
    }
    assert!(lines.iter().flatten().count() >= 4, "{lines:?}");
    // Shift+F10 undoes the last line step whole.
    let at = steps(&h);
    h.key_press(egui::Key::F10);
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F10);
    for _ in 0..20 {
        h.run_steps(1);
    }
    assert_eq!(
        steps(&h),
        at,
        "Shift+F10 went back to where the line step began"
    );
    // A loop whose body diverges: scheduler steps (Alt+F10) until the two sides of the split
    // are two tangles of one subgroup on two different lines.
    let src = "@group(0) @binding(0) var<storage, read> inp: array<u32>;\n\
               @group(0) @binding(1) var<storage, read_write> outp: array<u32>;\n\
               @compute @workgroup_size(32)\n\
               fn main(@builtin(local_invocation_index) l: u32) {\n\
               \x20   var r = 0u;\n\
               \x20   for (var i = 0u; i < 2u; i++) {\n\
               \x20       if ((inp[l] + i) % 2u == 0u) {\n\
               \x20           r += subgroupAdd(1u);\n\
               \x20       } else {\n\
               \x20           r += subgroupMax(l);\n\
               \x20       }\n\
               \x20   }\n\
               \x20   outp[l] = r;\n\
               }\n";
    h.state_mut().open_source(crate::gui::editor::Editor::new(
        "diverged.wgsl",
        lanescope_front::Language::Wgsl,
        src.into(),
    ));
    h.run_steps(2);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let two = scheduler_steps_until_two_lines(&mut h, 400);
    assert!(two, "the loop never showed two tangles on two lines");
}

#[test]
fn every_key_press_counts_even_within_one_frame() {
    let mut h = harness("if_else");
    for _ in 0..3 {
        h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
    }
    h.run_steps(1);
    assert_eq!(steps(&h), 3);
    for _ in 0..2 {
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F10);
    }
    h.run_steps(1);
    assert_eq!(steps(&h), 5);
}

/// `if_else` in presenter mode at 1280x720, where its source is taller than the pane.
fn presenter_if_else() -> Harness<'static, LanescopeApp> {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("if_else");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h.key_press(egui::Key::F2);
    h.run_steps(3);
    h
}

/// The source view keeps the current line in sight: in presenter mode at 1280x720 the if's
/// lines lie below the first screenful, and stepping brings them into view.
#[test]
fn the_source_view_follows_the_current_line() {
    let mut h = presenter_if_else();
    for _ in 0..4 {
        h.key_press(egui::Key::F10);
        h.run_steps(3);
        let (band, clip) = h
            .ctx
            .data(|d| d.get_temp::<(egui::Rect, egui::Rect)>(crate::gui::editor::current_line_id()))
            .expect("the current line is drawn");
        let line = current_source_line(h.state()).unwrap();
        assert!(line > 30, "line {line}");
        assert!(
            clip.contains_rect(
                band.shrink2(egui::vec2(0.0, 1.0))
                    .intersect(egui::Rect::from_x_y_ranges(clip.x_range(), band.y_range()))
            ),
            "line {line}'s band {band:?} is outside the view {clip:?}"
        );
    }
}

#[test]
fn a_views_asks_apply_after_the_frame_in_the_order_asked() {
    use crate::gui::ask::{Action, Jump};
    let mut h = harness("if_else");
    for _ in 0..6 {
        h.state_mut().ask(Action::Step);
    }
    // Asked, not done: nothing moves until the frame applies what the views asked for.
    assert_eq!(steps(&h), 0);
    h.run_steps(2);
    assert_eq!(steps(&h), 6);
    // A jump lands first, then shows what asked for it: its own status, not "went to step 2".
    h.state_mut().ask(Action::GoTo(Jump {
        step: 2,
        instruction: None,
        source_line: None,
        status: Some("went to the diagnostic's step".into()),
    }));
    h.run_steps(2);
    assert_eq!(steps(&h), 2);
    assert_eq!(h.state().status, "went to the diagnostic's step");
    // The toolbar's limits are settings asked for: a run-bounding one restarts the run.
    let mut st = h.state().settings.clone();
    st.max_steps += 1;
    h.state_mut().ask(Action::Settings {
        settings: Box::new(st.clone()),
        restart: true,
    });
    h.run_steps(2);
    assert_eq!(steps(&h), 0);
    assert_eq!(h.state().settings, st);
}

#[test]
fn the_keyboard_reads_into_actions_without_touching_the_app() {
    use crate::gui::ask::Action;
    use crate::gui::session::LineStep;
    let ctx = egui::Context::default();
    let mut input = egui::RawInput::default();
    for (key, modifiers) in [
        (egui::Key::F10, egui::Modifiers::NONE),
        (egui::Key::F10, egui::Modifiers::NONE),
        (egui::Key::F10, egui::Modifiers::SHIFT),
        (egui::Key::F5, egui::Modifiers::NONE),
        (
            egui::Key::G,
            egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        ),
    ] {
        input
            .events
            .push(crate::gui::keys::event(key, true, modifiers));
    }
    let names = read_keys(&ctx, input, false);
    assert_eq!(
        names,
        [
            // (the exports' and Run on GPU's keys are read first)
            format!("{:?}", Action::RunOnGpu),
            format!("{:?}", Action::StepLine(LineStep::Over)),
            format!("{:?}", Action::StepLine(LineStep::Over)),
            format!("{:?}", Action::StepBack),
            format!("{:?}", Action::Run),
        ]
    );
    // F2 then Space in one frame: presenter mode on, and Space is its step key already.
    let mut input = egui::RawInput::default();
    for key in [egui::Key::F2, egui::Key::Space] {
        input
            .events
            .push(crate::gui::keys::event(key, true, egui::Modifiers::NONE));
    }
    let mut names = read_keys(&ctx, input, false);
    names.sort();
    let mut want = [
        format!("{:?}", Action::StepLine(LineStep::Over)),
        format!("{:?}", Action::TogglePresenter),
    ];
    want.sort();
    assert_eq!(names, want);
}

/// What `keys::read` makes of one frame's `input`, each action as its debug text.
fn read_keys(ctx: &egui::Context, input: egui::RawInput, presenter: bool) -> Vec<String> {
    let mut asked = Vec::new();
    // (the font atlas's first upload is let go: no painter here)
    ctx.run_ui(input, |ui| {
        asked = super::super::keys::read(ui.ctx(), presenter);
    })
    .textures_delta
    .clear();
    asked.iter().map(|a| format!("{a:?}")).collect()
}

/// How long egui was asked to wait before the next frame (zero: at once).
fn repaint_delay(h: &Harness<'_, LanescopeApp>) -> std::time::Duration {
    h.output().viewport_output[&egui::ViewportId::ROOT].repaint_delay
}

/// Animating at 8 steps a second draws a frame when a step is due and none in between (each
/// frame is a full repaint; in the browser without a GPU, ~40 ms of CPU), and still takes its 8
/// steps a second.
#[test]
fn animating_repaints_only_when_a_step_is_due() {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("if_else");
    assert_eq!(app.settings.speed, 8.0);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_step_dt(1.0 / 60.0)
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h.get_by_label("Animate").click();
    h.step();
    h.step();
    assert!(h.state().animating);
    let start = steps(&h);
    let mut idle = 0;
    for _ in 0..60 {
        h.step();
        let d = repaint_delay(&h);
        assert!(d <= std::time::Duration::from_millis(125), "{d:?}");
        if d >= std::time::Duration::from_millis(10) {
            idle += 1;
        }
    }
    let taken = steps(&h) - start;
    assert!((7..=9).contains(&taken), "{taken} steps in one second");
    // Most frames of that second asked for no repaint until the next step was due.
    assert!(
        idle >= 40,
        "only {idle} of 60 frames waited for the next step"
    );
}

/// Stepping while the current line stays in view leaves the source where it is (the text
/// does not slide under the reader's eyes), and asks for no frames after the step's own: no
/// animated scroll. In presenter mode at 1280x720 the source is taller than its pane.
#[test]
fn a_step_within_the_view_keeps_the_source_still() {
    let mut h = presenter_if_else();
    let band = |h: &Harness<'_, LanescopeApp>| {
        h.ctx
            .data(|d| d.get_temp::<(egui::Rect, egui::Rect)>(crate::gui::editor::current_line_id()))
            .expect("the current line is drawn")
    };
    let mut stayed = 0;
    for _ in 0..4 {
        let (before, _) = band(&h);
        let line = current_source_line(h.state()).unwrap();
        h.key_press(egui::Key::F10);
        h.run_steps(3);
        let next = current_source_line(h.state()).unwrap();
        let (after, clip) = band(&h);
        assert!(
            clip.contains_rect(after.shrink(1.0)),
            "line {next} out of view"
        );
        assert!(repaint_delay(&h) > std::time::Duration::from_millis(100));
        // Where the new line was already in view, the text did not move: the band moved by
        // the lines stepped.
        let pitch = after.height();
        let was_in_view = clip
            .contains_rect(before.translate(egui::vec2(0.0, (next as f32 - line as f32) * pitch)));
        if was_in_view && next != line {
            let moved = (after.center().y - before.center().y) / pitch;
            assert!(
                (moved - (next as f32 - line as f32)).abs() < 0.2,
                "line {line} -> {next}: the band moved {moved} lines"
            );
            stayed += 1;
        }
    }
    assert!(stayed >= 2, "only {stayed} steps stayed in view");
}
