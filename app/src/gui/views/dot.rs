//! The integer dot product opened up: for a lane, each operand's bytes (or components), their
//! sign or zero extension, the products, the sum, the accumulator and where saturation clamps;
//! the same for every lane as a compact table.

use super::Site;
use crate::gui::session::Session;
use lanescope_core::dot::{dot, unpack4x8, DotKind, DotSteps};
use lanescope_core::view::Meaning;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotLane {
    pub lane: u32,
    /// Operand components as stored (raw bits of `comp_bits`).
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub acc: Option<u64>,
    pub steps: DotSteps,
    /// Some operand of this lane is poison (undefined).
    pub poison_in: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotView {
    pub site: Site,
    pub kind: DotKind,
    pub packed: bool,
    pub comp_bits: u32,
    pub result_bits: u32,
    pub lanes: Vec<DotLane>,
}

pub fn is_dot(m: &Meaning) -> bool {
    m.is_int_dot()
}

impl DotView {
    pub fn build(s: &Session, site: &Site) -> Option<Self> {
        let Meaning::IntDot {
            kind,
            packed,
            comp_bits,
            result_bits,
            a,
            b,
            acc,
            ..
        } = site.meaning(s)
        else {
            return None;
        };
        let sim = s.sim();
        let g = site.subgroup as usize;
        let av = sim.operand_values(g, &a)?;
        let bv = sim.operand_values(g, &b)?;
        let accv = match &acc {
            Some(x) => Some(sim.operand_values(g, x)?),
            None => None,
        };
        let poison = sim.operand_poison(g, &a)
            | sim.operand_poison(g, &b)
            | acc.map_or(Default::default(), |x| sim.operand_poison(g, &x));
        let comps = |v: &[u64]| {
            if packed {
                unpack4x8(v[0]).to_vec()
            } else {
                v.to_vec()
            }
        };
        let lanes = site
            .lane_list()
            .into_iter()
            .map(|l| {
                let i = l as usize;
                let (ca, cb) = (comps(&av[i]), comps(&bv[i]));
                let acc = accv.as_ref().map(|v| v[i][0]);
                // The same pure function the engine runs, so every intermediate is the real one.
                let steps = dot(kind, &ca, &cb, comp_bits, result_bits, acc);
                DotLane {
                    lane: l,
                    a: ca,
                    b: cb,
                    acc,
                    steps,
                    poison_in: poison.contains(l),
                }
            })
            .collect();
        Some(Self {
            site: site.clone(),
            kind,
            packed,
            comp_bits,
            result_bits,
            lanes,
        })
    }

    pub fn opcode(&self) -> String {
        let base = match self.kind {
            DotKind::Signed => "OpSDot",
            DotKind::Unsigned => "OpUDot",
            DotKind::Mixed => "OpSUDot",
        };
        if self.lanes.first().is_some_and(|l| l.acc.is_some()) {
            format!("{base}AccSat")
        } else {
            base.to_owned()
        }
    }

    /// The result as a number of the result's signedness.
    pub fn result_value(&self, l: &DotLane) -> i128 {
        let bits = self.result_bits;
        let r = l.steps.result;
        if self.kind.result_signed() {
            i128::from(lanescope_core::value::sext(r, bits))
        } else {
            i128::from(r)
        }
    }
}

fn signedness(signed: bool) -> &'static str {
    if signed {
        "sign-extended"
    } else {
        "zero-extended"
    }
}

/// Draws the detail of lane `lane` (or the first) and the table of all lanes; returns a lane
/// clicked in the table.
pub fn show(ui: &mut egui::Ui, v: &DotView, lane: Option<u32>) -> Option<u32> {
    let mut picked = None;
    let l = v
        .lanes
        .iter()
        .find(|l| Some(l.lane) == lane)
        .or(v.lanes.first())?;
    ui.horizontal_top(|ui| {
        ui.vertical(|ui| {
            ui.set_max_width((ui.available_width() * 0.55).max(320.0));
            egui::ScrollArea::vertical()
                .id_salt("dot-detail")
                .auto_shrink([false, false])
                .show(ui, |ui| detail(ui, v, l));
        });
        ui.separator();
        ui.vertical(|ui| {
            egui::ScrollArea::vertical()
                .id_salt("dot-lanes")
                .auto_shrink([false, false])
                .show(ui, |ui| picked = table(ui, v, l.lane));
        });
    });
    picked
}

fn detail(ui: &mut egui::Ui, v: &DotView, l: &DotLane) {
    ui.horizontal_wrapped(|ui| {
        ui.strong(v.opcode());
        ui.label(format!(
            "{} · {} components of {} bits{} · result {} bits · subgroup {} lane {}",
            if v.site.executed { "executed" } else { "next" },
            l.a.len(),
            v.comp_bits,
            if v.packed {
                " packed in a 32-bit word (component 0 in the lowest byte)"
            } else {
                ""
            },
            v.result_bits,
            v.site.subgroup,
            l.lane
        ));
    });
    let (sa, sb) = match v.kind {
        DotKind::Signed => (true, true),
        DotKind::Unsigned => (false, false),
        DotKind::Mixed => (true, false),
    };
    let hex_w = v.comp_bits.div_ceil(4) as usize;
    let st = &l.steps;
    egui::Grid::new("dot-detail").show(ui, |ui| {
        let mut stripes = crate::gui::palette::Stripes::new(ui);
        ui.label("");
        for k in 0..l.a.len() {
            ui.monospace(format!("[{k}]"));
        }
        stripes.end_row(ui);
        let mut row = |ui: &mut egui::Ui, name: &str, cells: Vec<String>| {
            ui.label(name);
            for c in cells {
                ui.monospace(c);
            }
            stripes.end_row(ui);
        };
        row(
            ui,
            "a (bits)",
            l.a.iter()
                .map(|x| format!("{x:#0w$x}", w = hex_w + 2))
                .collect(),
        );
        row(
            ui,
            &format!("a {}", signedness(sa)),
            st.a.iter().map(i128::to_string).collect(),
        );
        row(
            ui,
            "b (bits)",
            l.b.iter()
                .map(|x| format!("{x:#0w$x}", w = hex_w + 2))
                .collect(),
        );
        row(
            ui,
            &format!("b {}", signedness(sb)),
            st.b.iter().map(i128::to_string).collect(),
        );
        row(
            ui,
            "a × b",
            st.products.iter().map(i128::to_string).collect(),
        );
    });
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("sum = {}", st.sum));
        if st.acc.is_none() {
            ui.label(format!(
                "→ wrapped to {} bits = {:#x}",
                v.result_bits, st.wrapped
            ));
        }
    });
    if let (Some(acc), Some(total)) = (st.acc, st.total) {
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("accumulator = {acc}"));
            ui.label(format!("dot + accumulator = {total}"));
            if st.clamped {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!("saturates to {}", v.result_value(l)),
                );
            } else {
                ui.label("fits: no saturation");
            }
        });
        if st.overflow {
            ui.colored_label(
                super::super::palette::POISON,
                format!("the dot product itself does not fit {} bits: undefined (dot-overflow); shown as the wrapped dot, then saturated", v.result_bits),
            );
        }
    }
    ui.label(format!("result = {} ({:#x})", v.result_value(l), st.result));
    if l.poison_in {
        ui.colored_label(
            super::super::palette::POISON,
            "an operand of this lane is undefined (poison)",
        );
    }
}

fn table(ui: &mut egui::Ui, v: &DotView, current: u32) -> Option<u32> {
    let mut picked = None;
    egui::Grid::new("dot-table").show(ui, |ui| {
        let mut stripes = crate::gui::palette::Stripes::new(ui);
        for h in ["", "a", "b", "sum", "acc", "result", ""] {
            ui.strong(h);
        }
        stripes.end_row(ui);
        for r in &v.lanes {
            if ui
                .selectable_label(r.lane == current, format!("lane {}", r.lane))
                .clicked()
            {
                picked = Some(r.lane);
            }
            ui.monospace(format!("{:?}", r.steps.a));
            ui.monospace(format!("{:?}", r.steps.b));
            ui.monospace(r.steps.sum.to_string());
            ui.monospace(r.steps.acc.map_or("-".into(), |a| a.to_string()));
            ui.monospace(v.result_value(r).to_string());
            let mut flags = Vec::new();
            if r.steps.clamped {
                flags.push("clamped");
            }
            if r.steps.overflow {
                flags.push("dot-overflow");
            }
            if r.poison_in {
                flags.push("poison in");
            }
            ui.label(flags.join(", "));
            stripes.end_row(ui);
        }
    });
    picked
}

#[cfg(test)]
mod tests {
    use super::{is_dot, DotView};
    use crate::gui::session::{Session, Settings};
    use crate::gui::views::find_site;

    #[test]
    fn packed_int8_dot_shows_the_engine_result_for_every_lane() {
        let (n, bytes, _) = crate::examples::EXAMPLES
            .iter()
            .find(|e| e.0 == "dot_int8_acc")
            .unwrap();
        let mut s = Session::open(n, bytes.to_vec(), &Settings::default()).unwrap();
        let site = loop {
            if let Some(site) = find_site(&s, None, is_dot).filter(|x| x.executed) {
                break site;
            }
            assert!(s.step().unwrap(), "no dot product reached");
        };
        let v = DotView::build(&s, &site).unwrap();
        assert!(v.packed && v.comp_bits == 8);
        assert_eq!(v.lanes.len() as u32, site.lanes.count());
        let lanescope_core::view::Meaning::IntDot { result, .. } = site.meaning(&s) else {
            panic!()
        };
        let regs = s
            .sim()
            .operand_values(site.subgroup as usize, &result)
            .unwrap();
        for l in &v.lanes {
            assert_eq!(l.steps.result, regs[l.lane as usize][0], "lane {}", l.lane);
            assert_eq!(l.a.len(), 4);
            // Products are of the extended components; the sum is theirs.
            let sum: i128 = l.steps.products.iter().sum();
            assert_eq!(sum, l.steps.sum);
        }
    }
}
