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

/// Shows the disassembly tab, as a click on it does (examples open on their source).
fn show_disassembly(h: &mut Harness<'_, LanescopeApp>) {
    h.get_by_label("Disassembly").click();
    h.run_steps(2);
    assert_eq!(h.state().left_tab, super::LeftTab::Disassembly);
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
    show_disassembly(&mut h);
    h.state_mut().scroll_to_line = Some(0);
    h.run_steps(2);
    assert!(h.state().disasm_visible.start < 5);
    // The fallback example has no source: it opens on its disassembly.
    h.state_mut().open_example("if_else_no_debug");
    h.run_steps(3);
    assert_eq!(h.state().left_tab, super::LeftTab::Disassembly);
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

fn click_at(h: &mut Harness<'_, LanescopeApp>, pos: egui::Pos2) {
    // Move first and let a frame pass, as a hand does, so the last hover's tooltip is gone.
    h.remove_cursor();
    h.run_steps(2);
    h.event(egui::Event::PointerMoved(pos));
    h.run_steps(2);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    h.run_steps(3);
}

/// Steps until the last step ran an instruction `want` accepts (a view then shows it).
fn step_until_ran(
    h: &mut Harness<'_, LanescopeApp>,
    want: fn(&lanescope_core::view::Meaning) -> bool,
) {
    step_until(h, |s| {
        super::views::find_site(s, None, want).is_some_and(|x| x.executed)
    });
}

/// Steps (through the session, as F10 would) until `want` says the view has something.
fn step_until(h: &mut Harness<'_, LanescopeApp>, want: impl Fn(&super::session::Session) -> bool) {
    for _ in 0..5000 {
        let s = h.state_mut().session.as_mut().unwrap();
        if want(s) {
            h.run_steps(2);
            return;
        }
        assert!(
            s.step().unwrap(),
            "finished before the view had anything to show"
        );
    }
    panic!("not reached in 5000 steps");
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

#[test]
fn the_rotate_view_shows_delta_and_cluster_of_the_rotate_that_ran() {
    let mut h = harness("rotate_clustered");
    step_until_ran(&mut h, super::views::rotate::is_rotate);
    h.get_by_label("Rotate").click();
    h.run_steps(3);
    h.get_by_label_contains("Executed rotate");
    h.get_by_label_contains("ClusterSize = ");
    h.get_by_label_contains("Delta = ");
    h.get_by_label("rotate lanes");
}

#[test]
fn the_matrix_view_selects_a_lane_and_switches_the_layout_at_the_same_step() {
    let mut h = harness("coopmat_tile_f16");
    step_until_ran(&mut h, super::views::matrix::is_muladd);
    let at = steps(&h);
    h.get_by_label("Matrix").click();
    h.run_steps(3);
    // A, B, C and the Result are drawn; a click on an element of A selects the lane holding it.
    let a = h.get_by_label_contains("matrix A = ").rect();
    h.get_by_label_contains("matrix Result = ");
    click_at(&mut h, a.left_top() + egui::vec2(3.0, 3.0));
    let lane = h.state().matrix_sel.lane.expect("a lane is selected");
    let expected = {
        let s = h.state().session.as_ref().unwrap();
        let site = super::views::find_site(s, None, super::views::matrix::is_muladd).unwrap();
        let v = super::views::matrix::MatrixView::build(s, Some(&site), None, 0);
        v.grids[0].holders[0][0].0
    };
    assert_eq!(
        lane, expected,
        "element (0, 0) of A belongs to lane {expected}"
    );
    h.get_by_label_contains(&format!("lane {lane} holds the outlined elements"));
    // A click on a Result element chooses it (row of A, column of B light up).
    let r = h.get_by_label_contains("matrix Result = ").rect();
    click_at(&mut h, r.left_top() + egui::vec2(3.0, 3.0));
    assert_eq!(h.state().matrix_sel.element, Some((0, 0)));
    // Another layout: same step, fragments re-laid out.
    h.get_by_label("Fragment layout").click();
    h.run_steps(2);
    h.get_by_label("amd-rdna3").click();
    h.run_steps(3);
    let s = h.state().session.as_ref().unwrap();
    assert_eq!(h.state().settings.coop_layout, "amd-rdna3");
    assert_eq!(s.program.coop_layout().name(), "amd-rdna3");
    assert_eq!(steps(&h), at, "the same step under the new layout");
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
}

#[test]
fn the_dot_product_view_opens_up_a_lane() {
    let mut h = harness("dot_int8_acc");
    step_until_ran(&mut h, super::views::dot::is_dot);
    h.get_by_label("Dot product").click();
    h.run_steps(3);
    h.get_by_label("a × b");
    h.get_by_label_contains("result = ");
    // Pick lane 3 in the table: the detail follows it.
    h.get_by_label("lane 3").click();
    h.run_steps(3);
    assert_eq!(h.state().selected_lane.map(|l| l.1), Some(3));
    h.get_by_label_contains("subgroup 0 lane 3");
}

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

#[test]
fn a_permalink_opens_the_module_settings_view_lane_and_step() {
    let mut h = harness("if_else");
    let link = super::permalink::Link::parse(
        "#example=loop_divergent&sg=16&switch=per-case&view=timeline&lane=1:3&step=40",
    )
    .unwrap();
    h.state_mut().apply_link(link);
    for _ in 0..20 {
        h.run_steps(1);
        if h.state().seek.is_none() {
            break;
        }
    }
    let app = h.state();
    assert!(app.error.is_none(), "{:?}", app.error);
    let s = app.session.as_ref().unwrap();
    assert_eq!(s.name, "loop_divergent.spv");
    assert_eq!(s.step_count(), 40);
    assert_eq!(s.sim().config().subgroup_size, 16);
    assert_eq!(app.tab, super::views::Tab::Timeline);
    assert_eq!(app.selected_lane, Some((1, 3)));
    assert_eq!(app.title(), "Lanescope — loop_divergent.spv — step 40");
    h.get_by_label("timeline");
    // The link of this state says the same.
    let again = app.link().unwrap().format().0;
    assert!(again.contains("example=loop_divergent"), "{again}");
    assert!(
        again.contains("step=40") && again.contains("sg=16") && again.contains("switch=per-case")
    );
    // A link leaves nothing to chance: what it does not say takes the default.
    h.state_mut()
        .apply_link(super::permalink::Link::parse("#example=if_else").unwrap());
    h.run_steps(2);
    let app = h.state();
    assert_eq!(app.settings.subgroup_size, 32);
    assert_eq!(
        app.settings.switch_tangles,
        lanescope_core::SwitchTangles::PerValue
    );
    assert_eq!(
        app.session.as_ref().unwrap().sim().config().subgroup_size,
        32
    );
}

#[test]
fn an_uploaded_module_travels_in_its_link() {
    let mut h = harness("if_else");
    let bytes = crate::examples::EXAMPLES
        .iter()
        .find(|e| e.0 == "nested_if")
        .unwrap()
        .1
        .to_vec();
    h.state_mut().open("mine.spv", bytes.clone());
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
    h.run_steps(2);
    let (fragment, complete) = h.state().link().unwrap().format();
    assert!(
        complete && fragment.contains("module=mine.spv:"),
        "{fragment}"
    );
    let mut other = harness("if_else");
    other
        .state_mut()
        .apply_link(super::permalink::Link::parse(&fragment).unwrap());
    other.run_steps(3);
    let s = other.state().session.as_ref().unwrap();
    assert_eq!((s.name.as_str(), &s.bytes), ("mine.spv", &bytes));
    assert_eq!(s.step_count(), 1);
    // A broken link is an error in the bar, and the session stays.
    other
        .state_mut()
        .apply_link(super::permalink::Link::parse("#example=no_such_thing").unwrap());
    other.run_steps(2);
    assert!(other
        .state()
        .error
        .as_deref()
        .unwrap_or("")
        .contains("no_such_thing"));
    assert_eq!(other.state().session.as_ref().unwrap().name, "mine.spv");
}

#[test]
fn a_link_opened_over_another_module_shows_its_instruction() {
    let mut h = harness("dot_int8_acc");
    for _ in 0..20 {
        h.key_press(egui::Key::F10);
        h.run_steps(1);
    }
    h.state_mut().apply_link(
        super::permalink::Link::parse("#example=coopmat_tile_f16&view=matrix&step=640").unwrap(),
    );
    for _ in 0..30 {
        h.run_steps(1);
    }
    assert_eq!(steps(&h), 640);
    show_disassembly(&mut h);
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

fn test_data(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../core/tests/data")
            .join(name),
    )
    .unwrap()
}

/// Hostile modules (bad layouts, recursion, unstructured flow, fuzzer findings) either end in
/// the error bar naming the file, or open and run to a clean stop; the app never panics.
#[test]
fn hostile_modules_end_in_the_error_bar_or_a_clean_stop() {
    let mut h = harness("if_else");
    h.state_mut().settings.max_steps = 5000;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data");
    let mut files: Vec<(String, Vec<u8>)> = [
        "layout_stride_overflow.spv",
        "layout_offset_overflow.spv",
        "recursion.spv",
        "unreachable.spv",
        "coopmat_bad_k.spv",
        "runtime_huge_stride.spv",
    ]
    .iter()
    .map(|f| ((*f).to_string(), test_data(f)))
    .collect();
    for sub in ["fuzz", "hostile"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "spv") {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                files.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    let (mut refused, mut ran) = (0, 0);
    for (name, bytes) in files {
        h.state_mut().error = None;
        h.state_mut().open(&name, bytes);
        h.run_steps(2);
        if let Some(err) = h.state().error.clone() {
            assert!(err.starts_with(&format!("{name}:")), "{err}");
            refused += 1;
            continue;
        }
        assert_eq!(h.state().session.as_ref().unwrap().name, name);
        h.key_press(egui::Key::F5);
        for _ in 0..200 {
            h.run_steps(1);
            if !h.state().running {
                break;
            }
        }
        assert!(!h.state().running, "{name}: still running after 200 frames");
        ran += 1;
    }
    assert!(refused >= 10 && ran >= 2, "refused {refused}, ran {ran}");
}

/// A shader that never finishes stops at the step limit with a message saying how to raise it.
#[test]
fn an_endless_loop_stops_at_the_step_limit() {
    let mut h = harness("if_else");
    // Escape stops a run midway and says where.
    h.state_mut()
        .open("infinite_loop.spv", test_data("infinite_loop.spv"));
    h.key_press(egui::Key::F5);
    h.run_steps(3);
    assert!(h.state().running);
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    assert!(!h.state().running);
    let at = steps(&h);
    assert!(at > 0);
    assert_eq!(h.state().status, format!("stopped at step {at}"));
    h.state_mut().settings.max_steps = 3000;
    h.state_mut()
        .open("infinite_loop.spv", test_data("infinite_loop.spv"));
    h.run_steps(2);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    h.key_press(egui::Key::F5);
    for _ in 0..500 {
        h.run_steps(1);
        if !h.state().running {
            break;
        }
    }
    let err = h.state().error.clone().expect("the step limit is reported");
    assert!(!h.state().running);
    assert!(err.contains("step limit (3000 steps)"), "{err}");
    assert!(err.contains("Limits menu"), "{err}");
    assert_eq!(steps(&h), 3000);
}

/// The Limits menu holds every limit; a lower invocation limit refuses the open module's
/// workgroup and says where to raise it, and the buffer limit sizes an uploaded module's
/// buffers.
#[test]
fn limits_from_the_limits_menu_apply_to_the_run() {
    let mut h = harness("if_else");
    h.get_by_label("Limits").click();
    h.run_steps(2);
    for label in [
        "Steps per run",
        "Memory per workgroup (MiB)",
        "Invocations per workgroup",
        "Buffer memory (MiB)",
        "Trace steps kept",
    ] {
        h.get_by_label(label);
    }
    // Clicking a value to type into it keeps the menu open.
    h.get_by_label("Invocations per workgroup").click();
    h.run_steps(2);
    h.get_by_label("Trace steps kept");
    h.state_mut().settings.max_invocations = 16;
    h.state_mut().reset();
    h.run_steps(2);
    let err = h.state().error.clone().expect("the limit is reported");
    assert!(err.contains("the limit is 16"), "{err}");
    assert!(err.contains("Limits menu"), "{err}");

    h.state_mut().settings.max_invocations = 4096;
    h.state_mut().settings.max_buffer_mib = 1;
    h.state_mut().open(
        "runtime_huge_stride.spv",
        test_data("runtime_huge_stride.spv"),
    );
    h.run_steps(2);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let s = h.state().session.as_ref().unwrap();
    let bytes: usize = s.initial.buffers.iter().map(|(_, _, d)| d.len()).sum();
    assert!(bytes <= 1 << 20, "{bytes} bytes bound under a 1 MiB limit");
}

/// A file past the loader's limit is refused before it is read, and the error bar says so.
#[test]
fn an_oversized_file_is_refused_before_reading() {
    let path = std::env::temp_dir().join(format!("lanescope-big-{}.spv", std::process::id()));
    let f = std::fs::File::create(&path).unwrap();
    // Sparse: the size is what matters, not the bytes.
    f.set_len(lanescope_core::load::MAX_MODULE_BYTES as u64 + 4)
        .unwrap();
    let err = super::read_module(&path).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert!(err.contains("largest module"), "{err}");
    let missing = super::read_module(std::path::Path::new("/nonexistent/x.spv")).unwrap_err();
    assert!(!missing.is_empty());
}

/// Polls until the app has taken the dialog's answer.
fn until_answered(h: &mut Harness<'_, LanescopeApp>) {
    for _ in 0..200 {
        h.run_steps(1);
        if h.state().open_promise.is_none() && h.state().saving.is_none() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("the dialog's answer never arrived");
}

/// A file dialog that dies (rfd panicked without a runtime: "there is no reactor running") or
/// cannot be shown (no portal, no D-Bus) ends in the error bar; the session stays.
#[test]
fn a_file_dialog_that_dies_or_cannot_be_shown_keeps_the_session() {
    let mut h = harness("if_else");
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
    h.run_steps(2);
    h.state_mut().open_promise = Some(super::dialog::Pending::spawn(
        "open",
        || -> super::Opened { panic!("there is no reactor running (a test of a dying dialog)") },
    ));
    until_answered(&mut h);
    let err = h.state().error.clone().expect("an error is shown");
    assert!(err.contains("file dialog stopped unexpectedly"), "{err}");
    h.state_mut().saving = Some(super::dialog::Pending::spawn("save", || {
        panic!("a test of a dying save dialog")
    }));
    until_answered(&mut h);
    let err = h.state().error.clone().expect("an error is shown");
    assert!(err.contains("nothing was saved"), "{err}");
    // No dialog at all: what `dialog::native` makes of rfd's answer, as the open thread words it.
    h.state_mut().open_promise = Some(super::dialog::Pending::ready(Err(format!(
        "no file dialog available: no D-Bus — {}",
        super::NO_DIALOG_HINT
    ))));
    until_answered(&mut h);
    h.get_by_label_contains("Error: no file dialog available");
    let s = h.state().session.as_ref().unwrap();
    assert_eq!((s.name.as_str(), s.step_count()), ("if_else.spv", 1));
}

/// Selection, watches, breakpoints and a pending jump belong to the module they were made in;
/// another module opens without them.
#[test]
fn opening_another_module_clears_what_belonged_to_the_last() {
    let mut h = harness("if_else");
    show_disassembly(&mut h);
    // Watch an id by clicking it in the disassembly, as a person does (one in the middle: near
    // the end the scroll springs back while the click is under way).
    let (line, id, text) = {
        let s = h.state().session.as_ref().unwrap();
        let (i, l) = s
            .disasm
            .lines
            .iter()
            .enumerate()
            .skip(s.disasm.lines.len() / 2)
            .find(|(_, l)| {
                l.result_id.is_some_and(|id| s.program.has_value(id))
                    && s.disasm
                        .lines
                        .iter()
                        .filter(|m| m.result == l.result)
                        .count()
                        == 1
            })
            .unwrap();
        (i, l.result_id.unwrap(), l.result.clone())
    };
    h.state_mut().scroll_to_line = Some(line);
    h.run_steps(3);
    h.get_by_label(&text).click();
    h.run_steps(2);
    h.get_by_label(&format!("breakpoint at instruction {line}"))
        .click();
    h.run_steps(2);
    assert_eq!(h.state().selected_id, Some(id));
    assert_eq!(h.state().watches, vec![id]);
    // A tangle and a lane picked (as a click in the Lanes tab does).
    h.state_mut().selected_tangle = Some((0, 0));
    h.state_mut().selected_lane = Some((0, 3));
    // A jump still under way when the other module opens.
    h.state_mut().seek = Some(150);
    h.state_mut().open_example("nested_if");
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.session.as_ref().unwrap().name, "nested_if.spv");
    assert_eq!(app.selected_id, None, "the id stays highlighted");
    assert!(app.watches.is_empty());
    assert!(app.session.as_ref().unwrap().breakpoints.is_empty());
    assert_eq!((app.selected_tangle, app.selected_lane), (None, None));
    assert_eq!(app.seek, None);
    assert_eq!(steps(&h), 0, "the old module's jump carried over");
}

fn link(fragment: &str) -> super::permalink::Link {
    super::permalink::Link::parse(fragment).unwrap()
}

/// Runs the open module to its end, past the diagnostics that stop a run.
fn finish(app: &mut LanescopeApp) {
    let s = app.session.as_mut().unwrap();
    while let Some(super::session::Stop::Diagnostic(_)) = s.run_slice(1_000_000, u64::MAX).unwrap()
    {
    }
    assert!(s.sim().is_finished());
}

/// Runs the open module to its end (or 100k steps) and says how it went.
fn run_to_end(app: &mut LanescopeApp) -> String {
    let s = app.session.as_mut().unwrap();
    let stop = s.run_slice(100_000, u64::MAX);
    format!(
        "{stop:?} {}",
        serde_json::to_string(&s.sim().stats()).unwrap()
    )
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
        coop_layout: "amd-rdna3".into(),
        ..Settings::default()
    });
    let mut by_link = LanescopeApp::new(Settings::default());
    by_link.apply_link(link(
        "#example=if_else&sg=16&wg=1,2,1&switch=per-case&order=2&layout=portable&view=compare",
    ));
    assert!(by_link.error.is_none(), "{:?}", by_link.error);
    by_link.open_lesson(0);
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
            app.open_lesson(i);
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
    h.state_mut().open_lesson(0);
    h.run_steps(3);
    // Fold the lesson and scroll the side panel to the bottom of the buffers.
    h.get_by_label("Lesson").click();
    h.run_steps(3);
    h.event(egui::Event::PointerMoved(egui::pos2(1300.0, 600.0)));
    for _ in 0..5 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -4000.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
        });
        h.run_steps(2);
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

/// What is saved for the next start through eframe's storage.
#[derive(Default)]
struct Saved(std::collections::HashMap<String, String>);

impl eframe::Storage for Saved {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

fn saved_settings(app: LanescopeApp) -> (LanescopeApp, Settings) {
    let mut e = super::EframeApp(app);
    let mut store = Saved::default();
    eframe::App::save(&mut e, &mut store);
    let s =
        super::host::stored(Some(&store), super::host::SETTINGS_KEY).expect("settings are saved");
    (e.0, s)
}

/// The schedule is kept as its name, as earlier builds kept it; a name this build cannot read
/// falls back to the default schedule and keeps the rest of the settings.
#[test]
fn the_kept_schedule_reads_back_by_name() {
    let s = Settings {
        schedule: lanescope_core::Schedule::Random(7),
        subgroup_size: 8,
        ..Settings::default()
    };
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains(r#""schedule":"random:7""#), "{json}");
    let back: Settings = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    for bad in [r#""sideways""#, "3", "null"] {
        let text = json.replace(r#""random:7""#, bad);
        let back: Settings = serde_json::from_str(&text).unwrap();
        assert_eq!(back.schedule, lanescope_core::Schedule::Default, "{bad}");
        assert_eq!(back.subgroup_size, 8, "{bad}");
    }
}

/// A link's settings hold for the link's session only: the saved settings stay the person's,
/// and the next example opened runs under them again.
#[test]
fn a_links_settings_do_not_become_the_saved_ones() {
    let mut h = harness("if_else");
    // The person's own choice, as the toolbar makes it.
    h.state_mut().settings.subgroup_size = 8;
    h.state_mut().reset();
    h.run_steps(2);
    h.state_mut()
        .apply_link(link("#example=loop_divergent&sg=16&switch=per-case"));
    h.run_steps(2);
    let s = h.state().session.as_ref().unwrap();
    assert_eq!(
        s.sim().config().subgroup_size,
        16,
        "the link runs as it says"
    );
    // A limit raised meanwhile is the person's and is kept.
    h.state_mut().settings.max_steps = 123_456;
    let (app, saved) = saved_settings(std::mem::replace(
        h.state_mut(),
        LanescopeApp::new(Settings::default()),
    ));
    *h.state_mut() = app;
    assert_eq!(
        (saved.subgroup_size, saved.switch_tangles, saved.max_steps),
        (8, lanescope_core::SwitchTangles::PerValue, 123_456)
    );
    // The next example runs under the person's settings again.
    h.get_by_label("Examples").click();
    h.run_steps(2);
    h.get_by_label("nested_if").click();
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.session.as_ref().unwrap().name, "nested_if.spv");
    assert_eq!(app.settings.subgroup_size, 8);
    assert_eq!(
        app.settings.switch_tangles,
        lanescope_core::SwitchTangles::PerValue
    );
    let cfg = app.session.as_ref().unwrap().sim().config();
    assert_eq!(cfg.subgroup_size, 8);
    assert_eq!(app.settings.max_steps, 123_456);
    // A lesson's settings are set aside the same way.
    h.state_mut().open_lesson(8);
    assert_eq!(h.state().settings.subgroup_size, 32);
    let (_, saved) = saved_settings(std::mem::replace(
        h.state_mut(),
        LanescopeApp::new(Settings::default()),
    ));
    assert_eq!(saved.subgroup_size, 8);
}

/// Runs frames until the editor has no compile pending (the debounce has passed).
fn until_compiled(h: &mut Harness<'_, LanescopeApp>) {
    for _ in 0..200 {
        h.run_steps(1);
        let pending = h
            .state()
            .editor
            .as_ref()
            .is_some_and(|e| e.edited_at.is_some());
        if !pending && h.state().seek.is_none() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the edit was never compiled");
}

#[test]
fn typing_an_error_marks_it_and_fixing_it_restarts_the_run_at_the_same_step() {
    let mut h = harness("if_else");
    let t = &super::editor::TEMPLATES[0];
    h.state_mut().open_source(super::editor::Editor::new(
        t.name,
        t.language,
        t.text.into(),
    ));
    h.run_steps(2);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    assert_eq!(h.state().left_tab, super::LeftTab::Source);
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
fn an_edited_source_travels_in_its_link() {
    let mut h = harness("if_else");
    let t = &super::editor::TEMPLATES[1];
    let text = t.text.replace("128", "64");
    h.state_mut()
        .open_source(super::editor::Editor::new(t.name, t.language, text.clone()));
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
    h.run_steps(2);
    let (fragment, complete) = h.state().link().unwrap().format();
    assert!(complete, "{fragment}");
    let mut other = harness("if_else");
    other.state_mut().apply_link(link(&fragment));
    other.run_steps(3);
    let ed = other
        .state()
        .editor
        .as_ref()
        .expect("the link opens the editor");
    assert_eq!(
        (ed.name.as_str(), ed.text.as_str()),
        (t.name, text.as_str())
    );
    assert_eq!(other.state().session.as_ref().unwrap().step_count(), 1);
}

#[test]
fn every_template_opens_and_runs_to_the_end() {
    for t in super::editor::TEMPLATES {
        if !lanescope_front::can_compile(t.language) {
            continue;
        }
        let mut app = LanescopeApp::new(Settings::default());
        app.open_source(super::editor::Editor::new(
            t.name,
            t.language,
            t.text.into(),
        ));
        assert!(app.error.is_none(), "{}: {:?}", t.name, app.error);
        let end = run_to_end(&mut app);
        assert!(end.starts_with("Ok(Some(Finished))"), "{}: {end}", t.name);
    }
}

/// The bug lessons say where F5 stops and what is found there: check each claim.
#[test]
fn bug_lessons_stop_where_their_text_says() {
    use super::session::Stop;
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
        app.open_lesson(i);
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

/// The line the tangle a source step follows stands on.
fn current_source_line(app: &LanescopeApp) -> Option<u32> {
    let (g, id) = app.line_step_tangle()?;
    app.session
        .as_ref()?
        .sim()
        .tangle_source_pos(g, id)
        .map(|p| p.line)
}

/// Scheduler steps (Alt+F10), at most `max`, until subgroup 0 has tangles on two different
/// source lines; whether it got there.
fn scheduler_steps_until_two_lines(h: &mut Harness<'_, LanescopeApp>, max: usize) -> bool {
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
    let t = &super::editor::TEMPLATES[0];
    h.state_mut().open_source(super::editor::Editor::new(
        t.name,
        t.language,
        t.text.into(),
    ));
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
    h.state_mut().open_source(super::editor::Editor::new(
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
fn a_finished_session_saved_as_amberscript_passes_its_own_expectations() {
    let mut cases: Vec<LanescopeApp> = Vec::new();
    let mut a = LanescopeApp::new(Settings::default());
    a.open_example("subgroup_reduce");
    cases.push(a);
    let t = super::editor::TEMPLATES
        .iter()
        .find(|t| t.language == lanescope_front::Language::Glsl)
        .unwrap();
    let mut b = LanescopeApp::new(Settings {
        subgroup_size: 16,
        ..Settings::default()
    });
    b.open_source(super::editor::Editor::new(
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
        app.open_source(super::editor::Editor::new(
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
    let st = app.own_settings();
    assert!(
        app.open_amber(&sc.name, sc.script, st, 1),
        "{:?}",
        app.error
    );
    assert_eq!(app.scenario.as_ref().unwrap().open_run, Some(1));
    assert_eq!(
        app.session.as_ref().unwrap().sim().config().subgroup_size,
        4
    );
    assert!(app.status.contains("RUN 2 of 2"), "{}", app.status);
}

/// An example opens on its own GLSL (from the module's debug information): the highlighted
/// line follows the tangle, and the two sides of its `if` are two tangles on two lines.
#[test]
fn an_example_shows_its_glsl_and_the_highlight_follows_the_tangle() {
    let mut h = harness("if_else");
    assert_eq!(h.state().left_tab, super::LeftTab::Source);
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
    let two = scheduler_steps_until_two_lines(&mut h, 200);
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

/// At 1280x720 (and 1920x1080) every toolbar control, every tab and the diagnostics list lie
/// wholly inside the window (found through the accessibility tree, as a screen reader would).
#[test]
fn at_1280x720_every_control_and_tab_is_inside_the_window() {
    for (example, w, hgt) in [
        ("if_else", 1280.0, 720.0),
        ("coopmat_tile_f16", 1280.0, 720.0),
        ("if_else", 1920.0, 1080.0),
    ] {
        let mut app = LanescopeApp::new(Settings::default());
        app.open_example(example);
        let mut h = Harness::builder()
            .with_size(egui::vec2(w, hgt))
            .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
        h.run_steps(3);
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, hgt));
        let labels = [
            "File",
            "Examples",
            "Lessons",
            "View",
            "Subgroup",
            "Options",
            "Limits",
            "Step line",
            "Into",
            "Out",
            "Step",
            "Step tangle",
            "Back",
            "Run",
            "Animate",
            "Reset",
            "Source",
            "Disassembly",
            "Lanes",
            "Timeline",
            "Rotate",
            "Dot product",
            "Matrix",
            "Compare",
        ];
        for l in labels {
            // The toolbar's (or the tab row's) one: the topmost with that name (buffers in
            // Inputs have an Export of their own).
            let r = h
                .get_all_by_label(l)
                .map(|n| n.rect())
                .min_by(|a, b| a.top().total_cmp(&b.top()))
                .unwrap_or_else(|| panic!("{example}: no `{l}`"));
            assert!(
                window.contains_rect(r),
                "{example}: `{l}` at {r:?} is cut off"
            );
        }
        let d = h.get_by_label_contains("Diagnostics (").rect();
        assert!(
            window.contains_rect(d),
            "{example}: the diagnostics list at {d:?}"
        );
        // The graph's controls stay left of the values panel, not under it.
        let side = h.get_by_label("Values and inputs").rect().left();
        for l in ["Fit", "zoom"] {
            for r in h.get_all_by_label(l).map(|n| n.rect()) {
                assert!(
                    r.right() <= side,
                    "{example}: `{l}` at {r:?} runs under the panel at {side}"
                );
            }
        }
    }
}

/// The timeline shows every subgroup at once: 4 subgroups of 16 lanes fit a 1280x720 window,
/// as one band each when their lanes would not, and a click on a label unfolds one.
#[test]
fn the_timeline_shows_every_subgroup_in_sight() {
    let mut app = LanescopeApp::new(Settings {
        subgroup_size: 16,
        ..Settings::default()
    });
    app.open_example("loop_divergent");
    finish(&mut app);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h.get_by_label("Timeline").click();
    h.run_steps(3);
    let r = h.get_by_label("timeline").rect();
    assert!(r.bottom() <= 720.0, "{r:?}");
    // 64 lanes do not fit at 4 points each here: one band per subgroup, all four in sight.
    assert!(r.height() >= 16.0 + 4.0 * 12.0, "{r:?}");
    // A click on sg1's label unfolds its lanes (and only those).
    click_at(
        &mut h,
        egui::pos2(r.left() + 10.0, r.top() + 16.0 + 16.0 + 6.0),
    );
    assert_eq!(
        h.state()
            .timeline_flipped
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        [1]
    );
    let r2 = h.get_by_label("timeline").rect();
    assert!(r2.height() > r.height() + 16.0, "{r:?} -> {r2:?}");
}

/// The source view keeps the current line in sight: in presenter mode at 1280x720 the if's
/// lines lie below the first screenful, and stepping brings them into view.
#[test]
fn the_source_view_follows_the_current_line() {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("if_else");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h.key_press(egui::Key::F2);
    h.run_steps(3);
    for _ in 0..4 {
        h.key_press(egui::Key::F10);
        h.run_steps(3);
        let (band, clip) = h
            .ctx
            .data(|d| d.get_temp::<(egui::Rect, egui::Rect)>(super::editor::current_line_id()))
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

/// A long error wraps inside the window instead of running off its edge.
#[test]
fn a_long_error_wraps_inside_the_window() {
    let mut h = harness("if_else");
    h.state_mut().error = Some(format!("{} the end", "a very long message ".repeat(30)));
    h.run_steps(3);
    let r = h.get_by_label_contains("Error: a very long").rect();
    assert!(r.right() <= 1400.0 && r.height() > 30.0, "{r:?}");
}

mod compare;
mod graph;
mod images;
mod inputs;
mod layout;
mod snapshots;

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
    h.state_mut().toggle_source_breakpoint(helper, 3);
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
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h.get_by_label("Build").click();
    h.run_steps(2);
    h.get_by_label("Defines");
    let type_defines = |h: &mut Harness<'_, LanescopeApp>, text: &str| {
        h.state_mut().editor.as_mut().unwrap().build.defines = text.into();
        h.state_mut().editor.as_mut().unwrap().edited_at = Some(0.0);
        for _ in 0..100 {
            h.run_steps(1);
            if h.state().editor.as_ref().unwrap().edited_at.is_none() {
                break;
            }
        }
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
    other.apply_link(super::permalink::Link::parse(&fragment).unwrap());
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
