"""qtconsole's widget, saying when it has reset, and never asking in a modal.

qtconsole clears its text when a new client's kernel first answers ``kernel_info`` (its
reset). What the workbench announces while the console changes kernel is said again after
that reset; the widget's own signal says when, where the order of two queued handlers of the
same reply, posted from the client's thread, does not. Only a reset that clears counts: the
old kernel's heartbeat, silent for 3 s when a crashed engine restarts slowly, resets the
widget without clearing it, and saying the held lines then had the clear wipe them.

A kernel shut down from outside (a server's culler, JupyterLab, a ``DELETE``) made
qtconsole ask "Close the Console?" in a modal box, which held the window's event loop until
someone answered (370 s unattended). The engine's notice already says the kernel is gone
and what Restart engine does: the console says one line and asks nothing.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from qtconsole.rich_jupyter_widget import RichJupyterWidget


class ConsoleWidget(RichJupyterWidget):
    """``RichJupyterWidget`` with ``sig_reset``, emitted once a reset has cleared the text."""

    sig_reset = Signal()

    def reset(self, clear: bool = False) -> None:
        super().reset(clear)
        if clear:
            self.sig_reset.emit()

    def _handle_shutdown_reply(self, msg: dict[str, Any]) -> None:
        if self.from_here(msg) or msg.get("content", {}).get("restart", False):
            super()._handle_shutdown_reply(msg)  # a restart: qtconsole says it, no question
            return
        self._append_plain_text("\nThe kernel was shut down from outside the workbench: "
                                "Restart engine starts a new one.\n", before_prompt=True)
