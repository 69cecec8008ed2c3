//! Tiling and partitioning tensors (CuTe's `zipped_divide`, `tiled_divide`,
//! `local_tile`, `local_partition`), with tiles that may overhang the tensor, and
//! identity (coordinate) tensors that mask the overhang.
//!
//! A tile that does not divide an extent, or is larger than it, gives partial edge tiles:
//! the tile count is a ceiling and the last tiles reach past the tensor, as in CuTe. Their
//! elements outside the tensor must not be touched: tile an [`IdentityTensor`] of the
//! same shape the same way and test [`IdentityTensor::in_bounds`].

use super::addressing::TensorLayout;
use super::base::Tensor;
use super::copy::{Leaves, Walk};
use super::engine::{Engine, EngineMut};
use crate::error::{CoreError, LayoutError};
use crate::int_tuple::{IntTuple, IntoIntTuple, Node};
use crate::ops::tiler_notation;
use crate::{algebra, Coord, Layout, Shape};

/// Most top-level modes a tiler or an identity tensor has.
pub const MAX_TILED_MODES: usize = 8;

/// A tiler: one tile layout per leading mode of the tensor. Slices, arrays and `Vec`s of
/// [`Layout`]s, and arrays of integers (`[4, 16]` is the tiler `[4:1, 16:1]`).
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::Tiler;
/// let by_layouts = ["4:1".parse::<Layout>().unwrap(), "16:1".parse().unwrap()];
/// assert_eq!([4u64, 16].tiles().unwrap().as_slice(), by_layouts.tiles().unwrap().as_slice());
/// ```
pub trait Tiler {
    /// The tile layouts.
    fn tiles(&self) -> Result<TileList, LayoutError>;
}

/// The tiles of a [`Tiler`], held inline.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::TileList;
/// let t = TileList::new(&["2:1".parse::<Layout>().unwrap()]).unwrap();
/// assert_eq!(t.as_slice()[0].to_string(), "2:1");
/// assert!(TileList::new(&[Layout::EMPTY; 9]).is_err());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TileList {
    tiles: [Layout; MAX_TILED_MODES],
    n: usize,
}

impl TileList {
    /// A list of up to [`MAX_TILED_MODES`] tiles.
    pub fn new(tiles: &[Layout]) -> Result<TileList, LayoutError> {
        if tiles.len() > MAX_TILED_MODES {
            return Err(LayoutError::value(format!(
                "tiler {} has {} tiles; at most {MAX_TILED_MODES} are supported",
                tiler_notation(tiles),
                tiles.len()
            )));
        }
        let mut list = TileList {
            tiles: [Layout::EMPTY; MAX_TILED_MODES],
            n: tiles.len(),
        };
        list.tiles[..tiles.len()].copy_from_slice(tiles);
        Ok(list)
    }

    /// The tiles.
    pub fn as_slice(&self) -> &[Layout] {
        &self.tiles[..self.n]
    }
}

impl Tiler for [Layout] {
    fn tiles(&self) -> Result<TileList, LayoutError> {
        TileList::new(self)
    }
}
impl<const N: usize> Tiler for [Layout; N] {
    fn tiles(&self) -> Result<TileList, LayoutError> {
        TileList::new(self)
    }
}
impl Tiler for Vec<Layout> {
    fn tiles(&self) -> Result<TileList, LayoutError> {
        TileList::new(self)
    }
}
impl Tiler for TileList {
    fn tiles(&self) -> Result<TileList, LayoutError> {
        Ok(*self)
    }
}
impl<const N: usize> Tiler for [u64; N] {
    fn tiles(&self) -> Result<TileList, LayoutError> {
        let mut tiles = [Layout::EMPTY; N];
        for (t, &n) in tiles.iter_mut().zip(self) {
            *t = Layout::leaf(n, 1)
                .map_err(|e| LayoutError::from_core(format!("tile extent {n}"), e))?;
        }
        TileList::new(&tiles)
    }
}
impl<T: Tiler + ?Sized> Tiler for &T {
    fn tiles(&self) -> Result<TileList, LayoutError> {
        (**self).tiles()
    }
}

/// `divide(A_i, T)`: the core pads a tile larger than the mode along its last mode (one
/// partial tile, as C++ CuTe does), so the tile count is always `ceil(size / tile)`.
const fn padded_divide(ai: &Layout, t: &Layout) -> Result<Layout, CoreError> {
    algebra::divide(ai, t)
}

/// `(tiles, rests)`: mode `i` of A divided by tile `i`, halves gathered.
const fn padded_split(a: &Layout, tiles: &[Layout]) -> Result<(Layout, Layout), CoreError> {
    if tiles.len() > a.rank() {
        return Err(CoreError::TooManyTiles {
            tiles: tiles.len() as u64,
            rank: a.rank() as u64,
        });
    }
    let mut tile = Layout::EMPTY;
    let mut rest = Layout::EMPTY;
    let mut i = 0;
    while i < tiles.len() {
        let d = tri!(padded_divide(&tri!(a.mode(i)), &tiles[i]));
        tri!(tile.push_mode(&tri!(d.mode(0))));
        tri!(rest.push_mode(&tri!(d.mode(1))));
        i += 1;
    }
    Ok((tile, rest))
}

/// `((tiles...), (rests...), A's untouched modes...)` with ceiling tile counts.
pub(crate) const fn zipped_layout(a: &Layout, tiles: &[Layout]) -> Result<Layout, CoreError> {
    let (tile, rest) = tri!(padded_split(a, tiles));
    let mut r = Layout::EMPTY;
    tri!(r.push_group(&tile));
    tri!(r.push_group(&rest));
    tri!(r.push_modes(&tri!(a.modes(tiles.len(), a.rank()))));
    r.validated()
}

/// `((tiles...), rest0, rest1, ..., A's untouched modes...)` with ceiling tile counts.
pub(crate) const fn tiled_layout(a: &Layout, tiles: &[Layout]) -> Result<Layout, CoreError> {
    let (tile, rest) = tri!(padded_split(a, tiles));
    let mut r = Layout::EMPTY;
    tri!(r.push_group(&tile));
    tri!(r.push_modes(&rest));
    tri!(r.push_modes(&tri!(a.modes(tiles.len(), a.rank()))));
    r.validated()
}

/// Tile `coord` of `a`: the tile modes, A's untouched modes, and the origin offset.
fn local_tile_parts(
    a: &Layout,
    tiles: &[Layout],
    coord: &Coord,
) -> Result<(Layout, u64), LayoutError> {
    let ctx = || format!("local_tile({a}, {}, {coord})", tiler_notation(tiles));
    let (tile, rest) = padded_split(a, tiles).map_err(|e| LayoutError::from_core(ctx(), e))?;
    let origin = rest
        .index(coord)
        .map_err(|e| LayoutError::value(format!("{}: tile coordinate: {}", ctx(), e.message())))?;
    let mut r = tile;
    r.push_modes(
        &a.modes(tiles.len(), a.rank())
            .map_err(|e| LayoutError::from_core(ctx(), e))?,
    )
    .and_then(|_| r.validated())
    .map(|r| (r, origin))
    .map_err(|e| LayoutError::from_core(ctx(), e))
}

/// Thread `index`'s share of `a` when the threads are arranged by `threads`: the rest
/// modes, A's untouched modes, and the origin offset.
fn local_partition_parts(
    a: &Layout,
    threads: &Layout,
    index: u64,
) -> Result<(Layout, u64), LayoutError> {
    let ctx = || format!("local_partition({a}, {threads}, {index})");
    if index >= threads.size() {
        return Err(LayoutError::value(format!(
            "{}: thread index {index} is outside [0, {})",
            ctx(),
            threads.size()
        )));
    }
    // one tile per thread mode, as large as the mode; the thread's coordinate in each
    // mode is CuTe's idx2crd(index, shape, stride), as a key of that mode
    let mut tiles = [Layout::EMPTY; MAX_TILED_MODES];
    let mut coord = IntTuple::EMPTY;
    let rank = threads.rank();
    if rank > MAX_TILED_MODES {
        return Err(LayoutError::value(format!(
            "{}: thread layouts of rank above {MAX_TILED_MODES} are not supported",
            ctx()
        )));
    }
    for (m, tile) in tiles.iter_mut().enumerate().take(rank) {
        let mode = threads.get(m)?;
        *tile = Layout::leaf(mode.size(), 1).map_err(|e| LayoutError::from_core(ctx(), e))?;
        let (mut key, mut radix) = (0u64, 1u64);
        for k in 0..mode.leaf_count() {
            let (s, d) = (mode.leaf_extent(k), mode.leaf_stride(k));
            let c = index.checked_div(d).map_or(0, |q| q % s);
            key += c * radix;
            radix *= s;
        }
        coord
            .push_leaf(key)
            .map_err(|e| LayoutError::from_core(ctx(), e))?;
    }
    let tiles = &tiles[..rank];
    let (tile, rest) = padded_split(a, tiles).map_err(|e| LayoutError::from_core(ctx(), e))?;
    let origin = tile
        .index_tuple(&coord)
        .map_err(|e| LayoutError::from_core(ctx(), e))?;
    let mut r = rest;
    r.push_modes(
        &a.modes(rank, a.rank())
            .map_err(|e| LayoutError::from_core(ctx(), e))?,
    )
    .and_then(|_| r.validated())
    .map(|r| (r, origin))
    .map_err(|e| LayoutError::from_core(ctx(), e))
}

fn divided(a: &Layout, tiler: &impl Tiler, zipped: bool) -> Result<Layout, LayoutError> {
    let tiles = tiler.tiles()?;
    let t = tiles.as_slice();
    let r = if zipped {
        zipped_layout(a, t)
    } else {
        tiled_layout(a, t)
    };
    r.map_err(|e| {
        let op = if zipped {
            "zipped_divide"
        } else {
            "tiled_divide"
        };
        LayoutError::from_core(format!("{op}({a}, {})", tiler_notation(t)), e)
    })
}

/// Checks a derived layout against the data once more (a padded tiling can reach past
/// the tensor's cosize; the data must then hold the padded span).
fn view<T>(data: &[T], origin: u64, l: Layout) -> Result<Tensor<&[T], Layout>, LayoutError> {
    let start = (origin as usize).min(data.len());
    Tensor::new(&data[start..], l).map_err(|e| padded_hint(e, origin))
}

fn view_mut<T>(
    data: &mut [T],
    origin: u64,
    l: Layout,
) -> Result<Tensor<&mut [T], Layout>, LayoutError> {
    let start = (origin as usize).min(data.len());
    Tensor::new(&mut data[start..], l).map_err(|e| padded_hint(e, origin))
}

#[cold]
fn overhang(tile: &Layout, origin: u64, len: usize) -> LayoutError {
    padded_hint(
        LayoutError::value(format!(
            "tile {tile} has cosize {} but the data holds {} elements",
            tile.cosize(),
            (len as u64).saturating_sub(origin)
        )),
        origin,
    )
}

fn padded_hint(e: LayoutError, origin: u64) -> LayoutError {
    LayoutError::value(format!(
        "{} (from offset {origin}): a tile overhangs the data; for edge tiles, cut the tensor with Tensor::tiles and an IdentityTensor of its shape with the same tiler, and copy each tile's in-bounds elements with Tiles::transform_tile_if (docs/tensors.md, \"Tiles that overhang\"), or pad the data",
        e.message()
    ))
}

/// `((tile modes), (tile counts), untouched modes...)`: the tensor cut into tiles, one
/// tile per key of mode 1 (CuTe's `zipped_divide`; untouched modes come last). Tiles may
/// overhang the tensor (the tile count is a ceiling); the view is then checked against
/// the data, which must hold the padded span.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{zipped_divide, Tensor};
/// let data: Vec<u32> = (0..64).collect();
/// let t = Tensor::new(&data[..], "(8,8):(1,8)".parse::<Layout>().unwrap()).unwrap();
/// let z = zipped_divide(&t, [4, 2]).unwrap();
/// assert_eq!(z.layout().to_string(), "((4,2),(2,4)):((1,8),(4,16))");
/// ```
pub fn zipped_divide<E: Engine, L: TensorLayout>(
    t: &Tensor<E, L>,
    tiler: impl Tiler,
) -> Result<Tensor<&[E::Elem], Layout>, LayoutError> {
    let l = divided(&t.layout().runtime(), &tiler, true)?;
    view(t.data(), 0, l)
}

/// `((tile modes), count0, count1, ..., untouched modes...)` (CuTe's `tiled_divide`).
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{tiled_divide, Tensor};
/// let t = Tensor::new(vec![0u8; 64], "(8,8):(1,8)".parse::<Layout>().unwrap()).unwrap();
/// assert_eq!(tiled_divide(&t, [4, 2]).unwrap().layout().to_string(), "((4,2),2,4):((1,8),4,16)");
/// ```
pub fn tiled_divide<E: Engine, L: TensorLayout>(
    t: &Tensor<E, L>,
    tiler: impl Tiler,
) -> Result<Tensor<&[E::Elem], Layout>, LayoutError> {
    let l = divided(&t.layout().runtime(), &tiler, false)?;
    view(t.data(), 0, l)
}

/// Tile number `coord` (one coordinate per tiled mode, or one integer key over the tile
/// grid) of the tensor cut by `tiler`: CuTe's `local_tile`. Untouched modes are kept
/// after the tile's modes. A tile that overhangs the data is an error: take edge tiles
/// from data that holds the padded span, or mask with an [`IdentityTensor`].
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{local_tile, Tensor};
/// let data: Vec<u32> = (0..64).collect();
/// let m = Tensor::new(&data[..], "(8,8):(8,1)".parse::<Layout>().unwrap()).unwrap(); // row-major
/// let tile = local_tile(&m, [4, 4], (1, 0)).unwrap();          // rows 4..8, columns 0..4
/// assert_eq!(tile.layout().to_string(), "(4,4):(8,1)");
/// assert_eq!((tile[0], tile[1], tile[4]), (32, 40, 33));
/// ```
pub fn local_tile<E: Engine, L: TensorLayout, K: IntoIntTuple>(
    t: &Tensor<E, L>,
    tiler: impl Tiler,
    coord: K,
) -> Result<Tensor<&[E::Elem], Layout>, LayoutError> {
    let tiles = tiler.tiles()?;
    let (l, origin) =
        local_tile_parts(&t.layout().runtime(), tiles.as_slice(), &Coord::new(coord)?)?;
    view(t.data(), origin, l)
}

/// [`local_tile`], writable.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{fill, local_tile_mut, Tensor};
/// let mut m = Tensor::new(vec![0u8; 16], "(4,4):(4,1)".parse::<Layout>().unwrap()).unwrap();
/// fill(&mut local_tile_mut(&mut m, [2, 4], (1, 0)).unwrap(), 7);   // rows 2..4
/// assert_eq!(m.data()[8..], [7; 8]);
/// ```
pub fn local_tile_mut<E: EngineMut, L: TensorLayout, K: IntoIntTuple>(
    t: &mut Tensor<E, L>,
    tiler: impl Tiler,
    coord: K,
) -> Result<Tensor<&mut [E::Elem], Layout>, LayoutError> {
    let tiles = tiler.tiles()?;
    let (l, origin) =
        local_tile_parts(&t.layout().runtime(), tiles.as_slice(), &Coord::new(coord)?)?;
    view_mut(t.data_mut(), origin, l)
}

/// Thread `index`'s elements when threads arranged by `threads` deal the tensor out
/// tile by tile (CuTe's `local_partition`): the tensor is cut into tiles of the thread
/// layout's shape, and the thread gets the element at its position in every tile.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{local_partition, Tensor};
/// let data: Vec<u32> = (0..32).collect();
/// let m = Tensor::new(&data[..], "(4,8):(1,4)".parse::<Layout>().unwrap()).unwrap();
/// let threads: Layout = "(2,4):(4,1)".parse().unwrap();      // 8 threads, row-major
/// let mine = local_partition(&m, &threads, 5).unwrap();       // thread 5 sits at (1,1)
/// assert_eq!(mine.layout().to_string(), "(2,2):(2,16)");
/// assert_eq!((mine[0], mine[1], mine[2]), (5, 7, 21));
/// ```
pub fn local_partition<'a, E: Engine, L: TensorLayout>(
    t: &'a Tensor<E, L>,
    threads: &Layout,
    index: u64,
) -> Result<Tensor<&'a [E::Elem], Layout>, LayoutError> {
    let (l, origin) = local_partition_parts(&t.layout().runtime(), threads, index)?;
    view(t.data(), origin, l).map_err(|e| partition_context(e, threads, index))
}

/// Names the thread whose part of a tensor overhangs its data.
#[cold]
fn partition_context(e: LayoutError, threads: &Layout, index: u64) -> LayoutError {
    LayoutError::value(format!(
        "local_partition: the part of thread {index} of the threads {threads}: {}",
        e.message()
    ))
}

/// [`local_partition`], writable.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{fill, local_partition_mut, Tensor};
/// let mut v = Tensor::new(vec![0u8; 8], "8:1".parse::<Layout>().unwrap()).unwrap();
/// fill(&mut local_partition_mut(&mut v, &"4:1".parse().unwrap(), 1).unwrap(), 1);
/// assert_eq!(v.data(), &[0, 1, 0, 0, 0, 1, 0, 0]);                 // thread 1 of 4
/// ```
pub fn local_partition_mut<'a, E: EngineMut, L: TensorLayout>(
    t: &'a mut Tensor<E, L>,
    threads: &Layout,
    index: u64,
) -> Result<Tensor<&'a mut [E::Elem], Layout>, LayoutError> {
    let (l, origin) = local_partition_parts(&t.layout().runtime(), threads, index)?;
    view_mut(t.data_mut(), origin, l).map_err(|e| partition_context(e, threads, index))
}

/// An identity (coordinate) tensor: element `c` of it is the coordinate `c` itself, one
/// integer per top-level mode of its shape (a key of that mode). Tiled and partitioned
/// like a data tensor of the same shape, its elements say where each tile element came
/// from, so [`IdentityTensor::in_bounds`] masks the overhang of edge tiles (CuTe's
/// `make_identity_tensor` with `elem_less`).
///
/// It is stored as one layout per mode (mode `m`'s coordinate as a function of the key),
/// each divided with the same algebra as the data: CuTe's `E<m>` basis strides taken one
/// basis at a time.
///
/// ```
/// use strideweave::Shape;
/// use strideweave::tensor::IdentityTensor;
/// let id = IdentityTensor::new(&Shape::new((5, 7)).unwrap()).unwrap();
/// let edge = id.local_tile([4, 4], (1, 1)).unwrap();     // rows 4..8, columns 4..8
/// assert_eq!(edge.coord(0)[..2], [4, 4]);
/// assert_eq!(edge.coord(5)[..2], [5, 5]);
/// assert!(edge.in_bounds(0) && !edge.in_bounds(5));     // row 5 is past the 5 rows
/// assert_eq!((0..16).filter(|&k| edge.in_bounds(k)).count(), 3);  // 1 row x 3 columns
/// ```
#[derive(Clone, Copy, Debug)]
pub struct IdentityTensor {
    extents: [u64; MAX_TILED_MODES],
    modes: [Layout; MAX_TILED_MODES],
    origin: [u64; MAX_TILED_MODES],
    rank: usize,
}

impl IdentityTensor {
    /// The coordinates of `shape` (at most [`MAX_TILED_MODES`] top-level modes).
    pub fn new(shape: &Shape) -> Result<IdentityTensor, LayoutError> {
        let t = shape.as_tuple();
        let rank = t.rank();
        if rank > MAX_TILED_MODES {
            return Err(LayoutError::value(format!(
                "identity tensor of shape {shape}: rank {rank} is above the {MAX_TILED_MODES} supported"
            )));
        }
        let mut id = IdentityTensor {
            extents: [1; MAX_TILED_MODES],
            modes: [Layout::EMPTY; MAX_TILED_MODES],
            origin: [0; MAX_TILED_MODES],
            rank,
        };
        for m in 0..rank {
            let (_, _, ls, le) = t.item_range(m).unwrap_or((0, 0, 0, 0));
            // mode m: compact (first leaf fastest) strides on its own leaves, 0 elsewhere
            let mut stride = IntTuple::EMPTY;
            let mut acc = 1u64;
            let mut leaf = 0;
            for n in t.recipe() {
                let r = match n {
                    Node::Leaf => {
                        let d = if (ls..le).contains(&leaf) { acc } else { 0 };
                        if (ls..le).contains(&leaf) {
                            acc = acc.saturating_mul(t.leaf(leaf));
                        }
                        leaf += 1;
                        stride.push_leaf(d)
                    }
                    n => stride.push_node(*n),
                };
                r.map_err(|e| LayoutError::from_core(format!("identity tensor of {shape}"), e))?;
            }
            id.modes[m] = Layout::new(*shape, crate::Stride::from_tuple(stride)?)?;
            id.extents[m] = acc;
        }
        Ok(id)
    }

    /// Number of coordinates (the shape's size).
    pub fn size(&self) -> u64 {
        self.modes[0].size()
    }

    /// Number of coordinate components (the shape's rank).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The layout of mode `m`'s coordinate (what `E<m>` strides give in CuTe).
    pub fn mode_layout(&self, m: usize) -> Option<&Layout> {
        self.modes[..self.rank].get(m)
    }

    /// The coordinate at integer key `key` (first mode fastest), one component per mode
    /// of the original shape; components past `rank` are 0. Keys past the size give
    /// unspecified coordinates.
    #[inline]
    pub fn coord(&self, key: u64) -> [u64; MAX_TILED_MODES] {
        let mut c = [0u64; MAX_TILED_MODES];
        for (m, c) in c.iter_mut().enumerate().take(self.rank) {
            *c = self.origin[m] + self.modes[m].index_of(key).unwrap_or(0);
        }
        c
    }

    /// Whether the coordinate at `key` lies inside the original shape (CuTe's
    /// `elem_less(coord, shape)`): the predicate of an edge tile.
    #[inline]
    pub fn in_bounds(&self, key: u64) -> bool {
        key < self.size()
            && (0..self.rank).all(|m| {
                self.origin[m] + self.modes[m].index_of(key).unwrap_or(0) < self.extents[m]
            })
    }

    /// Whether every coordinate lies inside the original shape (an interior tile).
    pub fn all_in_bounds(&self) -> bool {
        (0..self.rank).all(|m| self.origin[m] + self.modes[m].cosize() <= self.extents[m])
    }

    fn map(
        &self,
        f: impl Fn(&Layout) -> Result<(Layout, u64), LayoutError>,
    ) -> Result<IdentityTensor, LayoutError> {
        let mut r = *self;
        for m in 0..self.rank {
            let (l, o) = f(&self.modes[m])?;
            r.modes[m] = l;
            r.origin[m] += o;
        }
        Ok(r)
    }

    /// [`zipped_divide`] of the coordinates.
    pub fn zipped_divide(&self, tiler: impl Tiler) -> Result<IdentityTensor, LayoutError> {
        self.map(|l| Ok((divided(l, &tiler, true)?, 0)))
    }

    /// [`tiled_divide`] of the coordinates.
    pub fn tiled_divide(&self, tiler: impl Tiler) -> Result<IdentityTensor, LayoutError> {
        self.map(|l| Ok((divided(l, &tiler, false)?, 0)))
    }

    /// [`local_tile`] of the coordinates.
    pub fn local_tile<K: IntoIntTuple>(
        &self,
        tiler: impl Tiler,
        coord: K,
    ) -> Result<IdentityTensor, LayoutError> {
        let tiles = tiler.tiles()?;
        let c = Coord::new(coord)?;
        self.map(|l| local_tile_parts(l, tiles.as_slice(), &c))
    }

    /// [`local_partition`] of the coordinates.
    pub fn local_partition(
        &self,
        threads: &Layout,
        index: u64,
    ) -> Result<IdentityTensor, LayoutError> {
        self.map(|l| local_partition_parts(l, threads, index))
    }
}

/// `(tile, grid)`: the tile layout (mode 0 of the zipped division) and the grid of tile
/// origins (its rest modes, then the untouched modes), computed once.
pub(super) fn tile_and_grid(
    a: &Layout,
    tiler: &impl Tiler,
) -> Result<(Layout, Layout), LayoutError> {
    let z = divided(a, tiler, true)?;
    let ctx = |e| LayoutError::from_core(format!("tiles of {a}"), e);
    let tile = z.mode(0).map_err(ctx)?;
    let mut grid = z.mode(1).map_err(ctx)?;
    grid.push_modes(&z.modes(2, z.rank()).map_err(ctx)?)
        .and_then(|_| grid.validated())
        .map(|g| (tile, g))
        .map_err(ctx)
}

/// A tensor cut into tiles once (the zipped division computed up front), handing out
/// tile `k` as a view for the cost of one offset: the loop of a tiled kernel. Tiles are
/// numbered by the grid's integer keys (first mode fastest).
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::Tensor;
/// let data: Vec<u32> = (0..64).collect();
/// let m = Tensor::new(&data[..], "(8,8):(8,1)".parse::<Layout>().unwrap()).unwrap();
/// let tiles = m.tiles([4, 4]).unwrap();
/// assert_eq!((tiles.count(), tiles.tile_layout().to_string()), (4, "(4,4):(8,1)".to_string()));
/// let t = tiles.tile(1).unwrap();              // grid key 1 = tile (1,0): rows 4..8
/// assert_eq!(t[0], 32);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Tiles<'a, T> {
    data: &'a [T],
    tile: Layout,
    grid: Layout,
    cosize: u64,
    /// The tiled tensor's layout (its shape checks the coordinates of masked copies).
    whole: Layout,
}

/// [`Tiles`] handing out writable tiles.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{fill, Tensor};
/// let mut data = vec![0u8; 16];
/// let mut m = Tensor::new(&mut data[..], "(4,4):(1,4)".parse::<Layout>().unwrap()).unwrap();
/// let mut tiles = m.tiles_mut([2, 2]).unwrap();
/// fill(&mut tiles.tile_mut(3).unwrap(), 1);           // the bottom-right 2x2
/// assert_eq!(data[10..12], [1, 1]);
/// assert_eq!(data[14..16], [1, 1]);
/// ```
#[derive(Debug)]
pub struct TilesMut<'a, T> {
    data: &'a mut [T],
    tile: Layout,
    grid: Layout,
    cosize: u64,
    /// The tiled tensor's layout (its shape checks the coordinates of masked copies).
    whole: Layout,
}

fn tile_origin(grid: &Layout, k: u64) -> Result<u64, LayoutError> {
    grid.index_of(k)
        .map_err(|e| LayoutError::from_core(format!("tile {k} of the grid {grid}"), e))
}

impl<'a, T> Tiles<'a, T> {
    /// Number of tiles.
    pub fn count(&self) -> u64 {
        self.grid.size()
    }

    /// The layout every tile shares.
    pub fn tile_layout(&self) -> &Layout {
        &self.tile
    }

    /// Where tile `k` starts: the grid layout (rest modes, then untouched modes).
    pub fn grid(&self) -> &Layout {
        &self.grid
    }

    /// Tile `k` (a grid key). A tile that reaches past the data (an edge tile of a tiler
    /// that does not divide the tensor) is an error; copy such tiles element by element
    /// with an [`IdentityTensor`] mask.
    ///
    /// The tile shares this `Tiles`' layout (no copy): its layout type is `&Layout`.
    #[inline]
    pub fn tile(&self, k: u64) -> Result<Tensor<&'a [T], &Layout>, LayoutError> {
        let origin = tile_origin(&self.grid, k)?;
        match self.data.get(origin as usize..) {
            Some(data) if self.cosize <= data.len() as u64 => {
                Ok(Tensor::from_parts(data, &self.tile))
            }
            _ => Err(overhang(&self.tile, origin, self.data.len())),
        }
    }
}

impl<T> TilesMut<'_, T> {
    /// Number of tiles.
    pub fn count(&self) -> u64 {
        self.grid.size()
    }

    /// The layout every tile shares.
    pub fn tile_layout(&self) -> &Layout {
        &self.tile
    }

    /// Where tile `k` starts.
    pub fn grid(&self) -> &Layout {
        &self.grid
    }

    /// Tile `k`, writable (see [`Tiles::tile`]).
    #[inline]
    pub fn tile_mut(&mut self, k: u64) -> Result<Tensor<&mut [T], &Layout>, LayoutError> {
        let origin = tile_origin(&self.grid, k)?;
        let len = self.data.len();
        match self.data.get_mut(origin as usize..) {
            Some(data) if self.cosize <= data.len() as u64 => {
                Ok(Tensor::from_parts(data, &self.tile))
            }
            _ => Err(overhang(&self.tile, origin, len)),
        }
    }
}

impl<E: Engine, L: TensorLayout> Tensor<E, L> {
    /// The tensor cut into tiles by `tiler` (tile counts are ceilings), for a loop over
    /// tiles: see [`Tiles`].
    pub fn tiles(&self, tiler: impl Tiler) -> Result<Tiles<'_, E::Elem>, LayoutError> {
        let whole = self.layout().runtime();
        let (tile, grid) = tile_and_grid(&whole, &tiler)?;
        Ok(Tiles {
            data: self.data(),
            cosize: tile.cosize(),
            tile,
            grid,
            whole,
        })
    }
}

impl<E: EngineMut, L: TensorLayout> Tensor<E, L> {
    /// [`Tensor::tiles`], writable.
    pub fn tiles_mut(&mut self, tiler: impl Tiler) -> Result<TilesMut<'_, E::Elem>, LayoutError> {
        let whole = self.layout().runtime();
        let (tile, grid) = tile_and_grid(&whole, &tiler)?;
        Ok(TilesMut {
            data: self.data_mut(),
            cosize: tile.cosize(),
            tile,
            grid,
            whole,
        })
    }
}

/// An [`IdentityTensor`] cut into tiles once, like [`Tiles`]: tile `k`'s coordinates,
/// and a cheap test of whether tile `k` lies wholly inside the shape.
///
/// ```
/// use strideweave::Shape;
/// use strideweave::tensor::IdentityTensor;
/// let id = IdentityTensor::new(&Shape::new((5, 7)).unwrap()).unwrap();
/// let tiles = id.tiles([4, 4]).unwrap();
/// assert_eq!(tiles.count(), 4);
/// assert!(tiles.inside(0) && !tiles.inside(1) && !tiles.inside(3));
/// assert_eq!((0..16).filter(|&k| tiles.tile(3).unwrap().in_bounds(k)).count(), 3);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct IdentityTiles {
    tile: IdentityTensor,
    grids: [Layout; MAX_TILED_MODES],
    cosizes: [u64; MAX_TILED_MODES],
    leaves: [Leaves; MAX_TILED_MODES],
}

impl IdentityTiles {
    /// Number of tiles.
    pub fn count(&self) -> u64 {
        self.grids[0].size()
    }

    /// The coordinates of tile `k`.
    pub fn tile(&self, k: u64) -> Result<IdentityTensor, LayoutError> {
        let mut t = self.tile;
        for m in 0..t.rank {
            t.origin[m] += tile_origin(&self.grids[m], k)?;
        }
        Ok(t)
    }

    /// Whether tile `k` lies wholly inside the shape (an interior tile, copied without a
    /// mask); `false` for an edge tile or a key past the grid.
    #[inline]
    pub fn inside(&self, k: u64) -> bool {
        let t = &self.tile;
        k < self.count()
            && (0..t.rank).all(|m| {
                let o = t.origin[m] + self.grids[m].index_of(k).unwrap_or(u64::MAX / 2);
                o.saturating_add(self.cosizes[m]) <= t.extents[m]
            })
    }
}

impl IdentityTensor {
    /// The coordinates cut into tiles once (see [`IdentityTiles`]).
    pub fn tiles(&self, tiler: impl Tiler) -> Result<IdentityTiles, LayoutError> {
        let mut tile = *self;
        let mut grids = [Layout::EMPTY; MAX_TILED_MODES];
        let mut cosizes = [1; MAX_TILED_MODES];
        let mut leaves = [Leaves::EMPTY; MAX_TILED_MODES];
        for m in 0..self.rank {
            let (t, g) = tile_and_grid(&self.modes[m], &tiler)?;
            cosizes[m] = t.cosize();
            leaves[m] = Leaves::of(&t);
            tile.modes[m] = t;
            grids[m] = g;
        }
        Ok(IdentityTiles {
            tile,
            grids,
            cosizes,
            leaves,
        })
    }
}

/// Walks the keys of tile `k` of `coords`, calling `visit(key, offset)` with the tile
/// layout's offset (relative to the tile origin) for the keys whose coordinates lie
/// inside the shape. `coords` must be the coordinates of `whole`'s shape: coordinates
/// of a larger shape would pass elements past the tensor's edge that the data still
/// holds (the next row's, in a matrix), so a different shape is an error.
fn for_each_in_bounds(
    coords: &IdentityTiles,
    whole: &Layout,
    k: u64,
    tile: &Layout,
    mut visit: impl FnMut(u64, u64) -> Result<(), LayoutError>,
) -> Result<(), LayoutError> {
    let id = &coords.tile;
    let extents = &id.extents[..id.rank];
    let same = whole.rank() == id.rank
        && extents
            .iter()
            .enumerate()
            .all(|(m, &e)| whole.mode(m).is_ok_and(|l| l.size() == e));
    if !same {
        let list: Vec<String> = extents.iter().map(u64::to_string).collect();
        return Err(LayoutError::value(format!(
            "coordinates of shape ({}) do not match the tensor's shape {}: build the IdentityTensor from the tensor's own shape",
            list.join(","),
            whole.shape()
        )));
    }
    if id.size() != tile.size() {
        return Err(LayoutError::value(format!(
            "coordinate tile has {} elements but the data tile {tile} has {}",
            id.size(),
            tile.size()
        )));
    }
    // coordinate m is in bounds while its offset in the tile stays below `limit[m]`
    let mut limit = [0u64; MAX_TILED_MODES];
    for (m, l) in limit.iter_mut().enumerate().take(id.rank) {
        let origin = id.origin[m] + tile_origin(&coords.grids[m], k)?;
        *l = id.extents[m].saturating_sub(origin);
    }
    let mut walks: [Walk<'_>; MAX_TILED_MODES] =
        std::array::from_fn(|m| Walk::new(&coords.leaves[m]));
    let walks = &mut walks[..id.rank];
    let tl = Leaves::of(tile);
    let mut tw = Walk::new(&tl);
    for key in 0..tile.size() {
        if walks.iter().zip(&limit).all(|(w, &l)| w.offset < l) {
            visit(key, tw.offset)?;
        }
        walks.iter_mut().for_each(Walk::advance);
        tw.advance();
    }
    Ok(())
}

fn outside_data(origin: u64, off: u64, len: usize) -> LayoutError {
    LayoutError::value(format!(
        "element at offset {} is past the {len} elements of the data: the coordinates do not describe this tensor's tiles",
        origin + off
    ))
}

impl<T> Tiles<'_, T> {
    /// `dst[key] = f(tile k[key])` for the keys of tile `k` whose coordinates (tile `k`
    /// of `coords`, an [`IdentityTensor`] of the tensor's shape tiled alike) lie inside
    /// the shape: the masked read of an edge tile (CuTe's `copy_if` with an
    /// identity-tensor predicate). Other elements of `dst` are left as they are.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// use strideweave::tensor::{IdentityTensor, Tensor};
    /// let data: Vec<u32> = (0..35).collect();                     // 5x7, column-major
    /// let a = Tensor::new(&data[..], "(5,7):(1,5)".parse::<Layout>().unwrap()).unwrap();
    /// let tiles = a.tiles([4, 4]).unwrap();
    /// let coords = IdentityTensor::new(&Shape::new((5, 7)).unwrap()).unwrap().tiles([4, 4]).unwrap();
    /// let mut buf = [0u32; 16];
    /// let mut tile = Tensor::new(&mut buf[..], "(4,4):(1,4)".parse::<Layout>().unwrap()).unwrap();
    /// tiles.transform_tile_if(3, &coords, &mut tile, |x| x + 100).unwrap();  // rows 4.., cols 4..
    /// assert_eq!(&buf[..5], &[124, 0, 0, 0, 129]);
    /// ```
    pub fn transform_tile_if<D, ED: EngineMut<Elem = D>, LD: TensorLayout>(
        &self,
        k: u64,
        coords: &IdentityTiles,
        dst: &mut Tensor<ED, LD>,
        mut f: impl FnMut(&T) -> D,
    ) -> Result<(), LayoutError> {
        let origin = tile_origin(&self.grid, k)?;
        if dst.size() != self.tile.size() {
            return Err(LayoutError::value(format!(
                "destination {} has {} elements but the tile {} has {}",
                dst.layout().runtime(),
                dst.size(),
                self.tile,
                self.tile.size()
            )));
        }
        let dl = *dst.layout();
        for_each_in_bounds(coords, &self.whole, k, &self.tile, |key, off| {
            let x = self
                .data
                .get((origin + off) as usize)
                .ok_or_else(|| outside_data(origin, off, self.data.len()))?;
            let o = dl.offset(key) as usize;
            if let Some(y) = dst.data_mut().get_mut(o) {
                *y = f(x);
            }
            Ok(())
        })
    }
}

impl<T> TilesMut<'_, T> {
    /// `tile k[key] = f(src[key])` for the keys of tile `k` whose coordinates lie inside
    /// the shape: the masked write of an edge tile (see [`Tiles::transform_tile_if`]).
    pub fn transform_tile_if<S: Copy, ES: Engine<Elem = S>, LS: TensorLayout>(
        &mut self,
        k: u64,
        coords: &IdentityTiles,
        src: &Tensor<ES, LS>,
        mut f: impl FnMut(S) -> T,
    ) -> Result<(), LayoutError> {
        if src.size() != self.tile.size() {
            return Err(LayoutError::value(format!(
                "source {} has {} elements but the tile {} has {}",
                src.layout().runtime(),
                src.size(),
                self.tile,
                self.tile.size()
            )));
        }
        let origin = tile_origin(&self.grid, k)?;
        let len = self.data.len();
        let data = &mut *self.data;
        for_each_in_bounds(coords, &self.whole, k, &self.tile, |key, off| {
            let y = data
                .get_mut((origin + off) as usize)
                .ok_or_else(|| outside_data(origin, off, len))?;
            if let Some(x) = src.get_key(key) {
                *y = f(*x);
            }
            Ok(())
        })
    }
}
