//! Lanescope's own program representation: what the loader builds from SPIR-V and the only thing
//! the executor reads. Ids are dense indices; operands are pre-resolved register slots.
//!
//! Plain data, no references to rspirv: types, blocks, functions, resources, leaf tables (the byte
//! offset and type of every scalar a load or store touches). A pointer value is one `u64`
//! (`encode_ptr`: space, region, byte offset), so variable pointers (selected, phi'd, stored in
//! memory, compared, `OpPtrDiff`) need nothing beyond the loader taking what a pointer points to
//! from its type; the null pointer is a region no resource has. Values below 2^61 are device
//! addresses (PhysicalStorageBuffer pointers hold what the GPU would: loaded, stored, converted and
//! added as integers); `Memory::resolve` turns one into the buffer pointer whose bound address
//! range holds it at each access, so every memory path (bounds, poison, race log, parallel
//! footprints) sees ordinary pointers. Images are resources too: their texels are a buffer storage,
//! an image or sampler value is a handle (a buffer pointer to the image's resource, the sampler's
//! in its low bits), and `exec/image.rs` turns texel coordinates into buffer accesses
//! (`program/image.rs` holds the formats, image types and samplers as plain data). A descriptor
//! array (of buffers, images or samplers) is one resource per element, consecutive, so its first
//! index adds to the pointer's or handle's region (`AccessStep::Descriptor`).

// Source-level debug information and the verbatim module are read by the SPIR-V crate.
pub use lanescope_spirv::debug;
mod fields;
pub mod image;
mod inst;
mod types;
mod warning;

// The operations pure semantics (`crate::alu`) take are public; the pre-decoded instruction
// form is the executor's own (front ends read instructions through `crate::view`).
pub use fields::{Field, Fields};
pub(crate) use inst::{
    AccessStep, AtomicOp, GroupOp, Inst, Opnd, Printf, ReduceOp, SubgroupOp, Terminator, WideOp,
    BITFIELD_INSERT, BITFIELD_SEXTRACT, BITFIELD_UEXTRACT,
};
pub use inst::{BinOp, ConvOp, UnOp};
pub use lanescope_spirv::{literal_string, SpirvModule};
pub use types::{round_up, scalar_name, Layout, Leaf, Type, TypeId, Types, MAX_TYPE_BYTES};
pub use warning::{Warning, WarningCode};

use crate::value::ScalarTy;

/// Index of a block in `Program::blocks` (global over all functions).
pub type BlockId = u32;
/// Index of a function in `Program::functions`.
pub type FuncId = u32;

/// How blocks are laid out in memory spaces that have no explicit layout (Function, Private,
/// Workgroup, Input): naturally aligned, tightly packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Space {
    /// A descriptor-bound buffer (StorageBuffer, Uniform, PushConstant); region = resource index.
    Buffer,
    /// Workgroup memory, shared by every invocation of a workgroup.
    Workgroup,
    /// Per-invocation memory: Private, Function and Input (builtins) variables.
    Invocation,
}

/// A structured-control-flow merge instruction declared in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Merge {
    /// `OpSelectionMerge` (of an if or a switch).
    Selection {
        /// The merge block.
        merge: BlockId,
    },
    /// `OpLoopMerge`.
    Loop {
        /// The loop's merge block.
        merge: BlockId,
        /// The loop's continue target.
        continue_target: BlockId,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Phi {
    pub dst: u32,
    pub width: u32,
    pub incoming: Vec<(BlockId, Opnd)>,
}

/// A block of a function: its instructions, run one step each, then its terminator.
#[derive(Clone, Debug)]
pub struct Block {
    /// The SPIR-V result id of the OpLabel.
    pub label: u32,
    /// The function it belongs to.
    pub func: FuncId,
    pub(crate) phis: Vec<Phi>,
    /// Non-phi instructions; the terminator is `term`, executed as the step after the last one.
    pub(crate) insts: Vec<Inst>,
    pub(crate) term: Terminator,
    /// The merge instruction it declares, if any.
    pub merge: Option<Merge>,
    /// Index in the module's instruction stream of the instruction after the block's OpLabel.
    pub first_inst_index: u32,
    /// Module instruction index of each step (insts, then the terminator).
    pub inst_indices: Vec<u32>,
    /// debugPrintf calls, each with the step (index into insts, or the terminator's) it runs
    /// before, in order.
    pub(crate) printfs: Vec<(u32, Printf)>,
}

impl Block {
    /// Number of steps a tangle takes through this block (instructions plus terminator).
    pub fn len(&self) -> u32 {
        self.insts.len() as u32 + 1
    }

    /// Always false: a block has at least its terminator.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The blocks its terminator may branch to (for a switch, the default first); none for a
    /// return or another exit.
    pub fn successors(&self) -> Vec<BlockId> {
        match &self.term {
            Terminator::Branch { target } => vec![*target],
            Terminator::BranchConditional { t, f, .. } => vec![*t, *f],
            Terminator::Switch { default, cases, .. } => {
                let mut v = vec![*default];
                v.extend(cases.iter().map(|c| c.1));
                v
            }
            _ => vec![],
        }
    }
}

/// A function of the module.
#[derive(Clone, Debug)]
pub struct Function {
    /// The SPIR-V result id of its OpFunction.
    pub id: u32,
    /// Its OpName, or `%id`.
    pub name: String,
    /// Its first block.
    pub entry: BlockId,
    /// Its blocks, in the module's order.
    pub blocks: Vec<BlockId>,
    /// Each parameter's register slot and component count.
    pub params: Vec<(u32, u32)>,
    /// `None` when it returns void; else `(0, n)`, `n` the component count of the returned value
    /// (the 0 is unused).
    pub ret: Option<(u32, u32)>,
}

/// The storage classes of the variables a compute shader may declare (the loader refuses any
/// other), named as SPIR-V names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum StorageClass {
    /// A buffer (SSBO).
    StorageBuffer,
    /// A uniform buffer (or, with BufferBlock, an older-style storage buffer).
    Uniform,
    /// Push constants.
    PushConstant,
    /// Shared by the invocations of a workgroup.
    Workgroup,
    /// Each invocation's own, for the whole invocation.
    Private,
    /// Each invocation's own, for one call of its function.
    Function,
    /// Built-in inputs (the invocation's ids).
    Input,
    /// Images, samplers and sampled images.
    UniformConstant,
}

/// A variable with memory of its own: where it lives and how big it is.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Variable {
    /// The SPIR-V result id of its OpVariable.
    pub id: u32,
    /// Its OpName, or `%id`.
    pub name: String,
    /// The memory it is in.
    pub space: Space,
    /// Its storage class (serialized as SPIR-V names it: `StorageBuffer`, `Function`, ...).
    pub storage_class: StorageClass,
    /// Byte offset within its space (0 for buffers, which own their region).
    pub offset: u32,
    /// Size in bytes; for a buffer ending in a runtime array, the fixed part.
    pub size: u32,
    /// (set, binding) for a descriptor-bound variable (not push constants).
    pub binding: Option<(u32, u32)>,
    /// Index in `Program::resources` for buffers.
    pub resource: Option<u32>,
    /// The BuiltIn decoration's value, for an Input builtin.
    pub builtin: Option<u32>,
    /// Module instruction index of its OpVariable (where it is declared).
    pub instruction: u32,
    /// Whether it has an initializer.
    pub initialized: bool,
}

/// A buffer the host binds: storage or uniform buffer (set, binding), or the push constants.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Resource {
    /// The SPIR-V id of its variable.
    pub var: u32,
    /// The variable's name; `name[k]` for element `k` of a descriptor array.
    pub name: String,
    /// Descriptor set (0 when undecorated).
    pub set: u32,
    /// Binding in its set (0 when undecorated).
    pub binding: u32,
    /// Whether it is the push-constant block.
    pub push_constant: bool,
    /// Whether its storage class is Uniform (a uniform buffer, or an old-style BufferBlock
    /// storage buffer).
    pub uniform: bool,
    /// The shader cannot write it: push constants, uniform blocks, and buffers whose variable
    /// or every member is NonWritable.
    pub read_only: bool,
    /// No instruction of the module can write it (a buffer whose pointers never reach a store,
    /// an atomic or another write), though it is not declared read-only: its reads race with
    /// nothing (see `load::writes`).
    pub never_written: bool,
    /// Bytes of the fixed part; a runtime array after it may make the buffer larger.
    pub min_size: u32,
    /// Bytes per element of the runtime array that ends the block, when one does.
    pub runtime_array_stride: Option<u32>,
    /// An image (storage or sampled image, texel buffer, or the image of a combined image
    /// sampler): its bytes are the texels, described by the bound image.
    pub image: Option<image::ImageType>,
    /// A sampler (alone, or with `image`: a combined image sampler).
    pub sampler: bool,
    /// Element `k` of a descriptor array at (set, binding); the array's elements are
    /// consecutive resources. `None` for a binding of one descriptor.
    pub element: Option<u32>,
}

impl Resource {
    /// The array element this resource is bound at (0 for a single descriptor).
    pub fn element(&self) -> u32 {
        self.element.unwrap_or(0)
    }
}

/// A specialization constant and its default.
#[derive(Clone, Debug)]
pub struct SpecConstantInfo {
    /// Its SpecId decoration.
    pub spec_id: u32,
    /// Its SPIR-V result id.
    pub result_id: u32,
    /// Its OpName, or `%id`.
    pub name: String,
    /// Its scalar type.
    pub ty: ScalarTy,
    /// Its default value, as raw bits.
    pub default: u64,
}

/// Everything the executor needs, with no reference back to rspirv.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) entry_name: String,
    pub(crate) entry_func: FuncId,
    pub(crate) local_size: [u32; 3],
    pub(crate) maximal_reconvergence: bool,
    pub(crate) types: Types,
    pub(crate) functions: Vec<Function>,
    pub(crate) blocks: Vec<Block>,
    /// Number of register slots per lane.
    pub(crate) num_slots: u32,
    /// Slot values filled in before execution (constants), as (slot, raw bits).
    pub(crate) const_slots: Vec<(u32, u64)>,
    pub(crate) variables: Vec<Variable>,
    pub(crate) resources: Vec<Resource>,
    pub(crate) workgroup_bytes: u32,
    /// The size of the scalars most Workgroup memory holds (1, 2 or 4 for 4 or more): the
    /// race detector keeps its records of that memory in units of it.
    pub(crate) workgroup_unit: u8,
    pub(crate) invocation_bytes: u32,
    /// (byte offset in invocation memory, builtin, component count) for each Input builtin.
    pub(crate) inputs: Vec<(u32, u32, u32)>,
    /// Initial contents of Private and Workgroup variables with initialisers: (space, offset, bytes).
    pub(crate) initializers: Vec<(Space, u32, Vec<u8>)>,
    pub(crate) spec_constants: Vec<SpecConstantInfo>,
    /// SPIR-V id -> friendly name (OpName or `%id`).
    pub(crate) names: std::collections::BTreeMap<u32, String>,
    /// (struct type's SPIR-V id, member) -> OpMemberName.
    pub(crate) member_names: std::collections::BTreeMap<(u32, u32), String>,
    /// SPIR-V id -> (slot, width, type) for ids that hold values, for watches and the disassembly.
    pub(crate) id_slots: std::collections::BTreeMap<u32, (u32, u32, TypeId)>,
    /// Blocks that are a merge block, continue target or switch target somewhere: only branches
    /// to these can reconverge or escape.
    pub(crate) is_reconv_target: Vec<bool>,
    /// Instruction count of the whole module (for locations).
    pub(crate) module_instructions: u32,
    /// Memory leaves of each (type, layout) that a load or store uses.
    pub(crate) leaf_tables: Vec<Vec<Leaf>>,
    /// Width of the value starting at each slot (slots that start a value only).
    pub(crate) slot_width: std::collections::BTreeMap<u32, u32>,
    /// For each switch header: each target with the targets that fall through into it.
    pub(crate) fallthrough: std::collections::BTreeMap<BlockId, Vec<(BlockId, Vec<BlockId>)>>,
    /// The cooperative-matrix layout the program was loaded with, and the fragment of every
    /// cooperative-matrix type (`CoopType::frag` indexes it).
    pub(crate) coop_layout: crate::coopmat::LayoutChoice,
    pub(crate) coop_frags: Vec<std::sync::Arc<crate::coopmat::Fragment>>,
    /// Invocations per subgroup the Subgroup-scope fragments were built for.
    pub(crate) coop_subgroup_size: u32,
    /// The module's instructions as read, for the disassembly and source views.
    pub(crate) module: std::sync::Arc<SpirvModule>,
    /// Source files, lines, functions and variables, when the module carries them.
    pub(crate) debug: Option<debug::DebugInfo>,
    /// Whether some atomic instruction works on buffer memory: workgroups may then communicate,
    /// and what one sees can depend on which others ran before it.
    pub(crate) buffer_atomics: bool,
    /// Whether the module declares PhysicalStorageBufferAddresses: buffers bound but not
    /// declared can then be reached by their device addresses.
    pub(crate) physical_addresses: bool,
    /// Register slots of OpUndef values, (slot, width): undefined until overwritten.
    pub(crate) undef_slots: Vec<(u32, u32)>,
    /// What the loader accepted but ignored (capabilities declared and unused, unknown
    /// specialization constants, ...).
    pub(crate) warnings: Vec<Warning>,
    /// The entry point's float-controls execution modes (rounding, denormals) per width.
    pub(crate) float_controls: crate::float::FloatControls,
}

/// The null pointer (OpConstantNull of a pointer type): a region no resource has, so an access
/// through it is out of bounds, and it equals no pointer to a variable.
pub const NULL_PTR: u64 = 0x3fff_ffff << 32;

/// Physical (device) addresses are the values below this: a PhysicalStorageBuffer pointer holds
/// its raw address, which memory accesses look up among the bound buffers' address ranges.
/// Every other pointer value is a tagged (space, region, offset) triple at or above it.
pub const PHYSICAL_LIMIT: u64 = 1 << 61;

/// The region `decode_ptr` gives a physical address (no resource has it).
pub const PHYSICAL_REGION: u32 = u32::MAX;

/// Pointer values: space in bits 61..64 (001 buffer, 01x Workgroup, 1xx invocation memory),
/// region (resource index) in 32..61, byte offset in 0..32. Values below [`PHYSICAL_LIMIT`]
/// are physical addresses.
pub fn encode_ptr(space: Space, region: u32, offset: u32) -> u64 {
    let s = match space {
        Space::Buffer => 1u64 << 61,
        Space::Workgroup => 1 << 62,
        Space::Invocation => 2 << 62,
    };
    s | (u64::from(region & 0x1fff_ffff) << 32) | u64::from(offset)
}

/// A pointer value's (space, region, byte offset): the inverse of [`encode_ptr`]. A physical
/// address gives (`Buffer`, [`PHYSICAL_REGION`], its low 32 bits).
pub fn decode_ptr(p: u64) -> (Space, u32, u32) {
    match p >> 61 {
        0 => (Space::Buffer, PHYSICAL_REGION, p as u32),
        1 => (Space::Buffer, ((p >> 32) & 0x1fff_ffff) as u32, p as u32),
        2 | 3 => (Space::Workgroup, ((p >> 32) & 0x1fff_ffff) as u32, p as u32),
        _ => (
            Space::Invocation,
            ((p >> 32) & 0x1fff_ffff) as u32,
            p as u32,
        ),
    }
}

/// Whether a pointer value is a physical address.
#[inline]
pub fn is_physical(p: u64) -> bool {
    p < PHYSICAL_LIMIT
}

/// A pointer moved by `delta` bytes: a physical address moves in the whole address space
/// (clamped to its top, where no buffer is, when it would leave it); a tagged pointer moves
/// its 32-bit offset, parked at 4 GiB - 1 (never in bounds) when it would leave 0..4 GiB.
#[inline]
pub fn ptr_offset(p: u64, delta: i64) -> u64 {
    if is_physical(p) {
        let q = i128::from(p) + i128::from(delta);
        return q.clamp(0, i128::from(PHYSICAL_LIMIT - 1)) as u64;
    }
    let off = i64::from(p as u32).wrapping_add(delta);
    let off = u64::try_from(off)
        .ok()
        .filter(|o| *o <= u64::from(u32::MAX))
        .unwrap_or(u64::from(u32::MAX));
    (p & !0xffff_ffff) | off
}

/// A value made a PhysicalStorageBuffer pointer (OpConvertUToPtr, OpBitcast, a load): values
/// past the physical address space would read as tagged pointers, so they are clamped to its
/// top, where no buffer is.
#[inline]
pub fn physical_from_bits(v: u64) -> u64 {
    v.min(PHYSICAL_LIMIT - 1)
}

/// What the views, the front ends and the tools read of a program; the engine reads the fields.
impl Program {
    /// The entry point's name.
    pub fn entry_name(&self) -> &str {
        &self.entry_name
    }

    /// The entry point's function.
    pub fn entry_func(&self) -> FuncId {
        self.entry_func
    }

    /// The workgroup size (LocalSize, LocalSizeId or the WorkgroupSize builtin, after
    /// specialization).
    pub fn local_size(&self) -> [u32; 3] {
        self.local_size
    }

    /// Whether the entry point has the MaximallyReconvergesKHR execution mode.
    pub fn maximal_reconvergence(&self) -> bool {
        self.maximal_reconvergence
    }

    /// The types, with their layouts.
    pub fn types(&self) -> &Types {
        &self.types
    }

    /// The functions; `FuncId` indexes this.
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }

    /// The blocks of every function; `BlockId` indexes this.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Whether block `b` is a merge block, continue target or switch target somewhere (only
    /// branches to these can reconverge or escape).
    pub fn is_reconvergence_target(&self, b: BlockId) -> bool {
        self.is_reconv_target.get(b as usize) == Some(&true)
    }

    /// The buffers, images and samplers the shader declares, one per descriptor.
    pub fn resources(&self) -> &[Resource] {
        &self.resources
    }

    /// The specialization constants, with their defaults.
    pub fn spec_constants(&self) -> &[SpecConstantInfo] {
        &self.spec_constants
    }

    /// SPIR-V id -> friendly name (OpName, or `%id`).
    pub fn names(&self) -> &std::collections::BTreeMap<u32, String> {
        &self.names
    }

    /// Whether SPIR-V id `id` holds a value the views can show (a watch, the disassembly).
    pub fn has_value(&self, id: u32) -> bool {
        self.id_slots.contains_key(&id)
    }

    /// Every SPIR-V id that holds a value, with its type, in id order.
    pub fn values(&self) -> impl Iterator<Item = (u32, TypeId)> + '_ {
        self.id_slots.iter().map(|(&id, &(_, _, ty))| (id, ty))
    }

    /// The type of the value SPIR-V id `id` holds, when it holds one.
    pub fn value_type(&self, id: u32) -> Option<TypeId> {
        self.id_slots.get(&id).map(|&(_, _, ty)| ty)
    }

    /// Bytes of Private, Function and Input memory each invocation has.
    pub fn invocation_bytes(&self) -> u32 {
        self.invocation_bytes
    }

    /// Bytes of Workgroup memory each workgroup has.
    pub fn workgroup_bytes(&self) -> u32 {
        self.workgroup_bytes
    }

    /// The number of instructions in the module (every location numbers them).
    pub fn module_instructions(&self) -> u32 {
        self.module_instructions
    }

    /// The cooperative-matrix layout the program was loaded with.
    pub fn coop_layout(&self) -> &crate::coopmat::LayoutChoice {
        &self.coop_layout
    }

    /// Whether the program uses cooperative matrices.
    pub fn uses_coop_matrices(&self) -> bool {
        !self.coop_frags.is_empty()
    }

    /// How each cooperative-matrix type is spread over the lanes (`CoopType::frag` indexes it).
    pub fn coop_fragments(&self) -> &[std::sync::Arc<crate::coopmat::Fragment>] {
        &self.coop_frags
    }

    /// Invocations per subgroup the Subgroup-scope cooperative-matrix fragments were built for.
    pub fn coop_subgroup_size(&self) -> u32 {
        self.coop_subgroup_size
    }

    /// The module's instructions as read, for the disassembly and source views.
    pub fn module(&self) -> &std::sync::Arc<SpirvModule> {
        &self.module
    }

    /// Source files, lines, functions and variables, when the module carries them.
    pub fn debug(&self) -> Option<&debug::DebugInfo> {
        self.debug.as_ref()
    }

    /// Whether some atomic instruction works on buffer memory: workgroups may then communicate.
    pub fn buffer_atomics(&self) -> bool {
        self.buffer_atomics
    }

    /// Whether the module declares PhysicalStorageBufferAddresses.
    pub fn physical_addresses(&self) -> bool {
        self.physical_addresses
    }

    /// The entry point's float-controls execution modes (rounding, denormals) per width.
    pub fn float_controls(&self) -> &crate::float::FloatControls {
        &self.float_controls
    }

    /// What the loader accepted but ignored.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}

impl Program {
    /// The variable holding byte `offset` of a memory (Workgroup memory, or buffer resource
    /// `region`), with the member or element path to it: `tile[3]`, `data.values[7].x`.
    pub fn describe_address(&self, space: Space, region: u32, offset: u32) -> Option<String> {
        // A buffer region is a resource; a descriptor array's elements share its variable.
        let buffer_var = match space {
            Space::Buffer => self.resources.get(region as usize).map(|r| r.var),
            _ => None,
        };
        let var = self.variables.iter().find(|v| {
            v.space == space
                && match space {
                    Space::Buffer => Some(v.id) == buffer_var,
                    _ => offset >= v.offset && offset < v.offset.saturating_add(v.size.max(1)),
                }
        })?;
        let (_, _, ptr_ty) = *self.id_slots.get(&var.id)?;
        let Type::Pointer { pointee, .. } = self.types.get(ptr_ty) else {
            return Some(var.name.clone());
        };
        // An anonymous block (`buffer Out { uint outp[]; };`) has no name of its own: the path
        // starts at its member.
        let mut path = if self.names.contains_key(&var.id) {
            var.name.clone()
        } else {
            String::new()
        };
        let mut t = *pointee;
        // An element of a descriptor array: its own resource, a block of the array's type.
        let element = match space {
            Space::Buffer => self.resources.get(region as usize).and_then(|r| r.element),
            _ => None,
        };
        if let (Some(k), Type::Array { elem, .. }) = (element, self.types.get(t)) {
            path.push_str(&format!("[{k}]"));
            t = *elem;
        }
        let mut off = offset - var.offset.min(offset);
        // Down through members and elements, at most as deep as types nest.
        for _ in 0..32 {
            match self.types.get(t) {
                Type::Struct { members, .. } => {
                    let n = members.len() as u32;
                    let found = (0..n).rev().find_map(|m| {
                        let (mo, _, mt) = self.types.member(t, Layout::Plain, m)?;
                        (mo <= off).then_some((m, mo, mt))
                    });
                    let Some((m, mo, mt)) = found else { break };
                    let sid = self.types.spirv_ids.get(t as usize).copied().unwrap_or(0);
                    match self.member_names.get(&(sid, m)) {
                        Some(name) if !name.is_empty() => {
                            path.push('.');
                            path.push_str(name);
                        }
                        _ => path.push_str(&format!(".{m}")),
                    }
                    off -= mo;
                    t = mt;
                }
                Type::Array { .. } | Type::RuntimeArray { .. } | Type::Matrix { .. } => {
                    let Some((stride, _, elem, _)) = self.types.element_step(t, Layout::Plain)
                    else {
                        break;
                    };
                    let stride = stride.max(1);
                    path.push_str(&format!("[{}]", off / stride));
                    off %= stride;
                    if elem == TypeId::MAX {
                        break;
                    }
                    t = elem;
                }
                Type::Vector { elem, n } => {
                    let c = off / elem.size_bytes().max(1);
                    if c < *n {
                        path.push_str(&format!("[{c}]"));
                    }
                    break;
                }
                _ => break,
            }
        }
        // Root names from the shader's declaration style: an anonymous block's name is "".
        Some(path.trim_start_matches('.').to_owned())
    }

    /// Where module instruction `k` came from in the source, as far as the module says.
    pub fn source_ref(&self, k: u32) -> crate::trace::SourceRef {
        let Some(d) = &self.debug else {
            return crate::trace::SourceRef::default();
        };
        let mut frames = d.frames(k);
        if frames.is_empty() {
            return crate::trace::SourceRef::default();
        }
        let first = frames.remove(0);
        crate::trace::SourceRef {
            file: first.file,
            line: Some(first.line),
            column: first.column,
            inlined_at: frames,
        }
    }

    /// Where a breakpoint on `file:line` stops: the first step of every run of consecutive
    /// steps (in the module's order) the compiler put at that line, so a line inlined twice,
    /// or split by a loop, stops in each place.
    pub fn line_breakpoints(&self, file: u32, line: u32) -> Vec<u32> {
        let Some(d) = &self.debug else {
            return Vec::new();
        };
        let mut steps: Vec<u32> = self
            .blocks
            .iter()
            .flat_map(|b| b.inst_indices.iter().copied())
            .collect();
        steps.sort_unstable();
        let at = |k: u32| d.pos(k).is_some_and(|p| p.file == file && p.line == line);
        let mut out = Vec::new();
        let mut prev = false;
        for k in steps {
            let here = at(k);
            if here && !prev {
                out.push(k);
            }
            prev = here;
        }
        out
    }

    /// Module instruction index of step `pos` of block `b` (the terminator for the last).
    pub fn step_index(&self, b: BlockId, pos: u32) -> u32 {
        self.blocks.get(b as usize).map_or(0, |bl| {
            bl.inst_indices
                .get(pos as usize)
                .copied()
                .unwrap_or(bl.first_inst_index)
        })
    }

    /// The name of SPIR-V id `id`: its OpName, or `%id`.
    pub fn name_of(&self, id: u32) -> String {
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("%{id}"))
    }

    /// The name of block `b` (its label's OpName or `%id`; `block#b` when there is no such
    /// block).
    pub fn block_name(&self, b: BlockId) -> String {
        self.blocks
            .get(b as usize)
            .map_or_else(|| format!("block#{b}"), |bl| self.name_of(bl.label))
    }

    /// The name of function `f` (its OpName or `%id`; `function#f` when there is no such
    /// function).
    pub fn func_name(&self, f: FuncId) -> String {
        self.functions
            .get(f as usize)
            .map_or_else(|| format!("function#{f}"), |func| func.name.clone())
    }
}
