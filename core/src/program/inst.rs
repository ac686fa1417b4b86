//! Pre-decoded instructions. Every operand is a register slot (constants are materialised into
//! slots before execution), every type question is answered at load time.

use super::{BlockId, FuncId};
use crate::value::ScalarTy;

/// A register slot holding the first scalar component of a value; components follow.
pub type Opnd = u32;

// The ALU's operations belong to the numerics crate, beside their semantics.
pub use lanescope_numerics::alu::{BinOp, ConvOp, UnOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Load,
    Store,
    Exchange,
    CompareExchange,
    IIncrement,
    IDecrement,
    IAdd,
    ISub,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
    FAdd,
}

/// The combining operation of a subgroup reduction or scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    IAdd,
    FAdd,
    IMul,
    FMul,
    SMin,
    UMin,
    FMin,
    SMax,
    UMax,
    FMax,
    And,
    Or,
    Xor,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
}

/// Reduce, scan, clustered reduce or partitioned reduce/scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupOp {
    Reduce,
    InclusiveScan,
    ExclusiveScan,
    /// SPV_NV_shader_subgroup_partitioned: a reduce (`scan` None) or an inclusive (`Some(true)`)
    /// or exclusive scan over the lanes of each invocation's partition, given as a uvec4 ballot
    /// in the `ballot` slots.
    Partitioned {
        scan: Option<bool>,
        ballot: Opnd,
    },
    /// ClusterSize operand slot.
    Clustered(Opnd),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubgroupOp {
    Elect,
    All,
    Any,
    AllEqual,
    Broadcast {
        lane: Opnd,
    },
    BroadcastFirst,
    Ballot,
    InverseBallot,
    BallotBitExtract {
        index: Opnd,
    },
    BallotBitCount(GroupOp),
    BallotFindLsb,
    BallotFindMsb,
    Shuffle {
        lane: Opnd,
    },
    ShuffleXor {
        mask: Opnd,
    },
    ShuffleUp {
        delta: Opnd,
    },
    ShuffleDown {
        delta: Opnd,
    },
    Arith {
        op: ReduceOp,
        group: GroupOp,
    },
    QuadBroadcast {
        index: Opnd,
    },
    QuadSwap {
        direction: Opnd,
    },
    /// OpGroupNonUniformQuadAllKHR / QuadAnyKHR (SPV_KHR_quad_control): the predicate over
    /// the active lanes of each quad.
    QuadAll,
    QuadAny,
    /// OpGroupNonUniformPartitionNV: a ballot of the active lanes holding the same value.
    Partition,
    /// OpGroupNonUniformRotateKHR (Subgroup scope), with an optional ClusterSize.
    Rotate {
        delta: Opnd,
        cluster: Option<Opnd>,
    },
}

/// One step of an access chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessStep {
    /// A constant byte offset (struct members and constant indices, folded).
    Const(u32),
    /// A constant signed byte offset: an OpPtrAccessChain's constant Element, which may step
    /// back within the object.
    Shift(i64),
    /// `index * stride`, with the index read from a slot; `len` bounds it where known. An
    /// `element` (an OpPtrAccessChain's Element) may be negative.
    Dyn {
        index: Opnd,
        bits: u8,
        signed: bool,
        stride: u32,
        len: Option<u32>,
        element: bool,
    },
    /// The index into a descriptor array, read from a slot: it moves the pointer to the
    /// index-th of `count` consecutive resources (always the first step); `low` is 1 where
    /// the low bits name a sampler resource too (an image handle with its sampler).
    Descriptor {
        index: Opnd,
        bits: u8,
        signed: bool,
        count: u32,
        low: u8,
    },
}

/// A `NonSemantic.DebugPrintf` call. It takes no step of its own (it was no instruction of the
/// schedule before Lanescope printed): it runs at the start of the step of the instruction it
/// precedes in its block (`Block::printfs`), on that step's lanes.
#[derive(Clone, Debug)]
pub struct Printf {
    /// Module instruction index of the `OpExtInst`.
    pub instruction: u32,
    pub format: std::sync::Arc<crate::printf::Format>,
    /// The arguments' first slots, in order.
    pub args: Vec<Opnd>,
    pub tys: Vec<crate::printf::ArgTy>,
}

#[derive(Clone, Debug)]
pub enum Inst {
    Copy {
        dst: u32,
        src: Opnd,
        n: u32,
    },
    Un {
        op: UnOp,
        ty: ScalarTy,
        n: u32,
        dst: u32,
        a: Opnd,
    },
    Bin {
        op: BinOp,
        ty: ScalarTy,
        n: u32,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    /// Carry/borrow/extended multiply: two results of `n` components each.
    Wide {
        op: WideOp,
        ty: ScalarTy,
        n: u32,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    Conv {
        op: ConvOp,
        from: ScalarTy,
        to: ScalarTy,
        n: u32,
        dst: u32,
        a: Opnd,
        /// An FPRoundingMode decoration's rounding, over the float controls'.
        round: Option<crate::float::Round>,
    },
    /// Reinterpret bits: the source components concatenated (little-endian), re-split.
    Bitcast {
        from: Vec<ScalarTy>,
        to: Vec<ScalarTy>,
        dst: u32,
        a: Opnd,
    },
    Select {
        dst: u32,
        cond: Opnd,
        cond_vector: bool,
        a: Opnd,
        b: Opnd,
        n: u32,
    },
    /// An image instruction (boxed: rare and large).
    Image(Box<super::image::ImageInst>),
    /// A PhysicalStorageBuffer pointer from integer bits (OpConvertUToPtr, OpBitcast): `a` zero
    /// extended from `bits`, or with `pair` the two 32-bit words `a` (low) and `a + 1` (high).
    PtrFromBits {
        dst: u32,
        a: u32,
        bits: u8,
        pair: bool,
    },
    /// OpPtrDiff: the elements of `stride` bytes from `b` to `a` (pointers into one object),
    /// as a signed integer of `bits`.
    PtrDiff {
        dst: u32,
        a: Opnd,
        b: Opnd,
        stride: u32,
        bits: u8,
    },
    Shuffle {
        dst: u32,
        a: Opnd,
        b: Opnd,
        na: u32,
        comps: Vec<u32>,
    },
    Construct {
        dst: u32,
        parts: Vec<(Opnd, u32)>,
    },
    Insert {
        dst: u32,
        composite: Opnd,
        width: u32,
        object: Opnd,
        offset: u32,
        n: u32,
    },
    ExtractDyn {
        dst: u32,
        src: Opnd,
        len: u32,
        index: Opnd,
        index_bits: u8,
    },
    InsertDyn {
        dst: u32,
        src: Opnd,
        len: u32,
        object: Opnd,
        index: Opnd,
        index_bits: u8,
    },
    Any {
        dst: u32,
        a: Opnd,
        n: u32,
    },
    All {
        dst: u32,
        a: Opnd,
        n: u32,
    },
    Dot {
        ty: ScalarTy,
        n: u32,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    /// Vector or matrix times scalar.
    Scale {
        ty: ScalarTy,
        n: u32,
        dst: u32,
        a: Opnd,
        s: Opnd,
    },
    /// General column-major product: result (rows x cols) = A (rows x inner) * B (inner x cols).
    /// Vectors are matrices with one column (or one row for VectorTimesMatrix).
    MatMul {
        ty: ScalarTy,
        rows: u32,
        inner: u32,
        cols: u32,
        /// Stored transposed: the left operand is a row vector, indexed by `k` alone.
        dst: u32,
        a: Opnd,
        b: Opnd,
        a_row_vector: bool,
    },
    Transpose {
        dst: u32,
        a: Opnd,
        rows: u32,
        cols: u32,
    },
    /// A Function-storage variable: its pointer, and an initialiser to store.
    Variable {
        dst: u32,
        offset: u32,
        /// Bytes of the variable.
        size: u32,
        init: Option<(Opnd, u32)>,
    },
    Load {
        dst: u32,
        ptr: Opnd,
        leaves: u32,
        /// The value loaded is a PhysicalStorageBuffer pointer (kept inside the physical
        /// address space).
        physical: bool,
        /// The Aligned memory operand (0: none); checked on device addresses.
        align: u32,
    },
    Store {
        ptr: Opnd,
        src: Opnd,
        leaves: u32,
        /// The Aligned memory operand (0: none); checked on device addresses.
        align: u32,
    },
    CopyMemory {
        dst_ptr: Opnd,
        src_ptr: Opnd,
        dst_leaves: u32,
        src_leaves: u32,
    },
    AccessChain {
        dst: u32,
        base: Opnd,
        steps: Vec<AccessStep>,
    },
    ArrayLength {
        dst: u32,
        ptr: Opnd,
        member_offset: u32,
        stride: u32,
    },
    Atomic {
        op: AtomicOp,
        ty: ScalarTy,
        dst: Option<u32>,
        ptr: Opnd,
        value: Option<Opnd>,
        comparator: Option<Opnd>,
    },
    Ext {
        /// The GLSL.std.450 instruction's number.
        opcode: u32,
        out_tys: Vec<ScalarTy>,
        dst: u32,
        args: Vec<(Opnd, ScalarTy, u32)>,
        /// Modf/Frexp: pointer receiving the second half of the result, with its leaves.
        ptr_out: Option<(Opnd, u32)>,
    },
    /// OpSDot/OpUDot/OpSUDot and their AccSat forms (`acc` present).
    IntDot {
        kind: crate::dot::DotKind,
        /// Operands are 32-bit scalars holding four 8-bit components.
        packed: bool,
        comp_bits: u32,
        n: u32,
        result_bits: u32,
        dst: u32,
        a: Opnd,
        b: Opnd,
        acc: Option<Opnd>,
    },
    Subgroup {
        op: SubgroupOp,
        ty: ScalarTy,
        n: u32,
        dst: u32,
        a: Opnd,
    },
    Call {
        func: FuncId,
        dst: Option<(u32, u32)>,
        args: Vec<(Opnd, u32)>,
    },
    /// OpControlBarrier; `workgroup` when the execution scope is Workgroup. `memory` is its
    /// memory semantics, with those of OpMemoryBarriers just before it in the block (the
    /// `memoryBarrierBuffer(); barrier();` pattern) folded in.
    Barrier {
        workgroup: bool,
        memory: u32,
    },
    /// A cooperative-matrix operation (`crate::coopmat`).
    Coop(Box<crate::coopmat::CoopOp>),
}

impl Inst {
    /// The value operands this instruction reads, as (slot, components); pointers of memory
    /// operations are left out (what they point at is read from memory). The one list the
    /// loader's shape checks and poison tracking both use.
    pub fn reads(&self) -> Vec<(Opnd, u32)> {
        match self {
            Inst::Variable { .. } | Inst::Call { .. } | Inst::Barrier { .. } => vec![],
            Inst::Coop(op) => op.operands(),
            Inst::Copy { src, n, .. } => vec![(*src, *n)],
            Inst::Un { a, n, .. }
            | Inst::Conv { a, n, .. }
            | Inst::Any { a, n, .. }
            | Inst::All { a, n, .. } => vec![(*a, *n)],
            Inst::Bin { a, b, n, .. } | Inst::Wide { a, b, n, .. } | Inst::Dot { a, b, n, .. } => {
                vec![(*a, *n), (*b, *n)]
            }
            Inst::Bitcast { a, from, .. } => vec![(*a, from.len() as u32)],
            Inst::PtrDiff { a, b, .. } => vec![(*a, 1), (*b, 1)],
            Inst::PtrFromBits { a, pair, .. } => vec![(*a, 1 + u32::from(*pair))],
            Inst::Image(i) => {
                let mut v = vec![(i.image, 1)];
                if i.coord != u32::MAX {
                    v.push((i.coord, i.coord_n));
                }
                if i.value != u32::MAX {
                    v.push((i.value, i.value_n));
                }
                if let Some((l, _)) = i.lod {
                    v.push((l, 1));
                }
                if let Some((x, _)) = i.sample {
                    v.push((x, 1));
                }
                if let Some((o, n, _)) = i.offset {
                    v.push((o, n));
                }
                v
            }
            Inst::Select {
                cond,
                cond_vector,
                a,
                b,
                n,
                ..
            } => vec![
                (*cond, if *cond_vector { *n } else { 1 }),
                (*a, *n),
                (*b, *n),
            ],
            Inst::Shuffle {
                a, b, na, comps, ..
            } => {
                let nb = comps
                    .iter()
                    .filter(|c| **c != u32::MAX)
                    .map(|c| c + 1)
                    .max()
                    .unwrap_or(0)
                    .saturating_sub(*na);
                vec![(*a, *na), (*b, nb)]
            }
            Inst::Construct { parts, .. } => parts.clone(),
            Inst::Insert {
                composite,
                width,
                object,
                n,
                ..
            } => vec![(*composite, *width), (*object, *n)],
            Inst::ExtractDyn {
                src, len, index, ..
            } => vec![(*src, *len), (*index, 1)],
            Inst::InsertDyn {
                src,
                len,
                object,
                index,
                ..
            } => vec![(*src, *len), (*object, 1), (*index, 1)],
            Inst::Scale { a, n, s, .. } => vec![(*a, *n), (*s, 1)],
            Inst::MatMul {
                a,
                b,
                rows,
                inner,
                cols,
                a_row_vector,
                ..
            } => {
                let na = if *a_row_vector { *inner } else { rows * inner };
                vec![(*a, na), (*b, inner * cols)]
            }
            Inst::Transpose { a, rows, cols, .. } => vec![(*a, rows * cols)],
            Inst::Load { .. } | Inst::CopyMemory { .. } | Inst::ArrayLength { .. } => vec![],
            Inst::Store { .. } => vec![],
            Inst::AccessChain { steps, .. } => steps
                .iter()
                .filter_map(|s| match s {
                    AccessStep::Dyn { index, .. } | AccessStep::Descriptor { index, .. } => {
                        Some((*index, 1))
                    }
                    AccessStep::Const(_) | AccessStep::Shift(_) => None,
                })
                .collect(),
            Inst::Atomic {
                value, comparator, ..
            } => value.iter().chain(comparator).map(|v| (*v, 1)).collect(),
            Inst::Ext { args, .. } => args.iter().map(|(s, _, n)| (*s, *n)).collect(),
            Inst::IntDot {
                a,
                b,
                acc,
                packed,
                n,
                ..
            } => {
                let w = if *packed { 1 } else { *n };
                let mut v = vec![(*a, w), (*b, w)];
                v.extend(acc.map(|x| (x, 1)));
                v
            }
            Inst::Subgroup { a, n, op, .. } => {
                let mut v = if matches!(op, SubgroupOp::Elect) {
                    vec![]
                } else {
                    vec![(*a, *n)]
                };
                match op {
                    SubgroupOp::Broadcast { lane } | SubgroupOp::Shuffle { lane } => {
                        v.push((*lane, 1))
                    }
                    SubgroupOp::ShuffleXor { mask } => v.push((*mask, 1)),
                    SubgroupOp::ShuffleUp { delta }
                    | SubgroupOp::ShuffleDown { delta }
                    | SubgroupOp::Rotate { delta, .. } => v.push((*delta, 1)),
                    SubgroupOp::BallotBitExtract { index }
                    | SubgroupOp::QuadBroadcast { index } => v.push((*index, 1)),
                    SubgroupOp::Arith {
                        group: GroupOp::Partitioned { ballot, .. },
                        ..
                    } => v.push((*ballot, 4)),
                    _ => {}
                }
                v
            }
        }
    }

    /// The register range this instruction writes, as the executor writes it: (slot,
    /// components). `None` for instructions without a register result, and for loads, whose width
    /// is their leaf table's (see [`Inst::result`]).
    pub fn writes(&self) -> Option<(u32, u32)> {
        Some(match self {
            Inst::PtrDiff { dst, .. } | Inst::PtrFromBits { dst, .. } => (*dst, 1),
            Inst::Image(i) if i.dst != u32::MAX => (i.dst, i.n),
            Inst::Copy { dst, n, .. }
            | Inst::Un { dst, n, .. }
            | Inst::Bin { dst, n, .. }
            | Inst::Conv { dst, n, .. }
            | Inst::Select { dst, n, .. }
            | Inst::Scale { dst, n, .. } => (*dst, *n),
            Inst::Wide { dst, n, .. } => (*dst, 2 * n),
            Inst::Bitcast { dst, to, .. } => (*dst, to.len() as u32),
            Inst::Shuffle { dst, comps, .. } => (*dst, comps.len() as u32),
            Inst::Construct { dst, parts } => (*dst, parts.iter().map(|p| p.1).sum()),
            Inst::Insert { dst, width, .. } => (*dst, *width),
            Inst::InsertDyn { dst, len, .. } => (*dst, *len),
            Inst::MatMul {
                dst, rows, cols, ..
            }
            | Inst::Transpose {
                dst, rows, cols, ..
            } => (*dst, rows * cols),
            Inst::Ext {
                dst,
                out_tys,
                ptr_out,
                ..
            } => (
                *dst,
                if ptr_out.is_some() {
                    out_tys.len() as u32 / 2
                } else {
                    out_tys.len() as u32
                },
            ),
            Inst::Subgroup { dst, op, n, .. } => (
                *dst,
                match op {
                    SubgroupOp::Ballot | SubgroupOp::Partition => 4,
                    SubgroupOp::Elect
                    | SubgroupOp::All
                    | SubgroupOp::Any
                    | SubgroupOp::QuadAll
                    | SubgroupOp::QuadAny
                    | SubgroupOp::AllEqual
                    | SubgroupOp::InverseBallot
                    | SubgroupOp::BallotBitExtract { .. }
                    | SubgroupOp::BallotBitCount(_)
                    | SubgroupOp::BallotFindLsb
                    | SubgroupOp::BallotFindMsb => 1,
                    _ => *n,
                },
            ),
            Inst::ExtractDyn { dst, .. }
            | Inst::Any { dst, .. }
            | Inst::All { dst, .. }
            | Inst::Dot { dst, .. }
            | Inst::IntDot { dst, .. }
            | Inst::AccessChain { dst, .. }
            | Inst::ArrayLength { dst, .. }
            | Inst::Variable { dst, .. } => (*dst, 1),
            Inst::Atomic { dst: Some(d), .. } => (*d, 1),
            Inst::Coop(op) => return op.written(),
            Inst::Load { .. }
            | Inst::Store { .. }
            | Inst::CopyMemory { .. }
            | Inst::Atomic { dst: None, .. }
            | Inst::Image(_)
            | Inst::Call { .. }
            | Inst::Barrier { .. } => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideOp {
    AddCarry,
    SubBorrow,
    UMulExtended,
    SMulExtended,
}

#[derive(Clone, Debug)]
pub enum Terminator {
    Branch {
        target: BlockId,
    },
    BranchConditional {
        cond: Opnd,
        t: BlockId,
        f: BlockId,
    },
    Switch {
        selector: Opnd,
        bits: u8,
        default: BlockId,
        cases: Vec<(u64, BlockId)>,
    },
    Return,
    ReturnValue {
        src: Opnd,
        n: u32,
    },
    Unreachable,
    Kill,
}

/// Private instruction numbers for the bit-field ops, evaluated beside GLSL.std.450.
pub const BITFIELD_INSERT: u32 = 0x1_0000;
pub const BITFIELD_SEXTRACT: u32 = 0x1_0001;
pub const BITFIELD_UEXTRACT: u32 = 0x1_0002;
