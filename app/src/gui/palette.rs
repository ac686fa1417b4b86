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

pub const WAITING: egui::Color32 = egui::Color32::from_rgb(110, 110, 130);
pub const FINISHED: egui::Color32 = egui::Color32::from_rgb(55, 55, 60);
pub const POISON: egui::Color32 = egui::Color32::from_rgb(220, 60, 200);
pub const CHANGED: egui::Color32 = egui::Color32::from_rgb(240, 200, 60);

#[cfg(test)]
mod tests {
    use super::tangle;

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
