//! `lanescope`: headless subcommands (`run`, `example`); with no arguments, runs the built-in
//! example and prints its summary (the GUI opens here once it exists).

mod cli;
mod examples;
mod report;

use cli::CliError;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        None => examples::run_example(None),
        Some("run") => cli::parse_run(&args[1..]).and_then(|a| cli::run(&a)),
        Some("example") => examples::run_example(args.get(1).map(String::as_str)),
        Some("-h" | "--help" | "help") => Ok(format!("{}\n", cli::USAGE)),
        Some(other) => Err(CliError::Usage(format!("unknown command `{other}`"))),
    };
    match result {
        Ok(out) => print!("{out}"),
        Err(CliError::Usage(msg)) => {
            eprintln!("error: {msg}\n{}", cli::USAGE);
            std::process::exit(2);
        }
        Err(CliError::Failed(msg)) => {
            eprintln!("error: {msg}");
            std::process::exit(1);
        }
    }
}
