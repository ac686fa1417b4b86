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

/// Run on GPU: the module on the machine's Vulkan device (lavapipe where the project's set-up
/// ran) beside the simulation, without a frame waiting for it; with no device, why not.
#[test]
fn run_on_gpu_compares_the_module_on_the_device_off_the_ui_thread() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../gpu/tests/data/independent.spv"
    );
    let mut app = LanescopeApp::new(Settings::default());
    app.open("independent.spv", std::fs::read(path).unwrap());
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h.get_by_label("Compare").click();
    h.run_steps(2);
    h.get_by_label("Run on GPU Ctrl+Shift+G").click();
    h.run_steps(1);
    let mut frames = 0;
    while h.state().gpu_report.is_none() && frames < 600 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.run_steps(1);
        frames += 1;
    }
    let report = h
        .state()
        .gpu_report
        .clone()
        .expect("the run on the GPU ends");
    h.run_steps(2);
    match report {
        Ok(r) => {
            // Independent invocations: every word as simulated.
            assert!(r.words.is_empty(), "{r:?}");
            assert!(r.summary.contains("words compared"), "{r:?}");
            h.get_by_label_contains("Every buffer word is as the simulation left it.");
        }
        Err(e) => {
            assert!(e.contains("Vulkan"), "{e}");
            h.get_by_label_contains("Run on GPU: ");
        }
    }
}

/// Compare's runs load as the session does: its specialization (and entry point), not the
/// module's defaults.
#[test]
fn compare_runs_the_sessions_specialization() {
    use crate::gui::ask::Action;
    let mut h = harness("alu_loop");
    // Three rounds of the loop instead of the module's 256.
    h.state_mut()
        .session
        .as_mut()
        .unwrap()
        .spec
        .insert(0, lanescope_core::SpecValue::Text("3".into()));
    h.state_mut().ask(Action::Reset);
    h.run_steps(2);
    h.state_mut().ask(Action::Run);
    for _ in 0..200 {
        h.run_steps(1);
        if h.state().session.as_ref().unwrap().sim().is_finished() {
            break;
        }
    }
    let steps = h.state().session.as_ref().unwrap().step_count();
    h.get_by_label("Compare").click();
    h.run_steps(2);
    h.get_by_label("Run both").click();
    for _ in 0..200 {
        h.run_steps(1);
        if h.state().comparison.is_some() {
            break;
        }
    }
    let c = h
        .state()
        .comparison
        .as_ref()
        .expect("the comparison finishes");
    assert_eq!(c.steps[0], steps, "A is the session's run");
}
