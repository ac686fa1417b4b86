//! Bytes to a module model: the header and every instruction's word count checked here (so an
//! error names the instruction and its byte offset), the logical layout's section order, the
//! operands rspirv would panic on; then rspirv's data representation of the semantic
//! instructions, each remembering its index in the verbatim stream.

use crate::error::{LoadError, Location};
use crate::module::{literal_string, SpirvModule};
use rspirv::dr;

/// A module read and parsed: the verbatim words and rspirv's model of its semantic instructions.
pub struct Parsed {
    /// rspirv's data representation, without the debug-only instructions.
    pub module: dr::Module,
    /// Every instruction verbatim, in stream order.
    pub raw: SpirvModule,
    /// For each instruction rspirv holds, in its order, the instruction's index in `raw`.
    pub kept: Vec<u32>,
    /// Capabilities newer than the grammar Lanescope knows: (value, instruction index). rspirv
    /// sees `Shader` in their place.
    pub unknown_caps: Vec<(u32, u32)>,
}

/// Reads `bytes` (either byte order) into a checked verbatim module and rspirv's model of it.
pub fn parse(bytes: &[u8]) -> Result<Parsed, LoadError> {
    let raw = read(bytes)?;
    let stream = SemanticStream::of(&raw);
    let module = dr::load_words(&stream.words).map_err(|e| parse_error(&e, &stream, &raw))?;
    Ok(Parsed {
        module,
        raw,
        kept: stream.kept,
        unknown_caps: stream.unknown_caps,
    })
}

/// Reads `bytes` into a verbatim module, checking the header, every word count and the section
/// order; nothing is parsed beyond that.
pub fn read(bytes: &[u8]) -> Result<SpirvModule, LoadError> {
    let words = to_words(bytes)?;
    let offsets = instruction_offsets(&words)?;
    Ok(SpirvModule::new(
        words,
        offsets.iter().map(|o| o / 4).collect(),
    ))
}

/// A module's entry points, in module order: (name, whether it is a GLCompute one). Reads only
/// the OpEntryPoint instructions, so the app can offer a choice before a full load.
pub fn entry_points(bytes: &[u8]) -> Result<Vec<(String, bool)>, LoadError> {
    let words = to_words(bytes)?;
    let offsets = instruction_offsets(&words)?;
    let mut out = Vec::new();
    for &o in &offsets {
        let at = (o / 4) as usize;
        let Some(&head) = words.get(at) else { continue };
        let (count, opcode) = ((head >> 16) as usize, head & 0xffff);
        if opcode != rspirv::spirv::Op::EntryPoint as u32 || count < 4 {
            continue;
        }
        let Some(inst) = words.get(at..at + count) else {
            continue;
        };
        let mut name = Vec::new();
        'words: for w in &inst[3..] {
            for b in w.to_le_bytes() {
                if b == 0 {
                    break 'words;
                }
                name.push(b);
            }
        }
        out.push((
            String::from_utf8_lossy(&name).into_owned(),
            inst[1] == rspirv::spirv::ExecutionModel::GLCompute as u32,
        ));
    }
    Ok(out)
}

/// Extended instruction sets that carry only debug information.
fn debug_only_set(name: &str) -> bool {
    name.starts_with("NonSemantic.") || name == "OpenCL.DebugInfo.100" || name == "DebugInfo"
}

/// The words rspirv parses: the module without its debug-only instructions (OpLine, OpSource,
/// OpString, non-semantic extended instructions), which the SPIR-V spec lets appear where
/// rspirv's loader refuses or moves them (between functions, between blocks). They are read
/// from the verbatim stream instead (`debug/read.rs`), and every kept instruction remembers
/// its index there, so locations always name the module's own instruction numbers.
struct SemanticStream {
    words: Vec<u32>,
    /// For each kept instruction, its index in the verbatim stream.
    kept: Vec<u32>,
    /// Word index of each kept instruction in `words`.
    starts: Vec<u32>,
    /// Capabilities newer than the grammar Lanescope knows: (value, instruction index).
    unknown_caps: Vec<(u32, u32)>,
}

impl SemanticStream {
    fn of(raw: &SpirvModule) -> Self {
        let mut debug_sets = std::collections::BTreeSet::new();
        let mut out = Self {
            words: raw.header().to_vec(),
            kept: Vec::with_capacity(raw.len()),
            starts: Vec::with_capacity(raw.len()),
            unknown_caps: Vec::new(),
        };
        for (k, inst) in raw.instructions().enumerate() {
            let op = inst[0] & 0xffff;
            if op == 11 && inst.len() >= 3 && debug_only_set(&literal_string(&inst[2..]).0) {
                debug_sets.insert(inst[1]);
            }
            let debug_only = matches!(op, 2 | 3 | 4 | 7 | 8 | 317)
                || (op == 12 && inst.len() >= 4 && debug_sets.contains(&inst[3]));
            if debug_only {
                continue;
            }
            out.starts.push(out.words.len() as u32);
            out.kept.push(k as u32);
            let at = out.words.len();
            out.words.extend_from_slice(inst);
            match op {
                // rspirv's loader rejects OpExecutionModeId; as OpExecutionMode it parses the
                // same operands (the mode's grammar says they are ids).
                331 => out.words[at] = (inst[0] & 0xffff_0000) | 16,
                // A capability rspirv cannot decode stands in as `Shader`: what a module
                // declares but does not use is only a warning, and an instruction that needs
                // it is an opcode Lanescope does not know either.
                17 if inst.len() == 2 && rspirv::spirv::Capability::from_u32(inst[1]).is_none() => {
                    out.unknown_caps.push((inst[1], k as u32));
                    out.words[at + 1] = rspirv::spirv::Capability::Shader as u32;
                }
                _ => {}
            }
        }
        out
    }

    /// The verbatim index of the kept instruction starting at `byte` of `words`.
    fn index_at_byte(&self, byte: usize) -> Option<u32> {
        let w = (byte / 4) as u32;
        let k = self.starts.binary_search(&w).ok()?;
        self.kept.get(k).copied()
    }
}

/// rspirv's parse errors, as load errors: what its grammar does not know (an opcode or operand
/// value from an extension newer than it) is unsupported; the rest is malformed.
fn parse_error(
    e: &rspirv::binary::ParseState,
    stream: &SemanticStream,
    raw: &SpirvModule,
) -> LoadError {
    use rspirv::binary::ParseState as S;
    let at_byte = |byte: usize| {
        let instruction = stream.index_at_byte(byte);
        Location {
            instruction,
            byte_offset: instruction.and_then(|k| raw.byte_offset(k as usize)),
            ..Location::default()
        }
    };
    match e {
        S::OpcodeUnknown(byte, _, op) => LoadError::Unsupported {
            what: format!(
                "opcode {op}, which is not in the SPIR-V grammar Lanescope knows (an extension it does not implement)"
            ),
            at: at_byte(*byte),
        },
        S::OperandError(d) if format!("{d:?}").contains("Unknown(") => LoadError::Unsupported {
            what: format!(
                "an operand value the SPIR-V grammar Lanescope knows does not have: {d}"
            ),
            at: Location::default(),
        },
        other => LoadError::Malformed {
            what: other.to_string(),
            at: Location::default(),
        },
    }
}

/// Largest module the loader takes: parsing costs several times the file in memory.
pub const MAX_MODULE_BYTES: usize = 64 << 20;

fn to_words(bytes: &[u8]) -> Result<Vec<u32>, LoadError> {
    let at = Location::default();
    if bytes.len() > MAX_MODULE_BYTES {
        return Err(LoadError::Unsupported {
            what: format!(
                "a module of {} MiB (at most {} MiB)",
                bytes.len() >> 20,
                MAX_MODULE_BYTES >> 20
            ),
            at,
        });
    }
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
    let mut layout = SectionOrder::default();
    let mut i = 5usize;
    while i < words.len() {
        let wc = (words[i] >> 16) as usize;
        let op = words[i] & 0xffff;
        let at = Location {
            instruction: Some(out.len() as u32),
            byte_offset: Some((i * 4) as u32),
            opcode: Some(opname(op).into()),
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
        // rspirv panics on an OpSpecConstantOp naming an opcode whose operands it cannot parse
        // there; the spec allows only a fixed list, so check it first.
        if op == 52 && wc >= 4 && !spec_constant_op_allowed(words[i + 3]) {
            return Err(LoadError::Malformed {
                what: format!(
                    "OpSpecConstantOp with {} (not allowed there)",
                    opname(words[i + 3])
                ),
                at,
            });
        }
        if let Some(what) = layout.next(op) {
            return Err(LoadError::Invalid { what, at });
        }
        out.push((i * 4) as u32);
        i += wc;
    }
    Ok(out)
}

/// SPIR-V's logical layout: the module-level sections come in a fixed order, and types and
/// constants never appear inside a function.
#[derive(Default)]
struct SectionOrder {
    /// Highest section seen so far (see `section`); 9 = types and globals, 10 = functions.
    at: u8,
}

impl SectionOrder {
    /// The section a module-level opcode belongs in, 1 (capabilities) to 8 (annotations).
    fn section(op: u32) -> Option<(u8, &'static str)> {
        Some(match op {
            17 => (1, "capabilities"),
            10 => (2, "extensions"),
            11 => (3, "extended instruction set imports"),
            14 => (4, "the memory model"),
            15 => (5, "entry points"),
            16 | 331 => (6, "execution modes"),
            2..=7 | 330 => (7, "debug names and sources"),
            71..=75 | 332 | 5632 | 5633 => (8, "annotations"),
            _ => return None,
        })
    }

    /// Checks the next opcode; says what is out of place.
    fn next(&mut self, op: u32) -> Option<String> {
        let declaration = matches!(op, 19..=39 | 41..=46 | 48..=52 | 322 | 327 | 4456);
        if let Some((rank, name)) = Self::section(op) {
            if self.at > rank {
                let after = if self.at == 10 {
                    "the function definitions"
                } else {
                    "later sections"
                };
                return Some(format!(
                    "{} after {after}: {name} belong earlier (SPIR-V's logical layout)",
                    opname(op)
                ));
            }
            self.at = rank;
        } else if op == 54 {
            self.at = 10;
        } else if declaration && self.at == 10 {
            return Some(format!(
                "{} inside the function definitions: types and constants belong before them",
                opname(op)
            ));
        } else if !matches!(op, 8 | 317 | 12 | 1) {
            // Anything else (types, constants, globals, or instructions inside functions) moves
            // past the annotations; OpLine/OpNoLine/OpExtInst/OpUndef may appear anywhere.
            self.at = self.at.max(9);
        }
        None
    }
}

/// Opcodes the SPIR-V spec allows inside OpSpecConstantOp (Shader and Kernel lists together).
fn spec_constant_op_allowed(op: u32) -> bool {
    use rspirv::spirv::Op as O;
    let Some(o) = O::from_u32(op) else {
        return false;
    };
    matches!(
        o,
        O::SConvert
            | O::UConvert
            | O::FConvert
            | O::SNegate
            | O::Not
            | O::IAdd
            | O::ISub
            | O::IMul
            | O::UDiv
            | O::SDiv
            | O::UMod
            | O::SRem
            | O::SMod
            | O::ShiftRightLogical
            | O::ShiftRightArithmetic
            | O::ShiftLeftLogical
            | O::BitwiseOr
            | O::BitwiseXor
            | O::BitwiseAnd
            | O::VectorShuffle
            | O::CompositeExtract
            | O::CompositeInsert
            | O::LogicalOr
            | O::LogicalAnd
            | O::LogicalNot
            | O::LogicalEqual
            | O::LogicalNotEqual
            | O::Select
            | O::IEqual
            | O::INotEqual
            | O::ULessThan
            | O::SLessThan
            | O::UGreaterThan
            | O::SGreaterThan
            | O::ULessThanEqual
            | O::SLessThanEqual
            | O::UGreaterThanEqual
            | O::SGreaterThanEqual
            | O::QuantizeToF16
            | O::ConvertFToS
            | O::ConvertSToF
            | O::ConvertFToU
            | O::ConvertUToF
            | O::ConvertPtrToU
            | O::ConvertUToPtr
            | O::GenericCastToPtr
            | O::PtrCastToGeneric
            | O::Bitcast
            | O::FNegate
            | O::FAdd
            | O::FSub
            | O::FMul
            | O::FDiv
            | O::FRem
            | O::FMod
            | O::AccessChain
            | O::InBoundsAccessChain
            | O::PtrAccessChain
            | O::InBoundsPtrAccessChain
            | O::CooperativeMatrixLengthKHR
    )
}

/// `OpName` for a known opcode, `opcode N` for one the grammar does not have.
pub fn opname(op: u32) -> String {
    rspirv::spirv::Op::from_u32(op).map_or_else(
        || format!("opcode {op}"),
        |o| format!("Op{}", crate::op_name(o)),
    )
}
