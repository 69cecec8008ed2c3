//! Logical division: a layout split into one tile and the rest, by layout or by mode.

use super::tiler::{by_mode, by_mode_shape, ModeOp};
use super::{complement_unchecked_size, compose, compose_pair};
use crate::error::{tri, CoreError};
use crate::int_tuple::IntTuple;
use crate::Layout;

/// `divide(A, B) = A ∘ (B, complement(B, size(A)))`: mode 0 walks one tile, mode 1 the tiles.
/// A tile larger than A pads, as in CuTe: `divide(32:1, 48:1)` is `(48,1):(1,48)`.
///
/// The tile's strides must chain exactly (each a multiple of the span of the smaller
/// ones), or its complement leaves holes and the tiles would not cover A: that fails with
/// [`CoreError::Unchainable`] where CuTe returns a smaller layout.
pub const fn divide(a: &Layout, b: &Layout) -> Result<Layout, CoreError> {
    tri!(super::check_exact_chain(b));
    let c = tri!(complement_unchecked_size(b, a.size()));
    let mut bc = Layout::EMPTY;
    tri!(bc.push_mode(b));
    tri!(bc.push_mode(&c));
    compose(a, &bc)
}

/// Divides mode `i` of A by tile `i`; A's later modes are kept: `((t0,r0),(t1,r1),a2,...)`.
pub const fn divide_tiler(a: &Layout, tiles: &[Layout]) -> Result<Layout, CoreError> {
    by_mode(a, tiles, ModeOp::Divide)
}

/// [`divide_tiler`] with a shape: integer item `n` is the tile `n:1`, nested items apply
/// by mode inside the corresponding mode.
pub const fn divide_shape(a: &Layout, shape: &IntTuple) -> Result<Layout, CoreError> {
    by_mode_shape(a, shape, ModeOp::Divide)
}

/// Tile and rest parts of a by-mode division: `(tiles, rests)` as two layouts. Each mode
/// is `A_i ∘ (T_i, complement(T_i, size(A_i)))`, composed as its two halves.
const fn split_tiles(a: &Layout, tiles: &[Layout]) -> Result<(Layout, Layout), CoreError> {
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
        let ai = tri!(a.mode(i));
        tri!(super::check_exact_chain(&tiles[i]));
        let c = tri!(complement_unchecked_size(&tiles[i], ai.size()));
        let (t, r) = tri!(compose_pair(&ai, &tiles[i], &c));
        tri!(tile.push_mode(&t));
        tri!(rest.push_mode(&r));
        i += 1;
    }
    Ok((tile, rest))
}

/// `((t0,t1,...),(r0,r1,...),a_k,...)`: the tiles grouped in mode 0, the rests in mode 1,
/// then A's modes that no tile mentions (CuTe folds those into mode 1 instead; the
/// notation spec places them after it).
pub const fn zipped_divide(a: &Layout, tiles: &[Layout]) -> Result<Layout, CoreError> {
    let (tile, rest) = tri!(split_tiles(a, tiles));
    let mut r = Layout::EMPTY;
    tri!(r.push_group(&tile));
    tri!(r.push_group(&rest));
    tri!(r.push_modes(&tri!(a.modes(tiles.len(), a.rank()))));
    r.validated()
}

/// `((t0,t1,...),r0,r1,...,a_k,...)`: the tiles grouped in mode 0, then every rest mode
/// and A's untouched modes.
pub const fn tiled_divide(a: &Layout, tiles: &[Layout]) -> Result<Layout, CoreError> {
    let (tile, rest) = tri!(split_tiles(a, tiles));
    let mut r = Layout::EMPTY;
    tri!(r.push_group(&tile));
    tri!(r.push_modes(&rest));
    tri!(r.push_modes(&tri!(a.modes(tiles.len(), a.rank()))));
    r.validated()
}
