//! Syntax colours for WGSL, GLSL and SPIR-V assembly: a small tokenizer producing an egui
//! layout job, with compiler errors underlined at their spans. Hand-written: a highlighter
//! crate would bring a grammar engine into the wasm build for three small languages.

use lanescope_front::{Diagnostic, Language};

const WGSL_KEYWORDS: &[&str] = &[
    "fn",
    "let",
    "var",
    "const",
    "override",
    "struct",
    "if",
    "else",
    "for",
    "while",
    "loop",
    "break",
    "continue",
    "continuing",
    "return",
    "switch",
    "case",
    "default",
    "enable",
    "requires",
    "alias",
    "discard",
    "true",
    "false",
    "break_if",
    "diagnostic",
];
const GLSL_KEYWORDS: &[&str] = &[
    "void",
    "if",
    "else",
    "for",
    "while",
    "do",
    "break",
    "continue",
    "return",
    "switch",
    "case",
    "default",
    "layout",
    "in",
    "out",
    "inout",
    "uniform",
    "buffer",
    "shared",
    "const",
    "readonly",
    "writeonly",
    "coherent",
    "volatile",
    "struct",
    "true",
    "false",
    "discard",
    "highp",
    "mediump",
    "lowp",
    "precise",
];
const TYPES: &[&str] = &[
    "u32",
    "i32",
    "f32",
    "f16",
    "bool",
    "vec2",
    "vec3",
    "vec4",
    "array",
    "atomic",
    "ptr",
    "mat2x2",
    "mat3x3",
    "mat4x4",
    "uint",
    "int",
    "float",
    "double",
    "uvec2",
    "uvec3",
    "uvec4",
    "ivec2",
    "ivec3",
    "ivec4",
    "dvec2",
    "dvec3",
    "dvec4",
    "mat2",
    "mat3",
    "mat4",
    "float16_t",
    "int8_t",
    "uint8_t",
    "int64_t",
    "uint64_t",
    "coop_mat8x8",
    "coop_mat16x16",
    "coopmat",
    "storage",
    "workgroup",
    "private",
    "function",
    "read",
    "read_write",
];

/// A layout job for `text` with syntax colours and diagnostics underlined.
pub fn highlight(
    text: &str,
    lang: Language,
    font: &egui::FontId,
    dark: bool,
    diagnostics: &[Diagnostic],
    error_color: egui::Color32,
) -> egui::text::LayoutJob {
    let (plain, comment, keyword, ty, number, string, id, attr) = if dark {
        (
            egui::Color32::from_rgb(220, 220, 220),
            egui::Color32::from_rgb(120, 160, 120),
            egui::Color32::from_rgb(220, 130, 230),
            egui::Color32::from_rgb(110, 200, 230),
            egui::Color32::from_rgb(230, 190, 120),
            egui::Color32::from_rgb(210, 160, 110),
            egui::Color32::from_rgb(150, 180, 250),
            egui::Color32::from_rgb(240, 220, 110),
        )
    } else {
        (
            egui::Color32::from_rgb(30, 30, 30),
            egui::Color32::from_rgb(40, 120, 40),
            egui::Color32::from_rgb(150, 30, 160),
            egui::Color32::from_rgb(20, 110, 150),
            egui::Color32::from_rgb(160, 90, 0),
            egui::Color32::from_rgb(150, 70, 20),
            egui::Color32::from_rgb(30, 70, 190),
            egui::Color32::from_rgb(130, 100, 0),
        )
    };
    // Byte ranges to underline.
    let mut underline: Vec<std::ops::Range<usize>> = Vec::new();
    for d in diagnostics.iter().filter(|d| d.line > 0) {
        let Some((start, line)) = text
            .split_inclusive('\n')
            .scan(0usize, |off, l| {
                let s = *off;
                *off += l.len();
                Some((s, l))
            })
            .nth(d.line as usize - 1)
        else {
            continue;
        };
        let line = line.trim_end_matches('\n');
        let (from, len) = if d.column == 0 {
            (0, line.chars().count())
        } else {
            ((d.column - 1) as usize, d.len.max(1) as usize)
        };
        let b0 = line.char_indices().nth(from).map_or(line.len(), |c| c.0);
        let b1 = line
            .char_indices()
            .nth(from + len)
            .map_or(line.len(), |c| c.0);
        let (b0, b1) = if b0 == b1 && b0 > 0 {
            (line[..b0].char_indices().last().map_or(0, |c| c.0), b1)
        } else {
            (b0, b1)
        };
        underline.push(start + b0..start + b1);
    }
    let mut job = egui::text::LayoutJob::default();
    let push = |job: &mut egui::text::LayoutJob, range: std::ops::Range<usize>, color| {
        // Split at underline boundaries so only the spanned characters get the stroke.
        let mut cuts = vec![range.start, range.end];
        for u in &underline {
            for b in [u.start, u.end] {
                if b > range.start && b < range.end {
                    cuts.push(b);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        for w in cuts.windows(2) {
            let under = underline.iter().any(|u| u.start <= w[0] && w[1] <= u.end);
            let format = egui::TextFormat {
                font_id: font.clone(),
                color,
                underline: if under {
                    egui::Stroke::new(2.0, error_color)
                } else {
                    egui::Stroke::NONE
                },
                ..Default::default()
            };
            job.append(&text[w[0]..w[1]], 0.0, format);
        }
    };
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let color;
        if lang == Language::SpirvAsm && c == b';' || c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            color = comment;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i = (i + 2).min(b.len());
            color = comment;
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            color = string;
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            color = number;
        } else if c == b'%' && lang == Language::SpirvAsm {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            color = id;
        } else if c == b'@' || (c == b'#' && lang == Language::Glsl) {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            color = attr;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let w = &text[start..i];
            color = match lang {
                Language::SpirvAsm if w.starts_with("Op") => keyword,
                Language::SpirvAsm => ty,
                Language::Wgsl if WGSL_KEYWORDS.contains(&w) => keyword,
                Language::Glsl if GLSL_KEYWORDS.contains(&w) => keyword,
                _ if TYPES.contains(&w) => ty,
                _ => plain,
            };
        } else {
            // Anything else up to the next interesting byte, whole characters at a time.
            i += 1;
            while i < b.len() && !text.is_char_boundary(i) {
                i += 1;
            }
            color = plain;
        }
        while !text.is_char_boundary(i) {
            i += 1;
        }
        push(&mut job, start..i, color);
    }
    if text.is_empty() {
        job.append("", 0.0, egui::TextFormat::simple(font.clone(), plain));
    }
    job
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlighting_keeps_every_character_and_underlines_the_span() {
        let text = "fn main() {\n    let x = 1u; // one\n}\n";
        let d = Diagnostic {
            line: 2,
            column: 9,
            len: 1,
            message: "m".into(),
            error: true,
            file: None,
        };
        let job = highlight(
            text,
            Language::Wgsl,
            &egui::FontId::monospace(12.0),
            true,
            &[d],
            egui::Color32::RED,
        );
        assert_eq!(job.text, text);
        let under: Vec<&str> = job
            .sections
            .iter()
            .filter(|s| s.format.underline != egui::Stroke::NONE)
            .map(|s| &text[s.byte_range.start.0..s.byte_range.end.0])
            .collect();
        assert_eq!(under, ["x"]);
    }
}
