//! What a module declares that decides whether a device can run it (its extensions and
//! subgroup operation classes), and the module without maximal reconvergence for a device that
//! lacks it.

use crate::device::{DeviceInfo, GpuError};

/// The SPIR-V extensions a module declares (`OpExtension`).
fn module_extensions(words: &[u32]) -> Vec<String> {
    crate::words::instructions(words)
        // Capabilities and extensions come first.
        .take_while(|(op, _, _)| matches!(op, 17 | 10))
        .filter(|(op, _, _)| *op == 10)
        .map(|(_, inst, _)| crate::words::string(inst, 1))
        .collect()
}

/// The subgroup operation classes a module's capabilities ask for (`OpCapability`
/// GroupNonUniform*), by the names [`DeviceInfo::subgroup_operations`] uses.
fn module_subgroup_operations(words: &[u32]) -> Vec<&'static str> {
    crate::words::instructions(words)
        .take_while(|(op, _, _)| matches!(op, 17 | 10))
        .filter(|(op, _, _)| *op == 17)
        .filter_map(|(_, inst, _)| match inst.get(1) {
            Some(61) => Some("basic"),
            Some(62) => Some("vote"),
            Some(63) => Some("arithmetic"),
            Some(64) => Some("ballot"),
            Some(65) => Some("shuffle"),
            Some(66) => Some("shuffle_relative"),
            Some(67) => Some("clustered"),
            Some(68) => Some("quad"),
            Some(6026) => Some("rotate"),
            _ => None,
        })
        .collect()
}

/// Whether a module declares subgroup operations (any `GroupNonUniform*` or rotate
/// capability): without them its words cannot depend on the subgroup size.
pub fn uses_subgroups(words: &[u32]) -> bool {
    !module_subgroup_operations(words).is_empty()
}

/// Whether `device` can run a module declaring what `words` declares: each extension it may
/// lack, then each subgroup operation class; the error names both sides.
pub fn check_module(words: &[u32], device: &DeviceInfo) -> Result<(), GpuError> {
    for ext in module_extensions(words) {
        if let Some(missing) = needs(&ext, device) {
            return Err(GpuError::Unsupported(format!(
                "the module uses {ext}, and {} ({}) lacks {missing}",
                device.name, device.driver
            )));
        }
    }
    if let Some(op) = module_subgroup_operations(words)
        .into_iter()
        .find(|o| !device.subgroup_operations.contains(o))
    {
        return Err(GpuError::Unsupported(format!(
            "the module uses {op} subgroup operations, which {} ({}) does not support in compute shaders",
            device.name, device.driver
        )));
    }
    Ok(())
}

/// Whether the shader may read and write variable `var`: not decorated `NonReadable` (25),
/// not decorated `NonWritable` (24).
pub fn access(words: &[u32], var: u32) -> (bool, bool) {
    let (mut readable, mut writable) = (true, true);
    for (op, inst, _) in crate::words::instructions(words) {
        // OpDecorate %var Decoration
        if op == 71 && inst.get(1) == Some(&var) {
            match inst.get(2) {
                Some(25) => readable = false,
                Some(24) => writable = false,
                _ => {}
            }
        }
    }
    (readable, writable)
}

/// `MaximallyReconvergesKHR` (an execution mode).
const MAXIMALLY_RECONVERGES: u32 = 6023;

/// The module without maximal reconvergence (its `SPV_KHR_maximal_reconvergence` extension
/// and every `MaximallyReconvergesKHR` execution mode left out), for a device without
/// `VK_KHR_shader_maximal_reconvergence`; `None` when it declares none.
pub fn without_maximal_reconvergence(words: &[u32]) -> Option<Vec<u32>> {
    if !crate::words::well_formed(words) {
        return None;
    }
    let mut out = words[..5].to_vec();
    let mut dropped = false;
    for (op, inst, _) in crate::words::instructions(words) {
        let drop = match op {
            10 => crate::words::string(inst, 1) == "SPV_KHR_maximal_reconvergence",
            16 => inst.get(2) == Some(&MAXIMALLY_RECONVERGES),
            _ => false,
        };
        dropped |= drop;
        if !drop {
            out.extend_from_slice(inst);
        }
    }
    dropped.then_some(out)
}

/// What the device must offer for a module's extension, when it is one it may lack.
fn needs(spirv_extension: &str, info: &DeviceInfo) -> Option<&'static str> {
    let (has, name) = match spirv_extension {
        "SPV_KHR_maximal_reconvergence" => (
            info.maximal_reconvergence,
            "VK_KHR_shader_maximal_reconvergence",
        ),
        "SPV_KHR_subgroup_rotate" => (info.subgroup_rotate, "VK_KHR_shader_subgroup_rotate"),
        "SPV_KHR_cooperative_matrix" => (info.cooperative_matrix, "VK_KHR_cooperative_matrix"),
        "SPV_KHR_integer_dot_product" => (
            info.integer_dot_product,
            "shaderIntegerDotProduct (VK_KHR_shader_integer_dot_product)",
        ),
        "SPV_KHR_8bit_storage" => (info.storage_8bit, "8-bit storage buffer access"),
        "SPV_KHR_16bit_storage" => (info.storage_16bit, "16-bit storage buffer access"),
        _ => return None,
    };
    (!has).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_modules_extensions_are_read_from_its_header() {
        // OpCapability Shader; OpExtension "SPV_KHR_subgroup_rotate"; OpTypeVoid.
        let name = b"SPV_KHR_subgroup_rotate\0";
        let mut words = vec![0x0723_0203, 0x0001_0600, 0, 10, 0];
        words.extend([(2 << 16) | 17, 1]);
        let text: Vec<u32> = name
            .chunks(4)
            .map(|c| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(w)
            })
            .collect();
        words.push(((1 + text.len() as u32) << 16) | 10);
        words.extend(text);
        words.extend([(2 << 16) | 19, 2]);
        assert_eq!(module_extensions(&words), ["SPV_KHR_subgroup_rotate"]);
        // A truncated module ends the scan instead of reading past it.
        assert!(module_extensions(&words[..7]).is_empty());
    }
}
