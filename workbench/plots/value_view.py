"""The value of one jaxpr variable: its summary at once, then a picture for its rank.

The panel feeds it: ``show_value`` with the engine's summary (the histogram needs
nothing more), ``show_array`` once the full array it asked for arrives, and
``show_carry`` for a loop's scalar carry over its iterations. A 1-D array is a line,
a 2-D one a heatmap with a colour bar, more dimensions one of the last two axes with a
spin box per leading axis, a scalar in large type; a histogram and a small table too.

Every pyqtgraph item is built once; new data only goes through ``setData`` /
``setImage``. A long line is downsampled to the pixels it covers and clipped to the
view, and a large image is downsampled by the ImageItem, so a 1e6-element array
stays responsive. NaN and Inf never reach a colour scale: they are gaps with
markers on a line and cells of their own colour in a heatmap. The words and numbers
that need no Qt (summary lines, counts, colour levels) are ``graph.value_text``.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Qt

from workbench.api.values import (
    HIST_BINS,
    ArrayValue,
    CarryTrace,
    ValueSummary,
    fmt_number,
    short_dtype,
)
from workbench.graph.value_text import (
    bad_counts,
    bad_text,
    hist_edges,
    levels,
    ordinal,
    plottable,
    scalar_text,
    shape_text,
    stride_note,
    summary_text,
)
from workbench.plots.palette import OKABE_ITO
from workbench.plots.presentation import (
    BASE_FONT_PT,
    BASE_LABEL_PT,
    FittedLabel,
    breakable,
    font,
    scale_plot_item,
    scheme_colours,
    style_plot_item,
)

__all__ = ["PICTURE_KINDS", "TABLE_MAX", "IndexAxis", "ValueView"]

PICTURE_KINDS = ("none", "histogram", "line", "heatmap", "scalar", "carry")
TABLE_MAX = 64  # elements; a larger array has no table
SYMBOLS_MAX = 200  # points; a longer line or carry trace drops its markers
MARKERS_MAX = 10_000  # non-finite positions marked on a line; the counts say the rest
SCALAR_FONT_FACTOR = 2.6
TAB_TITLES = {"histogram": "Histogram", "line": "Line", "heatmap": "Heatmap", "scalar": "Value"}
# Colours of non-finite cells, off both maps (cividis and CET-CBD1 run blue to yellow) and
# apart in lightness too; small slices also write NaN / +∞ / −∞ in those cells.
NAN_RGBA = (255, 0, 255, 255)
POS_INF_RGBA = (200, 0, 0, 255)
NEG_INF_RGBA = (0, 0, 0, 255)
NONFINITE_LEGEND = "NaN cells magenta, +Inf red, −Inf black"
CELL_LABELS_MAX_SIDE = 16  # a slice at most this many cells a side labels its NaN/Inf cells
WARNING_COLOURS = {"light": "#B34700", "dark": "#FF9F5A"}  # Okabe-Ito vermillion, per scheme
LINE_COLOUR = OKABE_ITO[0]
HIST_COLOUR = OKABE_ITO[5]
CARRY_COLOUR = OKABE_ITO[2]
DIVERGING_MAP = "CET-CBD1"
SEQUENTIAL_MAP = "cividis"




class IndexAxis(pg.AxisItem):
    """An axis of whole numbers (indices, iterations, counts): integer ticks in full, never a
    fraction or a "(x0.001)" scale; ``offset`` 0.5 ticks the centres of heatmap cells."""

    def __init__(self, orientation: str, offset: float = 0.0) -> None:
        super().__init__(orientation)
        self.offset = offset
        self.enableAutoSIPrefix(False)

    def tickValues(self, minVal: float, maxVal: float, size: float  # noqa: N802,N803
                   ) -> list[tuple[float, list[float]]]:
        off = self.offset
        lo, hi = sorted((minVal - off, maxVal - off))
        levels = [(sp, [v + off for v in vals if float(v).is_integer()])
                  for sp, vals in super().tickValues(lo, hi, size)
                  if sp >= 1 and float(sp).is_integer()]
        # Zoomed in past one unit: the whole numbers in view, if any.
        return levels or [(1.0, [i + off for i in range(math.ceil(lo), math.floor(hi) + 1)])]

    def tickStrings(self, values: list[float], scale: float, spacing: float  # noqa: N802
                    ) -> list[str]:
        return [str(int(round(v - self.offset))) for v in values]


class ValueView(QtWidgets.QWidget):
    """One variable's summary and picture; the panel calls ``show_*`` and ``clear``."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("valueView")
        self._scale = 1.0
        self._scheme = "dark"
        self._fg = scheme_colours("dark")[1]
        self._kind = "none"
        self._tab_kinds: list[str] = []
        self._summary: ValueSummary | None = None
        self._raw: np.ndarray | None = None  # the array as it arrived, shaped
        self._values: np.ndarray | None = None  # the same as float64 (|z| for complex)
        self._levels = (0.0, 1.0)
        self._table_bad: list[tuple[int, int]] = []
        self._value_note = ""  # show_value's note, kept when the array arrives

        self.header = self._label("valueHeader")
        self.summary_label = self._label("valueSummary")
        self.bad_label = self._label("valueBadCounts")
        self.note_label = self._label("valueNote")

        self.tabs = QtWidgets.QTabBar()
        self.tabs.setObjectName("valueTabs")
        self.tabs.setDrawBase(False)
        self.tabs.setExpanding(False)
        self.tabs.currentChanged.connect(self._on_tab_changed)

        self.slice_row = QtWidgets.QWidget()
        self.slice_row.setObjectName("sliceChooser")
        row = QtWidgets.QHBoxLayout(self.slice_row)
        row.setContentsMargins(0, 0, 0, 0)
        self._slice_title = QtWidgets.QLabel("slice")
        row.addWidget(self._slice_title)
        self._spin_layout = QtWidgets.QHBoxLayout()
        row.addLayout(self._spin_layout)
        self._slice_text = QtWidgets.QLabel()
        self._slice_text.setObjectName("sliceText")
        row.addWidget(self._slice_text)
        row.addStretch(1)
        self._spins: list[QtWidgets.QSpinBox] = []

        self.stack = QtWidgets.QStackedWidget()
        self.stack.setObjectName("valuePictures")
        self.message = QtWidgets.QLabel()
        self.message.setObjectName("valueMessage")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.scalar_label = FittedLabel()
        self.scalar_label.setObjectName("valueScalar")

        self.histPlot = self._plot_widget("valueHistogram", "value", "count",
                                          left=IndexAxis("left"))
        self.histPlot.plotItem.setMouseEnabled(y=False)
        self._bars = pg.BarGraphItem(x0=[], x1=[], height=[])
        self.histPlot.addItem(self._bars)

        self.linePlot = self._plot_widget("valueLine", "index", "value", bottom=IndexAxis("bottom"))
        # The PlotItem hands its own modes to every curve it is given; so set them there.
        self.linePlot.plotItem.setDownsampling(auto=True, mode="peak")
        self.linePlot.plotItem.setClipToView(True)
        self._curve = pg.PlotDataItem(connect="finite")
        self._bad_marks = pg.ScatterPlotItem(pen=None)
        self._bad_marks.setZValue(10)
        self.linePlot.addItem(self._curve)
        self.linePlot.addItem(self._bad_marks)

        self.carryPlot = self._plot_widget("valueCarry", "iteration", "carry",
                                           bottom=IndexAxis("bottom"))
        self.carryPlot.plotItem.setDownsampling(auto=True, mode="peak")
        self._carry_curve = pg.PlotDataItem(connect="finite")
        self.carryPlot.addItem(self._carry_curve)
        self._carry: tuple[np.ndarray, np.ndarray] = (np.empty(0), np.empty(0))
        self.carry_error_box = QtWidgets.QCheckBox("error, log scale")
        self.carry_error_box.setObjectName("carryLogError")
        self.carry_error_box.setToolTip(
            "the distance to the last value, |x_k − x_last|, on a log axis: Newton's method "
            "doubles its correct digits per step")
        self.carry_error_box.toggled.connect(self._on_carry_error_toggled)

        self.heatmap = pg.GraphicsLayoutWidget()
        self.heatmap.setObjectName("valueHeatmap")
        self.imagePlot: pg.PlotItem = self.heatmap.addPlot(axisItems={
            "bottom": IndexAxis("bottom", 0.5), "left": IndexAxis("left", 0.5)})
        self.imagePlot.invertY(True)  # row 0 on top, as numpy prints a matrix
        self.image = pg.ImageItem(axisOrder="row-major", autoDownsample=True)
        self._overlay = pg.ImageItem(axisOrder="row-major")  # NaN/Inf cells only
        self._overlay.setZValue(5)
        self.imagePlot.addItem(self.image)
        self.imagePlot.addItem(self._overlay)
        self._cell_labels: list[pg.TextItem] = []  # a pool, grown once and reused
        self.colorbar = pg.ColorBarItem(colorMap=pg.colormap.get(SEQUENTIAL_MAP),
                                        values=(0.0, 1.0), interactive=False)
        self.colorbar.setImageItem(self.image, insert_in=self.imagePlot)
        self.heatmap.scene().sigMouseMoved.connect(self._on_heatmap_hover)

        self._pages: dict[str, QtWidgets.QWidget] = {
            "none": self.message, "histogram": self.histPlot, "line": self.linePlot,
            "heatmap": self.heatmap, "scalar": self.scalar_label, "carry": self.carryPlot,
        }
        for page in self._pages.values():
            self.stack.addWidget(page)

        self.table = QtWidgets.QTableWidget()
        self.table.setObjectName("valueTable")
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.splitter = QtWidgets.QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.stack)
        self.splitter.addWidget(self.table)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        for w in (self.header, self.summary_label, self.bad_label, self.note_label, self.tabs,
                  self.slice_row, self.carry_error_box):
            layout.addWidget(w)
        layout.addWidget(self.splitter, 1)

        self.set_scheme("dark")
        self.set_presentation_scale(1.0)
        self.clear()

    # -- building ----------------------------------------------------------------------------
    @staticmethod
    def _label(name: str) -> QtWidgets.QLabel:
        label = QtWidgets.QLabel()
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setMinimumWidth(1)  # a long equation wraps to the width there is, never widens
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    @staticmethod
    def _plot_widget(name: str, bottom: str, left: str, /, **axes: pg.AxisItem) -> pg.PlotWidget:
        w = pg.PlotWidget(axisItems=axes)
        w.setObjectName(name)
        w.plotItem.setLabel("bottom", bottom)
        w.plotItem.setLabel("left", left)
        w.plotItem.showGrid(x=True, y=True, alpha=0.25)
        return w

    # -- public API --------------------------------------------------------------------------
    def title(self) -> str:
        """The header as given (without the places to wrap it has on screen)."""
        return self.header.text().replace("\u200b", "")

    def show_value(self, title: str, summary: ValueSummary | None, note: str = "") -> None:
        """A variable's header and summary, and the picture the summary alone allows.

        ``summary`` None: the variable was not evaluated; ``note`` says why (shown either way).
        """
        self._reset_data()
        self._summary = summary
        self._value_note = note
        self.header.setText(breakable(title))
        self._set_note(note)
        if summary is None:
            self.summary_label.setText("not evaluated")
            self._set_bad("")
            self._show_message("not evaluated" + (f"\n{note}" if note else ""))
            self._set_tabs([])
            return
        self.summary_label.setText(summary_text(summary))
        self._set_bad(bad_text(summary.nan, summary.inf))
        if summary.shape == () and summary.preview:
            self.scalar_label.setText(scalar_text(summary.preview[0], summary.dtype))
            self._show_page("scalar")
        elif any(summary.hist):  # all-zero bins: nothing finite to count
            self._set_histogram(summary)
            self._show_page("histogram")
        else:
            self._show_message("empty array: nothing to draw" if summary.size == 0
                               else "no finite values to draw")
        self._set_tabs([self._kind] if self._kind != "none" else [])

    def show_array(self, value: ArrayValue) -> None:
        """The full array: a picture for its rank, a histogram tab, a table when small.

        Keeps the header, summary and note of ``show_value``. An array that does not fit
        its shape, or not the shape of the summary shown (a late reply for another
        variable), is refused with a note and the current picture stays.
        """
        raw = np.asarray(value.data)
        size = math.prod(value.shape)
        if value.stride > 1:
            if raw.ndim != 1:
                self._set_note(f"a strided array arrives flattened; this one has shape "
                               f"{raw.shape}")
                return
        elif raw.size != size:
            self._set_note(f"the array arrived with {raw.size:,} elements; "
                           f"{shape_text(value.shape)} has {size:,}")
            return
        else:
            raw = raw.reshape(value.shape)
        s = self._summary
        if s is not None and s.shape != value.shape:
            self._set_note(f"an array of {shape_text(value.shape)} arrived for a variable of "
                           f"{shape_text(s.shape)}; not shown")
            return
        self._reset_data()
        values = plottable(raw)
        if s is None:  # no summary to keep: say what the array itself tells
            many = "element" if size == 1 else "elements"
            self.summary_label.setText(
                f"{short_dtype(value.dtype)}[{','.join(map(str, value.shape))}]   "
                f"{shape_text(value.shape)}   {value.dtype}   {size:,} {many}")
            self._set_bad(bad_text(*bad_counts(values)) if values is not None
                          else "")
        notes = [self._value_note] if self._value_note else []
        if value.stride > 1:
            notes.append(stride_note(value.stride, size))
        if raw.dtype.kind == "c":
            notes.append("|z| (the magnitude) drawn")
        self._raw, self._values = raw, values
        self._fill_table(raw if value.stride == 1 and 1 <= size <= TABLE_MAX and raw.ndim
                         else None)
        if values is None:
            self._set_note("; ".join([*notes, f"no picture for {value.dtype}"]))
            self._show_message(f"no picture for {value.dtype}")
            self._set_tabs([])
            return
        if values.size == 0:
            self._set_note("; ".join(notes))
            self._show_message("empty array: nothing to draw")
            self._set_tabs([])
            return
        finite = values[np.isfinite(values)]
        self._set_array_histogram(finite)
        if values.ndim == 0:
            self.scalar_label.setText(str(raw[()]))
            kind = "scalar"
        elif values.ndim == 1:
            x = np.arange(values.size, dtype=np.float64) * value.stride
            self._set_line(x, values)
            self.linePlot.plotItem.setLabel("bottom", "flat index" if value.stride > 1
                                            else "index")
            kind = "line"
        else:
            lo, hi, diverging = levels(finite)
            self._levels = (lo, hi)
            self.colorbar.setColorMap(DIVERGING_MAP if diverging else SEQUENTIAL_MAP)
            self._set_spins(values.shape[:-2])
            self.imagePlot.setLabel("bottom", f"axis {values.ndim - 1}")
            self.imagePlot.setLabel("left", f"axis {values.ndim - 2}")
            self._draw_slice()
            if finite.size < values.size:
                notes.append(NONFINITE_LEGEND)
            kind = "heatmap"
        self._set_note("; ".join(notes))
        self._show_page(kind)
        self._set_tabs([kind] if kind == "scalar" else [kind, "histogram"])
        self.slice_row.setVisible(kind == "heatmap" and values.ndim > 2)

    def show_carry(self, trace: CarryTrace, name: str, note: str = "") -> None:
        """A loop's scalar carry over its iterations (a Newton iteration converging);
        ``note`` says more about the loop (how many iterations it ran)."""
        self._reset_data()
        self._summary = None
        self._value_note = ""
        steps = np.asarray(trace.steps).reshape(-1)
        values = np.asarray(trace.values, dtype=np.float64).reshape(-1)
        self.header.setText(f"{name}: loop carry {trace.position} over its iterations")
        self._set_tabs([])
        if steps.size != values.size or not steps.size:
            self.summary_label.setText("")
            self._set_bad("")
            self._set_note(f"a carry trace needs as many steps as values: "
                           f"{steps.size:,} steps, {values.size:,} values")
            self._show_message("no carry trace to draw")
            return
        self.summary_label.setText(
            f"{steps.size:,} points, iterations {int(steps[0]):,}–{int(steps[-1]):,}   "
            f"first {fmt_number(float(values[0]))}   last {fmt_number(float(values[-1]))}")
        bad = np.flatnonzero(~np.isfinite(values))
        self._set_bad(f"not finite from iteration {int(steps[bad[0]]):,}" if bad.size else "")
        thinned = f"every {ordinal(trace.stride)} iteration shown" if trace.stride > 1 else ""
        self._set_note("; ".join(t for t in (note, thinned) if t))
        self._carry = (steps.astype(np.float64), values)
        self._carry_curve.setSymbol("o" if steps.size <= SYMBOLS_MAX else None)
        self._draw_carry()
        self._show_page("carry")
        self.carry_error_box.setVisible(True)

    def _on_carry_error_toggled(self, _on: bool) -> None:
        self._draw_carry()

    def _draw_carry(self) -> None:
        steps, values = self._carry
        item = self.carryPlot.plotItem
        if self.carry_error_box.isChecked() and values.size:
            err = np.abs(values - values[-1])
            # log10 here rather than pyqtgraph's log mode: zeros (the last point) become gaps
            with np.errstate(divide="ignore", invalid="ignore"):
                y = np.where(err > 0, np.log10(err), np.nan)
            item.setLabel("left", "log₁₀ |x − x_last|")
        else:
            y = values
            item.setLabel("left", "carry")
        self._carry_curve.setData(steps, y, connect="finite")
        self._fit(item)

    def clear(self, message: str = "") -> None:
        """Nothing selected (or nothing valid): ``message`` where the picture goes."""
        self._reset_data()
        self._summary = None
        self._value_note = ""
        self.header.setText("")
        self.summary_label.setText("")
        self._set_bad("")
        self._set_note("")
        self._set_tabs([])
        self._show_message(message)

    def picture_kind(self) -> str:
        """What the picture area shows: one of ``PICTURE_KINDS``."""
        return self._kind

    def available_pictures(self) -> list[str]:
        """The kinds the tabs offer for the current value (empty when there is one only)."""
        return list(self._tab_kinds)

    def set_picture(self, kind: str) -> None:
        """Show ``kind`` (a tab's kind, e.g. ``"histogram"`` for a full array)."""
        if kind not in self._tab_kinds:
            raise ValueError(f"no {kind!r} picture here; there is {self._tab_kinds or 'none'}")
        self.tabs.setCurrentIndex(self._tab_kinds.index(kind))

    # -- read back (tests and the panel) -----------------------------------------------------
    def line_data(self) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) given to the line, before downsampling; non-finite y are NaN gaps."""
        x, y = self._curve.getOriginalDataset()
        return (np.empty(0), np.empty(0)) if x is None else (x, y)

    def line_points_drawn(self) -> int:
        """How many points the line draws after downsampling and clipping to the view."""
        x, _ = self._curve.getData()
        return 0 if x is None else len(x)

    def nonfinite_marks(self) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) of the markers for NaN/Inf on the line."""
        x, y = self._bad_marks.getData()
        return np.asarray(x), np.asarray(y)

    def image_data(self) -> np.ndarray:
        """The 2-D slice the heatmap shows (float; NaN/Inf as they are)."""
        if self._values is None or self._values.ndim < 2:
            return np.empty((0, 0))
        return self._values[self.slice_index()]

    def overlay_rgba(self) -> np.ndarray | None:
        """The RGBA layer colouring NaN/Inf cells, None when the slice has none."""
        return self._overlay.image if self._overlay.isVisible() else None

    def histogram_data(self) -> tuple[np.ndarray, np.ndarray]:
        """(bin edges, counts) as drawn."""
        o = self._bars.opts
        x0, x1 = np.asarray(o["x0"], dtype=float), np.asarray(o["x1"], dtype=float)
        edges = np.append(x0, x1[-1:]) if x0.size else x0
        return edges, np.asarray(o["height"])

    def carry_data(self) -> tuple[np.ndarray, np.ndarray]:
        """(steps, y) as drawn: the carry, or log10 of its distance to the last value."""
        x, y = self._carry_curve.getOriginalDataset()
        return (np.empty(0), np.empty(0)) if x is None else (x, y)

    def slice_spin_boxes(self) -> list[QtWidgets.QSpinBox]:
        """The spin boxes choosing the leading axes' indices (visible ones only)."""
        n = 0 if self._values is None else max(self._values.ndim - 2, 0)
        return self._spins[:n]

    def slice_index(self) -> tuple[int, ...]:
        return tuple(s.value() for s in self.slice_spin_boxes())

    def value_text(self, i: int, j: int) -> str:
        """The heatmap's tooltip for cell (row ``i``, column ``j``) of the current slice."""
        if self._raw is None or self._raw.ndim < 2:
            return ""
        idx = (*self.slice_index(), i, j)
        return f"x[{', '.join(map(str, idx))}] = {self._raw[idx]}"

    # -- presentation ------------------------------------------------------------------------
    def set_presentation_scale(self, factor: float) -> None:
        """Scale fonts, lines and markers (the window's presentation zoom)."""
        self._scale = f = float(factor)
        self.header.setFont(font(BASE_LABEL_PT * f, bold=True))
        for w in (self.summary_label, self.bad_label, self.note_label, self.tabs, self.table,
                  self.message, self._slice_title, self._slice_text, *self._spins):
            w.setFont(font(BASE_FONT_PT * f))
        self.scalar_label.set_point_size(BASE_LABEL_PT * SCALAR_FONT_FACTOR * f)
        for item in (self.histPlot.plotItem, self.linePlot.plotItem, self.carryPlot.plotItem,
                     self.imagePlot):
            scale_plot_item(item, f)
        self.colorbar.axis.setTickFont(font(BASE_FONT_PT * f))
        self._curve.setPen(pg.mkPen(LINE_COLOUR, width=1.5 * f))
        self._curve.setSymbolSize(5 * f)
        self._curve.setSymbolBrush(pg.mkBrush(LINE_COLOUR))
        self._curve.setSymbolPen(None)
        self._carry_curve.setPen(pg.mkPen(CARRY_COLOUR, width=2 * f))
        self._carry_curve.setSymbolSize(6 * f)
        self._carry_curve.setSymbolBrush(pg.mkBrush(CARRY_COLOUR))
        self._carry_curve.setSymbolPen(None)
        self._bad_marks.setSize(10 * f)
        self.carry_error_box.setFont(font(BASE_FONT_PT * f))
        self._set_cell_labels(self.image_data() if self._kind == "heatmap" and max(
            self.image_data().shape) <= CELL_LABELS_MAX_SIDE else None)
        self._style_bars()
        self.table.resizeColumnsToContents()

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        self._scheme = "light" if scheme == "light" else "dark"
        bg, self._fg = scheme_colours(self._scheme)
        for w in (self.histPlot, self.linePlot, self.carryPlot, self.heatmap):
            w.setBackground(bg)
        for item in (self.histPlot.plotItem, self.linePlot.plotItem, self.carryPlot.plotItem,
                     self.imagePlot):
            style_plot_item(item, self._fg)
        self.colorbar.axis.setPen(self._fg)
        self.colorbar.axis.setTextPen(self._fg)
        warn = self.warning_colour()
        self.bad_label.setStyleSheet(f"color: {warn.name()}; font-weight: bold;")
        self._bad_marks.setBrush(pg.mkBrush(warn))
        self._style_bars()
        self._colour_table_cells()

    def scheme(self) -> str:
        return self._scheme

    def warning_colour(self) -> QtGui.QColor:
        """The colour of NaN/Inf counts, markers and table cells in the current scheme."""
        return QtGui.QColor(WARNING_COLOURS[self._scheme])

    # -- internals ---------------------------------------------------------------------------
    def _reset_data(self) -> None:
        """Drop the last array (a 1e6-element line must not outlive its variable)."""
        self._raw = self._values = None
        self._curve.setData([], [])
        self._bad_marks.setData([], [])
        self._carry_curve.setData([], [])
        self._carry = (np.empty(0), np.empty(0))
        self.carry_error_box.setVisible(False)
        self.image.clear()
        self._overlay.clear()
        self._overlay.setVisible(False)
        self._set_cell_labels(None)
        self._fill_table(None)
        self.slice_row.setVisible(False)

    def _show_page(self, kind: str) -> None:
        self._kind = kind
        self.stack.setCurrentWidget(self._pages[kind])

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self._show_page("none")

    def _set_note(self, text: str) -> None:
        self.note_label.setText(text)
        self.note_label.setVisible(bool(text))

    def _set_bad(self, text: str) -> None:
        self.bad_label.setText(text)
        self.bad_label.setVisible(bool(text))

    def _set_tabs(self, kinds: list[str]) -> None:
        self._tab_kinds = list(kinds)
        self.tabs.blockSignals(True)
        while self.tabs.count():
            self.tabs.removeTab(0)
        for k in kinds:
            self.tabs.addTab(TAB_TITLES[k])
        if kinds:
            self.tabs.setCurrentIndex(kinds.index(self._kind) if self._kind in kinds else 0)
        self.tabs.blockSignals(False)
        self.tabs.setVisible(len(kinds) > 1)

    def _on_tab_changed(self, index: int) -> None:
        if 0 <= index < len(self._tab_kinds):
            kind = self._tab_kinds[index]
            self._show_page(kind)
            nd = 0 if self._values is None else self._values.ndim
            self.slice_row.setVisible(kind == "heatmap" and nd > 2)

    # histogram
    def _set_histogram(self, s: ValueSummary) -> None:
        edges = hist_edges(s.hist_lo, s.hist_hi, len(s.hist))
        self._set_bars(edges, np.asarray(s.hist, dtype=float))

    def _set_array_histogram(self, finite: np.ndarray) -> None:
        """The summary's histogram (of every element) when it is this array's, else the array's."""
        if self._summary is not None and any(self._summary.hist):
            self._set_histogram(self._summary)
        elif finite.size:
            lo, hi = float(finite.min()), float(finite.max())
            counts, edges = np.histogram(finite, bins=HIST_BINS, range=(lo, hi) if hi > lo
                                         else (lo - 0.5, hi + 0.5))
            self._set_bars(edges, counts.astype(float))
        else:
            self._set_bars(np.empty(0), np.empty(0))

    def _set_bars(self, edges: np.ndarray, heights: np.ndarray) -> None:
        self._bars.setOpts(x0=edges[:-1], x1=edges[1:], height=heights)
        self._fit(self.histPlot.plotItem)

    def _style_bars(self) -> None:
        colour = QtGui.QColor(HIST_COLOUR)
        self._bars.setOpts(brush=pg.mkBrush(colour),
                           pen=pg.mkPen(self._fg if self._scheme == "light" else colour.darker(150),
                                        width=0.5 * self._scale))

    # line
    def _set_line(self, x: np.ndarray, y: np.ndarray) -> None:
        finite = np.isfinite(y)
        # All non-finite: only their marks (pyqtgraph warns on an all-NaN curve).
        shown = (x, np.where(finite, y, np.nan)) if finite.any() else ([], [])
        self._curve.setData(*shown, connect="finite")
        self._curve.setSymbol("o" if y.size <= SYMBOLS_MAX else None)
        bad = np.flatnonzero(~finite)[:MARKERS_MAX]
        if bad.size:
            ok = y[finite]
            lo, hi = (float(ok.min()), float(ok.max())) if ok.size else (0.0, 0.0)
            yb = y[bad]
            ys = np.where(yb == np.inf, hi, lo)
            symbols = np.where(np.isnan(yb), "x", np.where(yb > 0, "t1", "t"))
            self._bad_marks.setData(x=x[bad], y=ys, symbol=list(symbols))
        else:
            self._bad_marks.setData([], [])
        self._fit(self.linePlot.plotItem)

    # heatmap
    def _set_spins(self, leading: tuple[int, ...]) -> None:
        while len(self._spins) < len(leading):
            spin = QtWidgets.QSpinBox()
            spin.setObjectName(f"sliceAxis{len(self._spins)}")
            spin.setFont(font(BASE_FONT_PT * self._scale))
            spin.valueChanged.connect(self._on_slice_changed)
            self._spin_layout.addWidget(spin)
            self._spins.append(spin)
        for k, spin in enumerate(self._spins):
            spin.blockSignals(True)
            if k < len(leading):
                spin.setRange(0, leading[k] - 1)
                spin.setValue(0)
                spin.setPrefix(f"axis {k}: ")
                spin.setToolTip(f"index along axis {k} (0 to {leading[k] - 1})")
            spin.setVisible(k < len(leading))
            spin.blockSignals(False)

    def _on_slice_changed(self, _value: int) -> None:
        self._draw_slice()

    def _draw_slice(self) -> None:
        if self._values is None or self._values.ndim < 2:
            return
        idx = self.slice_index()
        img = self._values[idx]
        finite = np.isfinite(img)
        h, w = img.shape
        self.image.setImage(np.where(finite, img, np.nan), autoLevels=False)
        self.colorbar.setLevels(self._levels)
        rect = QtCore.QRectF(0, 0, w, h)
        self.image.setRect(rect)
        if finite.all():
            self._overlay.setVisible(False)
        else:
            rgba = np.zeros((h, w, 4), dtype=np.uint8)
            rgba[np.isnan(img)] = NAN_RGBA
            rgba[img == np.inf] = POS_INF_RGBA
            rgba[img == -np.inf] = NEG_INF_RGBA
            self._overlay.setImage(rgba, autoLevels=False, levels=(0, 255))
            self._overlay.setRect(rect)
            self._overlay.setVisible(True)
        small = max(h, w) <= CELL_LABELS_MAX_SIDE
        self._set_cell_labels(img if small else None)
        # a small slice numbers every cell; a large one takes whole-number ticks at centres
        self.imagePlot.getAxis("bottom").setTicks([[(j + 0.5, str(j)) for j in range(w)]]
                                                  if small else None)
        self.imagePlot.getAxis("left").setTicks([[(i + 0.5, str(i)) for i in range(h)]]
                                                if small else None)
        n = self._values.ndim
        lead = ", ".join(map(str, idx))
        self._slice_text.setText(f"showing x[{lead}, :, :]" if n > 2 else "")
        self.imagePlot.setRange(xRange=(0, w), yRange=(0, h), padding=0.02)

    def _set_cell_labels(self, img: np.ndarray | None) -> None:
        """Write NaN / +∞ / −∞ in the non-finite cells of a small slice."""
        cells = [] if img is None else list(zip(*np.nonzero(~np.isfinite(img)), strict=True))
        while len(self._cell_labels) < len(cells):
            item = pg.TextItem(anchor=(0.5, 0.5), color=(255, 255, 255))
            item.setZValue(6)
            self.imagePlot.addItem(item)
            self._cell_labels.append(item)
        for k, item in enumerate(self._cell_labels):
            item.setVisible(k < len(cells))
            if k < len(cells) and img is not None:
                i, j = cells[k]
                v = img[i, j]
                item.setText("NaN" if np.isnan(v) else ("+∞" if v > 0 else "−∞"))
                item.setFont(font(BASE_FONT_PT * self._scale))
                item.setPos(j + 0.5, i + 0.5)

    def cell_label_texts(self) -> list[str]:
        """The NaN/Inf words written in the heatmap's cells."""
        return [t.textItem.toPlainText() for t in self._cell_labels if t.isVisible()]

    def _on_heatmap_hover(self, pos: QtCore.QPointF) -> None:
        if self._kind != "heatmap" or not self.imagePlot.vb.sceneBoundingRect().contains(pos):
            return
        h, w = self.image_data().shape
        p = self.imagePlot.vb.mapSceneToView(pos)
        j, i = int(np.floor(p.x())), int(np.floor(p.y()))
        self.heatmap.setToolTip(self.value_text(i, j) if 0 <= i < h and 0 <= j < w else "")

    # table
    def _fill_table(self, raw: np.ndarray | None) -> None:
        """All elements: a column for 1-D, else rows of the last axis labelled by the rest."""
        t = self.table
        t.clear()
        self._table_bad = []
        if raw is None:
            t.setRowCount(0)
            t.setColumnCount(0)
            t.setVisible(False)
            return
        if raw.ndim == 1:
            rows = raw.reshape(-1, 1)
            row_names = [str(i) for i in range(raw.size)]
            col_names = ["value"]
        else:
            rows = raw.reshape(-1, raw.shape[-1])
            row_names = [",".join(map(str, ix)) for ix in np.ndindex(*raw.shape[:-1])]
            col_names = [str(j) for j in range(raw.shape[-1])]
        t.setRowCount(rows.shape[0])
        t.setColumnCount(rows.shape[1])
        t.setVerticalHeaderLabels(row_names)
        t.setHorizontalHeaderLabels(col_names)
        bad = ~np.isfinite(rows) if rows.dtype.kind in "fc" else np.zeros(rows.shape, bool)
        self._table_bad = [(int(i), int(j)) for i, j in zip(*np.nonzero(bad), strict=True)]
        for i in range(rows.shape[0]):
            for j in range(rows.shape[1]):
                v = rows[i, j]
                item = QtWidgets.QTableWidgetItem(str(v))
                item.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                t.setItem(i, j, item)
        self._colour_table_cells()
        t.resizeColumnsToContents()
        t.setVisible(True)

    def _colour_table_cells(self) -> None:
        """NaN/Inf cells in the warning colour, in bold."""
        warn = self.warning_colour()
        for i, j in self._table_bad:
            item = self.table.item(i, j)
            if item is not None:
                item.setForeground(warn)
                f = item.font()
                f.setBold(True)
                item.setFont(f)

    @staticmethod
    def _fit(item: pg.PlotItem) -> None:
        # pyqtgraph fits the axes only when it next paints; a hidden plot would keep its old range.
        item.vb.enableAutoRange()
        item.vb.updateAutoRange()
