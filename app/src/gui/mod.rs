//! The egui app: toolbar, disassembly, CFG, lanes, watch, buffers, diagnostics, controls.
//! Panels draw from `Session` (the model); nothing here changes simulation results.

pub mod cfg;
pub mod disasm;
pub mod palette;
mod panels;
pub mod session;
#[cfg(test)]
mod tests;

use crate::examples::{DEFAULT_EXAMPLE, EXAMPLES};
use session::{Session, Settings, Stop, SIBLING_ORDERS};

/// A file the open dialog delivered: (name, bytes), or `None` when cancelled.
type Picked = Option<(String, Vec<u8>)>;

/// Longest a frame may spend simulating; the rest of the frame is drawing.
const SLICE_SECONDS: f64 = 0.012;

pub struct LanescopeApp {
    pub settings: Settings,
    pub session: Option<Session>,
    pub error: Option<String>,
    pub status: String,
    /// Running to the next breakpoint / diagnostic / end.
    pub running: bool,
    /// Animated run: steps at `settings.speed` per second.
    pub animating: bool,
    anim_due: f64,
    pub selected_tangle: Option<(u32, u64)>,
    pub selected_id: Option<u32>,
    pub watches: Vec<u32>,
    pub cfg_layout: Option<cfg::CfgLayout>,
    pub cfg_zoom: f32,
    /// 0 u32, 1 i32, 2 f32, 3 f16, 4 hex.
    pub buffer_format: u8,
    pub scroll_to_line: Option<usize>,
    /// Disassembly lines drawn in the last frame, so stepping scrolls only when the current
    /// instruction is out of sight.
    pub disasm_visible: std::ops::Range<usize>,
    open_promise: Option<poll_promise::Promise<Picked>>,
    pub show_frame_time: bool,
    frame_ms: f32,
}

impl LanescopeApp {
    pub fn new(settings: Settings) -> Self {
        Self {
            settings,
            session: None,
            error: None,
            status: String::new(),
            running: false,
            animating: false,
            anim_due: 0.0,
            selected_tangle: None,
            selected_id: None,
            watches: Vec::new(),
            cfg_layout: None,
            cfg_zoom: 1.0,
            buffer_format: 0,
            scroll_to_line: None,
            disasm_visible: 0..0,
            open_promise: None,
            show_frame_time: false,
            frame_ms: 0.0,
        }
    }

    /// Opens a module; on failure the error bar says why and the current session stays.
    pub fn open(&mut self, name: &str, bytes: Vec<u8>) {
        match Session::open(name, bytes, &self.settings) {
            Ok(s) => {
                self.cfg_layout = Some(cfg::CfgLayout::new(&s.program, s.program.entry_func));
                self.session = Some(s);
                self.error = None;
                self.status = format!("opened {name}");
                self.running = false;
                self.animating = false;
                self.selected_tangle = None;
                self.watches.clear();
                // A new module opens where it starts, not at the old one's scroll position.
                self.scroll_to_line = Some(
                    self.session
                        .as_ref()
                        .and_then(Session::focus_instruction)
                        .unwrap_or(0) as usize,
                );
            }
            Err(e) => self.error = Some(e),
        }
    }

    pub fn open_example(&mut self, name: &str) {
        match EXAMPLES.iter().find(|e| e.0 == name) {
            Some((n, bytes, _)) => self.open(&format!("{n}.spv"), bytes.to_vec()),
            None => self.error = Some(format!("no built-in example named `{name}`")),
        }
    }

    pub fn reset(&mut self) {
        self.running = false;
        self.animating = false;
        if let Some(s) = &mut self.session {
            match s.reset(&self.settings) {
                Ok(()) => {
                    self.error = None;
                    self.status = "reset".into();
                }
                Err(e) => self.error = Some(e),
            }
        }
    }

    fn report(&mut self, r: Result<bool, String>) {
        match r {
            Ok(true) => {}
            Ok(false) => self.status = "finished".into(),
            Err(e) => {
                self.error = Some(e);
                self.running = false;
                self.animating = false;
            }
        }
    }

    pub fn step(&mut self) {
        if let Some(s) = &mut self.session {
            let r = s.step();
            self.report(r);
            self.follow();
        }
    }

    /// Keeps the instruction that runs next in sight in the disassembly.
    fn follow(&mut self) {
        let Some(line) = self.session.as_ref().and_then(Session::focus_instruction) else {
            return;
        };
        let v = &self.disasm_visible;
        let line = line as usize;
        if line < v.start + 1 || line + 2 > v.end {
            self.scroll_to_line = Some(line);
        }
    }

    /// Steps the selected tangle (or the scheduler's pick when none is selected).
    pub fn step_selected(&mut self) {
        let Some(s) = &mut self.session else { return };
        let r = match self.selected_tangle {
            Some((g, id))
                if s.sim()
                    .tangles()
                    .iter()
                    .any(|t| t.subgroup == g && t.id == id) =>
            {
                s.step_tangle(g as usize, id)
            }
            _ => s.step(),
        };
        self.report(r);
        self.follow();
    }

    pub fn step_back(&mut self) {
        if let Some(s) = &mut self.session {
            if let Err(e) = s.step_back() {
                self.error = Some(e);
            }
            self.follow();
        }
    }

    /// Runs until a breakpoint, a diagnostic or the end, a time slice per frame.
    pub fn run_slice(&mut self, seconds: f64, now: impl Fn() -> f64) {
        let Some(s) = &mut self.session else {
            self.running = false;
            return;
        };
        let start = now();
        let mut stopped_elsewhere = false;
        while self.running && now() - start < seconds {
            match s.run_slice(2000, self.settings.max_steps) {
                Ok(None) => {}
                Ok(Some(stop)) => {
                    self.running = false;
                    self.status = match &stop {
                        Stop::Breakpoint(i) => format!("breakpoint at instruction {i}"),
                        Stop::Diagnostic(code) => format!("stopped at diagnostic `{code}`"),
                        Stop::Finished => "finished".into(),
                    };
                    if let Stop::Breakpoint(i) = stop {
                        self.scroll_to_line = Some(i as usize);
                    } else {
                        stopped_elsewhere = true;
                    }
                }
                Err(e) => {
                    self.running = false;
                    self.error = Some(e);
                    stopped_elsewhere = true;
                }
            }
        }
        if stopped_elsewhere {
            self.follow();
        }
    }

    fn handle_keys(&mut self, ctx: &egui::Context) {
        use egui::{Key, Modifiers};
        // Shift+F10 first: a key pattern without Shift also matches with Shift held.
        let (back, step, step_sel, run, open, stop) = ctx.input_mut(|i| {
            (
                i.consume_key(Modifiers::SHIFT, Key::F10),
                i.consume_key(Modifiers::NONE, Key::F10),
                i.consume_key(Modifiers::NONE, Key::F11),
                i.consume_key(Modifiers::NONE, Key::F5),
                i.consume_key(Modifiers::COMMAND, Key::O),
                i.consume_key(Modifiers::NONE, Key::Escape),
            )
        });
        if back {
            self.step_back();
        }
        if step {
            self.step();
        }
        if step_sel {
            self.step_selected();
        }
        if run {
            self.running = true;
        }
        if stop {
            self.running = false;
            self.animating = false;
        }
        if open {
            self.start_open_dialog();
        }
    }

    fn start_open_dialog(&mut self) {
        // In the browser a dialog closed with Cancel never answers; asking again replaces it
        // instead of leaving Open dead.
        if self.open_promise.is_some() && !cfg!(target_arch = "wasm32") {
            return;
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.open_promise = Some(poll_promise::Promise::spawn_thread("open", || {
                let path = rfd::FileDialog::new()
                    .add_filter("SPIR-V", &["spv"])
                    .pick_file()?;
                let name = path.file_name()?.to_string_lossy().into_owned();
                std::fs::read(&path).ok().map(|b| (name, b))
            }));
        }
        #[cfg(target_arch = "wasm32")]
        {
            self.open_promise = Some(poll_promise::Promise::spawn_local(async {
                let file = rfd::AsyncFileDialog::new()
                    .add_filter("SPIR-V", &["spv"])
                    .pick_file()
                    .await?;
                Some((file.file_name(), file.read().await))
            }));
        }
    }

    fn poll_inputs(&mut self, ctx: &egui::Context) {
        if let Some(p) = &self.open_promise {
            if let Some(result) = p.ready() {
                let picked = result.clone();
                self.open_promise = None;
                if let Some((name, bytes)) = picked {
                    self.open(&name, bytes);
                }
            }
        }
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        for f in dropped {
            let name = f.path().file_name().map_or_else(
                || "dropped.spv".to_owned(),
                |n| n.to_string_lossy().into_owned(),
            );
            #[cfg(not(target_arch = "wasm32"))]
            match f.bytes() {
                Ok(b) => self.open(&name, b),
                Err(e) => self.error = Some(format!("{name}: {e}")),
            }
            #[cfg(target_arch = "wasm32")]
            if self.open_promise.is_none() {
                // Browsers read files asynchronously: deliver it like the open dialog does.
                self.open_promise = Some(poll_promise::Promise::spawn_local(async move {
                    f.bytes_async().await.ok().map(|b| (name, b))
                }));
            }
        }
    }

    /// The title the window (and the browser tab) shows: module and step, for people and tests.
    pub fn title(&self) -> String {
        match &self.session {
            Some(s) => format!("Lanescope — {} — step {}", s.name, s.step_count()),
            None => "Lanescope".into(),
        }
    }

    /// The whole UI, one frame.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.handle_keys(&ctx);
        self.poll_inputs(&ctx);
        if self.running {
            let clock = now_fn();
            self.run_slice(SLICE_SECONDS, clock);
            ctx.request_repaint();
        } else if self.animating {
            let t = ctx.input(|i| i.time);
            if t >= self.anim_due {
                self.step();
                self.anim_due = t + 1.0 / f64::from(self.settings.speed.max(0.1));
                if self.session.as_ref().is_some_and(|s| s.sim().is_finished()) {
                    self.animating = false;
                }
            }
            ctx.request_repaint();
        }
        panels::toolbar(self, ui);
        panels::bottom_bar(self, ui);
        panels::disassembly(self, ui);
        panels::side(self, ui);
        panels::central(self, ui);
        if self.open_promise.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        let dt = (ctx.input(|i| i.unstable_dt) * 1000.0).clamp(0.0, 1000.0);
        self.frame_ms = self.frame_ms * 0.9 + dt * 0.1;
    }

    pub fn frame_ms(&self) -> f32 {
        self.frame_ms
    }
}

/// Seconds from some fixed point (wall time; only differences matter).
fn now_fn() -> impl Fn() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let start = std::time::Instant::now();
        move || start.elapsed().as_secs_f64()
    }
    #[cfg(target_arch = "wasm32")]
    {
        || js_sys_now() / 1000.0
    }
}

#[cfg(target_arch = "wasm32")]
fn js_sys_now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

pub struct EframeApp(pub LanescopeApp);

const SETTINGS_KEY: &str = "lanescope-settings";

impl EframeApp {
    pub fn new(cc: &eframe::CreationContext<'_>, file: Option<(String, Vec<u8>)>) -> Self {
        let settings: Settings = cc
            .storage
            .and_then(|s| eframe::get_value(s, SETTINGS_KEY))
            .unwrap_or_default();
        let mut app = LanescopeApp::new(settings);
        match file {
            Some((name, bytes)) => app.open(&name, bytes),
            None => app.open_example(&initial_example()),
        }
        if app.session.is_none() && app.error.is_some() {
            // Keep the error, but give the person something to look at.
            let e = app.error.take();
            app.open_example(DEFAULT_EXAMPLE);
            app.error = e;
        }
        Self(app)
    }
}

/// `#example=NAME` in the page address picks the example on the web.
fn initial_example() -> String {
    #[cfg(target_arch = "wasm32")]
    {
        let hash = web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default();
        if let Some(name) = hash.strip_prefix("#example=") {
            return name.to_owned();
        }
    }
    DEFAULT_EXAMPLE.to_owned()
}

impl eframe::App for EframeApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let before = self.0.title();
        self.0.show(ui);
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
        eframe::set_value(storage, SETTINGS_KEY, &self.0.settings);
    }
}

pub fn sibling_order_name(i: u8) -> &'static str {
    SIBLING_ORDERS[usize::from(i.min(3))].0
}
