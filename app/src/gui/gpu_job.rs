//! Compare's *Run on GPU*: the session's dispatch on the machine's Vulkan device beside the
//! simulation (`lanescope_gpu`), on a thread of its own so no frame waits for the device; the
//! frame loop polls it. In the browser, a WGSL source's dispatch on the page's WebGPU adapter
//! (`web/webgpu.js`), awaited between frames.

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
    /// How the two were set side by side, where the reader should know (buffers the device
    /// placed at its own addresses).
    pub notes: Vec<String>,
}

/// What the browser's Run on GPU runs, and where else to compare.
pub const BROWSER: &str = "In the browser, Run on GPU runs a WGSL source (open or write a .wgsl file) on the page's WebGPU adapter; other modules run on the machine's Vulkan device in the native app, or with `lanescope run FILE --gpu`.";

/// A run on the device in flight.
pub struct GpuJob {
    /// The thread, until its outcome is taken.
    #[cfg(not(target_arch = "wasm32"))]
    handle: Option<std::thread::JoinHandle<Result<GpuReport, String>>>,
    /// The page's dispatch, until its outcome is taken.
    #[cfg(target_arch = "wasm32")]
    rx: std::sync::mpsc::Receiver<Result<GpuReport, String>>,
}

fn place(x: &lanescope_gpu::Difference) -> String {
    match x.element {
        0 => format!("set {} binding {} word {}", x.set, x.binding, x.word),
        e => format!("set {} binding {}[{e}] word {}", x.set, x.binding, x.word),
    }
}

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
        notes: c.notes.clone(),
    }
}

/// The WGSL source a session was compiled from and its overrides' values (what the browser's
/// WebGPU runs: the pipeline gets the values as its `constants`).
#[derive(Clone, Debug)]
pub struct Wgsl {
    pub text: String,
    pub overrides: Vec<(String, f64)>,
}

impl GpuJob {
    /// Starts the session's dispatch (its module, entry point, specialization, initial buffers
    /// and settings) on the first device and returns at once; `wgsl`: the WGSL source the
    /// session was compiled from, if it was (what the browser's WebGPU runs).
    pub fn start(s: &Session, settings: &Settings, wgsl: Option<Wgsl>) -> Result<Self, String> {
        let request = lanescope_gpu::Request {
            module: s.bytes.clone(),
            load: s.load_options(settings),
            cfg: settings.config(),
            bindings: s.initial.clone(),
            device: 0,
            schedules: 8,
            max_steps: settings.max_steps,
        };
        #[cfg(not(target_arch = "wasm32"))]
        {
            let _ = wgsl;
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
            let wgsl = wgsl.ok_or_else(|| BROWSER.to_string())?;
            let (tx, rx) = std::sync::mpsc::channel();
            wasm_bindgen_futures::spawn_local(async move {
                let r = web::beside(&request, &wgsl).await.map(|c| report(&c));
                let _ = tx.send(r);
            });
            Ok(Self { rx })
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
            match self.rx.try_recv() {
                Ok(r) => Some(r),
                Err(std::sync::mpsc::TryRecvError::Empty) => None,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    Some(Err("the WebGPU run stopped unexpectedly".into()))
                }
            }
        }
    }
}

/// WGSL for the browser's WebGPU, which asks for `enable subgroups;` before the subgroup
/// builtins where the simulator's compiler (naga) takes them without it. `uses`: whether the
/// module uses them (its SPIR-V's capabilities say, not its text: a comment may name them).
pub fn for_webgpu(wgsl: &str, uses: bool) -> String {
    let enabled = wgsl
        .lines()
        .any(|l| l.trim_start().starts_with("enable") && l.contains("subgroups"));
    if uses && !enabled {
        format!("enable subgroups;\n{wgsl}")
    } else {
        wgsl.to_string()
    }
}

/// What a page's WebGPU adapter says it is (`web/webgpu.js`).
#[derive(Clone, Debug, Default)]
pub struct WebGpuAdapter {
    pub vendor: String,
    pub architecture: String,
    pub description: String,
    /// `subgroupMinSize`, `subgroupMaxSize` (0: the browser does not say).
    pub subgroup_sizes: [u32; 2],
    pub features: Vec<String>,
}

/// The adapter as a device the comparison knows (WGSL's subgroup operations where it has
/// them), and the subgroup sizes its pipelines may run at, ascending (WebGPU names a range and
/// cannot fix one: the comparison simulates each, [`lanescope_gpu::Candidates`]); or why no
/// comparison can be made on it. `wanted`: the size to simulate at where the module's words
/// cannot depend on it (`subgroups`: whether the module uses subgroup operations).
pub fn webgpu_device(
    a: &WebGpuAdapter,
    subgroups: bool,
    wanted: u32,
) -> Result<(lanescope_gpu::DeviceInfo, Vec<u32>), String> {
    let has = |f: &str| a.features.iter().any(|x| x == f);
    let name = format!("{} {}", a.vendor, a.architecture)
        .trim()
        .to_string();
    let name = if name.is_empty() {
        "the WebGPU adapter".to_string()
    } else {
        name
    };
    if subgroups && !has("subgroups") {
        return Err(format!(
            "{name} has no `subgroups` feature: this browser's WebGPU runs no subgroup operations, and the module uses them"
        ));
    }
    let may_run = match a.subgroup_sizes {
        // (a browser that does not say: every size the simulator runs)
        [0, _] | [_, 0] => lanescope_gpu::sizes_within([4, 128]),
        [lo, hi] => lanescope_gpu::sizes_within([lo, hi]),
    };
    // The size cannot show in the words of a module without subgroup operations: one
    // simulation, at the wanted size where the device may run it.
    let sizes = match may_run.first() {
        _ if subgroups => may_run.clone(),
        Some(&first) if !may_run.contains(&wanted) => vec![first],
        _ => vec![wanted],
    };
    if sizes.is_empty() {
        let [lo, hi] = a.subgroup_sizes;
        let runs = if lo == hi {
            lo.to_string()
        } else {
            format!("{lo} to {hi}")
        };
        return Err(format!(
            "{name} runs subgroups of {runs} invocations, which the simulator does not (4 to 128, a power of two)"
        ));
    }
    let info = lanescope_gpu::DeviceInfo {
        name,
        kind: "WebGPU",
        // (what the summary names after the device: its API, and the adapter's own words)
        driver: match a.description.as_str() {
            "" => "WebGPU".into(),
            d => format!("WebGPU: {d}"),
        },
        api_version: "WebGPU".into(),
        subgroup_size: sizes[0],
        subgroup_operations: if has("subgroups") {
            vec![
                "basic",
                "vote",
                "arithmetic",
                "ballot",
                "shuffle",
                "shuffle_relative",
                "quad",
            ]
        } else {
            Vec::new()
        },
        integer_dot_product: true,
        storage_16bit: has("shader-f16"),
        // WebGPU does not say; 8 is what the common devices keep
        sub_texel_bits: 8,
        ..lanescope_gpu::DeviceInfo::default()
    };
    Ok((info, sizes))
}

/// The page's side: `index.html` defines `lanescopeWebGpu("adapter")` (a promise of what the
/// adapter is) and `lanescopeWebGpu("run", request)` (a promise of the buffers' bytes after the
/// dispatch); both reject with a sentence.
#[cfg(target_arch = "wasm32")]
mod web {
    use lanescope_gpu::{Candidates, Comparison, GpuRun, Request};
    use wasm_bindgen::{JsCast, JsValue};

    async fn call(what: &str, request: &JsValue) -> Result<JsValue, String> {
        let hook = web_sys::window()
            .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str("lanescopeWebGpu")).ok())
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .ok_or("this page has no WebGPU module: scripts/build-web.sh puts it beside the app")?;
        let promise = hook
            .call2(&JsValue::NULL, &JsValue::from_str(what), request)
            .ok()
            .and_then(|p| p.dyn_into::<js_sys::Promise>().ok())
            .ok_or("the WebGPU module could not be asked")?;
        wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .map_err(|e| e.as_string().unwrap_or_else(|| format!("{e:?}")))
    }

    fn get(o: &JsValue, key: &str) -> JsValue {
        js_sys::Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    fn set(o: &js_sys::Object, key: &str, v: &JsValue) {
        let _ = js_sys::Reflect::set(o, &JsValue::from_str(key), v);
    }

    /// What the page's `lanescopeWebGpu("adapter")` says.
    fn adapter(a: &JsValue) -> crate::gui::gpu_job::WebGpuAdapter {
        let text = |k| get(a, k).as_string().unwrap_or_default();
        let size = |k| get(a, k).as_f64().unwrap_or(0.0) as u32;
        crate::gui::gpu_job::WebGpuAdapter {
            vendor: text("vendor"),
            architecture: text("architecture"),
            description: text("description"),
            subgroup_sizes: [size("subgroupMinSize"), size("subgroupMaxSize")],
            features: js_sys::Array::from(&get(a, "features"))
                .iter()
                .filter_map(|f| f.as_string())
                .collect(),
        }
    }

    /// Simulates `r` at each subgroup size the adapter may run it at, runs `wgsl` (its source)
    /// through WebGPU and compares with the simulation its words agree with.
    pub async fn beside(
        r: &Request,
        wgsl: &crate::gui::gpu_job::Wgsl,
    ) -> Result<Comparison, String> {
        let subgroups =
            lanescope_gpu::module::uses_subgroups(&lanescope_core::explore::words(&r.module));
        let adapter_info = adapter(&call("adapter", &JsValue::NULL).await?);
        let (device, sizes) =
            crate::gui::gpu_job::webgpu_device(&adapter_info, subgroups, r.cfg.subgroup_size)?;
        // A simulation per size, each in a browser task of its own: the page draws its frames
        // between them.
        let mut p = Candidates::none();
        for &size in &sizes {
            p.add(r, &device, size)?;
            crate::gui::clock::next_task().await;
        }
        let may_run_several = |a: &crate::gui::gpu_job::WebGpuAdapter| matches!(a.subgroup_sizes, [lo, hi] if lo != hi || lo == 0);
        let (dispatch, resources) = p.dispatch()?;
        // (WGSL's overrides are constants in the simulated module: their values go as the
        // pipeline's `constants`, never as specialization.)
        if !dispatch.push_constants.is_empty() {
            return Err(
                "immediates (push constants) are not given to the browser's WebGPU yet".into(),
            );
        }
        let bindings = dispatch
            .buffers
            .iter()
            .map(lanescope_gpu::webgpu::binding)
            .collect::<Result<Vec<_>, _>>()?;
        let request = js_sys::Object::new();
        set(
            &request,
            "wgsl",
            &JsValue::from_str(&crate::gui::gpu_job::for_webgpu(&wgsl.text, subgroups)),
        );
        // The overrides' values the simulation's module was compiled with.
        let constants = js_sys::Object::new();
        for (key, value) in &wgsl.overrides {
            set(&constants, key, &JsValue::from_f64(*value));
        }
        set(&request, "constants", &constants);
        set(&request, "entry", &JsValue::from_str(dispatch.entry));
        let groups = js_sys::Array::new();
        for n in dispatch.workgroups {
            groups.push(&JsValue::from_f64(f64::from(n)));
        }
        set(&request, "workgroups", &groups);
        let buffers = js_sys::Array::new();
        for (b, how) in dispatch.buffers.iter().zip(&bindings) {
            use lanescope_gpu::webgpu::Binding;
            let o = js_sys::Object::new();
            let text = |o: &js_sys::Object, k: &str, v: &str| set(o, k, &JsValue::from_str(v));
            set(&o, "group", &JsValue::from_f64(f64::from(b.set)));
            set(&o, "binding", &JsValue::from_f64(f64::from(b.binding)));
            set(&o, "data", &js_sys::Uint8Array::from(&b.data[..]).into());
            match how {
                Binding::Buffer { kind } => {
                    text(&o, "kind", "buffer");
                    text(&o, "type", kind);
                }
                Binding::Storage(t) | Binding::Sampled(t) => {
                    let storage = matches!(how, Binding::Storage(_));
                    text(
                        &o,
                        "kind",
                        if storage {
                            "storage-texture"
                        } else {
                            "texture"
                        },
                    );
                    text(&o, "format", t.format);
                    text(&o, "view", t.view);
                    text(&o, "dimension", t.dimension);
                    text(&o, "mode", t.mode);
                    let size = js_sys::Array::new();
                    for n in t.size {
                        size.push(&JsValue::from_f64(f64::from(n)));
                    }
                    set(&o, "size", &size);
                    set(
                        &o,
                        "texelBytes",
                        &JsValue::from_f64(f64::from(t.texel_bytes)),
                    );
                }
                Binding::Sampler {
                    filter,
                    address,
                    kind,
                } => {
                    text(&o, "kind", "sampler");
                    text(&o, "filter", filter);
                    text(&o, "address", address);
                    text(&o, "type", kind);
                }
            }
            buffers.push(&o);
        }
        set(&request, "buffers", &buffers);
        let reply = call("run", &request.into()).await?;
        let buffers = js_sys::Array::from(&reply)
            .iter()
            .map(|b| js_sys::Uint8Array::new(&b).to_vec())
            .collect();
        let gpu = GpuRun {
            subgroup_size: device.subgroup_size,
            device,
            buffers,
            without_maximal_reconvergence: dispatch.without_maximal_reconvergence,
            addresses: Vec::new(),
            notes: dispatch.notes.clone(),
        };
        let mut c = p.finish(&resources, &gpu);
        if !subgroups && may_run_several(&adapter_info) {
            c.notes.push(format!(
                "the module uses no subgroup operations, so its words cannot depend on the subgroup size: simulated at {} (the device chose its own, unsaid)",
                c.subgroup_size
            ));
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use crate::gui::gpu_job::{for_webgpu, webgpu_device, WebGpuAdapter};

    #[test]
    fn a_webgpu_adapter_is_a_device_at_the_sizes_it_may_run_or_says_why_not() {
        let swiftshader = WebGpuAdapter {
            vendor: "google".into(),
            architecture: "swiftshader".into(),
            subgroup_sizes: [4, 4],
            features: vec!["subgroups".into(), "shader-f16".into()],
            ..WebGpuAdapter::default()
        };
        let (d, sizes) = webgpu_device(&swiftshader, true, 32).expect("a device");
        assert_eq!(
            (d.name.as_str(), d.driver.as_str()),
            ("google swiftshader", "WebGPU")
        );
        assert_eq!((d.subgroup_size, sizes), (4, vec![4]));
        assert!(d.storage_16bit && d.subgroup_operations.contains(&"arithmetic"));
        // A range WebGPU cannot fix: each size of it the simulator runs is tried.
        let ranged = WebGpuAdapter {
            subgroup_sizes: [2, 64],
            ..swiftshader.clone()
        };
        let (d, sizes) = webgpu_device(&ranged, true, 32).expect("a device");
        assert_eq!((d.subgroup_size, sizes), (4, vec![4, 8, 16, 32, 64]));
        // A browser that does not say: every size.
        let unsaid = WebGpuAdapter {
            subgroup_sizes: [0, 0],
            ..swiftshader.clone()
        };
        assert_eq!(webgpu_device(&unsaid, true, 32).unwrap().1.len(), 6);
        // A module without subgroup operations: the size cannot show, one simulation, at the
        // wanted size where the device may run it.
        assert_eq!(webgpu_device(&unsaid, false, 16).unwrap().1, [16]);
        assert_eq!(webgpu_device(&ranged, false, 16).unwrap().1, [16]);
        assert_eq!(webgpu_device(&swiftshader, false, 32).unwrap().1, [4]);
        let odd = WebGpuAdapter {
            subgroup_sizes: [2, 2],
            ..swiftshader.clone()
        };
        let why = webgpu_device(&odd, true, 32).unwrap_err();
        assert!(
            why.contains("subgroups of 2 invocations") && why.contains("4 to 128"),
            "{why}"
        );
        let none = WebGpuAdapter {
            features: Vec::new(),
            ..swiftshader
        };
        assert!(webgpu_device(&none, true, 32)
            .unwrap_err()
            .contains("no `subgroups` feature"));
        // ... which runs a module without subgroup operations, and says it has none.
        let (d, sizes) = webgpu_device(&none, false, 32).expect("a device");
        assert_eq!((sizes, d.subgroup_operations.len()), (vec![4], 0));
    }

    #[test]
    fn the_browser_gets_the_enable_directive_its_wgsl_asks_for() {
        let plain = "@compute @workgroup_size(4) fn main() {}\n";
        assert_eq!(for_webgpu(plain, false), plain);
        let sg = "fn f(x: u32) -> u32 { return subgroupAdd(x); }\n";
        assert_eq!(for_webgpu(sg, true), format!("enable subgroups;\n{sg}"));
        let enabled = format!("enable subgroups;\n{sg}");
        assert_eq!(for_webgpu(&enabled, true), enabled);
        // A comment naming them asks for nothing (an adapter without the feature would refuse
        // the directive).
        let said = "// no subgroupAdd here\n@compute @workgroup_size(4) fn main() {}\n";
        assert_eq!(for_webgpu(said, false), said);
    }
}
