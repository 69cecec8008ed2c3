//! `Swizzle`, `ComposedLayout` (a swizzled layout `Sw o offset o L`), `Basis` and
//! `CoordLayout` (CuTe's scaled-basis strides `k@i`): thin wrappers of the core types.
//! Every method converts its arguments, calls the core once and converts the result.

use crate::convert::{mode_index, tree_from_value, Role};
use crate::errors::{checked, type_error, type_name, value_error};
use crate::eval::int_tree;
use crate::int_tree::{PyShape, PyStride};
use crate::layout::{as_layout, coord, PyLayout};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString, PyTuple};
use strideweave::view::{
    render_svg, show_swizzled, ColorBy, Grid, Picture, ShowOptions, SvgOptions,
};
use strideweave::view::{RENDER_MAX_CELLS, SHOW_MAX_CELLS};
use strideweave::{Basis, ComposedLayout, CoordLayout, Layout, LayoutError, Shape, Swizzle};

/// An integer argument as `u32`, a `ValueError` naming `what` when negative or too large.
fn small_u32(what: &str, v: i64) -> PyResult<u32> {
    u32::try_from(v).map_err(|_| value_error(format!("{what} {v} is negative or too large")))
}

/// A Python integer (anything with `__index__`) as a non-negative `u64`.
fn offset_arg(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    crate::convert::index_value(obj, Role::Coord)?
        .ok_or_else(|| type_error(format!("{what} must be an integer, not {}", type_name(obj))))
}

/// CuTe's `Swizzle<B,M,S>`: `offset ^ ((offset & YYY) >> S)`, the XOR of `B` bits starting
/// at bit `M + max(0,S)` into the `B` bits starting at `M - min(0,S)`. Its own inverse.
///
/// >>> sw = Swizzle(3, 4, 3)
/// >>> sw, str(sw)
/// (Swizzle(3, 4, 3), 'Sw<3,4,3>')
/// >>> bin(sw.yyy_mask), bin(sw.zzz_mask)
/// ('0b1110000000', '0b1110000')
/// >>> sw(0b1010000000) == 0b1010000000 ^ 0b1010000, sw(sw(1234))
/// (True, 1234)
/// >>> sw.compose(Layout("(8,64):(64,1)"))
/// ComposedLayout("Sw<3,4,3> o (8,64):(64,1)")
#[pyclass(frozen, eq, hash, module = "strideweave", name = "Swizzle")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PySwizzle(pub Swizzle);

fn as_swizzle(obj: &Bound<'_, PyAny>) -> Option<Swizzle> {
    obj.cast::<PySwizzle>().ok().map(|s| s.get().0)
}

#[pymethods]
impl PySwizzle {
    /// `Swizzle(bits, base, shift)` (CuTe's `B`, `M`, `S`) or `Swizzle("Sw<B,M,S>")`;
    /// `ValueError` when `|shift| < bits` (the masks overlap) or the masks pass bit 63.
    #[new]
    #[pyo3(signature = (bits, base = None, shift = None))]
    fn new(bits: &Bound<'_, PyAny>, base: Option<i64>, shift: Option<i64>) -> PyResult<Self> {
        if let Ok(text) = bits.cast::<PyString>() {
            if base.is_some() || shift.is_some() {
                return Err(type_error(
                    "Swizzle(text) takes the notation alone, e.g. Swizzle(\"Sw<3,4,3>\")",
                ));
            }
            return checked(text.to_cow()?.parse::<Swizzle>()).map(PySwizzle);
        }
        let (Some(base), Some(shift)) = (base, shift) else {
            return Err(type_error(
                "Swizzle(bits, base, shift) takes three integers (or one notation string)",
            ));
        };
        let bits: i64 = bits.extract().map_err(|_| {
            type_error(format!(
                "Swizzle: bits must be an integer, not {}",
                type_name(bits)
            ))
        })?;
        let shift = i32::try_from(shift)
            .map_err(|_| value_error(format!("swizzle shift {shift} is out of range")))?;
        checked(Swizzle::new(
            small_u32("swizzle bits", bits)?,
            small_u32("swizzle base", base)?,
            shift,
        ))
        .map(PySwizzle)
    }

    /// The identity swizzle CuTe reports for a layout without one: `Sw<0,4,3>`.
    #[classattr]
    #[allow(non_snake_case)]
    fn IDENTITY() -> Self {
        PySwizzle(Swizzle::IDENTITY)
    }

    /// CuTe's `make_swizzle<Y, Z>()`: the swizzle with YYY mask `yyy` and ZZZ mask `zzz`,
    /// or `None` when no swizzle has these masks.
    ///
    /// >>> Swizzle.from_masks(0b1000, 0b0100)
    /// Swizzle(1, 2, 1)
    #[staticmethod]
    fn from_masks(yyy: u64, zzz: u64) -> Option<Self> {
        Swizzle::from_masks(yyy, zzz).map(PySwizzle)
    }

    /// `B`: how many bits are XORed.
    #[getter]
    fn bits(&self) -> u32 {
        self.0.bits()
    }

    /// `M`: how many low bits stay fixed.
    #[getter]
    fn base(&self) -> u32 {
        self.0.base()
    }

    /// `S`: the distance from the YYY bits down to the ZZZ bits (negative: up).
    #[getter]
    fn shift(&self) -> i32 {
        self.0.shift()
    }

    /// Whether the swizzle changes nothing (`bits == 0`).
    #[getter]
    fn is_identity(&self) -> bool {
        self.0.is_identity()
    }

    /// The bits that are read (and kept).
    #[getter]
    fn yyy_mask(&self) -> u64 {
        self.0.yyy_mask()
    }

    /// The bits that are flipped by the YYY bits.
    #[getter]
    fn zzz_mask(&self) -> u64 {
        self.0.zzz_mask()
    }

    /// CuTe's `swizzle_code`: `yyy_mask | zzz_mask`.
    #[getter]
    fn code(&self) -> u64 {
        self.0.code()
    }

    /// The swizzled offset (`sw(offset)` is the same).
    fn apply(&self, offset: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(self
            .0
            .apply(offset_arg("Swizzle.apply: the offset", offset)?))
    }

    fn __call__(&self, offset: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.apply(offset)
    }

    /// `self ∘ other`: with a `Layout`, CuTe's `composition(Swizzle, Layout)`, the swizzled
    /// layout `Sw o L`; with a `Swizzle` of the same shift, the one swizzle whose masks
    /// are the XOR of both (`compose_swizzle`).
    fn compose(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Some(l) = as_layout(other) {
            return Ok(Py::new(py, PyComposedLayout(self.0.compose(&l)))?.into_any());
        }
        if let Some(s) = as_swizzle(other) {
            return Ok(Py::new(py, self.compose_swizzle(&PySwizzle(s))?)?.into_any());
        }
        Err(type_error(format!(
            "Swizzle.compose: expected a Layout or a Swizzle, not {}",
            type_name(other)
        )))
    }

    /// CuTe's `composition(Swizzle, Swizzle)` for swizzles of the same shift.
    ///
    /// >>> Swizzle(1, 4, 3).compose_swizzle(Swizzle(1, 5, 3))
    /// Swizzle(2, 4, 3)
    fn compose_swizzle(&self, other: &PySwizzle) -> PyResult<Self> {
        checked(self.0.compose_swizzle(&other.0)).map(PySwizzle)
    }

    /// The swizzle on elements `n` times wider (`n` a power of two): CuTe's `upcast`.
    ///
    /// >>> Swizzle(3, 4, 3).upcast(2)
    /// Swizzle(3, 3, 3)
    fn upcast(&self, n: u64) -> PyResult<Self> {
        checked(self.0.upcast(n)).map(PySwizzle)
    }

    /// The swizzle on elements `n` times narrower: CuTe's `downcast`.
    fn downcast(&self, n: u64) -> PyResult<Self> {
        checked(self.0.downcast(n)).map(PySwizzle)
    }

    /// CuTe's notation, `Sw<B,M,S>`.
    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Swizzle({}, {}, {})",
            self.0.bits(),
            self.0.base(),
            self.0.shift()
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (u32, u32, i32))> {
        let s = slf.get().0;
        Ok((slf.get_type().into_any(), (s.bits(), s.base(), s.shift())))
    }
}

/// A tiler argument (list or tuple of Layouts, or a Shape of unit-stride tiles) for the
/// operations that take one.
fn tiles_arg(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<Layout>> {
    if let Ok(s) = obj.cast::<PyShape>() {
        let s = s.get().0;
        let t = s.as_tuple();
        if t.depth() > 1 {
            return Err(type_error(format!(
                "{op}: a nested Shape {s} is not a tiler; pass a list of Layouts"
            )));
        }
        return (0..t.leaf_count())
            .map(|i| {
                checked(
                    Layout::leaf(t.leaf(i), 1)
                        .map_err(|e| LayoutError::from_core(format!("{op}: tile of {s}"), e)),
                )
            })
            .collect();
    }
    crate::layout::tiler_arg(op, obj)
}

/// The composition argument `b` of `compose`: a Layout, a Shape (or an integer) or a tiler.
/// Built once per call and matched at once, so its size does not matter.
#[allow(clippy::large_enum_variant)]
enum ComposeArg {
    Layout(Layout),
    Shape(Shape),
    Tiler(Vec<Layout>),
}

fn compose_arg(op: &str, b: &Bound<'_, PyAny>) -> PyResult<ComposeArg> {
    if let Some(l) = as_layout(b) {
        return Ok(ComposeArg::Layout(l));
    }
    if let Ok(s) = b.cast::<PyShape>() {
        return Ok(ComposeArg::Shape(s.get().0));
    }
    if b.is_instance_of::<PyInt>() {
        let s = checked(Shape::from_tuple(tree_from_value(b, Role::Shape)?))?;
        return Ok(ComposeArg::Shape(s));
    }
    match crate::layout::as_tiler(op, b)? {
        Some(t) => Ok(ComposeArg::Tiler(t)),
        None => Err(type_error(format!(
            "{op}: B must be a Layout, a Shape or a tiler (list or tuple of Layouts), not {}",
            type_name(b)
        ))),
    }
}

/// CuTe's `ComposedLayout` `Sw o offset o L`: the function `c -> Sw(offset + L(c))`. The
/// layout `L` gives the domain; tiling and composing act on `L` and keep the swizzle, which
/// is how CuTe tiles a swizzled shared-memory layout.
///
/// >>> s = ComposedLayout("Sw<3,4,3> o (8,64):(64,1)")
/// >>> s([1, 16]), s([2, 0])                  # row 2: bit 7 flips bit 4
/// (80, 144)
/// >>> s.compose([Layout("8:1"), Layout("8:1")])
/// ComposedLayout("Sw<3,4,3> o (8,8):(64,1)")
/// >>> ComposedLayout(Swizzle(3, 0, 3), Layout("(8,8):(8,1)")).fix_mode(0, 3)
/// ComposedLayout("Sw<3,0,3> o 24 o 8:1")
#[pyclass(frozen, eq, hash, module = "strideweave", name = "ComposedLayout")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyComposedLayout(pub ComposedLayout);

fn composed(r: Result<ComposedLayout, LayoutError>) -> PyResult<PyComposedLayout> {
    checked(r).map(PyComposedLayout)
}

impl PyComposedLayout {
    fn index_key(&self, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        if key.is_instance_of::<PyInt>() {
            if let Ok(i) = key.extract::<u64>() {
                return checked(self.0.index_of(i));
            }
        }
        checked(self.0.index(&coord(key)?))
    }

    fn grid(&self, max_cells: u64) -> PyResult<Grid> {
        checked(Grid::swizzled(&self.0, ColorBy::Index, max_cells))
    }
}

#[pymethods]
impl PyComposedLayout {
    /// `ComposedLayout(swizzle, layout)` or `ComposedLayout(swizzle, offset, layout)`, or
    /// the notation `ComposedLayout("Sw<B,M,S> o [OFFSET o] SHAPE:STRIDE")`.
    #[new]
    #[pyo3(signature = (swizzle, offset = None, layout = None))]
    fn new(
        swizzle: &Bound<'_, PyAny>,
        offset: Option<&Bound<'_, PyAny>>,
        layout: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        if let (Ok(text), None, None) = (swizzle.cast::<PyString>(), offset, layout) {
            return composed(text.to_cow()?.parse::<ComposedLayout>());
        }
        let sw = as_swizzle(swizzle).ok_or_else(|| {
            type_error(format!(
                "ComposedLayout: the swizzle must be a Swizzle, not {}",
                type_name(swizzle)
            ))
        })?;
        let (off, l) = match (offset, layout) {
            (Some(l), None) => (0, l),
            (Some(o), Some(l)) => (offset_arg("ComposedLayout: the offset", o)?, l),
            _ => {
                return Err(type_error(
                    "ComposedLayout(swizzle, [offset,] layout): the layout is missing",
                ))
            }
        };
        let l = as_layout(l).ok_or_else(|| {
            type_error(format!(
                "ComposedLayout: the layout must be a Layout, not {}",
                type_name(l)
            ))
        })?;
        composed(ComposedLayout::new(sw, off, l))
    }

    /// The swizzle (CuTe's `layout_a()`).
    #[getter]
    fn swizzle(&self) -> PySwizzle {
        PySwizzle(self.0.swizzle())
    }

    /// The offset added before swizzling.
    #[getter]
    fn offset(&self) -> u64 {
        self.0.offset()
    }

    /// The layout `L` (CuTe's `layout_b()`).
    #[getter]
    fn layout(&self) -> PyLayout {
        PyLayout(self.0.layout())
    }

    /// CuTe's `get_swizzle_portion`: the swizzle.
    fn swizzle_portion(&self) -> PySwizzle {
        PySwizzle(self.0.swizzle_portion())
    }

    /// CuTe's `get_nonswizzle_portion`: the layout `L`.
    fn nonswizzle_portion(&self) -> PyLayout {
        PyLayout(self.0.nonswizzle_portion())
    }

    /// Whether the swizzle is the identity and the offset 0 (the value is just `L`).
    #[getter]
    fn is_plain(&self) -> bool {
        self.0.is_plain()
    }

    /// The shape of `L`.
    #[getter]
    fn shape(&self) -> PyShape {
        PyShape(self.0.shape())
    }

    /// Number of coordinates (the size of `L`).
    #[getter]
    fn size(&self) -> u64 {
        self.0.size()
    }

    /// CuTe's `cosize` of a composed layout: the cosize of `L`.
    #[getter]
    fn cosize(&self) -> u64 {
        self.0.cosize()
    }

    /// Number of top-level modes of `L`.
    #[getter]
    fn rank(&self) -> usize {
        self.0.rank()
    }

    /// Nesting depth of `L`.
    #[getter]
    fn depth(&self) -> usize {
        self.0.depth()
    }

    /// `Sw(offset + L(key))` for a hierarchical coordinate or an integer key.
    fn index(&self, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.index_key(key)
    }

    fn __call__(&self, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.index_key(key)
    }

    /// Top-level mode `i` (negative from the end), still swizzled.
    fn __getitem__(&self, i: isize) -> PyResult<Self> {
        composed(self.0.get(mode_index(i, self.0.rank())?))
    }

    fn __len__(&self) -> usize {
        self.0.rank()
    }

    /// Top-level mode `i`, still swizzled (CuTe's `get<I>`).
    fn get(&self, i: usize) -> PyResult<Self> {
        composed(self.0.get(i))
    }

    /// Fixes top-level mode `mode` at coordinate `c` (CuTe's slice `layout(c, _)`): the
    /// fixed mode's index moves into the offset, so `result(j) == self(c, j)`.
    fn fix_mode(&self, mode: usize, c: u64) -> PyResult<Self> {
        composed(self.0.fix_mode(mode, c))
    }

    /// `Sw o offset o (L ∘ B)` with a Layout, a Shape or a tiler: a tile of the swizzled
    /// layout, still swizzled.
    fn compose(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        composed(match compose_arg("compose", b)? {
            ComposeArg::Layout(l) => self.0.compose(&l),
            ComposeArg::Shape(s) => self.0.compose(&s),
            ComposeArg::Tiler(t) => self.0.compose(&t),
        })
    }

    /// `Sw o offset o divide(L, B)`; a tiler (or Shape) divides mode by mode.
    fn divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        match as_layout(b) {
            Some(l) => composed(self.0.divide(&l)),
            None => self.divide_tiler(b),
        }
    }

    /// `Sw o offset o divide_tiler(L, tiles)`.
    fn divide_tiler(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        composed(self.0.divide_tiler(&tiles_arg("divide_tiler", b)?))
    }

    /// `Sw o offset o zipped_divide(L, tiles)`.
    ///
    /// >>> ComposedLayout("Sw<3,4,3> o (8,64):(64,1)").zipped_divide([Layout("8:1"), Layout("16:1")])
    /// ComposedLayout("Sw<3,4,3> o ((8,16),(1,4)):((64,1),(0,16))")
    fn zipped_divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        composed(self.0.zipped_divide(&tiles_arg("zipped_divide", b)?))
    }

    /// `Sw o offset o tiled_divide(L, tiles)`.
    fn tiled_divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        composed(self.0.tiled_divide(&tiles_arg("tiled_divide", b)?))
    }

    /// `Sw o offset o logical_product(L, B)`.
    fn logical_product(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        composed(
            self.0
                .logical_product(&crate::layout::layout_arg("logical_product", b)?),
        )
    }

    /// `Sw o offset o blocked_product(L, B)`.
    fn blocked_product(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        composed(
            self.0
                .blocked_product(&crate::layout::layout_arg("blocked_product", b)?),
        )
    }

    /// `Sw o offset o raked_product(L, B)`.
    fn raked_product(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        composed(
            self.0
                .raked_product(&crate::layout::layout_arg("raked_product", b)?),
        )
    }

    /// `Sw o offset o coalesce(L)`.
    fn coalesce(&self) -> Self {
        PyComposedLayout(self.0.coalesce())
    }

    /// `R` with `self(R(i)) == i` for every `i < R.size` (checked on every point; offset 0).
    ///
    /// >>> ComposedLayout("Sw<3,3,3> o (8,64):(64,1)").right_inverse()
    /// ComposedLayout("Sw<3,0,-6> o (64,8):(8,1)")
    fn right_inverse(&self) -> PyResult<Self> {
        composed(self.0.right_inverse())
    }

    /// `R` with `R(self(c)) == c` for every `c < self.size` (checked; offset 0).
    fn left_inverse(&self) -> PyResult<Self> {
        composed(self.0.left_inverse())
    }

    /// The properties and index table of `strideweave show`, as text.
    fn show(&self) -> String {
        show_swizzled(&self.0, &ShowOptions::default())
    }

    /// A standalone SVG picture: `L`'s grid, each cell its swizzled index; `ValueError`
    /// for more than 16384 cells.
    fn svg(&self) -> PyResult<String> {
        let grid = self.grid(RENDER_MAX_CELLS)?;
        let picture = Picture::from_grid(&grid, Some(&self.0.to_string()));
        Ok(render_svg(&picture, &SvgOptions::default()))
    }

    /// Jupyter's picture hook: the SVG, or `None` when too large.
    fn _repr_svg_(&self) -> Option<String> {
        self.svg().ok()
    }

    /// Jupyter's HTML hook: the `show` table in a `<pre>` block, or `None` when too large.
    fn _repr_html_(&self) -> Option<String> {
        self.grid(SHOW_MAX_CELLS).ok()?;
        Some(crate::layout::pre_block(&self.show()))
    }

    /// CuTe notation, `Sw<B,M,S> o [OFFSET o] SHAPE:STRIDE`.
    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("ComposedLayout(\"{}\")", self.0)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().into_any(), (slf.get().0.to_string(),)))
    }
}

/// A basis direction `E<i0,i1,...>` of CuTe's scaled-basis strides: coordinate mode `i0`,
/// its sub-mode `i1`, and so on (outermost first). Printed after a scale as CuTe prints
/// it, innermost first: `E<1,0>` scaled by 2 is `2@0@1`.
///
/// >>> e = Basis(1, 0)
/// >>> e.path, str(e)
/// ((1, 0), '@0@1')
#[pyclass(frozen, eq, hash, ord, module = "strideweave", name = "Basis")]
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PyBasis(pub Basis);

#[pymethods]
impl PyBasis {
    /// `Basis(i0, i1, ...)` or `Basis([i0, i1, ...])`: 1 to 8 mode indices, each below 256.
    #[new]
    #[pyo3(signature = (*path))]
    fn new(path: &Bound<'_, PyTuple>) -> PyResult<Self> {
        let items: Vec<Bound<'_, PyAny>> =
            if path.len() == 1 && !path.get_item(0)?.is_instance_of::<PyInt>() {
                path.get_item(0)?.try_iter()?.collect::<PyResult<_>>()?
            } else {
                path.iter().collect()
            };
        let mut p = Vec::with_capacity(items.len());
        for item in &items {
            let v: i64 = item.extract().map_err(|_| {
                type_error(format!(
                    "Basis: a mode index must be an integer, not {}",
                    type_name(item)
                ))
            })?;
            p.push(
                usize::try_from(v)
                    .map_err(|_| value_error(format!("basis mode index {v} is negative")))?,
            );
        }
        checked(Basis::new(&p)).map(PyBasis)
    }

    /// The mode path, outermost first.
    #[getter]
    fn path<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.path())
    }

    /// The suffix CuTe prints after a scale: `@i_last...@i_first`.
    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        let p: Vec<String> = self.0.path().iter().map(|i| i.to_string()).collect();
        format!("Basis({})", p.join(", "))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        Ok((
            slf.get_type().into_any(),
            PyTuple::new(py, slf.get().0.path())?,
        ))
    }
}

/// A coordinate layout: a layout whose strides are scaled basis elements `k@i` (CuTe's
/// `E<i>`) or 0, so it maps coordinates of its shape to coordinates of a codomain instead
/// of integers. `CoordLayout.identity(shape)` is CuTe's `make_identity_layout`; tiled with
/// the same tiler as a data layout, it tells where each tile element came from.
///
/// >>> ident = CoordLayout.identity(Shape(4, 8))
/// >>> ident, ident(5)
/// (CoordLayout("(4,8):(1@0,1@1)"), (1, 1))
/// >>> z = ident.zipped_divide([Layout("2:1"), Layout("4:1")])
/// >>> z
/// CoordLayout("((2,4),(2,2)):((1@0,1@1),(2@0,4@1))")
/// >>> z([[1, 3], [1, 0]])
/// (3, 3)
#[pyclass(frozen, eq, hash, module = "strideweave", name = "CoordLayout")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyCoordLayout(pub CoordLayout);

fn coord_layout(r: Result<CoordLayout, LayoutError>) -> PyResult<PyCoordLayout> {
    checked(r).map(PyCoordLayout)
}

#[pymethods]
impl PyCoordLayout {
    /// `CoordLayout("(4,8):(1@0,1@1)")` (notation), or `CoordLayout(shape, stride, basis)`:
    /// a `Shape`, the congruent `Stride` of scales `k`, and one `Basis` per leaf (`None`
    /// only where the scale is 0).
    #[new]
    #[pyo3(signature = (shape, stride = None, basis = None))]
    fn new(
        shape: &Bound<'_, PyAny>,
        stride: Option<&Bound<'_, PyAny>>,
        basis: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        if let (Ok(text), None, None) = (shape.cast::<PyString>(), stride, basis) {
            return coord_layout(text.to_cow()?.parse::<CoordLayout>());
        }
        let (Some(stride), Some(basis)) = (stride, basis) else {
            return Err(type_error(
                "CoordLayout(shape, stride, basis) takes a Shape, a Stride and a list of Basis (or one notation string)",
            ));
        };
        let s = shape.cast::<PyShape>().map(|s| s.get().0).map_err(|_| {
            type_error(format!(
                "CoordLayout: shape must be a Shape, not {}",
                type_name(shape)
            ))
        })?;
        let d = stride.cast::<PyStride>().map(|d| d.get().0).map_err(|_| {
            type_error(format!(
                "CoordLayout: stride must be a Stride, not {}",
                type_name(stride)
            ))
        })?;
        let mut dirs = Vec::new();
        for item in basis.try_iter()? {
            let item = item?;
            if item.is_none() {
                dirs.push(None);
            } else {
                let b = item.cast::<PyBasis>().map_err(|_| {
                    type_error(format!(
                        "CoordLayout: a basis entry must be a Basis or None, not {}",
                        type_name(&item)
                    ))
                })?;
                dirs.push(Some(b.get().0));
            }
            if dirs.len() > strideweave::MAX_LEAVES {
                return Err(value_error(format!(
                    "CoordLayout: more than {} basis entries",
                    strideweave::MAX_LEAVES
                )));
            }
        }
        coord_layout(CoordLayout::new(s, d, &dirs))
    }

    /// CuTe's `make_identity_layout(shape)`: each leaf of the shape maps to its own
    /// coordinate mode.
    ///
    /// >>> CoordLayout.identity(Shape(2, [3, 4]))
    /// CoordLayout("(2,(3,4)):(1@0,(1@0@1,1@1@1))")
    #[staticmethod]
    fn identity(shape: &Bound<'_, PyAny>) -> PyResult<Self> {
        let s = shape.cast::<PyShape>().map(|s| s.get().0).map_err(|_| {
            type_error(format!(
                "CoordLayout.identity: shape must be a Shape, not {}",
                type_name(shape)
            ))
        })?;
        coord_layout(CoordLayout::identity(&s))
    }

    /// The shape (the domain).
    #[getter]
    fn shape(&self) -> PyShape {
        PyShape(self.0.shape())
    }

    /// Number of coordinates of the domain.
    #[getter]
    fn size(&self) -> u64 {
        self.0.size()
    }

    /// Number of top-level modes.
    #[getter]
    fn rank(&self) -> usize {
        self.0.rank()
    }

    /// Nesting depth of the shape.
    #[getter]
    fn depth(&self) -> usize {
        self.0.depth()
    }

    /// Stride of leaf `i` as `(scale, basis)`; the basis is `None` for stride 0.
    ///
    /// >>> CoordLayout("(2,3):(0,2@1)").leaf_stride(1)
    /// (2, Basis(1))
    fn leaf_stride(&self, i: usize) -> PyResult<(u64, Option<PyBasis>)> {
        let n = self.0.shape().as_tuple().leaf_count();
        if i >= n {
            return Err(value_error(format!(
                "leaf_stride({}, {i}): leaf {i} is out of range for {n} leaves",
                self.0
            )));
        }
        let (k, b) = self.0.leaf_stride(i);
        Ok((k, b.map(PyBasis)))
    }

    /// The coordinate a domain coordinate (or integer key) maps to: the sum of
    /// `c_i * k_i@b_i`, as a (nested) tuple, or an `int` for a one-mode codomain.
    fn index<'py>(&self, py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let c = if key.is_instance_of::<PyInt>() {
            match key.extract::<u64>() {
                Ok(i) => checked(self.0.index_of(i))?,
                Err(_) => checked(self.0.index(&coord(key)?))?,
            }
        } else {
            checked(self.0.index(&coord(key)?))?
        };
        int_tree(py, c.as_tuple())
    }

    fn __call__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.index(py, key)
    }

    /// Top-level mode `i` (negative from the end).
    fn __getitem__(&self, i: isize) -> PyResult<Self> {
        coord_layout(self.0.get(mode_index(i, self.0.rank())?))
    }

    fn __len__(&self) -> usize {
        self.0.rank()
    }

    /// Top-level mode `i`.
    fn get(&self, i: usize) -> PyResult<Self> {
        coord_layout(self.0.get(i))
    }

    /// CuTe's `composition` with a Layout, a Shape or a tiler.
    ///
    /// >>> CoordLayout.identity(Shape(4, 8)).compose(Layout("(2,4):(1,8)"))
    /// CoordLayout("(2,4):(1@0,2@1)")
    fn compose(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        coord_layout(match compose_arg("compose", b)? {
            ComposeArg::Layout(l) => self.0.compose(&l),
            ComposeArg::Shape(s) => self.0.compose(&s),
            ComposeArg::Tiler(t) => self.0.compose(&t),
        })
    }

    /// `divide(self, B)`; a tiler (or Shape) divides mode by mode.
    fn divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        match as_layout(b) {
            Some(l) => coord_layout(self.0.divide(&l)),
            None => self.divide_tiler(b),
        }
    }

    /// Divides each leading mode by its tile.
    fn divide_tiler(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        coord_layout(self.0.divide_tiler(&tiles_arg("divide_tiler", b)?))
    }

    /// `((tiles...), (rests...), untouched modes...)`, as coordinates.
    fn zipped_divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        coord_layout(self.0.zipped_divide(&tiles_arg("zipped_divide", b)?))
    }

    /// `((tiles...), rest0, rest1, ..., untouched modes...)`, as coordinates.
    fn tiled_divide(&self, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        coord_layout(self.0.tiled_divide(&tiles_arg("tiled_divide", b)?))
    }

    /// Merges leaves that continue each other along the same direction.
    ///
    /// >>> CoordLayout("(2,4,3):(1@0,2@0,1@1)").coalesce()
    /// CoordLayout("(8,3):(1@0,1@1)")
    fn coalesce(&self) -> PyResult<Self> {
        coord_layout(self.0.coalesce())
    }

    /// CuTe notation with scaled-basis strides, e.g. `(4,8):(1@0,1@1)`.
    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("CoordLayout(\"{}\")", self.0)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().into_any(), (slf.get().0.to_string(),)))
    }
}
