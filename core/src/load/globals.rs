//! Global variables (buffers, images and samplers become resources; Workgroup, Private and Input
//! variables get offsets in their memories), after the types and constants (`types.rs`,
//! `constants.rs`) in module order.

use super::{space_of, Ctx, LoadError, LoadOptions, PtrInfo, Warning, WarningCode};
use crate::program::{
    encode_ptr, Layout, Resource, Space, SpecConstantInfo, Type, TypeId, Variable,
};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass};

#[allow(dead_code)]
/// Builtin inputs the simulator fills in.
const SUPPORTED_BUILTINS: [u32; 15] = [
    BuiltIn::LocalInvocationId as u32,
    BuiltIn::GlobalInvocationId as u32,
    BuiltIn::LocalInvocationIndex as u32,
    BuiltIn::WorkgroupId as u32,
    BuiltIn::NumWorkgroups as u32,
    BuiltIn::WorkgroupSize as u32,
    BuiltIn::SubgroupSize as u32,
    BuiltIn::SubgroupLocalInvocationId as u32,
    BuiltIn::SubgroupId as u32,
    BuiltIn::NumSubgroups as u32,
    BuiltIn::SubgroupEqMask as u32,
    BuiltIn::SubgroupGeMask as u32,
    BuiltIn::SubgroupGtMask as u32,
    BuiltIn::SubgroupLeMask as u32,
    BuiltIn::SubgroupLtMask as u32,
];

impl Ctx<'_> {
    pub(super) fn read_globals(
        &mut self,
        opts: &LoadOptions,
        _interface: &[u32],
    ) -> Result<(), LoadError> {
        let module = self.module;
        for inst in &module.types_global_values {
            self.set_cur(inst);
            match inst.class.opcode {
                Op::TypeVoid
                | Op::TypeBool
                | Op::TypeInt
                | Op::TypeFloat
                | Op::TypeVector
                | Op::TypeVectorIdEXT
                | Op::TypeMatrix
                | Op::TypeArray
                | Op::TypeRuntimeArray
                | Op::TypeStruct
                | Op::TypePointer
                | Op::TypeFunction
                | Op::TypeImage
                | Op::TypeSampler
                | Op::TypeSampledImage
                | Op::TypeForwardPointer
                | Op::TypeCooperativeMatrixKHR => self.read_type(inst)?,
                Op::Constant
                | Op::ConstantTrue
                | Op::ConstantFalse
                | Op::ConstantComposite
                | Op::ConstantNull
                | Op::SpecConstant
                | Op::SpecConstantTrue
                | Op::SpecConstantFalse
                | Op::SpecConstantComposite
                | Op::SpecConstantOp
                | Op::Undef => self.read_constant(inst, opts)?,
                Op::Variable => self.read_global_var(inst)?,
                Op::ExtInst | Op::Line | Op::NoLine | Op::String => {}
                other => {
                    return Err(self.unsupported(
                        inst,
                        format!("Op{} (not simulated)", lanescope_spirv::op_name(other)),
                    ));
                }
            }
        }
        if let Some((t, _)) =
            self.types.types.iter().enumerate().find(
                |(_, t)| matches!(t, Type::Pointer { pointee, .. } if *pointee == TypeId::MAX),
            )
        {
            let id = self.types.spirv_ids.get(t).copied().unwrap_or(0);
            return Err(LoadError::Invalid {
                what: format!("forward-declared pointer type %{id} is never defined"),
                at: self.loc(None),
            });
        }
        for sid in opts.spec.keys() {
            if !self.spec_infos.iter().any(|i| i.spec_id == *sid) {
                let have: Vec<String> = self
                    .spec_infos
                    .iter()
                    .map(|i| format!("{} ({})", i.spec_id, i.name))
                    .collect();
                self.warnings.push(Warning {
                    code: WarningCode::UnknownSpecId,
                    message: format!(
                        "the module has no specialization constant with SpecId {sid}; the value is ignored (it has: {})",
                        if have.is_empty() { "none".to_string() } else { have.join(", ") }
                    ),
                });
            }
        }
        self.warn_shared_spec_ids(opts);
        Ok(())
    }

    /// Specialization constants sharing one SpecId with different defaults (ggml declares
    /// `local_size_x_id = 0` and `constant_id = 0` with defaults 1 and 128): unspecialized, each
    /// keeps its own default, which is rarely what the author meant (a 1x1x1 workgroup).
    fn warn_shared_spec_ids(&mut self, opts: &LoadOptions) {
        // Which workgroup dimension a constant gives, for the message.
        let axis = ["local_size_x", "local_size_y", "local_size_z"];
        let mut role: Vec<(u32, &str)> = Vec::new();
        for m in &self.module.execution_modes {
            if let Some(Operand::ExecutionMode(rspirv::spirv::ExecutionMode::LocalSizeId)) =
                m.operands.get(1)
            {
                for (k, o) in m.operands.iter().skip(2).take(3).enumerate() {
                    if let Operand::IdRef(id) = o {
                        role.push((*id, axis[k]));
                    }
                }
            }
        }
        if let Some(c) = self.workgroup_size_const {
            let parts = self
                .module
                .types_global_values
                .iter()
                .find(|i| i.result_id == Some(c))
                .map(|i| i.operands.clone())
                .unwrap_or_default();
            for (k, o) in parts.iter().take(3).enumerate() {
                if let Operand::IdRef(id) = o {
                    role.push((*id, axis[k]));
                }
            }
        }
        let mut ids: Vec<u32> = self.spec_infos.iter().map(|i| i.spec_id).collect();
        ids.sort_unstable();
        ids.dedup();
        for sid in ids {
            if opts.spec.contains_key(&sid) {
                continue;
            }
            let sharing: Vec<&SpecConstantInfo> = self
                .spec_infos
                .iter()
                .filter(|i| i.spec_id == sid)
                .collect();
            let defaults: Vec<String> = sharing
                .iter()
                .map(|i| crate::value::format_scalar(i.ty, i.default))
                .collect();
            if defaults.iter().all(|d| *d == defaults[0]) {
                continue;
            }
            let each: Vec<String> = sharing
                .iter()
                .zip(&defaults)
                .map(|(i, d)| {
                    let mut what = Vec::new();
                    if !i.name.starts_with('%') {
                        what.push(format!("%{}", i.result_id));
                    }
                    what.extend(
                        role.iter()
                            .filter(|(id, _)| *id == i.result_id)
                            .map(|(_, r)| r.to_string()),
                    );
                    what.push(format!("default {d}"));
                    format!("{} ({})", i.name, what.join(", "))
                })
                .collect();
            let all = match sharing.len() {
                2 => "both".to_string(),
                n => format!("all {n}"),
            };
            self.warnings.push(Warning {
                code: WarningCode::SharedSpecId,
                message: format!(
                    "specialization constants {} share SpecId {sid} with different defaults; unspecialized, each keeps its own default; --spec {sid}=VALUE sets {all}",
                    each.join(", ")
                ),
            });
        }
    }

    pub(super) fn deco_lit(&self, id: u32, d: Decoration) -> Option<u32> {
        self.has_deco(id, d).and_then(|v| v.first().copied())
    }

    /// Counts a Workgroup variable's scalars by size (for [`crate::program::Program`]'s
    /// `workgroup_unit`).
    fn note_workgroup_leaves(&mut self, pointee: TypeId) {
        for t in self.types.flat.get(pointee as usize).into_iter().flatten() {
            let size = t.size_bytes();
            self.workgroup_leaf_bytes[(size.min(4) as usize).max(1).ilog2() as usize] +=
                u64::from(size);
        }
    }

    fn read_global_var(&mut self, inst: &Instruction) -> Result<(), LoadError> {
        let rid = self.result_id(inst)?;
        let ty = self.result_type(inst)?;
        let Type::Pointer {
            storage_class,
            pointee,
        } = self.types.get(ty).clone()
        else {
            return Err(self.invalid(inst, "OpVariable must have a pointer type"));
        };
        let name = self
            .names
            .get(&rid)
            .cloned()
            .unwrap_or_else(|| format!("%{rid}"));
        // Storage classes a compute shader's global variables may have; any other would be
        // given private memory silently.
        use crate::program::StorageClass as S;
        let Some(class) = (match storage_class_of(storage_class) {
            StorageClass::StorageBuffer => Some(S::StorageBuffer),
            StorageClass::Uniform => Some(S::Uniform),
            StorageClass::PushConstant => Some(S::PushConstant),
            StorageClass::Workgroup => Some(S::Workgroup),
            StorageClass::Private => Some(S::Private),
            StorageClass::Input => Some(S::Input),
            StorageClass::UniformConstant => Some(S::UniformConstant),
            _ => None,
        }) else {
            let sc_name = format!("{:?}", storage_class_of(storage_class));
            return Err(self.unsupported(
                inst,
                format!("a global variable in the {sc_name} storage class"),
            ));
        };
        let space = space_of(storage_class);
        let size = self.types.size(pointee);
        let mut var = Variable {
            id: rid,
            name: name.clone(),
            space,
            storage_class: class,
            offset: 0,
            size,
            binding: None,
            resource: None,
            builtin: None,
            instruction: self.cur_index,
            initialized: inst.operands.get(1).is_some(),
        };
        let init = match inst.operands.get(1) {
            Some(Operand::IdRef(c)) => Some(*c),
            _ => None,
        };
        if storage_class == StorageClass::UniformConstant as u32 {
            return self.image_global(inst, var, ty, pointee);
        }
        let mut var_descriptors = None;
        let ptr_value = match space {
            Space::Buffer => {
                // Each element of an array of buffer descriptors is a buffer of its own: one
                // resource per element, consecutive, so the first index picks the resource.
                let mut descriptors = None;
                let mut block = pointee;
                match self.types.get(pointee) {
                    Type::Array { elem, len, .. } if self.is_block(*elem) => {
                        descriptors = Some(*len);
                        block = *elem;
                    }
                    Type::RuntimeArray { elem, .. } if self.is_block(*elem) => {
                        return Err(self.unsupported(
                            inst,
                            "a runtime-sized array of buffer descriptors (give the array a size)",
                        ));
                    }
                    _ => {}
                }
                if descriptors.is_some() && storage_class == StorageClass::PushConstant as u32 {
                    return Err(self.invalid(inst, "an array of push constant blocks"));
                }
                let pointee = block;
                let size = self.types.size(block);
                let set = self.deco_lit(rid, Decoration::DescriptorSet).unwrap_or(0);
                let binding = self.deco_lit(rid, Decoration::Binding).unwrap_or(0);
                let push = storage_class == StorageClass::PushConstant as u32;
                // A struct ending in a runtime array: the buffer may be longer than the fixed part.
                let runtime_array_stride = match self.types.get(pointee) {
                    Type::Struct { members, .. } => {
                        members.last().and_then(|m| match self.types.get(*m) {
                            Type::RuntimeArray { elem, stride } => {
                                Some(stride.unwrap_or_else(|| self.types.natural_stride(*elem)))
                            }
                            _ => None,
                        })
                    }
                    Type::RuntimeArray { elem, stride } => {
                        Some(stride.unwrap_or_else(|| self.types.natural_stride(*elem)))
                    }
                    _ => None,
                };
                let pointee_id = self.types.spirv_ids[pointee as usize];
                let read_only = push
                    || (storage_class == StorageClass::Uniform as u32
                        && self.has_deco(pointee_id, Decoration::BufferBlock).is_none())
                    || self.has_deco(rid, Decoration::NonWritable).is_some()
                    || match self.types.get(pointee) {
                        Type::Struct { members, .. } => {
                            !members.is_empty()
                                && (0..members.len() as u32).all(|m| {
                                    self.member_deco(pointee_id, m, Decoration::NonWritable)
                                        .is_some()
                                })
                        }
                        _ => false,
                    };
                // Several declarations may alias one binding (a buffer viewed as two types):
                // they share one resource, as they share one buffer on a device.
                let count = descriptors.unwrap_or(1);
                let existing = self.resources.iter().position(|r| {
                    !push && !r.push_constant && r.set == set && r.binding == binding
                });
                let first = if let Some(i) = existing {
                    let same_shape = (i..i + count as usize).all(|k| {
                        self.resources.get(k).is_some_and(|r| {
                            (r.set, r.binding) == (set, binding)
                                && r.element == descriptors.map(|_| (k - i) as u32)
                        })
                    }) && self
                        .resources
                        .get(i + count as usize)
                        // A push-constant block has no set or binding: never an element.
                        .is_none_or(|r| r.push_constant || (r.set, r.binding) != (set, binding));
                    if !same_shape {
                        return Err(self.unsupported(
                            inst,
                            format!("set {set} binding {binding} declared both as a descriptor array and otherwise, or as arrays of different lengths"),
                        ));
                    }
                    for r in &mut self.resources[i..i + count as usize] {
                        r.min_size = r.min_size.max(size);
                        r.runtime_array_stride = r.runtime_array_stride.max(runtime_array_stride);
                        r.read_only &= read_only;
                        let old = r.name.split('[').next().unwrap_or_default().to_string();
                        let joined = format!("{old} | {name}");
                        r.name = match r.element {
                            Some(k) => format!("{joined}[{k}]"),
                            None => joined,
                        };
                    }
                    i as u32
                } else {
                    let index = self.resources.len() as u32;
                    if index as usize + count as usize > 1 << 20 {
                        return Err(self.unsupported(inst, "more than 2^20 buffer descriptors"));
                    }
                    for k in 0..count {
                        self.resources.push(Resource {
                            var: rid,
                            name: match descriptors {
                                Some(_) => format!("{name}[{k}]"),
                                None => name.clone(),
                            },
                            set,
                            binding,
                            push_constant: push,
                            uniform: storage_class == StorageClass::Uniform as u32,
                            read_only,
                            never_written: false,
                            min_size: size,
                            runtime_array_stride,
                            image: None,
                            sampler: false,
                            element: descriptors.map(|_| k),
                        });
                    }
                    index
                };
                var_descriptors = descriptors;
                var.binding = (!push).then_some((set, binding));
                var.resource = Some(first);
                encode_ptr(Space::Buffer, first, 0)
            }
            Space::Workgroup
                if self.explicit_workgroup_layout
                    && self
                        .has_deco(self.types.spirv_ids[pointee as usize], Decoration::Block)
                        .is_some() =>
            {
                // SPV_KHR_workgroup_memory_explicit_layout: Block-decorated Workgroup
                // variables alias one another, each laid out from offset 0.
                if self.plain_workgroup_vars {
                    return Err(self.invalid(inst, "Workgroup variables with and without the Block decoration in one module (with WorkgroupMemoryExplicitLayoutKHR, all alias from offset 0)"));
                }
                self.block_workgroup_vars = true;
                self.note_workgroup_leaves(pointee);
                self.workgroup_bytes = self.workgroup_bytes.max(size);
                if self.workgroup_bytes > 1 << 26 {
                    return Err(self.unsupported(inst, "more than 64 MiB of workgroup memory"));
                }
                var.offset = 0;
                encode_ptr(Space::Workgroup, 0, 0)
            }
            Space::Workgroup => {
                if self.block_workgroup_vars {
                    return Err(self.invalid(inst, "Workgroup variables with and without the Block decoration in one module (with WorkgroupMemoryExplicitLayoutKHR, all alias from offset 0)"));
                }
                self.plain_workgroup_vars = true;
                self.note_workgroup_leaves(pointee);
                let align = self.types.align(pointee).max(4);
                let off = super::super::program::round_up(self.workgroup_bytes, align);
                self.workgroup_bytes =
                    off.checked_add(size)
                        .filter(|s| *s <= 1 << 26)
                        .ok_or_else(|| {
                            self.unsupported(inst, "more than 64 MiB of workgroup memory")
                        })?;
                var.offset = off;
                encode_ptr(Space::Workgroup, 0, off)
            }
            Space::Invocation => {
                let align = self.types.align(pointee).max(4);
                let off = super::super::program::round_up(self.invocation_bytes, align);
                self.invocation_bytes = off
                    .checked_add(size)
                    .filter(|s| *s <= 1 << 20)
                    .ok_or_else(|| {
                        self.unsupported(inst, "more than 1 MiB of private memory per invocation")
                    })?;
                var.offset = off;
                if storage_class == StorageClass::Input as u32 {
                    let b = self
                        .has_deco(rid, Decoration::BuiltIn)
                        .and_then(|v| v.first().copied())
                        .ok_or_else(|| {
                            self.unsupported(inst, "Input variables other than builtins")
                        })?;
                    if !SUPPORTED_BUILTINS.contains(&b) {
                        let name = BuiltIn::from_u32(b)
                            .map_or_else(|| b.to_string(), |x| format!("{x:?}"));
                        return Err(self.unsupported(inst, format!("builtin input {name} (not a compute-shader builtin Lanescope provides)")));
                    }
                    var.builtin = Some(b);
                    self.inputs.push((off, b, self.types.width(pointee)));
                }
                encode_ptr(Space::Invocation, 0, off)
            }
        };
        if let Some(c) = init {
            let (_, v) =
                self.consts.get(&c).cloned().ok_or_else(|| {
                    self.invalid(inst, format!("initializer %{c} is not a constant"))
                })?;
            if space == Space::Buffer {
                return Err(self.invalid(inst, "buffer variables cannot have an initializer"));
            }
            let leaves = self.types.leaves(pointee, Layout::Plain);
            let mut bytes = vec![0u8; size as usize];
            for (leaf, val) in leaves.iter().zip(&v) {
                let n = leaf.ty.size_bytes() as usize;
                let o = leaf.offset as usize;
                bytes[o..o + n].copy_from_slice(&val.to_le_bytes()[..n]);
            }
            self.initializers.push((space, var.offset, bytes));
        }
        self.variables.push(var);
        let slot = self.alloc_slot(inst, rid, ty)?;
        self.const_slots.push((slot, ptr_value));
        self.ptr_info.insert(
            rid,
            PtrInfo {
                pointee,
                layout: Layout::Plain,
                space,
                descriptors: var_descriptors,
            },
        );
        Ok(())
    }

    /// An image, sampler or combined image sampler (UniformConstant): a resource bound at its
    /// (set, binding), and a handle value (see `exec::image`) in the variable's slot, which an
    /// OpLoad copies.
    fn image_global(
        &mut self,
        inst: &Instruction,
        mut var: Variable,
        ty: TypeId,
        pointee: TypeId,
    ) -> Result<(), LoadError> {
        let rid = var.id;
        // An array of image or sampler descriptors: one resource per element, consecutive.
        let (elem_ty, descriptors) = match self.types.get(pointee) {
            Type::Array { elem, len, .. } => (*elem, Some(*len)),
            Type::RuntimeArray { elem, .. }
                if matches!(
                    self.types.get(*elem),
                    Type::Image(_) | Type::SampledImage(_) | Type::Sampler
                ) =>
            {
                return Err(self.unsupported(
                    inst,
                    "a runtime-sized array of image or sampler descriptors (give the array a size)",
                ))
            }
            _ => (pointee, None),
        };
        let (image, sampler) = match self.types.get(elem_ty) {
            Type::Image(i) => (Some(*i), false),
            // A `samplerBuffer` is a uniform texel buffer: no sampler is bound with it.
            Type::SampledImage(i) => (Some(*i), i.dim != crate::program::image::Dim::Buffer),
            Type::Sampler => (None, true),
            _ => {
                return Err(self.unsupported(
                    inst,
                    format!(
                        "a UniformConstant variable of type {}",
                        self.types.describe(pointee)
                    ),
                ))
            }
        };
        let set = self.deco_lit(rid, Decoration::DescriptorSet).unwrap_or(0);
        let binding = self.deco_lit(rid, Decoration::Binding).unwrap_or(0);
        let index = self.resources.len() as u32;
        let count = descriptors.unwrap_or(1);
        if index as usize + count as usize > 1 << 20 {
            return Err(self.unsupported(inst, "more than 2^20 descriptors"));
        }
        let read_only = image.is_none_or(|i| i.sampled != 2)
            || self.has_deco(rid, Decoration::NonWritable).is_some();
        for k in 0..count {
            self.resources.push(Resource {
                var: rid,
                name: match descriptors {
                    Some(_) => format!("{}[{k}]", var.name),
                    None => var.name.clone(),
                },
                set,
                binding,
                push_constant: false,
                uniform: false,
                read_only,
                never_written: false,
                min_size: 0,
                runtime_array_stride: None,
                image,
                sampler,
                element: descriptors.map(|_| k),
            });
        }
        var.space = Space::Buffer;
        var.size = 0;
        var.binding = Some((set, binding));
        var.resource = Some(index);
        self.variables.push(var);
        let slot = self.alloc_slot(inst, rid, ty)?;
        let handle = crate::program::image::handle(index, sampler.then_some(index));
        self.const_slots.push((slot, handle));
        self.ptr_info.insert(
            rid,
            PtrInfo {
                pointee,
                layout: Layout::Plain,
                space: Space::Buffer,
                descriptors,
            },
        );
        Ok(())
    }
}

fn storage_class_of(sc: u32) -> StorageClass {
    StorageClass::from_u32(sc).unwrap_or(StorageClass::Generic)
}
