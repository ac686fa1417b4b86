//! The egui app: toolbar, disassembly, CFG, lanes, watch, buffers, diagnostics, controls. Panels
//! draw from `Session` (the model); nothing here changes simulation results.
//!
//! The app's parts. `main.rs` picks the front: the GUI (no arguments, or a file), or the headless
//! `run`/`example` subcommands (`cli/`: `args.rs` the grammar, `mod.rs` the runs); on wasm, `web.rs` starts eframe on the page's canvas and
//! installs a panic hook that shows a message instead of a dead canvas. `gui/session.rs` owns one
//! `Simulator` and everything about the session that is not drawing (open, reset under new
//! settings, step, step tangle, step back, run slices with breakpoints and a step limit); the app
//! runs long work in slices of about 12 ms per frame, so a frame never blocks. `gui/state.rs` holds
//! the app's state and `gui/mod.rs` draws the frame from it; what a person asks for is an
//! `ask::Action`: the keyboard (`keys.rs`) and the toolbar return them, the other views send theirs with
//! `LanescopeApp::ask`, and `action/` is the one place that carries them out (`stepping.rs`:
//! step, back, go to, run slices; `open.rs`; `export.rs`: saving the source, an AmberScript, the
//! trace, the window; `links.rs` makes and follows permalinks), its methods private to it so a
//! view cannot step or reset by itself; `host.rs` is the app in eframe (the settings, panes and last edit kept
//! as JSON in eframe's storage: a file natively, localStorage in the browser); `disasm.rs` (line k
//! is module instruction k, friendly names), `cfg.rs` (layered layout, edge kinds, tangle chips)
//! compute plain view data; `toolbar.rs` the one-row toolbar (menus, stepping controls), `panels/`
//! the panels around the centre (`disassembly.rs`; the side panel's `values.rs` and
//! `diagnostics.rs`) (each folds to a named strip and takes a share of the window's width; which
//! are open and their shares, `Panes`, are kept beside the settings), `tabs/` the graph and the
//! tabbed views under it (a bar between them shares the height); `palette.rs` is the one colour scheme for lanes and tangles (tangles alive at once
//! get hues apart); `fonts.rs` the two faces, egui's own without hinting programs (`assets/fonts/`,
//! made by `scripts/build-fonts.py`). `action/open.rs` opens what a person brings (a module, a source
//! compiled into the editor, an AmberScript whose RUN opens to step through) and recompiles edits.
//! `inputs/` is the Inputs panel (`values.rs` the data behind it, `import.rs` files into
//! buffers): it asks for a new initial state (entry point and specialization, which reload the
//! module; push constants and buffers, laid out by the core's `Program::resource_fields`) and
//! the run restarts from it. `editor/` is the source pane (`mod.rs` its state and templates,
//! `view.rs` the drawing): the person's
//! code (recompiled through `front` 0.4 s after typing stops, as a `compile_job.rs` job polled each
//! frame: natively a thread driving the worker process, in the browser the compiler module's Web
//! Worker; cancelled when the text changes again; a good compile restarts the run and seeks back to
//! the same step, a failed one keeps the last run, marked stale; `build.rs`'s Build section holds
//! macros, include folders, target and entry point) or the source in the module's debug
//! information, read-only, a tab per file; highlighting (`highlight.rs`) is a small tokenizer per
//! language producing an egui layout job (no highlighter crate: a few hundred bytes of wasm instead
//! of a grammar engine). Stepping by line (`Session::step_line`) follows one tangle until its
//! source position moves. Opening a file goes through `rfd` (the xdg portal natively, a file input
//! taking several files in the browser; `incoming.rs`, with drops) on a worker polled each frame
//! (`dialog.rs`: a worker that dies or a dialog that cannot be shown is an error in the bar, never
//! a panic), or drag-and-drop. A link's or a lesson's settings are set aside from the person's own,
//! which are what is saved. `gui/views/` holds the extension views, each a view-model built from
//! the session (tested on its own) plus a drawing function: `timeline.rs` (bands per lane from the
//! trace, or one band per folded subgroup, scrolled to the subgroup the steps follow; the session
//! keeps steps undone by going back so a click can replay forward), `rotate.rs` and `dot.rs`
//! (explain the rotate / dot product the last step ran or a tangle is about to run; the dot view
//! calls the same `core::dot` functions the engine does), `matrix.rs` (a matrix value through
//! `Simulator::coop_value`; A, B, C and Result of a MulAdd), `compare.rs` (two runs under settings
//! that differ in one thing, advanced in frame slices, compared step by step by invocation index
//! and word by word), `lesson.rs` (the lessons in `assets/lessons/`, embedded by `build.rs`).
//! `permalink.rs` writes and reads the URL fragment (example or deflated module, settings, lane,
//! view, step; every field checked, inflation bounded); `action/export.rs` saves the window as PNG
//! and the trace as JSON. The app records the trace (capped by the Limits menu); history checkpoints do not
//! copy it. The browser build (`scripts/setup-web.sh`, `scripts/build-web.sh`) uses Debian's
//! rustc-web to build std for wasm32 (and clang 16 with wasi-libc and libc++ for glslang's C++, in
//! the layout wasi-sdk has), then wasm-bindgen and wasm-opt (gzip copies beside, served by
//! `scripts/serve.py`); `tests/web/e2e.mjs` drives Chromium. `gui/tests.rs` drives the app with
//! egui_kittest, its image snapshots (`app/tests/snapshots/`) rendered through wgpu on Mesa's
//! software Vulkan. `tests/native/dialogs.sh` drives the native app's real file dialogs under Xvfb
//! (D-Bus session, xdg portal, GTK chooser, xdotool).

pub mod action;
pub mod ask;
pub mod build;
pub mod cfg;
pub mod clock;
pub mod compile_job;
pub mod dialog;
pub mod disasm;
pub mod editor;
pub mod fonts;
pub mod gpu_job;
mod highlight;
mod host;
mod incoming;
mod inputs;
mod keys;
pub mod palette;
mod panels;
pub mod permalink;
mod picture;
mod printf;
pub mod session;
mod settle;
mod tabs;
#[cfg(test)]
mod tests;
mod toolbar;
pub mod views;
mod widgets;

pub use host::EframeApp;

mod state;
use clock::now_fn;
pub use session::sibling_order_name;
#[cfg(not(target_arch = "wasm32"))]
pub use state::read_module;
use state::SLICE_SECONDS;
pub use state::{BufferFormat, FailedExpect, LanescopeApp, LeftTab, Scenario};

impl LanescopeApp {
    /// The whole UI, one frame.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        if !self.fonts_set {
            // Before any text this pass, so it takes effect at once (the first frame included).
            ctx.set_fonts(fonts::definitions());
            self.fonts_set = true;
        }
        for a in keys::read(&ctx, self.presenter) {
            self.apply(&ctx, a);
        }
        apply_presenter(&ctx, self.presenter);
        for theme in [egui::Theme::Light, egui::Theme::Dark] {
            if !palette::is_own(&ctx.style_of(theme).visuals, theme) {
                ctx.style_mut_of(theme, |s| palette::own(&mut s.visuals, theme));
            }
        }
        if self.presenter != self.was_presenter {
            // The panes change size: bring the current line back into view.
            self.was_presenter = self.presenter;
            self.source_last_line = None;
            self.cfg_followed = None;
        }
        self.follow_page_fragment();
        self.poll_exports(&ctx);
        if self.seek.is_some() {
            self.seek_slice(SLICE_SECONDS, now_fn());
            ctx.request_repaint();
        }
        if self.compare_runner.is_some() {
            self.compare_slice(SLICE_SECONDS, now_fn());
            ctx.request_repaint();
        }
        if self.gpu_job.is_some() {
            self.poll_gpu();
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
        self.poll_inputs(&ctx);
        if self.poll_compile() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        if let Some(t) = self.editor.as_ref().and_then(|e| e.edited_at) {
            let now = ctx.input(|i| i.time);
            if now - t >= editor::DEBOUNCE_SECONDS {
                self.recompile();
            } else {
                ctx.request_repaint_after(std::time::Duration::from_secs_f64(
                    editor::DEBOUNCE_SECONDS - (now - t),
                ));
            }
        }
        if self.running {
            let clock = now_fn();
            self.run_slice(SLICE_SECONDS, clock);
            ctx.request_repaint();
        } else if self.animating {
            let t = ctx.input(|i| i.time);
            if t >= self.anim_due {
                self.apply(&ctx, ask::Action::Step);
                self.anim_due = t + 1.0 / f64::from(self.settings.speed.max(0.1));
                if self.session.as_ref().is_some_and(|s| s.sim().is_finished()) {
                    self.animating = false;
                }
            }
            // A frame when the next step is due, none in between (at 8 steps a second, 8
            // repaints rather than 60: each is a full repaint, ~40 ms of CPU under software
            // WebGL in the browser).
            ctx.request_repaint_after(std::time::Duration::from_secs_f64(
                (self.anim_due - ctx.input(|i| i.time)).max(0.0),
            ));
        }
        if let Some(s) = &self.session {
            // Before any view asks for a tangle's colour: those alive now get hues apart.
            palette::live_tangles(s.sim().tangles().iter().map(|t| (t.subgroup, t.lanes.0)));
        }
        for a in toolbar::toolbar(self, ui) {
            self.apply(&ctx, a);
        }
        panels::bottom_bar(self, ui);
        if !self.presenter || self.left_tab == LeftTab::Source {
            // On a projector the source stays; the disassembly gives its room to the views.
            panels::code(self, ui);
        }
        // On a projector: the code, the chosen view and the lesson, large, and nothing else (F2
        // brings the values and inputs back).
        if !self.presenter || self.lesson.is_some() {
            panels::side(self, ui);
        }
        tabs::central(self, ui);
        self.apply_asked(&ctx);
        if self.open_promise.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        let dt = (ctx.input(|i| i.unstable_dt) * 1000.0).clamp(0.0, 1000.0);
        self.frame_ms = self.frame_ms * 0.9 + dt * 0.1;
    }
}
/// Presenter mode: everything larger, text at full contrast on a black background.
fn apply_presenter(ctx: &egui::Context, on: bool) {
    let zoom = if on { 1.5 } else { 1.0 };
    if (ctx.zoom_factor() - zoom).abs() > f32::EPSILON {
        ctx.set_zoom_factor(zoom);
    }
    let text = on.then_some(egui::Color32::WHITE);
    if ctx.global_style().visuals.override_text_color != text {
        let mut v = if on || ctx.theme() == egui::Theme::Dark {
            egui::Visuals::dark()
        } else {
            egui::Visuals::light()
        };
        if on {
            v.override_text_color = text;
            v.panel_fill = egui::Color32::BLACK;
            v.window_fill = egui::Color32::BLACK;
            v.extreme_bg_color = egui::Color32::BLACK;
        }
        palette::own(&mut v, ctx.theme());
        ctx.set_visuals(v);
    }
}
