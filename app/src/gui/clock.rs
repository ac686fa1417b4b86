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
