"""Nothing carried over: a file, a new buffer or a lesson step starts from its own state.

Whenever the editor gets text of another origin (File > Open, New, an example,
a lesson step, Reset step), the call's transform chain, the typed arguments, the
line highlight, the plot's crosshair and the tree go back to nothing, and every
panel still showing the code before says so ("from selu.py: ...") until the new
code has run. Whoever opened the text then selects its own call (an example's,
a step's directive), after this.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject

from workbench.ui.control.trace_controller import TraceController
from workbench.ui.editor.call_controls import CallControls
from workbench.ui.editor.editor import CodeEditor
from workbench.ui.panels.jaxpr_panel import JaxprPanel
from workbench.ui.panels.panel import Panel
from workbench.ui.storage.document import DocumentController
from workbench.ui.window.failure_view import FailureView

NOT_RUN_YET = "not run yet"
PAUSED_FOR_DISK = "live mode paused for a file opened from disk: press Run to run it"
PAUSED_RECOVERED = "live mode paused for text recovered after a crash: press Run to run it"


def origin_label(filename: str) -> str:
    """How a banner names where shown results came from: a file's name, a lesson's step."""
    return Path(filename).name if "/" in filename or "\\" in filename else filename


class FreshStart(QObject):
    """Resets the window's per-file state when the editor's text is replaced."""

    def __init__(self, document: DocumentController, tracer: TraceController,
                 filename: Callable[[], str], controls: CallControls, editor: CodeEditor,
                 jaxpr: JaxprPanel, failures: FailureView,
                 panels: Callable[[], Sequence[Panel | None]], parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.tracer = tracer
        self._filename = filename
        self.controls = controls
        self.editor = editor
        self.jaxpr = jaxpr
        self.failures = failures
        self._panels = panels
        self.shown = ""
        """The origin (file name or lesson step) of the text the views were last opened on."""
        document.sig_opened.connect(self.on_opened)

    def on_opened(self) -> None:
        """The editor now holds another file's, buffer's or step's text."""
        document = self.document
        if document.path is not None or not self.editor.toPlainText():
            self.tracer.release_hold()  # a file or an empty buffer: no declined code
        if document.from_outside:
            self.tracer.pause_live(PAUSED_FOR_DISK)  # it runs when the user says so
        elif document.recovered:  # it may be a lesson step the user declined to run
            self.tracer.pause_live(PAUSED_RECOVERED)
        before, self.shown = self.shown, origin_label(self._filename())
        controls = self.controls
        controls.blockSignals(True)  # no trace of the old call: the new text runs anyway
        try:
            controls.reset_call()
        finally:
            controls.blockSignals(False)
        self.editor.highlight_lines([])
        self.failures.clear()
        self.jaxpr.clear(f"{self.shown}: {NOT_RUN_YET}")
        for panel in self._panels():
            if panel is None:
                continue
            panel.forget_view_state()
            if before and before != self.shown and panel.stale_text() is None:
                panel.set_stale(f"from {before}: {self.shown} has not run yet")
