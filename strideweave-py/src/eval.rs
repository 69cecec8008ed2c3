//! `strideweave.eval(text)`: the `eval` calculator's language, evaluated by the core, its
//! values returned as Python values.

use crate::composed::{PyComposedLayout, PyCoordLayout, PySwizzle};
use crate::errors::checked;
use crate::layout::PyLayout;
use crate::tree::{PyNode, PyTree};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use strideweave::eval::{eval as core_eval, Value};
use strideweave::{IntTuple, Node};

/// Nodes `start..` of `t` up to the matching `Pop` (or the end) as a Python tuple, leaves
/// from `*leaf` on; returns the tuple and the node index after it.
fn tuple_items<'py>(
    py: Python<'py>,
    t: &IntTuple,
    mut node: usize,
    leaf: &mut usize,
) -> PyResult<(Bound<'py, PyTuple>, usize)> {
    let mut items: Vec<Bound<'py, PyAny>> = Vec::new();
    while node < t.node_count() {
        match t.node(node) {
            Node::Leaf => {
                items.push(t.leaf(*leaf).into_pyobject(py)?.into_any());
                *leaf += 1;
                node += 1;
            }
            Node::Push => {
                let (sub, next) = tuple_items(py, t, node + 1, leaf)?;
                items.push(sub.into_any());
                node = next;
            }
            Node::Pop => return Ok((PyTuple::new(py, items)?, node + 1)),
        }
    }
    Ok((PyTuple::new(py, items)?, node))
}

/// An integer tree as Python: an integer, or nested tuples of integers.
pub(crate) fn int_tree<'py>(py: Python<'py>, t: &IntTuple) -> PyResult<Bound<'py, PyAny>> {
    if t.is_scalar() {
        return Ok(t.leaf(0).into_pyobject(py)?.into_any());
    }
    Ok(tuple_items(py, t, 0, &mut 0)?.0.into_any())
}

/// Evaluates one expression of the `strideweave eval` language (CuTe notation, `compose`,
/// `zipped_divide`, `size`, `tree(...)`, ...) in the Rust core. Layouts come back as
/// `Layout`, integer tuples as (nested) Python tuples or an `int`, tilers as lists of
/// layouts, trees as `Tree`, profiles as lists of `Node`, booleans and `none` as `bool`
/// and `None`, swizzles as `Swizzle`, swizzled layouts (`Sw<3,4,3> o (8,64):(64,1)`) as
/// `ComposedLayout`, coordinate layouts (`(4,8):(1@0,1@1)`) as `CoordLayout`, pairs as
/// 2-tuples; slicing coordinates and the `LayoutLeft`/`LayoutRight` orders as their
/// notation string. Errors raise `ValueError` (syntax and value errors) or `TypeError`.
///
/// >>> eval("zipped_divide((8,8):(8,1), [2:1,4:1])")
/// Layout("((2,4),(4,2)):((8,1),(16,4))")
/// >>> eval("size((2,(3,4)))"), eval("shape((2,(3,4)):(1,(2,6)))")
/// (24, (2, (3, 4)))
/// >>> eval("Sw<3,4,3> o (8,64):(64,1)")
/// ComposedLayout("Sw<3,4,3> o (8,64):(64,1)")
/// >>> eval("make_identity_layout((4,8))")
/// CoordLayout("(4,8):(1@0,1@1)")
#[pyfunction]
pub fn eval<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    value(py, checked(core_eval(text))?)
}

/// One `eval` value as a Python value.
fn value(py: Python<'_>, v: Value) -> PyResult<Bound<'_, PyAny>> {
    Ok(match v {
        Value::Tuple(t) => int_tree(py, &t)?,
        Value::Layout(l) => Bound::new(py, PyLayout(l))?.into_any(),
        Value::Tiler(tiles) => {
            let items = tiles
                .into_iter()
                .map(|l| Bound::new(py, PyLayout(l)))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Tree(t) => Bound::new(py, PyTree(t))?.into_any(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::None => py.None().into_bound(py),
        Value::Profile(p) => {
            let items = p
                .into_iter()
                .map(|n| Bound::new(py, PyNode::from(n)))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Swizzle(s) => Bound::new(py, PySwizzle(s))?.into_any(),
        Value::Composed(c) => Bound::new(py, PyComposedLayout(c))?.into_any(),
        Value::CoordLayout(c) => Bound::new(py, PyCoordLayout(c))?.into_any(),
        Value::Pair(a, b) => PyTuple::new(py, [value(py, *a)?, value(py, *b)?])?.into_any(),
        // Values with no Python class (slicing coordinates with `_`, tilers with holes,
        // `LayoutLeft`/`LayoutRight`): their notation, which `eval` reads back.
        other => other.to_string().into_pyobject(py)?.into_any(),
    })
}
