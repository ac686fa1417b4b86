//! A module's instructions read straight from its words: what the comparison needs to know of a
//! module (its extensions, capabilities, a switch) and to rewrite (its precision variants,
//! maximal reconvergence left out), without a model reader, which refuses some valid modules
//! (debug information's instructions among the types).

/// The instructions after the header, as (opcode, the instruction's words, its offset), up to
/// the first malformed one (a zero or overlong word count).
pub fn instructions(words: &[u32]) -> impl Iterator<Item = (u32, &[u32], usize)> {
    let mut at = 5;
    std::iter::from_fn(move || {
        let first = *words.get(at)?;
        let n = (first >> 16) as usize;
        let inst = words.get(at..at + n).filter(|_| n > 0)?;
        let here = at;
        at += n;
        Some((first & 0xffff, inst, here))
    })
}

/// Whether every word of the module is read as instructions (no malformed one).
pub fn well_formed(words: &[u32]) -> bool {
    words.len() >= 5
        && instructions(words).map(|(_, i, _)| i.len()).sum::<usize>() == words.len() - 5
}

/// The literal string an instruction holds from its word `from` on (`OpExtension`'s name,
/// `OpExtInstImport`'s set).
pub fn string(inst: &[u32], from: usize) -> String {
    let bytes: Vec<u8> = inst
        .iter()
        .skip(from)
        .flat_map(|w| w.to_le_bytes())
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// An instruction's words: its opcode and operands.
pub fn inst(op: u32, operands: &[u32]) -> Vec<u32> {
    let mut v = vec![((operands.len() as u32 + 1) << 16) | op];
    v.extend_from_slice(operands);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_stop_at_a_malformed_one() {
        let mut w = vec![0x0723_0203, 0x0001_0600, 0, 10, 0];
        w.extend(inst(17, &[1]));
        w.extend(inst(19, &[2]));
        assert_eq!(
            instructions(&w).map(|(op, _, _)| op).collect::<Vec<_>>(),
            [17, 19]
        );
        assert!(well_formed(&w));
        w.push(0);
        assert_eq!(instructions(&w).count(), 2);
        assert!(!well_formed(&w));
        w.pop();
        w.push(5 << 16 | 20);
        assert_eq!(instructions(&w).count(), 2, "a count past the end");
    }
}
