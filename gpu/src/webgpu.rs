//! What a WebGPU device is handed for each binding of a dispatch (the browser's Run on GPU):
//! the binding layout entry WebGPU asks for and what the page makes for it. Buffers are bound
//! as they are; images become textures of the WebGPU format of their SPIR-V format, filled
//! from the simulation's texels and read back as it lays them out (tightly packed, x fastest,
//! then y, then layer or depth); samplers are made as described. What WebGPU has no equivalent
//! for is refused naming the binding.

use crate::device::{GpuBuffer, GpuImage};
use lanescope_core::program::image::{AddressMode, ChannelKind, Dim, Filter, SamplerDesc};

/// One binding as WebGPU takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A buffer: `uniform`, `read-only-storage` or `storage`.
    Buffer { kind: &'static str },
    /// A texture read and written by the shader (`storageTexture`).
    Storage(Texture),
    /// A texture read through `textureLoad` or a sampler (`texture`).
    Sampled(Texture),
    /// A sampler.
    Sampler {
        /// `nearest` or `linear`, for magnification, minification and mipmaps.
        filter: &'static str,
        /// `clamp-to-edge`, `repeat` or `mirror-repeat`, on every axis.
        address: &'static str,
        /// The layout's sampler type: `filtering` or `non-filtering`.
        kind: &'static str,
    },
}

/// A texture the page makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texture {
    /// The WebGPU texture format (`rgba8unorm`, `r32uint`).
    pub format: &'static str,
    /// The view dimension (`1d`, `2d`, `2d-array`, `cube`, `cube-array`, `3d`).
    pub view: &'static str,
    /// The texture's dimension (`1d`, `2d`, `3d`).
    pub dimension: &'static str,
    /// Width, height, depth or array layers.
    pub size: [u32; 3],
    /// Bytes per texel.
    pub texel_bytes: u32,
    /// A storage texture's access (`read-only`, `write-only`, `read-write`); a sampled one's
    /// sample type (`float`, `unfilterable-float`, `uint`, `sint`).
    pub mode: &'static str,
}

/// The WebGPU format of a SPIR-V image format (by its lower-case name), when WebGPU has one.
pub fn format(spirv_name: &str) -> Option<&'static str> {
    Some(match spirv_name {
        "rgba32f" => "rgba32float",
        "rgba32ui" => "rgba32uint",
        "rgba32i" => "rgba32sint",
        "rg32f" => "rg32float",
        "rg32ui" => "rg32uint",
        "rg32i" => "rg32sint",
        "r32f" => "r32float",
        "r32ui" => "r32uint",
        "r32i" => "r32sint",
        "rgba16f" => "rgba16float",
        "rgba16ui" => "rgba16uint",
        "rgba16i" => "rgba16sint",
        "rg16f" => "rg16float",
        "rg16ui" => "rg16uint",
        "rg16i" => "rg16sint",
        "r16f" => "r16float",
        "r16ui" => "r16uint",
        "r16i" => "r16sint",
        "rgba8" => "rgba8unorm",
        "rgba8snorm" => "rgba8snorm",
        "rgba8ui" => "rgba8uint",
        "rgba8i" => "rgba8sint",
        "rg8" => "rg8unorm",
        "rg8snorm" => "rg8snorm",
        "rg8ui" => "rg8uint",
        "rg8i" => "rg8sint",
        "r8" => "r8unorm",
        "r8snorm" => "r8snorm",
        "r8ui" => "r8uint",
        "r8i" => "r8sint",
        "rgb10a2" => "rgb10a2unorm",
        "rgb10a2ui" => "rgb10a2uint",
        "r11fg11fb10f" => "rg11b10ufloat",
        _ => return None,
    })
}

/// Formats every WebGPU device offers as storage textures (without optional features).
const STORAGE: [&str; 15] = [
    "rgba8unorm",
    "rgba8snorm",
    "rgba8uint",
    "rgba8sint",
    "rgba16uint",
    "rgba16sint",
    "rgba16float",
    "r32uint",
    "r32sint",
    "r32float",
    "rg32uint",
    "rg32sint",
    "rg32float",
    "rgba32uint",
    "rgba32sint",
];

/// Formats a storage texture may be read and written through (the others are read-only or
/// write-only).
const READ_WRITE: [&str; 3] = ["r32uint", "r32sint", "r32float"];

/// Binding `b` of a dispatch as WebGPU takes it, or why WebGPU cannot.
pub fn binding(b: &GpuBuffer) -> Result<Binding, String> {
    let at = || format!("set {} binding {}", b.set, b.binding);
    if b.element != 0 || b.shares.is_some() {
        return Err(format!(
            "{}: binding arrays and shared buffers are not given to the browser's WebGPU yet",
            at()
        ));
    }
    match (b.image, b.sampler) {
        (None, None) => Ok(Binding::Buffer {
            kind: if b.uniform {
                "uniform"
            } else if b.read_only {
                "read-only-storage"
            } else {
                "storage"
            },
        }),
        (None, Some(s)) => sampler(&s).map_err(|e| format!("{}: {e}", at())),
        (Some(_), Some(_)) => Err(format!(
            "{}: a combined image sampler (WGSL has none: a texture and a sampler are bound apart)",
            at()
        )),
        (Some(i), None) => texture(&i).map_err(|e| format!("{}: {e}", at())),
    }
}

fn sampler(s: &SamplerDesc) -> Result<Binding, String> {
    if s.unnormalized {
        return Err("WebGPU samplers take normalized coordinates only".into());
    }
    let address = match s.address {
        AddressMode::ClampToEdge => "clamp-to-edge",
        AddressMode::Repeat => "repeat",
        AddressMode::MirroredRepeat => "mirror-repeat",
        AddressMode::ClampToBorder => {
            return Err("WebGPU samplers have no border address mode".into())
        }
    };
    let (filter, kind) = match s.filter {
        Filter::Nearest => ("nearest", "non-filtering"),
        Filter::Linear => ("linear", "filtering"),
    };
    Ok(Binding::Sampler {
        filter,
        address,
        kind,
    })
}

fn texture(i: &GpuImage) -> Result<Binding, String> {
    let name = i.format.name;
    let format = format(name).ok_or_else(|| format!("WebGPU has no texture format for {name}"))?;
    let [w, h, z] = i.extent;
    let (view, dimension) = match (i.dim, i.arrayed) {
        (Dim::Buffer, _) => return Err("WebGPU has no texel buffers".into()),
        (Dim::D1, true) => return Err("WebGPU has no 1D texture arrays".into()),
        (Dim::D1, false) => ("1d", "1d"),
        (Dim::D2, false) => ("2d", "2d"),
        (Dim::D2, true) => ("2d-array", "2d"),
        (Dim::Cube, false) => ("cube", "2d"),
        (Dim::Cube, true) => ("cube-array", "2d"),
        (Dim::D3, _) => ("3d", "3d"),
    };
    let texture = |mode| Texture {
        format,
        view,
        dimension,
        size: [w, h, z],
        texel_bytes: i.format.texel_bytes(),
        mode,
    };
    if i.sampled {
        let mode = match i.format.kind {
            ChannelKind::Uint => "uint",
            ChannelKind::Sint => "sint",
            // 32-bit floats filter only with an optional feature.
            ChannelKind::Float if i.format.bits == 32 => "unfilterable-float",
            _ => "float",
        };
        return Ok(Binding::Sampled(texture(mode)));
    }
    if !STORAGE.contains(&format) {
        return Err(format!(
            "WebGPU offers no storage textures of {format} (without optional features)"
        ));
    }
    if matches!(i.dim, Dim::Cube) {
        return Err("WebGPU has no cube storage textures".into());
    }
    let mode = match (i.readable, i.writable) {
        (true, true) if READ_WRITE.contains(&format) => "read-write",
        (true, true) => {
            return Err(format!(
                "a {format} storage texture is read and written, which WebGPU allows for r32uint, r32sint and r32float only"
            ))
        }
        (true, false) => "read-only",
        (false, _) => "write-only",
    };
    Ok(Binding::Storage(texture(mode)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanescope_core::program::image::TexelFormat;

    fn image(format: &str, dim: Dim, arrayed: bool, sampled: bool, extent: [u32; 3]) -> GpuImage {
        let format = TexelFormat::by_name(format).unwrap();
        GpuImage {
            format,
            dim,
            arrayed,
            extent,
            sampled,
            integer: format.is_integer(),
            readable: true,
            writable: !sampled,
        }
    }

    fn bound(image: Option<GpuImage>, sampler: Option<SamplerDesc>) -> GpuBuffer {
        GpuBuffer {
            set: 0,
            binding: 3,
            image,
            sampler,
            ..GpuBuffer::default()
        }
    }

    #[test]
    fn every_format_the_simulator_names_maps_to_a_webgpu_format_of_its_size() {
        // Bytes per texel of the WebGPU formats (WebGPU's texel block copy footprint).
        let bytes = |f: &str| -> u32 {
            let n: u32 = f
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse()
                .unwrap_or(0);
            let channels = f.chars().take_while(|c| c.is_ascii_alphabetic()).count() as u32;
            n * channels / 8
        };
        let mut mapped = 0;
        for name in [
            "rgba32f",
            "rgba32ui",
            "rg32i",
            "r32f",
            "rgba16f",
            "rg16ui",
            "r16i",
            "rgba8",
            "rgba8snorm",
            "rg8ui",
            "r8i",
            "rgb10a2",
            "r11fg11fb10f",
        ] {
            let f = TexelFormat::by_name(name).unwrap();
            let w = format(name).unwrap();
            if !w.starts_with("rgb10") && !w.starts_with("rg11") {
                assert_eq!(bytes(w), f.texel_bytes(), "{name} -> {w}");
            }
            mapped += 1;
        }
        assert_eq!(mapped, 13);
        // A format WebGPU lacks is refused naming it.
        let e = binding(&bound(
            Some(image("r16", Dim::D2, false, true, [4, 4, 1])),
            None,
        ));
        assert!(e.unwrap_err().contains("no texture format for r16"));
    }

    #[test]
    fn storage_textures_name_their_access_and_refuse_what_webgpu_lacks() {
        let mut i = image("r32ui", Dim::D2, false, false, [8, 8, 1]);
        let Ok(Binding::Storage(t)) = binding(&bound(Some(i), None)) else {
            panic!()
        };
        assert_eq!(
            (t.format, t.view, t.mode, t.texel_bytes),
            ("r32uint", "2d", "read-write", 4)
        );
        i.readable = false;
        let Ok(Binding::Storage(t)) = binding(&bound(Some(i), None)) else {
            panic!()
        };
        assert_eq!(t.mode, "write-only");
        // rgba8 read and written: not in WebGPU.
        let rw = image("rgba8", Dim::D2, false, false, [8, 8, 1]);
        assert!(binding(&bound(Some(rw), None))
            .unwrap_err()
            .contains("r32uint, r32sint and r32float only"));
        let arr = image("rgba16f", Dim::D2, true, true, [4, 4, 3]);
        let Ok(Binding::Sampled(t)) = binding(&bound(Some(arr), None)) else {
            panic!()
        };
        assert_eq!((t.view, t.size, t.mode), ("2d-array", [4, 4, 3], "float"));
        let one_d = image("r32f", Dim::D1, true, true, [4, 2, 1]);
        assert!(binding(&bound(Some(one_d), None))
            .unwrap_err()
            .contains("no 1D texture arrays"));
    }

    #[test]
    fn samplers_take_their_filter_and_address_mode() {
        let s = SamplerDesc {
            filter: Filter::Linear,
            address: AddressMode::Repeat,
            unnormalized: false,
        };
        assert_eq!(
            binding(&bound(None, Some(s))),
            Ok(Binding::Sampler {
                filter: "linear",
                address: "repeat",
                kind: "filtering"
            })
        );
        let border = SamplerDesc {
            address: AddressMode::ClampToBorder,
            ..s
        };
        assert!(binding(&bound(None, Some(border)))
            .unwrap_err()
            .contains("no border"));
    }
}
