//! GLSL compute shaders compiled in-process by glslang (native builds only: glslang is C++).
//!
//! The `glslang` crate's safe API compiles but cannot ask for debug information, and the source
//! view needs line information. This module is the one place that allows `unsafe`: it drives
//! glslang's C interface (`glslang-sys`, the crate's own FFI) the way `glslangValidator -gVS`
//! does. Every call is on handles this module created and owns, freed once by `Drop`; strings
//! passed in are NUL-terminated `CString`s that outlive the calls; strings read back are copied
//! before the handle that owns them is freed. Compiles are serialised by a lock because the
//! compiler's process-wide state is not documented as thread-safe. A patched fork of the crate
//! would have needed the same unsafe code plus a vendored copy to keep current.

use crate::compile::{CompileError, Compiled};

#[cfg(target_arch = "wasm32")]
pub fn compile(_source: &str, _file_name: &str) -> Result<Compiled, CompileError> {
    Err(CompileError::message(
        "GLSL is compiled by glslang, which only the native build has: open the compiled \
         .spv (its debug information shows the GLSL), or write the shader in WGSL here",
    ))
}

#[cfg(not(target_arch = "wasm32"))]
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

#[cfg(not(target_arch = "wasm32"))]
#[allow(unsafe_code)]
mod native {
    use super::{CompileError, Compiled};
    use crate::compile::Diagnostic;
    use glslang_sys as sys;
    use std::ffi::{c_char, CStr, CString};
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

    /// Compiles a GLSL compute shader (`main`) for Vulkan 1.3 / SPIR-V 1.6 with line and
    /// source-variable debug information (NonSemantic.Shader.DebugInfo.100 plus the text).
    pub fn compile(source: &str, file_name: &str) -> Result<Compiled, CompileError> {
        let code = CString::new(source)
            .map_err(|_| CompileError::message("the source contains a NUL character"))?;
        let file = CString::new(file_name.replace('\0', "")).unwrap_or_default();
        if glslang::Compiler::acquire().is_none() {
            return Err(CompileError::message("glslang could not be initialised"));
        }
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let limits = glslang::limits::DEFAULT_LIMITS;
        let messages = sys::glslang_messages_t(
            sys::glslang_messages_t::DEFAULT.0
                | sys::glslang_messages_t::SPV_RULES.0
                | sys::glslang_messages_t::VULKAN_RULES.0
                | sys::glslang_messages_t::DEBUG_INFO.0
                | sys::glslang_messages_t::DISPLAY_ERROR_COLUMN.0,
        );
        let stage = sys::glslang_stage_t::Compute;
        let input = sys::glslang_input_t {
            language: sys::glslang_source_t::GLSL,
            stage,
            client: sys::glslang_client_t::Vulkan,
            client_version: sys::glslang_target_client_version_t::Vulkan1_3,
            target_language: sys::glslang_target_language_t::SPIRV,
            target_language_version: sys::glslang_target_language_version_t::SPIRV1_6,
            code: code.as_ptr(),
            default_version: 100,
            default_profile: sys::glslang_profile_t::None,
            force_default_version_and_profile: 0,
            forward_compatible: 0,
            messages,
            // `ResourceLimits` is `repr(transparent)` over the C struct.
            resource: std::ptr::from_ref(&limits).cast(),
            // No include callbacks: glslang's own handling (an error naming the file).
            callbacks: sys::glsl_include_callbacks_t {
                include_system: None,
                include_local: None,
                free_include_result: None,
            },
            callbacks_ctx: std::ptr::null_mut(),
        };

        // SAFETY: `input` and everything it points at (code, limits) outlive the shader's use.
        let shader = Shader(unsafe { sys::glslang_shader_create(&input) });
        if shader.0.is_null() {
            return Err(CompileError::message("glslang could not create a shader"));
        }
        // SAFETY: a live shader handle and the same input.
        if unsafe { sys::glslang_shader_preprocess(shader.0, &input) } == 0 {
            // SAFETY: live handle; copied at once.
            let log = text(unsafe { sys::glslang_shader_get_info_log(shader.0) });
            return Err(errors(&log, source));
        }
        // SAFETY: as above.
        if unsafe { sys::glslang_shader_parse(shader.0, &input) } == 0 {
            // SAFETY: live handle; copied at once.
            let log = text(unsafe { sys::glslang_shader_get_info_log(shader.0) });
            return Err(errors(&log, source));
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
            return Err(errors(&log, source));
        }
        // The text and file name the debug information embeds (glslangValidator -gVS does the
        // same); glslang copies both.
        // SAFETY: live handle; pointer and length describe `code`'s bytes; `file` is a CString.
        unsafe {
            sys::glslang_program_add_source_text(program.0, stage, code.as_ptr(), source.len());
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
        let mut warnings = parse_log(&shader_log, source);
        warnings.extend(parse_log(&spv_log, source));
        warnings.retain(|d| !d.error);
        Ok(Compiled { words, warnings })
    }

    fn errors(log: &str, source: &str) -> CompileError {
        let mut diagnostics = parse_log(log, source);
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
    pub(super) fn parse_log(log: &str, source: &str) -> Vec<Diagnostic> {
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
            let len = if line > 0 && column > 0 {
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
            });
        }
        if out.iter().any(|d| d.line > 0) {
            out.retain(|d| d.line > 0 || !d.message.contains("compilation errors"));
        }
        out
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::native::parse_log;

    #[test]
    fn log_lines_with_and_without_columns() {
        let src = "#version 450\nvoid main() { x = 1; }\n";
        let d = parse_log(
            "ERROR: 0:2:15: 'x' : undeclared identifier\nERROR: 0:3: '' : missing\n\
             ERROR: 1 compilation errors.  No code generated.\n",
            src,
        );
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].line, d[0].column, d[0].len), (2, 15, 1));
        assert_eq!(d[0].message, "'x' : undeclared identifier");
        assert_eq!((d[1].line, d[1].column), (3, 0));
    }
}
