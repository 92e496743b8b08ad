"""The timing panel's table: its columns, its rows from a report, and the status line.

Each cell keeps its figure as a number (``Qt.UserRole``) beside the text it shows, so
``cell_numbers`` reads back exactly what the engine measured.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
)

from workbench.api.timing import TimingReport
from workbench.api.timing_report import ROW_FIELDS, ratio, table_rows
from workbench.plots.timing_chart import format_seconds
from workbench.ui.panels.banner import call_text

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
TABLE_MIN_ROWS = 3  # rows the table always has room for, below its header


def cell_text(value: float | int | str | bool | None, kind: str) -> str:
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


def new_table() -> QTableWidget:
    """The empty table with its headers and their tooltips (the size column hidden)."""
    table = QTableWidget(0, len(COLUMNS))
    table.setObjectName("timingTable")
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    for i, (header, key, _kind) in enumerate(COLUMNS):
        item = QTableWidgetItem(header)
        if key in TIPS:
            item.setToolTip(TIPS[key])
        table.setHorizontalHeaderItem(i, item)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.setColumnHidden(COLUMN["size"], True)
    return table


def fill_table(table: QTableWidget, report: TimingReport, rows: list[dict[str, Any]]) -> None:
    """One row per ``report_rows`` row: the figures as text, and as numbers behind it."""
    sweep = report.sweep_name is not None
    table.setColumnHidden(COLUMN["size"], not sweep)
    header = table.horizontalHeaderItem(COLUMN["size"])
    if header is not None:
        header.setText(report.sweep_name or "N")
    table.setRowCount(len(rows))
    warn = table.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
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
                text = cell_text(value, kind)
            item = QTableWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, value)
            if kind:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if key == "loops" and row["budget_limited"]:
                item.setToolTip(
                    f"budget-limited: only {row['repeats']} run(s) of {row['loops']:,} "
                    "loop(s) fitted in the measurement budget")
            if key == "mode" and row["unstable"]:
                item.setIcon(warn)
                item.setToolTip(
                    f"unstable: the slowest run took {row['max_s'] / row['min_s']:.1f} times "
                    "longer than the fastest (a busy machine, or something being cached)")
            table.setItem(r, c, item)


def cell_numbers(table: QTableWidget) -> list[dict[str, object]]:
    """The table's figures as numbers (the UserRole data of each cell), row by row."""
    out = []
    for r in range(table.rowCount()):
        row: dict[str, object] = {}
        for c, (_h, key, _k) in enumerate(COLUMNS):
            item = table.item(r, c)
            row[key] = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        out.append(row)
    return out


def fit_table_minimum(table: QTableWidget) -> None:
    """Room for the header and ``TABLE_MIN_ROWS`` rows in the table's current font."""
    header = table.horizontalHeader().sizeHint().height()
    rows = table.verticalHeader().defaultSectionSize() * TABLE_MIN_ROWS
    bar = table.horizontalScrollBar().sizeHint().height()
    table.setMinimumHeight(header + rows + bar + 2 * table.frameWidth())
