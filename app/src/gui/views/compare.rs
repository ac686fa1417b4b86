//! Compare: the same module under two settings (switch grouping, subgroup size, fragment
//! layout, sibling order), run side by side to the end; the first step where they part and the
//! buffer words that end up different.

use crate::gui::session::{Session, Settings};
use lanescope_core::trace::StepEvent;
use lanescope_core::Outcome;
use lanescope_core::{load, Simulator};
use lanescope_core::{NamedSetting, SwitchTangles};
use std::sync::Arc;

/// What the second run changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The other switch grouping.
    Switch,
    SubgroupSize(u32),
    Layout(lanescope_core::coopmat::LayoutChoice),
    Order(lanescope_core::SiblingOrder),
    /// Another schedule: which subgroup runs first.
    Schedule(lanescope_core::Schedule),
}

impl Variant {
    pub fn apply(&self, base: &Settings) -> Settings {
        let mut s = base.clone();
        match self {
            Self::Switch => {
                s.switch_tangles = match s.switch_tangles {
                    SwitchTangles::PerValue => SwitchTangles::PerCase,
                    SwitchTangles::PerCase => SwitchTangles::PerValue,
                }
            }
            Self::SubgroupSize(n) => s.subgroup_size = *n,
            Self::Layout(l) => s.coop_layout.clone_from(l),
            Self::Order(o) => s.sibling_order = *o,
            Self::Schedule(x) => s.schedule = *x,
        }
        s
    }
}

/// A short description of the settings a variant touches.
pub fn describe(s: &Settings, v: &Variant) -> String {
    match v {
        Variant::Switch => {
            format!("{} switch", s.switch_tangles.name())
        }
        Variant::SubgroupSize(_) => format!("subgroup size {}", s.subgroup_size),
        Variant::Layout(_) => format!("layout {}", s.coop_layout.name()),
        Variant::Order(_) => crate::gui::session::sibling_order_name(s.sibling_order).to_owned(),
        Variant::Schedule(_) => format!("schedule {}", s.schedule),
    }
}

/// Why the second run cannot be made for this module, if it cannot: a fragment layout with no
/// fragment for the module's matrix types, or a subgroup size its cooperative matrices or
/// workgroup cannot take, is refused when the module loads. Only the settings that load or size
/// differently are tried; the others always apply.
pub fn refusal(s: &Session, base: &Settings, v: &Variant) -> Option<String> {
    if !matches!(v, Variant::SubgroupSize(_) | Variant::Layout(_)) {
        return None;
    }
    let st = v.apply(base);
    match load(&s.bytes, &s.load_options(&st)) {
        Err(e) => Some(e.to_string()),
        Ok(p) => Simulator::new(Arc::new(p), st.config(), &s.initial)
            .err()
            .map(|e| e.to_string()),
    }
}

/// Two runs being advanced a slice at a time, so the UI keeps drawing.
pub struct Runner {
    pub labels: [String; 2],
    pub sims: [Simulator; 2],
    pub done: [bool; 2],
    limit: u64,
}

impl Runner {
    pub fn new(s: &Session, base: &Settings, v: &Variant) -> Result<Self, String> {
        let other = v.apply(base);
        let make = |st: &Settings| -> Result<Simulator, String> {
            let prog = Arc::new(
                load(&s.bytes, &s.load_options(st))
                    .map_err(|e| format!("{}: {e}", describe(st, v)))?,
            );
            Simulator::new(prog, st.config(), &s.initial)
                .map_err(|e| format!("{}: {e}", describe(st, v)))
        };
        Ok(Self {
            labels: [describe(base, v), describe(&other, v)],
            sims: [make(base)?, make(&other)?],
            done: [false; 2],
            limit: base.max_steps,
        })
    }

    /// Runs up to `budget` steps of each; true when both have finished.
    pub fn advance(&mut self, budget: u64) -> Result<bool, String> {
        for (k, sim) in self.sims.iter_mut().enumerate() {
            if self.done[k] {
                continue;
            }
            if sim.stats().steps >= self.limit {
                return Err(format!(
                    "{}: stopped at the step limit ({} steps); raise it in the Limits menu",
                    self.labels[k], self.limit
                ));
            }
            let b = budget.min(self.limit - sim.stats().steps);
            self.done[k] =
                sim.run(b).map_err(|e| format!("{}: {e}", self.labels[k]))? == Outcome::Finished;
        }
        Ok(self.done == [true; 2])
    }

    pub fn progress(&self) -> [u64; 2] {
        [self.sims[0].stats().steps, self.sims[1].stats().steps]
    }
}

/// One step with its lanes as workgroup invocation indices, so runs with different subgroup
/// sizes compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Normal {
    pub workgroup: u32,
    pub block: u32,
    /// Position within the block's lowered instructions.
    pub pos: u32,
    pub invocations: Vec<u32>,
}

fn normal(e: &StepEvent, size: u32) -> Normal {
    Normal {
        workgroup: e.workgroup,
        block: e.block,
        pos: e.pos,
        invocations: (0..size.min(128))
            .filter(|l| e.lanes >> l & 1 == 1)
            .map(|l| e.subgroup * size + l)
            .collect(),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordDiff {
    pub word: usize,
    pub a: u32,
    pub b: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferDiff {
    pub set: u32,
    pub binding: u32,
    pub name: String,
    /// Every differing word (the view shows the first ones).
    pub words: Vec<WordDiff>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub labels: [String; 2],
    pub steps: [u64; 2],
    /// The first step (1-based) where the runs execute something different, with what each
    /// executes there (None past the end of the shorter run).
    pub first_difference: Option<(u64, Option<Normal>, Option<Normal>)>,
    /// Steps compared: both traces are cut at the trace limit.
    pub compared_steps: u64,
    pub buffers: Vec<BufferDiff>,
    pub diagnostics: [usize; 2],
}

impl Comparison {
    pub fn of(r: &Runner, s: &Session) -> Self {
        let [a, b] = &r.sims;
        let (sa, sb) = (a.config().subgroup_size, b.config().subgroup_size);
        let (ta, tb) = (a.trace(), b.trace());
        let n = ta.len().max(tb.len());
        let mut first = None;
        for i in 0..n {
            let x = ta.get(i).map(|e| normal(e, sa));
            let y = tb.get(i).map(|e| normal(e, sb));
            if x != y {
                first = Some((i as u64 + 1, x, y));
                break;
            }
        }
        let buffers = s
            .program
            .resources()
            .iter()
            .filter(|r| !r.push_constant && !r.uniform)
            .filter_map(|res| {
                let x = a.resource_buffer(res)?;
                let y = b.resource_buffer(res)?;
                let word = |d: &[u8], i: usize| {
                    d.get(i * 4..i * 4 + 4)
                        .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                };
                let words: Vec<WordDiff> = (0..x.len().max(y.len()).div_ceil(4))
                    .filter(|&i| word(x, i) != word(y, i))
                    .map(|i| WordDiff {
                        word: i,
                        a: word(x, i),
                        b: word(y, i),
                    })
                    .collect();
                (!words.is_empty()).then(|| BufferDiff {
                    set: res.set,
                    binding: res.binding,
                    name: res.name.clone(),
                    words,
                })
            })
            .collect();
        Self {
            labels: r.labels.clone(),
            steps: r.progress(),
            first_difference: first,
            compared_steps: n as u64,
            buffers,
            diagnostics: [a.diagnostics().len(), b.diagnostics().len()],
        }
    }
}

/// Draws a comparison; returns a step to go to in the main run (only offered when the main run
/// uses the first settings).
pub fn show(ui: &mut egui::Ui, c: &Comparison, block_name: &dyn Fn(u32) -> String) -> Option<u64> {
    let mut go = None;
    ui.horizontal_wrapped(|ui| {
        ui.label(format!(
            "A: {} ({} steps, {} diagnostics)   B: {} ({} steps, {} diagnostics)",
            c.labels[0], c.steps[0], c.diagnostics[0], c.labels[1], c.steps[1], c.diagnostics[1]
        ));
    });
    match &c.first_difference {
        None => {
            ui.label(format!(
                "Both runs execute the same {} steps.",
                c.compared_steps
            ));
        }
        Some((step, x, y)) => {
            let show_one = |n: &Option<Normal>| match n {
                Some(n) => format!(
                    "{} instruction {} with invocations {}",
                    block_name(n.block),
                    n.pos,
                    ranges(&n.invocations)
                ),
                None => "nothing (its run has ended)".into(),
            };
            ui.horizontal_wrapped(|ui| {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!("The runs part at step {step}."),
                );
                if ui
                    .button("Go there (A)")
                    .on_hover_text(format!("The main run, just before step {step}"))
                    .clicked()
                {
                    go = Some(step - 1);
                }
            });
            ui.label(format!("A runs {}", show_one(x)));
            ui.label(format!("B runs {}", show_one(y)));
        }
    }
    ui.separator();
    if c.buffers.is_empty() {
        ui.label("Every buffer ends with the same contents.");
    }
    for b in &c.buffers {
        ui.strong(format!(
            "{} (set {}, binding {}): {} words differ",
            b.name,
            b.set,
            b.binding,
            b.words.len()
        ));
        egui::Grid::new(("compare", b.set, b.binding)).show(ui, |ui| {
            let mut stripes = crate::gui::palette::Stripes::new(ui);
            ui.label("word");
            ui.label("A");
            ui.label("B");
            stripes.end_row(ui);
            for w in b.words.iter().take(64) {
                ui.monospace(w.word.to_string());
                ui.monospace(format!("{:#010x}", w.a));
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    egui::RichText::new(format!("{:#010x}", w.b)).monospace(),
                );
                stripes.end_row(ui);
            }
        });
        if b.words.len() > 64 {
            ui.weak(format!("… and {} more", b.words.len() - 64));
        }
    }
    go
}

/// Draws Compare's run on the GPU: the summary, then each differing word with both values, its
/// class and why (the first 64; the why on hover).
pub fn show_gpu(ui: &mut egui::Ui, r: &Result<crate::gui::gpu_job::GpuReport, String>) {
    let g = match r {
        Ok(g) => g,
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("Run on GPU: {e}"));
            return;
        }
    };
    ui.label(format!("GPU: {}", g.summary));
    for n in &g.notes {
        ui.weak(format!("Note: {n}."));
    }
    if g.words.is_empty() {
        ui.label("Every buffer word is as the simulation left it.");
        return;
    }
    ui.label(format!("The words that differ: {}.", g.explained));
    egui::Grid::new("compare-gpu").show(ui, |ui| {
        let mut stripes = crate::gui::palette::Stripes::new(ui);
        for h in ["word", "simulated", "GPU", "why (hover)"] {
            ui.strong(h);
        }
        stripes.end_row(ui);
        for w in g.words.iter().take(64) {
            ui.monospace(&w.at).on_hover_text(&w.place);
            ui.monospace(format!("{:#010x}", w.simulated));
            ui.colored_label(
                ui.visuals().warn_fg_color,
                egui::RichText::new(format!("{:#010x}", w.gpu)).monospace(),
            );
            ui.label(w.class).on_hover_text(&w.why);
            stripes.end_row(ui);
        }
    });
    let more = g.words.len().saturating_sub(64) + g.more;
    if more > 0 {
        ui.weak(format!("… and {more} more"));
    }
}

/// `0-3, 8, 10-11` for a sorted list.
pub fn ranges(v: &[u32]) -> String {
    lanescope_core::view::index_ranges(v, ", ")
}

#[cfg(test)]
mod tests {
    use super::{ranges, Comparison, Runner, Variant};
    use crate::gui::session::{Session, Settings};

    fn compare(example: &str, v: &Variant) -> Comparison {
        let (n, bytes, _) = crate::examples::EXAMPLES
            .iter()
            .find(|e| e.0 == example)
            .unwrap();
        let settings = Settings::default();
        let s = Session::open(n, bytes.to_vec(), &settings).unwrap();
        let mut r = Runner::new(&s, &settings, v).unwrap();
        while !r.advance(1000).unwrap() {}
        Comparison::of(&r, &s)
    }

    #[test]
    fn per_value_and_per_case_switches_part_and_their_ballots_differ() {
        let c = compare("switch_fallthrough", &Variant::Switch);
        assert_eq!(c.labels, ["per-value switch", "per-case switch"]);
        let (step, a, b) = c.first_difference.clone().expect("the runs part");
        assert!(step > 1 && a.is_some() && b.is_some());
        assert_eq!(c.buffers.len(), 1, "{:?}", c.buffers);
        assert!(!c.buffers[0].words.is_empty());
    }

    #[test]
    fn sibling_order_changes_the_steps_but_not_what_the_spec_defines() {
        // A missing barrier: the sum differs when the other subgroup runs first.
        let c = compare(
            "bug_reduction_no_barrier",
            &Variant::Schedule(lanescope_core::Schedule::Reverse),
        );
        assert!(
            c.buffers
                .iter()
                .any(|b| b.words.iter().any(|w| w.word == 0)),
            "{:?}",
            c.buffers
        );
        let c = compare(
            "if_else",
            &Variant::Order(lanescope_core::SiblingOrder::HighestLane),
        );
        assert!(
            c.first_difference.is_some(),
            "siblings run in another order"
        );
        assert!(c.buffers.is_empty(), "{:?}", c.buffers);
        assert_eq!(c.steps[0], c.steps[1], "the same work in another order");
    }

    #[test]
    fn subgroup_sizes_compare_by_invocation() {
        let c = compare("if_else", &Variant::SubgroupSize(16));
        // The first step is the same set of invocations in one tangle of 32 vs one of 16: they
        // differ at once, yet step 1 is described by invocation index.
        let (step, a, b) = c.first_difference.unwrap();
        assert_eq!(step, 1);
        assert_eq!(a.unwrap().invocations, (0..32).collect::<Vec<_>>());
        assert_eq!(b.unwrap().invocations, (0..16).collect::<Vec<_>>());
        assert!(
            !c.buffers.is_empty(),
            "ballots of 16 lanes differ from ballots of 32"
        );
    }

    #[test]
    fn fragment_layouts_agree_on_a_portable_shader() {
        let c = compare(
            "coopmat_tile_f16",
            &Variant::Layout(lanescope_core::coopmat::LayoutChoice::AmdRdna3),
        );
        assert!(c.buffers.is_empty(), "{:?}", c.buffers);
        assert_eq!(ranges(&[0, 1, 2, 3, 8, 10, 11]), "0-3, 8, 10-11");
    }
}
