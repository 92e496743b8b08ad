"""Two windows (or a window and another editor) on one file: Save never silently writes over
the other's newer edit. It asks (Overwrite, Save As..., Cancel); a window that may not ask
refuses and keeps its text."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QWidget,
)

ORIGINAL = "x = 1\n"
QUESTION = "shared.py changed on disk since you opened it."
Answer = Callable[[QWidget], bool]


def click(name: str | QMessageBox.StandardButton, asked: list[str]) -> Answer:
    """Click a button of the message box that shows, after noting its question."""
    def answer(box: QWidget) -> bool:
        if not isinstance(box, QMessageBox):
            return False
        asked.append(box.text())
        button = (box.findChild(QPushButton, name) if isinstance(name, str)
                  else box.button(name))
        button.click()
        return True
    return answer


def choose_file(path) -> Answer:
    """Type the path into the dialog's name field and accept. Not ``selectFile``: Qt leaves
    the field as it is when it has the focus (it does once the dialog is active), and the
    dialog then saves over the file it opened with, asking first (a question no one answers)."""
    def answer(dialog: QWidget) -> bool:
        if not isinstance(dialog, QFileDialog):
            return False
        dialog.findChild(QLineEdit, "fileNameEdit").setText(str(path))
        assert dialog.selectedFiles() == [str(path)]
        dialog.accept()
        return True
    return answer


def answering(*answers: Answer) -> tuple[QTimer, list[Answer]]:
    """Answer the next modal dialogs in turn as each shows (real dialogs, real clicks); the
    answers not used yet are in the list."""
    pending = list(answers)

    def tick() -> None:
        modal = QApplication.activeModalWidget()
        if modal is not None and pending and pending[0](modal):
            pending.pop(0)

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    return timer, pending


def test_the_second_window_to_save_asks_and_cancel_keeps_the_first_ones_text(
        asking_window, tmp_path):
    path = tmp_path / "shared.py"
    path.write_text(ORIGINAL)
    first, second = asking_window(path), asking_window(path)
    first.editor.setPlainText("x = 'first'\n")
    assert first.save()  # nobody wrote it since the first window opened it: no question
    assert path.read_text() == "x = 'first'\n"

    second.editor.setPlainText("x = 'second'\n")
    asked: list[str] = []
    timer, pending = answering(click(QMessageBox.StandardButton.Cancel, asked))
    assert not second.save()
    assert asked == [QUESTION] and not pending
    assert path.read_text() == "x = 'first'\n"  # the first window's edit is safe
    assert second.editor.toPlainText() == "x = 'second'\n" and second.is_modified()

    timer, pending = answering(click("overwrite", asked))
    assert second.save()
    assert path.read_text() == "x = 'second'\n" and not second.is_modified()
    second.editor.setPlainText("x = 'second, again'\n")
    timer, pending = answering(click(QMessageBox.StandardButton.Cancel, asked))
    assert second.save()  # its own last write is what is on disk: no question
    assert len(asked) == 2 and len(pending) == 1
    assert path.read_text() == "x = 'second, again'\n"

    other = tmp_path / "first_copy.py"
    first.editor.setPlainText("x = 'first, later'\n")
    timer, pending = answering(click("saveAs", asked), choose_file(other))
    assert first.save()  # the second window wrote it meanwhile: asked, and saved elsewhere
    assert asked[2:] == [QUESTION] and not pending
    assert other.read_text() == "x = 'first, later'\n"
    assert path.read_text() == "x = 'second, again'\n"
    assert first.document.path == other.resolve()


def test_a_window_that_cannot_ask_keeps_its_text_and_says_why(make_window, tmp_path):
    path = tmp_path / "shared.py"
    path.write_text(ORIGINAL)
    window = make_window(path)  # ask=False
    path.write_text("x = 'from another editor'\n")
    window.editor.setPlainText("x = 'mine'\n")
    assert not window.save()
    assert path.read_text() == "x = 'from another editor'\n"
    assert window.editor.toPlainText() == "x = 'mine'\n" and window.is_modified()
    assert window.messages.toPlainText() == (
        "shared.py changed on disk since you opened it, so your text was not saved over it: "
        "it is still in the editor (use Save As to keep it in another file)")


def test_a_file_touched_rewritten_the_same_or_removed_is_saved_without_a_word(
        make_window, tmp_path):
    path = tmp_path / "shared.py"
    path.write_text(ORIGINAL)
    window = make_window(path)  # ask=False: any question would be a refusal
    os.utime(path, ns=(1, 1))  # another time, the same bytes
    window.editor.setPlainText("x = 2\n")
    assert window.save() and path.read_text() == "x = 2\n"
    path.write_text("x = 2\n")  # another program wrote what this window wrote
    window.editor.setPlainText("x = 3\n")
    assert window.save() and path.read_text() == "x = 3\n"
    path.unlink()  # nothing there to lose
    window.editor.setPlainText("x = 4\n")
    assert window.save() and path.read_text() == "x = 4\n"
    assert not window.messages.isVisible()
