//! Pictures of tensor placements: which logical element lies in which tile and at which
//! bytes.

use super::color::{index_color, Rgb, TILE_PALETTE};
use super::picture::{Cell, Picture};
use crate::LayoutError;
use std::collections::{BTreeSet, HashMap};

/// What a placement picture needs to know about a tensor placement: its logical extents,
/// its element width and where each byte of each element lies.
///
/// [`crate::tensor::TensorSpec`] implements it; anything else that maps logical elements
/// to bytes can too.
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
/// diagonally) differ where the palette allows, and up to 12 tiles all differ: greedy,
/// in order of first appearance, the least used colour first.
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
    let mut uses = [0usize; TILE_PALETTE.len()];
    for t in order {
        let taken: BTreeSet<usize> = neighbours[&t]
            .iter()
            .filter_map(|u| slots.get(u).copied())
            .collect();
        // the least used colour no neighbour has: up to 12 tiles all differ
        let slot = (0..TILE_PALETTE.len())
            .filter(|s| !taken.contains(s))
            .min_by_key(|s| (uses[*s], *s))
            .unwrap_or((t % TILE_PALETTE.len() as u64) as usize);
        uses[slot] += 1;
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

/// `ceil(a * b ... )` rounded up to a power-of-two `align`, naming the overflow.
fn tile_size(factors: &[u64], align: u64) -> Result<u64, String> {
    let raw = factors
        .iter()
        .try_fold(1u64, |acc, &f| acc.checked_mul(f))
        .ok_or_else(|| format!("tile bytes {factors:?} overflow 64 bits"))?;
    let align = align.max(1);
    raw.checked_next_multiple_of(align)
        .ok_or_else(|| format!("tile bytes {raw} rounded up to {align} overflow 64 bits"))
}

impl PlacementMap for crate::tensor::TensorSpec {
    fn describe(&self) -> String {
        self.to_string()
    }

    fn extents(&self) -> Vec<u64> {
        self.dims.extents().to_vec()
    }

    fn element_bytes(&self) -> u64 {
        self.dtype.width()
    }

    fn byte_offset(&self, coord: &[u64], byte: u64) -> Result<u64, String> {
        crate::tensor::TensorSpec::byte_offset(self, coord, byte).map_err(|e| e.to_string())
    }

    fn required_bytes(&self) -> Result<u64, String> {
        crate::tensor::TensorSpec::required_bytes(self).map_err(|e| e.to_string())
    }

    /// `tD*tH*tW*tC*width` (MlaTiled) or `tile_h*tile_w*ceil(C/16)*16*width` (MlaCBlocked),
    /// rounded up to the tile alignment, as `spec/placements.md` defines tile bytes.
    fn tile_bytes(&self) -> Result<Option<u64>, String> {
        use crate::tensor::{Placement, CBLOCK_LANES};
        let width = self.dtype.width();
        match self.placement {
            Placement::MlaTiled(t) => {
                let [d, h, w, c] = t.tile;
                tile_size(&[d, h, w, c, width], t.tile_align).map(Some)
            }
            Placement::MlaCBlocked(b) => {
                let channels = self.dims.extents().last().copied().unwrap_or(0);
                let blocks = channels.div_ceil(CBLOCK_LANES);
                tile_size(
                    &[b.tile_h, b.tile_w, blocks, CBLOCK_LANES, width],
                    b.tile_align,
                )
                .map(Some)
            }
            Placement::Contiguous | Placement::Strided(_) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tensor_tests {
    use super::*;
    use crate::tensor::TensorSpec;

    fn spec(text: &str) -> TensorSpec {
        text.parse().unwrap()
    }

    fn opts() -> PlacementOptions {
        PlacementOptions {
            row_axes: None,
            max_cells: 16384,
        }
    }

    #[test]
    fn tile_bytes_times_tiles_is_the_required_span() {
        for (text, tiles) in [
            (
                "bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
                8,
            ),
            (
                "f32[6,6,3] mla-tiled(roles=HWC, tile=(1,2,4,4), align=256)",
                6,
            ),
            ("bf16[3,3,20] mla-cblocked(tile=(2,2), align=128)", 4),
            ("f16[2,5,5,40] mla-cblocked(tile=(4,2), align=64)", 12),
        ] {
            let s = spec(text);
            let t = PlacementMap::tile_bytes(&s).unwrap().unwrap();
            assert_eq!(s.required_bytes().unwrap(), tiles * t, "{text}");
        }
        assert_eq!(
            PlacementMap::tile_bytes(&spec("f32[2,3] strided(16,4)")).unwrap(),
            None
        );
    }

    #[test]
    fn mla_tiled_picture_puts_each_element_in_its_tile_and_bytes() {
        let s = spec("bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)");
        let pic = placement_picture(&s, &opts()).unwrap();
        assert_eq!((pic.rows, pic.cols), (35, 20));
        let tile_bytes = 512;
        for r in 0..35 {
            for c in 0..20 {
                let (h, w) = (r as u64 / 7, r as u64 % 7);
                let off = s.byte_offset(&[0, h, w, c as u64], 0).unwrap();
                let cell = pic.cell(r, c);
                assert_eq!(cell.label, off.to_string());
                assert_eq!(cell.tile, Some(off / tile_bytes));
            }
        }
        // bf16 byte planes: the high byte lies tC = 16 bytes after the low byte
        assert_eq!(
            pic.cell(0, 0).title,
            "element [0,0,0,0]: bytes 0, 16, tile 0"
        );
        // W tiles of 4: columns of pixels w=3 and w=4 lie in different tiles
        assert_ne!(pic.cell(3, 0).tile, pic.cell(4, 0).tile);
        assert_eq!(pic.horizontal_level(4, 0), 2);
        // channel 16 starts the second channel tile
        assert_ne!(pic.cell(0, 15).tile, pic.cell(0, 16).tile);
        // eight tiles, eight colours
        let fills: std::collections::HashSet<_> = pic.cells.iter().map(|c| c.fill).collect();
        assert_eq!(fills.len(), 8);
    }

    #[test]
    fn contiguous_picture_labels_are_row_major_offsets() {
        let pic = placement_picture(&spec("f32[2,3]"), &opts()).unwrap();
        let labels: Vec<&str> = pic.cells.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["0", "4", "8", "12", "16", "20"]);
        assert!(pic.cells.iter().all(|c| c.tile.is_none()));
        assert_eq!(pic.cell(1, 2).title, "element [1,2]: bytes 20..24");
    }

    #[test]
    fn empty_tensor_has_nothing_to_draw() {
        let e = placement_picture(&spec("f32[0,3]"), &opts()).unwrap_err();
        assert!(e.message().contains("empty"), "{e}");
    }
}
