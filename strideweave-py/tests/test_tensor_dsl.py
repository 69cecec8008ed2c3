"""The tensor DSL in Python (issue 10's DSL, CuTe-DSL style): `Tensor` views of NumPy
arrays and buffers, slicing with `_`, tiling and partitioning, `copy`/`copy_if`/`fill`,
identity tensors. Views are checked against brute-force index math on the raw memory."""

import array

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from strideweave import (
    CopyPlan,
    IdentityTensor,
    Layout,
    Shape,
    Stride,
    Tensor,
    copy,
    copy_if,
    fill,
    local_partition,
    local_tile,
    make_identity_tensor,
    tiled_divide,
    zipped_divide,
)

# --- construction: no copies, one bounds check ------------------------------------------


def test_a_tensor_views_the_array_without_copying():
    """WHEN a tensor is made of an array THEN writes through it land in the array."""
    a = np.zeros((4, 6), dtype=np.float32)
    t = Tensor(a, Layout("(4,6):(6,1)"))
    t[1, 2] = 7
    assert a[1, 2] == 7 and np.shares_memory(t.data, a)
    f = np.zeros((4, 6), order="F")
    Tensor(f, "(4,6):(1,4)")[3, 5] = 1          # column-major memory, column-major layout
    assert f[3, 5] == 1
    assert (t.layout, t.shape, t.size, t.rank) == (Layout("(4,6):(6,1)"), Shape(4, 6), 24, 2)


@pytest.mark.parametrize(
    "make",
    [bytearray, lambda n: array.array("i", [0] * n), lambda n: memoryview(bytearray(n)), lambda n: np.zeros(n, np.int8)],
    ids=["bytearray", "array", "memoryview", "numpy"],
)
def test_any_buffer_protocol_object_is_data(make):
    """WHEN the data is any contiguous buffer THEN elements are read and written in place."""
    data = make(12)
    t = Tensor(data, Layout("(3,4):(4,1)"))
    t[2, 3] = 5
    assert data[11] == 5 and t[2, 3] == 5 and t[11] == 5


def test_the_cosize_is_checked_once_and_named_with_the_data_length():
    """WHEN the layout reaches past the data THEN ValueError names the cosize and the length."""
    with pytest.raises(ValueError, match="cosize 24 but the data holds 20 elements"):
        Tensor(np.zeros(20), Layout("(4,6):(6,1)"))
    with pytest.raises(ValueError, match="not contiguous"):
        Tensor(np.zeros((4, 6))[:, ::2], Layout("(4,3):(1,4)"))
    with pytest.raises(TypeError):
        Tensor(np.zeros(4), 4)
    with pytest.raises(TypeError):
        Tensor(object(), Layout("4:1"))


# --- indexing and slicing ---------------------------------------------------------------


def test_elements_by_key_coordinate_and_mixed_forms():
    """WHEN a tensor is indexed THEN the core's layout gives the offset of every form."""
    a = np.arange(60)
    t = Tensor(a, "(3,(4,5)):(1,(3,12))")
    assert t[1, [2, 3]] == 1 + 6 + 36 == t[(1, (2, 3))]
    assert t[1, 14] == t[1, [2, 3]]                   # an integer for the sub-tree
    assert t[4] == t[1, [1, 0]] == 1 + 3
    assert [int(x) for x in t] == [t[k] for k in range(t.size)]
    with pytest.raises(ValueError):
        t[60]
    with pytest.raises(ValueError):
        t[3, 0]
    with pytest.raises(ValueError):
        t[-1]


def test_slicing_with_none_or_colon_keeps_modes_like_cutes_underscore():
    """WHEN a key holds None or `:` THEN the view keeps those modes and shares memory."""
    a = np.arange(60, dtype=np.uint32)
    t = Tensor(a, Layout("(3,(4,5)):(1,(3,12))"))
    column = t[None, (2, 3)]                          # CuTe's t(_, (2,3))
    assert column.layout == Layout("3:1") and column[2] == 2 + 2 * 3 + 3 * 12
    assert t[:, (2, 3)].layout == column.layout
    plane = t[1, (None, None)]
    assert plane.layout == Layout("(4,5):(3,12)") and plane[0] == 1
    assert t[None].layout == t.layout and t[:].size == 60
    assert t.mode(1).layout == Layout("(4,5):(3,12)")
    assert t.flatten().layout == Layout("(3,4,5):(1,3,12)")
    assert t.flatten().group(1, 3).layout == t.layout
    plane[3, 4] = 1000
    assert a[1 + 9 + 48] == 1000
    t[2, None] = 7                                    # fill a view
    assert all(a[2 + 3 * j] == 7 for j in range(20))
    with pytest.raises(TypeError, match="whole modes"):
        t[0:2, 1]
    with pytest.raises(ValueError):
        t[None, (1, 2, 3)]


def test_compose_views_through_a_composed_layout():
    """WHEN a tensor is composed with a shape THEN the view reads layout(B(k));
    a view past the data is handed out and its outside elements raise IndexError."""
    t = Tensor(np.arange(16), Layout("(4,4):(4,1)"))
    assert [int(x) for x in t.compose(Shape(2, 2))] == [0, 4, 1, 5]
    long = t.compose(Layout("32:1"))                  # (4,8):(4,1), padded past the 16 elements
    assert long.layout == Layout("(4,8):(4,1)") and long[15] == 15
    with pytest.raises(IndexError, match="key 19 .* offset 16, outside the data, which holds 16 elements"):
        long[19]


@st.composite
def matrices(draw):
    """A row- or column-major matrix whose extents are multiples of the tile."""
    tile = [draw(st.integers(1, 4)), draw(st.integers(1, 4))]
    counts = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    rows, cols = tile[0] * counts[0], tile[1] * counts[1]
    pad = draw(st.integers(0, 3))
    if draw(st.booleans()):
        strides = (cols + pad, 1)
    else:
        strides = (1, rows + pad)
    data = np.arange(rows * cols + pad * max(rows, cols) + 1, dtype=np.int64)
    return Tensor(data, Layout(Shape(rows, cols), Stride(*strides))), strides, tile, counts


def brute(strides, r, c):
    return r * strides[0] + c * strides[1]


@given(matrices(), st.data())
def test_tile_views_read_what_brute_force_index_math_reads(m, data):
    """Law: local_tile, zipped_divide and tiled_divide read element
    (tile * T + position) of the matrix, computed here by hand on the raw array."""
    t, strides, tile, counts = m
    raw = t.data
    t0, t1 = data.draw(st.integers(0, counts[0] - 1)), data.draw(st.integers(0, counts[1] - 1))
    view = local_tile(t, tile, [t0, t1])
    assert view.layout == t.local_tile(tile, [t0, t1]).layout
    z = zipped_divide(t, tile)
    d = tiled_divide(t, tile)
    for k in range(tile[0] * tile[1]):
        i, j = k % tile[0], k // tile[0]
        expect = raw[brute(strides, t0 * tile[0] + i, t1 * tile[1] + j)]
        assert view[k] == view[i, j] == expect
        assert z[[i, j], [t0, t1]] == expect
        assert d[[i, j], t0, t1] == expect


@given(matrices(), st.data())
def test_local_partition_gives_each_thread_its_elements(m, data):
    """Law: with threads arranged (P0,P1) (row- or column-major), thread `idx` at
    thread coordinate (a,b) owns the elements (x*P0 + a, y*P1 + b)."""
    t, strides, tile, counts = m
    threads = Layout.row_major(Shape(*tile)) if data.draw(st.booleans()) else Layout.col_major(Shape(*tile))
    idx = data.draw(st.integers(0, threads.size - 1))
    a, b = next((a, b) for a in range(tile[0]) for b in range(tile[1]) if threads([a, b]) == idx)
    mine = local_partition(t, threads, idx)
    assert mine.size == counts[0] * counts[1]
    for k in range(mine.size):
        x, y = k % counts[0], k // counts[0]
        assert mine[k] == t.data[brute(strides, x * tile[0] + a, y * tile[1] + b)]


def test_tiling_errors_name_the_problem():
    """WHEN a tile or thread is outside the grid or the tiler is wrong THEN the error names it;
    tiles that overhang unpadded data are views (see the edge-tile tests below)."""
    t = Tensor(np.arange(35), Layout("(5,7):(1,5)"))
    assert local_tile(t, [4, 4], [1, 1]).layout == Layout("(4,4):(1,5)")
    with pytest.raises(ValueError):
        local_tile(t, [4, 4], [2, 0])                 # the grid is 2x2
    with pytest.raises(ValueError):
        local_partition(t, Layout("(2,2):(1,2)"), 4)
    with pytest.raises(TypeError):
        zipped_divide(t, "4")
    with pytest.raises(TypeError):
        zipped_divide(np.arange(3), [2])
    assert zipped_divide(t, [4, 4]).layout == Layout("((4,4),(2,2)):((1,5),(4,20))")
    u = Tensor(np.arange(32), Layout("(4,8):(1,4)"))
    assert zipped_divide(u, [4, 4]).layout == u.zipped_divide([Layout("4:1"), Layout("4:1")]).layout
    assert zipped_divide(u, Shape(4, 4)).layout == zipped_divide(u, [4, 4]).layout


# --- copy and fill ----------------------------------------------------------------------


@st.composite
def copy_cases(draw):
    shape = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    orders = [Layout.col_major(Shape(shape)), Layout.row_major(Shape(shape))]
    src = draw(st.sampled_from(orders))
    dst = draw(st.sampled_from(orders))
    dtype = draw(st.sampled_from([np.int8, np.int16, np.float32, np.float64, np.complex128]))
    return src, dst, dtype


@given(copy_cases())
def test_copy_moves_every_key_like_brute_force(case):
    """Law: after copy(src, dst), dst[k] == src[k] for every key, for every element size."""
    ls, ld, dtype = case
    a = (np.arange(ls.cosize) + 1).astype(dtype)
    b = np.zeros(ld.cosize, dtype=dtype)
    copy(Tensor(a, ls), Tensor(b, ld))
    for k in range(ls.size):
        assert b[ld(k)] == a[ls(k)]


def test_copy_converts_numpy_dtypes_and_checks_sizes():
    """WHEN the dtypes differ (NumPy) THEN values convert; WHEN sizes differ THEN ValueError."""
    a = np.arange(32.0)
    c = np.zeros(32, dtype=np.int16)
    copy(Tensor(a, Layout("(4,8):(8,1)")), Tensor(c, Layout("(4,8):(1,4)")))
    assert c[4 * 5 + 3] == 29
    with pytest.raises(ValueError, match="has 32 elements but destination"):
        copy(Tensor(a, "32:1"), Tensor(np.zeros(16), "16:1"))
    with pytest.raises(TypeError):
        copy(Tensor(a, "4:1"), Tensor(bytearray(4), "4:1"))
    f = array.array("f", [0.0] * 4)                  # the same element type as float32
    copy(Tensor(np.arange(4, dtype=np.float32), "4:1"), Tensor(f, "4:1"))
    assert f.tolist() == [0.0, 1.0, 2.0, 3.0]
    ro = np.zeros(4)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        copy(Tensor(a, "4:1"), Tensor(ro, "4:1"))
    with pytest.raises(TypeError):
        copy(a, Tensor(a, "4:1"))


def test_copy_between_overlapping_views_reads_the_source_first():
    """WHEN source and destination share memory THEN the copy acts as through a temporary."""
    x = np.arange(16.0)
    copy(Tensor(x, "8:1"), Tensor(x[4:], "8:1"))
    assert x.tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15]
    mv = memoryview(bytearray(range(8)))
    copy(Tensor(mv, "4:1"), Tensor(mv, "4:2"))      # same buffer, strided destination
    assert list(mv) == [0, 1, 1, 3, 2, 5, 3, 7]


def test_fill_writes_every_key_and_nothing_else():
    """WHEN a view is filled THEN its elements take the value, others keep theirs."""
    a = np.zeros(8, dtype=np.uint8)
    fill(Tensor(a, Layout("(2,2):(1,4)")), 9)
    assert a.tolist() == [9, 9, 0, 0, 9, 9, 0, 0]
    b = bytearray(6)
    fill(Tensor(b, "3:2"), 1)
    assert list(b) == [1, 0, 1, 0, 1, 0]
    c = np.zeros(4, dtype=np.float32)
    fill(Tensor(c, "4:1"), 2.5)
    assert c.tolist() == [2.5] * 4
    r = np.zeros(3, dtype=[("x", np.int8), ("y", np.int8), ("z", np.int8)])
    fill(Tensor(r, "2:2"), (1, 2, 3))                # a 3-byte element: per-element path
    assert [tuple(v) for v in r] == [(1, 2, 3), (0, 0, 0), (1, 2, 3)]


def test_offsets_and_to_numpy_are_the_layout_in_key_order():
    """WHEN the whole index table is asked THEN it is layout(k) for each key k."""
    a = np.arange(12.0)
    t = Tensor(a, Layout("(3,4):(4,1)"))
    assert t.offsets().tolist() == [t.layout(k) for k in range(12)]
    assert t.to_numpy().tolist() == [a[t.layout(k)] for k in range(12)]
    assert repr(Tensor(np.arange(2), "2:1")) == "Tensor(2:1, [0, 1])"


# --- identity tensors and masked copies -----------------------------------------------


@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 4), st.integers(1, 4), st.data())
def test_identity_tiles_give_the_original_coordinates(rows, cols, t0, t1, data):
    """Law: element k of tile (a,b) of the identity tensor is (a*T0 + k%T0, b*T1 + k//T0),
    in bounds exactly when it lies inside (rows, cols)."""
    ident = make_identity_tensor(Shape(rows, cols))
    a = data.draw(st.integers(0, -(-rows // t0) - 1))
    b = data.draw(st.integers(0, -(-cols // t1) - 1))
    tile = local_tile(ident, [t0, t1], [a, b])
    mask = tile.mask()
    for k in range(t0 * t1):
        r, c = a * t0 + k % t0, b * t1 + k // t0
        assert tile[k] == (r, c)
        assert tile.in_bounds(k) == bool(mask[k]) == (r < rows and c < cols)
    assert tile.all_in_bounds() == ((a + 1) * t0 <= rows and (b + 1) * t1 <= cols)


def test_identity_tensor_values_and_errors():
    """WHEN an identity tensor is built and read THEN it is the Rust DSL's."""
    ident = IdentityTensor(Shape(2, 3))
    assert make_identity_tensor((2, 3))[4] == (0, 2) == ident[4] == ident.coord(4)
    assert (ident.size, ident.rank, ident.mode_layout(1)) == (6, 2, Layout("(2,3):(0,1)"))
    assert zipped_divide(ident, [2, 2]).size == 8 and tiled_divide(ident, [2, 2]).size == 8
    assert local_partition(ident, Layout("2:1"), 1)[0] == (1, 0)
    with pytest.raises(ValueError):
        ident[6]
    with pytest.raises(TypeError):
        ident[0, 1]
    with pytest.raises(ValueError):
        ident.mode_layout(2)


def test_copy_if_with_an_identity_tile_copies_exactly_the_in_bounds_elements():
    """WHEN an edge tile is copied under its identity mask THEN only real elements move."""
    a = np.arange(64.0)                               # a 5x7 matrix, leading dimension 8
    t = Tensor(a, Layout("(5,7):(1,8)"))
    for tb in range(2):
        for ta in range(2):
            coords = local_tile(make_identity_tensor(Shape(5, 7)), [4, 4], [ta, tb])
            regs = np.full(16, -1.0)
            copy_if(coords, local_tile(t, [4, 4], [ta, tb]), Tensor(regs, "(4,4):(1,4)"))
            for k in range(16):
                r, c = 4 * ta + k % 4, 4 * tb + k // 4
                assert regs[k] == (a[r + 8 * c] if r < 5 and c < 7 else -1.0)
    b = np.zeros(4)
    copy_if(lambda k: k % 2 == 1, Tensor(np.arange(4.0), "4:1"), Tensor(b, "4:1"))
    assert b.tolist() == [0, 1, 0, 3]
    with pytest.raises(ValueError, match="covers 16 elements"):
        copy_if(coords, Tensor(np.arange(4.0), "4:1"), Tensor(b, "4:1"))
    with pytest.raises(TypeError):
        copy_if(3, Tensor(np.arange(4.0), "4:1"), Tensor(b, "4:1"))


def test_bfloat16_arrays_copy_and_fill_through_the_byte_path():
    """WHEN the data are ml_dtypes bfloat16 arrays THEN copy and fill move their 2-byte elements."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.arange(16, dtype=np.float32).astype(ml_dtypes.bfloat16)
    b = np.zeros(16, dtype=ml_dtypes.bfloat16)
    copy(Tensor(a, "(4,4):(4,1)"), Tensor(b, "(4,4):(1,4)"))
    assert b.astype(np.float32).reshape(4, 4).T.ravel().tolist() == list(range(16))
    fill(Tensor(b, "4:4"), 2.5)
    assert b.astype(np.float32)[::4].tolist() == [2.5] * 4
    c = np.zeros(16, np.float32)
    copy(Tensor(a, "16:1"), Tensor(c, "16:1"))          # bf16 -> f32 by NumPy
    assert c.tolist() == list(range(16))


def test_a_copy_plan_is_made_once_and_checks_its_layouts():
    """WHEN a plan is made for two layouts THEN it names the common run and copies only those layouts."""
    plan = CopyPlan(Layout("(4,8):(8,1)"), Layout("(4,8):(16,1)"))
    assert (plan.vector, plan.runs) == (8, 4)
    a, b = np.arange(32.0), np.zeros(64)
    plan.copy(Tensor(a, "(4,8):(8,1)"), Tensor(b, "(4,8):(16,1)"))
    assert b[16 + 3] == 11 and b[8] == 0
    assert (CopyPlan(Layout("(4,8):(8,1)"), Layout("(4,8):(1,4)")).vector) == 1
    with pytest.raises(ValueError, match="copy plan for"):
        plan.copy(Tensor(a, "(4,8):(1,4)"), Tensor(b, "(4,8):(16,1)"))
    with pytest.raises(ValueError, match="elements"):
        CopyPlan(Layout("4:1"), Layout("8:1"))
    c = np.zeros(64, dtype=np.float32)                 # a dtype conversion: NumPy, same plan check
    plan.copy(Tensor(a, "(4,8):(8,1)"), Tensor(c, "(4,8):(16,1)"))
    assert c[16 + 3] == 11


# --- edge tiles of unpadded data (CuTe: views overhang, masks keep accesses inside) -----


def unpadded_5x7():
    a = np.arange(5 * 7, dtype=np.float32)
    return a, Tensor(a, Layout("(5,7):(7,1)"))


def test_an_edge_tile_of_unpadded_data_has_the_full_tile_shape():
    """WHEN the edge tile of a 5x7 matrix is taken by 4x4 tiles THEN it is CuTe's full 4x4
    view whose in-data elements read the matrix and whose data holds what is left."""
    a, m = unpadded_5x7()
    t = local_tile(m, [4, 4], [1, 1])
    assert t.layout == Layout("(4,4):(7,1)") and t.size == 16
    assert len(t.data) == 3 and np.shares_memory(t.data, a)
    assert [float(t[0, j]) for j in range(3)] == [32.0, 33.0, 34.0]
    assert t.offsets().tolist()[:2] == [0, 7]
    assert repr(t).startswith("Tensor((4,4):(7,1), [32.0, --, --, --, 33.0")


def test_reading_or_writing_outside_the_data_raises_index_error_naming_key_offset_and_length():
    """WHEN an element of an overhanging view lies outside the data THEN IndexError names
    the key, its offset and the data length, and nothing is written."""
    a, m = unpadded_5x7()
    t = local_tile(m, [4, 4], [1, 1])
    with pytest.raises(IndexError, match=r"key \(1, 0\) .* offset 7, outside the data, which holds 3 elements"):
        t[1, 0]
    with pytest.raises(IndexError, match="key 5 .* offset 8"):
        t[5] = 1.0
    with pytest.raises(IndexError, match="key 1 "):
        list(t)
    with pytest.raises(IndexError, match="key 1 "):
        t.to_numpy()
    assert a.tolist() == list(range(35))


def test_a_view_starting_past_the_end_of_the_data_says_so():
    """WHEN a slice of an edge tile lies wholly past the data THEN its data is empty and
    every access names how far past the end the view starts."""
    _, m = unpadded_5x7()
    row = local_tile(m, [4, 4], [1, 1])[3, None]       # row 7 of a 5-row matrix
    assert row.layout == Layout("4:1") and len(row.data) == 0
    with pytest.raises(IndexError, match="starts 18 elements past its end"):
        row[0]
    assert row.offsets().tolist() == [18, 19, 20, 21]
    assert repr(row) == "Tensor(4:1, [--, --, --, --])"
    out = np.full(4, -1.0)
    copy_if(lambda k: False, row, Tensor(out, "4:1"))   # nothing kept: nothing touched
    assert out.tolist() == [-1.0] * 4
    with pytest.raises(ValueError, match="key 0 of the source 4:1 is at offset 0, outside its data, which holds 0 elements"):
        copy_if(lambda k: True, row, Tensor(out, "4:1"))


def test_copy_and_fill_of_an_overhanging_view_name_the_sizes():
    """WHEN copy or fill would touch elements outside the data THEN ValueError names the
    cosize and the data length, and nothing changes."""
    a, m = unpadded_5x7()
    t = local_tile(m, [4, 4], [1, 1])
    regs = Tensor(np.zeros(16, np.float32), "(4,4):(1,4)")
    with pytest.raises(ValueError, match=r"source \(4,4\):\(7,1\) has cosize 25 but its data holds 3 elements"):
        copy(t, regs)
    with pytest.raises(ValueError, match="destination .* cosize 25 but its data holds 3"):
        copy(regs, t)
    with pytest.raises(ValueError, match="fill: .* cosize 25 but its data holds 3"):
        fill(t, 1)
    with pytest.raises(ValueError, match="cosize 25"):
        t[None, None] = 1
    with pytest.raises(ValueError, match=r"copy_if: key 1 of the source .* offset 7, outside its data, which holds 3"):
        copy_if(lambda k: k < 2, t, regs)
    assert a.tolist() == list(range(35))
    with pytest.raises(ValueError, match="cosize 36 but the data holds 35"):
        Tensor(a, Layout("(4,9):(9,1)"))              # the constructor still checks


def test_a_masked_copy_of_an_unpadded_edge_tile_loads_and_stores_only_the_data():
    """WHEN copy_if is masked by the matching identity tile THEN the edge tile loads into
    registers and stores back touching only the in-data elements, for every data kind."""
    for make in (lambda: np.arange(35, dtype=np.float32), lambda: array.array("f", range(35))):
        a = make()
        m = Tensor(a, Layout("(5,7):(7,1)"))
        coords = local_tile(make_identity_tensor(Shape(5, 7)), [4, 4], [1, 1])
        regs = np.full(16, -1, np.float32)
        copy_if(coords, local_tile(m, [4, 4], [1, 1]), Tensor(regs, "(4,4):(1,4)"))
        assert regs.tolist() == [32, -1, -1, -1, 33, -1, -1, -1, 34] + [-1] * 7
        copy_if(coords, Tensor(regs * 2, "(4,4):(1,4)"), local_tile(m, [4, 4], [1, 1]))
        assert list(a) == list(range(32)) + [64, 66, 68]
    wide = np.zeros(16)                               # float32 -> float64: NumPy converts
    a = np.arange(35, dtype=np.float32)
    copy_if(coords, local_tile(Tensor(a, "(5,7):(7,1)"), [4, 4], [1, 1]), Tensor(wide, "(4,4):(1,4)"))
    assert wide[[0, 4, 8]].tolist() == [32, 33, 34]


def test_partitions_of_unpadded_data_mask_like_cute():
    """WHEN threads partition an unpadded 5x7 matrix THEN each thread's masked copy reads
    exactly its in-bounds elements."""
    a, m = unpadded_5x7()
    threads = Layout("(2,2):(2,1)")
    ident = make_identity_tensor(Shape(5, 7))
    for idx in range(4):
        coords = local_partition(ident, threads, idx)
        out = np.full(coords.size, -1, np.float32)
        copy_if(coords, local_partition(m, threads, idx), Tensor(out, Layout(f"{coords.size}:1")))
        for k in range(coords.size):
            r, c = coords[k]
            assert out[k] == (a[r * 7 + c] if coords.in_bounds(k) else -1)


@st.composite
def edge_cases(draw):
    rows, cols = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    tile = [draw(st.integers(1, 5)), draw(st.integers(1, 5))]
    row_major = draw(st.booleans())
    dtype = draw(st.sampled_from([np.int8, np.float32, np.float64]))
    return rows, cols, tile, row_major, dtype


@given(edge_cases())
def test_masked_copy_if_of_every_edge_tile_equals_the_numpy_reference(case):
    """Law: on unpadded data, copy_if(identity tile, data tile, regs) of every tile gives
    ref[T*a + i, T*b + j] inside the matrix and leaves the rest; storing it back into a
    zero matrix rebuilds the matrix exactly (no element outside is touched)."""
    rows, cols, (t0, t1), row_major, dtype = case
    ref = (np.arange(rows * cols) + 1).astype(dtype).reshape(rows, cols)
    data = ref.ravel(order="C" if row_major else "F").copy()
    layout = Layout(Shape(rows, cols), Stride(cols, 1) if row_major else Stride(1, rows))
    m = Tensor(data, layout)
    back = np.zeros_like(data)
    mb = Tensor(back, layout)
    ident = make_identity_tensor(Shape(rows, cols))
    for a in range(-(-rows // t0)):
        for b in range(-(-cols // t1)):
            coords = local_tile(ident, [t0, t1], [a, b])
            regs = np.full(t0 * t1, -1, dtype)
            r = Tensor(regs, Layout(Shape(t0, t1), Stride(1, t0)))
            copy_if(coords, local_tile(m, [t0, t1], [a, b]), r)
            expect = np.full((t0, t1), -1, dtype)
            block = ref[a * t0:(a + 1) * t0, b * t1:(b + 1) * t1]
            expect[: block.shape[0], : block.shape[1]] = block
            assert regs.tolist() == expect.ravel(order="F").tolist()
            copy_if(coords, r, local_tile(mb, [t0, t1], [a, b]))
    assert back.tolist() == data.tolist()
