//! Any bytes: loading ends in a program or an error, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = lanescope_core::load(data, &lanescope_core::LoadOptions::default());
});
