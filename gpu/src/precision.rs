//! Precision carried through the operations that depend on it: the module rewritten so each
//! inexact float result errs within the specification's bound (nudged up, or down, by two
//! ulp; `fma` computed unfused, as Vulkan allows), then simulated on the same inputs. A word
//! that such a run changes depends on precision the specification leaves to the device,
//! however many operations (a loop of fused multiply-adds, a hash of float bits) carry the
//! error to it.

/// GLSL.std.450 instructions whose result Vulkan lets differ from the correctly rounded one
/// (the transcendentals, square roots, and those inherited from them).
const INEXACT_GLSL: [u32; 25] = [
    13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, // sin .. atan2
    26, 27, 28, 29, 30, 31, 32, // pow, exp, log, exp2, log2, sqrt, inversesqrt
    66, 67, 69, 71, 72, // length, distance, normalize, reflect, refract
];
/// GLSL.std.450 Fma.
const FMA: u32 = 50;

// Opcodes.
const EXT_INST_IMPORT: u32 = 11;
const EXT_INST: u32 = 12;
const TYPE_FLOAT: u32 = 22;
const TYPE_VECTOR: u32 = 23;
const CONSTANT: u32 = 43;
const CONSTANT_COMPOSITE: u32 = 44;
const FUNCTION: u32 = 54;
const F_ADD: u32 = 129;
const F_MUL: u32 = 133;
const F_DIV: u32 = 136;
const F_REM: u32 = 140;
const F_MOD: u32 = 141;

/// Which way a variant errs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Err {
    Up,
    Down,
}

/// The literal words of `1 ± 2 ulp` (of 1) in a float of `width` bits: what a nudged result is
/// multiplied by.
fn factor(width: u32, way: Err) -> Vec<u32> {
    match (width, way) {
        (16, Err::Up) => vec![0x3C02],   // 1 + 2^-9
        (16, Err::Down) => vec![0x3BFE], // 1 - 2^-10
        (64, _) => {
            let x = match way {
                Err::Up => 1.0f64 + 2f64.powi(-51),
                Err::Down => 1.0f64 - 2f64.powi(-52),
            };
            let b = x.to_bits();
            vec![b as u32, (b >> 32) as u32]
        }
        (_, Err::Up) => vec![(1.0f32 + 2f32.powi(-22)).to_bits()],
        (_, Err::Down) => vec![(1.0f32 - 2f32.powi(-23)).to_bits()],
    }
}

/// The module with every inexact float result (16, 32 or 64 bits, scalar or vector)
/// multiplied by `1 ± 2 ulp` and every `fma` unfused; `None` when it has none or is malformed. Works on the
/// words (a debug-information module has instructions a model reader may refuse).
pub fn variant(words: &[u32], way: Err) -> Option<Vec<u32>> {
    if !crate::words::well_formed(words) {
        return None;
    }
    let insts: Vec<(u32, &[u32], usize)> = crate::words::instructions(words).collect();
    let mut glsl = None;
    // Float types (16, 32 and 64 bits; not bfloat16) and vectors of them: (id, the scalar
    // type, its width, components).
    let mut floats: Vec<(u32, u32, u32, u32)> = Vec::new();
    for &(op, w, _) in &insts {
        let n = w.len();
        match op {
            EXT_INST_IMPORT if n >= 3 && crate::words::string(w, 2) == "GLSL.std.450" => {
                glsl = Some(w[1]);
            }
            TYPE_FLOAT if n == 3 && matches!(w[2], 16 | 32 | 64) => {
                floats.push((w[1], w[1], w[2], 1));
            }
            TYPE_VECTOR if n == 4 => {
                if let Some(&(_, scalar, width, 1)) = floats.iter().find(|f| f.0 == w[2]) {
                    floats.push((w[1], scalar, width, w[3]));
                }
            }
            _ => {}
        }
    }
    let mut bound = *words.get(3)?;
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    let mut constants = Vec::new();
    // The factor per type (scalar, then vectors of it), made on first use.
    let mut factors: Vec<(u32, u32)> = Vec::new();
    let mut body = Vec::new();
    let mut first_function = None;
    let mut changed = false;
    for &(op, w, at) in &insts {
        let n = w.len();
        if op == FUNCTION && first_function.is_none() {
            first_function = Some(at);
        }
        if first_function.is_none() {
            continue;
        }
        let float = (n >= 3)
            .then(|| floats.iter().find(|f| f.0 == w[1]))
            .flatten();
        let Some(&(ty, scalar, width, components)) = float else {
            body.extend_from_slice(w);
            continue;
        };
        let id = w[2];
        let glsl_op = (op == EXT_INST && n >= 5 && Some(w[3]) == glsl).then(|| w[4]);
        if glsl_op == Some(FMA) && n == 8 {
            // a * b + c, each rounded: the unfused form Vulkan allows.
            let t = fresh();
            body.extend(crate::words::inst(F_MUL, &[ty, t, w[5], w[6]]));
            body.extend(crate::words::inst(F_ADD, &[ty, id, t, w[7]]));
            changed = true;
            continue;
        }
        let inexact = matches!(op, F_DIV | F_REM | F_MOD)
            || glsl_op.is_some_and(|g| INEXACT_GLSL.contains(&g));
        if !inexact {
            body.extend_from_slice(w);
            continue;
        }
        let scalar_k = match factors.iter().find(|f| f.0 == scalar) {
            Some(&(_, k)) => k,
            None => {
                let k = fresh();
                let mut ops = vec![scalar, k];
                ops.extend(factor(width, way));
                constants.extend(crate::words::inst(CONSTANT, &ops));
                factors.push((scalar, k));
                k
            }
        };
        let k = if components == 1 {
            scalar_k
        } else if let Some(&(_, k)) = factors.iter().find(|f| f.0 == ty) {
            k
        } else {
            let k = fresh();
            let mut ops = vec![ty, k];
            ops.extend(std::iter::repeat_n(scalar_k, components as usize));
            constants.extend(crate::words::inst(CONSTANT_COMPOSITE, &ops));
            factors.push((ty, k));
            k
        };
        // The result under a new id, nudged into its old one (every use, decoration and debug
        // record still names it).
        let t = fresh();
        let mut moved = w.to_vec();
        moved[2] = t;
        body.extend(moved);
        body.extend(crate::words::inst(F_MUL, &[ty, id, t, k]));
        changed = true;
    }
    if !changed {
        return None;
    }
    let start = first_function?;
    let mut out = words[..start].to_vec();
    out[3] = bound;
    out.extend(constants);
    out.extend(body);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(path: &str) -> Vec<u32> {
        std::fs::read(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR")))
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn fma_is_unfused_and_transcendentals_are_nudged_in_a_module_that_still_loads() {
        for path in ["assets/alu_loop.spv", "gpu/tests/data/transcendental.spv"] {
            let w = words(path);
            for way in [Err::Up, Err::Down] {
                let v = variant(&w, way).unwrap_or_else(|| panic!("{path}: no variant"));
                assert!(v.len() > w.len(), "{path}: instructions added");
                let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                lanescope_core::load(&bytes, &Default::default())
                    .unwrap_or_else(|e| panic!("{path}: {e}"));
            }
        }
        // Integer-only: nothing to vary.
        assert!(variant(&words("gpu/tests/data/independent.spv"), Err::Up).is_none());
    }

    /// 16-bit results are nudged too (in f16's own ulp): the stored products move.
    #[test]
    fn half_precision_results_are_nudged_in_their_own_format() {
        use lanescope_core::{Bindings, Config, Simulator};
        let w = words("gpu/tests/data/half.spv");
        let outputs = |module: &[u32]| {
            let bytes: Vec<u8> = module.iter().flat_map(|x| x.to_le_bytes()).collect();
            let prog =
                std::sync::Arc::new(lanescope_core::load(&bytes, &Default::default()).unwrap());
            let b = Bindings::for_example(&prog, u64::MAX).unwrap();
            let mut sim = Simulator::new(prog, Config::default(), &b).unwrap();
            sim.run(1_000_000).unwrap();
            sim.buffer_element(0, 1, 0).unwrap()[..256].to_vec()
        };
        let plain = outputs(&w);
        for way in [Err::Up, Err::Down] {
            let v = variant(&w, way).expect("half.spv has sin and exp");
            assert_ne!(outputs(&v), plain, "{way:?}: the f16 results moved");
        }
    }
}
