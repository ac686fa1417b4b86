//! Any text as GLSL or HLSL through glslang in-process (the first byte picks the language and
//! whether `-D` macros are given): glslang ends in a module or positioned errors, never a crash;
//! a module loads or is refused. Built only with `--features glsl` (glslang is C++, outside the
//! sanitizer's view: crashes and hangs are what this finds). The app and the command line run
//! the same compile in a worker process under time and memory limits.
#![no_main]

use lanescope_front::{compile, CompileOptions, Language};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    // Macro bombs only cost time: the worker's limit stops them in the app.
    if text.matches("#define").count() > 8 {
        return;
    }
    let language = if pick & 1 == 0 { Language::Glsl } else { Language::Hlsl };
    let opts = CompileOptions {
        file_name: "fuzz.comp".into(),
        defines: if pick & 2 != 0 {
            vec![("WIDTH".into(), Some("4".into())), ("T".into(), None)]
        } else {
            Vec::new()
        },
        ..CompileOptions::default()
    };
    if let Ok(c) = compile(language, text, &opts) {
        let _ = lanescope_core::load(&c.bytes(), &lanescope_core::LoadOptions::default());
    }
});
