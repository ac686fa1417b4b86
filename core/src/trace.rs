//! What the simulator reports: diagnostics, per-step events, tangle and lane views.
//! These are the plain data the CLI prints and the app draws.

use crate::lanes::Mask;
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
    /// The call sites the instruction was inlined at, innermost first.
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

/// What a diagnostic is about: a stable code, serialized as its kebab-case name (the table in
/// the README lists them all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagCode {
    /// A load, store, access chain or vector index outside its memory or array.
    OutOfBounds,
    /// An instruction whose result the spec leaves undefined for these operands (division by
    /// zero, a shift too large, a conversion out of range, ...).
    UndefinedResult,
    /// A subgroup operation read a lane outside the tangle or the subgroup.
    InactiveSource,
    /// A rotate read a lane that is not in the tangle.
    RotateInactiveSource,
    /// A ClusterSize that is not a power of two no larger than the subgroup.
    InvalidClusterSize,
    /// A rotate's Delta differs across the tangle.
    NonuniformDelta,
    /// An operand that must be dynamically uniform differs across the tangle.
    NonuniformOperand,
    /// A product or sum of an AccSat dot product overflows before the saturation.
    DotOverflow,
    /// A control barrier not reached by every invocation of its scope, or at different
    /// barriers.
    BarrierDivergence,
    /// The trace reached its step limit.
    TraceLimit,
    /// A cooperative-matrix operation executed by part of its scope.
    CoopmatPartialTangle,
    /// Copies of one matrix element disagree between the lanes holding them.
    CoopmatReplicaMismatch,
    /// A cooperative-matrix operand that must be uniform is not.
    CoopmatNonuniformOperand,
    /// A cooperative-matrix load or store with an invalid stride.
    CoopmatInvalidStride,
    /// A cooperative-matrix MulAdd overflowed.
    CoopmatOverflow,
    /// An instruction Lanescope cannot evaluate for these operands.
    Unsupported,
    /// Invocations reached OpUnreachable (undefined behaviour).
    Unreachable,
    /// Two accesses to the same memory from different invocations, at least one a write and
    /// not both atomic, that nothing in the memory model orders.
    DataRace,
    /// A value read from memory nobody wrote (Workgroup, Private or Function memory without an
    /// initializer) or an OpUndef, used where it shows.
    UninitializedRead,
    /// A device-address access not aligned as its Aligned memory operand says.
    Misaligned,
}

impl DiagCode {
    /// Every code, in the README table's order.
    pub const ALL: [Self; 20] = [
        Self::OutOfBounds,
        Self::UndefinedResult,
        Self::InactiveSource,
        Self::RotateInactiveSource,
        Self::InvalidClusterSize,
        Self::NonuniformDelta,
        Self::NonuniformOperand,
        Self::DotOverflow,
        Self::BarrierDivergence,
        Self::TraceLimit,
        Self::CoopmatPartialTangle,
        Self::CoopmatReplicaMismatch,
        Self::CoopmatNonuniformOperand,
        Self::CoopmatInvalidStride,
        Self::CoopmatOverflow,
        Self::Unsupported,
        Self::Unreachable,
        Self::DataRace,
        Self::UninitializedRead,
        Self::Misaligned,
    ];

    /// The stable kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OutOfBounds => "out-of-bounds",
            Self::UndefinedResult => "undefined-result",
            Self::InactiveSource => "inactive-source",
            Self::RotateInactiveSource => "rotate-inactive-source",
            Self::InvalidClusterSize => "invalid-cluster-size",
            Self::NonuniformDelta => "nonuniform-delta",
            Self::NonuniformOperand => "nonuniform-operand",
            Self::DotOverflow => "dot-overflow",
            Self::BarrierDivergence => "barrier-divergence",
            Self::TraceLimit => "trace-limit",
            Self::CoopmatPartialTangle => "coopmat-partial-tangle",
            Self::CoopmatReplicaMismatch => "coopmat-replica-mismatch",
            Self::CoopmatNonuniformOperand => "coopmat-nonuniform-operand",
            Self::CoopmatInvalidStride => "coopmat-invalid-stride",
            Self::CoopmatOverflow => "coopmat-overflow",
            Self::Unsupported => "unsupported",
            Self::Unreachable => "unreachable",
            Self::DataRace => "data-race",
            Self::UninitializedRead => "uninitialized-read",
            Self::Misaligned => "misaligned",
        }
    }

    /// The rule broken, in a sentence, for people reading a diagnostic.
    pub fn explanation(self) -> &'static str {
        match self {
            Self::OutOfBounds => "A load, store or index must stay inside its memory or array; outside, a load reads an undefined value and a store may write anywhere (Lanescope reads 0 and drops the store).",
            Self::UndefinedResult => "Some operands give an undefined result: integer division by zero, a shift by the width or more, a float-to-integer conversion out of range, an empty ballot's FindLSB/MSB.",
            Self::InactiveSource => "A shuffle, broadcast or similar read a lane that is not executing it with the reader (outside the tangle) or outside the subgroup: the value read is undefined.",
            Self::RotateInactiveSource => "OpGroupNonUniformRotateKHR read a lane that is not in the tangle: the value is undefined (SPV_KHR_subgroup_rotate).",
            Self::InvalidClusterSize => "ClusterSize must be a constant power of two no larger than the subgroup.",
            Self::NonuniformDelta => "A rotate's Delta must be dynamically uniform within the tangle (SPV_KHR_subgroup_rotate).",
            Self::NonuniformOperand => "This operand must be dynamically uniform: the same in every invocation of the tangle.",
            Self::DotOverflow => "An AccSat integer dot product whose products or sum overflow the result type before the saturating addition has an undefined result (SPV_KHR_integer_dot_product).",
            Self::BarrierDivergence => "Every invocation of an OpControlBarrier's execution scope must execute the same dynamic instance of it; one that exited or waits at another barrier makes it undefined behaviour.",
            Self::TraceLimit => "The trace stopped recording at its step limit; later steps are not in it.",
            Self::CoopmatPartialTangle => "A cooperative-matrix operation must be executed by every invocation of its scope together (SPV_KHR_cooperative_matrix).",
            Self::CoopmatReplicaMismatch => "Invocations that hold copies of one matrix element disagree on its value.",
            Self::CoopmatNonuniformOperand => "This cooperative-matrix operand must be the same in every invocation of the scope.",
            Self::CoopmatInvalidStride => "A cooperative-matrix load or store's stride must be a valid row or column stride for the matrix.",
            Self::CoopmatOverflow => "A cooperative-matrix MulAdd overflowed its result type.",
            Self::Unsupported => "Lanescope cannot evaluate this instruction for these operands.",
            Self::Unreachable => "Executing OpUnreachable (or terminating an invocation in a compute shader) is undefined behaviour.",
            Self::DataRace => "Two accesses to the same memory from different invocations, at least one a write and not both atomic, must be ordered by the memory model (a barrier with the right scope and semantics); otherwise the result is undefined. Running in lockstep in one subgroup does not count.",
            Self::UninitializedRead => "Workgroup, Private and Function memory without an initializer, and OpUndef, hold undefined values until written; using such a value where it shows (stored, branched on, used as an address, fed to a subgroup operation) gives undefined results.",
            Self::Misaligned => "A load or store through a PhysicalStorageBuffer pointer with an Aligned memory operand must use an address that is a multiple of it; otherwise the behaviour is undefined (Lanescope still performs the access).",
        }
    }

    /// Where the rule is written, in the public SPIR-V or Vulkan specifications.
    pub fn spec_url(self) -> &'static str {
        match self {
            Self::DataRace => "https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#memory-model",
            Self::BarrierDivergence => "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html#OpControlBarrier",
            Self::UninitializedRead => "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html#OpVariable",
            Self::RotateInactiveSource | Self::NonuniformDelta | Self::InvalidClusterSize => "https://github.khronos.org/SPIRV-Registry/extensions/KHR/SPV_KHR_subgroup_rotate.html",
            Self::DotOverflow => "https://github.khronos.org/SPIRV-Registry/extensions/KHR/SPV_KHR_integer_dot_product.html",
            Self::CoopmatPartialTangle
            | Self::CoopmatReplicaMismatch
            | Self::CoopmatNonuniformOperand
            | Self::CoopmatInvalidStride
            | Self::CoopmatOverflow => "https://github.khronos.org/SPIRV-Registry/extensions/KHR/SPV_KHR_cooperative_matrix.html",
            Self::InactiveSource | Self::NonuniformOperand => "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html#_non_uniform_instructions",
            Self::OutOfBounds => "https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#shaders-robust-buffer-access",
            Self::Misaligned => "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html#Memory_Operands",
            Self::UndefinedResult | Self::Unreachable | Self::Unsupported | Self::TraceLimit => "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html",
        }
    }

    /// Whether the lanes it names get an undefined (poison) value.
    pub fn makes_poison(self) -> bool {
        matches!(
            self,
            Self::UndefinedResult
                | Self::CoopmatOverflow
                | Self::CoopmatPartialTangle
                | Self::CoopmatReplicaMismatch
                | Self::InactiveSource
                | Self::RotateInactiveSource
                | Self::DotOverflow
                | Self::OutOfBounds
        )
    }
}

impl std::fmt::Display for DiagCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for DiagCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A run-time finding: undefined behaviour or an undefined result, with where and who.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable code, serialized kebab-case (`out-of-bounds`, `inactive-source`, ...).
    pub code: DiagCode,
    /// What went wrong, in a sentence for people, with the values concerned.
    pub message: String,
    /// The function the instruction is in (its `OpName`, or `%id`).
    pub function: String,
    /// The block the instruction is in (its `OpName`, or `%id`).
    pub block: String,
    /// Index of the instruction in the module's instruction stream.
    pub instruction: u32,
    /// The workgroup's id (`WorkgroupId`).
    pub workgroup: [u32; 3],
    /// Index of the subgroup within its workgroup.
    pub subgroup: u32,
    /// Lanes (within the subgroup) concerned.
    pub lanes: Vec<u32>,
    /// Step at which it was first seen.
    pub step: u64,
    /// The source position of the instruction, when the module carries line information.
    #[serde(flatten)]
    pub source: SourceRef,
    /// For a data race: the two accesses, earlier first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accesses: Vec<AccessRef>,
    /// The memory concerned: its byte address within its memory, and the variable (with the
    /// member or element) it is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<u64>,
    /// The variable holding `address`, with the member or element path to it
    /// (`data.values[7].x`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
    /// A race between invocations of one subgroup: only their lockstep execution orders them
    /// here, which the memory model does not promise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lockstep: bool,
    /// For a data race: false when the value the racing read returned reached nothing
    /// observable by the end of the run (never stored to a buffer, branched on, used as an
    /// address or index, fed to an atomic or subgroup operation). Still a race: the read's
    /// value is undefined, only nothing depended on it this time. Only a race whose read is
    /// the later access (a load) is followed; one whose read came first (its uses already
    /// ran), or whose read is an atomic's or a copy's, counts as observed. True for every
    /// other diagnostic.
    #[serde(skip_serializing_if = "is_true")]
    pub observed: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Diagnostic {
    /// Why an unobserved race still matters, for people reading it (None when observed).
    pub fn unobserved_note(&self) -> Option<&'static str> {
        (!self.observed).then_some(
            "unobserved: the value the racing read returned reached nothing observable in this run, but the read is still undefined behaviour (another order or an optimizing compiler may use it)",
        )
    }
}

/// One access of a data race.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AccessRef {
    /// Local invocation index within its workgroup.
    pub invocation: u32,
    /// The invocation's workgroup id (`WorkgroupId`).
    pub workgroup: [u32; 3],
    /// Module instruction index.
    pub instruction: u32,
    /// The source file of the instruction, when the module has line information.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based source line of the instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// `read`, `write` or `atomic`.
    pub kind: &'static str,
    /// The step that made it (to go back to it).
    pub step: u64,
}

/// One step: a tangle executing one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StepEvent {
    /// Number of this step in the run (1-based: the first step is 1).
    pub step: u64,
    /// Linear workgroup index.
    pub workgroup: u32,
    /// Index of the subgroup within its workgroup.
    pub subgroup: u32,
    /// Id of the tangle that ran it (as in [`TangleView::id`]).
    pub tangle: u64,
    /// Lane mask as a hexadecimal string (bit i = lane i).
    #[serde(serialize_with = "hex_mask")]
    pub lanes: Mask,
    /// Block index in the program.
    pub block: u32,
    /// Position of the instruction within the block's lowered instructions (the last one is
    /// the terminator); `inst` in the trace file.
    #[serde(rename = "inst")]
    pub pos: u32,
}

fn hex_mask<S: serde::Serializer>(m: &Mask, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{m:#x}"))
}

/// A tangle: which lanes, where (block and step within it; [`crate::program::Program`] names
/// them), and whether it waits at a barrier. Plain data: a step allocates no text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TangleView {
    /// Index of the subgroup within the current workgroup.
    pub subgroup: u32,
    /// Unique within a run: a new id each time a tangle forms (at the start of a workgroup,
    /// a divergence or a reconvergence).
    pub id: u64,
    /// The lanes (within the subgroup) it holds.
    pub lanes: crate::lanes::LaneMask,
    /// Index of its block in [`crate::program::Program::blocks`].
    pub block: u32,
    /// Position of its next instruction within the block's lowered instructions (the last
    /// one is the terminator).
    pub pos: u32,
    /// Whether it waits for the rest of its workgroup, at a Workgroup-scope control barrier or a
    /// Workgroup-scope cooperative-matrix operation.
    pub at_barrier: bool,
}

/// The kind of reconvergence point lanes wait at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaitKind {
    /// The merge block of an `OpSelectionMerge` of an if.
    SelectionMerge,
    /// The merge block of an `OpSelectionMerge` of a switch.
    SwitchMerge,
    /// A switch target, under per-case tangle grouping.
    SwitchTarget,
    /// The merge block of an `OpLoopMerge`.
    LoopMerge,
    /// The continue target of one loop iteration.
    ContinueTarget,
    /// The return from an `OpFunctionCall`.
    FunctionReturn,
}

impl WaitKind {
    /// The kind in lower-case words (`selection merge`), for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::SelectionMerge => "selection merge",
            Self::SwitchMerge => "switch merge",
            Self::SwitchTarget => "switch target",
            Self::LoopMerge => "loop merge",
            Self::ContinueTarget => "continue target",
            Self::FunctionReturn => "function return",
        }
    }
}

/// What one lane is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneState {
    /// The subgroup is partial and has no such lane.
    Absent,
    /// In tangle `tangle`, running or ready to run.
    Executing {
        /// Id of its tangle ([`TangleView::id`]).
        tangle: u64,
    },
    /// In tangle `tangle`, waiting for the rest of the workgroup at a barrier (see
    /// [`TangleView::at_barrier`]).
    AtBarrier {
        /// Id of its tangle ([`TangleView::id`]).
        tangle: u64,
    },
    /// Waiting at a reconvergence point for `for_lanes`; `escaped` when it got there by
    /// leaving an inner construct (break, continue, return).
    Waiting {
        /// Index of the reconvergence record in its subgroup.
        record: u32,
        /// Which kind of reconvergence point it is.
        kind: WaitKind,
        /// The block they wait at (its index in the program).
        block: u32,
        /// The lanes still to arrive.
        for_lanes: crate::lanes::LaneMask,
        /// True when this lane got there by leaving an inner construct.
        escaped: bool,
    },
    /// Done: the invocation has returned from the entry point (or terminated).
    Finished,
}

/// A store of a poison (undefined) value into memory: where the undefined data went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PoisonStore {
    /// Number of the step that made the store (as in [`StepEvent::step`]).
    pub step: u64,
    /// The function of the storing instruction (its `OpName`, or `%id`).
    pub function: String,
    /// The block of the storing instruction (its `OpName`, or `%id`).
    pub block: String,
    /// Index of the storing instruction in the module's instruction stream.
    pub instruction: u32,
    /// The workgroup's id (`WorkgroupId`).
    pub workgroup: [u32; 3],
    /// Index of the subgroup within its workgroup.
    pub subgroup: u32,
    /// Lanes (within the subgroup) that stored a poison value.
    pub lanes: Vec<u32>,
    /// Storage class of the memory written, and for buffers their (set, binding).
    pub memory: String,
    /// The (set, binding) of the buffer written; `None` for other memory.
    pub binding: Option<(u32, u32)>,
    /// The source position of the storing instruction.
    #[serde(flatten)]
    pub source: SourceRef,
}
