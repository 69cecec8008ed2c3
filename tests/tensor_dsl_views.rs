//! Tensor construction, access and views (issue: tensors as a kernel language, items 1
//! and 2): the one construction check, element access by key and coordinate, slicing
//! with `All`, modes, flatten/group/compose, and static views that stay static; plus the
//! static layouts' `get`/`mode`/`slice`/`concat`/`append`.

use proptest::prelude::*;
use strideweave::static_layout::structure::{Appended, Concat, Mode, Modes};
use strideweave::tensor::{All, Fragment, Tensor};
use strideweave::{layout, layout_type, Coord, Layout, Shape, StaticLayout, StaticStructure};

/// Bad input: a layout larger than the data is an error naming the cosize and the length.
#[test]
fn construction_checks_the_cosize_once() {
    let data = [0u8; 11];
    let e = Tensor::new(&data[..], "(3,4):(1,3)".parse::<Layout>().unwrap()).unwrap_err();
    assert_eq!(
        e.message(),
        "tensor layout (3,4):(1,3) has cosize 12 but the data holds 11 elements"
    );
    let e = Tensor::new(&data[..], layout!((3,4):(4,1))).unwrap_err();
    assert!(e.message().contains("cosize 12") && e.message().contains("11 elements"));
    assert!(Tensor::new(&data[..], "(3,4):(0,2)".parse::<Layout>().unwrap()).is_ok());
}

/// Access: `t[k]`, `get`, `at` and `get_key` agree with the layout's index; keys and
/// coordinates outside the shape are `None` (and `at` panics, like slice indexing).
#[test]
fn access_by_key_and_coordinate() {
    let l: Layout = "(2,(3,4)):(1,(10,100))".parse().unwrap();
    let data: Vec<u32> = (0..l.cosize() as u32).collect();
    let t = Tensor::new(&data[..], l).unwrap();
    for k in 0..l.size() {
        let want = l.index(&Coord::linear(k)).unwrap() as u32;
        assert_eq!(t[k as usize], want);
        assert_eq!(t.get_key(k), Some(&want));
        assert_eq!(t.get(k), Some(&want));
    }
    assert_eq!(*t.at((1, (2, 3))), 321);
    assert_eq!(t.get((1, 11)), Some(&321));
    assert_eq!(t.get((2, 0)), None);
    assert_eq!(t.get((0, (3, 0))), None);
    assert_eq!(t.get_key(24), None);
    assert!(std::panic::catch_unwind(|| t[24]).is_err());
    let s = Tensor::new(&data[..], layout!((2,(3,4)):(1,(10,100)))).unwrap();
    assert_eq!((s[23], *s.at((1, (2, 3)))), (321, 321));
}

/// Writable access through every engine: `&mut [T]`, `Vec<T>` and a fragment.
#[test]
fn writes_through_every_engine() {
    let mut buf = [0i32; 6];
    let mut t = Tensor::new(&mut buf[..], "(2,3):(3,1)".parse::<Layout>().unwrap()).unwrap();
    t[1] = 5; // key 1 = (1,0) -> offset 3
    *t.at_mut((0, 2)) = 7;
    *t.get_mut((1, 2)).unwrap() = 9;
    assert_eq!(buf, [0, 0, 7, 5, 0, 9]);
    let mut v = Tensor::new(vec![0u8; 4], layout!((2,2):(2,1))).unwrap();
    v[1] = 1;
    assert_eq!(v.data(), &[0, 0, 1, 0]);
    type Regs = layout_type!((2,2):(1,2));
    let mut f: Fragment<f64, Regs, 4> = Fragment::filled(1.5);
    f[3] += 1.0;
    assert_eq!(f.data(), &[1.5, 1.5, 1.5, 2.5]);
    assert_eq!(std::mem::size_of_val(&f), 32);
}

/// Scenario: slicing keeps the modes marked `All` (their hierarchy kept, nested items
/// flattened into the result, as CuTe's slice) and fixes the others.
#[test]
fn slicing_with_all() {
    let l: Layout = "(3,(2,4),5):(1,(3,6),24)".parse().unwrap();
    let data: Vec<u32> = (0..l.cosize() as u32).collect();
    let t = Tensor::new(&data[..], l).unwrap();
    let s = t.slice((All, 1, 2)).unwrap();
    assert_eq!(s.layout().to_string(), "3:1");
    assert_eq!(
        s[2],
        2 + l.index(&Coord::new((0, 1, 2)).unwrap()).unwrap() as u32
    );
    let s = t.slice((2, (All, 3), All)).unwrap();
    assert_eq!(s.layout().to_string(), "(2,5):(3,24)");
    assert_eq!(
        s[1],
        l.index(&Coord::new((2, (1, 3), 0)).unwrap()).unwrap() as u32
    );
    let s = t.slice((All, All, 4)).unwrap();
    assert_eq!(s.layout().to_string(), "(3,(2,4)):(1,(3,6))");
    let all = t.slice(All).unwrap();
    assert_eq!(*all.layout(), l);
    let point = t.slice((1, 5, 2)).unwrap();
    assert_eq!(
        (point.size(), point[0]),
        (1, t.get((1, 5, 2)).copied().unwrap())
    );
    // errors name the coordinate (with `_`) and the layout
    let e = t.slice((All, 8, 0)).unwrap_err();
    assert!(
        e.message().contains("(_,8,0)") && e.message().contains("(3,(2,4),5)"),
        "{e}"
    );
    assert!(t.slice((All, 1)).is_err());
    assert!(t.slice((All, -1, 0)).is_err());
}

/// Scenario: a static view of a static tensor stays static (its layout type is a
/// `StaticLayout`), and equals the runtime view.
#[test]
fn static_views_stay_static() {
    fn is_static<L: StaticLayout>(_: &L) -> Layout {
        L::LAYOUT
    }
    let data: Vec<u16> = (0..64).collect();
    let t = Tensor::new(&data[..], layout!((4,(4,4)):(16,(1,4)))).unwrap();
    let r = t.to_runtime();
    let s = t.slice((2, (All, 1))).unwrap();
    assert_eq!(
        is_static(s.layout()),
        *r.slice((2, (All, 1))).unwrap().layout()
    );
    assert_eq!(s[3], r.slice((2, (All, 1))).unwrap()[3]);
    assert_eq!(
        is_static(t.mode::<1>().layout()),
        *r.mode(1).unwrap().layout()
    );
    assert_eq!(is_static(t.flatten().layout()), *r.flatten().layout());
    assert_eq!(
        is_static(t.flatten().group::<1, 3>().layout()).to_string(),
        "(4,(4,4)):(16,(1,4))"
    );
    let c = t.compose(layout!((2,2):(1,4))).unwrap();
    assert_eq!(
        is_static(c.layout()),
        *r.compose(&"(2,2):(1,4)".parse::<Layout>().unwrap())
            .unwrap()
            .layout()
    );
    let z = t.zipped_divide((layout!(2:1), layout!(8:1))).unwrap();
    assert_eq!(
        is_static(z.layout()).to_string(),
        "((2,8),(2,2)):((16,1),(32,8))"
    );
    let tile = z.slice((All, 3)).unwrap();
    assert_eq!(tile[0], 32 + 8);
}

/// Runtime `mode`, `flatten`, `group`, `compose` on tensors.
#[test]
fn runtime_structural_views() {
    let l: Layout = "(2,(3,4)):(12,(1,3))".parse().unwrap();
    let data: Vec<u32> = (0..24).collect();
    let t = Tensor::new(&data[..], l).unwrap();
    assert_eq!(t.mode(1).unwrap().layout().to_string(), "(3,4):(1,3)");
    assert_eq!(t.flatten().layout().to_string(), "(2,3,4):(12,1,3)");
    assert_eq!(
        t.flatten().group(1, 3).unwrap().layout().to_string(),
        "(2,(3,4)):(12,(1,3))"
    );
    assert!(t.group(1, 3).is_err());
    let c = t.compose(&Shape::new((2, 6)).unwrap()).unwrap();
    assert_eq!((c[0], c[1], c[2]), (0, 12, 1));
    // a composition that runs past the data is an error naming the sizes
    let e = t.compose(&"48:1".parse::<Layout>().unwrap()).unwrap_err();
    assert!(
        e.message().contains("but the data holds 24 elements"),
        "{e}"
    );
}

/// The static layouts' structure equals the runtime layouts' (get, mode, slice, concat,
/// append, flatten, group), computed by the compiler.
#[test]
fn static_structure_matches_runtime() {
    type L = layout_type!((2,(3,4),5):(1,(2,6),24));
    let r = L::LAYOUT;
    assert_eq!(Mode::<L, 1>::LAYOUT, r.mode(1).unwrap());
    assert_eq!(L::default().get::<2>(), r.get(2).unwrap());
    assert_eq!(Modes::<L, 0, 2>::LAYOUT, r.slice(0, 2).unwrap());
    assert_eq!(L::default().slice::<2, 2>().layout(), Layout::EMPTY);
    type M = layout_type!((7,8):(100,700));
    assert_eq!(Concat::<L, M>::LAYOUT, r.concat(&M::LAYOUT).unwrap());
    assert_eq!(Appended::<L, M>::LAYOUT, r.append(&M::LAYOUT).unwrap());
    assert_eq!(L::default().flatten(), r.flatten());
    assert_eq!(L::default().group::<0, 2>(), r.group(0, 2).unwrap());
    assert_eq!(Mode::<M, 0>::SIZE, 7);
}

fn small_layout() -> impl Strategy<Value = Layout> {
    proptest::collection::vec((1u64..=4, 0u64..=9), 1..=4).prop_map(|v| {
        let (e, s): (Vec<u64>, Vec<u64>) = v.into_iter().unzip();
        Layout::new(Shape::new(e).unwrap(), strideweave::Stride::new(s).unwrap()).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Law: slicing mode `m` at `c` and reading key `k` equals reading the full
    /// coordinate, for every kept key (brute force over rank-2 and rank-3 layouts).
    #[test]
    fn slice_reads_the_fixed_coordinate(l in small_layout(), c in 0u64..4) {
        let data: Vec<u64> = (0..l.cosize()).collect();
        let t = Tensor::new(&data[..], l).unwrap();
        if l.rank() >= 2 {
            let c0 = c % l.leaf_extent(0);
            let g = Tensor::new(&data[..], l.group(1, l.rank()).unwrap()).unwrap();
            let s = g.slice((c0, All)).unwrap();
            // rank >= 2: mode 1.. are the other leaves
            let rest = l.slice(1, l.rank()).unwrap();
            for k in 0..rest.size() {
                let want = l.index_leaves(&std::iter::once(c0).chain(leaf_coords(&rest, k)).collect::<Vec<_>>()).unwrap();
                prop_assert_eq!(s[k as usize], want);
            }
        }
        prop_assert_eq!(t.flatten().layout().size(), l.size());
        for k in 0..l.size() {
            prop_assert_eq!(t.flatten()[k as usize], t[k as usize]);
        }
    }
}

fn leaf_coords(l: &Layout, mut k: u64) -> Vec<u64> {
    (0..l.leaf_count())
        .map(|i| {
            let c = k % l.leaf_extent(i);
            k /= l.leaf_extent(i);
            c
        })
        .collect()
}

/// The `eval` calculator knows the layout-level `flatten`, `group`,
/// `max_common_vector` and `max_common_layout`, with errors naming the values.
#[test]
fn eval_flatten_group_and_common_runs() {
    use strideweave::eval::eval_line;
    assert_eq!(
        eval_line("flatten((2,(3,4)):(1,(10,100)))"),
        "(2,3,4):(1,10,100)"
    );
    assert_eq!(
        eval_line("group((2,3,4,5):(1,2,6,24), 1, 3)"),
        "(2,(3,4),5):(1,(2,6),24)"
    );
    assert_eq!(
        eval_line("max_common_vector((4,8):(8,1), (4,8):(16,1))"),
        "8"
    );
    assert_eq!(
        eval_line("max_common_layout((4,8):(8,1), (4,8):(8,1))"),
        "(8,4):(4,1)"
    );
    let e = eval_line("group((2,3):(1,2), 1, 3)");
    assert!(
        e.starts_with("error: value:") && e.contains("group((2,3):(1,2), 1, 3)"),
        "{e}"
    );
}
