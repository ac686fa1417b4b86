//! Any text as SPIR-V assembly: the assembler ends in a module or an error at a line and column,
//! never a panic or a hang; what it assembles disassembles, and loads or is refused.
#![no_main]

use lanescope_core::spvtext::{assemble, disassemble, AsmOptions, DisOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the options, the rest is the text.
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let opts = AsmOptions {
        preserve_numeric_ids: pick & 1 != 0,
        target_env: None,
        source_file: (pick & 2 != 0).then(|| "fuzz.spvasm".to_string()),
    };
    let Ok(words) = assemble(text, &opts) else {
        return;
    };
    let _ = disassemble(&words, &DisOptions::default());
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let _ = lanescope_core::load(&bytes, &lanescope_core::LoadOptions::default());
});
