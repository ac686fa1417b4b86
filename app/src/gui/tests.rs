//! The GUI driven as a person would: through its widgets and keys, with egui_kittest.

use super::session::Settings;
use crate::gui::state::LanescopeApp;
use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use lanescope_core::trace::LaneState;

fn harness(example: &str) -> Harness<'static, LanescopeApp> {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example(example);
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    h
}

/// Shows the disassembly tab, as a click on it does (examples open on their source).
fn show_disassembly(h: &mut Harness<'_, LanescopeApp>) {
    h.get_by_label("Disassembly").click();
    h.run_steps(2);
    assert_eq!(h.state().left_tab, crate::gui::state::LeftTab::Disassembly);
}

/// One turn of the mouse wheel by `delta` points (negative y: down the page, negative x: to the
/// right) where the pointer is, and two frames.
fn wheel(h: &mut Harness<'_, LanescopeApp>, delta: egui::Vec2) {
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta,
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
    });
    h.run_steps(2);
}

fn steps(h: &Harness<'_, LanescopeApp>) -> u64 {
    h.state().session.as_ref().unwrap().step_count()
}

/// The disassembly line of the instruction the session is at, which must be among the lines
/// drawn.
fn focus_line_drawn(h: &Harness<'_, LanescopeApp>) -> usize {
    let line = h
        .state()
        .session
        .as_ref()
        .unwrap()
        .focus_instruction()
        .unwrap() as usize;
    let v = h.state().disasm_visible.clone();
    assert!(
        v.contains(&line),
        "line {line} not in the drawn lines {v:?}"
    );
    line
}

/// Opens the first New template (WGSL) in the editor.
fn open_first_template(app: &mut LanescopeApp) {
    let t = &super::editor::TEMPLATES[0];
    app.open_source(super::editor::Editor::new(
        t.name,
        t.language,
        t.text.into(),
    ));
}

fn click_at(h: &mut Harness<'_, LanescopeApp>, pos: egui::Pos2) {
    // Move first and let a frame pass, as a hand does, so the last hover's tooltip is gone.
    h.remove_cursor();
    h.run_steps(2);
    h.event(egui::Event::PointerMoved(pos));
    h.run_steps(2);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    h.run_steps(3);
}

/// Steps until the last step ran an instruction `want` accepts (a view then shows it).
fn step_until_ran(
    h: &mut Harness<'_, LanescopeApp>,
    want: fn(&lanescope_core::view::Meaning) -> bool,
) {
    step_until(h, |s| {
        super::views::find_site(s, None, want).is_some_and(|x| x.executed)
    });
}

/// Steps (through the session, as F10 would) until `want` says the view has something.
fn step_until(h: &mut Harness<'_, LanescopeApp>, want: impl Fn(&super::session::Session) -> bool) {
    for _ in 0..5000 {
        let s = h.state_mut().session.as_mut().unwrap();
        if want(s) {
            h.run_steps(2);
            return;
        }
        assert!(
            s.step().unwrap(),
            "finished before the view had anything to show"
        );
    }
    panic!("not reached in 5000 steps");
}

fn test_data(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../core/tests/data")
            .join(name),
    )
    .unwrap()
}

/// Polls until the app has taken the dialog's answer.
fn until_answered(h: &mut Harness<'_, LanescopeApp>) {
    for _ in 0..200 {
        h.run_steps(1);
        if h.state().open_promise.is_none() && h.state().saving.is_none() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("the dialog's answer never arrived");
}

fn link(fragment: &str) -> super::permalink::Link {
    super::permalink::Link::parse(fragment).unwrap()
}

/// Runs the open module to its end, past the diagnostics that stop a run.
fn finish(app: &mut LanescopeApp) {
    let s = app.session.as_mut().unwrap();
    while let Some(super::session::Stop::Diagnostic(_)) = s.run_slice(1_000_000, u64::MAX).unwrap()
    {
    }
    assert!(s.sim().is_finished());
}

/// Runs the open module to its end (or 100k steps) and says how it went.
fn run_to_end(app: &mut LanescopeApp) -> String {
    let s = app.session.as_mut().unwrap();
    let stop = s.run_slice(100_000, u64::MAX);
    format!(
        "{stop:?} {}",
        serde_json::to_string(&s.sim().stats()).unwrap()
    )
}

/// Runs frames until the editor has no compile pending (the debounce has passed).
fn until_compiled(h: &mut Harness<'_, LanescopeApp>) {
    for _ in 0..200 {
        h.run_steps(1);
        let pending = h
            .state()
            .editor
            .as_ref()
            .is_some_and(|e| e.edited_at.is_some());
        if !pending && h.state().seek.is_none() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the edit was never compiled");
}

/// The line the tangle a source step follows stands on.
fn current_source_line(app: &LanescopeApp) -> Option<u32> {
    let (g, id) = app.line_step_tangle()?;
    app.session
        .as_ref()?
        .sim()
        .tangle_source_pos(g, id)
        .map(|p| p.line)
}

/// At 1280x720 (and 1920x1080) every toolbar control, every tab and the diagnostics list lie
/// wholly inside the window (found through the accessibility tree, as a screen reader would).
#[test]
fn at_1280x720_every_control_and_tab_is_inside_the_window() {
    for (example, w, hgt) in [
        ("if_else", 1280.0, 720.0),
        ("coopmat_tile_f16", 1280.0, 720.0),
        ("if_else", 1920.0, 1080.0),
    ] {
        let mut app = LanescopeApp::new(Settings::default());
        app.open_example(example);
        let mut h = Harness::builder()
            .with_size(egui::vec2(w, hgt))
            .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
        h.run_steps(3);
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, hgt));
        let labels = [
            "File",
            "Examples",
            "Lessons",
            "View",
            "Subgroup",
            "Options",
            "Limits",
            "Step line",
            "Into",
            "Out",
            "Step",
            "Step tangle",
            "Back",
            "Run",
            "Animate",
            "Reset",
            "Source",
            "Disassembly",
            "Lanes",
            "Timeline",
            "Rotate",
            "Dot product",
            "Matrix",
            "Compare",
        ];
        for l in labels {
            // The toolbar's (or the tab row's) one: the topmost with that name (buffers in
            // Inputs have an Export of their own).
            let r = h
                .get_all_by_label(l)
                .map(|n| n.rect())
                .min_by(|a, b| a.top().total_cmp(&b.top()))
                .unwrap_or_else(|| panic!("{example}: no `{l}`"));
            assert!(
                window.contains_rect(r),
                "{example}: `{l}` at {r:?} is cut off"
            );
        }
        let d = h.get_by_label_contains("Diagnostics (").rect();
        assert!(
            window.contains_rect(d),
            "{example}: the diagnostics list at {d:?}"
        );
        // The graph's controls stay left of the values panel, not under it.
        let side = h.get_by_label("Values and inputs").rect().left();
        for l in ["Fit", "zoom"] {
            for r in h.get_all_by_label(l).map(|n| n.rect()) {
                assert!(
                    r.right() <= side,
                    "{example}: `{l}` at {r:?} runs under the panel at {side}"
                );
            }
        }
    }
}

mod amber;
mod compare;
mod editor;
mod graph;
mod images;
mod inputs;
mod layout;
mod lessons;
mod links;
mod robustness;
mod snapshots;
mod stepping;
mod views;
