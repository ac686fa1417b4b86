//! Compiles that can be stopped: GLSL goes to glslang, C++ that cannot be interrupted and that a
//! few lines of macros keep busy for hours (forty nested `#define`s expand to 2^40 tokens). So a
//! bounded compile runs the compiler in a child process, a *worker*, under a memory limit
//! (`RLIMIT_AS`, set by the worker on itself before it compiles) and a wall-clock limit after
//! which the parent kills it; either answers with an error naming the limit.
//!
//! The library cannot know which executable can serve as the worker, so the caller names it
//! ([`WorkerCommand`]): the `lanescope` binary passes itself with its hidden `compile-worker`
//! subcommand, which calls [`serve_compile_worker`]. Without a worker (the browser build, the
//! GUI tests, code that cannot start processes) the compile runs in-process as before, bounded
//! by nothing. WGSL goes to the worker too (naga can overflow its stack or take minutes on
//! hostile text); SPIR-V assembly always runs in-process (the core's assembler is linear).

use crate::compile::{compile, CompileError, CompileOptions, Compiled, Diagnostic};
use crate::Language;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The default compile time limit, seconds.
pub const DEFAULT_COMPILE_SECONDS: f64 = 10.0;
/// The default compile memory limit, MiB.
pub const DEFAULT_COMPILE_MEMORY_MIB: u64 = 1024;

/// How long a compile may run and how much memory its process may map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompileLimits {
    /// Wall-clock time the worker may take before it is killed.
    pub time: Duration,
    /// Bytes of address space for the whole worker process (its code and libraries included).
    pub memory: u64,
}

impl Default for CompileLimits {
    fn default() -> Self {
        Self {
            time: Duration::from_secs_f64(DEFAULT_COMPILE_SECONDS),
            memory: DEFAULT_COMPILE_MEMORY_MIB << 20,
        }
    }
}

/// The program (and its leading arguments) a bounded compile starts as its worker; it must call
/// [`serve_compile_worker`] with its standard input and output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The executable to start.
    pub program: PathBuf,
    /// Its arguments (for the `lanescope` binary, `compile-worker`).
    pub args: Vec<OsString>,
}

/// The largest reply a worker may send (a module of 64 MiB as JSON numbers, with room).
const MAX_REPLY_BYTES: u64 = 1 << 30;
/// How much of the worker's standard error is kept for the message.
const MAX_STDERR_BYTES: u64 = 16 << 10;

#[derive(serde::Serialize, serde::Deserialize)]
struct Request {
    language: Language,
    file_name: String,
    /// Address-space limit the worker sets on itself, bytes.
    memory: u64,
    source: String,
    /// The build settings (see [`CompileOptions`]); the target environment by its name.
    #[serde(default)]
    target_env: Option<String>,
    #[serde(default)]
    defines: Vec<(String, Option<String>)>,
    #[serde(default)]
    include_dirs: Vec<std::path::PathBuf>,
    #[serde(default)]
    source_dir: Option<std::path::PathBuf>,
    #[serde(default)]
    entry: Option<String>,
    #[serde(default)]
    include_files: Vec<(String, String)>,
    #[serde(default)]
    overrides: Vec<(String, f64)>,
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Reply {
    Compiled {
        words: Vec<u32>,
        warnings: Vec<Diagnostic>,
    },
    Failed {
        diagnostics: Vec<Diagnostic>,
    },
}

impl Request {
    fn new(
        language: Language,
        source: &str,
        opts: &CompileOptions,
        limits: &CompileLimits,
    ) -> Self {
        Self {
            language,
            file_name: opts.file_name.clone(),
            memory: limits.memory,
            source: source.to_owned(),
            target_env: opts.target_env.map(|t| t.name().to_string()),
            defines: opts.defines.clone(),
            include_dirs: opts.include_dirs.clone(),
            source_dir: opts.source_dir.clone(),
            entry: opts.entry.clone(),
            include_files: opts.include_files.clone(),
            overrides: opts.overrides.clone(),
        }
    }
}

impl Reply {
    fn into_result(self) -> Result<Compiled, CompileError> {
        match self {
            Reply::Compiled { words, warnings } => Ok(Compiled { words, warnings }),
            Reply::Failed { diagnostics } => Err(CompileError { diagnostics }),
        }
    }
}

impl From<Result<Compiled, CompileError>> for Reply {
    fn from(r: Result<Compiled, CompileError>) -> Self {
        match r {
            Ok(c) => Reply::Compiled {
                words: c.words,
                warnings: c.warnings,
            },
            Err(e) => Reply::Failed {
                diagnostics: e.diagnostics,
            },
        }
    }
}

/// Whether `language` goes to the worker: GLSL (glslang runs outside Rust's control) and WGSL
/// (naga overflows its stack on a long chain of operators, `1+1+...+1` 200000 times, and takes
/// minutes over 100000 statements).
fn needs_worker(language: Language) -> bool {
    matches!(language, Language::Glsl | Language::Hlsl | Language::Wgsl)
        && cfg!(not(target_arch = "wasm32"))
}

/// Compiles like [`compile`], GLSL in a `worker` process under `limits` (in-process when
/// `worker` is `None`: see the module's documentation).
pub fn compile_bounded(
    language: Language,
    source: &str,
    opts: &CompileOptions,
    limits: &CompileLimits,
    worker: Option<&WorkerCommand>,
) -> Result<Compiled, CompileError> {
    let never = std::sync::atomic::AtomicBool::new(false);
    compile_bounded_cancellable(language, source, opts, limits, worker, &never)
}

/// Like [`compile_bounded`], and a worker is stopped as soon as `cancel` is set (the app
/// abandons a compile of text that has changed since): the answer is then an error saying so.
pub fn compile_bounded_cancellable(
    language: Language,
    source: &str,
    opts: &CompileOptions,
    limits: &CompileLimits,
    worker: Option<&WorkerCommand>,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<Compiled, CompileError> {
    match worker {
        Some(w) if needs_worker(language) => run_worker(
            w,
            &Request::new(language, source, opts, limits),
            limits,
            cancel,
        ),
        _ => compile(language, source, opts),
    }
}

/// A worker's whole life: reads one request from `input`, limits its own memory as asked,
/// compiles and writes the reply to `output`. The `lanescope compile-worker` subcommand.
pub fn serve_compile_worker(
    mut input: impl std::io::Read,
    mut output: impl std::io::Write,
) -> Result<(), String> {
    let mut text = String::new();
    input
        .read_to_string(&mut text)
        .map_err(|e| format!("compile worker: cannot read the request: {e}"))?;
    let request: Request = serde_json::from_str(&text)
        .map_err(|e| format!("compile worker: not a compile request: {e}"))?;
    drop(text);
    crate::glsl::limit_memory(request.memory)?;
    let reply = answer(&request);
    serde_json::to_writer(&mut output, &reply)
        .map_err(|e| format!("compile worker: cannot write the reply: {e}"))?;
    output
        .flush()
        .map_err(|e| format!("compile worker: cannot write the reply: {e}"))
}

/// A compile request as the worker reads it (JSON): what the browser's page sends to its
/// compiler module (`web/glsl`), which answers with [`answer_compile_request`].
pub fn compile_request(
    language: Language,
    source: &str,
    opts: &CompileOptions,
    limits: &CompileLimits,
) -> String {
    serde_json::to_string(&Request::new(language, source, opts, limits)).unwrap_or_default()
}

/// Compiles a request ([`compile_request`]'s JSON) in this process and answers with the reply
/// as JSON ([`compile_reply`] reads it). No limits are set here: the caller bounds the compile
/// (the browser's page runs it in a Web Worker it stops at the time limit).
pub fn answer_compile_request(request: &str) -> String {
    let reply = match serde_json::from_str::<Request>(request) {
        Ok(r) => answer(&r),
        Err(e) => Err(CompileError::message(format!("not a compile request: {e}"))).into(),
    };
    serde_json::to_string(&reply).unwrap_or_default()
}

/// A reply's JSON ([`answer_compile_request`]) as the compile's result.
pub fn compile_reply(reply: &str) -> Result<Compiled, CompileError> {
    match serde_json::from_str::<Reply>(reply) {
        Ok(r) => r.into_result(),
        Err(e) => Err(CompileError::message(format!(
            "the compiler's answer could not be read: {e}"
        ))),
    }
}

fn answer(request: &Request) -> Reply {
    let target_env = match request
        .target_env
        .as_deref()
        .map(str::parse::<lanescope_core::spvtext::TargetEnv>)
    {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => return Err(CompileError::message(e.to_string())).into(),
    };
    let opts = CompileOptions {
        file_name: request.file_name.clone(),
        target_env,
        defines: request.defines.clone(),
        include_dirs: request.include_dirs.clone(),
        source_dir: request.source_dir.clone(),
        entry: request.entry.clone(),
        include_files: request.include_files.clone(),
        overrides: request.overrides.clone(),
    };
    compile(request.language, &request.source, &opts).into()
}

/// "GLSL" for messages.
fn what(language: Language) -> &'static str {
    match language {
        Language::Glsl => "GLSL",
        Language::Hlsl => "HLSL",
        Language::Wgsl => "WGSL",
        _ => "shader",
    }
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

fn run_worker(
    worker: &WorkerCommand,
    request: &Request,
    limits: &CompileLimits,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<Compiled, CompileError> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let lang = what(request.language);
    let body = serde_json::to_vec(request)
        .map_err(|e| CompileError::message(format!("cannot encode the compile request: {e}")))?;
    let mut child = Command::new(&worker.program)
        .args(&worker.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            CompileError::message(format!(
                "cannot start the {lang} compiler process `{}`: {e}",
                worker.program.display()
            ))
        })?;
    let started = std::time::Instant::now();
    // Threads feed and drain the pipes so neither side can block the other; the reader's
    // message says the worker closed its output (it is done, or dead).
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(s) = &mut stdin {
            // A worker that dies early closes the pipe: its exit status tells why.
            let _ = s.write_all(&body);
        }
    });
    let (tx, rx) = std::sync::mpsc::channel();
    if let Some(out) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let read = out.take(MAX_REPLY_BYTES + 1).read_to_end(&mut buf);
            let _ = tx.send(read.map(|_| buf));
        });
    }
    let stderr = child.stderr.take().map(|err| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut err = err;
            let _ = (&mut err).take(MAX_STDERR_BYTES).read_to_end(&mut kept);
            // The rest is drained so the worker never blocks on it.
            let _ = std::io::copy(&mut err, &mut std::io::sink());
            String::from_utf8_lossy(&kept).into_owned()
        })
    });
    // Waited for in short slices, so a cancelled compile stops at once.
    let reply = loop {
        let left = limits.time.saturating_sub(started.elapsed());
        match rx.recv_timeout(left.min(Duration::from_millis(25))) {
            Ok(r) => break Ok(r),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                if !left.is_zero() && !cancel.load(std::sync::atomic::Ordering::Relaxed) => {}
            Err(e) => break Err(e),
        }
    };
    if reply.is_err() && cancel.load(std::sync::atomic::Ordering::Relaxed) {
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join();
        return Err(CompileError::message(format!(
            "{lang} compile cancelled: the text changed"
        )));
    }
    // Closing its output is not exiting: the worker gets what is left of the time to do so.
    let status = match &reply {
        Ok(_) => loop {
            match child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if started.elapsed() < limits.time => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                _ => break None,
            }
        },
        Err(_) => None,
    };
    let Some(status) = status else {
        // Out of time: killed, and reaped so no zombie stays behind.
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join();
        return Err(CompileError::message(format!(
            "{lang} compile stopped after {}: the compile time limit (raise it in the Limits \
             menu, or with --compile-timeout on the command line)",
            seconds(limits.time)
        )));
    };
    let _ = writer.join();
    let err_text = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    let reply = match reply {
        Ok(Ok(buf)) if buf.len() as u64 <= MAX_REPLY_BYTES && status.success() => {
            serde_json::from_slice::<Reply>(&buf).ok()
        }
        _ => None,
    };
    match reply {
        Some(r) => r.into_result(),
        None => Err(CompileError::message(died(lang, status, &err_text, limits))),
    }
}

/// Why a worker gave no reply, in words: the memory limit when its last words (or the signal
/// that ended it) say an allocation failed, else its status and last words.
fn died(
    lang: &str,
    status: std::process::ExitStatus,
    stderr: &str,
    limits: &CompileLimits,
) -> String {
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    if stderr.contains("has overflowed its stack") {
        return format!(
            "the {lang} compiler ran out of stack: the source nests too deeply (a very long \
             expression?)"
        );
    }
    // glslang's `std::bad_alloc` reaches Rust as a foreign exception, which aborts.
    let out_of_memory = [
        "bad_alloc",
        "memory allocation",
        "out of memory",
        "memory exhausted",
        "cannot catch foreign exceptions",
    ]
    .iter()
    .any(|m| stderr.contains(m));
    if out_of_memory {
        return format!(
            "{lang} compile stopped at {} MiB: the compile memory limit (raise it in the Limits \
             menu, or with --compile-memory on the command line)",
            limits.memory >> 20
        );
    }
    format!(
        "the {lang} compiler process ended without an answer ({status}{}); it may have hit the \
         compile memory limit of {} MiB (the Limits menu, or --compile-memory)",
        last.map(|l| format!(": {}", l.trim())).unwrap_or_default(),
        limits.memory >> 20
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_replies_round_trip_through_json() {
        let request = Request {
            language: Language::Wgsl,
            file_name: "a.wgsl".into(),
            memory: 1 << 30,
            source: "@id(3) override N: u32 = 1u;\n@compute @workgroup_size(N) fn main() {}".into(),
            target_env: Some("vulkan1.2".into()),
            defines: vec![("N".into(), Some("1".into()))],
            include_dirs: vec!["inc".into()],
            source_dir: None,
            entry: None,
            include_files: vec![("a.h".into(), "// a\n".into())],
            overrides: vec![("3".into(), 7.0)],
        };
        let text = serde_json::to_string(&request).unwrap();
        let back: Request = serde_json::from_str(&text).unwrap();
        let reply = serde_json::to_string(&answer(&back)).unwrap();
        let Reply::Compiled { words, .. } = serde_json::from_str(&reply).unwrap() else {
            panic!("{reply}");
        };
        let direct = compile(
            Language::Wgsl,
            &request.source,
            &CompileOptions {
                file_name: "a.wgsl".into(),
                overrides: vec![("3".into(), 7.0)],
                ..CompileOptions::default()
            },
        )
        .unwrap();
        assert_eq!(words, direct.words);
    }

    #[test]
    fn a_missing_worker_is_an_error_naming_it() {
        let w = WorkerCommand {
            program: "/nonexistent/lanescope-worker".into(),
            args: Vec::new(),
        };
        let e = compile_bounded(
            Language::Glsl,
            "#version 450\nvoid main() {}\n",
            &CompileOptions::default(),
            &CompileLimits::default(),
            Some(&w),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("/nonexistent/lanescope-worker"),
            "{e}"
        );
    }
}
