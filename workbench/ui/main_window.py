"""The workbench window: editor and jaxpr on top, console and panels in tabs below.

The window shows at once; the engine (an IPython kernel) starts beside it and
the status bar follows its state. The window only assembles: the document
controller owns the file, the trace controller talks to the engine, the
session holds what is known, and the panels (built after the first paint, so
pyqtgraph's import does not delay it) follow the session.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDesktopServices,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDockWidget,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QProgressBar,
    QScrollArea,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.api import messages as p
from workbench.api.choices import HloKind
from workbench.api.devices import DeviceReport
from workbench.api.jaxpr import TraceResult
from workbench.api.lowering import LoweringResult
from workbench.api.messages import Output
from workbench.api.timing import TimingReport
from workbench.examples import Example, bundled_examples
from workbench.lessons import bundled as bundled_lessons_module
from workbench.lessons import read_lesson
from workbench.ui.autosave import Autosave
from workbench.ui.banner import call_text, describe_call
from workbench.ui.call_controls import CallControls
from workbench.ui.console import ConsolePanel
from workbench.ui.document import DocumentController
from workbench.ui.edit_actions import build_edit_menu
from workbench.ui.editor import CodeEditor
from workbench.ui.engine_bridge import EngineBridge
from workbench.ui.jaxpr_panel import JaxprPanel
from workbench.ui.lesson_controller import LessonController
from workbench.ui.lesson_panel import LessonPanel
from workbench.ui.panel import Panel
from workbench.ui.presentation import AppFontZoom
from workbench.ui.session import Session
from workbench.ui.settings import Settings
from workbench.ui.theme import PREFERENCES, PresentationZoom, ThemeWatcher, apply_scheme
from workbench.ui.trace_controller import LIVE_DELAY_MS, TraceController

if TYPE_CHECKING:
    from workbench.api.client import Notice
    from workbench.ui.graph_panel import GraphPanel
    from workbench.ui.kmeans_panel import KMeansPanel
    from workbench.ui.plot_panel import FunctionPlotPanel
    from workbench.ui.timing_panel import TimingPanel

Shortcut = QKeySequence | QKeySequence.StandardKey | list[QKeySequence]
PRESENTATION_FACTOR = 1.5
BOTTOM_SHARE = 0.36  # of the height, for the console and panel tabs at the default layout
EDITOR_MIN_LINES = 10
PANEL_DOCKS = (("Plot", "plotDock"), ("Timing", "timingDock"), ("K-means", "kmeansDock"),
               ("Graph", "graphDock"))
PAUSED_FOR_DISK = "live mode paused for a file opened from disk: press Run to run it"
LESSON_NOT_RUN = "no step has run yet: pick one (PageDown) to run its code"
LESSON_SHARE = 0.26  # of the width, for the lesson beside the editor (0.32 presenting)
LESSON_PANEL_SHARE = 0.5  # of the height, for the panel a lesson step brings to the front


class EngineStatus(QLabel):
    """The engine's state in words, and the host of an attached kernel; the dynamic property
    ``engineState`` holds the state's key."""

    def __init__(self, parent: QWidget | None = None, host: str | None = None):
        super().__init__(parent)
        self.setObjectName("engineStatus")
        self.host = host
        if host is not None:
            self.setToolTip(f"attached to a kernel on {host}: Stop interrupts it; it is "
                            "restarted only when you choose to")
        self.set_state("starting")

    def set_state(self, state: str) -> None:
        self.setProperty("engineState", state)
        where = f"{self.host} (attached), " if self.host is not None else ""
        self.setText(f"engine: {where}{state}")
        self.style().unpolish(self)
        self.style().polish(self)


class _FirstPaint(QObject):
    """Starts ``timers``, in order, once ``target``'s first frame is painted."""

    def __init__(self, target: QWidget, timers: tuple[QTimer, ...]):
        super().__init__(target)
        self._timers = timers
        target.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Paint:
            obj.removeEventFilter(self)
            for timer in self._timers:  # owned by the window: none fires after it is gone
                timer.start()
        return False


class MainWindow(QMainWindow):
    """The workbench window; ``MainWindow(path)`` opens a file, else the last one or an example."""

    sig_traced = Signal(object)
    """A trace was shown in the jaxpr view (the ``TraceResult``)."""
    sig_error_shown = Signal(object)
    """An error from the engine was shown (an ``Explanation`` or a message string)."""
    sig_engine_ready = Signal()
    """The engine answered for the first time."""
    sig_panels_built = Signal()
    """The plot, timing and k-means panels exist (built after the first paint)."""

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
        self._notices: list[str] = []
        self._last_notice_kind = ""
        self._timed_at = 0  # session.loads when the shown timing report was measured
        self.zoom = PresentationZoom(self.settings.zoom, self)
        self.app_zoom = AppFontZoom(self.zoom, self)
        self._zoom_before_presentation = 1.0
        self.theme = ThemeWatcher(self.settings.theme, self)
        self.engine = engine or EngineBridge(self)
        self.session = Session(self.engine, self)
        self.plot_panel: FunctionPlotPanel | None = None
        self.timing_panel: TimingPanel | None = None
        self.kmeans_panel: KMeansPanel | None = None
        self.graph_panel: GraphPanel | None = None

        self._build_widgets(console)
        self.document = DocumentController(self, self.editor, self.settings, autosave_dir,
                                           ask=ask)
        self.document.sig_title_changed.connect(self._on_title)
        self.document.sig_status.connect(self.statusBar().showMessage)
        self.document.sig_error.connect(self.show_message)
        self.document.recent.sig_changed.connect(self._rebuild_recent_menu)
        self.tracer = TraceController(self.session, self.controls, self.editor.toPlainText,
                                      self.filename, live=self.live_box.isChecked(),
                                      parent=self)
        self.lessons = LessonController(self, self.lesson_panel)
        self.lessons.sig_opened.connect(self._on_lesson_opened)
        self.lessons.sig_closed.connect(self._on_lesson_closed)
        self.tracer.sig_paused.connect(self._on_live_paused)
        self.document.sig_opened.connect(self._on_document_opened)
        if self.autosave.off_reason is not None:
            self.autosave_off.setToolTip(self.autosave.off_reason)
            self.autosave_off.show()
            self.show_notice(self.autosave.off_reason)
        self._connect_tracer()
        self._build_actions()
        self._build_menus()
        self._rebuild_recent_menu()
        self.editor.textChanged.connect(self._on_text_changed)

        geometry = self.settings.geometry
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(_default_size())
        state = self.settings.dock_state
        self._first_start = state is None or not self.restoreState(state)
        if self._first_start:
            self.reset_layout()
        self.lesson_dock.hide()  # until a lesson is open, whatever the saved layout says

        self._open_initial(path)
        self.document.start()
        self._update_editor_minimum()
        self.theme.sig_scheme_changed.connect(self.console_panel.set_scheme)
        self.console_panel.set_scheme(self.theme.scheme)
        self.theme.sig_scheme_changed.connect(self.lesson_panel.set_scheme)
        self.lesson_panel.set_scheme(self.theme.scheme)
        self.zoom.sig_zoom_changed.connect(self.lesson_panel.set_presentation_scale)
        if self.zoom.factor != 1.0:
            self.lesson_panel.set_presentation_scale(self.zoom.factor)
        # The kernel starts right after the first frame, then the panels: the client's
        # imports (jupyter_client, zmq, numpy) and pyqtgraph's cost the window nothing.
        self._engine_timer = QTimer(self, singleShot=True, interval=0)
        self._engine_timer.timeout.connect(partial(self._start_engine, console))
        self._panels_timer = QTimer(self, singleShot=True, interval=0)
        self._panels_timer.timeout.connect(self.build_panels)
        self._first_paint = _FirstPaint(self, (self._engine_timer, self._panels_timer))

    # ------------------------------------------------------------------ building

    def _build_widgets(self, console: bool) -> None:
        self.editor = CodeEditor(zoom=self.zoom)
        self.controls = CallControls()
        self.messages = QTextBrowser()
        self.messages.setObjectName("messages")
        self.messages.setOpenExternalLinks(False)
        self.messages.setOpenLinks(False)
        self.messages.anchorClicked.connect(self._on_message_link)
        self._failure_html = ("", "")  # (summary, JAX's own message) of the error shown
        self.messages.setMaximumHeight(110)
        self.messages.hide()
        self.notice_bar = QWidget()
        self.notice_bar.setObjectName("engineNotice")
        self.notice_text = QPlainTextEdit(readOnly=True)
        self.notice_text.setObjectName("engineNoticeText")
        self.notice_text.setMaximumHeight(90)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("dismiss")
        close.clicked.connect(self.dismiss_notices)
        # Stop could not stop an attached kernel: restarting it is the user's choice.
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
        nl = QHBoxLayout(self.notice_bar)
        nl.setContentsMargins(0, 0, 0, 0)
        nl.addWidget(self.notice_text, 1)
        nl.addLayout(buttons)
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
        self._console_off = not console
        if not console:
            self.console_dock.hide()
        # The docks exist from the start (restoreState needs them); their panels come
        # after the first paint.
        self.panel_docks: list[QDockWidget] = []
        for title, name in PANEL_DOCKS:
            dock = QDockWidget(title, self)
            dock.setObjectName(name)
            dock.setWidget(QLabel("loading..."))
            self.tabifyDockWidget(self.console_dock, dock)  # adds it to the console's tabs
            self.panel_docks.append(dock)
        (self.console_dock if console else self.panel_docks[0]).raise_()

        self.lesson_panel = LessonPanel()
        self.lesson_dock = QDockWidget("Lesson", self)
        self.lesson_dock.setObjectName("lessonDock")
        self.lesson_dock.setWidget(self.lesson_panel)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.lesson_dock)
        self.lesson_dock.hide()

        self.status = EngineStatus(host=self.engine.host)
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
        self.live_paused = QLabel("")
        self.live_paused.setObjectName("livePaused")
        self.live_paused.hide()
        self.autosave_off = QLabel("autosave off")
        self.autosave_off.setObjectName("autosaveOff")
        self.autosave_off.hide()
        bar = self.statusBar()
        bar.addPermanentWidget(self.autosave_off)
        bar.addPermanentWidget(self.live_paused)
        bar.addPermanentWidget(self.live_box)
        bar.addPermanentWidget(self.busy)
        bar.addPermanentWidget(self.devices_label)
        bar.addPermanentWidget(self.status)

    def build_panels(self) -> None:
        """The plot, timing and k-means panels, in their docks (once; safe to call early)."""
        if self.plot_panel is not None:
            return
        from workbench.ui.graph_panel import GraphPanel
        from workbench.ui.kmeans_panel import KMeansPanel
        from workbench.ui.plot_panel import FunctionPlotPanel
        from workbench.ui.timing_panel import TimingPanel

        self.plot_panel = FunctionPlotPanel(self.session)
        self.timing_panel = TimingPanel(self.session)
        self.kmeans_panel = KMeansPanel(self.session)
        self.graph_panel = GraphPanel(self.session)
        self._connect_graph(self.graph_panel)
        panels: list[Panel] = [self.plot_panel, self.timing_panel, self.kmeans_panel,
                               self.graph_panel]
        for dock, panel in zip(self.panel_docks, panels, strict=True):
            placeholder = dock.widget()
            # A panel keeps its usable minimum size (the timing chart's 200 px) and scrolls in
            # a short dock, rather than pushing the editor below its ten lines.
            scroll = QScrollArea()
            scroll.setObjectName(f"{dock.objectName()}Scroll")
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(panel)
            dock.setWidget(scroll)
            placeholder.deleteLater()
            self.zoom.sig_zoom_changed.connect(panel.set_presentation_scale)
            self.theme.sig_scheme_changed.connect(panel.set_scheme)
            panel.set_scheme(self.theme.scheme)
            if self.zoom.factor != 1.0:
                panel.set_presentation_scale(self.zoom.factor)
        self.timing_panel.sig_report_shown.connect(self._on_timing_report)
        self.session.sig_functions_changed.connect(
            lambda _functions: self._set_panels_stale(source_failed=False))
        if self.session.source_failure is not None:
            self._set_panels_stale(source_failed=True)
        if self._first_start:  # the split asked for before the first frame, now it can hold
            self.reset_layout()
        self.sig_panels_built.emit()

    def _on_timing_report(self, _report: TimingReport) -> None:
        self._timed_at = self.session.loads
        self._set_panels_stale(source_failed=self.session.source_failure is not None)

    def _action(self, name: str, text: str, slot: Callable[..., object],
                shortcut: Shortcut | None = None, tip: str = "") -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if shortcut is not None:
            action.setShortcuts(shortcut if isinstance(shortcut, list)
                                else [QKeySequence(shortcut)])
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
            "actionStop", "Stop", self.stop, QKeySequence("Escape"),
            "stop what the engine runs (Esc)",
        )
        self.action_restart = self._action(
            "actionRestartEngine", "Restart engine", self.restart_engine, None,
            "restart the engine and load the editor source again",
        )
        self.action_new = self._action("actionNew", "New", self.new_file,
                                       QKeySequence.StandardKey.New)
        self.action_open = self._action("actionOpen", "Open...", self.open_dialog,
                                        QKeySequence.StandardKey.Open)
        self.action_save = self._action("actionSave", "Save", self.save,
                                        QKeySequence.StandardKey.Save)
        self.action_save_as = self._action("actionSaveAs", "Save As...", self.save_as,
                                           QKeySequence.StandardKey.SaveAs)
        self.action_open_lesson = self._action(
            "actionOpenLesson", "Open Lesson...", self.open_lesson_dialog, None,
            "open a Jupyter notebook or a percent-format script as a step-by-step lesson")
        self.action_save_lesson = self._action(
            "actionSaveLesson", "Save lesson", self.lessons.save, None,
            "write your edits of the lesson's steps into the lesson file, in its own format")
        self.action_close_lesson = self._action(
            "actionCloseLesson", "Close lesson", self.lessons.close, None,
            "close the lesson; the editor keeps the code of its step as an untitled buffer")
        # A presenter remote sends PageDown / PageUp. While a lesson is open these step
        # through it from anywhere in the window, the editor included (which then no longer
        # scrolls by pages with them); with no lesson open they are disabled and the editor
        # scrolls as usual.
        self.action_next_step = self._action(
            "actionNextStep", "Next step", self.lessons.next_step,
            QKeySequence(Qt.Key.Key_PageDown), "the lesson's next step (PageDown)")
        self.action_previous_step = self._action(
            "actionPreviousStep", "Previous step", self.lessons.previous_step,
            QKeySequence(Qt.Key.Key_PageUp), "the lesson's previous step (PageUp)")
        for action in (self.action_save_lesson, self.action_close_lesson, self.action_next_step,
                       self.action_previous_step):
            action.setEnabled(False)
        self.action_zoom_in = self._action(
            "actionZoomIn", "Presentation zoom in", self.zoom.zoom_in,
            [QKeySequence("Ctrl++"), QKeySequence("Ctrl+=")])
        self.action_zoom_out = self._action(
            "actionZoomOut", "Presentation zoom out", self.zoom.zoom_out, QKeySequence("Ctrl+-"))
        self.action_zoom_reset = self._action(
            "actionZoomReset", "Normal size", self.zoom.reset, QKeySequence("Ctrl+0"))
        self.action_presentation = self._action(
            "actionPresentation", "Presentation mode", self.set_presentation,
            QKeySequence("F5"),
            f"everything {PRESENTATION_FACTOR:g}× larger for a projector: menus, dialogs, "
            "plots (F5)")
        self.action_presentation.setCheckable(True)
        self.action_full_screen = self._action(
            "actionFullScreen", "Full screen", self.set_full_screen,
            QKeySequence(QKeySequence.StandardKey.FullScreen),
            "use the whole screen (F11)")
        self.action_full_screen.setCheckable(True)
        self.action_reset_layout = self._action(
            "actionResetLayout", "Reset layout", self.reset_layout, None,
            "editor and jaxpr on top, console and panels as tabs below")
        central = self.centralWidget()
        assert central is not None  # the splitter, set in _build_widgets
        # Esc stops from the editor, the controls and the jaxpr view, not from the docks.
        self.removeAction(self.action_stop)
        self.action_stop.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        central.addAction(self.action_stop)
        toolbar = self.addToolBar("Engine")
        toolbar.setObjectName("engineToolbar")
        for action in (self.action_run, self.action_stop, self.action_restart):
            toolbar.addAction(action)

    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        file_menu.addAction(self.action_new)
        file_menu.addAction(self.action_open)
        file_menu.addAction(self.action_open_lesson)
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
        file_menu.addAction(self.action_save_lesson)
        file_menu.addAction(self.action_close_lesson)
        file_menu.addSeparator()
        file_menu.addAction("Quit", QKeySequence.StandardKey.Quit, self.close)
        self.edit_actions = build_edit_menu(menu.addMenu("&Edit"), self.editor, self)
        self.action_toggle_comment = self.edit_actions.toggle_comment
        view_menu = menu.addMenu("&View")
        view_menu.addAction(self.action_presentation)
        view_menu.addAction(self.action_full_screen)
        for action in (self.action_zoom_in, self.action_zoom_out, self.action_zoom_reset):
            view_menu.addAction(action)
        theme_menu = view_menu.addMenu("Theme")
        theme_menu.setObjectName("themeMenu")
        self.theme_actions = QActionGroup(self)
        for pref in PREFERENCES:
            action = theme_menu.addAction(pref)
            action.setObjectName(f"theme_{pref}")
            action.setCheckable(True)
            action.setChecked(pref == self.theme.preference)
            action.triggered.connect(partial(self.set_theme, pref))
            self.theme_actions.addAction(action)
        view_menu.addSeparator()
        view_menu.addAction(self.action_reset_layout)
        view_menu.addAction(self.console_dock.toggleViewAction())
        for dock in self.panel_docks:
            view_menu.addAction(dock.toggleViewAction())
        engine_menu = menu.addMenu("E&ngine")
        for action in (self.action_run, self.action_stop, self.action_restart):
            engine_menu.addAction(action)
        lesson_menu = menu.addMenu("&Lesson")
        lesson_menu.setObjectName("lessonMenu")
        for action in (self.action_open_lesson, self.action_next_step, self.action_previous_step,
                       self.action_save_lesson, self.action_close_lesson):
            lesson_menu.addAction(action)
        help_menu = menu.addMenu("&Help")
        help_menu.setObjectName("helpMenu")
        self.lessons_menu = help_menu.addMenu("Lessons")
        self.lessons_menu.setObjectName("lessonsMenu")
        self._lesson_titles: dict[tuple[str, int, int], str] = {}
        # Filled when shown: lessons are read then, and one that fails to read is listed
        # with its problem instead of breaking the menu.
        help_menu.aboutToShow.connect(self.fill_lessons_menu)
        self.lessons_menu.aboutToShow.connect(self.fill_lessons_menu)

    # ------------------------------------------------------------------ files

    @property
    def path(self) -> Path | None:
        return self.document.path

    @property
    def autosave(self) -> Autosave:
        return self.document.autosave

    def _open_initial(self, path: str | os.PathLike[str] | None) -> None:
        if self.document.recover():
            return
        if path is not None:
            self.document.open_path(path)
            return
        if self.document.open_last():
            return
        examples = bundled_examples()
        if examples:
            self.open_example(examples[0])

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        """Open a file (closing the lesson first, if one is open)."""
        return self.lessons.close() and self.document.open_path(path)

    def open_dialog(self) -> None:
        if self.lessons.close():
            self.document.open_dialog()

    def open_example(self, example: Example) -> None:
        if self.lessons.close() and self.document.open_path(example.path):
            self.controls.select(example.function, example.args, example.transforms)

    def new_file(self) -> None:
        if self.lessons.close():
            self.document.new_file()

    def save(self) -> bool:
        """Save the file; while a lesson is open, Save is Save lesson (a step's code never
        goes into some other file by accident)."""
        if self.lessons.is_open:
            return self.lessons.save()
        return self.document.save()

    def save_as(self) -> bool:
        """Save As; while a lesson is open, the lesson with its edits, in its own format."""
        if self.lessons.is_open:
            return self.lessons.save_as_dialog()
        return self.document.save_as()

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        if self.lessons.is_open:
            return self.lessons.save_to(path)
        return self.document.save_to(path)

    def is_modified(self) -> bool:
        if self.lessons.is_open:
            return self.lessons.has_unsaved_edits()
        return self.document.is_modified()

    def filename(self) -> str:
        """The name the engine runs the editor's code under: a lesson step's own, or the
        file's."""
        lessons = getattr(self, "lessons", None)  # the tracer exists a moment before them
        step = lessons.engine_filename() if lessons is not None else None
        return step or self.document.filename()

    # ------------------------------------------------------------------ lessons

    def open_lesson(self, path: str | os.PathLike[str]) -> bool:
        """Open a notebook or percent script as a lesson; nothing runs until a step is picked."""
        return self.lessons.open(path)

    def open_lesson_dialog(self) -> None:
        start = str(self.path.parent) if self.path else str(Path.cwd())
        path, _ = QFileDialog.getOpenFileName(
            self, "Open Lesson", start,
            "Lessons (*.ipynb *.py);;Jupyter notebooks (*.ipynb);;Percent scripts (*.py)")
        if path:
            self.open_lesson(path)

    def trust_lesson(self, path: str | os.PathLike[str]) -> None:
        """Let the lesson at ``path`` run without asking (as answering yes once does)."""
        self.settings.trust_lesson(path)

    def fill_lessons_menu(self) -> None:
        """Help > Lessons: the bundled lessons by title; one that cannot be read is listed,
        disabled, with why."""
        self.lessons_menu.clear()
        paths = bundled_lessons_module.bundled_lessons(bundled_lessons_module.LESSONS_DIR)
        if not paths:
            action = self.lessons_menu.addAction("no lessons found")
            action.setObjectName("lessonsNone")
            action.setEnabled(False)
            return
        for path in paths:
            title, problem = self._lesson_title(path)
            action = self.lessons_menu.addAction(title if not problem
                                                 else f"{path.name} (cannot be read)")
            action.setObjectName(f"lesson_{path.stem}")
            if problem:
                action.setEnabled(False)
                action.setToolTip(problem)
                action.setStatusTip(problem)
            else:
                action.setToolTip(str(path))
                action.triggered.connect(lambda _=False, p=path: self.open_lesson(p))
        self.lessons_menu.setToolTipsVisible(True)

    def _lesson_title(self, path: Path) -> tuple[str, str]:
        """(title, "") or ("", why it cannot be read); titles are kept until the file changes."""
        try:
            stat = path.stat()
        except OSError as exc:
            return "", f"cannot read {path.name}: {exc.strerror or exc}"
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key not in self._lesson_titles:
            try:
                self._lesson_titles[key] = read_lesson(path).title
            except Exception as exc:  # noqa: BLE001 - a half-written lesson must not break Help
                return "", f"{path.name}: {exc}"
        return self._lesson_titles[key], ""

    def show_panel(self, dock_name: str) -> None:
        """Bring the dock ``dock_name`` (its panel built) to the front."""
        self.build_panels()
        for dock in self.panel_docks:
            if dock.objectName() == dock_name:
                dock.show()
                dock.raise_()
                # A step that shows a plot or a run is about that panel: half the height,
                # unless the teacher made it taller.
                tall = int(self.height() * LESSON_PANEL_SHARE)
                if (not dock.isFloating() and dock.height() < tall
                        and self.dockWidgetArea(dock) == Qt.DockWidgetArea.BottomDockWidgetArea):
                    self.resizeDocks([dock], [tall], Qt.Orientation.Vertical)

    def _on_lesson_opened(self) -> None:
        for action in (self.action_save_lesson, self.action_close_lesson,
                       self.action_next_step, self.action_previous_step):
            action.setEnabled(True)
        self.lesson_dock.show()
        self.lesson_dock.raise_()
        self._arrange_lesson()
        # What the views show came from the code open before: none of it is the lesson's.
        self.jaxpr.clear(LESSON_NOT_RUN)
        self.editor.clear_error_marks()
        self.messages.hide()
        for panel in (self.plot_panel, self.timing_panel, self.graph_panel):
            if panel is not None:
                panel.set_stale(f"from the code open before the lesson: {LESSON_NOT_RUN}")

    def _on_lesson_closed(self) -> None:
        for action in (self.action_save_lesson, self.action_close_lesson,
                       self.action_next_step, self.action_previous_step):
            action.setEnabled(False)
        self.lesson_dock.hide()
        self.document.update_title()

    def _arrange_lesson(self) -> None:
        """The lesson beside the editor; presenting, its steps list folds away and its text
        takes a little more of the width (the editor and jaxpr keep the rest)."""
        if not self.lessons.is_open:
            return
        presenting = self.action_presentation.isChecked()
        self.lesson_panel.set_compact(presenting)
        share = LESSON_SHARE + (0.06 if presenting else 0.0)
        self.resizeDocks([self.lesson_dock], [int(max(self.width(), 800) * share)],
                         Qt.Orientation.Horizontal)

    def _on_title(self, title: str) -> None:
        self.setWindowTitle(self.lessons.title() if self.lessons.is_open else title)

    def _rebuild_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in self.document.recent.paths():
            self.recent_menu.addAction(path, partial(self.open_path, path))
        self.recent_menu.setEnabled(not self.recent_menu.isEmpty())

    # ------------------------------------------------------------------ engine

    def _connect_graph(self, graph: GraphPanel) -> None:
        """Graph node, tree row and editor line show one equation, whichever was picked."""
        graph.sig_eqn_selected.connect(self.jaxpr.select_path)
        graph.sig_step.connect(self._on_step)
        graph.sig_error_line.connect(self._on_values_error)
        self.jaxpr.sig_eqn_selected.connect(graph.show_path)
        self.editor.sig_cursor_line_changed.connect(graph.set_cursor_line)
        graph.set_cursor_line(self.editor.current_line)

    def _on_step(self, path: tuple[int, ...] | None) -> None:
        if path is not None and not self.jaxpr.select_path(path):
            self.editor.highlight_lines([])

    def _on_values_error(self, line: int, title: str) -> None:
        self.editor.set_error_marks([(line, title, "raised while the values were computed: "
                                      "see the Graph panel")])

    def _connect_tracer(self) -> None:
        self.session.sig_traced.connect(self._on_traced)
        self.session.sig_engine_state_changed.connect(self._on_engine_state)
        self.tracer.sig_failed.connect(self._show_failure)
        self.tracer.sig_no_functions.connect(self._on_no_functions)
        self.tracer.sig_lowered.connect(self._on_lowered)
        self.tracer.sig_lower_failed.connect(self.jaxpr.show_hlo_error)
        self.tracer.sig_devices.connect(self._on_devices)
        self.tracer.sig_engine_ready.connect(self.sig_engine_ready)
        self.engine.sig_notice.connect(self._on_engine_notice)
        self.engine.sig_output.connect(self._on_engine_output)

    def run(self) -> None:
        """Load the editor source in the engine, then trace the chosen function."""
        self.tracer.run()

    def stop(self) -> None:
        self.tracer.stop()

    def restart_engine(self) -> None:
        self.engine.restart()

    def _on_traced(self, result: TraceResult) -> None:
        self.editor.clear_error_marks()
        self.messages.hide()
        self.controls.show_problem("")
        self.jaxpr.show_trace(result, self.session.load_printed)
        self._set_panels_stale(source_failed=False)
        self.jaxpr.set_cursor_line(self.editor.current_line)
        self.sig_traced.emit(result)

    def _on_no_functions(self) -> None:
        self.controls.show_problem("")
        self.jaxpr.clear("no function defined yet")
        self.editor.clear_error_marks()
        self.messages.hide()

    def _show_failure(self, reply: p.Reply) -> None:
        if isinstance(reply, p.Cancelled):
            self.statusBar().showMessage(f"cancelled: {reply.reason}", 4000)
            return
        self.controls.show_problem("")
        self._mark_views_stale(reply)
        if isinstance(reply, p.EngineFailure) and _is_crash(reply.message):
            return  # the crash notice says it once, with the fault text and the line
        if isinstance(reply, p.UserCodeFailure):
            ex = reply.explanation
            same_file = ex.file is None or os.path.basename(ex.file) == os.path.basename(
                self.filename())
            if ex.line and same_file:
                self.editor.set_error_marks([(ex.line, ex.title, ex.hint)])
            where = f"line {ex.line}: " if ex.line else ""
            parts = [f"<b>{_html(where + ex.title)}</b>"]
            if ex.specifics:
                parts.append(f"<i>{_html(ex.specifics)}</i>".replace("\n", "<br>"))
            hint = _html(ex.hint)
            if ex.doc_url:
                hint += f' <a href="{_html(ex.doc_url)}">JAX docs</a>'
            parts.append(hint)
            summary = "<br>".join(parts)
            self._failure_html = (summary, ex.message)
            self._show_failure_html(expanded=False)
            self.sig_error_shown.emit(ex)
        elif isinstance(reply, p.UsageFailure) and reply.field == "args":
            self.controls.show_problem(reply.message)  # next to the box it was typed in
            self.editor.clear_error_marks()
            self.messages.hide()
            self.sig_error_shown.emit(reply.message)
        else:
            message = p.reply_text(reply)
            self._failure_html = ("", "")
            self.show_message(message)
            self.sig_error_shown.emit(message)

    def _show_failure_html(self, expanded: bool) -> None:
        summary, original = self._failure_html
        if original:
            if expanded:
                summary += ('<br><a href="wb:less">hide JAX\'s message</a>'
                            f"<pre>{_html(original)}</pre>")
            else:
                summary += '<br><a href="wb:more">show JAX\'s message</a>'
        self.show_message(summary, rich=True)

    def _on_message_link(self, url: QUrl) -> None:
        if url.scheme() == "wb":
            self._show_failure_html(expanded=url.path() == "more")
        else:
            QDesktopServices.openUrl(url)

    def _mark_views_stale(self, reply: p.Reply) -> None:
        """After a failure no view may pass off an older result as the current one."""
        why = p.reply_text(reply).splitlines()[0]
        shown = self.jaxpr.trace()
        if shown is None:
            self.jaxpr.clear(f"this call failed: {why}")
        else:
            self.jaxpr.set_stale(f"last good: {describe_call(shown)} — this call failed: {why}")
        self._set_panels_stale(source_failed=self.session.source_failure is not None)

    def _set_panels_stale(self, *, source_failed: bool) -> None:
        if self.plot_panel is None or self.timing_panel is None:
            return
        text = ("the editor's code does not run now: this shows the last code that ran"
                if source_failed else None)
        self.plot_panel.set_stale(text)
        report = self.timing_panel.report
        if source_failed and report is not None:
            self.timing_panel.set_stale(text)
        elif report is not None and report.function and self.session.loads > self._timed_at:
            self.timing_panel.set_stale(
                f"measured {call_text(report.function, report.args)} before the code last changed: "
                "press Measure to measure the current code")
        else:
            self.timing_panel.set_stale(None)

    def show_message(self, text: str, rich: bool = False) -> None:
        if rich:
            self.messages.setHtml(text)
        else:
            self.messages.setPlainText(text)
        self.messages.show()

    def _on_hlo_wanted(self, dialect: HloKind, cost: bool) -> None:
        self.tracer.lower(dialect, cost)

    def _on_lowered(self, result: LoweringResult) -> None:
        self.jaxpr.show_lowering(result)

    def _on_engine_state(self, state: str) -> None:
        self.status.set_state(state)
        self.busy.setVisible(state in ("busy", "interrupting", "restarting", "starting"))
        if state in ("idle", "restarting", "dead"):
            self.restart_offer.hide()  # it stopped after all, or the offer was taken, or moot

    def _on_devices(self, report: DeviceReport) -> None:
        names = ", ".join(d.name for d in report.devices)
        self.devices_label.setText(names)
        self.devices_label.setToolTip(
            f"jax {report.jax_version}, default backend {report.default_backend}")

    def _on_engine_notice(self, notice: Notice) -> None:
        """Crash, restart and stop notices go in their own bar, apart from code errors, one
        entry per event: the restart that follows a crash completes the crash's entry."""
        if notice.kind in ("unresponsive", "responding"):
            # A load spike can delay a heartbeat: the status line says it, the bar stays free.
            self.statusBar().showMessage(notice.message, 8000)
            return
        text = notice.message
        if notice.fault:
            text += "\n" + notice.fault.strip()[:1500]
        if notice.kind == "restarted" and self._notices and self._last_notice_kind == "crashed":
            head, _, fault = self._notices[-1].partition("\n")
            self._notices[-1] = f"{head}; {notice.message}" + (f"\n{fault}" if fault else "")
        else:
            self._notices = [*self._notices[-2:], text]
            self.statusBar().showMessage(notice.message, 8000)
        self._last_notice_kind = notice.kind
        self.notice_text.setPlainText("\n\n".join(self._notices))
        self.notice_bar.show()
        if notice.offer_restart and self.engine.state not in ("idle", "dead"):
            self.restart_offer.setText(f"Restart the kernel on {self.engine.host}")
            self.restart_offer.show()
        if notice.kind == "restarted" and self.engine.host is not None:
            self._connect_console()  # through a new tunnel if it came back over SSH
        if notice.kind in ("crashed", "dead"):
            self._mark_crash_line(notice.fault)
        if notice.kind == "restarted" and notice.message.endswith("definitions reloaded"):
            self.console_panel.announce("engine restarted: names defined in the console are "
                                        "gone; the editor source was reloaded")
        elif notice.kind == "reload-failed":
            self.console_panel.announce("engine restarted: names defined in the console are "
                                        "gone; the editor source could not be loaded again")

    def _mark_crash_line(self, fault: str) -> None:
        """Mark and show the editor line the engine's last words name (faulthandler's text)."""
        name = os.path.basename(self.filename())
        lines = [int(m.group(2)) for m in _FAULT_LINE.finditer(fault)
                 if os.path.basename(m.group(1)) == name]
        if lines:
            line = lines[0]  # faulthandler lists the innermost frame first
            self.editor.set_error_marks([(line, "the engine crashed here",
                                          "the process running your code died on this line")])
            self.editor.go_to_line(line)

    def show_notice(self, text: str) -> None:
        """Something about the window itself the user must know (autosave is off), in the
        notice bar above the editor until dismissed."""
        self._notices = [*self._notices[-2:], text]
        self._last_notice_kind = "window"
        self.notice_text.setPlainText("\n\n".join(self._notices))
        self.notice_bar.show()
        self.statusBar().showMessage(text, 8000)

    def dismiss_notices(self) -> None:
        self._notices = []
        self.notice_bar.hide()
        self.restart_offer.hide()

    def _on_restart_offer(self) -> None:
        """The user chose to restart the attached kernel that Stop could not stop."""
        self.restart_offer.hide()
        self.engine.restart()

    def _on_engine_output(self, output: Output) -> None:
        self.console_panel.show_output(output.text, output.background)
        if output.truncated:
            self.statusBar().showMessage(
                f"output truncated: {output.dropped} more characters not shown", 5000)

    def _start_engine(self, console: bool) -> None:
        if not self.isVisible():
            return  # closed in the meantime
        self.engine.start()
        if console:
            if self.engine.host is None:
                self._connect_console()
            else:  # an attached kernel's file is read (and tunnelled) as it connects
                self.tracer.sig_engine_ready.connect(self._connect_console)

    def _connect_console(self) -> None:
        path = self.engine.connection_file
        if path and not self._console_off:
            self.console_panel.connect_kernel(path)

    # ------------------------------------------------------------------ editor links

    def _on_text_changed(self) -> None:
        if self._notices and self.editor.hasFocus():
            self.dismiss_notices()
        self.tracer.edited()

    def _on_document_opened(self) -> None:
        if self.document.path is not None or not self.editor.toPlainText():
            self.tracer.release_hold()  # a file or an empty buffer: no declined code
        if self.document.from_outside:
            self.tracer.pause_live(PAUSED_FOR_DISK)

    def _on_live_paused(self, reason: str) -> None:
        self.live_paused.setText(reason)
        self.live_paused.setVisible(bool(reason))

    def _on_live_toggled(self, on: bool) -> None:
        self.settings.live_mode = on
        self.tracer.set_live(on)

    def _on_equation_line(self, line: int) -> None:
        self.editor.go_to_line(line)
        self.editor.highlight_lines([line])

    def _on_zoom(self, factor: float) -> None:
        self.settings.zoom = factor
        self.action_presentation.setChecked(factor >= PRESENTATION_FACTOR)  # Ctrl+0 leaves it
        self._update_editor_minimum()
        font = self.jaxpr.tree.font()
        font.setPointSizeF(10 * factor)
        self.jaxpr.set_code_font(font)
        self.console_panel.set_font_points(10 * factor)
        self._arrange_lesson()

    def set_theme(self, preference: str) -> None:
        for action in self.theme_actions.actions():
            action.setChecked(action.objectName() == f"theme_{preference}")
        self.settings.theme = preference
        self.theme.set_preference(preference)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_scheme(app, preference)
        self.editor.set_theme(None)

    # ------------------------------------------------------------------ presentation, layout

    def set_presentation(self, on: bool) -> None:
        """Every widget, menu, dialog, tooltip and plot larger by one factor, or back."""
        self.action_presentation.setChecked(on)
        if on:
            self._zoom_before_presentation = min(self.zoom.factor, PRESENTATION_FACTOR)
            self.zoom.set_factor(max(self.zoom.factor, PRESENTATION_FACTOR))
        else:
            self.zoom.set_factor(min(self.zoom.factor, self._zoom_before_presentation))

    def set_full_screen(self, on: bool) -> None:
        self.action_full_screen.setChecked(on)
        if on:
            self.showFullScreen()
        else:
            self.showNormal()

    def reset_layout(self) -> None:
        """Editor and jaxpr on top (most of the height), console and panels as tabs below."""
        # Not restoreState, and no re-tabifying when the tabs are already right: each leaves
        # one more dock tab bar behind, drawn under the real one.
        docks = (self.console_dock, *self.panel_docks)
        arranged = all(
            not d.isFloating()
            and self.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea
            and set(self.tabifiedDockWidgets(d)) == set(docks) - {d} for d in docks)
        if not arranged:
            for dock in docks:
                dock.setFloating(False)
                self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            for dock in self.panel_docks:
                self.tabifyDockWidget(self.console_dock, dock)
        for dock in self.panel_docks:
            dock.show()
        if self.console_panel.widget is not None or not self._console_off:
            self.console_dock.show()
        height = max(self.height(), 400)
        self.resizeDocks([self.console_dock], [int(height * BOTTOM_SHARE)],
                         Qt.Orientation.Vertical)
        (self.panel_docks[0] if self._console_off else self.console_dock).raise_()

    def _update_editor_minimum(self) -> None:
        """Notices and messages never squeeze the editor below ten visible lines."""
        lines = self.editor.fontMetrics().lineSpacing() * EDITOR_MIN_LINES
        self.editor.setMinimumHeight(lines + 2 * self.editor.frameWidth() + 8)

    # ------------------------------------------------------------------ closing

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        # With a lesson open the editor holds one of its steps: its edits are the lesson's.
        if not (self.lessons.confirm_discard() if self.lessons.is_open
                else self.document.confirm_discard()):
            event.ignore()
            return
        if self.lessons.is_open:
            self.lessons.edits.forget()  # saved or discarded: a clean close keeps none
        self._engine_timer.stop()  # closed before its first frame: start nothing now
        self._panels_timer.stop()
        self.removeEventFilter(self._first_paint)
        self.settings.geometry = self.saveGeometry()
        self.settings.dock_state = self.saveState()
        self.document.closing()
        self.settings.qsettings.sync()
        self.console_panel.shutdown()
        self.engine.close()
        self.app_zoom.restore()
        super().closeEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.PaletteChange:
            self.editor.set_theme(None)
        super().changeEvent(event)


_FAULT_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _is_crash(message: str) -> bool:
    """An engine failure that a crash notice reports (the kernel died or was restarted)."""
    return message.startswith(("the engine died", "engine restarted"))


def _default_size() -> QSize:
    """Most of the screen on first start (a projector's 1024x768 included), at least 1024x700."""
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return QSize(1280, 860)
    area = screen.availableGeometry()
    return QSize(max(1024, min(int(area.width() * 0.9), 1600)),
                 max(700, min(int(area.height() * 0.9), 1000)))


def _html(text: str) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
