"""The Hessian of f: R^n -> R at a point, as a heatmap with a colour bar.

A diverging, colour-blind-safe map centred on zero: the sign of a curvature is
what a student reads first. Small matrices also print their values in the cells. The row
and column axes count indices: a tick per named index (x0, x1, ...), thinned when names
would collide, never a fraction of one nor a "(x0.001)" scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from workbench.plots.presentation import (
    BASE_FONT_PT,
    font,
    scale_plot_item,
    scheme_colours,
    style_plot_item,
)

LABEL_MAX_N = 8
INDEX_STEPS = (1, 2, 5)  # label every 1st, 2nd, 5th, 10th, 20th... index as room allows


class _IndexAxis(pg.AxisItem):
    """A row or column axis of the matrix: one tick per index at its cell's centre, named
    (x0, x1, ...), every 2nd, 5th, 10th... when names would collide; never a fraction of an
    index, never a "(x0.001)" scale."""

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)
        self.names: list[str] = []

    def set_names(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.picture = None  # pyqtgraph's cached drawing
        self.update()

    def index_step(self, size: float) -> int:
        """Label every ``index_step``-th index, so ``size`` pixels hold the labels."""
        n = len(self.names)
        lo, hi = sorted(self.range)
        if n == 0 or size <= 0 or hi <= lo:
            return 1
        metrics = QtGui.QFontMetricsF(self.style["tickFont"] or QtGui.QFont())
        if self.orientation in ("left", "right"):
            room = metrics.height()
        else:
            room = max(metrics.horizontalAdvance(name) for name in self.names)
        room += metrics.averageCharWidth()
        per_index = size / (hi - lo)
        decade = 1
        while True:
            for step in INDEX_STEPS:
                if step * decade * per_index >= room or step * decade >= n:
                    return step * decade
            decade *= 10

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802
        lo, hi = sorted((minVal, maxVal))
        step = self.index_step(size)
        first = max(0, math.ceil(lo - 0.5))
        centres = [i + 0.5 for i in range(first, len(self.names), step) if i + 0.5 <= hi]
        return [(float(step), centres)] if centres else []

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        n = len(self.names)
        return [self.names[int(v)] if 0 <= int(v) < n else "" for v in values]


class HessianHeatmap(pg.GraphicsLayoutWidget):
    """An n x n matrix as an image; hover shows ``H[i, j]``; n <= 8 also labels each cell."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hessianHeatmap")
        self._scale = 1.0
        self._matrix = np.zeros((0, 0))
        self._names: list[str] = []
        self._axes = {"left": _IndexAxis("left"), "bottom": _IndexAxis("bottom")}
        self.plotItem: pg.PlotItem = self.addPlot(axisItems=self._axes)
        self.plotItem.setAspectLocked(True)
        self.plotItem.invertY(True)  # row 0 on top, as the matrix is written
        self.plotItem.setMouseEnabled(x=False, y=False)
        self.plotItem.hideButtons()
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plotItem.addItem(self.image)
        self.colorbar = pg.ColorBarItem(colorMap=pg.colormap.get("CET-CBD1"), values=(-1, 1),
                                        interactive=False, label="∂²f/∂xᵢ∂xⱼ")
        self.colorbar.setImageItem(self.image, insert_in=self.plotItem)
        self._labels: list[pg.TextItem] = []
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)

    def set_matrix(self, matrix: np.ndarray, names: Sequence[str] | None = None) -> None:
        """Show ``matrix``; ``names`` label rows and columns (default x0, x1, ...)."""
        m = np.atleast_2d(np.asarray(matrix, dtype=float))
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise ValueError(f"a Hessian is square, got shape {m.shape}")
        n = m.shape[0]
        self._matrix = m
        self._names = list(names) if names is not None else [f"x{i}" for i in range(n)]
        finite = m[np.isfinite(m)]
        vmax = float(np.max(np.abs(finite))) if finite.size else 1.0
        vmax = vmax or 1.0
        self.image.setImage(np.where(np.isfinite(m), m, 0.0), levels=(-vmax, vmax))
        self.image.setRect(QtCore.QRectF(0, 0, n, n))
        self.colorbar.setLevels((-vmax, vmax))
        for axis in self._axes.values():
            axis.set_names(self._names)
        self._set_cell_labels()
        self.plotItem.setRange(xRange=(0, n), yRange=(0, n), padding=0.02)

    def matrix(self) -> np.ndarray:
        return self._matrix.copy()

    def value_text(self, i: int, j: int) -> str:
        """The tooltip for cell (i, j)."""
        a, b = self._names[i], self._names[j]
        return f"∂²f/∂{a}∂{b} = H[{i}, {j}] = {self._matrix[i, j]:.6g}"

    def tick_labels(self, axis: str = "bottom") -> list[tuple[float, str]]:
        """The (position, text) of each tick an index axis draws at its current size."""
        item = self._axes[axis]
        vb = self.plotItem.vb
        length = vb.height() if axis == "left" else vb.width()
        lo, hi = item.range
        return [(v, text) for spacing, values in item.tickValues(lo, hi, length)
                for v, text in zip(values, item.tickStrings(values, 1.0, spacing), strict=True)]

    def cell_labels(self) -> list[str]:
        return [t.textItem.toPlainText() for t in self._labels if t.isVisible()]

    def _set_cell_labels(self) -> None:
        n = self._matrix.shape[0]
        count = n * n if n <= LABEL_MAX_N else 0
        while len(self._labels) < count:
            item = pg.TextItem(anchor=(0.5, 0.5), color=(20, 20, 20))
            self.plotItem.addItem(item)
            self._labels.append(item)
        for idx, item in enumerate(self._labels):
            item.setVisible(idx < count)
            if idx < count:
                i, j = divmod(idx, n)
                item.setText(f"{self._matrix[i, j]:.3g}")
                item.setFont(font(BASE_FONT_PT * self._scale))
                item.setPos(j + 0.5, i + 0.5)

    def _on_mouse_moved(self, pos: QtCore.QPointF) -> None:
        n = self._matrix.shape[0]
        if not n or not self.plotItem.vb.sceneBoundingRect().contains(pos):
            return
        p = self.plotItem.vb.mapSceneToView(pos)
        j, i = int(np.floor(p.x())), int(np.floor(p.y()))
        self.setToolTip(self.value_text(i, j) if 0 <= i < n and 0 <= j < n else "")

    def set_presentation_scale(self, factor: float) -> None:
        """Scale fonts (ticks, colour bar, cell values)."""
        self._scale = float(factor)
        scale_plot_item(self.plotItem, factor)
        self.colorbar.axis.setTickFont(font(BASE_FONT_PT * factor))
        self._set_cell_labels()

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme (cell text stays dark: it sits on the map)."""
        bg, fg = scheme_colours(scheme)
        self.setBackground(bg)
        style_plot_item(self.plotItem, fg)
        self.colorbar.axis.setPen(fg)
        self.colorbar.axis.setTextPen(fg)
