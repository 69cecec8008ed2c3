//! Swizzles in the type: [`StaticSwizzle<B, M, S>`] is CuTe's `Swizzle<B,M,S>{}`, and
//! [`StaticSwizzled<W, L>`] the swizzled static layout `Sw o L`. Both are zero-sized;
//! the masks are associated constants, so a kernel's swizzled indexing is a handful of
//! shifts, ANDs and XORs with literal operands that the compiler folds together with the
//! layout's own constant strides.
//!
//! ```
//! use strideweave::static_layout::StaticSwizzle;
//! use strideweave::{layout, StaticLayout};
//! // CuTe: composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})
//! let smem = StaticSwizzle::<3, 3, 3>.compose(layout!((8,64):(64,1)));
//! assert_eq!(smem.to_string(), "Sw<3,3,3> o (8,64):(64,1)");
//! assert_eq!(smem.index_leaves(&[1, 0]).unwrap(), 64 ^ 8); // row 1 starts at 64, bit 6 flips bit 3
//! // tiling keeps the swizzle and stays in the type
//! let tile = smem.compose(layout!((8,8):(1,8)));
//! assert_eq!(tile.to_string(), "Sw<3,3,3> o (8,8):(64,1)");
//! const ROW1: u64 = StaticSwizzle::<3, 3, 3>::apply(64);   // usable in `const`
//! assert_eq!(ROW1, 64 ^ 8);
//! ```

use super::algebra::{Composed, Divided, TiledDivided, ZippedDivided};
use super::{StaticLayout, StaticTiler};
use crate::error::LayoutError;
use crate::{ComposedLayout, Swizzle};
use std::fmt;
use std::marker::PhantomData;

/// A swizzle known at compile time: implemented by [`StaticSwizzle`].
pub trait StaticSwizzleFn: Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The swizzle as a value, computed by the compiler.
    const SWIZZLE: Swizzle;
}

/// CuTe's `Swizzle<B,M,S>{}`: `B` bits from bit `M + max(0,S)` XORed into the `B` bits
/// from bit `M - min(0,S)`. A parameter set that is not a swizzle (`|S| < B`, or masks
/// past bit 63) fails the build where it is used.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct StaticSwizzle<const B: u32, const M: u32, const S: i32>;

impl<const B: u32, const M: u32, const S: i32> StaticSwizzle<B, M, S> {
    /// The checked swizzle; evaluating it for bad parameters is a compile error.
    pub const SWIZZLE: Swizzle = match Swizzle::checked(B, M, S) {
        Some(s) => s,
        None => {
            panic!("StaticSwizzle<B, M, S>: |S| must be at least B, and M + |S| + B at most 64")
        }
    };

    /// The swizzled offset, with the masks as compile-time constants.
    #[inline(always)]
    pub const fn apply(offset: u64) -> u64 {
        Self::SWIZZLE.apply(offset)
    }

    /// CuTe's `composition(Swizzle, Layout)` on static values: `Sw o L` in the type.
    pub fn compose<L: StaticLayout>(self, layout: L) -> StaticSwizzled<Self, L> {
        let _ = (layout, Self::SWIZZLE);
        StaticSwizzled(PhantomData)
    }
}

impl<const B: u32, const M: u32, const S: i32> StaticSwizzleFn for StaticSwizzle<B, M, S> {
    const SWIZZLE: Swizzle = Self::SWIZZLE;
}

impl<const B: u32, const M: u32, const S: i32> fmt::Display for StaticSwizzle<B, M, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Self::SWIZZLE)
    }
}

/// `Sw o L` with the swizzle and the layout in the type (CuTe's
/// `ComposedLayout<Swizzle<B,M,S>, _0, Layout<...>>`). Indexing reads only compile-time
/// constants; tiling and dividing act on `L` statically and keep the swizzle.
pub struct StaticSwizzled<W: StaticSwizzleFn, L: StaticLayout>(PhantomData<fn() -> (W, L)>);

impl<W: StaticSwizzleFn, L: StaticLayout> Clone for StaticSwizzled<W, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<W: StaticSwizzleFn, L: StaticLayout> Copy for StaticSwizzled<W, L> {}
impl<W: StaticSwizzleFn, L: StaticLayout> Default for StaticSwizzled<W, L> {
    fn default() -> Self {
        StaticSwizzled(PhantomData)
    }
}

impl<W: StaticSwizzleFn, L: StaticLayout> StaticSwizzled<W, L> {
    /// Number of coordinates (the size of `L`).
    pub const SIZE: u64 = L::SIZE;
    /// CuTe's cosize of a composed layout: the cosize of `L`.
    pub const COSIZE: u64 = L::COSIZE;

    /// The runtime value `Sw o L`.
    pub fn composed(self) -> ComposedLayout {
        ComposedLayout::swizzled(W::SWIZZLE, L::LAYOUT)
    }

    /// `Sw(L(i))` for the integer key `i`, or a value error outside `[0, SIZE)`.
    #[inline(always)]
    pub fn index_of(self, i: u64) -> Result<u64, LayoutError> {
        Ok(W::SWIZZLE.apply(L::default().index_of(i)?))
    }

    /// `Sw(L(c))` for a coordinate with one component per leaf of `L`.
    #[inline(always)]
    pub fn index_leaves(self, coords: &[u64]) -> Result<u64, LayoutError> {
        Ok(W::SWIZZLE.apply(L::default().index_leaves(coords)?))
    }

    /// A tile of the swizzled layout: `Sw o (L ∘ T)`, computed by the compiler.
    pub fn compose<T: StaticLayout>(self, tile: T) -> StaticSwizzled<W, Composed<L, T>> {
        let _ = L::default().compose(tile);
        StaticSwizzled(PhantomData)
    }

    /// `Sw o divide(L, T)`.
    pub fn divide<T: StaticLayout>(self, tile: T) -> StaticSwizzled<W, Divided<L, T>> {
        let _ = L::default().divide(tile);
        StaticSwizzled(PhantomData)
    }

    /// `Sw o zipped_divide(L, tiler)`.
    pub fn zipped_divide<T: StaticTiler>(self, tiler: T) -> StaticSwizzled<W, ZippedDivided<L, T>> {
        let _ = L::default().zipped_divide(tiler);
        StaticSwizzled(PhantomData)
    }

    /// `Sw o tiled_divide(L, tiler)`.
    pub fn tiled_divide<T: StaticTiler>(self, tiler: T) -> StaticSwizzled<W, TiledDivided<L, T>> {
        let _ = L::default().tiled_divide(tiler);
        StaticSwizzled(PhantomData)
    }
}

impl<W: StaticSwizzleFn, L: StaticLayout> fmt::Display for StaticSwizzled<W, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.composed())
    }
}

impl<W: StaticSwizzleFn, L: StaticLayout> fmt::Debug for StaticSwizzled<W, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StaticSwizzled({})", self.composed())
    }
}
