//! `strideweave show` and `render` of swizzled layouts: the properties add the swizzle and
//! offset, each cell holds the swizzled index, and a coordinate layout is a type error.

use std::process::Command;

fn run(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_strideweave"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

/// `strideweave show 'Sw<2,0,-3> o (4,8):(8,1)'`, plain: CuTe's `print_layout` values.
#[test]
fn show_draws_the_swizzled_indices() {
    let (out, err, code) = run(&["show", "Sw<2,0,-3> o (4,8):(8,1)"]);
    assert_eq!((err.as_str(), code), ("", 0));
    let want = [
        "layout     Sw<2,0,-3> o (4,8):(8,1)",
        "swizzle    Sw<2,0,-3>: bits 0..1 xor into bits 3..4",
        "offset     0",
        "size       32",
        "cosize     32",
        "rank       2",
        "depth      1",
        "profile    [Leaf,Leaf]",
        "injective  yes",
        "table      rows: mode 0 (4), columns: mode 1 (8)",
        "",
        "     0  1  2  3  4  5  6  7",
        "  ┌─────────────────────────┐",
        "0 │  0  9 18 27  4 13 22 31 │",
        "1 │  8  1 26 19 12  5 30 23 │",
        "2 │ 16 25  2 11 20 29  6 15 │",
        "3 │ 24 17 10  3 28 21 14  7 │",
        "  └─────────────────────────┘",
    ];
    assert_eq!(out, want.join("\n") + "\n");
}

#[test]
fn show_a_tile_of_a_swizzled_layout_with_an_offset() {
    let (out, _, code) = run(&["show", "Sw<3,0,3> o 24 o 8:1"]);
    assert_eq!(code, 0);
    assert!(out.contains("offset     24"), "{out}");
    // row 3 of Sw<3,0,3> o (8,8):(8,1): 8*3 + (c xor 3)
    assert!(out.contains("0 │ 27 │"), "{out}");
}

#[test]
fn render_titles_the_picture_with_the_swizzled_layout() {
    let (out, err, code) = run(&["render", "Sw<3,0,3> o (8,8):(8,1)"]);
    assert_eq!((err.as_str(), code), ("", 0));
    assert!(
        out.contains("<title>Sw&lt;3,0,3&gt; o (8,8):(8,1)</title>"),
        "{out}"
    );
    assert_eq!(out.matches("class=\"cell\"").count(), 64);
}

#[test]
fn coordinate_layouts_are_not_drawn() {
    let (out, err, code) = run(&["show", "(4,8):(1@0,1@1)"]);
    assert_eq!(out, "");
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: type: expected a layout, the expression gives a coordinate layout ((4,8):(1@0,1@1))\n"
    );
}
