//! `strideweave render`: a picture of a layout or of a tensor placement, as SVG or TikZ.

use crate::files::write_atomically;
use crate::output;
use crate::show_cmd::{fail, ColorByArg};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use strideweave::tensor::{TensorError, TensorSpec};
use strideweave::view::{
    eval_drawable, placement_picture, render_svg, render_tikz, Picture, PlacementOptions,
    SvgOptions, TikzOptions, RENDER_MAX_CELLS,
};

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A standalone SVG image.
    Svg,
    /// A LaTeX `tikzpicture` (needs `\usepackage{tikz}`; see `--standalone`).
    Tikz,
}

/// Arguments of `strideweave render`.
#[derive(Args)]
pub struct RenderArgs {
    /// A layout, a swizzled layout or any eval expression giving one (several words are
    /// joined with spaces).
    #[arg(
        value_name = "LAYOUT_OR_EXPR",
        required_unless_present = "placement",
        conflicts_with = "placement"
    )]
    pub expr: Vec<String>,
    /// Draw a tensor placement instead of a layout: which logical element lies in which
    /// tile and bytes, e.g. 'bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)'.
    #[arg(long, value_name = "SPEC")]
    pub placement: Option<String>,
    /// With --placement: how many leading axes make the rows (default: all but the last).
    #[arg(long, value_name = "N", requires = "placement")]
    pub row_axes: Option<usize>,
    /// Output file; `-` or none for standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format; by default TikZ for a `.tex` or `.tikz` file, SVG otherwise.
    #[arg(short, long, value_enum)]
    pub format: Option<Format>,
    /// Cell colouring.
    #[arg(long, value_enum, default_value_t = ColorByArg::Auto)]
    pub color_by: ColorByArg,
    /// TikZ: wrap the picture in a complete `standalone` LaTeX document.
    #[arg(long)]
    pub standalone: bool,
    /// SVG: leave out the per-cell tooltips.
    #[arg(long)]
    pub no_tooltips: bool,
}

/// Runs `render`.
pub fn run(args: RenderArgs) -> ExitCode {
    let picture = match &args.placement {
        Some(spec) => match placement(spec, args.row_axes) {
            Ok(p) => p,
            Err(code) => return code,
        },
        None => {
            let expr = args.expr.join(" ");
            let drawable = match eval_drawable(&expr) {
                Ok(d) => d,
                Err(e) => return fail(&e),
            };
            match drawable.grid(args.color_by.resolve(&expr), RENDER_MAX_CELLS) {
                Ok(g) => Picture::from_grid(&g, Some(&expr)),
                Err(e) => return fail(&e),
            }
        }
    };
    let to_file = args.output.as_ref().filter(|p| p.as_os_str() != "-");
    let format = args
        .format
        .unwrap_or_else(|| match to_file.and_then(|p| p.extension()) {
            Some(ext) if ext == "tex" || ext == "tikz" => Format::Tikz,
            _ => Format::Svg,
        });
    let text = match format {
        Format::Svg => render_svg(
            &picture,
            &SvgOptions {
                no_tooltips: args.no_tooltips,
            },
        ),
        Format::Tikz => render_tikz(
            &picture,
            &TikzOptions {
                standalone: args.standalone,
            },
        ),
    };
    write_output(to_file, &text)
}

/// The picture of the placement `spec`, or the exit status of its one-line error.
fn placement(spec: &str, row_axes: Option<usize>) -> Result<Picture, ExitCode> {
    let spec: TensorSpec = spec
        .parse()
        .map_err(|e: TensorError| output::fail(&format!("{e} (in --placement `{spec}`)")))?;
    let opts = PlacementOptions {
        row_axes,
        max_cells: RENDER_MAX_CELLS,
    };
    placement_picture(&spec, &opts).map_err(|e| fail(&e))
}

/// Writes `text` to the file (all or nothing: a temporary file renamed over it), or to
/// standard output when there is none.
pub fn write_output(path: Option<&PathBuf>, text: &str) -> ExitCode {
    match path {
        Some(p) => match write_atomically(p, text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => output::fail(&e),
        },
        None => output::print(text),
    }
}
