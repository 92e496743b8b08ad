"""A laid-out graph as flat numpy arrays, for culling, hit tests and batched drawing (no Qt).

Painting a frame or finding the node under the mouse must not loop over
thousands of nodes in Python: node rectangles, edge segments, edge bounding
boxes and the polyline points of every edge live in arrays built once per
layout. Also the shapes a node's values row draws (sparkline, histogram bars)
and an edge's arrowhead, as plain coordinates the painter turns into Qt shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.api.values import ValueSummary, fmt_number
from workbench.graph.model import DisplayGraph

Rect = tuple[float, float, float, float]  # left, top, width, height


def _floats() -> np.ndarray:
    return np.zeros(0)


def _ints() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


@dataclass
class GraphArrays:
    """Node rectangles (x0, y0, x1, y1), style index, edge segments and points, as arrays."""

    x0: np.ndarray = field(default_factory=_floats)
    y0: np.ndarray = field(default_factory=_floats)
    x1: np.ndarray = field(default_factory=_floats)
    y1: np.ndarray = field(default_factory=_floats)
    fam: np.ndarray = field(default_factory=_ints)  # index into the style keys
    seg: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))  # x0, y0, x1, y1
    seg_edge: np.ndarray = field(default_factory=_ints)
    ebox: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))  # an edge's bounds
    edge_src: np.ndarray = field(default_factory=_ints)
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    point_edge: np.ndarray = field(default_factory=_ints)
    point_connect: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))


def graph_arrays(g: DisplayGraph, style_keys: Sequence[str]) -> GraphArrays:
    """The arrays of ``g``; a node's style is its family's place in ``style_keys`` (else 5)."""
    n = len(g.nodes)
    a = GraphArrays()
    a.x0 = np.fromiter((nd.x for nd in g.nodes), float, n)
    a.y0 = np.fromiter((nd.y for nd in g.nodes), float, n)
    a.x1 = a.x0 + np.fromiter((nd.w for nd in g.nodes), float, n)
    a.y1 = a.y0 + np.fromiter((nd.h for nd in g.nodes), float, n)
    fam_index = {k: i for i, k in enumerate(style_keys)}
    a.fam = np.fromiter((fam_index.get(nd.family, 5) for nd in g.nodes), np.int64, n)
    if g.edges:
        _edge_arrays(g, a)
    return a


def _edge_arrays(g: DisplayGraph, a: GraphArrays) -> None:
    counts = np.fromiter((len(ed.points) for ed in g.edges), np.int64, len(g.edges))
    pts = np.concatenate([ed.points for ed in g.edges])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    last = np.cumsum(counts) - 1
    keep = np.ones(len(pts) - 1, dtype=bool)
    keep[last[:-1]] = False  # no segment from one edge's end to the next one's start
    a.seg = np.hstack([pts[:-1], pts[1:]])[keep]
    a.seg_edge = np.repeat(np.arange(len(g.edges)), counts - 1)
    a.ebox = np.column_stack([np.minimum.reduceat(pts[:, 0], starts),
                              np.minimum.reduceat(pts[:, 1], starts),
                              np.maximum.reduceat(pts[:, 0], starts),
                              np.maximum.reduceat(pts[:, 1], starts)])
    a.edge_src = np.fromiter((ed.src for ed in g.edges), np.int64, len(g.edges))
    a.points = pts
    a.point_edge = np.repeat(np.arange(len(g.edges)), counts)
    a.point_connect = np.ones(len(pts), dtype=np.int32)
    a.point_connect[last] = 0


def node_hit(a: GraphArrays, x: float, y: float) -> int | None:
    """The node containing scene point (x, y); the last drawn when they overlap."""
    if not len(a.x0):
        return None
    hit = np.nonzero((a.x0 <= x) & (x <= a.x1) & (a.y0 <= y) & (y <= a.y1))[0]
    return int(hit[-1]) if len(hit) else None


def edge_hit(a: GraphArrays, x: float, y: float, tol: float) -> int | None:
    """The edge with a segment nearest scene point (x, y), if within ``tol``."""
    if not len(a.seg):
        return None
    p = a.seg[:, 0:2]
    d = a.seg[:, 2:4] - p
    len2 = (d * d).sum(axis=1)
    t = np.clip(((x - p[:, 0]) * d[:, 0] + (y - p[:, 1]) * d[:, 1])
                / np.where(len2 > 0, len2, 1.0), 0.0, 1.0)
    cx, cy = p[:, 0] + t * d[:, 0], p[:, 1] + t * d[:, 1]
    dist2 = (cx - x) ** 2 + (cy - y) ** 2
    k = int(np.argmin(dist2))
    return int(a.seg_edge[k]) if dist2[k] <= tol * tol else None


def visible_nodes(a: GraphArrays, rx0: float, ry0: float, rx1: float, ry1: float) -> np.ndarray:
    """Indices of the nodes that meet the rectangle (rx0, ry0)-(rx1, ry1)."""
    return np.nonzero((a.x0 <= rx1) & (a.x1 >= rx0) & (a.y0 <= ry1) & (a.y1 >= ry0))[0]


def visible_edges(a: GraphArrays, rx0: float, ry0: float, rx1: float, ry1: float) -> np.ndarray:
    """Indices of the edges whose bounds meet the rectangle (rx0, ry0)-(rx1, ry1)."""
    eb = a.ebox
    if not len(eb):
        return np.zeros(0, np.int64)
    return np.nonzero((eb[:, 0] <= rx1) & (eb[:, 2] >= rx0) & (eb[:, 1] <= ry1)
                      & (eb[:, 3] >= ry0))[0]


def node_meets(a: GraphArrays, i: int, rx0: float, ry0: float, rx1: float, ry1: float) -> bool:
    """Whether node ``i`` meets the rectangle (rx0, ry0)-(rx1, ry1)."""
    return bool(a.x0[i] <= rx1 and a.x1[i] >= rx0 and a.y0[i] <= ry1 and a.y1[i] >= ry0)


def arrow_head(points: np.ndarray, size: float) -> list[tuple[float, float]]:
    """The three corners of the arrowhead at a polyline's end, along its last segment."""
    tip, prev = points[-1], points[-2]
    d = tip - prev
    ux, uy = d / (float(np.hypot(*d)) or 1.0)
    a = size
    return [(tip[0], tip[1]),
            (tip[0] - a * ux + a * 0.6 * uy, tip[1] - a * uy - a * 0.6 * ux),
            (tip[0] - a * ux - a * 0.6 * uy, tip[1] - a * uy + a * 0.6 * ux)]


Sparkline = (tuple[str, None] | tuple[str, str] | tuple[str, list[Rect]]
             | tuple[str, np.ndarray])


def sparkline_shape(s: ValueSummary | None, box: Rect) -> Sparkline:
    """What a node's values row draws in ``box``: ("text", words), ("bars", rectangles) of
    the histogram, ("line", (k, 2) points) of the preview, or ("none", None)."""
    if s is None:
        return "none", None
    if s.size == 1 and s.preview:
        return "text", f"= {fmt_number(s.preview[0])}"
    left, top, width, height = box
    bottom = top + height
    if s.size > len(s.preview) and s.hist and sum(s.hist) > 0:
        h = np.asarray(s.hist, dtype=float)
        h = h / h.max()
        bw = width / len(h)
        return "bars", [(left + k * bw, bottom - v * height, max(bw - 0.5, 0.5), v * height)
                        for k, v in enumerate(h) if v > 0]
    vals = np.asarray(s.preview, dtype=float)
    vals = vals[np.isfinite(vals)]
    if len(vals) < 2:
        return ("text", f"= {fmt_number(float(vals[0]))}") if len(vals) else ("none", None)
    lo, hi = float(vals.min()), float(vals.max())
    span = hi - lo or 1.0
    xs = np.linspace(left, left + width, len(vals))
    ys = bottom - (vals - lo) / span * height
    return "line", np.column_stack([xs, ys])
