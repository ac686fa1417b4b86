//! `PIPELINE` and `DERIVE_PIPELINE`: attachments, specialization, subgroup size controls.

use super::{
    err, unsupported, Attach, PResult, Parser, Pipeline, RequiredSize, RequirementKind, Scalar,
    SpecValue, SubgroupControl, Tok, Token,
};

impl Parser<'_> {
    pub(super) fn pipeline(&mut self, start: &Token) -> PResult<()> {
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

    pub(super) fn derive_pipeline(&mut self, start: &Token) -> PResult<()> {
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

    pub(super) fn pipeline_body(&mut self, mut p: Pipeline, start: &Token) -> PResult<()> {
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

    pub(super) fn attach(&mut self, p: &mut Pipeline, start: &Token) -> PResult<()> {
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
    pub(super) fn specialize(&mut self) -> PResult<(u32, SpecValue)> {
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

    pub(super) fn has_feature(&self, name: &str) -> bool {
        self.script
            .requirements
            .iter()
            .any(|r| r.kind == RequirementKind::DeviceFeature && r.name == name)
    }

    pub(super) fn on_off(&mut self, what: &str) -> PResult<bool> {
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

    pub(super) fn subgroup(&mut self, p: &mut Pipeline) -> PResult<()> {
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
}
