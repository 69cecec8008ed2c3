//! CastTess: Cast into an MlaTiled or MlaCBlocked placement, writing every byte of the
//! span (padding and alignment gaps as zeros); and its inverse CastUntess.
//!
//! The tile packing loop is generic over [`TileDims`]: [`StaticTile<L>`] for a static
//! tile layout `L` (a [`StaticLayout`] of shape `(TC, TW, TH, TD)` with the compact
//! strides `(1, TC, TC*TW, TC*TW*TH)`, checked by the compiler) gives a monomorphized
//! loop whose tile extents and in-tile strides are compile-time constants;
//! [`RuntimeTile`] runs the very same loop with run-time extents (the fallback),
//! producing identical bytes.

use std::marker::PhantomData;

use super::parallel::{for_ranges, for_unit_chunks, split_axis, Exec, SharedOut};
use super::run::{
    ahead_bytes, convert_grid, convert_grid_raw, zero_grid, zero_strided, Fmt, Row, Side,
};
use crate::tensor::convert::{dispatch_float_pair, Elem};
use crate::tensor::dims::Dims;
use crate::tensor::dsl::{TileAt, TileWalk};
use crate::tensor::dtype::DType;
use crate::tensor::error::{Rule, TensorError};
use crate::tensor::placement::{CBlockedGeom, Geometry, StridedGeom, TiledGeom, CBLOCK_LANES};
use crate::tensor::plan::TileDispatch;
use crate::tensor::spec::TensorSpec;
use crate::{Layout, Shape, Static, StaticLayout, Stride, C};

/// The tile extents `[TD, TH, TW, TC]` of a static tile layout, checked by the compiler.
///
/// A tile layout is a flat rank-4 layout with shape `(TC, TW, TH, TD)` (first mode
/// fastest, CuTe's convention) whose strides are the in-tile element offsets. The
/// placement spec fixes the order inside a tile (pixels in D/H/W order with W fastest,
/// each pixel `TC` channel slots with channel fastest), so the only admitted strides are
/// the compact ones `(1, TC, TC*TW, TC*TW*TH)`; the stride of an extent-1 mode is never
/// used and is not checked. Anything else panics here, which in a constant is a build
/// error naming the rule.
#[track_caller]
const fn tile_extents(l: &crate::Layout) -> [usize; 4] {
    use crate::message::ConstMessage;
    let mut m = ConstMessage::new();
    m.str("static tile layout ").layout(l);
    if l.rank() != 4 || l.leaf_count() != 4 {
        m.str(": a tile layout is flat and of rank 4, (TC,TW,TH,TD):(1,TC,TC*TW,TC*TW*TH), e.g. (16,4,4,1):(1,16,64,256)");
        panic!("{}", m.as_str());
    }
    let ext = [
        l.leaf_extent(3),
        l.leaf_extent(2),
        l.leaf_extent(1),
        l.leaf_extent(0),
    ];
    // Compact strides: mode k (C, W, H, D) steps over the product of the faster extents.
    let mut want = 1u64;
    let mut k = 0;
    while k < 4 {
        if l.leaf_extent(k) > 1 && l.leaf_stride(k) != want {
            m.str(": mode ")
                .u64(k as u64)
                .str(" has stride ")
                .u64(l.leaf_stride(k))
                .str(" where the compact tile order (1,TC,TC*TW,TC*TW*TH) (channel fastest, then W, H, D) needs ")
                .u64(want)
                .str("; the tile of these extents is ")
                .tuple(l.shape().as_tuple())
                .str(":(1,")
                .u64(ext[3])
                .char(b',')
                .u64(ext[3].saturating_mul(ext[2]))
                .char(b',')
                .u64(ext[3].saturating_mul(ext[2]).saturating_mul(ext[1]))
                .char(b')');
            panic!("{}", m.as_str());
        }
        want = want.saturating_mul(l.leaf_extent(k));
        k += 1;
    }
    if want > u32::MAX as u64 {
        panic!("static tile layout has more than 2^32 elements per tile");
    }
    [
        ext[0] as usize,
        ext[1] as usize,
        ext[2] as usize,
        ext[3] as usize,
    ]
}

/// Tile extents and in-tile strides as seen by the packing loop (compile-time or
/// run-time).
///
/// ```
/// use strideweave::tensor::{RuntimeTile, StaticTile, Tile1x4x4x16, TileDims};
/// fn pixels<T: TileDims>(t: T) -> usize { t.td() * t.th() * t.tw() }
/// assert_eq!(pixels(StaticTile::<Tile1x4x4x16>::new()), 16);
/// assert_eq!(pixels(RuntimeTile { dhwc: [1, 4, 4, 16] }), 16);
/// ```
pub trait TileDims: Copy + Send + Sync {
    /// Depth.
    fn td(self) -> usize;
    /// Height.
    fn th(self) -> usize;
    /// Width.
    fn tw(self) -> usize;
    /// Channels.
    fn tc(self) -> usize;
    /// In-tile element offsets of one step along D, H, W (a pixel is `tc` slots).
    fn pixel_strides(self) -> [usize; 3] {
        let (th, tw, tc) = (self.th(), self.tw(), self.tc());
        [th * tw * tc, tw * tc, tc]
    }
}

/// The static tile described by the static layout `L` (a [`StaticLayout`]): shape
/// `(TC, TW, TH, TD)`, first mode fastest, strides the compact in-tile element offsets
/// `(1, TC, TC*TW, TC*TW*TH)`. Its extents and strides are compile-time constants, so
/// each tile layout gets its own monomorphized packing loop.
///
/// For MlaCBlocked the tile layout is `(16, TW, TH, 1)` (one 16-lane channel block).
///
/// ```
/// use strideweave::layout_type;
/// use strideweave::tensor::{StaticTile, Tile1x4x4x16, TileDims};
/// type MyTile = layout_type!((16,4,4,1):(1,16,64,256));
/// let t = StaticTile::<MyTile>::new();
/// assert_eq!((t.td(), t.th(), t.tw(), t.tc()), (1, 4, 4, 16));
/// assert_eq!(t.pixel_strides(), [0, 64, 16]); // the extent-1 D mode is never stepped
/// assert_eq!(StaticTile::<MyTile>::DHWC, StaticTile::<Tile1x4x4x16>::DHWC);
/// ```
///
/// A layout that is not the compact tile order fails the build (here channels are not
/// the fastest mode):
///
/// ```compile_fail
/// use strideweave::layout_type;
/// use strideweave::tensor::StaticTile;
/// let t = StaticTile::<layout_type!((16,4,4,1):(4,1,64,256))>::new();
/// ```
///
/// and so does a layout of another rank:
///
/// ```compile_fail
/// use strideweave::layout_type;
/// use strideweave::tensor::StaticTile;
/// let t = StaticTile::<layout_type!((16,4):(1,16))>::new();
/// ```
#[derive(Debug)]
pub struct StaticTile<L>(PhantomData<L>);

impl<L: StaticLayout> StaticTile<L> {
    /// Tile extents `[TD, TH, TW, TC]`, computed by the compiler from `L`. Evaluating
    /// it checks that `L` is a compact rank-4 tile layout (a build error otherwise).
    pub const DHWC: [usize; 4] = tile_extents(&L::LAYOUT);
    /// In-tile element strides of D, H, W (pixel steps), read from `L`'s strides.
    pub const PIXEL_STRIDES: [usize; 3] = [
        Self::stride_or_zero(3),
        Self::stride_or_zero(2),
        Self::stride_or_zero(1),
    ];

    const fn stride_or_zero(k: usize) -> usize {
        // An extent-1 mode is only ever indexed at 0: its stride does not matter.
        if Self::DHWC[3 - k] == 1 {
            0
        } else {
            L::STRIDES[k] as usize
        }
    }

    /// The (zero-sized) value; checks `L` at compile time.
    pub const fn new() -> Self {
        let _ = Self::DHWC;
        StaticTile(PhantomData)
    }
}

impl<L: StaticLayout> Default for StaticTile<L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<L> Clone for StaticTile<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L> Copy for StaticTile<L> {}

impl<L: StaticLayout> TileDims for StaticTile<L> {
    #[inline(always)]
    fn td(self) -> usize {
        Self::DHWC[0]
    }
    #[inline(always)]
    fn th(self) -> usize {
        Self::DHWC[1]
    }
    #[inline(always)]
    fn tw(self) -> usize {
        Self::DHWC[2]
    }
    #[inline(always)]
    fn tc(self) -> usize {
        Self::DHWC[3]
    }
    #[inline(always)]
    fn pixel_strides(self) -> [usize; 3] {
        Self::PIXEL_STRIDES
    }
}

/// Run-time tile extents (the fallback loop); in-tile strides are the compact ones.
///
/// ```
/// use strideweave::tensor::{RuntimeTile, TileDims};
/// assert_eq!(RuntimeTile { dhwc: [2, 3, 4, 5] }.tw(), 4);
/// assert_eq!(RuntimeTile { dhwc: [2, 3, 4, 5] }.pixel_strides(), [60, 20, 5]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeTile {
    /// Extents along D, H, W, C.
    pub dhwc: [usize; 4],
}

impl TileDims for RuntimeTile {
    #[inline(always)]
    fn td(self) -> usize {
        self.dhwc[0]
    }
    #[inline(always)]
    fn th(self) -> usize {
        self.dhwc[1]
    }
    #[inline(always)]
    fn tw(self) -> usize {
        self.dhwc[2]
    }
    #[inline(always)]
    fn tc(self) -> usize {
        self.dhwc[3]
    }
}

/// The static layout type of the compact tile `D x H x W x C`:
/// `(C, W, H, D):(1, C, C*W, C*W*H)`.
macro_rules! tile_layout {
    ($d:literal, $h:literal, $w:literal, $c:literal) => {
        Static<(C<$c>, C<$w>, C<$h>, C<$d>), (C<1>, C<$c>, C<{ $c * $w }>, C<{ $c * $w * $h }>)>
    };
}

macro_rules! static_tiles {
    ($($name:ident = ($d:literal, $h:literal, $w:literal, $c:literal)),* $(,)?) => {
        $(
            #[doc = concat!(
                "The built-in static tile layout D=", $d, " H=", $h, " W=", $w, " C=", $c,
                ": `(", $c, ",", $w, ",", $h, ",", $d, "):(1,", $c, ",", $c, "*", $w, ",",
                $c, "*", $w, "*", $h, ")`.\n\n```\nuse strideweave::{layout_type, Layout, StaticLayout};\n",
                "use strideweave::tensor::", stringify!($name), ";\n",
                "let l: Layout = ", stringify!($name), "::LAYOUT;\n",
                "assert_eq!(l.leaf_extent(0), ", $c, ");\n```"
            )]
            pub type $name = tile_layout!($d, $h, $w, $c);
        )*

        /// Runs the static loop of the first built-in shape equal to the plan's tile.
        #[allow(clippy::too_many_arguments)]
        fn auto_static(
            exec: &Exec,
            is: &TensorSpec,
            a: &StridedGeom,
            rows: &Option<Rows>,
            src: &[u8],
            os: &TensorSpec,
            g: &Geometry,
            dst: &mut [u8],
        ) -> Option<Result<(), TensorError>> {
            $(
                if is_static_tile::<$name>(g) {
                    return Some(run_static::<$name>(exec, is, a, rows, src, os, g, dst));
                }
            )*
            None
        }
    };
}

static_tiles! {
    Tile1x4x4x16 = (1, 4, 4, 16),
    Tile1x1x1x16 = (1, 1, 1, 16),
    Tile1x2x2x16 = (1, 2, 2, 16),
    Tile1x8x8x16 = (1, 8, 8, 16),
    Tile1x1x1x32 = (1, 1, 1, 32),
    Tile1x4x4x32 = (1, 4, 4, 32),
}

fn tile_of(g: &Geometry) -> Option<[u64; 4]> {
    match g {
        Geometry::Tiled(t) => Some(t.tile),
        Geometry::CBlocked(c) => Some([1, c.tile_h, c.tile_w, CBLOCK_LANES]),
        Geometry::Strided(_) => None,
    }
}

/// Whether the static tile layout `L` is the tile of the tiled geometry `g` (no
/// allocation: `auto_static` asks this of every built-in tile on every run).
fn is_static_tile<L: StaticLayout>(g: &Geometry) -> bool {
    tile_of(g) == Some(StaticTile::<L>::DHWC.map(|x| x as u64))
}

/// Checks that the static tile layout `L` is the tile of the tiled geometry `g`.
pub(crate) fn check_static<L: StaticLayout>(g: &Geometry) -> Result<(), TensorError> {
    let want = StaticTile::<L>::DHWC.map(|x| x as u64);
    let tuple = |t: [u64; 4]| format!("({},{},{},{})", t[0], t[1], t[2], t[3]);
    let placement = match tile_of(g) {
        Some(t) if t == want => return Ok(()),
        Some(t) => format!("the placement's tile is (D,H,W,C) = {}", tuple(t)),
        None => "the placement is not tiled".to_string(),
    };
    Err(TensorError::new(
        Rule::TileMismatch,
        format!(
            "the static tile layout {} (modes C,W,H,D, channel fastest) is a tile of (D,H,W,C) = {}, but {placement}",
            L::LAYOUT,
            tuple(want)
        ),
    ))
}

/// The format of a tiled placement's pixel of `slots` channel slots: BF16 byte planes,
/// or little-endian elements.
fn tiled_fmt(planes: bool, slots: usize, width: usize) -> Fmt {
    if planes {
        Fmt::Planes(slots)
    } else {
        Fmt::Elements(width)
    }
}

/// One row of tiles along W (fixed outer index and D, H tile numbers) as seen from the
/// strided side.
#[derive(Debug, Clone, Copy)]
struct TileRow {
    /// Storage number of the row's first tile (W tile 0, channel tile 0).
    idx0: usize,
    /// Strided-side byte offset of the row's first pixel (channel 0).
    base: usize,
    /// Logical pixel rows along D and H in each tile of the row.
    valid: [usize; 2],
    /// The row's digits `[outer, dt, ht]` (the tile-number radix).
    digits: [usize; 3],
}

/// The rows of tiles of a tiled placement as a [`TileWalk`] over the logical shape
/// `(H, D, (outer axes, last first))` with box tiles `(TH, TD, 1)`, following two
/// layouts: the strided side's bytes (`strides`, stride 0 for an absent role) and the
/// storage number of each row's first tile (`row_tiles[i]` tiles per tile step of mode
/// `i`: H, D, outer, tile strides 0 inside a tile). The walk visits the rows in their
/// storage order (H tiles fastest, the outer axes row-major), gives each row's first
/// pixel and first tile by additions, and clips the edge rows' D and H extents to the
/// shape. The walk is built once, by `prepare` (building it costs about 76k
/// instructions, 7% of a 1x56x56x64 pack), and is the parallel split's unit: a part
/// takes a range of rows.
///
/// Not walked, on purpose: the tiles inside a row. A row's W tiles (full ones, then a
/// partial last one) and all its channel tiles are one `convert_grid` call each, which
/// reads every input pixel once and writes its channel groups to the channel tiles
/// `n_spatial` tiles apart. Walking them as tiles (`TileWalk::runs` over W and C, as
/// `examples/mla_pack.rs` does) splits the channel tiles into separate passes over the
/// input and pixel-clipped edge blocks into zero-fill-then-convert: 1.19x the
/// instructions on 1x57x55x40 (`benches/RESULTS-tensor-dsl.md`).
fn row_walk(
    ext_hd: [u64; 2],
    tile_hd: [u64; 2],
    strides_hd: [u64; 2],
    outer: impl DoubleEndedIterator<Item = (u64, u64)>,
    row_tiles: [u64; 3],
) -> Result<RowWalk, TensorError> {
    let layout_err =
        |e: &dyn std::fmt::Display| TensorError::new(Rule::Overflow, format!("tile rows: {e}"));
    let leaf = |n: u64, d: u64| Layout::leaf(n, d).map_err(|e| layout_err(&e));
    let mut outer_modes = Layout::EMPTY;
    for (n, d) in outer.rev() {
        outer_modes = outer_modes
            .concat(&leaf(n, d)?)
            .map_err(|e| layout_err(&e))?;
    }
    if outer_modes.rank() == 0 {
        outer_modes = leaf(1, 0)?;
    }
    let n_outer = outer_modes.size();
    let mut input = Layout::EMPTY;
    let mut tiles = Layout::EMPTY;
    for i in 0..2 {
        let ntiles = ext_hd[i].div_ceil(tile_hd[i]);
        let per_tile = Layout::new(
            Shape::new((tile_hd[i], ntiles)).map_err(|e| layout_err(&e))?,
            Stride::new((0, row_tiles[i])).map_err(|e| layout_err(&e))?,
        )
        .map_err(|e| layout_err(&e))?;
        input = input
            .concat(&leaf(ext_hd[i], strides_hd[i])?)
            .map_err(|e| layout_err(&e))?;
        tiles = tiles.append(&per_tile).map_err(|e| layout_err(&e))?;
    }
    let input = input.append(&outer_modes).map_err(|e| layout_err(&e))?;
    let tiles = tiles
        .append(&leaf(n_outer, row_tiles[2])?)
        .map_err(|e| layout_err(&e))?;
    let walk = TileWalk::new(
        &input.shape(),
        &[tile_hd[0], tile_hd[1], 1],
        &[&input, &tiles],
    )
    .map_err(|e| layout_err(&e))?;
    Ok(RowWalk::new(walk))
}

/// A [`row_walk`] with its blocks (see [`for_row_blocks`]) listed once by `prepare`
/// when there are at most [`MAX_LISTED_BLOCKS`]: a run over the whole walk then reads
/// the list instead of setting up [`TileWalk::runs`] (about 90 ns) or stepping the walk
/// row by row (about 6 ns a row), which was a tenth of a small tensor's run.
#[derive(Debug, Clone)]
pub(crate) struct RowWalk {
    walk: TileWalk,
    blocks: Vec<RowBlock>,
}

/// Row walks of more blocks than this (a block per outer index or D tile at most) walk
/// at run time: their tensors are large enough not to notice, and the list stays small
/// (`prepare` stops counting at the first block past it).
const MAX_LISTED_BLOCKS: usize = 256;

impl RowWalk {
    fn new(walk: TileWalk) -> Self {
        let mut blocks = Vec::new();
        let fits = run_blocks(&walk, |b| {
            blocks.push(b);
            blocks.len() <= MAX_LISTED_BLOCKS
        });
        if !fits {
            blocks = Vec::new();
        }
        RowWalk { walk, blocks }
    }
}

impl std::ops::Deref for RowWalk {
    type Target = TileWalk;
    fn deref(&self) -> &TileWalk {
        &self.walk
    }
}

/// A row of tiles of a [`row_walk`].
#[inline(always)]
fn tile_row(t: &TileAt) -> TileRow {
    let (c, e) = (t.coord(), t.extents());
    TileRow {
        idx0: t.origin(1) as usize,
        base: t.origin(0) as usize,
        valid: [e[1] as usize, e[0] as usize],
        digits: [c[2] as usize, c[1] as usize, c[0] as usize],
    }
}

/// Rows of tiles of an MlaTiled placement: number `r` counts `(outer, dt, ht)`, and
/// the tiles of a row (W tiles, then channel tiles `n_spatial` apart) are converted
/// together: full W tiles in one grid, a partial last one in another.
#[derive(Debug, Clone)]
pub(crate) struct TileRows {
    walk: RowWalk,
    /// Strided-side byte strides of D, H, W, C (0 for an absent role).
    s: [usize; 4],
    tile: [usize; 4],
    nt: [usize; 4],
    n_spatial: usize,
    /// W tiles holding `tile[2]` logical pixels, and the pixels of a partial last one.
    full_w: usize,
    last_w: usize,
}

impl TileRows {
    fn new(g: &TiledGeom, dims: &Dims, b: &StridedGeom) -> Result<Self, TensorError> {
        let nt = g.ntiles.map(|x| x as usize);
        let tile = g.tile.map(|x| x as usize);
        let w = g.ext[2] as usize;
        let s = g.role_axis.map(|r| r.map_or(0, |ax| b.stride[ax] as usize));
        let outer = g.outer_axes[..g.n_outer_axes]
            .iter()
            .map(|&ax| (dims.extents()[ax], b.stride[ax]));
        let row_tiles = [
            g.ntiles[2],
            g.ntiles[1] * g.ntiles[2],
            g.ntiles.iter().product(),
        ];
        Ok(TileRows {
            walk: row_walk(
                [g.ext[1], g.ext[0]],
                [g.tile[1], g.tile[0]],
                [s[1] as u64, s[0] as u64],
                outer,
                row_tiles,
            )?,
            s,
            tile,
            nt,
            n_spatial: nt[0] * nt[1] * nt[2],
            full_w: w / tile[2],
            last_w: w % tile[2],
        })
    }

    /// Rows of tiles in all outer indices.
    fn count(&self) -> usize {
        self.walk.count() as usize
    }

    /// The rows `range` as blocks (see [`for_row_blocks`]).
    fn for_row_blocks(&self, range: std::ops::Range<usize>, f: impl FnMut(RowBlock)) {
        for_row_blocks(&self.walk, range, f)
    }

    /// The (up to two) grids of a row: `(W tiles, pixels per tile, first W tile)`.
    fn w_runs(&self) -> [(usize, usize, usize); 2] {
        [
            (self.full_w, self.tile[2], 0),
            (usize::from(self.last_w > 0), self.last_w, self.full_w),
        ]
    }
}

/// A block of rows of a row walk: `n` rows `steps` apart from `first` (row `i` starts
/// `i * steps[0]` input bytes and `i * steps[1]` tiles after it, `i` H tiles further),
/// and that run again `across` times, `astep` apart (input bytes, tiles), along digit
/// `adigit` of the rows (the D tiles or the outer index). Every row of a block shares
/// `first`'s valid extents.
#[derive(Debug, Clone, Copy)]
struct RowBlock {
    first: TileRow,
    n: usize,
    steps: [usize; 2],
    across: usize,
    astep: [usize; 2],
    adigit: usize,
}

impl RowBlock {
    /// A block of the one row `first`.
    fn one(first: TileRow) -> Self {
        RowBlock {
            first,
            n: 1,
            steps: [0, 0],
            across: 1,
            astep: [0, 0],
            adigit: 0,
        }
    }

    /// The first row of run `k` across.
    fn run(&self, k: usize) -> TileRow {
        let mut row = TileRow {
            idx0: self.first.idx0 + k * self.astep[1],
            base: self.first.base + k * self.astep[0],
            ..self.first
        };
        row.digits[self.adigit] += k;
        row
    }
}

/// Calls `f` with the rows `range` of the row walk `walk` (in its order) as blocks (see
/// [`RowBlock`]). Over a whole walk the blocks are [`TileWalk::runs`]' (a tensor's rows
/// of whole H tiles at once, for each D tile and outer index), so a row costs a few
/// additions instead of a step of the walk, about 6 ns (`f16[8,28,7,7]`: 112 rows): the
/// list `prepare` made ([`RowWalk`]; in-process A/B against the choices below, 0.90x to
/// 0.97x the time of small tensors such as `f16[1,13,11,40]` and `[2,13,11,40]` into
/// 1x4x4x16 tiles, 0.98x at `[1,57,55,40]`), else made now. Listing every walk's blocks
/// also batches the same row of every image (an edge row of two or three images is one
/// grid: `f16[2,7,7,40]` into 1x4x4x16 tiles 0.71x). A part of a walk (a thread's) goes
/// row by row.
fn for_row_blocks(walk: &RowWalk, range: std::ops::Range<usize>, mut f: impl FnMut(RowBlock)) {
    let rows = walk.count() as usize;
    if range != (0..rows) {
        return for_tiles(walk, range, |t| f(RowBlock::one(tile_row(t))));
    }
    if !walk.blocks.is_empty() {
        return walk.blocks.iter().for_each(|&b| f(b));
    }
    // Unlisted walks have more than `MAX_LISTED_BLOCKS` blocks, so many rows that the
    // runs' setup is paid back.
    run_blocks(walk, |b| {
        f(b);
        true
    });
}

/// The blocks of a whole walk from [`TileWalk::runs`] (see [`for_row_blocks`]), until `f`
/// returns false; whether it never did.
fn run_blocks(walk: &TileWalk, mut f: impl FnMut(RowBlock) -> bool) -> bool {
    for b in walk.runs() {
        let first = tile_row(&b);
        let [n, c1, c2] = b.counts().map(|c| c as usize);
        let (si, st) = (
            b.steps(0).map(|x| x as usize),
            b.steps(1).map(|x| x as usize),
        );
        let block = |first: TileRow, across: usize, d: usize, adigit: usize| RowBlock {
            first,
            n,
            steps: [si[0], st[0]],
            across,
            astep: [si[d], st[d]],
            adigit,
        };
        if c1 == 1 {
            // Outer indices across (D tiles absent or one).
            if !f(block(first, c2, 2, 0)) {
                return false;
            }
            continue;
        }
        for i2 in 0..c2 {
            let mut row = TileRow {
                idx0: first.idx0 + i2 * st[2],
                base: first.base + i2 * si[2],
                ..first
            };
            row.digits[0] += i2;
            if !f(block(row, c1, 1, 1)) {
                return false;
            }
        }
    }
    true
}

/// Row `i` of a run of a [`RowBlock`].
fn run_row(first: &TileRow, i: usize, steps: [usize; 2]) -> TileRow {
    TileRow {
        idx0: first.idx0 + i * steps[1],
        base: first.base + i * steps[0],
        digits: [first.digits[0], first.digits[1], first.digits[2] + i],
        ..*first
    }
}

/// [`for_row_blocks`] over the rows of `walk` in `part` (whose digit `part.digit` lies
/// in `part.range`), each block clipped to them.
fn for_part_blocks(walk: &RowWalk, part: &UntessPart, mut f: impl FnMut(RowBlock)) {
    let clip = |d: usize, n: usize| {
        let clip = |x: usize| x.saturating_sub(d).min(n);
        (clip(part.range.0), clip(part.range.1))
    };
    let whole = part.range == WHOLE.range;
    for_row_blocks(walk, 0..walk.count() as usize, |b| {
        if whole {
            f(b)
        } else if part.digit == 2 {
            // The H tile digit advances along a run.
            let (lo, hi) = clip(b.first.digits[2], b.n);
            if lo < hi {
                f(RowBlock {
                    first: run_row(&b.first, lo, b.steps),
                    n: hi - lo,
                    ..b
                });
            }
        } else if part.digit == b.adigit {
            // The digit advances across the runs.
            let (lo, hi) = clip(b.first.digits[b.adigit], b.across);
            if lo < hi {
                f(RowBlock {
                    first: b.run(lo),
                    across: hi - lo,
                    ..b
                });
            }
        } else if (part.range.0..part.range.1).contains(&b.first.digits[part.digit]) {
            f(b);
        }
    });
}

/// Calls `f` with the tiles `range` of `walk` (in its order), by reference: a tile row's
/// `TileAt` is a few hundred bytes, and copying it twice per row cost about 20 ns, most
/// of a small tensor's run (`f32[8,8,8,8]` into 1x1x8x16 tiles: 1.65 -> 0.79 us).
fn for_tiles(walk: &TileWalk, range: std::ops::Range<usize>, mut f: impl FnMut(&TileAt)) {
    let mut it = walk.iter();
    if range.start > 0 {
        it.nth(range.start - 1);
    }
    let mut left = range.len();
    it.for_each_while(|t| {
        if left == 0 {
            return false;
        }
        left -= 1;
        f(t);
        true
    });
}

/// Consecutive rows of tiles grouped into runs that one conversion grid covers: `push`
/// extends the current run `(first, count)` when `follows(run, row)`, else hands it to
/// `flush` and starts a new one; `finish` flushes the last run.
struct RowBatch<R>(Option<(R, usize)>);

impl<R: Copy> RowBatch<R> {
    fn new() -> Self {
        RowBatch(None)
    }

    fn push(
        &mut self,
        row: R,
        follows: impl Fn((R, usize), &R) -> bool,
        flush: impl FnOnce(R, usize),
    ) {
        self.push_run(row, 1, follows, flush)
    }

    /// Pushes `n` rows from `row` that follow each other as `follows` requires.
    #[inline(always)]
    fn push_run(
        &mut self,
        row: R,
        n: usize,
        follows: impl Fn((R, usize), &R) -> bool,
        flush: impl FnOnce(R, usize),
    ) {
        match self.0 {
            Some(run) if follows(run, &row) => self.0 = Some((run.0, run.1 + n)),
            _ => {
                if let Some((first, n)) = self.0.replace((row, n)) {
                    flush(first, n);
                }
            }
        }
    }

    fn finish(self, flush: impl FnOnce(R, usize)) {
        if let Some((first, n)) = self.0 {
            flush(first, n);
        }
    }
}

impl RowBatch<TileRow> {
    /// Pushes a run of `n` rows from `first`, `steps` apart (see [`RowBlock`]): at
    /// once when `whole` (its rows follow each other as `follows` requires), else row by
    /// row. Inlined: called per row of a short walk, a call cost 10% of `bf16[1,13,17,3]`.
    #[inline(always)]
    fn push_rows(
        &mut self,
        (first, n, steps): (TileRow, usize, [usize; 2]),
        whole: bool,
        follows: impl Fn((TileRow, usize), &TileRow) -> bool + Copy,
        mut flush: impl FnMut(TileRow, usize),
    ) {
        if whole {
            return self.push_run(first, n, follows, flush);
        }
        for i in 0..n {
            self.push(run_row(&first, i, steps), follows, &mut flush);
        }
    }

    /// Pushes block `b` (see [`RowBlock`]); rows `chain` apart (input bytes, tiles)
    /// follow each other. When its runs across outnumber its rows, each of its rows is
    /// emitted at once with the same row of every run, `emit(row, across, astep)`:
    /// with `flat` (no D extent), and unless the runs follow each other anyway (then
    /// the batch joins them all). Otherwise run by run into the batch, `emit(first, n,
    /// chain)` for its runs of rows that follow each other (`whole` rows, as
    /// `push_rows`). `f32[8,14,31,12]` into 1x4x4x16 tiles: 4 rows of tiles per image,
    /// the last an edge, were 16 conversion calls, one per run; by rows across the
    /// images, 4.
    #[inline(always)]
    fn push_block(
        &mut self,
        b: RowBlock,
        chain: [usize; 2],
        flat: bool,
        whole: impl Fn(&TileRow) -> bool,
        follows: impl Fn((TileRow, usize), &TileRow) -> bool + Copy,
        mut emit: impl FnMut(TileRow, usize, [usize; 2]),
    ) {
        if b.across == 1 {
            let w = whole(&b.first) && b.steps == chain;
            return self.push_rows((b.first, b.n, b.steps), w, follows, |f, n| {
                emit(f, n, chain)
            });
        }
        let runs_follow = || {
            whole(&b.first)
                && b.steps == chain
                && b.n.checked_mul(chain[0]) == Some(b.astep[0])
                && b.n.checked_mul(chain[1]) == Some(b.astep[1])
        };
        if flat && b.across > b.n && !runs_follow() {
            for i in 0..b.n {
                emit(run_row(&b.first, i, b.steps), b.across, b.astep);
            }
            return;
        }
        for k in 0..b.across {
            let first = b.run(k);
            let w = whole(&first) && b.steps == chain;
            self.push_rows((first, b.n, b.steps), w, follows, |f, n| emit(f, n, chain));
        }
    }
}

/// Zeros the pixels of `count` partial tiles `step` bytes apart from byte `first` of
/// `out`, and of the same tiles `outer.1` bytes further on, `outer.0` times (one W tile
/// of a run of rows of tiles, or the full W tiles of an edge row, in every channel tile;
/// or the channel blocks of MlaCBlocked tiles; compact `[TD, TH, TW, TC]` bodies of
/// `w`-byte elements) that hold no logical pixel:
/// pixel rows outside the `valid` D and H rows, and pixels from `vw` on in the others.
/// The conversion writes every slot (channel padding included) of the logical pixels, so
/// each body is written exactly once. One pass per kind of piece over all the tiles: a
/// call per tile and per pixel row cost more than the zeroing (`[1,7,7,2048]` into
/// 1x4x4x16 tiles zeroes 384 tile bodies).
///
/// # Safety
/// The tiles belong to the caller's part of `out` only: no one else accesses them.
#[allow(clippy::too_many_arguments)]
unsafe fn zero_missing_pixels(
    out: &SharedOut,
    first: usize,
    (count, step): (usize, usize),
    outer: (usize, usize),
    tile: [usize; 4],
    valid: [usize; 2],
    vw: usize,
    w: usize,
) {
    let (pix, row) = (tile[3] * w, tile[2] * tile[3] * w);
    let plane = tile[1] * row;
    let body = tile[0] * plane;
    let span = |n: usize, st: usize| (n.max(1) - 1).checked_mul(st);
    let end = span(count, step)
        .and_then(|x| x.checked_add(span(outer.0, outer.1)?))
        .and_then(|x| x.checked_add(first)?.checked_add(body));
    assert!(
        count == 0 || outer.0 == 0 || end.is_some_and(|e| e <= out.len()),
        "zero_missing_pixels: a tile reaches outside the buffer"
    );
    if count == 0 {
        return;
    }
    for o in 0..outer.0 {
        let at = |off: usize| out.ptr().wrapping_add(first + o * outer.1 + off);
        // SAFETY: every piece lies inside a tile body (offsets below `body`), and the
        // tile bodies inside `out` (asserted); they are the caller's (contract).
        unsafe {
            // Missing D planes are one run per tile, so are the missing H rows of each
            // valid plane; the missing pixels of the valid rows are a piece per row.
            let vd = valid[0].min(tile[0]);
            if vd < tile[0] {
                zero_grid(at(vd * plane), [count, 1], [step, 0], body - vd * plane);
            }
            for d in 0..vd {
                if vw < tile[2] {
                    let len = (tile[2] - vw) * pix;
                    zero_grid(
                        at(d * plane + vw * pix),
                        [count, valid[1]],
                        [step, row],
                        len,
                    );
                }
                if valid[1] < tile[1] {
                    let len = plane - valid[1] * row;
                    zero_grid(at(d * plane + valid[1] * row), [count, 1], [step, 0], len);
                }
            }
        }
    }
}

/// Packs into MlaTiled, one row of tiles at a time (rows split across threads): every
/// channel tile of every W tile of the row in one pass over its input pixels, so the
/// input is read once. A pixel's channels are cut into groups of `tc` slots, one per
/// channel tile (`n_spatial` tiles apart), padded with zeros.
fn pack_tiled<T: TileDims, S: Elem, D: Elem>(
    exec: &Exec,
    t: T,
    g: &TiledGeom,
    rows: &TileRows,
    src: &[u8],
    dst: &mut [u8],
) {
    let s = rows.s;
    let (tile_bytes, tile_raw) = (g.tile_bytes as usize, g.tile_raw as usize);
    let tc = t.tc();
    // In-tile byte offsets from the tile layout's strides (a pixel is `tc` slots).
    let [pd, ph, _] = t.pixel_strides().map(|x| x * D::W);
    let dside = Side {
        pixel: tc * D::W,
        group: rows.n_spatial * tile_bytes,
        fmt: tiled_fmt(g.planes, tc, D::W),
        ahead: ahead_bytes(exec.streams, tile_bytes),
    };
    let sside = Side {
        pixel: s[2],
        group: tc * s[3],
        fmt: Fmt::Elements(s[3]),
        ahead: ahead_bytes(exec.streams, rows.tile[2] * s[2]),
    };
    let out = SharedOut::new(dst);
    let row_of = |npix| Row {
        npix,
        valid: g.ext[3] as usize,
        slots: tc,
        pad: true,
    };
    // Converts `n` rows of tiles from `f`, `step` apart (input bytes, tiles; see the
    // batching below; `n > 1` only for rows without a D extent): full W tiles in one
    // grid, a partial last one in another.
    let convert_rows = |f: &TileRow, n: usize, step: [usize; 2]| {
        for (n_w, npix, wt0) in rows.w_runs() {
            if n_w == 0 {
                continue;
            }
            let w_level = (n_w, rows.tile[2] * s[2], tile_bytes);
            let grid = if n > 1 {
                let rows_level = (n, step[0], step[1] * tile_bytes);
                [rows_level, w_level, (f.valid[1], s[1], ph)]
            } else {
                [w_level, (f.valid[0], s[0], pd), (f.valid[1], s[1], ph)]
            };
            let start = (f.idx0 + wt0) * tile_bytes;
            let input = &src[f.base + wt0 * rows.tile[2] * s[2]..];
            // SAFETY: the grid writes only inside the tiles of these rows (W tiles from
            // wt0, channel tiles n_spatial apart), which no other part touches, and no
            // slice of them is alive here; `start` is a tile start in the buffer.
            unsafe {
                convert_grid_raw::<S, D>(
                    exec.path,
                    input,
                    sside,
                    out.ptr().add(start),
                    out.len() - start,
                    dside,
                    row_of(npix),
                    grid,
                )
            };
        }
    };
    // Alignment gaps, zeroed per run of rows just before its conversion (1.1x faster
    // than after it): a run's W tiles of one channel tile are consecutive (all its tiles
    // are when the run covers its outer index), so each run of tiles is one strided
    // zeroing; a 1-D tensor in 16-slot tiles aligned to 64 has one row of 6250 tiles.
    let gap = tile_bytes - tile_raw;
    let zero_gaps = |f: &TileRow, n: usize| {
        let tiles = n * rows.nt[2];
        let (runs, per_run) = if tiles == rows.n_spatial {
            (1, rows.nt[3] * tiles)
        } else {
            (rows.nt[3], tiles)
        };
        for ct in 0..runs {
            let first = (f.idx0 + ct * rows.n_spatial) * tile_bytes;
            // SAFETY: these tiles belong to these rows only, and each row is in
            // exactly one range: no other live access touches them.
            let run = unsafe { out.range(first, per_run * tile_bytes) };
            zero_strided(&mut run[tile_raw..], per_run, tile_bytes, gap);
        }
    };
    // Tiles with missing pixels, zeroed per run of rows too: all of an edge row's, else
    // the partial last W tile of each row (the rows of a run are whole, and their tiles
    // `nt[2]` apart). One call for a run's rows: a call per row cost about 6 ns, most of a
    // small row's time (f16[8,28,7,7] into 1x2x4x8 tiles).
    let zero_missing = |f: &TileRow, n: usize, step: usize| {
        let full_rows = f.valid == [rows.tile[0], rows.tile[1]];
        let channel_tiles = (rows.nt[3], rows.n_spatial * tile_bytes);
        let rows_level = (n, step * tile_bytes);
        let zero = |idx0: usize, wt: usize, outer: (usize, usize), vw: usize| {
            // SAFETY: W tiles `wt..` of these rows, in every channel tile, belong to these
            // rows only, and each row is in exactly one range.
            unsafe {
                zero_missing_pixels(
                    &out,
                    (idx0 + wt) * tile_bytes,
                    channel_tiles,
                    outer,
                    rows.tile,
                    f.valid,
                    vw,
                    D::W,
                )
            }
        };
        if !full_rows {
            // Edge rows (batched only across): their full W tiles as one more level.
            for k in 0..n {
                zero(
                    f.idx0 + k * step,
                    0,
                    (rows.full_w, tile_bytes),
                    rows.tile[2],
                );
            }
        }
        if rows.last_w > 0 {
            zero(f.idx0, rows.full_w, rows_level, rows.last_w);
        }
    };
    let (rs_src, rs_tiles) = (rows.tile[1] * s[1], rows.nt[2]);
    // `n` rows from `f`, `step` apart: consecutive ones (`[rs_src, rs_tiles]`), or the
    // same row of `n` outer indices or D tiles.
    let emit = |f: TileRow, n: usize, step: [usize; 2]| {
        if gap > 0 {
            if step == [rs_src, rs_tiles] {
                zero_gaps(&f, n);
            } else {
                for k in 0..n {
                    zero_gaps(&run_row(&f, k, step), 1);
                }
            }
        }
        zero_missing(&f, n, step[1]);
        convert_rows(&f, n, step);
    };
    for_ranges(exec, rows.count(), |range| {
        let mut batch = RowBatch::new();
        // Consecutive rows of whole tile rows (no D extent, every H row valid, one tile
        // row further on both sides) are one conversion: about 50 ns of call, extent
        // checks and walk per row otherwise (f32[1,64,64,16] into 1x1x64x16 tiles: 64
        // calls took 2.5x the contiguous Cast).
        let batchable = |t: &TileRow| rows.tile[0] == 1 && t.valid[1] == rows.tile[1];
        let follows = |(f, n): (TileRow, usize), t: &TileRow| {
            batchable(&f)
                && batchable(t)
                && n.checked_mul(rs_src).and_then(|x| x.checked_add(f.base)) == Some(t.base)
                && n.checked_mul(rs_tiles).and_then(|x| x.checked_add(f.idx0)) == Some(t.idx0)
        };
        let chain = [rs_src, rs_tiles];
        rows.for_row_blocks(range, |b| {
            batch.push_block(b, chain, rows.tile[0] == 1, batchable, follows, emit);
        });
        batch.finish(|f, n| emit(f, n, chain));
    });
}

/// The rows of MlaCBlocked tiles `(outer, ht)` as a [`row_walk`] (no D role): each
/// row's first input pixel, first tile number and valid H rows.
fn cblocked_rows(g: &CBlockedGeom, dims: &Dims, a: &StridedGeom) -> Result<RowWalk, TensorError> {
    let r = g.rank;
    let outer = (0..r - 3).map(|ax| (dims.extents()[ax], a.stride[ax]));
    let row_tiles = [g.n_tw, g.n_th * g.n_tw, g.n_th * g.n_tw];
    row_walk(
        [g.h, 1],
        [g.tile_h, 1],
        [a.stride[r - 3], 0],
        outer,
        row_tiles,
    )
}

/// The row walk of a tiled placement, prepared with the plan.
#[derive(Debug, Clone)]
pub(crate) enum Rows {
    Tiled(TileRows),
    CBlocked(RowWalk),
}

/// The row walk of the tiled geometry `g` whose strided side is `b` (`None` when `g` is
/// strided or holds no element).
pub(crate) fn rows_of(
    g: &Geometry,
    dims: &Dims,
    b: &StridedGeom,
) -> Result<Option<Rows>, TensorError> {
    Ok(match g {
        Geometry::Tiled(tg) if tg.span > 0 => Some(Rows::Tiled(TileRows::new(tg, dims, b)?)),
        Geometry::CBlocked(cg) if cg.span > 0 => Some(Rows::CBlocked(cblocked_rows(cg, dims, b)?)),
        _ => None,
    })
}

/// The non-empty W runs of an MlaCBlocked row: `(W tiles, first W tile, row)`, the row
/// of a tile's pixels (16-lane channel blocks; `pad`: its padding lanes written).
fn cblocked_w_runs(g: &CBlockedGeom, pad: bool) -> impl Iterator<Item = (usize, usize, Row)> {
    let (w, tw) = (g.w as usize, g.tile_w as usize);
    let runs = [(w / tw, tw, 0), (usize::from(w % tw > 0), w % tw, w / tw)];
    let c = g.c as usize;
    runs.into_iter()
        .filter(|r| r.0 > 0)
        .map(move |(n_w, npix, wt0)| {
            let row = Row {
                npix,
                valid: c,
                slots: CBLOCK_LANES as usize,
                pad,
            };
            (n_w, wt0, row)
        })
}

/// MlaCBlocked tiles (all channel blocks of a `th x tw` patch) of at least this many
/// bytes have only their missing pixels zeroed before the conversion ([`zero_missing_pixels`],
/// as `pack_tiled` does), smaller ones whole. A whole large tile falls out of L1 before the
/// conversion rewrites most of it, so its lines move twice: `[1,7,7,2048]` into (4,4)
/// blocks (64 and 128 KiB tiles) 0.79x to 0.92x the time with the missing pixels only,
/// `[1,15,15,C]` 0.90x to 0.96x from 8 KiB tiles on. Smaller tiles measured slower that
/// way (4 KiB, `f16[1,15,15,128]`: 1.12x; 1.5 to 3 KiB, `[1,57,55,40]`: 1.04x to 1.2x),
/// as a whole one stays in L1 until the conversion.
const EXACT_ZERO_TILE: usize = 8192;

/// Packs into MlaCBlocked with tile `th x tw` from `t` (TD = 1, TC = 16), one row of
/// tiles at a time (rows split across threads). A pixel's 16-lane channel blocks are its
/// channel groups, `th * tw` pixels apart inside the tile; each H row is one row.
fn pack_cblocked<T: TileDims, S: Elem, D: Elem>(
    exec: &Exec,
    t: T,
    g: &CBlockedGeom,
    rows: &RowWalk,
    a: &StridedGeom,
    src: &[u8],
    dst: &mut [u8],
) {
    const L: usize = CBLOCK_LANES as usize;
    let r = g.rank;
    let (sh, sw, sc) = (
        a.stride[r - 3] as usize,
        a.stride[r - 2] as usize,
        a.stride[r - 1] as usize,
    );
    let (th, tw) = (t.th(), t.tw());
    let [_, ph, pw] = t.pixel_strides().map(|x| x * D::W);
    let dside = Side {
        pixel: if tw > 1 { pw } else { L * D::W },
        group: th * tw * L * D::W,
        fmt: tiled_fmt(g.planes, L, D::W),
        ahead: ahead_bytes(exec.streams, g.tile_bytes as usize),
    };
    let sside = Side {
        pixel: sw,
        group: L * sc,
        fmt: Fmt::Elements(sc),
        ahead: ahead_bytes(exec.streams, tw * sw),
    };
    let (tile_bytes, tile_raw) = (g.tile_bytes as usize, g.tile_raw as usize);
    let n_tw = g.n_tw as usize;
    let (full_w, last_w) = (g.w as usize / tw, g.w as usize % tw);
    let nrows = dst.len() / (tile_bytes * n_tw);
    let row_len = tile_bytes * n_tw;
    // Converts `c` rows from row `i0` of `chunk` (first input pixel `b0`, `vh` valid H
    // rows), `step` apart (input bytes, rows): whole rows one tile row apart, or one
    // row of several outer indices.
    let convert = |chunk: &mut [u8], (i0, b0, vh): (usize, usize, usize), c, step: [usize; 2]| {
        for (n_w, wt0, row) in cblocked_w_runs(g, true) {
            let grid = [
                (c, step[0], step[1] * row_len),
                (n_w, tw * sw, tile_bytes),
                (vh, sh, ph),
            ];
            let input = &src[b0 + wt0 * tw * sw..];
            let out = &mut chunk[i0 * row_len + wt0 * tile_bytes..];
            convert_grid::<S, D>(exec.path, input, sside, out, dside, row, grid);
        }
    };
    // `c` rows from row `f` of `chunk`, `step` apart (input bytes, tiles; a row step is
    // `n_tw` tiles): alignment gaps and the tiles with missing pixels (all of an edge
    // row's, else those from `full_w` on; of large tiles only the missing pixels, see
    // [`EXACT_ZERO_TILE`]) zeroed, then converted; per run, just before
    // its conversion, as in `pack_tiled`. A row's place in `chunk` comes from its first
    // tile's number: the runs of a whole walk do not come in storage order.
    let emit = |chunk: &mut [u8], first: usize, f: &TileRow, c: usize, step: [usize; 2]| {
        let (i0, vh, rstep) = (f.idx0 / n_tw - first, f.valid[1], step[1] / n_tw);
        let p = if vh < th { 0 } else { full_w };
        for k in 0..c {
            let row = &mut chunk[(i0 + k * rstep) * row_len..][..row_len];
            zero_strided(
                &mut row[tile_raw..],
                n_tw,
                tile_bytes,
                tile_bytes - tile_raw,
            );
            if tile_raw < EXACT_ZERO_TILE {
                zero_strided(&mut row[p * tile_bytes..], n_tw - p, tile_bytes, tile_raw);
                continue;
            }
            let out = SharedOut::new(row);
            let (blocks, tile) = ((g.n_cb as usize, dside.group), [1, th, tw, L]);
            // SAFETY: `row` is this row's own, borrowed for the calls; a tile is `n_cb`
            // compact `th x tw x L` blocks `dside.group` bytes apart.
            unsafe {
                if vh < th {
                    let full = (full_w, tile_bytes);
                    zero_missing_pixels(&out, 0, blocks, full, tile, [1, vh], tw, D::W);
                }
                if last_w > 0 {
                    let at = full_w * tile_bytes;
                    zero_missing_pixels(&out, at, blocks, (1, 0), tile, [1, vh], last_w, D::W);
                }
            }
        }
        convert(chunk, (i0, f.base, vh), c, [step[0], rstep]);
    };
    // Whole rows one tile row apart on the input are one conversion grid.
    let chain = [th * sh, n_tw];
    let follows = |(f, c): (TileRow, usize), t: &TileRow| {
        f.valid[1] == th
            && t.valid[1] == th
            && c.checked_mul(chain[0]).and_then(|x| x.checked_add(f.base)) == Some(t.base)
            && c.checked_mul(chain[1]).and_then(|x| x.checked_add(f.idx0)) == Some(t.idx0)
    };
    let whole = |t: &TileRow| t.valid[1] == th;
    for_unit_chunks(exec, dst, row_len, nrows, |first, n, chunk| {
        let mut batch = RowBatch::new();
        for_row_blocks(rows, first..first + n, |b| {
            batch.push_block(b, chain, true, whole, follows, |f, c, step| {
                emit(chunk, first, &f, c, step)
            });
        });
        batch.finish(|f, c| emit(chunk, first, &f, c, chain));
    });
}

fn pack<T: TileDims, S: Elem, D: Elem>(
    exec: &Exec,
    t: T,
    g: &Geometry,
    rows: &Option<Rows>,
    a: &StridedGeom,
    src: &[u8],
    dst: &mut [u8],
) {
    match (g, rows) {
        (Geometry::Tiled(tg), Some(Rows::Tiled(r))) => {
            pack_tiled::<T, S, D>(exec, t, tg, r, src, dst)
        }
        (Geometry::CBlocked(cg), Some(Rows::CBlocked(r))) => {
            pack_cblocked::<T, S, D>(exec, t, cg, r, a, src, dst)
        }
        // Admission guarantees a tiled output; a strided or empty one has nothing to pack.
        _ => {}
    }
}

/// Runs CastTess with the static tile layout `L` (callers checked `check_static::<L>`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_static<L: StaticLayout>(
    exec: &Exec,
    is: &TensorSpec,
    a: &StridedGeom,
    rows: &Option<Rows>,
    src: &[u8],
    os: &TensorSpec,
    g: &Geometry,
    dst: &mut [u8],
) -> Result<(), TensorError> {
    let t = StaticTile::<L>::new();
    dispatch_float_pair!(
        is.dtype,
        os.dtype,
        pack::<StaticTile<L>>(exec, t, g, rows, a, src, dst)
    )
}

/// CastTess: static loop when the tile is a built-in shape (and `dispatch` allows it),
/// else the runtime-tile loop.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cast_tess(
    exec: &Exec,
    is: &TensorSpec,
    a: &StridedGeom,
    rows: &Option<Rows>,
    src: &[u8],
    os: &TensorSpec,
    g: &Geometry,
    dst: &mut [u8],
    dispatch: TileDispatch,
) -> Result<(), TensorError> {
    if dispatch == TileDispatch::Auto {
        if let Some(r) = auto_static(exec, is, a, rows, src, os, g, dst) {
            return r;
        }
    }
    let tile = tile_of(g).ok_or_else(|| {
        TensorError::new(Rule::UnsupportedPlacement, "cast-tess: output is not tiled")
    })?;
    // Tile extents are at most the tile bytes, which fit in usize (span checked).
    let t = RuntimeTile {
        dhwc: tile.map(|x| x as usize),
    };
    dispatch_float_pair!(
        is.dtype,
        os.dtype,
        pack::<RuntimeTile>(exec, t, g, rows, a, src, dst)
    )
}

/// Which tiles one part of a parallel CastUntess converts, and where its output chunk
/// starts: tiles whose digit `digit` (in the tile-number radix) lies in `range`.
#[derive(Clone, Copy)]
struct UntessPart {
    digit: usize,
    range: (usize, usize),
    origin: usize,
}

const WHOLE: UntessPart = UntessPart {
    digit: 0,
    range: (0, usize::MAX),
    origin: 0,
};

/// Runs `part_fn` over the output split along its largest-stride axis, when that axis
/// is a tile-number digit of the input (`digit_of(axis) = Some((digit, rows per tile,
/// tiles))`); otherwise once over the whole output. With `slab`, only the tiles `slab`
/// along that axis, into `dst` holding just their rows (see [`untess_slab_axis`]).
fn untess_parts(
    exec: &Exec,
    b: &StridedGeom,
    dst: &mut [u8],
    digit_of: impl Fn(usize) -> Option<(usize, usize, usize)>,
    slab: Option<std::ops::Range<usize>>,
    part_fn: impl Fn(UntessPart, &mut [u8]) + Sync,
) {
    let split = split_axis(b).and_then(|ax| digit_of(ax).map(|d| (ax, d)));
    if let Some(tiles) = slab {
        // The caller checked the split with `untess_slab_axis`; without one, no slab.
        if let Some((ax, (digit, per_tile, _))) = split {
            let part = UntessPart {
                digit,
                range: (tiles.start, tiles.end),
                origin: tiles.start * per_tile * b.stride[ax] as usize,
            };
            part_fn(part, dst);
        }
        return;
    }
    match split {
        Some((ax, (digit, per_tile, ntiles))) if exec.parts > 1 => {
            let unit = per_tile * b.stride[ax] as usize;
            for_unit_chunks(exec, dst, unit, ntiles, |first, n, chunk| {
                let part = UntessPart {
                    digit,
                    range: (first, first + n),
                    origin: first * unit,
                };
                part_fn(part, chunk)
            });
        }
        _ => part_fn(WHOLE, dst),
    }
}

/// The tile-number digit of the output axis `ax` of an MlaTiled tensor, for splitting
/// CastUntess: `(digit of a row of tiles [outer, dt, ht], rows per tile, tiles)` for the
/// D or H axis, or the only outer axis longer than one.
fn tiled_digit(g: &TiledGeom, dims: &Dims, ax: usize) -> Option<(usize, usize, usize)> {
    let only_outer = only_long_axis(g.outer_axes[..g.n_outer_axes].iter().copied(), dims);
    if g.role_axis[0] == Some(ax) {
        Some((1, g.tile[0] as usize, g.ntiles[0] as usize))
    } else if g.role_axis[1] == Some(ax) {
        Some((2, g.tile[1] as usize, g.ntiles[1] as usize))
    } else if only_outer == Some(ax) {
        Some((0, 1, g.n_outer as usize))
    } else {
        None
    }
}

/// [`tiled_digit`] for MlaCBlocked: the H axis, or the only outer axis longer than one.
fn cblocked_digit(g: &CBlockedGeom, dims: &Dims, ax: usize) -> Option<(usize, usize, usize)> {
    let r = g.rank;
    if ax == r - 3 {
        Some((2, g.tile_h as usize, g.n_th as usize))
    } else if only_long_axis(0..r - 3, dims) == Some(ax) {
        Some((0, 1, g.n_outer as usize))
    } else {
        None
    }
}

/// The axis along which CastUntess of `g` into `b` can run in slabs of whole tiles
/// (`cast_untess`'s `slab`): `(axis, rows per tile, tiles)`, the output's largest-stride
/// axis when it is a tile-number digit.
pub(crate) fn untess_slab_axis(
    g: &Geometry,
    dims: &Dims,
    b: &StridedGeom,
) -> Option<(usize, usize, usize)> {
    let ax = split_axis(b)?;
    let (_, per_tile, tiles) = match g {
        Geometry::Tiled(tg) => tiled_digit(tg, dims, ax)?,
        Geometry::CBlocked(cg) => cblocked_digit(cg, dims, ax)?,
        Geometry::Strided(_) => return None,
    };
    Some((ax, per_tile, tiles))
}

#[allow(clippy::too_many_arguments)]
fn untess_tiled<S: Elem, D: Elem>(
    exec: &Exec,
    dims: &Dims,
    g: &TiledGeom,
    rows: &TileRows,
    src: &[u8],
    b: &StridedGeom,
    dst: &mut [u8],
    slab: Option<std::ops::Range<usize>>,
) {
    let t = RuntimeTile {
        dhwc: g.tile.map(|x| x as usize),
    };
    let s = rows.s;
    let tc = t.tc();
    let tile_bytes = g.tile_bytes as usize;
    let [pd, ph, _] = t.pixel_strides().map(|x| x * S::W);
    let sside = Side {
        pixel: tc * S::W,
        group: rows.n_spatial * tile_bytes,
        fmt: tiled_fmt(g.planes, tc, S::W),
        ahead: ahead_bytes(exec.streams, tile_bytes),
    };
    let dside = Side {
        pixel: s[2],
        group: tc * s[3],
        fmt: Fmt::Elements(s[3]),
        ahead: ahead_bytes(exec.streams, rows.tile[2] * s[2]),
    };
    let digit_of = |ax| tiled_digit(g, dims, ax);
    let rs_dst = rows.tile[1] * s[1];
    untess_parts(exec, b, dst, digit_of, slab, |part, chunk| {
        // Converts `n` rows of tiles from `f`, `step` apart (output bytes, tiles; `n > 1`
        // only without a D extent): full W tiles in one grid, a partial last one in
        // another.
        let mut convert_rows = |f: &TileRow, n: usize, step: [usize; 2]| {
            for (n_w, npix, wt0) in rows.w_runs() {
                if n_w == 0 {
                    continue;
                }
                let row = Row {
                    npix,
                    valid: g.ext[3] as usize,
                    slots: tc,
                    pad: false,
                };
                let w_level = (n_w, tile_bytes, rows.tile[2] * s[2]);
                let grid = if n > 1 {
                    [
                        (n, step[1] * tile_bytes, step[0]),
                        w_level,
                        (f.valid[1], ph, s[1]),
                    ]
                } else {
                    [w_level, (f.valid[0], pd, s[0]), (f.valid[1], ph, s[1])]
                };
                let tile = &src[(f.idx0 + wt0) * tile_bytes..];
                let out = &mut chunk[f.base + wt0 * rows.tile[2] * s[2] - part.origin..];
                convert_grid::<S, D>(exec.path, tile, sside, out, dside, row, grid);
            }
        };
        // Consecutive whole tile rows of this part are one conversion (as in CastTess).
        let batchable = |t: &TileRow| rows.tile[0] == 1 && t.valid[1] == rows.tile[1];
        let follows = |(f, n): (TileRow, usize), t: &TileRow| {
            batchable(&f)
                && batchable(t)
                && n.checked_mul(rs_dst).and_then(|x| x.checked_add(f.base)) == Some(t.base)
                && n.checked_mul(rows.nt[2])
                    .and_then(|x| x.checked_add(f.idx0))
                    == Some(t.idx0)
        };
        let mut batch = RowBatch::new();
        let chain = [rs_dst, rows.nt[2]];
        for_part_blocks(&rows.walk, &part, |b| {
            let flat = rows.tile[0] == 1;
            batch.push_block(b, chain, flat, batchable, follows, |f, n, step| {
                convert_rows(&f, n, step)
            });
        });
        batch.finish(|f, n| convert_rows(&f, n, chain));
    });
}

/// The only axis of `axes` longer than one, if exactly one is.
fn only_long_axis(axes: impl Iterator<Item = usize>, dims: &Dims) -> Option<usize> {
    let mut long = axes.filter(|&ax| dims.extents()[ax] > 1);
    match (long.next(), long.next()) {
        (Some(ax), None) => Some(ax),
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
fn untess_cblocked<S: Elem, D: Elem>(
    exec: &Exec,
    dims: &Dims,
    g: &CBlockedGeom,
    rows: &RowWalk,
    src: &[u8],
    b: &StridedGeom,
    dst: &mut [u8],
    slab: Option<std::ops::Range<usize>>,
) {
    const L: usize = CBLOCK_LANES as usize;
    let r = g.rank;
    let (sh, sw, sc) = (
        b.stride[r - 3] as usize,
        b.stride[r - 2] as usize,
        b.stride[r - 1] as usize,
    );
    let (th, tw) = (g.tile_h as usize, g.tile_w as usize);
    let sside = Side {
        pixel: L * S::W,
        group: th * tw * L * S::W,
        fmt: tiled_fmt(g.planes, L, S::W),
        ahead: ahead_bytes(exec.streams, g.tile_bytes as usize),
    };
    let dside = Side {
        pixel: sw,
        group: L * sc,
        fmt: Fmt::Elements(sc),
        ahead: ahead_bytes(exec.streams, tw * sw),
    };
    let tile_bytes = g.tile_bytes as usize;
    let digit_of = |ax| cblocked_digit(g, dims, ax);
    let rs_dst = th * sh;
    untess_parts(exec, b, dst, digit_of, slab, |part, chunk| {
        // Converts `n` rows of tiles from `f`, `step` apart (output bytes, tiles; whole
        // rows one tile row apart, or one row of several outer indices): full W tiles
        // in one grid, a partial last one in another.
        let mut convert_rows = |f: &TileRow, n: usize, step: [usize; 2]| {
            for (n_w, wt0, row) in cblocked_w_runs(g, false) {
                let grid = [
                    (n, step[1] * tile_bytes, step[0]),
                    (n_w, tile_bytes, tw * sw),
                    (f.valid[1], tw * L * S::W, sh),
                ];
                let tile = &src[(f.idx0 + wt0) * tile_bytes..];
                let out = &mut chunk[f.base + wt0 * tw * sw - part.origin..];
                convert_grid::<S, D>(exec.path, tile, sside, out, dside, row, grid);
            }
        };
        // Consecutive whole tile rows of this part are one conversion (as in CastTess):
        // a call, its extent checks and the walk per row cost more than a short row's
        // conversion (bf16[1,75,7,40] from (4,4) blocks: 38 calls).
        let follows = |(f, n): (TileRow, usize), t: &TileRow| {
            f.valid[1] == th
                && t.valid[1] == th
                && n.checked_mul(rs_dst).and_then(|x| x.checked_add(f.base)) == Some(t.base)
                && n.checked_mul(g.n_tw as usize)
                    .and_then(|x| x.checked_add(f.idx0))
                    == Some(t.idx0)
        };
        let mut batch = RowBatch::new();
        let chain = [rs_dst, g.n_tw as usize];
        let whole = |t: &TileRow| t.valid[1] == th;
        for_part_blocks(rows, &part, |b| {
            batch.push_block(b, chain, true, whole, follows, |f, n, step| {
                convert_rows(&f, n, step)
            });
        });
        batch.finish(|f, n| convert_rows(&f, n, chain));
    });
}

#[allow(clippy::too_many_arguments)]
fn untess_impl<S: Elem, D: Elem>(
    exec: &Exec,
    dims: &Dims,
    g: &Geometry,
    rows: &Option<Rows>,
    src: &[u8],
    b: &StridedGeom,
    dst: &mut [u8],
    slab: Option<std::ops::Range<usize>>,
) {
    match (g, rows) {
        (Geometry::Tiled(tg), Some(Rows::Tiled(r))) => {
            untess_tiled::<S, D>(exec, dims, tg, r, src, b, dst, slab)
        }
        (Geometry::CBlocked(cg), Some(Rows::CBlocked(r))) => {
            untess_cblocked::<S, D>(exec, dims, cg, r, src, b, dst, slab)
        }
        // Admission guarantees a tiled input; an empty one has nothing to convert.
        _ => {}
    }
}

/// CastUntess: tiled input to contiguous/strided output (padding never read). With
/// `slab`, only the tiles `slab` along [`untess_slab_axis`]'s axis, into `dst` holding
/// just their rows (the output's bytes from the slab's first row on).
#[allow(clippy::too_many_arguments)]
pub(crate) fn cast_untess(
    exec: &Exec,
    is: &TensorSpec,
    g: &Geometry,
    rows: &Option<Rows>,
    src: &[u8],
    to: DType,
    b: &StridedGeom,
    dst: &mut [u8],
    slab: Option<std::ops::Range<usize>>,
) -> Result<(), TensorError> {
    dispatch_float_pair!(
        is.dtype,
        to,
        untess_impl(exec, &is.dims, g, rows, src, b, dst, slab.clone())
    )
}
