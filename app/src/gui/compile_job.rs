//! A compile of the editor's text running off the UI thread: natively on a thread of its own
//! (which drives the compile worker process), in the browser in the page's compiler module
//! (glslang built for wasm32 and naga, `web/glsl`), which runs in a Web Worker and is loaded at
//! the first WGSL, GLSL or HLSL compile. The frame loop polls the job; dropping it cancels the
//! compile.

use super::editor::Editor;
use lanescope_front::{CompileError, CompileLimits, Compiled, Language};
use std::sync::mpsc;

type Answer = Result<Compiled, CompileError>;

/// A compile in flight.
pub struct CompileJob {
    /// The text being compiled: a result for text that has changed since is dropped.
    pub text: String,
    started: f64,
    /// A file being opened: the settings it opens under once it compiles (`None`: an edit's
    /// recompile).
    pub open_under: Option<Box<super::session::Settings>>,
    rx: mpsc::Receiver<Answer>,
    #[cfg(not(target_arch = "wasm32"))]
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// Whether compiles of `language` run as a job here rather than on the UI thread: natively
/// those that go to a compile worker, in the browser the languages this build cannot compile
/// itself (the compiler module does).
pub fn in_background(language: Language, any_language: bool) -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    {
        crate::compile_worker().is_some()
            && (any_language || matches!(language, Language::Glsl | Language::Hlsl))
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = any_language;
        in_module(language)
    }
}

/// The languages the browser's compiler module compiles: those the app itself cannot.
#[cfg(target_arch = "wasm32")]
fn in_module(language: Language) -> bool {
    matches!(language, Language::Glsl | Language::Hlsl | Language::Wgsl)
        && !lanescope_front::can_compile(language)
}

/// Whether this build can compile `language` from source: in-process, or in the browser's
/// compiler module.
pub fn can_compile(language: Language) -> bool {
    #[cfg(target_arch = "wasm32")]
    if in_module(language) {
        return true;
    }
    lanescope_front::can_compile(language)
}

impl CompileJob {
    /// Starts compiling `ed`'s text under `limits` and returns at once.
    pub fn start(ed: &Editor, limits: &CompileLimits) -> Self {
        let (tx, rx) = mpsc::channel();
        let (language, text, limits) = (ed.language, ed.text.clone(), *limits);
        let opts = ed.options();
        #[cfg(not(target_arch = "wasm32"))]
        let cancel = {
            let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let stop = std::sync::Arc::clone(&cancel);
            let text = text.clone();
            std::thread::spawn(move || {
                let r = opts.and_then(|opts| {
                    lanescope_front::compile_bounded_cancellable(
                        language,
                        &text,
                        &opts,
                        &limits,
                        crate::compile_worker(),
                        &stop,
                    )
                });
                let _ = tx.send(r);
            });
            cancel
        };
        #[cfg(target_arch = "wasm32")]
        {
            let request =
                opts.map(|o| lanescope_front::compile_request(language, &text, &o, &limits));
            wasm_bindgen_futures::spawn_local(async move {
                let r = match request {
                    Ok(request) => web::compile(request, &limits, language).await,
                    Err(e) => Err(e),
                };
                let _ = tx.send(r);
            });
        }
        Self {
            text,
            started: crate::gui::clock::clock(),
            open_under: None,
            rx,
            #[cfg(not(target_arch = "wasm32"))]
            cancel,
        }
    }

    /// Seconds since the compile started.
    pub fn seconds(&self) -> f64 {
        crate::gui::clock::clock() - self.started
    }

    /// The answer once the compile is done (a compile that died answers with an error).
    pub fn poll(&self) -> Option<Answer> {
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => Some(Err(CompileError::message(
                "the compile stopped without an answer".to_string(),
            ))),
        }
    }
}

impl Drop for CompileJob {
    fn drop(&mut self) {
        #[cfg(not(target_arch = "wasm32"))]
        self.cancel
            .store(true, std::sync::atomic::Ordering::Relaxed);
        // A compile still running in the page's worker is stopped (a later one has not been
        // sent yet: jobs send from the event loop, after this frame).
        #[cfg(target_arch = "wasm32")]
        if matches!(self.rx.try_recv(), Err(mpsc::TryRecvError::Empty)) {
            web::cancel();
        }
    }
}

/// The page's side of the compiler module: `index.html` defines `lanescopeCompile(request,
/// milliseconds)` (a promise of the reply, rejected with `"timeout"`, `"cancelled"` or why the
/// module failed) and `lanescopeCompileCancel()`.
#[cfg(target_arch = "wasm32")]
mod web {
    use crate::gui::compile_job::{Answer, CompileError, CompileLimits, Language};
    use wasm_bindgen::{JsCast, JsValue};

    fn hook(name: &str) -> Option<js_sys::Function> {
        let w = web_sys::window()?;
        js_sys::Reflect::get(&w, &JsValue::from_str(name))
            .ok()?
            .dyn_into()
            .ok()
    }

    pub async fn compile(request: String, limits: &CompileLimits, language: Language) -> Answer {
        let lang = match language {
            Language::Hlsl => "HLSL",
            Language::Wgsl => "WGSL",
            _ => "GLSL",
        };
        let Some(f) = hook("lanescopeCompile") else {
            return Err(CompileError::message(format!(
                "this page has no {lang} compiler: scripts/build-web.sh builds it beside the app"
            )));
        };
        let ms = limits.time.as_secs_f64() * 1000.0;
        let promise = f
            .call2(
                &JsValue::NULL,
                &JsValue::from_str(&request),
                &JsValue::from_f64(ms),
            )
            .ok()
            .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
        let Some(promise) = promise else {
            return Err(CompileError::message(format!(
                "the {lang} compiler could not be asked"
            )));
        };
        match wasm_bindgen_futures::JsFuture::from(promise).await {
            Ok(reply) => lanescope_front::compile_reply(&reply.as_string().unwrap_or_default()),
            Err(why) => Err(CompileError::message(match why.as_string().as_deref() {
                Some("timeout") => format!(
                    "{lang} compile stopped after {} s: the compile time limit (raise it in the \
                     Limits menu)",
                    limits.time.as_secs_f64()
                ),
                Some("cancelled") => format!("{lang} compile cancelled: the text changed"),
                Some(m) => m.to_string(),
                None => format!("the {lang} compiler failed"),
            })),
        }
    }

    pub fn cancel() {
        if let Some(f) = hook("lanescopeCompileCancel") {
            let _ = f.call0(&JsValue::NULL);
        }
    }
}
