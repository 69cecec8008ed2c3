//! The spec's tree markers: `Node.Leaf`/`Node.Push`/`Node.Pop`, identified leaves
//! `Node.id(n)`, and `Tree(*items)`, which drives `Layout.rearrange`.

use crate::errors::{checked, type_error, type_name, value_error};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyTuple};
use strideweave::{Node, Tree, TreeItem};

/// What `__reduce__` returns: a callable and its arguments.
type Reduce<'py, A> = (Bound<'py, PyAny>, A);

/// A recipe marker: a leaf, or the start (`Push`) or end (`Pop`) of a nested tuple.
///
/// >>> Layout(Shape(2, [3, 4]), Stride(1, [2, 6])).profile
/// [Node.Leaf, Node.Push, Node.Leaf, Node.Leaf, Node.Pop]
/// >>> Node.id(2)
/// Node.id(2)
#[pyclass(frozen, eq, eq_int, hash, module = "strideweave", name = "Node")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum PyNode {
    Leaf,
    Push,
    Pop,
}

impl From<Node> for PyNode {
    fn from(n: Node) -> Self {
        match n {
            Node::Leaf => PyNode::Leaf,
            Node::Push => PyNode::Push,
            Node::Pop => PyNode::Pop,
        }
    }
}

impl From<PyNode> for Node {
    fn from(n: PyNode) -> Self {
        match n {
            PyNode::Leaf => Node::Leaf,
            PyNode::Push => Node::Push,
            PyNode::Pop => Node::Pop,
        }
    }
}

#[pymethods]
impl PyNode {
    /// An identified leaf naming source sublayout `n` of a rearrangement. It is still one
    /// leaf: it does not change a tree's recipe or size. `TypeError` when `n` is not an
    /// integer, `ValueError` when it is negative.
    #[staticmethod]
    fn id(n: &Bound<'_, PyAny>) -> PyResult<PyNodeId> {
        if !is_integer(n)? {
            return Err(type_error(format!(
                "Node.id needs an integer source id, not {}",
                type_name(n)
            )));
        }
        let v = n.extract::<i64>().map_err(|_| {
            value_error("Node.id: the source id does not fit in 64 bits".to_string())
        })?;
        let id = usize::try_from(v)
            .map_err(|_| value_error(format!("Node.id({v}): a source id must be non-negative")))?;
        Ok(PyNodeId(id))
    }

    /// Pickles as `getattr(Node, name)`, so unpickling gives the class attribute back.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<Reduce<'py, (Bound<'py, PyAny>, &'static str)>> {
        let getattr = slf.py().import("builtins")?.getattr("getattr")?;
        let name = match *slf.get() {
            PyNode::Leaf => "Leaf",
            PyNode::Push => "Push",
            PyNode::Pop => "Pop",
        };
        Ok((getattr, (slf.py().get_type::<PyNode>().into_any(), name)))
    }
}

/// An identified leaf marker, made by `Node.id(n)`: a leaf that names source sublayout `n`.
///
/// >>> Node.id(3).id
/// 3
#[pyclass(frozen, eq, hash, module = "strideweave", name = "NodeId")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyNodeId(pub usize);

#[pymethods]
impl PyNodeId {
    /// `NodeId(n)` is `Node.id(n)`.
    #[new]
    fn new(n: &Bound<'_, PyAny>) -> PyResult<Self> {
        PyNode::id(n)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyAny>, (usize,)) {
        (slf.get_type().into_any(), (slf.get().0,))
    }

    /// The source sublayout this leaf names.
    #[getter]
    fn id(&self) -> usize {
        self.0
    }

    fn __repr__(&self) -> String {
        format!("Node.id({})", self.0)
    }
}

/// A hierarchy of leaves, some naming source sublayouts: `Tree(*items)`, each item an
/// integer or `Node.Leaf` (a plain leaf), `Node.id(n)`, or a nested `Tree`.
///
/// >>> t = Tree(Node.id(1), Node.Leaf, Tree(Node.id(0), 7))
/// >>> t.size, t.recipe
/// (4, [Node.Leaf, Node.Leaf, Node.Push, Node.Leaf, Node.Leaf, Node.Pop])
/// >>> t
/// Tree(Node.id(1), Node.Leaf, Tree(Node.id(0), Node.Leaf))
#[pyclass(frozen, eq, hash, module = "strideweave", name = "Tree")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyTree(pub Tree);

fn tree_item(obj: &Bound<'_, PyAny>) -> PyResult<TreeItem> {
    if let Ok(n) = obj.cast::<PyNode>() {
        // The core's rule: only `Leaf` is an item (its error names the others).
        let single = checked(Tree::new([Node::from(*n.get())]))?;
        return Ok(single.items()[0].clone());
    }
    if let Ok(id) = obj.cast::<PyNodeId>() {
        return Ok(TreeItem::Id(id.get().0));
    }
    if let Ok(t) = obj.cast::<PyTree>() {
        return Ok(TreeItem::Tree(t.get().0.clone()));
    }
    // Any integer is a plain leaf; its value is not used.
    if is_integer(obj)? {
        return Ok(TreeItem::Leaf);
    }
    Err(value_error(format!(
        "tree item {} ({}) is neither an integer, a leaf marker nor a Tree",
        obj.repr().map(|s| s.to_string()).unwrap_or_default(),
        type_name(obj)
    )))
}

fn write_repr(t: &Tree, out: &mut String) {
    out.push_str("Tree(");
    for (i, item) in t.items().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match item {
            TreeItem::Leaf => out.push_str("Node.Leaf"),
            TreeItem::Id(n) => out.push_str(&format!("Node.id({n})")),
            TreeItem::Tree(sub) => write_repr(sub, out),
        }
    }
    out.push(')');
}

#[pymethods]
impl PyTree {
    #[new]
    #[pyo3(signature = (*items))]
    fn new(items: &Bound<'_, PyTuple>) -> PyResult<Self> {
        let items = items
            .iter()
            .map(|it| tree_item(&it))
            .collect::<PyResult<Vec<_>>>()?;
        checked(Tree::new(items)).map(PyTree)
    }

    /// The recipe of public markers; identified leaves appear as `Node.Leaf`.
    #[getter]
    fn recipe(&self) -> Vec<PyNode> {
        self.0.recipe().into_iter().map(PyNode::from).collect()
    }

    /// Number of leaves.
    #[getter]
    fn size(&self) -> usize {
        self.0.size()
    }

    /// The top-level items: `Node.Leaf`, `Node.id(n)` markers and nested `Tree`s.
    #[getter]
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items = self
            .0
            .items()
            .iter()
            .map(|it| -> PyResult<Bound<'py, PyAny>> {
                Ok(match it {
                    TreeItem::Leaf => Bound::new(py, PyNode::Leaf)?.into_any(),
                    TreeItem::Id(n) => Bound::new(py, PyNodeId(*n))?.into_any(),
                    TreeItem::Tree(t) => Bound::new(py, PyTree(t.clone()))?.into_any(),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, items)
    }

    fn __len__(&self) -> usize {
        self.0.items().len()
    }

    fn __repr__(&self) -> String {
        let mut s = String::new();
        write_repr(&self.0, &mut s);
        s
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        Ok((slf.get_type().into_any(), slf.get().items(slf.py())?))
    }

    /// The `eval` notation, e.g. `tree(id(1),leaf,id(0))`.
    fn __str__(&self) -> String {
        self.0.to_string()
    }
}

/// Integer keys for `Layout.permute`: a `TypeError` for a non-integer entry.
pub(crate) fn order_entries(items: &Bound<'_, PyTuple>) -> PyResult<Vec<i128>> {
    let one_iterable = items.len() == 1 && !is_integer(&items.get_item(0)?)?;
    let source = if one_iterable {
        items.get_item(0)?
    } else {
        items.clone().into_any()
    };
    let mut out = Vec::new();
    for it in source.try_iter()? {
        let it = it?;
        if !is_integer(&it)? {
            return Err(type_error(format!(
                "permute: order entry {} is {}, not an integer",
                it.repr().map(|s| s.to_string()).unwrap_or_default(),
                type_name(&it)
            )));
        }
        out.push(it.extract::<i128>().unwrap_or(i128::MAX));
        if out.len() > strideweave::MAX_LEAVES * 4 {
            return Err(value_error(
                "permute: the order names more modes than a layout can have",
            ));
        }
    }
    Ok(out)
}

/// Whether `obj` is an integer: a Python `int` or anything with `__index__`.
pub(crate) fn is_integer(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")?)
}
