"""What a class sees on a projector: a panel in its dock's scroll area, at the size a focused
panel gets at 1024x768 and 1280x800 in presentation mode, with the application font 1.5x.

``PROJECTOR_DOCKS`` are the dock contents (width, height) measured in the window at those
screens in presentation mode with the panel brought forward by a lesson step: with the lesson
beside it (narrower) and without. ``framed(panel, size)`` puts the panel where the window
puts it; ``clipped(widget, scroll)`` says what of ``widget`` the scroll area hides.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import QApplication, QFrame, QScrollArea, QWidget

from workbench.ui.style.presentation import PRESENTATION_FACTOR, base_font, scaled

PROJECTOR_DOCKS = {
    "1024x768 lesson": QSize(680, 400),
    "1024x768": QSize(1000, 400),
    "1280x800 lesson": QSize(860, 430),
    "1280x800": QSize(1250, 430),
}


@contextlib.contextmanager
def presentation_font() -> Iterator[float]:
    """The application font at presentation size while the block runs (as F5 sets it)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = base_font(app)
    app.setFont(scaled(before, PRESENTATION_FACTOR))
    try:
        yield PRESENTATION_FACTOR
    finally:
        app.setFont(before)


def framed(qtbot, panel: QWidget, size: QSize) -> QScrollArea:
    """``panel`` in a scroll area as the window's docks hold it, its viewport ``size``."""
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setWidget(panel)
    qtbot.addWidget(scroll)
    scroll.resize(size)
    scroll.show()
    qtbot.waitExposed(scroll)
    return scroll


def clipped(widget: QWidget, scroll: QScrollArea) -> str:
    """"" when all of ``widget`` is on screen in ``scroll`` with no scrolling needed; else
    what is hidden, in words (for the assertion message)."""
    problems = []
    if scroll.verticalScrollBar().isVisible() and scroll.verticalScrollBar().maximum() > 0:
        problems.append(f"scrolls vertically (by {scroll.verticalScrollBar().maximum()} px)")
    if scroll.horizontalScrollBar().isVisible() and scroll.horizontalScrollBar().maximum() > 0:
        problems.append(f"scrolls horizontally (by {scroll.horizontalScrollBar().maximum()} px)")
    if not widget.isVisible():
        problems.append(f"{widget.objectName() or type(widget).__name__} is hidden")
    viewport = scroll.viewport()
    top_left = widget.mapTo(viewport, QPoint(0, 0))
    rect = QRect(top_left, widget.size())
    if not viewport.rect().contains(rect):
        problems.append(f"{widget.objectName() or type(widget).__name__} at {rect.getRect()} "
                        f"leaves the viewport {viewport.rect().getRect()}")
    return "; ".join(problems)
