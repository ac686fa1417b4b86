//! The app in eframe: creating it (from a file, a link or the last edit), keeping its settings,
//! panes and edit in eframe's storage, and in the browser the page's title and timing marks.

use super::{editor, permalink, session::Settings};
use crate::examples::DEFAULT_EXAMPLE;
use crate::gui::settle::Settle;
use crate::gui::state::LanescopeApp;

pub struct EframeApp(pub LanescopeApp, pub(super) Settle);

pub(super) const SETTINGS_KEY: &str = "lanescope-settings";

pub(super) const EDITOR_KEY: &str = "lanescope-editor";

pub(super) const PANES_KEY: &str = "lanescope-panes";

/// A value kept between runs, read from eframe's storage (a file natively, `localStorage` in the
/// browser). JSON rather than eframe's RON helpers: `serde_json` is in the build anyway, and RON
/// (with eframe's `persistence`) added ~0.75 MB of code to the browser's download. A value
/// stored in another format, or for another version, reads as none: the defaults.
pub(super) fn stored<T: serde::de::DeserializeOwned>(
    storage: Option<&dyn eframe::Storage>,
    key: &str,
) -> Option<T> {
    serde_json::from_str(&storage?.get_string(key)?).ok()
}

/// Keeps `value` for the next run (see [`stored`]).
fn store<T: serde::Serialize>(storage: &mut dyn eframe::Storage, key: &str, value: &T) {
    if let Ok(json) = serde_json::to_string(value) {
        storage.set_string(key, json);
    }
}

impl EframeApp {
    /// Starts on `file`, else on the default example; then applies `link` (a permalink
    /// fragment) if given.
    pub fn new(
        cc: &eframe::CreationContext<'_>,
        file: Option<(String, Vec<u8>)>,
        link: Option<String>,
    ) -> Self {
        let settings: Settings = stored(cc.storage, SETTINGS_KEY).unwrap_or_default();
        let mut app = LanescopeApp::new(settings);
        if let Some(p) = stored(cc.storage, PANES_KEY) {
            app.panes = p;
        }
        // The browser comes back to the last edit (a reload loses nothing); natively the
        // person saves their source to a file.
        let last_edit: Option<editor::Editor> = if cfg!(target_arch = "wasm32") && link.is_none() {
            stored::<Option<editor::Editor>>(cc.storage, EDITOR_KEY).flatten()
        } else {
            None
        };
        match (file, last_edit) {
            (Some((name, bytes)), _) => app.open(&name, bytes),
            (None, Some(ed)) => {
                app.open_example(DEFAULT_EXAMPLE);
                app.open_source(ed);
            }
            (None, None) => app.open_example(DEFAULT_EXAMPLE),
        }
        // A source that does not compile stays in the editor with its errors (and its Build
        // section) to be fixed there; anything else that fails shows the example meanwhile.
        if app.session.is_none() && app.error.is_some() && app.editor.is_none() {
            // Keep the error, but give the person something to look at.
            let e = app.error.take();
            app.open_example(DEFAULT_EXAMPLE);
            app.error = e;
        }
        if let Some(fragment) = link {
            match permalink::Link::parse(&fragment) {
                Ok(l) => app.apply_link(l),
                Err(e) => app.error = Some(e),
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let w = web_sys::window();
            let size = w
                .as_ref()
                .and_then(|w| {
                    Some((
                        w.inner_width().ok()?.as_f64()?,
                        w.inner_height().ok()?.as_f64()?,
                    ))
                })
                .map_or(egui::vec2(1280.0, 720.0), |(w, h)| {
                    egui::vec2(w as f32, h as f32)
                });
            // The page's own link is the real app's to follow.
            let fragment = super::action::page_fragment();
            let settings = app.settings.clone();
            WARM_UP.with(|w| *w.borrow_mut() = Some((settings, size, fragment)));
        }
        Self(app, Settle::default())
    }
}

/// Frames of the off-screen run [`WarmUp`] draws: one to open, then one per F10.
const WARM_UP_FRAMES: usize = 16;

/// The default example stepped line by line through the whole UI off screen (a window of
/// `size`, the page at `fragment`), once, a frame at a time between the browser's first frames.
/// The browser compiles each function of the module when it is first called: the first F10
/// presses of a visit took 10-25 ms more than later ones (the stepping code, then each view's
/// code as the run reached what it draws), over a frame's budget. This moves that cost to
/// while the person reads the first screen: after the first frame, which it held back by
/// 300-450 ms when it ran before it. Nothing of the run is kept: its app, its egui context,
/// the colours it handed out.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(super) struct WarmUp {
    app: LanescopeApp,
    ctx: egui::Context,
    size: egui::Vec2,
    frame: usize,
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
impl WarmUp {
    pub(super) fn new(settings: &Settings, size: egui::Vec2, fragment: String) -> Self {
        let mut app = LanescopeApp::new(settings.clone());
        super::palette::apart(|| app.open_example(DEFAULT_EXAMPLE));
        app.last_fragment = fragment;
        Self {
            app,
            ctx: egui::Context::default(),
            size,
            frame: 0,
        }
    }

    /// Draws the next frame; `false` once every frame is drawn.
    pub(super) fn step(&mut self) -> bool {
        if self.frame == WARM_UP_FRAMES {
            return false;
        }
        let events = if self.frame == 0 {
            Vec::new()
        } else {
            vec![super::keys::event(
                egui::Key::F10,
                true,
                egui::Modifiers::NONE,
            )]
        };
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, self.size)),
            events,
            ..Default::default()
        };
        let (ctx, app) = (&self.ctx, &mut self.app);
        super::palette::apart(|| {
            let out = ctx.run_ui(input, |ui| app.show(ui));
            let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        });
        self.frame += 1;
        true
    }

    /// Steps the app has taken.
    #[cfg(test)]
    fn steps(&self) -> u64 {
        self.app.session.as_ref().map_or(0, |s| s.step_count())
    }
}

/// What the warm-up is made from: the settings, the window's size and the page's link.
#[cfg(target_arch = "wasm32")]
type WarmUpFrom = (Settings, egui::Vec2, String);

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// The warm-up asked for at start-up, begun after the first frame.
    static WARM_UP: std::cell::RefCell<Option<WarmUpFrom>> = const { std::cell::RefCell::new(None) };
}

/// Runs the start-up's warm-up a frame per browser task (opening its example is the first),
/// the first after the task that draws the first frame (a timeout of 0 runs after it), so
/// frames and input go between them.
#[cfg(target_arch = "wasm32")]
fn begin_warm_up() {
    let Some((settings, size, fragment)) = WARM_UP.with(|w| w.borrow_mut().take()) else {
        return;
    };
    use super::clock::next_task;
    wasm_bindgen_futures::spawn_local(async move {
        next_task().await;
        let mut w = WarmUp::new(&settings, size, fragment);
        loop {
            next_task().await;
            if !w.step() {
                break;
            }
        }
    });
}

impl LanescopeApp {
    /// What a frame shows that a person waits for: the step, and the last edit's time.
    #[cfg(target_arch = "wasm32")]
    fn shown(&self) -> (Option<u64>, Option<f64>) {
        (
            self.session.as_ref().map(|s| s.step_count()),
            self.editor.as_ref().and_then(|e| e.edited_at),
        )
    }
}

impl eframe::App for EframeApp {
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        super::palette::clear(visuals).to_normalized_gamma_f32()
    }

    /// In the browser, a frame that would show nothing new is left out (see `settle`): eframe
    /// runs no UI pass for a viewport it takes for hidden, and keeps the input for the next.
    /// (Natively eframe reads the window's own visibility, and a frame costs little.)
    fn raw_input_hook(&mut self, _ctx: &egui::Context, raw: &mut egui::RawInput) {
        #[cfg(target_arch = "wasm32")]
        {
            // A link pasted into the address bar changes nothing eframe hands egui.
            if self.1.idle(raw) && super::action::page_fragment() == self.0.last_fragment {
                raw.viewports
                    .entry(egui::ViewportId::ROOT)
                    .or_default()
                    .occluded = Some(true);
            }
        }
        let _ = raw;
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let before = self.0.title();
        #[cfg(target_arch = "wasm32")]
        let shown = self.0.shown();
        self.1.begin(ui.ctx());
        self.0.show(ui);
        self.1.end(ui.ctx());
        #[cfg(target_arch = "wasm32")]
        web_timing(ui.ctx(), shown, self.0.shown());
        #[cfg(target_arch = "wasm32")]
        if ui.ctx().cumulative_frame_nr() == 0 {
            begin_warm_up();
        }
        let title = self.0.title();
        if title != before || ui.ctx().cumulative_frame_nr() < 2 {
            #[cfg(target_arch = "wasm32")]
            if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
                doc.set_title(&title);
            }
            #[cfg(not(target_arch = "wasm32"))]
            ui.ctx()
                .send_viewport_cmd(egui::ViewportCommand::Title(title));
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        // A link's or a lesson's settings belong to that session, not to the next start.
        store(storage, SETTINGS_KEY, &self.0.own_settings());
        store(storage, EDITOR_KEY, &self.0.editor);
        store(storage, PANES_KEY, &self.0.panes);
    }
}

/// Browser only: performance marks the end-to-end test times the page by (the first frame, a
/// frame that shows another step, one that lays out an edit) and a count of the frames drawn
/// (`window.lanescopeFrames`), to see that an idle page draws none.
#[cfg(target_arch = "wasm32")]
fn web_timing(
    ctx: &egui::Context,
    before: (Option<u64>, Option<f64>),
    after: (Option<u64>, Option<f64>),
) {
    let Some(w) = web_sys::window() else { return };
    let frames = js_sys::Reflect::get(&w, &"lanescopeFrames".into())
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    let _ = js_sys::Reflect::set(&w, &"lanescopeFrames".into(), &(frames + 1.0).into());
    let Some(p) = w.performance() else { return };
    if ctx.cumulative_frame_nr() == 0 {
        let _ = p.mark("lanescope-first-frame");
    }
    if after.0 != before.0 {
        let _ = p.mark("lanescope-step");
    }
    if after.1.is_some() && after.1 != before.1 {
        let _ = p.mark("lanescope-edit");
    }
}

#[cfg(test)]
mod tests {
    /// The off-screen run steps its own app, a line per frame.
    #[test]
    fn the_warm_up_steps() {
        let mut w = super::WarmUp::new(
            &Default::default(),
            egui::vec2(1280.0, 720.0),
            String::new(),
        );
        let mut frames = 0;
        while w.step() {
            frames += 1;
        }
        assert_eq!(frames, super::WARM_UP_FRAMES);
        let steps = w.steps();
        assert!(steps >= super::WARM_UP_FRAMES as u64 - 1, "{steps} steps");
    }
}
