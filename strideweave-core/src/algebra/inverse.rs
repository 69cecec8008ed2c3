//! Right and left inverses (CuTe's `right_inverse`, `left_inverse`).

use super::coalesce::coalesce;
use super::coalesce::coalesce_pairs;
use super::sort_leaves_by_stride;
use crate::error::{tri, CoreError};
use crate::layout::mul;
use crate::{Layout, MAX_LEAVES};

/// CuTe's right inverse: `R` with `L(R(i)) == i` for every `i < size(R)`, built from the
/// leaves of L that continue the chain of strides `1, s0*d0, ...` in stride order. A leaf
/// whose stride does not continue the chain (a broadcast leaf, or one overlapping a
/// smaller leaf) is left out and the chain goes on with the next: R only sets coordinates
/// of chained leaves, so it stays exact, and it is as large as CuTe's
/// (`right_inverse(((2,4),(3,5)):((4,1),(2,8)))` is `(4,2,5):(2,1,24)`). Like CuTe it
/// works on `coalesce(L)`, whose leaves start where L's merged leaves start.
pub const fn right_inverse(layout: &Layout) -> Result<Layout, CoreError> {
    let l = &coalesce(layout);
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
        // extent-1 leaves add nothing; a leaf off the chain is skipped, as CuTe does
        if s != 1 && d == current {
            shapes[m] = s;
            strides[m] = prefix[order[k]];
            m += 1;
            current = tri!(mul(s, d));
        }
        k += 1;
    }
    coalesce_pairs(&shapes, &strides, m)
}

/// CuTe's left (quasi-)inverse: `R` with `L(R(L(i))) == L(i)` for every `i < size(L)`,
/// hence `R(L(i)) == i` when L is injective.
///
/// With L's non-zero strides sorted, `d0 < d1 < ...`, R reads an index in the mixed radix
/// `(d0, d1/d0, d2/d1, ..., last extent)` and sends digit `j` to where leaf `j` starts in
/// L's domain. That is exact when every stride is a multiple of the one below it and
/// every leaf ends below the next stride (`s_j*d_j <= d_{j+1}`), which holds for every
/// injective layout that passes CuTe's divisibility condition and need not chain
/// (`left_inverse((4,2):(1,5))` is `(5,2):(1,4)`). Broadcast leaves are skipped
/// (`left_inverse(4:0)` is `4:0`). Otherwise this fails:
/// [`CoreError::LeftInverseDivisibility`] where CuTe's static check fails, and
/// [`CoreError::Unchainable`] where leaves overlap (then CuTe's result is wrong).
pub const fn left_inverse(l: &Layout) -> Result<Layout, CoreError> {
    let c = coalesce(l);
    let n = c.leaf_count();
    let mut prefix = [0u64; MAX_LEAVES];
    let mut order = [0usize; MAX_LEAVES];
    let mut acc: u64 = 1;
    let mut i = 0;
    while i < n {
        order[i] = i;
        prefix[i] = acc;
        acc = acc.saturating_mul(c.leaf_extent(i)); // the last product is never read
        i += 1;
    }
    sort_leaves_by_stride(&c, &mut order, n);
    let mut shapes = [0u64; MAX_LEAVES];
    let mut strides = [0u64; MAX_LEAVES];
    let mut m = 0; // shapes so far; strides[0] is the 0 of the digits below d0
    let mut below: u64 = 1; // the previous stride
    let mut span: u128 = 1; // where the previous leaf ends
    let mut k = 0;
    while k < n {
        let (s, d) = (c.leaf_extent(order[k]), c.leaf_stride(order[k]));
        k += 1;
        if d == 0 {
            continue;
        }
        if !d.is_multiple_of(below) {
            return Err(CoreError::LeftInverseDivisibility {
                stride: d,
                previous: below,
            });
        }
        if (d as u128) < span {
            return Err(CoreError::Unchainable {
                stride: d,
                span: if span > u64::MAX as u128 {
                    u64::MAX
                } else {
                    span as u64
                },
            });
        }
        if m + 1 >= MAX_LEAVES {
            return Err(CoreError::TooManyLeaves);
        }
        shapes[m] = d / below;
        strides[m + 1] = prefix[order[k - 1]];
        m += 1;
        below = d;
        span = s as u128 * d as u128;
    }
    shapes[m] = if n == 0 {
        1
    } else {
        c.leaf_extent(order[n - 1])
    };
    coalesce_pairs(&shapes, &strides, m + 1)
}
