//! Functional composition `R(c) = A(B(c))` (CuTe's `composition`), with CuTe's
//! divisibility conditions checked at run time as well as at compile time.

use super::coalesce;
use crate::error::{tri, CoreError};
use crate::int_tuple::IntTuple;
use crate::layout::mul;
use crate::{Layout, MAX_LEAVES};

/// `A ∘ B`: B's hierarchy is kept; each rank-1 piece of B is composed with all of A.
///
/// Fails with [`CoreError::StrideDivisibility`] or [`CoreError::ShapeDivisibility`]
/// where CuTe's result would not be `A(B(i))`. Along A's last mode the result may run
/// past `size(A)`, as in CuTe (that is how padded tilings work).
///
/// A B with several leaves is composed leaf by leaf and the parts are added, which equals
/// `A(B(c))` only if the parts never carry between A's modes; where they would (e.g. a
/// non-injective B over a multi-mode A) this fails with [`CoreError::ModeOverlap`].
pub const fn compose(a: &Layout, b: &Layout) -> Result<Layout, CoreError> {
    tri!(check_no_carry(a, b));
    compose_modes(a, b)
}

/// Composition distributed over B's modes (the checks are done by [`compose`]).
const fn compose_modes(a: &Layout, b: &Layout) -> Result<Layout, CoreError> {
    if b.shape_tuple().is_scalar() {
        return compose_leaf(a, b.leaf_extent(0), b.leaf_stride(0));
    }
    let mut r = Layout::EMPTY;
    if b.rank() == 1 {
        // a single nested mode: keep the parentheses around its result
        let inner = tri!(compose_modes(a, &tri!(b.mode(0))));
        tri!(r.push_group(&inner));
        return r.validated();
    }
    let mut i = 0;
    while i < b.rank() {
        let ri = tri!(compose_modes(a, &tri!(b.mode(i))));
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
        if si.is_multiple_of(rest_stride) {
            new_s = si / rest_stride;
            rest_stride = 1;
        } else if rest_stride.is_multiple_of(si) {
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
            if rest_shape.is_multiple_of(new_s) {
                take = new_s;
                rest_shape /= new_s;
            } else if new_s.is_multiple_of(rest_shape) {
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

/// Checks that B's leaves, composed separately with A, can be added: at every mode of
/// coalesced A but the last, the largest coordinates the leaves reach must sum to less
/// than that mode's extent, or `A(x + y) != A(x) + A(y)` for some of B's values.
const fn check_no_carry(a: &Layout, b: &Layout) -> Result<(), CoreError> {
    if b.leaf_count() < 2 {
        return Ok(());
    }
    let fa = coalesce(a);
    let n = fa.leaf_count();
    if n < 2 {
        return Ok(());
    }
    let mut used = [0u64; MAX_LEAVES];
    let mut k = 0;
    while k < b.leaf_count() {
        let (s, d) = (b.leaf_extent(k), b.leaf_stride(k));
        k += 1;
        if s == 1 || d == 0 {
            continue;
        }
        let mut rest_shape = s;
        let mut rest_stride = d;
        let mut i = 0;
        while i + 1 < n && rest_shape > 1 {
            let si = fa.leaf_extent(i);
            let scale = rest_stride;
            let new_s;
            if si.is_multiple_of(rest_stride) {
                new_s = si / rest_stride;
                rest_stride = 1;
            } else if rest_stride.is_multiple_of(si) {
                new_s = 1;
                rest_stride /= si;
            } else {
                // reported by the composition itself
                return Ok(());
            }
            if new_s != 1 {
                let take = if rest_shape < new_s {
                    rest_shape
                } else {
                    new_s
                };
                rest_shape = rest_shape.div_ceil(new_s);
                // both terms are below `si`; saturating keeps the comparison exact
                used[i] = used[i].saturating_add((take - 1) * scale);
                if used[i] >= si {
                    return Err(CoreError::ModeOverlap {
                        extent: si,
                        reach: used[i],
                    });
                }
            }
            i += 1;
        }
    }
    Ok(())
}
