//! Borrowing the memory of any buffer-protocol object (NumPy arrays, `bytearray`,
//! `memoryview`, ...) without copying.
//!
//! pyo3 offers the buffer protocol under the limited API only from Python 3.11, and this
//! extension is one abi3 wheel for Python >= 3.9. `PyObject_GetBuffer`, `PyBuffer_Release`
//! and the `Py_buffer` struct have had the same ABI since Python 3.3 (3.11 merely added
//! them to the stable ABI, unchanged), so they are declared here. Linux and macOS resolve
//! them from the interpreter at import time; a Windows abi3 build would link against
//! `python3.dll`, which exports them only from 3.11 on (untested here).

use crate::errors::{type_error, type_name, value_error};
use pyo3::ffi;
use pyo3::prelude::*;
use std::os::raw::{c_int, c_void};

/// CPython's `Py_buffer` (`Include/pybuffer.h`, unchanged since 3.3).
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut std::os::raw::c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

const PYBUF_WRITABLE: c_int = 0x0001;
const PYBUF_ND: c_int = 0x0008;
const PYBUF_STRIDES: c_int = 0x0010 | PYBUF_ND;

extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// An exported buffer, released on drop: the start of its first element and the bytes
/// from there that its elements span.
pub(crate) struct Borrowed {
    view: Box<RawBuffer>,
    /// Address of the first element.
    pub addr: usize,
    /// Bytes from `addr` to the end of the last element (0 for an empty buffer).
    pub span: usize,
}

impl Borrowed {
    /// Borrows `obj`'s memory (writable when `writable`). Strided exporters are accepted
    /// when every stride is non-negative: the span then runs from the first element to
    /// the end of the last, all inside the exporter's allocation.
    pub(crate) fn new(obj: &Bound<'_, PyAny>, writable: bool, port: &str) -> PyResult<Self> {
        let mut view = Box::new(RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        });
        let flags = PYBUF_STRIDES | if writable { PYBUF_WRITABLE } else { 0 };
        // SAFETY: `obj` is a live object (the GIL is held through `obj`'s token) and
        // `view` points to a writable, properly laid out `Py_buffer`. On failure CPython
        // leaves `view.obj` NULL and sets an exception, which `PyErr::fetch` takes.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, flags) };
        if rc != 0 {
            let cause = PyErr::fetch(obj.py());
            let what = if writable { "a writable" } else { "a readable" };
            let err = if cause.is_instance_of::<pyo3::exceptions::PyTypeError>(obj.py()) {
                type_error(format!(
                    "{port}: {} does not support the buffer protocol ({cause})",
                    type_name(obj)
                ))
            } else {
                value_error(format!("{port}: cannot borrow {what} buffer: {cause}"))
            };
            return Err(err);
        }
        let mut b = Borrowed {
            view,
            addr: 0,
            span: 0,
        };
        b.addr = b.view.buf as usize;
        b.span = b.compute_span(port)?;
        Ok(b)
    }

    fn compute_span(&self, port: &str) -> PyResult<usize> {
        let v = &*self.view;
        let ndim = usize::try_from(v.ndim).unwrap_or(0);
        if v.shape.is_null() || ndim == 0 {
            return Ok(usize::try_from(v.len).unwrap_or(0));
        }
        // SAFETY: with PYBUF_STRIDES granted, `shape` (and `strides` when non-null) point
        // to `ndim` entries owned by the exporter until the buffer is released.
        let shape = unsafe { std::slice::from_raw_parts(v.shape, ndim) };
        if shape.contains(&0) {
            return Ok(0);
        }
        let itemsize = usize::try_from(v.itemsize).unwrap_or(1);
        if v.strides.is_null() {
            return Ok(usize::try_from(v.len).unwrap_or(0));
        }
        // SAFETY: as above.
        let strides = unsafe { std::slice::from_raw_parts(v.strides, ndim) };
        let mut span = itemsize;
        for (&n, &s) in shape.iter().zip(strides) {
            let s = usize::try_from(s).map_err(|_| {
                value_error(format!(
                    "{port}: the buffer has a negative stride {s}; pass a view with non-negative strides"
                ))
            })?;
            // Extents are positive here (a zero one returned above); a negative one would
            // be a broken exporter.
            let n = usize::try_from(n)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| value_error(format!("{port}: the buffer has extent {n}")))?;
            span = (n - 1)
                .checked_mul(s)
                .and_then(|t| t.checked_add(span))
                .ok_or_else(|| value_error(format!("{port}: the buffer's span overflows")))?;
        }
        Ok(span)
    }
}

impl Drop for Borrowed {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful `PyObject_GetBuffer` and is released
        // exactly once. Dropping happens where the GIL is held (the binding objects are
        // dropped inside the `#[pymethods]` call, after the detached kernel returned).
        unsafe { PyBuffer_Release(&mut *self.view) };
    }
}
