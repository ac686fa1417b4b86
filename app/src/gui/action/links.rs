//! Permalinks: the link of what is on screen, opening one, and following the address bar.

use crate::examples::EXAMPLES;
use crate::gui::session::Settings;
use crate::gui::state::LanescopeApp;
use crate::gui::{permalink, views};

impl LanescopeApp {
    /// The permalink of what is on screen.
    pub fn link(&self) -> Option<permalink::Link> {
        let s = self.session.as_ref()?;
        let example = EXAMPLES
            .iter()
            .find(|e| format!("{}.spv", e.0) == s.name && e.1 == s.bytes.as_slice())
            .map(|e| e.0.to_owned());
        let st = &self.settings;
        // An edited source's build setting, when it says anything.
        let build = |field: fn(&crate::gui::build::Build) -> &String| {
            self.editor
                .as_ref()
                .map(|e| field(&e.build).trim().to_string())
                .filter(|t| !t.is_empty())
        };
        Some(permalink::Link {
            lesson: self.lesson.map(|i| i + 1),
            defines: build(|b| &b.defines),
            overrides: build(|b| &b.overrides),
            target_env: build(|b| &b.target_env),
            entry: build(|b| &b.entry),
            include_files: self
                .editor
                .as_ref()
                .map(|e| {
                    e.include_files
                        .iter()
                        .map(|(n, t)| (n.clone(), t.clone().into_bytes()))
                        .collect()
                })
                .unwrap_or_default(),
            // Edited source travels as its text (the name's extension gives the language).
            module: match &self.editor {
                Some(e) => Some((e.name.clone(), e.text.clone().into_bytes())),
                None => example.is_none().then(|| (s.name.clone(), s.bytes.clone())),
            },
            example: example.filter(|_| self.lesson.is_none()),
            subgroup_size: Some(st.subgroup_size),
            workgroups: Some(st.workgroups),
            per_case: Some(st.switch_tangles == lanescope_core::SwitchTangles::PerCase),
            sibling_order: Some(st.sibling_order),
            layout: Some(st.coop_layout.name()),
            step: Some(s.step_count()),
            lane: self.selected_lane,
            tab: Some(self.tab),
            inputs: changed_inputs(s, st),
        })
    }

    /// Opens what a permalink names, under its settings, and heads for its step. The link's
    /// settings hold for this session only: the person's own are set aside, not replaced.
    pub fn apply_link(&mut self, mut l: permalink::Link) {
        self.error = None;
        self.seek = None;
        let own = self.own_settings();
        let before = self.settings.clone();
        // A link fixes every setting it can carry: those it leaves out take their defaults (or
        // its lesson's), so the same link opens the same state whatever was open before.
        let mut st = Settings::default().with_limits_of(&before);
        let mut lesson_settings = None;
        if let Some(i) = l.lesson {
            if i == 0 || i > self.lessons.len() {
                self.error = Some(format!("link: there is no lesson {i}"));
                return;
            }
            self.open_lesson(i - 1);
            if self.error.is_some() {
                return;
            }
            st = self.settings.clone();
            lesson_settings = Some(st.clone());
        }
        if let Some(n) = l.subgroup_size {
            st.subgroup_size = n;
        }
        if let Some(w) = l.workgroups {
            st.workgroups = w;
        }
        if let Some(p) = l.per_case {
            st.switch_tangles = if p {
                lanescope_core::SwitchTangles::PerCase
            } else {
                lanescope_core::SwitchTangles::PerValue
            };
        }
        if let Some(o) = l.sibling_order {
            st.sibling_order = o;
        }
        if let Some(layout) = l
            .layout
            .take()
            .and_then(|name| lanescope_core::coopmat::LayoutChoice::by_name(&name))
        {
            st.coop_layout = layout;
        }
        let opened = match (lesson_settings, l.module.take(), &l.example) {
            // The lesson's example is open; the link may refine its settings.
            (Some(ls), _, _) => {
                let lesson = self.lesson;
                self.restart_under(st, ls);
                self.lesson = lesson;
                self.error.is_none()
            }
            (None, Some((name, bytes)), _) => {
                let build = crate::gui::build::Build {
                    defines: l.defines.clone().unwrap_or_default(),
                    target_env: l.target_env.clone().unwrap_or_default(),
                    entry: l.entry.clone().unwrap_or_default(),
                    overrides: l.overrides.clone().unwrap_or_default(),
                    include_dirs: String::new(),
                };
                let includes = super::open::text_files(&l.include_files);
                self.open_file_built(&name, bytes, st, build, includes, false)
            }
            (None, None, Some(e)) => match crate::gui::state::example(e) {
                // As any module opened: the editor's source (a last edit) goes with the old one.
                Ok((name, bytes)) => self.open_file_under(&name, bytes, st),
                Err(e) => {
                    self.error = Some(e);
                    false
                }
            },
            (None, None, None) => {
                self.restart_under(st, before);
                self.error.is_none()
            }
        };
        if !opened {
            return;
        }
        self.set_aside(own);
        // A source still compiling (the browser's GLSL) opens later: the view, lane and step
        // wait for it.
        if self
            .compiling
            .as_ref()
            .is_some_and(|j| j.open_under.is_some())
        {
            self.link_after_open = Some(Box::new(l));
            return;
        }
        self.apply_link_view(l);
    }

    /// The part of a link that points into the open module: its inputs, view, lane and step.
    pub(super) fn apply_link_view(&mut self, l: permalink::Link) {
        if !l.inputs.is_empty() {
            if let Err(e) = self.apply_link_inputs(&l.inputs) {
                self.error = Some(format!("link: {e}"));
                return;
            }
        }
        if let Some(t) = l.tab {
            self.tab = t;
            if t == views::Tab::Compare {
                // The view a link points at is its result, not an empty form.
                self.start_compare();
            }
        }
        if let Some((g, lane)) = l.lane {
            self.selected_lane = Some((g, lane));
            self.matrix_sel.lane = Some(lane);
        }
        match l.step {
            Some(n) if n > self.settings.max_steps => {
                self.error = Some(format!(
                    "link: step {n} is past the step limit ({}); raise it in the Limits menu",
                    self.settings.max_steps
                ));
            }
            Some(n) if n > 0 => {
                self.seek = Some(n);
                self.status = format!("going to step {n}…");
            }
            _ => {}
        }
    }

    /// A link's inputs as the open module's initial contents, the run restarted from them.
    fn apply_link_inputs(
        &mut self,
        inputs: &[(permalink::InputSlot, Vec<u8>)],
    ) -> Result<(), String> {
        let Some(s) = &mut self.session else {
            return Ok(());
        };
        let mut initial = s.initial.clone();
        for (slot, bytes) in inputs {
            let permalink::InputSlot::Bound(set, binding, element) = *slot else {
                initial.push_constants.clone_from(bytes);
                continue;
            };
            let at = lanescope_core::slot_name((set, binding, element));
            if let Some(img) = initial.image_mut(set, binding, element) {
                if bytes.len() != img.data.len() {
                    return Err(format!(
                        "the texels for the image at {at} are {} bytes; it holds {}",
                        bytes.len(),
                        img.data.len()
                    ));
                }
                img.data.clone_from(bytes);
            } else if let Some(b) = initial.bytes_mut(set, binding, element) {
                b.clone_from(bytes);
            } else {
                return Err(format!("the module has no buffer or image at {at}"));
            }
        }
        s.initial = initial;
        self.reset();
        self.status = match inputs.len() {
            1 => "the link's input set".into(),
            n => format!("the link's {n} inputs set"),
        };
        Ok(())
    }

    /// Restarts the open module under `st` if it differs from `was`; on failure the session
    /// stays under `was`.
    fn restart_under(&mut self, st: Settings, was: Settings) {
        if st != was {
            self.settings = st;
            self.reset();
            if self.error.is_some() {
                self.settings = was;
            }
        }
    }

    /// Copies the permalink (the whole address on the web) and puts it in the address bar.
    pub(super) fn copy_link(&mut self, ctx: &egui::Context) {
        let Some(link) = self.link() else { return };
        let (fragment, complete) = link.format();
        self.last_fragment = fragment.clone();
        let text = page_url(&fragment);
        ctx.copy_text(text);
        self.status = if complete {
            "link copied".into()
        } else if link.inputs.is_empty() {
            "link copied, without the module: it is too large for a link".into()
        } else {
            "link copied, without what is too large for a link (the module, or inputs changed from their defaults)".into()
        };
    }

    /// On the web, a link pasted into the address bar of an open tab changes only the
    /// fragment: apply it as a new link.
    pub(in crate::gui) fn follow_page_fragment(&mut self) {
        #[cfg(target_arch = "wasm32")]
        {
            let hash = page_fragment();
            if hash != self.last_fragment {
                self.last_fragment = hash.clone();
                if !hash.is_empty() {
                    match permalink::Link::parse(&hash) {
                        Ok(l) => self.apply_link(l),
                        Err(e) => self.error = Some(e),
                    }
                }
            }
        }
    }
}

/// The session's initial contents that differ from what the module opens with (the example's
/// buffers and images under `st`'s limits), for a link to carry.
fn changed_inputs(
    s: &crate::gui::session::Session,
    st: &Settings,
) -> Vec<(permalink::InputSlot, Vec<u8>)> {
    use permalink::InputSlot;
    let Ok(fresh) =
        crate::examples::example_bindings(&s.program, st.max_buffer_mib.saturating_mul(1 << 20))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let now = &s.initial;
    for (set, binding, bytes) in &now.buffers {
        if fresh.bytes(*set, *binding, 0) != Some(bytes) {
            out.push((InputSlot::Bound(*set, *binding, 0), bytes.clone()));
        }
    }
    for (set, binding, element, bytes) in &now.elements {
        if fresh.bytes(*set, *binding, *element) != Some(bytes) {
            out.push((InputSlot::Bound(*set, *binding, *element), bytes.clone()));
        }
    }
    for img in &now.images {
        let fresh = fresh.image(img.set, img.binding, img.element);
        if fresh.is_none_or(|f| f.data != img.data) {
            out.push((
                InputSlot::Bound(img.set, img.binding, img.element),
                img.data.clone(),
            ));
        }
    }
    if now.push_constants != fresh.push_constants {
        out.push((InputSlot::PushConstants, now.push_constants.clone()));
    }
    out
}

/// The page's address fragment (`#...`, empty if none).
#[cfg(target_arch = "wasm32")]
pub(in crate::gui) fn page_fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The address a fragment makes: the page's own on the web; the fragment alone natively.
fn page_url(fragment: &str) -> String {
    #[cfg(target_arch = "wasm32")]
    if let Some(w) = web_sys::window() {
        let loc = w.location();
        let base = format!(
            "{}{}{}",
            loc.origin().unwrap_or_default(),
            loc.pathname().unwrap_or_default(),
            loc.search().unwrap_or_default()
        );
        // Replace, not push: the back button should leave the playground, not step it.
        if let Ok(h) = w.history() {
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(fragment));
        }
        return format!("{base}{fragment}");
    }
    fragment.to_owned()
}
