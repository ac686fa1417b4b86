//! Compare's *Run on GPU*: the session's dispatch on the machine's Vulkan device beside the
//! simulation (`lanescope_gpu`), on a thread of its own so no frame waits for the device; the
//! frame loop polls it. The browser build has no device access yet and says so.

use super::session::{Session, Settings};

/// One differing word as the view lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuWord {
    /// The scalar as declared (`outp[7]`), or `set 0 binding 1 word 7`.
    pub at: String,
    /// `set 0 binding 1 word 7`.
    pub place: String,
    pub simulated: u32,
    pub gpu: u32,
    /// The class's name (`schedule`, `precision`, ...).
    pub class: &'static str,
    pub why: String,
}

/// What the view shows of a comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuReport {
    /// `llvmpipe (...), subgroups of 8: 1024 words compared, 1024 identical`.
    pub summary: String,
    /// `159 precision, 1 schedule` (empty when every word is identical).
    pub explained: String,
    pub words: Vec<GpuWord>,
    pub more: usize,
}

/// Why the browser build has no Run on GPU.
pub const BROWSER: &str = "The browser build has no access to a GPU yet: run the native app, or `lanescope run FILE --gpu`.";

/// A run on the device in flight.
pub struct GpuJob {
    /// The thread, until its outcome is taken.
    #[cfg(not(target_arch = "wasm32"))]
    handle: Option<std::thread::JoinHandle<Result<GpuReport, String>>>,
}

#[cfg(not(target_arch = "wasm32"))]
fn place(x: &lanescope_gpu::Difference) -> String {
    match x.element {
        0 => format!("set {} binding {} word {}", x.set, x.binding, x.word),
        e => format!("set {} binding {}[{e}] word {}", x.set, x.binding, x.word),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn report(c: &lanescope_gpu::Comparison) -> GpuReport {
    use lanescope_gpu::Class;
    let d = &c.device;
    GpuReport {
        summary: format!(
            "{} ({}), subgroups of {}{}{}: {} words compared, {} identical",
            d.name,
            d.driver,
            c.subgroup_size,
            if c.without_maximal_reconvergence {
                ", run without maximal reconvergence (the device lacks it)"
            } else {
                ""
            },
            c.coopmat_layout
                .as_ref()
                .map(|l| format!(", cooperative matrices laid out as {l}"))
                .unwrap_or_default(),
            c.words,
            c.identical
        ),
        explained: Class::ALL
            .iter()
            .filter(|k| c.count(**k) > 0)
            .map(|k| format!("{} {}", c.count(*k), k.name()))
            .collect::<Vec<_>>()
            .join(", "),
        words: c
            .differences
            .iter()
            .map(|x| GpuWord {
                at: x.field.clone().unwrap_or_else(|| place(x)),
                place: place(x),
                simulated: x.simulated,
                gpu: x.gpu,
                class: x.class.name(),
                why: x.why.clone(),
            })
            .collect(),
        more: c.more,
    }
}

impl GpuJob {
    /// Starts the session's dispatch (its module, entry point, specialization, initial buffers
    /// and settings) on the first device and returns at once.
    pub fn start(s: &Session, settings: &Settings) -> Result<Self, String> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let request = lanescope_gpu::Request {
                module: s.bytes.clone(),
                load: s.load_options(settings),
                cfg: settings.config(),
                bindings: s.initial.clone(),
                device: 0,
                schedules: 8,
                max_steps: settings.max_steps,
            };
            let handle = std::thread::Builder::new()
                .name("run on GPU".into())
                .spawn(move || lanescope_gpu::beside(&request).map(|c| report(&c)))
                .map_err(|e| format!("cannot start the GPU run: {e}"))?;
            Ok(Self {
                handle: Some(handle),
            })
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = (s, settings);
            Err(BROWSER.to_string())
        }
    }

    /// The outcome, once the run has finished.
    pub fn poll(&mut self) -> Option<Result<GpuReport, String>> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            if !self.handle.as_ref().is_some_and(|h| h.is_finished()) {
                return None;
            }
            let done = self.handle.take()?.join();
            Some(done.unwrap_or_else(|_| Err("the GPU run stopped unexpectedly".into())))
        }
        #[cfg(target_arch = "wasm32")]
        {
            None
        }
    }
}
