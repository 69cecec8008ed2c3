//! The `const fn` core of StrideWeave, shared by the `strideweave` library and the
//! `layout!` macro: integer trees, [`Layout`], the notation parser, the layout algebra
//! and the `eval` language.
//!
//! Users depend on `strideweave`, which re-exports everything public here; the macro
//! crate depends on this crate directly, so algebra written inside `layout!` is computed
//! by the same code at expansion time.
//!
//! ```
//! use strideweave::Layout;
//! let a: Layout = "20:2".parse().unwrap();
//! let b: Layout = "(5,4):(4,1)".parse().unwrap();
//! assert_eq!(a.compose(&b).unwrap().to_string(), "(5,4):(8,2)");
//! ```

pub mod algebra;
pub mod composed;
pub mod coord_layout;
#[doc(hidden)]
pub mod error;
pub mod eval;
mod eval_ext;
#[doc(hidden)]
pub mod injective;
#[doc(hidden)]
pub mod int_tuple;
pub mod int_tuple_ops;
#[doc(hidden)]
pub mod layout;
pub(crate) mod layout_ops;
pub mod message;
pub mod notation;
#[doc(hidden)]
pub mod ops;
mod slice;
mod swizzle;
#[doc(hidden)]
pub mod tree;

pub use composed::ComposedLayout;
pub use coord_layout::{Basis, CoordLayout};
pub use error::{escape_controls, CoreError, ErrorKind, LayoutError};
pub use injective::INJECTIVITY_SEARCH_STEPS;
pub use int_tuple::{Coord, IntTuple, IntoIntTuple, Node, Shape, Stride, MAX_LEAVES, MAX_NODES};
pub use layout::Layout;
pub use ops::ComposeWith;
pub use slice::SliceCoord;
pub use swizzle::Swizzle;
pub use tree::{IntoTreeItem, Tree, TreeItem};
