use super::*;

fn shape(use_: Use, elem: ScalarTy, rows: u32, cols: u32) -> Shape {
    Shape {
        use_,
        elem,
        rows,
        cols,
        lanes: 32,
        workgroup: false,
    }
}

fn scalar(name: &str) -> ScalarTy {
    match name {
        "f16" => ScalarTy::Float { bits: 16 },
        "f32" => ScalarTy::F32,
        "bf16" => ScalarTy::BFloat16,
        "i8" => ScalarTy::Int {
            bits: 8,
            signed: true,
        },
        "u8" => ScalarTy::Int {
            bits: 8,
            signed: false,
        },
        "i32" => ScalarTy::I32,
        "u32" => ScalarTy::U32,
        other => panic!("{other}"),
    }
}

/// How many components hold each element.
fn counts(f: &Fragment) -> Vec<u32> {
    let mut c = vec![0; f.elements()];
    for &e in &f.map {
        if e != NONE {
            c[e as usize] += 1;
        }
    }
    c
}

#[test]
fn nvidia_holds_every_element_once_for_every_measured_configuration() {
    let all = nvidia_configurations();
    assert_eq!(all.len(), 16);
    for (u, t, r, c) in all {
        let f = LayoutChoice::Nvidia
            .fragment(&shape(u, scalar(t), r, c))
            .unwrap();
        assert_eq!(f.length, r * c / 32, "{u:?} {t} {r}x{c}");
        assert!(counts(&f).iter().all(|n| *n == 1), "{u:?} {t} {r}x{c}");
        assert!(!f.replicated);
        // Both signednesses of 8-bit integers lay out the same.
        if t == "i8" {
            let g = LayoutChoice::Nvidia
                .fragment(&shape(u, scalar("u8"), r, c))
                .unwrap();
            assert_eq!(f, g);
        }
    }
}

#[test]
fn nvidia_formula_spot_checks() {
    // MatrixA f16 16x16: lane 0 holds (0,0),(0,1), then (0,8),(0,9), then rows + 8.
    let a = LayoutChoice::Nvidia
        .fragment(&shape(Use::A, scalar("f16"), 16, 16))
        .unwrap();
    assert_eq!(a.element_at(0, 0), Some((0, 0)));
    assert_eq!(a.element_at(0, 1), Some((0, 1)));
    assert_eq!(a.element_at(0, 2), Some((0, 8)));
    assert_eq!(a.element_at(0, 4), Some((8, 0)));
    assert_eq!(a.element_at(5, 0), Some((1, 2)));
    // MatrixB s8 32x16: lane 1 (g=0, t=1), component 0 -> row 4, col 0.
    let b = LayoutChoice::Nvidia
        .fragment(&shape(Use::B, scalar("i8"), 32, 16))
        .unwrap();
    assert_eq!(b.element_at(1, 0), Some((4, 0)));
    assert_eq!(b.element_at(1, 4), Some((20, 0)));
    assert_eq!(b.element_at(4, 8), Some((0, 9)));
    assert_eq!(b.holders(20, 0), vec![(1, 4)]);
}

#[test]
fn nvidia_rejects_shapes_it_was_not_measured_for() {
    for s in [
        shape(Use::A, scalar("f16"), 32, 32),
        shape(Use::A, scalar("f32"), 16, 16),
        shape(Use::Accumulator, ScalarTy::Float { bits: 64 }, 16, 16),
        Shape {
            lanes: 64,
            ..shape(Use::A, scalar("f16"), 16, 16)
        },
        Shape {
            workgroup: true,
            lanes: 32,
            ..shape(Use::A, scalar("f16"), 16, 16)
        },
    ] {
        let e = LayoutChoice::Nvidia.fragment(&s).unwrap_err();
        assert!(e.contains(&format!("{}x{}", s.rows, s.cols)), "{e}");
        assert!(e.contains("portable"), "{e}");
    }
}

#[test]
fn amd_rdna3_replicates_a_and_b_and_interleaves_the_accumulator() {
    for (u, t) in [
        (Use::A, "f16"),
        (Use::B, "bf16"),
        (Use::A, "u8"),
        (Use::B, "i8"),
    ] {
        let f = LayoutChoice::AmdRdna3
            .fragment(&shape(u, scalar(t), 16, 16))
            .unwrap();
        assert_eq!(f.length, 16);
        assert!(f.replicated);
        assert!(counts(&f).iter().all(|n| *n == 2), "{u:?} {t}");
        // Lanes l and l + 16 hold the same elements.
        for l in 0..16 {
            for i in 0..16 {
                assert_eq!(f.element_at(l, i), f.element_at(l + 16, i));
            }
        }
    }
    let a = LayoutChoice::AmdRdna3
        .fragment(&shape(Use::A, scalar("f16"), 16, 16))
        .unwrap();
    assert_eq!(a.element_at(3, 5), Some((3, 5)));
    assert_eq!(a.holders(3, 5), vec![(3, 5), (19, 5)]);
    let b = LayoutChoice::AmdRdna3
        .fragment(&shape(Use::B, scalar("f16"), 16, 16))
        .unwrap();
    assert_eq!(b.element_at(3, 5), Some((5, 3)));
    for t in ["f32", "f16", "i32"] {
        let c = LayoutChoice::AmdRdna3
            .fragment(&shape(Use::Accumulator, scalar(t), 16, 16))
            .unwrap();
        assert_eq!(c.length, 8);
        assert!(counts(&c).iter().all(|n| *n == 1));
        assert_eq!(c.element_at(0, 0), Some((0, 0)));
        assert_eq!(c.element_at(16, 0), Some((1, 0)));
        assert_eq!(c.element_at(17, 3), Some((7, 1)));
    }
    assert!(LayoutChoice::AmdRdna3
        .fragment(&shape(Use::A, scalar("f16"), 16, 32))
        .is_err());
    assert!(LayoutChoice::AmdRdna3
        .fragment(&shape(Use::Accumulator, scalar("i8"), 16, 16))
        .is_err());
}

#[test]
fn portable_covers_any_shape_once_with_padding() {
    for (r, c, lanes) in [
        (16, 16, 32),
        (3, 5, 32),
        (1, 1, 4),
        (64, 64, 256),
        (7, 9, 16),
    ] {
        let f = LayoutChoice::Portable
            .fragment(&Shape {
                lanes,
                ..shape(Use::B, ScalarTy::Float { bits: 64 }, r, c)
            })
            .unwrap();
        assert_eq!(f.length, (r * c).div_ceil(lanes));
        assert!(counts(&f).iter().all(|n| *n == 1), "{r}x{c}/{lanes}");
        let pads = f.map.iter().filter(|e| **e == NONE).count() as u32;
        assert_eq!(pads, lanes * f.length - r * c);
    }
    let f = portable(16, 16, 32);
    assert_eq!(f.element_at(0, 0), Some((0, 0)));
    assert_eq!(f.element_at(1, 0), Some((0, 1)));
    assert_eq!(f.element_at(1, 1), Some((2, 1)));
    assert_eq!(portable(3, 5, 32).element_at(20, 0), None);
}

#[test]
fn json_tables_are_checked_and_used() {
    // A 2x2 matrix over 4 lanes, transposed round-robin, with element (1,1) held twice.
    let text = r#"{"name": "tiny", "lanes": 4, "matrices": [
        {"use": "Accumulator", "rows": 2, "cols": 2, "types": ["f32"],
         "components": [[[0,0],[1,1]], [[1,0],null], [[0,1],null], [[1,1],null]]}]}"#;
    let t = Arc::new(Table::from_json(text).unwrap());
    let l = LayoutChoice::Table(Arc::clone(&t));
    assert_eq!(l.name(), "tiny");
    let s = Shape {
        lanes: 4,
        ..shape(Use::Accumulator, ScalarTy::F32, 2, 2)
    };
    let f = l.fragment(&s).unwrap();
    assert_eq!(f.length, 2);
    assert_eq!(counts(&f), vec![1, 1, 1, 2]);
    assert_eq!(f.holders(1, 1), vec![(0, 1), (3, 0)]);
    assert_eq!(f.owner[3], 1);
    assert!(l
        .fragment(&Shape {
            elem: ScalarTy::Float { bits: 16 },
            ..s
        })
        .unwrap_err()
        .contains("tiny"));
    assert!(l.fragment(&Shape { lanes: 32, ..s }).is_err());
    for (bad, why) in [
        (
            r#"{"name": "x", "lanes": 1, "matrices": [{"use": "A", "rows": 1, "cols": 2, "components": [[[0,0]]]}]}"#,
            "held by no lane",
        ),
        (
            r#"{"name": "x", "lanes": 1, "matrices": [{"use": "A", "rows": 1, "cols": 1, "components": [[[0,3]]]}]}"#,
            "outside",
        ),
        (
            r#"{"name": "x", "lanes": 2, "matrices": [{"use": "A", "rows": 1, "cols": 1, "components": [[[0,0]]]}]}"#,
            "lane lists",
        ),
        (
            r#"{"name": "x", "lanes": 2, "matrices": [{"use": "A", "rows": 1, "cols": 2, "components": [[[0,0]], [[0,1],null]]}]}"#,
            "same",
        ),
        (
            r#"{"name": "x", "lanes": 2, "matrices": [{"use": "C", "rows": 1, "cols": 1, "components": [[[0,0]], [null]]}]}"#,
            "variant",
        ),
        ("not json", "layout table"),
    ] {
        let e = Table::from_json(bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
}

#[test]
fn every_builtin_layout_lists_what_it_supports() {
    for l in LayoutChoice::builtin() {
        assert!(!l.supported().is_empty());
        assert_eq!(LayoutChoice::by_name(&l.name()), Some(l.clone()));
    }
    assert_eq!(LayoutChoice::by_name("nope"), None);
}
