"""The workbench window: editor and jaxpr on top, console and panels in tabs below.

The window shows at once; the engine (an IPython kernel) starts beside it and
the status bar follows its state. The window only assembles: the document and
the lesson own the editor's text, the trace controller talks to the engine, the
session holds what is known, the panels (built after the first paint, so
pyqtgraph's import does not delay it) follow the session and decide their own
staleness, and each bar, menu and view is a module of its own.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QMainWindow, QSplitter, QVBoxLayout, QWidget

from workbench.ui.control.engine_bridge import EngineBridge
from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Session
from workbench.ui.control.trace_controller import LIVE_DELAY_MS, TraceController
from workbench.ui.editor.call_controls import CallControls
from workbench.ui.editor.editor import CodeEditor
from workbench.ui.lesson.lesson_controller import LessonController
from workbench.ui.lesson.lesson_panel import LessonPanel
from workbench.ui.lesson.step_panels import LessonPanels
from workbench.ui.panels.console import ConsolePanel
from workbench.ui.panels.jaxpr_panel import JaxprPanel
from workbench.ui.storage.autosave import Autosave
from workbench.ui.storage.document import DocumentController
from workbench.ui.storage.settings import Settings
from workbench.ui.style.presentation import AppFontZoom, PresentationMode
from workbench.ui.style.theme import PresentationZoom, ThemeWatcher
from workbench.ui.window.code_views import CodeViews
from workbench.ui.window.editor_owner import Files
from workbench.ui.window.engine_events import EngineEvents
from workbench.ui.window.failure_view import FailureView
from workbench.ui.window.fresh_start import FreshStart
from workbench.ui.window.lesson_view import LessonView
from workbench.ui.window.lessons_menu import LessonsMenu
from workbench.ui.window.live_class_view import LiveClassView
from workbench.ui.window.notice_bar import NoticeBar
from workbench.ui.window.panel_focus import PanelFocus
from workbench.ui.window.panel_set import PanelSet
from workbench.ui.window.status_bar import StatusWidgets
from workbench.ui.window.window_actions import Slots, WindowActions
from workbench.ui.window.window_layout import PANEL_NAMES, DockLayout, FirstPaint, first_size

if TYPE_CHECKING:
    from workbench.ui.panels.graph_panel import GraphPanel
    from workbench.ui.panels.kmeans_panel import KMeansPanel
    from workbench.ui.panels.plot_panel import FunctionPlotPanel
    from workbench.ui.panels.timing_panel import TimingPanel



class MainWindow(QMainWindow):
    """The workbench window; ``MainWindow(path)`` opens a file, else the last one or an example."""

    sig_traced = Signal(object)
    """A trace was shown in the jaxpr view (the ``TraceResult``)."""
    sig_error_shown = Signal(object)
    """An error from the engine was shown (an ``Explanation`` or a message string)."""
    sig_engine_ready = Signal()
    """The engine answered for the first time."""
    sig_panels_built = Signal()
    """The panels can be built (pyqtgraph is loaded), and the one in front is, after the
    first paint."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *,
                 settings: Settings | None = None,
                 autosave_dir: str | os.PathLike[str] | None = None,
                 engine: EngineBridge | None = None, ask: bool = True, console: bool = True):
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or Settings()
        self.zoom = PresentationZoom(self.settings.zoom, self)
        self.app_zoom = AppFontZoom(self.zoom, self)
        self.theme = ThemeWatcher(self.settings.theme, self)
        self.engine = engine or EngineBridge(self)
        self.session = Session(self.engine, self)
        self.requests = EngineRequests(self.engine, owner=self)
        self._build_widgets(console)
        self.document = DocumentController(self, self.editor, self.settings, autosave_dir,
                                           ask=ask)
        self.document.sig_title_changed.connect(self._on_title)
        self.document.sig_status.connect(self.statusBar().showMessage)
        self.document.sig_error.connect(self.show_message)
        self.tracer = TraceController(self.session, self.requests, self.controls,
                                      self.editor.toPlainText, self.filename,
                                      live=self.live_box.isChecked(), parent=self)
        self.failures = FailureView(self.editor, self.controls, self.filename, self)
        self.failures.sig_error_shown.connect(self.sig_error_shown)
        self.messages = self.failures.messages
        self.left_column.addWidget(self.messages)
        self.lessons = LessonController(self, self, self.lesson_panel, self.document,
                                        self.editor, self.tracer, self.controls,
                                        self.settings, self.jaxpr)
        self.files = Files(self.document, self.lessons, self.controls)
        self.owner, self.open_path, self.open_dialog = (self.files.owner, self.files.open_path,
                                                        self.files.open_dialog)
        self.open_example, self.new_file, self.save = (self.files.open_example,
                                                       self.files.new_file, self.files.save)
        self.save_as, self.save_to, self.is_modified = (self.files.save_as, self.files.save_to,
                                                        self.files.is_modified)
        self.tracer.sig_paused.connect(self.status_widgets.on_live_paused)
        self.fresh_start = FreshStart(self.document, self.tracer, self.filename, self.controls,
                                      self.editor, self.jaxpr, self.failures,
                                      self.panels.code_panels, self)
        if self.autosave.off_reason is not None:
            self.status_widgets.show_autosave_off(self.autosave.off_reason)
            self.notice_bar.add_window_notice(self.autosave.off_reason)
        self._connect_engine()
        self._build_menus()
        self.editor.textChanged.connect(self._on_text_changed)
        geometry = self.settings.geometry
        if geometry is None or not self.restoreGeometry(geometry):
            first_size(self)
        self._first_start = not self.docks.restore(self.settings.dock_state, self.reset_layout)
        if self._first_start:
            self.reset_layout()
        self.lesson_dock.hide()  # until a lesson is open, whatever the saved layout says
        self.files.open_initial(path)
        self.document.start()
        self.panel_focus.update_editor_minimum()
        for follower in (self.console_panel, self.lesson_panel):
            self.theme.sig_scheme_changed.connect(follower.set_scheme)
            follower.set_scheme(self.theme.scheme)
        self.zoom.sig_zoom_changed.connect(self.lesson_panel.set_presentation_scale)
        if self.zoom.factor != 1.0:
            self.lesson_panel.set_presentation_scale(self.zoom.factor)
        # The kernel starts right after the first frame, then the panels: the client's
        # imports (jupyter_client, zmq, numpy) and pyqtgraph's cost the window nothing.
        self._engine_timer = QTimer(self, singleShot=True, interval=0)
        self._engine_timer.timeout.connect(partial(self._start_engine, console))
        self._panels_timer = QTimer(self, singleShot=True, interval=0)
        self._panels_timer.timeout.connect(self._start_panels)
        self._first_paint = FirstPaint(self, (self._engine_timer, self._panels_timer))

    # ------------------------------------------------------------------ building

    def _build_widgets(self, console: bool) -> None:
        self.editor = CodeEditor(zoom=self.zoom)
        self.controls = CallControls()
        self.notice_bar = NoticeBar()
        self.notice_bar.sig_status.connect(self.statusBar().showMessage)
        self.notice_bar.sig_restart_wanted.connect(self.restart_engine)
        self.notice_text = self.notice_bar.text
        self.restart_offer = self.notice_bar.restart_offer
        left = QWidget()
        self.left_column = QVBoxLayout(left)
        self.left_column.setContentsMargins(4, 4, 4, 4)
        for widget, stretch in ((self.controls, 0), (self.notice_bar, 0), (self.editor, 1)):
            self.left_column.addWidget(widget, stretch)
        self.jaxpr = JaxprPanel()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("mainSplitter")
        splitter.addWidget(left)
        splitter.addWidget(self.jaxpr)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        self.setCentralWidget(splitter)
        self.console_panel = ConsolePanel()
        self.lesson_panel = LessonPanel()
        self.docks = DockLayout(self, self.console_panel, self.lesson_panel, console_on=console)
        self.console_dock, self.panel_docks = self.docks.console_dock, self.docks.panel_docks
        self.lesson_dock = self.docks.lesson_dock
        self.panels = PanelSet(self.session, self.requests, self.docks, self.zoom, self.theme,
                               self)
        self.status_widgets = StatusWidgets(self.statusBar(), host=self.engine.host,
                                            live=self.settings.live_mode,
                                            live_delay_ms=LIVE_DELAY_MS)
        sw = self.status_widgets
        self.status, self.devices_label, self.busy = sw.status, sw.devices_label, sw.busy
        self.live_box, self.live_paused, self.autosave_off = (sw.live_box, sw.live_paused,
                                                              sw.autosave_off)
        self.live_box.toggled.connect(self._on_live_toggled)

    def _build_menus(self) -> None:
        lessons = self.lessons
        self.actions_ = WindowActions(self, Slots(
            run=self.run, stop=self.stop, restart=self.restart_engine, new=self.new_file,
            open=self.open_dialog, save=self.save, save_as=self.save_as,
            open_lesson=lambda: self.lesson_view.open_dialog(self.path), save_lesson=lessons.save,
            export_lesson=lambda: self.lesson_view.export_dialog(),
            close_lesson=lessons.close, next_step=lessons.next_step,
            previous_step=lessons.previous_step, run_above=lessons.run_all_above,
            zoom_in=self.zoom.zoom_in, zoom_out=self.zoom.zoom_out, zoom_reset=self.zoom.reset,
            presentation=self.set_presentation, full_screen=self.set_full_screen,
            reset_layout=self.reset_layout, open_example=self.open_example,
            set_theme=self.set_theme))
        a = self.actions_
        self.action_run, self.action_stop = a.action_run, a.action_stop
        self.action_presentation, self.action_full_screen = (a.action_presentation,
                                                             a.action_full_screen)
        self.action_save_lesson, self.action_next_step = a.action_save_lesson, a.action_next_step
        self.presentation = PresentationMode(self.zoom, a.action_presentation,
                                             a.action_full_screen, self, self._on_zoom)
        self.panel_focus = PanelFocus(self, self.editor, a.action_presentation, self.docks,
                                      self.jaxpr)
        self.lesson_view = LessonView(
            self.lessons, self.lesson_panel, self.docks, a, self.document, self.jaxpr,
            self.failures, self.panels.code_panels, self)
        self.menus = a.build_menus(self.editor, self.theme.preference,
                                   [self.console_dock, *self.panel_docks])
        self.edit_actions = self.menus.edit_actions
        self.lessons_menu = self.menus.lessons_menu
        self._lessons_menu = LessonsMenu(self.lessons_menu, self)
        self._lessons_menu.sig_open.connect(self.open_lesson)
        self.menus.help_menu.aboutToShow.connect(self.fill_lessons_menu)
        self.document.recent.sig_changed.connect(self._rebuild_recent_menu)
        self._rebuild_recent_menu()
        self.live_class = LiveClassView(self, self.autosave.root.parent / "live")

    def _start_panels(self) -> None:
        """After the first frame: the panel in front; each other one once it is."""
        arranged = self.panels.any_built()  # by a lesson step opened before the first frame
        if self._first_start and not arranged:  # the split asked for before the first frame
            self.reset_layout()  # now it can hold
        self.panels.start()
        self.docks.repair_if_cramped()  # a saved layout, now that it is shown
        self.sig_panels_built.emit()

    def build_panels(self) -> None:
        """All four panels, in their docks (once; safe early)."""
        self.panels.build_all()

    @property
    def plot_panel(self) -> FunctionPlotPanel:
        """Built on first use, as each panel is (``PanelSet``)."""
        return self.panels.plot()

    @property
    def timing_panel(self) -> TimingPanel:
        return self.panels.timing()

    @property
    def kmeans_panel(self) -> KMeansPanel:
        return self.panels.kmeans()

    @property
    def graph_panel(self) -> GraphPanel:
        return self.panels.graph()

    def _connect_engine(self) -> None:
        self.code_views = CodeViews(self.session, self.tracer, self.editor, self.jaxpr,
                                    self.failures, self.statusBar(), self)
        self.panels.sig_built.connect(self.code_views.link_panel)
        self.code_views.sig_traced.connect(self.sig_traced)
        self.session.sig_engine_state_changed.connect(self.status_widgets.on_engine_state)
        self.session.sig_engine_state_changed.connect(self.notice_bar.on_engine_state)
        self.tracer.sig_devices.connect(self.status_widgets.on_devices)
        self.tracer.sig_engine_ready.connect(self.sig_engine_ready)
        self.engine_events = EngineEvents(self.engine, self.notice_bar, self.editor,
                                          self.console_panel, self.statusBar(), self.filename,
                                          self._connect_console, self)
        self.lessons.sig_outputs.connect(self.console_panel.show_cell_outputs)

    # ------------------------------------------------------------------ files and lessons

    @property
    def path(self) -> Path | None:
        return self.document.path

    @property
    def autosave(self) -> Autosave:
        return self.document.autosave

    def filename(self) -> str:
        """The name the engine runs the editor's code under: a lesson step's, or the file's."""
        lessons = self.__dict__.get("lessons")  # the tracer exists a moment before them
        step = lessons.engine_filename() if lessons is not None else None
        return step or self.document.filename()

    def open_lesson(self, path: str | os.PathLike[str]) -> bool:
        """Open a notebook or percent script as a lesson; nothing runs until a step is picked."""
        return self.lessons.open(path)

    def trust_lesson(self, path: str | os.PathLike[str]) -> None:
        """Let the lesson at ``path`` run without asking (as answering yes once does)."""
        self.settings.trust_lesson(path)

    def fill_lessons_menu(self) -> None:
        self._lessons_menu.fill()

    def lesson_panels(self) -> LessonPanels:
        p = self.panels
        return LessonPanels(p.plot(), p.timing(), p.kmeans(), p.graph())

    def show_panel(self, dock_name: str) -> None:
        """Bring the dock ``dock_name`` (its panel built) to the front."""
        if dock_name in PANEL_NAMES:
            self.panels.panel(dock_name)
        self.panel_focus.focus(self.docks.show_panel(dock_name))

    def _on_title(self, title: str) -> None:
        self.setWindowTitle(self.lessons.title() if self.lessons.is_open else title)

    def _rebuild_recent_menu(self) -> None:
        self.menus.fill_recent(self.document.recent.paths(), self.open_path)

    # ------------------------------------------------------------------ engine

    def run(self) -> None:
        """Load the editor source in the engine, then trace the chosen function."""
        self.tracer.run()

    def stop(self) -> None:
        self.tracer.stop()

    def restart_engine(self) -> None:
        self.engine.restart()

    def show_message(self, text: str, rich: bool = False) -> None:
        self.failures.show_message(text, rich)

    def _start_engine(self, console: bool) -> None:
        if not self.isVisible():
            return  # closed in the meantime
        self.engine.start()
        if console and self.engine.host is None:
            self._connect_console()  # an attached kernel's: once it is read (EngineEvents)

    def _connect_console(self) -> None:
        where = self.engine.console_target
        if where and self.docks.console_on:
            self.console_panel.connect_kernel(where)

    # ------------------------------------------------------------------ editor links

    def _on_text_changed(self) -> None:
        if self.notice_bar.entries and self.editor.hasFocus():
            self.notice_bar.dismiss()
        self.tracer.edited()

    def _on_live_toggled(self, on: bool) -> None:
        self.settings.live_mode = on
        self.tracer.set_live(on)

    # ------------------------------------------------------------------ presentation, layout

    def _on_zoom(self, factor: float) -> None:
        self.settings.zoom = factor
        self.panel_focus.update_editor_minimum()
        font = self.jaxpr.tree.font()
        font.setPointSizeF(10 * factor)
        self.jaxpr.set_code_font(font)
        self.console_panel.set_font_points(10 * factor)
        self.lesson_view.arrange()

    def set_theme(self, preference: str) -> None:
        self.menus.check_theme(preference)
        self.settings.theme = preference
        self.theme.apply(preference)
        self.editor.set_theme(None)

    def set_presentation(self, on: bool) -> None:
        """Every widget, menu, dialog, tooltip and plot larger by one factor, or back."""
        self.presentation.set_presentation(on)

    def set_full_screen(self, on: bool) -> None:
        self.presentation.set_full_screen(on)

    def reset_layout(self) -> None:
        """Editor and jaxpr on top (most of the height), console and panels as tabs below."""
        with self.panels.arranging():  # docks shown on the way: only the one in front builds
            self.panel_focus.release()
            self.docks.reset(console_built=self.console_panel.widget is not None)

    # ------------------------------------------------------------------ closing

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        # With a lesson open the editor holds one of its steps: its edits are the lesson's.
        if not self.files.confirm_discard():
            event.ignore()
            return
        if self.lessons.is_open:
            self.lessons.edits.forget()  # saved or discarded: a clean close keeps none
        self.live_class.closing()  # a teacher's class ends; a follower leaves
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
