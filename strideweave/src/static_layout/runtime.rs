//! Support for the run-time form of `layout!` (some leaf is a `{expression}`): the macro
//! checks the structure at compile time and emits a call to [`layout_from_items`], which
//! checks the values and returns `Result<Layout, LayoutError>`. Not a public API.

use crate::error::LayoutError;
use crate::int_tuple::{IntTuple, Node, Shape, Stride};
use crate::Layout;

/// One recipe item of a tree the macro emits: a leaf value or a parenthesis.
#[derive(Clone, Copy, Debug)]
pub enum Item {
    /// A leaf: its value, or the negative value the expression gave.
    Leaf(Result<u64, i128>),
    /// Opens a nested tuple.
    Push,
    /// Closes a nested tuple.
    Pop,
}

/// Integer types a `{expression}` leaf may have.
#[diagnostic::on_unimplemented(
    message = "a `layout!` leaf must be an integer, not `{Self}`",
    label = "this expression is not an integer",
    note = "write a non-negative integer expression such as `{{n}}` with `n: usize`"
)]
pub trait LeafValue: Copy {
    /// The value, or the negative value as `Err`.
    fn leaf_value(self) -> Result<u64, i128>;
}

macro_rules! leaf_values {
    ($($t:ty),*) => {$(
        impl LeafValue for $t {
            #[allow(unused_comparisons, clippy::cast_lossless)]
            fn leaf_value(self) -> Result<u64, i128> {
                u64::try_from(self).map_err(|_| self as i128)
            }
        }
    )*};
}
leaf_values!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl LeafValue for u128 {
    fn leaf_value(self) -> Result<u64, i128> {
        u64::try_from(self).map_err(|_| i128::MAX)
    }
}
impl LeafValue for i128 {
    fn leaf_value(self) -> Result<u64, i128> {
        u64::try_from(self).map_err(|_| self)
    }
}

/// The leaf item of a `{expression}` leaf.
pub fn leaf<T: LeafValue>(v: T) -> Item {
    Item::Leaf(v.leaf_value())
}

fn tuple_of(what: &str, items: &[Item]) -> Result<IntTuple, LayoutError> {
    let mut t = IntTuple::EMPTY;
    for it in items {
        let r = match *it {
            Item::Leaf(Ok(v)) => t.push_leaf(v),
            Item::Leaf(Err(v)) if v == i128::MAX => {
                return Err(LayoutError::value(format!(
                    "{what} value does not fit in 64 bits"
                )))
            }
            Item::Leaf(Err(v)) => {
                return Err(LayoutError::value(format!(
                    "{what} value {v} is negative: {what} values must be non-negative"
                )))
            }
            Item::Push => t.push_node(Node::Push),
            Item::Pop => t.push_node(Node::Pop),
        };
        r.map_err(|e| LayoutError::from_core(what, e))?;
    }
    Ok(t)
}

/// The layout of the given shape and stride recipes (`None`: CuTe's compact
/// column-major strides), with every value checked.
pub fn layout_from_items(shape: &[Item], stride: Option<&[Item]>) -> Result<Layout, LayoutError> {
    let shape = Shape::from_tuple(tuple_of("shape", shape)?)?;
    match stride {
        Some(stride) => Layout::new(shape, Stride::from_tuple(tuple_of("stride", stride)?)?),
        None => Layout::col_major(shape),
    }
}
