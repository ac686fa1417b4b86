//! Buffers reached by device address (PhysicalStorageBuffer pointers) on a device that picks
//! its own addresses: the dispatch's inputs hold the simulation's addresses, so every input
//! word that holds one is moved to the same offset of the same buffer at the device's address
//! before the device gets it, and the simulation is run again at the device's addresses.
//!
//! Which words are addresses is not written anywhere (a pointer may sit in a `uint64_t` or a
//! `uvec2` and be converted later), so the rule is by value: an 8-byte-aligned 64-bit word
//! inside a buffer's range (or one past its end) is an address. A word of data that happens to
//! lie in a range would be moved too; [`Rebase::check`] runs the simulation with every buffer
//! moved elsewhere and refuses a dispatch whose results then differ by more than the moved
//! addresses, so such a word is found before the device runs.

use crate::compare::Simulated;
use crate::device::GpuError;
use lanescope_core::trace::{DiagCode, Diagnostic};
use lanescope_core::{Bindings, BufferAddress, Outcome, Simulator};
use std::sync::Arc;

/// Where each buffer moves: (start in the old space, length, start in the new).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rebase {
    moves: Vec<(u64, u64, u64)>,
}

impl Rebase {
    /// Buffers (old start, length, new start); those that do not move are left out.
    pub fn new(moves: impl IntoIterator<Item = (u64, u64, u64)>) -> Self {
        let mut moves: Vec<_> = moves.into_iter().filter(|m| m.0 != m.2).collect();
        moves.sort_unstable();
        Self { moves }
    }

    /// Whether nothing moves.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Where address `v` lands: inside a buffer (or one past its end, where no other buffer
    /// starts) it keeps its offset in it; `None` outside every buffer.
    pub fn map(&self, v: u64) -> Option<u64> {
        let inside = self
            .moves
            .iter()
            .find(|(from, len, _)| v >= *from && v - from < *len);
        let end = || self.moves.iter().find(|(from, len, _)| v == from + len);
        inside
            .or_else(end)
            .map(|(from, _, to)| to.wrapping_add(v - from))
    }

    /// The inverse of `self` (addresses moved back).
    pub fn inverse(&self) -> Self {
        Self::new(self.moves.iter().map(|&(from, len, to)| (to, len, from)))
    }

    /// Moves every address `bytes` holds (8-byte-aligned 64-bit words) and returns how many.
    pub fn rewrite(&self, bytes: &mut [u8]) -> usize {
        if self.is_empty() {
            return 0;
        }
        let mut n = 0;
        for w in bytes.chunks_exact_mut(8) {
            let v = u64::from_le_bytes(w.try_into().unwrap_or_default());
            if let Some(to) = self.map(v) {
                w.copy_from_slice(&to.to_le_bytes());
                n += 1;
            }
        }
        n
    }

    /// Whether two runs' final bytes of one buffer agree once `self` moves the first run's
    /// addresses: `None` when they do, else the first differing 32-bit word's index.
    pub fn differs(&self, old: &[u8], new: &[u8]) -> Option<usize> {
        if old.len() != new.len() {
            return Some(old.len().min(new.len()) / 4);
        }
        let mut moved = old.to_vec();
        self.rewrite(&mut moved);
        let word = |b: &[u8], k: usize| b.get(k * 4..k * 4 + 4).map(<[u8]>::to_vec);
        (0..old.len().div_ceil(4)).find(|&k| {
            let (o, m, n) = (word(old, k), word(&moved, k), word(new, k));
            // The word as it was, or as moved (an address); either matches.
            n != o && n != m
        })
    }

    /// Addresses that place every buffer elsewhere than `ranges` (start, length) does, in
    /// reverse order and apart from one another: a shader whose results hang on where the
    /// buffers sit (beyond the addresses it was given) gives other results there.
    pub fn elsewhere(ranges: &[(u64, u64)]) -> Self {
        // Above every simulated default window (sets below 8192 sit under 2^61 - 2^48) and
        // below 2^61, the top of the simulated address space.
        let mut at = 1u64 << 60;
        let mut order: Vec<usize> = (0..ranges.len()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(ranges[k].0));
        let mut moves = vec![(0, 0, 0); ranges.len()];
        for k in order {
            let (from, len) = ranges[k];
            moves[k] = (from, len, at);
            // A gap after each (a pointer one past its end is not the next one's start).
            at += (len + 4096).next_multiple_of(4096);
        }
        Self::new(moves)
    }
}

/// A run's access through a device address outside every bound buffer, which a device would
/// fault on (the simulation reads 0 and drops the store): the diagnostic, when there is one.
pub fn wild_access(diagnostics: &[Diagnostic]) -> Option<&Diagnostic> {
    diagnostics
        .iter()
        .find(|d| d.code == DiagCode::OutOfBounds && d.message.contains("at device address"))
}

/// A bound buffer's place: (set, binding, descriptor array element).
pub type Slot = (u32, u32, u32);

/// The bound buffers that hold storage of their own (not bindings sharing another's), with
/// the addresses the run `sim` gave them.
fn own_buffers(s: &Simulated<'_>, sim: &Simulator) -> Vec<BufferAddress> {
    let shares = |a: &BufferAddress| {
        s.bindings
            .aliases
            .iter()
            .any(|x| (x.set, x.binding, x.element) == (a.set, a.binding, a.element))
    };
    let mut own: Vec<BufferAddress> = sim
        .buffer_addresses()
        .into_iter()
        .filter(|a| !shares(a))
        .collect();
    own.sort_by_key(|a| (a.set, a.binding, a.element));
    own
}

/// The bound buffers the module declares no binding for (reached only by their addresses), by
/// slot.
pub fn undeclared(s: &Simulated<'_>, sim: &Simulator) -> Vec<BufferAddress> {
    own_buffers(s, sim)
        .into_iter()
        .filter(|a| {
            !s.prog
                .resources()
                .iter()
                .any(|r| (r.set, r.binding, r.element()) == (a.set, a.binding, a.element))
        })
        .collect()
}

/// The dispatch's bindings with every buffer moved as `to` says (each buffer's new address by
/// slot) and every input address moved with it; also how many input words were moved.
fn moved_bindings(
    s: &Simulated<'_>,
    to: impl Fn(Slot) -> Option<u64>,
) -> Result<(Bindings, Rebase, usize), String> {
    let fresh =
        Simulator::new(Arc::clone(s.prog), s.cfg.clone(), s.bindings).map_err(|e| e.to_string())?;
    let own = own_buffers(s, &fresh);
    let mut moves = Vec::new();
    for a in &own {
        let slot = (a.set, a.binding, a.element);
        let new = to(slot).ok_or_else(|| {
            format!(
                "{} has no address of its own",
                lanescope_core::slot_name(slot)
            )
        })?;
        moves.push((a.address, a.size, new));
    }
    let rebase = Rebase::new(moves);
    let mut b = s.bindings.clone();
    let mut moved = rebase.rewrite(&mut b.push_constants);
    b.addresses.clear();
    b.element_addresses.clear();
    for a in &own {
        let mut data = fresh
            .buffer_element(a.set, a.binding, a.element)
            .unwrap_or_default()
            .to_vec();
        moved += rebase.rewrite(&mut data);
        let new = to((a.set, a.binding, a.element)).unwrap_or(a.address);
        if a.element == 0 {
            b.buffers.retain(|x| (x.0, x.1) != (a.set, a.binding));
            b.buffers.push((a.set, a.binding, data));
            b.addresses.push((a.set, a.binding, new));
        } else {
            b.elements
                .retain(|x| (x.0, x.1, x.2) != (a.set, a.binding, a.element));
            b.elements.push((a.set, a.binding, a.element, data));
            b.element_addresses.push((a.set, a.binding, a.element, new));
        }
    }
    Ok((b, rebase, moved))
}

/// The run of `s`'s dispatch with `bindings`, to its end.
fn run_with(s: &Simulated<'_>, bindings: &Bindings) -> Result<Simulator, String> {
    let cfg = lanescope_core::Config {
        record_trace: false,
        ..s.cfg.clone()
    };
    let mut sim = Simulator::new(Arc::clone(s.prog), cfg, bindings).map_err(|e| e.to_string())?;
    match sim.run(s.max_steps).map_err(|e| e.to_string())? {
        Outcome::Finished => Ok(sim),
        Outcome::Budget => Err(format!(
            "the run did not finish within {} steps",
            s.max_steps
        )),
    }
}

/// Whether `s`'s dispatch may be handed to a device that places its buffers where it likes:
/// no access through an address outside every buffer (a device faults on it), neither where
/// the simulation put the buffers nor with them moved elsewhere. The run with them moved,
/// when its results differ by more than the moved addresses, gives a note saying where.
pub fn check_movable(s: &Simulated<'_>) -> Result<Option<String>, GpuError> {
    let refuse = |why: String| Err(GpuError::Unsupported(why));
    if let Some(d) = wild_access(s.sim.diagnostics()) {
        return refuse(format!(
            "a device faults on an access outside every buffer, and the simulation makes one: {} (instruction {}); the dispatch is not run on the device",
            d.message, d.instruction
        ));
    }
    let ranges: Vec<(Slot, u64, u64)> = own_buffers(s, s.sim)
        .iter()
        .map(|a| ((a.set, a.binding, a.element), a.address, a.size))
        .collect();
    let elsewhere = Rebase::elsewhere(
        &ranges
            .iter()
            .map(|(_, start, len)| (*start, *len))
            .collect::<Vec<_>>(),
    );
    let to = |slot: Slot| {
        let (_, start, _) = ranges.iter().find(|(k, _, _)| *k == slot)?;
        elsewhere.map(*start).or(Some(*start))
    };
    let (bindings, rebase, _) = moved_bindings(s, to).map_err(GpuError::Unsupported)?;
    let moved = run_with(s, &bindings).map_err(|e| {
        GpuError::Unsupported(format!(
            "with the buffers at other device addresses, {e}; the device places them where it likes, so the dispatch is not run on it"
        ))
    })?;
    if let Some(d) = wild_access(moved.diagnostics()) {
        return refuse(format!(
            "with the buffers at other device addresses the shader reaches memory outside every buffer ({}, at instruction {}): it depends on where the buffers sit, which the device picks, so the dispatch is not run on it",
            d.message, d.instruction
        ));
    }
    for (slot, _, _) in &ranges {
        let old = s
            .sim
            .buffer_element(slot.0, slot.1, slot.2)
            .unwrap_or_default();
        let new = moved
            .buffer_element(slot.0, slot.1, slot.2)
            .unwrap_or_default();
        if let Some(w) = rebase.differs(old, new) {
            return Ok(Some(format!(
                "with the buffers at other device addresses, word {w} of {} differs by more than the moved addresses: an input word taken for an address (a 64-bit word inside a buffer's range) may be data, or the shader depends on where the buffers sit; fix the addresses (--address) away from the data's values",
                lanescope_core::slot_name(*slot)
            )));
        }
    }
    Ok(None)
}

/// `s`'s dispatch at the device's addresses (`device`: each buffer's, by slot): its bindings
/// (inputs' addresses moved), the finished run, and how many input words were moved.
pub fn at_device(
    s: &Simulated<'_>,
    device: &[(Slot, u64)],
) -> Result<(Bindings, Simulator, usize), String> {
    let to = |slot: Slot| device.iter().find(|(k, _)| *k == slot).map(|x| x.1);
    let (bindings, _, moved) = moved_bindings(s, to)?;
    let sim = run_with(s, &bindings)?;
    Ok((bindings, sim, moved))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_keeps_its_offset_in_its_buffer() {
        let r = Rebase::new([(0x1000, 0x100, 0x9000), (0x2000, 0x10, 0x5000)]);
        assert_eq!(r.map(0x1000), Some(0x9000));
        assert_eq!(r.map(0x10ff), Some(0x90ff));
        // One past the end is still the buffer's; outside every buffer nothing moves.
        assert_eq!(r.map(0x1100), Some(0x9100));
        assert_eq!(r.map(0x1101), None);
        assert_eq!(r.map(0x2008), Some(0x5008));
        assert_eq!(r.inverse().map(0x5008), Some(0x2008));
        // One buffer's end and the next one's start: the start wins.
        let adjacent = Rebase::new([(0x1000, 0x10, 0x8000), (0x1010, 0x10, 0x9000)]);
        assert_eq!(adjacent.map(0x1010), Some(0x9000));
    }

    #[test]
    fn only_aligned_words_in_a_range_are_rewritten() {
        let r = Rebase::new([(0x1_0000_0000, 64, 0x7f00_0000_1000)]);
        let mut bytes = Vec::new();
        bytes.extend(0x1_0000_0008u64.to_le_bytes());
        bytes.extend(7u64.to_le_bytes());
        // The same value 4 bytes off the 8-byte grid is not an address.
        bytes.extend(0u32.to_le_bytes());
        bytes.extend(0x1_0000_0008u64.to_le_bytes());
        bytes.extend(0u32.to_le_bytes());
        assert_eq!(r.rewrite(&mut bytes), 1);
        assert_eq!(&bytes[..8], &0x7f00_0000_1008u64.to_le_bytes());
        assert_eq!(&bytes[8..16], &7u64.to_le_bytes());
        assert_eq!(&bytes[20..28], &0x1_0000_0008u64.to_le_bytes());
    }

    #[test]
    fn results_agree_when_they_differ_only_by_moved_addresses() {
        let r = Rebase::new([(0x1000, 0x100, 0x9000)]);
        let old: Vec<u8> = [0x1010u64, 5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let new: Vec<u8> = [0x9010u64, 5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(r.differs(&old, &new), None);
        let wrong: Vec<u8> = [0x9010u64, 6]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(r.differs(&old, &wrong), Some(2));
    }

    #[test]
    fn elsewhere_moves_every_buffer_apart_and_in_another_order() {
        let r = Rebase::elsewhere(&[(0x1000, 16), (0x2000, 5000)]);
        let (a, b) = (r.map(0x1000).unwrap(), r.map(0x2000).unwrap());
        assert!(a > b, "the order is reversed");
        assert!(a > b + 5000, "apart");
        assert_eq!(a % 16, 0);
        assert_eq!(b % 16, 0);
        assert!(a + 16 < 1 << 61);
    }
}
