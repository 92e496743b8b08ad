"""Where a fitted view of the graph looks, without a window: the whole, or what matters."""

import pytest

from tests.graph.graph_trees import chain, small_tree
from workbench.graph.build import build_graph
from workbench.graph.framing import (
    fit_zoom,
    focus_centre,
    nodes_rect,
    output_nodes,
    whole_rect,
)
from workbench.graph.model import IoId


def test_the_outputs_of_the_program_only():
    g = build_graph(small_tree())
    assert sorted(output_nodes(g)) == sorted(g.index[IoId("out", (), i)] for i in range(2))
    assert nodes_rect(g, []) is None
    x, y, w, h = nodes_rect(g, output_nodes(g))
    assert all(x <= g.nodes[i].x and g.nodes[i].x + g.nodes[i].w <= x + w
               and y <= g.nodes[i].y and g.nodes[i].y + g.nodes[i].h <= y + h
               for i in output_nodes(g))


def test_fit_zoom_leaves_its_margin():
    rect = (-10.0, -10.0, 220.0, 1020.0)
    s = fit_zoom(rect, 400, 300, 4)
    assert s == pytest.approx((300 - 8) / 1020)
    assert rect[3] * s + 8 == pytest.approx(300)


def test_a_tall_graph_shows_its_outputs_at_the_bottom_with_what_leads_to_them():
    g = build_graph(chain(300))
    whole = whole_rect(g, 16.0)
    focus = nodes_rect(g, output_nodes(g))
    view_w, view_h = 600.0, 800.0
    cx, cy = focus_centre(focus, whole, view_w, view_h)
    # The view ends at the graph's bottom edge, not half of it below: the outputs are in
    # the view's lowest part and the equations before them fill the rest.
    assert cy + view_h / 2 == pytest.approx(whole[1] + whole[3])
    assert cy - view_h / 2 <= focus[1] and focus[1] + focus[3] <= cy + view_h / 2
    # Narrower than the view: centred across.
    assert cx == pytest.approx(whole[0] + whole[2] / 2)


def test_a_focus_in_the_middle_is_centred():
    g = build_graph(chain(300))
    whole = whole_rect(g, 16.0)
    middle = nodes_rect(g, [g.index[(150,)]])
    _, cy = focus_centre(middle, whole, 600.0, 800.0)
    assert cy == pytest.approx(middle[1] + middle[3] / 2)
