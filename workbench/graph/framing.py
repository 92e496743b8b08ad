"""Where a view of the graph looks when it fits (no Qt): the zoom that shows it whole, and,
when that zoom is too small to read, the point a readable view centres on.

A rectangle is ``(x, y, w, h)`` in scene pixels. The view (``plots.graph_view``)
turns these numbers into its transform; the tests check them without a window.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.graph.model import DisplayGraph, IoId

Rect = tuple[float, float, float, float]


def whole_rect(g: DisplayGraph, pad: float) -> Rect:
    """The graph with ``pad`` scene pixels around it."""
    return (-pad, -pad, g.width + 2 * pad, g.height + 2 * pad)


def fit_zoom(rect: Rect, view_w: float, view_h: float, margin: float) -> float:
    """The zoom that shows ``rect`` whole in a view of ``view_w`` x ``view_h`` pixels with
    ``margin`` pixels to spare on each side (zoomed far out, a scene pad is under one)."""
    return min((view_w - 2 * margin) / rect[2], (view_h - 2 * margin) / rect[3])


def output_nodes(g: DisplayGraph) -> list[int]:
    """The nodes of the program's own outputs (those of the top jaxpr)."""
    return [i for nid, i in g.index.items()
            if isinstance(nid, IoId) and nid.kind == "out" and not nid.node]


def nodes_rect(g: DisplayGraph, nodes: Sequence[int]) -> Rect | None:
    """The smallest rectangle around ``nodes`` (None for none)."""
    if not nodes:
        return None
    picked = [g.nodes[i] for i in nodes]
    x0, y0 = min(nd.x for nd in picked), min(nd.y for nd in picked)
    x1, y1 = max(nd.x + nd.w for nd in picked), max(nd.y + nd.h for nd in picked)
    return (x0, y0, x1 - x0, y1 - y0)


def focus_centre(focus: Rect, whole: Rect, view_w: float, view_h: float) -> tuple[float, float]:
    """Where a view of ``view_w`` x ``view_h`` scene pixels centres to show ``focus``: its
    centre, moved so the view shows no empty space beyond the graph where the graph could
    fill it (the outputs at the bottom: what leads to them above). A focus that fits in
    the view stays in it."""
    out = []
    for c, lo, length, span in ((focus[0] + focus[2] / 2, whole[0], whole[2], view_w),
                                (focus[1] + focus[3] / 2, whole[1], whole[3], view_h)):
        hi, half = lo + length, span / 2
        out.append(min(max(c, lo + half), hi - half) if length > span else lo + length / 2)
    return out[0], out[1]
