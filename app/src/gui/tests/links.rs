//! Permalinks and kept settings: what a link opens and carries, and what the app keeps between
//! runs.

use super::*;
use crate::gui::ask::Action;

#[test]
fn a_permalink_opens_the_module_settings_view_lane_and_step() {
    let mut h = harness("if_else");
    let link = crate::gui::permalink::Link::parse(
        "#example=loop_divergent&sg=16&switch=per-case&view=timeline&lane=1:3&step=40",
    )
    .unwrap();
    h.state_mut().apply_link(link);
    for _ in 0..20 {
        h.run_steps(1);
        if h.state().seek.is_none() {
            break;
        }
    }
    let app = h.state();
    assert!(app.error.is_none(), "{:?}", app.error);
    let s = app.session.as_ref().unwrap();
    assert_eq!(s.name, "loop_divergent.spv");
    assert_eq!(s.step_count(), 40);
    assert_eq!(s.sim().config().subgroup_size, 16);
    assert_eq!(app.tab, crate::gui::views::Tab::Timeline);
    assert_eq!(app.selected_lane, Some((1, 3)));
    assert_eq!(app.title(), "Lanescope — loop_divergent.spv — step 40");
    h.get_by_label("timeline");
    // The link of this state says the same.
    let again = app.link().unwrap().format().0;
    assert!(again.contains("example=loop_divergent"), "{again}");
    assert!(
        again.contains("step=40") && again.contains("sg=16") && again.contains("switch=per-case")
    );
    // A link leaves nothing to chance: what it does not say takes the default.
    h.state_mut()
        .apply_link(crate::gui::permalink::Link::parse("#example=if_else").unwrap());
    h.run_steps(2);
    let app = h.state();
    assert_eq!(app.settings.subgroup_size, 32);
    assert_eq!(
        app.settings.switch_tangles,
        lanescope_core::SwitchTangles::PerValue
    );
    assert_eq!(
        app.session.as_ref().unwrap().sim().config().subgroup_size,
        32
    );
}

#[test]
fn an_uploaded_module_travels_in_its_link() {
    let mut h = harness("if_else");
    let bytes = crate::examples::EXAMPLES
        .iter()
        .find(|e| e.0 == "nested_if")
        .unwrap()
        .1
        .to_vec();
    h.state_mut().open("mine.spv", bytes.clone());
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
    h.run_steps(2);
    let (fragment, complete) = h.state().link().unwrap().format();
    assert!(
        complete && fragment.contains("module=mine.spv:"),
        "{fragment}"
    );
    let mut other = harness("if_else");
    other
        .state_mut()
        .apply_link(crate::gui::permalink::Link::parse(&fragment).unwrap());
    other.run_steps(3);
    let s = other.state().session.as_ref().unwrap();
    assert_eq!((s.name.as_str(), &s.bytes), ("mine.spv", &bytes));
    assert_eq!(s.step_count(), 1);
    // A broken link is an error in the bar, and the session stays.
    other
        .state_mut()
        .apply_link(crate::gui::permalink::Link::parse("#example=no_such_thing").unwrap());
    other.run_steps(2);
    assert!(other
        .state()
        .error
        .as_deref()
        .unwrap_or("")
        .contains("no_such_thing"));
    assert_eq!(other.state().session.as_ref().unwrap().name, "mine.spv");
}

#[test]
fn a_link_opened_over_another_module_shows_its_instruction() {
    let mut h = harness("dot_int8_acc");
    for _ in 0..20 {
        h.key_press(egui::Key::F10);
        h.run_steps(1);
    }
    h.state_mut().apply_link(
        crate::gui::permalink::Link::parse("#example=coopmat_tile_f16&view=matrix&step=640")
            .unwrap(),
    );
    for _ in 0..30 {
        h.run_steps(1);
    }
    assert_eq!(steps(&h), 640);
    show_disassembly(&mut h);
    focus_line_drawn(&h);
}

/// What is saved for the next start through eframe's storage.
#[derive(Default)]
struct Saved(std::collections::HashMap<String, String>);

impl eframe::Storage for Saved {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

fn saved_settings(app: LanescopeApp) -> (LanescopeApp, Settings) {
    let mut e = crate::gui::EframeApp(app, Default::default());
    let mut store = Saved::default();
    eframe::App::save(&mut e, &mut store);
    let s = crate::gui::host::stored(Some(&store), crate::gui::host::SETTINGS_KEY)
        .expect("settings are saved");
    (e.0, s)
}

/// The schedule and the layout are kept as their names, as earlier builds kept them; a name this
/// build cannot read falls back to the default and keeps the rest of the settings.
#[test]
fn the_kept_schedule_and_layout_read_back_by_name() {
    use lanescope_core::coopmat::LayoutChoice;
    let s = Settings {
        schedule: lanescope_core::Schedule::Random(7),
        coop_layout: LayoutChoice::AmdRdna3,
        subgroup_size: 8,
        ..Settings::default()
    };
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains(r#""schedule":"random:7""#), "{json}");
    assert!(json.contains(r#""coop_layout":"amd-rdna3""#), "{json}");
    let back: Settings = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    for bad in [r#""sideways""#, "3", "null"] {
        let text = json
            .replace(r#""random:7""#, bad)
            .replace(r#""amd-rdna3""#, bad);
        let back: Settings = serde_json::from_str(&text).unwrap();
        assert_eq!(back.schedule, lanescope_core::Schedule::Default, "{bad}");
        assert_eq!(back.coop_layout, LayoutChoice::default(), "{bad}");
        assert_eq!(back.subgroup_size, 8, "{bad}");
    }
}

/// A link's settings hold for the link's session only: the saved settings stay the person's,
/// and the next example opened runs under them again.
#[test]
fn a_links_settings_do_not_become_the_saved_ones() {
    let mut h = harness("if_else");
    // The person's own choice, as the toolbar makes it.
    h.state_mut().settings.subgroup_size = 8;
    h.state_mut()
        .apply(&egui::Context::default(), Action::Reset);
    h.run_steps(2);
    h.state_mut()
        .apply_link(link("#example=loop_divergent&sg=16&switch=per-case"));
    h.run_steps(2);
    let s = h.state().session.as_ref().unwrap();
    assert_eq!(
        s.sim().config().subgroup_size,
        16,
        "the link runs as it says"
    );
    // A limit raised meanwhile is the person's and is kept.
    h.state_mut().settings.max_steps = 123_456;
    let (app, saved) = saved_settings(std::mem::replace(
        h.state_mut(),
        LanescopeApp::new(Settings::default()),
    ));
    *h.state_mut() = app;
    assert_eq!(
        (saved.subgroup_size, saved.switch_tangles, saved.max_steps),
        (8, lanescope_core::SwitchTangles::PerValue, 123_456)
    );
    // The next example runs under the person's settings again.
    h.get_by_label("Examples").click();
    h.run_steps(2);
    h.get_by_label("nested_if").click();
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.session.as_ref().unwrap().name, "nested_if.spv");
    assert_eq!(app.settings.subgroup_size, 8);
    assert_eq!(
        app.settings.switch_tangles,
        lanescope_core::SwitchTangles::PerValue
    );
    let cfg = app.session.as_ref().unwrap().sim().config();
    assert_eq!(cfg.subgroup_size, 8);
    assert_eq!(app.settings.max_steps, 123_456);
    // A lesson's settings are set aside the same way.
    h.state_mut()
        .apply(&egui::Context::default(), Action::OpenLesson(8));
    assert_eq!(h.state().settings.subgroup_size, 32);
    let (_, saved) = saved_settings(std::mem::replace(
        h.state_mut(),
        LanescopeApp::new(Settings::default()),
    ));
    assert_eq!(saved.subgroup_size, 8);
}

#[test]
fn an_edited_source_travels_in_its_link() {
    let mut h = harness("if_else");
    let t = &crate::gui::editor::TEMPLATES[1];
    let text = t.text.replace("128", "64");
    h.state_mut().open_source(crate::gui::editor::Editor::new(
        t.name,
        t.language,
        text.clone(),
    ));
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::F10);
    h.run_steps(2);
    let (fragment, complete) = h.state().link().unwrap().format();
    assert!(complete, "{fragment}");
    let mut other = harness("if_else");
    other.state_mut().apply_link(link(&fragment));
    other.run_steps(3);
    let ed = other
        .state()
        .editor
        .as_ref()
        .expect("the link opens the editor");
    assert_eq!(
        (ed.name.as_str(), ed.text.as_str()),
        (t.name, text.as_str())
    );
    assert_eq!(other.state().session.as_ref().unwrap().step_count(), 1);
}

/// Inputs changed from what the module opens with travel in its link (a buffer's words, an
/// image's texels): the link opens with them, and one that does not fit the module is an
/// error naming the binding.
#[test]
fn changed_inputs_travel_in_the_link() {
    let mut app = LanescopeApp::new(Settings::default());
    app.open_source(crate::gui::editor::Editor::new(
        "read.comp",
        lanescope_front::Language::Glsl,
        "#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, r32ui) uniform readonly uimage2D counts;
layout(std430, set = 0, binding = 1) buffer Out { uint seen[]; };
layout(std430, set = 0, binding = 2) buffer In { uint add; };
void main() {
    uint i = gl_LocalInvocationIndex;
    seen[i] = imageLoad(counts, ivec2(i, 0)).x + add;
}
"
        .into(),
    ));
    assert!(app.error.is_none(), "{:?}", app.error);
    // Unchanged, the link carries no inputs.
    assert!(app.link().unwrap().inputs.is_empty());
    for (slot, name, text) in [
        ((0, 0, 0), "c.txt", "5 6 7 8"),
        ((0, 2, 0), "a.txt", "1000"),
    ] {
        let (inputs, why) =
            crate::gui::inputs::import_file(&app, slot, name, text.as_bytes().to_vec()).unwrap();
        app.apply(
            &egui::Context::default(),
            Action::Inputs(Box::new(inputs), why),
        );
    }
    let (fragment, complete) = app.link().unwrap().format();
    assert!(complete, "{fragment}");
    assert!(
        fragment.contains("&in=0.0.0:") && fragment.contains("&in=0.2.0:"),
        "{fragment}"
    );
    assert!(
        !fragment.contains("&in=0.1.0:"),
        "the output is as it opens: {fragment}"
    );
    let mut other = LanescopeApp::new(Settings::default());
    other.apply_link(crate::gui::permalink::Link::parse(&fragment).unwrap());
    assert!(other.error.is_none(), "{:?}", other.error);
    assert_eq!(other.status, "the link's 2 inputs set");
    finish(&mut other);
    let s = other.session.as_ref().unwrap();
    let seen = s.sim().buffer(0, 1).unwrap();
    let word = |k: usize| u32::from_le_bytes(seen[k * 4..k * 4 + 4].try_into().unwrap());
    assert_eq!(
        [word(0), word(1), word(2), word(3)],
        [1005, 1006, 1007, 1008]
    );
    // An input the module has no place for, or texels of the wrong size, is named.
    let mut bad = crate::gui::permalink::Link::parse(&fragment).unwrap();
    bad.inputs[0].0 = crate::gui::permalink::InputSlot::Bound(3, 9, 0);
    other.apply_link(bad);
    assert!(
        other
            .error
            .as_deref()
            .is_some_and(|e| e.contains("no buffer or image at set 3 binding 9")),
        "{:?}",
        other.error
    );
    let mut short = crate::gui::permalink::Link::parse(&fragment).unwrap();
    let texels = short
        .inputs
        .iter_mut()
        .find(|(s, _)| *s == crate::gui::permalink::InputSlot::Bound(0, 0, 0))
        .unwrap();
    texels.1.truncate(10);
    other.apply_link(short);
    assert!(
        other
            .error
            .as_deref()
            .is_some_and(|e| e.contains("are 10 bytes; it holds 1024")),
        "{:?}",
        other.error
    );
}
