//! The keyboard: every shortcut, read once a frame and turned into the app's actions.

use super::{session, LanescopeApp};

impl LanescopeApp {
    pub(super) fn handle_keys(&mut self, ctx: &egui::Context) {
        use egui::{Key, Modifiers};
        // Shift+F10 first: a key pattern without Shift also matches with Shift held.
        // Space is the presenter's step key, except while typing in the editor.
        let typing = ctx.memory(|m| m.focused().is_some());
        let presenter = self.presenter && !typing;
        let shift_cmd = Modifiers::COMMAND.plus(Modifiers::SHIFT);
        let (png, trace, link) = ctx.input_mut(|i| {
            (
                i.consume_key(shift_cmd, Key::S),
                i.consume_key(shift_cmd, Key::E),
                i.consume_key(shift_cmd, Key::L),
            )
        });
        if png {
            self.export_png(ctx);
        }
        if link {
            self.copy_link(ctx);
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::S)) {
            self.save_source();
        }
        if trace {
            self.export_trace();
        }
        // Modified keys first: a pattern without modifiers also matches with them held. Each
        // press counts, also when several arrive in one frame.
        let (back, out, one, sched, over, into) = ctx.input_mut(|i| {
            let space = |i: &mut egui::InputState, m| {
                if presenter {
                    i.count_and_consume_key(m, Key::Space)
                } else {
                    0
                }
            };
            (
                i.count_and_consume_key(Modifiers::SHIFT, Key::F10) + space(i, Modifiers::SHIFT),
                i.count_and_consume_key(Modifiers::SHIFT, Key::F11),
                i.count_and_consume_key(Modifiers::COMMAND, Key::F10),
                i.count_and_consume_key(Modifiers::ALT, Key::F10),
                i.count_and_consume_key(Modifiers::NONE, Key::F10) + space(i, Modifiers::NONE),
                i.count_and_consume_key(Modifiers::NONE, Key::F11),
            )
        });
        // Ctrl+Alt+B before Ctrl+B, which would also match it.
        let (side, graph, code) = ctx.input_mut(|i| {
            (
                i.consume_key(Modifiers::COMMAND.plus(Modifiers::ALT), Key::B),
                i.consume_key(Modifiers::COMMAND, Key::J),
                i.consume_key(Modifiers::COMMAND, Key::B),
            )
        });
        self.panes.code ^= code;
        self.panes.graph ^= graph;
        self.panes.side ^= side;
        let (run, animate, open, stop, toggle) = ctx.input_mut(|i| {
            (
                i.consume_key(Modifiers::NONE, Key::F5),
                i.consume_key(Modifiers::NONE, Key::F6),
                i.consume_key(Modifiers::COMMAND, Key::O),
                i.consume_key(Modifiers::NONE, Key::Escape),
                i.consume_key(Modifiers::NONE, Key::F2),
            )
        });
        for _ in 0..out {
            self.step_line(session::LineStep::Out);
        }
        for _ in 0..one {
            self.step_selected();
        }
        for _ in 0..sched {
            self.step();
        }
        for _ in 0..over {
            self.step_line(session::LineStep::Over);
        }
        for _ in 0..into {
            self.step_line(session::LineStep::Into);
        }
        if toggle {
            self.presenter = !self.presenter;
        }
        if animate {
            self.animating = !self.animating;
            self.running = false;
        }
        for _ in 0..back {
            self.step_back();
        }
        if run {
            self.running = true;
        }
        if stop {
            if self.running || self.animating {
                if let Some(s) = &self.session {
                    self.status = format!("stopped at step {}", s.step_count());
                }
            }
            self.running = false;
            self.animating = false;
        }
        if open {
            self.start_open_dialog();
        }
    }
}
