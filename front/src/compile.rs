//! One entry point for every source language: text in, a SPIR-V module (with debug information
//! where the compiler gives it) or positioned diagnostics out.

use crate::Language;

/// A compiler message at a place in the source.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostic {
    /// 1-based line; 0 when the compiler names no line.
    pub line: u32,
    /// 1-based column (in characters); 0 when the compiler names no column.
    pub column: u32,
    /// Length of the span in characters (at least 1 where a column is known).
    pub len: u32,
    /// The compiler's message.
    pub message: String,
    /// An error (else a warning).
    pub error: bool,
    /// The included file the line is in (`None`: the file compiled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl std::fmt::Display for Diagnostic {
    /// `line:col: message`, `line: message` without a column, the message alone without a line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}:")?;
        }
        match (self.line, self.column) {
            (0, _) => write!(f, "{}", self.message),
            (l, 0) => write!(f, "{l}: {}", self.message),
            (l, c) => write!(f, "{l}:{c}: {}", self.message),
        }
    }
}

/// A source that did not compile: every message, errors first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// The errors, then any warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl CompileError {
    /// An error with no position.
    pub fn message(message: impl Into<String>) -> Self {
        Self {
            diagnostics: vec![Diagnostic {
                line: 0,
                column: 0,
                len: 0,
                message: message.into(),
                error: true,
                file: None,
            }],
        }
    }

    /// Each message as `file:line:col: message`, followed by the source line it points at.
    pub fn render(&self, file: &str, source: &str) -> String {
        let mut out = String::new();
        for d in &self.diagnostics {
            if d.line == 0 {
                out.push_str(&format!("{file}: {}\n", d.message));
                continue;
            }
            if d.file.is_some() {
                // In an included file: its own name and place, no excerpt of the main text.
                out.push_str(&format!("{d}\n"));
                continue;
            }
            out.push_str(&format!("{file}:{d}\n"));
            if let Some(text) = source.lines().nth(d.line as usize - 1) {
                out.push_str(&format!("  {text}\n"));
                if d.column > 0 {
                    let pad: String = text
                        .chars()
                        .take(d.column as usize - 1)
                        .map(|c| if c == '\t' { '\t' } else { ' ' })
                        .collect();
                    out.push_str(&format!("  {pad}{}\n", "^".repeat(d.len.max(1) as usize)));
                }
            }
        }
        out.truncate(out.trim_end().len());
        out
    }
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let first = self.diagnostics.iter().find(|d| d.error);
        match first.or(self.diagnostics.first()) {
            Some(d) => write!(f, "{d}"),
            None => write!(f, "the source did not compile"),
        }
    }
}

impl std::error::Error for CompileError {}

/// Where a source is going.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The file name written into the debug information (and shown in the source view).
    pub file_name: String,
    /// The target environment: the SPIR-V assembler's when the text names no version; GLSL's
    /// and HLSL's Vulkan and SPIR-V versions (default Vulkan 1.3, SPIR-V 1.6).
    pub target_env: Option<lanescope_core::spvtext::TargetEnv>,
    /// Preprocessor macros for GLSL and HLSL (`-D NAME[=VALUE]`), in order.
    pub defines: Vec<(String, Option<String>)>,
    /// Where `#include` looks after the including file's own directory (`"..."`), or at all
    /// (`<...>`): `-I DIR`, in order.
    pub include_dirs: Vec<std::path::PathBuf>,
    /// The directory of the file compiled, where its `#include "..."` look first (`None`: a
    /// text with no file, such as the editor's before it is saved).
    pub source_dir: Option<std::path::PathBuf>,
    /// HLSL's entry point function (`main` when not given); GLSL's is always `main`.
    pub entry: Option<String>,
    /// Files given as text, `(name, contents)`, that `#include` finds before it looks on disk:
    /// where there is no disk (the browser: the files opened or dropped together). A name is
    /// matched as a path relative to the including file's name, to each include directory, and
    /// as it is written.
    pub include_files: Vec<(String, String)>,
    /// WGSL's pipeline-overridable constants, as WebGPU's `constants` takes them: (the
    /// override's `@id` in decimal, or its name where it has none; the value, booleans as 0 or
    /// 1). Overrides not given keep their initializers.
    pub overrides: Vec<(String, f64)>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        Self {
            file_name: "shader".into(),
            target_env: None,
            defines: Vec::new(),
            include_dirs: Vec::new(),
            source_dir: None,
            entry: None,
            include_files: Vec::new(),
            overrides: Vec::new(),
        }
    }
}

/// A compiled module and the compiler's warnings.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The SPIR-V module's words.
    pub words: Vec<u32>,
    /// The compiler's warnings (none from the SPIR-V assembler).
    pub warnings: Vec<Diagnostic>,
}

impl Compiled {
    /// The module as little-endian bytes (what the loader reads).
    pub fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// Whether `name` can name a preprocessor macro (letters, digits and `_`, not starting with a
/// digit).
pub fn is_macro_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `NAME` or `NAME=VALUE`, as `-D` takes a macro, split into its name and value; or why the
/// name cannot be one.
pub fn parse_define(text: &str) -> Result<(String, Option<String>), String> {
    let (name, value) = match text.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (text, None),
    };
    if is_macro_name(name) {
        Ok((name.to_string(), value))
    } else {
        Err(format!(
            "`{name}` is not a macro name (letters, digits and `_`, not starting with a digit)"
        ))
    }
}

/// `KEY=VALUE` for a WGSL override, as WebGPU's `constants` takes it: the key an `@id` (decimal)
/// or an identifier, the value a finite number (decimal, or hex with 0x) or true/false.
pub fn parse_override(text: &str) -> Result<(String, f64), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("wants KEY=VALUE, got `{text}`"))?;
    let is_id = !key.is_empty() && key.chars().all(|c| c.is_ascii_digit());
    if !is_id && !is_macro_name(key) {
        return Err(format!(
            "`{key}` is neither an override's @id (a decimal number) nor its name"
        ));
    }
    let v = match value {
        "true" => 1.0,
        "false" => 0.0,
        v => {
            let n = match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).map(|n| n as f64).ok(),
                None => v.parse::<f64>().ok(),
            };
            n.filter(|n| n.is_finite())
                .ok_or_else(|| format!("`{v}` is not a number or true/false"))?
        }
    };
    Ok((key.to_string(), v))
}

/// Whether this build compiles `language` from source in-process (GLSL and HLSL need glslang:
/// the `glsl` feature; the browser's page loads it as a module of its own instead).
pub fn can_compile(language: Language) -> bool {
    match language {
        Language::SpirvAsm => true,
        Language::Wgsl => cfg!(feature = "wgsl"),
        Language::Glsl | Language::Hlsl => {
            cfg!(feature = "glsl")
        }
        Language::SpirvBinary | Language::Amber => false,
    }
}

/// Compiles `source` (text in `language`) to SPIR-V.
pub fn compile(
    language: Language,
    source: &str,
    opts: &CompileOptions,
) -> Result<Compiled, CompileError> {
    match language {
        Language::SpirvAsm => {
            let asm = lanescope_core::spvtext::AsmOptions {
                preserve_numeric_ids: false,
                target_env: opts.target_env,
                source_file: Some(opts.file_name.clone()),
            };
            let words =
                lanescope_core::spvtext::assemble(source, &asm).map_err(|e| CompileError {
                    diagnostics: vec![Diagnostic {
                        line: e.line as u32,
                        column: e.column as u32,
                        len: token_len(source, e.line, e.column),
                        message: e.message,
                        error: true,
                        file: None,
                    }],
                })?;
            Ok(Compiled {
                words,
                warnings: Vec::new(),
            })
        }
        #[cfg(feature = "wgsl")]
        Language::Wgsl => crate::wgsl::compile(source, &opts.file_name, &opts.overrides),
        #[cfg(not(feature = "wgsl"))]
        Language::Wgsl => Err(CompileError::message(
            "this build has no WGSL compiler (the `wgsl` feature)".to_string(),
        )),
        Language::Glsl => crate::glsl::compile(source, opts, false),
        Language::Hlsl => crate::glsl::compile(source, opts, true),
        Language::SpirvBinary | Language::Amber => Err(CompileError::message(format!(
            "{} is not a source language",
            language.name()
        ))),
    }
}

/// The length of the token at `line`:`column` (1-based), for underlining.
pub(crate) fn token_len(source: &str, line: usize, column: usize) -> u32 {
    let Some(text) = source.lines().nth(line.wrapping_sub(1)) else {
        return 1;
    };
    let rest = text.chars().skip(column.saturating_sub(1));
    let n = rest
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ';' | '(' | ')'))
        .count();
    n.max(1) as u32
}

/// AmberScript's shaders through the compilers here (GLSL natively, SPIR-V assembly everywhere,
/// targeting the script's `TARGET_ENV` when it names a SPIR-V version); files are not read.
pub struct InProcess;

impl crate::amber::Compile for InProcess {
    fn compile(
        &self,
        format: crate::amber::ShaderFormat,
        source: &str,
        target_env: Option<&str>,
        name: &str,
    ) -> Result<Vec<u32>, crate::amber::CompileError> {
        script_shader(format, source, target_env, name, compile)
    }
}

/// Like [`InProcess`], GLSL through [`crate::compile_bounded`] (a worker process under limits).
pub struct Bounded<'a> {
    /// The time and memory each compile may take.
    pub limits: crate::CompileLimits,
    /// The worker to compile in; `None` compiles in-process, unbounded.
    pub worker: Option<&'a crate::WorkerCommand>,
}

impl crate::amber::Compile for Bounded<'_> {
    fn compile(
        &self,
        format: crate::amber::ShaderFormat,
        source: &str,
        target_env: Option<&str>,
        name: &str,
    ) -> Result<Vec<u32>, crate::amber::CompileError> {
        script_shader(
            format,
            source,
            target_env,
            name,
            |language, source, opts| {
                crate::compile_bounded(language, source, opts, &self.limits, self.worker)
            },
        )
    }
}

/// One script shader through `compile`.
fn script_shader(
    format: crate::amber::ShaderFormat,
    source: &str,
    target_env: Option<&str>,
    name: &str,
    compile: impl FnOnce(Language, &str, &CompileOptions) -> Result<Compiled, CompileError>,
) -> Result<Vec<u32>, crate::amber::CompileError> {
    use crate::amber::{CompileError as E, ShaderFormat as F};
    let language = match format {
        F::Glsl => Language::Glsl,
        F::SpirvAsm => Language::SpirvAsm,
        F::SpirvHex => return Err(E::Failed("SPIR-V hex is decoded, not compiled".into())),
    };
    if !can_compile(language) {
        return Err(E::Unavailable(format!(
            "no {} compiler in this build",
            format.keyword()
        )));
    }
    let opts = CompileOptions {
        file_name: name.to_owned(),
        target_env: target_env.and_then(|e| e.parse().ok()),
        ..CompileOptions::default()
    };
    compile(language, source, &opts)
        .map(|c| c.words)
        .map_err(|e| E::Failed(format!("shader {name}: {e}")))
}
