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

Each measurement remembers the source it ran on: the file name and text of the
last source that loaded (``source_key`` of ``Session.source``). A lesson step
asking again for what the panel last measured on the same source gets that
measurement at once (paging back to a step does not re-measure for
seconds), and notes compare a measurement only with one of the same function of the
same source. Where the text is not known (the engine was loaded some other way) one
load of the session counts as one source.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
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
    protocol_note,
    recompilation_notes,
    report_json,
)
from workbench.api.writer import atomic_write_text
from workbench.plots.export import export_png
from workbench.plots.timing_chart import FirstCall, SweepRow, TimingBar, TimingChart
from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Session
from workbench.ui.panels.banner import call_text
from workbench.ui.panels.panel import SOURCE_FAILED, Panel
from workbench.ui.panels.timing_layout import Arranger, ElidedLabel
from workbench.ui.panels.timing_table import (
    COLUMN,
    COLUMNS,
    TABLE_MIN_ROWS,
    cell_numbers,
    fill_table,
    fit_table_minimum,
    new_table,
    report_rows,
    report_summary,
)

NO_BASELINE = "(no baseline)"
# Measurement budgets (None: the engine's %timeit-like defaults, batches of 0.2 s,
# 7 repeats, at most 3 s per measurement).
BUDGETS: dict[str, TimingConfig | None] = {
    "standard (%timeit)": None,
    "quick": TimingConfig(min_batch_s=0.05, repeats=5, max_measure_s=1.0),
}
EXPORTS = {"csv": "CSV", "json": "JSON", "png": "PNG"}
NOTES_MAX_HEIGHT = 110  # pixels at presentation scale 1


class TimingConfigFields(TypedDict, total=False):
    """``TimingPanel.set_config``'s dict form: any of the ``timing.TimingConfig`` fields."""

    min_batch_s: float
    repeats: int
    max_measure_s: float
    max_loops: int
    dispatch_samples: int


def source_key(filename: str, source: str) -> str:
    """What identifies a loaded source: its file name and its text, as a short digest."""
    return hashlib.sha256(f"{filename}\0{source}".encode()).hexdigest()[:20]


@dataclasses.dataclass(frozen=True)
class Measured:
    """A report as the panel showed it: the request that measured it (None when shown by
    ``show_report`` alone), the source it ran on (``source_key`` or ``load:N``), the notes."""

    report: TimingReport
    source: str
    request: p.Time | None = None
    notes: str = ""


def same_request(a: p.Time | None, b: p.Time | None) -> bool:
    """Whether two ``Time`` requests ask for the same measurement (their ids aside)."""
    return (a is not None and b is not None
            and dataclasses.replace(a, id="") == dataclasses.replace(b, id=""))


class TimingPanel(Panel):
    """Measure a function jitted and eager on each device; table, chart, sweep and exports."""

    sig_report_shown = Signal(object)
    """A measurement is shown (the engine's ``timing.TimingReport``): a new one, or the last
    one again when a lesson step asks for it on the same source."""
    sig_measuring = Signal(bool)
    """A measurement started (True) or ended, finished or not (False)."""
    sig_message = Signal(str)
    """The inline message changed ("" when cleared)."""
    sig_exported = Signal(str)
    """An export (CSV, JSON or PNG) was written to this path."""
    sig_arranged = Signal(str)
    """The panel re-arranged its parts for its size: ``"tall"``, ``"wide"`` or ``"switch"``."""

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
        self._shown: Measured | None = None  # what the table and chart show
        self._previous: Measured | None = None  # what they showed before it
        self._finished: Measured | None = None  # the last measurement that finished
        self._sent: tuple[p.Time, str] | None = None  # the request in flight, its source
        self._rows: list[dict[str, Any]] = []
        self._source = f"load:{session.loads}"  # what identifies the loaded source
        self._build()
        # Before follow_source's: the staleness it decides compares this source.
        session.sig_functions_changed.connect(self._on_source_loaded)
        session.sig_functions_changed.connect(self._on_session_changed)
        session.sig_call_changed.connect(self._on_session_changed)
        session.sig_devices_changed.connect(self._fill_devices)
        self._on_session_changed()
        self._fill_devices(session.devices)
        self.follow_source(session)

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        self._build_settings()
        self._build_bar()
        self.message = QLabel()
        self.message.setObjectName("timingMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        self.table = new_table()
        fit_table_minimum(self.table)
        self.chart = TimingChart()
        self.notes = QPlainTextEdit(readOnly=True)
        self.notes.setObjectName("timingNotes")
        self.notes.setMaximumHeight(NOTES_MAX_HEIGHT)
        self.notes.setPlaceholderText("recompilations and crossovers are explained here")
        self.details = QWidget()
        self.details.setObjectName("timingDetails")
        details = QVBoxLayout(self.details)
        details.setContentsMargins(0, 0, 0, 0)
        details.addWidget(self.table, 1)
        details.addWidget(self.notes)
        # The table and the chart keep their minimum sizes: the splitter never squashes
        # either away; tall, the table is above the chart, wide, beside it.
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.details)
        splitter.addWidget(self.chart)
        splitter.setStretchFactor(1, 2)
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        # The minimum is minimumSizeHint's (the arranger's), also for the panel on its own.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        layout.addWidget(self.bar)
        layout.addWidget(self.settings_top)
        layout.addWidget(self.message)  # under the function, args and sweep boxes
        layout.addWidget(self.settings_bottom)
        layout.addWidget(splitter, 1)
        self.arranger = Arranger(self, self.bar, (self.settings_top, self.settings_bottom),
                                 self.details, self.chart, splitter)
        self.arranger.sig_arranged.connect(self.sig_arranged)
        self.settings_button = self.arranger.settings_button
        self.chart_button, self.table_button = self.arranger.page_buttons

    def _build_settings(self) -> None:
        """What to measure and how, and the exports: open when the panel is tall, else
        folded behind the Settings toggle."""
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
        self.sweep_edit.setPlaceholderText("e.g. N=100:10000000")
        self.budget_choice = QComboBox()
        self.budget_choice.setObjectName("timingBudget")
        self.budget_choice.setToolTip(
            "how long to measure: %timeit-like batches, or a quicker estimate")
        self.budget_choice.addItems(list(BUDGETS))
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
        self.view_choice.setToolTip(
            "bars per device and mode beside the first jit call, or time against size "
            "for a sweep")
        self.view_choice.addItems(["bars", "sweep"])
        self.view_choice.setEnabled(False)
        self.view_choice.currentTextChanged.connect(self._on_view_chosen)

        self.settings_top = QWidget()
        self.settings_top.setObjectName("timingSettingsTop")
        top = QGridLayout(self.settings_top)
        top.setContentsMargins(0, 0, 0, 0)
        for row, cells in enumerate(((QLabel("function"), self.function_choice,
                                      QLabel("args"), self.args_edit),
                                     (QLabel("sweep"), self.sweep_edit,
                                      QLabel("budget"), self.budget_choice))):
            for col, widget in enumerate(cells):
                top.addWidget(widget, row, col)
        top.setColumnStretch(1, 1)
        top.setColumnStretch(3, 2)
        self.settings_bottom = QWidget()
        self.settings_bottom.setObjectName("timingSettingsBottom")
        bottom = QVBoxLayout(self.settings_bottom)
        bottom.setContentsMargins(0, 0, 0, 0)
        what = QHBoxLayout()
        what.addWidget(QLabel("devices"))
        what.addWidget(self.devices_choice)
        what.addWidget(self.eager_box)
        what.addWidget(self.jit_box)
        what.addWidget(QLabel("baseline"))
        what.addWidget(self.baseline_choice)
        what.addStretch(1)
        exports = QHBoxLayout()
        exports.addWidget(QLabel("chart"))
        exports.addWidget(self.view_choice)
        exports.addStretch(1)
        exports.addWidget(self.csv_button)
        exports.addWidget(self.json_button)
        exports.addWidget(self.png_button)
        bottom.addLayout(what)
        bottom.addLayout(exports)
        bottom.addWidget(self.export_status)  # under the export buttons

    def _build_bar(self) -> None:
        """The row that always shows: the settings toggle, the status, Measure and Cancel,
        the progress, and the chart/table switch when there is room for one only."""
        self.status = ElidedLabel()
        self.status.setObjectName("timingStatus")
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
        self.bar = QWidget()
        self.bar.setObjectName("timingBar")
        row = QHBoxLayout(self.bar)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.status, 1)
        row.addWidget(self.measure_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress)

    # ------------------------------------------------------------------ arrangement

    def arrangement(self) -> str:
        """``"tall"``, ``"wide"`` or ``"switch"`` (``timing_layout``): how the parts sit now."""
        return self.arranger.current

    def show_page(self, page: str) -> None:
        """With room for one only, show ``"chart"`` or ``"table"`` (the table and notes)."""
        self.arranger.show_page(page)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.arranger.arrange()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return self.arranger.bound(super().minimumSizeHint())

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
        """Measure what a lesson's directive asks for; what could not be honoured, or that
        the panel shows its last measurement again ("" if neither). A sweep's spec names a
        size (f32[N]): the function's own spec stays.

        The same request as the last finished measurement, on the same source, shows that
        measurement at once (paging back to a step re-measures nothing); Measure measures
        again."""
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
        notes = []
        device = self.devices_choice.findText(request.devices)
        if device >= 0:
            self.devices_choice.setCurrentIndex(device)
        else:
            notes.append(f"--devices {request.devices}: the engine has no such device; timed "
                         f"on {self.devices_choice.currentText()}")
        self.set_config(request.config)
        wanted = self._request()
        last, sent = self._finished, self._sent
        if isinstance(wanted, p.Time) and sent is not None and self._measuring and (
                sent[1] == self._source and same_request(sent[0], wanted)):
            pass  # measuring just that already (paged away and back): its reply will show
        elif (isinstance(wanted, p.Time) and last is not None and not self._measuring
                and last.source == self._source and same_request(last.request, wanted)):
            self._show_again(last)
            notes.append(f"The timing panel shows the earlier measurement of "
                         f"{call_text(last.report.function, last.report.args)}, made with this "
                         "code and these settings; press Measure to measure again.")
        else:
            self.measure()
        return "\n".join(notes)

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
        request = self._request()
        if isinstance(request, str):
            self._set_message(request)
            return
        self._set_message("")
        self._partial = []
        self._sent = (request, self._source)
        self._set_measuring(True)
        self.status.setText(f"measuring {request.name}({request.args})…")
        self.requests.time(request, self._on_reply, self._on_event)

    def _request(self) -> p.Time | str:
        """The ``Time`` request the settings ask for, or what is missing for one."""
        name = self.function_choice.currentText()
        args = self.args_edit.text().strip()
        modes = tuple(m for m, box in zip(MODES, (self.eager_box, self.jit_box), strict=True)
                      if box.isChecked())
        problem = ("choose a function to time" if not name else
                   "give the arguments, e.g. f32[1000000]" if not args else
                   "choose eager, jit or both" if not modes else "")
        if problem:
            return problem
        baseline = self.baseline_choice.currentText()
        return p.Time(name=name, args=args, devices=self.devices_choice.currentText(),
                      modes=modes, baseline=None if baseline == NO_BASELINE else baseline,
                      sweep=self.sweep_edit.text().strip() or None, config=self.config())

    def cancel(self) -> None:
        """Stop the engine now (see the module docstring for why not a superseding request)."""
        if self._measuring:
            self.status.setText("stopping…")
            self.requests.stop()

    def show_report(self, report: TimingReport, source: str | None = None) -> None:
        """Fill the table, the chart and the notes from a ``TimingReport`` measured on
        ``source`` (a ``source_key``; default: the source loaded now)."""
        self._previous = self._shown
        source = self._source if source is None else source
        notes = "\n".join(self.explanations(report, source))
        self._display(Measured(report, source, notes=notes))

    def _show_again(self, measured: Measured) -> None:
        """Show an earlier measurement again, as it was shown then."""
        self._display(measured)
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.status.setText(f"{report_summary(measured.report)} (the earlier measurement)")

    def _display(self, measured: Measured) -> None:
        report = measured.report
        self._shown, self.report = measured, report
        rows = self._rows = report_rows(report)
        fill_table(self.table, report, rows)
        self.chart.set_bars([TimingBar(r.device, r.mode, r.stats.median_s, r.stats.std_s)
                             for r in report.results])
        self.chart.set_first_calls([
            FirstCall(r.device, r.compile.trace_s, r.compile.lower_s, r.compile.compile_s,
                      r.compile.first_run_s)
            for r in report.results if r.mode == "jit" and r.compile is not None])
        has_sweep = bool(report.sweep)
        if has_sweep:
            self.chart.set_sweep([SweepRow(s.size, s.device, s.mode, s.median_s)
                                  for s in report.sweep])
        self.view_choice.setEnabled(has_sweep)
        self.view_choice.blockSignals(True)
        self.view_choice.setCurrentText(self.chart.view())
        self.view_choice.blockSignals(False)
        self.notes.setPlainText(measured.notes)
        for b in (self.csv_button, self.json_button, self.png_button):
            b.setEnabled(True)
        self.arranger.arrange()  # the chart's bars may need more room than it had
        self.update_source_stale(source_failed=self.session.source_failure is not None)
        self.sig_report_shown.emit(report)

    def update_source_stale(self, *, source_failed: bool) -> None:
        """Stale while the code does not run, or when the code changed since the measurement."""
        shown = self._shown
        if source_failed and shown is not None:
            self.set_stale(SOURCE_FAILED)
        elif shown is not None and shown.report.function and shown.source != self._source:
            self.set_stale(
                f"measured {call_text(shown.report.function, shown.report.args)} before the "
                "code last changed: press Measure to measure the current code")
        else:
            self.set_stale(None)

    def explanations(self, report: TimingReport, source: str | None = None) -> list[str]:
        """Why the figures look as they do: new shapes, recompilations, crossovers, cancels.

        A note compares with the measurement shown before only when that one timed the
        same function of the same source (``source``, default the one loaded now): another
        file's function of the same name was never compiled for this one."""
        out = []
        prev = self._previous
        source = self._source if source is None else source
        if (prev is not None and prev.source == source
                and prev.report.function == report.function
                and tuple(prev.report.args) != tuple(report.args)):
            before, now = prev.report.args, report.args
            out.append(f"The arguments changed from ({', '.join(before)}) to "
                       f"({', '.join(now)}): jit traced and compiled {report.function} "
                       "again for the new shapes; the trace/lower/compile columns show the "
                       "cost of that first call.")
        out.extend(recompilation_notes(report))
        protocol = protocol_note(report)
        if protocol:
            out.append(protocol)
        if report.sweep:
            out.extend(f"{c.device}: {c.note}" for c in self.chart.crossover_notes())
        if report.cancelled:
            out.append("Cancelled: partial results.")
        return out

    def rows(self) -> list[dict[str, object]]:
        """The table's figures as numbers (the UserRole data of each cell), row by row."""
        return cell_numbers(self.table)

    def export_json(self, path: str | Path) -> Path:
        """The last report as ``workbench time --format json`` writes it (less its ``output``:
        the console shows what the code printed)."""
        if self.report is None:
            raise ValueError("nothing measured yet")
        path = Path(path)
        atomic_write_text(path, json.dumps(report_json(self.report), indent=2) + "\n")
        return self._exported("JSON", path)

    def export_csv(self, path: str | Path) -> Path:
        """The table's rows, seconds as numbers (empty where not measured); a sweep's rows
        start with their ``size``."""
        if self.report is None:
            raise ValueError("nothing measured yet")
        path = Path(path)
        sweep = self.report.sweep_name is not None
        fields = ["size", *ROW_FIELDS] if sweep else list(ROW_FIELDS)
        out = io.StringIO(newline="")
        writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        for row in self._rows:
            writer.writerow({k: "" if isinstance(v, float) and not math.isfinite(v) else v
                             for k, v in row.items()})
        atomic_write_text(path, out.getvalue())
        return self._exported("CSV", path)

    def export_png(self, path: str | Path) -> Path:
        """The chart as shown (bars or sweep), as a PNG."""
        return self._exported("PNG", export_png(self.chart, path))

    def set_presentation_scale(self, factor: float) -> None:
        """Follow the window's presentation zoom (chart fonts, lines and markers; the table;
        the room each arrangement needs)."""
        self._scale = factor
        self.chart.set_presentation_scale(factor)
        font = self.table.font()
        font.setPointSizeF(9.0 * factor)
        self.table.setFont(font)
        fit_table_minimum(self.table)
        grow = max(factor, 1.0)
        self.notes.setMaximumHeight(round(NOTES_MAX_HEIGHT * grow))
        self.arranger.set_scale(factor)

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
        sent, self._sent = self._sent, None
        if report is not None:
            self.progress.setValue(self.progress.maximum())
            self.status.setText(report_summary(report))
            source = sent[1] if sent is not None else None
            self.show_report(report, source)
            if sent is not None and not report.cancelled and self._shown is not None:
                self._finished = dataclasses.replace(self._shown, request=sent[0])
        elif isinstance(reply, p.Cancelled):
            kept = f"; {len(self._partial)} sweep points kept" if self._partial else ""
            self.status.setText(f"cancelled{kept}")
        else:
            self.status.setText("failed")
            self._set_message(reply_text(reply))

    def _on_source_loaded(self, _functions: object = None) -> None:
        """A source loaded: measurements are compared by its file name and text."""
        source = self.session.source
        self._source = source_key(*source) if source else f"load:{self.session.loads}"

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


__all__ = ["BUDGETS", "COLUMN", "COLUMNS", "TABLE_MIN_ROWS", "Measured", "TimingPanel",
           "report_rows", "report_summary", "same_request", "source_key"]
