"""How an open lesson changes the window: its dock beside the editor, the actions it
enables, and the views it marks as showing the code open before it.

Presenting, the lesson's step list folds away and its text takes a little more
of the width (the editor and jaxpr keep the rest); a step's figure widens the lesson
to show it whole at its own size.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

from workbench.lessons import text_notebooks
from workbench.lessons.text_notebooks import MARKDOWN_SUFFIXES
from workbench.ui.lesson.lesson_controller import LessonController
from workbench.ui.lesson.lesson_export import HandoutExport
from workbench.ui.lesson.lesson_panel import LessonPanel
from workbench.ui.panels.jaxpr_panel import JaxprPanel
from workbench.ui.panels.panel import Panel
from workbench.ui.storage.document import DocumentController
from workbench.ui.window.failure_view import FailureView
from workbench.ui.window.window_actions import WindowActions
from workbench.ui.window.window_layout import DockLayout

WARM_UP_AFTER_MS = 3000


def _warm_up_text_notebooks() -> None:
    threading.Thread(target=text_notebooks.warm_up, name="workbench-jupytext",
                     daemon=True).start()


LESSON_NOT_RUN = "no step has run yet: pick one (PageDown) to run its code"


class LessonView(QObject):
    """Shows and hides the lesson's place in the window as lessons open and close."""

    def __init__(self, lessons: LessonController, panel: LessonPanel, docks: DockLayout,
                 actions: WindowActions, document: DocumentController, jaxpr: JaxprPanel,
                 failures: FailureView, panels: Callable[[], Sequence[Panel | None]],
                 parent: QObject | None = None):
        super().__init__(parent)
        self.lessons = lessons
        self.panel = panel
        self.docks = docks
        self.actions = actions
        self.document = document
        self.jaxpr = jaxpr
        self.failures = failures
        self._panels = panels
        self._outputs_width = 0
        # Opening a notebook kept as text (the bundled .py lessons too) imports jupytext,
        # seconds where jsonschema's extras are installed: done on a thread once the window
        # is up, not on the GUI thread at the first open.
        QTimer.singleShot(WARM_UP_AFTER_MS, _warm_up_text_notebooks)
        self.handouts = HandoutExport(self)
        self.handouts.sig_done.connect(self._on_handout)
        lessons.sig_opened.connect(self._on_opened)
        lessons.sig_closed.connect(self._on_closed)
        panel.sig_outputs_width.connect(self._on_outputs_width)

    def open_dialog(self, near: Path | None) -> None:
        """File > Open Lesson: a notebook, MyST Markdown or a Jupytext script, starting beside
        ``near``."""
        start = str(near.parent) if near else str(Path.cwd())
        markdown = " ".join(f"*{s}" for s in MARKDOWN_SUFFIXES)
        path, _ = QFileDialog.getOpenFileName(
            self.panel, "Open Lesson", start,
            f"Lessons (*.ipynb {markdown} *.py);;Jupyter notebooks (*.ipynb);;"
            f"MyST and Markdown notebooks ({markdown});;Jupytext scripts (*.py)")
        if path:
            self.lessons.open(path)

    def export_dialog(self) -> None:
        """Lesson > Export handout...: where, asked; then written off the GUI thread."""
        lesson = self.lessons.lesson
        if lesson is None:
            return
        path = self.handouts.ask_path(lesson, self.panel)
        if path:
            self.handouts.export(lesson, self.lessons.codes, self.lessons.shown(), path)

    def _on_handout(self, message: str, _written: bool) -> None:
        self.lessons.host.statusBar().showMessage(message, 10_000)

    @property
    def presenting(self) -> QAction:
        return self.actions.action_presentation

    def arrange(self) -> None:
        if self.lessons.is_open:
            presenting = self.presenting.isChecked()
            self.panel.set_compact(presenting)
            self.docks.arrange_lesson(presenting, self._outputs_width)

    def _on_outputs_width(self, width: int) -> None:
        """The step's outputs need this width to show their widest figure whole."""
        if width != self._outputs_width:
            self._outputs_width = width
            self.arrange()

    def _on_opened(self) -> None:
        self.actions.set_lesson_open(True)
        self.docks.lesson_dock.show()
        self.docks.lesson_dock.raise_()
        self.arrange()
        # What the views show came from the code open before: none of it is the lesson's.
        self.jaxpr.clear(LESSON_NOT_RUN)
        self.failures.clear()
        for panel in self._panels():
            if panel is not None:
                panel.set_stale(f"from the code open before the lesson: {LESSON_NOT_RUN}")

    def _on_closed(self) -> None:
        self.actions.set_lesson_open(False)
        self.docks.lesson_dock.hide()
        self.document.update_title()
