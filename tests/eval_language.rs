//! The notation and `eval` language of `spec/layout-notation.md`: every function, the
//! printing of every value kind, `parse(print(x)) == x`, and the three error kinds.

use proptest::prelude::*;
use strideweave::eval::{eval, eval_line, Value};
use strideweave::{ErrorKind, IntTuple, Layout, Node};

#[track_caller]
fn check(cases: &[(&str, &str)]) {
    for (expr, want) in cases {
        assert_eq!(eval_line(expr), *want, "eval {expr:?}");
    }
}

#[track_caller]
fn kind(expr: &str) -> ErrorKind {
    match eval(expr) {
        Ok(v) => panic!("eval {expr:?} should fail, got {v}"),
        Err(e) => {
            let line = eval_line(expr);
            assert_eq!(line, format!("error: {}: {}", e.kind(), e.message()));
            assert!(!line.contains('\n'), "one line: {line:?}");
            e.kind()
        }
    }
}

// ---------------------------------------------------------------------------------------
// Spec examples
// ---------------------------------------------------------------------------------------

#[test]
fn spec_examples_print_exactly() {
    check(&[
        ("index((2,(3,4)):(1,(10,100)), (1,(2,3)))", "321"),
        ("cosize((2,3):(1,4))", "10"),
        ("compose(20:2, (5,4):(4,1))", "(5,4):(8,2)"),
        (
            "layout((2,(3,4)),(1,2,6))",
            "error: value: shape (2,(3,4)) and stride (1,2,6) are not congruent",
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// Values and their canonical printing
// ---------------------------------------------------------------------------------------

#[test]
fn values_print_canonically() {
    check(&[
        ("5", "5"),
        ("(5)", "5"),
        ("()", "()"),
        ("(2,(3,4))", "(2,(3,4))"),
        ("( 2 , ( 3 ,4 ) )", "(2,(3,4))"),
        ("20:2", "20:2"),
        ("(20):(2)", "20:2"),
        (
            " ( 2 , ( 3 , 4 ) ) : ( 1 , ( 10 , 100 ) ) ",
            "(2,(3,4)):(1,(10,100))",
        ),
        ("():()", "():()"),
        ("((2,3)):((1,2))", "((2,3)):((1,2))"),
        ("[2:1, (3,4):(1,3)]", "[2:1,(3,4):(1,3)]"),
        ("[4, 2:2]", "[4:1,2:2]"),
        ("[]", "[]"),
        (
            "tree(1, leaf, id(3), tree(leaf, id(0)))",
            "tree(leaf,leaf,id(3),tree(leaf,id(0)))",
        ),
        ("tree()", "tree()"),
        ("true", "true"),
        ("false", "false"),
        ("none", "none"),
        ("profile((2,(3,4)))", "[Leaf,Push,Leaf,Leaf,Pop]"),
        ("18446744073709551615", "18446744073709551615"),
    ]);
}

#[test]
fn a_bare_integer_is_a_rank_one_tuple() {
    assert_eq!(eval("20").unwrap(), eval("(20)").unwrap());
    assert_eq!(eval("20:2").unwrap(), eval("(20):(2)").unwrap());
    assert_eq!(eval("layout(20, 2)").unwrap(), eval("20:2").unwrap());
    assert_eq!(eval("rank(20)").unwrap(), eval("rank((20))").unwrap());
}

#[test]
fn every_printed_value_parses_back_to_itself() {
    for expr in [
        "5",
        "()",
        "(2,(3,(4,5)))",
        "(2,(3,4)):(1,(10,100))",
        "((2,3)):((1,2))",
        "():()",
        "[2:1,(3,4):(1,3)]",
        "[]",
        "tree(leaf,id(3),tree(leaf,id(0)))",
        "true",
        "false",
        "none",
        "compose(20:2, (5,4):(4,1))",
        "zipped_divide((8,8):(8,1), [2:1,4:1])",
        "shape((2,(3,4)):(1,(10,100)))",
    ] {
        let v = eval(expr).unwrap();
        let printed = v.to_string();
        assert_eq!(eval(&printed).unwrap(), v, "{expr} printed as {printed}");
        assert_eq!(eval_line(&printed), printed);
    }
}

// ---------------------------------------------------------------------------------------
// Every function
// ---------------------------------------------------------------------------------------

#[test]
fn function_layout() {
    check(&[
        ("layout((2,(3,4)),(1,(10,100)))", "(2,(3,4)):(1,(10,100))"),
        ("layout(20,2)", "20:2"),
        ("layout((),())", "():()"),
    ]);
    assert_eq!(kind("layout((0,2),(1,2))"), ErrorKind::Value);
    assert_eq!(kind("layout((2,3),(1,2,3))"), ErrorKind::Value);
    // core spec: "If shape is not a Shape, stride is not a Stride ... ValueError"
    assert_eq!(kind("layout(2:1,1)"), ErrorKind::Value);
    assert_eq!(kind("layout((2,3))"), ErrorKind::Type);
}

#[test]
fn function_shape_and_stride() {
    check(&[
        ("shape((2,(3,4)):(1,(10,100)))", "(2,(3,4))"),
        ("stride((2,(3,4)):(1,(10,100)))", "(1,(10,100))"),
        ("stride(20:2)", "2"),
    ]);
    assert_eq!(kind("shape(5)"), ErrorKind::Type);
    assert_eq!(kind("stride((2,3))"), ErrorKind::Type);
}

#[test]
fn function_size_cosize_rank_depth() {
    check(&[
        ("size((2,(3,4)):(1,(10,100)))", "24"),
        ("size((2,3))", "6"),
        ("size(())", "1"),
        ("size((4,3):(0,1))", "12"),
        ("cosize((2,(3,4)):(1,(10,100)))", "322"),
        ("cosize((4,3):(0,1))", "3"),
        ("rank((2,(3,4)):(1,(10,100)))", "2"),
        ("rank(5)", "1"),
        ("rank(())", "0"),
        ("depth((2,(3,4)):(1,(10,100)))", "2"),
        ("depth(20:2)", "0"),
        ("depth((2,3))", "1"),
        ("depth(((2,3)))", "2"),
    ]);
    assert_eq!(kind("size(true)"), ErrorKind::Type);
    assert_eq!(kind("size(1,2)"), ErrorKind::Type);
    assert_eq!(kind("cosize((2,3))"), ErrorKind::Type);
    assert_eq!(kind("size((4294967296,4294967296))"), ErrorKind::Value);
}

#[test]
fn function_profile() {
    check(&[
        ("profile((2,(3,4)):(1,(2,6)))", "[Leaf,Push,Leaf,Leaf,Pop]"),
        (
            "profile((7,(8,9)):(0,(5,100)))",
            "[Leaf,Push,Leaf,Leaf,Pop]",
        ),
        ("profile(5)", "[Leaf]"),
        ("profile(())", "[]"),
    ]);
    assert_eq!(kind("profile(none)"), ErrorKind::Type);
}

#[test]
fn function_is_injective() {
    check(&[
        ("is_injective((2,3):(1,4))", "true"),
        ("is_injective((4,2):(0,1))", "false"),
        ("is_injective((4,2):(1,1))", "false"),
        ("is_injective((1048576,1048576):(1,1048576))", "true"),
        ("is_injective((1048576,1048576):(1,1048575))", "false"),
    ]);
    assert_eq!(kind("is_injective((2,3))"), ErrorKind::Type);
}

#[test]
fn function_index() {
    check(&[
        ("index((2,(3,4)):(1,(10,100)), (1,(2,3)))", "321"),
        ("index((3,4):(2,10), 5)", "14"),
        ("index((3,4):(2,10), (2,1))", "14"),
        ("index((2,(3,4)):(1,(10,100)), (1,11))", "321"),
        ("index((2,(3,4)):(1,(10,100)), 23)", "321"),
    ]);
    assert_eq!(kind("index((3,4):(2,10), 12)"), ErrorKind::Value);
    assert_eq!(kind("index((3,4):(2,10), (3,0))"), ErrorKind::Value);
    assert_eq!(kind("index((3,4):(2,10), (1,2,3))"), ErrorKind::Value);
    assert_eq!(kind("index((3,4):(2,10), 2:1)"), ErrorKind::Type);
    // core spec: a negative coordinate is a value error
    assert_eq!(kind("index((3,4):(2,10), -1)"), ErrorKind::Value);
    // core spec: get_index of a non-Layout is a value error
    assert_eq!(kind("index((3,4), 1)"), ErrorKind::Value);
    assert!(eval_line("index((3,4):(2,10), 12)").contains("outside the shape domain"));
}

#[test]
fn function_get() {
    check(&[
        ("get((2,(3,4),5):(1,(2,6),24), 1)", "(3,4):(2,6)"),
        ("get((2,(3,4),5):(1,(2,6),24), 0)", "2:1"),
        ("get((2,(3,4),5):(1,(2,6),24), 0, 2)", "(2,(3,4)):(1,(2,6))"),
        ("get((2,(3,4),5):(1,(2,6),24), 1, 2)", "((3,4)):((2,6))"),
        ("get((2,(3,4)), 1)", "(3,4)"),
        ("get((2,(3,4)), 0, 1)", "2"),
    ]);
    assert_eq!(kind("get((2,3):(1,2), 2)"), ErrorKind::Value);
    assert_eq!(kind("get((2,3):(1,2), (0,1))"), ErrorKind::Type);
    assert_eq!(kind("get(true, 0)"), ErrorKind::Type);
}

#[test]
fn function_concat_and_append() {
    check(&[
        ("concat((1,2):(0,1), (3,4):(2,6))", "(1,2,3,4):(0,1,2,6)"),
        (
            "append((1,2):(0,1), (3,4):(2,6))",
            "(1,2,(3,4)):(0,1,(2,6))",
        ),
        ("append((1,2):(0,1), 3:2)", "(1,2,3):(0,1,2)"),
        ("concat(():(), 2:1)", "2:1"),
    ]);
    assert_eq!(kind("concat((1,2):(0,1), (3,4))"), ErrorKind::Type);
    assert_eq!(kind("append((1,2):(0,1))"), ErrorKind::Type);
}

#[test]
fn function_permute() {
    check(&[
        (
            "permute((2,(3,4),5):(1,(2,6),24), 1, 0, 2)",
            "((3,4),2,5):((2,6),1,24)",
        ),
        (
            "permute((2,(3,4),5):(1,(2,6),24), 2, 0, 1)",
            "(5,2,(3,4)):(24,1,(2,6))",
        ),
    ]);
    assert_eq!(kind("permute((2,3):(1,2), 0, 0)"), ErrorKind::Value);
    assert_eq!(kind("permute((2,3):(1,2), 0)"), ErrorKind::Value);
    assert_eq!(kind("permute((2,3):(1,2), 0, 2)"), ErrorKind::Value);
    assert_eq!(kind("permute((2,3):(1,2), 1, (0,1))"), ErrorKind::Type);
}

#[test]
fn function_broadcast_to() {
    check(&[(
        "broadcast_to((2,(1,3)):(1,(2,2)), (2,(4,3)))",
        "(2,(4,3)):(1,(0,2))",
    )]);
    assert_eq!(
        kind("broadcast_to((2,1,3):(1,2,2), (2,(4,3)))"),
        ErrorKind::Value
    );
    assert_eq!(kind("broadcast_to((2,1):(1,2), (3,4))"), ErrorKind::Value);
    assert_eq!(
        kind("broadcast_to((2,1):(1,2), (2,4):(1,0))"),
        ErrorKind::Type
    );
}

#[test]
fn function_uniform_preimage_extent() {
    check(&[
        ("uniform_preimage_extent((4,3):(0,1), 3)", "4"),
        ("uniform_preimage_extent((2,2):(1,1), 3)", "none"),
        ("uniform_preimage_extent((4,3):(0,1), (3,1))", "4"),
        ("uniform_preimage_extent((4,3):(0,1), 4)", "none"),
    ]);
    assert_eq!(
        kind("uniform_preimage_extent((4,3):(0,1), 3:1)"),
        ErrorKind::Type
    );
}

#[test]
fn function_rearrange() {
    check(&[
        (
            "rearrange((2,3):(1,2), tree(id(1),leaf,id(0)))",
            "(3,1,2):(2,0,1)",
        ),
        (
            "rearrange((1,(2,3)):(5,(7,14)), tree(id(1),id(0)), tree(leaf,leaf))",
            "((2,3),1):((7,14),5)",
        ),
        (
            "rearrange((2,3):(1,2), tree(id(1),tree(leaf,id(0))))",
            "(3,(1,2)):(2,(0,1))",
        ),
    ]);
    assert_eq!(
        kind("rearrange((2,3):(1,2), tree(id(1)))"),
        ErrorKind::Value
    );
    assert_eq!(
        kind("rearrange((2,3):(1,2), tree(id(0),id(0)))"),
        ErrorKind::Value
    );
    assert_eq!(
        kind("rearrange((2,3):(1,2), tree(id(0),id(2)))"),
        ErrorKind::Value
    );
    assert_eq!(
        kind("rearrange((2,3):(1,2), tree(id(0)), tree(leaf,leaf,leaf))"),
        ErrorKind::Value
    );
    // core spec: "If output is not a Tree ... ValueError"
    assert_eq!(kind("rearrange((2,3):(1,2), 5)"), ErrorKind::Value);
}

#[test]
fn function_compose_and_can_compose() {
    check(&[
        ("compose(20:2, (5,4):(4,1))", "(5,4):(8,2)"),
        ("compose((4,6,5):(1,5,30), (2,3))", "(2,3,5):(1,5,30)"),
        ("compose((4,6,5):(1,5,30), [2:1,3:1])", "(2,3,5):(1,5,30)"),
        (
            "compose((12,(4,8)):(59,(13,1)), [3:4, 8:2])",
            "(3,(2,4)):(236,(26,1))",
        ),
        ("can_compose((4,6):(1,5), 6:1)", "false"),
        ("can_compose((4,6):(1,5), 4:1)", "true"),
    ]);
    assert_eq!(kind("compose((4,6):(1,5), 6:1)"), ErrorKind::Value);
    assert!(eval_line("compose((4,6):(1,5), 6:1)").contains("divisibility"));
    assert_eq!(kind("compose(20:2, true)"), ErrorKind::Type);
    assert_eq!(kind("compose(20:2, [2:1, 3:1])"), ErrorKind::Value); // more tiles than modes
}

#[test]
fn function_complement() {
    check(&[
        ("complement((2,2):(1,6), 24)", "(3,2):(2,12)"),
        ("complement(4:1, 24)", "6:4"),
        ("complement((2,2):(1,6))", "3:2"), // default cotarget: the cosize
    ]);
    assert_eq!(kind("complement((4,2):(1,1), 8)"), ErrorKind::Value);
    assert!(eval_line("complement((4,2):(1,1), 8)").contains("self-overlap"));
    assert_eq!(kind("complement((2,3):(1,2), 5)"), ErrorKind::Value);
    // a shape cotarget (CuTe's) is checked like an integer one: the spec's value error
    assert_eq!(kind("complement((2,3):(1,2), (1,2))"), ErrorKind::Value);
    assert_eq!(
        kind("complement((2,(3,4)):(1,(2,6)), (24,5))"),
        ErrorKind::Value
    );
    assert!(eval_line("complement((2,(3,4)):(1,(2,6)), (24,5))").contains("not congruent"));
}

#[test]
fn function_divide_family() {
    check(&[
        (
            "divide((4,2,3):(2,1,8), 4:2)",
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "logical_divide((4,2,3):(2,1,8), 4:2)",
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "divide_tiler((8,8):(8,1), [2:1,4:1])",
            "((2,4),(4,2)):((8,16),(1,4))",
        ),
        (
            "divide_tiler((8,8):(8,1), (2,4))",
            "((2,4),(4,2)):((8,16),(1,4))",
        ),
        (
            "zipped_divide((8,8):(8,1), [2:1,4:1])",
            "((2,4),(4,2)):((8,1),(16,4))",
        ),
        (
            "zipped_divide((8,8):(8,1), (2,4))",
            "((2,4),(4,2)):((8,1),(16,4))",
        ),
        (
            "tiled_divide((8,8):(8,1), [2:1,4:1])",
            "((2,4),4,2):((8,1),16,4)",
        ),
        // trailing modes follow the tile and rest groups
        (
            "zipped_divide((8,8,3):(8,1,64), [2:1,4:1])",
            "((2,4),(4,2),3):((8,1),(16,4),64)",
        ),
    ]);
    assert_eq!(kind("divide((2,3):(1,2), true)"), ErrorKind::Type);
    assert_eq!(
        kind("zipped_divide((4,6):(1,5), [2:1,3:1,2:1])"),
        ErrorKind::Value
    );
}

#[test]
fn function_coalesce_and_filter() {
    check(&[
        ("coalesce((2,(1,6)):(1,(6,2)))", "12:1"),
        ("coalesce((2,3):(1,4))", "(2,3):(1,4)"),
        ("coalesce((1,1):(3,4))", "1:0"),
        ("filter((2,3,4):(1,0,2))", "8:1"),
        ("filter((2,1):(0,4))", "1:0"),
    ]);
    assert_eq!(kind("coalesce((2,3))"), ErrorKind::Type);
}

#[test]
fn function_inverses() {
    check(&[
        ("right_inverse((4,2):(2,1))", "(2,4):(4,1)"),
        ("right_inverse((3,2):(2,7))", "1:0"),
        // CuTe's left inverse sends the odd indices, which 4:2 never reaches, to 0
        ("left_inverse(4:2)", "(2,4):(0,1)"),
        ("left_inverse((4,2):(2,1))", "(2,4):(4,1)"),
    ]);
    assert_eq!(kind("left_inverse((4,2):(1,1))"), ErrorKind::Value);
    assert_eq!(kind("right_inverse(5)"), ErrorKind::Type);
}

#[test]
fn function_products() {
    check(&[
        ("logical_product((2,2):(1,2), 3:1)", "((2,2),3):((1,2),4)"),
        (
            "blocked_product((2,2):(2,1), (2,3):(3,1))",
            "((2,2),(2,3)):((2,12),(1,4))",
        ),
        (
            "raked_product((2,2):(2,1), (2,3):(3,1))",
            "((2,2),(3,2)):((12,2),(4,1))",
        ),
        ("blocked_product(2:1, 3:1)", "(2,3):(1,2)"),
        ("raked_product(2:1, 3:1)", "(3,2):(2,1)"),
    ]);
    assert_eq!(kind("blocked_product(2:1, 3)"), ErrorKind::Type);
}

#[test]
fn every_function_of_the_spec_table_is_known() {
    for f in [
        "layout",
        "shape",
        "stride",
        "size",
        "cosize",
        "rank",
        "depth",
        "profile",
        "is_injective",
        "index",
        "get",
        "concat",
        "append",
        "permute",
        "broadcast_to",
        "uniform_preimage_extent",
        "rearrange",
        "compose",
        "complement",
        "divide",
        "divide_tiler",
        "zipped_divide",
        "tiled_divide",
        "coalesce",
        "filter",
        "right_inverse",
        "left_inverse",
        "logical_product",
        "blocked_product",
        "raked_product",
    ] {
        // called with no arguments: a type (arity) error, never "unknown function"
        let e = eval(&format!("{f}()")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Type, "{f}(): {e}");
        assert!(!e.message().contains("unknown"), "{f}(): {e}");
    }
}

// ---------------------------------------------------------------------------------------
// Errors: syntax, type, value
// ---------------------------------------------------------------------------------------

#[test]
fn text_that_does_not_parse_is_a_syntax_error() {
    for bad in [
        "",
        "(2,3",
        "2:",
        "(2,3):",
        "2:1 x",
        "foo(1)",
        "x",
        "(2,,3)",
        "[2:1,",
        "(2;3)",
        "compose(20:2 (5,4):(4,1))",
        "1.5",
    ] {
        assert_eq!(kind(bad), ErrorKind::Syntax, "{bad:?}");
    }
    // the core spec makes these value errors: a negative id, extent, stride or coordinate,
    // a Tree item that is not an integer, leaf marker or tree, a non-Tree rearrange output
    for bad in [
        "tree(id(-1))",
        "-1",
        "layout((2,3),(1,-2))",
        "tree(bogus)",
        "tree((1,2))",
        "rearrange(2:1, (1,2))",
    ] {
        assert_eq!(kind(bad), ErrorKind::Value, "{bad:?}");
    }
    assert!(eval_line("foo(1)").contains("unknown function 'foo'"));
    assert!(eval_line("(2,3").contains("column"));
}

#[test]
fn a_value_of_the_wrong_kind_is_a_type_error() {
    for bad in [
        "size(true)",
        "compose((2,3), 2:1)",
        // (a layout cotarget is CuTe's: its shape; see tests/cute_dsl_expand_ops.rs)
        "complement(2:1, true)",
        "[true]",
        "[tree()]",
        "index(2:1, none)",
        "is_injective(none)",
        "logical_product(2:1, true)",
    ] {
        assert_eq!(kind(bad), ErrorKind::Type, "{bad:?}");
    }
}

#[test]
fn a_rejected_value_is_a_value_error() {
    for bad in [
        "layout((2,(3,4)),(1,2,6))",
        "(2,0):(1,2)",
        "18446744073709551616",
        "(4294967296,4294967296):(1,4294967296)",
        "index((3,4):(2,10), (3,0))",
        "complement((4,2):(1,1), 8)",
        "compose((4,6):(1,5), 6:1)",
        "permute((2,3):(1,2), 1, 1)",
        "broadcast_to((2,1):(1,2), (3,4))",
    ] {
        assert_eq!(kind(bad), ErrorKind::Value, "{bad:?}");
    }
    assert!(eval_line("(4294967296,4294967296):(1,4294967296)").contains("overflow"));
}

/// Errors name the call as the user wrote it, in the notation: not a layout the
/// function built inside (`idx2crd` used to say `index((2,(3,4)):(1,(2,6)), 24)`), nor
/// Rust's debug form of its arguments (`[0, 0]`, `Tup([Int(1)])`).
#[test]
fn an_error_names_the_call_as_written() {
    let cases = [
        (
            "idx2crd(24, (2,(3,4)))",
            "idx2crd(24, (2,(3,4))): key 24 is outside the shape domain [0, 24)",
        ),
        (
            "crd2idx((1,4), (2,4))",
            "crd2idx((1,4), (2,4)): key 4 is outside the shape domain [0, 4)",
        ),
        (
            "crd2idx((1,(1,1)), (2,4), (1,2))",
            "crd2idx((1,(1,1)), (2,4), (1,2)): coordinate (1,(1,1)) does not match the hierarchy of shape (2,4)",
        ),
        (
            "permute((2,3):(1,2), 0, 0)",
            "permute((2,3):(1,2), 0, 0): mode 0 appears more than once",
        ),
        (
            "select((2,3):(1,2), 1, 5)",
            "select((2,3):(1,2), 1, 5): mode 5",
        ),
        (
            "elem_less((1,2), ((1,2),3))",
            "elem_less: an integer and a tuple are not comparable (1 vs (1,2))",
        ),
    ];
    for (expr, want) in cases {
        let got = eval_line(expr);
        assert!(got.contains(want), "{expr}: {got}");
    }
}

// ---------------------------------------------------------------------------------------
// parse(print(x)) == x on random values
// ---------------------------------------------------------------------------------------

fn tuple_text() -> impl Strategy<Value = String> {
    let leaf = (1u64..=100).prop_map(|v| v.to_string());
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop::collection::vec(inner, 0..=4).prop_map(|v| format!("({})", v.join(",")))
    })
}

fn config() -> ProptestConfig {
    let cases = std::env::var("STRIDEWEAVE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(cases)
    }
}

/// A stride text congruent to `shape` with leaves drawn from `seeds`.
fn congruent(shape: &IntTuple, seeds: &[u64]) -> IntTuple {
    let mut out = IntTuple::EMPTY;
    let mut k = 0;
    for &n in shape.recipe() {
        match n {
            Node::Leaf => {
                out.push_leaf(seeds[k % seeds.len()]).unwrap();
                k += 1;
            }
            other => out.push_node(other).unwrap(),
        }
    }
    out
}

proptest! {
    #![proptest_config(config())]

    /// Int tuples and layouts print canonically and parse back to the same value, both
    /// through `FromStr` and through the eval language.
    #[test]
    fn parse_of_print_is_identity(text in tuple_text(), seeds in prop::collection::vec(0u64..1000, 1..8)) {
        let t: IntTuple = text.parse().unwrap();
        let printed = t.to_string();
        prop_assert!(!printed.contains(' '));
        prop_assert_eq!(printed.parse::<IntTuple>().unwrap(), t);
        prop_assert_eq!(eval(&printed).unwrap(), Value::Tuple(t));
        prop_assert_eq!(eval_line(&printed), printed.clone());
        let stride = congruent(&t, &seeds);
        if let Ok(l) = Layout::from_trees(t, stride) {
            let lp = l.to_string();
            prop_assert_eq!(lp.parse::<Layout>().unwrap(), l);
            prop_assert_eq!(eval(&lp).unwrap(), Value::Layout(l));
            prop_assert_eq!(eval_line(&lp), lp.clone());
            prop_assert_eq!(eval_line(&format!("layout({t},{stride})")), lp.clone());
            prop_assert_eq!(eval_line(&format!("shape({lp})")), printed.clone());
            prop_assert_eq!(eval_line(&format!("stride({lp})")), stride.to_string());
            // whitespace between tokens is ignored
            let spaced = lp.replace(',', " , ").replace('(', " ( ").replace(':', " :\t");
            prop_assert_eq!(eval_line(&spaced), lp.clone());
        }
    }
}

/// CuTe (and pycute) read one integer given to a division or product as the layout `n:1`
/// over the whole layout; a tuple of several integers is a by-mode tiler.
#[test]
fn an_integer_divisor_or_factor_is_the_layout_n_1() {
    assert_eq!(
        eval_line("logical_product((2,5):(5,1), 4)"),
        "((2,5),4):((5,1),10)"
    );
    assert_eq!(
        eval_line("logical_product((2,5):(5,1), 4)"),
        eval_line("logical_product((2,5):(5,1), 4:1)")
    );
    assert_eq!(
        eval_line("zipped_divide((8,8):(8,1), 4)"),
        eval_line("divide((8,8):(8,1), 4:1)")
    );
    assert_eq!(
        eval_line("divide((8,8):(8,1), (2,4))"),
        eval_line("divide_tiler((8,8):(8,1), [2:1,4:1])")
    );
}

/// pycute's composition cases that exercise truncation and pre-coalescing.
#[test]
fn compose_matches_pycute_truncation_cases() {
    assert_eq!(
        eval_line("compose((4,6,8,10):(2,3,5,7), 6:12)"),
        "(2,3):(9,5)"
    );
    assert_eq!(eval_line("compose((4,6,8):(1,4,7), 6:1)"), "6:1");
    assert_eq!(
        eval_line("compose(((4,2)):((1,16)), (4,2):(2,1))"),
        "((2,2),2):((2,16),1)"
    );
}

/// A product is rejected only where CuTe's copies of A really land on A (found by fuzzing
/// and by the post-condition suite): the first two collide, the third does not.
#[test]
fn products_reject_exactly_the_overlapping_cases() {
    for overlapping in [
        "logical_product(((8,6),(2,1)):((31,3),(1,31)), 2:1)",
        "logical_product((2,2):(2,6), 2:2)",
        "blocked_product((2,2):(2,6), 2:2)",
    ] {
        let out = eval_line(overlapping);
        assert!(out.starts_with("error: value: "), "{overlapping}: {out}");
        assert!(out.contains("copies of A"), "{overlapping}: {out}");
    }
    assert_eq!(
        eval_line("logical_product((2,1,2):(3,8,10), 3:2)"),
        "((2,1,2),3):((3,8,10),2)"
    );
    assert_eq!(eval_line("is_injective(((2,1,2),3):((3,8,10),2))"), "true");
}

// ---------------------------------------------------------------------------------------
// Nesting limit (hardening: no input overflows the stack)
// ---------------------------------------------------------------------------------------

/// Evaluates `text` on a thread with a 2 MiB stack (Rust's default for spawned threads,
/// smaller than a main thread's), so a deep recursion shows as an abort here.
fn eval_on_small_stack(text: String) -> String {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || eval_line(&text))
        .unwrap()
        .join()
        .unwrap()
}

/// Expressions nested to the 64-level limit evaluate on a 2 MiB stack, in any build
/// (an unoptimized build's frames are the largest), and one level more is a syntax error:
/// calls, tilers and trees. (A slicing coordinate meets the 32-leaf and 96-node limits
/// first; its error says so rather than the tuple reading's complaint about `_`.)
#[test]
fn expressions_nested_to_the_limit_fit_a_small_thread_stack() {
    let nest = |open: &str, inner: &str, close: &str, n: usize| {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    };
    let forms = [
        ("coalesce(", "4:1", ")", "4:1"),
        (
            "[",
            "4:1",
            "]",
            "error: type: a tiler holds layouts, found a tiler",
        ),
        ("tree(", "leaf", ")", ""),
    ];
    for (open, inner, close, want) in forms {
        // `tree(`'s innermost level is its `leaf` item list: 63 opens reach 64 levels.
        let ok = eval_on_small_stack(nest(open, inner, close, 63));
        assert!(ok.starts_with(want), "{open}...: {ok}");
        let deep = eval_on_small_stack(nest(open, inner, close, 64));
        assert!(
            deep.contains("nested more than 64 levels deep"),
            "{open}... 64: {deep}"
        );
    }
    let coordinate = nest("(_,", "0", ")", 40);
    assert_eq!(
        eval_on_small_stack(coordinate),
        "error: value: coordinate: more than 32 leaves in one layout"
    );
}
