//! The module as text, one line per instruction in binary order, so that line `k` is the
//! module's instruction `k` (the index the core uses in every location and diagnostic).

use lanescope_core::program::Program;
use rspirv::dr::Operand;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// `%name = ` (empty for instructions without a result).
    pub result: String,
    pub result_id: Option<u32>,
    pub opcode: String,
    /// Operands as text; ids carry their id so the view can highlight them.
    pub operands: Vec<(String, Option<u32>)>,
}

impl Line {
    pub fn text(&self) -> String {
        let mut s = format!("{}{}", self.result, self.opcode);
        for (t, _) in &self.operands {
            s.push(' ');
            s.push_str(t);
        }
        s
    }
}

pub struct Disassembly {
    pub lines: Vec<Line>,
}

impl Disassembly {
    /// `bytes` has already loaded as `program`, so it is a well-formed module.
    pub fn new(bytes: &[u8], program: &Program) -> Self {
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let raw = raw_opcodes(&words);
        let mut patched = words.clone();
        // rspirv does not know OpExecutionModeId; its operands parse as OpExecutionMode's.
        for &(at, op) in &raw {
            if op == 331 {
                patched[at] = (patched[at] & 0xffff_0000) | 16;
            }
        }
        let name = |id: u32| format!("%{}", program.name_of(id).trim_start_matches('%'));
        let lines = match rspirv::dr::load_words(&patched) {
            Ok(module) => {
                let lines: Vec<Line> = module
                    .all_inst_iter()
                    .map(|inst| {
                        let mut operands = Vec::new();
                        if let Some(t) = inst.result_type {
                            operands.push((name(t), Some(t)));
                        }
                        for o in &inst.operands {
                            operands.push(match o {
                                Operand::IdRef(id) => (name(*id), Some(*id)),
                                Operand::LiteralString(s) => (format!("{s:?}"), None),
                                other => (other.to_string(), None),
                            });
                        }
                        Line {
                            result: inst
                                .result_id
                                .map_or_else(String::new, |id| format!("{} = ", name(id))),
                            result_id: inst.result_id,
                            opcode: format!("Op{}", inst.class.opname),
                            operands,
                        }
                    })
                    .collect();
                // rspirv drops line-information instructions; keep indices true to the binary.
                if lines.len() == raw.len() {
                    lines
                } else {
                    opcode_lines(&raw)
                }
            }
            Err(_) => opcode_lines(&raw),
        };
        Self { lines }
    }
}

/// (word index, opcode) of every instruction after the header.
fn raw_opcodes(words: &[u32]) -> Vec<(usize, u32)> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        out.push((at, words[at] & 0xffff));
        if count == 0 {
            break;
        }
        at += count;
    }
    out
}

fn opcode_lines(raw: &[(usize, u32)]) -> Vec<Line> {
    raw.iter()
        .map(|&(_, op)| Line {
            result: String::new(),
            result_id: None,
            opcode: rspirv::spirv::Op::from_u32(op)
                .map_or_else(|| format!("Op#{op}"), |o| format!("Op{o:?}")),
            operands: Vec::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_the_instruction_of_that_index() {
        for (name, bytes, _) in crate::examples::EXAMPLES {
            let prog = lanescope_core::load(bytes, &Default::default()).unwrap();
            let d = Disassembly::new(bytes, &prog);
            assert_eq!(d.lines.len() as u32, prog.module_instructions, "{name}");
            for b in &prog.blocks {
                let label = &d.lines[b.first_inst_index as usize - 1];
                assert_eq!(label.opcode, "OpLabel", "{name}");
                assert_eq!(label.result_id, Some(b.label), "{name}");
                let term = &d.lines[*b.inst_indices.last().unwrap() as usize];
                assert!(
                    [
                        "OpBranch",
                        "OpBranchConditional",
                        "OpSwitch",
                        "OpReturn",
                        "OpReturnValue",
                        "OpUnreachable",
                        "OpKill"
                    ]
                    .contains(&term.opcode.as_str()),
                    "{name}: {}",
                    term.text()
                );
            }
        }
    }
}
