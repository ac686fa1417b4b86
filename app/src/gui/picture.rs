//! A 2D image as a picture beside its numbers: one square per texel (the first slice or layer,
//! sample 0), the texels the last step wrote outlined, a texel's values on hover.

use super::palette;
use lanescope_core::program::image::{ChannelKind, ImageDesc};

/// Texels shown along each axis at most (the rest are summarised in words).
pub const MAX_SIDE: u32 = 128;

/// One texel's channels as numbers: floats for normalised and float formats, integers as they
/// are.
pub fn texel_values(d: &ImageDesc, data: &[u8], index: usize) -> Vec<f64> {
    let f = d.format;
    let base = index * d.samples.max(1) as usize * f.texel_bytes() as usize;
    let read = |at: usize, size: usize| {
        let mut b = [0u8; 8];
        if let Some(src) = data.get(at..at + size) {
            b[..size].copy_from_slice(src);
        }
        u64::from_le_bytes(b)
    };
    // A packed format's channels share one word; the others each have their own bytes.
    let packed = f
        .packed
        .map(|_| f.unpack(read(base, f.texel_bytes() as usize)));
    (0..f.channels as usize)
        .map(|c| {
            let raw = match packed {
                Some(p) => p[c],
                None => read(base + c * (f.bits as usize / 8), f.bits as usize / 8),
            };
            f.channel_value(c, raw)
        })
        .collect()
}

/// Shows the picture; `prev` is the image before the last step (changed texels outlined).
pub fn show(ui: &mut egui::Ui, name: &str, d: &ImageDesc, data: &[u8], prev: Option<&[u8]>) {
    let [w, h, _] = d.extent;
    let (sw, sh) = (w.min(MAX_SIDE), h.min(MAX_SIDE));
    let texel_bytes = d.format.texel_bytes() as usize * d.samples.max(1) as usize;
    let values: Vec<Vec<f64>> = (0..sh)
        .flat_map(|y| (0..sw).map(move |x| (y * w + x) as usize))
        .map(|i| texel_values(d, data, i))
        .collect();
    // Integers are shown between the smallest and largest value in sight, per channel;
    // normalised and float channels as 0..1.
    let integer = matches!(d.format.kind, ChannelKind::Uint | ChannelKind::Sint);
    let channels = d.format.channels as usize;
    let range: Vec<(f64, f64)> = (0..channels)
        .map(|c| {
            if !integer {
                return if d.format.kind == ChannelKind::Snorm {
                    (-1.0, 1.0)
                } else {
                    (0.0, 1.0)
                };
            }
            let it = values.iter().map(|v| v[c]);
            let lo = it.clone().fold(f64::INFINITY, f64::min);
            let hi = it.fold(f64::NEG_INFINITY, f64::max);
            (lo, if hi > lo { hi } else { lo + 1.0 })
        })
        .collect();
    let scale = |c: usize, v: f64| -> u8 {
        let (lo, hi) = range[c];
        (((v - lo) / (hi - lo)).clamp(0.0, 1.0) * 255.0).round() as u8
    };
    // Whole points per texel, a little inside the width: a picture as wide as the panel would
    // make it scroll sideways.
    let side = ((ui.available_width() - 8.0).min(384.0) / sw as f32)
        .floor()
        .clamp(2.0, 24.0);
    let size = egui::vec2(side * sw as f32, side * sh as f32);
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
    response.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Image, true, format!("picture of `{name}`"))
    });
    let painter = ui.painter_at(rect);
    let mut changed = Vec::new();
    for y in 0..sh {
        for x in 0..sw {
            let k = (y * sw + x) as usize;
            let v = &values[k];
            let color = match channels {
                1 => {
                    let g = scale(0, v[0]);
                    egui::Color32::from_rgb(g, g, g)
                }
                2 => egui::Color32::from_rgb(scale(0, v[0]), scale(1, v[1]), 0),
                _ => egui::Color32::from_rgb(scale(0, v[0]), scale(1, v[1]), scale(2, v[2])),
            };
            let r = egui::Rect::from_min_size(
                rect.min + egui::vec2(x as f32 * side, y as f32 * side),
                egui::vec2(side, side),
            );
            painter.rect_filled(r, 0.0, color);
            let i = (y * w + x) as usize * texel_bytes;
            if prev.is_some_and(|p| p.get(i..i + texel_bytes) != data.get(i..i + texel_bytes)) {
                changed.push(r);
            }
        }
    }
    for r in &changed {
        painter.rect_stroke(
            r.shrink(0.5),
            0.0,
            egui::Stroke::new(1.5, palette::CHANGED),
            egui::StrokeKind::Inside,
        );
    }
    if let Some(p) = response.hover_pos() {
        let x = ((p.x - rect.min.x) / side) as u32;
        let y = ((p.y - rect.min.y) / side) as u32;
        if x < sw && y < sh {
            let v = &values[(y * sw + x) as usize];
            let text: Vec<String> = v.iter().map(|x| format!("{x}")).collect();
            response.on_hover_text(format!("texel ({x}, {y}): {}", text.join(", ")));
        }
    }
    let mut note = format!(
        "{}x{}x{} {}{}",
        w,
        h,
        d.extent[2],
        d.format.name,
        if d.samples > 1 {
            format!(", {} samples (sample 0 shown)", d.samples)
        } else {
            String::new()
        }
    );
    if d.extent[2] > 1 {
        note.push_str("; first slice or layer shown");
    }
    if sw < w || sh < h {
        note.push_str(&format!("; the first {sw}x{sh} texels shown"));
    }
    if !changed.is_empty() {
        note.push_str(&format!(
            "; {} written by the last step (outlined)",
            changed.len()
        ));
    }
    ui.weak(note);
}
