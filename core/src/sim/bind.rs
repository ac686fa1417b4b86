//! What the host binds before a run (buffers, descriptor array elements, images, samplers,
//! push constants, device addresses) and how it becomes the run's memory.

use super::{bind_err, RunError};
use crate::exec::memory::Memory;
use crate::load::{Warning, WarningCode};
use crate::program::image::{Dim, ImageDesc, ImageType, SamplerDesc};
use crate::program::Program;
use std::collections::BTreeSet;

/// Buffers the host binds before a run.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    /// (set, binding, initial bytes).
    pub buffers: Vec<(u32, u32, Vec<u8>)>,
    /// Bindings that share the storage of a buffer bound in `buffers` (one buffer bound at
    /// several bindings, as a Vulkan application may do).
    pub aliases: Vec<BufferAlias>,
    pub push_constants: Vec<u8>,
    /// Device addresses fixed by the host: (set, binding, address). Other bound buffers get
    /// [`default_address`]es.
    pub addresses: Vec<(u32, u32, u64)>,
    /// Images (storage and sampled images, texel buffers): their texels and what they are.
    pub images: Vec<ImageBinding>,
    /// Samplers (alone, or the sampler half of a combined image sampler): (set, binding, what).
    pub samplers: Vec<(u32, u32, SamplerDesc)>,
}

/// An image the host binds at (set, binding): its format and extent, and its texels, tightly
/// packed (`ImageDesc`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageBinding {
    pub set: u32,
    pub binding: u32,
    pub desc: ImageDesc,
    pub data: Vec<u8>,
}

/// A bound buffer's device address (what PhysicalStorageBuffer pointers to it hold).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BufferAddress {
    pub set: u32,
    pub binding: u32,
    pub address: u64,
    pub size: u64,
}

/// The address a buffer bound at (set, binding) gets unless the host fixes one: a 4 GiB window
/// of its own, `(set << 48) + ((binding + 1) << 32)`, so it does not depend on the other
/// buffers or their sizes (`None` for sets from 8192 and bindings from 65535, which take the
/// first free window from 2^60 up).
pub fn default_address(set: u32, binding: u32) -> Option<u64> {
    (set < 8192 && binding < 65535)
        .then(|| (u64::from(set) << 48) + ((u64::from(binding) + 1) << 32))
}

/// Why an image's extent does not fit its type (`None` when it does).
fn extent_problem(ty: &ImageType, [w, h, z]: [u32; 3]) -> Option<String> {
    let layers = match (ty.dim, ty.arrayed) {
        (Dim::D1 | Dim::Buffer, false) => (h != 1 || z != 1).then_some("must be WIDTHx1x1"),
        (Dim::D1, true) => (z != 1).then_some("must be WIDTHxLAYERSx1"),
        (Dim::D2, false) => (z != 1).then_some("must be WIDTHxHEIGHTx1"),
        (Dim::Cube, _) if w != h || z % 6 != 0 => Some("must be square with 6 layers per cube"),
        _ => None,
    };
    layers.map(|m| format!("is {w}x{h}x{z}; a {} {m}", ty.describe()))
}

/// Device addresses must be aligned to this many bytes.
pub const ADDRESS_ALIGN: u64 = 16;

/// Gives every bound buffer (by storage) a device address: the host's where fixed, else the
/// default; checks alignment, the address space and overlaps. Returns the ranges sorted by
/// start, and each storage's address.
fn assign_addresses(
    bindings: &Bindings,
    bound: &[((u32, u32), u32)],
    lens: &[u64],
) -> Result<Vec<(u64, u64, u32)>, RunError> {
    let limit = crate::program::PHYSICAL_LIMIT;
    let mut fixed: Vec<Option<(u64, (u32, u32))>> = vec![None; lens.len()];
    for &(set, binding, addr) in &bindings.addresses {
        let storage = bound
            .iter()
            .find(|(k, _)| *k == (set, binding))
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                bind_err(format!(
                    "an address is given for set {set} binding {binding}, where no buffer is bound"
                ))
            })?;
        if addr % ADDRESS_ALIGN != 0 {
            return Err(bind_err(format!(
                "the address {addr:#x} of set {set} binding {binding} is not aligned to {ADDRESS_ALIGN} bytes"
            )));
        }
        let len = lens[storage as usize];
        if addr == 0 || addr.checked_add(len).is_none_or(|end| end > limit) {
            return Err(bind_err(format!(
                "the address {addr:#x} of set {set} binding {binding} ({len} bytes) is outside the simulated address space (from {ADDRESS_ALIGN:#x} to 2^61)"
            )));
        }
        match fixed[storage as usize] {
            Some((a, (s2, b2))) if a != addr => {
                return Err(bind_err(format!(
                    "set {set} binding {binding} shares the buffer of set {s2} binding {b2}, whose address is {a:#x}, not {addr:#x}"
                )))
            }
            _ => fixed[storage as usize] = Some((addr, (set, binding))),
        }
    }
    // (start, len, storage, who) for the fixed ones, then the defaults around them.
    let mut ranges: Vec<(u64, u64, u32, (u32, u32))> = Vec::new();
    for (storage, f) in fixed.iter().enumerate() {
        if let Some((a, who)) = f {
            ranges.push((*a, lens[storage], storage as u32, *who));
        }
    }
    let overlaps = |ranges: &[(u64, u64, u32, (u32, u32))], a: u64, len: u64| {
        ranges
            .iter()
            .find(|(b, blen, _, _)| a < b + (*blen).max(1) && *b < a + len.max(1))
            .copied()
    };
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        let ((a, alen, _, (s1, b1)), (b, _, _, (s2, b2))) = (w[0], w[1]);
        if b < a + alen.max(1) {
            return Err(bind_err(format!(
                "the buffers of set {s1} binding {b1} (at {a:#x}, {alen} bytes) and set {s2} binding {b2} (at {b:#x}) overlap"
            )));
        }
    }
    let mut next_free = 1u64 << 60;
    for ((set, binding), storage) in bound {
        if fixed[*storage as usize].is_some() || ranges.iter().any(|r| r.2 == *storage) {
            continue;
        }
        let len = lens[*storage as usize];
        let mut addr =
            default_address(*set, *binding).filter(|a| overlaps(&ranges, *a, len).is_none());
        while addr.is_none() {
            if overlaps(&ranges, next_free, len).is_none() {
                addr = Some(next_free);
            }
            next_free += 1 << 32;
        }
        let addr = addr.unwrap_or(next_free);
        ranges.push((addr, len, *storage, (*set, *binding)));
    }
    ranges.sort_unstable();
    Ok(ranges
        .into_iter()
        .map(|(a, len, s, _)| (a, len, s))
        .collect())
}

impl Bindings {
    /// Buffers for an example: every buffer sized for 64 words per invocation past its fixed part
    /// (fewer where that would pass `max_bytes`, the buffer-memory limit); binding 0 holds each
    /// word's index (the examples read their input there). Fails, allocating nothing, when the
    /// fixed parts alone pass the limit.
    pub fn for_example(prog: &Program, max_bytes: u64) -> Result<Self, String> {
        let [x, y, z] = prog.local_size;
        let invocations = u64::from(x) * u64::from(y) * u64::from(z);
        let fixed: u64 = prog.resources.iter().map(|r| u64::from(r.min_size)).sum();
        if fixed > max_bytes {
            return Err(format!(
                "the shader's buffers need {} KiB; the buffer-memory limit is {} KiB",
                fixed.div_ceil(1024),
                max_bytes >> 10
            ));
        }
        // What the runtime arrays may take, shared evenly among the buffers that have one.
        let growing = prog
            .resources
            .iter()
            .filter(|r| r.runtime_array_stride.is_some_and(|s| s > 0))
            .count()
            .max(1) as u64;
        let share = (max_bytes - fixed) / growing;
        let mut b = Self::default();
        for r in &prog.resources {
            if r.sampler {
                b.samplers.push((r.set, r.binding, SamplerDesc::default()));
            }
            if let Some(ty) = r.image {
                b.images.push(example_image(r.set, r.binding, &ty));
                continue;
            }
            if r.sampler {
                continue;
            }
            let stride = u64::from(r.runtime_array_stride.unwrap_or(0));
            let elements = share
                .checked_div(stride)
                .map_or(0, |fit| fit.min(invocations.saturating_mul(64)));
            let size = (u64::from(r.min_size) + stride * elements).max(16);
            let mut data = vec![0u8; size as usize];
            if r.binding == 0 {
                for (i, w) in data.chunks_exact_mut(4).enumerate() {
                    w.copy_from_slice(&(i as u32).to_le_bytes());
                }
            }
            if r.push_constant {
                b.push_constants = data;
            } else {
                b.buffers.push((r.set, r.binding, data));
            }
        }
        Ok(b)
    }
}

/// A zero image for an example: the declared format (else 32-bit RGBA of the Sampled Type), 16x16
/// (64 texels in 1D and texel buffers, 8x8x8 in 3D, 4 layers for arrays, 6 faces for cubes).
fn example_image(set: u32, binding: u32, ty: &ImageType) -> ImageBinding {
    use crate::program::image::TexelFormat;
    let format = ty.format.unwrap_or_else(|| {
        let name = match ty.component {
            crate::value::ScalarTy::Int { signed: true, .. } => "rgba32i",
            crate::value::ScalarTy::Int { .. } => "rgba32ui",
            _ => "rgba32f",
        };
        TexelFormat::by_name(name).unwrap_or(crate::program::image::FORMATS[0])
    });
    let layers = if ty.arrayed { 4 } else { 1 };
    let extent = match ty.dim {
        Dim::D1 | Dim::Buffer => [64, layers, 1],
        Dim::D2 => [16, 16, layers],
        Dim::D3 => [8, 8, 8],
        Dim::Cube => [16, 16, 6 * layers],
    };
    let desc = ImageDesc::new(format, extent);
    ImageBinding {
        set,
        binding,
        desc,
        data: vec![0; desc.bytes() as usize],
    }
}

/// Binding (`set`, `binding`) is bound to the buffer bound at (`of_set`, `of_binding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferAlias {
    pub set: u32,
    pub binding: u32,
    pub of_set: u32,
    pub of_binding: u32,
}

/// Buffer memory, the warnings so far, and each bound (set, binding) with its storage index.
type BoundBuffers = (Memory, Vec<Warning>, Vec<((u32, u32), u32)>);

/// Builds the buffer memory: one storage per bound buffer, each resource pointing at the
/// storage bound at its (set, binding). Bindings the shader does not declare are kept (an
/// alias or `buffer()` may name them) and warned about.
pub(super) fn bind_buffers(prog: &Program, bindings: &Bindings) -> Result<BoundBuffers, RunError> {
    let mut warnings = prog.warnings.clone();
    let mut seen = BTreeSet::new();
    let direct = bindings
        .buffers
        .iter()
        .map(|(s, b, _)| (*s, *b))
        .chain(bindings.images.iter().map(|i| (i.set, i.binding)));
    for (set, binding) in direct {
        if !seen.insert((set, binding)) {
            return Err(bind_err(format!(
                "set {set} binding {binding} is bound twice"
            )));
        }
    }
    for img in &bindings.images {
        let d = &img.desc;
        let [w, h, z] = d.extent;
        if d.texels() == 0 {
            return Err(bind_err(format!(
                "the image at set {} binding {} is {w}x{h}x{z}: every extent must be at least 1",
                img.set, img.binding
            )));
        }
        if img.data.len() as u64 != d.bytes() {
            return Err(bind_err(format!(
                "the image at set {} binding {} is {w}x{h}x{z} {} ({} bytes per texel): {} bytes, but its data has {}",
                img.set,
                img.binding,
                d.format.name,
                d.format.texel_bytes(),
                d.bytes(),
                img.data.len()
            )));
        }
    }
    // Storages: the buffers, the images, then the push constants.
    let mut buffers: Vec<Vec<u8>> = bindings.buffers.iter().map(|(_, _, d)| d.clone()).collect();
    buffers.extend(bindings.images.iter().map(|i| i.data.clone()));
    let push_storage = buffers.len() as u32;
    buffers.push(bindings.push_constants.clone());
    // (set, binding) -> storage index, for direct bindings then aliases.
    let mut bound: Vec<((u32, u32), u32)> = (0u32..)
        .zip(
            bindings
                .buffers
                .iter()
                .map(|(s, b, _)| (*s, *b))
                .chain(bindings.images.iter().map(|i| (i.set, i.binding))),
        )
        .map(|(i, k)| (k, i))
        .collect();
    for a in &bindings.aliases {
        if !seen.insert((a.set, a.binding)) {
            return Err(bind_err(format!(
                "set {} binding {} is bound twice",
                a.set, a.binding
            )));
        }
        let target = bound
            .iter()
            .find(|(k, _)| *k == (a.of_set, a.of_binding))
            .map(|(_, i)| *i)
            .ok_or_else(|| {
                bind_err(format!(
                    "set {} binding {} shares the buffer at set {} binding {}, where no buffer is bound",
                    a.set, a.binding, a.of_set, a.of_binding
                ))
            })?;
        bound.push(((a.set, a.binding), target));
    }
    // The image bound at each storage.
    let image_of_storage = |storage: u32| {
        let k = (storage as usize).checked_sub(bindings.buffers.len())?;
        bindings.images.get(k).map(|i| i.desc)
    };
    let mut storage_of = Vec::with_capacity(prog.resources.len());
    let mut images = vec![None; prog.resources.len()];
    let mut samplers = vec![None; prog.resources.len()];
    for (ri, res) in prog.resources.iter().enumerate() {
        let at = bound
            .iter()
            .find(|(k, _)| *k == (res.set, res.binding))
            .map(|(_, i)| *i);
        if res.sampler {
            let sd = bindings
                .samplers
                .iter()
                .find(|(s, b, _)| (*s, *b) == (res.set, res.binding))
                .map(|x| x.2)
                .ok_or_else(|| {
                    bind_err(format!(
                        "no sampler bound at set {} binding {} (`{}`)",
                        res.set, res.binding, res.name
                    ))
                })?;
            samplers[ri] = Some(sd);
        }
        if let Some(ty) = res.image {
            let what = || {
                format!(
                    "set {} binding {} (`{}`, a {})",
                    res.set,
                    res.binding,
                    res.name,
                    ty.describe()
                )
            };
            let storage = at.ok_or_else(|| bind_err(format!("no image bound at {}", what())))?;
            let d = image_of_storage(storage).ok_or_else(|| {
                bind_err(format!(
                    "{} takes an image, and a buffer is bound there",
                    what()
                ))
            })?;
            if let Some(f) = ty.format.filter(|f| *f != d.format) {
                return Err(bind_err(format!(
                    "{} is declared {}, and the image bound there is {}",
                    what(),
                    f.name,
                    d.format.name
                )));
            }
            if ty.multisampled != (d.samples > 1) {
                return Err(bind_err(format!(
                    "{} and the image bound there has {} sample{} per texel",
                    what(),
                    d.samples,
                    if d.samples == 1 { "" } else { "s" }
                )));
            }
            if let Some(why) = extent_problem(&ty, d.extent) {
                return Err(bind_err(format!("{}: the image bound there {why}", what())));
            }
            images[ri] = Some(d);
            storage_of.push(storage);
            continue;
        }
        if res.sampler {
            // A sampler alone has no memory.
            storage_of.push(u32::MAX);
            continue;
        }
        let storage = if res.push_constant {
            push_storage
        } else {
            at.ok_or_else(|| {
                bind_err(format!(
                    "no buffer bound at set {} binding {} (`{}`, at least {} bytes)",
                    res.set, res.binding, res.name, res.min_size
                ))
            })?
        };
        if !res.push_constant && image_of_storage(storage).is_some() {
            return Err(bind_err(format!(
                "set {} binding {} (`{}`) is a buffer, and an image is bound there",
                res.set, res.binding, res.name
            )));
        }
        let len = buffers[storage as usize].len();
        if (len as u64) < u64::from(res.min_size) {
            let what = if res.push_constant {
                "push constants".to_string()
            } else {
                format!(
                    "buffer at set {} binding {} (`{}`)",
                    res.set, res.binding, res.name
                )
            };
            return Err(bind_err(format!(
                "{what} has {len} bytes; the shader's declaration needs at least {}",
                res.min_size
            )));
        }
        storage_of.push(storage);
    }
    let declared = |s: u32, b: u32| {
        prog.resources
            .iter()
            .any(|r| !r.push_constant && r.set == s && r.binding == b)
    };
    for ((s, b), storage) in &bound {
        // A binding nothing declares is fine when another binding of the same buffer is used.
        let used = storage_of.contains(storage);
        // With device addresses, an undeclared binding gives memory an address.
        if !declared(*s, *b) && !used && !prog.physical_addresses {
            warnings.push(Warning {
                code: WarningCode::UnusedBinding,
                message: format!(
                    "a buffer is bound at set {s} binding {b}, which the shader does not declare; it is ignored"
                ),
            });
        }
    }
    let lens: Vec<u64> = buffers.iter().map(|b| b.len() as u64).collect();
    let mut addresses = Vec::new();
    for (start, len, storage) in assign_addresses(bindings, &bound, &lens)? {
        // The region naming the buffer: a resource bound to it, else one of its own past the
        // resources.
        let region = match storage_of.iter().position(|s| *s == storage) {
            Some(r) => r as u32,
            None => {
                storage_of.push(storage);
                (storage_of.len() - 1) as u32
            }
        };
        addresses.push(crate::exec::memory::AddressRange { start, len, region });
    }
    let mem = Memory {
        buffers,
        storage_of,
        addresses,
        images,
        samplers,
        ..Memory::default()
    };
    Ok((mem, warnings, bound))
}
