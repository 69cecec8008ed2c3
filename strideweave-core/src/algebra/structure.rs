//! Reshaping without changing the function (`flatten`, `group`) and the longest run two
//! layouts share (`max_common_vector`, `max_common_layout`), which copies use to move whole
//! contiguous runs at once.

use super::{coalesce, compose, right_inverse};
use crate::error::{tri, CoreError, LayoutError};
use crate::Layout;

/// Every leaf of `l` as its own top-level mode, in depth-first order (CuTe's `flatten`).
/// Same function on coordinates expanded first mode fastest.
pub const fn flatten(l: &Layout) -> Layout {
    let mut r = Layout::EMPTY;
    let mut i = 0;
    while i < l.leaf_count() {
        // cannot fail: as many leaves as `l`, no parentheses
        if r.push_leaf(l.leaf_extent(i), l.leaf_stride(i)).is_err() {
            return *l;
        }
        i += 1;
    }
    r
}

/// Modes `start..end` of `l` gathered into one nested mode; the others kept as they are
/// (CuTe's `group<B,E>`). Same function on integer keys.
pub const fn group(l: &Layout, start: usize, end: usize) -> Result<Layout, CoreError> {
    let rank = l.rank();
    if start > end || end > rank {
        return Err(CoreError::ModeOutOfRange {
            index: if start > end {
                start as u64
            } else {
                end as u64
            },
            rank: rank as u64,
        });
    }
    let mut r = tri!(l.modes(0, start));
    tri!(r.push_group(&tri!(l.modes(start, end))));
    tri!(r.push_modes(&tri!(l.modes(end, rank))));
    r.validated()
}

/// CuTe's `max_common_layout`: `inv ∘ common₀` with `inv = right_inverse(b)` and
/// `common = coalesce(a ∘ inv)`, when `common`'s first mode has stride 1; otherwise `1:0`.
/// Keys `k` of this layout, taken in order, are where both `a` and `b` step by exactly one.
pub const fn max_common_layout(a: &Layout, b: &Layout) -> Layout {
    let unit = match Layout::leaf(1, 0) {
        Ok(u) => u,
        Err(_) => Layout::EMPTY,
    };
    let inv = match right_inverse(b) {
        Ok(inv) => inv,
        Err(_) => return unit,
    };
    let common = match compose(a, &inv) {
        Ok(c) => coalesce(&c),
        Err(_) => return unit,
    };
    if common.leaf_stride(0) != 1 {
        return unit;
    }
    match Layout::leaf(common.leaf_extent(0), 1) {
        Ok(first) => match compose(&inv, &first) {
            Ok(keys) => keys,
            Err(_) => unit,
        },
        Err(_) => unit,
    }
}

/// How many elements `a` and `b` have in a common contiguous run (CuTe's
/// `max_common_vector`): the `n` such that for every `k < n`, `a` and `b` map the same
/// logical key to `a(k0) + k` and `b(k0) + k`; at least 1.
pub const fn max_common_vector(a: &Layout, b: &Layout) -> u64 {
    let inv = match right_inverse(b) {
        Ok(inv) => inv,
        Err(_) => return 1,
    };
    match compose(a, &inv) {
        Ok(c) => {
            let common = coalesce(&c);
            if common.leaf_stride(0) == 1 {
                common.leaf_extent(0)
            } else {
                1
            }
        }
        Err(_) => 1,
    }
}

impl Layout {
    /// Every leaf as a top-level mode (CuTe's `flatten`).
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,(3,4)):(1,(10,100))".parse().unwrap();
    /// assert_eq!(l.flatten().to_string(), "(2,3,4):(1,10,100)");
    /// ```
    pub fn flatten(&self) -> Layout {
        flatten(self)
    }

    /// Modes `start..end` gathered into one nested mode (CuTe's `group<B,E>`).
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,3,4,5):(1,2,6,24)".parse().unwrap();
    /// assert_eq!(l.group(1, 3).unwrap().to_string(), "(2,(3,4),5):(1,(2,6),24)");
    /// assert!(l.group(3, 5).is_err());
    /// ```
    pub fn group(&self, start: usize, end: usize) -> Result<Layout, LayoutError> {
        group(self, start, end)
            .map_err(|e| LayoutError::from_core(format!("group({self}, {start}, {end})"), e))
    }

    /// The keys where `self` and `other` both walk memory contiguously (CuTe's
    /// `max_common_layout`): a layout of keys of `other`, `1:0` when there is no such run.
    ///
    /// ```
    /// use strideweave::Layout;
    /// let a: Layout = "(4,8):(8,1)".parse().unwrap();
    /// let b: Layout = "(4,8):(8,1)".parse().unwrap();
    /// assert_eq!(a.max_common_layout(&b).to_string(), "(8,4):(4,1)");
    /// ```
    pub fn max_common_layout(&self, other: &Layout) -> Layout {
        max_common_layout(self, other)
    }

    /// The length of the longest contiguous run `self` and `other` share (CuTe's
    /// `max_common_vector`): copies move that many elements at once.
    ///
    /// ```
    /// use strideweave::Layout;
    /// let rows: Layout = "(4,8):(8,1)".parse().unwrap();
    /// let cols: Layout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(rows.max_common_vector(&rows), 32);
    /// assert_eq!(rows.max_common_vector(&cols), 1);
    /// assert_eq!(rows.max_common_vector(&"(4,8):(16,1)".parse().unwrap()), 8);
    /// ```
    pub fn max_common_vector(&self, other: &Layout) -> u64 {
        max_common_vector(self, other)
    }
}
