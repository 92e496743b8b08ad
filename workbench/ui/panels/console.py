"""The IPython console (qtconsole) on the engine's own kernel: one namespace for both. A
local or SSH kernel's through its connection file, a Jupyter Server's over its WebSocket."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from workbench.api.cells import CellOutput

if TYPE_CHECKING:
    from workbench.client.server_kernel import ConsoleLink

os.environ.setdefault("QT_API", "pyside6")  # qtconsole goes through qtpy


class ConsolePanel(QWidget):
    """Holds the console widget (objectName ``console``) once the kernel's connection is known."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("consolePanel")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._placeholder = QLabel("The console starts with the engine ...")
        self._layout.addWidget(self._placeholder)
        self.widget: Any = None  # a ConsoleWidget once connected
        self.kernel_client: Any = None
        self.connection_file: str | ConsoleLink = ""  # what the client attached to
        self._scheme = "light"
        # qtconsole clears its text once a new client's kernel answers kernel_info (its
        # reset): what the workbench announced meanwhile is held and said again after it.
        self._resetting = False
        self._held: list[str] = []

    def connect_kernel(self, connection_file: str | ConsoleLink) -> None:
        """Attach a console client to the kernel described by ``connection_file``, or to a
        server's kernel through the engine's socket (again, when it changed: an attached
        kernel restarted behind a new SSH tunnel, a server started a new kernel)."""
        if self.widget is not None and connection_file == self.connection_file:
            return
        client = self._client(connection_file)
        if self.widget is not None:
            old, self.kernel_client = self.kernel_client, client
            self._resetting = True
            # A prompt qtconsole asked the old kernel for never comes: it would not ask the
            # new one, and the console would show no prompt (a cell was running, say).
            self.widget._prompt_requested = False
            self.widget.kernel_client = self.kernel_client
            self.connection_file = connection_file
            if old is not None:
                old.stop_channels()
            return
        from workbench.ui.panels.console_widget import ConsoleWidget

        self.connection_file = connection_file
        widget = ConsoleWidget()
        widget.setObjectName("console")
        widget.sig_reset.connect(self._on_reset)
        widget.kernel_client = client
        widget.banner = (
            "The workbench console: the editor's functions are defined here, "
            "and names you define here are visible to the engine.\n"
        )
        self._placeholder.hide()
        self._layout.addWidget(widget)
        self.widget = widget
        self.kernel_client = client
        self.set_scheme(self._scheme)

    def _client(self, where: str | ConsoleLink) -> Any:
        if isinstance(where, str):
            from workbench.ui.panels.console_client import ConsoleKernelClient

            client = ConsoleKernelClient(connection_file=where)
            client.load_connection_file()
        else:
            from workbench.ui.panels.server_console import ServerConsoleClient

            client = ServerConsoleClient(where)
        client.start_channels()
        # The engine's own comm messages go past on iopub; the console has no comms of
        # its own, so its comm manager must not warn "No such comm" for each of them.
        quiet = logging.getLogger("workbench.console.comms")
        quiet.setLevel(logging.ERROR)
        client.comm_manager.log = quiet
        return client

    def unavailable(self, why: str) -> None:
        """No console here, and why."""
        if self.widget is None:
            self._placeholder.setText(why)
            self._placeholder.setWordWrap(True)

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme (qtconsole's own style sheets)."""
        self._scheme = scheme
        if self.widget is None:
            return
        from qtconsole import styles

        dark = scheme == "dark"
        self.widget.style_sheet = (styles.default_dark_style_sheet if dark
                                   else styles.default_light_style_sheet)
        self.widget.syntax_style = (styles.default_dark_syntax_style if dark
                                    else styles.default_light_syntax_style)

    def scheme(self) -> str:
        return self._scheme

    def announce(self, text: str) -> None:
        """A line from the workbench in the console's output (a restart, say), not from code."""
        if self.widget is None:
            return
        if self._resetting:
            self._held.append(text)  # the reset would clear it
            return
        self.widget._append_plain_text(f"\n[workbench] {text}\n", before_prompt=True)

    def _on_reset(self) -> None:
        """The widget has cleared its text for the new kernel: say what was held."""
        if not self._resetting:
            return
        self._resetting = False
        held, self._held = self._held, []
        for text in held:
            self.announce(text)

    def show_output(self, text: str, background: bool = False) -> None:
        """What the editor's code printed; a thread's text (``background``) says so per line."""
        if self.widget is None or not text:
            return
        if background:
            text = "".join(f"[background thread] {line}"
                           for line in text.splitlines(keepends=True))
        self.widget._append_plain_text(text, before_prompt=True)

    def show_cell_outputs(self, outputs: Sequence[CellOutput]) -> None:
        """A lesson step's value and figures, as Jupyter's console shows them (its printed
        text came already, as the step ran)."""
        if self.widget is None:
            return
        for output in outputs:
            if output.png:
                self.widget._append_png(output.png, before_prompt=True)
            elif output.kind == "result":
                self.widget._append_plain_text(
                    f"Out[{output.execution_count}]: {output.text}\n", before_prompt=True)
        if outputs:
            # The step's output, not the text before it, is what the class should see.
            QTimer.singleShot(0, self.scroll_to_end)

    def scroll_to_end(self) -> None:
        """Show the console's last lines (a step's figure, its value)."""
        if self.widget is not None:
            # qtconsole's own: its scroll range runs a page past the text (for the prompt).
            self.widget._scroll_to_end()

    def execute(self, code: str) -> None:
        if self.widget is not None:
            self.widget.execute(code)

    def set_font_points(self, points: float) -> None:
        if self.widget is not None:
            font = self.widget.font
            font.setPointSizeF(points)
            self.widget.font = font

    def shutdown(self) -> None:
        if self.kernel_client is not None:
            self.kernel_client.stop_channels()
            self.kernel_client = None
