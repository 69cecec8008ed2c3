//! Right and left inverses (CuTe's `right_inverse`, `left_inverse`).

use super::coalesce::coalesce_pairs;
use super::{check_exact_chain, complement_unchecked_size, sort_leaves_by_stride};
use crate::error::{tri, CoreError};
use crate::layout::mul;
use crate::{Layout, MAX_LEAVES};

/// The largest `R` built from L's leaves with `L(R(i)) == i` for every `i < size(R)`:
/// follows the chain of strides `1, s0*d0, ...` through L's sorted leaves, skipping
/// broadcast (stride-0) leaves.
pub const fn right_inverse(l: &Layout) -> Result<Layout, CoreError> {
    let n = l.leaf_count();
    let mut order = [0usize; MAX_LEAVES];
    let mut prefix = [0u64; MAX_LEAVES];
    let mut acc: u64 = 1;
    let mut i = 0;
    while i < n {
        order[i] = i;
        prefix[i] = acc;
        acc = tri!(mul(acc, l.leaf_extent(i)));
        i += 1;
    }
    sort_leaves_by_stride(l, &mut order, n);
    let mut shapes = [0u64; MAX_LEAVES];
    let mut strides = [0u64; MAX_LEAVES];
    let mut m = 0;
    let mut current: u64 = 1;
    let mut k = 0;
    while k < n {
        let (s, d) = (l.leaf_extent(order[k]), l.leaf_stride(order[k]));
        // extent-1 and stride-0 leaves add nothing to the image: skip them, as CuTe does
        if s != 1 && d != 0 {
            if d != current {
                break;
            }
            shapes[m] = s;
            strides[m] = prefix[order[k]];
            m += 1;
            current = tri!(mul(s, d));
        }
        k += 1;
    }
    coalesce_pairs(&shapes, &strides, m)
}

/// `R` with `R(L(i)) == i` for every `i < size(L)`.
///
/// CuTe builds it as `right_inverse((L, complement(L)))`, which is a full left inverse
/// only when L's sorted strides chain exactly (each a multiple of the span below it); for
/// any other L this fails ([`CoreError::NotInjective`] or [`CoreError::Unchainable`])
/// instead of returning CuTe's partial inverse.
pub const fn left_inverse(l: &Layout) -> Result<Layout, CoreError> {
    tri!(check_exact_chain(l));
    let c = tri!(complement_unchecked_size(l, 1));
    let mut lc = Layout::EMPTY;
    tri!(lc.push_mode(l));
    tri!(lc.push_mode(&c));
    right_inverse(&lc)
}
