//! Executing a script: commands in order over buffers kept as bytes. Each `RUN` loads its
//! pipeline's shader (compiled once per shader, loaded once per entry point, specialization and
//! subgroup size), binds the pipeline's buffers, runs the simulator to the end within a step
//! limit, and writes the buffers back, so pipelines and runs share them.

mod binding;

use super::device;
use super::expect;
use super::report::{Report, RunReport, Status};
use super::script::{
    Bind, BindKind, Check, Command, Expect, Pipeline, RequiredSize, Script, ShaderFormat,
};
use super::types::Format;
use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::program::image::ImageDesc;
use lanescope_core::program::Program;
use lanescope_core::{
    load, Bindings, BufferAlias, Config, LoadError, LoadOptions, Outcome, Simulator, SpecValue,
    DEFAULT_MAX_STEPS,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why a shader did not compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// This compiler cannot take the shader at all (no compiler for the language here, or a
    /// language extension it does not know): the script is skipped.
    Unavailable(String),
    /// The shader has errors: the script stops with an error.
    Failed(String),
}

/// Turns a shader's source into SPIR-V words; the caller supplies it (the CLI with the
/// in-process assembler and GLSL compiler, tests with prebuilt modules). `format` is
/// [`ShaderFormat::Glsl`] or [`ShaderFormat::SpirvAsm`]: `SPIRV-HEX` is decoded here.
pub trait Compile {
    /// The SPIR-V words of shader `name`'s `source`, for the script's `TARGET_ENV` when it
    /// gives one. [`CompileError::Unavailable`] skips the script, [`CompileError::Failed`]
    /// stops it with an error.
    fn compile(
        &self,
        format: ShaderFormat,
        source: &str,
        target_env: Option<&str>,
        name: &str,
    ) -> Result<Vec<u32>, CompileError>;

    /// The bytes of a file the script names (`SHADER ... FILE`, `BUFFER ... FILE`), found
    /// relative to the script; `None` (the default) when files cannot be read, which skips
    /// such scripts.
    fn read_file(&self, _path: &str) -> Option<Result<Vec<u8>, String>> {
        None
    }
}

/// A compiler that has no languages: scripts with `SPIRV-HEX` shaders only run.
pub struct NoCompiler;

impl Compile for NoCompiler {
    fn compile(
        &self,
        format: ShaderFormat,
        _: &str,
        _: Option<&str>,
        _: &str,
    ) -> Result<Vec<u32>, CompileError> {
        Err(CompileError::Unavailable(format!(
            "no {} compiler here",
            format.keyword()
        )))
    }
}

/// How scripts run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Scheduling settings and limits; `workgroups` comes from each `RUN`, and
    /// `subgroup_size` is the default for pipelines that do not require one.
    pub config: Config,
    /// Steps one `RUN` may take; a run past it stops the script with an error.
    pub max_steps: u64,
    /// Steps all runs of the script may take together.
    pub max_total_steps: u64,
    /// The cooperative-matrix layout shaders are loaded with.
    pub coopmat_layout: LayoutChoice,
    /// Apply the script's `# lanescope:` settings over `config` and `coopmat_layout`.
    pub use_script_settings: bool,
    /// Most `EXPECT` results kept in the report (a `REPEAT` can make many); failures are kept
    /// past it.
    pub max_expect_reports: usize,
    /// Most commands executed, `REPEAT`s unrolled; past it the script stops with an error.
    pub max_commands: u64,
    /// Keep what the `RUN` with this index (0 the first executed) starts from, for a debugger
    /// to step through it ([`Execution::captured`]).
    pub capture_run: Option<usize>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            config: Config::default(),
            max_steps: DEFAULT_MAX_STEPS,
            max_total_steps: DEFAULT_MAX_STEPS * 10,
            coopmat_layout: LayoutChoice::default(),
            use_script_settings: true,
            max_expect_reports: 100_000,
            max_commands: 1_000_000,
            capture_run: None,
        }
    }
}

/// A buffer's name, format and final bytes.
#[derive(Clone, Debug)]
pub struct BufferState {
    /// The name the script declares it with.
    pub name: String,
    /// Its element type and layout.
    pub format: Format,
    /// Its contents when the script ended (or stopped).
    pub bytes: Vec<u8>,
}

/// What one `RUN` starts from: the loaded module (specialized, at the run's subgroup size),
/// its buffers as the script had them then, and the dispatch.
#[derive(Clone, Debug)]
pub struct CapturedRun {
    /// The script line of the `RUN`.
    pub line: usize,
    /// The entry point and specialization the pipeline loaded the module with.
    pub entry: String,
    /// Specialization constant values by id.
    pub spec: BTreeMap<u32, SpecValue>,
    /// The script's buffers as this run binds them: (name, set, binding, byte offset of the
    /// binding's view into the buffer).
    pub binds: Vec<(String, u32, u32, u64)>,
    /// The attached shader's name.
    pub shader: String,
    /// The module's words (as compiled or decoded).
    pub words: Vec<u32>,
    /// The module as loaded for the run.
    pub program: Arc<Program>,
    /// What the run binds (buffers, images, samplers, push constants), as it starts.
    pub bindings: Bindings,
    /// The simulator's configuration, with the run's workgroups and subgroup size.
    pub config: Config,
}

/// The report and the buffers as the script left them.
#[derive(Clone, Debug)]
pub struct Execution {
    /// What the script did and how it ended.
    pub report: Report,
    /// Every buffer of the script, in declaration order, as the script left it.
    pub buffers: Vec<BufferState>,
    /// The run asked for by [`RunOptions::capture_run`], when the script reached it.
    pub captured: Option<CapturedRun>,
}

impl Execution {
    /// The final bytes of the buffer named `name`.
    pub fn buffer(&self, name: &str) -> Option<&[u8]> {
        self.buffers
            .iter()
            .find(|b| b.name == name)
            .map(|b| b.bytes.as_slice())
    }
}

/// The bytes of a script buffer bound at (`set`, `binding`) for one run: a buffer's window, or
/// all of it as an image (`image` says how).
#[derive(Clone, Copy)]
struct Window {
    buffer: usize,
    set: u32,
    binding: u32,
    /// The descriptor array element (0 for a single descriptor).
    element: u32,
    start: usize,
    len: usize,
    image: Option<ImageDesc>,
    kind: BindKind,
}

impl Window {
    /// The binding `bind` sharing this window's storage.
    fn alias(&self, bind: &Bind) -> BufferAlias {
        BufferAlias {
            set: bind.set,
            binding: bind.binding,
            element: bind.element,
            of_set: self.set,
            of_binding: self.binding,
            of_element: self.element,
        }
    }
}

/// Why execution stopped early.
enum Stop {
    Skip(String),
    Error(String),
}

/// Shader, entry point, specialization (as text) and subgroup size.
type LoadKey = (usize, String, String, u32);

struct Runner<'a> {
    script: &'a Script,
    compiler: &'a dyn Compile,
    opts: RunOptions,
    buffers: Vec<Vec<u8>>,
    words: BTreeMap<usize, Vec<u32>>,
    programs: BTreeMap<LoadKey, Arc<Program>>,
    report: Report,
    total_steps: u64,
    commands_run: u64,
    dropped_expects: usize,
    runs_started: usize,
    captured: Option<CapturedRun>,
}

/// Runs `script` and keeps the final buffers.
pub fn execute(script: &Script, compiler: &dyn Compile, opts: &RunOptions) -> Execution {
    let mut opts = opts.clone();
    if opts.use_script_settings {
        let s = &script.settings;
        if let Some(n) = s.subgroup_size {
            opts.config.subgroup_size = n;
        }
        if let Some(t) = s.switch_tangles {
            opts.config.switch_tangles = t;
        }
        if let Some(o) = s.sibling_order {
            opts.config.sibling_order = o;
        }
        if let Some(l) = &s.coopmat_layout {
            opts.coopmat_layout = l.clone();
        }
    }
    let mut r = Runner {
        script,
        compiler,
        opts,
        buffers: script.buffers.iter().map(|b| b.bytes.clone()).collect(),
        words: BTreeMap::new(),
        programs: BTreeMap::new(),
        report: Report::new(Status::Pass, None),
        total_steps: 0,
        commands_run: 0,
        dropped_expects: 0,
        runs_started: 0,
        captured: None,
    };
    r.report.notes = script.notes.clone();
    let outcome = r.start().and_then(|()| r.commands(&script.commands));
    match outcome {
        Ok(()) => {
            if r.report.expects.iter().any(|e| !e.pass) {
                r.report.status = Status::Fail;
            }
        }
        Err(Stop::Skip(m)) => {
            r.report.status = Status::Skip;
            r.report.message = Some(m);
        }
        Err(Stop::Error(m)) => {
            r.report.status = Status::Error;
            r.report.message = Some(m);
        }
    }
    if r.dropped_expects > 0 {
        r.report.notes.push(format!(
            "{} passing EXPECT results were not kept (more than {})",
            r.dropped_expects, r.opts.max_expect_reports
        ));
    }
    let buffers = script
        .buffers
        .iter()
        .zip(r.buffers)
        .map(|(b, bytes)| BufferState {
            name: b.name.clone(),
            format: b.format.clone(),
            bytes,
        })
        .collect();
    Execution {
        report: r.report,
        buffers,
        captured: r.captured,
    }
}

/// Runs `script` with `compiler` for its shaders.
pub fn run(script: &Script, compiler: &dyn Compile, opts: &RunOptions) -> Report {
    execute(script, compiler, opts).report
}

/// Parses and runs a script (reading the files it names with `compiler`); a syntax error is an
/// error report naming its line and column.
pub fn run_text(text: &str, compiler: &dyn Compile, opts: &RunOptions) -> Report {
    match super::parse::parse_with_files(text, &|p| compiler.read_file(p)) {
        Ok(script) => run(&script, compiler, opts),
        Err(e) => Report::new(Status::Error, Some(e.to_string())),
    }
}

impl Runner<'_> {
    /// Before any command: what the script declares it needs.
    fn start(&mut self) -> Result<(), Stop> {
        if let Some(u) = &self.script.unsupported {
            return Err(Stop::Skip(u.to_string()));
        }
        for req in &self.script.requirements {
            if let Err(why) = device::check(req) {
                return Err(Stop::Skip(format!(
                    "unsupported (skipped): {why}, required at line {}",
                    req.line
                )));
            }
        }
        Ok(())
    }

    fn commands(&mut self, cmds: &[Command]) -> Result<(), Stop> {
        for c in cmds {
            self.commands_run += 1;
            if self.commands_run > self.opts.max_commands {
                return Err(Stop::Error(format!(
                    "line {}: more than {} commands executed (RunOptions::max_commands)",
                    command_line(c),
                    self.opts.max_commands
                )));
            }
            match c {
                Command::Run {
                    line,
                    pipeline,
                    groups,
                } => self.run(*line, &self.script.pipelines[*pipeline], *groups)?,
                Command::Expect(e) => self.expect(e)?,
                Command::Copy { from, to, .. } => {
                    self.buffers[*to] = self.buffers[*from].clone();
                }
                Command::Clear { buffer, .. } => self.buffers[*buffer].fill(0),
                Command::Repeat { count, body, .. } => {
                    for _ in 0..*count {
                        self.commands(body)?;
                    }
                }
                Command::Resize { line, buffer, len } => {
                    let len = usize::try_from(*len)
                        .ok()
                        .filter(|n| *n as u64 <= super::parse::MAX_SCRIPT_BUFFER_BYTES)
                        .ok_or_else(|| {
                            Stop::Skip(format!(
                                "line {line}: unsupported (skipped): a buffer of {len} bytes"
                            ))
                        })?;
                    self.buffers[*buffer].resize(len, 0);
                }
                Command::Write {
                    line,
                    buffer,
                    offset,
                    bytes,
                } => {
                    let end = offset.saturating_add(bytes.len());
                    if end as u64 > super::parse::MAX_SCRIPT_BUFFER_BYTES {
                        return Err(Stop::Skip(format!(
                            "line {line}: unsupported (skipped): data written up to byte {end}"
                        )));
                    }
                    let b = &mut self.buffers[*buffer];
                    if b.len() < end {
                        b.resize(end, 0);
                    }
                    b[*offset..end].copy_from_slice(bytes);
                }
            }
        }
        Ok(())
    }

    fn expect(&mut self, e: &Expect) -> Result<(), Stop> {
        let b = &self.script.buffers[e.buffer];
        let bytes = &self.buffers[e.buffer];
        let other = |o: usize| (&self.script.buffers[o].name, &self.buffers[o]);
        let subject = expect::Subject {
            line: e.line,
            name: &b.name,
            format: &b.format,
            bytes,
        };
        let r = match &e.check {
            Check::Values {
                offset,
                op,
                tolerance,
                values,
            } => expect::probe(&subject, *offset, *op, tolerance, values),
            Check::EqBuffer(o) => {
                let (n, ob) = other(*o);
                expect::eq_buffer(&subject, n, ob)
            }
            Check::Rmse {
                other: o,
                tolerance,
            } => {
                let (n, ob) = other(*o);
                expect::rmse(&subject, n, ob, *tolerance)
            }
            Check::HistogramEmd {
                other: o,
                tolerance,
            } => {
                let (n, ob) = other(*o);
                expect::histogram_emd(&subject, n, ob, *tolerance)
            }
            Check::Rgba {
                region,
                rgba,
                values,
                tolerance,
            } => {
                let [w, h, _] = b.image.map_or([1, 1, 1], |i| i.extent);
                expect::probe_rgba(&subject, [w, h], *region, *rgba, *values, tolerance)
            }
        };
        if r.pass && self.report.expects.len() >= self.opts.max_expect_reports {
            self.dropped_expects += 1;
        } else {
            self.report.expects.push(r);
        }
        Ok(())
    }

    /// The SPIR-V of shader `i`, compiled once.
    fn words(&mut self, line: usize, i: usize) -> Result<Vec<u32>, Stop> {
        if let Some(w) = self.words.get(&i) {
            return Ok(w.clone());
        }
        let sh = &self.script.shaders[i];
        let at = |m: String| format!("line {line}: shader `{}` (line {}): {m}", sh.name, sh.line);
        let words = match sh.format {
            ShaderFormat::SpirvHex => decode_hex(&sh.source).map_err(|m| Stop::Error(at(m)))?,
            f => self
                .compiler
                .compile(f, &sh.source, sh.target_env.as_deref(), &sh.name)
                .map_err(|e| match e {
                    CompileError::Unavailable(m) => {
                        Stop::Skip(at(format!("unsupported (skipped): {m}")))
                    }
                    CompileError::Failed(m) => {
                        Stop::Error(at(format!("{} does not compile: {m}", f.keyword())))
                    }
                })?,
        };
        self.words.insert(i, words.clone());
        Ok(words)
    }

    fn subgroup_size(&self, line: usize, p: &Pipeline) -> Result<(u32, bool), Stop> {
        let c = p.subgroup_control();
        let size = match c.required_size {
            None => self.opts.config.subgroup_size,
            Some(RequiredSize::Min) => 4,
            Some(RequiredSize::Max) => 128,
            Some(RequiredSize::Size(n)) => {
                if !lanescope_core::valid_subgroup_size(n) {
                    return Err(Stop::Skip(format!(
                        "line {line}: unsupported (skipped): REQUIRED_SIZE {n} (Lanescope's subgroups are powers of two from 4 to 128)"
                    )));
                }
                n
            }
        };
        Ok((size, c.fully_populated))
    }

    fn program(
        &mut self,
        line: usize,
        p: &Pipeline,
        subgroup_size: u32,
    ) -> Result<Arc<Program>, Stop> {
        let Some(a) = &p.attach else {
            return Err(Stop::Error(format!(
                "line {line}: pipeline `{}` has no shader attached",
                p.name
            )));
        };
        let (entry, spec) = entry_and_spec(p);
        let key: LoadKey = (a.shader, entry.clone(), format!("{spec:?}"), subgroup_size);
        if let Some(prog) = self.programs.get(&key) {
            return Ok(Arc::clone(prog));
        }
        let words = self.words(line, a.shader)?;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let opts = LoadOptions {
            entry: Some(entry),
            spec,
            coopmat_layout: self.opts.coopmat_layout.clone(),
            subgroup_size: Some(subgroup_size),
        };
        let sh = &self.script.shaders[a.shader];
        let prog = load(&bytes, &opts).map_err(|e| {
            let m = format!("line {line}: shader `{}`: {e}", sh.name);
            match e {
                LoadError::Unsupported { .. } => Stop::Skip(format!("unsupported (skipped): {m}")),
                _ => Stop::Error(m),
            }
        })?;
        let prog = Arc::new(prog);
        self.programs.insert(key, Arc::clone(&prog));
        Ok(prog)
    }

    fn run(&mut self, line: usize, p: &Pipeline, groups: [u32; 3]) -> Result<(), Stop> {
        // Checked here in 128 bits: the simulator's own check multiplies in 64.
        let total: u128 = groups.iter().map(|g| u128::from(*g)).product();
        if total == 0 || total > 1 << 20 {
            return Err(Stop::Error(format!(
                "line {line}: RUN {} {} {} {}: {total} workgroups; Lanescope runs 1 to 1048576",
                p.name, groups[0], groups[1], groups[2]
            )));
        }
        let (subgroup_size, full) = self.subgroup_size(line, p)?;
        let prog = self.program(line, p, subgroup_size)?;
        if full && prog.local_size()[0] % subgroup_size != 0 {
            // Vulkan makes this invalid usage, yet tests do it (CTS's `_partial` cases) and
            // drivers run them: the last subgroup is partial, as here.
            let note = format!(
                "line {line}: FULLY_POPULATED with local_size_x {} not a multiple of the subgroup size {subgroup_size} (invalid in Vulkan); the last subgroup runs partial",
                prog.local_size()[0]
            );
            if !self.report.notes.contains(&note) {
                self.report.notes.push(note);
            }
        }
        self.check_images(line, &prog, p)?;
        let (mut bindings, windows) = self.bindings(p)?;
        self.pad_to_declared(line, &prog, &mut bindings);
        let mut cfg = self.opts.config.clone();
        cfg.workgroups = groups;
        cfg.subgroup_size = subgroup_size;
        if self.opts.capture_run == Some(self.runs_started) {
            let shader = p.attach.as_ref().map_or(0, |a| a.shader);
            let (entry, spec) = entry_and_spec(p);
            let binds = p
                .binds
                .iter()
                // The app finds writes by (set, binding): descriptor array elements past
                // the first are left out rather than pointing at element 0.
                .filter(|b| b.element == 0)
                .filter_map(|b| {
                    let name = self.script.buffers.get(b.buffer)?.name.clone();
                    Some((
                        name,
                        b.set,
                        b.binding,
                        b.dynamic_offset.saturating_add(b.descriptor_offset),
                    ))
                })
                .collect();
            self.captured = Some(CapturedRun {
                line,
                entry,
                spec,
                binds,
                shader: self
                    .script
                    .shaders
                    .get(shader)
                    .map(|s| s.name.clone())
                    .unwrap_or_default(),
                words: self.words.get(&shader).cloned().unwrap_or_default(),
                program: Arc::clone(&prog),
                bindings: bindings.clone(),
                config: cfg.clone(),
            });
        }
        self.runs_started += 1;
        let mut sim = Simulator::new(prog, cfg, &bindings)
            .map_err(|e| Stop::Error(format!("line {line}: RUN {}: {e}", p.name)))?;
        let budget = self
            .opts
            .max_steps
            .min(self.opts.max_total_steps.saturating_sub(self.total_steps));
        let outcome = sim
            .run(budget)
            .map_err(|e| Stop::Error(format!("line {line}: RUN {}: {e}", p.name)))?;
        let steps = sim.stats().steps;
        self.total_steps += steps;
        if outcome == Outcome::Budget {
            let which = if budget < self.opts.max_steps {
                format!(
                    "the script's limit of {} steps in all",
                    self.opts.max_total_steps
                )
            } else {
                format!("the limit of {} steps per RUN", self.opts.max_steps)
            };
            return Err(Stop::Error(format!(
                "line {line}: RUN {} stopped after {steps} steps, {which} (an endless loop?)",
                p.name
            )));
        }
        self.write_back(&sim, &windows);
        let sh = p.attach.as_ref().map(|a| &self.script.shaders[a.shader]);
        self.report.runs.push(RunReport {
            line,
            pipeline: p.name.clone(),
            shader: sh.map(|s| s.name.clone()).unwrap_or_default(),
            workgroups: groups,
            subgroup_size,
            steps,
            warnings: sim
                .warnings()
                .iter()
                .map(|w| format!("{}: {}", w.code, w.message))
                .collect(),
            diagnostics: sim
                .diagnostics()
                .iter()
                .map(|d| format!("{}: {}", d.code, d.message))
                .collect(),
            printf: {
                let log = sim.printf_lines();
                let mut lines: Vec<String> = log
                    .iter()
                    .map(|l| {
                        let [x, y, z] = l.workgroup;
                        let text = l.text.strip_suffix('\n').unwrap_or(&l.text);
                        format!("[wg {x},{y},{z} inv {}] {text}", l.invocation)
                    })
                    .collect();
                if log.dropped() > 0 {
                    lines.push(format!(
                        "[printf] {} lines dropped past the limit of {}",
                        log.dropped(),
                        log.len()
                    ));
                }
                lines
            },
        });
        Ok(())
    }

    /// Writes what the run left in each window back to its buffer (the windows of one buffer
    /// are disjoint).
    fn write_back(&mut self, sim: &Simulator, windows: &[Window]) {
        for w in windows {
            if let Some(out) = sim.buffer_element(w.set, w.binding, w.element) {
                let n = w.len.min(out.len());
                self.buffers[w.buffer][w.start..w.start + n].copy_from_slice(&out[..n]);
            }
        }
    }
}

fn command_line(c: &Command) -> usize {
    match c {
        Command::Run { line, .. }
        | Command::Copy { line, .. }
        | Command::Clear { line, .. }
        | Command::Repeat { line, .. }
        | Command::Resize { line, .. }
        | Command::Write { line, .. } => *line,
        Command::Expect(e) => e.line,
    }
}

/// `SPIRV-HEX`: whitespace-separated hex bytes (`03` or `0x03`), four to a little-endian word.
pub fn decode_hex(text: &str) -> Result<Vec<u32>, String> {
    let mut bytes = Vec::new();
    for tok in text.split_whitespace() {
        let digits = tok
            .strip_prefix("0x")
            .or_else(|| tok.strip_prefix("0X"))
            .unwrap_or(tok);
        let b = u8::from_str_radix(digits, 16)
            .map_err(|_| format!("`{tok}` is not a hex byte in the SPIRV-HEX source"))?;
        bytes.push(b);
    }
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "SPIRV-HEX source has {} bytes, not a whole number of 4-byte words",
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The entry point (default `main`) and specialization a pipeline attaches its shader with; a
/// later SPECIALIZE of the same id wins.
fn entry_and_spec(p: &Pipeline) -> (String, BTreeMap<u32, SpecValue>) {
    let Some(a) = &p.attach else {
        return ("main".into(), BTreeMap::new());
    };
    let spec = a.spec.iter().map(|(id, v)| (*id, v.clone())).collect();
    (a.entry.clone().unwrap_or_else(|| "main".into()), spec)
}
