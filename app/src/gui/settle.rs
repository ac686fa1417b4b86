//! Frames that would show nothing new. egui answers each input with the frame that handles it
//! and then one or two more "to let things settle" (a grid that lays its columns out from the
//! last frame's widths, a widget styled before it had a response), and a key's release is a
//! frame of its own. Under software WebGL each frame of the app costs ~30 ms of drawing and
//! read-back whatever it shows, so one F10 press drew three of them. Here a pass that answered
//! input and asked for another is done again at once inside the same frame (egui's discard:
//! the settled layout is what is drawn), and the host leaves out a frame that nothing asked for
//! but egui's settling (in the browser: eframe then runs no UI pass and draws nothing; a key's
//! release waits in its input for the next frame drawn). A frame any of whose passes asked for
//! another is followed by one: the pass done again does not always show what the first asked
//! for (a scroll asked in a scroll area's first frame shows a frame later).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the frames since the last UI pass asked for (see the module's documentation).
#[derive(Default)]
pub struct Settle {
    /// Every repaint asked of egui so far: widgets, animations, timers, the app, other threads.
    asked: Arc<AtomicU64>,
    /// `asked` when the last frame's first pass began its UI; none before the first (the
    /// observer is put in then).
    at_ui: Option<u64>,
    /// Whether the pass's input held events.
    answering: bool,
    /// The window as the last frame let through saw it.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    window: Option<Window>,
}

impl Settle {
    /// At the start of each pass's UI.
    pub fn begin(&mut self, ctx: &egui::Context) {
        if self.at_ui.is_none() {
            let asked = Arc::clone(&self.asked);
            ctx.set_repaint_observer(move |_| {
                asked.fetch_add(1, Ordering::Relaxed);
            });
        }
        // From the frame's first pass: what a pass asked for is not always shown by the pass
        // done again after it (a scroll asked for in a scroll area's first frame is applied a
        // frame later), so a frame any of whose passes asked for another is followed by one.
        if self.at_ui.is_none() || ctx.current_pass_index() == 0 {
            self.at_ui = Some(self.asked.load(Ordering::Relaxed));
        }
        // Read before the UI, which consumes the keys it handles.
        self.answering = ctx.input(|i| !i.events.is_empty());
    }

    /// At the end of each pass's UI: a first pass that answered input and asked for another
    /// frame is done again in this frame.
    pub fn end(&self, ctx: &egui::Context) {
        if self.answering && ctx.current_pass_index() == 0 && self.asked_since_ui() {
            ctx.request_discard("a pass that answered input asked for another");
        }
    }

    fn asked_since_ui(&self) -> bool {
        self.at_ui != Some(self.asked.load(Ordering::Relaxed))
    }

    /// Whether the frame about to run on `raw` would show what the last one drawn showed:
    /// nothing was asked for since the last frame's first pass began its UI, the input holds no
    /// event but keys' releases, and the window, scale, focus and theme are as they were. Called before every
    /// frame (it remembers the window of the last frame it let through).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub fn idle(&mut self, raw: &egui::RawInput) -> bool {
        let window = Window {
            rect: raw.screen_rect,
            scale: raw
                .viewports
                .get(&egui::ViewportId::ROOT)
                .and_then(|v| v.native_pixels_per_point),
            focused: raw.focused,
            theme: raw.system_theme,
        };
        let idle = !self.asked_since_ui()
            && self.window == Some(window)
            && raw
                .events
                .iter()
                .all(|e| matches!(e, egui::Event::Key { pressed: false, .. }))
            && raw.hovered_files.is_empty()
            && raw.dropped_files.is_empty();
        self.window = Some(window);
        idle
    }
}

/// What a frame's input says of the window.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[derive(Clone, Copy, PartialEq)]
struct Window {
    rect: Option<egui::Rect>,
    scale: Option<f32>,
    focused: bool,
    theme: Option<egui::Theme>,
}

#[cfg(test)]
mod tests {
    use super::Settle;
    use crate::examples::DEFAULT_EXAMPLE;
    use crate::gui::keys::event as key;
    use crate::gui::state::LanescopeApp;
    use std::cell::Cell;

    /// One frame as eframe runs it: the app's passes between `begin` and `end`; how many there
    /// were, and the tessellated output.
    fn frame_passes(
        ctx: &egui::Context,
        app: &mut LanescopeApp,
        settle: &mut Settle,
        raw: egui::RawInput,
    ) -> (usize, Vec<egui::ClippedPrimitive>) {
        let mut passes = 0;
        let mut out = ctx.run_ui(raw, |ui| {
            passes += 1;
            settle.begin(ui.ctx());
            app.show(ui);
            settle.end(ui.ctx());
        });
        out.textures_delta.clear();
        (passes, ctx.tessellate(out.shapes, out.pixels_per_point))
    }

    /// [`frame_passes`]' output.
    fn frame(
        ctx: &egui::Context,
        app: &mut LanescopeApp,
        settle: &mut Settle,
        raw: egui::RawInput,
    ) -> Vec<egui::ClippedPrimitive> {
        frame_passes(ctx, app, settle, raw).1
    }

    fn same(a: &[egui::ClippedPrimitive], b: &[egui::ClippedPrimitive]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(a, b)| {
                a.clip_rect == b.clip_rect
                    && match (&a.primitive, &b.primitive) {
                        (egui::epaint::Primitive::Mesh(a), egui::epaint::Primitive::Mesh(b)) => {
                            a == b
                        }
                        _ => false,
                    }
            })
    }

    /// A frame's input: the window `rect`, at `time` seconds, with `events`.
    fn input(rect: egui::Rect, time: f64, events: Vec<egui::Event>) -> egui::RawInput {
        egui::RawInput {
            screen_rect: Some(rect),
            time: Some(time),
            events,
            ..Default::default()
        }
    }

    /// Every frame `idle` would leave out draws exactly what the frame before it drew, and a
    /// stepping key's press and release leave at most one frame to draw after the press's own
    /// (none when no pass of it asked for another): the example stepped by line, by instruction
    /// and back, the pointer moved and clicked over the window, for the built-in example and a
    /// run long enough to scroll.
    #[test]
    fn a_frame_left_out_would_have_drawn_what_was_shown() {
        let ctx = egui::Context::default();
        let mut app = LanescopeApp::new(Default::default());
        app.open_example(DEFAULT_EXAMPLE);
        let mut settle = Settle::default();
        let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 720.0));
        // Frames 1/60 s apart, so egui's animations end.
        let time = Cell::new(0.0);
        let raw = |events: Vec<egui::Event>| {
            time.set(time.get() + 1.0 / 60.0);
            input(rect, time.get(), events)
        };
        let none = egui::Modifiers::NONE;
        let ctrl = egui::Modifiers::CTRL;
        let mut shown = Vec::new();
        for _ in 0..60 {
            shown = frame(&ctx, &mut app, &mut settle, raw(vec![]));
        }
        // The events of each frame.
        let mut script: Vec<Vec<egui::Event>> = Vec::new();
        for i in 0..12 {
            script.push(vec![key(egui::Key::F10, true, none)]);
            script.push(vec![key(egui::Key::F10, false, none)]);
            if i % 4 == 3 {
                script.push(vec![
                    egui::Event::ModifiersChanged(ctrl),
                    key(egui::Key::F10, true, ctrl),
                ]);
                script.push(vec![key(egui::Key::F10, false, ctrl)]);
                script.push(vec![egui::Event::ModifiersChanged(none)]);
            }
            if i % 3 == 2 {
                let at = egui::pos2(100.0 + 90.0 * i as f32, 80.0 + 50.0 * i as f32);
                script.push(vec![egui::Event::PointerMoved(at)]);
                for pressed in [true, false] {
                    script.push(vec![egui::Event::PointerButton {
                        pos: at,
                        button: egui::PointerButton::Primary,
                        pressed,
                        modifiers: none,
                    }]);
                }
            }
        }
        // Every frame runs, also those `idle` would leave out, to see what they would draw.
        let (left_out, drawn, mut stepped) = (Cell::new(0), Cell::new(0), 0);
        let mut run = |input: egui::RawInput, shown: &mut Vec<egui::ClippedPrimitive>| {
            let idle = settle.idle(&input);
            let now = frame(&ctx, &mut app, &mut settle, input);
            if idle {
                assert!(
                    same(&now, shown),
                    "a frame left out would have drawn something new"
                );
                left_out.set(left_out.get() + 1);
            } else {
                drawn.set(drawn.get() + 1);
            }
            *shown = now;
            app.session.as_ref().map(|s| s.step_count())
        };
        let mut steps = None;
        // F10 pressed and released, then what egui asks for.
        let mut per_press = Vec::new();
        for _ in 0..10 {
            let (was, before) = (drawn.get(), steps);
            steps = run(raw(vec![key(egui::Key::F10, true, none)]), &mut shown);
            run(raw(vec![key(egui::Key::F10, false, none)]), &mut shown);
            for _ in 0..3 {
                run(raw(vec![]), &mut shown);
            }
            assert_ne!(steps, before, "F10 steps");
            per_press.push(drawn.get() - was);
        }
        // A press whose pass asked for another (the first, which takes the first screen's hint
        // away; a grid's columns; a scroll) is followed by one more frame; the rest draw only
        // the press's own. (Before the Inputs rows laid out were kept as the panel moved, 4 of
        // these 10 presses drew two.)
        assert!(
            per_press.iter().all(|&n| (1..=2).contains(&n))
                && per_press.iter().filter(|&&n| n == 1).count() >= 9,
            "frames drawn for each F10: {per_press:?}"
        );
        for events in script {
            let presses_f10 = events.iter().any(|e| {
                matches!(
                    e,
                    egui::Event::Key {
                        key: egui::Key::F10,
                        pressed: true,
                        ..
                    }
                )
            });
            let after = run(raw(events), &mut shown);
            if presses_f10 && after != steps {
                stepped += 1;
            }
            steps = after;
            // The frames egui goes on asking for after each input.
            for _ in 0..3 {
                steps = run(raw(vec![]), &mut shown);
            }
        }
        assert!(stepped >= 12, "{stepped} presses stepped");
        let (left_out, drawn) = (left_out.get(), drawn.get());
        assert!(
            left_out > drawn,
            "{left_out} frames left out, {drawn} drawn"
        );
    }

    /// Stepping the built-in example by line draws each step in one UI pass: what a step
    /// changes (variables coming into scope, the rows below them moving) leaves no widget laid
    /// out or styled from a frame not drawn, which costs a second pass (~4 ms in the browser)
    /// and a second frame. At the sizes of a laptop and of the browser test, and in a window
    /// tall enough for every row of the Inputs panel.
    #[test]
    fn a_line_step_takes_one_pass() {
        for (w, h) in [(1280.0, 720.0), (1400.0, 860.0), (1400.0, 14000.0)] {
            let ctx = egui::Context::default();
            let mut app = LanescopeApp::new(Default::default());
            app.open_example(DEFAULT_EXAMPLE);
            let mut settle = Settle::default();
            let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, h));
            let mut two = Vec::new();
            for i in 0..400 {
                let press = i % 20 == 19;
                let events = if press {
                    vec![key(egui::Key::F10, true, egui::Modifiers::NONE)]
                } else {
                    vec![]
                };
                let raw = input(rect, f64::from(i) / 60.0, events);
                let (passes, _) = frame_passes(&ctx, &mut app, &mut settle, raw);
                // The first press also takes the first screen's hint away.
                if passes > 1 && press && i > 20 {
                    two.push(i / 20);
                }
            }
            assert!(app.session.as_ref().is_some_and(|s| s.step_count() > 20));
            // One press may write the first value wider than the Inputs panel's "now" column
            // (a grid lays its columns out from the last frame's widths), or scroll the source
            // to the line. (Laid out as a grid, the variables in scope took two passes on 16 of
            // these 19 presses; the Inputs rows coming into sight as the panel moved, on 6 of 19
            // at 1280x720.)
            assert!(
                two.len() <= 1,
                "{w}x{h}: presses drawn in two passes: {two:?}"
            );
        }
    }

    /// A link to a step (the browser's address fragment) followed, and every frame run as the
    /// browser's host would (those `idle` leaves out too): each left out draws what was shown.
    #[test]
    fn a_followed_link_is_drawn_settled() {
        let ctx = egui::Context::default();
        let mut app = LanescopeApp::new(Default::default());
        let mut settle = Settle::default();
        let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 720.0));
        app.apply_link(crate::gui::permalink::Link::parse("example=if_else&step=32").unwrap());
        let mut shown = Vec::new();
        let mut left_out = 0;
        for i in 0..120 {
            let raw = input(rect, f64::from(i) / 60.0, vec![]);
            let idle = settle.idle(&raw);
            let now = frame(&ctx, &mut app, &mut settle, raw);
            if idle && i > 0 {
                assert!(
                    same(&now, &shown),
                    "frame {i} left out would have drawn something new"
                );
                left_out += 1;
            }
            shown = now;
        }
        assert!(app.session.as_ref().is_some_and(|s| s.step_count() == 32));
        assert!(left_out > 60, "{left_out} frames left out");
    }
}
