//! SPV_KHR_float_controls: the entry point's rounding and denormal execution modes.

use super::{Ctx, LoadError};
use crate::float::{FloatControls, Mode, Round};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, ExecutionMode as M, FPRoundingMode, Op};

impl Ctx<'_> {
    /// Reads RoundingModeRTE/RTZ, DenormPreserve/FlushToZero and SignedZeroInfNanPreserve of
    /// the entry point, per target width. RTE, DenormPreserve and SignedZeroInfNanPreserve are
    /// what the simulator does anyway; RTZ and DenormFlushToZero change how float arithmetic
    /// and conversions of that width round and treat denormals (see `float::arith`).
    pub(super) fn read_float_controls(&mut self, entry: u32) -> Result<FloatControls, LoadError> {
        let m = self.module;
        // Execution modes follow these sections in the module's instruction numbering.
        let base = m.capabilities.len()
            + m.extensions.len()
            + m.ext_inst_imports.len()
            + m.memory_model.iter().count()
            + m.entry_points.len();
        let mut fc = FloatControls::default();
        // What each width was given, to refuse contradictions: (rounding, denormals).
        let mut seen: [(Option<M>, Option<M>); 3] = [(None, None); 3];
        for (k, inst) in m.execution_modes.iter().enumerate() {
            if !matches!(inst.operands.first(), Some(Operand::IdRef(f)) if *f == entry) {
                continue;
            }
            let Some(Operand::ExecutionMode(mode)) = inst.operands.get(1) else {
                continue;
            };
            let mode = *mode;
            if !matches!(
                mode,
                M::RoundingModeRTE
                    | M::RoundingModeRTZ
                    | M::DenormPreserve
                    | M::DenormFlushToZero
                    | M::SignedZeroInfNanPreserve
            ) {
                continue;
            }
            self.cur_index = (base + k) as u32;
            let width = match inst.operands.get(2) {
                Some(Operand::LiteralBit32(w)) => *w,
                _ => return Err(self.invalid(inst, format!("{mode:?} without a target width"))),
            };
            let slot = match width {
                16 => 0,
                32 => 1,
                64 => 2,
                _ => {
                    return Err(self.unsupported(
                        inst,
                        format!("execution mode {mode:?} for {width}-bit floats (16, 32 or 64)"),
                    ))
                }
            };
            let (rounding, denorm) = &mut seen[slot];
            let (prev, this) = match mode {
                M::RoundingModeRTE | M::RoundingModeRTZ => (rounding, mode),
                M::DenormPreserve | M::DenormFlushToZero => (denorm, mode),
                _ => continue,
            };
            if prev.is_some_and(|p| p != this) {
                return Err(self.invalid(
                    inst,
                    format!(
                        "execution modes {:?} and {this:?} both given for {width}-bit floats",
                        prev.unwrap_or(this)
                    ),
                ));
            }
            *prev = Some(this);
            let Mode { round, ftz } = &mut fc.modes[slot];
            match mode {
                M::RoundingModeRTZ => *round = Round::Rtz,
                M::DenormFlushToZero => *ftz = true,
                _ => {}
            }
        }
        Ok(fc)
    }

    /// Notes every FPRoundingMode decoration (SPV_KHR_16bit_storage: on conversions), by
    /// target id.
    pub(super) fn read_fp_rounding_modes(&mut self) {
        for inst in &self.module.annotations {
            if let (
                Op::Decorate,
                [Operand::IdRef(t), Operand::Decoration(Decoration::FPRoundingMode), Operand::FPRoundingMode(m), ..],
            ) = (inst.class.opcode, inst.operands.as_slice())
            {
                self.fp_rounding.insert(*t, *m);
            }
        }
    }

    /// The rounding an FPRoundingMode decoration asks of this conversion, if any; one that
    /// rounds toward an infinity is refused (nothing here rounds that way). The decoration
    /// overrides the width's RoundingModeRTE/RTZ, as SPV_KHR_float_controls says.
    pub fn conversion_rounding(&self, inst: &Instruction) -> Result<Option<Round>, LoadError> {
        let Some(m) = inst.result_id.and_then(|r| self.fp_rounding.get(&r)) else {
            return Ok(None);
        };
        match m {
            FPRoundingMode::RTE => Ok(Some(Round::Rte)),
            FPRoundingMode::RTZ => Ok(Some(Round::Rtz)),
            _ => Err(self.unsupported(
                inst,
                format!("FPRoundingMode {m:?} (rounding toward an infinity)"),
            )),
        }
    }
}
