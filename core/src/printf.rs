//! debugPrintf (`NonSemantic.DebugPrintf`: GLSL's `debugPrintfEXT`, HLSL's and Slang's
//! `printf`), formatted as the Vulkan validation layers document it: `%`[`0`][width]
//! [`.`precision][`v`2|3|4][`l`]specifier, with `d i u o x X a A e E f F g G`, `lu lx ld`
//! (64-bit integers; `ul` is the layers' alias of `lx`), `%%`, and `, ` between a vector's
//! components. The layers refuse other flags, `*`, `h`/`ll`/`z` lengths, `%s` and `%c`, a
//! specifier without an argument, and a vector specifier on a scalar (or the other way round);
//! here those are load errors. The layers print on the host with C `printf`, every float
//! converted to `double` first, so this module does the same with C's (glibc's) rules.
//!
//! Pure: the loader parses and checks a format once ([`Format::parse`], [`Format::check`]); the
//! executor formats raw register bits ([`Format::render`]).

use crate::float::{to_f64, Format as FloatFormat};
use crate::value::{sext, ScalarTy};
use std::sync::Arc;

/// Largest width or precision a specifier may ask for: a line stays small whatever the format.
pub const MAX_FIELD: usize = 4096;

/// Most bytes of printed text a run keeps (with [`crate::Config::max_printf_lines`]).
pub const MAX_PRINTF_BYTES: usize = 64 << 20;

/// One conversion: `%08.3v4f` is `zero`, width 8, precision 3, a 4-component vector, `f`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The specifier as written (`%08.3v4f`), for messages.
    pub text: String,
    /// The `0` flag: pad with zeros rather than spaces.
    pub zero: bool,
    /// Minimum field width in characters (0 when the specifier gives none).
    pub width: usize,
    /// The precision after the `.`, when the specifier gives one.
    pub precision: Option<usize>,
    /// Components of a vector specifier; 0 for a scalar one.
    pub vector: u8,
    /// The 64-bit integer forms (`lu`, `lx`, `ld`, `ul`, ...) and `lf`.
    pub long: bool,
    /// The conversion letter: one of `d i u o x X a A e E f F g G`.
    pub conv: u8,
}

impl Spec {
    fn is_float(&self) -> bool {
        matches!(
            self.conv,
            b'a' | b'A' | b'e' | b'E' | b'f' | b'F' | b'g' | b'G'
        )
    }
}

/// A piece of a parsed format: text printed as it is, or a conversion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Text printed as it is (`%%` already made `%`).
    Text(String),
    /// A conversion, replaced by its argument's value.
    Spec(Spec),
}

/// A parsed format string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    /// The text and conversions, in order.
    pub pieces: Vec<Piece>,
}

/// Why a format cannot be printed: `unsupported` when the layers would print it but Lanescope
/// does not (their output is not documented there), else the layers refuse it too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// True when the layers would print it but Lanescope does not; false when the layers refuse
    /// it too.
    pub unsupported: bool,
    /// Why, naming the specifier, for messages.
    pub what: String,
}

fn refuse(what: impl Into<String>) -> FormatError {
    FormatError {
        unsupported: false,
        what: what.into(),
    }
}

fn unsupported(what: impl Into<String>) -> FormatError {
    FormatError {
        unsupported: true,
        what: what.into(),
    }
}

/// The type of one argument: its scalar type and its components (0: a scalar, not a vector).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgTy {
    /// The scalar type (of each component, for a vector).
    pub scalar: ScalarTy,
    /// Components of a vector argument; 0 for a scalar.
    pub vector: u32,
}

impl Format {
    /// Parses `fmt` by the layers' grammar; an error names the specifier and says why.
    pub fn parse(fmt: &str) -> Result<Self, FormatError> {
        let b = fmt.as_bytes();
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut i = 0;
        while i < b.len() {
            let Some(off) = fmt[i..].find('%') else {
                text.push_str(&fmt[i..]);
                break;
            };
            text.push_str(&fmt[i..i + off]);
            let start = i + off;
            i = start + 1;
            match b.get(i) {
                // A `%` at the very end: the layers' checker never looks at it; C prints it.
                None => {
                    text.push('%');
                    break;
                }
                Some(b'%') => {
                    text.push('%');
                    i += 1;
                    continue;
                }
                Some(b' ') => return Err(refuse(
                    "a `%` followed by a space has no specifier (write `%%` for a percent sign)",
                )),
                _ => {}
            }
            let (spec, next) = parse_spec(fmt, start)?;
            i = next;
            if !text.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut text)));
            }
            pieces.push(Piece::Spec(spec));
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Ok(Self { pieces })
    }

    /// The conversions, in order (one per argument).
    pub fn specs(&self) -> impl Iterator<Item = &Spec> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Spec(s) => Some(s),
            Piece::Text(_) => None,
        })
    }

    /// Checks the arguments against the specifiers, as the layers do when they instrument the
    /// shader. Arguments beyond the specifiers are ignored (the layers only warn).
    pub fn check(&self, args: &[ArgTy]) -> Result<(), FormatError> {
        let n = self.specs().count();
        if args.len() < n {
            return Err(refuse(format!(
                "{n} specifiers but {} arguments",
                args.len()
            )));
        }
        for (k, (s, a)) in self.specs().zip(args).enumerate() {
            let which = format!("`{}` (argument {})", s.text, k + 1);
            if s.vector == 0 && a.vector != 0 {
                return Err(refuse(format!(
                    "{which} is a scalar specifier but the argument is a {}-component vector",
                    a.vector
                )));
            }
            if s.vector != 0 && a.vector == 0 {
                return Err(refuse(format!(
                    "{which} is a vector specifier but the argument is a scalar"
                )));
            }
            if u32::from(s.vector) != a.vector {
                return Err(unsupported(format!(
                    "{which} prints {} components but the argument has {} (the layers warn and truncate or pad)",
                    s.vector, a.vector
                )));
            }
            let float = a.scalar.is_any_float();
            let wide = a.scalar != ScalarTy::Bool && a.scalar.bits() == 64;
            if s.is_float() != float {
                return Err(unsupported(format!(
                    "{which} is {} specifier but the argument is {} (the layers warn; use a{} specifier)",
                    if s.is_float() { "a float" } else { "an integer" },
                    describe(a.scalar),
                    if float { " float" } else { "n integer" }
                )));
            }
            // Floats of every width print with the same specifiers; `l` only on a double.
            if (!float && s.long != wide) || (float && s.long && !wide) {
                return Err(unsupported(format!(
                    "{which} is {} specifier but the argument is {} (the layers warn; use {})",
                    if s.long { "a 64-bit" } else { "a 32-bit" },
                    describe(a.scalar),
                    if wide {
                        "`%lu`, `%lx` or `%ld`"
                    } else {
                        "a specifier without `l`"
                    }
                )));
            }
        }
        Ok(())
    }

    /// The text for one invocation: `value(arg, component)` gives an argument's raw bits;
    /// `tys` are the arguments' types (checked by [`Format::check`]).
    pub fn render(&self, tys: &[ArgTy], mut value: impl FnMut(usize, u32) -> u64) -> String {
        let mut out = String::new();
        let mut arg = 0;
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Spec(s) => {
                    let Some(ty) = tys.get(arg) else { break };
                    for c in 0..ty.vector.max(1) {
                        if c > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(&format_one(s, ty.scalar, value(arg, c)));
                    }
                    arg += 1;
                }
            }
        }
        out
    }
}

fn describe(t: ScalarTy) -> String {
    match t {
        ScalarTy::Bool => "a bool".into(),
        ScalarTy::Int { bits, signed } => {
            format!(
                "a {bits}-bit {}signed integer",
                if signed { "" } else { "un" }
            )
        }
        ScalarTy::Float { bits } => format!("a {bits}-bit float"),
        ScalarTy::BFloat16 => "a bfloat16".into(),
    }
}

/// One specifier starting at `fmt[start]` (the `%`): it and the index after it.
fn parse_spec(fmt: &str, start: usize) -> Result<(Spec, usize), FormatError> {
    let b = fmt.as_bytes();
    let mut i = start + 1;
    let mut spec = Spec {
        text: String::new(),
        zero: false,
        width: 0,
        precision: None,
        vector: 0,
        long: false,
        conv: 0,
    };
    let written = |i: usize| -> String {
        // The specifier so far plus the character at `i` (whole UTF-8 characters).
        let end = fmt[i.min(fmt.len())..]
            .chars()
            .next()
            .map_or(fmt.len(), |c| i + c.len_utf8());
        fmt[start..end].to_owned()
    };
    while b.get(i) == Some(&b'0') {
        spec.zero = true;
        i += 1;
    }
    let number = |i: &mut usize| -> Result<usize, FormatError> {
        let mut n: usize = 0;
        while let Some(d) = b.get(*i).filter(|d| d.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
            *i += 1;
        }
        if n > MAX_FIELD {
            return Err(unsupported(format!(
                "`{}`: a width or precision of {n} (Lanescope prints at most {MAX_FIELD})",
                &fmt[start..*i]
            )));
        }
        Ok(n)
    };
    spec.width = number(&mut i)?;
    if b.get(i) == Some(&b'.') {
        i += 1;
        spec.precision = Some(number(&mut i)?);
    }
    if b.get(i) == Some(&b'v') {
        i += 1;
        match b.get(i) {
            Some(c @ b'2'..=b'4') => spec.vector = c - b'0',
            _ => {
                return Err(refuse(format!(
                    "`{}`: a vector specifier needs 2, 3 or 4 components after `v`",
                    written(i)
                )))
            }
        }
        i += 1;
    }
    if b.get(i) == Some(&b'l') {
        spec.long = true;
        i += 1;
    }
    let Some(&c) = b.get(i) else {
        return Err(refuse(format!(
            "`{}` at the end of the format has no specifier",
            &fmt[start..]
        )));
    };
    match c {
        b'd' | b'i' | b'o' | b'x' | b'X' | b'a' | b'A' | b'e' | b'E' | b'f' | b'F' | b'g'
        | b'G' => spec.conv = c,
        b'u' => {
            spec.conv = b'u';
            // `%ul`: the layers' alias of `%lx`.
            if !spec.long && b.get(i + 1) == Some(&b'l') {
                spec.long = true;
                spec.conv = b'x';
                i += 1;
            }
        }
        b's' | b'c' => {
            return Err(refuse(format!(
                "`{}`: strings and characters (`%s`, `%c`) cannot be printed",
                written(i)
            )))
        }
        b'-' | b'+' | b' ' | b'#' => {
            return Err(refuse(format!(
                "`{}`: the only flag is `0` (not `-`, `+`, space or `#`)",
                written(i)
            )))
        }
        b'*' => {
            return Err(refuse(format!(
                "`{}`: `*` for a width or precision is not supported",
                written(i)
            )))
        }
        b'h' | b'l' | b'j' | b'z' | b't' | b'L' | b'q' => {
            return Err(refuse(format!(
                "`{}`: the only length modifier is `l`, in `%lu`, `%lx`, `%ld` and the like",
                written(i)
            )))
        }
        b'p' => {
            return Err(unsupported(format!(
                "`{}`: pointers are not printed by Lanescope (print the address as `%lx`)",
                written(i)
            )))
        }
        _ => {
            return Err(refuse(format!(
                "`{}` has no valid specifier (d, i, o, u, x, X, a, A, e, E, f, F, g or G)",
                written(i)
            )))
        }
    }
    if spec.long && spec.is_float() && spec.conv != b'f' && spec.conv != b'F' {
        // `%lf` is what C programmers write for a double; the other float letters take no `l`.
        return Err(refuse(format!(
            "`{}`: `l` goes only with integer specifiers (and `f`)",
            written(i)
        )));
    }
    i += 1;
    spec.text = fmt[start..i].to_owned();
    Ok((spec, i))
}

/// One scalar as C's `printf` formats it with this specifier.
fn format_one(s: &Spec, ty: ScalarTy, bits: u64) -> String {
    if s.is_float() {
        let v = match ty {
            ScalarTy::Float { bits: 16 } => to_f64(FloatFormat::F16, bits),
            ScalarTy::Float { bits: 32 } => to_f64(FloatFormat::F32, bits),
            ScalarTy::BFloat16 => to_f64(FloatFormat::BF16, bits),
            _ => f64::from_bits(bits),
        };
        return format_float(s, v);
    }
    // Narrow integers reach the host as 32-bit ones (sign- or zero-extended), booleans as 0/1.
    let (neg, mag) = match ty {
        ScalarTy::Bool => (false, u64::from(bits & 1 != 0)),
        ScalarTy::Int { bits: w, signed } => {
            let v = if signed {
                sext(bits, u32::from(w)) as u64
            } else {
                bits
            };
            let signed_conv = matches!(s.conv, b'd' | b'i');
            if s.long {
                if signed_conv && (v as i64) < 0 {
                    (true, (v as i64).unsigned_abs())
                } else {
                    (false, v)
                }
            } else {
                let v = v as u32;
                if signed_conv && (v as i32) < 0 {
                    (true, u64::from((v as i32).unsigned_abs()))
                } else {
                    (false, u64::from(v))
                }
            }
        }
        _ => (false, bits),
    };
    let digits = match s.conv {
        b'o' => format!("{mag:o}"),
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        _ => mag.to_string(),
    };
    let body = match s.precision {
        // C: a precision is the least number of digits; zero with precision 0 prints nothing.
        Some(0) if mag == 0 => String::new(),
        Some(p) if p > digits.len() => "0".repeat(p - digits.len()) + &digits,
        _ => digits,
    };
    // The `0` flag is ignored for integers when a precision is given.
    pad(
        s,
        if neg { "-" } else { "" },
        &body,
        s.zero && s.precision.is_none(),
    )
}

/// `sign` + `body` in `s.width`: zeros between them with `zeros`, else spaces before.
fn pad(s: &Spec, sign: &str, body: &str, zeros: bool) -> String {
    let len = sign.len() + body.len();
    if len >= s.width {
        return format!("{sign}{body}");
    }
    let fill = s.width - len;
    if zeros {
        // After a `0x` prefix, as C does for `%a`.
        let (prefix, rest) = if body.starts_with("0x") || body.starts_with("0X") {
            body.split_at(2)
        } else {
            ("", body)
        };
        format!("{sign}{prefix}{}{rest}", "0".repeat(fill))
    } else {
        format!("{}{sign}{body}", " ".repeat(fill))
    }
}

fn format_float(s: &Spec, v: f64) -> String {
    let upper = s.conv.is_ascii_uppercase();
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let a = v.abs();
    if !a.is_finite() {
        let t = if a.is_nan() { "nan" } else { "inf" };
        let t = if upper {
            t.to_uppercase()
        } else {
            t.to_owned()
        };
        // C pads infinities and NaNs with spaces even under the `0` flag.
        return pad(s, sign, &t, false);
    }
    let body = match s.conv.to_ascii_lowercase() {
        b'f' => format!("{a:.*}", s.precision.unwrap_or(6)),
        b'e' => exp_form(a, s.precision.unwrap_or(6)),
        b'g' => general(a, s.precision.unwrap_or(6)),
        _ => hex_float(a, s.precision),
    };
    let body = if upper { body.to_uppercase() } else { body };
    pad(s, sign, &body, s.zero)
}

/// `%e`: d.ddde±XX (at least two exponent digits).
fn exp_form(a: f64, p: usize) -> String {
    let r = format!("{a:.p$e}");
    let (m, e) = r.split_once('e').unwrap_or((&r, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!(
        "{m}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    )
}

/// `%g`: `%e` or `%f` by the exponent, precision as significant digits, no trailing zeros.
fn general(a: f64, p: usize) -> String {
    let p = p.max(1);
    let r = format!("{a:.prec$e}", prec = p - 1);
    let x: i64 = r
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let body = if x < -4 || x >= p as i64 {
        exp_form(a, p - 1)
    } else {
        format!("{a:.prec$}", prec = (p as i64 - 1 - x) as usize)
    };
    // Trailing zeros of the fraction go, and the point with them.
    let (mant, exp) = match body.find('e') {
        Some(k) => body.split_at(k),
        None => (body.as_str(), ""),
    };
    let mant = if mant.contains('.') {
        mant.trim_end_matches('0').trim_end_matches('.')
    } else {
        mant
    };
    format!("{mant}{exp}")
}

/// `%a` as glibc prints a double: `0x1.8p+1`; subnormals as `0x0.xxxp-1022`; without a
/// precision, the exact digits; with one, rounded to nearest even (a carry can make the leading
/// digit 2, as glibc writes it).
fn hex_float(a: f64, precision: Option<usize>) -> String {
    let bits = a.to_bits();
    let exp_bits = (bits >> 52) & 0x7ff;
    let mut frac = bits & ((1 << 52) - 1);
    if a == 0.0 {
        return match precision {
            Some(p) if p > 0 => format!("0x0.{}p+0", "0".repeat(p)),
            _ => "0x0p+0".to_owned(),
        };
    }
    let (mut lead, exp) = if exp_bits == 0 {
        (0u64, -1022i64)
    } else {
        (1u64, exp_bits as i64 - 1023)
    };
    let digits = match precision {
        None => {
            let d = format!("{frac:013x}");
            d.trim_end_matches('0').to_owned()
        }
        Some(p) if p >= 13 => format!("{frac:013x}") + &"0".repeat(p - 13),
        Some(p) => {
            let drop = 4 * (13 - p) as u32;
            let keep = frac >> drop;
            let rest = frac & ((1u64 << drop) - 1);
            let half = 1u64 << (drop - 1);
            let mut kept = keep;
            if rest > half || (rest == half && keep & 1 == 1) {
                kept += 1;
            }
            if p == 0 {
                lead += kept;
                String::new()
            } else {
                if kept >> (4 * p) != 0 {
                    lead += 1;
                    kept &= (1u64 << (4 * p)) - 1;
                }
                frac = kept;
                format!("{frac:0p$x}")
            }
        }
    };
    let point = if digits.is_empty() { "" } else { "." };
    format!(
        "0x{lead}{point}{digits}p{}{}",
        if exp < 0 { '-' } else { '+' },
        exp.unsigned_abs()
    )
}

/// One printed line: who printed it, when, from where.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PrintfLine {
    /// The printing invocation's workgroup id (`WorkgroupId`).
    pub workgroup: [u32; 3],
    /// Local invocation index.
    pub invocation: u32,
    /// Index of the subgroup within its workgroup.
    pub subgroup: u32,
    /// The lane within the subgroup.
    pub lane: u32,
    /// The step that executed it (the step of the instruction after it: printing takes none).
    pub step: u64,
    /// Module instruction index of the `OpExtInst`.
    pub instruction: u32,
    /// The formatted text (ending in a newline when the format does).
    pub text: String,
}

/// Lines kept per shared chunk: a copy of the log (a history checkpoint) shares every full
/// chunk and copies at most one chunk of lines.
const CHUNK: usize = 1024;

/// The lines printed so far, in execution order, within the run's limits.
#[derive(Clone, Debug, Default)]
pub struct PrintfLog {
    chunks: Vec<Arc<Vec<PrintfLine>>>,
    len: usize,
    bytes: usize,
    dropped: u64,
}

impl PrintfLog {
    /// Keeps `line` unless `max_lines` lines or [`MAX_PRINTF_BYTES`] bytes are kept already
    /// (then it counts as dropped).
    pub fn push(&mut self, line: PrintfLine, max_lines: usize) {
        if self.len >= max_lines || self.bytes + line.text.len() > MAX_PRINTF_BYTES {
            self.dropped += 1;
            return;
        }
        self.bytes += line.text.len();
        self.len += 1;
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => Arc::make_mut(c).push(line),
            _ => {
                let mut c = Vec::with_capacity(CHUNK);
                c.push(line);
                self.chunks.push(Arc::new(c));
            }
        }
    }

    pub(crate) fn count_dropped(&mut self, n: u64) {
        self.dropped += n;
    }

    /// Appends another run's lines (a run of later workgroups that started `steps` steps into
    /// the dispatch), as if printed after these.
    pub(crate) fn append(&mut self, other: &Self, max_lines: usize, steps: u64) {
        for l in other.iter() {
            let step = l.step + steps;
            self.push(PrintfLine { step, ..l.clone() }, max_lines);
        }
        self.dropped += other.dropped;
    }

    /// Number of lines kept.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no line is kept.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Line `k` (0-based, in execution order).
    pub fn get(&self, k: usize) -> Option<&PrintfLine> {
        self.chunks.get(k / CHUNK)?.get(k % CHUNK)
    }

    /// The lines kept, in execution order.
    pub fn iter(&self) -> impl Iterator<Item = &PrintfLine> + '_ {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Lines not kept because a limit was reached.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests;
