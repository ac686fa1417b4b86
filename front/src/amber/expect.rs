//! Checking `EXPECT`s against buffer bytes, with amber's verifier's rules (`src/verifier.cc`,
//! `src/buffer.cc`): integers compare in the component's type; floats with `EQ` match within a
//! relative 1e-8 (amber's 0.000001 %), NaN matching NaN; `TOLERANCE` (its first value, absolute
//! or `%` of the expected value) applies to every component.

use super::report::ExpectReport;
use super::script::{Cmp, Tolerance};
use super::types::{
    decode, expected_as, format_actual, Actual, ChannelMode, Format, Scalar, Value,
};

/// Amber's default for floating-point `EQ`: 0.000001 percent.
const EPSILON_PERCENT: f64 = 0.000_001;

fn within(actual: f64, expected: f64, tolerance: f64, percent: bool) -> bool {
    if actual.is_nan() || expected.is_nan() {
        return actual.is_nan() == expected.is_nan();
    }
    let diff = (actual - expected).abs();
    if percent {
        diff <= tolerance / 100.0 * expected.abs()
    } else {
        diff <= tolerance
    }
}

fn as_f64(a: Actual) -> f64 {
    match a {
        Actual::Signed(i) => i as f64,
        Actual::Unsigned(u) => u as f64,
        Actual::Float(x) => x,
    }
}

/// Whether `actual` satisfies `op` against `expected`, both already of the component's type.
fn holds(a: Actual, e: Actual, op: Cmp, tol: Option<Tolerance>) -> bool {
    if let Some(t) = tol {
        return within(as_f64(a), as_f64(e), t.value, t.percent);
    }
    use std::cmp::Ordering;
    let (eq, ord) = match (a, e) {
        (Actual::Float(x), Actual::Float(y)) => {
            (within(x, y, EPSILON_PERCENT, true), x.partial_cmp(&y))
        }
        (Actual::Signed(x), Actual::Signed(y)) => (x == y, Some(x.cmp(&y))),
        (Actual::Unsigned(x), Actual::Unsigned(y)) => (x == y, Some(x.cmp(&y))),
        (x, y) => (as_f64(x) == as_f64(y), as_f64(x).partial_cmp(&as_f64(y))),
    };
    // Written as amber's negated tests, so NaN passes the orderings as it does there.
    match op {
        Cmp::Eq => eq,
        Cmp::Ne => !eq,
        Cmp::Lt => ord != Some(Ordering::Greater) && ord != Some(Ordering::Equal),
        Cmp::Le => ord != Some(Ordering::Greater),
        Cmp::Gt => ord != Some(Ordering::Less) && ord != Some(Ordering::Equal),
        Cmp::Ge => ord != Some(Ordering::Less),
    }
}

fn tolerance_text(t: &Tolerance) -> String {
    if t.percent {
        format!("{}%", t.value)
    } else {
        t.value.to_string()
    }
}

/// The buffer an `EXPECT` checks: its line, name, format and bytes.
pub struct Subject<'a> {
    pub line: usize,
    pub name: &'a str,
    pub format: &'a Format,
    pub bytes: &'a [u8],
}

/// An `IDX` probe: `values` from byte `offset` on.
pub fn probe(
    s: &Subject,
    offset: u64,
    op: Cmp,
    tolerance: &[Tolerance],
    values: &[Value],
) -> ExpectReport {
    let (line, buffer, format, bytes) = (s.line, s.name, s.format, s.bytes);
    let tol = tolerance.first().copied();
    let mut r = ExpectReport {
        line,
        buffer: buffer.to_string(),
        index: Some(offset),
        op: op.keyword().to_string(),
        expected: String::new(),
        actual: String::new(),
        pass: false,
        detail: None,
    };
    let mut expected = Vec::new();
    for (k, v) in values.iter().enumerate() {
        let (_, t) = format.value_at(0, k);
        expected.push(format_actual(t, expected_as(t, *v)));
    }
    r.expected = expected.join(" ");
    if let Some(t) = &tol {
        r.expected += &format!(" (TOLERANCE {})", tolerance_text(t));
    }
    let stride = format.stride() as u64;
    if stride == 0 || offset % stride != 0 {
        r.actual = format!(
            "nothing read: IDX {offset} is not a multiple of the element size ({stride} bytes)"
        );
        return r;
    }
    let per = format.values_per_element().max(1);
    let end = offset.saturating_add((values.len().div_ceil(per) as u64).saturating_mul(stride));
    if end > bytes.len() as u64 {
        r.actual = format!(
            "nothing read: the values reach byte {end}, past the buffer's {} bytes",
            bytes.len()
        );
        return r;
    }
    let mut actual = Vec::new();
    let mut first_bad = None;
    for (k, v) in values.iter().enumerate() {
        let (pos, t) = format.value_at(offset as usize, k);
        let a = decode(t, &bytes[pos..]);
        actual.push(format_actual(t, a));
        if first_bad.is_none() && !holds(a, expected_as(t, *v), op, tol) {
            first_bad = Some((k, pos));
        }
    }
    r.actual = actual.join(" ");
    r.pass = first_bad.is_none();
    if let Some((k, pos)) = first_bad {
        r.detail = Some(if values.len() > 1 {
            format!("first at value {k}, byte {pos}")
        } else {
            format!("byte {pos}")
        });
    }
    r
}

/// amber's default tolerance for image probes, on values scaled to 0..1.
const DEFAULT_TEXEL_TOLERANCE: f64 = 0.002;

fn srgb_to_linear(x: f64) -> f64 {
    if x <= 0.04045 {
        x / 12.92
    } else {
        ((x + 0.055) / 1.055).powf(2.4)
    }
}

/// A channel as amber's probe reads it: normalized channels scaled to 0..1 (-1..1, sRGB to
/// linear), others as they are.
fn channel_value(a: Actual, t: Scalar, component: char, mode: ChannelMode) -> f64 {
    let x = as_f64(a);
    let bits = (t.bytes() * 8) as i32;
    match mode {
        ChannelMode::Unorm => x / (2f64.powi(bits) - 1.0),
        ChannelMode::Snorm => x / (2f64.powi(bits - 1) - 1.0),
        ChannelMode::Srgb => {
            let v = x / (2f64.powi(bits) - 1.0);
            if component == 'A' {
                v
            } else {
                srgb_to_linear(v)
            }
        }
        _ => x,
    }
}

/// A number to 4 decimals at most, whole numbers without any.
fn short(v: f64) -> String {
    if (v - v.round()).abs() < 1e-6 {
        format!("{}", v.round())
    } else {
        let t = format!("{v:.4}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A scaled channel value on the 0..255 scale.
fn on_255(x: f64) -> String {
    short(x * 255.0)
}

/// `IDX x y SIZE w h EQ_RGB r g b` / `EQ_RGBA r g b a` (amber's `Verifier::Probe`): in the
/// first slice of a `width`-texel-wide image, every texel of the region has each R, G, B (and
/// A) channel its format has within the tolerance of the value / 255; normalized channels are
/// scaled to 0..1 first, others compared as they are (so an integer image matches only 0).
/// One tolerance applies to every channel, four to each; the default is 0.002; a `%` tolerance
/// is relative to the texel's value.
pub fn probe_rgba(
    s: &Subject,
    [width, height]: [u32; 2],
    [x, y, w, h]: [u32; 4],
    rgba: bool,
    values: [u8; 4],
    tolerance: &[Tolerance],
) -> ExpectReport {
    let (format, bytes) = (s.format, s.bytes);
    let op = if rgba { "EQ_RGBA" } else { "EQ_RGB" };
    let channels = format.ty.channels().unwrap_or_default();
    let slots = format.slots();
    let normalized = channels.iter().any(|(_, m)| m.is_normalized());
    let n = if rgba { 4 } else { 3 };
    let mut expected: Vec<String> = values[..n].iter().map(|v| v.to_string()).collect();
    if !normalized {
        // Unnormalized channels are compared with the values / 255, as amber does.
        let scaled: Vec<String> = values[..n]
            .iter()
            .map(|v| short(f64::from(*v) / 255.0))
            .collect();
        expected.push(format!("(compared as {})", scaled.join(" ")));
    }
    let mut exp = format!("{} at ({x}, {y}) size {w}x{h}", expected.join(" "));
    if !tolerance.is_empty() {
        let t: Vec<String> = tolerance.iter().map(tolerance_text).collect();
        exp += &format!(" (TOLERANCE {})", t.join(" "));
    }
    let texel = format.stride() as u64;
    let start = (u64::from(y).saturating_mul(u64::from(width)))
        .saturating_add(u64::from(x))
        .saturating_mul(texel);
    let mut r = ExpectReport {
        line: s.line,
        buffer: s.name.to_string(),
        index: Some(start),
        op: op.into(),
        expected: exp,
        actual: String::new(),
        pass: false,
        detail: None,
    };
    let (x_end, y_end) = (u64::from(x) + u64::from(w), u64::from(y) + u64::from(h));
    if x_end > u64::from(width) || y_end > u64::from(height) {
        r.actual = format!(
            "nothing read: the region reaches ({}, {}), outside the {width}x{height} image",
            x_end - 1,
            y_end - 1
        );
        return r;
    }
    let need = (y_end.saturating_sub(1) * u64::from(width) + x_end).saturating_mul(texel);
    if (bytes.len() as u64) < need || channels.len() != slots.len() {
        r.actual = format!(
            "nothing read: the image holds {} bytes, less than its {width}x{height} texels",
            bytes.len()
        );
        return r;
    }
    let tol = |c: usize| match tolerance {
        [] => (DEFAULT_TEXEL_TOLERANCE, false),
        [a, b, c2, d] => {
            let t = [a, b, c2, d][c];
            (t.value, t.percent)
        }
        [t, ..] => (t.value, t.percent),
    };
    // The channels a texel is compared on, in RGBA order: (slot, colour index).
    let mut compared: Vec<(usize, usize)> = channels
        .iter()
        .enumerate()
        .filter_map(|(k, (c, _))| Some((k, "RGBA".find(*c)?)))
        .filter(|(_, i)| *i < n)
        .collect();
    compared.sort_by_key(|(_, i)| *i);
    let all = compared.len() == n;
    let show = |at: u64| {
        let parts: Vec<String> = compared
            .iter()
            .map(|&(k, i)| {
                let (off, t) = slots[k];
                let a = decode(t, &bytes[at as usize + off..]);
                let (c, m) = channels[k];
                let v = if m.is_normalized() {
                    on_255(channel_value(a, t, c, m))
                } else {
                    format_actual(t, a)
                };
                if all {
                    v
                } else {
                    format!("{}={v}", &"RGBA"[i..=i])
                }
            })
            .collect();
        parts.join(" ")
    };
    let mut bad = 0u64;
    let mut first = None;
    for j in y..y + h {
        for i in x..x + w {
            let at = (u64::from(j) * u64::from(width) + u64::from(i)) * texel;
            let ok = compared.iter().all(|&(k, c)| {
                let (off, t) = slots[k];
                let (name, mode) = channels[k];
                let actual = channel_value(decode(t, &bytes[at as usize + off..]), t, name, mode);
                let want = f64::from(f32::from(values[c]) / 255.0);
                let (tv, percent) = tol(c);
                if actual.is_nan() {
                    return false;
                }
                let diff = (want - actual).abs();
                if percent {
                    diff <= tv / 100.0 * actual.abs()
                } else {
                    diff <= tv
                }
            });
            if !ok {
                bad += 1;
                first.get_or_insert((i, j, at));
            }
        }
    }
    match first {
        None => {
            r.pass = true;
            r.actual = show(start);
        }
        Some((i, j, at)) => {
            r.index = Some(at);
            r.actual = show(at);
            r.detail = Some(format!(
                "{bad} of {} texels differ, first at ({i}, {j})",
                u64::from(w) * u64::from(h)
            ));
        }
    }
    r
}

/// Value `k` of a buffer, formatted.
fn value_text(format: &Format, bytes: &[u8], k: usize) -> (usize, Scalar, String) {
    let (pos, t) = format.value_at(0, k);
    let s = if pos + t.bytes() <= bytes.len() {
        format_actual(t, decode(t, &bytes[pos..]))
    } else {
        "(none)".into()
    };
    (pos, t, s)
}

fn mismatch_sizes(r: &mut ExpectReport, a: &[u8], b: &[u8], other: &str) -> bool {
    if a.len() == b.len() {
        return false;
    }
    r.expected = format!("{} bytes, as `{other}`", b.len());
    r.actual = format!("{} bytes", a.len());
    true
}

/// `EXPECT a EQ_BUFFER b`: every byte equal.
pub fn eq_buffer(s: &Subject, other: &str, b: &[u8]) -> ExpectReport {
    let (line, name, format, a) = (s.line, s.name, s.format, s.bytes);
    let mut r = ExpectReport {
        line,
        buffer: name.to_string(),
        index: None,
        op: "EQ_BUFFER".into(),
        expected: format!("the contents of `{other}`"),
        actual: "equal".into(),
        pass: false,
        detail: None,
    };
    if mismatch_sizes(&mut r, a, b, other) {
        return r;
    }
    let Some(first) = a.iter().zip(b).position(|(x, y)| x != y) else {
        r.pass = true;
        return r;
    };
    // Count and name values, not bytes; padding that differs is reported as bytes.
    let stride = format.stride().max(1);
    let n = a.len() / stride * format.values_per_element();
    let differs = |k: &usize| {
        let (pos, t) = format.value_at(0, *k);
        a[pos..pos + t.bytes()] != b[pos..pos + t.bytes()]
    };
    let differing = (0..n).filter(differs).count();
    match (0..n).find(differs) {
        Some(k) => {
            let (pos, _, av) = value_text(format, a, k);
            let (_, _, bv) = value_text(format, b, k);
            r.index = Some(pos as u64);
            r.expected = format!("{bv} (as in `{other}`)");
            r.actual = format!("{av} ({differing} of {n} values differ)");
            r.detail = Some(format!("first at value {k}, byte {pos}"));
        }
        None => {
            r.index = Some(first as u64);
            r.expected = format!("byte {} (as in `{other}`)", b[first]);
            r.actual = format!("byte {} (only padding differs)", a[first]);
        }
    }
    r
}

/// The value-by-value differences of two buffers of one format.
fn diffs(format: &Format, a: &[u8], b: &[u8]) -> Vec<f64> {
    let per = format.values_per_element().max(1);
    let n = a.len() / format.stride().max(1) * per;
    (0..n)
        .map(|k| {
            let (pos, t) = format.value_at(0, k);
            as_f64(decode(t, &a[pos..])) - as_f64(decode(t, &b[pos..]))
        })
        .collect()
}

/// `EXPECT a RMSE_BUFFER b TOLERANCE t`: the root mean square of the differences is at most `t`.
pub fn rmse(s: &Subject, other: &str, b: &[u8], tolerance: f64) -> ExpectReport {
    let (line, name, format, a) = (s.line, s.name, s.format, s.bytes);
    let mut r = ExpectReport {
        line,
        buffer: name.to_string(),
        index: None,
        op: "RMSE_BUFFER".into(),
        expected: format!("RMSE against `{other}` <= {tolerance}"),
        actual: String::new(),
        pass: false,
        detail: None,
    };
    if mismatch_sizes(&mut r, a, b, other) {
        return r;
    }
    let d = diffs(format, a, b);
    let rmse = if d.is_empty() {
        0.0
    } else {
        (d.iter().map(|x| x * x).sum::<f64>() / d.len() as f64).sqrt()
    };
    r.actual = format!("RMSE {rmse}");
    r.pass = rmse <= tolerance;
    r
}

/// `EXPECT a EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE t`: per channel of an 8-bit, 4-channel format,
/// the earth mover's distance between the two histograms (normalized to 0..1) is at most `t`.
pub fn histogram_emd(s: &Subject, other: &str, b: &[u8], tolerance: f64) -> ExpectReport {
    let (line, name, format, a) = (s.line, s.name, s.format, s.bytes);
    let mut r = ExpectReport {
        line,
        buffer: name.to_string(),
        index: None,
        op: "EQ_HISTOGRAM_EMD_BUFFER".into(),
        expected: format!("histogram EMD against `{other}` <= {tolerance}"),
        actual: String::new(),
        pass: false,
        detail: None,
    };
    let slots = format.slots();
    if slots.len() != 4 || slots.iter().any(|(_, t)| *t != Scalar::U8) {
        r.actual = format!(
            "not compared: EMD needs an 8-bit unsigned 4-channel format, not {}",
            format.ty.name
        );
        return r;
    }
    if mismatch_sizes(&mut r, a, b, other) {
        return r;
    }
    let stride = format.stride().max(1);
    let elements = a.len() / stride;
    let hist = |bytes: &[u8], c: usize| {
        let mut h = [0u64; 256];
        for e in 0..elements {
            h[bytes[e * stride + slots[c].0] as usize] += 1;
        }
        h
    };
    let mut worst: f64 = 0.0;
    for c in 0..4 {
        let (ha, hb) = (hist(a, c), hist(b, c));
        let (mut acc, mut total) = (0.0f64, 0.0f64);
        for i in 0..256 {
            let n = elements.max(1) as f64;
            acc += ha[i] as f64 / n - hb[i] as f64 / n;
            total += acc.abs();
        }
        worst = worst.max(total / 256.0);
    }
    r.actual = format!("EMD {worst}");
    r.pass = worst <= tolerance;
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amber::types::{encode, DataType, Layout};

    fn subj<'a>(f: &'a Format, b: &'a [u8]) -> Subject<'a> {
        Subject {
            line: 1,
            name: "b",
            format: f,
            bytes: b,
        }
    }

    fn buf(t: &str, vals: &[Value]) -> (Format, Vec<u8>) {
        let f = Format::new(DataType::parse(t).unwrap(), Layout::Std430);
        let bytes = crate::amber::parse::fill_bytes(&f, vals);
        (f, bytes)
    }

    #[test]
    fn integer_and_float_rules() {
        let (f, b) = buf("int32", &[Value::Int((-1i64) as u64), Value::Int(5)]);
        let ok = probe(
            &subj(&f, &b),
            0,
            Cmp::Eq,
            &[],
            &[Value::Int(u64::MAX), Value::Int(5)],
        );
        assert!(ok.pass, "{ok:?}");
        assert_eq!(ok.actual, "-1 5");
        let lt = probe(&subj(&f, &b), 4, Cmp::Lt, &[], &[Value::Int(6)]);
        assert!(lt.pass);
        let bad = probe(
            &subj(&f, &b),
            0,
            Cmp::Eq,
            &[],
            &[Value::Int(0), Value::Int(5)],
        );
        assert!(!bad.pass);
        assert_eq!(bad.detail.as_deref(), Some("first at value 0, byte 0"));
        let (f, b) = buf("float", &[Value::Float(0.1), Value::Float(f64::NAN)]);
        assert!(
            probe(
                &subj(&f, &b),
                0,
                Cmp::Eq,
                &[],
                &[Value::Float(0.1), Value::Float(f64::NAN)]
            )
            .pass
        );
        let tol = [Tolerance {
            value: 1.0,
            percent: true,
        }];
        assert!(probe(&subj(&f, &b), 0, Cmp::Eq, &tol, &[Value::Float(0.1009)]).pass);
        assert!(!probe(&subj(&f, &b), 0, Cmp::Eq, &tol, &[Value::Float(0.102)]).pass);
        let misaligned = probe(&subj(&f, &b), 2, Cmp::Eq, &[], &[Value::Float(0.0)]);
        assert!(!misaligned.pass && misaligned.actual.contains("multiple"));
    }

    #[test]
    fn buffer_comparisons() {
        let (f, a) = buf("uint32", &[Value::Int(1), Value::Int(2), Value::Int(3)]);
        let mut b = a.clone();
        assert!(eq_buffer(&subj(&f, &a), "b", &b).pass);
        encode(Scalar::U32, Value::Int(7), &mut b[4..]);
        let r = eq_buffer(&subj(&f, &a), "b", &b);
        assert!(!r.pass);
        assert_eq!(r.index, Some(4));
        assert!(
            r.expected.starts_with('7') && r.actual.starts_with('2'),
            "{r:?}"
        );
        assert!(rmse(&subj(&f, &a), "b", &b, 3.0).pass);
        assert!(!rmse(&subj(&f, &a), "b", &b, 2.0).pass);
        let (f8, x) = buf("vec4<uint8>", &[Value::Int(1); 8]);
        assert!(histogram_emd(&subj(&f8, &x), "x", &x, 0.0).pass);
    }

    #[test]
    fn image_probes_follow_amber() {
        let f = Format::new(DataType::parse("R8G8B8A8_UNORM").unwrap(), Layout::Std430);
        // A 2x2 image: green, green / half red, green.
        let b = [
            0u8, 255, 0, 255, 0, 255, 0, 255, 128, 0, 0, 255, 0, 255, 0, 255,
        ];
        let s = subj(&f, &b);
        let green = [0, 255, 0, 255];
        assert!(probe_rgba(&s, [2, 2], [0, 0, 2, 1], true, green, &[]).pass);
        let r = probe_rgba(&s, [2, 2], [0, 0, 2, 2], true, green, &[]);
        assert!(!r.pass);
        assert_eq!(r.index, Some(8));
        assert_eq!(r.actual, "128 0 0 255");
        assert_eq!(
            r.detail.as_deref(),
            Some("1 of 4 texels differ, first at (0, 1)")
        );
        // 127 is 1/255 off: past the default 0.002, within 0.005 or 1%.
        let red = [127, 0, 0, 255];
        assert!(!probe_rgba(&s, [2, 2], [0, 1, 1, 1], true, red, &[]).pass);
        let tol = |value, percent| Tolerance { value, percent };
        assert!(probe_rgba(&s, [2, 2], [0, 1, 1, 1], true, red, &[tol(0.005, false)]).pass);
        assert!(probe_rgba(&s, [2, 2], [0, 1, 1, 1], true, red, &[tol(1.0, true)]).pass);
        // Four tolerances are per channel; alpha only counts for EQ_RGBA.
        let t4 = [
            tol(0.005, false),
            tol(0.0, false),
            tol(0.0, false),
            tol(0.0, false),
        ];
        assert!(probe_rgba(&s, [2, 2], [0, 1, 1, 1], true, red, &t4).pass);
        assert!(probe_rgba(&s, [2, 2], [0, 1, 1, 1], false, [128, 0, 0, 9], &[]).pass);
        let out = probe_rgba(&s, [2, 2], [1, 1, 2, 1], true, green, &[]);
        assert!(!out.pass && out.actual.contains("reaches (2, 1), outside the 2x2 image"));
        // Integer channels are not scaled: only 0 matches, as in amber.
        let (fu, bu) = buf("R32_UINT", &[Value::Int(1), Value::Int(0)]);
        let su = subj(&fu, &bu);
        let r = probe_rgba(&su, [2, 1], [0, 0, 1, 1], true, [1, 0, 0, 0], &[]);
        assert!(!r.pass);
        assert_eq!(r.actual, "R=1");
        assert_eq!(
            r.expected,
            "1 0 0 0 (compared as 0.0039 0 0 0) at (0, 0) size 1x1"
        );
        assert!(probe_rgba(&su, [2, 1], [1, 0, 1, 1], true, [0, 9, 9, 9], &[]).pass);
        // Signed normalized channels read -1..1.
        let (fs, bs) = buf("R8G8_SNORM", &[Value::Int(127), Value::Int(0x81)]);
        let r = probe_rgba(
            &subj(&fs, &bs),
            [1, 1],
            [0, 0, 1, 1],
            false,
            [255, 0, 0, 0],
            &[],
        );
        assert!(!r.pass, "{r:?}");
        assert_eq!(r.actual, "R=255 G=-255");
    }
}
