//! Types: every OpType* instruction lowered to a `Type`, with the layout decorations it carries.

use super::{Ctx, LoadError, MAX_VALUE_COMPONENTS};
use crate::program::{Type, TypeId};
use crate::value::ScalarTy;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op};

/// The most components of an SPV_EXT_long_vector vector Lanescope simulates.
const MAX_LONG_VECTOR: u64 = 1024;

impl Ctx<'_> {
    pub(super) fn read_type(&mut self, inst: &Instruction) -> Result<(), LoadError> {
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
    pub(super) fn image_type(
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

    pub(super) fn add_type(
        &mut self,
        inst: &Instruction,
        rid: u32,
        ty: Type,
    ) -> Result<(), LoadError> {
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
}
