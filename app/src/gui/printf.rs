//! The Printf panel: the debugPrintf lines printed so far, each with its invocation, subgroup,
//! lane, step and source line; a filter by lane; a click goes to the line's step. Lines the
//! current step printed are highlighted.

use super::ask::{Action, Jump};
use crate::gui::state::LanescopeApp;
use lanescope_core::printf::PrintfLog;
use lanescope_core::program::Program;

/// One line as the panel shows it.
#[derive(Debug, PartialEq, Eq)]
pub struct Row {
    /// `inv 5 · sg 0 lane 5 · step 12 · line 9`
    pub who: String,
    pub text: String,
    pub step: u64,
    pub instruction: u32,
    pub line: Option<u32>,
    /// Printed by the current step.
    pub current: bool,
}

/// The indices of the lines of `lane` (all lines without a filter).
pub fn matching(log: &PrintfLog, lane: Option<u32>) -> Vec<usize> {
    log.iter()
        .enumerate()
        .filter(|(_, l)| lane.is_none_or(|x| l.lane == x))
        .map(|(k, _)| k)
        .collect()
}

/// Line `k` of `log` as a row, `step` being the current step; `workgroups`: name the
/// workgroup (a dispatch of several).
pub fn row(
    log: &PrintfLog,
    program: &Program,
    k: usize,
    step: u64,
    workgroups: bool,
) -> Option<Row> {
    let l = log.get(k)?;
    let line = program.source_ref(l.instruction).line;
    let [x, y, z] = l.workgroup;
    let mut who = format!(
        "inv {} · sg {} lane {} · step {}",
        l.invocation, l.subgroup, l.lane, l.step
    );
    if workgroups {
        who = format!("wg {x},{y},{z} · {who}");
    }
    if let Some(n) = line {
        who.push_str(&format!(" · line {n}"));
    }
    Some(Row {
        who,
        text: l.text.trim_end_matches('\n').to_owned(),
        step: l.step,
        instruction: l.instruction,
        line,
        current: l.step == step,
    })
}

pub fn panel(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else { return };
    let sim = s.sim();
    let log = sim.printf_lines();
    if log.is_empty() {
        ui.weak("No lines yet: GLSL's debugPrintfEXT and HLSL's printf print here.");
        return;
    }
    // The lane filter lives in egui's memory: it is a view setting, not the session's.
    let id = ui.scope_id().with("printf-lane");
    let mut filter: String = ui.data_mut(|d| d.get_temp(id).unwrap_or_default());
    ui.horizontal(|ui| {
        ui.label("Lane");
        ui.add(
            egui::TextEdit::singleline(&mut filter)
                .desired_width(48.0)
                .hint_text("all"),
        )
        .on_hover_text("Show only the lines this lane printed (empty: every lane)");
        if log.dropped() > 0 {
            ui.weak(format!("{} lines dropped (Limits)", log.dropped()));
        }
    });
    ui.data_mut(|d| d.insert_temp(id, filter.clone()));
    let lane = filter.trim().parse::<u32>().ok();
    let shown = matching(log, lane);
    let step = sim.stats().steps;
    let program = std::sync::Arc::clone(&s.program);
    let workgroups = sim.config().workgroups.iter().product::<u32>() > 1;
    let mut jump = None;
    let height = ui.text_style_height(&egui::TextStyle::Monospace) * 2.4;
    egui::ScrollArea::vertical()
        .id_salt("printf-lines")
        .max_height(260.0)
        .stick_to_bottom(true)
        .show_rows(ui, height, shown.len(), |ui, range| {
            for &k in &shown[range] {
                let Some(r) = row(sim.printf_lines(), &program, k, step, workgroups) else {
                    continue;
                };
                let mut text = egui::RichText::new(&r.text).monospace();
                if r.current {
                    text = text
                        .strong()
                        .background_color(ui.visuals().selection.bg_fill);
                }
                ui.vertical(|ui| {
                    ui.weak(&r.who);
                    if ui
                        .add(egui::Label::new(text).sense(egui::Sense::click()))
                        .on_hover_text("Go to the step that printed this line")
                        .clicked()
                    {
                        jump = Some((r.step, r.instruction, r.line));
                    }
                });
            }
        });
    if let Some((step, instruction, line)) = jump {
        app.ask(Action::GoTo(Jump {
            step,
            instruction: Some(instruction as usize),
            source_line: line.map(|n| n as usize),
            status: None,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::{matching, row};
    use lanescope_core::{load, Bindings, Config, LoadOptions, Simulator};
    use std::sync::Arc;

    #[test]
    fn rows_filter_by_lane_and_mark_the_current_step() {
        let bytes = include_bytes!("../../../core/tests/data/printf/printf_divergent.spv");
        let prog = Arc::new(load(bytes, &LoadOptions::default()).unwrap());
        let b = Bindings {
            buffers: vec![(0, 0, vec![0; 32])],
            ..Bindings::default()
        };
        let mut sim = Simulator::new(Arc::clone(&prog), Config::default(), &b).unwrap();
        // Up to the step that prints the even lanes' lines.
        while sim.printf_lines().is_empty() {
            assert!(sim.step().unwrap());
        }
        let step = sim.stats().steps;
        let log = sim.printf_lines();
        assert_eq!(matching(log, None), vec![0, 1, 2, 3]);
        assert_eq!(matching(log, Some(2)), vec![1]);
        assert!(matching(log, Some(1)).is_empty());
        let r = row(log, &prog, 1, step, false).unwrap();
        assert_eq!(r.text, "even 2 v=106");
        assert_eq!(r.who, format!("inv 2 · sg 0 lane 2 · step {step}"));
        assert!(r.current);
        assert!(!row(log, &prog, 1, step + 1, true).unwrap().current);
        assert!(row(log, &prog, 1, step, true)
            .unwrap()
            .who
            .starts_with("wg 0,0,0 · "));
        sim.run(10_000).unwrap();
        let log = sim.printf_lines();
        assert_eq!(matching(log, Some(1)), vec![4, 9]);
    }
}
