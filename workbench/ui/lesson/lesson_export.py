"""Lesson > Export handout...: the lesson with what its steps showed in this window (the
teacher's edits included), written as HTML, an executed notebook or PDF.

nbformat and nbconvert take a second or more to import and render, so the handout is
built and written on a thread of its own; the window stays live and the status line
says where it went, or why not.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from workbench.lessons import Lesson
from workbench.lessons.bundled import is_bundled
from workbench.lessons.handout import (
    PDF_NEEDS,
    HandoutError,
    StepShown,
    handout_notebook,
    pdf_route,
    write_handout,
)

FILTERS = {"Web page, images inside (*.html)": ".html",
           "Executed notebook (*.ipynb)": ".ipynb", "PDF (*.pdf)": ".pdf"}


def shown_note(lesson: Lesson, shown: Mapping[int, StepShown]) -> str:
    """How much of the lesson the handout shows run: the steps with code that ran here."""
    code = [s.number for s in lesson.steps if s.has_code and not s.skip]
    ran = sum(1 for n in code if n in shown)
    if ran == len(code):
        return f"every code step with its outputs ({ran})"
    return (f"{ran} of {len(code)} code steps with their outputs: run the others "
            "(Run all above) to include theirs")


class HandoutExport(QObject):
    sig_done = Signal(str, bool)
    """The status line's words, and whether the handout was written."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._writing: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self._writing is not None and self._writing.is_alive()

    def ask_path(self, lesson: Lesson, parent: QWidget) -> str | None:
        """Where to write the handout, asked; beside the lesson (home for a bundled one)."""
        folder = Path.home() if lesson.bundled or is_bundled(lesson.path) else lesson.path.parent
        path, chosen = QFileDialog.getSaveFileName(parent, "Export handout",
                                                   str(folder / f"{lesson.path.stem}.html"),
                                                   ";;".join(FILTERS))
        if not path:
            return None
        suffix = FILTERS.get(chosen, ".html")
        return path if Path(path).suffix.lower() in FILTERS.values() else path + suffix

    def export(self, lesson: Lesson, codes: Mapping[int, str],
               shown: Mapping[int, StepShown], path: str | os.PathLike[str]) -> bool:
        """Start writing the handout to ``path``; False (said on ``sig_done``) when it
        cannot start: another is being written, or PDF has nothing to make it with."""
        if self.busy:
            self.sig_done.emit("a handout is still being written: wait for it", False)
            return False
        if Path(path).suffix.lower() == ".pdf" and pdf_route() is None:
            self.sig_done.emit(f"no handout written: {PDF_NEEDS}", False)
            return False
        codes, shown = dict(codes), dict(shown)
        self._writing = threading.Thread(target=self._write, args=(lesson, codes, shown, path),
                                         name="handout", daemon=True)
        self._writing.start()
        return True

    def _write(self, lesson: Lesson, codes: dict[int, str], shown: dict[int, StepShown],
               path: str | os.PathLike[str]) -> None:
        try:
            written = write_handout(handout_notebook(lesson, codes, shown), path)
        except HandoutError as exc:
            self.sig_done.emit(f"no handout written: {exc}", False)
        except OSError as exc:
            self.sig_done.emit(f"could not write the handout {path}: {exc.strerror or exc}",
                               False)
        else:
            self.sig_done.emit(f"handout written: {written} ({shown_note(lesson, shown)})", True)
