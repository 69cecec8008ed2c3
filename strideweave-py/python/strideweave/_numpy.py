"""NumPy helpers around ``prepare`` and ``Plan.run``: ``pack`` and ``unpack`` take an
``ndarray`` and return one. The bytes are moved by the Rust kernels, in place, with the
GIL released; nothing here converts or tiles data itself.

``bfloat16`` arrays are ``ml_dtypes.bfloat16`` when that package is installed, raw
``uint16`` bit patterns otherwise.
"""

from ._strideweave import Op, TensorSpec, prepare

_NAMES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "int32": "i32", "int64": "i64"}


def _np():
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - exercised only without numpy
        raise ImportError("strideweave.pack/unpack need NumPy: pip install numpy") from e
    return numpy


def numpy_dtype(dtype):
    """The NumPy dtype holding elements of spec dtype ``dtype`` (``"f32"``, ``"bf16"``, ...).

    ``bf16`` is ``ml_dtypes.bfloat16`` when ``ml_dtypes`` is installed, else ``uint16``
    (the raw bits).

    >>> numpy_dtype("f16")
    dtype('float16')
    """
    np = _np()
    if dtype == "bf16":
        try:
            import ml_dtypes

            return np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            return np.dtype(np.uint16)
    table = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i64": np.int64}
    if dtype not in table:
        raise ValueError(f"unknown dtype {dtype!r} (expected f32, f16, bf16, i32 or i64)")
    return np.dtype(table[dtype])


def spec_of(array):
    """The ``TensorSpec`` describing ``array``'s own memory: its dims, its dtype, and
    ``contiguous`` for a C-contiguous array or ``strided(...)`` with its byte strides
    otherwise (so a strided view is read in place, not copied).

    ``uint16`` arrays are ambiguous (raw ``bf16`` or something else): pass the spec.

    >>> import numpy as np
    >>> spec_of(np.zeros((4, 6), np.float32)[:, ::2])
    TensorSpec("f32[4,3] strided(24,8)")
    """
    np = _np()
    given = type(array).__name__
    array = np.asarray(array) if not hasattr(array, "dtype") else array
    name = _NAMES.get(array.dtype.name)
    if name is None:
        converted = ""
        if given != "ndarray":
            converted = f" (a {given} becomes {array.dtype}: use numpy.asarray(x, numpy.float32))"
        raise ValueError(
            f"no tensor dtype for NumPy dtype {array.dtype}{converted} "
            "(float32, float16, bfloat16, int32, int64); for raw bf16 bits in a uint16 "
            "array pass the spec, e.g. pack(x, to, from_spec=\"bf16[4,16] contiguous\")"
        )
    dims = ",".join(str(d) for d in array.shape)
    if array.flags.c_contiguous:
        return TensorSpec(f"{name}[{dims}] contiguous")
    strides = ",".join(str(s) for s in array.strides)
    return TensorSpec(f"{name}[{dims}] strided({strides})")


def _spec(value):
    return value if isinstance(value, TensorSpec) else TensorSpec(value)


def _output_for(spec):
    """A fresh array for output ``spec``: shaped and typed when contiguous, else the
    placement's raw bytes (zeroed, so gaps a cast does not write are defined)."""
    np = _np()
    if spec.placement == "contiguous":
        return np.empty(spec.dims, dtype=numpy_dtype(spec.dtype))
    return np.zeros(spec.required_bytes, dtype=np.uint8)


def _run(array, from_spec, to_spec):
    plan = prepare(Op.conversion(from_spec, to_spec), [from_spec], [to_spec])
    out = _output_for(to_spec)
    plan.run([array], [out])
    return out


def pack(array, to, from_spec=None):
    """Converts ``array`` into placement ``to`` (a ``TensorSpec`` or its text) and returns
    a new array: the raw bytes (``uint8``) for a tiled or strided target, a typed array
    of ``to``'s dims for a contiguous one.

    ``from_spec`` defaults to ``spec_of(array)``; a raw ``uint16`` bf16 array needs it.
    Admission failures raise ``TensorError`` (a ``ValueError``) naming the rule.

    >>> import numpy as np
    >>> x = np.arange(2 * 16, dtype=np.float32).reshape(2, 16)
    >>> packed = pack(x, "bf16[2,16] mla-tiled(roles=WC, tile=(1,1,2,16), align=64)")
    >>> packed.dtype, packed.shape
    (dtype('uint8'), (64,))
    >>> bool((unpack(packed, "bf16[2,16] mla-tiled(roles=WC, tile=(1,1,2,16), align=64)", "f32") == x).all())
    True
    """
    to = _spec(to)
    src = spec_of(array) if from_spec is None else _spec(from_spec)
    return _run(array, src, to)


def unpack(data, from_spec, to=None):
    """Reads ``data`` (bytes laid out as ``from_spec``, e.g. the result of ``pack``) back
    into a new contiguous array.

    ``to`` is a ``TensorSpec`` or its text, or just a dtype name (``"f32"``) for a
    contiguous tensor of ``from_spec``'s dims; by default ``from_spec``'s own dtype.
    """
    src = _spec(from_spec)
    if to is None or (isinstance(to, str) and "[" not in to):
        dtype = src.dtype if to is None else to
        to = TensorSpec.contiguous(list(src.dims), dtype)
    return _run(data, src, _spec(to))
