//! The outcome of running a script: every `RUN` and `EXPECT` in script order, and one status.

use serde::Serialize;

/// How a script's run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every expectation held.
    Pass,
    /// Some expectation did not hold.
    Fail,
    /// The script needs something Lanescope does not simulate; `message` says what.
    Skip,
    /// The script could not be run: a syntax error, a shader that does not compile or load, a
    /// limit hit; `message` says which, naming the line.
    Error,
}

impl Status {
    /// The lowercase name the JSON uses (`pass`, `fail`, `skip`, `error`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::Skip => "skip",
            Self::Error => "error",
        }
    }
}

/// One executed `RUN`.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// The script line of the `RUN`.
    pub line: usize,
    /// The pipeline's name.
    pub pipeline: String,
    /// The attached shader's name.
    pub shader: String,
    /// Workgroups dispatched in x, y and z.
    pub workgroups: [u32; 3],
    /// The subgroup size it ran at (the pipeline's `REQUIRED_SIZE`, else the configured one).
    pub subgroup_size: u32,
    /// Simulator steps it took.
    pub steps: u64,
    /// The loader's and binder's warnings (`code: message`).
    pub warnings: Vec<String>,
    /// What the simulator flagged while running (`code: message`), e.g. undefined behaviour.
    pub diagnostics: Vec<String>,
    /// What the shader printed with debugPrintf, `[wg X,Y,Z inv N] text` per line in execution
    /// order (then how many the limit dropped).
    pub printf: Vec<String>,
}

/// One executed `EXPECT`.
#[derive(Clone, Debug, Serialize)]
pub struct ExpectReport {
    /// The script line of the `EXPECT`.
    pub line: usize,
    /// The name of the buffer checked.
    pub buffer: String,
    /// For `IDX` probes, the byte offset the script gives; for a failing buffer comparison,
    /// the byte offset of the first value that differs; for an image region probe, the byte
    /// offset of its first failing texel (of its first texel when it holds).
    pub index: Option<u64>,
    /// `EQ`, `NE`, `LT`, `LE`, `GT`, `GE`, `EQ_RGB`, `EQ_RGBA`, `EQ_BUFFER`, `RMSE_BUFFER` or
    /// `EQ_HISTOGRAM_EMD_BUFFER`.
    pub op: String,
    /// The expected values, formatted by the buffer's type.
    pub expected: String,
    /// The values found, formatted the same way.
    pub actual: String,
    /// The expectation held.
    pub pass: bool,
    /// Where a failing probe first differs (for the text rendering).
    #[serde(skip)]
    pub detail: Option<String>,
}

/// What running a script gave: its status, and each `RUN` and `EXPECT` executed.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// How the script ended.
    pub status: Status,
    /// Each `RUN` executed, in order (those in a `REPEAT` once per repetition).
    pub runs: Vec<RunReport>,
    /// Each `EXPECT` executed, in order; past `RunOptions::max_expect_reports` only the
    /// failing ones are kept (a note counts the others).
    pub expects: Vec<ExpectReport>,
    /// Why the script was skipped or stopped with an error, naming the line.
    pub message: Option<String>,
    /// Things the script asked for that were ignored.
    pub notes: Vec<String>,
}

impl Report {
    /// A report of `status`, with `message`, and nothing run.
    pub fn new(status: Status, message: Option<String>) -> Self {
        Self {
            status,
            runs: Vec::new(),
            expects: Vec::new(),
            message,
            notes: Vec::new(),
        }
    }

    /// The process exit status the CLI uses: pass 0, fail 1, error 1, skip 77 (the automake
    /// and meson convention for a skipped test).
    pub fn exit_code(&self) -> i32 {
        match self.status {
            Status::Pass => 0,
            Status::Fail | Status::Error => 1,
            Status::Skip => 77,
        }
    }

    /// The report as pretty-printed JSON (without the `detail`s).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// A human reading: the status, then the runs, the failing expectations in full, and
    /// what was ignored.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let passed = self.expects.iter().filter(|e| e.pass).count();
        let _ = writeln!(
            s,
            "{}: {} run{}, {passed} of {} expectation{} held",
            self.status.name().to_uppercase(),
            self.runs.len(),
            if self.runs.len() == 1 { "" } else { "s" },
            self.expects.len(),
            if self.expects.len() == 1 { "" } else { "s" },
        );
        if let Some(m) = &self.message {
            let _ = writeln!(s, "{m}");
        }
        for r in &self.runs {
            let [x, y, z] = r.workgroups;
            let _ = writeln!(
                s,
                "line {}: RUN {} {x} {y} {z} (shader `{}`, subgroup size {}): {} steps",
                r.line, r.pipeline, r.shader, r.subgroup_size, r.steps
            );
            for w in r.warnings.iter().chain(&r.diagnostics) {
                let _ = writeln!(s, "  {w}");
            }
            for p in &r.printf {
                let _ = writeln!(s, "  {p}");
            }
        }
        for e in self.expects.iter().filter(|e| !e.pass) {
            // A region probe says its region in `expected`.
            let probe = !e.op.ends_with("_BUFFER") && !e.op.starts_with("EQ_RGB");
            let at = match e.index {
                Some(i) if probe => format!(" IDX {i}"),
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "line {}: EXPECT {}{at} {} failed{}:\n  expected {}\n  actual   {}",
                e.line,
                e.buffer,
                e.op,
                e.detail
                    .as_ref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default(),
                e.expected,
                e.actual
            );
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
    }
}
