//! Precision carried through the operations that depend on it: the module rewritten so each
//! inexact float result errs to the edge of the bound Vulkan gives that operation (all up in
//! one variant, all down in the other; `fma` unfused, as Vulkan allows), then simulated on the
//! same inputs. A word that such a run changes depends on precision the specification leaves
//! to the device, however many operations (a loop of fused multiply-adds, a hash of float bits)
//! carry the error to it.
//!
//! The bounds are those of the Vulkan environment's precision table for 32-bit floats
//! ("Precision and Operation of SPIR-V Instructions"): OpFDiv 2.5 ulp; exp and exp2 3 + 2|x|
//! ulp; log and log2 3 ulp outside [0.5, 2] and 2^-21 absolute inside; inversesqrt 2 ulp; sin
//! and cos 2^-11 absolute; atan and atan2 4096 ulp. What the table says is inherited is
//! rewritten as its definition with each part nudged: pow as exp2(y log2 x), sqrt as
//! 1 / inversesqrt, tan as sin / cos, sinh, cosh and tanh from exp, asinh, acosh and atanh from
//! log, FRem and FMod as x - y trunc(x / y) and x - y floor(x / y). asin and acos take atan2's
//! bound; length, distance and refract 5 ulp (a square root), normalize 3. A 64-bit float is
//! bound as a 32-bit one (the table asks no more of doubles); a 16-bit one, or a
//! RelaxedPrecision result, in its own ulp with 2^-7 for the absolute bounds.

use lanescope_core::float::{from_f64, Format, Round};

// GLSL.std.450 instruction numbers.
const G_TRUNC: u32 = 3;
const G_FABS: u32 = 4;
const G_FLOOR: u32 = 8;
const G_SIN: u32 = 13;
const G_COS: u32 = 14;
const G_TAN: u32 = 15;
const G_ASIN: u32 = 16;
const G_ACOS: u32 = 17;
const G_ATAN: u32 = 18;
const G_SINH: u32 = 19;
const G_COSH: u32 = 20;
const G_TANH: u32 = 21;
const G_ASINH: u32 = 22;
const G_ACOSH: u32 = 23;
const G_ATANH: u32 = 24;
const G_ATAN2: u32 = 25;
const G_POW: u32 = 26;
const G_EXP: u32 = 27;
const G_LOG: u32 = 28;
const G_EXP2: u32 = 29;
const G_LOG2: u32 = 30;
const G_SQRT: u32 = 31;
const G_INVERSE_SQRT: u32 = 32;
const G_FMA: u32 = 50;
const G_LENGTH: u32 = 66;
const G_DISTANCE: u32 = 67;
const G_NORMALIZE: u32 = 69;
const G_REFRACT: u32 = 72;

// Opcodes.
const DECORATE: u32 = 71;
const EXT_INST_IMPORT: u32 = 11;
const EXT_INST: u32 = 12;
const TYPE_BOOL: u32 = 20;
const TYPE_FLOAT: u32 = 22;
const TYPE_VECTOR: u32 = 23;
const CONSTANT: u32 = 43;
const CONSTANT_COMPOSITE: u32 = 44;
const FUNCTION: u32 = 54;
const F_NEGATE: u32 = 127;
const F_ADD: u32 = 129;
const F_SUB: u32 = 131;
const F_MUL: u32 = 133;
const F_DIV: u32 = 136;
const F_REM: u32 = 140;
const F_MOD: u32 = 141;
const LOGICAL_AND: u32 = 167;
const SELECT: u32 = 169;
const F_ORD_LESS_THAN_EQUAL: u32 = 188;
const F_ORD_GREATER_THAN_EQUAL: u32 = 190;
/// The RelaxedPrecision decoration.
const RELAXED_PRECISION: u32 = 0;

/// Which way a variant errs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Err {
    Up,
    Down,
}

impl Err {
    fn flip(self) -> Self {
        match self {
            Err::Up => Err::Down,
            Err::Down => Err::Up,
        }
    }

    fn sign(self) -> f64 {
        match self {
            Err::Up => 1.0,
            Err::Down => -1.0,
        }
    }
}

/// A float type of the module: scalar or vector.
#[derive(Clone, Copy, Debug)]
struct Float {
    ty: u32,
    scalar: u32,
    width: u32,
    components: u32,
}

/// The rewritten function bodies and what they need declared.
struct Rewriter {
    way: Err,
    glsl: u32,
    bound: u32,
    /// New types and constants, declared before the first function.
    decls: Vec<u32>,
    /// (type, value bits) -> constant id.
    consts: Vec<(u32, u64, u32)>,
    /// Bool scalar and vector types by component count.
    bools: Vec<(u32, u32)>,
    body: Vec<u32>,
}

impl Rewriter {
    fn fresh(&mut self) -> u32 {
        self.bound += 1;
        self.bound - 1
    }

    fn emit(&mut self, op: u32, operands: &[u32]) {
        self.body.extend(crate::words::inst(op, operands));
    }

    /// `op` with a fresh result of type `ty`.
    fn op(&mut self, op: u32, ty: u32, args: &[u32]) -> u32 {
        let id = self.fresh();
        let mut v = vec![ty, id];
        v.extend_from_slice(args);
        self.emit(op, &v);
        id
    }

    fn glsl(&mut self, ty: u32, g: u32, args: &[u32]) -> u32 {
        let mut v = vec![self.glsl, g];
        v.extend_from_slice(args);
        self.op(EXT_INST, ty, &v)
    }

    /// The constant `x` of float type `f` (every component `x`).
    fn konst(&mut self, f: Float, x: f64) -> u32 {
        let bits = from_f64(x, Format::ieee(f.width), Round::Rte);
        let scalar = match self.consts.iter().find(|c| (c.0, c.1) == (f.scalar, bits)) {
            Some(&(_, _, id)) => id,
            None => {
                let id = self.fresh();
                let mut ops = vec![f.scalar, id, bits as u32];
                if f.width == 64 {
                    ops.push((bits >> 32) as u32);
                }
                self.decls.extend(crate::words::inst(CONSTANT, &ops));
                self.consts.push((f.scalar, bits, id));
                id
            }
        };
        if f.components == 1 {
            return scalar;
        }
        if let Some(&(_, _, id)) = self.consts.iter().find(|c| (c.0, c.1) == (f.ty, bits)) {
            return id;
        }
        let id = self.fresh();
        let mut ops = vec![f.ty, id];
        ops.extend(std::iter::repeat_n(scalar, f.components as usize));
        self.decls
            .extend(crate::words::inst(CONSTANT_COMPOSITE, &ops));
        self.consts.push((f.ty, bits, id));
        id
    }

    /// The bool type with `f`'s component count (declared when the module has none).
    fn bool_of(&mut self, f: Float) -> u32 {
        if let Some(&(_, id)) = self.bools.iter().find(|b| b.0 == f.components) {
            return id;
        }
        let scalar = match self.bools.iter().find(|b| b.0 == 1) {
            Some(&(_, id)) => id,
            None => {
                let id = self.fresh();
                self.decls.extend(crate::words::inst(TYPE_BOOL, &[id]));
                self.bools.push((1, id));
                id
            }
        };
        if f.components == 1 {
            return scalar;
        }
        let id = self.fresh();
        self.decls
            .extend(crate::words::inst(TYPE_VECTOR, &[id, scalar, f.components]));
        self.bools.push((f.components, id));
        id
    }

    /// One ulp of `f` relative to the value (2^-23 for 32- and 64-bit floats: doubles are
    /// bound as singles), and the absolute bounds' scale.
    fn units(f: Float, relaxed: bool) -> (f64, f64) {
        if f.width == 16 || relaxed {
            (2f64.powi(-10), 2f64.powi(-7))
        } else {
            (2f64.powi(-23), 1.0)
        }
    }

    /// `v` erring by `k` ulp, into `into` (or a fresh id).
    fn rel(&mut self, f: Float, relaxed: bool, v: u32, k: f64, into: Option<u32>) -> u32 {
        let (u, _) = Self::units(f, relaxed);
        let factor = self.konst(f, 1.0 + self.way.sign() * k * u);
        self.finish(F_MUL, f.ty, &[v, factor], into)
    }

    /// `v` erring by `e` absolute (`e` at 32-bit scale: 2^-11 and 2^-21 become 2^-7 in 16 bits).
    fn abs(&mut self, f: Float, relaxed: bool, v: u32, e: f64, into: Option<u32>) -> u32 {
        let (_, scale) = Self::units(f, relaxed);
        let e = if scale == 1.0 { e } else { scale };
        let k = self.konst(f, self.way.sign() * e);
        self.finish(F_ADD, f.ty, &[v, k], into)
    }

    /// `v` (exp or exp2 of `x`) erring by 3 + 2|x| ulp (1 + 2|x| in 16 bits).
    fn exp_like(&mut self, f: Float, relaxed: bool, v: u32, x: u32, into: Option<u32>) -> u32 {
        let (u, scale) = Self::units(f, relaxed);
        let a = if scale == 1.0 { 3.0 } else { 1.0 };
        let ax = self.glsl(f.ty, G_FABS, &[x]);
        let two_u = self.konst(f, 2.0 * u);
        let t = self.op(F_MUL, f.ty, &[ax, two_u]);
        let au = self.konst(f, a * u);
        let t = self.op(F_ADD, f.ty, &[t, au]);
        let one = self.konst(f, 1.0);
        let factor = match self.way {
            Err::Up => self.op(F_ADD, f.ty, &[one, t]),
            Err::Down => self.op(F_SUB, f.ty, &[one, t]),
        };
        self.finish(F_MUL, f.ty, &[v, factor], into)
    }

    /// `v` (log or log2 of `x`) erring by 2^-21 absolute for `x` in [0.5, 2], 3 ulp outside.
    fn log_like(&mut self, f: Float, relaxed: bool, v: u32, x: u32, into: Option<u32>) -> u32 {
        let outside = self.rel(f, relaxed, v, 3.0, None);
        let inside = self.abs(f, relaxed, v, 2f64.powi(-21), None);
        let b = self.bool_of(f);
        let (half, two) = (self.konst(f, 0.5), self.konst(f, 2.0));
        let lo = self.op(F_ORD_GREATER_THAN_EQUAL, b, &[x, half]);
        let hi = self.op(F_ORD_LESS_THAN_EQUAL, b, &[x, two]);
        let within = self.op(LOGICAL_AND, b, &[lo, hi]);
        self.finish(SELECT, f.ty, &[within, inside, outside], into)
    }

    fn finish(&mut self, op: u32, ty: u32, args: &[u32], into: Option<u32>) -> u32 {
        match into {
            Some(id) => {
                let mut v = vec![ty, id];
                v.extend_from_slice(args);
                self.emit(op, &v);
                id
            }
            None => self.op(op, ty, args),
        }
    }

    /// sqrt(x) as 1 / inversesqrt(x), each part at its bound.
    fn sqrt(&mut self, f: Float, relaxed: bool, x: u32, into: Option<u32>) -> u32 {
        let i = self.glsl(f.ty, G_INVERSE_SQRT, &[x]);
        let i = self.rel(f, relaxed, i, 2.0, None);
        let one = self.konst(f, 1.0);
        let q = self.op(F_DIV, f.ty, &[one, i]);
        self.rel(f, relaxed, q, 2.5, into)
    }

    /// exp(x) at its bound.
    fn exp(&mut self, f: Float, relaxed: bool, x: u32) -> u32 {
        let e = self.glsl(f.ty, G_EXP, &[x]);
        self.exp_like(f, relaxed, e, x, None)
    }

    /// log(x) at its bound.
    fn log(&mut self, f: Float, relaxed: bool, x: u32, into: Option<u32>) -> u32 {
        let l = self.glsl(f.ty, G_LOG, &[x]);
        self.log_like(f, relaxed, l, x, into)
    }

    /// (exp(x) ± exp(-x)) / 2, each exp at its bound.
    fn sinh_cosh(&mut self, f: Float, relaxed: bool, x: u32, plus: bool, into: Option<u32>) -> u32 {
        let a = self.exp(f, relaxed, x);
        let nx = self.op(F_NEGATE, f.ty, &[x]);
        let b = self.exp(f, relaxed, nx);
        let d = self.op(if plus { F_ADD } else { F_SUB }, f.ty, &[a, b]);
        let half = self.konst(f, 0.5);
        self.finish(F_MUL, f.ty, &[d, half], into)
    }

    /// The instruction `w` (opcode `op`, a result of float type `f`) at the edge of its bound,
    /// its result still `w[2]`; false when it is exact (left as it is).
    fn rewrite(&mut self, op: u32, w: &[u32], f: Float, relaxed: bool) -> bool {
        let id = w[2];
        let into = Some(id);
        let n = w.len();
        let g = (op == EXT_INST && n >= 5 && w[3] == self.glsl).then(|| w[4]);
        let arg = |i: usize| w.get(5 + i).copied().unwrap_or(0);
        // The instruction as it was, under a fresh result id.
        let moved = |r: &mut Self| {
            let t = r.fresh();
            let mut m = w.to_vec();
            m[2] = t;
            r.body.extend(m);
            t
        };
        match (op, g) {
            (F_DIV, _) => {
                let t = moved(self);
                self.rel(f, relaxed, t, 2.5, into);
            }
            (F_REM | F_MOD, _) if n == 5 => {
                // x - y trunc(x / y) (or floor): the division at its bound.
                let (x, y) = (w[3], w[4]);
                let q = self.op(F_DIV, f.ty, &[x, y]);
                let q = self.rel(f, relaxed, q, 2.5, None);
                let i = self.glsl(f.ty, if op == F_REM { G_TRUNC } else { G_FLOOR }, &[q]);
                let m = self.op(F_MUL, f.ty, &[y, i]);
                self.finish(F_SUB, f.ty, &[x, m], into);
            }
            (_, Some(G_FMA)) if n == 8 => {
                // a * b + c, each rounded: the unfused form Vulkan allows.
                let t = self.op(F_MUL, f.ty, &[arg(0), arg(1)]);
                self.finish(F_ADD, f.ty, &[t, arg(2)], into);
            }
            (_, Some(G_EXP | G_EXP2)) => {
                let t = moved(self);
                self.exp_like(f, relaxed, t, arg(0), into);
            }
            (_, Some(G_LOG | G_LOG2)) => {
                let t = moved(self);
                self.log_like(f, relaxed, t, arg(0), into);
            }
            (_, Some(G_POW)) => {
                // exp2(y log2 x).
                let (x, y) = (arg(0), arg(1));
                let l = self.glsl(f.ty, G_LOG2, &[x]);
                let l = self.log_like(f, relaxed, l, x, None);
                let m = self.op(F_MUL, f.ty, &[y, l]);
                let e = self.glsl(f.ty, G_EXP2, &[m]);
                self.exp_like(f, relaxed, e, m, into);
            }
            (_, Some(G_SQRT)) => {
                self.sqrt(f, relaxed, arg(0), into);
            }
            (_, Some(G_INVERSE_SQRT)) => {
                let t = moved(self);
                self.rel(f, relaxed, t, 2.0, into);
            }
            (_, Some(G_SIN | G_COS)) => {
                let t = moved(self);
                self.abs(f, relaxed, t, 2f64.powi(-11), into);
            }
            (_, Some(G_TAN)) => {
                let x = arg(0);
                let s = self.glsl(f.ty, G_SIN, &[x]);
                let s = self.abs(f, relaxed, s, 2f64.powi(-11), None);
                let c = self.glsl(f.ty, G_COS, &[x]);
                // The other way for the divisor, so the quotient reaches its edge.
                self.way = self.way.flip();
                let c = self.abs(f, relaxed, c, 2f64.powi(-11), None);
                self.way = self.way.flip();
                let q = self.op(F_DIV, f.ty, &[s, c]);
                self.rel(f, relaxed, q, 2.5, into);
            }
            (_, Some(G_ASIN | G_ACOS | G_ATAN | G_ATAN2)) => {
                let t = moved(self);
                self.rel(f, relaxed, t, 4096.0, into);
            }
            (_, Some(G_SINH)) => {
                self.sinh_cosh(f, relaxed, arg(0), false, into);
            }
            (_, Some(G_COSH)) => {
                self.sinh_cosh(f, relaxed, arg(0), true, into);
            }
            (_, Some(G_TANH)) => {
                let s = self.sinh_cosh(f, relaxed, arg(0), false, None);
                let c = self.sinh_cosh(f, relaxed, arg(0), true, None);
                let q = self.op(F_DIV, f.ty, &[s, c]);
                self.rel(f, relaxed, q, 2.5, into);
            }
            (_, Some(G_ASINH | G_ACOSH)) => {
                // log(x + sqrt(x x ± 1)).
                let x = arg(0);
                let x2 = self.op(F_MUL, f.ty, &[x, x]);
                let one = self.konst(f, 1.0);
                let r = self.op(
                    if g == Some(G_ASINH) { F_ADD } else { F_SUB },
                    f.ty,
                    &[x2, one],
                );
                let s = self.sqrt(f, relaxed, r, None);
                let a = self.op(F_ADD, f.ty, &[x, s]);
                self.log(f, relaxed, a, into);
            }
            (_, Some(G_ATANH)) => {
                // log((1 + x) / (1 - x)) / 2.
                let x = arg(0);
                let one = self.konst(f, 1.0);
                let p = self.op(F_ADD, f.ty, &[one, x]);
                let m = self.op(F_SUB, f.ty, &[one, x]);
                let q = self.op(F_DIV, f.ty, &[p, m]);
                let q = self.rel(f, relaxed, q, 2.5, None);
                let l = self.log(f, relaxed, q, None);
                let half = self.konst(f, 0.5);
                self.finish(F_MUL, f.ty, &[l, half], into);
            }
            (_, Some(G_LENGTH | G_DISTANCE | G_REFRACT)) => {
                let t = moved(self);
                self.rel(f, relaxed, t, 5.0, into);
            }
            (_, Some(G_NORMALIZE)) => {
                let t = moved(self);
                self.rel(f, relaxed, t, 3.0, into);
            }
            _ => return false,
        }
        true
    }
}

/// The module with every inexact float result (16, 32 or 64 bits, scalar or vector) at the
/// edge of its bound one way, and every `fma` unfused; `None` when it has none or is
/// malformed. Works on the words (a debug-information module has instructions a model reader
/// may refuse).
pub fn variant(words: &[u32], way: Err) -> Option<Vec<u32>> {
    if !crate::words::well_formed(words) {
        return None;
    }
    let insts: Vec<(u32, &[u32], usize)> = crate::words::instructions(words).collect();
    let mut glsl = None;
    let mut floats: Vec<Float> = Vec::new();
    let mut bools = Vec::new();
    let mut relaxed = std::collections::HashSet::new();
    for &(op, w, _) in &insts {
        let n = w.len();
        match op {
            EXT_INST_IMPORT if n >= 3 && crate::words::string(w, 2) == "GLSL.std.450" => {
                glsl = Some(w[1]);
            }
            DECORATE if n >= 3 && w[2] == RELAXED_PRECISION => {
                relaxed.insert(w[1]);
            }
            TYPE_BOOL if n == 2 => bools.push((1, w[1])),
            TYPE_FLOAT if n == 3 && matches!(w[2], 16 | 32 | 64) => floats.push(Float {
                ty: w[1],
                scalar: w[1],
                width: w[2],
                components: 1,
            }),
            TYPE_VECTOR if n == 4 => {
                if let Some(s) = floats.iter().find(|f| f.ty == w[2] && f.components == 1) {
                    floats.push(Float {
                        ty: w[1],
                        components: w[3],
                        ..*s
                    });
                } else if bools.iter().any(|b| b == &(1, w[2])) {
                    bools.push((w[3], w[1]));
                }
            }
            _ => {}
        }
    }
    let mut r = Rewriter {
        way,
        glsl: glsl.unwrap_or(u32::MAX),
        bound: *words.get(3)?,
        decls: Vec::new(),
        consts: Vec::new(),
        bools,
        body: Vec::new(),
    };
    let mut first_function = None;
    let mut changed = false;
    for &(op, w, at) in &insts {
        if op == FUNCTION && first_function.is_none() {
            first_function = Some(at);
        }
        if first_function.is_none() {
            continue;
        }
        let float = (w.len() >= 3)
            .then(|| floats.iter().find(|f| f.ty == w[1]).copied())
            .flatten();
        let rewritten = match float {
            Some(f) if matches!(op, F_DIV | F_REM | F_MOD | EXT_INST) => {
                r.rewrite(op, w, f, relaxed.contains(&w[2]))
            }
            _ => false,
        };
        if rewritten {
            changed = true;
        } else {
            r.body.extend_from_slice(w);
        }
    }
    if !changed {
        return None;
    }
    let start = first_function?;
    let mut out = words[..start].to_vec();
    out[3] = r.bound;
    out.extend(r.decls);
    out.extend(r.body);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{bytes, file_words as words, simulate};
    use lanescope_core::{Bindings, Config};

    #[test]
    fn fma_is_unfused_and_transcendentals_are_nudged_in_a_module_that_still_loads() {
        for path in ["assets/alu_loop.spv", "gpu/tests/data/transcendental.spv"] {
            let w = words(path);
            for way in [Err::Up, Err::Down] {
                let v = variant(&w, way).unwrap_or_else(|| panic!("{path}: no variant"));
                assert!(v.len() > w.len(), "{path}: instructions added");
                lanescope_core::load(&bytes(&v), &Default::default())
                    .unwrap_or_else(|e| panic!("{path}: {e}"));
            }
        }
        // Integer-only: nothing to vary.
        assert!(variant(&words("gpu/tests/data/independent.spv"), Err::Up).is_none());
    }

    /// 16-bit results are nudged too (in f16's own ulp): the stored products move.
    #[test]
    fn half_precision_results_are_nudged_in_their_own_format() {
        let w = words("gpu/tests/data/half.spv");
        let outputs = |module: &[u32]| {
            let sim = simulate(module, &Default::default(), Config::default(), None);
            sim.buffer_element(0, 1, 0).unwrap()[..256].to_vec()
        };
        let plain = outputs(&w);
        for way in [Err::Up, Err::Down] {
            let v = variant(&w, way).expect("half.spv has sin and exp");
            assert_ne!(outputs(&v), plain, "{way:?}: the f16 results moved");
        }
    }

    /// Every operation of the precision table (and each it says is inherited) is rewritten
    /// to the edge of its own bound: both variants load and run, each such result moves, and
    /// by no more than its bound allows (sin 2^-11 absolute, exp 3 + 2|x| ulp, atan 4096 ulp,
    /// a division 2.5 ulp; the double by the single-precision ulp).
    #[test]
    fn each_operation_errs_to_the_edge_of_its_own_bound() {
        let w = words("gpu/tests/data/inexact_all.spv");
        let run = |module: &[u32]| {
            let sim = simulate(module, &Default::default(), Config::default(), None);
            let f = |set, binding| sim.buffer_element(set, binding, 0).unwrap().to_vec();
            (f(0, 1), f(0, 2))
        };
        let (plain, wide) = run(&w);
        let at = |b: &[u8], i: usize| {
            f64::from(f32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
        };
        let at64 = |b: &[u8], i: usize| f64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap());
        let u = 2f64.powi(-23);
        for way in [Err::Up, Err::Down] {
            let v = variant(&w, way).expect("a variant");
            let (out, out_wide) = run(&v);
            // Invocation 5's results (x = 0.225, y = 6.5).
            let o = 32 * 5;
            let moved = |i: usize| at(&out, o + i) != at(&plain, o + i);
            for i in (0..20).chain(22..28) {
                assert!(moved(i), "{way:?}: result {i} did not move");
            }
            let d = |i: usize| (at(&out, o + i) - at(&plain, o + i)).abs();
            let rel = |i: usize| d(i) / at(&plain, o + i).abs();
            assert!(
                d(0) <= 2f64.powi(-11) * 1.01 && d(0) >= 2f64.powi(-11) * 0.9,
                "sin: {}",
                d(0)
            );
            let x = 0.225f64;
            assert!(rel(14) <= (3.0 + 2.0 * x) * u * 1.5 + u, "exp: {}", rel(14));
            assert!(
                rel(5) <= 4096.0 * u * 1.01 && rel(5) >= 4000.0 * u,
                "atan: {}",
                rel(5)
            );
            // x itself is a quotient (the input over 40), its 2.5 ulp carried in.
            assert!(
                rel(22) <= 5.5 * u && rel(22) >= 2.0 * u,
                "division: {}",
                rel(22)
            );
            // The double: the single-precision ulp.
            let dw = (at64(&out_wide, 10) - at64(&wide, 10)).abs() / at64(&wide, 10).abs();
            assert!(dw >= 2.0 * u && dw <= 5.5 * u, "double division: {dw}");
        }
    }

    /// A RelaxedPrecision result is bound as a 16-bit one: its sine errs by 2^-7 where the
    /// same sine undecorated errs by 2^-11.
    #[test]
    fn a_relaxed_precision_result_gets_the_16_bit_bound() {
        let text = r#"
               OpCapability Shader
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %relaxed RelaxedPrecision
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Out 0 Offset 0
               OpDecorate %Out Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %uint = OpTypeInt 32 0
        %arr = OpTypeRuntimeArray %float
        %Out = OpTypeStruct %arr
        %ptr = OpTypePointer StorageBuffer %Out
       %pelt = OpTypePointer StorageBuffer %float
        %out = OpVariable %ptr StorageBuffer
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
        %one = OpConstant %float 1
       %main = OpFunction %void None %fn
      %entry = OpLabel
      %plain = OpExtInst %float %1 Sin %one
    %relaxed = OpExtInst %float %1 Sin %one
         %p0 = OpAccessChain %pelt %out %u0 %u0
               OpStore %p0 %plain
         %p1 = OpAccessChain %pelt %out %u0 %u1
               OpStore %p1 %relaxed
               OpReturn
               OpFunctionEnd
"#;
        let w = lanescope_core::spvtext::assemble(text, &Default::default()).expect("assembles");
        let run = |module: &[u32]| {
            let b = Bindings {
                buffers: vec![(0, 0, vec![0; 8])],
                ..Bindings::default()
            };
            let sim = simulate(module, &Default::default(), Config::default(), Some(b));
            let o = sim.buffer(0, 0).unwrap().to_vec();
            [0, 1].map(|i| f64::from(f32::from_le_bytes(o[4 * i..4 * i + 4].try_into().unwrap())))
        };
        let plain = run(&w);
        let up = run(&variant(&w, Err::Up).expect("a variant"));
        assert!(
            (up[0] - plain[0] - 2f64.powi(-11)).abs() < 1e-7,
            "{up:?} {plain:?}"
        );
        assert!(
            (up[1] - plain[1] - 2f64.powi(-7)).abs() < 1e-7,
            "{up:?} {plain:?}"
        );
    }
}
