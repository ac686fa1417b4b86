//! The disassembler: the text `spirv-dis` 2025.5 prints by default (or with `--raw-id`,
//! `--no-header`, `--no-indent`).

use std::fmt::Write;

use super::binary::{self, string_bytes, Inst, Module, Operand};
use super::grammar::{self, Grammar, Ty};
use super::names::Names;
use super::number::format_literal;
use super::{DisError, DisOptions};

/// Where the opcode column starts when instructions are indented.
const INDENT: usize = 15;

/// Disassembles a module into SPIR-V assembly text, byte for byte what `spirv-dis` prints with
/// the same options. Errors name the word offset where reading failed.
pub fn disassemble(words: &[u32], opts: &DisOptions) -> Result<String, DisError> {
    let g = Grammar::get();
    let module = binary::parse(words, g)?;
    let names = (!opts.raw_id).then(|| Names::new(&module));
    let name = |id: u32| match &names {
        Some(n) => n.get(id),
        None => id.to_string(),
    };
    let mut out = String::new();
    if !opts.no_header {
        let h = &module.header;
        let tool = h.generator >> 16;
        let generator = match super::generators::name(tool) {
            Some(name) => name.to_string(),
            None => format!("Unknown({tool})"),
        };
        let _ = write!(
            out,
            "; SPIR-V\n; Version: {}.{}\n; Generator: {generator}; {}\n; Bound: {}\n; Schema: {}\n",
            (h.version >> 16) & 0xff,
            (h.version >> 8) & 0xff,
            h.generator & 0xffff,
            h.bound,
            h.schema
        );
    }
    let indent = if opts.no_indent { 0 } else { INDENT };
    for inst in &module.insts {
        out.push_str(&line(&module, g, inst, indent, &name).text);
        out.push('\n');
    }
    Ok(out)
}

/// One instruction as a line of the disassembly, with where its ids are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisLine {
    /// The line as spirv-dis prints it (a string operand may hold line breaks).
    pub text: String,
    /// The instruction's opcode.
    pub opcode: u32,
    /// The instruction's result id, if it has one.
    pub result_id: Option<u32>,
    /// Every id the line names: (byte range of `%name` in `text`, id).
    pub ids: Vec<(std::ops::Range<usize>, u32)>,
}

/// The disassembly as one [`DisLine`] per instruction, in module order (line `k` is
/// instruction `k`), for views that show and link individual instructions.
pub fn disassemble_lines(words: &[u32], opts: &DisOptions) -> Result<Vec<DisLine>, DisError> {
    let g = Grammar::get();
    let module = binary::parse(words, g)?;
    let names = (!opts.raw_id).then(|| Names::new(&module));
    let name = |id: u32| match &names {
        Some(n) => n.get(id),
        None => id.to_string(),
    };
    let indent = if opts.no_indent { 0 } else { INDENT };
    Ok(module
        .insts
        .iter()
        .map(|inst| line(&module, g, inst, indent, &name))
        .collect())
}

fn line(
    module: &Module,
    g: &Grammar,
    inst: &Inst,
    indent: usize,
    name: &dyn Fn(u32) -> String,
) -> DisLine {
    let mut out = String::new();
    let mut ids = Vec::new();
    if inst.result_id != 0 {
        let id = name(inst.result_id);
        // Right-aligns `%name` so that the opcodes line up after " = ".
        let width = indent.saturating_sub(3).saturating_sub(id.len());
        out.extend(std::iter::repeat_n(' ', width.saturating_sub(1)));
        let start = out.len();
        let _ = write!(out, "%{id}");
        ids.push((start..out.len(), inst.result_id));
        out.push_str(" = ");
    } else {
        out.extend(std::iter::repeat_n(' ', indent));
    }
    let info = g.op(inst.opcode).map(|i| i.inst.opname).unwrap_or("");
    out.push_str("Op");
    out.push_str(info);
    for op in &inst.operands {
        if op.ty == Ty::Result {
            continue;
        }
        out.push(' ');
        let start = out.len();
        operand(&mut out, module, g, inst, op, name);
        if matches!(op.ty, Ty::ResultType | Ty::Id | Ty::ScopeId | Ty::MemSemId) {
            if let Some(&w) = module.operand_words(inst, op).first() {
                ids.push((start..out.len(), w));
            }
        }
    }
    DisLine {
        text: out,
        opcode: inst.opcode,
        result_id: (inst.result_id != 0).then_some(inst.result_id),
        ids,
    }
}

fn operand(
    out: &mut String,
    m: &Module,
    g: &Grammar,
    inst: &Inst,
    op: &Operand,
    name: &dyn Fn(u32) -> String,
) {
    let words = m.operand_words(inst, op);
    let word = words.first().copied().unwrap_or(0);
    match op.ty {
        Ty::ResultType | Ty::Result | Ty::Id | Ty::ScopeId | Ty::MemSemId => {
            out.push('%');
            out.push_str(&name(word));
        }
        Ty::ExtNum => {
            let known = inst
                .ext
                .and_then(|set| set.table)
                .and_then(|t| grammar::ext_inst_by_number(t, word));
            match known {
                Some(e) => out.push_str(e.opname),
                None => out.push_str(&word.to_string()),
            }
        }
        Ty::SpecOpNum => {
            if let Some(info) = g.op(word) {
                out.push_str(info.inst.opname);
            }
        }
        Ty::LitInt | Ty::LitFloat | Ty::TypedLit | Ty::SwitchLit => {
            if let Some(num) = op.num {
                out.push_str(&format_literal(words, num));
            }
        }
        Ty::Str => {
            out.push('"');
            let text = String::from_utf8_lossy(&string_bytes(words)).into_owned();
            for c in text.chars() {
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
        Ty::Enum(kind) => {
            if let Some(n) = grammar::value_name(kind, word) {
                out.push_str(&n);
            }
        }
        Ty::Mask(kind) => {
            if let Some(n) = grammar::mask_text(kind, word) {
                out.push_str(&n);
            }
        }
    }
}
