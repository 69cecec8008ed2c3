//! Reinterpreting a layout of one element width as a layout of another (CuTe's `upcast`,
//! `downcast`, `recast_layout`): the same bytes, counted in wider or narrower elements.

use crate::error::{tri, CoreError};
use crate::layout::mul;
use crate::Layout;

/// The layout of elements `n` times wider: stride-1 leaves hold `n` times fewer elements
/// (rounded up), other strides shrink by `n`; stride-0 leaves are kept. Each non-zero
/// stride and `n` must divide one another.
///
/// `upcast((4,8):(1,4), 2)` is `(2,8):(1,2)`.
pub const fn upcast(l: &Layout, n: u64) -> Result<Layout, CoreError> {
    if n == 0 {
        return Err(CoreError::ZeroExtent);
    }
    let mut shape = *l.shape_tuple();
    let mut stride = *l.stride_tuple();
    let mut i = 0;
    while i < l.leaf_count() {
        let (s, d) = (l.leaf_extent(i), l.leaf_stride(i));
        if d != 0 {
            if !d.is_multiple_of(n) && !n.is_multiple_of(d) {
                return Err(CoreError::RecastDivisibility {
                    stride: d,
                    factor: n,
                });
            }
            shape.set_leaf(i, s.div_ceil(n.div_ceil(d)));
            stride.set_leaf(i, d.div_ceil(n));
        }
        i += 1;
    }
    Layout::from_trees(shape, stride)
}

/// The layout of elements `n` times narrower: stride-1 leaves hold `n` times more
/// elements, other strides grow by `n`. The layout needs a stride-1 leaf.
///
/// `downcast((2,8):(1,2), 2)` is `(4,8):(1,4)`.
pub const fn downcast(l: &Layout, n: u64) -> Result<Layout, CoreError> {
    if n == 0 {
        return Err(CoreError::ZeroExtent);
    }
    let mut shape = *l.shape_tuple();
    let mut stride = *l.stride_tuple();
    let mut unit = false;
    let mut i = 0;
    while i < l.leaf_count() {
        let (s, d) = (l.leaf_extent(i), l.leaf_stride(i));
        if d == 1 {
            unit = true;
            shape.set_leaf(i, tri!(mul(s, n)));
        } else {
            stride.set_leaf(i, tri!(mul(d, n)));
        }
        i += 1;
    }
    if !unit {
        return Err(CoreError::NoUnitStride);
    }
    Layout::from_trees(shape, stride)
}

/// `l`, whose elements are `old_bits` wide, as a layout of `new_bits`-wide elements:
/// with `new/old = p/q` in lowest terms, `downcast(upcast(l, p), q)`.
///
/// `recast_layout((4,8):(1,4), 16, 32)` is `(2,8):(1,2)`.
pub const fn recast_layout(l: &Layout, old_bits: u64, new_bits: u64) -> Result<Layout, CoreError> {
    if old_bits == 0 || new_bits == 0 {
        return Err(CoreError::ZeroExtent);
    }
    let g = gcd(old_bits, new_bits);
    let (up, down) = (new_bits / g, old_bits / g);
    let wide = if up == 1 { *l } else { tri!(upcast(l, up)) };
    if down == 1 {
        Ok(wide)
    } else {
        downcast(&wide, down)
    }
}

/// Greatest common divisor.
pub(crate) const fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}
