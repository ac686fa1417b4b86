//! `lanescope`: the GUI (no arguments: a built-in example; `lanescope FILE.spv`: that file;
//! `lanescope '#example=…&step=…'`: a permalink) and the headless subcommands (`run`,
//! `example`) for scripts and tests.

#[cfg(not(target_arch = "wasm32"))]
use lanescope::{cli, gui};

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use clap::{CommandFactory, Parser};
    use cli::{Cli, CliError, Command};
    // clap prints help and version itself (exit 0) and usage errors with exit status 2.
    let args = Cli::parse();
    // GLSL compiles run in this same executable as a worker process, so they can be stopped.
    if let Ok(program) = std::env::current_exe() {
        lanescope::set_compile_worker(lanescope_front::WorkerCommand {
            program,
            args: vec!["compile-worker".into()],
        });
    }
    let result = match (args.command, args.open) {
        (Some(Command::Run(a)), _) => cli::run(&a),
        (Some(Command::CompileWorker), _) => {
            let stdout = std::io::stdout();
            lanescope_front::serve_compile_worker(std::io::stdin().lock(), stdout.lock())
                .map(|()| String::new())
                .map_err(CliError::Failed)
        }
        (Some(Command::Example { name, gpu }), _) => cli::run_example(name.as_deref(), gpu),
        (Some(Command::Devices { json }), _) => cli::gpu::devices(json),
        (Some(Command::Dis { file, raw_id, out }), _) => cli::dis(&file, raw_id, out.as_deref()),
        (
            Some(Command::Asm {
                file,
                out,
                preserve_numeric_ids,
                target_env,
                source_lines,
            }),
            _,
        ) => cli::asm(&file, &out, preserve_numeric_ids, target_env, source_lines),
        (Some(Command::Completions { shell }), _) => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "lanescope", &mut out);
            Ok(String::from_utf8_lossy(&out).into_owned())
        }
        (None, None) => gui_main(None, None),
        // A permalink (the fragment, or a whole address holding one).
        (None, Some(link)) if link.contains('#') && !std::path::Path::new(&link).is_file() => {
            let fragment = link[link.find('#').unwrap_or(0)..].to_owned();
            gui_main(None, Some(fragment))
        }
        (None, Some(path)) if std::path::Path::new(&path).is_file() => {
            match lanescope::gui::read_module(std::path::Path::new(&path)) {
                // The whole path: the app names the session by the file and reads the files an
                // AmberScript names beside it.
                // Made absolute, so a bare name still has its folder (includes, FILEs).
                Ok(bytes) => {
                    let full = std::path::absolute(&path)
                        .map_or_else(|_| path.clone(), |p| p.display().to_string());
                    gui_main(Some((full, bytes)), None)
                }
                Err(e) => Err(CliError::Failed(format!("{path}: {e}"))),
            }
        }
        (None, Some(other)) => Err(CliError::Usage(format!(
            "unknown command or missing file `{other}`"
        ))),
    };
    match result {
        Ok(out) => print!("{out}"),
        Err(CliError::Usage(msg)) => {
            eprintln!("error: {msg}\n\n{}", Cli::command().render_usage());
            std::process::exit(2);
        }
        Err(CliError::Failed(msg)) => {
            eprintln!("error: {msg}");
            std::process::exit(1);
        }
        Err(CliError::Source(msg)) => {
            eprintln!("{msg}");
            std::process::exit(1);
        }
        Err(CliError::Exit(code, out)) => {
            print!("{out}");
            std::process::exit(code);
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn gui_main(
    file: Option<(String, Vec<u8>)>,
    link: Option<String>,
) -> Result<String, cli::CliError> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Lanescope")
            .with_inner_size([1400.0, 860.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        "Lanescope",
        options,
        Box::new(move |cc| Ok(Box::new(gui::EframeApp::new(cc, file, link)))),
    )
    .map_err(|e| {
        cli::CliError::Failed(format!(
            "could not open a window: {e}\n\
             (no display? `lanescope example` and `lanescope run FILE.spv` work headless)"
        ))
    })?;
    Ok(String::new())
}

#[cfg(target_arch = "wasm32")]
fn main() {
    lanescope::web::start();
}
