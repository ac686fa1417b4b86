//! One compute dispatch run on a device: its buffers made host-visible and coherent, bound
//! (descriptor arrays and shared bindings included), its images and texel buffers made from
//! their texels ([`GpuImage`]), the pipeline at the subgroup size asked for, and every buffer
//! and image read back as the device left it.

use super::{failed, probe, Instance, Probe, WANTED};
use crate::device::{Dispatch, GpuBuffer, GpuError, GpuImage, GpuRun};
use ash::vk;
use std::ffi::CString;

/// Vulkan objects of one dispatch, destroyed (after the device is idle) when dropped.
struct Device<'i> {
    _instance: &'i Instance,
    device: ash::Device,
    buffers: Vec<(vk::Buffer, vk::DeviceMemory, *mut u8, usize)>,
    /// Images (each filled from, and read back into, its binding's buffer) and texel buffers'
    /// views.
    images: Vec<(vk::Image, vk::DeviceMemory, vk::ImageView)>,
    views: Vec<vk::BufferView>,
    samplers: Vec<vk::Sampler>,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    pipeline_layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    commands: vk::CommandPool,
    fence: vk::Fence,
}

impl Drop for Device<'_> {
    fn drop(&mut self) {
        // SAFETY: every handle was made from this device (null ones are ignored by Vulkan),
        // and the device is idle before any is destroyed.
        unsafe {
            let d = &self.device;
            let _ = d.device_wait_idle();
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.commands, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_shader_module(self.module, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            for l in &self.set_layouts {
                d.destroy_descriptor_set_layout(*l, None);
            }
            for (image, m, view) in &self.images {
                d.destroy_image_view(*view, None);
                d.destroy_image(*image, None);
                d.free_memory(*m, None);
            }
            for v in &self.views {
                d.destroy_buffer_view(*v, None);
            }
            for x in &self.samplers {
                d.destroy_sampler(*x, None);
            }
            for (b, m, _, _) in &self.buffers {
                d.destroy_buffer(*b, None);
                d.free_memory(*m, None);
            }
            d.destroy_device(None);
        }
    }
}

/// Runs `d` on its device and reads every buffer back.
pub fn run(d: &Dispatch<'_>) -> Result<GpuRun, GpuError> {
    let inst = Instance::new()?;
    let list = inst.physical()?;
    if list.is_empty() {
        return Err(GpuError::NoDevice);
    }
    let pdev = *list.get(d.device).ok_or(GpuError::NoSuchDevice {
        index: d.device,
        count: list.len(),
    })?;
    let mut probe = probe(&inst, pdev, d.device);
    let info = probe.info.clone();
    crate::module::check_module(&d.spirv, &info)?;
    // SAFETY: every call below gets valid create infos whose pointers outlive the call; the
    // mapped pointers are read and written only within their buffers' sizes while the memory
    // is mapped (until `Device` is dropped), and not while the device runs.
    let out = unsafe { dispatch(&inst, &mut probe, d) };
    if matches!(out, Err(GpuError::Timeout(_))) {
        // The device still holds the dispatch's objects: its instance stays too.
        std::mem::forget(inst);
    }
    out
}

unsafe fn dispatch(
    inst: &Instance,
    probe: &mut Probe,
    d: &Dispatch<'_>,
) -> Result<GpuRun, GpuError> {
    let i = &inst.instance;
    let info = probe.info.clone();
    let family = i
        .get_physical_device_queue_family_properties(probe.pdev)
        .iter()
        .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .ok_or_else(|| GpuError::Unsupported(format!("{} has no compute queue", info.name)))?
        as u32;
    let names: Vec<CString> = WANTED
        .iter()
        .filter(|w| probe.extensions.iter().any(|e| e == *w))
        .filter_map(|w| CString::new(*w).ok())
        .collect();
    let name_ptrs: Vec<*const std::ffi::c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let priority = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priority)];
    let mut create = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&name_ptrs);
    // Every feature the device offers, as queried (the chain is on the heap).
    create.p_next = std::ptr::addr_of!(probe.features.f2).cast();
    let device = i
        .create_device(probe.pdev, &create, None)
        .map_err(failed("creating the Vulkan device"))?;
    let mut dev = Device {
        _instance: inst,
        device,
        buffers: Vec::new(),
        images: Vec::new(),
        views: Vec::new(),
        samplers: Vec::new(),
        set_layouts: Vec::new(),
        pipeline_layout: vk::PipelineLayout::null(),
        module: vk::ShaderModule::null(),
        pipeline: vk::Pipeline::null(),
        pool: vk::DescriptorPool::null(),
        commands: vk::CommandPool::null(),
        fence: vk::Fence::null(),
    };
    let device = dev.device.clone();
    let memory = i.get_physical_device_memory_properties(probe.pdev);

    let slot = buffer_slots(&d.buffers)?;
    let by_address = d.buffers.iter().any(|b| b.address.is_some());
    if by_address && probe.features.f12.buffer_device_address == 0 {
        return Err(GpuError::Unsupported(format!(
            "the module reaches buffers by device address, and {} ({}) lacks bufferDeviceAddress",
            info.name, info.driver
        )));
    }
    // Buffers, host-visible and coherent: filled before, read after.
    for (k, b) in d.buffers.iter().enumerate() {
        if b.shares.is_some() {
            continue;
        }
        let size = (b.data.len().max(4).div_ceil(4) * 4) as u64;
        // Every way it is bound: as itself, and by the bindings that share it.
        let usage = d
            .buffers
            .iter()
            .enumerate()
            .filter(|(j, x)| *j == k || x.shares == Some(k))
            .fold(vk::BufferUsageFlags::empty(), |u, (_, x)| {
                u | match x.image.map(|i| (i.texel_buffer(), i.sampled)) {
                    // An image's texels, copied in and out.
                    Some((false, _)) => {
                        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST
                    }
                    Some((true, true)) => vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
                    Some((true, false)) => vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER,
                    None if x.uniform => vk::BufferUsageFlags::UNIFORM_BUFFER,
                    None => vk::BufferUsageFlags::STORAGE_BUFFER,
                }
            })
            | if b.address.is_some() {
                vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
            } else {
                vk::BufferUsageFlags::empty()
            };
        let buffer = device
            .create_buffer(
                &vk::BufferCreateInfo::default().size(size).usage(usage),
                None,
            )
            .map_err(failed("creating a buffer"))?;
        let req = device.get_buffer_memory_requirements(buffer);
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let Some(ty) = (0..memory.memory_type_count).find(|k| {
            req.memory_type_bits >> k & 1 == 1
                && memory.memory_types[*k as usize]
                    .property_flags
                    .contains(want)
        }) else {
            device.destroy_buffer(buffer, None);
            return Err(GpuError::Unsupported(format!(
                "{} has no host-visible memory for a buffer",
                info.name
            )));
        };
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut allocate = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(ty);
        if b.address.is_some() {
            allocate = allocate.push_next(&mut flags);
        }
        let mem = match device.allocate_memory(&allocate, None) {
            Ok(m) => m,
            Err(e) => {
                device.destroy_buffer(buffer, None);
                return Err(failed("allocating buffer memory")(e));
            }
        };
        dev.buffers
            .push((buffer, mem, std::ptr::null_mut(), b.data.len()));
        device
            .bind_buffer_memory(buffer, mem, 0)
            .map_err(failed("binding buffer memory"))?;
        let ptr = device
            .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .map_err(failed("mapping buffer memory"))?
            .cast::<u8>();
        std::ptr::write_bytes(ptr, 0, size as usize);
        if let Some(last) = dev.buffers.last_mut() {
            last.2 = ptr;
        }
    }
    // Where the device put the buffers reached by address, and the inputs' addresses moved
    // there (the same offset in the same buffer).
    let mut addresses = Vec::new();
    let mut moves = Vec::new();
    for (k, b) in d.buffers.iter().enumerate() {
        let Some(simulated) = b.address.filter(|_| b.shares.is_none()) else {
            continue;
        };
        let at = device.get_buffer_device_address(
            &vk::BufferDeviceAddressInfo::default().buffer(dev.buffers[slot[k]].0),
        );
        addresses.push(((b.set, b.binding, b.element), at));
        moves.push((simulated, b.data.len() as u64, at));
    }
    let rebase = crate::address::Rebase::new(moves);
    for (k, b) in d.buffers.iter().enumerate() {
        if b.shares.is_some() {
            continue;
        }
        let mut data = b.data.clone();
        // Texels hold no addresses (the simulation moves buffers' words only).
        if b.image.is_none() {
            rebase.rewrite(&mut data);
        }
        let (_, _, ptr, _) = dev.buffers[slot[k]];
        std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len());
    }
    let mut push_constants = d.push_constants.clone();
    rebase.rewrite(&mut push_constants);

    let (image_of, view_of) = make_images(&mut dev, i, probe, d, &slot)?;
    // Per binding, its sampler (an index into `dev.samplers`).
    let mut sampler_of = vec![None; d.buffers.len()];
    for (k, b) in d.buffers.iter().enumerate() {
        let Some(desc) = b.sampler else { continue };
        let integer = b.image.is_some_and(|i| i.integer);
        let create = super::image::sampler_info(&desc, integer).map_err(|why| {
            GpuError::Unsupported(format!("set {} binding {}: {why}", b.set, b.binding))
        })?;
        let x = device
            .create_sampler(&create, None)
            .map_err(failed("creating a sampler"))?;
        dev.samplers.push(x);
        sampler_of[k] = Some(dev.samplers.len() - 1);
    }

    // One layout per set up to the highest used (sets between are empty).
    let sets = d
        .buffers
        .iter()
        .filter(|b| !b.undeclared)
        .map(|b| b.set + 1)
        .max()
        .unwrap_or(0);
    let kind = |b: &GpuBuffer| match (b.image, b.sampler) {
        (Some(_), Some(_)) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        (None, Some(_)) => vk::DescriptorType::SAMPLER,
        (Some(img), None) => img.descriptor_type(),
        (None, None) if b.uniform => vk::DescriptorType::UNIFORM_BUFFER,
        (None, None) => vk::DescriptorType::STORAGE_BUFFER,
    };
    // Per (set, binding): its type and descriptor count (a descriptor array's highest element
    // bound, plus one).
    let mut layout: std::collections::BTreeMap<(u32, u32), (vk::DescriptorType, u32)> =
        std::collections::BTreeMap::new();
    for b in d.buffers.iter().filter(|b| !b.undeclared) {
        let e = layout.entry((b.set, b.binding)).or_insert((kind(b), 0));
        if e.0 != kind(b) {
            return Err(GpuError::Unsupported(format!(
                "set {} binding {} holds descriptors of two types",
                b.set, b.binding
            )));
        }
        e.1 = e.1.max(b.element + 1);
    }
    for s in 0..sets {
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = layout
            .range((s, 0)..=(s, u32::MAX))
            .map(|(&(_, binding), &(ty, count))| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(ty)
                    .descriptor_count(count)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let l = device
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .map_err(failed("creating a descriptor set layout"))?;
        dev.set_layouts.push(l);
    }
    let push = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
        .size((d.push_constants.len().div_ceil(4) * 4) as u32)];
    let push_ranges: &[vk::PushConstantRange] = if d.push_constants.is_empty() {
        &[]
    } else {
        &push
    };
    dev.pipeline_layout = device
        .create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&dev.set_layouts)
                .push_constant_ranges(push_ranges),
            None,
        )
        .map_err(failed("creating the pipeline layout"))?;
    dev.module = device
        .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&d.spirv), None)
        .map_err(failed("creating the shader module"))?;

    // Specialization constants, packed one after another.
    let mut spec_data = Vec::new();
    let mut entries = Vec::new();
    for (id, bytes) in &d.spec {
        entries.push(
            vk::SpecializationMapEntry::default()
                .constant_id(*id)
                .offset(spec_data.len() as u32)
                .size(bytes.len()),
        );
        spec_data.extend_from_slice(bytes);
    }
    let spec = vk::SpecializationInfo::default()
        .map_entries(&entries)
        .data(&spec_data);
    let entry = CString::new(d.entry).map_err(|_| {
        GpuError::Unsupported(format!("the entry point name `{}` holds a NUL", d.entry))
    })?;
    let mut stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(dev.module)
        .name(&entry)
        .specialization_info(&spec);
    // The subgroup size: the one asked for where the device lets a pipeline require it (and
    // its own default required otherwise, so it cannot vary), else the device's.
    let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default();
    let mut size = info.subgroup_size;
    if let Some([lo, hi]) = info.subgroup_size_range {
        let want = d.subgroup_size.unwrap_or(info.subgroup_size);
        if want < lo || want > hi {
            return Err(GpuError::Unsupported(format!(
                "{} runs subgroups of {lo} to {hi} invocations, not {want}",
                info.name
            )));
        }
        size = want;
        required.required_subgroup_size = want;
        stage = stage.push_next(&mut required);
        if d.full_subgroups && info.full_subgroups {
            stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
        }
    } else if let Some(want) = d.subgroup_size.filter(|w| *w != info.subgroup_size) {
        return Err(GpuError::Unsupported(format!(
            "{} runs subgroups of {} invocations and cannot be asked for {want}",
            info.name, info.subgroup_size
        )));
    }
    let pipelines = device
        .create_compute_pipelines(
            vk::PipelineCache::null(),
            &[vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(dev.pipeline_layout)],
            None,
        )
        .map_err(|(_, e)| {
            failed("creating the compute pipeline (the driver refused the module)")(e)
        })?;
    dev.pipeline = pipelines.first().copied().unwrap_or_default();

    let count_of = |ty| {
        layout
            .values()
            .filter(|(t, _)| *t == ty)
            .map(|(_, n)| *n as usize)
            .sum::<usize>()
    };
    let sizes: Vec<vk::DescriptorPoolSize> = [
        vk::DescriptorType::STORAGE_BUFFER,
        vk::DescriptorType::UNIFORM_BUFFER,
        vk::DescriptorType::STORAGE_IMAGE,
        vk::DescriptorType::SAMPLED_IMAGE,
        vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        vk::DescriptorType::SAMPLER,
        vk::DescriptorType::STORAGE_TEXEL_BUFFER,
        vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
    ]
    .into_iter()
    .map(|ty| (ty, count_of(ty)))
    .filter(|(_, n)| *n > 0)
    .map(|(ty, n)| vk::DescriptorPoolSize {
        ty,
        descriptor_count: n as u32,
    })
    .collect();
    dev.pool = device
        .create_descriptor_pool(
            &vk::DescriptorPoolCreateInfo::default()
                .max_sets(sets.max(1))
                .pool_sizes(&sizes),
            None,
        )
        .map_err(failed("creating the descriptor pool"))?;
    let sets_made = if sets == 0 {
        Vec::new()
    } else {
        device
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(dev.pool)
                    .set_layouts(&dev.set_layouts),
            )
            .map_err(failed("allocating descriptor sets"))?
    };
    let infos: Vec<[vk::DescriptorBufferInfo; 1]> = slot
        .iter()
        .map(|&k| {
            [vk::DescriptorBufferInfo {
                buffer: dev.buffers[k].0,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }]
        })
        .collect();
    let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = image_of
        .iter()
        .zip(&sampler_of)
        .map(|(k, x)| {
            [vk::DescriptorImageInfo {
                sampler: x.map_or(vk::Sampler::null(), |x| dev.samplers[x]),
                image_view: k.map_or(vk::ImageView::null(), |k| dev.images[k].2),
                image_layout: vk::ImageLayout::GENERAL,
            }]
        })
        .collect();
    let views: Vec<[vk::BufferView; 1]> = view_of
        .iter()
        .map(|k| [k.map_or(vk::BufferView::null(), |k| dev.views[k])])
        .collect();
    let writes: Vec<vk::WriteDescriptorSet> = d
        .buffers
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.undeclared)
        .map(|(k, b)| {
            let w = vk::WriteDescriptorSet::default()
                .dst_set(sets_made[b.set as usize])
                .dst_binding(b.binding)
                .dst_array_element(b.element)
                .descriptor_type(kind(b));
            if image_of[k].is_some() || sampler_of[k].is_some() {
                w.image_info(&image_infos[k])
            } else if view_of[k].is_some() {
                w.texel_buffer_view(&views[k])
            } else {
                w.buffer_info(&infos[k])
            }
        })
        .collect();
    device.update_descriptor_sets(&writes, &[]);

    dev.commands = device
        .create_command_pool(
            &vk::CommandPoolCreateInfo::default().queue_family_index(family),
            None,
        )
        .map_err(failed("creating the command pool"))?;
    let cb = device
        .allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(dev.commands)
                .command_buffer_count(1),
        )
        .map_err(failed("allocating a command buffer"))?[0];
    device
        .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
        .map_err(failed("recording the dispatch"))?;
    device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, dev.pipeline);
    if !sets_made.is_empty() {
        device.cmd_bind_descriptor_sets(
            cb,
            vk::PipelineBindPoint::COMPUTE,
            dev.pipeline_layout,
            0,
            &sets_made,
            &[],
        );
    }
    if !push_constants.is_empty() {
        let mut bytes = push_constants;
        bytes.resize(bytes.len().div_ceil(4) * 4, 0);
        device.cmd_push_constants(
            cb,
            dev.pipeline_layout,
            vk::ShaderStageFlags::COMPUTE,
            0,
            &bytes,
        );
    }
    // Images: filled from their bytes before the dispatch, read back into them after.
    let images: Vec<(GpuImage, vk::Image, vk::Buffer)> = d
        .buffers
        .iter()
        .enumerate()
        .filter_map(|(k, b)| Some((b.image?, dev.images[image_of[k]?].0, dev.buffers[slot[k]].0)))
        .collect();
    use vk::{AccessFlags as A, ImageLayout as L, PipelineStageFlags as S};
    let stage = |from: S, to: S, barriers: &[vk::ImageMemoryBarrier]| {
        device.cmd_pipeline_barrier(
            cb,
            from,
            to,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            barriers,
        );
    };
    let each = |(from, to): (L, L), access: (A, A)| -> Vec<vk::ImageMemoryBarrier> {
        images
            .iter()
            .map(|(g, im, _)| g.barrier(*im, (from, to), access))
            .collect()
    };
    if !images.is_empty() {
        let into = L::TRANSFER_DST_OPTIMAL;
        stage(
            S::TOP_OF_PIPE,
            S::TRANSFER,
            &each((L::UNDEFINED, into), (A::empty(), A::TRANSFER_WRITE)),
        );
        for (g, im, buf) in &images {
            device.cmd_copy_buffer_to_image(cb, *buf, *im, into, &[g.copy()]);
        }
        let used = (A::TRANSFER_WRITE, A::SHADER_READ | A::SHADER_WRITE);
        stage(
            S::TRANSFER,
            S::COMPUTE_SHADER,
            &each((into, L::GENERAL), used),
        );
    }
    let [x, y, z] = d.workgroups;
    device.cmd_dispatch(cb, x, y, z);
    if !images.is_empty() {
        let out = L::TRANSFER_SRC_OPTIMAL;
        let read = (A::SHADER_WRITE, A::TRANSFER_READ);
        stage(
            S::COMPUTE_SHADER,
            S::TRANSFER,
            &each((L::GENERAL, out), read),
        );
        for (g, im, buf) in &images {
            device.cmd_copy_image_to_buffer(cb, *im, out, *buf, &[g.copy()]);
        }
    }
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(A::SHADER_WRITE | A::TRANSFER_WRITE)
        .dst_access_mask(A::HOST_READ);
    device.cmd_pipeline_barrier(
        cb,
        S::COMPUTE_SHADER | S::TRANSFER,
        S::HOST,
        vk::DependencyFlags::empty(),
        &[barrier],
        &[],
        &[],
    );
    device
        .end_command_buffer(cb)
        .map_err(failed("recording the dispatch"))?;
    dev.fence = device
        .create_fence(&vk::FenceCreateInfo::default(), None)
        .map_err(failed("creating a fence"))?;
    let queue = device.get_device_queue(family, 0);
    let cbs = [cb];
    device
        .queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            dev.fence,
        )
        .map_err(failed("submitting the dispatch"))?;
    let nanos = u64::try_from(d.timeout.as_nanos()).unwrap_or(u64::MAX);
    match device.wait_for_fences(&[dev.fence], true, nanos) {
        Ok(()) => {}
        Err(vk::Result::TIMEOUT) => {
            // The device is still running it: destroying what it uses would be undefined, so
            // everything is left to the process's end.
            std::mem::forget(dev);
            return Err(GpuError::Timeout(d.timeout));
        }
        Err(e) => return Err(failed("waiting for the dispatch (the device was lost?)")(e)),
    }
    let buffers = slot
        .iter()
        .map(|&k| {
            let (_, _, ptr, len) = dev.buffers[k];
            std::slice::from_raw_parts(ptr, len).to_vec()
        })
        .collect();
    Ok(GpuRun {
        device: info,
        subgroup_size: size,
        buffers,
        without_maximal_reconvergence: d.without_maximal_reconvergence,
        addresses,
        notes: d.notes.clone(),
    })
}

/// Images and texel buffer views for the bindings that hold them (their texels are in their
/// buffers, `slot`): per binding, its index in `dev.images` or in `dev.views`.
#[allow(clippy::type_complexity)]
unsafe fn make_images(
    dev: &mut Device<'_>,
    i: &ash::Instance,
    probe: &Probe,
    d: &Dispatch<'_>,
    slot: &[usize],
) -> Result<(Vec<Option<usize>>, Vec<Option<usize>>), GpuError> {
    let device = dev.device.clone();
    let memory = i.get_physical_device_memory_properties(probe.pdev);
    let mut image_of = vec![None; d.buffers.len()];
    let mut view_of = vec![None; d.buffers.len()];
    for (k, b) in d.buffers.iter().enumerate() {
        let Some(img) = b.image else { continue };
        let name = format!("set {} binding {}", b.set, b.binding);
        img.check(
            &name,
            i.get_physical_device_format_properties(probe.pdev, img.vk_format()),
        )?;
        let buffer = dev.buffers[slot[k]].0;
        if img.texel_buffer() {
            let v = device
                .create_buffer_view(
                    &vk::BufferViewCreateInfo::default()
                        .buffer(buffer)
                        .format(img.vk_format())
                        .range(b.data.len() as u64),
                    None,
                )
                .map_err(failed("creating a texel buffer view"))?;
            dev.views.push(v);
            view_of[k] = Some(dev.views.len() - 1);
            continue;
        }
        let image = device
            .create_image(&img.create_info(), None)
            .map_err(failed("creating an image"))?;
        let req = device.get_image_memory_requirements(image);
        let fits = |k: &u32| req.memory_type_bits >> k & 1 == 1;
        let local = |k: &u32| {
            memory.memory_types[*k as usize]
                .property_flags
                .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
        };
        let ty = (0..memory.memory_type_count)
            .find(|k| fits(k) && local(k))
            .or_else(|| (0..memory.memory_type_count).find(fits));
        let mem = ty.map(|ty| {
            device.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty),
                None,
            )
        });
        let mem = match mem {
            Some(Ok(m)) => m,
            other => {
                device.destroy_image(image, None);
                return Err(match other {
                    Some(Err(e)) => failed("allocating image memory")(e),
                    _ => {
                        GpuError::Unsupported(format!("no device memory fits the image at {name}"))
                    }
                });
            }
        };
        dev.images.push((image, mem, vk::ImageView::null()));
        device
            .bind_image_memory(image, mem, 0)
            .map_err(failed("binding image memory"))?;
        let view = device
            .create_image_view(&img.view_info(image), None)
            .map_err(failed("creating an image view"))?;
        if let Some(last) = dev.images.last_mut() {
            last.2 = view;
        }
        image_of[k] = Some(dev.images.len() - 1);
    }
    Ok((image_of, view_of))
}

/// Which of the device buffers each of `buffers` binds: its own (they are made in order, one
/// for each that shares nothing), or that of the buffer it shares.
fn buffer_slots(buffers: &[GpuBuffer]) -> Result<Vec<usize>, GpuError> {
    let mut slot = Vec::with_capacity(buffers.len());
    let mut own = 0;
    for (k, b) in buffers.iter().enumerate() {
        match b.shares {
            None => {
                slot.push(own);
                own += 1;
            }
            Some(j) if j < k && buffers[j].shares.is_none() => slot.push(slot[j]),
            Some(j) => {
                return Err(GpuError::Unsupported(format!(
                "set {} binding {} shares buffer {j}, which is not an earlier buffer of its own",
                b.set, b.binding
            )))
            }
        }
    }
    Ok(slot)
}
