"""The workbench window: editor on the left, the jaxpr on the right, console below.

The window shows at once; the engine (an IPython kernel) starts beside it and
the status bar follows its state. Every engine call is a request with a key,
so a new edit supersedes the one in flight and no reply ever blocks the GUI.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.api import messages as p
from workbench.api.messages import reply_text
from workbench.examples import Example, bundled_examples
from workbench.ui.autosave import Autosave
from workbench.ui.call_controls import CallControls
from workbench.ui.console import ConsolePanel
from workbench.ui.editor import CodeEditor
from workbench.ui.engine_bridge import EngineBridge
from workbench.ui.files import FileReadError, RecentFiles, read_source, write_source
from workbench.ui.jaxpr_panel import JaxprPanel
from workbench.ui.kmeans_panel import KMeansPanel
from workbench.ui.plot_panel import FunctionPlotPanel
from workbench.ui.settings import Settings
from workbench.ui.theme import PresentationZoom, ThemeWatcher, apply_scheme
from workbench.ui.timing_panel import TimingPanel

LIVE_DELAY_MS = 300
BUFFER_ID = "main"
UNTITLED = "untitled.py"


class EngineStatus(QLabel):
    """The engine's state in words; the dynamic property ``engineState`` holds the key."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("engineStatus")
        self.set_state("starting")

    def set_state(self, state: str) -> None:
        self.setProperty("engineState", state)
        self.setText(f"engine: {state}")
        self.style().unpolish(self)
        self.style().polish(self)


class MainWindow(QMainWindow):
    """The workbench window; ``MainWindow(path)`` opens a file, else the last one or an example."""

    sig_traced = Signal(object)
    """A trace reply was shown in the jaxpr view (the ``TraceResult``)."""
    sig_error_shown = Signal(object)
    """An error from the engine was shown (an ``Explanation`` or a message string)."""
    sig_engine_ready = Signal()
    """The engine answered for the first time."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        settings: Settings | None = None,
        autosave_dir: str | os.PathLike[str] | None = None,
        engine: EngineBridge | None = None,
        ask: bool = True,
        console: bool = True,
    ):
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or Settings()
        self.ask = ask
        self.path: Path | None = None
        self._saved_text = ""
        self._loaded_once = False
        self._engine_ready = False
        self._newline = "\n"
        self._notices: list[str] = []
        self.zoom = PresentationZoom(self.settings.zoom, self)
        self.theme = ThemeWatcher(self.settings.theme, self)

        self.engine = engine or EngineBridge(self)
        self.engine.sig_state_changed.connect(self._on_engine_state)
        self.engine.sig_notice.connect(self._on_engine_notice)
        self.engine.sig_output.connect(self._on_engine_output)

        self._build_widgets(console)
        self._build_actions()
        self._build_menus()
        self.autosave = Autosave(autosave_dir, self)
        self.autosave.sig_error.connect(lambda m: self.statusBar().showMessage(m, 5000))
        self.recent = RecentFiles(self.settings.qsettings, parent=self)
        self.recent.sig_changed.connect(self._rebuild_recent_menu)
        self._rebuild_recent_menu()

        self._live_timer = QTimer(self, singleShot=True, interval=LIVE_DELAY_MS)
        self._live_timer.timeout.connect(self.run)
        self.editor.textChanged.connect(self._on_text_changed)
        self.controls.sig_changed.connect(self._on_controls_changed)

        geometry = self.settings.geometry
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        state = self.settings.dock_state
        if state is not None:
            self.restoreState(state)

        self._open_initial(path)
        self.autosave.track(BUFFER_ID, self.editor.document(), self.path)
        self._update_title()
        self.engine.start()
        if console:
            self._connect_console()

    # ------------------------------------------------------------------ building

    def _build_widgets(self, console: bool) -> None:
        self.editor = CodeEditor(zoom=self.zoom)
        self.controls = CallControls()
        self.messages = QTextBrowser()
        self.messages.setObjectName("messages")
        self.messages.setOpenExternalLinks(True)
        self.messages.setMaximumHeight(110)
        self.messages.hide()
        self.notice_bar = QWidget()
        self.notice_bar.setObjectName("engineNotice")
        self.notice_text = QPlainTextEdit(readOnly=True)
        self.notice_text.setObjectName("engineNoticeText")
        self.notice_text.setMaximumHeight(90)
        close = QToolButton(text="✕")
        close.setToolTip("dismiss")
        close.clicked.connect(self.dismiss_notices)
        nl = QHBoxLayout(self.notice_bar)
        nl.setContentsMargins(0, 0, 0, 0)
        nl.addWidget(self.notice_text, 1)
        nl.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.notice_bar.hide()
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(4, 4, 4, 4)
        ll.addWidget(self.controls)
        ll.addWidget(self.notice_bar)
        ll.addWidget(self.editor, 1)
        ll.addWidget(self.messages)
        self.jaxpr = JaxprPanel()
        self.jaxpr.sig_line_activated.connect(self._on_equation_line)
        self.jaxpr.sig_hlo_wanted.connect(self._on_hlo_wanted)
        self.editor.sig_cursor_line_changed.connect(self.jaxpr.set_cursor_line)
        self.zoom.sig_zoom_changed.connect(self._on_zoom)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("mainSplitter")
        splitter.addWidget(left)
        splitter.addWidget(self.jaxpr)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        self.setCentralWidget(splitter)

        self.console_panel = ConsolePanel()
        self.console_dock = QDockWidget("Console", self)
        self.console_dock.setObjectName("consoleDock")
        self.console_dock.setWidget(self.console_panel)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.console_dock)
        if not console:
            self.console_dock.hide()

        self.plot_panel = FunctionPlotPanel(
            self.engine, lambda: (self.controls.function(), self.controls.function_info()))
        self.timing_panel = TimingPanel(
            self.engine, lambda: (self.controls.function(), self.controls.args()))
        self.kmeans_panel = KMeansPanel(self.engine)
        self.panel_docks = []
        for title, name, panel in (("Plot", "plotDock", self.plot_panel),
                                   ("Timing", "timingDock", self.timing_panel),
                                   ("K-means", "kmeansDock", self.kmeans_panel)):
            dock = QDockWidget(title, self)
            dock.setObjectName(name)
            dock.setWidget(panel)
            self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            self.tabifyDockWidget(self.console_dock, dock)
            self.panel_docks.append(dock)
            self.zoom.sig_zoom_changed.connect(panel.set_presentation_scale)
            self.theme.sig_scheme_changed.connect(panel.set_scheme)
            panel.set_scheme(self.theme.scheme)
        for panel in (self.plot_panel, self.timing_panel):
            self.sig_traced.connect(lambda _r, w=panel: w.refresh())
            self.controls.sig_changed.connect(panel.follow_current)
        (self.console_dock if console else self.panel_docks[0]).raise_()

        self.status = EngineStatus()
        self.devices_label = QLabel("")
        self.devices_label.setObjectName("engineDevices")
        self.busy = QProgressBar()
        self.busy.setObjectName("engineBusy")
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(120)
        self.busy.hide()
        self.live_box = QCheckBox("live")
        self.live_box.setObjectName("liveMode")
        self.live_box.setToolTip(f"re-trace {LIVE_DELAY_MS} ms after the last keystroke")
        self.live_box.setChecked(self.settings.live_mode)
        self.live_box.toggled.connect(self._on_live_toggled)
        bar = self.statusBar()
        bar.addPermanentWidget(self.live_box)
        bar.addPermanentWidget(self.busy)
        bar.addPermanentWidget(self.devices_label)
        bar.addPermanentWidget(self.status)

    def _action(self, name: str, text: str, slot: Any, shortcut: Any = None,
                tip: str = "") -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if shortcut is not None:
            action.setShortcuts(shortcut if isinstance(shortcut, list) else [shortcut])
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.action_run = self._action(
            "actionRun", "Run", self.run,
            [QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")],
            "run the editor source and trace the chosen function (Ctrl+Enter)",
        )
        self.action_stop = self._action(
            "actionStop", "Stop", self.stop, None,
            "stop what the engine runs (Esc in the editor)",
        )
        self.action_restart = self._action(
            "actionRestartEngine", "Restart engine", self.restart_engine, None,
            "restart the engine and load the editor source again",
        )
        self.action_new = self._action("actionNew", "New", self.new_file, QKeySequence.New)
        self.action_open = self._action("actionOpen", "Open...", self.open_dialog,
                                        QKeySequence.Open)
        self.action_save = self._action("actionSave", "Save", self.save, QKeySequence.Save)
        self.action_save_as = self._action("actionSaveAs", "Save As...", self.save_as,
                                           QKeySequence.SaveAs)
        self.action_zoom_in = self._action(
            "actionZoomIn", "Presentation zoom in", self.zoom.zoom_in,
            [QKeySequence("Ctrl++"), QKeySequence("Ctrl+=")])
        self.action_zoom_out = self._action(
            "actionZoomOut", "Presentation zoom out", self.zoom.zoom_out, QKeySequence("Ctrl+-"))
        self.action_zoom_reset = self._action(
            "actionZoomReset", "Normal size", self.zoom.reset, QKeySequence("Ctrl+0"))
        self.action_toggle_comment = self._action(
            "actionToggleComment", "Toggle comment", self.editor.toggle_comment)
        esc = QShortcut(QKeySequence("Escape"), self.centralWidget())
        esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        esc.activated.connect(self.stop)
        toolbar = self.addToolBar("Engine")
        toolbar.setObjectName("engineToolbar")
        for action in (self.action_run, self.action_stop, self.action_restart):
            toolbar.addAction(action)

    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        file_menu.addAction(self.action_new)
        file_menu.addAction(self.action_open)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.setObjectName("recentMenu")
        self.examples_menu = file_menu.addMenu("&Examples")
        self.examples_menu.setObjectName("examplesMenu")
        for example in bundled_examples():
            action = self.examples_menu.addAction(example.title)
            action.setObjectName(f"example_{example.name}")
            action.triggered.connect(lambda _=False, e=example: self.open_example(e))
        file_menu.addSeparator()
        file_menu.addAction(self.action_save)
        file_menu.addAction(self.action_save_as)
        file_menu.addSeparator()
        file_menu.addAction("Quit", QKeySequence.Quit, self.close)
        edit_menu = menu.addMenu("&Edit")
        edit_menu.addAction(self.action_toggle_comment)
        view_menu = menu.addMenu("&View")
        for action in (self.action_zoom_in, self.action_zoom_out, self.action_zoom_reset):
            view_menu.addAction(action)
        theme_menu = view_menu.addMenu("Theme")
        for pref in ("system", "light", "dark"):
            theme_menu.addAction(pref, lambda p=pref: self.set_theme(p))
        view_menu.addAction(self.console_dock.toggleViewAction())
        for dock in self.panel_docks:
            view_menu.addAction(dock.toggleViewAction())
        engine_menu = menu.addMenu("E&ngine")
        for action in (self.action_run, self.action_stop, self.action_restart):
            engine_menu.addAction(action)

    # ------------------------------------------------------------------ files

    def _open_initial(self, path: str | os.PathLike[str] | None) -> None:
        recovered = self._recover()
        if recovered:
            return
        if path is not None:
            self.open_path(path)
            return
        last = self.settings.last_file
        if last and Path(last).is_file() and self._try_open(last):
            return
        examples = bundled_examples()
        if examples:
            self.open_example(examples[0])

    def _recover(self) -> bool:
        """Offer what a crashed session left; an untitled buffer comes back silently."""
        items = self.autosave.pending_recovery()
        if not items:
            return False
        item = items[0]
        for other in items[1:]:
            self.autosave.discard(other)
        if item.path is not None and self.ask:
            answer = QMessageBox.question(
                self, "Restore unsaved work?",
                f"The workbench did not close cleanly. Restore the unsaved changes to "
                f"{item.path}?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.Yes,
            )
            if answer != QMessageBox.StandardButton.Yes:
                self.autosave.discard(item)
                return False
        self.path = Path(item.path) if item.path else None
        disk = ""
        if self.path is not None:
            try:
                disk = read_source(self.path).text
            except FileReadError:
                disk = ""
        self._set_text(item.text, saved=disk)
        self.autosave.discard(item)
        self.statusBar().showMessage("restored unsaved work from the last session", 8000)
        return True

    def _try_open(self, path: str | os.PathLike[str]) -> bool:
        try:
            source = read_source(path)
        except FileReadError as exc:
            self.show_message(f"cannot open {path}: {exc}")
            return False
        self.path = Path(path).resolve()
        self._newline = source.newline
        self._set_text(source.text, saved=source.text)
        self.settings.last_file = str(self.path)
        self.recent.add(self.path)
        self.autosave.set_path(BUFFER_ID, self.path)
        self._update_title()
        return True

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        """Open a file; it runs only through Run or live mode, never on its own."""
        if not self._confirm_discard():
            return False
        return self._try_open(path)

    def open_example(self, example: Example) -> None:
        if self.open_path(example.path):
            self.controls.select(example.function, example.args, example.transforms)

    def open_dialog(self) -> None:
        start = str(self.path.parent) if self.path else str(Path.cwd())
        path, _ = QFileDialog.getOpenFileName(self, "Open", start, "Python (*.py);;All (*)")
        if path:
            self.open_path(path)

    def new_file(self) -> None:
        if not self._confirm_discard():
            return
        self.path = None
        self._set_text("", saved="")
        self.autosave.set_path(BUFFER_ID, None)
        self._update_title()

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self) -> bool:
        start = str(self.path) if self.path else str(Path.cwd() / UNTITLED)
        path, _ = QFileDialog.getSaveFileName(self, "Save As", start, "Python (*.py)")
        return self.save_to(path) if path else False

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        self.path = Path(path).resolve()
        self.autosave.set_path(BUFFER_ID, self.path)
        ok = self._write(self.path)
        if ok:
            self.recent.add(self.path)
            self.settings.last_file = str(self.path)
        return ok

    def _write(self, path: Path) -> bool:
        text = self.editor.toPlainText()
        try:
            write_source(path, text, newline=self._newline)
        except OSError as exc:
            self.show_message(f"could not save {path}: {exc.strerror or exc}")
            return False
        self._saved_text = text
        self._update_title()
        self.statusBar().showMessage(f"saved {path}", 3000)
        return True

    def _set_text(self, text: str, saved: str) -> None:
        self._saved_text = saved
        self.editor.setPlainText(text)
        self.editor.clear_error_marks()
        self._update_title()

    def is_modified(self) -> bool:
        return self.editor.toPlainText() != self._saved_text

    def _confirm_discard(self) -> bool:
        if not self.is_modified() or not self.ask:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", "Save the changes first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def _rebuild_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in self.recent.paths():
            self.recent_menu.addAction(path, lambda p=path: self.open_path(p))
        self.recent_menu.setEnabled(not self.recent_menu.isEmpty())

    def _update_title(self) -> None:
        name = self.path.name if self.path else UNTITLED
        star = "*" if self.is_modified() else ""
        self.setWindowTitle(f"{name}{star} - workbench")

    def filename(self) -> str:
        """The name the engine compiles the source under (tracebacks and lines use it)."""
        return str(self.path) if self.path else UNTITLED

    # ------------------------------------------------------------------ engine

    def run(self) -> None:
        """Load the editor source in the engine, then trace the chosen function."""
        self._live_timer.stop()
        source = self.editor.toPlainText()
        self.engine.request(
            p.LoadSource(source=source, filename=self.filename()),
            self._on_loaded, key="load",
        )

    def stop(self) -> None:
        self._live_timer.stop()
        self.engine.stop()

    def restart_engine(self) -> None:
        self.engine.restart()

    def trace(self) -> None:
        name = self.controls.function()
        if not name:
            return
        self.engine.request(
            p.Trace(name=name, args=self.controls.args(), transforms=self.controls.transforms()),
            self._on_traced, key="trace",
        )

    def _on_loaded(self, reply: p.Reply) -> None:
        if isinstance(reply, p.Result):
            functions = reply.value.functions
            self.controls.set_functions(functions)
            if not functions:
                self.jaxpr.clear("no function defined yet")
                self.editor.clear_error_marks()
                self.messages.hide()
                return
            self.trace()
        else:
            self._show_failure(reply)

    def _on_traced(self, reply: p.Reply) -> None:
        if isinstance(reply, p.Result):
            self.editor.clear_error_marks()
            self.messages.hide()
            self.jaxpr.show_trace(reply.value)
            self.jaxpr.set_cursor_line(self.editor.current_line)
            self.sig_traced.emit(reply.value)
        else:
            self._show_failure(reply)

    def _show_failure(self, reply: p.Reply) -> None:
        if isinstance(reply, p.UserCodeFailure):
            ex = reply.explanation
            same_file = ex.file is None or os.path.basename(ex.file) == os.path.basename(
                self.filename())
            if ex.line and same_file:
                self.editor.set_error_marks([(ex.line, ex.title, ex.hint)])
            link = f' <a href="{ex.doc_url}">JAX docs</a>' if ex.doc_url else ""
            where = f"line {ex.line}: " if ex.line else ""
            self.show_message(
                f"<b>{_html(where + ex.title)}</b><br>{_html(ex.hint)}{link}", rich=True)
            self.sig_error_shown.emit(ex)
        elif isinstance(reply, p.Cancelled):
            self.statusBar().showMessage(f"cancelled: {reply.reason}", 4000)
        else:
            message = getattr(reply, "message", str(reply))
            self.show_message(message)
            self.sig_error_shown.emit(message)

    def show_message(self, text: str, rich: bool = False) -> None:
        if rich:
            self.messages.setHtml(text)
        else:
            self.messages.setPlainText(text)
        self.messages.show()

    def _on_hlo_wanted(self, dialect: str, cost: bool) -> None:
        name = self.controls.function()
        if not name:
            return
        self.engine.request(
            p.Lower(name=name, args=self.controls.args(), transforms=self.controls.transforms(),
                    hlo=dialect, cost=cost),
            self._on_lowered, key="lower",
        )

    def _on_lowered(self, reply: p.Reply) -> None:
        if isinstance(reply, p.Result):
            self.jaxpr.show_lowering(reply.value)
        else:
            self.jaxpr.show_hlo_error(reply_text(reply))

    def _on_engine_state(self, state: str) -> None:
        self.status.set_state(state)
        self.busy.setVisible(state in ("busy", "interrupting", "restarting", "starting"))
        if state == "idle" and not self._engine_ready:
            self._engine_ready = True
            self.engine.request(p.Devices(), self._on_devices)
            self.sig_engine_ready.emit()
            if self.live_box.isChecked():
                self.run()

    def _on_devices(self, reply: p.Reply) -> None:
        if isinstance(reply, p.Result):
            report = reply.value
            names = ", ".join(d.name for d in report.devices)
            self.devices_label.setText(names)
            self.devices_label.setToolTip(
                f"jax {report.jax_version}, default backend {report.default_backend}")

    def _on_engine_notice(self, notice: Any) -> None:
        """Crash, restart and stop notices pile up (a crash, then "restarted") in their own
        bar, apart from code errors, until the user closes it or types again."""
        text = notice.message
        if notice.fault:
            text += "\n" + notice.fault.strip()[:1500]
        self._notices = [*self._notices[-2:], text]
        self.notice_text.setPlainText("\n\n".join(self._notices))
        self.notice_bar.show()
        self.statusBar().showMessage(notice.message, 8000)

    def dismiss_notices(self) -> None:
        self._notices = []
        self.notice_bar.hide()

    def _on_engine_output(self, output: Any) -> None:
        if output.truncated:
            self.statusBar().showMessage(
                f"output truncated: {output.dropped} more characters not shown", 5000)

    def _connect_console(self) -> None:
        path = self.engine.connection_file
        if path:
            self.console_panel.connect_kernel(path)

    # ------------------------------------------------------------------ editor links

    def _on_text_changed(self) -> None:
        self._update_title()
        if self._notices and self.editor.hasFocus():
            self.dismiss_notices()
        if self.live_box.isChecked():
            self._live_timer.start()

    def _on_controls_changed(self) -> None:
        if self._engine_ready:
            self.trace()

    def _on_live_toggled(self, on: bool) -> None:
        self.settings.live_mode = on
        if on:
            self._live_timer.start()

    def _on_equation_line(self, line: int) -> None:
        self.editor.go_to_line(line)
        self.editor.highlight_lines([line])

    def _on_zoom(self, factor: float) -> None:
        self.settings.zoom = factor
        font = self.jaxpr.tree.font()
        font.setPointSizeF(10 * factor)
        for widget in (self.jaxpr.tree, self.jaxpr.text, self.jaxpr.hlo):
            widget.setFont(font)
        self.console_panel.set_font_points(10 * factor)

    def set_theme(self, preference: str) -> None:
        self.settings.theme = preference
        self.theme.set_preference(preference)
        app = QApplication.instance()
        if app is not None:
            apply_scheme(app, preference)  # type: ignore[arg-type]
        self.editor.set_theme(None)

    # ------------------------------------------------------------------ closing

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        if not self._confirm_discard():
            event.ignore()
            return
        self.settings.geometry = self.saveGeometry()
        self.settings.dock_state = self.saveState()
        if self.path is not None:
            self.settings.last_file = str(self.path)
        self.settings.qsettings.sync()
        self.autosave.mark_clean_exit()
        self.console_panel.shutdown()
        self.engine.close()
        super().closeEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.PaletteChange:
            self.editor.set_theme(None)
        super().changeEvent(event)


def _html(text: str) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
