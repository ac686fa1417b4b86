//! The app's two faces: egui's own Hack (code, values) and Ubuntu Light (everything else),
//! without their TrueType hinting programs (egui hints outlines itself when a face has none),
//! which halves what the browser page downloads for them. `scripts/build-fonts.py` makes the
//! files from the ones egui ships; the licences are beside them.

use std::sync::Arc;

const HACK: &[u8] = include_bytes!("../../../assets/fonts/Hack-Regular-unhinted.ttf");
const UBUNTU_LIGHT: &[u8] =
    include_bytes!("../../../assets/fonts/Ubuntu-Light-derivative-Lanescope.ttf");

/// egui's default families, over these faces: each family falls back to the other face.
pub fn definitions() -> egui::FontDefinitions {
    let mut d = egui::FontDefinitions::empty();
    d.font_data.insert(
        "Hack".to_owned(),
        Arc::new(egui::FontData::from_static(HACK)),
    );
    d.font_data.insert(
        "Ubuntu-Light".to_owned(),
        Arc::new(egui::FontData::from_static(UBUNTU_LIGHT)),
    );
    d.families.insert(
        egui::FontFamily::Monospace,
        vec!["Hack".to_owned(), "Ubuntu-Light".to_owned()],
    );
    d.families.insert(
        egui::FontFamily::Proportional,
        vec!["Ubuntu-Light".to_owned(), "Hack".to_owned()],
    );
    d
}

#[cfg(test)]
mod tests {
    /// Every character the app's own text uses (menus, views, lessons) has a glyph in the
    /// faces, so nothing draws as a missing-glyph box.
    #[test]
    fn the_faces_cover_the_apps_own_text() {
        let ctx = egui::Context::default();
        ctx.set_fonts(super::definitions());
        let mut missing = std::collections::BTreeSet::new();
        let texts = crate::examples::LESSONS
            .iter()
            .map(|(_, text)| *text)
            .chain([
                include_str!("toolbar.rs"),
                include_str!("tabs/mod.rs"),
                include_str!("tabs/lanes.rs"),
                include_str!("tabs/extension.rs"),
                include_str!("panels/mod.rs"),
                include_str!("panels/values.rs"),
                include_str!("panels/diagnostics.rs"),
                include_str!("panels/disassembly.rs"),
                include_str!("keys.rs"),
                include_str!("action/export.rs"),
                include_str!("action/mod.rs"),
                include_str!("views/rotate.rs"),
                include_str!("views/matrix.rs"),
                include_str!("views/dot.rs"),
                include_str!("views/timeline.rs"),
            ]);
        ctx.run_ui(egui::RawInput::default(), |ui| {
            // The check can fail: the faces have no CJK.
            assert!(!ui.fonts_mut(|f| f.has_glyph(&egui::FontId::monospace(14.0), '漢')));
            for text in texts.clone() {
                for c in text.chars().filter(|c| !c.is_control()) {
                    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
                        let id = egui::FontId::new(14.0, family);
                        if !ui.fonts_mut(|f| f.has_glyph(&id, c)) {
                            missing.insert(c);
                        }
                    }
                }
            }
        })
        // (the font atlas's first upload is let go: no painter here)
        .textures_delta
        .clear();
        assert!(missing.is_empty(), "no glyph for {missing:?}");
    }
}
