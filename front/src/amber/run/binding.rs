//! Binding a pipeline for a run: buffers as windows of the script's buffers (one storage per
//! buffer, aliases for shared ones), images and samplers checked against the shader's
//! declarations, buffers padded to what the shader declares.

use crate::amber::script::{Bind, BindKind, ImageDim, Pipeline};
use crate::amber::types::texel_format;
use lanescope_core::program::image::{Dim, ImageDesc};
use lanescope_core::program::Program;
use lanescope_core::{Bindings, ImageBinding};

use super::{Runner, Stop, Window};

impl Runner<'_> {
    /// The image a binding binds: the buffer's texels, in its format; a texel buffer is as
    /// many texels wide as the buffer holds.
    pub(super) fn image_desc(&self, bind: &Bind) -> Result<ImageDesc, Stop> {
        let b = &self.script.buffers[bind.buffer];
        let line = bind.line;
        let format = texel_format(&b.format).map_err(|why| {
            Stop::Skip(format!(
                "line {line}: unsupported (skipped): `{}` bound AS {}: {why}",
                b.name,
                bind.kind.keyword()
            ))
        })?;
        let len = self.buffers[bind.buffer].len() as u64;
        let texel = u64::from(format.texel_bytes());
        if bind.kind.is_texel_buffer() {
            let n = len / texel;
            if n == 0 || len % texel != 0 || n > u64::from(u32::MAX) {
                return Err(Stop::Error(format!(
                    "line {line}: texel buffer `{}` holds {len} bytes, not a whole number of {} texels of {texel} bytes",
                    b.name, b.format.ty.name
                )));
            }
            return Ok(ImageDesc::new(format, [n as u32, 1, 1]));
        }
        let Some(img) = b.image else {
            return Err(Stop::Skip(format!(
                "line {line}: unsupported (skipped): `{}` bound AS {} has no image extent",
                b.name,
                bind.kind.keyword()
            )));
        };
        let desc = ImageDesc {
            format,
            extent: img.extent,
            samples: img.samples,
        };
        if desc.bytes() != len {
            let [w, h, d] = img.extent;
            return Err(Stop::Error(format!(
                "line {line}: image `{}` holds {len} bytes; its {w}x{h}x{d} texels of {} ({} samples each) take {}",
                b.name,
                b.format.ty.name,
                img.samples,
                desc.bytes()
            )));
        }
        Ok(desc)
    }

    /// Each image binding is what the shader declares there: a storage or sampled image (with
    /// or without its sampler) or texel buffer, of the image's dimensionality.
    pub(super) fn check_images(
        &self,
        line: usize,
        prog: &Program,
        p: &Pipeline,
    ) -> Result<(), Stop> {
        let resource = |set: u32, binding: u32| {
            prog.resources()
                .iter()
                .find(|r| !r.push_constant && (r.set, r.binding) == (set, binding))
        };
        for bind in p.binds.iter().filter(|b| b.kind.is_image()) {
            let Some(res) = resource(bind.set, bind.binding) else {
                continue;
            };
            let b = &self.script.buffers[bind.buffer];
            let declared = match res.image {
                Some(ty) if res.sampler => {
                    format!("a combined image sampler of a {}", ty.describe())
                }
                Some(ty) => format!("a {}", ty.describe()),
                None if res.sampler => "a sampler".to_string(),
                None => "a buffer".to_string(),
            };
            let what = match (bind.kind.is_texel_buffer(), b.image) {
                (false, Some(i)) if i.samples > 1 => {
                    format!("`{}`, a multisampled {} image,", b.name, i.dim.keyword())
                }
                (false, Some(i)) => format!("`{}`, a {} image,", b.name, i.dim.keyword()),
                _ => format!("`{}`", b.name),
            };
            let bad = || {
                Stop::Error(format!(
                    "line {line}: RUN {}: {what} is bound AS {} at set {} binding {} (line {}), where the shader declares `{}`, {declared}",
                    p.name,
                    bind.kind.keyword(),
                    bind.set,
                    bind.binding,
                    bind.line,
                    res.name
                ))
            };
            let Some(ty) = res.image else {
                return Err(bad());
            };
            let storage = bind.kind.is_storage_image();
            let fits_kind = match ty.sampled {
                1 => !storage,
                2 => storage,
                _ => true,
            };
            let fits_sampler = match bind.kind {
                BindKind::CombinedImageSampler => res.sampler,
                _ => !res.sampler,
            };
            let fits_dim = match (bind.kind.is_texel_buffer(), b.image) {
                (true, _) => ty.dim == Dim::Buffer,
                (false, Some(i)) => {
                    let dim = match i.dim {
                        ImageDim::D1 => Dim::D1,
                        ImageDim::D2 => Dim::D2,
                        ImageDim::D3 => Dim::D3,
                    };
                    ty.dim == dim && !ty.arrayed
                }
                (false, None) => false,
            };
            if !(fits_kind && fits_sampler && fits_dim) {
                return Err(bad());
            }
        }
        for s in &p.samplers {
            if let Some(res) = resource(s.set, s.binding) {
                if !res.sampler || res.image.is_some() {
                    return Err(Stop::Error(format!(
                        "line {line}: RUN {}: sampler `{}` is bound at set {} binding {} (line {}), where the shader declares `{}`, not a sampler",
                        p.name, self.script.samplers[s.sampler].name, s.set, s.binding, s.line, res.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// An image view and another view of the same bytes cannot share memory in the simulator:
    /// the script is skipped (as for buffer windows that overlap but differ).
    pub(super) fn views_differ(&self, w: &Window, bind: &Bind) -> Stop {
        let kind = |k: BindKind| {
            if k.is_image() {
                format!("AS {}", k.keyword())
            } else {
                "as a buffer".to_string()
            }
        };
        Stop::Skip(format!(
            "line {}: unsupported (skipped): buffer `{}` is bound {} at set {} binding {} and {} at set {} binding {}: Lanescope cannot share memory between an image view and a buffer view, or image views of different shapes",
            bind.line,
            self.script.buffers[bind.buffer].name,
            kind(w.kind),
            w.set,
            w.binding,
            kind(bind.kind),
            bind.set,
            bind.binding
        ))
    }

    /// The pipeline's buffers for the simulator: each binding gets its window of the buffer;
    /// bindings of the same window share storage, disjoint windows of one buffer are separate
    /// copies. An image binding gets the whole buffer as texels, shared by the bindings of the
    /// same image. Returns the windows to write back.
    pub(super) fn bindings(&self, p: &Pipeline) -> Result<(Bindings, Vec<Window>), Stop> {
        let mut b = Bindings::default();
        let mut windows: Vec<Window> = Vec::new();
        for bind in &p.binds {
            if bind.kind.is_image() {
                let desc = self.image_desc(bind)?;
                let same = windows
                    .iter()
                    .find(|w| w.buffer == bind.buffer && w.image == Some(desc));
                if let Some(w) = same {
                    b.aliases.push(w.alias(bind));
                    continue;
                }
                let data = self.buffers[bind.buffer].clone();
                if let Some(w) = windows
                    .iter()
                    .find(|w| w.buffer == bind.buffer && w.len > 0 && !data.is_empty())
                {
                    return Err(self.views_differ(w, bind));
                }
                windows.push(Window {
                    buffer: bind.buffer,
                    set: bind.set,
                    binding: bind.binding,
                    element: bind.element,
                    start: 0,
                    len: data.len(),
                    image: Some(desc),
                    kind: bind.kind,
                });
                b.images.push(ImageBinding {
                    set: bind.set,
                    binding: bind.binding,
                    element: bind.element,
                    desc,
                    data,
                });
                continue;
            }
            let (start, len) = self.window(bind)?;
            let same = windows.iter().find(|w| {
                w.image.is_none() && w.buffer == bind.buffer && (w.start, w.len) == (start, len)
            });
            if let Some(w) = same {
                b.aliases.push(w.alias(bind));
                continue;
            }
            let overlaps = |w: &&Window| {
                w.buffer == bind.buffer && start < w.start + w.len && w.start < start + len
            };
            if let Some(w) = windows.iter().filter(overlaps).find(|w| w.image.is_some()) {
                return Err(self.views_differ(w, bind));
            }
            let overlap = windows.iter().filter(overlaps).find(|w| w.image.is_none());
            if let Some(&Window { set, binding, .. }) = overlap {
                return Err(Stop::Skip(format!(
                    "line {}: unsupported (skipped): buffer `{}` is bound at set {} binding {} and at set {set} binding {binding} with overlapping but different ranges",
                    bind.line, self.script.buffers[bind.buffer].name, bind.set, bind.binding
                )));
            }
            let bytes = self.buffers[bind.buffer][start..start + len].to_vec();
            match bind.element {
                0 => b.buffers.push((bind.set, bind.binding, bytes)),
                e => b.elements.push((bind.set, bind.binding, e, bytes)),
            }
            windows.push(Window {
                buffer: bind.buffer,
                set: bind.set,
                binding: bind.binding,
                element: bind.element,
                start,
                len,
                image: None,
                kind: bind.kind,
            });
        }
        for u in p.sampler_uses(&self.script.buffers) {
            let s = &self.script.samplers[u.sampler];
            let desc = s.desc(u.axes).map_err(|why| {
                Stop::Skip(format!("line {}: unsupported (skipped): {why}", u.line))
            })?;
            b.samplers.push((u.set, u.binding, desc));
        }
        if let Some(pc) = p.push_constant {
            b.push_constants = self.buffers[pc].clone();
        }
        Ok((b, windows))
    }

    /// Buffers shorter than the shader's declaration of them (a struct's trailing padding, the
    /// unused end of a last array) are zero-extended to it, with a note: Vulkan lets a shader
    /// declare more than is bound as long as it only reads what is, and the simulator wants
    /// every declared byte. Only the bound bytes are written back.
    pub(super) fn pad_to_declared(&mut self, line: usize, prog: &Program, b: &mut Bindings) {
        let mut notes = Vec::new();
        for res in prog.resources() {
            let need = res.min_size as usize;
            let target = if res.push_constant {
                Some(&mut b.push_constants)
            } else {
                let at = (res.set, res.binding, res.element());
                let (set, binding, element) = b
                    .aliases
                    .iter()
                    .find(|a| (a.set, a.binding, a.element) == at)
                    .map_or(at, |a| (a.of_set, a.of_binding, a.of_element));
                b.bytes_mut(set, binding, element)
            };
            if let Some(bytes) = target {
                if bytes.len() < need {
                    let what = if res.push_constant {
                        "push constants".to_string()
                    } else {
                        lanescope_core::slot_name((res.set, res.binding, res.element()))
                    };
                    notes.push(format!(
                        "line {line}: {what} has {} bytes, less than the shader declares ({need}); zero-extended for the run",
                        bytes.len()
                    ));
                    bytes.resize(need, 0);
                }
            }
        }
        for n in notes {
            if !self.report.notes.contains(&n) {
                self.report.notes.push(n);
            }
        }
    }

    /// The bytes a binding sees: from its offset, its range (or to the end).
    pub(super) fn window(&self, bind: &Bind) -> Result<(usize, usize), Stop> {
        let total = self.buffers[bind.buffer].len() as u64;
        let start = bind.offset();
        let name = &self.script.buffers[bind.buffer].name;
        if start > total {
            return Err(Stop::Error(format!(
                "line {}: buffer `{name}` is bound from byte {start}, past its end ({total} bytes)",
                bind.line
            )));
        }
        let len = bind.range.unwrap_or(total - start);
        if start.saturating_add(len) > total {
            return Err(Stop::Error(format!(
                "line {}: buffer `{name}` is bound for bytes {start}..{}, past its end ({total} bytes)",
                bind.line,
                start + len
            )));
        }
        Ok((start as usize, len as usize))
    }
}
