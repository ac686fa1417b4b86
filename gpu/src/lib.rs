//! The machine's GPU beside the specification: the same dispatch run on a Vulkan device
//! ([`vulkan`]) and every output word that differs from the simulation classified
//! ([`compare`]).
//!
//! This is the one crate that calls into a driver, so the one that may use `unsafe`: every
//! Vulkan call goes through ash's raw bindings (chosen over wgpu's SPIR-V passthrough because a
//! comparison needs control wgpu does not give: the required subgroup size, full subgroups,
//! and enabling `VK_KHR_shader_maximal_reconvergence`, subgroup rotate, cooperative matrices
//! and 8/16-bit storage as the module asks).
#![allow(unsafe_code)]

pub mod address;
pub mod compare;
pub mod device;
#[cfg(feature = "vulkan")]
pub mod layout;
pub mod module;
pub mod precision;
#[cfg(test)]
mod testing;
#[cfg(feature = "vulkan")]
pub mod vulkan;
pub mod webgpu;
mod words;

pub use compare::{compare, Class, Comparison, Difference};
pub use device::{DeviceInfo, Dispatch, GpuBuffer, GpuError, GpuImage, GpuRun};
#[cfg(feature = "vulkan")]
pub use vulkan::{devices, pick, run};

use lanescope_core::coopmat::LayoutChoice;
use lanescope_core::program::Program;
use lanescope_core::value::ScalarTy;
use lanescope_core::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
use std::sync::Arc;

/// The subgroup size a comparison on `device` runs at: `wanted` where the device runs it (or
/// can be asked for it), the device's own where `wanted` may give way (it was a default), else
/// why not.
pub fn subgroup_size_for(
    device: &DeviceInfo,
    wanted: u32,
    may_give_way: bool,
) -> Result<u32, String> {
    let runs = match device.subgroup_size_range {
        Some([lo, hi]) => (lo..=hi).contains(&wanted),
        None => wanted == device.subgroup_size,
    };
    if runs {
        Ok(wanted)
    } else if may_give_way {
        Ok(device.subgroup_size)
    } else {
        let sizes = match device.subgroup_size_range {
            Some([lo, hi]) => format!("{lo} to {hi}"),
            None => device.subgroup_size.to_string(),
        };
        Err(format!(
            "{} cannot run subgroups of {wanted} (it runs {sizes})",
            device.name
        ))
    }
}

/// The specialization constants `opts` overrides, as the bytes the device takes (booleans as
/// 32-bit VkBool32s, the others their own size); an id the module lacks is left out, as the
/// simulation leaves it.
pub fn spec_bytes(prog: &Program, opts: &LoadOptions) -> Result<Vec<(u32, Vec<u8>)>, String> {
    let mut out = Vec::new();
    for (id, value) in &opts.spec {
        let Some(c) = prog.spec_constants().iter().find(|c| c.spec_id == *id) else {
            continue;
        };
        let bits = value
            .bits_for(c.ty)
            .map_err(|e| format!("specialization constant {id}: {e}"))?;
        let size = match c.ty {
            ScalarTy::Bool => 4,
            t => t.size_bytes() as usize,
        };
        out.push((*id, bits.to_le_bytes()[..size.min(8)].to_vec()));
    }
    Ok(out)
}

/// A whole comparison, for a caller holding a module and its settings (the app's Run on GPU).
#[derive(Clone, Debug)]
pub struct Request {
    /// The module's bytes.
    pub module: Vec<u8>,
    pub load: LoadOptions,
    pub cfg: Config,
    pub bindings: Bindings,
    /// The device ([`DeviceInfo::index`]).
    pub device: usize,
    pub schedules: u64,
    pub max_steps: u64,
}

/// A comparison up to the device's run: the module loaded at the subgroup size the device runs
/// (the request's where it can) and simulated to the end. [`Prepared::dispatch`] is what the
/// device runs, [`Prepared::finish`] compares what it left.
pub struct Prepared {
    opts: LoadOptions,
    prog: Arc<Program>,
    cfg: Config,
    bindings: Bindings,
    sim: Simulator,
    spirv: Vec<u32>,
    schedules: u64,
    max_steps: u64,
    device: DeviceInfo,
}

impl Prepared {
    /// Checks that `device` can run the request's module, then loads it for the device (under
    /// the cooperative-matrix layout `measure` gives for the load options, when it gives one)
    /// and simulates it.
    pub fn new(
        r: &Request,
        device: &DeviceInfo,
        measure: impl FnOnce(&LoadOptions) -> Result<Option<LayoutChoice>, String>,
    ) -> Result<Self, String> {
        let spirv = lanescope_core::explore::words(&r.module);
        // What the device lacks is said before the simulation is made for it (a module it
        // cannot run may not even load at its subgroup size).
        let check = module::without_maximal_reconvergence(&spirv);
        module::check_module(check.as_deref().unwrap_or(&spirv), device)
            .map_err(|e| e.to_string())?;
        let size = subgroup_size_for(device, r.cfg.subgroup_size, true)?;
        let mut opts = LoadOptions {
            subgroup_size: Some(size),
            ..r.load.clone()
        };
        if let Some(l) = measure(&opts)? {
            opts.coopmat_layout = l;
        }
        let cfg = Config {
            subgroup_size: size,
            record_trace: false,
            ..r.cfg.clone()
        };
        let prog = Arc::new(load(&r.module, &opts).map_err(|e| e.to_string())?);
        let mut sim = Simulator::new(Arc::clone(&prog), cfg.clone(), &r.bindings)
            .map_err(|e| e.to_string())?;
        match sim.run(r.max_steps).map_err(|e| e.to_string())? {
            Outcome::Finished => {}
            Outcome::Budget => {
                return Err(format!(
                    "the simulation did not finish within {} steps",
                    r.max_steps
                ))
            }
        }
        Ok(Self {
            opts,
            prog,
            cfg,
            bindings: r.bindings.clone(),
            sim,
            spirv,
            schedules: r.schedules,
            max_steps: r.max_steps,
            device: device.clone(),
        })
    }

    fn simulated(&self) -> compare::Simulated<'_> {
        compare::Simulated {
            opts: &self.opts,
            prog: &self.prog,
            cfg: &self.cfg,
            bindings: &self.bindings,
            sim: &self.sim,
            spirv: &self.spirv,
            schedules: self.schedules,
            max_steps: self.max_steps,
        }
    }

    /// The dispatch the device runs, and the resource each of its buffers is.
    pub fn dispatch(&self) -> Result<(Dispatch<'_>, Vec<usize>), String> {
        compare::prepare(
            &self.simulated(),
            spec_bytes(&self.prog, &self.opts)?,
            &self.device,
        )
        .map_err(|e| e.to_string())
    }

    /// Every word the device left (`gpu`, from [`Prepared::dispatch`]'s dispatch) beside the
    /// simulation's, classified.
    pub fn finish(&self, resources: &[usize], gpu: &GpuRun) -> Comparison {
        compare(&self.simulated(), resources, gpu)
    }
}

/// Loads the module at the subgroup size the device runs (the request's where it can),
/// simulates it to the end, runs it on the device and compares.
#[cfg(feature = "vulkan")]
pub fn beside(r: &Request) -> Result<Comparison, String> {
    let device =
        pick(&devices().map_err(|e| e.to_string())?, r.device).map_err(|e| e.to_string())?;
    // The device's own cooperative-matrix layout, measured (kept in the user's cache).
    let cache = layout::Cache::user();
    let p = Prepared::new(r, &device, |opts| {
        layout::device_layout(&device, &r.module, opts, cache.as_ref())
    })?;
    let (dispatch, resources) = p.dispatch()?;
    let gpu = run(&dispatch).map_err(|e| e.to_string())?;
    Ok(p.finish(&resources, &gpu))
}

/// The simulator's subgroup sizes (powers of two, 4 to 128) within `[lo, hi]`: what a device
/// whose API cannot fix one may run a pipeline at.
pub fn sizes_within([lo, hi]: [u32; 2]) -> Vec<u32> {
    (2..=7)
        .map(|k| 1u32 << k)
        .filter(|s| (lo..=hi).contains(s))
        .collect()
}

/// A comparison on a device whose API cannot fix the subgroup size (WebGPU names a range and
/// each pipeline takes one of it, unsaid): the module simulated at every size the device may
/// run, the device run once, and its words set beside the simulation that explains them best.
pub struct Candidates {
    /// One per size, ascending.
    tries: Vec<Prepared>,
}

impl Candidates {
    /// Simulates `r` on `device` as it runs each of `sizes` (ascending, at least one).
    pub fn new(r: &Request, device: &DeviceInfo, sizes: &[u32]) -> Result<Self, String> {
        if sizes.is_empty() {
            return Err(format!(
                "{} runs no subgroup size the simulator does (4 to 128, a power of two)",
                device.name
            ));
        }
        let mut c = Self::none();
        for &size in sizes {
            c.add(r, device, size)?;
        }
        Ok(c)
    }

    /// No size simulated yet: [`Candidates::add`] each (a caller that lets other work run
    /// between the simulations, as the browser's page does).
    pub fn none() -> Self {
        Self { tries: Vec::new() }
    }

    /// Simulates `r` on `device` as it runs subgroups of `size` (added in ascending order).
    pub fn add(&mut self, r: &Request, device: &DeviceInfo, size: u32) -> Result<(), String> {
        let at = DeviceInfo {
            subgroup_size: size,
            subgroup_size_range: None,
            ..device.clone()
        };
        self.tries.push(Prepared::new(r, &at, |_| Ok(None))?);
        Ok(())
    }

    /// The dispatch the device runs (the same at every size: the API picks the size).
    pub fn dispatch(&self) -> Result<(Dispatch<'_>, Vec<usize>), String> {
        (self.tries.first())
            .ok_or("no subgroup size was simulated")?
            .dispatch()
    }

    /// The device's words beside each simulation; the comparison they agree with best
    /// ([`best_of_sizes`]), with a note of how the size was chosen where there was a choice.
    pub fn finish(&self, resources: &[usize], gpu: &GpuRun) -> Comparison {
        let runs = (self.tries.iter())
            .map(|p| {
                let mut c = p.finish(resources, gpu);
                c.subgroup_size = p.cfg.subgroup_size;
                c
            })
            .collect();
        best_of_sizes(runs)
    }
}

/// Of comparisons of one device run with simulations at several subgroup sizes (ascending),
/// the one the device's words agree with best (fewest differing: the size is one fact for the
/// whole dispatch; then fewest unexplained; the smaller size on a tie), noting the others.
fn best_of_sizes(mut runs: Vec<Comparison>) -> Comparison {
    let miss = |c: &Comparison| (c.words - c.identical, c.count(Class::Unexplained));
    let best = (0..runs.len()).min_by_key(|&i| miss(&runs[i])).unwrap_or(0);
    if runs.len() == 1 {
        return runs.swap_remove(0);
    }
    let sizes = runs
        .iter()
        .map(|c| c.subgroup_size.to_string())
        .collect::<Vec<_>>();
    let tried = match sizes.split_last() {
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let chosen = runs[best].subgroup_size;
    let ties = runs.iter().filter(|c| miss(c) == miss(&runs[best])).count();
    let note = if ties == runs.len() && runs[best].identical == runs[best].words {
        format!(
            "the subgroup size is the device's choice here (WebGPU cannot fix it): simulated at {tried}, every word agrees at each, so these results do not depend on it"
        )
    } else {
        let others = (runs.iter())
            .filter(|c| c.subgroup_size != chosen)
            .map(|c| {
                let (differ, unexplained) = miss(c);
                let size = c.subgroup_size;
                match unexplained {
                    0 => format!("at {size}: {differ} differ"),
                    n => format!("at {size}: {differ} differ, {n} unexplained"),
                }
            })
            .collect::<Vec<_>>()
            .join("; ");
        let (differ, unexplained) = miss(&runs[best]);
        let how = if ties > 1 {
            " (as well as another: the smaller taken)"
        } else {
            ""
        };
        format!(
            "the subgroup size is the device's choice here (WebGPU cannot fix it): simulated at {tried}, the device's words agree best with the simulation at {chosen}{how}, the one shown ({differ} of {} words differ, {unexplained} unexplained; {others})",
            runs[best].words
        )
    };
    let mut c = runs.swap_remove(best);
    c.notes.push(note);
    c
}
