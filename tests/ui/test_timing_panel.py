"""TimingPanel on a real engine kernel: table = report, exports = the CLI's JSON, cancel, notes."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import subprocess
import sys

import pytest
from PySide6.QtCore import QPoint, QRect

from workbench.api import messages as p
from workbench.api.devices import DeviceReport
from workbench.api.timing import TimingConfig
from workbench.api.timing_report import ROW_FIELDS, report_json, table_rows
from workbench.plots.export import settle
from workbench.ui.control.session import Call
from workbench.ui.panels.timing_panel import COLUMN, TABLE_MIN_ROWS, TimingPanel

SOURCE = """\
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def selu_np(x, alpha=1.67, lmbda=1.05):
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)
"""
TINY = {"min_batch_s": 0.001, "repeats": 2, "max_measure_s": 0.05, "dispatch_samples": 5}
WAIT_MS = 60_000
KERNEL_SOURCE = p.LoadSource(source=SOURCE, filename="timing.py")  # for ``bridge``


@pytest.fixture
def panel(qtbot, session, requests):
    session.set_call(Call("selu", "f32[1000]"))
    panel = TimingPanel(session, requests)
    panel.set_config(TINY)
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    panel.refresh()
    qtbot.waitUntil(lambda: panel.baseline_choice.count() == 3, timeout=WAIT_MS)
    return panel


def measured(qtbot, panel):
    with qtbot.waitSignal(panel.sig_report_shown, timeout=WAIT_MS) as blocker:
        panel.measure_button.click()
    return blocker.args[0]


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def test_table_rows_equal_the_engine_report(qtbot, panel):
    assert panel.args_edit.text() == "f32[1000]"  # the editor's args by default
    panel.baseline_choice.setCurrentText("selu_np")
    assert not panel.cancel_button.isEnabled()
    report = measured(qtbot, panel)
    assert [(r.device, r.mode) for r in report.results][-1] == ("host", "numpy")
    rows = panel.rows()
    expected = table_rows(report)
    assert len(rows) == len(report.results) == panel.table.rowCount()
    assert panel.table.isColumnHidden(COLUMN["size"])  # no sweep: the args say the size
    for row, want, result in zip(rows, expected, report.results, strict=True):
        assert row["size"] is None
        for key in want:
            if key in row:
                assert same(row[key], want[key]), key
        assert row["median_s"] == result.stats.median_s
        assert row["loops"] == result.stats.loops
    jit = next(i for i, r in enumerate(report.results) if r.mode == "jit")
    eager = next(i for i, r in enumerate(report.results) if r.mode == "eager")
    split = report.results[jit].compile
    assert rows[jit]["compile_s"] == split.compile_s and rows[jit]["trace_s"] == split.trace_s
    assert rows[jit]["speedup_vs_eager"] == pytest.approx(
        report.results[eager].stats.median_s / report.results[jit].stats.median_s)
    assert rows[jit]["dispatch_s"] == report.devices[0].dispatch_s
    assert math.isnan(rows[eager]["dispatch_s"])
    assert rows[eager]["transfer_s"] == report.devices[0].transfer_s
    cell = panel.table.item(jit, COLUMN["loops"]).text()
    stats = report.results[jit].stats
    assert cell == f"{stats.loops:,} × {stats.repeats}" + ("*" if stats.budget_limited else "")
    assert panel.chart.bar_values()[("cpu:0", "jit")] == pytest.approx(
        report.results[jit].stats.median_s)
    assert panel.csv_button.isEnabled() and panel.progress.value() == panel.progress.maximum()


def test_a_budget_limited_measurement_is_marked_in_the_table(qtbot, panel):
    panel.set_config({"min_batch_s": 5.0, "repeats": 3, "max_measure_s": 0.01,
                      "dispatch_samples": 5})
    report = measured(qtbot, panel)
    assert all(r.stats.budget_limited for r in report.results)
    for i, result in enumerate(report.results):
        item = panel.table.item(i, COLUMN["loops"])
        assert item.text() == f"{result.stats.loops:,} × {result.stats.repeats}*"
        assert item.toolTip().startswith(f"budget-limited: only {result.stats.repeats} run(s)")
    header = panel.table.horizontalHeaderItem(COLUMN["loops"])
    assert "budget" in header.toolTip()


def test_exports_match_the_cli_json(qtbot, panel, tmp_path, capsys):
    from workbench.cli import main

    panel.baseline_choice.setCurrentText("selu_np")
    report = measured(qtbot, panel)
    data = json.loads(panel.export_json(tmp_path / "t.json").read_text())
    assert data == json.loads(json.dumps(report_json(report)))
    prog = tmp_path / "timing.py"
    prog.write_text(SOURCE)
    code = main(["time", str(prog), "selu", "--args", "f32[1000]", "--baseline", "selu_np",
                 "--format", "json", "--min-batch", "0.001", "--repeats", "2", "--budget",
                 "0.05", "--quiet"])
    cli = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(data) | {"output", "output_dropped"} == set(cli)  # the console has those
    assert [set(r) for r in data["results"]] == [set(r) for r in cli["results"]]
    assert data["args"] == cli["args"] == ["f32[1000]"]
    with open(panel.export_csv(tmp_path / "t.csv"), newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == ROW_FIELDS and len(rows) == len(report.results)
    assert float(rows[0]["median_s"]) == report.results[0].stats.median_s


def test_sweep_draws_lines_and_explains_recompilations(qtbot, panel, tmp_path):
    panel.args_edit.setText("f32[N]")
    panel.sweep_edit.setText("N=10:1000:3")
    panel.eager_box.setChecked(False)
    report = measured(qtbot, panel)
    assert sorted({s.size for s in report.sweep}) == [10, 100, 1000]
    # Which N each figure belongs to: the status names the sizes, each row its own N.
    assert panel.status.text() == "selu(f32[N]) swept N = 10 … 1,000: 3 sizes × 1 mode"
    assert not panel.table.isColumnHidden(COLUMN["size"])
    assert panel.table.horizontalHeaderItem(COLUMN["size"]).text() == "N"
    sizes = [panel.table.item(r, COLUMN["size"]).text() for r in range(panel.table.rowCount())]
    assert sizes == ["10", "100", "1,000"]
    rows = panel.rows()
    assert [(r["size"], r["median_s"]) for r in rows] == [
        (pt.size, pt.median_s) for pt in report.sweep]
    assert rows[0]["compile_s"] == report.results[0].compile.compile_s  # the first size's split
    assert math.isnan(rows[1]["compile_s"])  # measured at the first size only
    with open(panel.export_csv(tmp_path / "sweep.csv"), newline="") as fh:
        lines = list(csv.DictReader(fh))
    assert [int(r["size"]) for r in lines] == [10, 100, 1000]
    assert [float(r["median_s"]) for r in lines] == [pt.median_s for pt in report.sweep]
    assert panel.chart.view() == "sweep" and panel.view_choice.isEnabled()
    assert set(panel.chart.sweep_data()) == {("cpu:0", "jit")}
    notes = panel.notes.toPlainText()
    assert f"{report.recompilations} of them because the shape changed" in notes
    assert report.recompilations >= 1 and report.cache_misses
    assert report.cache_misses[0] in notes  # JAX's own words about the new shape
    # A new shape without a sweep: the first call compiles again, and the panel says so.
    panel.sweep_edit.setText("")
    panel.args_edit.setText("f32[64]")
    measured(qtbot, panel)
    panel.args_edit.setText("f32[128]")
    measured(qtbot, panel)
    assert "arguments changed from (f32[64]) to (f32[128])" in panel.notes.toPlainText()


def test_bad_inputs_show_their_message(qtbot, panel):
    panel.args_edit.setText("f32[3")
    with qtbot.waitSignal(panel.sig_message, timeout=WAIT_MS,
                          check_params_cb=lambda text: bool(text)):
        panel.measure_button.click()
    assert panel.message.isVisible() and panel.measure_button.isEnabled()
    panel.args_edit.setText("f32[8]")
    panel.sweep_edit.setText("N=10:100")
    with qtbot.waitSignal(panel.sig_message, timeout=WAIT_MS,
                          check_params_cb=lambda text: "placeholder" in text):
        panel.measure_button.click()
    panel.sweep_edit.setText("")
    panel.eager_box.setChecked(False)
    panel.jit_box.setChecked(False)
    panel.measure()
    assert panel.message.text() == "choose eager, jit or both"
    panel.jit_box.setChecked(True)
    report = measured(qtbot, panel)  # still usable
    assert [r.mode for r in report.results] == ["jit"]
    assert panel.message.text() == ""


def test_the_devices_box_offers_the_engines_devices_once_listed(qtbot, panel, session, bridge):
    assert panel.device_choices() == ["all", "cpu", "gpu", "tpu"]  # not listed yet
    panel.devices_choice.setCurrentText("cpu")
    report = p.result_value(bridge.client.call(p.Devices(), timeout=60), DeviceReport)
    session.set_devices(report)
    names = [d.name for d in report.devices]
    platforms = list(dict.fromkeys(d.platform for d in report.devices))
    assert panel.device_choices() == ["all", *platforms, *names]
    assert panel.devices_choice.currentText() == "cpu"  # the choice stays
    assert all(name in panel.devices_choice.toolTip() for name in names)


def test_an_absent_platform_is_said_and_the_panel_stays_usable(qtbot, panel, bridge):
    report = p.result_value(bridge.client.call(p.Devices(), timeout=60), DeviceReport)
    if any(d.platform == "tpu" for d in report.devices):
        pytest.skip("the engine has a TPU")
    panel.devices_choice.setCurrentText("tpu")  # offered until the engine lists its devices
    with qtbot.waitSignal(panel.sig_message, timeout=WAIT_MS,
                          check_params_cb=lambda text: bool(text)):
        panel.measure_button.click()
    names = ", ".join(d.name for d in report.devices)
    assert panel.message.text().startswith(f"no tpu device here; JAX sees {names} "
                                           "(platforms present: ")
    assert panel.message.isVisible() and panel.measure_button.isEnabled()
    panel.devices_choice.setCurrentText("all")
    assert measured(qtbot, panel).results  # still usable
    assert panel.message.text() == ""


def test_cancel_stops_the_engine_and_keeps_partial_points(qtbot, panel, bridge):
    panel.set_config({"min_batch_s": 0.05, "repeats": 3, "max_measure_s": 0.3})
    panel.args_edit.setText("f32[N]")
    panel.sweep_edit.setText("N=10:1000000:12")
    panel.measure_button.click()
    assert panel.is_measuring() and panel.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: len(panel._partial) >= 1, timeout=WAIT_MS)
    with qtbot.waitSignal(panel.sig_measuring, timeout=10_000,
                          check_params_cb=lambda on: on is False):
        panel.cancel_button.click()
    assert panel.status.text().startswith("cancelled") and "sweep points kept" in \
        panel.status.text()
    assert panel.chart.sweep_data()  # the points measured so far stay drawn
    # The engine is free again: a short measurement goes through.
    panel.set_config(TINY)
    panel.sweep_edit.setText("")
    panel.args_edit.setText("f32[16]")
    report = measured(qtbot, panel)
    assert not report.cancelled


def test_panel_modules_do_not_import_jax():
    code = ("import sys\n"
            "import workbench.ui.panels.plot_panel, workbench.ui.panels.timing_panel\n"
            "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"QT_QPA_PLATFORM": "offscreen", "PATH": ""})
    assert out.stdout.strip() == "[]"


def test_chart_and_table_keep_their_room_at_the_panels_minimum(qtbot, panel):
    measured(qtbot, panel)
    panel.resize(panel.minimumSizeHint())
    qtbot.waitUntil(lambda: panel.arrangement() == "switch", timeout=5000)
    assert panel.chart.isVisible() and panel.chart.height() >= 200
    assert not panel.table.isVisible() and panel.table_button.isVisible()
    settle(panel.chart)
    axis = panel.chart.barPlot.getAxis("left")
    assert axis.label.boundingRect().width() <= axis.geometry().height()  # title not cut
    view = panel.chart.barPlot.vb.sceneBoundingRect()
    assert all(view.contains(t.sceneBoundingRect())
               for t in panel.chart._bar_labels if t.isVisible())
    # The table, when asked for, has room for its header and rows.
    panel.table_button.click()
    qtbot.waitUntil(lambda: panel.table.isVisible() and panel.table.height() > 0, timeout=5000)
    assert not panel.chart.isVisible()
    table = panel.table
    header = table.horizontalHeader().height()
    assert table.height() >= header + TABLE_MIN_ROWS * table.verticalHeader().defaultSectionSize()
    # Tall, the table sits above the chart, and the splitter cannot squash the chart away.
    panel.resize(1000, 900)
    qtbot.waitUntil(lambda: panel.arrangement() == "tall", timeout=5000)
    assert panel.chart.isVisible() and panel.table.isVisible()
    assert not panel.table_button.isVisible()
    assert panel.table.mapTo(panel, QPoint(0, 0)).y() < panel.chart.mapTo(panel, QPoint(0, 0)).y()
    panel.splitter.setSizes([10_000, 1])
    assert panel.chart.height() >= 200


def _rect(panel, widget):
    """``widget``'s rectangle in the panel's coordinates."""
    return QRect(widget.mapTo(panel, QPoint(0, 0)), widget.size())


def test_bad_input_message_sits_under_the_boxes_it_is_about(qtbot, panel):
    panel.sweep_edit.setText("N=oops")
    with qtbot.waitSignal(panel.sig_message, timeout=WAIT_MS,
                          check_params_cb=lambda text: "bad sweep" in text):
        panel.measure_button.click()
    message = _rect(panel, panel.message)
    assert _rect(panel, panel.sweep_edit).bottom() < message.top()
    assert _rect(panel, panel.args_edit).bottom() < message.top()
    assert message.bottom() < _rect(panel, panel.devices_choice).top()  # before the next row


def test_a_message_shows_with_the_settings_folded(qtbot, panel):
    panel.resize(panel.minimumSizeHint())
    qtbot.waitUntil(lambda: panel.arrangement() == "switch", timeout=5000)
    assert not panel.settings_button.isChecked() and not panel.args_edit.isVisible()
    panel.args_edit.setText("f32[3")
    with qtbot.waitSignal(panel.sig_message, timeout=WAIT_MS,
                          check_params_cb=lambda text: bool(text)):
        panel.measure_button.click()
    assert panel.message.isVisible()
    assert _rect(panel, panel.bar).bottom() < _rect(panel, panel.message).top()
    panel.settings_button.click()  # open: the boxes the message is about
    assert panel.args_edit.isVisible() and panel.devices_choice.isVisible()


def test_exports_say_where_they_saved(qtbot, panel, tmp_path):
    measured(qtbot, panel)
    for kind, button in (("csv", panel.csv_button), ("json", panel.json_button),
                         ("png", panel.png_button)):
        assert button.isEnabled()
        path = tmp_path / f"t.{kind}"
        with qtbot.waitSignal(panel.sig_exported, timeout=WAIT_MS) as blocker:
            assert panel.export_to(kind, path) == path
        assert blocker.args == [str(path)] and path.stat().st_size > 0
        status = panel.export_status
        assert status.isVisible() and str(path) in status.text()
        assert status.text().startswith(f"{kind.upper()} saved to")
        assert status.geometry().top() > button.geometry().bottom()  # just under the buttons
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
    for kind in ("csv", "png"):
        with qtbot.assertNotEmitted(panel.sig_exported):
            assert panel.export_to(kind, tmp_path / "no such folder" / f"t.{kind}") is None
        assert f"could not save {kind.upper()}" in panel.export_status.text()
        assert "no such folder" in panel.export_status.text()
    with qtbot.waitSignal(panel.sig_exported, timeout=WAIT_MS):
        panel.export_to("json", tmp_path / "named")  # still usable; the suffix is added
    assert json.loads((tmp_path / "named.json").read_text())["function"] == "selu"


def load(qtbot, session, requests, source, filename):
    """Load ``source`` as the window does: a ``LoadSource`` through the requests, and its
    functions into the session when it answers."""
    with qtbot.waitSignal(session.sig_functions_changed, timeout=WAIT_MS):
        requests.load(p.LoadSource(source=source, filename=filename),
                      lambda reply: session.set_functions(reply.value.functions,
                                                          source=(filename, source)))


def times_sent(requests):
    """The ``Time`` requests sent from now on, as a list that fills."""
    sent = []
    requests.engine.sig_request_sent.connect(
        lambda r: sent.append(r) if isinstance(r, p.Time) else None)
    return sent


def test_a_step_asking_again_on_the_same_source_shows_the_last_measurement(
        qtbot, panel, session, requests):
    step = "lesson.ipynb, step 7"
    load(qtbot, session, requests, SOURCE, step)
    request = p.Time(name="selu", args="f32[1000]", modes=("eager", "jit"),
                     config=TimingConfig(**TINY))
    sent = times_sent(requests)
    with qtbot.waitSignal(panel.sig_report_shown, timeout=WAIT_MS) as first:
        assert panel.measure_requested(request) == ""
        # Asked again before it finished (paged away and back quickly): it is not re-sent.
        assert panel.measure_requested(dataclasses.replace(request, id=p.new_id())) == ""
    assert len(sent) == 1
    sent.clear()
    load(qtbot, session, requests, SOURCE, step)  # paging back runs the step's code again
    assert panel.stale_text() is None  # the same code: the measurement is still of it
    with qtbot.waitSignal(panel.sig_report_shown, timeout=1000) as again:
        note = panel.measure_requested(dataclasses.replace(request, id=p.new_id()))
    assert again.args[0] is first.args[0] and panel.report is first.args[0]
    assert sent == [] and not panel.is_measuring()
    assert note == ("The timing panel shows the earlier measurement of selu(f32[1000]), made "
                    "with this code and these settings; press Measure to measure again.")
    assert panel.status.text().endswith("(the earlier measurement)")
    assert panel.chart.bar_values()[("cpu:0", "jit")] == next(
        r.stats.median_s for r in first.args[0].results if r.mode == "jit")
    # Measure measures again.
    with qtbot.waitSignal(panel.sig_report_shown, timeout=WAIT_MS) as remeasured:
        panel.measure_button.click()
    assert remeasured.args[0] is not first.args[0] and len(sent) == 1
    # Another request measures.
    with qtbot.waitSignal(panel.sig_report_shown, timeout=WAIT_MS):
        assert panel.measure_requested(dataclasses.replace(request, args="f32[64]")) == ""
    assert len(sent) == 2 and sent[-1].args == "f32[64]"
    # Another source measures: another step's file, even with the same text ...
    load(qtbot, session, requests, SOURCE, "lesson.ipynb, step 8")
    assert "before the code last changed" in panel.stale_text()
    with qtbot.waitSignal(panel.sig_report_shown, timeout=WAIT_MS):
        assert panel.measure_requested(dataclasses.replace(request, args="f32[64]")) == ""
    assert len(sent) == 3
    # ... and the same file with its code edited.
    load(qtbot, session, requests, SOURCE.replace("1.67", "1.6733"), "lesson.ipynb, step 8")
    with qtbot.waitSignal(panel.sig_report_shown, timeout=WAIT_MS):
        panel.measure_requested(dataclasses.replace(request, args="f32[64]"))
    assert len(sent) == 4


OTHER_SELU = """\
def selu(x):
    return 1.05 * jnp.where(x > 0, x, 1.67 * jnp.expm1(x))

def relu(x):
    return jnp.maximum(x, 0)
"""


def test_notes_compare_only_the_same_function_of_the_same_source(qtbot, panel, session,
                                                                    requests):
    load(qtbot, session, requests, SOURCE, "first.py")
    panel.args_edit.setText("f32[64]")
    measured(qtbot, panel)
    load(qtbot, session, requests, OTHER_SELU, "second.py")  # another file's selu
    panel.args_edit.setText("f32[128]")
    measured(qtbot, panel)
    assert "changed" not in panel.notes.toPlainText()
    assert "again" not in panel.notes.toPlainText()
    panel.function_choice.setCurrentText("relu")  # another function of this file
    panel.args_edit.setText("f32[256]")
    measured(qtbot, panel)
    assert "changed" not in panel.notes.toPlainText()
    panel.function_choice.setCurrentText("selu")
    measured(qtbot, panel)  # selu after relu: nothing to compare with
    assert "changed" not in panel.notes.toPlainText()
    panel.args_edit.setText("f32[512]")
    measured(qtbot, panel)  # the same selu of the same file, new shapes
    assert ("The arguments changed from (f32[256]) to (f32[512]): jit traced and compiled selu "
            "again" in panel.notes.toPlainText())


def test_the_arrangement_follows_the_size_with_slack(qtbot, panel):
    measured(qtbot, panel)
    arranger = panel.arranger
    tall, slack = arranger.tall_height(), 24

    def arranged_at(width, height):
        panel.resize(width, height)
        qtbot.waitUntil(lambda: panel.size().toTuple() == (width, height), timeout=5000)
        return panel.arrangement()

    narrow = arranger.wide_width() - 50
    assert arranged_at(narrow, tall - 1) == "switch"
    assert not panel.settings_button.isChecked() and panel.chart_button.isVisible()
    assert arranged_at(narrow, tall + slack - 1) == "switch"  # not yet
    assert arranged_at(narrow, tall + slack) == "tall"
    assert panel.settings_button.isChecked() and panel.args_edit.isVisible()
    assert arranged_at(narrow, tall) == "tall"  # stays until it no longer fits
    assert arranged_at(narrow, tall - 1) == "switch"
    wide = arranger.wide_width()
    assert arranged_at(wide + slack, tall - 1) == "wide"
    assert panel.table.isVisible() and panel.chart.isVisible()
    assert panel.table.mapTo(panel, QPoint(0, 0)).x() < panel.chart.mapTo(panel, QPoint(0, 0)).x()
    assert not panel.chart_button.isVisible()
    assert arranged_at(wide, tall - 1) == "wide"
    assert arranged_at(wide - 1, tall - 1) == "switch"
