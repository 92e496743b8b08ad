"""qtconsole's widget, saying when it has reset.

qtconsole clears its text when a new client's kernel first answers ``kernel_info`` (its
reset). What the workbench announces while the console changes kernel is said again after
that reset; the widget's own signal says when, where the order of two queued handlers of the
same reply, posted from the client's thread, does not.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from qtconsole.rich_jupyter_widget import RichJupyterWidget


class ConsoleWidget(RichJupyterWidget):
    """``RichJupyterWidget`` with ``sig_reset``, emitted once a reset is done."""

    sig_reset = Signal()

    def reset(self, clear: bool = False) -> None:
        super().reset(clear)
        self.sig_reset.emit()
