//! Images on the device: storage images, sampled images read without a sampler
//! (`OpImageFetch`) and texel buffers, made from what the simulation binds (format, extent,
//! texels tightly packed) and read back in the same packing.

use crate::device::{GpuError, GpuImage};
use ash::vk;
use lanescope_core::program::image::{AddressMode, Dim, Filter, SamplerDesc, TexelFormat};

impl GpuImage {
    /// Its Vulkan format (UNDEFINED for none: [`GpuImage::check`] refuses it).
    pub fn vk_format(&self) -> vk::Format {
        format_of(&self.format).unwrap_or(vk::Format::UNDEFINED)
    }

    pub fn descriptor_type(&self) -> vk::DescriptorType {
        match (self.texel_buffer(), self.sampled) {
            (true, true) => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            (true, false) => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            (false, true) => vk::DescriptorType::SAMPLED_IMAGE,
            (false, false) => vk::DescriptorType::STORAGE_IMAGE,
        }
    }

    /// The layers (cube faces counted) and the extent of one layer.
    fn layers(&self) -> (u32, vk::Extent3D) {
        let [w, h, d] = self.extent.map(|x| x.max(1));
        let (layers, extent) = match (self.dim, self.arrayed) {
            (Dim::D1, true) => (h, [w, 1, 1]),
            (Dim::D2, true) | (Dim::Cube, _) => (d, [w, h, 1]),
            (Dim::D1, false) | (Dim::Buffer, _) => (1, [w, 1, 1]),
            (Dim::D2, false) => (1, [w, h, 1]),
            (Dim::D3, _) => (1, [w, h, d]),
        };
        let [width, height, depth] = extent;
        (
            layers,
            vk::Extent3D {
                width,
                height,
                depth,
            },
        )
    }

    fn image_type(&self) -> vk::ImageType {
        match self.dim {
            Dim::D1 | Dim::Buffer => vk::ImageType::TYPE_1D,
            Dim::D2 | Dim::Cube => vk::ImageType::TYPE_2D,
            Dim::D3 => vk::ImageType::TYPE_3D,
        }
    }

    fn view_type(&self) -> vk::ImageViewType {
        match (self.dim, self.arrayed) {
            (Dim::D1 | Dim::Buffer, false) => vk::ImageViewType::TYPE_1D,
            (Dim::D1 | Dim::Buffer, true) => vk::ImageViewType::TYPE_1D_ARRAY,
            (Dim::D2, false) => vk::ImageViewType::TYPE_2D,
            (Dim::D2, true) => vk::ImageViewType::TYPE_2D_ARRAY,
            (Dim::D3, _) => vk::ImageViewType::TYPE_3D,
            (Dim::Cube, false) => vk::ImageViewType::CUBE,
            (Dim::Cube, true) => vk::ImageViewType::CUBE_ARRAY,
        }
    }

    fn range(&self) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(self.layers().0)
    }

    /// The copy between the image and its tightly packed bytes.
    pub fn copy(&self) -> vk::BufferImageCopy {
        let (layers, extent) = self.layers();
        vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .layer_count(layers),
            )
            .image_extent(extent)
    }

    /// What the device must offer for this format and use, checked against `features`
    /// (optimal tiling for images, buffer features for texel buffers).
    pub fn check(&self, name: &str, props: vk::FormatProperties) -> Result<(), GpuError> {
        if self.vk_format() == vk::Format::UNDEFINED {
            return Err(GpuError::Unsupported(format!(
                "`{name}` has format {}, which has no Vulkan format here",
                self.format.name
            )));
        }
        let (have, need, what) = if self.texel_buffer() {
            let need = if self.sampled {
                vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER
            } else {
                vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER
            };
            (props.buffer_features, need, "texel buffer")
        } else {
            let need = if self.sampled {
                vk::FormatFeatureFlags::SAMPLED_IMAGE
            } else {
                vk::FormatFeatureFlags::STORAGE_IMAGE
            };
            (props.optimal_tiling_features, need, "image")
        };
        if have.contains(need) {
            Ok(())
        } else {
            Err(GpuError::Unsupported(format!(
                "the device cannot bind `{name}` as a {}{what} of format {}",
                if self.sampled { "sampled " } else { "storage " },
                self.format.name
            )))
        }
    }

    /// The image's create info (device-local, filled and read back by copies).
    pub fn create_info(&self) -> vk::ImageCreateInfo<'static> {
        let (layers, extent) = self.layers();
        let usage = vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::TRANSFER_DST
            | if self.sampled {
                vk::ImageUsageFlags::SAMPLED
            } else {
                vk::ImageUsageFlags::STORAGE
            };
        let flags = if self.dim == Dim::Cube {
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        } else {
            vk::ImageCreateFlags::empty()
        };
        vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(self.image_type())
            .format(self.vk_format())
            .extent(extent)
            .mip_levels(1)
            .array_layers(layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED)
    }

    pub fn view_info(&self, image: vk::Image) -> vk::ImageViewCreateInfo<'static> {
        vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(self.view_type())
            .format(self.vk_format())
            .subresource_range(self.range())
    }

    /// A layout change of `image` whole, ordering `src` accesses before `dst` ones.
    pub fn barrier(
        &self,
        image: vk::Image,
        (from, to): (vk::ImageLayout, vk::ImageLayout),
        (src, dst): (vk::AccessFlags, vk::AccessFlags),
    ) -> vk::ImageMemoryBarrier<'static> {
        vk::ImageMemoryBarrier::default()
            .image(image)
            .old_layout(from)
            .new_layout(to)
            .src_access_mask(src)
            .dst_access_mask(dst)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .subresource_range(self.range())
    }
}

/// The device's sampler for `s` (one mip level: the simulation binds one); `integer`: it
/// reads an integer image (its border is then integer black); `None` with the reason when Vulkan
/// gives no such sampler (unnormalized coordinates with a repeating address mode).
pub fn sampler_info(
    s: &SamplerDesc,
    integer: bool,
) -> Result<vk::SamplerCreateInfo<'static>, String> {
    let filter = match s.filter {
        Filter::Nearest => vk::Filter::NEAREST,
        Filter::Linear => vk::Filter::LINEAR,
    };
    let address = match s.address {
        AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
        AddressMode::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        AddressMode::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
    };
    if s.unnormalized
        && !matches!(
            s.address,
            AddressMode::ClampToEdge | AddressMode::ClampToBorder
        )
    {
        return Err(
            "a sampler with unnormalized coordinates must clamp (Vulkan allows no other address mode with them)"
                .into(),
        );
    }
    Ok(vk::SamplerCreateInfo::default()
        .mag_filter(filter)
        .min_filter(filter)
        .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
        .address_mode_u(address)
        .address_mode_v(address)
        .address_mode_w(address)
        .min_lod(0.0)
        .max_lod(0.0)
        .border_color(if integer {
            vk::BorderColor::INT_TRANSPARENT_BLACK
        } else {
            vk::BorderColor::FLOAT_TRANSPARENT_BLACK
        })
        .unnormalized_coordinates(s.unnormalized))
}

/// The Vulkan format of a SPIR-V image format (Vulkan's table of compatible formats).
pub fn format_of(f: &TexelFormat) -> Option<vk::Format> {
    use vk::Format as F;
    Some(match f.name {
        "rgba32f" => F::R32G32B32A32_SFLOAT,
        "rgba16f" => F::R16G16B16A16_SFLOAT,
        "r32f" => F::R32_SFLOAT,
        "rgba8" => F::R8G8B8A8_UNORM,
        "rgba8snorm" => F::R8G8B8A8_SNORM,
        "rg32f" => F::R32G32_SFLOAT,
        "rg16f" => F::R16G16_SFLOAT,
        "r11fg11fb10f" => F::B10G11R11_UFLOAT_PACK32,
        "r16f" => F::R16_SFLOAT,
        "rgba16" => F::R16G16B16A16_UNORM,
        "rgb10a2" => F::A2B10G10R10_UNORM_PACK32,
        "rg16" => F::R16G16_UNORM,
        "rg8" => F::R8G8_UNORM,
        "r16" => F::R16_UNORM,
        "r8" => F::R8_UNORM,
        "rgba16snorm" => F::R16G16B16A16_SNORM,
        "rg16snorm" => F::R16G16_SNORM,
        "rg8snorm" => F::R8G8_SNORM,
        "r16snorm" => F::R16_SNORM,
        "r8snorm" => F::R8_SNORM,
        "rgba32i" => F::R32G32B32A32_SINT,
        "rgba16i" => F::R16G16B16A16_SINT,
        "rgba8i" => F::R8G8B8A8_SINT,
        "r32i" => F::R32_SINT,
        "rg32i" => F::R32G32_SINT,
        "rg16i" => F::R16G16_SINT,
        "rg8i" => F::R8G8_SINT,
        "r16i" => F::R16_SINT,
        "r8i" => F::R8_SINT,
        "rgba32ui" => F::R32G32B32A32_UINT,
        "rgba16ui" => F::R16G16B16A16_UINT,
        "rgba8ui" => F::R8G8B8A8_UINT,
        "r32ui" => F::R32_UINT,
        "rgb10a2ui" => F::A2B10G10R10_UINT_PACK32,
        "rg32ui" => F::R32G32_UINT,
        "rg16ui" => F::R16G16_UINT,
        "rg8ui" => F::R8G8_UINT,
        "r16ui" => F::R16_UINT,
        "r8ui" => F::R8_UINT,
        "r64ui" => F::R64_UINT,
        "r64i" => F::R64_SINT,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanescope_core::program::image::{ChannelKind, Dim, ImageDesc, ImageType, FORMATS};

    /// Every format the simulator stores has a Vulkan format of the same kind, channel count and
    /// texel size (so the tightly packed bytes mean the same on both sides).
    #[test]
    fn every_format_has_its_vulkan_format() {
        for f in FORMATS {
            let v = format_of(f).unwrap_or_else(|| panic!("{}", f.name));
            let name = format!("{v:?}");
            let kind = match f.kind {
                ChannelKind::Unorm => "UNORM",
                ChannelKind::Snorm => "SNORM",
                ChannelKind::Uint => "UINT",
                ChannelKind::Sint => "SINT",
                ChannelKind::Float if f.packed.is_some() => "UFLOAT",
                ChannelKind::Float => "SFLOAT",
            };
            assert!(name.contains(kind), "{} -> {name}", f.name);
            let channels = ["R", "G", "B", "A"]
                .iter()
                .filter(|c| name.split('_').next().unwrap_or("").contains(*c))
                .count();
            assert_eq!(channels, usize::from(f.channels), "{} -> {name}", f.name);
            if f.packed.is_some() {
                assert!(name.ends_with("PACK32"), "{} -> {name}", f.name);
            } else {
                let bits = format!("{}", f.bits);
                assert!(
                    name.split('_').next().unwrap_or("").ends_with(&bits),
                    "{} -> {name}",
                    f.name
                );
            }
        }
    }

    #[test]
    fn layers_and_extents_follow_the_packing() {
        let desc = |extent| ImageDesc::new(FORMATS[0], extent);
        let ty = |dim, arrayed| ImageType {
            dim,
            arrayed,
            multisampled: false,
            sampled: 2,
            format: None,
            component: lanescope_core::value::ScalarTy::F32,
        };
        let img = |dim, arrayed, extent| {
            GpuImage::new("x", &ty(dim, arrayed), &desc(extent))
                .map(|i| {
                    let (l, e) = i.layers();
                    (l, [e.width, e.height, e.depth], i.view_type())
                })
                .unwrap_or_else(|e| panic!("{e}"))
        };
        use vk::ImageViewType as V;
        assert_eq!(img(Dim::D2, false, [8, 4, 1]), (1, [8, 4, 1], V::TYPE_2D));
        assert_eq!(
            img(Dim::D2, true, [8, 4, 3]),
            (3, [8, 4, 1], V::TYPE_2D_ARRAY)
        );
        assert_eq!(
            img(Dim::D1, true, [8, 5, 1]),
            (5, [8, 1, 1], V::TYPE_1D_ARRAY)
        );
        assert_eq!(img(Dim::D3, false, [8, 4, 2]), (1, [8, 4, 2], V::TYPE_3D));
        assert_eq!(img(Dim::Cube, false, [4, 4, 6]), (6, [4, 4, 1], V::CUBE));
        let mut ms = ty(Dim::D2, false);
        ms.multisampled = true;
        assert!(GpuImage::new("m", &ms, &desc([2, 2, 1]))
            .unwrap_err()
            .contains("`m` is a multisampled image"));
    }

    #[test]
    fn a_sampler_is_made_as_described_or_refused_with_the_reason() {
        let d = |text| SamplerDesc::parse(text).expect("a sampler");
        let s = sampler_info(&d("linear,mirror"), false).expect("a sampler");
        assert_eq!(s.mag_filter, vk::Filter::LINEAR);
        assert_eq!(s.address_mode_v, vk::SamplerAddressMode::MIRRORED_REPEAT);
        assert_eq!(s.border_color, vk::BorderColor::FLOAT_TRANSPARENT_BLACK);
        let s = sampler_info(&d("nearest,border,unnormalized"), true).expect("a sampler");
        assert_eq!(s.unnormalized_coordinates, vk::TRUE);
        assert_eq!(s.border_color, vk::BorderColor::INT_TRANSPARENT_BLACK);
        let err = sampler_info(&d("nearest,repeat,unnormalized"), false).unwrap_err();
        assert!(err.contains("unnormalized coordinates must clamp"), "{err}");
    }
}
