//! Work that answers later (file dialogs, reading a dropped file in the browser), polled once a
//! frame. A worker that dies without answering becomes an error for the error bar, never a panic
//! of the UI thread: the session on screen must outlive any dialog.

use std::sync::mpsc;

/// What a poll finds.
#[derive(Debug, PartialEq, Eq)]
pub enum Poll<T> {
    Waiting,
    Ready(T),
    /// The worker ended without an answer (it panicked, or could not start).
    Lost,
}

/// An answer under way. Poll it until it is `Ready` or `Lost`, then drop it.
pub struct Pending<T> {
    rx: mpsc::Receiver<T>,
}

impl<T> Pending<T> {
    /// An answer already there.
    pub fn ready(value: T) -> Self {
        let (tx, rx) = mpsc::channel();
        let _ = tx.send(value);
        Self { rx }
    }

    pub fn poll(&self) -> Poll<T> {
        match self.rx.try_recv() {
            Ok(v) => Poll::Ready(v),
            Err(mpsc::TryRecvError::Empty) => Poll::Waiting,
            Err(mpsc::TryRecvError::Disconnected) => Poll::Lost,
        }
    }
}

impl<T: Send + 'static> Pending<T> {
    /// Runs `work` on a thread of its own (a native dialog blocks until it closes).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn spawn(name: &str, work: impl FnOnce() -> T + Send + 'static) -> Self {
        let (tx, rx) = mpsc::channel();
        // A thread that panics, or is never started, drops `tx`: the poll says `Lost`.
        let _ = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                let _ = tx.send(work());
            });
        Self { rx }
    }
}

impl<T: 'static> Pending<T> {
    /// Runs `work` on the browser's event loop.
    #[cfg(target_arch = "wasm32")]
    pub fn spawn_local(work: impl std::future::Future<Output = T> + 'static) -> Self {
        let (tx, rx) = mpsc::channel();
        wasm_bindgen_futures::spawn_local(async move {
            let _ = tx.send(work.await);
        });
        Self { rx }
    }
}

/// Runs a native rfd dialog and tells a cancel from a dialog that could not be shown. rfd's
/// portal backend answers `None` for both: when the portal cannot be reached (no D-Bus session,
/// no portal service) it logs why, tries `zenity`, logs that failure too and gives up. Those log
/// records, caught on this thread while the dialog runs, are how the failure is told apart.
#[cfg(not(target_arch = "wasm32"))]
pub fn native<T>(dialog: impl FnOnce() -> Option<T>) -> Result<Option<T>, String> {
    capture::start();
    let picked = dialog();
    let failures = capture::finish();
    match picked {
        Some(p) => Ok(Some(p)),
        None => match unavailable(&failures) {
            Some(why) => Err(format!("no file dialog available: {why}")),
            None => Ok(None),
        },
    }
}

/// Why no dialog appeared, from rfd's error records; `None` when one did (it was cancelled).
#[cfg(not(target_arch = "wasm32"))]
fn unavailable(failures: &[String]) -> Option<String> {
    // The portal failed and so did the zenity fallback; with zenity working the person saw a
    // dialog and cancelled it.
    if !failures.iter().any(|f| f.contains("zenity")) {
        return None;
    }
    // The portal's reason is the useful one ("Failed to pick file: <reason>").
    let first = &failures[0];
    Some(
        first
            .split_once(": ")
            .map_or(first.as_str(), |(_, why)| why)
            .to_owned(),
    )
}

#[cfg(not(target_arch = "wasm32"))]
mod capture {
    //! A logger that keeps rfd's error records, per thread, only while a dialog runs.

    use std::cell::RefCell;

    thread_local! {
        static RECORDS: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
    }

    struct Capture;

    impl log::Log for Capture {
        fn enabled(&self, m: &log::Metadata<'_>) -> bool {
            m.level() <= log::Level::Error && m.target().starts_with("rfd")
        }

        fn log(&self, r: &log::Record<'_>) {
            if self.enabled(r.metadata()) {
                RECORDS.with(|c| {
                    if let Some(v) = c.borrow_mut().as_mut() {
                        v.push(r.args().to_string());
                    }
                });
            }
        }

        fn flush(&self) {}
    }

    static CAPTURE: Capture = Capture;

    pub fn start() {
        // Only if no other logger is installed; without it every `None` reads as a cancel.
        if log::set_logger(&CAPTURE).is_ok() {
            log::set_max_level(log::LevelFilter::Error);
        }
        RECORDS.with(|c| *c.borrow_mut() = Some(Vec::new()));
    }

    pub fn finish() -> Vec<String> {
        RECORDS.with(|c| c.borrow_mut().take()).unwrap_or_default()
    }
}

/// A file the open dialog delivered as (name, bytes), `None` when cancelled, or why there is
/// none (no dialog could be shown, the file could not be read).
pub type Picked = Result<Option<(String, Vec<u8>)>, String>;
/// What the open dialog or a drop brought: every file (in the browser several at once, the
/// headers of a source among them), none when the dialog was cancelled.
pub type Opened = Result<Vec<(String, Vec<u8>)>, String>;
/// A save under way: resolves to where it went (`None`: cancelled), or why not.
pub type Saving = Pending<Result<Option<String>, String>>;

#[cfg(test)]
mod tests {
    use super::{native, unavailable, Pending, Poll};

    #[test]
    fn a_worker_that_panics_is_lost_not_a_panic_here() {
        let p: Pending<u32> = Pending::spawn("test", || panic!("worker fails"));
        // However loaded the machine, the panicking worker ends: wait for it, not for a time.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut got = Poll::Waiting;
        while std::time::Instant::now() < deadline {
            got = p.poll();
            if got != Poll::Waiting {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        assert_eq!(got, Poll::Lost);
        let q = Pending::spawn("test", || 7);
        while q.poll() == Poll::Waiting {}
        assert_eq!(Pending::ready(3).poll(), Poll::Ready(3));
    }

    #[test]
    fn a_dialog_that_could_not_be_shown_is_an_error_and_a_cancel_is_not() {
        // As rfd 0.15's portal backend logs a failed portal call and a failed zenity fallback.
        let r = native(|| -> Option<u8> {
            log::error!(target: "rfd::backend::xdg_desktop_portal", "Failed to pick file: no D-Bus");
            log::error!(
                target: "rfd::backend::xdg_desktop_portal",
                "Failed to pick file with zenity: No such file or directory (os error 2)"
            );
            None
        });
        assert_eq!(r, Err("no file dialog available: no D-Bus".to_owned()));
        assert_eq!(native(|| -> Option<u8> { None }), Ok(None), "cancelled");
        assert_eq!(native(|| Some(5)), Ok(Some(5)));
        // The portal failed but zenity showed a dialog that was cancelled.
        assert_eq!(unavailable(&["Failed to pick file: x".into()]), None);
        // Other threads' records do not count.
        let other = std::thread::spawn(|| {
            native(|| -> Option<u8> {
                std::thread::spawn(|| {
                    log::error!(target: "rfd::x", "Failed with zenity: elsewhere");
                })
                .join()
                .unwrap();
                None
            })
        });
        assert_eq!(other.join().unwrap(), Ok(None));
    }
}
