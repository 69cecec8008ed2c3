//! Pictures of tensor placements: which logical element lies in which tile and at which
//! bytes.

use super::color::{index_color, Rgb, TILE_PALETTE};
use super::picture::{Cell, Picture};
use crate::LayoutError;
use std::collections::{BTreeSet, HashMap};

/// What a placement picture needs to know about a tensor placement: its logical extents,
/// its element width and where each byte of each element lies.
///
/// Anything that maps logical elements to bytes can implement it.
pub trait PlacementMap {
    /// The text form shown in the caption.
    fn describe(&self) -> String;
    /// Logical extents, slowest axis first (the last axis is the fastest).
    fn extents(&self) -> Vec<u64>;
    /// Bytes per element.
    fn element_bytes(&self) -> u64;
    /// Byte offset of byte `byte` (0 = least significant) of the element at `coord`.
    fn byte_offset(&self, coord: &[u64], byte: u64) -> Result<u64, String>;
    /// Bytes the placement spans.
    fn required_bytes(&self) -> Result<u64, String>;
    /// Bytes of one tile, alignment included, when the placement is tiled.
    fn tile_bytes(&self) -> Result<Option<u64>, String>;
}

/// Options of [`placement_picture`].
#[derive(Clone, Copy, Debug)]
pub struct PlacementOptions {
    /// How many leading axes make the rows (the others make the columns); `None` for all
    /// but the last axis.
    pub row_axes: Option<usize>,
    /// Most elements drawn.
    pub max_cells: u64,
}

/// Level of the boundary before each position `0..=len` of a row-major enumeration of
/// `extents` (last fastest): how many axes, from the fastest, wrap there.
fn row_major_breaks(extents: &[u64], len: usize) -> Vec<u8> {
    let mut products = Vec::new();
    let mut acc: u64 = 1;
    for &e in extents.iter().rev() {
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

/// Row-major coordinates of position `p` over `extents`.
fn unravel(mut p: u64, extents: &[u64], out: &mut Vec<u64>) {
    let start = out.len();
    for &e in extents.iter().rev() {
        out.push(p % e);
        p /= e;
    }
    out[start..].reverse();
}

fn join(coord: &[u64]) -> String {
    coord
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Palette slots for tiles such that tiles touching in the picture (sideways or
/// diagonally) differ where the palette allows: greedy, in order of first appearance.
fn tile_slots(tiles: &[u64], rows: usize, cols: usize) -> HashMap<u64, usize> {
    let mut neighbours: HashMap<u64, BTreeSet<u64>> = HashMap::new();
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for r in 0..rows {
        for c in 0..cols {
            let t = tiles[r * cols + c];
            if seen.insert(t) {
                order.push(t);
            }
            neighbours.entry(t).or_default();
            for (dr, dc) in [(0, 1), (1, -1), (1, 0), (1, 1)] {
                let (nr, nc) = (r as i64 + dr, c as i64 + dc);
                if nr < rows as i64 && nc >= 0 && nc < cols as i64 {
                    let u = tiles[nr as usize * cols + nc as usize];
                    if u != t {
                        neighbours.entry(t).or_default().insert(u);
                        neighbours.entry(u).or_default().insert(t);
                    }
                }
            }
        }
    }
    let mut slots: HashMap<u64, usize> = HashMap::new();
    for t in order {
        let used: BTreeSet<usize> = neighbours[&t]
            .iter()
            .filter_map(|u| slots.get(u).copied())
            .collect();
        let slot = (0..TILE_PALETTE.len())
            .find(|s| !used.contains(s))
            .unwrap_or((t % TILE_PALETTE.len() as u64) as usize);
        slots.insert(t, slot);
    }
    slots
}

/// The picture of a placement: one cell per logical element, rows the leading axes and
/// columns the trailing ones (both row-major), each cell labelled with the offset of the
/// element's first byte. Tiled placements colour and outline each tile; others colour by
/// offset.
///
/// Fails with a value error for an empty tensor (nothing to draw), a tensor of more than
/// `max_cells` elements, or a placement that cannot say where an element lies.
///
/// ```
/// use strideweave::view::{placement_picture, PlacementMap, PlacementOptions};
/// /// A 2 x 3 matrix of 4-byte elements whose rows are 16 bytes apart.
/// struct Pitched;
/// impl PlacementMap for Pitched {
///     fn describe(&self) -> String { "f32[2,3] pitch 16".into() }
///     fn extents(&self) -> Vec<u64> { vec![2, 3] }
///     fn element_bytes(&self) -> u64 { 4 }
///     fn byte_offset(&self, c: &[u64], byte: u64) -> Result<u64, String> {
///         Ok(c[0] * 16 + c[1] * 4 + byte)
///     }
///     fn required_bytes(&self) -> Result<u64, String> { Ok(28) }
///     fn tile_bytes(&self) -> Result<Option<u64>, String> { Ok(None) }
/// }
/// let opts = PlacementOptions { row_axes: None, max_cells: 100 };
/// let pic = placement_picture(&Pitched, &opts).unwrap();
/// let labels: Vec<&str> = pic.cells.iter().map(|c| c.label.as_str()).collect();
/// assert_eq!(labels, ["0", "4", "8", "16", "20", "24"]);
/// assert_eq!(pic.caption[1], "6 elements of 4 bytes in 28 bytes");
/// ```
pub fn placement_picture(
    map: &dyn PlacementMap,
    opts: &PlacementOptions,
) -> Result<Picture, LayoutError> {
    let spec = map.describe();
    let fail = |m: String| LayoutError::value(format!("{spec}: {m}"));
    let extents = map.extents();
    let rank = extents.len();
    let mut count: u64 = 1;
    for &e in &extents {
        count = count.saturating_mul(e);
    }
    if count == 0 {
        return Err(fail("the tensor is empty: no element to draw".into()));
    }
    if count > opts.max_cells {
        return Err(fail(format!(
            "{count} elements, more than the {} this view draws",
            opts.max_cells
        )));
    }
    let split = opts.row_axes.unwrap_or(rank.saturating_sub(1)).min(rank);
    let (row_ext, col_ext) = extents.split_at(split);
    let rows = row_ext.iter().product::<u64>() as usize;
    let cols = col_ext.iter().product::<u64>() as usize;
    let width = map.element_bytes();
    let required = map.required_bytes().map_err(fail)?;
    let tile_bytes = map.tile_bytes().map_err(fail)?.filter(|t| *t > 0);

    let mut offsets = Vec::with_capacity(rows * cols);
    let mut titles = Vec::with_capacity(rows * cols);
    let mut coord = Vec::with_capacity(rank);
    for r in 0..rows {
        for c in 0..cols {
            coord.clear();
            unravel(r as u64, row_ext, &mut coord);
            unravel(c as u64, col_ext, &mut coord);
            let bytes: Vec<u64> = (0..width)
                .map(|b| map.byte_offset(&coord, b))
                .collect::<Result<_, _>>()
                .map_err(fail)?;
            let first = bytes.first().copied().unwrap_or(0);
            let contiguous = bytes.windows(2).all(|w| w[1] == w[0] + 1);
            let where_ = if bytes.len() <= 1 {
                format!("byte {first}")
            } else if contiguous {
                format!("bytes {first}..{}", first + width)
            } else {
                format!(
                    "bytes {}",
                    bytes
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let tile = tile_bytes
                .map(|t| format!(", tile {}", first / t))
                .unwrap_or_default();
            titles.push(format!("element [{}]: {where_}{tile}", join(&coord)));
            offsets.push(first);
        }
    }
    let tiles: Option<Vec<u64>> = tile_bytes.map(|t| offsets.iter().map(|o| o / t).collect());
    let slots = tiles.as_ref().map(|t| tile_slots(t, rows, cols));
    let max = offsets.iter().copied().max().unwrap_or(0);
    let cells = offsets
        .iter()
        .zip(titles)
        .enumerate()
        .map(|(i, (&off, title))| {
            let tile = tiles.as_ref().map(|t| t[i]);
            let fill: Rgb = match (tile, &slots) {
                (Some(t), Some(s)) => TILE_PALETTE[s[&t]],
                _ => index_color(off, max),
            };
            Cell {
                label: off.to_string(),
                fill,
                bold: false,
                tile,
                title,
            }
        })
        .collect();

    let axes = |from: usize, to: usize| -> String {
        match to - from {
            0 => "nothing".to_string(),
            1 => format!("axis {from}"),
            _ => format!("axes {from}..{} (row-major)", to - 1),
        }
    };
    let mut caption = vec![spec.clone()];
    let mut sizes = format!("{count} elements of {width} bytes in {required} bytes");
    if let (Some(t), Some(ts)) = (tile_bytes, &tiles) {
        let used: BTreeSet<u64> = ts.iter().copied().collect();
        sizes.push_str(&format!(
            "; tiles of {t} bytes, {} holding elements (outlined)",
            used.len()
        ));
    }
    caption.push(sizes);
    caption.push(format!(
        "rows: {}, columns: {}; label: offset of the element's first byte",
        axes(0, split),
        axes(split, rank)
    ));
    Ok(Picture {
        caption,
        rows,
        cols,
        cells,
        row_breaks: row_major_breaks(row_ext, rows),
        col_breaks: row_major_breaks(col_ext, cols),
        row_labels: (0..rows as u64)
            .map(|r| {
                let mut c = Vec::new();
                unravel(r, row_ext, &mut c);
                join(&c)
            })
            .collect(),
        col_labels: (0..cols as u64)
            .map(|k| {
                let mut c = Vec::new();
                unravel(k, col_ext, &mut c);
                join(&c)
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test placement: row-major with each row padded to `pitch` elements, cut into
    /// tiles of `tile` elements when given.
    struct Padded {
        dims: Vec<u64>,
        pitch: u64,
        width: u64,
        tile: Option<u64>,
    }

    impl PlacementMap for Padded {
        fn describe(&self) -> String {
            format!("padded{:?}", self.dims)
        }
        fn extents(&self) -> Vec<u64> {
            self.dims.clone()
        }
        fn element_bytes(&self) -> u64 {
            self.width
        }
        fn byte_offset(&self, coord: &[u64], byte: u64) -> Result<u64, String> {
            let last = *coord.last().unwrap_or(&0);
            let mut row = 0;
            for (i, c) in coord[..coord.len().saturating_sub(1)].iter().enumerate() {
                row = row * self.dims[i] + c;
            }
            Ok((row * self.pitch + last) * self.width + byte)
        }
        fn required_bytes(&self) -> Result<u64, String> {
            let rows: u64 = self.dims[..self.dims.len() - 1].iter().product();
            Ok(rows * self.pitch * self.width)
        }
        fn tile_bytes(&self) -> Result<Option<u64>, String> {
            Ok(self.tile.map(|t| t * self.width))
        }
    }

    fn opts() -> PlacementOptions {
        PlacementOptions {
            row_axes: None,
            max_cells: 4096,
        }
    }

    #[test]
    fn one_cell_per_element_labelled_with_its_first_byte() {
        let p = Padded {
            dims: vec![2, 3],
            pitch: 4,
            width: 2,
            tile: None,
        };
        let pic = placement_picture(&p, &opts()).unwrap();
        assert_eq!((pic.rows, pic.cols), (2, 3));
        let labels: Vec<&str> = pic.cells.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["0", "2", "4", "8", "10", "12"]);
        assert_eq!(pic.cell(1, 2).title, "element [1,2]: bytes 12..14");
        assert_eq!(pic.caption[1], "6 elements of 2 bytes in 16 bytes");
    }

    #[test]
    fn tiles_are_outlined_and_neighbouring_tiles_differ_in_colour() {
        let p = Padded {
            dims: vec![2, 2, 4],
            pitch: 4,
            width: 1,
            tile: Some(8),
        };
        let pic = placement_picture(&p, &opts()).unwrap();
        assert_eq!((pic.rows, pic.cols), (4, 4));
        assert_eq!(pic.row_labels, ["0,0", "0,1", "1,0", "1,1"]);
        // rows 0,1 are tile 0 and rows 2,3 tile 1: a heavy line between them
        assert_eq!(pic.horizontal_level(2, 0), 2);
        assert_eq!(pic.horizontal_level(1, 0), 0);
        assert_ne!(pic.cell(1, 0).fill, pic.cell(2, 0).fill);
        assert!(pic.caption[1].ends_with("tiles of 8 bytes, 2 holding elements (outlined)"));
    }

    #[test]
    fn axes_split_between_rows_and_columns_as_asked() {
        let p = Padded {
            dims: vec![2, 3, 4],
            pitch: 4,
            width: 1,
            tile: None,
        };
        let mut o = opts();
        o.row_axes = Some(1);
        let pic = placement_picture(&p, &o).unwrap();
        assert_eq!((pic.rows, pic.cols), (2, 12));
        assert_eq!(pic.col_labels[5], "1,1");
        assert_eq!(pic.col_breaks[4], 1);
        assert!(pic.caption[2].starts_with("rows: axis 0, columns: axes 1..2 (row-major)"));
    }

    #[test]
    fn empty_and_oversized_tensors_are_refused() {
        let mut p = Padded {
            dims: vec![0, 3],
            pitch: 4,
            width: 1,
            tile: None,
        };
        let e = placement_picture(&p, &opts()).unwrap_err();
        assert!(e.message().contains("empty"), "{e}");
        p.dims = vec![1000, 1000];
        let e = placement_picture(&p, &opts()).unwrap_err();
        assert!(e.message().contains("1000000 elements"), "{e}");
    }
}
