"""The core-layout specification, requirement by requirement: each scenario is one test
named after it, with its WHEN/THEN in the docstring, plus tests of the other SHALLs."""

import pickle

import pytest

from strideweave import Layout, Node, NodeId, Shape, Stride, Tree


def L(shape, stride):
    """The spec's own way of writing a layout."""
    return Layout(Shape(shape), Stride(stride))


# --- Requirement: Shape and stride values preserve hierarchy ---------------------------


def test_scenario_construct_equivalent_hierarchical_values():
    """WHEN a caller constructs Shape(2, [3, 4]) and Shape([2, [3, 4]])
    THEN the two shapes compare equal
    AND the corresponding variadic and single-iterable Stride forms compare equal"""
    assert Shape(2, [3, 4]) == Shape([2, [3, 4]])
    assert hash(Shape(2, [3, 4])) == hash(Shape([2, [3, 4]]))
    assert Stride(1, [10, 100]) == Stride([1, [10, 100]])
    assert Shape(2, (3, 4)) == Shape((2, (3, 4))) == Shape([2, (3, 4)])


@pytest.mark.parametrize(
    "build",
    [lambda: Shape(0), lambda: Shape(2, [3, 0]), lambda: Shape(-1), lambda: Shape([2, [-3]])],
)
def test_scenario_reject_invalid_leaves_shape(build):
    """WHEN a caller supplies a shape extent less than one
    THEN construction raises a value error"""
    with pytest.raises(ValueError, match="less than 1"):
        build()


@pytest.mark.parametrize("build", [lambda: Stride(-1), lambda: Stride(1, [2, -5])])
def test_scenario_reject_invalid_leaves_stride(build):
    """WHEN a caller supplies a negative stride
    THEN construction raises a value error"""
    with pytest.raises(ValueError, match="negative"):
        build()


def test_zero_stride_is_a_valid_stride():
    assert Stride(0, [1, 0]).leaves == [0, 1, 0]


def test_shape_key_returns_a_shape_preserving_the_hierarchy():
    """shape[key] SHALL return a Shape and stride[key] a Stride preserving the selected
    hierarchy, for an integer key and for a top-level slice."""
    s = Shape(2, [3, 4], 5)
    assert s[1] == Shape(3, 4) and isinstance(s[1], Shape)
    assert s[0] == Shape(2)
    assert s[-1] == Shape(5)
    assert s[0:2] == Shape(2, [3, 4])
    assert s[1:] == Shape([[3, 4], 5])
    d = Stride(1, [2, 6], 24)
    assert d[1] == Stride(2, 6) and isinstance(d[1], Stride)
    assert d[1:3] == Stride([[2, 6], 24]) and isinstance(d[1:3], Stride)


def test_shape_key_out_of_range_and_bad_keys():
    s = Shape(2, 3)
    with pytest.raises(IndexError):
        s[2]
    with pytest.raises(TypeError):
        s["a"]
    with pytest.raises(ValueError, match="step"):
        s[::2]
    assert list(s) == [Shape(2), Shape(3)]


def test_shape_size_is_the_product_of_extents():
    assert Shape(2, [3, 4]).size == 24
    assert Shape().size == 1


def test_non_integer_items_are_type_errors():
    with pytest.raises(TypeError):
        Shape(2.0)
    with pytest.raises(TypeError):
        Shape(2, ["x"])
    with pytest.raises(TypeError):
        Stride(None)


def test_notation_text_constructs_the_same_values():
    assert Shape("(2,(3,4))") == Shape(2, [3, 4])
    assert Stride("(1,(10,100))") == Stride(1, [10, 100])
    with pytest.raises(ValueError):
        Shape("(2,")


# --- Requirement: Layout construction requires structural congruence -------------------


def test_scenario_reject_a_mismatched_shape_and_stride_tree():
    """WHEN a caller pairs Shape([2, [3, 4]]) with Stride([1, 2, 6])
    THEN layout construction raises a value error identifying the structural mismatch"""
    with pytest.raises(ValueError, match="not congruent"):
        Layout(Shape([2, [3, 4]]), Stride([1, 2, 6]))


def test_layout_contains_its_shape_and_stride():
    lay = L([2, [3, 4]], [1, [10, 100]])
    assert lay.shape == Shape(2, [3, 4]) and lay.stride == Stride(1, [10, 100])


@pytest.mark.parametrize(
    "shape, stride",
    [((2, 3), Stride(1, 2)), (Shape(2, 3), (1, 2)), (Stride(2, 3), Stride(1, 2)), (Shape(2), Shape(1))],
)
def test_layout_of_a_non_shape_or_non_stride_is_a_value_error(shape, stride):
    """If shape is not a Shape or stride is not a Stride, construction SHALL fail with
    ValueError."""
    with pytest.raises(ValueError, match="must be a"):
        Layout(shape, stride)


# --- Requirement: Public tree markers describe layout structure ------------------------


def test_scenario_identified_leaves_retain_leaf_structure():
    """WHEN a caller constructs Tree(Node.id(2))
    THEN its recipe contains one ordinary leaf marker
    AND its structural size is one"""
    t = Tree(Node.id(2))
    assert t.recipe == [Node.Leaf]
    assert t.size == 1
    assert isinstance(t.size, int)


@pytest.mark.parametrize("bad, error", [(-1, ValueError), (-7, ValueError), ("1", TypeError), (1.0, TypeError), (None, TypeError)])
def test_scenario_reject_an_invalid_source_identifier(bad, error):
    """WHEN a caller supplies a negative or non-integer identifier to Node.id
    THEN construction raises a type or value error"""
    with pytest.raises(error):
        Node.id(bad)


def test_tree_preserves_leaves_and_nesting():
    t = Tree(1, Node.Leaf, Tree(Node.id(0), Tree(5)), Node.id(3))
    assert t.recipe == [Node.Leaf, Node.Leaf, Node.Push, Node.Leaf, Node.Push, Node.Leaf, Node.Pop, Node.Pop, Node.Leaf]
    assert t.size == 5
    assert t.items[3] == Node.id(3) and isinstance(t.items[3], NodeId)


@pytest.mark.parametrize("item", [[1], (1, 2), "leaf", 1.5, Node.Push, Node.Pop, Shape(2)])
def test_tree_item_of_another_kind_is_a_value_error(item):
    """If a Tree item is neither an integer, a leaf marker nor a Tree, Tree construction
    SHALL fail with ValueError."""
    with pytest.raises(ValueError):
        Tree(Node.Leaf, item)


# --- Requirement: Layouts map hierarchical coordinates to scalar indices ---------------


def test_scenario_index_a_nested_coordinate():
    """WHEN Layout(Shape([2, [3, 4]]), Stride([1, [10, 100]])) is indexed by [1, [2, 3]]
    THEN the returned scalar index is 321"""
    lay = Layout(Shape([2, [3, 4]]), Stride([1, [10, 100]]))
    assert Layout.get_index(lay, [1, [2, 3]]) == 321
    assert lay.index([1, [2, 3]]) == 321
    assert lay([1, [2, 3]]) == 321
    assert lay((1, (2, 3))) == 321


def test_scenario_expand_a_linear_coordinate():
    """WHEN Layout(Shape([3, 4]), Stride([2, 10])) is indexed by the integer 5
    THEN the integer expands to coordinate [2, 1]
    AND the returned scalar index is 14"""
    lay = Layout(Shape([3, 4]), Stride([2, 10]))
    assert lay(5) == lay([2, 1]) == 14
    assert Layout.get_index(lay, 5) == lay.index(5) == 14


def test_mixed_coordinate_forms_agree():
    """A coordinate SHALL preserve the hierarchy or use an integer at any level."""
    lay = L([2, [3, 4]], [1, [10, 100]])
    for c0 in range(2):
        for c1 in range(3):
            for c2 in range(4):
                want = c0 + 10 * c1 + 100 * c2
                assert lay([c0, [c1, c2]]) == want
                assert lay([c0, c1 + 3 * c2]) == want
                assert lay(c0 + 2 * (c1 + 3 * c2)) == want


def test_get_index_of_a_non_layout_is_a_value_error():
    with pytest.raises(ValueError, match="must be a Layout"):
        Layout.get_index("20:2", 3)


# --- Requirement: Layout indexing enforces the logical domain --------------------------


@pytest.mark.parametrize("key", [[3, 0], 12, [-1, 0], -1, [0, 4]])
def test_scenario_reject_an_out_of_domain_coordinate(key):
    """WHEN Layout(Shape([3, 4]), Stride([2, 10])) is indexed by [3, 0], 12, or a negative
    coordinate
    THEN indexing raises a value error identifying that the key is outside the shape domain"""
    lay = Layout(Shape([3, 4]), Stride([2, 10]))
    for index in (lambda k: lay(k), lambda k: lay.index(k), lambda k: Layout.get_index(lay, k)):
        with pytest.raises(ValueError, match="outside the shape domain"):
            index(key)


@pytest.mark.parametrize("key", [[1, 2, 3], [1, [2]], [[1, 2], 3], []])
def test_missing_or_extra_coordinates_are_value_errors(key):
    # ([1] is the integer key 1: a one-item tuple and its item are the same value)
    with pytest.raises(ValueError):
        L([3, 4], [2, 10])(key)


# --- Requirement: Logical size and index-space cosize remain distinct ------------------


def test_scenario_a_gapped_layout_has_a_larger_index_span_than_size():
    """WHEN a caller inspects Layout(Shape([2, 3]), Stride([1, 4]))
    THEN size is 6
    AND cosize is 10"""
    lay = Layout(Shape([2, 3]), Stride([1, 4]))
    assert lay.size == 6
    assert lay.cosize == 10
    assert lay.shape.size == 6


def test_stride_zero_aliasing_keeps_the_logical_size():
    lay = L([4, 2], [0, 1])
    assert lay.size == 8 and lay.cosize == 2


# --- Requirement: A layout profile records hierarchy only ------------------------------


def test_scenario_equal_hierarchy_yields_equal_profiles():
    """WHEN two layouts have shape trees [2, [3, 4]] and [7, [8, 9]] with arbitrary
    congruent strides
    THEN both profiles are [Leaf, Push, Leaf, Leaf, Pop]"""
    a = L([2, [3, 4]], [1, [2, 6]])
    b = L([7, [8, 9]], [0, [100, 3]])
    want = [Node.Leaf, Node.Push, Node.Leaf, Node.Leaf, Node.Pop]
    assert a.profile == want
    assert b.profile == want


# --- Requirement: Injectivity detects every scalar-index collision ---------------------


def test_scenario_distinguish_holes_from_collisions():
    """WHEN callers inspect layouts with shape/stride pairs ([2, 3], [1, 4]),
    ([4, 2], [0, 1]), and ([4, 2], [1, 1])
    THEN the first layout is injective
    AND the two layouts with scalar-index collisions are not injective"""
    assert L([2, 3], [1, 4]).is_injective is True
    assert L([4, 2], [0, 1]).is_injective is False
    assert L([4, 2], [1, 1]).is_injective is False


# --- Requirement: Layout broadcasting preserves the shape profile ----------------------


def test_scenario_widen_a_nested_singleton_leaf():
    """WHEN Layout(Shape([2, [1, 3]]), Stride([1, [2, 2]])) is broadcast to
    Shape([2, [4, 3]])
    THEN the result is Layout(Shape([2, [4, 3]]), Stride([1, [0, 2]]))"""
    got = Layout(Shape([2, [1, 3]]), Stride([1, [2, 2]])).broadcast_to(Shape([2, [4, 3]]))
    assert got == Layout(Shape([2, [4, 3]]), Stride([1, [0, 2]]))


def test_scenario_reject_implicit_structural_alignment():
    """WHEN a flat three-mode layout is broadcast to a target that nests two of those modes
    THEN broadcasting raises a value error identifying the different shape profiles"""
    flat = L([2, 3, 4], [1, 2, 6])
    with pytest.raises(ValueError, match="profiles differ"):
        flat.broadcast_to(Shape([2, [3, 4]]))


def test_broadcast_rejects_other_extent_changes_and_non_shapes():
    with pytest.raises(ValueError):
        L([2, 3], [1, 2]).broadcast_to(Shape(4, 3))
    with pytest.raises(TypeError):
        L([1, 3], [1, 2]).broadcast_to([4, 3])


# --- Requirement: Uniform preimage extent is an algebraic layout query -----------------


def preimage_counts(lay, n):
    counts = [0] * n
    for i in range(lay.size):
        j = lay(i)
        if j < n:
            counts[j] += 1
    return counts


def test_scenario_prove_uniform_stride_zero_replication():
    """WHEN Layout(Shape([4, 3]), Stride([0, 1])) is queried against Shape(3)
    THEN the returned uniform preimage extent is 4
    AND each target scalar index 0, 1, and 2 has four source coordinates in its preimage"""
    lay = Layout(Shape([4, 3]), Stride([0, 1]))
    assert lay.uniform_preimage_extent(Shape(3)) == 4
    assert preimage_counts(lay, 3) == [4, 4, 4]


def test_scenario_reject_a_non_uniform_mapping():
    """WHEN Layout(Shape([2, 2]), Stride([1, 1])) is queried against Shape(3)
    THEN the result is None
    AND target scalar indices 0, 1, and 2 have unequal preimage cardinalities 1, 2, and 1"""
    lay = Layout(Shape([2, 2]), Stride([1, 1]))
    assert lay.uniform_preimage_extent(Shape(3)) is None
    assert preimage_counts(lay, 3) == [1, 2, 1]


def test_uniform_preimage_extent_gaps_wrong_size_and_type():
    assert L([2, 3], [1, 4]).uniform_preimage_extent(Shape(10)) is None
    assert L([4, 3], [0, 1]).uniform_preimage_extent(Shape(4)) is None
    with pytest.raises(TypeError):
        L([4, 3], [0, 1]).uniform_preimage_extent(3)


# --- Requirement: Layout combination distinguishes concatenation from nesting ----------


def test_scenario_concatenate_and_append_a_nested_layout():
    """WHEN layout [1, 2] is combined with layout [3, 4]
    THEN concatenation has shape [1, 2, 3, 4]
    AND append has shape [1, 2, [3, 4]]"""
    first, second = L([1, 2], [0, 1]), L([3, 4], [2, 6])
    assert Layout.concat(first, second).shape == Shape([1, 2, 3, 4])
    assert first + second == Layout.concat(first, second)
    assert Layout.append(first, second).shape == Shape([1, 2, [3, 4]])


def test_append_of_a_leaf_is_concatenation():
    first, leaf = L([1, 2], [0, 1]), L(5, 8)
    assert first.append(leaf) == first + leaf


def test_layout_key_returns_the_mode_subtree():
    lay = L([2, [3, 4], 5], [1, [2, 6], 24])
    assert lay[1] == L([3, 4], [2, 6])
    assert lay[0] == L(2, 1)
    assert lay[1:] == L([[3, 4], 5], [[2, 6], 24])
    assert lay[-1] == L(5, 24)
    with pytest.raises(IndexError):
        lay[3]


# --- Requirement: Rearrangement uses explicit hierarchical trees -----------------------


def test_scenario_reorder_sources_and_insert_a_singleton():
    """WHEN layout Shape([2, 3]), Stride([1, 2]) is rearranged with no selection tree and
    output Tree(Node.id(1), Node.Leaf, Node.id(0))
    THEN the result has shape [3, 1, 2]
    AND the result has stride [2, 0, 1]"""
    got = Layout.rearrange(L([2, 3], [1, 2]), Tree(Node.id(1), Node.Leaf, Node.id(0)))
    assert got.shape == Shape([3, 1, 2])
    assert got.stride == Stride([2, 0, 1])


def test_scenario_select_a_nested_subtree_as_one_source():
    """WHEN layout Shape([1, [2, 3]]), Stride([5, [7, 14]]) is rearranged with selection
    Tree(Node.Leaf, Node.Leaf) and output Tree(Node.id(1), Node.id(0))
    THEN the selected nested subtree remains one extracted sublayout
    AND the result has shape [[2, 3], 1] and stride [[7, 14], 5]"""
    got = Layout.rearrange(
        L([1, [2, 3]], [5, [7, 14]]), Tree(Node.id(1), Node.id(0)), Tree(Node.Leaf, Node.Leaf)
    )
    assert got.shape == Shape([[2, 3], 1])
    assert got.stride == Stride([[7, 14], 5])


def test_scenario_reject_missing_non_singleton_sources():
    """WHEN an output tree omits an extracted source layout whose logical size is greater
    than one
    THEN rearrangement raises a value error"""
    with pytest.raises(ValueError, match="omits"):
        L([2, 3], [1, 2]).rearrange(Tree(Node.id(1)))
    # an omitted source of size one is allowed
    assert L([1, 3], [9, 2]).rearrange(Tree(Node.id(1))) == L(3, 2)


@pytest.mark.parametrize(
    "output, selection, match",
    [
        ([1, 2], None, "must be a Tree"),
        (Tree(Node.id(0), Node.id(0), Node.id(1)), None, "more than once"),
        (Tree(Node.id(0), Node.id(2)), None, "out of range"),
        (Tree(Node.id(0)), Tree(Node.Leaf, Node.Leaf, Node.Leaf), "items"),
        (Tree(Node.id(0), Node.id(1)), Tree(Tree(Node.Leaf), Node.Leaf), "nests"),
        (Tree(Node.id(0), Node.id(1)), "leaf", "must be a Tree"),
    ],
)
def test_rearrange_rejections_are_value_errors(output, selection, match):
    with pytest.raises(ValueError, match=match):
        L([2, 3], [1, 2]).rearrange(output, selection)


# --- Requirement: Permutation reorders complete top-level modes ------------------------


def test_scenario_permute_a_nested_top_level_mode():
    """WHEN layout shape [2, [3, 4], 5] and stride [1, [2, 6], 24] are permuted by (1, 0, 2)
    THEN the result has shape [[3, 4], 2, 5]
    AND the result has stride [[2, 6], 1, 24]"""
    lay = L([2, [3, 4], 5], [1, [2, 6], 24])
    for got in (Layout.permute(lay, 1, 0, 2), lay.permute((1, 0, 2)), lay.permute([1, 0, 2])):
        assert got.shape == Shape([[3, 4], 2, 5])
        assert got.stride == Stride([[2, 6], 1, 24])


def test_permute_by_the_inverse_order_returns_the_original():
    lay = L([2, [3, 4], 5, 7], [1, [2, 6], 24, 120])
    order = (2, 0, 3, 1)
    inverse = tuple(order.index(j) for j in range(4))
    assert lay.permute(order).permute(inverse) == lay


@pytest.mark.parametrize("order", [(0, 1), (0, 0, 2), (0, 1, 3), (0, 1, -1), (0, 1, 2, 0)])
def test_permute_omissions_duplicates_and_out_of_domain_are_value_errors(order):
    with pytest.raises(ValueError):
        L([2, [3, 4], 5], [1, [2, 6], 24]).permute(order)


@pytest.mark.parametrize("order", [(0, "1", 2), (0, 1.0, 2), (None, 1, 2)])
def test_permute_non_integer_entries_are_type_errors(order):
    with pytest.raises(TypeError):
        L([2, [3, 4], 5], [1, [2, 6], 24]).permute(*order)


# --- Requirement: Layout composition preserves hierarchical function composition -------


def test_scenario_compose_two_layouts():
    """WHEN Layout(Shape(20), Stride(2)) is composed with Layout(Shape([5, 4]), Stride([4, 1]))
    THEN the result is Layout(Shape([5, 4]), Stride([8, 2]))"""
    got = Layout.compose(Layout(Shape(20), Stride(2)), Layout(Shape([5, 4]), Stride([4, 1])))
    assert got == Layout(Shape([5, 4]), Stride([8, 2]))


def test_scenario_compose_with_list_and_tuple_tilers():
    """WHEN the same valid tiles are supplied as a list and as a tuple
    THEN both composition results compare equal"""
    a = L([4, 6, 5], [1, 4, 24])
    tiles = [L(2, 1), L(3, 2)]
    got_list = Layout.compose(a, tiles)
    got_tuple = Layout.compose(a, tuple(tiles))
    assert got_list == got_tuple
    # leading modes tiled, trailing mode kept
    assert got_list == L([2, 3, 5], [1, 8, 24])


def test_compose_with_a_shape_applies_unit_stride_tiles():
    a = L([4, 6], [1, 5])
    assert a.compose(Shape(2, 3)) == a.compose([L(2, 1), L(3, 1)])
    assert a.compose(2) == a.compose(Shape(2))


def test_compose_rejects_other_kinds_and_bad_tilers():
    a = L([4, 6], [1, 5])
    with pytest.raises(TypeError):
        a.compose("2:1")
    with pytest.raises(TypeError):
        a.compose([L(2, 1), 3])
    with pytest.raises(ValueError, match="divisibility"):
        a.compose(L(6, 1))
    assert a.can_compose(L(6, 1)) is False
    assert a.can_compose(L(4, 1)) is True


# --- Requirement: Layout complement requires an injective congruent layout -------------


def test_scenario_complement_a_gapped_injective_layout():
    """WHEN Layout(Shape([2, 2]), Stride([1, 6])) is complemented to 24
    THEN the result is Layout(Shape([3, 2]), Stride([2, 12]))"""
    got = Layout.complement(Layout(Shape([2, 2]), Stride([1, 6])), 24)
    assert got == Layout(Shape([3, 2]), Stride([2, 12]))


def test_scenario_reject_complement_of_an_overlapping_layout():
    """WHEN a layout with shape [4, 2] and stride [1, 1] is complemented
    THEN complementation raises a value error identifying self-overlap"""
    with pytest.raises(ValueError, match="self-overlap"):
        L([4, 2], [1, 1]).complement(8)
    with pytest.raises(ValueError):
        L([4, 2], [1, 1]).complement()


def test_complement_of_a_layout_larger_than_the_cotarget_is_a_value_error():
    with pytest.raises(ValueError, match="larger than cotarget"):
        L([4, 2], [1, 4]).complement(4)
    with pytest.raises(TypeError):
        L(4, 1).complement("8")


# --- Requirement: Layout division exposes tile and remainder structure -----------------


def test_scenario_divide_one_layout():
    """WHEN Layout(Shape([4, 2, 3]), Stride([2, 1, 8])) is divided by
    Layout(Shape(4), Stride(2))
    THEN the result is Layout(Shape([[2, 2], [2, 3]]), Stride([[4, 1], [2, 8]]))"""
    got = Layout.divide(Layout(Shape([4, 2, 3]), Stride([2, 1, 8])), Layout(Shape(4), Stride(2)))
    assert got == Layout(Shape([[2, 2], [2, 3]]), Stride([[4, 1], [2, 8]]))


def test_logical_divide_is_cutes_name_for_divide():
    """CuTe's logical_divide is divide, for a tile and for a tiler."""
    a = L([4, 2, 3], [2, 1, 8])
    assert a.logical_divide(L(4, 2)) == a.divide(L(4, 2))
    assert a.logical_divide([L(2, 1), L(2, 1)]) == a.divide([L(2, 1), L(2, 1)])


def test_scenario_divide_with_sequence_tilers():
    """WHEN the same valid leading-mode tiler is supplied as a list and as a tuple to tiler
    or zipped division
    THEN the corresponding list and tuple results compare equal"""
    a = L([8, 8, 3], [8, 1, 64])
    tiles = [L(2, 1), L(4, 1)]
    assert Layout.divide_tiler(a, tiles) == Layout.divide_tiler(a, tuple(tiles))
    assert Layout.zipped_divide(a, tiles) == Layout.zipped_divide(a, tuple(tiles))


def test_divide_tiler_and_zipped_divide_structure():
    a = L([8, 8, 3], [8, 1, 64])
    tiles = [L(2, 1), L(4, 1)]
    # each leading mode divided, the trailing mode kept
    assert a.divide_tiler(tiles) == L([[2, 4], [4, 2], 3], [[8, 16], [1, 4], 64])
    # tiles grouped, rests grouped, trailing modes after
    assert a.zipped_divide(tiles) == L([[2, 4], [4, 2], 3], [[8, 1], [16, 4], 64])
    assert a.divide_tiler(Shape(2, 4)) == a.divide_tiler(tiles)
    with pytest.raises(TypeError):
        a.zipped_divide(L(2, 1))


# --- Values: immutable, hashable, by value, CuTe notation, round-tripping repr ---------


VALUES = [
    Node.Leaf,
    Node.id(4),
    Shape(2, [3, 4]),
    Shape(7),
    Shape(),
    Shape([[2, 3]]),
    Stride(1, [0, 100]),
    L([2, [3, 4]], [1, [10, 100]]),
    L(20, 2),
    L([[2, 3]], [[1, 2]]),
    Tree(Node.id(1), Node.Leaf, Tree(Node.id(0))),
    Tree(),
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_repr_round_trips_through_the_constructor(value):
    namespace = {"Shape": Shape, "Stride": Stride, "Layout": Layout, "Tree": Tree, "Node": Node}
    assert eval(repr(value), namespace) == value
    assert pickle.loads(pickle.dumps(value)) == value


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_values_are_immutable_and_hashable(value):
    copy = pickle.loads(pickle.dumps(value))
    assert copy == value and hash(copy) == hash(value)
    with pytest.raises(AttributeError):
        value.extra = 1
    assert len({value, value}) == 1


def test_values_print_in_cute_notation():
    assert str(L([2, [3, 4]], [1, [10, 100]])) == "(2,(3,4)):(1,(10,100))"
    assert str(Shape(2, [3, 4])) == "(2,(3,4))"
    assert str(Stride(5)) == "5"
    assert str(Tree(Node.id(1), Node.Leaf)) == "tree(id(1),leaf)"


def test_values_compare_by_value_across_kinds():
    assert Shape(2, 3) != Stride(2, 3)
    assert L(4, 1) == Layout("4:1") == Layout(Shape(4))
    assert Layout(Shape(2, 3)) == L([2, 3], [1, 2])


# --- Hostile inputs: clear errors, bounded work, no crash --------------------------------


def test_integers_beyond_64_bits_are_value_errors():
    with pytest.raises(ValueError, match="64 bits"):
        Shape(2**64)
    with pytest.raises(ValueError, match="64 bits"):
        L(4, 1)(2**70)


def test_capacity_limits_stop_unbounded_inputs():
    import itertools

    with pytest.raises(ValueError, match="leaves"):
        Shape(itertools.count(1))  # an endless iterable stops at the capacity
    selfref = []
    selfref.append(selfref)
    with pytest.raises(ValueError, match="nodes"):
        Shape(selfref)  # a self-referencing list stops at the nesting bound
    deep = 1
    for _ in range(200):
        deep = [deep]
    with pytest.raises(ValueError):
        Shape(deep)


def test_size_overflow_is_a_value_error():
    with pytest.raises(ValueError, match="overflow"):
        Layout(Shape(2**32, 2**32))
    with pytest.raises(ValueError, match="overflow"):
        Shape(2**32, 2**32).size


def test_numpy_style_integers_are_accepted():
    np = pytest.importorskip("numpy")
    lay = L([3, 4], [2, 10])
    assert lay(np.int64(5)) == 14 and lay([np.int32(2), np.uint8(1)]) == 14
    assert Shape(np.int64(3), [np.int16(4)]) == Shape(3, [4])
    assert Node.id(np.int64(2)) == Node.id(2)


# --- The rest of the Rust API, under its Rust names ---------------------------------------


def test_rust_names_get_and_slice_match_indexing():
    lay = L([2, [3, 4], 5], [1, [2, 6], 24])
    assert lay.get(1) == lay[1] and lay.slice(1, 3) == lay[1:3]
    with pytest.raises(ValueError):
        lay.get(3)
    with pytest.raises(ValueError):
        lay.get(-1)
    with pytest.raises(ValueError):
        lay.slice(2, 1)


def test_products_inverses_filter_and_tiled_divide():
    assert Layout("(2,2):(2,1)").blocked_product(Layout("(2,3):(3,1)")) == Layout("((2,2),(2,3)):((2,12),(1,4))")
    a, b = Layout("(2,2):(2,1)"), Layout("(2,3):(3,1)")
    raked = a.raked_product(b)
    assert raked.size == 24 and raked.is_injective
    assert Layout("(2,2):(1,2)").logical_product([Layout("3:1"), Layout("2:1")]).size == 24
    assert Layout("(4,2,3):(0,1,2)").filter() == Layout("6:1")
    assert Layout("(8,8):(8,1)").tiled_divide([Layout("2:1"), Layout("4:1")]) == Layout("((2,4),4,2):((8,1),16,4)")
    inv = Layout("(4,2):(2,1)").left_inverse()
    assert [inv(Layout("(4,2):(2,1)")(i)) for i in range(8)] == list(range(8))
    with pytest.raises(ValueError, match="self-overlap"):
        Layout("(4,2):(1,1)").left_inverse()


def test_eval_runs_the_calculator_language():
    from strideweave import eval as sw_eval

    assert sw_eval("compose(20:2, (5,4):(4,1))") == L([5, 4], [8, 2])
    assert sw_eval("index((2,(3,4)):(1,(10,100)), (1,(2,3)))") == 321
    assert sw_eval("shape((2,(3,4)):(1,(2,6)))") == (2, (3, 4))
    assert sw_eval("[2:1,4:1]") == [L(2, 1), L(4, 1)]
    assert sw_eval("profile((2,(3,4)):(1,(2,6)))") == [Node.Leaf, Node.Push, Node.Leaf, Node.Leaf, Node.Pop]
    assert sw_eval("is_injective((4,2):(1,1))") is False
    assert sw_eval("uniform_preimage_extent((2,2):(1,1), (3))") is None
    with pytest.raises(ValueError):
        sw_eval("compose((4,6):(1,5), 6:1)")
    with pytest.raises(ValueError):
        sw_eval("compose((4,6")
