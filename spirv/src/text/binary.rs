//! Reads a SPIR-V binary into instructions whose operands carry their types, accepting and
//! refusing what SPIRV-Tools' binary parser does (the one `spirv-dis` runs).

use std::collections::HashMap;

use rspirv::spirv;

use super::grammar::{self, push_operands, take_operand, ExtSet, Grammar, Pat, Ty};
use super::number::{FpEnc, NumKind, NumType};
use super::DisError;

pub(crate) struct Header {
    pub(crate) version: u32,
    pub(crate) generator: u32,
    pub(crate) bound: u32,
    pub(crate) schema: u32,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Operand {
    pub(crate) ty: Ty,
    /// First word, counted from the instruction's first word.
    pub(crate) offset: usize,
    pub(crate) len: usize,
    /// How a numeric literal reads.
    pub(crate) num: Option<NumType>,
}

pub(crate) struct Inst {
    /// Word index of the instruction in the module.
    pub(crate) start: usize,
    pub(crate) opcode: u32,
    pub(crate) len: usize,
    pub(crate) type_id: u32,
    pub(crate) result_id: u32,
    pub(crate) ext: Option<ExtSet>,
    pub(crate) operands: Vec<Operand>,
}

pub(crate) struct Module {
    pub(crate) header: Header,
    /// The words in host order.
    pub(crate) words: Vec<u32>,
    pub(crate) insts: Vec<Inst>,
}

impl Module {
    pub(crate) fn inst_words(&self, inst: &Inst) -> &[u32] {
        &self.words[inst.start..inst.start + inst.len]
    }

    pub(crate) fn operand_words(&self, inst: &Inst, op: &Operand) -> &[u32] {
        &self.words[inst.start + op.offset..inst.start + op.offset + op.len]
    }
}

/// The bytes of a literal string, up to its terminating null.
pub(crate) fn string_bytes(words: &[u32]) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect()
}

fn err(word: usize, message: impl Into<String>) -> DisError {
    DisError {
        word,
        message: message.into(),
    }
}

/// Parses a module. Big-endian modules (a byte-swapped magic number) are read too.
pub(crate) fn parse(input: &[u32], g: &Grammar) -> Result<Module, DisError> {
    if input.len() < 5 {
        return Err(err(
            0,
            format!(
                "Module has incomplete header: only {} words instead of 5",
                input.len()
            ),
        ));
    }
    let words: Vec<u32> = if input[0] == spirv::MAGIC_NUMBER {
        input.to_vec()
    } else if input[0] == spirv::MAGIC_NUMBER.swap_bytes() {
        input.iter().map(|w| w.swap_bytes()).collect()
    } else {
        return Err(err(
            0,
            format!("Invalid SPIR-V magic number '{:x}'.", input[0]),
        ));
    };
    let header = Header {
        version: words[1],
        generator: words[2],
        bound: words[3],
        schema: words[4],
    };
    let mut parser = Parser {
        g,
        words: &words,
        id_type: HashMap::new(),
        number_types: HashMap::new(),
        imports: HashMap::new(),
    };
    let mut insts = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let inst = parser.instruction(at)?;
        at += inst.len;
        insts.push(inst);
    }
    Ok(Module {
        header,
        words,
        insts,
    })
}

struct Parser<'a> {
    g: &'a Grammar,
    words: &'a [u32],
    /// For each result id, its type (types map to themselves), as SPIRV-Tools tracks it.
    id_type: HashMap<u32, u32>,
    /// For each type id, how literals of that type read (`None`: not a scalar number).
    number_types: HashMap<u32, Option<NumType>>,
    imports: HashMap<u32, ExtSet>,
}

impl Parser<'_> {
    fn instruction(&mut self, start: usize) -> Result<Inst, DisError> {
        let first = self.words[start];
        let len = (first >> 16) as usize;
        let opcode = first & 0xffff;
        if len == 0 {
            return Err(err(start, "Invalid instruction word count: 0"));
        }
        let info = self
            .g
            .op(opcode)
            .ok_or_else(|| err(start, format!("Invalid opcode: {opcode}")))?;
        let name = info.inst.opname;
        let end = start + len;
        let mut inst = Inst {
            start,
            opcode,
            len,
            type_id: 0,
            result_id: 0,
            ext: None,
            operands: Vec::new(),
        };
        let mut pattern: Vec<Pat> = Vec::new();
        push_operands(&mut pattern, &info.pattern);
        let mut at = start + 1;
        while at < end {
            let Some((ty, _)) = take_operand(&mut pattern) else {
                return Err(err(
                    start,
                    format!(
                        "Invalid instruction Op{name} starting at word {start}: expected no more \
                         operands after {} words, but stated word count is {len}.",
                        at - start
                    ),
                ));
            };
            let op = self.operand(&mut inst, ty, at, &mut pattern, info.generates_type)?;
            at += op.len;
            inst.operands.push(op);
        }
        if pattern.last().is_some_and(|p| !p.is_optional()) {
            return Err(err(
                start,
                format!(
                    "End of input reached while decoding Op{name} starting at word {start}: \
                     expected more operands after {len} words."
                ),
            ));
        }
        if at != end {
            return Err(err(
                start,
                format!(
                    "Invalid word count: Op{name} starting at word {start} says it has {len} \
                     words, but found {} words instead.",
                    at - start
                ),
            ));
        }
        if info.generates_type {
            let w = |i: usize| self.words.get(start + i).copied().unwrap_or(0);
            let number = if opcode == spirv::Op::TypeInt as u32 {
                Some(NumType {
                    kind: if w(3) != 0 {
                        NumKind::Signed
                    } else {
                        NumKind::Unsigned
                    },
                    width: w(2),
                    enc: FpEnc::Ieee,
                })
            } else if opcode == spirv::Op::TypeFloat as u32 {
                Some(NumType {
                    kind: NumKind::Float,
                    width: w(2),
                    enc: if len >= 4 {
                        fp_encoding(w(3))
                    } else {
                        FpEnc::Ieee
                    },
                })
            } else {
                None
            };
            self.number_types.insert(inst.result_id, number);
        }
        Ok(inst)
    }

    fn operand(
        &mut self,
        inst: &mut Inst,
        ty: Ty,
        at: usize,
        pattern: &mut Vec<Pat>,
        generates_type: bool,
    ) -> Result<Operand, DisError> {
        let start = inst.start;
        let opname = self.g.op(inst.opcode).map_or("", |i| i.inst.opname);
        let exhausted = || {
            err(
                at,
                format!(
                    "End of input reached while decoding Op{opname} starting at word {start}: \
                     missing {ty:?} operand at word offset {}.",
                    at - start
                ),
            )
        };
        let word = *self.words.get(at).ok_or_else(exhausted)?;
        let mut op = Operand {
            ty,
            offset: at - start,
            len: 1,
            num: None,
        };
        match ty {
            Ty::ResultType => {
                if word == 0 {
                    return Err(err(at, "Error: Type Id is 0"));
                }
                inst.type_id = word;
            }
            Ty::Result => {
                if word == 0 {
                    return Err(err(at, "Error: Result Id is 0"));
                }
                inst.result_id = word;
                if self.id_type.contains_key(&word) {
                    return Err(err(at, format!("Id {word} is defined more than once")));
                }
                let ty = if generates_type { word } else { inst.type_id };
                self.id_type.insert(word, ty);
            }
            Ty::Id => {
                if word == 0 {
                    return Err(err(at, "Id is 0"));
                }
                let ext_inst = inst.opcode == spirv::Op::ExtInst as u32
                    || inst.opcode == spirv::Op::ExtInstWithForwardRefsKHR as u32;
                if ext_inst && op.offset == 3 {
                    let set = self.imports.get(&word).copied().ok_or_else(|| {
                        err(
                            at,
                            format!(
                                "OpExtInst set Id {word} does not reference an OpExtInstImport \
                                 result Id"
                            ),
                        )
                    })?;
                    inst.ext = Some(set);
                }
            }
            Ty::ScopeId | Ty::MemSemId => {
                if word == 0 {
                    return Err(err(at, format!("{ty:?} is 0")));
                }
            }
            Ty::ExtNum => {
                let set = inst
                    .ext
                    .ok_or_else(|| err(at, "extended instruction without a set"))?;
                match set.table.and_then(|t| grammar::ext_inst_by_number(t, word)) {
                    Some(e) => push_operands(pattern, &grammar::ext_inst_pattern(e)),
                    None if set.non_semantic => pattern.push(Pat::Var(Ty::Id)),
                    None => {
                        return Err(err(
                            at,
                            format!("Invalid extended instruction number: {word}"),
                        ))
                    }
                }
            }
            Ty::SpecOpNum => {
                let info = self
                    .g
                    .op(word)
                    .filter(|_| grammar::is_spec_constant_op(word))
                    .ok_or_else(|| err(at, format!("Invalid OpSpecConstantOp opcode: {word}")))?;
                push_operands(pattern, info.pattern.get(2..).unwrap_or(&[]));
            }
            Ty::LitInt => op.num = Some(NumType::U32),
            Ty::LitFloat => op.num = Some(NumType::F32),
            Ty::TypedLit | Ty::SwitchLit => {
                let type_id = if ty == Ty::SwitchLit {
                    let selector = self.words[start + 1];
                    let type_id = self.id_type.get(&selector).copied().unwrap_or(0);
                    if type_id == 0 {
                        return Err(err(
                            at,
                            format!("Invalid OpSwitch: selector id {selector} has no type"),
                        ));
                    }
                    if type_id == selector {
                        return Err(err(
                            at,
                            format!(
                                "Invalid OpSwitch: selector id {selector} is a type, not a value"
                            ),
                        ));
                    }
                    type_id
                } else {
                    inst.type_id
                };
                let num = match self.number_types.get(&type_id) {
                    None => return Err(err(at, format!("Type Id {type_id} is not a type"))),
                    Some(None) => {
                        return Err(err(
                            at,
                            format!("Type Id {type_id} is not a scalar numeric type"),
                        ))
                    }
                    Some(Some(n)) => *n,
                };
                if ty == Ty::SwitchLit && num.kind == NumKind::Float {
                    return Err(err(
                        at,
                        format!(
                            "Invalid OpSwitch: selector id {} is not a scalar integer",
                            self.words[start + 1]
                        ),
                    ));
                }
                op.num = Some(num);
                // SPIRV-Tools keeps an operand's length in 16 bits, so absurd widths wrap.
                op.len = usize::from(num.words() as u16);
            }
            Ty::Str => {
                // The terminating null is looked for up to the module's end, as SPIRV-Tools does;
                // a string running past its instruction shows up in the word count check.
                let rest = &self.words[at..];
                let bytes = string_bytes(rest);
                if bytes.len() == rest.len() * 4 {
                    return Err(exhausted());
                }
                op.len = bytes.len() / 4 + 1;
                if op.len > 0xffff {
                    return Err(err(
                        at,
                        format!(
                            "Literal string is longer than 65535 words: {} words long",
                            op.len
                        ),
                    ));
                }
                if inst.opcode == spirv::Op::ExtInstImport as u32 {
                    let name = String::from_utf8_lossy(&bytes);
                    let set = grammar::ext_set(&name).ok_or_else(|| {
                        err(at, format!("Invalid extended instruction import '{name}'"))
                    })?;
                    self.imports.insert(inst.result_id, set);
                }
            }
            Ty::Enum(kind) => {
                let params = self.g.params(kind, word).ok_or_else(|| {
                    err(
                        at,
                        format!("Invalid {} operand: {word}", grammar::kind_name(kind)),
                    )
                })?;
                let params: Vec<Pat> = params.into_iter().map(Pat::One).collect();
                push_operands(pattern, &params);
            }
            Ty::Mask(kind) => {
                for shift in (0..32).rev() {
                    let bit = 1u32 << shift;
                    if word & bit == 0 {
                        continue;
                    }
                    let params = self.g.params(kind, bit).ok_or_else(|| {
                        err(
                            at,
                            format!(
                                "Invalid {} operand: {word} has invalid mask component {bit}",
                                grammar::kind_name(kind)
                            ),
                        )
                    })?;
                    let params: Vec<Pat> = params.into_iter().map(Pat::One).collect();
                    push_operands(pattern, &params);
                }
            }
        }
        if at + op.len > self.words.len() {
            return Err(exhausted());
        }
        Ok(op)
    }
}

fn fp_encoding(word: u32) -> FpEnc {
    match spirv::FPEncoding::from_u32(word) {
        Some(spirv::FPEncoding::BFloat16KHR) => FpEnc::BFloat16,
        Some(spirv::FPEncoding::Float8E4M3EXT) => FpEnc::E4M3,
        Some(spirv::FPEncoding::Float8E5M2EXT) => FpEnc::E5M2,
        _ => FpEnc::Ieee,
    }
}

/// The encoding named by an `OpTypeFloat` encoding word, for the assembler.
pub(crate) fn float_encoding(word: Option<u32>) -> FpEnc {
    word.map_or(FpEnc::Ieee, fp_encoding)
}
