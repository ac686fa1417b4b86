//! Images in the app: a bound image shows as a picture in the Buffers section, with the texels
//! the last step wrote outlined.

use super::*;

const IMAGE_GLSL: &str = "#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba8) uniform image2D img;
void main() {
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    imageStore(img, p, vec4(float(p.x) / 3.0, float(p.y) / 3.0, 0.5, 1.0));
}
";

#[test]
fn an_image_is_a_picture_with_the_last_writes_outlined() {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_source(crate::gui::editor::Editor::new(
        "image.comp",
        lanescope_front::Language::Glsl,
        IMAGE_GLSL.into(),
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 900.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run();
    h.get_by_label("Buffers (words)").click();
    h.run();
    let pic = h.get_by_label("picture of `img`").rect();
    assert!(
        pic.width() >= 4.0 * 2.0 && pic.height() >= 4.0 * 2.0,
        "{pic:?}"
    );
    // Images the app binds for a shader are 16x16 (Bindings::for_example).
    h.get_by_label_contains("16x16x1 rgba8");
    // The example image starts black; step until the store has run.
    step_until(&mut h, |s| {
        s.sim()
            .buffer(0, 0)
            .is_some_and(|b| b.iter().any(|x| *x != 0))
    });
    h.get_by_label_contains("16 written by the last step (outlined)");
    let data = h
        .state()
        .session
        .as_ref()
        .unwrap()
        .sim()
        .buffer(0, 0)
        .unwrap()
        .to_vec();
    // Texel (3, 0): red 255, green 0, blue 128, alpha 255.
    assert_eq!(&data[12..16], &[255, 0, 128, 255]);
}

/// The picture as a person sees it: a gradient the shader wrote, the last step's texels
/// outlined.
#[test]
fn snapshot_of_an_image_picture() {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_source(crate::gui::editor::Editor::new(
        "image.comp",
        lanescope_front::Language::Glsl,
        IMAGE_GLSL
            .replace("float(p.x) / 3.0", "float(p.x) / 15.0")
            .replace(
                "layout(local_size_x = 4, local_size_y = 4) in;",
                "layout(local_size_x = 16, local_size_y = 16) in;",
            ),
    ));
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_theme(egui::Theme::Dark)
        .wgpu()
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h.get_by_label("Buffers (words)").click();
    h.run_steps(2);
    // Run until half the image is written, so the picture shows old and new texels.
    step_until(&mut h, |s| {
        s.sim()
            .buffer(0, 0)
            .is_some_and(|b| b.chunks(4).filter(|t| t[3] != 0).count() >= 128)
    });
    h.get_by_label("picture of `img`").scroll_to_me();
    h.run_steps(4);
    let opts = egui_kittest::SnapshotOptions::new()
        .threshold(1.0)
        .max_failed_pixels(2000);
    h.snapshot_options("image_picture", &opts);
}
