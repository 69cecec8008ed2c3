//! Tensor specs, admission (`prepare`) and plans run on buffer-protocol objects with the
//! GIL released. Errors are `strideweave.TensorError` (a `ValueError`) naming the rule.

use crate::buffer::Borrowed;
use crate::errors::{tensor_err, type_error, type_name, value_error};
use crate::layout::PyLayout;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use strideweave::tensor::{
    prepare as core_prepare, Op, Plan, PortRequirement, RawInput, RawOutput, RunOptions,
};
use strideweave::tensor::{DType, TensorSpec};
use strideweave::view::RENDER_MAX_CELLS;
use strideweave::view::{placement_picture, render_svg, PlacementOptions, SvgOptions};

/// A logical tensor (dims, dtype) and how it lies in bytes (its placement), in the text
/// form `DTYPE[D0,D1,...] PLACEMENT`.
///
/// >>> s = TensorSpec.parse("f32[2,3] strided(16,4)")
/// >>> s.dims, s.dtype, s.required_bytes
/// ((2, 3), 'f32', 28)
/// >>> s.byte_offset([1, 2])
/// 24
#[pyclass(frozen, eq, hash, module = "strideweave", name = "TensorSpec")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyTensorSpec(pub TensorSpec);

/// A spec argument: a `TensorSpec` or its text.
fn spec_arg(obj: &Bound<'_, PyAny>) -> PyResult<TensorSpec> {
    if let Ok(s) = obj.cast::<PyTensorSpec>() {
        return Ok(s.get().0);
    }
    if let Ok(text) = obj.cast::<PyString>() {
        return parse(obj.py(), &text.to_cow()?);
    }
    Err(type_error(format!(
        "expected a TensorSpec or its text, not {}",
        type_name(obj)
    )))
}

fn parse(py: Python<'_>, text: &str) -> PyResult<TensorSpec> {
    text.parse::<TensorSpec>().map_err(|e| tensor_err(py, e))
}

#[pymethods]
impl PyTensorSpec {
    #[new]
    fn new(py: Python<'_>, text: &str) -> PyResult<Self> {
        parse(py, text).map(PyTensorSpec)
    }

    /// Parses the text form, e.g.
    /// `bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)`.
    #[staticmethod]
    fn parse(py: Python<'_>, text: &str) -> PyResult<Self> {
        parse(py, text).map(PyTensorSpec)
    }

    /// A contiguous spec (last axis fastest) of `dims` and `dtype` (`"f32"`, `"bf16"`, ...).
    ///
    /// >>> TensorSpec.contiguous([2, 3], "bf16")
    /// TensorSpec("bf16[2,3] contiguous")
    #[staticmethod]
    fn contiguous(py: Python<'_>, dims: Vec<u64>, dtype: &str) -> PyResult<Self> {
        let dtype = dtype.parse::<DType>().map_err(|e| tensor_err(py, e))?;
        TensorSpec::contiguous(&dims, dtype)
            .map(PyTensorSpec)
            .map_err(|e| tensor_err(py, e))
    }

    /// The logical extents.
    #[getter]
    fn dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.dims.extents())
    }

    /// The scalar type's name: `f32`, `f16`, `bf16`, `i32` or `i64`.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.0.dtype.name()
    }

    /// Bytes of one element.
    #[getter]
    fn itemsize(&self) -> u64 {
        self.0.dtype.width()
    }

    /// The placement kind: `contiguous`, `strided`, `mla-tiled` or `mla-cblocked`.
    #[getter]
    fn placement(&self) -> &'static str {
        self.0.placement.kind_name()
    }

    /// Bytes the placement spans: what a binding must hold.
    #[getter]
    fn required_bytes(&self, py: Python<'_>) -> PyResult<u64> {
        self.0.required_bytes().map_err(|e| tensor_err(py, e))
    }

    /// The placement as a byte-level Layout (byte within the element, then one mode per
    /// axis); `None` for an empty tensor.
    #[getter]
    fn byte_layout(&self, py: Python<'_>) -> PyResult<Option<PyLayout>> {
        self.0
            .byte_layout()
            .map(|l| l.map(PyLayout))
            .map_err(|e| tensor_err(py, e))
    }

    /// Byte offset of byte `byte` of the element at logical coordinate `coord`.
    #[pyo3(signature = (coord, byte = 0))]
    fn byte_offset(&self, py: Python<'_>, coord: Vec<u64>, byte: u64) -> PyResult<u64> {
        self.0
            .byte_offset(&coord, byte)
            .map_err(|e| tensor_err(py, e))
    }

    /// An SVG picture of where the elements lie: each cell is a logical element labelled
    /// with its byte offset, tiles coloured (`strideweave render --placement`).
    /// `row_axes` leading axes make the rows (default: all but the last). `ValueError`
    /// for more than 16384 elements.
    #[pyo3(signature = (row_axes = None))]
    fn svg(&self, row_axes: Option<usize>) -> PyResult<String> {
        let opts = PlacementOptions {
            row_axes,
            max_cells: RENDER_MAX_CELLS,
        };
        let picture = crate::errors::checked(placement_picture(&self.0, &opts))?;
        Ok(render_svg(&picture, &SvgOptions::default()))
    }

    /// Jupyter's picture hook: the placement picture, or `None` when too large.
    fn _repr_svg_(&self) -> Option<String> {
        self.svg(None).ok()
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("TensorSpec(\"{}\")", self.0)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().into_any(), (slf.get().0.to_string(),)))
    }
}

/// An operation to prepare: `Op.Cast`, `Op.CastTess`, `Op.CastUntess` or `Op.argmax(axis)`.
/// `prepare` also takes the names `"cast"`, `"cast-tess"`, `"cast-untess"`.
///
/// >>> Op.conversion(TensorSpec("f32[4,32]"), TensorSpec("bf16[4,32] mla-tiled(roles=HC, tile=(1,4,1,16), align=64)"))
/// Op.CastTess
#[pyclass(frozen, eq, hash, module = "strideweave", name = "Op")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyOp(pub Op);

#[pymethods]
impl PyOp {
    /// Float to float conversion between contiguous or strided placements.
    #[classattr]
    #[allow(non_snake_case)]
    fn Cast() -> Self {
        PyOp(Op::Cast)
    }

    /// A cast whose output is tiled (`mla-tiled` or `mla-cblocked`).
    #[classattr]
    #[allow(non_snake_case)]
    fn CastTess() -> Self {
        PyOp(Op::CastTess)
    }

    /// A cast from a tiled placement back to contiguous or strided.
    #[classattr]
    #[allow(non_snake_case)]
    fn CastUntess() -> Self {
        PyOp(Op::CastUntess)
    }

    /// Index of the largest element along `axis` (output `i32` or `i64`); axes count
    /// from 0, the outermost, and a negative axis raises `TensorError`
    /// (`axis-out-of-range`: the op does not know the rank yet).
    #[staticmethod]
    fn argmax(py: Python<'_>, axis: i64) -> PyResult<Self> {
        let axis = usize::try_from(axis).map_err(|_| {
            tensor_err(
                py,
                strideweave::tensor::TensorError::new(
                    strideweave::tensor::Rule::AxisOutOfRange,
                    format!(
                        "axis {axis}: axes count from 0, the outermost dim (no negative axes: \
                         the last of N dims is N-1)"
                    ),
                ),
            )
        })?;
        Ok(PyOp(Op::Argmax { axis }))
    }

    /// The conversion (Cast, CastTess or CastUntess) for a pair of placements.
    #[staticmethod]
    fn conversion(from_spec: &Bound<'_, PyAny>, to_spec: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyOp(Op::conversion(
            &spec_arg(from_spec)?,
            &spec_arg(to_spec)?,
        )))
    }

    /// The op's name: `cast`, `cast-tess`, `cast-untess` or `argmax`.
    #[getter]
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn __repr__(&self) -> String {
        match self.0 {
            Op::Cast => "Op.Cast".into(),
            Op::CastTess => "Op.CastTess".into(),
            Op::CastUntess => "Op.CastUntess".into(),
            Op::Argmax { axis } => format!("Op.argmax({axis})"),
        }
    }
}

fn op_arg(obj: &Bound<'_, PyAny>) -> PyResult<Op> {
    if let Ok(op) = obj.cast::<PyOp>() {
        return Ok(op.get().0);
    }
    match obj.cast::<PyString>().map(|s| s.to_string()).as_deref() {
        Ok("cast") => Ok(Op::Cast),
        Ok("cast-tess") | Ok("cast_tess") => Ok(Op::CastTess),
        Ok("cast-untess") | Ok("cast_untess") => Ok(Op::CastUntess),
        Ok(other) => Err(value_error(format!(
            "unknown op {other:?} (expected cast, cast-tess, cast-untess, or Op.argmax(axis))"
        ))),
        Err(_) => Err(type_error(format!(
            "expected an Op or an op name, not {}",
            type_name(obj)
        ))),
    }
}

/// What a port needs from its binding: the spec, the bytes and the address alignment.
#[pyclass(frozen, module = "strideweave", name = "PortRequirement")]
pub struct PyPortRequirement(PortRequirement);

#[pymethods]
impl PyPortRequirement {
    /// The port's spec.
    #[getter]
    fn spec(&self) -> PyTensorSpec {
        PyTensorSpec(self.0.spec)
    }

    /// Minimum capacity in bytes.
    #[getter]
    fn bytes(&self) -> u64 {
        self.0.bytes
    }

    /// Required alignment of a non-empty binding's address.
    #[getter]
    fn align(&self) -> u64 {
        self.0.align
    }

    fn __repr__(&self) -> String {
        format!(
            "PortRequirement(spec=TensorSpec(\"{}\"), bytes={}, align={})",
            self.0.spec, self.0.bytes, self.0.align
        )
    }
}

/// An admitted operation: per port the required bytes and alignment, and `run`.
///
/// >>> plan = prepare(Op.Cast, ["f32[3]"], ["f16[3]"])
/// >>> plan.outputs[0].bytes, plan.outputs[0].align
/// (6, 2)
#[pyclass(frozen, module = "strideweave", name = "Plan")]
pub struct PyPlan(Plan);

fn spec_list(obj: &Bound<'_, PyAny>) -> PyResult<Vec<TensorSpec>> {
    if obj.cast::<PyString>().is_ok() {
        return Err(type_error(
            "expected a list of TensorSpecs (or spec texts), not one string",
        ));
    }
    let mut out = Vec::new();
    for item in obj.try_iter()? {
        out.push(spec_arg(&item?)?);
        if out.len() > 16 {
            return Err(value_error("more than 16 tensor specs for one operation"));
        }
    }
    Ok(out)
}

/// Admits `op` on `inputs` and `outputs` (lists of `TensorSpec`s or their texts) and
/// returns the `Plan`; a rejection raises `TensorError` naming the rule.
///
/// >>> prepare(Op.Cast, ["f32[3,2] strided(8,12)"], ["bf16[3,2]"])
/// Traceback (most recent call last):
///   ...
/// strideweave.TensorError: overlapping-strides: cast: input stride 12 of axis 1 is below the span 20 of the faster axes (conservative non-overlap rule)
#[pyfunction]
pub fn prepare(
    py: Python<'_>,
    op: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyAny>,
    outputs: &Bound<'_, PyAny>,
) -> PyResult<PyPlan> {
    let op = op_arg(op)?;
    let (i, o) = (spec_list(inputs)?, spec_list(outputs)?);
    core_prepare(op, &i, &o)
        .map(PyPlan)
        .map_err(|e| tensor_err(py, e))
}

#[pymethods]
impl PyPlan {
    /// The prepared op.
    #[getter]
    fn op(&self) -> PyOp {
        PyOp(self.0.op())
    }

    /// Requirements of the input ports.
    #[getter]
    fn inputs(&self) -> Vec<PyPortRequirement> {
        self.0
            .inputs()
            .iter()
            .map(|r| PyPortRequirement(*r))
            .collect()
    }

    /// Requirements of the output ports.
    #[getter]
    fn outputs(&self) -> Vec<PyPortRequirement> {
        self.0
            .outputs()
            .iter()
            .map(|r| PyPortRequirement(*r))
            .collect()
    }

    /// Runs the plan on buffer-protocol objects (NumPy arrays, `bytearray`, ...), read and
    /// written in place, without copies, with the GIL released while the kernel runs.
    /// Each binding's capacity is the span of its elements; every check (port count,
    /// capacity, alignment, overlapping input and output) is done before any output byte
    /// is written, and a rejection raises `TensorError` naming the rule. `threads` splits
    /// the work into that many parts on the Rust thread pool (`1`: the calling thread);
    /// `None` or `0` (the default) is automatic: one part per core for tensors of 2 MiB
    /// or more (input and output together), else one. Results are identical either way.
    #[pyo3(signature = (inputs, outputs, threads = None))]
    fn run(
        &self,
        py: Python<'_>,
        inputs: &Bound<'_, PyAny>,
        outputs: &Bound<'_, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        let options = RunOptions::new().threads(threads.unwrap_or(0));
        let borrow = |list: &Bound<'_, PyAny>, writable: bool, kind: &str| {
            let ports = if writable {
                self.0.outputs()
            } else {
                self.0.inputs()
            };
            let mut out = Vec::new();
            for (n, item) in list.try_iter()?.enumerate() {
                let (item, port) = (item?, format!("{kind} {n}"));
                if let Some(p) = ports.get(n) {
                    check_array_dtype(&item, p.spec.dtype, &p.spec, &port)?;
                }
                out.push(Borrowed::new(&item, writable, &port)?);
                if out.len() > 16 {
                    return Err(value_error("more than 16 bindings for one plan"));
                }
            }
            Ok::<_, PyErr>(out)
        };
        // The borrowed views live (and keep their exporters locked) until the end of
        // this call; the detached closure only sees plain addresses and lengths.
        let in_views = borrow(inputs, false, "input")?;
        let out_views = borrow(outputs, true, "output")?;
        let ins: Vec<(usize, usize)> = in_views.iter().map(|b| (b.addr, b.span)).collect();
        let outs_raw: Vec<(usize, usize)> = out_views.iter().map(|b| (b.addr, b.span)).collect();
        let plan = &self.0;
        let result = py.detach(|| {
            let i: Vec<RawInput> = ins
                .iter()
                .map(|&(a, n)| RawInput::new(a as *const u8, n))
                .collect();
            let o: Vec<RawOutput> = outs_raw
                .iter()
                .map(|&(a, n)| RawOutput::new(a as *mut u8, n))
                .collect();
            // SAFETY: each binding is a buffer exported by its object, kept alive and
            // locked against resizing by `Borrowed` until after this call; `n` bytes from
            // the address are its elements' span inside the exporter's allocation
            // (readable; writable for outputs, requested with PyBUF_WRITABLE). `run_raw`
            // rejects intersecting input and output spans before forming any slice. As
            // with every NumPy kernel that releases the GIL, the caller must not mutate
            // these buffers from another thread during the call.
            unsafe { plan.run_raw_with_options(&i, &o, options) }
        });
        drop((in_views, out_views));
        result.map_err(|e| tensor_err(py, e))
    }

    fn __repr__(&self) -> String {
        let i = self.0.inputs()[0].spec;
        let o = self.0.outputs()[0].spec;
        format!("<Plan {}: {i} -> {o}>", self.0.op().name())
    }
}

/// A typed array (anything with a NumPy `dtype`) bound to a port must hold that port's
/// elements: `float32` for F32, `float16` (or `uint16` bits) for F16, `bfloat16` (or
/// `uint16` bits) for BF16, `int32`, `int64`. One-byte arrays are raw bytes and always
/// fit; objects without a `dtype` (`bytearray`, `memoryview`) are raw bytes too. Only the
/// byte count is checked otherwise, and an `int64` output of an `i32` Argmax or a
/// `float32` copy of packed bytes would be read or written as the wrong elements.
fn check_array_dtype(
    item: &Bound<'_, PyAny>,
    want: DType,
    spec: &TensorSpec,
    port: &str,
) -> PyResult<()> {
    let Ok(dtype) = item.getattr("dtype") else {
        return Ok(());
    };
    let (Ok(name), Ok(itemsize)) = (
        dtype.getattr("name").and_then(|n| n.extract::<String>()),
        dtype.getattr("itemsize").and_then(|n| n.extract::<usize>()),
    ) else {
        return Ok(());
    };
    let fits = itemsize == 1
        || matches!(
            (want, name.as_str()),
            (DType::F32, "float32")
                | (DType::F16, "float16" | "uint16")
                | (DType::BF16, "bfloat16" | "uint16")
                | (DType::I32, "int32")
                | (DType::I64, "int64")
        );
    if fits {
        return Ok(());
    }
    let typed = match want {
        DType::F32 => "float32",
        DType::F16 => "float16",
        DType::BF16 => "bfloat16 (ml_dtypes) or uint16 bits",
        DType::I32 => "int32",
        DType::I64 => "int64",
    };
    Err(type_error(format!(
        "{port}: an array of dtype {name} is bound to a port of {spec}, whose elements are {}: \
         pass a {typed} array, or the raw bytes (a uint8 array, e.g. x.view(numpy.uint8))",
        want.name()
    )))
}
