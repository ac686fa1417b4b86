//! The script's commands (RUN, COPY, CLEAR, REPEAT, EXPECT and the rest) and the checks an
//! EXPECT makes.

use crate::amber::types::Value;

/// A command, run in script order.
#[derive(Clone, Debug)]
pub enum Command {
    /// `RUN [TIMED_EXECUTION] pipeline x y z`: one dispatch.
    Run {
        /// The script line of the command.
        line: usize,
        /// The index in [`Script::pipelines`].
        pipeline: usize,
        /// Workgroups in x, y and z.
        groups: [u32; 3],
    },
    /// `EXPECT`: a check of a buffer's contents.
    Expect(Expect),
    /// `COPY from TO to`: the destination becomes a copy of the source, its size included.
    Copy {
        /// The script line of the command.
        line: usize,
        /// The index in [`Script::buffers`] of the source.
        from: usize,
        /// The index in [`Script::buffers`] of the destination (never `from`).
        to: usize,
    },
    /// `CLEAR buffer`: zeroes the buffer (amber's `CLEAR` of a graphics pipeline is
    /// unsupported).
    Clear {
        /// The script line of the command.
        line: usize,
        /// The index in [`Script::buffers`].
        buffer: usize,
    },
    /// `REPEAT count ... END`: the body, `count` times.
    Repeat {
        /// The script line of the `REPEAT`.
        line: usize,
        /// Times the body runs (at least 1).
        count: u32,
        /// The commands inside: `RUN`, `EXPECT`, `COPY` and `CLEAR` (no nested `REPEAT`).
        body: Vec<Command>,
    },
    /// VkScript's `ssbo B N`: the buffer becomes `len` bytes (cut or zero-extended).
    Resize {
        /// The script line of the command.
        line: usize,
        /// The index in [`Script::buffers`].
        buffer: usize,
        /// The new size in bytes.
        len: u64,
    },
    /// VkScript's `subdata` and `uniform`: bytes written at `offset`, the buffer growing to
    /// hold them.
    Write {
        /// The script line of the command.
        line: usize,
        /// The index in [`Script::buffers`].
        buffer: usize,
        /// Byte offset of the first byte written.
        offset: usize,
        /// The bytes written.
        bytes: Vec<u8>,
    },
}

/// `EXPECT buffer ...`: one check of a buffer's contents as the commands before it left them.
#[derive(Clone, Debug)]
pub struct Expect {
    /// The script line of the `EXPECT`.
    pub line: usize,
    /// The index in [`Script::buffers`] of the buffer checked.
    pub buffer: usize,
    /// What is checked.
    pub check: Check,
}

/// What an `EXPECT` checks.
#[derive(Clone, Debug)]
pub enum Check {
    /// `IDX offset [TOLERANCE ...] OP values...`: `offset` in bytes, values in the buffer's
    /// format from there on.
    Values {
        /// Byte offset of the first value.
        offset: u64,
        /// How each value in the buffer compares with the expected one.
        op: Cmp,
        /// `TOLERANCE` values (at most 4, with `EQ` only); the first applies to every value.
        tolerance: Vec<Tolerance>,
        /// The expected values, one per component from `offset` on.
        values: Vec<Value>,
    },
    /// `IDX x y SIZE w h EQ_RGB r g b` / `EQ_RGBA r g b a` on an image's first slice: every
    /// texel's channels, read as amber reads them (normalized channels scaled to 0..1, others
    /// as they are), within the tolerance (0.002 by default) of the values / 255.
    Rgba {
        /// `x`, `y`, `w`, `h`: the region's corner and size, in texels.
        region: [u32; 4],
        /// `EQ_RGBA`; `false` for `EQ_RGB` (alpha not compared).
        rgba: bool,
        /// The expected R, G, B and A, 0 to 255 (A is 0 for `EQ_RGB`).
        values: [u8; 4],
        /// `TOLERANCE` values: four are one per channel, fewer apply their first to every
        /// channel; none means the default.
        tolerance: Vec<Tolerance>,
    },
    /// `EQ_BUFFER other`: every byte equal to those of the buffer at this index in
    /// [`Script::buffers`].
    EqBuffer(usize),
    /// `RMSE_BUFFER other TOLERANCE tolerance`: the root mean square of the value-by-value
    /// differences is at most `tolerance`.
    Rmse {
        /// The index in [`Script::buffers`] of the buffer compared with.
        other: usize,
        /// The largest root mean square error that passes.
        tolerance: f64,
    },
    /// `EQ_HISTOGRAM_EMD_BUFFER other TOLERANCE tolerance`: for each channel of an 8-bit,
    /// 4-channel format, the earth mover's distance between the two buffers' histograms is at
    /// most `tolerance`.
    HistogramEmd {
        /// The index in [`Script::buffers`] of the buffer compared with.
        other: usize,
        /// The largest distance that passes (histograms normalized to 0..1).
        tolerance: f64,
    },
}

/// An `IDX` probe's comparison of the buffer's value with the expected one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `EQ`: equal; floats within a relative 1e-8 (NaN equals NaN) unless a `TOLERANCE` is
    /// given.
    Eq,
    /// `NE`: not equal.
    Ne,
    /// `LT`: less than.
    Lt,
    /// `LE`: less than or equal.
    Le,
    /// `GT`: greater than.
    Gt,
    /// `GE`: greater than or equal.
    Ge,
}

impl Cmp {
    /// The comparison a script word names (`EQ`, `NE`, `LT`, `LE`, `GT`, `GE`).
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "EQ" => Self::Eq,
            "NE" => Self::Ne,
            "LT" => Self::Lt,
            "LE" => Self::Le,
            "GT" => Self::Gt,
            "GE" => Self::Ge,
            _ => return None,
        })
    }

    /// The word scripts use.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Eq => "EQ",
            Self::Ne => "NE",
            Self::Lt => "LT",
            Self::Le => "LE",
            Self::Gt => "GT",
            Self::Ge => "GE",
        }
    }
}

/// A `TOLERANCE` value: absolute, or with `%` relative to the expected value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// The tolerance: in the compared values' units, or a percentage when `percent`.
    pub value: f64,
    /// Written with `%`.
    pub percent: bool,
}
