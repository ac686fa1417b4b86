//! The source pane drawn: line numbers and the breakpoint gutter (which never scroll away), the
//! text (editable or read-only), the current line of each tangle as a band with chips, errors
//! underlined, hover on a variable for its value.

use super::{language_title, short_name, DEBOUNCE_SECONDS};
use crate::gui::palette;
use crate::gui::state::LanescopeApp;
use lanescope_front::{Diagnostic, Language};

/// What the pane shows: the editor's text, or a file of the module's debug information.
enum Shown<'a> {
    Edit,
    ReadOnly(&'a str, u32),
}

/// The source pane (inside the left panel). Returns nothing; edits mark the editor for a
/// recompile, gutter clicks toggle breakpoints.
/// Where the current line's band was drawn last frame and the area then visible (for tests).
pub fn current_line_id() -> egui::Id {
    egui::Id::unique("source-current-line")
}

pub fn source_view(app: &mut LanescopeApp, ui: &mut egui::Ui) {
    let language = app.editor.as_ref().map(|e| e.language);
    // Header: language, state, messages.
    let mut name_label = None;
    ui.horizontal_wrapped(|ui| {
        if let Some(e) = &app.editor {
            name_label = Some(ui.label(egui::RichText::new(&e.name).strong()).id);
            ui.label(egui::RichText::new(language_title(e.language)).weak());
            if e.stale {
                ui.label(
                    egui::RichText::new("stale: showing the last run that compiled")
                        .color(ui.visuals().error_fg_color),
                )
                .on_hover_text("the current text does not compile; fix the error to run it");
            } else if e.edited_at.is_some() {
                ui.label(egui::RichText::new("compiling…").weak());
            }
            if let Some(job) = &app.compiling {
                let secs = job.seconds();
                ui.label(egui::RichText::new(format!("compiling… {secs:.1} s")).weak())
                    .on_hover_text(if cfg!(target_arch = "wasm32") {
                        "the compiler runs in a worker of the page under the compile time limit \
                         (Limits menu); editing the text again cancels it"
                    } else {
                        "the compiler runs in a process of its own under the compile limits \
                         (Limits menu); editing the text again cancels it"
                    });
            }
            let errors = e.diagnostics.iter().filter(|d| d.error).count();
            let warnings = e.diagnostics.len() - errors;
            if errors > 0 {
                ui.label(
                    egui::RichText::new(format!(
                        "{errors} error{}",
                        if errors == 1 { "" } else { "s" }
                    ))
                    .color(ui.visuals().error_fg_color),
                );
            }
            if warnings > 0 {
                ui.label(
                    egui::RichText::new(format!(
                        "{warnings} warning{}",
                        if warnings == 1 { "" } else { "s" }
                    ))
                    .color(ui.visuals().warn_fg_color),
                );
            }
        } else if let Some(s) = &app.session {
            name_label = Some(
                ui.label(egui::RichText::new("source from the module's debug information").weak())
                    .id,
            );
            let _ = s;
        }
    });
    super::build_view::build_section(app, ui);

    // Which text: the editor's, or the debug information's file where the current tangle is.
    // The program is shared (an `Arc`): the text is borrowed from it, not copied per frame.
    let program = app
        .session
        .as_ref()
        .map(|s| std::sync::Arc::clone(&s.program));
    let focus = app.session.as_ref().and_then(|s| s.focus_instruction());
    let debug_file = program.as_deref().and_then(|p| {
        let d = p.debug()?;
        let file = focus.and_then(|k| d.pos(k)).map(|p| p.file).or_else(|| {
            d.files
                .iter()
                .position(|f| f.text.is_some())
                .map(|i| i as u32)
        })?;
        Some((d.files.get(file as usize)?.text.as_deref()?, file))
    });
    // A module built from several files (includes): a tab per file with text, and one that
    // follows the current tangle. The edited file shows as the editor.
    let files: Vec<(u32, String)> = program
        .as_deref()
        .and_then(|p| p.debug())
        .map(|d| {
            (0u32..)
                .zip(&d.files)
                .filter(|(_, f)| f.text.is_some())
                .map(|(i, f)| (i, short_name(&f.name)))
                .collect()
        })
        .unwrap_or_default();
    if app
        .source_file
        .is_some_and(|f| !files.iter().any(|x| x.0 == f))
    {
        app.source_file = None;
    }
    if files.len() > 1 {
        ui.horizontal_wrapped(|ui| {
            ui.selectable_value(&mut app.source_file, None, "follow the run")
                .on_hover_text("show the file the current tangle is in");
            for (i, name) in &files {
                ui.selectable_value(&mut app.source_file, Some(*i), name.as_str());
            }
        });
    }
    let editor_file = app.editor.as_ref().and_then(|e| {
        let d = program.as_deref()?.debug()?;
        d.file_index(&e.name).or(Some(0))
    });
    let picked = app.source_file.or_else(|| {
        // Following: the file of the current instruction's own position (one without a
        // position keeps the edited file on screen).
        let d = program.as_deref()?.debug()?;
        focus.and_then(|k| d.pos(k)).map(|p| p.file)
    });
    let other_file = picked.filter(|f| Some(*f) != editor_file).and_then(|f| {
        let d = program.as_deref()?.debug()?;
        Some((d.files.get(f as usize)?.text.as_deref()?, f))
    });
    let shown = if let (Some((t, f)), true) = (other_file, app.editor.is_some()) {
        Shown::ReadOnly(t, f)
    } else if app.editor.is_some() {
        Shown::Edit
    } else if let Some((t, f)) = app
        .source_file
        .and_then(|f| {
            let d = program.as_deref()?.debug()?;
            Some((d.files.get(f as usize)?.text.as_deref()?, f))
        })
        .or(debug_file)
    {
        Shown::ReadOnly(t, f)
    } else {
        ui.label("This module carries no source. Open a .wgsl, .comp or .spvasm file, pick New, or compile with debug information (glslangValidator -g or -gVS).");
        return;
    };

    // Where each tangle is, by source line of the shown file.
    let file_of_editor = match &shown {
        Shown::ReadOnly(_, f) => Some(*f),
        Shown::Edit => app.session.as_ref().and_then(|s| {
            let d = s.program.debug()?;
            let name = &app.editor.as_ref()?.name;
            d.file_index(name).or(Some(0))
        }),
    };
    let mut at_line: std::collections::BTreeMap<u32, Vec<(u32, u128, u32)>> = Default::default();
    let mut current_line = None;
    if let (Some(s), Some(file)) = (&app.session, file_of_editor) {
        if !app.editor.as_ref().is_some_and(|e| e.stale) {
            let sim = s.sim();
            let focus = s.focus_instruction();
            for t in sim.tangles() {
                let Some(k) = sim.tangle_instruction(t.subgroup as usize, t.id) else {
                    continue;
                };
                let Some(p) = sim.tangle_source_pos(t.subgroup as usize, t.id) else {
                    continue;
                };
                if p.file != file {
                    continue;
                }
                at_line
                    .entry(p.line)
                    .or_default()
                    .push((t.subgroup, t.lanes.0, t.lanes.count()));
                if Some(k) == focus {
                    current_line = Some(p.line);
                }
            }
        }
    }
    let breakpoint_lines: std::collections::BTreeSet<u32> = match (&app.session, file_of_editor) {
        (Some(s), Some(file)) => s
            .breakpoints
            .iter()
            .filter_map(|k| s.sim().source_pos(*k))
            .filter(|p| p.file == file)
            .map(|p| p.line)
            .collect(),
        _ => Default::default(),
    };

    // Lines where a run-time diagnostic happened: a marker in the gutter.
    let mut diag_lines: std::collections::BTreeMap<u32, String> = Default::default();
    if let (Some(s), Some(file)) = (&app.session, file_of_editor) {
        let name = s
            .program
            .debug()
            .and_then(|d| d.file_name(file))
            .map(str::to_owned);
        for d in s.sim().diagnostics() {
            if let (Some(l), true) = (d.source.line, d.source.file == name) {
                diag_lines
                    .entry(l)
                    .or_insert_with(|| format!("{}: {}", d.code, d.message));
            }
        }
    }
    // The edited file's own messages: those in an included file are about other lines.
    let diagnostics: Vec<Diagnostic> = app
        .editor
        .as_ref()
        .map(|e| {
            e.diagnostics
                .iter()
                .filter(|d| d.file.is_none())
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let lang = language.unwrap_or(Language::Glsl);
    let dark = ui.visuals().dark_mode;
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let error_color = ui.visuals().error_fg_color;
    let mut layouter = |ui: &egui::Ui, buf: &dyn egui::TextBuffer, wrap: f32| {
        let mut job = crate::gui::highlight::highlight(
            buf.as_str(),
            lang,
            &font,
            dark,
            &diagnostics,
            error_color,
        );
        // Code does not wrap: the pane scrolls sideways.
        let _ = wrap;
        job.wrap.max_width = f32::INFINITY;
        ui.fonts_mut(|f| f.layout_job(job))
    };
    const GUTTER: f32 = 58.0;
    let mut toggle_line = None;
    let mut hover_msg = None;
    let scroll_to = app.source_scroll.take();
    let mut area = egui::ScrollArea::both()
        .id_salt("source")
        .auto_shrink([false, false]);
    if let Some(line) = scroll_to {
        let row_h = ui.fonts_mut(|f| f.row_height(&egui::TextStyle::Monospace.resolve(ui.style())));
        area = area.vertical_scroll_offset(((line as f32) - 6.0).max(0.0) * row_h);
    }
    // Another module starts scrolled to its left edge, whatever the last one was scrolled to.
    let module = app.session.as_ref().map(|s| s.name.clone());
    let module_id = egui::Id::unique("source-module");
    if ui.ctx().data(|d| d.get_temp::<Option<String>>(module_id)) != Some(module.clone()) {
        ui.ctx().data_mut(|d| d.insert_temp(module_id, module));
        area = area.horizontal_scroll_offset(0.0);
    }
    // Values of a source variable by name, where the followed tangle stands.
    let followed = app.line_step_tangle();
    let variable_lanes = app.session.as_ref().zip(followed).map(|(s, (g, id))| {
        let sim = s.sim();
        let program = &s.program;
        move |name: &str| -> Option<String> {
            let k = sim.tangle_instruction(g, id)?;
            let var = sim.variable_named(k, name)?;
            let val = sim.source_value(g, var, k)?;
            let lanes = sim
                .tangles()
                .iter()
                .find(|t| t.subgroup as usize == g && t.id == id)?
                .lanes;
            let tys = program.types().flat.get(val.ty as usize).map(Vec::as_slice);
            let mut rows: Vec<String> = lanes
                .iter()
                .filter_map(|l| {
                    let mut t = crate::gui::views::format_source_lane(&val, tys, l as usize)?;
                    if t.chars().count() > 40 {
                        t = t.chars().take(40).collect::<String>() + "…";
                    }
                    Some(format!("lane {l}: {t}"))
                })
                .collect();
            if rows.len() > 16 {
                let n = rows.len() - 16;
                rows.truncate(16);
                rows.push(format!("… {n} more lanes"));
            }
            Some(format!(
                "{name} (subgroup {g}, tangle {id})\n{}",
                rows.join("\n")
            ))
        }
    });
    let mut changed = false;
    let mut source_response = None;
    let mut current_band = None;
    // The view follows the current line when it moves (not while the person scrolls). Asked
    // inside the scroll area: a request after it has ended would reach another one.
    let follow = current_line != app.source_last_line;
    area.show(ui, |ui| {
        let mut owned;
        let mut ro: &str;
        let buffer: &mut dyn egui::TextBuffer = match (&shown, app.editor.as_mut()) {
            (Shown::Edit, Some(e)) => &mut e.text,
            (Shown::ReadOnly(t, _), _) => {
                ro = t;
                &mut ro
            }
            _ => {
                owned = String::new();
                &mut owned
            }
        };
        let mut out = egui::TextEdit::multiline(buffer)
            .id_salt("source-text")
            .code_editor()
            .desired_width(f32::INFINITY)
            .desired_rows(30)
            .margin(egui::Margin {
                left: GUTTER as i8,
                right: 4,
                top: 2,
                bottom: 2,
            })
            .layouter(&mut layouter)
            .show(ui);
        if let Some(l) = name_label {
            out.response.response = out.response.response.clone().labelled_by(l);
        }
        changed = out.response.changed();
        let galley = &out.galley;
        let origin = out.galley_pos;
        let painter = ui.painter();
        let full = ui.clip_rect();
        // The gutter (line numbers, breakpoints, diagnostics) stays at the visible left edge
        // when the text scrolls sideways, over the text that scrolls under it.
        let gutter_x = full.left();
        let text_x = gutter_x + GUTTER;
        if origin.x < text_x {
            painter.rect_filled(
                egui::Rect::from_min_max(
                    egui::pos2(gutter_x, full.top()),
                    egui::pos2(text_x - 2.0, full.bottom()),
                ),
                0.0,
                ui.visuals().extreme_bg_color,
            );
        }
        // Rows of the galley that start a source line, numbered from 1.
        let mut line = 1u32;
        let mut starts = true;
        for row in &galley.rows {
            let r = row.rect().translate(origin.to_vec2());
            if starts {
                let y = r.center().y;
                let band = egui::Rect::from_min_max(
                    egui::pos2(full.left(), r.top()),
                    egui::pos2(full.right(), r.bottom()),
                );
                if current_line == Some(line) {
                    current_band = Some(band);
                    let c = at_line
                        .get(&line)
                        .and_then(|v| v.first())
                        .map_or(egui::Color32::YELLOW, |(g, m, _)| palette::tangle(*g, *m));
                    painter.rect_filled(band, 0.0, c.gamma_multiply(0.22));
                    painter.rect_filled(
                        egui::Rect::from_min_size(band.min, egui::vec2(3.0, band.height())),
                        0.0,
                        c,
                    );
                }
                if breakpoint_lines.contains(&line) {
                    painter.circle_filled(
                        egui::pos2(gutter_x + 10.0, y),
                        4.5,
                        egui::Color32::from_rgb(230, 60, 60),
                    );
                }
                if diag_lines.contains_key(&line) {
                    let c = egui::pos2(gutter_x + 22.0, y);
                    painter.circle_filled(c, 6.0, egui::Color32::from_rgb(230, 60, 60));
                    painter.text(
                        c,
                        egui::Align2::CENTER_CENTER,
                        "!",
                        egui::FontId::proportional(font.size * 0.9),
                        egui::Color32::WHITE,
                    );
                }
                painter.text(
                    egui::pos2(text_x - 8.0, y),
                    egui::Align2::RIGHT_CENTER,
                    line.to_string(),
                    egui::FontId::monospace(font.size * 0.9),
                    ui.visuals().weak_text_color(),
                );
                if let Some(ts) = at_line.get(&line) {
                    let mut x = r.right() + 14.0;
                    for (g, m, n) in ts {
                        let c = palette::tangle(*g, *m);
                        let text = format!("sg{g} ×{n}");
                        let ink = palette::text_on(c);
                        let galley = painter.layout_no_wrap(
                            text,
                            egui::FontId::proportional(font.size * 0.85),
                            ink,
                        );
                        let chip = egui::Rect::from_min_size(
                            egui::pos2(x, y - galley.size().y / 2.0 - 1.0),
                            galley.size() + egui::vec2(8.0, 2.0),
                        );
                        painter.rect_filled(chip, 4.0, c);
                        painter.galley(chip.min + egui::vec2(4.0, 1.0), galley, ink);
                        x = chip.right() + 4.0;
                    }
                }
            }
            starts = row.ends_with_newline;
            if row.ends_with_newline {
                line += 1;
            }
        }
        if let (true, Some(band)) = (follow, current_band) {
            // Centred when it would leave the view (two lines from an edge), left where it is
            // while it stays in it, as debuggers do: stepping does not slide the text under the
            // reader's eyes. At once, not animated: each animated scroll drew a dozen frames a
            // step, every one a full repaint (software WebGL in the browser pays ~20 ms each).
            let clip = ui.clip_rect();
            let margin = 2.0 * band.height();
            if !clip.shrink2(egui::vec2(0.0, margin)).contains_rect(band) {
                ui.scroll_to_rect_animation(
                    band,
                    Some(egui::Align::Center),
                    egui::style::ScrollAnimation::none(),
                );
            }
        }
        if let Some(band) = current_band {
            ui.ctx()
                .data_mut(|d| d.insert_temp(current_line_id(), (band, ui.clip_rect())));
        }
        // A click in the gutter toggles a breakpoint on that line; hovering an error shows it.
        let resp = &out.response;
        source_response = Some(resp.response.clone());
        if let Some(p) = resp.interact_pointer_pos().or(resp.hover_pos()) {
            let cursor = galley.cursor_from_pos(p - origin);
            let (row_line, col) = line_col(galley.text(), cursor.index.0);
            if p.x < text_x && resp.clicked() {
                toggle_line = Some(row_line);
            }
            if p.x < text_x {
                if let Some(m) = diag_lines.get(&row_line) {
                    hover_msg = Some((m.clone(), true));
                }
            }
            // A source variable under the pointer: its value in each lane of the followed
            // tangle (errors, below, take precedence).
            if p.x >= text_x && resp.hovered() {
                let word = word_at(galley.text(), cursor.index.0);
                if !word.is_empty() {
                    hover_msg = variable_lanes
                        .as_ref()
                        .and_then(|f| f(&word))
                        .map(|m| (m, false));
                }
            }
            if let Some(d) = diagnostics.iter().find(|d| {
                d.line == row_line
                    && (d.column == 0 || (col + 1 >= d.column && col < d.column + d.len.max(1)))
            }) {
                hover_msg = Some((d.message.clone(), true));
            }
        }
    });
    app.source_last_line = current_line;
    if let (Some((m, is_error)), Some(r)) = (hover_msg, source_response) {
        let text = egui::RichText::new(m);
        r.on_hover_text(if is_error {
            text.color(error_color)
        } else {
            text.monospace()
        });
    }
    if changed {
        if let Some(e) = &mut app.editor {
            e.edited_at = Some(ui.input(|i| i.time));
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs_f64(DEBOUNCE_SECONDS));
        }
    }
    if let (Some(line), Some(file)) = (toggle_line, file_of_editor) {
        app.ask(crate::gui::ask::Action::ToggleSourceBreakpoint { file, line });
    }
}

/// The identifier around character index `index` of `text` (empty when none).
fn word_at(text: &str, index: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let is_id = |c: char| c.is_alphanumeric() || c == '_';
    if index > chars.len() {
        return String::new();
    }
    let mut a = index;
    while a > 0 && is_id(chars[a - 1]) {
        a -= 1;
    }
    let mut b = index;
    while b < chars.len() && is_id(chars[b]) {
        b += 1;
    }
    let w: String = chars[a..b].iter().collect();
    if w.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        String::new()
    } else {
        w
    }
}

/// 1-based line and 0-based character column of character index `index` in `text`.
fn line_col(text: &str, index: usize) -> (u32, u32) {
    let mut line = 1;
    let mut col = 0;
    for c in text.chars().take(index) {
        if c == '\n' {
            line += 1;
            col = 0;
        } else {
            col += 1;
        }
    }
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_under_the_pointer() {
        let t = "sum += partial[k];";
        assert_eq!(word_at(t, 1), "sum");
        assert_eq!(word_at(t, 3), "sum");
        assert_eq!(word_at(t, 9), "partial");
        assert_eq!(word_at(t, 4), "");
        assert_eq!(word_at("x = 12u;", 5), "");
        assert_eq!(word_at(t, 99), "");
    }

    #[test]
    fn templates_compile() {
        for t in crate::gui::editor::TEMPLATES {
            if !lanescope_front::can_compile(t.language) {
                continue;
            }
            let opts = lanescope_front::CompileOptions {
                file_name: t.name.into(),
                ..Default::default()
            };
            if let Err(e) = lanescope_front::compile(t.language, t.text, &opts) {
                panic!("{}: {}", t.name, e.render(t.name, t.text));
            }
        }
    }
}
