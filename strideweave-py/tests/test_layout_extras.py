"""Layout operations of the Rust core added under their Rust names: tilers with CuTe's `_`
(`None`) entries, `recast`, `coalesce_by`, `select`, `replace`, `make_ordered_layout`."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from strideweave import Layout, Shape

from test_layout_properties import brute, layouts


def test_a_none_tile_keeps_its_mode_like_cutes_underscore():
    """WHEN a tiler holds None THEN that mode is kept as it is (compose_by_mode & co)."""
    a = Layout("(12,(4,8)):(59,(13,1))")
    assert a.compose([None, Layout("8:2")]) == Layout("(12,(2,4)):(59,(26,1))")
    b = Layout("(8,8):(8,1)")
    assert b.divide([None, Layout("4:1")]) == b.divide_tiler((None, Layout("4:1"))) == Layout("(8,(4,2)):(8,(1,4))")
    assert b.logical_product([None, Layout("2:1")]).get(0) == b.get(0)
    assert b.compose([None, None]) == b
    with pytest.raises(TypeError, match="not a Layout or None"):
        b.compose([None, 3])


@given(layouts(budget=64), st.data())
def test_compose_with_holes_equals_compose_with_identity_tiles(a, data):
    """Law: a None entry acts as the identity tile of that mode (same function)."""
    holes = [data.draw(st.booleans()) for _ in range(a.rank)]
    with_none = [None if h else Layout(f"{a[i].size}:1") for i, h in enumerate(holes)]
    full = [Layout(f"{a[i].size}:1") for i in range(a.rank)]
    r, s = a.compose(with_none), a.compose(full)
    assert [brute(r, k) for k in range(r.size)] == [brute(s, k) for k in range(s.size)]


def test_recast_coalesce_by_select_replace_make_ordered_layout():
    """WHEN the remaining Rust names are called THEN they give the core's results."""
    l = Layout("(4,8):(1,4)")
    assert l.recast(16, 32) == Layout("(2,8):(1,2)") and l.recast(16, 8) == Layout("(8,8):(1,8)")
    assert Layout("(2,(1,6)):(1,(6,2))").coalesce_by((1, 1)) == Layout("(2,6):(1,2)")
    m = Layout("(2,(3,4),5):(1,(2,6),24)")
    assert m.select(2, 0) == m.select([2, 0]) == Layout("(5,2):(24,1)")
    with pytest.raises(ValueError):
        m.select(3)
    with pytest.raises(ValueError):
        m.select(-1)
    assert Layout("(2,3):(1,2)").replace(1, Layout("(4,5):(6,24)")) == Layout("(2,(4,5)):(1,(6,24))")
    with pytest.raises(ValueError):
        Layout("(2,3):(1,2)").replace(2, Layout("4:1"))
    assert Layout.make_ordered_layout(Shape(2, 2, 2, 2), (0, 2, 3, 1)) == Layout("(2,2,2,2):(1,4,8,2)")
    with pytest.raises(ValueError, match="weakly congruent"):
        Layout.make_ordered_layout(Shape(2, 2), (0, 1, 2))
