//! Cooperative-matrix instructions for one tangle: the per-lane kinds (splat, element-wise)
//! run here; the cross-lane kinds go to `coopmat::exec` on the subgroup's registers, or, at
//! Workgroup scope, wait for the whole workgroup (the simulator then runs them once for it).

use super::step::{exec as exec_inst, Ctx, Flow};
use super::Mask;
use crate::coopmat::exec::{exec as exec_cross, Report, SubgroupRegs};
use crate::coopmat::{CoopKind, CoopOp};
use crate::trace::DiagCode;

// Kept out of line: the per-instruction dispatch in `step::exec` stays small.
#[inline(never)]
pub(super) fn exec(c: &mut Ctx<'_>, op: &CoopOp) -> Flow {
    if op.workgroup() && op.cross_lane() {
        return Flow::CoopWorkgroup;
    }
    let s = c.s;
    let mut rep = Report::default();
    let lanes_of = |m: Mask| (0..s as u32).filter(move |l| m >> l & 1 == 1);
    // The invocations of the scope this subgroup contributes: all its lanes for Subgroup
    // scope; at Workgroup scope, the lanes that exist.
    let [x, y, z] = c.prog.local_size;
    let n = (x * y * z) as usize;
    let expected: Mask = if op.workgroup() {
        let k = n.saturating_sub(c.inv_base).min(s);
        if k >= 128 {
            Mask::MAX
        } else {
            (1 << k) - 1
        }
    } else if s >= 128 {
        Mask::MAX
    } else {
        (1 << s) - 1
    };
    match &op.kind {
        CoopKind::Splat { .. } | CoopKind::Elementwise { .. } => {
            if c.mask & expected != expected {
                rep.add(
                    DiagCode::CoopmatPartialTangle,
                    format!(
                        "a cooperative-matrix instruction needs every invocation of its scope; {} of {} execute it",
                        (c.mask & expected).count_ones(),
                        if op.workgroup() { n } else { s }
                    ),
                    lanes_of(c.mask).collect(),
                );
            }
            let u = match &op.kind {
                CoopKind::Splat { a, .. } => Some((*a, "the constituent of OpCompositeConstruct")),
                CoopKind::Elementwise {
                    uniform: Some(a), ..
                } => Some((*a, "the Scalar operand")),
                _ => None,
            };
            if let Some((slot, what)) = u {
                let regs = SubgroupRegs {
                    regs: c.regs,
                    s,
                    mask: c.mask,
                    inv_base: c.inv_base,
                };
                crate::coopmat::exec::uniform(&regs, slot, what, &mut rep);
            }
            match &op.kind {
                CoopKind::Splat { dst, a, ty } => {
                    // Each invocation fills its own components with its own value (what the
                    // GPU does when the constituent is not uniform).
                    for l in lanes_of(c.mask) {
                        let v = c.regs[*a as usize * s + l as usize];
                        for i in 0..ty.length {
                            c.regs[(dst + i) as usize * s + l as usize] = v;
                        }
                    }
                }
                CoopKind::Elementwise { inner, .. } => {
                    exec_inst(c, inner);
                }
                _ => {}
            }
        }
        _ => {
            let mut regs = SubgroupRegs {
                regs: c.regs,
                s,
                mask: c.mask,
                inv_base: c.inv_base,
            };
            exec_cross(op, c.prog, &mut regs, c.mem, &mut rep);
        }
    }
    for (code, msg, lanes) in rep.items {
        let m = lanes.iter().fold(0, |m: Mask, l| m | 1 << l);
        c.found.add(code, msg, m);
    }
    Flow::Next
}
