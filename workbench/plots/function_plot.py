"""A function and its derivatives: one colour per order, one line style per function.

The plot never stretches old samples: when the user pans or zooms it says which x
range it now shows (``sig_range_changed``, debounced) and the panel asks the engine
for fresh samples there. Items are built once per (function, order) and then only
``setData`` is called on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore
from PySide6.QtCore import Qt, Signal

from workbench.plots.heatmap import HessianHeatmap
from workbench.plots.palette import order_colour
from workbench.plots.presentation import (
    BASE_FONT_PT,
    scale_plot_item,
    scheme_colours,
    style_plot_item,
)

__all__ = ["FunctionPlot", "HessianHeatmap", "finite_difference_error", "gap_markers"]

LINE_STYLES = (
    Qt.PenStyle.SolidLine,
    Qt.PenStyle.DashLine,
    Qt.PenStyle.DotLine,
    Qt.PenStyle.DashDotLine,
    Qt.PenStyle.DashDotDotLine,
)
RANGE_DEBOUNCE_MS = 30
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def order_name(function: str, order: int) -> str:
    """``f``, ``f′``, ``f″``, ``f‴``, then ``f⁽⁴⁾``: the legend and readout names."""
    if order <= 3:
        return function + "′" * order if order < 2 else function + ("″" if order == 2 else "‴")
    return f"{function}⁽{str(order).translate(_SUPERSCRIPT)}⁾"


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


@dataclass
class _Series:
    style: Qt.PenStyle
    x: np.ndarray = field(default_factory=lambda: np.empty(0))
    values: dict[int, np.ndarray] = field(default_factory=dict)
    curves: dict[int, pg.PlotDataItem] = field(default_factory=dict)
    gaps: dict[int, pg.ScatterPlotItem] = field(default_factory=dict)


class FunctionPlot(pg.GraphicsLayoutWidget):
    """f and its derivatives, a crosshair readout, a tangent line and a finite-difference panel."""

    sig_range_changed = Signal(float, float)
    """The user moved the x range (debounced); re-sample the function on it."""

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
        self.plotItem.addLegend(offset=(-10, 10))
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
            series = _Series(style=LINE_STYLES[len(self._series) % len(LINE_STYLES)])
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
                self.plotItem.addItem(curve)
                self.plotItem.addItem(gaps, ignoreBounds=True)
                self._style_curve(series, order)
            curve.setData(x, y, connect="finite")
            gx, gy = gap_markers(x, y)
            series.gaps[order].setData(gx, gy)
        for order in [k for k in series.curves if k not in values]:
            self.plotItem.removeItem(series.curves.pop(order))
            self.plotItem.removeItem(series.gaps.pop(order))
        series.x, series.values = x, values
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
        """Values of every order at ``x``, interpolated linearly from the current samples."""
        series = self._series.get(function_name or self._active or "")
        if series is None:
            return {}
        return {k: interpolate(series.x, y, x) for k, y in series.values.items()}

    def set_cursor(self, x: float | None) -> None:
        """Move the crosshair (the mouse does this); ``None`` hides it."""
        self._cursor_x = x
        self._refresh_cursor()

    def readout_text(self) -> str:
        return self._readout.text

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
                item = pg.PlotDataItem(connect="finite",
                                       pen=pg.mkPen(order_colour(k), width=1.5 * self._scale))
                self._error_items[k] = item
                self.errorPlot.addItem(item)
            item.setData(x, err, connect="finite")

    def _refresh_cursor(self) -> None:
        x = self._cursor_x
        series = self._series.get(self._active or "")
        if x is None or series is None:
            self._crosshair.setVisible(False)
            self._cursor_dots.setData([], [])
            self._tangent.setVisible(False)
            self._readout.setText("")
            return
        self._crosshair.setVisible(True)
        self._crosshair.setValue(x)
        size = f"{BASE_FONT_PT * self._scale:.1f}pt"
        lines = [f"x = {x:.6g}"]
        dots_x, dots_y, brushes = [], [], []
        for name, s in self._series.items():
            values = self.readout_at(x, name)
            parts = []
            for k, v in values.items():
                colour = order_colour(k).name()
                parts.append(f"<span style='color:{colour}'>{order_name(name, k)} = {v:.6g}</span>")
                if np.isfinite(v):
                    dots_x.append(x)
                    dots_y.append(v)
                    brushes.append(pg.mkBrush(order_colour(k)))
            del s
            lines.append("&nbsp;&nbsp;".join(parts))
        self._readout.setText("<br>".join(lines), size=size, color=self._fg.name())
        self._cursor_dots.setData(dots_x, dots_y, brush=brushes)
        values = self.readout_at(x)
        slope, y0 = values.get(1, np.nan), values.get(0, np.nan)
        if self._tangent_enabled and np.isfinite(slope) and np.isfinite(y0):
            lo, hi = self.vb.viewRange()[0]
            ends = np.array([lo, hi])
            self._tangent.setData(ends, y0 + slope * (ends - x),
                                  pen=pg.mkPen(self._fg, width=1.5 * self._scale,
                                               style=Qt.PenStyle.DashLine))
            self._tangent.setVisible(True)
        else:
            self._tangent.setVisible(False)

    # -- events -------------------------------------------------------------------------------
    def _on_mouse_moved(self, pos: QtCore.QPointF) -> None:
        if self.vb.sceneBoundingRect().contains(pos):
            self.set_cursor(self.vb.mapSceneToView(pos).x())

    def _on_x_range_changed(self, *_args: object) -> None:
        if self._tangent.isVisible():
            self._refresh_cursor()
        self._range_timer.start()

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
        colour = order_colour(order)
        series.curves[order].setPen(pg.mkPen(colour, width=2.0 * self._scale, style=series.style))
        series.gaps[order].setPen(pg.mkPen(colour, width=1.5 * self._scale))
        series.gaps[order].setSize(11 * self._scale)

    def set_presentation_scale(self, factor: float) -> None:
        """Scale fonts, line widths and markers (the window's presentation zoom)."""
        self._scale = float(factor)
        scale_plot_item(self.plotItem, factor)
        scale_plot_item(self.errorPlot, factor)
        for series in self._series.values():
            for order in series.curves:
                self._style_curve(series, order)
        for k, item in self._error_items.items():
            item.setPen(pg.mkPen(order_colour(k), width=1.5 * factor))
        self._cursor_dots.setSize(8 * factor)
        self._refresh_cursor()

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        bg, self._fg = scheme_colours(scheme)
        self.setBackground(bg)
        style_plot_item(self.plotItem, self._fg)
        style_plot_item(self.errorPlot, self._fg)
        self._refresh_cursor()
