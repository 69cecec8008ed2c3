//! Coalesce and filter: the simplest flat layout with the same function.

use crate::{CoreError, Layout, MAX_LEAVES};

/// Flattens `l` and merges adjacent leaves `s0:d0, s1:d1` whenever `d1 == s0 * d0`,
/// dropping extent-1 leaves. The result is a rank-1 layout or a flat tuple, `1:0` when
/// nothing is left, and computes the same function as `l` on `0..size(l)`.
pub const fn coalesce(l: &Layout) -> Layout {
    let mut shapes = [0u64; MAX_LEAVES];
    let mut strides = [0u64; MAX_LEAVES];
    let mut i = 0;
    while i < l.leaf_count() {
        shapes[i] = l.leaf_extent(i);
        strides[i] = l.leaf_stride(i);
        i += 1;
    }
    match coalesce_pairs(&shapes, &strides, l.leaf_count()) {
        Ok(r) => r,
        Err(_) => *l, // cannot happen: no more leaves than `l`, same size and cosize
    }
}

/// [`coalesce`] of the flat layout `(shapes[..n]):(strides[..n])`.
pub(crate) const fn coalesce_pairs(
    shapes: &[u64; MAX_LEAVES],
    strides: &[u64; MAX_LEAVES],
    n: usize,
) -> Result<Layout, CoreError> {
    let mut out_s = [0u64; MAX_LEAVES];
    let mut out_d = [0u64; MAX_LEAVES];
    out_s[0] = 1;
    let mut m = 1;
    let mut i = 0;
    while i < n {
        let (s, d) = (shapes[i], strides[i]);
        if s == 1 {
            // an extent-1 leaf contributes nothing
        } else if out_s[m - 1] == 1 {
            out_s[m - 1] = s;
            out_d[m - 1] = d;
        } else if matches!(out_s[m - 1].checked_mul(out_d[m - 1]), Some(p) if p == d) {
            // merging contiguous leaves: the product is checked by `from_pairs`
            out_s[m - 1] = match out_s[m - 1].checked_mul(s) {
                Some(v) => v,
                None => {
                    return Err(CoreError::Overflow {
                        op: '*',
                        lhs: out_s[m - 1],
                        rhs: s,
                    })
                }
            };
        } else {
            out_s[m] = s;
            out_d[m] = d;
            m += 1;
        }
        i += 1;
    }
    super::from_pairs(&out_s, &out_d, m)
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

/// Coalesce by mode (CuTe's `coalesce(layout, profile)`): where `profile` is an integer the
/// whole (sub)layout is coalesced; where it is a tuple, mode `i` of the layout is coalesced
/// by item `i` of the profile, and modes past the profile's rank are kept as they are.
///
/// `coalesce_by((2,(1,6)):(1,(6,2)), (1,1))` is `(2,6):(1,2)`.
pub const fn coalesce_by(l: &Layout, profile: &crate::IntTuple) -> Result<Layout, CoreError> {
    if profile.is_scalar() {
        return Ok(coalesce(l));
    }
    if profile.rank() > l.rank() {
        return Err(CoreError::TooManyTiles {
            tiles: profile.rank() as u64,
            rank: l.rank() as u64,
        });
    }
    let mut r = Layout::EMPTY;
    let mut i = 0;
    while i < l.rank() {
        if i < profile.rank() {
            let m = crate::error::tri!(l.mode(i));
            let p = crate::error::tri!(profile.mode(i));
            crate::error::tri!(r.push_mode(&crate::error::tri!(coalesce_by(&m, &p))));
        } else {
            crate::error::tri!(r.push_item_of(l, i));
        }
        i += 1;
    }
    r.validated()
}
