"""Presentation zoom: one factor scales fonts, line widths and markers of a plot.

Each widget keeps its base sizes and re-applies them times the factor, so calling
``set_presentation_scale`` twice never compounds.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtGui

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
