//! Bytes -> rspirv data representation -> `Program`. The only module that looks at rspirv.

mod decode;
mod error;
mod structure;

pub use error::{LoadError, Location};

use crate::program::{
    Block, Function, Layout, Program, Resource, Space, SpecConstantInfo, Terminator, Type, TypeId,
    Types, Variable,
};
use crate::value::{mask, ScalarTy};
use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass};
use std::collections::{BTreeMap, HashMap};

/// Choices made at load time: they change constants, sizes and code.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Entry point name; `None` picks the only GLCompute entry point.
    pub entry: Option<String>,
    /// Specialization constant overrides: SpecId -> value (raw bits; floats as their bit pattern
    /// of the constant's width, booleans 0/1).
    pub spec: BTreeMap<u32, u64>,
}

pub(crate) const MAXIMALLY_RECONVERGES_KHR: u32 = 6023;
/// Limit on any single type's flattened size, so a hostile module cannot ask for huge values.
const MAX_VALUE_COMPONENTS: usize = 1 << 16;

/// Parse and lower a module.
pub fn load(bytes: &[u8], opts: &LoadOptions) -> Result<Program, LoadError> {
    let mut words = to_words(bytes)?;
    let offsets = instruction_offsets(&words)?;
    // rspirv's loader rejects OpExecutionModeId; as OpExecutionMode it parses the same operands
    // (the mode's grammar says they are ids), so rewrite the opcode in place.
    for &o in &offsets {
        let i = o as usize / 4;
        if words[i] & 0xffff == 331 {
            words[i] = (words[i] & 0xffff_0000) | 16;
        }
    }
    let module = dr::load_words(&words).map_err(|e| LoadError::Malformed {
        what: e.to_string(),
        at: Location::default(),
    })?;
    let mut cx = Ctx::new(&module, offsets);
    cx.run(opts)
}

fn to_words(bytes: &[u8]) -> Result<Vec<u32>, LoadError> {
    let at = Location::default();
    if bytes.len() < 20 {
        return Err(LoadError::Malformed {
            what: format!("file is {} bytes; a SPIR-V header alone is 20", bytes.len()),
            at,
        });
    }
    if bytes.len() % 4 != 0 {
        return Err(LoadError::Malformed {
            what: format!(
                "file length {} is not a multiple of 4 (truncated?)",
                bytes.len()
            ),
            at,
        });
    }
    let le: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    match le[0] {
        0x0723_0203 => Ok(le),
        0x0302_2307 => Ok(le.iter().map(|w| w.swap_bytes()).collect()),
        m => Err(LoadError::Malformed {
            what: format!("bad magic number 0x{m:08x} (expected 0x07230203)"),
            at: Location {
                byte_offset: Some(0),
                ..Location::default()
            },
        }),
    }
}

/// Byte offset of every instruction, in stream order; checks word counts before rspirv does so
/// the error can name the place.
fn instruction_offsets(words: &[u32]) -> Result<Vec<u32>, LoadError> {
    let mut out = Vec::new();
    let mut i = 5usize;
    while i < words.len() {
        let wc = (words[i] >> 16) as usize;
        let op = words[i] & 0xffff;
        let at = Location {
            instruction: Some(out.len() as u32),
            byte_offset: Some((i * 4) as u32),
            opcode: Some(opname(op)),
            ..Location::default()
        };
        if wc == 0 {
            return Err(LoadError::Malformed {
                what: "instruction with word count 0".into(),
                at,
            });
        }
        if i + wc > words.len() {
            return Err(LoadError::Malformed {
                what: format!(
                    "instruction needs {wc} words but the file ends after {}",
                    words.len() - i
                ),
                at,
            });
        }
        out.push((i * 4) as u32);
        i += wc;
    }
    Ok(out)
}

pub(crate) fn opname(op: u32) -> String {
    rspirv::spirv::Op::from_u32(op).map_or_else(|| format!("opcode {op}"), |o| format!("Op{o:?}"))
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct PtrInfo {
    pub pointee: TypeId,
    pub layout: Layout,
    pub space: Space,
}

/// Decorations of one id (or struct member): each with its literal operands.
pub(crate) type Decorations = Vec<(Decoration, Vec<u32>)>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ExtSet {
    Glsl,
    NonSemantic,
}

pub(crate) struct Ctx<'m> {
    pub module: &'m dr::Module,
    offsets: Vec<u32>,
    /// result id -> module instruction index
    pub id_index: HashMap<u32, u32>,
    pub names: BTreeMap<u32, String>,
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
}

impl<'m> Ctx<'m> {
    fn new(module: &'m dr::Module, offsets: Vec<u32>) -> Self {
        Self {
            module,
            offsets,
            id_index: HashMap::new(),
            names: BTreeMap::new(),
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
            invocation_bytes: 0,
            inputs: Vec::new(),
            initializers: Vec::new(),
            spec_infos: Vec::new(),
            leaf_tables: Vec::new(),
            leaf_index: HashMap::new(),
            cur_index: 0,
            cur_function: None,
            workgroup_size_const: None,
        }
    }

    pub fn loc(&self, inst: Option<&Instruction>) -> Location {
        Location {
            instruction: Some(self.cur_index),
            byte_offset: self.offsets.get(self.cur_index as usize).copied(),
            opcode: inst.map(|i| format!("Op{}", i.class.opname)),
            id: inst.and_then(|i| i.result_id),
            function: self.cur_function.clone(),
        }
    }

    pub fn invalid(&self, inst: &Instruction, what: impl Into<String>) -> LoadError {
        LoadError::Invalid {
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
        let slot = self.next_slot;
        self.next_slot = self
            .next_slot
            .checked_add(width.max(1))
            .filter(|n| *n < (1 << 26))
            .ok_or_else(|| self.unsupported(inst, "too many values in the module"))?;
        self.slots.insert(id, (slot, width, ty));
        Ok(slot)
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
        self.index_ids();
        self.check_capabilities()?;
        self.read_debug_and_annotations();
        let (entry_fn_id, entry_name, interface) = self.pick_entry(opts)?;
        self.read_globals(opts, &interface)?;
        self.number_functions()?;
        let local_size = self.local_size(entry_fn_id)?;
        let maximal = self.module.execution_modes.iter().any(|m| {
            matches!(m.operands.first(), Some(Operand::IdRef(f)) if *f == entry_fn_id)
                && matches!(m.operands.get(1), Some(Operand::ExecutionMode(e)) if *e as u32 == MAXIMALLY_RECONVERGES_KHR)
        });
        let (functions, blocks) = self.lower_functions()?;
        let entry_func = *self
            .funcs
            .get(&entry_fn_id)
            .ok_or_else(|| LoadError::EntryPoint {
                what: format!("entry point function %{entry_fn_id} has no body"),
            })?;
        let is_reconv_target = structure::reconv_targets(&blocks);
        let fallthrough = structure::switch_fallthrough(&functions, &blocks);
        structure::check(&functions, &blocks, self)?;
        let names = self.names.clone();
        let id_slots = self.slots.iter().map(|(k, v)| (*k, *v)).collect();
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
            invocation_bytes: self.invocation_bytes,
            inputs: std::mem::take(&mut self.inputs),
            initializers: std::mem::take(&mut self.initializers),
            spec_constants: std::mem::take(&mut self.spec_infos),
            names,
            id_slots,
            is_reconv_target,
            module_instructions: self.offsets.len() as u32,
            leaf_tables: std::mem::take(&mut self.leaf_tables),
            fallthrough,
        })
    }

    /// Capabilities whose programs Lanescope cannot model at all; the rest fail, if ever, at the
    /// first instruction that needs them.
    fn check_capabilities(&mut self) -> Result<(), LoadError> {
        use rspirv::spirv::Capability as C;
        for (k, inst) in self.module.capabilities.iter().enumerate() {
            let Some(Operand::Capability(c)) = inst.operands.first() else {
                continue;
            };
            let why = match c {
                C::Kernel | C::Addresses | C::Linkage => "OpenCL kernels and linkage",
                C::PhysicalStorageBufferAddresses => "buffer device addresses (physical pointers)",
                C::VariablePointers | C::VariablePointersStorageBuffer => "variable pointers",
                _ => continue,
            };
            self.cur_index = k as u32;
            return Err(LoadError::Unsupported {
                what: format!("capability {c:?}: {why}"),
                at: self.loc(Some(inst)),
            });
        }
        Ok(())
    }

    /// Walk the module in binary order to number instructions.
    fn index_ids(&mut self) {
        let m = self.module;
        let mut idx = 0u32;
        let mut note = |inst: &Instruction, map: &mut HashMap<u32, u32>| {
            if let Some(r) = inst.result_id {
                map.insert(r, idx);
            }
            idx += 1;
        };
        let mut map = HashMap::new();
        let header_sections: [&[Instruction]; 9] = [
            &m.capabilities,
            &m.extensions,
            &m.ext_inst_imports,
            m.memory_model.as_slice(),
            &m.entry_points,
            &m.execution_modes,
            &m.debug_string_source,
            &m.debug_names,
            &m.debug_module_processed,
        ];
        for sec in header_sections {
            for i in sec {
                note(i, &mut map);
            }
        }
        for i in m.annotations.iter().chain(&m.types_global_values) {
            note(i, &mut map);
        }
        for f in &m.functions {
            if let Some(d) = &f.def {
                note(d, &mut map);
            }
            for p in &f.parameters {
                note(p, &mut map);
            }
            for b in &f.blocks {
                if let Some(l) = &b.label {
                    note(l, &mut map);
                }
                for i in &b.instructions {
                    note(i, &mut map);
                }
            }
            if let Some(e) = &f.end {
                note(e, &mut map);
            }
        }
        self.id_index = map;
    }

    pub fn set_cur(&mut self, inst: &Instruction) {
        if let Some(i) = inst.result_id.and_then(|r| self.id_index.get(&r)) {
            self.cur_index = *i;
        }
    }

    fn read_debug_and_annotations(&mut self) {
        for i in &self.module.debug_names {
            if i.class.opcode == Op::Name {
                if let (Some(Operand::IdRef(id)), Some(Operand::LiteralString(s))) =
                    (i.operands.first(), i.operands.get(1))
                {
                    if !s.is_empty() {
                        self.names.insert(*id, s.clone());
                    }
                }
            }
        }
        for i in &self.module.ext_inst_imports {
            if let (Some(r), Some(Operand::LiteralString(s))) = (i.result_id, i.operands.first()) {
                if s == "GLSL.std.450" {
                    self.ext_sets.insert(r, ExtSet::Glsl);
                } else if s.starts_with("NonSemantic.") {
                    self.ext_sets.insert(r, ExtSet::NonSemantic);
                }
            }
        }
        for i in &self.module.annotations {
            let lits = |ops: &[Operand]| -> Vec<u32> {
                ops.iter()
                    .filter_map(|o| match o {
                        Operand::LiteralBit32(w) => Some(*w),
                        Operand::BuiltIn(b) => Some(*b as u32),
                        Operand::IdRef(w) => Some(*w),
                        _ => None,
                    })
                    .collect()
            };
            match (i.class.opcode, i.operands.as_slice()) {
                (
                    Op::Decorate | Op::DecorateId,
                    [Operand::IdRef(t), Operand::Decoration(d), rest @ ..],
                ) => {
                    self.decos.entry(*t).or_default().push((*d, lits(rest)));
                }
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(t), Operand::LiteralBit32(m), Operand::Decoration(d), rest @ ..],
                ) => {
                    self.member_decos
                        .entry((*t, *m))
                        .or_default()
                        .push((*d, lits(rest)));
                }
                _ => {}
            }
        }
    }

    fn pick_entry(&self, opts: &LoadOptions) -> Result<(u32, String, Vec<u32>), LoadError> {
        let mut all = Vec::new();
        for e in &self.module.entry_points {
            if let (
                Some(Operand::ExecutionModel(model)),
                Some(Operand::IdRef(f)),
                Some(Operand::LiteralString(name)),
            ) = (e.operands.first(), e.operands.get(1), e.operands.get(2))
            {
                let iface: Vec<u32> = e.operands[3..]
                    .iter()
                    .filter_map(|o| match o {
                        Operand::IdRef(w) => Some(*w),
                        _ => None,
                    })
                    .collect();
                all.push((*model, *f, name.clone(), iface));
            }
        }
        let list = || {
            all.iter()
                .map(|(m, _, n, _)| format!("{n} ({m:?})"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let chosen = match &opts.entry {
            Some(want) => {
                all.iter()
                    .find(|(_, _, n, _)| n == want)
                    .ok_or_else(|| LoadError::EntryPoint {
                        what: format!("no entry point named `{want}`; the module has: {}", list()),
                    })?
            }
            None => {
                let compute: Vec<_> = all
                    .iter()
                    .filter(|(m, ..)| *m == rspirv::spirv::ExecutionModel::GLCompute)
                    .collect();
                match compute.as_slice() {
                    [one] => *one,
                    [] if all.is_empty() => {
                        return Err(LoadError::EntryPoint {
                            what: "the module has no entry point".into(),
                        })
                    }
                    [] => {
                        return Err(LoadError::EntryPoint {
                            what: format!("no GLCompute entry point; the module has: {}", list()),
                        })
                    }
                    _ => {
                        return Err(LoadError::EntryPoint {
                            what: format!(
                                "several compute entry points, pick one with --entry: {}",
                                list()
                            ),
                        })
                    }
                }
            }
        };
        if chosen.0 != rspirv::spirv::ExecutionModel::GLCompute {
            return Err(LoadError::EntryPoint {
                what: format!(
                    "`{}` is a {:?} entry point; Lanescope simulates GLCompute shaders only",
                    chosen.2, chosen.0
                ),
            });
        }
        Ok((chosen.1, chosen.2.clone(), chosen.3.clone()))
    }

    fn local_size(&self, entry: u32) -> Result<[u32; 3], LoadError> {
        if let Some(c) = self.workgroup_size_const {
            if let Some((_, v)) = self.consts.get(&c) {
                if v.len() == 3 {
                    return Ok([v[0] as u32, v[1] as u32, v[2] as u32]);
                }
            }
        }
        for m in &self.module.execution_modes {
            if !matches!(m.operands.first(), Some(Operand::IdRef(f)) if *f == entry) {
                continue;
            }
            match m.operands.get(1) {
                Some(Operand::ExecutionMode(rspirv::spirv::ExecutionMode::LocalSize)) => {
                    let v: Vec<u32> = m.operands[2..]
                        .iter()
                        .filter_map(|o| match o {
                            Operand::LiteralBit32(w) => Some(*w),
                            _ => None,
                        })
                        .collect();
                    if v.len() == 3 {
                        return Ok([v[0], v[1], v[2]]);
                    }
                }
                Some(Operand::ExecutionMode(rspirv::spirv::ExecutionMode::LocalSizeId)) => {
                    let mut out = [1u32; 3];
                    for (k, o) in m.operands[2..].iter().take(3).enumerate() {
                        let id = match o {
                            Operand::IdRef(w) | Operand::LiteralBit32(w) => *w,
                            _ => 0,
                        };
                        let (_, v) = self.consts.get(&id).ok_or_else(|| LoadError::Invalid {
                            what: format!("LocalSizeId operand %{id} is not a constant"),
                            at: Location::default(),
                        })?;
                        out[k] = v.first().copied().unwrap_or(1) as u32;
                    }
                    return Ok(out);
                }
                _ => {}
            }
        }
        Err(LoadError::Invalid {
            what: "compute entry point has no LocalSize or LocalSizeId execution mode".into(),
            at: Location::default(),
        })
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
                    self.ptr_info.insert(
                        pid,
                        PtrInfo {
                            pointee,
                            layout: Layout::Plain,
                            space: space_of(storage_class),
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

    fn lower_block(&mut self, func: u32, b: &dr::Block) -> Result<Block, LoadError> {
        let label_inst = b.label.as_ref();
        let label = label_inst.and_then(|l| l.result_id).unwrap_or(0);
        if let Some(l) = label_inst {
            self.set_cur(l);
        }
        let mut phis = Vec::new();
        let mut insts = Vec::new();
        let mut inst_indices = Vec::new();
        let mut merge = None;
        let mut term = None;
        let first_inst_index = self.cur_index + 1;
        for inst in &b.instructions {
            self.cur_index += 1;
            self.set_cur(inst);
            let here = self.cur_index;
            if term.is_some() {
                return Err(self.invalid(inst, "instruction after the block's terminator"));
            }
            match inst.class.opcode {
                Op::Phi => phis.push(self.lower_phi(inst)?),
                Op::SelectionMerge | Op::LoopMerge => merge = Some(self.lower_merge(inst)?),
                Op::Line | Op::NoLine | Op::Nop => {}
                Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Return
                | Op::ReturnValue
                | Op::Unreachable
                | Op::Kill
                | Op::TerminateInvocation => {
                    term = Some(self.lower_terminator(inst)?);
                    inst_indices.push(here);
                }
                _ => {
                    if let Some(i) = decode::lower(self, inst)? {
                        insts.push(i);
                        inst_indices.push(here);
                    }
                }
            }
        }
        let term = term.ok_or_else(|| LoadError::Invalid {
            what: format!("block %{label} has no terminator"),
            at: self.loc(label_inst),
        })?;
        Ok(Block {
            label,
            func,
            phis,
            insts,
            term,
            merge,
            first_inst_index,
            inst_indices,
        })
    }

    pub fn block_of(&self, inst: &Instruction, id: u32) -> Result<u32, LoadError> {
        self.labels
            .get(&id)
            .copied()
            .ok_or_else(|| self.invalid(inst, format!("%{id} is not a label")))
    }

    fn lower_phi(&mut self, inst: &Instruction) -> Result<crate::program::Phi, LoadError> {
        let rid = self.result_id(inst)?;
        let (dst, width, _) = self.value(inst, rid)?;
        let mut incoming = Vec::new();
        for pair in inst.operands.chunks(2) {
            match pair {
                [Operand::IdRef(v), Operand::IdRef(p)] => {
                    let (s, w, _) = self.value(inst, *v)?;
                    if w != width {
                        return Err(
                            self.invalid(inst, format!("phi operand %{v} has the wrong type"))
                        );
                    }
                    incoming.push((self.block_of(inst, *p)?, s));
                }
                _ => return Err(self.invalid(inst, "OpPhi operands must be (value, parent) pairs")),
            }
        }
        Ok(crate::program::Phi {
            dst,
            width,
            incoming,
        })
    }

    fn lower_merge(&mut self, inst: &Instruction) -> Result<crate::program::Merge, LoadError> {
        let merge = self.block_of(inst, self.id_op(inst, 0)?)?;
        if inst.class.opcode == Op::LoopMerge {
            let continue_target = self.block_of(inst, self.id_op(inst, 1)?)?;
            Ok(crate::program::Merge::Loop {
                merge,
                continue_target,
            })
        } else {
            Ok(crate::program::Merge::Selection { merge })
        }
    }

    fn lower_terminator(&mut self, inst: &Instruction) -> Result<Terminator, LoadError> {
        Ok(match inst.class.opcode {
            Op::Branch => Terminator::Branch {
                target: self.block_of(inst, self.id_op(inst, 0)?)?,
            },
            Op::BranchConditional => {
                let (cond, _, cty) = self.value(inst, self.id_op(inst, 0)?)?;
                if self.types.get(cty) != &Type::Scalar(ScalarTy::Bool) {
                    return Err(self.invalid(inst, "condition must be a boolean scalar"));
                }
                Terminator::BranchConditional {
                    cond,
                    t: self.block_of(inst, self.id_op(inst, 1)?)?,
                    f: self.block_of(inst, self.id_op(inst, 2)?)?,
                }
            }
            Op::Switch => {
                let (selector, _, sty) = self.value(inst, self.id_op(inst, 0)?)?;
                let bits = match self.types.get(sty) {
                    Type::Scalar(ScalarTy::Int { bits, .. }) => *bits,
                    _ => {
                        return Err(self.invalid(inst, "switch selector must be an integer scalar"))
                    }
                };
                let default = self.block_of(inst, self.id_op(inst, 1)?)?;
                let mut cases = Vec::new();
                for pair in inst.operands[2..].chunks(2) {
                    let lit = match pair.first() {
                        Some(Operand::LiteralBit32(v)) => u64::from(*v),
                        Some(Operand::LiteralBit64(v)) => *v,
                        _ => return Err(self.invalid(inst, "bad OpSwitch case literal")),
                    };
                    let target = match pair.get(1) {
                        Some(Operand::IdRef(t)) => self.block_of(inst, *t)?,
                        _ => return Err(self.invalid(inst, "bad OpSwitch case target")),
                    };
                    cases.push((lit & mask(u32::from(bits)), target));
                }
                Terminator::Switch {
                    selector,
                    bits,
                    default,
                    cases,
                }
            }
            Op::Return => Terminator::Return,
            Op::ReturnValue => {
                let (src, n, _) = self.value(inst, self.id_op(inst, 0)?)?;
                Terminator::ReturnValue { src, n }
            }
            Op::Unreachable => Terminator::Unreachable,
            _ => Terminator::Kill,
        })
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
