//! What the simulator reports: diagnostics, per-step events, tangle and lane views.
//! These are the plain data the CLI prints and the app draws.

use crate::exec::Mask;
use serde::Serialize;

/// Where an instruction came from in the source, when the module says: the innermost source
/// position, and the call sites it was inlined at (innermost first).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SourceRef {
    /// The file name as the module writes it (`OpString` / `DebugSource`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based; absent when the compiler gave none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inlined_at: Vec<crate::program::debug::Frame>,
}

impl SourceRef {
    /// `file:line:col` (or less, as known), for messages.
    pub fn describe(&self) -> Option<String> {
        let file = self.file.as_deref().unwrap_or("?");
        let line = self.line?;
        Some(match self.column {
            Some(c) => format!("{file}:{line}:{c}"),
            None => format!("{file}:{line}"),
        })
    }
}

/// A run-time finding: undefined behaviour or an undefined result, with where and who.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable kebab-case code, e.g. `out-of-bounds`, `inactive-source`, `undefined-result`.
    pub code: String,
    pub message: String,
    pub function: String,
    pub block: String,
    /// Index of the instruction in the module's instruction stream.
    pub instruction: u32,
    pub workgroup: [u32; 3],
    pub subgroup: u32,
    /// Lanes (within the subgroup) concerned.
    pub lanes: Vec<u32>,
    /// Step at which it was first seen.
    pub step: u64,
    /// The source position of the instruction, when the module carries line information.
    #[serde(flatten)]
    pub source: SourceRef,
}

/// One step: a tangle executing one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StepEvent {
    pub step: u64,
    /// Linear workgroup index.
    pub workgroup: u32,
    pub subgroup: u32,
    pub tangle: u64,
    /// Lane mask as a hexadecimal string (bit i = lane i).
    #[serde(serialize_with = "hex_mask")]
    pub lanes: Mask,
    /// Block index in the program.
    pub block: u32,
    /// Step index within the block (the last one is the terminator).
    pub inst: u32,
}

fn hex_mask<S: serde::Serializer>(m: &Mask, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{m:#x}"))
}

/// A tangle as the views show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TangleView {
    pub subgroup: u32,
    pub id: u64,
    pub lanes: Vec<u32>,
    pub function: String,
    pub block: String,
    pub block_index: u32,
    pub inst: u32,
    pub at_barrier: bool,
}

/// What one lane is doing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum LaneState {
    /// The subgroup is partial and has no such lane.
    Absent,
    Executing {
        tangle: u64,
    },
    AtBarrier {
        tangle: u64,
    },
    /// Waiting at a reconvergence point for `for_lanes`; `escaped` when it got there by
    /// leaving an inner construct (break, continue, return).
    Waiting {
        record: u32,
        kind: String,
        block: String,
        for_lanes: Vec<u32>,
        escaped: bool,
    },
    Finished,
}

/// A store of a poison (undefined) value into memory: where the undefined data went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PoisonStore {
    pub step: u64,
    pub function: String,
    pub block: String,
    pub instruction: u32,
    pub workgroup: [u32; 3],
    pub subgroup: u32,
    pub lanes: Vec<u32>,
    /// Storage class of the memory written, and for buffers their (set, binding).
    pub memory: String,
    pub binding: Option<(u32, u32)>,
    #[serde(flatten)]
    pub source: SourceRef,
}
