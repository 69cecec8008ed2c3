//! The kernel of a layout: the coordinates it sends to index 0 (CuTe's `nullspace`).

use crate::error::{tri, CoreError};
use crate::Layout;

/// A layout into `l`'s domain (integer keys, first mode fastest) that walks exactly the
/// stride-0 leaves of `coalesce(l)`, so `l(nullspace(l)(i)) == 0` for every `i`; `1:0`
/// when `l` has no stride-0 leaf of extent above 1. As in CuTe, `l` is coalesced first
/// (it has the same integer keys), so adjacent stride-0 leaves are one mode:
/// `nullspace((2,2,2):(0,0,0))` is `8:1`, and `nullspace(nullspace(l))` is `1:0`.
///
/// `nullspace((2,4,3):(0,1,0))` is `(2,3):(1,8)`.
pub const fn nullspace(l: &Layout) -> Result<Layout, CoreError> {
    let l = &super::coalesce(l);
    let mut r = Layout::EMPTY;
    let mut prefix: u64 = 1; // below size(l), which fits
    let mut i = 0;
    while i < l.leaf_count() {
        let s = l.leaf_extent(i);
        if l.leaf_stride(i) == 0 && s != 1 {
            tri!(r.push_leaf(s, prefix));
        }
        prefix = prefix.saturating_mul(s);
        i += 1;
    }
    if r.leaf_count() == 0 {
        return Layout::leaf(1, 0);
    }
    r.validated()
}
