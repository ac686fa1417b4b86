//! Capabilities and extended instruction sets as an allow-list.
//!
//! A capability is either one Lanescope implements, or it is refused as soon as the module uses
//! something that needs it (an opcode, an operand value such as a storage class or decoration,
//! or a construct listed in [`semantic_use`]). One that is merely declared is a warning: real
//! shaders declare more than they use. Extended instruction sets likewise, by their name;
//! `NonSemantic.*` sets are accepted and ignored (SPV_KHR_non_semantic_info).

use super::{Ctx, ExtSet, LoadError, Location, Warning, WarningCode};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability as C, Op};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Capabilities whose instructions and operands Lanescope simulates.
pub const IMPLEMENTED: &[C] = &[
    C::Shader,
    C::Matrix,
    C::Int8,
    C::Int16,
    C::Int64,
    C::Float16,
    C::Float64,
    C::Int64Atomics,
    C::AtomicFloat32AddEXT,
    C::AtomicFloat64AddEXT,
    C::GroupNonUniform,
    C::GroupNonUniformVote,
    C::GroupNonUniformArithmetic,
    C::GroupNonUniformBallot,
    C::GroupNonUniformShuffle,
    C::GroupNonUniformShuffleRelative,
    C::GroupNonUniformClustered,
    C::GroupNonUniformQuad,
    C::GroupNonUniformRotateKHR,
    C::GroupNonUniformPartitionedEXT,
    C::VariablePointers,
    C::VariablePointersStorageBuffer,
    C::PhysicalStorageBufferAddresses,
    C::LongVectorEXT,
    // Descriptor arrays of buffers and images, indexed by any value (each lane is simulated on its own, so
    // the NonUniform decoration changes nothing).
    C::ShaderNonUniform,
    C::StorageBufferArrayDynamicIndexing,
    C::UniformBufferArrayDynamicIndexing,
    C::StorageBufferArrayNonUniformIndexing,
    C::UniformBufferArrayNonUniformIndexing,
    C::SampledImageArrayDynamicIndexing,
    C::StorageImageArrayDynamicIndexing,
    C::SampledImageArrayNonUniformIndexing,
    C::StorageImageArrayNonUniformIndexing,
    C::UniformTexelBufferArrayDynamicIndexing,
    C::StorageTexelBufferArrayDynamicIndexing,
    C::UniformTexelBufferArrayNonUniformIndexing,
    C::StorageTexelBufferArrayNonUniformIndexing,
    C::SampledBuffer,
    C::ImageBuffer,
    C::Sampled1D,
    C::Image1D,
    C::SampledCubeArray,
    C::ImageCubeArray,
    C::ImageQuery,
    C::StorageImageExtendedFormats,
    C::StorageImageReadWithoutFormat,
    C::StorageImageWriteWithoutFormat,
    C::Int64ImageEXT,
    C::StorageImageMultisample,
    C::ImageMSArray,
    C::QuadControlKHR,
    C::StorageBuffer16BitAccess,
    C::UniformAndStorageBuffer16BitAccess,
    C::StoragePushConstant16,
    C::StorageBuffer8BitAccess,
    C::UniformAndStorageBuffer8BitAccess,
    C::StoragePushConstant8,
    C::VulkanMemoryModel,
    C::VulkanMemoryModelDeviceScope,
    C::CooperativeMatrixKHR,
    C::DotProduct,
    C::DotProductInputAll,
    C::DotProductInput4x8Bit,
    C::DotProductInput4x8BitPacked,
    C::BFloat16TypeKHR,
    C::BFloat16DotProductKHR,
    C::BFloat16CooperativeMatrixKHR,
    C::WorkgroupMemoryExplicitLayoutKHR,
    C::WorkgroupMemoryExplicitLayout8BitAccessKHR,
    C::WorkgroupMemoryExplicitLayout16BitAccessKHR,
    C::ShaderNonUniform,
    C::DenormPreserve,
    C::DenormFlushToZero,
    C::SignedZeroInfNanPreserve,
    C::RoundingModeRTE,
    C::RoundingModeRTZ,
];

/// Capabilities refused when declared at all: the module is not a Vulkan compute shader.
const REFUSED: &[(C, &str)] = &[
    (C::Kernel, "OpenCL kernels"),
    (C::Addresses, "physical addressing (OpenCL)"),
    (C::Linkage, "linkage (modules to be linked, not shaders)"),
];

/// Whether `c` is implemented (directly or because an implemented one is the same capability
/// under another name).
pub fn implemented(c: C) -> bool {
    IMPLEMENTED.contains(&c)
}

impl Ctx<'_> {
    /// Checks the declared capabilities and extended instruction sets against what the module
    /// uses. Must run after `index_ids` and `read_debug_and_annotations` (for names in errors).
    pub(super) fn check_capabilities(&mut self) -> Result<(), LoadError> {
        let m = self.module;
        let mut declared: BTreeMap<u32, (C, u32)> = BTreeMap::new();
        for (k, inst) in m.capabilities.iter().enumerate() {
            let Some(Operand::Capability(c)) = inst.operands.first() else {
                continue;
            };
            if self.unknown_caps.iter().any(|(_, i)| *i == k as u32) {
                continue;
            }
            if let Some((_, why)) = REFUSED.iter().find(|(r, _)| r == c) {
                return Err(LoadError::Unsupported {
                    what: format!("capability {c:?}: {why}"),
                    at: Location {
                        instruction: Some(k as u32),
                        opcode: Some("OpCapability".into()),
                        ..Location::default()
                    },
                });
            }
            declared.entry(*c as u32).or_insert((*c, k as u32));
        }
        // A declared capability implicitly declares the ones it depends on.
        let mut enabled: BTreeSet<u32> = declared.keys().copied().collect();
        let mut work: Vec<C> = declared.values().map(|(c, _)| *c).collect();
        while let Some(c) = work.pop() {
            for d in Operand::Capability(c).required_capabilities() {
                if enabled.insert(d as u32) {
                    work.push(d);
                }
            }
        }
        self.explicit_workgroup_layout =
            declared.contains_key(&(C::WorkgroupMemoryExplicitLayoutKHR as u32));
        let mut used: BTreeSet<u32> = BTreeSet::new();
        let mut grammar: HashMap<u32, &'static [C]> = HashMap::new();
        for inst in all_instructions(m) {
            let needs = needs_of(inst, &mut grammar, self);
            for alternatives in needs {
                // The instruction is fine when one of the capabilities that allow it is
                // implemented; otherwise it uses the declared ones, which are not.
                if alternatives.iter().any(|c| implemented(*c)) {
                    for c in alternatives
                        .iter()
                        .filter(|c| enabled.contains(&(**c as u32)))
                    {
                        used.insert(*c as u32);
                    }
                    continue;
                }
                let name = alternatives
                    .iter()
                    .find(|c| enabled.contains(&(**c as u32)))
                    .or(alternatives.first())
                    .map_or_else(String::new, |c| format!("{c:?}"));
                self.set_cur(inst);
                return Err(self.unsupported(
                    inst,
                    format!(
                        "capability {name} (needed by {}; Lanescope does not simulate it)",
                        describe_use(inst)
                    ),
                ));
            }
            if inst.class.opcode == Op::ExtInst {
                if let Some(Operand::IdRef(set)) = inst.operands.first() {
                    if let Some(ExtSet::Other(name)) = self.ext_sets.get(set) {
                        let name = name.clone();
                        self.set_cur(inst);
                        return Err(self.unsupported(
                            inst,
                            format!("extended instruction set `{name}` (Lanescope implements GLSL.std.450 and ignores NonSemantic.* sets)"),
                        ));
                    }
                }
            }
        }
        let mut in_order: Vec<&(C, u32)> = declared.values().collect();
        in_order.sort_by_key(|(_, k)| *k);
        for (c, k) in in_order {
            if !implemented(*c) && !used.contains(&(*c as u32)) {
                self.warnings.push(Warning {
                    code: WarningCode::UnusedCapability,
                    message: format!(
                        "capability {c:?} is declared but nothing in the module needs it; Lanescope does not simulate it and ignores the declaration (OpCapability, instruction #{k})"
                    ),
                });
            }
        }
        for (c, k) in &self.unknown_caps {
            self.warnings.push(Warning {
                code: WarningCode::UnusedCapability,
                message: format!(
                    "capability {c} is not in the SPIR-V grammar Lanescope knows; nothing Lanescope can run needs it, so the declaration is ignored (OpCapability, instruction #{k})"
                ),
            });
        }
        let mut sets: Vec<(&u32, &ExtSet)> = self.ext_sets.iter().collect();
        sets.sort_by_key(|(id, _)| **id);
        for (id, set) in sets {
            if let ExtSet::Other(name) = set {
                self.warnings.push(Warning {
                    code: WarningCode::UnusedExtInstSet,
                    message: format!(
                        "extended instruction set `{name}` (%{id}) is imported but not used; Lanescope does not implement it"
                    ),
                });
            }
        }
        Ok(())
    }
}

impl Ctx<'_> {
    /// The entry point's execution modes must be ones Lanescope honours (or that cannot change
    /// a compute shader's results): an ignored mode would make results silently wrong.
    pub(super) fn check_execution_modes(&mut self, entry: u32) -> Result<(), LoadError> {
        use rspirv::spirv::ExecutionMode as M;
        for m in &self.module.execution_modes {
            if !matches!(m.operands.first(), Some(Operand::IdRef(f)) if *f == entry) {
                continue;
            }
            let Some(Operand::ExecutionMode(mode)) = m.operands.get(1) else {
                continue;
            };
            let fine = matches!(
                mode,
                M::LocalSize
                    | M::LocalSizeId
                    | M::LocalSizeHint
                    | M::LocalSizeHintId
                    | M::MaximallyReconvergesKHR
                    | M::SubgroupUniformControlFlowKHR
                    | M::RoundingModeRTE
                    | M::RoundingModeRTZ
                    | M::DenormPreserve
                    | M::DenormFlushToZero
                    | M::SignedZeroInfNanPreserve
                    // Only derivative instructions read these, and those are refused.
                    | M::DerivativeGroupQuadsKHR
                    | M::DerivativeGroupLinearKHR
                    // SPV_KHR_quad_control: they govern derivatives and helper invocations,
                    // neither of which a compute dispatch has.
                    | M::QuadDerivativesKHR
                    | M::RequireFullQuadsKHR
            );
            if !fine {
                self.set_cur(m);
                return Err(self.unsupported(
                    m,
                    format!(
                        "execution mode {mode:?} (Lanescope does not simulate what it changes)"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Every instruction rspirv parsed, in binary order.
pub(super) fn all_instructions(m: &rspirv::dr::Module) -> impl Iterator<Item = &Instruction> {
    m.capabilities
        .iter()
        .chain(&m.extensions)
        .chain(&m.ext_inst_imports)
        .chain(m.memory_model.iter())
        .chain(&m.entry_points)
        .chain(&m.execution_modes)
        .chain(&m.debug_string_source)
        .chain(&m.debug_names)
        .chain(&m.debug_module_processed)
        .chain(&m.annotations)
        .chain(&m.types_global_values)
        .chain(m.functions.iter().flat_map(|f| {
            f.def
                .iter()
                .chain(&f.parameters)
                .chain(
                    f.blocks
                        .iter()
                        .flat_map(|b| b.label.iter().chain(&b.instructions)),
                )
                .chain(f.end.iter())
        }))
}

/// The capability sets an instruction needs: each entry is a list of alternatives (any one of
/// them allows it), from the grammar (the opcode and every enumerant operand) and from
/// constructs the grammar cannot see.
fn needs_of(
    inst: &Instruction,
    grammar: &mut HashMap<u32, &'static [C]>,
    cx: &Ctx<'_>,
) -> Vec<Vec<C>> {
    let op = inst.class.opcode as u32;
    let caps = *grammar.entry(op).or_insert_with(|| {
        rspirv::grammar::INSTRUCTION_TABLE
            .lookup_opcode(op)
            .map_or(&[][..], |g| g.capabilities)
    });
    let mut out = Vec::new();
    // OpCapability's own operand names what it declares, not what it needs.
    if inst.class.opcode == Op::Capability {
        return out;
    }
    if !caps.is_empty() {
        out.push(caps.to_vec());
    }
    for o in &inst.operands {
        let need = o.required_capabilities();
        if !need.is_empty() {
            out.push(need);
        }
    }
    if let Some(c) = semantic_use(inst, cx) {
        out.push(vec![c]);
    }
    out
}

/// Uses of a capability that no opcode or operand value shows.
fn semantic_use(inst: &Instruction, cx: &Ctx<'_>) -> Option<C> {
    let pointer_result = || {
        inst.result_type
            .and_then(|t| cx.module_type(t))
            .is_some_and(|t| t.class.opcode == Op::TypePointer)
    };
    match inst.class.opcode {
        // Pointers chosen at run time, stored in memory or returned: variable pointers.
        Op::Phi if pointer_result() => Some(C::VariablePointers),
        Op::PtrEqual | Op::PtrNotEqual => Some(C::VariablePointers),
        Op::Load | Op::FunctionCall if pointer_result() => Some(C::VariablePointers),
        // A pointer type inside a struct or array (pointers stored in memory).
        Op::TypeArray | Op::TypeRuntimeArray | Op::TypeStruct => {
            let members: Vec<u32> = inst
                .operands
                .iter()
                .filter_map(|o| match o {
                    Operand::IdRef(t) => Some(*t),
                    _ => None,
                })
                .collect();
            let holds_pointer = members
                .iter()
                .take(if inst.class.opcode == Op::TypeStruct {
                    usize::MAX
                } else {
                    1
                })
                .any(|t| {
                    cx.module_type(*t)
                        .is_some_and(|t| t.class.opcode == Op::TypePointer)
                });
            holds_pointer.then_some(C::VariablePointers)
        }
        _ => None,
    }
}

/// A short description of what made an instruction need a capability, for the error.
fn describe_use(inst: &Instruction) -> String {
    let name = format!("Op{}", inst.class.opname);
    let operand = inst
        .operands
        .iter()
        .find(|o| !o.required_capabilities().is_empty())
        .map(|o| format!(" {o}"));
    format!("{name}{}", operand.unwrap_or_default())
}
