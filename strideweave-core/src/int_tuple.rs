//! Integer trees (`Shape`, `Stride`, coordinates) stored flat: leaf values plus the
//! spec's `Leaf`/`Push`/`Pop` recipe, fixed capacity, `Copy`, usable in `const fn`.
//!
//! The outermost level is always a tuple whose items are listed in the recipe without an
//! enclosing `Push`/`Pop`, so `20` and `(20)` are the same value, as the notation says.

use crate::error::{tri, CoreError, LayoutError};
use std::fmt;

/// Most leaves one tree (and so one layout) holds inline.
pub const MAX_LEAVES: usize = 32;
/// Most recipe nodes (leaves plus nested parentheses) one tree holds inline.
pub const MAX_NODES: usize = 96;

/// One marker of a tree recipe: a leaf, or the start or end of a nested tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Node {
    /// One leaf (an integer, or an identified leaf `Node::id(n)` of a [`crate::Tree`]).
    Leaf = 0,
    /// Opens a nested tuple.
    Push = 1,
    /// Closes a nested tuple.
    Pop = 2,
}

impl Node {
    pub(crate) const fn code(self) -> u8 {
        self as u8
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Node::Leaf => "Leaf",
            Node::Push => "Push",
            Node::Pop => "Pop",
        })
    }
}

/// A hierarchical tuple of non-negative integers in flat form.
#[derive(Clone, Copy)]
pub struct IntTuple {
    n_leaves: u8,
    n_nodes: u8,
    leaves: [u64; MAX_LEAVES],
    nodes: [Node; MAX_NODES],
}

impl IntTuple {
    /// The empty tuple `()`.
    pub const EMPTY: IntTuple = IntTuple {
        n_leaves: 0,
        n_nodes: 0,
        leaves: [0; MAX_LEAVES],
        nodes: [Node::Leaf; MAX_NODES],
    };

    /// A rank-1 tuple holding one integer: `n` (equal to `(n)`).
    pub const fn scalar(n: u64) -> IntTuple {
        let mut t = IntTuple::EMPTY;
        t.n_leaves = 1;
        t.n_nodes = 1;
        t.leaves[0] = n;
        t
    }

    /// A flat tuple of the given integers.
    pub const fn from_leaves(values: &[u64]) -> Result<IntTuple, CoreError> {
        let mut t = IntTuple::EMPTY;
        let mut i = 0;
        while i < values.len() {
            tri!(t.push_leaf(values[i]));
            i += 1;
        }
        Ok(t)
    }

    /// Number of leaves.
    pub const fn leaf_count(&self) -> usize {
        self.n_leaves as usize
    }

    /// Number of recipe nodes.
    pub const fn node_count(&self) -> usize {
        self.n_nodes as usize
    }

    /// Leaf `i` in depth-first order.
    pub const fn leaf(&self, i: usize) -> u64 {
        self.leaves[i]
    }

    /// All leaves in depth-first order.
    pub fn leaves(&self) -> &[u64] {
        &self.leaves[..self.n_leaves as usize]
    }

    /// The recipe (without the implicit outermost parentheses).
    pub fn recipe(&self) -> &[Node] {
        &self.nodes[..self.n_nodes as usize]
    }

    /// Recipe node `i`.
    pub const fn node(&self, i: usize) -> Node {
        self.nodes[i]
    }

    #[doc(hidden)]
    pub const fn set_leaf(&mut self, i: usize, v: u64) {
        self.leaves[i] = v;
    }

    /// Appends a leaf at the current nesting level.
    pub const fn push_leaf(&mut self, v: u64) -> Result<(), CoreError> {
        if self.n_leaves as usize >= MAX_LEAVES {
            return Err(CoreError::TooManyLeaves);
        }
        tri!(self.push_node(Node::Leaf));
        self.leaves[self.n_leaves as usize] = v;
        self.n_leaves += 1;
        Ok(())
    }

    /// Appends a structural node (`Push` or `Pop`); use [`IntTuple::push_leaf`] for leaves.
    pub const fn push_node(&mut self, n: Node) -> Result<(), CoreError> {
        if self.n_nodes as usize >= MAX_NODES {
            return Err(CoreError::TooManyNodes);
        }
        self.nodes[self.n_nodes as usize] = n;
        self.n_nodes += 1;
        Ok(())
    }

    /// Node index one past the end of the item starting at node `start`.
    pub const fn item_end(&self, start: usize) -> usize {
        let mut depth = 0usize;
        let mut i = start;
        loop {
            match self.nodes[i] {
                Node::Leaf => {}
                Node::Push => depth += 1,
                Node::Pop => depth -= 1,
            }
            i += 1;
            if depth == 0 {
                return i;
            }
        }
    }

    /// The item starting at node `start`: one past its last node, and its leaf count.
    pub const fn item_extent(&self, start: usize) -> (usize, usize) {
        let mut depth = 0usize;
        let mut leaves = 0;
        let mut i = start;
        loop {
            match self.nodes[i] {
                Node::Leaf => leaves += 1,
                Node::Push => depth += 1,
                Node::Pop => depth -= 1,
            }
            i += 1;
            if depth == 0 {
                return (i, leaves);
            }
        }
    }

    /// Number of top-level items.
    pub const fn rank(&self) -> usize {
        let mut r = 0;
        let mut i = 0;
        while i < self.n_nodes as usize {
            i = self.item_end(i);
            r += 1;
        }
        r
    }

    /// Nesting depth, CuTe's convention: an integer (a rank-1 tuple holding a leaf) has
    /// depth 0, a flat tuple depth 1, and each further level of parentheses adds one.
    pub const fn depth(&self) -> usize {
        if self.n_nodes == 1 {
            return 0;
        }
        let mut max = 0usize;
        let mut d = 0usize;
        let mut i = 0;
        while i < self.n_nodes as usize {
            match self.nodes[i] {
                Node::Leaf => {}
                Node::Push => {
                    d += 1;
                    if d > max {
                        max = d;
                    }
                }
                Node::Pop => d -= 1,
            }
            i += 1;
        }
        max + 1
    }

    /// Whether this is a single integer (rank 1, its item a leaf).
    pub const fn is_scalar(&self) -> bool {
        self.n_nodes == 1
    }

    /// Ranges of top-level item `i`: `(node_start, node_end, leaf_start, leaf_end)`.
    pub const fn item_range(&self, i: usize) -> Option<(usize, usize, usize, usize)> {
        let mut item = 0;
        let mut node = 0;
        let mut leaf = 0;
        while node < self.n_nodes as usize {
            let end = self.item_end(node);
            let leaves = self.count_leaves(node, end);
            if item == i {
                return Some((node, end, leaf, leaf + leaves));
            }
            leaf += leaves;
            node = end;
            item += 1;
        }
        None
    }

    /// Number of leaves among nodes `start..end`.
    pub const fn count_leaves(&self, start: usize, end: usize) -> usize {
        let mut n = 0;
        let mut i = start;
        while i < end {
            if self.nodes[i].code() == Node::Leaf.code() {
                n += 1;
            }
            i += 1;
        }
        n
    }

    /// Appends nodes `start..end` of `src` (with their leaves from `leaf_start`), optionally
    /// wrapped in one more level of parentheses.
    pub const fn extend_from(
        &mut self,
        src: &IntTuple,
        start: usize,
        end: usize,
        leaf_start: usize,
        wrap: bool,
    ) -> Result<(), CoreError> {
        if wrap {
            tri!(self.push_node(Node::Push));
        }
        let mut i = start;
        let mut l = leaf_start;
        while i < end {
            match src.nodes[i] {
                Node::Leaf => {
                    tri!(self.push_leaf(src.leaves[l]));
                    l += 1;
                }
                n => tri!(self.push_node(n)),
            }
            i += 1;
        }
        if wrap {
            tri!(self.push_node(Node::Pop));
        }
        Ok(())
    }

    /// Top-level item `i` as its own tuple (a leaf becomes a rank-1 tuple, a nested tuple
    /// loses its outer parentheses).
    pub const fn mode(&self, i: usize) -> Result<IntTuple, CoreError> {
        let (ns, ne, ls, _) = match self.item_range(i) {
            Some(r) => r,
            None => {
                return Err(CoreError::ModeOutOfRange {
                    index: i as u64,
                    rank: self.rank() as u64,
                })
            }
        };
        let mut t = IntTuple::EMPTY;
        if ne - ns == 1 {
            tri!(t.push_leaf(self.leaves[ls]));
        } else {
            tri!(t.extend_from(self, ns + 1, ne - 1, ls, false));
        }
        Ok(t)
    }

    /// Appends `other` as one top-level item: a rank-1 tuple contributes its single item,
    /// any other tuple is nested in parentheses.
    pub const fn append_item(&mut self, other: &IntTuple) -> Result<(), CoreError> {
        let wrap = other.rank() != 1;
        self.extend_from(other, 0, other.n_nodes as usize, 0, wrap)
    }

    /// Appends every top-level item of `other`.
    pub const fn append_all(&mut self, other: &IntTuple) -> Result<(), CoreError> {
        self.extend_from(other, 0, other.n_nodes as usize, 0, false)
    }

    /// Top-level items `start..end` as a tuple.
    pub const fn slice(&self, start: usize, end: usize) -> Result<IntTuple, CoreError> {
        let rank = self.rank();
        if start > end || end > rank {
            return Err(CoreError::ModeOutOfRange {
                index: end as u64,
                rank: rank as u64,
            });
        }
        let mut t = IntTuple::EMPTY;
        let mut i = start;
        while i < end {
            let (ns, ne, ls, _) = match self.item_range(i) {
                Some(r) => r,
                None => {
                    return Err(CoreError::ModeOutOfRange {
                        index: i as u64,
                        rank: rank as u64,
                    })
                }
            };
            tri!(t.extend_from(self, ns, ne, ls, false));
            i += 1;
        }
        Ok(t)
    }

    /// Same tree structure (recipe), whatever the values.
    pub const fn congruent(&self, other: &IntTuple) -> bool {
        if self.n_nodes != other.n_nodes {
            return false;
        }
        let mut i = 0;
        while i < self.n_nodes as usize {
            if self.nodes[i].code() != other.nodes[i].code() {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Structural and value equality, usable in `const` contexts.
    pub const fn const_eq(&self, other: &IntTuple) -> bool {
        if !self.congruent(other) || self.n_leaves != other.n_leaves {
            return false;
        }
        let mut i = 0;
        while i < self.n_leaves as usize {
            if self.leaves[i] != other.leaves[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Product of all leaves, `None` on overflow.
    pub const fn product(&self) -> Option<u64> {
        let mut p: u64 = 1;
        let mut i = 0;
        while i < self.n_leaves as usize {
            p = match p.checked_mul(self.leaves[i]) {
                Some(v) => v,
                None => return None,
            };
            i += 1;
        }
        Some(p)
    }

    /// Product of leaves `start..end`, `None` on overflow.
    pub const fn product_range(&self, start: usize, end: usize) -> Option<u64> {
        let mut p: u64 = 1;
        let mut i = start;
        while i < end {
            p = match p.checked_mul(self.leaves[i]) {
                Some(v) => v,
                None => return None,
            };
            i += 1;
        }
        Some(p)
    }

    /// Builds a tuple from anything convertible (integers, arrays, slices, `Vec`s and
    /// nested tuples of them).
    ///
    /// ```
    /// use strideweave::IntTuple;
    /// let t = IntTuple::new((2, (3, 4))).unwrap();
    /// assert_eq!(t.to_string(), "(2,(3,4))");
    /// assert_eq!(IntTuple::new([5]).unwrap(), IntTuple::new(5).unwrap());
    /// ```
    pub fn new(value: impl IntoIntTuple) -> Result<IntTuple, LayoutError> {
        let mut t = IntTuple::EMPTY;
        value.write_items(&mut t)?;
        Ok(t)
    }
}

impl PartialEq for IntTuple {
    fn eq(&self, other: &Self) -> bool {
        self.const_eq(other)
    }
}
impl Eq for IntTuple {}

impl std::hash::Hash for IntTuple {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.recipe().hash(state);
        self.leaves().hash(state);
    }
}

impl fmt::Display for IntTuple {
    /// Canonical notation: a single integer bare, anything else in parentheses, no spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::message::{ConstMessage, TUPLE_CAPACITY};
        f.write_str(ConstMessage::<TUPLE_CAPACITY>::empty().tuple(self).as_str())
    }
}

impl fmt::Debug for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Values that describe an integer tree: integers, arrays, slices, `Vec`s and tuples of
/// them. One item is one top-level mode, so `[2, 3]` and `(2, 3)` give equal trees.
pub trait IntoIntTuple {
    /// Appends this value's items to `out` (for an integer: one leaf).
    fn write_items(&self, out: &mut IntTuple) -> Result<(), LayoutError>;
    /// Appends this value as one item of `out`: an integer as a leaf, a collection as a
    /// nested tuple.
    fn write_as_item(&self, out: &mut IntTuple) -> Result<(), LayoutError>;
}

fn core_to_layout(e: CoreError) -> LayoutError {
    LayoutError::from_core("integer tree", e)
}

macro_rules! int_impls {
    ($($t:ty),*) => {$(
        impl IntoIntTuple for $t {
            fn write_items(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
                self.write_as_item(out)
            }
            #[allow(unused_comparisons)]
            fn write_as_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
                let v = u64::try_from(*self).map_err(|_| {
                    LayoutError::value(format!("{} is negative: tree values must be non-negative integers", self))
                })?;
                out.push_leaf(v).map_err(core_to_layout)
            }
        }
    )*};
}
int_impls!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

fn write_nested<T: IntoIntTuple>(items: &[T], out: &mut IntTuple) -> Result<(), LayoutError> {
    out.push_node(Node::Push).map_err(core_to_layout)?;
    for it in items {
        it.write_as_item(out)?;
    }
    out.push_node(Node::Pop).map_err(core_to_layout)
}

impl<T: IntoIntTuple> IntoIntTuple for [T] {
    fn write_items(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        self.iter().try_for_each(|it| it.write_as_item(out))
    }
    fn write_as_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        write_nested(self, out)
    }
}
impl<T: IntoIntTuple, const N: usize> IntoIntTuple for [T; N] {
    fn write_items(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        self.as_slice().write_items(out)
    }
    fn write_as_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        self.as_slice().write_as_item(out)
    }
}
impl<T: IntoIntTuple> IntoIntTuple for Vec<T> {
    fn write_items(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        self.as_slice().write_items(out)
    }
    fn write_as_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        self.as_slice().write_as_item(out)
    }
}
impl<T: IntoIntTuple + ?Sized> IntoIntTuple for &T {
    fn write_items(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        (**self).write_items(out)
    }
    fn write_as_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        (**self).write_as_item(out)
    }
}
impl IntoIntTuple for IntTuple {
    fn write_items(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        out.append_all(self).map_err(core_to_layout)
    }
    fn write_as_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        out.append_item(self).map_err(core_to_layout)
    }
}
impl IntoIntTuple for () {
    fn write_items(&self, _out: &mut IntTuple) -> Result<(), LayoutError> {
        Ok(())
    }
    fn write_as_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
        out.push_node(Node::Push).map_err(core_to_layout)?;
        out.push_node(Node::Pop).map_err(core_to_layout)
    }
}

macro_rules! tuple_impls {
    ($(($($n:ident),+)),*) => {$(
        #[allow(non_snake_case)]
        impl<$($n: IntoIntTuple),+> IntoIntTuple for ($($n,)+) {
            fn write_items(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
                let ($($n,)+) = self;
                $($n.write_as_item(out)?;)+
                Ok(())
            }
            fn write_as_item(&self, out: &mut IntTuple) -> Result<(), LayoutError> {
                out.push_node(Node::Push).map_err(core_to_layout)?;
                self.write_items(out)?;
                out.push_node(Node::Pop).map_err(core_to_layout)
            }
        }
    )*};
}
tuple_impls!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H)
);

macro_rules! tree_newtype {
    ($(#[$m:meta])* $name:ident, $what:literal, $check:expr) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name(IntTuple);

        impl $name {
            /// Builds the value from integers, arrays, slices, `Vec`s or nested tuples;
            /// the variadic-like tuple form and the single-collection form are equal.
            pub fn new(value: impl IntoIntTuple) -> Result<Self, LayoutError> {
                Self::from_tuple(IntTuple::new(value)?)
            }

            /// Checks and wraps an integer tree.
            pub fn from_tuple(t: IntTuple) -> Result<Self, LayoutError> {
                let check: fn(u64) -> Option<String> = $check;
                for &v in t.leaves() {
                    if let Some(msg) = check(v) {
                        return Err(LayoutError::value(format!("{} {}: {}", $what, t, msg)));
                    }
                }
                Ok($name(t))
            }

            /// Wraps a tree already known to satisfy the checks.
            #[allow(dead_code)]
            pub(crate) const fn from_tuple_unchecked(t: IntTuple) -> Self {
                $name(t)
            }

            /// The underlying integer tree.
            pub const fn as_tuple(&self) -> &IntTuple {
                &self.0
            }

            /// Number of top-level modes.
            pub const fn rank(&self) -> usize {
                self.0.rank()
            }

            /// Top-level mode `i`, keeping its hierarchy.
            pub fn get(&self, i: usize) -> Result<Self, LayoutError> {
                self.0.mode(i).map($name).map_err(|e| LayoutError::from_core(format!("{} {}", $what, self.0), e))
            }

            /// Top-level modes `start..end`, keeping their hierarchy.
            pub fn slice(&self, start: usize, end: usize) -> Result<Self, LayoutError> {
                self.0.slice(start, end).map($name).map_err(|e| LayoutError::from_core(format!("{} {}", $what, self.0), e))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }
        impl std::str::FromStr for $name {
            type Err = LayoutError;
            fn from_str(s: &str) -> Result<Self, LayoutError> {
                Self::from_tuple(crate::notation::parse_int_tuple(s)?)
            }
        }
    };
}

tree_newtype!(
    /// A hierarchy of positive extents: the domain of a layout.
    ///
    /// ```
    /// use strideweave::Shape;
    /// let a = Shape::new((2, [3, 4])).unwrap();
    /// let b: Shape = "(2,(3,4))".parse().unwrap();
    /// assert_eq!(a, b);
    /// assert_eq!(a.size(), 24);
    /// assert!(Shape::new((2, 0)).is_err());
    /// ```
    Shape,
    "shape",
    |v| if v == 0 { Some("extent 0 is less than 1".to_string()) } else { None }
);

tree_newtype!(
    /// A hierarchy of non-negative strides, congruent to a [`Shape`].
    ///
    /// ```
    /// use strideweave::Stride;
    /// assert_eq!(Stride::new((1, (10, 100))).unwrap().to_string(), "(1,(10,100))");
    /// assert!(Stride::new((1, -2)).is_err());
    /// ```
    Stride,
    "stride",
    |_| None
);

tree_newtype!(
    /// A hierarchical coordinate: follows the shape's hierarchy, or gives one integer for
    /// any sub-tree (expanded first mode fastest).
    ///
    /// ```
    /// use strideweave::Coord;
    /// assert_eq!(Coord::new((1, (2, 3))).unwrap().to_string(), "(1,(2,3))");
    /// ```
    Coord,
    "coordinate",
    |_| None
);

impl Shape {
    /// Number of coordinates: the product of all extents (`None` if it overflows `u64`).
    pub const fn checked_size(&self) -> Option<u64> {
        self.0.product()
    }

    /// Number of coordinates: the product of all extents, saturating at `u64::MAX`.
    pub const fn size(&self) -> u64 {
        match self.0.product() {
            Some(v) => v,
            None => u64::MAX,
        }
    }

    /// The spec's profile: the leaf-and-nesting recipe, independent of extents.
    pub fn profile(&self) -> Vec<Node> {
        self.0.recipe().to_vec()
    }
}

impl Coord {
    /// A single integer key (expanded first mode fastest).
    pub const fn linear(i: u64) -> Coord {
        Coord(IntTuple::scalar(i))
    }
}
