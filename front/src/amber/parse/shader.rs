//! `SHADER` (inline text, a file, or a virtual file) and `VIRTUAL_FILE`.

use super::{err, unsupported, PResult, Parser, Shader, ShaderFormat, Token, SHADER_TYPES};

impl Parser<'_> {
    pub(super) fn shader(&mut self, start: &Token) -> PResult<()> {
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

    pub(super) fn virtual_file(&mut self) -> PResult<()> {
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
}
