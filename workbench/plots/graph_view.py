"""The jaxpr as a dataflow graph you can pan, zoom, click, step through and read values on.

One ``QGraphicsView`` with no items: it paints the laid-out graph
(``graph.model.DisplayGraph``, built by ``graph.build``) itself in
``drawBackground`` through a ``graph_paint.GraphPainter``, culled to the exposed
rectangle with numpy, so a frame costs a handful of Python calls however many
nodes there are. Hit tests for clicks and tooltips are numpy too
(``graph.geometry``); what each node is marked as and the tooltips' words come
from ``graph.marks`` and ``graph.tooltips``. Panning is a drag, zoom the wheel
(around the cursor), fit F, a double-click on the background or the Fit button.

Fit never makes labels unreadable: a graph too large to read whole is shown
around what matters (the selection, else the outputs) at the smallest readable
zoom, and the info line says so; Fit all (Shift+F) shows every node regardless.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from typing import Literal

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Qt, Signal

from workbench.api.jaxpr import JaxprNode
from workbench.api.values import Path, ValuesResult, ValueSummary, VarRef
from workbench.graph import marks as mk
from workbench.graph.build import build_graph
from workbench.graph.framing import fit_zoom, focus_centre, nodes_rect, output_nodes, whole_rect
from workbench.graph.geometry import (
    GraphArrays,
    edge_hit,
    graph_arrays,
    node_hit,
    sparkline_shape,
)
from workbench.graph.model import (
    DisplayGraph,
    GroupId,
    IoId,
    LayoutOptions,
    NodeId,
    evaluation_order,
    groups_containing,
)
from workbench.graph.style import FAMILIES, FAMILY_COLOURS, STYLE_KEYS, GraphColours, graph_colours
from workbench.graph.tooltips import edge_tooltip, node_tooltip
from workbench.plots.graph_canvas import GraphCanvas
from workbench.plots.graph_paint import TEXT_MIN_PX, VALUES_ROW, Frame, GraphPainter
from workbench.plots.presentation import BASE_FONT_PT

MAX_FIT_SCALE = 1.5
MIN_SCALE = 0.01
MAX_SCALE = 8.0
EDGE_HIT_PX = 5.0
READABLE_TEXT_PX = 9.0
"""The smallest font height on screen, in pixels, at which a node's label can still be read
(about 7 pt): Fit never zooms out further than this to show a large graph whole."""
FIT_PAD = 16.0
FIT_MARGIN_PX = 4

FitKind = Literal["fit", "all"]


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
    sig_info_changed = Signal(str)
    """The info line changed: what is shown, and after a partial fit how to see all."""

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
        self._fit_mode = True  # the view follows resizes with the fit below
        self._fit_kind: FitKind = "fit"
        self._partial = False  # the last fit shows part of the graph: the whole is unreadable
        self._info = ""
        self._selected_ids: list[NodeId] = []
        self._selected_var: VarRef | None = None
        self._hover_edge = -1
        self._lines: set[int] = set()
        self._step_current: Path | None = None
        self._step_done: int | Collection[Path] | None = None
        self._order_rank: dict[Path, int] | None = None
        self._font = QtGui.QFont()
        self._bold = QtGui.QFont()
        self._painter = GraphPainter()
        self._arrays = GraphArrays()
        self._marks = mk.Marks()
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
        self.fit_button.setToolTip("Show the graph, or what matters in it when it is too large "
                                   "to read whole (F, or double-click the background)")
        self.fit_button.clicked.connect(self.fit)
        self.fit_all_button = QtWidgets.QToolButton(self)
        self.fit_all_button.setObjectName("jaxprGraphFitAll")
        self.fit_all_button.setText("Fit all")
        self.fit_all_button.setToolTip("Show every node, however small (Shift+F)")
        self.fit_all_button.clicked.connect(self.fit_all)
        self.legend.setWordWrap(True)
        # Words that wrap rather than widen the panel: a projector's dock is narrow.
        self.info.setWordWrap(True)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(self.info, 1)
        bar.addWidget(self.values_box)
        bar.addWidget(self.fit_button)
        bar.addWidget(self.fit_all_button)
        self.canvas = GraphCanvas(self, self)
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
        """Show ``tree`` (None: clear and show ``message``). Values, the selection and the
        stepping position belonged to the old tree and are dropped; expanded/collapsed
        choices are kept while their paths still exist, and so is the zoom unless the view
        was fitted."""
        self._tree = tree
        self._values = None
        self._order_rank = None
        self._step_current = None
        self._step_done = None
        self._hover_edge = -1
        self._selected_var = None
        self._selected_ids = []  # a frame on another program's node would mislead
        if tree is None:
            self._expanded.clear()
            self._collapsed.clear()
            self._graph = None
            self._reset_arrays()
            self.message.setText(message)
            self._stack.setCurrentWidget(self.message)
            self._info = ""
            self._set_partial(False)
            return
        self._stack.setCurrentWidget(self.canvas)
        self._relayout(anchor=None)

    def set_controls_visible(self, on: bool) -> None:
        """Show or hide the widget's own bar (values toggle, Fit) when a panel has its own."""
        for w in (self.values_box, self.fit_button, self.fit_all_button):
            w.setVisible(on)

    def set_collapse_threshold(self, n: int) -> None:
        """Groups of more than ``n`` equations start collapsed (the user's own choices stay)."""
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"the collapse threshold is a count of equations >= 0, got {n!r}")
        self._options = replace(self._options, threshold=n)
        if self._tree is not None:
            self._relayout(anchor=None)

    def collapse_threshold(self) -> int:
        """Groups of more than this many equations start collapsed."""
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
        """Whether ``group`` is on screen and drawn open."""
        return self._graph is not None and self._graph.groups.get(group, (0, False))[1]

    def fit(self) -> None:
        """Show the whole graph when it can be read whole (never zoomed in past 1.5x); else
        what matters at the smallest readable zoom: the selection, or the outputs, with as
        much around them as fits. The info line then says so, and that Fit all shows all."""
        self._fit_mode, self._fit_kind = True, "fit"
        self._refit()

    def fit_all(self) -> None:
        """Show every node, however small that makes them."""
        self._fit_mode, self._fit_kind = True, "all"
        self._refit()

    def info_text(self) -> str:
        """The info line: how many equations are shown, and what a partial fit shows."""
        return self.info.text()

    def fits_partly(self) -> bool:
        """Whether the last fit shows part of the graph (the whole would be unreadable)."""
        return self._partial

    def readable_zoom(self) -> float:
        """The smallest zoom at which node labels can still be read (``READABLE_TEXT_PX``,
        times the presentation scale)."""
        # On a projector the floor is larger by the same factor as the text around it.
        return READABLE_TEXT_PX * self._scale / QtGui.QFontMetricsF(self._font).height()

    def show_nodes(self, ids: Sequence[NodeId]) -> None:
        """Select these nodes (equation paths, input or output ids), opening the groups
        around them, and fit the view to them: the whole graph if it reads whole, else
        them at a readable zoom. The view keeps them in sight on resizes; no signal."""
        if self._tree is None or self._graph is None:
            return
        need: list[GroupId] = []
        for nid in ids:
            if isinstance(nid, tuple):
                groups = groups_containing(self._tree, nid, self._graph.options)
            elif isinstance(nid, IoId) and nid.node:  # inside a sub-jaxpr: open its equation
                owner = nid.node[:-1]
                groups = [*groups_containing(self._tree, owner, self._graph.options), owner]
            else:
                continue
            need.extend(g for g in groups if not self._graph.groups.get(g, (0, False))[1])
        if need:
            self._expanded.update(need)
            self._collapsed.difference_update(need)
            self._relayout(anchor=None, keep_fit=False)
        self.select_nodes(ids)
        self.fit()

    def zoom_by(self, factor: float, at: QtCore.QPoint | None = None) -> None:
        """Zoom by ``factor`` keeping the scene point under ``at`` (view pixels) in place."""
        if self._graph is None:
            return
        self._fit_mode = False
        if self._partial:
            self._set_partial(False)
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
        self._painter.clear_values()
        self._apply_states()

    def values(self) -> ValuesResult | None:
        """The values shown on the graph, if any."""
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
        """Whether every node draws its values row."""
        return self._show_values

    def select(self, path: Path | None) -> None:
        """Select the node of equation ``path`` (or the group that hides it); no signal."""
        self.select_nodes([] if path is None else [path])

    def select_nodes(self, ids: Sequence[NodeId]) -> None:
        """Select these nodes (each drawn framed; an equation hidden in a collapsed group
        frames the group); no signal."""
        self._selected_ids = list(ids)
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
        """Index of the (first) node drawn as selected, if any."""
        nodes = self.selected_nodes()
        return nodes[0] if nodes else None

    def selected_nodes(self) -> list[int]:
        """Indices of the nodes drawn as selected, in the order they were selected."""
        out: list[int] = []
        for nid in self._selected_ids:
            i = self._index_of(nid)
            if i is not None and i not in out:
                out.append(i)
        return out

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
        self._set_partial(False)
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
        """Nodes marked as on the editor's current line."""
        return [int(i) for i in np.nonzero(self._marks.line_hl)[0]]

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
        """The node of the stepping position (or the group hiding it)."""
        if self._graph is None or self._step_current is None:
            return None
        return self._graph.visible_for(self._step_current)

    def node_states(self, i: int) -> dict[str, bool]:
        """What node ``i`` is drawn as (tests and the window's status line read it)."""
        m = self._marks
        return {"dim": bool(m.dim[i] or m.step_dim[i]), "not_run": bool(m.dim[i]),
                "not_yet": bool(m.step_dim[i]), "error": bool(m.error[i]),
                "highlighted": bool(m.line_hl[i]),
                "selected": i in self.selected_nodes(), "current": self.current_node() == i}

    def badge(self, i: int) -> str:
        """The badge on node ``i``: "first NaN here", "NaN", "Inf", ... or ""."""
        return self._marks.badges.get(i, "")

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's colour scheme, ``"light"`` or ``"dark"``."""
        self._scheme = "light" if scheme == "light" else "dark"
        self._colours = graph_colours(self._scheme)
        c = self._colours
        self._painter.set_colours(c)
        self.canvas.setBackgroundBrush(QtGui.QColor(c.background))
        pal = self.message.palette()
        pal.setColor(QtGui.QPalette.ColorRole.WindowText, QtGui.QColor(c.muted))
        self.message.setPalette(pal)
        swatches = " ".join(
            f'<span style="color:{FAMILY_COLOURS[f]}">■</span>&nbsp;{f}' for f in FAMILIES)
        self.legend.setText(swatches)
        self.canvas.viewport().update()

    def scheme(self) -> str:
        """The colour scheme followed, "light" or "dark"."""
        return self._scheme

    def background_colour(self) -> QtGui.QColor:
        """The canvas colour (exports paint on it)."""
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
        self._painter.set_fonts(self._font, self._bold, self._scale)
        for w in (self.legend, self.info, self.values_box, self.fit_button,
                  self.fit_all_button, self.message):
            f = QtGui.QFont()
            f.setPointSizeF(BASE_FONT_PT * factor)
            w.setFont(f)
        if self._tree is not None:
            self._relayout(anchor=None)

    def presentation_scale(self) -> float:
        """The presentation scale (1.0: normal size)."""
        return self._scale

    # ------------------------------------------------------------------ geometry helpers

    def node_index(self, node_id: NodeId) -> int | None:
        """The index of node ``node_id`` in ``graph.nodes``, if it is on screen."""
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
        if self._graph is None:
            return None
        p = self.canvas.mapToScene(pos)
        return node_hit(self._arrays, p.x(), p.y())

    def edge_at(self, pos: QtCore.QPoint) -> int | None:
        """The edge nearest viewport pixel ``pos``, within a few pixels."""
        if self._graph is None:
            return None
        p = self.canvas.mapToScene(pos)
        tol = EDGE_HIT_PX / max(self.canvas.scale_factor(), 1e-6)
        return edge_hit(self._arrays, p.x(), p.y(), tol)

    # ------------------------------------------------------------------ tooltips

    def tooltip_at(self, pos: QtCore.QPoint) -> str:
        """The tooltip of the node, else the edge, under viewport pixel ``pos``."""
        i = self.node_at(pos)
        if i is not None:
            return self.node_tooltip(i)
        e = self.edge_at(pos)
        return self.edge_tooltip(e) if e is not None else ""

    def var_summary(self, ref: VarRef | None) -> ValueSummary | None:
        """The summary of variable ``ref``'s value, if the values hold it."""
        return mk.var_summary(self._tree, self._values, ref)

    def edge_tooltip(self, e: int) -> str:
        """Variable name, type, and with values its min/max/mean/std and NaN/Inf counts."""
        assert self._graph is not None
        return edge_tooltip(self._graph, e, self._tree, self._values, self._marks)

    def node_tooltip(self, i: int) -> str:
        """What a node is, its line, its outputs' summaries, its error or NaN badge."""
        assert self._graph is not None
        return node_tooltip(self._graph, i, self._tree, self._values, self._marks)

    # ------------------------------------------------------------------ state

    def _reset_arrays(self) -> None:
        self._painter.reset()
        self._arrays = GraphArrays()
        self._marks = mk.Marks()

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
        self._arrays = graph_arrays(g, STYLE_KEYS)
        self._painter.set_graph(g, self._arrays, self._options.text_pad, self._options.toggle_w)
        self._order_rank = None
        self._apply_states()
        groups = sum(1 for _, e in g.groups.values() if not e)
        info = f"{sum(1 for nd in g.nodes if nd.kind == 'eqn'):,} equations shown"
        if g.hidden:
            info += f" · {g.hidden:,} inside {groups:,} collapsed groups"
        self._info = info
        self._set_partial(False)
        self._update_scene_rect()
        if self._fit_mode and keep_fit:
            self._refit()
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

    def _refit(self) -> None:
        """Fit again as ``fit`` or ``fit_all`` last did (after a resize or a new layout)."""
        g = self._graph
        if g is None:
            return
        whole = whole_rect(g, FIT_PAD * self._scale)
        vp = self.canvas.viewport().rect()
        s = min(max(fit_zoom(whole, vp.width(), vp.height(), FIT_MARGIN_PX), MIN_SCALE),
                MAX_FIT_SCALE)
        readable = self.readable_zoom()
        focus = None
        if self._fit_kind == "fit" and s < readable:
            focus = nodes_rect(g, self.selected_nodes() or output_nodes(g))
        if focus is None:
            self._set_scale(s)
            centre = (whole[0] + whole[2] / 2, whole[1] + whole[3] / 2)
        else:  # what matters, readable, with as much around it as fits
            self._set_scale(readable)
            centre = focus_centre(focus, whole, vp.width() / readable, vp.height() / readable)
        self._update_scene_rect()
        self.canvas.centerOn(*centre)
        self._set_partial(focus is not None)
        self.canvas.viewport().update()

    def _set_partial(self, partial: bool) -> None:
        """The info line: what is shown, and after a partial fit how to see the rest."""
        self._partial = partial
        text = self._info
        if partial:
            outputs = output_nodes(self._graph) if self._graph is not None else []
            what = "the outputs" if set(self.selected_nodes()) <= set(outputs) else \
                "the selection"
            text += (f" · too big to read whole: showing {what} and around them; "
                     "Fit all (Shift+F) shows everything")
        if text != self.info.text():
            self.info.setText(text)
            self.sig_info_changed.emit(text)

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
        m = self._marks
        m.dim, m.error, m.badges = mk.value_marks(g, self._tree, self._values)
        self._apply_step()
        self._apply_line_highlight()

    def _ranks(self) -> np.ndarray:
        """Each node's position in the evaluation order (inputs -1, not run: never)."""
        assert self._graph is not None
        if self._order_rank is None:
            self._order_rank = {p: k for k, p in enumerate(self.step_order())}
        return mk.order_ranks(self._graph, self._order_rank)

    def _apply_step(self) -> None:
        if self._graph is None:
            return
        self._marks.step_dim = mk.step_marks(self._graph, self._step_done, self._ranks,
                                             self.current_node())

    def _apply_line_highlight(self) -> None:
        if self._graph is None:
            return
        self._marks.line_hl = mk.line_marks(self._graph, self._lines)

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
            self._refit()

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
                self._selected_ids = [nd.id]
                self._selected_var = None
                self.canvas.viewport().update()
                self.sig_node_selected.emit(nd.id)
            elif nd.ref is not None:
                self._selected_ids = [nd.id]
                self._selected_var = nd.ref
                self.canvas.viewport().update()
                self.sig_var_selected.emit(nd.ref)
            return
        e = self.edge_at(pos)
        if e is not None and g.edges[e].ref is not None:
            self._selected_var = g.edges[e].ref
            self._selected_ids = []
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
        frame = Frame(zoom=self.canvas.scale_factor(), marks=self._marks,
                      selected=tuple(self.selected_nodes()), current=self.current_node(),
                      selected_var=self._selected_var, hover_edge=self._hover_edge,
                      show_values=self._show_values and self._values is not None,
                      summary=self._node_summary)
        self._painter.paint(painter, rect, frame)

    def _node_summary(self, i: int) -> ValueSummary | None:
        assert self._graph is not None and self._values is not None
        return mk.node_summary(self._graph, self._tree, self._values, i)

    def sparkline_kind(self, node_id: NodeId) -> str:
        """What the values row of a node shows: "line", "bars", "text" or "none"."""
        i = self.node_index(node_id)
        if i is None or self._values is None or self._graph is None:
            return "none"
        nd = self._graph.nodes[i]
        return sparkline_shape(self._node_summary(i), (nd.x, nd.y, nd.w, 10))[0]


__all__ = ["JaxprGraphView"]
