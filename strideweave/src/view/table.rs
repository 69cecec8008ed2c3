//! `strideweave show`: a layout's properties and its table of indices in box-drawing text.

use super::color::{ColorBy, TILE_PALETTE};
use super::grid::Grid;
use crate::eval::Value;
use crate::{ComposedLayout, Layout};
use std::fmt::Write;

/// Most cells `show` draws as a table (64 x 64); larger layouts get their properties only.
pub const SHOW_MAX_CELLS: u64 = 4096;

/// Options of [`show`].
#[derive(Clone, Copy, Debug)]
pub struct ShowOptions {
    /// How to colour cells when `ansi` is on.
    pub color: ColorBy,
    /// Emit ANSI colour escapes (only for a terminal that has not set `NO_COLOR`).
    pub ansi: bool,
    /// Largest table drawn; see [`SHOW_MAX_CELLS`].
    pub max_cells: u64,
}

impl Default for ShowOptions {
    fn default() -> Self {
        ShowOptions {
            color: ColorBy::Index,
            ansi: false,
            max_cells: SHOW_MAX_CELLS,
        }
    }
}

/// The properties `show` lists, as `(name, value)` pairs in order.
///
/// ```
/// let l: strideweave::Layout = "(2,3):(3,1)".parse().unwrap();
/// let p = strideweave::view::properties(&l);
/// assert_eq!(p[0], ("layout", "(2,3):(3,1)".to_string()));
/// assert_eq!(p[2], ("cosize", "6".to_string()));
/// ```
pub fn properties(layout: &Layout) -> Vec<(&'static str, String)> {
    vec![
        ("layout", layout.to_string()),
        ("size", layout.size().to_string()),
        ("cosize", layout.cosize().to_string()),
        ("rank", layout.rank().to_string()),
        ("depth", layout.depth().to_string()),
        ("profile", Value::Profile(layout.profile()).to_string()),
        (
            "injective",
            match layout.try_is_injective() {
                Ok(true) => "yes".to_string(),
                Ok(false) => "no".to_string(),
                Err(_) => format!(
                    "not decided (search stopped at {} steps)",
                    crate::INJECTIVITY_SEARCH_STEPS
                ),
            },
        ),
    ]
}

/// The full `show` text: properties, then the table of indices (or why it is left out).
///
/// ```
/// use strideweave::view::{show, ShowOptions};
/// let text = show(&"(2,3):(3,1)".parse().unwrap(), &ShowOptions::default());
/// assert!(text.contains("0 │ 0 1 2 │"), "{text}");
/// ```
pub fn show(layout: &Layout, opts: &ShowOptions) -> String {
    let grid = Grid::new(layout, opts.color, opts.max_cells);
    show_grid(properties(layout), layout.size(), grid, opts)
}

/// The properties `show` lists for a swizzled layout: those of its layout, with the
/// swizzle and offset (a swizzle is a bijection, so injectivity is the layout's).
///
/// ```
/// let s: strideweave::ComposedLayout = "Sw<3,4,3> o (8,64):(64,1)".parse().unwrap();
/// let p = strideweave::view::swizzled_properties(&s);
/// assert_eq!(p[0], ("layout", "Sw<3,4,3> o (8,64):(64,1)".to_string()));
/// assert!(p.contains(&("swizzle", "Sw<3,4,3>: bits 7..9 xor into bits 4..6".to_string())));
/// ```
pub fn swizzled_properties(c: &ComposedLayout) -> Vec<(&'static str, String)> {
    let mut p = properties(&c.layout());
    p[0].1 = c.to_string();
    let sw = c.swizzle();
    let bits = |mask: u64| match mask {
        0 => "none".to_string(),
        m => format!("{}..{}", m.trailing_zeros(), 63 - m.leading_zeros()),
    };
    p.insert(
        1,
        (
            "swizzle",
            format!(
                "{sw}: bits {} xor into bits {}",
                bits(sw.yyy_mask()),
                bits(sw.zzz_mask())
            ),
        ),
    );
    p.insert(2, ("offset", c.offset().to_string()));
    p
}

/// [`show`] for a swizzled layout: each cell holds the swizzled index.
pub fn show_swizzled(c: &ComposedLayout, opts: &ShowOptions) -> String {
    let grid = Grid::swizzled(c, opts.color, opts.max_cells);
    show_grid(swizzled_properties(c), c.size(), grid, opts)
}

fn show_grid(
    props: Vec<(&'static str, String)>,
    size: u64,
    grid: Result<Grid, crate::LayoutError>,
    opts: &ShowOptions,
) -> String {
    let mut out = String::new();
    for (name, value) in props {
        let _ = writeln!(out, "{name:<10} {value}");
    }
    match grid {
        Ok(g) => {
            if g.repeated_cells() > 0 {
                let _ = writeln!(
                    out,
                    "{:<10} {} of {} cells share their index with another cell",
                    "repeats",
                    g.repeated_cells(),
                    g.rows() * g.cols()
                );
            }
            let _ = writeln!(out, "{:<10} {}", "table", g.axes_description());
            if opts.ansi && opts.color.is_tiling() {
                let _ = writeln!(out, "{:<10} {}", "colour", opts.color.describe());
            } else if opts.ansi && g.repeated_cells() > 0 {
                let _ = writeln!(out, "{:<10} repeated indices in bold magenta", "colour");
            }
            out.push('\n');
            out.push_str(&table(&g, opts.ansi));
        }
        Err(_) => {
            let _ = writeln!(
                out,
                "{:<10} omitted: {} cells is more than the {} that show draws",
                "table", size, opts.max_cells
            );
        }
    }
    out
}

/// Line weight of a boundary level: 0 none, 1 single, 2 double.
fn weight(level: u8) -> u8 {
    level.min(2)
}

/// The box-drawing character joining lines of the given weights (0 none, 1 single,
/// 2 double) going up, down, left and right.
fn junction(up: u8, down: u8, left: u8, right: u8) -> char {
    let v = up.max(down);
    let h = left.max(right);
    match (up > 0, down > 0, left > 0, right > 0) {
        (false, true, false, true) => ['┌', '╒', '╓', '╔'][corner(v, h)],
        (false, true, true, false) => ['┐', '╕', '╖', '╗'][corner(v, h)],
        (true, false, false, true) => ['└', '╘', '╙', '╚'][corner(v, h)],
        (true, false, true, false) => ['┘', '╛', '╜', '╝'][corner(v, h)],
        (true, true, false, true) => ['├', '╞', '╟', '╠'][corner(v, h)],
        (true, true, true, false) => ['┤', '╡', '╢', '╣'][corner(v, h)],
        (false, true, true, true) => ['┬', '╤', '╥', '╦'][corner(v, h)],
        (true, false, true, true) => ['┴', '╧', '╨', '╩'][corner(v, h)],
        (true, true, true, true) => ['┼', '╪', '╫', '╬'][corner(v, h)],
        (true, true, false, false) => ['│', '║'][(v == 2) as usize],
        (false, false, true, true) => ['─', '═'][(h == 2) as usize],
        _ => ' ',
    }
}

/// Index into the single/double variants: `[v1h1, v1h2, v2h1, v2h2]`.
fn corner(v: u8, h: u8) -> usize {
    ((v == 2) as usize) * 2 + (h == 2) as usize
}

const RESET: &str = "\x1b[0m";
const DIM: &str = "\x1b[2m";

/// The table of a grid: row numbers on the left, column numbers on top, single lines
/// between the blocks of nested modes and double lines between blocks of blocks.
///
/// ```
/// use strideweave::view::{table, ColorBy, Grid};
/// let g = Grid::new(&"((2,2),2):((1,4),2)".parse().unwrap(), ColorBy::Index, 64).unwrap();
/// let text = table(&g, false);
/// assert!(text.lines().any(|l| l.trim_start().starts_with('├')), "{text}");
/// ```
pub fn table(grid: &Grid, ansi: bool) -> String {
    let (rows, cols) = (grid.rows(), grid.cols());
    let labels: Vec<String> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .map(|(r, c)| grid.index(r, c).to_string())
        .collect();
    let w = labels
        .iter()
        .map(String::len)
        .chain(std::iter::once((cols - 1).to_string().len()))
        .max()
        .unwrap_or(1);
    let rw = (rows - 1).to_string().len();
    let vweight = |c: usize| -> u8 {
        if c == 0 || c == cols {
            1
        } else {
            weight(grid.col_break(c))
        }
    };
    let paint = |text: &str, code: &str| -> String {
        if ansi && !code.is_empty() {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    };
    let mut out = String::new();

    // column numbers
    out.push_str(&" ".repeat(rw + 2));
    let mut header = String::new();
    for c in 0..cols {
        if c > 0 && vweight(c) > 0 {
            header.push_str("  ");
        }
        let _ = write!(header, " {c:>w$}");
    }
    out.push_str(&paint(&header, DIM));
    out.push('\n');

    let rule = |r: usize, out: &mut String| {
        let h = if r == 0 || r == rows {
            1
        } else {
            weight(grid.row_break(r))
        };
        let (up, down) = (if r > 0 { 1 } else { 0 }, if r < rows { 1 } else { 0 });
        let hch = junction(0, 0, h, h);
        out.push_str(&" ".repeat(rw + 1));
        for c in 0..=cols {
            let v = vweight(c);
            if c == 0 || c == cols || v > 0 {
                if c > 0 {
                    out.push(hch);
                }
                let left = if c > 0 { h } else { 0 };
                let right = if c < cols { h } else { 0 };
                out.push(junction(up * v, down * v, left, right));
            }
            if c < cols {
                for _ in 0..=w {
                    out.push(hch);
                }
            }
        }
        out.push('\n');
    };

    for r in 0..rows {
        if r == 0 || grid.row_break(r) > 0 {
            rule(r, &mut out);
        }
        out.push_str(&paint(&format!("{r:>rw$}"), DIM));
        out.push(' ');
        out.push(junction(1, 1, 0, 0));
        for c in 0..cols {
            let label = &labels[r * cols + c];
            let mut cell = format!(" {label:>w$}");
            let closes = c + 1 == cols || vweight(c + 1) > 0;
            if closes {
                cell.push(' ');
            }
            let mut code = String::new();
            if ansi {
                if let Some(slot) = grid.tile_slot(r, c, TILE_PALETTE.len() as u32) {
                    let bg = TILE_PALETTE[slot as usize].xterm256();
                    let _ = write!(code, "\x1b[30;48;5;{bg}m");
                }
                if grid.is_repeated(r, c) {
                    code.push_str(if grid.color().is_tiling() {
                        "\x1b[1m"
                    } else {
                        "\x1b[1;35m"
                    });
                }
            }
            out.push_str(&paint(&cell, &code));
            if closes {
                let v = vweight(c + 1);
                out.push(junction(v, v, 0, 0));
            }
        }
        out.push('\n');
    }
    rule(rows, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> String {
        let g = Grid::new(&text.parse().unwrap(), ColorBy::Index, 4096).unwrap();
        table(&g, false)
    }

    #[test]
    fn flat_layout_gets_only_an_outer_box() {
        let t = plain("(2,3):(3,1)");
        assert_eq!(
            t,
            "    0 1 2\n  ┌───────┐\n0 │ 0 1 2 │\n1 │ 3 4 5 │\n  └───────┘\n"
        );
    }

    #[test]
    fn nested_modes_get_inner_lines_and_double_lines_for_blocks_of_blocks() {
        let t = plain("((2,2,2),(2,2)):((1,2,4),(8,16))");
        let expected = [
            "     0  1    2  3",
            "  ┌───────┬───────┐",
            "0 │  0  8 │ 16 24 │",
            "1 │  1  9 │ 17 25 │",
            "  ├───────┼───────┤",
            "2 │  2 10 │ 18 26 │",
            "3 │  3 11 │ 19 27 │",
            "  ╞═══════╪═══════╡",
            "4 │  4 12 │ 20 28 │",
            "5 │  5 13 │ 21 29 │",
            "  ├───────┼───────┤",
            "6 │  6 14 │ 22 30 │",
            "7 │  7 15 │ 23 31 │",
            "  └───────┴───────┘",
            "",
        ]
        .join("\n");
        assert_eq!(t, expected);
    }

    #[test]
    fn ansi_escapes_appear_only_when_asked() {
        let l: Layout = "((2,4),(4,2)):((8,1),(16,4))".parse().unwrap();
        let mut opts = ShowOptions {
            color: ColorBy::Column,
            ..ShowOptions::default()
        };
        assert!(!show(&l, &opts).contains('\x1b'));
        opts.ansi = true;
        let text = show(&l, &opts);
        assert!(text.contains("\x1b[30;48;5;"), "{text}");
        assert!(text.contains("colour     by tile"), "{text}");
    }

    #[test]
    fn index_colouring_on_a_terminal_marks_only_repeated_indices() {
        let opts = ShowOptions {
            ansi: true,
            ..ShowOptions::default()
        };
        let text = show(&"(2,2):(1,2)".parse().unwrap(), &opts);
        assert!(
            !text.contains("colour") && !text.contains("\x1b[1;35m"),
            "{text}"
        );
        let text = show(&"(2,2):(0,1)".parse().unwrap(), &opts);
        assert!(
            text.contains("colour     repeated indices in bold magenta\n"),
            "{text}"
        );
        assert_eq!(text.matches("\x1b[1;35m").count(), 4, "{text}");
    }

    #[test]
    fn large_layouts_list_properties_and_omit_the_table() {
        let l: Layout = "(1000,1000):(1,1000)".parse().unwrap();
        let text = show(&l, &ShowOptions::default());
        assert!(text.contains("size       1000000"), "{text}");
        assert!(text.contains("omitted: 1000000 cells"), "{text}");
        assert!(!text.contains('│'));
    }

    #[test]
    fn junctions_cover_every_mixed_weight() {
        assert_eq!(junction(1, 1, 2, 2), '╪');
        assert_eq!(junction(2, 2, 1, 1), '╫');
        assert_eq!(junction(0, 2, 0, 1), '╓');
        assert_eq!(junction(1, 1, 0, 2), '╞');
        assert_eq!(junction(2, 0, 1, 1), '╨');
    }
}
