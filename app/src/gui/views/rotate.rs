//! The rotate view: for an `OpGroupNonUniformRotateKHR`, an arrow from each source lane to the
//! lane that receives its value, clusters boxed, Delta and ClusterSize shown, inactive sources
//! drawn as undefined reads.

use super::super::palette;
use super::format_components;
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

/// Where each box of the view goes: one row per lane, the sources on the left and the receivers
/// on the right, so a 32- or 64-lane subgroup fits a narrow pane with every value in its box
/// (the pane scrolls down rather than shrinking the boxes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    /// Width of a lane number column.
    pub label: f32,
    /// Width of a value box.
    pub cell: f32,
    /// Space between the two columns, where the arrows run.
    pub gap: f32,
    /// Height of one lane's row.
    pub row: f32,
    /// Height of the column headings above the first row.
    pub head: f32,
}

impl Geometry {
    /// Fits `lanes` rows in `width`, with boxes wide enough for text `text` wide.
    pub fn new(width: f32, text: f32, label: f32) -> Self {
        // As wide as the widest value, unless the pane cannot hold two such columns (then the
        // box clips and hovering shows the whole value).
        let cell = (text + 10.0).clamp(30.0, ((width - 2.0 * label - 40.0) / 2.0).max(170.0));
        let gap = (width - 2.0 * (label + cell)).clamp(40.0, 160.0);
        Self {
            label,
            cell,
            gap,
            row: 17.0,
            head: 18.0,
        }
    }

    pub fn size(&self, lanes: u32) -> egui::Vec2 {
        egui::vec2(
            2.0 * (self.label + self.cell) + self.gap,
            self.head + lanes as f32 * self.row + 4.0,
        )
    }

    /// The source (`false`) or receiving (`true`) box of `lane`, relative to the view's corner.
    pub fn cell_rect(&self, lane: u32, receiver: bool) -> egui::Rect {
        let x = if receiver {
            self.label + self.cell + self.gap
        } else {
            self.label
        };
        let y = self.head + lane as f32 * self.row;
        egui::Rect::from_min_size(egui::pos2(x, y), egui::vec2(self.cell, self.row - 3.0))
    }
}

/// Draws each lane twice, the value it holds on the left and what it receives on the right, with
/// an arrow from the lane read to the lane that receives it. `progress` (0 to 1) animates the
/// values travelling along the arrows after a step.
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
    let font = egui::FontId::monospace(11.0);
    let text_w = |t: &str| {
        ui.fonts_mut(|f| {
            f.layout_no_wrap(t.to_owned(), font.clone(), egui::Color32::WHITE)
                .size()
                .x
        })
    };
    let texts = v
        .arrows
        .iter()
        .flat_map(|a| std::iter::once(&a.value).chain(a.result.as_ref()));
    let received = if v.site.executed {
        "value received"
    } else {
        "will receive"
    };
    // The column headings sit above the boxes: the boxes are at least as wide.
    let widest = texts
        .map(|t| text_w(t))
        .chain([text_w("undef"), text_w("value held"), text_w(received)])
        .fold(0.0, f32::max);
    let g = Geometry::new(
        width - 8.0,
        widest,
        text_w(&(v.subgroup_size - 1).to_string()) + 8.0,
    );
    let n = v.subgroup_size;
    let (rect, resp) = ui.allocate_exact_size(g.size(n), egui::Sense::hover());
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Figure, true, "rotate lanes"));
    let p = ui.painter_at(rect);
    let at = |r: egui::Rect| r.translate(rect.min.to_vec2());
    let text_color = ui.visuals().text_color();
    let weak = ui.visuals().weak_text_color();
    let small = egui::FontId::proportional(11.0);
    p.text(
        at(g.cell_rect(0, false)).left_top() - egui::vec2(0.0, 3.0),
        egui::Align2::LEFT_BOTTOM,
        "value held",
        small.clone(),
        weak,
    );
    p.text(
        at(g.cell_rect(0, true)).left_top() - egui::vec2(0.0, 3.0),
        egui::Align2::LEFT_BOTTOM,
        received,
        small,
        weak,
    );
    // Cluster boxes, around both columns of the lanes that rotate together.
    let mut c = 0;
    while c < n {
        let last = (c + v.group.max(1)).min(n) - 1;
        let r = at(g.cell_rect(c, false))
            .union(at(g.cell_rect(last, true)))
            .expand2(egui::vec2(3.0, 1.5));
        p.rect_stroke(
            r.with_min_x(rect.left() + 1.0)
                .with_max_x(rect.right() - 1.0),
            3.0,
            egui::Stroke::new(1.0, weak),
            egui::StrokeKind::Inside,
        );
        c += v.group.max(1);
    }
    let active = |l: u32| v.site.lanes.contains(l);
    let by_src = |l: u32| v.arrows.iter().find(|a| a.src == l);
    let by_dst = |l: u32| v.arrows.iter().find(|a| a.dst == l);
    for l in 0..n {
        let color = if active(l) {
            lane_color(l)
        } else {
            egui::Color32::from_gray(110)
        };
        for receiver in [false, true] {
            let r = at(g.cell_rect(l, receiver));
            let (text, poison) = if receiver {
                match by_dst(l) {
                    Some(a) => (a.result.clone().unwrap_or_default(), false),
                    None => (String::new(), false),
                }
            } else {
                match by_src(l) {
                    Some(a) if a.value_poison => ("undef".to_owned(), true),
                    Some(a) => (a.value.clone(), false),
                    None => (String::new(), false),
                }
            };
            p.rect(
                r,
                2.0,
                color.gamma_multiply(0.22),
                egui::Stroke::new(1.0, color),
                egui::StrokeKind::Inside,
            );
            p.with_clip_rect(r.shrink(1.0)).text(
                r.left_center() + egui::vec2(4.0, 0.0),
                egui::Align2::LEFT_CENTER,
                text,
                font.clone(),
                if poison { palette::POISON } else { text_color },
            );
            // The lane number sits outside its column: left of the sources, right of the
            // receivers.
            let (anchor, align, pos) = if receiver {
                (egui::Align2::LEFT_CENTER, r.right_center(), 4.0)
            } else {
                (egui::Align2::RIGHT_CENTER, r.left_center(), -4.0)
            };
            p.text(
                align + egui::vec2(pos, 0.0),
                anchor,
                l.to_string(),
                font.clone(),
                if active(l) { text_color } else { weak },
            );
            let hover = ui
                .interact(
                    r,
                    ui.scope_id().with(("rotate lane", l, receiver)),
                    egui::Sense::hover(),
                )
                .on_hover_ui(|ui| {
                    ui.label(hover_text(v, l, receiver));
                });
            // Named for screen readers and tests (built only when asked for).
            hover.widget_info(|| {
                let label = match (receiver, by_dst(l)) {
                    (false, _) => format!("lane {l} holds"),
                    (true, Some(a)) => format!("lane {l} receives lane {}", a.src),
                    (true, None) => format!("lane {l} receives nothing"),
                };
                egui::WidgetInfo::labeled(egui::Role::Label, true, label)
            });
        }
    }
    for a in &v.arrows {
        let from = at(g.cell_rect(a.src, false)).right_center() + egui::vec2(2.0, 0.0);
        let to = at(g.cell_rect(a.dst, true)).left_center() - egui::vec2(2.0, 0.0);
        let (color, width) = if a.src_active && !a.value_poison {
            (lane_color(a.src), 1.5)
        } else {
            (palette::POISON, 1.0)
        };
        if a.src_active {
            // egui's arrow head grows with the arrow; these keep one small head.
            let stroke = egui::Stroke::new(width, color);
            p.line_segment([from, to], stroke);
            let back = (from - to).normalized() * 7.0;
            let rot = egui::emath::Rot2::from_angle(0.45);
            p.line_segment([to, to + rot * back], stroke);
            p.line_segment([to, to + rot.inverse() * back], stroke);
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
}

/// What hovering a lane's box says: where its value goes, or where its result came from.
fn hover_text(v: &RotateView, lane: u32, receiver: bool) -> String {
    let in_tangle = if v.site.lanes.contains(lane) {
        ""
    } else {
        " (not in the tangle)"
    };
    if !receiver {
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
        return format!("lane {lane}{in_tangle}: value {value}\nread by lanes {readers:?}");
    }
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
                                && t.pos == site.pos
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
    fn every_value_has_room_in_its_box_and_the_columns_fit_the_pane() {
        use super::Geometry;
        for width in [300.0_f32, 430.0, 700.0] {
            for text in [7.0_f32, 40.0, 90.0] {
                let g = Geometry::new(width, text, 20.0);
                assert!(g.cell >= text + 8.0, "{width} {text}");
                assert!(g.size(32).x <= width, "{width} {text}: {g:?}");
                for l in 0..32 {
                    let (a, b) = (g.cell_rect(l, false), g.cell_rect(l, true));
                    assert!(a.right() + 30.0 < b.left(), "room for the arrows");
                    assert!(b.bottom() <= g.size(32).y && a.left() >= g.label);
                    assert!(g.cell_rect(l + 1, false).top() > a.bottom(), "rows apart");
                }
            }
        }
        // A value wider than the pane clips rather than widening it past the pane.
        assert!(Geometry::new(430.0, 400.0, 20.0).size(32).x <= 430.0);
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
