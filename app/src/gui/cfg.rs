//! The control-flow graph of one function: a layered layout computed once per module, and its
//! drawing with the tangles in their blocks.

use super::palette;
use lanescope_core::program::{BlockId, Merge, Program};
use lanescope_core::trace::{LaneState, TangleView};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    Branch,
    /// To a loop header from inside its loop.
    Back,
    /// A merge or continue declaration (dashed).
    Declares,
}

/// Block positions in layout units (one unit = one block slot).
#[derive(Clone, Debug)]
pub struct CfgLayout {
    pub func: u32,
    /// (block, layer, column).
    pub nodes: Vec<(BlockId, u32, u32)>,
    pub edges: Vec<(BlockId, BlockId, EdgeKind)>,
}

impl CfgLayout {
    /// Layers by longest path from the entry over forward edges (back edges are edges into an
    /// ancestor on the depth-first path), so a construct's body sits between header and merge.
    pub fn new(prog: &Program, func: u32) -> Self {
        let Some(f) = prog.functions().get(func as usize) else {
            return Self {
                func,
                nodes: Vec::new(),
                edges: Vec::new(),
            };
        };
        let mut edges = Vec::new();
        let mut back = std::collections::BTreeSet::new();
        // Iterative DFS for back edges.
        let mut state: BTreeMap<BlockId, u8> = BTreeMap::new();
        let mut stack = vec![(f.entry, 0usize)];
        state.insert(f.entry, 1);
        while let Some((b, i)) = stack.pop() {
            let succ = prog.blocks()[b as usize].successors();
            if i < succ.len() {
                stack.push((b, i + 1));
                let s = succ[i];
                match state.get(&s) {
                    None => {
                        state.insert(s, 1);
                        stack.push((s, 0));
                    }
                    Some(1) => {
                        back.insert((b, s));
                    }
                    _ => {}
                }
            } else {
                state.insert(b, 2);
            }
        }
        let mut rank: BTreeMap<BlockId, u32> = BTreeMap::new();
        rank.insert(f.entry, 0);
        // Longest path over the DAG: relax in a topological order (Kahn).
        let mut indeg: BTreeMap<BlockId, u32> = f.blocks.iter().map(|b| (*b, 0)).collect();
        for &b in &f.blocks {
            for s in prog.blocks()[b as usize].successors() {
                let kind = if back.contains(&(b, s)) {
                    EdgeKind::Back
                } else {
                    EdgeKind::Branch
                };
                edges.push((b, s, kind));
                if kind == EdgeKind::Branch {
                    *indeg.entry(s).or_insert(0) += 1;
                }
            }
            match prog.blocks()[b as usize].merge {
                Some(Merge::Selection { merge }) => edges.push((b, merge, EdgeKind::Declares)),
                Some(Merge::Loop {
                    merge,
                    continue_target,
                }) => {
                    edges.push((b, merge, EdgeKind::Declares));
                    edges.push((b, continue_target, EdgeKind::Declares));
                }
                None => {}
            }
        }
        // Layering constraints beyond branches: a loop's merge sits below its continue target.
        let mut constraints: BTreeMap<BlockId, Vec<BlockId>> = BTreeMap::new();
        for &b in &f.blocks {
            if let Some(Merge::Loop {
                merge,
                continue_target,
            }) = prog.blocks()[b as usize].merge
            {
                if continue_target != merge && indeg.contains_key(&merge) {
                    constraints.entry(continue_target).or_default().push(merge);
                    *indeg.entry(merge).or_insert(0) += 1;
                }
            }
        }
        let mut ready: Vec<BlockId> = f
            .blocks
            .iter()
            .copied()
            .filter(|b| indeg.get(b) == Some(&0))
            .collect();
        while let Some(b) = ready.pop() {
            let r = rank.get(&b).copied().unwrap_or(0);
            let forward: Vec<BlockId> = prog.blocks()[b as usize]
                .successors()
                .into_iter()
                .filter(|s| !back.contains(&(b, *s)))
                .chain(constraints.get(&b).into_iter().flatten().copied())
                .collect();
            for s in forward {
                let e = rank.entry(s).or_insert(0);
                *e = (*e).max(r + 1);
                if let Some(d) = indeg.get_mut(&s) {
                    *d -= 1;
                    if *d == 0 {
                        ready.push(s);
                    }
                }
            }
        }
        // A merge block sits below everything its header declares.
        let mut columns: BTreeMap<u32, u32> = BTreeMap::new();
        let nodes = f
            .blocks
            .iter()
            .map(|&b| {
                let layer = rank.get(&b).copied().unwrap_or(0);
                let c = columns.entry(layer).or_insert(0);
                *c += 1;
                (b, layer, *c - 1)
            })
            .collect();
        Self { func, nodes, edges }
    }

    pub fn position(&self, b: BlockId) -> Option<(u32, u32)> {
        self.nodes.iter().find(|n| n.0 == b).map(|n| (n.1, n.2))
    }
}

const W: f32 = 150.0;
const H: f32 = 56.0;
const GAP_X: f32 = 40.0;
const GAP_Y: f32 = 44.0;

/// Draws the graph; returns the block clicked, if any.
/// What is drawn over the graph: where the tangles are, lanes waiting at merges, blocks with a
/// diagnostic, and the block of the followed tangle (with its colour, and whether it just moved
/// there, which scrolls it into view).
pub struct Overlay<'a> {
    pub tangles: &'a [TangleView],
    pub waiting: &'a [(u32, u32, LaneState)],
    pub flagged: &'a [BlockId],
    pub running: Option<(BlockId, egui::Color32, bool)>,
}

/// The graph's size at zoom 1.
pub fn graph_size(layout: &CfgLayout) -> egui::Vec2 {
    let max_col = layout.nodes.iter().map(|n| n.2).max().unwrap_or(0) + 1;
    let max_layer = layout.nodes.iter().map(|n| n.1).max().unwrap_or(0) + 1;
    egui::vec2(
        max_col as f32 * (W + GAP_X) + GAP_X,
        max_layer as f32 * (H + GAP_Y) + GAP_Y,
    )
}

pub fn show(
    ui: &mut egui::Ui,
    prog: &Program,
    layout: &CfgLayout,
    overlay: &Overlay<'_>,
    zoom: f32,
) -> Option<BlockId> {
    let Overlay {
        tangles,
        waiting,
        flagged,
        running,
    } = *overlay;
    let size = graph_size(layout) * zoom;
    let (resp, painter) = ui.allocate_painter(size, egui::Sense::click());
    let origin = resp.rect.min;
    let rect_of = |b: BlockId| {
        layout.position(b).map(|(layer, col)| {
            let min = origin
                + egui::vec2(
                    GAP_X + col as f32 * (W + GAP_X),
                    GAP_Y / 2.0 + layer as f32 * (H + GAP_Y),
                ) * zoom;
            egui::Rect::from_min_size(min, egui::vec2(W, H) * zoom)
        })
    };
    let text_color = ui.visuals().text_color();
    for &(from, to, kind) in &layout.edges {
        let (Some(a), Some(b)) = (rect_of(from), rect_of(to)) else {
            continue;
        };
        let (p0, p1) = match kind {
            EdgeKind::Back => (a.right_center(), b.right_center()),
            _ => (a.center_bottom(), b.center_top()),
        };
        let (color, dashed) = match kind {
            EdgeKind::Branch => (text_color.gamma_multiply(0.7), false),
            EdgeKind::Back => (egui::Color32::from_rgb(230, 150, 60), false),
            EdgeKind::Declares => (egui::Color32::from_rgb(120, 140, 200), true),
        };
        let stroke = egui::Stroke::new(1.5 * zoom, color);
        if kind == EdgeKind::Back {
            let bend = egui::vec2(30.0 * zoom, 0.0);
            let pts = [p0, p0 + bend, p1 + bend, p1];
            painter.add(egui::Shape::line(pts.to_vec(), stroke));
        } else if dashed {
            painter.add(egui::Shape::dashed_line(
                &[p0, p1],
                stroke,
                6.0 * zoom,
                4.0 * zoom,
            ));
        } else {
            painter.line_segment([p0, p1], stroke);
        }
        let dir = (p1
            - if kind == EdgeKind::Back {
                p1 + egui::vec2(30.0 * zoom, 0.0)
            } else {
                p0
            })
        .normalized();
        let tip = p1;
        let side = egui::vec2(-dir.y, dir.x) * 4.0 * zoom;
        painter.add(egui::Shape::convex_polygon(
            vec![
                tip,
                tip - dir * 8.0 * zoom + side,
                tip - dir * 8.0 * zoom - side,
            ],
            color,
            egui::Stroke::NONE,
        ));
    }
    let mut clicked = None;
    let pointer = resp.interact_pointer_pos();
    for &(b, _, _) in &layout.nodes {
        let Some(r) = rect_of(b) else { continue };
        let block = &prog.blocks()[b as usize];
        let fill = if block.merge.is_some() {
            ui.visuals().faint_bg_color.gamma_multiply(1.6)
        } else {
            ui.visuals().extreme_bg_color
        };
        let runs_here = running.filter(|r| r.0 == b);
        let stroke = if flagged.contains(&b) {
            egui::Stroke::new(2.5 * zoom, egui::Color32::from_rgb(230, 60, 60))
        } else if let Some((_, c, _)) = runs_here {
            // The followed tangle's block: outlined in its colour.
            egui::Stroke::new(3.0 * zoom, c)
        } else {
            egui::Stroke::new(1.0, text_color.gamma_multiply(0.5))
        };
        painter.rect(r, 4.0 * zoom, fill, stroke, egui::StrokeKind::Inside);
        let mut label = prog.block_name(b);
        if prog.is_reconvergence_target(b) {
            label.push_str(target_kind(prog, b));
        }
        if let Some(lines) = source_lines(prog, b) {
            label.push_str("  ");
            label.push_str(&lines);
        }
        painter.text(
            r.left_top() + egui::vec2(6.0, 4.0) * zoom,
            egui::Align2::LEFT_TOP,
            label,
            egui::FontId::monospace(11.0 * zoom),
            text_color,
        );
        // Tangles here: one chip each, a dot per lane in the tangle's colour.
        let mut y = r.top() + 22.0 * zoom;
        for t in tangles.iter().filter(|t| t.block == b) {
            chip(
                &painter,
                egui::pos2(r.left() + 6.0 * zoom, y),
                zoom,
                t.subgroup,
                &t.lanes.to_vec(),
                ui.visuals().panel_fill.blend(fill),
            );
            y += 10.0 * zoom;
        }
        let waiting_here: Vec<u32> = waiting
            .iter()
            .filter(|(_, _, s)| matches!(s, LaneState::Waiting { block, .. } if *block == b))
            .map(|w| w.1)
            .collect();
        if !waiting_here.is_empty() {
            painter.text(
                egui::pos2(r.left() + 6.0 * zoom, r.bottom() - 4.0 * zoom),
                egui::Align2::LEFT_BOTTOM,
                format!("{} lanes waiting here", waiting_here.len()),
                egui::FontId::proportional(10.0 * zoom),
                text_color.gamma_multiply(0.8),
            );
        }
        if let Some((_, _, moved)) = runs_here {
            if moved {
                // At once: an animated scroll is a dozen full repaints a step.
                ui.scroll_to_rect_animation(
                    r.expand(12.0),
                    None,
                    egui::style::ScrollAnimation::none(),
                );
            }
            ui.ctx()
                .data_mut(|d| d.insert_temp(running_rect_id(), (r, ui.clip_rect())));
        }
        if pointer.is_some_and(|p| r.contains(p)) && resp.clicked() {
            clicked = Some(b);
        }
    }
    clicked
}

/// Where the running block was drawn last frame and the area then visible (for tests).
pub fn running_rect_id() -> egui::Id {
    egui::Id::unique("cfg-running-block")
}

fn chip(
    painter: &egui::Painter,
    at: egui::Pos2,
    zoom: f32,
    subgroup: u32,
    lanes: &[u32],
    fill: egui::Color32,
) {
    let mask = lanes
        .iter()
        .filter(|l| **l < 128)
        .fold(0u128, |m, l| m | 1 << l);
    let (band, color) = palette::marker(palette::tangle(subgroup, mask), fill);
    let n = lanes.len().min(32) as f32;
    let r = egui::Rect::from_min_size(at, egui::vec2((n * 4.0).max(8.0) + 4.0, 8.0) * zoom);
    painter.rect_filled(r, 2.0 * zoom, band);
    for (i, _) in lanes.iter().take(32).enumerate() {
        painter.circle_filled(
            at + egui::vec2(4.0 + i as f32 * 4.0, 4.0) * zoom,
            1.6 * zoom,
            color,
        );
    }
}

/// What a reconvergence target is to the constructs that declare it, for its block's label.
fn target_kind(prog: &Program, b: BlockId) -> &'static str {
    let (mut merge, mut cont) = (false, false);
    for blk in prog.blocks() {
        match blk.merge {
            Some(Merge::Selection { merge: m }) => merge |= m == b,
            Some(Merge::Loop {
                merge: m,
                continue_target: c,
            }) => {
                merge |= m == b;
                cont |= c == b;
            }
            None => {}
        }
    }
    match (merge, cont) {
        (true, true) => "  merge, continue",
        (true, false) => "  merge",
        (false, true) => "  continue",
        // Switch case targets, where the lanes of one case wait for each other.
        (false, false) => "  case",
    }
}

/// The source lines block `b` came from, as `file:14-18` (`file:14` for one line), when the
/// module has line information for it.
pub fn source_lines(prog: &Program, b: BlockId) -> Option<String> {
    let d = prog.debug()?;
    let block = prog.blocks().get(b as usize)?;
    let pos: Vec<_> = block
        .inst_indices
        .iter()
        .filter_map(|k| d.pos(*k))
        .collect();
    let first = pos.first()?;
    let same: Vec<u32> = pos
        .iter()
        .filter(|p| p.file == first.file)
        .map(|p| p.line)
        .collect();
    let (lo, hi) = (*same.iter().min()?, *same.iter().max()?);
    let file = d.file_name(first.file).unwrap_or("");
    let file = file.rsplit(['/', '\\']).next().unwrap_or(file);
    Some(if lo == hi {
        format!("{file}:{lo}")
    } else {
        format!("{file}:{lo}-{hi}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_bodies_sit_between_header_and_merge_and_back_edges_are_found() {
        let (_, bytes, _) = crate::examples::EXAMPLES
            .iter()
            .find(|e| e.0 == "loop_divergent")
            .unwrap();
        let prog = lanescope_core::load(bytes, &Default::default()).unwrap();
        let l = CfgLayout::new(&prog, prog.entry_func());
        assert!(
            l.edges.iter().any(|e| e.2 == EdgeKind::Back),
            "a loop has a back edge"
        );
        for (b, block) in prog.blocks().iter().enumerate() {
            if let Some(Merge::Loop {
                merge,
                continue_target,
            }) = block.merge
            {
                let (h, _) = l.position(b as u32).unwrap();
                let (m, _) = l.position(merge).unwrap();
                let (c, _) = l.position(continue_target).unwrap();
                assert!(h < c && c < m, "header {h} < continue {c} < merge {m}");
            }
        }
        // Every block placed once, and no two in one slot.
        let mut slots: Vec<(u32, u32)> = l.nodes.iter().map(|n| (n.1, n.2)).collect();
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots.len(), l.nodes.len());
    }

    #[test]
    fn reconvergence_targets_are_labelled_by_what_declares_them() {
        let (_, bytes, _) = crate::examples::EXAMPLES
            .iter()
            .find(|e| e.0 == "loop_divergent")
            .unwrap();
        let prog = lanescope_core::load(bytes, &Default::default()).unwrap();
        let mut seen = 0;
        for block in prog.blocks() {
            if let Some(Merge::Loop {
                merge,
                continue_target,
            }) = block.merge
            {
                assert_eq!(target_kind(&prog, merge), "  merge");
                assert_eq!(target_kind(&prog, continue_target), "  continue");
                seen += 1;
            }
        }
        assert!(seen > 0, "the example has a loop");
    }
}
