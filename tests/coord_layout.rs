//! Coordinate layouts (CuTe's scaled-basis strides `k@i`): identity layouts, indexing to
//! coordinates, composition and division, printing. The properties check every result
//! against brute force: an identity layout transformed by an operation must give, at
//! each point, the coordinate whose column-major index the same operation gives on the
//! compact layout of the shape.

use proptest::prelude::*;
use strideweave::eval::eval_line;
use strideweave::{Coord, CoordLayout, IntTuple, Layout, Shape};

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

fn identity(shape: &str) -> CoordLayout {
    CoordLayout::identity(&Shape::from_tuple(shape.parse().unwrap()).unwrap()).unwrap()
}

/// The leaves of the coordinate of column-major index `i` in `shape`.
fn idx2crd(shape: &IntTuple, i: u64) -> Vec<u64> {
    let n = shape.leaf_count();
    let mut rest = i;
    (0..n)
        .map(|k| {
            let e = shape.leaf(k);
            let digit = if k + 1 == n { rest } else { rest % e };
            rest /= e;
            digit
        })
        .collect()
}

/// CuTe's `make_identity_layout(make_shape(4,8))` prints `(_4,_8):(_1@0,_1@1)` (static
/// values carry `_`); the coordinate of key k is `(k%4, k/4)`.
#[test]
fn identity_layout_of_4x8() {
    let id = identity("(4,8)");
    assert_eq!(id.to_string(), "(4,8):(1@0,1@1)");
    assert_eq!(eval_line("make_identity_layout((4,8))"), "(4,8):(1@0,1@1)");
    for k in 0..32 {
        assert_eq!(
            id.index_of(k).unwrap().to_string(),
            format!("({},{})", k % 4, k / 4)
        );
    }
    assert_eq!(eval_line("index((4,8):(1@0,1@1), (3,7))"), "(3,7)");
    assert_eq!(eval_line("index((4,8):(1@0,1@1), 5)"), "(1,1)");
    assert_eq!(eval_line("size((4,8):(1@0,1@1))"), "32");
    assert_eq!(eval_line("shape((4,8):(1@0,1@1))"), "(4,8)");
    assert!(eval_line("index((4,8):(1@0,1@1), (4,0))").starts_with("error: value:"));
}

/// `make_basis_like` of a nested shape gives nested bases, printed innermost mode first
/// (CuTe's `E<1,0>` prints as `1@0@1`); the identity maps each coordinate to itself.
#[test]
fn nested_identity_is_the_identity() {
    let shape: IntTuple = "(2,(3,4))".parse().unwrap();
    let id = identity("(2,(3,4))");
    assert_eq!(id.to_string(), "(2,(3,4)):(1@0,(1@0@1,1@1@1))");
    for k in 0..24 {
        assert_eq!(
            id.index_of(k).unwrap().as_tuple().leaves(),
            &idx2crd(&shape, k)[..]
        );
    }
    assert_eq!(
        eval_line("index(make_identity_layout((2,(3,4))), (1,(2,3)))"),
        "(1,(2,3))"
    );
    // a scalar shape: one coordinate mode
    assert_eq!(eval_line("make_identity_layout(8)"), "8:1@0");
    assert_eq!(eval_line("index(8:1@0, 6)"), "6");
}

/// Composition scales the bases: a 2x4 sub-grid taking every other column of a 4x8
/// identity, and the tiles of a zipped division, as coordinates of the original.
#[test]
fn composition_and_division() {
    assert_eq!(
        eval_line("compose((4,8):(1@0,1@1), (2,4):(1,8))"),
        "(2,4):(1@0,2@1)"
    );
    assert_eq!(
        eval_line("zipped_divide((4,8):(1@0,1@1), [2:1,4:1])"),
        "((2,4),(2,2)):((1@0,1@1),(2@0,4@1))"
    );
    assert_eq!(
        eval_line("tiled_divide((4,8):(1@0,1@1), [2:1,4:1])"),
        "((2,4),2,2):((1@0,1@1),2@0,4@1)"
    );
    assert_eq!(
        eval_line("divide((4,8):(1@0,1@1), 8:1)"),
        "((4,2),4):((1@0,1@1),2@1)"
    );
    assert_eq!(
        eval_line("compose((4,8):(1@0,1@1), (2,2))"),
        "(2,2):(1@0,1@1)"
    );
    assert_eq!(
        eval_line("coalesce((2,4,3):(1@0,2@0,1@1))"),
        "(8,3):(1@0,1@1)"
    );
    assert_eq!(
        eval_line("get(((2,4),(2,2)):((1@0,1@1),(2@0,4@1)), 1)"),
        "(2,2):(2@0,4@1)"
    );
    let z = identity("(4,8)")
        .zipped_divide(&[Layout::leaf(2, 1).unwrap(), Layout::leaf(4, 1).unwrap()])
        .unwrap();
    assert_eq!(
        z.index(&Coord::new(((1, 3), (1, 1))).unwrap())
            .unwrap()
            .to_string(),
        "(3,7)"
    );
}

/// Padded tilings work as on integer layouts: dividing 6 by 4 runs past the shape, and
/// the coordinates past the edge are what a predicate compares with the shape.
#[test]
fn padded_division_gives_coordinates_past_the_edge() {
    let d = eval_line("zipped_divide(make_identity_layout((6,4)), [4:1,4:1])");
    let integer = eval_line("zipped_divide((6,4):(1,6), [4:1,4:1])");
    assert_eq!(
        d.starts_with("error"),
        integer.starts_with("error"),
        "{d} / {integer}"
    );
}

#[test]
fn malformed_coordinate_layouts_are_errors() {
    assert_eq!(
        eval_line("(4,8):(1@0,3)"),
        "error: value: stride 3 of leaf 1 has no basis: a coordinate layout's strides are k@i or 0"
    );
    assert!(eval_line("(2,3):(1@0,1@0@0)").contains("integer or a tuple"));
    assert!(eval_line("(4,8):(1@0)").contains("not congruent"));
    assert!(eval_line("(4,8):(1@,1@1)").starts_with("error: syntax:"));
    assert!(eval_line("(4,8):(1@0,1@1@1@1@1@1@1@1@1@1)").starts_with("error: value:"));
    assert_eq!(
        eval_line("cosize((4,8):(1@0,1@1))"),
        "error: type: cosize does not take a coordinate layout ((4,8):(1@0,1@1))"
    );
    assert!(eval_line("logical_product((4,8):(1@0,1@1), 2:1)").starts_with("error: type:"));
    // zero strides carry no basis
    assert_eq!(eval_line("(4,8):(1@0,0)"), "(4,8):(1@0,0)");
    assert_eq!(eval_line("index((4,8):(1@0,0), 7)"), "3");
}

#[test]
fn notation_round_trips() {
    for text in [
        "(4,8):(1@0,1@1)",
        "(2,(3,4)):(1@0,(1@0@1,1@1@1))",
        "((2,4),(2,2)):((1@0,1@1),(2@0,4@1))",
        "(3,5):(0,2@1)",
    ] {
        let l: CoordLayout = text.parse().unwrap();
        assert_eq!(l.to_string(), text);
        assert_eq!(eval_line(text), text);
    }
}

/// A random shape of rank 1..=3 with extents 1..=8 and a tiler of one tile per mode.
fn shape_and_tiles() -> impl Strategy<Value = (Vec<u64>, Vec<(u64, u64)>)> {
    prop::collection::vec(1u64..=8, 1..=3).prop_flat_map(|ext| {
        let n = ext.len();
        (
            Just(ext),
            prop::collection::vec((1u64..=4, 1u64..=3), 1..=n),
        )
    })
}

proptest! {
    #![proptest_config(config())]
    /// For every operation, the identity layout transformed gives at each point the
    /// coordinate that the same operation gives on a "gapped" integer layout of the shape
    /// (strides with a gap between modes, so, like the coordinate modes, no two modes
    /// merge), decoded back into a coordinate; and the two fail together.
    #[test]
    fn identity_follows_the_integer_algebra((ext, tiles) in shape_and_tiles(), op in 0usize..4) {
        let shape = Shape::new(ext.clone()).unwrap();
        let mut gaps = vec![1u64; ext.len()];
        for k in 1..ext.len() {
            gaps[k] = gaps[k - 1] * ext[k - 1] * 1024;
        }
        let gapped = Layout::new(shape, strideweave::Stride::new(gaps.clone()).unwrap()).unwrap();
        let id = CoordLayout::identity(&shape).unwrap();
        let tiles: Vec<Layout> = tiles.iter().map(|&(s, d)| Layout::leaf(s, d).unwrap()).collect();
        let (a, b) = match op {
            0 => (gapped.zipped_divide(&tiles).map_err(drop), id.zipped_divide(&tiles).map_err(drop)),
            1 => (gapped.tiled_divide(&tiles).map_err(drop), id.tiled_divide(&tiles).map_err(drop)),
            2 => (gapped.compose(&tiles).map_err(drop), id.compose(&tiles).map_err(drop)),
            _ => (gapped.divide(&tiles[0]).map_err(drop), id.divide(&tiles[0]).map_err(drop)),
        };
        prop_assert_eq!(a.is_ok(), b.is_ok());
        if let (Ok(a), Ok(b)) = (a, b) {
            prop_assert_eq!(a.shape(), b.shape());
            for k in 0..a.size() {
                let index = a.index_of(k).unwrap();
                let n = ext.len();
                let want: Vec<u64> = (0..n)
                    .map(|m| if m + 1 == n { index / gaps[m] } else { index / gaps[m] % (1024 * ext[m]) })
                    .collect();
                let got = *b.index_of(k).unwrap().as_tuple();
                // components the result does not use are left out (trailing) or 0
                let g = got.leaves();
                prop_assert_eq!(g, &want[..g.len()], "key {}", k);
                prop_assert!(want[g.len()..].iter().all(|&x| x == 0));
            }
        }
    }
}

/// CuTe's "TMA tensors" page (0z_tma_tensors.md): `(4,5):(_1@0,_1@1)` maps `(i,j)` to
/// `(i,j)`, and `(4,5):(_1@1,_1@0)` to `(j,i)`.
#[test]
fn cute_tma_tensor_page_tables() {
    let a: CoordLayout = "(4,5):(1@0,1@1)".parse().unwrap();
    let b: CoordLayout = "(4,5):(1@1,1@0)".parse().unwrap();
    for i in 0..4u64 {
        for j in 0..5u64 {
            let c = Coord::new((i, j)).unwrap();
            assert_eq!(a.index(&c).unwrap().to_string(), format!("({i},{j})"));
            assert_eq!(b.index(&c).unwrap().to_string(), format!("({j},{i})"));
        }
    }
}

/// The same page's linear combination `2*2@1@0 + 3*1@1 + 4*5@1 + 7*1@0@0`, which it
/// evaluates to the coordinate `((7,4),23)`.
#[test]
fn cute_tma_tensor_page_linear_combination() {
    assert_eq!(
        eval_line("index((3,4,5,8):(2@1@0,1@1,5@1,1@0@0), (2,3,4,7))"),
        "((7,4),23)"
    );
}

/// Predication as in CuTe's `0y_predication.md`: tile the identity layout like the data,
/// then an element is in bounds when its coordinate is below the shape. A 6x4 tensor in
/// 4x4 tiles has 2 tiles, 32 slots, of which 24 hold elements.
#[test]
fn identity_tiles_give_predicates_for_partial_tiles() {
    let shape = (6u64, 4u64);
    let id = identity("(6,4)");
    let tiles = [Layout::leaf(4, 1).unwrap(), Layout::leaf(4, 1).unwrap()];
    let z = id.zipped_divide(&tiles).unwrap();
    assert_eq!(z.to_string(), "((4,4),(2,1)):((1@0,1@1),(4@0,0))");
    let mut inside = 0;
    let mut seen = std::collections::BTreeSet::new();
    for k in 0..z.size() {
        let c = z.index_of(k).unwrap();
        let l = c.as_tuple().leaves().to_vec();
        if l[0] < shape.0 && l[1] < shape.1 {
            inside += 1;
            assert!(seen.insert((l[0], l[1])), "each element once");
        }
    }
    assert_eq!((z.size(), inside), (32, 24));
}
