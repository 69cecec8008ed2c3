//! The tensor DSL in Python (CuTe-DSL style): `Tensor(data, layout)` is a view of a NumPy
//! array or any buffer-protocol object through a layout, never a copy.
//!
//! Every view (slices, modes, tiles, partitions) is computed by the Rust DSL
//! (`strideweave::tensor`) and the core: the DSL runs on a slice of zero-sized elements
//! as long as the Python data, so its checks, its error messages and the origin of each
//! view (how many elements the view's data starts after this one's) are exactly the
//! Rust library's. Element access asks the core for the offset and reads or writes that
//! element of the 1-D data through Python (so NumPy converts values as usual); `copy`,
//! `copy_if` and `fill` run the Rust DSL on the raw bytes, whole contiguous runs at a time.

use crate::buffer::Borrowed;
use crate::errors::{checked, type_error, type_name, value_error};
use crate::int_tree::PyShape;
use crate::layout::{as_layout, PyLayout};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyList, PySlice, PyString, PyTuple};
use strideweave::tensor::{self as dsl, IdentityTensor, Tensor};
use strideweave::{Layout, LayoutError, Shape, SliceCoord};

/// A zero-sized element per possible offset: the Rust DSL computes views of these, and
/// the length of a view's slice says where the view starts. Views are computed on all of
/// it, so (as in CuTe) a tile, partition or slice may overhang the Python data: each
/// element access is checked against the data instead.
static UNITS: [(); usize::MAX] = [(); usize::MAX];

/// The flat, 1-D, element-indexable view of `obj` and its length: a contiguous NumPy array
/// reshaped in memory order (a view), or a contiguous buffer as a typed `memoryview`.
fn flat_view<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let py = obj.py();
    if obj.cast::<PyTensor>().is_ok() || obj.is_instance_of::<PyString>() {
        return Err(type_error(format!(
            "Tensor: data must be a NumPy array or a buffer, not {}",
            type_name(obj)
        )));
    }
    let flat = if obj.hasattr("__array_interface__")? && obj.hasattr("reshape")? {
        let flags = obj.getattr("flags")?;
        let contiguous = flags.getattr("c_contiguous")?.is_truthy()?
            || flags.getattr("f_contiguous")?.is_truthy()?;
        if !contiguous {
            return Err(value_error(format!(
                "Tensor: the array (shape {}, strides {}) is not contiguous; a Tensor reads its memory through the layout, so pass the contiguous base array and put the strides in the layout",
                obj.getattr("shape")?,
                obj.getattr("strides")?
            )));
        }
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("order", "A")?;
        obj.call_method("reshape", (-1,), Some(&kwargs))?
    } else {
        let mv = py
            .import("builtins")?
            .getattr("memoryview")?
            .call1((obj,))
            .map_err(|e| {
                type_error(format!(
                    "Tensor: {} is neither a NumPy array nor a buffer ({e})",
                    type_name(obj)
                ))
            })?;
        if !mv.getattr("c_contiguous")?.is_truthy()? {
            return Err(value_error(
                "Tensor: the buffer is not C-contiguous; pass a contiguous buffer and put the strides in the layout",
            ));
        }
        if mv.getattr("ndim")?.extract::<usize>()? == 1 {
            mv
        } else {
            let format = mv.getattr("format")?;
            mv.call_method1("cast", ("B",))?
                .call_method1("cast", (format,))?
        }
    };
    let len = flat.len()?;
    Ok((flat, len))
}

/// Whether a key holds CuTe's `_` (`None` or `:`), anywhere in its nesting.
fn has_hole(key: &Bound<'_, PyAny>) -> PyResult<bool> {
    if key.is_none() || key.is_instance_of::<PySlice>() {
        return Ok(true);
    }
    if key.is_instance_of::<PyTuple>() || key.is_instance_of::<PyList>() {
        for item in key.try_iter()? {
            if has_hole(&item?)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The notation of a slicing key (`_` for `None` and `:`), read back by the core.
pub(crate) fn write_slice_key(
    key: &Bound<'_, PyAny>,
    out: &mut String,
    depth: usize,
) -> PyResult<()> {
    if depth > strideweave::MAX_NODES {
        return Err(value_error("slice key: nested too deeply"));
    }
    if key.is_none() {
        out.push('_');
    } else if let Ok(s) = key.cast::<PySlice>() {
        let all = ["start", "stop", "step"]
            .iter()
            .map(|a| s.getattr(*a).map(|v| v.is_none()))
            .collect::<PyResult<Vec<_>>>()?;
        if !all.iter().all(|&b| b) {
            return Err(type_error(
                "a Tensor slice keeps whole modes: use `:` or None (CuTe's `_`), not a range",
            ));
        }
        out.push('_');
    } else if key.is_instance_of::<PyTuple>() || key.is_instance_of::<PyList>() {
        out.push('(');
        for (i, item) in key.try_iter()?.enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_slice_key(&item?, out, depth + 1)?;
        }
        out.push(')');
    } else {
        let v =
            crate::convert::index_value(key, crate::convert::Role::Coord)?.ok_or_else(|| {
                type_error(format!(
                    "a Tensor key holds integers, tuples and None or `:`, not {}",
                    type_name(key)
                ))
            })?;
        out.push_str(&v.to_string());
    }
    Ok(())
}

/// A tiler argument of the tensor DSL: a list or tuple of tile sizes (`4` is the tile
/// `4:1`) and Layouts, or a flat `Shape`.
fn tiler(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<Layout>> {
    let items: Vec<Bound<'_, PyAny>> = if let Ok(s) = obj.cast::<PyShape>() {
        let s = s.get().0;
        if s.as_tuple().depth() > 1 {
            return Err(type_error(format!(
                "{op}: a nested Shape {s} is not a tiler; pass a list of sizes or Layouts"
            )));
        }
        let py = obj.py();
        let t = s.as_tuple();
        (0..t.leaf_count())
            .map(|i| Ok::<_, PyErr>(t.leaf(i).into_pyobject(py)?.into_any()))
            .collect::<PyResult<_>>()?
    } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        obj.try_iter()?.collect::<PyResult<_>>()?
    } else {
        return Err(type_error(format!(
            "{op}: a tiler is a list or tuple of tile sizes and Layouts, not {}",
            type_name(obj)
        )));
    };
    let mut tiles = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if tiles.len() >= dsl::MAX_TILED_MODES {
            return Err(value_error(format!(
                "{op}: a tiler has at most {} tiles",
                dsl::MAX_TILED_MODES
            )));
        }
        if let Some(l) = as_layout(item) {
            tiles.push(l);
            continue;
        }
        let n =
            crate::convert::index_value(item, crate::convert::Role::Shape)?.ok_or_else(|| {
                type_error(format!(
                    "{op}: tiler entry {i} is {}, not a size or a Layout",
                    type_name(item)
                ))
            })?;
        tiles.push(checked(Layout::leaf(n, 1).map_err(|e| {
            LayoutError::from_core(format!("{op}: tile {n}"), e)
        }))?);
    }
    Ok(tiles)
}

/// The offset of integer key `k` of `l`, by the core.
fn key_offset(l: &Layout, k: u64) -> PyResult<u64> {
    checked(
        l.index_of(k)
            .map_err(|e| LayoutError::from_core(format!("index({l}, {k})"), e)),
    )
}

fn threads_arg(obj: &Bound<'_, PyAny>) -> PyResult<Layout> {
    as_layout(obj).ok_or_else(|| {
        type_error(format!(
            "local_partition: the thread layout must be a Layout, not {}",
            type_name(obj)
        ))
    })
}

fn tile_coord(obj: &Bound<'_, PyAny>) -> PyResult<strideweave::IntTuple> {
    Ok(*crate::layout::coord(obj)?.as_tuple())
}

/// A tensor: a view of a NumPy array or any buffer-protocol object through a `Layout`
/// (CuTe's engine plus layout). Nothing is copied: `t[c]` reads element `layout(c)` of
/// the data, `t[c] = v` writes it, and slices, modes and tiles are tensors over the same
/// memory. The data must be contiguous (the layout says where elements lie); the
/// layout's cosize must fit in it, checked once here. Views (tiles, partitions, slices)
/// may overhang the data as in CuTe: reading or writing an element outside it is an
/// `IndexError`, and `copy`/`fill` must touch only elements inside.
///
/// A key is an integer (first mode fastest), a coordinate following the shape, or a
/// coordinate with `None` or `:` (CuTe's `_`) at the modes to keep, which gives a view.
///
/// >>> import numpy as np
/// >>> a = np.arange(24, dtype=np.float32)
/// >>> m = Tensor(a, Layout("(4,6):(6,1)"))      # a 4x6 row-major matrix
/// >>> float(m[1, 2]), float(m[7])              # key 7 is coordinate (3, 1)
/// (8.0, 19.0)
/// >>> row = m[2, None]                          # CuTe's m(2, _)
/// >>> row.layout, [float(x) for x in row]
/// (Layout("6:1"), [12.0, 13.0, 14.0, 15.0, 16.0, 17.0])
/// >>> row[0] = -1
/// >>> float(a[12])
/// -1.0
#[pyclass(frozen, module = "strideweave", name = "Tensor")]
pub struct PyTensor {
    /// The 1-D data from this view's first element on (empty when the view starts past
    /// the end of the data).
    data: Py<PyAny>,
    /// Its length in elements: how many elements of data the view really has (less than
    /// the layout's cosize when the view overhangs the data).
    len: usize,
    /// How many elements past the end of the data the view starts (0 unless `len` is 0).
    skip: usize,
    layout: Layout,
}

impl PyTensor {
    /// This tensor as a Rust DSL tensor over zero-sized elements, on all of [`UNITS`] so
    /// that every view the DSL computes is handed out, overhanging or not.
    fn shadow(&self) -> PyResult<Tensor<&'static [()], Layout>> {
        checked(Tensor::new(&UNITS[..], self.layout))
    }

    /// The tensor over the same data of a Rust DSL view of [`PyTensor::shadow`].
    fn derive(&self, py: Python<'_>, view: Tensor<&[()], Layout>) -> PyResult<PyTensor> {
        let origin = usize::MAX - view.data().len();
        self.at(py, origin as u64, *view.layout())
    }

    /// The view with layout `l` whose first element is `origin` elements after this one's.
    fn at(&self, py: Python<'_>, origin: u64, l: Layout) -> PyResult<PyTensor> {
        let start = usize::try_from(origin)
            .ok()
            .and_then(|o| o.checked_add(self.skip))
            .ok_or_else(|| {
                value_error(format!(
                    "the view {l} starts at offset {origin} past {} elements, which overflows",
                    self.skip
                ))
            })?;
        let real = start.min(self.len);
        let data = if real == 0 {
            self.data.clone_ref(py)
        } else {
            let s = PySlice::new(py, real as isize, self.len as isize, 1);
            self.data.bind(py).get_item(s)?.unbind()
        };
        Ok(PyTensor {
            data,
            len: self.len - real,
            skip: start - real,
            layout: l,
        })
    }

    /// The view fixing the integers of `key` and keeping its `_` modes.
    fn sliced(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let mut text = String::new();
        write_slice_key(key, &mut text, 0)?;
        let c: SliceCoord = checked(text.parse())?;
        let (l, off) = checked(self.layout.slice_and_offset(&c))?;
        self.at(py, off, l)
    }

    /// The data index of the element at layout offset `o` (of key `key`, for the
    /// message): an `IndexError` naming the key, the offset and the data length when the
    /// element lies outside the data.
    fn data_index(&self, key: &dyn std::fmt::Display, o: u64) -> PyResult<usize> {
        match usize::try_from(o)
            .ok()
            .and_then(|o| o.checked_add(self.skip))
        {
            Some(i) if i < self.len => Ok(i),
            _ => {
                let past = if self.skip > 0 {
                    format!(" (the view starts {} elements past its end)", self.skip)
                } else {
                    String::new()
                };
                Err(pyo3::exceptions::PyIndexError::new_err(format!(
                    "key {key} of the tensor {} is at offset {o}, outside the data, which holds {} elements{past}; the view overhangs the data (mask its edge with an identity tensor)",
                    self.layout, self.len
                )))
            }
        }
    }

    /// The data index of an element key (integer or coordinate), by the core.
    fn offset(&self, key: &Bound<'_, PyAny>) -> PyResult<usize> {
        let o = PyLayout(self.layout).index_key(key)?;
        self.data_index(&key.repr()?, o)
    }

    /// Whether every element lies inside the data; if not, a `ValueError` for `op` naming
    /// the sizes.
    fn inside(&self, op: &str, what: &str) -> PyResult<()> {
        let cosize = self.layout.cosize();
        if self.skip == 0 && cosize <= self.len as u64 {
            return Ok(());
        }
        let past = if self.skip > 0 {
            format!(", starting {} elements past its end", self.skip)
        } else {
            String::new()
        };
        Err(value_error(format!(
            "{op}: the {what} {} has cosize {cosize} but its data holds {} elements{past}; it overhangs the data, so touch only its in-data elements (copy_if masked by an identity tensor's in_bounds)",
            self.layout, self.len
        )))
    }

    /// Whether every element lies inside the data.
    fn fits(&self) -> bool {
        self.skip == 0 && self.layout.cosize() <= self.len as u64
    }

    /// Every key's offset, in key order.
    fn offset_list(&self) -> PyResult<Vec<u64>> {
        (0..self.layout.size())
            .map(|k| key_offset(&self.layout, k))
            .collect()
    }

    pub(crate) fn data<'py>(&self, py: Python<'py>) -> &Bound<'py, PyAny> {
        self.data.bind(py)
    }
}

/// A vector of offsets (or flags) as a NumPy array of `dtype`.
fn numpy_array<'py>(py: Python<'py>, bytes: Vec<u8>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    let np = py.import("numpy").map_err(|_| {
        pyo3::exceptions::PyImportError::new_err("this needs NumPy: pip install numpy")
    })?;
    np.getattr("frombuffer")?
        .call1((PyBytes::new(py, &bytes), dtype))?
        .call_method0("copy")
}

fn offsets_array<'py>(py: Python<'py>, offsets: &[u64]) -> PyResult<Bound<'py, PyAny>> {
    let bytes = offsets
        .iter()
        .flat_map(|&o| (o as i64).to_ne_bytes())
        .collect();
    numpy_array(py, bytes, "int64")
}

#[pymethods]
impl PyTensor {
    /// `Tensor(data, layout)`: `data` a contiguous NumPy array or buffer (`bytearray`,
    /// `array.array`, `memoryview`, ...), `layout` a `Layout` or its notation. A layout
    /// whose cosize exceeds the number of elements is a `ValueError` naming both.
    #[new]
    fn new(data: &Bound<'_, PyAny>, layout: &Bound<'_, PyAny>) -> PyResult<Self> {
        let l = match as_layout(layout) {
            Some(l) => l,
            None => match layout.cast::<PyString>() {
                Ok(t) => checked(t.to_cow()?.parse::<Layout>())?,
                Err(_) => {
                    return Err(type_error(format!(
                        "Tensor: layout must be a Layout or its notation, not {}",
                        type_name(layout)
                    )))
                }
            },
        };
        let (flat, len) = flat_view(data)?;
        // the one check of a tensor made from data: its layout fits (views may overhang)
        checked(Tensor::new(&UNITS[..len], l))?;
        Ok(PyTensor {
            data: flat.unbind(),
            len,
            skip: 0,
            layout: l,
        })
    }

    /// The layout.
    #[getter]
    fn layout(&self) -> PyLayout {
        PyLayout(self.layout)
    }

    /// The layout's shape.
    #[getter]
    fn shape(&self) -> PyShape {
        PyShape(self.layout.shape())
    }

    /// Number of logical elements.
    #[getter]
    fn size(&self) -> u64 {
        self.layout.size()
    }

    /// Number of top-level modes.
    #[getter]
    fn rank(&self) -> usize {
        self.layout.rank()
    }

    /// The 1-D data from this tensor's first element on (a view of the memory given). A
    /// view that overhangs the data has fewer elements here than its cosize (none when it
    /// starts past the end): `len(t.data)` is how many elements of data it really has.
    #[getter(data)]
    fn data_getter(&self, py: Python<'_>) -> Py<PyAny> {
        self.data.clone_ref(py)
    }

    /// `t[key]`: the element at an integer key or a coordinate, or (with `None` or `:`
    /// at some modes, CuTe's `_`) the view keeping those modes.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if has_hole(key)? {
            return Ok(Bound::new(py, self.sliced(py, key)?)?.into_any());
        }
        let off = self.offset(key)?;
        self.data(py).get_item(off)
    }

    /// `t[key] = value`: writes one element, or with `None`/`:` in the key fills the view
    /// with a value or copies a `Tensor` of the same size into it.
    fn __setitem__(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if has_hole(key)? {
            let view = self.sliced(py, key)?;
            return match value.cast::<PyTensor>() {
                Ok(src) => copy_impl(py, src.get(), &view, None),
                Err(_) => fill_impl(py, &view, value),
            };
        }
        let off = self.offset(key)?;
        self.data(py).set_item(off, value)
    }

    /// The elements in key order (first mode fastest).
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyIterator>> {
        let data = self.data(py);
        let items = self
            .offset_list()?
            .into_iter()
            .enumerate()
            .map(|(k, o)| data.get_item(self.data_index(&k, o)?))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)?.as_any().try_iter()
    }

    /// Top-level mode `i` as a tensor (hierarchy kept).
    fn mode(&self, py: Python<'_>, i: usize) -> PyResult<PyTensor> {
        let s = self.shadow()?;
        self.derive(py, checked(s.mode(i))?)
    }

    /// Every leaf as a top-level mode (same elements, same key order).
    fn flatten(&self, py: Python<'_>) -> PyResult<PyTensor> {
        let s = self.shadow()?;
        self.derive(py, s.flatten())
    }

    /// Modes `start..end` gathered into one mode.
    fn group(&self, py: Python<'_>, start: usize, end: usize) -> PyResult<PyTensor> {
        let s = self.shadow()?;
        self.derive(py, checked(s.group(start, end))?)
    }

    /// The tensor seen through `layout ∘ b` (a Layout, a Shape or a tiler of Layouts);
    /// a result may run past the data, whose elements there raise `IndexError`.
    ///
    /// >>> import numpy as np
    /// >>> t = Tensor(np.arange(16), Layout("(4,4):(4,1)"))
    /// >>> [int(x) for x in t.compose(Shape(2, 2))]      # the top-left 2x2
    /// [0, 4, 1, 5]
    fn compose(&self, py: Python<'_>, b: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let s = self.shadow()?;
        let v = if let Some(l) = as_layout(b) {
            s.compose(&l)
        } else if let Ok(sh) = b.cast::<PyShape>() {
            s.compose(&sh.get().0)
        } else {
            s.compose(&crate::layout::tiler_arg("compose", b)?)
        };
        self.derive(py, checked(v)?)
    }

    /// `((tile modes), (tile counts), untouched modes...)`: see `zipped_divide`.
    fn zipped_divide(&self, py: Python<'_>, tiler_: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let s = self.shadow()?;
        let v = dsl::zipped_divide(&s, tiler("zipped_divide", tiler_)?);
        self.derive(py, checked(v)?)
    }

    /// `((tile modes), count0, count1, ..., untouched modes...)`: see `tiled_divide`.
    fn tiled_divide(&self, py: Python<'_>, tiler_: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let s = self.shadow()?;
        let v = dsl::tiled_divide(&s, tiler("tiled_divide", tiler_)?);
        self.derive(py, checked(v)?)
    }

    /// Tile number `coord` of the tensor cut by `tiler`: see `local_tile`.
    fn local_tile(
        &self,
        py: Python<'_>,
        tiler_: &Bound<'_, PyAny>,
        coord: &Bound<'_, PyAny>,
    ) -> PyResult<PyTensor> {
        let s = self.shadow()?;
        let v = dsl::local_tile(&s, tiler("local_tile", tiler_)?, tile_coord(coord)?);
        self.derive(py, checked(v)?)
    }

    /// Thread `index`'s elements: see `local_partition`.
    fn local_partition(
        &self,
        py: Python<'_>,
        threads: &Bound<'_, PyAny>,
        index: u64,
    ) -> PyResult<PyTensor> {
        let s = self.shadow()?;
        let v = dsl::local_partition(&s, &threads_arg(threads)?, index);
        self.derive(py, checked(v)?)
    }

    /// Every key's offset into `data`, in key order, as a NumPy `int64` array: the
    /// index arithmetic of the whole tensor at once, for vectorised NumPy code
    /// (`t.data[t.offsets()]` gathers the elements). The offsets of a view that
    /// overhangs the data reach past `len(t.data)`.
    fn offsets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let skip = self.skip as u64;
        let offsets: Vec<u64> = self
            .offset_list()?
            .into_iter()
            .map(|o| o.saturating_add(skip))
            .collect();
        offsets_array(py, &offsets)
    }

    /// The elements in key order as a new 1-D NumPy array (a copy); an `IndexError`
    /// names the first key outside the data of an overhanging view.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let np = py.import("numpy")?;
        let data = np.getattr("asarray")?.call1((self.data(py),))?;
        let mut index = Vec::with_capacity(self.layout.size() as usize);
        for (k, o) in self.offset_list()?.into_iter().enumerate() {
            index.push(self.data_index(&k, o)? as u64);
        }
        data.get_item(offsets_array(py, &index)?)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let data = self.data(py);
        let n = self.layout.size().min(16);
        let mut items = Vec::new();
        for k in 0..n {
            let o = key_offset(&self.layout, k)?;
            // an element outside the data of an overhanging view shows as `--`
            items.push(match self.data_index(&k, o) {
                Ok(i) => data.get_item(i)?.str()?.to_string(),
                Err(_) => "--".to_string(),
            });
        }
        let more = if self.layout.size() > n { ", ..." } else { "" };
        Ok(format!(
            "Tensor({}, [{}{more}])",
            self.layout,
            items.join(", ")
        ))
    }
}

/// The element type of a tensor's data, for comparing two tensors: NumPy's dtype, or the
/// buffer's struct format; and the item size in bytes.
fn elem_kind(data: &Bound<'_, PyAny>) -> PyResult<(String, usize, bool)> {
    if let Ok(dt) = data.getattr("dtype") {
        // a native-order scalar type by its struct character, as a memoryview names it
        // (so a float32 array and an `array.array("f")` hold the same elements); other
        // dtypes (explicit byte order, structured, extension types) by their full name
        let native = dt.getattr("byteorder")?.extract::<String>()? != ">"
            && dt.getattr("byteorder")?.extract::<String>()? != "<"
            && dt.getattr("kind")?.extract::<String>()? != "V"
            && dt.getattr("isbuiltin")?.extract::<i64>()? == 1;
        let key = if native {
            dt.getattr("char")?.extract::<String>()?
        } else {
            format!("{}{}", dt.getattr("str")?, dt.getattr("name")?)
        };
        return Ok((key, dt.getattr("itemsize")?.extract()?, true));
    }
    let mv = data
        .py()
        .import("builtins")?
        .getattr("memoryview")?
        .call1((data,))?;
    Ok((
        mv.getattr("format")?.extract()?,
        mv.getattr("itemsize")?.extract()?,
        false,
    ))
}

/// Which keys a masked copy moves: all, or those a predicate accepts.
enum Mask {
    All,
    Keys(Vec<bool>),
}

impl Mask {
    fn of(pred: &Bound<'_, PyAny>, n: u64) -> PyResult<Mask> {
        if let Ok(id) = pred.cast::<PyIdentityTensor>() {
            let id = id.get().0;
            if id.size() != n {
                return Err(value_error(format!(
                    "copy_if: the predicate covers {} elements but the tensors have {n}",
                    id.size()
                )));
            }
            return Ok(Mask::Keys((0..n).map(|k| id.in_bounds(k)).collect()));
        }
        if !pred.is_callable() {
            return Err(type_error(format!(
                "copy_if: the predicate must be an IdentityTensor or a callable on keys, not {}",
                type_name(pred)
            )));
        }
        (0..n)
            .map(|k| pred.call1((k,))?.is_truthy())
            .collect::<PyResult<Vec<bool>>>()
            .map(Mask::Keys)
    }

    fn keeps(&self, k: u64) -> bool {
        match self {
            Mask::All => true,
            Mask::Keys(v) => v[k as usize],
        }
    }
}

/// `dst[k] = src[k]` over whole elements of `K` bytes, through the Rust DSL.
fn copy_elems<const K: usize>(
    src: &[u8],
    dst: &mut [u8],
    ls: Layout,
    ld: Layout,
    mask: &Mask,
    plan: Option<&dsl::CopyPlan>,
) -> Result<(), LayoutError> {
    // SAFETY: `[u8; K]` has alignment 1 and size K; the lengths are whole elements of
    // the byte slices.
    let s = unsafe { std::slice::from_raw_parts(src.as_ptr() as *const [u8; K], src.len() / K) };
    let d =
        unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr() as *mut [u8; K], dst.len() / K) };
    let st = Tensor::new(s, ls)?;
    let mut dt = Tensor::new(d, ld)?;
    match (mask, plan) {
        (Mask::All, Some(p)) => p.copy(&st, &mut dt),
        (Mask::All, None) => dsl::copy(&st, &mut dt),
        (Mask::Keys(_), _) => dsl::copy_if(|k| mask.keeps(k), &st, &mut dt),
    }
}

/// `copy` / `copy_if`: the byte path when both tensors hold the same element type, NumPy
/// fancy indexing (which converts) when both are NumPy arrays of different dtypes.
fn copy_impl(
    py: Python<'_>,
    src: &PyTensor,
    dst: &PyTensor,
    pred: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    copy_planned(py, src, dst, pred, None)
}

/// [`copy_impl`] with a plan made beforehand for exactly these layouts (used on the byte
/// path; the NumPy path converts element by element).
fn copy_planned(
    py: Python<'_>,
    src: &PyTensor,
    dst: &PyTensor,
    pred: Option<&Bound<'_, PyAny>>,
    plan: Option<&dsl::CopyPlan>,
) -> PyResult<()> {
    let (ls, ld) = (src.layout, dst.layout);
    if ls.size() != ld.size() {
        return Err(value_error(format!(
            "copy: source {ls} has {} elements but destination {ld} has {}",
            ls.size(),
            ld.size()
        )));
    }
    let mask = match pred {
        None => Mask::All,
        Some(p) => Mask::of(p, ls.size())?,
    };
    // A view that overhangs its data: only a masked copy whose kept keys all lie inside
    // both datas runs, key by key (the data indices of those keys, checked here).
    let pairs: Option<Vec<(usize, usize)>> = if src.fits() && dst.fits() {
        None
    } else if let Mask::Keys(keep) = &mask {
        let mut pairs = Vec::new();
        for (k, _) in keep.iter().enumerate().filter(|(_, &b)| b) {
            let k = k as u64;
            let i = inside_key("source", src, k)?;
            let j = inside_key("destination", dst, k)?;
            pairs.push((i, j));
        }
        Some(pairs)
    } else {
        src.inside("copy", "source")?;
        dst.inside("copy", "destination")?;
        None
    };
    let (sd, dd) = (src.data(py), dst.data(py));
    let (sk, size, s_np) = elem_kind(sd)?;
    let (dk, dsize, d_np) = elem_kind(dd)?;
    if sk == dk && size == dsize && matches!(size, 1 | 2 | 4 | 8 | 16) {
        let sb = Borrowed::new(sd, false, "copy source")?;
        let db = Borrowed::new(dd, true, "copy destination")?;
        // SAFETY: both buffers are exported (and locked against resizing) until the end
        // of this function, and the GIL is held throughout, so no Python code runs in
        // between; `span` bytes from `addr` are each buffer's elements (1-D, contiguous).
        // When the two spans overlap (views of one array), the source bytes are copied
        // first, so the shared and the exclusive slice never alias.
        let overlap = sb.addr < db.addr + db.span && db.addr < sb.addr + sb.span;
        let src_copy: Vec<u8>;
        let s: &[u8] = unsafe { std::slice::from_raw_parts(sb.addr as *const u8, sb.span) };
        let s = if overlap {
            src_copy = s.to_vec();
            &src_copy[..]
        } else {
            s
        };
        let d: &mut [u8] = unsafe { std::slice::from_raw_parts_mut(db.addr as *mut u8, db.span) };
        if let Some(pairs) = &pairs {
            return checked(copy_pairs(s, d, size, pairs));
        }
        let r = match size {
            1 => copy_elems::<1>(s, d, ls, ld, &mask, plan),
            2 => copy_elems::<2>(s, d, ls, ld, &mask, plan),
            4 => copy_elems::<4>(s, d, ls, ld, &mask, plan),
            8 => copy_elems::<8>(s, d, ls, ld, &mask, plan),
            _ => copy_elems::<16>(s, d, ls, ld, &mask, plan),
        };
        return checked(r);
    }
    if !(s_np && d_np) && sk != dk {
        return Err(type_error(format!(
            "copy: the source holds {sk} elements and the destination {dk}; converting between element types needs NumPy arrays on both sides"
        )));
    }
    // NumPy (or an unusual item size): gather and scatter by offsets, converting dtypes.
    let (so, dof): (Vec<u64>, Vec<u64>) = match pairs {
        Some(pairs) => pairs.iter().map(|&(i, j)| (i as u64, j as u64)).unzip(),
        None => {
            let keys: Vec<u64> = (0..ls.size()).filter(|&k| mask.keeps(k)).collect();
            let so = keys
                .iter()
                .map(|&k| key_offset(&ls, k))
                .collect::<PyResult<_>>()?;
            let dof = keys
                .iter()
                .map(|&k| key_offset(&ld, k))
                .collect::<PyResult<_>>()?;
            (so, dof)
        }
    };
    if s_np && d_np {
        let values = sd.get_item(offsets_array(py, &so)?)?;
        return dd.set_item(offsets_array(py, &dof)?, values);
    }
    for (a, b) in so.iter().zip(&dof) {
        dd.set_item(*b as usize, sd.get_item(*a as usize)?)?;
    }
    Ok(())
}

/// The data index of key `k` of a masked copy's `what` tensor, which must lie inside the
/// data: a `ValueError` naming the key, its offset and the data length otherwise.
fn inside_key(what: &str, t: &PyTensor, k: u64) -> PyResult<usize> {
    let o = key_offset(&t.layout, k)?;
    t.data_index(&k, o).map_err(|_| {
        value_error(format!(
            "copy_if: key {k} of the {what} {} is at offset {o}, outside its data, which holds {} elements{}; the predicate must mask the overhang (an identity tensor tiled like the data)",
            t.layout,
            t.len,
            if t.skip > 0 { format!(" (the view starts {} elements past its end)", t.skip) } else { String::new() }
        ))
    })
}

/// `d[j] = s[i]` for each data index pair, elements of `size` bytes (the masked copy of
/// views that overhang their data; every index was checked against the data).
fn copy_pairs(
    s: &[u8],
    d: &mut [u8],
    size: usize,
    pairs: &[(usize, usize)],
) -> Result<(), LayoutError> {
    for &(i, j) in pairs {
        let from = i
            .checked_mul(size)
            .and_then(|a| s.get(a..a.checked_add(size)?));
        let to = j
            .checked_mul(size)
            .and_then(|a| a.checked_add(size).map(|b| (a, b)))
            .and_then(|(a, b)| d.get_mut(a..b));
        match (from, to) {
            (Some(from), Some(to)) => to.copy_from_slice(from),
            _ => {
                return Err(LayoutError::value(format!(
                    "copy_if: data index {i} or {j} is past the data ({} and {} elements)",
                    s.len() / size.max(1),
                    d.len() / size.max(1)
                )))
            }
        }
    }
    Ok(())
}

/// `dst[k] = value` for every key: the value is written once through Python (which
/// converts it to the element type), then its bytes are copied by the Rust DSL's `fill`.
/// A view that overhangs its data is a `ValueError` naming the sizes.
fn fill_impl(py: Python<'_>, dst: &PyTensor, value: &Bound<'_, PyAny>) -> PyResult<()> {
    dst.inside("fill", "destination")?;
    let dd = dst.data(py);
    let first = key_offset(&dst.layout, 0)? as usize;
    dd.set_item(first, value)?;
    let (_, size, _) = elem_kind(dd)?;
    if !matches!(size, 1 | 2 | 4 | 8 | 16) {
        for o in dst.offset_list()? {
            dd.set_item(o as usize, value)?;
        }
        return Ok(());
    }
    let db = Borrowed::new(dd, true, "fill destination")?;
    // SAFETY: the buffer is exported and locked until the end of this function and the
    // GIL is held; `span` bytes from `addr` are its elements (1-D, contiguous).
    let d: &mut [u8] = unsafe { std::slice::from_raw_parts_mut(db.addr as *mut u8, db.span) };
    fn go<const K: usize>(d: &mut [u8], first: usize, l: Layout) -> Result<(), LayoutError> {
        // SAFETY: alignment 1, whole elements of the byte slice.
        let e =
            unsafe { std::slice::from_raw_parts_mut(d.as_mut_ptr() as *mut [u8; K], d.len() / K) };
        let v = e
            .get(first)
            .copied()
            .ok_or_else(|| LayoutError::value(format!("fill: offset {first} is past the data")))?;
        dsl::fill(&mut Tensor::new(e, l)?, v);
        Ok(())
    }
    checked(match size {
        1 => go::<1>(d, first, dst.layout),
        2 => go::<2>(d, first, dst.layout),
        4 => go::<4>(d, first, dst.layout),
        8 => go::<8>(d, first, dst.layout),
        _ => go::<16>(d, first, dst.layout),
    })
}

/// An identity (coordinate) tensor: element `k` is the coordinate of key `k` in the
/// original shape, one integer per top-level mode. Tiled and partitioned like a data
/// tensor of that shape, it says where each tile element came from, so `in_bounds(k)`
/// masks the overhang of edge tiles (CuTe's `make_identity_tensor` with `elem_less`).
///
/// >>> ident = make_identity_tensor(Shape(5, 7))
/// >>> edge = ident.local_tile([4, 4], [1, 1])   # rows 4..8, columns 4..8
/// >>> edge[0], edge[5], edge.in_bounds(0), edge.in_bounds(5)
/// ((4, 4), (5, 5), True, False)
/// >>> sum(edge.in_bounds(k) for k in range(edge.size))
/// 3
#[pyclass(frozen, module = "strideweave", name = "IdentityTensor")]
pub struct PyIdentityTensor(IdentityTensor);

fn identity(r: Result<IdentityTensor, LayoutError>) -> PyResult<PyIdentityTensor> {
    checked(r).map(PyIdentityTensor)
}

#[pymethods]
impl PyIdentityTensor {
    /// The coordinates of `shape` (a `Shape` or a tuple of extents; at most 8 modes).
    #[new]
    fn new(shape: &Bound<'_, PyAny>) -> PyResult<Self> {
        let s = match shape.cast::<PyShape>() {
            Ok(s) => s.get().0,
            Err(_) => checked(Shape::from_tuple(crate::convert::tree_from_value(
                shape,
                crate::convert::Role::Shape,
            )?))?,
        };
        identity(IdentityTensor::new(&s))
    }

    /// Number of coordinates.
    #[getter]
    fn size(&self) -> u64 {
        self.0.size()
    }

    /// Number of coordinate components (the original shape's rank).
    #[getter]
    fn rank(&self) -> usize {
        self.0.rank()
    }

    /// The layout of mode `m`'s coordinate (what CuTe's `E<m>` strides give).
    fn mode_layout(&self, m: usize) -> PyResult<PyLayout> {
        self.0.mode_layout(m).map(|l| PyLayout(*l)).ok_or_else(|| {
            value_error(format!(
                "mode_layout({m}): mode {m} is out of range for rank {}",
                self.0.rank()
            ))
        })
    }

    /// The coordinate at integer key `key` (first mode fastest), a tuple of `rank` ints.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        if !key.is_instance_of::<PyInt>() && !key.hasattr("__index__")? {
            return Err(type_error(format!(
                "an IdentityTensor is indexed by integer keys, not {}",
                type_name(key)
            )));
        }
        let k = crate::convert::index_value(key, crate::convert::Role::Coord)?.unwrap_or(u64::MAX);
        if k >= self.0.size() {
            return Err(value_error(format!(
                "key {k} is outside [0, {}) of the identity tensor",
                self.0.size()
            )));
        }
        PyTuple::new(py, &self.0.coord(k)[..self.0.rank()])
    }

    /// The coordinate at integer key `key` (the Rust name of `ident[key]`).
    fn coord<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        self.__getitem__(py, key)
    }

    /// Whether the coordinate at `key` lies inside the original shape (CuTe's
    /// `elem_less(coord, shape)`); `False` for a key past the size.
    fn in_bounds(&self, key: u64) -> bool {
        self.0.in_bounds(key)
    }

    /// Whether every coordinate lies inside the original shape (an interior tile).
    fn all_in_bounds(&self) -> bool {
        self.0.all_in_bounds()
    }

    /// `in_bounds` of every key as a NumPy `bool` array (key order): a vectorised mask.
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let flags = (0..self.0.size())
            .map(|k| self.0.in_bounds(k) as u8)
            .collect();
        numpy_array(py, flags, "bool")
    }

    /// `zipped_divide` of the coordinates.
    fn zipped_divide(&self, tiler_: &Bound<'_, PyAny>) -> PyResult<Self> {
        identity(self.0.zipped_divide(tiler("zipped_divide", tiler_)?))
    }

    /// `tiled_divide` of the coordinates.
    fn tiled_divide(&self, tiler_: &Bound<'_, PyAny>) -> PyResult<Self> {
        identity(self.0.tiled_divide(tiler("tiled_divide", tiler_)?))
    }

    /// `local_tile` of the coordinates.
    fn local_tile(&self, tiler_: &Bound<'_, PyAny>, coord: &Bound<'_, PyAny>) -> PyResult<Self> {
        identity(
            self.0
                .local_tile(tiler("local_tile", tiler_)?, tile_coord(coord)?),
        )
    }

    /// `local_partition` of the coordinates.
    fn local_partition(&self, threads: &Bound<'_, PyAny>, index: u64) -> PyResult<Self> {
        identity(self.0.local_partition(&threads_arg(threads)?, index))
    }

    fn __repr__(&self) -> String {
        let modes: Vec<String> = (0..self.0.rank())
            .filter_map(|m| self.0.mode_layout(m).map(|l| l.to_string()))
            .collect();
        format!(
            "<IdentityTensor of {} coordinates: {}>",
            self.0.size(),
            modes.join(", ")
        )
    }
}

/// CuTe's `make_identity_tensor(shape)`: the coordinate tensor of `shape`, for masking
/// edge tiles (see `IdentityTensor`).
///
/// >>> make_identity_tensor(Shape(2, 3))[4]
/// (0, 2)
#[pyfunction]
pub fn make_identity_tensor(shape: &Bound<'_, PyAny>) -> PyResult<PyIdentityTensor> {
    PyIdentityTensor::new(shape)
}

/// Which kind of value a tiling function got.
enum Target<'a, 'py> {
    Tensor(&'a Bound<'py, PyTensor>),
    Identity(&'a Bound<'py, PyIdentityTensor>),
}

fn target<'a, 'py>(op: &str, t: &'a Bound<'py, PyAny>) -> PyResult<Target<'a, 'py>> {
    if let Ok(x) = t.cast::<PyTensor>() {
        return Ok(Target::Tensor(x));
    }
    if let Ok(x) = t.cast::<PyIdentityTensor>() {
        return Ok(Target::Identity(x));
    }
    Err(type_error(format!(
        "{op}: expected a Tensor or an IdentityTensor, not {}",
        type_name(t)
    )))
}

fn wrap_tensor(py: Python<'_>, v: PyTensor) -> PyResult<Bound<'_, PyAny>> {
    Ok(Bound::new(py, v)?.into_any())
}

fn wrap_identity(py: Python<'_>, v: PyIdentityTensor) -> PyResult<Bound<'_, PyAny>> {
    Ok(Bound::new(py, v)?.into_any())
}

/// `((tile modes), (tile counts), untouched modes...)`: the tensor cut into tiles, one
/// tile per key of mode 1 (CuTe's `zipped_divide`; untouched modes come last). The
/// tiler is one tile per leading mode, a size (`4` is `4:1`) or a `Layout`. Tiles may
/// overhang the tensor (the count is a ceiling), and then the data, as in CuTe (see
/// `local_tile`).
///
/// >>> import numpy as np
/// >>> t = Tensor(np.arange(64), Layout("(8,8):(1,8)"))
/// >>> zipped_divide(t, [4, 2]).layout
/// Layout("((4,2),(2,4)):((1,8),(4,16))")
#[pyfunction]
pub fn zipped_divide<'py>(
    t: &Bound<'py, PyAny>,
    tiler: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = t.py();
    match target("zipped_divide", t)? {
        Target::Tensor(x) => wrap_tensor(py, x.get().zipped_divide(py, tiler)?),
        Target::Identity(x) => wrap_identity(py, x.get().zipped_divide(tiler)?),
    }
}

/// `((tile modes), count0, count1, ..., untouched modes...)` (CuTe's `tiled_divide`).
///
/// >>> import numpy as np
/// >>> tiled_divide(Tensor(np.zeros(64), Layout("(8,8):(1,8)")), [4, 2]).layout
/// Layout("((4,2),2,4):((1,8),4,16)")
#[pyfunction]
pub fn tiled_divide<'py>(
    t: &Bound<'py, PyAny>,
    tiler: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = t.py();
    match target("tiled_divide", t)? {
        Target::Tensor(x) => wrap_tensor(py, x.get().tiled_divide(py, tiler)?),
        Target::Identity(x) => wrap_identity(py, x.get().tiled_divide(tiler)?),
    }
}

/// Tile number `coord` (one coordinate per tiled mode, or one integer key over the tile
/// grid) of the tensor cut by `tiler`: CuTe's `local_tile`. As in CuTe, an edge tile of
/// unpadded data keeps the full tile shape and overhangs the data: its elements outside
/// the data raise `IndexError`, and `copy_if` with the matching tile of an identity
/// tensor moves only the elements inside.
///
/// >>> import numpy as np
/// >>> m = Tensor(np.arange(64), Layout("(8,8):(8,1)"))    # row-major
/// >>> tile = local_tile(m, [4, 4], [1, 0])                # rows 4..8, columns 0..4
/// >>> tile.layout, int(tile[0]), int(tile[1]), int(tile[4])
/// (Layout("(4,4):(8,1)"), 32, 40, 33)
/// >>> edge = local_tile(Tensor(np.arange(35), Layout("(5,7):(7,1)")), [4, 4], [1, 1])
/// >>> edge.layout, len(edge.data), int(edge[0, 2])        # row 4, columns 4..7
/// (Layout("(4,4):(7,1)"), 3, 34)
#[pyfunction]
pub fn local_tile<'py>(
    t: &Bound<'py, PyAny>,
    tiler: &Bound<'py, PyAny>,
    coord: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = t.py();
    match target("local_tile", t)? {
        Target::Tensor(x) => wrap_tensor(py, x.get().local_tile(py, tiler, coord)?),
        Target::Identity(x) => wrap_identity(py, x.get().local_tile(tiler, coord)?),
    }
}

/// Thread `index`'s elements when threads arranged by the layout `threads` deal the
/// tensor out tile by tile (CuTe's `local_partition`).
///
/// >>> import numpy as np
/// >>> m = Tensor(np.arange(32), Layout("(4,8):(1,4)"))
/// >>> mine = local_partition(m, Layout("(2,4):(4,1)"), 5)   # thread 5 sits at (1,1)
/// >>> mine.layout, [int(x) for x in mine][:3]
/// (Layout("(2,2):(2,16)"), [5, 7, 21])
#[pyfunction]
pub fn local_partition<'py>(
    t: &Bound<'py, PyAny>,
    threads: &Bound<'py, PyAny>,
    index: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let py = t.py();
    match target("local_partition", t)? {
        Target::Tensor(x) => wrap_tensor(py, x.get().local_partition(py, threads, index)?),
        Target::Identity(x) => wrap_identity(py, x.get().local_partition(threads, index)?),
    }
}

fn tensor_arg<'a, 'py>(
    op: &str,
    what: &str,
    t: &'a Bound<'py, PyAny>,
) -> PyResult<&'a Bound<'py, PyTensor>> {
    t.cast::<PyTensor>().map_err(|_| {
        type_error(format!(
            "{op}: the {what} must be a Tensor, not {}",
            type_name(t)
        ))
    })
}

/// `dst[k] = src[k]` for every key `k` (the shapes may differ, the sizes must match).
/// With the same element type on both sides the Rust DSL moves whole contiguous runs of
/// bytes (the layouts' `max_common_vector`); two NumPy arrays of different dtypes are
/// copied by NumPy, converting. Overlapping views of one array copy as if through a
/// temporary. A view that overhangs its data (an edge tile of unpadded data) is a
/// `ValueError` naming its cosize and the data length: copy it with `copy_if`.
///
/// >>> import numpy as np
/// >>> a, b = np.arange(32.0), np.zeros(32)
/// >>> copy(Tensor(a, Layout("(4,8):(8,1)")), Tensor(b, Layout("(4,8):(1,4)")))
/// >>> float(b[4 * 5 + 3])                                  # element (3, 5)
/// 29.0
#[pyfunction]
pub fn copy(src: &Bound<'_, PyAny>, dst: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = src.py();
    let s = tensor_arg("copy", "source", src)?;
    let d = tensor_arg("copy", "destination", dst)?;
    copy_impl(py, s.get(), d.get(), None)
}

/// `dst[k] = src[k]` for the keys `k` where `pred` holds: an `IdentityTensor` tiled like
/// the data (its `in_bounds`, the masked copy of an edge tile) or a callable on keys.
/// Other elements are neither read nor written, so the tensors may overhang their data
/// (edge tiles of unpadded data) as long as every kept key lies inside both; a kept key
/// outside is a `ValueError` naming the key, its offset and the data length.
///
/// >>> import numpy as np
/// >>> a = np.arange(64.0)             # a 5x7 matrix, column-major, leading dimension 8
/// >>> t = Tensor(a, Layout("(5,7):(1,8)"))
/// >>> coords = local_tile(make_identity_tensor(Shape(5, 7)), [4, 4], [1, 1])
/// >>> regs = Tensor(np.zeros(16), Layout("(4,4):(1,4)"))
/// >>> copy_if(coords, local_tile(t, [4, 4], [1, 1]), regs)   # the edge tile, masked
/// >>> regs.data[[0, 4, 8]].tolist(), float(regs.data[1])   # row 4; row 5 is outside
/// ([36.0, 44.0, 52.0], 0.0)
#[pyfunction]
pub fn copy_if(
    pred: &Bound<'_, PyAny>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let py = src.py();
    let s = tensor_arg("copy_if", "source", src)?;
    let d = tensor_arg("copy_if", "destination", dst)?;
    copy_impl(py, s.get(), d.get(), Some(pred))
}

/// `dst[k] = value` for every key, whole contiguous runs at a time (the value is
/// converted to the element type as `dst.data[i] = value` would). A view that overhangs
/// its data is a `ValueError` naming its cosize and the data length.
///
/// >>> import numpy as np
/// >>> a = np.zeros(8, dtype=np.uint8)
/// >>> fill(Tensor(a, Layout("(2,2):(1,4)")), 9)
/// >>> a.tolist()
/// [9, 9, 0, 0, 9, 9, 0, 0]
#[pyfunction]
pub fn fill(dst: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = dst.py();
    fill_impl(py, tensor_arg("fill", "destination", dst)?.get(), value)
}

/// CuTe's copy plan, made once for a pair of layouts: how many elements move at once
/// (`vector`, the layouts' longest common contiguous run, checked) and in how many runs.
/// `plan.copy(src, dst)` copies tensors of exactly these layouts without planning again:
/// the loop of a kernel that copies many tiles of one layout.
///
/// >>> plan = CopyPlan(Layout("(4,8):(8,1)"), Layout("(4,8):(16,1)"))
/// >>> plan.vector, plan.runs
/// (8, 4)
#[pyclass(frozen, module = "strideweave", name = "CopyPlan")]
pub struct PyCopyPlan {
    plan: dsl::CopyPlan,
    src: Layout,
    dst: Layout,
}

#[pymethods]
impl PyCopyPlan {
    /// The plan for moving `src`'s elements (key order) into `dst`'s; the sizes must match.
    #[new]
    fn new(src: &Bound<'_, PyAny>, dst: &Bound<'_, PyAny>) -> PyResult<Self> {
        let s = crate::layout::layout_arg("CopyPlan", src)?;
        let d = crate::layout::layout_arg("CopyPlan", dst)?;
        Ok(PyCopyPlan {
            plan: checked(dsl::CopyPlan::new(&s, &d))?,
            src: s,
            dst: d,
        })
    }

    /// Elements moved at once.
    #[getter]
    fn vector(&self) -> u64 {
        self.plan.vector()
    }

    /// Number of runs.
    #[getter]
    fn runs(&self) -> u64 {
        self.plan.runs()
    }

    /// `dst[k] = src[k]` with this plan; the tensors' layouts must be the planned ones.
    fn copy(&self, src: &Bound<'_, PyAny>, dst: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = src.py();
        let s = tensor_arg("CopyPlan.copy", "source", src)?.get();
        let d = tensor_arg("CopyPlan.copy", "destination", dst)?.get();
        if s.layout != self.src || d.layout != self.dst {
            return Err(value_error(format!(
                "copy plan for {} -> {} used with {} -> {}",
                self.src, self.dst, s.layout, d.layout
            )));
        }
        copy_planned(py, s, d, None, Some(&self.plan))
    }

    fn __repr__(&self) -> String {
        format!(
            "<CopyPlan {} -> {}: {} runs of {}>",
            self.src,
            self.dst,
            self.plan.runs(),
            self.plan.vector()
        )
    }
}
