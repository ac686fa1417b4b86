//! `lanescope devices` and `run --gpu`: the dispatch on the machine's Vulkan device, its words
//! compared with the simulation's and each difference explained (`lanescope_gpu`).

use super::{CliError, RunArgs};
use lanescope_core::program::Program;
use lanescope_core::{Bindings, Config, Simulator, SpecValue};
use lanescope_gpu::compare::{Class, Comparison, Simulated};
use lanescope_gpu::{DeviceInfo, Dispatch, GpuError};
use std::fmt::Write as _;
use std::sync::Arc;
/// Schedules tried for a word that differs (as `--explore` would, when it is not given).
const SCHEDULES: u64 = 8;

fn gpu_error(e: &GpuError) -> CliError {
    CliError::Failed(format!("--gpu: {e}"))
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Device `index`, from the machine's list read once per process (the size choice and the
/// comparison both ask).
fn device(index: usize) -> Result<DeviceInfo, CliError> {
    static LIST: std::sync::OnceLock<Result<Vec<DeviceInfo>, GpuError>> =
        std::sync::OnceLock::new();
    let list = LIST
        .get_or_init(lanescope_gpu::devices)
        .as_ref()
        .map_err(gpu_error)?;
    lanescope_gpu::pick(list, index).map_err(|e| gpu_error(&e))
}

/// `lanescope devices`.
pub fn devices(json: bool) -> Result<String, CliError> {
    let list = lanescope_gpu::devices().map_err(|e| CliError::Failed(e.to_string()))?;
    if json {
        let mut s = serde_json::to_string_pretty(&list).unwrap_or_default();
        s.push('\n');
        return Ok(s);
    }
    let mut out = String::new();
    for d in &list {
        writeln!(
            out,
            "{}: {} ({}, Vulkan {})",
            d.index, d.name, d.kind, d.api_version
        )?;
        writeln!(out, "  driver: {}", d.driver)?;
        let range = match d.subgroup_size_range {
            Some([lo, hi]) => format!(" (a pipeline may require {lo} to {hi})"),
            None => " (fixed)".to_string(),
        };
        writeln!(out, "  subgroup size: {}{range}", d.subgroup_size)?;
        writeln!(
            out,
            "  subgroup operations: {}",
            d.subgroup_operations.join(", ")
        )?;
        writeln!(
            out,
            "  maximal reconvergence: {}, rotate: {}, cooperative matrices: {}, integer dot products: {}",
            yes(d.maximal_reconvergence),
            yes(d.subgroup_rotate),
            yes(d.cooperative_matrix),
            yes(d.integer_dot_product)
        )?;
        writeln!(
            out,
            "  8-bit storage: {}, 16-bit storage: {}, full subgroups: {}, filtering weights: {} bits",
            yes(d.storage_8bit),
            yes(d.storage_16bit),
            yes(d.full_subgroups),
            d.sub_texel_bits
        )?;
    }
    Ok(out)
}

/// The subgroup size a `--gpu` run simulates with: `--subgroup-size` where the device can run
/// it, the device's own where `--subgroup-size` was left at its default, else an error.
pub(super) fn subgroup_size(a: &RunArgs) -> Result<(u32, DeviceInfo), CliError> {
    let d = device(a.gpu_device)?;
    let default = a.subgroup_size == Config::default().subgroup_size;
    let size = lanescope_gpu::subgroup_size_for(&d, a.subgroup_size, default).map_err(|e| {
        CliError::Failed(format!(
            "--gpu: {e}; leave --subgroup-size out to simulate with the device's"
        ))
    })?;
    if size != a.subgroup_size {
        eprintln!(
            "note: {} runs subgroups of {size}: the simulation does too",
            d.name
        );
    }
    Ok((size, d))
}

/// The cooperative-matrix layout of the device for the module's matrix types, when it has
/// any and the device runs them: measured by a probe dispatch the first time, then read from
/// the user's cache. A `--coopmat-layout` given too gives way, with a note.
pub(super) fn measured_layout(
    a: &RunArgs,
    module: &[u8],
    opts: &lanescope_core::LoadOptions,
) -> Result<Option<lanescope_core::coopmat::LayoutChoice>, CliError> {
    let d = device(a.gpu_device)?;
    let cache = lanescope_gpu::layout::Cache::user();
    let layout = lanescope_gpu::layout::device_layout(&d, module, opts, cache.as_ref())
        .map_err(|e| CliError::Failed(format!("--gpu: {e}")))?;
    if layout.is_some() {
        let given = a
            .coopmat_layout
            .as_ref()
            .map(|l| format!(" (in place of --coopmat-layout {l})"))
            .unwrap_or_default();
        eprintln!(
            "note: the simulation lays cooperative matrices out as measured on {}{given}",
            d.name
        );
    }
    Ok(layout)
}

/// The `--spec` overrides as the device takes them.
fn spec_bytes(prog: &Program, a: &RunArgs) -> Result<Vec<(u32, Vec<u8>)>, CliError> {
    let opts = lanescope_core::LoadOptions {
        spec: a
            .spec
            .iter()
            .map(|(id, text)| (*id, SpecValue::Text(text.clone())))
            .collect(),
        ..Default::default()
    };
    lanescope_gpu::spec_bytes(prog, &opts).map_err(|e| CliError::Failed(format!("--spec {e}")))
}

/// Runs the dispatch on the device and compares it with the finished simulation `sim`.
pub(super) fn compare(
    a: &RunArgs,
    module: &[u8],
    opts: &lanescope_core::LoadOptions,
    prog: &Arc<Program>,
    cfg: &Config,
    bindings: &Bindings,
    sim: &Simulator,
) -> Result<Comparison, CliError> {
    let spirv = lanescope_core::explore::words(module);
    let s = Simulated {
        opts,
        prog,
        cfg,
        bindings,
        sim,
        spirv: &spirv,
        schedules: a.explore.unwrap_or(SCHEDULES),
        max_steps: a.max_steps,
    };
    let device = device(a.gpu_device)?;
    let (dispatch, resources) = lanescope_gpu::compare::prepare(&s, spec_bytes(prog, a)?, &device)
        .map_err(|e| gpu_error(&e))?;
    let run = lanescope_gpu::run(&dispatch).map_err(|e| gpu_error(&e))?;
    let c = lanescope_gpu::compare(&s, &resources, &run);
    if let Some(path) = &a.gpu_amber {
        if c.count(Class::Unexplained) > 0 && prog.physical_addresses() {
            // AmberScript binds no buffer by device address.
            eprintln!("lanescope: --gpu-amber: the module reaches buffers by device address, which AmberScript cannot bind; `{path}` was not written");
        } else if c.count(Class::Unexplained) > 0 {
            let text = amber(a, &spirv, prog, &dispatch, sim, &c);
            std::fs::write(path, text)
                .map_err(|e| CliError::Failed(format!("cannot write `{path}`: {e}")))?;
        }
    }
    Ok(c)
}

/// The dispatch as an AmberScript expecting the simulation's value at each unexplained word
/// (every other word is left unchecked, so the script fails exactly where the device and the
/// specification disagree).
fn amber(
    a: &RunArgs,
    spirv: &[u32],
    prog: &Program,
    d: &Dispatch<'_>,
    sim: &Simulator,
    c: &Comparison,
) -> String {
    use lanescope_front::amber::{self, SaveBuffer, SaveSession, SaveShader, ShaderFormat};
    let unexplained = |b: &lanescope_gpu::GpuBuffer| -> Vec<usize> {
        c.differences
            .iter()
            .filter(|x| {
                x.class == Class::Unexplained
                    && (x.set, x.binding, x.element) == (b.set, b.binding, b.element)
            })
            .map(|x| x.word * 4)
            .collect()
    };
    let (format, text) = match lanescope_core::spvtext::disassemble(spirv, &Default::default()) {
        Ok(t) => (ShaderFormat::SpirvAsm, t),
        Err(_) => (ShaderFormat::SpirvHex, String::new()),
    };
    let target_env = match (format, spirv.get(1).map(|v| (v >> 8) & 0xff)) {
        (ShaderFormat::SpirvAsm, Some(minor)) if minor > 0 => Some(format!("spv1.{minor}")),
        _ => None,
    };
    let session = SaveSession {
        shader: SaveShader {
            format,
            text,
            target_env,
            words: spirv.to_vec(),
        },
        entry: Some(prog.entry_name().to_owned()),
        buffers: d
            .buffers
            .iter()
            .filter(|b| b.shares.is_none())
            .map(|b| {
                let only = unexplained(b);
                SaveBuffer {
                    set: b.set,
                    binding: b.binding,
                    array_element: b.element,
                    uniform: b.uniform,
                    data: b.data.clone(),
                    element: None,
                    expect: (!only.is_empty())
                        .then(|| sim.buffer_element(b.set, b.binding, b.element))
                        .flatten()
                        .map(<[u8]>::to_vec),
                    expect_only: Some(only),
                }
            })
            .collect(),
        aliases: d
            .buffers
            .iter()
            .filter_map(|b| {
                let of = &d.buffers[b.shares?];
                Some(lanescope_core::BufferAlias {
                    set: b.set,
                    binding: b.binding,
                    element: b.element,
                    of_set: of.set,
                    of_binding: of.binding,
                    of_element: of.element,
                })
            })
            .collect(),
        push_constants: d.push_constants.clone(),
        push_constant_type: None,
        spec: a
            .spec
            .iter()
            .map(|(id, t)| (*id, SpecValue::Text(t.clone())))
            .collect(),
        workgroups: d.workgroups,
        settings: amber::Settings {
            subgroup_size: Some(sim.config().subgroup_size),
            switch_tangles: Some(a.switch_tangles),
            sibling_order: Some(a.sibling_order),
            coopmat_layout: None,
        },
    };
    amber::to_amber(&session)
}

/// The comparison as text: a summary line, then each differing word listed.
pub(super) fn text(c: &Comparison) -> String {
    let mut out = String::new();
    let d = &c.device;
    let _ = writeln!(
        out,
        "GPU: {} ({}), subgroups of {}: {} words compared, {} identical, {} differ",
        d.name,
        d.driver,
        c.subgroup_size,
        c.words,
        c.identical,
        c.words - c.identical
    );
    if let Some(l) = &c.coopmat_layout {
        let _ = writeln!(out, "  cooperative matrices laid out as: {l}");
    }
    if c.without_maximal_reconvergence {
        let _ = writeln!(
            out,
            "  the device lacks maximal reconvergence: the module ran there without MaximallyReconvergesKHR"
        );
    }
    for n in &c.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    if c.words > c.identical {
        let counts: Vec<String> = Class::ALL
            .iter()
            .filter(|k| c.count(**k) > 0)
            .map(|k| format!("{} {}", c.count(*k), k.name()))
            .collect();
        let _ = writeln!(out, "  explained: {}", counts.join(", "));
    }
    for x in &c.differences {
        let at = x
            .field
            .as_ref()
            .map_or_else(String::new, |f| format!(" ({f})"));
        let element = match x.element {
            0 => String::new(),
            e => format!("[{e}]"),
        };
        let _ = writeln!(
            out,
            "  set {} binding {}{element} word {}{at}: simulated {:#010x}, GPU {:#010x}: {}: {}",
            x.set,
            x.binding,
            x.word,
            x.simulated,
            x.gpu,
            x.class.name(),
            x.why
        );
    }
    if c.more > 0 {
        let _ = writeln!(out, "  ... and {} more", c.more);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanescope_core::{load, LoadOptions};

    /// `--gpu-amber`'s script, run by Lanescope's own AmberScript runner, passes: it holds the
    /// dispatch (module, buffers, workgroups, subgroup size) and expects the simulation's value
    /// at each unexplained word, and nowhere else.
    #[test]
    fn the_amberscript_of_a_dispatch_passes_where_it_was_simulated() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../gpu/tests/data/transcendental.spv"
        );
        let bytes = std::fs::read(path).unwrap();
        let spirv = lanescope_core::explore::words(&bytes);
        let a =
            super::super::parse_run(&[path.into(), "--subgroup-size".into(), "8".into()]).unwrap();
        let opts = LoadOptions {
            subgroup_size: Some(8),
            ..LoadOptions::default()
        };
        let prog = Arc::new(load(&bytes, &opts).unwrap());
        let bindings = Bindings::for_example(&prog, u64::MAX).unwrap();
        let cfg = Config {
            subgroup_size: 8,
            workgroups: [2, 1, 1],
            ..Config::default()
        };
        let mut sim = Simulator::new(Arc::clone(&prog), cfg.clone(), &bindings).unwrap();
        sim.run(1_000_000).unwrap();
        let s = Simulated {
            opts: &opts,
            prog: &prog,
            cfg: &cfg,
            bindings: &bindings,
            sim: &sim,
            spirv: &spirv,
            schedules: 1,
            max_steps: 1_000_000,
        };
        let device = DeviceInfo {
            subgroup_size: 8,
            ..DeviceInfo::default()
        };
        let (d, resources) = lanescope_gpu::compare::prepare(&s, Vec::new(), &device).unwrap();
        // A device that left three far-off floats (words 5, 9 and 200 of the output).
        let mut buffers: Vec<Vec<u8>> = resources
            .iter()
            .map(|&r| sim.resource_buffer(&prog.resources()[r]).unwrap().to_vec())
            .collect();
        for w in [5, 9, 200] {
            let b = &mut buffers[1][4 * w..4 * w + 4];
            let x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]) * 3.0 + 7.0;
            b.copy_from_slice(&x.to_le_bytes());
        }
        let gpu = lanescope_gpu::GpuRun {
            device: device.clone(),
            subgroup_size: 8,
            buffers,
            without_maximal_reconvergence: false,
            addresses: Vec::new(),
            notes: Vec::new(),
        };
        let c = lanescope_gpu::compare(&s, &resources, &gpu);
        assert_eq!(c.count(Class::Unexplained), 3, "{c:#?}");
        let text = amber(&a, &spirv, &prog, &d, &sim, &c);
        let expects: Vec<&str> = text.lines().filter(|l| l.starts_with("EXPECT")).collect();
        assert_eq!(expects.len(), 3, "{text}");
        for (e, w) in expects.iter().zip([5, 9, 200]) {
            assert!(
                e.starts_with(&format!("EXPECT buf_0_1 IDX {} EQ ", 4 * w)),
                "{e}"
            );
        }
        assert!(text.contains("RUN"), "{text}");
        let file =
            std::env::temp_dir().join(format!("lanescope-gpu-amber-{}.amber", std::process::id()));
        std::fs::write(&file, &text).unwrap();
        let report =
            super::super::run(&super::super::parse_run(&[file.display().to_string()]).unwrap());
        let _ = std::fs::remove_file(&file);
        let report = report.unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        assert!(
            report.starts_with("PASS") && report.contains("3 of 3"),
            "{report}"
        );
    }
}
