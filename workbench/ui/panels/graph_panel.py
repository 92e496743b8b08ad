"""The program as a dataflow graph with every intermediate value, stepped equation by equation.

The panel follows the session: a new trace redraws the graph at once, then
the panel asks the engine for the values of that trace (``Values``) and, for
the variable picked, its full array (``VarArray``). A reply that belongs to an
older trace is dropped. Selecting a node, a tree row or an editor line shows
the same equation in all three (the window connects them); stepping walks the
equations in evaluation order (``graph.model.evaluation_order``: a loop's cond
before its body) and keeps its place across panel switches and re-runs that keep
the equation.

When values arrive the panel looks where a lesson's text points: at the
program's outputs (selected, in sight, the first one's value shown), or at the
nodes a lesson step named (``select_names``). Narrow docks on a projector keep
the controls to one row: the rarely used ones sit in the "More" menu.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from workbench.api import messages as p
from workbench.api.choices import Transform
from workbench.api.jaxpr import Eqn, JaxprNode, TraceResult
from workbench.api.values import (
    ArrayValue,
    EqnValues,
    ValuesResult,
    VarRef,
    eqn_at,
    eqn_values_at,
    node_at,
    summary_of,
    var_refs,
)
from workbench.graph.model import IoId, NodeId, evaluation_order
from workbench.graph.stepper import Stepper
from workbench.graph.value_text import iteration_text
from workbench.plots.graph_view import JaxprGraphView
from workbench.plots.value_view import ValueView
from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Session
from workbench.ui.panels.banner import describe_call
from workbench.ui.panels.jaxpr_model import eqn_text
from workbench.ui.panels.panel import Panel

COLLAPSE_DEFAULT = 60
NOT_RUN = "this equation did not run: a branch not taken, or after the error"
OUTPUTS, INPUTS = "outputs", "inputs"


class GraphPanel(Panel):
    """Graph, value view and step controls over the session's current trace."""

    sig_eqn_selected = Signal(object)
    """The user picked an equation in the graph: its path (``tuple[int, ...]``)."""
    sig_step = Signal(object)
    """Stepping moved to an equation (its path), or back before the first (None)."""
    sig_error_line = Signal(int, str)
    """The values stopped at an equation that raised: its editor line and the error's title."""

    def __init__(self, session: Session, requests: EngineRequests,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("graphPanel")
        self.session = session
        self.requests = requests
        self.stepper = Stepper()
        self._tree: JaxprNode | None = None
        self._trace: TraceResult | None = None  # the trace the graph shows
        self._values: ValuesResult | None = None  # of that trace
        self._asked: TraceResult | None = None  # the trace whose values are on the way
        self._ref: VarRef | None = None  # the variable the value view shows
        self._cursor_line = 0
        self._stepped: tuple[TraceResult | None, tuple[int, ...] | None] = (None, None)

        self._wanted: tuple[str, ...] | None = None  # names select_names asked for
        self._picked = False  # the value shown is one the user picked (kept across re-runs)
        self._new_graph = True  # the graph was laid out anew for the trace whose values come

        self._values_status = ""
        self.graph = JaxprGraphView()
        self.graph.set_controls_visible(False)
        self.graph.info.hide()  # said in the status line, across the whole panel
        self.graph.sig_info_changed.connect(self._show_status)
        self.graph.sig_node_selected.connect(self._on_node_clicked)
        self.graph.sig_var_selected.connect(self._on_var_clicked)
        self.value_view = ValueView()

        self.step_reset = self._button("stepReset", "Start", "back to before the first "
                                       "equation", self._on_step_reset)
        self.step_previous = self._button("stepPrevious", "\u25c0 Previous",
                                          "the equation evaluated before (Shift+F10)",
                                          self._on_step_previous)
        self.step_next = self._button("stepNext", "Next \u25b6",
                                      "evaluate the next equation (F10)", self._on_step_next)
        self.step_to_cursor = self._button("stepToCursor", "Run to cursor",
                                           "step forward to the next equation of the editor "
                                           "cursor's line (F8)", self._on_run_to_cursor)
        self.fit_button = self._button("graphFit", "Fit", "show the graph, or what matters "
                                       "in it when it is too large to read whole (F)",
                                       self.graph.fit)
        self.more = self._more_menu()
        self.step_label = self._wrapping_label("stepLabel")
        self.status = self._wrapping_label("valuesStatus")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        for key, slot in (("F10", self._on_step_next), ("Shift+F10", self._on_step_previous),
                          ("F8", self._on_run_to_cursor)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        for widget in (self.step_reset, self.step_previous, self.step_next,
                       self.step_to_cursor, None, self.fit_button, self.more):
            if widget is None:
                bar.addStretch(1)
            else:
                bar.addWidget(widget)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("graphSplitter")
        self.splitter.addWidget(self.graph)
        self.splitter.addWidget(self.value_view)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([660, 340])  # kept in proportion when the dock is laid out
        layout = _FittingColumn(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.step_label)
        layout.addWidget(self.status)
        layout.addWidget(self.splitter, 1)

        session.sig_traced.connect(self._on_traced)
        session.sig_trace_failed.connect(self._on_failed)
        session.sig_source_failed.connect(self._on_failed)
        session.sig_values.connect(self._on_values)
        self._update_step_controls()
        if session.trace is not None and session.trace_is_current:
            self._on_traced(session.trace)
        else:
            self.graph.set_graph(None, "no trace yet: type a function in the editor")

    # ------------------------------------------------------------------ Panel


    def set_presentation_scale(self, factor: float) -> None:
        self.graph.set_presentation_scale(factor)
        self.value_view.set_presentation_scale(factor)

    def stale_anchor(self) -> QWidget:
        """The banner lies over the graph and the value view, under the stepping buttons."""
        return self.splitter

    def set_scheme(self, scheme: str) -> None:
        self.graph.set_scheme(scheme)
        self.value_view.set_scheme(scheme)

    # ------------------------------------------------------------------ from the window

    @property
    def values(self) -> ValuesResult | None:
        """The values the panel shows (of ``trace``), once they arrived."""
        return self._values

    @property
    def trace(self) -> TraceResult | None:
        return self._trace

    def show_path(self, path: tuple[int, ...]) -> None:
        """An equation picked elsewhere (a tree row): centre it and show its value."""
        if self._tree is None or eqn_at(self._tree, path) is None:
            return
        self._wanted, self._picked = None, True
        self.graph.center_on(path)
        self.graph.select(path)
        self._show_eqn(path)

    def select_names(self, names: Sequence[str]) -> None:
        """Select and centre the nodes of these variables (jaxpr names, or the words
        ``"outputs"`` / ``"inputs"`` for the program's own), and show the first one's value.

        A lesson step calls it as it runs: it applies to the values shown now, if any, and
        again to the next values that arrive (the step's own); a name the program does not
        have is said in the status line. A click, a tree row or a step drops the request.
        """
        self._wanted = tuple(names)
        if self._values is not None and self._tree is not None:
            self._look_at(self._wanted)

    def set_cursor_line(self, line: int) -> None:
        """The editor's cursor line: its equations are highlighted; Run to cursor goes there."""
        self._cursor_line = line
        self.graph.highlight_lines({line})

    # ------------------------------------------------------------------ session

    def _on_traced(self, result: TraceResult) -> None:
        self.set_stale(None)
        same_program = self._trace is not None and self._trace.text == result.text
        self._trace = result
        self._tree = result.jaxpr
        self._values = None
        self._new_graph = not same_program
        if not same_program:
            self.graph.set_graph(result.jaxpr)
            self.value_view.clear("evaluating ...")
            self._ref, self._picked = None, False
        self.graph.set_values(None)
        self._show_status(values=f"{describe_call(result)}: evaluating ...")
        self.when_settled("values", self._request_values, self.session)

    def _on_failed(self, reply: p.Reply) -> None:
        if self._trace is None:
            return
        why = p.reply_text(reply).splitlines()[0]
        self.set_stale(f"last good: {describe_call(self._trace)} — this call failed: {why}")
        self._wanted = None  # it was for the step's values, which will not come

    def _request_values(self) -> None:
        trace = self.session.trace
        if trace is None or trace is not self._trace or self._asked is trace:
            return
        self._asked = trace
        self.requests.values(
            p.Values(name=trace.function, args=self._args_text(trace),
                     transforms=_transforms(trace)),
            lambda reply: self._on_values_reply(reply, trace))

    def _args_text(self, trace: TraceResult) -> str:
        """The spec as the editor's call wrote it: the engine's trace cache knows it so."""
        call = self.session.call
        if call is not None and (call.function, call.transforms) == (trace.function,
                                                                    trace.transforms):
            return call.args
        return ", ".join(trace.args)

    def _on_values_reply(self, reply: p.Reply, trace: TraceResult) -> None:
        if self._asked is trace:
            self._asked = None
        if trace is not self._trace:
            return  # the code changed meanwhile: its own request is on the way
        values = p.result_value(reply, ValuesResult)
        if values is None:
            if isinstance(reply, p.Cancelled):
                self._show_status(values=f"values not computed: {reply.reason}")
            else:
                self._show_status(values=f"values not computed: {p.reply_text(reply)}")
            return
        self.session.set_values(values)

    def _on_values(self, values: ValuesResult) -> None:
        if self._trace is None or self.session.trace is not self._trace:
            return
        self._values = values
        self.graph.set_values(values)
        order = evaluation_order(self._trace.jaxpr, values.root)
        keep_step = self._wanted is None and self._same_step(self._trace)
        if keep_step:
            self.stepper.follow(order)
        else:
            self.stepper.reset(order)
        self._stepped = (self._trace, self.stepper.current)
        self._show_status(values=self._status_text(values))
        if values.error is not None and values.error_path is not None:
            eqn = eqn_at(self._trace.jaxpr, values.error_path)
            line = values.error.line or (eqn.line if eqn is not None else None)
            if line:
                self.sig_error_line.emit(line, values.error.title)
        self._update_step_controls()
        if self._wanted is not None:
            wanted, self._wanted = self._wanted, None
            self._look_at(wanted)
        elif self.stepper.current is not None:
            self._show_step()
        elif self._picked and self._ref is not None:
            self._show_ref(self._ref)
        else:  # the same program run again keeps the view where the user left it
            self._look_at((OUTPUTS,), move=self._new_graph)

    # ------------------------------------------------------------------ where to look

    def _look_at(self, names: Sequence[str], move: bool = True) -> None:
        """Select and frame (``move``) the nodes of ``names`` and show the first one's value;
        the outputs when none of them is in the program (the status line says which)."""
        assert self._tree is not None
        ids, refs, missing = self._resolve(names)
        if not ids:
            ids, refs, _ = self._resolve((OUTPUTS,))
        if self.stepper.current is not None:
            self.stepper.reset()
            self._stepped = (self._trace, None)
            self.graph.set_step(None, None)
            self._update_step_controls()
            self.sig_step.emit(None)
        self._picked = False
        if move:
            self.graph.show_nodes(ids)
        else:
            self.graph.select_nodes(ids)
        if refs:
            heading, ref, output = refs[0]
            if ref is not None:
                self._show_ref(ref, heading)
            elif output is not None:
                self._show_literal_output(heading, output)
        if missing and self._values is not None:
            self._show_status(values=self._status_text(self._values) + " — not in this program: "
                              + ", ".join(missing))

    def _resolve(self, names: Sequence[str]) -> tuple[list[NodeId], list[_Look], list[str]]:
        """The nodes of ``names``, the values to show, and the names not found. A name is
        looked for in the top jaxpr first, then in the nested ones."""
        tree = self._tree
        assert tree is not None
        ids: list[NodeId] = []
        refs: list[_Look] = []
        missing: list[str] = []
        top = var_refs(tree)
        for name in names:
            if name == OUTPUTS:
                n = len(tree.outvars)
                for i, var in enumerate(tree.outvars):
                    ids.append(IoId("out", (), i))
                    refs.append(_Look(f"output {i + 1} of {n}",
                                      top.get(var.name) if var.name else None, i))
            elif name == INPUTS:
                n = len(tree.invars)
                for i in range(n):
                    ids.append(IoId("in", (), i))
                    refs.append(_Look(f"input {i + 1} of {n}", VarRef((), None, i)))
            else:
                ref = top.get(name) or self._nested_ref(name)
                if ref is None:
                    missing.append(name)
                    continue
                ids.append((*ref.node, ref.eqn) if ref.eqn is not None else
                           IoId("const" if ref.const else "in", ref.node, ref.index))
                refs.append(_Look(name, ref))
        return ids, refs, missing

    def _nested_ref(self, name: str) -> VarRef | None:
        """Where ``name`` is defined inside a sub-jaxpr (the first, in text order)."""
        assert self._tree is not None
        stack: list[tuple[JaxprNode, tuple[int, ...]]] = [(self._tree, ())]
        while stack:
            node, path = stack.pop(0)
            if path:
                ref = var_refs(node, path).get(name)
                if ref is not None:
                    return ref
            for e, eqn in enumerate(node.eqns):
                stack.extend((sub.jaxpr, (*path, e, s)) for s, sub in enumerate(eqn.subjaxprs))
        return None

    def _show_literal_output(self, heading: str, i: int) -> None:
        """Output ``i`` is a constant of the program (no variable defines it)."""
        assert self._tree is not None
        var = self._tree.outvars[i]
        summary = self._values.outputs[i] if self._values is not None and i < len(
            self._values.outputs) else None
        self._ref = None
        self.value_view.show_value(f"{heading}: {var.literal or var.name}:{var.type}", summary,
                                   "a constant written in the program")

    def _show_status(self, graph: str | None = None, values: str | None = None) -> None:
        """The status line: the values' state, then the graph's info (what a fit shows)."""
        if values is not None:
            self._values_status = values
        info = self.graph.info_text() if graph is None else graph
        self.status.setText(" · ".join(t for t in (self._values_status, info) if t))

    def _same_step(self, trace: TraceResult) -> bool:
        """Whether the step shown before belongs to the same equation of the same function
        in ``trace`` (an edit elsewhere, a panel switch): then stepping keeps its place."""
        before, path = self._stepped
        if before is None or path is None or before.function != trace.function:
            return False
        old, new = eqn_at(before.jaxpr, path), eqn_at(trace.jaxpr, path)
        return old is not None and new is not None and (old.primitive, old.line) == (
            new.primitive, new.line)

    def _status_text(self, values: ValuesResult) -> str:
        assert self._trace is not None
        parts = [f"values of {describe_call(self._trace)} on the spec's example arguments "
                 f"({values.seconds * 1e3:.1f} ms)"]
        for what, path in (("first NaN", values.first_nan), ("first Inf", values.first_inf)):
            if path is not None:
                parts.append(f"{what} here: {self._where(path)}")
        if values.error is not None:
            where = self._where(values.error_path) if values.error_path is not None else ""
            parts.append(f"stopped at {where}: {values.error.title}; values up to it are shown")
        return " — ".join(parts)

    def _where(self, path: tuple[int, ...]) -> str:
        assert self._trace is not None
        eqn = eqn_at(self._trace.jaxpr, path)
        if eqn is None:
            return "?"
        return f"{eqn.primitive}" + (f" (line {eqn.line})" if eqn.line else "")

    # ------------------------------------------------------------------ selection

    def _on_node_clicked(self, path: tuple[int, ...]) -> None:
        self._wanted, self._picked = None, True
        self._show_eqn(path)
        self.sig_eqn_selected.emit(path)

    def _on_var_clicked(self, ref: VarRef) -> None:
        self._wanted, self._picked = None, True
        self._show_ref(ref)

    def _show_eqn(self, path: tuple[int, ...]) -> None:
        self._show_ref(VarRef(path[:-1], path[-1], 0))

    def _show_ref(self, ref: VarRef, heading: str = "") -> None:
        """The value view shows one variable: its summary now, its full array when it comes;
        ``heading`` goes before its title ("output 1 of 2")."""
        if self._tree is None:
            return
        self._ref = ref
        title, note = self._title(ref)
        if heading:
            title = f"{heading}: {title}"
        values = self._values
        found = node_at(self._tree, values.root, ref.node) if values is not None else None
        summary = summary_of(found[1], ref) if found is not None else None
        if values is None:
            self.value_view.show_value(title, None, "evaluating ...")
            return
        ev = eqn_values_at(values.root, (*ref.node, ref.eqn)) if ref.eqn is not None else None
        if summary is not None:
            # Inside a loop body the values are one iteration's: say which.
            note = "; ".join(t for t in (iteration_text(self._tree, values.root, ref.node),
                                         _control_note(ev)) if t)
        self.value_view.show_value(title, summary, note)
        if summary is None:
            return
        if ref.eqn is not None:
            trace = next((t for t in ev.carry_traces if t.position == ref.index), None) \
                if ev is not None else None
            if trace is not None:
                self.value_view.show_carry(trace, title, note)
                return
        trace_now = self._trace
        assert trace_now is not None
        self.requests.var_array(
            p.VarArray(name=trace_now.function, args=self._args_text(trace_now),
                       transforms=_transforms(trace_now), ref=ref),
            lambda reply: self._on_array(reply, values, ref))

    def _on_array(self, reply: p.Reply, values: ValuesResult, ref: VarRef) -> None:
        if values is not self._values or ref != self._ref:
            return
        array = p.result_value(reply, ArrayValue)
        if array is not None:
            self.value_view.show_array(array)

    def _title(self, ref: VarRef) -> tuple[str, str]:
        assert self._tree is not None
        node = self._node(ref.node)
        if node is None:
            return "?", NOT_RUN
        if ref.eqn is None:
            seq = node.constvars if ref.const else node.invars
            var = seq[ref.index] if ref.index < len(seq) else None
            kind = "constant" if ref.const else "input"
            text = f"{var.name}:{var.type} ({kind})" if var is not None else kind
            return text, "not evaluated"
        eqn: Eqn = node.eqns[ref.eqn]
        where = f"  (line {eqn.line})" if eqn.line else ""
        text = eqn_text(eqn)
        if len(eqn.outvars) > 1 and ref.index < len(eqn.outvars):
            out = eqn.outvars[ref.index]
            text = f"{out.name}:{out.type} of {text}"
        return f"{text}{where}", NOT_RUN

    def _node(self, path: tuple[int, ...]) -> JaxprNode | None:
        node = self._tree
        for i in range(0, len(path) - 1, 2):
            if node is None or path[i] >= len(node.eqns):
                return None
            subs = node.eqns[path[i]].subjaxprs
            node = subs[path[i + 1]].jaxpr if path[i + 1] < len(subs) else None
        return node

    # ------------------------------------------------------------------ stepping

    def _button(self, name: str, text: str, tip: str, slot: object) -> QPushButton:
        b = QPushButton(text)
        b.setObjectName(name)
        b.setToolTip(tip)
        b.clicked.connect(slot)
        return b

    @staticmethod
    def _wrapping_label(name: str) -> QLabel:
        label = QLabel("")
        label.setObjectName(name)
        label.setWordWrap(True)
        # Wrapped words never widen the panel: a projector's dock is 680 px.
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        return label

    def _more_menu(self) -> QToolButton:
        """The controls a lesson seldom needs, in a menu: the row fits a narrow dock."""
        menu = QMenu(self)
        self.values_action = QAction("values on nodes", self)
        self.values_action.setObjectName("graphValuesToggle")
        self.values_action.setCheckable(True)
        self.values_action.setToolTip("draw each node's output as a sparkline or histogram")
        self.values_action.toggled.connect(self.graph.set_show_values)
        self.graph.sig_show_values_changed.connect(self.values_action.setChecked)
        self.fit_all_action = QAction("Fit all: every node, however small (Shift+F)", self)
        self.fit_all_action.setObjectName("graphFitAll")
        self.fit_all_action.triggered.connect(self.graph.fit_all)
        self.collapse = QSpinBox()
        self.collapse.setObjectName("graphCollapse")
        self.collapse.setRange(1, 100_000)
        self.collapse.setValue(COLLAPSE_DEFAULT)
        self.collapse.setPrefix("expand groups up to ")
        self.collapse.setSuffix(" eqns")
        self.collapse.setToolTip("sub-jaxprs (jit, cond branches, loop bodies) with more "
                                 "equations start collapsed; double-click a group to toggle it")
        self.collapse.valueChanged.connect(self._on_collapse_changed)
        holder = QWidget()
        row = QHBoxLayout(holder)
        row.setContentsMargins(8, 2, 8, 2)
        row.addWidget(self.collapse)
        collapse_action = QWidgetAction(self)
        collapse_action.setDefaultWidget(holder)
        menu.addAction(self.fit_all_action)
        menu.addAction(self.values_action)
        menu.addAction(collapse_action)
        button = QToolButton()
        button.setObjectName("graphMore")
        button.setText("More")
        button.setToolTip("Fit all, values on nodes, which groups start expanded")
        button.setMenu(menu)
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        return button

    def _on_step_next(self) -> None:
        self._wanted = None
        if self.stepper.next():
            self._show_step()

    def _on_step_previous(self) -> None:
        self._wanted = None
        if self.stepper.previous():
            self._show_step()

    def _on_step_reset(self) -> None:
        self._wanted = None
        self.stepper.reset()
        self._show_step()

    def _on_run_to_cursor(self) -> None:
        tree = self._tree
        if tree is None:
            return
        self._wanted = None

        def line_of(path: tuple[int, ...]) -> int | None:
            eqn = eqn_at(tree, path)
            return eqn.line if eqn is not None else None

        if self.stepper.run_to_line(self._cursor_line, line_of):
            self._show_step()
        else:
            self.step_label.setText(f"no equation of line {self._cursor_line} runs after this "
                                    "step")

    def _show_step(self) -> None:
        current = self.stepper.current
        self._stepped = (self._trace, current)
        self.graph.set_step(current, self.stepper.done() if current is not None else None)
        self._update_step_controls()
        if current is not None:
            self.graph.center_on(current)
            self.graph.select(current)
            self._show_eqn(current)
        self.sig_step.emit(current)

    def _update_step_controls(self) -> None:
        stepper = self.stepper
        ready = self._values is not None and stepper.total > 0
        self.step_next.setEnabled(ready and stepper.position + 1 < stepper.total)
        self.step_previous.setEnabled(ready and stepper.position >= 0)
        self.step_reset.setEnabled(ready and stepper.position >= 0)
        self.step_to_cursor.setEnabled(ready)
        current = stepper.current
        if not ready:
            self.step_label.setText("")
        elif current is None:
            self.step_label.setText(f"{stepper.total} equations ran: press Next to step")
        else:
            self.step_label.setText(f"step {stepper.position + 1} of {stepper.total}: "
                                    f"{self._where(current)}")

    def _on_collapse_changed(self, value: int) -> None:
        self.graph.set_collapse_threshold(value)


class _Look(NamedTuple):
    """A value to show: its heading, its variable (None: a constant output), the output."""

    heading: str
    ref: VarRef | None
    output: int | None = None


def _control_note(ev: EqnValues | None) -> str:
    """What a control-flow equation did: the branch it took, the iterations it ran."""
    if ev is None:
        return ""
    if ev.taken is not None:
        return f"branch {ev.taken} ran; the others did not"
    if ev.iterations is not None:
        runs = f"{ev.iterations:,} iteration{'' if ev.iterations == 1 else 's'}"
        return f"{runs}; inside, the values of the last one" if ev.iterations else runs
    return ""


class _FittingColumn(QVBoxLayout):
    """A column that does not ask for height-for-width: with it, the dock's scroll area
    would size the panel by its word-wrapped labels' preferred heights, pushing the
    plots below the dock's edge, instead of fitting the panel to the dock."""

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt override)
        return False


def _transforms(trace: TraceResult) -> tuple[Transform, ...]:
    """The trace's transform chain, which the engine checked when it traced it."""
    return trace.transforms
