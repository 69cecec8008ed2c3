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

pub mod algebra;
mod error;
pub mod eval;
mod injective;
mod int_tuple;
mod layout;
pub mod notation;
mod ops;
pub mod static_layout;
pub mod tensor;
mod tree;
pub mod view;

pub use error::{CoreError, ErrorKind, LayoutError};
pub use int_tuple::{Coord, IntTuple, IntoIntTuple, Node, Shape, Stride, MAX_LEAVES, MAX_NODES};
pub use layout::Layout;
pub use ops::ComposeWith;
pub use static_layout::structure::StaticStructure;
pub use static_layout::{IntTree, Static, StaticLayout, StaticTiler, C};
pub use strideweave_macros::{coord, layout, layout_type, shape, stride};
pub use tensor::Tensor;
pub use tree::{Tree, TreeItem};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
