//! Image snapshots of the main states, rendered by wgpu (on Mesa's software Vulkan driver,
//! lavapipe, which scripts/setup-native.sh installs) and compared with the reviewed PNGs in
//! app/tests/snapshots (`UPDATE_SNAPSHOTS=1` rewrites them after a deliberate change).

use super::*;
use crate::gui::ask::Action;
use crate::gui::palette;
use egui_kittest::SnapshotResults;

fn shot(
    results: &mut SnapshotResults,
    name: &str,
    size: (f32, f32),
    theme: egui::Theme,
    setup: impl FnOnce(&mut Harness<'_, LanescopeApp>),
) {
    shot_of(results, "if_else", name, size, theme, setup);
}

fn shot_of(
    results: &mut SnapshotResults,
    example: &str,
    name: &str,
    size: (f32, f32),
    theme: egui::Theme,
    setup: impl FnOnce(&mut Harness<'_, LanescopeApp>),
) {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example(example);
    let mut h = Harness::builder()
        .with_size(egui::vec2(size.0, size.1))
        .with_theme(theme)
        .wgpu()
        .build_ui_state(
            |ui, app: &mut LanescopeApp| {
                // What a host does before each frame (eframe: `clear_color`); the renderer
                // here clears to transparent.
                let clear = palette::clear(&ui.ctx().global_style().visuals);
                ui.painter().rect_filled(ui.max_rect(), 0.0, clear);
                app.show(ui)
            },
            app,
        );
    h.run_steps(2);
    setup(&mut h);
    h.run_steps(4);
    // Small differences between software rasterizers are tolerated; a moved or missing
    // panel is not.
    let opts = egui_kittest::SnapshotOptions::new()
        .threshold(1.0)
        .max_failed_pixels(2000);
    h.snapshot_options(name, &opts);
    results.extend_harness(&mut h);
}

/// Alt+F10 until the if has split subgroup 0 in two tangles on two lines.
fn to_the_split(h: &mut Harness<'_, LanescopeApp>) {
    for _ in 0..60 {
        h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
        h.run_steps(1);
        let s = h.state().session.as_ref().unwrap();
        if s.sim().tangles().iter().filter(|t| t.subgroup == 0).count() > 1 {
            break;
        }
    }
}

#[test]
fn main_view_in_both_themes_and_sizes() {
    let mut results = SnapshotResults::new();
    for (size, tag) in [
        ((1280.0, 720.0), "1280x720"),
        ((1920.0, 1080.0), "1920x1080"),
    ] {
        for (theme, t) in [(egui::Theme::Dark, "dark"), (egui::Theme::Light, "light")] {
            shot(
                &mut results,
                &format!("main_{tag}_{t}"),
                size,
                theme,
                to_the_split,
            );
        }
    }
}

#[test]
fn timeline_presenter_and_amber_failures() {
    let mut results = SnapshotResults::new();
    let small = (1280.0, 720.0);
    shot(
        &mut results,
        "timeline_1280x720_dark",
        small,
        egui::Theme::Dark,
        |h| {
            to_the_split(h);
            h.get_by_label("Timeline").click();
        },
    );
    shot(
        &mut results,
        "presenter_1280x720_dark",
        small,
        egui::Theme::Dark,
        |h| {
            to_the_split(h);
            h.key_press(egui::Key::F2);
        },
    );
    shot(
        &mut results,
        "folded_code_and_graph_1280x720_light",
        small,
        egui::Theme::Light,
        |h| {
            to_the_split(h);
            h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::B);
            h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::J);
            h.run();
        },
    );
    shot(
        &mut results,
        "amber_failures_1280x720_light",
        small,
        egui::Theme::Light,
        |h| {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../front/tests/amber/fail_hex.amber"
            );
            h.state_mut()
                .open("fail_hex.amber", std::fs::read(path).unwrap());
            finish(h.state_mut());
        },
    );
}

/// What a class sees on a projector and a laptop: presenter mode with a lesson, the Matrix view
/// on the cooperative-matrix example and the Rotate view on the rotate example, at 1280x720 and
/// 1920x1080.
#[test]
fn presenter_lesson_matrix_and_rotate_at_both_sizes() {
    let mut results = SnapshotResults::new();
    for (size, tag) in [
        ((1280.0, 720.0), "1280x720"),
        ((1920.0, 1080.0), "1920x1080"),
    ] {
        shot(
            &mut results,
            &format!("presenter_lesson_{tag}"),
            size,
            egui::Theme::Dark,
            |h| {
                h.state_mut()
                    .apply(&egui::Context::default(), Action::OpenLesson(0));
                h.run_steps(2);
                h.key_press(egui::Key::F2);
                for _ in 0..4 {
                    h.key_press(egui::Key::F10);
                    h.run_steps(1);
                }
            },
        );
        shot_of(
            &mut results,
            "coopmat_tile_f16",
            &format!("matrix_{tag}"),
            size,
            egui::Theme::Dark,
            |h| {
                step_until_ran(h, super::super::views::matrix::is_muladd);
                h.get_by_label("Matrix").click();
            },
        );
        shot_of(
            &mut results,
            "rotate_clustered",
            &format!("rotate_{tag}"),
            size,
            egui::Theme::Light,
            |h| {
                step_until_ran(h, super::super::views::rotate::is_rotate);
                h.get_by_label("Rotate").click();
            },
        );
    }
}
