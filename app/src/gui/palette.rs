//! One palette for the whole app: a tangle has the same colour in every view.

/// Colour of a tangle of subgroup `subgroup` holding the lanes in `mask`: by its lanes, not
/// its id, so a loop whose lanes stay together keeps one colour through every iteration (each
/// iteration is a new tangle) and the two sides of a split always differ.
pub fn tangle(subgroup: u32, mask: u128) -> egui::Color32 {
    let folded = (mask as u64) ^ ((mask >> 64) as u64).rotate_left(17);
    let k = folded
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(23)
        .wrapping_add(u64::from(subgroup).wrapping_mul(0x0000_0001_0000_0193))
        % 997;
    let hue = (k as f32 * 0.618_034).fract();
    egui::ecolor::Hsva::new(hue, 0.65, 0.95, 1.0).into()
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

/// Error text in the light and the dark theme.
pub const LIGHT_ERROR: egui::Color32 = egui::Color32::from_rgb(180, 0, 0);
pub const DARK_ERROR: egui::Color32 = egui::Color32::from_rgb(255, 90, 90);

pub const WAITING: egui::Color32 = egui::Color32::from_rgb(110, 110, 130);
pub const FINISHED: egui::Color32 = egui::Color32::from_rgb(55, 55, 60);
pub const POISON: egui::Color32 = egui::Color32::from_rgb(220, 60, 200);
pub const CHANGED: egui::Color32 = egui::Color32::from_rgb(240, 200, 60);

#[cfg(test)]
mod tests {
    use super::{contrast, tangle, text_on};

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
