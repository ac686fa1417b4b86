//! The extension views: rotate, matrix, dot product, and the timeline's subgroups.

use super::*;

#[test]
fn the_rotate_view_shows_delta_and_cluster_of_the_rotate_that_ran() {
    let mut h = harness("rotate_clustered");
    step_until_ran(&mut h, crate::gui::views::rotate::is_rotate);
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
    step_until_ran(&mut h, crate::gui::views::matrix::is_muladd);
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
        let site =
            crate::gui::views::find_site(s, None, crate::gui::views::matrix::is_muladd).unwrap();
        let v = crate::gui::views::matrix::MatrixView::build(s, Some(&site), None, 0);
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
    assert_eq!(h.state().settings.coop_layout.name(), "amd-rdna3");
    assert_eq!(s.program.coop_layout().name(), "amd-rdna3");
    assert_eq!(steps(&h), at, "the same step under the new layout");
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
}

#[test]
fn the_dot_product_view_opens_up_a_lane() {
    let mut h = harness("dot_int8_acc");
    step_until_ran(&mut h, crate::gui::views::dot::is_dot);
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
