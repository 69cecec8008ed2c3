//! Static (typed) layouts: the layout lives in a type, so a kernel generic over it is
//! monomorphized and its indexing constant-folds.
//!
//! * [`Static<S, D>`] is the layout with shape tree `S` and stride tree `D`, trees of
//!   [`C<N>`](C) leaves and tuples. It is zero-sized and `Copy`. `S: Congruent<D>` is a
//!   bound of the type itself, so mismatched trees are a type error in `cargo check`,
//!   also when the type is written by hand.
//! * [`StaticLayout`] is the trait generic code names. Its associated consts (`LAYOUT`,
//!   `SIZE`, `COSIZE`, `RANK`, `DEPTH`, `PROFILE`) are computed by the compiler with the
//!   same `const fn` core as the runtime [`Layout`]; there is no second implementation.
//! * The algebra on static layouts gives static layouts ([`Composed`], [`Complement`],
//!   [`Divided`], [`ZippedDivided`], [`TiledDivided`], [`LogicalProduct`],
//!   [`BlockedProduct`], [`RakedProduct`], [`Coalesced`], ...), whose `LAYOUT` is the
//!   `const fn` algebra evaluated at compile time. A rule violation (inadmissible
//!   composition, non-injective complement, ...) fails the build with a message naming
//!   the rule.
//!
//! ```
//! use strideweave::{layout, Layout, StaticLayout};
//! let a = layout!(20:2);
//! let b = layout!((5,4):(4,1));
//! let c = a.compose(b);
//! assert_eq!(c.to_string(), "(5,4):(8,2)");
//! assert_eq!(c, "(5,4):(8,2)".parse::<Layout>().unwrap());
//! assert_eq!(std::mem::size_of_val(&c), 0);
//! ```
//!
//! **When errors fire.** Tree structure (congruence, broadcast profiles) is checked by the
//! trait solver and fails `cargo check`. Values are checked by `const` evaluation: a zero
//! extent or overflow in a hand-written type, an out-of-domain static coordinate and a
//! failing algebra rule are post-monomorphization errors that `cargo build` reports and
//! `cargo check` does not. The `layout!` macro checks literal values itself, so a zero
//! extent written through the macro fails `cargo check` too. See `docs/static-layouts.md`.

pub(crate) mod algebra;
#[doc(hidden)]
pub mod runtime;
pub mod structure;
mod swizzle;
mod tree;

pub use algebra::{
    ArrangedProduct, BlockedProduct, Broadcast, Coalesced, CoalescedBy, Complement, Composed,
    Divided, Filtered, FlatDivided, LayoutLike, LeftInverse, LogicalProduct, Nullspace,
    RakedProduct, Recast, RightInverse, StaticTiler, TileToShape, TiledDivided, ZippedDivided,
};
pub use swizzle::{StaticSwizzle, StaticSwizzleFn, StaticSwizzled};
pub use tree::{Congruent, IntTree, SameProfile, C};

use crate::error::{CoreError, LayoutError};
use crate::int_tuple::{Coord, Node, MAX_LEAVES, MAX_NODES};
use crate::Layout;
use std::fmt;
use std::marker::PhantomData;

/// A layout known at compile time: implemented by [`Static<S, D>`] and by the results of
/// the static algebra. Generic kernels take `L: StaticLayout` and index through it; the
/// indexing reads compile-time constants and folds to literal arithmetic.
///
/// ```
/// use strideweave::{layout_type, StaticLayout};
/// /// Copies the elements a tile layout addresses, in the tile's order.
/// fn pack<T: StaticLayout>(src: &[f32], dst: &mut [f32]) {
///     for (i, d) in dst.iter_mut().enumerate().take(T::SIZE as usize) {
///         *d = src[T::default().index_of(i as u64).unwrap() as usize];
///     }
/// }
/// type Tile = layout_type!((2,2):(1,4));
/// let src: Vec<f32> = (0..8).map(|x| x as f32).collect();
/// let mut dst = [0.0; 4];
/// pack::<Tile>(&src, &mut dst);
/// assert_eq!(dst, [0.0, 1.0, 4.0, 5.0]);
/// assert_eq!((Tile::SIZE, Tile::COSIZE, Tile::RANK, Tile::DEPTH), (4, 6, 2, 1));
/// ```
pub trait StaticLayout: Copy + Default + fmt::Debug + fmt::Display + Send + Sync + 'static {
    /// The layout as a runtime value, computed by the compiler.
    const LAYOUT: Layout;
    /// Number of coordinates.
    const SIZE: u64 = Self::LAYOUT.size();
    /// One plus the greatest index reached.
    const COSIZE: u64 = Self::LAYOUT.cosize();
    /// Number of top-level modes.
    const RANK: usize = Self::LAYOUT.rank();
    /// Nesting depth (CuTe's convention: `20:2` has depth 0).
    const DEPTH: usize = Self::LAYOUT.depth();
    /// Number of leaves (flattened modes).
    const LEAVES: usize = Self::LAYOUT.leaf_count();
    /// Leaf extents in depth-first order (unused entries are 1).
    const EXTENTS: [u64; MAX_LEAVES] = leaf_array(&Self::LAYOUT, true);
    /// Leaf strides in depth-first order (unused entries are 0).
    const STRIDES: [u64; MAX_LEAVES] = leaf_array(&Self::LAYOUT, false);
    #[doc(hidden)]
    const RECIPE: [Node; MAX_NODES] = tree::recipe_array(Self::LAYOUT.shape().as_tuple());
    /// The profile: the shape's leaf-and-nesting recipe.
    const PROFILE: &'static [Node] = Self::RECIPE
        .split_at(Self::LAYOUT.shape().as_tuple().node_count())
        .0;

    /// The layout as a runtime [`Layout`].
    fn layout(self) -> Layout {
        Self::LAYOUT
    }

    /// Index of integer key `i` (first mode fastest), or a value error outside
    /// `[0, SIZE)`. Reads only compile-time constants, so in a loop it folds to the
    /// arithmetic one would write by hand.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// let l = layout!((3,4):(2,10));
    /// assert_eq!(l.index_of(5).unwrap(), 14);
    /// assert!(l.index_of(12).is_err());
    /// ```
    #[inline(always)]
    fn index_of(self, i: u64) -> Result<u64, LayoutError> {
        if i >= Self::SIZE {
            return Err(out_of_domain(&Self::LAYOUT, i));
        }
        let mut rest = i;
        let mut idx = 0;
        let mut k = 0;
        while k < Self::LEAVES {
            let s = Self::EXTENTS[k];
            // `i < SIZE`, so what remains for the last leaf is already below its extent
            let c = if k + 1 == Self::LEAVES {
                rest
            } else {
                rest % s
            };
            idx += c * Self::STRIDES[k];
            rest /= s;
            k += 1;
        }
        Ok(idx)
    }

    /// Index of the coordinate with one component per leaf (depth-first), each checked
    /// against its extent.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// let l = layout!((2,(3,4)):(1,(10,100)));
    /// assert_eq!(l.index_leaves(&[1, 2, 3]).unwrap(), 321);
    /// assert!(l.index_leaves(&[2, 0, 0]).is_err());
    /// ```
    #[inline(always)]
    fn index_leaves(self, coords: &[u64]) -> Result<u64, LayoutError> {
        if coords.len() != Self::LEAVES {
            return Err(leaf_mismatch(&Self::LAYOUT, coords));
        }
        let mut idx = 0;
        let mut k = 0;
        while k < Self::LEAVES {
            if coords[k] >= Self::EXTENTS[k] {
                return Err(leaf_out_of_domain(&Self::LAYOUT, coords));
            }
            idx += coords[k] * Self::STRIDES[k];
            k += 1;
        }
        Ok(idx)
    }

    /// Index of a hierarchical coordinate (each level follows the shape or gives one
    /// integer for a whole sub-tree), as [`Layout::index`].
    ///
    /// ```
    /// use strideweave::{layout, Coord, StaticLayout};
    /// let l = layout!((2,(3,4)):(1,(10,100)));
    /// assert_eq!(l.index(&Coord::new((1, (2, 3))).unwrap()).unwrap(), 321);
    /// assert_eq!(l.index(&Coord::new((1, 11)).unwrap()).unwrap(), 321);
    /// ```
    fn index(self, coord: &Coord) -> Result<u64, LayoutError> {
        Self::LAYOUT.index(coord)
    }

    /// Index of a static coordinate (a tree of [`C<N>`](C) leaves, e.g. from
    /// [`coord!`](crate::coord)), computed by the compiler. A coordinate outside the
    /// domain fails the build.
    ///
    /// ```
    /// use strideweave::{coord, layout, StaticLayout};
    /// let l = layout!((2,(3,4)):(1,(10,100)));
    /// assert_eq!(l.at(coord!((1,(2,3)))), 321);
    /// assert_eq!(l.at(coord!(23)), 321);
    /// ```
    fn at<K: IntTree>(self, key: K) -> u64 {
        let _ = key;
        algebra::IndexAt::<Self, K>::VALUE
    }

    /// `self ∘ b`: the static composition. An inadmissible composition fails the build.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// assert_eq!(layout!(20:2).compose(layout!((5,4):(4,1))).to_string(), "(5,4):(8,2)");
    /// ```
    fn compose<B: StaticLayout>(self, b: B) -> Composed<Self, B> {
        let _ = b;
        let _ = <Composed<Self, B> as StaticLayout>::LAYOUT;
        Composed::UNIT
    }

    /// `complement(self, M)`. A non-injective layout fails the build.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// assert_eq!(layout!((2,2):(1,6)).complement::<24>().to_string(), "(3,2):(2,12)");
    /// ```
    fn complement<const M: u64>(self) -> Complement<Self, M> {
        let _ = <Complement<Self, M> as StaticLayout>::LAYOUT;
        Complement::UNIT
    }

    /// Logical division by a tile layout: `self ∘ (b, complement(b, SIZE))`.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// let d = layout!((4,2,3):(2,1,8)).divide(layout!(4:2));
    /// assert_eq!(d.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    /// ```
    fn divide<B: StaticLayout>(self, b: B) -> Divided<Self, B> {
        let _ = b;
        let _ = <Divided<Self, B> as StaticLayout>::LAYOUT;
        Divided::UNIT
    }

    /// Division by a tiler (a tuple of static tile layouts, one per leading mode), tiles
    /// grouped in mode 0 and rests in mode 1.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// let z = layout!((8,8):(1,8)).zipped_divide((layout!(4:1), layout!(2:1)));
    /// assert_eq!(z.to_string(), "((4,2),(2,4)):((1,8),(4,16))");
    /// ```
    fn zipped_divide<T: StaticTiler>(self, tiler: T) -> ZippedDivided<Self, T> {
        let _ = tiler;
        let _ = <ZippedDivided<Self, T> as StaticLayout>::LAYOUT;
        ZippedDivided::UNIT
    }

    /// Division by a tiler, tiles grouped in mode 0 and every rest mode after it.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// let t = layout!((8,8):(1,8)).tiled_divide((layout!(4:1), layout!(2:1)));
    /// assert_eq!(t.to_string(), "((4,2),2,4):((1,8),4,16)");
    /// ```
    fn tiled_divide<T: StaticTiler>(self, tiler: T) -> TiledDivided<Self, T> {
        let _ = tiler;
        let _ = <TiledDivided<Self, T> as StaticLayout>::LAYOUT;
        TiledDivided::UNIT
    }

    /// `(self, complement(self, SIZE·COSIZE(b)) ∘ b)`.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// assert_eq!(layout!((2,2):(4,1)).logical_product(layout!(6:1)).to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    /// ```
    fn logical_product<B: StaticLayout>(self, b: B) -> LogicalProduct<Self, B> {
        let _ = b;
        let _ = <LogicalProduct<Self, B> as StaticLayout>::LAYOUT;
        LogicalProduct::UNIT
    }

    /// Blocks of `self` arranged by `b` (mode `i` is `(self_i, b_i)`).
    ///
    /// ```
    /// use strideweave::{layout, Layout, StaticLayout};
    /// let (a, b) = (layout!((2,2):(1,2)), layout!((3,4)));
    /// assert_eq!(a.blocked_product(b), a.layout().blocked_product(&b.layout()).unwrap());
    /// ```
    fn blocked_product<B: StaticLayout>(self, b: B) -> BlockedProduct<Self, B> {
        let _ = b;
        let _ = <BlockedProduct<Self, B> as StaticLayout>::LAYOUT;
        BlockedProduct::UNIT
    }

    /// `self`'s elements interleaved across `b`'s copies (mode `i` is `(b_i, self_i)`).
    ///
    /// ```
    /// use strideweave::{layout, Layout, StaticLayout};
    /// let (a, b) = (layout!((2,2):(1,2)), layout!((3,4)));
    /// assert_eq!(a.raked_product(b), a.layout().raked_product(&b.layout()).unwrap());
    /// ```
    fn raked_product<B: StaticLayout>(self, b: B) -> RakedProduct<Self, B> {
        let _ = b;
        let _ = <RakedProduct<Self, B> as StaticLayout>::LAYOUT;
        RakedProduct::UNIT
    }

    /// The simplest flat layout with the same function.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// assert_eq!(layout!((2,(3,4)):(1,(2,6))).coalesce().to_string(), "24:1");
    /// ```
    fn coalesce(self) -> Coalesced<Self> {
        let _ = <Coalesced<Self> as StaticLayout>::LAYOUT;
        Coalesced::UNIT
    }

    /// [`StaticLayout::coalesce`] that also drops stride-0 modes.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// assert_eq!(layout!((4,3):(0,4)).filter().to_string(), "3:4");
    /// ```
    fn filter(self) -> Filtered<Self> {
        let _ = <Filtered<Self> as StaticLayout>::LAYOUT;
        Filtered::UNIT
    }

    /// CuTe's `right_inverse`.
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// assert_eq!(layout!((4,2):(2,1)).right_inverse().to_string(), "(2,4):(4,1)");
    /// ```
    fn right_inverse(self) -> RightInverse<Self> {
        let _ = <RightInverse<Self> as StaticLayout>::LAYOUT;
        RightInverse::UNIT
    }

    /// CuTe's `left_inverse` (the layout must be injective).
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// let l = layout!((4,2):(2,1));
    /// assert_eq!(l.left_inverse().layout(), l.layout().left_inverse().unwrap());
    /// ```
    fn left_inverse(self) -> LeftInverse<Self> {
        let _ = <LeftInverse<Self> as StaticLayout>::LAYOUT;
        LeftInverse::UNIT
    }

    /// Division by a tiler, every tile mode then every rest mode (CuTe's `flat_divide`).
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// let f = layout!((8,8):(8,1)).flat_divide((layout!(2:1), layout!(4:1)));
    /// assert_eq!(f.to_string(), "(2,4,4,2):(8,1,16,4)");
    /// ```
    fn flat_divide<T: StaticTiler>(self, tiler: T) -> FlatDivided<Self, T> {
        let _ = tiler;
        let _ = <FlatDivided<Self, T> as StaticLayout>::LAYOUT;
        FlatDivided::UNIT
    }

    /// By-mode product, blocks grouped in mode 0 and copies in mode 1 (CuTe's
    /// `zipped_product`).
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// let p = layout!((2,2):(1,2)).zipped_product((layout!(3:1), layout!(2:1)));
    /// assert_eq!(p.to_string(), "((2,2),(3,2)):((1,2),(2,1))");
    /// ```
    fn zipped_product<T: StaticTiler>(self, tiler: T) -> ArrangedProduct<Self, T, 0> {
        let _ = tiler;
        let _ = <ArrangedProduct<Self, T, 0> as StaticLayout>::LAYOUT;
        ArrangedProduct::UNIT
    }

    /// By-mode product, blocks grouped in mode 0 and every copy mode after it.
    fn tiled_product<T: StaticTiler>(self, tiler: T) -> ArrangedProduct<Self, T, 1> {
        let _ = tiler;
        let _ = <ArrangedProduct<Self, T, 1> as StaticLayout>::LAYOUT;
        ArrangedProduct::UNIT
    }

    /// By-mode product, every block mode then every copy mode.
    fn flat_product<T: StaticTiler>(self, tiler: T) -> ArrangedProduct<Self, T, 2> {
        let _ = tiler;
        let _ = <ArrangedProduct<Self, T, 2> as StaticLayout>::LAYOUT;
        ArrangedProduct::UNIT
    }

    /// The layout over elements `N` times wider (CuTe's `upcast<N>`).
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// assert_eq!(layout!((4,8):(1,4)).upcast::<2>().to_string(), "(2,8):(1,2)");
    /// assert_eq!(layout!((4,8):(1,4)).upcast::<2>().downcast::<2>(), layout!((4,8):(1,4)));
    /// ```
    fn upcast<const N: u64>(self) -> Recast<Self, N, true> {
        let _ = <Recast<Self, N, true> as StaticLayout>::LAYOUT;
        Recast::UNIT
    }

    /// The layout over elements `N` times narrower (CuTe's `downcast<N>`).
    fn downcast<const N: u64>(self) -> Recast<Self, N, false> {
        let _ = <Recast<Self, N, false> as StaticLayout>::LAYOUT;
        Recast::UNIT
    }

    /// The kernel: integer keys the layout sends to 0 (CuTe's `nullspace`).
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// assert_eq!(layout!((2,4,3):(0,1,0)).nullspace().to_string(), "(2,3):(1,8)");
    /// ```
    fn nullspace(self) -> Nullspace<Self> {
        let _ = <Nullspace<Self> as StaticLayout>::LAYOUT;
        Nullspace::UNIT
    }

    /// A compact layout ordered like this one's strides (CuTe's `make_layout_like`).
    ///
    /// ```
    /// use strideweave::{layout, StaticLayout};
    /// assert_eq!(layout!((2,3,4,5):(0,42,1,0)).make_layout_like().to_string(), "(2,3,4,5):(0,4,1,0)");
    /// ```
    fn make_layout_like(self) -> LayoutLike<Self> {
        let _ = <LayoutLike<Self> as StaticLayout>::LAYOUT;
        LayoutLike::UNIT
    }

    /// Coalesce by mode, as the profile `P` says (CuTe's `coalesce(layout, profile)`).
    ///
    /// ```
    /// use strideweave::{layout, shape, StaticLayout};
    /// let l = layout!((2,(1,6)):(1,(6,2)));
    /// assert_eq!(l.coalesce_by(shape!((1,1))).to_string(), "(2,6):(1,2)");
    /// ```
    fn coalesce_by<P: IntTree>(self, profile: P) -> CoalescedBy<Self, P> {
        let _ = profile;
        let _ = <CoalescedBy<Self, P> as StaticLayout>::LAYOUT;
        CoalescedBy::UNIT
    }

    /// Copies of this block filling shape `S`, column-major (CuTe's `tile_to_shape`).
    ///
    /// ```
    /// use strideweave::{layout, shape, StaticLayout};
    /// let t = layout!((2,2):(1,2)).tile_to_shape(shape!((4,6)));
    /// assert_eq!(t.to_string(), "((2,2),(2,3)):((1,4),(2,8))");
    /// ```
    fn tile_to_shape<S: IntTree>(self, target: S) -> TileToShape<Self, S> {
        let _ = target;
        let _ = <TileToShape<Self, S> as StaticLayout>::LAYOUT;
        TileToShape::UNIT
    }
}

const fn leaf_array(l: &Layout, extents: bool) -> [u64; MAX_LEAVES] {
    let mut a = [if extents { 1 } else { 0 }; MAX_LEAVES];
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

#[cold]
#[inline(never)]
fn out_of_domain(l: &Layout, i: u64) -> LayoutError {
    LayoutError::from_core(
        format!("index({l}, {i})"),
        CoreError::OutOfDomain {
            value: i,
            extent: l.size(),
        },
    )
}

#[cold]
#[inline(never)]
fn leaf_mismatch(l: &Layout, coords: &[u64]) -> LayoutError {
    LayoutError::from_core(
        format!("index({l}, {coords:?})"),
        CoreError::CoordinateMismatch,
    )
}

#[cold]
#[inline(never)]
fn leaf_out_of_domain(l: &Layout, coords: &[u64]) -> LayoutError {
    match l.index_leaves(coords) {
        Err(e) => LayoutError::from_core(format!("index({l}, {coords:?})"), e),
        Ok(_) => LayoutError::from_core(
            format!("index({l}, {coords:?})"),
            CoreError::CoordinateMismatch,
        ),
    }
}

/// The static layout with shape tree `S` and stride tree `D` (trees of [`C<N>`](C)
/// leaves and tuples). Zero-sized and `Copy`; `layout!` and `layout_type!` write it.
///
/// ```
/// use strideweave::{layout, layout_type, Layout, Static, StaticLayout, C};
/// type L = Static<(C<2>, (C<3>, C<4>)), (C<1>, (C<10>, C<100>))>;
/// let l = L::new();
/// assert_eq!(l, layout!((2,(3,4)):(1,(10,100))));
/// assert_eq!(L::LAYOUT, "(2,(3,4)):(1,(10,100))".parse::<Layout>().unwrap());
/// assert_eq!((L::SIZE, L::COSIZE, L::RANK, L::DEPTH), (24, 322, 2, 2));
/// let _: layout_type!((2,(3,4)):(1,(10,100))) = l;
/// assert_eq!(std::mem::size_of::<L>(), 0);
/// ```
pub struct Static<S: Congruent<D>, D: IntTree>(PhantomData<fn() -> (S, D)>);

impl<S: Congruent<D>, D: IntTree> Static<S, D> {
    /// The layout value. A zero extent or an overflowing size in a hand-written type
    /// fails the build here.
    pub const fn new() -> Self {
        let _ = <Self as StaticLayout>::LAYOUT;
        Static(PhantomData)
    }

    /// The layout of the given shape and stride trees, e.g. from [`shape!`](crate::shape)
    /// and [`stride!`](crate::stride).
    ///
    /// ```
    /// use strideweave::{shape, stride, Static};
    /// let l = Static::from_trees(shape!((2,3)), stride!((1,2)));
    /// assert_eq!(l.to_string(), "(2,3):(1,2)");
    /// ```
    pub const fn from_trees(shape: S, stride: D) -> Self {
        let _ = (shape, stride);
        Self::new()
    }

    /// Widens extent-1 leaves to the target's extents (their stride becomes 0). A target
    /// of another profile is a type error; changing any other extent fails the build.
    ///
    /// ```
    /// use strideweave::{layout, shape};
    /// let b = layout!((2,(1,3)):(1,(2,2))).broadcast_to(shape!((2,(4,3))));
    /// assert_eq!(b.to_string(), "(2,(4,3)):(1,(0,2))");
    /// ```
    pub fn broadcast_to<T: SameProfile<S>>(self, target: T) -> Broadcast<Self, T> {
        let _ = target;
        let _ = <Broadcast<Self, T> as StaticLayout>::LAYOUT;
        Broadcast::UNIT
    }
}

impl<S: Congruent<D>, D: IntTree> StaticLayout for Static<S, D> {
    const LAYOUT: Layout = match Layout::from_trees(S::TUPLE, D::TUPLE) {
        Ok(l) => l,
        Err(e) => algebra::build_error(algebra::invalid_layout(&S::TUPLE, &D::TUPLE, &e)),
    };
}

/// The methods every static layout type shares: `Copy`, `Default`, zero-sized
/// construction, `Display`/`Debug` in notation, equality with other static layouts and
/// with [`Layout`], conversion into [`Layout`].
macro_rules! static_common {
    ([$($gen:tt)*] $ty:ty) => {
        impl<$($gen)*> Clone for $ty {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($gen)*> Copy for $ty {}
        impl<$($gen)*> Default for $ty {
            fn default() -> Self {
                Self::new()
            }
        }
        impl<$($gen)*> std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&<Self as $crate::StaticLayout>::LAYOUT, f)
            }
        }
        impl<$($gen)*> std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "StaticLayout({})", <Self as $crate::StaticLayout>::LAYOUT)
            }
        }
        impl<$($gen)*> PartialEq<$crate::Layout> for $ty {
            fn eq(&self, other: &$crate::Layout) -> bool {
                <Self as $crate::StaticLayout>::LAYOUT == *other
            }
        }
        impl<$($gen)*> PartialEq<$ty> for $crate::Layout {
            fn eq(&self, other: &$ty) -> bool {
                *other == *self
            }
        }
        impl<$($gen)*, Rhs: $crate::StaticLayout> PartialEq<Rhs> for $ty {
            fn eq(&self, _: &Rhs) -> bool {
                <Self as $crate::StaticLayout>::LAYOUT == Rhs::LAYOUT
            }
        }
        impl<$($gen)*> Eq for $ty {}
        impl<$($gen)*> From<$ty> for $crate::Layout {
            fn from(_: $ty) -> $crate::Layout {
                <$ty as $crate::StaticLayout>::LAYOUT
            }
        }
    };
}
pub(crate) use static_common;

static_common!([S: Congruent<D>, D: IntTree] Static<S, D>);

/// `<T as Same<X>>::Type` is `T`: lets `layout_type!` attach its compile errors (in `X`)
/// to a placeholder type.
#[doc(hidden)]
pub trait Same<X: ?Sized> {
    type Type: ?Sized;
}
impl<T: ?Sized, X: ?Sized> Same<X> for T {
    type Type = T;
}

/// `docs/static-layouts.md`, its examples compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/static-layouts.md")]
struct StaticLayoutsDoc;
