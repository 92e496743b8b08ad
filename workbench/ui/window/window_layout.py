"""Where the window's parts sit: editor and jaxpr on top, console and panels as tabs below.

The docks exist from the start (``restoreState`` needs them); a panel comes after the
first paint, once its dock is in front (``panel_set``), in a scroll area so a short dock
scrolls rather than squeezing the editor. A lesson runs the whole height on the left; a
panel a lesson step is about gets half the height, and on a projector most of it
(``panel_focus``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFrame,
    QLabel,
    QMainWindow,
    QScrollArea,
    QWidget,
)

PANEL_DOCKS = (("Plot", "plotDock"), ("Timing", "timingDock"), ("K-means", "kmeansDock"),
               ("Graph", "graphDock"))
PANEL_NAMES = tuple(name for _, name in PANEL_DOCKS)
BOTTOM_SHARE = 0.36  # of the height, for the console and panel tabs at the default layout
LESSON_SHARE = 0.26  # of the width, for the lesson beside the editor (0.32 presenting)
LESSON_SHARE_MAX = 0.6  # of the window's width, the most a step's figure widens the lesson
LESSON_PANEL_SHARE = 0.5  # of the height, for the panel a lesson step brings to the front
READABLE_DOCK_PX = 140  # a dock in view smaller than this (or six lines) is not read


class DockLayout:
    """The window's docks and how they are arranged."""

    def __init__(self, window: QMainWindow, console: QWidget, lesson: QWidget, *,
                 console_on: bool):
        self.window = window
        self.console_on = console_on
        self._repair: Callable[[], None] | None = None  # a restored layout, not yet judged
        self.console_dock = self._dock("Console", "consoleDock", console)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.console_dock)
        if not console_on:
            self.console_dock.hide()
        self.panel_docks: list[QDockWidget] = []
        for title, name in PANEL_DOCKS:
            dock = self._dock(title, name, QLabel("loading..."))
            window.tabifyDockWidget(self.console_dock, dock)  # adds it to the console's tabs
            self.panel_docks.append(dock)
        (self.console_dock if console_on else self.panel_docks[0]).raise_()
        # A lesson's text runs the whole height on the left; the panels below take the rest.
        window.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.lesson_dock = self._dock("Lesson", "lessonDock", lesson)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.lesson_dock)
        self.lesson_dock.hide()

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(name)
        dock.setWidget(widget)
        return dock

    def restore(self, state: QByteArray | None, reset: Callable[[], None]) -> bool:
        """The saved layout, if there is one that Qt takes; once the window is shown, one
        that would show a dock too small to read (a panel dragged down to 90 px, on a
        projector) is laid out afresh with ``reset``, and the status bar says so."""
        if state is None or not self.window.restoreState(state):
            return False
        self._repair = reset  # once the window is shown: repair_if_cramped
        return True

    def cramped(self) -> list[str]:
        """The docks in view smaller than a class can read, by object name."""
        least = max(READABLE_DOCK_PX, 6 * self.window.fontMetrics().lineSpacing())
        found = []
        for dock in (self.console_dock, *self.panel_docks, self.lesson_dock):
            if not dock.isVisible() or dock.isFloating():
                continue
            area = self.window.dockWidgetArea(dock)
            side = area in (Qt.DockWidgetArea.LeftDockWidgetArea,
                            Qt.DockWidgetArea.RightDockWidgetArea)
            if (dock.width() if side else dock.height()) < least:
                found.append(dock.objectName())
        return found

    def repair_if_cramped(self) -> None:
        """After the first frame (once): a restored layout too small to read, laid out
        afresh."""
        reset, self._repair = self._repair, None
        if reset is None or not self.window.isVisible():
            return
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)  # measured as shown
        if not self.cramped():
            return
        reset()
        self.window.statusBar().showMessage(
            "the saved layout had a panel too small to read: laid out afresh", 8000)

    def install_panel(self, dock: QDockWidget, panel: QWidget) -> None:
        """The panel in its dock, in a scroll area: it keeps its usable minimum size (the
        timing chart's 200 px) rather than pushing the editor below its ten lines."""
        placeholder = dock.widget()
        scroll = QScrollArea()
        scroll.setObjectName(f"{dock.objectName()}Scroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(panel)
        dock.setWidget(scroll)
        placeholder.deleteLater()

    def reset(self, console_built: bool) -> None:
        """Editor and jaxpr on top (most of the height), console and panels as tabs below."""
        window = self.window
        # Not restoreState, and no re-tabifying when the tabs are already right: each leaves
        # one more dock tab bar behind, drawn under the real one.
        docks = (self.console_dock, *self.panel_docks)
        arranged = all(
            not d.isFloating()
            and window.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea
            and set(window.tabifiedDockWidgets(d)) == set(docks) - {d} for d in docks)
        if not arranged:
            for dock in docks:
                dock.setFloating(False)
                window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            for dock in self.panel_docks:
                window.tabifyDockWidget(self.console_dock, dock)
        for dock in self.panel_docks:
            dock.show()
        if console_built or self.console_on:
            self.console_dock.show()
        height = max(window.height(), 400)
        window.resizeDocks([self.console_dock], [int(height * BOTTOM_SHARE)],
                           Qt.Orientation.Vertical)
        (self.console_dock if self.console_on else self.panel_docks[0]).raise_()

    def show_panel(self, dock_name: str) -> QDockWidget | None:
        """Bring the dock ``dock_name`` to the front; a step that shows a plot or a run is
        about that panel: half the height, unless the teacher made it taller. The panel's
        dock is returned (the console's is not: its height stays)."""
        window = self.window
        if dock_name == self.console_dock.objectName():
            if self.console_on:  # a window started without one keeps its panel in front
                self.console_dock.raise_()
            return None
        for dock in self.panel_docks:
            if dock.objectName() == dock_name:
                dock.show()
                dock.raise_()
                tall = int(window.height() * LESSON_PANEL_SHARE)
                if (not dock.isFloating() and dock.height() < tall
                        and window.dockWidgetArea(dock)
                        == Qt.DockWidgetArea.BottomDockWidgetArea):
                    window.resizeDocks([dock], [tall], Qt.Orientation.Vertical)
                return dock
        return None

    def arrange_lesson(self, presenting: bool, outputs_width: int = 0) -> None:
        """The lesson beside the editor; presenting, its text takes a little more width, and
        a step's figure gets the width it needs to be seen whole at its own size (at most
        ``LESSON_SHARE_MAX`` of the window: the editor keeps the rest)."""
        share = LESSON_SHARE + (0.06 if presenting else 0.0)
        window = max(self.window.width(), 800)
        width = max(int(window * share), min(outputs_width, int(window * LESSON_SHARE_MAX)))
        self.window.resizeDocks([self.lesson_dock], [width], Qt.Orientation.Horizontal)


class FirstPaint(QObject):
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


MIN_SIZE = QSize(1024, 700)  # the smallest window every panel is laid out for
PROJECTOR_SIZE = QSize(1280, 860)  # a screen no larger than this in either way is filled


def default_size(area: QSize | None = None) -> QSize:
    """A first start's size on a screen of ``area`` (default: the primary screen's free area).

    Most of a large screen; all of a projector's 1024x768 or 1280x800 (90% of it would leave
    a strip the class cannot use); never under ``MIN_SIZE``.
    """
    if area is None:
        screen = QGuiApplication.primaryScreen()
        if screen is None:
            return QSize(1280, 860)
        area = screen.availableGeometry().size()
    fits = area.width() >= MIN_SIZE.width() and area.height() >= MIN_SIZE.height()
    if fits and (area.width() <= PROJECTOR_SIZE.width()
                 or area.height() <= PROJECTOR_SIZE.height()):
        return area
    return QSize(max(MIN_SIZE.width(), min(int(area.width() * 0.9), 1600)),
                 max(MIN_SIZE.height(), min(int(area.height() * 0.9), 1000)))


def first_size(window: QMainWindow) -> None:
    """``default_size``, maximized where that is the whole screen (the window manager then
    fits the window's frame inside it)."""
    screen = QGuiApplication.primaryScreen()
    area = screen.availableGeometry().size() if screen is not None else None
    size = default_size(area)
    window.resize(size)
    if size == area:
        window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
