//! The SPIR-V grammar as the text tools need it, read from what rspirv carries: instruction
//! operand lists and quantifiers from `rspirv::grammar`, enumerant names and values from the
//! `rspirv::spirv` enums and bitflags, extended instruction sets from `ext_inst_table`.
//!
//! rspirv does not publish which parameters follow an enumerant (`Offset 4`, `Aligned 16`,
//! `LocalSize 8 8 1`); its binary parser knows them, so they are learned by letting that parser
//! read a one-instruction probe module (see [`Grammar::params`]).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use rspirv::binary::Disassemble;
use rspirv::dr;
use rspirv::grammar::{
    ExtInstOp, ExtendedInstruction, Instruction, InstructionTable, OperandKind as K,
    OperandQuantifier as Q,
};
use rspirv::spirv;

/// What one operand of a pattern is, in SPIRV-Tools' terms: the text tools treat these alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    ResultType,
    Result,
    Id,
    /// An `IdScope`, also a literal `Scope`, which SPIRV-Tools reads as an id too.
    ScopeId,
    /// An `IdMemorySemantics`, also a literal `MemorySemantics`.
    MemSemId,
    LitInt,
    LitFloat,
    /// The value of `OpConstant` / `OpSpecConstant`, sized by the result type.
    TypedLit,
    /// A case literal of `OpSwitch`, sized by the selector's type.
    SwitchLit,
    Str,
    ExtNum,
    SpecOpNum,
    Enum(K),
    Mask(K),
}

/// One entry of an expected-operand pattern.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Pat {
    One(Ty),
    Opt(Ty),
    /// Zero or more.
    Var(Ty),
    /// Zero or more pairs; once the first half is there the second is required.
    VarPair(Ty, Ty),
}

impl Pat {
    pub(crate) fn is_optional(self) -> bool {
        !matches!(self, Pat::One(_))
    }
}

/// A stack of expected operands, the next one last, as SPIRV-Tools keeps it.
pub(crate) type Pattern = Vec<Pat>;

/// Pops the next concrete operand, expanding repeats as it goes. Returns the operand and
/// whether it may be absent.
pub(crate) fn take_operand(pattern: &mut Pattern) -> Option<(Ty, bool)> {
    loop {
        match pattern.pop()? {
            Pat::One(t) => return Some((t, false)),
            Pat::Opt(t) => return Some((t, true)),
            p @ Pat::Var(t) => {
                pattern.push(p);
                pattern.push(Pat::Opt(t));
            }
            p @ Pat::VarPair(a, b) => {
                pattern.push(p);
                pattern.push(Pat::One(b));
                pattern.push(Pat::Opt(a));
            }
        }
    }
}

/// Pushes `ops` so that the first of them is taken next.
pub(crate) fn push_operands(pattern: &mut Pattern, ops: &[Pat]) {
    pattern.extend(ops.iter().rev());
}

fn ty_of_kind(kind: K) -> Ty {
    match kind {
        K::IdResultType => Ty::ResultType,
        K::IdResult => Ty::Result,
        // SPIRV-Tools reads OpPhi's (value, parent) pairs as plain ids.
        K::IdRef | K::PairIdRefIdRef => Ty::Id,
        K::IdScope | K::Scope => Ty::ScopeId,
        K::IdMemorySemantics | K::MemorySemantics => Ty::MemSemId,
        K::LiteralInteger => Ty::LitInt,
        K::LiteralFloat => Ty::LitFloat,
        K::LiteralString => Ty::Str,
        K::LiteralContextDependentNumber => Ty::TypedLit,
        K::LiteralExtInstInteger => Ty::ExtNum,
        K::LiteralSpecConstantOpInteger => Ty::SpecOpNum,
        k if is_mask(k) => Ty::Mask(k),
        k if is_value_enum(k) => Ty::Enum(k),
        // Operand kinds private to an extended instruction set (OpenCL.DebugInfo.100 flags and
        // the like) have no names in rspirv, so their words are shown as numbers.
        _ => Ty::LitInt,
    }
}

/// The pattern for a grammar operand list, as SPIRV-Tools derives it from the same grammar.
fn pattern_of(operands: &[rspirv::grammar::LogicalOperand]) -> Vec<Pat> {
    let mut pattern = Vec::new();
    for o in operands {
        let pair = match o.kind {
            K::PairLiteralIntegerIdRef => Some((Ty::SwitchLit, Ty::Id)),
            K::PairIdRefLiteralInteger => Some((Ty::Id, Ty::LitInt)),
            _ => None,
        };
        match (pair, o.quantifier) {
            (Some((a, b)), Q::ZeroOrMore) => pattern.push(Pat::VarPair(a, b)),
            (Some((a, b)), _) => pattern.extend([Pat::One(a), Pat::One(b)]),
            (None, Q::One) => pattern.push(Pat::One(ty_of_kind(o.kind))),
            (None, Q::ZeroOrOne) => pattern.push(Pat::Opt(ty_of_kind(o.kind))),
            (None, Q::ZeroOrMore) => pattern.push(Pat::Var(ty_of_kind(o.kind))),
        }
    }
    pattern
}

macro_rules! enum_kinds {
    (values: [$($v:ident),* $(,)?], masks: [$($m:ident),* $(,)?]) => {
        fn is_value_enum(kind: K) -> bool {
            matches!(kind, $(K::$v)|*)
        }

        fn is_mask(kind: K) -> bool {
            matches!(kind, $(K::$m)|*)
        }

        /// The name rspirv gives a value of a value enum (Rust spelling, see [`value_name`]).
        fn value_rust_name(kind: K, value: u32) -> Option<String> {
            match kind {
                $(K::$v => spirv::$v::from_u32(value).map(|e| format!("{e:?}")),)*
                _ => None,
            }
        }

        fn value_from_rust_name(kind: K, name: &str) -> Option<u32> {
            match kind {
                $(K::$v => name.parse::<spirv::$v>().ok().map(|e| e as u32),)*
                _ => None,
            }
        }

        /// The grammar name of one mask bit, `None` if the bit is not in the grammar.
        fn mask_bit_name(kind: K, bit: u32) -> Option<String> {
            match kind {
                $(K::$m => spirv::$m::from_bits(bit)
                    .filter(|b| !b.is_empty())
                    .map(|b| b.disassemble()),)*
                _ => None,
            }
        }

        /// The operand type of a parameter as rspirv's parser decoded it.
        fn operand_kind(op: &dr::Operand) -> Option<Ty> {
            Some(match op {
                $(dr::Operand::$v(_) => Ty::Enum(K::$v),)*
                $(dr::Operand::$m(_) => Ty::Mask(K::$m),)*
                dr::Operand::IdRef(_) => Ty::Id,
                dr::Operand::IdScope(_) => Ty::ScopeId,
                dr::Operand::IdMemorySemantics(_) => Ty::MemSemId,
                dr::Operand::LiteralBit32(_) => Ty::LitInt,
                dr::Operand::LiteralString(_) => Ty::Str,
                _ => return None,
            })
        }
    };
}

enum_kinds! {
    values: [
        SourceLanguage, ExecutionModel, AddressingModel, MemoryModel, ExecutionMode,
        StorageClass, Dim, SamplerAddressingMode, SamplerFilterMode, ImageFormat,
        ImageChannelOrder, ImageChannelDataType, FPRoundingMode, FPDenormMode, QuantizationModes,
        FPOperationMode, OverflowModes, LinkageType, AccessQualifier, HostAccessQualifier,
        FunctionParameterAttribute, Decoration, BuiltIn, GroupOperation,
        KernelEnqueueFlags, Capability, RayQueryIntersection, RayQueryCommittedIntersectionType,
        RayQueryCandidateIntersectionType, PackedVectorFormat, CooperativeMatrixLayout,
        CooperativeMatrixUse, TensorClampMode, InitializationModeQualifier, LoadCacheControl,
        StoreCacheControl, NamedMaximumNumberOfRegisters, FPEncoding,
        CooperativeVectorMatrixLayout, ComponentType,
    ],
    masks: [
        ImageOperands, FPFastMathMode, SelectionControl, LoopControl, FunctionControl,
        MemoryAccess, KernelProfilingInfo, RayFlags, FragmentShadingRate,
        RawAccessChainOperands, CooperativeMatrixOperands, CooperativeMatrixReduce,
        TensorAddressingOperands, MatrixMultiplyAccumulateOperands, TensorOperands,
    ]
}

// Scope and MemorySemantics are enums in rspirv too, but SPIRV-Tools reads every operand of those
// kinds as an id, so they never need names here.

/// The grammar name of a value of a value enum. Rust names equal the grammar's except where the
/// grammar's start with a digit (`Dim1D` is `1D`).
pub(crate) fn value_name(kind: K, value: u32) -> Option<String> {
    let name = value_rust_name(kind, value)?;
    Some(match kind {
        K::Dim => name.trim_start_matches("Dim").to_string(),
        _ => name,
    })
}

pub(crate) fn value_from_name(kind: K, name: &str) -> Option<u32> {
    match kind {
        K::Dim => value_from_rust_name(kind, &format!("Dim{name}")),
        _ => value_from_rust_name(kind, name),
    }
}

/// The name of a mask's zero value, where the grammar has one. rspirv's bitflags spell it in
/// upper case and its disassembler always says "None", so the few vendor-suffixed ones are named
/// here.
pub(crate) fn mask_zero_name(kind: K) -> Option<&'static str> {
    match kind {
        K::FragmentShadingRate | K::CooperativeMatrixReduce => None,
        K::RayFlags | K::CooperativeMatrixOperands => Some("NoneKHR"),
        K::TensorOperands => Some("NoneARM"),
        _ => Some("None"),
    }
}

/// Mask words as SPIRV-Tools prints them: bit names joined by `|`, low bits first.
pub(crate) fn mask_text(kind: K, word: u32) -> Option<String> {
    if word == 0 {
        return Some(mask_zero_name(kind).unwrap_or("").to_string());
    }
    let mut parts = Vec::new();
    for shift in 0..32 {
        let bit = 1u32 << shift;
        if word & bit != 0 {
            parts.push(mask_bit_name(kind, bit)?);
        }
    }
    Some(parts.join("|"))
}

/// Reads `A|B|C` (or the zero name) into a mask word.
pub(crate) fn mask_from_text(kind: K, text: &str) -> Option<u32> {
    let mut word = 0u32;
    for part in text.split('|') {
        if mask_zero_name(kind) == Some(part) {
            continue;
        }
        let bit = (0..32)
            .map(|s| 1u32 << s)
            .find(|&b| mask_bit_name(kind, b).as_deref() == Some(part))?;
        word |= bit;
    }
    Some(word)
}

/// The name of an operand kind in messages.
pub(crate) fn kind_name(kind: K) -> String {
    format!("{kind:?}")
}

/// Opcodes that `OpSpecConstantOp` may name (SPIR-V spec, OpSpecConstantOp), which SPIRV-Tools
/// also enforces when reading and writing.
const SPEC_CONSTANT_OPS: &[spirv::Op] = &[
    spirv::Op::SConvert,
    spirv::Op::FConvert,
    spirv::Op::ConvertFToS,
    spirv::Op::ConvertSToF,
    spirv::Op::ConvertFToU,
    spirv::Op::ConvertUToF,
    spirv::Op::UConvert,
    spirv::Op::ConvertPtrToU,
    spirv::Op::ConvertUToPtr,
    spirv::Op::GenericCastToPtr,
    spirv::Op::PtrCastToGeneric,
    spirv::Op::Bitcast,
    spirv::Op::QuantizeToF16,
    spirv::Op::SNegate,
    spirv::Op::Not,
    spirv::Op::IAdd,
    spirv::Op::ISub,
    spirv::Op::IMul,
    spirv::Op::UDiv,
    spirv::Op::SDiv,
    spirv::Op::UMod,
    spirv::Op::SRem,
    spirv::Op::SMod,
    spirv::Op::ShiftRightLogical,
    spirv::Op::ShiftRightArithmetic,
    spirv::Op::ShiftLeftLogical,
    spirv::Op::BitwiseOr,
    spirv::Op::BitwiseAnd,
    spirv::Op::BitwiseXor,
    spirv::Op::FNegate,
    spirv::Op::FAdd,
    spirv::Op::FSub,
    spirv::Op::FMul,
    spirv::Op::FDiv,
    spirv::Op::FRem,
    spirv::Op::FMod,
    spirv::Op::VectorShuffle,
    spirv::Op::CompositeExtract,
    spirv::Op::CompositeInsert,
    spirv::Op::LogicalOr,
    spirv::Op::LogicalAnd,
    spirv::Op::LogicalNot,
    spirv::Op::LogicalEqual,
    spirv::Op::LogicalNotEqual,
    spirv::Op::Select,
    spirv::Op::IEqual,
    spirv::Op::INotEqual,
    spirv::Op::ULessThan,
    spirv::Op::SLessThan,
    spirv::Op::UGreaterThan,
    spirv::Op::SGreaterThan,
    spirv::Op::ULessThanEqual,
    spirv::Op::SLessThanEqual,
    spirv::Op::UGreaterThanEqual,
    spirv::Op::SGreaterThanEqual,
    spirv::Op::AccessChain,
    spirv::Op::InBoundsAccessChain,
    spirv::Op::PtrAccessChain,
    spirv::Op::InBoundsPtrAccessChain,
    spirv::Op::CooperativeMatrixLengthNV,
    spirv::Op::CooperativeMatrixLengthKHR,
];

pub(crate) fn is_spec_constant_op(opcode: u32) -> bool {
    SPEC_CONSTANT_OPS.iter().any(|&op| op as u32 == opcode)
}

/// An extended instruction set as SPIRV-Tools classifies an `OpExtInstImport` name.
#[derive(Clone, Copy)]
pub(crate) struct ExtSet {
    /// The set's grammar when SPIRV-Tools names its instructions.
    pub(crate) table: Option<&'static InstructionTable<ExtInstOp>>,
    /// rspirv's grammar for sets SPIRV-Tools treats as unknown non-semantic ones: their
    /// instruction names are accepted when assembling but numbers are printed.
    pub(crate) extra_names: Option<&'static InstructionTable<ExtInstOp>>,
    pub(crate) non_semantic: bool,
}

/// Classifies an import name the way SPIRV-Tools 2025.5 does; `None` for names it refuses.
pub(crate) fn ext_set(name: &str) -> Option<ExtSet> {
    use rspirv::grammar::ext_inst_table;
    let named = |table_name: &str, non_semantic: bool| ExtSet {
        table: ext_inst_table(table_name),
        extra_names: None,
        non_semantic,
    };
    Some(match name {
        "GLSL.std.450"
        | "OpenCL.std"
        | "SPV_AMD_shader_explicit_vertex_parameter"
        | "SPV_AMD_shader_trinary_minmax"
        | "SPV_AMD_gcn_shader"
        | "SPV_AMD_shader_ballot"
        | "DebugInfo"
        | "OpenCL.DebugInfo.100"
        | "TOSA.001000.1"
        | "Arm.MotionEngine.100" => named(name, false),
        "NonSemantic.Shader.DebugInfo.100" => named(name, true),
        // Versioned names, e.g. NonSemantic.ClspvReflection.6.
        n if n.starts_with("NonSemantic.ClspvReflection.") => {
            named("NonSemantic.ClspvReflection", true)
        }
        n if n.starts_with("NonSemantic.VkspReflection.") => {
            named("NonSemantic.VkspReflection", true)
        }
        n if n.starts_with("NonSemantic.") => ExtSet {
            table: None,
            extra_names: ext_inst_table(n),
            non_semantic: true,
        },
        _ => return None,
    })
}

pub(crate) fn ext_inst_by_number(
    table: &'static InstructionTable<ExtInstOp>,
    number: u32,
) -> Option<&'static ExtendedInstruction<'static>> {
    table.iter().find(|i| u32::from(i.opcode) == number)
}

pub(crate) fn ext_inst_by_name(
    table: &'static InstructionTable<ExtInstOp>,
    name: &str,
) -> Option<&'static ExtendedInstruction<'static>> {
    table.iter().find(|i| i.opname == name)
}

/// The operand pattern of an extended instruction, after its number.
pub(crate) fn ext_inst_pattern(inst: &ExtendedInstruction<'static>) -> Vec<Pat> {
    pattern_of(inst.operands)
}

/// Whether an opcode declares a type: SPIRV-Tools' `spvOpcodeGeneratesType`, which is every
/// `OpType*` with a result id except `OpTypeForwardPointer`.
pub(crate) fn generates_type(inst: &Instruction<'static>) -> bool {
    inst.opname.starts_with("Type")
        && inst.opcode != spirv::Op::TypeForwardPointer
        && inst.operands.first().map(|o| o.kind) == Some(K::IdResult)
}

/// One instruction's grammar, with the pattern SPIRV-Tools reads it by.
pub(crate) struct OpInfo {
    pub(crate) inst: &'static Instruction<'static>,
    pub(crate) pattern: Vec<Pat>,
    pub(crate) has_result: bool,
    pub(crate) has_type: bool,
    pub(crate) generates_type: bool,
}

/// Enumerant parameters found so far, `None` for values the grammar lacks.
type ParamCache = HashMap<(K, u32), Option<Vec<Ty>>>;

/// Lookup tables over rspirv's grammar, built once per process (they depend on nothing else).
pub(crate) struct Grammar {
    by_opcode: HashMap<u32, OpInfo>,
    by_name: HashMap<&'static str, u32>,
    /// For each enum or mask kind, an instruction that ends with an operand of that kind and
    /// has only one-word operands before it, to probe rspirv's parser with.
    probe_hosts: HashMap<K, &'static Instruction<'static>>,
    params: Mutex<ParamCache>,
}

impl Grammar {
    /// The shared instance.
    pub(crate) fn get() -> &'static Grammar {
        static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
        GRAMMAR.get_or_init(Grammar::new)
    }

    fn new() -> Self {
        let mut by_opcode = HashMap::new();
        let mut by_name = HashMap::new();
        let mut probe_hosts = HashMap::new();
        for inst in rspirv::grammar::INSTRUCTION_TABLE.iter() {
            let opcode = inst.opcode as u32;
            let mut pattern = pattern_of(inst.operands);
            // SPIRV-Tools reads OpExtInst's operands from the set's own grammar, so it drops the
            // catch-all ids the core grammar ends with.
            if inst.opcode == spirv::Op::ExtInst {
                pattern.pop();
            }
            let kinds: Vec<K> = inst.operands.iter().map(|o| o.kind).collect();
            by_opcode.insert(
                opcode,
                OpInfo {
                    inst,
                    pattern,
                    has_result: kinds.contains(&K::IdResult),
                    has_type: kinds.contains(&K::IdResultType),
                    generates_type: generates_type(inst),
                },
            );
            by_name.insert(inst.opname, opcode);
            if let Some((last, rest)) = inst.operands.split_last() {
                let simple = rest.iter().all(|o| {
                    o.quantifier == Q::One
                        && matches!(
                            o.kind,
                            K::IdResultType
                                | K::IdResult
                                | K::IdRef
                                | K::IdScope
                                | K::IdMemorySemantics
                                | K::LiteralInteger
                        )
                });
                if simple && (is_mask(last.kind) || is_value_enum(last.kind)) {
                    probe_hosts.entry(last.kind).or_insert(inst);
                }
            }
        }
        Grammar {
            by_opcode,
            by_name,
            probe_hosts,
            params: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn op(&self, opcode: u32) -> Option<&OpInfo> {
        self.by_opcode.get(&opcode)
    }

    /// An opcode by its name without the `Op` prefix. rspirv keeps opcode aliases only as Rust
    /// constants, so an unknown vendor-suffixed name is tried without its suffix (`SDotKHR`,
    /// `DecorateStringGOOGLE`, promoted to core) and then with the other vendors' suffixes
    /// (`ReportIntersectionNV` is `ReportIntersectionKHR`).
    pub(crate) fn opcode_by_name(&self, name: &str) -> Option<u32> {
        const VENDORS: [&str; 11] = [
            "KHR", "EXT", "NV", "NVX", "GOOGLE", "INTEL", "ALTERA", "AMD", "AMDX", "ARM", "QCOM",
        ];
        if let Some(&op) = self.by_name.get(name) {
            return Some(op);
        }
        let base = VENDORS.iter().find_map(|v| name.strip_suffix(v))?;
        std::iter::once(String::new())
            .chain(VENDORS.iter().map(|v| v.to_string()))
            .find_map(|v| self.by_name.get(format!("{base}{v}").as_str()).copied())
    }

    /// The parameters that follow the enumerant `value` of `kind` (for a mask, one bit), or
    /// `None` when the value is not in the grammar.
    pub(crate) fn params(&self, kind: K, value: u32) -> Option<Vec<Ty>> {
        if let Some(known) = self.cache().get(&(kind, value)) {
            return known.clone();
        }
        let known = self.probe(kind, value);
        self.cache().insert((kind, value), known.clone());
        known
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, ParamCache> {
        // A poisoned lock only means another caller panicked mid-insert; the map is still sound.
        self.params.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn probe(&self, kind: K, value: u32) -> Option<Vec<Ty>> {
        let valid = if is_mask(kind) {
            value == 0 || mask_bit_name(kind, value).is_some()
        } else {
            value_name(kind, value).is_some()
        };
        if !valid {
            return None;
        }
        let Some(host) = self.probe_hosts.get(&kind) else {
            // No instruction to probe with: no kind used in core instructions lacks one.
            return Some(Vec::new());
        };
        let before = host.operands.len() - 1;
        for filler in [0u32, 1] {
            for extra in 0..8usize {
                let count = 1 + before + 1 + extra;
                let mut words = vec![spirv::MAGIC_NUMBER, 0x0001_0600, 0, 64, 0];
                words.push(((count as u32) << 16) | host.opcode as u32);
                words.extend(std::iter::repeat_n(1, before));
                words.push(value);
                words.extend(std::iter::repeat_n(filler, extra));
                let mut sink = ProbeSink(None);
                match rspirv::binary::parse_words(&words, &mut sink) {
                    Ok(()) => {
                        let inst = sink.0?;
                        let skip = host
                            .operands
                            .iter()
                            .filter(|o| !matches!(o.kind, K::IdResultType | K::IdResult))
                            .count();
                        return inst
                            .operands
                            .get(skip..)?
                            .iter()
                            .map(operand_kind)
                            .collect();
                    }
                    Err(rspirv::binary::ParseState::OperandError(
                        rspirv::binary::DecodeError::LimitReached(_)
                        | rspirv::binary::DecodeError::StreamExpected(_),
                    )) => continue,
                    Err(_) => break,
                }
            }
        }
        Some(Vec::new())
    }
}

/// Keeps the one instruction of a probe module.
struct ProbeSink(Option<dr::Instruction>);

impl rspirv::binary::Consumer for ProbeSink {
    fn initialize(&mut self) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn finalize(&mut self) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn consume_header(&mut self, _: dr::ModuleHeader) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn consume_instruction(&mut self, inst: dr::Instruction) -> rspirv::binary::ParseAction {
        self.0 = Some(inst);
        rspirv::binary::ParseAction::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumerant_parameters_come_from_rspirv() {
        let g = Grammar::get();
        let d = |d: spirv::Decoration| g.params(K::Decoration, d as u32).unwrap();
        assert!(matches!(d(spirv::Decoration::Offset)[..], [Ty::LitInt]));
        assert!(matches!(
            d(spirv::Decoration::BuiltIn)[..],
            [Ty::Enum(K::BuiltIn)]
        ));
        assert!(d(spirv::Decoration::Block).is_empty());
        assert!(matches!(
            d(spirv::Decoration::LinkageAttributes)[..],
            [Ty::Str, Ty::Enum(K::LinkageType)]
        ));
        let m = g
            .params(K::ExecutionMode, spirv::ExecutionMode::LocalSize as u32)
            .unwrap();
        assert!(matches!(m[..], [Ty::LitInt, Ty::LitInt, Ty::LitInt]));
        let m = g
            .params(K::ExecutionMode, spirv::ExecutionMode::LocalSizeId as u32)
            .unwrap();
        assert!(matches!(m[..], [Ty::Id, Ty::Id, Ty::Id]));
        let a = g
            .params(K::MemoryAccess, spirv::MemoryAccess::ALIGNED.bits())
            .unwrap();
        assert!(matches!(a[..], [Ty::LitInt]));
        let i = g
            .params(K::ImageOperands, spirv::ImageOperands::GRAD.bits())
            .unwrap();
        assert!(matches!(i[..], [Ty::Id, Ty::Id]));
        assert!(g.params(K::Decoration, 0xdead).is_none());
    }

    #[test]
    fn names_match_the_grammar() {
        assert_eq!(value_name(K::Dim, 1).as_deref(), Some("2D"));
        assert_eq!(value_from_name(K::Dim, "Buffer"), Some(5));
        assert_eq!(
            mask_text(K::LoopControl, 3).as_deref(),
            Some("Unroll|DontUnroll")
        );
        assert_eq!(mask_text(K::FunctionControl, 0).as_deref(), Some("None"));
        assert_eq!(mask_from_text(K::LoopControl, "DontUnroll"), Some(2));
        assert_eq!(
            value_from_name(K::StorageClass, "StorageBuffer"),
            Some(spirv::StorageClass::StorageBuffer as u32)
        );
    }
}
