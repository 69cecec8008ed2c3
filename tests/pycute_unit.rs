//! CUTLASS's pycute unit tests (`test/python/pycute/test_*.py`), case by case, run through
//! StrideWeave's runtime `Layout` and `eval`. Each test is named after the pycute test
//! method it mirrors and checks what that method asserts; values are evaluated by brute
//! force from the leaves, independent of the library's index arithmetic.
//! (`test_typing.py` checks Python's `Integer` type alias and has no Rust counterpart.)

use strideweave::eval::eval_line;
use strideweave::Layout;

fn lay(s: &str) -> Layout {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// `l(i)`, first mode fastest; past `size(l)` the last leaf takes what is left of `i`.
fn at(l: &Layout, i: u64) -> u64 {
    let n = l.leaf_count();
    let mut rest = i;
    let mut idx = 0;
    for k in 0..n {
        let (s, d) = (l.leaf_extent(k), l.leaf_stride(k));
        let c = if k + 1 == n { rest } else { rest % s };
        rest /= s;
        idx += c * d;
    }
    idx
}

fn check(cases: &[(&str, &str)]) {
    for (expr, want) in cases {
        assert_eq!(eval_line(expr), *want, "{expr}");
    }
}

/// `TestCoalesce.test_coalesce`: the same size and the same value at every `i < size`.
#[test]
fn pycute_test_coalesce() {
    for l in [
        "1:0",
        "1:1",
        "(2,4):(1,2)",
        "(2,4,6):(1,2,8)",
        "(2,4,6):(1,6,2)",
        "(2,1,6):(1,7,2)",
        "(2,1,6):(4,7,8)",
        "(2,(4,6)):(1,(2,8))",
        "(2,4):(4,1)",
        "(2,4,6):(24,6,1)",
        "(2,1,3):(2,4,4)",
        "((2,2),(2,2)):((1,4),(8,32))",
    ] {
        let l = lay(l);
        let r = l.coalesce();
        assert_eq!(r.size(), l.size(), "coalesce({l}) = {r}");
        for i in 0..l.size() {
            assert_eq!(at(&r, i), at(&l, i), "coalesce({l}) = {r} at {i}");
        }
    }
    // pycute's `Layout((2,4))` is the compact column-major layout
    check(&[("make_layout((2,(4,6)))", "(2,(4,6)):(1,(2,8))")]);
}

/// `TestComplement.test_complement`: the codomains of L and `complement(L)` meet only at 0.
/// `Layout(4,0)` is not injective, and the layout specification makes its complement an
/// error (pycute returns a layout).
#[test]
fn pycute_test_complement() {
    for l in [
        "1:0",
        "1:1",
        "(2,4):(1,2)",
        "(2,3):(1,2)",
        "(2,4):(1,4)",
        "(2,4,8):(8,1,64)",
        "((2,2),(2,2)):((1,4),(8,32))",
        "(2,(3,4)):(3,(1,6))",
        "(4,6):(1,6)",
        "(4,10):(1,10)",
    ] {
        let l = lay(l);
        let r = eval_line(&format!("complement({l})"));
        let r = lay(&r);
        for a in 0..l.size() {
            for b in 0..r.size() {
                let (x, y) = (at(&l, a), at(&r, b));
                assert!(x != y || (x == 0 && y == 0), "complement({l}) = {r}");
            }
        }
    }
    assert!(eval_line("complement(4:0)").starts_with("error: value:"));
}

/// `TestComposition.test_composition`: `R(i) == A(B(i))` for every `i < size(R)`, and
/// (C++'s stronger condition) R has B's size.
#[test]
fn pycute_test_composition() {
    for (a, b) in [
        ("1:0", "1:0"),
        ("1:0", "1:1"),
        ("1:1", "1:0"),
        ("1:1", "1:1"),
        ("4:1", "4:1"),
        ("4:2", "4:1"),
        ("4:1", "4:2"),
        ("4:0", "4:1"),
        ("4:1", "4:0"),
        ("1:0", "4:1"),
        ("4:1", "1:0"),
        ("4:1", "2:1"),
        ("4:2", "2:1"),
        ("4:1", "2:2"),
        ("4:2", "2:2"),
        ("12:1", "(4,3):(1,4)"),
        ("12:2", "(4,3):(1,4)"),
        ("12:1", "(4,3):(3,1)"),
        ("12:2", "(4,3):(3,1)"),
        ("12:1", "(2,3):(2,4)"),
        ("(4,3):(1,4)", "(4,3):(1,4)"),
        ("(4,3):(1,4)", "12:1"),
        ("(4,3):(1,4)", "6:2"),
        ("(4,3):(1,4)", "(6,2):(2,1)"),
        ("(4,3):(3,1)", "(4,3):(1,4)"),
        ("(4,3):(3,1)", "12:1"),
        ("(4,3):(3,1)", "6:2"),
        ("(4,3):(3,1)", "(6,2):(2,1)"),
        ("(8,8):(1,8)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"),
        ("(8,8):(8,1)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"),
        ("((2,2,2),(2,2,2)):((1,16,4),(8,2,32))", "8:4"),
        ("((4,2)):((1,16))", "(4,2):(2,1)"),
        ("(2,2):(2,1)", "(2,2):(2,1)"),
        ("(4,8,2):(1,4,32)", "(2,2,2):(2,8,1)"),
        ("(4,8,2):(2,8,1)", "(2,2,2):(1,8,2)"),
        ("(4,8,2):(2,8,1)", "(4,2,2):(2,8,1)"),
        // pre-coalesced LHS
        ("(4,6,8):(1,4,7)", "6:1"),
        // mid-layout truncation
        ("(4,6,8,10):(2,3,5,7)", "6:12"),
    ] {
        let (a, b) = (lay(a), lay(b));
        let r = a
            .compose(&b)
            .unwrap_or_else(|e| panic!("pycute's test composes {a} o {b}: {e}"));
        assert_eq!(r.size(), b.size(), "compose({a}, {b}) = {r}");
        for i in 0..r.size() {
            assert_eq!(
                at(&r, i),
                at(&a, at(&b, i)),
                "compose({a}, {b}) = {r} at {i}"
            );
        }
    }
}

/// `TestIntTuple`: `test_product`, `test_inner_product`, `test_shape_div`,
/// `test_prefix_product`.
#[test]
fn pycute_test_int_tuple() {
    check(&[
        // test_product
        ("product(2)", "2"),
        ("product((3,2))", "6"),
        ("product(product(((2,3),4)))", "24"),
        ("size(((2,3),4))", "24"),
        // test_inner_product
        ("inner_product(2, 3)", "6"),
        ("inner_product((1,2), (3,2))", "7"),
        ("inner_product(((2,3),4), ((2,1),2))", "15"),
        // test_shape_div
        ("shape_div((3,4), 6)", "(1,2)"),
        ("shape_div((3,4), 12)", "(1,1)"),
        ("shape_div((3,4), 36)", "(1,1)"),
        ("shape_div(((3,4),6), 36)", "((1,1),2)"),
        ("shape_div((6,(3,4)), 36)", "(1,(1,2))"),
        // test_prefix_product
        ("prefix_product(2)", "1"),
        ("prefix_product((3,2))", "(1,3)"),
        ("prefix_product((3,2,4))", "(1,3,6)"),
        ("prefix_product(((2,3),4))", "((1,2),6)"),
        (
            "prefix_product(((2,3),(2,1,2),(5,2,1)))",
            "((1,2),(6,12,12),(24,120,240))",
        ),
    ]);
}

/// `TestLeftInverse.test_left_inverse`: `R(L(i)) == i` for every `i < size(L)`.
#[test]
fn pycute_test_left_inverse() {
    for l in [
        "1:0",
        "(1,1):(0,0)",
        "1:1",
        "4:1",
        "4:2",
        "(8,4):(1,8)",
        "(8,4):(4,1)",
        "(2,4,6):(1,2,8)",
        "(2,4,6):(4,1,8)",
        "(4,2):(1,16)",
    ] {
        let l = lay(l);
        let r = l.left_inverse().unwrap();
        for i in 0..l.size() {
            assert_eq!(at(&r, at(&l, i)), i, "left_inverse({l}) = {r} at {i}");
        }
    }
}

/// `TestRightInverse.test_right_inverse`: `L(R(i)) == i` for every `i < size(R)`.
#[test]
fn pycute_test_right_inverse() {
    for l in [
        "1:0",
        "(1,1):(0,0)",
        "(3,7):(0,0)",
        "1:1",
        "4:0",
        "4:1",
        "4:2",
        "(2,4):(0,2)",
        "(8,4):(1,8)",
        "(8,4):(4,1)",
        "(2,4,6):(1,2,8)",
        "(2,4,6):(4,1,8)",
        "(4,2):(1,16)",
    ] {
        let l = lay(l);
        let r = l.right_inverse().unwrap();
        for i in 0..r.size() {
            assert_eq!(at(&l, at(&r, i)), i, "right_inverse({l}) = {r} at {i}");
        }
    }
}

/// pycute's `TestProduct` (`test_product.py`): rank 2, mode 0 is A, mode 1 has B's size;
/// an integer tiler `n` is `Layout(n)` (`n:1`), a tuple of integers the tiler of those.
#[test]
fn pycute_test_logical_product() {
    for (a, b) in [
        ("1:0", "1:0"),
        ("1:1", "1:0"),
        ("1:0", "1:1"),
        ("1:1", "1:1"),
        ("3:1", "4:0"),
        ("3:0", "4:1"),
        ("3:0", "4:0"),
        ("3:2", "4:1"),
        ("3:1", "(2,4):(1,2)"),
        ("(2,5):(5,1)", "4:1"),
        ("3:2", "4:1"),
    ] {
        let (a, b) = (lay(a), lay(b));
        let r = a.logical_product(&b).unwrap();
        assert_eq!(r.rank(), 2, "logical_product({a}, {b}) = {r}");
        assert_eq!(
            Layout::EMPTY.append(&r.get(0).unwrap()).unwrap(),
            Layout::EMPTY.append(&a).unwrap(),
            "logical_product({a}, {b}) = {r}"
        );
        assert_eq!(
            r.get(1).unwrap().size(),
            b.size(),
            "logical_product({a}, {b})"
        );
    }
    // test_logical_product_int_tiler, test_logical_product_tuple_tiler,
    // test_zipped_tiled_product_int_tiler
    for (x, y) in [
        (
            "logical_product((2,5):(5,1), 4)",
            "logical_product((2,5):(5,1), 4:1)",
        ),
        ("logical_product(3:2, 4)", "logical_product(3:2, 4:1)"),
        (
            "logical_product((2,5):(5,1), (4,2))",
            "logical_product((2,5):(5,1), [4:1, 2:1])",
        ),
        (
            "zipped_product((2,5):(5,1), 4)",
            "zipped_product((2,5):(5,1), 4:1)",
        ),
        (
            "tiled_product((2,5):(5,1), 4)",
            "tiled_product((2,5):(5,1), 4:1)",
        ),
    ] {
        let (ex, ey) = (eval_line(x), eval_line(y));
        assert!(!ex.starts_with("error"), "{x}: {ex}");
        assert_eq!(ex, ey, "{x} vs {y}");
    }
}
