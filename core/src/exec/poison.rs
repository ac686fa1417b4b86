//! Poison: a per-lane flag on every register component marking a value the spec leaves
//! undefined, and everything computed from it. Undefined results get a deterministic value; the
//! flag is how the app shows where undefined data travelled.
//!
//! Registers keep one lane mask per slot (`Subgroup::poison`), memories one bit per byte
//! (`memory::PoisonMaps`: an 8- or 16-bit store defines only its own bytes). Nothing is
//! tracked until the first poison appears.

use super::Mask;

/// Per-lane OR of the poison of `width` slots from `slot`.
pub fn any(poison: &[Mask], slot: u32, width: u32) -> Mask {
    poison
        .get(slot as usize..(slot + width) as usize)
        .map_or(0, |p| p.iter().fold(0, |m, x| m | x))
}

/// Set the poison of `width` slots from `slot` to `value` for the lanes in `lanes`.
pub fn set(poison: &mut [Mask], slot: u32, width: u32, lanes: Mask, value: Mask) {
    if let Some(p) = poison.get_mut(slot as usize..(slot + width) as usize) {
        for x in p {
            *x = (*x & !lanes) | (value & lanes);
        }
    }
}
