//! The AmberScript parser: statement by statement, as google/amber's `docs/amber_script.md`
//! describes them. Errors name the offending token's line and column. Constructs Lanescope
//! does not simulate (image formats it does not store, mip levels, sampler settings its
//! samplers lack, graphics and ray-tracing pipelines, OpenCL C) stop the parse with an
//! [`Unsupported`] note instead: such a script is skipped, not failed.

use super::lex::{Lexer, SettingsComment, Tok, Token};
use super::script::{
    Attach, Bind, BindKind, Buffer, Check, Cmp, Command, Expect, Image, ImageDim, Pipeline,
    RequiredSize, Requirement, RequirementKind, Sampler, SamplerAddress, SamplerBind, Script,
    Settings, Shader, ShaderFormat, SubgroupControl, Tolerance, Unsupported,
};
use super::types::{
    decode, encode, texel_format, texel_format_of, Actual, DataType, Format, Layout, Scalar, Seg,
    Value,
};
use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::program::image::Filter;
use lanescope_core::{valid_subgroup_size, NamedSetting, SiblingOrder, SpecValue, SwitchTangles};
use std::collections::BTreeMap;

mod bind;

/// A syntax or meaning error, at a line and column (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Most bytes all of a script's buffers may hold together: declarations past it are refused
/// before anything is allocated.
pub const MAX_SCRIPT_BUFFER_BYTES: u64 = 1 << 30;

enum Stop {
    Error(ParseError),
    Unsupported(Unsupported),
}

impl From<ParseError> for Stop {
    fn from(e: ParseError) -> Self {
        Self::Error(e)
    }
}

type PResult<T> = Result<T, Stop>;

fn err<T>(t: &Token, message: impl Into<String>) -> PResult<T> {
    Err(Stop::Error(ParseError {
        line: t.line,
        col: t.col,
        message: message.into(),
    }))
}

fn unsupported<T>(line: usize, what: impl Into<String>) -> PResult<T> {
    Err(Stop::Unsupported(Unsupported {
        line,
        what: what.into(),
    }))
}

/// Reads a file a script names with `FILE` (relative to the script): `None` when files cannot
/// be read here, which skips the script.
pub type ReadFile<'a> = &'a dyn Fn(&str) -> Option<Result<Vec<u8>, String>>;

/// Parses an AmberScript. A script that uses something Lanescope does not simulate parses up
/// to that point, with [`Script::unsupported`] saying what and where. Scripts that read
/// files are skipped; [`parse_with_files`] reads them.
pub fn parse(text: &str) -> Result<Script, ParseError> {
    parse_with_files(text, &|_| None)
}

/// [`parse`], reading the files the script names (`SHADER ... FILE`, `BUFFER ... FILE`) with
/// `read_file`.
pub fn parse_with_files(text: &str, read_file: ReadFile) -> Result<Script, ParseError> {
    let mut p = Parser {
        lx: Lexer::new(text),
        script: Script::default(),
        virtual_files: BTreeMap::new(),
        buffer_bytes: 0,
        read_file,
    };
    if super::vkscript::is_vkscript(text) {
        return super::vkscript::parse(text);
    }
    match p.top_level() {
        Ok(()) => {}
        Err(Stop::Error(e)) => return Err(e),
        Err(Stop::Unsupported(u)) => p.script.unsupported = Some(u),
    }
    let comments = std::mem::take(&mut p.lx.settings);
    p.script.settings = parse_settings(&comments)?;
    Ok(p.script)
}

struct Parser<'a> {
    lx: Lexer<'a>,
    script: Script,
    virtual_files: BTreeMap<String, String>,
    buffer_bytes: u64,
    read_file: ReadFile<'a>,
}

const SHADER_TYPES: &[&str] = &[
    "vertex",
    "fragment",
    "geometry",
    "tessellation_evaluation",
    "tessellation_control",
    "compute",
    "ray_generation",
    "any_hit",
    "closest_hit",
    "miss",
    "intersection",
    "callable",
    "multi",
];

impl Parser<'_> {
    fn next(&mut self) -> Token {
        self.lx.next()
    }

    /// The bytes of the file `path` names at token `at`.
    fn file(&self, line: usize, at: &Token, path: &str) -> PResult<Vec<u8>> {
        match (self.read_file)(path) {
            None => unsupported(line, format!("FILE `{path}` (files cannot be read here)")),
            Some(Ok(b)) => Ok(b),
            Some(Err(e)) => err(at, format!("cannot read `{path}`: {e}")),
        }
    }

    fn peek(&mut self) -> Token {
        self.lx.peek()
    }

    /// The statement must end here.
    fn end_of_statement(&mut self, what: &str) -> PResult<()> {
        let t = self.next();
        if t.is_end() {
            Ok(())
        } else {
            err(
                &t,
                format!("extra parameters after {what}: {}", t.describe()),
            )
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Token> {
        let t = self.next();
        if t.ident().is_some() {
            Ok(t)
        } else {
            err(&t, format!("expected {what}, found {}", t.describe()))
        }
    }

    fn keyword(&mut self, word: &str, context: &str) -> PResult<Token> {
        let t = self.next();
        if t.is(word) {
            Ok(t)
        } else {
            err(
                &t,
                format!("expected {word} {context}, found {}", t.describe()),
            )
        }
    }

    fn uint(&mut self, what: &str) -> PResult<(u64, Token)> {
        let t = self.next();
        match t.tok {
            Tok::Int { value, neg: false } => Ok((value, t)),
            Tok::Hex(v) => Ok((v, t)),
            _ => err(
                &t,
                format!(
                    "expected {what} (an unsigned integer), found {}",
                    t.describe()
                ),
            ),
        }
    }

    fn u32(&mut self, what: &str) -> PResult<u32> {
        let (v, t) = self.uint(what)?;
        u32::try_from(v).or_else(|_| err(&t, format!("{what} {v} does not fit in 32 bits")))
    }

    fn buffer_ref(&mut self, what: &str) -> PResult<usize> {
        let t = self.next();
        let Some(name) = t.name() else {
            return err(&t, format!("expected {what}, found {}", t.describe()));
        };
        match self.script.buffer_index(name) {
            Some(i) => Ok(i),
            None => err(&t, format!("unknown buffer `{name}`")),
        }
    }

    fn top_level(&mut self) -> PResult<()> {
        loop {
            let t = self.next();
            match &t.tok {
                Tok::Eol => continue,
                Tok::Eos => return Ok(()),
                Tok::Ident(_) => {}
                _ => return err(&t, format!("expected a command, found {}", t.describe())),
            }
            let word = t.ident().unwrap_or_default().to_string();
            match word.as_str() {
                "SHADER" => self.shader(&t)?,
                "BUFFER" => self.buffer(&t)?,
                "PIPELINE" => self.pipeline(&t)?,
                "DERIVE_PIPELINE" => self.derive_pipeline(&t)?,
                "DEVICE_FEATURE" => self.requirement(&t, RequirementKind::DeviceFeature)?,
                "DEVICE_EXTENSION" => self.requirement(&t, RequirementKind::DeviceExtension)?,
                "INSTANCE_EXTENSION" => {
                    self.requirement(&t, RequirementKind::InstanceExtension)?;
                }
                "DEVICE_PROPERTY" => self.requirement(&t, RequirementKind::DeviceProperty)?,
                "VIRTUAL_FILE" => self.virtual_file()?,
                "SET" => self.set(&t)?,
                "REPEAT" => {
                    let c = self.repeat(&t)?;
                    self.script.commands.push(c);
                }
                "IMAGE" => self.image(&t)?,
                "SAMPLER" => self.sampler(&t)?,
                "STRUCT" => return unsupported(t.line, "STRUCT buffer types"),
                "ACCELERATION_STRUCTURE" => {
                    return unsupported(t.line, "ACCELERATION_STRUCTURE (ray tracing)")
                }
                _ => {
                    let c = self.repeatable(&t)?;
                    self.script.commands.push(c);
                }
            }
        }
    }

    /// The commands a `REPEAT` block may hold.
    fn repeatable(&mut self, t: &Token) -> PResult<Command> {
        match t.ident().unwrap_or_default() {
            "RUN" => self.run(t),
            "EXPECT" => self.expect(t),
            "COPY" => self.copy(t),
            "CLEAR" => self.clear(t),
            w @ ("CLEAR_COLOR" | "CLEAR_DEPTH" | "CLEAR_STENCIL") => unsupported(
                t.line,
                format!("{w} (graphics pipelines are not simulated)"),
            ),
            w => err(t, format!("unknown command `{w}`")),
        }
    }

    fn shader(&mut self, start: &Token) -> PResult<()> {
        let ty = self.ident("a shader type")?;
        let ty_name = ty.ident().unwrap_or_default().to_string();
        if !SHADER_TYPES.contains(&ty_name.as_str()) {
            return err(&ty, format!("unknown shader type `{ty_name}`"));
        }
        let name_tok = self.ident("a shader name")?;
        let name = name_tok.ident().unwrap_or_default().to_string();
        if ty_name != "compute" {
            return unsupported(
                start.line,
                format!("{ty_name} shader `{name}` (only compute pipelines are simulated)"),
            );
        }
        let fmt_tok = self.ident("a shader format")?;
        let format = match fmt_tok.ident().unwrap_or_default() {
            "GLSL" => ShaderFormat::Glsl,
            "SPIRV-ASM" => ShaderFormat::SpirvAsm,
            "SPIRV-HEX" => ShaderFormat::SpirvHex,
            "PASSTHROUGH" => {
                return unsupported(start.line, "PASSTHROUGH shader (vertex shaders only)")
            }
            // A binary module from a FILE, kept as hex text (its bytes in order).
            "SPIRV-BIN" => ShaderFormat::SpirvHex,
            f @ ("HLSL" | "OPENCL-C") => {
                return unsupported(start.line, format!("{f} shader `{name}`"))
            }
            f => return err(&fmt_tok, format!("unknown shader format `{f}`")),
        };
        if self.script.shader_index(&name).is_some() {
            return err(&name_tok, format!("duplicate shader name `{name}`"));
        }
        let mut target_env = None;
        if self.peek().is("TARGET_ENV") {
            self.next();
            let t = self.next();
            match t.name() {
                Some(env) => target_env = Some(env.to_string()),
                None => return err(&t, "expected a target environment after TARGET_ENV"),
            }
        }
        let (source, source_line) = if self.peek().is("VIRTUAL_FILE") || self.peek().is("FILE") {
            let kw = self.next();
            let p = self.next();
            let Some(path) = p.name() else {
                return err(&p, "expected a file path");
            };
            let text = if kw.is("FILE") {
                let bytes = self.file(start.line, &p, path)?;
                if fmt_tok.is("SPIRV-BIN") {
                    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
                    hex.join(" ")
                } else {
                    match String::from_utf8(bytes) {
                        Ok(t) => t,
                        Err(_) => return err(&p, format!("`{path}` is not text")),
                    }
                }
            } else {
                match self.virtual_files.get(path) {
                    Some(t) => t.clone(),
                    None => return err(&p, format!("unknown virtual file `{path}`")),
                }
            };
            self.end_of_statement("SHADER command")?;
            (text, start.line)
        } else {
            if fmt_tok.is("SPIRV-BIN") {
                return err(&fmt_tok, "SPIRV-BIN shaders come from a FILE");
            }
            self.end_of_statement("SHADER command")?;
            let Some((text, line)) = self.lx.extract_to_end() else {
                return err(start, "SHADER without END");
            };
            if text.trim().is_empty() {
                return err(start, "SHADER must not be empty");
            }
            self.keyword("END", "after the shader source")?;
            self.end_of_statement("END")?;
            (text, line)
        };
        self.script.shaders.push(Shader {
            name,
            line: start.line,
            format,
            source,
            source_line,
            target_env,
        });
        Ok(())
    }

    fn virtual_file(&mut self) -> PResult<()> {
        let p = self.next();
        let Some(path) = p.name().map(str::to_string) else {
            return err(&p, "expected a virtual file path");
        };
        self.end_of_statement("VIRTUAL_FILE command")?;
        let Some((text, _)) = self.lx.extract_to_end() else {
            return err(&p, "VIRTUAL_FILE without END");
        };
        self.keyword("END", "after the virtual file")?;
        self.end_of_statement("END")?;
        if self.virtual_files.insert(path.clone(), text).is_some() {
            return err(&p, format!("duplicate virtual file `{path}`"));
        }
        Ok(())
    }

    fn set(&mut self, start: &Token) -> PResult<()> {
        self.keyword("ENGINE_DATA", "after SET")?;
        let var = self.ident("an engine data variable")?;
        if !var.is("fence_timeout_ms") {
            return err(
                &var,
                format!("unknown engine data variable {}", var.describe()),
            );
        }
        self.u32("fence_timeout_ms")?;
        self.end_of_statement("SET command")?;
        self.script.notes.push(format!(
            "line {}: SET ENGINE_DATA fence_timeout_ms ignored (runs are limited by steps)",
            start.line
        ));
        Ok(())
    }

    fn requirement(&mut self, start: &Token, kind: RequirementKind) -> PResult<()> {
        let t = self.next();
        let Some(name) = t.ident() else {
            return err(&t, format!("expected a name after {}", kind.keyword()));
        };
        self.script.requirements.push(Requirement {
            line: start.line,
            kind,
            name: name.to_string(),
        });
        self.end_of_statement(&format!("{} command", kind.keyword()))
    }

    fn add_buffer_bytes(&mut self, line: usize, n: u64) -> PResult<()> {
        self.buffer_bytes = self.buffer_bytes.saturating_add(n);
        if self.buffer_bytes > MAX_SCRIPT_BUFFER_BYTES {
            return unsupported(
                line,
                format!(
                    "buffers of {} bytes in all (Lanescope takes at most {} MiB)",
                    self.buffer_bytes,
                    MAX_SCRIPT_BUFFER_BYTES >> 20
                ),
            );
        }
        Ok(())
    }

    fn buffer(&mut self, start: &Token) -> PResult<()> {
        let name_tok = self.ident("a buffer name")?;
        let name = name_tok.ident().unwrap_or_default().to_string();
        if name == "DATA_TYPE" || name == "FORMAT" {
            return err(&name_tok, "missing BUFFER name");
        }
        if self.script.buffer_index(&name).is_some() {
            return err(&name_tok, format!("duplicate buffer name `{name}`"));
        }
        let kind = self.ident("DATA_TYPE or FORMAT")?;
        let buffer = if kind.is("DATA_TYPE") {
            self.data_type_buffer(start, name)?
        } else if kind.is("FORMAT") {
            self.format_buffer(start, name)?
        } else {
            return err(
                &kind,
                format!("expected DATA_TYPE or FORMAT, found {}", kind.describe()),
            );
        };
        self.script.buffers.push(buffer);
        Ok(())
    }

    fn data_type(&mut self, line: usize) -> PResult<DataType> {
        let t = self.next();
        let Some(s) = t.ident() else {
            return err(&t, format!("expected a data type, found {}", t.describe()));
        };
        match DataType::parse(s) {
            Ok(d) => Ok(d),
            Err(why) if why.starts_with("format") => unsupported(line, why),
            Err(why) => err(&t, why),
        }
    }

    fn data_type_buffer(&mut self, start: &Token, name: String) -> PResult<Buffer> {
        let ty = self.data_type(start.line)?;
        let mut t = self.next();
        let mut layout = Layout::default();
        if t.is("STD140") || t.is("STD430") {
            layout = if t.is("STD140") {
                Layout::Std140
            } else {
                Layout::Std430
            };
            t = self.next();
        }
        let format = Format::new(ty, layout);
        let per = format.values_per_element();
        let mut image = None;
        let values: Vec<Value> = match t.ident() {
            Some("SIZE") => {
                let (n, nt) = self.uint("the buffer size")?;
                self.add_buffer_bytes(start.line, n.saturating_mul(format.stride() as u64))?;
                let n = usize::try_from(n).or_else(|_| err(&nt, "buffer size too large"))?;
                let init = self.ident("FILL, SERIES_FROM or FILE")?;
                match init.ident().unwrap_or_default() {
                    "FILL" => self.fill(&format, n)?,
                    "SERIES_FROM" => self.series(&format, n, &init)?,
                    "FILE" => self.file_values(&format, start)?,
                    w => return err(&init, format!("unknown buffer initializer `{w}`")),
                }
            }
            Some("WIDTH") => {
                let w = self.u32("WIDTH")?;
                self.keyword("HEIGHT", "after WIDTH")?;
                let h = self.u32("HEIGHT")?;
                if w == 0 || h == 0 {
                    return err(&t, "WIDTH and HEIGHT must be positive");
                }
                image = Some(Image {
                    dim: ImageDim::D2,
                    extent: [w, h, 1],
                    samples: 1,
                });
                let n = u64::from(w) * u64::from(h);
                self.add_buffer_bytes(start.line, n.saturating_mul(format.stride() as u64))?;
                let n = n as usize;
                let init = self.next();
                if init.is("FILL") {
                    self.fill(&format, n)?
                } else if init.is("SERIES_FROM") {
                    self.series(&format, n, &init)?
                } else if init.is_end() {
                    vec![Value::Int(0); n * per]
                } else {
                    return err(
                        &init,
                        format!("unknown buffer initializer {}", init.describe()),
                    );
                }
            }
            Some("DATA") => self.data_values(&format, start, "BUFFER")?,
            _ => {
                return err(
                    &t,
                    format!("expected SIZE, WIDTH or DATA, found {}", t.describe()),
                )
            }
        };
        if per > 0 && values.len() % per != 0 {
            return err(
                start,
                format!(
                    "buffer `{name}` has {} values, not a whole number of {} elements ({per} values each)",
                    values.len(),
                    format.ty.name
                ),
            );
        }
        let bytes = fill_bytes(&format, &values);
        if !matches!(t.ident(), Some("SIZE" | "WIDTH")) {
            self.add_buffer_bytes(start.line, bytes.len() as u64)?;
        }
        Ok(Buffer {
            name,
            line: start.line,
            format,
            bytes,
            image,
        })
    }

    fn format_buffer(&mut self, start: &Token, name: String) -> PResult<Buffer> {
        let ty = self.data_type(start.line)?;
        loop {
            let t = self.peek();
            match t.ident() {
                Some("MIP_LEVELS") | Some("SAMPLES") => {
                    self.next();
                    let v = self.u32(t.ident().unwrap_or_default())?;
                    if v > 1 {
                        return unsupported(
                            start.line,
                            format!("buffer `{name}` with {} {v} (an image)", t.text),
                        );
                    }
                }
                Some("FILE") => return unsupported(start.line, "image data from FILE"),
                _ => break,
            }
        }
        self.end_of_statement("BUFFER command")?;
        Ok(Buffer {
            name,
            line: start.line,
            format: Format::new(ty, Layout::default()),
            bytes: Vec::new(),
            image: None,
        })
    }

    /// `IMAGE name {FORMAT f | DATA_TYPE t} [MIP_LEVELS 1] [SAMPLES s] DIM_1D|DIM_2D|DIM_3D
    /// WIDTH w [HEIGHT h [DEPTH d]] [FILL v | SERIES_FROM a INC_BY b | DATA ... END]`, the
    /// attributes in any order as amber reads them.
    fn image(&mut self, start: &Token) -> PResult<()> {
        let name_tok = self.ident("an image name")?;
        let name = name_tok.ident().unwrap_or_default().to_string();
        if name == "DATA_TYPE" || name == "FORMAT" {
            return err(&name_tok, "missing IMAGE name");
        }
        if self.script.buffer_index(&name).is_some() {
            return err(&name_tok, format!("duplicate buffer name `{name}`"));
        }
        let mut ty: Option<Format> = None;
        let mut dim = None;
        let mut extent: [Option<u32>; 3] = [None; 3];
        let mut samples = 1;
        let mut mip_levels = 1;
        loop {
            let t = self.peek();
            let Some(word) = t.ident() else { break };
            if matches!(word, "FILL" | "SERIES_FROM" | "DATA") {
                break;
            }
            self.next();
            match word {
                "DATA_TYPE" | "FORMAT" => {
                    let tt = self.next();
                    let Some(tn) = tt.ident() else {
                        return err(
                            &tt,
                            format!("expected a data type, found {}", tt.describe()),
                        );
                    };
                    let data_type = match DataType::parse(tn) {
                        Ok(d) => d,
                        // A format name that is no buffer data type (packed, depth/stencil).
                        Err(_) if texel_format_of(tn).is_err() && tn.contains('_') => {
                            let why = texel_format_of(tn).err().unwrap_or_default();
                            return unsupported(
                                start.line,
                                format!("IMAGE `{name}` of format {tn}: {why}"),
                            );
                        }
                        Err(why) => return err(&tt, why),
                    };
                    ty = Some(Format::new(data_type, Layout::default()));
                }
                "MIP_LEVELS" => mip_levels = self.u32("MIP_LEVELS")?,
                "DIM_1D" => dim = Some(ImageDim::D1),
                "DIM_2D" => dim = Some(ImageDim::D2),
                "DIM_3D" => dim = Some(ImageDim::D3),
                "WIDTH" | "HEIGHT" | "DEPTH" => {
                    let k = ["WIDTH", "HEIGHT", "DEPTH"]
                        .iter()
                        .position(|w| *w == word)
                        .unwrap_or(0);
                    let (v, vt) = self.uint(word)?;
                    if v == 0 || v > u64::from(u32::MAX) {
                        return err(&vt, format!("expected a positive IMAGE {word}"));
                    }
                    extent[k] = Some(v as u32);
                }
                "SAMPLES" => {
                    let (v, vt) = self.uint("SAMPLES")?;
                    if !matches!(v, 1 | 2 | 4 | 8 | 16 | 32 | 64) {
                        return err(
                            &vt,
                            format!("invalid sample count {v} (1, 2, 4, 8, 16, 32 or 64)"),
                        );
                    }
                    samples = v as u32;
                }
                _ => return err(&t, format!("unknown IMAGE parameter `{word}`")),
            }
        }
        let Some(format) = ty else {
            return err(
                start,
                format!("IMAGE `{name}` needs a FORMAT or a DATA_TYPE"),
            );
        };
        let dim = dim.unwrap_or(ImageDim::D2);
        let need = |k: usize| dim.coords() > k;
        for (k, word) in ["WIDTH", "HEIGHT", "DEPTH"].iter().enumerate() {
            if need(k) && extent[k].is_none() {
                return err(
                    start,
                    format!("IMAGE `{name}` needs a {word} ({})", dim.keyword()),
                );
            }
            if !need(k) && extent[k].is_some_and(|v| v > 1) {
                return err(
                    start,
                    format!(
                        "IMAGE `{name}` is {} and has a {word} of {}: only a {} image has one",
                        dim.keyword(),
                        extent[k].unwrap_or(1),
                        if k == 1 { "2D or 3D" } else { "3D" }
                    ),
                );
            }
        }
        if mip_levels == 0 {
            return err(start, format!("IMAGE `{name}` needs at least 1 MIP_LEVELS"));
        }
        if mip_levels > 1 {
            return unsupported(
                start.line,
                format!("IMAGE `{name}` with MIP_LEVELS {mip_levels} (Lanescope's images have one mip level)"),
            );
        }
        let texel = match texel_format(&format) {
            Ok(t) => t,
            Err(why) => return unsupported(start.line, format!("IMAGE `{name}` of format {why}")),
        };
        let extent = extent.map(|e| e.unwrap_or(1));
        let image = Image {
            dim,
            extent,
            samples,
        };
        let texels = image.texels();
        let stride = u64::from(texel.texel_bytes());
        self.add_buffer_bytes(
            start.line,
            texels
                .saturating_mul(u64::from(samples))
                .saturating_mul(stride),
        )?;
        let n = texels as usize;
        let init = self.next();
        let values = match init.ident() {
            // One texel's bytes, repeated below.
            Some("FILL") => self.fill(&format, 1)?,
            Some("SERIES_FROM") => self.series(&format, n, &init)?,
            Some("DATA") => {
                let v = self.data_values(&format, start, "IMAGE")?;
                let per = format.values_per_element().max(1);
                if v.len() != n * per {
                    return err(
                        start,
                        format!(
                            "IMAGE `{name}` DATA has {} values; its {} texels of {} take {}",
                            v.len(),
                            n,
                            format.ty.name,
                            n * per
                        ),
                    );
                }
                v
            }
            _ if init.is_end() => Vec::new(),
            _ => {
                return err(
                    &init,
                    format!(
                    "expected FILL, SERIES_FROM, DATA or the end of the IMAGE command, found {}",
                    init.describe()
                ),
                )
            }
        };
        let mut bytes = fill_bytes(&format, &values);
        if init.is("FILL") {
            bytes = bytes.repeat(n);
        }
        bytes.resize(n * stride as usize, 0);
        if samples > 1 {
            // Every sample of a texel starts as the texel's value.
            bytes = bytes
                .chunks_exact(stride as usize)
                .flat_map(|t| t.repeat(samples as usize))
                .collect();
        }
        self.script.buffers.push(Buffer {
            name,
            line: start.line,
            format,
            bytes,
            image: Some(image),
        });
        Ok(())
    }

    /// `SAMPLER name [MAG_FILTER f] [MIN_FILTER f] [ADDRESS_MODE_U|V|W m] [BORDER_COLOR c]
    /// [MIN_LOD x] [MAX_LOD x] [NORMALIZED_COORDS | UNNORMALIZED_COORDS] [COMPARE on|off]
    /// [COMPARE_OP op]`. What the simulator's samplers cannot do is refused where the sampler
    /// is bound.
    fn sampler(&mut self, start: &Token) -> PResult<()> {
        let name_tok = self.ident("a sampler name")?;
        let name = name_tok.ident().unwrap_or_default().to_string();
        if self.script.sampler_index(&name).is_some() {
            return err(&name_tok, format!("duplicate sampler name `{name}`"));
        }
        let mut s = Sampler::new(name, start.line);
        loop {
            let t = self.next();
            if t.is_end() {
                break;
            }
            let Some(word) = t.ident() else {
                return err(
                    &t,
                    format!("expected a sampler parameter, found {}", t.describe()),
                );
            };
            match word {
                "MAG_FILTER" | "MIN_FILTER" => {
                    let v = self.next();
                    let f = match v.ident() {
                        Some("nearest") => Filter::Nearest,
                        Some("linear") => Filter::Linear,
                        _ => {
                            return err(
                                &v,
                                format!(
                                    "expected nearest or linear after {word}, found {}",
                                    v.describe()
                                ),
                            )
                        }
                    };
                    if word == "MAG_FILTER" {
                        s.mag_filter = f;
                    } else {
                        s.min_filter = f;
                    }
                }
                "ADDRESS_MODE_U" | "ADDRESS_MODE_V" | "ADDRESS_MODE_W" => {
                    let v = self.next();
                    let Some(m) = SamplerAddress::ALL.into_iter().find(|m| v.is(m.keyword()))
                    else {
                        return err(
                            &v,
                            format!(
                                "expected an address mode after {word} (repeat, mirrored_repeat, clamp_to_edge, clamp_to_border or mirrored_clamp_to_edge), found {}",
                                v.describe()
                            ),
                        );
                    };
                    let axis = match word {
                        "ADDRESS_MODE_U" => 0,
                        "ADDRESS_MODE_V" => 1,
                        _ => 2,
                    };
                    s.address[axis] = m;
                }
                "BORDER_COLOR" => {
                    let v = self.next();
                    const COLORS: [&str; 6] = [
                        "float_transparent_black",
                        "int_transparent_black",
                        "float_opaque_black",
                        "int_opaque_black",
                        "float_opaque_white",
                        "int_opaque_white",
                    ];
                    match v.ident().filter(|c| COLORS.contains(c)) {
                        Some(c) => s.border = c.to_string(),
                        None => return err(&v, format!("invalid BORDER_COLOR {}", v.describe())),
                    }
                }
                "MIN_LOD" | "MAX_LOD" => {
                    let v = self.next();
                    let Some(x) = v.as_f64() else {
                        return err(&v, format!("invalid {word} {}", v.describe()));
                    };
                    if word == "MIN_LOD" {
                        s.min_lod = x;
                    } else {
                        s.max_lod = x;
                    }
                }
                "NORMALIZED_COORDS" => s.normalized = true,
                "UNNORMALIZED_COORDS" => {
                    s.normalized = false;
                    s.min_lod = 0.0;
                    s.max_lod = 0.0;
                }
                "COMPARE" => s.compare = self.on_off("COMPARE")?,
                "COMPARE_OP" => {
                    let v = self.next();
                    const OPS: [&str; 8] = [
                        "never",
                        "less",
                        "equal",
                        "less_or_equal",
                        "greater",
                        "not_equal",
                        "greater_or_equal",
                        "always",
                    ];
                    if !v.ident().is_some_and(|o| OPS.contains(&o)) {
                        return err(&v, format!("invalid COMPARE_OP {}", v.describe()));
                    }
                }
                w => return err(&t, format!("unknown sampler parameter `{w}`")),
            }
        }
        if s.max_lod < s.min_lod {
            return err(start, "MAX_LOD must be at least MIN_LOD");
        }
        self.script.samplers.push(s);
        Ok(())
    }

    /// A value for the component of type `t` from a number token, as amber converts it.
    fn value_for(t: Scalar, tok: &Token, what: &str) -> PResult<Value> {
        if t.is_float() {
            match tok.as_f64() {
                Some(x) => Ok(Value::Float(x)),
                None => err(tok, format!("invalid {what} value {}", tok.describe())),
            }
        } else {
            match tok.as_u64() {
                Some(v) => Ok(Value::Int(v)),
                None => err(
                    tok,
                    format!(
                        "invalid {what} value {} for a {} component (an integer is needed)",
                        tok.describe(),
                        t.name()
                    ),
                ),
            }
        }
    }

    /// A `FILL` or `SERIES_FROM` value: amber takes a float for an integer component there
    /// (it reads 0); Lanescope truncates it.
    fn fill_value(s: Scalar, t: &Token, what: &str) -> PResult<Value> {
        match (s.is_float(), &t.tok) {
            (false, Tok::Double(d)) => Ok(Value::Int(*d as i64 as u64)),
            _ => Self::value_for(s, t, what),
        }
    }

    fn fill(&mut self, format: &Format, n: usize) -> PResult<Vec<Value>> {
        let t = self.next();
        if !t.is_number() {
            return err(&t, format!("invalid FILL value {}", t.describe()));
        }
        let mut one = Vec::new();
        for (_, s) in format.slots() {
            one.push(Self::fill_value(s, &t, "FILL")?);
        }
        self.end_of_statement("FILL")?;
        Ok(one.repeat(n))
    }

    fn series(&mut self, format: &Format, n: usize, at: &Token) -> PResult<Vec<Value>> {
        if format.ty.rows > 1 || format.ty.cols > 1 {
            return err(
                at,
                "SERIES_FROM needs a scalar type, not a vector or matrix",
            );
        }
        let s = format.ty.scalar;
        let from = self.next();
        let from = Self::fill_value(s, &from, "SERIES_FROM")?;
        self.keyword("INC_BY", "after the SERIES_FROM value")?;
        let inc = self.next();
        let inc = Self::fill_value(s, &inc, "INC_BY")?;
        self.end_of_statement("SERIES_FROM")?;
        let mut out = Vec::with_capacity(n);
        let mut cur = from;
        for _ in 0..n {
            out.push(cur);
            cur = match (cur, inc) {
                (Value::Float(a), Value::Float(b)) => Value::Float(a + b),
                (Value::Int(a), Value::Int(b)) => Value::Int(a.wrapping_add(b)),
                _ => cur,
            };
        }
        Ok(out)
    }

    /// `FILE TEXT path` (values as in `DATA`) or `FILE BINARY path` (the buffer's bytes).
    fn file_values(&mut self, format: &Format, start: &Token) -> PResult<Vec<Value>> {
        let mut kind = self.next();
        let mut binary = false;
        if kind.is("TEXT") || kind.is("BINARY") {
            binary = kind.is("BINARY");
            kind = self.next();
        } else if kind.is("PNG") {
            return unsupported(start.line, "buffer data from a PNG file (images)");
        }
        let Some(path) = kind.name().map(str::to_string) else {
            return err(&kind, "expected a file name after FILE");
        };
        let bytes = self.file(start.line, &kind, &path)?;
        self.end_of_statement("BUFFER FILE")?;
        if binary {
            // Read back as values, so the buffer keeps whole elements of its format.
            let stride = format.stride().max(1);
            let whole = &bytes[..bytes.len() / stride * stride];
            let per = format.values_per_element();
            return Ok((0..whole.len() / stride * per)
                .map(|k| {
                    let (pos, t) = format.value_at(0, k);
                    match decode(t, &whole[pos..]) {
                        Actual::Float(x) => Value::Float(x),
                        Actual::Signed(i) => Value::Int(i as u64),
                        Actual::Unsigned(u) => Value::Int(u),
                    }
                })
                .collect());
        }
        let Ok(text) = String::from_utf8(bytes) else {
            return err(&kind, format!("`{path}` is not text"));
        };
        let slots = format.slots();
        let mut lx = Lexer::new(&text);
        let mut out = Vec::new();
        loop {
            let t = lx.next();
            match &t.tok {
                Tok::Eol => continue,
                Tok::Eos => break,
                _ => {}
            }
            let (_, s) = slots[out.len() % slots.len()];
            out.push(
                Self::value_for(s, &t, &format!("`{path}`")).map_err(|e| match e {
                    // Errors point into the script, at the file's name.
                    Stop::Error(mut pe) => {
                        pe.message = format!("{} (line {} of `{path}`)", pe.message, pe.line);
                        pe.line = kind.line;
                        pe.col = kind.col;
                        Stop::Error(pe)
                    }
                    other => other,
                })?,
            );
        }
        Ok(out)
    }

    /// `DATA ... END` of a `BUFFER` or `IMAGE` (`what`).
    fn data_values(&mut self, format: &Format, start: &Token, what: &str) -> PResult<Vec<Value>> {
        let slots = format.slots();
        let mut out = Vec::new();
        loop {
            let t = self.next();
            match &t.tok {
                Tok::Eol => continue,
                Tok::Eos => return err(start, format!("{what} DATA without END")),
                Tok::Ident(s) if s == "END" => break,
                _ => {}
            }
            let (_, s) = slots[out.len() % slots.len()];
            out.push(Self::value_for(s, &t, "BUFFER data")?);
        }
        self.end_of_statement(&format!("{what} DATA"))?;
        Ok(out)
    }

    fn pipeline(&mut self, start: &Token) -> PResult<()> {
        let ty = self.ident("a pipeline type")?;
        match ty.ident().unwrap_or_default() {
            "compute" => {}
            w @ ("graphics" | "ray_tracing") => {
                return unsupported(
                    start.line,
                    format!("{w} pipeline (only compute pipelines are simulated)"),
                )
            }
            w => return err(&ty, format!("unknown pipeline type `{w}`")),
        }
        let name = self.ident("a pipeline name")?;
        let n = name.ident().unwrap_or_default().to_string();
        if self.script.pipeline_index(&n).is_some() {
            return err(&name, format!("duplicate pipeline name `{n}`"));
        }
        self.end_of_statement("PIPELINE command")?;
        let p = Pipeline {
            name: n,
            line: start.line,
            ..Pipeline::default()
        };
        self.pipeline_body(p, start)
    }

    fn derive_pipeline(&mut self, start: &Token) -> PResult<()> {
        let name = self.ident("a pipeline name")?;
        let n = name.ident().unwrap_or_default().to_string();
        if n == "FROM" {
            return err(&name, "missing pipeline name for DERIVE_PIPELINE");
        }
        if self.script.pipeline_index(&n).is_some() {
            return err(&name, format!("duplicate pipeline name `{n}`"));
        }
        self.keyword("FROM", "in DERIVE_PIPELINE")?;
        let parent = self.ident("the parent pipeline")?;
        let Some(pi) = self
            .script
            .pipeline_index(parent.ident().unwrap_or_default())
        else {
            return err(&parent, format!("unknown pipeline {}", parent.describe()));
        };
        self.end_of_statement("DERIVE_PIPELINE command")?;
        let mut p = self.script.pipelines[pi].clone();
        p.name = n;
        p.line = start.line;
        self.pipeline_body(p, start)
    }

    fn pipeline_body(&mut self, mut p: Pipeline, start: &Token) -> PResult<()> {
        loop {
            let t = self.next();
            match &t.tok {
                Tok::Eol => continue,
                Tok::Eos => return err(start, "PIPELINE without END"),
                Tok::Ident(_) => {}
                _ => {
                    return err(
                        &t,
                        format!("expected a pipeline command, found {}", t.describe()),
                    )
                }
            }
            match t.ident().unwrap_or_default() {
                "END" => break,
                "ATTACH" => self.attach(&mut p, &t)?,
                "BIND" => self.bind(&mut p, &t)?,
                "SUBGROUP" => self.subgroup(&mut p)?,
                "SHADER_OPTIMIZATION" => {
                    let s = self.ident("a shader name")?;
                    self.end_of_statement("SHADER_OPTIMIZATION command")?;
                    let mut passes = Vec::new();
                    loop {
                        let o = self.next();
                        match &o.tok {
                            Tok::Eol => {}
                            Tok::Eos => return err(&t, "SHADER_OPTIMIZATION without END"),
                            Tok::Ident(w) if w == "END" => break,
                            _ => passes.push(o.text.clone()),
                        }
                    }
                    self.end_of_statement("END")?;
                    if passes.iter().any(|p| p == "--graphics-robust-access") {
                        return unsupported(
                            t.line,
                            "SHADER_OPTIMIZATION --graphics-robust-access (robust buffer access)",
                        );
                    }
                    self.script.notes.push(format!(
                        "line {}: SHADER_OPTIMIZATION of `{}` ignored ({}): the shader runs unoptimized",
                        t.line,
                        s.text,
                        passes.join(" ")
                    ));
                }
                "COMPILE_OPTIONS" => {
                    return unsupported(t.line, "COMPILE_OPTIONS (OpenCL C shaders)")
                }
                "SET" => return unsupported(t.line, "SET KERNEL (OpenCL C shaders)"),
                w @ ("FRAMEBUFFER_SIZE"
                | "VIEWPORT"
                | "VERTEX_DATA"
                | "INDEX_DATA"
                | "POLYGON_MODE"
                | "DEPTH"
                | "STENCIL"
                | "BLEND"
                | "PATCH_CONTROL_POINTS") => {
                    return unsupported(t.line, format!("{w} (graphics pipelines)"))
                }
                w @ ("SHADER_GROUP"
                | "SHADER_BINDING_TABLE"
                | "MAX_RAY_PAYLOAD_SIZE"
                | "MAX_RAY_HIT_ATTRIBUTE_SIZE"
                | "MAX_RAY_RECURSION_DEPTH"
                | "FLAGS"
                | "USE_LIBRARY") => return unsupported(t.line, format!("{w} (ray tracing)")),
                w => return err(&t, format!("unknown command `{w}` in a pipeline")),
            }
        }
        self.end_of_statement("END")?;
        self.check_samplers(&p)?;
        self.script.pipelines.push(p);
        Ok(())
    }

    fn attach(&mut self, p: &mut Pipeline, start: &Token) -> PResult<()> {
        let s = self.ident("a shader name")?;
        let Some(shader) = self.script.shader_index(s.ident().unwrap_or_default()) else {
            return err(&s, format!("unknown shader {}", s.describe()));
        };
        if p.attach.is_some() {
            return err(&s, "the pipeline already has a compute shader");
        }
        let mut a = Attach {
            line: start.line,
            shader,
            entry: None,
            spec: Vec::new(),
        };
        let mut t = self.next();
        if t.is("TYPE") {
            let ty = self.ident("a shader type")?;
            if !ty.is("compute") {
                return unsupported(start.line, format!("ATTACH TYPE {}", ty.text));
            }
            t = self.next();
            if !t.is("ENTRY_POINT") {
                return err(&t, "ATTACH TYPE needs an ENTRY_POINT");
            }
        }
        if t.is("ENTRY_POINT") {
            let e = self.next();
            match e.name() {
                Some(n) => a.entry = Some(n.to_string()),
                None => return err(&e, "expected an entry point name"),
            }
            t = self.next();
        }
        while t.is("SPECIALIZE") {
            a.spec.push(self.specialize()?);
            t = self.next();
        }
        if !t.is_end() {
            return err(&t, format!("unknown ATTACH parameter {}", t.describe()));
        }
        p.attach = Some(a);
        Ok(())
    }

    /// `SPECIALIZE id AS type value`: amber's 32-bit types give the constant those 32 bits, as
    /// Vulkan would; other types (a Lanescope extension) are read with the constant's own type.
    fn specialize(&mut self) -> PResult<(u32, SpecValue)> {
        let id = self.u32("a specialization id")?;
        self.keyword("AS", "after the specialization id")?;
        let ty = self.ident("a data type")?;
        let v = self.next();
        if !v.is_number() {
            return err(
                &v,
                format!("expected a specialization value, found {}", v.describe()),
            );
        }
        let value = match ty.ident().unwrap_or_default() {
            "uint32" | "int32" => match v.as_u64() {
                Some(x) => SpecValue::Bits(x & 0xffff_ffff),
                None => return err(&v, "expected an integer"),
            },
            "float" => SpecValue::Bits(u64::from((v.as_f64().unwrap_or(0.0) as f32).to_bits())),
            "bool" => SpecValue::Bits(u64::from(v.as_u64().unwrap_or(1) != 0)),
            w if Scalar::from_name(w).is_some() => SpecValue::Text(v.text.clone()),
            w => {
                return err(
                    &ty,
                    format!(
                    "specialization values must be scalars (uint32, int32, float...), not `{w}`"
                ),
                )
            }
        };
        Ok((id, value))
    }

    fn has_feature(&self, name: &str) -> bool {
        self.script
            .requirements
            .iter()
            .any(|r| r.kind == RequirementKind::DeviceFeature && r.name == name)
    }

    fn on_off(&mut self, what: &str) -> PResult<bool> {
        let t = self.next();
        match t.ident() {
            Some("on") => Ok(true),
            Some("off") => Ok(false),
            _ => err(
                &t,
                format!("expected on or off for {what}, found {}", t.describe()),
            ),
        }
    }

    fn subgroup(&mut self, p: &mut Pipeline) -> PResult<()> {
        let s = self.ident("a shader name")?;
        let Some(shader) = self.script.shader_index(s.ident().unwrap_or_default()) else {
            return err(&s, format!("unknown shader {}", s.describe()));
        };
        let mut c = SubgroupControl::default();
        loop {
            let t = self.next();
            match &t.tok {
                Tok::Eol => continue,
                Tok::Eos => return err(&s, "SUBGROUP without END"),
                _ => {}
            }
            let need = |feature: &str| format!("{} needs DEVICE_FEATURE {feature} first", t.text);
            match t.ident() {
                Some("END") => break,
                Some("FULLY_POPULATED") => {
                    if !self.has_feature("SubgroupSizeControl.computeFullSubgroups") {
                        return err(&t, need("SubgroupSizeControl.computeFullSubgroups"));
                    }
                    c.fully_populated = self.on_off("FULLY_POPULATED")?;
                }
                Some("VARYING_SIZE") => {
                    if !self.has_feature("SubgroupSizeControl.subgroupSizeControl") {
                        return err(&t, need("SubgroupSizeControl.subgroupSizeControl"));
                    }
                    c.varying_size = self.on_off("VARYING_SIZE")?;
                }
                Some("REQUIRED_SIZE") => {
                    if !self.has_feature("SubgroupSizeControl.subgroupSizeControl") {
                        return err(&t, need("SubgroupSizeControl.subgroupSizeControl"));
                    }
                    let v = self.next();
                    c.required_size = Some(match (&v.tok, v.ident()) {
                        (Tok::Int { value, neg: false }, _) => {
                            RequiredSize::Size(u32::try_from(*value).unwrap_or(u32::MAX))
                        }
                        (_, Some("MIN")) => RequiredSize::Min,
                        (_, Some("MAX")) => RequiredSize::Max,
                        _ => return err(&v, format!("invalid REQUIRED_SIZE {}", v.describe())),
                    });
                }
                _ => return err(&t, format!("unknown SUBGROUP setting {}", t.describe())),
            }
        }
        self.end_of_statement("END")?;
        p.subgroup.retain(|(sh, _)| *sh != shader);
        p.subgroup.push((shader, c));
        Ok(())
    }

    fn run(&mut self, start: &Token) -> PResult<Command> {
        let mut t = self.next();
        if t.is("TIMED_EXECUTION") {
            t = self.next();
        }
        let Some(name) = t.ident() else {
            return err(&t, "expected a pipeline name after RUN");
        };
        let Some(pipeline) = self.script.pipeline_index(name) else {
            return err(&t, format!("unknown pipeline `{name}`"));
        };
        let first = self.peek();
        if let Some(w) = first.ident() {
            if w.starts_with("DRAW_") || matches!(w, "RAYGEN" | "MISS" | "HIT" | "CALL") {
                return unsupported(start.line, format!("RUN ... {w} (graphics or ray tracing)"));
            }
        }
        let mut groups = [0u32; 3];
        for (k, g) in groups.iter_mut().enumerate() {
            *g = self.u32(
                [
                    "the x workgroup count",
                    "the y workgroup count",
                    "the z workgroup count",
                ][k],
            )?;
        }
        self.end_of_statement("RUN command")?;
        Ok(Command::Run {
            line: start.line,
            pipeline,
            groups,
        })
    }

    fn copy(&mut self, start: &Token) -> PResult<Command> {
        let from = self.buffer_ref("the buffer to copy from")?;
        self.keyword("TO", "after the COPY source")?;
        let to_tok = self.peek();
        let to = self.buffer_ref("the buffer to copy to")?;
        if from == to {
            return err(&to_tok, "COPY source and destination are the same buffer");
        }
        self.end_of_statement("COPY command")?;
        Ok(Command::Copy {
            line: start.line,
            from,
            to,
        })
    }

    fn clear(&mut self, start: &Token) -> PResult<Command> {
        let t = self.next();
        let Some(name) = t.ident() else {
            return err(&t, "expected a buffer after CLEAR");
        };
        if self.script.pipeline_index(name).is_some() {
            return unsupported(start.line, "CLEAR of a pipeline (graphics pipelines)");
        }
        let Some(buffer) = self.script.buffer_index(name) else {
            return err(&t, format!("unknown buffer `{name}`"));
        };
        self.end_of_statement("CLEAR command")?;
        Ok(Command::Clear {
            line: start.line,
            buffer,
        })
    }

    fn repeat(&mut self, start: &Token) -> PResult<Command> {
        let (count, ct) = self.uint("the REPEAT count")?;
        if count == 0 {
            return err(&ct, "the REPEAT count must be > 0");
        }
        let count = u32::try_from(count).or_else(|_| err(&ct, "REPEAT count too large"))?;
        self.end_of_statement("REPEAT command")?;
        let mut body = Vec::new();
        loop {
            let t = self.next();
            match &t.tok {
                Tok::Eol => continue,
                Tok::Eos => return err(start, "REPEAT without END"),
                Tok::Ident(w) if w == "END" => break,
                Tok::Ident(_) => body.push(self.repeatable(&t)?),
                _ => return err(&t, format!("expected a command, found {}", t.describe())),
            }
        }
        self.end_of_statement("END")?;
        Ok(Command::Repeat {
            line: start.line,
            count,
            body,
        })
    }

    fn expect(&mut self, start: &Token) -> PResult<Command> {
        let bt = self.next();
        let Some(bname) = bt.ident() else {
            return err(&bt, "expected a buffer name after EXPECT");
        };
        if matches!(
            bname,
            "IDX" | "EQ_BUFFER" | "RMSE_BUFFER" | "EQ_HISTOGRAM_EMD_BUFFER"
        ) {
            return err(
                &bt,
                format!("missing buffer name between EXPECT and {bname}"),
            );
        }
        let Some(buffer) = self.script.buffer_index(bname) else {
            return err(&bt, format!("unknown buffer `{bname}`"));
        };
        self.not_multisampled(start.line, buffer)?;
        let t = self.ident("IDX or a buffer comparison")?;
        let word = t.ident().unwrap_or_default().to_string();
        if matches!(
            word.as_str(),
            "EQ_BUFFER" | "RMSE_BUFFER" | "EQ_HISTOGRAM_EMD_BUFFER"
        ) {
            let other_tok = self.peek();
            let other = self.buffer_ref("the buffer to compare with")?;
            self.not_multisampled(start.line, other)?;
            let shape = |i: usize| {
                self.script.buffers[i]
                    .image
                    .map_or([1, 1], |m| [m.extent[0], m.extent[1]])
            };
            let (sa, sb) = (shape(buffer), shape(other));
            for (k, what) in ["width", "height"].iter().enumerate() {
                if sa[k] != sb[k] {
                    return err(
                        &other_tok,
                        format!(
                            "EXPECT {word} cannot compare images of different {what} ({} and {})",
                            sa[k], sb[k]
                        ),
                    );
                }
            }
            let a = &self.script.buffers[buffer].format;
            let b = &self.script.buffers[other].format;
            if a.ty.scalar != b.ty.scalar || a.segs != b.segs {
                return err(
                    &other_tok,
                    format!(
                        "EXPECT {word} cannot compare buffers of different formats ({} and {})",
                        a.ty.name, b.ty.name
                    ),
                );
            }
            let check = if word == "EQ_BUFFER" {
                Check::EqBuffer(other)
            } else {
                let kw = self.next();
                if !kw.is("TOLERANCE") {
                    return err(&kw, format!("expected TOLERANCE for EXPECT {word}"));
                }
                let tol = self.next();
                let Some(tolerance) = tol.as_f64() else {
                    return err(&tol, format!("invalid TOLERANCE {}", tol.describe()));
                };
                if word == "RMSE_BUFFER" {
                    Check::Rmse { other, tolerance }
                } else {
                    Check::HistogramEmd { other, tolerance }
                }
            };
            self.end_of_statement(&format!("EXPECT {word} command"))?;
            return Ok(Command::Expect(Expect {
                line: start.line,
                buffer,
                check,
            }));
        }
        if word != "IDX" {
            return err(
                &t,
                format!("expected IDX or a buffer comparison, found `{word}`"),
            );
        }
        let (offset, xt) = self.uint("the IDX offset")?;
        let mut t = self.next();
        if t.is_int() {
            let after = self.peek();
            if after.is("SIZE") {
                return self.expect_rgba(start, buffer, [(offset, xt), (0, t)]);
            }
            return err(&t, "a second IDX coordinate is only for image probes");
        }
        let mut tolerance = Vec::new();
        if t.is("TOLERANCE") {
            tolerance = self.tolerance_values();
            if tolerance.is_empty() {
                return err(&t, "TOLERANCE without values");
            }
            if tolerance.len() > 4 {
                return err(&t, "TOLERANCE takes at most 4 values");
            }
            t = self.next();
        }
        let Some(op) = t.ident().and_then(Cmp::from_keyword) else {
            if t.is("EQ_RGB") || t.is("EQ_RGBA") {
                return err(&t, format!("{} needs IDX x y SIZE w h", t.text));
            }
            return err(
                &t,
                format!(
                    "expected a comparison (EQ, NE, LT, LE, GT, GE), found {}",
                    t.describe()
                ),
            );
        };
        if !tolerance.is_empty() && op != Cmp::Eq {
            return err(&t, "TOLERANCE only goes with EQ");
        }
        let format = self.script.buffers[buffer].format.clone();
        let slots = format.slots();
        let mut values = Vec::new();
        loop {
            let v = self.next();
            if v.is_end() {
                break;
            }
            if !v.is_number() || slots.is_empty() {
                return err(&v, format!("invalid EXPECT value {}", v.describe()));
            }
            let (_, s) = slots[values.len() % slots.len()];
            values.push(Self::value_for(s, &v, "EXPECT")?);
        }
        if values.is_empty() {
            return err(&t, "EXPECT without values to compare");
        }
        Ok(Command::Expect(Expect {
            line: start.line,
            buffer,
            check: Check::Values {
                offset,
                op,
                tolerance,
                values,
            },
        }))
    }
}

impl Parser<'_> {
    /// Multisampled images cannot be read back in amber: an `EXPECT` on one is skipped.
    fn not_multisampled(&self, line: usize, buffer: usize) -> PResult<()> {
        let b = &self.script.buffers[buffer];
        match b.image {
            Some(i) if i.samples > 1 => unsupported(
                line,
                format!(
                    "EXPECT on multisampled image `{}` (amber does not read multisampled images back)",
                    b.name
                ),
            ),
            _ => Ok(()),
        }
    }

    /// `EXPECT img IDX x y SIZE w h EQ_RGB r g b [TOLERANCE t{1,3}]` or
    /// `... EQ_RGBA r g b a [TOLERANCE t{1,4}]`, after `y`.
    /// The values after TOLERANCE: numbers, each optionally followed by `%`.
    fn tolerance_values(&mut self) -> Vec<Tolerance> {
        let mut tolerance = Vec::new();
        loop {
            let v = self.peek();
            if !matches!(v.tok, Tok::Int { .. } | Tok::Double(_)) {
                break;
            }
            self.next();
            let value = v.as_f64().unwrap_or(0.0);
            let percent = self.peek().is("%");
            if percent {
                self.next();
            }
            tolerance.push(Tolerance { value, percent });
        }
        tolerance
    }

    fn expect_rgba(
        &mut self,
        start: &Token,
        buffer: usize,
        [(x, xt), (_, yt)]: [(u64, Token); 2],
    ) -> PResult<Command> {
        let y = yt.as_u64().unwrap_or(0);
        if yt.tok
            != (Tok::Int {
                value: y,
                neg: false,
            })
        {
            return err(&yt, format!("invalid Y value {}", yt.describe()));
        }
        self.keyword("SIZE", "after IDX x y")?;
        let mut wh = [0u64; 2];
        for (k, what) in ["width", "height"].iter().enumerate() {
            let (v, vt) = self.uint(&format!("the probe {what}"))?;
            if v == 0 {
                return err(&vt, format!("the probe {what} must be positive"));
            }
            wh[k] = v;
        }
        let region = [x, y, wh[0], wh[1]];
        if region.iter().any(|v| *v > u64::from(u32::MAX)) {
            return err(&xt, "the probe region does not fit in 32 bits");
        }
        let region = region.map(|v| v as u32);
        let op = self.next();
        let rgba = match op.ident() {
            Some("EQ_RGBA") => true,
            Some("EQ_RGB") => false,
            _ => {
                return err(
                    &op,
                    format!("expected EQ_RGB or EQ_RGBA, found {}", op.describe()),
                )
            }
        };
        let mut values = [0u8; 4];
        for (k, c) in ["R", "G", "B", "A"]
            .iter()
            .enumerate()
            .take(if rgba { 4 } else { 3 })
        {
            let v = self.next();
            match v.tok {
                Tok::Int { value, neg: false } if value <= 255 => values[k] = value as u8,
                _ => {
                    return err(
                        &v,
                        format!(
                            "invalid {c} value {} (an integer from 0 to 255)",
                            v.describe()
                        ),
                    )
                }
            }
        }
        let mut tolerance = Vec::new();
        let mut t = self.next();
        if t.is("TOLERANCE") {
            tolerance = self.tolerance_values();
            let most = if rgba { 4 } else { 3 };
            if tolerance.is_empty() {
                return err(&t, "TOLERANCE without values");
            }
            if tolerance.len() > most {
                return err(
                    &t,
                    format!(
                        "TOLERANCE for an {} comparison takes at most {most} values",
                        op.text
                    ),
                );
            }
            t = self.next();
        }
        if !t.is_end() {
            return err(
                &t,
                format!("extra parameters after EXPECT command: {}", t.describe()),
            );
        }
        let b = &self.script.buffers[buffer];
        if b.image.is_none() {
            return unsupported(
                start.line,
                format!(
                    "EXPECT `{}` IDX x y SIZE ... {} on a buffer without WIDTH and HEIGHT (a graphics framebuffer)",
                    b.name, op.text
                ),
            );
        }
        let Some(channels) = b.format.ty.channels() else {
            return err(
                start,
                format!(
                    "EXPECT {} on `{}` of matrix type {}",
                    op.text, b.name, b.format.ty.name
                ),
            );
        };
        if channels
            .iter()
            .any(|(_, m)| *m == super::types::ChannelMode::Other)
        {
            return unsupported(
                start.line,
                format!(
                    "EXPECT {} on `{}` of format {} (scaled or unsigned float channels)",
                    op.text, b.name, b.format.ty.name
                ),
            );
        }
        Ok(Command::Expect(Expect {
            line: start.line,
            buffer,
            check: Check::Rgba {
                region,
                rgba,
                values,
                tolerance,
            },
        }))
    }
}

/// The bytes of a buffer holding `values`, in whole elements of `format`.
pub fn fill_bytes(format: &Format, values: &[Value]) -> Vec<u8> {
    let per = format.values_per_element().max(1);
    let elements = values.len() / per;
    let stride = format.stride();
    let mut bytes = vec![0u8; elements * stride];
    let mut at = 0;
    let mut k = 0;
    'outer: for _ in 0..elements {
        for s in &format.segs {
            match s {
                Seg::Pad(n) => at += n,
                Seg::Value(t) => {
                    let Some(v) = values.get(k) else {
                        break 'outer;
                    };
                    encode(*t, *v, &mut bytes[at..]);
                    at += t.bytes();
                    k += 1;
                }
            }
        }
    }
    bytes
}

/// Reads `# lanescope: key=value ...` comments.
fn parse_settings(comments: &[SettingsComment]) -> Result<Settings, ParseError> {
    let mut s = Settings::default();
    for c in comments {
        let mut col = c.col;
        for word in c.text.split(' ') {
            let here = col;
            col += word.chars().count() + 1;
            if word.is_empty() {
                continue;
            }
            let bad = |message: String| ParseError {
                line: c.line,
                col: here,
                message,
            };
            let Some((key, value)) = word.split_once('=') else {
                return Err(bad(format!(
                    "expected key=value in a lanescope setting, found `{word}`"
                )));
            };
            match key {
                "subgroup-size" => {
                    let n: u32 = value
                        .parse()
                        .ok()
                        .filter(|n| valid_subgroup_size(*n))
                        .ok_or_else(|| {
                            bad(format!(
                                "subgroup-size `{value}` is not a power of two from 4 to 128"
                            ))
                        })?;
                    s.subgroup_size = Some(n);
                }
                "switch-tangles" => {
                    s.switch_tangles = Some(SwitchTangles::parse(value).ok_or_else(|| {
                        bad(format!(
                            "unknown switch-tangles `{value}` (one of {})",
                            SwitchTangles::names().join(", ")
                        ))
                    })?);
                }
                "sibling-order" => {
                    s.sibling_order = Some(SiblingOrder::parse(value).ok_or_else(|| {
                        bad(format!(
                            "unknown sibling-order `{value}` (one of {})",
                            SiblingOrder::names().join(", ")
                        ))
                    })?);
                }
                "coopmat-layout" => {
                    s.coopmat_layout = Some(LayoutChoice::by_name(value).ok_or_else(|| {
                        let names: Vec<String> = LayoutChoice::builtin()
                            .iter()
                            .map(LayoutChoice::name)
                            .collect();
                        bad(format!(
                            "unknown coopmat-layout `{value}` (one of {})",
                            names.join(", ")
                        ))
                    })?);
                }
                _ => return Err(bad(format!("unknown lanescope setting `{key}`"))),
            }
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    fn skipped(text: &str) -> Unsupported {
        parse(text).unwrap().unsupported.expect("unsupported")
    }

    #[test]
    fn errors_name_line_and_column() {
        assert_eq!(
            error("#!amber\nBUFFER b DATA_TYPE vec5<float> SIZE 1 FILL 0"),
            "2:20: unknown data type `vec5<float>`"
        );
        assert_eq!(
            error("BUFFER b DATA_TYPE uint32 DATA 1 2\n3 1.5 END"),
            "2:3: invalid BUFFER data value `1.5` for a uint32 component (an integer is needed)"
        );
        assert_eq!(
            error("BUFFER b DATA_TYPE vec2<uint32> DATA 1 2 3 END"),
            "1:1: buffer `b` has 3 values, not a whole number of vec2<uint32> elements (2 values each)"
        );
        assert_eq!(
            error("SHADER compute s SPIRV-HEX\n03 02 23 07\nEND\nPIPELINE compute p\n  ATTACH s\n  SUBGROUP s\n    REQUIRED_SIZE 8\n  END\nEND"),
            "7:5: REQUIRED_SIZE needs DEVICE_FEATURE SubgroupSizeControl.subgroupSizeControl first"
        );
        assert_eq!(
            error("BUFFER b DATA_TYPE uint32 SIZE 1 FILL 0\nEXPECT b IDX 0 TOLERANCE 1 LT 1"),
            "2:28: TOLERANCE only goes with EQ"
        );
        assert_eq!(
            error("# lanescope: subgroup-size=3"),
            "1:14: subgroup-size `3` is not a power of two from 4 to 128"
        );
        assert_eq!(
            error("# lanescope:  speed=9"),
            "1:15: unknown lanescope setting `speed`"
        );
        let arrays = "SHADER compute s SPIRV-HEX\n03 02 23 07\nEND\nBUFFER a DATA_TYPE uint32 SIZE 4 FILL 0\nBUFFER b DATA_TYPE uint32 SIZE 4 FILL 0\nPIPELINE compute p\n  ATTACH s\n";
        assert_eq!(
            error(&format!("{arrays}  BIND BUFFER_ARRAY a b AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 0\nEND")),
            "8:82: expected 2 DESCRIPTOR_OFFSET values (one per buffer), found the end of the line"
        );
        assert_eq!(
            error(&format!(
                "{arrays}  BIND BUFFER_ARRAY a AS storage DESCRIPTOR_SET 0 BINDING 0\nEND"
            )),
            "8:3: BIND BUFFER_ARRAY needs at least two buffers"
        );
        assert_eq!(
            error(&format!(
                "{arrays}  BIND BUFFER_ARRAY a c AS storage DESCRIPTOR_SET 0 BINDING 0\nEND"
            )),
            "8:23: unknown buffer `c`"
        );
        assert_eq!(
            error(&format!("{arrays}  BIND BUFFER_ARRAY a b AS combined_image_sampler DESCRIPTOR_SET 0 BINDING 0\nEND")),
            "8:51: expected SAMPLER for a combined image sampler, found `DESCRIPTOR_SET`"
        );
    }

    #[test]
    fn what_is_not_simulated_stops_the_parse_as_unsupported() {
        let u = skipped("#!amber\n\nSHADER vertex v PASSTHROUGH\n");
        assert_eq!(u.line, 3);
        assert!(u.what.contains("vertex shader `v`"), "{u}");
        assert_eq!(
            skipped("PIPELINE graphics g\nEND").to_string(),
            "unsupported (skipped): graphics pipeline (only compute pipelines are simulated) at line 1"
        );
        let u = skipped("BUFFER b FORMAT E5B9G9R9_UFLOAT_PACK32\n");
        assert!(u.what.contains("packed"), "{u}");
        let u = skipped("[vertex shader]\nvoid main() {}\n[test]\ndraw rect 0 0 1 1\n");
        assert!(u.what.contains("[vertex shader]"), "{u}");
        let u = skipped("BUFFER b DATA_TYPE uint32 SIZE 4 FILE TEXT x.txt\n");
        assert!(u.what.contains("FILE `x.txt`"), "{u}");
    }

    #[test]
    fn buffers_pipelines_and_commands() {
        let s = parse(
            "#!amber\nSHADER compute s SPIRV-HEX\n03 02 23 07\nEND\n\
             BUFFER a DATA_TYPE vec3<float> STD430 SIZE 2 FILL 1.5\n\
             BUFFER b DATA_TYPE int8 SIZE 3 SERIES_FROM -1 INC_BY 2\n\
             PIPELINE compute p\n  ATTACH s ENTRY_POINT go SPECIALIZE 1 AS int32 -2 SPECIALIZE 2 AS double 0.25\n\
             \x20 BIND BUFFER a AS uniform_dynamic DESCRIPTOR_SET 1 BINDING 2 OFFSET 16 DESCRIPTOR_RANGE 16\n\
             \x20 BIND BUFFER b AS push_constant\nEND\n\
             REPEAT 2\nRUN TIMED_EXECUTION p 1 2 3\nEND\n\
             EXPECT a IDX 16 TOLERANCE 1% 0.5 EQ 1.5 1.5\n",
        )
        .unwrap();
        assert_eq!(s.buffers[0].bytes.len(), 32);
        assert_eq!(s.buffers[1].bytes, vec![0xff, 1, 3]);
        let p = &s.pipelines[0];
        let a = p.attach.as_ref().unwrap();
        assert_eq!(a.entry.as_deref(), Some("go"));
        assert_eq!(a.spec[0], (1, SpecValue::Bits(0xffff_fffe)));
        assert_eq!(a.spec[1], (2, SpecValue::Text("0.25".into())));
        assert_eq!(p.binds[0].offset(), 16);
        assert_eq!(p.binds[0].range, Some(16));
        assert_eq!(p.push_constant, Some(1));
        let Command::Repeat { count: 2, body, .. } = &s.commands[0] else {
            panic!("{:?}", s.commands[0]);
        };
        assert!(matches!(
            body[0],
            Command::Run {
                groups: [1, 2, 3],
                ..
            }
        ));
        let Command::Expect(e) = &s.commands[1] else {
            panic!();
        };
        let Check::Values {
            offset, tolerance, ..
        } = &e.check
        else {
            panic!();
        };
        assert_eq!(*offset, 16);
        assert_eq!(tolerance.len(), 2);
        assert!(tolerance[0].percent && !tolerance[1].percent);
    }

    const HEX: &str = "SHADER compute s SPIRV-HEX\n03 02 23 07\nEND\n";

    /// A script with a pipeline binding `binds` (after `decls`).
    fn with_pipeline(decls: &str, binds: &str) -> String {
        format!("#!amber\n{HEX}{decls}\nPIPELINE compute p\n  ATTACH s\n{binds}\nEND\n")
    }

    #[test]
    fn images_parse_with_their_shape_and_texels() {
        let s = parse(
            "IMAGE a FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 2 HEIGHT 2 FILL 255\n\
             IMAGE b DATA_TYPE vec2<float> DIM_1D WIDTH 2 DATA 1 2 3 4 END\n\
             IMAGE c FORMAT R32_UINT SAMPLES 4 DIM_2D WIDTH 2 HEIGHT 1 SERIES_FROM 1 INC_BY 1\n\
             IMAGE d DATA_TYPE int16 DIM_3D DEPTH 2 HEIGHT 1 WIDTH 1\n\
             BUFFER e DATA_TYPE vec4<uint8> WIDTH 3 HEIGHT 2 FILL 1\n",
        )
        .unwrap();
        assert!(s.unsupported.is_none(), "{:?}", s.unsupported);
        let a = &s.buffers[0];
        assert_eq!(a.bytes, vec![255; 16]);
        assert_eq!(a.image.unwrap().extent, [2, 2, 1]);
        assert_eq!(s.buffers[1].bytes.len(), 16);
        assert_eq!(s.buffers[1].image.unwrap().dim, ImageDim::D1);
        // Every sample of a texel starts as the texel.
        let c = &s.buffers[2];
        assert_eq!(c.image.unwrap().samples, 4);
        let words: Vec<u32> = c
            .bytes
            .chunks(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        assert_eq!(words, [1, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(s.buffers[3].bytes, vec![0; 4]);
        assert_eq!(s.buffers[3].image.unwrap().extent, [1, 1, 2]);
        assert_eq!(s.buffers[4].image.unwrap().extent, [3, 2, 1]);
    }

    #[test]
    fn image_and_sampler_errors_name_line_and_column() {
        for (text, want) in [
            (
                "IMAGE i FORMAT R32_UINT DIM_2D WIDTH 4",
                "1:1: IMAGE `i` needs a HEIGHT (DIM_2D)",
            ),
            (
                "IMAGE i FORMAT R32_UINT DIM_1D WIDTH 4 HEIGHT 2",
                "1:1: IMAGE `i` is DIM_1D and has a HEIGHT of 2: only a 2D or 3D image has one",
            ),
            (
                "IMAGE i FORMAT R32_UINT DIM_2D WIDTH 4 HEIGHT 0",
                "1:47: expected a positive IMAGE HEIGHT",
            ),
            (
                "IMAGE i FORMAT R32_UINT SAMPLES 3 DIM_1D WIDTH 4",
                "1:33: invalid sample count 3 (1, 2, 4, 8, 16, 32 or 64)",
            ),
            (
                "IMAGE i DATA_TYPE uint32 DIM_1D WIDTH 3 DATA 1 2 END",
                "1:1: IMAGE `i` DATA has 2 values; its 3 texels of uint32 take 3",
            ),
            (
                "IMAGE i DIM_1D WIDTH 3",
                "1:1: IMAGE `i` needs a FORMAT or a DATA_TYPE",
            ),
            (
                "IMAGE i FORMAT R32_UINT DIM_4D WIDTH 3",
                "1:25: unknown IMAGE parameter `DIM_4D`",
            ),
            (
                "SAMPLER s MIN_LOD 2.0 MAX_LOD 1.0",
                "1:1: MAX_LOD must be at least MIN_LOD",
            ),
            (
                "SAMPLER s ADDRESS_MODE_V clamp",
                "1:26: expected an address mode after ADDRESS_MODE_V (repeat, mirrored_repeat, clamp_to_edge, clamp_to_border or mirrored_clamp_to_edge), found `clamp`",
            ),
            (
                "IMAGE i FORMAT R32_UINT DIM_1D WIDTH 3\nEXPECT i IDX 0 0 SIZE 1 1 EQ_RGBA 0 0 256 0",
                "2:39: invalid B value `256` (an integer from 0 to 255)",
            ),
            (
                "IMAGE i FORMAT R32_UINT DIM_1D WIDTH 3\nEXPECT i IDX 0 0 SIZE 1 1 EQ_RGB 0 0 0 TOLERANCE 1 1 1 1",
                "2:40: TOLERANCE for an EQ_RGB comparison takes at most 3 values",
            ),
            (
                "IMAGE i FORMAT R32_UINT DIM_1D WIDTH 3\nEXPECT i IDX 0 EQ_RGBA 0 0 0 0",
                "2:16: EQ_RGBA needs IDX x y SIZE w h",
            ),
            (
                "IMAGE i FORMAT R32_UINT DIM_2D WIDTH 3 HEIGHT 1\n\
                 IMAGE j FORMAT R32_UINT DIM_2D WIDTH 1 HEIGHT 3\nEXPECT i EQ_BUFFER j",
                "3:20: EXPECT EQ_BUFFER cannot compare images of different width (3 and 1)",
            ),
        ] {
            assert_eq!(error(text), want, "{text}");
        }
        let image = "IMAGE i FORMAT R32_UINT DIM_2D WIDTH 2 HEIGHT 2\nSAMPLER t";
        for (binds, want) in [
            (
                "  BIND BUFFER i AS combined_image_sampler DESCRIPTOR_SET 0 BINDING 0",
                "9:43: expected SAMPLER for a combined image sampler, found `DESCRIPTOR_SET`",
            ),
            (
                "  BIND SAMPLER u DESCRIPTOR_SET 0 BINDING 0",
                "9:16: unknown sampler `u`",
            ),
            (
                "  BIND BUFFER i AS storage_image DESCRIPTOR_SET 0 BINDING 0 BASE_MIP_LEVEL 1",
                "9:76: BASE_MIP_LEVEL 1: the image has 1 mip level",
            ),
        ] {
            assert_eq!(error(&with_pipeline(image, binds)), want, "{binds}");
        }
    }

    #[test]
    fn what_images_and_samplers_cannot_do_is_skipped() {
        for (text, want) in [
            ("IMAGE i FORMAT R8G8B8A8_UNORM MIP_LEVELS 2 DIM_2D WIDTH 4 HEIGHT 4", "IMAGE `i` with MIP_LEVELS 2 (Lanescope's images have one mip level)"),
            ("IMAGE i FORMAT E5B9G9R9_UFLOAT_PACK32 DIM_2D WIDTH 4 HEIGHT 4", "IMAGE `i` of format E5B9G9R9_UFLOAT_PACK32: a packed format with no SPIR-V image format"),
            ("IMAGE i FORMAT D32_SFLOAT DIM_2D WIDTH 4 HEIGHT 4", "IMAGE `i` of format D32_SFLOAT: a depth/stencil format"),
            ("IMAGE i FORMAT R8G8B8_UNORM DIM_2D WIDTH 4 HEIGHT 4", "IMAGE `i` of format R8G8B8_UNORM: a 3-channel format"),
            ("IMAGE i FORMAT R8G8B8A8_SRGB DIM_2D WIDTH 4 HEIGHT 4", "IMAGE `i` of format R8G8B8A8_SRGB: a format of SRGB channels"),
            ("IMAGE i DATA_TYPE vec3<float> DIM_2D WIDTH 4 HEIGHT 4", "IMAGE `i` of format R32G32B32_SFLOAT: a 3-channel format"),
            ("IMAGE i FORMAT R64_SFLOAT DIM_1D WIDTH 4", "IMAGE `i` of format R64_SFLOAT: R 64-bit SFLOAT channels (no SPIR-V image format)"),
            ("IMAGE i FORMAT R32_UINT SAMPLES 4 DIM_2D WIDTH 4 HEIGHT 4\nEXPECT i IDX 0 EQ 0", "EXPECT on multisampled image `i` (amber does not read multisampled images back)"),
            ("BUFFER b DATA_TYPE uint32 SIZE 4 FILL 0\nEXPECT b IDX 0 0 SIZE 1 1 EQ_RGBA 0 0 0 0", "EXPECT `b` IDX x y SIZE ... EQ_RGBA on a buffer without WIDTH and HEIGHT (a graphics framebuffer)"),
        ] {
            let u = skipped(text);
            assert_eq!(u.what, want, "{text}");
        }
        let at_bind = |decls: &str, binds: &str| {
            let u = skipped(&with_pipeline(decls, binds));
            // The last BIND's line.
            assert_eq!(
                u.line,
                6 + decls.lines().count() + binds.lines().count(),
                "{u}"
            );
            u.what
        };
        let img2 = "IMAGE i FORMAT R32_UINT DIM_2D WIDTH 2 HEIGHT 2";
        let img3 = "IMAGE i FORMAT R32_UINT DIM_3D WIDTH 2 HEIGHT 2 DEPTH 2";
        let combined =
            "  BIND BUFFER i AS combined_image_sampler SAMPLER t DESCRIPTOR_SET 0 BINDING 0";
        assert_eq!(
            at_bind(&format!("{img2}\nSAMPLER t ADDRESS_MODE_U clamp_to_edge"), combined),
            "SAMPLER `t` (line 6) with ADDRESS_MODE_U clamp_to_edge and ADDRESS_MODE_V repeat (Lanescope's samplers address every axis the same way), bound"
        );
        // W does not address a 2D image; it does a 3D one.
        let uv = "SAMPLER t ADDRESS_MODE_U clamp_to_edge ADDRESS_MODE_V clamp_to_edge";
        assert!(parse(&with_pipeline(&format!("{img2}\n{uv}"), combined))
            .unwrap()
            .unsupported
            .is_none());
        assert!(at_bind(&format!("{img3}\n{uv}"), combined).contains("ADDRESS_MODE_W repeat"));
        assert!(at_bind(
            &format!("{img2}\nSAMPLER t ADDRESS_MODE_U clamp_to_border ADDRESS_MODE_V clamp_to_border BORDER_COLOR int_opaque_white"),
            combined
        )
        .contains("BORDER_COLOR int_opaque_white (Lanescope's border is transparent black)"));
        assert!(at_bind(
            &format!("{img2}\nSAMPLER t COMPARE on COMPARE_OP less"),
            combined
        )
        .contains("COMPARE on (depth comparison)"));
        assert!(at_bind(
            &format!("{img2}\nSAMPLER t ADDRESS_MODE_U mirrored_clamp_to_edge ADDRESS_MODE_V mirrored_clamp_to_edge"),
            combined
        )
        .contains("address mode mirrored_clamp_to_edge"));
        // A sampler alone is checked against the pipeline's sampled images.
        assert!(at_bind(
            &format!("{img3}\n{uv}"),
            "  BIND BUFFER i AS sampled_image DESCRIPTOR_SET 0 BINDING 0\n  BIND SAMPLER t DESCRIPTOR_SET 0 BINDING 1"
        )
        .contains("ADDRESS_MODE_W repeat"));
        assert_eq!(
            at_bind(
                "BUFFER b DATA_TYPE uint32 SIZE 4 FILL 0",
                "  BIND BUFFER b AS storage_image DESCRIPTOR_SET 0 BINDING 0"
            ),
            "BIND BUFFER `b` AS storage_image: `b` is a BUFFER without an image extent (declare it with IMAGE, or with WIDTH and HEIGHT)"
        );
        assert_eq!(
            at_bind(
                "BUFFER b DATA_TYPE mat2x2<float> SIZE 4 FILL 0",
                "  BIND BUFFER b AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 0"
            ),
            "BIND BUFFER `b` AS uniform_texel_buffer: its elements are no image format Lanescope stores (mat2x2<float> is a matrix type)"
        );
        assert!(at_bind(
            "IMAGE i FORMAT R32_UINT SAMPLES 2 DIM_2D WIDTH 2 HEIGHT 2",
            "  BIND BUFFER i AS sampled_image DESCRIPTOR_SET 0 BINDING 0"
        )
        .contains("of a multisampled image"));
    }
}
