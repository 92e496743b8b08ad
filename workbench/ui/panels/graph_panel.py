"""The program as a dataflow graph with every intermediate value, stepped equation by equation.

The panel follows the session: a new trace redraws the graph at once, then
the panel asks the engine for the values of that trace (``Values``) and, for
the variable picked, its full array (``VarArray``). A reply that belongs to an
older trace is dropped. Selecting a node, a tree row or an editor line shows
the same equation in all three (the window connects them); stepping walks the
equations in evaluation order and keeps its place across panel switches and
re-runs that keep the equation.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
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
    steps,
    summary_of,
)
from workbench.graph.stepper import Stepper
from workbench.plots.graph_view import JaxprGraphView
from workbench.plots.value_view import ValueView
from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Session
from workbench.ui.panels.banner import describe_call
from workbench.ui.panels.jaxpr_model import eqn_text
from workbench.ui.panels.panel import Panel

COLLAPSE_DEFAULT = 60
NOT_RUN = "this equation did not run: a branch not taken, or after the error"


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

        self.graph = JaxprGraphView()
        self.graph.set_controls_visible(False)
        self.graph.sig_node_selected.connect(self._on_node_clicked)
        self.graph.sig_var_selected.connect(self._on_var_clicked)
        self.value_view = ValueView()

        self.values_box = QCheckBox("values on nodes")
        self.values_box.setObjectName("graphValuesToggle")
        self.values_box.setToolTip("draw each node's output as a sparkline or histogram")
        self.values_box.toggled.connect(self.graph.set_show_values)
        self.collapse = QSpinBox()
        self.collapse.setObjectName("graphCollapse")
        self.collapse.setRange(1, 100_000)
        self.collapse.setValue(COLLAPSE_DEFAULT)
        self.collapse.setPrefix("expand groups up to ")
        self.collapse.setSuffix(" eqns")
        self.collapse.setToolTip("sub-jaxprs (jit, cond branches, loop bodies) with more "
                                 "equations start collapsed; double-click a group to toggle it")
        self.collapse.valueChanged.connect(self._on_collapse_changed)
        fit = QPushButton("Fit")
        fit.setObjectName("graphFit")
        fit.setToolTip("show the whole graph (F)")
        fit.clicked.connect(self.graph.fit)

        self.step_reset = self._button("stepReset", "Start", "back to before the first "
                                       "equation", self._on_step_reset)
        self.step_previous = self._button("stepPrevious", "\u25c0 Previous",
                                          "the equation evaluated before (Shift+F10)",
                                          self._on_step_previous)
        self.step_next = self._button("stepNext", "Next \u25b6",
                                      "evaluate the next equation (F10)", self._on_step_next)
        self.step_to_cursor = self._button("stepToCursor", "Run to cursor line",
                                           "step forward to the next equation of the editor "
                                           "cursor's line (F8)", self._on_run_to_cursor)
        self.step_label = QLabel("")
        self.step_label.setObjectName("stepLabel")
        self.status = QLabel("")
        self.status.setObjectName("valuesStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        for key, slot in (("F10", self._on_step_next), ("Shift+F10", self._on_step_previous),
                          ("F8", self._on_run_to_cursor)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        for widget in (self.step_reset, self.step_previous, self.step_next,
                       self.step_to_cursor, self.step_label, None, self.values_box,
                       self.collapse, fit):
            if widget is None:
                bar.addStretch(1)
            else:
                bar.addWidget(widget)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("graphSplitter")
        self.splitter.addWidget(self.graph)
        self.splitter.addWidget(self.value_view)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([600, 400])  # kept in proportion when the dock is laid out
        layout = _FittingColumn(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
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
        self.graph.center_on(path)
        self.graph.select(path)
        self._show_eqn(path)

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
        if not same_program:
            self.graph.set_graph(result.jaxpr)
            self.value_view.clear("select a node or an edge to see its value")
            self._ref = None
        self.graph.set_values(None)
        self.status.setText(f"{describe_call(result)}: evaluating ...")
        self.when_settled("values", self._request_values, self.session)

    def _on_failed(self, reply: p.Reply) -> None:
        if self._trace is None:
            return
        why = p.reply_text(reply).splitlines()[0]
        self.set_stale(f"last good: {describe_call(self._trace)} — this call failed: {why}")

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
                self.status.setText(f"values not computed: {reply.reason}")
            else:
                self.status.setText(f"values not computed: {p.reply_text(reply)}")
            return
        self.session.set_values(values)

    def _on_values(self, values: ValuesResult) -> None:
        if self._trace is None or self.session.trace is not self._trace:
            return
        self._values = values
        self.graph.set_values(values)
        order = list(steps(self._trace.jaxpr, values.root))
        if self._same_step(self._trace):
            self.stepper.follow(order)
        else:
            self.stepper.reset(order)
        self._stepped = (self._trace, self.stepper.current)
        self.status.setText(self._status_text(values))
        if values.error is not None and values.error_path is not None:
            eqn = eqn_at(self._trace.jaxpr, values.error_path)
            line = values.error.line or (eqn.line if eqn is not None else None)
            if line:
                self.sig_error_line.emit(line, values.error.title)
        self._update_step_controls()
        if self.stepper.current is not None:
            self._show_step()
        elif self._ref is not None:
            self._show_ref(self._ref)

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
        self._show_eqn(path)
        self.sig_eqn_selected.emit(path)

    def _on_var_clicked(self, ref: VarRef) -> None:
        self._show_ref(ref)

    def _show_eqn(self, path: tuple[int, ...]) -> None:
        self._show_ref(VarRef(path[:-1], path[-1], 0))

    def _show_ref(self, ref: VarRef) -> None:
        """The value view shows one variable: its summary now, its full array when it comes."""
        if self._tree is None:
            return
        self._ref = ref
        title, note = self._title(ref)
        values = self._values
        found = node_at(self._tree, values.root, ref.node) if values is not None else None
        summary = summary_of(found[1], ref) if found is not None else None
        if values is None:
            self.value_view.show_value(title, None, "evaluating ...")
            return
        ev = eqn_values_at(values.root, (*ref.node, ref.eqn)) if ref.eqn is not None else None
        if summary is not None:
            note = _control_note(ev)
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

    def _on_step_next(self) -> None:
        if self.stepper.next():
            self._show_step()

    def _on_step_previous(self) -> None:
        if self.stepper.previous():
            self._show_step()

    def _on_step_reset(self) -> None:
        self.stepper.reset()
        self._show_step()

    def _on_run_to_cursor(self) -> None:
        tree = self._tree
        if tree is None:
            return

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
