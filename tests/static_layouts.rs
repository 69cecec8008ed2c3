//! Static (typed) layouts and the `layout!` macros (issue 3): each test names the
//! requirement it proves. Compile-time failures are in `ui-tests/` (driven by `tests/ui.rs`).

use strideweave::{
    coord, layout, layout_type, shape, stride, Coord, ErrorKind, IntTree, Layout, Node, Static,
    StaticLayout, C,
};

fn rt(s: &str) -> Layout {
    s.parse().unwrap()
}

#[test]
fn static_layout_value_is_zero_sized_and_copy() {
    let l = layout!((2,(3,4)):(1,(10,100)));
    assert_eq!(std::mem::size_of_val(&l), 0);
    let copy = l;
    assert_eq!(copy, l); // `l` still usable: Copy
    let c = layout!(20:2).compose(layout!((5,4):(4,1)));
    assert_eq!(std::mem::size_of_val(&c), 0);
}

#[test]
fn associated_consts_match_the_runtime_layout() {
    type L = layout_type!((2,(3,4)):(1,(10,100)));
    let r = rt("(2,(3,4)):(1,(10,100))");
    assert_eq!(L::LAYOUT, r);
    assert_eq!(L::SIZE, r.size());
    assert_eq!(L::COSIZE, r.cosize());
    assert_eq!(L::RANK, r.rank());
    assert_eq!(L::DEPTH, r.depth());
    assert_eq!(L::PROFILE, r.profile().as_slice());
    assert_eq!(
        L::PROFILE,
        [Node::Leaf, Node::Push, Node::Leaf, Node::Leaf, Node::Pop]
    );
    // spec: "A gapped layout has a larger index span than size"
    type G = layout_type!((2,3):(1,4));
    assert_eq!((G::SIZE, G::COSIZE), (6, 10));
    // spec: rank-1 layouts have depth 0
    assert_eq!(<layout_type!(20:2)>::DEPTH, 0);
    assert_eq!(<layout_type!(20:2)>::RANK, 1);
}

#[test]
fn associated_consts_are_compile_time_constants() {
    type Tile = layout_type!((8,8):(1,8));
    const SIZE: u64 = Tile::SIZE;
    let buf = [0u8; Tile::COSIZE as usize];
    assert_eq!(SIZE, 64);
    assert_eq!(buf.len(), 64);
    const PROFILE: &[Node] = Tile::PROFILE;
    assert_eq!(PROFILE, [Node::Leaf, Node::Leaf]);
}

#[test]
fn profile_ignores_extents_and_strides() {
    // spec: "Equal hierarchy yields equal profiles"
    assert_eq!(
        <layout_type!((2,(3,4)):(1,(2,6)))>::PROFILE,
        <layout_type!((7,(8,9)):(5,(0,3)))>::PROFILE
    );
}

#[test]
fn static_index_by_coordinate_and_integer() {
    // spec: "Index a nested coordinate"
    let l = layout!((2,(3,4)):(1,(10,100)));
    assert_eq!(l.index(&Coord::new((1, (2, 3))).unwrap()).unwrap(), 321);
    assert_eq!(l.index_leaves(&[1, 2, 3]).unwrap(), 321);
    assert_eq!(l.at(coord!((1, (2, 3)))), 321);
    // spec: "Expand a linear coordinate"
    let m = layout!((3,4):(2,10));
    assert_eq!(m.index_of(5).unwrap(), 14);
    assert_eq!(m.index(&Coord::linear(5)).unwrap(), 14);
    assert_eq!(m.at(coord!(5)), 14);
    assert_eq!(m.at(coord!((2, 1))), 14);
}

#[test]
fn static_index_equals_runtime_index_everywhere() {
    fn check<L: StaticLayout>() {
        let r = L::LAYOUT;
        let l = L::default();
        for i in 0..L::SIZE {
            assert_eq!(l.index_of(i).unwrap(), r.index_of(i).unwrap(), "{r} at {i}");
        }
    }
    check::<layout_type!((2,(3,4)):(1,(10,100)))>();
    check::<layout_type!((8,8):(8,1))>();
    check::<layout_type!(((2,2),(3,(1,5))):((1,30),(2,(0,6))))>();
    check::<layout_type!(17:3)>();
}

#[test]
fn static_out_of_domain_index_is_an_error_value() {
    // spec: "Reject an out-of-domain coordinate"
    let l = layout!((3,4):(2,10));
    for err in [
        l.index(&Coord::new((3, 0)).unwrap()).unwrap_err(),
        l.index_of(12).unwrap_err(),
        l.index_leaves(&[3, 0]).unwrap_err(),
        l.index_leaves(&[1]).unwrap_err(),
    ] {
        assert_eq!(err.kind(), ErrorKind::Value);
    }
    assert!(l
        .index_of(12)
        .unwrap_err()
        .message()
        .contains("outside the shape domain"));
}

#[test]
fn static_converts_to_and_equals_runtime_layout() {
    let l = layout!((2,(3,4)):(1,(10,100)));
    let r: Layout = l.into();
    assert_eq!(r, rt("(2,(3,4)):(1,(10,100))"));
    assert_eq!(l, r);
    assert_eq!(r, l);
    assert_eq!(l.layout(), r);
    assert_ne!(l, rt("(2,(3,4)):(1,(10,101))"));
    assert_eq!(l.to_string(), "(2,(3,4)):(1,(10,100))");
    assert_eq!(format!("{l:?}"), "StaticLayout((2,(3,4)):(1,(10,100)))");
}

#[test]
fn hand_written_type_is_the_macro_type() {
    type Hand = Static<(C<2>, (C<3>, C<4>)), (C<1>, (C<10>, C<100>))>;
    let hand: Hand = layout!((2,(3,4)):(1,(10,100)));
    let _same: layout_type!((2,(3,4)):(1,(10,100))) = hand;
    let built = Static::from_trees(shape!((2, (3, 4))), stride!((1, (10, 100))));
    assert_eq!(built, hand);
    assert_eq!(<(C<2>, (C<3>, C<4>))>::tuple().to_string(), "(2,(3,4))");
}

#[test]
fn rank_one_forms_are_equal() {
    // notation: `20` is `(20)`
    assert_eq!(layout!(20:2), layout!((20):(2)));
    assert_eq!(layout!(20:2).layout(), rt("20:2"));
}

#[test]
fn shape_only_form_has_compact_column_major_strides() {
    assert_eq!(layout!((4, 8)).to_string(), "(4,8):(1,4)");
    assert_eq!(layout!((4, (2, 3))).to_string(), "(4,(2,3)):(1,(4,8))");
    assert_eq!(layout!(7).to_string(), "7:1");
    assert_eq!(
        layout!((4, (2, 3))).layout(),
        Layout::col_major(strideweave::Shape::new((4, (2, 3))).unwrap()).unwrap()
    );
}

#[test]
fn static_compose_matches_runtime_and_spec() {
    // spec: "Compose two layouts"
    let c = layout!(20:2).compose(layout!((5,4):(4,1)));
    assert_eq!(c, rt("(5,4):(8,2)"));
    let a = layout!((4,6):(1,4));
    let b = layout!((2,3):(3,1));
    assert_eq!(
        a.compose(b),
        rt("(4,6):(1,4)").compose(&rt("(2,3):(3,1)")).unwrap()
    );
}

#[test]
fn static_complement_matches_runtime_and_spec() {
    // spec: "Complement a gapped injective layout"
    assert_eq!(layout!((2,2):(1,6)).complement::<24>(), rt("(3,2):(2,12)"));
    assert_eq!(
        layout!((4,2):(2,16)).complement::<64>(),
        rt("(4,2):(2,16)").complement(64).unwrap()
    );
}

#[test]
fn static_divisions_match_runtime_and_spec() {
    // spec: "Divide one layout"
    let d = layout!((4,2,3):(2,1,8)).divide(layout!(4:2));
    assert_eq!(d, rt("((2,2),(2,3)):((4,1),(2,8))"));
    let a = rt("(8,6):(1,8)");
    let tiles = [rt("4:1"), rt("3:2")];
    let s = layout!((8,6):(1,8));
    assert_eq!(
        s.zipped_divide((layout!(4:1), layout!(3:2))),
        a.zipped_divide(&tiles).unwrap()
    );
    assert_eq!(
        s.tiled_divide((layout!(4:1), layout!(3:2))),
        a.tiled_divide(&tiles).unwrap()
    );
}

#[test]
fn static_products_match_runtime() {
    let (a, b) = (layout!((2,2):(1,2)), layout!((3,4):(1,3)));
    let (ra, rb) = (a.layout(), b.layout());
    assert_eq!(a.logical_product(b), ra.logical_product(&rb).unwrap());
    assert_eq!(a.blocked_product(b), ra.blocked_product(&rb).unwrap());
    assert_eq!(a.raked_product(b), ra.raked_product(&rb).unwrap());
}

/// The product rule ("products whose copies of A would overlap one another or A" are an
/// error) runs in the compiler too; where it passes, static and runtime agree, including
/// the cases the check has to examine (`size(A)*cosize(B)` within A's span) and a
/// broadcast A, whose stride-0 modes are its own. The failing case is the trybuild test
/// `ui-tests/fail/static_product_overlap.rs`.
#[test]
fn static_products_pass_the_overlap_check_where_the_runtime_does() {
    let (a, b) = (layout!((2,2):(1,4)), layout!(2:1));
    let (ra, rb) = (a.layout(), b.layout());
    assert_eq!(a.logical_product(b).to_string(), "((2,2),2):((1,4),2)");
    assert_eq!(a.logical_product(b), ra.logical_product(&rb).unwrap());
    assert_eq!(a.blocked_product(b), ra.blocked_product(&rb).unwrap());
    assert_eq!(a.raked_product(b), ra.raked_product(&rb).unwrap());
    assert_eq!(a.zipped_product((b,)), ra.zipped_product(&[rb]).unwrap());
    let (c, d) = (layout!(3:0), layout!(4:1));
    assert_eq!(c.logical_product(d).to_string(), "(3,4):(0,1)");
    assert_eq!(
        c.logical_product(d),
        c.layout().logical_product(&d.layout()).unwrap()
    );
}

#[test]
fn static_coalesce_filter_and_inverses_match_runtime() {
    let l = layout!((2,(1,4),3):(1,(7,2),8));
    let r = l.layout();
    assert_eq!(l.coalesce(), r.coalesce());
    assert_eq!(l.filter(), r.filter());
    let p = layout!((4,2):(2,1));
    assert_eq!(p.right_inverse(), p.layout().right_inverse().unwrap());
    assert_eq!(p.left_inverse(), p.layout().left_inverse().unwrap());
}

#[test]
fn static_algebra_results_compose_further() {
    // a static algebra result is itself a static layout
    let tiles = layout!((64,64):(1,64)).zipped_divide((layout!(8:1), layout!(8:1)));
    assert_eq!(tiles, rt("((8,8),(8,8)):((1,64),(8,512))"));
    let first = tiles.compose(layout!(64:1));
    assert_eq!(first.layout(), tiles.layout().compose(&rt("64:1")).unwrap());
    type T = strideweave::static_layout::ZippedDivided<
        layout_type!((64,64):(1,64)),
        (layout_type!(8:1), layout_type!(8:1)),
    >;
    assert_eq!(T::SIZE, 4096);
    assert_eq!(T::RANK, 2);
}

#[test]
fn static_broadcast_matches_spec() {
    // spec: "Widen a nested singleton leaf"
    let b = layout!((2,(1,3)):(1,(2,2))).broadcast_to(shape!((2, (4, 3))));
    assert_eq!(b, rt("(2,(4,3)):(1,(0,2))"));
}

#[test]
fn runtime_form_checks_structure_at_compile_time_and_values_at_run_time() {
    let n = 6usize;
    let l = layout!(({n},4):(1,{n})).unwrap();
    assert_eq!(l, rt("(6,4):(1,6)"));
    let shape_only = layout!(({ n }, (2, { n - 3 }))).unwrap();
    assert_eq!(shape_only, rt("(6,(2,3)):(1,(6,12))"));
}

#[test]
fn runtime_form_value_errors_are_values_not_panics() {
    let zero = 0u32;
    let e = layout!(({zero},4):(1,2)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Value);
    assert!(e.message().contains("extent 0"), "{e}");
    let neg = -2i64;
    let e = layout!((3,4):(1,{neg})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Value);
    assert!(e.message().contains("-2"), "{e}");
    let big = u64::MAX;
    let e = layout!(({ big }, { big })).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Value);
    let huge = u128::MAX;
    assert!(layout!(({ huge }, 2)).is_err());
}

#[test]
fn runtime_form_evaluates_each_leaf_once_in_order() {
    let mut seen = Vec::new();
    let mut next = |v: u64| {
        seen.push(v);
        v
    };
    let l = layout!(({next(2)},{next(3)}):({next(1)},{next(2)})).unwrap();
    assert_eq!(l, rt("(2,3):(1,2)"));
    assert_eq!(seen, [2, 3, 1, 2]);
}

#[test]
fn generic_kernel_instantiated_through_layout_type() {
    fn gather<T: StaticLayout>(src: &[u32]) -> Vec<u32> {
        (0..T::SIZE)
            .map(|i| src[T::default().index_of(i).unwrap() as usize])
            .collect()
    }
    let src: Vec<u32> = (0..64).collect();
    assert_eq!(gather::<layout_type!((2,2):(1,8))>(&src), [0, 1, 8, 9]);
    assert_eq!(gather::<layout_type!((2,2):(8,1))>(&src), [0, 8, 1, 9]);
}

/// Issue 9 item 4: static trees as wide as the runtime capacity. A valid 13-mode static
/// layout is accepted (tuples used to stop at 12) and a 32-leaf one works.
#[test]
fn static_trees_hold_up_to_32_flat_modes() {
    let l13 = layout!((1,2,1,2,1,2,1,2,1,2,1,2,3):(0,1,0,2,0,4,0,8,0,16,0,32,64));
    assert_eq!(
        l13.layout(),
        rt("(1,2,1,2,1,2,1,2,1,2,1,2,3):(0,1,0,2,0,4,0,8,0,16,0,32,64)")
    );
    type L32 = layout_type!((
        2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1
    ));
    assert_eq!((L32::LEAVES, L32::RANK, L32::SIZE), (32, 32, 1 << 16));
    assert_eq!(
        L32::default().index_of((1 << 16) - 1).unwrap(),
        (1 << 16) - 1
    );
}

/// Issue 9 item 4: static tilers as long as the layout's rank (they stopped at 4).
#[test]
fn static_tilers_reach_the_layout_rank() {
    let a = layout!((2,2,2,2,2,2):(1,2,4,8,16,32));
    let t = (
        layout!(1:1),
        layout!(2:1),
        layout!(1:1),
        layout!(2:1),
        layout!(1:1),
        layout!(2:1),
    );
    let tiles: Vec<Layout> = ["1:1", "2:1", "1:1", "2:1", "1:1", "2:1"]
        .iter()
        .map(|s| rt(s))
        .collect();
    assert_eq!(
        a.zipped_divide(t),
        a.layout().zipped_divide(&tiles).unwrap()
    );
    assert_eq!(a.tiled_divide(t), a.layout().tiled_divide(&tiles).unwrap());
}

/// Issue 9 item 2: algebra written inside `layout!`/`layout_type!` is computed at expansion
/// and equals the runtime algebra.
#[test]
fn macro_algebra_equals_the_runtime_algebra() {
    let z = layout!(zipped_divide((8,8):(8,1), [2:1,4:1]));
    let tiles = [rt("2:1"), rt("4:1")];
    assert_eq!(z, rt("(8,8):(8,1)").zipped_divide(&tiles).unwrap());
    type C = layout_type!(compose(20:2, (5,4):(4,1)));
    assert_eq!(C::LAYOUT, rt("20:2").compose(&rt("(5,4):(4,1)")).unwrap());
    let p = layout!(blocked_product((4,8):(8,1), (2,3):(1,2)));
    assert_eq!(
        p,
        rt("(4,8):(8,1)")
            .blocked_product(&rt("(2,3):(1,2)"))
            .unwrap()
    );
    let nested = layout!(compose(coalesce((2,(1,6)):(1,(6,2))), complement(4:3, 12)));
    let inner = rt("4:3").complement(12).unwrap();
    assert_eq!(
        nested,
        rt("(2,(1,6)):(1,(6,2))")
            .coalesce()
            .compose(&inner)
            .unwrap()
    );
    // the result is an ordinary static layout
    assert_eq!(std::mem::size_of_val(&p), 0);
    assert_eq!(
        p.index_of(1).unwrap(),
        rt("((4,2),(8,3)):((8,32),(1,64))").index_of(1).unwrap()
    );
}

/// Issue 9 item 4: `CoreError` is a `std::error::Error`, so `?` into `Box<dyn Error>` works.
#[test]
fn core_error_converts_into_box_dyn_error() {
    fn leaf(n: u64) -> Result<Layout, Box<dyn std::error::Error>> {
        Ok(Layout::leaf(n, 1)?)
    }
    assert_eq!(leaf(3).unwrap(), rt("3:1"));
    assert_eq!(
        leaf(0).unwrap_err().to_string(),
        "extents must be at least 1"
    );
}

/// Issue 9 item 4: `"(2,2)".parse::<Layout>()` takes a shape alone, as `layout!((2,2))`.
#[test]
fn parsing_a_shape_alone_gives_compact_column_major_strides() {
    assert_eq!(rt("(2,2)"), layout!((2, 2)));
    assert_eq!(rt("(4,(2,3))"), layout!((4, (2, 3))));
    assert_eq!(rt("7"), layout!(7));
    assert!("(2,0)".parse::<Layout>().is_err());
    assert!("(2,2) x".parse::<Layout>().is_err());
}
