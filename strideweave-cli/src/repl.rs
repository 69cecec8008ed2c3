//! The interactive `strideweave eval`: a prompt with line editing and history, started
//! when standard input is a terminal and no expressions are given.
//!
//! Each line is evaluated as by `strideweave eval`; a syntax error is shown with a caret
//! under the offending column. `:show EXPR` prints the table of `strideweave show`,
//! `:help` lists the commands, `:quit` or Ctrl-D leaves. History is kept in
//! `$STRIDEWEAVE_HISTORY`, else `~/.strideweave_history`.

use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use strideweave::eval::eval;
use strideweave::view::{eval_layout, show, ColorBy, ShowOptions, SHOW_MAX_CELLS};
use strideweave::LayoutError;

/// The prompt.
pub const PROMPT: &str = "sw> ";

const HELP: &str = "\
Type an expression and press Enter, e.g.
  zipped_divide((8,8):(8,1), [2:1,4:1])
  index((2,(3,4)):(1,(10,100)), (1,(2,3)))
Commands:
  :show EXPR   properties and table of the layout EXPR gives
  :help        this text
  :quit        leave (or Ctrl-D)
Up/Down walk the history; Ctrl-R searches it.";

/// Whether to colour: `NO_COLOR` unset or empty (the REPL only runs on a terminal).
fn colour_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The lines printed for an error in text that starts `offset` characters after the
/// prompt: a caret under the offending column (when the error has one), then
/// `error: KIND: MESSAGE`.
fn error_lines(e: &LayoutError, offset: usize, colour: bool) -> String {
    let (red, reset) = if colour {
        ("\x1b[1;31m", "\x1b[0m")
    } else {
        ("", "")
    };
    let mut out = String::new();
    if let Some(col) = e.column() {
        out.push_str(&" ".repeat(PROMPT.chars().count() + offset + col - 1));
        out.push_str(red);
        out.push('^');
        out.push_str(reset);
        out.push('\n');
    }
    out.push_str(&format!("{red}error{reset}: {e}"));
    out
}

/// What the REPL prints for one input line (without a trailing newline), or `None` to quit.
pub fn respond(line: &str, colour: bool) -> Option<String> {
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Some(String::new());
    }
    if let Some(cmd) = trimmed.strip_prefix(':') {
        let name = cmd.split(char::is_whitespace).next().unwrap_or("");
        return match name {
            "q" | "quit" | "exit" => None,
            "h" | "help" => Some(HELP.to_string()),
            "show" => {
                // keep the expression's columns relative to the line as typed
                let offset = line.len() - line.trim_start().len() + 1 + name.len();
                let expr = &line[offset..];
                Some(match eval_layout(expr) {
                    Ok(l) => {
                        let opts = ShowOptions {
                            color: ColorBy::infer(expr),
                            ansi: colour,
                            max_cells: SHOW_MAX_CELLS,
                        };
                        show(&l, &opts).trim_end().to_string()
                    }
                    Err(e) => error_lines(&e, line[..offset].chars().count(), colour),
                })
            }
            other => Some(format!("unknown command :{other} (try :help)")),
        };
    }
    Some(match eval(line) {
        Ok(v) => v.to_string(),
        Err(e) => error_lines(&e, 0, colour),
    })
}

fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("STRIDEWEAVE_HISTORY") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".strideweave_history"))
}

/// Runs the interactive session; exit status 0 when it ends normally.
pub fn run() -> ExitCode {
    let mut rl = match DefaultEditor::new() {
        Ok(rl) => rl,
        Err(e) => {
            crate::output::report_error(&format!("cannot start line editing: {e}"));
            return ExitCode::from(2);
        }
    };
    let history = history_path();
    if let Some(p) = &history {
        let _ = rl.load_history(p); // a missing history file is the normal first run
    }
    let colour = colour_wanted() && std::io::stdout().is_terminal();
    let say = |text: &str| crate::output::write_stdout(&format!("{text}\n"));
    if let Err(e) = say("strideweave eval: one expression per line, :help for help, Ctrl-D to quit")
    {
        return crate::output::stdout_failure(&e);
    }
    loop {
        match rl.readline(PROMPT) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = rl.add_history_entry(line.as_str());
                }
                match respond(&line, colour) {
                    Some(text) if text.is_empty() => {}
                    Some(text) => {
                        if let Err(e) = say(&text) {
                            return crate::output::stdout_failure(&e);
                        }
                    }
                    None => break,
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                crate::output::report_error(&format!("io: terminal: {e}"));
                return ExitCode::from(2);
            }
        }
    }
    if let Some(p) = &history {
        let _ = rl.save_history(p); // history is a convenience; never fail the session on it
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_eval_prints_them() {
        assert_eq!(
            respond("compose(20:2, (5,4):(4,1))", false).unwrap(),
            "(5,4):(8,2)"
        );
        assert_eq!(respond("   ", false).unwrap(), "");
        assert_eq!(respond("# comment", false).unwrap(), "");
    }

    #[test]
    fn syntax_error_caret_sits_under_the_offending_column_after_the_prompt() {
        let out = respond("layout((2,3),(1,2,3]", false).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        // column 20 is ']'; the prompt is 4 characters wide
        assert_eq!(lines[0], format!("{}^", " ".repeat(4 + 19)));
        assert!(lines[1].starts_with("error: syntax: "), "{out}");
        assert!(lines[1].contains("column 20"), "{out}");
    }

    #[test]
    fn value_errors_have_no_caret() {
        let out = respond("layout((2,(3,4)),(1,2,6))", false).unwrap();
        assert_eq!(
            out,
            "error: value: shape (2,(3,4)) and stride (1,2,6) are not congruent"
        );
    }

    #[test]
    fn show_command_prints_the_table_and_carets_count_the_command() {
        let out = respond(":show (2,2):(1,2)", false).unwrap();
        assert!(out.starts_with("layout     (2,2):(1,2)\n"), "{out}");
        assert!(out.contains("0 │ 0 2 │"), "{out}");
        let out = respond(":show (2,2:(1,2)", false).unwrap();
        let caret = out.lines().next().unwrap();
        // ':show ' is 6 characters, the ':' of the bad text is column 5 of the expression
        assert_eq!(caret, format!("{}^", " ".repeat(4 + 6 + 4)));
    }

    #[test]
    fn quit_and_help_and_unknown_commands() {
        assert_eq!(respond(":quit", false), None);
        assert_eq!(respond(" :q ", false), None);
        assert!(respond(":help", false).unwrap().contains(":show EXPR"));
        assert!(respond(":frob", false)
            .unwrap()
            .starts_with("unknown command :frob"));
    }

    #[test]
    fn colour_marks_the_caret_and_error_word() {
        let out = respond("(2,", true).unwrap();
        assert!(out.contains("\x1b[1;31m^\x1b[0m"), "{out:?}");
        assert!(out.contains("\x1b[1;31merror\x1b[0m: syntax"), "{out:?}");
    }
}
