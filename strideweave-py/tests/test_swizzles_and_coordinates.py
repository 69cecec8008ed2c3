"""Swizzles, swizzled layouts (`ComposedLayout`), coordinate layouts (`CoordLayout`,
`Basis`) and `complement` with a shape cotarget: the Rust core's types in Python, checked
against brute force where a law says what they must compute."""

import ast
import pickle

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import strideweave
from strideweave import Basis, ComposedLayout, CoordLayout, Layout, Shape, Stride, Swizzle

from test_layout_properties import brute, image, injective, layouts


# --- Swizzle ---------------------------------------------------------------------------


@st.composite
def swizzles(draw):
    bits = draw(st.integers(0, 4))
    base = draw(st.integers(0, 4))
    shift = draw(st.integers(bits, 6)) * draw(st.sampled_from([1, -1]))
    assume(abs(shift) >= bits)
    return Swizzle(bits, base, shift)


def brute_swizzle(sw, x):
    """CuTe's definition: XOR the YYY bits, moved down by S (up for S < 0), into x."""
    y = x & sw.yyy_mask
    return x ^ (y >> sw.shift if sw.shift >= 0 else y << -sw.shift)


def test_swizzle_is_built_from_bits_base_shift_or_notation():
    """WHEN a swizzle is built THEN both spellings give one value, printed as CuTe does."""
    sw = Swizzle(3, 4, 3)
    assert sw == Swizzle("Sw<3,4,3>") == strideweave.eval("Sw<3,4,3>")
    assert (sw.bits, sw.base, sw.shift, str(sw), repr(sw)) == (3, 4, 3, "Sw<3,4,3>", "Swizzle(3, 4, 3)")
    assert eval(repr(sw), vars(strideweave)) == sw
    assert (sw.yyy_mask, sw.zzz_mask, sw.code) == (0b1110000000, 0b1110000, 0b1111110000)
    assert hash(sw) == hash(Swizzle(3, 4, 3)) and sw != Swizzle(3, 4, -3)
    assert pickle.loads(pickle.dumps(sw)) == sw
    assert Swizzle.IDENTITY == Swizzle(0, 4, 3) and Swizzle.IDENTITY.is_identity


def test_invalid_swizzles_raise_value_error_naming_the_rule():
    """WHEN |S| < B or the masks pass bit 63 THEN ValueError names the rule."""
    with pytest.raises(ValueError, match="smaller than B = 3"):
        Swizzle(3, 4, 2)
    with pytest.raises(ValueError, match="64 bits"):
        Swizzle(1, 63, 1)
    with pytest.raises(ValueError, match="negative"):
        Swizzle(-1, 0, 1)
    with pytest.raises(TypeError):
        Swizzle(3, 4)
    with pytest.raises(ValueError):
        Swizzle("Sw<3,4>")


@given(swizzles(), st.integers(0, 1 << 14))
def test_swizzle_matches_cute_definition_and_is_its_own_inverse(sw, x):
    """Law: sw(x) is CuTe's XOR formula, and sw(sw(x)) == x."""
    assert sw(x) == sw.apply(x) == brute_swizzle(sw, x)
    assert sw(sw(x)) == x


@given(swizzles())
def test_swizzle_is_a_bijection_on_its_domain(sw):
    """Law: on [0, 2^(top bit)) the swizzle is a permutation (a bijection onto itself)."""
    top = max(sw.yyy_mask, sw.zzz_mask, 1).bit_length()
    domain = range(1 << top)
    assert sorted(sw(x) for x in domain) == list(domain)


def test_swizzle_from_masks_compose_upcast_downcast():
    """WHEN masks, compositions and recasts are asked THEN the core's answers come back."""
    assert Swizzle.from_masks(0b1000, 0b0100) == Swizzle(1, 2, 1)
    assert Swizzle.from_masks(0b1010, 0b0001) is None
    ab = Swizzle(1, 4, 3).compose(Swizzle(1, 5, 3))
    assert ab == Swizzle(1, 4, 3).compose_swizzle(Swizzle(1, 5, 3)) == Swizzle(2, 4, 3)
    assert all(ab(i) == Swizzle(1, 4, 3)(Swizzle(1, 5, 3)(i)) for i in range(1024))
    with pytest.raises(ValueError, match="same shift"):
        Swizzle(1, 4, 3).compose(Swizzle(1, 4, 4))
    with pytest.raises(TypeError):
        Swizzle(1, 4, 3).compose(3)
    assert Swizzle(3, 4, 3).upcast(2) == Swizzle(3, 3, 3)
    assert Swizzle(3, 3, 3).downcast(2) == Swizzle(3, 4, 3)
    with pytest.raises(ValueError, match="power of two"):
        Swizzle(3, 3, 3).upcast(3)


# --- ComposedLayout ------------------------------------------------------------------


def test_composed_layout_construction_and_notation_round_trip():
    """WHEN a swizzled layout is built any way THEN repr round-trips and eval agrees."""
    text = "Sw<3,4,3> o (8,64):(64,1)"
    c = ComposedLayout(text)
    assert c == ComposedLayout(Swizzle(3, 4, 3), Layout("(8,64):(64,1)")) == Swizzle(3, 4, 3).compose(Layout("(8,64):(64,1)"))
    assert c == strideweave.eval(text) and str(c) == text
    assert eval(repr(c), vars(strideweave)) == c and pickle.loads(pickle.dumps(c)) == c
    off = ComposedLayout(Swizzle(3, 0, 3), 24, Layout("8:1"))
    assert str(off) == "Sw<3,0,3> o 24 o 8:1" and eval(repr(off), vars(strideweave)) == off
    assert hash(c) == hash(ComposedLayout(text)) and c != off
    assert (c.swizzle, c.offset, c.layout) == (Swizzle(3, 4, 3), 0, Layout("(8,64):(64,1)"))
    assert (c.swizzle_portion(), c.nonswizzle_portion()) == (c.swizzle, c.layout)
    assert (c.size, c.cosize, c.rank, c.depth, c.shape, c.is_plain) == (512, 512, 2, 1, Shape(8, 64), False)
    assert ComposedLayout(Swizzle.IDENTITY, Layout("4:1")).is_plain
    with pytest.raises(TypeError):
        ComposedLayout(Layout("4:1"), Layout("4:1"))
    with pytest.raises(ValueError, match="overflows"):
        ComposedLayout(Swizzle(1, 0, 1), 2**64 - 1, Layout("4:1"))


@st.composite
def composed_layouts(draw):
    return ComposedLayout(draw(swizzles()), draw(st.integers(0, 100)), draw(layouts(budget=64)))


@given(composed_layouts(), st.data())
def test_composed_layout_call_is_swizzle_of_offset_plus_layout(c, data):
    """Law: c(i) == sw(offset + L(i)) for every key and coordinate, L evaluated by brute force."""
    k = data.draw(st.integers(0, c.size - 1))
    inner = brute(c.layout, k)
    assert c(k) == c.index(k) == brute_swizzle(c.swizzle, c.offset + inner)
    assert c(k) == c.swizzle(c.offset + c.layout(k))


def test_composed_layout_tiles_keep_the_swizzle():
    """WHEN a swizzled layout is tiled THEN the layout is tiled and the swizzle kept."""
    s = ComposedLayout("Sw<3,4,3> o (8,64):(64,1)")
    t = s.compose([Layout("8:1"), Layout("8:1")])
    assert t == ComposedLayout("Sw<3,4,3> o (8,8):(64,1)")
    assert s.compose(Shape(8, 8)) == t
    z = s.zipped_divide([Layout("8:1"), Layout("16:1")])
    assert str(z) == "Sw<3,4,3> o ((8,16),(1,4)):((64,1),(0,16))"
    assert z.layout == s.layout.zipped_divide([Layout("8:1"), Layout("16:1")])
    for op in ["tiled_divide", "divide_tiler", "divide"]:
        r = getattr(s, op)([Layout("2:1"), Layout("16:1")])
        assert r.layout == getattr(s.layout, op)([Layout("2:1"), Layout("16:1")]) and r.swizzle == s.swizzle
    for op in ["logical_product", "blocked_product", "raked_product"]:
        assert getattr(s, op)(Layout("2:1")).layout == getattr(s.layout, op)(Layout("2:1"))
    assert s.coalesce().layout == s.layout.coalesce()
    assert s[1] == s.get(1) == ComposedLayout("Sw<3,4,3> o 64:1") and len(s) == 2
    row = ComposedLayout("Sw<3,0,3> o (8,8):(8,1)").fix_mode(0, 3)
    assert str(row) == "Sw<3,0,3> o 24 o 8:1"
    assert all(row(j) == ComposedLayout("Sw<3,0,3> o (8,8):(8,1)")([3, j]) for j in range(8))


def test_composed_layout_inverses_are_checked_inverses():
    """WHEN inverses of a swizzled layout are asked THEN they invert it on every point."""
    s = ComposedLayout("Sw<3,3,3> o (8,64):(64,1)")
    r = s.right_inverse()
    assert r == ComposedLayout("Sw<3,0,-6> o (64,8):(8,1)")
    assert all(s(r(i)) == i for i in range(r.size))
    t = ComposedLayout("Sw<2,0,-3> o (8,8):(8,1)")
    left = t.left_inverse()
    assert all(left(t(c)) == c for c in range(t.size))
    with pytest.raises(ValueError, match="offset"):
        ComposedLayout(Swizzle(1, 0, 1), 4, Layout("8:1")).right_inverse()


def test_layout_composed_with_a_swizzle_is_a_swizzled_layout():
    """WHEN a layout is composed with a swizzle THEN A(sw(i)) == result(i) for all i."""
    a = Layout("(8,8):(8,1)")
    r = a.compose(Swizzle(3, 0, 3))
    assert r == a.compose_swizzle(Swizzle(3, 0, 3)) == ComposedLayout("Sw<3,0,-3> o (8,8):(8,1)")
    assert all(a(Swizzle(3, 0, 3)(i)) == r(i) for i in range(64))
    b = ComposedLayout("Sw<3,0,3> o (8,8):(1,8)")
    rc = a.compose(b)
    assert rc == a.compose_composed(b)
    assert all(rc(i) == a(b(i)) for i in range(64))
    with pytest.raises(ValueError):
        Layout("(3,5):(5,1)").compose(Swizzle(1, 0, 1))


def test_swizzled_layout_draws_itself_in_notebooks():
    """WHEN a notebook shows a swizzled layout THEN it gets the SVG and the show table."""
    s = ComposedLayout("Sw<3,0,3> o (8,8):(8,1)")
    svg = s._repr_svg_()
    assert svg.startswith("<?xml") and "<svg" in svg and "Sw&lt;3,0,3&gt;" in svg
    assert s.svg() == svg
    html = s._repr_html_()
    assert html.startswith("<pre") and "Sw&lt;3,0,3&gt;" in html and "&lt;" in html
    assert "bits 3..5" in s.show()
    assert ComposedLayout(Swizzle(1, 0, 1), Layout("(200,200):(1,200)"))._repr_svg_() is None


# --- Basis and CoordLayout -----------------------------------------------------------


def test_basis_values():
    """WHEN a basis is built THEN it prints as CuTe (innermost first) and round-trips."""
    e = Basis(1, 0)
    assert e == Basis([1, 0]) and e.path == (1, 0) and str(e) == "@0@1" and repr(e) == "Basis(1, 0)"
    assert eval(repr(e), vars(strideweave)) == e and pickle.loads(pickle.dumps(e)) == e
    assert Basis(0) < Basis(1) and hash(Basis(2)) == hash(Basis(2))
    with pytest.raises(ValueError):
        Basis()
    with pytest.raises(ValueError, match="negative"):
        Basis(-1)
    with pytest.raises(ValueError):
        Basis(256)


def test_coord_layout_construction_and_notation_round_trip():
    """WHEN a coordinate layout is built any way THEN repr round-trips and eval agrees."""
    ident = CoordLayout.identity(Shape(4, 8))
    assert ident == CoordLayout("(4,8):(1@0,1@1)") == CoordLayout(Shape(4, 8), Stride(1, 1), [Basis(0), Basis(1)])
    assert ident == strideweave.eval("make_identity_layout((4,8))")
    assert eval(repr(ident), vars(strideweave)) == ident and pickle.loads(pickle.dumps(ident)) == ident
    assert str(CoordLayout.identity(Shape(2, [3, 4]))) == "(2,(3,4)):(1@0,(1@0@1,1@1@1))"
    assert (ident.shape, ident.size, ident.rank, ident.depth) == (Shape(4, 8), 32, 2, 1)
    assert ident.leaf_stride(1) == (1, Basis(1))
    assert CoordLayout("(2,3):(0,2@1)").leaf_stride(0) == (0, None)
    with pytest.raises(ValueError, match="no basis"):
        CoordLayout(Shape(4, 8), Stride(1, 1), [Basis(0), None])
    with pytest.raises(ValueError, match="basis directions"):
        CoordLayout(Shape(4, 8), Stride(1, 1), [Basis(0)])
    with pytest.raises(ValueError, match="integer or a tuple"):
        CoordLayout("(2,3):(1@0,1@0@0)")
    with pytest.raises(ValueError):
        ident.leaf_stride(2)


@given(st.data())
def test_identity_coord_layout_maps_a_key_to_its_coordinate(data):
    """Law: the identity layout of a flat shape maps key k to k's column-major coordinate."""
    shape = data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=3))
    ident = CoordLayout.identity(Shape(shape))
    k = data.draw(st.integers(0, ident.size - 1))
    coord, rest = [], k
    for e in shape:
        coord.append(rest % e)
        rest //= e
    expect = coord[0] if len(shape) == 1 else tuple(coord)
    assert ident(k) == ident.index(k) == expect
    assert ident(expect if len(shape) > 1 else [expect]) == expect


@given(st.data())
def test_tiled_identity_gives_the_coordinates_of_the_tiled_data(data):
    """Law: zipped_divide of the identity layout, read at key k, is the coordinate of the
    element that zipped_divide of the compact data layout reads at k (CuTe's masking)."""
    shape = data.draw(st.lists(st.integers(1, 4), min_size=2, max_size=2).map(lambda s: [2 * x for x in s]))
    tiler = [Layout(f"{data.draw(st.sampled_from([1, 2]))}:1") for _ in shape]
    data_layout = Layout.col_major(Shape(shape))
    tiled_data = data_layout.zipped_divide(tiler)
    tiled_ident = CoordLayout.identity(Shape(shape)).zipped_divide(tiler)
    for k in range(tiled_data.size):
        i, j = tiled_ident(k)
        assert data_layout([i, j]) == tiled_data(k)


def test_coord_layout_algebra():
    """WHEN a coordinate layout is composed, divided or coalesced THEN the core's results come back."""
    ident = CoordLayout.identity(Shape(4, 8))
    assert ident.compose(Layout("(2,4):(1,8)")) == CoordLayout("(2,4):(1@0,2@1)")
    z = ident.zipped_divide([Layout("2:1"), Layout("4:1")])
    assert z == CoordLayout("((2,4),(2,2)):((1@0,1@1),(2@0,4@1))") and z([[1, 3], [1, 0]]) == (3, 3)
    assert ident.zipped_divide(Shape(2, 4)) == z
    assert ident.tiled_divide([Layout("2:1"), Layout("4:1")]).rank == 3
    assert ident.divide_tiler([Layout("2:1"), Layout("4:1")]) == ident.divide([Layout("2:1"), Layout("4:1")])
    assert CoordLayout("(2,4,3):(1@0,2@0,1@1)").coalesce() == CoordLayout("(8,3):(1@0,1@1)")
    assert ident[1] == ident.get(1) == CoordLayout("8:1@1") and len(ident) == 2
    with pytest.raises(ValueError):
        ident(32)
    with pytest.raises(TypeError):
        ident.compose("x")


def test_eval_returns_the_new_classes():
    """WHEN eval gives a swizzle, a swizzled or coordinate layout or a pair THEN Python objects come back."""
    assert isinstance(strideweave.eval("Sw<2,0,-3>"), Swizzle)
    assert isinstance(strideweave.eval("Sw<2,0,-3> o (8,8):(8,1)"), ComposedLayout)
    assert isinstance(strideweave.eval("(4,8):(1@0,1@1)"), CoordLayout)
    assert strideweave.eval("slice_and_offset((4,(2,3)):(1,(4,8)), (_,(1,2)))") == (Layout("4:1"), 20)
    assert str(strideweave.eval("Sw<3,3,3> o (8,64):(64,1)")) == "Sw<3,3,3> o (8,64):(64,1)"


# --- complement with a shape cotarget --------------------------------------------------


def cute_ceil_div(shape, n):
    """CuTe's ceil_div(tuple, int): left to right, each mode eats what it can."""
    out = []
    for e in shape:
        out.append(-(-e // n))
        n = -(-n // e)
    return out


def weakly_congruent(s, t):
    """The specification's rule for a shape cotarget: every item of L's shape stands for
    an item of the cotarget (an integer stands for a whole subtree). `s` and `t` are
    nested lists read from the notation, so a one-item tuple `(1)` stays a tuple."""
    if isinstance(s, int):
        return True
    if isinstance(t, int):
        return False
    return len(s) == len(t) and all(weakly_congruent(x, y) for x, y in zip(s, t))


def tree(shape):
    """A shape's notation as nested Python lists (integers stay integers)."""
    return ast.literal_eval(str(shape).replace("(", "[").replace(")", "]"))


@given(layouts(budget=64), st.lists(st.integers(1, 12), min_size=1, max_size=3))
def test_complement_with_a_shape_follows_cute(a, cotarget):
    """Law (CuTe's complement(L, shape)): with span the end of L's chain, the result has
    L's gaps and then size(ceil_div(shape, span)) tiles of span; it is the integer
    complement whose cotarget is span * that count. A cotarget L's shape is not weakly
    congruent with, or smaller than L, is a ValueError."""
    if not weakly_congruent(tree(a.shape), cotarget if len(cotarget) > 1 else cotarget[0]):
        with pytest.raises(ValueError, match="congruent"):
            a.complement(Shape(cotarget))
        return
    if a.size > Shape(cotarget).size:
        # the specification's rule for any cotarget: the layout must fit in it
        with pytest.raises(ValueError, match="larger than cotarget"):
            a.complement(Shape(cotarget))
        return
    try:
        gaps = a.complement(a.size)
    except ValueError:
        with pytest.raises(ValueError):
            a.complement(Shape(cotarget))
        return
    flat = a.filter()
    span = max([e * d for e, d in zip(flat.shape.leaves, flat.stride.leaves)] + [1])
    tiles = 1
    for t in cute_ceil_div(cotarget, span):
        tiles *= t
    r = a.complement(Shape(cotarget))
    assert r == a.complement(tuple(cotarget)) == a.complement(span * tiles)
    assert r.size == gaps.size * tiles
    # the defining property: (L, complement) is injective
    assert injective(image(a + r))


def test_complement_with_a_shape_examples():
    """WHEN the cotarget is a shape THEN CuTe's tuple ceil_div decides the rest mode."""
    a = Layout(Shape(2, 2), Stride(1, 6))
    assert a.complement(Shape(4, 6)) == a.complement(24) == Layout("(3,2):(2,12)")
    # ceil_div((3,3), 12) is (1,1): no rest mode, where the integer 9 would give one
    assert a.complement((3, 3)) == Layout("3:2")
    assert Layout("2:1").complement(Shape(3, 3)) == Layout("6:2")   # (2,3) tiles, not ceil(9/2)
    with pytest.raises(TypeError, match="integer or a Shape"):
        a.complement("24")
    with pytest.raises(ValueError):
        a.complement(Shape(0))


# --- slicing coordinates with `_` (CuTe's slice, dice, slice_and_offset) --------------


def test_slice_and_dice_with_none_for_cutes_underscore():
    """WHEN a coordinate holds None or `:` (CuTe's `_`) THEN slice keeps, dice drops those modes."""
    a = Layout("(4,(2,3)):(1,(4,8))")
    assert a.slice_and_offset([None, [1, 2]]) == (Layout("4:1"), 20)
    assert a.slice_and_offset((slice(None), (1, 2))) == a.slice_and_offset([None, [1, 2]])
    assert a.slice_coord([None, [1, 2]]) == Layout("4:1")
    assert a.dice([None, [1, 2]]) == Layout("(2,3):(4,8)")
    assert Layout("(4,8,2):(1,4,32)").dice([None, 2, 1]) == Layout("(8,2):(4,32)")
    assert a.slice_and_offset([2, [None, 1]]) == (Layout("2:4"), 2 + 8)
    with pytest.raises(ValueError, match="does not match the hierarchy"):
        a.slice_and_offset([None, 1, 2])
    with pytest.raises(TypeError, match="whole modes"):
        a.slice_and_offset([slice(0, 2), 1])


@given(layouts(budget=64), st.data())
def test_slice_and_offset_is_the_layout_with_fixed_modes(lay, data):
    """Law: fixing top-level modes at random coordinates and keeping the rest, the slice
    at key k plus the offset is the layout at the coordinate with k in the kept modes."""
    keep = [data.draw(st.booleans()) for _ in range(lay.rank)]
    fixed = [data.draw(st.integers(0, lay[i].size - 1)) for i in range(lay.rank)]
    key = [None if keep[i] else fixed[i] for i in range(lay.rank)] if lay.rank > 1 else (None if keep[0] else fixed[0])
    sliced, offset = lay.slice_and_offset(key)
    kept = [i for i in range(lay.rank) if keep[i]]
    for k in range(sliced.size):
        coord, rest = list(fixed), k
        for i in kept:
            coord[i] = rest % lay[i].size
            rest //= lay[i].size
        full = coord if lay.rank > 1 else coord[0]
        assert sliced(k) + offset == lay(full)
