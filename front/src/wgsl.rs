//! WGSL compiled in-process by naga (pure Rust: the browser build has it too).
//!
//! The SPIR-V carries naga's debug information (`OpSource` with the text, `OpLine` per
//! statement, `OpName`s), so the source view maps every step back to the WGSL line.
//!
//! The directives at the top of a module are read here first, so WGSL in the form browsers
//! require (`enable subgroups;`, which naga 30 refuses) compiles: see `ENABLES` and
//! `REQUIRES` for what is taken and what is refused.

use crate::compile::{CompileError, Compiled, Diagnostic};
use naga::back::spv;
use naga::valid::{Capabilities, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator};
use std::borrow::Cow;
use std::ops::Range;

/// What Lanescope can run, so naga accepts it: subgroup operations and barriers, 16-bit floats,
/// 64-bit integers and floats, cooperative matrices. Anything else naga's validator refuses
/// with its own message.
fn capabilities() -> Capabilities {
    Capabilities::SUBGROUP
        | Capabilities::SUBGROUP_BARRIER
        | Capabilities::SHADER_FLOAT16
        | Capabilities::SHADER_INT16
        | Capabilities::SHADER_INT64
        | Capabilities::SHADER_INT64_ATOMIC_MIN_MAX
        | Capabilities::SHADER_INT64_ATOMIC_ALL_OPS
        | Capabilities::SHADER_FLOAT32_ATOMIC
        | Capabilities::FLOAT64
        | Capabilities::IMMEDIATES
        | Capabilities::COOPERATIVE_MATRIX
        | Capabilities::STORAGE_BUFFER_BINDING_ARRAY
}

/// Compiles a WGSL module with at least one `@compute` entry point, its overrides given the
/// values `overrides` names (keyed as WebGPU's `constants`: the `@id` in decimal, or the name)
/// and the others their initializers: the SPIR-V holds constants, as a WebGPU pipeline does.
pub fn compile(
    source: &str,
    file_name: &str,
    overrides: &[(String, f64)],
) -> Result<Compiled, CompileError> {
    // naga parses the text with the directives it refuses blanked; everything else (spans,
    // diagnostics, the text embedded for the source view) speaks of the user's own text.
    let parsed = directives(source)?;
    let module = naga::front::wgsl::parse_str(&parsed).map_err(|e| {
        let mut diagnostics: Vec<Diagnostic> = Vec::new();
        let labels: Vec<_> = e.labels().collect();
        for (i, (span, label)) in labels.iter().enumerate() {
            let message = match (i, label.is_empty()) {
                (0, true) => e.message().to_string(),
                (0, false) if e.message().contains(*label) => e.message().to_string(),
                (0, false) => format!("{}: {label}", e.message()),
                (_, true) => continue,
                (_, false) => (*label).to_string(),
            };
            diagnostics.push(at(source, *span, message, i == 0));
        }
        if diagnostics.is_empty() {
            diagnostics.push(Diagnostic {
                line: 0,
                column: 0,
                len: 0,
                message: e.message().to_string(),
                error: true,
                file: None,
            });
        }
        for note in e.notes() {
            if let Some(first) = diagnostics.first_mut() {
                first.message.push_str(&format!(" (note: {note})"));
            }
        }
        CompileError { diagnostics }
    })?;

    let computes: Vec<&naga::EntryPoint> = module
        .entry_points
        .iter()
        .filter(|e| e.stage == naga::ShaderStage::Compute)
        .collect();
    if computes.is_empty() {
        return Err(CompileError::message(
            "no `@compute` entry point: Lanescope runs compute shaders",
        ));
    }

    let mut validator = Validator::new(ValidationFlags::all(), capabilities());
    validator
        .subgroup_stages(ShaderStages::COMPUTE)
        .subgroup_operations(SubgroupOperationSet::all());
    let info = validator.validate(&module).map_err(|e| {
        // The innermost cause is usually the clearest; keep the chain.
        let mut message = e.as_inner().to_string();
        let mut cause = std::error::Error::source(e.as_inner());
        while let Some(c) = cause {
            message.push_str(&format!(": {c}"));
            cause = c.source();
        }
        error_at(source, e.spans().next().map(|(span, _)| *span), message)
    })?;

    // naga's SPIR-V writer takes no overrides: they become constants first, as a pipeline's
    // creation makes them.
    let mut constants = naga::back::PipelineConstants::default();
    for (key, value) in overrides {
        constants.insert(key.clone(), *value);
    }
    let (module, info) =
        naga::back::pipeline_constants::process_overrides(&module, &info, None, &constants)
            .map_err(|e| override_error(source, &module, overrides, e))?;
    let options = spv::Options {
        // 1.6 (Vulkan 1.3): subgroup operations, integer dot products and cooperative matrices
        // all need at least 1.3; 1.6 lets workgroup memory be zeroed by an initializer.
        lang_version: (1, 6),
        flags: spv::WriterFlags::DEBUG,
        // WGSL zero-initialises workgroup memory; an initializer says so without adding code
        // and a barrier the user did not write.
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Native,
        // Loop counters the user did not write would show in every step.
        force_loop_bounding: false,
        debug_info: Some(spv::DebugInfo {
            source_code: source,
            file_name,
            language: spv::SourceLanguage::WGSL,
        }),
        ..spv::Options::default()
    };
    // Graphics entry points are left out: a module with only the compute ones loads anywhere.
    let pipeline = (computes.len() < module.entry_points.len()).then(|| spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: computes[0].name.clone(),
    });
    let words = spv::write_vec(&module, &info, &options, pipeline.as_ref())
        .map_err(|e| CompileError::message(format!("SPIR-V generation failed: {e}")))?;
    Ok(Compiled {
        words,
        warnings: Vec::new(),
    })
}

/// Why the overrides could not be given their values, at the override concerned where there is
/// one.
fn override_error(
    source: &str,
    module: &naga::Module,
    overrides: &[(String, f64)],
    e: naga::back::pipeline_constants::PipelineConstantError,
) -> CompileError {
    use naga::back::pipeline_constants::PipelineConstantError as E;
    let named = |key: &str| {
        module.overrides.iter().find(|(_, o)| match o.id {
            Some(id) => id.to_string() == key,
            None => o.name.as_deref() == Some(key),
        })
    };
    // Each override with its key and type, for a message about the values.
    let given = |module: &naga::Module| {
        let mut list = Vec::new();
        for (_, o) in module.overrides.iter() {
            let key =
                o.id.map_or_else(|| o.name.clone().unwrap_or_default(), |id| id.to_string());
            let ty = module.types[o.ty].name.clone().unwrap_or_else(|| {
                module.types[o.ty].inner.scalar().map_or_else(
                    || "?".to_string(),
                    |s| {
                        let kind = match s.kind {
                            naga::ScalarKind::Sint => "i",
                            naga::ScalarKind::Uint => "u",
                            naga::ScalarKind::Float => "f",
                            _ => return "bool".to_string(),
                        };
                        format!("{kind}{}", s.width * 8)
                    },
                )
            });
            let value = overrides
                .iter()
                .find(|(k, _)| *k == key)
                .map_or_else(|| "its initializer".to_string(), |(_, v)| v.to_string());
            list.push(format!(
                "`{}` ({ty}) = {value}",
                o.name.as_deref().unwrap_or(&key)
            ));
        }
        list.join(", ")
    };
    let (message, span) = match &e {
        E::MissingValue(key) => (
            format!("the override `{key}` has no initializer and no value was given (`--override {key}=VALUE`, or Build: Overrides in the app)"),
            named(key).map(|(h, _)| module.overrides.get_span(h)),
        ),
        E::NotFound(key) => match module
            .overrides
            .iter()
            .find(|(_, o)| o.name.as_deref() == Some(key.as_str()))
            .and_then(|(_, o)| o.id)
        {
            // WebGPU keys an override with an @id by the id alone.
            Some(id) => (
                format!("`{key}` has @id({id}): give its value as `{id}=VALUE`"),
                None,
            ),
            None => (
                format!("override `{key}`: the module has no override with that @id or name"),
                None,
            ),
        },
        E::DstRangeTooSmall | E::SrcNeedsToBeFinite => (
            format!(
                "an override's value does not fit its type: {}",
                given(module)
            ),
            None,
        ),
        E::ValidationError(v) => (
            format!("with the overrides' values: {}", v.as_inner()),
            v.spans().next().map(|(s, _)| *s),
        ),
        other => (format!("overrides: {other}"), None),
    };
    error_at(source, span, message)
}

/// An error at `span` of the user's text, or of the whole module where it has none.
fn error_at(source: &str, span: Option<naga::Span>, message: String) -> CompileError {
    let diagnostic = match span.filter(|s| s.is_defined()) {
        Some(span) => at(source, span, message, true),
        None => Diagnostic {
            line: 0,
            column: 0,
            len: 0,
            message,
            error: true,
            file: None,
        },
    };
    CompileError {
        diagnostics: vec![diagnostic],
    }
}

/// What Lanescope does with one name of an `enable` or `requires` directive.
#[derive(Clone, Copy)]
enum Take {
    /// naga 30 parses it: the directive stays as written.
    Naga,
    /// naga 30 refuses the directive but compiles what it stands for (or has nothing for it to
    /// change): the name is blanked before naga reads the text.
    Blank,
    /// naga 30 does not implement it: refused, saying so.
    NotInNaga,
    /// Something Lanescope does not run: refused, saying why.
    Refuse(&'static str),
}

/// The `enable` extensions. Browsers take `f16`, `subgroups`, `clip_distances`,
/// `dual_source_blending` and `primitive_index`; the `wgpu_*` ones are naga's own.
const ENABLES: &[(&str, Take)] = &[
    // f16 types need the directive, as in a browser.
    ("f16", Take::Naga),
    // naga 30 calls `enable subgroups;` "not yet supported", yet compiles the subgroup
    // built-ins and functions without it.
    ("subgroups", Take::Blank),
    // An older Chrome's name for subgroup operations on f16, since folded into `subgroups`.
    ("subgroups_f16", Take::Blank),
    ("wgpu_cooperative_matrix", Take::Naga),
    ("wgpu_int16", Take::Naga),
    ("wgpu_binding_array", Take::Naga),
    // Graphics stages only: they change nothing a compute entry point can do.
    ("clip_distances", Take::Naga),
    ("dual_source_blending", Take::Naga),
    ("primitive_index", Take::Naga),
    ("draw_index", Take::Naga),
    ("wgpu_per_vertex", Take::Naga),
    (
        "wgpu_mesh_shader",
        Take::Refuse("Lanescope runs compute shaders, not mesh shaders"),
    ),
    (
        "wgpu_ray_query",
        Take::Refuse("Lanescope does not simulate ray queries"),
    ),
    (
        "wgpu_ray_query_vertex_return",
        Take::Refuse("Lanescope does not simulate ray queries"),
    ),
    (
        "wgpu_ray_tracing_pipeline",
        Take::Refuse("Lanescope does not simulate ray-tracing pipelines"),
    ),
];

/// The `requires` language extensions.
const REQUIRES: &[(&str, Take)] = &[
    ("readonly_and_readwrite_storage_textures", Take::Naga),
    ("packed_4x8_integer_dot_product", Take::Naga),
    ("pointer_composite_access", Take::Naga),
    // naga 30 has the `subgroup_id` and `num_subgroups` built-ins already.
    ("subgroup_id", Take::Blank),
    // It relaxes the uniformity rules for subgroup operations, which naga does not check.
    ("subgroup_uniformity", Take::Blank),
    ("unrestricted_pointer_parameters", Take::NotInNaga),
    ("uniform_buffer_standard_layout", Take::NotInNaga),
    ("linear_indexing", Take::NotInNaga),
    ("texture_and_sampler_let", Take::NotInNaga),
    ("texture_formats_tier1", Take::NotInNaga),
];

/// WGSL's blankspace, kept where a directive is blanked so lines stay lines.
fn is_blankspace(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t'
            | '\n'
            | '\u{0B}'
            | '\u{0C}'
            | '\r'
            | '\u{85}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// A token of a directive: a word, or one punctuation character.
enum Token {
    Word(Range<usize>),
    Punct(char, usize),
}

/// Just enough of WGSL's lexer for the directives at the top of a module.
struct Scan<'a> {
    text: &'a str,
    pos: usize,
    /// Where the token read last starts.
    last: usize,
}

impl Scan<'_> {
    /// Skips blankspace and comments (block comments nest, as in WGSL).
    fn trivia(&mut self) {
        loop {
            let rest = &self.text[self.pos..];
            if let Some(c) = rest.chars().next().filter(|&c| is_blankspace(c)) {
                self.pos += c.len_utf8();
            } else if rest.starts_with("//") {
                self.pos += rest.find(['\n', '\r']).unwrap_or(rest.len());
            } else if rest.starts_with("/*") {
                let mut depth = 0usize;
                let mut i = 0;
                let bytes = rest.as_bytes();
                while i < bytes.len() {
                    if bytes[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if bytes[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                self.pos += i;
            } else {
                return;
            }
        }
    }

    fn next(&mut self) -> Option<Token> {
        self.trivia();
        let start = self.pos;
        self.last = start;
        let c = self.text[start..].chars().next()?;
        if c.is_alphanumeric() || c == '_' {
            let len = self.text[start..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(self.text.len() - start);
            self.pos += len;
            Some(Token::Word(start..self.pos))
        } else {
            self.pos += c.len_utf8();
            Some(Token::Punct(c, start))
        }
    }

    fn peek(&mut self) -> Option<Token> {
        let (pos, last) = (self.pos, self.last);
        let t = self.next();
        (self.pos, self.last) = (pos, last);
        t
    }
}

/// An error at the token `scan` read last (at the end of the text when there was none).
fn unexpected(source: &str, scan: &Scan, message: String) -> Diagnostic {
    let span = naga::Span::new(scan.last as u32, scan.pos as u32);
    at(source, span, message, true)
}

/// Reads the directives at the top of `source` (WGSL allows them only before the first
/// declaration). Those naga 30 refuses but Lanescope runs are blanked with spaces, byte for
/// byte, so every offset naga reports is the same place in the user's text; those nothing can
/// run are errors at the name. A directive that does not read as one is left for naga to
/// report.
fn directives(source: &str) -> Result<Cow<'_, str>, CompileError> {
    let mut scan = Scan {
        text: source,
        pos: 0,
        last: 0,
    };
    let mut blanks: Vec<Range<usize>> = Vec::new();
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    'directives: while let Some(Token::Word(word)) = scan.next() {
        let keyword = &source[word.clone()];
        let table = match keyword {
            "enable" => ENABLES,
            "requires" => REQUIRES,
            "diagnostic" => {
                // naga reads `diagnostic(...)` itself (rules it does not know, such as
                // `subgroup_uniformity`, it takes with a warning).
                loop {
                    match scan.next() {
                        Some(Token::Punct(';', _)) => continue 'directives,
                        Some(_) => {}
                        None => break 'directives,
                    }
                }
            }
            _ => break,
        };
        // The names, each with the comma after it.
        let mut names: Vec<(Range<usize>, Option<usize>)> = Vec::new();
        let end = loop {
            let after = names.last().map_or(word.clone(), |(n, _)| n.clone());
            let Some(Token::Word(name)) = scan.next() else {
                let what = if keyword == "enable" {
                    "an enable-extension"
                } else {
                    "a language extension"
                };
                let message = format!("expected {what} after `{}`", &source[after]);
                diagnostics.push(unexpected(source, &scan, message));
                break 'directives;
            };
            match scan.next() {
                Some(Token::Punct(';', p)) => {
                    names.push((name, None));
                    break p + 1;
                }
                Some(Token::Punct(',', p)) => {
                    names.push((name, Some(p)));
                    if let Some(Token::Punct(';', p)) = scan.peek() {
                        scan.next();
                        break p + 1;
                    }
                }
                _ => {
                    let message = format!(
                        "expected `,` or `;` after `{}` in the `{keyword}` directive",
                        &source[name]
                    );
                    diagnostics.push(unexpected(source, &scan, message));
                    break 'directives;
                }
            }
        };
        let mut blank = Vec::new();
        for (name, comma) in &names {
            let text = &source[name.clone()];
            let take = table.iter().find(|(n, _)| *n == text).map(|(_, t)| *t);
            let message = match take {
                Some(Take::Naga) => continue,
                Some(Take::Blank) => {
                    blank.push(name.start..comma.map_or(name.end, |c| c + 1));
                    continue;
                }
                Some(Take::NotInNaga) => format!(
                    "`{keyword} {text}` is not implemented by naga 30, the WGSL compiler \
                     Lanescope uses"
                ),
                Some(Take::Refuse(why)) => format!("`{keyword} {text}`: {why}"),
                None => {
                    let known: Vec<&str> = table
                        .iter()
                        .filter(|(_, t)| matches!(t, Take::Naga | Take::Blank))
                        .map(|(n, _)| *n)
                        .collect();
                    let what = if keyword == "enable" {
                        "enable-extension"
                    } else {
                        "language extension"
                    };
                    format!(
                        "unknown {what} `{text}` (Lanescope takes `{keyword}` {})",
                        known.join(", ")
                    )
                }
            };
            let span = naga::Span::new(name.start as u32, name.end as u32);
            diagnostics.push(at(source, span, message, true));
        }
        if blank.len() == names.len() {
            // Nothing left for naga: the whole directive goes.
            blanks.push(word.start..end);
        } else {
            blanks.extend(blank);
        }
    }
    if !diagnostics.is_empty() {
        return Err(CompileError { diagnostics });
    }
    if blanks.is_empty() {
        return Ok(Cow::Borrowed(source));
    }
    let mut text = String::with_capacity(source.len());
    let mut from = 0;
    for range in blanks {
        text.push_str(&source[from..range.start]);
        for c in source[range.clone()].chars() {
            if is_blankspace(c) {
                text.push(c);
            } else {
                // As many spaces as the character's bytes: naga's spans are byte offsets.
                text.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
        }
        from = range.end;
    }
    text.push_str(&source[from..]);
    Ok(Cow::Owned(text))
}

/// A diagnostic at a naga span (byte offsets), in 1-based lines and character columns.
fn at(source: &str, span: naga::Span, message: String, error: bool) -> Diagnostic {
    let Some(range) = span.to_range().filter(|r| r.end <= source.len()) else {
        return Diagnostic {
            line: 0,
            column: 0,
            len: 0,
            message,
            error,
            file: None,
        };
    };
    let start = floor_char(source, range.start);
    let end = floor_char(source, range.end.max(start));
    let before = &source[..start];
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let column = source[line_start..start].chars().count() as u32 + 1;
    let spanned = &source[start..end];
    let len = spanned
        .split('\n')
        .next()
        .map_or(1, |s| s.chars().count().max(1)) as u32;
    Diagnostic {
        line,
        column,
        len,
        message,
        error,
        file: None,
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
