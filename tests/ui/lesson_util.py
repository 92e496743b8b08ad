"""Answering a window's questions with a real click."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox


def answering(asked: list[str], button: QMessageBox.StandardButton) -> QTimer:
    """Answer the next modal question as soon as it shows (a real dialog, a real click)."""
    def answer() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            asked.append(box.text())
            box.button(button).click()

    timer = QTimer()
    timer.setSingleShot(True)
    timer.setInterval(0)
    timer.timeout.connect(answer)
    timer.start()
    return timer
