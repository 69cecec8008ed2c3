//! Standard output and standard error without panics.
//!
//! `print!` and `eprintln!` panic when the write fails (a full disk behind `> /dev/full`,
//! a closed terminal), so every subcommand writes through these helpers instead. The
//! rules, the same for every subcommand:
//!
//! * a failed write to standard output is one `error: io: standard output: ...` line on
//!   standard error and exit status 1;
//! * a closed pipe (`strideweave eval ... | head -1`) ends the run silently with status
//!   [`EXIT_BROKEN_PIPE`] (141, what a shell reports for a tool killed by `SIGPIPE`);
//! * error lines have control characters escaped, so input echoed in a message cannot
//!   drive the terminal, and a failure to write them is ignored (there is nowhere left to
//!   report it).

use std::io::{self, Write};
use std::process::ExitCode;
use strideweave::escape_controls;

/// Exit status after standard output was closed by its reader: `128 + SIGPIPE`.
pub const EXIT_BROKEN_PIPE: u8 = 141;

/// Writes `error: MESSAGE` (one line, control characters escaped) to standard error.
pub fn report_error(message: &str) {
    let line = format!(
        "error: {}\n",
        escape_controls(message.trim_end_matches('\n'))
    );
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// [`report_error`], then exit status 1.
pub fn fail(message: &str) -> ExitCode {
    report_error(message);
    ExitCode::from(1)
}

/// The exit status for a failed write to standard output, after reporting it (a closed
/// pipe is not reported).
pub fn stdout_failure(e: &io::Error) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitCode::from(EXIT_BROKEN_PIPE);
    }
    fail(&format!("io: standard output: {e}"))
}

/// Writes all of `text` to standard output and flushes it.
pub fn write_stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Writes `text` to standard output: exit status 0, or the status of the failure.
pub fn print(text: &str) -> ExitCode {
    match write_stdout(text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => stdout_failure(&e),
    }
}
