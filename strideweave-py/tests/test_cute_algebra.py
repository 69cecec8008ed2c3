"""CuTe's further algebra from Python: each method equals the `eval` language's answer for
the same expression (both run in the Rust core), and the laws hold by brute force."""

import pytest

from strideweave import Layout, Shape, eval as sw_eval


def brute(lay, i):
    return lay(i)


@pytest.mark.parametrize(
    "method, a, b, expr",
    [
        ("flat_divide", "(8,8):(8,1)", [Layout("2:1"), Layout("4:1")], "flat_divide((8,8):(8,1), [2:1,4:1])"),
        ("zipped_product", "(2,2):(1,2)", [Layout("3:1"), Layout("2:1")], "zipped_product((2,2):(1,2), [3:1,2:1])"),
        ("tiled_product", "(2,2):(1,2)", [Layout("3:1"), Layout("2:1")], "tiled_product((2,2):(1,2), [3:1,2:1])"),
        ("flat_product", "(2,2):(1,2)", [Layout("3:1"), Layout("2:1")], "flat_product((2,2):(1,2), [3:1,2:1])"),
    ],
)
def test_arranged_products_and_divides_match_eval(method, a, b, expr):
    """WHEN a product or divide arrangement is called as a method THEN it equals eval's."""
    assert getattr(Layout(a), method)(b) == sw_eval(expr)


def test_tile_to_shape_covers_the_shape_with_copies_of_the_block():
    """WHEN a 2x2 block tiles a 4x6 shape THEN the result has size 24 and is a bijection."""
    t = Layout("(2,2):(1,2)").tile_to_shape(Shape(4, 6))
    assert t == sw_eval("tile_to_shape((2,2):(1,2), (4,6))")
    assert t.size == 24
    assert sorted(t(i) for i in range(24)) == list(range(24))


def test_upcast_then_downcast_round_trips():
    """WHEN a contiguous layout is upcast by 2 and downcast by 2 THEN the function returns."""
    lay = Layout("(4,8):(1,4)")
    up = lay.upcast(2)
    assert up == sw_eval("upcast((4,8):(1,4), 2)")
    back = up.downcast(2)
    assert [back(i) for i in range(back.size)] == [lay(i) for i in range(lay.size)]


def test_structure_and_common_vectors():
    """WHEN flatten, group and the common-vector queries are called THEN eval agrees."""
    lay = Layout("((2,3),(4,5)):((1,2),(6,24))")
    assert lay.flatten() == Layout("(2,3,4,5):(1,2,6,24)")
    assert lay.flatten().group(1, 3) == sw_eval("group((2,3,4,5):(1,2,6,24), 1, 3)")
    a, b = Layout("(4,8):(1,4)"), Layout("(4,8):(8,1)")
    assert a.max_common_vector(a) == 32
    assert a.max_common_vector(b) == 1
    assert a.max_common_layout(a) == sw_eval("max_common_layout((4,8):(1,4), (4,8):(1,4))")


def test_nullspace_and_make_layout_like_match_eval():
    """WHEN nullspace and make_layout_like are called THEN eval agrees."""
    lay = Layout("(2,3,4):(0,1,0)")
    assert lay.nullspace() == sw_eval("nullspace((2,3,4):(0,1,0))")
    lay = Layout("(2,3):(3,1)")
    assert lay.make_layout_like() == sw_eval("make_layout_like((2,3):(3,1))")


def test_bad_recast_raises_value_error():
    """WHEN a layout without a stride-1 mode is downcast THEN ValueError names the rule."""
    with pytest.raises(ValueError):
        Layout("4:2").downcast(3)
