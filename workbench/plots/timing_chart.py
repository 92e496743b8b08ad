"""Timing chart: the steady state beside the first jit call, or a log-log size sweep.

The bars view is two plots side by side, each on a linear axis from zero, so a bar
twice as long is twice the time: the median per call of each device and mode, and
the first jit call on each device (trace, lower, compile, run once) stacked. The two
differ by orders of magnitude, hence two axes rather than one log axis, whose bars'
lengths say nothing about the ratio of the times (130 against 287 µs looked 5x).
The sweep spans decades of sizes and times, so it stays log-log, its size ticks whole
numbers. The inputs are small frozen dataclasses; the panel converts engine results.
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
# The first jit call's parts, bottom to top; running the compiled code is jit's own colour.
FIRST_CALL_PARTS = (("trace", OKABE_ITO[3]), ("lower", OKABE_ITO[4]),
                    ("compile", OKABE_ITO[5]), ("run", OKABE_ITO[0]))
DEVICE_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
                 Qt.PenStyle.DashDotLine)
DEVICE_SYMBOLS = ("o", "s", "t", "d", "+")
# Pixels at presentation scale 1: room for the vertical axis title, the ticks and the
# bars' value labels (at ~40 px the title and the labels were cut off).
MIN_SIZE = (280, 200)
BAR_WIDTH = 0.8  # of the one x unit each bar has
GROUP_GAP = 0.5  # x units between two devices' bars
STEADY_LABEL = "median per call"
FIRST_LABEL = "first jit call"


@dataclass(frozen=True)
class TimingBar:
    """One measured mode on one device (``mode`` "numpy" for the baseline, device "host")."""

    device: str
    mode: str
    median_s: float
    std_s: float = 0.0


@dataclass(frozen=True)
class FirstCall:
    """The first jit call on ``device``, split as ``timing.CompileSplit`` splits it."""

    device: str
    trace_s: float
    lower_s: float
    compile_s: float
    first_run_s: float

    def parts(self) -> tuple[float, ...]:
        """The seconds of ``FIRST_CALL_PARTS``, in order (NaN or negative counts as 0)."""
        return tuple(v if math.isfinite(v) and v > 0 else 0.0
                     for v in (self.trace_s, self.lower_s, self.compile_s, self.first_run_s))

    @property
    def total_s(self) -> float:
        return sum(self.parts())


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
    """An axis whose values are log10(size), labelled 1, 10, 100, 1k, ...: sizes count
    elements, so no tick falls below 1 (where 0.2 or 0.5 would be no size at all)."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803
        return [(spacing, [v for v in values if v >= -1e-9])
                for spacing, values in _log_ticks(minVal, maxVal)]

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


def _bar_plot(label: str) -> pg.PlotItem:
    """A plot of bars from zero on a linear seconds axis (its unit prefix chosen by range)."""
    plot = pg.PlotItem()
    plot.setLabel("left", label, units="s")
    plot.showGrid(y=True, alpha=0.25)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.addLegend(offset=(-10, 10))
    return plot


class TimingChart(pg.GraphicsLayoutWidget):
    """Bars (``set_bars``, ``set_first_calls``) or a size sweep (``set_sweep``); the last
    one set is shown."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timingChart")
        self.setMinimumSize(*MIN_SIZE)
        self._scale = 1.0
        self._fg = scheme_colours("dark")[1]
        self._bars: list[TimingBar] = []
        self._first: list[FirstCall] = []
        self._sweep: list[SweepRow] = []
        self._crossovers: list[Crossover] = []

        self.barPlot = _bar_plot(STEADY_LABEL)
        self._bar_items: dict[str, pg.BarGraphItem] = {}
        self._bar_devices: dict[str, list[str]] = {}  # per mode: the device of each bar
        self._error_items: dict[str, pg.ErrorBarItem] = {}
        self._bar_labels: list[pg.TextItem] = []
        self._bar_top = 0.0  # the highest bar (with its error bar) in seconds

        self.firstPlot = _bar_plot(FIRST_LABEL)
        self._first_items: list[pg.BarGraphItem] = []
        for name, colour in FIRST_CALL_PARTS:
            item = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, name=name,
                                   brush=pg.mkBrush(colour),
                                   pen=pg.mkPen(QtGui.QColor(colour).darker(130)))
            self._first_items.append(item)
            self.firstPlot.addItem(item)
        self._first_labels: list[pg.TextItem] = []
        self._first_top = 0.0

        self.sweepPlot = pg.PlotItem(axisItems={"left": LogSecondsAxis("left"),
                                                "bottom": LogSizeAxis("bottom")})
        self.sweepPlot.setLabel("left", STEADY_LABEL)
        self.sweepPlot.setLabel("bottom", "size")
        self.sweepPlot.showGrid(x=True, y=True, alpha=0.25)
        self.sweepPlot.addLegend(offset=(10, 10))
        self._sweep_items: dict[tuple[str, str], pg.PlotDataItem] = {}
        self._crossover_lines: dict[str, pg.InfiniteLine] = {}

        for plot in (self.barPlot, self.firstPlot, self.sweepPlot):
            # The whole line of tick text: pyqtgraph's own measure (0.8 of it) cut off the
            # descenders of device names (the p of cpu:0).
            plot.getAxis("bottom").setStyle(autoExpandTextSpace=False)
        self.barPlot.vb.sigResized.connect(self._on_bar_view_resized)
        self.firstPlot.vb.sigResized.connect(self._on_bar_view_resized)
        self._view = ""
        self.show_view("bars")

    # -- views -----------------------------------------------------------------------------
    def view(self) -> str:
        """``"bars"`` or ``"sweep"``: which chart shows."""
        return self._view

    def show_view(self, view: str) -> None:
        """Show the bars (with the first call beside them, once there is one) or the sweep."""
        if view not in ("bars", "sweep"):
            raise ValueError(view)
        wanted = self._view_items(view)
        if view == self._view and wanted == list(self.ci.items):
            return
        for item in list(self.ci.items):
            self.ci.removeItem(item)
        for col, item in enumerate(wanted):
            self.ci.addItem(item, row=0, col=col)
        self._view = view

    def _view_items(self, view: str) -> list[pg.PlotItem]:
        if view == "sweep":
            return [self.sweepPlot]
        return [self.barPlot, self.firstPlot] if self._first else [self.barPlot]

    # -- bars ------------------------------------------------------------------------------
    def set_bars(self, rows: Iterable[TimingBar | Mapping[str, object] | Sequence[object]]) -> None:
        """Grouped bars from zero: one group per device, one bar per mode measured there
        (eager, jit, baseline); a group has no gap for a mode it lacks."""
        bars = [b for b in as_bars(rows) if b.median_s > 0 and math.isfinite(b.median_s)]
        self._bars = bars
        devices = list(dict.fromkeys(b.device for b in bars))
        modes = _ordered_modes(b.mode for b in bars)
        placed: dict[str, list[tuple[float, TimingBar]]] = {m: [] for m in modes}
        ticks: list[tuple[float, str]] = []
        x = 0.0
        for device in devices:
            mine = sorted((b for b in bars if b.device == device),
                          key=lambda b: modes.index(b.mode))
            for i, b in enumerate(mine):
                placed[b.mode].append((x + i, b))
            ticks.append((x + (len(mine) - 1) / 2, device))
            x += len(mine) + GROUP_GAP
        for mode in [m for m in self._bar_items if m not in modes]:
            self.barPlot.removeItem(self._bar_items.pop(mode))
            self.barPlot.removeItem(self._error_items.pop(mode))
            self._bar_devices.pop(mode, None)
        labels: list[tuple[float, float, str]] = []
        for j, mode in enumerate(modes):
            xs = np.array([px for px, _b in placed[mode]])
            ys = np.array([b.median_s for _px, b in placed[mode]])
            std = np.array([b.std_s if math.isfinite(b.std_s) else 0.0 for _px, b in placed[mode]])
            item = self._bar_items.get(mode)
            if item is None:
                item = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, name=mode)
                self._bar_items[mode] = item
                self._error_items[mode] = pg.ErrorBarItem(beam=BAR_WIDTH * 0.3)
                self.barPlot.addItem(item)
                self.barPlot.addItem(self._error_items[mode])
            colour = _mode_colour(mode, j)
            item.setOpts(x=xs, y0=0.0, height=ys, width=BAR_WIDTH,
                         brush=pg.mkBrush(colour), pen=pg.mkPen(colour.darker(130)))
            self._bar_devices[mode] = [b.device for _px, b in placed[mode]]
            self._error_items[mode].setData(x=xs, y=ys, top=std, bottom=np.minimum(std, ys),
                                            beam=BAR_WIDTH * 0.3,
                                            pen=pg.mkPen(self._fg, width=self._scale))
            labels += [(px, y + s, format_seconds(b.median_s))
                       for (px, b), y, s in zip(placed[mode], ys, std, strict=True)]
        self._set_labels(self.barPlot, self._bar_labels, labels)
        self._bar_top = max((y for _x, y, _t in labels), default=0.0)
        self.barPlot.getAxis("bottom").setTicks([ticks])
        self.barPlot.setXRange(-0.6, max(x - GROUP_GAP, 1.0) - 0.4, padding=0)
        self._fit_width()
        self._fit_legend(self.barPlot)
        self._fit_y(self.barPlot, self._bar_top)
        self.show_view("bars")

    def set_first_calls(self, rows: Iterable[FirstCall]) -> None:
        """The first jit call per device beside the bars: trace, lower, compile and run once,
        stacked from zero (none: the bars alone, e.g. when jit was not timed)."""
        first = [r for r in rows if r.total_s > 0]
        self._first = first
        xs = np.arange(len(first), dtype=float)
        bottom = np.zeros(len(first))
        for i, item in enumerate(self._first_items):
            height = np.array([r.parts()[i] for r in first])
            item.setOpts(x=xs, y0=bottom.copy(), height=height, width=BAR_WIDTH)
            bottom += height
        self._set_labels(self.firstPlot, self._first_labels,
                         [(x, r.total_s, format_seconds(r.total_s))
                          for x, r in zip(xs, first, strict=True)])
        self._first_top = max((r.total_s for r in first), default=0.0)
        self.firstPlot.getAxis("bottom").setTicks([[(i, r.device) for i, r in enumerate(first)]])
        self.firstPlot.setXRange(-0.6, max(len(first), 1) - 0.4, padding=0)
        self._fit_width()
        self._fit_legend(self.firstPlot)
        self._fit_y(self.firstPlot, self._first_top)
        if self._view == "bars":
            self.show_view("bars")

    def _fit_y(self, plot: pg.PlotItem, top: float) -> None:
        """From zero to above the highest bar with room, in pixels, for its value label and
        the legend at the top (so neither covers a bar)."""
        height = plot.vb.height()
        label = QtGui.QFontMetricsF(font(BASE_FONT_PT * self._scale)).height() * 1.3
        legend = plot.legend.height() + 14 * self._scale if plot.legend is not None else 0.0
        free = height - label - legend
        factor = height / free if height > 0 and free > 0.3 * height else 1 / 0.3
        if height <= 0:
            factor = 1.5  # not laid out yet: the resize fits it again
        plot.setYRange(0.0, (top if top > 0 else 1e-3) * factor, padding=0)

    def _on_bar_view_resized(self, _view: object = None) -> None:
        for plot, top in ((self.barPlot, self._bar_top), (self.firstPlot, self._first_top)):
            self._fit_legend(plot)
            self._fit_y(plot, top)

    def _fit_legend(self, plot: pg.PlotItem) -> None:
        """As few legend rows as fit across the plot (one at best), filled evenly."""
        room = plot.vb.width() - 10 * self._scale
        entries = max(len(plot.legend.items), 1)
        for cols in range(entries, 0, -1):
            plot.legend.setColumnCount(cols)
            if plot.legend.width() <= room:
                break
        rows = math.ceil(entries / cols)
        plot.legend.setColumnCount(math.ceil(entries / rows))  # 2 + 2, not 3 + 1

    def _legend_width(self, plot: pg.PlotItem, cols: int) -> float:
        before = plot.legend.columnCount
        plot.legend.setColumnCount(max(1, min(cols, len(plot.legend.items))))
        width = float(plot.legend.width())
        plot.legend.setColumnCount(before)
        return width

    def _fit_width(self) -> None:
        """Ask for the width at which each value label fits over its bar and each legend,
        in two columns, beside the axis, in both bar plots."""
        need = 0.0
        for plot, labels, units in (
                (self.barPlot, self._bar_labels, self._bar_units()),
                (self.firstPlot, self._first_labels, len(self._first) + 0.2)):
            shown = [t.textItem.boundingRect().width() for t in labels if t.isVisible()]
            # room beside it, and for the axis to widen once its ticks are painted
            legend = self._legend_width(plot, 2) + 18 * self._scale
            axis = plot.getAxis("left").minimumWidth()
            width = axis + max(max(shown, default=0.0) * units, legend)
            plot.setMinimumWidth(width)  # the layout shares out the rest, never below this
            if plot is self.barPlot or self._first:
                need += width
        base = MIN_SIZE[0] * max(self._scale, 1.0)
        self.setMinimumWidth(int(max(base, need + 10 * self._scale)))

    def _bar_units(self) -> float:
        """The x units the bar plot shows: one a bar, the gaps, the margins."""
        groups = len(dict.fromkeys(b.device for b in self._bars))
        return len(self._bars) + GROUP_GAP * max(groups - 1, 0) + 0.2

    def bar_values(self) -> dict[tuple[str, str], float]:
        """(device, mode) -> seconds, read back from the drawn bars (heights from zero)."""
        out = {}
        for mode, item in self._bar_items.items():
            o = item.opts
            for device, h in zip(self._bar_devices[mode], o["height"], strict=True):
                out[(device, mode)] = float(o["y0"] + h)
        return out

    def bar_lengths_px(self) -> dict[tuple[str, str], float]:
        """(device, mode) -> each bar's length on screen in pixels, from its drawn ends."""
        vb = self.barPlot.vb
        out = {}
        for mode, item in self._bar_items.items():
            o = item.opts
            for device, x, h in zip(self._bar_devices[mode], o["x"], o["height"], strict=True):
                base = vb.mapViewToScene(QtCore.QPointF(x, o["y0"]))
                end = vb.mapViewToScene(QtCore.QPointF(x, o["y0"] + h))
                out[(device, mode)] = abs(base.y() - end.y())
        return out

    def first_call_values(self) -> dict[str, dict[str, float]]:
        """device -> part ("trace", "lower", "compile", "run") -> seconds, as stacked."""
        out: dict[str, dict[str, float]] = {}
        for (name, _c), item in zip(FIRST_CALL_PARTS, self._first_items, strict=True):
            for r, h in zip(self._first, item.opts["height"], strict=True):
                out.setdefault(r.device, {})[name] = float(h)
        return out

    def bar_label_texts(self) -> list[str]:
        return [t.textItem.toPlainText() for t in self._bar_labels if t.isVisible()]

    def first_call_label_texts(self) -> list[str]:
        return [t.textItem.toPlainText() for t in self._first_labels if t.isVisible()]

    def legend_texts(self) -> list[str]:
        """The entries of the legends shown, steady-state plot first."""
        return [label.text for plot in self._view_items(self._view) if plot.legend is not None
                for _sample, label in plot.legend.items]

    def _set_labels(self, plot: pg.PlotItem, items: list[pg.TextItem],
                    labels: list[tuple[float, float, str]]) -> None:
        while len(items) < len(labels):
            t = pg.TextItem(anchor=(0.5, 1.0))
            plot.addItem(t)
            items.append(t)
        for i, t in enumerate(items):
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
        self.setMinimumSize(int(MIN_SIZE[0] * grow), int(MIN_SIZE[1] * grow))  # bars widen it
        for plot in (self.barPlot, self.firstPlot, self.sweepPlot):
            scale_plot_item(plot, factor)
        view = self._view
        if self._bars:
            self.set_bars(self._bars)
        self.set_first_calls(self._first)
        if self._sweep:
            self.set_sweep(self._sweep)
        self.show_view(view)
        for line in self._crossover_lines.values():
            line.label.setFont(font(BASE_FONT_PT * factor))

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        bg, self._fg = scheme_colours(scheme)
        self.setBackground(bg)
        for plot in (self.barPlot, self.firstPlot, self.sweepPlot):
            style_plot_item(plot, self._fg)
        self.set_presentation_scale(self._scale)  # redraws labels and lines in the new colour
