//! The browser entry point: eframe on the page's canvas, and a panic hook that replaces a dead
//! canvas with a message.

use wasm_bindgen::JsCast as _;

fn show_message(text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(el) = doc.get_element_by_id("loading") {
        el.set_text_content(Some(text));
    } else if let Some(body) = doc.body() {
        if let Ok(p) = doc.create_element("p") {
            p.set_id("loading");
            p.set_text_content(Some(text));
            let _ = body.append_child(&p);
        }
    }
}

pub fn start() {
    // The module is compiled and instantiated: the browser test splits the first frame's time
    // at this mark (download and compile before, the app's start and first frame after).
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark("lanescope-start");
    }
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&format!("Lanescope panicked: {info}").into());
        show_message(&format!(
            "Lanescope stopped because of an internal error: {info}. Reload the page to start again."
        ));
    }));
    wasm_bindgen_futures::spawn_local(async {
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let Some(canvas) = doc
            .get_element_by_id("lanescope_canvas")
            .and_then(|c| c.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            show_message("Lanescope: the page has no canvas `lanescope_canvas`.");
            return;
        };
        // `?floor`: an empty egui frame of the page's size drawn every frame, so the browser
        // test can measure what a repaint alone costs here (software WebGL) beside the app's.
        let floor = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .is_some_and(|q| q.split(['?', '&']).any(|p| p == "floor"));
        create_webgl2_context(&canvas);
        let result = eframe::WebRunner::new()
            .start(
                canvas,
                eframe::WebOptions {
                    dithering: false,
                    ..Default::default()
                },
                Box::new(move |cc| {
                    Ok(if floor {
                        Box::new(EmptyFrames) as Box<dyn eframe::App>
                    } else {
                        Box::new(crate::gui::EframeApp::new(cc, None, None))
                    })
                }),
            )
            .await;
        match result {
            Ok(()) => {
                if let Some(el) = doc.get_element_by_id("loading") {
                    el.remove();
                }
            }
            Err(e) => show_message(&format!("Lanescope could not start: {e:?}")),
        }
    });
}

/// Creates the canvas's WebGL2 context before eframe asks for it (a canvas keeps its first
/// context, and eframe asks with the defaults): no multisampling, since egui feathers its own
/// edges, and an opaque canvas with no depth or stencil buffer, since egui draws every pixel in
/// 2D. Under software WebGL the defaults cost each frame a 4x multisampled buffer and its
/// resolve, and the compositor a blend with the page. Where the browser refuses, eframe makes
/// its own context as before.
fn create_webgl2_context(canvas: &web_sys::HtmlCanvasElement) {
    let attributes = js_sys::Object::new();
    for (name, value) in [
        ("antialias", false),
        ("depth", false),
        ("stencil", false),
        ("alpha", false),
    ] {
        let _ = js_sys::Reflect::set(&attributes, &name.into(), &value.into());
    }
    let _ = canvas.get_context_with_context_options("webgl2", &attributes);
}

/// The repaint floor: nothing but a panel's background, repainted every frame.
struct EmptyFrames;

impl eframe::App for EmptyFrames {
    // The app's own way of drawing its background (the clear alone, see `palette::clear`), so
    // the floor is the cheapest frame this page can draw.
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        crate::gui::palette::clear(visuals).to_normalized_gamma_f32()
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::CentralPanel::default()
            .frame(crate::gui::palette::central_panel(ui.style()))
            .show(ui, |_| {});
        ui.ctx().request_repaint();
    }
}
