//! Classroom lessons: `assets/lessons/NN-slug.md`, embedded at build time. Format: a `# Title`
//! line, `key: value` lines (`example`, `settings`, `view`) up to the first blank line, then
//! paragraphs and `- ` bullets.
//!
//! A lesson's text describes what the screen shows, so opening one fixes every setting the run
//! depends on: those its `settings:` line names, the built-in defaults for the rest (whatever
//! was set before, by hand or by a link). Only the limits and the animation speed stay the
//! person's.

use super::super::session::Settings;
use super::Tab;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lesson {
    pub slug: String,
    pub title: String,
    pub example: String,
    pub subgroup_size: u32,
    pub workgroups: [u32; 3],
    pub switch_tangles: lanescope_core::SwitchTangles,
    pub sibling_order: lanescope_core::SiblingOrder,
    pub layout: lanescope_core::coopmat::LayoutChoice,
    /// The view the text starts with.
    pub view: Tab,
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
        let d = Settings::default();
        let mut example = None;
        let mut view = None;
        let (mut subgroup_size, mut workgroups, mut per_case) =
            (d.subgroup_size, d.workgroups, d.switch_tangles);
        let (mut sibling_order, mut layout) = (d.sibling_order, d.coop_layout);
        for l in lines.by_ref() {
            if l.trim().is_empty() {
                break;
            }
            let (k, v) = l
                .split_once(':')
                .ok_or_else(|| format!("lesson {slug}: `{l}` is not `key: value`"))?;
            let bad = |s: &str| format!("lesson {slug}: unknown setting `{s}`");
            match k.trim() {
                "example" => example = Some(v.trim().to_owned()),
                "view" => {
                    view =
                        Some(Tab::by_name(v.trim()).ok_or_else(|| {
                            format!("lesson {slug}: `{}` is not a view", v.trim())
                        })?);
                }
                "settings" => {
                    for s in v.split_whitespace() {
                        let (name, value) = s.split_once('=').unwrap_or((s, ""));
                        match name {
                            "per-case" => per_case = lanescope_core::SwitchTangles::PerCase,
                            "per-value" => per_case = lanescope_core::SwitchTangles::PerValue,
                            "subgroup" => {
                                subgroup_size = value
                                    .parse::<u32>()
                                    .ok()
                                    .filter(|n| n.is_power_of_two() && (4..=128).contains(n))
                                    .ok_or_else(|| bad(s))?;
                            }
                            "workgroups" => {
                                let w: Vec<u32> = value
                                    .split(',')
                                    .map(|x| x.parse().ok().filter(|n| (1..=1024).contains(n)))
                                    .collect::<Option<_>>()
                                    .ok_or_else(|| bad(s))?;
                                workgroups = w.try_into().map_err(|_| bad(s))?;
                            }
                            "order" => {
                                sibling_order = <lanescope_core::SiblingOrder as lanescope_core::NamedSetting>::parse(value)
                                    .ok_or_else(|| bad(s))?;
                            }
                            "layout" => {
                                layout = lanescope_core::coopmat::LayoutChoice::by_name(value)
                                    .ok_or_else(|| bad(s))?;
                            }
                            _ => return Err(bad(s)),
                        }
                    }
                }
                _ => {} // Other keys are notes for authors.
            }
        }
        let example = example.ok_or_else(|| format!("lesson {slug}: no `example:` line"))?;
        let view = view.unwrap_or(match example.split('_').next() {
            Some("rotate") => Tab::Rotate,
            Some("dot") => Tab::Dot,
            Some("coopmat") => Tab::Matrix,
            _ => Tab::Timeline,
        });
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
            subgroup_size,
            workgroups,
            switch_tangles: per_case,
            sibling_order,
            layout,
            view,
            body,
        })
    }

    /// The settings the lesson runs under: all of its own, with the limits and speed of `now`.
    pub fn settings(&self, now: &Settings) -> Settings {
        Settings {
            subgroup_size: self.subgroup_size,
            workgroups: self.workgroups,
            switch_tangles: self.switch_tangles,
            sibling_order: self.sibling_order,
            coop_layout: self.layout.clone(),
            ..Settings::default()
        }
        .with_limits_of(now)
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
        assert_eq!(
            (l.switch_tangles, l.subgroup_size),
            (lanescope_core::SwitchTangles::PerCase, 16)
        );
        assert_eq!(l.view, super::Tab::Timeline, "by the example's kind");
        assert_eq!(l.body, ["One line.", "- a\n- b"]);
        // Every setting has a value, named or the default.
        let all = Lesson::parse(
            "x",
            "# T\nexample: e\nview: lanes\nsettings: workgroups=2,1,1 order=newest layout=amd-rdna3\n\nx",
        )
        .unwrap();
        assert_eq!(all.view, super::Tab::Lanes);
        assert_eq!(
            (all.workgroups, all.sibling_order),
            ([2, 1, 1], lanescope_core::SiblingOrder::Newest)
        );
        assert_eq!(
            (all.subgroup_size, all.switch_tangles),
            (32, lanescope_core::SwitchTangles::PerValue)
        );
        assert_eq!(all.layout.name(), "amd-rdna3");
        assert!(Lesson::parse("x", "no title").is_err());
        for bad in [
            "subgroup=3",
            "workgroups=1,1",
            "order=sideways",
            "layout=none",
            "fast",
        ] {
            let text = format!("# T\nexample: e\nsettings: {bad}\n\nx");
            assert!(Lesson::parse("x", &text).is_err(), "{bad}");
        }
        assert!(Lesson::parse("x", "# T\nexample: e\nview: nowhere\n\nx").is_err());
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
