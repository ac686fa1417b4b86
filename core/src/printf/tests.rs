//! Expected strings written by hand from C's printf rules (the layers print with the host's C
//! `printf`, floats as doubles) and the layers' documented examples.
// The layers' documentation prints 3.1415: an approximation of pi on purpose.
#![allow(clippy::approx_constant)]

use super::*;

const I32: ArgTy = ArgTy {
    scalar: ScalarTy::I32,
    vector: 0,
};
const U32: ArgTy = ArgTy {
    scalar: ScalarTy::U32,
    vector: 0,
};
const F32: ArgTy = ArgTy {
    scalar: ScalarTy::F32,
    vector: 0,
};
const F64: ArgTy = ArgTy {
    scalar: ScalarTy::Float { bits: 64 },
    vector: 0,
};
const U64: ArgTy = ArgTy {
    scalar: ScalarTy::Int {
        bits: 64,
        signed: false,
    },
    vector: 0,
};
const I64: ArgTy = ArgTy {
    scalar: ScalarTy::Int {
        bits: 64,
        signed: true,
    },
    vector: 0,
};

fn vec_of(scalar: ScalarTy, n: u32) -> ArgTy {
    ArgTy { scalar, vector: n }
}

/// Formats `fmt` with arguments of types `tys` and raw bits `vals` (components in order).
fn fmt(f: &str, tys: &[ArgTy], vals: &[u64]) -> String {
    let format = Format::parse(f).unwrap_or_else(|e| panic!("{f}: {e:?}"));
    format.check(tys).unwrap_or_else(|e| panic!("{f}: {e:?}"));
    let mut starts = Vec::new();
    let mut k = 0;
    for t in tys {
        starts.push(k);
        k += t.vector.max(1) as usize;
    }
    format.render(tys, |a, c| vals[starts[a] + c as usize])
}

fn i(v: i32) -> u64 {
    u64::from(v as u32)
}

fn f(v: f32) -> u64 {
    u64::from(v.to_bits())
}

fn d(v: f64) -> u64 {
    v.to_bits()
}

#[test]
fn integers() {
    assert_eq!(fmt("%d", &[I32], &[i(-42)]), "-42");
    assert_eq!(fmt("%i", &[I32], &[i(42)]), "42");
    assert_eq!(fmt("%u", &[U32], &[u64::from(u32::MAX)]), "4294967295");
    // A signed value through %u: its 32-bit pattern.
    assert_eq!(fmt("%u", &[I32], &[i(-1)]), "4294967295");
    assert_eq!(fmt("%o", &[U32], &[8]), "10");
    assert_eq!(fmt("%x", &[U32], &[0xbeef]), "beef");
    assert_eq!(fmt("%X", &[U32], &[0xbeef]), "BEEF");
    assert_eq!(fmt("%x", &[I32], &[i(-1)]), "ffffffff");
    assert_eq!(fmt("%d", &[I32], &[i(i32::MIN)]), "-2147483648");
}

#[test]
fn width_precision_and_zero() {
    // The layers' documented example.
    assert_eq!(
        fmt(
            "Padded [%8u] and zero padded hex [%08x]",
            &[U32, U32],
            &[42, 42]
        ),
        "Padded [      42] and zero padded hex [0000002a]"
    );
    assert_eq!(fmt("[%05d]", &[I32], &[i(-42)]), "[-0042]");
    assert_eq!(fmt("[%.4d]", &[I32], &[i(7)]), "[0007]");
    // A precision turns the 0 flag off for integers.
    assert_eq!(fmt("[%08.3d]", &[I32], &[i(-7)]), "[    -007]");
    assert_eq!(fmt("[%.0d]", &[I32], &[0]), "[]");
    assert_eq!(fmt("[%3.0u]", &[U32], &[0]), "[   ]");
    assert_eq!(fmt("[%2d]", &[I32], &[i(12345)]), "[12345]");
    assert_eq!(fmt("[%10.3f]", &[F32], &[f(3.14159)]), "[     3.142]");
    assert_eq!(fmt("[%010.3f]", &[F32], &[f(-3.14159)]), "[-00003.142]");
    assert_eq!(fmt("[%1.2f]", &[F32], &[f(3.1415)]), "[3.14]");
}

#[test]
fn floats_as_doubles() {
    // A float is converted to double before printing: its exact value shows.
    assert_eq!(fmt("%f", &[F32], &[f(3.1415)]), "3.141500");
    assert_eq!(fmt("%.10f", &[F32], &[f(0.1)]), "0.1000000015");
    assert_eq!(fmt("%F", &[F32], &[f(1.5)]), "1.500000");
    assert_eq!(fmt("%f", &[F32], &[f(-0.0)]), "-0.000000");
    assert_eq!(fmt("%e", &[F32], &[f(1234.5)]), "1.234500e+03");
    assert_eq!(fmt("%E", &[F32], &[f(0.00012)]), "1.200000E-04");
    assert_eq!(fmt("%.2e", &[F64], &[d(1e300)]), "1.00e+300");
    assert_eq!(fmt("%e", &[F32], &[f(0.0)]), "0.000000e+00");
    // Ties round to even on the exact binary value.
    assert_eq!(
        fmt(
            "%.2f %.0f %.0f",
            &[F32, F32, F32],
            &[f(0.125), f(0.5), f(2.5)]
        ),
        "0.12 0 2"
    );
    assert_eq!(fmt("%.0f", &[F32], &[f(3.5)]), "4");
}

#[test]
fn general_form() {
    assert_eq!(fmt("%g", &[F32], &[f(100000.0)]), "100000");
    assert_eq!(fmt("%g", &[F32], &[f(1000000.0)]), "1e+06");
    assert_eq!(fmt("%g", &[F64], &[d(1e-5)]), "1e-05");
    assert_eq!(fmt("%g", &[F64], &[d(0.0001)]), "0.0001");
    assert_eq!(fmt("%g", &[F32], &[f(3.1415)]), "3.1415");
    assert_eq!(fmt("%G", &[F64], &[d(1e20)]), "1E+20");
    assert_eq!(fmt("%.3g", &[F64], &[d(1234.5)]), "1.23e+03");
    assert_eq!(fmt("%.0g", &[F64], &[d(0.5)]), "0.5");
    assert_eq!(fmt("%g", &[F32], &[f(0.0)]), "0");
    // Rounding can carry into a new digit: 9.9999995 to 6 digits is 10.
    assert_eq!(fmt("%g", &[F64], &[d(9.9999995)]), "10");
    assert_eq!(fmt("%g", &[F64], &[d(999999.5)]), "1e+06");
}

#[test]
fn hex_floats() {
    assert_eq!(fmt("%a", &[F32], &[f(3.0)]), "0x1.8p+1");
    assert_eq!(fmt("%A", &[F32], &[f(3.0)]), "0X1.8P+1");
    assert_eq!(fmt("%a", &[F32], &[f(1.0)]), "0x1p+0");
    assert_eq!(fmt("%a", &[F32], &[f(0.1)]), "0x1.99999ap-4");
    assert_eq!(fmt("%a", &[F64], &[d(0.1)]), "0x1.999999999999ap-4");
    assert_eq!(fmt("%a", &[F32], &[f(-0.0)]), "-0x0p+0");
    assert_eq!(fmt("%a", &[F64], &[d(5e-324)]), "0x0.0000000000001p-1022");
    assert_eq!(fmt("%.3a", &[F32], &[f(1.0)]), "0x1.000p+0");
    // glibc rounds 0x1.f8 to one digit as 0x2.0.
    assert_eq!(fmt("%.1a", &[F64], &[d(1.96875)]), "0x2.0p+0");
    assert_eq!(fmt("%.1a", &[F64], &[d(1.09375)]), "0x1.2p+0");
    assert_eq!(fmt("%010a", &[F32], &[f(1.0)]), "0x00001p+0");
}

#[test]
fn infinities_and_nans() {
    assert_eq!(fmt("%f", &[F32], &[f(f32::INFINITY)]), "inf");
    assert_eq!(fmt("%F", &[F32], &[f(f32::NEG_INFINITY)]), "-INF");
    assert_eq!(fmt("%e", &[F32], &[f(f32::NAN)]), "nan");
    assert_eq!(fmt("%G", &[F32], &[0xffc0_0000]), "-NAN");
    // The 0 flag pads them with spaces.
    assert_eq!(fmt("[%06f]", &[F32], &[f(f32::INFINITY)]), "[   inf]");
}

#[test]
fn vectors() {
    let v4 = vec_of(ScalarTy::F32, 4);
    // The layers' documented example.
    assert_eq!(
        fmt(
            "Here's a vector of floats %1.2v4f",
            &[v4],
            &[f(1.2), f(2.2), f(3.2), f(4.2)]
        ),
        "Here's a vector of floats 1.20, 2.20, 3.20, 4.20"
    );
    let v3 = vec_of(ScalarTy::I32, 3);
    assert_eq!(fmt("(%v3d)", &[v3], &[i(1), i(-2), i(3)]), "(1, -2, 3)");
    let v2 = vec_of(ScalarTy::U32, 2);
    assert_eq!(fmt("%04v2x", &[v2], &[10, 255]), "000a, 00ff");
    let b2 = vec_of(ScalarTy::Bool, 2);
    assert_eq!(fmt("%v2u", &[b2], &[1, 0]), "1, 0");
    let l2 = vec_of(U64.scalar, 2);
    assert_eq!(fmt("%v2lx", &[l2], &[u64::MAX, 16]), "ffffffffffffffff, 10");
}

#[test]
fn sixty_four_bit() {
    // The layers' documented example.
    assert_eq!(
        fmt(
            "Unsigned long as decimal %lu and as hex 0x%lx",
            &[U64, U64],
            &[0x2000_0000_0000_0001, 0x2000_0000_0000_0001]
        ),
        "Unsigned long as decimal 2305843009213693953 and as hex 0x2000000000000001"
    );
    assert_eq!(fmt("%ul", &[U64], &[0xabc_0000_0000]), "abc00000000");
    assert_eq!(fmt("%ld", &[I64], &[(-5i64) as u64]), "-5");
    assert_eq!(
        fmt("%ld", &[I64], &[i64::MIN as u64]),
        "-9223372036854775808"
    );
    assert_eq!(fmt("%lX", &[U64], &[u64::MAX]), "FFFFFFFFFFFFFFFF");
    assert_eq!(fmt("%lo", &[U64], &[1 << 63]), "1000000000000000000000");
    assert_eq!(fmt("%020lu", &[U64], &[12345]), "00000000000000012345");
    assert_eq!(
        fmt("%f %lf", &[F64, F64], &[d(0.1), d(2.0)]),
        "0.100000 2.000000"
    );
}

#[test]
fn narrow_types() {
    let i8t = ArgTy {
        scalar: ScalarTy::Int {
            bits: 8,
            signed: true,
        },
        vector: 0,
    };
    let u16t = ArgTy {
        scalar: ScalarTy::Int {
            bits: 16,
            signed: false,
        },
        vector: 0,
    };
    let f16t = ArgTy {
        scalar: ScalarTy::Float { bits: 16 },
        vector: 0,
    };
    let bool_t = ArgTy {
        scalar: ScalarTy::Bool,
        vector: 0,
    };
    // Sign-extended to 32 bits, as the layers widen them.
    assert_eq!(fmt("%d %x", &[i8t, i8t], &[0xff, 0xff]), "-1 ffffffff");
    assert_eq!(fmt("%u", &[u16t], &[0xffff]), "65535");
    // f16 1.5 is 0x3e00.
    assert_eq!(fmt("%f", &[f16t], &[0x3e00]), "1.500000");
    assert_eq!(fmt("%d %u", &[bool_t, bool_t], &[1, 0]), "1 0");
}

#[test]
fn percent_and_text() {
    assert_eq!(fmt("100%% done", &[], &[]), "100% done");
    assert_eq!(fmt("%d%%", &[I32], &[i(5)]), "5%");
    assert_eq!(fmt("trailing %", &[], &[]), "trailing %");
    assert_eq!(fmt("no specifiers\n", &[], &[]), "no specifiers\n");
    // Arguments past the specifiers are ignored.
    assert_eq!(fmt("%d", &[I32, I32], &[i(1), i(2)]), "1");
    assert_eq!(fmt("é%dü", &[I32], &[i(1)]), "é1ü");
}

fn refused(f: &str, tys: &[ArgTy]) -> FormatError {
    match Format::parse(f) {
        Err(e) => e,
        Ok(p) => p.check(tys).expect_err(f),
    }
}

#[test]
fn formats_the_layers_refuse() {
    for (f, says) in [
        ("%s", "%s"),
        ("%c", "%c"),
        ("%-5d", "only flag"),
        ("%+d", "only flag"),
        ("%#x", "only flag"),
        ("% d", "followed by a space"),
        ("%*d", "`*`"),
        ("%.*d", "`*`"),
        ("%hd", "length modifier"),
        ("%lld", "length modifier"),
        ("%zu", "length modifier"),
        ("%v5f", "2, 3 or 4"),
        ("%vf", "2, 3 or 4"),
        ("%k", "no valid specifier"),
        ("%5", "no specifier"),
        ("%le", "`l` goes only"),
    ] {
        let e = refused(f, &[I32]);
        assert!(!e.unsupported, "{f}: {e:?}");
        assert!(e.what.contains(says), "{f}: {}", e.what);
    }
    let e = refused("%d %d", &[I32]);
    assert!(
        !e.unsupported && e.what.contains("2 specifiers but 1 arguments"),
        "{e:?}"
    );
    let e = refused("%v2f", &[F32]);
    assert!(
        !e.unsupported && e.what.contains("vector specifier"),
        "{e:?}"
    );
    let e = refused("%f", &[vec_of(ScalarTy::F32, 2)]);
    assert!(
        !e.unsupported && e.what.contains("scalar specifier"),
        "{e:?}"
    );
}

#[test]
fn mismatches_are_unsupported() {
    // The layers only warn about these, and print what the documentation does not say.
    for (f, t) in [
        ("%d", U64),
        ("%lu", U32),
        ("%d", F32),
        ("%f", I32),
        ("%lf", F32),
        ("%v3f", vec_of(ScalarTy::F32, 4)),
        ("%p", U64),
        ("%5000d", I32),
    ] {
        let e = refused(f, &[t]);
        assert!(e.unsupported, "{f}: {e:?}");
    }
}

#[test]
fn log_limits_and_shared_chunks() {
    let line = |k: u64| PrintfLine {
        workgroup: [0; 3],
        invocation: 0,
        subgroup: 0,
        lane: 0,
        step: k,
        instruction: 0,
        text: format!("{k}"),
    };
    let mut log = PrintfLog::default();
    for k in 0..3000 {
        log.push(line(k), 2500);
    }
    assert_eq!(log.len(), 2500);
    assert_eq!(log.dropped(), 500);
    assert_eq!(log.get(2499).map(|l| l.step), Some(2499));
    assert_eq!(
        log.iter().map(|l| l.step).collect::<Vec<_>>(),
        (0..2500).collect::<Vec<_>>()
    );
    // A copy shares full chunks; pushing to one does not change the other.
    let mut a = PrintfLog::default();
    for k in 0..1500 {
        a.push(line(k), 10_000);
    }
    let b = a.clone();
    a.push(line(7777), 10_000);
    assert_eq!((a.len(), b.len()), (1501, 1500));
    assert_eq!(b.get(1500), None);
    assert_eq!(a.get(1500).map(|l| l.step), Some(7777));
}
