//! Compare: two settings run side by side, the choices offered for the open module, and a link
//! that opens the view.

use super::*;

#[test]
fn compare_runs_both_settings_and_goes_to_where_they_part() {
    let mut h = harness("switch_fallthrough");
    h.get_by_label("Compare").click();
    h.run_steps(2);
    h.get_by_label("Run both").click();
    for _ in 0..100 {
        h.run_steps(1);
        if h.state().comparison.is_some() {
            break;
        }
    }
    let (step, words) = {
        let c = h
            .state()
            .comparison
            .as_ref()
            .expect("the comparison finishes");
        assert_eq!(c.labels, ["per-value switch", "per-case switch"]);
        (
            c.first_difference.as_ref().unwrap().0,
            c.buffers[0].words.len(),
        )
    };
    h.run_steps(2);
    h.get_by_label_contains(&format!("The runs part at step {step}."));
    h.get_by_label_contains(&format!("{words} words differ"));
    h.get_by_label("Go there (A)").click();
    h.run_steps(2);
    assert_eq!(steps(&h), step - 1);
}

#[test]
fn a_link_to_the_compare_view_runs_the_comparison() {
    let mut h = harness("if_else");
    h.state_mut().apply_link(
        super::super::permalink::Link::parse("#example=switch_fallthrough&view=compare").unwrap(),
    );
    for _ in 0..100 {
        h.run_steps(1);
        if h.state().comparison.is_some() {
            break;
        }
    }
    assert!(h.state().comparison.is_some());
    h.get_by_label_contains("The runs part at step");
}

#[test]
fn compare_offers_fragment_layouts_only_where_they_matter() {
    use super::super::views::compare::Variant;
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("if_else");
    let (opts, _) = super::super::tabs::compare_options(&mut app);
    assert!(!opts.iter().any(|(v, _)| matches!(v, Variant::Layout(_))));
    assert!(opts.iter().any(|(v, _)| matches!(v, Variant::Schedule(_))));
    app.open_example("coopmat_tile_f16");
    let (opts, _) = super::super::tabs::compare_options(&mut app);
    assert!(opts.iter().any(|(v, _)| matches!(v, Variant::Layout(_))));
    // Every choice offered can be run; every one left out says why, and is one the module
    // cannot load under (amd-rdna3 has no fragment for int8 matrices).
    for name in ["coopmat_gemm_int8", "coopmat_tile_f16", "if_else"] {
        app.open_example(name);
        let (opts, refused) = super::super::tabs::compare_options(&mut app);
        let s = app.session.as_ref().unwrap();
        for (v, label) in &opts {
            assert!(
                super::super::views::compare::Runner::new(s, &app.settings, v).is_ok(),
                "{name}: {label} is offered and cannot run"
            );
        }
        if name == "coopmat_gemm_int8" {
            assert!(
                !opts
                    .iter()
                    .any(|(v, _)| *v
                        == Variant::Layout(lanescope_core::coopmat::LayoutChoice::AmdRdna3)),
                "{name}: amd-rdna3 offered"
            );
            assert!(
                refused.iter().any(|((v, _), why)| *v
                    == Variant::Layout(lanescope_core::coopmat::LayoutChoice::AmdRdna3)
                    && !why.is_empty()),
                "{refused:?}"
            );
        }
    }
    // The choices belong to the module they were tried on, even when another opened between
    // two looks at the view.
    app.open_example("coopmat_gemm_int8");
    let _ = super::super::tabs::compare_options(&mut app);
    app.open_example("if_else");
    app.open_example("coopmat_tile_f16");
    let (opts, _) = super::super::tabs::compare_options(&mut app);
    assert!(opts
        .iter()
        .any(|(v, _)| *v == Variant::Layout(lanescope_core::coopmat::LayoutChoice::AmdRdna3)));
}
