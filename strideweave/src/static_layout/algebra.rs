//! The algebra on static layouts: each operation is a zero-sized type whose `LAYOUT` is
//! the shared `const fn` algebra ([`crate::algebra`]) evaluated by the compiler. A rule
//! violation becomes a build error whose message names the rule.

use super::{static_common, IntTree, StaticLayout};
use crate::algebra::{self, Arrangement};
use crate::error::CoreError;
use crate::int_tuple::IntTuple;
use crate::message::ConstMessage;
use crate::Layout;
use std::marker::PhantomData;

/// One static operation and its operands, for the build error of a failed rule.
#[derive(Clone, Copy)]
pub(crate) enum Call<'a> {
    /// `op(L)`.
    Unary(&'a str, &'a Layout),
    /// `op(A, B)`.
    Binary(&'a str, &'a Layout, &'a Layout),
    /// `op(L, n)`: a cotarget or an integer key.
    WithInt(&'a str, &'a Layout, u64),
    /// `op(L, (tree))`: a coordinate or a broadcast target.
    WithTree(&'a str, &'a Layout, &'a IntTuple),
    /// `op(A, [T, ...])`.
    WithTiler(&'a str, &'a Layout, &'a [Layout]),
}

impl Call<'_> {
    /// The call in notation, as the runtime error prints it: `compose((4,6):(1,5), 6:1)`.
    pub(crate) const fn write(self, m: &mut ConstMessage) {
        let (op, l) = match self {
            Call::Unary(op, l)
            | Call::Binary(op, l, _)
            | Call::WithInt(op, l, _)
            | Call::WithTree(op, l, _)
            | Call::WithTiler(op, l, _) => (op, l),
        };
        m.str(op).char(b'(').layout(l);
        match self {
            Call::Unary(..) => m,
            Call::Binary(_, _, b) => m.str(", ").layout(b),
            Call::WithInt(_, _, n) => m.str(", ").u64(n),
            Call::WithTree(_, _, t) => m.str(", ").tuple(t),
            Call::WithTiler(_, _, ts) => m.str(", ").tiler(ts),
        }
        .char(b')');
    }
}

/// The result of a static operation, or a build error that names the operation, its
/// layouts in notation, the failed rule with its values (the runtime error's words) and
/// what would satisfy it. `const` code cannot `format!`, so the message is built by
/// [`ConstMessage`]; it is built only when the rule fails.
#[track_caller]
pub(crate) const fn or_build_error(result: Result<Layout, CoreError>, call: Call) -> Layout {
    match result {
        Ok(l) => l,
        Err(e) => build_error(failure(call, &e)),
    }
}

/// Fails the compiler's evaluation with `msg`, reported at the caller (the failing
/// `const` item), not inside this module.
#[track_caller]
pub(crate) const fn build_error(msg: ConstMessage) -> ! {
    panic!("{}", msg.as_str())
}

/// `CALL: RULE; FIX`. Like the runtime, a layout whose modes do not chain because two of
/// them collide is reported as not injective (decided by enumeration for layouts of up
/// to [`ENUMERABLE`] indices; larger ones keep the chaining rule, which also holds).
pub(crate) const fn failure(call: Call, e: &CoreError) -> ConstMessage {
    let subject = match call {
        Call::Binary(_, _, b) => b,
        Call::Unary(_, l) | Call::WithInt(_, l, _) | Call::WithTree(_, l, _) => l,
        Call::WithTiler(_, l, _) => l,
    };
    let e = &match *e {
        CoreError::Unchainable { .. } if collides(subject) => CoreError::NotInjective,
        e => e,
    };
    let mut m = ConstMessage::new();
    call.write(&mut m);
    m.str(": ").rule(e).str("; ").str(fix(e));
    m
}

/// `static layout SHAPE:STRIDE: RULE; FIX`, for a hand-written static type whose trees do
/// not make a layout.
pub(crate) const fn invalid_layout(
    shape: &IntTuple,
    stride: &IntTuple,
    e: &CoreError,
) -> ConstMessage {
    let mut m = ConstMessage::new();
    m.str("static layout ")
        .tuple(shape)
        .char(b':')
        .tuple(stride)
        .str(": ")
        .rule(e)
        .str("; ")
        .str(fix(e));
    m
}

/// Layouts of up to this many indices (size and cosize) are checked for collisions by
/// enumeration in a build error's message.
const ENUMERABLE: u64 = 1 << 14;

/// Whether two coordinates of `l` reach one index, for a small `l` (else `false`).
const fn collides(l: &Layout) -> bool {
    matches!(enumerated_injective(l), Some(false))
}

/// Whether `l` is injective, decided by enumerating its indices when it has at most
/// [`ENUMERABLE`] of them (`None` for larger layouts).
const fn enumerated_injective(l: &Layout) -> Option<bool> {
    let (size, cosize) = (l.size(), l.cosize());
    if size > ENUMERABLE || cosize > ENUMERABLE {
        return None;
    }
    let mut seen = [0u64; (ENUMERABLE / 64) as usize];
    let mut i = 0;
    while i < size {
        let idx = match l.index_of(i) {
            Ok(idx) => idx,
            Err(_) => return None,
        };
        let (word, bit) = ((idx / 64) as usize, 1u64 << (idx % 64));
        if seen[word] & bit != 0 {
            return Some(false);
        }
        seen[word] |= bit;
        i += 1;
    }
    Some(true)
}

/// The runtime's product rule, in the compiler: the product `p` of `a` by `b` fails when
/// its copies of `a` overlap ([`algebra::product_overlap_witness`]), decided by
/// enumeration for layouts of up to [`ENUMERABLE`] indices (CuTe's result beyond).
const fn checked_product(
    a: &Layout,
    b: &Layout,
    p: Result<Layout, CoreError>,
) -> Result<Layout, CoreError> {
    match (p, algebra::product_overlap_witness(a, b)) {
        (Err(e), _) | (Ok(_), Err(e)) => Err(e),
        (Ok(_), Ok(Some(q)))
            if matches!(enumerated_injective(b), Some(true))
                && matches!(enumerated_injective(&q), Some(false)) =>
        {
            Err(algebra::product_overlap(a, b))
        }
        (Ok(p), Ok(_)) => Ok(p),
    }
}

/// [`checked_product`] by mode, for a product by a tiler.
const fn checked_product_tiler(
    a: &Layout,
    tiles: &[Layout],
    p: Result<Layout, CoreError>,
) -> Result<Layout, CoreError> {
    let p = match p {
        Ok(p) => p,
        Err(e) => return Err(e),
    };
    let mut i = 0;
    while i < tiles.len() {
        let mode = match (a.mode(i), p.mode(i)) {
            (Ok(m), Ok(pm)) => checked_product(&m, &tiles[i], Ok(pm)),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        if let Err(e) = mode {
            return Err(e);
        }
        i += 1;
    }
    Ok(p)
}

/// What would satisfy the rule `e` names.
const fn fix(e: &CoreError) -> &'static str {
    match e {
        CoreError::StrideDivisibility { .. } => "each stride of B must divide, or be a multiple of, the extent of A it reaches",
        CoreError::ShapeDivisibility { .. } => "where B spans past a mode of A, its remaining extent must be a multiple of that mode's extent",
        CoreError::ModeOverlap { .. } => "compose with an injective B, or onto a single-mode A",
        CoreError::ProductOverlap { .. } => "choose a B whose copies fit in A's complement, or an A without gaps",
        CoreError::NotInjective => "the operation needs an injective layout (no stride-0 mode of extent above 1, no overlapping modes)",
        CoreError::Unchainable { .. } => "sorted by stride, each stride must be a multiple of the span (extent times stride) of the smaller ones",
        CoreError::CotargetTooSmall { .. } => "use a cotarget of at least the layout's size",
        CoreError::Overflow { .. } => "use smaller extents or strides",
        CoreError::TooManyLeaves | CoreError::TooManyNodes => "a layout holds at most 32 leaves and 96 tree nodes",
        CoreError::TooManyTiles { .. } => "give at most one tile per top-level mode",
        CoreError::BroadcastExtent { .. } => "only extent-1 leaves widen; every other target extent must equal the shape's",
        CoreError::ProfileMismatch => "the target must nest like the shape",
        CoreError::OutOfDomain { .. } => "each component must be below its extent, an integer key below the size",
        CoreError::CoordinateMismatch => "give one component per mode, nested like the shape, or one integer",
        CoreError::ZeroExtent => "a mode of extent 0 has no coordinates; use 1 for a trivial mode",
        CoreError::NotCongruent => "a stride tree has the shape's structure",
        CoreError::ModeOutOfRange { .. } => "use a mode index below the rank",
        CoreError::LeftInverseDivisibility { .. } => "sorted by stride, each non-zero stride must be a multiple of the next smaller one",
        CoreError::NotEvenlyDivided { .. } => "choose a block whose extents divide the target's",
        CoreError::RecastDivisibility { .. } => "each stride and the recast factor must divide one another",
        CoreError::NoUnitStride => "downcast needs a stride-1 mode (adjacent elements) to split",
        CoreError::InjectivityUndecided { .. } => "use a layout whose strides chain, so injectivity is decided structurally",
    }
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
    const LAYOUT: Layout = {
        let (a, b) = (&A::LAYOUT, &B::LAYOUT);
        let r = algebra::compose(a, b);
        or_build_error(r, Call::Binary("compose", a, b))
    };
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
    const LAYOUT: Layout = {
        let a = &A::LAYOUT;
        let r = algebra::complement(a, M);
        or_build_error(r, Call::WithInt("complement", a, M))
    };
}

static_common!([A: StaticLayout, const M: u64] Complement<A, M>);

static_op!(
    /// `divide(A, B)` computed by the compiler ([`StaticLayout::divide`]).
    Divided [A: StaticLayout, B: StaticLayout] <A, B>
);

impl<A: StaticLayout, B: StaticLayout> StaticLayout for Divided<A, B> {
    const LAYOUT: Layout = {
        let (a, b) = (&A::LAYOUT, &B::LAYOUT);
        let r = algebra::divide(a, b);
        or_build_error(r, Call::Binary("divide", a, b))
    };
}

static_op!(
    /// `zipped_divide(A, T)` computed by the compiler ([`StaticLayout::zipped_divide`]).
    ZippedDivided [A: StaticLayout, T: StaticTiler] <A, T>
);

impl<A: StaticLayout, T: StaticTiler> StaticLayout for ZippedDivided<A, T> {
    const LAYOUT: Layout = {
        let (a, t) = (&A::LAYOUT, T::TILES);
        let r = algebra::zipped_divide(a, t);
        or_build_error(r, Call::WithTiler("zipped_divide", a, t))
    };
}

static_op!(
    /// `tiled_divide(A, T)` computed by the compiler ([`StaticLayout::tiled_divide`]).
    TiledDivided [A: StaticLayout, T: StaticTiler] <A, T>
);

impl<A: StaticLayout, T: StaticTiler> StaticLayout for TiledDivided<A, T> {
    const LAYOUT: Layout = {
        let (a, t) = (&A::LAYOUT, T::TILES);
        let r = algebra::tiled_divide(a, t);
        or_build_error(r, Call::WithTiler("tiled_divide", a, t))
    };
}

static_op!(
    /// `logical_product(A, B)` computed by the compiler.
    LogicalProduct [A: StaticLayout, B: StaticLayout] <A, B>
);

impl<A: StaticLayout, B: StaticLayout> StaticLayout for LogicalProduct<A, B> {
    const LAYOUT: Layout = {
        let (a, b) = (&A::LAYOUT, &B::LAYOUT);
        let r = checked_product(a, b, algebra::logical_product(a, b));
        or_build_error(r, Call::Binary("logical_product", a, b))
    };
}

static_op!(
    /// `blocked_product(A, B)` computed by the compiler.
    BlockedProduct [A: StaticLayout, B: StaticLayout] <A, B>
);

impl<A: StaticLayout, B: StaticLayout> StaticLayout for BlockedProduct<A, B> {
    const LAYOUT: Layout = {
        let (a, b) = (&A::LAYOUT, &B::LAYOUT);
        let r = checked_product(a, b, algebra::blocked_product(a, b));
        or_build_error(r, Call::Binary("blocked_product", a, b))
    };
}

static_op!(
    /// `raked_product(A, B)` computed by the compiler.
    RakedProduct [A: StaticLayout, B: StaticLayout] <A, B>
);

impl<A: StaticLayout, B: StaticLayout> StaticLayout for RakedProduct<A, B> {
    const LAYOUT: Layout = {
        let (a, b) = (&A::LAYOUT, &B::LAYOUT);
        let r = checked_product(a, b, algebra::raked_product(a, b));
        or_build_error(r, Call::Binary("raked_product", a, b))
    };
}

static_op!(
    /// `coalesce(A)` computed by the compiler.
    Coalesced [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for Coalesced<A> {
    const LAYOUT: Layout = algebra::coalesce(&A::LAYOUT);
}

static_op!(
    /// `filter(A)` computed by the compiler.
    Filtered [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for Filtered<A> {
    const LAYOUT: Layout = algebra::filter(&A::LAYOUT);
}

static_op!(
    /// `right_inverse(A)` computed by the compiler.
    RightInverse [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for RightInverse<A> {
    const LAYOUT: Layout = {
        let a = &A::LAYOUT;
        let r = algebra::right_inverse(a);
        or_build_error(r, Call::Unary("right_inverse", a))
    };
}

static_op!(
    /// `left_inverse(A)` computed by the compiler.
    LeftInverse [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for LeftInverse<A> {
    const LAYOUT: Layout = {
        let a = &A::LAYOUT;
        let r = algebra::left_inverse(a);
        or_build_error(r, Call::Unary("left_inverse", a))
    };
}

static_op!(
    /// `broadcast_to(A, T)` computed by the compiler ([`crate::Static::broadcast_to`]).
    Broadcast [A: StaticLayout, T: IntTree] <A, T>
);

impl<A: StaticLayout, T: IntTree> StaticLayout for Broadcast<A, T> {
    const LAYOUT: Layout = {
        let (a, t) = (&A::LAYOUT, &T::TUPLE);
        let r = a.broadcast_tuple(t);
        or_build_error(r, Call::WithTree("broadcast_to", a, t))
    };
}

/// A static tiler: a tuple of 1 to 32 static tile layouts, one per leading mode (at
/// most the layout's rank, or the division fails the build naming both counts).
///
/// ```
/// use strideweave::{layout_type, StaticTiler};
/// type T = (layout_type!(4:1), layout_type!(2:1));
/// assert_eq!(T::TILES.len(), 2);
/// assert_eq!(T::TILES[1].to_string(), "2:1");
/// ```
pub trait StaticTiler: Copy + 'static {
    /// The tile layouts, computed by the compiler.
    const TILES: &'static [Layout];
}

/// The tiler impls for every tuple length from 32 (a layout's leaf capacity, so its
/// largest rank) down to 1.
macro_rules! tuple_tilers {
    () => {};
    ($t0:ident $(, $t:ident)*) => {
        impl<$t0: StaticLayout $(, $t: StaticLayout)*> StaticTiler for ($t0, $($t,)*) {
            const TILES: &'static [Layout] = &[$t0::LAYOUT $(, $t::LAYOUT)*];
        }
        tuple_tilers!($($t),*);
    };
}

tuple_tilers!(
    T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20,
    T21, T22, T23, T24, T25, T26, T27, T28, T29, T30, T31
);

/// The index of static coordinate `K` in static layout `L`, computed by the compiler.
pub(crate) struct IndexAt<L, K>(PhantomData<fn() -> (L, K)>);

impl<L: StaticLayout, K: IntTree> IndexAt<L, K> {
    pub(crate) const VALUE: u64 = match L::LAYOUT.index_tuple(&K::TUPLE) {
        Ok(v) => v,
        Err(e) => build_error(failure(Call::WithTree("index", &L::LAYOUT, &K::TUPLE), &e)),
    };
}

static_op!(
    /// `flat_divide(A, T)` computed by the compiler ([`StaticLayout::flat_divide`]).
    FlatDivided [A: StaticLayout, T: StaticTiler] <A, T>
);

impl<A: StaticLayout, T: StaticTiler> StaticLayout for FlatDivided<A, T> {
    const LAYOUT: Layout = or_build_error(
        match algebra::divide_tiler(&A::LAYOUT, T::TILES) {
            Ok(d) => algebra::arrange_by_mode(&d, T::TILES.len(), Arrangement::Flat),
            Err(e) => Err(e),
        },
        Call::WithTiler("flat_divide", &A::LAYOUT, T::TILES),
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
    const LAYOUT: Layout = or_build_error(
        match checked_product_tiler(
            &A::LAYOUT,
            T::TILES,
            algebra::logical_product_tiler(&A::LAYOUT, T::TILES),
        ) {
            Ok(p) => algebra::arrange_by_mode(
                &p,
                T::TILES.len(),
                match HOW {
                    0 => Arrangement::Zipped,
                    1 => Arrangement::Tiled,
                    _ => Arrangement::Flat,
                },
            ),
            Err(e) => Err(e),
        },
        Call::WithTiler(
            match HOW {
                0 => "zipped_product",
                1 => "tiled_product",
                _ => "flat_product",
            },
            &A::LAYOUT,
            T::TILES,
        ),
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
    const LAYOUT: Layout = or_build_error(
        if UP {
            algebra::upcast(&A::LAYOUT, N)
        } else {
            algebra::downcast(&A::LAYOUT, N)
        },
        Call::WithInt(if UP { "upcast" } else { "downcast" }, &A::LAYOUT, N),
    );
}

static_common!([A: StaticLayout, const N: u64, const UP: bool] Recast<A, N, UP>);

static_op!(
    /// `nullspace(A)` computed by the compiler ([`StaticLayout::nullspace`]).
    Nullspace [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for Nullspace<A> {
    const LAYOUT: Layout = or_build_error(
        algebra::nullspace(&A::LAYOUT),
        Call::Unary("nullspace", &A::LAYOUT),
    );
}

static_op!(
    /// `make_layout_like(A)` computed by the compiler ([`StaticLayout::make_layout_like`]).
    LayoutLike [A: StaticLayout] <A>
);

impl<A: StaticLayout> StaticLayout for LayoutLike<A> {
    const LAYOUT: Layout = or_build_error(
        algebra::make_layout_like(&A::LAYOUT),
        Call::Unary("make_layout_like", &A::LAYOUT),
    );
}

static_op!(
    /// `coalesce(A, P)` by mode, computed by the compiler ([`StaticLayout::coalesce_by`]).
    CoalescedBy [A: StaticLayout, P: IntTree] <A, P>
);

impl<A: StaticLayout, P: IntTree> StaticLayout for CoalescedBy<A, P> {
    const LAYOUT: Layout = or_build_error(
        algebra::coalesce_by(&A::LAYOUT, &P::TUPLE),
        Call::WithTree("coalesce", &A::LAYOUT, &P::TUPLE),
    );
}

static_op!(
    /// `tile_to_shape(A, S)` (copies column-major) computed by the compiler
    /// ([`StaticLayout::tile_to_shape`]).
    TileToShape [A: StaticLayout, S: IntTree] <A, S>
);

impl<A: StaticLayout, S: IntTree> StaticLayout for TileToShape<A, S> {
    const LAYOUT: Layout = or_build_error(
        algebra::tile_to_shape(&A::LAYOUT, &S::TUPLE, None),
        Call::WithTree("tile_to_shape", &A::LAYOUT, &S::TUPLE),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(s: &str) -> Layout {
        s.parse().unwrap()
    }

    /// Issue 9 item 3: a static rule failure prints the runtime error's text (operation,
    /// layouts in notation, rule with its values), then what would satisfy the rule.
    #[test]
    fn static_failures_read_as_the_runtime_errors_plus_a_fix() {
        let (a, b) = (l("(4,6):(1,5)"), l("6:1"));
        let e = algebra::compose(&a, &b).unwrap_err();
        let msg = failure(Call::Binary("compose", &a, &b), &e);
        let runtime = a.compose(&b).unwrap_err().to_string();
        assert!(msg
            .as_str()
            .starts_with(&format!("{}; ", runtime.trim_start_matches("value: "))));
        assert!(msg
            .as_str()
            .starts_with("compose((4,6):(1,5), 6:1): shape divisibility"));

        // the static divide names the runtime's rule (the tile's modes do not chain)
        let (a, b) = (l("12:1"), l("(2,2):(1,3)"));
        let e = algebra::divide(&a, &b).unwrap_err();
        let runtime = a.divide(&b).unwrap_err();
        assert_eq!(runtime.core(), Some(e));
        let msg = failure(Call::Binary("divide", &a, &b), &e);
        assert!(
            msg.as_str().starts_with(runtime.message()),
            "{}",
            msg.as_str()
        );

        // a non-injective complement names self-overlap, as the runtime does
        let a = l("(4,2):(1,1)");
        let e = algebra::complement(&a, 8).unwrap_err();
        let runtime = a.complement(8).unwrap_err();
        assert!(runtime.message().contains("not injective"));
        let msg = failure(Call::WithInt("complement", &a, 8), &e);
        assert!(
            msg.as_str().starts_with(runtime.message()),
            "{}",
            msg.as_str()
        );

        let (a, tiles) = (l("(4,4):(1,4)"), [l("2:1"), l("2:1"), l("2:1")]);
        let e = algebra::zipped_divide(&a, &tiles).unwrap_err();
        assert_eq!(
            failure(Call::WithTiler("zipped_divide", &a, &tiles), &e).as_str(),
            "zipped_divide((4,4):(1,4), [2:1,2:1,2:1]): 3 tiles given for a layout of rank 2; give at most one tile per top-level mode"
        );
    }
}
