//! Types, their flattened scalar components and their memory layouts.

use crate::value::ScalarTy;

/// Index of a type in [`Types::types`].
pub type TypeId = u32;

/// A SPIR-V type as the loader resolved it.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `OpTypeVoid`.
    Void,
    /// A boolean, integer or floating-point scalar.
    Scalar(ScalarTy),
    /// A vector of `n` scalars.
    Vector {
        /// The component type.
        elem: ScalarTy,
        /// Number of components.
        n: u32,
    },
    /// Column-major: `cols` columns of vector type `col`.
    Matrix {
        /// The column type (a vector).
        col: TypeId,
        /// Number of columns.
        cols: u32,
        /// Number of rows (components of a column).
        rows: u32,
        /// The component type.
        elem: ScalarTy,
    },
    /// An array of a length known at load time.
    Array {
        /// The element type.
        elem: TypeId,
        /// Number of elements.
        len: u32,
        /// Bytes from one element to the next, when decorated with ArrayStride.
        stride: Option<u32>,
    },
    /// An array whose length the bound buffer decides.
    RuntimeArray {
        /// The element type.
        elem: TypeId,
        /// Bytes from one element to the next, when decorated with ArrayStride.
        stride: Option<u32>,
    },
    /// A structure.
    Struct {
        /// The member types, in order.
        members: Vec<TypeId>,
        /// Per member: its byte offset, where decorated with Offset.
        offsets: Vec<Option<u32>>,
        /// Per member: (MatrixStride, row-major) where decorated.
        matrix: Vec<Option<(u32, bool)>>,
    },
    /// A pointer.
    Pointer {
        /// The SPIR-V StorageClass value.
        storage_class: u32,
        /// The type pointed to.
        pointee: TypeId,
    },
    /// `OpTypeFunction` (its signature is not kept).
    Function,
    /// A cooperative matrix: per invocation, `length` components of `elem`.
    CoopMat(crate::coopmat::CoopType),
    /// An image: its value is a handle (the resource it came from, see `exec::image`).
    Image(super::image::ImageType),
    /// `OpTypeSampler`: its value is a handle.
    Sampler,
    /// An image with a sampler: a handle naming both.
    SampledImage(super::image::ImageType),
}

/// How a matrix (or a vector taken out of a row-major matrix) is laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// Natural or type-decorated layout.
    #[default]
    Plain,
    /// A matrix with an explicit MatrixStride and majorness.
    Matrix {
        /// MatrixStride: bytes from one column to the next (one row to the next when
        /// `row_major`).
        stride: u32,
        /// Decorated RowMajor.
        row_major: bool,
    },
    /// A column vector of a row-major matrix: components `stride` bytes apart.
    Strided {
        /// Bytes from one component to the next.
        stride: u32,
    },
}

/// One scalar leaf of a value in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Byte offset from the start of the value.
    pub offset: u32,
    /// The scalar type.
    pub ty: ScalarTy,
}

/// The module's types by [`TypeId`], with what is computed from each once.
#[derive(Clone, Debug, Default)]
pub struct Types {
    /// The types, by [`TypeId`].
    pub types: Vec<Type>,
    /// Flattened scalar component types of each type (empty for runtime arrays and opaque types).
    pub flat: Vec<Vec<ScalarTy>>,
    /// SPIR-V id of each type, for names.
    pub spirv_ids: Vec<u32>,
    /// Size in bytes of each type laid out plainly (saturating; see [`Types::size_u64`]),
    /// cached so nested aggregates cost linear time.
    sizes: Vec<u64>,
    /// Natural alignment of each type, cached for the same reason.
    aligns: Vec<u32>,
}

/// Largest type the loader accepts, in bytes: offsets inside any value then fit a `u32` with room.
pub const MAX_TYPE_BYTES: u64 = 1 << 30;

impl Types {
    /// Whether `t` is a PhysicalStorageBuffer pointer (its values are device addresses).
    pub fn is_physical_ptr(&self, t: TypeId) -> bool {
        matches!(self.get(t), Type::Pointer { storage_class, .. }
            if *storage_class == rspirv::spirv::StorageClass::PhysicalStorageBuffer as u32)
    }

    /// The type `t`.
    pub fn get(&self, t: TypeId) -> &Type {
        &self.types[t as usize]
    }

    /// Number of scalar components of a value of type `t`.
    pub fn width(&self, t: TypeId) -> u32 {
        self.flat[t as usize].len() as u32
    }

    /// Sets what a forward-declared pointer type (OpTypeForwardPointer) points to. Its size,
    /// alignment and scalar are those of every pointer, so nothing computed before changes.
    pub fn complete_pointer(&mut self, t: TypeId, ty: Type) {
        if let Some(slot) = self.types.get_mut(t as usize) {
            *slot = ty;
        }
    }

    /// Adds type `ty`, declared by SPIR-V id `spirv_id`, and returns its id. The types it names
    /// must be added already.
    pub fn add(&mut self, ty: Type, spirv_id: u32) -> TypeId {
        let flat = self.flatten(&ty);
        let align = self.align_of(&ty);
        self.types.push(ty);
        self.flat.push(flat);
        self.spirv_ids.push(spirv_id);
        self.aligns.push(align);
        let t = (self.types.len() - 1) as TypeId;
        // Struct and array sizes do not depend on the layout they are reached through.
        let size = self.compute_size(t, Layout::Plain);
        self.sizes.push(size);
        t
    }

    fn flatten(&self, ty: &Type) -> Vec<ScalarTy> {
        match ty {
            Type::Scalar(s) => vec![*s],
            Type::Vector { elem, n } => vec![*elem; *n as usize],
            Type::Matrix {
                elem, cols, rows, ..
            } => vec![*elem; (cols * rows) as usize],
            Type::Array { elem, len, .. } => {
                let e = &self.flat[*elem as usize];
                let mut v = Vec::with_capacity(e.len() * *len as usize);
                for _ in 0..*len {
                    v.extend_from_slice(e);
                }
                v
            }
            Type::Struct { members, .. } => members
                .iter()
                .flat_map(|m| self.flat[*m as usize].iter().copied())
                .collect(),
            // A pointer is one opaque 64-bit component.
            Type::Pointer { .. } | Type::Image(_) | Type::Sampler | Type::SampledImage(_) => {
                vec![ScalarTy::Int {
                    bits: 64,
                    signed: false,
                }]
            }
            Type::CoopMat(c) => vec![c.elem; c.length as usize],
            _ => vec![],
        }
    }

    /// Natural alignment (bytes) of a type in memory without explicit layout.
    pub fn align(&self, t: TypeId) -> u32 {
        self.aligns[t as usize]
    }

    fn align_of(&self, ty: &Type) -> u32 {
        match ty {
            Type::Scalar(s) => s.size_bytes(),
            Type::Vector { elem, n } => {
                let n = if *n == 3 { 4 } else { *n };
                elem.size_bytes() * n.min(4)
            }
            Type::Matrix { col, .. } => self.align(*col),
            Type::Array { elem, .. } | Type::RuntimeArray { elem, .. } => self.align(*elem),
            Type::Struct { members, .. } => {
                members.iter().map(|m| self.align(*m)).max().unwrap_or(1)
            }
            Type::Pointer { .. } | Type::Image(_) | Type::Sampler | Type::SampledImage(_) => 8,
            Type::CoopMat(c) => c.elem.size_bytes(),
            _ => 1,
        }
    }

    /// Size in bytes (for runtime arrays, 0; for a struct ending in one, the fixed part).
    /// Types the loader accepted are at most [`MAX_TYPE_BYTES`].
    pub fn size(&self, t: TypeId) -> u32 {
        self.size_u64(t).min(u64::from(u32::MAX)) as u32
    }

    /// Size in bytes, saturating instead of wrapping (the loader rejects what is too large).
    pub fn size_u64(&self, t: TypeId) -> u64 {
        self.sizes[t as usize]
    }

    fn size_in(&self, t: TypeId, layout: Layout) -> u64 {
        match self.get(t) {
            Type::Vector { .. } | Type::Matrix { .. } if layout != Layout::Plain => {
                self.compute_size(t, layout)
            }
            _ => self.sizes[t as usize],
        }
    }

    fn compute_size(&self, t: TypeId, layout: Layout) -> u64 {
        let m = |a: u32, b: u32| u64::from(a) * u64::from(b);
        match self.get(t) {
            Type::Scalar(s) => u64::from(s.size_bytes()),
            Type::Vector { elem, n } => match layout {
                Layout::Strided { stride } => m(stride, n - 1) + u64::from(elem.size_bytes()),
                _ => m(elem.size_bytes(), *n),
            },
            Type::Matrix {
                col,
                cols,
                rows,
                elem,
            } => match layout {
                Layout::Matrix {
                    stride,
                    row_major: false,
                } => m(stride, cols - 1) + self.size_u64(*col),
                Layout::Matrix {
                    stride,
                    row_major: true,
                } => m(stride, rows - 1) + m(elem.size_bytes(), *cols),
                _ => m(self.natural_col_stride(*col), *cols),
            },
            Type::Array { elem, len, stride } => {
                let s = stride.unwrap_or_else(|| self.natural_stride(*elem));
                m(s, *len)
            }
            Type::RuntimeArray { .. } => 0,
            Type::Struct { .. } => self
                .member_spans(t)
                .map(|(off, ml, mt)| off.saturating_add(self.size_in(mt, ml)))
                .max()
                .unwrap_or(0),
            Type::Pointer { .. } | Type::Image(_) | Type::Sampler | Type::SampledImage(_) => 8,
            Type::CoopMat(c) => m(c.elem.size_bytes(), c.length),
            _ => 0,
        }
    }

    /// Byte offset, layout and type of each member of struct `t`: Offset decorations where
    /// present, else naturally aligned after the previous member.
    pub(crate) fn struct_members(&self, t: TypeId) -> Vec<(u32, Layout, TypeId)> {
        // Offsets of accepted types are below MAX_TYPE_BYTES; saturate rather than wrap.
        self.member_spans(t)
            .map(|(off, ml, mt)| (off.min(u64::from(u32::MAX)) as u32, ml, mt))
            .collect()
    }

    fn member_spans(&self, t: TypeId) -> impl Iterator<Item = (u64, Layout, TypeId)> + '_ {
        let (members, offsets, matrix) = match self.get(t) {
            Type::Struct {
                members,
                offsets,
                matrix,
            } => (members.as_slice(), offsets.as_slice(), matrix.as_slice()),
            _ => (&[][..], &[][..], &[][..]),
        };
        let mut cursor = 0u64;
        members.iter().enumerate().map(move |(i, m)| {
            let off = offsets[i].map_or_else(|| round_up_u64(cursor, self.align(*m)), u64::from);
            let ml = matrix[i].map_or(Layout::Plain, |(stride, row_major)| Layout::Matrix {
                stride,
                row_major,
            });
            cursor = off.saturating_add(self.size_in(*m, ml));
            (off, ml, *m)
        })
    }

    fn natural_col_stride(&self, col: TypeId) -> u32 {
        round_up(self.size(col), self.align(col))
    }

    /// Stride of an array element without an ArrayStride decoration.
    pub fn natural_stride(&self, elem: TypeId) -> u32 {
        round_up_u64(self.size_u64(elem), self.align(elem)).clamp(1, u64::from(u32::MAX)) as u32
    }

    /// The memory location of every scalar leaf of a value of type `t` stored at offset 0.
    pub fn leaves(&self, t: TypeId, layout: Layout) -> Vec<Leaf> {
        let mut out = Vec::with_capacity(self.flat[t as usize].len());
        self.push_leaves(t, layout, 0, &mut out);
        out
    }

    fn push_leaves(&self, t: TypeId, layout: Layout, base: u32, out: &mut Vec<Leaf>) {
        match self.get(t) {
            Type::Scalar(s) => out.push(Leaf {
                offset: base,
                ty: *s,
            }),
            Type::Vector { elem, n } => {
                let step = match layout {
                    Layout::Strided { stride } => stride,
                    _ => elem.size_bytes(),
                };
                for i in 0..*n {
                    out.push(Leaf {
                        offset: base + i * step,
                        ty: *elem,
                    });
                }
            }
            Type::Matrix {
                col,
                cols,
                rows,
                elem,
            } => {
                let (col_step, row_step) = match layout {
                    Layout::Matrix {
                        stride,
                        row_major: true,
                    } => (elem.size_bytes(), stride),
                    Layout::Matrix { stride, .. } => (stride, elem.size_bytes()),
                    _ => (self.natural_col_stride(*col), elem.size_bytes()),
                };
                for c in 0..*cols {
                    for r in 0..*rows {
                        out.push(Leaf {
                            offset: base + c * col_step + r * row_step,
                            ty: *elem,
                        });
                    }
                }
            }
            Type::Array { elem, len, stride } => {
                let s = stride.unwrap_or_else(|| self.natural_stride(*elem));
                for i in 0..*len {
                    self.push_leaves(*elem, layout, base + i * s, out);
                }
            }
            Type::Struct { .. } => {
                for (off, ml, m) in self.struct_members(t) {
                    self.push_leaves(m, ml, base + off, out);
                }
            }
            Type::Pointer { .. } => out.push(Leaf {
                offset: base,
                ty: ScalarTy::Int {
                    bits: 64,
                    signed: false,
                },
            }),
            Type::CoopMat(c) => {
                for i in 0..c.length {
                    out.push(Leaf {
                        offset: base + i * c.elem.size_bytes(),
                        ty: c.elem,
                    });
                }
            }
            _ => {}
        }
    }

    /// Byte offset and layout of member/element `index` of a value of type `t` laid out with
    /// `layout`, and the member's type. `None` when `index` is out of range.
    pub fn member(&self, t: TypeId, layout: Layout, index: u32) -> Option<(u32, Layout, TypeId)> {
        match self.get(t) {
            Type::Struct { .. } => self.struct_members(t).get(index as usize).copied(),
            _ => {
                let (stride, sub_layout, elem, len) = self.element_step(t, layout)?;
                if len.is_some_and(|n| index >= n) {
                    return None;
                }
                Some((index * stride, sub_layout, elem))
            }
        }
    }

    /// For an indexable non-struct type: (stride, element layout, element type, length if fixed).
    pub fn element_step(
        &self,
        t: TypeId,
        layout: Layout,
    ) -> Option<(u32, Layout, TypeId, Option<u32>)> {
        match self.get(t) {
            Type::Vector { n, elem } => {
                let stride = match layout {
                    Layout::Strided { stride } => stride,
                    _ => elem.size_bytes(),
                };
                // The element type of a vector is looked up by the caller (scalar types are
                // interned), so report TypeId::MAX here and let the caller substitute.
                Some((stride, Layout::Plain, TypeId::MAX, Some(*n)))
            }
            // The invocation's own components (a per-lane view through the layout).
            Type::CoopMat(c) => Some((
                c.elem.size_bytes(),
                Layout::Plain,
                TypeId::MAX,
                Some(c.length),
            )),
            Type::Matrix {
                col, cols, elem, ..
            } => match layout {
                Layout::Matrix {
                    stride,
                    row_major: true,
                } => Some((
                    elem.size_bytes(),
                    Layout::Strided { stride },
                    *col,
                    Some(*cols),
                )),
                Layout::Matrix { stride, .. } => Some((stride, Layout::Plain, *col, Some(*cols))),
                _ => Some((
                    self.natural_col_stride(*col),
                    Layout::Plain,
                    *col,
                    Some(*cols),
                )),
            },
            Type::Array { elem, len, stride } => Some((
                stride.unwrap_or_else(|| self.natural_stride(*elem)),
                layout_for_elem(layout),
                *elem,
                Some(*len),
            )),
            Type::RuntimeArray { elem, stride } => Some((
                stride.unwrap_or_else(|| self.natural_stride(*elem)),
                layout_for_elem(layout),
                *elem,
                None,
            )),
            _ => None,
        }
    }

    /// Offset (in flattened components) and width of member `index` of a value of type `t`.
    pub fn component_range(&self, t: TypeId, index: u32) -> Option<(u32, u32, TypeId)> {
        match self.get(t) {
            Type::Vector { n, .. } => (index < *n).then_some((index, 1, TypeId::MAX)),
            Type::CoopMat(c) => (index < c.length).then_some((index, 1, TypeId::MAX)),
            Type::Matrix {
                col, cols, rows, ..
            } => (index < *cols).then_some((index * rows, *rows, *col)),
            Type::Array { elem, len, .. } => {
                let w = self.width(*elem);
                (index < *len).then_some((index * w, w, *elem))
            }
            Type::Struct { members, .. } => {
                let mut off = 0;
                for (i, m) in members.iter().enumerate() {
                    if i as u32 == index {
                        return Some((off, self.width(*m), *m));
                    }
                    off += self.width(*m);
                }
                None
            }
            _ => None,
        }
    }

    /// Describe a type the way spirv-dis would print its shape.
    pub fn describe(&self, t: TypeId) -> String {
        match self.get(t) {
            Type::Void => "void".into(),
            Type::Scalar(s) => scalar_name(*s),
            Type::Vector { elem, n } => format!("v{n}{}", scalar_name(*elem)),
            Type::Matrix {
                cols, rows, elem, ..
            } => format!("mat{cols}x{rows}{}", scalar_name(*elem)),
            Type::Array { elem, len, .. } => format!("{}[{len}]", self.describe(*elem)),
            Type::RuntimeArray { elem, .. } => format!("{}[]", self.describe(*elem)),
            Type::Struct { members, .. } => {
                let m: Vec<String> = members.iter().map(|m| self.describe(*m)).collect();
                format!("struct{{{}}}", m.join(", "))
            }
            // A physical pointer may point to a struct holding pointers of its own type (a
            // linked list): name the pointee without describing it again.
            Type::Pointer { pointee, .. } if self.is_physical_ptr(t) => match self.get(*pointee) {
                Type::Struct { .. } => "ptr<PhysicalStorageBuffer, struct>".into(),
                _ => format!("ptr<PhysicalStorageBuffer, {}>", self.describe(*pointee)),
            },
            Type::Pointer { pointee, .. } => format!("ptr<{}>", self.describe(*pointee)),
            Type::Function => "function".into(),
            Type::CoopMat(c) => format!(
                "coopmat<{}, {}, {}x{}, {}>",
                scalar_name(c.elem),
                if c.workgroup { "Workgroup" } else { "Subgroup" },
                c.rows,
                c.cols,
                c.use_.name()
            ),
            Type::Image(i) => i.describe(),
            Type::SampledImage(i) => format!("sampled {}", i.describe()),
            Type::Sampler => "sampler".into(),
        }
    }
}

fn layout_for_elem(layout: Layout) -> Layout {
    // A matrix layout decorated on a member applies to every matrix inside arrays of it.
    match layout {
        Layout::Matrix { .. } => layout,
        _ => Layout::Plain,
    }
}

/// The short name of a scalar type: `bool`, `i32`, `u8`, `f16`, `bf16`.
pub fn scalar_name(s: ScalarTy) -> String {
    match s {
        ScalarTy::Bool => "bool".into(),
        ScalarTy::Int { bits, signed: true } => format!("i{bits}"),
        ScalarTy::Int { bits, .. } => format!("u{bits}"),
        ScalarTy::Float { bits } => format!("f{bits}"),
        ScalarTy::BFloat16 => "bf16".into(),
    }
}

/// `x` rounded up to a multiple of `a` (`x` when `a` is 0 or 1), saturating at `u32::MAX`.
pub fn round_up(x: u32, a: u32) -> u32 {
    round_up_u64(u64::from(x), a).min(u64::from(u32::MAX)) as u32
}

fn round_up_u64(x: u64, a: u32) -> u64 {
    if a <= 1 {
        x
    } else {
        x.div_ceil(u64::from(a)) * u64::from(a)
    }
}
