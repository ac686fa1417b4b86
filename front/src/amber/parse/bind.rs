//! `BIND` in a pipeline: buffers, images, samplers and descriptor arrays (`BUFFER_ARRAY`),
//! and the checks that what is bound is what the simulator binds.

use super::{
    err, texel_format, unsupported, Bind, BindKind, PResult, Parser, Pipeline, SamplerBind, Tok,
    Token,
};

impl Parser<'_> {
    /// A sampler's name, as the next token.
    fn sampler_ref(&mut self) -> PResult<usize> {
        let st = self.next();
        match st.ident().and_then(|n| self.script.sampler_index(n)) {
            Some(s) => Ok(s),
            None => err(&st, format!("unknown sampler {}", st.describe())),
        }
    }

    /// `DESCRIPTOR_SET s BINDING b`, its first word already read as `t`.
    fn set_and_binding(&mut self, t: &Token) -> PResult<(u32, u32)> {
        if !t.is("DESCRIPTOR_SET") {
            return err(
                t,
                format!("expected DESCRIPTOR_SET, found {}", t.describe()),
            );
        }
        let set = self.u32("the descriptor set")?;
        self.keyword("BINDING", "after the descriptor set")?;
        Ok((set, self.u32("the binding")?))
    }

    /// `BIND SAMPLER name DESCRIPTOR_SET s BINDING b`.
    fn bind_sampler(&mut self, p: &mut Pipeline, start: &Token) -> PResult<()> {
        let sampler = self.sampler_ref()?;
        let t = self.next();
        if t.is("KERNEL") {
            return unsupported(start.line, "BIND SAMPLER ... KERNEL (OpenCL C shaders)");
        }
        let (set, binding) = self.set_and_binding(&t)?;
        self.end_of_statement("BIND command")?;
        p.unbind(set, binding);
        p.samplers.push(SamplerBind {
            line: start.line,
            sampler,
            set,
            binding,
        });
        Ok(())
    }

    /// Checks an image binding: the buffer has what it is bound as.
    fn check_image_bind(&self, line: usize, buffer: usize, kind: BindKind) -> PResult<()> {
        let b = &self.script.buffers[buffer];
        let what = format!("BIND BUFFER `{}` AS {}", b.name, kind.keyword());
        if let Err(why) = texel_format(&b.format) {
            return unsupported(
                line,
                format!("{what}: its elements are no image format Lanescope stores ({why})"),
            );
        }
        let samples = b.image.map_or(1, |i| i.samples);
        if kind.is_texel_buffer() {
            if samples > 1 {
                return unsupported(line, format!("{what} of a multisampled image"));
            }
            return Ok(());
        }
        if b.image.is_none() {
            return unsupported(
                line,
                format!(
                    "{what}: `{}` is a BUFFER without an image extent (declare it with IMAGE, or with WIDTH and HEIGHT)",
                    b.name
                ),
            );
        }
        if samples > 1 && kind != BindKind::StorageImage {
            return unsupported(
                line,
                format!(
                    "{what} of a multisampled image (Lanescope samples single-sampled images only)"
                ),
            );
        }
        Ok(())
    }

    /// The samplers the pipeline binds must be what the simulator's samplers do, for the
    /// images they sample: checked when the pipeline ends.
    pub(super) fn check_samplers(&self, p: &Pipeline) -> PResult<()> {
        for u in p.sampler_uses(&self.script.buffers) {
            let s = &self.script.samplers[u.sampler];
            if let Err(why) = s.desc(u.axes) {
                return unsupported(u.line, format!("{why}, bound"));
            }
        }
        Ok(())
    }

    pub(super) fn bind(&mut self, p: &mut Pipeline, start: &Token) -> PResult<()> {
        let what = self.ident("BUFFER")?;
        match what.ident().unwrap_or_default() {
            "BUFFER" => {}
            "BUFFER_ARRAY" => return self.bind_array(p, start),
            "SAMPLER" => return self.bind_sampler(p, start),
            "SAMPLER_ARRAY" => {
                return unsupported(start.line, "BIND SAMPLER_ARRAY (descriptor arrays)")
            }
            "ACCELERATION_STRUCTURE" => {
                return unsupported(start.line, "BIND ACCELERATION_STRUCTURE (ray tracing)")
            }
            w => return err(&what, format!("expected BUFFER after BIND, found `{w}`")),
        }
        let buffer = self.buffer_ref("a buffer name")?;
        let mut t = self.next();
        let mut kind = BindKind::Storage;
        if t.is("AS") {
            let k = self.ident("a buffer type")?;
            let word = k.ident().unwrap_or_default();
            kind = match (word, BindKind::from_keyword(word)) {
                (_, Some(kind)) => kind,
                ("push_constant", _) => {
                    p.push_constant = Some(buffer);
                    return self.end_of_statement("BIND command");
                }
                (w @ ("color" | "depth_stencil" | "resolve"), _) => {
                    return unsupported(
                        start.line,
                        format!("BIND BUFFER ... AS {w} (graphics pipelines)"),
                    )
                }
                (w, _) => return err(&k, format!("unknown buffer type `{w}`")),
            };
            t = self.next();
        }
        let mut sampler = None;
        if kind == BindKind::CombinedImageSampler {
            if !t.is("SAMPLER") {
                return err(
                    &t,
                    format!(
                        "expected SAMPLER for a combined image sampler, found {}",
                        t.describe()
                    ),
                );
            }
            sampler = Some(self.sampler_ref()?);
            t = self.next();
        }
        if t.is("KERNEL") {
            return unsupported(start.line, "BIND ... KERNEL (OpenCL C shaders)");
        }
        let (set, binding) = self.set_and_binding(&t)?;
        let mut b = Bind {
            line: start.line,
            buffer,
            kind,
            set,
            binding,
            element: 0,
            dynamic_offset: 0,
            descriptor_offset: 0,
            range: None,
            sampler,
        };
        if kind.is_image() {
            if matches!(
                kind,
                BindKind::StorageImage | BindKind::SampledImage | BindKind::CombinedImageSampler
            ) && self.peek().is("BASE_MIP_LEVEL")
            {
                self.next();
                let (level, lt) = self.uint("the base mip level")?;
                if level > 0 {
                    return err(
                        &lt,
                        format!("BASE_MIP_LEVEL {level}: the image has 1 mip level"),
                    );
                }
            }
            self.end_of_statement("BIND command")?;
            self.check_image_bind(start.line, buffer, kind)?;
            p.unbind(set, binding);
            p.binds.push(b);
            return Ok(());
        }
        if matches!(kind, BindKind::StorageDynamic | BindKind::UniformDynamic) {
            self.keyword("OFFSET", "for a dynamic buffer")?;
            b.dynamic_offset = self.uint("the dynamic offset")?.0;
        }
        if self.peek().is("DESCRIPTOR_OFFSET") {
            self.next();
            b.descriptor_offset = self.uint("the descriptor offset")?.0;
        }
        if self.peek().is("DESCRIPTOR_RANGE") {
            self.next();
            let r = self.next();
            b.range = match r.tok {
                // -1 is VK_WHOLE_SIZE.
                Tok::Int {
                    neg: true,
                    value: u64::MAX,
                } => None,
                Tok::Int { value, .. } | Tok::Hex(value) => Some(value),
                _ => return err(&r, "expected an integer DESCRIPTOR_RANGE"),
            };
        }
        self.end_of_statement("BIND command")?;
        p.unbind(set, binding);
        p.binds.push(b);
        Ok(())
    }

    /// `BIND BUFFER_ARRAY b0 b1 ... AS storage|uniform[_dynamic] DESCRIPTOR_SET s BINDING n
    /// [OFFSET o0 o1 ...] [DESCRIPTOR_OFFSET d0 d1 ...] [DESCRIPTOR_RANGE r0 r1 ...]`: element k
    /// of the descriptor array is buffer k, with the k-th of each list.
    fn bind_array(&mut self, p: &mut Pipeline, start: &Token) -> PResult<()> {
        let mut buffers = Vec::new();
        while !self.peek().is("AS") {
            if self.peek().is_end() {
                let t = self.next();
                return err(&t, "expected AS after the buffers of BIND BUFFER_ARRAY");
            }
            buffers.push(self.buffer_ref("a buffer name")?);
        }
        if buffers.len() < 2 {
            return err(start, "BIND BUFFER_ARRAY needs at least two buffers");
        }
        self.next();
        let k = self.ident("a buffer type")?;
        let word = k.ident().unwrap_or_default();
        let Some(kind) = BindKind::from_keyword(word) else {
            return err(&k, format!("unknown buffer type `{word}` for BUFFER_ARRAY"));
        };
        // One sampler for every element of a combined image sampler array.
        let mut sampler = None;
        if kind == BindKind::CombinedImageSampler {
            self.keyword("SAMPLER", "for a combined image sampler")?;
            sampler = Some(self.sampler_ref()?);
        }
        let t = self.next();
        let (set, binding) = self.set_and_binding(&t)?;
        let n = buffers.len();
        let list = |this: &mut Self, word: &str| -> PResult<Vec<Option<u64>>> {
            let mut v = Vec::new();
            for _ in 0..n {
                let t = this.next();
                v.push(match t.tok {
                    // -1 is VK_WHOLE_SIZE (for ranges).
                    Tok::Int {
                        neg: true,
                        value: u64::MAX,
                    } if word == "DESCRIPTOR_RANGE" => None,
                    Tok::Int { neg: false, value } | Tok::Hex(value) => Some(value),
                    _ => {
                        return err(
                            &t,
                            format!(
                                "expected {n} {word} values (one per buffer), found {}",
                                t.describe()
                            ),
                        )
                    }
                });
            }
            Ok(v)
        };
        if kind.is_image() {
            self.end_of_statement("BIND command")?;
            for b in &buffers {
                self.check_image_bind(start.line, *b, kind)?;
            }
            p.unbind(set, binding);
            for (k, buffer) in buffers.into_iter().enumerate() {
                p.binds.push(Bind {
                    line: start.line,
                    buffer,
                    kind,
                    set,
                    binding,
                    element: k as u32,
                    dynamic_offset: 0,
                    descriptor_offset: 0,
                    range: None,
                    sampler,
                });
            }
            return Ok(());
        }
        let mut offsets = vec![Some(0); n];
        if matches!(kind, BindKind::StorageDynamic | BindKind::UniformDynamic) {
            self.keyword("OFFSET", "for dynamic buffers")?;
            offsets = list(self, "OFFSET")?;
        }
        let mut descriptor_offsets = vec![Some(0); n];
        if self.peek().is("DESCRIPTOR_OFFSET") {
            self.next();
            descriptor_offsets = list(self, "DESCRIPTOR_OFFSET")?;
        }
        let mut ranges = vec![None; n];
        if self.peek().is("DESCRIPTOR_RANGE") {
            self.next();
            ranges = list(self, "DESCRIPTOR_RANGE")?;
        }
        self.end_of_statement("BIND command")?;
        p.unbind(set, binding);
        for (k, buffer) in buffers.into_iter().enumerate() {
            p.binds.push(Bind {
                line: start.line,
                buffer,
                kind,
                set,
                binding,
                element: k as u32,
                dynamic_offset: offsets[k].unwrap_or(0),
                descriptor_offset: descriptor_offsets[k].unwrap_or(0),
                range: ranges[k],
                sampler: None,
            });
        }
        Ok(())
    }
}
