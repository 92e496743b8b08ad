"""A function and its derivatives: one colour per function, one line style per order.

The plot never stretches old samples: when the user pans or zooms it says which x
range it now shows (``sig_range_changed``, debounced) and the panel asks the engine
for fresh samples there. Items are built once per (function, order) and then only
``setData`` is called on them.

The legend sits in the layout to the right of the plot, never on the curves, and takes
more columns when its entries would not fit the height. The crosshair readout never
interpolates: it shows the engine's values at exactly the cursor's x (``sig_cursor_moved``
asks for them, ``set_point_values`` brings them), including where f is not differentiable.
A mouse moves a pixel at a time and never lands on such an x, so it snaps, within
``SNAP_PX``, to 0 and to the kinks the plot knows: those its samples show
(``sampled_kinks``) and those the engine reported (``set_known_kinks``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.LegendItem import ItemSample
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Qt, Signal

from workbench.api.curves import PointValues, order_name
from workbench.plots.heatmap import HessianHeatmap
from workbench.plots.palette import OKABE_ITO, function_colour
from workbench.plots.presentation import (
    BASE_FONT_PT,
    scale_plot_item,
    scheme_colours,
    style_plot_item,
)

__all__ = [
    "FunctionPlot",
    "HessianHeatmap",
    "finite_difference_error",
    "gap_markers",
    "order_name",
    "order_style",
    "sampled_kinks",
    "shortest_decimal",
]

LINE_STYLES = (  # f, f′, f″, f‴, f⁽⁴⁾
    Qt.PenStyle.SolidLine,
    Qt.PenStyle.DashLine,
    Qt.PenStyle.DotLine,
    Qt.PenStyle.DashDotLine,
    Qt.PenStyle.DashDotDotLine,
)
RANGE_DEBOUNCE_MS = 30
SNAP_PX = 5.0  # the mouse snaps to 0 or a kink this close, in pixels
KINK_RATIO = 8.0  # a jump this many times its neighbours' change is a kink, not a slope
KINK_TOLERANCE = 1e-3  # and at least this, times max(1, |value|) (the engine's rule too)
MAX_KINKS = 50  # more jumps than this in one curve are noise, not kinks to snap to
LINE_WIDTH = 2.0
SAMPLE_SIZE = (44.0, 16.0)  # a legend sample, long enough for a dash-dot pattern
LEGEND_MARGIN = 6.0


def order_style(order: int) -> Qt.PenStyle:
    """The line style of derivative ``order`` (0 is f itself) for every function."""
    return LINE_STYLES[order % len(LINE_STYLES)]


def interpolate(x: np.ndarray, y: np.ndarray, at: float) -> float:
    """Linear interpolation of the samples; exact at sample points; NaN outside or in a gap."""
    n = len(x)
    if n == 0 or not (x[0] <= at <= x[-1]):
        return float("nan")
    i = int(np.searchsorted(x, at))
    if i < n and x[i] == at:
        return float(y[i])
    lo, hi = i - 1, min(i, n - 1)
    t = (at - x[lo]) / (x[hi] - x[lo])
    return float(y[lo] + t * (y[hi] - y[lo]))


def gap_markers(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One marker per run of non-finite samples: mid-run in x, at its finite neighbours in y."""
    bad = ~np.isfinite(y)
    if not bad.any():
        return np.empty(0), np.empty(0)
    edges = np.diff(np.concatenate(([0], bad.view(np.int8), [0])))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)  # exclusive
    n = len(y)
    left = np.where(starts > 0, y[np.maximum(starts - 1, 0)], np.nan)
    right = np.where(ends < n, y[np.minimum(ends, n - 1)], np.nan)
    pair = np.stack([left, right])
    keep = np.isfinite(pair).any(axis=0)
    with np.errstate(invalid="ignore"):
        gy = np.nanmean(pair[:, keep], axis=0) if keep.any() else np.empty(0)
    gx = (x[starts] + x[ends - 1]) / 2
    return gx[keep], gy


def finite_difference_error(x: np.ndarray,
                            values: Mapping[int, np.ndarray]) -> dict[int, np.ndarray]:
    """|central difference of order k-1 - autodiff order k| on the sample grid, for each k.

    Zero errors become NaN so the log axis shows them as gaps instead of -inf.
    """
    out: dict[int, np.ndarray] = {}
    if len(x) < 3:
        return out
    for k in sorted(values):
        if k >= 1 and k - 1 in values:
            with np.errstate(invalid="ignore", divide="ignore"):
                err = np.abs(np.gradient(values[k - 1], x) - values[k])
            err[~(err > 0)] = np.nan
            out[k] = err
    return out


def shortest_decimal(x: float, tol: float, lo: float, hi: float) -> float:
    """The number in [lo, hi] within ``tol`` of ``x`` with the fewest decimals (``x`` itself
    if none): a kink estimated at 0.99999994 is at 1, where a lesson put it."""
    for decimals in range(-6, 16):
        r = round(x, decimals)
        if abs(r - x) <= tol and lo <= r <= hi:
            return r + 0.0  # -0.0 reads 0
    return x


def _jumps(y: np.ndarray, width: int) -> np.ndarray:
    """Start indices i where y changes from sample i to i + ``width`` by a jump: at least
    ``KINK_RATIO`` times the one-sample change just before and just after, and above
    ``KINK_TOLERANCE``."""
    with np.errstate(invalid="ignore"):
        step = np.abs(np.diff(y))
        change = np.abs(y[width:] - y[:-width])
        before = np.concatenate(([0.0], step[:len(change) - 1]))
        after = np.concatenate((step[width:], [0.0]))
        scale = np.maximum(1.0, np.maximum(np.abs(y[:-width]), np.abs(y[width:])))
        return np.flatnonzero(np.isfinite(change) & (change > KINK_TOLERANCE * scale)
                              & (change > KINK_RATIO * np.maximum(before, after)))


def _tangents_meet(x: np.ndarray, f: np.ndarray, d1: np.ndarray, i: int,
                   j: int) -> tuple[float, float]:
    """Where the tangents at samples i and j meet, and how far off that may be: exact for
    straight sides (float32 rounding only), off by about the sides' curvature otherwise."""
    a, b = float(x[i]), float(x[j])
    jump = float(d1[i] - d1[j])
    meet = (float(f[j] - f[i]) + float(d1[i]) * a - float(d1[j]) * b) / jump
    bend = max(abs(float(d1[i] - d1[i - 1])) if i >= 1 else 0.0,
               abs(float(d1[j + 1] - d1[j])) if j + 1 < len(x) else 0.0)
    err = bend * (b - a) / abs(jump) + 1e-6 * max(1.0, abs(a), abs(b))
    return meet, err


def sampled_kinks(x: np.ndarray, values: Mapping[int, np.ndarray]) -> list[float]:
    """Where f or f′ jumps between samples: the x of each kink (or step) of the curves.

    A jump is a change between neighbouring samples at least ``KINK_RATIO`` times the change
    on either side of it and above ``KINK_TOLERANCE``: a smooth curve changes by about its
    slope times the spacing, steadily, a kink by the same amount however fine the samples.
    A sample on the kink itself (JAX's derivative there is a convention, relu′(0) = 0.5)
    splits the jump over two intervals, so those count too. A kink's x is where the two
    one-sided tangents meet, or the middle for a step in f, written with the fewest decimals
    that stay within that estimate's error (relu's kink is at exactly 0, so the engine can
    say there that relu is not differentiable). Only candidates: the engine has the last word.
    """
    found: set[float] = set()
    n = len(x)
    f, d1 = values.get(0), values.get(1)
    for k, y in ((0, f), (1, d1)):
        if y is None or n < 5:
            continue
        single = _jumps(y, 1)
        double = [i for i in _jumps(y, 2) if i not in single and i + 1 not in single]
        if len(single) + len(double) > MAX_KINKS:
            continue  # noise, not kinks
        for i, width in [*((i, 1) for i in single), *((i, 2) for i in double)]:
            a, b = float(x[i]), float(x[i + width])
            est = (a + b) / 2 if width == 1 else float(x[i + 1])
            tol = (b - a) / 2
            if k == 1 and f is not None and d1 is not None:
                meet, err = _tangents_meet(x, f, d1, i, i + width)
                if math.isfinite(meet) and a <= meet <= b:
                    est, tol = meet, min(2 * err, 0.05 * (b - a) / width)
            found.add(shortest_decimal(est, tol, a, b))
    return sorted(found)


class _CurveViewBox(pg.ViewBox):
    """No x padding: auto-range on the samples then equals the sampled range, so re-sampling
    the range it reports cannot make the view creep wider and wider."""

    data_x_range: tuple[float, float] | None = None

    def suggestPadding(self, axis: int) -> float:  # noqa: N802 (Qt naming)
        return 0.0 if axis == 0 else super().suggestPadding(axis)

    def childrenBounds(self, *args, **kwargs):  # noqa: N802
        # Items add a few pixels of padding for their pen width; x must be the sampled range.
        bounds = super().childrenBounds(*args, **kwargs)
        if self.data_x_range is not None and bounds[0] is not None:
            bounds[0] = list(self.data_x_range)
        return bounds


class _LineSample(ItemSample):
    """A legend sample as long as a dash-dot pattern needs, drawn with the curve's own pen and
    scaled with the presentation zoom (pyqtgraph's is a fixed 20 px)."""

    _w, _h = SAMPLE_SIZE

    def __init__(self, item: pg.PlotDataItem) -> None:
        super().__init__(item)
        self.set_scale(1.0)

    def set_scale(self, factor: float) -> None:
        self._w, self._h = SAMPLE_SIZE[0] * factor, SAMPLE_SIZE[1] * factor
        self.setFixedWidth(self._w)
        self.setFixedHeight(self._h)
        self.update()

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802 (Qt naming)
        return QtCore.QRectF(0, 0, self._w, self._h)

    def paint(self, p: QtGui.QPainter, *args: object) -> None:
        pen = QtGui.QPen(pg.mkPen(self.item.opts["pen"]))
        if not self.item.isVisible():  # clicked off: a faint sample says it can come back
            colour = pen.color()
            colour.setAlpha(60)
            pen.setColor(colour)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.setPen(pen)
        p.drawLine(QtCore.QPointF(2, self._h / 2), QtCore.QPointF(self._w - 2, self._h / 2))


class _SideLegend(pg.LegendItem):
    """A legend that lives in the plot's layout beside the view box instead of on it.

    pyqtgraph's legend places entries row by row and sizes itself with ``setGeometry``, for a
    free-floating overlay. In a layout the layout decides the geometry, so here a change of
    entries only asks for a new size; entries run down columns (selu, selu′, selu″, then
    sigmoid...), and another column starts when they would be taller than ``max_height``.
    """

    def __init__(self) -> None:
        super().__init__(sampleType=_LineSample, verSpacing=2, frame=False)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Fixed,
                           QtWidgets.QSizePolicy.Policy.Fixed)
        self.max_height = math.inf

    def _addItemToLayout(self, sample: ItemSample, label: pg.LabelItem) -> None:  # noqa: N802
        pass  # updateSize, which pyqtgraph calls next, places every entry

    def updateSize(self) -> None:  # noqa: N802 (pyqtgraph naming)
        for i in range(self.layout.count() - 1, -1, -1):
            self.layout.removeAt(i)
        n = len(self.items)
        if n:
            row = max(max(s.preferredHeight(), label.preferredHeight()) for s, label in self.items)
            step = row + self.layout.verticalSpacing()
            fit = int(self.max_height // step) if math.isfinite(self.max_height) else n
            self.columnCount = math.ceil(n / max(1, min(fit, n)))
            self.rowCount = math.ceil(n / self.columnCount)
            for i, (sample, label) in enumerate(self.items):
                r, c = i % self.rowCount, 2 * (i // self.rowCount)
                self.layout.addItem(sample, r, c, alignment=Qt.AlignmentFlag.AlignVCenter)
                self.layout.addItem(label, r, c + 1)
        self.layout.invalidate()
        self.updateGeometry()

    def labels(self) -> list[str]:
        return [label.text for _, label in self.items]


@dataclass
class _Series:
    colour: QtGui.QColor
    x: np.ndarray = field(default_factory=lambda: np.empty(0))
    values: dict[int, np.ndarray] = field(default_factory=dict)
    curves: dict[int, pg.PlotDataItem] = field(default_factory=dict)
    gaps: dict[int, pg.ScatterPlotItem] = field(default_factory=dict)
    point: PointValues | None = None  # the engine's values at the crosshair
    kinks: list[float] = field(default_factory=list)  # from the samples (sampled_kinks)
    known_kinks: tuple[float, ...] = ()  # where the engine said f is not differentiable


@dataclass(frozen=True)
class _Reading:
    """What the readout shows for one function at the crosshair."""

    values: dict[int, float]
    defined: dict[int, bool]  # empty: nothing known beyond the values (a sample point)
    differentiable: bool = True
    note: str = ""


class FunctionPlot(pg.GraphicsLayoutWidget):
    """f and its derivatives, a crosshair readout, a tangent line and a finite-difference panel."""

    sig_range_changed = Signal(float, float)
    """The user moved the x range (debounced); re-sample the function on it."""
    sig_cursor_moved = Signal(float)
    """The crosshair moved to this x; ask the engine for the values there (``CurvesAt``)."""

    _built = False

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("functionPlot")
        self._scale = 1.0
        self._series: dict[str, _Series] = {}
        self._active: str | None = None
        self._cursor_x: float | None = None
        self._fg = scheme_colours("dark")[1]

        self.vb = _CurveViewBox()
        self.plotItem: pg.PlotItem = self.addPlot(row=0, col=0, viewBox=self.vb)
        self.plotItem.setLabel("bottom", "x")
        self.plotItem.setLabel("left", "value")
        self.plotItem.showGrid(x=True, y=True, alpha=0.25)
        # The legend goes beside the view box, in the layout, so it can neither cover a curve
        # nor be cut off by it; PlotItem still fills it from the curves' names.
        self.legend = _SideLegend()
        self.ci.addItem(self.legend, row=0, col=1)
        self.ci.layout.setAlignment(self.legend, Qt.AlignmentFlag.AlignTop
                                    | Qt.AlignmentFlag.AlignLeft)
        self.ci.layout.setColumnStretchFactor(0, 1)
        self.plotItem.legend = self.legend
        self.vb.setAutoVisible(y=True)

        self._crosshair = pg.InfiniteLine(angle=90, movable=False,
                                          pen=pg.mkPen((160, 160, 160), style=Qt.PenStyle.DashLine))
        self._crosshair.setVisible(False)
        self.plotItem.addItem(self._crosshair, ignoreBounds=True)
        self._cursor_dots = pg.ScatterPlotItem(size=8, pen=None)
        self.plotItem.addItem(self._cursor_dots, ignoreBounds=True)
        self._tangent = pg.PlotCurveItem(pen=pg.mkPen(self._fg, width=1.5,
                                                      style=Qt.PenStyle.DashLine))
        self._tangent.setVisible(False)
        self._tangent_enabled = False
        self.plotItem.addItem(self._tangent, ignoreBounds=True)
        self._readout = pg.LabelItem(justify="left")
        self._readout.setParentItem(self.vb)
        self._readout.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(8, 4))
        self.vb.sigResized.connect(self._on_view_resized)

        # The finite-difference error lives in its own small plot below, x-linked: its values
        # are many decades smaller than f and need a log axis, which a second y axis on the
        # same plot would make easy to misread.
        self.errorPlot = pg.PlotItem()
        self.errorPlot.setXLink(self.plotItem)
        self.errorPlot.setLogMode(y=True)
        self.errorPlot.setLabel("left", "|Δ−∂|")
        self.errorPlot.setLabel("bottom", "x")
        self.errorPlot.showGrid(x=True, y=True, alpha=0.25)
        self.errorPlot.setMaximumHeight(180)
        self._error_items: dict[int, pg.PlotDataItem] = {}
        self._error_enabled = False

        self._range_timer = QtCore.QTimer(self)
        self._range_timer.setSingleShot(True)
        self._range_timer.setInterval(RANGE_DEBOUNCE_MS)
        self._range_timer.timeout.connect(self._emit_range)
        self.vb.sigXRangeChanged.connect(self._on_x_range_changed)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._built = True
        self.set_presentation_scale(1.0)

    # PlotWidget's conveniences (GraphicsView has its own, different setXRange).
    def setXRange(self, lo: float, hi: float, padding: float | None = None) -> None:  # noqa: N802
        self.plotItem.setXRange(lo, hi, padding=padding)

    def setYRange(self, lo: float, hi: float, padding: float | None = None) -> None:  # noqa: N802
        self.plotItem.setYRange(lo, hi, padding=padding)

    def viewRange(self) -> list[list[float]]:  # noqa: N802
        return self.vb.viewRange()

    def getAxis(self, name: str) -> pg.AxisItem:  # noqa: N802
        return self.plotItem.getAxis(name)

    # -- data ---------------------------------------------------------------------------------
    def set_curves(self, function_name: str, x: np.ndarray, curves: Mapping[int, np.ndarray],
                   masks: Mapping[int, np.ndarray] | None = None) -> None:
        """Show ``curves[k]``, the k-th derivative of ``function_name`` sampled at ``x``.

        ``masks[k]`` marks samples to draw as gaps (the engine's non-finite masks); inf and
        NaN values are gaps anyway. A second call reuses the same items.
        """
        x = np.asarray(x, dtype=float)
        series = self._series.get(function_name)
        if series is None:
            series = _Series(colour=self._free_colour())
            self._series[function_name] = series
            if self._active is None:
                self._active = function_name
        values: dict[int, np.ndarray] = {}
        for order, y in sorted(curves.items()):
            y = np.array(y, dtype=float, copy=True)
            if y.shape != x.shape:
                raise ValueError(f"curve {order} has shape {y.shape}, x has {x.shape}")
            if masks is not None and order in masks:
                y[np.asarray(masks[order], dtype=bool)] = np.nan
            y[~np.isfinite(y)] = np.nan
            values[order] = y
            curve = series.curves.get(order)
            if curve is None:
                curve = pg.PlotDataItem(connect="finite", name=order_name(function_name, order))
                gaps = pg.ScatterPlotItem(symbol="x", pen=None)
                series.curves[order] = curve
                series.gaps[order] = gaps
                self.plotItem.addItem(curve)  # and to the legend, under its name
                self.plotItem.addItem(gaps, ignoreBounds=True)
                self._style_curve(series, order)
                self.legend.items[-1][0].set_scale(self._scale)
            curve.setData(x, y, connect="finite")
            gx, gy = gap_markers(x, y)
            series.gaps[order].setData(gx, gy)
        for order in [k for k in series.curves if k not in values]:
            self.plotItem.removeItem(series.curves.pop(order))
            self.plotItem.removeItem(series.gaps.pop(order))
        series.x, series.values = x, values
        series.kinks = sampled_kinks(x, values)
        series.point = None  # new samples may mean new parameters: those values are stale
        self._update_data_x_range()
        self._refresh_cursor()
        self._refresh_errors()

    def remove_function(self, function_name: str) -> None:
        series = self._series.pop(function_name, None)
        if series is None:
            return
        for item in [*series.curves.values(), *series.gaps.values()]:
            self.plotItem.removeItem(item)
        if self._active == function_name:
            self._active = next(iter(self._series), None)
        self._update_data_x_range()
        self._refresh_cursor()
        self._refresh_errors()

    def _free_colour(self) -> QtGui.QColor:
        """The first palette colour no plotted function has (all taken: they repeat)."""
        taken = {s.colour.name() for s in self._series.values()}
        for i in range(len(OKABE_ITO)):
            if function_colour(i).name() not in taken:
                return function_colour(i)
        return function_colour(len(self._series))

    def _update_data_x_range(self) -> None:
        spans = [(s.x[0], s.x[-1]) for s in self._series.values() if len(s.x)]
        self.vb.data_x_range = (
            (float(min(a for a, _ in spans)), float(max(b for _, b in spans))) if spans else None)

    def functions(self) -> list[str]:
        return list(self._series)

    def curve_item(self, function_name: str, order: int) -> pg.PlotDataItem:
        """The item drawing one curve (tests check it is reused)."""
        return self._series[function_name].curves[order]

    def gap_item(self, function_name: str, order: int) -> pg.ScatterPlotItem:
        return self._series[function_name].gaps[order]

    def colour(self, function_name: str) -> QtGui.QColor:
        """The colour of a function and all its derivatives."""
        return QtGui.QColor(self._series[function_name].colour)

    def legend_labels(self) -> list[str]:
        """The legend's entries, in order ("selu", "selu′", ...)."""
        return self.legend.labels()

    def set_active_function(self, function_name: str) -> None:
        """The function whose derivative draws the tangent and whose error curves are shown."""
        if function_name not in self._series:
            raise KeyError(function_name)
        self._active = function_name
        self._refresh_cursor()
        self._refresh_errors()

    def reset_view(self) -> None:
        """Follow the samples again on both axes (the view after a fresh function)."""
        self.vb.enableAutoRange(x=True, y=True)

    # -- readout, tangent, errors -------------------------------------------------------------
    def readout_at(self, x: float, function_name: str | None = None) -> dict[int, float]:
        """Values of every order at ``x``, interpolated linearly from the current samples.

        Only for comparing with the samples: the readout itself never interpolates (a kink
        between two samples would read as a value no derivative takes, relu′ = 0.2).
        """
        series = self._series.get(function_name or self._active or "")
        if series is None:
            return {}
        return {k: interpolate(series.x, y, x) for k, y in series.values.items()}

    def set_cursor(self, x: float | None) -> None:
        """Move the crosshair (the mouse does this); ``None`` hides it."""
        self._cursor_x = x
        self._refresh_cursor()
        if x is not None:
            self.sig_cursor_moved.emit(float(x))

    def cursor_x(self) -> float | None:
        return self._cursor_x

    def set_known_kinks(self, function_name: str, xs: Iterable[float]) -> None:
        """Where the engine said ``function_name`` is not differentiable (for the curves on
        screen): the mouse snaps there too."""
        series = self._series.get(function_name)
        if series is not None:
            series.known_kinks = tuple(sorted(set(xs)))

    def snap_targets(self) -> list[float]:
        """The x values the mouse snaps to within ``SNAP_PX``: 0, and every kink the plot
        knows, from the samples or from the engine."""
        targets = {0.0}
        for series in self._series.values():
            targets.update(series.kinks)
            targets.update(series.known_kinks)
        return sorted(targets)

    def snapped(self, x: float) -> float:
        """``x`` (from the mouse) moved to the nearest snap target within ``SNAP_PX`` pixels;
        else ``x``. A mouse moves in steps of a pixel, 0.003 on a range of 6, so it never
        lands on 0 exactly, where relu's derivative does not exist."""
        per_px = abs(self.vb.viewPixelSize()[0])
        if not (per_px > 0 and math.isfinite(per_px)):
            return x
        reach = SNAP_PX * per_px
        near = [t for t in self.snap_targets() if abs(t - x) <= reach]
        return min(near, key=lambda t: abs(t - x)) if near else x

    def set_point_values(self, values: PointValues) -> None:
        """The engine's values of one function at the crosshair (the answer to ``CurvesAt``);
        shown while the crosshair stays at that x and the samples stay the same."""
        series = self._series.get(values.function)
        if series is None:
            return
        series.point = values
        self._refresh_cursor()

    def cursor_values(self, function_name: str | None = None) -> dict[int, float]:
        """The values the readout shows for a function at the crosshair: the engine's at
        exactly that x; {} while they are on their way."""
        reading = self._reading(function_name or self._active or "")
        return dict(reading.values) if reading is not None else {}

    def cursor_differentiable(self, function_name: str | None = None) -> bool | None:
        """Whether f is differentiable at the crosshair; None while the engine has not said."""
        reading = self._reading(function_name or self._active or "")
        return reading.differentiable if reading is not None and reading.defined else None

    def readout_text(self) -> str:
        return self._readout.text

    def _reading(self, function_name: str) -> _Reading | None:
        """The engine's values at the cursor for one function, or None while unknown.

        A sample point needs no round trip: the samples are the engine's values at exactly
        that x. Anywhere else only ``set_point_values`` for this very x (as float32, the
        engine's precision) counts.
        """
        series = self._series.get(function_name)
        x = self._cursor_x
        if series is None or x is None or not series.values:
            return None
        orders = sorted(series.values)
        pv = series.point
        if pv is not None and pv.x == float(np.float32(x)) and pv.order >= orders[-1]:
            defined = {k: pv.defined[k] for k in orders}
            note = pv.note if (not pv.differentiable or not all(defined.values())) else ""
            return _Reading({k: pv.values[k] for k in orders}, defined, pv.differentiable, note)
        i = int(np.searchsorted(series.x, x))
        if i < len(series.x) and series.x[i] == x:
            return _Reading({k: float(series.values[k][i]) for k in orders}, {})
        return None

    def set_tangent_visible(self, on: bool) -> None:
        self._tangent_enabled = on
        self._refresh_cursor()

    def tangent_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The two end points of the tangent line (empty when hidden)."""
        if not self._tangent.isVisible():
            return np.empty(0), np.empty(0)
        x, y = self._tangent.getData()
        return np.asarray(x), np.asarray(y)

    def set_error_visible(self, on: bool) -> None:
        """Show the finite-difference error panel under the plot."""
        if on == self._error_enabled:
            return
        self._error_enabled = on
        if on:
            self.ci.addItem(self.errorPlot, row=1, col=0)
        else:
            self.ci.removeItem(self.errorPlot)
        self._fit_legend()
        self._refresh_errors()

    def error_curves(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """The error panel's data per order (x, |error|), before the log axis transforms it."""
        return {k: (np.asarray(item.xData), np.asarray(item.yData))
                for k, item in self._error_items.items() if item.xData is not None}

    def _refresh_errors(self) -> None:
        series = self._series.get(self._active or "")
        if self._error_enabled and series is not None:
            x, errors = series.x, finite_difference_error(series.x, series.values)
        else:
            x, errors = np.empty(0), {}  # no error curves: every item goes
        for k in [k for k in self._error_items if k not in errors]:
            self.errorPlot.removeItem(self._error_items.pop(k))
        for k, err in errors.items():
            item = self._error_items.get(k)
            if item is None:
                item = pg.PlotDataItem(connect="finite")
                self._error_items[k] = item
                self.errorPlot.addItem(item)
            item.setData(x, err, connect="finite")
        self._style_errors()

    def _style_errors(self) -> None:
        series = self._series.get(self._active or "")
        colour = series.colour if series is not None else self._fg
        for k, item in self._error_items.items():
            item.setPen(pg.mkPen(colour, width=0.75 * LINE_WIDTH * self._scale,
                                 style=order_style(k)))

    def _refresh_cursor(self) -> None:
        x = self._cursor_x
        if x is None or self._active not in self._series:
            self._crosshair.setVisible(False)
            self._cursor_dots.setData([], [])
            self._tangent.setVisible(False)
            self._readout.setText("")
            return
        self._crosshair.setVisible(True)
        self._crosshair.setValue(x)
        size = f"{BASE_FONT_PT * self._scale:.1f}pt"
        lines = [f"x = {x:.6g}"]
        dots_x: list[float] = []
        dots_y: list[float] = []
        brushes: list[QtGui.QBrush] = []
        for name, series in self._series.items():
            reading = self._reading(name)
            parts = []
            for k in sorted(series.values):
                if reading is None:
                    shown = "…"  # the engine's answer is on its way; never an interpolation
                elif not reading.defined.get(k, True):
                    shown = "undefined"
                else:
                    v = reading.values[k]
                    shown = f"{v + 0.0:.6g}"  # + 0.0: -0.0 reads 0
                    if np.isfinite(v):
                        dots_x.append(x)
                        dots_y.append(v)
                        brushes.append(pg.mkBrush(series.colour))
                parts.append(f"{order_name(name, k)} = {shown}")
            line = "&nbsp;&nbsp;".join(parts)
            if reading is not None and not reading.differentiable:
                line += "&nbsp;&nbsp;⚠ not differentiable here"
            if reading is not None and reading.note:
                line += f"<br>&nbsp;&nbsp;⚠ {reading.note}"
            lines.append(f"<span style='color:{series.colour.name()}'>{line}</span>")
        self._readout.setText("<br>".join(lines), size=size, color=self._fg.name())
        self._cursor_dots.setData(dots_x, dots_y, brush=brushes)
        reading = self._reading(self._active or "")
        slope = y0 = math.nan
        if reading is not None and all(reading.defined.get(k, True) for k in (0, 1)):
            slope, y0 = reading.values.get(1, math.nan), reading.values.get(0, math.nan)
        if self._tangent_enabled and np.isfinite(slope) and np.isfinite(y0):
            lo, hi = self.vb.viewRange()[0]
            ends = np.array([lo, hi])
            self._tangent.setData(ends, y0 + slope * (ends - x),
                                  pen=pg.mkPen(self._fg, width=0.75 * LINE_WIDTH * self._scale,
                                               style=Qt.PenStyle.DashLine))
            self._tangent.setVisible(True)
        else:
            self._tangent.setVisible(False)  # no tangent at a kink, none before the values

    # -- events -------------------------------------------------------------------------------
    def _on_mouse_moved(self, pos: QtCore.QPointF) -> None:
        if self.vb.sceneBoundingRect().contains(pos):
            self.set_cursor(self.snapped(self.vb.mapSceneToView(pos).x()))

    def resizeEvent(self, ev: QtGui.QResizeEvent | None) -> None:  # noqa: N802 (Qt naming)
        # GraphicsView resizes in its __init__ before ours has run, and in close() after the
        # scene (the legend with it) is gone.
        if self._built and not self.closed:
            self._fit_legend()
        super().resizeEvent(ev)

    def _on_view_resized(self, *_args: object) -> None:
        # A long note wraps within the view box instead of running off its edge.
        self._readout.item.setTextWidth(max(self.vb.width() - 16, 50.0))
        self._readout.updateMin()

    def _fit_legend(self) -> None:
        """The legend may be as tall as the widget minus the error panel; past that it takes
        another column rather than being cut off."""
        height = self.viewport().height() - 2 * LEGEND_MARGIN
        if self._error_enabled:
            height -= self.errorPlot.maximumHeight()
        self.legend.max_height = max(height, 1.0)
        self.legend.updateSize()

    def _on_x_range_changed(self, *_args: object) -> None:
        if self._tangent.isVisible():
            self._refresh_cursor()
        self._range_timer.start()

    def range_settling(self) -> bool:
        """The x range moved and ``sig_range_changed`` is still to come (debounced)."""
        return self._range_timer.isActive()

    def _emit_range(self) -> None:
        lo, hi = self.vb.viewRange()[0]
        series = self._series.get(self._active or "")
        if series is not None and len(series.x):
            tol = 1e-9 * max(abs(hi - lo), 1e-300)
            if abs(series.x[0] - lo) <= tol and abs(series.x[-1] - hi) <= tol:
                return  # the samples already cover exactly this range
        self.sig_range_changed.emit(float(lo), float(hi))

    # -- presentation -------------------------------------------------------------------------
    def _style_curve(self, series: _Series, order: int) -> None:
        series.curves[order].setPen(pg.mkPen(series.colour, width=LINE_WIDTH * self._scale,
                                             style=order_style(order)))
        series.gaps[order].setPen(pg.mkPen(series.colour, width=0.75 * LINE_WIDTH * self._scale))
        series.gaps[order].setSize(11 * self._scale)

    def set_presentation_scale(self, factor: float) -> None:
        """Scale fonts, line widths, markers and the legend (the window's presentation zoom)."""
        self._scale = float(factor)
        for sample, _label in self.legend.items:
            sample.set_scale(factor)
        scale_plot_item(self.plotItem, factor)  # the legend's labels too
        scale_plot_item(self.errorPlot, factor)
        for series in self._series.values():
            for order in series.curves:
                self._style_curve(series, order)
        self._style_errors()
        self._cursor_dots.setSize(8 * factor)
        self._fit_legend()
        self._refresh_cursor()

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        bg, self._fg = scheme_colours(scheme)
        self.setBackground(bg)
        style_plot_item(self.plotItem, self._fg)
        style_plot_item(self.errorPlot, self._fg)
        self._refresh_cursor()
