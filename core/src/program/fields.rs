//! A buffer's or push-constant block's scalars as the shader declares them: names, types and
//! offsets, for editors that show memory by its declaration rather than as raw words.

use super::{Layout, Program, Type, TypeId};
use crate::value::ScalarTy;

/// One scalar of a block: `path` as a shader writer would spell it (`data[3].pos.x`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The scalar's path from the variable's name, or from the member for an anonymous block
    /// (`data[3].pos.x`).
    pub path: String,
    /// Byte offset from the start of the buffer (or push constants).
    pub offset: u64,
    /// The scalar's type (a physical pointer shows as a 64-bit unsigned integer).
    pub ty: ScalarTy,
}

/// The scalars of a block over some bytes, in declaration order.
#[derive(Clone, Debug, Default)]
pub struct Fields {
    /// The scalars, in declaration order.
    pub fields: Vec<Field>,
    /// More scalars follow than were asked for.
    pub truncated: bool,
    /// The runtime array at the block's end, if any: (byte offset of element 0, stride).
    pub runtime_array: Option<(u64, u32)>,
}

/// Paths of vector components: `.x` .. `.w`, then indices.
const XYZW: [&str; 4] = ["x", "y", "z", "w"];

impl Program {
    /// The declared (pointee) type of resource `r`: for an element of a descriptor array, the
    /// array's element type.
    pub fn resource_type(&self, r: usize) -> Option<TypeId> {
        let res = self.resources.get(r)?;
        let (_, _, ptr) = *self.id_slots.get(&res.var)?;
        let Type::Pointer { pointee, .. } = self.types.get(ptr) else {
            return None;
        };
        match (res.element, self.types.get(*pointee)) {
            (Some(_), Type::Array { elem, .. }) => Some(*elem),
            _ => Some(*pointee),
        }
    }

    /// The scalars of resource `r` laid out over `len` bytes (a runtime array repeats as far as
    /// `len` reaches; scalars past `len` are left out), at most `max` of them.
    pub fn resource_fields(&self, r: usize, len: u64, max: usize) -> Fields {
        let mut out = Fields::default();
        let Some(t) = self.resource_type(r) else {
            return out;
        };
        // An anonymous block (`buffer Out { uint outp[]; }`) has no name: paths start at members.
        let mut path = self
            .resources
            .get(r)
            .filter(|res| self.names.contains_key(&res.var))
            .map(|res| res.name.clone())
            .unwrap_or_default();
        let mut w = Walk {
            p: self,
            len,
            max,
            out: &mut out,
            depth: 0,
        };
        w.walk(t, Layout::Plain, 0, &mut path);
        out
    }

    fn member_name(&self, t: TypeId, m: usize) -> String {
        let sid = self.types.spirv_ids.get(t as usize).copied().unwrap_or(0);
        match self.member_names.get(&(sid, m as u32)) {
            Some(n) if !n.is_empty() => n.clone(),
            _ => m.to_string(),
        }
    }
}

struct Walk<'a> {
    p: &'a Program,
    len: u64,
    max: usize,
    out: &'a mut Fields,
    depth: u32,
}

impl Walk<'_> {
    /// Pushes the scalars of a `t` at `base`; false once full (or past `len`).
    fn walk(&mut self, t: TypeId, layout: Layout, base: u64, path: &mut String) -> bool {
        if base >= self.len || self.depth > 64 {
            return base < self.len;
        }
        let types = &self.p.types;
        let keep = path.len();
        let ok = match types.get(t) {
            Type::Scalar(s) => self.leaf(path, base, *s),
            Type::Pointer { .. } => self.leaf(
                path,
                base,
                ScalarTy::Int {
                    bits: 64,
                    signed: false,
                },
            ),
            Type::Vector { elem, n } => {
                let step = match layout {
                    Layout::Strided { stride } => stride,
                    _ => elem.size_bytes(),
                };
                let mut ok = true;
                for i in 0..*n {
                    match XYZW.get(i as usize).filter(|_| *n <= 4) {
                        Some(c) => {
                            path.push('.');
                            path.push_str(c);
                        }
                        None => path.push_str(&format!("[{i}]")),
                    }
                    ok = self.leaf(path, base + u64::from(i * step), *elem);
                    path.truncate(keep);
                    if !ok {
                        break;
                    }
                }
                ok
            }
            Type::Struct { members, .. } => {
                let n = members.len();
                let ms = types.struct_members(t);
                let mut ok = true;
                for (m, (off, ml, mt)) in ms.into_iter().enumerate().take(n) {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&self.p.member_name(t, m));
                    if let Type::RuntimeArray { .. } = types.get(mt) {
                        if let Some((stride, ..)) = types.element_step(mt, ml) {
                            self.out.runtime_array = Some((base + u64::from(off), stride));
                        }
                    }
                    self.depth += 1;
                    ok = self.walk(mt, ml, base + u64::from(off), path);
                    self.depth -= 1;
                    path.truncate(keep);
                    if !ok {
                        break;
                    }
                }
                ok
            }
            Type::Matrix { .. } | Type::Array { .. } | Type::RuntimeArray { .. } => {
                let Some((stride, sub, elem, n)) = types.element_step(t, layout) else {
                    return true;
                };
                // A runtime array reaches as far as the bytes do.
                let n = n.map_or_else(
                    || (self.len - base).div_ceil(u64::from(stride.max(1))),
                    u64::from,
                );
                let mut ok = true;
                for i in 0..n {
                    path.push_str(&format!("[{i}]"));
                    self.depth += 1;
                    ok = self.walk(elem, sub, base + i * u64::from(stride), path);
                    self.depth -= 1;
                    path.truncate(keep);
                    if !ok {
                        break;
                    }
                }
                ok
            }
            _ => true,
        };
        ok
    }

    fn leaf(&mut self, path: &str, offset: u64, ty: ScalarTy) -> bool {
        if offset + u64::from(ty.size_bytes()) > self.len {
            return false;
        }
        if self.out.fields.len() >= self.max {
            self.out.truncated = true;
            return false;
        }
        self.out.fields.push(Field {
            path: path.to_owned(),
            offset,
            ty,
        });
        true
    }
}
