//! Interactive `strideweave eval` on a pseudo-terminal: a prompt, values, a caret under
//! a syntax error, `:show`, history kept in a file, and batch mode untouched off a terminal.

mod view_pty;

use std::io::Write;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_strideweave");

/// A history file in a fresh directory that is removed when the test ends.
fn history_file(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("strideweave-view-repl-")
        .tempdir()
        .unwrap();
    let p = dir.path().join(name);
    (dir, p)
}

#[test]
fn eval_on_a_terminal_prompts_evaluates_and_puts_a_caret_under_syntax_errors() {
    let (_dir, hist) = history_file("h1");
    let out = view_pty::run_on_terminal(
        BIN,
        &["eval"],
        &[
            ("NO_COLOR", "1"),
            ("STRIDEWEAVE_HISTORY", hist.to_str().unwrap()),
        ],
        "compose(20:2, (5,4):(4,1))\nlayout((2,3),(1,2,3]\n:show (2,2):(1,2)\n\x04",
    );
    let text = out.replace("\r\n", "\n");
    assert!(text.contains("sw> "), "{text:?}");
    assert!(text.contains("\n(5,4):(8,2)\n"), "{text:?}");
    // the caret sits under column 20 (the ']'), after the 4-character prompt
    let caret = format!("\n{}^\nerror: syntax: ", " ".repeat(4 + 19));
    assert!(text.contains(&caret), "{text:?}");
    assert!(text.contains("layout     (2,2):(1,2)\n"), "{text:?}");
    assert!(text.contains("0 │ 0 2 │"), "{text:?}");
    let saved = std::fs::read_to_string(&hist).unwrap();
    assert!(saved.contains("compose(20:2, (5,4):(4,1))"), "{saved:?}");
    assert!(saved.contains(":show (2,2):(1,2)"), "{saved:?}");
}

#[test]
fn up_arrow_recalls_history_from_the_previous_session() {
    let (_dir, hist) = history_file("h2");
    let env = [
        ("NO_COLOR", "1"),
        ("STRIDEWEAVE_HISTORY", hist.to_str().unwrap()),
    ];
    view_pty::run_on_terminal(BIN, &["eval"], &env, "cosize((2,3):(1,4))\n\x04");
    // Up arrow, then Enter: evaluates the recalled line again
    let out = view_pty::run_on_terminal(BIN, &["eval"], &env, "\x1b[A\n\x04");
    assert!(out.replace("\r\n", "\n").contains("\n10\n"), "{out:?}");
}

#[test]
fn eval_off_a_terminal_stays_one_line_per_expression() {
    let mut child = Command::new(BIN)
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"cosize((2,3):(1,4))\n(2,\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(!text.contains('^') && !text.contains("sw> "), "{text}");
}
