//! StrideWeave: CuTe-style hierarchical layouts, their algebra, tensor placements and kernels.
//!
//! A [`Layout`] maps hierarchical coordinates to scalar indices through a congruent pair of
//! [`Shape`] and [`Stride`] trees. The algebra (composition, complement, division, products,
//! inverses) lives once, as `const fn`s in [`algebra`], and serves runtime layouts (the
//! methods on [`Layout`]) and static layouts alike.
//!
//! ```
//! use strideweave::Layout;
//! let a: Layout = "20:2".parse().unwrap();
//! let b: Layout = "(5,4):(4,1)".parse().unwrap();
//! assert_eq!(a.compose(&b).unwrap().to_string(), "(5,4):(8,2)");
//! ```

pub use strideweave_core::{
    algebra, composed, coord_layout, eval, int_tuple_ops, message, notation,
};
// The core's modules under their old paths, so `crate::layout::Layout` and the like keep
// resolving inside this crate.
#[allow(unused_imports)]
pub(crate) use strideweave_core::{error, injective, int_tuple, layout, ops, tree};
pub mod static_layout;
pub mod tensor;
pub mod view;

pub use static_layout::structure::StaticStructure;
pub use static_layout::{IntTree, Static, StaticLayout, StaticTiler, C};
pub use strideweave_core::{
    escape_controls, Basis, ComposeWith, ComposedLayout, Coord, CoordLayout, CoreError, ErrorKind,
    IntTuple, IntoIntTuple, IntoTreeItem, Layout, LayoutError, Node, Shape, SliceCoord, Stride,
    Swizzle, Tree, TreeItem, INJECTIVITY_SEARCH_STEPS, MAX_LEAVES, MAX_NODES,
};
pub use strideweave_macros::{coord, layout, layout_type, shape, stride};
pub use tensor::Tensor;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
