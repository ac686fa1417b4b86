//! Types, constants (specialization included) and global variables.

use super::{
    space_of, Ctx, LoadError, LoadOptions, PtrInfo, Warning, WarningCode, MAX_VALUE_COMPONENTS,
};
use crate::alu;
use crate::program::{
    encode_ptr, ConvOp, Layout, Resource, Space, SpecConstantInfo, Type, TypeId, Variable,
};
use crate::value::{mask, ScalarTy};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass};

/// The most components of an SPV_EXT_long_vector vector Lanescope simulates.
const MAX_LONG_VECTOR: u64 = 1024;

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
                    return Err(self.unsupported(inst, format!("Op{other:?} (not simulated)")));
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

    fn read_type(&mut self, inst: &Instruction) -> Result<(), LoadError> {
        if inst.class.opcode == Op::TypeForwardPointer {
            // A pointer type used before it is defined (a struct holding pointers to its own
            // type): its pointee is filled in by the OpTypePointer that defines it.
            let id = self.id_op(inst, 0)?;
            let Some(Operand::StorageClass(sc)) = inst.operands.get(1) else {
                return Err(self.invalid(inst, "forward pointer without storage class"));
            };
            if self.type_map.contains_key(&id) {
                return Err(self.invalid(inst, format!("%{id} is declared twice")));
            }
            return self.add_type(
                inst,
                id,
                Type::Pointer {
                    storage_class: *sc as u32,
                    pointee: TypeId::MAX,
                },
            );
        }
        let rid = self.result_id(inst)?;
        let lit = |i: usize| self.lit_op(inst, i);
        let ty = match inst.class.opcode {
            Op::TypeVoid => Type::Void,
            Op::TypeBool => Type::Scalar(ScalarTy::Bool),
            Op::TypeInt => {
                let bits = lit(0)?;
                if !matches!(bits, 8 | 16 | 32 | 64) {
                    return Err(self.unsupported(inst, format!("{bits}-bit integers")));
                }
                Type::Scalar(ScalarTy::Int {
                    bits: bits as u8,
                    signed: lit(1)? != 0,
                })
            }
            Op::TypeFloat => {
                let bits = lit(0)?;
                if let Some(enc) = inst.operands.get(1) {
                    return match enc {
                        Operand::FPEncoding(rspirv::spirv::FPEncoding::BFloat16KHR)
                            if bits == 16 =>
                        {
                            self.add_type(inst, rid, Type::Scalar(ScalarTy::BFloat16))
                        }
                        other => Err(self.unsupported(
                            inst,
                            format!("floating-point encoding {other:?} with width {bits}"),
                        )),
                    };
                }
                if !matches!(bits, 16 | 32 | 64) {
                    return Err(self.unsupported(inst, format!("{bits}-bit floats")));
                }
                Type::Scalar(ScalarTy::Float { bits: bits as u8 })
            }
            Op::TypeVector => {
                let c = self.type_of_id(inst, self.id_op(inst, 0)?)?;
                let n = lit(1)?;
                let Type::Scalar(elem) = self.types.get(c).clone() else {
                    return Err(self.invalid(inst, "vector component type must be a scalar"));
                };
                if !(2..=16).contains(&n) {
                    return Err(self.invalid(inst, format!("vector of {n} components")));
                }
                Type::Vector { elem, n }
            }
            // SPV_EXT_long_vector: the component count is a constant instruction, which may be
            // a specialization constant (already specialized here).
            Op::TypeVectorIdEXT => {
                let c = self.type_of_id(inst, self.id_op(inst, 0)?)?;
                let n_id = self.id_op(inst, 1)?;
                let n = self
                    .consts
                    .get(&n_id)
                    .and_then(|(_, v)| v.first().copied())
                    .ok_or_else(|| {
                        self.invalid(inst, format!("vector length %{n_id} is not a constant"))
                    })?;
                let Type::Scalar(elem) = self.types.get(c).clone() else {
                    return Err(self.invalid(inst, "vector component type must be a scalar"));
                };
                if n < 2 {
                    return Err(self.invalid(inst, format!("vector of {n} components")));
                }
                if n > MAX_LONG_VECTOR {
                    return Err(self.unsupported(
                        inst,
                        format!("a vector of {n} components (at most {MAX_LONG_VECTOR})"),
                    ));
                }
                Type::Vector { elem, n: n as u32 }
            }
            Op::TypeMatrix => {
                let col = self.type_of_id(inst, self.id_op(inst, 0)?)?;
                let cols = lit(1)?;
                let Type::Vector { elem, n } = self.types.get(col).clone() else {
                    return Err(self.invalid(inst, "matrix column type must be a vector"));
                };
                if !(2..=4).contains(&cols) {
                    return Err(self.invalid(inst, format!("matrix of {cols} columns")));
                }
                Type::Matrix {
                    col,
                    cols,
                    rows: n,
                    elem,
                }
            }
            Op::TypeArray => {
                let elem = self.type_of_id(inst, self.id_op(inst, 0)?)?;
                let len_id = self.id_op(inst, 1)?;
                let len = self
                    .consts
                    .get(&len_id)
                    .and_then(|(_, v)| v.first().copied())
                    .ok_or_else(|| {
                        self.invalid(inst, format!("array length %{len_id} is not a constant"))
                    })?;
                let total = len.saturating_mul(u64::from(self.types.width(elem).max(1)));
                if len == 0 || total > MAX_VALUE_COMPONENTS as u64 * 64 {
                    return Err(self.unsupported(inst, format!("array of {len} elements")));
                }
                Type::Array {
                    elem,
                    len: len as u32,
                    stride: self.deco_lit(rid, Decoration::ArrayStride),
                }
            }
            Op::TypeRuntimeArray => Type::RuntimeArray {
                elem: self.type_of_id(inst, self.id_op(inst, 0)?)?,
                stride: self.deco_lit(rid, Decoration::ArrayStride),
            },
            Op::TypeStruct => {
                let mut members = Vec::new();
                let mut offsets = Vec::new();
                let mut matrix = Vec::new();
                for (k, o) in inst.operands.iter().enumerate() {
                    let Operand::IdRef(m) = o else {
                        return Err(self.invalid(inst, "struct member must be a type"));
                    };
                    members.push(self.type_of_id(inst, *m)?);
                    let k = k as u32;
                    offsets.push(
                        self.member_deco(rid, k, Decoration::Offset)
                            .and_then(|v| v.first().copied()),
                    );
                    let stride = self
                        .member_deco(rid, k, Decoration::MatrixStride)
                        .and_then(|v| v.first().copied());
                    let row_major = self.member_deco(rid, k, Decoration::RowMajor).is_some();
                    matrix.push(stride.map(|s| (s, row_major)));
                }
                Type::Struct {
                    members,
                    offsets,
                    matrix,
                }
            }
            Op::TypePointer => {
                let sc = match inst.operands.first() {
                    Some(Operand::StorageClass(s)) => *s as u32,
                    _ => return Err(self.invalid(inst, "pointer without storage class")),
                };
                let pointee_id = self.id_op(inst, 1)?;
                let pointee = match self.type_map.get(&pointee_id) {
                    Some(t) => *t,
                    None => {
                        return Err(self.invalid(
                            inst,
                            format!("pointee %{pointee_id} is not a type declared before"),
                        ))
                    }
                };
                let ty = Type::Pointer {
                    storage_class: sc,
                    pointee,
                };
                if let Some(t) = self.type_map.get(&rid).copied() {
                    let forward = matches!(self.types.get(t), Type::Pointer { pointee, storage_class }
                        if *pointee == TypeId::MAX && *storage_class == sc);
                    if !forward {
                        return Err(self.invalid(inst, format!("%{rid} is declared twice")));
                    }
                    self.types.complete_pointer(t, ty);
                    return Ok(());
                }
                ty
            }
            Op::TypeFunction => Type::Function,
            Op::TypeCooperativeMatrixKHR => Type::CoopMat(self.coop_type(inst)?),
            Op::TypeImage => Type::Image(self.image_type(inst)?),
            Op::TypeSampler => Type::Sampler,
            Op::TypeSampledImage => {
                let t = self.type_of_id(inst, self.id_op(inst, 0)?)?;
                // A texel buffer with a sampler is allowed before SPIR-V 1.6 (glslang emits it
                // for `samplerBuffer`); only texel fetches read it.
                match self.types.get(t) {
                    Type::Image(i) => Type::SampledImage(*i),
                    _ => return Err(self.invalid(inst, "OpTypeSampledImage of a non-image type")),
                }
            }
            _ => return Err(self.unsupported(inst, "forward-declared pointer types")),
        };
        self.add_type(inst, rid, ty)
    }

    /// An OpTypeImage: what Lanescope stores (no multisampling, no depth comparison).
    fn image_type(
        &self,
        inst: &Instruction,
    ) -> Result<crate::program::image::ImageType, LoadError> {
        use crate::program::image::{Dim, ImageType, TexelFormat};
        let comp = self.type_of_id(inst, self.id_op(inst, 0)?)?;
        let component = match self.types.get(comp) {
            Type::Scalar(s) => *s,
            Type::Void => ScalarTy::F32,
            _ => return Err(self.invalid(inst, "an image's Sampled Type must be a scalar")),
        };
        let dim = match inst.operands.get(1) {
            Some(Operand::Dim(d)) => match d {
                rspirv::spirv::Dim::Dim1D => Dim::D1,
                rspirv::spirv::Dim::Dim2D => Dim::D2,
                rspirv::spirv::Dim::Dim3D => Dim::D3,
                rspirv::spirv::Dim::DimCube => Dim::Cube,
                rspirv::spirv::Dim::DimBuffer => Dim::Buffer,
                other => return Err(self.unsupported(inst, format!("images of Dim {other:?}"))),
            },
            _ => return Err(self.invalid(inst, "OpTypeImage without a Dim")),
        };
        let lit = |k: usize| match inst.operands.get(k) {
            Some(Operand::LiteralBit32(v)) => Ok(*v),
            _ => Err(self.invalid(inst, "OpTypeImage operand missing")),
        };
        let (arrayed, ms, sampled) = (lit(3)?, lit(4)?, lit(5)?);
        if ms > 1 {
            return Err(self.invalid(inst, format!("MS {ms} (0 or 1)")));
        }
        if sampled > 2 {
            return Err(self.invalid(inst, format!("Sampled {sampled} (0, 1 or 2)")));
        }
        let format = match inst.operands.get(6) {
            Some(Operand::ImageFormat(rspirv::spirv::ImageFormat::Unknown)) | None => None,
            Some(Operand::ImageFormat(f)) => Some(
                TexelFormat::by_spirv(*f as u32)
                    .ok_or_else(|| self.unsupported(inst, format!("the image format {f:?}")))?,
            ),
            _ => return Err(self.invalid(inst, "OpTypeImage without an Image Format")),
        };
        Ok(ImageType {
            dim,
            arrayed: arrayed == 1,
            multisampled: ms == 1,
            sampled: sampled as u8,
            format,
            component,
        })
    }

    fn add_type(&mut self, inst: &Instruction, rid: u32, ty: Type) -> Result<(), LoadError> {
        let t = self.types.add(ty, rid);
        let bytes = self.types.size_u64(t);
        if bytes > crate::program::MAX_TYPE_BYTES {
            return Err(self.unsupported(
                inst,
                format!(
                    "a type of {bytes} bytes in memory (its strides and offsets; at most {} MiB)",
                    crate::program::MAX_TYPE_BYTES >> 20
                ),
            ));
        }
        self.flat_total += self.types.flat[t as usize].len();
        if self.flat_total > (16 << 20) {
            return Err(self.unsupported(
                inst,
                "types too large to simulate (over 16M scalar components in all)",
            ));
        }
        if let Type::Scalar(s) = self.types.get(t) {
            self.scalar_types.entry(*s).or_insert(t);
        }
        self.type_map.insert(rid, t);
        Ok(())
    }

    pub(super) fn deco_lit(&self, id: u32, d: Decoration) -> Option<u32> {
        self.has_deco(id, d).and_then(|v| v.first().copied())
    }

    fn read_constant(&mut self, inst: &Instruction, opts: &LoadOptions) -> Result<(), LoadError> {
        let rid = self.result_id(inst)?;
        let ty = self.result_type(inst)?;
        let flat = self.types.flat[ty as usize].clone();
        let spec_id = self.deco_lit(rid, Decoration::SpecId);
        let value: Vec<u64> = match inst.class.opcode {
            Op::ConstantTrue | Op::SpecConstantTrue => vec![1],
            Op::ConstantFalse | Op::SpecConstantFalse => vec![0],
            Op::Constant | Op::SpecConstant => {
                let s = *flat
                    .first()
                    .ok_or_else(|| self.invalid(inst, "constant of non-scalar type"))?;
                let v = match inst.operands.first() {
                    Some(Operand::LiteralBit32(w)) => u64::from(*w),
                    Some(Operand::LiteralBit64(w)) => *w,
                    _ => return Err(self.invalid(inst, "constant without a literal value")),
                };
                vec![v & mask(s.bits())]
            }
            Op::ConstantComposite | Op::SpecConstantComposite
                if matches!(self.types.get(ty), Type::CoopMat(_)) =>
            {
                // One constituent initialises every component.
                let [Operand::IdRef(c)] = inst.operands.as_slice() else {
                    return Err(self.invalid(
                        inst,
                        "a cooperative-matrix constant takes exactly one constituent",
                    ));
                };
                let (ct, cv) = self.consts.get(c).ok_or_else(|| {
                    self.invalid(inst, format!("constituent %{c} is not a constant"))
                })?;
                if cv.len() != 1 || self.types.flat[*ct as usize].first() != flat.first() {
                    return Err(self.invalid(
                        inst,
                        "the constituent must be a scalar of the matrix's component type",
                    ));
                }
                vec![cv[0]; flat.len()]
            }
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let mut v = Vec::with_capacity(flat.len());
                for o in &inst.operands {
                    let Operand::IdRef(c) = o else {
                        return Err(self.invalid(inst, "composite constituent must be an <id>"));
                    };
                    let (_, cv) = self.consts.get(c).ok_or_else(|| {
                        self.invalid(inst, format!("constituent %{c} is not a constant"))
                    })?;
                    v.extend_from_slice(cv);
                }
                if v.len() != flat.len() {
                    return Err(self.invalid(
                        inst,
                        "composite constant has the wrong number of components",
                    ));
                }
                v
            }
            // A null pointer points nowhere: not at the start of the first buffer. A physical
            // one is address 0, where no buffer is.
            Op::ConstantNull if matches!(self.types.get(ty), Type::Pointer { .. }) => {
                vec![if self.types.is_physical_ptr(ty) {
                    0
                } else {
                    crate::program::NULL_PTR
                }]
            }
            Op::ConstantNull | Op::Undef => vec![0; flat.len()],
            _ => self.spec_constant_op(inst, ty)?,
        };
        let mut value = value;
        if let Some(sid) = spec_id {
            if let Some(s) = flat.first() {
                self.spec_infos.push(SpecConstantInfo {
                    spec_id: sid,
                    result_id: rid,
                    name: self
                        .names
                        .get(&rid)
                        .cloned()
                        .unwrap_or_else(|| format!("%{rid}")),
                    ty: *s,
                    default: value[0],
                });
                if let Some(v) = opts.spec.get(&sid) {
                    value[0] = v.bits_for(*s).map_err(|e| {
                        self.invalid_option(
                            inst,
                            format!(
                                "specialization constant {sid} (`{}`): {e}",
                                self.names
                                    .get(&rid)
                                    .cloned()
                                    .unwrap_or_else(|| format!("%{rid}"))
                            ),
                        )
                    })?;
                }
            }
        }
        if self
            .has_deco(rid, Decoration::BuiltIn)
            .is_some_and(|v| v.first() == Some(&(BuiltIn::WorkgroupSize as u32)))
        {
            self.workgroup_size_const = Some(rid);
        }
        if value.len() != flat.len() {
            return Err(self.invalid(inst, "constant does not match its type"));
        }
        let slot = self.alloc_slot(inst, rid, ty)?;
        if inst.class.opcode == Op::Undef {
            self.undef_slots.push((slot, value.len() as u32));
        }
        for (k, v) in value.iter().enumerate() {
            if *v != 0 {
                self.const_slots.push((slot + k as u32, *v));
            }
        }
        self.consts.insert(rid, (ty, value));
        Ok(())
    }

    fn spec_constant_op(&mut self, inst: &Instruction, ty: TypeId) -> Result<Vec<u64>, LoadError> {
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = inst.operands.first() else {
            return Err(self.invalid(inst, "OpSpecConstantOp without an opcode"));
        };
        let arg = |k: usize| -> Result<(TypeId, Vec<u64>), LoadError> {
            match inst.operands.get(k) {
                Some(Operand::IdRef(id)) => self
                    .consts
                    .get(id)
                    .cloned()
                    .ok_or_else(|| self.invalid(inst, format!("%{id} is not a constant"))),
                _ => Err(self.invalid(inst, format!("operand {k} missing"))),
            }
        };
        let lits: Vec<u32> = inst.operands[1..]
            .iter()
            .filter_map(|o| match o {
                Operand::LiteralBit32(w) => Some(*w),
                _ => None,
            })
            .collect();
        let out_flat = self.types.flat[ty as usize].clone();
        let elem = |t: TypeId, this: &Self| {
            this.types.flat[t as usize]
                .first()
                .copied()
                .unwrap_or(ScalarTy::U32)
        };
        if let Some(bop) = super::decode::bin_op(*op) {
            let (ta, a) = arg(1)?;
            let (_, b) = arg(2)?;
            let sty = elem(ta, self);
            return Ok(a
                .iter()
                .zip(b.iter().cycle())
                .map(|(x, y)| alu::bin_in(bop, sty, *x, *y, self.float_controls.of(sty)).0)
                .collect());
        }
        if let Some(uop) = super::decode::un_op(*op) {
            let (ta, a) = arg(1)?;
            let sty = elem(ta, self);
            // Float controls apply to folding too, except to OpQuantizeToF16 (which `un_in`
            // never rounds by them).
            let mode = self.float_controls.of(sty);
            return Ok(a.iter().map(|x| alu::un_in(uop, sty, *x, mode)).collect());
        }
        let conv = match op {
            Op::UConvert => Some(ConvOp::UConvert),
            Op::SConvert => Some(ConvOp::SConvert),
            Op::FConvert => Some(ConvOp::FConvert),
            Op::ConvertFToS => Some(ConvOp::FToS),
            Op::ConvertFToU => Some(ConvOp::FToU),
            Op::ConvertSToF => Some(ConvOp::SToF),
            Op::ConvertUToF => Some(ConvOp::UToF),
            _ => None,
        };
        if let Some(c) = conv {
            let (ta, a) = arg(1)?;
            let from = elem(ta, self);
            let to = out_flat.first().copied().unwrap_or(ScalarTy::U32);
            let modes = alu::ConvModes::new(&self.float_controls, from, to)
                .decorated(self.conversion_rounding(inst)?);
            return Ok(a
                .iter()
                .map(|x| alu::conv_in(c, from, to, *x, modes).0)
                .collect());
        }
        match op {
            Op::CooperativeMatrixLengthKHR => {
                let Some(Operand::IdRef(t)) = inst.operands.get(1) else {
                    return Err(self.invalid(inst, "OpCooperativeMatrixLengthKHR needs a type"));
                };
                let t = self.type_of_id(inst, *t)?;
                match self.types.get(t) {
                    Type::CoopMat(c) => Ok(vec![u64::from(c.length)]),
                    _ => Err(self.invalid(
                        inst,
                        "OpCooperativeMatrixLengthKHR of a type that is not a cooperative matrix",
                    )),
                }
            }
            Op::Select => {
                let (_, c) = arg(1)?;
                let (_, a) = arg(2)?;
                let (_, b) = arg(3)?;
                Ok((0..a.len())
                    .map(|k| {
                        if c[k.min(c.len() - 1)] != 0 {
                            a[k]
                        } else {
                            b[k]
                        }
                    })
                    .collect())
            }
            Op::CompositeExtract => {
                let (mut t, v) = arg(1)?;
                let mut off = 0u32;
                for l in &lits {
                    let (o, _, sub) = self
                        .types
                        .component_range(t, *l)
                        .ok_or_else(|| self.invalid(inst, "index out of range"))?;
                    off += o;
                    t = if sub == TypeId::MAX { ty } else { sub };
                }
                let w = out_flat.len();
                Ok(v[off as usize..off as usize + w].to_vec())
            }
            Op::CompositeInsert => {
                let (_, obj) = arg(1)?;
                let (mut t, mut v) = arg(2)?;
                let mut off = 0u32;
                for l in &lits {
                    let (o, _, sub) = self
                        .types
                        .component_range(t, *l)
                        .ok_or_else(|| self.invalid(inst, "index out of range"))?;
                    off += o;
                    t = if sub == TypeId::MAX { t } else { sub };
                }
                v[off as usize..off as usize + obj.len()].copy_from_slice(&obj);
                Ok(v)
            }
            Op::VectorShuffle => {
                let (_, a) = arg(1)?;
                let (_, b) = arg(2)?;
                Ok(lits
                    .iter()
                    .map(|&i| {
                        let i = i as usize;
                        if i < a.len() {
                            a[i]
                        } else {
                            b.get(i - a.len()).copied().unwrap_or(0)
                        }
                    })
                    .collect())
            }
            other => Err(self.unsupported(inst, format!("OpSpecConstantOp with Op{other:?}"))),
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
        let sc_name = format!("{:?}", storage_class_of(storage_class));
        // Storage classes a compute shader's global variables may have; any other would be
        // given private memory silently.
        if ![
            StorageClass::StorageBuffer,
            StorageClass::Uniform,
            StorageClass::PushConstant,
            StorageClass::Workgroup,
            StorageClass::Private,
            StorageClass::Input,
            StorageClass::UniformConstant,
        ]
        .iter()
        .any(|c| *c as u32 == storage_class)
        {
            return Err(self.unsupported(
                inst,
                format!("a global variable in the {sc_name} storage class"),
            ));
        }
        let space = space_of(storage_class);
        let size = self.types.size(pointee);
        let mut var = Variable {
            id: rid,
            name: name.clone(),
            space,
            storage_class: sc_name,
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
