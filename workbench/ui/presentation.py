"""Presentation zoom for the whole application: menus, dialogs and tooltips too.

Widgets with a font of their own (the editor, the jaxpr views, the console)
follow the zoom model directly; everything else uses the application font,
which this scales. The font the application started with is kept so that
zooming back, or closing the window, restores it exactly.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QToolTip

from workbench.ui.theme import PresentationZoom

_BASE_PROPERTY = "workbenchBaseFont"


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
