"""Hypothesis property tests against brute force, mirroring the Rust suite's algebra
laws (tests/algebra_laws.rs): indexing, composition, complement, division, coalesce and
the inverses, all through the Python API, checked against a plain-Python evaluator."""

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from strideweave import Layout, Shape, Stride

# --- strategies: hierarchical shapes with a size budget, and congruent strides ---------


@st.composite
def shape_trees(draw, budget=256, depth=0):
    """A list of items, each an extent or a nested list, whose product is <= budget."""
    items, size = [], 1
    for _ in range(draw(st.integers(1, 3))):
        if depth < 2 and draw(st.booleans()) and draw(st.booleans()):
            sub = draw(shape_trees(budget=max(1, budget // size), depth=depth + 1))
            items.append(sub)
            size *= tree_size(sub)
        else:
            e = draw(st.integers(1, max(1, min(6, budget // size))))
            items.append(e)
            size *= e
    return items


def tree_size(t):
    if isinstance(t, int):
        return t
    out = 1
    for x in t:
        out *= tree_size(x)
    return out


def leaves(t):
    return [t] if isinstance(t, int) else [v for x in t for v in leaves(x)]


def like(t, values):
    """A tree of `t`'s structure holding `values` in depth-first order."""
    it = iter(values)

    def rec(x):
        return next(it) if isinstance(x, int) else [rec(y) for y in x]

    return rec(t)


@st.composite
def layouts(draw, budget=256):
    """Any layout: random strides in 0..12 (collisions, holes, broadcasts)."""
    shape = draw(shape_trees(budget=budget))
    strides = draw(st.lists(st.integers(0, 12), min_size=len(leaves(shape)), max_size=len(leaves(shape))))
    return Layout(Shape(shape), Stride(like(shape, strides)))


@st.composite
def chain_layouts(draw, budget=256):
    """Injective layouts whose sorted strides chain (each a multiple of the span below)."""
    shape = draw(shape_trees(budget=budget))
    ext = leaves(shape)
    order = draw(st.permutations(range(len(ext))))
    strides, span = [0] * len(ext), 1
    for k in order:
        span *= draw(st.integers(1, 3))
        strides[k] = span
        span *= ext[k]
    return Layout(Shape(shape), Stride(like(shape, strides)))


# --- the oracle --------------------------------------------------------------------------


def flat(lay):
    return lay.shape.leaves, lay.stride.leaves


def brute(lay, i):
    """The spec's function on an integer key: mixed radix, first leaf fastest."""
    ext, dst = flat(lay)
    idx = 0
    for e, d in zip(ext, dst):
        idx += (i % e) * d
        i //= e
    return idx


def image(lay):
    return [brute(lay, i) for i in range(lay.size)]


def injective(values):
    return len(set(values)) == len(values)


def hierarchical(shape, i):
    """The nested coordinate of integer key `i` in the hierarchy of `shape` (a Shape)."""

    def rec(t, i):
        if isinstance(t, int):
            return i % t, i // t
        out = []
        for x in t:
            c, i = rec(x, i)
            out.append(c)
        return out, i

    tree = like_shape(shape)
    coord, _ = rec(tree, i)
    return coord


def like_shape(shape):
    """A Shape as nested Python lists (its items, recursively)."""
    if shape.rank == 1 and shape.depth == 0:
        return shape.leaves[0]
    return [like_shape(shape[k]) for k in range(shape.rank)]


# --- indexing ------------------------------------------------------------------------------


@given(layouts(budget=512))
def test_indexing_is_the_sum_of_leaf_coordinates_times_strides(lay):
    """Every indexing form returns sum(c_k * d_k); keys outside the domain raise."""
    for i in range(lay.size):
        want = brute(lay, i)
        assert lay(i) == want
        assert Layout.get_index(lay, i) == want
        if lay.rank > 1 or lay.depth > 0:
            assert lay(hierarchical(lay.shape, i)) == want
    with pytest.raises(ValueError, match="outside the shape domain"):
        lay(lay.size)
    assert lay.cosize == max(image(lay)) + 1


@given(layouts(budget=512))
def test_is_injective_matches_brute_force(lay):
    assert lay.is_injective == injective(image(lay))


# --- composition ---------------------------------------------------------------------------


@given(layouts(budget=1024), layouts(budget=128))
def test_compose_is_function_composition(a, b):
    """compose(A, B)(i) == A(B(i)) for every i < size(B) where B(i) is in A's domain;
    otherwise a ValueError naming a divisibility or overlap condition."""
    try:
        r = a.compose(b)
    except ValueError as e:
        assert any(w in str(e) for w in ("divisibility", "overlap", "overflow")), str(e)
        assert a.can_compose(b) is False
        return
    assert a.can_compose(b) is True
    assert r.size == b.size
    for i in range(b.size):
        j = brute(b, i)
        if j < a.size:
            assert r(i) == brute(a, j), (a, b, r, i)


@given(layouts(budget=1024), st.lists(st.integers(1, 6), min_size=1, max_size=3))
def test_compose_with_tiler_is_by_mode_and_keeps_trailing_modes(a, sizes):
    sizes = sizes[: a.rank]
    tiles = [Layout(Shape(s)) for s in sizes]
    try:
        r = a.compose(tiles)
    except ValueError:
        return
    assert r == a.compose(tuple(tiles)) == a.compose(Shape(sizes))
    for m, t in enumerate(tiles):
        assert r[m] == a[m].compose(t)
    for m in range(len(tiles), a.rank):
        assert r[m] == a[m]


# --- complement ----------------------------------------------------------------------------


@given(layouts(budget=256), st.integers(0, 64))
def test_complement_is_disjoint_and_fails_only_for_overlap_or_loose_chains(lay, extra):
    m = lay.size + extra
    inj = injective(image(lay))
    try:
        c = lay.complement(m)
    except ValueError as e:
        if not inj:
            assert "self-overlap" in str(e)
        else:
            assert "do not chain" in str(e), str(e)
        return
    assert inj
    both = [x + y for x in image(lay) for y in image(c)]
    assert injective(both), (lay, c)


@given(chain_layouts(budget=256), st.integers(1, 4))
def test_complement_of_a_chain_tiles_the_cotarget(lay, factor):
    span = max([e * d for e, d in zip(*flat(lay)) if e > 1], default=1)
    m = span * factor
    assume(m <= 8192)
    c = lay.complement(m)
    assert lay.size * c.size == m
    assert sorted(x + y for x in image(lay) for y in image(c)) == list(range(m))


# --- division, coalesce, inverses ----------------------------------------------------------


@given(layouts(budget=1024), chain_layouts(budget=64))
def test_divide_is_compose_with_tile_and_complement(a, b):
    try:
        d = a.divide(b)
    except ValueError:
        return
    if b.size > a.size:
        # a tile larger than the layout pads, as C++ CuTe does: one tile, A extended
        assert d.rank == 2 and d[0].size == b.size
        return
    c = b.complement(a.size)
    tile_and_rest = Layout(f"({b.shape},{c.shape}):({b.stride},{c.stride})")
    assert d.rank == 2 and d[0].size == b.size
    assert image(d) == image(a.compose(tile_and_rest))
    for i in range(tile_and_rest.size):
        j = brute(tile_and_rest, i)
        if j < a.size:
            assert d(i) == brute(a, j)


@given(layouts(budget=1024))
def test_coalesce_keeps_the_function(lay):
    c = lay.coalesce()
    assert c.size == lay.size
    assert image(c) == image(lay)
    assert c.depth <= 1


@given(layouts(budget=512))
def test_right_inverse_inverts_on_its_domain(lay):
    r = lay.right_inverse()
    for i in range(r.size):
        assert lay(r(i)) == i


@given(layouts(budget=512))
def test_left_inverse_is_cpp_cutes_inverse_or_quasi_inverse(lay):
    """C++ CuTe's left inverse: R(L(i)) == i for an injective L, L(R(L(i))) == L(i) for
    one with broadcast (stride-0) modes; an error names overlap or the divisibility rule."""
    try:
        inv = lay.left_inverse()
    except ValueError as e:
        msg = str(e)
        assert "self-overlap" in msg or "divisibility" in msg, msg
        if "self-overlap" in msg:
            assert not injective(image(lay))
        return
    if injective(image(lay)):
        for i in range(lay.size):
            assert inv(lay(i)) == i
    else:
        for i in range(lay.size):
            assert lay(inv(lay(i))) == lay(i)


# --- structure: rearrange, permute, broadcast, uniform preimage ----------------------------


@given(layouts(budget=512), st.randoms(use_true_random=False))
def test_rearrange_moves_leaves_by_id(lay, rnd):
    """Output Tree(Node.id(p0), ..., Node.Leaf, ...) places leaf p_j of the source at
    position j and 1:0 at each plain leaf; the function on the kept leaves is unchanged."""
    from strideweave import Node, Tree

    ext, dst = flat(lay)
    order = list(range(len(ext)))
    rnd.shuffle(order)
    items = [Node.id(k) for k in order]
    at = rnd.randrange(len(items) + 1)
    items.insert(at, Node.Leaf)
    got = lay.rearrange(Tree(*items))
    want_ext = [ext[k] for k in order]
    want_dst = [dst[k] for k in order]
    want_ext.insert(at, 1)
    want_dst.insert(at, 0)
    assert got.shape.leaves == want_ext and got.stride.leaves == want_dst
    assert sorted(image(got)) == sorted(image(lay))


@given(layouts(budget=512), st.randoms(use_true_random=False))
def test_permute_then_inverse_is_the_identity(lay, rnd):
    order = list(range(lay.rank))
    rnd.shuffle(order)
    inverse = [order.index(j) for j in range(lay.rank)]
    p = lay.permute(order)
    assert [p[j] for j in range(lay.rank)] == [lay[order[j]] for j in range(lay.rank)]
    assert p.permute(inverse) == lay


@given(layouts(budget=256), st.integers(1, 64))
def test_uniform_preimage_extent_matches_brute_force_counts(lay, n):
    """k is returned exactly when every target index in [0, n) has k preimages and no
    coordinate maps outside; None otherwise."""
    counts = [0] * n
    inside = True
    for j in image(lay):
        if j < n:
            counts[j] += 1
        else:
            inside = False
    uniform = inside and len(set(counts)) == 1 and counts[0] > 0
    got = lay.uniform_preimage_extent(Shape(n))
    assert got == (counts[0] if uniform else None), (lay, n, counts)


@given(shape_trees(budget=256), st.data())
def test_broadcast_widens_exactly_the_extent_one_leaves(shape, data):
    ext = leaves(shape)
    ones = [data.draw(st.booleans()) for _ in ext]
    src_ext = [1 if o else e for e, o in zip(ext, ones)]
    strides = data.draw(st.lists(st.integers(0, 9), min_size=len(ext), max_size=len(ext)))
    src = Layout(Shape(like(shape, src_ext)), Stride(like(shape, strides)))
    got = src.broadcast_to(Shape(shape))
    assert got.shape == Shape(shape)
    assert got.stride.leaves == [0 if (s == 1 and e != 1) else d for s, e, d in zip(src_ext, ext, strides)]
    for i in range(got.size):
        # the widened leaves do not move the index: it is the source's at the clamped key
        key = []
        rest = i
        for e in ext:
            key.append(rest % e)
            rest //= e
        src_key = sum((0 if s == 1 else k) * math.prod(src_ext[:j]) for j, (s, k) in enumerate(zip(src_ext, key)))
        assert got(i) == brute(src, src_key)


@given(layouts(budget=4096))
def test_values_round_trip_through_repr_str_and_pickle(lay):
    import pickle

    ns = {"Layout": Layout, "Shape": Shape, "Stride": Stride}
    for value in (lay, lay.shape, lay.stride):
        copy = eval(repr(value), ns)
        assert copy == value and hash(copy) == hash(value)
        assert pickle.loads(pickle.dumps(value)) == value
    assert Layout(str(lay)) == lay
    assert Layout(lay.shape, lay.stride) == lay


def test_is_injective_on_an_adversarial_layout_answers_within_a_second_or_says_undecided():
    """WHEN is_injective is asked of five interleaved leaves with huge co-prime strides
    THEN it answers or raises ValueError ("not decided") at once, never hanging."""
    import time

    lay = Layout(
        Shape(200, 200, 200, 200, 200),
        Stride(
            10406554519053007,
            17776936092483503,
            16108260561629991,
            13051932357995809,
            18058164728632727,
        ),
    )
    start = time.process_time()
    with pytest.raises(ValueError, match="not decided"):
        lay.is_injective
    assert time.process_time() - start < 5.0
