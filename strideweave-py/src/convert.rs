//! Python values to the core's integer trees: an integer is a leaf, any other iterable a
//! nested tuple. Writing goes straight into the fixed-capacity [`IntTuple`], so a huge or
//! self-referencing iterable stops at the core's capacity with its error, and nesting is
//! bounded by [`MAX_NODES`].

use crate::errors::{layout_err, type_error, type_name, value_error};
use crate::int_tree::{PyShape, PyStride};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyList, PyString, PyTuple};
use strideweave::{CoreError, IntTuple, LayoutError, Node, MAX_NODES};

/// What an integer tree is built for: decides which values are rejected and how.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Extents: each at least one (checked by the core's `Shape`).
    Shape,
    /// Strides: non-negative.
    Stride,
    /// A coordinate or linear key: non-negative (a negative one is outside the domain).
    Coord,
    /// The cotarget of a complement: a positive bound.
    Cotarget,
}

impl Role {
    fn negative(self, v: i64) -> PyErr {
        match self {
            Role::Shape => value_error(format!("shape extent {v} is less than 1")),
            Role::Stride => value_error(format!("stride {v} is negative")),
            Role::Coord => value_error(format!(
                "coordinate {v} is negative: the key is outside the shape domain"
            )),
            Role::Cotarget => value_error(format!("complement: cotarget {v} is negative")),
        }
    }
}

/// An integer as `u64`, `None` for a non-integer; errors for negative or too large ones.
/// Integers are anything with `__index__` (Python `int`, `bool`, NumPy integers).
pub(crate) fn index_value(obj: &Bound<'_, PyAny>, role: Role) -> PyResult<Option<u64>> {
    // Fast paths first: a Python int, or a list/tuple (never an integer); only other
    // objects are asked for `__index__`, which costs an attribute lookup.
    let is_int = obj.is_instance_of::<PyInt>();
    if !is_int
        && (obj.is_instance_of::<PyList>()
            || obj.is_instance_of::<PyTuple>()
            || !obj.hasattr("__index__")?)
    {
        return Ok(None);
    }
    if let Ok(v) = obj.extract::<u64>() {
        return Ok(Some(v));
    }
    if let Ok(v) = obj.extract::<i64>() {
        return Err(role.negative(v));
    }
    let text = obj.str().map(|s| s.to_string()).unwrap_or_default();
    Err(value_error(format!(
        "integer {text} does not fit in 64 bits"
    )))
}

fn core(e: CoreError) -> PyErr {
    layout_err(LayoutError::from_core("integer tree", e))
}

/// Writes `obj` as one item of `out`: a leaf for an integer, a nested tuple otherwise.
fn write_item(
    obj: &Bound<'_, PyAny>,
    out: &mut IntTuple,
    role: Role,
    depth: usize,
) -> PyResult<()> {
    if let Some(v) = index_value(obj, role)? {
        return out.push_leaf(v).map_err(core);
    }
    if let Some(t) = tree_of(obj) {
        return out.append_item(&t).map_err(core);
    }
    out.push_node(Node::Push).map_err(core)?;
    write_items(obj, out, role, depth + 1)?;
    out.push_node(Node::Pop).map_err(core)
}

/// Writes each element of the iterable `obj` as one item of `out`.
fn write_items(
    obj: &Bound<'_, PyAny>,
    out: &mut IntTuple,
    role: Role,
    depth: usize,
) -> PyResult<()> {
    if depth > MAX_NODES {
        return Err(core(CoreError::TooManyNodes));
    }
    if let Some(t) = tree_of(obj) {
        return out.append_all(&t).map_err(core);
    }
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.cast::<crate::layout::PyLayout>().is_ok()
    {
        return Err(not_a_tree_item(obj));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .try_for_each(|item| write_item(&item, out, role, depth));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .try_for_each(|item| write_item(&item, out, role, depth));
    }
    let iter = obj.try_iter().map_err(|_| not_a_tree_item(obj))?;
    for item in iter {
        write_item(&item?, out, role, depth)?;
    }
    Ok(())
}

fn not_a_tree_item(obj: &Bound<'_, PyAny>) -> PyErr {
    let text = obj.repr().map(|s| s.to_string()).unwrap_or_default();
    type_error(format!(
        "{text} ({}) is neither an integer nor an iterable of integer trees",
        type_name(obj)
    ))
}

/// The tree inside a `Shape` or `Stride` value, which count as their items.
fn tree_of(obj: &Bound<'_, PyAny>) -> Option<IntTuple> {
    if let Ok(s) = obj.cast::<PyShape>() {
        return Some(*s.get().0.as_tuple());
    }
    obj.cast::<PyStride>().ok().map(|s| *s.get().0.as_tuple())
}

/// One value as a tree: an integer is a single leaf, an iterable gives its items.
pub(crate) fn tree_from_value(obj: &Bound<'_, PyAny>, role: Role) -> PyResult<IntTuple> {
    let mut t = IntTuple::EMPTY;
    if let Some(v) = index_value(obj, role)? {
        t.push_leaf(v).map_err(core)?;
    } else {
        write_items(obj, &mut t, role, 0)?;
    }
    Ok(t)
}

/// The spec's `*items`: one argument is a single value (integer or iterable of items),
/// several are the items themselves, so `Shape(2, [3, 4]) == Shape([2, [3, 4]])`.
pub(crate) fn tree_from_args(items: &Bound<'_, PyTuple>, role: Role) -> PyResult<IntTuple> {
    if items.len() == 1 {
        return tree_from_value(&items.get_item(0)?, role);
    }
    let mut t = IntTuple::EMPTY;
    write_items(items.as_any(), &mut t, role, 0)?;
    Ok(t)
}

/// A mode index `key` of a value of rank `rank`, Python style (negative counts from the
/// end); `IndexError` outside, so iteration by `__getitem__` stops.
pub(crate) fn mode_index(key: isize, rank: usize) -> PyResult<usize> {
    let k = if key < 0 { key + rank as isize } else { key };
    if k < 0 || k as usize >= rank {
        return Err(pyo3::exceptions::PyIndexError::new_err(format!(
            "mode {key} is out of range for rank {rank}"
        )));
    }
    Ok(k as usize)
}

/// The `start..end` range of a unit-step slice over `rank` modes.
pub(crate) fn mode_range(
    slice: &Bound<'_, pyo3::types::PySlice>,
    rank: usize,
) -> PyResult<(usize, usize)> {
    let ind = slice.indices(rank as isize)?;
    if ind.step != 1 {
        return Err(value_error(format!(
            "slice step {} is not supported: mode slices keep consecutive modes (step 1)",
            ind.step
        )));
    }
    let (start, stop) = (ind.start as usize, ind.stop.max(ind.start) as usize);
    Ok((start, stop))
}
