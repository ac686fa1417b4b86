//! The control-flow graph: its blocks' source lines, and following the running tangle (into a
//! called function and back).

use super::*;
use crate::gui::ask::Action;

#[test]
fn cfg_blocks_and_hovered_variables_speak_of_source_lines() {
    let mut app = LanescopeApp::new(Settings::default());
    open_first_template(&mut app);
    let s = app.session.as_ref().unwrap();
    let labels: Vec<String> = (0..s.program.blocks().len() as u32)
        .filter_map(|b| super::super::cfg::source_lines(&s.program, b))
        .collect();
    // The loop body (lines 16-17 of the template) is a block of its own.
    assert!(
        labels.iter().any(|l| l == "divergent_loop.wgsl:16-17"),
        "{labels:?}"
    );
    // What the Variables panel and a hover show: `sum` in every lane.
    let mut app = app;
    for _ in 0..3 {
        app.apply(
            &egui::Context::default(),
            Action::StepLine(super::super::session::LineStep::Over),
        );
    }
    let (g, id) = app.line_step_tangle().unwrap();
    let sim = app.session.as_ref().unwrap().sim();
    let k = sim.tangle_instruction(g, id).unwrap();
    let var = sim.variable_named(k, "sum").expect("sum in scope");
    let v = sim.source_value(g, var, k).unwrap();
    // `var sum = 0u;` before the loop has added anything.
    for l in 0..32usize {
        assert_eq!(v.lanes[l].as_ref().map(|c| c[0]), Some(0), "lane {l}");
    }
}

/// The control-flow graph follows the running tangle: its block is outlined and scrolled into
/// view, also far down a long graph.
#[test]
fn the_graph_scrolls_to_the_running_block() {
    let mut src = String::from(
        "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
         @compute @workgroup_size(32)\n\
         fn main(@builtin(local_invocation_index) l: u32) {\n    var x = l;\n",
    );
    for i in 0..24 {
        src.push_str(&format!(
            "    if (x % {m}u == 0u) {{ x = x + {i}u; }} else {{ x = x * 3u; }}\n",
            m = i % 5 + 2
        ));
    }
    src.push_str("    o[l] = x;\n}\n");
    let mut app = LanescopeApp::new(Settings::default());
    app.open_source(super::super::editor::Editor::new(
        "long.wgsl",
        lanescope_front::Language::Wgsl,
        src,
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    let at = |h: &Harness<'_, LanescopeApp>| {
        h.ctx
            .data(|d| d.get_temp::<(egui::Rect, egui::Rect)>(super::super::cfg::running_rect_id()))
    };
    let (first, _) = at(&h).expect("the running block is drawn");
    // Step lines until the tangle is far below where it started.
    for _ in 0..60 {
        h.key_press(egui::Key::F10);
        h.run_steps(3);
    }
    let (block, clip) = at(&h).unwrap();
    let moved = h.state().cfg_followed;
    assert!(moved.is_some());
    // Fit: the whole graph in its area at once.
    h.get_by_label("Fit").click();
    h.run_steps(3);
    let z = h.state().cfg_zoom;
    assert!(z < 1.0, "zoom {z}");
    assert!(
        clip.intersects(block),
        "the running block {block:?} is outside the graph's view {clip:?} (it started at {first:?})"
    );
}

/// F11 into a call: the graph shows the called function (its name in the header, its blocks
/// drawn) and goes back to the caller's once the call returns; after every key the graph shows
/// the function the followed tangle is in.
#[test]
fn the_graph_follows_into_a_called_function_and_back() {
    let mut h = harness("function_calls");
    let main = h.state().session.as_ref().unwrap().program.entry_func();
    let func_now = |h: &Harness<'_, LanescopeApp>| h.state().cfg_layout.as_ref().unwrap().func;
    let followed = |h: &Harness<'_, LanescopeApp>| {
        let s = h.state().session.as_ref().unwrap();
        let (g, id) = h.state().line_step_tangle()?;
        let t = s
            .sim()
            .tangles()
            .into_iter()
            .find(|t| t.subgroup as usize == g && t.id == id)?;
        Some(s.program.blocks()[t.block as usize].func)
    };
    let mut entered = None;
    for _ in 0..200 {
        h.key_press(egui::Key::F11);
        h.run_steps(2);
        assert_eq!(Some(func_now(&h)), followed(&h));
        if func_now(&h) != main {
            entered = Some(func_now(&h));
            break;
        }
    }
    let callee = entered.expect("F11 never entered the called function");
    let name = h
        .state()
        .session
        .as_ref()
        .unwrap()
        .program
        .func_name(callee);
    h.get_by_label(name.as_str());
    // Shift+F11 steps out; lanes that returned wait in the caller for the rest of the call, so
    // a few presses bring every tangle of the call back.
    for _ in 0..20 {
        h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F11);
        h.run_steps(2);
        assert_eq!(Some(func_now(&h)), followed(&h));
        if func_now(&h) == main {
            break;
        }
    }
    assert_eq!(func_now(&h), main, "the graph stayed in {name}");
    h.get_by_label(
        h.state()
            .session
            .as_ref()
            .unwrap()
            .program
            .func_name(main)
            .as_str(),
    );
}

/// The Variables panel names a buffer of runtime arrays for what it is: it has no fixed part to
/// print (an empty value before); a texture or a sampler is named as one.
#[test]
fn the_variables_panel_names_a_runtime_array_for_what_it_is() {
    let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
               @group(0) @binding(1) var t: texture_2d<f32>;\n\
               @group(0) @binding(2) var s: sampler;\n\
               @compute @workgroup_size(32)\n\
               fn main(@builtin(local_invocation_index) l: u32) {\n    var x = l * 3u;\n    \
               x = x + u32(textureSampleLevel(t, s, vec2<f32>(0.5), 0.0).x);\n    o[l] = x;\n}\n";
    let mut app = LanescopeApp::new(Settings::default());
    app.open_source(super::super::editor::Editor::new(
        "runtime.wgsl",
        lanescope_front::Language::Wgsl,
        src.into(),
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    for _ in 0..2 {
        h.key_press(egui::Key::F10);
        h.run_steps(3);
    }
    let s = h.state().session.as_ref().unwrap();
    let (g, id) = h.state().line_step_tangle().unwrap();
    let k = s.sim().tangle_instruction(g, id).unwrap();
    assert!(
        s.sim().variable_named(k, "o").is_some(),
        "the buffer is in scope"
    );
    h.get_by_label("runtime array: see Buffers (words)");
    // A texture and a sampler are handles, not runtime arrays (they read as one before).
    h.get_by_label("an image: see Inputs (texels)");
    h.get_by_label("a sampler");
}

/// A variable before its first assignment shows as undefined in the Variables panel (its bytes'
/// zeros before), and its value once assigned.
#[test]
fn a_variable_shows_undefined_until_assigned() {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_example(crate::examples::DEFAULT_EXAMPLE);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut LanescopeApp| app.show(ui), app);
    h.run_steps(2);
    let l_of = |h: &Harness<'_, LanescopeApp>| {
        let s = h.state().session.as_ref().unwrap();
        let (g, id) = h.state().line_step_tangle()?;
        let k = s.sim().tangle_instruction(g, id)?;
        let var = s.sim().variable_named(k, "L")?;
        s.sim().source_value(g, var, k)
    };
    // Step lines until `uint L = gl_LocalInvocationIndex;` is the next to run.
    let mut presses = 0;
    while l_of(&h).is_none() {
        h.key_press(egui::Key::F10);
        h.run_steps(3);
        presses += 1;
        assert!(presses < 10, "L never in scope");
    }
    assert!(l_of(&h).unwrap().undefined.iter().all(|u| u == &[true]));
    h.get_by_label(crate::gui::views::UNDEFINED);
    h.key_press(egui::Key::F10);
    h.run_steps(3);
    assert!(l_of(&h).unwrap().undefined.iter().all(Vec::is_empty));
    // L's row now reads its first lane's value; `v`, declared on the line now next, is the one
    // undefined.
    assert_eq!(
        h.query_all_by_label(crate::gui::views::UNDEFINED).count(),
        1
    );
    let s = h.state().session.as_ref().unwrap();
    let (g, id) = h.state().line_step_tangle().unwrap();
    let k = s.sim().tangle_instruction(g, id).unwrap();
    let v = s.sim().variable_named(k, "v").expect("v in scope");
    assert_eq!(s.sim().source_value(g, v, k).unwrap().undefined[0], [true]);
}
