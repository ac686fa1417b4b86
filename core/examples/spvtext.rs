//! A minimal stand-in for `spirv-dis` / `spirv-as` over `lanescope_core::spvtext`, used by
//! `core/tests/data/spvtext/compare.py` to compare the two on a corpus.
//!
//! ```text
//! spvtext dis [--raw-id] [--no-header] [--no-indent] IN.spv        (text to stdout)
//! spvtext as [--preserve-numeric-ids] [--target-env ENV] IN.spvasm OUT.spv
//! ```

use std::process::ExitCode;

use lanescope_core::spvtext::{assemble, disassemble, AsmOptions, DisOptions, TargetEnv};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let (mode, rest) = args.split_first().ok_or("usage: spvtext dis|as ...")?;
    let flag = |name: &str| rest.iter().any(|a| a == name);
    let files: Vec<&String> = {
        let mut files = Vec::new();
        let mut it = rest.iter();
        while let Some(a) = it.next() {
            if a == "--target-env" {
                it.next();
            } else if !a.starts_with("--") {
                files.push(a);
            }
        }
        files
    };
    match mode.as_str() {
        "dis" => {
            let path = files.first().ok_or("no input file")?;
            let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
            if bytes.len() % 4 != 0 {
                return Err(format!("{path}: size is not a multiple of 4"));
            }
            let words: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let opts = DisOptions {
                raw_id: flag("--raw-id"),
                no_header: flag("--no-header"),
                no_indent: flag("--no-indent"),
            };
            let text = disassemble(&words, &opts).map_err(|e| format!("{path}: {e}"))?;
            print!("{text}");
            Ok(())
        }
        "as" => {
            let [input, output] = files[..] else {
                return Err("usage: spvtext as [options] IN.spvasm OUT.spv".into());
            };
            let text = std::fs::read_to_string(input).map_err(|e| format!("{input}: {e}"))?;
            let target_env = match rest.iter().position(|a| a == "--target-env") {
                Some(i) => Some(
                    rest.get(i + 1)
                        .ok_or("--target-env needs a value")?
                        .parse::<TargetEnv>()?,
                ),
                None => None,
            };
            let opts = AsmOptions {
                preserve_numeric_ids: flag("--preserve-numeric-ids"),
                target_env,
                source_file: None,
            };
            let words = assemble(&text, &opts).map_err(|e| format!("{input}:{e}"))?;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(output, bytes).map_err(|e| format!("{output}: {e}"))
        }
        _ => Err(format!("unknown mode '{mode}'")),
    }
}
