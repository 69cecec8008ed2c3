//! Products: a layout repeated over the index space another layout describes.

use super::tiler::{by_mode, ModeOp};
use super::{complement, compose, filter};
use crate::error::{tri, CoreError};
use crate::layout::mul;
use crate::Layout;

/// `(A, complement(A, size(A)*cosize(B)) ∘ B)`: mode 0 is one copy of A, mode 1 walks
/// the copies in B's order.
///
/// Fails with [`CoreError::ProductOverlap`] where CuTe's result would overlap: when
/// `size(A)*cosize(B)` does not exceed A's span, the complement has no top mode to extend and
/// room for fewer than `cosize(B)` copies of A.
pub const fn logical_product(a: &Layout, b: &Layout) -> Result<Layout, CoreError> {
    let cb = tri!(copies(a, b));
    let mut r = Layout::EMPTY;
    tri!(r.push_mode(a));
    tri!(r.push_mode(&cb));
    r.validated()
}

/// [`logical_product`] by mode: mode `i` of A with tile `i`; A's later modes kept.
pub const fn logical_product_tiler(a: &Layout, tiles: &[Layout]) -> Result<Layout, CoreError> {
    by_mode(a, tiles, ModeOp::Product)
}

/// `l` padded with `1:0` modes to rank `r` (CuTe's `append<R>`).
const fn pad_rank(l: &Layout, r: usize) -> Result<Layout, CoreError> {
    let mut out = Layout::EMPTY;
    tri!(out.push_modes(l));
    let mut k = l.rank();
    while k < r {
        tri!(out.push_leaf(1, 0));
        k += 1;
    }
    Ok(out)
}

/// The two halves of `logical_product(append<R>(A), append<R>(B))`, each of rank R.
const fn product_halves(a: &Layout, b: &Layout) -> Result<(Layout, Layout, usize), CoreError> {
    let r = if a.rank() > b.rank() {
        a.rank()
    } else {
        b.rank()
    };
    let pa = tri!(pad_rank(a, r));
    let pb = tri!(pad_rank(b, r));
    let cb = tri!(copies(&pa, &pb));
    Ok((pa, cb, r))
}

/// `complement(A, size(A)*cosize(B)) ∘ B`: where the copies of A go. As in CuTe, the
/// complement is of `filter(A)`, so broadcast modes of A take no room:
/// `logical_product(3:0, 4:1)` is `(3,4):(0,1)`.
pub(crate) const fn copies(a: &Layout, b: &Layout) -> Result<Layout, CoreError> {
    let m = tri!(mul(a.size(), b.cosize()));
    let c = tri!(complement(&filter(a), m));
    compose(&c, b)
}

/// Whether CuTe's product may put copies of A onto A: `size(A)*cosize(B)` does not exceed
/// A's span (the largest `extent * stride`), so A's complement has no top mode and
/// `C ∘ B` may run past its last gap mode. Only then is the result worth checking.
pub(crate) const fn product_may_overlap(a: &Layout, b: &Layout) -> bool {
    let m = match a.size().checked_mul(b.cosize()) {
        Some(m) => m,
        None => return false,
    };
    let mut i = 0;
    while i < a.leaf_count() {
        let s = a.leaf_extent(i);
        if s > 1 && m <= s.saturating_mul(a.leaf_stride(i)) {
            return true;
        }
        i += 1;
    }
    false
}

/// What decides whether a product of `a` by an injective `b` puts two elements in one
/// place: `None` when it cannot ([`product_may_overlap`] is false), else the layout
/// `(filter(a), copies)`, which must be injective for the product to be (broadcast modes
/// of `a` are its own and allowed). The runtime decides that layout's injectivity by its
/// bounded search, the compiler by enumeration; both report [`product_overlap`].
pub const fn product_overlap_witness(a: &Layout, b: &Layout) -> Result<Option<Layout>, CoreError> {
    let kept = filter(a);
    if !product_may_overlap(&kept, b) {
        return Ok(None);
    }
    let copies = tri!(tri!(logical_product(a, b)).mode(1));
    let mut q = kept;
    tri!(q.push_mode(&copies));
    Ok(Some(q))
}

/// The error for a product of `a` by `b` whose copies overlap: how many copies `b` asks
/// for and how many fit in `a`'s complement.
pub const fn product_overlap(a: &Layout, b: &Layout) -> CoreError {
    let room = match complement(&filter(a), a.size().saturating_mul(b.cosize())) {
        Ok(c) => c.size(),
        Err(_) => 0,
    };
    CoreError::ProductOverlap {
        copies: b.cosize(),
        room,
    }
}

/// Zips two rank-R layouts mode by mode: `((x0,y0),(x1,y1),...)`; for R = 1 (integral
/// layouts in CuTe) simply `(x,y)`.
const fn zip(x: &Layout, y: &Layout, r: usize) -> Result<Layout, CoreError> {
    let mut out = Layout::EMPTY;
    if r == 1 {
        tri!(out.push_mode(x));
        tri!(out.push_mode(y));
        return out.validated();
    }
    let mut i = 0;
    while i < r {
        let mut pair = Layout::EMPTY;
        tri!(pair.push_mode(&tri!(x.mode(i))));
        tri!(pair.push_mode(&tri!(y.mode(i))));
        tri!(out.push_group(&pair));
        i += 1;
    }
    out.validated()
}

/// Blocks of A arranged by B: mode `i` is `(A_i, B_i)`, A's elements contiguous in each
/// block (CuTe's `blocked_product`).
pub const fn blocked_product(a: &Layout, b: &Layout) -> Result<Layout, CoreError> {
    let (pa, cb, r) = tri!(product_halves(a, b));
    zip(&pa, &cb, r)
}

/// A's elements interleaved ("raked") across B's copies: mode `i` is `(B_i, A_i)`
/// (CuTe's `raked_product`).
pub const fn raked_product(a: &Layout, b: &Layout) -> Result<Layout, CoreError> {
    let (pa, cb, r) = tri!(product_halves(a, b));
    zip(&cb, &pa, r)
}

/// `tile_to_shape(block, target, order)`: copies of `block` laid out so the result has
/// `target`'s mode sizes, the copies ordered by `order` (`None`: column-major). Each
/// mode size of the (padded) block must divide the target's.
///
/// `tile_to_shape((2,2):(1,2), (4,6), none)` is `((2,2),(2,3)):((1,4),(2,8))`.
pub const fn tile_to_shape(
    block: &Layout,
    target: &crate::IntTuple,
    order: Option<&crate::IntTuple>,
) -> Result<Layout, CoreError> {
    let r = target.rank();
    if block.rank() > r {
        return Err(CoreError::TooManyTiles {
            tiles: block.rank() as u64,
            rank: r as u64,
        });
    }
    let padded = tri!(pad_rank(block, r));
    let mut counts = crate::IntTuple::EMPTY;
    let mut i = 0;
    while i < r {
        let want = match tri!(target.mode(i)).product() {
            Some(v) => v,
            None => {
                return Err(CoreError::Overflow {
                    op: '*',
                    lhs: 0,
                    rhs: 0,
                })
            }
        };
        let have = tri!(padded.mode(i)).size();
        if !want.is_multiple_of(have) {
            return Err(CoreError::NotEvenlyDivided {
                extent: want,
                tile: have,
            });
        }
        tri!(counts.push_leaf(want / have));
        i += 1;
    }
    let tiles = match order {
        Some(o) => tri!(super::make_ordered_layout(&counts, o)),
        None => tri!(Layout::compact_col_major(counts)),
    };
    blocked_product(&padded, &tiles)
}
