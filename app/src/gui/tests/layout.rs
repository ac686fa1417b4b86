//! The layout a person arranges: panes folded and unfolded, the graph/views split, and the
//! timeline following the running subgroup.

use super::*;
use crate::gui::ask::Action;

fn at_1280(app: LanescopeApp) -> Harness<'static, LanescopeApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run();
    h
}

fn example_at_1280(name: &str) -> Harness<'static, LanescopeApp> {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example(name);
    at_1280(app)
}

/// Each pane folds to a named strip at its edge (button or key) and the strip unfolds it;
/// folding the graph gives the views its height.
#[test]
fn the_code_graph_and_values_panes_fold_and_unfold() {
    let mut h = example_at_1280("if_else");
    let code_w = h.get_by_label("Source").rect().left();
    let lanes_top = h.get_by_label("Lanes").rect().top();
    // The code pane: Hide folds it, the strip brings it back.
    assert!(h.query_by_label("Code").is_none());
    h.get_all_by_label("Hide").next().unwrap().click();
    h.run();
    assert!(!h.state().panes.code);
    assert!(
        h.query_by_label("Source").is_none(),
        "the code pane is folded"
    );
    let strip = h.get_by_label("Code").rect();
    assert!(strip.width() < 40.0 && strip.height() > 400.0, "{strip:?}");
    // The graph's heading moved left into the room the code had.
    let heading = h.get_by_label("Control flow").rect();
    assert!(heading.left() < 100.0, "{heading:?}");
    h.get_by_label("Code").click();
    h.run();
    assert!(h.state().panes.code);
    assert_eq!(h.get_by_label("Source").rect().left(), code_w);
    // Ctrl+B does the same.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::B);
    h.run();
    assert!(!h.state().panes.code && h.query_by_label("Source").is_none());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::B);
    h.run();
    assert!(h.state().panes.code);
    // The graph (Ctrl+J): folded, the views start right under its heading.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::J);
    h.run();
    assert!(!h.state().panes.graph);
    let folded_top = h.get_by_label("Lanes").rect().top();
    assert!(
        folded_top < lanes_top - 200.0,
        "the views move up: {lanes_top} -> {folded_top}"
    );
    assert!(
        h.query_by_label("Fit").is_none(),
        "no graph controls while folded"
    );
    h.get_by_label("Show").click();
    h.run();
    assert!(h.state().panes.graph);
    assert_eq!(h.get_by_label("Lanes").rect().top(), lanes_top);
    // The values pane (Ctrl+Alt+B): its strip names it and counts diagnostics.
    h.key_press_modifiers(
        egui::Modifiers::COMMAND.plus(egui::Modifiers::ALT),
        egui::Key::B,
    );
    h.run();
    assert!(!h.state().panes.side && h.state().panes.code);
    assert!(h.query_by_label_contains("Diagnostics (").is_none());
    let strip = h.get_by_label("Values").rect();
    assert!(strip.right() >= 1250.0 && strip.width() < 40.0, "{strip:?}");
    h.get_by_label("Values").click();
    h.run();
    assert!(h.state().panes.side);
    h.get_by_label_contains("Diagnostics (");
}

/// The View menu lists the panes with their keys, and Reset layout opens them all again.
#[test]
fn the_view_menu_folds_panes_and_resets_the_layout() {
    let mut h = example_at_1280("if_else");
    h.get_by_label("View").click();
    h.run();
    h.get_by_label("Control flow Ctrl+J").click();
    h.run();
    assert!(!h.state().panes.graph);
    // Menu items are named with their keys.
    h.get_by_label("View").click();
    h.run();
    h.get_by_label("Values and inputs Ctrl+Alt+B").click();
    h.run();
    assert!(!h.state().panes.side);
    h.get_by_label("View").click();
    h.run();
    h.get_by_label("Reset layout").click();
    h.run();
    assert_eq!(h.state().panes, crate::gui::state::Panes::default());
    h.get_by_label("Fit");
    h.get_by_label_contains("Diagnostics (");
}

/// Dragging the bar under the graph shares the height differently; a double click sizes it by
/// the view again.
#[test]
fn the_bar_under_the_graph_moves_the_split() {
    let mut h = example_at_1280("if_else");
    let top = h.get_by_label("Lanes").rect().top();
    let bar = h.get_by_label("graph and views divider").rect();
    let from = bar.center();
    h.drag_at(from);
    h.run();
    h.hover_at(from + egui::vec2(0.0, -150.0));
    h.run();
    h.drop_at(from + egui::vec2(0.0, -150.0));
    h.run();
    let share = h.state().panes.graph_share.expect("a dragged share");
    assert!(share > 0.1 && share < 0.9, "{share}");
    let moved = h.get_by_label("Lanes").rect().top();
    assert!(
        (moved - (top - 150.0)).abs() < 20.0,
        "the views follow the bar: {top} -> {moved}"
    );
    // Reset layout sizes the graph by the view again.
    h.get_by_label("View").click();
    h.run();
    h.get_by_label("Reset layout").click();
    h.run();
    assert_eq!(h.state().panes.graph_share, None);
    assert_eq!(h.get_by_label("Lanes").rect().top(), top);
}

/// With more subgroups than the timeline's height holds, it scrolls to the subgroup the steps
/// follow, and marks it.
#[test]
fn the_timeline_scrolls_to_the_running_subgroup() {
    let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
               @compute @workgroup_size(256)\n\
               fn main(@builtin(local_invocation_index) l: u32) {\n\
               \x20   o[l] = l;\n\
               \x20   workgroupBarrier();\n\
               \x20   o[l] = o[255u - l] + 1u;\n\
               }\n";
    let mut app = LanescopeApp::new(Settings {
        subgroup_size: 4,
        ..Settings::default()
    });
    app.open_source(super::super::editor::Editor::new(
        "tall.wgsl",
        lanescope_front::Language::Wgsl,
        src.into(),
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = at_1280(app);
    h.get_by_label("Timeline").click();
    h.run();
    // Scheduler steps until a subgroup far down (64 subgroups, one band each) runs.
    for _ in 0..2000 {
        h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
        h.run_steps(1);
        if h.state().line_step_tangle().is_some_and(|(g, _)| g >= 48) {
            break;
        }
    }
    let (g, _) = h.state().line_step_tangle().unwrap();
    assert!(g >= 48, "reached subgroup {g}");
    h.run();
    let timeline = h.get_by_label("timeline").rect();
    let (rows, visible) = h.state().timeline_view.expect("a followed subgroup");
    assert!(
        timeline.height() > visible.height() + 200.0,
        "the timeline is taller than its area: {timeline:?} in {visible:?}"
    );
    assert!(
        visible.contains_rect(rows.shrink(0.5)),
        "subgroup {g}'s rows {rows:?} are in sight in {visible:?}"
    );
}

/// A link to an example opened over source being edited (the browser brings the last edit
/// back before it reads the address) shows the example's source, not the old edit's.
#[test]
fn a_link_to_an_example_replaces_the_source_being_edited() {
    let mut app = LanescopeApp::new(Settings::default());
    open_first_template(&mut app);
    assert!(app.editor.is_some());
    app.apply_link(link("#example=if_else&step=3"));
    assert!(app.error.is_none(), "{:?}", app.error);
    assert!(app.editor.is_none(), "the edit went with its module");
    let h = at_1280(app);
    // The source pane shows the example's GLSL from its debug information.
    h.get_by_label_contains("source from the module's debug information");
}

/// At a laptop's 1280x720 and at 1920x1080, in presenter mode too: the toolbar is one row and
/// fits, and with the values panel holding a wide matrix nothing is cut: the panels keep their
/// share of the window, the view tabs, the Matrix view and Compare's "Run both" are in sight.
#[test]
fn nothing_is_cut_at_laptop_and_projector_sizes() {
    for (w, h_px) in [(1280.0, 720.0), (1920.0, 1080.0)] {
        for presenter in [false, true] {
            let mut app = LanescopeApp::new(Settings::default());
            if presenter {
                // A class follows a lesson (the cooperative-matrix one opens this example): its
                // text takes the right of the screen.
                app.apply(&egui::Context::default(), Action::OpenLesson(8));
                assert!(app.lesson.is_some());
            } else {
                app.open_example("coopmat_tile_f16");
            }
            finish(&mut app);
            app.presenter = presenter;
            let mut h = Harness::builder()
                .with_size(egui::vec2(w, h_px))
                .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
            h.run_steps(3);
            let what = format!("{w}x{h_px}, presenter {presenter}");
            // Presenter mode zooms by 1.5: the window is smaller in points.
            let zoom = if presenter { 1.5 } else { 1.0 };
            let (w, h_px) = (w / zoom, h_px / zoom);
            let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, h_px));
            let first = h.get_by_label("Examples").rect();
            for label in [
                "Examples",
                "Lessons",
                "View",
                "Step line",
                "Back",
                "Run",
                "Reset",
            ] {
                let r = h.get_by_label(label).rect();
                assert!(screen.contains_rect(r), "{what}: {label} at {r:?} is cut");
                assert!(
                    (r.center().y - first.center().y).abs() < 2.0,
                    "{what}: {label} at {r:?} is on another row than Examples at {first:?}"
                );
            }
            if !presenter {
                for label in ["File", "Subgroup", "Options"] {
                    let r = h.get_by_label(label).rect();
                    assert!(
                        (r.center().y - first.center().y).abs() < 2.0,
                        "{what}: {label} {r:?} is off the toolbar's row"
                    );
                }
                // The values panel, holding the matrices, keeps to its share.
                let values = h.get_by_label("Values and inputs").rect();
                assert!(
                    values.left() > w * 0.6 && values.left() < w * 0.75,
                    "{what}: the values panel starts at {values:?}"
                );
            }
            // The views' tabs, whole, left of the panel on the right.
            let panel = if presenter {
                "Lesson"
            } else {
                "Values and inputs"
            };
            let right = h
                .get_all_by_label(panel)
                .map(|n| n.rect().left())
                .fold(w, f32::min);
            assert!(right < w * 0.8, "{what}: the right panel starts at {right}");
            for label in super::super::views::Tab::ALL.map(super::super::views::Tab::label) {
                let r = h.get_by_label(label).rect();
                assert!(
                    screen.contains_rect(r) && r.right() <= right,
                    "{what}: the {label} tab at {r:?} is cut (the panel starts at {right})"
                );
            }
            h.get_by_label("Compare").click();
            h.run_steps(2);
            let r = h.get_by_label("Run both").rect();
            assert!(screen.contains_rect(r), "{what}: Run both at {r:?} is cut");
        }
    }
}

/// A panel's width is a share of the window: it shrinks with the window, a drag sets the share,
/// and Reset layout brings the default back.
#[test]
fn panels_take_a_share_of_the_window_and_remember_a_drag() {
    let mut h = example_at_1280("coopmat_tile_f16");
    let values = h.get_by_label("Values and inputs").rect().left();
    assert!((values - 1280.0 * 0.7).abs() < 40.0, "{values}");
    h.state_mut().panes.side_share = Some(0.45);
    h.run_steps(2);
    let wider = h.get_by_label("Values and inputs").rect().left();
    assert!((wider - 1280.0 * 0.55).abs() < 40.0, "{wider}");
    h.set_size(egui::vec2(1000.0, 720.0));
    h.run_steps(2);
    let shrunk = h.get_by_label("Values and inputs").rect().left();
    assert!(
        (shrunk - 1000.0 * 0.55).abs() < 40.0,
        "the panel shrinks with the window: {shrunk}"
    );
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Reset layout").click();
    h.run_steps(2);
    assert_eq!(h.state().panes.side_share, None);
    let back = h.get_by_label("Values and inputs").rect().left();
    assert!((back - 1000.0 * 0.7).abs() < 40.0, "{back}");
}

/// The File menu holds what left the toolbar: Copy link there and on Ctrl+Shift+L, Save source
/// only while editing.
#[test]
fn the_file_menu_copies_a_link_and_saves_only_while_editing() {
    let mut h = example_at_1280("if_else");
    h.get_by_label("File").click();
    h.run_steps(2);
    {
        use egui_kittest::kittest::NodeT as _;
        assert!(
            h.get_by_label("Save source Ctrl+S")
                .accesskit_node()
                .is_disabled(),
            "nothing is being edited"
        );
    }
    h.get_by_label("Copy link Ctrl+Shift+L").click();
    h.run_steps(2);
    assert_eq!(h.state().status, "link copied");
    assert!(
        h.state().last_fragment.contains("example=if_else"),
        "{}",
        h.state().last_fragment
    );
    h.state_mut().status.clear();
    h.key_press_modifiers(
        egui::Modifiers::COMMAND.plus(egui::Modifiers::SHIFT),
        egui::Key::L,
    );
    h.run_steps(2);
    assert_eq!(h.state().status, "link copied");
}

/// A first start says what to do; the hint goes once used (a step, or its lesson button) and
/// stays gone.
#[test]
fn the_first_screen_says_what_to_do_and_goes_once_used() {
    let mut h = example_at_1280("if_else");
    h.get_by_label_contains("press F10");
    h.key_press(egui::Key::F10);
    h.run_steps(2);
    assert!(h.query_by_label_contains("press F10").is_none());
    assert!(h.state().panes.welcomed, "kept between runs with the panes");
    h.state_mut().open_example("nested_if");
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("press F10").is_none(),
        "and stays gone"
    );

    let mut h = example_at_1280("if_else");
    h.get_by_label("Open lesson 1").click();
    h.run_steps(2);
    assert_eq!(h.state().lesson, Some(0));
    assert!(h.query_by_label_contains("press F10").is_none());
}

/// The source's gutter stays at the pane's left edge when the text scrolls sideways: a click
/// there still sets a breakpoint on the line.
#[test]
fn the_gutter_stays_when_the_source_scrolls_sideways() {
    let mut h = example_at_1280("if_else");
    for _ in 0..3 {
        h.key_press(egui::Key::F10);
        h.run_steps(2);
    }
    let (band, clip): (egui::Rect, egui::Rect) = h
        .ctx
        .data(|d| d.get_temp(super::super::editor::current_line_id()))
        .expect("the current line is drawn");
    h.event(egui::Event::PointerMoved(band.center()));
    for _ in 0..5 {
        wheel(&mut h, egui::vec2(-400.0, 0.0));
    }
    let (band, _): (egui::Rect, egui::Rect) = h
        .ctx
        .data(|d| d.get_temp(super::super::editor::current_line_id()))
        .unwrap();
    let before = h.state().session.as_ref().unwrap().breakpoints.len();
    click_at(&mut h, egui::pos2(clip.left() + 12.0, band.center().y));
    let after = h.state().session.as_ref().unwrap().breakpoints.len();
    assert!(
        after > before,
        "the gutter click set a breakpoint ({before} -> {after})"
    );
}

/// A source compiled in the app (GLSL, WGSL, assembly) shows its current line from step 0: the
/// line the tangle is about to run, also where the first instructions (a function's variables)
/// carry no line of their own.
#[test]
fn a_source_compiled_in_the_app_shows_its_current_line_at_step_0() {
    for t in super::super::editor::TEMPLATES {
        let mut app = LanescopeApp::new(Settings::default());
        app.open_source(super::super::editor::Editor::new(
            t.name,
            t.language,
            t.text.to_owned(),
        ));
        assert!(app.error.is_none(), "{}: {:?}", t.name, app.error);
        let s = app.session.as_ref().unwrap();
        assert_eq!(s.step_count(), 0);
        let line = super::current_source_line(&app);
        assert!(line.is_some(), "{}: no current line at step 0", t.name);
    }
}

/// F10 over a source line holding a MulAdd shows that MulAdd in the Matrix view, though the
/// line ends with the store of its result.
#[test]
fn stepping_a_line_shows_the_muladd_it_ran() {
    let mut h = example_at_1280("coopmat_tile_f16");
    h.get_by_label("Matrix").click();
    h.run_steps(2);
    let mut shown = false;
    for _ in 0..60 {
        h.key_press(egui::Key::F10);
        h.run_steps(2);

        if h.query_by_label_contains("matrix Result = ").is_some() {
            shown = true;
            break;
        }
    }
    assert!(shown, "a line's MulAdd is drawn after F10");
    let s = h.state().session.as_ref().unwrap();
    let last = s.sim().trace().last().unwrap();
    assert!(
        !super::super::views::matrix::is_muladd(&s.program.meaning(last.block, last.pos)),
        "the line's last instruction is not the MulAdd itself"
    );
}

/// Every tangle of a module with source lines has its marker in the source view: both sides of
/// each divergence, tangles waiting at a merge, at every step of every example with a source.
#[test]
fn every_tangle_has_a_line_in_the_source_view() {
    for (name, _, source) in crate::examples::EXAMPLES {
        if source.is_empty() {
            continue;
        }
        let mut app = LanescopeApp::new(Settings::default());
        app.open_example(name);
        let s = app.session.as_mut().unwrap();
        for step in 0..400 {
            let sim = s.sim();
            for t in sim.tangles() {
                assert!(
                    sim.tangle_source_pos(t.subgroup as usize, t.id).is_some(),
                    "{name} step {step}: tangle {} of subgroup {} has no line",
                    t.id,
                    t.subgroup
                );
            }
            if !s.step().unwrap() {
                break;
            }
        }
    }
}

/// The Rotate view at 1280x720: every lane's box is wide enough for its value, the two columns
/// and the arrows between them fit the views' width (no sideways scrolling), and hovering a
/// receiving box names the lane it read.
#[test]
fn the_rotate_view_fits_a_laptop_with_each_value_in_its_box() {
    for example in ["rotate_clustered", "rotate_divergent"] {
        let mut h = example_at_1280(example);
        step_until_ran(&mut h, super::super::views::rotate::is_rotate);
        h.get_by_label("Rotate").click();
        h.run_steps(2);
        let figure = h.get_by_label("rotate lanes").rect();
        let values = h.get_by_label("Values and inputs").rect().left();
        let tabs = h.get_by_label("Lanes").rect();
        assert!(
            figure.left() >= tabs.left() - 12.0 && figure.right() <= values,
            "{example}: the view at {figure:?} runs under the values panel at {values}"
        );
        for l in 0..32 {
            for label in [format!("lane {l} holds"), format!("lane {l} receives")] {
                let Some(node) = h.query_by_label_contains(&label) else {
                    assert!(label.contains("receives"), "{example}: no box for {label}");
                    continue;
                };
                let r = node.rect();
                assert!(
                    r.width() >= 30.0 && figure.contains_rect(r),
                    "{example}: {label} at {r:?} (view {figure:?})"
                );
            }
        }
        // Lane 5 of the clustered rotate (ClusterSize 4, Delta 1) reads lane 6.
        if example == "rotate_clustered" {
            h.get_by_label("lane 5 receives lane 6");
        }
    }
}

/// What one stepped frame asks the renderer to draw, in triangles: software WebGL (the
/// browser's renderer on machines without a GPU) pays ~1.5 us for each, every frame, so the
/// shapes the app draws stay lean (square widget corners: a rounded, feathered rectangle is 58
/// triangles, a square one 10). The browser test's window, the built-in example after four
/// F10 presses: 12,473 triangles with widget corners of 2 points, 9,753 square, 9,225 with
/// the grids' stripes square too.
#[test]
fn a_stepped_frame_stays_within_its_triangle_budget() {
    let ctx = egui::Context::default();
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example(crate::examples::DEFAULT_EXAMPLE);
    let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1400.0, 860.0));
    let mut out = None;
    for i in 0..90 {
        let events = if i % 20 == 19 {
            vec![crate::gui::keys::event(
                egui::Key::F10,
                true,
                egui::Modifiers::NONE,
            )]
        } else {
            vec![]
        };
        let raw = egui::RawInput {
            screen_rect: Some(rect),
            time: Some(f64::from(i) / 60.0),
            events,
            ..Default::default()
        };
        out = Some(ctx.run_ui(raw, |ui| app.show(ui)));
    }
    assert!(app.session.as_ref().is_some_and(|s| s.step_count() > 3));
    let triangles = triangles(&ctx, out.unwrap());
    assert!(
        (5_000..10_000).contains(&triangles),
        "{triangles} triangles in a stepped frame"
    );
}

/// The Matrix view on its example (four 16x16 matrices, one cell per element) in the browser
/// test's window: its cells are one mesh of square quads, two triangles each, where a rounded,
/// feathered cell was 34 (the view's frame: 43,885 triangles with rounded cells, 11,117 square).
#[test]
fn the_matrix_view_stays_within_its_triangle_budget() {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("coopmat_tile_f16");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 860.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run();
    step_until_ran(&mut h, super::super::views::matrix::is_muladd);
    h.get_by_label("Matrix").click();
    h.run();
    let triangles = triangles(&h.ctx, h.output().clone());
    assert!(
        (5_000..14_000).contains(&triangles),
        "{triangles} triangles in the Matrix view's frame"
    );
}

/// The triangles a frame's output tessellates to.
fn triangles(ctx: &egui::Context, out: egui::FullOutput) -> usize {
    ctx.tessellate(out.shapes, out.pixels_per_point)
        .iter()
        .map(|p| match &p.primitive {
            egui::epaint::Primitive::Mesh(m) => m.indices.len() / 3,
            egui::epaint::Primitive::Callback(_) => 0,
        })
        .sum()
}
