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
mod buffer;
mod commands;
mod image;
mod pipeline;
mod shader;

/// A syntax or meaning error, at a line and column (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line of the offending token.
    pub line: usize,
    /// Its column, in characters.
    pub col: usize,
    /// What is wrong.
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
