//! Swizzles and swizzled (composed) layouts: CuTe's own examples with their stated
//! results, and properties checked against a bit-by-bit reference of CuTe's definition.

use proptest::prelude::*;
use std::collections::BTreeSet;
use strideweave::composed::compose_layout_swizzle;
use strideweave::eval::eval_line;
use strideweave::static_layout::StaticSwizzle;
use strideweave::view::{ColorBy, Grid};
use strideweave::{layout, ComposedLayout, Coord, Layout, Swizzle};

/// 256 cases per property; `STRIDEWEAVE_PROPTEST_CASES` scales up (as the other suites).
fn config() -> ProptestConfig {
    let cases = std::env::var("STRIDEWEAVE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// CuTe's definition, bit by bit: for each of the B bits, bit `M + max(0,S) + k` (YYY)
/// flips bit `M - min(0,S) + k` (ZZZ).
fn reference(b: u32, m: u32, s: i32, x: u64) -> u64 {
    let y0 = m + s.max(0) as u32;
    let z0 = m + (-s).max(0) as u32;
    let mut r = x;
    for k in 0..b {
        if (x >> (y0 + k)) & 1 == 1 {
            r ^= 1 << (z0 + k);
        }
    }
    r
}

fn sw(b: u32, m: u32, s: i32) -> Swizzle {
    Swizzle::new(b, m, s).unwrap()
}

fn lay(s: &str) -> Layout {
    s.parse().unwrap()
}

/// Valid swizzle parameters with all masks below bit 24.
fn swizzle_params() -> impl Strategy<Value = (u32, u32, i32)> {
    (0u32..=4, 0u32..=6, 0u32..=8, any::<bool>()).prop_filter_map("|S| >= B", |(b, m, s, neg)| {
        let s = s.max(b) as i32;
        let s = if neg { -s } else { s };
        Swizzle::checked(b, m, s).map(|_| (b, m, s))
    })
}

// ---------------------------------------------------------------------------------------
// The Swizzle functor
// ---------------------------------------------------------------------------------------

/// swizzle.hpp's picture: `0bxxxYYYxxxxZZZxxxx`, MBase low bits constant, BBits per mask,
/// SShift from YYY to ZZZ (negative: ZZZ above YYY).
#[test]
fn masks_follow_cute_swizzle_hpp() {
    let s = sw(3, 4, 3);
    assert_eq!((s.yyy_mask(), s.zzz_mask()), (0b111 << 7, 0b111 << 4));
    assert_eq!(s.code(), (0b111 << 7) | (0b111 << 4));
    let n = sw(2, 0, -3);
    assert_eq!((n.yyy_mask(), n.zzz_mask()), (0b11, 0b11 << 3));
    assert_eq!(n.apply(0b01), 0b01 | 0b01 << 3);
    assert_eq!(Swizzle::IDENTITY.to_string(), "Sw<0,4,3>");
}

/// swizzle.hpp's examples: `make_swizzle<0b1000, 0b0100>()` is `Swizzle<1,2,1>` and
/// `make_swizzle<0b11000000, 0b00000110>()` is `Swizzle<2,1,5>`.
#[test]
fn make_swizzle_examples_from_cute() {
    assert_eq!(Swizzle::from_masks(0b1000, 0b0100), Some(sw(1, 2, 1)));
    assert_eq!(
        Swizzle::from_masks(0b1100_0000, 0b0000_0110),
        Some(sw(2, 1, 5))
    );
    assert_eq!(eval_line("make_swizzle(8, 4)"), "Sw<1,2,1>");
    assert!(eval_line("make_swizzle(10, 1)").starts_with("error: value: make_swizzle(10, 1)"));
}

/// The worked example of "CuTe Swizzle" (Lei Mao): offset 65 under `Swizzle<5,0,6>` has
/// YYY = 0b00001 (bit 6) and ZZZ = 0b00001, so it becomes 64.
#[test]
fn worked_example_offset_65() {
    assert_eq!(sw(5, 0, 6).apply(65), 64);
    assert_eq!(eval_line("index(Sw<5,0,6>, 65)"), "64");
}

#[test]
fn invalid_parameters_are_value_errors() {
    assert_eq!(
        eval_line("Sw<3,4,2>"),
        "error: value: swizzle Sw<3,4,2>: |S| = 2 is smaller than B = 3, so the masks would overlap"
    );
    assert!(eval_line("Sw<3,60,3>").contains("more than the 64 bits"));
    assert!(eval_line("Sw<-1,0,0>").starts_with("error: value:"));
    assert!(eval_line("Sw<1,2>").starts_with("error: syntax:"));
    assert!(eval_line("Sw<3,4,3> o").starts_with("error: syntax:"));
    assert!(eval_line("Sw<3,4,3> o 5").starts_with("error: type:"));
}

proptest! {
    #![proptest_config(config())]
    /// The swizzle is CuTe's bit definition, and an involution on every offset.
    #[test]
    fn swizzle_matches_reference_and_is_an_involution((b, m, s) in swizzle_params(), x in any::<u64>()) {
        let f = sw(b, m, s);
        prop_assert_eq!(f.apply(x), reference(b, m, s, x));
        prop_assert_eq!(f.apply(f.apply(x)), x);
        // only ZZZ bits change
        prop_assert_eq!((f.apply(x) ^ x) & !f.zzz_mask(), 0);
    }

    /// make_swizzle(YYY, ZZZ) gives back the swizzle (B > 0; B = 0 is the identity).
    #[test]
    fn masks_round_trip((b, m, s) in swizzle_params()) {
        let f = sw(b, m, s);
        let g = Swizzle::from_masks(f.yyy_mask(), f.zzz_mask()).unwrap();
        prop_assert!((0..4096u64).all(|x| g.apply(x) == f.apply(x)));
        if b > 0 {
            prop_assert_eq!(g, f);
        }
    }

    /// Composing two swizzles of one shift is the function composition, where it exists.
    #[test]
    fn swizzle_composition_is_function_composition((b0, m0, s) in swizzle_params(), b1 in 0u32..=4, m1 in 0u32..=6) {
        let f = sw(b0, m0, s);
        if let Some(g) = Swizzle::checked(b1.min(s.unsigned_abs()), m1, s) {
            if let Ok(fg) = f.compose_swizzle(&g) {
                prop_assert!((0..1u64 << 16).step_by(7).all(|x| fg.apply(x) == f.apply(g.apply(x))));
            }
        }
    }

    /// `downcast(n)` then `upcast(n)` round trips; the upcast swizzle on wide elements
    /// agrees with the narrow one on whole elements when M stays non-negative.
    #[test]
    fn upcast_downcast_round_trip((b, m, s) in swizzle_params(), log in 0u32..=3) {
        let f = sw(b, m, s);
        let n = 1u64 << log;
        if let Ok(d) = f.downcast(n) {
            prop_assert_eq!(d.upcast(n).unwrap(), f);
            prop_assert!((0..4096u64).all(|x| d.apply(x * n) == f.apply(x) * n));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Swizzled layouts
// ---------------------------------------------------------------------------------------

/// CuTe's unit test `CuTe_core.SwizzleLayout` (test/unit/cute/core/swizzle_layout.cpp):
/// for each swizzled layout, slicing a row or a column gives the same values as indexing
/// the whole layout. Also each is a permutation of `0..64`.
#[test]
fn cute_unit_test_swizzle_layout_slicing() {
    for text in [
        "Sw<3,0,3> o (8,8):(8,1)",
        "Sw<3,0,-3> o (8,8):(8,1)",
        "Sw<2,1,3> o ((2,2,2),(2,2,2)):((32,2,8),(4,1,16))",
    ] {
        let s: ComposedLayout = text.parse().unwrap();
        let at = |i: u64, j: u64| s.index(&Coord::new((i, j)).unwrap()).unwrap();
        for i in 0..8 {
            let row = s.fix_mode(0, i).unwrap();
            for j in 0..8 {
                assert_eq!(row.index_of(j).unwrap(), at(i, j), "{text} row {i}");
            }
        }
        for j in 0..8 {
            let col = s.fix_mode(1, j).unwrap();
            for i in 0..8 {
                assert_eq!(col.index_of(i).unwrap(), at(i, j), "{text} column {j}");
            }
        }
        let all: BTreeSet<u64> = (0..64).map(|k| s.index_of(k).unwrap()).collect();
        assert_eq!(all, (0..64).collect(), "{text}");
    }
}

/// `print_layout(composition(Swizzle<3,0,3>{}, Layout<Shape<_8,_8>,Stride<_8,_1>>{}))`:
/// row r is `8r .. 8r+7` with the column XORed by r.
#[test]
fn cute_print_layout_of_sw303_over_8x8() {
    let s: ComposedLayout = "Sw<3,0,3> o (8,8):(8,1)".parse().unwrap();
    let row1: Vec<u64> = (0..8)
        .map(|j| s.index(&Coord::new((1, j)).unwrap()).unwrap())
        .collect();
    assert_eq!(row1, [9, 8, 11, 10, 13, 12, 15, 14]);
    for r in 0..8u64 {
        for c in 0..8u64 {
            assert_eq!(
                s.index(&Coord::new((r, c)).unwrap()).unwrap(),
                8 * r + (c ^ r)
            );
        }
    }
    // the Swizzle<3,0,-3> version XORs the column into the row instead
    let t: ComposedLayout = "Sw<3,0,-3> o (8,8):(8,1)".parse().unwrap();
    for r in 0..8u64 {
        for c in 0..8u64 {
            assert_eq!(
                t.index(&Coord::new((r, c)).unwrap()).unwrap(),
                8 * (r ^ c) + c
            );
        }
    }
}

/// The shared-memory atom of CuTe's tutorials and FlashAttention,
/// `composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})`: each row of
/// 64 halves has its eight 8-element vectors permuted by the row number.
#[test]
fn tutorial_smem_atom_sw333() {
    let s: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    assert_eq!(s.size(), 512);
    assert_eq!(s.cosize(), 512);
    for r in 0..8u64 {
        for c in 0..64u64 {
            let expect = 64 * r + (((c / 8) ^ r) * 8) + c % 8;
            assert_eq!(s.index(&Coord::new((r, c)).unwrap()).unwrap(), expect);
        }
    }
    assert_eq!(eval_line("size(Sw<3,3,3> o (8,64):(64,1))"), "512");
    assert_eq!(eval_line("cosize(Sw<3,3,3> o (8,64):(64,1))"), "512");
    assert_eq!(eval_line("shape(Sw<3,3,3> o (8,64):(64,1))"), "(8,64)");
    assert_eq!(eval_line("index(Sw<3,3,3> o (8,64):(64,1), (1,0))"), "72");
    assert_eq!(
        eval_line("stride(Sw<3,3,3> o (8,64):(64,1))"),
        "error: type: stride does not take a swizzled layout (Sw<3,3,3> o (8,64):(64,1))"
    );
}

/// Tiling a swizzled layout: composing with a tiler (or dividing) acts on the layout and
/// keeps the swizzle, so every tile's indices are the swizzled layout's own.
#[test]
fn tiling_a_swizzled_layout() {
    let s: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    assert_eq!(
        eval_line("compose(Sw<3,3,3> o (8,64):(64,1), (8,8))"),
        "Sw<3,3,3> o (8,8):(64,1)"
    );
    assert_eq!(
        eval_line("zipped_divide(Sw<3,3,3> o (8,64):(64,1), [4:1,16:1])"),
        "Sw<3,3,3> o ((4,16),(2,4)):((64,1),(256,16))"
    );
    assert_eq!(
        eval_line("tiled_divide(Sw<3,3,3> o (8,64):(64,1), [4:1,16:1])"),
        "Sw<3,3,3> o ((4,16),2,4):((64,1),256,16)"
    );
    let z = s
        .zipped_divide(&[Layout::leaf(4, 1).unwrap(), Layout::leaf(16, 1).unwrap()])
        .unwrap();
    // tile (1,2) element (3,5) is row 4+3, column 32+5
    let got = z.index(&Coord::new(((3, 5), (1, 2))).unwrap()).unwrap();
    assert_eq!(got, s.index(&Coord::new((7, 37)).unwrap()).unwrap());
    let e = eval_line("compose(Sw<3,3,3> o (8,64):(64,1), 16:3)");
    assert!(
        e.starts_with("error: value: compose(Sw<3,3,3> o (8,64):(64,1), 16:3): ")
            && e.contains("stride divisibility"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(config())]
    /// `compose(Sw o L, B)(i) == Sw(L(B(i)))` for every i, whenever L ∘ B exists.
    #[test]
    fn composed_compose_is_function_composition(
        (b, m, s) in swizzle_params(),
        e0 in 1u64..=8, e1 in 1u64..=8, d0 in 0u64..=9, d1 in 0u64..=9,
    ) {
        let c = ComposedLayout::swizzled(sw(b, m, s), lay("(8,64):(64,1)"));
        let tile = Layout::new(
            strideweave::Shape::new((e0, e1)).unwrap(),
            strideweave::Stride::new((d0, d1)).unwrap(),
        ).unwrap();
        match c.layout().compose(&tile) {
            Ok(inner) => {
                let t = c.compose(&tile).unwrap();
                for i in 0..tile.size() {
                    prop_assert_eq!(t.index_of(i).unwrap(), sw(b, m, s).apply(inner.index_of(i).unwrap()));
                }
            }
            Err(_) => prop_assert!(c.compose(&tile).is_err()),
        }
    }

    /// `A ∘ Sw == Sw' o A` (CuTe's `composition(Layout, Swizzle)`) wherever it is returned,
    /// checked on every point, over compact layouts in any mode order.
    #[test]
    fn layout_then_swizzle_is_checked((b, m, s) in swizzle_params(), perm in 0usize..6, k0 in 1u32..=3, k1 in 1u32..=3, k2 in 1u32..=3) {
        let ext = [1u64 << k0, 1 << k1, 1 << k2];
        let order = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]][perm];
        let mut strides = [0u64; 3];
        let mut acc = 1;
        for &o in &order {
            strides[o] = acc;
            acc *= ext[o];
        }
        let a = Layout::new(
            strideweave::Shape::new(ext).unwrap(),
            strideweave::Stride::new(strides).unwrap(),
        ).unwrap();
        let f = sw(b, m, s);
        if let Ok(r) = compose_layout_swizzle(&a, &f) {
            for i in 0..a.size() {
                prop_assert_eq!(r.index_of(i).unwrap(), a.index_unbounded(f.apply(i)).unwrap());
            }
        }
    }

    /// Right and left inverses of swizzled compact layouts, wherever returned, are inverses
    /// on every point (checked here independently of the library's own check), and the
    /// common row- and column-major atoms always have them.
    #[test]
    fn swizzled_inverses_are_inverses((b, m, s) in swizzle_params(), rows in 1u32..=4, cols in 1u32..=6, row_major in any::<bool>()) {
        let (r, c) = (1u64 << rows, 1u64 << cols);
        let l = if row_major {
            Layout::row_major(strideweave::Shape::new((r, c)).unwrap()).unwrap()
        } else {
            Layout::col_major(strideweave::Shape::new((r, c)).unwrap()).unwrap()
        };
        let x = ComposedLayout::swizzled(sw(b, m, s), l);
        // CuTe's rewrite needs each mask to stay one run of bits through the inverse: it
        // must lie inside L's index range and (row-major) not straddle the column bits
        let col_bits = if row_major { cols } else { 0 };
        let straddles = |mask: u64| mask & ((1 << col_bits) - 1) != 0 && mask >> col_bits != 0;
        let f = sw(b, m, s);
        let fits = f.code() < r * c && !straddles(f.yyy_mask()) && !straddles(f.zzz_mask());
        match x.right_inverse() {
            Ok(ri) => {
                for i in 0..ri.size() {
                    prop_assert_eq!(x.index_of(ri.index_of(i).unwrap()).unwrap(), i);
                }
            }
            Err(e) => prop_assert!(!fits, "{x}: {e}"),
        }
        match x.left_inverse() {
            Ok(li) => {
                for i in 0..x.size() {
                    prop_assert_eq!(li.index_of(x.index_of(i).unwrap()).unwrap(), i);
                }
            }
            Err(e) => prop_assert!(!fits, "{x}: {e}"),
        }
    }
}

/// `right_inverse(Sw o L) = right_inverse(L) ∘ Sw`, which CuTe rewrites as a swizzle of
/// the inverse: the rows' bits move, so the swizzle's shift changes sign.
#[test]
fn inverses_of_the_tutorial_atom() {
    assert_eq!(
        eval_line("right_inverse(Sw<3,3,3> o (8,64):(64,1))"),
        "Sw<3,0,-6> o (64,8):(8,1)"
    );
    assert_eq!(
        eval_line("left_inverse(Sw<3,3,3> o (8,64):(64,1))"),
        "Sw<3,0,-6> o (64,8):(8,1)"
    );
    assert_eq!(eval_line("right_inverse(Sw<2,0,-3>)"), "Sw<2,0,-3>");
    // Sw<3,4,3> reads bits 7 to 9, but L reaches indices below 512 (bits 0 to 8): on
    // them it is Sw<2,4,3>, whose inverse is returned (and checked at every point)
    for f in ["right_inverse", "left_inverse"] {
        assert_eq!(
            eval_line(&format!("{f}(Sw<3,4,3> o (8,64):(64,1))")),
            eval_line(&format!("{f}(Sw<2,4,3> o (8,64):(64,1))"))
        );
    }
    let s: ComposedLayout = "Sw<3,4,3> o (8,64):(64,1)".parse().unwrap();
    let r = s.right_inverse().unwrap();
    assert!((0..r.size()).all(|i| s.index_of(r.index_of(i).unwrap()).unwrap() == i));
    assert_eq!(r.size(), 512);
    // a swizzle reading no bit L reaches is the identity there
    assert_eq!(
        eval_line("left_inverse(Sw<3,5,3> o (4,8):(8,1))"),
        "(8,4):(4,1)"
    );
    // Sw<3,4,-3> flips bits 7 to 9, taking indices of L past 512: no swizzled layout
    // inverts it, and the error says so first, with the values
    for f in ["right_inverse", "left_inverse"] {
        let e = eval_line(&format!("{f}(Sw<3,4,-3> o (8,64):(64,1))"));
        assert!(
            e.starts_with(&format!(
                "error: value: {f}(Sw<3,4,-3> o (8,64):(64,1)): Sw<3,4,-3> moves index bit 9, \
                 but (8,64):(64,1) reaches only 512 indices (bits 0 to 8), so no swizzled \
                 layout inverts it ("
            )),
            "{e}"
        );
    }
    assert!(eval_line("right_inverse(Sw<3,3,3> o 8 o (8,64):(64,1))").contains("offset 8"));
}

#[test]
fn swizzle_and_nonswizzle_portions() {
    assert_eq!(
        eval_line("get_swizzle_portion(Sw<3,4,3> o (8,64):(64,1))"),
        "Sw<3,4,3>"
    );
    assert_eq!(
        eval_line("get_nonswizzle_portion(Sw<3,4,3> o (8,64):(64,1))"),
        "(8,64):(64,1)"
    );
    // CuTe: a plain layout's swizzle portion is the identity Swizzle<0,4,3>
    assert_eq!(eval_line("get_swizzle_portion((8,64):(64,1))"), "Sw<0,4,3>");
    assert_eq!(
        eval_line("get_nonswizzle_portion((8,64):(64,1))"),
        "(8,64):(64,1)"
    );
    let s: ComposedLayout = "Sw<3,4,3> o (8,64):(64,1)".parse().unwrap();
    assert_eq!(s.swizzle_portion(), sw(3, 4, 3));
    assert_eq!(s.nonswizzle_portion(), lay("(8,64):(64,1)"));
}

/// The notation: `Sw<B,M,S> o [OFFSET o] L` prints and parses back; CuTe's `_0` offset is
/// read; an identity swizzle with offset 0 is just the layout, as CuTe's composition gives.
#[test]
fn notation_round_trips() {
    for text in [
        "Sw<3,4,3> o (8,64):(64,1)",
        "Sw<2,0,-3> o 24 o 8:1",
        "Sw<1,5,-6> o ((2,4),(4,2)):((8,1),(16,4))",
    ] {
        let c: ComposedLayout = text.parse().unwrap();
        assert_eq!(c.to_string(), text);
        assert_eq!(eval_line(text), text);
        assert_eq!(eval_line(&c.to_string()), text);
    }
    assert_eq!(
        eval_line("Sw<3,4,3> o _0 o (8,64):(64,1)"),
        "Sw<3,4,3> o (8,64):(64,1)"
    );
    assert_eq!(
        eval_line(" Sw < 3 , 4 , 3 >  o  (8,64):(64,1)"),
        "Sw<3,4,3> o (8,64):(64,1)"
    );
    assert_eq!(eval_line("Sw<0,4,3> o (8,64):(64,1)"), "(8,64):(64,1)");
    assert_eq!(
        eval_line("compose(Sw<2,0,-3>, (8,8):(8,1))"),
        "Sw<2,0,-3> o (8,8):(8,1)"
    );
    assert_eq!(eval_line("compose(Sw<1,4,3>, Sw<1,5,3>)"), "Sw<2,4,3>");
    assert_eq!(
        eval_line("compose((8,8):(8,1), Sw<3,0,3>)"),
        "Sw<3,0,-3> o (8,8):(8,1)"
    );
}

#[test]
fn static_swizzle_agrees_with_runtime_and_folds_in_const() {
    const X: u64 = StaticSwizzle::<3, 3, 3>::apply(64 * 5 + 17);
    assert_eq!(X, sw(3, 3, 3).apply(64 * 5 + 17));
    let st = StaticSwizzle::<3, 3, 3>.compose(layout!((8,64):(64,1)));
    let rt: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    assert_eq!(st.composed(), rt);
    for i in 0..512 {
        assert_eq!(st.index_of(i).unwrap(), rt.index_of(i).unwrap());
    }
    assert!(st.index_of(512).is_err());
    let tile = st.zipped_divide((layout!(4:1), layout!(16:1)));
    assert_eq!(
        tile.to_string(),
        eval_line("zipped_divide(Sw<3,3,3> o (8,64):(64,1), [4:1,16:1])")
    );
    assert_eq!(std::mem::size_of_val(&tile), 0);
}

#[test]
fn grid_draws_swizzled_indices() {
    let s: ComposedLayout = "Sw<2,1,3> o ((2,2,2),(2,2,2)):((32,2,8),(4,1,16))"
        .parse()
        .unwrap();
    let g = Grid::swizzled(&s, ColorBy::Index, 64).unwrap();
    for r in 0..8 {
        for c in 0..8 {
            let want = s.index(&Coord::new((r as u64, c as u64)).unwrap()).unwrap();
            assert_eq!(g.index(r, c), want);
        }
    }
    assert_eq!(g.notation(), s.to_string());
}

/// CuTe's `upcast<N>` / `downcast<N>` of a swizzle: `Sw<B, M -/+ log2 N, S>`, and when M
/// runs out the bits below one element are dropped (`upcast<8>(Sw<3,1,3>)` is `Sw<1,0,3>`).
#[test]
fn swizzle_upcast_and_downcast_in_eval() {
    assert_eq!(eval_line("upcast(Sw<3,4,3>, 2)"), "Sw<3,3,3>");
    assert_eq!(eval_line("downcast(Sw<3,3,3>, 2)"), "Sw<3,4,3>");
    assert_eq!(eval_line("upcast(Sw<3,1,3>, 8)"), "Sw<1,0,3>");
    assert_eq!(
        eval_line("upcast(Sw<3,4,3>, 3)"),
        "error: value: upcast of a swizzle by 3: the factor must be a power of two"
    );
}

/// Queries and reshaping that CuTe answers from the layout under the swizzle.
#[test]
fn layout_queries_and_reshaping_under_the_swizzle() {
    assert_eq!(eval_line("rank(Sw<3,3,3> o (8,64):(64,1))"), "2");
    assert_eq!(eval_line("depth(Sw<3,3,3> o (8,64):(64,1))"), "1");
    assert_eq!(eval_line("is_injective(Sw<3,3,3> o (8,64):(64,1))"), "true");
    assert_eq!(eval_line("is_injective(Sw<3,3,3> o (8,2):(1,0))"), "false");
    assert_eq!(eval_line("complement(Sw<3,3,3> o 8:1, 16)"), "2:8");
    assert_eq!(
        eval_line("get(Sw<3,3,3> o (8,64):(64,1), 1)"),
        "Sw<3,3,3> o 64:1"
    );
    assert_eq!(
        eval_line("coalesce(Sw<3,3,3> o (8,64):(1,8))"),
        "Sw<3,3,3> o 512:1"
    );
    assert_eq!(
        eval_line("filter(Sw<3,3,3> o (8,2):(1,0))"),
        "Sw<3,3,3> o 8:1"
    );
    assert_eq!(
        eval_line("blocked_product(Sw<3,3,3> o (8,8):(8,1), (2,1):(1,2))"),
        format!(
            "Sw<3,3,3> o {}",
            eval_line("blocked_product((8,8):(8,1), (2,1):(1,2))")
        )
    );
    assert_eq!(eval_line("can_compose(Sw<3,3,3> o 8:1, 4:2)"), "true");
}
