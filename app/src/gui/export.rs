//! Export: the window as PNG and the trace as JSON, saved through a dialog natively and as a
//! download in the browser.

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

/// A save under way: resolves to where it went (`None`: cancelled), or why not.
pub type Saving = super::dialog::Pending<Result<Option<String>, String>>;

/// Offers `bytes` to the person as a file called `name`.
pub fn save(name: String, mime: &'static str, bytes: Vec<u8>) -> Saving {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = mime;
        super::dialog::Pending::spawn("save", move || {
            let Some(path) =
                super::dialog::native(|| rfd::FileDialog::new().set_file_name(&name).save_file())
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
        super::dialog::Pending::ready(download(&name, mime, &bytes).map(Some))
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
