//! The command line: the GUI (a file or a permalink) and the headless subcommands scripts and
//! tests rely on. Parsed with clap; usage errors exit 2, failures 1.

mod args;
pub mod gpu;

use crate::examples::{example_bindings, DEFAULT_EXAMPLE, EXAMPLES};
pub use args::{parse_run, BufferArg, Cli, Command, ImageArg, RunArgs, SlotFile};
use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::{
    load, Bindings, Config, Limit, LoadError, LoadOptions, Outcome, RunError, Simulator, SpecValue,
};
use lanescope_front::{amber, Language};
use std::sync::Arc;

/// A command-line failure: usage errors exit 2, everything else 1; `Exit` prints its text on
/// stdout and exits with its status (an AmberScript's 1 or 77).
#[derive(Debug)]
pub enum CliError {
    Usage(String),
    Failed(String),
    Exit(i32, String),
    /// Errors in a source or assembly text, each already `file:line:col: message`, printed as
    /// they are (the form editors and compilers use); exit 1.
    Source(String),
}

impl From<std::fmt::Error> for CliError {
    fn from(e: std::fmt::Error) -> Self {
        Self::Failed(e.to_string())
    }
}

/// How to raise a limit from the command line.
fn raise_hint(limit: Limit) -> &'static str {
    match limit {
        Limit::Invocations => "raise it with --max-invocations",
        Limit::Memory => "raise it with --max-memory, in MiB",
        Limit::BufferMemory => "raise it with --max-buffer-memory, in MiB",
    }
}

/// A run error as the command line words it: limits say which flag raises them.
fn run_error(shader: &str, e: &RunError) -> CliError {
    match e.limit() {
        Some(l) => CliError::Failed(format!("{shader}: {e} ({})", raise_hint(l))),
        None => CliError::Failed(format!("{shader}: {e}")),
    }
}

fn load_error(shader: &str, e: &LoadError) -> CliError {
    let hint = match e {
        LoadError::EntryPoint { what } if what.starts_with("several") => " (pick one with --entry)",
        LoadError::Unsupported { what, .. } if what.starts_with("layout `") => {
            " (--coopmat-layout chooses the layout)"
        }
        _ => "",
    };
    CliError::Failed(format!("{shader}: {e}{hint}"))
}

/// Warnings go to stderr (and, with `--json`, into the summary).
fn print_warnings(warnings: &[lanescope_core::Warning]) {
    for w in warnings {
        eprintln!("{w}");
    }
}

/// Reads a whole file, refusing (before reading) one larger than `limit` bytes.
fn read(path: &str, what: &str, limit: u64, raise: &str) -> Result<Vec<u8>, CliError> {
    let failed = |e: std::io::Error| CliError::Failed(format!("cannot read {what} `{path}`: {e}"));
    let len = std::fs::metadata(path).map_err(failed)?.len();
    if len > limit {
        return Err(CliError::Failed(format!(
            "{what} `{path}` is {} KiB; the limit is {} KiB{raise}",
            len.div_ceil(1024),
            limit >> 10
        )));
    }
    std::fs::read(path).map_err(failed)
}

/// Load, run and report. Returns what to print on stdout.
pub fn run(a: &RunArgs) -> Result<String, CliError> {
    let bytes = read(
        &a.shader,
        "shader",
        lanescope_core::load::MAX_MODULE_BYTES as u64,
        " (the largest module Lanescope loads)",
    )?;
    let language = Language::from_path(&a.shader)
        .or_else(|| Language::sniff(&bytes))
        .unwrap_or(Language::SpirvBinary);
    if !a.overrides.is_empty() && language != Language::Wgsl {
        return Err(CliError::Failed(format!(
            "--override gives WGSL overrides their values, and `{}` is {}: specialization constants take --spec ID=VALUE",
            a.shader,
            language.name()
        )));
    }
    match language {
        Language::SpirvBinary => run_bytes(a, &bytes),
        Language::Amber => run_amber(a, &bytes),
        Language::SpirvAsm | Language::Wgsl | Language::Glsl | Language::Hlsl => {
            let module = compile_source(a, &bytes, language)?;
            run_bytes(a, &module)
        }
    }
}

/// The compile limits `--compile-timeout` and `--compile-memory` set.
fn compile_limits(a: &RunArgs) -> lanescope_front::CompileLimits {
    lanescope_front::CompileLimits {
        time: std::time::Duration::from_secs_f64(a.compile_timeout),
        memory: a.compile_memory_mib.saturating_mul(1 << 20),
    }
}

/// Compiles a source file (GLSL in the compile worker, under the limits); errors as
/// `file:line:col: message` with the line.
fn compile_source(a: &RunArgs, bytes: &[u8], language: Language) -> Result<Vec<u8>, CliError> {
    let path = a.shader.as_str();
    let limits = &compile_limits(a);
    let text = std::str::from_utf8(bytes)
        .map_err(|e| CliError::Failed(format!("{path}: not UTF-8 text: {e}")))?;
    let file_name = std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |f| f.to_string_lossy().into_owned());
    let source_dir = std::path::Path::new(path)
        .parent()
        .map(|d| {
            if d.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                d
            }
        })
        .map(std::path::Path::to_path_buf);
    let opts = lanescope_front::CompileOptions {
        file_name,
        target_env: a.target_env,
        defines: a.defines.clone(),
        include_dirs: a.include_dirs.clone(),
        source_dir,
        entry: (language == Language::Hlsl)
            .then(|| a.entry.clone())
            .flatten(),
        include_files: Vec::new(),
        overrides: a.overrides.clone(),
    };
    match lanescope_front::compile_bounded(language, text, &opts, limits, crate::compile_worker()) {
        Ok(c) => {
            for w in &c.warnings {
                eprintln!("{path}:{w}");
            }
            Ok(c.bytes())
        }
        Err(e) => Err(CliError::Source(e.render(path, text))),
    }
}

/// `lanescope dis`.
pub fn dis(file: &str, raw_id: bool, out: Option<&str>) -> Result<String, CliError> {
    let bytes = read(
        file,
        "module",
        lanescope_core::load::MAX_MODULE_BYTES as u64,
        "",
    )?;
    if bytes.len() % 4 != 0 {
        return Err(CliError::Failed(format!(
            "{file}: {} bytes is not a whole number of 32-bit words",
            bytes.len()
        )));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let opts = lanescope_core::spvtext::DisOptions {
        raw_id,
        ..Default::default()
    };
    let text = lanescope_core::spvtext::disassemble(&words, &opts)
        .map_err(|e| CliError::Failed(format!("{file}: {e}")))?;
    match out {
        Some(o) => {
            std::fs::write(o, text)
                .map_err(|e| CliError::Failed(format!("cannot write `{o}`: {e}")))?;
            Ok(String::new())
        }
        None => Ok(text),
    }
}

/// `lanescope asm`.
pub fn asm(
    file: &str,
    out: &str,
    preserve_numeric_ids: bool,
    target_env: Option<lanescope_core::spvtext::TargetEnv>,
    source_lines: bool,
) -> Result<String, CliError> {
    let bytes = read(file, "assembly", 256 << 20, "")?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| CliError::Failed(format!("{file}: not UTF-8 text: {e}")))?;
    let opts = lanescope_core::spvtext::AsmOptions {
        preserve_numeric_ids,
        target_env,
        source_file: source_lines.then(|| file.to_string()),
    };
    let words = lanescope_core::spvtext::assemble(text, &opts)
        .map_err(|e| CliError::Source(format!("{file}:{e}")))?;
    let module: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(out, module)
        .map_err(|e| CliError::Failed(format!("cannot write `{out}`: {e}")))?;
    Ok(String::new())
}

/// The compilers an AmberScript's shaders go through on the command line: SPIR-V assembly by
/// Lanescope's assembler, GLSL by glslang under the compile limits; files named by the script
/// read beside it.
struct ScriptCompiler {
    dir: std::path::PathBuf,
    limits: lanescope_front::CompileLimits,
}

impl amber::Compile for ScriptCompiler {
    fn compile(
        &self,
        format: amber::ShaderFormat,
        source: &str,
        target_env: Option<&str>,
        name: &str,
    ) -> Result<Vec<u32>, amber::CompileError> {
        // GLSL in the compile worker, as for a source file.
        let bounded = lanescope_front::Bounded {
            limits: self.limits,
            worker: crate::compile_worker(),
        };
        bounded.compile(format, source, target_env, name)
    }

    fn read_file(&self, path: &str) -> Option<Result<Vec<u8>, String>> {
        let p = self.dir.join(path);
        Some(std::fs::read(&p).map_err(|e| format!("cannot read `{}`: {e}", p.display())))
    }
}

/// Runs an AmberScript: every pipeline run in order, every expectation checked.
fn run_amber(a: &RunArgs, bytes: &[u8]) -> Result<String, CliError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| CliError::Failed(format!("{}: not UTF-8 text: {e}", a.shader)))?;
    let coopmat_layout = match &a.coopmat_layout {
        Some(name) => lanescope_core::coopmat::parse_layout(name, |f| {
            std::fs::read_to_string(f).map_err(|e| format!("cannot read layout `{f}`: {e}"))
        })
        .map_err(CliError::Failed)?,
        None => LayoutChoice::default(),
    };
    let opts = amber::RunOptions {
        config: Config {
            subgroup_size: a.subgroup_size,
            switch_tangles: a.switch_tangles,
            sibling_order: a.sibling_order,
            schedule: a.schedule,
            max_memory: a.max_memory_mib.saturating_mul(1 << 20),
            max_invocations: a.max_invocations,
            max_buffer_memory: a.max_buffer_memory_mib.saturating_mul(1 << 20),
            max_printf_lines: a.max_printf_lines,
            detectors: !a.no_detectors,
            ..Config::default()
        },
        max_steps: a.max_steps,
        coopmat_layout,
        ..amber::RunOptions::default()
    };
    let dir = std::path::Path::new(&a.shader)
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let report = amber::run_text(
        text,
        &ScriptCompiler {
            dir,
            limits: compile_limits(a),
        },
        &opts,
    );
    let mut out = if a.json {
        report.to_json()
    } else {
        report.to_text()
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    match report.exit_code() {
        0 => Ok(out),
        code => Err(CliError::Exit(code, out)),
    }
}

pub fn run_bytes(a: &RunArgs, bytes: &[u8]) -> Result<String, CliError> {
    if a.gpu && a.portability {
        return Err(CliError::Usage(
            "--gpu and --portability are separate reports: give one".into(),
        ));
    }
    if a.gpu {
        // The simulation runs with the subgroup size the device runs.
        let (size, _) = gpu::subgroup_size(a)?;
        if size != a.subgroup_size {
            let mut sized = a.clone();
            sized.subgroup_size = size;
            return run_module(&sized, bytes);
        }
    }
    run_module(a, bytes)
}

fn run_module(a: &RunArgs, bytes: &[u8]) -> Result<String, CliError> {
    let coopmat_layout = match &a.coopmat_layout {
        Some(name) => lanescope_core::coopmat::parse_layout(name, |f| {
            std::fs::read_to_string(f).map_err(|e| format!("cannot read layout `{f}`: {e}"))
        })
        .map_err(CliError::Failed)?,
        None => LayoutChoice::default(),
    };
    let mut opts = LoadOptions {
        entry: a.entry.clone(),
        spec: a
            .spec
            .iter()
            .map(|(id, text)| (*id, SpecValue::Text(text.clone())))
            .collect(),
        coopmat_layout,
        subgroup_size: Some(a.subgroup_size),
    };
    if a.gpu {
        // Beside the device, its own layout (measured by a probe, kept per device).
        if let Some(l) = gpu::measured_layout(a, bytes, &opts)? {
            opts.coopmat_layout = l;
        }
    }
    let mut bindings = Bindings::default();
    let buffer_limit = a.max_buffer_memory_mib.saturating_mul(1 << 20);
    let raise = " (raise it with --max-buffer-memory, in MiB)";
    for b in &a.buffers {
        match b {
            BufferArg::File {
                set,
                binding,
                element,
                path,
            } => {
                let data = read(path, "buffer", buffer_limit, raise)?;
                match element {
                    0 => bindings.buffers.push((*set, *binding, data)),
                    e => bindings.elements.push((*set, *binding, *e, data)),
                }
            }
            BufferArg::Shared(alias) => bindings.aliases.push(*alias),
        }
    }
    for &((set, binding, element), addr) in &a.addresses {
        match element {
            0 => bindings.addresses.push((set, binding, addr)),
            e => bindings.element_addresses.push((set, binding, e, addr)),
        }
    }
    for ((set, binding, element), path, format, extent, samples) in &a.images {
        let desc = lanescope_core::program::image::ImageDesc {
            format: *format,
            extent: *extent,
            samples: *samples,
        };
        let data = read(path, "image", buffer_limit, raise)?;
        if data.len() as u64 != desc.bytes() {
            return Err(CliError::Failed(format!(
                "the image `{path}` for set {set} binding {binding} has {} bytes; {}x{}x{} texels of {} need {}",
                data.len(),
                extent[0],
                extent[1],
                extent[2],
                format.name,
                desc.bytes()
            )));
        }
        bindings.images.push(lanescope_core::ImageBinding {
            set: *set,
            binding: *binding,
            element: *element,
            desc,
            data,
        });
    }
    bindings.samplers.clone_from(&a.samplers);
    if let Some(p) = &a.push {
        bindings.push_constants = read(p, "push constants", buffer_limit, raise)?;
    }
    let cfg = Config {
        subgroup_size: a.subgroup_size,
        workgroups: a.workgroups,
        switch_tangles: a.switch_tangles,
        sibling_order: a.sibling_order,
        record_trace: a.trace.is_some(),
        max_memory: a.max_memory_mib.saturating_mul(1 << 20),
        max_trace_steps: a.max_trace_steps,
        max_invocations: a.max_invocations,
        max_buffer_memory: buffer_limit,
        only_workgroups: a.only_workgroups.clone(),
        schedule: a.schedule,
        detectors: !a.no_detectors,
        max_printf_lines: a.max_printf_lines,
        ..Config::default()
    };
    if a.portability {
        let layouts: Vec<_> = match &a.coopmat_layout {
            Some(_) if !LayoutChoice::builtin().contains(&opts.coopmat_layout) => {
                let mut v = LayoutChoice::builtin();
                v.push(opts.coopmat_layout.clone());
                v
            }
            _ => Vec::new(),
        };
        let report = lanescope_core::portability::check(
            bytes,
            &opts,
            &cfg,
            &bindings,
            a.max_steps,
            &layouts,
        );
        print_warnings(&report.warnings);
        return Ok(crate::report::portability(&report, &a.shader, a.json));
    }
    let prog = Arc::new(load(bytes, &opts).map_err(|e| load_error(&a.shader, &e))?);
    let mut sim = Simulator::new(Arc::clone(&prog), cfg.clone(), &bindings)
        .map_err(|e| run_error(&a.shader, &e))?;
    print_warnings(sim.warnings());
    let threads = match a.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let outcome = sim
        .run_threads(a.max_steps, threads)
        .map_err(|e| run_error(&a.shader, &e))?;
    if outcome == Outcome::Budget {
        return Err(CliError::Failed(format!(
            "{}: stopped after {} steps without finishing (an infinite loop?); raise the limit with --max-steps",
            a.shader, a.max_steps
        )));
    }
    for (set, binding, element, file) in &a.outs {
        let data = sim
            .buffer_element(*set, *binding, *element)
            .ok_or_else(|| {
                let at = match element {
                    0 => format!("{set}:{binding}"),
                    e => format!("{set}:{binding}[{e}]"),
                };
                CliError::Failed(format!("--out {at}: no buffer is bound there"))
            })?;
        std::fs::write(file, data)
            .map_err(|e| CliError::Failed(format!("cannot write `{file}`: {e}")))?;
    }
    if let Some(t) = &a.trace {
        crate::report::write_trace(&sim, t)
            .map_err(|e| CliError::Failed(format!("cannot write trace `{t}`: {e}")))?;
    }
    let exploration = a.explore.map(|n| {
        let c = Config {
            record_trace: false,
            ..sim.config().clone()
        };
        lanescope_core::explore::explore(&prog, &c, &bindings, n, a.max_steps)
    });
    let on_gpu = if a.gpu {
        Some(gpu::compare(a, bytes, &opts, &prog, &cfg, &bindings, &sim)?)
    } else {
        None
    };
    // debugPrintf lines: to their file, or before the text summary (the JSON summary has them).
    let printed = crate::report::printf_text(&sim);
    if let Some(f) = &a.printf {
        std::fs::write(f, &printed)
            .map_err(|e| CliError::Failed(format!("cannot write `{f}`: {e}")))?;
    }
    if a.json {
        Ok(crate::report::summary_json_with(
            &sim,
            exploration.as_ref(),
            on_gpu.as_ref().map(|c| serde_json::json!(c)),
        ))
    } else {
        let mut out = if a.printf.is_none() {
            printed
        } else {
            String::new()
        };
        out.push_str(&crate::report::summary_text(&sim));
        if let Some(x) = &exploration {
            out.push_str(&crate::report::exploration_text(x));
        }
        if let Some(c) = &on_gpu {
            out.push_str(&gpu::text(c));
        }
        Ok(out)
    }
}

/// `lanescope example [NAME]`: a built-in example run to the end, reported as `run` reports.
pub fn run_example(name: Option<&str>, on_gpu: bool) -> Result<String, CliError> {
    let name = name.unwrap_or(DEFAULT_EXAMPLE);
    let Some((_, bytes, _)) = EXAMPLES.iter().find(|e| e.0 == name) else {
        let all: Vec<&str> = EXAMPLES.iter().map(|e| e.0).collect();
        return Err(CliError::Usage(format!(
            "no example named `{name}`; built in: {}",
            all.join(", ")
        )));
    };
    let prog = load(bytes, &LoadOptions::default())
        .map_err(|e| CliError::Failed(format!("example {name}: {e}")))?;
    let cfg = Config::default();
    let bindings = example_bindings(&prog, cfg.max_buffer_memory)
        .map_err(|e| CliError::Failed(format!("example {name}: {e}")))?;
    let mut sim = Simulator::new(Arc::new(prog), cfg.clone(), &bindings)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    sim.run(lanescope_core::DEFAULT_MAX_STEPS)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    let mut out = format!("example {name}\n{}", crate::report::summary_text(&sim));
    if on_gpu {
        let c = lanescope_gpu::beside(&lanescope_gpu::Request {
            module: bytes.to_vec(),
            load: LoadOptions::default(),
            cfg,
            bindings,
            device: 0,
            schedules: 8,
            max_steps: lanescope_core::DEFAULT_MAX_STEPS,
        })
        .map_err(|e| CliError::Failed(format!("--gpu: {e}")))?;
        out.push_str(&gpu::text(&c));
    }
    Ok(out)
}
