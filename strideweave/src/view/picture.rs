//! What a rendered picture shows, independent of the output format: a table of labelled,
//! filled cells with hierarchy lines and tile borders, under a few caption lines.

use super::color::{index_color, ColorBy, Rgb, TILE_PALETTE};
use super::grid::Grid;

/// A table of labelled cells ready to be written as SVG or TikZ.
///
/// Row and column boundaries carry a level (0 plain, 1 and up heavier: the hierarchy of
/// nested modes). Cells may also carry a tile number; a border between neighbouring cells
/// of different tiles is drawn heavy wherever it lies.
///
/// ```
/// use strideweave::view::{ColorBy, Grid, Picture};
/// let g = Grid::new(&"(4,4):(1,4)".parse().unwrap(), ColorBy::Index, 64).unwrap();
/// let p = Picture::from_grid(&g, None);
/// assert_eq!((p.rows, p.cols, p.cells.len()), (4, 4, 16));
/// assert_eq!(p.cells[1].label, "4");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// Caption lines, the first drawn larger.
    pub caption: Vec<String>,
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Cells in row-major order.
    pub cells: Vec<Cell>,
    /// Boundary level above each row `0..=rows` (edges are drawn regardless).
    pub row_breaks: Vec<u8>,
    /// Boundary level left of each column `0..=cols`.
    pub col_breaks: Vec<u8>,
    /// Labels of the rows, drawn at the left.
    pub row_labels: Vec<String>,
    /// Labels of the columns, drawn on top.
    pub col_labels: Vec<String>,
}

/// One cell of a [`Picture`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The text in the cell.
    pub label: String,
    /// Fill colour.
    pub fill: Rgb,
    /// Label in bold (an index that repeats).
    pub bold: bool,
    /// Tile number, when cells belong to tiles whose borders are drawn.
    pub tile: Option<u64>,
    /// Tooltip text.
    pub title: String,
}

/// ` text`, or nothing for empty text.
fn spaced(text: String) -> String {
    if text.is_empty() {
        text
    } else {
        format!(" {text}")
    }
}

impl Picture {
    /// The picture of a layout's grid: each cell labelled with its index and filled by the
    /// grid's colouring. `expression`, when given and different from the layout's
    /// notation, heads the caption.
    pub fn from_grid(grid: &Grid, expression: Option<&str>) -> Picture {
        let notation = grid.notation().to_string();
        let mut caption = Vec::new();
        match expression.map(str::trim) {
            Some(e) if e != notation => {
                caption.push(e.to_string());
                caption.push(format!("= {notation}"));
            }
            _ => caption.push(notation),
        }
        caption.push(grid.axes_description());
        if grid.color() != ColorBy::None {
            caption.push(format!("colour {}", grid.color().describe()));
        }
        if grid.repeated_cells() > 0 {
            caption.push(format!(
                "{} cells share their index with another cell (bold)",
                grid.repeated_cells()
            ));
        }
        let max = grid.max_index();
        let slots = TILE_PALETTE.len() as u32;
        let mut cells = Vec::with_capacity(grid.rows() * grid.cols());
        for r in 0..grid.rows() {
            for c in 0..grid.cols() {
                let idx = grid.index(r, c);
                let fill = match grid.color() {
                    ColorBy::None => Rgb(255, 255, 255),
                    ColorBy::Index => index_color(idx, max),
                    _ => TILE_PALETTE[grid.tile_slot(r, c, slots).unwrap_or(0) as usize],
                };
                cells.push(Cell {
                    label: idx.to_string(),
                    fill,
                    bold: grid.is_repeated(r, c),
                    tile: None,
                    title: format!(
                        "row {r}{}, column {c}{}: index {idx}",
                        spaced(grid.row_coord(r)),
                        spaced(grid.col_coord(c))
                    ),
                });
            }
        }
        Picture {
            caption,
            rows: grid.rows(),
            cols: grid.cols(),
            cells,
            row_breaks: (0..=grid.rows()).map(|r| grid.row_break(r)).collect(),
            col_breaks: (0..=grid.cols()).map(|c| grid.col_break(c)).collect(),
            row_labels: (0..grid.rows()).map(|r| r.to_string()).collect(),
            col_labels: (0..grid.cols()).map(|c| c.to_string()).collect(),
        }
    }

    /// The cell at `(r, c)`.
    pub fn cell(&self, r: usize, c: usize) -> &Cell {
        &self.cells[r * self.cols + c]
    }

    /// Level of the line left of cell `(r, c)` (column `c`, `1..cols`): the column
    /// boundary, or 2 when the cells on either side lie in different tiles.
    pub fn vertical_level(&self, r: usize, c: usize) -> u8 {
        let base = self.col_breaks[c];
        if c > 0 && c < self.cols && self.cell(r, c - 1).tile != self.cell(r, c).tile {
            base.max(2)
        } else {
            base
        }
    }

    /// Level of the line above cell `(r, c)` (row `r`, `1..rows`), as
    /// [`Picture::vertical_level`].
    pub fn horizontal_level(&self, r: usize, c: usize) -> u8 {
        let base = self.row_breaks[r];
        if r > 0 && r < self.rows && self.cell(r - 1, c).tile != self.cell(r, c).tile {
            base.max(2)
        } else {
            base
        }
    }

    /// The longest cell label, in characters.
    pub fn label_chars(&self) -> usize {
        self.cells
            .iter()
            .map(|c| c.label.chars().count())
            .max()
            .unwrap_or(1)
            .max(1)
    }

    /// Line segments of each level: `(level, horizontal, fixed, from, to)` in cell units,
    /// merged along their line, edges excluded. Horizontal segments lie on row line
    /// `fixed` from column `from` to `to`; vertical ones on column line `fixed`.
    pub fn segments(&self) -> Vec<(u8, bool, usize, usize, usize)> {
        let mut out = Vec::new();
        for r in 1..self.rows {
            let mut start = 0;
            for c in 1..=self.cols {
                let cur = self.horizontal_level(r, start);
                if c == self.cols || self.horizontal_level(r, c) != cur {
                    out.push((cur, true, r, start, c));
                    start = c;
                }
            }
        }
        for c in 1..self.cols {
            let mut start = 0;
            for r in 1..=self.rows {
                let cur = self.vertical_level(start, c);
                if r == self.rows || self.vertical_level(r, c) != cur {
                    out.push((cur, false, c, start, r));
                    start = r;
                }
            }
        }
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caption_names_expression_result_and_axes() {
        let g = Grid::new(&"(2,2):(1,2)".parse().unwrap(), ColorBy::Index, 64).unwrap();
        let p = Picture::from_grid(&g, Some("coalesce((2,2):(1,2))"));
        assert_eq!(p.caption[0], "coalesce((2,2):(1,2))");
        assert_eq!(p.caption[1], "= (2,2):(1,2)");
        assert!(p.caption[2].starts_with("rows: mode 0 (2)"));
        let p = Picture::from_grid(&g, Some("(2,2):(1,2)"));
        assert_eq!(p.caption[0], "(2,2):(1,2)");
    }

    #[test]
    fn tile_borders_rise_to_level_two_and_segments_merge() {
        let g = Grid::new(&"(2,2):(1,2)".parse().unwrap(), ColorBy::None, 64).unwrap();
        let mut p = Picture::from_grid(&g, None);
        assert_eq!(p.segments(), vec![(0, false, 1, 0, 2), (0, true, 1, 0, 2)]);
        p.cells[0].tile = Some(0);
        p.cells[1].tile = Some(0);
        p.cells[2].tile = Some(1);
        p.cells[3].tile = Some(1);
        // cells are row-major: row 0 is tile 0, row 1 tile 1, so the row line is a border
        assert_eq!(p.vertical_level(0, 1), 0);
        assert_eq!(p.horizontal_level(1, 0), 2);
        assert_eq!(p.segments(), vec![(0, false, 1, 0, 2), (2, true, 1, 0, 2)]);
    }

    #[test]
    fn tooltips_give_hierarchical_coordinates() {
        let g = Grid::new(&"((2,2),3):((1,2),4)".parse().unwrap(), ColorBy::Index, 64).unwrap();
        let p = Picture::from_grid(&g, None);
        assert_eq!(p.cell(3, 2).title, "row 3 (1,1), column 2 2: index 11");
        let g = Grid::new(&"3:2".parse().unwrap(), ColorBy::Index, 64).unwrap();
        let p = Picture::from_grid(&g, None);
        assert_eq!(p.cell(2, 0).title, "row 2 2, column 0: index 4");
    }

    #[test]
    fn repeated_indices_are_bold_and_captioned() {
        let g = Grid::new(&"(2,2):(0,1)".parse().unwrap(), ColorBy::Index, 64).unwrap();
        let p = Picture::from_grid(&g, None);
        assert!(p.cells.iter().all(|c| c.bold));
        assert!(p.caption.iter().any(|l| l.contains("4 cells share")));
    }
}
