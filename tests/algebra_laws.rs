//! Property tests of the layout algebra against brute force: every operation is checked
//! by enumerating the layout functions involved, on random hierarchical layouts (extents
//! 1..=6, depth <= 3, up to 8 leaves, strides 0..=24) and on "nice" ones (compact,
//! permuted compact, gapped stride chains, broadcasts) so that admissible cases are common.
//!
//! 256 cases per property by default; `STRIDEWEAVE_PROPTEST_CASES=10000` scales up.

// Parallel arrays (extents, strides, coordinates) are indexed by leaf or mode number.
#![allow(clippy::needless_range_loop)]

use proptest::prelude::*;
use std::collections::{BTreeMap, HashSet};
use strideweave::{Coord, CoreError, IntTuple, Layout, Node, Shape};

fn config() -> ProptestConfig {
    let cases = std::env::var("STRIDEWEAVE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        max_global_rejects: cases.saturating_mul(16).max(4096),
        // the known counterexamples live in the ignored tests, not in regression files
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------

/// A hierarchical item: a leaf `(extent, stride)` or a nested tuple.
#[derive(Clone, Debug)]
enum Item {
    Leaf(u64, u64),
    Nest(Vec<Item>),
}

fn item() -> impl Strategy<Value = Item> {
    let leaf = (1u64..=6, 0u64..=24).prop_map(|(s, d)| Item::Leaf(s, d));
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop::collection::vec(inner, 1..=3).prop_map(Item::Nest)
    })
}

fn count_leaves(items: &[Item]) -> usize {
    items
        .iter()
        .map(|it| match it {
            Item::Leaf(..) => 1,
            Item::Nest(v) => count_leaves(v),
        })
        .sum()
}

/// Top-level items of a layout: rank 1..=3, at most 8 leaves.
fn items() -> impl Strategy<Value = Vec<Item>> {
    prop::collection::vec(item(), 1..=3).prop_filter("at most 8 leaves", |v| count_leaves(v) <= 8)
}

/// Builds shape and stride trees; extents are clamped so the size stays within `budget`.
fn build(items: &[Item], budget: u64) -> (IntTuple, IntTuple) {
    fn rec(it: &Item, sh: &mut IntTuple, st: &mut IntTuple, size: &mut u64, budget: u64) {
        match it {
            Item::Leaf(s, d) => {
                let s = (*s).min(budget / *size).max(1);
                *size *= s;
                sh.push_leaf(s).unwrap();
                st.push_leaf(*d).unwrap();
            }
            Item::Nest(v) => {
                sh.push_node(Node::Push).unwrap();
                st.push_node(Node::Push).unwrap();
                for x in v {
                    rec(x, sh, st, size, budget);
                }
                sh.push_node(Node::Pop).unwrap();
                st.push_node(Node::Pop).unwrap();
            }
        }
    }
    let (mut sh, mut st, mut size) = (IntTuple::EMPTY, IntTuple::EMPTY, 1);
    for it in items {
        rec(it, &mut sh, &mut st, &mut size, budget);
    }
    (sh, st)
}

/// How the strides of a generated layout are chosen.
#[derive(Clone, Copy, Debug)]
enum Flavor {
    /// The random strides of the items.
    Random,
    /// Compact column-major.
    Compact,
    /// A compact chain over the leaves in a random order.
    Permuted,
    /// A chain in a random order with gaps: each stride a multiple (1..=3) of the span below.
    Gapped,
    /// A permuted compact chain with some leaves broadcast (stride 0).
    Broadcast,
}

/// Strides of a chain over the leaves ordered by `keys`, each the span below times `gaps`.
fn chain_strides(extents: &[u64], keys: &[u32], gaps: &[u64]) -> Vec<u64> {
    let mut order: Vec<usize> = (0..extents.len()).collect();
    order.sort_by_key(|&i| (keys[i], i));
    let mut strides = vec![0; extents.len()];
    let mut span = 1u64;
    for (k, &i) in order.iter().enumerate() {
        strides[i] = span * gaps[k];
        span = strides[i] * extents[i];
    }
    strides
}

fn layout_with(
    items: &[Item],
    budget: u64,
    flavor: Flavor,
    keys: &[u32],
    gaps: &[u64],
    zeros: u8,
) -> Layout {
    let (sh, mut st) = build(items, budget);
    let extents = sh.leaves().to_vec();
    let ones = vec![1; extents.len()];
    let strides = match flavor {
        Flavor::Random => st.leaves().to_vec(),
        Flavor::Compact => chain_strides(&extents, &(0..8).collect::<Vec<_>>(), &ones),
        Flavor::Permuted => chain_strides(&extents, keys, &ones),
        Flavor::Gapped => chain_strides(&extents, keys, gaps),
        Flavor::Broadcast => {
            let mut s = chain_strides(&extents, keys, &ones);
            for (i, d) in s.iter_mut().enumerate() {
                if zeros >> i & 1 == 1 {
                    *d = 0;
                }
            }
            s
        }
    };
    for (i, d) in strides.into_iter().enumerate() {
        st = with_leaf(&st, i, d);
    }
    Layout::from_trees(sh, st).expect("generated layouts are valid")
}

/// `t` with leaf `i` replaced (rebuilt through the public push API).
fn with_leaf(t: &IntTuple, i: usize, v: u64) -> IntTuple {
    let mut out = IntTuple::EMPTY;
    let mut leaf = 0;
    for &n in t.recipe() {
        match n {
            Node::Leaf => {
                out.push_leaf(if leaf == i { v } else { t.leaf(leaf) })
                    .unwrap();
                leaf += 1;
            }
            other => out.push_node(other).unwrap(),
        }
    }
    out
}

fn flavor() -> impl Strategy<Value = Flavor> {
    prop_oneof![
        3 => Just(Flavor::Random),
        1 => Just(Flavor::Compact),
        2 => Just(Flavor::Permuted),
        2 => Just(Flavor::Gapped),
        1 => Just(Flavor::Broadcast),
    ]
}

fn layout_of(budget: u64, flavors: BoxedStrategy<Flavor>) -> impl Strategy<Value = Layout> {
    (
        items(),
        flavors,
        prop::collection::vec(any::<u32>(), 8),
        prop::collection::vec(1u64..=3, 8),
        any::<u8>(),
    )
        .prop_map(move |(it, f, keys, gaps, zeros)| {
            layout_with(&it, budget, f, &keys, &gaps, zeros)
        })
}

/// Any layout of size at most `budget`.
fn any_layout(budget: u64) -> impl Strategy<Value = Layout> {
    layout_of(budget, flavor().boxed())
}

/// A layout satisfying CuTe's strong complement conditions (a gapped or compact chain).
fn chain_layout(budget: u64) -> impl Strategy<Value = Layout> {
    layout_of(
        budget,
        prop_oneof![
            Just(Flavor::Compact),
            Just(Flavor::Permuted),
            Just(Flavor::Gapped)
        ]
        .boxed(),
    )
}

/// A compact layout, column-major or over its leaves in a random order.
fn compact_layout(budget: u64) -> impl Strategy<Value = Layout> {
    layout_of(
        budget,
        prop_oneof![Just(Flavor::Compact), Just(Flavor::Permuted)].boxed(),
    )
}

/// A small flat layout whose modes overlap (strides 1..=3): a non-injective B.
fn overlapping_layout() -> impl Strategy<Value = Layout> {
    prop::collection::vec((2u64..=3, 1u64..=3), 2..=3).prop_map(|modes| {
        let s: Vec<String> = modes.iter().map(|m| m.0.to_string()).collect();
        let d: Vec<String> = modes.iter().map(|m| m.1.to_string()).collect();
        format!("({}):({})", s.join(","), d.join(","))
            .parse()
            .unwrap()
    })
}

/// A random permutation of `0..n`.
fn permutation(n: usize, keys: &[u32]) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    p.sort_by_key(|&i| (keys[i % keys.len()], i));
    p
}

// ---------------------------------------------------------------------------------------
// Brute force
// ---------------------------------------------------------------------------------------

/// `l(i)` from the leaves directly (first leaf fastest), independent of `index_of`.
fn eval(l: &Layout, mut i: u64) -> u64 {
    assert!(i < l.size());
    let mut idx = 0;
    for k in 0..l.leaf_count() {
        let s = l.leaf_extent(k);
        idx += (i % s) * l.leaf_stride(k);
        i /= s;
    }
    idx
}

/// Calls `f(A(i))` for `i` in `0..size`, by brute force: an odometer over the leaves (first
/// leaf fastest, as `eval` decodes), one addition per step instead of a decode per index.
fn for_each_image(l: &Layout, mut f: impl FnMut(u64)) {
    let leaves: Vec<(u64, u64)> = (0..l.leaf_count())
        .map(|k| (l.leaf_extent(k), l.leaf_stride(k)))
        .collect();
    let mut digits = vec![0u64; leaves.len()];
    let mut at = 0u64;
    for _ in 0..l.size() {
        f(at);
        for (k, &(extent, stride)) in leaves.iter().enumerate() {
            if digits[k] + 1 < extent {
                digits[k] += 1;
                at += stride;
                break;
            }
            at -= digits[k] * stride;
            digits[k] = 0;
        }
    }
}

/// `[A(0), A(1), .., A(size - 1)]`.
fn image(l: &Layout) -> Vec<u64> {
    let mut out = Vec::with_capacity(l.size() as usize);
    for_each_image(l, |x| out.push(x));
    out
}

/// The image as a multiset, hashed without storing it: two order-independent sums of
/// mixed elements (splitmix64 finalizers), for images too large to sort.
fn image_multiset_hash(l: &Layout) -> (u64, u64) {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let (mut a, mut b) = (0u64, 0u64);
    for_each_image(l, |x| {
        a = a.wrapping_add(mix(x));
        b = b.wrapping_add(mix(x ^ 0x9E37_79B9_7F4A_7C15));
    });
    (a, b)
}

fn sorted_image(l: &Layout) -> Vec<u64> {
    let mut v = image(l);
    v.sort_unstable();
    v
}

fn brute_injective(l: &Layout) -> bool {
    let mut seen = HashSet::new();
    image(l).into_iter().all(|x| seen.insert(x))
}

/// `A(x)` where CuTe defines it: in the domain, or past it along A's last leaf when that
/// leaf has an extent above one (a trailing extent-1 leaf makes the extension ambiguous).
fn eval_ext(a: &Layout, x: u64) -> Option<u64> {
    if x < a.size() {
        return Some(eval(a, x));
    }
    let n = a.leaf_count();
    if n == 0 || a.leaf_extent(n - 1) == 1 {
        return None;
    }
    let expect = a.index_unbounded(x);
    // independent extension: the last leaf absorbs the rest
    let mut rest = x;
    let mut idx = 0u64;
    for k in 0..n {
        let s = a.leaf_extent(k);
        let c = if k + 1 == n { rest } else { rest % s };
        rest /= s;
        idx = idx.checked_add(c.checked_mul(a.leaf_stride(k))?)?;
    }
    assert_eq!(expect, Some(idx), "index_unbounded({a}, {x})");
    Some(idx)
}

/// `(b, c)` as a two-mode layout, built through the notation (not the core's builders).
fn pair(b: &Layout, c: &Layout) -> Layout {
    format!(
        "({},{}):({},{})",
        b.shape(),
        c.shape(),
        b.stride(),
        c.stride()
    )
    .parse()
    .unwrap()
}

/// `i` split into one integer per top-level mode of `l`, first mode fastest.
fn split_modes(l: &Layout, mut i: u64) -> Vec<u64> {
    (0..l.rank())
        .map(|m| {
            let s = l.get(m).unwrap().size();
            let c = i % s;
            i /= s;
            c
        })
        .collect()
}

/// The hierarchical coordinate of integer key `i` (every leaf given explicitly).
fn decode(shape: &IntTuple, i: u64) -> IntTuple {
    let mut rest = i;
    let mut out = IntTuple::EMPTY;
    let mut leaf = 0;
    for &n in shape.recipe() {
        match n {
            Node::Leaf => {
                let s = shape.leaf(leaf);
                out.push_leaf(rest % s).unwrap();
                rest /= s;
                leaf += 1;
            }
            other => out.push_node(other).unwrap(),
        }
    }
    out
}

/// Whether `l` meets CuTe's strong complement conditions for cotarget `m`: its
/// non-trivial leaves sorted by stride form a chain, each stride a multiple of the span
/// below it, and `m` is a multiple of the final span.
fn strong_complement_conditions(l: &Layout, m: u64) -> bool {
    let mut leaves: Vec<(u64, u64)> = (0..l.leaf_count())
        .map(|i| (l.leaf_stride(i), l.leaf_extent(i)))
        .filter(|&(_, s)| s != 1)
        .collect();
    if leaves.iter().any(|&(d, _)| d == 0) {
        return false;
    }
    leaves.sort_unstable();
    let mut span = 1;
    for (d, s) in leaves {
        if d % span != 0 || d < span {
            return false;
        }
        span = d * s;
    }
    m.is_multiple_of(span)
}

fn admissible_compose_error(e: &strideweave::LayoutError) -> bool {
    matches!(
        e.core(),
        Some(
            CoreError::StrideDivisibility { .. }
                | CoreError::ShapeDivisibility { .. }
                | CoreError::ModeOverlap { .. }
                | CoreError::Overflow { .. }
        )
    )
}

// ---------------------------------------------------------------------------------------
// Laws
// ---------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// The test's own `image` odometer lists A(i) for i = 0, 1, .. as `eval` decodes each i.
    #[test]
    fn image_lists_the_layout_in_index_order(a in any_layout(1024)) {
        let want: Vec<u64> = (0..a.size()).map(|i| eval(&a, i)).collect();
        prop_assert_eq!(image(&a), want);
    }

    /// compose(A, s:d)(i) == A(B(i)) for every i < size(B) for a single-mode B; errors are
    /// divisibility or overflow errors.
    #[test]
    fn compose_with_one_mode_is_function_composition(a in any_layout(1024), s in 1u64..=24, d in 0u64..=12) {
        let b = Layout::leaf(s, d).unwrap();
        match a.compose(&b) {
            Ok(r) => {
                prop_assert_eq!(r.size(), b.size());
                for i in 0..b.size() {
                    if let Some(want) = eval_ext(&a, eval(&b, i)) {
                        prop_assert_eq!(eval(&r, i), want, "compose({}, {}) = {} at {}", a, b, r, i);
                    }
                }
            }
            Err(e) => prop_assert!(admissible_compose_error(&e), "compose({}, {}): {}", a, b, e),
        }
    }

    /// compose(A, B) keeps B's modes and composes A with each: R(c) == sum_m (A ∘ B_m)(c_m)
    /// (CuTe's left distributivity); errors are divisibility or overflow errors.
    #[test]
    fn compose_distributes_over_the_modes_of_b(
        a in any_layout(1024),
        b in prop_oneof![any_layout(256), overlapping_layout()],
    ) {
        prop_assert_eq!(a.can_compose(&b).err(), a.compose(&b).err(), "can_compose({}, {})", a, b);
        match a.compose(&b) {
            Ok(r) => {
                prop_assert_eq!(r.size(), b.size());
                if b.rank() > 1 {
                    prop_assert_eq!(r.rank(), b.rank(), "compose keeps B's modes: {}", r);
                    let parts: Vec<Layout> = (0..b.rank()).map(|m| a.compose(&b.get(m).unwrap()).unwrap()).collect();
                    for i in 0..b.size() {
                        let cs = split_modes(&b, i);
                        let want: u64 = parts.iter().zip(&cs).map(|(p, &c)| eval(p, c)).sum();
                        prop_assert_eq!(eval(&r, i), want, "compose({}, {}) = {} at {}", a, b, r, i);
                    }
                } else {
                    // a single (possibly nested) mode: the leaves of B are its modes
                    prop_assert_eq!(image(&r).len() as u64, b.size());
                }
            }
            Err(e) => prop_assert!(admissible_compose_error(&e), "compose({}, {}): {}", a, b, e),
        }
    }

    /// compose(A, B)(i) == A(B(i)) for every i < size(B), as the spec says, for any B.
    #[test]
    fn compose_is_function_composition(
        a in any_layout(1024),
        b in prop_oneof![any_layout(256), overlapping_layout()],
    ) {
        match a.compose(&b) {
            Ok(r) => {
                prop_assert_eq!(r.size(), b.size());
                for i in 0..b.size() {
                    if let Some(want) = eval_ext(&a, eval(&b, i)) {
                        prop_assert_eq!(eval(&r, i), want, "compose({}, {}) = {} at {}", a, b, r, i);
                    }
                }
            }
            Err(e) => prop_assert!(admissible_compose_error(&e), "compose({}, {}): {}", a, b, e),
        }
    }

    /// Where CuTe's divisibility conditions hold by construction (B a compact tile over a
    /// refinement of A's flattened shape), compose succeeds and is A on B's range.
    #[test]
    fn compose_admits_cutes_divisible_tiles(
        a in any_layout(1024),
        splits in prop::collection::vec(1u64..=6, 8),
        keep in 1usize..=16,
    ) {
        let mut refined = Vec::new();
        for k in 0..a.leaf_count() {
            let e = a.leaf_extent(k);
            let f = splits[k];
            if f > 1 && e % f == 0 && e != f {
                refined.push(f);
                refined.push(e / f);
            } else {
                refined.push(e);
            }
        }
        refined.truncate(keep.min(refined.len()));
        let b = Layout::col_major(Shape::new(refined).unwrap()).unwrap();
        let r = a.compose(&b);
        prop_assert!(r.is_ok(), "compose({}, {}): {:?}", a, b, r);
        prop_assert!(a.can_compose(&b).is_ok());
        let r = r.unwrap();
        for i in 0..b.size() {
            prop_assert_eq!(eval(&r, i), eval(&a, i), "compose({}, {}) = {} at {}", a, b, r, i);
        }
    }

    /// Composition with a tiler composes each leading mode and keeps the trailing modes;
    /// a shape is the tiler of its unit-stride tiles.
    #[test]
    fn compose_with_tiler_and_shape_is_by_mode(a in any_layout(1024), sizes in prop::collection::vec(1u64..=6, 3)) {
        let k = a.rank().min(sizes.len());
        let tiles: Vec<Layout> = sizes[..k].iter().map(|&n| Layout::leaf(n, 1).unwrap()).collect();
        let shape = Shape::new(sizes[..k].to_vec()).unwrap();
        let by_tiler = a.compose(&tiles);
        let by_shape = a.compose(&shape);
        prop_assert_eq!(by_tiler.as_ref().ok(), by_shape.as_ref().ok());
        if let Ok(r) = by_tiler {
            prop_assert_eq!(r.rank(), a.rank());
            for m in 0..a.rank() {
                let want = if m < k { a.get(m).unwrap().compose(&tiles[m]).unwrap() } else { a.get(m).unwrap() };
                prop_assert_eq!(r.get(m).unwrap(), want);
            }
        } else {
            prop_assert!((0..k).any(|m| a.get(m).unwrap().compose(&tiles[m]).is_err()));
        }
    }

    /// Where every grouping is admissible and evaluated inside its domain (B and C
    /// injective), composition is associative: both groupings equal A(B(C(i))).
    #[test]
    fn compose_is_associative_inside_the_domains(a in any_layout(4096), b in chain_layout(512), c in chain_layout(16)) {
        let in_domain = (0..c.size()).all(|i| eval(&c, i) < b.size() && eval(&b, eval(&c, i)) < a.size());
        prop_assume!(in_domain);
        let (Ok(ab), Ok(bc)) = (a.compose(&b), b.compose(&c)) else { return Ok(()) };
        let (Ok(ab_c), Ok(a_bc)) = (ab.compose(&c), a.compose(&bc)) else { return Ok(()) };
        for i in 0..c.size() {
            let want = eval(&a, eval(&b, eval(&c, i)));
            prop_assert_eq!(eval(&ab_c, i), want, "(({} o {}) o {})({})", a, b, c, i);
            prop_assert_eq!(eval(&a_bc, i), want, "({} o ({} o {}))({})", a, b, c, i);
        }
    }

    /// Rearranging every leaf by a permutation of ids (plus inserted singletons) moves
    /// each leaf, extent and stride, to its new place.
    #[test]
    fn rearrange_moves_leaves_by_id(l in any_layout(1024), keys in prop::collection::vec(any::<u32>(), 8), ones in 0usize..3) {
        use strideweave::{Tree, TreeItem};
        let n = l.leaf_count();
        let order = permutation(n, &keys);
        let mut items: Vec<TreeItem> = order.iter().map(|&p| Node::id(p)).collect();
        for k in 0..ones {
            items.insert((k * 3) % (items.len() + 1), TreeItem::Leaf);
        }
        let out = Tree::new(items.clone()).unwrap();
        let r = l.rearrange(&out, None).unwrap();
        prop_assert_eq!(r.leaf_count(), n + ones);
        prop_assert_eq!(r.size(), l.size());
        let mut src = order.iter();
        for (k, it) in items.iter().enumerate() {
            match it {
                TreeItem::Leaf => prop_assert_eq!((r.leaf_extent(k), r.leaf_stride(k)), (1, 0)),
                _ => {
                    let &p = src.next().unwrap();
                    prop_assert_eq!((r.leaf_extent(k), r.leaf_stride(k)), (l.leaf_extent(p), l.leaf_stride(p)));
                }
            }
        }
        // leaving out a leaf of extent > 1 is an error
        if let Some(p) = (0..n).find(|&p| l.leaf_extent(p) > 1) {
            let partial: Vec<TreeItem> = (0..n).filter(|&q| q != p).map(Node::id).collect();
            prop_assert!(l.rearrange(&Tree::new(partial).unwrap(), None).is_err());
        }
    }

    /// divide_shape is divide_tiler with unit-stride tiles, and the by-mode logical
    /// product is logical_product on each leading mode, later modes kept.
    #[test]
    fn shape_and_tiler_forms_of_divide_and_product_are_by_mode(a in any_layout(1024), sizes in prop::collection::vec(1u64..=6, 3)) {
        let k = a.rank().min(sizes.len());
        let tiles: Vec<Layout> = sizes[..k].iter().map(|&n| Layout::leaf(n, 1).unwrap()).collect();
        let shape = Shape::new(sizes[..k].to_vec()).unwrap();
        let by_shape = a.divide_shape(&shape).map_err(|e| e.core());
        let by_tiler = a.divide_tiler(&tiles).map_err(|e| e.core());
        prop_assert_eq!(&by_shape, &by_tiler, "divide_shape vs divide_tiler of {}", a);
        let p = a.logical_product_tiler(&tiles);
        match &p {
            Ok(p) => {
                prop_assert_eq!(p.rank(), a.rank());
                for m in 0..a.rank() {
                    let am = a.get(m).unwrap();
                    let want = if m < k { am.logical_product(&tiles[m]).unwrap() } else { am };
                    prop_assert_eq!(image(&p.get(m).unwrap()), image(&want), "mode {} of {}", m, p);
                }
            }
            Err(_) => prop_assert!((0..k).any(|m| a.get(m).unwrap().logical_product(&tiles[m]).is_err())),
        }
    }

    /// (L, complement(L, M)) is injective; complement fails exactly for non-injective L,
    /// size(L) > M, or modes that do not chain; under CuTe's strong conditions it
    /// succeeds and (L, C) is a bijection onto [0, M).
    #[test]
    fn complement_is_disjoint_and_covers_under_strong_conditions(l in any_layout(512), extra in 0u64..64) {
        let m = l.size() + extra;
        let injective = brute_injective(&l);
        match l.complement(m) {
            Ok(c) => {
                prop_assert!(injective, "complement({}, {}) = {} for a non-injective layout", l, m, c);
                let both = pair(&l, &c);
                prop_assert!(brute_injective(&both), "({}, complement = {}) overlaps", l, c);
                prop_assert!(c.cosize() >= 1);
                if strong_complement_conditions(&l, m) {
                    prop_assert_eq!(sorted_image(&both), (0..m).collect::<Vec<_>>(), "({}, {}) vs [0, {})", l, c, m);
                }
            }
            Err(e) => {
                let core = e.core();
                if !injective {
                    prop_assert_eq!(core, Some(CoreError::NotInjective), "{}", e);
                    prop_assert!(e.message().contains("self-overlap"));
                } else {
                    prop_assert!(matches!(core, Some(CoreError::Unchainable { .. })), "{}", e);
                    prop_assert!(e.message().contains("do not chain"), "{}", e);
                    prop_assert!(!strong_complement_conditions(&l, m));
                }
            }
        }
    }

    /// Strong-condition complements always succeed and tile [0, M) exactly.
    #[test]
    fn complement_of_a_chain_tiles_the_cotarget(l in chain_layout(512), factor in 1u64..=4) {
        let span = l.cosize().max(1);
        // the final span of a chain: the largest stride times its extent
        let final_span = (0..l.leaf_count())
            .filter(|&i| l.leaf_extent(i) > 1)
            .map(|i| l.leaf_extent(i) * l.leaf_stride(i))
            .max()
            .unwrap_or(1);
        prop_assert!(final_span >= span);
        let m = final_span * factor;
        prop_assert!(strong_complement_conditions(&l, m));
        let c = l.complement(m);
        prop_assert!(c.is_ok(), "complement({}, {}): {:?}", l, m, c);
        let c = c.unwrap();
        prop_assert_eq!(l.size() * c.size(), m);
        prop_assert_eq!(sorted_image(&pair(&l, &c)), (0..m).collect::<Vec<_>>());
    }

    /// divide(A, B) == compose(A, (B, complement(B, size(A)))), and evaluates as A(B'(i)).
    /// A tile larger than A pads: its complement is one tile, `1:cosize(B)` (CuTe's).
    #[test]
    fn divide_is_compose_with_tile_and_complement(a in any_layout(1024), b in any_layout(64)) {
        let d = a.divide(&b);
        // a tile larger than A pads (CuTe's): the complement skips the size check
        let complement = if b.size() > a.size() {
            strideweave::algebra::complement_unchecked_size(&b, a.size()).map_err(strideweave::LayoutError::from)
        } else {
            b.complement(a.size())
        };
        let via_compose = complement.and_then(|c| {
            let bc = pair(&b, &c);
            a.compose(&bc).map(|r| (r, bc))
        });
        match (d, via_compose) {
            (Ok(d), Ok((r, bc))) => {
                prop_assert_eq!(d.size(), r.size());
                prop_assert_eq!(d.rank(), 2);
                prop_assert_eq!(image(&d), image(&r), "divide({}, {}) = {} vs {}", a, b, d, r);
                prop_assert_eq!(d.get(0).unwrap().size(), b.size());
                for i in 0..bc.size() {
                    if let Some(want) = eval_ext(&a, eval(&bc, i)) {
                        prop_assert_eq!(eval(&d, i), want);
                    }
                }
            }
            // both rejected (divide checks the tile's chain first, so the rules may differ)
            (Err(_), Err(_)) => {}
            // divide also rejects tiles whose strides do not chain exactly: their
            // complement leaves holes, so the tiles would not cover A
            (Err(e), Ok(_)) if matches!(e.core(), Some(CoreError::Unchainable { .. })) => {}
            (d, c) => prop_assert!(false, "divide({}, {}) = {:?} but compose with complement = {:?}", a, b, d, c.map(|x| x.0)),
        }
    }

    /// Coalesce keeps the function (and size) with a flat, fully merged result.
    #[test]
    fn coalesce_keeps_the_function(l in any_layout(1024)) {
        let c = l.coalesce();
        prop_assert_eq!(c.size(), l.size());
        prop_assert_eq!(image(&c), image(&l), "coalesce({}) = {}", l, c);
        prop_assert!(c.depth() <= 1, "coalesce({}) = {} is nested", l, c);
        for k in 0..c.leaf_count() {
            prop_assert!(c.leaf_extent(k) > 1 || c.size() == 1);
            if k + 1 < c.leaf_count() {
                prop_assert!(c.leaf_extent(k) * c.leaf_stride(k) != c.leaf_stride(k + 1), "{} not fully merged", c);
            }
        }
    }

    /// Filter keeps the image set and drops every broadcast leaf.
    #[test]
    fn filter_keeps_the_image_set(l in any_layout(1024)) {
        let f = l.filter();
        let img: HashSet<u64> = image(&l).into_iter().collect();
        let fimg: HashSet<u64> = image(&f).into_iter().collect();
        prop_assert_eq!(&fimg, &img, "filter({}) = {}", l, f);
        let broadcast: u64 = (0..l.leaf_count()).filter(|&i| l.leaf_stride(i) == 0).map(|i| l.leaf_extent(i)).product();
        prop_assert_eq!(f.size() * broadcast, l.size());
        prop_assert!(f.size() == 1 || (0..f.leaf_count()).all(|i| f.leaf_stride(i) != 0));
    }

    /// L(right_inverse(L)(i)) == i; for a bijection onto [0, size) it is the full inverse.
    #[test]
    fn right_inverse_is_a_right_inverse(l in any_layout(1024)) {
        let r = l.right_inverse();
        prop_assert!(r.is_ok(), "right_inverse({}): {:?}", l, r);
        let r = r.unwrap();
        for i in 0..r.size() {
            let x = eval(&r, i);
            prop_assert!(x < l.size(), "right_inverse({}) = {} maps {} outside", l, r, i);
            prop_assert_eq!(eval(&l, x), i, "right_inverse({}) = {}", l, r);
        }
        if sorted_image(&l) == (0..l.size()).collect::<Vec<_>>() {
            prop_assert_eq!(r.size(), l.size(), "right_inverse({}) = {} is not full", l, r);
        }
    }

    /// Broadcast (stride-0) leaves do not shrink the right inverse: it is as large as for
    /// filter(L), which has the same image (CuTe skips stride-0 leaves). Only where the
    /// positive-stride part is injective is the largest right inverse unique in size.
    #[test]
    fn right_inverse_ignores_broadcast_leaves(l in any_layout(1024)) {
        prop_assume!(l.filter().is_injective());
        let r = l.right_inverse().unwrap();
        let rf = l.filter().right_inverse().unwrap();
        prop_assert_eq!(r.size(), rf.size(), "right_inverse({}) = {} but right_inverse(filter) = {}", l, r, rf);
    }

    /// left_inverse(L)(L(i)) == i for injective L with chaining strides.
    #[test]
    fn left_inverse_inverts_chains(l in chain_layout(512)) {
        let r = l.left_inverse();
        prop_assert!(r.is_ok(), "left_inverse({}): {:?}", l, r);
        let r = r.unwrap();
        for i in 0..l.size() {
            prop_assert_eq!(r.index_unbounded(eval(&l, i)), Some(i), "left_inverse({}) = {}", l, r);
        }
    }

    /// Whenever left_inverse returns a layout, it is a left inverse (injective L) or CuTe's
    /// quasi-inverse, `L(R(L(i))) == L(i)`; an injective L is refused only by CuTe's
    /// divisibility condition.
    #[test]
    fn left_inverse_is_correct_whenever_it_succeeds(l in any_layout(512)) {
        match l.left_inverse() {
            Ok(r) => {
                let injective = brute_injective(&l);
                for i in 0..l.size() {
                    let back = r.index_unbounded(eval(&l, i)).unwrap();
                    if injective {
                        prop_assert_eq!(back, i, "left_inverse({}) = {}", l, r);
                    } else {
                        prop_assert!(back < l.size(), "left_inverse({}) = {}", l, r);
                        prop_assert_eq!(eval(&l, back), eval(&l, i), "left_inverse({}) = {}", l, r);
                    }
                }
            }
            Err(e) => prop_assert!(
                !brute_injective(&l) || matches!(e.core(), Some(CoreError::LeftInverseDivisibility { .. })),
                "left_inverse({}): {}", l, e
            ),
        }
    }

    /// Permuting top-level modes and applying the inverse order is the identity.
    #[test]
    fn permute_then_inverse_permute_is_identity(l in any_layout(1024), keys in prop::collection::vec(any::<u32>(), 3)) {
        let order = permutation(l.rank(), &keys);
        let p = l.permute(&order).unwrap();
        for (j, &o) in order.iter().enumerate() {
            prop_assert_eq!(p.get(j).unwrap(), l.get(o).unwrap());
        }
        let mut inverse = vec![0; order.len()];
        for (j, &o) in order.iter().enumerate() {
            inverse[o] = j;
        }
        prop_assert_eq!(p.permute(&inverse).unwrap(), l);
        prop_assert_eq!(p.size(), l.size());
    }

    /// is_injective equals brute force.
    #[test]
    fn is_injective_equals_brute_force(l in any_layout(2048)) {
        prop_assert_eq!(l.is_injective(), brute_injective(&l), "is_injective({})", l);
    }

    /// is_injective equals brute force with wide strides (exercising its peeling, the
    /// difference search and the image search).
    #[test]
    fn is_injective_equals_brute_force_with_wide_strides(
        it in items(),
        strides in prop::collection::vec(prop_oneof![0u64..=64, 0u64..=4096, (1u64..=64).prop_map(|k| k * 97)], 8),
    ) {
        let (sh, mut st) = build(&it, 4096);
        for i in 0..sh.leaf_count() {
            st = with_leaf(&st, i, strides[i]);
        }
        let l = Layout::from_trees(sh, st).unwrap();
        prop_assert_eq!(l.is_injective(), brute_injective(&l), "is_injective({})", l);
    }

    /// uniform_preimage_extent equals the preimage counts found by enumeration.
    #[test]
    fn uniform_preimage_extent_equals_brute_force(l in any_layout(1024), pick in 0usize..4, n_rand in 1u64..64, split in 1u64..=4) {
        let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
        for x in image(&l) {
            *counts.entry(x).or_insert(0) += 1;
        }
        let distinct = counts.len() as u64;
        let n = match pick {
            0 => distinct,
            1 => l.cosize(),
            2 => distinct + 1,
            _ => n_rand,
        };
        let target = if n % split == 0 { Shape::new((split, n / split)).unwrap() } else { Shape::new(n).unwrap() };
        let k = counts.get(&0).copied().unwrap_or(0);
        let uniform = k > 0
            && counts.len() as u64 == n
            && counts.iter().all(|(&x, &c)| x < n && c == k);
        let want = if uniform { Some(k) } else { None };
        prop_assert_eq!(l.uniform_preimage_extent(&target), want, "uniform_preimage_extent({}, {})", l, target);
    }

    /// An integer key equals its decoded hierarchical coordinate, and a per-mode integer
    /// coordinate too; both equal the sum of coordinate times stride.
    #[test]
    fn integer_keys_equal_their_decoded_coordinates(l in any_layout(1024)) {
        let sh = *l.shape().as_tuple();
        for i in 0..l.size() {
            let want = eval(&l, i);
            prop_assert_eq!(l.index_of(i).unwrap(), want);
            prop_assert_eq!(l.index(&Coord::linear(i)).unwrap(), want);
            if !sh.is_scalar() {
                let per_mode = Coord::new(split_modes(&l, i)).unwrap();
                if l.rank() > 1 {
                    prop_assert_eq!(l.index(&per_mode).unwrap(), want, "index({}, {})", l, per_mode);
                }
            }
        }
        prop_assert!(l.index_of(l.size()).is_err());
        prop_assert!(l.index(&Coord::linear(l.size())).is_err());
    }

    /// A hierarchical coordinate (every leaf given) indexes like its integer key.
    #[test]
    fn hierarchical_coordinates_equal_their_integer_keys(l in any_layout(1024)) {
        let sh = *l.shape().as_tuple();
        for i in 0..l.size() {
            let full = Coord::from_tuple(decode(&sh, i)).unwrap();
            let got = l.index(&full);
            prop_assert_eq!(got.as_ref().ok(), Some(&eval(&l, i)), "index({}, {}): {:?}", l, full, got);
        }
    }

    /// parse(print(x)) == x for layouts, shapes, strides and int tuples.
    #[test]
    fn print_then_parse_is_identity(l in any_layout(1 << 20)) {
        let text = l.to_string();
        prop_assert!(!text.contains(' '));
        prop_assert_eq!(text.parse::<Layout>().unwrap(), l);
        prop_assert_eq!(l.shape().to_string().parse::<Shape>().unwrap(), l.shape());
        prop_assert_eq!(l.stride().to_string().parse::<strideweave::Stride>().unwrap(), l.stride());
        let t = *l.stride().as_tuple();
        prop_assert_eq!(t.to_string().parse::<IntTuple>().unwrap(), t);
        let spaced = text.replace(',', " , ").replace(':', " : ");
        prop_assert_eq!(spaced.parse::<Layout>().unwrap(), l);
    }

    /// logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) ∘ B), by brute force.
    #[test]
    fn logical_product_matches_its_definition(a in any_layout(64), b in any_layout(64)) {
        let m = a.size() * b.cosize();
        let c = a.filter().complement(m); // CuTe complements filter(A)
        match a.logical_product(&b) {
            Ok(p) => {
                let c = c.expect("product exists only with a complement");
                prop_assert_eq!(p.rank(), 2);
                prop_assert_eq!(image(&p.get(0).unwrap()), image(&a));
                if a.rank() > 1 || a.shape().as_tuple().is_scalar() {
                    prop_assert_eq!(p.get(0).unwrap(), a);
                }
                prop_assert_eq!(p.size(), a.size() * b.size());
                // mode 1 is C ∘ B; for an injective B that is C(B(j)) (the compose laws
                // cover non-injective B)
                let cb = c.compose(&b).expect("the product exists only if C ∘ B does");
                let b_injective = brute_injective(&b);
                for j in 0..b.size() {
                    let mut want_j = eval(&cb, j);
                    if b_injective {
                        if let Some(x) = eval_ext(&c, eval(&b, j)) {
                            prop_assert_eq!(want_j, x, "complement({}, {}) ∘ {} at {}", a, m, b, j);
                            want_j = x;
                        }
                    }
                    for i in 0..a.size() {
                        prop_assert_eq!(eval(&p, i + a.size() * j), eval(&a, i) + want_j, "logical_product({}, {}) = {}", a, b, p);
                    }
                }
            }
            // rejected because CuTe's copies of A would land on A: check they would
            Err(e) if matches!(e.core(), Some(CoreError::ProductOverlap { .. })) => {
                let cb = c.unwrap().compose(&b).unwrap();
                let cute = Layout::EMPTY.append(&a.filter()).unwrap().append(&cb).unwrap();
                prop_assert!(!brute_injective(&cute), "logical_product({}, {}) rejected, CuTe's copies {} do not overlap", a, b, cute);
            }
            Err(e) => prop_assert!(c.is_err() || c.unwrap().compose(&b).is_err(), "logical_product({}, {}): {}", a, b, e),
        }
    }

    /// With a (permuted) compact A and a chain B the logical product exists and is
    /// injective, and with compact A and B it is a bijection onto [0, size(A)*size(B)).
    #[test]
    fn logical_product_of_chains_is_injective(a in compact_layout(64), b in chain_layout(64)) {
        let p = a.logical_product(&b);
        prop_assert!(p.is_ok(), "logical_product({}, {}): {:?}", a, b, p);
        let p = p.unwrap();
        prop_assert!(brute_injective(&p), "logical_product({}, {}) = {}", a, b, p);
        let compact = |l: &Layout| sorted_image(l) == (0..l.size()).collect::<Vec<_>>();
        if compact(&a) && compact(&b) {
            prop_assert!(compact(&p), "logical_product({}, {}) = {}", a, b, p);
        }
    }

    /// blocked_product: mode k is (A_k, (C∘B)_k) and raked_product mode k is
    /// ((C∘B)_k, A_k), with A and B padded to a common rank and C the complement of A.
    #[test]
    fn blocked_and_raked_products_match_their_definition(a in any_layout(64), b in any_layout(64)) {
        let r = a.rank().max(b.rank());
        let pad = |l: &Layout| {
            let mut s = l.shape().to_string();
            let mut d = l.stride().to_string();
            if l.shape().as_tuple().is_scalar() { s = format!("({s})"); d = format!("({d})"); }
            for _ in l.rank()..r { s.insert_str(s.len() - 1, ",1"); d.insert_str(d.len() - 1, ",0"); }
            format!("{s}:{d}").parse::<Layout>().unwrap()
        };
        let (pa, pb) = (pad(&a), pad(&b));
        prop_assert_eq!(pa.rank(), r);
        let c = pa.filter().complement(pa.size() * pb.cosize());
        let blocked = a.blocked_product(&b);
        let raked = a.raked_product(&b);
        prop_assert_eq!(blocked.is_ok(), raked.is_ok());
        let (Ok(blocked), Ok(raked)) = (blocked, raked) else {
            let overlap = matches!(
                a.blocked_product(&b).unwrap_err().core(),
                Some(CoreError::ProductOverlap { .. })
            );
            // rejected because CuTe's copies of A would land on A, or no C ∘ B exists
            prop_assert!(overlap || c.is_err() || c.unwrap().compose(&pb).is_err());
            return Ok(());
        };
        let c = c.expect("a product exists only with a complement");
        prop_assert_eq!(blocked.size(), a.size() * b.size());
        prop_assert_eq!(blocked.rank(), if r == 1 { 2 } else { r });
        // mode sizes: blocked mode k is (A_k, B_k), raked mode k is (B_k, A_k)
        let sa: Vec<u64> = (0..r).map(|k| pa.get(k).unwrap().size()).collect();
        let sb: Vec<u64> = (0..r).map(|k| pb.get(k).unwrap().size()).collect();
        if r > 1 {
            for k in 0..r {
                let (bk, rk) = (blocked.get(k).unwrap(), raked.get(k).unwrap());
                prop_assert_eq!(bk.rank(), 2);
                prop_assert_eq!(bk.get(0).unwrap().size(), sa[k]);
                prop_assert_eq!(bk.get(1).unwrap().size(), sb[k]);
                prop_assert_eq!(rk.get(0).unwrap().size(), sb[k]);
                prop_assert_eq!(rk.get(1).unwrap().size(), sa[k]);
            }
        }
        let cb_layout = c.compose(&pb).expect("the product exists only if C ∘ B does");
        let b_injective = brute_injective(&b);
        for j in 0..b.size() {
            let mut cb = eval(&cb_layout, j);
            if b_injective {
                if let Some(x) = eval_ext(&c, eval(&b, j)) {
                    prop_assert_eq!(cb, x);
                    cb = x;
                }
            }
            let bj = split_modes(&pb, j);
            for i in 0..a.size() {
                let ai = split_modes(&pa, i);
                let want = eval(&a, i) + cb;
                // linear keys of ((a_k, b_k))_k and ((b_k, a_k))_k, first mode fastest
                let (mut kb, mut kr, mut scale) = (0, 0, 1);
                for k in 0..r {
                    kb += (ai[k] + sa[k] * bj[k]) * scale;
                    kr += (bj[k] + sb[k] * ai[k]) * scale;
                    scale *= sa[k] * sb[k];
                }
                if r == 1 {
                    prop_assert_eq!(kb, i + a.size() * j);
                }
                prop_assert_eq!(eval(&blocked, kb), want, "blocked_product({}, {}) = {}", a, b, blocked);
                prop_assert_eq!(eval(&raked, kr), want, "raked_product({}, {}) = {}", a, b, raked);
            }
        }
    }

    /// zipped_divide and tiled_divide hold exactly divide_tiler's elements, grouped as
    /// ((tiles), (rests), trailing) and ((tiles), rests..., trailing).
    #[test]
    fn zipped_and_tiled_divide_regroup_divide_tiler(
        a in any_layout(1024),
        tiles in prop::collection::vec(any_layout(16), 1..=3),
    ) {
        let k = tiles.len().min(a.rank());
        let tiles = &tiles[..k];
        let dt = a.divide_tiler(tiles);
        let zd = a.zipped_divide(tiles);
        let td = a.tiled_divide(tiles);
        match dt {
            Ok(dt) => {
                let (zd, td) = (zd.unwrap(), td.unwrap());
                // The whole images as multisets: sorted where small, hashed where large
                // (non-dividing tiles with large strides make divided layouts of millions
                // of elements, whose sorting took most of a 10000-case run and 1.3 GB).
                if dt.size() <= 1 << 16 {
                    let want = sorted_image(&dt);
                    prop_assert_eq!(sorted_image(&zd), want.clone());
                    prop_assert_eq!(sorted_image(&td), want);
                } else {
                    let want = image_multiset_hash(&dt);
                    prop_assert_eq!(image_multiset_hash(&zd), want);
                    prop_assert_eq!(image_multiset_hash(&td), want);
                }
                prop_assert_eq!(zd.rank(), 2 + a.rank() - k);
                prop_assert_eq!(td.rank(), 1 + k + a.rank() - k);
                let (zt, zr) = (zd.get(0).unwrap(), zd.get(1).unwrap());
                prop_assert_eq!(zt.rank(), k);
                prop_assert_eq!(td.get(0).unwrap(), zt);
                for m in 0..k {
                    let dm = dt.get(m).unwrap();
                    prop_assert_eq!(dm, a.get(m).unwrap().divide(&tiles[m]).unwrap());
                    let (t, rest) = (dm.get(0).unwrap(), dm.get(1).unwrap());
                    prop_assert_eq!(image(&zt.get(m).unwrap()), image(&t));
                    prop_assert_eq!(image(&zr.get(m).unwrap()), image(&rest));
                    prop_assert_eq!(image(&td.get(1 + m).unwrap()), image(&rest));
                }
                for m in k..a.rank() {
                    prop_assert_eq!(zd.get(2 + m - k).unwrap(), a.get(m).unwrap());
                    prop_assert_eq!(td.get(1 + m).unwrap(), a.get(m).unwrap());
                    prop_assert_eq!(image(&dt.get(m).unwrap()), image(&a.get(m).unwrap()));
                }
            }
            Err(_) => {
                prop_assert!(zd.is_err() && td.is_err());
            }
        }
    }

    /// concat(A, B)(i + size(A) * j) == A(i) + B(j); append nests B unless it is a leaf.
    #[test]
    fn concat_and_append_evaluate_as_sums(a in any_layout(64), b in any_layout(64)) {
        let c = a.concat(&b).unwrap();
        prop_assert_eq!(c.rank(), a.rank() + b.rank());
        let ap = a.append(&b).unwrap();
        prop_assert_eq!(ap.rank(), a.rank() + 1);
        let last = ap.get(a.rank()).unwrap();
        if b.rank() > 1 || b.shape().as_tuple().is_scalar() {
            prop_assert_eq!(last, b);
        } else {
            prop_assert_eq!(image(&last), image(&b));
        }
        for j in 0..b.size() {
            for i in 0..a.size() {
                let want = eval(&a, i) + eval(&b, j);
                prop_assert_eq!(eval(&c, i + a.size() * j), want);
                prop_assert_eq!(eval(&ap, i + a.size() * j), want);
            }
        }
    }

    /// broadcast_to widens extent-1 leaves with stride 0 and keeps everything else.
    #[test]
    fn broadcast_to_evaluates_as_the_source_at_coordinate_zero(l in any_layout(256), widen in prop::collection::vec(1u64..=4, 8)) {
        let sh = *l.shape().as_tuple();
        let mut target = sh;
        for i in 0..sh.leaf_count() {
            if sh.leaf(i) == 1 {
                target = with_leaf(&target, i, widen[i]);
            }
        }
        let target = Shape::from_tuple(target).unwrap();
        let b = l.broadcast_to(&target).unwrap();
        prop_assert_eq!(b.profile(), l.profile());
        prop_assert_eq!(b.shape(), target);
        for i in 0..b.size() {
            // the source key: the same leaf coordinates, 0 on the widened leaves
            let c = decode(target.as_tuple(), i);
            let (mut key, mut scale) = (0, 1);
            for k in 0..sh.leaf_count() {
                if sh.leaf(k) != 1 {
                    key += c.leaf(k) * scale;
                }
                scale *= sh.leaf(k);
            }
            prop_assert_eq!(eval(&b, i), eval(&l, key), "broadcast_to({}, {}) = {}", l, target, b);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Robustness: huge values give errors, never panics (overflow checks are on in tests)
// ---------------------------------------------------------------------------------------

/// A stride that is small, a power of two, or close to `u64::MAX`.
fn huge_stride() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..=24,
        (0u32..64).prop_map(|k| 1u64 << k),
        (1u64..=8).prop_map(|k| u64::MAX / k)
    ]
}

fn huge_layout() -> impl Strategy<Value = Layout> {
    (
        items(),
        prop::collection::vec(huge_stride(), 8),
        prop::collection::vec(1u64..=6, 8),
    )
        .prop_filter_map("size and cosize must fit", |(it, strides, extents)| {
            let (sh, st) = build(&it, u64::MAX);
            let (mut sh2, mut st2) = (sh, st);
            for i in 0..sh.leaf_count() {
                sh2 = with_leaf(&sh2, i, extents[i]);
                st2 = with_leaf(&st2, i, strides[i]);
            }
            Layout::from_trees(sh2, st2).ok()
        })
}

/// Runs `f`, turning a panic into a test failure that names the operation.
fn no_panic<R>(
    what: &str,
    a: &Layout,
    b: &Layout,
    f: impl FnOnce() -> R,
) -> Result<(), TestCaseError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(_) => Ok(()),
        Err(_) => Err(TestCaseError::fail(format!(
            "{what} panicked on {a} and {b}"
        ))),
    }
}

proptest! {
    #![proptest_config(config())]

    /// Every operation returns Ok or Err on layouts whose values are near the u64 limit.
    #[test]
    fn operations_never_panic_on_huge_values(a in huge_layout(), b in huge_layout(), m in huge_stride()) {
        no_panic("coalesce", &a, &b, || a.coalesce())?;
        no_panic("filter", &a, &b, || a.filter())?;
        no_panic("compose", &a, &b, || a.compose(&b))?;
        no_panic("complement", &a, &b, || a.complement(m.max(1)))?;
        no_panic("divide", &a, &b, || a.divide(&b))?;
        no_panic("zipped_divide", &a, &b, || a.zipped_divide(&[b]))?;
        no_panic("logical_product", &a, &b, || a.logical_product(&b))?;
        no_panic("blocked_product", &a, &b, || a.blocked_product(&b))?;
        no_panic("raked_product", &a, &b, || a.raked_product(&b))?;
        no_panic("right_inverse", &a, &b, || a.right_inverse())?;
        no_panic("left_inverse", &a, &b, || a.left_inverse())?;
        no_panic("is_injective", &a, &b, || a.is_injective())?;
        no_panic("uniform_preimage_extent", &a, &b, || a.uniform_preimage_extent(&b.shape()))?;
        no_panic("concat", &a, &b, || a.concat(&b))?;
        no_panic("index_of", &a, &b, || a.index_of(a.size() - 1))?;
        no_panic("index_unbounded", &a, &b, || a.index_unbounded(m))?;
    }
}

/// The smallest counterexample of `left_inverse_is_correct_whenever_it_succeeds`.
#[test]
fn left_inverse_of_a_gapped_injective_layout() {
    let l: Layout = "(2,2):(1,3)".parse().unwrap();
    assert!(l.is_injective());
    if let Ok(r) = l.left_inverse() {
        for i in 0..l.size() {
            assert_eq!(
                r.index_unbounded(eval(&l, i)),
                Some(i),
                "left_inverse({l}) = {r}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Huge values: every Ok result is exact (checked in u128), every failure a value error
// ---------------------------------------------------------------------------------------

/// `l(i)` in `u128` from the leaves (no `u64` arithmetic that could wrap).
fn eval128(l: &Layout, i: u64) -> u128 {
    let mut rest = i as u128;
    let mut idx = 0u128;
    for k in 0..l.leaf_count() {
        let s = l.leaf_extent(k) as u128;
        idx += (rest % s) * l.leaf_stride(k) as u128;
        rest /= s;
    }
    idx
}

/// `A(x)` in `u128`, past size(A) along A's last leaf (CuTe's extension, which keeps that
/// leaf even at extent 1).
fn extended128(a: &Layout, x: u128) -> u128 {
    let mut leaves: Vec<(u128, u128)> = Vec::new();
    let n = a.leaf_count();
    for k in 0..n {
        let (mut s, d) = (a.leaf_extent(k) as u128, a.leaf_stride(k) as u128);
        if s == 1 && k + 1 == n {
            s = 2; // unbounded
        }
        if s == 1 {
            continue;
        }
        match leaves.last_mut() {
            Some(last) if last.0 * last.1 == d => last.0 *= s,
            _ => leaves.push((s, d)),
        }
    }
    let Some((&(_, d_last), init)) = leaves.split_last() else {
        return 0;
    };
    let mut rest = x;
    let mut idx = 0u128;
    for &(s, d) in init {
        idx += (rest % s) * d;
        rest /= s;
    }
    idx + rest * d_last
}

/// All keys of a small domain, or a spread of them (first, last, evenly between).
fn keys128(size: u64) -> Vec<u64> {
    if size <= 512 {
        return (0..size).collect();
    }
    let mut v: Vec<u64> = (0..64).chain((0..64).map(|k| size - 1 - k)).collect();
    v.extend((1..64).map(|k| size / 64 * k));
    v.sort_unstable();
    v.dedup();
    v
}

#[track_caller]
fn value_error_kind(what: &str, e: &strideweave::LayoutError) -> Result<(), TestCaseError> {
    prop_assert_eq!(e.kind(), strideweave::ErrorKind::Value, "{}: {}", what, e);
    Ok(())
}

/// A value near a power of two, near u64::MAX / k, or small: extents and strides that
/// stress the divisibility and overflow paths.
fn wide_value() -> impl Strategy<Value = u64> {
    prop_oneof![
        1u64..=6,
        (1u32..40).prop_map(|k| 1u64 << k),
        (2u32..40).prop_map(|k| (1u64 << k) - 1),
        (2u32..40).prop_map(|k| (1u64 << k) + 1),
        (1u64..=8).prop_map(|k| u64::MAX / k),
        (1u64..=8).prop_map(|k| (u64::MAX / k) >> 32),
    ]
}

/// A layout of 1..=4 flat leaves with wide extents and strides; where size or cosize
/// would not fit, the values are shifted right until they do (no rejections).
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

/// The body of the huge-value properties: exact Ok results, value errors otherwise.
fn check_exact_or_value_error(a: &Layout, b: &Layout, m: u64) -> Result<(), TestCaseError> {
    let (a, b) = (*a, *b);
    for i in keys128(a.size()) {
        prop_assert_eq!(
            a.index_of(i).unwrap() as u128,
            eval128(&a, i),
            "index_of({}, {})",
            a,
            i
        );
    }
    let co = a.coalesce();
    for i in keys128(a.size()) {
        prop_assert_eq!(eval128(&co, i), eval128(&a, i), "coalesce({}) = {}", a, co);
    }
    match a.compose(&b) {
        Ok(r) => {
            prop_assert_eq!(r.size(), b.size());
            for i in keys128(b.size()) {
                prop_assert_eq!(
                    eval128(&r, i),
                    extended128(&a, eval128(&b, i)),
                    "compose({}, {}) = {} at {}",
                    a,
                    b,
                    r,
                    i
                );
            }
        }
        Err(e) => value_error_kind("compose", &e)?,
    }
    match a.complement(m.max(1)) {
        Ok(c) => {
            prop_assert!(a.is_injective(), "complement of non-injective {}", a);
            let ks = keys128(c.size());
            for w in ks.windows(2) {
                prop_assert!(
                    eval128(&c, w[0]) < eval128(&c, w[1]),
                    "complement({}, {}) = {} not ordered",
                    a,
                    m,
                    c
                );
            }
        }
        Err(e) => value_error_kind("complement", &e)?,
    }
    match a.right_inverse() {
        Ok(r) => {
            for i in keys128(r.size()) {
                let x = eval128(&r, i);
                prop_assert!(x < a.size() as u128);
                prop_assert_eq!(
                    eval128(&a, x as u64),
                    i as u128,
                    "right_inverse({}) = {}",
                    a,
                    r
                );
            }
        }
        Err(e) => value_error_kind("right_inverse", &e)?,
    }
    match a.left_inverse() {
        Ok(r) => {
            let injective = a.is_injective();
            for i in keys128(a.size()) {
                let back = extended128(&r, eval128(&a, i));
                if injective {
                    prop_assert_eq!(back, i as u128, "left_inverse({}) = {}", a, r);
                } else {
                    prop_assert!(back < a.size() as u128, "left_inverse({}) = {}", a, r);
                    prop_assert_eq!(
                        eval128(&a, back as u64),
                        eval128(&a, i),
                        "left_inverse({}) = {}",
                        a,
                        r
                    );
                }
            }
        }
        Err(e) => value_error_kind("left_inverse", &e)?,
    }
    match a.divide(&b) {
        Ok(d) => {
            // a tile larger than A pads: no size check
            let c = strideweave::algebra::complement_unchecked_size(&b, a.size())
                .expect("divide exists only with a complement");
            // (B, C) evaluated in u128: as a layout it may not fit even when A ∘ (B, C) does
            prop_assert_eq!(d.size() as u128, b.size() as u128 * c.size() as u128);
            for i in keys128(d.size()) {
                let key = eval128(&b, i % b.size()) + eval128(&c, i / b.size());
                prop_assert_eq!(
                    eval128(&d, i),
                    extended128(&a, key),
                    "divide({}, {}) = {}",
                    a,
                    b,
                    d
                );
            }
        }
        Err(e) => value_error_kind("divide", &e)?,
    }
    match a.logical_product(&b) {
        Ok(p) => {
            let c = a
                .filter()
                .complement(a.size() * b.cosize())
                .expect("product exists only with a complement");
            let cb = c.compose(&b).expect("product exists only if C ∘ B does");
            prop_assert_eq!(p.size(), a.size() * b.size());
            for k in keys128(p.size()) {
                let (i, j) = (k % a.size(), k / a.size());
                prop_assert_eq!(
                    eval128(&p, k),
                    eval128(&a, i) + eval128(&cb, j),
                    "logical_product({}, {}) = {}",
                    a,
                    b,
                    p
                );
            }
        }
        Err(e) => value_error_kind("logical_product", &e)?,
    }
    match a.concat(&b) {
        Ok(c) => {
            for k in keys128(c.size()) {
                let (i, j) = (k % a.size(), k / a.size());
                prop_assert_eq!(eval128(&c, k), eval128(&a, i) + eval128(&b, j));
            }
        }
        Err(e) => value_error_kind("concat", &e)?,
    }
    for (name, r) in [
        ("blocked_product", a.blocked_product(&b)),
        ("raked_product", a.raked_product(&b)),
        ("zipped_divide", a.zipped_divide(&[b])),
    ] {
        match r {
            Ok(r) => prop_assert!(
                r.cosize() as u128
                    > (0..r.leaf_count())
                        .map(|k| (r.leaf_extent(k) as u128 - 1) * r.leaf_stride(k) as u128)
                        .sum::<u128>()
            ),
            Err(e) => value_error_kind(name, &e)?,
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// On layouts whose strides are near the u64 limit, each operation's Ok result is the
    /// exact answer (checked against u128 evaluation, so a wrapped result is caught) and
    /// each failure is a value error.
    #[test]
    fn operations_on_huge_values_are_exact_or_value_errors(a in huge_layout(), b in huge_layout(), m in huge_stride()) {
        check_exact_or_value_error(&a, &b, m)?;
    }

    /// The same with extents near powers of two and near u64::MAX / k as well: large
    /// extents exercise composition's divisibility arithmetic and complement's spans.
    #[test]
    fn operations_on_wide_extents_are_exact_or_value_errors(a in wide_layout(), b in wide_layout(), m in wide_value()) {
        check_exact_or_value_error(&a, &b, m)?;
    }
}
