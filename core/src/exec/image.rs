//! Image instructions: texel reads, writes and fetches, filtered sampling, size queries and
//! texel pointers for image atomics.
//!
//! An image, sampler or sampled-image value is a handle: a buffer pointer (`encode_ptr`) whose
//! region is the image's resource (or the sampler's, for a sampler alone) and whose low 32 bits
//! are the sampler's resource + 1 (0: none). The texels live in buffer memory, tightly packed,
//! so every read and write goes through `Memory::read`/`write`: bounds, the race detector's log,
//! poison and parallel footprints see them like any buffer access.

use super::memory::Memory;
use super::step::Ctx;
use super::Mask;
use crate::float::{self, Format, Round};
use crate::program::image::{
    ufloat_from_f64, AddressMode, ChannelKind, Dim, Filter, ImageDesc, ImageInst, ImageOp,
    SamplerDesc,
};
use crate::program::{decode_ptr, encode_ptr, Leaf, Space};
use crate::trace::DiagCode;
use crate::value::{mask as bitmask, sext, ScalarTy};

use crate::program::image::handle;

/// (image region, sampler region) of a handle.
fn parts(h: u64) -> (u32, Option<u32>) {
    let (_, region, low) = decode_ptr(h);
    (region, low.checked_sub(1))
}

/// A texel's channels: floats for normalised and float formats, raw integers otherwise.
#[derive(Clone, Copy)]
enum Texel {
    F([f64; 4]),
    I([u64; 4]),
}

fn int_coord(raw: u64, ty: ScalarTy) -> i64 {
    match ty {
        ScalarTy::Int { bits, signed: true } => sext(raw, u32::from(bits)),
        ScalarTy::Int { bits, .. } => (raw & bitmask(u32::from(bits))) as i64,
        _ => 0,
    }
}

fn float_of(raw: u64, ty: ScalarTy) -> f64 {
    match Format::of(ty) {
        Some(f) => float::to_f64(f, raw),
        None => int_coord(raw, ty) as f64,
    }
}

/// The byte offset of texel (x, y, z) when inside the image.
fn texel_offset(d: &ImageDesc, at: [i64; 3]) -> Option<u32> {
    sample_offset(d, at, 0)
}

/// The byte offset of sample `sample` of texel (x, y, z) when both are inside the image.
fn sample_offset(d: &ImageDesc, [x, y, z]: [i64; 3], sample: i64) -> Option<u32> {
    let [w, h, depth] = d.extent.map(i64::from);
    let samples = i64::from(d.samples.max(1));
    if !(0..w).contains(&x)
        || !(0..h).contains(&y)
        || !(0..depth).contains(&z)
        || !(0..samples).contains(&sample)
    {
        return None;
    }
    let index = ((z * h + y) * w + x) * samples + sample;
    u32::try_from(index * i64::from(d.format.texel_bytes())).ok()
}

fn read_texel(mem: &mut Memory, region: u32, d: &ImageDesc, off: u32, inv: usize) -> Texel {
    let f = d.format;
    let ty = f.channel_ty();
    let p = encode_ptr(Space::Buffer, region, off);
    let n = usize::from(f.channels);
    let raw = if f.packed.is_some() {
        f.unpack(mem.read(p, f.word_leaf(), inv).unwrap_or(0))
    } else {
        let mut raw = [0u64; 4];
        for (c, r) in raw.iter_mut().enumerate().take(n) {
            let leaf = Leaf {
                offset: c as u32 * u32::from(f.bits) / 8,
                ty,
            };
            *r = mem.read(p, leaf, inv).unwrap_or(0);
        }
        raw
    };
    match f.kind {
        ChannelKind::Uint | ChannelKind::Sint => {
            let mut v = [0, 0, 0, 1];
            for c in 0..n {
                v[c] = if f.kind == ChannelKind::Sint {
                    sext(raw[c], f.channel_bits(c)) as u64
                } else {
                    raw[c]
                };
            }
            Texel::I(v)
        }
        _ => {
            let mut v = [0.0, 0.0, 0.0, 1.0];
            for (c, x) in v.iter_mut().enumerate().take(n) {
                *x = f.channel_value(c, raw[c]);
            }
            Texel::F(v)
        }
    }
}

/// A texel's channels as the result type's components (raw bits).
fn result_bits(t: Texel, result: ScalarTy, n: usize) -> [u64; 4] {
    let mut out = [0u64; 4];
    for c in 0..n.min(4) {
        out[c] = match (t, Format::of(result)) {
            (Texel::F(v), Some(fmt)) => float::from_f64(v[c], fmt, Round::Rte),
            (Texel::F(v), None) => v[c] as i64 as u64 & bitmask(result.bits()),
            (Texel::I(v), Some(fmt)) => float::from_f64(v[c] as i64 as f64, fmt, Round::Rte),
            (Texel::I(v), None) => v[c] & bitmask(result.bits()),
        };
    }
    out
}

fn write_texel(
    mem: &mut Memory,
    region: u32,
    d: &ImageDesc,
    off: u32,
    inv: usize,
    value: [u64; 4],
    value_ty: ScalarTy,
) -> bool {
    let f = d.format;
    let ty = f.channel_ty();
    let p = encode_ptr(Space::Buffer, region, off);
    let mut raw = [0u64; 4];
    for (c, (v, out)) in value
        .iter()
        .zip(&mut raw)
        .enumerate()
        .take(usize::from(f.channels))
    {
        let b = f.channel_bits(c);
        *out = match f.kind {
            ChannelKind::Uint | ChannelKind::Sint => *v & bitmask(b),
            kind => {
                // A float value (or an integer one converted) into the channel.
                let x = float_of(*v, value_ty);
                match kind {
                    ChannelKind::Unorm => {
                        let m = bitmask(b) as f64;
                        (x.clamp(0.0, 1.0) * m).round_ties_even() as u64
                    }
                    ChannelKind::Snorm => {
                        let m = bitmask(b - 1) as f64;
                        ((x.clamp(-1.0, 1.0) * m).round_ties_even() as i64 as u64) & bitmask(b)
                    }
                    _ if f.packed.is_some() => ufloat_from_f64(x, b),
                    _ => match (Format::of(value_ty), Format::of(ty)) {
                        // Same width: the bits as they are (NaN payloads survive).
                        (Some(vf), Some(cf)) if vf == cf => *v,
                        (Some(vf), Some(cf)) => float::convert(vf, cf, *v, Round::Rte),
                        (_, Some(cf)) => float::from_f64(x, cf, Round::Rte),
                        _ => 0,
                    },
                }
            }
        };
    }
    if f.packed.is_some() {
        return mem.write(p, f.word_leaf(), inv, f.pack(raw)).is_ok();
    }
    let mut ok = true;
    for (c, bits) in raw.iter().enumerate().take(usize::from(f.channels)) {
        let leaf = Leaf {
            offset: c as u32 * u32::from(f.bits) / 8,
            ty,
        };
        ok &= mem.write(p, leaf, inv, *bits).is_ok();
    }
    ok
}

/// The texel coordinate of `i` along an axis of `size` texels under an address mode (`None`:
/// the border).
fn wrap(i: i64, size: i64, mode: AddressMode) -> Option<i64> {
    let size = size.max(1);
    match mode {
        AddressMode::ClampToEdge => Some(i.clamp(0, size - 1)),
        AddressMode::Repeat => Some(i.rem_euclid(size)),
        AddressMode::MirroredRepeat => {
            let t = i.rem_euclid(2 * size);
            Some(if t >= size { 2 * size - 1 - t } else { t })
        }
        AddressMode::ClampToBorder => (0..size).contains(&i).then_some(i),
    }
}

/// A cube direction as (face, s, t), s and t in 0..1 (the Vulkan spec's cube map face
/// selection table).
fn cube_face(x: f64, y: f64, z: f64) -> (i64, f64, f64) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    let ma = if ma == 0.0 { 1.0 } else { ma };
    (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0))
}

/// A filtered sample: the texels around `coords` (normalised unless the sampler says not),
/// weighted by the filter.
#[expect(clippy::too_many_arguments, reason = "one sample's inputs")]
fn sample(
    mem: &mut Memory,
    region: u32,
    d: &ImageDesc,
    s: &SamplerDesc,
    dim: Dim,
    arrayed: bool,
    coords: [f64; 4],
    offset: [i64; 3],
    inv: usize,
) -> Texel {
    let [w, h, depth] = d.extent.map(i64::from);
    // Cube maps are addressed clamped to each face's edge whatever the sampler says.
    let cube_sampler = SamplerDesc {
        address: AddressMode::ClampToEdge,
        ..*s
    };
    let s = if dim == Dim::Cube { &cube_sampler } else { s };
    // (axes filtered, their coordinates in 0..1 or texels, sizes), and the fixed layer.
    let (axes, mut u, sizes, layer) = match dim {
        Dim::Cube => {
            let (face, fs, ft) = cube_face(coords[0], coords[1], coords[2]);
            let cube = if arrayed {
                coords[3]
                    .round_ties_even()
                    .clamp(0.0, (depth / 6 - 1).max(0) as f64) as i64
            } else {
                0
            };
            (2, [fs, ft, 0.0], [w, h, 1], face + 6 * cube)
        }
        _ => {
            let axes = dim.coords() as usize;
            let mut u = [0.0; 3];
            u[..axes].copy_from_slice(&coords[..axes]);
            let sizes = [w, h, depth];
            let layer = if arrayed {
                let layers = sizes[axes];
                coords[axes]
                    .round_ties_even()
                    .clamp(0.0, (layers - 1).max(0) as f64) as i64
            } else {
                0
            };
            (axes, u, sizes, layer)
        }
    };
    if !s.unnormalized || dim == Dim::Cube {
        for a in 0..axes {
            u[a] *= sizes[a] as f64;
        }
    }
    // Per axis: (first texel, weight of the second); nearest has no second.
    let linear = s.filter == Filter::Linear && !d.format.is_integer();
    let mut base = [0i64; 3];
    let mut frac = [0f64; 3];
    for a in 0..axes {
        if linear {
            let t = u[a] - 0.5;
            base[a] = t.floor() as i64 + offset[a];
            frac[a] = t - t.floor();
            if let Some(q) = mem.sub_texel {
                frac[a] = q.quantize(frac[a]);
            }
        } else {
            base[a] = u[a].floor() as i64 + offset[a];
        }
    }
    let corners = if linear { 1usize << axes } else { 1 };
    let mut acc = [0f64; 4];
    let mut nearest = Texel::F([0.0; 4]);
    for k in 0..corners {
        let mut weight = 1.0;
        let mut at = [0i64; 3];
        let mut border = false;
        for a in 0..3 {
            if a < axes {
                let second = k >> a & 1 == 1;
                weight *= if !linear {
                    1.0
                } else if second {
                    frac[a]
                } else {
                    1.0 - frac[a]
                };
                match wrap(base[a] + i64::from(second), sizes[a], s.address) {
                    Some(i) => at[a] = i,
                    None => border = true,
                }
            }
        }
        // The layer (or a cube's face) is the coordinate after the filtered ones.
        if axes < 3 {
            at[axes] = layer;
        }
        let t = if border {
            Texel::F([0.0; 4])
        } else {
            match texel_offset(d, at) {
                Some(off) => read_texel(mem, region, d, off, inv),
                None => Texel::F([0.0; 4]),
            }
        };
        match t {
            Texel::F(v) => {
                for c in 0..4 {
                    acc[c] += weight * v[c];
                }
            }
            i @ Texel::I(_) => nearest = i,
        }
    }
    // A device may filter a normalized format in its own precision: the result then lies up
    // to one step of the format away (taken the same way as the weights).
    if let (true, Some(q)) = (linear, mem.sub_texel) {
        if matches!(d.format.kind, ChannelKind::Unorm | ChannelKind::Snorm)
            && d.format.packed.is_none()
        {
            let signed = d.format.kind == ChannelKind::Snorm;
            let steps = bitmask(u32::from(d.format.bits) - u32::from(signed)) as f64;
            let lo = if signed { -1.0 } else { 0.0 };
            for v in &mut acc {
                let step = if q.up { 1.0 } else { -1.0 } / steps;
                *v = (*v + step).clamp(lo, 1.0);
            }
        }
    }
    match nearest {
        i @ Texel::I(_) if d.format.is_integer() => i,
        _ => Texel::F(acc),
    }
}

/// The texel coordinates an integer coordinate operand names, offset, in (x, y, z) order.
fn texel_coords(c: &Ctx<'_>, i: &ImageInst, l: usize, offset: [i64; 3]) -> [i64; 3] {
    let s = c.s;
    let mut at = [0i64; 3];
    for (k, a) in at.iter_mut().enumerate().take(i.coord_n.min(3) as usize) {
        *a = int_coord(c.regs[(i.coord as usize + k) * s + l], i.coord_ty);
    }
    // A 1D array's layer is its second coordinate, which is the image's second extent.
    for (a, o) in at.iter_mut().zip(offset) {
        *a += o;
    }
    at
}

fn offsets(c: &Ctx<'_>, i: &ImageInst, l: usize) -> [i64; 3] {
    let mut o = [0i64; 3];
    if let Some((slot, n, ty)) = i.offset {
        for (k, x) in o.iter_mut().enumerate().take(n.min(3) as usize) {
            *x = int_coord(c.regs[(slot as usize + k) * c.s + l], ty);
        }
    }
    o
}

fn describe(c: &Ctx<'_>, region: u32, d: &ImageDesc) -> String {
    let name = c.prog.resources.get(region as usize).map_or_else(
        || format!("resource {region}"),
        |r| format!("`{}` (set {} binding {})", r.name, r.set, r.binding),
    );
    let [w, h, z] = d.extent;
    format!("the {w}x{h}x{z} {} image {name}", d.format.name)
}

#[expect(clippy::too_many_lines, reason = "one arm per image instruction")]
pub(super) fn exec(c: &mut Ctx<'_>, i: &ImageInst) {
    let s = c.s;
    let mut bad: Mask = 0;
    let mut bad_msg = None;
    // The active lanes in order (the body needs the whole context, so no `each` closure).
    let mut active = if c.full {
        Mask::MAX >> (Mask::BITS as usize - s)
    } else {
        c.mask
    };
    while active != 0 {
        let l = active.trailing_zeros() as usize;
        active &= active - 1;
        let inv = c.inv_base + l;
        let h = c.regs[i.image as usize * s + l];
        let (region, sampler) = parts(h);
        let desc = c.mem.images.get(region as usize).copied().flatten();
        let mut out = [0u64; 4];
        match i.op {
            ImageOp::Combine => {
                let (sr, _) = parts(c.regs[i.value as usize * s + l]);
                out[0] = handle(region, Some(sr));
            }
            ImageOp::Extract => out[0] = handle(region, None),
            ImageOp::QueryOne => out[0] = 1,
            ImageOp::QuerySamples => out[0] = desc.map_or(1, |d| u64::from(d.samples.max(1))),
            ImageOp::QuerySize => {
                let Some(d) = desc else { continue };
                let lod = i
                    .lod
                    .map_or(0, |(slot, ty)| int_coord(c.regs[slot as usize * s + l], ty))
                    .clamp(0, 31) as u32;
                let [w, hh, z] = d.extent;
                let m = |v: u32| (v >> lod).max(1);
                let v: Vec<u32> = match (i.ty.dim, i.ty.arrayed) {
                    (Dim::D1 | Dim::Buffer, false) => vec![m(w)],
                    (Dim::D1, true) => vec![m(w), hh],
                    (Dim::D2 | Dim::Cube, false) => vec![m(w), m(hh)],
                    (Dim::D2, true) => vec![m(w), m(hh), z],
                    (Dim::Cube, true) => vec![m(w), m(hh), z / 6],
                    (Dim::D3, _) => vec![m(w), m(hh), m(z)],
                    (Dim::Buffer, true) => vec![w],
                };
                for (k, x) in v.iter().enumerate().take(4) {
                    out[k] = u64::from(*x);
                }
            }
            ImageOp::Read | ImageOp::Fetch | ImageOp::Write | ImageOp::TexelPointer => {
                let Some(d) = desc else {
                    bad |= 1 << l;
                    bad_msg.get_or_insert_with(|| {
                        "an image handle that names no bound image".to_string()
                    });
                    continue;
                };
                let o = offsets(c, i, l);
                let mut at = texel_coords(c, i, l, o);
                // 1D arrays keep their layer in the second coordinate; 2D arrays and cubes in
                // the third, which is where the extent has them.
                if i.ty.dim == Dim::Buffer {
                    at = [at[0], 0, 0];
                }
                let lod = i
                    .lod
                    .map_or(0, |(slot, ty)| int_coord(c.regs[slot as usize * s + l], ty));
                let sample = i
                    .sample
                    .map_or(0, |(slot, ty)| int_coord(c.regs[slot as usize * s + l], ty));
                let off = if lod == 0 {
                    sample_offset(&d, at, sample)
                } else {
                    None
                };
                let Some(off) = off else {
                    bad |= 1 << l;
                    bad_msg.get_or_insert_with(|| {
                        let what = match i.op {
                            ImageOp::Write => "an image write",
                            ImageOp::TexelPointer => "an image texel pointer",
                            ImageOp::Fetch => "a texel fetch",
                            _ => "an image read",
                        };
                        let n = i.ty.coords().min(3) as usize;
                        let at: Vec<String> = at[..n].iter().map(i64::to_string).collect();
                        let lod = if lod != 0 {
                            format!(" at level {lod} (the image has one level)")
                        } else if i.sample.is_some() {
                            format!(" sample {sample} (of {})", d.samples)
                        } else {
                            String::new()
                        };
                        format!(
                            "{what} at texel ({}){lod} outside {}; {}",
                            at.join(", "),
                            describe(c, region, &d),
                            match i.op {
                                ImageOp::Write => "the write is dropped",
                                ImageOp::TexelPointer => "the pointer points past the image",
                                _ => "it reads 0",
                            }
                        )
                    });
                    if i.op == ImageOp::TexelPointer {
                        out[0] = encode_ptr(Space::Buffer, region, u32::MAX);
                        c.regs[i.dst as usize * s + l] = out[0];
                    }
                    if i.op != ImageOp::Write && i.op != ImageOp::TexelPointer {
                        for k in 0..i.n.min(4) as usize {
                            c.regs[(i.dst as usize + k) * s + l] = 0;
                        }
                    }
                    continue;
                };
                match i.op {
                    ImageOp::TexelPointer => out[0] = encode_ptr(Space::Buffer, region, off),
                    ImageOp::Write => {
                        let mut v = [0u64; 4];
                        for (k, x) in v.iter_mut().enumerate().take(i.value_n.min(4) as usize) {
                            *x = c.regs[(i.value as usize + k) * s + l];
                        }
                        write_texel(c.mem, region, &d, off, inv, v, i.value_ty);
                    }
                    _ => {
                        let t = read_texel(c.mem, region, &d, off, inv);
                        out = result_bits(t, i.result, i.n as usize);
                    }
                }
            }
            ImageOp::Sample => {
                let Some(d) = desc else {
                    bad |= 1 << l;
                    bad_msg.get_or_insert_with(|| {
                        "an image handle that names no bound image".to_string()
                    });
                    continue;
                };
                let sd = sampler
                    .and_then(|r| c.mem.samplers.get(r as usize).copied().flatten())
                    .unwrap_or_default();
                let mut coords = [0f64; 4];
                for (k, x) in coords
                    .iter_mut()
                    .enumerate()
                    .take(i.coord_n.min(4) as usize)
                {
                    *x = float_of(c.regs[(i.coord as usize + k) * s + l], i.coord_ty);
                }
                let o = offsets(c, i, l);
                let t = sample(
                    c.mem,
                    region,
                    &d,
                    &sd,
                    i.ty.dim,
                    i.ty.arrayed,
                    coords,
                    o,
                    inv,
                );
                out = result_bits(t, i.result, i.n as usize);
            }
        }
        if i.dst != u32::MAX {
            for (k, v) in out.iter().enumerate().take(i.n.min(4) as usize) {
                c.regs[(i.dst as usize + k) * s + l] = *v;
            }
        }
    }
    if let Some(m) = bad_msg {
        c.found.add(DiagCode::OutOfBounds, m, bad);
    }
}
