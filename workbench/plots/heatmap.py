"""The Hessian of f: R^n -> R at a point, as a heatmap with a colour bar.

A diverging, colour-blind-safe map centred on zero: the sign of a curvature is
what a student reads first. Small matrices also print their values in the cells.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from workbench.plots.presentation import (
    BASE_FONT_PT,
    font,
    scale_plot_item,
    scheme_colours,
    style_plot_item,
)

LABEL_MAX_N = 8


class HessianHeatmap(pg.GraphicsLayoutWidget):
    """An n x n matrix as an image; hover shows ``H[i, j]``; n <= 8 also labels each cell."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hessianHeatmap")
        self._scale = 1.0
        self._matrix = np.zeros((0, 0))
        self._names: list[str] = []
        self.plotItem: pg.PlotItem = self.addPlot()
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
        ticks = [(i + 0.5, name) for i, name in enumerate(self._names)]
        for axis in ("left", "bottom"):
            self.plotItem.getAxis(axis).setTicks([ticks])
        self._set_cell_labels()
        self.plotItem.setRange(xRange=(0, n), yRange=(0, n), padding=0.02)

    def matrix(self) -> np.ndarray:
        return self._matrix.copy()

    def value_text(self, i: int, j: int) -> str:
        """The tooltip for cell (i, j)."""
        a, b = self._names[i], self._names[j]
        return f"∂²f/∂{a}∂{b} = H[{i}, {j}] = {self._matrix[i, j]:.6g}"

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
