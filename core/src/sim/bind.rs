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
    /// (set, binding, initial bytes). At a descriptor array's binding, its element 0.
    pub buffers: Vec<(u32, u32, Vec<u8>)>,
    /// The other elements of descriptor arrays of buffers: (set, binding, element, initial
    /// bytes). Each element is a buffer of its own.
    pub elements: Vec<(u32, u32, u32, Vec<u8>)>,
    /// Bindings that share the storage of a buffer bound in `buffers` (one buffer bound at
    /// several bindings, as a Vulkan application may do).
    pub aliases: Vec<BufferAlias>,
    /// The push constants' bytes (at least as many as the shader's push-constant block needs).
    pub push_constants: Vec<u8>,
    /// Device addresses fixed by the host: (set, binding, address). Other bound buffers get
    /// [`default_address`]es.
    pub addresses: Vec<(u32, u32, u64)>,
    /// Device addresses fixed for descriptor array elements past the first: (set, binding,
    /// element, address). Other elements follow the element before them.
    pub element_addresses: Vec<(u32, u32, u32, u64)>,
    /// Images (storage and sampled images, texel buffers): their texels and what they are.
    pub images: Vec<ImageBinding>,
    /// Samplers (alone, or the sampler half of a combined image sampler): (set, binding, what).
    pub samplers: Vec<(u32, u32, SamplerDesc)>,
}

/// An image the host binds at (set, binding): its format and extent, and its texels, tightly
/// packed (`ImageDesc`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageBinding {
    /// Descriptor set of the image.
    pub set: u32,
    /// Binding of the image in its set.
    pub binding: u32,
    /// The element of an array of image descriptors (0 for a single image).
    pub element: u32,
    /// Format, extent and samples per texel.
    pub desc: ImageDesc,
    /// The texels, laid out as [`ImageDesc`] says ([`ImageDesc::bytes`] of them).
    pub data: Vec<u8>,
}

/// A bound buffer's device address (what PhysicalStorageBuffer pointers to it hold).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BufferAddress {
    /// Descriptor set of the buffer.
    pub set: u32,
    /// Binding of the buffer in its set.
    pub binding: u32,
    /// The descriptor array element (absent from JSON for element 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub element: u32,
    /// Device address of the buffer's first byte.
    pub address: u64,
    /// Size of the buffer in bytes.
    pub size: u64,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// A bound buffer's place: (set, binding, descriptor array element).
pub(super) type Slot = (u32, u32, u32);

/// "set S binding B", with " element E" past element 0: how messages name a bound buffer.
pub fn slot_name((set, binding, element): Slot) -> String {
    if element == 0 {
        format!("set {set} binding {binding}")
    } else {
        format!("set {set} binding {binding} element {element}")
    }
}

/// The address a buffer bound at (set, binding) gets unless the host fixes one: a 4 GiB window
/// of its own, `(set << 48) + ((binding + 1) << 32)`, so it does not depend on the other
/// buffers or their sizes (`None` for sets from 8192 and bindings from 65535, which take the
/// first free window from 2^60 up). A descriptor array's elements follow element 0 in its
/// window, each aligned to [`ADDRESS_ALIGN`].
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
    bound: &[(Slot, u32)],
    lens: &[u64],
) -> Result<Vec<(u64, u64, u32)>, RunError> {
    let limit = crate::program::PHYSICAL_LIMIT;
    let mut fixed: Vec<Option<(u64, Slot)>> = vec![None; lens.len()];
    let given = (bindings.addresses.iter())
        .map(|&(set, binding, addr)| ((set, binding, 0), addr))
        .chain(
            (bindings.element_addresses.iter())
                .map(|&(set, binding, element, addr)| ((set, binding, element), addr)),
        );
    for (slot, addr) in given {
        let at = slot_name(slot);
        let storage = bound
            .iter()
            .find(|(k, _)| *k == slot)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                bind_err(format!(
                    "an address is given for {at}, where no buffer is bound"
                ))
            })?;
        if addr % ADDRESS_ALIGN != 0 {
            return Err(bind_err(format!(
                "the address {addr:#x} of {at} is not aligned to {ADDRESS_ALIGN} bytes"
            )));
        }
        let len = lens[storage as usize];
        if addr == 0 || addr.checked_add(len).is_none_or(|end| end > limit) {
            return Err(bind_err(format!(
                "the address {addr:#x} of {at} ({len} bytes) is outside the simulated address space (from {ADDRESS_ALIGN:#x} to 2^61)"
            )));
        }
        match fixed[storage as usize] {
            Some((a, other)) if a != addr => {
                return Err(bind_err(format!(
                    "{at} shares the buffer of {}, whose address is {a:#x}, not {addr:#x}",
                    slot_name(other)
                )))
            }
            _ => fixed[storage as usize] = Some((addr, slot)),
        }
    }
    // (start, len, storage, who) for the fixed ones, then the defaults around them.
    let mut ranges: Vec<(u64, u64, u32, Slot)> = Vec::new();
    for (storage, f) in fixed.iter().enumerate() {
        if let Some((a, who)) = f {
            ranges.push((*a, lens[storage], storage as u32, *who));
        }
    }
    let overlaps = |ranges: &[(u64, u64, u32, Slot)], a: u64, len: u64| {
        ranges
            .iter()
            .find(|(b, blen, _, _)| a < b + (*blen).max(1) && *b < a + len.max(1))
            .copied()
    };
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        let ((a, alen, _, one), (b, _, _, two)) = (w[0], w[1]);
        if b < a + alen.max(1) {
            return Err(bind_err(format!(
                "the buffers of {} (at {a:#x}, {alen} bytes) and {} (at {b:#x}) overlap",
                slot_name(one),
                slot_name(two)
            )));
        }
    }
    let mut next_free = 1u64 << 60;
    // In slot order, so that each array element follows the one before.
    let mut in_order: Vec<&(Slot, u32)> = bound.iter().collect();
    in_order.sort_unstable();
    for ((set, binding, element), storage) in in_order {
        if fixed[*storage as usize].is_some() || ranges.iter().any(|r| r.2 == *storage) {
            continue;
        }
        let len = lens[*storage as usize];
        let default = match element.checked_sub(1) {
            None => default_address(*set, *binding),
            Some(before) => ranges
                .iter()
                .find(|r| r.3 == (*set, *binding, before))
                .map(|r| (r.0 + r.1.max(1)).next_multiple_of(ADDRESS_ALIGN)),
        };
        let mut addr = default
            .filter(|a| a.checked_add(len).is_some_and(|end| end <= limit))
            .filter(|a| overlaps(&ranges, *a, len).is_none());
        while addr.is_none() {
            if overlaps(&ranges, next_free, len).is_none() {
                addr = Some(next_free);
            }
            next_free += 1 << 32;
        }
        let addr = addr.unwrap_or(next_free);
        ranges.push((addr, len, *storage, (*set, *binding, *element)));
    }
    ranges.sort_unstable();
    Ok(ranges
        .into_iter()
        .map(|(a, len, s, _)| (a, len, s))
        .collect())
}

impl Bindings {
    /// The image bound at (set, binding) and descriptor array element `element`.
    pub fn image(&self, set: u32, binding: u32, element: u32) -> Option<&ImageBinding> {
        (self.images.iter()).find(|i| (i.set, i.binding, i.element) == (set, binding, element))
    }

    /// The image bound at (set, binding, element), to change.
    pub fn image_mut(&mut self, set: u32, binding: u32, element: u32) -> Option<&mut ImageBinding> {
        (self.images.iter_mut()).find(|i| (i.set, i.binding, i.element) == (set, binding, element))
    }

    /// The initial bytes bound at (set, binding) and descriptor array element `element`.
    pub fn bytes(&self, set: u32, binding: u32, element: u32) -> Option<&Vec<u8>> {
        match element {
            0 => self
                .buffers
                .iter()
                .find(|b| (b.0, b.1) == (set, binding))
                .map(|b| &b.2),
            _ => self
                .elements
                .iter()
                .find(|b| (b.0, b.1, b.2) == (set, binding, element))
                .map(|b| &b.3),
        }
    }

    /// The initial bytes bound at (set, binding, element), to change.
    pub fn bytes_mut(&mut self, set: u32, binding: u32, element: u32) -> Option<&mut Vec<u8>> {
        match element {
            0 => self
                .buffers
                .iter_mut()
                .find(|b| (b.0, b.1) == (set, binding))
                .map(|b| &mut b.2),
            _ => self
                .elements
                .iter_mut()
                .find(|b| (b.0, b.1, b.2) == (set, binding, element))
                .map(|b| &mut b.3),
        }
    }

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
            // One sampler per binding, for every element of an array.
            if r.sampler && !b.samplers.iter().any(|x| (x.0, x.1) == (r.set, r.binding)) {
                b.samplers.push((r.set, r.binding, SamplerDesc::default()));
            }
            if let Some(ty) = r.image {
                b.images
                    .push(example_image(r.set, r.binding, r.element(), &ty));
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
                match r.element() {
                    0 => b.buffers.push((r.set, r.binding, data)),
                    e => b.elements.push((r.set, r.binding, e, data)),
                }
            }
        }
        Ok(b)
    }
}

/// A zero image for an example: the declared format (else 32-bit RGBA of the Sampled Type), 16x16
/// (64 texels in 1D and texel buffers, 8x8x8 in 3D, 4 layers for arrays, 6 faces for cubes).
fn example_image(set: u32, binding: u32, element: u32, ty: &ImageType) -> ImageBinding {
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
        element,
        desc,
        data: vec![0; desc.bytes() as usize],
    }
}

/// Binding (`set`, `binding`, descriptor array element `element`) is bound to the buffer (or
/// image) bound at (`of_set`, `of_binding`, `of_element`): they share its storage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferAlias {
    /// Descriptor set of the aliasing binding.
    pub set: u32,
    /// Binding of the aliasing binding in its set.
    pub binding: u32,
    /// Descriptor array element of the aliasing binding (0 for a single buffer).
    pub element: u32,
    /// Descriptor set of the binding whose storage it shares.
    pub of_set: u32,
    /// Binding whose storage it shares, in `of_set`.
    pub of_binding: u32,
    /// Descriptor array element whose storage it shares (0 for a single buffer).
    pub of_element: u32,
}

/// Buffer memory, the warnings so far, and each bound slot with its storage index.
type BoundBuffers = (Memory, Vec<Warning>, Vec<(Slot, u32)>);

/// Builds the buffer memory: one storage per bound buffer, each resource pointing at the
/// storage bound at its (set, binding, element). Bindings the shader does not declare are kept
/// (an alias or `buffer()` may name them) and warned about.
pub(super) fn bind_buffers(prog: &Program, bindings: &Bindings) -> Result<BoundBuffers, RunError> {
    let mut warnings = prog.warnings.clone();
    let mut seen = BTreeSet::new();
    // Storages: the buffers, the array elements, the images, then the push constants.
    let direct: Vec<Slot> = bindings
        .buffers
        .iter()
        .map(|(s, b, _)| (*s, *b, 0))
        .chain(bindings.elements.iter().map(|(s, b, e, _)| (*s, *b, *e)))
        .chain(
            bindings
                .images
                .iter()
                .map(|i| (i.set, i.binding, i.element)),
        )
        .collect();
    for slot in &direct {
        if !seen.insert(*slot) {
            return Err(bind_err(format!("{} is bound twice", slot_name(*slot))));
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
    let mut buffers: Vec<Vec<u8>> = bindings.buffers.iter().map(|(_, _, d)| d.clone()).collect();
    buffers.extend(bindings.elements.iter().map(|e| e.3.clone()));
    let first_image = buffers.len();
    buffers.extend(bindings.images.iter().map(|i| i.data.clone()));
    let push_storage = buffers.len() as u32;
    buffers.push(bindings.push_constants.clone());
    // Slot -> storage index, for direct bindings then aliases.
    let mut bound: Vec<(Slot, u32)> = (0u32..).zip(direct).map(|(i, k)| (k, i)).collect();
    for a in &bindings.aliases {
        let (at, of) = (
            (a.set, a.binding, a.element),
            (a.of_set, a.of_binding, a.of_element),
        );
        if !seen.insert(at) {
            return Err(bind_err(format!("{} is bound twice", slot_name(at))));
        }
        let target = bound
            .iter()
            .find(|(k, _)| *k == of)
            .map(|(_, i)| *i)
            .ok_or_else(|| {
                bind_err(format!(
                    "{} shares the buffer at {}, where no buffer is bound",
                    slot_name(at),
                    slot_name(of)
                ))
            })?;
        bound.push((at, target));
    }
    // The image bound at each storage.
    let image_of_storage = |storage: u32| {
        let k = (storage as usize).checked_sub(first_image)?;
        bindings.images.get(k).map(|i| i.desc)
    };
    let mut storage_of = Vec::with_capacity(prog.resources.len());
    let mut images = vec![None; prog.resources.len()];
    let mut samplers = vec![None; prog.resources.len()];
    for (ri, res) in prog.resources.iter().enumerate() {
        let at = bound
            .iter()
            .find(|(k, _)| *k == (res.set, res.binding, res.element()))
            .map(|(_, i)| *i);
        let slot = slot_name((res.set, res.binding, res.element()));
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
            let what = || format!("{slot} (`{}`, a {})", res.name, ty.describe());
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
                    "no buffer bound at {slot} (`{}`, at least {} bytes)",
                    res.name, res.min_size
                ))
            })?
        };
        if !res.push_constant && image_of_storage(storage).is_some() {
            return Err(bind_err(format!(
                "{slot} (`{}`) is a buffer, and an image is bound there",
                res.name
            )));
        }
        let len = buffers[storage as usize].len();
        if (len as u64) < u64::from(res.min_size) {
            let what = if res.push_constant {
                "push constants".to_string()
            } else {
                format!("buffer at {slot} (`{}`)", res.name)
            };
            return Err(bind_err(format!(
                "{what} has {len} bytes; the shader's declaration needs at least {}",
                res.min_size
            )));
        }
        storage_of.push(storage);
    }
    let declared = |slot: Slot| {
        prog.resources
            .iter()
            .any(|r| !r.push_constant && (r.set, r.binding, r.element()) == slot)
    };
    for (slot, storage) in &bound {
        // A binding nothing declares is fine when another binding of the same buffer is used.
        let used = storage_of.contains(storage);
        // With device addresses, an undeclared binding gives memory an address.
        if !declared(*slot) && !used && !prog.physical_addresses {
            warnings.push(Warning {
                code: WarningCode::UnusedBinding,
                message: format!(
                    "a buffer is bound at {}, which the shader does not declare; it is ignored",
                    slot_name(*slot)
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
