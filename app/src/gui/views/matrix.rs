//! The cooperative-matrix view: a matrix value as a grid of its elements, each coloured by the
//! lane that holds it under the fragment layout. For a MulAdd, A, B, C and the Result side by
//! side; a chosen Result element shows the row of A and the column of B that fed it.

use super::{lane_color, Site};
use crate::gui::session::Session;
use lanescope_core::value::format_scalar;
use lanescope_core::view::Meaning;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    pub title: String,
    pub id: u32,
    pub role: Role,
    pub rows: u32,
    pub cols: u32,
    pub workgroup: bool,
    /// Row-major element values as their type prints.
    pub values: Vec<String>,
    /// Row-major: every (lane, component) that holds the element. Lanes are workgroup-linear
    /// for Workgroup-scope matrices.
    pub holders: Vec<Vec<(u32, u32)>>,
}

/// What a grid is in the current instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    A,
    B,
    C,
    Result,
    Selected,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixView {
    pub layout: String,
    pub site: Option<Site>,
    pub grids: Vec<Grid>,
}

/// What the person picked: a lane (its elements light up everywhere) and a Result element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub lane: Option<u32>,
    pub element: Option<(u32, u32)>,
}

pub fn is_muladd(m: &Meaning) -> bool {
    m.is_coop_muladd()
}

fn grid(s: &Session, subgroup: u32, id: u32, role: Role, title: String) -> Option<Grid> {
    let v = s.sim().coop_value(subgroup as usize, id)?;
    Some(Grid {
        title,
        id,
        role,
        rows: v.ty.rows,
        cols: v.ty.cols,
        workgroup: v.ty.workgroup,
        values: v
            .elements
            .iter()
            .map(|&e| format_scalar(v.ty.elem, e))
            .collect(),
        holders: v.holders,
    })
}

impl MatrixView {
    /// The operands of the MulAdd at `site` (the Result once it has run) and the selected id
    /// when it is a matrix. `subgroup` is whose fragments to read without a site.
    pub fn build(s: &Session, site: Option<&Site>, selected: Option<u32>, subgroup: u32) -> Self {
        let mut grids = Vec::new();
        let g = site.map_or(subgroup, |x| x.subgroup);
        if let Some(Meaning::CoopMulAdd { a, b, c, result }) = site.map(|x| x.meaning(s)) {
            let name = |id: u32| s.program.name_of(id);
            for (id, role, label) in [(a, Role::A, "A"), (b, Role::B, "B"), (c, Role::C, "C")] {
                if let Some(id) = id {
                    grids.extend(grid(s, g, id, role, format!("{label} = {}", name(id))));
                }
            }
            if site.is_some_and(|x| x.executed) {
                if let Some(id) = result {
                    grids.extend(grid(
                        s,
                        g,
                        id,
                        Role::Result,
                        format!("Result = {}", name(id)),
                    ));
                }
            }
        }
        if let Some(id) = selected.filter(|id| grids.iter().all(|gr| gr.id != *id)) {
            let name = s
                .program
                .names()
                .get(&id)
                .cloned()
                .unwrap_or(format!("%{id}"));
            grids.extend(grid(s, g, id, Role::Selected, name));
        }
        Self {
            layout: s.program.coop_layout().name(),
            site: site.cloned(),
            grids,
        }
    }
}

impl Grid {
    /// Elements `lane` holds, as (row, col, component).
    pub fn held_by(&self, lane: u32) -> Vec<(u32, u32, u32)> {
        self.holders
            .iter()
            .enumerate()
            .flat_map(|(e, hs)| {
                hs.iter()
                    .filter(move |h| h.0 == lane)
                    .map(move |h| (e as u32 / self.cols, e as u32 % self.cols, h.1))
            })
            .collect()
    }

    /// Whether element (r, c) fed the chosen Result element: the same row of A, column of B,
    /// or the same element of C.
    pub fn feeds(&self, r: u32, c: u32, chosen: (u32, u32)) -> bool {
        match self.role {
            Role::A => r == chosen.0,
            Role::B => c == chosen.1,
            Role::C | Role::Result => (r, c) == chosen,
            Role::Selected => false,
        }
    }
}

/// Draws the grids side by side within `avail`; updates the selection from clicks.
pub fn show(ui: &mut egui::Ui, v: &MatrixView, sel: &mut Selection, avail: egui::Vec2) {
    let per_grid = (avail.x / v.grids.len().max(1) as f32 - 12.0).max(60.0);
    ui.horizontal_wrapped(|ui| {
        for gr in &v.grids {
            ui.vertical(|ui| {
                ui.strong(&gr.title);
                ui.weak(format!(
                    "{}×{}{}",
                    gr.rows,
                    gr.cols,
                    if gr.workgroup {
                        ", workgroup scope (lanes are invocation indices)"
                    } else {
                        ""
                    }
                ));
                let cell = (per_grid / gr.cols as f32)
                    .min((avail.y - 60.0) / gr.rows as f32)
                    .clamp(4.0, 22.0);
                let (rect, resp) = ui.allocate_exact_size(
                    egui::vec2(cell * gr.cols as f32, cell * gr.rows as f32),
                    egui::Sense::click(),
                );
                resp.widget_info(|| {
                    egui::WidgetInfo::labeled(
                        egui::Role::Figure,
                        true,
                        format!("matrix {}", gr.title),
                    )
                });
                let p = ui.painter_at(rect);
                // The cells as one mesh of square quads, under the outlines drawn below: a
                // rounded, feathered cell was 34 triangles (1,024 cells for four 16x16
                // matrices), which software WebGL paid for every frame.
                let cells = p.add(egui::Shape::Noop);
                let mut mesh = egui::Mesh::default();
                for r in 0..gr.rows {
                    for c in 0..gr.cols {
                        let e = (r * gr.cols + c) as usize;
                        let hs = &gr.holders[e];
                        let cr = egui::Rect::from_min_size(
                            rect.min + egui::vec2(c as f32 * cell, r as f32 * cell),
                            egui::vec2(cell - 1.0, cell - 1.0),
                        );
                        let fill = hs
                            .first()
                            .map_or(egui::Color32::DARK_GRAY, |h| lane_color(h.0));
                        mesh.add_colored_rect(cr, fill);
                        if let Some(h2) = hs.get(1) {
                            // Held by two lanes: the second holder's colour in the corner.
                            let i = mesh.vertices.len() as u32;
                            for at in [cr.right_top(), cr.right_bottom(), cr.left_bottom()] {
                                mesh.colored_vertex(at, lane_color(h2.0));
                            }
                            mesh.add_triangle(i, i + 1, i + 2);
                        }
                        let lit = sel.lane.is_some_and(|l| hs.iter().any(|h| h.0 == l));
                        let fed = sel.element.is_some_and(|ch| gr.feeds(r, c, ch));
                        if fed {
                            p.rect_stroke(
                                cr,
                                0.0,
                                egui::Stroke::new(2.0, egui::Color32::YELLOW),
                                egui::StrokeKind::Inside,
                            );
                        }
                        if lit {
                            p.rect_stroke(
                                cr,
                                0.0,
                                egui::Stroke::new(2.0, egui::Color32::WHITE),
                                egui::StrokeKind::Inside,
                            );
                        }
                    }
                }
                p.set(cells, mesh);
                let at = |pos: egui::Pos2| {
                    let d = pos - rect.min;
                    let (r, c) = ((d.y / cell) as u32, (d.x / cell) as u32);
                    (r < gr.rows && c < gr.cols).then_some((r, c))
                };
                if let Some((r, c)) = resp.hover_pos().and_then(at) {
                    let e = (r * gr.cols + c) as usize;
                    let who: Vec<String> = gr.holders[e]
                        .iter()
                        .map(|(l, k)| format!("lane {l} component {k}"))
                        .collect();
                    let mut text = format!(
                        "({r}, {c}) = {}\nheld by {}",
                        gr.values[e],
                        who.join(" and ")
                    );
                    if gr.role == Role::Result {
                        text.push_str("\nclick: show the row of A and the column of B that fed it");
                    } else {
                        text.push_str("\nclick: highlight every element this lane holds");
                    }
                    if resp.clicked() {
                        sel.lane = gr.holders[e].first().map(|h| h.0);
                        if gr.role == Role::Result {
                            sel.element = Some((r, c));
                        }
                    }
                    resp.on_hover_text(text);
                }
            });
        }
    });
    if v.grids
        .iter()
        .any(|g| g.holders.iter().any(|h| h.len() > 1))
    {
        ui.weak("A corner in a second colour: the element is held by two lanes (the layout replicates it).");
    }
    if let Some(l) = sel.lane {
        let held: usize = v.grids.iter().map(|g| g.held_by(l).len()).sum();
        ui.label(format!(
            "lane {l} holds the outlined elements ({held} in these matrices)"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::{is_muladd, MatrixView, Role, Selection};
    use crate::gui::session::{Session, Settings};
    use crate::gui::views::find_site;

    fn muladd_view(layout: &str) -> MatrixView {
        let (n, bytes, _) = crate::examples::EXAMPLES
            .iter()
            .find(|e| e.0 == "coopmat_tile_f16")
            .unwrap();
        let settings = Settings {
            coop_layout: lanescope_core::coopmat::LayoutChoice::by_name(layout).unwrap(),
            ..Settings::default()
        };
        let mut s = Session::open(n, bytes.to_vec(), &settings).unwrap();
        let site = loop {
            if let Some(site) = find_site(&s, None, is_muladd).filter(|x| x.executed) {
                break site;
            }
            assert!(s.step().unwrap(), "no MulAdd reached");
        };
        MatrixView::build(&s, Some(&site), None, 0)
    }

    #[test]
    fn muladd_shows_a_b_c_and_result_with_every_element_held() {
        let v = muladd_view("nvidia");
        let roles: Vec<Role> = v.grids.iter().map(|g| g.role).collect();
        assert_eq!(roles, [Role::A, Role::B, Role::C, Role::Result]);
        for g in &v.grids {
            assert_eq!(g.values.len() as u32, g.rows * g.cols);
            assert!(g.holders.iter().all(|h| !h.is_empty()), "{}", g.title);
            // Every lane of the subgroup holds its share: 16x16 over 32 lanes is 8 each.
            let per_lane: Vec<usize> = (0..32).map(|l| g.held_by(l).len()).collect();
            assert!(
                per_lane.iter().all(|&k| k == per_lane[0] && k > 0),
                "{per_lane:?}"
            );
        }
        // Choosing Result (2, 3) lights row 2 of A and column 3 of B.
        let a = &v.grids[0];
        let b = &v.grids[1];
        assert!(a.feeds(2, 7, (2, 3)) && !a.feeds(3, 3, (2, 3)));
        assert!(b.feeds(9, 3, (2, 3)) && !b.feeds(3, 2, (2, 3)));
        let _ = Selection::default();
    }

    #[test]
    fn switching_the_layout_recolours_the_same_values() {
        let nv = muladd_view("nvidia");
        let amd = muladd_view("amd-rdna3");
        assert_eq!(amd.layout, "amd-rdna3");
        for (x, y) in nv.grids.iter().zip(&amd.grids) {
            assert_eq!(
                x.values, y.values,
                "the logical matrix does not depend on the layout"
            );
        }
        assert_ne!(
            nv.grids[0].holders, amd.grids[0].holders,
            "but who holds what does"
        );
        // The AMD layout holds some elements twice.
        assert!(amd
            .grids
            .iter()
            .any(|g| g.holders.iter().any(|h| h.len() == 2)));
    }
}
