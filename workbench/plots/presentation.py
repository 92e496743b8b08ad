"""Presentation zoom: one factor scales fonts, line widths and markers of a plot; and text
that fits a projector's narrow dock (``FittedLabel``, ``breakable``).

Each widget keeps its base sizes and re-applies them times the factor, so calling
``set_presentation_scale`` twice never compounds.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtGui, QtWidgets
from PySide6.QtCore import Qt

BASE_FONT_PT = 9.0
BASE_LABEL_PT = 10.0


def font(point_size: float, bold: bool = False) -> QtGui.QFont:
    f = QtGui.QFont()
    f.setPointSizeF(point_size)
    f.setBold(bold)
    return f


def scale_plot_item(item: pg.PlotItem, factor: float, labels: dict[str, str] | None = None) -> None:
    """Scale the tick fonts, axis labels, title and legend of ``item``."""
    tick = font(BASE_FONT_PT * factor)
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        axis.setTickFont(tick)
        # Reserve room for the larger tick text up front; pyqtgraph only grows it after a paint.
        metrics = QtGui.QFontMetrics(tick)
        axis.setStyle(tickLength=-int(round(5 * factor)),
                      tickTextWidth=metrics.horizontalAdvance("100.0 µs"),
                      tickTextHeight=metrics.height())
        text = (labels or {}).get(name)
        if text is None:
            text = axis.labelText
            units = axis.labelUnits
        else:
            units = ""
        if text or units:
            style = {**axis.labelStyle, "font-size": f"{BASE_LABEL_PT * factor:.1f}pt"}
            axis.setLabel(text, units=units or None, **style)
    if item.titleLabel.text:
        item.setTitle(item.titleLabel.text, size=f"{(BASE_LABEL_PT + 1) * factor:.1f}pt")
    legend = item.legend
    if legend is not None:
        legend.setLabelTextSize(f"{BASE_FONT_PT * factor:.1f}pt")
        for _sample, label in legend.items:
            label.setText(label.text, size=f"{BASE_FONT_PT * factor:.1f}pt")
        legend.updateSize()


def axis_font_size(item: pg.PlotItem, name: str = "bottom") -> float:
    """The tick font size of an axis in points (tests and the window check it)."""
    axis = item.getAxis(name)
    f = axis.style.get("tickFont")
    return f.pointSizeF() if f is not None else QtGui.QFont().pointSizeF()


# Light/dark: the window's ThemeWatcher says "light" or "dark" and each plot follows.
SCHEME_COLOURS = {
    "dark": ("#1e1e20", "#dcdcdc"),  # background, foreground
    "light": ("#ffffff", "#202020"),
}


def scheme_colours(scheme: str) -> tuple[QtGui.QColor, QtGui.QColor]:
    """(background, foreground) for ``"light"`` or ``"dark"``."""
    bg, fg = SCHEME_COLOURS["light" if scheme == "light" else "dark"]
    return QtGui.QColor(bg), QtGui.QColor(fg)


def style_plot_item(item: pg.PlotItem, foreground: QtGui.QColor) -> None:
    """Axis lines, tick text, labels, title and legend text in ``foreground``."""
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        axis.setPen(foreground)
        axis.setTextPen(foreground)
    if item.titleLabel.text:
        item.titleLabel.setText(item.titleLabel.text, color=foreground.name())
    legend = item.legend
    if legend is not None:
        legend.setLabelTextColor(foreground)
        for _sample, label in legend.items:
            label.setText(label.text, color=foreground.name())

# A label wraps at spaces only: an equation's header ("l:f32[3] = dot_general[dimension_
# numbers=...]") ran off a narrow panel. A zero-width space after these lets it wrap there.
_BREAKS = str.maketrans({c: c + "\u200b" for c in ",[(="})


def breakable(text: str) -> str:
    """``text`` with a place to wrap after each comma, bracket and equals sign."""
    return text.translate(_BREAKS)


class FittedLabel(QtWidgets.QLabel):
    """A value in large type (``set_point_size``) that shrinks to the width it gets rather
    than widen the view (a projector's dock is narrow)."""

    def __init__(self) -> None:
        super().__init__()
        self._pt = 0.0
        self.setMinimumWidth(1)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def set_point_size(self, pt: float) -> None:
        self._pt = pt
        self._fit()

    def setText(self, text: str) -> None:  # noqa: N802 (Qt override)
        super().setText(text)
        self._fit()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        f = font(self._pt, bold=True)
        wide = QtGui.QFontMetricsF(f).horizontalAdvance(self.text())
        room = max(self.width() - 8.0, 1.0)
        f.setPointSizeF(max(self._pt * min(1.0, room / max(wide, 1.0)), BASE_FONT_PT))
        if f != self.font():
            self.setFont(f)
