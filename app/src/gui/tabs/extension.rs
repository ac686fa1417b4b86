//! The extension views' tabs: timeline, rotate, dot product, matrix and compare, each shown for the instruction the session is at (or saying why there is none).

use crate::gui::session::sibling_order_name;
use crate::gui::session::Settings;
use crate::gui::state::LanescopeApp;
use crate::gui::views;
use lanescope_core::trace::LaneState;
use lanescope_core::Schedule;

use crate::gui::state::CompareOption;

pub(super) fn timeline_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    ui.horizontal_wrapped(|ui| {
        ui.add(
            egui::Slider::new(&mut app.timeline_span, 20..=5000)
                .logarithmic(true)
                .text("steps shown"),
        );
        ui.weak(
            "bands: tangles (colour) per lane; white line: the current step; faded: undone steps",
        );
    });
    let width = visible_width(ui);
    let height = ui.available_height();
    // Lane by lane while every lane gets 4 points; past that one band per subgroup. A click on
    // a subgroup's label flips it.
    let sim = s.sim();
    let lanes: usize = (0..sim.subgroup_count())
        .map(|g| {
            sim.lane_states(g)
                .iter()
                .filter(|l| **l != LaneState::Absent)
                .count()
        })
        .sum();
    let folded = lanes as f32 * 4.0 + 18.0 + 4.0 * sim.subgroup_count() as f32 > height;
    let flipped = &app.timeline_flipped;
    let t = views::timeline::Timeline::build(s, app.timeline_span, None, |g| {
        folded != flipped.contains(&g)
    });
    // The subgroup a step follows: its label marked, and its rows and the current step
    // scrolled into sight whenever either changes.
    let follow = app.line_step_tangle().map(|(g, _)| g as u32);
    let seen = (s.step_count(), follow);
    let scroll = app.timeline_seen != Some(seen);
    app.timeline_seen = Some(seen);
    let out = egui::ScrollArea::both()
        .id_salt("timeline")
        // No wider than what is on screen, or scrolling to the current step stops short.
        .max_width(width + 12.0)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            views::timeline::show(ui, &t, width, height, follow.map(|g| (g, scroll)))
        });
    app.timeline_view = out
        .inner
        .followed
        .map(|f| (f, ui.clip_rect().intersect(out.inner_rect)));
    match out.inner.click {
        Some(views::timeline::Click::Step(step)) => app.ask(crate::gui::ask::Action::go_to(step)),
        Some(views::timeline::Click::Toggle(g)) if !app.timeline_flipped.remove(&g) => {
            app.timeline_flipped.insert(g);
        }
        Some(views::timeline::Click::Toggle(_)) => {}
        None => {}
    }
}

/// Width from the cursor to the right edge of what is on screen (a wide row above can make
/// `available_width` larger than the panel).
pub(in crate::gui) fn visible_width(ui: &egui::Ui) -> f32 {
    (ui.clip_rect().right() - ui.cursor().min.x - 12.0).max(100.0)
}

pub(super) fn no_site(ui: &mut egui::Ui, what: &str) {
    ui.weak(format!(
        "No {what} here. This view explains the {what} the last step executed, or one a tangle \
         is about to execute: step (F10) or run to a breakpoint on one."
    ));
}

pub(super) fn rotate_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    let Some(site) = views::find_site_since(
        s,
        app.selected_tangle,
        app.last_unit_start,
        views::rotate::is_rotate,
    ) else {
        no_site(ui, "OpGroupNonUniformRotateKHR");
        return;
    };
    let Some(v) = views::rotate::RotateView::build(s, &site) else {
        return;
    };
    let now = ui.input(|i| i.time);
    let step = s.step_count();
    if app.rotate_anim.0 != step {
        app.rotate_anim = (step, now);
    }
    let progress = if site.executed {
        ((now - app.rotate_anim.1) / 0.8).clamp(0.0, 1.0) as f32
    } else {
        1.0
    };
    if progress < 1.0 {
        ui.ctx().request_repaint();
    }
    let width = visible_width(ui);
    egui::ScrollArea::both()
        .id_salt("rotate")
        .auto_shrink([false, false])
        .show(ui, |ui| views::rotate::show(ui, &v, progress, width));
}

pub(super) fn dot_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    let Some(site) = views::find_site_since(
        s,
        app.selected_tangle,
        app.last_unit_start,
        views::dot::is_dot,
    ) else {
        no_site(ui, "integer dot product");
        return;
    };
    let Some(v) = views::dot::DotView::build(s, &site) else {
        return;
    };
    let lane = app
        .selected_lane
        .filter(|(g, _)| *g == site.subgroup)
        .map(|(_, l)| l);
    let picked = views::dot::show(ui, &v, lane);
    if let Some(l) = picked {
        app.selected_lane = Some((site.subgroup, l));
    }
}

pub(super) fn compare_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    use views::compare::Variant;
    let (options, refused) = compare_options(app);
    if !options.iter().any(|o| o.0 == app.compare_variant) {
        app.compare_variant = Variant::Switch;
    }
    let current = options
        .iter()
        .find(|o| o.0 == app.compare_variant)
        .map_or(String::new(), |o| o.1.clone());
    ui.horizontal_wrapped(|ui| {
        ui.label("A: the current settings. B: the same but");
        egui::ComboBox::from_id_salt("compare-variant")
            .selected_text(current)
            .show_ui(ui, |ui| {
                for (v, label) in options {
                    if ui
                        .selectable_value(&mut app.compare_variant, v, label)
                        .changed()
                    {
                        app.comparison = None;
                    }
                }
            });
        if let Some(r) = &app.compare_runner {
            let [a, b] = r.progress();
            ui.spinner();
            ui.label(format!("running: {a} and {b} steps"));
            if ui.button("Cancel").clicked() {
                app.compare_runner = None;
            }
        } else if ui.button("Run both").clicked() {
            app.ask(crate::gui::ask::Action::Compare);
        }
        if !refused.is_empty() {
            ui.weak(format!("({} more do not apply)", refused.len()))
                .on_hover_text(
                    refused
                        .iter()
                        .map(|((_, label), why)| format!("{label}: {why}"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
        }
    });
    ui.horizontal_wrapped(|ui| {
        if app.gpu_job.is_some() {
            ui.spinner();
            ui.label("running on the GPU…");
        } else {
            // In the browser: a WGSL source, through the page's WebGPU.
            let can = cfg!(not(target_arch = "wasm32"))
                || app.editor.as_ref().is_some_and(|e| {
                    e.language == lanescope_front::Language::Wgsl && !e.stale
                });
            let r = ui.add_enabled(can, egui::Button::new("Run on GPU").shortcut_text("Ctrl+Shift+G"));
            if r.clicked() {
                app.ask(crate::gui::ask::Action::RunOnGpu);
            }
            r.on_hover_text(if cfg!(target_arch = "wasm32") {
                "The same dispatch on this page's WebGPU adapter: every buffer word compared with the simulation's, each difference explained (undefined, schedule, left open, precision, unexplained)."
            } else {
                "The same dispatch on this machine's Vulkan device: every buffer word compared with the simulation's, each difference explained (undefined, schedule, left open, precision, unexplained)."
            })
                .on_disabled_hover_text(crate::gui::gpu_job::BROWSER);
        }
    });
    if let Some(r) = &app.gpu_report {
        // The whole view until Run both has a result too; then half of it.
        let share = if app.comparison.is_some() { 0.5 } else { 1.0 };
        egui::ScrollArea::both()
            .id_salt("compare-gpu")
            .auto_shrink([false, true])
            .max_height(ui.available_height() * share)
            .show(ui, |ui| views::compare::show_gpu(ui, r));
        if app.comparison.is_none() {
            return;
        }
        ui.separator();
    }
    let Some(c) = &app.comparison else {
        if app.compare_runner.is_none() {
            ui.weak("Run both to the end, then see the first step where they part and the buffer words that differ.");
        }
        return;
    };
    let mut go = None;
    if let Some(s) = &app.session {
        let prog = std::sync::Arc::clone(&s.program);
        egui::ScrollArea::vertical()
            .id_salt("compare")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                go = views::compare::show(ui, c, &|b| prog.block_name(b))
            });
    }
    if let Some(step) = go {
        app.ask(crate::gui::ask::Action::go_to(step));
    }
}

pub(super) fn matrix_tab(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let mut relayout = None;
    // A layout with no fragment for this module's matrix types is shown, greyed, with why.
    let (_, refused) = compare_options(app);
    ui.horizontal(|ui| {
        egui::ComboBox::from_label("Fragment layout")
            .selected_text(app.settings.coop_layout.name())
            .show_ui(ui, |ui| {
                for l in lanescope_core::coopmat::LayoutChoice::builtin() {
                    let name = l.name();
                    let why = refused.iter().find_map(|((v, _), why)| {
                        (*v == views::compare::Variant::Layout(l.clone())).then_some(why)
                    });
                    let r = ui.add_enabled(
                        why.is_none(),
                        egui::Button::selectable(app.settings.coop_layout == l, &name),
                    );
                    if let Some(why) = why {
                        r.on_disabled_hover_text(why);
                    } else if r.clicked() && app.settings.coop_layout != l {
                        relayout = Some(l);
                    }
                }
            });
        ui.weak("click an element: its lane's elements light up; in a Result, the row of A and column of B that fed it");
    });
    if let Some(l) = relayout {
        // The layout is a load-time choice: reload at the same step, so the grids re-colour
        // over the same values.
        let step = app.session.as_ref().map_or(0, |s| s.step_count());
        let settings = Box::new(Settings {
            coop_layout: l,
            ..app.settings.clone()
        });
        app.ask(crate::gui::ask::Action::Settings {
            settings,
            restart: true,
        });
        app.ask(crate::gui::ask::Action::go_to(step));
    }
    let Some(s) = &app.session else { return };
    let site = views::find_site_since(
        s,
        app.selected_tangle,
        app.last_unit_start,
        views::matrix::is_muladd,
    );
    let g = app.selected_tangle.map_or(0, |t| t.0);
    let v = views::matrix::MatrixView::build(s, site.as_ref(), app.selected_id, g);
    if v.grids.is_empty() {
        no_site(ui, "OpCooperativeMatrixMulAddKHR (or selected matrix id)");
        return;
    }
    let avail = egui::vec2(visible_width(ui), ui.available_height());
    egui::ScrollArea::both()
        .id_salt("matrix")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            views::matrix::show(ui, &v, &mut app.matrix_sel, avail)
        });
}

/// What the Compare view offers, and how many settings it left out (with why), kept until the
/// module or the settings change: the layouts and sizes are tried by loading the module.
pub(in crate::gui) fn compare_options(
    app: &mut LanescopeApp,
) -> (Vec<CompareOption>, Vec<(CompareOption, String)>) {
    // The module by its program's allocation: the cache holds a `Weak` to it, so the address
    // cannot be reused by another module while the entry lives.
    let program = app.session.as_ref().map_or_else(std::sync::Weak::new, |s| {
        std::sync::Arc::downgrade(&s.program)
    });
    if let Some(((p, st), offered, refused)) = &app.compare_options {
        if p.ptr_eq(&program) && *st == app.settings {
            return (offered.clone(), refused.clone());
        }
    }
    let key = (program, app.settings.clone());
    let mut offered = Vec::new();
    let mut refused = Vec::new();
    for (v, label) in all_compare_options(app) {
        match app
            .session
            .as_ref()
            .and_then(|s| views::compare::refusal(s, &app.settings, &v))
        {
            Some(why) => refused.push(((v, label), why)),
            None => offered.push((v, label)),
        }
    }
    app.compare_options = Some((key, offered.clone(), refused.clone()));
    (offered, refused)
}

/// Every setting the second run could change, before trying which the module takes.
pub(super) fn all_compare_options(app: &LanescopeApp) -> Vec<CompareOption> {
    use views::compare::Variant;
    let st = &app.settings;
    let mut options = vec![(
        Variant::Switch,
        format!(
            "switch grouping ({})",
            match st.switch_tangles {
                lanescope_core::SwitchTangles::PerCase => "per-value",
                lanescope_core::SwitchTangles::PerValue => "per-case",
            }
        ),
    )];
    for n in [4u32, 8, 16, 32, 64, 128]
        .into_iter()
        .filter(|n| *n != st.subgroup_size)
    {
        options.push((Variant::SubgroupSize(n), format!("subgroup size {n}")));
    }
    // Fragment layouts only matter to a module with cooperative matrices.
    let has_coop = app
        .session
        .as_ref()
        .is_some_and(|s| s.program.uses_coop_matrices());
    for l in lanescope_core::coopmat::LayoutChoice::builtin()
        .into_iter()
        .filter(|_| has_coop)
    {
        if l != st.coop_layout {
            options.push((
                Variant::Layout(l.clone()),
                format!("fragment layout {}", l.name()),
            ));
        }
    }
    for o in crate::gui::session::SIBLING_ORDERS
        .map(|(_, o)| o)
        .into_iter()
        .filter(|o| *o != st.sibling_order)
    {
        options.push((
            Variant::Order(o),
            format!("sibling order: {}", sibling_order_name(o)),
        ));
    }
    for sc in [
        Schedule::Default,
        Schedule::Reverse,
        Schedule::Random(1),
        Schedule::Random(2),
    ]
    .into_iter()
    .filter(|sc| *sc != st.schedule)
    {
        options.push((
            Variant::Schedule(sc),
            format!("schedule: {sc} (which subgroup runs first)"),
        ));
    }
    options
}
