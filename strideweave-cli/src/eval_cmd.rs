//! `strideweave eval`: one output line per expression, exit 1 if any failed.

use clap::Args;
use std::io::{self, BufRead, BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use strideweave::eval::eval_line;

/// Arguments of `strideweave eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// Expressions to evaluate; with none, standard input is read one per line
    /// (blank lines and lines starting with `#` are skipped), or, when it is a
    /// terminal, an interactive session starts.
    pub exprs: Vec<String>,
}

/// Evaluates each expression and prints its line; 0 if all succeeded, 1 otherwise.
pub fn run(args: EvalArgs) -> ExitCode {
    if args.exprs.is_empty() && io::stdin().is_terminal() {
        return crate::repl::run();
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut failed = false;
    let mut emit = |line: &str, out: &mut BufWriter<io::StdoutLock>| -> io::Result<()> {
        // a line that was not UTF-8 (decoded lossily) is one error line; the run goes on
        let r = if line.contains(char::REPLACEMENT_CHARACTER) {
            "error: syntax: line is not valid UTF-8".to_string()
        } else {
            eval_line(line)
        };
        failed |= r.starts_with("error: ");
        writeln!(out, "{r}")
    };
    let result = if args.exprs.is_empty() {
        let stdin = io::stdin();
        let mut input = stdin.lock();
        let mut buf = Vec::new();
        let mut res = Ok(());
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    res = Err(e);
                    break;
                }
            }
            // a line that is not UTF-8 is one error line; the run goes on
            let line = String::from_utf8_lossy(&buf);
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if let Err(e) = emit(t, &mut out) {
                res = Err(e);
                break;
            }
        }
        res
    } else {
        args.exprs.iter().try_for_each(|e| emit(e, &mut out))
    };
    if let Err(e) = result.and_then(|_| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("strideweave eval: {e}");
            return ExitCode::from(2);
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
