//! The module as it was read: every instruction verbatim, in stream order. Lowering drops
//! debug instructions and folds constants; the disassembly and the source view read this.

/// A SPIR-V module's words (host byte order, whatever the file's) and where each instruction
/// starts. Instruction `k` is the `k`-th in the stream: the numbering every location in
/// Lanescope uses (diagnostics, breakpoints, disassembly lines).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpirvModule {
    words: Vec<u32>,
    /// Word index of each instruction's first word.
    starts: Vec<u32>,
}

impl SpirvModule {
    /// Wraps checked words: `starts` must be where each instruction begins (the loader's
    /// pre-pass computes and checks them).
    pub(crate) fn new(words: Vec<u32>, starts: Vec<u32>) -> Self {
        Self { words, starts }
    }

    /// Every word, header included.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The five header words: magic, version, generator, bound, schema.
    pub fn header(&self) -> &[u32] {
        &self.words[..5.min(self.words.len())]
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether the module has no instructions.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Instruction `k`'s words (its first word holds the word count and opcode).
    pub fn instruction(&self, k: usize) -> &[u32] {
        let Some(&s) = self.starts.get(k) else {
            return &[];
        };
        let s = s as usize;
        let n = (self.words[s] >> 16) as usize;
        &self.words[s..s + n]
    }

    /// Instruction `k`'s opcode.
    pub fn opcode(&self, k: usize) -> u32 {
        self.instruction(k).first().map_or(0, |w| w & 0xffff)
    }

    /// Byte offset of instruction `k` in the file.
    pub fn byte_offset(&self, k: usize) -> Option<u32> {
        self.starts.get(k).map(|s| s * 4)
    }

    /// Iterates over the instructions.
    pub fn instructions(&self) -> impl Iterator<Item = &[u32]> + '_ {
        (0..self.len()).map(|k| self.instruction(k))
    }
}

/// A literal string operand starting at `words[0]` (nul-terminated, UTF-8, little-endian
/// packing), and the number of words it takes.
pub fn literal_string(words: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (k, w) in words.iter().enumerate() {
        for b in w.to_le_bytes() {
            if b == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), k + 1);
            }
            bytes.push(b);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), words.len())
}
