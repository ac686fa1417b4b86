//! Importing a file into a buffer: the dialog, then the file's numbers (or bytes) laid out as
//! the shader declares the buffer.

use super::import_numbers;
use crate::gui::ask::{Action, Inputs};
use crate::gui::state::LanescopeApp;

/// Delivers an imported file into its buffer once the dialog answers.
pub fn poll_import(app: &mut LanescopeApp) {
    let Some((target, p)) = &app.inputs.import else {
        return;
    };
    let answer = p.poll();
    let target = *target;
    if matches!(answer, crate::gui::dialog::Poll::Waiting) {
        return;
    }
    app.inputs.import = None;
    match answer {
        crate::gui::dialog::Poll::Ready(Ok(Some((name, bytes)))) => {
            match import_file(app, target, &name, bytes) {
                Ok((inputs, msg)) => app.ask(Action::Inputs(Box::new(inputs), msg)),
                Err(e) => app.error = Some(format!("{name}: {e}")),
            }
        }
        crate::gui::dialog::Poll::Ready(Err(e)) => app.error = Some(e),
        crate::gui::dialog::Poll::Lost => {
            app.error = Some("the file dialog stopped unexpectedly".into())
        }
        _ => {}
    }
}

/// Puts a file's contents into the initial buffer at `target`: raw bytes for `.bin`/`.raw`,
/// numbers otherwise.
pub fn import_file(
    app: &LanescopeApp,
    (set, binding, element): (u32, u32, u32),
    name: &str,
    bytes: Vec<u8>,
) -> Result<(Inputs, String), String> {
    let s = app.session.as_ref().ok_or("no module is open")?;
    let program = std::sync::Arc::clone(&s.program);
    let at = lanescope_core::slot_name((set, binding, element));
    let ri = program
        .resources()
        .iter()
        .position(|r| {
            !r.push_constant && (r.set, r.binding, r.element()) == (set, binding, element)
        })
        .ok_or_else(|| format!("the shader has no buffer at {at}"))?;
    let r = &program.resources()[ri];
    if let Some(img) = s.initial.image(set, binding, element) {
        return import_image(s, &r.name, img, name, bytes);
    }
    let buf = s
        .initial
        .bytes(set, binding, element)
        .ok_or_else(|| format!("no buffer is bound at {at}"))?;
    // The new initial state: the session's with this buffer's bytes replaced.
    let with = |b: Vec<u8>| {
        let mut inputs = Inputs::default();
        if let Some(buf) = inputs.initial(s).bytes_mut(set, binding, element) {
            *buf = b;
        }
        inputs
    };
    let max = app.settings.max_buffer_mib.saturating_mul(1 << 20);
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".bin") || lower.ends_with(".raw") {
        if bytes.len() as u64 > max {
            return Err(format!(
                "{} bytes pass the buffer-memory limit of {} MiB (raise it in the Limits menu)",
                bytes.len(),
                max >> 20
            ));
        }
        let mut b = bytes;
        let short = b.len() < r.min_size as usize;
        if short {
            b.resize(r.min_size as usize, 0);
        }
        let n = b.len();
        return Ok((
            with(b),
            format!(
                "`{}`: {n} bytes from {name}{}",
                r.name,
                if short {
                    " (zero-extended to the declared size)"
                } else {
                    ""
                }
            ),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        "not text: numbers are read from text (whitespace- or comma-separated, or a JSON array); raw bytes from a .bin file".to_owned()
    })?;
    let mut b = buf.clone();
    let n = import_numbers(&program, ri, &mut b, &text)?;
    if b.len() as u64 > max {
        return Err(format!(
            "the buffer would need {} bytes, past the buffer-memory limit of {} MiB",
            b.len(),
            max >> 20
        ));
    }
    Ok((with(b), format!("`{}`: {n} values from {name}", r.name)))
}

/// Puts a file's contents into the initial texels of image `img` (resource `resource`): raw
/// bytes for `.bin`/`.raw`, exactly the image's; numbers otherwise, from the first texel.
fn import_image(
    s: &crate::gui::session::Session,
    resource: &str,
    img: &lanescope_core::ImageBinding,
    name: &str,
    bytes: Vec<u8>,
) -> Result<(Inputs, String), String> {
    let d = &img.desc;
    let [w, h, z] = d.extent;
    let lower = name.to_ascii_lowercase();
    let (data, said) = if lower.ends_with(".bin") || lower.ends_with(".raw") {
        if bytes.len() != img.data.len() {
            return Err(format!(
                "{} bytes, and the image holds {} ({w}x{h}x{z} texels of {}{}, {} bytes each)",
                bytes.len(),
                img.data.len(),
                d.format.name,
                if d.samples > 1 {
                    format!(", {} samples", d.samples)
                } else {
                    String::new()
                },
                d.format.texel_bytes()
            ));
        }
        let n = bytes.len();
        (bytes, format!("{n} bytes"))
    } else {
        let text = String::from_utf8(bytes).map_err(|_| {
            "not text: texels are read from numbers in text (whitespace- or comma-separated, or a JSON array), or raw bytes from a .bin file".to_owned()
        })?;
        let mut data = img.data.clone();
        let n = super::values::import_texels(d, &mut data, &text)?;
        (data, format!("{n} values"))
    };
    let mut inputs = Inputs::default();
    if let Some(i) = inputs
        .initial(s)
        .image_mut(img.set, img.binding, img.element)
    {
        i.data = data;
    }
    Ok((
        inputs,
        format!("`{resource}`: {said} from {name} into its texels"),
    ))
}

/// A file picked by the person (any kind), read whole.
pub(super) fn pick_file() -> crate::gui::dialog::Pending<crate::gui::dialog::Picked> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        crate::gui::dialog::Pending::spawn("import", || {
            let picked = crate::gui::dialog::native(|| rfd::FileDialog::new().pick_file())?;
            let Some(path) = picked else { return Ok(None) };
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let bytes =
                crate::gui::state::read_module(&path).map_err(|e| format!("{name}: {e}"))?;
            Ok(Some((name, bytes)))
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        crate::gui::dialog::Pending::spawn_local(async {
            let Some(file) = rfd::AsyncFileDialog::new().pick_file().await else {
                return Ok(None);
            };
            let name = file.file_name();
            match crate::gui::state::too_large(file.inner().size() as u64) {
                Ok(()) => Ok(Some((name, file.read().await))),
                Err(e) => Err(format!("{name}: {e}")),
            }
        })
    }
}
