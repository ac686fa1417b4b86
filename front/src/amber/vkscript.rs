//! VkScript, amber's older format (`docs/vk_script.md`): `[require]`, `[compute shader ...]`
//! and `[test]` sections, read into the same [`Script`] AmberScript gives. The compute subset:
//! `ssbo B size`, `ssbo B subdata TYPE OFFSET values`, `uniform ubo B TYPE OFFSET values`,
//! `uniform TYPE OFFSET values` (push constants), `compute X Y Z`, `compute entrypoint NAME`,
//! `tolerance ...` and `probe ssbo TYPE B OFFSET OP values`. Graphics sections and commands
//! make the script unsupported.
//!
//! As in amber, each binding's buffer takes the type of the first `subdata` or `probe` that
//! names it (one byte per element until then), `ssbo B N` sizes it in those elements, uniform
//! buffers are laid out `STD140`, and buffer commands apply in order as the test runs.

use super::lex::{Lexer, Tok, Token};
use super::parse::ParseError;
use super::script::{
    Attach, Bind, BindKind, Buffer, Check, Cmp, Command, Expect, Pipeline, Requirement,
    RequirementKind, Script, Shader, ShaderFormat, Tolerance, Unsupported,
};
use super::types::{encode, DataType, Format, Layout, Scalar, Value};
use std::collections::BTreeMap;

/// Whether `text` is VkScript: no `#!amber` line, and a `[section]` header first.
pub fn is_vkscript(text: &str) -> bool {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    !text.trim_start().starts_with("#!amber") && first.is_some_and(|l| l.starts_with('['))
}

enum Stop {
    Error(ParseError),
    Unsupported(Unsupported),
}

type VResult<T> = Result<T, Stop>;

fn err<T>(line: usize, col: usize, message: impl Into<String>) -> VResult<T> {
    Err(Stop::Error(ParseError {
        line,
        col,
        message: message.into(),
    }))
}

fn unsupported<T>(line: usize, what: impl Into<String>) -> VResult<T> {
    Err(Stop::Unsupported(Unsupported {
        line,
        what: what.into(),
    }))
}

/// A VkScript data type (`int`, `uint`, `float`, `double`, `int8_t`... `uint64_t`, `vec4`,
/// `ivec2`, `u16vec3`, `dvec2`, `mat3`, `mat2x4`, `dmat4`), as amber's `DatumTypeParser` reads
/// them.
fn datum_type(s: &str) -> Option<DataType> {
    let scalar = |t: Scalar| Some(DataType::scalar(t));
    match s {
        "int" => return scalar(Scalar::I32),
        "uint" => return scalar(Scalar::U32),
        "int8_t" => return scalar(Scalar::I8),
        "uint8_t" => return scalar(Scalar::U8),
        "int16_t" => return scalar(Scalar::I16),
        "uint16_t" => return scalar(Scalar::U16),
        "int64_t" => return scalar(Scalar::I64),
        "uint64_t" => return scalar(Scalar::U64),
        "float" => return scalar(Scalar::F32),
        "double" => return scalar(Scalar::F64),
        _ => {}
    }
    let b = s.as_bytes();
    let dim = |i: usize| {
        b.get(i)
            .filter(|c| (b'2'..=b'4').contains(c))
            .map(|c| u32::from(c - b'0'))
    };
    let (rows, cols, scalar) = if let Some(p) = s.find("vec") {
        let bits = match (b.get(1), b.get(2)) {
            (Some(b'8'), _) => 8,
            (Some(b'1'), Some(b'6')) => 16,
            (Some(b'6'), Some(b'4')) => 64,
            _ if b[0] == b'd' => 64,
            _ => 32,
        };
        let scalar = match (b[0], bits) {
            (b'i', 8) => Scalar::I8,
            (b'i', 16) => Scalar::I16,
            (b'i', 64) => Scalar::I64,
            (b'i', _) => Scalar::I32,
            (b'u', 8) => Scalar::U8,
            (b'u', 16) => Scalar::U16,
            (b'u', 64) => Scalar::U64,
            (b'u', _) => Scalar::U32,
            (_, 16) => Scalar::F16,
            (_, 64) => Scalar::F64,
            _ => Scalar::F32,
        };
        (dim(p + 3)?, 1, scalar)
    } else {
        let p = s.find("mat")?;
        let cols = dim(p + 3)?;
        let rows = if b.get(p + 4) == Some(&b'x') {
            dim(p + 5)?
        } else {
            cols
        };
        let scalar = if b[0] == b'd' {
            Scalar::F64
        } else {
            Scalar::F32
        };
        (rows, cols, scalar)
    };
    Some(DataType {
        scalar,
        rows,
        cols,
        array: false,
        name: s.to_string(),
    })
}

/// The bytes of `values` as `format`'s values from its first element on.
fn value_bytes(format: &Format, values: &[Value]) -> Vec<u8> {
    let per = format.values_per_element().max(1);
    let mut out = vec![0u8; values.len().div_ceil(per) * format.stride()];
    for (k, v) in values.iter().enumerate() {
        let (pos, t) = format.value_at(0, k);
        encode(t, *v, &mut out[pos..]);
    }
    out
}

/// A binding's buffer while reading the test.
struct VkBuffer {
    index: usize,
    set: u32,
    binding: u32,
    kind: BindKind,
    format: Option<Format>,
}

struct Reader {
    script: Script,
    buffers: Vec<VkBuffer>,
    push: Option<(usize, Option<Format>)>,
    /// (command index, buffer, elements) of `ssbo B N`, sized once the buffer's type is known.
    sizes: Vec<(usize, usize, u64)>,
    tolerance: Vec<Tolerance>,
    entry: Option<String>,
    /// Compute commands: (command index, entry point).
    computes: Vec<(usize, Option<String>)>,
    shader: Option<usize>,
}

/// Reads a VkScript file.
pub fn parse(text: &str) -> Result<Script, ParseError> {
    let mut r = Reader {
        script: Script::default(),
        buffers: Vec::new(),
        push: None,
        sizes: Vec::new(),
        tolerance: Vec::new(),
        entry: None,
        computes: Vec::new(),
        shader: None,
    };
    match r.sections(text).and_then(|()| r.finish()) {
        Ok(()) => {}
        Err(Stop::Error(e)) => return Err(e),
        Err(Stop::Unsupported(u)) => r.script.unsupported = Some(u),
    }
    Ok(r.script)
}

impl Reader {
    fn sections(&mut self, text: &str) -> VResult<()> {
        // (header line, name, content)
        let mut sections: Vec<(usize, String, String)> = Vec::new();
        for (k, line) in text.lines().enumerate() {
            let n = k + 1;
            if let Some(rest) = line.strip_prefix('[') {
                let Some(end) = rest.rfind(']') else {
                    return err(n, 1, "missing `]` closing the section name");
                };
                sections.push((n, rest[..end].to_string(), String::new()));
                continue;
            }
            match sections.last_mut() {
                Some((_, _, content)) => {
                    content.push_str(line);
                    content.push('\n');
                }
                None if line.trim().is_empty() || line.starts_with('#') => {}
                None => return err(n, 1, "expected a `[section]` header"),
            }
        }
        for (line, name, content) in sections {
            self.section(line, &name, &content)?;
        }
        Ok(())
    }

    fn section(&mut self, line: usize, name: &str, content: &str) -> VResult<()> {
        let (base, format) = if let Some(b) = name.strip_suffix(" spirv hex") {
            (b, Some(ShaderFormat::SpirvHex))
        } else if let Some(b) = name.strip_suffix(" spirv") {
            (b, Some(ShaderFormat::SpirvAsm))
        } else {
            (name, None)
        };
        match base {
            "comment" => Ok(()),
            "require" => self.require(line, content),
            "test" => self.test(line, content),
            "compute shader" => {
                if self.shader.is_some() {
                    return err(line, 1, "a second [compute shader] section");
                }
                let format = format.unwrap_or(ShaderFormat::Glsl);
                self.shader = Some(self.script.shaders.len());
                self.script.shaders.push(Shader {
                    name: format!("vk_shader_{}", self.script.shaders.len()),
                    line,
                    format,
                    source: content.trim_end_matches(['\n', '\r']).to_string() + "\n",
                    source_line: line + 1,
                    target_env: None,
                });
                Ok(())
            }
            "indices" | "vertex data" => {
                unsupported(line, format!("[{name}] (graphics pipelines)"))
            }
            b if b.ends_with(" shader") || b.ends_with(" shader passthrough") => unsupported(
                line,
                format!("[{name}] (only compute shaders are simulated)"),
            ),
            _ => err(line, 2, format!("unknown section `[{name}]`")),
        }
    }

    fn require(&mut self, first: usize, content: &str) -> VResult<()> {
        let mut lx = Lexer::new(content);
        loop {
            let t = lx.next();
            let line = first + t.line;
            match &t.tok {
                Tok::Eol => continue,
                Tok::Eos => return Ok(()),
                Tok::Ident(_) => {}
                _ => return err(line, t.col, format!("invalid requirement {}", t.describe())),
            }
            let name = t.ident().unwrap_or_default().to_string();
            match name.as_str() {
                // Graphics settings, which compute tests do not use.
                "framebuffer" | "depthstencil" | "fence_timeout" => {
                    lx.next();
                }
                "fbsize" => {
                    lx.next();
                    lx.next();
                }
                _ => {
                    let kind = if name.starts_with("VK_") {
                        RequirementKind::DeviceExtension
                    } else {
                        RequirementKind::DeviceFeature
                    };
                    self.script
                        .requirements
                        .push(Requirement { line, kind, name });
                }
            }
            let end = lx.next();
            if !end.is_end() {
                return err(
                    first + end.line,
                    end.col,
                    format!("extra {} in [require]", end.describe()),
                );
            }
        }
    }

    /// The buffer bound at (`set`, `binding`), made on first use.
    fn buffer(&mut self, set: u32, binding: u32, kind: BindKind) -> usize {
        if let Some(i) = self
            .buffers
            .iter()
            .position(|b| (b.set, b.binding) == (set, binding))
        {
            return i;
        }
        let index = self.script.buffers.len();
        self.script.buffers.push(Buffer {
            name: format!(
                "{}{set}:{binding}",
                if kind == BindKind::Uniform {
                    "ubo "
                } else {
                    "ssbo "
                }
            ),
            line: 0,
            format: Format::new(DataType::scalar(Scalar::I8), Layout::Std430),
            bytes: Vec::new(),
            image: None,
        });
        self.buffers.push(VkBuffer {
            index,
            set,
            binding,
            kind,
            format: None,
        });
        self.buffers.len() - 1
    }

    /// Gives a buffer its type, or checks it has that type already.
    fn typed(&mut self, b: usize, format: Format, t: &Token, line: usize) -> VResult<()> {
        match &self.buffers[b].format {
            None => {
                self.buffers[b].format = Some(format);
                Ok(())
            }
            Some(f) if f.segs == format.segs && f.ty.scalar == format.ty.scalar => Ok(()),
            Some(f) => err(
                line,
                t.col,
                format!(
                    "type {} does not match the binding's earlier {}",
                    t.text, f.ty.name
                ),
            ),
        }
    }

    fn test(&mut self, first: usize, content: &str) -> VResult<()> {
        let mut lx = Lexer::new(content);
        loop {
            let t = lx.next();
            let line = first + t.line;
            match &t.tok {
                Tok::Eol => continue,
                Tok::Eos => return Ok(()),
                Tok::Ident(_) => {}
                _ => {
                    return err(
                        line,
                        t.col,
                        format!("expected a command, found {}", t.describe()),
                    )
                }
            }
            let mut words = vec![t.clone()];
            loop {
                let w = lx.next();
                if w.is_end() {
                    break;
                }
                words.push(w);
            }
            self.command(line, &words)?;
        }
    }

    /// `N` or `SET:BINDING` (the lexer reads `0:1` as `0` then `:1`), from `words[at]`;
    /// returns (set, binding, words used).
    fn binding(line: usize, words: &[Token], at: usize) -> VResult<(u32, u32, usize)> {
        let Some(first) = words.get(at) else {
            return err(line, 1, "missing binding");
        };
        let Some(v) = first.as_u64().and_then(|v| u32::try_from(v).ok()) else {
            return err(
                line,
                first.col,
                format!("invalid binding {}", first.describe()),
            );
        };
        match words
            .get(at + 1)
            .and_then(Token::ident)
            .and_then(|s| s.strip_prefix(':'))
        {
            Some(b) => match b.parse::<u32>() {
                Ok(b) => Ok((v, b, 2)),
                Err(_) => err(line, words[at + 1].col, format!("invalid binding `{b}`")),
            },
            None => Ok((0, v, 1)),
        }
    }

    fn datum(line: usize, t: Option<&Token>, layout: Layout) -> VResult<Format> {
        let Some(t) = t else {
            return err(line, 1, "missing type");
        };
        match t.ident().and_then(datum_type) {
            Some(d) => Ok(Format::new(d, layout)),
            None => err(line, t.col, format!("unknown type {}", t.describe())),
        }
    }

    fn offset(line: usize, t: Option<&Token>, format: &Format) -> VResult<u64> {
        let Some(t) = t else {
            return err(line, 1, "missing offset");
        };
        match t.tok {
            Tok::Int { value, neg: false } if value % format.stride().max(1) as u64 == 0 => {
                Ok(value)
            }
            Tok::Int { neg: false, .. } => err(
                line,
                t.col,
                format!(
                    "offset {} is not a multiple of the type's size ({} bytes)",
                    t.text,
                    format.stride()
                ),
            ),
            _ => err(line, t.col, format!("invalid offset {}", t.describe())),
        }
    }

    fn values(line: usize, words: &[Token], format: &Format) -> VResult<Vec<Value>> {
        let slots = format.slots();
        let mut out = Vec::new();
        for w in words {
            let (_, s) = slots[out.len() % slots.len()];
            let v = match (s.is_float(), w.as_f64(), w.as_u64()) {
                (true, Some(x), _) => Value::Float(x),
                (false, _, Some(u)) if w.is_int() => Value::Int(u),
                _ => {
                    return err(
                        line,
                        w.col,
                        format!("invalid value {} for {}", w.describe(), format.ty.name),
                    )
                }
            };
            out.push(v);
        }
        if out.is_empty() || out.len() % format.ty.rows as usize != 0 {
            return err(
                line,
                1,
                format!("{} values do not fill whole {}s", out.len(), format.ty.name),
            );
        }
        Ok(out)
    }

    fn command(&mut self, line: usize, w: &[Token]) -> VResult<()> {
        let word = |i: usize| w.get(i).and_then(Token::ident).unwrap_or_default();
        match word(0) {
            "ssbo" => {
                let (set, binding, n) = Self::binding(line, w, 1)?;
                let b = self.buffer(set, binding, BindKind::Storage);
                let at = 1 + n;
                if word(at) == "subdata" {
                    let format = Self::datum(line, w.get(at + 1), Layout::Std430)?;
                    self.typed(b, format.clone(), &w[at + 1], line)?;
                    let offset = Self::offset(line, w.get(at + 2), &format)?;
                    let values = Self::values(line, &w[(at + 3).min(w.len())..], &format)?;
                    self.write(
                        line,
                        self.buffers[b].index,
                        offset,
                        value_bytes(&format, &values),
                    );
                } else {
                    let Some(n) = w
                        .get(at)
                        .and_then(|t| if t.is_int() { t.as_u64() } else { None })
                    else {
                        return err(
                            line,
                            w.get(at).map_or(1, |t| t.col),
                            "expected a size or subdata",
                        );
                    };
                    let cmd = self.script.commands.len();
                    self.script
                        .commands
                        .push(Command::Clear { line, buffer: 0 });
                    self.sizes.push((cmd, b, n));
                }
                Ok(())
            }
            "uniform" if word(1) == "ubo" => {
                let (set, binding, n) = Self::binding(line, w, 2)?;
                let b = self.buffer(set, binding, BindKind::Uniform);
                let at = 2 + n;
                let format = Self::datum(line, w.get(at), Layout::Std140)?;
                self.typed(b, format.clone(), &w[at], line)?;
                let offset = Self::offset(line, w.get(at + 1), &format)?;
                let values = Self::values(line, &w[(at + 2).min(w.len())..], &format)?;
                self.write(
                    line,
                    self.buffers[b].index,
                    offset,
                    value_bytes(&format, &values),
                );
                Ok(())
            }
            "uniform" => {
                let format = Self::datum(line, w.get(1), Layout::Std430)?;
                let offset = Self::offset(line, w.get(2), &format)?;
                let values = Self::values(line, &w[3.min(w.len())..], &format)?;
                let index = match &self.push {
                    Some((i, _)) => *i,
                    None => {
                        let i = self.script.buffers.len();
                        self.script.buffers.push(Buffer {
                            name: "push constants".into(),
                            line,
                            format: format.clone(),
                            bytes: Vec::new(),
                            image: None,
                        });
                        self.push = Some((i, Some(format.clone())));
                        i
                    }
                };
                self.write(line, index, offset, value_bytes(&format, &values));
                Ok(())
            }
            "compute" if word(1) == "entrypoint" => {
                let Some(e) = w.get(2).and_then(Token::name) else {
                    return err(line, 1, "missing entry point name");
                };
                self.entry = Some(e.to_string());
                Ok(())
            }
            "compute" => {
                let mut g = [0u32; 3];
                for (k, x) in g.iter_mut().enumerate() {
                    let t = w.get(1 + k);
                    *x = match t.and_then(|t| if t.is_int() { t.as_u64() } else { None }) {
                        Some(v) => u32::try_from(v).unwrap_or(u32::MAX),
                        None => {
                            return err(
                                line,
                                t.map_or(1, |t| t.col),
                                "expected three workgroup counts",
                            )
                        }
                    };
                }
                let cmd = self.script.commands.len();
                self.script.commands.push(Command::Run {
                    line,
                    pipeline: 0,
                    groups: g,
                });
                self.computes.push((cmd, self.entry.clone()));
                Ok(())
            }
            "tolerance" => {
                self.tolerance.clear();
                let mut i = 1;
                while let Some(t) = w.get(i) {
                    if t.is(",") {
                        i += 1;
                        continue;
                    }
                    let Some(value) = t.as_f64().filter(|_| !matches!(t.tok, Tok::Hex(_))) else {
                        return err(line, t.col, format!("invalid tolerance {}", t.describe()));
                    };
                    let percent = w.get(i + 1).is_some_and(|p| p.is("%"));
                    self.tolerance.push(Tolerance { value, percent });
                    i += if percent { 2 } else { 1 };
                }
                if self.tolerance.len() != 1 && self.tolerance.len() != 4 {
                    return err(line, 1, "tolerance takes 1 or 4 values");
                }
                Ok(())
            }
            "probe" if word(1) == "ssbo" => {
                let format = Self::datum(line, w.get(2), Layout::Std430)?;
                let (set, binding, n) = Self::binding(line, w, 3)?;
                let Some(b) = self
                    .buffers
                    .iter()
                    .position(|b| (b.set, b.binding) == (set, binding))
                else {
                    return err(
                        line,
                        w[3].col,
                        format!("no buffer at set {set} binding {binding}"),
                    );
                };
                self.typed(b, format.clone(), &w[2], line)?;
                let at = 3 + n;
                let Some(offset) = w
                    .get(at)
                    .and_then(|t| if t.is_int() { t.as_u64() } else { None })
                else {
                    return err(line, w.get(at).map_or(1, |t| t.col), "invalid probe offset");
                };
                let op_tok = w.get(at + 1);
                let (op, fuzzy) = match op_tok.and_then(Token::ident) {
                    Some("==") => (Cmp::Eq, false),
                    Some("!=") => (Cmp::Ne, false),
                    Some("~=") => (Cmp::Eq, true),
                    Some("<") => (Cmp::Lt, false),
                    Some("<=") => (Cmp::Le, false),
                    Some(">") => (Cmp::Gt, false),
                    Some(">=") => (Cmp::Ge, false),
                    _ => return err(line, op_tok.map_or(1, |t| t.col), "invalid comparison"),
                };
                let values = Self::values(line, &w[(at + 2).min(w.len())..], &format)?;
                self.script.commands.push(Command::Expect(Expect {
                    line,
                    buffer: self.buffers[b].index,
                    check: Check::Values {
                        offset,
                        op,
                        tolerance: if fuzzy {
                            self.tolerance.clone()
                        } else {
                            Vec::new()
                        },
                        values,
                    },
                }));
                Ok(())
            }
            w0 => unsupported(line, format!("VkScript command `{w0}` (graphics)")),
        }
    }

    fn write(&mut self, line: usize, buffer: usize, offset: u64, bytes: Vec<u8>) {
        self.script.commands.push(Command::Write {
            line,
            buffer,
            offset: offset as usize,
            bytes,
        });
    }

    /// Types the buffers, sizes `ssbo B N`, and makes a pipeline per entry point.
    fn finish(&mut self) -> VResult<()> {
        for b in &self.buffers {
            if let Some(f) = &b.format {
                self.script.buffers[b.index].format = f.clone();
            }
        }
        if let Some((i, Some(f))) = &self.push {
            self.script.buffers[*i].format = f.clone();
        }
        for (cmd, b, n) in std::mem::take(&mut self.sizes) {
            let vb = &self.buffers[b];
            let stride = self.script.buffers[vb.index].format.stride() as u64;
            self.script.commands[cmd] = Command::Resize {
                line: match &self.script.commands[cmd] {
                    Command::Clear { line, .. } => *line,
                    _ => 0,
                },
                buffer: vb.index,
                len: n.saturating_mul(stride),
            };
        }
        let Some(shader) = self.shader else {
            if self.computes.is_empty() {
                return Ok(());
            }
            return err(1, 1, "a compute command without a [compute shader] section");
        };
        let needs_14 = self
            .script
            .requirements
            .iter()
            .any(|r| r.name == "VK_KHR_spirv_1_4");
        if needs_14 && self.script.shaders[shader].format != ShaderFormat::SpirvHex {
            // What CTS assembles these tests for.
            self.script.shaders[shader].target_env = Some("spv1.4".into());
        }
        let binds: Vec<Bind> = self
            .buffers
            .iter()
            .map(|b| Bind {
                line: 0,
                buffer: b.index,
                kind: b.kind,
                set: b.set,
                binding: b.binding,
                element: 0,
                dynamic_offset: 0,
                descriptor_offset: 0,
                range: None,
                sampler: None,
            })
            .collect();
        let mut by_entry: BTreeMap<Option<String>, usize> = BTreeMap::new();
        for (cmd, entry) in std::mem::take(&mut self.computes) {
            let next = self.script.pipelines.len();
            let p = *by_entry.entry(entry.clone()).or_insert(next);
            if p == next {
                self.script.pipelines.push(Pipeline {
                    name: entry
                        .clone()
                        .map_or("default".into(), |e| format!("default:{e}")),
                    line: 0,
                    attach: Some(Attach {
                        line: 0,
                        shader,
                        entry,
                        spec: Vec::new(),
                    }),
                    binds: binds.clone(),
                    push_constant: self.push.as_ref().map(|(i, _)| *i),
                    subgroup: Vec::new(),
                    samplers: Vec::new(),
                });
            }
            if let Command::Run { pipeline, .. } = &mut self.script.commands[cmd] {
                *pipeline = p;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_read_as_amber_reads_them() {
        let t = |s: &str| datum_type(s).map(|d| (d.scalar, d.rows, d.cols));
        assert_eq!(t("int"), Some((Scalar::I32, 1, 1)));
        assert_eq!(t("ivec2"), Some((Scalar::I32, 2, 1)));
        assert_eq!(t("u16vec3"), Some((Scalar::U16, 3, 1)));
        assert_eq!(t("i64vec4"), Some((Scalar::I64, 4, 1)));
        assert_eq!(t("dvec2"), Some((Scalar::F64, 2, 1)));
        assert_eq!(t("mat2x3"), Some((Scalar::F32, 3, 2)));
        assert_eq!(t("dmat4"), Some((Scalar::F64, 4, 4)));
        assert_eq!(t("bogus"), None);
    }

    #[test]
    fn a_compute_test_becomes_a_script() {
        let text = "[require]\nVK_KHR_spirv_1_4\nshaderInt64\n\n[compute shader spirv]\nOpCapability Shader\n\n\
                    [test]\nssbo 0:1 16\nssbo 0:1 subdata int 4 7 -8\nuniform ubo 2 vec2 0 1.5 2\n\
                    uniform uint 4 9\ncompute entrypoint go\ncompute 2 1 1\ntolerance 1%\n\
                    probe ssbo int 0:1 4 == 7 -8\nprobe ssbo vec2 2 0 ~= 1.5 2\n";
        assert!(is_vkscript(text));
        let s = parse(text).unwrap();
        assert!(s.unsupported.is_none(), "{:?}", s.unsupported);
        assert_eq!(s.requirements.len(), 2);
        assert_eq!(s.requirements[0].kind, RequirementKind::DeviceExtension);
        assert_eq!(s.shaders[0].target_env.as_deref(), Some("spv1.4"));
        assert!(matches!(s.commands[0], Command::Resize { len: 64, .. }));
        assert!(
            matches!(&s.commands[1], Command::Write { offset: 4, bytes, .. } if bytes.len() == 8)
        );
        let p = &s.pipelines[0];
        assert_eq!(p.attach.as_ref().unwrap().entry.as_deref(), Some("go"));
        assert_eq!(p.binds.len(), 2);
        assert!(p.push_constant.is_some());
        assert_eq!(s.buffers[p.push_constant.unwrap()].name, "push constants");
        let tolerances: Vec<(usize, usize)> = s.commands[5..]
            .iter()
            .map(|c| match c {
                Command::Expect(Expect {
                    line,
                    check: Check::Values { tolerance, .. },
                    ..
                }) => (*line, tolerance.len()),
                other => panic!("{other:?}"),
            })
            .collect();
        // `==` ignores the tolerance; `~=` uses it.
        assert_eq!(tolerances, [(16, 0), (17, 1)]);
        let u = parse("[vertex shader passthrough]\n[test]\ndraw rect 0 0 1 1\n")
            .unwrap()
            .unsupported
            .unwrap();
        assert!(u.what.contains("only compute"), "{u}");
    }
}
