//! Classroom lessons: `assets/lessons/NN-slug.md`, embedded at build time. Format: a `# Title`
//! line, `key: value` lines (`example`, `settings`) up to the first blank line, then paragraphs
//! and `- ` bullets.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lesson {
    pub slug: String,
    pub title: String,
    pub example: String,
    pub per_case: Option<bool>,
    pub subgroup_size: Option<u32>,
    /// Paragraphs; a bullet list is one paragraph of lines starting with `- `.
    pub body: Vec<String>,
}

impl Lesson {
    pub fn parse(slug: &str, text: &str) -> Result<Self, String> {
        let mut lines = text.lines();
        let title = lines
            .next()
            .and_then(|l| l.strip_prefix("# "))
            .ok_or_else(|| format!("lesson {slug}: the first line must be `# Title`"))?
            .trim()
            .to_owned();
        let mut example = None;
        let (mut per_case, mut subgroup_size) = (None, None);
        for l in lines.by_ref() {
            if l.trim().is_empty() {
                break;
            }
            let (k, v) = l
                .split_once(':')
                .ok_or_else(|| format!("lesson {slug}: `{l}` is not `key: value`"))?;
            match k.trim() {
                "example" => example = Some(v.trim().to_owned()),
                "settings" => {
                    for s in v.split_whitespace() {
                        match s {
                            "per-case" => per_case = Some(true),
                            "per-value" => per_case = Some(false),
                            _ => {
                                let n = s
                                    .strip_prefix("subgroup=")
                                    .and_then(|n| n.parse::<u32>().ok())
                                    .filter(|n| n.is_power_of_two() && (4..=128).contains(n))
                                    .ok_or_else(|| {
                                        format!("lesson {slug}: unknown setting `{s}`")
                                    })?;
                                subgroup_size = Some(n);
                            }
                        }
                    }
                }
                _ => {} // Other keys are notes for authors.
            }
        }
        let example = example.ok_or_else(|| format!("lesson {slug}: no `example:` line"))?;
        let mut body = Vec::new();
        let mut para = String::new();
        for l in lines {
            if l.trim().is_empty() {
                if !para.is_empty() {
                    body.push(std::mem::take(&mut para));
                }
                continue;
            }
            if !para.is_empty() {
                para.push(if l.starts_with("- ") { '\n' } else { ' ' });
            }
            para.push_str(l.trim_end());
        }
        if !para.is_empty() {
            body.push(para);
        }
        Ok(Self {
            slug: slug.to_owned(),
            title,
            example,
            per_case,
            subgroup_size,
            body,
        })
    }
}

/// Every embedded lesson, in order. Malformed ones are reported, not dropped silently.
pub fn all() -> (Vec<Lesson>, Vec<String>) {
    let mut ok = Vec::new();
    let mut errors = Vec::new();
    for (slug, text) in crate::examples::LESSONS {
        match Lesson::parse(slug, text) {
            Ok(l) => ok.push(l),
            Err(e) => errors.push(e),
        }
    }
    (ok, errors)
}

/// Lays out a lesson's text: paragraphs wrap, `code` is monospace.
pub fn show(ui: &mut egui::Ui, l: &Lesson, size: f32) {
    ui.label(egui::RichText::new(&l.title).strong().size(size * 1.25));
    for p in &l.body {
        let mut job = egui::text::LayoutJob::default();
        for (k, part) in p.split('`').enumerate() {
            let font = if k % 2 == 1 {
                egui::FontId::monospace(size * 0.95)
            } else {
                egui::FontId::proportional(size)
            };
            let color = if k % 2 == 1 {
                ui.visuals().strong_text_color()
            } else {
                ui.visuals().text_color()
            };
            job.append(part, 0.0, egui::TextFormat::simple(font, color));
        }
        job.wrap.max_width = ui.available_width();
        ui.label(job);
        ui.add_space(size * 0.4);
    }
}

#[cfg(test)]
mod tests {
    use super::{all, Lesson};

    #[test]
    fn parses_header_settings_and_paragraphs() {
        let l = Lesson::parse(
            "05-switch",
            "# Switch\nexample: switch_fallthrough\nsettings: per-case subgroup=16\n\nOne\nline.\n\n- a\n- b\n",
        )
        .unwrap();
        assert_eq!(l.title, "Switch");
        assert_eq!(l.example, "switch_fallthrough");
        assert_eq!((l.per_case, l.subgroup_size), (Some(true), Some(16)));
        assert_eq!(l.body, ["One line.", "- a\n- b"]);
        assert!(Lesson::parse("x", "no title").is_err());
        assert!(Lesson::parse("x", "# T\nsettings: subgroup=3\n\nx").is_err());
        assert!(Lesson::parse("x", "# T\n\nbody").is_err(), "no example");
    }

    #[test]
    fn every_embedded_lesson_parses_and_names_a_built_in_example() {
        let (lessons, errors) = all();
        assert!(errors.is_empty(), "{errors:?}");
        assert!(lessons.len() >= 10, "{} lessons", lessons.len());
        for l in &lessons {
            assert!(
                crate::examples::EXAMPLES.iter().any(|e| e.0 == l.example),
                "{}: no example {}",
                l.slug,
                l.example
            );
            assert!(!l.body.is_empty(), "{} has no text", l.slug);
        }
    }
}
