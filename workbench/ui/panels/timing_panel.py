"""The timing panel: jit vs eager per device, the first-call split, a size sweep, exports.

One ``Time`` request measures; its ``Progress`` events move the bar (and draw a
sweep as it grows). Cancel is the engine's Stop, not a superseding request: a
superseded request keeps running in the engine to its end (the client only drops
its reply), which for a sweep can keep the engine busy for a minute while plots
and traces queue behind it. Stop interrupts the kernel between two timed calls
(within milliseconds; a single call stuck in XLA past the grace period gets the
kernel restarted and the editor source reloaded). The points measured so far
stay on the chart. Stop also cancels the other panels' requests in flight; they
ask again on their next change.

The panel follows the session's loaded functions, current call and devices
(every device of every backend: "all", each platform, each device); it asks
the engine for nothing but measurements. The exports reuse the api's pure-data
conversion (``api.timing_report``), so the JSON is exactly what ``workbench
time --format json`` prints.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.api import messages as p
from workbench.api.choices import DEVICE_CHOICES, MODES
from workbench.api.devices import DeviceReport
from workbench.api.messages import reply_text
from workbench.api.timing import SweepPoint, TimingConfig, TimingReport
from workbench.api.timing_report import (
    ROW_FIELDS,
    ratio,
    recompilation_notes,
    report_json,
    table_rows,
)
from workbench.plots.export import export_png
from workbench.plots.timing_chart import SweepRow, TimingBar, TimingChart, format_seconds
from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Session
from workbench.ui.panels.banner import call_text
from workbench.ui.panels.panel import SOURCE_FAILED, Panel

NO_BASELINE = "(no baseline)"
# Measurement budgets (None: the engine's %timeit-like defaults, batches of 0.2 s,
# 7 repeats, at most 3 s per measurement).
BUDGETS: dict[str, TimingConfig | None] = {
    "standard (%timeit)": None,
    "quick": TimingConfig(min_batch_s=0.05, repeats=5, max_measure_s=1.0),
}

# (header, row key, kind): kind "s" seconds, "x" a ratio, "n" a size, "" text.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("N", "size", "n"),  # the sweep's size of the row; the header becomes the sweep's name
    ("device", "device", ""),
    ("mode", "mode", ""),
    ("mean ± std", "mean_s", "s"),
    ("min", "min_s", "s"),
    ("median", "median_s", "s"),
    ("loops × repeats", "loops", ""),
    ("trace", "trace_s", "s"),
    ("lower", "lower_s", "s"),
    ("compile", "compile_s", "s"),
    ("first run", "first_run_s", "s"),
    ("vs eager", "speedup_vs_eager", "x"),
    ("vs baseline", "speedup_vs_baseline", "x"),
    ("dispatch only", "dispatch_s", "s"),
    ("dispatch + wait", "dispatch_wait_s", "s"),
    ("transfer", "transfer_s", "s"),
)
COLUMN = {key: i for i, (_h, key, _k) in enumerate(COLUMNS)}
TIPS = {
    "size": "the size this row was measured at; the compile split, dispatch and transfer "
            "are measured at the sweep's first size only",
    "mean_s": "per call, over the repeats (as %timeit prints it)",
    "loops": "calls per run × runs; * where the measurement budget cut them short",
    "trace_s": "first jit call: Python traced to a jaxpr",
    "lower_s": "first jit call: jaxpr lowered to StableHLO",
    "compile_s": "first jit call: XLA compiles",
    "first_run_s": "first jit call: the compiled code runs once",
    "speedup_vs_eager": "eager median / this median, same device",
    "speedup_vs_baseline": "NumPy baseline median / this median",
    "dispatch_s": "a jitted call returns (asynchronous dispatch), before the result is ready",
    "dispatch_wait_s": "a jitted call returns and its result is ready (block_until_ready)",
    "transfer_s": "inputs host -> device (jax.device_put)",
}
EXPORTS = {"csv": "CSV", "json": "JSON", "png": "PNG"}
TABLE_MIN_ROWS = 3  # rows the table always has room for, below its header


class TimingConfigFields(TypedDict, total=False):
    """``TimingPanel.set_config``'s dict form: any of the ``timing.TimingConfig`` fields."""

    min_batch_s: float
    repeats: int
    max_measure_s: float
    max_loops: int
    dispatch_samples: int


def _cell_text(value: float | int | str | bool | None, kind: str) -> str:
    if value is None or isinstance(value, float) and not math.isfinite(value):
        return "—"
    if kind == "n" and isinstance(value, int):
        return f"{value:,}"
    if kind == "s" and isinstance(value, int | float):
        return format_seconds(value)
    if kind == "x":
        return f"{value:.2f}×"
    return str(value)


def report_rows(report: TimingReport) -> list[dict[str, Any]]:
    """The table's rows: ``size`` (None without a sweep) and the ``ROW_FIELDS``.

    A sweep's first size has the full rows (``table_rows``: compile split, dispatch,
    transfer); every further size adds one row per device and mode from its
    ``SweepPoint``, with NaN where the engine measured nothing at that size.
    """
    rows = table_rows(report)
    if report.sweep_name is None:
        return [{"size": None, **row} for row in rows]
    sizes = list(dict.fromkeys(pt.size for pt in report.sweep))
    first = sizes[0] if sizes else None
    out = [{"size": first, **row} for row in rows]
    for size in sizes[1:]:
        points = [pt for pt in report.sweep if pt.size == size]
        eager = {pt.device: pt.median_s for pt in points if pt.mode == "eager"}
        base = next((pt.median_s for pt in points if pt.mode == "numpy"), None)
        for pt in points:
            row: dict[str, Any] = dict.fromkeys(ROW_FIELDS, math.nan)
            row.update(
                size=size, device=pt.device, mode=pt.mode,
                function=report.baseline if pt.mode == "numpy" else report.function,
                mean_s=pt.mean_s, min_s=pt.min_s, median_s=pt.median_s, loops=pt.loops,
                repeats=pt.repeats, unstable=False, budget_limited=pt.budget_limited,
                speedup_vs_eager=ratio(eager.get(pt.device), pt.median_s),
                speedup_vs_baseline=ratio(base, pt.median_s))
            out.append(row)
    return out


def report_summary(report: TimingReport) -> str:
    """The status line: the call, and for a sweep which sizes each row and line belong to."""
    call = call_text(report.function, report.args)
    cancelled = ", cancelled" if report.cancelled else ""
    if report.sweep_name is None:
        return f"{call}: {len(report.results)} measurements{cancelled}"
    sizes = sorted({pt.size for pt in report.sweep})
    modes = list(dict.fromkeys(pt.mode for pt in report.sweep))
    devices = list(dict.fromkeys(pt.device for pt in report.sweep if pt.mode != "numpy"))
    if not sizes:
        return f"{call}: sweep of {report.sweep_name}, no size measured{cancelled}"
    span = f"{sizes[0]:,}" if len(sizes) == 1 else f"{sizes[0]:,} … {sizes[-1]:,}"
    on = f" on {len(devices)} devices" if len(devices) > 1 else ""
    return (f"{call} swept {report.sweep_name} = {span}: {len(sizes)} size"
            f"{'s' if len(sizes) != 1 else ''} × {len(modes)} mode"
            f"{'s' if len(modes) != 1 else ''}{on}{cancelled}")


class TimingPanel(Panel):
    """Measure a function jitted and eager on each device; table, chart, sweep and exports."""

    sig_report_shown = Signal(object)
    """A finished measurement is shown (the engine's ``timing.TimingReport``)."""
    sig_measuring = Signal(bool)
    """A measurement started (True) or ended, finished or not (False)."""
    sig_message = Signal(str)
    """The inline message changed ("" when cleared)."""
    sig_exported = Signal(str)
    """An export (CSV, JSON or PNG) was written to this path."""

    def __init__(self, session: Session, requests: EngineRequests,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("timingPanel")
        self.session = session
        self.requests = requests
        self._auto_args = ""
        self._custom_config: TimingConfig | None = None
        self._measuring = False
        self._partial: list[SweepPoint] = []
        self.report: TimingReport | None = None
        self._previous: TimingReport | None = None
        self._rows: list[dict[str, Any]] = []
        self._timed_at = 0  # session.loads when the shown report was measured
        self._build()
        session.sig_functions_changed.connect(self._on_session_changed)
        session.sig_call_changed.connect(self._on_session_changed)
        session.sig_devices_changed.connect(self._fill_devices)
        self._on_session_changed()
        self._fill_devices(session.devices)
        self.follow_source(session)

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        self.function_choice = QComboBox()
        self.function_choice.setObjectName("timingFunction")
        self.function_choice.setToolTip("the function to time (follows the editor's choice)")
        self.function_choice.setMinimumContentsLength(10)
        self.args_edit = QLineEdit()
        self.args_edit.setObjectName("timingArgs")
        self.args_edit.setToolTip(
            "its arguments as a spec, e.g. f32[1000000]; N in a sweep, e.g. f32[N]")
        self.args_edit.setPlaceholderText("f32[1000000]  (or f32[N] with a sweep)")
        self.devices_choice = QComboBox()
        self.devices_choice.setObjectName("timingDevices")
        self._fill_devices(None)
        self.eager_box = QCheckBox("eager")
        self.eager_box.setObjectName("timingEager")
        self.eager_box.setToolTip(
            "time the function called op by op (each jnp call dispatched on its own)")
        self.jit_box = QCheckBox("jit")
        self.jit_box.setObjectName("timingJit")
        self.jit_box.setToolTip(
            "time jax.jit of the function, with its first "
            "call split into trace, lower, compile and run")
        for box in (self.eager_box, self.jit_box):
            box.setChecked(True)
        self.baseline_choice = QComboBox()
        self.baseline_choice.setObjectName("timingBaseline")
        self.baseline_choice.setToolTip(
            "a plain NumPy function from the editor to time beside it on the host")
        self.baseline_choice.addItem(NO_BASELINE)
        self.sweep_edit = QLineEdit()
        self.sweep_edit.setObjectName("timingSweep")
        self.sweep_edit.setToolTip(
            "sizes to sweep a placeholder over, log-spaced: N=100:10000000 or N=100:1e7:12")
        self.sweep_edit.setPlaceholderText("sweep, e.g. N=100:10000000")
        self.budget_choice = QComboBox()
        self.budget_choice.setObjectName("timingBudget")
        self.budget_choice.setToolTip(
            "how long to measure: %timeit-like batches, or a quicker estimate")
        self.budget_choice.addItems(list(BUDGETS))
        self.measure_button = QPushButton("Measure")
        self.measure_button.setObjectName("timingMeasure")
        self.measure_button.setToolTip(
            "measure now (the engine stays busy until it is done or Cancel is pressed)")
        self.measure_button.clicked.connect(self.measure)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("timingCancel")
        self.cancel_button.setToolTip("stop the engine (partial sweep results stay)")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setObjectName("timingProgress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status = QLabel()
        self.status.setObjectName("timingStatus")
        self.csv_button = QPushButton("CSV…")
        self.csv_button.setObjectName("timingExportCsv")
        self.csv_button.setToolTip("save the table as CSV")
        self.csv_button.clicked.connect(lambda: self._export_dialog("csv"))
        self.json_button = QPushButton("JSON…")
        self.json_button.setObjectName("timingExportJson")
        self.json_button.setToolTip(
            "save the report as JSON, exactly as workbench time --format json prints it")
        self.json_button.clicked.connect(lambda: self._export_dialog("json"))
        self.png_button = QPushButton("PNG…")
        self.png_button.setObjectName("timingExportPng")
        self.png_button.setToolTip("the chart as shown")
        self.png_button.clicked.connect(lambda: self._export_dialog("png"))
        for b in (self.csv_button, self.json_button, self.png_button):
            b.setEnabled(False)
        self.export_status = QLabel()
        self.export_status.setObjectName("timingExportStatus")
        self.export_status.setWordWrap(True)
        self.export_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.export_status.hide()
        self.view_choice = QComboBox()
        self.view_choice.setObjectName("timingChartView")
        self.view_choice.setToolTip("bars per device and mode, or time against size for a sweep")
        self.view_choice.addItems(["bars", "sweep"])
        self.view_choice.setEnabled(False)
        self.view_choice.currentTextChanged.connect(self._on_view_chosen)

        self.message = QLabel()
        self.message.setObjectName("timingMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("timingTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        for i, (header, key, _kind) in enumerate(COLUMNS):
            item = QTableWidgetItem(header)
            if key in TIPS:
                item.setToolTip(TIPS[key])
            self.table.setHorizontalHeaderItem(i, item)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.setColumnHidden(COLUMN["size"], True)
        self._fit_table_minimum()
        self.chart = TimingChart()
        self.notes = QPlainTextEdit(readOnly=True)
        self.notes.setObjectName("timingNotes")
        self.notes.setMaximumHeight(110)
        self.notes.setPlaceholderText("recompilations and crossovers are explained here")

        row1 = QHBoxLayout()
        row1.addWidget(QLabel("function"))
        row1.addWidget(self.function_choice)
        row1.addWidget(QLabel("args"))
        row1.addWidget(self.args_edit, 2)
        row1.addWidget(QLabel("sweep"))
        row1.addWidget(self.sweep_edit, 1)
        row2 = QHBoxLayout()
        row2.addWidget(QLabel("devices"))
        row2.addWidget(self.devices_choice)
        row2.addWidget(self.eager_box)
        row2.addWidget(self.jit_box)
        row2.addWidget(QLabel("baseline"))
        row2.addWidget(self.baseline_choice)
        row2.addWidget(self.budget_choice)
        row2.addWidget(self.measure_button)
        row2.addWidget(self.cancel_button)
        row2.addWidget(self.progress, 1)
        row3 = QHBoxLayout()
        row3.addWidget(self.status, 1)
        row3.addWidget(QLabel("chart"))
        row3.addWidget(self.view_choice)
        row3.addWidget(self.csv_button)
        row3.addWidget(self.json_button)
        row3.addWidget(self.png_button)
        export_row = QHBoxLayout()
        export_row.addStretch(1)
        export_row.addWidget(self.export_status, 3)
        # The table and the chart keep their minimum sizes: the panel's minimumSizeHint
        # asks the dock for them instead of letting the splitter squash either away.
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.table)
        splitter.addWidget(self.chart)
        splitter.setStretchFactor(1, 2)
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row1)
        layout.addWidget(self.message)  # under the function, args and sweep boxes
        layout.addLayout(row2)
        layout.addLayout(row3)
        layout.addLayout(export_row)  # under the export buttons
        layout.addWidget(splitter, 1)
        layout.addWidget(self.notes)

    # ------------------------------------------------------------------ public API

    def refresh(self) -> None:
        """Re-read the session: list its functions and follow its current call."""
        self.when_shown("sync", self._sync_with_session)

    def follow_current(self) -> None:
        """Take the editor's function and its argument spec (unless the user typed other args)."""
        call = self.session.call
        if call is None:
            return
        name, args = call.function, call.args
        if name:
            if self.function_choice.findText(name) < 0:
                self.function_choice.addItem(name)
            self.function_choice.setCurrentText(name)
        typed = self.args_edit.text().strip()
        if args and (not typed or typed == self._auto_args):
            self.args_edit.setText(args)
        self._auto_args = args or self._auto_args

    def measure_requested(self, request: p.Time) -> str:
        """Measure what a lesson's directive asks for; what could not be honoured ("" if all
        could). A sweep's spec names a size (f32[N]): the function's own spec stays."""
        if self.function_choice.findText(request.name) < 0:
            self.function_choice.addItem(request.name)
        self.function_choice.setCurrentText(request.name)
        self.args_edit.setText(request.args)
        self.sweep_edit.setText(request.sweep or "")
        self.eager_box.setChecked("eager" in request.modes)
        self.jit_box.setChecked("jit" in request.modes)
        baseline = self.baseline_choice.findText(request.baseline or
                                                 self.baseline_choice.itemText(0))
        if baseline >= 0:
            self.baseline_choice.setCurrentIndex(baseline)
        note = ""
        device = self.devices_choice.findText(request.devices)
        if device >= 0:
            self.devices_choice.setCurrentIndex(device)
        else:
            note = (f"--devices {request.devices}: the engine has no such device; timed on "
                    f"{self.devices_choice.currentText()}")
        self.set_config(request.config)
        self.measure()
        return note

    def set_config(self, config: TimingConfig | TimingConfigFields | None) -> None:
        """A custom measurement budget (``timing.TimingConfig`` fields); None: the chosen preset."""
        if isinstance(config, Mapping):
            config = TimingConfig(**config)
        self._custom_config = config

    def config(self) -> TimingConfig | None:
        if self._custom_config is not None:
            return self._custom_config
        return BUDGETS.get(self.budget_choice.currentText())

    def is_measuring(self) -> bool:
        return self._measuring

    def measure(self) -> None:
        """Send one ``Time`` request with the panel's settings (a new one replaces the last)."""
        name = self.function_choice.currentText()
        args = self.args_edit.text().strip()
        modes = tuple(m for m, box in zip(MODES, (self.eager_box, self.jit_box), strict=True)
                      if box.isChecked())
        problem = ("choose a function to time" if not name else
                   "give the arguments, e.g. f32[1000000]" if not args else
                   "choose eager, jit or both" if not modes else "")
        if problem:
            self._set_message(problem)
            return
        baseline = self.baseline_choice.currentText()
        devices = self.devices_choice.currentText()
        request = p.Time(name=name, args=args, devices=devices,
                         modes=modes, baseline=None if baseline == NO_BASELINE else baseline,
                         sweep=self.sweep_edit.text().strip() or None, config=self.config())
        self._set_message("")
        self._partial = []
        self._set_measuring(True)
        self.status.setText(f"measuring {name}({args})…")
        self.requests.time(request, self._on_reply, self._on_event)

    def cancel(self) -> None:
        """Stop the engine now (see the module docstring for why not a superseding request)."""
        if self._measuring:
            self.status.setText("stopping…")
            self.requests.stop()

    def show_report(self, report: TimingReport) -> None:
        """Fill the table, the chart and the notes from a ``TimingReport``."""
        self._previous, self.report = self.report, report
        rows = self._rows = report_rows(report)
        sweep = report.sweep_name is not None
        self.table.setColumnHidden(COLUMN["size"], not sweep)
        header = self.table.horizontalHeaderItem(COLUMN["size"])
        if header is not None:
            header.setText(report.sweep_name or "N")
        self.table.setRowCount(len(rows))
        warn = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        for r, row in enumerate(rows):
            for c, (_header, key, kind) in enumerate(COLUMNS):
                value = row[key]
                if key == "mean_s" and math.isfinite(row["std_s"]):
                    text = f"{format_seconds(value)} ± {format_seconds(row['std_s'])}"
                elif key == "loops":
                    # a trailing * marks a measurement the time budget cut short
                    text = f"{row['loops']:,} × {row['repeats']}" + (
                        "*" if row["budget_limited"] else "")
                else:
                    text = _cell_text(value, kind)
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, value)
                if kind:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if key == "loops" and row["budget_limited"]:
                    item.setToolTip(
                        f"budget-limited: only {row['repeats']} run(s) of {row['loops']:,} "
                        "loop(s) fitted in the measurement budget")
                if key == "mode" and row["unstable"]:
                    item.setIcon(warn)
                    item.setToolTip(
                        f"unstable: the slowest run took {row['max_s'] / row['min_s']:.1f} times "
                        "longer than the fastest (a busy machine, or something being cached)")
                self.table.setItem(r, c, item)
        self.chart.set_bars([TimingBar(r.device, r.mode, r.stats.median_s, r.stats.std_s)
                             for r in report.results])
        has_sweep = bool(report.sweep)
        if has_sweep:
            self.chart.set_sweep([SweepRow(s.size, s.device, s.mode, s.median_s)
                                  for s in report.sweep])
        self.view_choice.setEnabled(has_sweep)
        self.view_choice.blockSignals(True)
        self.view_choice.setCurrentText(self.chart.view())
        self.view_choice.blockSignals(False)
        self.notes.setPlainText("\n".join(self.explanations(report)))
        for b in (self.csv_button, self.json_button, self.png_button):
            b.setEnabled(True)
        self._timed_at = self.session.loads
        self.update_source_stale(source_failed=self.session.source_failure is not None)
        self.sig_report_shown.emit(report)

    def update_source_stale(self, *, source_failed: bool) -> None:
        """Stale while the code does not run, or when the code changed since the measurement."""
        report = self.report
        if source_failed and report is not None:
            self.set_stale(SOURCE_FAILED)
        elif report is not None and report.function and self.session.loads > self._timed_at:
            self.set_stale(
                f"measured {call_text(report.function, report.args)} before the code last "
                "changed: press Measure to measure the current code")
        else:
            self.set_stale(None)

    def explanations(self, report: TimingReport) -> list[str]:
        """Why the figures look as they do: new shapes, recompilations, crossovers, cancels."""
        out = []
        prev = self._previous
        if (prev is not None and prev.function == report.function
                and tuple(prev.args) != tuple(report.args)):
            out.append(f"The arguments changed from ({', '.join(prev.args)}) to "
                       f"({', '.join(report.args)}): jit traced and compiled {report.function} "
                       "again for the new shapes; the trace/lower/compile columns show the "
                       "cost of that first call.")
        out.extend(recompilation_notes(report))
        if report.sweep:
            out.extend(f"{c.device}: {c.note}" for c in self.chart.crossover_notes())
        if report.cancelled:
            out.append("Cancelled: partial results.")
        return out

    def rows(self) -> list[dict[str, object]]:
        """The table's figures as numbers (the UserRole data of each cell), row by row."""
        out = []
        for r in range(self.table.rowCount()):
            row: dict[str, object] = {}
            for c, (_h, key, _k) in enumerate(COLUMNS):
                item = self.table.item(r, c)
                row[key] = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
            out.append(row)
        return out

    def export_json(self, path: str | Path) -> Path:
        """The last report as ``workbench time --format json`` writes it (less its ``output``:
        the console shows what the code printed)."""
        if self.report is None:
            raise ValueError("nothing measured yet")
        path = Path(path)
        path.write_text(json.dumps(report_json(self.report), indent=2) + "\n", encoding="utf-8")
        return self._exported("JSON", path)

    def export_csv(self, path: str | Path) -> Path:
        """The table's rows, seconds as numbers (empty where not measured); a sweep's rows
        start with their ``size``."""
        if self.report is None:
            raise ValueError("nothing measured yet")
        path = Path(path)
        sweep = self.report.sweep_name is not None
        fields = ["size", *ROW_FIELDS] if sweep else list(ROW_FIELDS)
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
            writer.writeheader()
            for row in self._rows:
                writer.writerow({k: "" if isinstance(v, float) and not math.isfinite(v) else v
                                 for k, v in row.items()})
        return self._exported("CSV", path)

    def export_png(self, path: str | Path) -> Path:
        """The chart as shown (bars or sweep), as a PNG."""
        return self._exported("PNG", export_png(self.chart, path))

    def set_presentation_scale(self, factor: float) -> None:
        """Follow the window's presentation zoom (chart fonts, lines and markers)."""
        self.chart.set_presentation_scale(factor)
        font = self.table.font()
        font.setPointSizeF(9.0 * factor)
        self.table.setFont(font)
        self._fit_table_minimum()

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        self.chart.set_scheme(scheme)

    # ------------------------------------------------------------------ replies

    def _on_session_changed(self, _value: object = None) -> None:
        self.refresh()

    def _sync_with_session(self) -> None:
        names = self.session.function_names()
        chosen, base = self.function_choice.currentText(), self.baseline_choice.currentText()
        for combo, items, keep in ((self.function_choice, names, chosen),
                                   (self.baseline_choice, [NO_BASELINE, *names], base)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(items)
            if keep in items:
                combo.setCurrentText(keep)
            combo.blockSignals(False)
        self.follow_current()

    def _fill_devices(self, report: DeviceReport | None) -> None:
        """Offer every device the engine has: all of them, each platform, each device (the
        named choices until the engine has listed its devices)."""
        combo = self.devices_choice
        chosen = combo.currentText()
        combo.blockSignals(True)
        combo.clear()
        if report is None:
            combo.addItems(list(DEVICE_CHOICES))
            combo.setToolTip("which devices to time on: every device JAX sees, or one kind")
        else:
            names = [d.name for d in report.devices]
            platforms = list(dict.fromkeys(d.platform for d in report.devices))
            combo.addItem("all")
            combo.setItemData(0, f"every device: {', '.join(names)}", Qt.ItemDataRole.ToolTipRole)
            for platform in platforms:
                mine = [d.name for d in report.devices if d.platform == platform]
                combo.addItem(platform)
                combo.setItemData(combo.count() - 1, f"the {platform} devices: {', '.join(mine)}",
                                  Qt.ItemDataRole.ToolTipRole)
            for d in report.devices:
                combo.addItem(d.name)
                combo.setItemData(combo.count() - 1, f"{d.name}: {d.kind}",
                                  Qt.ItemDataRole.ToolTipRole)
            combo.setToolTip(f"which devices to time on; the engine has {len(names)}: "
                             + ", ".join(f"{d.name} ({d.kind})" for d in report.devices))
        index = combo.findText(chosen)
        combo.setCurrentIndex(max(index, 0))
        combo.blockSignals(False)

    def device_choices(self) -> list[str]:
        """The choices the devices box offers, in order."""
        return [self.devices_choice.itemText(i) for i in range(self.devices_choice.count())]

    def _on_event(self, event: p.Event) -> None:
        if not isinstance(event, p.Progress):
            return
        self.progress.setRange(0, max(event.total, 1))
        self.progress.setValue(event.done)
        self.status.setText(f"{event.done}/{event.total}: {event.message}")
        if isinstance(event.value, SweepPoint):
            self._partial.append(event.value)
            self.chart.set_sweep([SweepRow(s.size, s.device, s.mode, s.median_s)
                                  for s in self._partial])

    def _on_reply(self, reply: p.Reply) -> None:
        self._set_measuring(False)
        report = p.result_value(reply, TimingReport)
        if report is not None:
            self.progress.setValue(self.progress.maximum())
            self.status.setText(report_summary(report))
            self.show_report(report)
        elif isinstance(reply, p.Cancelled):
            kept = f"; {len(self._partial)} sweep points kept" if self._partial else ""
            self.status.setText(f"cancelled{kept}")
        else:
            self.status.setText("failed")
            self._set_message(reply_text(reply))

    # ------------------------------------------------------------------ helpers

    def _set_measuring(self, on: bool) -> None:
        self._measuring = on
        self.measure_button.setEnabled(not on)
        self.cancel_button.setEnabled(on)
        if on:
            self.progress.setRange(0, 0)  # busy until the first event says how many
        else:
            self.progress.setRange(0, max(self.progress.maximum(), 1))
        self.sig_measuring.emit(on)

    def _set_message(self, text: str) -> None:
        if text != self.message.text():
            self.message.setText(text)
            self.message.setVisible(bool(text))
            self.sig_message.emit(text)

    def _on_view_chosen(self, view: str) -> None:
        if view in ("bars", "sweep"):
            self.chart.show_view(view)

    def _fit_table_minimum(self) -> None:
        """Room for the header and ``TABLE_MIN_ROWS`` rows in the table's current font."""
        header = self.table.horizontalHeader().sizeHint().height()
        rows = self.table.verticalHeader().defaultSectionSize() * TABLE_MIN_ROWS
        bar = self.table.horizontalScrollBar().sizeHint().height()
        self.table.setMinimumHeight(header + rows + bar + 2 * self.table.frameWidth())

    def _exported(self, kind: str, path: Path) -> Path:
        self._set_export_status(f"{kind} saved to {path}", error=False)
        self.sig_exported.emit(str(path))
        return path

    def _set_export_status(self, text: str, *, error: bool) -> None:
        self.export_status.setStyleSheet("color: #c0392b" if error else "")
        self.export_status.setText(text)
        self.export_status.setVisible(bool(text))

    def export_to(self, kind: str, path: str | Path) -> Path | None:
        """Export as ``kind`` ("csv", "json" or "png") to ``path`` (the suffix added when it
        has none); a failure is said next to the export buttons and gives None."""
        path = Path(path)
        if not path.suffix:
            path = path.with_suffix(f".{kind}")
        write = {"csv": self.export_csv, "json": self.export_json, "png": self.export_png}[kind]
        try:
            return write(path)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self._set_export_status(f"could not save {EXPORTS[kind]} to {path}: {reason}",
                                    error=True)
            return None

    def _export_dialog(self, kind: str) -> None:
        if self.report is None:
            return
        name = EXPORTS[kind]
        default = f"{self.report.function}-timing.{kind}"
        path, _ = QFileDialog.getSaveFileName(self, f"Export {name}", default,
                                              f"{name} (*.{kind})")
        if path:
            self.export_to(kind, path)


__all__ = ["BUDGETS", "COLUMNS", "TimingPanel", "report_rows", "report_summary"]
