"""The notice bar above the editor: crashes, restarts, Stop that could not stop, the window's own.

Engine notices are kept apart from code errors, one entry per event: the restart
that follows a crash completes the crash's entry. A slow heartbeat only goes to
the status line. An attached kernel that Stop could not stop gets an offer to
restart it, which is the user's choice.
"""

from __future__ import annotations

import os
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QToolButton, QVBoxLayout, QWidget

from workbench.api.state import Notice, NoticeKind

KEPT = 3  # entries shown at once: the newest
FAULT_CHARS = 1500
_FAULT_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def crash_line(fault: str, filename: str) -> int | None:
    """The line of ``filename`` the engine's last words (faulthandler's text) name, if any;
    faulthandler lists the innermost frame first."""
    name = os.path.basename(filename)
    return next((int(m.group(2)) for m in _FAULT_LINE.finditer(fault)
                 if os.path.basename(m.group(1)) == name), None)


class NoticeBar(QWidget):
    """The newest notices, a dismiss button and, when it applies, the restart offer."""

    sig_status = Signal(str, int)
    """A line for the status bar, and how long to show it (ms)."""
    sig_restart_wanted = Signal()
    """The user took the offer to restart the attached kernel that Stop could not stop."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("engineNotice")
        self.entries: list[str] = []
        self._last_kind = ""
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setObjectName("engineNoticeText")
        self.text.setMaximumHeight(90)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("dismiss")
        close.clicked.connect(self.dismiss)
        self.restart_offer = QToolButton()
        self.restart_offer.setObjectName("restartOffer")
        self.restart_offer.setText("Restart the kernel")
        self.restart_offer.setToolTip("restart the attached kernel through its control channel: "
                                      "what runs stops, and the names defined in it are lost")
        self.restart_offer.clicked.connect(self._on_restart_offer)
        self.restart_offer.hide()
        buttons = QVBoxLayout()
        buttons.addWidget(close, 0, Qt.AlignmentFlag.AlignRight)
        buttons.addWidget(self.restart_offer)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text, 1)
        layout.addLayout(buttons)
        self.hide()

    def add_engine_notice(self, notice: Notice, *, host: str | None, engine_state: str) -> None:
        if notice.kind in (NoticeKind.UNRESPONSIVE, NoticeKind.RESPONDING, NoticeKind.WAITING):
            # A load spike can delay a heartbeat, a kernel take its time to start: the status
            # line says it, the bar stays free.
            self.sig_status.emit(notice.message, 8000)
            return
        text = notice.message
        if notice.fault:
            text += "\n" + notice.fault.strip()[:FAULT_CHARS]
        if (notice.kind == NoticeKind.RESTARTED and self.entries
                and self._last_kind == NoticeKind.CRASHED):
            head, _, fault = self.entries[-1].partition("\n")
            self.entries[-1] = f"{head}; {notice.message}" + (f"\n{fault}" if fault else "")
        else:
            self.entries = [*self.entries[-(KEPT - 1):], text]
            self.sig_status.emit(notice.message, 8000)
        self._last_kind = str(notice.kind)
        self._show()
        if notice.offer_restart and engine_state not in ("idle", "dead"):
            self.restart_offer.setText(f"Restart the kernel on {host}")
            self.restart_offer.show()

    def add_window_notice(self, text: str) -> None:
        """Something about the window itself the user must know (autosave is off)."""
        self.entries = [*self.entries[-(KEPT - 1):], text]
        self._last_kind = "window"
        self._show()
        self.sig_status.emit(text, 8000)

    def on_engine_state(self, state: str) -> None:
        if state in ("idle", "restarting", "dead"):
            self.restart_offer.hide()  # it stopped after all, or the offer was taken, or moot

    def dismiss(self) -> None:
        self.entries = []
        self.hide()
        self.restart_offer.hide()

    def _show(self) -> None:
        self.text.setPlainText("\n\n".join(self.entries))
        self.show()

    def _on_restart_offer(self) -> None:
        self.restart_offer.hide()
        self.sig_restart_wanted.emit()
