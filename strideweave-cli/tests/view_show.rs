//! `strideweave show`: snapshot tests of the plain (non-terminal, `NO_COLOR`) output, the
//! error line, the size cap, and colour only on a terminal (run under a pseudo-terminal).

mod view_pty;
use view_pty as pty;

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_strideweave"))
}

/// Runs `strideweave show ARGS` with stdout a pipe; returns (stdout, stderr, exit code).
fn show(args: &[&str]) -> (String, String, i32) {
    let out = bin().arg("show").args(args).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

fn expected(lines: &[&str]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// `strideweave show 'zipped_divide((8,8):(8,1), [2:1,4:1])'`, plain.
const ZIPPED: &[&str] = &[
    "layout     ((2,4),(4,2)):((8,1),(16,4))",
    "size       64",
    "cosize     64",
    "rank       2",
    "depth      2",
    "profile    [Push,Leaf,Leaf,Pop,Push,Leaf,Leaf,Pop]",
    "injective  yes",
    "table      rows: mode 0 (8), columns: mode 1 (8)",
    "",
    "     0  1  2  3    4  5  6  7",
    "  ┌─────────────┬─────────────┐",
    "0 │  0 16 32 48 │  4 20 36 52 │",
    "1 │  8 24 40 56 │ 12 28 44 60 │",
    "  ├─────────────┼─────────────┤",
    "2 │  1 17 33 49 │  5 21 37 53 │",
    "3 │  9 25 41 57 │ 13 29 45 61 │",
    "  ├─────────────┼─────────────┤",
    "4 │  2 18 34 50 │  6 22 38 54 │",
    "5 │ 10 26 42 58 │ 14 30 46 62 │",
    "  ├─────────────┼─────────────┤",
    "6 │  3 19 35 51 │  7 23 39 55 │",
    "7 │ 11 27 43 59 │ 15 31 47 63 │",
    "  └─────────────┴─────────────┘",
];

/// `strideweave show '5:3'`, plain.
const RANK1: &[&str] = &[
    "layout     5:3",
    "size       5",
    "cosize     13",
    "rank       1",
    "depth      0",
    "profile    [Leaf]",
    "injective  yes",
    "table      rows: mode 0 (5), one column (rank 1)",
    "",
    "     0",
    "  ┌────┐",
    "0 │  0 │",
    "1 │  3 │",
    "2 │  6 │",
    "3 │  9 │",
    "4 │ 12 │",
    "  └────┘",
];

/// `strideweave show '(2,(2,2),2):(1,(2,4),8)'`, plain.
const RANK3: &[&str] = &[
    "layout     (2,(2,2),2):(1,(2,4),8)",
    "size       16",
    "cosize     16",
    "rank       3",
    "depth      2",
    "profile    [Leaf,Push,Leaf,Leaf,Pop,Leaf]",
    "injective  yes",
    "table      rows: mode 0 (2), columns: modes 1..2 grouped (8, mode 1 fastest)",
    "",
    "     0  1    2  3    4  5    6  7",
    "  ┌───────┬───────╥───────┬───────┐",
    "0 │  0  2 │  4  6 ║  8 10 │ 12 14 │",
    "1 │  1  3 │  5  7 ║  9 11 │ 13 15 │",
    "  └───────┴───────╨───────┴───────┘",
];

/// `strideweave show '(2,2):(0,1)'`, plain.
const BROADCAST: &[&str] = &[
    "layout     (2,2):(0,1)",
    "size       4",
    "cosize     2",
    "rank       2",
    "depth      1",
    "profile    [Leaf,Leaf]",
    "injective  no",
    "repeats    4 of 4 cells share their index with another cell",
    "table      rows: mode 0 (2), columns: mode 1 (2)",
    "",
    "    0 1",
    "  ┌─────┐",
    "0 │ 0 1 │",
    "1 │ 0 1 │",
    "  └─────┘",
];

#[test]
fn show_zipped_divide_lists_properties_and_the_table_of_the_result() {
    let (out, err, code) = show(&["zipped_divide((8,8):(8,1), [2:1,4:1])"]);
    assert_eq!((err.as_str(), code), ("", 0));
    assert_eq!(out, expected(ZIPPED));
}

#[test]
fn show_rank_one_layout_is_one_column() {
    assert_eq!(show(&["5:3"]).0, expected(RANK1));
}

#[test]
fn show_rank_three_groups_modes_into_columns_and_says_so() {
    assert_eq!(show(&["(2,(2,2),2):(1,(2,4),8)"]).0, expected(RANK3));
}

#[test]
fn show_non_injective_layout_counts_repeated_cells() {
    assert_eq!(show(&["(2,2):(0,1)"]).0, expected(BROADCAST));
}

#[test]
fn show_joins_several_words_into_one_expression() {
    let (out, _, code) = show(&["zipped_divide((8,8):(8,1),", "[2:1,4:1])"]);
    assert_eq!((out, code), (expected(ZIPPED), 0));
}

#[test]
fn show_errors_are_one_line_with_their_kind_and_exit_1() {
    for (expr, line) in [
        (
            "(3,4:(1,2)",
            "error: syntax: expected ',' or ')', found ':' at column 5\n",
        ),
        (
            "(3,4):(1,2,3)",
            "error: value: shape (3,4) and stride (1,2,3) are not congruent\n",
        ),
        (
            "size(3:1)",
            "error: type: expected a layout, the expression gives an integer (3)\n",
        ),
    ] {
        let (out, err, code) = show(&[expr]);
        assert_eq!((out.as_str(), err.as_str(), code), ("", line, 1), "{expr}");
    }
}

#[test]
fn show_without_an_expression_is_a_usage_error() {
    let (_, err, code) = show(&[]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn show_of_a_million_cells_lists_properties_and_omits_the_table() {
    let (out, _, code) = show(&["(1000,1000):(1000,1)"]);
    assert_eq!(code, 0);
    assert!(out.contains("size       1000000\n"), "{out}");
    assert!(
        out.ends_with("table      omitted: 1000000 cells is more than the 4096 that show draws\n"),
        "{out}"
    );
}

#[test]
fn show_into_a_pipe_has_no_escapes_even_for_tiles() {
    let (out, _, _) = show(&["blocked_product((2,2):(1,2), (3,2):(1,3))"]);
    assert!(!out.contains('\x1b'), "{out}");
}

#[test]
fn show_color_always_paints_tiles_and_never_paints_nothing() {
    let (out, _, _) = show(&["--color", "always", "zipped_divide((8,8):(8,1), [2:1,4:1])"]);
    assert!(out.contains("\x1b[30;48;5;"), "{out}");
    assert!(
        out.contains("colour     by tile: each column is one tile\n"),
        "{out}"
    );
    let (out, _, _) = show(&["--color", "never", "zipped_divide((8,8):(8,1), [2:1,4:1])"]);
    assert_eq!(out, expected(ZIPPED));
}

#[test]
fn show_on_a_terminal_is_coloured_unless_no_color_is_set() {
    let args = ["show", "zipped_divide((8,8):(8,1), [2:1,4:1])"];
    let on_tty = pty::run_on_terminal(env!("CARGO_BIN_EXE_strideweave"), &args, &[], "");
    assert!(on_tty.contains("\x1b[30;48;5;"), "{on_tty:?}");
    let no_color = pty::run_on_terminal(
        env!("CARGO_BIN_EXE_strideweave"),
        &args,
        &[("NO_COLOR", "1")],
        "",
    );
    assert!(!no_color.contains('\x1b'), "{no_color:?}");
    // the terminal turns \n into \r\n; otherwise the text is the plain snapshot
    assert_eq!(no_color.replace("\r\n", "\n"), expected(ZIPPED));
    let empty = pty::run_on_terminal(
        env!("CARGO_BIN_EXE_strideweave"),
        &args,
        &[("NO_COLOR", "")],
        "",
    );
    assert!(
        empty.contains('\x1b'),
        "an empty NO_COLOR does not disable colour"
    );
}
