//! `BUFFER`: by data type or format, with its size, `DATA`, `FILL`, `SERIES_FROM` or a `FILE`.

use super::{
    decode, err, fill_bytes, unsupported, Actual, Buffer, DataType, Format, Image, ImageDim,
    Layout, Lexer, PResult, Parser, Scalar, Stop, Tok, Token, Value, MAX_SCRIPT_BUFFER_BYTES,
};

impl Parser<'_> {
    pub(super) fn add_buffer_bytes(&mut self, line: usize, n: u64) -> PResult<()> {
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

    pub(super) fn buffer(&mut self, start: &Token) -> PResult<()> {
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

    pub(super) fn data_type(&mut self, line: usize) -> PResult<DataType> {
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

    pub(super) fn data_type_buffer(&mut self, start: &Token, name: String) -> PResult<Buffer> {
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

    pub(super) fn format_buffer(&mut self, start: &Token, name: String) -> PResult<Buffer> {
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

    /// A value for the component of type `t` from a number token, as amber converts it.
    pub(super) fn value_for(t: Scalar, tok: &Token, what: &str) -> PResult<Value> {
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
    pub(super) fn fill_value(s: Scalar, t: &Token, what: &str) -> PResult<Value> {
        match (s.is_float(), &t.tok) {
            (false, Tok::Double(d)) => Ok(Value::Int(*d as i64 as u64)),
            _ => Self::value_for(s, t, what),
        }
    }

    pub(super) fn fill(&mut self, format: &Format, n: usize) -> PResult<Vec<Value>> {
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

    pub(super) fn series(&mut self, format: &Format, n: usize, at: &Token) -> PResult<Vec<Value>> {
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
    pub(super) fn file_values(&mut self, format: &Format, start: &Token) -> PResult<Vec<Value>> {
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
    pub(super) fn data_values(
        &mut self,
        format: &Format,
        start: &Token,
        what: &str,
    ) -> PResult<Vec<Value>> {
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
}
