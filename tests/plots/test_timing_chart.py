"""TimingChart: bars from zero beside the first jit call, sweep lines and the crossover."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.plots.export import settle
from workbench.plots.presentation import axis_font_size
from workbench.plots.timing_chart import (
    FirstCall,
    LogSecondsAxis,
    LogSizeAxis,
    SweepRow,
    TimingBar,
    TimingChart,
    find_crossovers,
    format_seconds,
    format_size,
)

BARS = [
    TimingBar("cpu:0", "eager", 846e-6, 20e-6),
    ("cpu:0", "jit", 222e-6, 5e-6),
    {"device": "gpu:0", "mode": "jit", "median_s": 12e-6},
    ("gpu:0", "eager", 300e-6),
    ("host", "numpy", 1.1e-3, 1e-5),
]
FIRST = [FirstCall("cpu:0", 6.62e-3, 9.68e-3, 40.7e-3, 0.72e-3),
         FirstCall("gpu:0", 3e-3, 5e-3, 80e-3, 0.1e-3)]


@pytest.fixture
def chart(qtbot):
    c = TimingChart()
    qtbot.addWidget(c)
    c.resize(500, 350)
    c.show()
    return c


def test_bars_heights_are_seconds_from_zero(chart):
    chart.set_bars(BARS)
    got = chart.bar_values()
    want = {("cpu:0", "eager"): 846e-6, ("cpu:0", "jit"): 222e-6, ("gpu:0", "jit"): 12e-6,
            ("gpu:0", "eager"): 300e-6, ("host", "numpy"): 1.1e-3}
    assert got.keys() == want.keys()
    for key, seconds in want.items():
        assert got[key] == pytest.approx(seconds, rel=1e-9)
    assert all(item.opts["y0"] == 0 for item in chart._bar_items.values())
    assert chart.barPlot.viewRange()[1][0] == 0  # the axis starts at zero
    assert chart.barPlot.getAxis("left").labelUnits == "s"  # ticks in the range's unit
    assert chart.view() == "bars"
    assert set(chart.bar_label_texts()) == {"846 µs", "222 µs", "12 µs", "300 µs", "1.1 ms"}
    ticks = chart.barPlot.getAxis("bottom")._tickLevels[0]
    assert [name for _, name in ticks] == ["cpu:0", "gpu:0", "host"]


@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_bar_lengths_keep_the_ratio_of_the_times(qtbot, scale):
    """130 against 287 µs: the bars' lengths on screen are in the ratio of the times (a log
    axis drew them about 5x apart)."""
    chart = TimingChart()
    qtbot.addWidget(chart)
    chart.set_presentation_scale(scale)
    chart.set_bars([("cpu:0", "eager", 287e-6, 5e-6), ("cpu:0", "jit", 130e-6, 2e-6)])
    chart.set_first_calls(FIRST[:1])
    chart.show()
    chart.resize(chart.minimumWidth(), int(300 * scale))
    settle(chart)
    px = chart.bar_lengths_px()
    assert px[("cpu:0", "jit")] > 20  # long enough to be read
    assert px[("cpu:0", "eager")] / px[("cpu:0", "jit")] == pytest.approx(287 / 130, rel=0.02)


def test_groups_hold_modes_side_by_side(chart):
    chart.set_bars(BARS)
    xs = {m: list(item.opts["x"]) for m, item in chart._bar_items.items()}
    assert list(chart._bar_items) == ["eager", "jit", "numpy"]
    assert xs["eager"][0] < xs["jit"][0]  # cpu group: eager then jit
    # A group has no empty slot for a mode it lacks: host's one bar follows gpu's two.
    assert xs["numpy"][0] - xs["jit"][1] == pytest.approx(1.5)
    ticks = dict((name, x) for x, name in chart.barPlot.getAxis("bottom")._tickLevels[0])
    assert ticks["cpu:0"] == pytest.approx((xs["eager"][0] + xs["jit"][0]) / 2)


def test_the_first_call_stands_beside_the_bars(qtbot, chart):
    chart.set_bars(BARS)
    assert chart.ci.getItem(0, 1) is None  # nothing timed with jit's first call yet
    chart.set_first_calls(FIRST)
    assert chart.ci.getItem(0, 0) is chart.barPlot and chart.ci.getItem(0, 1) is chart.firstPlot
    split = chart.first_call_values()
    assert split["cpu:0"] == pytest.approx(
        {"trace": 6.62e-3, "lower": 9.68e-3, "compile": 40.7e-3, "run": 0.72e-3})
    # Stacked from zero: each part starts where the one under it ends.
    trace, lower, compile_, run = chart._first_items
    assert trace.opts["y0"][0] == 0
    assert lower.opts["y0"][0] == pytest.approx(6.62e-3)
    assert run.opts["y0"][1] == pytest.approx(3e-3 + 5e-3 + 80e-3)
    assert chart.first_call_label_texts() == ["57.7 ms", "88.1 ms"]
    assert chart.legend_texts() == ["eager", "jit", "numpy", "trace", "lower", "compile", "run"]
    assert chart.firstPlot.getAxis("left").labelText == "first jit call"
    chart.set_sweep([(10, "cpu:0", "jit", 1e-5), (100, "cpu:0", "jit", 2e-5)])
    assert list(chart.ci.items) == [chart.sweepPlot]
    chart.show_view("bars")
    assert list(chart.ci.items) == [chart.barPlot, chart.firstPlot]
    chart.set_first_calls([])  # eager only: the bars alone
    assert list(chart.ci.items) == [chart.barPlot]


def test_unit_ticks():
    axis = LogSecondsAxis("left")
    assert axis.tickStrings([-9, -6, -3, 0, math.log10(0.25)], 1, 1) == [
        "1 ns", "1 µs", "1 ms", "1 s", "250 ms"]
    assert LogSizeAxis("bottom").tickStrings([0, 3, 6, 9], 1, 1) == ["1", "1k", "1M", "1G"]
    # Sizes count elements: whole-number ticks only, even when the range starts below 1.
    sizes = [10.0**v for level in LogSizeAxis("bottom").tickValues(-0.8, 1.2, 300)
             for v in level[1]]
    assert sizes and all(s >= 1 and s == pytest.approx(round(s)) for s in sizes)
    assert format_seconds(2.22e-4) == "222 µs"
    assert format_seconds(3.5e-8) == "35 ns"
    assert format_seconds(12.0) == "12 s"
    assert format_size(2500) == "2.5k"
    majors = axis.tickValues(-6.5, -2.2, 300)[0][1]
    assert majors == [-6.0, -5.0, -4.0, -3.0]


def test_crossover_is_log_interpolated():
    rows = [SweepRow(100, "cpu:0", "eager", 10e-6), SweepRow(1000, "cpu:0", "eager", 100e-6),
            SweepRow(100, "cpu:0", "jit", 100e-6), SweepRow(1000, "cpu:0", "jit", 10e-6),
            SweepRow(10, "cpu:0", "jit", 200e-6), SweepRow(10, "cpu:0", "eager", 5e-6)]
    (c,) = find_crossovers(rows)
    assert c.size == pytest.approx(math.sqrt(100 * 1000))  # symmetric in log space: midpoint
    assert "316" in c.note


def test_no_crossover_cases():
    always = [SweepRow(s, "d", "jit", 1e-6) for s in (10, 100)]
    always += [SweepRow(s, "d", "eager", 1e-5) for s in (10, 100)]
    never = [SweepRow(s, "e", "jit", 1e-5) for s in (10, 100)]
    never += [SweepRow(s, "e", "eager", 1e-6) for s in (10, 100)]
    got = {c.device: c for c in find_crossovers(always + never)}
    assert got["d"].size is None and "jit faster at every size" in got["d"].note
    assert got["e"].size is None and "eager faster at every size" in got["e"].note


def test_sweep_lines_and_crossover_marker(chart):
    sizes = [10, 100, 1000, 10_000, 100_000]
    rows = []
    for s in sizes:
        rows.append((s, "cpu:0", "eager", 20e-6 + s * 1e-9))
        rows.append((s, "cpu:0", "jit", 60e-6 + s * 0.2e-9))
        rows.append((s, "gpu:0", "eager", 30e-6))
        rows.append((s, "gpu:0", "jit", 5e-6))
    chart.set_sweep(rows)
    assert chart.view() == "sweep"
    x, y = chart.sweep_data()[("cpu:0", "jit")]
    np.testing.assert_allclose(x, np.log10(sizes))
    np.testing.assert_allclose(y, np.log10([60e-6 + s * 0.2e-9 for s in sizes]))
    cross = chart.crossovers()
    assert cross["gpu:0"] is None
    assert 10_000 < cross["cpu:0"] < 100_000
    line = chart._crossover_lines["cpu:0"]
    assert line.isVisible() and line.value() == pytest.approx(math.log10(cross["cpu:0"]))
    assert not chart._crossover_lines["gpu:0"].isVisible()
    chart.show_view("bars")
    assert chart.view() == "bars"


def test_presentation_scale(chart):
    chart.set_bars(BARS)
    before = axis_font_size(chart.barPlot, "left")
    chart.set_presentation_scale(1.5)
    assert axis_font_size(chart.barPlot, "left") == pytest.approx(1.5 * before)
    assert axis_font_size(chart.sweepPlot, "bottom") == pytest.approx(1.5 * before)
    assert chart.view() == "bars"


@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_labels_fit_at_the_minimum_size(qtbot, scale):
    chart = TimingChart()
    qtbot.addWidget(chart)
    chart.set_presentation_scale(scale)
    chart.set_bars(BARS)
    chart.set_first_calls(FIRST)
    chart.show()
    chart.resize(10, 10)  # a dock squeezed as far as it goes
    settle(chart)  # axes take their room once painted
    assert chart.height() >= 200 * scale and chart.width() >= 280 * scale
    for plot, labels, count in ((chart.barPlot, chart._bar_labels, len(BARS)),
                                (chart.firstPlot, chart._first_labels, len(FIRST))):
        axis = plot.getAxis("left")
        # The vertical title is not cut: the left axis is at least as tall as its text is long.
        assert axis.label.boundingRect().width() <= axis.geometry().height()
        view = plot.vb.sceneBoundingRect()
        shown = [t for t in labels if t.isVisible()]
        assert len(shown) == count
        assert all(view.contains(t.sceneBoundingRect()) for t in shown)  # value labels too
        legend = plot.legend.sceneBoundingRect()
        assert view.contains(legend)
        # The legend sits above every bar's value label, covering none of them.
        assert all(legend.bottom() <= t.sceneBoundingRect().top() for t in shown)
