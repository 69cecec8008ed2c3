//! Nothing hangs, nothing panics: every reproducer of the robustness report as a test of
//! the binary. Full standard output is a one-line error and status 1, a closed pipe ends
//! silently with status 141 (as a tool killed by SIGPIPE), bounded input is rejected
//! before it is built, control characters never reach the terminal, and UTF-8 and
//! negative numbers are judged correctly.

use std::fs;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_strideweave"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every subcommand that prints to standard output, with arguments that succeed.
fn printing_commands() -> Vec<Vec<&'static str>> {
    vec![
        vec!["eval", "(2,3):(1,2)"],
        vec!["show", "(4,4):(4,1)"],
        vec!["render", "(4,4):(4,1)"],
        vec!["render", "(4,4):(4,1)", "-o", "-"],
        vec!["render", "--placement", "f32[2,3]"],
        vec!["plan", "--from", "f32[2,3]", "--to", "bf16[2,3]"],
        vec!["--help"],
    ]
}

#[test]
fn a_full_standard_output_is_one_error_line_and_status_1() {
    for args in printing_commands() {
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = bin().args(&args).stdout(full).output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: io: standard output: "),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_silently_with_status_141() {
    for args in printing_commands() {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader); // every write now fails with EPIPE
        let o = bin()
            .args(&args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(141), "{args:?}: {}", text(&o.stderr));
        assert_eq!(text(&o.stderr), "", "{args:?}");
    }
}

#[test]
fn eval_reading_stdin_into_a_closed_pipe_stops_at_once() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = bin()
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let line = b"size((2,3):(1,2))\n".repeat(1000);
        while stdin.write_all(&line).is_ok() {}
    });
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(o.status.code(), Some(141));
    assert_eq!(text(&o.stderr), "");
}

fn eval(args: &[&str]) -> Output {
    bin().arg("eval").args(args).output().unwrap()
}

fn eval_stdin(input: &[u8]) -> Output {
    let mut child = bin()
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    o
}

/// Peak resident set of the finished children of this process so far, in KiB.
fn children_max_rss_kib() -> i64 {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct it is given.
    unsafe {
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, ru.as_mut_ptr()), 0);
        #[allow(clippy::unnecessary_cast)] // c_long is not i64 everywhere
        let kib = ru.assume_init().ru_maxrss as i64;
        kib
    }
}

#[test]
fn a_10_mb_eval_line_is_rejected_in_a_few_mb() {
    // the issue's line: permute(4:1,1,1,1,...) of 10 MB took 3.6 GB
    let mut line = b"permute(4:1".to_vec();
    while line.len() < 10_000_000 {
        line.extend_from_slice(b",1");
    }
    line.extend_from_slice(b")\n2:1\n");
    let o = eval_stdin(&line);
    let out = text(&o.stdout);
    let mut lines = out.lines();
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("error: syntax: line is 100000")
            && first.ends_with("bytes long, longer than the limit of 65536"),
        "{first}"
    );
    assert_eq!(
        lines.next(),
        Some("2:1"),
        "the run goes on after the long line"
    );
    assert_eq!(o.status.code(), Some(1));
    let rss = children_max_rss_kib();
    assert!(rss < 64 * 1024, "peak RSS {rss} KiB");
}

#[test]
fn over_long_argument_and_tiler_lists_are_rejected_before_they_are_built() {
    let args = format!("permute(4:1{})", ",0".repeat(34));
    let o = eval(&[&args]);
    assert!(
        text(&o.stdout).contains("permute takes at most 33 arguments"),
        "{}",
        text(&o.stdout)
    );
    let tiler = format!("zipped_divide(64:1, [{}])", vec!["1:1"; 33].join(","));
    let o = eval(&[&tiler]);
    assert!(
        text(&o.stdout).contains("a tiler holds at most 32 layouts"),
        "{}",
        text(&o.stdout)
    );
    // 33 arguments are still fine
    let ok = format!("permute((2,2):(1,2){})", ",1,0");
    assert_eq!(text(&eval(&[&ok]).stdout), "(2,2):(2,1)\n");
}

#[test]
fn control_characters_are_escaped_in_every_error_line() {
    // eval (stdout), show/render (stderr), tensor specs (stderr)
    let o = eval(&["(\u{1b}[31m"]);
    let out = text(&o.stdout);
    assert!(
        out.contains("\\u{1b}") && !out.contains('\u{1b}'),
        "{out:?}"
    );
    for args in [
        vec!["show", "4:1\u{1b}]0;pwned\u{7}"],
        vec!["render", "\u{7}4:1"],
        vec!["plan", "--from", "f32[2]\u{1b}[2J", "--to", "f32[2]"],
        vec!["render", "--placement", "f32[2]\u{202e}x"],
    ] {
        let o = bin().args(&args).output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(
            !err.trim_end()
                .chars()
                .any(|c| c.is_control() || c == '\u{202e}'),
            "{args:?}: {err:?}"
        );
        assert!(err.contains("\\u{"), "{args:?}: {err:?}");
    }
}

#[test]
fn utf8_is_judged_on_the_bytes() {
    // U+FFFD is valid UTF-8: an ordinary syntax error, not "invalid UTF-8"
    let o = eval(&["4:1\u{FFFD}"]);
    let out = text(&o.stdout);
    assert!(
        out.starts_with("error: syntax: unexpected '\u{FFFD}'"),
        "{out}"
    );
    let o = eval_stdin("4:1\u{FFFD}\n".as_bytes());
    assert!(!text(&o.stdout).contains("UTF-8"), "{}", text(&o.stdout));
    // a byte that is not UTF-8 is one error line, and the run goes on
    let o = eval_stdin(b"4:1\xff\n2:1\n");
    assert_eq!(
        text(&o.stdout),
        "error: syntax: line is not valid UTF-8 (byte 4 is 0xff)\n2:1\n"
    );
}

#[test]
fn negative_numbers_are_expressions_not_options() {
    let o = eval(&["-1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).starts_with("error: value: -1 is negative"),
        "{}",
        text(&o.stdout)
    );
    let o = eval(&["size(4:1)", "-2:1"]);
    assert_eq!(
        text(&o.stdout).lines().next(),
        Some("4"),
        "{}",
        text(&o.stderr)
    );
}

/// A mistyped option is a usage error (exit 2, on standard error), not a syntax error
/// line per argument; `-1` and `-2:1` stay expressions (above).
#[test]
fn an_unknown_option_of_eval_is_a_usage_error() {
    let o = eval(&["--bogus-flag", "4:1"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(text(&o.stdout), "");
    assert!(
        text(&o.stderr).contains("unexpected argument '--bogus-flag'"),
        "{}",
        text(&o.stderr)
    );
    // `--` ends the options, as everywhere
    let o = eval(&["--", "size(4:1)"]);
    assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), "4\n".into()));
}

#[test]
fn spec_integers_are_plain_decimal_digits() {
    for spec in [
        "f32[-0,3]",
        "f32[+2,3]",
        "f32[2,3] strided(+12,4)",
        "f32[2,3] strided(-0,4)",
    ] {
        let o = bin()
            .args(["plan", "--from", spec, "--to", "f32[2,3]"])
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{spec}");
        assert!(
            err.starts_with("error: syntax: expected a plain decimal integer"),
            "{spec}: {err}"
        );
    }
}

/// Runs `cmd` (output discarded) and returns its exit status and the CPU time it used
/// (user + system, from `wait4`): wall time means little on a loaded machine.
#[allow(clippy::zombie_processes)] // reaped by wait4 below, which also gives its rusage
fn cpu_time_of(cmd: &mut Command) -> (i32, Duration) {
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: `pid` is our own unwaited child; wait4 fills `status` and `ru`.
    let ru = unsafe {
        assert_eq!(libc::wait4(pid, &mut status, 0, ru.as_mut_ptr()), pid);
        ru.assume_init()
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    assert!(libc::WIFEXITED(status), "killed by a signal");
    (libc::WEXITSTATUS(status), tv(ru.ru_utime) + tv(ru.ru_stime))
}

const HARD: &str = "(200,200,200,200,200):(10406554519053007,17776936092483503,16108260561629991,13051932357995809,18058164728632727)";

#[test]
fn the_issue_layout_is_answered_within_a_second_by_every_command() {
    for args in [
        vec!["eval".to_string(), format!("is_injective({HARD})")],
        vec![
            "eval".to_string(),
            format!("complement({HARD}, 18446744073709551615)"),
        ],
        vec!["eval".to_string(), format!("left_inverse({HARD})")],
        vec!["eval".to_string(), format!("divide(1000000:1, {HARD})")],
        vec!["show".to_string(), HARD.to_string()],
    ] {
        let (code, took) = cpu_time_of(bin().args(&args));
        assert!(
            took < Duration::from_secs(1),
            "{args:?} took {took:?} of CPU"
        );
        assert!(code <= 1, "{args:?}");
    }
    let o = eval(&[&format!("is_injective({HARD})")]);
    assert!(
        text(&o.stdout).contains("injectivity not decided"),
        "{}",
        text(&o.stdout)
    );
    let o = eval(&[&format!("complement({HARD}, 18446744073709551615)")]);
    assert!(
        text(&o.stdout).contains("modes do not chain"),
        "{}",
        text(&o.stdout)
    );
    let o = bin().args(["show", HARD]).output().unwrap();
    assert!(
        text(&o.stdout).contains("injective  not decided"),
        "{}",
        text(&o.stdout)
    );
}
