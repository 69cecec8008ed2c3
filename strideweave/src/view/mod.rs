//! Seeing layouts: the table of `strideweave show` and the pictures of
//! `strideweave render` (SVG and TikZ), built from one [`Grid`].
//!
//! A layout is drawn as CuTe's `print_layout` does: rows are mode 0, columns are mode 1
//! (modes beyond two are grouped into the columns, mode 1 fastest), each cell holding the
//! index of its coordinate. Lines between the blocks of nested modes show the hierarchy;
//! colours show equal indices or the tiles of a divide or product ([`ColorBy`]).
//!
//! ```
//! use strideweave::view::{render_svg, ColorBy, Grid, Picture, SvgOptions};
//! let l: strideweave::Layout = "((2,4),(4,2)):((8,1),(16,4))".parse().unwrap();
//! let grid = Grid::new(&l, ColorBy::Column, 4096).unwrap();
//! let svg = render_svg(&Picture::from_grid(&grid, None), &SvgOptions::default());
//! assert_eq!(svg.matches("class=\"cell\"").count(), 64);
//! ```

mod color;
mod grid;
mod picture;
mod placement;
mod svg;
mod table;
mod tikz;

pub use color::{index_color, ColorBy, Rgb, TILE_PALETTE};
pub use grid::Grid;
pub use picture::{Cell, Picture};
pub use placement::{placement_picture, PlacementMap, PlacementOptions};
pub use svg::{render_svg, SvgOptions, RENDER_MAX_CELLS};
pub use table::{
    properties, show, show_swizzled, swizzled_properties, table, ShowOptions, SHOW_MAX_CELLS,
};
pub use tikz::{render_tikz, TikzOptions};

use crate::eval::{eval, Value};
use crate::{ComposedLayout, Layout, LayoutError};

/// Evaluates an `eval` expression that must give a layout (a bare layout is an expression
/// too); any other value is a type error naming what it gave.
///
/// ```
/// use strideweave::view::eval_layout;
/// let l = eval_layout("zipped_divide((8,8):(8,1), [2:1,4:1])").unwrap();
/// assert_eq!(l.to_string(), "((2,4),(4,2)):((8,1),(16,4))");
/// let e = eval_layout("size(4:1)").unwrap_err();
/// assert_eq!(e.to_string(), "type: expected a layout, the expression gives an integer (4)");
/// ```
pub fn eval_layout(text: &str) -> Result<Layout, LayoutError> {
    match eval(text)? {
        Value::Layout(l) => Ok(l),
        other => Err(LayoutError::type_error(format!(
            "expected a layout, the expression gives {} ({other})",
            other.kind()
        ))),
    }
}

/// What `show` and `render` draw: a layout, or a swizzled layout `Sw o offset o L`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawable {
    /// An ordinary layout.
    Layout(Layout),
    /// A swizzled layout: `L`'s table with swizzled indices.
    Swizzled(ComposedLayout),
}

impl Drawable {
    /// The grid of indices (see [`Grid::new`] and [`Grid::swizzled`]).
    pub fn grid(&self, color: ColorBy, max_cells: u64) -> Result<Grid, LayoutError> {
        match self {
            Drawable::Layout(l) => Grid::new(l, color, max_cells),
            Drawable::Swizzled(c) => Grid::swizzled(c, color, max_cells),
        }
    }

    /// The text of `strideweave show`.
    pub fn show(&self, opts: &ShowOptions) -> String {
        match self {
            Drawable::Layout(l) => show(l, opts),
            Drawable::Swizzled(c) => show_swizzled(c, opts),
        }
    }
}

/// Evaluates an `eval` expression that gives a layout or a swizzled layout.
///
/// ```
/// use strideweave::view::{eval_drawable, ShowOptions};
/// let d = eval_drawable("Sw<2,0,-3> o (4,8):(8,1)").unwrap();
/// assert!(d.show(&ShowOptions::default()).contains("0 │  0  9 18 27  4 13 22 31 │"));
/// ```
pub fn eval_drawable(text: &str) -> Result<Drawable, LayoutError> {
    match eval(text)? {
        Value::Layout(l) => Ok(Drawable::Layout(l)),
        Value::Composed(c) => Ok(Drawable::Swizzled(c)),
        other => Err(LayoutError::type_error(format!(
            "expected a layout, the expression gives {} ({other})",
            other.kind()
        ))),
    }
}
