//! `Shape` and `Stride`: immutable hierarchical integer trees, built from integers and
//! nested iterables (`Shape(2, [3, 4]) == Shape([2, [3, 4]])`) or from CuTe notation
//! (`Shape("(2,(3,4))")`), indexed by mode with `[i]` or `[start:stop]`.

use crate::convert::{mode_index, mode_range, tree_from_args, Role};
use crate::errors::{checked, type_error};
use crate::tree::PyNode;
use pyo3::prelude::*;
use pyo3::types::{PySlice, PyString, PyTuple};
use strideweave::{Shape, Stride};

macro_rules! int_tree_class {
    ($(#[$doc:meta])* $py:ident, $rust:ident, $name:literal, $role:expr, { $($extra:tt)* }) => {
        $(#[$doc])*
        #[pyclass(frozen, eq, hash, module = "strideweave", name = $name)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $py(pub $rust);

        #[pymethods]
        impl $py {
            #[new]
            #[pyo3(signature = (*items))]
            fn new(items: &Bound<'_, PyTuple>) -> PyResult<Self> {
                if items.len() == 1 {
                    if let Ok(text) = items.get_item(0)?.cast::<PyString>() {
                        return checked(text.to_cow()?.parse::<$rust>()).map($py);
                    }
                }
                checked($rust::from_tuple(tree_from_args(items, $role)?)).map($py)
            }

            /// Number of top-level modes (`len(value)` too).
            #[getter]
            fn rank(&self) -> usize {
                self.0.rank()
            }

            /// Nesting depth (CuTe's convention: an integer has depth 0).
            #[getter]
            fn depth(&self) -> usize {
                self.0.as_tuple().depth()
            }

            /// The leaf values in depth-first order.
            #[getter]
            fn leaves(&self) -> Vec<u64> {
                self.0.as_tuple().leaves().to_vec()
            }

            /// The leaf-and-nesting recipe: a list of `Node.Leaf`, `Node.Push`, `Node.Pop`.
            #[getter]
            fn profile(&self) -> Vec<PyNode> {
                self.0.as_tuple().recipe().iter().map(|&n| PyNode::from(n)).collect()
            }

            fn __len__(&self) -> usize {
                self.0.rank()
            }

            /// The top-level modes, in order.
            fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyIterator>> {
                let modes = (0..self.0.rank())
                    .map(|i| checked(self.0.get(i)).map($py))
                    .collect::<PyResult<Vec<_>>>()?;
                pyo3::types::PyList::new(py, modes)?.as_any().try_iter()
            }

            /// Mode `key` (an integer, negative from the end) or the modes of a unit-step
            /// slice, as the same kind of value, hierarchy kept.
            fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<Self> {
                if let Ok(slice) = key.cast::<PySlice>() {
                    let (start, stop) = mode_range(slice, self.0.rank())?;
                    return checked(self.0.slice(start, stop)).map($py);
                }
                match key.extract::<isize>() {
                    Ok(i) => checked(self.0.get(mode_index(i, self.0.rank())?)).map($py),
                    Err(_) => Err(type_error(format!(
                        "{} indices must be integers or slices, not {}",
                        $name,
                        crate::errors::type_name(key)
                    ))),
                }
            }

            /// CuTe notation, e.g. `(2,(3,4))`.
            fn __str__(&self) -> String {
                self.0.to_string()
            }

            fn __repr__(&self) -> String {
                format!("{}(\"{}\")", $name, self.0)
            }

            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
                Ok((slf.get_type().into_any(), (slf.get().0.to_string(),)))
            }

            $($extra)*
        }
    };
}

int_tree_class!(
    /// A hierarchy of positive extents: the domain of a layout.
    ///
    /// >>> Shape(2, [3, 4]) == Shape([2, [3, 4]]) == Shape("(2,(3,4))")
    /// True
    /// >>> Shape(2, [3, 4]).size
    /// 24
    /// >>> Shape(2, [3, 4])[1]
    /// Shape("(3,4)")
    PyShape,
    Shape,
    "Shape",
    Role::Shape,
    {
        /// Number of coordinates: the product of the extents.
        #[getter]
        fn size(&self) -> PyResult<u64> {
            self.0.checked_size().ok_or_else(|| {
                crate::errors::value_error(format!("the size of shape {} overflows 64 bits", self.0))
            })
        }
    }
);

int_tree_class!(
    /// A hierarchy of non-negative strides, congruent to a `Shape`.
    ///
    /// >>> Stride(1, [10, 100])
    /// Stride("(1,(10,100))")
    /// >>> Stride(1, [10, 100])[0:1] == Stride(1)
    /// True
    PyStride,
    Stride,
    "Stride",
    Role::Stride,
    {}
);
