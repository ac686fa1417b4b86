//! The module as text, one line per instruction in binary order, so that line `k` is the
//! module's instruction `k` (the index the core uses in every location and diagnostic).

use lanescope_core::program::Program;

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
    /// The program's own module, printed as spirv-dis prints it (by the core's disassembler,
    /// which reads the same verbatim instruction stream the loader did).
    pub fn new(program: &Program) -> Self {
        let opts = lanescope_core::spvtext::DisOptions::default();
        let lines =
            match lanescope_core::spvtext::disassemble_lines(program.module().words(), &opts) {
                Ok(lines) => lines.into_iter().map(|l| Line::from_dis(&l)).collect(),
                // The module loaded, so this does not happen; show opcodes rather than nothing.
                Err(_) => program
                    .module()
                    .instructions()
                    .map(|w| Line {
                        result: String::new(),
                        result_id: None,
                        opcode: format!("opcode {}", w.first().map_or(0, |x| x & 0xffff)),
                        operands: Vec::new(),
                    })
                    .collect(),
            };
        Self { lines }
    }
}

impl Line {
    /// Splits a disassembled line into its result, opcode and operand pieces; a piece that is
    /// an id carries it, so the view can highlight and link it. Line breaks inside string
    /// operands print as `\n`, so an instruction stays one row.
    fn from_dis(l: &lanescope_core::spvtext::DisLine) -> Self {
        let text = l.text.as_str();
        let trimmed_start = text.len() - text.trim_start().len();
        let (result, rest_at) = match (l.result_id, text.find(" = ")) {
            (Some(_), Some(eq)) => (format!("{} = ", text[trimmed_start..eq].trim()), eq + 3),
            _ => (String::new(), trimmed_start),
        };
        let rest = &text[rest_at..];
        let op_end = rest_at + rest.find(' ').unwrap_or(rest.len());
        let opcode = text[rest_at..op_end].to_owned();
        let mut operands = Vec::new();
        let mut at = op_end;
        let clean = |s: &str| s.replace('\n', "\\n");
        for (range, id) in l.ids.iter().filter(|(r, _)| r.start >= op_end) {
            if range.start > at {
                operands.push((clean(text[at..range.start].trim()), None));
            }
            operands.push((text[range.clone()].to_owned(), Some(*id)));
            at = range.end;
        }
        if at < text.len() {
            operands.push((clean(text[at..].trim()), None));
        }
        operands.retain(|(t, _)| !t.is_empty());
        Self {
            result,
            result_id: l.result_id,
            opcode,
            operands,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_the_instruction_of_that_index() {
        for (name, bytes, _) in crate::examples::EXAMPLES {
            let prog = lanescope_core::load(bytes, &Default::default()).unwrap();
            let d = Disassembly::new(&prog);
            assert_eq!(d.lines.len() as u32, prog.module_instructions(), "{name}");
            for b in prog.blocks() {
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

    /// A debug build (glslang -gVS: OpString with the source text, non-semantic instructions
    /// between functions) prints as spirv-dis prints it, one row per instruction.
    #[test]
    fn debug_builds_print_every_instruction() {
        let bytes = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../core/tests/data/debug/loop_switch_gvs.spv"),
        )
        .unwrap();
        let prog = lanescope_core::load(&bytes, &Default::default()).unwrap();
        let d = Disassembly::new(&prog);
        assert_eq!(d.lines.len(), prog.module().len());
        let ext = d
            .lines
            .iter()
            .find(|l| l.operands.iter().any(|(t, _)| t.contains("DebugLine")))
            .expect("a DebugLine");
        assert_eq!(ext.opcode, "OpExtInst");
        // The source text's line breaks stay inside one row.
        let src = d
            .lines
            .iter()
            .find(|l| l.opcode == "OpString" && l.text().contains("#version"))
            .unwrap();
        assert!(!src.text().contains('\n') && src.text().contains("\\n"));
    }
}
