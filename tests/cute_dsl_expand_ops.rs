//! The CuTe compiler's own layout-algebra tests (CUTLASS `cutlass_compiler/cute_ir/test/
//! Conversion/CuteExpandOps/**/*.mlir`): each lowers one `cute.<op>` on fully static
//! operands and states the result type, i.e. CuTe's answer. Every fully static case is
//! run here through `eval` and compared with that answer, read through StrideWeave's
//! notation (so CuTe's `(20):(3)` is `20:3`).
//!
//! Left out, on purpose: tiles written as one-item tuples (`[(3):(1), (4):(1)]`, the same
//! tiles as `[3:1, 4:1]` in StrideWeave, where `(x)` and `x` are one value); products and
//! divisions of coordinate layouts (StrideWeave's coordinate layouts take no products,
//! and its padding mode of extent 1 has stride 0 where the compiler keeps the span);
//! layouts composed with a layout (`L o O o L2`), which StrideWeave has only for
//! swizzles; and operations without an `eval` counterpart (`tuple_add`, `tuple_sub`,
//! `increment_coord`, `tuple_product_each`).

use strideweave::eval::eval_line;

#[test]
fn cute_compiler_expand_ops_static_cases() {
    let cases = [
        // blocked_product.mlir
        (
            "blocked_product((3,4):(4,1), (2,5):(1,2))",
            "((3,2),(4,5)):((4,12),(1,24))",
        ),
        (
            "blocked_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2))",
            "Sw<3,4,3> o ((5,2),(4,5)):((4,20),(1,40))",
        ),
        (
            "blocked_product((3,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "((3,2),(4,3),(2,5)):((8,24),(2,48),(1,144))",
        ),
        (
            "blocked_product(Sw<3,4,3> o (5,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "Sw<3,4,3> o ((5,2),(4,3),(2,5)):((8,40),(2,80),(1,240))",
        ),
        // ceil_div.mlir
        ("ceil_div(7, 3)", "3"),
        ("ceil_div((8,10), (3,4))", "(3,3)"),
        ("ceil_div((8,10,6), (3,4))", "(3,3,6)"),
        // coalesce.mlir
        ("coalesce((4,5):(1,4))", "20:1"),
        ("coalesce((3,(4,5)):(8,(1,4)))", "(3,20):(8,1)"),
        ("coalesce((3,(4,5)):(8,(1,4)), (1,1))", "(3,20):(8,1)"),
        // complement.mlir
        ("complement(3:2, 6)", "2:1"),
        ("complement(3:2, 6:1)", "2:1"),
        // composition.mlir
        ("compose((4,8):(1,4), (2,4):(1,2))", "(2,4):(1,2)"),
        // cosize.mlir
        ("cosize((4,3,2):(1,4,12))", "24"),
        ("cosize((4,(3,2),5):(1,(4,12),24))", "120"),
        // crd2idx.mlir
        ("crd2idx((1,2), (4,8))", "9"),
        // flat_divide.mlir
        ("flat_divide((6,8):(8,1), (3,4))", "(3,4,2,2):(8,1,24,4)"),
        (
            "flat_divide((6,8):(8,1), [3:1, 4:1])",
            "(3,4,2,2):(8,1,24,4)",
        ),
        (
            "flat_divide(Sw<3,4,3> o (6,8):(8,1), (3,4))",
            "Sw<3,4,3> o (3,4,2,2):(8,1,24,4)",
        ),
        (
            "flat_divide((6,8):(8,1), (3,4):(1,3))",
            "(3,(2,2),4):(8,(24,1),2)",
        ),
        (
            "flat_divide(Sw<3,4,3> o (6,8):(8,1), (3,4):(1,3))",
            "Sw<3,4,3> o (3,(2,2),4):(8,(24,1),2)",
        ),
        // flat_product.mlir
        (
            "flat_product((3,4):(4,1), (2,5):(1,2))",
            "(3,4,2,5):(4,1,12,24)",
        ),
        (
            "flat_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2))",
            "Sw<3,4,3> o (5,4,2,5):(4,1,20,40)",
        ),
        (
            "flat_product((3,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "(3,4,2,2,3,5):(8,2,1,24,48,144)",
        ),
        (
            "flat_product(Sw<3,4,3> o (5,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "Sw<3,4,3> o (5,4,2,2,3,5):(8,2,1,40,80,240)",
        ),
        // flatten.mlir
        ("flatten((3,(4,5)):(8,(1,4)))", "(3,4,5):(8,1,4)"),
        ("flatten((3,(4,5)))", "(3,4,5)"),
        // idx2crd.mlir
        ("idx2crd(9, (4,8))", "(1,2)"),
        ("idx2crd(0, ())", "()"),
        // layout_eval.mlir
        ("index((4,8):(1,4), (1,2))", "9"),
        ("index((4,(3,2),5):(1,(4,12),24), (1,(2,1),3))", "93"),
        ("index(Sw<1,4,3> o (32):(32), 6)", "208"),
        // left_inverse.mlir
        ("left_inverse((4,3):(3,1))", "(3,4):(4,1)"),
        ("left_inverse((4,3):(1,4))", "12:1"),
        // logical_divide.mlir
        (
            "logical_divide((4,2,3):(2,1,8), 4:2)",
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "logical_divide((6,8):(8,1), (3,4))",
            "((3,2),(4,2)):((8,24),(1,4))",
        ),
        (
            "logical_divide((6,8):(8,1), [3:1, 4:1])",
            "((3,2),(4,2)):((8,24),(1,4))",
        ),
        (
            "logical_divide(Sw<3,4,3> o (6,8):(8,1), (3,4))",
            "Sw<3,4,3> o ((3,2),(4,2)):((8,24),(1,4))",
        ),
        (
            "logical_divide(Sw<3,4,3> o (6,8):(8,1), (3,4):(1,3))",
            "Sw<3,4,3> o ((3,(2,2)),4):((8,(24,1)),2)",
        ),
        // logical_product.mlir
        (
            "logical_product((2,2):(4,1), 6:1)",
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "logical_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2))",
            "Sw<3,4,3> o ((5,4),(2,5)):((4,1),(20,40))",
        ),
        (
            "logical_product((3,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "((3,4,2),(2,3,5)):((8,2,1),(24,48,144))",
        ),
        (
            "logical_product(Sw<3,4,3> o (5,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "Sw<3,4,3> o ((5,4,2),(2,3,5)):((8,2,1),(40,80,240))",
        ),
        // make_ordered_layout.mlir
        ("make_ordered_layout((4,2), (0,1))", "(4,2):(1,4)"),
        // raked_product.mlir
        (
            "raked_product((3,4):(4,1), (2,5):(1,2))",
            "((2,3),(5,4)):((12,4),(24,1))",
        ),
        (
            "raked_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2))",
            "Sw<3,4,3> o ((2,5),(5,4)):((20,4),(40,1))",
        ),
        (
            "raked_product((3,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "((2,3),(3,4),(5,2)):((24,8),(48,2),(144,1))",
        ),
        (
            "raked_product(Sw<3,4,3> o (5,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "Sw<3,4,3> o ((2,5),(3,4),(5,2)):((40,8),(80,2),(240,1))",
        ),
        // right_inverse.mlir
        ("right_inverse((4,3):(1,4))", "12:1"),
        ("right_inverse((4,3):(3,1))", "(3,4):(4,1)"),
        // shape_div.mlir
        ("shape_div(12, 4)", "3"),
        ("shape_div((8,10), (2,5))", "(4,2)"),
        ("shape_div((4,5,6), 40)", "(1,1,3)"),
        ("shape_div(24, (2,3))", "4"),
        // size.mlir
        ("size((2,3,4):(1,2,6))", "24"),
        // tile_to_shape.mlir
        (
            "tile_to_shape((3,2):(1,3), (6,8))",
            "((3,2),(2,4)):((1,6),(3,12))",
        ),
        (
            "tile_to_shape(Sw<3,4,3> o (3,2):(1,3), (6,8))",
            "Sw<3,4,3> o ((3,2),(2,4)):((1,6),(3,12))",
        ),
        (
            "tile_to_shape((128,128):(128,1), (1024,512), (0,1))",
            "((128,8),(128,4)):((128,16384),(1,131072))",
        ),
        (
            "tile_to_shape((128,128):(128,1), (1024,512), (1,0))",
            "((128,8),(128,4)):((128,65536),(1,16384))",
        ),
        (
            "tile_to_shape(Sw<3,4,3> o (3,2):(1,3), (6,8), (1,0))",
            "Sw<3,4,3> o ((3,2),(2,4)):((1,24),(3,6))",
        ),
        // tiled_divide.mlir
        (
            "tiled_divide((6,8):(8,1), (3,4))",
            "((3,4),2,2):((8,1),24,4)",
        ),
        (
            "tiled_divide((6,8):(8,1), [3:1, 4:1])",
            "((3,4),2,2):((8,1),24,4)",
        ),
        (
            "tiled_divide(Sw<3,4,3> o (6,8):(8,1), (3,4))",
            "Sw<3,4,3> o ((3,4),2,2):((8,1),24,4)",
        ),
        (
            "tiled_divide((6,8):(8,1), (3,4):(1,3))",
            "((3,(2,2)),4):((8,(24,1)),2)",
        ),
        (
            "tiled_divide(Sw<3,4,3> o (6,8):(8,1), (3,4):(1,3))",
            "Sw<3,4,3> o ((3,(2,2)),4):((8,(24,1)),2)",
        ),
        // tiled_product.mlir
        (
            "tiled_product((3,4):(4,1), (2,5):(1,2))",
            "((3,4),2,5):((4,1),12,24)",
        ),
        (
            "tiled_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2))",
            "Sw<3,4,3> o ((5,4),2,5):((4,1),20,40)",
        ),
        (
            "tiled_product((3,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "((3,4,2),2,3,5):((8,2,1),24,48,144)",
        ),
        (
            "tiled_product(Sw<3,4,3> o (5,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "Sw<3,4,3> o ((5,4,2),2,3,5):((8,2,1),40,80,240)",
        ),
        // tuple_product.mlir
        ("product((2,(3,4)))", "24"),
        ("product(())", "1"),
        // zipped_divide.mlir
        (
            "zipped_divide((6,8):(8,1), (3,4))",
            "((3,4),(2,2)):((8,1),(24,4))",
        ),
        (
            "zipped_divide((6,8):(8,1), [3:1, 4:1])",
            "((3,4),(2,2)):((8,1),(24,4))",
        ),
        (
            "zipped_divide(Sw<3,4,3> o (6,8):(8,1), (3,4))",
            "Sw<3,4,3> o ((3,4),(2,2)):((8,1),(24,4))",
        ),
        (
            "zipped_divide((6,8):(8,1), (3,4):(1,3))",
            "((3,(2,2)),4):((8,(24,1)),2)",
        ),
        (
            "zipped_divide(Sw<3,4,3> o (6,8):(8,1), (3,4):(1,3))",
            "Sw<3,4,3> o ((3,(2,2)),4):((8,(24,1)),2)",
        ),
        // zipped_product.mlir
        (
            "zipped_product((3,4):(4,1), (2,5):(1,2))",
            "((3,4),(2,5)):((4,1),(12,24))",
        ),
        (
            "zipped_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2))",
            "Sw<3,4,3> o ((5,4),(2,5)):((4,1),(20,40))",
        ),
        (
            "zipped_product((3,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "((3,4,2),(2,3,5)):((8,2,1),(24,48,144))",
        ),
        (
            "zipped_product(Sw<3,4,3> o (5,4,2):(8,2,1), (2,3,5):(1,2,6))",
            "Sw<3,4,3> o ((5,4,2),(2,3,5)):((8,2,1),(40,80,240))",
        ),
    ];
    for (expr, cute) in cases {
        let want = eval_line(cute);
        assert!(
            !want.starts_with("error"),
            "CuTe's answer {cute} does not parse: {want}"
        );
        assert_eq!(eval_line(expr), want, "{expr} (CuTe: {cute})");
    }
}
