"""Tensors from NumPy: specs, admission, plans run in place on buffers (no copies, GIL
released), pack/unpack against a NumPy reference, bfloat16 through ml_dtypes or raw
uint16, and errors that are ValueErrors naming the rule."""

import sys
import threading
import time

import numpy as np
import pytest

import strideweave
from strideweave import Op, TensorError, TensorSpec, pack, prepare, spec_of, unpack

TILED = "bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)"


def bf16_bits(x):
    """Round-to-nearest-even f32 -> bf16 bits, in NumPy (finite inputs)."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def reference_mla_tiled(x, tile):
    """MlaTiled(roles=.HWC) bytes of f32 `x` [N,H,W,C] as bf16, by NumPy: astype, pad,
    reshape and transpose into tiles visited C/H/W, pixels H/W, byte planes per pixel."""
    n, h, w, c = x.shape
    _, th, tw, tc = tile
    nh, nw, nc = -(-h // th), -(-w // tw), -(-c // tc)
    bits = np.zeros((n, nh * th, nw * tw, nc * tc), np.uint16)
    bits[:, :h, :w, :c] = bf16_bits(x)
    t = bits.reshape(n, nh, th, nw, tw, nc, tc).transpose(0, 5, 1, 3, 2, 4, 6)
    planes = np.stack([(t & 0xFF).astype(np.uint8), (t >> 8).astype(np.uint8)], axis=-2)
    return planes.reshape(-1)


# --- specs -----------------------------------------------------------------------------


def test_tensor_spec_parse_properties_and_round_trip():
    s = TensorSpec.parse("f32[2,3] strided(16,4)")
    assert (s.dims, s.dtype, s.placement, s.itemsize) == ((2, 3), "f32", "strided", 4)
    assert s.required_bytes == 28
    assert s.byte_offset([1, 2]) == 24 and s.byte_offset([1, 2], 3) == 27
    assert TensorSpec(str(s)) == s and eval(repr(s), {"TensorSpec": TensorSpec}) == s
    assert s.byte_layout.cosize == 28
    assert TensorSpec(TILED).required_bytes == 1 * 2 * 2 * 2 * 512
    assert TensorSpec("f32[0,3]").byte_layout is None


@pytest.mark.parametrize(
    "text, rule",
    [
        ("f32[1,1,1,1,1,1,1]", "too-many-dims"),
        ("f32[2] strided(4,4)", "stride-count"),
        ("bf16[2,3] mla-tiled(roles=HC, tile=(1,2,1,16), align=48)", "align-not-power-of-two"),
        ("f64[2]", "syntax"),
    ],
)
def test_spec_errors_are_value_errors_naming_the_rule(text, rule):
    with pytest.raises(TensorError) as info:
        TensorSpec.parse(text)
    assert isinstance(info.value, ValueError)
    assert info.value.rule == rule
    assert str(info.value).startswith(rule + ":")


def test_prepare_rejections_name_the_rule():
    with pytest.raises(ValueError, match="overlapping-strides") as info:
        prepare(Op.Cast, ["f32[3,2] strided(8,12)"], ["bf16[3,2]"])
    assert info.value.rule == "overlapping-strides"
    with pytest.raises(TensorError, match="zero-stride"):
        prepare("cast", ["f32[3,2] strided(0,4)"], ["bf16[3,2]"])
    with pytest.raises(TensorError, match="port-count"):
        prepare(Op.Cast, ["f32[3]", "f32[3]"], ["bf16[3]"])
    with pytest.raises(ValueError, match="unknown op"):
        prepare("gemm", ["f32[3]"], ["f32[3]"])
    with pytest.raises(TypeError):
        prepare(Op.Cast, "f32[3]", ["f32[3]"])


def test_plan_states_requirements():
    plan = prepare(Op.Cast, [TensorSpec("f32[2,3] strided(16,4)")], ["bf16[2,3] strided(8,2)"])
    assert plan.op == Op.Cast and plan.op.name == "cast"
    assert (plan.inputs[0].bytes, plan.inputs[0].align) == (28, 4)
    assert (plan.outputs[0].bytes, plan.outputs[0].align) == (14, 2)
    assert plan.outputs[0].spec == TensorSpec("bf16[2,3] strided(8,2)")
    tiled = "bf16[4] mla-tiled(roles=C, tile=(1,1,1,16), align=64)"
    assert Op.conversion("f32[4]", tiled) == Op.CastTess
    assert Op.conversion(tiled, "f32[4]") == Op.CastUntess


# --- running plans on buffers ------------------------------------------------------------


def test_run_casts_in_place_and_leaves_row_gaps_unchanged():
    """The spec's example: f32 [2,3] strides (16,4) to bf16 strides (8,2)."""
    src = np.zeros(7, np.float32)  # 28 bytes
    values = np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5
    src[0:3], src[4:7] = values[0], values[1]
    out = np.full(7, 0xAAAA, np.uint16)  # 14 bytes
    plan = prepare(Op.Cast, ["f32[2,3] strided(16,4)"], ["bf16[2,3] strided(8,2)"])
    assert plan.run([src], [out]) is None
    assert list(out[[0, 1, 2, 4, 5, 6]]) == list(bf16_bits(values).reshape(-1))
    assert out[3] == 0xAAAA  # the row gap


def test_run_accepts_any_buffer_protocol_object():
    src = bytearray(np.arange(4, dtype=np.float32).tobytes())
    out = bytearray(8)
    prepare(Op.Cast, ["f32[4]"], ["f16[4]"]).run([memoryview(src)], [out])
    assert np.frombuffer(out, np.float16).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_run_thread_counts_give_identical_bytes():
    """Plan.run(threads=n) splits the work (the caller chooses the thread count); every
    count, and the automatic default, gives the same bytes."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 57, 55, 40)).astype(np.float32)  # 2 MiB: threads by default
    to = "bf16[4,57,55,40] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)"
    plan = prepare(Op.CastTess, ["f32[4,57,55,40]"], [to])
    outs = []
    for threads in [None, 0, 1, 2, 3]:
        out = np.full(plan.outputs[0].bytes, 0xAB, np.uint8)
        plan.run([x], [out], threads=threads)
        outs.append(out)
    assert all((o == outs[0]).all() for o in outs)
    with pytest.raises(OverflowError):
        plan.run([x], [outs[0]], threads=-1)


def test_run_rejections_change_no_output_byte():
    plan = prepare(Op.Cast, ["f32[4]"], ["f32[4]"])
    src = np.arange(4, dtype=np.float32)
    small = np.full(3, 7, np.float32)
    with pytest.raises(TensorError, match="capacity-too-small") as info:
        plan.run([src], [small])
    assert info.value.rule == "capacity-too-small" and (small == 7).all()
    raw = np.full(20, 7, np.uint8)
    with pytest.raises(TensorError, match="misaligned-address"):
        plan.run([src], [raw[1:17]])
    assert (raw == 7).all()
    same = np.arange(4, dtype=np.float32)
    with pytest.raises(TensorError, match="intersecting-spans"):
        plan.run([same], [same])
    with pytest.raises(TensorError, match="port-count"):
        plan.run([src, src], [same])
    with pytest.raises(ValueError, match="writable"):
        plan.run([src], [bytes(16)])
    with pytest.raises(TypeError, match="buffer protocol"):
        plan.run([[0.0, 1.0, 2.0, 3.0]], [same])
    with pytest.raises(ValueError, match="negative stride"):
        plan.run([np.arange(8, dtype=np.float32)[::-2]], [np.empty(4, np.float32)])


def test_run_releases_the_gil_while_the_kernel_runs():
    """Another Python thread keeps running during a long cast."""
    n = 1 << 24
    src = np.ones(n, np.float32)
    out = np.empty(n, np.uint16)
    plan = prepare(Op.Cast, [f"f32[{n}]"], [f"bf16[{n}]"])
    window = []

    def work():
        for _ in range(4):
            t0 = time.perf_counter()
            plan.run([src], [out])
            window.append((t0, time.perf_counter()))

    ticks = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
    t.join()
    inside = [x for a, b in window for x in ticks if a + 0.25 * (b - a) < x < b - 0.25 * (b - a)]
    assert inside, "no Python bytecode ran while the kernel ran"


# --- pack / unpack --------------------------------------------------------------------


def test_pack_matches_the_numpy_reference_and_unpack_round_trips():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 5, 7, 20)).astype(np.float32)
    packed = pack(x, TILED)
    assert packed.dtype == np.uint8 and packed.shape == (TensorSpec(TILED).required_bytes,)
    assert np.array_equal(packed, reference_mla_tiled(x, (1, 4, 4, 16)))
    back = unpack(packed, TILED, "f32")
    assert back.shape == x.shape and back.dtype == np.float32
    assert np.array_equal(bf16_bits(back), bf16_bits(x))


def test_pack_reads_a_strided_view_in_place():
    base = np.arange(4 * 32, dtype=np.float32).reshape(4, 32)
    view = base[:, ::2]
    assert spec_of(view) == TensorSpec("f32[4,16] strided(128,8)")
    out = pack(view, "f16[4,16]")
    assert out.dtype == np.float16 and np.array_equal(out, view.astype(np.float16))


def test_bfloat16_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)
    y = pack(x, "bf16[4,6]")
    assert y.dtype == np.dtype(ml_dtypes.bfloat16)
    assert np.array_equal(y, x.astype(ml_dtypes.bfloat16))
    assert spec_of(y) == TensorSpec("bf16[4,6] contiguous")
    assert np.array_equal(pack(y, "f32[4,6]"), y.astype(np.float32))


def test_bfloat16_as_raw_uint16_without_ml_dtypes(monkeypatch):
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # import ml_dtypes -> ImportError
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)
    y = pack(x, "bf16[4,6]")
    assert y.dtype == np.uint16
    assert np.array_equal(y, bf16_bits(x))
    with pytest.raises(ValueError, match="pass the spec, e.g. pack.*from_spec="):
        spec_of(y)
    with pytest.raises(ValueError, match="from_spec="):
        pack(y, "f32[4,6]")
    assert np.array_equal(bf16_bits(pack(y, "f32[4,6]", from_spec="bf16[4,6]")), y)


def test_argmax_plan_on_arrays():
    x = np.array([[1.0, 5.0, 5.0], [np.nan, 0.0, 9.0]], np.float32)
    out = np.empty(2, np.int64)
    prepare(Op.argmax(1), ["f32[2,3]"], ["i64[2]"]).run([x], [out])
    assert out.tolist() == [1, 0]
    assert repr(Op.argmax(1)) == "Op.argmax(1)"


def test_run_rejects_a_typed_array_of_another_dtype():
    """Only the byte count of a binding is checked by the kernel, so an int64 array for
    an i32 Argmax output (pairs of int32 read as one int64) or float32 values of packed
    bytes would silently be the wrong elements: a typed array must hold the port's
    dtype, and one-byte arrays and untyped buffers are raw bytes."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    plan = prepare(Op.argmax(1), ["f32[3,4]"], ["i32[3]"])
    wrong = np.full(6, 7, np.int64)[:3]
    with pytest.raises(TypeError, match=r"output 0: an array of dtype int64 is bound to a port of i32\[3\]"):
        plan.run([x], [wrong])
    assert (wrong == 7).all()
    with pytest.raises(TypeError, match=r"input 0: an array of dtype float64"):
        plan.run([x.astype(np.float64)], [np.empty(3, np.int32)])
    out = np.empty(3, np.int32)
    plan.run([x], [out])
    assert out.tolist() == [3, 3, 3]
    raw = np.zeros(12, np.uint8)
    plan.run([x.view(np.uint8)], [raw])
    assert raw.view(np.int32).tolist() == [3, 3, 3]
    packed = pack(np.ones((1, 5, 7, 20), np.float32), TILED)
    with pytest.raises(TypeError, match="elements are bf16"):
        unpack(packed.astype(np.float32), TILED, "f32")
    bits = packed.view(np.uint16)  # raw bf16 bits are accepted
    assert (unpack(bits, TILED, "f32") == 1.0).all()


def test_argmax_negative_axis_names_the_rule():
    with pytest.raises(TensorError, match="axis-out-of-range: axis -1: axes count from 0") as info:
        Op.argmax(-1)
    assert info.value.rule == "axis-out-of-range"


def test_pack_of_a_list_says_what_it_became():
    with pytest.raises(ValueError, match="a list becomes float64"):
        pack([1.0, 2.0], "bf16[2]")


def test_pack_errors_name_the_rule():
    with pytest.raises(TensorError, match="dims-mismatch"):
        pack(np.zeros((2, 3), np.float32), "bf16[3,2]")
    with pytest.raises(ValueError, match="no tensor dtype"):
        pack(np.zeros(3, np.float64), "bf16[3]")


def test_package_exports():
    for name in strideweave.__all__:
        assert hasattr(strideweave, name), name
