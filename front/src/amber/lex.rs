//! AmberScript tokens, read as amber's tokenizer reads them (`src/tokenizer.cc`): a `#` that
//! starts a token comments out the rest of the line; tokens end at a space, a newline, `(`, `)`
//! or `,`; a token that starts with a digit (or `-` or `.` and a digit) is a number, `0x...`
//! a hex number, and a number with a `.` a floating-point one; what follows a number's digits
//! inside the same token is read as a separate token (`1%` is `1` and `%`); `\` at the end of a
//! line continues the statement. Every token knows its line and column (1-based).

/// A token's kind and value.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// A `"quoted"` string, escapes resolved.
    Str(String),
    /// A decimal integer; negative ones are kept wrapped to 64 bits, as amber's `strtoull`
    /// reads them, with `neg` set.
    Int {
        value: u64,
        neg: bool,
    },
    Hex(u64),
    Double(f64),
    Eol,
    Eos,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
    pub col: usize,
    /// The token as written (numbers only as far as they were read).
    pub text: String,
}

impl Token {
    pub fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(s) => Some(s),
            _ => None,
        }
    }

    /// An identifier or a quoted string.
    pub fn name(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(s) | Tok::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn is(&self, word: &str) -> bool {
        self.ident() == Some(word)
    }

    pub fn is_end(&self) -> bool {
        matches!(self.tok, Tok::Eol | Tok::Eos)
    }

    pub fn is_int(&self) -> bool {
        matches!(self.tok, Tok::Int { .. })
    }

    pub fn is_number(&self) -> bool {
        matches!(self.tok, Tok::Int { .. } | Tok::Double(_) | Tok::Hex(_))
    }

    /// The integer's 64 bits (negative numbers wrapped), for integers and hex numbers.
    pub fn as_u64(&self) -> Option<u64> {
        match self.tok {
            Tok::Int { value, .. } | Tok::Hex(value) => Some(value),
            _ => None,
        }
    }

    /// The number as a float (integers by their signed value).
    pub fn as_f64(&self) -> Option<f64> {
        match self.tok {
            Tok::Int { value, neg } => Some(if neg || value <= i64::MAX as u64 {
                value as i64 as f64
            } else {
                value as f64
            }),
            Tok::Hex(v) => Some(v as f64),
            Tok::Double(d) => Some(d),
            _ => None,
        }
    }

    /// What the token is, for error messages.
    pub fn describe(&self) -> String {
        match &self.tok {
            Tok::Eol => "the end of the line".into(),
            Tok::Eos => "the end of the script".into(),
            _ => format!("`{}`", self.text),
        }
    }
}

/// A `# lanescope: ...` comment: Lanescope's own settings, which amber ignores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsComment {
    pub line: usize,
    /// Column of the text after `lanescope:`.
    pub col: usize,
    pub text: String,
}

pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: usize,
    line_start: usize,
    pub settings: Vec<SettingsComment>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Self {
            src,
            pos: 0,
            line: 1,
            line_start: 0,
            settings: Vec::new(),
        }
    }

    fn col_of(&self, pos: usize) -> usize {
        self.src[self.line_start..pos].chars().count() + 1
    }

    /// Line and column of the next character.
    pub fn here(&self) -> (usize, usize) {
        (self.line, self.col_of(self.pos))
    }

    fn skip_blank(&mut self) {
        let b = self.src.as_bytes();
        while self.pos < b.len() && matches!(b[self.pos], b'\0' | b'\t' | b'\r' | 0x0c | b' ') {
            self.pos += 1;
        }
    }

    fn newline(&mut self) {
        self.pos += 1;
        self.line += 1;
        self.line_start = self.pos;
    }

    pub fn peek(&mut self) -> Token {
        let saved = (self.pos, self.line, self.line_start, self.settings.len());
        let t = self.next();
        (self.pos, self.line, self.line_start) = (saved.0, saved.1, saved.2);
        self.settings.truncate(saved.3);
        t
    }

    pub fn next(&mut self) -> Token {
        let b = self.src.as_bytes();
        self.skip_blank();
        if self.pos < b.len() && b[self.pos] == b'#' {
            let start = self.pos;
            while self.pos < b.len() && b[self.pos] != b'\n' {
                self.pos += 1;
            }
            let comment = &self.src[start + 1..self.pos];
            if let Some(rest) = comment.trim_start().strip_prefix("lanescope:") {
                let col = self.col_of(self.pos - rest.len());
                self.settings.push(SettingsComment {
                    line: self.line,
                    col,
                    text: rest.trim_end().to_string(),
                });
            }
            self.skip_blank();
        }
        let (line, col) = self.here();
        let mk = |tok, text: &str| Token {
            tok,
            line,
            col,
            text: text.to_string(),
        };
        if self.pos >= b.len() {
            return mk(Tok::Eos, "");
        }
        let c = b[self.pos];
        if c == b'\n' {
            self.newline();
            return mk(Tok::Eol, "\n");
        }
        if c == b'"' {
            return self.string(line, col);
        }
        if matches!(c, b',' | b'(' | b')') {
            self.pos += 1;
            let s = (c as char).to_string();
            return mk(Tok::Ident(s.clone()), &s);
        }
        let start = self.pos;
        let mut end = start;
        while end < b.len() && !matches!(b[end], b' ' | b'\t' | b'\r' | b'\n' | b')' | b',' | b'(')
        {
            end += 1;
        }
        let word = &self.src[start..end];
        let wb = word.as_bytes();
        let is_nan = word.eq_ignore_ascii_case("nan");
        let digit_at = |i: usize| wb.get(i).is_some_and(u8::is_ascii_digit);
        let numeric = is_nan
            || digit_at(0)
            || (wb[0] == b'-' && digit_at(1))
            || (wb[0] == b'.' && digit_at(1));
        if !numeric {
            self.pos = end;
            if word == "\\" && self.pos < b.len() {
                // A continuation: the statement goes on after the line break.
                if b[self.pos] == b'\n' {
                    self.newline();
                    return self.next();
                }
                if b[self.pos] == b'\r' && b.get(self.pos + 1) == Some(&b'\n') {
                    self.pos += 1;
                    self.newline();
                    return self.next();
                }
            }
            return mk(Tok::Ident(word.to_string()), word);
        }
        if word.len() > 2 && word.starts_with("0x") {
            self.pos = end;
            let hex: String = word[2..]
                .chars()
                .take_while(char::is_ascii_hexdigit)
                .collect();
            let v = u64::from_str_radix(&hex, 16).unwrap_or(u64::MAX);
            return mk(Tok::Hex(v), word);
        }
        let (tok, used) = if is_nan || word.contains('.') {
            let (v, n) = float_prefix(word);
            (Tok::Double(v), n)
        } else {
            let (value, n) = uint_prefix(word);
            (
                Tok::Int {
                    value,
                    neg: word.len() > 1 && wb[0] == b'-',
                },
                n,
            )
        };
        // The rest of the word (after the number) is read as the next token.
        self.pos = start + used.max(1).min(word.len());
        mk(tok, &word[..used.min(word.len())])
    }

    fn string(&mut self, line: usize, col: usize) -> Token {
        let b = self.src.as_bytes();
        self.pos += 1;
        let mut out = String::new();
        let mut escape = false;
        let start = self.pos;
        let mut chars = self.src[self.pos..].char_indices();
        let mut end = self.src.len();
        for (i, c) in chars.by_ref() {
            if escape {
                out.push(match c {
                    'a' => '\x07',
                    'b' => '\x08',
                    't' => '\t',
                    'n' => '\n',
                    'v' => '\x0b',
                    'f' => '\x0c',
                    'r' => '\r',
                    other => other,
                });
                escape = false;
                continue;
            }
            match c {
                '\\' => escape = true,
                '"' => {
                    end = start + i + 1;
                    break;
                }
                _ => out.push(c),
            }
        }
        // Newlines inside a string still count as lines.
        for (i, ch) in b[start..end.min(b.len())].iter().enumerate() {
            if *ch == b'\n' {
                self.line += 1;
                self.line_start = start + i + 1;
            }
        }
        self.pos = end;
        Token {
            text: self.src[start - 1..end].to_string(),
            tok: Tok::Str(out),
            line,
            col,
        }
    }

    /// The raw text from here to the next `END` (anywhere, as amber's `ExtractToNext`), and the
    /// line it starts on; the position moves to the `END`.
    pub fn extract_to_end(&mut self) -> Option<(String, usize)> {
        let at = self.src[self.pos..].find("END")?;
        let start_line = self.line;
        let text = &self.src[self.pos..self.pos + at];
        for (i, ch) in text.bytes().enumerate() {
            if ch == b'\n' {
                self.line += 1;
                self.line_start = self.pos + i + 1;
            }
        }
        self.pos += at;
        Some((text.to_string(), start_line))
    }
}

/// The longest prefix of `s` that C's `strtoull` reads, and its value (negative numbers
/// wrapped; overflow saturates as `strtoull` does).
fn uint_prefix(s: &str) -> (u64, usize) {
    let b = s.as_bytes();
    let (neg, mut i) = match b.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let digits_start = i;
    let mut v: u64 = 0;
    let mut overflow = false;
    while i < b.len() && b[i].is_ascii_digit() {
        match v
            .checked_mul(10)
            .and_then(|x| x.checked_add(u64::from(b[i] - b'0')))
        {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    if i == digits_start {
        return (0, 0);
    }
    let v = if overflow {
        u64::MAX
    } else if neg {
        v.wrapping_neg()
    } else {
        v
    };
    (v, i)
}

/// The longest prefix of `s` that C's `strtod` reads, and its value.
fn float_prefix(s: &str) -> (f64, usize) {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let lower = s[i..].to_ascii_lowercase();
    for word in ["infinity", "inf", "nan"] {
        if lower.starts_with(word) {
            let n = i + word.len();
            let v = if word == "nan" {
                f64::NAN
            } else {
                f64::INFINITY
            };
            return (if b.first() == Some(&b'-') { -v } else { v }, n);
        }
    }
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return (0.0, 0);
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    (s[..i].parse().unwrap_or(0.0), i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let mut lx = Lexer::new(s);
        let mut out = Vec::new();
        loop {
            let t = lx.next();
            if t.tok == Tok::Eos {
                return out;
            }
            out.push(t.tok);
        }
    }

    #[test]
    fn numbers_split_as_amber_reads_them() {
        let t = toks("1% -2 0x1F 1.5e-3 nan 7,a 1.0f");
        let int = |value: u64, neg| Tok::Int { value, neg };
        assert_eq!(t[0], int(1, false));
        assert_eq!(t[1], Tok::Ident("%".into()));
        assert_eq!(t[2], int((-2i64) as u64, true));
        assert_eq!(t[3], Tok::Hex(31));
        assert_eq!(t[4], Tok::Double(1.5e-3));
        assert!(matches!(t[5], Tok::Double(d) if d.is_nan()));
        assert_eq!(t[6], int(7, false));
        assert_eq!(t[7], Tok::Ident(",".into()));
        assert_eq!(t[8], Tok::Ident("a".into()));
        assert_eq!(t[9], Tok::Double(1.0));
        assert_eq!(t[10], Tok::Ident("f".into()));
    }

    #[test]
    fn comments_continuations_and_positions() {
        let mut lx = Lexer::new("A # c\n  B \\\n C\n# lanescope: subgroup-size=8\n\"x y\"");
        let a = lx.next();
        assert_eq!((a.line, a.col), (1, 1));
        assert_eq!(lx.next().tok, Tok::Eol);
        let b = lx.next();
        assert_eq!(
            (b.tok.clone(), b.line, b.col),
            (Tok::Ident("B".into()), 2, 3)
        );
        let c = lx.next();
        assert_eq!(
            (c.tok.clone(), c.line, c.col),
            (Tok::Ident("C".into()), 3, 2)
        );
        assert_eq!(lx.next().tok, Tok::Eol);
        assert_eq!(lx.next().tok, Tok::Eol);
        assert_eq!(lx.settings.len(), 1);
        assert_eq!(lx.settings[0].text.trim(), "subgroup-size=8");
        assert_eq!(lx.next().tok, Tok::Str("x y".into()));
    }

    #[test]
    fn raw_text_runs_to_the_next_end() {
        let mut lx = Lexer::new("S\nline one\nOpFunctionEnd\nEND x");
        lx.next();
        lx.next();
        let (text, line) = lx.extract_to_end().unwrap();
        assert_eq!((text.as_str(), line), ("line one\nOpFunctionEnd\n", 2));
        let end = lx.next();
        assert_eq!((end.is("END"), end.line), (true, 4));
    }
}
