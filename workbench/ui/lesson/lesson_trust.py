"""Whether a lesson's code may run: bundled, or the user said yes to exactly the bytes that
were read (their SHA-256, kept in the settings), asked once per lesson opened.

Trust, like bundled status, is decided on what was read, the code that runs, never on the
file as it is when a step is picked: a file swapped or a link re-pointed after the read
changes nothing."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from workbench.lessons import Lesson
from workbench.ui.control.trace_controller import TraceController
from workbench.ui.storage.settings import Settings


class LessonTrust:
    """The open lesson's trust: ``reset`` for each lesson, ``may_run`` before a step runs."""

    def __init__(self, settings: Settings, tracer: TraceController, parent: QWidget) -> None:
        self._settings = settings
        self._tracer = tracer
        self._parent = parent
        self.trusted = False
        self._declined = False

    def reset(self, lesson: Lesson) -> None:
        """A lesson was opened (or read back after a save): trust goes with its bytes."""
        self.trusted = self.remembered(lesson)
        self._declined = False

    def remembered(self, lesson: Lesson) -> bool:
        """A bundled lesson, or the user said yes to exactly the bytes this lesson was read
        from."""
        return lesson.bundled or self._settings.is_trusted_content(lesson.content_key)

    def may_run(self, lesson: Lesson, ask: bool) -> bool:
        """Ask once (``ask``: this window may) before the first step of a lesson from
        elsewhere runs; a "no" holds until the lesson is opened again."""
        if self.trusted or self.remembered(lesson):
            self.trusted = True
            return True
        if self._declined:
            return False
        # Nothing of the lesson's may run while the question is open (a modal dialog
        # still runs the event loop, and with it the live timer).
        self._tracer.hold("waiting for your answer: run this lesson's code?")
        real = lesson.real_path
        via = f"\n(a link to {real})" if real is not None and real != lesson.path.absolute() \
            else ""
        if ask:
            box = QMessageBox(
                QMessageBox.Icon.Question, "Run this lesson's code?",
                f"This lesson runs its code in the engine, with your permissions:\n"
                f"{lesson.path}{via}\n\nIt does not come with the workbench. Run it?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self._parent)
            box.setObjectName("lessonTrustDialog")
            box.setDefaultButton(QMessageBox.StandardButton.No)
            if box.exec() == QMessageBox.StandardButton.Yes:
                self._settings.trust_content(lesson.content_key)
                self.trusted = True
                return True
        self._declined = True
        return False
