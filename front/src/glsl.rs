//! GLSL and HLSL compute shaders compiled in-process by glslang (native builds only: glslang
//! is C++), with `#include` resolved from disk, `-D` macros and a target environment.
//!
//! The `glslang` crate's safe API compiles but cannot ask for debug information, and the source
//! view needs line information. This module is the one place that allows `unsafe`: it drives
//! glslang's C interface (`glslang-sys`, the crate's own FFI) the way `glslangValidator -gVS`
//! does. Every call is on handles this module created and owns, freed once by `Drop`; strings
//! passed in are NUL-terminated `CString`s that outlive the calls; strings read back are copied
//! before the handle that owns them is freed. Compiles are serialised by a lock because the
//! compiler's process-wide state is not documented as thread-safe. A patched fork of the crate
//! would have needed the same unsafe code plus a vendored copy to keep current.

use crate::compile::{CompileError, CompileOptions, Compiled};

#[cfg(not(feature = "glsl"))]
pub fn compile(
    _source: &str,
    _opts: &CompileOptions,
    hlsl: bool,
) -> Result<Compiled, CompileError> {
    let lang = if hlsl { "HLSL" } else { "GLSL" };
    Err(CompileError::message(format!(
        "{lang} is compiled by glslang, which only the native build has: open the compiled \
         .spv (its debug information shows the {lang}), or write the shader in WGSL here"
    )))
}

#[cfg_attr(not(feature = "glsl"), allow(dead_code))]
/// A `-D` macro as a line of the preamble glslang reads before the source, or why it cannot
/// be one.
pub fn define_line(name: &str, value: Option<&str>) -> Result<String, String> {
    if !crate::compile::is_macro_name(name) {
        return Err(format!("`-D {name}`: `{name}` is not a macro name"));
    }
    let value = value.unwrap_or("1");
    if value.contains(['\n', '\r', '\0']) {
        return Err(format!("`-D {name}=...`: a macro's value must be one line"));
    }
    Ok(format!("#define {name} {value}\n"))
}

/// `source` with `#include` enabled as glslc (shaderc) enables it, so projects built with glslc
/// (ggml's shaders) compile as they are: the extension is asked for right after `#version` (an
/// `#extension` before it would set the version), and `#line` keeps every later line's number
/// and names its file.
#[cfg_attr(not(feature = "glsl"), allow(dead_code))]
pub fn with_include_extension(source: &str, file_name: &str) -> String {
    // The file's own name on its lines: glslang names the main text's lines after an include
    // returns by it, and has none otherwise (they would be taken for the included file's).
    let name: String = file_name
        .chars()
        .filter(|c| *c != '"' && *c != '\\' && !c.is_control())
        .collect();
    let mut out = String::with_capacity(source.len() + 64);
    let mut done = false;
    for (n, line) in source.split_inclusive('\n').enumerate() {
        out.push_str(line);
        if !done && line.trim_start().starts_with("#version") {
            if !line.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!(
                "#extension GL_GOOGLE_include_directive : enable\n#line {} \"{name}\"\n",
                n + 2
            ));
            done = true;
        }
    }
    out
}

/// glslang (13 and 0.9 here) compiles HLSL's `WavePrefixSum`, `WavePrefixProduct` and
/// `WavePrefixCountBits` to *inclusive* scans, where HLSL (and DXC) define them as exclusive:
/// the module Lanescope runs counts each lane's own value. Each use gets a warning at its place.
#[cfg_attr(not(feature = "glsl"), allow(dead_code))]
pub fn inclusive_prefix_warnings(source: &str) -> Vec<crate::compile::Diagnostic> {
    let mut out = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for name in ["WavePrefixSum", "WavePrefixProduct", "WavePrefixCountBits"] {
            let mut from = 0;
            while let Some(k) = code[from..].find(name) {
                let at = from + k;
                from = at + name.len();
                let before = code[..at].chars().next_back();
                let after = code[from..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                if word(before) || word(after) {
                    continue;
                }
                out.push(crate::compile::Diagnostic {
                    line: n as u32 + 1,
                    column: code[..at].chars().count() as u32 + 1,
                    len: name.len() as u32,
                    message: format!(
                        "glslang compiles {name} as an inclusive scan (this lane's value \
                         included), where HLSL and DXC define it as exclusive: the run follows the \
                         module"
                    ),
                    error: false,
                    file: None,
                });
            }
        }
    }
    out
}

#[cfg_attr(not(feature = "glsl"), allow(dead_code))]
/// glslang's client and SPIR-V versions for a target environment (`None`: Vulkan 1.3 with
/// SPIR-V 1.6), or why it is not one glslang compiles compute shaders for.
pub fn target_versions(
    env: Option<lanescope_core::spvtext::TargetEnv>,
) -> Result<(u32, u32), String> {
    use lanescope_core::spvtext::TargetEnv as E;
    const V: [u32; 5] = [
        1 << 22,
        (1 << 22) | (1 << 12),
        (1 << 22) | (2 << 12),
        (1 << 22) | (3 << 12),
        (1 << 22) | (4 << 12),
    ];
    let spv = |minor: u32| 0x1_0000 | (minor << 8);
    Ok(match env {
        None | Some(E::Vulkan1_3) => (V[3], spv(6)),
        Some(E::Vulkan1_0) => (V[0], spv(0)),
        Some(E::Vulkan1_1) => (V[1], spv(3)),
        Some(E::Vulkan1_1Spv1_4) => (V[1], spv(4)),
        Some(E::Vulkan1_2) => (V[2], spv(5)),
        Some(E::Vulkan1_4) => (V[4], spv(6)),
        Some(E::Spv1_0) => (V[0], spv(0)),
        Some(E::Spv1_1) => (V[1], spv(1)),
        Some(E::Spv1_2) => (V[1], spv(2)),
        Some(E::Spv1_3) => (V[1], spv(3)),
        Some(E::Spv1_4) => (V[1], spv(4)),
        Some(E::Spv1_5) => (V[2], spv(5)),
        Some(E::Spv1_6) => (V[3], spv(6)),
        Some(other) => {
            return Err(format!(
                "target environment {other:?}: GLSL and HLSL compile for Vulkan (vulkan1.0 to \
                 vulkan1.4) or a SPIR-V version (spv1.0 to spv1.6)"
            ))
        }
    })
}

#[cfg(feature = "glsl")]
pub use native::compile;

/// Limits this process's address space to `bytes` (0: no limit), for a compile worker (see
/// `bounded.rs`): glslang's allocations past it fail and end the worker, not the machine.
#[cfg(unix)]
#[allow(unsafe_code)]
pub fn limit_memory(bytes: u64) -> Result<(), String> {
    if bytes == 0 {
        return Ok(());
    }
    let mut now = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut now) } != 0 {
        return Err(format!(
            "compile worker: cannot read the memory limit: {}",
            std::io::Error::last_os_error()
        ));
    }
    // Never above the hard limit already set (raising it needs privileges).
    let want = libc::rlim_t::try_from(bytes).unwrap_or(libc::RLIM_INFINITY);
    let limit = if now.rlim_max == libc::RLIM_INFINITY {
        want
    } else {
        want.min(now.rlim_max)
    };
    let new = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: setrlimit reads one `rlimit` we own; it affects only this process.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &new) } != 0 {
        return Err(format!(
            "compile worker: cannot set the memory limit: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// No address-space limits here (not Unix): the worker is bounded by the time limit alone.
#[cfg(not(unix))]
pub fn limit_memory(_bytes: u64) -> Result<(), String> {
    Ok(())
}

#[cfg(feature = "glsl")]
#[allow(unsafe_code)]
mod native {
    use super::{CompileError, CompileOptions, Compiled};
    use crate::compile::Diagnostic;
    use glslang_sys as sys;
    use std::collections::HashMap;
    use std::ffi::{c_char, c_int, c_void, CStr, CString};
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    static LOCK: Mutex<()> = Mutex::new(());

    /// Copies a C string glslang owns (null reads as empty).
    fn text(p: *const c_char) -> String {
        if p.is_null() {
            return String::new();
        }
        // SAFETY: glslang returns NUL-terminated strings that live as long as their handle,
        // which the caller still holds; the bytes are copied out at once.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    struct Shader(*mut sys::glslang_shader_t);
    impl Drop for Shader {
        fn drop(&mut self) {
            // SAFETY: created by glslang_shader_create, freed only here.
            unsafe { sys::glslang_shader_delete(self.0) }
        }
    }

    struct Program(*mut sys::glslang_program_t);
    impl Drop for Program {
        fn drop(&mut self) {
            // SAFETY: created by glslang_program_create, freed only here (before its shader:
            // see the declaration order in `compile`).
            unsafe { sys::glslang_program_delete(self.0) }
        }
    }

    /// The files `#include` reads, for glslang's include callbacks (its `callbacks_ctx`).
    struct Includes {
        /// Where the compiled file's `#include "..."` look first.
        source_dir: Option<PathBuf>,
        dirs: Vec<PathBuf>,
        /// Each file read, by the name given to glslang, and who included it (for the chain).
        parent: HashMap<String, String>,
        /// Why includes failed, in words (the chain and the places looked in).
        failures: Vec<String>,
        /// The (header, includer) pairs that failed.
        failed: std::collections::HashSet<(String, String)>,
        bytes: usize,
        /// Files given as text (`CompileOptions::include_files`), by their normalised names.
        given: HashMap<String, (String, String)>,
    }

    /// `a/./b/../c` as `a/c`, with `/` for `\`: the form given files are matched in.
    fn normalise(path: &str) -> String {
        let mut parts: Vec<&str> = Vec::new();
        for p in path.split(['/', '\\']) {
            match p {
                "" | "." => {}
                ".." if parts.last().is_some_and(|l| *l != "..") => {
                    parts.pop();
                }
                p => parts.push(p),
            }
        }
        parts.join("/")
    }

    /// Most bytes all the included files of one compile may have together.
    const MAX_INCLUDE_BYTES: usize = 64 << 20;

    /// One include's answer to glslang: the C struct first, so the pointer glslang gets back
    /// is this box's.
    #[repr(C)]
    struct Answer {
        c: sys::glsl_include_result_t,
        name: CString,
        data: Vec<u8>,
    }

    impl Includes {
        fn chain(&self, from: &str) -> String {
            let mut out = String::new();
            let mut at = from.to_string();
            for _ in 0..64 {
                out.push_str(&format!(", included from {at}"));
                match self.parent.get(&at) {
                    Some(p) => at = p.clone(),
                    None => break,
                }
            }
            out
        }

        fn find(
            &mut self,
            header: &str,
            includer: &str,
            local: bool,
            main: &str,
        ) -> Option<Answer> {
            let includer = if includer.is_empty() || !self.parent.contains_key(includer) {
                main.to_string()
            } else {
                includer.to_string()
            };
            let mut places: Vec<PathBuf> = Vec::new();
            if local {
                let own = if includer == main {
                    self.source_dir.clone()
                } else {
                    Path::new(&includer).parent().map(Path::to_path_buf)
                };
                places.extend(own);
            }
            places.extend(self.dirs.iter().cloned());
            // Given files first: relative to the including file's own (given) name, to each
            // place looked in, then as written.
            let given = {
                let mut names: Vec<String> = Vec::new();
                if local {
                    if let Some(dir) = Path::new(&includer).parent() {
                        names.push(normalise(&dir.join(header).to_string_lossy()));
                    }
                }
                names.extend(
                    places
                        .iter()
                        .map(|d| normalise(&d.join(header).to_string_lossy())),
                );
                names.push(normalise(header));
                names
                    .iter()
                    .find_map(|n| self.given.get(n))
                    .map(|(name, text)| (name.clone(), text.clone().into_bytes()))
            };
            if let Some((name_text, data)) = given {
                return self.answer_with(name_text, data, includer, header, local);
            }
            let path = if Path::new(header).is_absolute() {
                Some(PathBuf::from(header)).filter(|p| p.is_file())
            } else {
                places.iter().map(|d| d.join(header)).find(|p| p.is_file())
            };
            let Some(path) = path else {
                let looked: Vec<String> = places
                    .iter()
                    .map(|p| format!("`{}`", p.display()))
                    .collect();
                let what = if looked.is_empty() {
                    "not found: no include directory to look in (give one with -I, or open the file \
                     from disk so its own directory is searched)"
                        .to_string()
                } else {
                    format!("not found in {}", looked.join(", "))
                };
                return self.refuse(header, &includer, local, what);
            };
            let data = match std::fs::read(&path) {
                Ok(d) => d,
                Err(e) => {
                    let what = format!("cannot read `{}`: {e}", path.display());
                    return self.refuse(header, &includer, local, what);
                }
            };
            self.answer_with(path.display().to_string(), data, includer, header, local)
        }

        /// Why `header` (included by `includer`) was not given to glslang, kept for the error.
        /// glslang asks again as `<...>` after a `"..."` include fails: said once.
        fn refuse(
            &mut self,
            header: &str,
            includer: &str,
            local: bool,
            what: String,
        ) -> Option<Answer> {
            let key = (header.to_string(), includer.to_string());
            if local || !self.failed.contains(&key) {
                let chain = self.chain(includer);
                self.failures.push(format!("`{header}`{chain}: {what}"));
                self.failed.insert(key);
            }
            None
        }

        /// The answer for a file found (named `name_text` to glslang), or why it is refused.
        fn answer_with(
            &mut self,
            name_text: String,
            data: Vec<u8>,
            includer: String,
            header: &str,
            local: bool,
        ) -> Option<Answer> {
            self.bytes += data.len();
            if self.bytes > MAX_INCLUDE_BYTES {
                let what = format!(
                    "the included files pass {} MiB together",
                    MAX_INCLUDE_BYTES >> 20
                );
                return self.refuse(header, &includer, local, what);
            }
            self.parent.entry(name_text.clone()).or_insert(includer);
            let name = CString::new(name_text.replace('\0', "")).unwrap_or_default();
            let mut a = Answer {
                c: sys::glsl_include_result_t {
                    header_name: std::ptr::null(),
                    header_data: std::ptr::null(),
                    header_length: data.len(),
                },
                name,
                data,
            };
            a.c.header_name = a.name.as_ptr();
            a.c.header_data = a.data.as_ptr().cast();
            Some(a)
        }
    }

    /// The context glslang hands back to the callbacks.
    struct Ctx {
        includes: Includes,
        main: String,
    }

    fn answer(
        ctx: *mut c_void,
        header: *const c_char,
        includer: *const c_char,
        local: bool,
    ) -> *mut sys::glsl_include_result_t {
        if ctx.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: `ctx` is the `Ctx` that `compile` owns and keeps alive (and borrows nowhere
        // else) while glslang runs; glslang calls back on this thread, inside preprocess.
        let ctx = unsafe { &mut *ctx.cast::<Ctx>() };
        let (header, includer) = (text(header), text(includer));
        match ctx.includes.find(&header, &includer, local, &ctx.main) {
            // Freed by `free_answer`, which glslang calls once per answer.
            Some(a) => Box::into_raw(Box::new(a)).cast(),
            None => std::ptr::null_mut(),
        }
    }

    unsafe extern "C" fn include_local(
        ctx: *mut c_void,
        header: *const c_char,
        includer: *const c_char,
        _depth: usize,
    ) -> *mut sys::glsl_include_result_t {
        answer(ctx, header, includer, true)
    }

    unsafe extern "C" fn include_system(
        ctx: *mut c_void,
        header: *const c_char,
        includer: *const c_char,
        _depth: usize,
    ) -> *mut sys::glsl_include_result_t {
        answer(ctx, header, includer, false)
    }

    unsafe extern "C" fn free_answer(
        _ctx: *mut c_void,
        result: *mut sys::glsl_include_result_t,
    ) -> c_int {
        if !result.is_null() {
            // SAFETY: every non-null result glslang hands back is a box `answer` leaked, whose
            // first field is the C struct (`repr(C)`); glslang frees each once.
            drop(unsafe { Box::from_raw(result.cast::<Answer>()) });
        }
        0
    }

    /// Compiles a GLSL (or, with `hlsl`, HLSL) compute shader for the target environment
    /// (Vulkan 1.3 / SPIR-V 1.6 by default) with line and source-variable debug information
    /// (NonSemantic.Shader.DebugInfo.100 plus the text), its macros defined and its includes
    /// read from disk.
    pub fn compile(
        source: &str,
        opts: &CompileOptions,
        hlsl: bool,
    ) -> Result<Compiled, CompileError> {
        let file_name = opts.file_name.as_str();
        let code = CString::new(if hlsl {
            source.to_string()
        } else {
            super::with_include_extension(source, file_name)
        })
        .map_err(|_| CompileError::message("the source contains a NUL character"))?;
        let text_code = CString::new(source)
            .map_err(|_| CompileError::message("the source contains a NUL character"))?;
        let file = CString::new(file_name.replace('\0', "")).unwrap_or_default();
        let mut preamble = String::new();
        for (name, value) in &opts.defines {
            preamble.push_str(
                &super::define_line(name, value.as_deref()).map_err(CompileError::message)?,
            );
        }
        let preamble = CString::new(preamble).unwrap_or_default();
        let (client, spirv) =
            super::target_versions(opts.target_env).map_err(CompileError::message)?;
        let entry = CString::new(opts.entry.clone().unwrap_or_else(|| "main".into()))
            .map_err(|_| CompileError::message("the entry point name contains a NUL character"))?;
        let mut ctx = Box::new(Ctx {
            includes: Includes {
                source_dir: opts.source_dir.clone(),
                dirs: opts.include_dirs.clone(),
                parent: HashMap::new(),
                failures: Vec::new(),
                failed: std::collections::HashSet::new(),
                bytes: 0,
                given: opts
                    .include_files
                    .iter()
                    .map(|(n, t)| (normalise(n), (n.clone(), t.clone())))
                    .collect(),
            },
            main: file_name.to_string(),
        });
        if glslang::Compiler::acquire().is_none() {
            return Err(CompileError::message("glslang could not be initialised"));
        }
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let limits = glslang::limits::DEFAULT_LIMITS;
        // Not DEBUG_INFO: it makes preprocess and parse each record the text they are given
        // (the text with the include extension, then the preprocessed text), and the debug
        // information then embeds both before the file's own text, which is added below.
        // Line and variable information come from the SPIR-V options, not from this flag.
        let messages = sys::glslang_messages_t(
            sys::glslang_messages_t::DEFAULT.0
                | sys::glslang_messages_t::SPV_RULES.0
                | sys::glslang_messages_t::VULKAN_RULES.0
                | sys::glslang_messages_t::DISPLAY_ERROR_COLUMN.0
                | if hlsl {
                    sys::glslang_messages_t::READ_HLSL.0
                } else {
                    0
                },
        );
        let stage = sys::glslang_stage_t::Compute;
        // SAFETY: both numbers come from `target_versions`, which gives only the values of
        // these C enums.
        let (client_version, target_language_version) = unsafe {
            (
                std::mem::transmute::<u32, sys::glslang_target_client_version_t>(client),
                std::mem::transmute::<u32, sys::glslang_target_language_version_t>(spirv),
            )
        };
        let input = sys::glslang_input_t {
            language: if hlsl {
                sys::glslang_source_t::HLSL
            } else {
                sys::glslang_source_t::GLSL
            },
            stage,
            client: sys::glslang_client_t::Vulkan,
            client_version,
            target_language: sys::glslang_target_language_t::SPIRV,
            target_language_version,
            code: code.as_ptr(),
            default_version: 100,
            default_profile: sys::glslang_profile_t::None,
            force_default_version_and_profile: 0,
            forward_compatible: 0,
            messages,
            // `ResourceLimits` is `repr(transparent)` over the C struct.
            resource: std::ptr::from_ref(&limits).cast(),
            callbacks: sys::glsl_include_callbacks_t {
                include_system: Some(include_system),
                include_local: Some(include_local),
                free_include_result: Some(free_answer),
            },
            callbacks_ctx: std::ptr::from_mut::<Ctx>(&mut ctx).cast(),
        };

        // SAFETY: `input` and everything it points at (code, limits) outlive the shader's use.
        let shader = Shader(unsafe { sys::glslang_shader_create(&input) });
        if shader.0.is_null() {
            return Err(CompileError::message("glslang could not create a shader"));
        }
        // SAFETY: a live shader handle; glslang copies both strings.
        unsafe {
            sys::glslang_shader_set_preamble(shader.0, preamble.as_ptr());
            if hlsl {
                sys::glslang_shader_set_entry_point(shader.0, entry.as_ptr());
            }
        }
        // SAFETY: a live shader handle and the same input.
        if unsafe { sys::glslang_shader_preprocess(shader.0, &input) } == 0 {
            // SAFETY: live handle; copied at once.
            let log = text(unsafe { sys::glslang_shader_get_info_log(shader.0) });
            let mut e = errors(&log, source, file_name);
            // Why an include failed, with its chain, after glslang's positioned message.
            for f in &ctx.includes.failures {
                e.diagnostics.push(crate::compile::Diagnostic {
                    line: 0,
                    column: 0,
                    len: 0,
                    message: format!("#include {f}"),
                    error: true,
                    file: None,
                });
            }
            return Err(e);
        }
        // SAFETY: as above.
        if unsafe { sys::glslang_shader_parse(shader.0, &input) } == 0 {
            // SAFETY: live handle; copied at once.
            let log = text(unsafe { sys::glslang_shader_get_info_log(shader.0) });
            return Err(errors(&log, source, file_name));
        }
        // SAFETY: no arguments.
        let program = Program(unsafe { sys::glslang_program_create() });
        if program.0.is_null() {
            return Err(CompileError::message("glslang could not create a program"));
        }
        // SAFETY: both handles live; the program is dropped before the shader.
        unsafe { sys::glslang_program_add_shader(program.0, shader.0) };
        // SAFETY: a live program handle.
        if unsafe { sys::glslang_program_link(program.0, messages.0) } == 0 {
            // SAFETY: live handle; copied at once.
            let log = text(unsafe { sys::glslang_program_get_info_log(program.0) });
            return Err(errors(&log, source, file_name));
        }
        // A missing entry function is only a link warning: glslang then makes an empty one.
        // SAFETY: live handle; copied at once.
        let link_log = text(unsafe { sys::glslang_program_get_info_log(program.0) });
        if link_log.contains("Entry point not found") {
            return Err(CompileError::message(format!(
                "{file_name}: no function `{}` to compile as the entry point (choose it with \
                 --entry, or in the Build section)",
                entry.to_string_lossy()
            )));
        }
        // The text and file name the debug information embeds (glslangValidator -gVS does the
        // same); glslang copies both.
        // SAFETY: live handle; pointer and length describe `code`'s bytes; `file` is a CString.
        unsafe {
            sys::glslang_program_add_source_text(
                program.0,
                stage,
                text_code.as_ptr(),
                source.len(),
            );
            sys::glslang_program_set_source_file(program.0, stage, file.as_ptr());
        }
        let mut options = sys::glslang_spv_options_t {
            generate_debug_info: true,
            strip_debug_info: false,
            disable_optimizer: true,
            optimize_size: false,
            optimize_performance: false,
            disassemble: false,
            validate: false,
            emit_nonsemantic_shader_debug_info: true,
            emit_nonsemantic_shader_debug_source: true,
            compile_only: false,
            optimize_allow_expanded_id_bound: false,
            compiler_signature: std::ptr::null(),
            command_line_arguments: std::ptr::null(),
            current_working_directory: std::ptr::null(),
        };
        // SAFETY: live, linked program; `options` outlives the call.
        unsafe { sys::glslang_program_SPIRV_generate_with_options(program.0, stage, &mut options) };
        // SAFETY: live handle.
        let size = unsafe { sys::glslang_program_SPIRV_get_size(program.0) };
        let mut words = vec![0u32; size];
        // SAFETY: `words` has room for exactly `size` words, as glslang reported.
        unsafe { sys::glslang_program_SPIRV_get(program.0, words.as_mut_ptr()) };
        // SAFETY: live handle; copied at once.
        let spv_log = text(unsafe { sys::glslang_program_SPIRV_get_messages(program.0) });
        // SAFETY: live handle; copied at once.
        let shader_log = text(unsafe { sys::glslang_shader_get_info_log(shader.0) });
        drop(program);
        drop(shader);
        if words.is_empty() {
            return Err(CompileError::message(format!(
                "glslang produced no SPIR-V{}",
                if spv_log.is_empty() {
                    String::new()
                } else {
                    format!(": {}", spv_log.trim())
                }
            )));
        }
        let mut warnings = parse_log(&shader_log, source, file_name);
        warnings.extend(parse_log(&spv_log, source, file_name));
        if hlsl {
            warnings.extend(super::inclusive_prefix_warnings(source));
        }
        warnings.retain(|d| !d.error);
        Ok(Compiled { words, warnings })
    }

    fn errors(log: &str, source: &str, main: &str) -> CompileError {
        let mut diagnostics = parse_log(log, source, main);
        diagnostics.sort_by_key(|d| !d.error);
        if diagnostics.is_empty() {
            let message = log.trim();
            return CompileError::message(if message.is_empty() {
                "glslang refused the shader without a message"
            } else {
                message
            });
        }
        CompileError { diagnostics }
    }

    /// glslang's log lines: `ERROR: 0:12:5: 'x' : undeclared identifier` (string number, line,
    /// column when asked for), `WARNING: ...`; the closing "N compilation errors" line is dropped
    /// when a positioned message exists.
    pub(super) fn parse_log(log: &str, source: &str, main: &str) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for raw in log.lines() {
            let (error, rest) = if let Some(r) = raw.strip_prefix("ERROR: ") {
                (true, r)
            } else if let Some(r) = raw.strip_prefix("WARNING: ") {
                (false, r)
            } else {
                continue;
            };
            let mut parts = rest.splitn(4, ':');
            let fields: Vec<&str> = (&mut parts).take(3).collect();
            let numbers: Vec<Option<u32>> = fields
                .iter()
                .map(|f| f.trim().parse::<u32>().ok())
                .collect();
            // A file name in place of the string number: an included file's line.
            let file = match numbers.first() {
                Some(None) => Some(fields[0].trim().to_string()).filter(|f| f != main),
                _ => None,
            };
            let (line, column, message) = match numbers.as_slice() {
                // string:line:column: message
                [Some(_), Some(l), Some(c)] => (*l, *c, parts.next().unwrap_or("").trim()),
                // string:line: message
                [Some(_), Some(l), None] => {
                    let msg = rest.splitn(3, ':').nth(2).unwrap_or("").trim();
                    (*l, 0, msg)
                }
                // file name (not a number):line:col: message
                [None, Some(l), Some(c)] => (*l, *c, parts.next().unwrap_or("").trim()),
                [None, Some(l), None] => (*l, 0, rest.splitn(3, ':').nth(2).unwrap_or("").trim()),
                _ => (0, 0, rest.trim()),
            };
            let len = if line > 0 && column > 0 && file.is_none() {
                crate::compile::token_len(source, line as usize, column as usize)
            } else {
                0
            };
            out.push(Diagnostic {
                line,
                column,
                len,
                message: message.to_string(),
                error,
                file,
            });
        }
        if out.iter().any(|d| d.line > 0) {
            out.retain(|d| d.line > 0 || !d.message.contains("compilation errors"));
        }
        out
    }
}

#[cfg(all(test, feature = "glsl"))]
mod tests {
    use super::native::parse_log;

    #[test]
    fn log_lines_with_and_without_columns() {
        let src = "#version 450\nvoid main() { x = 1; }\n";
        let d = parse_log(
            "ERROR: 0:2:15: 'x' : undeclared identifier\nERROR: 0:3: '' : missing\n\
             ERROR: 1 compilation errors.  No code generated.\n",
            src,
            "k.comp",
        );
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].line, d[0].column, d[0].len), (2, 15, 1));
        assert_eq!(d[0].message, "'x' : undeclared identifier");
        assert_eq!((d[1].line, d[1].column), (3, 0));
    }
}
