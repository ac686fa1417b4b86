//! Where the files a person opens come from: the open dialog (natively rfd's desktop dialog on
//! a worker thread, in the browser a file input taking several files) and files dropped on the
//! window, each answer polled once a frame and handed to [`LanescopeApp::open_together`].

use super::{dialog, inputs};
#[cfg(not(target_arch = "wasm32"))]
use crate::gui::state::read_module;
#[cfg(target_arch = "wasm32")]
use crate::gui::state::too_large;
use crate::gui::state::{LanescopeApp, NO_DIALOG_HINT};

impl LanescopeApp {
    pub(super) fn start_open_dialog(&mut self) {
        // In the browser a dialog closed with Cancel never answers; asking again replaces it
        // instead of leaving Open dead.
        if self.open_promise.is_some() && !cfg!(target_arch = "wasm32") {
            return;
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.open_promise = Some(dialog::Pending::spawn("open", || {
                let picked = dialog::native(|| {
                    rfd::FileDialog::new()
                        .add_filter(
                            "Shaders",
                            &["spv", "wgsl", "comp", "glsl", "hlsl", "spvasm", "amber"],
                        )
                        .pick_file()
                })
                .map_err(|e| format!("{e} — {NO_DIALOG_HINT}"))?;
                let Some(path) = picked else {
                    return Ok(Vec::new());
                };
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                let bytes = read_module(&path).map_err(|e| format!("{name}: {e}"))?;
                // The whole path: `open` keeps its folder for the files a script names.
                Ok(vec![(path.display().to_string(), bytes)])
            }));
        }
        #[cfg(target_arch = "wasm32")]
        {
            // Several files at once: a source and the headers it includes.
            self.open_promise = Some(dialog::Pending::spawn_local(async {
                let Some(files) = rfd::AsyncFileDialog::new()
                    .add_filter(
                        "Shaders",
                        &[
                            "spv", "wgsl", "comp", "glsl", "hlsl", "hlsli", "h", "spvasm", "amber",
                        ],
                    )
                    .pick_files()
                    .await
                else {
                    return Ok(Vec::new());
                };
                let mut out = Vec::new();
                let mut total = 0u64;
                for file in files {
                    let name = file.file_name();
                    total += file.inner().size() as u64;
                    // Checked before reading: the browser would hold all of it in memory.
                    too_large(total).map_err(|e| format!("{name}: {e}"))?;
                    out.push((name, file.read().await));
                }
                Ok(out)
            }));
        }
    }

    pub(super) fn poll_inputs(&mut self, ctx: &egui::Context) {
        inputs::poll_import(self);
        if let Some(p) = &self.open_promise {
            let answer = p.poll();
            if !matches!(answer, dialog::Poll::Waiting) {
                self.open_promise = None;
            }
            match answer {
                dialog::Poll::Waiting => {}
                dialog::Poll::Ready(Ok(files)) => self.open_together(files),
                dialog::Poll::Ready(Err(e)) => self.dialog_error(e),
                dialog::Poll::Lost => self.dialog_error(format!(
                    "the file dialog stopped unexpectedly — {NO_DIALOG_HINT}"
                )),
            }
        }
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        #[cfg(not(target_arch = "wasm32"))]
        for f in dropped {
            let name = f.path().file_name().map_or_else(
                || "dropped.spv".to_owned(),
                |n| n.to_string_lossy().into_owned(),
            );
            match read_module(f.path()) {
                Ok(b) => self.open(&f.path().display().to_string(), b),
                Err(e) => self.error = Some(format!("{name}: {e}")),
            }
        }
        #[cfg(target_arch = "wasm32")]
        if !dropped.is_empty() && self.open_promise.is_none() {
            // Browsers read files asynchronously: delivered like the open dialog's, all the
            // files dropped together (a source and its headers) in one answer.
            self.open_promise = Some(dialog::Pending::spawn_local(async move {
                let mut out = Vec::new();
                for f in dropped {
                    let name = f.path().file_name().map_or_else(
                        || "dropped.spv".to_owned(),
                        |n| n.to_string_lossy().into_owned(),
                    );
                    match f.bytes_async().await {
                        Ok(bytes) => out.push((name, bytes)),
                        Err(e) => return Err(format!("{name}: {e}")),
                    }
                }
                Ok(out)
            }));
        }
    }

    /// An error from a dialog: in the bar, and natively on stderr too, for a person who started
    /// the app from a terminal when the bar says no dialog could be shown.
    pub(super) fn dialog_error(&mut self, e: String) {
        #[cfg(not(target_arch = "wasm32"))]
        eprintln!("lanescope: {e}");
        self.error = Some(e);
    }
}
