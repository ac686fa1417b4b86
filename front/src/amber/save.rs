//! Saving a single-dispatch session as AmberScript: the shader, each bound buffer with its
//! data, push constants, specialization constants, the workgroup count, optionally `EXPECT`s of
//! the current outputs, and Lanescope's settings as `# lanescope:` comments (which amber
//! ignores and [`super::parse`] reads back).

use super::lex::{Lexer, Tok};
use super::parse::fill_bytes;
use super::script::{Settings, ShaderFormat};
use super::types::{decode, format_actual, DataType, Format, Layout, Scalar, Value};
use lanescope_core::{BufferAlias, NamedSetting, SpecValue};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The shader as the session has it.
#[derive(Clone, Debug)]
pub struct SaveShader {
    /// How `text` is written: `GLSL` source or `SPIRV-ASM`; `SPIRV-HEX` writes `words`.
    pub format: ShaderFormat,
    /// The `GLSL` or `SPIRV-ASM` source (not used for `SPIRV-HEX`).
    pub text: String,
    /// The `TARGET_ENV` written after a `GLSL` or `SPIRV-ASM` shader (`None`: none).
    pub target_env: Option<String>,
    /// The module's words, written as `SPIRV-HEX` when the text cannot be embedded (amber ends
    /// a shader at the first `END` anywhere in it).
    pub words: Vec<u32>,
}

/// A bound buffer.
#[derive(Clone, Debug)]
pub struct SaveBuffer {
    /// Its descriptor set.
    pub set: u32,
    /// Its binding in the set.
    pub binding: u32,
    /// The descriptor array element (0 for a single buffer); a binding's elements are written
    /// as one `BIND BUFFER_ARRAY`.
    pub array_element: u32,
    /// Bound `AS uniform` (else `AS storage`).
    pub uniform: bool,
    /// The contents before the dispatch.
    pub data: Vec<u8>,
    /// The element type to write the data as (`uint32` words when `None`).
    pub element: Option<DataType>,
    /// Contents to expect after the dispatch (the session's current outputs).
    pub expect: Option<Vec<u8>>,
    /// Expect only the elements holding these bytes of `expect` (byte offsets of the words a
    /// report names, each `EXPECT` covering the whole elements a word lies in); all of them
    /// when `None`.
    pub expect_only: Option<Vec<usize>>,
}

impl SaveBuffer {
    /// The buffer's name in the script: `buf_SET_BINDING`, `_ELEMENT` after it past element 0.
    fn name(&self) -> String {
        match self.array_element {
            0 => format!("buf_{}_{}", self.set, self.binding),
            e => format!("buf_{}_{}_{e}", self.set, self.binding),
        }
    }
}

/// What one dispatch needs.
#[derive(Clone, Debug)]
pub struct SaveSession {
    /// The shader dispatched.
    pub shader: SaveShader,
    /// The `ENTRY_POINT` to write; `None` writes none (amber then uses `main`).
    pub entry: Option<String>,
    /// The bound buffers, each written as `buf_SET_BINDING` (`_ELEMENT` past element 0).
    pub buffers: Vec<SaveBuffer>,
    /// Bindings that share another binding's buffer.
    pub aliases: Vec<BufferAlias>,
    /// The push constants' bytes; empty when there are none (no `push_constants` buffer is
    /// written).
    pub push_constants: Vec<u8>,
    /// The element type to write the push constants as (`uint32` words when `None`).
    pub push_constant_type: Option<DataType>,
    /// Specialization constant values by id, written as `SPECIALIZE`s on the `ATTACH`.
    pub spec: BTreeMap<u32, SpecValue>,
    /// The `RUN`'s workgroup counts in x, y and z.
    pub workgroups: [u32; 3],
    /// Lanescope's settings, written as a `# lanescope:` line; a subgroup size is also
    /// written as the shader's `REQUIRED_SIZE`.
    pub settings: Settings,
}

/// Values per `DATA` line and per `EXPECT`.
const PER_LINE: usize = 16;

/// The bytes `tokens` give when a script reads them as `format`'s values.
fn reread(format: &Format, tokens: &[String]) -> Option<Vec<u8>> {
    let slots = format.slots();
    let mut values = Vec::with_capacity(tokens.len());
    for (k, t) in tokens.iter().enumerate() {
        let tok = Lexer::new(t).next();
        let (_, s) = slots[k % slots.len()];
        values.push(match (s.is_float(), &tok.tok) {
            (true, Tok::Int { .. } | Tok::Double(_) | Tok::Hex(_)) => Value::Float(tok.as_f64()?),
            (false, Tok::Int { .. } | Tok::Hex(_)) => Value::Int(tok.as_u64()?),
            _ => return None,
        });
    }
    Some(fill_bytes(format, &values))
}

/// The values of `bytes` as `format` reads them, formatted for a script.
fn tokens(format: &Format, bytes: &[u8]) -> Vec<String> {
    let stride = format.stride().max(1);
    let per = format.values_per_element();
    (0..bytes.len() / stride * per)
        .map(|k| {
            let (pos, t) = format.value_at(0, k);
            format_actual(t, decode(t, &bytes[pos..]))
        })
        .collect()
}

/// The format to write `contents` in: the caller's element type when every one of them reads
/// back to the same bytes, else `uint32` words (bytes when not a whole number of words).
fn choose_format(element: Option<&DataType>, contents: &[&[u8]]) -> Format {
    if let Some(ty) = element {
        let f = Format::new(ty.clone(), Layout::Std430);
        let fits = contents.iter().all(|c| {
            c.len() % f.stride().max(1) == 0 && reread(&f, &tokens(&f, c)).as_deref() == Some(*c)
        });
        if fits {
            return f;
        }
    }
    let scalar = if contents.iter().all(|c| c.len() % 4 == 0) {
        Scalar::U32
    } else {
        Scalar::U8
    };
    Format::new(DataType::scalar(scalar), Layout::Std430)
}

fn data_block(out: &mut String, name: &str, format: &Format, bytes: &[u8]) {
    let _ = writeln!(out, "BUFFER {name} DATA_TYPE {} DATA", format.ty.name);
    for line in tokens(format, bytes).chunks(PER_LINE) {
        let _ = writeln!(out, "{}", line.join(" "));
    }
    let _ = writeln!(out, "END");
}

/// `SPECIALIZE` words for one value: amber's 32-bit types where they say it exactly.
fn specialize(id: u32, v: &SpecValue) -> String {
    let (ty, text) = match v {
        SpecValue::Bits(b) if *b <= u64::from(u32::MAX) => ("uint32", b.to_string()),
        SpecValue::Bits(b) => ("uint64", b.to_string()),
        SpecValue::Text(t) => {
            let t = t.trim();
            if t == "true" || t == "false" {
                ("uint32", u32::from(t == "true").to_string())
            } else if let Ok(u) = t.parse::<u32>() {
                ("uint32", u.to_string())
            } else if let Ok(i) = t.parse::<i32>() {
                ("int32", i.to_string())
            } else if let Ok(u) = t.parse::<u64>() {
                ("uint64", u.to_string())
            } else if let Ok(i) = t.parse::<i64>() {
                ("int64", i.to_string())
            } else if let Some(h) = t
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
            {
                if h <= u64::from(u32::MAX) {
                    ("uint32", h.to_string())
                } else {
                    ("uint64", h.to_string())
                }
            } else {
                ("float", t.to_string())
            }
        }
    };
    format!(" SPECIALIZE {id} AS {ty} {text}")
}

fn hex_words(out: &mut String, words: &[u32]) {
    for chunk in words.chunks(4) {
        let line: Vec<String> = chunk
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .map(|b| format!("{b:02x}"))
            .collect();
        let _ = writeln!(out, "{}", line.join(" "));
    }
}

/// The session as an AmberScript.
pub fn to_amber(s: &SaveSession) -> String {
    let mut out =
        String::from("#!amber\n# Saved by Lanescope: one dispatch, its buffers and settings.\n");
    let st = &s.settings;
    let mut words = Vec::new();
    if let Some(n) = st.subgroup_size {
        words.push(format!("subgroup-size={n}"));
    }
    if let Some(t) = st.switch_tangles {
        words.push(format!("switch-tangles={}", t.name()));
    }
    if let Some(o) = st.sibling_order {
        words.push(format!("sibling-order={}", o.name()));
    }
    if let Some(l) = &st.coopmat_layout {
        words.push(format!("coopmat-layout={}", l.name()));
    }
    if !words.is_empty() {
        let _ = writeln!(out, "# lanescope: {}", words.join(" "));
    }
    if st.subgroup_size.is_some() {
        // So amber on a GPU runs the same subgroup size (the SUBGROUP block needs it).
        let _ = writeln!(
            out,
            "DEVICE_FEATURE SubgroupSizeControl.subgroupSizeControl"
        );
    }
    out.push('\n');

    let sh = &s.shader;
    let embeddable = sh.format != ShaderFormat::SpirvHex && !sh.text.contains("END");
    let format = if embeddable {
        sh.format
    } else {
        ShaderFormat::SpirvHex
    };
    let env = match (&sh.target_env, format) {
        (Some(e), ShaderFormat::Glsl | ShaderFormat::SpirvAsm) => format!(" TARGET_ENV {e}"),
        _ => String::new(),
    };
    let _ = writeln!(out, "SHADER compute shader {}{env}", format.keyword());
    if embeddable {
        out.push_str(&sh.text);
        if !sh.text.ends_with('\n') {
            out.push('\n');
        }
    } else {
        hex_words(&mut out, &sh.words);
    }
    out.push_str("END\n\n");

    let mut formats = Vec::new();
    for b in &s.buffers {
        let mut contents: Vec<&[u8]> = vec![&b.data];
        if let Some(e) = &b.expect {
            contents.push(e);
        }
        let f = choose_format(b.element.as_ref(), &contents);
        data_block(&mut out, &b.name(), &f, &b.data);
        formats.push(f);
    }
    let has_push = !s.push_constants.is_empty();
    if has_push {
        let f = choose_format(s.push_constant_type.as_ref(), &[&s.push_constants]);
        data_block(&mut out, "push_constants", &f, &s.push_constants);
    }
    out.push('\n');

    let _ = writeln!(out, "PIPELINE compute pipeline");
    let mut attach = String::from("  ATTACH shader");
    if let Some(e) = &s.entry {
        let _ = write!(attach, " ENTRY_POINT {e}");
    }
    for (id, v) in &s.spec {
        attach += &specialize(*id, v);
    }
    let _ = writeln!(out, "{attach}");
    if let Some(n) = st.subgroup_size {
        let _ = writeln!(out, "  SUBGROUP shader\n    REQUIRED_SIZE {n}\n  END");
    }
    // Every bound slot (set, binding, element) with its buffer's name and kind: the buffers,
    // then the slots sharing one of them. Each binding is one BIND, in the order of its first
    // slot: BUFFER_ARRAY when it has several elements.
    let mut slots: Vec<((u32, u32, u32), String, bool)> = s
        .buffers
        .iter()
        .map(|b| ((b.set, b.binding, b.array_element), b.name(), b.uniform))
        .collect();
    for a in &s.aliases {
        let of = (a.of_set, a.of_binding, a.of_element);
        if let Some(b) = s
            .buffers
            .iter()
            .find(|b| (b.set, b.binding, b.array_element) == of)
        {
            slots.push(((a.set, a.binding, a.element), b.name(), b.uniform));
        }
    }
    let mut bindings: Vec<(u32, u32)> = Vec::new();
    for ((set, binding, _), _, _) in &slots {
        if !bindings.contains(&(*set, *binding)) {
            bindings.push((*set, *binding));
        }
    }
    for (set, binding) in bindings {
        let mut array: Vec<&((u32, u32, u32), String, bool)> = slots
            .iter()
            .filter(|x| (x.0 .0, x.0 .1) == (set, binding))
            .collect();
        array.sort_by_key(|x| x.0 .2);
        let kind = if array[0].2 { "uniform" } else { "storage" };
        let names: Vec<&str> = array.iter().map(|x| x.1.as_str()).collect();
        let what = if array.len() > 1 {
            "BUFFER_ARRAY"
        } else {
            "BUFFER"
        };
        let _ = writeln!(
            out,
            "  BIND {what} {} AS {kind} DESCRIPTOR_SET {set} BINDING {binding}",
            names.join(" ")
        );
    }
    if has_push {
        let _ = writeln!(out, "  BIND BUFFER push_constants AS push_constant");
    }
    let _ = writeln!(out, "END\n");
    let [x, y, z] = s.workgroups;
    let _ = writeln!(out, "RUN pipeline {x} {y} {z}");

    let mut first = true;
    for (b, f) in s.buffers.iter().zip(&formats) {
        let Some(e) = &b.expect else { continue };
        if first {
            out.push('\n');
            first = false;
        }
        let per = f.values_per_element().max(1);
        let stride = f.stride().max(1);
        let toks = tokens(f, e);
        if let Some(only) = &b.expect_only {
            let mut done = std::collections::BTreeSet::new();
            for &at in only {
                // The elements the word at byte `at` lies in.
                let (first, last) = (at / stride, (at + 3) / stride);
                let vals = toks.get(first * per..(last + 1) * per);
                if let (Some(vals), true) = (vals, done.insert(first)) {
                    let _ = writeln!(
                        out,
                        "EXPECT {} IDX {} EQ {}",
                        b.name(),
                        first * stride,
                        vals.join(" ")
                    );
                }
            }
            continue;
        }
        // Whole elements per line, so each EXPECT starts at an element.
        let per_line = (PER_LINE / per).max(1) * per;
        for (k, chunk) in toks.chunks(per_line).enumerate() {
            let _ = writeln!(
                out,
                "EXPECT {} IDX {} EQ {}",
                b.name(),
                k * per_line / per * stride,
                chunk.join(" ")
            );
        }
    }
    out
}
