//! Compact layouts whose modes are laid out in a chosen order (CuTe's
//! `make_ordered_layout` / `compact_order`, `make_layout_like`).

use crate::error::{tri, CoreError};
use crate::int_tuple::{IntTuple, Node};
use crate::layout::mul;
use crate::{Layout, MAX_LEAVES};

/// For each leaf of `b`, the leaf of `a` whose item covers it, when `a` is weakly
/// congruent with `b` (every leaf of `a` stands for a whole item of `b`, every tuple of `a`
/// matches a tuple of `b` of the same rank); `None` otherwise. An integer `a` covers all
/// of `b`.
pub const fn covering_leaves(a: &IntTuple, b: &IntTuple) -> Option<[usize; MAX_LEAVES]> {
    let mut cover = [0usize; MAX_LEAVES];
    if a.is_scalar() {
        return Some(cover);
    }
    let (mut an, mut bn, mut al, mut bl) = (0, 0, 0, 0);
    while an < a.node_count() {
        if bn >= b.node_count() {
            return None;
        }
        match a.node(an) {
            Node::Leaf => {
                if b.node(bn).code() == Node::Pop.code() {
                    return None; // b's tuple ends first
                }
                let (end, leaves) = b.item_extent(bn);
                let mut k = 0;
                while k < leaves {
                    cover[bl + k] = al;
                    k += 1;
                }
                bl += leaves;
                bn = end;
                al += 1;
            }
            n => {
                if b.node(bn).code() != n.code() {
                    return None;
                }
                bn += 1;
            }
        }
        an += 1;
    }
    if bn == b.node_count() {
        Some(cover)
    } else {
        None
    }
}

/// A compact layout of `shape` whose items are laid out in increasing `order` (ties left
/// to right); `order` is weakly congruent with `shape`, one value per leaf or per item,
/// and an item with one order value is column-major inside.
///
/// `make_ordered_layout((2,2,2,2), (0,2,3,1))` is `(2,2,2,2):(1,4,8,2)`.
pub const fn make_ordered_layout(shape: &IntTuple, order: &IntTuple) -> Result<Layout, CoreError> {
    let cover = match covering_leaves(order, shape) {
        Some(c) => c,
        None => return Err(CoreError::ProfileMismatch),
    };
    let k = order.leaf_count();
    // the size of each order leaf's item
    let mut sizes = [1u64; MAX_LEAVES];
    let mut i = 0;
    while i < shape.leaf_count() {
        sizes[cover[i]] = tri!(mul(sizes[cover[i]], shape.leaf(i)));
        i += 1;
    }
    // rank the order leaves by (value, position) and give each its base stride
    let mut ranked = [0usize; MAX_LEAVES];
    let mut j = 0;
    while j < k {
        ranked[j] = j;
        j += 1;
    }
    let mut a = 1;
    while a < k {
        let mut b = a;
        while b > 0 && order.leaf(ranked[b - 1]) > order.leaf(ranked[b]) {
            let t = ranked[b - 1];
            ranked[b - 1] = ranked[b];
            ranked[b] = t;
            b -= 1;
        }
        a += 1;
    }
    let mut base = [0u64; MAX_LEAVES];
    let mut acc: u64 = 1;
    j = 0;
    while j < k {
        base[ranked[j]] = acc;
        acc = tri!(mul(acc, sizes[ranked[j]]));
        j += 1;
    }
    let mut stride = *shape;
    i = 0;
    while i < shape.leaf_count() {
        stride.set_leaf(i, base[cover[i]]);
        base[cover[i]] = tri!(mul(base[cover[i]], shape.leaf(i)));
        i += 1;
    }
    Layout::from_trees(*shape, stride)
}

/// A compact layout with `l`'s shape whose leaves are laid out in the order of `l`'s
/// strides (ties left to right); stride-0 leaves stay stride 0 and take no room.
///
/// `make_layout_like((2,2,2,2):(0,2,4,1))` is `(2,2,2,2):(0,2,4,1)`.
pub const fn make_layout_like(l: &Layout) -> Result<Layout, CoreError> {
    let n = l.leaf_count();
    let mut order = [0usize; MAX_LEAVES];
    let mut i = 0;
    while i < n {
        order[i] = i;
        i += 1;
    }
    // stable insertion sort by stride: equal strides keep their left-to-right order
    let mut a = 1;
    while a < n {
        let mut b = a;
        while b > 0 && l.leaf_stride(order[b - 1]) > l.leaf_stride(order[b]) {
            let t = order[b - 1];
            order[b - 1] = order[b];
            order[b] = t;
            b -= 1;
        }
        a += 1;
    }
    let mut strides = [0u64; MAX_LEAVES];
    let mut acc: u64 = 1;
    let mut k = 0;
    while k < n {
        let leaf = order[k];
        if l.leaf_stride(leaf) != 0 {
            strides[leaf] = acc;
            acc = tri!(mul(acc, l.leaf_extent(leaf)));
        }
        k += 1;
    }
    let mut stride = *l.stride_tuple();
    i = 0;
    while i < n {
        stride.set_leaf(i, strides[i]);
        i += 1;
    }
    Layout::from_trees(*l.shape_tuple(), stride)
}
