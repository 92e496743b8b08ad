"""Start the window: ``workbench`` with no sub-command, and ``make run``."""

from __future__ import annotations

import argparse
import os
import signal
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from workbench import __version__
from workbench.lessons.text_notebooks import MARKDOWN_SUFFIXES
from workbench.ui.storage.settings import Settings
from workbench.ui.style.theme import apply_scheme


def run_app(args: argparse.Namespace | None = None) -> int:
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        or os.environ.get("QT_QPA_PLATFORM")
    ):
        print("workbench: error: no display to open the window on (DISPLAY is not set); "
              "the headless commands work without one: workbench --help", file=sys.stderr)
        return 2
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("workbench")
    app.setOrganizationName("workbench")
    app.setApplicationVersion(__version__)
    settings = Settings()
    apply_scheme(app, settings.theme)  # type: ignore[arg-type]

    from workbench.ui.control.engine_bridge import EngineBridge
    from workbench.ui.window.main_window import MainWindow

    existing = getattr(args, "existing", None)
    server = getattr(args, "server_options", None)  # --server URL, read by the CLI
    engine = (EngineBridge(**server) if server
              else EngineBridge(connection_file=existing, ssh=getattr(args, "ssh", None))
              if existing else None)
    path = getattr(args, "open", None)
    # a notebook, or MyST Markdown: a .py file opens in the editor, as a script to edit
    lesson = path if path and str(path).lower().endswith((".ipynb", *MARKDOWN_SUFFIXES)) else None
    window = MainWindow(None if lesson else path, settings=settings, engine=engine)
    collector: list[object] = []  # once pyqtgraph is loaded (with the panels)
    window.sig_panels_built.connect(lambda: collector.append(collect_in_gui_thread()))
    window.show()
    if lesson:
        window.open_lesson(lesson)  # asks before anything of it runs, as Open Lesson does
    teach, follow = getattr(args, "teach", None), getattr(args, "follow", None)
    if teach:
        window.live_class.teach(teach)
    elif follow:
        window.live_class.follow(follow, getattr(args, "student_name", None))
    # Ctrl+C in the terminal closes the window the normal way (autosave marks a clean exit).
    # Python runs a handler between any two bytecodes of the GUI thread, in the middle of a
    # slot too (one reading the kernel's connection file as the close removed it): the close
    # waits for the event loop instead.
    signal.signal(signal.SIGINT, lambda *_: QTimer.singleShot(0, window.close))
    signal.signal(signal.SIGTERM, lambda *_: QTimer.singleShot(0, window.close))
    # Python runs signal handlers only between bytecodes: tick now and then so it can.
    ticker = QTimer(interval=200)
    ticker.timeout.connect(lambda: None)
    ticker.start()
    return app.exec()


def collect_in_gui_thread() -> object:
    """Python's cyclic collector runs in whichever thread happens to allocate: in the engine
    client's I/O thread it would destroy Qt objects (the panels' pyqtgraph items) outside the
    GUI thread, a crash. pyqtgraph's ``GarbageCollector`` turns it off and collects on a timer
    in the GUI thread instead; keep the object it returns."""
    from pyqtgraph.util.garbage_collector import GarbageCollector

    return GarbageCollector(interval=1.0)
