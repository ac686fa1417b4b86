//! Headless subcommands: the contract scripts and tests rely on.

use lanescope_core::program::Program;
use lanescope_core::{
    load, Bindings, Config, LoadOptions, Outcome, SiblingOrder, Simulator, SwitchTangles,
};
use std::collections::BTreeMap;
use std::sync::Arc;

pub const USAGE: &str = "\
usage: lanescope run SHADER.spv [--entry NAME] [--workgroups X,Y,Z] [--subgroup-size N]
           [--switch-tangles per-value|per-case]
           [--sibling-order lowest-lane|highest-lane|oldest|newest]
           [--spec ID=VALUE]... [--push FILE] [--buffer SET:BINDING=FILE]...
           [--out SET:BINDING=FILE]... [--max-steps N] [--max-memory MIB]
           [--max-trace-steps N] [--max-invocations N] [--max-buffer-memory MIB]
           [--json] [--trace FILE]
           [--coopmat-layout nvidia|amd-rdna3|portable|FILE.json] [--portability]
           (--portability: run under every cooperative-matrix layout that supports the
            shader and report buffers whose final contents differ)
       lanescope example [NAME]      run a built-in example and print its summary
       lanescope --help";

/// A command-line failure: usage errors exit 2, everything else 1.
pub enum CliError {
    Usage(String),
    Failed(String),
}

impl From<std::fmt::Error> for CliError {
    fn from(e: std::fmt::Error) -> Self {
        Self::Failed(e.to_string())
    }
}

#[derive(Debug)]
pub struct RunArgs {
    pub shader: String,
    pub entry: Option<String>,
    pub workgroups: [u32; 3],
    pub subgroup_size: u32,
    pub switch_tangles: SwitchTangles,
    pub sibling_order: SiblingOrder,
    pub spec: Vec<(u32, String)>,
    pub push: Option<String>,
    pub buffers: Vec<(u32, u32, String)>,
    pub outs: Vec<(u32, u32, String)>,
    pub max_steps: u64,
    pub max_memory_mib: u64,
    pub max_trace_steps: usize,
    pub max_invocations: u32,
    pub max_buffer_memory_mib: u64,
    pub json: bool,
    pub trace: Option<String>,
    /// `--coopmat-layout`: a built-in layout name or a JSON table file.
    pub coopmat_layout: Option<String>,
    pub portability: bool,
}

pub const DEFAULT_MAX_STEPS: u64 = 20_000_000;

fn usage(msg: impl Into<String>) -> CliError {
    CliError::Usage(msg.into())
}

fn parse_u32(s: &str, what: &str) -> Result<u32, CliError> {
    let v = if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16)
    } else {
        s.parse()
    };
    v.map_err(|_| usage(format!("{what}: `{s}` is not a number")))
}

fn parse_set_binding(s: &str, flag: &str) -> Result<(u32, u32, String), CliError> {
    let (sb, file) = s
        .split_once('=')
        .ok_or_else(|| usage(format!("{flag} wants SET:BINDING=FILE, got `{s}`")))?;
    let (set, binding) = sb
        .split_once(':')
        .ok_or_else(|| usage(format!("{flag} wants SET:BINDING=FILE, got `{s}`")))?;
    Ok((
        parse_u32(set, flag)?,
        parse_u32(binding, flag)?,
        file.to_string(),
    ))
}

pub fn parse_run(args: &[String]) -> Result<RunArgs, CliError> {
    let mut it = args.iter();
    let mut shader = None;
    let mut a = RunArgs {
        shader: String::new(),
        entry: None,
        workgroups: [1, 1, 1],
        subgroup_size: 32,
        switch_tangles: SwitchTangles::PerValue,
        sibling_order: SiblingOrder::LowestLane,
        spec: Vec::new(),
        push: None,
        buffers: Vec::new(),
        outs: Vec::new(),
        max_steps: DEFAULT_MAX_STEPS,
        max_memory_mib: 1024,
        max_trace_steps: 5_000_000,
        max_invocations: Config::default().max_invocations,
        max_buffer_memory_mib: Config::default().max_buffer_memory >> 20,
        json: false,
        trace: None,
        coopmat_layout: None,
        portability: false,
    };
    while let Some(arg) = it.next() {
        let mut val = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| usage(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--entry" => a.entry = Some(val("--entry")?),
            "--workgroups" => {
                let v = val("--workgroups")?;
                let parts: Vec<&str> = v.split(',').collect();
                if parts.is_empty() || parts.len() > 3 {
                    return Err(usage(format!("--workgroups wants X,Y,Z, got `{v}`")));
                }
                for (k, p) in parts.iter().enumerate() {
                    a.workgroups[k] = parse_u32(p, "--workgroups")?;
                }
            }
            "--subgroup-size" => {
                a.subgroup_size = parse_u32(&val("--subgroup-size")?, "--subgroup-size")?
            }
            "--switch-tangles" => {
                a.switch_tangles = match val("--switch-tangles")?.as_str() {
                    "per-value" => SwitchTangles::PerValue,
                    "per-case" => SwitchTangles::PerCase,
                    other => {
                        return Err(usage(format!(
                            "--switch-tangles: `{other}` is not per-value or per-case"
                        )))
                    }
                }
            }
            "--sibling-order" => {
                a.sibling_order = match val("--sibling-order")?.as_str() {
                    "lowest-lane" => SiblingOrder::LowestLane,
                    "highest-lane" => SiblingOrder::HighestLane,
                    "oldest" => SiblingOrder::Oldest,
                    "newest" => SiblingOrder::Newest,
                    other => {
                        return Err(usage(format!(
                    "--sibling-order: `{other}` is not lowest-lane, highest-lane, oldest or newest"
                )))
                    }
                }
            }
            "--spec" => {
                let v = val("--spec")?;
                let (id, value) = v
                    .split_once('=')
                    .ok_or_else(|| usage(format!("--spec wants ID=VALUE, got `{v}`")))?;
                a.spec.push((parse_u32(id, "--spec")?, value.to_string()));
            }
            "--push" => a.push = Some(val("--push")?),
            "--buffer" => a
                .buffers
                .push(parse_set_binding(&val("--buffer")?, "--buffer")?),
            "--out" => a.outs.push(parse_set_binding(&val("--out")?, "--out")?),
            "--max-steps" => {
                let v = val("--max-steps")?;
                a.max_steps = v
                    .parse()
                    .map_err(|_| usage(format!("--max-steps: `{v}` is not a number")))?;
            }
            "--max-memory" => {
                let v = val("--max-memory")?;
                a.max_memory_mib = v
                    .parse()
                    .map_err(|_| usage(format!("--max-memory: `{v}` is not a number of MiB")))?;
            }
            "--max-trace-steps" => {
                let v = val("--max-trace-steps")?;
                a.max_trace_steps = v
                    .parse()
                    .map_err(|_| usage(format!("--max-trace-steps: `{v}` is not a number")))?;
            }
            "--max-invocations" => {
                let v = val("--max-invocations")?;
                a.max_invocations = v
                    .parse()
                    .map_err(|_| usage(format!("--max-invocations: `{v}` is not a number")))?;
            }
            "--max-buffer-memory" => {
                let v = val("--max-buffer-memory")?;
                a.max_buffer_memory_mib = v.parse().map_err(|_| {
                    usage(format!("--max-buffer-memory: `{v}` is not a number of MiB"))
                })?;
            }
            "--json" => a.json = true,
            "--trace" => a.trace = Some(val("--trace")?),
            "--coopmat-layout" => a.coopmat_layout = Some(val("--coopmat-layout")?),
            "--portability" => a.portability = true,
            s if s.starts_with("--") => return Err(usage(format!("unknown option `{s}`"))),
            s => {
                if shader.replace(s.to_string()).is_some() {
                    return Err(usage(format!("more than one shader given (`{s}`)")));
                }
            }
        }
    }
    a.shader = shader.ok_or_else(|| usage("no shader given"))?;
    Ok(a)
}

/// Parse `--spec` values with the constant's own type.
fn spec_value(prog: &Program, id: u32, text: &str) -> Result<u64, CliError> {
    use lanescope_core::value::{parse_float, ScalarTy};
    let info = prog.spec_constants.iter().find(|s| s.spec_id == id).ok_or_else(|| {
        let ids: Vec<String> = prog.spec_constants.iter().map(|s| format!("{} ({})", s.spec_id, s.name)).collect();
        CliError::Failed(format!("--spec {id}: the shader has no specialization constant with that SpecId (it has: {})", if ids.is_empty() { "none".into() } else { ids.join(", ") }))
    })?;
    let bad = || {
        CliError::Failed(format!(
            "--spec {id}={text}: not a valid {:?} value",
            info.ty
        ))
    };
    Ok(match info.ty {
        ScalarTy::Bool => match text {
            "true" | "1" => 1,
            "false" | "0" => 0,
            _ => return Err(bad()),
        },
        // Rounded once from the decimal text to the constant's own format.
        ScalarTy::Float { .. } | ScalarTy::BFloat16 => {
            parse_float(info.ty, text).ok_or_else(bad)?
        }
        ScalarTy::Int { .. } => {
            if let Some(h) = text.strip_prefix("0x") {
                u64::from_str_radix(h, 16).map_err(|_| bad())?
            } else if text.starts_with('-') {
                text.parse::<i64>().map_err(|_| bad())? as u64
            } else {
                text.parse::<u64>().map_err(|_| bad())?
            }
        }
    })
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
    run_bytes(a, &bytes)
}

pub fn run_bytes(a: &RunArgs, bytes: &[u8]) -> Result<String, CliError> {
    let fail = |e: &dyn std::fmt::Display| CliError::Failed(format!("{}: {e}", a.shader));
    let coopmat_layout = match &a.coopmat_layout {
        Some(name) => lanescope_core::coopmat::parse_layout(name, |f| {
            std::fs::read_to_string(f).map_err(|e| format!("cannot read layout `{f}`: {e}"))
        })
        .map_err(CliError::Failed)?,
        None => lanescope_core::coopmat::LayoutChoice::default(),
    };
    let mut opts = LoadOptions {
        entry: a.entry.clone(),
        spec: BTreeMap::new(),
        coopmat_layout,
        subgroup_size: Some(a.subgroup_size),
    };
    // The portability check lays the shader out several ways; read its specialization
    // constants with the layout that supports every shape.
    let first = if a.portability {
        LoadOptions {
            coopmat_layout: lanescope_core::coopmat::LayoutChoice::Portable,
            ..opts.clone()
        }
    } else {
        opts.clone()
    };
    let mut prog = load(bytes, &first).map_err(|e| fail(&e))?;
    if !a.spec.is_empty() {
        for (id, text) in &a.spec {
            opts.spec.insert(*id, spec_value(&prog, *id, text)?);
        }
        if !a.portability {
            prog = load(bytes, &opts).map_err(|e| fail(&e))?;
        }
    }
    let mut bindings = Bindings::default();
    let buffer_limit = a.max_buffer_memory_mib.saturating_mul(1 << 20);
    let raise = " (raise it with --max-buffer-memory, in MiB)";
    for (set, binding, file) in &a.buffers {
        bindings
            .buffers
            .push((*set, *binding, read(file, "buffer", buffer_limit, raise)?));
    }
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
        ..Config::default()
    };
    if a.portability {
        let layouts: Vec<_> = match &a.coopmat_layout {
            Some(_)
                if !lanescope_core::coopmat::LayoutChoice::builtin()
                    .contains(&opts.coopmat_layout) =>
            {
                let mut v = lanescope_core::coopmat::LayoutChoice::builtin();
                v.push(opts.coopmat_layout.clone());
                v
            }
            _ => Vec::new(),
        };
        let report = lanescope_core::coopmat::portability::check(
            bytes,
            &opts,
            &cfg,
            &bindings,
            a.max_steps,
            &layouts,
        );
        return Ok(crate::report::portability(&report, &a.shader, a.json));
    }
    let prog = Arc::new(prog);
    let mut sim = Simulator::new(Arc::clone(&prog), cfg, &bindings).map_err(|e| fail(&e))?;
    let outcome = sim.run(a.max_steps).map_err(|e| fail(&e))?;
    if outcome == Outcome::Budget {
        return Err(CliError::Failed(format!(
            "{}: stopped after {} steps without finishing (an infinite loop?); raise the limit with --max-steps",
            a.shader, a.max_steps
        )));
    }
    for (set, binding, file) in &a.outs {
        let data = sim.buffer(*set, *binding).ok_or_else(|| {
            CliError::Failed(format!(
                "--out {set}:{binding}: the shader has no buffer there"
            ))
        })?;
        std::fs::write(file, data)
            .map_err(|e| CliError::Failed(format!("cannot write `{file}`: {e}")))?;
    }
    if let Some(t) = &a.trace {
        let doc = crate::report::trace_json(&sim);
        std::fs::write(t, doc)
            .map_err(|e| CliError::Failed(format!("cannot write trace `{t}`: {e}")))?;
    }
    if a.json {
        Ok(crate::report::summary_json(&sim))
    } else {
        Ok(crate::report::summary_text(&sim))
    }
}
