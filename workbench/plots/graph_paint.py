"""Painting a laid-out dataflow graph with a ``QPainter``: boxes, edges, nodes, marks, text.

``GraphPainter`` keeps the Qt objects of one layout (node rectangles, edge
polylines, arrowheads, elided texts, sparklines) and of one colour scheme
(brushes and pens by family and state), built once and reused every frame. A
frame is culled to the exposed rectangle with numpy (``graph.geometry``) and
drawn batched by style; text, the costly part, only when it is big enough to
read. The view hands each frame what changes between frames as a ``Frame``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui
from PySide6.QtCore import Qt

from workbench.api.values import ValueSummary, VarRef
from workbench.graph.geometry import (
    GraphArrays,
    arrow_head,
    node_meets,
    sparkline_shape,
    visible_edges,
    visible_nodes,
)
from workbench.graph.marks import Marks
from workbench.graph.model import DisplayGraph
from workbench.graph.style import STYLE_KEYS, GraphColours

TEXT_MIN_PX = 5.5  # below this font height on screen, text is skipped
VALUES_ROW = 22.0  # extra node height for the sparkline, at scale 1
FAR_SCALE = 0.3  # zoomed out below this: no antialiasing, edges as two paths
ARROW_SCALE = 0.35  # arrowheads from this zoom on
ROUNDED_MAX = 400  # more nodes on screen than this are drawn as plain rectangles
NORMAL, DIM, ERROR = 0, 1, 2
_LEFT_MID = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter


@dataclass
class Frame:
    """What one frame draws beyond the layout: zoom, marks, selection and values."""

    zoom: float  # view pixels per scene pixel
    marks: Marks
    selected: tuple[int, ...]
    current: int | None
    selected_var: VarRef | None
    hover_edge: int
    show_values: bool
    summary: Callable[[int], ValueSummary | None]


def _cosmetic(colour: str, width: float) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(colour), width)
    pen.setCosmetic(True)
    return pen


class GraphPainter:
    """Draws one ``DisplayGraph`` in one scheme at one presentation scale."""

    def __init__(self) -> None:
        self.graph: DisplayGraph | None = None
        self.arrays = GraphArrays()
        self.font = QtGui.QFont()
        self.bold = QtGui.QFont()
        self.scale = 1.0
        self.text_pad = 8.0
        self.toggle_w = 18.0
        self.colours: GraphColours | None = None
        self._brushes: dict[tuple[str, int], QtGui.QBrush] = {}
        self._pens: dict[tuple[str, int], QtGui.QPen] = {}
        self.reset()

    # ------------------------------------------------------------------ setup

    def set_colours(self, c: GraphColours) -> None:
        """Brushes and pens of every family in every state (normal, dimmed, failed)."""
        self.colours = c
        self._brushes = {}
        self._pens = {}
        for key in STYLE_KEYS:
            self._brushes[(key, NORMAL)] = QtGui.QBrush(QtGui.QColor(c.fills[key]))
            self._brushes[(key, DIM)] = QtGui.QBrush(QtGui.QColor(c.dim_fill))
            self._brushes[(key, ERROR)] = QtGui.QBrush(QtGui.QColor(c.error_fill))
            for state, colour in ((NORMAL, c.borders[key]), (DIM, c.muted), (ERROR, c.error)):
                self._pens[(key, state)] = _cosmetic(colour, 1.2 if state != ERROR else 2.5)

    def set_fonts(self, font: QtGui.QFont, bold: QtGui.QFont, scale: float) -> None:
        """The node fonts and the presentation scale the sizes are multiplied by."""
        self.font, self.bold, self.scale = font, bold, scale

    def reset(self) -> None:
        """Forget the layout and every cached shape and text."""
        self.graph = None
        self.arrays = GraphArrays()
        self._rects: list[QtCore.QRectF] = []
        self._box_rects: list[QtCore.QRectF] = []
        self._polys: dict[int, QtGui.QPolygonF] = {}
        self._arrows: dict[int, QtGui.QPolygonF] = {}
        self._far_cache: tuple[bytes, tuple[QtGui.QPainterPath, QtGui.QPainterPath]] | None = None
        self._text_cache: dict[int, tuple[str, str]] = {}
        self._spark_cache: dict[int, tuple[str, Any]] = {}

    def set_graph(self, g: DisplayGraph, arrays: GraphArrays, text_pad: float,
                  toggle_w: float) -> None:
        """A new layout (its arrays from ``graph.geometry``); sizes at presentation scale 1."""
        self.reset()
        self.graph, self.arrays = g, arrays
        self.text_pad, self.toggle_w = text_pad, toggle_w
        self._rects = [QtCore.QRectF(nd.x, nd.y, nd.w, nd.h) for nd in g.nodes]
        self._box_rects = [QtCore.QRectF(b.x, b.y, b.w, b.h) for b in g.boxes]

    def clear_values(self) -> None:
        """The values changed: the sparklines go."""
        self._spark_cache.clear()

    # ------------------------------------------------------------------ a frame

    def paint(self, painter: QtGui.QPainter, rect: QtCore.QRectF, f: Frame) -> None:
        """Draw the part of the graph in ``rect`` (scene coordinates)."""
        c = self.colours
        assert c is not None
        painter.fillRect(rect, QtGui.QColor(c.background))
        g = self.graph
        if g is None or not len(g.nodes):
            return
        s = f.zoom
        bounds = (rect.left(), rect.top(), rect.right(), rect.bottom())
        text = QtGui.QFontMetricsF(self.font).height() * s >= TEXT_MIN_PX
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, s >= FAR_SCALE)
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
        self._paint_boxes(painter, bounds, text)
        dim = f.marks.dim | f.marks.step_dim
        vis = visible_edges(self.arrays, *bounds)
        self._paint_edges(painter, vis, dim[self.arrays.edge_src], s < FAR_SCALE)
        self._paint_strong_edges(painter, vis, f)
        if s >= ARROW_SCALE and len(vis):
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QtGui.QColor(c.edge))
            for k in vis:
                painter.drawPolygon(self._arrow(int(k)))
        nvis = visible_nodes(self.arrays, *bounds)
        if not len(nvis):
            return
        self._paint_nodes(painter, nvis, f.marks, dim, s < FAR_SCALE)
        self._paint_marks(painter, nvis, f)
        self._paint_badges(painter, f.marks.badges, bounds, text, s)
        if text:
            self._paint_text(painter, nvis, dim)
        if text and f.show_values:
            self._paint_values(painter, nvis, f.summary)

    def _paint_boxes(self, painter: QtGui.QPainter, bounds: tuple[float, float, float, float],
                     text: bool) -> None:
        """Group and sub-jaxpr frames, outermost first, with the sub-jaxprs' titles."""
        g, c = self.graph, self.colours
        assert g is not None and c is not None
        rx0, ry0, rx1, ry1 = bounds
        pen = _cosmetic(c.box_border, 1.0)
        painter.setPen(pen)
        for b, r in zip(g.boxes, self._box_rects, strict=True):
            if b.x > rx1 or b.y > ry1 or b.x + b.w < rx0 or b.y + b.h < ry0:
                continue
            painter.setBrush(QtGui.QColor(c.box_fill[b.depth % 2]))
            painter.drawRect(r)
            if text and b.kind == "sub" and b.title:
                painter.setFont(self.font)
                painter.setPen(QtGui.QColor(c.muted))
                painter.drawText(r.adjusted(6 * self.scale, 1, 0, 0),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, b.title)
                painter.setPen(pen)

    def _paint_edges(self, painter: QtGui.QPainter, vis: np.ndarray, edge_dim: np.ndarray,
                     far: bool) -> None:
        """Zoomed out, every visible segment in one call; closer, antialiased polylines."""
        c = self.colours
        assert c is not None
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if not len(vis):
            return
        if far:
            for dimmed, path in zip((True, False), self._far_paths(edge_dim), strict=True):
                painter.setPen(_cosmetic(c.muted if dimmed else c.edge, 1.0))
                painter.drawPath(path)
            return
        for dimmed in (True, False):
            painter.setPen(_cosmetic(c.muted if dimmed else c.edge, 1.0 if dimmed else 1.3))
            for k in vis[edge_dim[vis] == dimmed]:
                painter.drawPolyline(self._poly(int(k)))

    def _paint_strong_edges(self, painter: QtGui.QPainter, vis: np.ndarray, f: Frame) -> None:
        """The selected variable's edges and the hovered one, on top."""
        g, c = self.graph, self.colours
        assert g is not None and c is not None
        sel_var = f.selected_var
        if sel_var is None and f.hover_edge < 0:
            return
        strong = [int(k) for k in vis if sel_var is not None and g.edges[k].ref == sel_var
                  or k == f.hover_edge]
        painter.setPen(_cosmetic(c.edge_hover, 2.6))
        for k in strong:
            painter.drawPolyline(self._poly(k))

    def _paint_nodes(self, painter: QtGui.QPainter, nvis: np.ndarray, marks: Marks,
                     dim: np.ndarray, far: bool) -> None:
        """Node rectangles, batched by family and state."""
        state = np.where(marks.error[nvis], ERROR, np.where(dim[nvis], DIM, NORMAL))
        code = self.arrays.fam[nvis] * 3 + state
        rects = self._rects
        rounded = len(nvis) <= ROUNDED_MAX
        if far:
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        radius = 4 * self.scale
        for cval in np.unique(code):
            key = (STYLE_KEYS[int(cval) // 3], int(cval) % 3)
            painter.setBrush(self._brushes[key])
            pen = self._pens[key]
            if far:
                pen = QtGui.QPen(pen)
                pen.setWidthF(1.0)
            painter.setPen(pen)
            members = nvis[code == cval]
            if rounded:
                for i in members:
                    painter.drawRoundedRect(rects[i], radius, radius)
            else:
                painter.drawRects([rects[i] for i in members])

    def _paint_marks(self, painter: QtGui.QPainter, nvis: np.ndarray, f: Frame) -> None:
        """Frames around nodes: the editor's line, the selection, the stepping position."""
        c = self.colours
        assert c is not None
        rects = self._rects
        painter.setBrush(Qt.BrushStyle.NoBrush)
        grow = 3.0 / max(f.zoom, 1e-6)
        mask = f.marks.line_hl[nvis]
        if mask.any():
            painter.setPen(_cosmetic(c.line_highlight, 3.0))
            for i in nvis[mask]:
                painter.drawRect(rects[i].adjusted(-grow, -grow, grow, grow))
        marked = [(i, c.selected, 3.0, 1.4) for i in f.selected]
        if f.current is not None:
            marked.append((f.current, c.current, 4.5, 2.0))
        for idx, colour, width, out in marked:
            painter.setPen(_cosmetic(colour, width))
            g2 = grow * out
            painter.drawRect(rects[idx].adjusted(-g2, -g2, g2, g2))

    def _paint_badges(self, painter: QtGui.QPainter, badges: dict[int, str],
                      bounds: tuple[float, float, float, float], text: bool, s: float) -> None:
        """A pill with the words when they can be read, a dot when zoomed out."""
        c = self.colours
        assert c is not None
        if not badges:
            return
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QtGui.QColor(c.badge))
        for i, word in badges.items():
            if not node_meets(self.arrays, i, *bounds):
                continue
            r = self._rects[i]
            if not text:
                d = 8 / max(s, 1e-6)
                painter.drawEllipse(QtCore.QRectF(r.right() - d, r.top() - d / 2, d, d))
                continue
            painter.setFont(self.font)
            fm = QtGui.QFontMetricsF(self.font)
            w = fm.horizontalAdvance(word) + 8 * self.scale
            h = fm.height() + 2 * self.scale
            pill = QtCore.QRectF(r.right() - w, r.top() - h * 0.7, w, h)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRoundedRect(pill, h / 2, h / 2)
            painter.setPen(QtGui.QColor("#ffffff"))
            painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, word)

    # ------------------------------------------------------------------ shapes

    def _poly(self, k: int) -> QtGui.QPolygonF:
        poly = self._polys.get(k)
        if poly is None:
            assert self.graph is not None
            poly = QtGui.QPolygonF([QtCore.QPointF(x, y) for x, y in self.graph.edges[k].points])
            self._polys[k] = poly
        return poly

    def _arrow(self, k: int) -> QtGui.QPolygonF:
        """The arrowhead at an edge's end, pointing along its last segment."""
        head = self._arrows.get(k)
        if head is None:
            assert self.graph is not None
            corners = arrow_head(self.graph.edges[k].points, 5.0 * self.scale)
            head = QtGui.QPolygonF([QtCore.QPointF(x, y) for x, y in corners])
            self._arrows[k] = head
        return head

    def _far_paths(self, edge_dim: np.ndarray) -> tuple[QtGui.QPainterPath, QtGui.QPainterPath]:
        """All dimmed edges as one path and all others as another: zoomed out, two draw calls
        (built again only when which edges are dimmed changes)."""
        key = edge_dim.tobytes()
        if self._far_cache is not None and self._far_cache[0] == key:
            return self._far_cache[1]
        a = self.arrays
        out = []
        for dimmed in (True, False):
            keep = edge_dim[a.point_edge] == dimmed
            if keep.any():
                out.append(pg.arrayToQPath(a.points[keep, 0], a.points[keep, 1],
                                           connect=a.point_connect[keep]))
            else:
                out.append(QtGui.QPainterPath())
        paths = (out[0], out[1])
        self._far_cache = (key, paths)
        return paths

    # ------------------------------------------------------------------ text and values

    def _node_texts(self, i: int, inner_w: float) -> tuple[str, str]:
        """Node ``i``'s label and detail elided to ``inner_w`` (one line: detail "")."""
        cached = self._text_cache.get(i)
        if cached is not None:
            return cached
        assert self.graph is not None
        nd = self.graph.nodes[i]
        fm = QtGui.QFontMetricsF(self.font)
        fmb = QtGui.QFontMetricsF(self.bold)
        elide = Qt.TextElideMode.ElideRight
        if nd.kind in ("input", "const", "output", "port") or nd.expanded:
            both = f"{nd.label}  {nd.detail}" if nd.expanded else f"{nd.label}: {nd.detail}"
            cached = (fmb.elidedText(both, elide, inner_w), "")
        else:
            cached = (fmb.elidedText(nd.label, elide, inner_w),
                      fm.elidedText(nd.detail, elide, inner_w))
        self._text_cache[i] = cached
        return cached

    def _paint_text(self, painter: QtGui.QPainter, nvis: np.ndarray, dim: np.ndarray) -> None:
        g, c = self.graph, self.colours
        assert g is not None and c is not None
        pad = self.text_pad * self.scale
        line = QtGui.QFontMetricsF(self.font).lineSpacing()
        fg, muted = QtGui.QColor(c.foreground), QtGui.QColor(c.muted)
        tw = self.toggle_w * self.scale
        for i in nvis:
            i = int(i)
            nd = g.nodes[i]
            r = self._rects[i]
            toggle = tw if nd.group is not None else 0.0
            inner_w = r.width() - 2 * pad - toggle
            label, detail = self._node_texts(i, inner_w)
            painter.setPen(muted if dim[i] else fg)
            painter.setFont(self.bold)
            top = r.top() + 4 * self.scale
            head_h = min(r.height(), line + 8 * self.scale)
            if not detail:
                painter.drawText(QtCore.QRectF(r.left() + pad, r.top(), inner_w, head_h),
                                 _LEFT_MID, label)
            else:
                painter.drawText(QtCore.QRectF(r.left() + pad, top, inner_w, line), _LEFT_MID,
                                 label)
                painter.setFont(self.font)
                painter.setPen(muted)
                painter.drawText(QtCore.QRectF(r.left() + pad, top + line, inner_w, line),
                                 _LEFT_MID, detail)
            if toggle:
                painter.setFont(self.bold)
                painter.setPen(fg)
                painter.drawText(QtCore.QRectF(r.right() - tw, r.top(), tw - 2 * self.scale,
                                               head_h),
                                 Qt.AlignmentFlag.AlignCenter, "−" if nd.expanded else "+")

    def values_box(self, i: int) -> QtCore.QRectF:
        """Where node ``i``'s values row is drawn."""
        assert self.graph is not None
        nd = self.graph.nodes[i]
        row = VALUES_ROW * self.scale
        pad = self.text_pad * self.scale
        return QtCore.QRectF(nd.x + pad, nd.y + nd.h - row + 2, nd.w - 2 * pad,
                             row - 6 * self.scale)

    def _sparkline(self, i: int, summary: Callable[[int], ValueSummary | None]
                   ) -> tuple[str, Any]:
        shape = self._spark_cache.get(i)
        if shape is not None:
            return shape
        box = self.values_box(i)
        kind, data = sparkline_shape(summary(i), (box.left(), box.top(), box.width(),
                                                  box.height()))
        if isinstance(data, str):  # "text"
            shape = (kind, (box, data))
        elif isinstance(data, list):  # "bars"
            shape = (kind, [QtCore.QRectF(*r) for r in data])
        elif isinstance(data, np.ndarray):  # "line"
            shape = (kind, QtGui.QPolygonF([QtCore.QPointF(x, y) for x, y in data]))
        else:
            shape = (kind, None)
        self._spark_cache[i] = shape
        return shape

    def _paint_values(self, painter: QtGui.QPainter, nvis: np.ndarray,
                      summary: Callable[[int], ValueSummary | None]) -> None:
        """Sparkline of the preview (a few values) or histogram bars, in the node's last row."""
        g, c = self.graph, self.colours
        assert g is not None and c is not None
        pen = _cosmetic(c.sparkline, 1.3)
        for i in nvis:
            i = int(i)
            nd = g.nodes[i]
            if nd.kind != "eqn" or nd.expanded:
                continue
            kind, data = self._sparkline(i, summary)
            if kind == "line":
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawPolyline(data)
            elif kind == "bars":
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QtGui.QColor(c.sparkline))
                painter.drawRects(data)
            elif kind == "text":
                painter.setPen(QtGui.QColor(c.foreground))
                painter.setFont(self.font)
                rect, word = data
                painter.drawText(rect, _LEFT_MID, word)
