"""The editor, the jaxpr tree and the graph kept on one equation and one result.

A trace shows in the tree (its errors cleared); a failure marks the tree as the
last good result, never passing it off as current, and explains itself under
the editor; a tree row, a graph node and an editor line select one another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QStatusBar

from workbench.api import messages as p
from workbench.api.jaxpr import TraceResult
from workbench.ui.control.session import Session
from workbench.ui.control.trace_controller import TraceController
from workbench.ui.editor.editor import CodeEditor
from workbench.ui.panels.banner import describe_call
from workbench.ui.panels.jaxpr_panel import JaxprPanel
from workbench.ui.window.failure_view import FailureView

if TYPE_CHECKING:  # built after the first paint: pyqtgraph loads then
    from workbench.ui.panels.graph_panel import GraphPanel

NO_FUNCTION = "no function defined yet"
NO_STEP_FUNCTION = ("this step defines no function: nothing to trace (what it showed is under "
                    "its text)")


class CodeViews(QObject):
    """Shows the session's traces and the tracer's failures in the tree and under the editor."""

    sig_traced = Signal(object)
    """A trace was shown in the jaxpr view (the ``TraceResult``)."""

    def __init__(self, session: Session, tracer: TraceController, editor: CodeEditor,
                 jaxpr: JaxprPanel, failures: FailureView, status: QStatusBar,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.tracer = tracer
        self.editor = editor
        self.jaxpr = jaxpr
        self.failures = failures
        self.status = status
        session.sig_traced.connect(self._on_traced)
        tracer.sig_failed.connect(self._on_failed)
        tracer.sig_no_functions.connect(self._on_no_functions)
        tracer.sig_not_traced.connect(self._on_not_traced)
        tracer.sig_lowered.connect(jaxpr.show_lowering)
        tracer.sig_lower_failed.connect(jaxpr.show_hlo_error)
        jaxpr.sig_hlo_wanted.connect(tracer.lower)
        jaxpr.sig_line_activated.connect(self._on_equation_line)
        editor.sig_cursor_line_changed.connect(jaxpr.set_cursor_line)

    def link_panel(self, dock_name: str, panel: object) -> None:
        """A panel was built (``PanelSet.sig_built``): the graph's is linked to the code."""
        if dock_name == "graphDock":
            self.link_graph(cast("GraphPanel", panel))

    def link_graph(self, graph: GraphPanel) -> None:
        """Graph node, tree row and editor line show one equation, whichever was picked."""
        graph.sig_eqn_selected.connect(self.jaxpr.select_path)
        graph.sig_step.connect(self._on_step)
        graph.sig_error_line.connect(self._on_values_error)
        self.jaxpr.sig_eqn_selected.connect(graph.show_path)
        self.editor.sig_cursor_line_changed.connect(graph.set_cursor_line)
        graph.set_cursor_line(self.editor.current_line)

    def _on_traced(self, result: TraceResult) -> None:
        self.failures.clear()
        self.jaxpr.show_trace(result, self.session.load_printed)
        if self.jaxpr.selected_path() is None:  # no row picked: no line of one stays marked
            self.editor.highlight_lines([])
        self.jaxpr.set_cursor_line(self.editor.current_line)
        self.sig_traced.emit(result)

    def _on_no_functions(self) -> None:
        self.failures.clear()
        # A lesson step that defines none says so: no earlier step's function stays shown.
        self.jaxpr.clear(NO_STEP_FUNCTION if self.tracer.keep_names else NO_FUNCTION)

    def _on_not_traced(self, text: str) -> None:
        """Said plainly, no error: the code ran; only the guessed call did not fit."""
        self.failures.clear()
        self.jaxpr.clear(text)

    def _on_failed(self, reply: p.Reply) -> None:
        if isinstance(reply, p.Cancelled):
            self.status.showMessage(reply.reason, 4000)
            if reply.line and reply.file == self.failures.filename():
                self.editor.go_to_line(reply.line)  # where it was when stopped
                self.editor.highlight_lines([reply.line])
            return
        why = p.reply_text(reply).splitlines()[0]
        shown = self.jaxpr.trace()
        if shown is None:
            self.jaxpr.clear(f"this call failed: {why}")
        else:
            self.jaxpr.set_stale(f"last good: {describe_call(shown)} — this call failed: {why}")
        self.failures.show_failure(reply)

    def _on_step(self, path: tuple[int, ...] | None) -> None:
        if path is not None and not self.jaxpr.select_path(path):
            self.editor.highlight_lines([])

    def _on_values_error(self, line: int, title: str) -> None:
        self.editor.set_error_marks([(line, title, "raised while the values were computed: "
                                      "see the Graph panel")])

    def _on_equation_line(self, line: int) -> None:
        self.editor.go_to_line(line)
        self.editor.highlight_lines([line])
