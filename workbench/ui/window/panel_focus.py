"""On a projector the panel a step is about gets the screen.

Presenting (or in a window no taller than a projector's 800 px), a panel brought
forward, by a lesson step or by its tab, takes the height the editor can spare:
the editor keeps four lines instead of its usual ten while a panel has the focus
(the jaxpr beside it folds its equation pane and printed text), and gets them back
with Reset layout, presentation mode off, or the console tab.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QPlainTextEdit

from workbench.ui.panels.jaxpr_panel import JaxprPanel
from workbench.ui.style.presentation import EDITOR_MIN_LINES, editor_minimum_height
from workbench.ui.window.window_layout import DockLayout

FOCUS_EDITOR_LINES = 4
PROJECTOR_HEIGHT = 820  # a window this short is on a projector's 768 or 800 lines


class PanelFocus(QObject):
    """Gives the panel in front most of the height when a class is watching."""

    def __init__(self, window: QMainWindow, editor: QPlainTextEdit, presenting: QAction,
                 docks: DockLayout, jaxpr: JaxprPanel):
        super().__init__(window)
        self.window = window
        self.editor = editor
        self.jaxpr = jaxpr
        self.presenting = presenting
        self.panel_docks = docks.panel_docks
        self.focused: QDockWidget | None = None
        presenting.toggled.connect(self._on_presenting)
        for dock in self.panel_docks:
            dock.visibilityChanged.connect(lambda shown, d=dock: self._on_tab(d, shown))
        docks.console_dock.visibilityChanged.connect(self._on_console)

    @property
    def wanted(self) -> bool:
        """Whether a panel in front should take the height: presenting, or a short window."""
        return self.presenting.isChecked() or self.window.height() <= PROJECTOR_HEIGHT

    def focus(self, dock: QDockWidget | None) -> None:
        """``dock`` takes all the height the editor's four lines leave (if wanted)."""
        if dock is None or not self.wanted or dock.isFloating() or (
                self.window.dockWidgetArea(dock) != Qt.DockWidgetArea.BottomDockWidgetArea):
            return
        self.focused = dock
        self.update_editor_minimum()
        # The smaller minimums first (layouts update on posted events), then the dock, asked
        # for the whole height, gets what they leave.
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        self.window.resizeDocks([dock], [self.window.height()], Qt.Orientation.Vertical)

    def release(self) -> None:
        """The editor gets its ten lines back (the docks keep their size until reset)."""
        self.focused = None
        self.update_editor_minimum()

    def update_editor_minimum(self) -> None:
        """Ten lines, or four while a panel has the focus (after a zoom, too); the jaxpr
        beside the editor folds its extras away meanwhile, so it is no taller."""
        focused = self.focused is not None
        self.jaxpr.set_compact(focused)
        lines = FOCUS_EDITOR_LINES if focused else EDITOR_MIN_LINES
        self.editor.setMinimumHeight(editor_minimum_height(self.editor, lines))

    def _on_tab(self, dock: QDockWidget, shown: bool) -> None:
        if shown and self.presenting.isChecked() and self.focused is not dock:
            self.focus(dock)
            # Its tab was clicked: the dock shows as the tab bar switches, and a resize asked
            # for now is lost (the Plot kept the height it had, its x axis cut off at
            # 1024x768). Asked again once the switch is done.
            QTimer.singleShot(0, lambda: self._refocus(dock))

    def _refocus(self, dock: QDockWidget) -> None:
        if self.focused is dock and dock.isVisible():
            self.window.resizeDocks([dock], [self.window.height()], Qt.Orientation.Vertical)

    def _on_console(self, shown: bool) -> None:
        if shown and self.focused is not None:
            self.release()

    def _on_presenting(self, on: bool) -> None:
        if not on:
            self.release()
