//! The portability check: run a shader under every layout that supports its cooperative
//! matrices and report the buffers whose final contents differ (code that depends on which
//! lane holds which element).

use crate::coopmat::LayoutChoice;
use crate::explore::words;
use crate::{load, Bindings, Config, LoadOptions, Outcome, Simulator};
use std::sync::Arc;

/// A buffer's (set, binding, final bytes).
type Final = (u32, u32, Vec<u8>);

/// One layout's run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LayoutRun {
    /// The layout's name ([`LayoutChoice::name`]).
    pub layout: String,
    /// Why it was not run (a shape it does not support, a load or run error), if so.
    pub skipped: Option<String>,
    /// Diagnostic codes the run reported (each once).
    pub diagnostics: Vec<String>,
}

/// A buffer whose final contents depend on the layout.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BufferDifference {
    /// Descriptor set of the buffer.
    pub set: u32,
    /// Binding of the buffer in its set.
    pub binding: u32,
    /// The layout compared against (the first one that ran) and the one that differs.
    pub reference: String,
    /// The layout whose run differs from `reference`.
    pub layout: String,
    /// Number of differing 32-bit words, and the first few as (word index, reference, other).
    pub words: usize,
    /// The first differing words (at most 8) as (word index, reference value, other value).
    pub first: Vec<(usize, u32, u32)>,
}

/// What [`check`] found: how each layout's run went, and the buffers that differ.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    /// One per layout, in the order tried.
    pub runs: Vec<LayoutRun>,
    /// Each buffer whose final contents under a layout differ from the reference layout's.
    pub differences: Vec<BufferDifference>,
    /// Warnings of the first layout's run that started (the same module, options and buffers
    /// for every layout).
    pub warnings: Vec<crate::Warning>,
}

impl Report {
    /// Layouts that actually ran.
    pub fn ran(&self) -> usize {
        self.runs.iter().filter(|r| r.skipped.is_none()).count()
    }

    /// Whether no buffer differs between the layouts that ran (true also when fewer than two
    /// ran: see [`Report::ran`]).
    pub fn portable(&self) -> bool {
        self.differences.is_empty()
    }
}

/// Run `bytes` under each of `layouts` (the built-in ones when empty) with the same options,
/// configuration and buffers, and compare every bound buffer's final contents.
pub fn check(
    bytes: &[u8],
    opts: &LoadOptions,
    cfg: &Config,
    bindings: &Bindings,
    max_steps: u64,
    layouts: &[LayoutChoice],
) -> Report {
    let layouts = if layouts.is_empty() {
        LayoutChoice::builtin()
    } else {
        layouts.to_vec()
    };
    let mut runs = Vec::new();
    let mut finals: Vec<(String, Vec<Final>)> = Vec::new();
    let mut warnings = None;
    for l in layouts {
        let o = LoadOptions {
            coopmat_layout: l.clone(),
            subgroup_size: Some(cfg.subgroup_size),
            ..opts.clone()
        };
        let result = load(bytes, &o).map_err(|e| e.to_string()).and_then(|p| {
            let prog = Arc::new(p);
            let mut sim = Simulator::new(Arc::clone(&prog), cfg.clone(), bindings)
                .map_err(|e| e.to_string())?;
            match sim.run(max_steps).map_err(|e| e.to_string())? {
                Outcome::Finished => Ok((prog, sim)),
                Outcome::Budget => Err(format!("did not finish within {max_steps} steps")),
            }
        });
        match result {
            Ok((prog, sim)) => {
                warnings.get_or_insert_with(|| sim.warnings().to_vec());
                let mut codes: Vec<String> = sim
                    .diagnostics()
                    .iter()
                    .map(|d| d.code.to_string())
                    .collect();
                codes.sort();
                codes.dedup();
                runs.push(LayoutRun {
                    layout: l.name(),
                    skipped: None,
                    diagnostics: codes,
                });
                let bufs = prog
                    .resources
                    .iter()
                    .filter(|r| !r.push_constant)
                    .filter_map(|r| {
                        sim.resource_buffer(r)
                            .map(|b| (r.set, r.binding, b.to_vec()))
                    })
                    .collect();
                finals.push((l.name(), bufs));
            }
            Err(e) => runs.push(LayoutRun {
                layout: l.name(),
                skipped: Some(e),
                diagnostics: Vec::new(),
            }),
        }
    }
    let mut differences = Vec::new();
    if let Some((ref_name, ref_bufs)) = finals.first() {
        for (name, bufs) in &finals[1..] {
            for ((set, binding, a), (_, _, b)) in ref_bufs.iter().zip(bufs) {
                let (wa, wb) = (words(a), words(b));
                let diff: Vec<(usize, u32, u32)> = wa
                    .iter()
                    .zip(&wb)
                    .enumerate()
                    .filter(|(_, (x, y))| x != y)
                    .map(|(i, (x, y))| (i, *x, *y))
                    .collect();
                if !diff.is_empty() {
                    differences.push(BufferDifference {
                        set: *set,
                        binding: *binding,
                        reference: ref_name.clone(),
                        layout: name.clone(),
                        words: diff.len(),
                        first: diff.into_iter().take(8).collect(),
                    });
                }
            }
        }
    }
    Report {
        runs,
        differences,
        warnings: warnings.unwrap_or_default(),
    }
}
