//! The app's clock: seconds that only move forward, natively and in the browser.

/// Seconds from some fixed point (wall time; only differences matter).
pub fn now_fn() -> impl Fn() -> f64 {
    clock
}

/// Seconds on a clock that only moves forward, from some fixed point (only differences matter).
pub(super) fn clock() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
    }
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now() / 1000.0)
    }
}

/// Resolves in a browser task of its own (a timeout of 0), after the frames and input due:
/// long work split at these lets the page draw between its parts.
#[cfg(target_arch = "wasm32")]
pub(in crate::gui) async fn next_task() {
    let wait = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(win) = web_sys::window() {
            let _ = win.set_timeout_with_callback(&resolve);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(wait).await;
}
