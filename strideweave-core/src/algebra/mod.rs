//! The layout algebra as `const fn`s over [`Layout`]: one implementation
//! shared by runtime layouts (through the methods on `Layout`) and static layouts
//! (evaluated by the compiler in associated consts).
//!
//! Each function returns [`CoreError`] on failure; the runtime methods add
//! the layouts involved to the message.

mod arrange;
mod coalesce;
mod complement;
mod compose;
mod divide;
mod inverse;
mod nullspace;
mod ordered;
mod product;
mod recast;
mod structure;
mod tiler;
pub(crate) use tiler::{by_mode_keeping, ModeOp};

pub use arrange::{arrange_by_mode, arrange_pair, Arrangement};
pub use coalesce::{coalesce, coalesce_by, filter};
pub use complement::{complement, complement_span, complement_unchecked_size};
pub(crate) use compose::compose_pair;
pub use compose::{can_compose, compose, compose_leaf, compose_shape, compose_tiler};
pub use divide::{divide, divide_shape, divide_tiler, tiled_divide, zipped_divide};
pub use inverse::{left_inverse, right_inverse};
pub use nullspace::nullspace;
pub use ordered::{covering_leaves, make_layout_like, make_ordered_layout};
pub use product::{
    blocked_product, logical_product, logical_product_tiler, product_overlap,
    product_overlap_witness, raked_product, tile_to_shape,
};
pub(crate) use recast::gcd;
pub use recast::{downcast, recast_layout, upcast};
pub use structure::{flatten, group, max_common_layout, max_common_vector};

use crate::error::{tri, CoreError};
use crate::layout::mul;
use crate::Layout;

/// Sorts the index array `order[..n]` by the strides of `l`'s leaves exactly as CuTe's
/// `SortByKey` does (an exchange sort on the stride alone), so that leaves of equal stride
/// come out in CuTe's order and the inverses pick the same leaves as CuTe.
pub(crate) const fn sort_leaves_by_stride(
    l: &Layout,
    order: &mut [usize; crate::MAX_LEAVES],
    n: usize,
) {
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n {
            if l.leaf_stride(order[j]) < l.leaf_stride(order[i]) {
                let t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            j += 1;
        }
        i += 1;
    }
}

/// The leaves of extent > 1, sorted by `(stride, extent)`: what complement and the
/// inverses chain through. A broadcast leaf (stride 0, extent > 1) makes the layout
/// non-injective.
pub(crate) const fn injective_candidates(
    l: &Layout,
) -> Result<([usize; crate::MAX_LEAVES], usize), CoreError> {
    let mut order = [0usize; crate::MAX_LEAVES];
    let mut n = 0;
    let mut i = 0;
    while i < l.leaf_count() {
        if l.leaf_extent(i) != 1 {
            if l.leaf_stride(i) == 0 {
                return Err(CoreError::NotInjective);
            }
            order[n] = i;
            n += 1;
        }
        i += 1;
    }
    sort_leaves_by_stride(l, &mut order, n);
    Ok((order, n))
}

/// A layout from flat `(extent, stride)` pairs: a single pair gives a rank-1 layout.
pub(crate) const fn from_pairs(
    shapes: &[u64; crate::MAX_LEAVES],
    strides: &[u64; crate::MAX_LEAVES],
    n: usize,
) -> Result<Layout, CoreError> {
    let mut r = Layout::EMPTY;
    let mut i = 0;
    while i < n {
        crate::error::tri!(r.push_leaf(shapes[i], strides[i]));
        i += 1;
    }
    r.validated()
}

/// Every sorted non-trivial stride is a multiple of the span of the smaller ones.
pub(crate) const fn check_exact_chain(l: &Layout) -> Result<(), CoreError> {
    let (order, n) = tri!(injective_candidates(l));
    let mut current: u64 = 1;
    let mut k = 0;
    while k < n {
        let (s, d) = (l.leaf_extent(order[k]), l.leaf_stride(order[k]));
        if d < current || !d.is_multiple_of(current) {
            return Err(CoreError::Unchainable {
                stride: d,
                span: current,
            });
        }
        current = tri!(mul(s, d));
        k += 1;
    }
    Ok(())
}
