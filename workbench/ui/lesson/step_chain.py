"""Run some of a lesson's steps one after another, as notebook cells, without showing each
in the editor: "Run steps above" (the ones passed without running, or every one above,
as Jupyter's Run All Above). Each step's code is sent when the one before has answered;
the first step that fails where it should not stops the chain."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import QObject, Signal

from workbench.api import messages as p
from workbench.lessons import Lesson
from workbench.lessons.plan import judge
from workbench.ui.control.requests import EngineRequests


class StepChain(QObject):
    """Runs steps in order through ``requests``; one chain at a time."""

    sig_step_done = Signal(int, object)
    """Step N answered (the reply: its outputs, or its failure)."""
    sig_finished = Signal(object, object)
    """The chain ended: the step that failed and its reply, or ``(None, None)`` when every
    step ran as it should."""

    def __init__(self, requests: EngineRequests, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._requests = requests
        self._lesson: Lesson | None = None
        self._todo: list[int] = []
        self.running = 0
        """The step on its way (0: no chain runs)."""

    def start(self, lesson: Lesson, numbers: Sequence[int]) -> None:
        """Run the code steps ``numbers`` of ``lesson`` in order."""
        self._lesson = lesson
        self._todo = [n for n in numbers if lesson.step(n).has_code]
        self._next()

    def cancel(self) -> None:
        """Send no more steps (the one on its way still answers, to nobody)."""
        self._todo = []
        self.running = 0
        self._lesson = None

    def _next(self) -> None:
        lesson = self._lesson
        if lesson is None or not self._todo:
            self.running = 0
            self._lesson = None
            self.sig_finished.emit(None, None)
            return
        number = self._todo.pop(0)
        self.running = number
        request = p.LoadSource(source=lesson.step(number).code,
                               filename=lesson.step_filename(number), keep_names=True,
                               cell=True)
        self._requests.load(request, partial(self._on_reply, number))

    def _on_reply(self, number: int, reply: p.Reply) -> None:
        lesson = self._lesson
        if lesson is None or number != self.running:
            return  # cancelled meanwhile
        self.sig_step_done.emit(number, reply)
        if p.result_value(reply, p.Functions) is None:
            step = lesson.step(number)
            kind = reply.explanation.kind if isinstance(reply, p.UserCodeFailure) else ""
            fine = (isinstance(reply, p.UserCodeFailure)
                    and judge(step.expect_error, kind, step.may_raise).verdict != "failed")
            if not fine:
                self.cancel()
                self.sig_finished.emit(number, reply)
                return
        self._next()
