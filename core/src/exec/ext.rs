//! GLSL.std.450 and the bit-field instructions, lane by lane.

use super::memops::oob_msg;
use super::step::{each, Ctx};
use super::Mask;
use crate::glsl450;
use crate::program::{BITFIELD_INSERT, BITFIELD_SEXTRACT, BITFIELD_UEXTRACT};
use crate::trace::DiagCode;
use crate::value::{mask as bitmask, sext, ScalarTy};

fn bitfield(code: u32, ty: ScalarTy, a: &[u64]) -> (u64, bool) {
    let w = ty.bits();
    let m = bitmask(w);
    match code {
        BITFIELD_INSERT => {
            let (base, ins, off, cnt) = (a[0], a[1], a[2], a[3]);
            if off + cnt > u64::from(w) {
                return (base, true);
            }
            let fm = bitmask(cnt as u32) << off;
            (((base & !fm) | ((ins << off) & fm)) & m, false)
        }
        _ => {
            let (base, off, cnt) = (a[0], a[1], a[2]);
            if off + cnt > u64::from(w) {
                return (0, true);
            }
            if cnt == 0 {
                return (0, false);
            }
            let v = (base >> off) & bitmask(cnt as u32);
            if code == BITFIELD_SEXTRACT {
                ((sext(v, cnt as u32) as u64) & m, false)
            } else {
                (v, false)
            }
        }
    }
}

pub(super) fn ext(
    c: &mut Ctx<'_>,
    code: u32,
    out_tys: &[ScalarTy],
    dst: u32,
    args: &[(u32, ScalarTy, u32)],
    ptr_out: Option<(u32, u32)>,
) {
    let s = c.s;
    // f32 component-wise math under the default controls: straight to the operation.
    if ptr_out.is_none()
        && glsl450::has_fast_f32(code)
        && c.prog.float_controls.of(ScalarTy::F32) == crate::float::Mode::DEFAULT
        && out_tys.iter().all(|t| *t == ScalarTy::F32)
        && args.len() <= 3
        && args
            .iter()
            .all(|a| a.1 == ScalarTy::F32 && (a.2 as usize == out_tys.len() || a.2 == 1))
    {
        let n = out_tys.len();
        let regs = &mut *c.regs;
        let slot = |k: usize, comp: usize| {
            args.get(k).map(|a| {
                let j = if a.2 == 1 { 0 } else { comp };
                (a.0 as usize + j) * s
            })
        };
        for comp in 0..n {
            let (sa, sb, sc) = (slot(0, comp), slot(1, comp), slot(2, comp));
            let d = (dst as usize + comp) * s;
            each(c.mask, c.full, s, |l| {
                let get = |x: Option<usize>| x.map_or(0, |base| regs[base + l]);
                if let Some(v) = glsl450::fast_f32(code, get(sa), get(sb), get(sc)) {
                    regs[d + l] = v;
                }
            });
        }
        return;
    }
    let mut undef: Mask = 0;
    let mut err = None;
    let half = out_tys.len() / 2;
    // Operands are gathered into one flat buffer, each at its own offset (no allocation per
    // lane: this is the hot path of math-heavy loops).
    let mut starts = [0usize; 8];
    let mut total = 0usize;
    for (k, a) in args.iter().enumerate() {
        if let Some(st) = starts.get_mut(k) {
            *st = total;
        }
        total += a.2 as usize;
    }
    let small = args.len() <= starts.len();
    let mut flat = vec![0u64; total];
    let mut argbuf: Vec<Vec<u64>> = if small {
        Vec::new()
    } else {
        args.iter().map(|a| vec![0; a.2 as usize]).collect()
    };
    let mut out = vec![0u64; out_tys.len()];
    let mut bad = None;
    let mut bad_lanes: Mask = 0;
    let (regs, mem) = (&mut *c.regs, &mut *c.mem);
    let table = ptr_out.map(|(_, lv)| &c.prog.leaf_tables[lv as usize]);
    each(c.mask, c.full, s, |l| {
        if small {
            for (k, (slot, _, n)) in args.iter().enumerate() {
                for j in 0..*n as usize {
                    flat[starts[k] + j] = regs[(*slot as usize + j) * s + l];
                }
            }
        } else {
            for (buf, (slot, _, n)) in argbuf.iter_mut().zip(args) {
                for k in 0..*n {
                    buf[k as usize] = regs[(slot + k) as usize * s + l];
                }
            }
        }
        if small
            && !matches!(
                code,
                BITFIELD_INSERT | BITFIELD_SEXTRACT | BITFIELD_UEXTRACT
            )
        {
            let arg = |k: usize| glsl450::Arg {
                ty: args[k].1,
                comps: &flat[starts[k]..starts[k] + args[k].2 as usize],
            };
            let list: [glsl450::Arg<'_>; 8] = std::array::from_fn(|k| {
                if k < args.len() {
                    arg(k)
                } else {
                    glsl450::Arg {
                        ty: ScalarTy::U32,
                        comps: &[],
                    }
                }
            });
            match glsl450::eval_in(
                code,
                out_tys,
                &list[..args.len()],
                &mut out,
                &c.prog.float_controls,
            ) {
                Ok(true) => undef |= 1 << l,
                Ok(false) => {}
                Err(e) => err = Some(e),
            }
        } else if small {
            // Offset and count are scalars; the base (and insert) may be vectors.
            for (k, o) in out.iter_mut().enumerate() {
                let a: Vec<u64> = (0..args.len())
                    .map(|j| {
                        let n = args[j].2 as usize;
                        flat[starts[j] + if n > 1 { k } else { 0 }]
                    })
                    .collect();
                let (v, u) = bitfield(code, out_tys[k], &a);
                *o = v;
                if u {
                    undef |= 1 << l;
                }
            }
        } else if matches!(
            code,
            BITFIELD_INSERT | BITFIELD_SEXTRACT | BITFIELD_UEXTRACT
        ) {
            // Offset and count are scalars; the base (and insert) may be vectors.
            for (k, o) in out.iter_mut().enumerate() {
                let pick = |buf: &Vec<u64>| if buf.len() > 1 { buf[k] } else { buf[0] };
                let a: Vec<u64> = argbuf.iter().map(pick).collect();
                let (v, u) = bitfield(code, out_tys[k], &a);
                *o = v;
                if u {
                    undef |= 1 << l;
                }
            }
        } else {
            let list: Vec<glsl450::Arg<'_>> = argbuf
                .iter()
                .zip(args)
                .map(|(b, a)| glsl450::Arg { ty: a.1, comps: b })
                .collect();
            match glsl450::eval_in(code, out_tys, &list, &mut out, &c.prog.float_controls) {
                Ok(true) => undef |= 1 << l,
                Ok(false) => {}
                Err(e) => err = Some(e),
            }
        }
        let keep = if ptr_out.is_some() { half } else { out.len() };
        for (k, v) in out.iter().take(keep).enumerate() {
            regs[(dst as usize + k) * s + l] = *v;
        }
        if let (Some((p, _)), Some(t)) = (ptr_out, table) {
            let pv = regs[p as usize * s + l];
            for (leaf, v) in t.iter().zip(&out[half..]) {
                if let Err(o) = mem.write(pv, *leaf, c.inv_base + l, *v) {
                    bad = Some(o);
                    bad_lanes |= 1 << l;
                }
            }
        }
    });
    let name = if code >= BITFIELD_INSERT {
        "bit-field instruction"
    } else {
        glsl450::name(code)
    };
    if let Some(e) = err {
        c.found.add(
            DiagCode::Unsupported,
            format!("GLSL.std.450 {name}: {e:?}"),
            c.mask,
        );
    }
    c.found.add_with(DiagCode::UndefinedResult, undef, || {
        format!("GLSL.std.450 {name} has an undefined result for these inputs")
    });
    if let Some(o) = bad {
        c.found.add(DiagCode::OutOfBounds, oob_msg(o), bad_lanes);
    }
}
