"""FunctionPlot and HessianHeatmap driven as the panel will drive them."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from workbench.api.curves import PointValues
from workbench.plots.function_plot import (
    SNAP_PX,
    FunctionPlot,
    finite_difference_error,
    gap_markers,
    interpolate,
    order_name,
    order_style,
    sampled_kinks,
    shortest_decimal,
)
from workbench.plots.heatmap import HessianHeatmap
from workbench.plots.palette import OKABE_ITO
from workbench.plots.presentation import axis_font_size

X = np.linspace(-3.0, 3.0, 301)


def tanh_curves(x: np.ndarray) -> dict[int, np.ndarray]:
    t = np.tanh(x)
    return {0: t, 1: 1 - t**2, 2: -2 * t * (1 - t**2)}


@pytest.fixture
def plot(qtbot):
    p = FunctionPlot()
    qtbot.addWidget(p)
    p.resize(500, 350)
    p.show()
    return p


def test_second_set_curves_reuses_the_items(plot):
    plot.set_curves("tanh", X, tanh_curves(X))
    items = {k: plot.curve_item("tanh", k) for k in range(3)}
    plot.set_curves("tanh", X, tanh_curves(2 * X))
    for k in range(3):
        assert plot.curve_item("tanh", k) is items[k]
        np.testing.assert_allclose(items[k].getData()[1], tanh_curves(2 * X)[k])


def test_functions_keep_colours_and_orders_get_line_styles(plot):
    # Colour tells the functions apart, line style the orders: selu, sigmoid and relu overlaid
    # no longer differ by dash pattern alone.
    plot.set_curves("tanh", X, tanh_curves(X))
    plot.set_curves("sin", X, {0: np.sin(X), 1: np.cos(X)})
    a, b = plot.curve_item("tanh", 1).opts["pen"], plot.curve_item("sin", 1).opts["pen"]
    assert a.color() != b.color()
    assert a.style() == b.style() == order_style(1) == QtCore.Qt.PenStyle.DashLine
    tanh = [plot.curve_item("tanh", k).opts["pen"] for k in range(3)]
    assert {pen.color().name() for pen in tanh} == {plot.colour("tanh").name()}
    assert [pen.style() for pen in tanh] == [QtCore.Qt.PenStyle.SolidLine,
                                             QtCore.Qt.PenStyle.DashLine,
                                             QtCore.Qt.PenStyle.DotLine]
    assert {plot.colour(n).name().upper() for n in ("tanh", "sin")} <= set(OKABE_ITO)
    legend = [label.text for _, label in plot.plotItem.legend.items]
    assert {"tanh", "tanh′", "tanh″", "sin", "sin′"} <= set(legend)
    # A removed function gives its colour back; the next one takes it, not a clash.
    sin_colour = plot.colour("sin")
    plot.remove_function("sin")
    plot.set_curves("cos", X, {0: np.cos(X)})
    assert plot.colour("cos") == sin_colour != plot.colour("tanh")


def _on_screen(plot, item) -> QtCore.QRectF:
    """Where ``item`` is drawn, in the widget's viewport coordinates."""
    return plot.mapFromScene(item.sceneBoundingRect()).boundingRect().toRectF()


def legend_problems(plot) -> list[str]:
    """Entries of the legend that are cut off by the widget's edge or drawn on the view box."""
    view = _on_screen(plot, plot.vb)
    visible = QtCore.QRectF(plot.viewport().rect())
    problems = []
    for sample, label in plot.legend.items:
        for part in (sample, label):
            rect = _on_screen(plot, part)
            if not part.isVisible() or not visible.contains(rect):
                problems.append(f"{label.text} cut off at {rect}")
            if rect.intersects(view):
                problems.append(f"{label.text} on the curves at {rect}")
    return problems


def test_legend_beside_the_plot_never_on_the_curves_nor_cut_off(plot, qtbot):
    for name in ("selu", "sigmoid", "relu"):
        plot.set_curves(name, X, {k: np.sin(X + k) for k in range(3)})
    want = [order_name(n, k) for n in ("selu", "sigmoid", "relu") for k in range(3)]
    assert plot.legend_labels() == want
    qtbot.waitUntil(lambda: legend_problems(plot) == [], timeout=2000)
    # Shorter and zoomed for a projector: the legend takes columns instead of running off.
    plot.resize(500, 220)
    plot.set_presentation_scale(2.0)
    qtbot.waitUntil(lambda: plot.legend.columnCount > 1 and legend_problems(plot) == [],
                    timeout=2000)
    assert plot.legend_labels() == want


def test_dropped_order_is_removed(plot):
    plot.set_curves("tanh", X, tanh_curves(X))
    plot.set_curves("tanh", X, {0: np.tanh(X)})
    assert "tanh″" not in [label.text for _, label in plot.plotItem.legend.items]
    with pytest.raises(KeyError):
        plot.curve_item("tanh", 2)


def test_non_finite_values_are_gaps_with_a_marker(plot):
    with np.errstate(divide="ignore"):
        y = 1 / X  # inf at x = 0 (X holds 0.0 exactly)
    y[10:20] = np.nan
    plot.set_curves("inv", X, {0: y})
    item = plot.curve_item("inv", 0)
    drawn = item.getData()[1]
    assert item.opts["connect"] == "finite"
    assert np.isnan(drawn[150]) and np.isnan(drawn[10:20]).all()
    gx, gy = plot.gap_item("inv", 0).getData()
    assert len(gx) == 2  # two runs: [10, 20) and x == 0
    assert gx[0] == pytest.approx((X[10] + X[19]) / 2)
    assert gy[0] == pytest.approx((y[9] + y[20]) / 2)


def test_masks_from_the_engine_become_gaps(plot):
    mask = np.zeros_like(X, dtype=bool)
    mask[100:105] = True
    plot.set_curves("tanh", X, {0: np.tanh(X)}, masks={0: mask})
    assert np.isnan(plot.curve_item("tanh", 0).getData()[1][100:105]).all()
    assert len(plot.gap_item("tanh", 0).getData()[0]) == 1


def test_gap_markers_edge_runs():
    y = np.array([np.nan, 1.0, 2.0, np.inf])
    gx, gy = gap_markers(np.arange(4.0), y)
    np.testing.assert_allclose(gx, [0.0, 3.0])
    np.testing.assert_allclose(gy, [1.0, 2.0])
    assert len(gap_markers(np.arange(3.0), np.full(3, np.nan))[0]) == 0


def test_pan_emits_the_new_range(plot, qtbot):
    plot.set_curves("tanh", X, tanh_curves(X))
    with qtbot.waitSignal(plot.sig_range_changed, timeout=2000) as blocker:
        plot.setXRange(-1.0, 0.5, padding=0)
    lo, hi = blocker.args
    assert lo == pytest.approx(-1.0) and hi == pytest.approx(0.5)


def test_fresh_samples_of_the_shown_range_do_not_ask_again(plot, qtbot):
    # The x range follows the samples exactly (no padding), so the plot does not ask the
    # engine again for the range it was just given, and the view cannot creep.
    with qtbot.assertNotEmitted(plot.sig_range_changed, wait=150):
        plot.set_curves("tanh", X, tanh_curves(X))
    assert plot.viewRange()[0] == pytest.approx([X[0], X[-1]])


def test_readout_equals_samples_at_sample_points(plot):
    curves = tanh_curves(X)
    plot.set_curves("tanh", X, curves)
    for i in (0, 17, 150, 300):
        got = plot.readout_at(X[i])
        assert got == {k: curves[k][i] for k in range(3)}
    mid = (X[10] + X[11]) / 2
    assert plot.readout_at(mid)[0] == pytest.approx((curves[0][10] + curves[0][11]) / 2)
    assert np.isnan(plot.readout_at(99.0)[0])


def test_crosshair_label_shows_the_values(plot):
    plot.set_curves("tanh", X, tanh_curves(X))
    plot.set_cursor(X[200])
    text = plot.readout_text()
    assert f"x = {X[200]:.6g}" in text
    assert f"tanh′ = {1 - np.tanh(X[200]) ** 2:.6g}" in text
    plot.set_cursor(None)
    assert plot.readout_text() == ""


RELU_X = np.linspace(-5.0, 5.0, 100)  # no sample at 0: the kink falls between two


def relu_curves(x: np.ndarray) -> dict[int, np.ndarray]:
    return {0: np.maximum(x, 0.0), 1: (x > 0).astype(float), 2: np.zeros_like(x)}


def point(x: float, values, defined=(True, True, True), note="") -> PointValues:
    """What the engine answers to ``CurvesAt`` for relu (its numbers, as plain data)."""
    return PointValues("relu", "x", float(np.float32(x)), tuple(values), tuple(defined),
                       defined[1], note)


def test_readout_never_interpolates_across_a_kink(plot, qtbot):
    plot.set_curves("relu", RELU_X, relu_curves(RELU_X))
    plot.set_tangent_visible(True)
    assert plot.readout_at(-0.01)[1] == pytest.approx(0.4, abs=0.01)  # what interpolation says
    with qtbot.waitSignal(plot.sig_cursor_moved) as moved:
        plot.set_cursor(-0.01)
    assert moved.args == [-0.01]  # the panel asks the engine for exactly this x
    assert plot.cursor_values() == {}  # until it answers: nothing made up
    assert "relu′ = …" in plot.readout_text() and "0.4" not in plot.readout_text()
    assert len(plot.tangent_data()[0]) == 0
    plot.set_point_values(point(-0.01, (0.0, 0.0, 0.0)))
    assert plot.cursor_values() == {0: 0.0, 1: 0.0, 2: 0.0}
    assert "relu′ = 0&" in plot.readout_text()
    tx, ty = plot.tangent_data()
    assert (ty[1] - ty[0]) / (tx[1] - tx[0]) == 0.0
    # Values for another x, or for curves since replaced, are not shown.
    plot.set_cursor(-0.02)
    assert plot.cursor_values() == {}
    plot.set_point_values(point(-0.02, (0.0, 0.0, 0.0)))
    plot.set_curves("relu", RELU_X, relu_curves(RELU_X))
    assert plot.cursor_values() == {}


def test_readout_flags_where_f_is_not_differentiable(plot):
    plot.set_curves("relu", RELU_X, relu_curves(RELU_X))
    plot.set_tangent_visible(True)
    plot.set_cursor(0.0)
    note = "relu is not differentiable at x = 0: left derivative 0, right 1"
    plot.set_point_values(point(0.0, (0.0, 0.5, 0.0), (True, False, False), note))
    text = plot.readout_text()
    assert "relu = 0&" in text and "relu′ = undefined" in text and "relu″ = undefined" in text
    assert "not differentiable here" in text and note in text
    assert plot.cursor_differentiable() is False
    assert len(plot.tangent_data()[0]) == 0  # no tangent at a kink
    assert len(plot._cursor_dots.getData()[0]) == 1  # a dot for relu(0) only


def test_tangent_slope_equals_the_derivative(plot):
    curves = tanh_curves(X)
    plot.set_curves("tanh", X, curves)
    plot.set_tangent_visible(True)
    plot.set_cursor(X[120])
    tx, ty = plot.tangent_data()
    slope = (ty[1] - ty[0]) / (tx[1] - tx[0])
    assert slope == pytest.approx(curves[1][120], rel=1e-9)
    # and it touches the curve at the cursor
    assert ty[0] + slope * (X[120] - tx[0]) == pytest.approx(curves[0][120])
    plot.set_tangent_visible(False)
    assert len(plot.tangent_data()[0]) == 0


def test_finite_difference_error_is_small_and_second_order():
    errs = []
    for n in (101, 201):
        x = np.linspace(0, 2, n)
        e = finite_difference_error(x, {0: np.sin(x), 1: np.cos(x)})[1]
        errs.append(np.nanmax(e[1:-1]))
    assert errs[0] < 1e-3
    assert errs[0] / errs[1] == pytest.approx(4, rel=0.1)  # halve h, quarter the error


def test_error_panel_shows_the_error_curves(plot):
    plot.set_curves("tanh", X, tanh_curves(X))
    assert plot.error_curves() == {}
    plot.set_error_visible(True)
    curves = plot.error_curves()
    assert set(curves) == {1, 2}
    np.testing.assert_allclose(curves[1][1], finite_difference_error(X, tanh_curves(X))[1])
    plot.set_error_visible(False)
    assert plot.errorPlot.scene() is None


def test_presentation_scale_changes_fonts_and_lines(plot):
    plot.set_curves("tanh", X, tanh_curves(X))
    before = axis_font_size(plot.plotItem)
    width = plot.curve_item("tanh", 0).opts["pen"].widthF()
    sample, label = plot.legend.items[0]
    sample_width, label_height = sample.preferredWidth(), label.preferredHeight()
    plot.set_presentation_scale(2.0)
    assert axis_font_size(plot.plotItem) == pytest.approx(2 * before)
    assert plot.curve_item("tanh", 0).opts["pen"].widthF() == pytest.approx(2 * width)
    assert sample.preferredWidth() == pytest.approx(2 * sample_width)
    assert label.preferredHeight() > 1.5 * label_height
    plot.set_curves("sin", X, {0: np.sin(X)})  # added while zoomed: zoomed too
    assert plot.legend.items[-1][0].preferredWidth() == pytest.approx(2 * sample_width)
    plot.set_presentation_scale(1.0)  # no compounding
    assert axis_font_size(plot.plotItem) == pytest.approx(before)
    assert sample.preferredWidth() == pytest.approx(sample_width)


def test_helpers():
    assert [order_name("f", k) for k in range(5)] == ["f", "f′", "f″", "f‴", "f⁽⁴⁾"]
    assert np.isnan(interpolate(np.array([0.0, 1.0]), np.array([np.nan, 1.0]), 0.5))
    assert interpolate(np.array([0.0, 1.0]), np.array([np.nan, 1.0]), 1.0) == 1.0


def test_hessian_heatmap(qtbot):
    h = HessianHeatmap()
    qtbot.addWidget(h)
    m = np.array([[2.0, -1.0, 0.0], [-1.0, 3.0, 0.5], [0.0, 0.5, -4.0]])
    h.set_matrix(m, names=["a", "b", "c"])
    np.testing.assert_array_equal(h.image.image, m)
    assert h.colorbar.levels() == pytest.approx((-4.0, 4.0))  # symmetric: zero is the midpoint
    assert h.cell_labels() == [f"{v:.3g}" for v in m.ravel()]
    assert h.value_text(1, 2) == "∂²f/∂b∂c = H[1, 2] = 0.5"
    h.set_matrix(np.eye(12))
    assert h.cell_labels() == []  # too many cells to label; the tooltip remains
    with pytest.raises(ValueError):
        h.set_matrix(np.ones((2, 3)))


def test_hessian_tooltip_on_hover(qtbot):
    h = HessianHeatmap()
    qtbot.addWidget(h)
    h.resize(300, 300)
    h.show()
    h.set_matrix(np.array([[1.0, 2.0], [3.0, 4.0]]))
    scene_pos = h.plotItem.vb.mapViewToScene(QtCore.QPointF(1.5, 0.5))
    h.scene().sigMouseMoved.emit(scene_pos)
    assert h.toolTip() == h.value_text(0, 1)


# -- kinks and the crosshair's snap ---------------------------------------------------------


def selu_curves(x: np.ndarray, alpha: float, lmbda: float = 1.05) -> dict[int, np.ndarray]:
    return {0: lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha),
            1: lmbda * np.where(x > 0, 1.0, alpha * np.exp(x))}


def test_sampled_kinks_finds_kinks_and_steps_at_their_exact_x():
    x = np.linspace(-5.0, 5.0, 1000)  # no sample at 0
    assert sampled_kinks(x, relu_curves(x)) == [0.0]
    assert sampled_kinks(x, selu_curves(x, alpha=1.67)) == [0.0]
    assert sampled_kinks(x, {0: np.abs(x - 1.5), 1: np.sign(x - 1.5)}) == [1.5]
    assert sampled_kinks(x, {0: (x > 0.5).astype(float)}) == [0.5]  # a step in f
    assert sampled_kinks(x, {0: np.floor(x)}) == [float(k) for k in range(-4, 6)]  # 5: last
    # A sample on the kink, where JAX's derivative is a convention (relu′(0) = 0.5).
    on = np.linspace(-3.0, 3.0, 1001)
    d1 = np.where(on > 1, 1.0, np.where(on == 1, 0.5, 0.0))
    assert sampled_kinks(on, {0: np.maximum(on, 1.0), 1: d1}) == [1.0]


def test_sampled_kinks_leave_smooth_curves_alone():
    x = np.linspace(-5.0, 5.0, 1000)
    assert sampled_kinks(x, selu_curves(x, alpha=1.0)) == []  # f′ continuous when alpha = 1
    assert sampled_kinks(x, tanh_curves(x)) == []
    assert sampled_kinks(x, {0: np.sin(3 * x), 1: 3 * np.cos(3 * x)}) == []
    assert sampled_kinks(x, {0: 1 / (1 + np.exp(-30 * x))}) == []  # steep is not a kink
    with np.errstate(divide="ignore", invalid="ignore"):
        log = np.log(x)
    assert sampled_kinks(x, {0: log, 1: 1 / x}) == []  # a gap is not a kink


def test_shortest_decimal():
    assert shortest_decimal(0.99999994, 1e-4, 0.99, 1.01) == 1.0
    assert shortest_decimal(-1e-9, 1e-4, -0.01, 0.01) == 0.0
    assert str(shortest_decimal(-1e-9, 1e-4, -0.01, 0.01)) == "0.0"  # never -0.0
    assert shortest_decimal(0.1234561, 1e-6, 0.12, 0.13) == 0.123456
    assert shortest_decimal(0.5, 1e-3, 0.6, 0.7) == 0.5  # nothing in range: the estimate


def test_the_mouse_snaps_to_zero_and_to_kinks(plot):
    plot.set_curves("relu", RELU_X, relu_curves(RELU_X))
    plot.set_curves("hinge", X, {0: np.abs(X - 1.5), 1: np.sign(X - 1.5)})
    assert plot.snap_targets() == [0.0, 1.5]
    QtWidgets.QApplication.processEvents()  # the view follows the samples
    per_px = plot.vb.viewPixelSize()[0]

    def mouse_at(x: float, dx_px: float) -> float | None:
        pos = plot.vb.mapViewToScene(QtCore.QPointF(x, 0.5)) + QtCore.QPointF(dx_px, 0)
        plot.scene().sigMouseMoved.emit(pos)
        return plot.cursor_x()

    assert mouse_at(0.0, 2.0) == 0.0 and "x = 0<br>" in plot.readout_text()
    assert mouse_at(0.0, -(SNAP_PX - 0.5)) == 0.0
    assert mouse_at(1.5, 3.0) == 1.5
    far = mouse_at(0.0, SNAP_PX + 3)
    assert far == pytest.approx((SNAP_PX + 3) * per_px, rel=0.05) and far != 0.0
    # Where the engine said f is not differentiable, the mouse snaps too.
    plot.set_known_kinks("relu", [0.7])
    assert mouse_at(0.7, 2.0) == 0.7
    plot.set_known_kinks("relu", [])
    assert mouse_at(0.7, 2.0) != 0.7


def test_heatmap_index_axes_have_integer_ticks_only(qtbot):
    h = HessianHeatmap()
    qtbot.addWidget(h)
    h.resize(300, 260)
    h.show()
    h.set_matrix(np.eye(3) * 1e-3)  # tiny values: no "(x0.001)" on an index axis
    for axis in ("bottom", "left"):
        assert h.tick_labels(axis) == [(0.5, "x0"), (1.5, "x1"), (2.5, "x2")]
        assert "x0.001" not in h.plotItem.getAxis(axis).labelString()
        assert not h.plotItem.getAxis(axis).autoSIPrefix
    h.set_matrix(np.eye(60))  # too many names for the width: every 2nd, 5th, 10th... one
    for axis in ("bottom", "left"):
        ticks = h.tick_labels(axis)
        indices = [int(v) for v, _ in ticks]
        assert all(v == i + 0.5 for (v, _), i in zip(ticks, indices, strict=True))
        assert [text for _, text in ticks] == [f"x{i}" for i in indices]
        step = indices[1] - indices[0]
        assert step in (2, 5, 10, 20) and indices == list(range(0, 60, step))
