//! Summaries and traces as text and JSON. The trace's schema (`lanescope-trace/2`) is in the
//! README's "Trace file" section.

use lanescope_core::Simulator;
use serde_json::{json, Value};
use std::fmt::Write as _;

fn settings(sim: &Simulator) -> Value {
    let c = sim.config();
    json!({
        "subgroup_size": c.subgroup_size,
        "workgroups": c.workgroups,
        "switch_tangles": c.switch_tangles,
        "sibling_order": c.sibling_order,
        "only_workgroups": c.only_workgroups,
        "schedule": c.schedule.to_string(),
        "detectors": c.detectors,
    })
}

pub fn summary_value(sim: &Simulator) -> Value {
    let p = sim.program();
    let st = sim.stats();
    json!({
        "entry": p.entry_name(),
        "local_size": p.local_size(),
        "maximal_reconvergence": p.maximal_reconvergence(),
        "settings": settings(sim),
        "finished": sim.is_finished(),
        "steps": st.steps,
        "lane_instructions": st.lane_instructions,
        "divergences": st.divergences,
        "reconvergences": st.reconvergences,
        "workgroups_run": st.workgroups_done,
        "buffers": sim.buffer_addresses(),
        "diagnostics": sim.diagnostics(),
        "poison_stores": sim.poison_stores(),
        "warnings": sim.warnings(),
        "printf": printf_value(sim),
        "printf_dropped": sim.printf_lines().dropped(),
    })
}

/// The debugPrintf lines as JSON: who printed each, at which step, from which instruction and
/// source line (when the module has line information).
pub fn printf_value(sim: &Simulator) -> Value {
    let p = sim.program();
    let lines: Vec<Value> = sim
        .printf_lines()
        .iter()
        .map(|l| {
            let mut v = json!({
                "workgroup": l.workgroup,
                "invocation": l.invocation,
                "subgroup": l.subgroup,
                "lane": l.lane,
                "step": l.step,
                "instruction": l.instruction,
                "text": l.text,
            });
            let src = p.source_ref(l.instruction);
            if let (Some(obj), Some(line)) = (v.as_object_mut(), src.line) {
                if let Some(f) = src.file {
                    obj.insert("file".into(), json!(f));
                }
                obj.insert("line".into(), json!(line));
            }
            v
        })
        .collect();
    Value::Array(lines)
}

/// The debugPrintf lines as text, one `[wg X,Y,Z inv N] text` each (a text's own final newline
/// is the line's end), then how many the limit dropped.
pub fn printf_text(sim: &Simulator) -> String {
    let mut s = String::new();
    for l in sim.printf_lines().iter() {
        let [x, y, z] = l.workgroup;
        let text = l.text.strip_suffix('\n').unwrap_or(&l.text);
        let _ = writeln!(s, "[wg {x},{y},{z} inv {}] {text}", l.invocation);
    }
    let dropped = sim.printf_lines().dropped();
    if dropped > 0 {
        let _ = writeln!(
            s,
            "[printf] {} dropped: {} kept, the limit (raise it with --max-printf-lines)",
            count(dropped, "line"),
            count(sim.printf_lines().len() as u64, "line")
        );
    }
    s
}

pub fn summary_json(sim: &Simulator) -> String {
    summary_json_with(sim, None, None)
}

/// The summary, with the schedules explored and the words that depend on them.
pub fn summary_json_with(
    sim: &Simulator,
    exploration: Option<&lanescope_core::explore::Exploration>,
    gpu: Option<serde_json::Value>,
) -> String {
    let mut v = summary_value(sim);
    if let (Some(x), Some(obj)) = (exploration, v.as_object_mut()) {
        obj.insert("schedules".into(), json!(x.runs));
        obj.insert("order_dependence".into(), json!(x.order_dependence));
        obj.insert("order_dependence_more".into(), json!(x.more));
    }
    // The run on the machine's GPU beside it (`run --gpu`).
    if let (Some(g), Some(obj)) = (gpu, v.as_object_mut()) {
        obj.insert("gpu".into(), g);
    }
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// The exploration as text: each schedule, then each word that depends on the schedule.
pub fn exploration_text(x: &lanescope_core::explore::Exploration) -> String {
    let mut s = String::new();
    let names: Vec<String> = x
        .runs
        .iter()
        .map(|r| match &r.failed {
            Some(why) => format!("{} (failed: {why})", r.schedule),
            None => r.schedule.to_string(),
        })
        .collect();
    let _ = writeln!(s, "schedules     {}", names.join(", "));
    if x.order_dependence.is_empty() {
        let _ = writeln!(s, "order         no output word depends on the schedule");
        return s;
    }
    let _ = writeln!(
        s,
        "order         {} output words depend on the schedule:",
        x.order_dependence.len() + x.more
    );
    for d in &x.order_dependence {
        let element = match d.element {
            0 => String::new(),
            e => format!(" element {e}"),
        };
        let _ = writeln!(
            s,
            "  set {} binding {}{element} word {}: {} under {}, {} under {}",
            d.set, d.binding, d.word, d.values[0], d.schedules[0], d.values[1], d.schedules[1]
        );
    }
    if x.more > 0 {
        let _ = writeln!(s, "  ... and {} more", x.more);
    }
    s
}

pub fn summary_text(sim: &Simulator) -> String {
    let p = sim.program();
    let st = sim.stats();
    let c = sim.config();
    let mut s = String::new();
    let [x, y, z] = p.local_size();
    let _ = writeln!(
        s,
        "entry point   {} (local size {x}x{y}x{z}, maximal reconvergence: {})",
        p.entry_name(),
        if p.maximal_reconvergence() {
            "yes"
        } else {
            "no"
        }
    );
    let _ = writeln!(
        s,
        "settings      subgroup size {}, workgroups {}x{}x{}, switch tangles {}, sibling order {}, schedule {}",
        c.subgroup_size,
        c.workgroups[0],
        c.workgroups[1],
        c.workgroups[2],
        lanescope_core::NamedSetting::name(c.switch_tangles),
        lanescope_core::NamedSetting::name(c.sibling_order),
        c.schedule
    );
    let _ = writeln!(
        s,
        "executed      {} steps, {} lane-instructions",
        st.steps, st.lane_instructions
    );
    let _ = writeln!(
        s,
        "tangles       {}, {}",
        count(st.divergences, "divergence"),
        count(st.reconvergences, "reconvergence")
    );
    if p.physical_addresses() {
        let b: Vec<String> = sim
            .buffer_addresses()
            .iter()
            .map(|b| {
                let element = match b.element {
                    0 => String::new(),
                    e => format!("[{e}]"),
                };
                format!(
                    "{}:{}{element} at {:#x} ({} bytes)",
                    b.set, b.binding, b.address, b.size
                )
            })
            .collect();
        let _ = writeln!(s, "addresses     {}", b.join(", "));
    }
    let d = sim.diagnostics();
    if d.is_empty() {
        let _ = writeln!(s, "diagnostics   none");
    } else {
        let _ = writeln!(s, "diagnostics   {}", d.len());
        for x in d {
            let _ = writeln!(s, "  [{}] {} (function {}, block {}, instruction #{}, workgroup {:?}, subgroup {}, lanes {:?})", x.code, x.message, x.function, x.block, x.instruction, x.workgroup, x.subgroup, x.lanes);
            if let Some(note) = x.unobserved_note() {
                let _ = writeln!(s, "      {note}");
            }
        }
    }
    let p = sim.poison_stores();
    if !p.is_empty() {
        let _ = writeln!(
            s,
            "poison stores {} (undefined values written to memory; first ones)",
            p.len()
        );
        for x in p.iter().take(10) {
            let _ = writeln!(
                s,
                "  {} memory{} at function {}, block {}, instruction #{}, subgroup {}, lanes {:?}",
                x.memory,
                x.binding
                    .map_or_else(String::new, |(a, b)| format!(" {a}:{b}")),
                x.function,
                x.block,
                x.instruction,
                x.subgroup,
                x.lanes
            );
        }
    }
    s
}

/// The full trace: program blocks (so indices can be named) and every step.
/// A trace step with the source position of its instruction.
#[derive(serde::Serialize)]
struct StepWithSource<'a> {
    #[serde(flatten)]
    step: &'a lanescope_core::trace::StepEvent,
    file: &'a str,
    line: u32,
}

/// The trace document (schema in the README), streamed: steps are written one at a time,
/// never gathered into one JSON value.
pub fn write_trace_to(sim: &Simulator, w: &mut impl std::io::Write) -> std::io::Result<()> {
    let p = sim.program();
    w.write_all(br#"{"schema":"lanescope-trace/2","summary":"#)?;
    serde_json::to_writer(&mut *w, &summary_value(sim))?;
    w.write_all(br#","blocks":["#)?;
    for (i, b) in p.blocks().iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        let block = json!({ "index": i, "label": b.label, "name": p.block_name(i as u32), "function": p.func_name(b.func), "steps": b.len() });
        serde_json::to_writer(&mut *w, &block)?;
    }
    w.write_all(br#"],"steps":["#)?;
    // Each step's source position, looked up once per instruction.
    let debug = p.debug();
    let mut pos_cache: std::collections::HashMap<(u32, u32), Option<(String, u32)>> =
        std::collections::HashMap::new();
    for (i, step) in sim.trace().iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        let pos = pos_cache.entry((step.block, step.pos)).or_insert_with(|| {
            let d = debug?;
            let sp = d.pos(p.step_index(step.block, step.pos))?;
            Some((d.file_name(sp.file)?.to_owned(), sp.line))
        });
        match pos {
            Some((file, line)) => serde_json::to_writer(
                &mut *w,
                &StepWithSource {
                    step,
                    file,
                    line: *line,
                },
            )?,
            None => serde_json::to_writer(&mut *w, step)?,
        }
    }
    w.write_all(b"]}")?;
    w.flush()
}

/// Writes the trace to a file, reporting any write error.
#[cfg(not(target_arch = "wasm32"))]
pub fn write_trace(sim: &Simulator, path: &str) -> std::io::Result<()> {
    let file = std::fs::File::create(path)?;
    let mut w = std::io::BufWriter::new(file);
    write_trace_to(sim, &mut w)?;
    w.into_inner()
        .map_err(std::io::IntoInnerError::into_error)?
        .sync_all()
}

/// The trace document in memory (for the app's export, which hands bytes to a save dialog or
/// a download).
pub fn trace_json(sim: &Simulator) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_trace_to(sim, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The portability check's report: which layouts ran and which buffers differ.
pub fn portability(r: &lanescope_core::portability::Report, shader: &str, as_json: bool) -> String {
    if as_json {
        let mut s = serde_json::to_string_pretty(&json!({
            "shader": shader,
            "portable": r.portable(),
            "layouts_run": r.ran(),
            "runs": r.runs,
            "differences": r.differences,
            "warnings": r.warnings,
        }))
        .unwrap_or_default();
        s.push('\n');
        return s;
    }
    let mut out = String::new();
    let _ = writeln!(out, "portability check of {shader}");
    for run in &r.runs {
        match &run.skipped {
            Some(why) => {
                let _ = writeln!(out, "  {:<10} skipped: {why}", run.layout);
            }
            None if run.diagnostics.is_empty() => {
                let _ = writeln!(out, "  {:<10} ran", run.layout);
            }
            None => {
                let _ = writeln!(
                    out,
                    "  {:<10} ran; diagnostics: {}",
                    run.layout,
                    run.diagnostics.join(", ")
                );
            }
        }
    }
    if r.ran() < 2 {
        let _ = writeln!(
            out,
            "fewer than two layouts support this shader: nothing to compare"
        );
    } else if r.portable() {
        let _ = writeln!(
            out,
            "portable: every buffer ends the same under the {} layouts that ran",
            r.ran()
        );
    }
    for d in &r.differences {
        let first: Vec<String> = d
            .first
            .iter()
            .map(|(i, a, b)| format!("word {i}: {a:#x} vs {b:#x}"))
            .collect();
        let _ = writeln!(
            out,
            "DIFFERS: buffer set {} binding {}: {} words differ between `{}` and `{}` ({})",
            d.set,
            d.binding,
            d.words,
            d.reference,
            d.layout,
            first.join(", ")
        );
    }
    out
}

/// `n` and the noun, in the plural unless `n` is 1 ("1 divergence", "3 divergences").
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
