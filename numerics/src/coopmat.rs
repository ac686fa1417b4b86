//! Cooperative-matrix arithmetic on logical matrices (row-major element vectors of raw bits):
//! `OpCooperativeMatrixMulAddKHR` with its signedness and saturation operands. Pure functions,
//! tested against a plain reference.

use crate::float::{self, FloatControls, Format};
use crate::value::{mask, sext, ScalarTy};

/// `Cooperative Matrix Operands` of a MulAdd.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MulAddFlags {
    /// MatrixASignedComponentsKHR: A's integer components are signed.
    pub a_signed: bool,
    /// MatrixBSignedComponentsKHR.
    pub b_signed: bool,
    /// MatrixCSignedComponentsKHR.
    pub c_signed: bool,
    /// MatrixResultSignedComponentsKHR.
    pub result_signed: bool,
    /// SaturatingAccumulationKHR: the accumulation saturates instead of wrapping.
    pub saturating: bool,
}

impl MulAddFlags {
    /// The flags of the operand's mask bits.
    pub fn from_bits(b: u32) -> Self {
        Self {
            a_signed: b & 1 != 0,
            b_signed: b & 2 != 0,
            c_signed: b & 4 != 0,
            result_signed: b & 8 != 0,
            saturating: b & 16 != 0,
        }
    }
}

/// Element types and shape of an M x N x K MulAdd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MulAddTypes {
    /// Rows of A, C and the result.
    pub m: u32,
    /// Columns of B, C and the result.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// A's component type.
    pub a: ScalarTy,
    /// B's component type.
    pub b: ScalarTy,
    /// C's component type.
    pub c: ScalarTy,
    /// The result's component type.
    pub result: ScalarTy,
}

/// Result of a MulAdd: the M x N result and the elements whose value is undefined (integer
/// overflow of A x B under SaturatingAccumulation).
pub struct MulAddResult {
    /// The result's elements, row-major, as raw bits.
    pub value: Vec<u64>,
    /// Indices of the elements whose value is undefined.
    pub overflow: Vec<u32>,
}

/// An integer element extended as the operands say: sign-extended when `signed`, else
/// zero-extended.
fn ext(v: u64, bits: u32, signed: bool) -> i128 {
    if signed {
        i128::from(sext(v, bits))
    } else {
        i128::from(v & mask(bits))
    }
}

/// The range of an N-bit integer of the given signedness.
fn range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Result = A (M x K) x B (K x N) + C (M x N), every matrix row-major.
///
/// Integers: elements are sign- or zero-extended per the operand flags; without
/// SaturatingAccumulation the result is the low N bits of the exact value. With it, the
/// product A x B is computed at the result's precision: when a product or the exact sum of
/// products does not fit the result type (signedness: MatrixResultSignedComponents) the result
/// is undefined (reported in `overflow`; the value is then the wrapped sum, saturated as
/// below); the addition of C is exact and saturates to the result type.
///
/// Floats (the precision is the client API's choice): products and sums in f64 (exact for
/// f16 operands, and for f32 products), C added last, rounded once to the result type. Under
/// float controls (`fc`), denormal elements of a flushing width read as zero, and the final
/// rounding and flushing follow the result width's mode; the f64 accumulation itself rounds
/// to nearest.
pub fn muladd(
    t: &MulAddTypes,
    f: MulAddFlags,
    a: &[u64],
    b: &[u64],
    c: &[u64],
    fc: &FloatControls,
) -> MulAddResult {
    let (m, n, k) = (t.m as usize, t.n as usize, t.k as usize);
    let mut value = Vec::with_capacity(m * n);
    let mut overflow = Vec::new();
    let float = t.result.is_any_float();
    let rb = t.result.bits();
    let (lo, hi) = range(rb, f.result_signed);
    for i in 0..m {
        for j in 0..n {
            let e = i * n + j;
            if float {
                let ld = |ty: ScalarTy, v: u64| {
                    let fmt = Format::of(ty).unwrap_or(Format::F32);
                    float::to_f64(fmt, fc.of(ty).flush(fmt, v))
                };
                let mut acc = 0.0f64;
                for x in 0..k {
                    acc += ld(t.a, a[i * k + x]) * ld(t.b, b[x * n + j]);
                }
                acc += ld(t.c, c[e]);
                let (fmt, mode) = (Format::of(t.result).unwrap_or(Format::F32), fc.of(t.result));
                value.push(mode.flush(fmt, float::result_from_f64(acc, fmt, mode.round)));
                continue;
            }
            let mut dot: i128 = 0;
            let mut undefined = false;
            for x in 0..k {
                let (pa, pb) = (
                    ext(a[i * k + x], t.a.bits(), f.a_signed),
                    ext(b[x * n + j], t.b.bits(), f.b_signed),
                );
                // Two 64-bit operands may overflow even i128: wrap (the low bits stay exact)
                // and count it as out of range.
                let p = pa.checked_mul(pb);
                undefined |= p.is_none_or(|p| p < lo || p > hi);
                let p = pa.wrapping_mul(pb);
                let d = dot.checked_add(p);
                undefined |= d.is_none();
                dot = dot.wrapping_add(p);
            }
            let cv = ext(c[e], t.c.bits(), f.c_signed);
            let r = if f.saturating {
                undefined |= dot < lo || dot > hi;
                // Undefined case: wrap the product sum to the result width first.
                let d = if undefined {
                    let w = (dot as u64) & mask(rb);
                    if f.result_signed {
                        i128::from(sext(w, rb))
                    } else {
                        i128::from(w)
                    }
                } else {
                    dot
                };
                (d + cv).clamp(lo, hi)
            } else {
                dot.wrapping_add(cv)
            };
            if f.saturating && undefined {
                overflow.push(e as u32);
            }
            value.push((r as u64) & mask(rb));
        }
    }
    MulAddResult { value, overflow }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{float_from_f64, float_to_f64};

    /// The default float mode's MulAdd.
    fn muladd(t: &MulAddTypes, f: MulAddFlags, a: &[u64], b: &[u64], c: &[u64]) -> MulAddResult {
        super::muladd(t, f, a, b, c, &FloatControls::default())
    }

    const I8: ScalarTy = ScalarTy::Int {
        bits: 8,
        signed: true,
    };
    const U8: ScalarTy = ScalarTy::Int {
        bits: 8,
        signed: false,
    };
    const F16: ScalarTy = ScalarTy::Float { bits: 16 };

    /// Deterministic pseudo-random words.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed.wrapping_mul(6_364_136_223_846_793_005) | 1;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// Plain reference for integers: textbook triple loop on i128 with explicit extension.
    fn int_reference(t: &MulAddTypes, f: MulAddFlags, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
        let get = |v: u64, ty: ScalarTy, s: bool| {
            let bits = ty.bits();
            if s {
                let sh = 128 - bits;
                ((i128::from(v)) << sh) >> sh
            } else {
                i128::from(v) & ((1i128 << bits) - 1)
            }
        };
        let mut out = vec![];
        for i in 0..t.m as usize {
            for j in 0..t.n as usize {
                let mut s = 0i128;
                for x in 0..t.k as usize {
                    s = s.wrapping_add(
                        get(a[i * t.k as usize + x], t.a, f.a_signed).wrapping_mul(get(
                            b[x * t.n as usize + j],
                            t.b,
                            f.b_signed,
                        )),
                    );
                }
                s = s.wrapping_add(get(c[i * t.n as usize + j], t.c, f.c_signed));
                out.push((s as u64) & mask(t.result.bits()));
            }
        }
        out
    }

    #[test]
    fn integer_muladd_matches_the_reference_for_every_type_and_signedness() {
        let ints = [
            (8, false),
            (8, true),
            (16, false),
            (16, true),
            (32, false),
            (32, true),
            (64, false),
            (64, true),
        ];
        let mut r = rng(7);
        let mut cases = 0;
        for &(ab, _) in &ints {
            for &(cb, _) in &ints {
                if cb < ab {
                    continue;
                }
                for flags in 0..16u32 {
                    let f = MulAddFlags::from_bits(flags);
                    let ty = |bits: u32, s: bool| ScalarTy::Int {
                        bits: bits as u8,
                        signed: s,
                    };
                    let t = MulAddTypes {
                        m: 3,
                        n: 2,
                        k: 5,
                        a: ty(ab, f.a_signed),
                        b: ty(ab, f.b_signed),
                        c: ty(cb, f.c_signed),
                        result: ty(cb, f.result_signed),
                    };
                    let gen = |n: usize, bits: u32, r: &mut dyn FnMut() -> u64| {
                        (0..n).map(|_| r() & mask(bits)).collect::<Vec<u64>>()
                    };
                    let a = gen(15, ab, &mut r);
                    let b = gen(10, ab, &mut r);
                    let c = gen(6, cb, &mut r);
                    let got = muladd(&t, f, &a, &b, &c);
                    assert_eq!(got.value, int_reference(&t, f, &a, &b, &c), "{t:?} {f:?}");
                    assert!(got.overflow.is_empty());
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 10 * 16 * 4);
    }

    #[test]
    fn signedness_operands_extend_as_the_spec_says() {
        let t = MulAddTypes {
            m: 1,
            n: 1,
            k: 1,
            a: I8,
            b: I8,
            c: ScalarTy::I32,
            result: ScalarTy::I32,
        };
        // 0xff * 0x02: -2 when A is signed, 510 when not.
        let s = muladd(
            &t,
            MulAddFlags::from_bits(1 | 2 | 4 | 8),
            &[0xff],
            &[2],
            &[0],
        );
        assert_eq!(s.value, vec![(-2i32) as u32 as u64]);
        let u = muladd(&t, MulAddFlags::default(), &[0xff], &[2], &[0]);
        assert_eq!(u.value, vec![510]);
        // C zero-extended: 0xffff_ffff + 1 wraps to 0 either way.
        let c = muladd(&t, MulAddFlags::default(), &[0], &[0], &[0xffff_ffff]);
        assert_eq!(c.value, vec![0xffff_ffff]);
    }

    #[test]
    fn saturating_accumulation() {
        let t = MulAddTypes {
            m: 1,
            n: 1,
            k: 2,
            a: U8,
            b: U8,
            c: ScalarTy::I32,
            result: ScalarTy::I32,
        };
        let sat = MulAddFlags::from_bits(4 | 8 | 16);
        // 255*255*2 = 130050, + (i32::MAX - 100) saturates to i32::MAX: defined.
        let r = muladd(
            &t,
            sat,
            &[255, 255],
            &[255, 255],
            &[(i32::MAX - 100) as u64],
        );
        assert_eq!(r.value, vec![i32::MAX as u64]);
        assert!(r.overflow.is_empty());
        // Underflow: -5 + i32::MIN saturates to i32::MIN.
        let t2 = MulAddTypes { a: I8, b: I8, ..t };
        let r = muladd(
            &t2,
            MulAddFlags::from_bits(1 | 2 | 4 | 8 | 16),
            &[0xff, 0],
            &[5, 0],
            &[i32::MIN as u32 as u64],
        );
        assert_eq!(r.value, vec![i32::MIN as u32 as u64]);
        // Without the operand it wraps.
        let r = muladd(
            &t2,
            MulAddFlags::from_bits(1 | 2 | 4 | 8),
            &[0xff, 0],
            &[5, 0],
            &[i32::MIN as u32 as u64],
        );
        assert_eq!(r.value, vec![(i32::MAX - 4) as u64]);
        // A x B itself overflowing a 16-bit unsigned result under saturation is undefined.
        let t3 = MulAddTypes {
            c: ScalarTy::Int {
                bits: 16,
                signed: false,
            },
            result: ScalarTy::Int {
                bits: 16,
                signed: false,
            },
            ..t
        };
        let r = muladd(
            &t3,
            MulAddFlags::from_bits(16),
            &[255, 255],
            &[255, 255],
            &[0],
        );
        assert_eq!(r.overflow, vec![0]);
        // Undefined; computed as 130050 wrapped to 16 bits, then C added with saturation.
        assert_eq!(r.value, vec![130_050 - 65_536]);
        let r = muladd(
            &t3,
            MulAddFlags::from_bits(16),
            &[255, 1],
            &[255, 1],
            &[0xfff0],
        );
        assert!(r.overflow.is_empty());
        assert_eq!(r.value, vec![0xffff]);
    }

    #[test]
    fn float_muladd_matches_the_reference() {
        let mut r = rng(3);
        for (ta, tc) in [
            (F16, F16),
            (F16, ScalarTy::F32),
            (ScalarTy::BFloat16, ScalarTy::F32),
            (ScalarTy::F32, ScalarTy::F32),
            (ScalarTy::Float { bits: 64 }, ScalarTy::Float { bits: 64 }),
        ] {
            let t = MulAddTypes {
                m: 4,
                n: 3,
                k: 8,
                a: ta,
                b: ta,
                c: tc,
                result: tc,
            };
            // Small dyadic values: every product and sum is exact in every result type.
            let val = |r: &mut dyn FnMut() -> u64, ty| {
                let x = ((r() % 33) as f64 - 16.0) / 8.0;
                float_from_f64(ty, x)
            };
            let a: Vec<u64> = (0..32).map(|_| val(&mut r, ta)).collect();
            let b: Vec<u64> = (0..24).map(|_| val(&mut r, ta)).collect();
            let c: Vec<u64> = (0..12).map(|_| val(&mut r, tc)).collect();
            let got = muladd(&t, MulAddFlags::default(), &a, &b, &c);
            for i in 0..4 {
                for j in 0..3 {
                    let mut s = float_to_f64(tc, c[i * 3 + j]);
                    for x in 0..8 {
                        s += float_to_f64(ta, a[i * 8 + x]) * float_to_f64(ta, b[x * 3 + j]);
                    }
                    assert_eq!(float_to_f64(tc, got.value[i * 3 + j]), s, "{ta:?} {tc:?}");
                }
            }
        }
        // Rounded once: 1 + 2^-11 + 2^-11 in f16 is 1 + 2^-10 (not 1 twice rounded to even).
        let t = MulAddTypes {
            m: 1,
            n: 1,
            k: 2,
            a: F16,
            b: F16,
            c: F16,
            result: F16,
        };
        let h = |x: f64| float_from_f64(F16, x);
        let tiny = 2f64.powi(-11);
        let r = muladd(
            &t,
            MulAddFlags::default(),
            &[h(tiny), h(tiny)],
            &[h(1.0), h(1.0)],
            &[h(1.0)],
        );
        assert_eq!(float_to_f64(F16, r.value[0]), 1.0 + 2f64.powi(-10));
    }
}
