"""A lesson step's figure enlarged: the class sees it as large as the screen allows (up to
twice its own size), on its own; a click or Escape closes it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QKeyEvent, QMouseEvent, QPixmap
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget

SCREEN_SHARE = 0.9  # of the screen's free area, the most the figure takes
MAX_ENLARGE = 2.0


def enlarged_size(width: int, height: int, room_w: int, room_h: int) -> tuple[int, int]:
    """The figure's size to show: as large as fits ``room``, at most twice its own."""
    if width <= 0 or height <= 0:
        return width, height
    factor = min(MAX_ENLARGE, room_w / width, room_h / height)
    return max(1, round(width * factor)), max(1, round(height * factor))


class FigureView(QDialog):
    """One figure, enlarged (``lessonFigureDialog``)."""

    def __init__(self, image: QImage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonFigureDialog")
        self.setWindowTitle("Figure")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        screen = (parent.screen() if parent is not None else None) \
            or QGuiApplication.primaryScreen()
        area = screen.availableGeometry() if screen is not None else None
        room_w = int(area.width() * SCREEN_SHARE) if area is not None else 1200
        room_h = int(area.height() * SCREEN_SHARE) if area is not None else 800
        width, height = enlarged_size(image.width(), image.height(), room_w, room_h)
        self.label = QLabel()
        self.label.setPixmap(QPixmap.fromImage(image.scaled(
            width, height, Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation)))
        self.label.setToolTip("click or press Escape to close")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.label)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt override)
        self.close()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_Space, Qt.Key.Key_Return):
            self.close()
        else:
            super().keyPressEvent(event)
