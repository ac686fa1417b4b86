//! What Lanescope offers as a "device": the `DEVICE_FEATURE`, `DEVICE_EXTENSION`,
//! `INSTANCE_EXTENSION` and `DEVICE_PROPERTY` names a script may require. A script that
//! requires anything else is skipped, not failed.
//!
//! | kind | supported | not (yet) |
//! |---|---|---|
//! | features | `shaderInt16`, `shaderInt64`, `shaderFloat64`; `shaderStorageImageMultisample`, `shaderStorageImageExtendedFormats`, `shaderStorageImage{Read,Write}WithoutFormat`; `Float16Int8Features.*`; `Storage8BitFeatures.*`; `Storage16BitFeatures.{storageBuffer16BitAccess, uniformAndStorageBuffer16BitAccess, storagePushConstant16}`; `VulkanMemoryModelFeatures.*`; `CooperativeMatrixFeaturesKHR.cooperativeMatrix`; `ZeroInitializeWorkgroupMemoryFeatures.*`; `SubgroupSizeControl.*`; `SubgroupSupportedOperations.*`; `SubgroupSupportedStages.compute`; `ShaderIntegerDotProductFeatures.*`; `ShaderSubgroupRotateFeatures*`; `ShaderMaximalReconvergenceFeatures*`; `WorkgroupMemoryExplicitLayoutFeatures*`; `VariablePointerFeatures.*`; `BufferDeviceAddressFeatures.bufferDeviceAddress`; `ShaderLongVectorFeaturesEXT.*` | other buffer-address features (capture replay, multi-device), other image features (gather, descriptor arrays), graphics and ray-tracing features, `robustBufferAccess`, `storageInputOutput16` |
//! | device extensions | see [`DEVICE_EXTENSIONS`] | anything graphics or ray tracing |
//! | instance extensions | `VK_KHR_get_physical_device_properties2` | others |
//! | properties | `FloatControlsProperties.*` (denormals are preserved or flushed as the shader asks; rounding RTE and RTZ) | others |

use super::script::{Requirement, RequirementKind};

/// Device extensions whose SPIR-V Lanescope simulates (or that change nothing a compute
/// shader computes).
pub const DEVICE_EXTENSIONS: &[&str] = &[
    "VK_KHR_shader_subgroup_rotate",
    "VK_KHR_cooperative_matrix",
    "VK_KHR_shader_integer_dot_product",
    "VK_KHR_shader_maximal_reconvergence",
    "VK_KHR_shader_subgroup_uniform_control_flow",
    "VK_KHR_workgroup_memory_explicit_layout",
    "VK_KHR_16bit_storage",
    "VK_KHR_8bit_storage",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_vulkan_memory_model",
    "VK_EXT_subgroup_size_control",
    "VK_KHR_spirv_1_4",
    "VK_KHR_shader_float_controls",
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_zero_initialize_workgroup_memory",
    "VK_KHR_shader_subgroup_extended_types",
    "VK_KHR_shader_atomic_int64",
    "VK_EXT_shader_atomic_float",
    "VK_KHR_shader_non_semantic_info",
    "VK_KHR_uniform_buffer_standard_layout",
    "VK_EXT_scalar_block_layout",
    "VK_KHR_shader_bfloat16",
    "VK_KHR_maintenance1",
    "VK_KHR_maintenance2",
    "VK_KHR_maintenance3",
    "VK_KHR_maintenance4",
    "VK_KHR_get_memory_requirements2",
    "VK_KHR_dedicated_allocation",
    "VK_KHR_variable_pointers",
    "VK_KHR_buffer_device_address",
    "VK_EXT_buffer_device_address",
    "VK_EXT_descriptor_indexing",
    "VK_EXT_shader_long_vector",
];

const INSTANCE_EXTENSIONS: &[&str] = &["VK_KHR_get_physical_device_properties2"];

/// `VkPhysicalDeviceFeatures` members a compute shader can use and Lanescope simulates.
const CORE_FEATURES: &[&str] = &[
    "shaderInt16",
    "shaderInt64",
    "shaderFloat64",
    "shaderStorageImageMultisample",
    "shaderStorageImageExtendedFormats",
    "shaderStorageImageReadWithoutFormat",
    "shaderStorageImageWriteWithoutFormat",
];

/// Features of the extension structs, by `Struct.member` (a `*` member takes any).
const FEATURES: &[&str] = &[
    "Float16Int8Features.*",
    "Storage8BitFeatures.*",
    "Storage16BitFeatures.storageBuffer16BitAccess",
    "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
    "Storage16BitFeatures.storagePushConstant16",
    "VulkanMemoryModelFeatures.*",
    "CooperativeMatrixFeaturesKHR.cooperativeMatrix",
    "ZeroInitializeWorkgroupMemoryFeatures.*",
    "SubgroupSizeControl.*",
    "SubgroupSupportedOperations.*",
    "SubgroupSupportedStages.compute",
    "ShaderIntegerDotProductFeatures.*",
    "ShaderSubgroupRotateFeatures.*",
    "ShaderSubgroupRotateFeaturesKHR.*",
    "ShaderMaximalReconvergenceFeatures.*",
    "ShaderMaximalReconvergenceFeaturesKHR.*",
    "WorkgroupMemoryExplicitLayoutFeatures.*",
    "WorkgroupMemoryExplicitLayoutFeaturesKHR.*",
    "ShaderSubgroupUniformControlFlowFeatures.*",
    "ShaderSubgroupUniformControlFlowFeaturesKHR.*",
    "ShaderAtomicInt64Features.*",
    "ShaderFloatControls.*",
    "VariablePointerFeatures.*",
    "VariablePointersFeatures.*",
    "BufferDeviceAddressFeatures.bufferDeviceAddress",
    "ShaderLongVectorFeaturesEXT.*",
];

const NOT_YET_FEATURES: &[(&str, &str)] = &[
    (
        "RayTracingPipelineFeaturesKHR.",
        "ray tracing is not simulated",
    ),
    (
        "AccelerationStructureFeaturesKHR.",
        "ray tracing is not simulated",
    ),
];

const PROPERTIES: &[&str] = &["FloatControlsProperties.*"];

fn matches_pattern(patterns: &[&str], name: &str) -> bool {
    patterns.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => *p == name,
    })
}

/// `Ok` when Lanescope offers what `r` asks for, else why not.
pub fn check(r: &Requirement) -> Result<(), String> {
    let name = r.name.as_str();
    match r.kind {
        RequirementKind::DeviceFeature => {
            let plain = name.strip_prefix("Features.").unwrap_or(name);
            if CORE_FEATURES.contains(&plain) || matches_pattern(FEATURES, name) {
                return Ok(());
            }
            if let Some((_, why)) = NOT_YET_FEATURES.iter().find(|(p, _)| name.starts_with(p)) {
                return Err(format!("device feature {name} ({why})"));
            }
            if !plain.contains('.') {
                return Err(format!(
                    "device feature {name} (not one a compute shader in Lanescope can use)"
                ));
            }
            Err(format!("device feature {name} (not known to Lanescope)"))
        }
        RequirementKind::DeviceExtension | RequirementKind::InstanceExtension => {
            let list = if r.kind == RequirementKind::DeviceExtension {
                DEVICE_EXTENSIONS
            } else {
                INSTANCE_EXTENSIONS
            };
            if list.contains(&name) {
                return Ok(());
            }
            // CTS accepts a device extension named as an instance one and the reverse.
            if DEVICE_EXTENSIONS.contains(&name) || INSTANCE_EXTENSIONS.contains(&name) {
                return Ok(());
            }
            Err(format!("extension {name} (not simulated)"))
        }
        RequirementKind::DeviceProperty => {
            if matches_pattern(PROPERTIES, name) {
                Ok(())
            } else {
                Err(format!("device property {name} (not known to Lanescope)"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(kind: RequirementKind, name: &str) -> Requirement {
        Requirement {
            line: 1,
            kind,
            name: name.into(),
        }
    }

    #[test]
    fn the_table_answers() {
        use RequirementKind::*;
        assert!(check(&req(DeviceFeature, "shaderInt64")).is_ok());
        assert!(check(&req(DeviceFeature, "Features.shaderFloat64")).is_ok());
        assert!(check(&req(
            DeviceFeature,
            "SubgroupSizeControl.computeFullSubgroups"
        ))
        .is_ok());
        assert!(check(&req(
            DeviceFeature,
            "Storage16BitFeatures.storageInputOutput16"
        ))
        .is_err());
        assert!(check(&req(
            DeviceFeature,
            "VariablePointerFeatures.variablePointers",
        ))
        .is_ok());
        assert!(check(&req(
            DeviceFeature,
            "BufferDeviceAddressFeatures.bufferDeviceAddress",
        ))
        .is_ok());
        let e = check(&req(
            DeviceFeature,
            "RayTracingPipelineFeaturesKHR.rayTracingPipeline",
        ))
        .unwrap_err();
        assert!(e.contains("ray tracing is not simulated"), "{e}");
        assert!(check(&req(DeviceFeature, "shaderStorageImageMultisample")).is_ok());
        assert!(check(&req(DeviceFeature, "shaderImageGatherExtended")).is_err());
        assert!(check(&req(DeviceExtension, "VK_KHR_shader_subgroup_rotate")).is_ok());
        assert!(check(&req(DeviceExtension, "VK_KHR_variable_pointers")).is_ok());
        assert!(check(&req(DeviceExtension, "VK_KHR_buffer_device_address")).is_ok());
        assert!(check(&req(DeviceExtension, "VK_KHR_ray_tracing_pipeline")).is_err());
        assert!(check(&req(
            InstanceExtension,
            "VK_KHR_get_physical_device_properties2"
        ))
        .is_ok());
        assert!(check(&req(
            DeviceProperty,
            "FloatControlsProperties.shaderDenormPreserveFloat16"
        ))
        .is_ok());
    }
}
