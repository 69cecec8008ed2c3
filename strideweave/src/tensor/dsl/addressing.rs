//! [`TensorLayout`]: what a tensor needs from its layout, for runtime [`Layout`]s and for
//! every [`StaticLayout`] (whose answers are compile-time constants).

use crate::{Layout, StaticLayout, MAX_LEAVES};
use std::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Layout {}
    impl Sealed for &crate::Layout {}
    impl<L: crate::StaticLayout> Sealed for L {}
}

/// A layout a [`Tensor`](super::Tensor) can address with: a runtime [`Layout`] or any
/// [`StaticLayout`]. For static layouts every method reads compile-time constants, so
/// a loop over keys folds to the arithmetic one would write by hand.
///
/// ```
/// use strideweave::{layout, Layout};
/// use strideweave::tensor::TensorLayout;
/// let s = layout!((4,4):(4,1));
/// let r: Layout = "(4,4):(4,1)".parse().unwrap();
/// assert_eq!((s.size(), s.cosize(), s.offset(5)), (16, 16, 4 + 1));
/// assert_eq!(r.offset(5), s.offset(5));
/// ```
///
/// The trait is sealed: tensors index their data without bounds checks on the strength
/// of these answers, so only the library's own layouts implement it.
pub trait TensorLayout: Copy + sealed::Sealed {
    /// The layout, when it is known at compile time (`None` for a runtime [`Layout`]).
    const STATIC: Option<Layout>;
    /// The layout as a runtime value.
    fn runtime(&self) -> Layout;
    /// Number of logical elements.
    fn size(&self) -> u64;
    /// One plus the largest offset: how many elements the data must hold.
    fn cosize(&self) -> u64;
    /// Whether this layout is `other` (without copying either).
    fn same_as(&self, other: &Layout) -> bool {
        self.runtime() == *other
    }
    /// Offset of integer key `key` (first mode fastest). For `key >= size` the result is
    /// unspecified but still below `cosize` (tensors check keys before calling this).
    fn offset(&self, key: u64) -> u64;
}

impl TensorLayout for Layout {
    const STATIC: Option<Layout> = None;
    #[inline]
    fn same_as(&self, other: &Layout) -> bool {
        self == other
    }
    #[inline]
    fn runtime(&self) -> Layout {
        *self
    }
    #[inline]
    fn size(&self) -> u64 {
        Layout::size(self)
    }
    #[inline]
    fn cosize(&self) -> u64 {
        Layout::cosize(self)
    }
    #[inline]
    fn offset(&self, key: u64) -> u64 {
        self.index_of(key).unwrap_or(0)
    }
}

/// A borrowed runtime layout: tiles handed out by [`Tiles`](super::Tiles) share their
/// layout this way instead of copying it.
impl TensorLayout for &Layout {
    const STATIC: Option<Layout> = None;
    #[inline]
    fn runtime(&self) -> Layout {
        **self
    }
    #[inline]
    fn same_as(&self, other: &Layout) -> bool {
        *self == other
    }
    #[inline]
    fn size(&self) -> u64 {
        Layout::size(self)
    }
    #[inline]
    fn cosize(&self) -> u64 {
        Layout::cosize(self)
    }
    #[inline]
    fn offset(&self, key: u64) -> u64 {
        self.index_of(key).unwrap_or(0)
    }
}

/// Leaf extents and strides of a static layout as constants, read from its `LAYOUT` (the
/// one value a tensor trusts: it was built and validated by the core).
pub(crate) struct Leaves<L>(PhantomData<L>);

impl<L: StaticLayout> Leaves<L> {
    pub(crate) const N: usize = L::LAYOUT.leaf_count();
    pub(crate) const SIZE: u64 = L::LAYOUT.size();
    pub(crate) const COSIZE: u64 = L::LAYOUT.cosize();
    pub(crate) const EXT: [u64; MAX_LEAVES] = leaf_values(&L::LAYOUT, true);
    pub(crate) const STR: [u64; MAX_LEAVES] = leaf_values(&L::LAYOUT, false);
}

const fn leaf_values(l: &Layout, extents: bool) -> [u64; MAX_LEAVES] {
    let mut a = [0u64; MAX_LEAVES];
    let mut i = 0;
    while i < l.leaf_count() {
        a[i] = if extents {
            l.leaf_extent(i)
        } else {
            l.leaf_stride(i)
        };
        i += 1;
    }
    a
}

impl<L: StaticLayout> TensorLayout for L {
    const STATIC: Option<Layout> = Some(L::LAYOUT);
    #[inline(always)]
    fn same_as(&self, other: &Layout) -> bool {
        L::LAYOUT == *other
    }
    #[inline(always)]
    fn runtime(&self) -> Layout {
        L::LAYOUT
    }
    #[inline(always)]
    fn size(&self) -> u64 {
        Leaves::<L>::SIZE
    }
    #[inline(always)]
    fn cosize(&self) -> u64 {
        Leaves::<L>::COSIZE
    }
    #[inline(always)]
    fn offset(&self, key: u64) -> u64 {
        let mut rest = key;
        let mut off = 0;
        let mut k = 0;
        while k < Leaves::<L>::N {
            let e = Leaves::<L>::EXT[k];
            // `% e` on the last leaf too: an out-of-domain key still lands below cosize
            off += (rest % e) * Leaves::<L>::STR[k];
            rest /= e;
            k += 1;
        }
        off
    }
}
