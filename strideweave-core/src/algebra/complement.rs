//! Complement: the layout of the index factors a layout leaves out, up to a cotarget.

use super::coalesce::coalesce_pairs;
use super::injective_candidates;
use crate::error::{tri, CoreError};
use crate::{Layout, MAX_LEAVES};

/// `complement(L, M)`: a layout `C` such that `(L, C)` is injective, `C` is increasing, and
/// (when every stride of L is a multiple of the span below it) `(L, C)` covers `[0, M)`,
/// rounded up to a whole number of L's spans.
///
/// Fails when L is not injective ([`CoreError::NotInjective`] for broadcast modes,
/// [`CoreError::Unchainable`] when a stride lies inside the span of the smaller ones, which
/// the runtime method refines), when `size(L) > M`, or when `M == 0`.
pub const fn complement(l: &Layout, cotarget: u64) -> Result<Layout, CoreError> {
    if cotarget == 0 || l.size() > cotarget {
        return Err(CoreError::CotargetTooSmall {
            size: l.size(),
            cotarget,
        });
    }
    complement_of_chain(l, cotarget)
}

/// [`complement`] without the `size(L) <= M` check, as division uses it: a tile larger
/// than the layout leaves a complement of one padded tile, `1:span(L)`, where the next
/// tile would start (`divide(2:1, 32:1)` is `(32,1):(1,32)`, as in CuTe).
pub const fn complement_unchecked_size(l: &Layout, cotarget: u64) -> Result<Layout, CoreError> {
    let c = tri!(complement_of_chain(l, cotarget));
    if l.size() > cotarget && c.size() == 1 {
        return Layout::leaf(1, l.cosize());
    }
    Ok(c)
}

/// Where `l`'s stride chain ends and how many elements its gaps hold: `(gaps, span)`, the
/// product of the complement's gap extents and the stride of its last mode (C++ CuTe's
/// final `new_stride`), so `complement(l, M)` ends with `ceil_div(M, span)` copies of the
/// span. The same checks as [`complement`] (injective, strides that chain); `(1, 1)` for a
/// layout with no leaf of extent above 1.
pub const fn complement_span(l: &Layout) -> Result<(u64, u64), CoreError> {
    let (order, n) = tri!(injective_candidates(l));
    let (mut gaps, mut span) = (1u64, 1u64);
    let mut k = 0;
    while k < n {
        let (s, d) = (l.leaf_extent(order[k]), l.leaf_stride(order[k]));
        if d < span {
            return Err(CoreError::Unchainable { stride: d, span });
        }
        gaps = tri!(crate::layout::mul(gaps, d / span));
        span = tri!(crate::layout::mul(s, d));
        k += 1;
    }
    Ok((gaps, span))
}

/// The gaps between L's sorted leaves, then the mode up to the cotarget.
const fn complement_of_chain(l: &Layout, cotarget: u64) -> Result<Layout, CoreError> {
    let (order, n) = tri!(injective_candidates(l));
    let mut shapes = [0u64; MAX_LEAVES];
    let mut strides = [0u64; MAX_LEAVES];
    // the span so far; u128 because the last span may exceed u64 (then the final
    // mode has extent 1 and is dropped)
    let mut current: u128 = 1;
    let mut len = 0;
    let mut k = 0;
    while k < n {
        let (s, d) = (l.leaf_extent(order[k]), l.leaf_stride(order[k]));
        if (d as u128) < current {
            return Err(CoreError::Unchainable {
                stride: d,
                span: if current > u64::MAX as u128 {
                    u64::MAX
                } else {
                    current as u64
                },
            });
        }
        // the gap below this leaf; extent-1 gaps are left out here rather than by the
        // final coalesce, so a chain of MAX_LEAVES leaves still fits
        let gap = d / current as u64;
        if gap != 1 {
            if len == MAX_LEAVES {
                return Err(CoreError::TooManyLeaves);
            }
            shapes[len] = gap;
            strides[len] = current as u64;
            len += 1;
        }
        current = s as u128 * d as u128;
        k += 1;
    }
    if current <= u64::MAX as u128 {
        let last = cotarget.div_ceil(current as u64);
        if last != 1 {
            if len == MAX_LEAVES {
                return Err(CoreError::TooManyLeaves);
            }
            shapes[len] = last;
            strides[len] = current as u64;
            len += 1;
        }
    }
    coalesce_pairs(&shapes, &strides, len)
}
