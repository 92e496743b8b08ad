"""What the engine tells the user besides replies: notices, its output, the line it died on.

Crash, restart and Stop notices go to the notice bar (apart from code errors);
a crash marks the editor line the engine's last words name; the console hears
that its names are gone after a restart; user output goes to the console.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStatusBar

from workbench.api.messages import Output
from workbench.api.state import Notice, NoticeKind
from workbench.ui.control.engine_bridge import EngineBridge
from workbench.ui.editor.editor import CodeEditor
from workbench.ui.panels.console import ConsolePanel
from workbench.ui.window.notice_bar import NoticeBar, crash_line

RELOADED = "engine restarted: names defined in the console are gone; the editor source " \
           "was reloaded"
NOT_RELOADED = "engine restarted: names defined in the console are gone; the editor source " \
               "could not be loaded again"


class EngineEvents(QObject):
    """Routes the engine's notices and output to the notice bar, editor and console."""

    def __init__(self, engine: EngineBridge, bar: NoticeBar, editor: CodeEditor,
                 console: ConsolePanel, status: QStatusBar, filename: Callable[[], str],
                 reconnect_console: Callable[[], None], parent: QObject | None = None):
        super().__init__(parent)
        self.engine = engine
        self.bar = bar
        self.editor = editor
        self.console = console
        self.status = status
        self._filename = filename
        self._reconnect_console = reconnect_console
        engine.sig_notice.connect(self.on_notice)
        engine.sig_output.connect(self.on_output)
        engine.sig_state_changed.connect(self._on_state)

    def _on_state(self, state: str) -> None:
        """Idle: the console follows the engine's kernel. An attached kernel's connection is
        read (and tunnelled) as it connects; ours changes when a restart adopts the kernel
        that Stop started early; a server's when the server starts a new one."""
        if state == "idle":
            self._reconnect_console()

    def on_notice(self, notice: Notice) -> None:
        self.bar.add_engine_notice(notice, host=self.engine.host,
                                   engine_state=self.engine.state)
        if notice.kind == NoticeKind.RESTARTED and self.engine.host is not None:
            self._reconnect_console()  # through a new tunnel if it came back over SSH
        if notice.kind in (NoticeKind.CRASHED, NoticeKind.DEAD):
            line = crash_line(notice.fault, self._filename())
            if line is not None:
                self.editor.set_error_marks([(line, "the engine crashed here",
                                              "the process running your code died on this line")])
                self.editor.go_to_line(line)
        if notice.reloaded or notice.kind == NoticeKind.RELOAD_FAILED:
            # On the restarted kernel's console: its connection, if new, first (that
            # console clears its text once, and then says this).
            self._reconnect_console()
            self.console.announce(RELOADED if notice.reloaded else NOT_RELOADED)

    def on_output(self, output: Output) -> None:
        self.console.show_output(output.text, output.background)
        if output.truncated:
            self.status.showMessage(
                f"output truncated: {output.dropped} more characters not shown", 5000)
