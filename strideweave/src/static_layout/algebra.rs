//! The algebra on static layouts: each operation is a zero-sized type whose `LAYOUT` is
//! the shared `const fn` algebra ([`crate::algebra`]) evaluated by the compiler. A rule
//! violation becomes a build error whose message names the rule.

use super::{static_common, IntTree, StaticLayout};
use crate::algebra::{self, Arrangement};
use crate::error::CoreError;
use crate::Layout;
use std::marker::PhantomData;

/// The result of a static algebra operation, or a build error naming the failed rule.
/// `const` panics cannot format, so each rule has its own literal message.
macro_rules! rule {
    ($op:literal, $result:expr) => {
        match $result {
            Ok(l) => l,
            Err(CoreError::StrideDivisibility { .. }) => panic!(concat!(
                "inadmissible static composition in ", $op,
                ": the stride divisibility condition fails (each extent of A and the stride of B reaching it must divide one another)"
            )),
            Err(CoreError::ShapeDivisibility { .. }) => panic!(concat!(
                "inadmissible static composition in ", $op,
                ": the shape divisibility condition fails (where B spans past a mode of A, its remaining extent must be a multiple of that mode's)"
            )),
            Err(CoreError::ModeOverlap { .. }) => panic!(concat!(
                "inadmissible static composition in ", $op,
                ": B's modes overlap in A's coordinates, so A(B(c)) is not the sum of the parts (use an injective B)"
            )),
            Err(CoreError::ProductOverlap { .. }) => panic!(concat!(
                "static ", $op,
                ": the copies of A would overlap A (size(A)*cosize(B) is below A's span, so its complement has too little room)"
            )),
            Err(CoreError::NotInjective) => panic!(concat!(
                "non-injective static complement in ", $op,
                ": a stride-0 mode maps several coordinates to one index; complement needs an injective layout"
            )),
            Err(CoreError::Unchainable { .. }) => panic!(concat!(
                "non-injective static complement in ", $op,
                ": the modes overlap (a stride lies inside the span of the smaller modes); complement needs an injective layout whose sorted modes chain"
            )),
            Err(CoreError::CotargetTooSmall { .. }) => panic!(concat!(
                "static complement in ", $op,
                ": the layout's size exceeds the cotarget; the cotarget must be at least the size"
            )),
            Err(CoreError::Overflow { .. }) => panic!(concat!(
                "static ", $op, " overflows: a size, cosize or index does not fit in 64 bits"
            )),
            Err(CoreError::TooManyLeaves) | Err(CoreError::TooManyNodes) => panic!(concat!(
                "static ", $op, ": the result has more leaves or nodes than a layout holds (32 leaves, 96 nodes)"
            )),
            Err(CoreError::TooManyTiles { .. }) => panic!(concat!(
                "static ", $op, ": the tiler has more tiles than the layout has modes"
            )),
            Err(CoreError::BroadcastExtent { .. }) => panic!(concat!(
                "static ", $op,
                ": only extent-1 leaves widen; every other target extent must equal the shape's"
            )),
            Err(CoreError::ProfileMismatch) => panic!(concat!(
                "static ", $op, ": the target's profile differs from the shape's"
            )),
            Err(CoreError::LeftInverseDivisibility { .. }) => panic!(concat!(
                "static ", $op,
                ": the left inverse divisibility condition fails (each sorted non-zero stride must be a multiple of the next smaller one)"
            )),
            Err(CoreError::NotEvenlyDivided { .. }) => panic!(concat!(
                "static ", $op, ": the block's mode size does not evenly divide the target's"
            )),
            Err(CoreError::RecastDivisibility { .. }) => panic!(concat!(
                "static ", $op, ": a stride and the recast factor divide neither way"
            )),
            Err(CoreError::NoUnitStride) => panic!(concat!(
                "static ", $op, ": downcast needs a stride-1 mode (adjacent elements) to split"
            )),
            Err(_) => panic!(concat!("static ", $op, " failed")),
        }
    };
}

macro_rules! static_op {
    (
        $(#[$doc:meta])*
        $name:ident [$($gen:tt)*] <$($p:tt),*>
    ) => {
        $(#[$doc])*
        pub struct $name<$($p),*>(PhantomData<fn() -> ($($p,)*)>);

        impl<$($gen)*> $name<$($p),*> {
            /// The (zero-sized) value; fails the build if the operation's rule does.
            pub const fn new() -> Self {
                let _ = <Self as StaticLayout>::LAYOUT;
                $name(PhantomData)
            }

            /// The value, for callers that have already evaluated `LAYOUT` themselves
            /// (so a failing rule is reported at the user's call).
            pub(crate) const UNIT: Self = $name(PhantomData);
        }

        static_common!([$($gen)*] $name<$($p),*>);
    };
}

static_op!(
    /// `A ∘ B` computed by the compiler ([`StaticLayout::compose`]).
    Composed [A: StaticLayout, B: StaticLayout] <A, B>
);

impl<A: StaticLayout, B: StaticLayout> StaticLayout for Composed<A, B> {
    const LAYOUT: Layout = rule!("compose(A, B)", algebra::compose(&A::LAYOUT, &B::LAYOUT));
}

/// `complement(A, M)` computed by the compiler ([`StaticLayout::complement`]).
pub struct Complement<A, const M: u64>(PhantomData<fn() -> A>);

impl<A: StaticLayout, const M: u64> Complement<A, M> {
    /// The (zero-sized) value; fails the build if `A` has no complement.
    pub const fn new() -> Self {
        let _ = <Self as StaticLayout>::LAYOUT;
        Complement(PhantomData)
    }

    /// The value, for callers that have already evaluated `LAYOUT` themselves.
    pub(crate) const UNIT: Self = Complement(PhantomData);
}

impl<A: StaticLayout, const M: u64> StaticLayout for Complement<A, M> {
    const LAYOUT: Layout = rule!("complement(L, M)", algebra::complement(&A::LAYOUT, M));
}

static_common!([A: StaticLayout, const M: u64] Complement<A, M>);

static_op!(
    /// `divide(A, B)` computed by the compiler ([`StaticLayout::divide`]).
    Divided [A: StaticLayout, B: StaticLayout] <A, B>
);

impl<A: StaticLayout, B: StaticLayout> StaticLayout for Divided<A, B> {
    const LAYOUT: Layout = rule!("divide(A, B)", algebra::divide(&A::LAYOUT, &B::LAYOUT));
}

static_op!(
    /// `zipped_divide(A, T)` computed by the compiler ([`StaticLayout::zipped_divide`]).
    ZippedDivided [A: StaticLayout, T: StaticTiler] <A, T>
);

impl<A: StaticLayout, T: StaticTiler> StaticLayout for ZippedDivided<A, T> {
    const LAYOUT: Layout = rule!(
        "zipped_divide(A, T)",
        algebra::zipped_divide(&A::LAYOUT, T::TILES)
    );
}

static_op!(
    /// `tiled_divide(A, T)` computed by the compiler ([`StaticLayout::tiled_divide`]).
    TiledDivided [A: StaticLayout, T: StaticTiler] <A, T>
);

impl<A: StaticLayout, T: StaticTiler> StaticLayout for TiledDivided<A, T> {
    const LAYOUT: Layout = rule!(
        "tiled_divide(A, T)",
        algebra::tiled_divide(&A::LAYOUT, T::TILES)
    );
}

static_op!(
    /// `logical_product(A, B)` computed by the compiler.
    LogicalProduct [A: StaticLayout, B: StaticLayout] <A, B>
);

impl<A: StaticLayout, B: StaticLayout> StaticLayout for LogicalProduct<A, B> {
    const LAYOUT: Layout = rule!(
        "logical_product(A, B)",
        algebra::logical_product(&A::LAYOUT, &B::LAYOUT)
    );
}

static_op!(
    /// `blocked_product(A, B)` computed by the compiler.
    BlockedProduct [A: StaticLayout, B: StaticLayout] <A, B>
);

impl<A: StaticLayout, B: StaticLayout> StaticLayout for BlockedProduct<A, B> {
    const LAYOUT: Layout = rule!(
        "blocked_product(A, B)",
        algebra::blocked_product(&A::LAYOUT, &B::LAYOUT)
    );
}

static_op!(
    /// `raked_product(A, B)` computed by the compiler.
    RakedProduct [A: StaticLayout, B: StaticLayout] <A, B>
);

impl<A: StaticLayout, B: StaticLayout> StaticLayout for RakedProduct<A, B> {
    const LAYOUT: Layout = rule!(
        "raked_product(A, B)",
        algebra::raked_product(&A::LAYOUT, &B::LAYOUT)
    );
}

static_op!(
    /// `coalesce(A)` computed by the compiler.
    Coalesced [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for Coalesced<A> {
    const LAYOUT: Layout = rule!(
        "coalesce(L)",
        Ok::<Layout, CoreError>(algebra::coalesce(&A::LAYOUT))
    );
}

static_op!(
    /// `filter(A)` computed by the compiler.
    Filtered [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for Filtered<A> {
    const LAYOUT: Layout = rule!(
        "filter(L)",
        Ok::<Layout, CoreError>(algebra::filter(&A::LAYOUT))
    );
}

static_op!(
    /// `right_inverse(A)` computed by the compiler.
    RightInverse [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for RightInverse<A> {
    const LAYOUT: Layout = rule!("right_inverse(L)", algebra::right_inverse(&A::LAYOUT));
}

static_op!(
    /// `left_inverse(A)` computed by the compiler.
    LeftInverse [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for LeftInverse<A> {
    const LAYOUT: Layout = rule!("left_inverse(L)", algebra::left_inverse(&A::LAYOUT));
}

static_op!(
    /// `broadcast_to(A, T)` computed by the compiler ([`crate::Static::broadcast_to`]).
    Broadcast [A: StaticLayout, T: IntTree] <A, T>
);

impl<A: StaticLayout, T: IntTree> StaticLayout for Broadcast<A, T> {
    const LAYOUT: Layout = rule!(
        "broadcast_to(L, SHAPE)",
        A::LAYOUT.broadcast_tuple(&T::TUPLE)
    );
}

/// A static tiler: a tuple of one to four static tile layouts, one per leading mode.
///
/// ```
/// use strideweave::{layout_type, StaticTiler};
/// type T = (layout_type!(4:1), layout_type!(2:1));
/// assert_eq!(T::TILES.len(), 2);
/// assert_eq!(T::TILES[1].to_string(), "2:1");
/// ```
pub trait StaticTiler: Copy + Default + 'static {
    /// The tile layouts, computed by the compiler.
    const TILES: &'static [Layout];
}

impl<A: StaticLayout> StaticTiler for (A,) {
    const TILES: &'static [Layout] = &[A::LAYOUT];
}
impl<A: StaticLayout, B: StaticLayout> StaticTiler for (A, B) {
    const TILES: &'static [Layout] = &[A::LAYOUT, B::LAYOUT];
}
impl<A: StaticLayout, B: StaticLayout, D: StaticLayout> StaticTiler for (A, B, D) {
    const TILES: &'static [Layout] = &[A::LAYOUT, B::LAYOUT, D::LAYOUT];
}
impl<A: StaticLayout, B: StaticLayout, D: StaticLayout, E: StaticLayout> StaticTiler
    for (A, B, D, E)
{
    const TILES: &'static [Layout] = &[A::LAYOUT, B::LAYOUT, D::LAYOUT, E::LAYOUT];
}

/// The index of static coordinate `K` in static layout `L`, computed by the compiler.
pub(crate) struct IndexAt<L, K>(PhantomData<fn() -> (L, K)>);

impl<L: StaticLayout, K: IntTree> IndexAt<L, K> {
    pub(crate) const VALUE: u64 = match L::LAYOUT.index_tuple(&K::TUPLE) {
        Ok(v) => v,
        Err(CoreError::OutOfDomain { .. }) => panic!(
            "static coordinate is outside the layout's domain: each component must be below its extent (an integer key below SIZE)"
        ),
        Err(_) => panic!(
            "static coordinate does not follow the layout's hierarchy: give one component per mode, nested like the shape, or one integer"
        ),
    };
}

static_op!(
    /// `flat_divide(A, T)` computed by the compiler ([`StaticLayout::flat_divide`]).
    FlatDivided [A: StaticLayout, T: StaticTiler] <A, T>
);

impl<A: StaticLayout, T: StaticTiler> StaticLayout for FlatDivided<A, T> {
    const LAYOUT: Layout = rule!(
        "flat_divide(A, T)",
        match algebra::divide_tiler(&A::LAYOUT, T::TILES) {
            Ok(d) => algebra::arrange_by_mode(&d, T::TILES.len(), Arrangement::Flat),
            Err(e) => Err(e),
        }
    );
}

/// A by-mode product arranged as `HOW` says: zipped (0), tiled (1) or flat (2), computed
/// by the compiler ([`StaticLayout::zipped_product`] and friends).
pub struct ArrangedProduct<A, T, const HOW: u8>(PhantomData<fn() -> (A, T)>);

impl<A: StaticLayout, T: StaticTiler, const HOW: u8> ArrangedProduct<A, T, HOW> {
    /// The (zero-sized) value; fails the build if the product's rule does.
    pub const fn new() -> Self {
        let _ = <Self as StaticLayout>::LAYOUT;
        ArrangedProduct(PhantomData)
    }

    /// The value, for callers that have already evaluated `LAYOUT` themselves.
    pub(crate) const UNIT: Self = ArrangedProduct(PhantomData);
}

impl<A: StaticLayout, T: StaticTiler, const HOW: u8> StaticLayout for ArrangedProduct<A, T, HOW> {
    const LAYOUT: Layout = rule!(
        "product(A, T)",
        match algebra::logical_product_tiler(&A::LAYOUT, T::TILES) {
            Ok(p) => algebra::arrange_by_mode(
                &p,
                T::TILES.len(),
                match HOW {
                    0 => Arrangement::Zipped,
                    1 => Arrangement::Tiled,
                    _ => Arrangement::Flat,
                }
            ),
            Err(e) => Err(e),
        }
    );
}

static_common!([A: StaticLayout, T: StaticTiler, const HOW: u8] ArrangedProduct<A, T, HOW>);

/// `upcast(A, N)` (`UP = true`) or `downcast(A, N)` computed by the compiler
/// ([`StaticLayout::upcast`], [`StaticLayout::downcast`]).
pub struct Recast<A, const N: u64, const UP: bool>(PhantomData<fn() -> A>);

impl<A: StaticLayout, const N: u64, const UP: bool> Recast<A, N, UP> {
    /// The (zero-sized) value; fails the build if the recast's rule does.
    pub const fn new() -> Self {
        let _ = <Self as StaticLayout>::LAYOUT;
        Recast(PhantomData)
    }

    /// The value, for callers that have already evaluated `LAYOUT` themselves.
    pub(crate) const UNIT: Self = Recast(PhantomData);
}

impl<A: StaticLayout, const N: u64, const UP: bool> StaticLayout for Recast<A, N, UP> {
    const LAYOUT: Layout = rule!(
        "upcast/downcast(L, N)",
        if UP {
            algebra::upcast(&A::LAYOUT, N)
        } else {
            algebra::downcast(&A::LAYOUT, N)
        }
    );
}

static_common!([A: StaticLayout, const N: u64, const UP: bool] Recast<A, N, UP>);

static_op!(
    /// `nullspace(A)` computed by the compiler ([`StaticLayout::nullspace`]).
    Nullspace [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for Nullspace<A> {
    const LAYOUT: Layout = rule!("nullspace(L)", algebra::nullspace(&A::LAYOUT));
}

static_op!(
    /// `make_layout_like(A)` computed by the compiler ([`StaticLayout::make_layout_like`]).
    LayoutLike [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for LayoutLike<A> {
    const LAYOUT: Layout = rule!("make_layout_like(L)", algebra::make_layout_like(&A::LAYOUT));
}

static_op!(
    /// `coalesce(A, P)` by mode, computed by the compiler ([`StaticLayout::coalesce_by`]).
    CoalescedBy [A: StaticLayout, P: IntTree] <A, P>
);

impl<A: StaticLayout, P: IntTree> StaticLayout for CoalescedBy<A, P> {
    const LAYOUT: Layout = rule!(
        "coalesce(L, PROFILE)",
        algebra::coalesce_by(&A::LAYOUT, &P::TUPLE)
    );
}

static_op!(
    /// `tile_to_shape(A, S)` (copies column-major) computed by the compiler
    /// ([`StaticLayout::tile_to_shape`]).
    TileToShape [A: StaticLayout, S: IntTree] <A, S>
);

impl<A: StaticLayout, S: IntTree> StaticLayout for TileToShape<A, S> {
    const LAYOUT: Layout = rule!(
        "tile_to_shape(L, SHAPE)",
        algebra::tile_to_shape(&A::LAYOUT, &S::TUPLE, None)
    );
}
