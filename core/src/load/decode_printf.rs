//! `NonSemantic.DebugPrintf` (GLSL's `debugPrintfEXT`, HLSL's `printf`). Its `OpExtInst`s
//! are debug-only instructions rspirv never parses (`SemanticStream`), so they are read from
//! the verbatim stream between a block's kept instructions and attached to the step they
//! precede: printing adds no step to the schedule.

use super::{Ctx, LoadError, Location};
use crate::printf::{ArgTy, Format};
use crate::program::{literal_string, Printf, Type};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// The module's `NonSemantic.DebugPrintf` imports and the strings their formats name.
#[derive(Default)]
pub(crate) struct Tables {
    read: bool,
    sets: Vec<u32>,
    strings: HashMap<u32, String>,
}

const OP_STRING: u32 = 7;
const OP_EXT_INST_IMPORT: u32 = 11;
const OP_EXT_INST: u32 = 12;
/// `DebugPrintf`, the set's one instruction.
const DEBUG_PRINTF: u32 = 1;

impl Ctx<'_> {
    fn printf_tables(&mut self) {
        if self.printf.read {
            return;
        }
        self.printf.read = true;
        for inst in self.raw.instructions() {
            match inst[0] & 0xffff {
                OP_EXT_INST_IMPORT
                    if inst.len() >= 3
                        && literal_string(&inst[2..]).0 == "NonSemantic.DebugPrintf" =>
                {
                    self.printf.sets.push(inst[1]);
                }
                OP_STRING if inst.len() >= 3 => {
                    self.printf
                        .strings
                        .insert(inst[1], literal_string(&inst[2..]).0);
                }
                _ => {}
            }
        }
    }

    /// The debugPrintf calls among the verbatim instructions `range` (those between two kept
    /// ones of a block), each attached to step `at` of the block.
    pub(super) fn lower_printfs(
        &mut self,
        range: Range<u32>,
        at: u32,
        out: &mut Vec<(u32, Printf)>,
    ) -> Result<(), LoadError> {
        self.printf_tables();
        if self.printf.sets.is_empty() {
            return Ok(());
        }
        for k in range {
            let raw = Arc::clone(&self.raw);
            let inst = raw.instruction(k as usize);
            if inst.len() < 5
                || inst[0] & 0xffff != OP_EXT_INST
                || !self.printf.sets.contains(&inst[3])
            {
                continue;
            }
            out.push((at, self.lower_printf(k, inst)?));
        }
        Ok(())
    }

    fn lower_printf(&mut self, k: u32, inst: &[u32]) -> Result<Printf, LoadError> {
        let at = self.printf_loc(k, inst[2]);
        let invalid = |what: String| LoadError::Invalid {
            what,
            at: at.clone(),
        };
        if inst[4] != DEBUG_PRINTF {
            return Err(invalid(format!(
                "NonSemantic.DebugPrintf has no instruction {} (DebugPrintf is 1)",
                inst[4]
            )));
        }
        let Some(&format_id) = inst.get(5) else {
            return Err(invalid("DebugPrintf without a Format operand".into()));
        };
        let Some(text) = self.printf.strings.get(&format_id).cloned() else {
            return Err(invalid(format!(
                "DebugPrintf's Format %{format_id} is not an OpString"
            )));
        };
        let shown = text.escape_debug().to_string();
        let refused = |e: crate::printf::FormatError| {
            let what = format!("debugPrintf format \"{shown}\": {}", e.what);
            if e.unsupported {
                LoadError::Unsupported {
                    what,
                    at: at.clone(),
                }
            } else {
                LoadError::Invalid {
                    what,
                    at: at.clone(),
                }
            }
        };
        let format = Format::parse(&text).map_err(refused)?;
        let mut args = Vec::new();
        let mut tys = Vec::new();
        for &id in &inst[6..] {
            let Some(&(slot, _, ty)) = self.slots.get(&id) else {
                return Err(invalid(format!(
                    "debugPrintf argument %{id} is not a value defined before its use"
                )));
            };
            let ty = match self.types.get(ty) {
                Type::Scalar(scalar) => ArgTy {
                    scalar: *scalar,
                    vector: 0,
                },
                Type::Vector { elem, n } => ArgTy {
                    scalar: *elem,
                    vector: *n,
                },
                _ => {
                    return Err(invalid(format!(
                        "debugPrintf argument %{id} is {}, not a float, integer or bool (or a vector of them)",
                        self.types.describe(ty)
                    )))
                }
            };
            args.push(slot);
            tys.push(ty);
        }
        format.check(&tys).map_err(refused)?;
        // Arguments past the specifiers are never printed (the layers ignore them too).
        let n = format.specs().count();
        args.truncate(n);
        tys.truncate(n);
        Ok(Printf {
            instruction: k,
            format: Arc::new(format),
            args,
            tys,
        })
    }

    /// Where instruction `k` (a printf, result `id`) is, for errors.
    fn printf_loc(&mut self, k: u32, id: u32) -> Location {
        let cur = self.cur_index;
        self.cur_index = k;
        let mut at = self.loc(None);
        self.cur_index = cur;
        at.opcode = Some("OpExtInst".into());
        at.id = Some(id);
        at
    }
}
