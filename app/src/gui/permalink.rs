//! Permalinks: the URL fragment carries the example (or a small uploaded module, deflated and
//! base64url-encoded), the settings, the selected lane, the view and the step, so a link opens
//! the playground exactly there. Fragments are untrusted input: every field is checked and the
//! module is inflated under a size limit.

use super::views::Tab;

/// Largest module a link may carry once inflated.
const MAX_MODULE_BYTES: usize = 4 << 20;
/// Longest encoded module written into a link (browsers cope with more; people's chats not).
pub const MAX_LINK_MODULE_CHARS: usize = 32 * 1024;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Link {
    pub example: Option<String>,
    /// An uploaded module: (file name, bytes).
    pub module: Option<(String, Vec<u8>)>,
    pub subgroup_size: Option<u32>,
    pub workgroups: Option<[u32; 3]>,
    pub per_case: Option<bool>,
    pub sibling_order: Option<lanescope_core::SiblingOrder>,
    pub layout: Option<String>,
    pub step: Option<u64>,
    /// (subgroup, lane).
    pub lane: Option<(u32, u32)>,
    pub tab: Option<Tab>,
    /// 1-based lesson number.
    pub lesson: Option<usize>,
    /// An edited GLSL/HLSL source's build settings (macros, target environment, entry point;
    /// include folders are this machine's and stay behind).
    pub defines: Option<String>,
    /// An edited WGSL source's override values (`KEY=VALUE` separated by spaces).
    pub overrides: Option<String>,
    pub target_env: Option<String>,
    pub entry: Option<String>,
    /// Files the edited source includes that came with it (the browser's picked headers):
    /// (name, bytes), each as `inc=NAME:DATA` like the module.
    pub include_files: Vec<(String, Vec<u8>)>,
    /// Initial contents that differ from what the module opens with: each buffer's or image's
    /// bytes by (set, binding, element), as `in=SET.BINDING.ELEMENT:DATA` (deflated like the
    /// module), and the push constants' as `in=push:DATA`.
    pub inputs: Vec<(InputSlot, Vec<u8>)>,
}

/// What an input of a link fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputSlot {
    /// A buffer or image: (set, binding, descriptor array element).
    Bound(u32, u32, u32),
    PushConstants,
}

/// Most inputs a link may carry.
const MAX_LINK_INPUTS: usize = 256;

/// Most included files a link may carry.
const MAX_LINK_INCLUDES: usize = 64;

impl Link {
    /// Reads `#key=value&...` (the leading `#` optional). Unknown keys are ignored so older
    /// links keep working; a malformed value is an error naming the key.
    pub fn parse(fragment: &str) -> Result<Self, String> {
        let mut l = Self::default();
        let body = fragment.strip_prefix('#').unwrap_or(fragment);
        for pair in body.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let bad = |what: &str| format!("link: `{k}={}` is not {what}", clip(v));
            let num = |v: &str| v.parse::<u64>().ok();
            match k {
                "example" => {
                    if v.is_empty()
                        || !v
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    {
                        return Err(bad("an example name"));
                    }
                    l.example = Some(v.to_owned());
                }
                "module" | "inc" | "in" => {
                    let (name, data) = v.split_once(':').ok_or_else(|| bad("NAME:DATA"))?;
                    let slot = if k == "in" {
                        Some(
                            input_slot(name)
                                .ok_or_else(|| bad("SET.BINDING.ELEMENT:DATA or push:DATA"))?,
                        )
                    } else {
                        None
                    };
                    let name = percent_decode(name).ok_or_else(|| bad("a file name"))?;
                    let packed = base64url_decode(data).ok_or_else(|| bad("base64url data"))?;
                    let carried: usize =
                        l.include_files.iter().map(|(_, b)| b.len()).sum::<usize>()
                            + l.module.as_ref().map_or(0, |(_, b)| b.len())
                            + l.inputs.iter().map(|(_, b)| b.len()).sum::<usize>();
                    let what = match k {
                        "inc" => "an included file",
                        "in" => "an input",
                        _ => "the module",
                    };
                    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(
                        &packed,
                        MAX_MODULE_BYTES.saturating_sub(carried),
                    )
                    .map_err(|_| {
                        format!(
                            "link: {what} does not inflate (corrupt, or the link's files pass {} MiB)",
                            MAX_MODULE_BYTES >> 20
                        )
                    })?;
                    if let Some(slot) = slot {
                        if l.inputs.len() >= MAX_LINK_INPUTS {
                            return Err(format!("link: more than {MAX_LINK_INPUTS} inputs"));
                        }
                        l.inputs.push((slot, bytes));
                    } else if k == "module" {
                        l.module = Some((name, bytes));
                    } else if l.include_files.len() >= MAX_LINK_INCLUDES {
                        return Err(format!(
                            "link: more than {MAX_LINK_INCLUDES} included files"
                        ));
                    } else {
                        l.include_files.push((name, bytes));
                    }
                }
                "sg" => {
                    l.subgroup_size = Some(
                        num(v)
                            .filter(|n| n.is_power_of_two() && (4..=128).contains(n))
                            .ok_or_else(|| bad("a subgroup size (4 to 128, a power of two)"))?
                            as u32,
                    );
                }
                "wg" => {
                    let w: Vec<u32> = v
                        .split(',')
                        .map(|x| num(x).filter(|n| (1..=1024).contains(n)).map(|n| n as u32))
                        .collect::<Option<_>>()
                        .ok_or_else(|| bad("x,y,z workgroup counts (1 to 1024)"))?;
                    l.workgroups = Some(w.try_into().map_err(|_| bad("three workgroup counts"))?);
                }
                "switch" => {
                    l.per_case = Some(match v {
                        "per-case" => true,
                        "per-value" => false,
                        _ => return Err(bad("per-case or per-value")),
                    });
                }
                "order" => {
                    // Links name the order by its place in the menu (0 to 3).
                    l.sibling_order = Some(
                        num(v)
                            .and_then(|n| super::session::SIBLING_ORDERS.get(n as usize))
                            .map(|(_, o)| *o)
                            .ok_or_else(|| bad("a sibling order 0 to 3"))?,
                    );
                }
                "layout" => {
                    if lanescope_core::coopmat::LayoutChoice::by_name(v).is_none() {
                        return Err(bad("a built-in fragment layout"));
                    }
                    l.layout = Some(v.to_owned());
                }
                "step" => l.step = Some(num(v).ok_or_else(|| bad("a step number"))?),
                "lane" => {
                    let (g, x) = v.split_once(':').ok_or_else(|| bad("SUBGROUP:LANE"))?;
                    let (g, x) = num(g)
                        .zip(num(x))
                        .filter(|(_, x)| *x < 128)
                        .ok_or_else(|| bad("SUBGROUP:LANE"))?;
                    l.lane = Some((g.min(u64::from(u32::MAX)) as u32, x as u32));
                }
                "view" => {
                    l.tab = Some(Tab::by_name(v).ok_or_else(|| {
                        bad("a view (lanes, timeline, rotate, dot, matrix, compare)")
                    })?);
                }
                "defs" => {
                    let d = percent_decode(v).ok_or_else(|| bad("macros"))?;
                    let build = super::build::Build {
                        defines: d.clone(),
                        ..Default::default()
                    };
                    build.defines().map_err(|e| format!("link: {e}"))?;
                    l.defines = Some(d);
                }
                "ovr" => {
                    let o = percent_decode(v).ok_or_else(|| bad("override values"))?;
                    let build = super::build::Build {
                        overrides: o.clone(),
                        ..Default::default()
                    };
                    build.overrides().map_err(|e| format!("link: {e}"))?;
                    l.overrides = Some(o);
                }
                "env" => {
                    if v.parse::<lanescope_core::spvtext::TargetEnv>().is_err() {
                        return Err(bad("a target environment"));
                    }
                    l.target_env = Some(v.to_owned());
                }
                "entry" => {
                    if v.is_empty()
                        || v.len() > 256
                        || !v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        return Err(bad("an entry point name"));
                    }
                    l.entry = Some(v.to_owned());
                }
                "lesson" => {
                    l.lesson = Some(
                        num(v)
                            .filter(|n| (1..=1000).contains(n))
                            .ok_or_else(|| bad("a lesson number"))?
                            as usize,
                    )
                }
                _ => {}
            }
        }
        if l.example.is_some() && l.module.is_some() {
            return Err("link: both an example and a module".into());
        }
        Ok(l)
    }

    /// The fragment, starting with `#`. A module too large to carry is left out (`false`).
    pub fn format(&self) -> (String, bool) {
        let mut parts = Vec::new();
        let mut complete = true;
        if let Some(n) = self.lesson {
            parts.push(format!("lesson={n}"));
        }
        if let Some(e) = &self.example {
            parts.push(format!("example={e}"));
        }
        // The module, then its headers and the inputs, within one budget.
        let mut left = MAX_LINK_MODULE_CHARS;
        let mut carry = |key: &str, name: &str, bytes: &[u8], parts: &mut Vec<String>| {
            let data = base64url_encode(&miniz_oxide::deflate::compress_to_vec(bytes, 9));
            let fits = data.len() <= left;
            if fits {
                left -= data.len();
                parts.push(format!("{key}={name}:{data}"));
            }
            fits
        };
        let module_fits = match &self.module {
            Some((name, bytes)) => carry("module", &percent_encode(name), bytes, &mut parts),
            None => true,
        };
        complete &= module_fits;
        if module_fits && self.module.is_some() {
            for (name, bytes) in self.include_files.iter().take(MAX_LINK_INCLUDES) {
                complete &= carry("inc", &percent_encode(name), bytes, &mut parts);
            }
            complete &= self.include_files.len() <= MAX_LINK_INCLUDES;
        }
        if module_fits {
            for (slot, bytes) in self.inputs.iter().take(MAX_LINK_INPUTS) {
                let name = match slot {
                    InputSlot::Bound(s, b, e) => format!("{s}.{b}.{e}"),
                    InputSlot::PushConstants => "push".into(),
                };
                complete &= carry("in", &name, bytes, &mut parts);
            }
            complete &= self.inputs.len() <= MAX_LINK_INPUTS;
        }
        if let Some(d) = &self.defines {
            parts.push(format!("defs={}", percent_encode(d)));
        }
        if let Some(o) = &self.overrides {
            parts.push(format!("ovr={}", percent_encode(o)));
        }
        if let Some(t) = &self.target_env {
            parts.push(format!("env={t}"));
        }
        if let Some(e) = &self.entry {
            parts.push(format!("entry={e}"));
        }
        if let Some(s) = self.subgroup_size {
            parts.push(format!("sg={s}"));
        }
        if let Some([x, y, z]) = self.workgroups {
            parts.push(format!("wg={x},{y},{z}"));
        }
        if let Some(p) = self.per_case {
            parts.push(format!(
                "switch={}",
                if p { "per-case" } else { "per-value" }
            ));
        }
        if let Some(o) = self.sibling_order {
            let n = super::session::SIBLING_ORDERS
                .iter()
                .position(|(_, x)| *x == o)
                .unwrap_or(0);
            parts.push(format!("order={n}"));
        }
        if let Some(l) = &self.layout {
            parts.push(format!("layout={l}"));
        }
        if let Some(t) = self.tab {
            parts.push(format!("view={}", t.name()));
        }
        if let Some((g, l)) = self.lane {
            parts.push(format!("lane={g}:{l}"));
        }
        if let Some(s) = self.step {
            parts.push(format!("step={s}"));
        }
        (format!("#{}", parts.join("&")), complete)
    }
}

/// An input's slot as a link writes it: `SET.BINDING.ELEMENT` or `push`.
fn input_slot(name: &str) -> Option<InputSlot> {
    if name == "push" {
        return Some(InputSlot::PushConstants);
    }
    let mut n = name.split('.').map(|x| x.parse::<u32>().ok());
    match (n.next(), n.next(), n.next(), n.next()) {
        (Some(Some(s)), Some(Some(b)), Some(Some(e)), None) => Some(InputSlot::Bound(s, b, e)),
        _ => None,
    }
}

fn clip(v: &str) -> String {
    if v.len() > 40 {
        format!(
            "{}…",
            &v[..v.char_indices().nth(40).map_or(v.len(), |c| c.0)]
        )
    } else {
        v.to_owned()
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding (RFC 4648 section 5): safe in a URL fragment as is.
pub fn base64url_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..=chunk.len() {
            out.push(B64[(n >> (18 - 6 * k) & 63) as usize] as char);
        }
    }
    out
}

pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = B64.iter().position(|&x| x == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Leftover bits must be zero padding of fewer than 6 bits.
    (bits < 6 && acc == 0).then_some(out)
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out)
        .ok()
        .filter(|n| !n.is_empty() && n.len() <= 255)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_every_length() {
        for n in 0..70u8 {
            let data: Vec<u8> = (0..n).map(|k| k.wrapping_mul(37) ^ n).collect();
            let e = base64url_encode(&data);
            assert!(e
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
            assert_eq!(base64url_decode(&e), Some(data), "{n} bytes");
        }
        assert_eq!(base64url_encode(b"Man"), "TWFu");
        assert_eq!(base64url_encode(b"Ma"), "TWE");
        assert!(base64url_decode("TW=").is_none());
        assert!(
            base64url_decode("T").is_none(),
            "6 bits cannot end a byte string"
        );
    }

    #[test]
    fn a_link_round_trips_with_a_module() {
        let link = Link {
            module: Some((
                "my shader.spv".into(),
                (0..5000u32).flat_map(|x| (x % 7).to_le_bytes()).collect(),
            )),
            subgroup_size: Some(16),
            workgroups: Some([2, 1, 1]),
            per_case: Some(true),
            sibling_order: Some(lanescope_core::SiblingOrder::Newest),
            layout: Some("amd-rdna3".into()),
            step: Some(1234),
            lane: Some((1, 7)),
            tab: Some(Tab::Timeline),
            defines: Some("WIDTH=4 A_TYPE=float16_t USE".into()),
            overrides: Some("3=7 SCALE=0.5".into()),
            target_env: Some("vulkan1.2".into()),
            entry: Some("CSMain".into()),
            inputs: vec![
                (InputSlot::Bound(0, 1, 2), (0..64u8).collect()),
                (InputSlot::PushConstants, vec![7; 16]),
            ],
            include_files: vec![
                ("ops.glsl".into(), b"#define BLOCK 32\n".to_vec()),
                (
                    "lib/types.glsl".into(),
                    b"uint twice(uint x) { return 2u * x; }\n".to_vec(),
                ),
            ],
            ..Link::default()
        };
        let (text, complete) = link.format();
        assert!(complete);
        assert!(
            text.contains("&inc=ops.glsl:") && text.contains("&inc=lib%2Ftypes.glsl:"),
            "{text}"
        );
        assert!(
            text.contains("&defs=WIDTH%3D4%20A_TYPE%3Dfloat16_t%20USE&ovr=3%3D7%20SCALE%3D0.5&env=vulkan1.2&entry=CSMain"),
            "{text}"
        );
        assert!(
            text.contains("&in=0.1.2:") && text.contains("&in=push:"),
            "{text}"
        );
        // A link whose override values do not parse is refused naming them.
        let e = Link::parse("#ovr=3%3Dseven").unwrap_err();
        assert!(e.contains("override `3=seven`"), "{e}");
        assert!(text.len() < 2000, "deflated: {} chars", text.len());
        assert_eq!(Link::parse(&text).unwrap(), link);
    }

    /// Headers too many or too large for a link: left out, and the link says it is incomplete;
    /// a hostile link with too many is an error.
    #[test]
    fn included_files_past_the_link_budget_stay_behind() {
        let big: Vec<u8> = (0..200_000u32)
            .flat_map(|x| x.wrapping_mul(2654435761).to_le_bytes())
            .collect();
        let link = Link {
            module: Some(("m.comp".into(), b"void main() {}\n".to_vec())),
            include_files: vec![
                ("big.glsl".into(), big),
                ("a.glsl".into(), b"//a\n".to_vec()),
            ],
            ..Link::default()
        };
        let (text, complete) = link.format();
        assert!(!complete);
        assert_eq!(
            Link::parse(&text).unwrap().include_files,
            vec![("a.glsl".to_string(), b"//a\n".to_vec())]
        );
        let one = "&inc=a:".to_string()
            + &base64url_encode(&miniz_oxide::deflate::compress_to_vec(b"x", 9));
        let e = Link::parse(&one.repeat(65)).unwrap_err();
        assert!(e.contains("more than 64 included files"), "{e}");
    }

    #[test]
    fn hostile_fragments_are_errors_naming_the_key() {
        for (frag, key) in [
            ("#sg=3", "sg=3"),
            ("#sg=99999999999999999999", "sg="),
            ("#wg=1,2", "wg=1,2"),
            ("#wg=0,1,1", "wg=0,1,1"),
            ("#step=-1", "step=-1"),
            ("#lane=1:200", "lane=1:200"),
            ("#view=cube", "view=cube"),
            ("#layout=mine", "layout=mine"),
            ("#defs=1X%3D2", "`1X` is not a macro name"),
            ("#env=vulkan9", "env=vulkan9"),
            ("#entry=a%20b", "entry=a%20b"),
            ("#example=../../etc", "example="),
            ("#module=x.spv:!!!", "module="),
            ("#module=x.spv:AAAA", "inflate"),
            ("#module=nodata", "module=nodata"),
            ("#in=0.1:AAAA", "SET.BINDING.ELEMENT:DATA"),
            ("#in=a.b.c:AAAA", "in=a.b.c"),
            ("#in=0.1.0:AAAA", "an input does not inflate"),
        ] {
            let e = Link::parse(frag).unwrap_err();
            assert!(e.contains(key), "{frag}: {e}");
        }
        // A deflate bomb stops at the limit instead of filling memory.
        let bomb = miniz_oxide::deflate::compress_to_vec(&vec![0u8; MAX_MODULE_BYTES + 1], 9);
        let e = Link::parse(&format!("#module=b.spv:{}", base64url_encode(&bomb))).unwrap_err();
        assert!(e.contains("MiB"), "{e}");
        // ... an input's too, counted with the module's.
        let half = miniz_oxide::deflate::compress_to_vec(&vec![0u8; MAX_MODULE_BYTES / 2 + 1], 9);
        let half = base64url_encode(&half);
        let e = Link::parse(&format!("#in=0.0.0:{half}&in=0.1.0:{half}")).unwrap_err();
        assert!(e.contains("an input does not inflate"), "{e}");
        assert_eq!(Link::parse("#whatever=1&step=5").unwrap().step, Some(5));
        assert_eq!(Link::parse("").unwrap(), Link::default());
    }
}
