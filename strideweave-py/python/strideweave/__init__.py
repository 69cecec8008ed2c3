"""StrideWeave: CuTe-style hierarchical layouts and their algebra, on a Rust core.

A ``Layout`` maps hierarchical coordinates to scalar indices through a congruent pair of
``Shape`` and ``Stride`` trees; composition, complement, division, products and inverses
build tilings and partitions from simple layouts. Every operation runs in the Rust core;
failures raise ``ValueError`` or ``TypeError`` naming the values.

>>> from strideweave import Layout, Shape, Stride
>>> a = Layout(Shape(2, [3, 4]), Stride(1, [10, 100]))
>>> a([1, [2, 3]])
321
>>> Layout("(8,8):(8,1)").zipped_divide([Layout("2:1"), Layout("4:1")])
Layout("((2,4),(4,2)):((8,1),(16,4))")

Swizzled layouts (``Swizzle``, ``ComposedLayout``) and coordinate layouts
(``CoordLayout``, ``Basis``) are the core's types too. The tensor DSL, CuTe-DSL style:
``Tensor(array, layout)`` views a NumPy array or buffer through a layout, with
``zipped_divide``, ``tiled_divide``, ``local_tile``, ``local_partition``, ``copy``,
``copy_if``, ``fill`` and ``make_identity_tensor``. Tensor plans: ``TensorSpec``,
``prepare(op, inputs, outputs)`` and ``Plan.run`` on NumPy arrays or any buffer, plus the
NumPy helpers ``pack`` and ``unpack``.
"""

from ._strideweave import (
    MAX_LEAVES,
    MAX_NODES,
    Basis,
    ComposedLayout,
    CoordLayout,
    CopyPlan,
    IdentityTensor,
    Layout,
    Node,
    NodeId,
    Op,
    Plan,
    PortRequirement,
    Shape,
    Stride,
    Swizzle,
    Tensor,
    TensorError,
    TensorSpec,
    Tree,
    copy,
    copy_if,
    eval,
    fill,
    local_partition,
    local_tile,
    make_identity_tensor,
    prepare,
    tiled_divide,
    zipped_divide,
)
from ._numpy import numpy_dtype, pack, spec_of, unpack

try:
    from importlib.metadata import version as _version

    __version__ = _version("strideweave")
except Exception:  # pragma: no cover - running from a source tree without metadata
    __version__ = "unknown"

__all__ = [
    "MAX_LEAVES",
    "MAX_NODES",
    "Basis",
    "ComposedLayout",
    "CoordLayout",
    "CopyPlan",
    "IdentityTensor",
    "Layout",
    "Node",
    "NodeId",
    "Op",
    "Plan",
    "PortRequirement",
    "Shape",
    "Stride",
    "Swizzle",
    "Tensor",
    "TensorError",
    "TensorSpec",
    "Tree",
    "copy",
    "copy_if",
    "fill",
    "local_partition",
    "local_tile",
    "make_identity_tensor",
    "numpy_dtype",
    "pack",
    "prepare",
    "spec_of",
    "tiled_divide",
    "unpack",
    "zipped_divide",
]

