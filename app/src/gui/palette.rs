//! One palette for the whole app: a tangle has the same colour in every view.

/// Colour of a tangle of subgroup `subgroup` holding the lanes in `mask`: by its lanes, not
/// its id, so a loop whose lanes stay together keeps one colour through every iteration (each
/// iteration is a new tangle) and the two sides of a split always differ. Tangles alive at once,
/// in any subgroup, get hues apart (see [`live_tangles`]); one never seen alive takes its
/// lanes' own hue.
pub fn tangle(subgroup: u32, mask: u128) -> egui::Color32 {
    let hue = HUES
        .with(|h| h.borrow().known.get(&(subgroup, mask)).copied())
        .unwrap_or_else(|| preferred_hue(subgroup, mask));
    egui::ecolor::Hsva::new(hue, 0.65, 0.95, 1.0).into()
}

/// The hue a tangle's lanes hash to, where nothing alive beside it is close.
fn preferred_hue(subgroup: u32, mask: u128) -> f32 {
    let folded = (mask as u64) ^ ((mask >> 64) as u64).rotate_left(17);
    let k = folded
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(23)
        .wrapping_add(u64::from(subgroup).wrapping_mul(0x0000_0001_0000_0193))
        % 997;
    (k as f32 * 0.618_034).fract()
}

/// Hues handed out so far, by (subgroup, lanes), and the tangles alive when last asked. A view
/// concern kept beside the palette (every view asks [`tangle`] for a colour, and none should
/// have to carry the assignment), one per thread: the app draws on one.
#[derive(Default)]
struct Hues {
    known: std::collections::HashMap<(u32, u128), f32>,
    live: Vec<(u32, u128)>,
}

thread_local! {
    static HUES: std::cell::RefCell<Hues> = std::cell::RefCell::default();
}

/// Runs `f` with hues of its own, the ones handed out before kept as they were: a run of the
/// app off screen must not colour the real one's tangles.
pub(crate) fn apart<R>(f: impl FnOnce() -> R) -> R {
    let saved = HUES.with(|h| std::mem::take(&mut *h.borrow_mut()));
    let r = f();
    HUES.with(|h| *h.borrow_mut() = saved);
    r
}

/// Distance between two hues on the colour wheel (0 to 0.5).
fn hue_distance(a: f32, b: f32) -> f32 {
    let d = (a - b).rem_euclid(1.0);
    d.min(1.0 - d)
}

/// Tells the palette which tangles are alive (once a frame; cheap when nothing changed). A
/// tangle keeps the hue it had while nothing alive is near it; one new, or one that came back
/// beside a near hue, moves to the hue farthest from the others, its lanes' own hue if that is
/// far enough. So subgroup 0's tangle never wears subgroup 1's colour, and a loop's lanes keep
/// theirs.
pub fn live_tangles(tangles: impl IntoIterator<Item = (u32, u128)>) {
    let mut live: Vec<(u32, u128)> = tangles.into_iter().collect();
    live.sort_unstable_by_key(|&(g, m)| (g, m.trailing_zeros(), m));
    live.dedup();
    // Spacing hundreds of hues apart tells nothing; the first subgroups' tangles are those on
    // screen together, and the cost stays small on a dispatch of thousands.
    live.truncate(64);
    HUES.with(|h| {
        let mut h = h.borrow_mut();
        if h.live == live {
            return;
        }
        // Far enough apart to tell at a glance, as far as the wheel allows for this many.
        let apart = (0.5 / live.len().max(1) as f32).min(0.08);
        let mut placed: Vec<f32> = Vec::with_capacity(live.len());
        let mut todo = Vec::new();
        for &key in &live {
            match h.known.get(&key) {
                Some(&hue) if placed.iter().all(|&p| hue_distance(p, hue) >= apart) => {
                    placed.push(hue);
                }
                _ => todo.push(key),
            }
        }
        for key in todo {
            let want = preferred_hue(key.0, key.1);
            let room = |hue: f32| {
                placed
                    .iter()
                    .map(|&p| hue_distance(p, hue))
                    .fold(1.0, f32::min)
            };
            let hue = if room(want) >= apart {
                want
            } else {
                // The candidate with the most room; nearest its own hue on a tie.
                (0..72)
                    .map(|i| (want + i as f32 / 72.0).fract())
                    .fold((want, room(want)), |best, hue| {
                        if room(hue) > best.1 + 1e-4 {
                            (hue, room(hue))
                        } else {
                            best
                        }
                    })
                    .0
            };
            h.known.insert(key, hue);
            placed.push(hue);
        }
        if h.known.len() > 4096 {
            let keep: std::collections::HashSet<_> = live.iter().copied().collect();
            h.known.retain(|k, _| keep.contains(k));
        }
        h.live = live;
    });
}

/// The colours of a tangle's marker in the graph on a block filled with `fill` (opaque, as it
/// shows on the panel: `panel_fill.blend(fill)` for egui's translucent and additive fills): the
/// band behind the lane dots, and the dots, darkened (on a light fill) or lightened (on a dark
/// one) until they stand 3:1 against the band, as WCAG asks of graphics.
pub fn marker(color: egui::Color32, fill: egui::Color32) -> (egui::Color32, egui::Color32) {
    let band = fill.lerp_to_gamma(color, 0.3);
    let toward = if luminance(band) > 0.18 {
        egui::Color32::BLACK
    } else {
        egui::Color32::WHITE
    };
    let mut dot = color;
    for i in 1..=20 {
        if contrast(dot, band) >= 3.0 {
            break;
        }
        dot = color.lerp_to_gamma(toward, i as f32 / 20.0);
    }
    (band, dot)
}

/// A letter for each tangle, so colour never names a tangle alone: within a subgroup, `A` is
/// the tangle holding the lowest lane, `B` the next, and so on (`?` past `Z`).
pub fn tangle_letter(
    tangles: &[lanescope_core::trace::TangleView],
    subgroup: u32,
    id: u64,
) -> char {
    let mut mine: Vec<(u32, u64)> = tangles
        .iter()
        .filter(|t| t.subgroup == subgroup)
        .map(|t| (t.lanes.lowest().unwrap_or(u32::MAX), t.id))
        .collect();
    mine.sort_unstable();
    mine.iter()
        .position(|(_, t)| *t == id)
        .and_then(|i| u8::try_from(i).ok())
        .filter(|i| *i < 26)
        .map_or('?', |i| char::from(b'A' + i))
}

/// The colour a host clears the window to before the frame is drawn: the panels' own, since
/// the panels draw no fill of their own ([`side_panel`], [`central_panel`]).
pub fn clear(visuals: &egui::Visuals) -> egui::Color32 {
    visuals.panel_fill
}

/// A side, top or bottom panel's frame without its fill: the window is already cleared to that
/// colour ([`clear`]), and a fill would shade every pixel of the window a second time. Under
/// software WebGL that fill was a frame's largest cost (about 19 ms of an empty frame's 20 at
/// 1400x860); a clear costs almost nothing.
pub fn side_panel(style: &egui::Style) -> egui::Frame {
    egui::Frame::side_top_panel(style).fill(egui::Color32::TRANSPARENT)
}

/// The central panel's frame without its fill (see [`side_panel`]).
pub fn central_panel(style: &egui::Style) -> egui::Frame {
    egui::Frame::central_panel(style).fill(egui::Color32::TRANSPARENT)
}

/// WCAG relative luminance of a colour.
pub fn luminance(c: egui::Color32) -> f32 {
    let lin = |v: u8| {
        let v = f32::from(v) / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(c.r()) + 0.7152 * lin(c.g()) + 0.0722 * lin(c.b())
}

/// WCAG contrast ratio of two colours (1 to 21; AA asks 4.5 for text).
pub fn contrast(a: egui::Color32, b: egui::Color32) -> f32 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Black or white, whichever reads better on `bg` (always at least 4.5:1).
pub fn text_on(bg: egui::Color32) -> egui::Color32 {
    if contrast(egui::Color32::BLACK, bg) >= contrast(egui::Color32::WHITE, bg) {
        egui::Color32::BLACK
    } else {
        egui::Color32::WHITE
    }
}

/// The app's changes to egui's visuals for `theme`: egui's pure red error text is under WCAG AA
/// on both themes' panels (3.9:1 and 4.3:1), so a darker red on light and a lighter one on dark;
/// and widgets' corners square instead of rounded by 6 points: a rounded, feathered outline
/// takes 103 triangles a button (58 at 2 points), a square one 10, and software WebGL, the
/// browser's renderer on machines without a GPU, pays ~1.5 us for every triangle each frame
/// (a stepped frame of the built-in example: 12,473 triangles with corners of 2, 9,753 square).
pub fn own(v: &mut egui::Visuals, theme: egui::Theme) {
    v.error_fg_color = match theme {
        egui::Theme::Light => LIGHT_ERROR,
        egui::Theme::Dark => DARK_ERROR,
    };
    let w = &mut v.widgets;
    for s in [
        &mut w.noninteractive,
        &mut w.inactive,
        &mut w.hovered,
        &mut w.active,
        &mut w.open,
    ] {
        s.corner_radius = WIDGET_RADIUS;
    }
}

/// Whether [`own`] has been applied to `v`.
pub fn is_own(v: &egui::Visuals, theme: egui::Theme) -> bool {
    let mut o = v.clone();
    own(&mut o, theme);
    o == *v
}

const WIDGET_RADIUS: egui::CornerRadius = egui::CornerRadius::ZERO;

/// Error text in the light and the dark theme.
pub const LIGHT_ERROR: egui::Color32 = egui::Color32::from_rgb(180, 0, 0);
pub const DARK_ERROR: egui::Color32 = egui::Color32::from_rgb(255, 90, 90);

pub const WAITING: egui::Color32 = egui::Color32::from_rgb(110, 110, 130);
pub const FINISHED: egui::Color32 = egui::Color32::from_rgb(55, 55, 60);
pub const POISON: egui::Color32 = egui::Color32::from_rgb(220, 60, 200);
pub const CHANGED: egui::Color32 = egui::Color32::from_rgb(240, 200, 60);

/// A grid's rows striped as egui's `Grid::striped` stripes them (every other row on the faint
/// background), but square and from this frame's rows: egui's stripes are rounded, 58 triangles
/// each under software WebGL where these are 10, and drawn from the last frame's row heights.
/// Made before the grid's first row; each row ends with [`Stripes::end_row`] in place of
/// `Ui::end_row` ([`Stripes::next`] for rows outside a grid).
pub struct Stripes {
    row: usize,
    /// Where the row being laid out begins, and its stripe's place in the paint list when it
    /// has one (odd rows that may be in sight).
    at: (f32, Option<egui::layers::ShapeIdx>),
}

impl Stripes {
    pub fn new(ui: &egui::Ui) -> Self {
        Stripes {
            row: 0,
            at: (ui.cursor().top(), None),
        }
    }

    pub fn end_row(&mut self, ui: &mut egui::Ui) {
        ui.end_row();
        self.next(ui);
    }

    /// Rows laid out one under another outside a grid: the row since the last call (or `new`)
    /// ends at the cursor.
    pub fn next(&mut self, ui: &egui::Ui) {
        let (top, shape) = self.at;
        let bottom = ui.cursor().top();
        if let Some(shape) = shape {
            let half = ui.spacing().item_spacing.y / 2.0;
            let rect =
                egui::Rect::from_x_y_ranges(ui.max_rect().x_range(), top - half..=bottom - half);
            let fill = ui.visuals().faint_bg_color;
            ui.painter()
                .set(shape, egui::Shape::rect_filled(rect, 0.0, fill));
        }
        self.row += 1;
        // (a row starting below the view is not drawn: no place kept for its stripe)
        let striped = self.row % 2 == 1 && bottom <= ui.clip_rect().bottom();
        self.at = (bottom, striped.then(|| ui.painter().add(egui::Shape::Noop)));
    }
}

#[cfg(test)]
mod tests {
    use super::{contrast, tangle, text_on};

    /// What [`super::apart`] runs hands out hues of its own: a tangle moved off its own hue
    /// beside a near one keeps the moved hue after it, alone, as it would without the run.
    #[test]
    fn hues_apart_leave_the_app_s_hues() {
        use super::{hue_distance, live_tangles, preferred_hue};
        let a = 1u128;
        let b = (2..10_000u128)
            .find(|&m| hue_distance(preferred_hue(0, a), preferred_hue(0, m)) < 0.02)
            .expect("two masks of near hues");
        live_tangles([(0, a), (0, b)]);
        let (ca, cb) = (tangle(0, a), tangle(0, b));
        assert_ne!(
            cb,
            tangle(7, b),
            "moved off its own hue (subgroup 7's is far)"
        );
        super::apart(|| {
            live_tangles([(0, b)]);
            live_tangles([(0, 3), (0, 5)]);
        });
        live_tangles([(0, b)]);
        assert_eq!((tangle(0, a), tangle(0, b)), (ca, cb));
    }

    /// Text on every tangle colour, on the highlight colours, and the themes' own text meets
    /// WCAG AA (4.5:1).
    #[test]
    fn text_meets_wcag_aa_on_every_colour() {
        for g in 0..8 {
            for k in 0..2000u64 {
                let mask = u128::from(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1;
                let c = tangle(g, mask);
                let r = contrast(text_on(c), c);
                assert!(r >= 4.5, "subgroup {g} mask {mask:#x}: {c:?} gives {r:.2}");
            }
        }
        let black = egui::Color32::BLACK;
        assert!(contrast(black, super::CHANGED) >= 4.5);
        let light = egui::Visuals {
            error_fg_color: super::LIGHT_ERROR,
            ..egui::Visuals::light()
        };
        let dark = egui::Visuals {
            error_fg_color: super::DARK_ERROR,
            ..egui::Visuals::dark()
        };
        for v in [dark, light] {
            let r = contrast(v.text_color(), v.panel_fill);
            assert!(r >= 4.5, "theme text {r:.2}");
            let r = contrast(v.error_fg_color, v.panel_fill);
            assert!(r >= 4.5, "error text {r:.2}");
        }
    }

    /// Tangles alive at once get hues apart, in any subgroup and however their lanes hash; a
    /// loop's lanes keep their colour from one iteration to the next.
    #[test]
    fn tangles_alive_at_once_have_distinct_colours() {
        use super::{hue_distance, live_tangles};
        let hue = |g: u32, m: u128| egui::ecolor::Hsva::from(tangle(g, m)).h;
        for seed in 0..200u64 {
            let n = 2 + (seed % 9) as u32;
            let live: Vec<(u32, u128)> = (0..n)
                .map(|i| {
                    let k = (seed * 31 + u64::from(i)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    (i % 3, u128::from(k >> 32) | 1)
                })
                .collect();
            live_tangles(live.iter().copied());
            for (i, a) in live.iter().enumerate() {
                for b in &live[i + 1..] {
                    let d = hue_distance(hue(a.0, a.1), hue(b.0, b.1));
                    assert!(
                        d >= (0.5 / n as f32).min(0.08) - 0.01,
                        "seed {seed}: {a:x?} and {b:x?} only {d:.3} apart"
                    );
                }
            }
        }
        // The same lanes alive again with the same neighbours: the same colour.
        let (a, b) = ((0, 0xffff_ffffu128), (1, 0xffff_ffffu128));
        live_tangles([a, b]);
        let before = tangle(a.0, a.1);
        live_tangles([(a.0, 0xffff), b]);
        live_tangles([a, b]);
        assert_eq!(tangle(a.0, a.1), before);
    }

    /// In both themes the graph's lane dots stand 3:1 against their band and the block.
    #[test]
    fn graph_markers_reach_3_to_1_in_both_themes() {
        use super::marker;
        for v in [egui::Visuals::light(), egui::Visuals::dark()] {
            // The graph's two block fills, as they show on the panel.
            for fill in [v.extreme_bg_color, v.faint_bg_color.gamma_multiply(1.6)] {
                let fill = v.panel_fill.blend(fill);
                for k in 0..360 {
                    let c = egui::ecolor::Hsva::new(k as f32 / 360.0, 0.65, 0.95, 1.0).into();
                    let (band, dot) = marker(c, fill);
                    let r = contrast(dot, band);
                    assert!(r >= 3.0, "hue {k} on {fill:?}: {r:.2}");
                }
            }
        }
    }

    #[test]
    fn a_tangle_is_coloured_by_its_lanes() {
        let full = 0xffff_ffffu128;
        // The same lanes: the same colour (a loop's next iteration is a new tangle id).
        assert_eq!(tangle(0, full), tangle(0, full));
        // Common splits and other subgroups all differ.
        let masks = [
            full,
            0xffff,
            0xffff_0000,
            0x5555_5555,
            0xaaaa_aaaa,
            0x9249_2492,
            full << 32 | full,
        ];
        let mut seen = Vec::new();
        for g in 0..4 {
            for m in masks {
                let c = tangle(g, m);
                assert!(
                    !seen.contains(&c),
                    "subgroup {g} mask {m:#x} repeats a colour"
                );
                seen.push(c);
            }
        }
    }
}
