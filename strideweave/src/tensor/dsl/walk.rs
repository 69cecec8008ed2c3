//! [`TileWalk`]: a loop over the box tiles of a shape that follows several layouts at
//! once, advancing each tile's origins by additions and deciding interior vs edge per
//! tile row (CuTe's `local_tile` in a loop, with the identity-tensor predicate of a box
//! tile reduced to one extent per mode).

use super::tile::{tile_and_grid, TileList, MAX_TILED_MODES};
use crate::error::LayoutError;
use crate::{algebra, Layout, Shape};

/// Modes a block of [`TileWalk::runs`] spans: the walk's three fastest.
pub const BLOCK_MODES: usize = 3;

/// Most layouts a [`TileWalk`] follows.
///
/// ```
/// use strideweave::{Layout, Shape};
/// use strideweave::tensor::{TileWalk, MAX_WALKED};
/// let shape = Shape::new((4, 4)).unwrap();
/// let l = Layout::col_major(shape).unwrap();
/// assert!(TileWalk::new(&shape, &[2, 2], &vec![&l; MAX_WALKED]).is_ok());
/// assert!(TileWalk::new(&shape, &[2, 2], &vec![&l; MAX_WALKED + 1]).is_err());
/// ```
pub const MAX_WALKED: usize = 4;

const M: usize = MAX_TILED_MODES;

/// How one layout's tile origin moves along one mode of the tile grid.
#[derive(Clone, Debug)]
enum Step {
    /// One stride per tile (the grid mode coalesces to one leaf).
    Linear(u64),
    /// Any other grid mode: its layout, evaluated when the mode's tile index changes.
    Layout(Box<Layout>),
}

/// The box tiles of a shape, visited in a chosen mode order, with the origin of each tile
/// in up to [`MAX_WALKED`] layouts (each cut into the same tiles by the layout
/// algebra's `zipped_divide`). Tile counts are ceilings: the last tile of a mode whose
/// extent the tile does not divide is an **edge tile**, clipped to the shape
/// ([`TileAt::extents`]); a tile is [`TileAt::is_full`] when no mode is clipped.
///
/// Each step of the walk costs an addition per followed layout and a compare (the
/// interior test of the other modes is made once per tile row), so a kernel's loop is
/// the walk plus one [`ConvertPlan`](super::ConvertPlan) call per tile.
///
/// ```
/// use strideweave::{Layout, Shape};
/// use strideweave::tensor::TileWalk;
/// let shape = Shape::new((5, 7)).unwrap();
/// let a = Layout::row_major(shape).unwrap();             // a(i, j) = 7i + j
/// let walk = TileWalk::new(&shape, &[4, 4], &[&a]).unwrap();
/// assert_eq!(walk.count(), 4);
/// assert_eq!(walk.tile_layout(0).to_string(), "(4,4):(7,1)");
/// let tiles: Vec<_> = walk.iter().map(|t| (t.coord().to_vec(), t.origin(0), t.extents().to_vec(), t.is_full())).collect();
/// assert_eq!(tiles[0], (vec![0, 0], 0, vec![4, 4], true));
/// assert_eq!(tiles[1], (vec![1, 0], 28, vec![1, 4], false));   // rows 4..5
/// assert_eq!(tiles[3], (vec![1, 1], 32, vec![1, 3], false));   // rows 4..5, columns 4..7
/// ```
#[derive(Clone, Debug)]
pub struct TileWalk {
    rank: usize,
    extent: [u64; M],
    tile: [u64; M],
    count: [u64; M],
    /// Tiles of each mode that lie wholly inside the shape.
    full: [u64; M],
    /// Modes, fastest first.
    order: [usize; M],
    k: usize,
    tiles: [Layout; MAX_WALKED],
    steps: [[Step; M]; MAX_WALKED],
}

impl TileWalk {
    /// The tiles of `shape` (one box extent per top-level mode in `tiler`, missing modes
    /// tiled by 1), followed in `layouts` (each with the shape's rank and, per mode, the
    /// same tile count: a layout may be padded past the shape, as a tiled placement is).
    /// Visited with mode 0 fastest; see [`TileWalk::order`].
    pub fn new(shape: &Shape, tiler: &[u64], layouts: &[&Layout]) -> Result<TileWalk, LayoutError> {
        let t = shape.as_tuple();
        let rank = t.rank();
        let what = |rule: String| {
            LayoutError::value(format!(
                "tile walk of shape {shape} by {tiler:?} over {} layouts: {rule}",
                layouts.len()
            ))
        };
        if rank == 0 || rank > M {
            return Err(what(format!(
                "the shape has rank {rank}, and a walk takes 1 to {M} modes"
            )));
        }
        if tiler.len() > rank {
            return Err(what(format!(
                "{} tiles given for a shape of rank {rank} (a tile per mode at most)",
                tiler.len()
            )));
        }
        if layouts.len() > MAX_WALKED {
            return Err(what(format!("a walk follows at most {MAX_WALKED} layouts")));
        }
        let mut w = TileWalk {
            rank,
            extent: [1; M],
            tile: [1; M],
            count: [1; M],
            full: [1; M],
            order: std::array::from_fn(|m| m),
            k: layouts.len(),
            tiles: [Layout::EMPTY; MAX_WALKED],
            steps: std::array::from_fn(|_| std::array::from_fn(|_| Step::Linear(0))),
        };
        let mut tile_layouts = [Layout::EMPTY; M];
        for (m, tl) in tile_layouts.iter_mut().enumerate().take(rank) {
            let e = shape_mode_size(shape, m)?;
            let b = tiler.get(m).copied().unwrap_or(1);
            if b == 0 {
                return Err(LayoutError::value(format!(
                    "tile walk of shape {shape}: tile extent 0 for mode {m}"
                )));
            }
            w.extent[m] = e;
            w.tile[m] = b;
            w.count[m] = e.div_ceil(b);
            w.full[m] = e / b;
            *tl = Layout::leaf(b, 1)
                .map_err(|e| LayoutError::from_core(format!("tile extent {b}"), e))?;
        }
        let list = TileList::new(&tile_layouts[..rank])?;
        for (j, l) in layouts.iter().enumerate() {
            if l.rank() != rank {
                return Err(LayoutError::value(format!(
                    "tile walk of shape {shape}: layout {l} has rank {} where the shape has {rank}",
                    l.rank()
                )));
            }
            let (tile, grid) = tile_and_grid(l, &list)?;
            for m in 0..rank {
                let g = grid.get(m)?;
                if g.size() != w.count[m] {
                    return Err(LayoutError::value(format!(
                        "tile walk of shape {shape} by {tiler:?}: layout {l} has {} tiles along mode {m} where the shape has {}",
                        g.size(),
                        w.count[m]
                    )));
                }
                let c = algebra::coalesce(&g);
                w.steps[j][m] = match c.leaf_count() {
                    0 => Step::Linear(0),
                    1 => Step::Linear(c.leaf_stride(0)),
                    _ => Step::Layout(Box::new(g)),
                };
            }
            w.tiles[j] = tile;
        }
        Ok(w)
    }

    /// The same walk visiting modes in `order` (a permutation of the modes, fastest
    /// first), e.g. `[3, 2, 1, 0]` for the last mode fastest. An error names an order
    /// that is not a permutation.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// use strideweave::tensor::TileWalk;
    /// let shape = Shape::new((4, 4)).unwrap();
    /// let a = Layout::row_major(shape).unwrap();
    /// let walk = TileWalk::new(&shape, &[2, 2], &[&a]).unwrap().order(&[1, 0]).unwrap();
    /// let origins: Vec<u64> = walk.iter().map(|t| t.origin(0)).collect();
    /// assert_eq!(origins, [0, 2, 8, 10]);                   // along a row first
    /// assert!(TileWalk::new(&shape, &[2, 2], &[&a]).unwrap().order(&[1, 1]).is_err());
    /// ```
    pub fn order(mut self, order: &[usize]) -> Result<TileWalk, LayoutError> {
        let mut seen = [false; M];
        let ok = order.len() == self.rank
            && order
                .iter()
                .all(|&m| m < self.rank && !std::mem::replace(&mut seen[m], true));
        if !ok {
            return Err(LayoutError::value(format!(
                "tile walk order {order:?} is not a permutation of the {} modes",
                self.rank
            )));
        }
        self.order[..self.rank].copy_from_slice(order);
        Ok(self)
    }

    /// Number of tiles.
    pub fn count(&self) -> u64 {
        self.count[..self.rank].iter().product()
    }

    /// Tiles along each mode (ceilings).
    pub fn counts(&self) -> &[u64] {
        &self.count[..self.rank]
    }

    /// The tile layout of followed layout `j` (mode 0 of its `zipped_divide`): what a
    /// [`ConvertPlan`](super::ConvertPlan) for the tiles is made from. Panics when `j`
    /// is not a followed layout.
    pub fn tile_layout(&self, j: usize) -> &Layout {
        &self.tiles[..self.k][j]
    }

    /// The tiles, one at a time, in the walk's order.
    pub fn iter(&self) -> TileIter<'_> {
        TileIter {
            walk: self,
            at: self.first(),
            edge: self.first_edge(),
            left: self.count(),
        }
    }

    /// The tiles in **blocks** that share their extents over the three fastest modes of
    /// the walk's order ([`BLOCK_MODES`]): per row of the other modes, the interior
    /// tiles at once, then the edge tiles of each mode and their corners (at most eight
    /// blocks a row). A plan moves a whole block in one call
    /// ([`ConvertPlan::convert_tiles`](super::ConvertPlan::convert_tiles)). When a
    /// followed layout's tile origins are not evenly spaced along those modes, the
    /// blocks are single tiles.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// use strideweave::tensor::TileWalk;
    /// let shape = Shape::new((10, 3)).unwrap();
    /// let a = Layout::col_major(shape).unwrap();
    /// let walk = TileWalk::new(&shape, &[4, 2], &[&a]).unwrap();
    /// let blocks: Vec<_> = walk.runs().map(|t| (t.coord().to_vec(), t.counts(), t.extents().to_vec())).collect();
    /// assert_eq!(blocks, [
    ///     (vec![0, 0], [2, 1, 1], vec![4, 2]),     // row tiles 0 and 1 of column tile 0
    ///     (vec![2, 0], [1, 1, 1], vec![2, 2]),     // the edge tile: rows 8..10
    ///     (vec![0, 1], [2, 1, 1], vec![4, 1]),     // column tile 1 holds one column
    ///     (vec![2, 1], [1, 1, 1], vec![2, 1]),
    /// ]);
    /// assert_eq!(walk.runs().next().unwrap().steps(0), [4, 20, 0]);
    /// ```
    pub fn runs(&self) -> TileRuns<'_> {
        let nb = self.rank.min(BLOCK_MODES);
        let ms: [usize; BLOCK_MODES] = std::array::from_fn(|d| self.order[d.min(nb - 1)]);
        let linear = |m: usize| (0..self.k).all(|j| matches!(self.steps[j][m], Step::Linear(_)));
        let blocks = ms[..nb].iter().all(|&m| linear(m));
        let mut segs = [[(0u64, 1u64); 2]; BLOCK_MODES];
        let mut n = [1usize; BLOCK_MODES];
        for d in 0..nb {
            if !blocks {
                break;
            }
            let (c, f) = (self.count[ms[d]], self.full[ms[d]]);
            if f == 0 || f == c {
                segs[d][0] = (0, c);
            } else {
                segs[d] = [(0, f), (f, 1)];
                n[d] = 2;
            }
        }
        let mut at = self.first();
        for j in 0..self.k {
            for (d, &m) in ms.iter().enumerate().take(nb) {
                if let Step::Linear(s) = self.steps[j][m] {
                    at.step[d][j] = s;
                }
            }
        }
        TileRuns {
            it: TileIter {
                walk: self,
                at,
                edge: self.first_edge(),
                left: self.count(),
            },
            blocks,
            nb,
            segs,
            n,
            k: [0; BLOCK_MODES],
        }
    }

    fn first(&self) -> TileAt {
        let mut at = TileAt {
            coord: [0; M],
            origin: [0; MAX_WALKED],
            step: [[0; MAX_WALKED]; BLOCK_MODES],
            extents: [1; M],
            rank: self.rank,
            count: [1; BLOCK_MODES],
            full: true,
        };
        for m in 0..self.rank {
            at.extents[m] = self.tile[m].min(self.extent[m]);
        }
        at.full = self.first_edge() == 0;
        at
    }

    fn first_edge(&self) -> usize {
        (0..self.rank).filter(|&m| self.full[m] == 0).count()
    }

    fn offset(&self, j: usize, m: usize, i: u64) -> u64 {
        match &self.steps[j][m] {
            Step::Linear(s) => i * s,
            Step::Layout(l) => l.index_of(i).unwrap_or(0),
        }
    }
}

fn shape_mode_size(shape: &Shape, m: usize) -> Result<u64, LayoutError> {
    let t = shape.as_tuple();
    let (_, _, ls, le) = t
        .item_range(m)
        .ok_or_else(|| LayoutError::value(format!("shape {shape} has no mode {m}")))?;
    Ok((ls..le).map(|i| t.leaf(i)).product())
}

/// One tile of a [`TileWalk`] (or a block of tiles, from [`TileWalk::runs`]): its
/// coordinate in the tile grid, its origin in each followed layout, and its extents
/// clipped to the shape.
///
/// ```
/// use strideweave::{Layout, Shape};
/// use strideweave::tensor::TileWalk;
/// let shape = Shape::new((6, 6)).unwrap();
/// let l = Layout::row_major(shape).unwrap();
/// let walk = TileWalk::new(&shape, &[4, 4], &[&l]).unwrap();
/// let last = walk.iter().last().unwrap();
/// assert_eq!((last.coord(), last.origin(0), last.extents()), (&[1, 1][..], 28, &[2, 2][..]));
/// assert!(!last.is_full() && last.count() == 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileAt {
    coord: [u64; M],
    origin: [u64; MAX_WALKED],
    /// Offset from one tile of a block to the next along the walk's three fastest
    /// modes, per followed layout.
    step: [[u64; MAX_WALKED]; BLOCK_MODES],
    extents: [u64; M],
    rank: usize,
    count: [u64; BLOCK_MODES],
    full: bool,
}

impl TileAt {
    /// The tile's index along each mode.
    pub fn coord(&self) -> &[u64] {
        &self.coord[..self.rank]
    }

    /// Offset of the tile's first element in followed layout `j` (0 for a `j` past the
    /// followed layouts).
    #[inline(always)]
    pub fn origin(&self, j: usize) -> u64 {
        self.origin.get(j).copied().unwrap_or(0)
    }

    /// The tile's extent along each mode, clipped to the shape: the box of its elements
    /// that lie inside (CuTe's `elem_less(coord, shape)` predicate of a box tile).
    #[inline(always)]
    pub fn extents(&self) -> &[u64] {
        &self.extents[..self.rank]
    }

    /// Whether the whole tile lies inside the shape (an interior tile).
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The same tiles seen as full (the whole tile, not clipped).
    pub(crate) fn set_full(&mut self) {
        self.full = true;
    }

    /// Number of tiles in this item: 1 from [`TileWalk::iter`]; from
    /// [`TileWalk::runs`], the tiles of the block.
    #[inline(always)]
    pub fn count(&self) -> u64 {
        self.count.iter().product()
    }

    /// Tiles of the block along the walk's three fastest modes (fastest first; 1 for
    /// modes a walk of lower rank does not have).
    #[inline(always)]
    pub fn counts(&self) -> [u64; BLOCK_MODES] {
        self.count
    }

    /// Offsets from one tile of the block to the next along the walk's three fastest
    /// modes, in followed layout `j` (zeros for a `j` past the followed layouts, or for
    /// tiles from [`TileWalk::iter`]).
    #[inline(always)]
    pub fn steps(&self, j: usize) -> [u64; BLOCK_MODES] {
        if j < MAX_WALKED {
            std::array::from_fn(|d| self.step[d][j])
        } else {
            [0; BLOCK_MODES]
        }
    }
}

/// The iterator of [`TileWalk::iter`]: one tile at a time.
///
/// ```
/// use strideweave::{Layout, Shape};
/// use strideweave::tensor::TileWalk;
/// let shape = Shape::new((6, 6)).unwrap();
/// let l = Layout::row_major(shape).unwrap();
/// let walk = TileWalk::new(&shape, &[4, 4], &[&l]).unwrap();
/// assert_eq!(walk.iter().len(), 4);
/// assert_eq!(walk.iter().filter(|t| t.is_full()).count(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct TileIter<'a> {
    walk: &'a TileWalk,
    at: TileAt,
    /// Modes whose current tile is an edge tile.
    edge: usize,
    left: u64,
}

impl TileIter<'_> {
    /// Moves mode `m` from tile `old` to tile `new`, updating origins, extents and the
    /// edge count.
    #[inline(always)]
    fn set(&mut self, m: usize, old: u64, new: u64) {
        let w = self.walk;
        for j in 0..w.k {
            match w.steps[j][m] {
                Step::Linear(s) => {
                    self.at.origin[j] = self.at.origin[j] + new * s - old * s;
                }
                Step::Layout(_) => {
                    // evenly spaced or not: the grid layout says
                    self.at.origin[j] =
                        self.at.origin[j] + w.offset(j, m, new) - w.offset(j, m, old);
                }
            }
        }
        let was_edge = old >= w.full[m];
        let is_edge = new >= w.full[m];
        self.edge = self.edge + usize::from(is_edge) - usize::from(was_edge);
        self.at.extents[m] = w.tile[m].min(w.extent[m] - new * w.tile[m]);
        self.at.coord[m] = new;
        self.at.full = self.edge == 0;
    }
}

impl Iterator for TileIter<'_> {
    type Item = TileAt;

    #[inline]
    fn next(&mut self) -> Option<TileAt> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let cur = self.at;
        if self.left > 0 {
            self.advance(0);
        }
        Some(cur)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.left).unwrap_or(usize::MAX);
        (n, usize::try_from(self.left).ok())
    }
}

impl ExactSizeIterator for TileIter<'_> {}

impl TileIter<'_> {
    /// Calls `f` with each remaining tile, by reference and in order, while it returns
    /// true: the iterator's tiles without copying a [`TileAt`] (a few hundred bytes) per
    /// tile, for loops whose work per tile is small.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// use strideweave::tensor::TileWalk;
    /// let shape = Shape::new((8, 8)).unwrap();
    /// let l = Layout::row_major(shape).unwrap();
    /// let walk = TileWalk::new(&shape, &[4, 2], &[&l]).unwrap();
    /// let mut origins = vec![];
    /// walk.iter().for_each_while(|t| {
    ///     origins.push(t.origin(0));
    ///     origins.len() < 3
    /// });
    /// assert_eq!(origins, [0, 32, 2]); // two row tiles of column tile 0, then column tile 1
    /// ```
    pub fn for_each_while(mut self, mut f: impl FnMut(&TileAt) -> bool) {
        while self.left > 0 {
            if !f(&self.at) {
                return;
            }
            self.left -= 1;
            if self.left > 0 {
                self.advance(0);
            }
        }
    }

    /// Moves to the next tile of the modes `order[from..]` (an odometer); false when
    /// they wrap around.
    #[inline(always)]
    fn advance(&mut self, from: usize) -> bool {
        let w = self.walk;
        for &m in &w.order[from..w.rank] {
            let i = self.at.coord[m];
            if i + 1 < w.count[m] {
                self.set(m, i, i + 1);
                return true;
            }
            self.set(m, i, 0);
        }
        false
    }
}

/// The iterator of [`TileWalk::runs`]: blocks of tiles sharing their extents.
///
/// ```
/// use strideweave::{Layout, Shape};
/// use strideweave::tensor::TileWalk;
/// let shape = Shape::new((16, 16)).unwrap();
/// let l = Layout::row_major(shape).unwrap();
/// let walk = TileWalk::new(&shape, &[4, 4], &[&l]).unwrap();
/// let blocks: Vec<_> = walk.runs().collect();
/// assert_eq!((blocks.len(), blocks[0].counts()), (1, [4, 4, 1]));   // all 16 tiles at once
/// ```
#[derive(Clone, Debug)]
pub struct TileRuns<'a> {
    it: TileIter<'a>,
    blocks: bool,
    /// Modes a block spans (the walk's rank, at most [`BLOCK_MODES`]).
    nb: usize,
    /// `(first tile, tiles)` of the segments of the block modes.
    segs: [[(u64, u64); 2]; BLOCK_MODES],
    n: [usize; BLOCK_MODES],
    /// The current segment of each.
    k: [usize; BLOCK_MODES],
}

impl Iterator for TileRuns<'_> {
    type Item = TileAt;

    #[inline]
    fn next(&mut self) -> Option<TileAt> {
        if !self.blocks {
            return self.it.next();
        }
        if self.it.left == 0 {
            return None;
        }
        let w = self.it.walk;
        let mut counts = [1u64; BLOCK_MODES];
        for (d, count) in counts.iter_mut().enumerate().take(self.nb) {
            let m = w.order[d];
            let (first, len) = self.segs[d][self.k[d]];
            let i = self.it.at.coord[m];
            if i != first {
                self.it.set(m, i, first);
            }
            *count = len;
        }
        self.it.at.count = counts;
        let cur = self.it.at;
        self.it.left -= counts.iter().product::<u64>();
        // the next segment of the block modes (fastest first), then the next row
        let mut d = 0;
        loop {
            if d == self.nb {
                if w.rank > self.nb {
                    self.it.advance(self.nb);
                }
                break;
            }
            self.k[d] += 1;
            if self.k[d] < self.n[d] {
                break;
            }
            self.k[d] = 0;
            d += 1;
        }
        Some(cur)
    }
}
