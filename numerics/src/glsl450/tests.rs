use super::real::st32;
use super::*;
use crate::float;
use crate::value::of_f32;

const F16: ScalarTy = ScalarTy::Float { bits: 16 };
const F32: ScalarTy = ScalarTy::F32;
const F64: ScalarTy = ScalarTy::Float { bits: 64 };
const I32: ScalarTy = ScalarTy::I32;
const U32: ScalarTy = ScalarTy::U32;

fn int(bits: u8, signed: bool) -> ScalarTy {
    ScalarTy::Int { bits, signed }
}

/// Raw call: operands as (type, components), outputs of the given types.
fn raw(inst: u32, out_tys: &[ScalarTy], args: &[(ScalarTy, &[u64])]) -> (Vec<u64>, bool) {
    let list: Vec<Arg<'_>> = args
        .iter()
        .map(|(ty, c)| Arg { ty: *ty, comps: c })
        .collect();
    let mut out = vec![0; out_tys.len()];
    let u = eval(inst, out_tys, &list, &mut out).expect("eval failed");
    (out, u)
}

/// f32 operands, `n` f32 results.
fn f32s(inst: u32, args: &[&[f32]], n: usize) -> (Vec<f32>, bool) {
    let bits: Vec<Vec<u64>> = args
        .iter()
        .map(|a| a.iter().map(|x| of_f32(*x)).collect())
        .collect();
    let list: Vec<(ScalarTy, &[u64])> = bits.iter().map(|b| (F32, b.as_slice())).collect();
    let (o, u) = raw(inst, &vec![F32; n], &list);
    (o.iter().map(|v| f32::from_bits(*v as u32)).collect(), u)
}

/// Scalar f32 operands, one f32 result.
fn f1(inst: u32, args: &[f32]) -> (f32, bool) {
    let a: Vec<[f32; 1]> = args.iter().map(|x| [*x]).collect();
    let refs: Vec<&[f32]> = a.iter().map(|x| x.as_slice()).collect();
    let (o, u) = f32s(inst, &refs, 1);
    (o[0], u)
}

fn bits_eq(a: f32, b: f32) {
    assert_eq!(a.to_bits(), b.to_bits(), "{a:?} vs {b:?}");
}

#[test]
fn names_match_spirv_headers() {
    for i in 1..=81 {
        let op = spirv::GlslStd450Op::from_u32(i).expect("op");
        assert_eq!(name(i), format!("{op:?}"));
    }
    assert_eq!(name(0), "unknown");
    assert_eq!(name(82), "unknown");
    assert_eq!(name(31), "Sqrt");
}

#[test]
fn rounding_family() {
    assert_eq!(f1(1, &[2.5]).0, 3.0);
    assert_eq!(f1(1, &[-2.5]).0, -3.0);
    assert_eq!(f1(2, &[2.5]).0, 2.0);
    assert_eq!(f1(2, &[3.5]).0, 4.0);
    assert_eq!(f1(3, &[-1.7]).0, -1.0);
    assert_eq!(f1(8, &[-1.5]).0, -2.0);
    bits_eq(f1(9, &[-0.5]).0, -0.0);
    assert_eq!(f1(10, &[-1.25]).0, 0.75);
    bits_eq(f1(4, &[-0.0]).0, 0.0);
    assert_eq!(f1(6, &[-3.0]).0, -1.0);
    bits_eq(f1(6, &[-0.0]).0, -0.0);
    assert!(f1(6, &[f32::NAN]).0.is_nan());
    let (v, u) = f32s(8, &[&[1.5, -0.25, 7.0]], 3);
    assert_eq!((v, u), (vec![1.0, -1.0, 7.0], false));
}

#[test]
fn trig_family_and_undefined() {
    assert_eq!(f1(13, &[0.0]), (0.0, false));
    assert_eq!(f1(14, &[0.0]), (1.0, false));
    bits_eq(f1(11, &[180.0]).0, std::f32::consts::PI);
    assert_eq!(f1(12, &[std::f32::consts::PI]).0, 180.0);
    bits_eq(f1(25, &[1.0, 1.0]).0, std::f32::consts::FRAC_PI_4);
    bits_eq(f1(25, &[1.0, -1.0]).0, libm::atan2f(1.0, -1.0));
    assert!(f1(25, &[0.0, 0.0]).1);
    assert!(f1(16, &[2.0]).1);
    assert!(!f1(16, &[1.0]).1);
    assert!(f1(17, &[-1.5]).1);
    assert!(f1(23, &[0.5]).1);
    assert!(!f1(23, &[1.0]).1);
    assert!(f1(24, &[1.0]).1);
    // libm's, in every build (this one is 1 ulp from the host C library's).
    bits_eq(f1(21, &[0.5]).0, libm::tanhf(0.5));
}

#[test]
fn exp_log_family() {
    assert_eq!(f1(29, &[3.0]), (8.0, false));
    assert_eq!(f1(30, &[8.0]), (3.0, false));
    assert_eq!(f1(26, &[2.0, 10.0]), (1024.0, false));
    assert!(f1(26, &[-2.0, 2.0]).1);
    assert!(f1(26, &[0.0, 0.0]).1);
    assert_eq!(f1(26, &[0.0, 1.0]), (0.0, false));
    let (r, u) = f1(31, &[-1.0]);
    assert!(r.is_nan() && u);
    let (r, u) = f1(31, &[-0.0]);
    bits_eq(r, -0.0);
    assert!(!u);
    assert_eq!(f1(32, &[4.0]), (0.5, false));
    assert!(f1(32, &[0.0]).1);
    assert!(f1(28, &[0.0]).1);
    assert!(f1(28, &[-0.0]).1);
    assert_eq!(f1(28, &[1.0]), (0.0, false));
    bits_eq(f1(27, &[1.0]).0, libm::expf(1.0));
}

#[test]
fn float_min_max_clamp() {
    assert!(f1(37, &[1.0, f32::NAN]).1);
    assert_eq!(f1(37, &[1.0, 2.0]), (1.0, false));
    assert_eq!(f1(40, &[1.0, 2.0]), (2.0, false));
    assert_eq!(f1(79, &[f32::NAN, 2.0]), (2.0, false));
    assert_eq!(f1(80, &[1.0, f32::NAN]), (1.0, false));
    assert!(f1(79, &[f32::NAN, f32::NAN]).0.is_nan());
    assert_eq!(f1(81, &[f32::NAN, 0.0, 1.0]), (0.0, false));
    assert_eq!(f1(43, &[5.0, 0.0, 1.0]), (1.0, false));
    assert!(f1(43, &[0.5, 1.0, 0.0]).1);
    assert!(f1(81, &[0.5, 1.0, 0.0]).1);
    // FMin(-0, +0) is x by the spec's `y < x ? y : x`.
    bits_eq(f1(37, &[-0.0, 0.0]).0, -0.0);
    bits_eq(f1(37, &[0.0, -0.0]).0, 0.0);
    // Vector x with a scalar bound.
    let (v, _) = f32s(37, &[&[1.0, 5.0, -3.0], &[2.0]], 3);
    assert_eq!(v, vec![1.0, 2.0, -3.0]);
}

#[test]
fn int_min_max_clamp_widths() {
    let i8t = int(8, true);
    let u8t = int(8, false);
    assert_eq!(
        raw(39, &[i8t], &[(i8t, &[0xFF]), (i8t, &[1])]).0,
        vec![0xFF]
    );
    assert_eq!(raw(38, &[u8t], &[(u8t, &[0xFF]), (u8t, &[1])]).0, vec![1]);
    let i64t = int(64, true);
    let m5 = (-5i64) as u64;
    assert_eq!(raw(42, &[i64t], &[(i64t, &[m5]), (i64t, &[3])]).0, vec![3]);
    assert_eq!(raw(41, &[i64t], &[(i64t, &[m5]), (i64t, &[3])]).0, vec![m5]);
    let u16t = int(16, false);
    let (o, _) = raw(41, &[u16t], &[(u16t, &[0x8000]), (u16t, &[0x7FFF])]);
    assert_eq!(o, vec![0x8000]);
    let (o, u) = raw(44, &[U32], &[(U32, &[5]), (U32, &[9]), (U32, &[3])]);
    assert_eq!((o, u), (vec![3], true));
    let (m10, m5) = ((-10i32) as u32 as u64, (-5i32) as u32 as u64);
    let (o, u) = raw(
        45,
        &[I32, I32],
        &[(I32, &[m10, 7]), (I32, &[m5]), (I32, &[5])],
    );
    assert_eq!((o, u), (vec![0xFFFF_FFFB, 5], false));
    assert_eq!(raw(5, &[i8t], &[(i8t, &[0x80])]).0, vec![0x80]);
    assert_eq!(
        raw(5, &[I32], &[(I32, &[(-7i32) as u32 as u64])]).0,
        vec![7]
    );
    let i16t = int(16, true);
    let (o, _) = raw(7, &[i16t; 3], &[(i16t, &[0xFED4, 0, 300])]);
    assert_eq!(o, vec![0xFFFF, 0, 1]);
    // IMix on integers: a = 0 picks x, a = 1 picks y.
    let (o, _) = raw(
        47,
        &[U32, U32],
        &[(U32, &[4, 4]), (U32, &[9, 9]), (U32, &[0, 1])],
    );
    assert_eq!(o, vec![4, 9]);
}

#[test]
fn mix_step_smoothstep() {
    let (v, _) = f32s(46, &[&[0.0, 10.0], &[10.0, 20.0], &[0.25]], 2);
    assert_eq!(v, vec![2.5, 12.5]);
    // Computed in f32: x*(1-a) + y*a rounds differently from an f64 evaluation here.
    let (x, y, a) = (0.2f32, 0.6f32, 0.6f32);
    bits_eq(f1(46, &[x, y, a]).0, x * (1.0 - a) + y * a);
    let (v, _) = f32s(48, &[&[0.5], &[0.4, 0.5]], 2);
    assert_eq!(v, vec![0.0, 1.0]);
    assert_eq!(f1(49, &[0.0, 1.0, 0.5]), (0.5, false));
    assert_eq!(f1(49, &[0.0, 1.0, 0.25]), (0.15625, false));
    assert_eq!(f1(49, &[0.0, 1.0, 2.0]), (1.0, false));
    assert!(f1(49, &[1.0, 1.0, 0.5]).1);
    assert!(f1(49, &[2.0, 1.0, 0.5]).1);
}

#[test]
fn fma_is_fused_in_own_precision() {
    let a = 1.0 + 2f32.powi(-12);
    let c = -(1.0 + 2f32.powi(-11));
    assert_eq!(a * a + c, 0.0);
    assert_eq!(f1(50, &[a, a, c]).0, 2f32.powi(-24));
    let a = 1.0 + 2f64.powi(-27);
    let c = -(1.0 + 2f64.powi(-26));
    let (ab, cb) = (a.to_bits(), c.to_bits());
    let (o, _) = raw(50, &[F64], &[(F64, &[ab]), (F64, &[ab]), (F64, &[cb])]);
    assert_eq!(o, vec![2f64.powi(-54).to_bits()]);
}

#[test]
fn frexp_modf_ldexp() {
    let x = [8.0f32, -3.0, 0.0, f32::from_bits(1)].map(of_f32);
    let (o, u) = raw(52, &[F32, F32, F32, F32, I32, I32, I32, I32], &[(F32, &x)]);
    assert_eq!(o[..4], [0.5f32, -0.75, 0.0, 0.5].map(of_f32));
    assert_eq!(o[4..], [4, 2, 0, (-148i32) as u32 as u64]);
    assert!(!u);
    // Pointer form: same layout, only one operand.
    let (o, u) = raw(51, &[F32, I32], &[(F32, &[of_f32(f32::INFINITY)])]);
    assert_eq!((o, u), (vec![of_f32(f32::INFINITY), 0], true));
    let (o, _) = raw(51, &[F64, I32], &[(F64, &[f64::MAX.to_bits()])]);
    assert_eq!(o, vec![(f64::MAX / 2f64.powi(1023) / 2.0).to_bits(), 1024]);
    let x = [-2.5f32, 3.75, -2.0].map(of_f32);
    let (o, _) = raw(36, &[F32; 6], &[(F32, &x)]);
    assert_eq!(o, [-0.5f32, 0.75, -0.0, -2.0, 3.0, -2.0].map(of_f32));
    let (o, _) = raw(35, &[F32; 2], &[(F32, &[of_f32(f32::NEG_INFINITY)])]);
    assert_eq!(o, [-0.0, f32::NEG_INFINITY].map(of_f32));
    let ld = |x: f32, e: i64, ety: ScalarTy| {
        let ev = trunc(e as u64, ety.bits());
        raw(53, &[F32], &[(F32, &[of_f32(x)]), (ety, &[ev])])
    };
    assert_eq!(ld(0.75, 3, I32), (vec![of_f32(6.0)], false));
    assert_eq!(ld(1.0, -149, I32), (vec![1], false));
    assert_eq!(ld(1.0, -150, int(64, true)), (vec![0], false));
    assert_eq!(ld(1.0, 129, I32), (vec![of_f32(f32::INFINITY)], true));
    assert_eq!(ld(0.5, 128, I32), (vec![of_f32(2f32.powi(127))], false));
    assert!(ld(1.0, 128, I32).1); // overflows to Inf
    let e = |v: i32| v as u32 as u64;
    let (o, _) = raw(53, &[F64], &[(F64, &[1f64.to_bits()]), (I32, &[e(-1074)])]);
    assert_eq!(o, vec![1]);
    let (o, _) = raw(
        53,
        &[F64],
        &[(F64, &[f64::MAX.to_bits()]), (I32, &[e(-2097)])],
    );
    let want = f64::MAX * 2f64.powi(-1000) * 2f64.powi(-1000) * 2f64.powi(-97);
    assert_eq!(o, vec![want.to_bits()]);
}

#[test]
fn packing() {
    let p = |inst: u32, xs: &[f32]| {
        let b: Vec<u64> = xs.iter().map(|x| of_f32(*x)).collect();
        raw(inst, &[U32], &[(F32, &b)]).0[0]
    };
    assert_eq!(p(58, &[1.0, -2.0]), 0xC000_3C00);
    assert_eq!(p(55, &[0.0, 0.5, 1.0, 2.0]), 0xFFFF_8000);
    assert_eq!(p(54, &[-1.0, 1.0, 0.5, -2.0]), 0x8140_7F81);
    assert_eq!(p(56, &[1.0, -0.5]), 0xC000_7FFF);
    assert_eq!(p(56, &[3.0, -3.0]), 0x8001_7FFF);
    assert_eq!(p(57, &[0.5, 3.0]), 0xFFFF_8000);
    let (o, _) = raw(59, &[F64], &[(U32, &[0, 0x3FF0_0000])]);
    assert_eq!(o, vec![1f64.to_bits()]);
    let up = |inst: u32, v: u64, n: usize| raw(inst, &vec![F32; n], &[(U32, &[v])]).0;
    assert_eq!(up(62, 0xC000_3C00, 2), [1.0f32, -2.0].map(of_f32));
    let want = [0.0f32, 0.0, 128.0 / 255.0, 1.0].map(of_f32);
    assert_eq!(up(64, 0xFF80_0000, 4), want);
    assert_eq!(
        up(63, 0x8081_7F00, 4),
        [0.0f32, 1.0, -1.0, -1.0].map(of_f32)
    );
    assert_eq!(up(60, 0x8000_7FFF, 2), [1.0f32, -1.0].map(of_f32));
    assert_eq!(up(61, 0xFFFF_0000, 2), [0.0f32, 1.0].map(of_f32));
    let (o, _) = raw(65, &[U32, U32], &[(F64, &[1f64.to_bits()])]);
    assert_eq!(o, vec![0, 0x3FF0_0000]);
    // Round trip of an 8-bit unorm pattern.
    let v = up(64, 0x1234_5678, 4);
    let f: Vec<f32> = v.iter().map(|b| f32::from_bits(*b as u32)).collect();
    assert_eq!(p(55, &f), 0x1234_5678);
}

#[test]
fn geometric_family() {
    assert_eq!(f32s(66, &[&[3.0, 4.0]], 1).0, vec![5.0]);
    // Summed in f32 (an f64 sum rounded once gives 1.4352701 here).
    let want = (0.6f32 * 0.6 + 0.7 * 0.7 + 1.1 * 1.1).sqrt();
    bits_eq(f32s(66, &[&[0.6, 0.7, 1.1]], 1).0[0], want);
    assert_eq!(f32s(67, &[&[1.0, 1.0], &[4.0, 5.0]], 1).0, vec![5.0]);
    let (v, _) = f32s(68, &[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]], 3);
    assert_eq!(v, vec![0.0, 0.0, 1.0]);
    let (v, _) = f32s(68, &[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]], 3);
    assert_eq!(v, vec![-3.0, 6.0, -3.0]);
    assert_eq!(f32s(69, &[&[3.0, 4.0]], 2), (vec![0.6, 0.8], false));
    assert!(f32s(69, &[&[0.0, 0.0]], 2).1);
    assert_eq!(f32s(71, &[&[1.0, -1.0], &[0.0, 1.0]], 2).0, vec![1.0, 1.0]);
    // dot(N, -0) = -0, so Reflect(-0, N) = -0 - (-0) N = +0.
    let (v, _) = f32s(71, &[&[-0.0, -0.0], &[0.5, 1.0]], 2);
    assert_eq!(
        v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        vec![0, 0]
    );
    let (v, _) = f32s(72, &[&[0.0, -1.0], &[0.0, 1.0], &[1.0]], 2);
    assert_eq!(v, vec![0.0, -1.0]);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    assert_eq!(
        f32s(72, &[&[s, -s], &[0.0, 1.0], &[2.0]], 2).0,
        vec![0.0, 0.0]
    );
    let (v, _) = f32s(72, &[&[0.6, -0.8], &[0.0, 1.0], &[0.5]], 2);
    let d = -0.8f32;
    let k = 1.0 - 0.25 * (1.0 - d * d);
    bits_eq(v[0], 0.5 * 0.6);
    bits_eq(v[1], 0.5 * d - (0.5 * d + k.sqrt()));
    // FaceForward(N, I, Nref)
    let (v, _) = f32s(70, &[&[0.0, 1.0], &[0.0, -1.0], &[0.0, 1.0]], 2);
    assert_eq!(v, vec![0.0, 1.0]);
    let (v, _) = f32s(70, &[&[0.0, 1.0], &[0.0, 1.0], &[0.0, 1.0]], 2);
    assert_eq!(v, vec![-0.0, -1.0]);
}

#[test]
fn determinant_and_inverse() {
    // Rows [[1,2,3],[0,1,4],[5,6,0]], given column-major; det 1, integer inverse.
    let m3 = [1.0f32, 0.0, 5.0, 2.0, 1.0, 6.0, 3.0, 4.0, 0.0];
    assert_eq!(f32s(33, &[&m3], 1), (vec![1.0], false));
    let (inv, u) = f32s(34, &[&m3], 9);
    assert_eq!(
        inv,
        vec![-24.0, 20.0, -5.0, 18.0, -15.0, 4.0, 5.0, -4.0, 1.0]
    );
    assert!(!u);
    // Rows [[2,0,1,3],[1,1,0,2],[0,3,1,1],[1,0,2,1]] in f64; det -1.
    let rows = [[2, 0, 1, 3], [1, 1, 0, 2], [0, 3, 1, 1], [1, 0, 2, 1]];
    let col_major = |m: [[i32; 4]; 4]| -> Vec<u64> {
        (0..16)
            .map(|i| f64::from(m[i % 4][i / 4]).to_bits())
            .collect()
    };
    let m4 = col_major(rows);
    assert_eq!(raw(33, &[F64], &[(F64, &m4)]).0, vec![(-1.0f64).to_bits()]);
    let (inv, u) = raw(34, &[F64; 16], &[(F64, &m4)]);
    let want = [
        [-11, 15, -5, 8],
        [-3, 4, -1, 2],
        [2, -3, 1, -1],
        [7, -9, 3, -5],
    ];
    assert_eq!((inv, u), (col_major(want), false));
    assert_eq!(f32s(33, &[&[1.0, 2.0, 3.0, 4.0]], 1).0, vec![-2.0]);
    assert!(f32s(34, &[&[1.0, 2.0, 2.0, 4.0]], 4).1);
}

#[test]
fn find_bits() {
    let run = |inst: u32, ty: ScalarTy, v: u64| raw(inst, &[ty], &[(ty, &[v])]);
    assert_eq!(run(73, I32, 0), (vec![0xFFFF_FFFF], false));
    assert_eq!(run(73, I32, 8).0, vec![3]);
    assert_eq!(run(73, U32, 0x8000_0000).0, vec![31]);
    assert_eq!(run(74, I32, 0xFFFF_FFFF).0, vec![0xFFFF_FFFF]);
    assert_eq!(run(74, I32, 0).0, vec![0xFFFF_FFFF]);
    assert_eq!(run(74, I32, 1).0, vec![0]);
    assert_eq!(run(74, I32, 0xFFFF_FFFE).0, vec![0]);
    assert_eq!(run(74, I32, 0x7FFF_FFFF).0, vec![30]);
    assert_eq!(run(74, I32, 0x8000_0000).0, vec![30]);
    assert_eq!(run(75, U32, 0xFFFF_FFFF).0, vec![31]);
    assert_eq!(run(75, U32, 0).0, vec![0xFFFF_FFFF]);
    assert_eq!(run(74, int(8, true), 0x80).0, vec![6]);
    assert_eq!(run(75, int(64, false), 1 << 63).0, vec![63]);
    assert_eq!(run(73, int(16, false), 0).0, vec![0xFFFF]);
    // Result width follows the output type.
    assert_eq!(raw(75, &[I32], &[(U32, &[0])]).0, vec![0xFFFF_FFFF]);
}

#[test]
fn f16_and_f64_paths() {
    let h = |x: f32| crate::value::from_f64(f64::from(x), 16);
    assert_eq!(raw(31, &[F16], &[(F16, &[h(2.0)])]).0, vec![0x3DA8]);
    let (o, _) = raw(26, &[F16], &[(F16, &[h(2.0)]), (F16, &[h(3.0)])]);
    assert_eq!(o, vec![h(8.0)]);
    let args: [(ScalarTy, &[u64]); 3] = [
        (F16, &[h(0.0), h(4.0)]),
        (F16, &[h(8.0), h(8.0)]),
        (F16, &[h(0.5)]),
    ];
    assert_eq!(raw(46, &[F16; 2], &args).0, vec![h(4.0), h(6.0)]);
    assert_eq!(st32(1.0 + 2f32.powi(-11), 16), 0x3C00); // tie rounds to even
    let e = |v: i32| v as u32 as u64;
    let (o, _) = raw(53, &[F16], &[(F16, &[h(1.0)]), (I32, &[e(-24)])]);
    assert_eq!(o, vec![1]);
    let (o, u) = raw(53, &[F16], &[(F16, &[h(1.0)]), (I32, &[15])]);
    assert_eq!((o, u), (vec![0x7800], false));
    assert!(raw(53, &[F16], &[(F16, &[h(1.0)]), (I32, &[17])]).1);
    let (o, _) = raw(52, &[F16, I32], &[(F16, &[h(6.0)])]);
    assert_eq!(o, vec![h(0.75), 3]);
    let d = |x: f64| x.to_bits();
    assert_eq!(raw(31, &[F64], &[(F64, &[d(2.0)])]).0, vec![d(2f64.sqrt())]);
    assert_eq!(
        raw(13, &[F64], &[(F64, &[d(1.0)])]).0,
        vec![d(libm::sin(1.0))]
    );
    assert!(raw(30, &[F64], &[(F64, &[d(-1.0)])]).1);
    assert_eq!(raw(1, &[F64], &[(F64, &[d(-0.5)])]).0, vec![d(-1.0)]);
}

#[test]
fn errors() {
    use Glsl450Error::{BadOperands, Unsupported};
    let mut out = [0u64; 1];
    let a = [Arg {
        ty: F32,
        comps: &[0],
    }];
    let e = eval(76, &[F32], &a, &mut out);
    assert_eq!(
        e,
        Err(Unsupported {
            inst: 76,
            name: "InterpolateAtCentroid"
        })
    );
    assert!(matches!(
        eval(0, &[F32], &a, &mut out),
        Err(Unsupported { .. })
    ));
    assert!(matches!(
        eval(82, &[F32], &a, &mut out),
        Err(Unsupported { .. })
    ));
    assert!(matches!(
        eval(26, &[F32], &a, &mut out),
        Err(BadOperands { .. })
    ));
    assert!(matches!(
        eval(31, &[F32, F32], &a, &mut out),
        Err(BadOperands { .. })
    ));
    let v3 = [0u64; 3];
    let b = [
        Arg {
            ty: F32,
            comps: &v3,
        },
        Arg {
            ty: F32,
            comps: &[0, 0],
        },
    ];
    let mut out3 = [0u64; 3];
    assert!(matches!(
        eval(37, &[F32; 3], &b, &mut out3),
        Err(BadOperands { .. })
    ));
    assert!(matches!(
        eval(68, &[F32; 3], &b, &mut out3),
        Err(BadOperands { .. })
    ));
    let m = [Arg {
        ty: F32,
        comps: &v3,
    }];
    assert!(matches!(
        eval(33, &[F32], &m, &mut out),
        Err(BadOperands { .. })
    ));
}

/// f16 bits of an exactly representable value.
fn h16(x: f64) -> u64 {
    crate::value::from_f64(x, 16)
}

#[test]
fn f16_functions_round_every_step_to_f16() {
    // Column-major; exact determinant -5280 (what an f32 evaluation gives). In f16 steps the
    // minors' products round (28.5 * 26.5 = 755.25 to 755, 39.5 * 26.5 = 1046.75 to 1047),
    // so do the cofactor terms (-6 * -1119 = 6714 to 6712, ...), and the sum ends at -5296.
    let m = [-6.0, -28.0, -29.5, 0.5, 15.5, 26.5, 39.5, 28.5, -23.5];
    let bits: Vec<u64> = m.iter().map(|x| h16(*x)).collect();
    assert_eq!(raw(33, &[F16], &[(F16, &bits)]).0, vec![h16(-5296.0)]);
    let m32: Vec<f32> = m.iter().map(|x| *x as f32).collect();
    assert_eq!(f32s(33, &[&m32], 1).0, vec![-5280.0]);
    // Length: 300^2 + 400^2 = 250000 overflows f16 (max 65504) before the square root.
    let v = [h16(300.0), h16(400.0)];
    assert_eq!(raw(66, &[F16], &[(F16, &v)]).0, vec![0x7C00]);
    // FMix: x * (1 - a) + y * a with each step in f16: 1 - 0.1 = 0.8999 (f16), then products.
    let a = h16(0.0999755859375);
    let (o, _) = raw(
        46,
        &[F16],
        &[(F16, &[h16(1000.0)]), (F16, &[h16(3.0)]), (F16, &[a])],
    );
    let one_minus = float::to_f64(Format::F16, h16(1.0 - 0.0999755859375));
    let x = float::to_f64(Format::F16, h16(1000.0 * one_minus));
    let y = float::to_f64(Format::F16, h16(3.0 * 0.0999755859375));
    assert_eq!(o, vec![h16(x + y)]);
    // Elementary functions are rounded once from f64.
    assert_eq!(
        raw(13, &[F16], &[(F16, &[h16(1.0)])]).0,
        vec![h16(libm::sin(1.0))]
    );
    // Fma is fused: 1.0009765625^2 - 1.001953125 = 2^-20, not 0.
    let e = h16(1.0 + 1.0 / 1024.0);
    let (o, _) = raw(
        50,
        &[F16],
        &[
            (F16, &[e]),
            (F16, &[e]),
            (F16, &[h16(-(1.0 + 2.0 / 1024.0))]),
        ],
    );
    assert_eq!(o, vec![h16(2f64.powi(-20))]);
}

#[test]
fn float_controls_flush_operands_and_results() {
    let mut fc = FloatControls::default();
    fc.modes[1].ftz = true;
    let den = [1u64];
    let mut out = [0u64];
    // FAbs of a denormal is zero under DenormFlushToZero, the denormal itself otherwise.
    eval_in(
        4,
        &[F32],
        &[Arg {
            ty: F32,
            comps: &den,
        }],
        &mut out,
        &fc,
    )
    .unwrap();
    assert_eq!(out, [0]);
    eval(
        4,
        &[F32],
        &[Arg {
            ty: F32,
            comps: &den,
        }],
        &mut out,
    )
    .unwrap();
    assert_eq!(out, [1]);
    // A denormal result: Ldexp(1, -130).
    let (one, e) = ([of_f32(1.0)], [(-130i32) as u32 as u64]);
    let args = [
        Arg {
            ty: F32,
            comps: &one,
        },
        Arg { ty: I32, comps: &e },
    ];
    eval_in(53, &[F32], &args, &mut out, &fc).unwrap();
    assert_eq!(out, [0]);
    // Round toward zero: Fma exactly fused, then truncated; Ldexp of a subnormal result.
    fc.modes[1] = float::Mode {
        round: float::Round::Rtz,
        ftz: false,
    };
    let t = 1.0 + 2f32.powi(-12);
    let args3 = [[of_f32(t)], [of_f32(t)], [of_f32(-1.0)]];
    let list: Vec<Arg<'_>> = args3.iter().map(|c| Arg { ty: F32, comps: c }).collect();
    eval_in(50, &[F32], &list, &mut out, &fc).unwrap();
    // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: exact in f32.
    assert_eq!(out, [of_f32(2f32.powi(-11) + 2f32.powi(-24))]);
    let third = [of_f32(1.0 + 2f32.powi(-23) * 3.0)];
    let e = [(-150i32) as u32 as u64];
    let args = [
        Arg {
            ty: F32,
            comps: &third,
        },
        Arg { ty: I32, comps: &e },
    ];
    eval_in(53, &[F32], &args, &mut out, &fc).unwrap();
    assert_eq!(out, [0], "2^-150 * (1 + 3 * 2^-23) truncates to zero");
    eval(53, &[F32], &args, &mut out).unwrap();
    assert_eq!(
        out,
        [1],
        "and rounds up to the smallest subnormal to nearest"
    );
}

#[test]
fn rounding_fma_checks_its_operands() {
    let mut fc = FloatControls::default();
    fc.modes[1].round = float::Round::Rtz;
    let one = [of_f32(1.0)];
    let mut out = [0u64];
    let two = [
        Arg {
            ty: F32,
            comps: &one,
        },
        Arg {
            ty: F32,
            comps: &one,
        },
    ];
    assert!(eval_in(50, &[F32], &two, &mut out, &fc).is_err());
}

#[test]
fn names_are_the_grammars() {
    for n in 1..=81u32 {
        let op = spirv::GlslStd450Op::from_u32(n).expect("in the grammar");
        assert_eq!(super::name(n), format!("{op:?}"), "instruction {n}");
    }
    assert_eq!(super::name(82), "unknown");
}

/// The f32 fast path computes what the general path does, bit for bit, on random and special
/// operands (NaNs, infinities, zeros, denormals).
#[test]
fn the_f32_fast_path_matches_the_general_path() {
    let specials = [
        0u32,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_0001,
        0xffc0_1234,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x4b80_0000,
        0xcb00_0001,
        0x3eff_ffff,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x3f00_0000,
        0xbf00_0000,
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if state % 4 == 0 {
            u64::from(specials[(state >> 8) as usize % specials.len()])
        } else {
            state & 0xffff_ffff
        }
    };
    let fc = crate::float::FloatControls::default();
    for inst in [op::Fma, op::Fract, op::Floor, op::Ceil, op::Trunc, op::FAbs] {
        assert!(has_fast_f32(inst));
        for _ in 0..20_000 {
            let (a, b, c) = (next(), next(), next());
            let all = [a, b, c];
            let n = arity(inst);
            let args: Vec<Arg<'_>> = all[..n]
                .iter()
                .map(|v| Arg {
                    ty: ScalarTy::F32,
                    comps: std::slice::from_ref(v),
                })
                .collect();
            let mut out = [0u64];
            eval_in(inst, &[ScalarTy::F32], &args, &mut out, &fc).unwrap();
            assert_eq!(
                fast_f32(inst, a, b, c),
                Some(out[0]),
                "{} of {a:#x} {b:#x} {c:#x}",
                name(inst)
            );
        }
    }
    assert!(!has_fast_f32(op::Sin));
    assert_eq!(fast_f32(op::Sin, 0, 0, 0), None);
}
