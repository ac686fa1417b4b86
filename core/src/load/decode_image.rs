//! Image instructions -> `Inst::Image`.

use super::{Ctx, LoadError, PtrInfo};
use crate::program::image::{ImageInst, ImageOp, ImageType};
use crate::program::{Inst, Layout, Space, Type, TypeId};
use crate::value::ScalarTy;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Op;

/// What the Image Operands of an instruction give Lanescope.
#[derive(Default)]
struct Operands {
    lod: Option<(u32, ScalarTy)>,
    offset: Option<(u32, u32, ScalarTy)>,
    sample: Option<(u32, ScalarTy)>,
}

/// Image operands starting at operand `k` (the mask, then its ids in the order of its bits).
fn image_operands(cx: &Ctx<'_>, inst: &Instruction, k: usize) -> Result<Operands, LoadError> {
    let mut out = Operands::default();
    let Some(Operand::ImageOperands(mask)) = inst.operands.get(k) else {
        return Ok(out);
    };
    let bits = mask.bits();
    let mut next = k + 1;
    // (bit, ids it takes, name)
    const KNOWN: &[(u32, usize, &str)] = &[
        (0x1, 1, "Bias"),
        (0x2, 1, "Lod"),
        (0x4, 2, "Grad"),
        (0x8, 1, "ConstOffset"),
        (0x10, 1, "Offset"),
        (0x20, 1, "ConstOffsets"),
        (0x40, 1, "Sample"),
        (0x80, 1, "MinLod"),
        (0x100, 1, "MakeTexelAvailable"),
        (0x200, 1, "MakeTexelVisible"),
        (0x400, 0, "NonPrivateTexel"),
        (0x800, 0, "VolatileTexel"),
        (0x1000, 0, "SignExtend"),
        (0x2000, 0, "ZeroExtend"),
        (0x4000, 0, "Nontemporal"),
        (0x10000, 1, "Offsets"),
    ];
    let mut seen = 0;
    for &(bit, ids, name) in KNOWN {
        if bits & bit == 0 {
            continue;
        }
        seen |= bit;
        match bit {
            0x2 => {
                let (slot, _, t) = cx.val(inst, next)?;
                out.lod = Some((slot, cx.elem_ty(t)));
            }
            0x8 | 0x10 => {
                let (slot, n, t) = cx.val(inst, next)?;
                out.offset = Some((slot, n, cx.elem_ty(t)));
            }
            0x40 => {
                let (slot, _, t) = cx.val(inst, next)?;
                out.sample = Some((slot, cx.elem_ty(t)));
            }
            0x20 | 0x10000 => {
                return Err(cx.unsupported(inst, format!("the {name} image operand (gathers)")))
            }
            // Bias, Grad and MinLod choose among mip levels; a bound image has one. The
            // memory-model operands change nothing in a simulation that is sequentially
            // consistent.
            _ => {}
        }
        next += ids;
    }
    if bits & !seen != 0 {
        return Err(cx.unsupported(inst, format!("image operands {:#x}", bits & !seen)));
    }
    Ok(out)
}

fn image_of(cx: &Ctx<'_>, inst: &Instruction, t: TypeId) -> Result<ImageType, LoadError> {
    match cx.types.get(t) {
        Type::Image(i) | Type::SampledImage(i) => Ok(*i),
        _ => Err(cx.invalid(inst, "the Image operand is not an image")),
    }
}

fn blank(op: ImageOp, image: u32, ty: ImageType) -> ImageInst {
    ImageInst {
        op,
        dst: u32::MAX,
        n: 0,
        result: ScalarTy::U32,
        image,
        coord: u32::MAX,
        coord_n: 0,
        coord_ty: ScalarTy::U32,
        value: u32::MAX,
        value_n: 0,
        value_ty: ScalarTy::U32,
        lod: None,
        offset: None,
        sample: None,
        ty,
    }
}

/// Lowers an image instruction; `None` when `inst` is not one.
pub(super) fn lower_image(cx: &mut Ctx<'_>, inst: &Instruction) -> Result<Option<Inst>, LoadError> {
    let op = inst.class.opcode;
    let kind = match op {
        Op::ImageRead => ImageOp::Read,
        Op::ImageWrite => ImageOp::Write,
        Op::ImageFetch => ImageOp::Fetch,
        Op::ImageSampleExplicitLod | Op::ImageSampleImplicitLod => ImageOp::Sample,
        Op::ImageQuerySize | Op::ImageQuerySizeLod => ImageOp::QuerySize,
        Op::ImageQueryLevels => ImageOp::QueryOne,
        Op::ImageQuerySamples => ImageOp::QuerySamples,
        Op::ImageTexelPointer => ImageOp::TexelPointer,
        Op::SampledImage => ImageOp::Combine,
        Op::Image => ImageOp::Extract,
        Op::ImageSampleDrefExplicitLod
        | Op::ImageSampleDrefImplicitLod
        | Op::ImageSampleProjExplicitLod
        | Op::ImageSampleProjImplicitLod
        | Op::ImageSampleProjDrefExplicitLod
        | Op::ImageSampleProjDrefImplicitLod
        | Op::ImageGather
        | Op::ImageDrefGather
        | Op::ImageQueryLod
        | Op::ImageSparseRead
        | Op::ImageSparseFetch => {
            return Err(cx.unsupported(
                inst,
                format!(
                    "Op{} (Lanescope reads, writes, fetches and samples images; depth comparison, projection, gathers and sparse images are not simulated)",
                    lanescope_spirv::op_name(op)
                ),
            ))
        }
        _ => return Ok(None),
    };
    let (image, _, it) = cx.val(inst, 0)?;
    let ty = if kind == ImageOp::TexelPointer {
        // The Image operand is a pointer to the image variable.
        match cx.types.get(it) {
            Type::Pointer { pointee, .. } => image_of(cx, inst, *pointee)?,
            _ => return Err(cx.invalid(inst, "OpImageTexelPointer's Image must be a pointer")),
        }
    } else {
        image_of(cx, inst, it)?
    };
    let mut i = blank(kind, image, ty);
    if kind != ImageOp::Write {
        let (dst, n, tr) = cx.dst(inst)?;
        i.dst = dst;
        i.n = n;
        i.result = cx.elem_ty(tr);
    }
    match kind {
        ImageOp::Combine => {
            let (v, _, vt) = cx.val(inst, 1)?;
            if !matches!(cx.types.get(vt), Type::Sampler) {
                return Err(cx.invalid(inst, "OpSampledImage's Sampler is not a sampler"));
            }
            i.value = v;
            i.value_n = 1;
        }
        ImageOp::Extract | ImageOp::QueryOne | ImageOp::QuerySamples => {}
        ImageOp::QuerySize => {
            if op == Op::ImageQuerySizeLod {
                let (l, _, lt) = cx.val(inst, 1)?;
                i.lod = Some((l, cx.elem_ty(lt)));
            }
        }
        ImageOp::TexelPointer => {
            let (c, n, ct) = cx.val(inst, 1)?;
            (i.coord, i.coord_n, i.coord_ty) = (c, n, cx.elem_ty(ct));
            if ty.multisampled {
                let (x, _, xt) = cx.val(inst, 2)?;
                i.sample = Some((x, cx.elem_ty(xt)));
            }
            let rid = cx.result_id(inst)?;
            let Type::Pointer { pointee, .. } = cx.types.get(cx.result_type(inst)?).clone() else {
                return Err(cx.invalid(inst, "OpImageTexelPointer's result must be a pointer"));
            };
            cx.ptr_info.insert(
                rid,
                PtrInfo {
                    pointee,
                    layout: Layout::Plain,
                    space: Space::Buffer,
                    descriptors: None,
                },
            );
        }
        ImageOp::Read | ImageOp::Write | ImageOp::Fetch | ImageOp::Sample => {
            let (c, n, ct) = cx.val(inst, 1)?;
            (i.coord, i.coord_n, i.coord_ty) = (c, n, cx.elem_ty(ct));
            let want = if kind == ImageOp::Sample && ty.dim == crate::program::image::Dim::Cube {
                3 + u32::from(ty.arrayed)
            } else {
                ty.coords()
            };
            if n < want {
                return Err(cx.invalid(
                    inst,
                    format!(
                        "{} coordinates for a {} (it takes {want})",
                        n,
                        ty.describe()
                    ),
                ));
            }
            let float_coords = cx.elem_ty(ct).is_float();
            if (kind == ImageOp::Sample) != float_coords {
                return Err(cx.invalid(
                    inst,
                    if kind == ImageOp::Sample {
                        "sampling takes floating-point coordinates"
                    } else {
                        "texel coordinates must be integers"
                    },
                ));
            }
            let mut k = 2;
            if kind == ImageOp::Write {
                let (v, vn, vt) = cx.val(inst, 2)?;
                (i.value, i.value_n, i.value_ty) = (v, vn, cx.elem_ty(vt));
                k = 3;
            }
            let ops = image_operands(cx, inst, k)?;
            i.lod = ops.lod;
            i.offset = ops.offset;
            i.sample = ops.sample;
            if ty.multisampled && (kind == ImageOp::Sample || i.sample.is_none()) {
                return Err(cx.invalid(
                    inst,
                    "a multisampled image is read and written with a Sample operand, and not sampled",
                ));
            }
            if kind == ImageOp::Sample && !matches!(cx.types.get(it), Type::SampledImage(_)) {
                return Err(cx.invalid(inst, "sampling needs a sampled image"));
            }
        }
    }
    Ok(Some(Inst::Image(Box::new(i))))
}
