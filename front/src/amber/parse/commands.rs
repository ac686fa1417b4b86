//! The commands: `RUN`, `COPY`, `CLEAR`, `REPEAT` and `EXPECT` with its comparisons and tolerances.

use super::{
    err, unsupported, Check, Cmp, Command, Expect, PResult, Parser, Tok, Token, Tolerance,
};

impl Parser<'_> {
    pub(super) fn run(&mut self, start: &Token) -> PResult<Command> {
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

    pub(super) fn copy(&mut self, start: &Token) -> PResult<Command> {
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

    pub(super) fn clear(&mut self, start: &Token) -> PResult<Command> {
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

    pub(super) fn repeat(&mut self, start: &Token) -> PResult<Command> {
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

    pub(super) fn expect(&mut self, start: &Token) -> PResult<Command> {
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

    /// Multisampled images cannot be read back in amber: an `EXPECT` on one is skipped.
    pub(super) fn not_multisampled(&self, line: usize, buffer: usize) -> PResult<()> {
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
    pub(super) fn tolerance_values(&mut self) -> Vec<Tolerance> {
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

    pub(super) fn expect_rgba(
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
            .any(|(_, m)| *m == crate::amber::types::ChannelMode::Other)
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
