//! The command line's grammar (clap) and its value parsers: every flag checked as it is read, so
//! a bad value is a usage error naming the flag.

use super::CliError;
use clap::{Args, Parser, Subcommand};
use lanescope_core::{
    BufferAlias, Config, NamedSetting, Schedule, SiblingOrder, SwitchTangles, DEFAULT_MAX_STEPS,
};

/// Watch SPIR-V subgroups execute: tangles, rotates, cooperative matrices, integer dot products.
///
/// With no command, `lanescope` opens the GUI on its built-in example; `lanescope FILE` opens a
/// module or a source (`.spv`, `.spvasm`, `.wgsl`, `.comp`/`.glsl`, `.amber`) in the editor, and `lanescope '#example=loop_divergent&sg=16&step=120'` (or a whole address
/// holding such a fragment) opens a permalink the app's "Copy link" made. Where no file
/// dialog can be shown (no desktop portal), drop a file on the window or pass it here.
#[derive(Parser, Debug)]
#[command(name = "lanescope", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A module to open in the GUI, or a permalink (`#...`).
    #[arg(value_name = "FILE|LINK")]
    pub open: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Load a shader, run it headless and print a summary (or JSON); write buffers and traces.
    Run(Box<RunArgs>),
    /// Run a built-in example (the modules in `assets/`) and print its summary.
    Example {
        /// The example's name (default: the one the GUI opens).
        name: Option<String>,
        /// Also run it on the machine's Vulkan device and compare (as `run --gpu`).
        #[arg(long)]
        gpu: bool,
    },
    /// Disassemble a module as `spirv-dis` prints it.
    Dis {
        /// The module (`.spv`).
        file: String,
        /// Print ids as numbers (`%12`) instead of friendly names.
        #[arg(long)]
        raw_id: bool,
        /// Write to OUT instead of stdout.
        #[arg(short = 'o', value_name = "OUT")]
        out: Option<String>,
    },
    /// Assemble SPIR-V assembly (the `spirv-as` language) into a module.
    Asm {
        /// The text (`.spvasm`).
        file: String,
        /// The module to write.
        #[arg(short = 'o', value_name = "OUT.spv", default_value = "out.spv")]
        out: String,
        /// Keep numeric ids (`%12` is id 12).
        #[arg(long)]
        preserve_numeric_ids: bool,
        /// The environment whose SPIR-V version goes in the header (spv1.0..spv1.6,
        /// vulkan1.0..vulkan1.4, ...); it wins over a `; Version:` comment; default 1.6.
        #[arg(long, value_name = "ENV", value_parser = parse_target_env)]
        target_env: Option<lanescope_core::spvtext::TargetEnv>,
        /// Make the text the module's source: OpSource holding it and an OpLine on every
        /// instruction in a function, so a debugger steps the assembly line by line (the file
        /// name as given is the OpString). A text with its own debug information is kept as is.
        #[arg(long)]
        source_lines: bool,
    },
    /// List the machine's Vulkan devices: name, driver, subgroup sizes, and the extensions a
    /// comparison with `run --gpu` depends on.
    Devices {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Internal: compile the request on stdin under its memory limit and answer on stdout (what
    /// bounded GLSL compiles run as their child process).
    #[command(hide = true)]
    CompileWorker,
    /// Print a shell completion script (e.g. `lanescope completions bash > ~/.bash_completion.d/lanescope`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

fn parse_target_env(s: &str) -> Result<lanescope_core::spvtext::TargetEnv, String> {
    s.parse()
        .map_err(|_| format!("`{s}` is not a target environment spirv-as knows"))
}

/// `lanescope run`: every setting of a headless run.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// The shader: a module (`.spv`), SPIR-V assembly (`.spvasm`), WGSL (`.wgsl`), GLSL (`.comp`/`.glsl`, native builds), HLSL (`.hlsl`, native builds), or an AmberScript test
    /// (`.amber`: runs its pipelines and checks its expectations; exit 0 pass, 1 fail or error,
    /// 77 skipped).
    pub shader: String,
    /// Entry point name (needed when the module has several compute entry points; for HLSL the
    /// function compiled as the entry point, default `main`).
    #[arg(long)]
    pub entry: Option<String>,
    /// Workgroups to dispatch, `X[,Y[,Z]]`.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_workgroups, default_value = "1,1,1")]
    pub workgroups: [u32; 3],
    /// Which tangle, subgroup and workgroup runs when several can: `default` (follows
    /// --sibling-order), `reverse`, or `random:SEED` (a random interleaving at every step).
    #[arg(long, value_name = "default|reverse|random:SEED", value_parser = parse_schedule, default_value = "default")]
    pub schedule: Schedule,
    /// Run N schedules (default, reverse, then random seeds 1, 2, ...) and report the output
    /// words that differ between them (a report: the exit status does not depend on it).
    #[arg(long, value_name = "N")]
    pub explore: Option<u64>,
    /// Also run the dispatch on the machine's Vulkan device and compare every buffer word with
    /// the simulation's, explaining each that differs: undefined (poison reached it), schedule
    /// (the shader depends on an order), left open by the specification, precision, or
    /// unexplained. Where the device cannot run --subgroup-size's default, both run with the
    /// device's subgroup size. A report: the exit status does not depend on it.
    #[arg(long)]
    pub gpu: bool,
    /// The Vulkan device --gpu runs on (`lanescope devices` lists them).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "gpu")]
    pub gpu_device: usize,
    /// With --gpu, when a word is unexplained: write an AmberScript of the dispatch expecting
    /// the simulation's words, to run on other devices and drivers.
    #[arg(long, value_name = "FILE.amber", requires = "gpu")]
    pub gpu_amber: Option<String>,
    /// Turn the bug detectors off (data races, barriers some invocations skip by exiting,
    /// reads of memory nobody wrote): faster, and only what the spec's rules say directly.
    #[arg(long)]
    pub no_detectors: bool,
    /// Threads for the dispatch's workgroups (0: every core; 1: one after another). The
    /// output is the serial run's whatever the count: workgroups that share buffer words, and
    /// runs with diagnostics or a trace, run serially.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Simulate only this workgroup (`X,Y,Z`; repeatable); the others are not run.
    #[arg(long = "only-workgroup", value_name = "X,Y,Z", value_parser = parse_workgroup_id)]
    pub only_workgroups: Vec<[u32; 3]>,
    /// Invocations per subgroup: a power of two from 4 to 128.
    #[arg(long, value_name = "N", value_parser = parse_subgroup_size, default_value_t = Config::default().subgroup_size)]
    pub subgroup_size: u32,
    /// How invocations entering a switch are grouped into tangles.
    #[arg(long, value_name = "per-value|per-case", value_parser = parse_named::<SwitchTangles>, default_value = "per-value")]
    pub switch_tangles: SwitchTangles,
    /// Which of several runnable tangles of a subgroup runs first.
    #[arg(long, value_name = "lowest-lane|highest-lane|oldest|newest", value_parser = parse_named::<SiblingOrder>, default_value = "lowest-lane")]
    pub sibling_order: SiblingOrder,
    /// Override a specialization constant: `ID=VALUE`, read with the constant's own type
    /// (integers in decimal or 0x hex, floats, true/false). An ID the module lacks is ignored
    /// with a warning.
    #[arg(long = "spec", value_name = "ID=VALUE", value_parser = parse_spec)]
    pub spec: Vec<(u32, String)>,
    /// The push constants' bytes.
    #[arg(long, value_name = "FILE")]
    pub push: Option<String>,
    /// Bind a buffer: `SET:BINDING=FILE` (initial bytes; its size is the file's), or
    /// `SET:BINDING=@SET2:BINDING2` to bind the buffer bound at SET2:BINDING2 there too.
    /// `SET:BINDING[ELEMENT]=FILE` binds one element of a descriptor array (`[0]` is the same
    /// as none), and `@SET2:BINDING2[ELEMENT2]` shares an element's buffer.
    #[arg(long = "buffer", value_name = "SET:BINDING[ELEMENT]=FILE|@SET:BINDING", value_parser = parse_buffer)]
    pub buffers: Vec<BufferArg>,
    /// Bind an image (storage or sampled image, texel buffer): FILE holds its texels tightly
    /// packed (x fastest, then rows, then slices or array layers); FORMAT is the SPIR-V image
    /// format in lower case (`r32ui`, `rgba8`, `rgba16f`, `r32f`, ...); the size is
    /// WIDTHxHEIGHT[xDEPTH][sSAMPLES] (DEPTH: slices of a 3D image, or layers; 6 per cube;
    /// `64x64s4`: 4 samples per texel, stored consecutively). `--out` writes the texels back.
    /// `SET:BINDING[ELEMENT]` binds one element of an array of images (one sampler per
    /// binding serves every element).
    #[arg(long = "image", value_name = "SET:BINDING[ELEMENT]=FILE,FORMAT,WxH[xD]", value_parser = parse_image)]
    pub images: Vec<ImageArg>,
    /// Bind a sampler (alone, or the sampler of a combined image sampler): its filter and
    /// address mode (`nearest|linear,clamp|repeat|mirror|border`; `border` reads transparent
    /// black outside the image).
    #[arg(long = "sampler", value_name = "SET:BINDING=FILTER,ADDRESS", value_parser = parse_sampler)]
    pub samplers: Vec<(u32, u32, lanescope_core::program::image::SamplerDesc)>,
    /// Fix the device address of the buffer bound at SET:BINDING (what PhysicalStorageBuffer
    /// pointers to it hold), or of descriptor array element SET:BINDING[ELEMENT]: decimal or
    /// `0x` hex, aligned to 16 bytes; ranges must not overlap. Unfixed buffers get
    /// `(SET << 48) + ((BINDING + 1) << 32)`, an unfixed element the next aligned address after
    /// the element before it.
    #[arg(long = "address", value_name = "SET:BINDING[ELEMENT]=ADDR", value_parser = parse_address)]
    pub addresses: Vec<((u32, u32, u32), u64)>,
    /// Write the final bytes of the buffer bound at SET:BINDING (or descriptor array element
    /// SET:BINDING[ELEMENT]) to FILE.
    #[arg(long = "out", value_name = "SET:BINDING[ELEMENT]=FILE", value_parser = parse_out)]
    pub outs: Vec<SlotFile>,
    /// Stop with an error after this many steps (an endless loop never hangs the tool).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: u64,
    /// The simulator's memory for one workgroup (registers, workgroup and private memory).
    #[arg(long = "max-memory", value_name = "MIB", default_value_t = Config::default().max_memory >> 20)]
    pub max_memory_mib: u64,
    /// Most steps `--trace` records.
    #[arg(long, value_name = "N", default_value_t = Config::default().max_trace_steps)]
    pub max_trace_steps: usize,
    /// Most invocations in one workgroup (at most 1048576).
    #[arg(long, value_name = "N", default_value_t = Config::default().max_invocations)]
    pub max_invocations: u32,
    /// The bound buffers and push constants together, checked before a file is read.
    #[arg(long = "max-buffer-memory", value_name = "MIB", default_value_t = Config::default().max_buffer_memory >> 20)]
    pub max_buffer_memory_mib: u64,
    /// Most debugPrintf lines kept; the number dropped past it is said at the end.
    #[arg(long, value_name = "N", default_value_t = Config::default().max_printf_lines)]
    pub max_printf_lines: usize,
    /// Write the debugPrintf lines to FILE instead of stdout (with `--json` they are in the
    /// summary's `printf` too).
    #[arg(long, value_name = "FILE")]
    pub printf: Option<String>,
    /// A preprocessor macro for GLSL and HLSL sources: `NAME` (defined as 1) or `NAME=VALUE`
    /// (repeatable, in order).
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]", value_parser = lanescope_front::parse_define)]
    pub defines: Vec<(String, Option<String>)>,
    /// A WGSL pipeline-overridable constant's value: `KEY=VALUE`, the key its `@id` (decimal)
    /// or, where it has none, its name, as WebGPU's `constants` takes it; the value a number or
    /// true/false (repeatable). Overrides not given keep their initializers.
    #[arg(long = "override", value_name = "KEY=VALUE", value_parser = lanescope_front::parse_override)]
    pub overrides: Vec<(String, f64)>,
    /// A folder `#include` searches (after the including file's own folder for `"..."`;
    /// repeatable, in order).
    #[arg(short = 'I', long = "include-dir", value_name = "DIR")]
    pub include_dirs: Vec<std::path::PathBuf>,
    /// The target environment GLSL and HLSL compile for (`vulkan1.0` to `vulkan1.4`,
    /// `vulkan1.1spv1.4`, `spv1.0` to `spv1.6`; default Vulkan 1.3, SPIR-V 1.6), also the
    /// assembler's for `.spvasm`. HLSL's entry point is `--entry` (default `main`).
    #[arg(long = "target-env", value_name = "ENV", value_parser = parse_target_env)]
    pub target_env: Option<lanescope_core::spvtext::TargetEnv>,
    /// Stop a GLSL compile after this many seconds (glslang runs in a child process).
    #[arg(long = "compile-timeout", value_name = "SECONDS", value_parser = parse_seconds, default_value_t = lanescope_front::DEFAULT_COMPILE_SECONDS)]
    pub compile_timeout: f64,
    /// The GLSL compiler process's memory (its address space), MiB.
    #[arg(long = "compile-memory", value_name = "MIB", value_parser = clap::value_parser!(u64).range(16..), default_value_t = lanescope_front::DEFAULT_COMPILE_MEMORY_MIB)]
    pub compile_memory_mib: u64,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write every step as JSON (schema: the README's "Trace file" section).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<String>,
    /// Cooperative-matrix fragment layout: a built-in name or a JSON table file.
    #[arg(long, value_name = "nvidia|amd-rdna3|portable|FILE.json")]
    pub coopmat_layout: Option<String>,
    /// Run under every cooperative-matrix layout that supports the shader and report the
    /// buffers whose final contents differ.
    #[arg(long)]
    pub portability: bool,
}

/// A `--buffer` argument: a file to read, or another binding's buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BufferArg {
    File {
        set: u32,
        binding: u32,
        /// The descriptor array element (0 for a single buffer).
        element: u32,
        path: String,
    },
    Shared(BufferAlias),
}

fn parse_u32(s: &str) -> Result<u32, String> {
    let v = if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16)
    } else {
        s.parse()
    };
    v.map_err(|_| format!("`{s}` is not a number"))
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|v| *v > 0.0 && *v <= 1e6)
        .ok_or_else(|| format!("`{s}` is not a number of seconds (more than 0, at most 1000000)"))
}

fn parse_workgroups(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err(format!("wants X,Y,Z, got `{s}`"));
    }
    let mut w = [1u32; 3];
    for (k, p) in parts.iter().enumerate() {
        w[k] = parse_u32(p)?;
    }
    Ok(w)
}

fn parse_schedule(s: &str) -> Result<Schedule, String> {
    Schedule::parse(s).ok_or_else(|| format!("`{s}` is not default, reverse or random:SEED"))
}

fn parse_workgroup_id(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err(format!("wants X,Y,Z, got `{s}`"));
    }
    let mut w = [0u32; 3];
    for (k, p) in parts.iter().enumerate() {
        w[k] = parse_u32(p)?;
    }
    Ok(w)
}

fn parse_subgroup_size(s: &str) -> Result<u32, String> {
    let v = parse_u32(s)?;
    if lanescope_core::valid_subgroup_size(v) {
        Ok(v)
    } else {
        Err(format!(
            "{v}: a subgroup size is a power of two from 4 to 128"
        ))
    }
}

fn parse_named<T: NamedSetting>(s: &str) -> Result<T, String> {
    T::parse(s).ok_or_else(|| format!("`{s}` is not one of {}", T::names().join(", ")))
}

fn parse_spec(s: &str) -> Result<(u32, String), String> {
    let (id, value) = s
        .split_once('=')
        .ok_or_else(|| format!("wants ID=VALUE, got `{s}`"))?;
    Ok((parse_u32(id)?, value.to_string()))
}

fn parse_set_binding(s: &str) -> Result<(u32, u32), String> {
    let (set, binding) = s
        .split_once(':')
        .ok_or_else(|| format!("wants SET:BINDING, got `{s}`"))?;
    Ok((parse_u32(set)?, parse_u32(binding)?))
}

/// `SET:BINDING` or `SET:BINDING[ELEMENT]` (an element of a descriptor array).
fn parse_slot(s: &str) -> Result<(u32, u32, u32), String> {
    match s.strip_suffix(']').and_then(|t| t.split_once('[')) {
        Some((sb, e)) => {
            let (set, binding) = parse_set_binding(sb)?;
            Ok((set, binding, parse_u32(e)?))
        }
        None => {
            let (set, binding) = parse_set_binding(s)?;
            Ok((set, binding, 0))
        }
    }
}

/// One buffer's file: (set, binding, descriptor array element, file).
pub type SlotFile = (u32, u32, u32, String);

fn parse_out(s: &str) -> Result<SlotFile, String> {
    let (sb, file) = s
        .split_once('=')
        .ok_or_else(|| format!("wants SET:BINDING[ELEMENT]=FILE, got `{s}`"))?;
    let (set, binding, element) = parse_slot(sb)?;
    Ok((set, binding, element, file.to_string()))
}

/// An `--image` argument: ((set, binding, element), file, format, extent, samples per texel).
pub type ImageArg = (
    (u32, u32, u32),
    String,
    lanescope_core::program::image::TexelFormat,
    [u32; 3],
    u32,
);

fn parse_image(s: &str) -> Result<ImageArg, String> {
    let want = "wants SET:BINDING[ELEMENT]=FILE,FORMAT,WIDTHxHEIGHT[xDEPTH]";
    let (sb, rest) = s
        .split_once('=')
        .ok_or_else(|| format!("{want}, got `{s}`"))?;
    let slot = parse_slot(sb)?;
    let mut parts = rest.rsplitn(3, ',');
    let (Some(size), Some(format), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("{want}, got `{s}`"));
    };
    let format =
        lanescope_core::program::image::TexelFormat::by_name(format.trim()).ok_or_else(|| {
            let names: Vec<&str> = lanescope_core::program::image::FORMATS
                .iter()
                .map(|f| f.name)
                .collect();
            format!(
                "`{format}` is not an image format (one of {})",
                names.join(", ")
            )
        })?;
    let (size, samples) = match size.trim().split_once(['s', 'S']) {
        Some((dims, n)) => (
            dims,
            n.parse::<u32>()
                .ok()
                .filter(|n| n.is_power_of_two() && *n <= 64)
                .ok_or_else(|| format!("`s{n}`: samples per texel are 1, 2, 4, ... 64"))?,
        ),
        None => (size.trim(), 1),
    };
    let dims: Vec<&str> = size.split(['x', 'X']).collect();
    if dims.is_empty() || dims.len() > 3 {
        return Err(format!("`{size}`: the size is WIDTHxHEIGHT[xDEPTH]"));
    }
    let mut extent = [1u32; 3];
    for (k, d) in dims.iter().enumerate() {
        extent[k] = d
            .parse::<u32>()
            .ok()
            .filter(|v| *v > 0)
            .ok_or_else(|| format!("`{d}` in `{size}` is not a size of at least 1"))?;
    }
    Ok((slot, file.to_string(), format, extent, samples))
}

fn parse_sampler(
    s: &str,
) -> Result<(u32, u32, lanescope_core::program::image::SamplerDesc), String> {
    let (sb, rest) = s
        .split_once('=')
        .ok_or_else(|| format!("wants SET:BINDING=FILTER,ADDRESS, got `{s}`"))?;
    let (set, binding) = parse_set_binding(sb)?;
    Ok((
        set,
        binding,
        lanescope_core::program::image::SamplerDesc::parse(rest)?,
    ))
}

fn parse_address(s: &str) -> Result<((u32, u32, u32), u64), String> {
    let (sb, addr) = s
        .split_once('=')
        .ok_or_else(|| format!("wants SET:BINDING[ELEMENT]=ADDR, got `{s}`"))?;
    let slot = parse_slot(sb)?;
    let addr = addr.trim();
    let v = match addr.strip_prefix("0x").or_else(|| addr.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
        None => addr.replace('_', "").parse::<u64>(),
    }
    .map_err(|_| format!("`{addr}` is not an address (decimal, or hex with 0x)"))?;
    if v % lanescope_core::ADDRESS_ALIGN != 0 {
        return Err(format!(
            "the address {v:#x} is not aligned to {} bytes",
            lanescope_core::ADDRESS_ALIGN
        ));
    }
    Ok((slot, v))
}

fn parse_buffer(s: &str) -> Result<BufferArg, String> {
    let (set, binding, element, file) = parse_out(s)?;
    Ok(match file.strip_prefix('@') {
        Some(target) => {
            let (of_set, of_binding, of_element) = parse_slot(target)?;
            BufferArg::Shared(BufferAlias {
                set,
                binding,
                element,
                of_set,
                of_binding,
                of_element,
            })
        }
        None => BufferArg::File {
            set,
            binding,
            element,
            path: file,
        },
    })
}

/// Parses `lanescope run` arguments (without the `run`), as scripts and tests call it.
pub fn parse_run(args: &[String]) -> Result<RunArgs, CliError> {
    let argv = std::iter::once("lanescope").chain(std::iter::once("run"));
    let cli = Cli::try_parse_from(argv.map(String::from).chain(args.iter().cloned()))
        .map_err(|e| CliError::Usage(e.to_string()))?;
    match cli.command {
        Some(Command::Run(a)) => Ok(*a),
        _ => Err(CliError::Usage("not a run command".into())),
    }
}
