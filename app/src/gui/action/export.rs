//! Export: the window as PNG and the trace as JSON, saved through a dialog natively and as a
//! download in the browser.

use crate::gui::dialog::{self, Saving};
use crate::gui::session::Session;
use crate::gui::state::LanescopeApp;
use lanescope_front::Language;

/// PNG of an RGBA image (8 bits per channel, no interlace, filter 0 on every row).
pub fn png_rgba(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(rgba.len() + height as usize);
    for row in rgba
        .chunks_exact((width as usize * 4).max(1))
        .take(height as usize)
    {
        raw.push(0);
        raw.extend_from_slice(row);
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(
        &mut out,
        b"IDAT",
        &miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6),
    );
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(kind.iter().chain(data));
    out.extend_from_slice(&crc.to_be_bytes());
}

/// CRC-32 (ISO-HDLC, as PNG uses).
fn crc32<'a>(bytes: impl IntoIterator<Item = &'a u8>) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Offers `bytes` to the person as a file called `name`.
pub(in crate::gui) fn save(name: String, mime: &'static str, bytes: Vec<u8>) -> Saving {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = mime;
        crate::gui::dialog::Pending::spawn("save", move || {
            let Some(path) = crate::gui::dialog::native(|| {
                rfd::FileDialog::new().set_file_name(&name).save_file()
            })
            .map_err(|e| format!("{e} — {name} was not saved"))?
            else {
                return Ok(None);
            };
            std::fs::write(&path, &bytes)
                .map(|()| Some(format!("saved {}", path.display())))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        crate::gui::dialog::Pending::ready(download(&name, mime, &bytes).map(Some))
    }
}

#[cfg(target_arch = "wasm32")]
fn download(name: &str, mime: &str, bytes: &[u8]) -> Result<String, String> {
    use wasm_bindgen::JsCast as _;
    let fail = |e: wasm_bindgen::JsValue| format!("download of {name} failed: {e:?}");
    let parts = js_sys::Array::new();
    parts.push(&js_sys::Uint8Array::from(bytes));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob =
        web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = doc
        .create_element("a")
        .map_err(fail)?
        .dyn_into()
        .map_err(|_| "not an anchor".to_owned())?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(format!("downloaded {name}"))
}

// Saving what the session holds: the source, an AmberScript of the session, the trace, the
// window as PNG (written by a worker, polled each frame).
impl LanescopeApp {
    pub(super) fn export_stem(&self) -> String {
        let s = self.session.as_ref();
        let name = s.map_or("lanescope", |s| s.name.trim_end_matches(".spv"));
        format!("{name}-step{}", s.map_or(0, Session::step_count))
    }

    /// Saves the edited source under its name (a save dialog natively, a download in the
    /// browser).
    pub(super) fn save_source(&mut self) {
        let Some(e) = &self.editor else { return };
        self.saving = Some(save(
            e.name.clone(),
            "text/plain",
            e.text.clone().into_bytes(),
        ));
    }

    /// The session as an AmberScript test: the shader (its source when edited here, else the
    /// module as SPIR-V hex), the initial buffers, the push constants, the dispatch and the
    /// settings; when the run has finished, its final buffers become the `EXPECT`s.
    pub fn amber_text(&self) -> Option<String> {
        use lanescope_front::amber::{self, SaveBuffer, SaveSession, SaveShader, ShaderFormat};
        let s = self.session.as_ref()?;
        let words: Vec<u32> = s
            .bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let (format, text) = match &self.editor {
            // GLSL as written when it stands alone; built with settings or includes the
            // script could not carry, the module's assembly keeps it self-contained.
            Some(e)
                if e.language == Language::Glsl
                    && !e.stale
                    && e.build.is_default()
                    && !e.text.contains("#include") =>
            {
                (ShaderFormat::Glsl, e.text.clone())
            }
            Some(e) if e.language == Language::SpirvAsm && !e.stale => {
                (ShaderFormat::SpirvAsm, e.text.clone())
            }
            // WGSL has no AmberScript form and a binary has no text: the module as assembly
            // (hex words when it does not disassemble).
            _ => match lanescope_core::spvtext::disassemble(&words, &Default::default()) {
                Ok(t) => (ShaderFormat::SpirvAsm, t),
                Err(_) => (ShaderFormat::SpirvHex, String::new()),
            },
        };
        // Assembly is assembled for the module's own SPIR-V version.
        let target_env = match (format, words.get(1).map(|v| (v >> 8) & 0xff)) {
            (ShaderFormat::SpirvAsm, Some(minor)) if minor > 0 => Some(format!("spv1.{minor}")),
            _ => None,
        };
        let finished = s.sim().is_finished();
        let initial = &s.initial;
        let buffers = initial
            .buffers
            .iter()
            .map(|(set, binding, data)| (*set, *binding, 0, data))
            .chain(initial.elements.iter().map(|(s, b, e, d)| (*s, *b, *e, d)))
            .map(|(set, binding, element, data)| SaveBuffer {
                set,
                binding,
                array_element: element,
                uniform: s
                    .program
                    .resources()
                    .iter()
                    .any(|r| r.set == set && r.binding == binding && r.uniform),
                data: data.clone(),
                element: None,
                expect: finished
                    .then(|| {
                        s.sim()
                            .buffer_element(set, binding, element)
                            .map(<[u8]>::to_vec)
                    })
                    .flatten(),
                expect_only: None,
            })
            .collect();
        let st = &self.settings;
        let session = SaveSession {
            shader: SaveShader {
                format,
                text,
                target_env,
                words,
            },
            entry: Some(s.program.entry_name().to_owned()),
            buffers,
            aliases: s.initial.aliases.clone(),
            push_constants: s.initial.push_constants.clone(),
            push_constant_type: None,
            spec: s.spec.clone(),
            workgroups: st.workgroups,
            settings: amber::Settings {
                subgroup_size: Some(st.subgroup_size),
                switch_tangles: Some(st.config().switch_tangles),
                sibling_order: Some(st.sibling_order),
                coopmat_layout: Some(st.coop_layout.clone()),
            },
        };
        Some(amber::to_amber(&session))
    }

    /// Saves the session as an AmberScript test (Export menu).
    pub(super) fn export_amber(&mut self) {
        let Some(text) = self.amber_text() else {
            return;
        };
        let stem = self.session.as_ref().map_or("lanescope".to_owned(), |s| {
            s.name
                .rsplit_once('.')
                .map_or(s.name.clone(), |(a, _)| a.to_owned())
        });
        self.saving = Some(save(
            format!("{stem}.amber"),
            "text/plain",
            text.into_bytes(),
        ));
    }

    /// Saves the trace (steps, diagnostics, poison stores) as JSON.
    pub(super) fn export_trace(&mut self) {
        let Some(s) = &self.session else { return };
        let json = crate::report::trace_json(s.sim());
        self.saving = Some(save(
            format!("{}-trace.json", self.export_stem()),
            "application/json",
            json.into_bytes(),
        ));
    }

    /// Asks for a screenshot of the window; it is saved as PNG when it arrives.
    pub(super) fn export_png(&mut self, ctx: &egui::Context) {
        let slot = std::sync::Arc::clone(&self.shot);
        let repaint = ctx.clone();
        ctx.request_screenshot(move |image| {
            if let Ok(mut s) = slot.lock() {
                *s = Some(image);
            }
            repaint.request_repaint();
        });
        self.shot_pending = true;
        self.status = "taking a screenshot…".into();
    }

    pub(in crate::gui) fn poll_exports(&mut self, ctx: &egui::Context) {
        if self.shot_pending {
            let image = self.shot.lock().ok().and_then(|mut s| s.take());
            if let Some(img) = image {
                self.shot_pending = false;
                let [w, h] = img.size;
                let rgba: Vec<u8> = img.pixels.iter().flat_map(|c| c.to_array()).collect();
                let png = png_rgba(w as u32, h as u32, &rgba);
                self.saving = Some(save(
                    format!("{}.png", self.export_stem()),
                    "image/png",
                    png,
                ));
            } else {
                ctx.request_repaint_after(std::time::Duration::from_millis(50));
            }
        }
        if let Some(p) = &self.saving {
            match p.poll() {
                dialog::Poll::Waiting => {
                    ctx.request_repaint_after(std::time::Duration::from_millis(100));
                    return;
                }
                dialog::Poll::Ready(Ok(Some(msg))) => self.status = msg,
                dialog::Poll::Ready(Ok(None)) => self.status = "not saved".into(),
                dialog::Poll::Ready(Err(e)) => self.dialog_error(e),
                dialog::Poll::Lost => {
                    self.dialog_error(
                        "the save dialog stopped unexpectedly; nothing was saved".into(),
                    );
                }
            }
            self.saving = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{crc32, png_rgba};

    #[test]
    fn png_has_the_right_chunks_and_pixels() {
        assert_eq!(
            crc32(b"IEND"),
            0xae42_6082,
            "the well-known CRC of an empty IEND"
        );
        let (w, h) = (3u32, 2u32);
        let px: Vec<u8> = (0..w * h * 4).map(|i| i as u8).collect();
        let png = png_rgba(w, h, &px);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 3);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 2);
        assert_eq!(&png[24..29], &[8, 6, 0, 0, 0]);
        assert_eq!(&png[png.len() - 12..], b"\0\0\0\0IEND\xaeB`\x82");
        let idat_len = u32::from_be_bytes(png[33..37].try_into().unwrap()) as usize;
        assert_eq!(&png[37..41], b"IDAT");
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&png[41..41 + idat_len]).unwrap();
        assert_eq!(raw.len(), (1 + 12) * 2);
        assert_eq!(&raw[1..13], &px[..12]);
        assert_eq!(raw[13], 0, "filter byte of row 2");
        let crc = u32::from_be_bytes(png[41 + idat_len..45 + idat_len].try_into().unwrap());
        assert_eq!(crc, crc32(png[37..41 + idat_len].iter()));
    }
}
