//! By-mode application of an operation: tile `i` of a tiler acts on mode `i` of A, and
//! A's later modes are copied exactly (CuTe's tuple-of-layouts convention).

use super::{compose, divide, logical_product};
use crate::error::{tri, CoreError};
use crate::int_tuple::IntTuple;
use crate::Layout;

/// The operation a tiler applies to each of A's leading modes.
#[derive(Clone, Copy)]
pub(crate) enum ModeOp {
    Compose,
    Divide,
    Product,
}

const fn apply(op: ModeOp, a: &Layout, tile: &Layout) -> Result<Layout, CoreError> {
    match op {
        ModeOp::Compose => compose(a, tile),
        ModeOp::Divide => divide(a, tile),
        ModeOp::Product => logical_product(a, tile),
    }
}

const fn check_rank(tiles: usize, a: &Layout) -> Result<(), CoreError> {
    if tiles > a.rank() {
        return Err(CoreError::TooManyTiles {
            tiles: tiles as u64,
            rank: a.rank() as u64,
        });
    }
    Ok(())
}

/// `op(A_i, T_i)` for each tile, then A's untouched modes.
pub(crate) const fn by_mode(a: &Layout, tiles: &[Layout], op: ModeOp) -> Result<Layout, CoreError> {
    by_mode_keeping(a, tiles, 0, op)
}

/// [`by_mode`] where bit `i` of `keep` marks tile `i` as CuTe's `_`: mode `i` of A is kept
/// as it is.
pub(crate) const fn by_mode_keeping(
    a: &Layout,
    tiles: &[Layout],
    keep: u32,
    op: ModeOp,
) -> Result<Layout, CoreError> {
    tri!(check_rank(tiles.len(), a));
    let mut r = Layout::EMPTY;
    let mut i = 0;
    while i < a.rank() {
        if i < tiles.len() && i < 32 && keep & (1 << i) != 0 {
            tri!(r.push_item_of(a, i));
        } else if i < tiles.len() {
            tri!(r.push_mode(&tri!(apply(op, &tri!(a.mode(i)), &tiles[i]))));
        } else {
            // an untouched mode is copied exactly, parentheses and all
            tri!(r.push_item_of(a, i));
        }
        i += 1;
    }
    r.validated()
}

/// [`by_mode`] with a shape tiler: integer item `n` is the tile `n:1`, a nested item
/// applies by mode inside the corresponding mode of A.
pub(crate) const fn by_mode_shape(
    a: &Layout,
    shape: &IntTuple,
    op: ModeOp,
) -> Result<Layout, CoreError> {
    tri!(check_rank(shape.rank(), a));
    let mut r = Layout::EMPTY;
    let mut i = 0;
    while i < a.rank() {
        if i < shape.rank() {
            let ai = tri!(a.mode(i));
            let ti = tri!(shape.mode(i));
            let ri = if ti.is_scalar() {
                tri!(apply(op, &ai, &tri!(Layout::leaf(ti.leaf(0), 1))))
            } else {
                tri!(by_mode_shape(&ai, &ti, op))
            };
            tri!(r.push_mode(&ri));
        } else {
            tri!(r.push_item_of(a, i));
        }
        i += 1;
    }
    r.validated()
}
