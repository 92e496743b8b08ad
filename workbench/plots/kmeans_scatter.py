"""The animated k-means view: points coloured by cluster, centroids with trails, distortion.

Points never move between iterations, only their labels change. So ``set_points``
works out once (and again only when the view moves or resizes) which cell of a
screen-aligned raster each point falls in, keeping one point per cell (the last,
as a painter would); a frame is then one gather and one scatter of uint8 labels
into that raster, which pyqtgraph draws through a label -> colour lookup table.
That costs O(N) simple numpy work per frame instead of ``ScatterPlotItem.setData``'s
~2.8 us per point. Small data sets (the tutorial's) keep round markers instead.

The view keeps one unit the same length across and up (k-means distances are
Euclidean), so only a widget of the data's shape shows the data edge to edge:
``width_for_height`` and ``height_for_width`` say what shape that is, for the
panel to size the scatter by.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from pyqtgraph.GraphicsScene.mouseEvents import MouseClickEvent
from PySide6 import QtCore, QtGui
from PySide6.QtCore import Qt, Signal

from workbench.plots.palette import EMPTY_COLOUR, cluster_colour, cluster_lut
from workbench.plots.presentation import (
    BASE_FONT_PT,
    scale_plot_item,
    scheme_colours,
    style_plot_item,
)

BACKGROUND = 255  # raster value of a cell with no point: transparent
UNASSIGNED = 254  # points before the first assignment: grey
MAX_CLUSTERS = 254
VORONOI_GRID = (150, 200)  # rows, columns: coarse is enough for a background tint
# Below these (pixels, at presentation scale 1) the axes crowd the points or the curve out.
SCATTER_MIN_SIZE = (240, 200)
DISTORTION_MIN_SIZE = (160, 120)
# What the axes' larger text takes per unit of presentation scale above 1 (the plot area
# inside need not grow): a projector's 1.5x keeps the scatter within a 400 px dock.
AXIS_GROWTH = (60, 40)
VIEW_PADDING = 0.05  # of the data's span, on each side
ASPECT_LIMITS = (0.2, 5.0)  # a data set on a line still gets a usable widget shape


def _min_size(base: tuple[int, int], factor: float) -> tuple[int, int]:
    grow = max(float(factor), 1.0) - 1.0
    return (round(base[0] + AXIS_GROWTH[0] * grow), round(base[1] + AXIS_GROWTH[1] * grow))


def _argb_lut(alpha: int) -> np.ndarray:
    """Label -> premultiplied ARGB32 pixel (what QPainter draws without converting)."""
    lut = cluster_lut(alpha=alpha, background=BACKGROUND).astype(np.uint32)
    lut[UNASSIGNED] = (150, 150, 150, alpha)
    a = lut[:, 3]
    rgb = lut[:, :3] * a[:, None] // 255
    return (a << 24) | (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]


class _RasterItem(pg.GraphicsObject):
    """A premultiplied ARGB32 image stretched over a data rectangle.

    pyqtgraph's ImageItem hands QPainter an indexed image for a uint8 + lookup-table
    input, which Qt converts on every paint; this item keeps a QImage over a numpy
    buffer in the format the painter wants, so a frame costs one lookup-table gather.
    """

    def __init__(self) -> None:
        super().__init__()
        self._buffer = np.zeros((1, 1), dtype=np.uint32)
        self._qimage: QtGui.QImage | None = None
        self._rect = QtCore.QRectF()

    def set_pixels(self, pixels: np.ndarray, rect: QtCore.QRectF | None = None) -> None:
        """Show ``pixels`` (rows x cols uint32 ARGB32 premultiplied, row 0 at the bottom)."""
        if pixels is not self._buffer or self._qimage is None:
            self._buffer = np.ascontiguousarray(pixels, dtype=np.uint32)
            rows, cols = self._buffer.shape
            self._qimage = QtGui.QImage(self._buffer.data, cols, rows, cols * 4,
                                        QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        if rect is not None and rect != self._rect:
            self.prepareGeometryChange()
            self._rect = QtCore.QRectF(rect)
        self.update()

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802
        return QtCore.QRectF(self._rect)

    def paint(self, painter: QtGui.QPainter, *_args: object) -> None:
        if self._qimage is not None and not self._rect.isEmpty():
            painter.drawImage(self._rect, self._qimage)


class KMeansScatter(pg.PlotWidget):
    """``set_points`` once, then ``set_frame`` per iteration (only recolours)."""

    sig_clicked = Signal(float, float)
    """The user clicked the plot at these data coordinates (to place a centroid)."""

    def __init__(self, parent: QtCore.QObject | None = None, *, point_size: int = 2,
                 marker_threshold: int = 5000) -> None:
        super().__init__(parent)
        self.setObjectName("kmeansPlot")
        self.setMinimumSize(*SCATTER_MIN_SIZE)
        self.point_size = max(1, int(point_size))
        self.marker_threshold = marker_threshold
        self._scale = 1.0
        self._fg = scheme_colours("dark")[1]
        self._x = np.empty(0)
        self._y = np.empty(0)
        self._labels: np.ndarray | None = None
        self._centroids = np.empty((0, 2))
        self._empty = np.zeros(0, dtype=bool)
        self._trails: list[np.ndarray] = []
        self._voronoi_on = False
        self._fitting = False
        self._styles: dict[tuple, tuple[QtGui.QBrush, QtGui.QPen, QtGui.QPen]] = {}
        self._caption_text = ""
        # raster state, valid for one view rectangle and widget size
        self._cells = np.empty(0, dtype=np.intp)  # flat raster cell of each drawn point
        self._owners = np.empty(0, dtype=np.intp)  # the point drawn in that cell
        self._grid = np.full((1, 1), BACKGROUND, dtype=np.uint8)

        self.plotItem.setAspectLocked(True)  # k-means distances are Euclidean: keep them honest
        self.plotItem.showGrid(x=True, y=True, alpha=0.15)
        self.plotItem.hideButtons()
        self.vb = self.plotItem.vb
        self.vb.disableAutoRange()

        self._lut = _argb_lut(255)
        self._voronoi_lut = _argb_lut(60)
        self._pixels = np.zeros((1, 1), dtype=np.uint32)
        self._voronoi_grid = np.zeros((0, 0), dtype=np.uint8)
        self._raster = _RasterItem()
        self._raster.setZValue(0)
        self._voronoi = _RasterItem()
        self._voronoi.setZValue(-10)
        self._voronoi.setVisible(False)
        self._markers = pg.ScatterPlotItem(pen=None, size=7)
        self._markers.setZValue(1)
        self._centroid_item = pg.ScatterPlotItem(size=18)
        self._centroid_item.setZValue(20)
        self._trail_items: list[pg.PlotCurveItem] = []
        self._caption = pg.LabelItem(justify="left")
        self._caption.setParentItem(self.vb)
        self._caption.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(8, 4))
        for item in (self._voronoi, self._raster, self._markers, self._centroid_item):
            self.plotItem.addItem(item, ignoreBounds=True)

        self._brushes = np.array([pg.mkBrush(cluster_colour(k)) for k in range(MAX_CLUSTERS)]
                                 + [pg.mkBrush(150, 150, 150)], dtype=object)
        self.vb.sigRangeChanged.connect(self._on_view_changed)
        self.vb.sigResized.connect(self._on_view_changed)
        self.scene().sigMouseClicked.connect(self._on_scene_clicked)
        self.set_presentation_scale(1.0)

    # -- data ---------------------------------------------------------------------------------
    @property
    def uses_raster(self) -> bool:
        """True when points are drawn as a raster (more than ``marker_threshold`` points)."""
        return len(self._x) > self.marker_threshold

    def set_points(self, xy: np.ndarray) -> None:
        """The data set (N x 2); shown grey until the first frame; the view fits it."""
        xy = np.asarray(xy, dtype=float)
        if xy.ndim != 2 or xy.shape[1] != 2:
            raise ValueError(f"points must be N x 2, got shape {xy.shape}")
        self._x = np.ascontiguousarray(xy[:, 0])
        self._y = np.ascontiguousarray(xy[:, 1])
        self._labels = None
        self._centroids = np.empty((0, 2))
        self._empty = np.zeros(0, dtype=bool)
        self._trails = []
        self._raster.setVisible(self.uses_raster)
        self._markers.setVisible(not self.uses_raster)
        if self.uses_raster:
            self._markers.setData([], [])
        else:
            self._markers.setData(self._x, self._y, brush=self._brushes[-1])
        self._fitting = True  # one rasterisation below, not one per range signal
        try:
            self.fit_view()
        finally:
            self._fitting = False
        self._rasterise()
        self._draw_labels()
        self._draw_centroids()

    def fit_view(self) -> None:
        """Show all (finite) points: edge to edge in the direction the widget's shape limits
        (the other shows more, as the locked aspect needs), with a small margin."""
        box = self.data_box()
        if box is None:
            return
        (x0, x1), (y0, y1) = box
        self.vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=VIEW_PADDING)

    def data_box(self) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """((x min, x max), (y min, y max)) of the finite points; None without any."""
        ok = np.isfinite(self._x) & np.isfinite(self._y)
        if not ok.any():
            return None
        x, y = self._x[ok], self._y[ok]
        return (float(x.min()), float(x.max())), (float(y.min()), float(y.max()))

    def data_aspect(self) -> float:
        """Width over height of the data's box (4:3 before there is data), kept within
        ``ASPECT_LIMITS`` so that points on a line still get a usable shape."""
        box = self.data_box()
        if box is None:
            return 4.0 / 3.0
        (x0, x1), (y0, y1) = box
        w, h = x1 - x0, y1 - y0
        if w <= 0 and h <= 0:
            return 1.0
        aspect = w / h if h > 0 else ASPECT_LIMITS[1]
        return min(max(aspect, ASPECT_LIMITS[0]), ASPECT_LIMITS[1])

    def chrome(self) -> tuple[int, int]:
        """Pixels across and up that the axes and margins take around the view box."""
        vw, vh = self.vb.width(), self.vb.height()
        if vw <= 1 or vh <= 1 or vw > self.width() or vh > self.height():  # not laid out yet
            left = self.plotItem.getAxis("left")
            bottom = self.plotItem.getAxis("bottom")
            return (math.ceil(left.boundingRect().width()) + 3,
                    math.ceil(bottom.boundingRect().height()) + 3)
        return self.width() - math.floor(vw), self.height() - math.floor(vh)

    def width_for_height(self, height: int) -> int:
        """The widget width that, at ``height`` pixels tall, shows the data edge to edge
        in both directions (never below the minimum width)."""
        cw, ch = self.chrome()
        width = cw + math.ceil(max(height - ch, 1) * self.data_aspect())
        return max(width, self.minimumWidth())

    def height_for_width(self, width: int) -> int:
        """The widget height that, at ``width`` pixels wide, shows the data edge to edge
        in both directions (never below the minimum height)."""
        cw, ch = self.chrome()
        height = ch + math.ceil(max(width - cw, 1) / self.data_aspect())
        return max(height, self.minimumHeight())

    def set_frame(self, labels: np.ndarray, centroids: np.ndarray,
                  trails: Sequence[np.ndarray] = (), empty: np.ndarray | None = None) -> None:
        """One iteration: ``labels`` (N ints in [0, K)), ``centroids`` K x 2, earlier centroid
        arrays oldest first, and which clusters are ``empty`` (flagged in red)."""
        labels = np.asarray(labels)
        if labels.shape != self._x.shape:
            raise ValueError(f"{labels.shape[0]} labels for {self._x.shape[0]} points")
        centroids = np.asarray(centroids, dtype=float).reshape(-1, 2)
        if len(centroids) > MAX_CLUSTERS:
            raise ValueError(f"at most {MAX_CLUSTERS} clusters can be drawn")
        self._labels = labels
        self._centroids = centroids
        self._trails = [np.asarray(t, dtype=float).reshape(-1, 2) for t in trails]
        k = len(centroids)
        self._empty = (np.zeros(k, dtype=bool) if empty is None
                       else np.asarray(empty, dtype=bool).reshape(k))
        self._draw_labels()
        self._draw_centroids()
        self._draw_voronoi()

    def set_centroids(self, centroids: np.ndarray) -> None:
        """Centroids alone (placed by clicks before a run); points keep their colours."""
        self._centroids = np.asarray(centroids, dtype=float).reshape(-1, 2)
        self._empty = np.zeros(len(self._centroids), dtype=bool)
        self._trails = []
        self._draw_centroids()
        self._draw_voronoi()

    def set_voronoi_visible(self, on: bool) -> None:
        """Tint the background by nearest centroid (a coarse grid; cheap)."""
        self._voronoi_on = on
        self._draw_voronoi()

    def set_caption(self, text: str) -> None:
        """A line drawn at the top left, e.g. ``iteration 3 / 12`` (exports show it too)."""
        self._caption_text = text
        self._draw_caption()

    # -- what is drawn (tests, exports) -------------------------------------------------------
    def label_image(self) -> np.ndarray:
        """The label raster as drawn, row 0 at the bottom (BACKGROUND where no point)."""
        return self._grid.copy()

    def cell_of(self, i: int) -> tuple[int, int] | None:
        """(row, column) of the raster cell showing point ``i``, None if hidden or covered."""
        hits = np.flatnonzero(self._owners == i)
        if not len(hits):
            return None
        row, col = divmod(int(self._cells[hits[0]]), self._grid.shape[1])
        return row, col

    def voronoi_labels(self) -> np.ndarray:
        """The background's nearest-centroid grid, row 0 at the bottom of the view."""
        return self._voronoi_grid.copy()

    def empty_clusters(self) -> list[int]:
        return [int(k) for k in np.flatnonzero(self._empty)]

    def caption_text(self) -> str:
        return self._caption.text

    def trail_data(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        x, y = self._trail_items[k].getData()
        return np.asarray(x), np.asarray(y)

    def centroid_spots(self) -> list[dict]:
        """Per centroid: position, brush colour (None when hollow), pen colour."""
        out = []
        for spot in self._centroid_item.points():
            brush = spot.brush()
            out.append({"pos": (spot.pos().x(), spot.pos().y()),
                        "brush": None if brush.style() == Qt.BrushStyle.NoBrush
                        else brush.color().name(),
                        "pen": spot.pen().color().name()})
        return out

    # -- drawing ------------------------------------------------------------------------------
    def _rasterise(self) -> None:
        """Map every point to a raster cell for the current view (only when the view moves)."""
        if not self.uses_raster:
            return
        (x0, x1), (y0, y1) = self.vb.viewRange()
        w_px, h_px = max(self.vb.width(), 1.0), max(self.vb.height(), 1.0)
        cols = max(1, int(np.ceil(w_px / self.point_size)))
        rows = max(1, int(np.ceil(h_px / self.point_size)))
        dx = (x1 - x0) * self.point_size / w_px
        dy = (y1 - y0) * self.point_size / h_px
        fx = (self._x - x0) / dx
        fy = (self._y - y0) / dy
        inside = (fx >= 0) & (fx < cols) & (fy >= 0) & (fy < rows)  # NaN fails every test
        idx = np.flatnonzero(inside).astype(np.intp)
        flat = fy[idx].astype(np.intp) * cols + fx[idx].astype(np.intp)
        owner = np.full(rows * cols, -1, dtype=np.intp)
        owner[flat] = idx  # several points per cell: the last one wins, as a painter's would
        self._cells = np.flatnonzero(owner >= 0)
        self._owners = owner[self._cells]
        self._grid = np.full((rows, cols), BACKGROUND, dtype=np.uint8)
        self._pixels = np.zeros((rows, cols), dtype=np.uint32)
        self._raster.set_pixels(self._pixels, QtCore.QRectF(x0, y0, cols * dx, rows * dy))

    def _draw_labels(self) -> None:
        if not self.uses_raster:
            if len(self._x):
                brushes = (self._brushes[-1] if self._labels is None
                           else list(self._brushes[np.clip(self._labels, 0, MAX_CLUSTERS)]))
                self._markers.setBrush(brushes)
            return
        grid = self._grid
        grid.fill(BACKGROUND)
        flat = grid.reshape(-1)
        if self._labels is None:
            flat[self._cells] = UNASSIGNED
        else:
            flat[self._cells] = self._labels[self._owners]
        np.take(self._lut, grid, out=self._pixels)
        self._raster.set_pixels(self._pixels)

    def _centroid_style(self, k: int, empty: bool) -> tuple[QtGui.QBrush, QtGui.QPen, QtGui.QPen]:
        """Brush, pen and trail pen of centroid ``k``, made once per scale and scheme: fresh
        pens every frame would make the scatter item re-render its symbols."""
        key = (k, empty, self._scale, self._fg.rgba())
        style = self._styles.get(key)
        if style is None:
            trail = pg.mkPen(cluster_colour(k).lighter(140), width=2 * self._scale)
            if empty:
                style = (pg.mkBrush(None), pg.mkPen(EMPTY_COLOUR, width=3 * self._scale), trail)
            else:
                style = (pg.mkBrush(cluster_colour(k)),
                         pg.mkPen(self._fg, width=2 * self._scale), trail)
            self._styles[key] = style
        return style

    def _draw_centroids(self) -> None:
        c = self._centroids
        empty = [bool(self._empty[k]) if k < len(self._empty) else False for k in range(len(c))]
        styles = [self._centroid_style(k, e) for k, e in enumerate(empty)]
        self._centroid_item.setData(x=c[:, 0], y=c[:, 1], symbol="o", size=18 * self._scale,
                                    brush=[st[0] for st in styles], pen=[st[1] for st in styles])
        while len(self._trail_items) < len(c):
            item = pg.PlotCurveItem()
            item.setZValue(10)
            self.plotItem.addItem(item, ignoreBounds=True)
            self._trail_items.append(item)
        for k, item in enumerate(self._trail_items):
            if k < len(c) and self._trails:
                path = np.array([t[k] for t in self._trails if k < len(t)] + [c[k]])
                item.setData(path[:, 0], path[:, 1], pen=styles[k][2])
            else:
                item.setData([], [])
        self._draw_caption()

    def _draw_caption(self) -> None:
        lines = [self._caption_text] if self._caption_text else []
        empty = self.empty_clusters()
        if empty:
            names = ", ".join(str(k) for k in empty)
            lines.append(f"<span style='color:{EMPTY_COLOUR}'>○ empty cluster"
                         f"{'s' if len(empty) > 1 else ''}: {names}</span>")
        self._caption.setText("<br>".join(lines), size=f"{BASE_FONT_PT * self._scale + 1:.1f}pt",
                              color=self._fg.name())

    def _draw_voronoi(self) -> None:
        c = self._centroids
        visible = self._voronoi_on and len(c) > 0
        self._voronoi.setVisible(visible)
        if not visible:
            return
        (x0, x1), (y0, y1) = self.vb.viewRange()
        rows, cols = VORONOI_GRID
        gx = x0 + (np.arange(cols) + 0.5) * (x1 - x0) / cols
        gy = y0 + (np.arange(rows) + 0.5) * (y1 - y0) / rows
        d2 = ((gx[None, None, :] - c[:, 0, None, None]) ** 2
              + (gy[None, :, None] - c[:, 1, None, None]) ** 2)
        self._voronoi_grid = np.argmin(d2, axis=0).astype(np.uint8)
        self._voronoi.set_pixels(np.take(self._voronoi_lut, self._voronoi_grid),
                                 QtCore.QRectF(x0, y0, x1 - x0, y1 - y0))

    # -- events -------------------------------------------------------------------------------
    def _on_view_changed(self, *_args: object) -> None:
        if self._fitting:
            return
        if self.uses_raster:
            self._rasterise()
            self._draw_labels()
        self._draw_voronoi()

    def _on_scene_clicked(self, ev: MouseClickEvent) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or ev.double():
            return
        pos = ev.scenePos()
        if self.vb.sceneBoundingRect().contains(pos):
            p = self.vb.mapSceneToView(pos)
            self.sig_clicked.emit(float(p.x()), float(p.y()))

    # A click on the plot is ours (it may place a centroid): never pass it to the parent.
    def mousePressEvent(self, ev: QtGui.QMouseEvent) -> None:  # noqa: N802
        super().mousePressEvent(ev)
        ev.accept()

    def mouseReleaseEvent(self, ev: QtGui.QMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(ev)
        ev.accept()

    def data_to_widget(self, x: float, y: float) -> QtCore.QPoint:
        """Where the data point (x, y) lands in this widget's pixels (tests click there)."""
        scene = self.vb.mapViewToScene(QtCore.QPointF(x, y))
        return self.mapFromScene(scene)

    # -- presentation -------------------------------------------------------------------------
    def set_presentation_scale(self, factor: float) -> None:
        """Scale fonts, centroid markers, trails and (small data sets) point markers."""
        self._scale = float(factor)
        self.setMinimumSize(*_min_size(SCATTER_MIN_SIZE, self._scale))
        scale_plot_item(self.plotItem, factor)
        self._markers.setSize(7 * factor)
        self._draw_centroids()

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        bg, self._fg = scheme_colours(scheme)
        self.setBackground(bg)
        style_plot_item(self.plotItem, self._fg)
        self._draw_centroids()


class IterationAxis(pg.AxisItem):
    """An axis of counts (iterations): ticks on whole numbers only, written as such, and
    never an "(x0.001)" scale in the label, however short the run."""

    def __init__(self, orientation: str, **kwargs: object) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)

    def tickSpacing(self, minVal: float, maxVal: float,  # noqa: N802, N803 (pyqtgraph's)
                    size: float) -> list[tuple[float, float]]:
        levels = [(float(round(spacing)), 0.0)
                  for spacing, _offset in super().tickSpacing(minVal, maxVal, size)
                  if spacing >= 1 - 1e-9 and abs(spacing - round(spacing)) < 1e-9]
        return levels or [(1.0, 0.0)]

    def tickStrings(self, values: list[float], scale: float,  # noqa: N802 (pyqtgraph's)
                    spacing: float) -> list[str]:
        return [f"{round(v * scale):d}" for v in values]


class DistortionPlot(pg.PlotWidget):
    """Distortion (the mean squared distance) per iteration, the current iteration marked."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent, axisItems={"bottom": IterationAxis("bottom")})
        self.setObjectName("distortionPlot")
        self.setMinimumSize(*DISTORTION_MIN_SIZE)
        self._scale = 1.0
        self._fg = scheme_colours("dark")[1]
        self._history = np.empty(0)
        self._current: int | None = None
        self.plotItem.setLabel("bottom", "iteration")
        self.plotItem.setLabel("left", "mean squared distance")
        self.plotItem.showGrid(x=True, y=True, alpha=0.25)
        self._curve = pg.PlotDataItem(symbol="o")
        self._marker = pg.ScatterPlotItem(symbol="o", brush=pg.mkBrush(cluster_colour(1)))
        self._marker.setZValue(10)
        self._line = pg.InfiniteLine(angle=90, movable=False,
                                     pen=pg.mkPen((180, 180, 180), style=Qt.PenStyle.DashLine))
        self._line.setVisible(False)
        self.plotItem.addItem(self._curve)
        self.plotItem.addItem(self._marker)
        self.plotItem.addItem(self._line, ignoreBounds=True)
        self.set_presentation_scale(1.0)

    def set_history(self, distortion: Sequence[float] | np.ndarray) -> None:
        """Distortion after each iteration (index = iteration)."""
        self._history = np.asarray(distortion, dtype=float).reshape(-1)
        self._curve.setData(np.arange(len(self._history)), self._history)
        if self._current is not None and self._current >= len(self._history):
            self._current = None
        self.set_current(self._current)
        # Iterations 0 .. last, and at least 0 .. 1: a run that stops at once would
        # otherwise get a span of +-0.5 (the view's arbitrary span for a single x).
        vb = self.plotItem.vb
        vb.setXRange(0, max(len(self._history) - 1, 1), padding=VIEW_PADDING)
        # pyqtgraph fits the axes only when it next paints: a hidden or not yet painted
        # plot would keep its old range (0-1 on a fresh one) for whoever reads or exports it.
        vb.enableAutoRange(axis=pg.ViewBox.YAxis)
        vb.updateAutoRange()

    def set_current(self, i: int | None) -> None:
        """Mark iteration ``i`` (the scrubber's position); None clears the mark."""
        if i is not None and not 0 <= i < len(self._history):
            raise IndexError(f"iteration {i} of {len(self._history)}")
        self._current = i
        if i is None:
            self._marker.setData([], [])
            self._line.setVisible(False)
            return
        self._marker.setData([i], [self._history[i]])
        self._line.setValue(i)
        self._line.setVisible(True)

    def current_marker(self) -> tuple[float, float] | None:
        x, y = self._marker.getData()
        return (float(x[0]), float(y[0])) if len(x) else None

    def set_presentation_scale(self, factor: float) -> None:
        """Scale fonts, the line and the markers (and the height they need)."""
        self._scale = float(factor)
        grow = max(self._scale, 1.0)
        self.setMinimumSize(round(DISTORTION_MIN_SIZE[0] * grow),
                            round(DISTORTION_MIN_SIZE[1] * grow))
        scale_plot_item(self.plotItem, factor)
        colour = QtGui.QColor(cluster_colour(0))
        self._curve.setPen(pg.mkPen(colour, width=2 * factor))
        self._curve.setSymbolSize(6 * factor)
        self._curve.setSymbolBrush(pg.mkBrush(colour))
        self._marker.setSize(14 * factor)
        self._marker.setPen(pg.mkPen(self._fg, width=2 * factor))

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        bg, self._fg = scheme_colours(scheme)
        self.setBackground(bg)
        style_plot_item(self.plotItem, self._fg)
        self.set_presentation_scale(self._scale)
