//! The tangle timeline: time runs left to right, one row per lane (grouped by subgroup); each
//! tangle is a coloured band that splits where lanes diverge and joins where they reconverge,
//! labelled with its block. A click jumps the simulator to that step.

use super::super::palette;
use super::super::session::Session;
use lanescope_core::trace::{LaneState, StepEvent};

/// A run of consecutive steps one lane executed in the same tangle and block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Band {
    pub row: usize,
    pub subgroup: u32,
    pub tangle: u64,
    /// The tangle's lanes (its colour).
    pub lanes: u128,
    pub block: u32,
    /// First and last step (inclusive) of the run.
    pub from: u64,
    pub to: u64,
}

/// A compact subgroup's one row: its lane is this marker.
pub const WHOLE: u32 = u32::MAX;

/// What a click on the timeline asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Click {
    /// Go to this step.
    Step(u64),
    /// Show this subgroup's lanes, or fold them into one band.
    Toggle(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// (subgroup, lane) of each row; a compact subgroup has one row, lane [`WHOLE`].
    pub rows: Vec<(u32, u32)>,
    pub bands: Vec<Band>,
    /// Steps shown: `first..=last`.
    pub first: u64,
    pub last: u64,
    /// The step the simulator is at (steps after it were undone and can be replayed).
    pub current: u64,
    /// Block names, by block index, for labels.
    pub block_names: Vec<String>,
}

impl Timeline {
    /// The timeline of the current workgroup over at most `span` steps ending at `end` (or at
    /// the last step recorded); the subgroups `compact` says are drawn as one band each (the
    /// tangle that ran at each step), the others lane by lane.
    pub fn build(s: &Session, span: u64, end: Option<u64>, compact: impl Fn(u32) -> bool) -> Self {
        let sim = s.sim();
        let rows: Vec<(u32, u32)> = (0..sim.subgroup_count())
            .flat_map(|g| {
                let lanes: Vec<(u32, u32)> = sim
                    .lane_states(g)
                    .into_iter()
                    .enumerate()
                    .filter(|(_, st)| *st != LaneState::Absent)
                    .map(|(l, _)| (g as u32, l as u32))
                    .collect();
                if compact(g as u32) {
                    vec![(g as u32, WHOLE)]
                } else {
                    lanes
                }
            })
            .collect();
        let size = sim.config().subgroup_size as usize;
        let row_of = |g: u32, l: u32| {
            rows.binary_search(&(g, l))
                .or_else(|_| rows.binary_search(&(g, WHOLE)))
                .ok()
        };
        let recorded_last = s.last_event_step();
        let last = end.unwrap_or(recorded_last).min(recorded_last);
        let first = last.saturating_sub(span.max(1) - 1).max(1);
        let window: Vec<&StepEvent> = s.events_in(first, last).collect();
        // Only the workgroup shown by the last step in the window.
        let wg = window.last().map(|e| e.workgroup);
        let mut open: Vec<Option<Band>> = vec![None; rows.len()];
        let mut bands = Vec::new();
        for e in window.iter().filter(|e| Some(e.workgroup) == wg) {
            for l in 0..size.min(128) as u32 {
                if e.lanes >> l & 1 == 0 {
                    continue;
                }
                let Some(row) = row_of(e.subgroup, l) else {
                    continue;
                };
                match &mut open[row] {
                    Some(b) if b.tangle == e.tangle && b.block == e.block => b.to = e.step,
                    slot => {
                        bands.extend(slot.take());
                        *slot = Some(Band {
                            row,
                            subgroup: e.subgroup,
                            tangle: e.tangle,
                            lanes: e.lanes,
                            block: e.block,
                            from: e.step,
                            to: e.step,
                        });
                    }
                }
            }
        }
        bands.extend(open.into_iter().flatten());
        Self {
            rows,
            bands,
            first,
            last,
            current: s.step_count(),
            // With line information a block also names its source lines (`%52 16-17`).
            block_names: (0..s.program.blocks().len() as u32)
                .map(|b| {
                    let name = s.program.block_name(b);
                    match crate::gui::cfg::source_lines(&s.program, b) {
                        Some(at) => {
                            let lines = at.rsplit_once(':').map_or(at.as_str(), |(_, l)| l);
                            format!("{name} {lines}")
                        }
                        None => name,
                    }
                })
                .collect(),
        }
    }

    /// The step under horizontal position `x` (0 = left edge) with `step_w` points per step.
    pub fn step_at(&self, x: f32, step_w: f32) -> u64 {
        let k = (x / step_w).floor().max(0.0) as u64;
        (self.first + k).min(self.last)
    }
}

/// Draws the timeline to fit `width`, and `height` where rows of at least 2 points allow: every
/// subgroup in sight at once. Returns what a click asked for: a step, or a subgroup's label
/// (fold or unfold its lanes).
/// What a frame of the timeline gave: a click, and where the followed subgroup's rows are.
#[derive(Default)]
pub struct Shown {
    pub click: Option<Click>,
    /// The followed subgroup's rows around the current step, on screen.
    pub followed: Option<egui::Rect>,
}

/// Draws the timeline `width` wide, fitting `height` where it can. `follow`: the subgroup the
/// steps follow (its label marked) and whether to scroll it and the current step into sight.
pub fn show(
    ui: &mut egui::Ui,
    t: &Timeline,
    width: f32,
    height: f32,
    follow: Option<(u32, bool)>,
) -> Shown {
    if t.bands.is_empty() {
        ui.weak("Nothing recorded yet: step (F10) or run (F5) and the tangles appear here.");
        return Shown::default();
    }
    let label_w = 56.0;
    let steps = (t.last - t.first + 1) as f32;
    let avail = (width - label_w - 8.0).max(100.0);
    let step_w = (avail / steps).clamp(2.0, 24.0);
    let groups = t.rows.last().map_or(0, |r| r.0 as usize + 1);
    let gap = 4.0;
    // As tall as fits (9 points at most, 2 at least: past that the area scrolls).
    let fit = (height - 18.0 - gap * groups as f32) / t.rows.len().max(1) as f32;
    let row_h = fit.floor().clamp(2.0, 9.0);
    // A compact subgroup's band is as tall as a label.
    let tall = |row: usize| {
        if t.rows[row].1 == WHOLE {
            12.0_f32.max(row_h)
        } else {
            row_h
        }
    };
    let mut tops = Vec::with_capacity(t.rows.len());
    let mut y = 16.0;
    for (i, r) in t.rows.iter().enumerate() {
        if i > 0 && t.rows[i - 1].0 != r.0 {
            y += gap;
        }
        tops.push(y);
        y += tall(i);
    }
    let height = y + 4.0;
    let (rect, resp) = ui.allocate_exact_size(
        egui::vec2(label_w + step_w * steps + 4.0, height),
        egui::Sense::click(),
    );
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Figure, true, "timeline"));
    let p = ui.painter_at(rect);
    let x0 = rect.left() + label_w;
    let row_y = |row: usize| rect.top() + tops[row];
    let font = egui::FontId::monospace(10.0);
    let text_color = ui.visuals().text_color();
    // Step ruler.
    let every = ((40.0 / step_w).ceil() as u64).max(1);
    for k in (t.first..=t.last).filter(|k| (k - t.first) % every == 0) {
        let x = x0 + (k - t.first) as f32 * step_w;
        p.text(
            egui::pos2(x, rect.top()),
            egui::Align2::LEFT_TOP,
            k.to_string(),
            font.clone(),
            ui.visuals().weak_text_color(),
        );
    }
    let mut last_group = u32::MAX;
    for (row, (g, _)) in t.rows.iter().enumerate() {
        if *g != last_group {
            last_group = *g;
            let folded = t.rows[row].1 == WHOLE;
            let followed = follow.is_some_and(|(f, _)| f == *g);
            let r = p.text(
                egui::pos2(rect.left(), row_y(row)),
                egui::Align2::LEFT_TOP,
                format!("{} sg{g}", if folded { "▸" } else { "▾" }),
                font.clone(),
                if followed {
                    ui.visuals().strong_text_color()
                } else {
                    text_color
                },
            );
            if followed {
                // Underlined: the subgroup the steps follow.
                p.hline(
                    r.x_range(),
                    r.bottom(),
                    ui.visuals().widgets.active.fg_stroke,
                );
            }
        }
    }
    for b in &t.bands {
        let y = row_y(b.row);
        let r = egui::Rect::from_min_max(
            egui::pos2(x0 + (b.from - t.first) as f32 * step_w, y),
            egui::pos2(
                x0 + (b.to - t.first + 1) as f32 * step_w,
                y + tall(b.row) - 1.0,
            ),
        );
        let mut c = palette::tangle(b.subgroup, b.lanes);
        if b.from > t.current {
            c = c.gamma_multiply(0.35);
        }
        p.rect_filled(r, 0.0, c);
    }
    // Block labels: once per block run of the first row of each band group wide enough.
    let mut labelled = std::collections::HashSet::new();
    for b in &t.bands {
        let w = (b.to - b.from + 1) as f32 * step_w;
        if w < 30.0 || !labelled.insert((b.subgroup, b.tangle, b.block, b.from)) {
            continue;
        }
        let top_row = t
            .bands
            .iter()
            .filter(|o| o.subgroup == b.subgroup && o.tangle == b.tangle && o.from == b.from)
            .map(|o| o.row)
            .min()
            .unwrap_or(b.row);
        if top_row != b.row {
            continue;
        }
        let name = t
            .block_names
            .get(b.block as usize)
            .map_or("", String::as_str);
        p.text(
            egui::pos2(x0 + (b.from - t.first) as f32 * step_w + 2.0, row_y(b.row)),
            egui::Align2::LEFT_TOP,
            name,
            egui::FontId::proportional(10.0),
            palette::text_on(palette::tangle(b.subgroup, b.lanes)),
        );
    }
    if (t.first..=t.last).contains(&t.current) {
        let x = x0 + (t.current - t.first + 1) as f32 * step_w;
        p.line_segment(
            [
                egui::pos2(x, rect.top() + 12.0),
                egui::pos2(x, rect.bottom()),
            ],
            egui::Stroke::new(2.0, ui.visuals().strong_text_color()),
        );
    }
    let mut followed = None;
    if let Some((g, scroll)) = follow {
        let rows: Vec<usize> = (0..t.rows.len()).filter(|&r| t.rows[r].0 == g).collect();
        if let (Some(&a), Some(&b)) = (rows.first(), rows.last()) {
            let x = x0 + (t.current.clamp(t.first, t.last) - t.first) as f32 * step_w;
            let target = egui::Rect::from_x_y_ranges(
                (x - 40.0).max(rect.left())..=(x + 40.0).min(rect.right()),
                row_y(a)..=(row_y(b) + tall(b)),
            );
            if scroll {
                // At once: an animated scroll is a dozen full repaints a step.
                ui.scroll_to_rect_animation(target, None, egui::style::ScrollAnimation::none());
            }
            followed = Some(target);
        }
    }
    let hover_pos = resp.hover_pos();
    let row_at = |y: f32| {
        t.rows.iter().enumerate().position(|(i, _)| {
            let top = row_y(i);
            y >= top && y < top + tall(i)
        })
    };
    let resp = if let Some(pos) = hover_pos.filter(|p| p.x < x0) {
        match row_at(pos.y) {
            Some(r) if t.rows[r].1 == WHOLE => resp.on_hover_text("click to show the lanes"),
            Some(_) => resp.on_hover_text("click to fold the lanes into one band"),
            None => resp,
        }
    } else if let Some(pos) = hover_pos.filter(|p| p.x >= x0) {
        let step = t.step_at(pos.x - x0, step_w);
        let row = row_at(pos.y);
        let text = match row.and_then(|r| {
            t.bands
                .iter()
                .find(|b| b.row == r && (b.from..=b.to).contains(&step))
        }) {
            Some(b) => format!(
                "step {step}: subgroup {} {} in tangle {} at {}\nclick to go to step {step}",
                b.subgroup,
                if t.rows[b.row].1 == WHOLE {
                    format!("lanes {}", lanescope_core::view::LaneMask(b.lanes).ranges())
                } else {
                    format!("lane {}", t.rows[b.row].1)
                },
                b.tangle,
                t.block_names
                    .get(b.block as usize)
                    .map_or("?", String::as_str)
            ),
            None => format!("step {step}\nclick to go to step {step}"),
        };
        resp.on_hover_text(text)
    } else {
        resp
    };
    let mut click = None;
    if resp.clicked() {
        if let Some(pos) = resp.interact_pointer_pos() {
            click = if pos.x >= x0 {
                Some(Click::Step(t.step_at(pos.x - x0, step_w)))
            } else {
                row_at(pos.y).map(|r| Click::Toggle(t.rows[r].0))
            };
        }
    }
    Shown { click, followed }
}

#[cfg(test)]
mod tests {
    use super::Timeline;
    use crate::gui::session::{Session, Settings};

    fn session(name: &str) -> Session {
        let (n, bytes, _) = crate::examples::EXAMPLES
            .iter()
            .find(|e| e.0 == name)
            .unwrap();
        Session::open(n, bytes.to_vec(), &Settings::default()).unwrap()
    }

    #[test]
    fn blocks_with_line_information_name_their_lines() {
        let t = &crate::gui::editor::TEMPLATES[0];
        let opts = lanescope_front::CompileOptions {
            file_name: t.name.into(),
            ..Default::default()
        };
        let c = lanescope_front::compile(t.language, t.text, &opts).unwrap();
        let mut s = Session::open(t.name, c.bytes(), &Settings::default()).unwrap();
        for _ in 0..40 {
            s.step().unwrap();
        }
        let tl = Timeline::build(&s, u64::MAX, None, |_| false);
        // The loop body (lines 16-17 of the template) is labelled with them.
        assert!(
            tl.block_names.iter().any(|n| n.ends_with(" 16-17")),
            "{:?}",
            tl.block_names
        );
    }

    /// Folded, a subgroup is one row: at each step the tangle that ran, so every step the
    /// subgroup took is covered once, and the if's two sides follow each other on it.
    #[test]
    fn a_folded_subgroup_is_one_band_of_the_tangles_that_ran() {
        let mut s = session("if_else");
        while s.step().unwrap() {}
        let t = Timeline::build(&s, u64::MAX, None, |g| g == 0);
        assert_eq!(t.rows[0], (0, super::WHOLE));
        assert_eq!(
            t.rows.len(),
            1 + 32,
            "subgroup 0 folded, subgroup 1 lane by lane"
        );
        let row0: Vec<_> = t.bands.iter().filter(|b| b.row == 0).collect();
        let covered: u64 = row0.iter().map(|b| b.to - b.from + 1).sum();
        let steps = s.sim().trace().iter().filter(|e| e.subgroup == 0).count() as u64;
        assert_eq!(covered, steps);
        let sides: std::collections::BTreeSet<u128> = row0.iter().map(|b| b.lanes).collect();
        assert!(
            sides.len() >= 3,
            "whole subgroup, then two sides: {sides:x?}"
        );
    }

    #[test]
    fn bands_split_at_divergence_and_join_at_the_merge() {
        let mut s = session("if_else");
        while s.step().unwrap() {}
        let t = Timeline::build(&s, u64::MAX, None, |_| false);
        assert_eq!(t.rows.len(), 64, "two subgroups of 32 lanes");
        assert_eq!(t.first, 1);
        assert_eq!(t.last, s.step_count());
        // Every step of every lane is covered by exactly one band.
        let covered: u64 = t.bands.iter().map(|b| b.to - b.from + 1).sum();
        let executed: u64 = s.sim().stats().lane_instructions;
        assert_eq!(covered, executed);
        // Lane 0 of subgroup 0 starts in one tangle with all 32 lanes, is in a smaller tangle
        // inside the if, and is back with all 32 after the merge.
        let lane0: Vec<_> = t.bands.iter().filter(|b| b.row == 0).collect();
        let members = |b: &super::Band| {
            s.sim()
                .trace()
                .iter()
                .find(|e| e.step == b.from)
                .unwrap()
                .lanes
                .count_ones()
        };
        assert_eq!(members(lane0[0]), 32);
        assert!(lane0.iter().any(|b| members(b) < 32), "diverges");
        assert_eq!(members(lane0.last().unwrap()), 32, "reconverges");
        // Bands of one row never overlap and are in order.
        for w in lane0.windows(2) {
            assert!(w[0].to < w[1].from);
        }
    }

    #[test]
    fn a_window_shows_only_its_steps_and_undone_steps_stay_visible() {
        let mut s = session("loop_divergent");
        for _ in 0..50 {
            s.step().unwrap();
        }
        let t = Timeline::build(&s, 10, None, |_| false);
        assert_eq!((t.first, t.last), (41, 50));
        assert!(t.bands.iter().all(|b| b.from >= 41 && b.to <= 50));
        s.goto(30).unwrap();
        assert_eq!(s.step_count(), 30);
        let t = Timeline::build(&s, 100, None, |_| false);
        assert_eq!(t.current, 30);
        assert_eq!(t.last, 50, "the undone steps are still shown");
        s.goto(45).unwrap();
        assert_eq!(s.step_count(), 45);
        assert_eq!(s.events().count(), 50, "replayed steps are the same steps");
        s.step().unwrap();
        assert_eq!(s.events().count(), 46, "a new step forgets the undone ones");
        assert_eq!(t.step_at(25.0, 10.0), 3);
        assert_eq!(t.step_at(1e9, 10.0), 50);
    }
}
