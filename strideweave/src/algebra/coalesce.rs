//! Coalesce and filter: the simplest flat layout with the same function.

use crate::{Layout, MAX_LEAVES};

/// Flattens `l` and merges adjacent leaves `s0:d0, s1:d1` whenever `d1 == s0 * d0`,
/// dropping extent-1 leaves. The result is a rank-1 layout or a flat tuple, `1:0` when
/// nothing is left, and computes the same function as `l` on `0..size(l)`.
pub const fn coalesce(l: &Layout) -> Layout {
    let mut shapes = [0u64; MAX_LEAVES];
    let mut strides = [0u64; MAX_LEAVES];
    shapes[0] = 1;
    let mut n = 1;
    let mut i = 0;
    while i < l.leaf_count() {
        let (s, d) = (l.leaf_extent(i), l.leaf_stride(i));
        if s == 1 {
            // an extent-1 leaf contributes nothing
        } else if shapes[n - 1] == 1 {
            shapes[n - 1] = s;
            strides[n - 1] = d;
        } else if matches!(shapes[n - 1].checked_mul(strides[n - 1]), Some(p) if p == d) {
            // the merged extent is bounded by the layout's size
            shapes[n - 1] *= s;
        } else {
            shapes[n] = s;
            strides[n] = d;
            n += 1;
        }
        i += 1;
    }
    // cannot fail: no more leaves than `l`, same size and cosize
    match super::from_pairs(&shapes, &strides, n) {
        Ok(r) => r,
        Err(_) => *l,
    }
}

/// Like [`coalesce`], but also drops stride-0 leaves: the result keeps the image of `l`
/// and forgets broadcast modes. An all-broadcast layout filters to `1:0`.
pub const fn filter(l: &Layout) -> Layout {
    let mut r = Layout::EMPTY;
    let mut i = 0;
    while i < l.leaf_count() {
        let (s, d) = (l.leaf_extent(i), l.leaf_stride(i));
        // cannot fail: fewer leaves than `l`
        if s != 1 && d != 0 && r.push_leaf(s, d).is_err() {
            return coalesce(l);
        }
        i += 1;
    }
    coalesce(&r)
}
