//! One palette for the whole app: a tangle has the same colour in every view.

/// Colour of tangle `id` of subgroup `subgroup`: golden-ratio hue steps keep neighbours apart.
pub fn tangle(subgroup: u32, id: u64) -> egui::Color32 {
    let k = id
        .wrapping_mul(0x9e37_79b9)
        .wrapping_add(u64::from(subgroup) * 7)
        % 997;
    let hue = (k as f32 * 0.618_034).fract();
    egui::ecolor::Hsva::new(hue, 0.65, 0.95, 1.0).into()
}

pub const WAITING: egui::Color32 = egui::Color32::from_rgb(110, 110, 130);
pub const FINISHED: egui::Color32 = egui::Color32::from_rgb(55, 55, 60);
pub const POISON: egui::Color32 = egui::Color32::from_rgb(220, 60, 200);
pub const CHANGED: egui::Color32 = egui::Color32::from_rgb(240, 200, 60);
