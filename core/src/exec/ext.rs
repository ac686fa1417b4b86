//! GLSL.std.450 and the bit-field instructions, lane by lane.

use super::step::{each, oob_msg, Ctx};
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
    let mut undef: Mask = 0;
    let mut err = None;
    let half = out_tys.len() / 2;
    let mut argbuf: Vec<Vec<u64>> = args.iter().map(|a| vec![0; a.2 as usize]).collect();
    let mut out = vec![0u64; out_tys.len()];
    let mut bad = None;
    let mut bad_lanes: Mask = 0;
    let (regs, mem) = (&mut *c.regs, &mut *c.mem);
    let table = ptr_out.map(|(_, lv)| &c.prog.leaf_tables[lv as usize]);
    each(c.mask, c.full, s, |l| {
        for (buf, (slot, _, n)) in argbuf.iter_mut().zip(args) {
            for k in 0..*n {
                buf[k as usize] = regs[(slot + k) as usize * s + l];
            }
        }
        if matches!(
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
    c.found.add(
        DiagCode::UndefinedResult,
        format!("GLSL.std.450 {name} has an undefined result for these inputs"),
        undef,
    );
    if let Some(o) = bad {
        c.found.add(DiagCode::OutOfBounds, oob_msg(o), bad_lanes);
    }
}
