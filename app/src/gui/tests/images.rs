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

const READ_GLSL: &str = "#version 450
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0, r32ui) uniform readonly uimage2D counts;
layout(set = 0, binding = 1, rgba8) uniform readonly image2D colours;
layout(std430, set = 0, binding = 2) buffer Out { uint seen[]; };
void main() {
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    uint i = gl_LocalInvocationIndex;
    seen[2u * i] = imageLoad(counts, p).x;
    seen[2u * i + 1u] = packUnorm4x8(imageLoad(colours, p));
}
";

/// An image's texels imported into the Inputs panel (numbers, a channel each as stored; or raw
/// bytes of exactly its size) are what the shader reads; a mistake is named.
#[test]
fn an_images_texels_are_imported_and_read_by_the_shader() {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_source(crate::gui::editor::Editor::new(
        "read.comp",
        lanescope_front::Language::Glsl,
        READ_GLSL.into(),
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    // Counts: texel k holds 100 + k (a JSON array); colours: texel k is (k, 2k, 3k, 255).
    let counts: Vec<String> = (0..256).map(|k| (100 + k).to_string()).collect();
    let (inputs, why) = crate::gui::inputs::import_file(
        &app,
        (0, 0, 0),
        "counts.json",
        format!("[{}]", counts.join(", ")).into_bytes(),
    )
    .unwrap();
    assert!(
        why.contains("256 values from counts.json into its texels"),
        "{why}"
    );
    app.apply(
        &egui::Context::default(),
        crate::gui::ask::Action::Inputs(Box::new(inputs), why),
    );
    let colours: String = (0..8u32)
        .map(|k| format!("{} {} {} 255\n", k, 2 * k, 3 * k))
        .collect();
    let (inputs, why) =
        crate::gui::inputs::import_file(&app, (0, 1, 0), "colours.txt", colours.into_bytes())
            .unwrap();
    app.apply(
        &egui::Context::default(),
        crate::gui::ask::Action::Inputs(Box::new(inputs), why),
    );
    finish(&mut app);
    let s = app.session.as_ref().unwrap();
    let seen = s.sim().buffer(0, 2).unwrap();
    let word = |k: usize| u32::from_le_bytes(seen[k * 4..k * 4 + 4].try_into().unwrap());
    for i in 0..8u32 {
        let (x, y) = (i % 4, i / 4);
        let texel = y * 16 + x;
        assert_eq!(word(2 * i as usize), 100 + texel, "invocation {i}");
        // Only the first 8 texels (row 0, x 0..7) were given colours; the rest stay zero.
        let c = if texel < 8 {
            u32::from_le_bytes([texel as u8, 2 * texel as u8, 3 * texel as u8, 255])
        } else {
            0
        };
        assert_eq!(word(2 * i as usize + 1), c, "invocation {i}");
    }
    // Exported as numbers, the texels read back as imported.
    let img = &s.initial.images[1];
    let text = crate::gui::inputs::values::export_texels(&img.desc, &img.data);
    assert_eq!(text.lines().next(), Some("0 0 0 255"));
    assert_eq!(text.lines().nth(3), Some("3 6 9 255"));
    assert_eq!(text.lines().count(), 256);
    // Mistakes, named: a raw file of the wrong size, a number the channel cannot hold, too
    // many numbers.
    let e = crate::gui::inputs::import_file(&app, (0, 1, 0), "c.bin", vec![0; 1000]).unwrap_err();
    assert!(
        e.contains("1000 bytes, and the image holds 1024 (16x16x1 texels of rgba8, 4 bytes each)"),
        "{e}"
    );
    let e =
        crate::gui::inputs::import_file(&app, (0, 1, 0), "c.txt", b"1 2 300".to_vec()).unwrap_err();
    assert!(e.contains("number 3 (texel 0 channel b)"), "{e}");
    let e =
        crate::gui::inputs::import_file(&app, (0, 0, 0), "c.txt", "1 ".repeat(257).into_bytes())
            .unwrap_err();
    assert!(e.contains("257 numbers for 256"), "{e}");
    // The Inputs panel lists the image with its Import.
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 900.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run();
    h.get_by_label_contains("`colours` (2D storage image (rgba8), 16x16x1 texels, 1024 bytes)");
}

/// An image's texels filled from the Inputs panel: the index gives each channel of a texel its
/// index (wrapped to the channel), a constant every channel, a random fill is reproducible.
#[test]
fn an_images_texels_are_filled_by_a_pattern() {
    use crate::gui::inputs::values::{fill_texels, Fill};
    let f = lanescope_core::program::image::TexelFormat::by_name("rgba8").unwrap();
    let desc = lanescope_core::program::image::ImageDesc::new(f, [300, 1, 1]);
    let mut texels = vec![0u8; desc.bytes() as usize];
    fill_texels(&desc, &mut texels, Fill::Index, "", 0).unwrap();
    assert_eq!(&texels[4 * 7..4 * 8], &[7, 7, 7, 7]);
    assert_eq!(
        &texels[4 * 260..4 * 261],
        &[4, 4, 4, 4],
        "260 wraps to 4 in 8 bits"
    );
    fill_texels(&desc, &mut texels, Fill::Constant, "200", 0).unwrap();
    assert!(texels.iter().all(|b| *b == 200));
    let e = fill_texels(&desc, &mut texels, Fill::Constant, "300", 0).unwrap_err();
    assert!(e.contains("300"), "{e}");
    let mut again = texels.clone();
    fill_texels(&desc, &mut texels, Fill::Random, "", 5).unwrap();
    fill_texels(&desc, &mut again, Fill::Random, "", 5).unwrap();
    assert_eq!(texels, again);
    // A float format's channels get the texel's index as a float.
    let f = lanescope_core::program::image::TexelFormat::by_name("r32f").unwrap();
    let desc = lanescope_core::program::image::ImageDesc::new(f, [4, 4, 1]);
    let mut texels = vec![0u8; desc.bytes() as usize];
    fill_texels(&desc, &mut texels, Fill::Index, "", 0).unwrap();
    assert_eq!(
        f32::from_le_bytes(texels[4 * 5..4 * 6].try_into().unwrap()),
        5.0
    );
}
