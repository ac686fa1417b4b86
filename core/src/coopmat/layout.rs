//! Fragment layouts: which invocation of a scope instance holds which element of a cooperative
//! matrix, in which of its `OpCooperativeMatrixLengthKHR` components.
//!
//! A layout is a pure function from a matrix description ([`Shape`]) to a [`Fragment`] (the
//! table (lane, component) -> element), or an error naming what it does not support. Every
//! layout states the shapes and component types it supports ([`LayoutChoice::supported`]).
//!
//! - `nvidia`: measured on an NVIDIA H100 (subgroup size 32); the formula and the measured
//!   configurations are in `core/tests/reference/README.md` (from the upstream reference set).
//! - `amd-rdna3`: AMD RDNA3 WMMA, wave32, 16x16 tiles. Sources: AMD GPUOpen, "How to accelerate
//!   AI applications on RDNA 3 using WMMA" (A/B: lanes 0-15 and 16-31 each hold the full set of
//!   rows of A / columns of B, so every A/B element is held by two lanes; 16 components) and the
//!   RDNA3 ISA guide's WMMA section; the accumulator order "lane n, value v -> row 2v + n/16,
//!   column n % 16" (8 components) was also confirmed against a hardware-validated layout fix
//!   (ROCm FlyDSL PR 485, gfx1151).
//! - `portable`: any shape and type: row-major element index `e = row * cols + col` dealt
//!   round-robin, lane `e % lanes`, component `e / lanes`.
//! - a user table (JSON, see `assets/README.md`).

use crate::value::ScalarTy;
use std::sync::Arc;

/// `Use` of a cooperative matrix type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Use {
    /// `MatrixAKHR`: the left operand of a MulAdd.
    A,
    /// `MatrixBKHR`: the right operand of a MulAdd.
    B,
    /// `MatrixAccumulatorKHR`: the addend and the result of a MulAdd.
    Accumulator,
}

impl Use {
    /// The `Use` with SPIR-V value `v` (0, 1 or 2).
    pub fn from_spirv(v: u64) -> Option<Self> {
        match v {
            0 => Some(Self::A),
            1 => Some(Self::B),
            2 => Some(Self::Accumulator),
            _ => None,
        }
    }

    /// The name for messages (`MatrixA`, `MatrixB`, `MatrixAccumulator`).
    pub fn name(self) -> &'static str {
        match self {
            Self::A => "MatrixA",
            Self::B => "MatrixB",
            Self::Accumulator => "MatrixAccumulator",
        }
    }
}

/// What a layout is asked to lay out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The matrix's `Use`.
    pub use_: Use,
    /// The component type.
    pub elem: ScalarTy,
    /// Number of rows.
    pub rows: u32,
    /// Number of columns.
    pub cols: u32,
    /// Invocations of one scope instance (the subgroup size, or the workgroup size).
    pub lanes: u32,
    /// Workgroup scope (else Subgroup).
    pub workgroup: bool,
}

impl Shape {
    /// The shape for messages: `MatrixA 16x16 f16 (Subgroup scope, 32 invocations)`.
    pub fn describe(&self) -> String {
        format!(
            "{} {}x{} {} ({} scope, {} invocations)",
            self.use_.name(),
            self.rows,
            self.cols,
            crate::program::scalar_name(self.elem),
            if self.workgroup {
                "Workgroup"
            } else {
                "Subgroup"
            },
            self.lanes
        )
    }
}

/// Marks a padding component (holds no element).
pub const NONE: u32 = u32::MAX;

/// The element <-> (lane, component) tables of one matrix type under one layout.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fragment {
    /// Invocations of one scope instance.
    pub lanes: u32,
    /// Components per invocation (`OpCooperativeMatrixLengthKHR`).
    pub length: u32,
    /// Number of rows of the matrix.
    pub rows: u32,
    /// Number of columns of the matrix.
    pub cols: u32,
    /// `lane * length + component` -> element `row * cols + col`, or [`NONE`].
    pub map: Vec<u32>,
    /// Element -> its first holder (`lane * length + component`, lowest lane first).
    pub owner: Vec<u32>,
    /// Whether some element is held by more than one component.
    pub replicated: bool,
}

impl Fragment {
    /// Build from the forward map, checking every entry and that every element is held.
    pub fn from_map(
        lanes: u32,
        length: u32,
        rows: u32,
        cols: u32,
        map: Vec<u32>,
    ) -> Result<Self, String> {
        let n = (rows as usize) * (cols as usize);
        if map.len() != lanes as usize * length as usize {
            return Err(format!(
                "the table has {} entries; {lanes} lanes x {length} components need {}",
                map.len(),
                lanes as usize * length as usize
            ));
        }
        let mut owner = vec![NONE; n];
        let mut count = vec![0u32; n];
        for (h, &e) in map.iter().enumerate() {
            if e == NONE {
                continue;
            }
            let Some(c) = count.get_mut(e as usize) else {
                return Err(format!(
                    "element index {e} outside the {rows}x{cols} matrix"
                ));
            };
            *c += 1;
            if owner[e as usize] == NONE {
                owner[e as usize] = h as u32;
            }
        }
        if let Some(e) = owner.iter().position(|o| *o == NONE) {
            return Err(format!(
                "element ({}, {}) is held by no lane",
                e as u32 / cols,
                e as u32 % cols
            ));
        }
        Ok(Self {
            lanes,
            length,
            rows,
            cols,
            map,
            owner,
            replicated: count.iter().any(|c| *c > 1),
        })
    }

    /// Number of elements of the matrix (`rows * cols`).
    pub fn elements(&self) -> usize {
        self.owner.len()
    }

    /// Element held by `lane` in `component`, as (row, col).
    pub fn element_at(&self, lane: u32, component: u32) -> Option<(u32, u32)> {
        if component >= self.length {
            return None;
        }
        let e = *self.map.get((lane * self.length + component) as usize)?;
        (e != NONE).then(|| (e / self.cols, e % self.cols))
    }

    /// Every (lane, component) holding element (row, col).
    pub fn holders(&self, row: u32, col: u32) -> Vec<(u32, u32)> {
        let e = row * self.cols + col;
        self.map
            .iter()
            .enumerate()
            .filter(|(_, x)| **x == e)
            .map(|(h, _)| (h as u32 / self.length, h as u32 % self.length))
            .collect()
    }
}

/// A user-defined layout read from JSON (format in `assets/README.md`), or one measured on a
/// device.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Table {
    /// The layout's name (in listings and messages).
    pub name: String,
    /// Invocations of one scope instance: the table lays out only matrices spread over this many.
    pub lanes: u32,
    /// The matrix types it lays out; for a shape, the first entry that matches is used.
    pub matrices: Vec<TableMatrix>,
}

/// One matrix type of a [`Table`]: which matrices it applies to and where their elements are.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableMatrix {
    /// The `Use` it applies to.
    #[serde(rename = "use")]
    pub use_: Use,
    /// Number of rows.
    pub rows: u32,
    /// Number of columns.
    pub cols: u32,
    /// Component types this entry applies to (`f16`, `bf16`, `f32`, `f64`, `i8`, `u8`, ... as
    /// `scalar_name` writes them); absent: every type.
    #[serde(default)]
    pub types: Option<Vec<String>>,
    /// One list per lane: for each component, `[row, col]` or `null` (padding).
    pub components: Vec<Vec<Option<[u32; 2]>>>,
}

impl Table {
    /// Parse and check a JSON table: every matrix entry must build a valid fragment.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let t: Self = serde_json::from_str(text).map_err(|e| format!("layout table: {e}"))?;
        t.check()?;
        Ok(t)
    }

    /// Checks the table as [`Table::from_json`] does: a name, 1 to 4096 lanes, and every
    /// matrix entry a valid fragment (each element held, every entry inside the matrix).
    pub fn check(&self) -> Result<(), String> {
        if self.name.is_empty() || self.lanes == 0 || self.lanes > 4096 {
            return Err("layout table: needs a name and 1 to 4096 lanes".into());
        }
        for (i, m) in self.matrices.iter().enumerate() {
            self.build(m)
                .map_err(|e| format!("layout table `{}`, matrix {i}: {e}", self.name))?;
        }
        Ok(())
    }

    fn build(&self, m: &TableMatrix) -> Result<Fragment, String> {
        if m.components.len() != self.lanes as usize {
            return Err(format!(
                "{} lane lists for {} lanes",
                m.components.len(),
                self.lanes
            ));
        }
        let length = m.components.first().map_or(0, Vec::len) as u32;
        if length == 0 || m.components.iter().any(|l| l.len() as u32 != length) {
            return Err("every lane must list the same, nonzero number of components".into());
        }
        if m.rows == 0 || m.cols == 0 || u64::from(m.rows) * u64::from(m.cols) > 1 << 20 {
            return Err(format!("bad shape {}x{}", m.rows, m.cols));
        }
        let mut map = Vec::with_capacity(self.lanes as usize * length as usize);
        for lane in &m.components {
            for c in lane {
                map.push(match c {
                    None => NONE,
                    Some([r, col]) if *r < m.rows && *col < m.cols => r * m.cols + col,
                    Some([r, col]) => {
                        return Err(format!(
                            "element ({r}, {col}) outside {}x{}",
                            m.rows, m.cols
                        ))
                    }
                });
            }
        }
        Fragment::from_map(self.lanes, length, m.rows, m.cols, map)
    }
}

/// The layout a run uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LayoutChoice {
    /// Measured on an NVIDIA H100: Subgroup scope, 32 lanes, the shapes the driver offers.
    #[default]
    Nvidia,
    /// AMD RDNA3 WMMA: Subgroup scope, wave32, 16x16 tiles.
    AmdRdna3,
    /// Any shape, type and scope: row-major elements dealt round-robin over the lanes.
    Portable,
    /// A user table read from JSON.
    Table(Arc<Table>),
}

impl LayoutChoice {
    /// The built-in layouts (`--coopmat-layout` names).
    pub fn builtin() -> Vec<Self> {
        vec![Self::Nvidia, Self::AmdRdna3, Self::Portable]
    }

    /// The built-in layout named `name` (`nvidia`, `amd-rdna3`, `portable`).
    pub fn by_name(name: &str) -> Option<Self> {
        Self::builtin().into_iter().find(|l| l.name() == name)
    }

    /// The name: a built-in layout's `--coopmat-layout` name, or the table's own.
    pub fn name(&self) -> String {
        match self {
            Self::Nvidia => "nvidia".into(),
            Self::AmdRdna3 => "amd-rdna3".into(),
            Self::Portable => "portable".into(),
            Self::Table(t) => t.name.clone(),
        }
    }

    /// What this layout supports, one line per family of matrix types.
    pub fn supported(&self) -> Vec<String> {
        match self {
            Self::Nvidia => NVIDIA
                .iter()
                .map(|(u, types, shapes)| {
                    let s: Vec<String> = shapes.iter().map(|(r, c)| format!("{r}x{c}")).collect();
                    format!(
                        "{} {} {} (Subgroup scope, 32 lanes)",
                        u.name(),
                        types.join("/"),
                        s.join(", ")
                    )
                })
                .collect(),
            Self::AmdRdna3 => vec![
                "MatrixA f16/bf16/i8/u8 16x16 (Subgroup scope, 32 lanes; 16 components, every element held by 2 lanes)".into(),
                "MatrixB f16/bf16/i8/u8 16x16 (Subgroup scope, 32 lanes; 16 components, every element held by 2 lanes)".into(),
                "MatrixAccumulator f32/f16/bf16/i32/u32 16x16 (Subgroup scope, 32 lanes; 8 components)".into(),
            ],
            Self::Portable => vec!["every use, component type, shape and scope".into()],
            Self::Table(t) => t
                .matrices
                .iter()
                .map(|m| {
                    format!(
                        "{} {} {}x{} ({} lanes)",
                        m.use_.name(),
                        m.types.as_ref().map_or_else(|| "any type".into(), |v| v.join("/")),
                        m.rows,
                        m.cols,
                        t.lanes
                    )
                })
                .collect(),
        }
    }

    /// The fragment of a matrix type, or why this layout cannot lay it out.
    pub fn fragment(&self, s: &Shape) -> Result<Fragment, String> {
        let unsupported = |why: &str| {
            Err(format!(
                "layout `{}` does not support {}{why}; it supports: {}. Choose another layout (`portable` lays out every shape)",
                self.name(),
                s.describe(),
                self.supported().join("; ")
            ))
        };
        if s.rows == 0 || s.cols == 0 || u64::from(s.rows) * u64::from(s.cols) > 1 << 20 {
            return Err(format!("a {}x{} cooperative matrix", s.rows, s.cols));
        }
        if s.lanes == 0 || s.lanes > crate::lanes::HARD_MAX_INVOCATIONS {
            return Err(format!(
                "a cooperative matrix spread over {} invocations",
                s.lanes
            ));
        }
        match self {
            Self::Nvidia => {
                if s.workgroup || s.lanes != 32 {
                    return unsupported("");
                }
                let name = crate::program::scalar_name(s.elem);
                let ok = NVIDIA.iter().any(|(u, types, shapes)| {
                    *u == s.use_
                        && types.iter().any(|t| type_matches(t, &name))
                        && shapes.contains(&(s.rows, s.cols))
                });
                if !ok {
                    return unsupported("");
                }
                Ok(nvidia(s))
            }
            Self::AmdRdna3 => {
                let name = crate::program::scalar_name(s.elem);
                let types: &[&str] = match s.use_ {
                    Use::A | Use::B => &["f16", "bf16", "i8", "u8"],
                    Use::Accumulator => &["f32", "f16", "bf16", "i32", "u32"],
                };
                if s.workgroup
                    || s.lanes != 32
                    || (s.rows, s.cols) != (16, 16)
                    || !types.contains(&name.as_str())
                {
                    return unsupported("");
                }
                Ok(amd_rdna3(s.use_))
            }
            Self::Portable => Ok(portable(s.rows, s.cols, s.lanes)),
            Self::Table(t) => {
                let name = crate::program::scalar_name(s.elem);
                let m = t.matrices.iter().find(|m| {
                    m.use_ == s.use_
                        && (m.rows, m.cols) == (s.rows, s.cols)
                        && m.types
                            .as_ref()
                            .is_none_or(|v| v.iter().any(|x| type_matches(x, &name)))
                });
                match m {
                    Some(m) if t.lanes == s.lanes => t.build(m),
                    _ => unsupported(""),
                }
            }
        }
    }
}

/// `i8` in a support list matches both signednesses of 8-bit integers (SPIR-V types the
/// signedness separately from the operations).
fn type_matches(listed: &str, actual: &str) -> bool {
    listed == actual
        || (listed.starts_with(['i', 'u'])
            && actual.starts_with(['i', 'u'])
            && listed[1..] == actual[1..])
}

type NvidiaEntry = (Use, &'static [&'static str], &'static [(u32, u32)]);

/// The configurations the H100 driver offered, by operand (see the reference README):
/// f16 x f16 -> f16/f32 at 16x16x16, 16x8x16, 16x8x8; u8/s8 -> u32/s32 at 16x16x32, 16x8x32;
/// bf16 -> f32 at 16x16x16.
const NVIDIA: [NvidiaEntry; 7] = [
    (Use::A, &["f16"], &[(16, 16), (16, 8)]),
    (Use::A, &["bf16"], &[(16, 16)]),
    (Use::A, &["i8"], &[(16, 32)]),
    (Use::B, &["f16"], &[(16, 16), (16, 8), (8, 8)]),
    (Use::B, &["bf16"], &[(16, 16)]),
    (Use::B, &["i8"], &[(32, 16), (32, 8)]),
    (
        Use::Accumulator,
        &["f16", "f32", "i32"],
        &[(16, 16), (16, 8)],
    ),
];

fn nvidia(s: &Shape) -> Fragment {
    let bits = s.elem.bits();
    let p = match s.use_ {
        Use::Accumulator => 2,
        _ => 32 / bits,
    };
    let length = s.rows * s.cols / 32;
    let mut map = Vec::with_capacity((32 * length) as usize);
    for lane in 0..32 {
        let (g, t) = (lane >> 2, lane & 3);
        for i in 0..length {
            let j = i % p;
            let (row, col) = match s.use_ {
                Use::B => {
                    let nrt = s.rows / (4 * p);
                    let (rt, ct) = ((i / p) % nrt, i / (p * nrt));
                    (4 * p * rt + p * t + j, 8 * ct + g)
                }
                _ => {
                    let w = if s.use_ == Use::A { 4 * p } else { 8 };
                    let nct = s.cols / w;
                    let (ct, rt) = ((i / p) % nct, i / (p * nct));
                    (8 * rt + g, w * ct + p * t + j)
                }
            };
            map.push(row * s.cols + col);
        }
    }
    Fragment::from_map(32, length, s.rows, s.cols, map)
        .expect("the nvidia formula covers its shapes")
}

fn amd_rdna3(u: Use) -> Fragment {
    let length = if u == Use::Accumulator { 8 } else { 16 };
    let mut map = Vec::with_capacity(32 * length as usize);
    for lane in 0..32u32 {
        for i in 0..length {
            let (row, col) = match u {
                Use::A => (lane % 16, i),
                Use::B => (i, lane % 16),
                Use::Accumulator => (2 * i + lane / 16, lane % 16),
            };
            map.push(row * 16 + col);
        }
    }
    Fragment::from_map(32, length, 16, 16, map).expect("the RDNA3 tables cover 16x16")
}

fn portable(rows: u32, cols: u32, lanes: u32) -> Fragment {
    let n = rows * cols;
    let length = n.div_ceil(lanes);
    let mut map = Vec::with_capacity((lanes * length) as usize);
    for lane in 0..lanes {
        for i in 0..length {
            let e = i * lanes + lane;
            map.push(if e < n { e } else { NONE });
        }
    }
    Fragment::from_map(lanes, length, rows, cols, map).expect("round-robin covers every element")
}

/// Every entry of the nvidia support table, for listings and tests.
pub fn nvidia_configurations() -> Vec<(Use, &'static str, u32, u32)> {
    NVIDIA
        .iter()
        .flat_map(|(u, types, shapes)| {
            types
                .iter()
                .flat_map(move |t| shapes.iter().map(move |(r, c)| (*u, *t, *r, *c)))
        })
        .collect()
}

#[cfg(test)]
mod tests;
