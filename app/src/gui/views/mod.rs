//! The extension views (timeline, rotate, dot product, cooperative matrix) and lessons. Each
//! view is a view-model computed from the session (plain data, tested on its own) and a thin
//! drawing function over it.

pub mod compare;
pub mod dot;
pub mod lesson;
pub mod matrix;
pub mod rotate;
pub mod timeline;

use super::session::Session;
use lanescope_core::view::{LaneMask, Meaning};

/// One dynamic instance of an instruction that a view explains: the one the last step
/// executed (its results are in the registers), or one a tangle is about to execute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub subgroup: u32,
    pub block: u32,
    /// Position within the block's lowered instructions.
    pub pos: u32,
    /// Index in the module's instruction stream (the disassembly line).
    pub instruction: u32,
    pub lanes: LaneMask,
    pub executed: bool,
}

impl Site {
    pub fn lane_list(&self) -> Vec<u32> {
        self.lanes.to_vec()
    }

    /// What the instruction at this site does.
    pub fn meaning(&self, s: &Session) -> Meaning {
        s.program.meaning(self.block, self.pos)
    }
}

/// The instruction `want` accepts that the last step executed, else one that a tangle (the
/// preferred one first) is about to execute.
pub fn find_site(
    s: &Session,
    prefer: Option<(u32, u64)>,
    want: impl Fn(&Meaning) -> bool,
) -> Option<Site> {
    find_site_since(s, prefer, None, want)
}

/// Like [`find_site`], and when the last action ran several steps from step `since` on (a source
/// line stepped with F10), the last of those instructions `want` accepts: F10 over a line with a
/// MulAdd shows the MulAdd, not the store after it.
pub fn find_site_since(
    s: &Session,
    prefer: Option<(u32, u64)>,
    since: Option<u64>,
    want: impl Fn(&Meaning) -> bool,
) -> Option<Site> {
    let sim = s.sim();
    let prog = &s.program;
    let wanted = |b: u32, i: u32| want(&prog.meaning(b, i));
    let [nx, ny, _] = sim.config().workgroups;
    let [x, y, z] = sim.workgroup_id();
    let linear = x + nx * (y + ny * z);
    let now = sim.stats().steps;
    // The steps of the last action, newest first (a bounded look: a frame asks every time).
    let first = since.filter(|&f| f < now).map_or(now, |f| f + 1);
    let executed = sim
        .trace()
        .iter()
        .rev()
        .take(512)
        .take_while(|e| e.step >= first)
        .filter(|e| e.step <= now && e.workgroup == linear)
        .find(|e| wanted(e.block, e.pos));
    if let Some(e) = executed {
        return Some(Site {
            subgroup: e.subgroup,
            block: e.block,
            pos: e.pos,
            instruction: prog.step_index(e.block, e.pos),
            lanes: LaneMask(e.lanes),
            executed: true,
        });
    }
    let mut tangles = sim.tangles();
    // The preferred tangle first, the rest in the scheduler's listing order.
    tangles.sort_by_key(|t| Some((t.subgroup, t.id)) != prefer);
    tangles.into_iter().find_map(|t| {
        wanted(t.block, t.pos).then(|| Site {
            subgroup: t.subgroup,
            block: t.block,
            pos: t.pos,
            instruction: prog.step_index(t.block, t.pos),
            lanes: t.lanes,
            executed: false,
        })
    })
}

/// Colour of a lane (not a tangle): hue steps around the wheel so neighbours differ.
pub fn lane_color(lane: u32) -> egui::Color32 {
    let hue = (lane as f32 * 0.618_034).fract();
    egui::ecolor::Hsva::new(hue, 0.55, 0.9, 1.0).into()
}

/// The views the bottom of the central panel can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Tab {
    Lanes,
    Timeline,
    Rotate,
    Dot,
    Matrix,
    Compare,
}

impl Tab {
    pub const ALL: [Self; 6] = [
        Self::Lanes,
        Self::Timeline,
        Self::Rotate,
        Self::Dot,
        Self::Matrix,
        Self::Compare,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Self::Lanes => "Lanes",
            Self::Timeline => "Timeline",
            Self::Rotate => "Rotate",
            Self::Dot => "Dot product",
            Self::Matrix => "Matrix",
            Self::Compare => "Compare",
        }
    }

    /// The name links and lesson headers use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Lanes => "lanes",
            Self::Timeline => "timeline",
            Self::Rotate => "rotate",
            Self::Dot => "dot",
            Self::Matrix => "matrix",
            Self::Compare => "compare",
        }
    }

    pub fn by_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// What a source variable shows in a lane whose value is undefined.
pub const UNDEFINED: &str = "undefined";

/// Lane `l` of a source variable's value: its components as [`format_components`] prints
/// them, `?` for each undefined one (poison, or memory not yet written: an array being
/// filled), [`UNDEFINED`] when every one is (a variable before its first assignment); `None`
/// where the lane has no value.
pub fn format_source_lane(
    val: &lanescope_core::SourceValue,
    tys: Option<&[lanescope_core::value::ScalarTy]>,
    l: usize,
) -> Option<String> {
    let c = val.lanes.get(l)?.as_ref()?;
    let undefined = val.undefined.get(l).map_or(&[][..], Vec::as_slice);
    if undefined.is_empty() {
        return Some(format_components(tys, c));
    }
    if undefined.iter().all(|&u| u) {
        return Some(UNDEFINED.to_string());
    }
    let parts: Vec<String> = c
        .iter()
        .enumerate()
        .map(|(i, v)| match undefined.get(i) {
            Some(true) => "?".to_string(),
            _ => format_components(tys.and_then(|t| t.get(i..=i)), std::slice::from_ref(v)),
        })
        .collect();
    Some(parts.join(", "))
}

/// A watched value's components as their types print them (`-3`, `1.5`, `true`); raw hex bits
/// where the types are unknown (pointers, opaque values).
pub fn format_components(tys: Option<&[lanescope_core::value::ScalarTy]>, v: &[u64]) -> String {
    let parts: Vec<String> = match tys {
        Some(tys) if tys.len() == v.len() => tys
            .iter()
            .zip(v)
            .map(|(&ty, &c)| lanescope_core::value::format_scalar(ty, c))
            .collect(),
        _ => v.iter().map(|c| format!("{c:#x}")).collect(),
    };
    parts.join(", ")
}
