"""The timing panel on a projector: the chart whole and readable in a short dock at 1.5x.

At 1024x768 and 1280x800 in presentation mode a lesson's timing step gave the panel a
dock some 400 px tall; the settings and the table took it all and the chart was not on
screen. The chart, its axes, their tick labels and its legends must now be, with no
scrolling, and the panel must fit the narrowest of those docks.
"""

from __future__ import annotations

import gc

import pytest
from PySide6 import QtCore, QtGui
from PySide6.QtCore import QCoreApplication, QEvent

from tests.ui.projector import PROJECTOR_DOCKS, clipped, framed, presentation_font
from tests.ui.test_timing_panel import SOURCE, TINY, WAIT_MS, measured
from workbench.api import messages as p
from workbench.plots.export import settle
from workbench.ui.control.session import Call
from workbench.ui.panels.timing_panel import TimingPanel

KERNEL_SOURCE = p.LoadSource(source=SOURCE, filename="timing.py")  # for ``bridge``


def drawn_texts(axis) -> list[tuple[QtCore.QRectF, str]]:
    """The tick texts ``axis`` draws, each with its rectangle in scene coordinates."""
    image = QtGui.QImage(8, 8, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    painter = QtGui.QPainter(image)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(axis.mapRectToScene(rect), text) for rect, _flags, text in texts]


@pytest.fixture
def shown(qtbot, session, requests):
    """``shown(dock)``: a panel measured, in presentation mode, in the dock ``dock`` of
    ``PROJECTOR_DOCKS``; gives (panel, scroll area)."""
    session.set_call(Call("selu", "f32[100000]"))
    made = []

    def make(dock):
        panel = TimingPanel(session, requests)
        panel.set_config(TINY)
        panel.set_presentation_scale(1.5)
        scroll = framed(qtbot, panel, PROJECTOR_DOCKS[dock])
        made.append(scroll)
        panel.refresh()
        qtbot.waitUntil(lambda: panel.baseline_choice.count() == 3, timeout=WAIT_MS)
        panel.baseline_choice.setCurrentText("selu_np")
        measured(qtbot, panel)
        settle(panel.chart)
        qtbot.waitUntil(lambda: not clipped(panel.chart, scroll), timeout=5000)
        return panel, scroll

    yield make
    # Deleted now, while nothing is being built (see conftest's _close_windows): pyqtgraph's
    # items left to the interpreter's exit crashed it there.
    for scroll in made:
        scroll.close()
        scroll.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


@pytest.mark.parametrize("dock", list(PROJECTOR_DOCKS))
def test_the_chart_is_whole_on_a_projector(qtbot, shown, dock):
    with presentation_font():
        panel, scroll = shown(dock)
        chart = panel.chart
        assert clipped(chart, scroll) == ""
        assert chart.height() >= 200
        assert panel.minimumSizeHint().width() <= 680
        assert clipped(panel.measure_button, scroll) == ""
        assert panel.arrangement() in ("switch", "wide")  # the settings folded away
        assert not panel.args_edit.isVisible()
        screen = QtCore.QRectF(0, 0, chart.width(), chart.height())
        plots = [chart.barPlot, chart.firstPlot]
        assert [chart.ci.getItem(0, c) for c in range(2)] == plots  # steady, first call
        for plot in plots:
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                assert screen.contains(axis.sceneBoundingRect()), f"{name} axis off screen"
                texts = drawn_texts(axis)
                assert len(texts) >= (2 if name == "left" else 1), f"{name} ticks unlabelled"
                for rect, text in texts:
                    assert screen.contains(rect), f"tick {text!r} off screen"
                    assert axis.sceneBoundingRect().contains(rect), f"tick {text!r} cut"
            title = plot.getAxis("left").label
            assert screen.contains(title.sceneBoundingRect())
            assert title.boundingRect().width() <= plot.getAxis("left").geometry().height()
            legend = plot.legend.sceneBoundingRect()
            assert plot.vb.sceneBoundingRect().contains(legend) and screen.contains(legend)
        assert [t for _r, t in drawn_texts(chart.barPlot.getAxis("bottom"))] == ["cpu:0", "host"]
        assert chart.legend_texts() == ["eager", "jit", "numpy",
                                        "trace", "lower", "compile", "run"]


def test_the_table_is_one_click_away_in_a_short_narrow_dock(qtbot, shown):
    with presentation_font():
        panel, scroll = shown("1024x768 lesson")
        assert panel.arrangement() == "switch"
        assert panel.chart_button.isChecked() and not panel.table.isVisible()
        assert clipped(panel.table_button, scroll) == ""
        panel.table_button.click()
        qtbot.waitUntil(lambda: panel.table.isVisible(), timeout=5000)
        assert not panel.chart.isVisible()
        assert clipped(panel.table, scroll) == "" and clipped(panel.notes, scroll) == ""
        panel.chart_button.click()
        assert panel.chart.isVisible() and not panel.table.isVisible()


def test_the_table_stands_beside_the_chart_in_a_wide_dock(qtbot, shown):
    with presentation_font():
        panel, scroll = shown("1280x800")
        assert panel.arrangement() == "wide"
        assert clipped(panel.table, scroll) == "" and clipped(panel.chart, scroll) == ""
        assert not panel.table_button.isVisible()
        table_right = panel.table.mapTo(panel, QtCore.QPoint(panel.table.width(), 0)).x()
        assert table_right <= panel.chart.mapTo(panel, QtCore.QPoint(0, 0)).x()
