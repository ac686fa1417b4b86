//! The device's words beside the simulation's, and why each that differs does.
//!
//! A word is explained, in this order, by: undefined values (poison reached it in the
//! simulation), the schedule (other schedules of the same dispatch give other words there: the
//! shader depends on an order the specification does not fix), what the specification leaves
//! open (no `MaximallyReconvergesKHR`, so the device may group invocations differently; a
//! cooperative matrix MulAdd's order and precision), precision (a float word within the
//! tolerance of the inexact operations the module uses), or it is unexplained.

use crate::device::{DeviceInfo, Dispatch, GpuBuffer, GpuError, GpuImage, GpuRun};
use lanescope_core::explore::words;
use lanescope_core::program::Program;
use lanescope_core::trace::DiagCode;
use lanescope_core::value::ScalarTy;
use lanescope_core::{
    load, Bindings, Config, LoadOptions, Outcome, Schedule, Simulator, SwitchTangles,
};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why a word differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Poison reached it: its value is undefined.
    Undefined,
    /// It depends on the order of execution.
    Schedule,
    /// The specification leaves it to the device.
    LeftOpen,
    /// A float within the tolerance of the module's inexact operations.
    Precision,
    /// None of the above: a question for the model or the driver.
    Unexplained,
}

impl Class {
    pub const ALL: [Class; 5] = [
        Class::Undefined,
        Class::Schedule,
        Class::LeftOpen,
        Class::Precision,
        Class::Unexplained,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Undefined => "undefined",
            Class::Schedule => "schedule",
            Class::LeftOpen => "left open",
            Class::Precision => "precision",
            Class::Unexplained => "unexplained",
        }
    }
}

/// One word the device left differently.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    pub set: u32,
    pub binding: u32,
    /// The descriptor array element (0 for a single buffer).
    pub element: u32,
    /// Index of the 32-bit word in the buffer.
    pub word: usize,
    /// The scalar there as the shader declares it (`data[3].x`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub simulated: u32,
    pub gpu: u32,
    pub class: Class,
    /// The explanation, in a sentence.
    pub why: String,
}

/// The comparison of one dispatch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub device: DeviceInfo,
    /// The subgroup size both ran with.
    pub subgroup_size: u32,
    /// The device lacks maximal reconvergence: the module ran there without it.
    pub without_maximal_reconvergence: bool,
    /// The cooperative-matrix layout the simulation ran under, for a module with cooperative
    /// matrices (`measured on <device>` where the probe measured the device's).
    pub coopmat_layout: Option<String>,
    /// Words compared, and how many were identical.
    pub words: usize,
    pub identical: usize,
    /// Differing words per class (every class named, zero or not).
    pub classes: BTreeMap<&'static str, usize>,
    /// The differing words (the first [`MAX_LISTED`] by buffer and word).
    pub differences: Vec<Difference>,
    /// Differing words past those listed.
    pub more: usize,
    /// What the reader should know about how the two were set side by side (buffers reached
    /// by device address: the input words moved to the device's addresses).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Comparison {
    /// How many differing words have class `c`.
    pub fn count(&self, c: Class) -> usize {
        self.classes.get(c.name()).copied().unwrap_or(0)
    }
}

/// Most differing words listed.
pub const MAX_LISTED: usize = 256;

/// What the comparison needs of the simulated run.
pub struct Simulated<'a> {
    /// What the module was loaded with (its precision variants load the same way).
    pub opts: &'a LoadOptions,
    pub prog: &'a Arc<Program>,
    pub cfg: &'a Config,
    pub bindings: &'a Bindings,
    /// The finished run.
    pub sim: &'a Simulator,
    /// The module's words (what the device runs, and what it declares).
    pub spirv: &'a [u32],
    /// Schedules to try for words that differ.
    pub schedules: u64,
    pub max_steps: u64,
}

/// The dispatch the simulation ran, for `device`: its buffers as the simulation started them
/// (defaults filled in where none was given), its push constants, specialization constants
/// (`spec`: (SpecId, bytes)) and workgroups, and the simulation's subgroup size, required where
/// the device lets a pipeline require one. Also, for each buffer, its resource index.
pub fn prepare<'a>(
    s: &Simulated<'a>,
    spec: Vec<(u32, Vec<u8>)>,
    device: &DeviceInfo,
) -> Result<(Dispatch<'a>, Vec<usize>), GpuError> {
    let unsupported = |what: String| Err(GpuError::Unsupported(what));
    if !s.cfg.only_workgroups.is_empty() {
        return unsupported("the device runs every workgroup: drop --only-workgroup".into());
    }
    let fresh = Simulator::new(Arc::clone(s.prog), s.cfg.clone(), s.bindings)
        .map_err(|e| GpuError::Unsupported(e.to_string()))?;
    // Buffers reached by device address: where the simulation put each (the device puts them
    // where it likes, and the inputs' addresses are moved there). Device addresses are
    // Vulkan's (WebGPU has none): the browser build leaves this out.
    let physical = s.prog.physical_addresses();
    if physical && !cfg!(feature = "vulkan") {
        return unsupported(
            "the module reaches buffers by device address, which WebGPU has not: run it on a Vulkan device (the native app, or lanescope run --gpu)".into(),
        );
    }
    let mut notes = Vec::new();
    let addresses = if physical {
        // Refused here; its note goes on to the comparison.
        notes.extend(crate::address::check_movable(s)?);
        fresh.buffer_addresses()
    } else {
        Vec::new()
    };
    let address_of = |slot: (u32, u32, u32)| {
        addresses
            .iter()
            .find(|a| (a.set, a.binding, a.element) == slot)
            .map(|a| a.address)
    };
    // The binding whose storage (set, binding, element) shares, if another's.
    let shared_of = |r: &lanescope_core::program::Resource| {
        s.bindings
            .aliases
            .iter()
            .find(|a| (a.set, a.binding, a.element) == (r.set, r.binding, r.element()))
            .map(|a| (a.of_set, a.of_binding, a.of_element))
    };
    let mut buffers = Vec::new();
    let mut resources = Vec::new();
    let mut sharing = Vec::new();
    for (ri, r) in s.prog.resources().iter().enumerate() {
        if r.push_constant {
            continue;
        }
        let image = match (&r.image, fresh.image_of(ri)) {
            (Some(ty), Some(desc)) => {
                let mut image = GpuImage::new(&r.name, ty, &desc).map_err(GpuError::Unsupported)?;
                let (readable, writable) = crate::module::access(s.spirv, r.var);
                image.readable = readable;
                image.writable &= writable;
                Some(image)
            }
            (Some(_), None) => {
                return unsupported(format!("`{}` is an image with none bound", r.name))
            }
            (None, _) => None,
        };
        // A sampler, alone or with its image; a texel buffer is read without one.
        let sampler = (r.sampler && !image.is_some_and(|i| i.texel_buffer())).then(|| {
            s.bindings
                .samplers
                .iter()
                .find(|(set, binding, _)| (*set, *binding) == (r.set, r.binding))
                .map(|x| x.2)
                .unwrap_or_default()
        });
        let b = GpuBuffer {
            set: r.set,
            binding: r.binding,
            element: r.element(),
            uniform: r.uniform && r.read_only && image.is_none(),
            read_only: r.read_only,
            image,
            sampler,
            data: fresh.resource_buffer(r).unwrap_or_default().to_vec(),
            shares: None,
            address: address_of((r.set, r.binding, r.element())).filter(|_| image.is_none()),
            undeclared: false,
        };
        match shared_of(r) {
            Some(of) => sharing.push((b, of)),
            None => {
                buffers.push(b);
                resources.push(ri);
            }
        }
    }
    // A binding that shares another's storage binds that buffer; it is read back and compared
    // once, as the buffer it shares (after the others, outside `resources`).
    for (mut b, of) in sharing {
        let Some(k) = buffers
            .iter()
            .position(|x| (x.set, x.binding, x.element) == of && x.shares.is_none())
        else {
            return unsupported(format!(
                "set {} binding {} shares set {} binding {}, which holds no buffer of its own",
                b.set, b.binding, of.0, of.1
            ));
        };
        b.shares = Some(k);
        b.data.clear();
        buffers.push(b);
    }
    // Buffers the module declares no binding for, bound to be reached by their addresses: on
    // the device too, without a descriptor (after the others; compared by their slots).
    let by_address_only = if physical {
        crate::address::undeclared(s, &fresh)
    } else {
        Vec::new()
    };
    for a in by_address_only {
        buffers.push(GpuBuffer {
            set: a.set,
            binding: a.binding,
            element: a.element,
            data: fresh
                .buffer_element(a.set, a.binding, a.element)
                .unwrap_or_default()
                .to_vec(),
            address: Some(a.address),
            undeclared: true,
            ..GpuBuffer::default()
        });
    }
    let size = s.cfg.subgroup_size;
    // A device without maximal reconvergence runs the module without it: what depends on how
    // invocations reconverge is then the device's (left open).
    let relaxed = (!device.maximal_reconvergence)
        .then(|| crate::module::without_maximal_reconvergence(s.spirv))
        .flatten();
    let dispatch = Dispatch {
        without_maximal_reconvergence: relaxed.is_some(),
        notes,
        spirv: relaxed.unwrap_or_else(|| s.spirv.to_vec()),
        entry: s.prog.entry_name(),
        spec,
        push_constants: s.bindings.push_constants.clone(),
        buffers,
        workgroups: s.cfg.workgroups,
        subgroup_size: device.subgroup_size_range.is_some().then_some(size),
        full_subgroups: s.prog.local_size()[0] % size == 0,
        device: device.index,
        timeout: std::time::Duration::from_secs(120),
    };
    Ok((dispatch, resources))
}

/// What a module declares that bears on the explanations: (subgroup operations, cooperative
/// matrices, inexact float operations).
fn declares(spirv: &[u32]) -> (bool, bool, bool) {
    let (mut subgroup, mut coop, mut inexact) = (false, false, false);
    for (op, inst, _) in crate::words::instructions(spirv) {
        let operand = inst.get(1).copied().unwrap_or(0);
        match op {
            // OpCapability: GroupNonUniform* (61..=68), rotate (6026), cooperative matrices.
            17 => {
                subgroup |= (61..=68).contains(&operand) || operand == 6026;
                coop |= operand == 6022;
            }
            // OpFMul (the device may fuse it with an add), OpFDiv, OpFRem, OpFMod: float
            // results the Vulkan specification lets differ from the correctly rounded ones (the
            // inexact GLSL.std.450 instructions are found by the precision variants).
            133 | 136 | 140 | 141 => inexact = true,
            _ => {}
        }
    }
    (subgroup, coop, inexact)
}

/// How far past the precision variants a device's value may lie and still be precision: the
/// variants err every operation the same way, and errors of mixed signs reach further (on
/// lavapipe, every operation of the precision table on 13,312 words: at most 2.5 times).
const REACH_FACTOR: f64 = 4.0;

/// How far the precision variants' values for a word reach, and whether the device's value
/// is within it: the variants' own value, or (for a 32-bit float word) within
/// [`REACH_FACTOR`] times their largest distance from the simulation's; a word of another type
/// that a variant changes at all depends on precision in ways its type does not bound (float
/// bits hashed or converted).
/// The arithmetic precision variants, as a reason names them.
const ARITHMETIC: &str =
    "a run whose inexact float operations err to the edge of Vulkan's bound for each (fma unfused)";

fn carried(
    variants: &[u32],
    simulated: u32,
    got: u32,
    ty: Option<ScalarTy>,
    how: &str,
) -> Option<String> {
    const SO: &str = "the word depends on precision the specification leaves to the device";
    if variants.contains(&got) {
        return Some(format!("{how} leaves the device's value here: {SO}"));
    }
    let moved = variants.iter().find(|v| **v != simulated)?;
    if ty != Some(ScalarTy::Float { bits: 32 }) {
        return Some(format!("{how} leaves {moved:#010x} here: {SO}"));
    }
    let value = |x: u32| f64::from(f32::from_bits(x));
    let off = |x: u32| (value(x) - value(simulated)).abs();
    let reach = variants.iter().map(|v| off(*v)).fold(0.0, f64::max);
    (off(got) <= REACH_FACTOR * reach).then(|| {
        format!(
            "{how} moves it by up to {reach:.3e}; the device's value is {:.3e} away, within {REACH_FACTOR} times that: {SO}",
            off(got)
        )
    })
}

/// Whether the module has an `OpSwitch`.
fn has_switch(spirv: &[u32]) -> bool {
    crate::words::instructions(spirv).any(|(op, _, _)| op == 251)
}

/// The scalar type and path of the field holding byte `at` of resource `r`.
struct FieldMap {
    by_offset: BTreeMap<u64, (ScalarTy, String)>,
}

impl FieldMap {
    fn new(prog: &Program, r: usize, len: usize) -> Self {
        let fields = prog.resource_fields(r, len as u64, 1 << 20);
        let by_offset = fields
            .fields
            .into_iter()
            .map(|f| (f.offset, (f.ty, f.path)))
            .collect();
        Self { by_offset }
    }

    fn at(&self, byte: u64) -> Option<&(ScalarTy, String)> {
        self.by_offset
            .range(..=byte)
            .next_back()
            .filter(|(o, (ty, _))| byte < *o + u64::from(ty.size_bytes()))
            .map(|(_, f)| f)
    }
}

/// Whether two float words of type `ty` are within the tolerance the module's inexact
/// operations allow: 2^-11 absolute below 1 and relative above (Vulkan's bound for sin and cos
/// on their principal range, and wider than its ULP bounds for the others on f32).
fn within_tolerance(ty: ScalarTy, a: u32, b: u32) -> Option<String> {
    let (x, y, tol) = match ty {
        ScalarTy::Float { bits: 32 } => (
            f64::from(f32::from_bits(a)),
            f64::from(f32::from_bits(b)),
            2f64.powi(-11),
        ),
        // Two halves in the word: both must be close.
        ScalarTy::Float { bits: 16 } => {
            let h = |w: u32, k: u32| {
                lanescope_core::value::float_to_f64(ty, u64::from(w >> (16 * k) & 0xffff))
            };
            let worst = (0..2)
                .map(|k| {
                    let (x, y) = (h(a, k), h(b, k));
                    (x - y).abs() / x.abs().max(y.abs()).max(1.0)
                })
                .fold(0.0, f64::max);
            return (worst <= 2f64.powi(-8))
                .then(|| format!("f16 values within {worst:.2e} of each other"));
        }
        _ => return None,
    };
    if !x.is_finite() || !y.is_finite() {
        return None;
    }
    let scale = x.abs().max(y.abs()).max(1.0);
    let ulps = (i64::from(a as i32) - i64::from(b as i32)).unsigned_abs();
    ((x - y).abs() <= tol * scale).then(|| format!("{x} and {y}, {ulps} ulp apart"))
}

/// Compares the device's buffers (one per entry of `resources`, a resource index each, as
/// [`prepare`] gave them) with the finished simulation's and classifies every word that
/// differs.
pub fn compare(s: &Simulated<'_>, resources: &[usize], gpu: &GpuRun) -> Comparison {
    if gpu.addresses.is_empty() || !cfg!(feature = "vulkan") {
        return compare_at(s, resources, gpu, gpu.notes.clone());
    }
    // The device placed the buffers where it liked and got the inputs' addresses moved there:
    // the simulation it is compared with runs the same way.
    let mut notes = gpu.notes.clone();
    match crate::address::at_device(s, &gpu.addresses) {
        Ok((bindings, sim, moved)) => {
            notes.insert(0, format!(
                "the device placed the {} buffers reached by address where it chose; {moved} input words holding addresses were moved with them, and the simulation compared ran at the device's addresses",
                gpu.addresses.len()
            ));
            let at = Simulated {
                bindings: &bindings,
                sim: &sim,
                ..*s
            };
            compare_at(&at, resources, gpu, notes)
        }
        Err(e) => {
            notes.insert(0, format!("the simulation at the device's buffer addresses did not run ({e}): the words are compared with the simulation at its own addresses, so those holding addresses differ"));
            compare_at(s, resources, gpu, notes)
        }
    }
}

/// [`compare`] with the simulation at the device's addresses (where they matter).
fn compare_at(
    s: &Simulated<'_>,
    resources: &[usize],
    gpu: &GpuRun,
    notes: Vec<String>,
) -> Comparison {
    let (subgroup_ops, coop, arithmetic) = declares(s.spirv);
    let variants = [crate::precision::Err::Up, crate::precision::Err::Down]
        .map(|way| crate::precision::variant(s.spirv, way));
    let inexact = arithmetic || variants[0].is_some();
    let races = s
        .sim
        .diagnostics()
        .iter()
        .filter(|d| d.code == DiagCode::DataRace)
        .count();
    let mut total = 0;
    // What each compared buffer is: its resource (none for a buffer reached only by its
    // address) and slot; the device's buffers are the resources', then those sharing another's,
    // then those reached only by address.
    let mut places: Vec<(Option<usize>, (u32, u32, u32))> = resources
        .iter()
        .map(|&ri| {
            let r = s.prog.resources().get(ri);
            (
                r.map(|_| ri),
                r.map_or((0, 0, 0), |r| (r.set, r.binding, r.element())),
            )
        })
        .collect();
    let undeclared = if cfg!(feature = "vulkan") && s.prog.physical_addresses() {
        crate::address::undeclared(s, s.sim)
    } else {
        Vec::new()
    };
    let mut got_of: Vec<&[u8]> = gpu
        .buffers
        .iter()
        .take(resources.len())
        .map(Vec::as_slice)
        .collect();
    if gpu.buffers.len() >= undeclared.len() {
        let tail = &gpu.buffers[gpu.buffers.len() - undeclared.len()..];
        for (a, got) in undeclared.iter().zip(tail) {
            places.push((None, (a.set, a.binding, a.element)));
            got_of.push(got);
        }
    }
    let buffer_of = |sim: &Simulator, k: usize| {
        let (set, binding, element) = places[k].1;
        sim.buffer_element(set, binding, element)
            .map(<[u8]>::to_vec)
    };
    // (buffer k, word, simulated, gpu) of every differing word.
    let mut differing = Vec::new();
    for (k, got) in got_of.iter().enumerate() {
        if places[k].0.is_none() && k < resources.len() {
            continue;
        }
        let want = words(&buffer_of(s.sim, k).unwrap_or_default());
        let got = words(got);
        total += want.len();
        for (w, (a, b)) in want.iter().zip(&got).enumerate() {
            if a != b {
                differing.push((k, w, *a, *b));
            }
        }
    }
    // The differing words as another run leaves them (module `prog` under `cfg`), when it
    // finishes: what the other schedules, switch grouping and precision runs are read for.
    let rerun = |prog: Arc<Program>, cfg: Config| -> Option<Vec<Option<u32>>> {
        let cfg = Config {
            record_trace: false,
            ..cfg
        };
        let mut sim = Simulator::new(prog, cfg, s.bindings).ok()?;
        matches!(sim.run(s.max_steps), Ok(Outcome::Finished)).then(|| {
            differing
                .iter()
                .map(|&(k, w, _, _)| {
                    let (set, binding, element) = places[k].1;
                    let c = sim
                        .buffer_element(set, binding, element)?
                        .get(w * 4..w * 4 + 4)?;
                    Some(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                })
                .collect()
        })
    };
    // The values other schedules leave in the differing words.
    let mut seen: Vec<Vec<(Schedule, u32)>> = vec![Vec::new(); differing.len()];
    if !differing.is_empty() {
        for n in 1..s.schedules.max(1) {
            let schedule = Schedule::nth(n);
            let cfg = Config {
                schedule,
                ..s.cfg.clone()
            };
            for (i, v) in rerun(Arc::clone(s.prog), cfg)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if let Some(v) = v {
                    seen[i].push((schedule, v));
                }
            }
        }
    }
    // The value the other switch grouping the specification allows leaves in each differing
    // word (only for a module with a switch in it).
    let mut regrouped: Vec<Option<u32>> = vec![None; differing.len()];
    if !differing.is_empty() && has_switch(s.spirv) {
        let other = match s.cfg.switch_tangles {
            SwitchTangles::PerValue => SwitchTangles::PerCase,
            SwitchTangles::PerCase => SwitchTangles::PerValue,
        };
        let cfg = Config {
            switch_tangles: other,
            ..s.cfg.clone()
        };
        if let Some(v) = rerun(Arc::clone(s.prog), cfg) {
            regrouped = v;
        }
    }
    // The values the module's precision variants leave in the differing words: linear
    // filtering's weights as coarse as the device may keep them, rounded each way, and the
    // inexact float operations erring each way.
    let mut nudged: Vec<Vec<u32>> = vec![Vec::new(); differing.len()];
    let mut nudge = |v: Option<Vec<Option<u32>>>| {
        for (i, v) in v.into_iter().flatten().enumerate() {
            nudged[i].extend(v);
        }
    };
    let filters = s
        .bindings
        .samplers
        .iter()
        .any(|(_, _, d)| d.filter == lanescope_core::program::image::Filter::Linear);
    if filters && !differing.is_empty() {
        for up in [false, true] {
            let cfg = Config {
                sub_texel: Some(lanescope_core::SubTexel {
                    bits: u8::try_from(gpu.device.sub_texel_bits.clamp(1, 30)).unwrap_or(8),
                    up,
                }),
                ..s.cfg.clone()
            };
            nudge(rerun(Arc::clone(s.prog), cfg));
        }
    }
    if inexact && !differing.is_empty() {
        for words in variants.iter().flatten() {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            if let Ok(prog) = load(&bytes, s.opts) {
                nudge(rerun(Arc::new(prog), s.cfg.clone()));
            }
        }
    }
    let how = match (inexact, filters) {
        (true, true) => format!("{ARITHMETIC}, or whose linear filtering keeps {} bits of each weight (the device's sub-texel precision)", gpu.device.sub_texel_bits),
        (false, true) => format!("a run whose linear filtering keeps {} bits of each weight (the device's sub-texel precision)", gpu.device.sub_texel_bits),
        _ => ARITHMETIC.to_string(),
    };
    let mut poisoned: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut fields: BTreeMap<usize, FieldMap> = BTreeMap::new();
    let mut classes: BTreeMap<&'static str, usize> =
        Class::ALL.iter().map(|c| (c.name(), 0)).collect();
    let mut differences = Vec::new();
    let mut more = 0;
    for (i, &(k, w, simulated, got)) in differing.iter().enumerate() {
        let (resource, (set, binding, element)) = places[k];
        // Poison, and data read from memory nobody wrote: both undefined.
        let poison = poisoned.entry(k).or_insert_with(|| {
            let Some(ri) = resource else {
                return Vec::new();
            };
            let mut w = s.sim.resource_poisoned_words(ri);
            w.extend(s.sim.resource_uninitialized_words(ri));
            w.sort_unstable();
            w
        });
        let len = s
            .sim
            .buffer_element(set, binding, element)
            .map_or(0, <[u8]>::len);
        let field = resource.and_then(|ri| {
            fields
                .entry(ri)
                .or_insert_with(|| FieldMap::new(s.prog, ri, len))
                .at(w as u64 * 4)
                .cloned()
        });
        let others = &seen[i];
        let reproduced = others.iter().find(|(_, v)| *v == got);
        let varies = others.iter().any(|(_, v)| *v != simulated);
        let race_note = match races {
            0 => String::new(),
            1 => "; the detectors found a data race".to_string(),
            n => format!("; the detectors found {n} data races"),
        };
        let (class, why) = if poison.binary_search(&w).is_ok() {
            (
                Class::Undefined,
                format!("an undefined value reached it in the simulation (poison, or memory nobody wrote){race_note}"),
            )
        } else if let Some((sch, _)) = reproduced {
            (
                Class::Schedule,
                format!("the schedule `{sch}` leaves the device's value here: the word depends on the order of execution{race_note}"),
            )
        } else if varies {
            (
                Class::Schedule,
                format!(
                    "other schedules leave other values here (the word depends on the order of execution), though none of the {} tried leaves the device's{race_note}",
                    others.len() + 1
                ),
            )
        } else if regrouped[i] == Some(got) {
            let other = match s.cfg.switch_tangles {
                SwitchTangles::PerValue => {
                    "one tangle per case construct (`--switch-tangles per-case`)"
                }
                SwitchTangles::PerCase => {
                    "one tangle per selector value (`--switch-tangles per-value`)"
                }
            };
            (
                Class::LeftOpen,
                format!("the specification lets a switch group its invocations into {other}, and that grouping leaves the device's value here"),
            )
        } else if coop && field.as_ref().is_some_and(|(t, _)| t.is_float()) {
            (
                Class::LeftOpen,
                "a cooperative matrix MulAdd's accumulation order and precision are the implementation's".to_string(),
            )
        } else if gpu.without_maximal_reconvergence && subgroup_ops {
            (
                Class::LeftOpen,
                "the device lacks maximal reconvergence and ran the module without MaximallyReconvergesKHR, so it may group invocations into other tangles than the simulation".to_string(),
            )
        } else if !s.prog.maximal_reconvergence() && subgroup_ops {
            (
                Class::LeftOpen,
                "the entry point lacks MaximallyReconvergesKHR, so the device may group invocations into other tangles than the simulation's maximal reconvergence".to_string(),
            )
        } else if let Some(why) = carried(
            &nudged[i],
            simulated,
            got,
            field.as_ref().map(|f| f.0),
            &how,
        ) {
            (Class::Precision, why)
        } else if let Some(close) = field
            .as_ref()
            .filter(|_| inexact)
            .and_then(|(t, _)| within_tolerance(*t, simulated, got))
        {
            (
                Class::Precision,
                format!("{close}: within the tolerance of the module's inexact float operations"),
            )
        } else {
            (
                Class::Unexplained,
                format!("no schedule of {} reproduces it, nothing undefined reached it, and it is not within a tolerance the specification allows", others.len() + 1),
            )
        };
        *classes.entry(class.name()).or_default() += 1;
        if differences.len() < MAX_LISTED {
            differences.push(Difference {
                set,
                binding,
                element,
                word: w,
                field: field.map(|(_, p)| p),
                simulated,
                gpu: got,
                class,
                why,
            });
        } else {
            more += 1;
        }
    }
    Comparison {
        device: gpu.device.clone(),
        subgroup_size: gpu.subgroup_size,
        without_maximal_reconvergence: gpu.without_maximal_reconvergence,
        coopmat_layout: coop.then(|| s.opts.coopmat_layout.name()),
        words: total,
        identical: total - differing.len(),
        classes,
        differences,
        more,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_words_are_close_within_the_tolerance_only() {
        let f = ScalarTy::Float { bits: 32 };
        let one = 1.0f32.to_bits();
        assert!(within_tolerance(f, one, one + 3).is_some());
        assert!(within_tolerance(f, one, 1.01f32.to_bits()).is_none());
        // Near zero the tolerance is absolute (sin's error bound).
        assert!(within_tolerance(f, 1e-6f32.to_bits(), (-1e-4f32).to_bits()).is_some());
        assert!(within_tolerance(f, f32::NAN.to_bits(), one).is_none());
        // Integers are never "close".
        assert!(within_tolerance(
            ScalarTy::Int {
                bits: 32,
                signed: false
            },
            5,
            6
        )
        .is_none());
    }
}
