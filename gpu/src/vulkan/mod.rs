//! The machine's Vulkan devices: what each offers ([`devices`]), and one compute dispatch run on
//! one of them ([`run`]), every buffer host-visible so its words come back as they were left.

use crate::device::{DeviceInfo, GpuError};
use ash::vk;
use std::ffi::{c_void, CStr};

mod dispatch;
mod image;
pub use dispatch::run;

fn failed(what: &'static str) -> impl Fn(vk::Result) -> GpuError {
    move |r| GpuError::Vulkan {
        what,
        result: format!("{r}"),
    }
}

/// An instance, destroyed when dropped.
struct Instance {
    _entry: ash::Entry,
    instance: ash::Instance,
}

impl Instance {
    fn new() -> Result<Self, GpuError> {
        // SAFETY: loading the system's Vulkan loader runs its initialisers, as any Vulkan
        // application does.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| GpuError::NoLoader(e.to_string()))?;
        let app = vk::ApplicationInfo::default()
            .application_name(c"lanescope")
            .api_version(vk::API_VERSION_1_3);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: a valid create info with no extensions or layers.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(|e| match e {
            // The loader found no driver at all.
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => GpuError::NoDevice,
            e => failed("creating a Vulkan instance")(e),
        })?;
        Ok(Self {
            _entry: entry,
            instance,
        })
    }

    fn physical(&self) -> Result<Vec<vk::PhysicalDevice>, GpuError> {
        // SAFETY: the instance is live.
        unsafe { self.instance.enumerate_physical_devices() }
            .map_err(failed("listing Vulkan devices"))
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: every device made from it was destroyed first (`Device` borrows it).
        unsafe { self.instance.destroy_instance(None) };
    }
}

/// The feature structures a device is queried with and then created with (every feature it
/// offers enabled), linked on the heap so their chain stays valid.
#[derive(Default)]
struct Features {
    f2: vk::PhysicalDeviceFeatures2<'static>,
    f11: vk::PhysicalDeviceVulkan11Features<'static>,
    f12: vk::PhysicalDeviceVulkan12Features<'static>,
    f13: vk::PhysicalDeviceVulkan13Features<'static>,
    rotate: vk::PhysicalDeviceShaderSubgroupRotateFeaturesKHR<'static>,
    reconverge: vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR<'static>,
    coop: vk::PhysicalDeviceCooperativeMatrixFeaturesKHR<'static>,
}

/// Device extensions a comparison may need, enabled where offered.
const WANTED: [&str; 4] = [
    "VK_KHR_shader_subgroup_rotate",
    "VK_KHR_shader_maximal_reconvergence",
    "VK_KHR_cooperative_matrix",
    "VK_KHR_shader_non_semantic_info",
];

/// A physical device's properties, extensions and features.
struct Probe {
    pdev: vk::PhysicalDevice,
    info: DeviceInfo,
    extensions: Vec<String>,
    features: Box<Features>,
}

fn probe(inst: &Instance, pdev: vk::PhysicalDevice, index: usize) -> Probe {
    let i = &inst.instance;
    // SAFETY: `pdev` came from this instance; every structure chained is valid for the
    // device's version (1.1 structures only from 1.1, and so on) or its extensions.
    unsafe {
        let props = i.get_physical_device_properties(pdev);
        let api = props.api_version;
        let at_least =
            |minor: u32| vk::api_version_major(api) > 1 || vk::api_version_minor(api) >= minor;
        let extensions: Vec<String> = i
            .enumerate_device_extension_properties(pdev)
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e.extension_name_as_c_str().ok())
            .map(|e| e.to_string_lossy().into_owned())
            .collect();
        let has = |n: &str| extensions.iter().any(|e| e == n);

        let mut sg = vk::PhysicalDeviceSubgroupProperties::default();
        let mut size = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default();
        if at_least(1) {
            p2 = p2.push_next(&mut sg);
        }
        if at_least(3) || has("VK_EXT_subgroup_size_control") {
            p2 = p2.push_next(&mut size);
        }
        if at_least(2) || has("VK_KHR_driver_properties") {
            p2 = p2.push_next(&mut driver);
        }
        if at_least(1) {
            i.get_physical_device_properties2(pdev, &mut p2);
        }

        let mut f = Box::<Features>::default();
        let mut next: *mut c_void = std::ptr::null_mut();
        macro_rules! link {
            ($field:ident) => {{
                f.$field.p_next = next;
                next = std::ptr::addr_of_mut!(f.$field).cast();
            }};
        }
        if at_least(2) {
            link!(f11);
            link!(f12);
        }
        if at_least(3) {
            link!(f13);
        }
        if has(WANTED[0]) {
            link!(rotate);
        }
        if has(WANTED[1]) {
            link!(reconverge);
        }
        if has(WANTED[2]) {
            link!(coop);
        }
        f.f2.p_next = next;
        if at_least(1) {
            i.get_physical_device_features2(pdev, &mut f.f2);
        }

        let flags = sg.supported_operations;
        let ops = [
            (vk::SubgroupFeatureFlags::BASIC, "basic"),
            (vk::SubgroupFeatureFlags::VOTE, "vote"),
            (vk::SubgroupFeatureFlags::ARITHMETIC, "arithmetic"),
            (vk::SubgroupFeatureFlags::BALLOT, "ballot"),
            (vk::SubgroupFeatureFlags::SHUFFLE, "shuffle"),
            (
                vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE,
                "shuffle_relative",
            ),
            (vk::SubgroupFeatureFlags::CLUSTERED, "clustered"),
            (vk::SubgroupFeatureFlags::QUAD, "quad"),
            (vk::SubgroupFeatureFlags::ROTATE_KHR, "rotate"),
        ];
        let compute = sg.supported_stages.contains(vk::ShaderStageFlags::COMPUTE);
        let text = |r: Result<&CStr, _>| {
            r.map(|c: &CStr| c.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let driver_text = format!(
            "{} {}",
            text(driver.driver_name_as_c_str()),
            text(driver.driver_info_as_c_str())
        );
        let info = DeviceInfo {
            index,
            name: text(props.device_name_as_c_str()),
            kind: match props.device_type {
                vk::PhysicalDeviceType::CPU => "cpu",
                vk::PhysicalDeviceType::DISCRETE_GPU => "discrete GPU",
                vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated GPU",
                vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual GPU",
                _ => "other",
            },
            driver: driver_text.trim().to_string(),
            api_version: format!(
                "{}.{}.{}",
                vk::api_version_major(api),
                vk::api_version_minor(api),
                vk::api_version_patch(api)
            ),
            subgroup_size: sg.subgroup_size,
            subgroup_size_range: (f.f13.subgroup_size_control != 0
                && size
                    .required_subgroup_size_stages
                    .contains(vk::ShaderStageFlags::COMPUTE))
            .then_some([size.min_subgroup_size, size.max_subgroup_size]),
            full_subgroups: f.f13.compute_full_subgroups != 0,
            sub_texel_bits: props.limits.sub_texel_precision_bits,
            subgroup_operations: ops
                .iter()
                .filter(|(b, _)| compute && flags.contains(*b))
                .map(|(_, n)| *n)
                .collect(),
            maximal_reconvergence: f.reconverge.shader_maximal_reconvergence != 0,
            subgroup_rotate: f.rotate.shader_subgroup_rotate != 0,
            cooperative_matrix: f.coop.cooperative_matrix != 0,
            integer_dot_product: f.f13.shader_integer_dot_product != 0,
            storage_8bit: f.f12.storage_buffer8_bit_access != 0,
            storage_16bit: f.f11.storage_buffer16_bit_access != 0,
        };
        Probe {
            pdev,
            info,
            extensions,
            features: f,
        }
    }
}

/// The machine's Vulkan devices, in the loader's order.
pub fn devices() -> Result<Vec<DeviceInfo>, GpuError> {
    let inst = Instance::new()?;
    let list = inst.physical()?;
    if list.is_empty() {
        return Err(GpuError::NoDevice);
    }
    Ok(list
        .into_iter()
        .enumerate()
        .map(|(k, p)| probe(&inst, p, k).info)
        .collect())
}

/// Device `index` of `list` (what `devices` gave), or the error naming how many there are.
pub fn pick(list: &[DeviceInfo], index: usize) -> Result<DeviceInfo, GpuError> {
    list.get(index).cloned().ok_or(GpuError::NoSuchDevice {
        index,
        count: list.len(),
    })
}
