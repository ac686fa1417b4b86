//! Lowering a module to a [`Program`]. With the SPIR-V crate's reading (`lanescope_spirv::read`),
//! the only code that touches `rspirv`. Reading checks the header and every instruction's word
//! count itself (so errors name the instruction index and byte offset) and the logical layout's
//! section order, keeps the module verbatim (`SpirvModule`) with its debug information
//! (`lanescope_spirv::debug`), and parses the semantic instructions with `rspirv::dr`; lowering
//! walks that once: names and decorations, types (`program/types.rs`, with explicit layouts:
//! Offset, ArrayStride, MatrixStride, RowMajor), constants and specialization constants (overrides
//! applied here; `OpSpecConstantOp` folded with the same ALU functions the interpreter uses),
//! global variables (buffers become `Resource`s; Workgroup, Private, Function and Input variables
//! get offsets in their memories), then every function. Each SPIR-V value id gets a *register slot*
//! range (one slot per scalar component); constants are slots filled before execution. Every
//! instruction becomes a pre-decoded `Inst` whose operands are slots (`decode.rs`); merge
//! instructions and terminators become per-block `Merge`/`Terminator`. `structure.rs` adds what the
//! scheduler needs: which blocks are merge/continue/switch targets, dominators, and which switch
//! cases fall through into which, and refuses unstructured flow (a two-way branch without a merge
//! that leaves no construct, a back edge to a block without OpLoopMerge, an irreducible loop).
//! Errors are `LoadError::{Malformed, Invalid, Unsupported, EntryPoint, Option}` with a `Location`.
//! Every lowered instruction's operand and result shapes are checked against what the executor
//! reads and writes (and calls against their callee), so a hostile module fails here, never as an
//! out-of-range access later; a pre-pass over the raw words rejects what would make rspirv panic.
//! Memory is bounded: modules (64 MiB), types (16M scalar components in all, 1 GiB in memory with
//! their strides and offsets, sizes computed without wrapping), values (65536 components), and at
//! run time `Config::{max_invocations, max_memory, max_buffer_memory, max_trace_steps}` and the
//! step budget, each settable from the CLI and the app's Limits menu.

mod blocks;
mod capabilities;
mod constants;
mod decode;
mod decode_coop;
mod decode_image;
mod decode_memory;
mod decode_ops;
mod decode_printf;
mod float_controls;
mod sections;
mod structure;
mod types;
mod writes;

pub use crate::program::{Warning, WarningCode};
pub use lanescope_spirv::read::{entry_points, opname, MAX_MODULE_BYTES};
pub use lanescope_spirv::{LoadError, Location};

use crate::program::{
    Block, Function, Layout, Program, Resource, Space, SpecConstantInfo, SpirvModule, Type, TypeId,
    Types, Variable,
};
use crate::value::ScalarTy;
use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass};
use std::collections::{BTreeMap, HashMap};

/// Choices made at load time: they change constants, sizes and code.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Entry point name; `None` picks the only GLCompute entry point.
    pub entry: Option<String>,
    /// Specialization constant overrides by SpecId. An id the module does not have is ignored
    /// with a warning, as Vulkan ignores it.
    pub spec: BTreeMap<u32, SpecValue>,
    /// Fragment layout of cooperative matrices (default `nvidia`). A load-time choice:
    /// `OpCooperativeMatrixLengthKHR` is a constant instruction.
    pub coopmat_layout: crate::coopmat::LayoutChoice,
    /// Subgroup size the Subgroup-scope cooperative matrices are laid out for (default 32);
    /// the run's `Config::subgroup_size` must match it when the program has any.
    pub subgroup_size: Option<u32>,
}

/// A specialization constant's new value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecValue {
    /// Raw bits of the constant's own type: floats as their bit pattern, booleans 0 or 1.
    Bits(u64),
    /// Text read with the constant's own type: integers in decimal or `0x` hex (negative ones
    /// in decimal), floats, `true`/`false` (or 1/0) for booleans.
    Text(String),
}

impl From<u64> for SpecValue {
    fn from(bits: u64) -> Self {
        Self::Bits(bits)
    }
}

impl SpecValue {
    /// The raw bits of this value as a constant of type `ty`, or why it is not one.
    pub fn bits_for(&self, ty: ScalarTy) -> Result<u64, String> {
        let text = match self {
            Self::Bits(b) => {
                return Ok(if ty == ScalarTy::Bool {
                    u64::from(*b != 0)
                } else {
                    b & crate::value::mask(ty.bits())
                })
            }
            Self::Text(t) => t.trim(),
        };
        let bad = || {
            format!(
                "`{text}` is not a {} value",
                crate::program::scalar_name(ty)
            )
        };
        Ok(match ty {
            ScalarTy::Bool => match text {
                "true" | "1" => 1,
                "false" | "0" => 0,
                _ => return Err(bad()),
            },
            // Rounded once from the decimal text to the constant's own format.
            ScalarTy::Float { .. } | ScalarTy::BFloat16 => {
                crate::value::parse_float(ty, text).ok_or_else(bad)?
            }
            ScalarTy::Int { bits, signed } => {
                let bits = u32::from(bits);
                let v: i128 = if let Some(h) = text.strip_prefix("0x").or(text.strip_prefix("0X")) {
                    i128::from(u64::from_str_radix(h, 16).map_err(|_| bad())?)
                } else {
                    text.parse::<i128>().map_err(|_| bad())?
                };
                let (lo, hi) = if signed {
                    (-(1i128 << (bits - 1)), (1i128 << bits) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                // Signed constants also take their bit pattern in hex (or as an unsigned number).
                if v < lo || v > hi {
                    return Err(format!(
                        "{text} is out of range for {}",
                        crate::program::scalar_name(ty)
                    ));
                }
                (v as u64) & crate::value::mask(bits)
            }
        })
    }
}

pub(crate) const MAXIMALLY_RECONVERGES_KHR: u32 = 6023;
/// Limit on any single type's flattened size, so a hostile module cannot ask for huge values.
const MAX_VALUE_COMPONENTS: usize = 1 << 16;

/// Parse and lower a module.
pub fn load(bytes: &[u8], opts: &LoadOptions) -> Result<Program, LoadError> {
    let parsed = lanescope_spirv::read::parse(bytes)?;
    let mut cx = Ctx::new(&parsed.module, std::sync::Arc::new(parsed.raw), parsed.kept);
    cx.unknown_caps = parsed.unknown_caps;
    cx.run(opts)
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct PtrInfo {
    pub pointee: TypeId,
    pub layout: Layout,
    pub space: Space,
    /// The pointer is a descriptor array variable of this many buffers: its first index
    /// picks a buffer (a resource), not a byte offset.
    pub descriptors: Option<u32>,
}

/// Decorations of one id (or struct member): each with its literal operands.
pub(crate) type Decorations = Vec<(Decoration, Vec<u32>)>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ExtSet {
    Glsl,
    NonSemantic,
    /// A set Lanescope does not implement, by its name.
    Other(String),
}

pub(crate) struct Ctx<'m> {
    pub module: &'m dr::Module,
    /// The verbatim module, for locations and the debug information.
    pub raw: std::sync::Arc<SpirvModule>,
    /// Verbatim index of each instruction rspirv parsed, in its order.
    kept: Vec<u32>,
    /// An rspirv instruction's address -> its verbatim index.
    inst_index: HashMap<usize, u32>,
    /// result id -> module instruction index
    pub id_index: HashMap<u32, u32>,
    pub names: BTreeMap<u32, String>,
    pub member_names: BTreeMap<(u32, u32), String>,
    pub decos: HashMap<u32, Decorations>,
    pub member_decos: HashMap<(u32, u32), Decorations>,
    pub types: Types,
    pub type_map: HashMap<u32, TypeId>,
    pub scalar_types: HashMap<ScalarTy, TypeId>,
    /// Constant id -> (type, flattened value).
    pub consts: HashMap<u32, (TypeId, Vec<u64>)>,
    /// Value id -> (slot, width, type).
    pub slots: HashMap<u32, (u32, u32, TypeId)>,
    pub next_slot: u32,
    pub const_slots: Vec<(u32, u64)>,
    pub ptr_info: HashMap<u32, PtrInfo>,
    pub ext_sets: HashMap<u32, ExtSet>,
    pub labels: HashMap<u32, u32>,
    pub funcs: HashMap<u32, u32>,
    pub variables: Vec<Variable>,
    pub resources: Vec<Resource>,
    pub workgroup_bytes: u32,
    /// Bytes of Workgroup variables' scalars by size: 1, 2, and 4 or more.
    pub workgroup_leaf_bytes: [u64; 3],
    pub invocation_bytes: u32,
    pub inputs: Vec<(u32, u32, u32)>,
    pub initializers: Vec<(Space, u32, Vec<u8>)>,
    pub spec_infos: Vec<SpecConstantInfo>,
    pub leaf_tables: Vec<Vec<crate::program::Leaf>>,
    pub leaf_index: HashMap<(TypeId, Layout), u32>,
    /// Module instruction index currently being lowered, for errors.
    pub cur_index: u32,
    pub cur_function: Option<String>,
    pub workgroup_size_const: Option<u32>,
    /// Width of the value starting at each allocated slot.
    pub slot_widths: HashMap<u32, u32>,
    /// Scalar components of all types so far (bounds the loader's memory).
    pub flat_total: usize,
    pub coop_layout: crate::coopmat::LayoutChoice,
    pub coop_subgroup_size: u32,
    pub coop_frags: Vec<std::sync::Arc<crate::coopmat::Fragment>>,
    /// The entry point's function id (known before the types are read).
    pub entry_fn: Option<u32>,
    /// Type id -> its defining instruction, for questions asked before types are lowered.
    pub type_defs: HashMap<u32, &'m Instruction>,
    pub warnings: Vec<Warning>,
    /// The module's debug information (read first, for source positions in errors).
    pub debug: Option<crate::program::debug::DebugInfo>,
    /// Capabilities the grammar does not know: (value, instruction index).
    pub unknown_caps: Vec<(u32, u32)>,
    /// Whether the module declares WorkgroupMemoryExplicitLayoutKHR: Block-decorated
    /// Workgroup variables then overlay one another from offset 0.
    pub explicit_workgroup_layout: bool,
    /// Slots of OpUndef results: (slot, width).
    pub undef_slots: Vec<(u32, u32)>,
    /// Whether an atomic instruction works on buffer memory (workgroups may communicate).
    pub buffer_atomics: bool,
    /// Which kinds of Workgroup variables were seen (the two may not be mixed).
    pub block_workgroup_vars: bool,
    pub plain_workgroup_vars: bool,
    /// The entry point's float controls (known before constants are folded).
    pub float_controls: crate::float::FloatControls,
    /// FPRoundingMode decorations by target id.
    pub fp_rounding: HashMap<u32, rspirv::spirv::FPRoundingMode>,
    /// The DebugPrintf imports and strings, read on first use.
    pub printf: decode_printf::Tables,
}

impl<'m> Ctx<'m> {
    fn new(module: &'m dr::Module, raw: std::sync::Arc<SpirvModule>, kept: Vec<u32>) -> Self {
        Self {
            module,
            raw,
            kept,
            inst_index: HashMap::new(),
            id_index: HashMap::new(),
            names: BTreeMap::new(),
            member_names: BTreeMap::new(),
            decos: HashMap::new(),
            member_decos: HashMap::new(),
            types: Types::default(),
            type_map: HashMap::new(),
            scalar_types: HashMap::new(),
            consts: HashMap::new(),
            slots: HashMap::new(),
            next_slot: 0,
            const_slots: Vec::new(),
            ptr_info: HashMap::new(),
            ext_sets: HashMap::new(),
            labels: HashMap::new(),
            funcs: HashMap::new(),
            variables: Vec::new(),
            resources: Vec::new(),
            workgroup_bytes: 0,
            workgroup_leaf_bytes: [0; 3],
            invocation_bytes: 0,
            inputs: Vec::new(),
            initializers: Vec::new(),
            spec_infos: Vec::new(),
            leaf_tables: Vec::new(),
            leaf_index: HashMap::new(),
            cur_index: 0,
            cur_function: None,
            workgroup_size_const: None,
            flat_total: 0,
            slot_widths: HashMap::new(),
            coop_layout: crate::coopmat::LayoutChoice::default(),
            coop_subgroup_size: 32,
            coop_frags: Vec::new(),
            entry_fn: None,
            type_defs: module
                .types_global_values
                .iter()
                .filter(|i| i.result_id.is_some())
                .map(|i| (i.result_id.unwrap_or(0), i))
                .collect(),
            warnings: Vec::new(),
            unknown_caps: Vec::new(),
            debug: None,
            explicit_workgroup_layout: false,
            buffer_atomics: false,
            undef_slots: Vec::new(),
            block_workgroup_vars: false,
            plain_workgroup_vars: false,
            float_controls: crate::float::FloatControls::default(),
            fp_rounding: HashMap::new(),
            printf: decode_printf::Tables::default(),
        }
    }

    /// The instruction defining global `id` (a type, constant or global variable).
    pub fn module_type(&self, id: u32) -> Option<&'m Instruction> {
        self.type_defs.get(&id).copied()
    }

    /// A fresh slot holding a constant (for instructions whose result is a constant).
    pub fn const_slot(&mut self, v: u64) -> u32 {
        let slot = self.next_slot;
        self.next_slot += 1;
        self.slot_widths.insert(slot, 1);
        if v != 0 {
            self.const_slots.push((slot, v));
        }
        slot
    }

    pub fn loc(&self, inst: Option<&Instruction>) -> Location {
        let source = self.debug.as_ref().and_then(|d| {
            let p = d.pos(self.cur_index)?;
            let file = d.file_name(p.file)?;
            Some(if p.column > 0 {
                format!("{file}:{}:{}", p.line, p.column)
            } else {
                format!("{file}:{}", p.line)
            })
        });
        Location {
            source: source.map(String::into_boxed_str),
            instruction: Some(self.cur_index),
            byte_offset: self.raw.byte_offset(self.cur_index as usize),
            opcode: inst.map(|i| format!("Op{}", i.class.opname).into()),
            id: inst.and_then(|i| i.result_id),
            function: self.cur_function.as_deref().map(Into::into),
        }
    }

    pub fn invalid(&self, inst: &Instruction, what: impl Into<String>) -> LoadError {
        LoadError::Invalid {
            what: what.into(),
            at: self.loc(Some(inst)),
        }
    }

    pub fn invalid_option(&self, inst: &Instruction, what: impl Into<String>) -> LoadError {
        LoadError::Option {
            what: what.into(),
            at: self.loc(Some(inst)),
        }
    }

    pub fn unsupported(&self, inst: &Instruction, what: impl Into<String>) -> LoadError {
        LoadError::Unsupported {
            what: what.into(),
            at: self.loc(Some(inst)),
        }
    }

    pub fn id_op(&self, inst: &Instruction, i: usize) -> Result<u32, LoadError> {
        match inst.operands.get(i) {
            Some(Operand::IdRef(w) | Operand::IdScope(w) | Operand::IdMemorySemantics(w)) => Ok(*w),
            _ => Err(self.invalid(inst, format!("operand {i} should be an <id>"))),
        }
    }

    pub fn lit_op(&self, inst: &Instruction, i: usize) -> Result<u32, LoadError> {
        match inst.operands.get(i) {
            Some(Operand::LiteralBit32(w) | Operand::LiteralExtInstInteger(w)) => Ok(*w),
            _ => Err(self.invalid(inst, format!("operand {i} should be a literal"))),
        }
    }

    pub fn result_id(&self, inst: &Instruction) -> Result<u32, LoadError> {
        inst.result_id
            .ok_or_else(|| self.invalid(inst, "missing result <id>"))
    }

    pub fn type_of_id(&self, inst: &Instruction, id: u32) -> Result<TypeId, LoadError> {
        self.type_map
            .get(&id)
            .copied()
            .ok_or_else(|| self.invalid(inst, format!("%{id} is not a type")))
    }

    pub fn result_type(&self, inst: &Instruction) -> Result<TypeId, LoadError> {
        let id = inst
            .result_type
            .ok_or_else(|| self.invalid(inst, "missing result type"))?;
        self.type_of_id(inst, id)
    }

    /// Slot, width and type of a value operand.
    pub fn value(&self, inst: &Instruction, id: u32) -> Result<(u32, u32, TypeId), LoadError> {
        self.slots.get(&id).copied().ok_or_else(|| {
            self.invalid(
                inst,
                format!("%{id} is not a value defined before its use (or not a value at all)"),
            )
        })
    }

    pub fn alloc_slot(
        &mut self,
        inst: &Instruction,
        id: u32,
        ty: TypeId,
    ) -> Result<u32, LoadError> {
        let width = self.types.width(ty);
        if width as usize > MAX_VALUE_COMPONENTS {
            return Err(self.unsupported(
                inst,
                format!("a value of {width} scalar components (at most {MAX_VALUE_COMPONENTS})"),
            ));
        }
        let slot = self.next_slot;
        self.next_slot = self
            .next_slot
            .checked_add(width.max(1))
            .filter(|n| *n < (1 << 26))
            .ok_or_else(|| self.unsupported(inst, "too many values in the module"))?;
        self.slots.insert(id, (slot, width, ty));
        self.slot_widths.insert(slot, width);
        Ok(slot)
    }

    /// The number of descriptors when a pointer of this storage class to `pointee` is a
    /// descriptor array: an array of buffer blocks, or of images or samplers.
    pub(crate) fn descriptors_of(&self, storage_class: u32, pointee: TypeId) -> Option<u32> {
        let Type::Array { elem, len, .. } = self.types.get(pointee) else {
            return None;
        };
        let buffer = [StorageClass::StorageBuffer, StorageClass::Uniform]
            .iter()
            .any(|c| *c as u32 == storage_class);
        let opaque = matches!(
            self.types.get(*elem),
            Type::Image(_) | Type::SampledImage(_) | Type::Sampler
        );
        ((buffer && self.is_block(*elem))
            || (storage_class == StorageClass::UniformConstant as u32 && opaque))
            .then_some(*len)
    }

    /// Whether type `t` is a Block or BufferBlock struct (a buffer's interface type).
    fn is_block(&self, t: TypeId) -> bool {
        let id = self.types.spirv_ids[t as usize];
        self.has_deco(id, Decoration::Block).is_some()
            || self.has_deco(id, Decoration::BufferBlock).is_some()
    }

    fn has_deco(&self, id: u32, d: Decoration) -> Option<&Vec<u32>> {
        self.decos
            .get(&id)?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, v)| v)
    }

    fn member_deco(&self, id: u32, m: u32, d: Decoration) -> Option<&Vec<u32>> {
        self.member_decos
            .get(&(id, m))?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, v)| v)
    }

    pub fn scalar_type_id(&mut self, s: ScalarTy) -> TypeId {
        if let Some(t) = self.scalar_types.get(&s) {
            return *t;
        }
        let t = self.types.add(Type::Scalar(s), 0);
        self.scalar_types.insert(s, t);
        t
    }

    pub fn leaves_of(&mut self, ty: TypeId, layout: Layout) -> u32 {
        if let Some(i) = self.leaf_index.get(&(ty, layout)) {
            return *i;
        }
        let l = self.types.leaves(ty, layout);
        self.leaf_tables.push(l);
        let i = (self.leaf_tables.len() - 1) as u32;
        self.leaf_index.insert((ty, layout), i);
        i
    }

    fn run(&mut self, opts: &LoadOptions) -> Result<Program, LoadError> {
        // First, so that errors can name the source line.
        self.debug = lanescope_spirv::debug::read(&self.raw);
        self.index_ids()?;
        self.read_debug_and_annotations();
        self.check_capabilities()?;
        let (entry_fn_id, entry_name, interface) = self.pick_entry(opts)?;
        self.entry_fn = Some(entry_fn_id);
        self.check_execution_modes(entry_fn_id)?;
        self.float_controls = self.read_float_controls(entry_fn_id)?;
        self.read_fp_rounding_modes();
        self.coop_layout = opts.coopmat_layout.clone();
        self.coop_subgroup_size = opts.subgroup_size.unwrap_or(32);
        if !crate::lanes::valid_subgroup_size(self.coop_subgroup_size) {
            return Err(LoadError::Option {
                what: format!(
                    "subgroup size {} (it must be a power of two from 4 to 128)",
                    self.coop_subgroup_size
                ),
                at: Location::default(),
            });
        }
        self.read_globals(opts, &interface)?;
        self.number_functions()?;
        let local_size = self.local_size(entry_fn_id)?;
        let maximal = self.module.execution_modes.iter().any(|m| {
            matches!(m.operands.first(), Some(Operand::IdRef(f)) if *f == entry_fn_id)
                && matches!(m.operands.get(1), Some(Operand::ExecutionMode(e)) if *e as u32 == MAXIMALLY_RECONVERGES_KHR)
        });
        let (functions, blocks) = self.lower_functions()?;
        self.find_unwritten_buffers();
        let entry_func = *self
            .funcs
            .get(&entry_fn_id)
            .ok_or_else(|| LoadError::EntryPoint {
                what: format!("entry point function %{entry_fn_id} has no body"),
            })?;
        if maximal {
            structure::check_maximal_branches(&functions, &blocks, entry_func)?;
        }
        let is_reconv_target = structure::reconv_targets(&blocks);
        let fallthrough = structure::switch_fallthrough(&functions, &blocks);
        structure::check(&functions, &blocks, self)?;
        let names = self.names.clone();
        let id_slots: BTreeMap<u32, (u32, u32, TypeId)> =
            self.slots.iter().map(|(k, v)| (*k, *v)).collect();
        let slot_width = id_slots.values().map(|(s, w, _)| (*s, *w)).collect();
        let types = std::mem::take(&mut self.types);
        Ok(Program {
            entry_name,
            entry_func,
            local_size,
            maximal_reconvergence: maximal,
            types,
            functions,
            blocks,
            num_slots: self.next_slot,
            const_slots: std::mem::take(&mut self.const_slots),
            variables: std::mem::take(&mut self.variables),
            resources: std::mem::take(&mut self.resources),
            workgroup_bytes: self.workgroup_bytes,
            workgroup_unit: {
                // The scalar size most of the Workgroup memory is in (ties to the larger).
                let b = self.workgroup_leaf_bytes;
                if b[2] >= b[1].max(b[0]) {
                    4
                } else if b[1] >= b[0] {
                    2
                } else {
                    1
                }
            },
            // Each invocation's memory starts on a word boundary (8 bytes): the uninitialized-
            // data tracking marks whole words, and one invocation's 2-byte variable must not
            // share a word with the next invocation's first variable.
            invocation_bytes: crate::program::round_up(self.invocation_bytes, 8),
            inputs: std::mem::take(&mut self.inputs),
            initializers: std::mem::take(&mut self.initializers),
            spec_constants: std::mem::take(&mut self.spec_infos),
            names,
            member_names: std::mem::take(&mut self.member_names),
            id_slots,
            is_reconv_target,
            module_instructions: self.raw.len() as u32,
            leaf_tables: std::mem::take(&mut self.leaf_tables),
            fallthrough,
            slot_width,
            coop_layout: self.coop_layout.clone(),
            coop_frags: std::mem::take(&mut self.coop_frags),
            coop_subgroup_size: self.coop_subgroup_size,
            warnings: std::mem::take(&mut self.warnings),
            module: std::sync::Arc::clone(&self.raw),
            debug: self.debug.take(),
            buffer_atomics: self.buffer_atomics,
            physical_addresses: self
                .module
                .capabilities
                .iter()
                .any(|c| matches!(c.operands.first(), Some(rspirv::dr::Operand::Capability(c)) if *c == rspirv::spirv::Capability::PhysicalStorageBufferAddresses)),
            undef_slots: std::mem::take(&mut self.undef_slots),
            float_controls: self.float_controls,
        })
    }

    /// Marks the buffers no instruction can write (`Resource::never_written`).
    fn find_unwritten_buffers(&mut self) {
        let buffer = |r: &Resource| r.image.is_none() && !r.sampler && !r.push_constant;
        let mut vars: Vec<u32> = self
            .resources
            .iter()
            .filter(|r| buffer(r))
            .map(|r| r.var)
            .collect();
        vars.sort_unstable();
        vars.dedup();
        let written = writes::written(self.module, &vars);
        for r in &mut self.resources {
            if buffer(r) {
                r.never_written = vars.binary_search(&r.var).is_ok_and(|k| !written[k]);
            }
        }
    }

    fn number_functions(&mut self) -> Result<(), LoadError> {
        let mut next_block = 0u32;
        for (fi, f) in self.module.functions.iter().enumerate() {
            let def = f.def.as_ref().ok_or_else(|| LoadError::Malformed {
                what: "function without OpFunction".into(),
                at: Location::default(),
            })?;
            let id = self.result_id(def)?;
            self.funcs.insert(id, fi as u32);
            for b in &f.blocks {
                let l = b.label.as_ref().and_then(|l| l.result_id).ok_or_else(|| {
                    LoadError::Malformed {
                        what: "block without OpLabel".into(),
                        at: Location::default(),
                    }
                })?;
                if self.labels.insert(l, next_block).is_some() {
                    self.set_cur(b.label.as_ref().unwrap_or(def));
                    return Err(LoadError::Invalid {
                        what: format!("label %{l} defined twice"),
                        at: self.loc(b.label.as_ref()),
                    });
                }
                next_block += 1;
            }
        }
        Ok(())
    }

    fn lower_functions(&mut self) -> Result<(Vec<Function>, Vec<Block>), LoadError> {
        let mut functions = Vec::new();
        let mut blocks = Vec::new();
        let module = self.module;
        for (fi, f) in module.functions.iter().enumerate() {
            let Some(def) = f.def.as_ref() else { continue };
            let id = self.result_id(def)?;
            self.cur_function = Some(self.names.get(&id).cloned().unwrap_or(format!("%{id}")));
            self.set_cur(def);
            let ret_ty = self.result_type(def)?;
            let ret = match self.types.get(ret_ty) {
                Type::Void => None,
                _ => Some((0, self.types.width(ret_ty))),
            };
            let mut params = Vec::new();
            for p in &f.parameters {
                self.set_cur(p);
                let pid = self.result_id(p)?;
                let ty = self.result_type(p)?;
                let slot = self.alloc_slot(p, pid, ty)?;
                if let Type::Pointer {
                    storage_class,
                    pointee,
                } = self.types.get(ty).clone()
                {
                    let descriptors = self.descriptors_of(storage_class, pointee);
                    self.ptr_info.insert(
                        pid,
                        PtrInfo {
                            pointee,
                            layout: Layout::Plain,
                            space: space_of(storage_class),
                            descriptors,
                        },
                    );
                }
                params.push((slot, self.types.width(ty)));
            }
            // Allocate slots for every result first: a phi may use a value defined later.
            for b in &f.blocks {
                for inst in &b.instructions {
                    self.pre_allocate(inst)?;
                }
            }
            if f.blocks.is_empty() {
                return Err(self.invalid(def, "function has no body (declarations need the Linkage capability, which shaders cannot use)"));
            }
            let first = blocks.len() as u32;
            for b in &f.blocks {
                let block = self.lower_block(fi as u32, b)?;
                blocks.push(block);
            }
            functions.push(Function {
                id,
                name: self.cur_function.clone().unwrap_or_default(),
                entry: first,
                blocks: (first..blocks.len() as u32).collect(),
                params,
                ret,
            });
        }
        self.cur_function = None;
        // Calls were lowered with callee ids; fix up return slot sizes now all are known.
        Ok((functions, blocks))
    }

    fn pre_allocate(&mut self, inst: &Instruction) -> Result<(), LoadError> {
        let (Some(rid), Some(rty)) = (inst.result_id, inst.result_type) else {
            return Ok(());
        };
        self.set_cur(inst);
        if inst.class.opcode == Op::ExtInst {
            if let Ok(set) = self.id_op(inst, 0) {
                if self.ext_sets.get(&set) == Some(&ExtSet::NonSemantic) {
                    return Ok(());
                }
            }
        }
        let Some(ty) = self.type_map.get(&rty).copied() else {
            return Err(self.invalid(inst, format!("result type %{rty} is not a type")));
        };
        if matches!(self.types.get(ty), Type::Void) {
            return Ok(());
        }
        if self.types.width(ty) == 0 {
            return Err(self.unsupported(
                inst,
                format!(
                    "values of type {} cannot be simulated",
                    self.types.describe(ty)
                ),
            ));
        }
        self.alloc_slot(inst, rid, ty)?;
        Ok(())
    }
}

pub(crate) fn space_of(storage_class: u32) -> Space {
    match storage_class {
        c if c == StorageClass::StorageBuffer as u32
            || c == StorageClass::Uniform as u32
            || c == StorageClass::PushConstant as u32
            || c == StorageClass::PhysicalStorageBuffer as u32 =>
        {
            Space::Buffer
        }
        c if c == StorageClass::Workgroup as u32 => Space::Workgroup,
        _ => Space::Invocation,
    }
}

mod globals;
