//! Read-only views of the simulator state for the CLI and the app, and builtin inputs.

use super::Simulator;
use crate::lanes::LaneMask;
use crate::sched::RecordKind;
use crate::trace::{LaneState, TangleView, WaitKind};

impl Simulator {
    /// The tangles of every subgroup of the current workgroup.
    pub fn tangles(&self) -> Vec<TangleView> {
        let mut out = Vec::new();
        for sg in &self.sgs {
            for t in &sg.tangles {
                out.push(TangleView {
                    subgroup: sg.index,
                    id: t.id,
                    lanes: LaneMask(t.mask),
                    block: t.block,
                    pos: t.pos,
                    at_barrier: t.at_barrier,
                });
            }
        }
        out
    }

    /// What every lane of subgroup `g` is doing.
    pub fn lane_states(&self, g: usize) -> Vec<LaneState> {
        let Some(sg) = self.sgs.get(g) else {
            return Vec::new();
        };
        let s = self.cfg.subgroup_size as usize;
        (0..s)
            .map(|l| {
                let bit = 1u128 << l;
                if sg.live & bit == 0 {
                    return LaneState::Absent;
                }
                if sg.finished & bit != 0 {
                    return LaneState::Finished;
                }
                if let Some(t) = sg.tangles.iter().find(|t| t.mask & bit != 0) {
                    return if t.at_barrier {
                        LaneState::AtBarrier { tangle: t.id }
                    } else {
                        LaneState::Executing { tangle: t.id }
                    };
                }
                for (id, r) in sg.records.iter().enumerate() {
                    let Some(r) = r else { continue };
                    if r.arrived & bit != 0 {
                        let kind = match r.kind {
                            RecordKind::Selection => WaitKind::SelectionMerge,
                            RecordKind::Switch { .. } => WaitKind::SwitchMerge,
                            RecordKind::Case => WaitKind::SwitchTarget,
                            RecordKind::Loop { .. } => WaitKind::LoopMerge,
                            RecordKind::Continue => WaitKind::ContinueTarget,
                            RecordKind::Call { .. } => WaitKind::FunctionReturn,
                        };
                        return LaneState::Waiting {
                            record: id as u32,
                            kind,
                            block: r.target,
                            for_lanes: LaneMask(r.members & !r.arrived),
                            escaped: r.escaped_in & bit != 0,
                        };
                    }
                }
                LaneState::Finished
            })
            .collect()
    }

    /// The value of SPIR-V id `id` in every lane of subgroup `g` (raw component bits).
    pub fn value_of(&self, g: usize, id: u32) -> Option<Vec<Vec<u64>>> {
        let (slot, width, _) = *self.prog.id_slots.get(&id)?;
        let sg = self.sgs.get(g)?;
        let s = self.cfg.subgroup_size as usize;
        Some(
            (0..s)
                .map(|l| {
                    (0..width)
                        .map(|k| sg.regs[(slot + k) as usize * s + l])
                        .collect()
                })
                .collect(),
        )
    }

    /// `width` register slots from `slot` in every lane of subgroup `g` (raw bits), for views
    /// that start from a decoded instruction's operands rather than a SPIR-V id.
    pub(crate) fn slot_values(&self, g: usize, slot: u32, width: u32) -> Option<Vec<Vec<u64>>> {
        let sg = self.sgs.get(g)?;
        let s = self.cfg.subgroup_size as usize;
        let end = (slot as usize + width as usize) * s;
        if end > sg.regs.len() {
            return None;
        }
        Some(
            (0..s)
                .map(|l| {
                    (0..width)
                        .map(|k| sg.regs[(slot + k) as usize * s + l])
                        .collect()
                })
                .collect(),
        )
    }

    /// Subgroups in the workgroup running now.
    pub fn subgroup_count(&self) -> usize {
        self.sgs.len()
    }
}

#[expect(clippy::too_many_arguments, reason = "every builtin input")]
pub(super) fn builtin_value(
    b: u32,
    local: [u32; 3],
    wg: [u32; 3],
    nwg: [u32; 3],
    size: [u32; 3],
    index: u32,
    lane: u32,
    sg: u32,
    nsg: u32,
    s: u32,
    lanes: impl Fn(u32) -> u128,
) -> [u64; 4] {
    use rspirv::spirv::BuiltIn as B;
    // (an array, not a Vec: every invocation of every workgroup starts with these)
    let v3 = |a: [u32; 3]| [a[0].into(), a[1].into(), a[2].into(), 0];
    let one = |x: u32| [x.into(), 0, 0, 0];
    let m4 = |m: u128| std::array::from_fn(|k| u64::from((m >> (32 * k)) as u32));
    let all = lanes(s);
    match B::from_u32(b) {
        Some(B::LocalInvocationId) => v3(local),
        Some(B::GlobalInvocationId) => v3([
            wg[0] * size[0] + local[0],
            wg[1] * size[1] + local[1],
            wg[2] * size[2] + local[2],
        ]),
        Some(B::LocalInvocationIndex) => one(index),
        Some(B::WorkgroupId) => v3(wg),
        Some(B::NumWorkgroups) => v3(nwg),
        Some(B::WorkgroupSize) => v3(size),
        Some(B::SubgroupSize) => one(s),
        Some(B::SubgroupLocalInvocationId) => one(lane),
        Some(B::SubgroupId) => one(sg),
        Some(B::NumSubgroups) => one(nsg),
        Some(B::SubgroupEqMask) => m4(1u128 << lane),
        Some(B::SubgroupGeMask) => m4(all & !lanes(lane)),
        Some(B::SubgroupGtMask) => m4(all & !lanes(lane + 1)),
        Some(B::SubgroupLeMask) => m4(lanes(lane + 1)),
        Some(B::SubgroupLtMask) => m4(lanes(lane)),
        _ => [0; 4],
    }
}
