//! The rotate view: for an `OpGroupNonUniformRotateKHR`, an arrow from each source lane to the
//! lane that receives its value, clusters boxed, Delta and ClusterSize shown, inactive sources
//! drawn as undefined reads.

use super::super::panels::format_components;
use super::{lane_color, Site};
use crate::gui::session::Session;
use lanescope_core::view::{rotate_source, Meaning};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    /// The lane that receives the value.
    pub dst: u32,
    /// The lane it reads (the spec's formula with this lane's Delta).
    pub src: u32,
    /// Whether the source is in the tangle; when not, the result is undefined.
    pub src_active: bool,
    /// The value the source holds (its operand), as its type prints.
    pub value: String,
    /// The source's operand is itself poison (undefined).
    pub value_poison: bool,
    /// The result in `dst`, once the instruction has run.
    pub result: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RotateView {
    pub site: Site,
    pub subgroup_size: u32,
    /// The rotation group size: the ClusterSize, or the subgroup size without one.
    pub group: u32,
    /// The ClusterSize operand as written, when present.
    pub cluster: Option<u64>,
    /// Delta when every lane of the tangle has the same one (the spec requires it).
    pub delta: Option<u64>,
    /// Every lane's Delta when they differ (a `nonuniform-delta` case).
    pub deltas: Vec<(u32, u64)>,
    pub arrows: Vec<Arrow>,
}

pub fn is_rotate(m: &Meaning) -> bool {
    m.is_rotate()
}

impl RotateView {
    pub fn build(s: &Session, site: &Site) -> Option<Self> {
        let Meaning::Rotate {
            value,
            delta,
            cluster,
            result,
            ty,
        } = site.meaning(s)
        else {
            return None;
        };
        let sim = s.sim();
        let g = site.subgroup as usize;
        let size = sim.config().subgroup_size;
        let lanes = site.lane_list();
        let first = *lanes.first()? as usize;
        let deltas_all = sim.operand_values(g, &delta)?;
        let cluster_value = match cluster {
            Some(c) => Some(sim.operand_values(g, &c)?[first][0]),
            None => None,
        };
        // Same rule as the engine: an out-of-range ClusterSize is diagnosed and the nearest
        // power of two within the subgroup is used.
        let group = cluster_value.map_or(size, |cs| {
            (cs.clamp(1, u64::from(size)) as u32)
                .next_power_of_two()
                .min(size)
        });
        let values = sim.operand_values(g, &value)?;
        let results = sim.operand_values(g, &result)?;
        let value_poison = sim.operand_poison(g, &value);
        let tys = vec![ty; value.width as usize];
        let fmt = |v: &[u64]| format_components(Some(&tys), v);
        let deltas: Vec<(u32, u64)> = lanes
            .iter()
            .map(|&l| (l, deltas_all[l as usize][0]))
            .collect();
        let uniform = deltas.iter().all(|d| d.1 == deltas[0].1);
        let arrows = deltas
            .iter()
            .map(|&(l, d)| {
                let src = rotate_source(l, d, group);
                Arrow {
                    dst: l,
                    src,
                    src_active: site.lanes.contains(src),
                    value: fmt(&values[src as usize]),
                    value_poison: value_poison.contains(src),
                    result: site.executed.then(|| fmt(&results[l as usize])),
                }
            })
            .collect();
        Some(Self {
            site: site.clone(),
            subgroup_size: size,
            group,
            cluster: cluster_value,
            delta: uniform.then(|| deltas[0].1),
            deltas: if uniform { Vec::new() } else { deltas },
            arrows,
        })
    }
}

/// Draws the lanes twice, sources above and receivers below, with an arrow per receiving lane.
/// `progress` (0 to 1) animates the values travelling along the arrows after a step.
pub fn show(ui: &mut egui::Ui, v: &RotateView, progress: f32, width: f32) {
    ui.horizontal_wrapped(|ui| {
        ui.label(format!(
            "{} rotate, subgroup {}",
            if v.site.executed { "Executed" } else { "Next:" },
            v.site.subgroup
        ));
        match v.delta {
            Some(d) => ui.strong(format!("Delta = {d}")),
            None => ui.colored_label(
                egui::Color32::LIGHT_RED,
                "Delta differs between lanes (undefined behaviour)",
            ),
        };
        match v.cluster {
            Some(c) => ui.strong(format!("ClusterSize = {c}")),
            None => ui.label(format!(
                "no ClusterSize: rotates over all {} lanes",
                v.group
            )),
        };
        ui.weak("source = ((lane + Delta) & (G − 1)) + (lane & ~(G − 1))");
    });
    let n = v.subgroup_size as f32;
    let cell = ((width - 8.0) / n - 2.0).clamp(6.0, 26.0);
    let pitch = cell + 2.0;
    let height = 150.0;
    let (rect, resp) =
        ui.allocate_exact_size(egui::vec2(pitch * n + 4.0, height), egui::Sense::click());
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Figure, true, "rotate lanes"));
    let p = ui.painter_at(rect);
    let top = rect.top() + 14.0;
    let bottom = rect.bottom() - 30.0;
    let x_of = |l: u32| rect.left() + 2.0 + l as f32 * pitch;
    let font = egui::FontId::monospace(9.0);
    let active = |l: u32| v.site.lanes.contains(l);
    // Cluster boxes.
    let mut c = 0;
    while c < v.subgroup_size {
        let r = egui::Rect::from_min_max(
            egui::pos2(x_of(c) - 1.0, top - 3.0),
            egui::pos2(x_of(c + v.group) - 1.0, bottom + cell + 3.0),
        );
        p.rect_stroke(
            r,
            3.0,
            egui::Stroke::new(1.0, ui.visuals().weak_text_color()),
            egui::StrokeKind::Inside,
        );
        c += v.group.max(1);
    }
    for l in 0..v.subgroup_size {
        let color = if active(l) {
            lane_color(l)
        } else {
            egui::Color32::from_gray(70)
        };
        for y in [top, bottom] {
            p.rect_filled(
                egui::Rect::from_min_size(egui::pos2(x_of(l), y), egui::vec2(cell, cell)),
                2.0,
                color,
            );
        }
        if cell >= 14.0 || l % 4 == 0 {
            p.text(
                egui::pos2(x_of(l) + cell / 2.0, bottom + cell + 4.0),
                egui::Align2::CENTER_TOP,
                l.to_string(),
                font.clone(),
                ui.visuals().text_color(),
            );
        }
    }
    p.text(
        egui::pos2(rect.left(), rect.top()),
        egui::Align2::LEFT_TOP,
        "source lanes (value read)",
        font.clone(),
        ui.visuals().weak_text_color(),
    );
    for a in &v.arrows {
        let from = egui::pos2(x_of(a.src) + cell / 2.0, top + cell);
        let to = egui::pos2(x_of(a.dst) + cell / 2.0, bottom);
        let (color, width) = if a.src_active && !a.value_poison {
            (lane_color(a.src), 1.5)
        } else {
            (super::super::palette::POISON, 1.0)
        };
        if a.src_active {
            p.arrow(from, to - from, egui::Stroke::new(width, color));
        } else {
            // An undefined read: dashed.
            p.add(egui::Shape::dashed_line(
                &[from, to],
                egui::Stroke::new(width, color),
                4.0,
                3.0,
            ));
        }
        if progress < 1.0 {
            p.circle_filled(from + (to - from) * progress, 3.0, color);
        }
    }
    if let Some(pos) = resp.hover_pos() {
        let lane = ((pos.x - rect.left() - 2.0) / pitch).floor();
        if lane >= 0.0 && lane < n {
            let lane = lane as u32;
            let text = if pos.y < (top + bottom) / 2.0 {
                let readers: Vec<u32> = v
                    .arrows
                    .iter()
                    .filter(|a| a.src == lane)
                    .map(|a| a.dst)
                    .collect();
                let value = v
                    .arrows
                    .iter()
                    .find(|a| a.src == lane)
                    .map_or(String::new(), |a| a.value.clone());
                format!(
                    "lane {lane}{}: value {value}\nread by lanes {readers:?}",
                    if active(lane) {
                        ""
                    } else {
                        " (not in the tangle)"
                    }
                )
            } else {
                match v.arrows.iter().find(|a| a.dst == lane) {
                    Some(a) => format!(
                        "lane {} receives lane {}'s value {}{}{}",
                        a.dst,
                        a.src,
                        a.value,
                        if a.src_active {
                            ""
                        } else {
                            "\nundefined: the source lane is not in the tangle (rotate-inactive-source)"
                        },
                        a.result
                            .as_ref()
                            .map_or(String::new(), |r| format!("\nresult: {r}")),
                    ),
                    None => format!("lane {lane} is not in the tangle"),
                }
            };
            resp.on_hover_text(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_rotate, RotateView};
    use crate::gui::session::{Session, Settings};
    use crate::gui::views::find_site;

    fn session(name: &str, settings: &Settings) -> Session {
        let (n, bytes, _) = crate::examples::EXAMPLES
            .iter()
            .find(|e| e.0 == name)
            .unwrap();
        Session::open(n, bytes.to_vec(), settings).unwrap()
    }

    /// Steps until a rotate is about to run, then returns its view before and after.
    fn around_first_rotate(s: &mut Session) -> (RotateView, RotateView) {
        loop {
            if let Some(site) = find_site(s, None, is_rotate).filter(|x| !x.executed) {
                let before = RotateView::build(s, &site).unwrap();
                s.step_tangle(
                    site.subgroup as usize,
                    s.sim()
                        .tangles()
                        .iter()
                        .find(|t| {
                            t.subgroup == site.subgroup
                                && t.block == site.block
                                && t.inst == site.inst
                        })
                        .unwrap()
                        .id,
                )
                .unwrap();
                let after_site = find_site(s, None, is_rotate).unwrap();
                assert!(after_site.executed);
                return (before, RotateView::build(s, &after_site).unwrap());
            }
            assert!(s.step().unwrap(), "no rotate reached");
        }
    }

    #[test]
    fn clustered_rotate_arrows_stay_in_their_cluster() {
        let mut s = session("rotate_clustered", &Settings::default());
        let (before, after) = around_first_rotate(&mut s);
        let g = before.group;
        assert!(before.cluster.is_some());
        assert!(g < 32 && g.is_power_of_two());
        let d = before.delta.expect("uniform delta");
        for a in &after.arrows {
            assert_eq!(a.src / g, a.dst / g, "same cluster");
            assert_eq!(
                u64::from(a.src % g),
                (u64::from(a.dst % g) + d) % u64::from(g)
            );
            assert!(a.src_active);
            // The result each lane received is the value its source held.
            assert_eq!(a.result.as_deref(), Some(a.value.as_str()));
        }
        assert!(
            before.arrows.iter().all(|a| a.result.is_none()),
            "not run yet"
        );
    }

    #[test]
    fn rotate_in_divergent_flow_marks_reads_of_inactive_lanes() {
        let mut s = session("rotate_divergent", &Settings::default());
        let (_, after) = around_first_rotate(&mut s);
        // Only lanes with lane % 3 != 0 run it; a rotate by 1 reads an inactive lane for
        // lanes 2 mod 3 and for lane 31 (which wraps to lane 0).
        assert_eq!(after.delta, Some(1));
        for a in &after.arrows {
            assert_ne!(a.dst % 3, 0);
            let expect_active = a.dst % 3 != 2 && a.dst != 31;
            assert_eq!(a.src_active, expect_active, "lane {}", a.dst);
            assert_eq!(a.src, (a.dst + 1) % 32);
        }
    }
}
