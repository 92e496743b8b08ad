"""The drawing surface of the graph view: a ``QGraphicsView`` that routes its events.

It holds no state of the graph: painting, clicks, hovering, zooming and
tooltips are its owner's (``graph_view.JaxprGraphView``, seen here only as the
``CanvasOwner`` protocol, so this module does not import the view). It pans by
dragging its scroll bars itself.
"""

from __future__ import annotations

from typing import Protocol

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Qt


class CanvasOwner(Protocol):
    """What the canvas asks of the widget that owns it."""

    _fit_mode: bool

    def _paint(self, painter: QtGui.QPainter, rect: QtCore.QRectF) -> None: ...

    def _on_hover(self, pos: QtCore.QPoint) -> None: ...

    def _on_click(self, pos: QtCore.QPoint) -> None: ...

    def _on_double_click(self, pos: QtCore.QPoint) -> None: ...

    def _on_resized(self) -> None: ...

    def zoom_by(self, factor: float, at: QtCore.QPoint | None = None) -> None: ...

    def fit(self) -> None: ...

    def fit_all(self) -> None: ...

    def tooltip_at(self, pos: QtCore.QPoint) -> str: ...


class GraphCanvas(QtWidgets.QGraphicsView):
    """The drawing surface; ``JaxprGraphView`` owns the state and hands it over."""

    def __init__(self, owner: CanvasOwner, parent: QtWidgets.QWidget) -> None:
        super().__init__(QtWidgets.QGraphicsScene(parent), parent)
        self.setObjectName("jaxprGraphCanvas")
        self._owner = owner
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.NoAnchor)
        self.setResizeAnchor(QtWidgets.QGraphicsView.ViewportAnchor.NoAnchor)
        self.setViewportUpdateMode(QtWidgets.QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self._press: QtCore.QPointF | None = None
        self._press_scroll = (0, 0)
        self._dragging = False

    # Painting is the owner's; the canvas only routes events.
    def drawBackground(self, painter: QtGui.QPainter,  # noqa: N802
                       rect: QtCore.QRectF | QtCore.QRect) -> None:
        self._owner._paint(painter, QtCore.QRectF(rect))

    def scale_factor(self) -> float:
        """View pixels per scene pixel (the zoom)."""
        return self.transform().m11()

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position()
            self._press_scroll = (self.horizontalScrollBar().value(),
                                  self.verticalScrollBar().value())
            self._dragging = False
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if self._press is not None and event.buttons() & Qt.MouseButton.LeftButton:
            delta = event.position() - self._press
            if not self._dragging and delta.manhattanLength() >= \
                    QtWidgets.QApplication.startDragDistance():
                self._dragging = True
                self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            if self._dragging:
                self._owner._fit_mode = False
                self.horizontalScrollBar().setValue(self._press_scroll[0] - int(delta.x()))
                self.verticalScrollBar().setValue(self._press_scroll[1] - int(delta.y()))
            event.accept()
            return
        self._owner._on_hover(event.position().toPoint())

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton and self._press is not None:
            if not self._dragging:
                self._owner._on_click(event.position().toPoint())
            self._press = None
            self._dragging = False
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self._owner._on_double_click(event.position().toPoint())
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802
        steps = event.angleDelta().y() or event.angleDelta().x()
        if steps:
            self._owner.zoom_by(1.0015 ** steps, event.position().toPoint())
        event.accept()

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:  # noqa: N802
        key = event.key()
        if key == Qt.Key.Key_F and event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self._owner.fit_all()
        elif key == Qt.Key.Key_F:
            self._owner.fit()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self._owner.zoom_by(1.25)
        elif key == Qt.Key.Key_Minus:
            self._owner.zoom_by(0.8)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def viewportEvent(self, event: QtCore.QEvent) -> bool:  # noqa: N802
        if event.type() == QtCore.QEvent.Type.ToolTip:
            help_event: QtGui.QHelpEvent = event  # type: ignore[assignment]
            text = self._owner.tooltip_at(help_event.pos())
            if text:
                QtWidgets.QToolTip.showText(help_event.globalPos(), text, self.viewport())
            else:
                QtWidgets.QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._owner._on_resized()
