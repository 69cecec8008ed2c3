//! Functional composition `R(c) = A(B(c))` (CuTe's `composition`), with CuTe's
//! divisibility conditions checked at run time as well as at compile time.

use super::coalesce;
use crate::error::{tri, CoreError};
use crate::int_tuple::IntTuple;
use crate::layout::mul;
use crate::Layout;

/// `A ∘ B`: B's hierarchy is kept; each rank-1 piece of B is composed with all of A.
///
/// Fails with [`CoreError::StrideDivisibility`] or [`CoreError::ShapeDivisibility`]
/// where CuTe's result would not be `A(B(i))`. Along A's last mode the result may run
/// past `size(A)`, as in CuTe (that is how padded tilings work).
pub const fn compose(a: &Layout, b: &Layout) -> Result<Layout, CoreError> {
    if b.shape_tuple().is_scalar() {
        return compose_leaf(a, b.leaf_extent(0), b.leaf_stride(0));
    }
    let mut r = Layout::EMPTY;
    if b.rank() == 1 {
        // a single nested mode: keep the parentheses around its result
        let inner = tri!(compose(a, &tri!(b.mode(0))));
        tri!(r.push_group(&inner));
        return r.validated();
    }
    let mut i = 0;
    while i < b.rank() {
        let ri = tri!(compose(a, &tri!(b.mode(i))));
        tri!(r.push_mode(&ri));
        i += 1;
    }
    r.validated()
}

/// Whether [`compose`] admits `A ∘ B` (CuTe's stride and shape divisibility conditions,
/// plus the result fitting in `u64`), without building the result's message.
pub const fn can_compose(a: &Layout, b: &Layout) -> Result<(), CoreError> {
    match compose(a, b) {
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

/// `A ∘ (s:d)` for one integer mode of B.
pub const fn compose_leaf(a: &Layout, s: u64, d: u64) -> Result<Layout, CoreError> {
    if s == 1 {
        return Layout::leaf(1, 0);
    }
    if d == 0 {
        return Layout::leaf(s, 0);
    }
    let fa = coalesce(a);
    let n = fa.leaf_count();
    if n == 1 {
        return Layout::leaf(s, tri!(mul(d, fa.leaf_stride(0))));
    }
    let mut r = Layout::EMPTY;
    let mut rest_shape = s;
    let mut rest_stride = d;
    let mut i = 0;
    while i + 1 < n {
        let (si, di) = (fa.leaf_extent(i), fa.leaf_stride(i));
        // divide the remaining stride out of this extent
        let new_s;
        let scale = rest_stride;
        if si % rest_stride == 0 {
            new_s = si / rest_stride;
            rest_stride = 1;
        } else if rest_stride % si == 0 {
            new_s = 1;
            rest_stride /= si;
        } else {
            return Err(CoreError::StrideDivisibility {
                extent: si,
                stride: rest_stride,
            });
        }
        // take what is left of B's extent from this mode
        if new_s != 1 {
            let take;
            if rest_shape % new_s == 0 {
                take = new_s;
                rest_shape /= new_s;
            } else if new_s % rest_shape == 0 {
                take = rest_shape;
                rest_shape = 1;
            } else {
                return Err(CoreError::ShapeDivisibility {
                    extent: new_s,
                    rest: rest_shape,
                });
            }
            if take != 1 {
                tri!(r.push_leaf(take, tri!(mul(di, scale))));
            }
        }
        i += 1;
    }
    if rest_shape != 1 || r.leaf_count() == 0 {
        let last = tri!(mul(rest_stride, fa.leaf_stride(n - 1)));
        tri!(r.push_leaf(rest_shape, last));
    }
    r.validated()
}

/// `A ∘ [T0, T1, ...]`: tile `Ti` composed with mode `i` of A; A's later modes kept.
pub const fn compose_tiler(a: &Layout, tiles: &[Layout]) -> Result<Layout, CoreError> {
    let rank = a.rank();
    if tiles.len() > rank {
        return Err(CoreError::TooManyTiles {
            tiles: tiles.len() as u64,
            rank: rank as u64,
        });
    }
    let mut r = Layout::EMPTY;
    let mut i = 0;
    while i < rank {
        let ai = tri!(a.mode(i));
        if i < tiles.len() {
            tri!(r.push_mode(&tri!(compose(&ai, &tiles[i]))));
        } else {
            tri!(r.push_mode(&ai));
        }
        i += 1;
    }
    r.validated()
}

/// `A ∘ SHAPE`: each integer item `n` of the shape is the unit-stride tile `n:1` for the
/// corresponding mode of A, a nested item applies by mode inside it; A's later modes kept.
pub const fn compose_shape(a: &Layout, shape: &IntTuple) -> Result<Layout, CoreError> {
    let rank = a.rank();
    let tiles = shape.rank();
    if tiles > rank {
        return Err(CoreError::TooManyTiles {
            tiles: tiles as u64,
            rank: rank as u64,
        });
    }
    let mut r = Layout::EMPTY;
    let mut i = 0;
    while i < rank {
        let ai = tri!(a.mode(i));
        if i < tiles {
            let ti = tri!(shape.mode(i));
            let ri = if ti.is_scalar() {
                tri!(compose_leaf(&ai, ti.leaf(0), 1))
            } else {
                tri!(compose_shape(&ai, &ti))
            };
            tri!(r.push_mode(&ri));
        } else {
            tri!(r.push_mode(&ai));
        }
        i += 1;
    }
    r.validated()
}
