//! The assembler: the language `spirv-as` reads, producing the words it produces.
//!
//! Tokens are split and instructions recognised as SPIRV-Tools does: an instruction runs until
//! its operands are used up or the next token starts another one (`OpXxx` or `%id = OpXxx`), so
//! line breaks carry no meaning and `;` starts a comment. Ids are numbered in order of first
//! appearance, the result type before the result, exactly like spirv-as.

use std::collections::{HashMap, HashSet};

use rspirv::spirv;

use super::binary::float_encoding;
use super::grammar::{self, push_operands, take_operand, ExtSet, Grammar, Pat, Ty};
use super::number::{self, FpEnc, NumKind, NumType};
use super::{AsmError, AsmOptions, GENERATOR};

/// Assembles SPIR-V assembly text into a module. Errors carry the line and column of the
/// offending token.
pub fn assemble(text: &str, opts: &AsmOptions) -> std::result::Result<Vec<u32>, AsmError> {
    let g = Grammar::get();
    let mut preserve = HashSet::new();
    if opts.preserve_numeric_ids {
        // A first pass finds which numeric ids the text uses, so that names avoid them.
        let first = Assembler::new(text, g, HashSet::new()).run()?;
        preserve = first
            .ids
            .named
            .keys()
            .filter_map(|name| number::read_u32(name))
            .collect();
    }
    let asm = Assembler::new(text, g, preserve).run()?;
    asm.check_defined()?;
    let mut body = asm.words;
    let mut bound = asm.ids.bound;
    if let Some(file) = &opts.source_file {
        (body, bound) = super::lines::add_line_info(body, bound, &asm.starts, text, file);
    }
    let (major, minor) = match opts.target_env {
        Some(env) => env.spirv_version(),
        None => (1, version_comment(text).unwrap_or(6)),
    };
    let mut words = vec![
        spirv::MAGIC_NUMBER,
        (u32::from(major) << 16) | (u32::from(minor) << 8),
        GENERATOR,
        bound,
        0,
    ];
    words.extend(body);
    Ok(words)
}

/// The minor version of a `; Version: 1.x` comment among the comment lines that open the text,
/// as spirv-as looks for it.
fn version_comment(text: &str) -> Option<u8> {
    const PREFIX: &[u8] = b"; Version: 1.";
    let t = text.as_bytes();
    let mut i = 0;
    while i < t.len() {
        let c = t[i];
        if c == b';' {
            let minor_at = i + PREFIX.len();
            if minor_at >= t.len() {
                return None;
            }
            let mut j = 1;
            while j < PREFIX.len() && PREFIX[j] == t[i + j] {
                j += 1;
            }
            if j == PREFIX.len() {
                let minor = t[minor_at];
                let next = t.get(minor_at + 1).copied().unwrap_or(0);
                if minor.is_ascii_digit() && !next.is_ascii_digit() && minor - b'0' <= 6 {
                    return Some(minor - b'0');
                }
            }
            i += j;
            while i < t.len() && t[i] != b'\n' {
                i += 1;
            }
        } else if !c.is_ascii_whitespace() && c != 0x0b {
            break;
        }
        i += 1;
    }
    None
}

/// Id numbering as spirv-as does it.
struct Ids {
    named: HashMap<String, u32>,
    preserve: HashSet<u32>,
    next: u32,
    bound: u32,
}

impl Ids {
    fn get(&mut self, name: &str) -> u32 {
        if !self.preserve.is_empty() {
            if let Some(id) = number::read_u32(name).filter(|id| self.preserve.contains(id)) {
                self.bound = self.bound.max(id.saturating_add(1));
                return id;
            }
        }
        if let Some(&id) = self.named.get(name) {
            return id;
        }
        let mut id = self.next;
        self.next += 1;
        while self.preserve.contains(&id) {
            id = self.next;
            self.next += 1;
        }
        self.named.insert(name.to_string(), id);
        self.bound = self.bound.max(id.saturating_add(1));
        id
    }
}

#[derive(Clone, Copy)]
enum IdType {
    Int { width: u32, signed: bool },
    Float { width: u32, enc: FpEnc },
    Other,
}

struct Assembler<'a> {
    text: &'a str,
    g: &'a Grammar,
    pos: usize,
    /// Where the last token read ends: where an operand missing at the end of the text belongs.
    last_end: usize,
    ids: Ids,
    words: Vec<u32>,
    types: HashMap<u32, IdType>,
    value_types: HashMap<u32, u32>,
    imports: HashMap<u32, ExtSet>,
    defined: HashSet<u32>,
    /// Where each named id was first used, to report ids never defined.
    first_use: HashMap<u32, (usize, String)>,
    /// For each instruction, where its words start and the 1-based line and column of its text.
    starts: Vec<super::lines::InstStart>,
    /// Line counting cursor: a byte offset and the line it is on.
    line_at: (usize, u32),
}

type Result<T> = std::result::Result<T, AsmError>;

/// One instruction being encoded.
struct Inst {
    opcode: u32,
    words: Vec<u32>,
    result_type: u32,
    ext: Option<ExtSet>,
}

impl<'a> Assembler<'a> {
    fn new(text: &'a str, g: &'a Grammar, preserve: HashSet<u32>) -> Self {
        Assembler {
            text,
            g,
            pos: 0,
            last_end: 0,
            ids: Ids {
                named: HashMap::new(),
                preserve,
                next: 1,
                bound: 1,
            },
            words: Vec::new(),
            types: HashMap::new(),
            value_types: HashMap::new(),
            imports: HashMap::new(),
            defined: HashSet::new(),
            first_use: HashMap::new(),
            starts: Vec::new(),
            line_at: (0, 1),
        }
    }

    /// The 1-based line and column of byte `at`; `at` never goes backwards between calls.
    fn line_col(&mut self, at: usize) -> (u32, u32) {
        let (from, line) = self.line_at;
        let line = line + self.text[from..at].matches('\n').count() as u32;
        self.line_at = (at, line);
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        (line, self.text[line_start..at].chars().count() as u32 + 1)
    }

    fn error(&self, at: usize, message: impl Into<String>) -> AsmError {
        let at = at.min(self.text.len());
        let before = &self.text[..at];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        AsmError {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
            message: message.into(),
        }
    }

    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    /// Skips blanks and comments from `at`; `None` at the end of the text.
    fn skip(&self, mut at: usize) -> Option<usize> {
        let b = self.bytes();
        loop {
            match b.get(at)? {
                0 => return None,
                b';' => {
                    while at < b.len() && b[at] != b'\n' {
                        if b[at] == 0 {
                            return None;
                        }
                        at += 1;
                    }
                }
                b' ' | b'\t' | b'\r' | b'\n' => at += 1,
                _ => return Some(at),
            }
        }
    }

    /// Moves to the next token; false at the end of the text.
    fn advance(&mut self) -> bool {
        self.last_end = self.pos;
        match self.skip(self.pos) {
            Some(at) => {
                self.pos = at;
                true
            }
            None => {
                self.pos = self.text.len();
                false
            }
        }
    }

    /// The token at `at` and where it ends. Quotes and backslashes keep blanks in a token.
    fn word_at(&self, at: usize) -> (&'a str, usize) {
        let b = self.text.as_bytes();
        let mut i = at;
        let mut quoting = false;
        let mut escaping = false;
        while i < b.len() {
            let c = b[i];
            if c == b'\\' {
                escaping = !escaping;
            } else {
                match c {
                    b'"' if !escaping => quoting = !quoting,
                    b' ' | b';' | b',' | b'(' | b')' | b'\t' | b'\n' | b'\r'
                        if !escaping && !quoting =>
                    {
                        break
                    }
                    0 => break,
                    _ => {}
                }
                escaping = false;
            }
            i += 1;
        }
        (&self.text[at..i], i)
    }

    fn starts_with_op(&self, at: usize) -> bool {
        let b = self.bytes();
        b.len() >= at + 3 && b[at] == b'O' && b[at + 1] == b'p' && b[at + 2].is_ascii_uppercase()
    }

    fn is_start_of_new_inst(&self) -> bool {
        let Some(at) = self.skip(self.pos) else {
            return false;
        };
        if self.starts_with_op(at) {
            return true;
        }
        let (word, end) = self.word_at(self.pos);
        if !word.starts_with('%') {
            return false;
        }
        let Some(at) = self.skip(end) else {
            return false;
        };
        let (word, end) = self.word_at(at);
        if word != "=" {
            return false;
        }
        self.skip(end).is_some_and(|at| self.starts_with_op(at))
    }

    fn run(mut self) -> Result<Self> {
        if !self.advance() {
            return Ok(self);
        }
        while self.pos < self.text.len() {
            self.instruction()?;
            if !self.advance() {
                break;
            }
        }
        Ok(self)
    }

    fn check_defined(&self) -> Result<()> {
        let mut missing: Vec<_> = self
            .first_use
            .iter()
            .filter(|(id, _)| !self.defined.contains(id))
            .map(|(_, (at, name))| (*at, name))
            .collect();
        missing.sort();
        match missing.first() {
            Some((at, name)) => Err(self.error(
                *at,
                format!("%{name} is used but never defined as a result"),
            )),
            None => Ok(()),
        }
    }

    fn instruction(&mut self) -> Result<()> {
        let start = self.pos;
        if self.bytes()[start] == b'!' {
            return Err(self.error(start, "immediate words (!<integer>) are not supported"));
        }
        let (first, mut next) = self.word_at(start);
        if first.is_empty() {
            return Err(self.error(
                start,
                format!(
                    "unexpected character '{}'",
                    self.text[start..].chars().next().unwrap_or(' ')
                ),
            ));
        }
        let (opname, op_at, result) = if self.starts_with_op(start) {
            (first, start, None)
        } else {
            if !first.starts_with('%') {
                return Err(self.error(
                    start,
                    format!(
                        "Expected <opcode> or <result-id> at the beginning of an instruction, \
                         found '{first}'."
                    ),
                ));
            }
            self.pos = next;
            if !self.advance() {
                return Err(self.error(self.last_end, "Expected '=', found end of stream."));
            }
            let (eq, after) = self.word_at(self.pos);
            if eq != "=" {
                return Err(self.error(
                    self.pos,
                    format!("'=' expected after result id but found '{eq}'."),
                ));
            }
            self.pos = after;
            if !self.advance() {
                return Err(self.error(self.last_end, "Expected opcode, found end of stream."));
            }
            let op_at = self.pos;
            let (opname, after) = self.word_at(op_at);
            next = after;
            if !self.starts_with_op(op_at) {
                return Err(self.error(op_at, format!("Invalid Opcode prefix '{opname}'.")));
            }
            (opname, op_at, Some((first, start)))
        };
        if opname == "OpUnknown" {
            return Err(self.error(op_at, "OpUnknown(...) is not supported"));
        }
        let Some(info) = self
            .g
            .opcode_by_name(&opname[2..])
            .and_then(|o| self.g.op(o))
        else {
            return Err(self.error(op_at, format!("Invalid Opcode name '{opname}'")));
        };
        if info.has_result && result.is_none() {
            return Err(self.error(
                start,
                format!(
                    "Expected <result-id> at the beginning of an instruction, found '{first}'."
                ),
            ));
        }
        if !info.has_result {
            if let Some((r, at)) = result {
                return Err(self.error(
                    at,
                    format!("Cannot set ID {r} because {opname} does not produce a result ID."),
                ));
            }
        }
        let opcode = info.inst.opcode as u32;
        let generates_type = info.generates_type;
        let has_type = info.has_type;
        self.pos = next;
        let mut inst = Inst {
            opcode,
            words: vec![0],
            result_type: 0,
            ext: None,
        };
        let mut pattern: Vec<Pat> = Vec::new();
        push_operands(&mut pattern, &info.pattern);
        while let Some((ty, optional)) = take_operand(&mut pattern) {
            if let (Ty::Result, Some((r, at))) = (ty, result) {
                self.operand(&mut inst, ty, r, at, &mut pattern)?;
                continue;
            }
            if !self.advance() {
                if optional {
                    break;
                }
                return Err(self.error(
                    self.last_end,
                    format!(
                        "Expected operand for {opname} instruction, but found the end of the \
                         stream."
                    ),
                ));
            }
            if self.is_start_of_new_inst() {
                if optional {
                    break;
                }
                return Err(self.error(
                    self.pos,
                    format!(
                        "Expected operand for {opname} instruction, but found the next \
                         instruction instead."
                    ),
                ));
            }
            let at = self.pos;
            let (word, after) = self.word_at(at);
            if word.is_empty() {
                return Err(self.error(
                    at,
                    format!(
                        "unexpected character '{}'",
                        self.text[at..].chars().next().unwrap_or(' ')
                    ),
                ));
            }
            self.operand(&mut inst, ty, word, at, &mut pattern)?;
            self.pos = after;
        }
        let count = inst.words.len();
        if count > 0xffff {
            return Err(self.error(
                op_at,
                format!("{opname} Instruction too long: {count} words, but the limit is 65535"),
            ));
        }
        inst.words[0] = ((count as u32) << 16) | opcode;
        if generates_type {
            self.record_type(&inst, op_at)?;
        } else if has_type && count > 2 {
            self.value_types
                .entry(inst.words[2])
                .or_insert(inst.words[1]);
        }
        let (line, column) = self.line_col(start);
        self.starts.push(super::lines::InstStart {
            word: self.words.len(),
            line,
            column,
        });
        self.words.extend(inst.words);
        Ok(())
    }

    fn record_type(&mut self, inst: &Inst, at: usize) -> Result<()> {
        let w = &inst.words;
        let id = w[1];
        if self.types.contains_key(&id) {
            return Err(self.error(
                at,
                format!("Value {id} has already been used to generate a type"),
            ));
        }
        let ty = if inst.opcode == spirv::Op::TypeInt as u32 {
            if w.len() != 4 {
                return Err(self.error(at, "Invalid OpTypeInt instruction"));
            }
            IdType::Int {
                width: w[2],
                signed: w[3] != 0,
            }
        } else if inst.opcode == spirv::Op::TypeFloat as u32 {
            if w.len() != 3 && w.len() != 4 {
                return Err(self.error(at, "Invalid OpTypeFloat instruction"));
            }
            IdType::Float {
                width: w[2],
                enc: float_encoding(w.get(3).copied()),
            }
        } else {
            IdType::Other
        };
        self.types.insert(id, ty);
        Ok(())
    }

    fn numeric_type(&self, ty: Option<IdType>) -> Option<NumType> {
        match ty? {
            IdType::Int { width, signed } => Some(NumType {
                kind: if signed {
                    NumKind::Signed
                } else {
                    NumKind::Unsigned
                },
                width,
                enc: FpEnc::Ieee,
            }),
            IdType::Float { width, enc } => Some(NumType {
                kind: NumKind::Float,
                width,
                enc,
            }),
            IdType::Other => None,
        }
    }

    fn literal(&self, inst: &mut Inst, ty: NumType, word: &str, at: usize) -> Result<()> {
        let encoded = match ty.kind {
            NumKind::Float => number::encode_float(word, ty, &mut inst.words),
            NumKind::Signed => number::encode_integer(word, ty.width, true, &mut inst.words),
            NumKind::Unsigned => number::encode_integer(word, ty.width, false, &mut inst.words),
        };
        encoded.map_err(|m| self.error(at, m))
    }

    fn operand(
        &mut self,
        inst: &mut Inst,
        ty: Ty,
        word: &str,
        at: usize,
        pattern: &mut Vec<Pat>,
    ) -> Result<()> {
        match ty {
            Ty::ResultType | Ty::Result | Ty::Id | Ty::ScopeId | Ty::MemSemId => {
                let Some(name) = word.strip_prefix('%') else {
                    return Err(self.error(at, "Expected id to start with %."));
                };
                if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    return Err(self.error(at, format!("Invalid ID {name}")));
                }
                let id = self.ids.get(name);
                if ty == Ty::Result {
                    self.defined.insert(id);
                } else if number::read_u32(name).is_none() {
                    self.first_use
                        .entry(id)
                        .or_insert_with(|| (at, name.to_string()));
                }
                if ty == Ty::ResultType {
                    inst.result_type = id;
                }
                inst.words.push(id);
                let ext_inst = inst.opcode == spirv::Op::ExtInst as u32
                    || inst.opcode == spirv::Op::ExtInstWithForwardRefsKHR as u32;
                if ext_inst && inst.words.len() == 4 {
                    let set = self.imports.get(&id).copied().ok_or_else(|| {
                        self.error(at, format!("Invalid extended instruction import Id {word}"))
                    })?;
                    inst.ext = Some(set);
                }
            }
            Ty::ExtNum => {
                let set = inst
                    .ext
                    .ok_or_else(|| self.error(at, "extended instruction without a set"))?;
                if let Some(e) = set.table.and_then(|t| grammar::ext_inst_by_name(t, word)) {
                    inst.words.push(u32::from(e.opcode));
                    push_operands(pattern, &grammar::ext_inst_pattern(e));
                } else if !set.non_semantic {
                    return Err(
                        self.error(at, format!("Invalid extended instruction name '{word}'."))
                    );
                } else {
                    // Sets SPIRV-Tools does not know are read as numbered instructions whose
                    // operands are all ids; rspirv's names are taken for the ones it has.
                    let number = set
                        .extra_names
                        .and_then(|t| grammar::ext_inst_by_name(t, word))
                        .map(|e| u32::from(e.opcode))
                        .or_else(|| decimal_u32(word))
                        .ok_or_else(|| {
                            self.error(
                                at,
                                format!(
                                    "Couldn't translate unknown extended instruction name \
                                     '{word}' to unsigned integer."
                                ),
                            )
                        })?;
                    inst.words.push(number);
                    pattern.push(Pat::Var(Ty::Id));
                }
            }
            Ty::SpecOpNum => {
                let info = self
                    .g
                    .opcode_by_name(word)
                    .filter(|&o| grammar::is_spec_constant_op(o))
                    .and_then(|o| self.g.op(o))
                    .ok_or_else(|| {
                        self.error(at, format!("Invalid Spec Constant Op Number '{word}'."))
                    })?;
                inst.words.push(info.inst.opcode as u32);
                push_operands(pattern, info.pattern.get(2..).unwrap_or(&[]));
            }
            Ty::LitInt => self.literal(inst, NumType::U32, word, at)?,
            Ty::LitFloat => self.literal(inst, NumType::F32, word, at)?,
            Ty::TypedLit => {
                let num = self
                    .numeric_type(self.types.get(&inst.result_type).copied())
                    .ok_or_else(|| {
                        let name = self.g.op(inst.opcode).map_or("", |i| i.inst.opname);
                        self.error(
                            at,
                            format!(
                                "Type for {name} must be a scalar floating point or integer type"
                            ),
                        )
                    })?;
                self.literal(inst, num, word, at)?;
            }
            Ty::SwitchLit => {
                let selector = inst.words.get(1).copied().unwrap_or(0);
                let num = self
                    .value_types
                    .get(&selector)
                    .and_then(|t| self.numeric_type(self.types.get(t).copied()))
                    .filter(|n| n.kind != NumKind::Float)
                    .ok_or_else(|| {
                        self.error(
                            at,
                            "The selector operand for OpSwitch must be the result of an \
                             instruction that generates an integer scalar",
                        )
                    })?;
                self.literal(inst, num, word, at)?;
            }
            Ty::Str => {
                let bytes = self.string(word, at)?;
                if inst.opcode == spirv::Op::ExtInstImport as u32 {
                    let name = String::from_utf8_lossy(&bytes);
                    let set = grammar::ext_set(&name).ok_or_else(|| {
                        self.error(at, format!("Invalid extended instruction import '{name}'"))
                    })?;
                    let id = inst.words.get(1).copied().unwrap_or(0);
                    if self.imports.insert(id, set).is_some() {
                        return Err(self.error(at, "Import Id is being defined a second time"));
                    }
                }
                let count = bytes.len() / 4 + 1;
                if inst.words.len() + count > 0xffff {
                    return Err(self.error(at, "Instruction too long: more than 65535 words."));
                }
                let mut padded = bytes;
                padded.resize(count * 4, 0);
                inst.words.extend(
                    padded
                        .chunks(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                );
            }
            Ty::Enum(kind) => {
                let value = grammar::value_from_name(kind, word).ok_or_else(|| {
                    self.error(
                        at,
                        format!("Invalid {} '{word}'.", grammar::kind_name(kind)),
                    )
                })?;
                inst.words.push(value);
                let params: Vec<Pat> = self
                    .g
                    .params(kind, value)
                    .unwrap_or_default()
                    .into_iter()
                    .map(Pat::One)
                    .collect();
                push_operands(pattern, &params);
            }
            Ty::Mask(kind) => {
                let value = grammar::mask_from_text(kind, word).ok_or_else(|| {
                    self.error(
                        at,
                        format!("Invalid {} operand '{word}'.", grammar::kind_name(kind)),
                    )
                })?;
                inst.words.push(value);
                for shift in (0..32).rev() {
                    let bit = 1u32 << shift;
                    if value & bit != 0 {
                        let params: Vec<Pat> = self
                            .g
                            .params(kind, bit)
                            .unwrap_or_default()
                            .into_iter()
                            .map(Pat::One)
                            .collect();
                        push_operands(pattern, &params);
                    }
                }
            }
        }
        Ok(())
    }

    /// The bytes of a quoted string token, backslash escapes removed.
    fn string(&self, word: &str, at: usize) -> Result<Vec<u8>> {
        let b = word.as_bytes();
        if b.first() == Some(&b'"') && (b.len() < 2 || b[b.len() - 1] != b'"' || ends_escaped(b)) {
            return Err(self.error(at, "unterminated string"));
        }
        if b.len() < 2 || b[0] != b'"' {
            let numeric = !b.is_empty()
                && b.iter()
                    .all(|c| c.is_ascii_digit() || *c == b'.' || *c == b'-');
            return Err(self.error(
                at,
                if numeric {
                    format!("Expected literal string, found literal number '{word}'.")
                } else {
                    format!("Invalid literal string '{word}'.")
                },
            ));
        }
        let mut out = Vec::with_capacity(b.len());
        let mut escaping = false;
        for &c in &b[1..b.len() - 1] {
            if c == b'\\' && !escaping {
                escaping = true;
            } else {
                out.push(c);
                escaping = false;
            }
        }
        // A string ends at its first null, as the C string spirv-as encodes does.
        if let Some(nul) = out.iter().position(|&c| c == 0) {
            out.truncate(nul);
        }
        Ok(out)
    }
}

/// Whether the closing quote of a token is itself escaped (`"abc\"`).
fn ends_escaped(b: &[u8]) -> bool {
    let backslashes = b[..b.len() - 1]
        .iter()
        .rev()
        .take_while(|&&c| c == b'\\')
        .count();
    b.len() > 1 && backslashes % 2 == 1
}

/// A plain decimal `u32`, as spirv-as reads an unnamed extended instruction's number.
fn decimal_u32(word: &str) -> Option<u32> {
    if word.is_empty() || !word.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    word.parse().ok()
}
