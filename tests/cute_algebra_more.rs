//! The rest of CuTe's layout algebra (issue 14, item 3): each operation's documented
//! examples, and property tests of its laws against brute force.

use proptest::prelude::*;
use strideweave::algebra::Arrangement;
use strideweave::eval::eval_line;
use strideweave::int_tuple_ops as t;
use strideweave::{Coord, IntTuple, Layout, Shape, SliceCoord};

fn lay(s: &str) -> Layout {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn tup(s: &str) -> IntTuple {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn eval(l: &Layout, i: u64) -> u64 {
    l.index_of(i).unwrap()
}

fn sorted_image(l: &Layout) -> Vec<u64> {
    let mut v: Vec<u64> = (0..l.size()).map(|i| eval(l, i)).collect();
    v.sort_unstable();
    v
}

fn check(cases: &[(&str, &str)]) {
    for (expr, want) in cases {
        assert_eq!(eval_line(expr), *want, "{expr}");
    }
}

// ---------------------------------------------------------------------------------------
// Examples (CuTe's documentation and source comments, and hand-checked cases)
// ---------------------------------------------------------------------------------------

#[test]
fn arranged_products_and_divides() {
    check(&[
        // Layout Shape (M,N,L), Tiler <TileM,TileN>: the four arrangements of a divide
        (
            "divide((8,8,2):(1,8,64), [2:1,4:1])",
            "((2,4),(4,2),2):((1,2),(8,32),64)",
        ),
        (
            "zipped_divide((8,8,2):(1,8,64), [2:1,4:1])",
            "((2,4),(4,2),2):((1,8),(2,32),64)",
        ),
        (
            "tiled_divide((8,8,2):(1,8,64), [2:1,4:1])",
            "((2,4),4,2,2):((1,8),2,32,64)",
        ),
        (
            "flat_divide((8,8,2):(1,8,64), [2:1,4:1])",
            "(2,4,4,2,2):(1,8,2,32,64)",
        ),
        ("flat_divide(16:1, 4:1)", "(4,4):(1,4)"),
        ("flat_divide(16:1, 4)", "(4,4):(1,4)"),
        // and of a product
        (
            "logical_product((2,2):(1,2), [3:1,2:1])",
            "((2,3),(2,2)):((1,2),(2,1))",
        ),
        (
            "zipped_product((2,2):(1,2), [3:1,2:1])",
            "((2,2),(3,2)):((1,2),(2,1))",
        ),
        (
            "tiled_product((2,2):(1,2), [3:1,2:1])",
            "((2,2),3,2):((1,2),2,1)",
        ),
        (
            "flat_product((2,2):(1,2), [3:1,2:1])",
            "(2,2,3,2):(1,2,2,1)",
        ),
        ("zipped_product((2,2):(1,2), 3:1)", "((2,2),3):((1,2),4)"),
        (
            "tiled_product((2,2):(1,2), (3,2):(1,3))",
            "((2,2),3,2):((1,2),4,12)",
        ),
        ("flat_product((2,2):(1,2), 3:1)", "(2,2,3):(1,2,4)"),
    ]);
}

#[test]
fn tile_to_shape_examples() {
    check(&[
        (
            "tile_to_shape((2,2):(1,2), (4,6))",
            "((2,2),(2,3)):((1,4),(2,8))",
        ),
        // copies repeat along the second mode first
        (
            "tile_to_shape((2,2):(1,2), (4,6), (1,0))",
            "((2,2),(2,3)):((1,12),(2,4))",
        ),
        (
            "tile_to_shape((2,2):(1,2), (4,6), LayoutRight)",
            "((2,2),(2,3)):((1,12),(2,4))",
        ),
        // a rank-1 block padded to the target's rank
        ("tile_to_shape(4:1, (8,3))", "((4,2),(1,3)):((1,4),(0,8))"),
    ]);
    assert!(eval_line("tile_to_shape((2,2):(1,2), (5,6))").contains("does not evenly divide"));
    assert!(eval_line("tile_to_shape((2,2,2):(1,2,4), (4,6))").starts_with("error: value:"));
}

#[test]
fn compact_layout_constructors() {
    check(&[
        ("make_layout((2,(3,4)))", "(2,(3,4)):(1,(2,6))"),
        ("make_layout((2,(3,4)), LayoutLeft)", "(2,(3,4)):(1,(2,6))"),
        (
            "make_layout((2,(3,4)), LayoutRight)",
            "(2,(3,4)):(12,(4,1))",
        ),
        ("make_layout((2,3), (3,1))", "(2,3):(3,1)"),
        // CuTe's examples
        (
            "make_ordered_layout((2,2,2,2), (0,2,3,1))",
            "(2,2,2,2):(1,4,8,2)",
        ),
        (
            "make_layout_like((2,2,2,2):(0,2,4,1))",
            "(2,2,2,2):(0,2,4,1)",
        ),
        (
            "make_layout_like((2,3,4,5):(0,42,1,0))",
            "(2,3,4,5):(0,4,1,0)",
        ),
        // an order per top-level mode: each mode column-major inside
        (
            "make_ordered_layout((2,(3,4)), (1,0))",
            "(2,(3,4)):(12,(1,3))",
        ),
    ]);
    assert!(eval_line("make_ordered_layout((2,3), (0,1,2))").contains("not weakly congruent"));
}

#[test]
fn recast_examples() {
    check(&[
        ("upcast((4,8):(1,4), 2)", "(2,8):(1,2)"),
        ("downcast((2,8):(1,2), 2)", "(4,8):(1,4)"),
        ("recast_layout((4,8):(1,4), 16, 32)", "(2,8):(1,2)"),
        ("recast_layout((4,8):(1,4), 16, 8)", "(8,8):(1,8)"),
        // 24-bit over 16-bit: up by 3, down by 2
        ("recast_layout((6,4):(1,6), 16, 24)", "(4,4):(1,4)"),
        ("upcast((4,3):(0,1), 2)", "(4,2):(0,1)"),
    ]);
    assert!(eval_line("upcast(4:3, 2)").contains("recast divisibility"));
    assert!(eval_line("downcast(4:2, 2)").contains("stride-1 leaf"));
}

#[test]
fn coalesce_nullspace_select_replace() {
    check(&[
        ("coalesce((2,(1,6)):(1,(6,2)), (1,1))", "(2,6):(1,2)"),
        (
            "coalesce(((2,2),(3,4)):((1,2),(4,12)), (1,1))",
            "(4,12):(1,4)",
        ),
        (
            "coalesce(((2,2),(3,4),5):((1,2),(4,12),48), (1,1))",
            "(4,12,5):(1,4,48)",
        ),
        ("coalesce((2,(3,4)):(1,(2,6)), 1)", "24:1"),
        ("nullspace((2,4,3):(0,1,0))", "(2,3):(1,8)"),
        ("nullspace((2,4):(1,2))", "1:0"),
        ("nullspace(4:0)", "4:1"),
        ("select((2,(3,4),5):(1,(2,6),24), 2, 0)", "(5,2):(24,1)"),
        (
            "select((2,(3,4),5):(1,(2,6),24), (1,1))",
            "((3,4),(3,4)):((2,6),(2,6))",
        ),
        (
            "replace((2,3):(1,2), 1, (4,5):(6,24))",
            "(2,(4,5)):(1,(6,24))",
        ),
    ]);
    assert!(eval_line("replace((2,3):(1,2), 2, 4:1)").contains("out of range"));
}

#[test]
fn slicing_and_dicing() {
    check(&[
        ("slice((4,8):(1,4), (_,2))", "4:1"),
        ("slice((4,8):(1,4), (2,_))", "8:4"),
        ("slice((4,(2,3)):(1,(4,8)), (_,(1,_)))", "(4,3):(1,8)"),
        ("slice((4,(2,3)):(1,(4,8)), (3,_))", "((2,3)):((4,8))"),
        ("slice((4,8):(1,4), _)", "(4,8):(1,4)"),
        ("dice((4,8,2):(1,4,32), (_,2,1))", "(8,2):(4,32)"),
        (
            "slice_and_offset((4,(2,3)):(1,(4,8)), (_,(1,2)))",
            "(4:1,20)",
        ),
        ("slice_and_offset((4,8):(1,4), (2,_))", "(8:4,2)"),
    ]);
    assert!(eval_line("slice((4,8):(1,4), (_,8))").contains("outside the shape domain"));
    assert!(eval_line("slice((4,8):(1,4), (_,2,1))").contains("does not match"));
    assert_eq!(eval_line("(_,(2,_))"), "(_,(2,_))");
}

#[test]
fn coordinates_and_int_tuple_helpers() {
    check(&[
        ("idx2crd(23, (2,(3,4)))", "(1,(2,3))"),
        ("idx2crd((1,11), (2,(3,4)))", "(1,(2,3))"),
        ("crd2idx((1,(2,3)), (2,(3,4)))", "23"),
        ("crd2idx((1,(2,3)), (2,(3,4)), (1,(10,100)))", "321"),
        ("crd2idx((1,11), (2,(3,4)))", "23"),
        ("congruent((2,(3,4)), (5,(6,7)))", "true"),
        ("weakly_congruent((1,2), (3,(4,5)))", "true"),
        ("weakly_congruent((3,(4,5)), (1,2))", "false"),
        ("weakly_congruent(7, (3,(4,5)))", "true"),
        ("compatible((4,6), (4,(2,3)))", "true"),
        ("compatible(24, (4,(2,3)))", "true"),
        ("compatible((4,6), (2,12))", "false"),
        ("evenly_divides((8,6), (4,3))", "true"),
        ("evenly_divides((8,6), (3,3))", "false"),
        ("evenly_divides((8,6), 4)", "true"),
        // CuTe's documented shape_div and "modding out" examples
        ("shape_div((4,5,6), 40)", "(1,1,3)"),
        ("shape_div((6,2), 2)", "(3,2)"),
        ("shape_div((3,6,2,8), 72)", "(1,1,1,4)"),
        ("shape_mod((6,2), 3)", "(3,1)"),
        ("shape_mod((3,6,2,8), 9)", "(3,3,1,1)"),
        ("shape_mod((1,2,2,8), 16)", "(1,2,2,4)"),
        ("ceil_div((4,6), 8)", "(1,3)"),
        ("prefix_product((2,(3,4)))", "(1,(2,6))"),
        ("inner_product((2,(3,4)), (1,(2,6)))", "32"),
        ("lex_less((1,0), (0,1))", "false"),
        ("colex_less((1,0), (0,1))", "true"),
        ("elem_less((1,2), (2,3))", "true"),
        ("elem_less((1,3), (2,3))", "false"),
    ]);
    assert!(eval_line("shape_div(6, 4)").contains("does not evenly divide"));
    assert!(eval_line("lex_less((1,2), 3)").starts_with("error: type:"));
}

// ---------------------------------------------------------------------------------------
// Laws against brute force
// ---------------------------------------------------------------------------------------

fn small_layout() -> impl Strategy<Value = Layout> {
    prop::collection::vec(
        (1u64..=5, prop_oneof![1 => Just(0u64), 4 => 1u64..=20]),
        1..=4,
    )
    .prop_map(|l| {
        let s: Vec<String> = l.iter().map(|x| x.0.to_string()).collect();
        let d: Vec<String> = l.iter().map(|x| x.1.to_string()).collect();
        lay(&format!("({}):({})", s.join(","), d.join(",")))
    })
}

/// A compact layout of up to `max_rank` leaves in a random leaf order.
fn compact_layout(max_rank: usize) -> impl Strategy<Value = Layout> {
    prop::collection::vec(1u64..=4, 1..=max_rank)
        .prop_flat_map(|ext| {
            let n = ext.len();
            (Just(ext), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        })
        .prop_map(|(ext, perm)| {
            let mut strides = vec![0u64; ext.len()];
            let mut acc = 1;
            for &i in &perm {
                strides[i] = acc;
                acc *= ext[i];
            }
            let s: Vec<String> = ext.iter().map(|x| x.to_string()).collect();
            let d: Vec<String> = strides.iter().map(|x| x.to_string()).collect();
            lay(&format!("({}):({})", s.join(","), d.join(",")))
        })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("STRIDEWEAVE_PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Digits of `i` in a column-major shape given by its leaves.
fn digits(shape: &[u64], mut i: u64) -> Vec<u64> {
    shape
        .iter()
        .map(|&s| {
            let d = i % s;
            i /= s;
            d
        })
        .collect()
}

proptest! {
    #![proptest_config(config())]

    /// The zipped, tiled and flat arrangements hold the same function as the logical
    /// divide and product, with the leaves reordered: equal sizes and images, and the
    /// flat form has every tile leaf before every rest leaf.
    #[test]
    fn arrangements_regroup_the_same_modes(a in compact_layout(4), s in 1u64..=4) {
        let tile = Layout::leaf(s, 1).unwrap();
        if let Ok(d) = a.divide(&tile) {
            for how in [Arrangement::Zipped, Arrangement::Tiled, Arrangement::Flat] {
                let r = a.divide_by(&tile, how).unwrap();
                prop_assert_eq!(sorted_image(&r), sorted_image(&d));
                // column-major keys walk the same indices: the leaves only regroup
                for i in 0..d.size() {
                    prop_assert_eq!(eval(&r, i), eval(&d, i), "{:?} divide {} by {}", how, a, tile);
                }
            }
        }
        if let Ok(p) = a.logical_product(&tile) {
            let f = a.product_by(&tile, Arrangement::Flat).unwrap();
            for i in 0..p.size() {
                prop_assert_eq!(eval(&f, i), eval(&p, i));
            }
        }
    }

    /// tile_to_shape covers the target: its mode sizes are the target's, and a compact
    /// block tiled column-major gives a bijection onto [0, size).
    #[test]
    fn tile_to_shape_covers_the_shape(b2 in compact_layout(2), k0 in 1u64..=3, k1 in 1u64..=3) {
        let m0 = b2.get(0).unwrap().size() * k0;
        let m1 = if b2.rank() > 1 { b2.get(1).unwrap().size() * k1 } else { k1 };
        let target = Shape::new((m0, m1)).unwrap();
        let r = b2.tile_to_shape(&target, None).unwrap();
        prop_assert_eq!(r.get(0).unwrap().size(), m0);
        prop_assert_eq!(r.get(1).unwrap().size(), m1);
        prop_assert!(t::compatible(target.as_tuple(), &IntTuple::new((m0, m1)).unwrap()));
        if sorted_image(&b2) == (0..b2.size()).collect::<Vec<_>>() {
            prop_assert_eq!(sorted_image(&r), (0..r.size()).collect::<Vec<_>>(), "tile_to_shape({}, {}) = {}", b2, target, r);
        }
    }

    /// make_ordered_layout is compact (a bijection onto [0, size)) and its strides
    /// increase with the order; make_layout_like keeps the stride order and the zeros.
    #[test]
    fn ordered_layouts_are_compact_in_their_order(l in small_layout()) {
        let order = *l.stride().as_tuple();
        let o = Layout::make_ordered_layout(&l.shape(), &order).unwrap();
        let like = l.make_layout_like().unwrap();
        prop_assert_eq!(sorted_image(&o), (0..o.size()).collect::<Vec<_>>());
        let n = l.leaf_count();
        // a leaf earlier in the order ends before a later one starts
        let ends = |x: &Layout, i: usize| x.leaf_stride(i) * x.leaf_extent(i);
        for i in 0..n {
            for j in 0..n {
                if l.leaf_stride(i) < l.leaf_stride(j) {
                    prop_assert!(ends(&o, i) <= o.leaf_stride(j), "make_ordered_layout({}, {}) = {}", l.shape(), order, o);
                }
                if l.leaf_stride(i) != 0 && l.leaf_stride(i) < l.leaf_stride(j) {
                    prop_assert!(ends(&like, i) <= like.leaf_stride(j), "make_layout_like({}) = {}", l, like);
                }
            }
            prop_assert_eq!(like.leaf_stride(i) == 0, l.leaf_stride(i) == 0);
        }
        prop_assert!(like.filter().is_injective());
    }

    /// upcast then downcast round trips where every stride-1 extent is a multiple of n and
    /// every other stride a multiple of n; upcast reads the same bytes: element i of the
    /// wide layout starts at byte (narrow index) n * upcast(i).
    #[test]
    fn upcast_then_downcast_round_trips(ext in prop::collection::vec(2u64..=4, 1..=3), n in 1u64..=4) {
        // a compact layout whose first extent is scaled by n: the stride-1 leaf divides
        let mut e = ext.clone();
        e[0] *= n;
        let l = Layout::col_major(Shape::new(e.clone()).unwrap()).unwrap();
        let up = l.upcast(n).unwrap();
        prop_assert_eq!(up.downcast(n).unwrap(), l);
        prop_assert_eq!(up.size() * n, l.size());
        for i in 0..up.size() {
            prop_assert_eq!(eval(&up, i) * n, eval(&l, i * n));
        }
        prop_assert_eq!(l.recast(8, 8 * n).unwrap(), up);
        prop_assert_eq!(up.recast(8 * n, 8).unwrap(), l);
    }

    /// by-mode coalesce keeps each mode's function and size, and makes each profiled mode
    /// flat.
    #[test]
    fn coalesce_by_mode_keeps_each_mode(a in small_layout(), b in small_layout()) {
        let l = Layout::EMPTY.append(&a).unwrap().append(&b).unwrap();
        let c = l.coalesce_by(&tup("(1,1)")).unwrap();
        prop_assert_eq!(c.rank(), 2);
        for k in 0..2 {
            let (lk, ck) = (l.get(k).unwrap(), c.get(k).unwrap());
            prop_assert_eq!(ck, lk.coalesce());
        }
    }

    /// nullspace: l(nullspace(i)) == 0, and its size is size(l) / size(filter(l)) when
    /// the non-zero strides are injective.
    #[test]
    fn nullspace_maps_to_zero(l in small_layout()) {
        let n = l.nullspace().unwrap();
        for i in 0..n.size() {
            prop_assert_eq!(eval(&l, eval(&n, i)), 0, "nullspace({}) = {}", l, n);
        }
        if l.filter().is_injective() {
            prop_assert_eq!(n.size() * l.filter().size(), l.size());
        }
    }

    /// slice and dice: for every coordinate with `_` in some top-level modes, filling the
    /// holes with the slice's coordinate gives index = offset + slice(j), and dice keeps
    /// exactly the fixed modes.
    #[test]
    fn slice_adds_to_the_offset(l in small_layout(), holes in prop::collection::vec(any::<bool>(), 4), fixed in prop::collection::vec(0u64..5, 4)) {
        let r = l.rank();
        let items: Vec<String> = (0..r)
            .map(|k| if holes[k] { "_".to_string() } else { (fixed[k] % l.leaf_extent(k)).to_string() })
            .collect();
        let text = if r == 1 { items[0].clone() } else { format!("({})", items.join(",")) };
        let c: SliceCoord = text.parse().unwrap();
        let (s, off) = l.slice_and_offset(&c).unwrap();
        let hole_modes: Vec<usize> = (0..r).filter(|&k| holes[k]).collect();
        prop_assert_eq!(s.rank().max(1), hole_modes.len().max(1));
        let ext: Vec<u64> = hole_modes.iter().map(|&k| l.leaf_extent(k)).collect();
        for j in 0..s.size() {
            let dj = digits(&ext, j);
            let full: Vec<String> = (0..r)
                .map(|k| match hole_modes.iter().position(|&h| h == k) {
                    Some(p) => dj[p].to_string(),
                    None => items[k].clone(),
                })
                .collect();
            let coord: Coord = format!("({})", full.join(",")).parse().unwrap();
            prop_assert_eq!(l.index(&coord).unwrap(), off + eval(&s, j), "slice({}, {})", l, c);
        }
        let diced = l.dice(&c).unwrap();
        prop_assert_eq!(diced.size(), l.size() / s.size());
    }

    /// idx2crd and crd2idx are inverse; colex_less orders coordinates like their
    /// column-major index, lex_less like their row-major index.
    #[test]
    fn coordinates_round_trip_and_order(ext in prop::collection::vec(1u64..=4, 1..=3), i in 0u64..64, j in 0u64..64) {
        let shape = Shape::new(ext.clone()).unwrap();
        let size = shape.size();
        let (i, j) = (i % size, j % size);
        let ci = t::idx2crd(&Coord::linear(i), &shape).unwrap();
        let cj = t::idx2crd(&Coord::linear(j), &shape).unwrap();
        prop_assert_eq!(t::crd2idx(&ci, &shape, None).unwrap(), i);
        prop_assert_eq!(t::colex_less(ci.as_tuple(), cj.as_tuple()).unwrap(), i < j);
        let row = Layout::row_major(shape).unwrap();
        let (ri, rj) = (row.index(&ci).unwrap(), row.index(&cj).unwrap());
        if ext.len() > 1 {
            prop_assert_eq!(t::lex_less(ci.as_tuple(), cj.as_tuple()).unwrap(), ri < rj);
        }
        prop_assert!(t::elem_less(ci.as_tuple(), shape.as_tuple()).unwrap());
        prop_assert_eq!(
            t::inner_product(ci.as_tuple(), &t::prefix_product(shape.as_tuple()).unwrap()).unwrap(),
            i
        );
    }

    /// shape_div and shape_mod split a shape: for a compact shape and a divisor d of its
    /// size that divides or is divided by each prefix, size(shape_mod(a, d)) == d and
    /// size(shape_div(a, d)) == size(a) / d.
    #[test]
    fn shape_div_and_mod_split_the_size(ext in prop::collection::vec(prop_oneof![Just(2u64), Just(4), Just(8)], 1..=3), k in 0u32..6) {
        let a = IntTuple::new(ext.clone()).unwrap();
        let size: u64 = ext.iter().product();
        let d = 1u64 << k.min(size.trailing_zeros());
        let q = t::shape_div(&a, &IntTuple::scalar(d)).unwrap();
        let m = t::shape_mod(&a, &IntTuple::scalar(d)).unwrap();
        prop_assert_eq!(q.product().unwrap() * d, size, "shape_div({}, {}) = {}", a, d, q);
        prop_assert_eq!(m.product().unwrap(), d, "shape_mod({}, {}) = {}", a, d, m);
        prop_assert!(t::evenly_divides(&a, &IntTuple::scalar(d)).unwrap());
        prop_assert!(t::compatible(&a, &a) && t::weakly_congruent(&a, &a));
    }
}

/// The static versions are the same `const fn` algebra, evaluated by the compiler.
#[test]
fn static_versions_agree_with_the_runtime_methods() {
    use strideweave::{layout, shape, StaticLayout};
    let a = layout!((8,8,2):(1,8,64));
    let tiles = [lay("2:1"), lay("4:1")];
    let tiler = (layout!(2:1), layout!(4:1));
    assert_eq!(
        a.flat_divide(tiler).layout(),
        a.layout().flat_divide(&tiles).unwrap()
    );
    let b = layout!((2,2):(1,2));
    let bt = [lay("3:1"), lay("2:1")];
    let btiler = (layout!(3:1), layout!(2:1));
    assert_eq!(
        b.zipped_product(btiler).layout(),
        b.layout().zipped_product(&bt).unwrap()
    );
    assert_eq!(
        b.tiled_product(btiler).layout(),
        b.layout().tiled_product(&bt).unwrap()
    );
    assert_eq!(
        b.flat_product(btiler).layout(),
        b.layout().flat_product(&bt).unwrap()
    );
    let w = layout!((4,8):(1,4));
    assert_eq!(w.upcast::<2>().layout(), w.layout().upcast(2).unwrap());
    assert_eq!(w.downcast::<2>().layout(), w.layout().downcast(2).unwrap());
    let z = layout!((2,4,3):(0,1,0));
    assert_eq!(z.nullspace().layout(), z.layout().nullspace().unwrap());
    let like = layout!((2,3,4,5):(0,42,1,0));
    assert_eq!(
        like.make_layout_like().layout(),
        like.layout().make_layout_like().unwrap()
    );
    let c = layout!((2,(1,6)):(1,(6,2)));
    assert_eq!(
        c.coalesce_by(shape!((1, 1))).layout(),
        c.layout().coalesce_by(&tup("(1,1)")).unwrap()
    );
    assert_eq!(
        b.tile_to_shape(shape!((4, 6))).layout(),
        b.layout()
            .tile_to_shape(&Shape::new((4, 6)).unwrap(), None)
            .unwrap()
    );
}

/// A value near a power of two or near u64::MAX, or small: stresses overflow paths.
fn wide_value() -> impl Strategy<Value = u64> {
    prop_oneof![
        1u64..=6,
        (1u32..64).prop_map(|k| 1u64 << k),
        (2u32..64).prop_map(|k| (1u64 << k) - 1),
        (1u64..=4).prop_map(|k| u64::MAX / k),
    ]
}

/// Up to 4 flat leaves of wide values, shifted right until size and cosize fit.
fn wide_layout() -> impl Strategy<Value = Layout> {
    prop::collection::vec((wide_value(), prop_oneof![Just(0u64), wide_value()]), 1..=4).prop_map(
        |mut leaves| loop {
            let s: Vec<String> = leaves.iter().map(|l| l.0.max(1).to_string()).collect();
            let d: Vec<String> = leaves.iter().map(|l| l.1.to_string()).collect();
            if let Ok(l) = format!("({}):({})", s.join(","), d.join(",")).parse() {
                break l;
            }
            for l in leaves.iter_mut() {
                *l = (l.0 >> 8, l.1 >> 8);
            }
        },
    )
}

proptest! {
    #![proptest_config(config())]

    /// Every new operation, on values near the u64 limit, returns a value or an error of
    /// kind value/type: no panic, no wrapped arithmetic reaching a result (each Ok layout
    /// was validated: size and cosize fit).
    #[test]
    fn new_operations_never_panic_on_huge_values(a in wide_layout(), b in wide_layout(), n in wide_value()) {
        let ok_or_error = |what: &str, r: std::thread::Result<Result<String, strideweave::LayoutError>>| -> Result<(), TestCaseError> {
            match r {
                Err(_) => Err(TestCaseError::fail(format!("{what} panicked"))),
                Ok(Err(e)) => {
                    prop_assert!(e.kind() != strideweave::ErrorKind::Syntax, "{}: {}", what, e);
                    Ok(())
                }
                Ok(Ok(_)) => Ok(()),
            }
        };
        let s = |r: Result<Layout, strideweave::LayoutError>| r.map(|l| l.to_string());
        let run = |f: &dyn Fn() -> Result<String, strideweave::LayoutError>| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        ok_or_error("compose", run(&|| s(a.compose(&b))))?;
        ok_or_error("left_inverse", run(&|| s(a.left_inverse())))?;
        ok_or_error("right_inverse", run(&|| s(a.right_inverse())))?;
        ok_or_error("divide", run(&|| s(a.divide(&b))))?;
        ok_or_error("flat_divide", run(&|| s(a.flat_divide(&[b]))))?;
        ok_or_error("zipped_product", run(&|| s(a.zipped_product(&[b]))))?;
        ok_or_error("flat_product", run(&|| s(a.product_by(&b, Arrangement::Flat))))?;
        ok_or_error("tile_to_shape", run(&|| s(b.tile_to_shape(&a.shape(), None))))?;
        ok_or_error("upcast", run(&|| s(a.upcast(n))))?;
        ok_or_error("downcast", run(&|| s(a.downcast(n))))?;
        ok_or_error("recast", run(&|| s(a.recast(n, 8))))?;
        ok_or_error("nullspace", run(&|| s(a.nullspace())))?;
        ok_or_error("make_layout_like", run(&|| s(a.make_layout_like())))?;
        ok_or_error("make_ordered_layout", run(&|| s(Layout::make_ordered_layout(&a.shape(), b.stride().as_tuple()))))?;
        ok_or_error("coalesce_by", run(&|| s(a.coalesce_by(b.shape().as_tuple()))))?;
        let (x, y) = (*a.shape().as_tuple(), *b.stride().as_tuple());
        ok_or_error("shape_div", run(&|| t::shape_div(&x, &y).map(|v| v.to_string())))?;
        ok_or_error("shape_mod", run(&|| t::shape_mod(&x, &y).map(|v| v.to_string())))?;
        ok_or_error("ceil_div", run(&|| t::ceil_div(&x, &y).map(|v| v.to_string())))?;
        ok_or_error("evenly_divides", run(&|| t::evenly_divides(&x, &y).map(|v| v.to_string())))?;
        ok_or_error("inner_product", run(&|| t::inner_product(&x, &y).map(|v| v.to_string())))?;
        ok_or_error("idx2crd", run(&|| t::idx2crd(&Coord::linear(n), &a.shape()).map(|v| v.to_string())))?;
        ok_or_error("slice", run(&|| {
            let c: SliceCoord = format!("(_{})", ",0".repeat(a.rank() - 1)).parse()?;
            a.slice_and_offset(&c).map(|(l, o)| format!("{l} {o}"))
        }))?;
    }
}

/// `_` in a tiler keeps that mode (CuTe's underscore tile), for composition, division and
/// products; the other arrangements refuse it with a type error.
#[test]
fn underscore_tiles_keep_their_mode() {
    check(&[
        (
            "compose((12,(4,8)):(59,(13,1)), [_, 8:2])",
            "(12,(2,4)):(59,(26,1))",
        ),
        ("compose((8,8):(8,1), [_])", "(8,8):(8,1)"),
        ("divide((8,8):(8,1), [_, 4:1])", "(8,(4,2)):(8,(1,4))"),
        (
            "divide_tiler((8,8):(8,1), [4:1, _])",
            "((4,2),8):((8,32),1)",
        ),
        (
            "logical_product((2,3):(1,2), [_, 2:1])",
            "(2,(3,2)):(1,(2,1))",
        ),
        ("[_,4:1]", "[_,4:1]"),
    ]);
    assert!(eval_line("zipped_divide((8,8):(8,1), [_, 4:1])").starts_with("error: type:"));
    // the same as composing every other mode and keeping this one
    let a = lay("(12,(4,8)):(59,(13,1))");
    let full = a.compose(&[lay("12:1"), lay("8:2")]).unwrap();
    let kept = a.compose_by_mode(&[None, Some(lay("8:2"))]).unwrap();
    assert_eq!(kept.get(1).unwrap(), full.get(1).unwrap());
    assert_eq!(kept.get(0).unwrap(), a.get(0).unwrap());
}
