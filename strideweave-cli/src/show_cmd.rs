//! `strideweave show`: a layout's properties and its table of indices.

use clap::{Args, ValueEnum};
use std::io::{self, IsTerminal};
use std::process::ExitCode;
use strideweave::view::{eval_drawable, ColorBy, ShowOptions, SHOW_MAX_CELLS};
use strideweave::LayoutError;

/// How cells are coloured (`auto`: the tiles of an outermost divide or product, else index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorByArg {
    /// Tiles of `zipped_divide`, `tiled_divide`, `divide`, `divide_tiler`, the products; else `index`.
    Auto,
    /// No colour.
    None,
    /// Equal indices share a colour.
    Index,
    /// Each column is one tile.
    Column,
    /// The outer item of each mode picks the tile (blocks).
    Block,
    /// The inner item of each mode picks the tile (raked).
    Rake,
}

impl ColorByArg {
    /// The colouring for expression `expr`.
    pub fn resolve(self, expr: &str) -> ColorBy {
        match self {
            ColorByArg::Auto => ColorBy::infer(expr),
            ColorByArg::None => ColorBy::None,
            ColorByArg::Index => ColorBy::Index,
            ColorByArg::Column => ColorBy::Column,
            ColorByArg::Block => ColorBy::Block,
            ColorByArg::Rake => ColorBy::Rake,
        }
    }
}

/// When to emit ANSI colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum When {
    /// When standard output is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Arguments of `strideweave show`.
#[derive(Args)]
pub struct ShowArgs {
    /// A layout, a swizzled layout (`Sw<3,4,3> o (8,64):(64,1)`) or any eval expression giving one, e.g. 'zipped_divide((8,8):(8,1), [2:1,4:1])'
    /// (several words are joined with spaces).
    #[arg(required = true, value_name = "LAYOUT_OR_EXPR")]
    pub expr: Vec<String>,
    /// Cell colouring.
    #[arg(long, value_enum, default_value_t = ColorByArg::Auto)]
    pub color_by: ColorByArg,
    /// When to use ANSI colour.
    #[arg(long, value_enum, default_value_t = When::Auto, value_name = "WHEN")]
    pub color: When,
}

/// Prints one `error: KIND: MESSAGE` line and returns exit status 1.
pub fn fail(e: &LayoutError) -> ExitCode {
    crate::output::fail(&e.to_string())
}

/// Runs `show`.
pub fn run(args: ShowArgs) -> ExitCode {
    let expr = args.expr.join(" ");
    let drawable = match eval_drawable(&expr) {
        Ok(d) => d,
        Err(e) => return fail(&e),
    };
    let stdout = io::stdout();
    let ansi = match args.color {
        When::Always => true,
        When::Never => false,
        When::Auto => {
            stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let opts = ShowOptions {
        color: args.color_by.resolve(&expr),
        ansi,
        max_cells: SHOW_MAX_CELLS,
    };
    crate::output::print(&drawable.show(&opts))
}
