//! Bad input and limits: hostile modules, endless loops, limits, oversized files, dialogs that
//! die, and nothing of the last module left behind.

use super::*;
use crate::gui::ask::Action;

/// Hostile modules (bad layouts, recursion, unstructured flow, fuzzer findings) either end in
/// the error bar naming the file, or open and run to a clean stop; the app never panics.
#[test]
fn hostile_modules_end_in_the_error_bar_or_a_clean_stop() {
    let mut h = harness("if_else");
    h.state_mut().settings.max_steps = 5000;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data");
    let mut files: Vec<(String, Vec<u8>)> = [
        "layout_stride_overflow.spv",
        "layout_offset_overflow.spv",
        "recursion.spv",
        "unreachable.spv",
        "coopmat_bad_k.spv",
        "runtime_huge_stride.spv",
    ]
    .iter()
    .map(|f| ((*f).to_string(), test_data(f)))
    .collect();
    for sub in ["fuzz", "hostile"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "spv") {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                files.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    let (mut refused, mut ran) = (0, 0);
    for (name, bytes) in files {
        h.state_mut().error = None;
        h.state_mut().open(&name, bytes);
        h.run_steps(2);
        if let Some(err) = h.state().error.clone() {
            assert!(err.starts_with(&format!("{name}:")), "{err}");
            refused += 1;
            continue;
        }
        assert_eq!(h.state().session.as_ref().unwrap().name, name);
        h.key_press(egui::Key::F5);
        for _ in 0..200 {
            h.run_steps(1);
            if !h.state().running {
                break;
            }
        }
        assert!(!h.state().running, "{name}: still running after 200 frames");
        ran += 1;
    }
    assert!(refused >= 10 && ran >= 2, "refused {refused}, ran {ran}");
}

/// A shader that never finishes stops at the step limit with a message saying how to raise it.
#[test]
fn an_endless_loop_stops_at_the_step_limit() {
    let mut h = harness("if_else");
    // Escape stops a run midway and says where.
    h.state_mut()
        .open("infinite_loop.spv", test_data("infinite_loop.spv"));
    h.key_press(egui::Key::F5);
    h.run_steps(3);
    assert!(h.state().running);
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    assert!(!h.state().running);
    let at = steps(&h);
    assert!(at > 0);
    assert_eq!(h.state().status, format!("stopped at step {at}"));
    h.state_mut().settings.max_steps = 3000;
    h.state_mut()
        .open("infinite_loop.spv", test_data("infinite_loop.spv"));
    h.run_steps(2);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    h.key_press(egui::Key::F5);
    for _ in 0..500 {
        h.run_steps(1);
        if !h.state().running {
            break;
        }
    }
    let err = h.state().error.clone().expect("the step limit is reported");
    assert!(!h.state().running);
    assert!(err.contains("step limit (3000 steps)"), "{err}");
    assert!(err.contains("Limits menu"), "{err}");
    assert_eq!(steps(&h), 3000);
}

/// The Limits menu holds every limit; a lower invocation limit refuses the open module's
/// workgroup and says where to raise it, and the buffer limit sizes an uploaded module's
/// buffers.
#[test]
fn limits_from_the_limits_menu_apply_to_the_run() {
    let mut h = harness("if_else");
    h.get_by_label("Limits").click();
    h.run_steps(2);
    for label in [
        "Steps per run",
        "Memory per workgroup (MiB)",
        "Invocations per workgroup",
        "Buffer memory (MiB)",
        "Trace steps kept",
    ] {
        h.get_by_label(label);
    }
    // Clicking a value to type into it keeps the menu open.
    h.get_by_label("Invocations per workgroup").click();
    h.run_steps(2);
    h.get_by_label("Trace steps kept");
    h.state_mut().settings.max_invocations = 16;
    h.state_mut()
        .apply(&egui::Context::default(), Action::Reset);
    h.run_steps(2);
    let err = h.state().error.clone().expect("the limit is reported");
    assert!(err.contains("the limit is 16"), "{err}");
    assert!(err.contains("Limits menu"), "{err}");

    h.state_mut().settings.max_invocations = 4096;
    h.state_mut().settings.max_buffer_mib = 1;
    h.state_mut().open(
        "runtime_huge_stride.spv",
        test_data("runtime_huge_stride.spv"),
    );
    h.run_steps(2);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let s = h.state().session.as_ref().unwrap();
    let bytes: usize = s.initial.buffers.iter().map(|(_, _, d)| d.len()).sum();
    assert!(bytes <= 1 << 20, "{bytes} bytes bound under a 1 MiB limit");
}

/// A file past the loader's limit is refused before it is read, and the error bar says so.
#[test]
fn an_oversized_file_is_refused_before_reading() {
    let path = std::env::temp_dir().join(format!("lanescope-big-{}.spv", std::process::id()));
    let f = std::fs::File::create(&path).unwrap();
    // Sparse: the size is what matters, not the bytes.
    f.set_len(lanescope_core::load::MAX_MODULE_BYTES as u64 + 4)
        .unwrap();
    let err = crate::gui::state::read_module(&path).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert!(err.contains("largest module"), "{err}");
    let missing =
        crate::gui::state::read_module(std::path::Path::new("/nonexistent/x.spv")).unwrap_err();
    assert!(!missing.is_empty());
}

/// A file dialog that dies (rfd panicked without a runtime: "there is no reactor running") or
/// cannot be shown (no portal, no D-Bus) ends in the error bar; the session stays.
#[test]
fn a_file_dialog_that_dies_or_cannot_be_shown_keeps_the_session() {
    let mut h = harness("if_else");
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
    h.run_steps(2);
    h.state_mut().open_promise = Some(crate::gui::dialog::Pending::spawn(
        "open",
        || -> crate::gui::dialog::Opened {
            panic!("there is no reactor running (a test of a dying dialog)")
        },
    ));
    until_answered(&mut h);
    let err = h.state().error.clone().expect("an error is shown");
    assert!(err.contains("file dialog stopped unexpectedly"), "{err}");
    h.state_mut().saving = Some(crate::gui::dialog::Pending::spawn("save", || {
        panic!("a test of a dying save dialog")
    }));
    until_answered(&mut h);
    let err = h.state().error.clone().expect("an error is shown");
    assert!(err.contains("nothing was saved"), "{err}");
    // No dialog at all: what `dialog::native` makes of rfd's answer, as the open thread words it.
    h.state_mut().open_promise = Some(crate::gui::dialog::Pending::ready(Err(format!(
        "no file dialog available: no D-Bus — {}",
        crate::gui::state::NO_DIALOG_HINT
    ))));
    until_answered(&mut h);
    h.get_by_label_contains("Error: no file dialog available");
    let s = h.state().session.as_ref().unwrap();
    assert_eq!((s.name.as_str(), s.step_count()), ("if_else.spv", 1));
}

/// Selection, watches, breakpoints and a pending jump belong to the module they were made in;
/// another module opens without them.
#[test]
fn opening_another_module_clears_what_belonged_to_the_last() {
    let mut h = harness("if_else");
    show_disassembly(&mut h);
    // Watch an id by clicking it in the disassembly, as a person does (one in the middle: near
    // the end the scroll springs back while the click is under way).
    let (line, id, text) = {
        let s = h.state().session.as_ref().unwrap();
        let (i, l) = s
            .disasm
            .lines
            .iter()
            .enumerate()
            .skip(s.disasm.lines.len() / 2)
            .find(|(_, l)| {
                l.result_id.is_some_and(|id| s.program.has_value(id))
                    && s.disasm
                        .lines
                        .iter()
                        .filter(|m| m.result == l.result)
                        .count()
                        == 1
            })
            .unwrap();
        (i, l.result_id.unwrap(), l.result.clone())
    };
    h.state_mut().scroll_to_line = Some(line);
    h.run_steps(3);
    h.get_by_label(&text).click();
    h.run_steps(2);
    h.get_by_label(&format!("breakpoint at instruction {line}"))
        .click();
    h.run_steps(2);
    assert_eq!(h.state().selected_id, Some(id));
    assert_eq!(h.state().watches, vec![id]);
    // A tangle and a lane picked (as a click in the Lanes tab does).
    h.state_mut().selected_tangle = Some((0, 0));
    h.state_mut().selected_lane = Some((0, 3));
    // A jump still under way when the other module opens.
    h.state_mut().seek = Some(150);
    h.state_mut().open_example("nested_if");
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.session.as_ref().unwrap().name, "nested_if.spv");
    assert_eq!(app.selected_id, None, "the id stays highlighted");
    assert!(app.watches.is_empty());
    assert!(app.session.as_ref().unwrap().breakpoints.is_empty());
    assert_eq!((app.selected_tangle, app.selected_lane), (None, None));
    assert_eq!(app.seek, None);
    assert_eq!(steps(&h), 0, "the old module's jump carried over");
}

#[test]
fn a_bad_file_shows_in_the_error_bar_and_keeps_the_session() {
    let mut h = harness("if_else");
    h.state_mut().open("junk.spv", vec![1, 2, 3, 4, 5]);
    h.run_steps(2);
    let err = h.state().error.clone().expect("an error is shown");
    assert!(err.starts_with("junk.spv:"), "{err}");
    h.get_by_label_contains("Error: junk.spv");
    assert_eq!(h.state().session.as_ref().unwrap().name, "if_else.spv");
}

/// A long error wraps inside the window instead of running off its edge.
#[test]
fn a_long_error_wraps_inside_the_window() {
    let mut h = harness("if_else");
    h.state_mut().error = Some(format!("{} the end", "a very long message ".repeat(30)));
    h.run_steps(3);
    let r = h.get_by_label_contains("Error: a very long").rect();
    assert!(r.right() <= 1400.0 && r.height() > 30.0, "{r:?}");
}
