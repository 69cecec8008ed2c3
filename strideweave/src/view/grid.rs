//! The 2-D arrangement of a layout that every picture draws: rows are mode 0, columns are
//! modes 1.. grouped (mode 1 fastest), as in CuTe's `print_layout`.

use super::color::ColorBy;
use crate::int_tuple::IntTuple;
use crate::{ComposedLayout, Layout, LayoutError};
use std::collections::HashMap;

/// A layout laid out as a table of indices, with the hierarchy and tile structure the
/// pictures draw.
///
/// Cell `(r, c)` holds the index of the integer key `r + rows * c` (first mode fastest), so
/// row `r` is the linear coordinate of mode 0 and column `c` that of modes 1.. together.
/// A rank-1 layout is one column; the empty layout `():()` is one cell.
///
/// ```
/// use strideweave::view::{ColorBy, Grid};
/// let l: strideweave::Layout = "((2,2),3):((1,6),2)".parse().unwrap();
/// let g = Grid::new(&l, ColorBy::Index, 100).unwrap();
/// assert_eq!((g.rows(), g.cols()), (4, 3));
/// assert_eq!(g.index(3, 2), 1 + 6 + 2 * 2);
/// // a boundary between the blocks of the nested mode (2,2) before row 2
/// assert_eq!((g.row_break(1), g.row_break(2)), (0, 1));
/// ```
#[derive(Clone, Debug)]
pub struct Grid {
    layout: Layout,
    notation: String,
    rows: usize,
    cols: usize,
    indices: Vec<u64>,
    row_breaks: Vec<u8>,
    col_breaks: Vec<u8>,
    color: ColorBy,
    tiles: Option<(Vec<u32>, Vec<u32>, u32)>,
    repeated: Vec<bool>,
    repeated_count: usize,
    row_shape: IntTuple,
    col_shape: IntTuple,
}

/// Leaf extents of the modes `modes` of `layout`, and for each leaf whether it selects
/// the tile under `color`.
fn axis(
    layout: &Layout,
    modes: std::ops::Range<usize>,
    color: ColorBy,
) -> Result<(Vec<u64>, Vec<bool>), LayoutError> {
    let mut extents = Vec::new();
    let mut select = Vec::new();
    for m in modes {
        let mode = layout.get(m)?;
        let items = if mode.leaf_count() <= 1 {
            1
        } else {
            mode.rank()
        };
        let mut first_item_leaves = mode.leaf_count();
        if items >= 2 {
            first_item_leaves = mode.get(0)?.leaf_count();
        }
        for leaf in 0..mode.leaf_count() {
            extents.push(mode.leaf_extent(leaf));
            let in_first = leaf < first_item_leaves;
            select.push(match color {
                ColorBy::None | ColorBy::Index => false,
                ColorBy::Column => m >= 1,
                ColorBy::Block => {
                    if items >= 2 {
                        !in_first
                    } else {
                        m >= 1
                    }
                }
                ColorBy::Rake => {
                    if items >= 2 {
                        in_first
                    } else {
                        m == 0
                    }
                }
            });
        }
    }
    Ok((extents, select))
}

/// `shape` with its leaves replaced by the digits of `p` (first leaf fastest).
fn coord_text(shape: &IntTuple, p: u64) -> String {
    let mut t = *shape;
    let mut rest = p;
    for i in 0..t.leaf_count() {
        let e = t.leaf(i);
        t.set_leaf(i, rest % e);
        rest /= e;
    }
    if t.leaf_count() == 0 {
        return String::new();
    }
    t.to_string()
}

/// Boundary level before each position `0..=len` of an axis with the given leaf extents:
/// how many non-trivial leaves complete a whole cycle there (0 inside the first leaf).
fn breaks(extents: &[u64], len: usize) -> Vec<u8> {
    let mut products = Vec::new();
    let mut acc: u64 = 1;
    for &e in extents {
        if e > 1 {
            acc = acc.saturating_mul(e);
            products.push(acc);
        }
    }
    (0..=len)
        .map(|p| {
            if p == 0 || p == len {
                return 0;
            }
            products
                .iter()
                .filter(|&&q| (p as u64).is_multiple_of(q))
                .count() as u8
        })
        .collect()
}

/// Tile coordinate of each position of an axis: the mixed-radix number formed by the
/// digits of the selected leaves, and how many distinct values it takes.
fn tile_coords(extents: &[u64], select: &[bool], len: usize) -> (Vec<u32>, u32) {
    let mut count: u64 = 1;
    for (e, s) in extents.iter().zip(select) {
        if *s {
            count = count.saturating_mul(*e);
        }
    }
    let coords = (0..len as u64)
        .map(|p| {
            let mut rest = p;
            let mut coord: u64 = 0;
            let mut weight: u64 = 1;
            for (e, s) in extents.iter().zip(select) {
                let digit = rest % e;
                rest /= e;
                if *s {
                    coord += digit * weight;
                    weight *= e;
                }
            }
            coord as u32
        })
        .collect();
    (coords, count.min(u32::MAX as u64) as u32)
}

impl Grid {
    /// Arranges `layout` as a table, refusing layouts of more than `max_cells` cells
    /// with a value error (before allocating anything).
    pub fn new(layout: &Layout, color: ColorBy, max_cells: u64) -> Result<Grid, LayoutError> {
        Grid::build(layout, layout.to_string(), color, max_cells, |key| {
            layout
                .index_of(key)
                .map_err(|e| LayoutError::from_core(format!("index of key {key} in {layout}"), e))
        })
    }

    /// Arranges a swizzled layout `Sw o offset o L`: the rows, columns and block lines of
    /// `L`, each cell holding the swizzled index.
    ///
    /// ```
    /// use strideweave::view::{ColorBy, Grid};
    /// let s: strideweave::ComposedLayout = "Sw<3,0,3> o (8,8):(8,1)".parse().unwrap();
    /// let g = Grid::swizzled(&s, ColorBy::Index, 64).unwrap();
    /// assert_eq!((g.index(1, 0), g.index(1, 1)), (9, 8));
    /// assert_eq!(g.notation(), "Sw<3,0,3> o (8,8):(8,1)");
    /// ```
    pub fn swizzled(
        composed: &ComposedLayout,
        color: ColorBy,
        max_cells: u64,
    ) -> Result<Grid, LayoutError> {
        Grid::build(
            &composed.layout(),
            composed.to_string(),
            color,
            max_cells,
            |key| composed.index_of(key),
        )
    }

    /// The grid of `layout`'s shape whose cell for key `k` holds `index(k)`.
    fn build(
        layout: &Layout,
        notation: String,
        color: ColorBy,
        max_cells: u64,
        index: impl Fn(u64) -> Result<u64, LayoutError>,
    ) -> Result<Grid, LayoutError> {
        let size = layout.size();
        if size > max_cells {
            return Err(LayoutError::value(format!(
                "layout {notation} has {size} cells, more than the {max_cells} this view draws"
            )));
        }
        let rank = layout.rank();
        let (row_ext, row_sel) = if rank == 0 {
            (vec![], vec![])
        } else {
            axis(layout, 0..1, color)?
        };
        let (col_ext, col_sel) = if rank <= 1 {
            (vec![], vec![])
        } else {
            axis(layout, 1..rank, color)?
        };
        let row_shape = if rank == 0 {
            IntTuple::EMPTY
        } else {
            *layout.get(0)?.shape().as_tuple()
        };
        let col_shape = match rank {
            0 | 1 => IntTuple::EMPTY,
            2 => *layout.get(1)?.shape().as_tuple(),
            _ => *layout.slice(1, rank)?.shape().as_tuple(),
        };
        let rows = row_ext.iter().product::<u64>() as usize;
        let cols = col_ext.iter().product::<u64>() as usize;
        let mut indices = Vec::with_capacity(rows * cols);
        for r in 0..rows {
            for c in 0..cols {
                indices.push(index(r as u64 + rows as u64 * c as u64)?);
            }
        }
        let mut seen: HashMap<u64, u32> = HashMap::with_capacity(indices.len());
        for &i in &indices {
            *seen.entry(i).or_insert(0) += 1;
        }
        let repeated: Vec<bool> = indices.iter().map(|i| seen[i] > 1).collect();
        let repeated_count = repeated.iter().filter(|r| **r).count();
        let tiles = if color.is_tiling() {
            let (rt, nrt) = tile_coords(&row_ext, &row_sel, rows);
            let (ct, _) = tile_coords(&col_ext, &col_sel, cols);
            Some((rt, ct, nrt))
        } else {
            None
        };
        Ok(Grid {
            layout: *layout,
            notation,
            rows,
            cols,
            indices,
            row_breaks: breaks(&row_ext, rows),
            col_breaks: breaks(&col_ext, cols),
            color,
            tiles,
            repeated,
            repeated_count,
            row_shape,
            col_shape,
        })
    }

    /// The layout drawn (for a swizzled layout, the layout under the swizzle).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// What is drawn, in notation (`Sw<B,M,S> o L` for a swizzled layout).
    pub fn notation(&self) -> &str {
        &self.notation
    }

    /// Number of rows: the size of mode 0 (1 for the empty layout).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns: the size of modes 1.. together (1 for rank 0 and 1).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The index in cell `(r, c)`.
    ///
    /// # Panics
    /// When `r >= rows()` or `c >= cols()`.
    pub fn index(&self, r: usize, c: usize) -> u64 {
        self.indices[r * self.cols + c]
    }

    /// Level of the boundary above row `r`: 0 inside a block, 1 between blocks of the
    /// innermost nested leaf, higher between larger blocks (0 for the outer edges).
    pub fn row_break(&self, r: usize) -> u8 {
        self.row_breaks[r]
    }

    /// Level of the boundary left of column `c`, as [`Grid::row_break`].
    pub fn col_break(&self, c: usize) -> u8 {
        self.col_breaks[c]
    }

    /// The colouring this grid was built for.
    pub fn color(&self) -> ColorBy {
        self.color
    }

    /// The tile of cell `(r, c)` as `(row tile, column tile)`, when colouring by tiles.
    pub fn tile(&self, r: usize, c: usize) -> Option<(u32, u32)> {
        self.tiles.as_ref().map(|(rt, ct, _)| (rt[r], ct[c]))
    }

    /// A small palette slot for cell `(r, c)` under a tiling colouring: neighbouring tiles,
    /// across rows, columns or diagonals, get different slots out of `slots` (12 in the
    /// pictures: row tiles step by 1, column tiles by 5, diagonals by 4 or 6).
    pub fn tile_slot(&self, r: usize, c: usize, slots: u32) -> Option<u32> {
        self.tile(r, c).map(|(a, b)| {
            let v = a as u64 + (b as u64) * 5;
            (v % slots as u64) as u32
        })
    }

    /// Whether the index in cell `(r, c)` also appears in another cell.
    pub fn is_repeated(&self, r: usize, c: usize) -> bool {
        self.repeated[r * self.cols + c]
    }

    /// How many cells hold an index that some other cell holds too.
    pub fn repeated_cells(&self) -> usize {
        self.repeated_count
    }

    /// The largest index in the table (0 for a one-cell table of index 0).
    pub fn max_index(&self) -> u64 {
        self.indices.iter().copied().max().unwrap_or(0)
    }

    /// The hierarchical coordinate of row `r` in mode 0, e.g. `(1,2)` for row 5 of a
    /// mode of shape `(2,4)` (first leaf fastest); empty when there is no such mode.
    ///
    /// ```
    /// use strideweave::view::{ColorBy, Grid};
    /// let g = Grid::new(&"((2,4),(3,(2,2))):((1,2),(8,(24,48)))".parse().unwrap(), ColorBy::Index, 100).unwrap();
    /// assert_eq!(g.row_coord(5), "(1,2)");
    /// assert_eq!(g.col_coord(7), "(1,(0,1))");
    /// ```
    pub fn row_coord(&self, r: usize) -> String {
        coord_text(&self.row_shape, r as u64)
    }

    /// The hierarchical coordinate of column `c` in modes 1.. (as one tuple of those modes
    /// when there are several), as [`Grid::row_coord`].
    pub fn col_coord(&self, c: usize) -> String {
        coord_text(&self.col_shape, c as u64)
    }

    /// What the rows and the columns are, e.g. `rows: mode 0 (8), columns: mode 1 (8)`.
    pub fn axes_description(&self) -> String {
        let rank = self.layout.rank();
        match rank {
            0 => "one cell: the empty layout has no modes".to_string(),
            1 => format!("rows: mode 0 ({}), one column (rank 1)", self.rows),
            2 => format!(
                "rows: mode 0 ({}), columns: mode 1 ({})",
                self.rows, self.cols
            ),
            _ => format!(
                "rows: mode 0 ({}), columns: modes 1..{} grouped ({}, mode 1 fastest)",
                self.rows,
                rank - 1,
                self.cols
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str, color: ColorBy) -> Grid {
        Grid::new(&text.parse().unwrap(), color, 1 << 16).unwrap()
    }

    #[test]
    fn cells_follow_first_mode_fastest_keys() {
        let g = grid("(2,3):(3,1)", ColorBy::Index);
        assert_eq!((g.rows(), g.cols()), (2, 3));
        let rows: Vec<Vec<u64>> = (0..2)
            .map(|r| (0..3).map(|c| g.index(r, c)).collect())
            .collect();
        assert_eq!(rows, vec![vec![0, 1, 2], vec![3, 4, 5]]);
    }

    #[test]
    fn modes_beyond_two_group_into_columns_mode_1_fastest() {
        let g = grid("(2,3,4):(1,2,6)", ColorBy::Index);
        assert_eq!((g.rows(), g.cols()), (2, 12));
        assert_eq!(g.index(1, 4), 1 + 2 + 6);
        assert_eq!(g.col_break(3), 1);
        assert!(g.axes_description().contains("modes 1..2 grouped"));
    }

    #[test]
    fn rank_one_is_one_column_and_rank_zero_one_cell() {
        let g = grid("5:2", ColorBy::Index);
        assert_eq!((g.rows(), g.cols(), g.index(4, 0)), (5, 1, 8));
        let e = grid("():()", ColorBy::Index);
        assert_eq!((e.rows(), e.cols(), e.index(0, 0)), (1, 1, 0));
    }

    #[test]
    fn break_levels_count_completed_nontrivial_leaves() {
        let g = grid("((2,1,2),2):((1,0,2),4)", ColorBy::Index);
        let levels: Vec<u8> = (0..4).map(|r| g.row_break(r)).collect();
        assert_eq!(levels, vec![0, 0, 1, 0]);
        let g = grid("((2,2,2),1):((1,2,4),0)", ColorBy::Index);
        let levels: Vec<u8> = (0..8).map(|r| g.row_break(r)).collect();
        assert_eq!(levels, vec![0, 0, 1, 0, 2, 0, 1, 0]);
    }

    #[test]
    fn oversized_layouts_are_refused_before_allocation() {
        let l: Layout = "(1024,1024):(1,1024)".parse().unwrap();
        let e = Grid::new(&l, ColorBy::Index, 4096).unwrap_err();
        assert!(e.message().contains("1048576 cells"), "{e}");
    }

    #[test]
    fn repeated_indices_are_marked() {
        let g = grid("(2,2):(0,1)", ColorBy::Index);
        assert_eq!(g.repeated_cells(), 4);
        let g = grid("(2,2):(1,2)", ColorBy::Index);
        assert_eq!(g.repeated_cells(), 0);
    }

    #[test]
    fn column_tiles_give_each_column_its_own_tile() {
        let g = grid("((2,4),(4,2)):((8,1),(16,4))", ColorBy::Column);
        assert_eq!(g.tile(0, 3), Some((0, 3)));
        assert_eq!(g.tile(7, 3), Some((0, 3)));
    }

    #[test]
    fn block_tiles_follow_the_second_item_of_each_mode() {
        // blocked_product((2,2):(1,2), (3,2):(1,3)) = ((2,3),(2,2)):((1,4),(2,12))
        let g = grid("((2,3),(2,2)):((1,4),(2,12))", ColorBy::Block);
        assert_eq!(g.tile(0, 0), g.tile(1, 1));
        assert_ne!(g.tile(1, 0), g.tile(2, 0));
        assert_ne!(g.tile(0, 1), g.tile(0, 2));
    }

    #[test]
    fn rake_tiles_follow_the_first_item_of_each_mode() {
        let g = grid("((3,2),(2,2)):((2,1),(12,6))", ColorBy::Rake);
        assert_eq!(g.tile(0, 0), g.tile(3, 2));
        assert_ne!(g.tile(0, 0), g.tile(1, 0));
    }

    #[test]
    fn neighbouring_and_diagonal_tiles_get_different_slots() {
        let g = grid("((2,4),(2,4)):((1,16),(2,4))", ColorBy::Block);
        for r in 0..8 {
            for c in 0..8 {
                if r + 1 < 8 && g.tile(r, c) != g.tile(r + 1, c) {
                    assert_ne!(g.tile_slot(r, c, 12), g.tile_slot(r + 1, c, 12));
                }
                if c + 1 < 8 && g.tile(r, c) != g.tile(r, c + 1) {
                    assert_ne!(g.tile_slot(r, c, 12), g.tile_slot(r, c + 1, 12));
                }
                if r + 1 < 8 && c + 1 < 8 && g.tile(r, c) != g.tile(r + 1, c + 1) {
                    assert_ne!(g.tile_slot(r, c, 12), g.tile_slot(r + 1, c + 1, 12));
                }
                if r + 1 < 8 && c >= 1 && g.tile(r, c) != g.tile(r + 1, c - 1) {
                    assert_ne!(g.tile_slot(r, c, 12), g.tile_slot(r + 1, c - 1, 12));
                }
            }
        }
    }
}
