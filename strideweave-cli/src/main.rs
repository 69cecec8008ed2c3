//! The `strideweave` command-line tool: a layout calculator (`eval`) and, beside it,
//! viewers and tensor tools. Each subcommand lives in its own module.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod eval_cmd;
mod files;
mod output;
mod render_cmd;
mod repl;
mod show_cmd;
mod tensor_cmd;

/// CuTe-style layouts from the command line.
#[derive(Parser)]
#[command(name = "strideweave", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate layout expressions (arguments, standard input one per line, or interactively on a terminal).
    Eval(eval_cmd::EvalArgs),
    /// Show a layout's properties and its table of indices.
    Show(show_cmd::ShowArgs),
    /// Draw a layout as an SVG or TikZ picture.
    Render(render_cmd::RenderArgs),
    #[command(flatten)]
    Tensor(tensor_cmd::TensorCommand),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let printed = e.print();
            if e.use_stderr() {
                return ExitCode::from(2); // a usage error; nowhere left to report a failure
            }
            // --help or --version on standard output
            return match printed.and_then(|()| std::io::Write::flush(&mut std::io::stdout())) {
                Ok(()) => ExitCode::SUCCESS,
                Err(io) => output::stdout_failure(&io),
            };
        }
    };
    match cli.command {
        Command::Eval(args) => eval_cmd::run(args),
        Command::Show(args) => show_cmd::run(args),
        Command::Render(args) => render_cmd::run(args),
        Command::Tensor(cmd) => tensor_cmd::run(cmd),
    }
}
