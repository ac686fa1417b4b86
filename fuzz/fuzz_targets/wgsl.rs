//! Any text as WGSL: naga's front end, validator and SPIR-V back end (as the app and the CLI
//! run them) end in a module or positioned errors, never a panic or a hang; the module loads or
//! is refused.
#![no_main]

use lanescope_front::{compile, CompileOptions, Language};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(c) = compile(Language::Wgsl, text, &CompileOptions::default()) else {
        return;
    };
    let _ = lanescope_core::load(&c.bytes(), &lanescope_core::LoadOptions::default());
});
