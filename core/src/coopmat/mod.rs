//! Cooperative matrices (SPV_KHR_cooperative_matrix).
//!
//! A cooperative-matrix value is one logical matrix per scope instance (a subgroup, or the
//! workgroup) seen through a *fragment layout* ([`layout`]): invocation `lane` holds element
//! `map[lane * length + i]` in its component `i`. In registers each invocation keeps its
//! `length` components (so copies, phis, calls, per-lane element access and element-wise
//! arithmetic are ordinary per-lane operations); every operation that is defined on the
//! logical matrix (load, store, MulAdd, conversions between layouts) gathers the logical
//! matrix through the layout (an element held by several lanes is read from the lowest one,
//! and a disagreement is reported), computes, and scatters the result back ([`exec`]).
//!
//! The layout is chosen at load time ([`crate::LoadOptions::coopmat_layout`]) because
//! `OpCooperativeMatrixLengthKHR` is a constant instruction.
//!
//! Layouts: `nvidia` as measured on the H100 (the default), `amd-rdna3`, `portable`, or a JSON
//! table; each states what it supports. Workgroup-scope operations wait like a barrier and run
//! once for the workgroup (`sim/coop.rs`). Diagnostics: `coopmat-partial-tangle`,
//! `coopmat-nonuniform-operand`, `coopmat-overflow`, `coopmat-invalid-stride`,
//! `coopmat-replica-mismatch`. `crate::portability` runs a shader under every layout that
//! supports it and lists the buffers that differ (`lanescope run --portability`). Views:
//! `Simulator::coop_value` (elements, holders), [`layouts`]. The MulAdd arithmetic (signedness,
//! saturation) is the numerics crate's, re-exported as [`arith`].

/// The MulAdd's arithmetic, from the numerics crate.
pub use lanescope_numerics::coopmat as arith;
pub mod exec;
pub mod layout;

pub use arith::{MulAddFlags, MulAddTypes};
pub use layout::{Fragment, LayoutChoice, Shape, Table, TableMatrix, Use};

use crate::program::{ConvOp, Inst, Opnd};
use crate::value::ScalarTy;

/// The built-in layouts with what each supports (for listings).
pub fn layouts() -> Vec<(String, Vec<String>)> {
    LayoutChoice::builtin()
        .into_iter()
        .map(|l| (l.name(), l.supported()))
        .collect()
}

/// A layout by built-in name, or a user table read from a `.json` file's text.
pub fn parse_layout(
    name: &str,
    read_file: impl Fn(&str) -> Result<String, String>,
) -> Result<LayoutChoice, String> {
    if let Some(l) = LayoutChoice::by_name(name) {
        return Ok(l);
    }
    if std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        let text = read_file(name)?;
        return Ok(LayoutChoice::Table(std::sync::Arc::new(Table::from_json(
            &text,
        )?)));
    }
    let names: Vec<String> = LayoutChoice::builtin()
        .iter()
        .map(LayoutChoice::name)
        .collect();
    Err(format!(
        "unknown cooperative-matrix layout `{name}`: use one of {} or a FILE.json table",
        names.join(", ")
    ))
}

/// `OpTypeCooperativeMatrixKHR`, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CoopType {
    /// The component type.
    pub elem: ScalarTy,
    /// Workgroup scope (else Subgroup).
    pub workgroup: bool,
    /// Number of rows.
    pub rows: u32,
    /// Number of columns.
    pub cols: u32,
    /// The matrix's `Use` (A, B or accumulator).
    pub use_: Use,
    /// Index in `Program::coop_frags`.
    pub frag: u32,
    /// Components per invocation under the layout.
    pub length: u32,
}

/// A dynamic stride operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stride {
    /// Register slot of the Stride operand.
    pub slot: Opnd,
    /// Width in bits of the Stride operand's integer type.
    pub bits: u8,
    /// Whether the Stride operand's integer type is signed.
    pub signed: bool,
}

/// A cooperative-matrix instruction, pre-decoded.
#[derive(Clone, Debug)]
pub enum CoopKind {
    /// `OpCooperativeMatrixLoadKHR` / `StoreKHR`: `value` is the result (load) or the object
    /// (store); element (r, c) is at byte `(major * stride) * unit + minor * elem size` from
    /// the pointer, with (major, minor) = (r, c) row-major or (c, r) column-major.
    Memory {
        /// True for `OpCooperativeMatrixStoreKHR`, false for a load.
        store: bool,
        /// Register slot of the result (load) or of the object (store).
        value: Opnd,
        /// The matrix type.
        ty: CoopType,
        /// Register slot of the Pointer operand (it must be uniform across the scope).
        ptr: Opnd,
        /// ColumnMajorKHR (else RowMajorKHR).
        col_major: bool,
        /// The Stride operand, in units of `unit` bytes (it must be uniform across the scope).
        stride: Stride,
        /// Size in bytes of the pointee type (the unit of Stride).
        unit: u32,
    },
    /// `OpCooperativeMatrixMulAddKHR`: Result = A x B + C.
    MulAdd {
        /// Register slot of the result.
        dst: Opnd,
        /// Register slot of A.
        a: Opnd,
        /// Register slot of B.
        b: Opnd,
        /// Register slot of C.
        c: Opnd,
        /// The types of A, B, C and the result.
        tys: [CoopType; 4],
        /// The shape (M, N, K) and component types, as the arithmetic takes them.
        types: MulAddTypes,
        /// The Cooperative Matrix Operands (signed components, saturating accumulation).
        flags: MulAddFlags,
    },
    /// A conversion or bitcast (`op` None) between types whose fragments differ: gathered,
    /// converted per element, scattered.
    Convert {
        /// The conversion; `None` for a bitcast.
        op: Option<ConvOp>,
        /// Register slot of the result.
        dst: Opnd,
        /// Register slot of the operand.
        a: Opnd,
        /// The operand's type.
        from: CoopType,
        /// The result's type.
        to: CoopType,
    },
    /// `OpCompositeConstruct` of a cooperative matrix: every component gets the constituent,
    /// which must be uniform across the scope.
    Splat {
        /// Register slot of the result.
        dst: Opnd,
        /// Register slot of the constituent.
        a: Opnd,
        /// The result type.
        ty: CoopType,
    },
    /// An element-wise instruction (negate, add, ..., `OpMatrixTimesScalar`, a conversion
    /// between types with the same fragment) executed per lane; `uniform` is a scalar operand
    /// that must be uniform across the scope.
    Elementwise {
        /// The per-lane instruction, run on each lane's components.
        inner: Box<Inst>,
        /// The result type (its scope is the operation's).
        ty: CoopType,
        /// Register slot of `OpMatrixTimesScalar`'s Scalar.
        uniform: Option<Opnd>,
    },
}

/// A pre-decoded cooperative-matrix instruction, as the executor runs it.
#[derive(Clone, Debug)]
pub struct CoopOp {
    /// What it does, with its operands.
    pub kind: CoopKind,
}

impl CoopOp {
    /// The scope of the operation.
    pub fn workgroup(&self) -> bool {
        self.ty().workgroup
    }

    /// The matrix type that defines the scope.
    pub fn ty(&self) -> &CoopType {
        match &self.kind {
            CoopKind::Memory { ty, .. }
            | CoopKind::Splat { ty, .. }
            | CoopKind::Elementwise { ty, .. } => ty,
            CoopKind::MulAdd { tys, .. } => &tys[3],
            CoopKind::Convert { to, .. } => to,
        }
    }

    /// Whether it moves data between invocations (and so, at Workgroup scope, waits for the
    /// whole workgroup).
    pub fn cross_lane(&self) -> bool {
        matches!(
            self.kind,
            CoopKind::Memory { .. } | CoopKind::MulAdd { .. } | CoopKind::Convert { .. }
        )
    }

    /// Whether it is an `OpCooperativeMatrixStoreKHR`.
    pub fn stores(&self) -> bool {
        matches!(self.kind, CoopKind::Memory { store: true, .. })
    }

    /// Value operands as (slot, width).
    pub fn operands(&self) -> Vec<(u32, u32)> {
        match &self.kind {
            CoopKind::Memory {
                store,
                value,
                ty,
                stride,
                ..
            } => {
                let mut v = vec![(stride.slot, 1)];
                if *store {
                    v.push((*value, ty.length));
                }
                v
            }
            CoopKind::MulAdd { a, b, c, tys, .. } => vec![
                (*a, tys[0].length),
                (*b, tys[1].length),
                (*c, tys[2].length),
            ],
            CoopKind::Convert { a, from, .. } => vec![(*a, from.length)],
            CoopKind::Splat { a, .. } => vec![(*a, 1)],
            CoopKind::Elementwise { inner, .. } => inner.reads(),
        }
    }

    /// The result as (slot, width).
    pub fn written(&self) -> Option<(u32, u32)> {
        match &self.kind {
            CoopKind::Memory {
                store: false,
                value,
                ty,
                ..
            } => Some((*value, ty.length)),
            CoopKind::Memory { .. } => None,
            CoopKind::MulAdd { dst, tys, .. } => Some((*dst, tys[3].length)),
            CoopKind::Convert { dst, to, .. } => Some((*dst, to.length)),
            CoopKind::Splat { dst, ty, .. } => Some((*dst, ty.length)),
            CoopKind::Elementwise { inner, .. } => inner.writes(),
        }
    }
}
