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
        let result = eframe::WebRunner::new()
            .start(
                canvas,
                eframe::WebOptions::default(),
                Box::new(|cc| Ok(Box::new(crate::gui::EframeApp::new(cc, None, None)))),
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
