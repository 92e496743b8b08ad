"""The jaxpr as a dataflow graph you can pan, zoom, click, step through and read values on.

One ``QGraphicsView`` with no items: it paints the laid-out graph
(``graph_layout.DisplayGraph``) itself in ``drawBackground``, culled to the
exposed rectangle with numpy and batched by style, so a frame costs a handful
of Python calls however many nodes there are, and text (the costly part) is
drawn only when it is big enough to read. Hit tests for clicks and tooltips are
numpy too. Panning is a drag, zoom the wheel (around the cursor), fit F, a
double-click on the background or the Fit button.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Qt, Signal

from workbench.api.jaxpr import JaxprNode
from workbench.api.values import (
    NodeValues,
    Path,
    ValuesResult,
    ValueSummary,
    VarRef,
    eqn_values_at,
    fmt_number,
    node_at,
    summary_of,
)
from workbench.plots.graph_layout import (
    ChunkId,
    DisplayGraph,
    GraphNode,
    GroupId,
    IoId,
    LayoutOptions,
    NodeId,
    PortId,
    build_graph,
    evaluation_order,
    groups_containing,
)
from workbench.plots.graph_style import FAMILIES, FAMILY_COLOURS, GraphColours, graph_colours
from workbench.plots.presentation import BASE_FONT_PT

MAX_FIT_SCALE = 1.5
MIN_SCALE = 0.01
MAX_SCALE = 8.0
TEXT_MIN_PX = 5.5  # below this font height on screen, text is skipped
EDGE_HIT_PX = 5.0
VALUES_ROW = 22.0  # extra node height for the sparkline, at scale 1
_STYLE_KEYS = (*FAMILIES, "io")
_NORMAL, _DIM, _ERROR = 0, 1, 2


def summary_text(name: str, type_text: str, s: ValueSummary | None, ran: bool | None) -> str:
    """The tooltip of a variable: name and type, then its range, moments and bad values."""
    head = f"{name}: {s.type_text if s is not None else type_text}"
    if s is None:
        if ran is None:
            return head
        return head + ("\nno value recorded" if ran else "\nnot computed: this did not run")
    lines = [head]
    if s.min is None:
        lines.append("no finite values" if s.size else "empty")
    else:
        lines.append(f"min {fmt_number(s.min)}  max {fmt_number(s.max)}")
        lines.append(f"mean {fmt_number(s.mean)}  std {fmt_number(s.std)}")
    lines.append(f"NaN {s.nan:,}  Inf {s.inf:,}")
    return "\n".join(lines)


class GraphCanvas(QtWidgets.QGraphicsView):
    """The drawing surface; ``JaxprGraphView`` owns the state and hands it over."""

    def __init__(self, owner: JaxprGraphView) -> None:
        super().__init__(QtWidgets.QGraphicsScene(owner), owner)
        self.setObjectName("jaxprGraphCanvas")
        self._owner = owner
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.NoAnchor)
        self.setResizeAnchor(QtWidgets.QGraphicsView.ViewportAnchor.NoAnchor)
        self.setViewportUpdateMode(QtWidgets.QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self._press: QtCore.QPointF | None = None
        self._press_scroll = (0, 0)
        self._dragging = False

    # Painting is the owner's; the canvas only routes events.
    def drawBackground(self, painter: QtGui.QPainter,  # noqa: N802
                       rect: QtCore.QRectF | QtCore.QRect) -> None:
        self._owner._paint(painter, QtCore.QRectF(rect))

    def scale_factor(self) -> float:
        return self.transform().m11()

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position()
            self._press_scroll = (self.horizontalScrollBar().value(),
                                  self.verticalScrollBar().value())
            self._dragging = False
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if self._press is not None and event.buttons() & Qt.MouseButton.LeftButton:
            delta = event.position() - self._press
            if not self._dragging and delta.manhattanLength() >= \
                    QtWidgets.QApplication.startDragDistance():
                self._dragging = True
                self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            if self._dragging:
                self._owner._fit_mode = False
                self.horizontalScrollBar().setValue(self._press_scroll[0] - int(delta.x()))
                self.verticalScrollBar().setValue(self._press_scroll[1] - int(delta.y()))
            event.accept()
            return
        self._owner._on_hover(event.position().toPoint())

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton and self._press is not None:
            if not self._dragging:
                self._owner._on_click(event.position().toPoint())
            self._press = None
            self._dragging = False
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self._owner._on_double_click(event.position().toPoint())
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802
        steps = event.angleDelta().y() or event.angleDelta().x()
        if steps:
            self._owner.zoom_by(1.0015 ** steps, event.position().toPoint())
        event.accept()

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:  # noqa: N802
        key = event.key()
        if key == Qt.Key.Key_F:
            self._owner.fit()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self._owner.zoom_by(1.25)
        elif key == Qt.Key.Key_Minus:
            self._owner.zoom_by(0.8)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def viewportEvent(self, event: QtCore.QEvent) -> bool:  # noqa: N802
        if event.type() == QtCore.QEvent.Type.ToolTip:
            help_event: QtGui.QHelpEvent = event  # type: ignore[assignment]
            text = self._owner.tooltip_at(help_event.pos())
            if text:
                QtWidgets.QToolTip.showText(help_event.globalPos(), text, self.viewport())
            else:
                QtWidgets.QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._owner._on_resized()


class JaxprGraphView(QtWidgets.QWidget):
    """The current jaxpr as a graph: equations as nodes, variables as edges, sub-jaxprs as
    collapsible groups; values, errors, the stepping position and the editor line on top."""

    sig_node_selected = Signal(object)
    """An equation node was clicked: its path, a tuple (the tree view's row path)."""
    sig_var_selected = Signal(object)
    """An edge, input or output node was clicked: the variable's ``VarRef``."""
    sig_group_toggled = Signal(object)
    """A group was expanded or collapsed by the user: its id (equation path or ChunkId)."""
    sig_show_values_changed = Signal(bool)
    """The "values" toggle changed (by the user or ``set_show_values``)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jaxprGraph")
        self._tree: JaxprNode | None = None
        self._graph: DisplayGraph | None = None
        self._options = LayoutOptions()
        self._expanded: set[GroupId] = set()
        self._collapsed: set[GroupId] = set()
        self._values: ValuesResult | None = None
        self._show_values = False
        self._scale = 1.0
        self._scheme = "dark"
        self._colours: GraphColours = graph_colours("dark")
        self._fit_mode = True
        self._selected_id: NodeId | None = None
        self._selected_var: VarRef | None = None
        self._hover_edge = -1
        self._lines: set[int] = set()
        self._step_current: Path | None = None
        self._step_done: int | Collection[Path] | None = None
        self._order_rank: dict[Path, int] | None = None
        self._font = QtGui.QFont()
        self._bold = QtGui.QFont()
        self._text_cache: dict[int, tuple[str, str]] = {}
        self._spark_cache: dict[int, Any] = {}
        self._build_ui()
        self.set_presentation_scale(1.0)
        self.set_scheme("dark")
        self._reset_arrays()
        self.set_graph(None, "")

    # ------------------------------------------------------------------ widgets

    def _build_ui(self) -> None:
        self.legend = QtWidgets.QLabel(self)
        self.legend.setObjectName("jaxprGraphLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.info = QtWidgets.QLabel(self)
        self.info.setObjectName("jaxprGraphInfo")
        self.values_box = QtWidgets.QCheckBox("values", self)
        self.values_box.setObjectName("jaxprGraphValues")
        self.values_box.setToolTip("Draw each node's values: a sparkline or a histogram")
        self.values_box.toggled.connect(self._on_values_toggled)
        self.fit_button = QtWidgets.QToolButton(self)
        self.fit_button.setObjectName("jaxprGraphFit")
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip("Show the whole graph (F, or double-click the background)")
        self.fit_button.clicked.connect(self.fit)
        self.legend.setWordWrap(True)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(self.info, 1)
        bar.addWidget(self.values_box)
        bar.addWidget(self.fit_button)
        self.canvas = GraphCanvas(self)
        self.message = QtWidgets.QLabel(self)
        self.message.setObjectName("jaxprGraphMessage")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self._stack = QtWidgets.QStackedWidget(self)
        self._stack.addWidget(self.canvas)
        self._stack.addWidget(self.message)
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(0)
        col.addLayout(bar)
        col.addWidget(self._stack, 1)
        self.legend.setContentsMargins(4, 2, 4, 2)
        col.addWidget(self.legend)

    # ------------------------------------------------------------------ public API

    @property
    def graph(self) -> DisplayGraph | None:
        """The laid-out graph now shown (None when cleared)."""
        return self._graph

    def set_graph(self, tree: JaxprNode | None, message: str = "") -> None:
        """Show ``tree`` (None: clear and show ``message``). Values and the stepping position
        belonged to the old tree and are dropped; expanded/collapsed choices are kept while
        their paths still exist, and so is the zoom unless the view was fitted."""
        self._tree = tree
        self._values = None
        self._order_rank = None
        self._step_current = None
        self._step_done = None
        self._hover_edge = -1
        self._selected_var = None
        if tree is None:
            self._expanded.clear()
            self._collapsed.clear()
            self._graph = None
            self._reset_arrays()
            self.message.setText(message)
            self._stack.setCurrentWidget(self.message)
            self.info.setText("")
            return
        self._stack.setCurrentWidget(self.canvas)
        self._relayout(anchor=None)

    def set_controls_visible(self, on: bool) -> None:
        """Show or hide the widget's own bar (values toggle, Fit) when a panel has its own."""
        for w in (self.values_box, self.fit_button):
            w.setVisible(on)

    def set_collapse_threshold(self, n: int) -> None:
        """Groups of more than ``n`` equations start collapsed (the user's own choices stay)."""
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"the collapse threshold is a count of equations >= 0, got {n!r}")
        self._options = replace(self._options, threshold=n)
        if self._tree is not None:
            self._relayout(anchor=None)

    def collapse_threshold(self) -> int:
        return self._options.threshold

    def set_layout_options(self, options: LayoutOptions) -> None:
        """Chunking and sizes (at presentation scale 1); for tests and benchmarks mostly."""
        self._options = options
        if self._tree is not None:
            self._relayout(anchor=None)

    def toggle_group(self, group: GroupId) -> None:
        """Expand a collapsed group or collapse an expanded one; the view keeps it in place."""
        g = self._graph
        if g is None or group not in g.groups:
            raise KeyError(f"no group {group!r} on screen")
        expanded = g.groups[group][1]
        (self._collapsed if expanded else self._expanded).add(group)
        (self._expanded if expanded else self._collapsed).discard(group)
        self._relayout(anchor=group)

    def is_expanded(self, group: GroupId) -> bool:
        return self._graph is not None and self._graph.groups.get(group, (0, False))[1]

    def fit(self) -> None:
        """Show the whole graph (never zoomed in past 1.5x for a small one)."""
        self._fit_mode = True
        g = self._graph
        if g is None:
            return
        self._update_scene_rect()
        pad = 16.0 * self._scale
        rect = QtCore.QRectF(-pad, -pad, g.width + 2 * pad, g.height + 2 * pad)
        self.canvas.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        s = self.canvas.scale_factor()
        if s > MAX_FIT_SCALE or s < MIN_SCALE:
            self._set_scale(min(max(s, MIN_SCALE), MAX_FIT_SCALE))
        self._update_scene_rect()
        self.canvas.centerOn(rect.center())
        self.canvas.viewport().update()

    def zoom_by(self, factor: float, at: QtCore.QPoint | None = None) -> None:
        """Zoom by ``factor`` keeping the scene point under ``at`` (view pixels) in place."""
        if self._graph is None:
            return
        self._fit_mode = False
        view = self.canvas
        at = at if at is not None else view.viewport().rect().center()
        before = view.mapToScene(at)
        s = view.scale_factor()
        self._set_scale(min(max(s * factor, MIN_SCALE), MAX_SCALE))
        self._update_scene_rect()
        after = view.mapFromScene(before)
        view.horizontalScrollBar().setValue(view.horizontalScrollBar().value() + after.x() - at.x())
        view.verticalScrollBar().setValue(view.verticalScrollBar().value() + after.y() - at.y())
        view.viewport().update()

    def zoom(self) -> float:
        """View pixels per scene pixel."""
        return self.canvas.scale_factor()

    def set_values(self, values: ValuesResult | None) -> None:
        """Values of the shown tree (None: none): not-run nodes dimmed, errors red, NaN/Inf
        badges, tooltips with summaries, sparklines when the values toggle is on."""
        self._values = values
        self._order_rank = None
        self._spark_cache.clear()
        self._apply_states()

    def values(self) -> ValuesResult | None:
        return self._values

    def set_show_values(self, on: bool) -> None:
        """The "values" toggle: a sparkline or histogram on every node (nodes grow to hold it)."""
        if self.values_box.isChecked() != on:
            self.values_box.setChecked(on)  # -> _on_values_toggled
            return
        if self._show_values != on:
            self._show_values = on
            if self._tree is not None:
                self._relayout(anchor=None)

    def show_values(self) -> bool:
        return self._show_values

    def select(self, path: Path | None) -> None:
        """Select the node of equation ``path`` (or the group that hides it); no signal."""
        self._selected_id = path
        self._selected_var = None
        self.canvas.viewport().update()

    def select_var(self, ref: VarRef | None) -> None:
        """Highlight every edge of variable ``ref``; no signal."""
        self._selected_var = ref
        self.canvas.viewport().update()

    def hovered_edge(self) -> int | None:
        """The edge under the mouse, drawn highlighted."""
        return self._hover_edge if self._hover_edge >= 0 else None

    def highlighted_edges(self) -> list[int]:
        """Edges drawn highlighted: the selected variable's, and the hovered one."""
        g = self._graph
        if g is None:
            return []
        sel = self._selected_var
        return [k for k, e in enumerate(g.edges)
                if (sel is not None and e.ref == sel) or k == self._hover_edge]

    def selected_node(self) -> int | None:
        """Index of the node drawn as selected, if any."""
        return self._index_of(self._selected_id)

    def center_on(self, path: Path) -> None:
        """Centre equation ``path``, expanding the groups around it; no signal."""
        if self._tree is None or self._graph is None:
            return
        need = [gid for gid in groups_containing(self._tree, path, self._graph.options)
                if not self._graph.groups.get(gid, (0, False))[1]]
        if need:
            self._expanded.update(need)
            self._collapsed.difference_update(need)
            self._relayout(anchor=None, keep_fit=False)
        i = self._graph.visible_for(path)
        if i is None:
            return
        self._fit_mode = False
        nd = self._graph.nodes[i]
        if QtGui.QFontMetricsF(self._font).height() * self.canvas.scale_factor() < 2 * TEXT_MIN_PX:
            self._set_scale(1.0)  # too small to read its label: 1:1
            self._update_scene_rect()
        self.canvas.centerOn(nd.x + nd.w / 2, nd.y + nd.h / 2)
        self.canvas.viewport().update()

    def highlight_lines(self, lines: Iterable[int]) -> None:
        """Mark the nodes of these editor lines (the cursor's line)."""
        self._lines = set(lines)
        self._apply_line_highlight()
        self.canvas.viewport().update()

    def highlighted_nodes(self) -> list[int]:
        return [int(i) for i in np.nonzero(self._line_hl)[0]]

    def set_step(self, current: Path | None,
                 done: int | Collection[Path] | None = None) -> None:
        """Stepping: ``current`` strongly marked, and what is not evaluated yet dimmed.

        ``done`` is a count into ``step_order()`` (the first ``done`` equations have run) or
        the set of paths that have; None with ``current`` None ends stepping.
        """
        self._step_current = current
        self._step_done = done
        self._apply_step()
        self.canvas.viewport().update()

    def step_order(self) -> list[Path]:
        """Evaluation order of the shown tree (only what ran, once values are set)."""
        if self._tree is None:
            return []
        return evaluation_order(self._tree, self._values.root if self._values else None)

    def current_node(self) -> int | None:
        if self._graph is None or self._step_current is None:
            return None
        return self._graph.visible_for(self._step_current)

    def node_states(self, i: int) -> dict[str, bool]:
        """What node ``i`` is drawn as (tests and the window's status line read it)."""
        return {"dim": bool(self._dim[i] or self._step_dim[i]), "not_run": bool(self._dim[i]),
                "not_yet": bool(self._step_dim[i]), "error": bool(self._error[i]),
                "highlighted": bool(self._line_hl[i]),
                "selected": self.selected_node() == i, "current": self.current_node() == i}

    def badge(self, i: int) -> str:
        """The badge on node ``i``: "first NaN here", "NaN", "Inf", ... or ""."""
        return self._badges.get(i, "")

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's colour scheme, ``"light"`` or ``"dark"``."""
        self._scheme = "light" if scheme == "light" else "dark"
        self._colours = graph_colours(self._scheme)
        c = self._colours
        self._brushes: dict[tuple[str, int], QtGui.QBrush] = {}
        self._pens: dict[tuple[str, int], QtGui.QPen] = {}
        for key in _STYLE_KEYS:
            self._brushes[(key, _NORMAL)] = QtGui.QBrush(QtGui.QColor(c.fills[key]))
            self._brushes[(key, _DIM)] = QtGui.QBrush(QtGui.QColor(c.dim_fill))
            self._brushes[(key, _ERROR)] = QtGui.QBrush(QtGui.QColor(c.error_fill))
            for state, colour in ((_NORMAL, c.borders[key]), (_DIM, c.muted),
                                  (_ERROR, c.error)):
                pen = QtGui.QPen(QtGui.QColor(colour), 1.2 if state != _ERROR else 2.5)
                pen.setCosmetic(True)
                self._pens[(key, state)] = pen
        self.canvas.setBackgroundBrush(QtGui.QColor(c.background))
        pal = self.message.palette()
        pal.setColor(QtGui.QPalette.ColorRole.WindowText, QtGui.QColor(c.muted))
        self.message.setPalette(pal)
        swatches = " ".join(
            f'<span style="color:{FAMILY_COLOURS[f]}">■</span>&nbsp;{f}' for f in FAMILIES)
        self.legend.setText(swatches)
        self.canvas.viewport().update()

    def scheme(self) -> str:
        return self._scheme

    def background_colour(self) -> QtGui.QColor:
        return QtGui.QColor(self._colours.background)

    def set_presentation_scale(self, factor: float) -> None:
        """Fonts, node sizes and line widths for a projector: 1.0 is the normal size."""
        if not factor > 0:
            raise ValueError(f"a presentation scale is > 0, got {factor!r}")
        self._scale = float(factor)
        self._font = QtGui.QFont()
        self._font.setPointSizeF(BASE_FONT_PT * factor)
        self._bold = QtGui.QFont(self._font)
        self._bold.setBold(True)
        for w in (self.legend, self.info, self.values_box, self.fit_button, self.message):
            f = QtGui.QFont()
            f.setPointSizeF(BASE_FONT_PT * factor)
            w.setFont(f)
        if self._tree is not None:
            self._relayout(anchor=None)

    def presentation_scale(self) -> float:
        return self._scale

    # ------------------------------------------------------------------ geometry helpers

    def node_index(self, node_id: NodeId) -> int | None:
        return self._graph.index.get(node_id) if self._graph is not None else None

    def node_view_pos(self, node_id: NodeId) -> QtCore.QPoint:
        """The centre of a node in the canvas viewport's pixels (tests click there)."""
        i = self.node_index(node_id)
        if i is None or self._graph is None:
            raise KeyError(f"node {node_id!r} is not on screen")
        nd = self._graph.nodes[i]
        return self.canvas.mapFromScene(QtCore.QPointF(nd.x + nd.w / 2, nd.y + nd.h / 2))

    def edge_view_pos(self, edge: int) -> QtCore.QPoint:
        """The middle of an edge's first segment in viewport pixels."""
        assert self._graph is not None
        pts = self._graph.edges[edge].points
        a, b = pts[0], pts[1]
        return self.canvas.mapFromScene(QtCore.QPointF((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))

    def node_at(self, pos: QtCore.QPoint) -> int | None:
        """The node under viewport pixel ``pos``."""
        if self._graph is None or not len(self._x0):
            return None
        p = self.canvas.mapToScene(pos)
        hit = np.nonzero((self._x0 <= p.x()) & (p.x() <= self._x1) & (self._y0 <= p.y())
                         & (p.y() <= self._y1))[0]
        return int(hit[-1]) if len(hit) else None

    def edge_at(self, pos: QtCore.QPoint) -> int | None:
        """The edge nearest viewport pixel ``pos``, within a few pixels."""
        if self._graph is None or not len(self._seg):
            return None
        p = self.canvas.mapToScene(pos)
        px, py = p.x(), p.y()
        a = self._seg[:, 0:2]
        d = self._seg[:, 2:4] - a
        len2 = (d * d).sum(axis=1)
        t = np.clip(((px - a[:, 0]) * d[:, 0] + (py - a[:, 1]) * d[:, 1])
                    / np.where(len2 > 0, len2, 1.0), 0.0, 1.0)
        cx, cy = a[:, 0] + t * d[:, 0], a[:, 1] + t * d[:, 1]
        dist2 = (cx - px) ** 2 + (cy - py) ** 2
        k = int(np.argmin(dist2))
        tol = EDGE_HIT_PX / max(self.canvas.scale_factor(), 1e-6)
        return int(self._seg_edge[k]) if dist2[k] <= tol * tol else None

    # ------------------------------------------------------------------ tooltips

    def tooltip_at(self, pos: QtCore.QPoint) -> str:
        i = self.node_at(pos)
        if i is not None:
            return self.node_tooltip(i)
        e = self.edge_at(pos)
        return self.edge_tooltip(e) if e is not None else ""

    def _instance_values(self, path: Path) -> NodeValues | None:
        if self._values is None or self._tree is None:
            return None
        found = node_at(self._tree, self._values.root, path)
        return found[1] if found is not None else None

    def var_summary(self, ref: VarRef | None) -> ValueSummary | None:
        if ref is None:
            return None
        vals = self._instance_values(ref.node)
        return summary_of(vals, ref) if vals is not None else None

    def edge_tooltip(self, e: int) -> str:
        """Variable name, type, and with values its min/max/mean/std and NaN/Inf counts."""
        assert self._graph is not None
        ed = self._graph.edges[e]
        s = self.var_summary(ed.ref)
        ran = None if self._values is None else not self._dim[ed.src]
        return summary_text(ed.name, ed.type, s, ran)

    def node_tooltip(self, i: int) -> str:
        """What a node is, its line, its outputs' summaries, its error or NaN badge."""
        assert self._graph is not None
        nd = self._graph.nodes[i]
        if nd.kind in ("input", "const", "output", "port"):
            what = {"input": "input", "const": "constant", "output": "output",
                    "port": "enters this chunk" if isinstance(nd.id, PortId) and not nd.id.out
                    else "leaves this chunk"}[nd.kind]
            s = self.var_summary(nd.ref)
            if s is None and nd.kind == "output" and isinstance(nd.id, IoId) and \
                    not nd.id.node and self._values is not None:
                outs = self._values.outputs
                s = outs[nd.id.index] if nd.id.index < len(outs) else None
            ran = None if self._values is None else not self._dim[i]
            return f"{what}\n" + summary_text(nd.label, nd.detail, s, ran)
        lines = [nd.label + (f"   (line {nd.line})" if nd.line is not None else "")]
        if nd.group is not None:
            state = "expanded" if nd.expanded else "collapsed"
            lines.append(f"{state} group of {nd.size:,} equations · double-click to "
                         f"{'collapse' if nd.expanded else 'expand'}")
        eqn = nd.eqn
        if eqn is not None:
            ev = eqn_values_at(self._values.root, nd.id) if self._values and isinstance(
                nd.id, tuple) else None
            for j, v in enumerate(eqn.outvars):
                s = ev.outs[j] if ev is not None and j < len(ev.outs) else None
                if s is None:
                    lines.append(f"{v.name}: {v.type}")
                else:
                    lines.append(f"{v.name}: {s.type_text}  {s.range_text()}")
            if ev is not None and ev.taken is not None:
                lines.append(f"branch taken: {ev.taken}")
            if ev is not None and ev.iterations is not None:
                lines.append(f"iterations: {ev.iterations:,}")
            if ev is not None and ev.error is not None:
                lines.append(f"error: {ev.error}")
            shown = [f"{k}={v}" for k, v in eqn.params.items() if "jaxpr" not in k
                     and k != "branches"][:6]
            lines.extend(t if len(t) <= 70 else t[:69] + "…" for t in shown)
        if self._values is not None and self._dim[i]:
            lines.append("did not run")
        if self._error[i] and not any(t.startswith("error: ") for t in lines):
            err = self._values.error if self._values is not None else None
            where = "inside" if nd.group is not None and not nd.expanded else "here"
            text = f"{err.title}: {err.message}" if err is not None else "failed"
            lines.append(f"error {where}: {text}")
        badge = self._badges.get(i)
        if badge:
            lines.append(badge)
        return "\n".join(lines)

    # ------------------------------------------------------------------ state

    def _reset_arrays(self) -> None:
        self._x0 = self._y0 = self._x1 = self._y1 = np.zeros(0)
        self._codes = np.zeros(0, dtype=np.int64)
        self._dim = np.zeros(0, dtype=bool)
        self._step_dim = np.zeros(0, dtype=bool)
        self._error = np.zeros(0, dtype=bool)
        self._line_hl = np.zeros(0, dtype=bool)
        self._badges: dict[int, str] = {}
        self._fam = np.zeros(0, dtype=np.int64)
        self._seg = np.zeros((0, 4))
        self._seg_edge = np.zeros(0, dtype=np.int64)
        self._ebox = np.zeros((0, 4))
        self._edge_src = np.zeros(0, dtype=np.int64)
        self._rects: list[QtCore.QRectF] = []
        self._polys: dict[int, QtGui.QPolygonF] = {}
        self._arrows: dict[int, QtGui.QPolygonF] = {}
        self._points = np.zeros((0, 2))
        self._point_edge = np.zeros(0, dtype=np.int64)
        self._point_connect = np.zeros(0, dtype=np.int32)
        self._far_cache: tuple[bytes, tuple[QtGui.QPainterPath, QtGui.QPainterPath]] | None = None
        self._box_rects: list[QtCore.QRectF] = []
        self._text_cache.clear()
        self._spark_cache.clear()

    def _index_of(self, node_id: NodeId | None) -> int | None:
        if node_id is None or self._graph is None:
            return None
        hit = self._graph.index.get(node_id)
        if hit is None and isinstance(node_id, tuple):
            return self._graph.visible_for(node_id)
        return hit

    def _relayout(self, anchor: GroupId | None, keep_fit: bool = True) -> None:
        """Lay the tree out again with the current choices, keeping the view steady."""
        assert self._tree is not None
        view = self.canvas
        old_pos: QtCore.QPoint | None = None
        if anchor is not None and self._graph is not None:
            i = self._graph.index.get(anchor)
            if i is not None:
                nd = self._graph.nodes[i]
                old_pos = view.mapFromScene(QtCore.QPointF(nd.x + nd.w / 2, nd.y))
        centre = view.mapToScene(view.viewport().rect().center())
        fm = QtGui.QFontMetricsF(self._font)
        bold = QtGui.QFontMetricsF(self._bold)
        line = fm.lineSpacing()
        # Pixel sizes scale with the presentation; the text-bound ones follow the real font.
        opts = replace(self._options.scaled(self._scale),
                       text_width=lambda t: bold.horizontalAdvance(t) + 2.0,
                       node_h=2 * line + 10 * self._scale,
                       io_h=line + 8 * self._scale,
                       header_h=line + 10 * self._scale,
                       subtitle_h=line + 2 * self._scale,
                       values_h=VALUES_ROW * self._scale if self._show_values else 0.0)
        g = build_graph(self._tree, opts, self._expanded, self._collapsed)
        # Choices about groups that no longer exist would pile up over edits.
        self._graph = g
        self._reset_arrays()
        n = len(g.nodes)
        self._x0 = np.fromiter((nd.x for nd in g.nodes), float, n)
        self._y0 = np.fromiter((nd.y for nd in g.nodes), float, n)
        self._x1 = self._x0 + np.fromiter((nd.w for nd in g.nodes), float, n)
        self._y1 = self._y0 + np.fromiter((nd.h for nd in g.nodes), float, n)
        fam_index = {k: i for i, k in enumerate(_STYLE_KEYS)}
        self._fam = np.fromiter((fam_index.get(nd.family, 5) for nd in g.nodes), np.int64, n)
        self._rects = [QtCore.QRectF(nd.x, nd.y, nd.w, nd.h) for nd in g.nodes]
        if g.edges:
            counts = np.fromiter((len(ed.points) for ed in g.edges), np.int64, len(g.edges))
            pts = np.concatenate([ed.points for ed in g.edges])
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            last = np.cumsum(counts) - 1
            keep = np.ones(len(pts) - 1, dtype=bool)
            keep[last[:-1]] = False  # no segment from one edge's end to the next one's start
            self._seg = np.hstack([pts[:-1], pts[1:]])[keep]
            self._seg_edge = np.repeat(np.arange(len(g.edges)), counts - 1)
            self._ebox = np.column_stack([np.minimum.reduceat(pts[:, 0], starts),
                                          np.minimum.reduceat(pts[:, 1], starts),
                                          np.maximum.reduceat(pts[:, 0], starts),
                                          np.maximum.reduceat(pts[:, 1], starts)])
            self._edge_src = np.fromiter((ed.src for ed in g.edges), np.int64, len(g.edges))
            self._points = pts
            self._point_edge = np.repeat(np.arange(len(g.edges)), counts)
            self._point_connect = np.ones(len(pts), dtype=np.int32)
            self._point_connect[last] = 0
        self._box_rects = [QtCore.QRectF(b.x, b.y, b.w, b.h) for b in g.boxes]
        self._order_rank = None
        self._apply_states()
        groups = sum(1 for _, e in g.groups.values() if not e)
        info = f"{sum(1 for nd in g.nodes if nd.kind == 'eqn'):,} equations shown"
        if g.hidden:
            info += f" · {g.hidden:,} inside {groups:,} collapsed groups"
        self.info.setText(info)
        self._update_scene_rect()
        if self._fit_mode and keep_fit:
            self.fit()
            return
        if anchor is not None and old_pos is not None:
            i = g.index.get(anchor)
            if i is not None:
                nd = g.nodes[i]
                new_pos = view.mapFromScene(QtCore.QPointF(nd.x + nd.w / 2, nd.y))
                view.horizontalScrollBar().setValue(view.horizontalScrollBar().value()
                                                    + new_pos.x() - old_pos.x())
                view.verticalScrollBar().setValue(view.verticalScrollBar().value()
                                                  + new_pos.y() - old_pos.y())
        else:
            view.centerOn(centre)
        view.viewport().update()

    def _set_scale(self, s: float) -> None:
        t = QtGui.QTransform()
        t.scale(s, s)
        self.canvas.setTransform(t)

    def _update_scene_rect(self) -> None:
        """The graph plus room to pan any part of it to the middle of the view."""
        g = self._graph
        if g is None:
            return
        s = max(self.canvas.scale_factor(), 1e-6)
        vp = self.canvas.viewport().rect()
        mx, my = vp.width() / s / 2, vp.height() / s / 2
        self.canvas.setSceneRect(QtCore.QRectF(-mx, -my, g.width + 2 * mx, g.height + 2 * my))

    def _apply_states(self) -> None:
        """Not-run, error and badge marks from the values; then step and line marks."""
        g = self._graph
        if g is None:
            return
        n = len(g.nodes)
        self._dim = np.zeros(n, dtype=bool)
        self._error = np.zeros(n, dtype=bool)
        self._badges = {}
        v = self._values
        if v is not None and self._tree is not None:
            root = v.root
            err_path = v.error_path
            for i, nd in enumerate(g.nodes):
                nid = nd.id
                if isinstance(nid, tuple):
                    ev = eqn_values_at(root, nid)
                    self._dim[i] = ev is None and err_path != nid
                    if ev is not None and ev.error is not None or err_path == nid:
                        self._error[i] = True
                    inside = nd.group is not None and not nd.expanded
                    here = [w for w, p in (("NaN", v.first_nan), ("Inf", v.first_inf))
                            if p == nid]
                    within = [w for w, p in (("NaN", v.first_nan), ("Inf", v.first_inf))
                              if inside and p is not None and p[:len(nid)] == nid]
                    new = [w for w, flag in (("NaN", ev and ev.new_nan), ("Inf", ev and ev.new_inf))
                           if flag]
                    if here:
                        self._badges[i] = f"first {' and '.join(here)} here"
                    elif within:
                        self._badges[i] = f"first {' and '.join(within)} inside"
                    elif new:
                        self._badges[i] = f"new {' and '.join(new)}"
                    if inside and err_path is not None and err_path[:len(nid)] == nid:
                        self._error[i] = True
                elif isinstance(nid, ChunkId):
                    ev = eqn_values_at(root, (*nid.node, nid.start))
                    self._dim[i] = ev is None
                    if err_path is not None and err_path[:len(nid.node)] == nid.node and \
                            nid.start <= err_path[len(nid.node)] < nid.stop:
                        self._error[i] = True
                        self._dim[i] = False
                    for bad, text in ((v.first_nan, "first NaN inside"),
                                      (v.first_inf, "first Inf inside")):
                        if bad is not None and bad[:len(nid.node)] == nid.node and \
                                nid.start <= bad[len(nid.node)] < nid.stop:
                            self._badges.setdefault(i, text)
                else:
                    inst = nid.node if isinstance(nid, IoId) else nid.chunk.node
                    vals = self._instance_values(inst)
                    if vals is None:
                        self._dim[i] = True
                    elif nd.kind == "output" or nd.kind == "port":
                        ref = nd.ref
                        self._dim[i] = ref is not None and summary_of(vals, ref) is None
        self._apply_step()
        self._apply_line_highlight()

    def _ranks(self) -> np.ndarray:
        """Each node's position in the evaluation order (inputs -1, not run: never)."""
        g = self._graph
        assert g is not None
        if self._order_rank is None:
            self._order_rank = {p: k for k, p in enumerate(self.step_order())}
        rank = self._order_rank
        never = float(len(rank) + 1)
        first: dict[Path, int] = {}
        for p, k in rank.items():
            inst = p[:-1]
            if inst not in first or k < first[inst]:
                first[inst] = k
        out = np.full(len(g.nodes), never)
        for i, nd in enumerate(g.nodes):
            nid = nd.id
            if isinstance(nid, tuple):
                out[i] = rank.get(nid, never)
            elif isinstance(nid, ChunkId):
                ks = [rank[(*nid.node, e)] for e in range(nid.start, nid.stop)
                      if (*nid.node, e) in rank]
                out[i] = max(ks) if ks else never
            elif nd.kind in ("input", "const") and isinstance(nid, IoId):
                out[i] = -1.0 if not nid.node else first.get(nid.node, never) - 0.5
            elif nd.ref is not None and nd.ref.eqn is not None:
                out[i] = rank.get((*nd.ref.node, nd.ref.eqn), never)
            elif nd.kind == "port" and isinstance(nid, PortId) and not nid.out:
                out[i] = -1.0
            else:
                out[i] = -1.0 if not nd.instance else first.get(nd.instance, never) - 0.5
        return out

    def _apply_step(self) -> None:
        g = self._graph
        if g is None:
            return
        n = len(g.nodes)
        done = self._step_done
        if done is None:
            self._step_dim = np.zeros(n, dtype=bool)
        elif isinstance(done, int):
            self._step_dim = self._ranks() >= done
        else:
            done_set = done if isinstance(done, set | frozenset) else set(done)
            self._step_dim = np.fromiter(
                (isinstance(nd.id, tuple) and nd.id not in done_set for nd in g.nodes), bool, n)
        current = self.current_node()
        if current is not None:
            self._step_dim[current] = False  # marked, never greyed out

    def _apply_line_highlight(self) -> None:
        g = self._graph
        if g is None:
            return
        self._line_hl = np.zeros(len(g.nodes), dtype=bool)
        for line in self._lines:
            for i in g.lines.get(line, ()):
                self._line_hl[i] = True

    # ------------------------------------------------------------------ events

    def _on_values_toggled(self, on: bool) -> None:
        if self._show_values != on:
            self._show_values = on
            if self._tree is not None:
                self._relayout(anchor=None)
        self.sig_show_values_changed.emit(on)

    def _on_resized(self) -> None:
        if self._graph is None:
            return
        self._update_scene_rect()
        if self._fit_mode:
            self.fit()

    def _toggle_hit(self, i: int, pos: QtCore.QPoint) -> bool:
        """Whether ``pos`` is on the +/- box at the right end of group node ``i``."""
        assert self._graph is not None
        nd = self._graph.nodes[i]
        if nd.group is None:
            return False
        p = self.canvas.mapToScene(pos)
        tw = self._options.toggle_w * self._scale
        return p.x() >= nd.x + nd.w - tw and p.y() <= nd.y + min(nd.h, tw + 8 * self._scale)

    def _on_click(self, pos: QtCore.QPoint) -> None:
        g = self._graph
        if g is None:
            return
        i = self.node_at(pos)
        if i is not None:
            nd = g.nodes[i]
            if nd.group is not None and self._toggle_hit(i, pos):
                self._user_toggle(nd.group)
                return
            if isinstance(nd.id, tuple):
                self._selected_id = nd.id
                self._selected_var = None
                self.canvas.viewport().update()
                self.sig_node_selected.emit(nd.id)
            elif nd.ref is not None:
                self._selected_id = nd.id
                self._selected_var = nd.ref
                self.canvas.viewport().update()
                self.sig_var_selected.emit(nd.ref)
            return
        e = self.edge_at(pos)
        if e is not None and g.edges[e].ref is not None:
            self._selected_var = g.edges[e].ref
            self._selected_id = None
            self.canvas.viewport().update()
            self.sig_var_selected.emit(g.edges[e].ref)

    def _on_double_click(self, pos: QtCore.QPoint) -> None:
        g = self._graph
        if g is None:
            return
        i = self.node_at(pos)
        if i is None:
            if self.edge_at(pos) is None:
                self.fit()
            return
        nd = g.nodes[i]
        if nd.group is not None:
            self._user_toggle(nd.group)

    def _user_toggle(self, group: GroupId) -> None:
        self._fit_mode = False
        self.toggle_group(group)
        self.sig_group_toggled.emit(group)

    def _on_hover(self, pos: QtCore.QPoint) -> None:
        e = self.edge_at(pos) if self.node_at(pos) is None else None
        e = -1 if e is None else e
        if e != self._hover_edge:
            self._hover_edge = e
            self.canvas.viewport().update()

    # ------------------------------------------------------------------ painting

    def _paint(self, painter: QtGui.QPainter, rect: QtCore.QRectF) -> None:
        c = self._colours
        painter.fillRect(rect, QtGui.QColor(c.background))
        g = self._graph
        if g is None or not len(g.nodes):
            return
        s = self.canvas.scale_factor()
        rx0, ry0, rx1, ry1 = rect.left(), rect.top(), rect.right(), rect.bottom()
        fm_px = QtGui.QFontMetricsF(self._font).height() * s
        text = fm_px >= TEXT_MIN_PX
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, s >= 0.3)
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
        # Boxes, outermost first.
        pen = QtGui.QPen(QtGui.QColor(c.box_border), 1.0)
        pen.setCosmetic(True)
        painter.setPen(pen)
        for b, r in zip(g.boxes, self._box_rects, strict=True):
            if b.x > rx1 or b.y > ry1 or b.x + b.w < rx0 or b.y + b.h < ry0:
                continue
            painter.setBrush(QtGui.QColor(c.box_fill[b.depth % 2]))
            painter.drawRect(r)
            if text and b.kind == "sub" and b.title:
                painter.setFont(self._font)
                painter.setPen(QtGui.QColor(c.muted))
                painter.drawText(r.adjusted(6 * self._scale, 1, 0, 0),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, b.title)
                painter.setPen(pen)
        # Edges: zoomed out, every visible segment in one call; closer, antialiased polylines.
        eb = self._ebox
        vis = np.nonzero((eb[:, 0] <= rx1) & (eb[:, 2] >= rx0) & (eb[:, 1] <= ry1)
                         & (eb[:, 3] >= ry0))[0] if len(eb) else np.zeros(0, np.int64)
        dim = self._dim | self._step_dim
        edge_dim = dim[self._edge_src]
        painter.setBrush(Qt.BrushStyle.NoBrush)
        far = s < 0.3
        if far and len(vis):
            for dimmed, path in zip((True, False), self._far_paths(edge_dim), strict=True):
                pen = QtGui.QPen(QtGui.QColor(c.muted if dimmed else c.edge), 1.0)
                pen.setCosmetic(True)
                painter.setPen(pen)
                painter.drawPath(path)
        elif len(vis):
            for dimmed in (True, False):
                pen = QtGui.QPen(QtGui.QColor(c.muted if dimmed else c.edge),
                                 1.0 if dimmed else 1.3)
                pen.setCosmetic(True)
                painter.setPen(pen)
                for k in vis[edge_dim[vis] == dimmed]:
                    painter.drawPolyline(self._poly(int(k)))
        sel_var = self._selected_var
        if sel_var is not None or self._hover_edge >= 0:
            strong = [int(k) for k in vis if sel_var is not None and g.edges[k].ref == sel_var
                      or k == self._hover_edge]
            pen = QtGui.QPen(QtGui.QColor(c.edge_hover), 2.6)
            pen.setCosmetic(True)
            painter.setPen(pen)
            for k in strong:
                painter.drawPolyline(self._poly(k))
        if s >= 0.35 and len(vis):
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QtGui.QColor(c.edge))
            for k in vis:
                painter.drawPolygon(self._arrow(int(k)))
        # Nodes, batched by style.
        nvis = np.nonzero((self._x0 <= rx1) & (self._x1 >= rx0) & (self._y0 <= ry1)
                          & (self._y1 >= ry0))[0]
        if not len(nvis):
            return
        state = np.where(self._error[nvis], _ERROR, np.where(dim[nvis], _DIM, _NORMAL))
        code = self._fam[nvis] * 3 + state
        rects = self._rects
        rounded = len(nvis) <= 400
        if far:
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        radius = 4 * self._scale
        for cval in np.unique(code):
            key = (_STYLE_KEYS[int(cval) // 3], int(cval) % 3)
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
        # Marks: line highlight, selection, stepping.
        painter.setBrush(Qt.BrushStyle.NoBrush)
        grow = 3.0 / max(s, 1e-6)
        for mask, colour, width in ((self._line_hl[nvis], c.line_highlight, 3.0),):
            if mask.any():
                pen = QtGui.QPen(QtGui.QColor(colour), width)
                pen.setCosmetic(True)
                painter.setPen(pen)
                for i in nvis[mask]:
                    painter.drawRect(rects[i].adjusted(-grow, -grow, grow, grow))
        for idx, colour, width in ((self.selected_node(), c.selected, 3.0),
                                   (self.current_node(), c.current, 4.5)):
            if idx is not None:
                pen = QtGui.QPen(QtGui.QColor(colour), width)
                pen.setCosmetic(True)
                painter.setPen(pen)
                g2 = grow * (2 if colour == c.current else 1.4)
                painter.drawRect(rects[idx].adjusted(-g2, -g2, g2, g2))
        # Badges (a dot when zoomed out, the words when they can be read).
        if self._badges:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QtGui.QColor(c.badge))
            for i, word in self._badges.items():
                if not (self._x0[i] <= rx1 and self._x1[i] >= rx0 and self._y0[i] <= ry1
                        and self._y1[i] >= ry0):
                    continue
                r = rects[i]
                if text:
                    painter.setFont(self._font)
                    fm = QtGui.QFontMetricsF(self._font)
                    w = fm.horizontalAdvance(word) + 8 * self._scale
                    h = fm.height() + 2 * self._scale
                    pill = QtCore.QRectF(r.right() - w, r.top() - h * 0.7, w, h)
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.drawRoundedRect(pill, h / 2, h / 2)
                    painter.setPen(QtGui.QColor("#ffffff"))
                    painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, word)
                else:
                    d = 8 / max(s, 1e-6)
                    painter.drawEllipse(QtCore.QRectF(r.right() - d, r.top() - d / 2, d, d))
        if text:
            self._paint_text(painter, nvis, dim)
        if text and self._show_values and self._values is not None:
            self._paint_values(painter, nvis)

    def _poly(self, k: int) -> QtGui.QPolygonF:
        poly = self._polys.get(k)
        if poly is None:
            assert self._graph is not None
            poly = QtGui.QPolygonF([QtCore.QPointF(x, y) for x, y in self._graph.edges[k].points])
            self._polys[k] = poly
        return poly

    def _arrow(self, k: int) -> QtGui.QPolygonF:
        """The arrowhead at an edge's end, pointing along its last segment."""
        head = self._arrows.get(k)
        if head is None:
            assert self._graph is not None
            pts = self._graph.edges[k].points
            tip, prev = pts[-1], pts[-2]
            d = tip - prev
            ux, uy = d / (float(np.hypot(*d)) or 1.0)
            a = 5.0 * self._scale
            head = QtGui.QPolygonF([
                QtCore.QPointF(tip[0], tip[1]),
                QtCore.QPointF(tip[0] - a * ux + a * 0.6 * uy, tip[1] - a * uy - a * 0.6 * ux),
                QtCore.QPointF(tip[0] - a * ux - a * 0.6 * uy, tip[1] - a * uy + a * 0.6 * ux)])
            self._arrows[k] = head
        return head

    def _far_paths(self, edge_dim: np.ndarray) -> tuple[QtGui.QPainterPath, QtGui.QPainterPath]:
        """All dimmed edges as one path and all others as another: zoomed out, two draw calls
        (built again only when which edges are dimmed changes)."""
        key = edge_dim.tobytes()
        if self._far_cache is not None and self._far_cache[0] == key:
            return self._far_cache[1]
        out = []
        for dimmed in (True, False):
            keep = edge_dim[self._point_edge] == dimmed
            if keep.any():
                out.append(pg.arrayToQPath(self._points[keep, 0], self._points[keep, 1],
                                           connect=self._point_connect[keep]))
            else:
                out.append(QtGui.QPainterPath())
        paths = (out[0], out[1])
        self._far_cache = (key, paths)
        return paths

    def _paint_text(self, painter: QtGui.QPainter, nvis: np.ndarray, dim: np.ndarray) -> None:
        g = self._graph
        assert g is not None
        c = self._colours
        fm = QtGui.QFontMetricsF(self._font)
        fmb = QtGui.QFontMetricsF(self._bold)
        pad = self._options.text_pad * self._scale
        line = fm.lineSpacing()
        fg, muted = QtGui.QColor(c.foreground), QtGui.QColor(c.muted)
        tw = self._options.toggle_w * self._scale
        for i in nvis:
            i = int(i)
            nd = g.nodes[i]
            r = self._rects[i]
            toggle = tw if nd.group is not None else 0.0
            cached = self._text_cache.get(i)
            inner_w = r.width() - 2 * pad - toggle
            if cached is None:
                if nd.kind in ("input", "const", "output", "port") or nd.expanded:
                    both = f"{nd.label}  {nd.detail}" if nd.expanded else f"{nd.label}: " \
                        f"{nd.detail}"
                    cached = (fmb.elidedText(both, Qt.TextElideMode.ElideRight, inner_w), "")
                else:
                    cached = (fmb.elidedText(nd.label, Qt.TextElideMode.ElideRight, inner_w),
                              fm.elidedText(nd.detail, Qt.TextElideMode.ElideRight, inner_w))
                self._text_cache[i] = cached
            label, detail = cached
            painter.setPen(muted if dim[i] else fg)
            painter.setFont(self._bold)
            top = r.top() + 4 * self._scale
            if not detail:
                painter.drawText(QtCore.QRectF(r.left() + pad, r.top(), inner_w,
                                               min(r.height(), line + 8 * self._scale)),
                                 Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                                 label)
            else:
                painter.drawText(QtCore.QRectF(r.left() + pad, top, inner_w, line),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                                 label)
                painter.setFont(self._font)
                painter.setPen(muted)
                painter.drawText(QtCore.QRectF(r.left() + pad, top + line, inner_w, line),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                                 detail)
            if toggle:
                painter.setFont(self._bold)
                painter.setPen(fg)
                painter.drawText(QtCore.QRectF(r.right() - tw, r.top(), tw - 2 * self._scale,
                                               min(r.height(), line + 8 * self._scale)),
                                 Qt.AlignmentFlag.AlignCenter, "−" if nd.expanded else "+")

    def _node_summary(self, i: int) -> ValueSummary | None:
        g = self._graph
        assert g is not None and self._values is not None
        nd = g.nodes[i]
        if isinstance(nd.id, tuple):
            ev = eqn_values_at(self._values.root, nd.id)
            return ev.outs[0] if ev is not None and ev.outs else None
        if isinstance(nd.id, IoId) and nd.kind == "output" and not nd.id.node:
            outs = self._values.outputs
            if nd.id.index < len(outs):
                return outs[nd.id.index]
        return self.var_summary(nd.ref)

    def _paint_values(self, painter: QtGui.QPainter, nvis: np.ndarray) -> None:
        """Sparkline of the preview (a few values) or histogram bars, in the node's last row."""
        g = self._graph
        assert g is not None
        c = self._colours
        row = VALUES_ROW * self._scale
        pad = self._options.text_pad * self._scale
        pen = QtGui.QPen(QtGui.QColor(c.sparkline), 1.3)
        pen.setCosmetic(True)
        for i in nvis:
            i = int(i)
            nd = g.nodes[i]
            if nd.kind != "eqn" or nd.expanded:
                continue
            shape = self._spark_cache.get(i)
            if shape is None:
                shape = self._sparkline(i, QtCore.QRectF(nd.x + pad, nd.y + nd.h - row + 2,
                                                         nd.w - 2 * pad, row - 6 * self._scale))
                self._spark_cache[i] = shape
            kind, data = shape
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
                painter.setFont(self._font)
                rect, word = data
                painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                                 word)

    def _sparkline(self, i: int, box: QtCore.QRectF) -> tuple[str, Any]:
        s = self._node_summary(i)
        if s is None:
            return "none", None
        if s.size == 1 and s.preview:
            return "text", (box, f"= {fmt_number(s.preview[0])}")
        if s.size > len(s.preview) and s.hist and sum(s.hist) > 0:
            h = np.asarray(s.hist, dtype=float)
            h = h / h.max()
            bw = box.width() / len(h)
            return "bars", [QtCore.QRectF(box.left() + k * bw, box.bottom() - v * box.height(),
                                          max(bw - 0.5, 0.5), v * box.height())
                            for k, v in enumerate(h) if v > 0]
        vals = np.asarray(s.preview, dtype=float)
        vals = vals[np.isfinite(vals)]
        if len(vals) < 2:
            return ("text", (box, f"= {fmt_number(float(vals[0]))}")) if len(vals) else \
                ("none", None)
        lo, hi = float(vals.min()), float(vals.max())
        span = hi - lo or 1.0
        xs = np.linspace(box.left(), box.right(), len(vals))
        ys = box.bottom() - (vals - lo) / span * box.height()
        return "line", QtGui.QPolygonF([QtCore.QPointF(x, y) for x, y in zip(xs, ys,
                                                                             strict=True)])

    def sparkline_kind(self, node_id: NodeId) -> str:
        """What the values row of a node shows: "line", "bars", "text" or "none"."""
        i = self.node_index(node_id)
        if i is None or self._values is None or self._graph is None:
            return "none"
        nd = self._graph.nodes[i]
        return self._sparkline(i, QtCore.QRectF(nd.x, nd.y, nd.w, 10))[0]


__all__ = ["GraphCanvas", "JaxprGraphView", "GraphNode", "summary_text"]
