//! `Layout`: the spec's layout value with every query and algebra operation of the Rust
//! core. Each method converts its arguments, calls the core once and converts the result;
//! adding an operation is one short method here (and one line in the `.pyi` stubs).

use crate::composed::{PyComposedLayout, PySwizzle};
use crate::convert::{mode_index, mode_range, tree_from_value, Role};
use crate::errors::{checked, layout, type_error, type_name, value_error};
use crate::int_tree::{PyShape, PyStride};
use crate::tree::{is_integer, order_entries, PyNode, PyTree};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PySlice, PyString, PyTuple};
use strideweave::view::{render_svg, show, ColorBy, Grid, Picture, ShowOptions, SvgOptions};
use strideweave::view::{RENDER_MAX_CELLS, SHOW_MAX_CELLS};
use strideweave::{Coord, Layout, LayoutError, Shape};

/// A CuTe layout: a function from hierarchical coordinates (in `shape`) to scalar indices
/// (the sum of each leaf coordinate times its `stride`).
///
/// >>> a = Layout(Shape(2, [3, 4]), Stride(1, [10, 100]))
/// >>> a([1, [2, 3]]), a.index(5), Layout.get_index(a, [1, 2])
/// (321, 21, 21)
/// >>> print(a)
/// (2,(3,4)):(1,(10,100))
/// >>> Layout("20:2").compose(Layout("(5,4):(4,1)"))
/// Layout("(5,4):(8,2)")
#[pyclass(frozen, eq, hash, module = "strideweave", name = "Layout")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyLayout(pub Layout);

/// `obj` as a layout, or `None` when it is something else.
pub(crate) fn as_layout(obj: &Bound<'_, PyAny>) -> Option<Layout> {
    obj.cast::<PyLayout>().ok().map(|l| l.get().0)
}

fn as_shape(obj: &Bound<'_, PyAny>) -> Option<Shape> {
    obj.cast::<PyShape>().ok().map(|s| s.get().0)
}

/// A `Shape` argument, or the spec's `TypeError` naming the operation.
fn shape_arg(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<Shape> {
    as_shape(obj).ok_or_else(|| {
        type_error(format!(
            "{op}: the target must be a Shape, not {}",
            type_name(obj)
        ))
    })
}

/// A tiler: a list or tuple of layouts, one per leading mode. `None` when `obj` is not a
/// list or tuple; a `TypeError` when an entry is not a layout.
pub(crate) fn as_tiler(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<Layout>>> {
    if !obj.is_instance_of::<PyList>() && !obj.is_instance_of::<PyTuple>() {
        return Ok(None);
    }
    let mut tiles = Vec::new();
    for (i, item) in obj.try_iter()?.enumerate() {
        let item = item?;
        let tile = as_layout(&item).ok_or_else(|| {
            type_error(format!(
                "{op}: tiler entry {i} is {}, not a Layout",
                type_name(&item)
            ))
        })?;
        tiles.push(tile);
        if tiles.len() > strideweave::MAX_LEAVES {
            return Err(value_error(format!(
                "{op}: a tiler of more than {} tiles is longer than any layout",
                strideweave::MAX_LEAVES
            )));
        }
    }
    Ok(Some(tiles))
}

/// A tiler with CuTe's `_` (`None`) entries: `Some` only for a list or tuple holding at
/// least one `None`, the other entries Layouts (a `TypeError` otherwise).
pub(crate) fn as_holed_tiler(
    op: &str,
    obj: &Bound<'_, PyAny>,
) -> PyResult<Option<Vec<Option<Layout>>>> {
    if !obj.is_instance_of::<PyList>() && !obj.is_instance_of::<PyTuple>() {
        return Ok(None);
    }
    let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
    if !items.iter().any(|i| i.is_none()) {
        return Ok(None);
    }
    if items.len() > strideweave::MAX_LEAVES {
        return Err(value_error(format!(
            "{op}: a tiler of more than {} tiles is longer than any layout",
            strideweave::MAX_LEAVES
        )));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            if item.is_none() {
                return Ok(None);
            }
            as_layout(item).map(Some).ok_or_else(|| {
                type_error(format!(
                    "{op}: tiler entry {i} is {}, not a Layout or None",
                    type_name(item)
                ))
            })
        })
        .collect::<PyResult<Vec<_>>>()
        .map(Some)
}

/// A tiler argument, or a `TypeError` naming what was given.
pub(crate) fn tiler_arg(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<Layout>> {
    as_tiler(op, obj)?.ok_or_else(|| {
        type_error(format!(
            "{op}: expected a tiler (a list or tuple of Layouts), not {}",
            type_name(obj)
        ))
    })
}

pub(crate) fn layout_arg(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<Layout> {
    as_layout(obj)
        .ok_or_else(|| type_error(format!("{op}: expected a Layout, not {}", type_name(obj))))
}

/// A coordinate key: an integer (expanded first mode fastest) or a nested iterable that
/// follows the shape's hierarchy, with an integer allowed for any sub-tree.
pub(crate) fn coord(key: &Bound<'_, PyAny>) -> PyResult<Coord> {
    checked(Coord::from_tuple(tree_from_value(key, Role::Coord)?))
}

/// A slicing coordinate: integers, nested lists or tuples, and `None` or `:` for CuTe's `_`.
fn slice_coord(key: &Bound<'_, PyAny>) -> PyResult<strideweave::SliceCoord> {
    let mut text = String::new();
    crate::dsl::write_slice_key(key, &mut text, 0)?;
    checked(text.parse())
}

/// `text` HTML-escaped in a `<pre>` block (the notebook table of `show`).
pub(crate) fn pre_block(text: &str) -> String {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!("<pre class=\"strideweave-layout\">{escaped}</pre>")
}

impl PyLayout {
    /// `compose` with a Layout, a Shape, an integer or a tiler.
    fn compose_layout(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Some(tiles) = as_holed_tiler("compose", b)? {
            return layout(self.0.compose_by_mode(&tiles));
        }
        if let Some(l) = as_layout(b) {
            return layout(self.0.compose(&l));
        }
        if let Some(s) = as_shape(b) {
            return layout(self.0.compose(&s));
        }
        if is_integer(b)? {
            let s = checked(Shape::from_tuple(tree_from_value(b, Role::Shape)?))?;
            return layout(self.0.compose(&s));
        }
        match as_tiler("compose", b)? {
            Some(tiles) => layout(self.0.compose(&tiles)),
            None => Err(type_error(format!(
                "compose: B must be a Layout, a Shape, a tiler (list or tuple of Layouts), a Swizzle or a ComposedLayout, not {}",
                type_name(b)
            ))),
        }
    }

    pub(crate) fn index_key(&self, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        // An integer key goes straight to the core's `index_of` (what `index` does for a
        // scalar coordinate) without building a coordinate tree: the common case in loops.
        if key.is_instance_of::<PyInt>() {
            if let Ok(i) = key.extract::<u64>() {
                return checked(
                    self.0
                        .index_of(i)
                        .map_err(|e| LayoutError::from_core(format!("index({}, {i})", self.0), e)),
                );
            }
        }
        checked(self.0.index(&coord(key)?))
    }

    /// CuTe's `complement(layout, shape)`, the core's [`Layout::complement_shape`]: the
    /// rest mode counts tiles of the shape's modes (CuTe's tuple `ceil_div(shape, span)`).
    fn complement_shape(&self, cotarget: &Bound<'_, PyAny>) -> PyResult<Self> {
        let shape = match as_shape(cotarget) {
            Some(s) => s,
            None if cotarget.is_instance_of::<PyList>() || cotarget.is_instance_of::<PyTuple>() => {
                checked(Shape::from_tuple(tree_from_value(cotarget, Role::Shape)?))?
            }
            None => {
                return Err(type_error(format!(
                    "complement: cotarget must be an integer or a Shape (or a tuple of extents), not {}",
                    type_name(cotarget)
                )))
            }
        };
        layout(self.0.complement_shape(&shape))
    }

    fn grid(&self, max_cells: u64) -> PyResult<Grid> {
        checked(Grid::new(&self.0, ColorBy::Index, max_cells))
    }
}

#[pymethods]
impl PyLayout {
    /// `Layout(shape, stride)`: a `Shape` and a congruent `Stride` (`ValueError` when
    /// either is of another type or their hierarchies differ). Without a stride, CuTe's
    /// compact column-major layout of the shape; `Layout("(2,3):(1,2)")` parses notation.
    #[new]
    #[pyo3(signature = (shape, stride = None))]
    fn new(shape: &Bound<'_, PyAny>, stride: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        if let (Ok(text), None) = (shape.cast::<PyString>(), stride) {
            return layout(text.to_cow()?.parse::<Layout>());
        }
        let s = as_shape(shape).ok_or_else(|| {
            value_error(format!(
                "Layout(shape, stride): shape must be a Shape, not {}",
                type_name(shape)
            ))
        })?;
        match stride {
            None => layout(Layout::col_major(s)),
            Some(d) => {
                let d = d.cast::<PyStride>().map(|d| d.get().0).map_err(|_| {
                    value_error(format!(
                        "Layout(shape, stride): stride must be a Stride, not {}",
                        type_name(d)
                    ))
                })?;
                layout(Layout::new(s, d))
            }
        }
    }

    /// CuTe's compact column-major layout of `shape` (first mode fastest).
    ///
    /// >>> Layout.col_major(Shape(4, [2, 3]))
    /// Layout("(4,(2,3)):(1,(4,8))")
    #[staticmethod]
    fn col_major(shape: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(Layout::col_major(shape_arg("col_major", shape)?))
    }

    /// Compact row-major layout of `shape` (last mode fastest, at every level).
    ///
    /// >>> Layout.row_major(Shape(2, 3))
    /// Layout("(2,3):(3,1)")
    #[staticmethod]
    fn row_major(shape: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(Layout::row_major(shape_arg("row_major", shape)?))
    }

    /// The scalar index of `key` in `layout`; `ValueError` when `layout` is not a Layout
    /// or the key is outside the shape domain.
    #[staticmethod]
    fn get_index(layout: &Bound<'_, PyAny>, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        let l = as_layout(layout).ok_or_else(|| {
            value_error(format!(
                "Layout.get_index: the layout argument must be a Layout, not {}",
                type_name(layout)
            ))
        })?;
        PyLayout(l).index_key(key)
    }

    /// The scalar index of a hierarchical coordinate or of an integer key (expanded in
    /// mixed radix, first mode fastest). `layout(key)` is the same.
    fn index(&self, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.index_key(key)
    }

    fn __call__(&self, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.index_key(key)
    }

    /// Top-level mode `key` (negative from the end) or the modes of a unit-step slice,
    /// as a layout with the hierarchy kept.
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<Self> {
        let rank = self.0.rank();
        if let Ok(slice) = key.cast::<PySlice>() {
            let (start, stop) = mode_range(slice, rank)?;
            return layout(self.0.slice(start, stop));
        }
        let i = key.extract::<isize>().map_err(|_| {
            type_error(format!(
                "Layout indices must be integers or slices, not {}",
                type_name(key)
            ))
        })?;
        layout(self.0.get(mode_index(i, rank)?))
    }

    fn __len__(&self) -> usize {
        self.0.rank()
    }

    /// The top-level modes, in order.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyIterator>> {
        let modes = (0..self.0.rank())
            .map(|i| layout(self.0.get(i)))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, modes)?.as_any().try_iter()
    }

    /// Top-level mode `i`, hierarchy kept (the Rust name of `layout[i]`).
    fn get(&self, i: i64) -> PyResult<Self> {
        let i = usize::try_from(i)
            .map_err(|_| value_error(format!("get({}, {i}): mode {i} is negative", self.0)))?;
        layout(self.0.get(i))
    }

    /// Top-level modes `start..end` (the Rust name of `layout[start:end]`).
    fn slice(&self, start: i64, end: i64) -> PyResult<Self> {
        let (s, e) = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .ok_or_else(|| {
                value_error(format!("get({}, {start}, {end}): negative mode", self.0))
            })?;
        layout(self.0.slice(s, e))
    }

    /// The shape tree.
    #[getter]
    fn shape(&self) -> PyShape {
        PyShape(self.0.shape())
    }

    /// The stride tree.
    #[getter]
    fn stride(&self) -> PyStride {
        PyStride(self.0.stride())
    }

    /// Number of logical coordinates: the product of the extents.
    #[getter]
    fn size(&self) -> u64 {
        self.0.size()
    }

    /// One plus the greatest index reached: the origin-based index span.
    #[getter]
    fn cosize(&self) -> u64 {
        self.0.cosize()
    }

    /// Number of top-level modes.
    #[getter]
    fn rank(&self) -> usize {
        self.0.rank()
    }

    /// Nesting depth (CuTe's convention: `20:2` has depth 0).
    #[getter]
    fn depth(&self) -> usize {
        self.0.depth()
    }

    /// The shape's leaf-and-nesting recipe as a list of `Node` markers.
    #[getter]
    fn profile(&self) -> Vec<PyNode> {
        self.0.profile().into_iter().map(PyNode::from).collect()
    }

    /// True exactly when distinct coordinates map to distinct indices (exact, and
    /// structural for ordinary layouts, so large layouts answer at once). The search
    /// that remains for pathological interleavings is bounded: past its limit it raises
    /// `ValueError` ("not decided") instead of running on, never a wrong answer.
    #[getter]
    fn is_injective(&self) -> PyResult<bool> {
        checked(self.0.try_is_injective())
    }

    /// The number `k` of coordinates reaching each index of `[0, target_shape.size)`
    /// when the layout provably maps onto that range uniformly, else `None`.
    ///
    /// >>> Layout(Shape(4, 3), Stride(0, 1)).uniform_preimage_extent(Shape(3))
    /// 4
    fn uniform_preimage_extent(&self, target_shape: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
        let t = shape_arg("uniform_preimage_extent", target_shape)?;
        Ok(self.0.uniform_preimage_extent(&t))
    }

    /// A layout whose shape is `target` (same profile): extent-1 leaves widen with stride 0.
    ///
    /// >>> Layout(Shape(2, [1, 3]), Stride(1, [2, 2])).broadcast_to(Shape(2, [4, 3]))
    /// Layout("(2,(4,3)):(1,(0,2))")
    fn broadcast_to(&self, target: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.broadcast_to(&shape_arg("broadcast_to", target)?))
    }

    /// Every top-level mode of `self`, then every top-level mode of `second` (`a + b`).
    fn concat(&self, second: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.concat(&layout_arg("concat", second)?))
    }

    fn __add__(&self, second: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.concat(second)
    }

    /// `self`'s modes followed by `second` as one mode (nested unless it is a leaf).
    ///
    /// >>> Layout(Shape(1, 2), Stride(0, 1)).append(Layout(Shape(3, 4), Stride(2, 6))).shape
    /// Shape("(1,2,(3,4))")
    fn append(&self, second: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.append(&layout_arg("append", second)?))
    }

    /// A new hierarchy from sublayouts of `self`: `selection` (default: every leaf) names
    /// the extracted sublayouts depth-first, `output` places them by `Node.id(n)` and
    /// inserts `1:0` for each plain leaf.
    ///
    /// >>> Layout(Shape(2, 3), Stride(1, 2)).rearrange(Tree(Node.id(1), Node.Leaf, Node.id(0)))
    /// Layout("(3,1,2):(2,0,1)")
    #[pyo3(signature = (output, selection = None))]
    fn rearrange(
        &self,
        output: &Bound<'_, PyAny>,
        selection: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let tree = |what: &str, obj: &Bound<'_, PyAny>| {
            obj.cast::<PyTree>()
                .map(|t| t.get().0.clone())
                .map_err(|_| {
                    value_error(format!(
                        "rearrange: the {what} must be a Tree, not {}",
                        type_name(obj)
                    ))
                })
        };
        let out = tree("output", output)?;
        let sel = selection.map(|s| tree("selection", s)).transpose()?;
        layout(self.0.rearrange(&out, sel.as_ref()))
    }

    /// Reorders whole top-level modes: mode `j` of the result is mode `order[j]`. The
    /// order is given as integers or as one iterable.
    ///
    /// >>> Layout("(2,(3,4),5):(1,(2,6),24)").permute(1, 0, 2)
    /// Layout("((3,4),2,5):((2,6),1,24)")
    #[pyo3(signature = (*order))]
    fn permute(&self, order: &Bound<'_, PyTuple>) -> PyResult<Self> {
        let entries = order_entries(order)?;
        let rank = self.0.rank();
        let order = entries
            .iter()
            .map(|&o| {
                usize::try_from(o)
                    .ok()
                    .filter(|&o| o < rank)
                    .ok_or_else(|| {
                        value_error(format!(
                            "permute({}, {entries:?}): mode {o} is out of range for rank {rank}",
                            self.0
                        ))
                    })
            })
            .collect::<PyResult<Vec<_>>>()?;
        layout(self.0.permute(&order))
    }

    /// Functional composition `R(c) = self(B(c))` with a Layout, a Shape (one unit-stride
    /// tile per leading mode, an integer is a rank-1 shape) or a tiler (list or tuple of
    /// Layouts, one per leading mode, later modes kept). Errors name the failed
    /// divisibility condition. With a `Swizzle` or a `ComposedLayout` the result is a
    /// `ComposedLayout` (`compose_swizzle`, `compose_composed`).
    fn compose(&self, py: Python<'_>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(sw) = b.cast::<PySwizzle>() {
            return Ok(Py::new(py, self.compose_swizzle(sw.get())?)?.into_any());
        }
        if let Ok(c) = b.cast::<PyComposedLayout>() {
            return Ok(Py::new(py, self.compose_composed(c.get())?)?.into_any());
        }
        Ok(Py::new(py, self.compose_layout(b)?)?.into_any())
    }

    /// CuTe's `composition(Layout, Swizzle)`: `self ∘ Sw` rewritten as `Sw' o self`, where
    /// `Sw'` carries the swizzle's bits through `self`; checked on every point, and a
    /// `ValueError` where no such swizzle exists.
    ///
    /// >>> Layout("(8,8):(8,1)").compose_swizzle(Swizzle(3, 0, 3))
    /// ComposedLayout("Sw<3,0,-3> o (8,8):(8,1)")
    fn compose_swizzle(&self, sw: &PySwizzle) -> PyResult<PyComposedLayout> {
        checked(self.0.compose_swizzle(&sw.0)).map(PyComposedLayout)
    }

    /// CuTe's `composition(Layout, ComposedLayout)` for offset 0: `Sw' o (self ∘ L)`.
    fn compose_composed(&self, b: &PyComposedLayout) -> PyResult<PyComposedLayout> {
        checked(self.0.compose_composed(&b.0)).map(PyComposedLayout)
    }

    /// Whether `self.compose(b)` is admitted (the same checks, no exception).
    fn can_compose(&self, py: Python<'_>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
        match self.compose(py, b) {
            Ok(_) => Ok(true),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyValueError>(b.py()) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The index factors `self` leaves out, so that `(self, complement)` is injective and
    /// spans `[0, cotarget)`; `cotarget` defaults to `self.cosize` as in CuTe. A `Shape`
    /// (or a tuple of extents) is CuTe's `complement(layout, shape)`: the rest mode counts
    /// the tiles of the tuple `ceil_div(shape, span)`. Any other cotarget is a `TypeError`.
    ///
    /// >>> Layout(Shape(2, 2), Stride(1, 6)).complement(24)
    /// Layout("(3,2):(2,12)")
    /// >>> Layout("2:1").complement(Shape(3, 3)), Layout("2:1").complement(9)
    /// (Layout("6:2"), Layout("5:2"))
    #[pyo3(signature = (cotarget = None))]
    fn complement(&self, cotarget: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let m = match cotarget {
            None => self.0.cosize(),
            Some(c) => match crate::convert::index_value(c, Role::Cotarget)? {
                Some(m) => m,
                None => return self.complement_shape(c),
            },
        };
        layout(self.0.complement(m))
    }

    /// Logical division by one tile `B`: `self ∘ (B, complement(B, size(self)))`. A tiler
    /// (list or tuple) divides mode by mode, as `divide_tiler`.
    ///
    /// >>> Layout("(4,2,3):(2,1,8)").divide(Layout("4:2"))
    /// Layout("((2,2),(2,3)):((4,1),(2,8))")
    fn divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        match as_layout(b) {
            Some(tile) => layout(self.0.divide(&tile)),
            None => self.divide_tiler(b),
        }
    }

    /// CuTe's name for `divide`.
    ///
    /// >>> Layout("(4,2,3):(2,1,8)").logical_divide(Layout("4:2"))
    /// Layout("((2,2),(2,3)):((4,1),(2,8))")
    fn logical_divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.divide(b)
    }

    /// Divides each leading mode by its tile (a list or tuple of Layouts, or a Shape of
    /// unit-stride tiles) and keeps the later modes.
    fn divide_tiler(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Some(tiles) = as_holed_tiler("divide", b)? {
            return layout(self.0.divide_by_mode(&tiles));
        }
        if let Some(s) = as_shape(b) {
            return layout(self.0.divide_shape(&s));
        }
        layout(self.0.divide_tiler(&tiler_arg("divide_tiler", b)?))
    }

    /// `((tiles...), (rests...), untouched modes...)`.
    ///
    /// >>> Layout("(8,8):(8,1)").zipped_divide([Layout("2:1"), Layout("4:1")])
    /// Layout("((2,4),(4,2)):((8,1),(16,4))")
    fn zipped_divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.zipped_divide(&tiler_arg("zipped_divide", b)?))
    }

    /// `((tiles...), rest0, rest1, ..., untouched modes...)`.
    fn tiled_divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.tiled_divide(&tiler_arg("tiled_divide", b)?))
    }

    /// Merges contiguous leaves: the same function on `0..size`, flat result.
    ///
    /// >>> Layout("(2,(1,6)):(1,(6,2))").coalesce()
    /// Layout("12:1")
    fn coalesce(&self) -> Self {
        PyLayout(self.0.coalesce())
    }

    /// `coalesce` after dropping stride-0 (broadcast) leaves.
    fn filter(&self) -> Self {
        PyLayout(self.0.filter())
    }

    /// `R` with `self(R(i)) == i` for every `i < R.size`, as large as the strides allow.
    fn right_inverse(&self) -> PyResult<Self> {
        layout(self.0.right_inverse())
    }

    /// `R` with `R(self(i)) == i` for every `i < self.size`; `self` must be injective.
    fn left_inverse(&self) -> PyResult<Self> {
        layout(self.0.left_inverse())
    }

    /// `(self, complement(self, size*cosize(B)) ∘ B)`; a tiler multiplies mode by mode.
    ///
    /// >>> Layout("(2,2):(1,2)").logical_product(Layout("3:1"))
    /// Layout("((2,2),3):((1,2),4)")
    fn logical_product(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Some(tiles) = as_holed_tiler("logical_product", b)? {
            return layout(self.0.logical_product_by_mode(&tiles));
        }
        if let Some(tiles) = as_tiler("logical_product", b)? {
            return layout(self.0.logical_product_tiler(&tiles));
        }
        layout(self.0.logical_product(&layout_arg("logical_product", b)?))
    }

    /// `((tiles...), rest0, rest1, ...)` flattened: CuTe's `flat_divide`.
    fn flat_divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.flat_divide(&tiler_arg("flat_divide", b)?))
    }

    /// The by-mode product arranged `((self modes...), (copies...))`: CuTe's `zipped_product`.
    fn zipped_product(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.zipped_product(&tiler_arg("zipped_product", b)?))
    }

    /// The by-mode product arranged `((self modes...), copies0, copies1, ...)`.
    fn tiled_product(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.tiled_product(&tiler_arg("tiled_product", b)?))
    }

    /// The by-mode product with every mode at the top level: CuTe's `flat_product`.
    fn flat_product(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.flat_product(&tiler_arg("flat_product", b)?))
    }

    /// Copies of `self` (a block) laid out column-major to cover `shape`.
    ///
    /// >>> Layout("(2,2):(1,2)").tile_to_shape(Shape(4, 6))
    /// Layout("((2,2),(2,3)):((1,4),(2,8))")
    fn tile_to_shape(&self, shape: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(
            self.0
                .tile_to_shape(&shape_arg("tile_to_shape", shape)?, None),
        )
    }

    /// The layout of elements `n` times wider (indices divided by `n`): CuTe's `upcast`.
    fn upcast(&self, n: u64) -> PyResult<Self> {
        layout(self.0.upcast(n))
    }

    /// The layout of elements `n` times narrower: CuTe's `downcast`.
    fn downcast(&self, n: u64) -> PyResult<Self> {
        layout(self.0.downcast(n))
    }

    /// The coordinates that map to index 0 beyond the first: CuTe's `nullspace`.
    fn nullspace(&self) -> PyResult<Self> {
        layout(self.0.nullspace())
    }

    /// A compact layout with `self`'s shape and the order of its strides.
    fn make_layout_like(&self) -> PyResult<Self> {
        layout(self.0.make_layout_like())
    }

    /// The same function with the hierarchy removed.
    ///
    /// >>> Layout("((2,3),(4,5)):((1,2),(6,24))").flatten()
    /// Layout("(2,3,4,5):(1,2,6,24)")
    fn flatten(&self) -> Self {
        PyLayout(self.0.flatten())
    }

    /// Top-level modes `start` to `end - 1` made one mode.
    fn group(&self, start: usize, end: usize) -> PyResult<Self> {
        layout(self.0.group(start, end))
    }

    /// How many leading elements both layouts map to consecutive indices.
    ///
    /// >>> Layout("(4,8):(1,4)").max_common_vector(Layout("(4,8):(8,1)"))
    /// 1
    fn max_common_vector(&self, other: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(self
            .0
            .max_common_vector(&layout_arg("max_common_vector", other)?))
    }

    /// That common contiguous run as a layout over the shared coordinates.
    fn max_common_layout(&self, other: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyLayout(self.0.max_common_layout(&layout_arg(
            "max_common_layout",
            other,
        )?)))
    }

    /// Blocks of `self` arranged as `b` says: mode `i` is `(self_i, b_i)`.
    fn blocked_product(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.blocked_product(&layout_arg("blocked_product", b)?))
    }

    /// `self`'s elements interleaved across `b`'s copies: mode `i` is `(b_i, self_i)`.
    fn raked_product(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.raked_product(&layout_arg("raked_product", b)?))
    }

    /// `self` over `old_bits`-wide elements as a layout over `new_bits`-wide elements
    /// (CuTe's `recast_layout<Old, New>`).
    ///
    /// >>> Layout("(4,8):(1,4)").recast(16, 32)
    /// Layout("(2,8):(1,2)")
    fn recast(&self, old_bits: u64, new_bits: u64) -> PyResult<Self> {
        layout(self.0.recast(old_bits, new_bits))
    }

    /// Coalesce by mode (CuTe's `coalesce(layout, profile)`): an integer in `profile`
    /// coalesces the whole mode under it; modes past the profile are kept.
    ///
    /// >>> Layout("(2,(1,6)):(1,(6,2))").coalesce_by((1, 1))
    /// Layout("(2,6):(1,2)")
    fn coalesce_by(&self, profile: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.coalesce_by(&tree_from_value(profile, Role::Coord)?))
    }

    /// The top-level modes `modes[0]`, `modes[1]`, ... (repeats allowed; CuTe's `select`).
    ///
    /// >>> Layout("(2,(3,4),5):(1,(2,6),24)").select(2, 0)
    /// Layout("(5,2):(24,1)")
    #[pyo3(signature = (*modes))]
    fn select(&self, modes: &Bound<'_, PyTuple>) -> PyResult<Self> {
        let entries = order_entries(modes)?;
        let modes = entries
            .iter()
            .map(|&m| {
                usize::try_from(m).map_err(|_| {
                    value_error(format!(
                        "select({}, {entries:?}): mode {m} is out of range",
                        self.0
                    ))
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        layout(self.0.select(&modes))
    }

    /// `self` with top-level mode `i` replaced by `x` (CuTe's `replace`).
    ///
    /// >>> Layout("(2,3):(1,2)").replace(1, Layout("(4,5):(6,24)"))
    /// Layout("(2,(4,5)):(1,(6,24))")
    fn replace(&self, i: usize, x: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.replace(i, &layout_arg("replace", x)?))
    }

    /// The compact layout of `shape` whose items are laid out in increasing `order` (ties
    /// left to right): CuTe's `make_ordered_layout`.
    ///
    /// >>> Layout.make_ordered_layout(Shape(2, 2, 2, 2), (0, 2, 3, 1))
    /// Layout("(2,2,2,2):(1,4,8,2)")
    #[staticmethod]
    fn make_ordered_layout(shape: &Bound<'_, PyAny>, order: &Bound<'_, PyAny>) -> PyResult<Self> {
        let s = shape_arg("make_ordered_layout", shape)?;
        layout(Layout::make_ordered_layout(
            &s,
            &tree_from_value(order, Role::Coord)?,
        ))
    }

    /// CuTe's `slice_and_offset`: the modes under each `None` (CuTe's `_`) of `coord`, as
    /// a layout, and the index of `coord` with every `_` read as 0 (where the slice starts).
    ///
    /// >>> Layout("(4,(2,3)):(1,(4,8))").slice_and_offset([None, [1, 2]])
    /// (Layout("4:1"), 20)
    fn slice_and_offset(&self, coord: &Bound<'_, PyAny>) -> PyResult<(Self, u64)> {
        let (l, o) = checked(self.0.slice_and_offset(&slice_coord(coord)?))?;
        Ok((PyLayout(l), o))
    }

    /// CuTe's `slice(coord, layout)`: the modes under each `None` of `coord`.
    fn slice_coord(&self, coord: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.slice_coord(&slice_coord(coord)?))
    }

    /// CuTe's `dice(coord, layout)`: the modes under the integers of `coord`.
    ///
    /// >>> Layout("(4,8,2):(1,4,32)").dice([None, 2, 1])
    /// Layout("(8,2):(4,32)")
    fn dice(&self, coord: &Bound<'_, PyAny>) -> PyResult<Self> {
        layout(self.0.dice(&slice_coord(coord)?))
    }

    /// The properties and CuTe-style index table of `strideweave show`, as text.
    fn show(&self) -> String {
        show(&self.0, &ShowOptions::default())
    }

    /// A standalone SVG picture of the layout (rows are mode 0, columns the other modes);
    /// `ValueError` for more than 16384 cells.
    fn svg(&self) -> PyResult<String> {
        let grid = self.grid(RENDER_MAX_CELLS)?;
        let picture = Picture::from_grid(&grid, Some(&self.0.to_string()));
        Ok(render_svg(&picture, &SvgOptions::default()))
    }

    /// Jupyter's picture hook: the SVG, or `None` (plain text shown) when too large.
    fn _repr_svg_(&self) -> Option<String> {
        self.svg().ok()
    }

    /// Jupyter's HTML hook: the `show` table in a `<pre>` block, or `None` when too large.
    fn _repr_html_(&self) -> Option<String> {
        self.grid(SHOW_MAX_CELLS).ok()?;
        Some(pre_block(&self.show()))
    }

    /// CuTe notation, e.g. `(2,(3,4)):(1,(10,100))`.
    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Layout(\"{}\")", self.0)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().into_any(), (slf.get().0.to_string(),)))
    }
}
