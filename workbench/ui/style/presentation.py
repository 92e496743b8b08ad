"""Presentation zoom for the whole application: menus, dialogs and tooltips too.

Widgets with a font of their own (the editor, the jaxpr views, the console)
follow the zoom model directly; everything else uses the application font,
which this scales. The font the application started with is kept so that
zooming back, or closing the window, restores it exactly.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QToolTip, QWidget

from workbench.ui.style.theme import PresentationZoom

_BASE_PROPERTY = "workbenchBaseFont"
PRESENTATION_FACTOR = 1.5
EDITOR_MIN_LINES = 10


def base_font(app: QApplication) -> QFont:
    """The application font before any presentation zoom (recorded on first use)."""
    stored = app.property(_BASE_PROPERTY)
    if isinstance(stored, QFont):
        return QFont(stored)
    font = QFont(app.font())
    app.setProperty(_BASE_PROPERTY, font)
    return QFont(font)


def scaled(font: QFont, factor: float) -> QFont:
    out = QFont(font)
    if font.pointSizeF() > 0:
        out.setPointSizeF(font.pointSizeF() * factor)
    elif font.pixelSize() > 0:
        out.setPixelSize(max(1, round(font.pixelSize() * factor)))
    return out


class AppFontZoom(QObject):
    """Applies a ``PresentationZoom`` to the application and tooltip fonts."""

    def __init__(self, zoom: PresentationZoom, parent: QObject | None = None):
        super().__init__(parent)
        self._zoom = zoom
        zoom.sig_zoom_changed.connect(self.apply)
        self.apply(zoom.factor)

    def apply(self, factor: float) -> None:
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        font = scaled(base_font(app), factor)
        app.setFont(font)
        QToolTip.setFont(font)

    def restore(self) -> None:
        """Back to the application's own font (the window is closing)."""
        self.apply(1.0)


class PresentationMode(QObject):
    """Presentation mode (F5) and full screen: one zoom factor for every widget, menu and
    plot, remembered in the settings; the editor keeps ten visible lines at any zoom."""

    def __init__(self, zoom: PresentationZoom, presentation: QAction, full_screen: QAction,
                 window: QWidget, on_zoom: Callable[[float], None]):
        super().__init__(window)
        self.zoom = zoom
        self.presentation = presentation
        self.full_screen = full_screen
        self.window = window
        self._on_zoom = on_zoom
        self._zoom_before = 1.0
        zoom.sig_zoom_changed.connect(self._zoom_changed)

    def set_presentation(self, on: bool) -> None:
        self.presentation.setChecked(on)
        if on:
            self._zoom_before = min(self.zoom.factor, PRESENTATION_FACTOR)
            self.zoom.set_factor(max(self.zoom.factor, PRESENTATION_FACTOR))
        else:
            self.zoom.set_factor(min(self.zoom.factor, self._zoom_before))

    def set_full_screen(self, on: bool) -> None:
        self.full_screen.setChecked(on)
        if on:
            self.window.showFullScreen()
        else:
            self.window.showNormal()

    def _zoom_changed(self, factor: float) -> None:
        self.presentation.setChecked(factor >= PRESENTATION_FACTOR)  # Ctrl+0 leaves it
        self._on_zoom(factor)


def editor_minimum_height(editor: QPlainTextEdit, lines: int = EDITOR_MIN_LINES) -> int:
    """Notices and messages never squeeze the editor below ten visible lines."""
    return editor.fontMetrics().lineSpacing() * lines + 2 * editor.frameWidth() + 8
