//! WGSL compiled in-process by naga (pure Rust: the browser build has it too).
//!
//! The SPIR-V carries naga's debug information (`OpSource` with the text, `OpLine` per
//! statement, `OpName`s), so the source view maps every step back to the WGSL line.

use crate::compile::{CompileError, Compiled, Diagnostic};
use naga::back::spv;
use naga::valid::{Capabilities, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator};

/// What Lanescope can run, so naga accepts it: subgroup operations and barriers, 16-bit floats,
/// 64-bit integers and floats, cooperative matrices. Anything else naga's validator refuses
/// with its own message.
fn capabilities() -> Capabilities {
    Capabilities::SUBGROUP
        | Capabilities::SUBGROUP_BARRIER
        | Capabilities::SHADER_FLOAT16
        | Capabilities::SHADER_INT16
        | Capabilities::SHADER_INT64
        | Capabilities::SHADER_INT64_ATOMIC_MIN_MAX
        | Capabilities::SHADER_INT64_ATOMIC_ALL_OPS
        | Capabilities::SHADER_FLOAT32_ATOMIC
        | Capabilities::FLOAT64
        | Capabilities::IMMEDIATES
        | Capabilities::COOPERATIVE_MATRIX
        | Capabilities::STORAGE_BUFFER_BINDING_ARRAY
}

/// Compiles a WGSL module with at least one `@compute` entry point.
pub fn compile(source: &str, file_name: &str) -> Result<Compiled, CompileError> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        let mut diagnostics: Vec<Diagnostic> = Vec::new();
        let labels: Vec<_> = e.labels().collect();
        for (i, (span, label)) in labels.iter().enumerate() {
            let message = match (i, label.is_empty()) {
                (0, true) => e.message().to_string(),
                (0, false) if e.message().contains(*label) => e.message().to_string(),
                (0, false) => format!("{}: {label}", e.message()),
                (_, true) => continue,
                (_, false) => (*label).to_string(),
            };
            diagnostics.push(at(source, *span, message, i == 0));
        }
        if diagnostics.is_empty() {
            diagnostics.push(Diagnostic {
                line: 0,
                column: 0,
                len: 0,
                message: e.message().to_string(),
                error: true,
            });
        }
        for note in e.notes() {
            if let Some(first) = diagnostics.first_mut() {
                first.message.push_str(&format!(" (note: {note})"));
            }
        }
        CompileError { diagnostics }
    })?;

    let computes: Vec<&naga::EntryPoint> = module
        .entry_points
        .iter()
        .filter(|e| e.stage == naga::ShaderStage::Compute)
        .collect();
    if computes.is_empty() {
        return Err(CompileError::message(
            "no `@compute` entry point: Lanescope runs compute shaders",
        ));
    }

    let mut validator = Validator::new(ValidationFlags::all(), capabilities());
    validator
        .subgroup_stages(ShaderStages::COMPUTE)
        .subgroup_operations(SubgroupOperationSet::all());
    let info = validator.validate(&module).map_err(|e| {
        // The innermost cause is usually the clearest; keep the chain.
        let mut message = e.as_inner().to_string();
        let mut cause = std::error::Error::source(e.as_inner());
        while let Some(c) = cause {
            message.push_str(&format!(": {c}"));
            cause = c.source();
        }
        let diagnostics = match e.spans().next() {
            Some((span, _)) => vec![at(source, *span, message, true)],
            None => vec![Diagnostic {
                line: 0,
                column: 0,
                len: 0,
                message,
                error: true,
            }],
        };
        CompileError { diagnostics }
    })?;

    let options = spv::Options {
        // 1.6 (Vulkan 1.3): subgroup operations, integer dot products and cooperative matrices
        // all need at least 1.3; 1.6 lets workgroup memory be zeroed by an initializer.
        lang_version: (1, 6),
        flags: spv::WriterFlags::DEBUG,
        // WGSL zero-initialises workgroup memory; an initializer says so without adding code
        // and a barrier the user did not write.
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Native,
        // Loop counters the user did not write would show in every step.
        force_loop_bounding: false,
        debug_info: Some(spv::DebugInfo {
            source_code: source,
            file_name,
            language: spv::SourceLanguage::WGSL,
        }),
        ..spv::Options::default()
    };
    // Graphics entry points are left out: a module with only the compute ones loads anywhere.
    let pipeline = (computes.len() < module.entry_points.len()).then(|| spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: computes[0].name.clone(),
    });
    let words = spv::write_vec(&module, &info, &options, pipeline.as_ref())
        .map_err(|e| CompileError::message(format!("SPIR-V generation failed: {e}")))?;
    Ok(Compiled {
        words,
        warnings: Vec::new(),
    })
}

/// A diagnostic at a naga span (byte offsets), in 1-based lines and character columns.
fn at(source: &str, span: naga::Span, message: String, error: bool) -> Diagnostic {
    let Some(range) = span.to_range().filter(|r| r.end <= source.len()) else {
        return Diagnostic {
            line: 0,
            column: 0,
            len: 0,
            message,
            error,
        };
    };
    let start = floor_char(source, range.start);
    let end = floor_char(source, range.end.max(start));
    let before = &source[..start];
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let column = source[line_start..start].chars().count() as u32 + 1;
    let spanned = &source[start..end];
    let len = spanned
        .split('\n')
        .next()
        .map_or(1, |s| s.chars().count().max(1)) as u32;
    Diagnostic {
        line,
        column,
        len,
        message,
        error,
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
