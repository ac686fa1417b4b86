//! GUI frame cost on the CPU (`cargo bench -p lanescope --bench frame`): the whole UI built and
//! tessellated for one frame, as eframe does before handing meshes to the GPU, with no window.
//! Workloads: the built-in example, and 1024 invocations (32 subgroups of 32) running a
//! 501-block CFG with the lanes diverged, idle, while stepping every frame and while running.
//! Goal: 60 frames per second, so well under 16.7 ms per frame.

#[path = "../../core/benches/support/synth.rs"]
mod synth;

use lanescope::gui::ask::Action;
use lanescope::gui::session::{LineStep, Settings};
use lanescope::gui::LanescopeApp;
use std::time::{Duration, Instant};

/// What the last frame handed the GPU: meshes (draw calls), vertices, and the pixels its
/// triangles cover inside their clip rectangles, in screens (under software WebGL a frame's cost
/// follows the pixels).
static HANDED: std::sync::Mutex<(usize, usize, f32)> = std::sync::Mutex::new((0, 0, 0.0));

fn frame(ctx: &egui::Context, app: &mut LanescopeApp, time: f64) -> Duration {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(SIZE.0, SIZE.1),
        )),
        time: Some(time),
        ..Default::default()
    };
    let t = Instant::now();
    let out = ctx.run_ui(input, |ui| app.show(ui));
    let meshes = ctx.tessellate(out.shapes, out.pixels_per_point);
    let took = t.elapsed();
    let (mut vertices, mut area) = (0, 0.0);
    for m in &meshes {
        if let egui::epaint::Primitive::Mesh(mesh) = &m.primitive {
            vertices += mesh.vertices.len();
            for t in mesh.indices.chunks(3) {
                let [a, b, c] = [0, 1, 2].map(|k| mesh.vertices[t[k] as usize].pos);
                let bounds = egui::Rect::from_points(&[a, b, c]);
                let inside = bounds.intersect(m.clip_rect);
                if bounds.area() > 0.0 && inside.is_positive() {
                    let whole = ((b - a).x * (c - a).y - (b - a).y * (c - a).x).abs() / 2.0;
                    area += whole * inside.area() / bounds.area();
                }
            }
        }
    }
    *HANDED.lock().unwrap() = (meshes.len(), vertices, area / (SIZE.0 * SIZE.1));
    took
}

/// The window's size, points.
const SIZE: (f32, f32) = (1600.0, 1000.0);

/// Mean and worst frame over `frames` frames (after two warm-up frames), stepping the
/// simulator `steps_per_frame` times before each.
fn measure(name: &str, app: &mut LanescopeApp, frames: usize, steps_per_frame: usize) {
    measure_with(name, app, frames, |app| {
        for _ in 0..steps_per_frame {
            app.apply(&egui::Context::default(), Action::Step);
        }
    });
}

/// Mean and worst frame with `before_frame` applied before each.
fn measure_with(
    name: &str,
    app: &mut LanescopeApp,
    frames: usize,
    mut before_frame: impl FnMut(&mut LanescopeApp),
) {
    let ctx = egui::Context::default();
    let mut time = 0.0;
    for _ in 0..2 {
        frame(&ctx, app, time);
        time += 1.0 / 60.0;
    }
    let mut total = Duration::ZERO;
    let mut worst = Duration::ZERO;
    for _ in 0..frames {
        let t = Instant::now();
        before_frame(app);
        let d = frame(&ctx, app, time) + t.elapsed();
        total += d;
        worst = worst.max(d);
        time += 1.0 / 60.0;
    }
    let mean = total.as_secs_f64() * 1e3 / frames as f64;
    let (meshes, vertices, screens) = *HANDED.lock().unwrap();
    println!(
        "{name:<44} mean {mean:>6.2} ms  worst {:>6.2} ms  ({:.0} fps); \
         {meshes} meshes, {vertices} vertices, {screens:.2} screens of pixels",
        worst.as_secs_f64() * 1e3,
        1e3 / mean
    );
}

fn main() {
    if std::env::args().any(|a| a == "--test") {
        return;
    }
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("if_else");
    measure("if_else example, idle", &mut app, 200, 0);
    // What a person stepping the built-in example costs: F10 (a source line) each frame, from
    // the start again whenever the run ends.
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example("if_else");
    measure_with("if_else example, F10 a frame", &mut app, 200, |app| {
        if app.session.as_ref().is_some_and(|s| s.sim().is_finished()) {
            app.apply(&egui::Context::default(), Action::Reset);
        }
        app.apply(&egui::Context::default(), Action::StepLine(LineStep::Over));
    });

    let words = synth::chain_of_ifs(250, 1024);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut app = LanescopeApp::new(Settings::default());
    app.open("chain_of_ifs.spv", bytes);
    assert!(app.error.is_none(), "{:?}", app.error);
    let s = app.session.as_ref().expect("opened");
    println!(
        "synthetic module: {} blocks, {} invocations",
        s.program.blocks().len(),
        s.program.local_size().iter().product::<u32>()
    );
    // Into the chain, where every subgroup has split into several tangles.
    for _ in 0..3000 {
        app.apply(&egui::Context::default(), Action::Step);
    }
    let tangles = app.session.as_ref().map_or(0, |s| s.sim().tangles().len());
    println!("after 3000 steps: {tangles} tangles");
    measure("1024 invocations, 501 blocks, idle", &mut app, 200, 0);
    measure(
        "1024 invocations, 501 blocks, a step a frame",
        &mut app,
        200,
        1,
    );
    measure(
        "1024 invocations, 501 blocks, 100 steps a frame",
        &mut app,
        100,
        100,
    );
    // Run (F5): each frame simulates for its time slice, then draws. The worst frame is what
    // a person feels; it must stay far under 50 ms.
    let before = app.session.as_ref().map_or(0, |s| s.step_count());
    app.running = true;
    measure(
        "1024 invocations, 501 blocks, running (F5)",
        &mut app,
        100,
        0,
    );
    let after = app.session.as_ref().map_or(0, |s| s.step_count());
    println!("  ({} steps in 100 frames)", after - before);
    // Step back (Shift+F10) each frame from the end of that run: each replays from a
    // checkpoint, in slices when the checkpoint lies far back.
    app.running = false;
    measure_with(
        "1024 invocations, 501 blocks, step back a frame",
        &mut app,
        50,
        |app| app.apply(&egui::Context::default(), Action::StepBack),
    );
    let at = app.session.as_ref().map_or(0, |s| s.step_count());
    println!("  (now at step {at}, from {after})");
}
