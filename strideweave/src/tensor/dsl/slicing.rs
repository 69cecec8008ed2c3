//! Slicing a tensor with CuTe's `_`: a coordinate in which [`All`] keeps a mode and an
//! integer fixes it. The kept modes form the new layout; the fixed ones move the origin.

use crate::error::{CoreError, LayoutError};
use crate::int_tuple::{IntTuple, Node};
use crate::static_layout::static_common;
use crate::{Layout, StaticLayout};
use std::marker::PhantomData;

/// CuTe's `_` in a slice coordinate: keep this mode (or sub-tree) whole.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{All, Tensor};
/// let data: Vec<u32> = (0..12).collect();
/// let t = Tensor::new(&data[..], "(3,4):(1,3)".parse::<Layout>().unwrap()).unwrap();
/// let column = t.slice((All, 2)).unwrap();        // keep mode 0, fix mode 1 at 2
/// assert_eq!(column.layout().to_string(), "3:1");
/// assert_eq!((column[0], column[2]), (6, 8));
/// let row = t.slice((1, All)).unwrap();
/// assert_eq!((row.size(), row[3]), (4, 10));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct All;

/// A slice coordinate: [`All`], an integer (fixing a whole mode or sub-tree, expanded
/// first mode fastest), or a tuple (up to 8 items, nested as the shape) of slice
/// coordinates. Which items are [`All`] is part of the type, so slicing a static tensor
/// gives a static layout; the integers may be run-time values.
///
/// ```
/// use strideweave::tensor::{All, SliceSpec};
/// fn kept<S: SliceSpec>(_: S) -> String { S::PATTERN.to_string() }
/// assert_eq!(kept((All, (3, All))), "(1,(0,1))");   // 1 = kept, 0 = fixed
/// ```
pub trait SliceSpec: Copy {
    /// Whether this item is a single [`All`] or integer.
    #[doc(hidden)]
    const IS_LEAF: bool;
    /// The tree of the coordinate with 1 for [`All`] and 0 for integers.
    #[doc(hidden)]
    const PATTERN: IntTuple;
    /// Appends this item's fixed values (0 for [`All`]) as one item of `out`.
    #[doc(hidden)]
    fn write_item(&self, out: &mut IntTuple) -> Result<(), LayoutError>;
    /// Appends the top-level items' values (a tuple without its own parentheses).
    #[doc(hidden)]
    fn write_values(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        self.write_item(out)
    }
}

fn tree_error(e: CoreError) -> LayoutError {
    LayoutError::from_core("slice coordinate", e)
}

impl SliceSpec for All {
    const IS_LEAF: bool = true;
    const PATTERN: IntTuple = IntTuple::scalar(1);
    fn write_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        out.push_leaf(0).map_err(tree_error)
    }
}

macro_rules! int_specs {
    ($($t:ty),*) => {$(
        impl SliceSpec for $t {
            const IS_LEAF: bool = true;
            const PATTERN: IntTuple = IntTuple::scalar(0);
            #[allow(unused_comparisons)]
            fn write_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
                let v = u64::try_from(*self).map_err(|_| {
                    LayoutError::value(format!("slice coordinate {self} is negative"))
                })?;
                out.push_leaf(v).map_err(tree_error)
            }
        }
    )*};
}
int_specs!(usize, u64, u32, i32);

/// `acc` with `item` appended as one item (a leaf bare, a tuple in parentheses).
const fn push_pattern(acc: IntTuple, item: IntTuple, is_leaf: bool) -> IntTuple {
    let mut acc = acc;
    let r = if is_leaf {
        acc.push_leaf(item.leaf(0))
    } else {
        acc.extend_from(&item, 0, item.node_count(), 0, true)
    };
    match r {
        Ok(()) => acc,
        Err(_) => panic!("slice coordinate has more than 32 leaves or 96 nodes"),
    }
}

macro_rules! tuple_specs {
    ($(($($n:ident),+)),*) => {$(
        #[allow(non_snake_case)]
        impl<$($n: SliceSpec),+> SliceSpec for ($($n,)+) {
            const IS_LEAF: bool = false;
            const PATTERN: IntTuple = {
                let acc = IntTuple::EMPTY;
                $(let acc = push_pattern(acc, $n::PATTERN, $n::IS_LEAF);)+
                acc
            };
            fn write_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
                out.push_node(Node::Push).map_err(tree_error)?;
                self.write_values(out)?;
                out.push_node(Node::Pop).map_err(tree_error)
            }
            fn write_values(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
                let ($($n,)+) = self;
                $($n.write_item(out)?;)+
                Ok(())
            }
        }
    )*};
}
tuple_specs!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H)
);

/// The kept layout and the offset of slicing `l` with the coordinate whose [`All`]
/// items are the 1-leaves of `pattern` and whose integers are the matching leaves of
/// `values` (same tree as `pattern`).
pub(crate) const fn slice_parts(
    l: &Layout,
    pattern: &IntTuple,
    values: &IntTuple,
) -> Result<(Layout, u64), CoreError> {
    if pattern.is_scalar() {
        return if pattern.leaf(0) == 1 {
            Ok((*l, 0))
        } else {
            match l.index_of(values.leaf(0)) {
                Ok(off) => Ok((Layout::EMPTY, off)),
                Err(e) => Err(e),
            }
        };
    }
    let mut kept = Layout::EMPTY;
    let mut offset = 0;
    tri!(walk(l, pattern, values, &mut kept, &mut offset));
    Ok((tri!(kept.validated()), offset))
}

/// Slices each top-level item of `l` with the matching item of the coordinate, appending
/// kept items to `kept` as modes and adding fixed items' offsets.
const fn walk(
    l: &Layout,
    pattern: &IntTuple,
    values: &IntTuple,
    kept: &mut Layout,
    offset: &mut u64,
) -> Result<(), CoreError> {
    if pattern.rank() != l.rank() {
        return Err(CoreError::CoordinateMismatch);
    }
    let mut i = 0;
    while i < l.rank() {
        let sub = tri!(l.mode(i));
        let p = tri!(pattern.mode(i));
        let v = tri!(values.mode(i));
        if p.is_scalar() {
            if p.leaf(0) == 1 {
                tri!(kept.push_mode(&sub));
            } else {
                // the offsets of fixed items add up to at most cosize - 1: no overflow
                *offset += tri!(sub.index_of(v.leaf(0)));
            }
        } else {
            tri!(walk(&sub, &p, &v, kept, offset));
        }
        i += 1;
    }
    Ok(())
}

/// The runtime values of a slice coordinate as a tree.
pub(crate) fn spec_values<S: SliceSpec>(spec: &S) -> Result<IntTuple, LayoutError> {
    let mut t = IntTuple::EMPTY;
    spec.write_values(&mut t)?;
    Ok(t)
}

/// A readable form of a slice coordinate for error messages: `_` for [`All`].
pub(crate) fn spec_notation(pattern: &IntTuple, values: &IntTuple) -> String {
    let mut s = String::new();
    let mut leaf = 0;
    let mut first = true;
    if !pattern.is_scalar() {
        s.push('(');
    }
    for n in pattern.recipe() {
        match n {
            Node::Leaf => {
                if !first {
                    s.push(',');
                }
                if pattern.leaf(leaf) == 1 {
                    s.push('_');
                } else {
                    s.push_str(&values.leaf(leaf).to_string());
                }
                leaf += 1;
                first = false;
            }
            Node::Push => {
                if !first {
                    s.push(',');
                }
                s.push('(');
                first = true;
            }
            Node::Pop => {
                s.push(')');
                first = false;
            }
        }
    }
    if !pattern.is_scalar() {
        s.push(')');
    }
    s
}

/// The layout kept by slicing static layout `L` with a coordinate of type `P`, computed
/// by the compiler (the integers of `P` only move the origin). A coordinate that does not
/// follow `L`'s hierarchy fails the build.
///
/// ```
/// use strideweave::{layout_type, StaticLayout};
/// use strideweave::tensor::{All, Sliced};
/// type M = layout_type!((4,(2,3)):(1,(4,8)));
/// assert_eq!(Sliced::<M, (usize, (All, usize))>::LAYOUT.to_string(), "2:4");
/// ```
pub struct Sliced<L, P>(PhantomData<fn() -> (L, P)>);

impl<L: StaticLayout, P: SliceSpec + 'static> Sliced<L, P> {
    /// The (zero-sized) value.
    pub const fn new() -> Self {
        let _ = <Self as StaticLayout>::LAYOUT;
        Sliced(PhantomData)
    }
}

impl<L: StaticLayout, P: SliceSpec + 'static> StaticLayout for Sliced<L, P> {
    const LAYOUT: Layout = match slice_parts(&L::LAYOUT, &P::PATTERN, &P::PATTERN) {
        Ok((l, _)) => l,
        Err(_) => panic!(
            "static slice: the slice coordinate does not follow the layout's hierarchy (one item per mode, nested like the shape)"
        ),
    };
}

static_common!([L: StaticLayout, P: SliceSpec + 'static] Sliced<L, P>);
