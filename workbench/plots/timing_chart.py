"""Timing chart: grouped bars on a log axis, or a log-log size sweep with the crossover.

Both views plot log10 of seconds themselves (bars do not support pyqtgraph's log
mode) and label the ticks in ns/µs/ms/s, so a reader never converts exponents.
The inputs are small frozen dataclasses; the panel converts engine results into them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui
from PySide6.QtCore import Qt

from workbench.plots.palette import OKABE_ITO
from workbench.plots.presentation import (
    BASE_FONT_PT,
    font,
    scale_plot_item,
    scheme_colours,
    style_plot_item,
)

MODE_ORDER = ("eager", "jit", "numpy")
MODE_COLOURS = {"eager": OKABE_ITO[1], "jit": OKABE_ITO[0], "numpy": OKABE_ITO[2]}
DEVICE_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
                 Qt.PenStyle.DashDotLine)
DEVICE_SYMBOLS = ("o", "s", "t", "d", "+")
# Pixels at presentation scale 1: room for the vertical axis title, a few decades of
# ticks and the bars' value labels (at ~40 px the title and the labels were cut off).
MIN_SIZE = (280, 200)


@dataclass(frozen=True)
class TimingBar:
    """One measured mode on one device (``mode`` "numpy" for the baseline, device "host")."""

    device: str
    mode: str
    median_s: float
    std_s: float = 0.0


@dataclass(frozen=True)
class SweepRow:
    size: int
    device: str
    mode: str
    median_s: float


@dataclass(frozen=True)
class Crossover:
    """The size where ``jit`` becomes faster than ``eager`` on ``device`` (None: no crossing)."""

    device: str
    size: float | None
    note: str


def format_seconds(seconds: float) -> str:
    """``2.2e-4`` -> ``220 µs``: three significant digits in the unit that fits."""
    if not math.isfinite(seconds) or seconds <= 0:
        return "0 s" if seconds == 0 else str(seconds)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale * 0.9995 or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def format_size(size: float) -> str:
    """``1000`` -> ``1k``, ``2.5e6`` -> ``2.5M``."""
    for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if size >= scale:
            return f"{size / scale:.3g}{suffix}"
    return f"{size:.3g}"


def _log_ticks(lo: float, hi: float) -> list[tuple[float, list[float]]]:
    """Decades as major ticks; 2x and 5x as well when less than two decades show."""
    majors = [float(k) for k in range(math.ceil(lo), math.floor(hi) + 1)]
    minors: list[float] = []
    if len(majors) < 3:
        for k in range(math.floor(lo), math.ceil(hi) + 1):
            for m in (2, 5):
                v = k + math.log10(m)
                if lo <= v <= hi:
                    minors.append(v)
    return [(1.0, majors), (0.5, minors)]


class LogSecondsAxis(pg.AxisItem):
    """An axis whose values are log10(seconds), labelled in ns/µs/ms/s."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 (pyqtgraph API)
        return _log_ticks(minVal, maxVal)

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [format_seconds(10.0**v) for v in values]


class LogSizeAxis(pg.AxisItem):
    """An axis whose values are log10(size), labelled 1, 10, 100, 1k, ..."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803
        return _log_ticks(minVal, maxVal)

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [format_size(10.0**v) for v in values]


R = TypeVar("R")


def _coerce(row: object, cls: type[R], fields: Sequence[str]) -> R:
    if isinstance(row, cls):
        return row
    if isinstance(row, Mapping):
        return cls(**{k: row[k] for k in fields if k in row})
    return cls(*row)  # type: ignore[misc]  # a (device, mode, ...) tuple


def as_bars(rows: Iterable[TimingBar | Mapping[str, object] | Sequence[object]]) -> list[TimingBar]:
    """TimingBar rows from dataclasses, dicts or (device, mode, median_s[, std_s]) tuples."""
    return [_coerce(r, TimingBar, ("device", "mode", "median_s", "std_s")) for r in rows]


def as_sweep(rows: Iterable[SweepRow | Mapping[str, object] | Sequence[object]]) -> list[SweepRow]:
    """SweepRow rows from dataclasses, dicts or (size, device, mode, median_s) tuples."""
    return [_coerce(r, SweepRow, ("size", "device", "mode", "median_s")) for r in rows]


def find_crossovers(rows: Iterable[SweepRow], fast: str = "jit",
                    slow: str = "eager") -> list[Crossover]:
    """Per device, the first size where ``fast`` overtakes ``slow``, log-interpolated."""
    table: dict[str, dict[str, dict[int, float]]] = {}
    for r in rows:
        table.setdefault(r.device, {}).setdefault(r.mode, {})[r.size] = r.median_s
    out = []
    for device, modes in table.items():
        a, b = modes.get(fast, {}), modes.get(slow, {})
        sizes = sorted(set(a) & set(b))
        if not sizes:
            out.append(Crossover(device, None, f"no {fast} and {slow} at the same sizes"))
            continue
        # d > 0 where `fast` is faster; the crossing is the first step from d <= 0 to d > 0.
        d = [math.log(b[s]) - math.log(a[s]) for s in sizes]
        found = None
        for i in range(1, len(sizes)):
            if d[i - 1] <= 0 < d[i]:
                t = -d[i - 1] / (d[i] - d[i - 1])
                ls0, ls1 = math.log(sizes[i - 1]), math.log(sizes[i])
                found = math.exp(ls0 + t * (ls1 - ls0))
                break
        if found is not None:
            out.append(Crossover(device, found, f"{fast} faster from about {format_size(found)}"))
        elif d[0] > 0:
            out.append(Crossover(device, None, f"{fast} faster at every size"))
        else:
            out.append(Crossover(device, None, f"{slow} faster at every size"))
    return out


def _mode_colour(mode: str, index: int) -> QtGui.QColor:
    return QtGui.QColor(MODE_COLOURS.get(mode, OKABE_ITO[(3 + index) % len(OKABE_ITO)]))


def _ordered_modes(modes: Iterable[str]) -> list[str]:
    seen = list(dict.fromkeys(modes))
    return [m for m in MODE_ORDER if m in seen] + [m for m in seen if m not in MODE_ORDER]


class TimingChart(pg.GraphicsLayoutWidget):
    """Bars (``set_bars``) or a size sweep (``set_sweep``); the last one set is shown."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timingChart")
        self.setMinimumSize(*MIN_SIZE)
        self._scale = 1.0
        self._fg = scheme_colours("dark")[1]
        self._bars: list[TimingBar] = []
        self._sweep: list[SweepRow] = []
        self._crossovers: list[Crossover] = []

        self.barPlot = pg.PlotItem(axisItems={"left": LogSecondsAxis("left")})
        self.barPlot.setLabel("left", "median time per call")
        self.barPlot.showGrid(y=True, alpha=0.25)
        self.barPlot.setMouseEnabled(x=False, y=False)
        self.barPlot.hideButtons()
        self.barPlot.addLegend(offset=(-10, 10))
        self._bar_items: dict[str, pg.BarGraphItem] = {}
        self._error_items: dict[str, pg.ErrorBarItem] = {}
        self._bar_labels: list[pg.TextItem] = []

        self.sweepPlot = pg.PlotItem(axisItems={"left": LogSecondsAxis("left"),
                                                "bottom": LogSizeAxis("bottom")})
        self.sweepPlot.setLabel("left", "median time per call")
        self.sweepPlot.setLabel("bottom", "size")
        self.sweepPlot.showGrid(x=True, y=True, alpha=0.25)
        self.sweepPlot.addLegend(offset=(10, 10))
        self._sweep_items: dict[tuple[str, str], pg.PlotDataItem] = {}
        self._crossover_lines: dict[str, pg.InfiniteLine] = {}

        self._view = "bars"
        self.ci.addItem(self.barPlot, row=0, col=0)

    # -- views -----------------------------------------------------------------------------
    def view(self) -> str:
        """``"bars"`` or ``"sweep"``: which chart shows."""
        return self._view

    def show_view(self, view: str) -> None:
        if view not in ("bars", "sweep"):
            raise ValueError(view)
        if view == self._view:
            return
        self.ci.removeItem(self.barPlot if self._view == "bars" else self.sweepPlot)
        self.ci.addItem(self.barPlot if view == "bars" else self.sweepPlot, row=0, col=0)
        self._view = view

    # -- bars ------------------------------------------------------------------------------
    def set_bars(self, rows: Iterable[TimingBar | Mapping[str, object] | Sequence[object]]) -> None:
        """Grouped bars: one group per device, one bar per mode (eager, jit, baseline)."""
        bars = [b for b in as_bars(rows) if b.median_s > 0 and math.isfinite(b.median_s)]
        self._bars = bars
        devices = list(dict.fromkeys(b.device for b in bars))
        modes = _ordered_modes(b.mode for b in bars)
        logs = [math.log10(b.median_s) for b in bars]
        floor = math.floor(min(logs)) if logs else -6.0
        top = max(logs) if logs else -3.0
        width = 0.8 / max(len(modes), 1)
        for mode in [m for m in self._bar_items if m not in modes]:
            self.barPlot.removeItem(self._bar_items.pop(mode))
            self.barPlot.removeItem(self._error_items.pop(mode))
        labels: list[tuple[float, float, str]] = []
        for j, mode in enumerate(modes):
            rows_m = [b for b in bars if b.mode == mode]
            xs = np.array([devices.index(b.device) - 0.4 + width * (j + 0.5) for b in rows_m])
            ys = np.log10([b.median_s for b in rows_m])
            hi = np.log10([b.median_s + b.std_s for b in rows_m]) - ys
            lo = ys - np.log10([max(b.median_s - b.std_s, b.median_s * 1e-3) for b in rows_m])
            item = self._bar_items.get(mode)
            if item is None:
                item = pg.BarGraphItem(x=[], height=[], width=width, name=mode)
                self._bar_items[mode] = item
                self._error_items[mode] = pg.ErrorBarItem(beam=width * 0.3)
                self.barPlot.addItem(item)
                self.barPlot.addItem(self._error_items[mode])
            colour = _mode_colour(mode, j)
            item.setOpts(x=xs, y0=floor, height=ys - floor, width=width,
                         brush=pg.mkBrush(colour), pen=pg.mkPen(colour.darker(130)))
            self._error_items[mode].setData(x=xs, y=ys, top=hi, bottom=lo, beam=width * 0.3,
                                            pen=pg.mkPen(self._fg, width=self._scale))
            labels += [(x, y + h, format_seconds(b.median_s))
                       for x, y, h, b in zip(xs, ys, hi, rows_m, strict=True)]
        self._set_bar_labels(labels)
        self.barPlot.getAxis("bottom").setTicks([[(i, d) for i, d in enumerate(devices)]])
        self.barPlot.setXRange(-0.6, max(len(devices), 1) - 0.4, padding=0)
        self.barPlot.setYRange(floor, top + 0.3 + 0.25 * max(top - floor, 1.0), padding=0)
        self.barPlot.legend.setColumnCount(max(len(modes), 1))
        self._fit_bar_labels(len(devices), len(modes))
        self.show_view("bars")

    def _fit_bar_labels(self, groups: int, per_group: int) -> None:
        """Ask for the width at which the bars' value labels stand side by side in the plot."""
        shown = [t.textItem.boundingRect().width() for t in self._bar_labels if t.isVisible()]
        # One x unit per device group, its bars sharing 0.8 of it; groups + 0.2 units show.
        plot_px = max(shown, default=0.0) * max(per_group, 1) / 0.8 * (groups + 0.2)
        axis_px = self.barPlot.getAxis("left").minimumWidth()
        base = MIN_SIZE[0] * max(self._scale, 1.0)
        self.setMinimumWidth(int(max(base, plot_px + axis_px + 20 * self._scale)))

    def bar_values(self) -> dict[tuple[str, str], float]:
        """(device, mode) -> seconds, read back from the drawn bars (log10 heights)."""
        out = {}
        devices = list(dict.fromkeys(b.device for b in self._bars))
        for mode, item in self._bar_items.items():
            o = item.opts
            for x, h in zip(o["x"], o["height"], strict=True):
                device = devices[int(round(x))]
                out[(device, mode)] = 10.0 ** (o["y0"] + h)
        return out

    def bar_label_texts(self) -> list[str]:
        return [t.textItem.toPlainText() for t in self._bar_labels if t.isVisible()]

    def _set_bar_labels(self, labels: list[tuple[float, float, str]]) -> None:
        while len(self._bar_labels) < len(labels):
            t = pg.TextItem(anchor=(0.5, 1.0))
            self.barPlot.addItem(t)
            self._bar_labels.append(t)
        for i, t in enumerate(self._bar_labels):
            t.setVisible(i < len(labels))
            if i < len(labels):
                x, y, text = labels[i]
                t.setText(text, color=self._fg)
                t.setFont(font(BASE_FONT_PT * self._scale))
                t.setPos(x, y)

    # -- sweep -----------------------------------------------------------------------------
    def set_sweep(self, rows: Iterable[SweepRow | Mapping[str, object] | Sequence[object]]) -> None:
        """Log-log lines per device and mode with each device's jit/eager crossover marked."""
        sweep = [r for r in as_sweep(rows) if r.median_s > 0 and r.size > 0]
        self._sweep = sweep
        devices = list(dict.fromkeys(r.device for r in sweep))
        modes = _ordered_modes(r.mode for r in sweep)
        keys = [(d, m) for d in devices for m in modes
                if any(r.device == d and r.mode == m for r in sweep)]
        for key in [k for k in self._sweep_items if k not in keys]:
            self.sweepPlot.removeItem(self._sweep_items.pop(key))
        for key in keys:
            device, mode = key
            rows_k = sorted((r for r in sweep if (r.device, r.mode) == key), key=lambda r: r.size)
            x = np.log10([r.size for r in rows_k])
            y = np.log10([r.median_s for r in rows_k])
            item = self._sweep_items.get(key)
            if item is None:
                item = pg.PlotDataItem(name=f"{mode} · {device}")
                self._sweep_items[key] = item
                self.sweepPlot.addItem(item)
            self._style_sweep_item(key, devices, modes)
            item.setData(x, y)
        self._crossovers = find_crossovers(sweep)
        for device in [d for d in self._crossover_lines if d not in devices]:
            self.sweepPlot.removeItem(self._crossover_lines.pop(device))
        for c in self._crossovers:
            line = self._crossover_lines.get(c.device)
            if line is None:
                line = pg.InfiniteLine(angle=90, movable=False, label="",
                                       labelOpts={"position": 0.92})
                self._crossover_lines[c.device] = line
                self.sweepPlot.addItem(line, ignoreBounds=True)
            line.setVisible(c.size is not None)
            if c.size is not None:
                style = DEVICE_STYLES[devices.index(c.device) % len(DEVICE_STYLES)]
                line.setPen(pg.mkPen(self._fg, width=1.5 * self._scale, style=style))
                line.label.setColor(self._fg)
                line.setValue(math.log10(c.size))
                line.label.setFormat(f"{c.device}: jit faster ≥ {format_size(c.size)}")
        self.sweepPlot.enableAutoRange()
        self.show_view("sweep")

    def crossovers(self) -> dict[str, float | None]:
        """Device -> size where jit becomes faster than eager (None: no crossing in the sweep)."""
        return {c.device: c.size for c in self._crossovers}

    def crossover_notes(self) -> list[Crossover]:
        return list(self._crossovers)

    def sweep_data(self) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
        """(device, mode) -> (log10 size, log10 seconds) as drawn."""
        data: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        for k, item in self._sweep_items.items():
            x, y = item.getData()
            data[k] = (np.asarray(x), np.asarray(y))
        return data

    def _style_sweep_item(self, key: tuple[str, str], devices: list[str],
                          modes: list[str]) -> None:
        device, mode = key
        di, mi = devices.index(device), modes.index(mode)
        colour = _mode_colour(mode, mi)
        self._sweep_items[key].setPen(pg.mkPen(colour, width=2 * self._scale,
                                               style=DEVICE_STYLES[di % len(DEVICE_STYLES)]))
        self._sweep_items[key].setSymbol(DEVICE_SYMBOLS[di % len(DEVICE_SYMBOLS)])
        self._sweep_items[key].setSymbolSize(7 * self._scale)
        self._sweep_items[key].setSymbolBrush(pg.mkBrush(colour))
        self._sweep_items[key].setSymbolPen(None)

    # -- presentation ----------------------------------------------------------------------
    def set_presentation_scale(self, factor: float) -> None:
        """Scale fonts, line widths and markers (the window's presentation zoom)."""
        self._scale = float(factor)
        grow = max(self._scale, 1.0)
        self.setMinimumSize(int(MIN_SIZE[0] * grow), int(MIN_SIZE[1] * grow))  # set_bars widens
        scale_plot_item(self.barPlot, factor)
        scale_plot_item(self.sweepPlot, factor)
        view = self._view
        if self._bars:
            self.set_bars(self._bars)
        if self._sweep:
            self.set_sweep(self._sweep)
        self.show_view(view)
        for line in self._crossover_lines.values():
            line.label.setFont(font(BASE_FONT_PT * factor))

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        bg, self._fg = scheme_colours(scheme)
        self.setBackground(bg)
        style_plot_item(self.barPlot, self._fg)
        style_plot_item(self.sweepPlot, self._fg)
        self.set_presentation_scale(self._scale)  # redraws labels and lines in the new colour
