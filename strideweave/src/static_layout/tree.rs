//! Type-level integer trees: the static leaf [`C<N>`](C), tuples of trees, and the
//! structural relations (congruence, equal profiles) checked by the trait solver.

use crate::error::CoreError;
use crate::int_tuple::{IntTuple, Node};
use std::fmt;

/// A static integer leaf: the value `N` lives in the type.
///
/// Shape, stride and coordinate trees of static layouts are built from `C<N>` leaves and
/// (nested) tuples of them, so the notation `(2,(3,4))` becomes the type
/// `(C<2>, (C<3>, C<4>))`, which is also how compile errors print it.
///
/// ```
/// use strideweave::{IntTree, C};
/// assert_eq!(<(C<2>, (C<3>, C<4>))>::tuple().to_string(), "(2,(3,4))");
/// assert_eq!(C::<7>.to_string(), "7");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct C<const N: u64>;

impl<const N: u64> C<N> {
    /// The value of the leaf.
    pub const VALUE: u64 = N;
}

impl<const N: u64> fmt::Debug for C<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "C<{N}>")
    }
}

impl<const N: u64> fmt::Display for C<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{N}")
    }
}

/// A type-level integer tree: a leaf [`C<N>`](C), `()`, or a tuple (up to 32 items, a
/// layout's leaf capacity) of trees. Its value is the flat [`IntTuple`] the runtime uses, computed by the compiler.
///
/// ```
/// use strideweave::{IntTree, C};
/// type T = (C<4>, ((C<2>,), C<3>));
/// assert_eq!(T::tuple().to_string(), "(4,((2),3))");
/// assert_eq!(<C<20>>::tuple(), <(C<20>,)>::tuple()); // `20` and `(20)` are one value
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a static integer tree",
    label = "not a static tree",
    note = "static trees are `C<N>` leaves, `()` and tuples of up to 32 trees (a layout holds at most 32 leaves)"
)]
pub trait IntTree: Copy + 'static {
    /// Whether this tree is a single integer leaf.
    const IS_LEAF: bool;
    /// The tree as a flat tuple, or the capacity it overflows (building block of
    /// [`IntTree::TUPLE`]).
    #[doc(hidden)]
    const ITEMS: Result<IntTuple, CoreError>;
    /// The tree as a flat tuple (a leaf is the rank-1 tuple holding it). A tree with more
    /// than [`MAX_LEAVES`](crate::MAX_LEAVES) leaves fails the build here.
    const TUPLE: IntTuple = tuple_or_panic(Self::ITEMS);

    /// The tree's value as a runtime integer tree ([`IntTree::TUPLE`]).
    fn tuple() -> IntTuple {
        Self::TUPLE
    }
}

impl<const N: u64> IntTree for C<N> {
    const IS_LEAF: bool = true;
    const ITEMS: Result<IntTuple, CoreError> = Ok(IntTuple::scalar(N));
}

impl IntTree for () {
    const IS_LEAF: bool = false;
    const ITEMS: Result<IntTuple, CoreError> = Ok(IntTuple::EMPTY);
}

/// Appends `item` (a tree's items) to `acc` as one item: a leaf as a leaf, anything else
/// inside one pair of parentheses.
const fn push_item(
    acc: Result<IntTuple, CoreError>,
    item: Result<IntTuple, CoreError>,
    is_leaf: bool,
) -> Result<IntTuple, CoreError> {
    let mut acc = match acc {
        Ok(a) => a,
        Err(e) => return Err(e),
    };
    let item = match item {
        Ok(i) => i,
        Err(e) => return Err(e),
    };
    let r = if is_leaf {
        acc.push_leaf(item.leaf(0))
    } else {
        acc.extend_from(&item, 0, item.node_count(), 0, true)
    };
    match r {
        Ok(()) => Ok(acc),
        Err(e) => Err(e),
    }
}

/// The tree of a static type, or a build error naming the capacity that overflowed.
#[track_caller]
pub(crate) const fn tuple_or_panic(t: Result<IntTuple, CoreError>) -> IntTuple {
    match t {
        Ok(t) => t,
        Err(CoreError::TooManyLeaves) => {
            panic!("static tree has more than 32 leaves: a layout holds at most 32 leaves")
        }
        Err(_) => panic!("static tree has more than 96 nodes: a layout holds at most 96 tree nodes (leaves and parentheses)"),
    }
}

/// Shape and stride trees with the same structure: implemented for two leaves, for `()`
/// and `()`, and for tuples of the same length whose items are pairwise congruent.
///
/// A static layout requires `Shape: Congruent<Stride>`, so a hand-written mismatch is a
/// type error in `cargo check`:
///
/// ```compile_fail
/// use strideweave::{Static, C};
/// fn f(_: Static<(C<2>, (C<3>, C<4>)), (C<1>, C<2>, C<6>)>) {}
/// ```
#[diagnostic::on_unimplemented(
    message = "shape `{Self}` and stride `{D}` are not congruent",
    label = "shape and stride trees differ in structure",
    note = "a stride tree has the shape's structure: one stride per extent, nested alike, e.g. `(C<2>, (C<3>, C<4>))` with `(C<1>, (C<2>, C<6>))`"
)]
pub trait Congruent<D: IntTree>: IntTree {}

#[diagnostic::do_not_recommend]
impl<const A: u64, const B: u64> Congruent<C<B>> for C<A> {}
#[diagnostic::do_not_recommend]
impl Congruent<()> for () {}

/// Two trees with the same profile (leaf-and-nesting recipe): what a broadcast target
/// must share with the layout's shape.
///
/// `Target: SameProfile<Shape>` (the target is the self type, so the check does not steer
/// type inference of the target).
#[diagnostic::on_unimplemented(
    message = "cannot broadcast shape `{S}` to `{Self}`: their profiles differ",
    label = "this target has another nesting than shape `{S}`",
    note = "broadcasting only widens extent-1 leaves; it never adds, removes, nests or flattens modes"
)]
pub trait SameProfile<S: IntTree>: IntTree {}

#[diagnostic::do_not_recommend]
impl<const A: u64, const B: u64> SameProfile<C<B>> for C<A> {}
#[diagnostic::do_not_recommend]
impl SameProfile<()> for () {}

/// The tree impls for every tuple length from 32 down to 1 (a layout holds at most 32
/// leaves, so no wider tuple can be a valid tree).
macro_rules! tuple_trees {
    () => {};
    ($s0:ident $d0:ident $(, $s:ident $d:ident)*) => {
        impl<$s0: IntTree $(, $s: IntTree)*> IntTree for ($s0, $($s,)*) {
            const IS_LEAF: bool = false;
            const ITEMS: Result<IntTuple, CoreError> = {
                let acc = push_item(Ok(IntTuple::EMPTY), $s0::ITEMS, $s0::IS_LEAF);
                $(let acc = push_item(acc, $s::ITEMS, $s::IS_LEAF);)*
                acc
            };
        }
        #[diagnostic::do_not_recommend]
        impl<$s0: Congruent<$d0>, $d0: IntTree $(, $s: Congruent<$d>, $d: IntTree)*>
            Congruent<($d0, $($d,)*)> for ($s0, $($s,)*) {}
        #[diagnostic::do_not_recommend]
        impl<$s0: SameProfile<$d0>, $d0: IntTree $(, $s: SameProfile<$d>, $d: IntTree)*>
            SameProfile<($d0, $($d,)*)> for ($s0, $($s,)*) {}
        tuple_trees!($($s $d),*);
    };
}

tuple_trees!(S0 D0, S1 D1, S2 D2, S3 D3, S4 D4, S5 D5, S6 D6, S7 D7, S8 D8, S9 D9, S10 D10, S11 D11, S12 D12, S13 D13, S14 D14, S15 D15, S16 D16, S17 D17, S18 D18, S19 D19, S20 D20, S21 D21, S22 D22, S23 D23, S24 D24, S25 D25, S26 D26, S27 D27, S28 D28, S29 D29, S30 D30, S31 D31);

/// The recipe nodes of a tuple, copied into a fixed array (for `&'static` profiles).
pub(crate) const fn recipe_array(t: &IntTuple) -> [Node; crate::MAX_NODES] {
    let mut a = [Node::Leaf; crate::MAX_NODES];
    let mut i = 0;
    while i < t.node_count() {
        a[i] = t.node(i);
        i += 1;
    }
    a
}
