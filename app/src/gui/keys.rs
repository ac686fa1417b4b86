//! The keyboard: every shortcut, read once a frame and turned into the app's actions.

use super::ask::{Action, Pane};
use super::session::LineStep;

/// A key's press or release as egui's input holds it (the browser's warm-up and the tests
/// strike keys with it).
pub(super) fn event(key: egui::Key, pressed: bool, modifiers: egui::Modifiers) -> egui::Event {
    egui::Event::Key {
        key,
        physical_key: None,
        pressed,
        repeat: false,
        modifiers,
    }
}

/// The shortcuts pressed since the last frame, as actions in the order they apply (each press
/// counts, also when several arrive in one frame).
pub(super) fn read(ctx: &egui::Context, presenter: bool) -> Vec<Action> {
    use egui::{Key, Modifiers};
    let mut asked = Vec::new();
    // Shift+F10 first: a key pattern without Shift also matches with Shift held.
    // Space is the presenter's step key, except while typing in the editor.
    let typing = ctx.memory(|m| m.focused().is_some());
    // F2 toggles presenter mode before a Space pressed in the same frame is read.
    let toggle = ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::F2));
    let presenter = (presenter ^ toggle) && !typing;
    let shift_cmd = Modifiers::COMMAND.plus(Modifiers::SHIFT);
    let (png, trace, link, gpu) = ctx.input_mut(|i| {
        (
            i.consume_key(shift_cmd, Key::S),
            i.consume_key(shift_cmd, Key::E),
            i.consume_key(shift_cmd, Key::L),
            i.consume_key(shift_cmd, Key::G),
        )
    });
    if gpu {
        asked.push(Action::RunOnGpu);
    }
    if png {
        asked.push(Action::ExportPng);
    }
    if link {
        asked.push(Action::CopyLink);
    }
    if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::S)) {
        asked.push(Action::SaveSource);
    }
    if trace {
        asked.push(Action::ExportTrace);
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
    for (pressed, pane) in [(code, Pane::Code), (graph, Pane::Graph), (side, Pane::Side)] {
        if pressed {
            asked.push(Action::TogglePane(pane));
        }
    }
    let (run, animate, open, stop) = ctx.input_mut(|i| {
        (
            i.consume_key(Modifiers::NONE, Key::F5),
            i.consume_key(Modifiers::NONE, Key::F6),
            i.consume_key(Modifiers::COMMAND, Key::O),
            i.consume_key(Modifiers::NONE, Key::Escape),
        )
    });
    for _ in 0..out {
        asked.push(Action::StepLine(LineStep::Out));
    }
    for _ in 0..one {
        asked.push(Action::StepTangle);
    }
    for _ in 0..sched {
        asked.push(Action::Step);
    }
    for _ in 0..over {
        asked.push(Action::StepLine(LineStep::Over));
    }
    for _ in 0..into {
        asked.push(Action::StepLine(LineStep::Into));
    }
    if toggle {
        asked.push(Action::TogglePresenter);
    }
    if animate {
        asked.push(Action::ToggleAnimate);
    }
    for _ in 0..back {
        asked.push(Action::StepBack);
    }
    if run {
        asked.push(Action::Run);
    }
    if stop {
        asked.push(Action::Stop);
    }
    if open {
        asked.push(Action::OpenDialog);
    }
    asked
}
