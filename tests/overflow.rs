//! Overflow and capacity hardening (issue 6, part 2): every operation on extents, strides,
//! sizes, cosizes and coordinates at the edge of `u64`, and on layouts at the edge of the
//! inline capacity (32 leaves, 96 tree nodes).
//!
//! Each operation must answer with the exactly correct layout or value, or with a value
//! error whose message names the offending values. Never a panic (these tests run with
//! overflow checks on) and never a wrapped result. Where a result is `Ok`, it is checked
//! against an exact expected value or against `u128` brute-force evaluation.
//!
//! Tests that reveal a core bug are `#[ignore = "BUG: ..."]`; `cargo test --test overflow
//! -- --ignored` shows them failing.

use strideweave::eval::eval_line;
use strideweave::{
    Coord, ErrorKind, Layout, LayoutError, Node, Shape, Stride, Tree, TreeItem, MAX_LEAVES,
    MAX_NODES,
};

const MAX: u64 = u64::MAX; // 18446744073709551615 = 3 * 5 * 17 * 257 * 641 * 65537 * 6700417
const HALF: u64 = 1 << 63; // 9223372036854775808
const THIRD: u64 = u64::MAX / 3; // 6148914691236517205, exact
const P32: u64 = 1 << 32; // 4294967296

fn lay(s: &str) -> Layout {
    s.parse()
        .unwrap_or_else(|e| panic!("test layout {s} must parse: {e}"))
}

/// Asserts a value error whose message contains every needle.
#[track_caller]
fn value_error<T: std::fmt::Debug>(r: Result<T, LayoutError>, needles: &[&str]) {
    match r {
        Ok(v) => panic!("expected a value error containing {needles:?}, got Ok({v:?})"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Value, "{e}");
            for n in needles {
                assert!(
                    e.message().contains(n),
                    "message {:?} lacks {n:?}",
                    e.message()
                );
            }
        }
    }
}

/// Asserts `Ok` equal to the layout written in notation.
#[track_caller]
fn exact(r: Result<Layout, LayoutError>, want: &str) {
    match r {
        Ok(l) => assert_eq!(l.to_string(), want),
        Err(e) => panic!("expected {want}, got error {e}"),
    }
}

/// `l(i)` in `u128`, first leaf fastest (independent of the library's index arithmetic).
fn eval128(l: &Layout, i: u128) -> u128 {
    let mut rest = i;
    let mut idx = 0u128;
    for k in 0..l.leaf_count() {
        let s = l.leaf_extent(k) as u128;
        idx += (rest % s) * l.leaf_stride(k) as u128;
        rest /= s;
    }
    assert_eq!(rest, 0, "key {i} outside {l}");
    idx
}

/// Keys worth checking in a huge domain: the first and last few and a spread between.
fn sample_keys(size: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (0..size.min(8)).collect();
    v.extend((0..8).map(|k| size - 1 - k.min(size - 1)));
    v.extend((1..16).map(|k| (size / 16).saturating_mul(k)));
    v.retain(|&x| x < size);
    v.sort_unstable();
    v.dedup();
    v
}

/// A flat compact layout of `n` leaves of extent `e` (column-major) in notation.
fn compact_text(n: usize, e: u64) -> String {
    let shapes: Vec<String> = (0..n).map(|_| e.to_string()).collect();
    let mut acc = 1u64;
    let strides: Vec<String> = (0..n)
        .map(|_| {
            let d = acc;
            acc *= e;
            d.to_string()
        })
        .collect();
    format!("({}):({})", shapes.join(","), strides.join(","))
}

// ---------------------------------------------------------------------------------------
// Construction: size and cosize
// ---------------------------------------------------------------------------------------

#[test]
fn construction_size_overflow_names_both_operands() {
    value_error(
        "(4294967296,4294967296):(1,4294967296)".parse::<Layout>(),
        &["4294967296 * 4294967296 overflows 64 bits"],
    );
    value_error(
        Layout::new(
            Shape::new((P32, P32)).unwrap(),
            Stride::new((0, 0)).unwrap(),
        ),
        &["4294967296 * 4294967296 overflows 64 bits"],
    );
    value_error(
        Layout::new(Shape::new((2, HALF)).unwrap(), Stride::new((1, 0)).unwrap()),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
}

#[test]
fn construction_cosize_overflow_names_the_operands() {
    // (3-1) * 2^63 does not fit
    value_error(
        "3:9223372036854775808".parse::<Layout>(),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
    // 2^63 + 2^63 does not fit
    value_error(
        "(2,2):(9223372036854775808,9223372036854775808)".parse::<Layout>(),
        &["9223372036854775808 + 9223372036854775808 overflows 64 bits"],
    );
    // max index u64::MAX, so cosize u64::MAX + 1 does not fit
    value_error(
        "2:18446744073709551615".parse::<Layout>(),
        &["18446744073709551615 + 1 overflows 64 bits"],
    );
}

#[test]
fn construction_at_the_largest_size_and_cosize_succeeds() {
    let l = lay("18446744073709551615:1");
    assert_eq!((l.size(), l.cosize()), (MAX, MAX));
    let l = lay("2:9223372036854775807");
    assert_eq!((l.size(), l.cosize()), (2, HALF));
    let l = lay("(3,6148914691236517205):(1,3)");
    assert_eq!((l.size(), l.cosize()), (MAX, MAX));
    // size 2^64 - 2^32 with max index 2^64 - 2^32 - 1... exactly
    let l = lay("(4294967296,4294967295):(1,4294967296)");
    assert_eq!(l.size() as u128, (P32 as u128) * (P32 as u128 - 1));
    assert_eq!(l.cosize() as u128, eval128(&l, l.size() as u128 - 1) + 1);
    // an extent-1 leaf may carry any stride, even u64::MAX
    let l = lay("(1,18446744073709551615):(18446744073709551615,1)");
    assert_eq!((l.size(), l.cosize()), (MAX, MAX));
}

#[test]
fn shape_size_overflow_is_reported_by_checked_size() {
    let s = Shape::new((P32, P32)).unwrap();
    assert_eq!(s.checked_size(), None, "2^32 * 2^32 does not fit");
    // the infallible form saturates (documented); it must not wrap to 0
    assert_eq!(s.size(), MAX);
    let s = Shape::new((P32, P32 - 1)).unwrap();
    assert_eq!(s.checked_size(), Some(P32 * (P32 - 1)));
    assert_eq!(
        eval_line("size((4294967296,4294967296))"),
        "error: value: size of (4294967296,4294967296) overflows 64 bits"
    );
}

#[test]
fn compact_constructors_reject_overflowing_shapes() {
    value_error(
        Layout::col_major(Shape::new((P32, P32)).unwrap()),
        &["4294967296 * 4294967296 overflows 64 bits"],
    );
    value_error(
        Layout::row_major(Shape::new((P32, P32)).unwrap()),
        &["4294967296 * 4294967296 overflows 64 bits"],
    );
    exact(
        Layout::col_major(Shape::new((P32, P32 - 1)).unwrap()),
        "(4294967296,4294967295):(1,4294967296)",
    );
    exact(
        Layout::row_major(Shape::new((P32 - 1, P32)).unwrap()),
        "(4294967295,4294967296):(4294967296,1)",
    );
    exact(
        Layout::col_major(Shape::new(MAX).unwrap()),
        "18446744073709551615:1",
    );
}

// ---------------------------------------------------------------------------------------
// The parser
// ---------------------------------------------------------------------------------------

#[test]
fn parser_twenty_digit_literals_past_u64_are_value_errors_naming_the_literal() {
    for text in [
        "18446744073709551616:1",
        "1:18446744073709551616",
        "(2,18446744073709551616):(1,2)",
        "99999999999999999999:1",
    ] {
        let lit = if text.contains("9999") {
            "99999999999999999999"
        } else {
            "18446744073709551616"
        };
        value_error(text.parse::<Layout>(), &[lit, "does not fit in 64 bits"]);
    }
    value_error(
        "123456789012345678901234567890".parse::<Shape>(),
        &["123456789012345678901234567890"],
    );
}

#[test]
fn parser_accepts_u64_max_literals_exactly() {
    let l = lay("18446744073709551615:1");
    assert_eq!(l.leaf_extent(0), MAX);
    let s: Shape = "(18446744073709551615)".parse().unwrap();
    assert_eq!(s.size(), MAX);
    let d: Stride = "(18446744073709551615,18446744073709551615)"
        .parse()
        .unwrap();
    assert_eq!(d.as_tuple().leaves(), &[MAX, MAX]);
    assert_eq!(lay(&l.to_string()), l, "parse(print(x)) == x at the limit");
}

// ---------------------------------------------------------------------------------------
// index and index_of at the edge of the domain
// ---------------------------------------------------------------------------------------

#[test]
fn index_of_last_key_of_a_u64_max_domain_works_and_one_past_fails() {
    let l = lay("18446744073709551615:1");
    assert_eq!(l.index_of(MAX - 1).unwrap(), MAX - 1);
    assert_eq!(l.index(&Coord::linear(MAX - 1)).unwrap(), MAX - 1);
    value_error(
        l.index(&Coord::linear(MAX)),
        &["key 18446744073709551615", "[0, 18446744073709551615)"],
    );
    let e = l.index_of(MAX).unwrap_err();
    assert_eq!(
        LayoutError::from(e).message(),
        "key 18446744073709551615 is outside the shape domain [0, 18446744073709551615)"
    );
}

#[test]
fn index_of_near_u64_max_on_multi_leaf_layouts_is_exact() {
    for text in [
        "(4294967296,4294967295):(1,4294967296)",
        "(4294967295,4294967296):(4294967296,1)",
        "(3,6148914691236517205):(6148914691236517205,1)",
        "(2,(3,1152921504606846976)):(1,(2,6))",
        "(2,2,2305843009213693952):(4611686018427387904,9223372036854775807,0)",
    ] {
        let l = lay(text);
        for i in sample_keys(l.size()) {
            assert_eq!(
                l.index_of(i).unwrap() as u128,
                eval128(&l, i as u128),
                "{l} at {i}"
            );
        }
        value_error(
            l.index(&Coord::linear(l.size())),
            &[&format!("key {}", l.size()), &format!("[0, {})", l.size())],
        );
    }
}

#[test]
fn index_hierarchical_coordinate_at_the_edge_works_and_one_past_names_key_and_extent() {
    let big = 1u64 << 60;
    let l = lay("(2,(3,1152921504606846976)):(1,(2,6))");
    let last = Coord::new((1, (2, big - 1))).unwrap();
    assert_eq!(l.index(&last).unwrap(), 1 + 4 + 6 * (big - 1));
    // a per-mode integer for the nested mode, last valid and one past
    assert_eq!(
        l.index(&Coord::new((1, 3 * big - 1)).unwrap()).unwrap(),
        1 + 4 + 6 * (big - 1)
    );
    value_error(
        l.index(&Coord::new((1, 3 * big)).unwrap()),
        &["key 3458764513820540928", "[0, 3458764513820540928)"],
    );
    value_error(
        l.index(&Coord::new((1, (3, 0))).unwrap()),
        &["key 3 ", "[0, 3)"],
    );
    value_error(
        l.index(&Coord::new((1, (0, big))).unwrap()),
        &["key 1152921504606846976", "[0, 1152921504606846976)"],
    );
    value_error(
        l.index(&Coord::new((2, (0, 0))).unwrap()),
        &["key 2 ", "[0, 2)"],
    );
    value_error(
        l.index(&Coord::new((MAX, (0, 0))).unwrap()),
        &["key 18446744073709551615", "[0, 2)"],
    );
}

#[test]
fn index_unbounded_returns_none_instead_of_wrapping() {
    let l = lay("2:9223372036854775808");
    assert_eq!(l.index_unbounded(1), Some(HALF));
    assert_eq!(l.index_unbounded(2), None, "2 * 2^63 does not fit");
    let l = lay("18446744073709551615:1");
    assert_eq!(l.index_unbounded(MAX), Some(MAX));
    let l = lay("(2,3):(1,6148914691236517205)");
    assert_eq!(l.index_unbounded(6), Some(3 * THIRD));
    assert_eq!(
        l.index_unbounded(7),
        None,
        "1 + 3 * (u64::MAX / 3) does not fit"
    );
}

// ---------------------------------------------------------------------------------------
// coalesce and filter
// ---------------------------------------------------------------------------------------

#[test]
fn coalesce_merges_up_to_u64_max_exactly() {
    assert_eq!(
        lay("(3,6148914691236517205):(1,3)").coalesce().to_string(),
        "18446744073709551615:1"
    );
    assert_eq!(
        lay("(1,(3,1),(6148914691236517205)):(18446744073709551615,(1,7),(3))")
            .coalesce()
            .to_string(),
        "18446744073709551615:1"
    );
}

#[test]
fn coalesce_does_not_merge_when_the_stride_product_overflows() {
    // 2 * 2^63 overflows: the check must not wrap to 0 and merge with a stride-0 leaf
    assert_eq!(
        lay("(2,1,2):(9223372036854775808,5,0)")
            .coalesce()
            .to_string(),
        "(2,2):(9223372036854775808,0)"
    );
    assert_eq!(
        lay("(2,2):(9223372036854775807,1)").coalesce().to_string(),
        "(2,2):(9223372036854775807,1)"
    );
}

#[test]
fn filter_drops_broadcasts_next_to_huge_strides_exactly() {
    assert_eq!(
        lay("(2,3,2):(9223372036854775808,0,1)")
            .filter()
            .to_string(),
        "(2,2):(9223372036854775808,1)"
    );
    assert_eq!(
        lay("(3,1,6148914691236517205):(1,7,3)")
            .filter()
            .to_string(),
        "18446744073709551615:1"
    );
    assert_eq!(
        lay("(6148914691236517205,3):(0,0)").filter().to_string(),
        "1:0"
    );
}

// ---------------------------------------------------------------------------------------
// compose (with a layout, a shape, a tiler) and can_compose
// ---------------------------------------------------------------------------------------

#[test]
fn compose_at_the_limit_is_exact() {
    let max = lay("18446744073709551615:1");
    exact(max.compose(&max), "18446744073709551615:1");
    exact(
        lay("(3,6148914691236517205):(1,3)").compose(&lay("6148914691236517205:3")),
        "6148914691236517205:3",
    );
    // along A's last mode past size(A), as CuTe does
    exact(lay("4:1").compose(&max), "18446744073709551615:1");
    exact(
        lay("(2,4611686018427387904):(9223372036854775808,1)").compose(&lay("4:1")),
        "(2,2):(9223372036854775808,1)",
    );
    exact(
        max.compose(&lay("(3,5):(6148914691236517205,1)")),
        "(3,5):(6148914691236517205,1)",
    );
    exact(lay("1:0").compose(&lay("2:9223372036854775808")), "2:0");
}

#[test]
fn compose_with_layout_whose_result_stride_overflows_is_a_value_error() {
    // A(B(1)) = 2^63 * 2^63
    value_error(
        lay("2:9223372036854775808").compose(&lay("2:9223372036854775808")),
        &["9223372036854775808 * 9223372036854775808 overflows 64 bits"],
    );
    // past A's size along its last mode: A(2) = 2 * 2^63
    value_error(
        lay("2:9223372036854775808").compose(&lay("3:1")),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
    // the result's cosize: (u64::MAX - 1) * 2
    value_error(
        lay("4:2").compose(&lay("18446744073709551615:1")),
        &["18446744073709551614 * 2 overflows 64 bits"],
    );
    // through a multi-mode A
    value_error(
        lay("(2,3):(1,6148914691236517205)").compose(&lay("(2,5):(1,2)")),
        &["overflows 64 bits"],
    );
}

#[test]
fn compose_with_shape_at_the_limit_is_exact_or_a_value_error() {
    let a = lay("(4294967296,4294967295):(1,4294967296)");
    exact(
        a.compose(&Shape::new((P32, P32 - 1)).unwrap()),
        "(4294967296,4294967295):(1,4294967296)",
    );
    exact(
        lay("18446744073709551615:1").compose(&Shape::new(MAX).unwrap()),
        "18446744073709551615:1",
    );
    value_error(
        lay("2:9223372036854775808").compose(&Shape::new(3).unwrap()),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
}

#[test]
fn compose_with_tiler_at_the_limit_is_exact_or_a_value_error() {
    let a = lay("(2,4611686018427387904):(9223372036854775808,1)");
    let t = |s: &str| lay(s);
    exact(
        a.compose(&[t("2:1"), t("4611686018427387904:1")]),
        "(2,4611686018427387904):(9223372036854775808,1)",
    );
    exact(a.compose(&[t("1:0")]), "(1,4611686018427387904):(0,1)");
    value_error(
        a.compose(&[t("3:1")]),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
}

#[test]
fn can_compose_reports_the_same_overflow_error_as_compose() {
    for (a, b) in [
        ("2:9223372036854775808", "3:1"),
        ("4:2", "18446744073709551615:1"),
        ("2:9223372036854775808", "2:9223372036854775808"),
    ] {
        let (a, b) = (lay(a), lay(b));
        assert_eq!(a.can_compose(&b).unwrap_err(), a.compose(&b).unwrap_err());
    }
    assert!(lay("4:1")
        .can_compose(&lay("18446744073709551615:1"))
        .is_ok());
}

// ---------------------------------------------------------------------------------------
// complement
// ---------------------------------------------------------------------------------------

#[test]
fn complement_to_cotarget_u64_max_is_exact() {
    exact(lay("2:1").complement(MAX), "9223372036854775808:2");
    // u64::MAX = 7 * 2635249153387078802 + 1: rounded up
    exact(lay("7:1").complement(MAX), "2635249153387078803:7");
    exact(
        lay("2:9223372036854775808").complement(MAX),
        "9223372036854775808:1",
    );
    exact(
        lay("2:4611686018427387904").complement(MAX),
        "(4611686018427387904,2):(1,9223372036854775808)",
    );
    exact(
        lay("9223372036854775808:1").complement(MAX),
        "2:9223372036854775808",
    );
    exact(lay("18446744073709551615:1").complement(MAX), "1:0");
    exact(lay("1:0").complement(MAX), "18446744073709551615:1");
    // the span 6 * 2^63 passes u64: no final mode, and 2^63 / 6 rounds down
    exact(
        lay("(3,2):(2,9223372036854775808)").complement(MAX),
        "(2,1537228672809129301):(1,6)",
    );
}

#[test]
fn complement_cotarget_zero_or_below_size_is_a_value_error() {
    value_error(lay("2:1").complement(0), &["cotarget 0"]);
    value_error(
        lay("18446744073709551615:1").complement(MAX - 1),
        &["18446744073709551615", "18446744073709551614"],
    );
}

#[test]
fn complement_of_overlapping_huge_strides_is_a_self_overlap_error() {
    value_error(
        lay("(2,2):(4611686018427387904,4611686018427387904)").complement(MAX),
        &["self-overlap"],
    );
}

#[test]
fn complement_of_a_32_leaf_chain_is_exact() {
    let l = lay(&compact_text(32, 2));
    exact(l.complement(1 << 33), "2:4294967296");
    exact(l.complement(1 << 32), "1:0");
}

// ---------------------------------------------------------------------------------------
// divide, divide_tiler, zipped_divide, tiled_divide
// ---------------------------------------------------------------------------------------

#[test]
fn divide_at_the_limit_is_exact() {
    let max = lay("18446744073709551615:1");
    exact(max.divide(&lay("3:1")), "(3,6148914691236517205):(1,3)");
    exact(max.divide(&max), "(18446744073709551615,1):(1,0)");
    exact(
        lay("(2,4611686018427387904):(9223372036854775808,1)").divide(&lay("4:1")),
        "((2,2),2305843009213693952):((9223372036854775808,1),2)",
    );
    exact(
        lay("2:9223372036854775808").divide(&lay("2:1")),
        "(2,1):(9223372036854775808,0)",
    );
}

#[test]
fn divide_whose_tiles_would_exceed_u64_is_a_value_error() {
    // an odd size split in 2 needs 2^63 tiles of 2: size 2^64
    value_error(
        lay("18446744073709551615:1").divide(&lay("2:1")),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
    value_error(
        lay("18446744073709551615:1").divide(&lay("7:1")),
        &["7 * 2635249153387078803 overflows 64 bits"],
    );
}

#[test]
fn divide_by_a_32_leaf_tile_is_exact_or_a_capacity_error() {
    // (B, complement(B)) needs 33 leaves: a capacity error, never a panic
    let b = lay(&compact_text(32, 2));
    let a = lay("8589934592:1");
    match a.divide(&b) {
        Ok(d) => {
            assert_eq!(d.size(), 1 << 33);
            for i in sample_keys(d.size()) {
                assert_eq!(d.index_of(i).unwrap(), i, "{d} at {i}");
            }
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Value);
            assert!(e.message().contains("more than 32 leaves"), "{e}");
        }
    }
}

#[test]
fn divide_tiler_at_the_limit_is_exact_or_a_value_error() {
    let a = lay("(18446744073709551615,1):(1,0)");
    exact(
        a.divide_tiler(&[lay("3:1")]),
        "((3,6148914691236517205),1):((1,3),0)",
    );
    value_error(
        a.divide_tiler(&[lay("2:1")]),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
    exact(
        a.divide_shape(&Shape::new(5).unwrap()),
        "((5,3689348814741910323),1):((1,5),0)",
    );
}

#[test]
fn zipped_divide_at_the_limit_is_exact_or_a_value_error() {
    let a = lay("(18446744073709551615,1):(1,0)");
    exact(
        a.zipped_divide(&[lay("3:1")]),
        "((3),(6148914691236517205),1):((1),(3),0)",
    );
    value_error(a.zipped_divide(&[lay("2:1")]), &["overflows 64 bits"]);
}

#[test]
fn tiled_divide_at_the_limit_is_exact_or_a_value_error() {
    let a = lay("(18446744073709551615,1):(1,0)");
    exact(
        a.tiled_divide(&[lay("5:1")]),
        "((5),3689348814741910323,1):((1),5,0)",
    );
    value_error(a.tiled_divide(&[lay("7:1")]), &["overflows 64 bits"]);
}

// ---------------------------------------------------------------------------------------
// products
// ---------------------------------------------------------------------------------------

#[test]
fn logical_product_at_the_limit_is_exact() {
    exact(
        lay("18446744073709551615:1").logical_product(&lay("1:0")),
        "(18446744073709551615,1):(1,0)",
    );
    exact(
        lay("2:1").logical_product(&lay("2:4611686018427387904")),
        "(2,2):(1,9223372036854775808)",
    );
    exact(
        lay("1:0").logical_product(&lay("18446744073709551615:1")),
        "(1,18446744073709551615):(0,1)",
    );
}

#[test]
fn logical_product_whose_cotarget_overflows_names_the_operands() {
    // size(A) * cosize(B)
    value_error(
        lay("18446744073709551615:1").logical_product(&lay("2:1")),
        &["18446744073709551615 * 2 overflows 64 bits"],
    );
    value_error(
        lay("2:1").logical_product(&lay("2:9223372036854775808")),
        &["2 * 9223372036854775809 overflows 64 bits"],
    );
    value_error(
        lay("2:1").logical_product(&lay("9223372036854775808:1")),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
}

#[test]
fn blocked_product_at_the_limit_is_exact_or_a_value_error() {
    exact(
        lay("2:1").blocked_product(&lay("4611686018427387904:1")),
        "(2,4611686018427387904):(1,2)",
    );
    value_error(
        lay("2:1").blocked_product(&lay("9223372036854775808:1")),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
    value_error(
        lay("(2,2):(1,2)").blocked_product(&lay("(2,4611686018427387904):(1,2)")),
        &["overflows 64 bits"],
    );
}

#[test]
fn raked_product_at_the_limit_is_exact_or_a_value_error() {
    exact(
        lay("2:1").raked_product(&lay("4611686018427387904:1")),
        "(4611686018427387904,2):(2,1)",
    );
    value_error(
        lay("2:1").raked_product(&lay("9223372036854775808:1")),
        &["2 * 9223372036854775808 overflows 64 bits"],
    );
    value_error(
        lay("(2,2):(1,2)").raked_product(&lay("(4611686018427387904,2):(2,1)")),
        &["overflows 64 bits"],
    );
}

#[test]
fn logical_product_tiler_at_the_limit_is_exact_or_a_value_error() {
    let a = lay("(2,3):(1,2)");
    exact(
        a.logical_product_tiler(&[lay("2305843009213693952:1")]),
        "((2,2305843009213693952),3):((1,2),2)",
    );
    // 2 * 2^62 per mode 0, times 3 for mode 1
    value_error(
        a.logical_product_tiler(&[lay("4611686018427387904:1")]),
        &["9223372036854775808 * 3 overflows 64 bits"],
    );
}

// ---------------------------------------------------------------------------------------
// inverses
// ---------------------------------------------------------------------------------------

#[test]
fn right_inverse_at_the_limit_is_exact() {
    exact(
        lay("18446744073709551615:1").right_inverse(),
        "18446744073709551615:1",
    );
    exact(lay("2:9223372036854775808").right_inverse(), "1:0");
    let l = lay("(2,4611686018427387904):(4611686018427387904,1)");
    let r = l.right_inverse().unwrap();
    assert_eq!(r.to_string(), "(4611686018427387904,2):(2,1)");
    for i in sample_keys(r.size()) {
        let x = r.index_of(i).unwrap();
        assert_eq!(l.index_of(x).unwrap(), i, "L(R({i}))");
    }
}

#[test]
fn left_inverse_at_the_limit_is_exact() {
    exact(
        lay("18446744073709551615:1").left_inverse(),
        "18446744073709551615:1",
    );
    let l = lay("3:6148914691236517205");
    let r = l.left_inverse().unwrap();
    // CuTe's left inverse: the indices below the stride map to 0
    assert_eq!(r.to_string(), "(6148914691236517205,3):(0,1)");
    for i in 0..3 {
        assert_eq!(r.index_unbounded(l.index_of(i).unwrap()), Some(i));
    }
}

#[test]
fn left_inverse_whose_span_exceeds_u64_is_a_value_error() {
    // the inverse must accept index 2^63 and so have size 2 * 2^63
    value_error(
        lay("2:9223372036854775808").left_inverse(),
        &["9223372036854775808 * 2 overflows 64 bits"],
    );
}

#[test]
fn left_inverse_of_a_32_leaf_chain_is_exact_or_a_capacity_error() {
    let l = lay(&compact_text(32, 2));
    match l.left_inverse() {
        Ok(r) => {
            for i in sample_keys(l.size()) {
                assert_eq!(r.index_unbounded(l.index_of(i).unwrap()), Some(i));
            }
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Value);
            assert!(e.message().contains("more than 32 leaves"), "{e}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// concat, append, permute, broadcast_to, rearrange
// ---------------------------------------------------------------------------------------

#[test]
fn concat_whose_size_overflows_names_the_operands() {
    value_error(
        lay("9223372036854775808:1").concat(&lay("2:1")),
        &["9223372036854775808 * 2 overflows 64 bits"],
    );
    value_error(
        lay("2:9223372036854775808").concat(&lay("2:9223372036854775808")),
        &["9223372036854775808 + 9223372036854775808 overflows 64 bits"],
    );
    exact(
        lay("2:9223372036854775808").concat(&lay("2:4611686018427387904")),
        "(2,2):(9223372036854775808,4611686018427387904)",
    );
    exact(
        lay("18446744073709551615:1").concat(&lay("1:18446744073709551615")),
        "(18446744073709551615,1):(1,18446744073709551615)",
    );
}

#[test]
fn append_whose_size_overflows_names_the_operands() {
    value_error(
        lay("9223372036854775808:1").append(&lay("2:0")),
        &["9223372036854775808 * 2 overflows 64 bits"],
    );
    exact(
        lay("1:18446744073709551615").append(&lay("1:18446744073709551615")),
        "(1,1):(18446744073709551615,18446744073709551615)",
    );
    exact(
        lay("2:1").append(&lay("(2,2305843009213693952):(2,4)")),
        "(2,(2,2305843009213693952)):(1,(2,4))",
    );
}

#[test]
fn permute_with_huge_values_and_huge_mode_numbers() {
    exact(
        lay("(9223372036854775808,1):(1,18446744073709551615)").permute(&[1, 0]),
        "(1,9223372036854775808):(18446744073709551615,1)",
    );
    value_error(
        lay("(2,3):(1,2)").permute(&[usize::MAX, 0]),
        &[&format!("mode {}", usize::MAX)],
    );
}

#[test]
fn broadcast_to_whose_size_overflows_names_the_operands() {
    value_error(
        lay("(1,1):(1,1)").broadcast_to(&Shape::new((P32, P32)).unwrap()),
        &["4294967296 * 4294967296 overflows 64 bits"],
    );
    value_error(
        lay("(18446744073709551615,1):(1,5)").broadcast_to(&Shape::new((MAX, 2)).unwrap()),
        &["18446744073709551615 * 2 overflows 64 bits"],
    );
    exact(
        lay("(1,1):(5,7)").broadcast_to(&Shape::new((P32, P32 - 1)).unwrap()),
        "(4294967296,4294967295):(0,0)",
    );
    exact(
        lay("1:18446744073709551615").broadcast_to(&Shape::new(MAX).unwrap()),
        "18446744073709551615:0",
    );
}

#[test]
fn uniform_preimage_extent_at_the_limit_is_exact() {
    let s = |v: u64| Shape::new(v).unwrap();
    assert_eq!(
        lay("(18446744073709551615,1):(0,1)").uniform_preimage_extent(&s(1)),
        Some(MAX)
    );
    assert_eq!(
        lay("(4294967296,4294967295):(1,4294967296)")
            .uniform_preimage_extent(&Shape::new((P32, P32 - 1)).unwrap()),
        Some(1)
    );
    assert_eq!(
        lay("(3,6148914691236517205):(6148914691236517205,1)").uniform_preimage_extent(&s(MAX)),
        Some(1)
    );
    // the target's size overflows: no proof, no panic
    assert_eq!(
        lay("2:1").uniform_preimage_extent(&Shape::new((P32, P32)).unwrap()),
        None
    );
    assert_eq!(lay("2:1").uniform_preimage_extent(&s(MAX)), None);
    // k * size overflow cannot occur, but a huge broadcast beside a huge chain is exact
    assert_eq!(
        lay("(4294967296,4294967295):(0,1)").uniform_preimage_extent(&s(P32 - 1)),
        Some(P32)
    );
}

#[test]
fn is_injective_at_the_limit_is_exact() {
    assert!(lay("18446744073709551615:1").is_injective());
    assert!(lay("(4294967296,4294967295):(4294967295,1)").is_injective());
    assert!(lay("(2,3,5):(9223372036854775808,1,3)").is_injective());
    assert!(lay("(3,6148914691236517205):(6148914691236517205,1)").is_injective());
    // 3 + 0*3 == 0 + 1*3
    assert!(!lay("(3,5,7):(6148914691236517205,1,3)").is_injective());
    // 2^30 * 2 == 2^31 * 1
    assert!(!lay("(2147483648,3):(1,1073741824)").is_injective());
    assert!(!lay("(2,2):(9223372036854775807,9223372036854775807)").is_injective());
    assert!(!lay("(18446744073709551615,1):(0,1)").is_injective());
}

/// `is_injective` of `l` within `limit`, or `None` when it did not answer in time (the
/// computing thread is left behind; the test process ends anyway).
fn is_injective_within(l: Layout, limit: std::time::Duration) -> Option<bool> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(l.is_injective());
    });
    rx.recv_timeout(limit).ok()
}

/// Three interleaved leaves of extent ~2^20 with strides ~2^40 (size ~2^59): the answers,
/// found independently by solving `x*d0 + y*d1 = -z*d2` over `z` with the extended
/// Euclidean algorithm, are `false`; the library's search does not finish.
#[test]
fn is_injective_of_three_interleaved_huge_leaves_answers_promptly() {
    let limit = std::time::Duration::from_secs(10);
    for text in [
        "(926579,733926,988910):(196882796031,1090241036898,1090240905555)",
        "(940249,627186,682235):(683386048953,683385990627,96824715624)",
        "(837409,624498,971069):(958554711802,197319575750,958554724796)",
    ] {
        assert_eq!(
            is_injective_within(lay(text), limit),
            Some(false),
            "is_injective({text})"
        );
    }
}

/// The error paths of complement, left_inverse and divide refine "modes do not chain"
/// into "not injective" by calling `is_injective`, so they inherit its hang: an
/// unchainable layout must be rejected promptly.
#[test]
fn complement_left_inverse_and_divide_reject_an_unchainable_huge_layout_promptly() {
    let text = "(926579,733926,988910):(196882796031,1090241036898,1090240905555)";
    let limit = std::time::Duration::from_secs(10);
    type Op = fn(Layout) -> Result<Layout, LayoutError>;
    let run = |f: Op| {
        let (tx, rx) = std::sync::mpsc::channel();
        let l = lay(text);
        std::thread::spawn(move || {
            let _ = tx.send(f(l));
        });
        rx.recv_timeout(limit).ok()
    };
    let ops: [(&str, Op); 3] = [
        ("complement", |l| l.complement(MAX)),
        ("left_inverse", |l| l.left_inverse()),
        ("divide", |l| lay("18446744073709551615:1").divide(&l)),
    ];
    for (name, f) in ops {
        match run(f) {
            None => panic!("{name}({text}) did not answer within {limit:?}"),
            Some(r) => value_error(r, &[]),
        }
    }
}

#[test]
fn rearrange_with_huge_values_moves_them_exactly() {
    let l = lay("(9223372036854775808,1):(1,18446744073709551615)");
    let out = Tree::new([Node::id(1), Node::id(0)]).unwrap();
    exact(
        l.rearrange(&out, None),
        "(1,9223372036854775808):(18446744073709551615,1)",
    );
    let out = Tree::new([Node::id(0), TreeItem::Leaf]).unwrap();
    exact(
        lay("18446744073709551615:1").rearrange(&out, None),
        "(18446744073709551615,1):(1,0)",
    );
}

// ---------------------------------------------------------------------------------------
// capacity: 32 leaves, 96 nodes
// ---------------------------------------------------------------------------------------

#[test]
fn capacity_32_leaves_parse_and_33_are_a_value_error() {
    assert_eq!(MAX_LEAVES, 32);
    let l = lay(&compact_text(32, 2));
    assert_eq!((l.leaf_count(), l.size()), (32, 1 << 32));
    value_error(
        compact_text(33, 2).parse::<Layout>(),
        &["more than 32 leaves"],
    );
    value_error(Shape::new(vec![1u64; 33]), &["more than 32 leaves"]);
}

#[test]
fn capacity_96_nodes_parse_and_97_are_a_value_error() {
    assert_eq!(MAX_NODES, 96);
    // d parentheses around one leaf: the outer pair is the tuple itself, so 2*(d-1) + 1
    let nested = |d: usize| format!("{}1{}", "(".repeat(d), ")".repeat(d));
    let ok: Shape = nested(48).parse().unwrap(); // 95 nodes
    assert_eq!(ok.size(), 1);
    // 47 inner levels and two leaves: 96 nodes
    let full = format!("{}1,1{}", "(".repeat(48), ")".repeat(48));
    assert!(full.parse::<Shape>().is_ok());
    value_error(nested(49).parse::<Shape>(), &["more than 96 tree nodes"]);
    value_error(
        format!("{}1,1,1{}", "(".repeat(48), ")".repeat(48)).parse::<Shape>(),
        &["more than 96 tree nodes"],
    );
}

#[test]
fn capacity_concat_and_append_beyond_32_leaves_are_value_errors() {
    let a = lay(&compact_text(16, 2));
    let b = lay(&compact_text(17, 2));
    value_error(a.concat(&b), &["more than 32 leaves"]);
    value_error(a.append(&b), &["more than 32 leaves"]);
    assert_eq!(a.concat(&a).unwrap().leaf_count(), 32);
}

#[test]
fn capacity_rearrange_inserting_a_33rd_leaf_is_a_value_error() {
    let l = lay(&compact_text(32, 2));
    let mut items = vec![TreeItem::Leaf];
    items.extend((0..32).map(Node::id));
    value_error(
        l.rearrange(&Tree::new(items).unwrap(), None),
        &["more than 32 leaves"],
    );
}

#[test]
fn capacity_compose_whose_result_needs_more_than_32_leaves_is_a_value_error() {
    // A: 17 modes of extent 4 whose strides never merge; B: a compact chain (2,4,...,4,2)
    // over A's domain, so each of B's 16 middle leaves spans two modes of A: 34 leaves
    let a_shape: Vec<String> = (0..17).map(|_| "4".to_string()).collect();
    let a_stride: Vec<String> = (0..17).map(|k| 5u64.pow(k).to_string()).collect();
    let a = lay(&format!("({}):({})", a_shape.join(","), a_stride.join(",")));
    let mut b_shape = vec![2u64];
    b_shape.extend([4; 16]);
    b_shape.push(2);
    let b = Layout::col_major(Shape::new(b_shape).unwrap()).unwrap();
    value_error(a.compose(&b), &["more than 32 leaves"]);
}

#[test]
fn capacity_products_and_divisions_beyond_32_leaves_are_value_errors() {
    let l32 = lay(&compact_text(32, 2));
    value_error(lay("2:1").logical_product(&l32), &["more than 32 leaves"]);
    value_error(l32.zipped_divide(&[lay("2:1")]), &["more than 32 leaves"]);
    // 16 + 16 leaves fit exactly
    let l16 = lay(&compact_text(16, 2));
    let p = l16.logical_product(&l16).unwrap();
    assert_eq!((p.leaf_count(), p.size()), (32, 1 << 32));
    for i in sample_keys(p.size()) {
        assert_eq!(p.index_of(i).unwrap(), i);
    }
}

#[test]
fn capacity_32_leaf_operations_that_fit_are_exact() {
    let l = lay(&compact_text(32, 2));
    assert_eq!(l.coalesce().to_string(), "4294967296:1");
    assert_eq!(l.filter().to_string(), "4294967296:1");
    assert!(l.is_injective());
    exact(l.right_inverse(), "4294967296:1");
    exact(lay("4294967296:1").compose(&l), &l.to_string());
    exact(l.compose(&lay("4294967296:1")), "4294967296:1");
    exact(l.divide(&lay("2:1")), "(2,2147483648):(1,2)");
    assert_eq!(
        l.uniform_preimage_extent(&Shape::new(P32).unwrap()),
        Some(1)
    );
    let l31 = lay(&compact_text(31, 2));
    exact(l31.left_inverse(), "2147483648:1");
    exact(l31.complement(1 << 32), "2:2147483648");
}

// ---------------------------------------------------------------------------------------
// The eval language on the same inputs
// ---------------------------------------------------------------------------------------

#[test]
fn eval_language_answers_overflow_inputs_with_exact_values_or_value_errors() {
    let cases: &[(&str, &str)] = &[
        ("size((4294967296,4294967296))", "error: value: size of (4294967296,4294967296) overflows 64 bits"),
        ("size((4294967296,4294967295))", "18446744069414584320"),
        ("layout((4294967296,4294967296),(1,4294967296))", "error: value: layout (4294967296,4294967296):(1,4294967296): 4294967296 * 4294967296 overflows 64 bits"),
        ("cosize(18446744073709551615:1)", "18446744073709551615"),
        ("index(18446744073709551615:1, 18446744073709551614)", "18446744073709551614"),
        ("index(18446744073709551615:1, 18446744073709551615)", "error: value: index(18446744073709551615:1, 18446744073709551615): key 18446744073709551615 is outside the shape domain [0, 18446744073709551615)"),
        ("index(4:1, 18446744073709551616)", "error: value: integer 18446744073709551616 does not fit in 64 bits"),
        ("coalesce((3,6148914691236517205):(1,3))", "18446744073709551615:1"),
        ("filter((2,3,2):(9223372036854775808,0,1))", "(2,2):(9223372036854775808,1)"),
        ("compose(18446744073709551615:1, 18446744073709551615:1)", "18446744073709551615:1"),
        ("compose(4:1, 18446744073709551615:1)", "18446744073709551615:1"),
        ("can_compose(4:1, 18446744073709551615:1)", "true"),
        ("can_compose(2:9223372036854775808, 3:1)", "false"),
        ("compose(18446744073709551615:1, 18446744073709551615)", "18446744073709551615:1"),
        ("complement(7:1, 18446744073709551615)", "2635249153387078803:7"),
        ("complement(18446744073709551615:1)", "1:0"),
        ("divide(18446744073709551615:1, 3:1)", "(3,6148914691236517205):(1,3)"),
        ("zipped_divide(18446744073709551615:1, 3:1)", "(3,6148914691236517205):(1,3)"),
        ("logical_product(2:1, 2:4611686018427387904)", "(2,2):(1,9223372036854775808)"),
        ("right_inverse(18446744073709551615:1)", "18446744073709551615:1"),
        ("left_inverse(3:6148914691236517205)", "(6148914691236517205,3):(0,1)"),
        ("concat(2:9223372036854775808, 2:4611686018427387904)", "(2,2):(9223372036854775808,4611686018427387904)"),
        ("broadcast_to(1:18446744073709551615, 18446744073709551615)", "18446744073709551615:0"),
        ("uniform_preimage_extent((18446744073709551615,1):(0,1), 1)", "18446744073709551615"),
        ("uniform_preimage_extent(2:1, (4294967296,4294967296))", "none"),
        ("is_injective((2,3,5):(9223372036854775808,1,3))", "true"),
        ("permute((9223372036854775808,1):(1,18446744073709551615), 1, 0)", "(1,9223372036854775808):(18446744073709551615,1)"),
        ("rearrange((9223372036854775808,1):(1,18446744073709551615), tree(id(1),id(0)))", "(1,9223372036854775808):(18446744073709551615,1)"),
        ("concat((2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2):(1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768), (2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2):(1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536))", "error: value: concat((2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2):(1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768), (2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2):(1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536)): more than 32 leaves in one layout"),
        ("size((1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1))", "error: value: int tuple: more than 32 leaves in one layout"),
        ("get((2,3):(1,2), 18446744073709551615)", "error: value: get((2,3):(1,2), 18446744073709551615): mode 18446744073709551615 is out of range for rank 2"),
    ];
    let mut failures = Vec::new();
    for (expr, want) in cases {
        let got = eval_line(expr);
        if got != *want {
            failures.push(format!("{expr}\n   want {want}\n   got  {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn eval_language_overflow_errors_are_value_errors_naming_the_values() {
    let cases: &[(&str, &[&str])] = &[
        (
            "compose(2:9223372036854775808, 3:1)",
            &["2 * 9223372036854775808 overflows 64 bits"],
        ),
        (
            "compose(4:2, 18446744073709551615:1)",
            &["18446744073709551614 * 2 overflows 64 bits"],
        ),
        (
            "divide(18446744073709551615:1, 2:1)",
            &["2 * 9223372036854775808 overflows 64 bits"],
        ),
        (
            "logical_product(18446744073709551615:1, 2:1)",
            &["18446744073709551615 * 2 overflows 64 bits"],
        ),
        (
            "blocked_product(2:1, 9223372036854775808:1)",
            &["2 * 9223372036854775808 overflows 64 bits"],
        ),
        (
            "raked_product(2:1, 9223372036854775808:1)",
            &["2 * 9223372036854775808 overflows 64 bits"],
        ),
        (
            "left_inverse(2:9223372036854775808)",
            &["9223372036854775808 * 2 overflows 64 bits"],
        ),
        (
            "concat(9223372036854775808:1, 2:1)",
            &["9223372036854775808 * 2 overflows 64 bits"],
        ),
        (
            "append(9223372036854775808:1, 2:0)",
            &["9223372036854775808 * 2 overflows 64 bits"],
        ),
        (
            "broadcast_to((1,1):(1,1), (4294967296,4294967296))",
            &["4294967296 * 4294967296 overflows 64 bits"],
        ),
        (
            "layout(3, 9223372036854775808)",
            &["2 * 9223372036854775808 overflows 64 bits"],
        ),
        (
            "layout(99999999999999999999, 1)",
            &["99999999999999999999 does not fit in 64 bits"],
        ),
        ("complement(2:1, 0)", &["cotarget 0"]),
    ];
    let mut failures = Vec::new();
    for (expr, needles) in cases {
        let got = eval_line(expr);
        let ok = got.starts_with("error: value: ") && needles.iter().all(|n| got.contains(n));
        if !ok {
            failures.push(format!(
                "{expr}\n   want value error with {needles:?}\n   got  {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn eval_language_32_leaf_complement_does_not_panic() {
    let l = compact_text(32, 2);
    for expr in [
        format!("complement({l}, 8589934592)"),
        format!("left_inverse({l})"),
        format!("divide(8589934592:1, {l})"),
    ] {
        let got = std::panic::catch_unwind(|| eval_line(&expr));
        assert!(got.is_ok(), "{expr} panicked");
    }
}
