"""Pictures in notebooks: a Layout shows itself in Jupyter as the SVG of `strideweave
render` (`_repr_svg_`) and as the index table of `strideweave show` (`_repr_html_`)."""

import re
import xml.etree.ElementTree as ET

import pytest

from strideweave import Layout


def test_repr_svg_draws_one_cell_per_coordinate():
    lay = Layout("((2,4),(4,2)):((8,1),(16,4))")
    svg = lay._repr_svg_()
    root = ET.fromstring(svg.split("?>", 1)[1])  # well-formed XML after the declaration
    assert root.tag.endswith("svg")
    assert svg.count('class="cell"') == lay.size == 64
    labels = sorted(int(x) for x in re.findall(r'class="label"[^>]*>(\d+)<', svg))
    assert labels == sorted(lay(i) for i in range(lay.size))
    assert str(lay) in svg  # the caption names the layout
    assert lay.svg() == svg


def test_repr_html_is_the_show_table_escaped():
    lay = Layout("(2,3):(3,1)")
    html = lay._repr_html_()
    assert html.startswith("<pre") and html.endswith("</pre>")
    assert "0 │ 0 1 2 │" in html
    assert "size       6" in html and "cosize     6" in html
    assert lay.show() in html.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")


def test_too_large_layouts_fall_back_to_text():
    big = Layout("(256,256):(1,256)")
    assert big._repr_svg_() is None
    assert big._repr_html_() is None
    with pytest.raises(ValueError, match="more than the 16384"):
        big.svg()
    assert "size       65536" in big.show()


def test_tensor_spec_draws_its_placement():
    from strideweave import TensorSpec

    spec = TensorSpec("bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)")
    svg = spec._repr_svg_()
    assert svg.count('class="cell"') == 5 * 7 * 20
    offsets = {int(x) for x in re.findall(r'class="label"[^>]*>(\d+)<', svg)}
    assert offsets == {spec.byte_offset([0, h, w, c]) for h in range(5) for w in range(7) for c in range(20)}
    assert spec.svg(row_axes=2).count('class="cell"') == 700
    big = TensorSpec("f32[256,256]")
    assert big._repr_svg_() is None
    with pytest.raises(ValueError):
        big.svg()
