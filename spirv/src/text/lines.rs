//! Line information for assembled text: the text becomes the module's source, each
//! function-body instruction points at the line it was written on.

use rspirv::spirv::{Op, SourceLanguage};

/// Where an assembled instruction's words start, and where its text starts (1-based).
pub(super) struct InstStart {
    pub word: usize,
    pub line: u32,
    pub column: u32,
}

/// The most bytes of string one instruction holds after `fixed` words of other operands.
fn string_room(fixed: usize) -> usize {
    (0xffff - 1 - fixed) * 4 - 1
}

/// A string operand: UTF-8, NUL-terminated, padded to whole words.
fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn push(out: &mut Vec<u32>, op: Op, operands: &[u32]) {
    out.push(((operands.len() as u32 + 1) << 16) | op as u32);
    out.extend_from_slice(operands);
}

/// Splits `text` into pieces of at most `first` bytes, then `rest` bytes, on char boundaries.
fn split_text(text: &str, first: usize, rest: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut s = text;
    let mut room = first;
    loop {
        if s.len() <= room {
            pieces.push(s);
            return pieces;
        }
        let mut cut = room;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        pieces.push(&s[..cut]);
        s = &s[cut..];
        room = rest;
    }
}

/// `body`: the module's instruction words (no header); `bound`: its id bound. Returns the new
/// words and bound. Instructions are walked from `starts`, which lists every one in order.
pub(super) fn add_line_info(
    body: Vec<u32>,
    bound: u32,
    starts: &[InstStart],
    text: &str,
    file: &str,
) -> (Vec<u32>, u32) {
    let opcode = |s: &InstStart| body[s.word] & 0xffff;
    let has_debug_info = starts.iter().any(|s| {
        let op = opcode(s);
        op == Op::Source as u32
            || op == Op::Line as u32
            || (op == Op::ExtInstImport as u32 && {
                let n = (body[s.word] >> 16) as usize;
                let name = super::binary::string_bytes(&body[s.word + 2..s.word + n]);
                name.starts_with(b"NonSemantic.Shader.DebugInfo")
            })
    });
    if has_debug_info || starts.is_empty() {
        return (body, bound);
    }
    let file_id = bound;
    let mut debug = Vec::new();
    let mut name = string_words(file);
    name.insert(0, file_id);
    push(&mut debug, Op::String, &name);
    // OpSource: language, version, file, text; longer texts continue in OpSourceContinued.
    let fixed = 3;
    let pieces = split_text(text, string_room(fixed), string_room(0));
    let mut ops = vec![SourceLanguage::Unknown as u32, 0, file_id];
    ops.extend(string_words(pieces[0]));
    push(&mut debug, Op::Source, &ops);
    for piece in &pieces[1..] {
        push(&mut debug, Op::SourceContinued, &string_words(piece));
    }

    let header_ops = [
        Op::Capability,
        Op::Extension,
        Op::ExtInstImport,
        Op::MemoryModel,
        Op::EntryPoint,
        Op::ExecutionMode,
        Op::ExecutionModeId,
    ]
    .map(|o| o as u32);
    let mut out = Vec::with_capacity(body.len() + debug.len() + starts.len() * 4);
    let mut debug = Some(debug);
    let mut in_function = false;
    // The line the current block's last OpLine named (none right after a label).
    let mut current: Option<u32> = None;
    for (i, s) in starts.iter().enumerate() {
        let op = opcode(s);
        let end = starts.get(i + 1).map_or(body.len(), |n| n.word);
        if !header_ops.contains(&op) {
            if let Some(d) = debug.take() {
                out.extend(d);
            }
        }
        if op == Op::Function as u32 {
            in_function = true;
        } else if op == Op::FunctionEnd as u32 {
            in_function = false;
            current = None;
        } else if op == Op::Label as u32 {
            current = None;
        } else if in_function && op != Op::FunctionParameter as u32 {
            let merge = op == Op::SelectionMerge as u32 || op == Op::LoopMerge as u32;
            let after_merge = i > 0
                && [Op::SelectionMerge as u32, Op::LoopMerge as u32]
                    .contains(&opcode(&starts[i - 1]));
            // A merge must stay right before its branch: both take the branch's line, which
            // is the instruction that runs.
            let (line, column) = match starts.get(i + 1) {
                Some(next) if merge => (next.line, next.column),
                _ => (s.line, s.column),
            };
            if !after_merge && current != Some(line) {
                push(&mut out, Op::Line, &[file_id, line, column]);
                current = Some(line);
            }
        }
        out.extend_from_slice(&body[s.word..end]);
    }
    if let Some(d) = debug {
        out.extend(d);
    }
    (out, bound + 1)
}
