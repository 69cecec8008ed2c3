//! `strideweave eval`: one output line per expression, exit 1 if any failed.

use crate::output;
use clap::Args;
use std::io::{self, BufRead, BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use strideweave::eval::{eval_line, MAX_EXPR_BYTES};

/// Arguments of `strideweave eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// Expressions to evaluate; with none, standard input is read one per line
    /// (blank lines and lines starting with `#` are skipped), or, when it is a
    /// terminal, an interactive session starts. An argument may start with `-`
    /// (`strideweave eval -1` evaluates `-1`); `--name` is an unknown option (exit 2).
    #[arg(allow_hyphen_values = true)]
    pub exprs: Vec<String>,
}

/// One line of standard input, read with its length bounded.
enum Line {
    /// The line's bytes (without the newline), at most [`MAX_EXPR_BYTES`] of them.
    Text(Vec<u8>),
    /// A line longer than [`MAX_EXPR_BYTES`], skipped without being stored.
    TooLong(u64),
}

/// Reads the next line into `buf`, keeping at most `MAX_EXPR_BYTES + 1` bytes of it in
/// memory however long it is; `None` at the end of input.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<Line>> {
    buf.clear();
    let limit = MAX_EXPR_BYTES as u64 + 1;
    let n = io::Read::take(&mut *input, limit).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Some(Line::Text(std::mem::take(buf))));
    }
    if (n as u64) < limit {
        return Ok(Some(Line::Text(std::mem::take(buf)))); // last line, no newline
    }
    // over-long: skip the rest of the line in the reader's own buffer
    let mut total = n as u64;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                total += i as u64;
                input.consume(i + 1);
                break;
            }
            None => {
                let len = chunk.len();
                total += len as u64;
                input.consume(len);
            }
        }
    }
    Ok(Some(Line::TooLong(total)))
}

/// The output line for one line of input: its value, its error, or `None` to skip it
/// (blank or a `#` comment).
fn respond(line: &Line) -> Option<String> {
    let bytes = match line {
        Line::TooLong(n) => {
            return Some(format!(
                "error: syntax: line is {n} bytes long, longer than the limit of {MAX_EXPR_BYTES}"
            ))
        }
        Line::Text(b) => b,
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t.trim(),
        Err(e) => {
            return Some(format!(
                "error: syntax: line is not valid UTF-8 (byte {} is 0x{:02x})",
                e.valid_up_to() + 1,
                bytes[e.valid_up_to()]
            ))
        }
    };
    if text.is_empty() || text.starts_with('#') {
        return None;
    }
    Some(eval_line(text))
}

/// `--` followed by a letter: an option's spelling, which no expression has.
fn looks_like_option(arg: &str) -> bool {
    arg.strip_prefix("--")
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| c.is_ascii_alphabetic())
}

/// Evaluates each expression and prints its line; 0 if all succeeded, 1 otherwise, 2 on
/// a failure to read standard input; a failed write to standard output is reported as in
/// [`crate::output`].
pub fn run(mut args: EvalArgs) -> ExitCode {
    // `--`, the end of options, is kept by clap here (hyphen values are allowed) and is
    // no expression.
    if let Some(i) = args.exprs.iter().position(|e| e == "--") {
        args.exprs.remove(i);
    }
    // `--name` is no expression (and `eval` has no such option): a usage error, as clap
    // gives for the other commands, not a syntax error on each argument.
    if let Some(flag) = args.exprs.iter().find(|e| looks_like_option(e)) {
        output::report_error(&format!(
            "unexpected argument '{}': eval takes expressions only (a leading '-' is read as \
             part of one, as in `eval -1`); see `strideweave eval --help`",
            flag
        ));
        return ExitCode::from(2);
    }
    if args.exprs.is_empty() && io::stdin().is_terminal() {
        return crate::repl::run();
    }
    let mut out = BufWriter::new(io::stdout().lock());
    let mut failed = false;
    let mut emit = |r: String, out: &mut BufWriter<io::StdoutLock>| -> io::Result<()> {
        failed |= r.starts_with("error: ");
        writeln!(out, "{r}")
    };
    let mut read_error = None;
    let written = if args.exprs.is_empty() {
        let mut input = io::stdin().lock();
        let mut buf = Vec::new();
        loop {
            match next_line(&mut input, &mut buf) {
                Ok(None) => break Ok(()),
                Ok(Some(line)) => {
                    if let Some(r) = respond(&line) {
                        if let Err(e) = emit(r, &mut out) {
                            break Err(e);
                        }
                    }
                    if let Line::Text(b) = line {
                        buf = b; // reuse the allocation
                    }
                }
                Err(e) => {
                    read_error = Some(e);
                    break Ok(());
                }
            }
        }
    } else {
        args.exprs
            .iter()
            .try_for_each(|e| emit(eval_line(e), &mut out))
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        return output::stdout_failure(&e);
    }
    if let Some(e) = read_error {
        output::report_error(&format!("io: standard input: {e}"));
        return ExitCode::from(2);
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
