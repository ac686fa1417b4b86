//! `IMAGE` and `SAMPLER`, and what of them Lanescope does not simulate.

use super::{
    err, fill_bytes, texel_format, texel_format_of, unsupported, Buffer, DataType, Filter, Format,
    Image, ImageDim, Layout, PResult, Parser, Sampler, SamplerAddress, Token,
};

impl Parser<'_> {
    /// `IMAGE name {FORMAT f | DATA_TYPE t} [MIP_LEVELS 1] [SAMPLES s] DIM_1D|DIM_2D|DIM_3D
    /// WIDTH w [HEIGHT h [DEPTH d]] [FILL v | SERIES_FROM a INC_BY b | DATA ... END]`, the
    /// attributes in any order as amber reads them.
    pub(super) fn image(&mut self, start: &Token) -> PResult<()> {
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
    pub(super) fn sampler(&mut self, start: &Token) -> PResult<()> {
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
}
