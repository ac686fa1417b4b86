//! Friendly names for ids, derived as SPIRV-Tools' `FriendlyNameMapper` does: OpName strings
//! (sanitized), built-in variables, type shapes (`uint`, `v4float`, `_ptr_StorageBuffer_uint`,
//! `_arr_uint_uint_4`), constants (`uint_0`, `int_n1`, `float_0_5`), with `_0`, `_1`, ...
//! appended to repeats, in the order the module declares them.

use std::collections::{HashMap, HashSet};

use rspirv::grammar::OperandKind as K;
use rspirv::spirv::{self, Op};

use super::binary::{string_bytes, Module};
use super::grammar::{self, Ty};
use super::number::format_literal;

pub(crate) struct Names {
    by_id: HashMap<u32, String>,
    used: HashSet<String>,
}

impl Names {
    pub(crate) fn new(m: &Module) -> Self {
        let mut names = Names {
            by_id: HashMap::new(),
            used: HashSet::new(),
        };
        for inst in &m.insts {
            names.visit(m, inst);
        }
        names
    }

    /// An id's name; ids the module never names (forward or dangling references) keep their
    /// number.
    pub(crate) fn get(&self, id: u32) -> String {
        self.by_id
            .get(&id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    fn save(&mut self, id: u32, suggested: &[u8]) {
        if self.by_id.contains_key(&id) {
            return;
        }
        let base = sanitize(suggested);
        let mut name = base.clone();
        let mut index = 0u32;
        while self.used.contains(&name) {
            name = format!("{base}_{index}");
            index += 1;
        }
        self.used.insert(name.clone());
        self.by_id.insert(id, name);
    }

    fn save_str(&mut self, id: u32, suggested: &str) {
        self.save(id, suggested.as_bytes());
    }

    fn visit(&mut self, m: &Module, inst: &super::binary::Inst) {
        let words = m.inst_words(inst);
        let w = |i: usize| words.get(i).copied().unwrap_or(0);
        let result = inst.result_id;
        let Some(op) = Op::from_u32(inst.opcode) else {
            return;
        };
        match op {
            Op::Name => {
                let bytes = inst
                    .operands
                    .get(1)
                    .map(|o| string_bytes(m.operand_words(inst, o)))
                    .unwrap_or_default();
                self.save(w(1), &bytes);
            }
            Op::Decorate => {
                if w(2) == spirv::Decoration::BuiltIn as u32 {
                    if let Some(name) = builtin_name(w(3)) {
                        self.save_str(w(1), &name);
                    }
                }
            }
            Op::TypeVoid => self.save_str(result, "void"),
            Op::TypeBool => self.save_str(result, "bool"),
            Op::TypeInt => {
                let width = w(2);
                let (mut sign, root) = match width {
                    8 => ("", "char".to_string()),
                    16 => ("", "short".to_string()),
                    32 => ("", "int".to_string()),
                    64 => ("", "long".to_string()),
                    _ => ("i", width.to_string()),
                };
                if w(3) == 0 {
                    sign = "u";
                }
                self.save_str(result, &format!("{sign}{root}"));
            }
            Op::TypeFloat => {
                let encoding = (words.len() > 3)
                    .then(|| spirv::FPEncoding::from_u32(w(3)))
                    .flatten();
                let name = match encoding {
                    Some(spirv::FPEncoding::BFloat16KHR) => "bfloat16".to_string(),
                    Some(spirv::FPEncoding::Float8E4M3EXT) => "fp8e4m3".to_string(),
                    Some(spirv::FPEncoding::Float8E5M2EXT) => "fp8e5m2".to_string(),
                    _ => match w(2) {
                        16 => "half".to_string(),
                        32 => "float".to_string(),
                        64 => "double".to_string(),
                        width => format!("fp{width}"),
                    },
                };
                self.save_str(result, &name);
            }
            Op::TypeVector => {
                let name = format!("v{}{}", w(3), self.get(w(2)));
                self.save_str(result, &name);
            }
            Op::TypeMatrix => {
                let name = format!("mat{}{}", w(3), self.get(w(2)));
                self.save_str(result, &name);
            }
            Op::TypeArray => {
                let name = format!("_arr_{}_{}", self.get(w(2)), self.get(w(3)));
                self.save_str(result, &name);
            }
            Op::TypeRuntimeArray => {
                let name = format!("_runtimearr_{}", self.get(w(2)));
                self.save_str(result, &name);
            }
            Op::TypeNodePayloadArrayAMDX => {
                let name = format!("_payloadarr_{}", self.get(w(2)));
                self.save_str(result, &name);
            }
            Op::TypePointer => {
                let name = format!(
                    "_ptr_{}_{}",
                    enum_name(K::StorageClass, w(2)),
                    self.get(w(3))
                );
                self.save_str(result, &name);
            }
            Op::TypeUntypedPointerKHR => {
                let name = format!("_ptr_{}", enum_name(K::StorageClass, w(2)));
                self.save_str(result, &name);
            }
            Op::TypePipe => {
                let name = format!("Pipe{}", enum_name(K::AccessQualifier, w(2)));
                self.save_str(result, &name);
            }
            Op::TypeEvent => self.save_str(result, "Event"),
            Op::TypeDeviceEvent => self.save_str(result, "DeviceEvent"),
            Op::TypeReserveId => self.save_str(result, "ReserveId"),
            Op::TypeQueue => self.save_str(result, "Queue"),
            Op::TypeOpaque => {
                let bytes = inst
                    .operands
                    .get(1)
                    .map(|o| string_bytes(m.operand_words(inst, o)))
                    .unwrap_or_default();
                let name = format!("Opaque_{}", sanitize(&bytes));
                self.save_str(result, &name);
            }
            Op::TypePipeStorage => self.save_str(result, "PipeStorage"),
            Op::TypeNamedBarrier => self.save_str(result, "NamedBarrier"),
            Op::TypeStruct => self.save_str(result, &format!("_struct_{result}")),
            Op::ConstantTrue => self.save_str(result, "true"),
            Op::ConstantFalse => self.save_str(result, "false"),
            Op::Constant => {
                let value = inst
                    .operands
                    .get(2)
                    .filter(|o| matches!(o.ty, Ty::TypedLit))
                    .and_then(|o| o.num.map(|n| format_literal(m.operand_words(inst, o), n)))
                    .unwrap_or_default()
                    .replace('-', "n");
                let name = format!("{}_{value}", self.get(inst.type_id));
                self.save_str(result, &name);
            }
            _ => {
                // Numbering every other result keeps an OpName such as "12" from clashing.
                if result != 0 && !self.by_id.contains_key(&result) {
                    self.save_str(result, &result.to_string());
                }
            }
        }
    }
}

/// Keeps letters, digits and `_`; every other byte becomes `_`.
fn sanitize(name: &[u8]) -> String {
    if name.is_empty() {
        return "_".to_string();
    }
    name.iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b == b'_' {
                b as char
            } else {
                '_'
            }
        })
        .collect()
}

fn enum_name(kind: K, value: u32) -> String {
    grammar::value_name(kind, value).unwrap_or_else(|| format!("StorageClass{value}"))
}

/// The names spirv-dis gives variables decorated as built-ins: GLSL's for the graphics and
/// compute ones, the enumerant's own for a few more.
fn builtin_name(value: u32) -> Option<String> {
    use spirv::BuiltIn as B;
    let builtin = B::from_u32(value)?;
    let gl = |name: &str| Some(format!("gl_{name}"));
    match builtin {
        B::Position
        | B::PointSize
        | B::ClipDistance
        | B::CullDistance
        | B::Layer
        | B::ViewportIndex
        | B::TessLevelOuter
        | B::TessLevelInner
        | B::TessCoord
        | B::PatchVertices
        | B::FragCoord
        | B::PointCoord
        | B::FrontFacing
        | B::SamplePosition
        | B::SampleMask
        | B::FragDepth
        | B::HelperInvocation
        | B::LocalInvocationIndex
        | B::VertexIndex
        | B::InstanceIndex
        | B::BaseInstance => gl(&format!("{builtin:?}")),
        B::VertexId => gl("VertexID"),
        B::InstanceId => gl("InstanceID"),
        B::PrimitiveId => gl("PrimitiveID"),
        B::InvocationId => gl("InvocationID"),
        B::SampleId => gl("SampleID"),
        B::NumWorkgroups => gl("NumWorkGroups"),
        B::WorkgroupSize => gl("WorkGroupSize"),
        B::WorkgroupId => gl("WorkGroupID"),
        B::LocalInvocationId => gl("LocalInvocationID"),
        B::GlobalInvocationId => gl("GlobalInvocationID"),
        B::WorkDim
        | B::GlobalSize
        | B::EnqueuedWorkgroupSize
        | B::GlobalOffset
        | B::GlobalLinearId
        | B::SubgroupSize
        | B::SubgroupMaxSize
        | B::NumSubgroups
        | B::NumEnqueuedSubgroups
        | B::SubgroupId
        | B::SubgroupLocalInvocationId => Some(format!("{builtin:?}")),
        B::SubgroupEqMask => Some("SubgroupEqMaskKHR".to_string()),
        B::SubgroupGeMask => Some("SubgroupGeMaskKHR".to_string()),
        B::SubgroupGtMask => Some("SubgroupGtMaskKHR".to_string()),
        B::SubgroupLeMask => Some("SubgroupLeMaskKHR".to_string()),
        B::SubgroupLtMask => Some("SubgroupLtMaskKHR".to_string()),
        _ => None,
    }
}
