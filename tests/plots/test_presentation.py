"""Light/dark schemes and presentation zoom on every plot widget."""

from __future__ import annotations

import pytest

from tests.plots.test_export import _distortion, _function_plot, _heatmap, _timing_chart
from workbench.plots.kmeans_scatter import KMeansScatter
from workbench.plots.presentation import axis_font_size


@pytest.mark.parametrize("make", [_function_plot, _timing_chart, _heatmap, _distortion,
                                  KMeansScatter])
def test_light_and_dark_schemes(qtbot, make):
    from workbench.plots.presentation import scheme_colours

    widget = make()
    qtbot.addWidget(widget)
    for scheme in ("light", "dark"):
        widget.set_scheme(scheme)
        bg, fg = scheme_colours(scheme)
        assert widget.backgroundBrush().color() == bg
        item = getattr(widget, "plotItem", None) or widget.barPlot
        assert item.getAxis("left").textPen().color() == fg


def test_heatmap_presentation_scale(qtbot):
    h = _heatmap()
    qtbot.addWidget(h)
    before = axis_font_size(h.plotItem)
    h.set_presentation_scale(1.5)
    assert axis_font_size(h.plotItem) == pytest.approx(1.5 * before)
    assert h._labels[0].textItem.font().pointSizeF() == pytest.approx(1.5 * before)
