//! The spec's exceptions: a core [`LayoutError`] becomes `ValueError` or `TypeError` by
//! its kind (syntax errors are value errors, as Python's parsers do); a tensor
//! [`TensorError`](strideweave::tensor::TensorError) becomes `strideweave.TensorError`, a
//! `ValueError` whose `rule` attribute names the rule broken.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use strideweave::{ErrorKind, Layout, LayoutError};

pyo3::create_exception!(
    strideweave,
    TensorError,
    PyValueError,
    "A tensor spec, plan or binding was rejected. A `ValueError`; `rule` names the rule broken\n\
     (for example `'zero-stride'`) and the message names the offending values."
);

/// The Python exception for a core error.
pub(crate) fn layout_err(e: LayoutError) -> PyErr {
    match e.kind() {
        ErrorKind::Type => PyTypeError::new_err(e.message().to_string()),
        ErrorKind::Value | ErrorKind::Syntax => PyValueError::new_err(e.message().to_string()),
    }
}

/// The Python exception for a tensor error: `TensorError` with its `rule` set.
pub(crate) fn tensor_err(py: Python<'_>, e: strideweave::tensor::TensorError) -> PyErr {
    let err = TensorError::new_err(e.to_string());
    // Setting an attribute on a fresh exception instance only fails on memory exhaustion,
    // in which case the exception is still raised, without the attribute.
    let _ = err.value(py).setattr("rule", e.rule().name());
    err
}

/// A core result as a Python result.
pub(crate) fn checked<T>(r: Result<T, LayoutError>) -> PyResult<T> {
    r.map_err(layout_err)
}

/// `ValueError(message)`.
pub(crate) fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// `TypeError(message)`.
pub(crate) fn type_error(message: impl Into<String>) -> PyErr {
    PyTypeError::new_err(message.into())
}

/// The Python type name of `obj`, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

/// A layout result as a Python `Layout`.
pub(crate) fn layout(r: Result<Layout, LayoutError>) -> PyResult<crate::layout::PyLayout> {
    checked(r).map(crate::layout::PyLayout)
}
