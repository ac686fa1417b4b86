//! `gpu-run SHADER.spv [--entry NAME] [--workgroups X,Y,Z] [--buffer BINDING=FILE]...
//!          [--out BINDING=FILE]...`
//!
//! Runs a compute shader once on the first Vulkan device, every buffer a storage buffer at
//! descriptor set 0 initialised from its file, and writes the final contents of the `--out`
//! bindings. Every device feature the driver offers is enabled (16/64-bit types, integer dot
//! products, subgroup rotate, maximal reconvergence). The point: compare `lanescope run` with
//! hardware on the same inputs.

use ash::vk;
use std::ffi::CString;

fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("gpu-run: {msg}");
    std::process::exit(1);
}

struct Args {
    shader: String,
    entry: String,
    workgroups: [u32; 3],
    buffers: Vec<(u32, String)>,
    outs: Vec<(u32, String)>,
}

fn parse() -> Args {
    let mut a = Args { shader: String::new(), entry: "main".into(), workgroups: [1, 1, 1], buffers: vec![], outs: vec![] };
    let mut it = std::env::args().skip(1);
    let split = |v: String| -> (u32, String) {
        let (b, f) = v.split_once('=').unwrap_or_else(|| fail(format!("want BINDING=FILE, got {v}")));
        let b = b.rsplit(':').next().unwrap_or(b);
        (b.parse().unwrap_or_else(|_| fail(format!("bad binding {b}"))), f.to_string())
    };
    while let Some(x) = it.next() {
        match x.as_str() {
            "--entry" => a.entry = it.next().unwrap_or_else(|| fail("--entry needs a value")),
            "--workgroups" => {
                let v = it.next().unwrap_or_else(|| fail("--workgroups needs a value"));
                for (k, p) in v.split(',').enumerate().take(3) {
                    a.workgroups[k] = p.parse().unwrap_or_else(|_| fail("bad --workgroups"));
                }
            }
            "--buffer" => a.buffers.push(split(it.next().unwrap_or_else(|| fail("--buffer needs a value")))),
            "--out" => a.outs.push(split(it.next().unwrap_or_else(|| fail("--out needs a value")))),
            s => a.shader = s.to_string(),
        }
    }
    a
}

fn main() {
    let args = parse();
    let code = std::fs::read(&args.shader).unwrap_or_else(|e| fail(format!("{}: {e}", args.shader)));
    let words: Vec<u32> = code.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // SAFETY: plain Vulkan calls with valid, locally owned create infos; every handle is used
    // only while its parent lives, and the process exits right after.
    unsafe { run(&args, &words) }
}

unsafe fn run(args: &Args, code: &[u32]) {
    let entry = ash::Entry::load().unwrap_or_else(|e| fail(format!("no Vulkan loader: {e}")));
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let instance = entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None).unwrap_or_else(|e| fail(format!("instance: {e}")));
    let pdev = *instance.enumerate_physical_devices().unwrap_or_else(|e| fail(e)).first().unwrap_or_else(|| fail("no Vulkan device"));
    let props = instance.get_physical_device_properties(pdev);
    eprintln!("gpu-run: device {:?}", props.device_name_as_c_str().unwrap_or_default());
    let qf = instance
        .get_physical_device_queue_family_properties(pdev)
        .iter()
        .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .unwrap_or_else(|| fail("no compute queue")) as u32;
    // Enable everything the driver offers.
    let mut rotate = vk::PhysicalDeviceShaderSubgroupRotateFeaturesKHR::default();
    let mut maxrec = vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default();
    let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut rotate).push_next(&mut maxrec).push_next(&mut f11).push_next(&mut f12).push_next(&mut f13);
    instance.get_physical_device_features2(pdev, &mut f2);
    let available: Vec<CString> = instance
        .enumerate_device_extension_properties(pdev)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| e.extension_name_as_c_str().ok().map(CString::from))
        .collect();
    let wanted = ["VK_KHR_shader_subgroup_rotate", "VK_KHR_shader_maximal_reconvergence"];
    let exts: Vec<CString> = wanted.iter().map(|w| CString::new(*w).unwrap_or_default()).filter(|w| available.contains(w)).collect();
    let ext_ptrs: Vec<*const std::ffi::c_char> = exts.iter().map(|e| e.as_ptr()).collect();
    let prio = [1.0f32];
    let qinfo = [vk::DeviceQueueCreateInfo::default().queue_family_index(qf).queue_priorities(&prio)];
    let dinfo = vk::DeviceCreateInfo::default().queue_create_infos(&qinfo).enabled_extension_names(&ext_ptrs).push_next(&mut f2);
    let device = instance.create_device(pdev, &dinfo, None).unwrap_or_else(|e| fail(format!("device: {e}")));
    let queue = device.get_device_queue(qf, 0);
    let mem_props = instance.get_physical_device_memory_properties(pdev);

    // Buffers.
    let mut bufs = Vec::new();
    for (binding, file) in &args.buffers {
        let data = std::fs::read(file).unwrap_or_else(|e| fail(format!("{file}: {e}")));
        let size = data.len().max(4) as u64;
        let buf = device
            .create_buffer(&vk::BufferCreateInfo::default().size(size).usage(vk::BufferUsageFlags::STORAGE_BUFFER), None)
            .unwrap_or_else(|e| fail(e));
        let req = device.get_buffer_memory_requirements(buf);
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let ty = (0..mem_props.memory_type_count)
            .find(|i| req.memory_type_bits >> i & 1 == 1 && mem_props.memory_types[*i as usize].property_flags.contains(want))
            .unwrap_or_else(|| fail("no host-visible memory"));
        let mem = device.allocate_memory(&vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(ty), None).unwrap_or_else(|e| fail(e));
        device.bind_buffer_memory(buf, mem, 0).unwrap_or_else(|e| fail(e));
        let ptr = device.map_memory(mem, 0, size, vk::MemoryMapFlags::empty()).unwrap_or_else(|e| fail(e)) as *mut u8;
        std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len());
        bufs.push((*binding, buf, ptr, data.len()));
    }

    // Pipeline.
    let bindings: Vec<vk::DescriptorSetLayoutBinding> = bufs
        .iter()
        .map(|(b, ..)| vk::DescriptorSetLayoutBinding::default().binding(*b).descriptor_type(vk::DescriptorType::STORAGE_BUFFER).descriptor_count(1).stage_flags(vk::ShaderStageFlags::COMPUTE))
        .collect();
    let dsl = device.create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings), None).unwrap_or_else(|e| fail(e));
    let layouts = [dsl];
    let pl = device.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts), None).unwrap_or_else(|e| fail(e));
    let module = device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None).unwrap_or_else(|e| fail(format!("shader module: {e}")));
    let name = CString::new(args.entry.clone()).unwrap_or_default();
    let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(module).name(&name);
    let pipe = device
        .create_compute_pipelines(vk::PipelineCache::null(), &[vk::ComputePipelineCreateInfo::default().stage(stage).layout(pl)], None)
        .unwrap_or_else(|e| fail(format!("pipeline: {:?}", e.1)))[0];
    let sizes = [vk::DescriptorPoolSize { ty: vk::DescriptorType::STORAGE_BUFFER, descriptor_count: bufs.len().max(1) as u32 }];
    let pool = device.create_descriptor_pool(&vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes), None).unwrap_or_else(|e| fail(e));
    let set = device.allocate_descriptor_sets(&vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts)).unwrap_or_else(|e| fail(e))[0];
    let infos: Vec<[vk::DescriptorBufferInfo; 1]> = bufs.iter().map(|(_, b, _, _)| [vk::DescriptorBufferInfo { buffer: *b, offset: 0, range: vk::WHOLE_SIZE }]).collect();
    let writes: Vec<vk::WriteDescriptorSet> = bufs
        .iter()
        .zip(&infos)
        .map(|((bn, ..), info)| vk::WriteDescriptorSet::default().dst_set(set).dst_binding(*bn).descriptor_type(vk::DescriptorType::STORAGE_BUFFER).buffer_info(info))
        .collect();
    device.update_descriptor_sets(&writes, &[]);

    // Dispatch.
    let cpool = device.create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(qf), None).unwrap_or_else(|e| fail(e));
    let cb = device.allocate_command_buffers(&vk::CommandBufferAllocateInfo::default().command_pool(cpool).command_buffer_count(1)).unwrap_or_else(|e| fail(e))[0];
    device.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default()).unwrap_or_else(|e| fail(e));
    device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipe);
    device.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, pl, 0, &[set], &[]);
    let [x, y, z] = args.workgroups;
    device.cmd_dispatch(cb, x, y, z);
    let barrier = vk::MemoryBarrier::default().src_access_mask(vk::AccessFlags::SHADER_WRITE).dst_access_mask(vk::AccessFlags::HOST_READ);
    device.cmd_pipeline_barrier(cb, vk::PipelineStageFlags::COMPUTE_SHADER, vk::PipelineStageFlags::HOST, vk::DependencyFlags::empty(), &[barrier], &[], &[]);
    device.end_command_buffer(cb).unwrap_or_else(|e| fail(e));
    let fence = device.create_fence(&vk::FenceCreateInfo::default(), None).unwrap_or_else(|e| fail(e));
    let cbs = [cb];
    device.queue_submit(queue, &[vk::SubmitInfo::default().command_buffers(&cbs)], fence).unwrap_or_else(|e| fail(e));
    device.wait_for_fences(&[fence], true, 60_000_000_000).unwrap_or_else(|e| fail(format!("wait: {e}")));

    for (binding, file) in &args.outs {
        let Some((_, _, ptr, len)) = bufs.iter().find(|b| b.0 == *binding) else { fail(format!("--out {binding}: not bound")) };
        let out = std::slice::from_raw_parts(*ptr, *len);
        std::fs::write(file, out).unwrap_or_else(|e| fail(format!("{file}: {e}")));
    }
}
