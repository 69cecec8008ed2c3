//! The `strideweave eval` binary: expressions from arguments or standard input, one
//! output line per expression, blank and `#` lines skipped, exit status 0/1/2, and
//! 100,000 lines in well under a second.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use strideweave::eval::eval_line;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_strideweave"))
}

fn run_args(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    run_stdin_bytes(args, input.as_bytes())
}

fn run_stdin_bytes(args: &[&str], input: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // write from another thread so a full stdout pipe cannot deadlock us; a child that
    // does not read its input (arguments given) may close the pipe early
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn stdout(o: &Output) -> &str {
    std::str::from_utf8(&o.stdout).unwrap()
}

#[test]
fn arguments_print_one_line_each_in_order_and_exit_0() {
    let o = run_args(&[
        "eval",
        "index((2,(3,4)):(1,(10,100)), (1,(2,3)))",
        "cosize((2,3):(1,4))",
        "compose(20:2, (5,4):(4,1))",
    ]);
    assert_eq!(stdout(&o), "321\n10\n(5,4):(8,2)\n");
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty());
}

#[test]
fn an_error_prints_its_line_keeps_going_and_exits_1() {
    let o = run_args(&[
        "eval",
        "layout((2,(3,4)),(1,2,6))",
        "size(2:1)",
        "foo(",
        "rank(())",
    ]);
    assert_eq!(
        stdout(&o),
        "error: value: shape (2,(3,4)) and stride (1,2,6) are not congruent\n2\n\
         error: syntax: unknown function 'foo' at column 1\n0\n"
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn each_error_kind_is_printed_as_one_line() {
    let o = run_args(&["eval", "(2,3", "size(true)", "index((3,4):(2,10), 12)"]);
    let lines: Vec<&str> = stdout(&o).lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with("error: syntax: "), "{}", lines[0]);
    assert!(lines[1].starts_with("error: type: "), "{}", lines[1]);
    assert!(lines[2].starts_with("error: value: "), "{}", lines[2]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn stdin_is_read_when_there_are_no_arguments() {
    let input = "size((2,3):(1,4))\n\n# a comment\n   # an indented comment\n\t \n  cosize((2,3):(1,4))  \r\nshape(20:2)\n";
    let o = run_stdin(&["eval"], input);
    assert_eq!(stdout(&o), "6\n10\n20\n");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn stdin_without_a_final_newline_and_with_errors() {
    let o = run_stdin(&["eval"], "size(2:1)\nbogus(1)\nrank((1,2))");
    assert_eq!(
        stdout(&o),
        "2\nerror: syntax: unknown function 'bogus' at column 1\n2\n"
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn empty_stdin_prints_nothing_and_exits_0() {
    let o = run_stdin(&["eval"], "");
    assert_eq!(stdout(&o), "");
    assert_eq!(o.status.code(), Some(0));
    let o = run_stdin(&["eval"], "\n# only comments\n\n");
    assert_eq!(stdout(&o), "");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn arguments_take_precedence_over_stdin() {
    let o = run_stdin(&["eval", "size(2:1)"], "size(3:1)\n");
    assert_eq!(stdout(&o), "2\n");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn usage_errors_exit_2() {
    for args in [&[][..], &["bogus"][..], &["eval-nope", "1"][..]] {
        let o = run_args(args);
        assert_eq!(o.status.code(), Some(2), "strideweave {args:?}");
        assert!(o.stdout.is_empty(), "usage goes to stderr");
        assert!(!o.stderr.is_empty());
    }
    let o = run_args(&["eval", "--help"]);
    assert_eq!(o.status.code(), Some(0));
}

/// A mix of expressions over every value kind and error kind.
const MIX: &[&str] = &[
    "index((2,(3,4)):(1,(10,100)), (1,(2,3)))",
    "compose(20:2, (5,4):(4,1))",
    "complement((2,2):(1,6), 24)",
    "zipped_divide((8,8,3):(8,1,64), [2:1,4:1])",
    "divide((4,2,3):(2,1,8), 4:2)",
    "logical_product((2,2):(1,2), 3:1)",
    "blocked_product((2,2):(2,1), (2,3):(3,1))",
    "is_injective((1048576,1048576):(1,1048575))",
    "uniform_preimage_extent((4,3):(0,1), 3)",
    "uniform_preimage_extent((2,2):(1,1), 3)",
    "rearrange((2,3):(1,2), tree(id(1),leaf,id(0)))",
    "profile((2,(3,4)):(1,(2,6)))",
    "coalesce((2,(1,6)):(1,(6,2)))",
    "right_inverse((4,2):(2,1))",
    "permute((2,(3,4),5):(1,(2,6),24), 1, 0, 2)",
    "broadcast_to((2,(1,3)):(1,(2,2)), (2,(4,3)))",
    "layout((2,(3,4)),(1,2,6))",
    "compose((4,6):(1,5), 6:1)",
    "size(true)",
    "(2,3",
];

#[test]
fn one_hundred_thousand_lines_are_correct_and_fast() {
    const N: usize = 100_000;
    let mut input = String::with_capacity(N * 40);
    let mut want = String::with_capacity(N * 30);
    let expected: Vec<String> = MIX.iter().map(|e| eval_line(e)).collect();
    for i in 0..N {
        let k = i % MIX.len();
        if i % 1000 == 0 {
            input.push_str("# comment line\n\n");
        }
        input.push_str(MIX[k]);
        input.push('\n');
        want.push_str(&expected[k]);
        want.push('\n');
    }
    // a few values pinned by the spec, so the expectation is not only the library's word
    assert_eq!(expected[0], "321");
    assert_eq!(expected[1], "(5,4):(8,2)");
    assert_eq!(expected[2], "(3,2):(2,12)");
    assert!(expected[16].starts_with("error: value: "));
    assert!(expected[18].starts_with("error: type: "));
    assert!(expected[19].starts_with("error: syntax: "));

    let start = Instant::now();
    let o = run_stdin(&["eval"], &input);
    let elapsed = start.elapsed();
    assert_eq!(o.status.code(), Some(1), "the mix contains errors");
    let got = stdout(&o);
    assert_eq!(got.lines().count(), N);
    assert!(
        got == want,
        "100,000-line output differs from the per-expression results"
    );
    eprintln!("strideweave eval: {N} lines in {elapsed:?}");
    if cfg!(debug_assertions) {
        // unoptimized builds only get a sanity bound
        assert!(
            elapsed < Duration::from_secs(60),
            "{N} lines took {elapsed:?}"
        );
    } else {
        assert!(
            elapsed < Duration::from_millis(900),
            "{N} lines took {elapsed:?} in release"
        );
    }
}

#[test]

fn a_deeply_nested_line_is_an_error_line_not_a_crash() {
    let mut input = "size(".repeat(100_000);
    input.push_str("\nsize(2:1)\n");
    let o = run_stdin(&["eval"], &input);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "stdout {:?}, stderr {}",
        out,
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(lines[0].starts_with("error: "), "{}", lines[0]);
    assert_eq!(lines[1], "2");
    assert_eq!(o.status.code(), Some(1));
}

#[test]

fn an_invalid_utf8_line_is_one_error_line() {
    let o = run_stdin_bytes(&["eval"], b"size(2:1)\n\xff\nsize(3:1)\n");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "stdout {out:?}");
    assert_eq!(lines[0], "2");
    assert!(lines[1].starts_with("error: syntax: "), "{}", lines[1]);
    assert_eq!(lines[2], "3");
    assert_eq!(o.status.code(), Some(1));
}
