//! The runtime [`Layout`]: a congruent pair of [`Shape`] and [`Stride`] trees, a function
//! from hierarchical coordinates to scalar indices. Fixed capacity, `Copy`, never
//! allocates, and every query and operation is a `const fn` so static layouts reuse it.

use crate::error::{tri, CoreError, LayoutError};
use crate::int_tuple::{Coord, IntTuple, Node, Shape, Stride};
use std::fmt;

/// A CuTe layout: shape and stride trees of the same structure.
///
/// ```
/// use strideweave::{Coord, Layout, Shape, Stride};
/// let l = Layout::new(Shape::new((2, (3, 4))).unwrap(), Stride::new((1, (10, 100))).unwrap()).unwrap();
/// assert_eq!(l.index(&Coord::new((1, (2, 3))).unwrap()).unwrap(), 321);
/// assert_eq!(l.to_string(), "(2,(3,4)):(1,(10,100))");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: IntTuple,
    stride: IntTuple,
}

/// Checked multiply-add `a * b + c` for `const fn`.
pub(crate) const fn mul_add(a: u64, b: u64, c: u64) -> Result<u64, CoreError> {
    let p = tri!(mul(a, b));
    match p.checked_add(c) {
        Some(v) => Ok(v),
        None => Err(CoreError::Overflow {
            op: '+',
            lhs: p,
            rhs: c,
        }),
    }
}

/// Checked product for `const fn`.
pub(crate) const fn mul(a: u64, b: u64) -> Result<u64, CoreError> {
    match a.checked_mul(b) {
        Some(v) => Ok(v),
        None => Err(CoreError::Overflow {
            op: '*',
            lhs: a,
            rhs: b,
        }),
    }
}

impl Layout {
    /// The empty layout `():()`: rank 0, size 1.
    pub const EMPTY: Layout = Layout {
        shape: IntTuple::EMPTY,
        stride: IntTuple::EMPTY,
    };

    /// Pairs a shape with a congruent stride.
    ///
    /// Fails with a value error naming both trees when they are not congruent, or when the
    /// layout's size or cosize overflows `u64`.
    pub fn new(shape: Shape, stride: Stride) -> Result<Layout, LayoutError> {
        Layout::from_trees(*shape.as_tuple(), *stride.as_tuple()).map_err(|e| match e {
            CoreError::NotCongruent => LayoutError::value(format!(
                "shape {shape} and stride {stride} are not congruent"
            )),
            e => LayoutError::from_core(format!("layout {shape}:{stride}"), e),
        })
    }

    /// The `const` constructor: checks extents, congruence and that size and cosize fit.
    pub const fn from_trees(shape: IntTuple, stride: IntTuple) -> Result<Layout, CoreError> {
        if !shape.congruent(&stride) {
            return Err(CoreError::NotCongruent);
        }
        let mut i = 0;
        while i < shape.leaf_count() {
            if shape.leaf(i) == 0 {
                return Err(CoreError::ZeroExtent);
            }
            i += 1;
        }
        let l = Layout { shape, stride };
        let mut size: u64 = 1;
        let mut k = 0;
        while k < shape.leaf_count() {
            size = tri!(mul(size, shape.leaf(k)));
            k += 1;
        }
        tri!(l.checked_cosize());
        Ok(l)
    }

    /// A rank-1 layout `n:d`.
    pub const fn leaf(n: u64, d: u64) -> Result<Layout, CoreError> {
        Layout::from_trees(IntTuple::scalar(n), IntTuple::scalar(d))
    }

    /// CuTe's default compact layout for a shape: column-major, first mode fastest.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// let l = Layout::col_major(Shape::new((4, (2, 3))).unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(4,(2,3)):(1,(4,8))");
    /// ```
    pub fn col_major(shape: Shape) -> Result<Layout, LayoutError> {
        Layout::compact_col_major(*shape.as_tuple())
            .map_err(|e| LayoutError::from_core(format!("compact layout of {shape}"), e))
    }

    /// `const` form of [`Layout::col_major`].
    pub const fn compact_col_major(shape: IntTuple) -> Result<Layout, CoreError> {
        let mut stride = shape;
        let mut acc: u64 = 1;
        let mut i = 0;
        while i < shape.leaf_count() {
            stride.set_leaf(i, acc);
            acc = tri!(mul(acc, shape.leaf(i)));
            i += 1;
        }
        Layout::from_trees(shape, stride)
    }

    /// Row-major compact layout (last mode fastest, at every level).
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// assert_eq!(Layout::row_major(Shape::new((2, 3)).unwrap()).unwrap().to_string(), "(2,3):(3,1)");
    /// ```
    pub fn row_major(shape: Shape) -> Result<Layout, LayoutError> {
        let t = *shape.as_tuple();
        let mut stride = t;
        let mut acc: u64 = 1;
        for i in (0..t.leaf_count()).rev() {
            stride.set_leaf(i, acc);
            acc = mul(acc, t.leaf(i))
                .map_err(|e| LayoutError::from_core(format!("compact layout of {shape}"), e))?;
        }
        Layout::from_trees(t, stride)
            .map_err(|e| LayoutError::from_core(format!("compact layout of {shape}"), e))
    }

    /// The shape tree.
    pub const fn shape(&self) -> Shape {
        Shape::from_tuple_unchecked(self.shape)
    }

    /// The stride tree.
    pub const fn stride(&self) -> Stride {
        Stride::from_tuple_unchecked(self.stride)
    }

    pub(crate) const fn shape_tuple(&self) -> &IntTuple {
        &self.shape
    }

    pub(crate) const fn stride_tuple(&self) -> &IntTuple {
        &self.stride
    }

    /// Number of leaves (flattened modes).
    pub const fn leaf_count(&self) -> usize {
        self.shape.leaf_count()
    }

    /// Extent of leaf `i`.
    pub const fn leaf_extent(&self, i: usize) -> u64 {
        self.shape.leaf(i)
    }

    /// Stride of leaf `i`.
    pub const fn leaf_stride(&self, i: usize) -> u64 {
        self.stride.leaf(i)
    }

    /// Number of top-level modes (a single integer layout has rank 1).
    pub const fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// Nesting depth (CuTe's convention: `20:2` has depth 0, `(2,3):(1,2)` depth 1).
    pub const fn depth(&self) -> usize {
        self.shape.depth()
    }

    /// Number of logical coordinates: the product of the extents.
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,3):(1,4)".parse().unwrap();
    /// assert_eq!((l.size(), l.cosize()), (6, 10));
    /// ```
    pub const fn size(&self) -> u64 {
        match self.shape.product() {
            Some(v) => v,
            None => u64::MAX, // unreachable: checked at construction
        }
    }

    const fn checked_cosize(&self) -> Result<u64, CoreError> {
        let mut max: u64 = 0;
        let mut i = 0;
        while i < self.leaf_count() {
            max = tri!(mul_add(self.shape.leaf(i) - 1, self.stride.leaf(i), max));
            i += 1;
        }
        match max.checked_add(1) {
            Some(v) => Ok(v),
            None => Err(CoreError::Overflow {
                op: '+',
                lhs: max,
                rhs: 1,
            }),
        }
    }

    /// One plus the greatest index reached: the origin-based index span.
    pub const fn cosize(&self) -> u64 {
        match self.checked_cosize() {
            Ok(v) => v,
            Err(_) => u64::MAX, // unreachable: checked at construction
        }
    }

    /// The spec's profile: the leaf-and-nesting recipe of the shape.
    ///
    /// ```
    /// use strideweave::Node::*;
    /// let l: strideweave::Layout = "(2,(3,4)):(1,(2,6))".parse().unwrap();
    /// assert_eq!(l.profile(), vec![Leaf, Push, Leaf, Leaf, Pop]);
    /// ```
    pub fn profile(&self) -> Vec<Node> {
        self.shape.recipe().to_vec()
    }

    /// Index of the coordinate whose leaves are `coords` (one per leaf, in order), each
    /// checked against its extent.
    pub const fn index_leaves(&self, coords: &[u64]) -> Result<u64, CoreError> {
        if coords.len() != self.leaf_count() {
            return Err(CoreError::CoordinateMismatch);
        }
        let mut idx: u64 = 0;
        let mut i = 0;
        while i < coords.len() {
            if coords[i] >= self.shape.leaf(i) {
                return Err(CoreError::OutOfDomain {
                    value: coords[i],
                    extent: self.shape.leaf(i),
                });
            }
            idx += coords[i] * self.stride.leaf(i); // bounded by cosize, checked at construction
            i += 1;
        }
        Ok(idx)
    }

    /// Index of the integer key `i`, expanded first mode fastest (CuTe's convention).
    pub const fn index_of(&self, i: u64) -> Result<u64, CoreError> {
        let size = self.size();
        if i >= size {
            return Err(CoreError::OutOfDomain {
                value: i,
                extent: size,
            });
        }
        Ok(self.index_range(i, 0, self.leaf_count()))
    }

    /// `index_of` without the domain check: the last leaf absorbs whatever remains of `i`,
    /// which is how CuTe evaluates a layout past its size (padded tilings).
    pub const fn index_unbounded(&self, i: u64) -> Option<u64> {
        let n = self.leaf_count();
        if n == 0 {
            return if i == 0 { Some(0) } else { None };
        }
        let mut rest = i;
        let mut idx: u64 = 0;
        let mut k = 0;
        while k < n {
            let s = self.shape.leaf(k);
            let c = if k + 1 == n { rest } else { rest % s };
            rest /= s;
            idx = match c.checked_mul(self.stride.leaf(k)) {
                Some(p) => match p.checked_add(idx) {
                    Some(v) => v,
                    None => return None,
                },
                None => return None,
            };
            k += 1;
        }
        Some(idx)
    }

    /// Index of the in-domain integer `i` expanded over leaves `start..end`.
    const fn index_range(&self, i: u64, start: usize, end: usize) -> u64 {
        let mut rest = i;
        let mut idx = 0;
        let mut k = start;
        while k < end {
            let s = self.shape.leaf(k);
            idx += (rest % s) * self.stride.leaf(k);
            rest /= s;
            k += 1;
        }
        idx
    }

    /// Index of a hierarchical coordinate. Each level either follows the shape's hierarchy
    /// or gives one integer for the whole sub-tree (expanded first mode fastest); a single
    /// integer indexes the whole layout.
    ///
    /// ```
    /// use strideweave::{Coord, Layout};
    /// let l: Layout = "(3,4):(2,10)".parse().unwrap();
    /// assert_eq!(l.index(&Coord::linear(5)).unwrap(), 14);
    /// assert_eq!(l.index(&Coord::new((2, 1)).unwrap()).unwrap(), 14);
    /// assert!(l.index(&Coord::new((3, 0)).unwrap()).is_err());
    /// ```
    pub fn index(&self, coord: &Coord) -> Result<u64, LayoutError> {
        self.index_tuple(coord.as_tuple()).map_err(|e| match e {
            CoreError::CoordinateMismatch => LayoutError::value(format!(
                "coordinate {coord} does not match the hierarchy of shape {}",
                self.shape
            )),
            e => LayoutError::from_core(format!("index({self}, {coord})"), e),
        })
    }

    /// `const` form of [`Layout::index`] on a raw coordinate tree.
    pub const fn index_tuple(&self, coord: &IntTuple) -> Result<u64, CoreError> {
        if coord.is_scalar() {
            return self.index_of(coord.leaf(0));
        }
        if coord.rank() != self.rank() {
            return Err(CoreError::CoordinateMismatch);
        }
        let mut cursor = Cursor {
            cnode: 0,
            cleaf: 0,
            snode: 0,
            sleaf: 0,
            idx: 0,
        };
        let cend = coord.node_count();
        while cursor.cnode < cend {
            tri!(self.index_item(coord, &mut cursor));
        }
        Ok(cursor.idx)
    }

    /// Consumes one coordinate item and the matching shape item.
    const fn index_item(&self, coord: &IntTuple, c: &mut Cursor) -> Result<(), CoreError> {
        let (send, sleaves) = self.shape.item_extent(c.snode);
        let sleaf_start = c.sleaf;
        match coord.node(c.cnode) {
            Node::Leaf => {
                let v = coord.leaf(c.cleaf);
                // expand v over the sub-tree's leaves, first fastest; what is left over
                // means v was outside the sub-tree's size
                let mut rest = v;
                let mut k = c.sleaf;
                while k < c.sleaf + sleaves {
                    let e = self.shape.leaf(k);
                    c.idx += (rest % e) * self.stride.leaf(k); // bounded by cosize
                    rest /= e;
                    k += 1;
                }
                if rest != 0 {
                    return Err(CoreError::OutOfDomain {
                        value: v,
                        extent: match self.shape.product_range(c.sleaf, c.sleaf + sleaves) {
                            Some(e) => e,
                            None => u64::MAX,
                        },
                    });
                }
                c.cnode += 1;
                c.cleaf += 1;
            }
            Node::Push => {
                if self.shape.node(c.snode).code() != Node::Push.code() {
                    return Err(CoreError::CoordinateMismatch);
                }
                c.cnode += 1;
                c.snode += 1;
                while coord.node(c.cnode).code() != Node::Pop.code() {
                    if self.shape.node(c.snode).code() == Node::Pop.code() {
                        return Err(CoreError::CoordinateMismatch);
                    }
                    tri!(self.index_item(coord, c));
                }
                if self.shape.node(c.snode).code() != Node::Pop.code() {
                    return Err(CoreError::CoordinateMismatch);
                }
                c.cnode += 1;
            }
            Node::Pop => return Err(CoreError::CoordinateMismatch),
        }
        c.snode = send;
        c.sleaf = sleaf_start + sleaves;
        Ok(())
    }

    /// Top-level mode `i` as a layout (hierarchy kept).
    pub const fn mode(&self, i: usize) -> Result<Layout, CoreError> {
        let shape = tri!(self.shape.mode(i));
        let stride = tri!(self.stride.mode(i));
        Ok(Layout { shape, stride })
    }

    /// Top-level modes `start..end` as a layout.
    pub const fn modes(&self, start: usize, end: usize) -> Result<Layout, CoreError> {
        let shape = tri!(self.shape.slice(start, end));
        let stride = tri!(self.stride.slice(start, end));
        Ok(Layout { shape, stride })
    }

    /// Appends `other` as one top-level mode (nested unless it has rank 1).
    pub const fn push_mode(&mut self, other: &Layout) -> Result<(), CoreError> {
        tri!(self.shape.append_item(&other.shape));
        self.stride.append_item(&other.stride)
    }

    /// Appends `other` as one nested top-level mode, always parenthesised.
    pub const fn push_group(&mut self, other: &Layout) -> Result<(), CoreError> {
        let n = other.shape.node_count();
        tri!(self.shape.extend_from(&other.shape, 0, n, 0, true));
        self.stride.extend_from(&other.stride, 0, n, 0, true)
    }

    /// Appends every top-level mode of `other`.
    pub const fn push_modes(&mut self, other: &Layout) -> Result<(), CoreError> {
        tri!(self.shape.append_all(&other.shape));
        self.stride.append_all(&other.stride)
    }

    /// Opens (`Push`) or closes (`Pop`) a nested mode in both trees.
    pub(crate) const fn push_structure(&mut self, n: Node) -> Result<(), CoreError> {
        tri!(self.shape.push_node(n));
        self.stride.push_node(n)
    }

    /// Appends one leaf mode `n:d`.
    pub const fn push_leaf(&mut self, n: u64, d: u64) -> Result<(), CoreError> {
        tri!(self.shape.push_leaf(n));
        self.stride.push_leaf(d)
    }

    /// Appends top-level item `i` of `src` exactly as it is (no unwrapping).
    pub const fn push_item_of(&mut self, src: &Layout, i: usize) -> Result<(), CoreError> {
        let (ns, ne, ls, _) = match src.shape.item_range(i) {
            Some(r) => r,
            None => {
                return Err(CoreError::ModeOutOfRange {
                    index: i as u64,
                    rank: src.rank() as u64,
                })
            }
        };
        tri!(self.shape.extend_from(&src.shape, ns, ne, ls, false));
        self.stride.extend_from(&src.stride, ns, ne, ls, false)
    }

    /// Checks the size and cosize bounds after a builder sequence (the builders keep the
    /// two trees congruent and only ever push extents taken from valid layouts).
    pub const fn validated(self) -> Result<Layout, CoreError> {
        let mut size: u64 = 1;
        let mut k = 0;
        while k < self.leaf_count() {
            if self.shape.leaf(k) == 0 {
                return Err(CoreError::ZeroExtent);
            }
            size = tri!(mul(size, self.shape.leaf(k)));
            k += 1;
        }
        tri!(self.checked_cosize());
        Ok(self)
    }

    /// Structural and value equality usable in `const` contexts.
    pub const fn const_eq(&self, other: &Layout) -> bool {
        self.shape.const_eq(&other.shape) && self.stride.const_eq(&other.stride)
    }
}

struct Cursor {
    cnode: usize,
    cleaf: usize,
    snode: usize,
    sleaf: usize,
    idx: u64,
}

impl fmt::Display for Layout {
    /// Canonical notation `SHAPE:STRIDE`, no spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layout({self})")
    }
}

impl std::str::FromStr for Layout {
    type Err = LayoutError;
    /// Parses `SHAPE:STRIDE` notation, e.g. `(2,(3,4)):(1,(10,100))`, or a shape alone,
    /// `(2,2)`, with CuTe's compact column-major strides.
    fn from_str(s: &str) -> Result<Layout, LayoutError> {
        crate::notation::parse_layout(s)
    }
}
