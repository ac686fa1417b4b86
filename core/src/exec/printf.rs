//! Executing the debugPrintf calls attached to a step: one line per lane of the tangle, in
//! increasing lane order, before the step's own instruction (whose operands they may not be:
//! printing reads registers only).

use super::Mask;
use crate::printf::{PrintfLine, PrintfLog};
use crate::program::Block;

/// Where and when the lanes print.
pub struct At {
    pub workgroup: [u32; 3],
    pub subgroup: u32,
    pub subgroup_size: usize,
    pub step: u64,
    pub max_lines: usize,
}

/// Prints the calls of `block` attached to step `pos` for the lanes of `mask`.
pub fn emit(log: &mut PrintfLog, block: &Block, pos: u32, regs: &[u64], mask: Mask, at: &At) {
    let s = at.subgroup_size;
    for (_, p) in block.printfs.iter().filter(|(k, _)| *k == pos) {
        if log.len() >= at.max_lines {
            // Full: count what is lost without formatting it.
            log.count_dropped(u64::from(mask.count_ones()));
            continue;
        }
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let text = p.format.render(&p.tys, |arg, c| {
                regs.get((p.args[arg] + c) as usize * s + lane)
                    .copied()
                    .unwrap_or(0)
            });
            log.push(
                PrintfLine {
                    workgroup: at.workgroup,
                    invocation: (at.subgroup as usize * s + lane) as u32,
                    subgroup: at.subgroup,
                    lane: lane as u32,
                    step: at.step,
                    instruction: p.instruction,
                    text,
                },
                at.max_lines,
            );
        }
    }
}
