"""FunctionPlotPanel on a real engine kernel (one per module), driven like a user would."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from workbench.api import messages as p
from workbench.plots.presentation import axis_font_size
from workbench.ui.control.session import Call
from workbench.ui.panels.plot_panel import FunctionPlotPanel, default_slider_range, parse_point

SOURCE = """\
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def sigmoid(x):
    return 1 / (1 + jnp.exp(-x))

def relu(x):
    return jnp.maximum(0.0, x)

def log(x):
    return jnp.log(x)

def vector(x):
    return jnp.stack([x, 2 * x])

def power(x, n=3):
    return x ** n

def sum_logistic(x):
    return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))
"""
WAIT_MS = 60_000
KERNEL_SOURCE = p.LoadSource(source=SOURCE, filename="plots.py")  # for ``bridge``


@pytest.fixture
def panel(qtbot, session, requests):
    session.set_call(Call("selu"))
    panel = FunctionPlotPanel(session, requests)
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    return panel


def shown(qtbot, panel, action, until=lambda c: True):
    """Run ``action`` and return the first drawn Curves for which ``until`` holds."""
    with qtbot.waitSignal(panel.sig_curves_shown, timeout=WAIT_MS,
                          check_params_cb=until) as blocker:
        action()
    return blocker.args[0]


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)


def test_slider_drag_replots_without_recompiling(qtbot, panel):
    first = shown(qtbot, panel, lambda: panel.set_current("selu"))
    assert [cp.name for cp in first.params] == ["alpha", "lmbda"]
    slider = panel.slider("alpha")
    assert slider.bounds() == pytest.approx((0.0, 3.34))
    assert slider.step() == pytest.approx(3.34 / 200)
    compiled_before = panel.compilations
    # A drag: many steps without waiting; only the newest values matter at the end.
    for tick in range(60, 140, 8):
        slider.slider.setValue(tick)
    want = slider.value()
    assert want == pytest.approx(slider.slider_value(132))
    last = shown(qtbot, panel, lambda: None,
                 until=lambda c: c.param_values()["alpha"] == pytest.approx(want))
    assert last.compiled is False
    assert panel.compilations == compiled_before
    assert panel.replies <= 1 + 10  # never more replies than steps: nothing queued twice
    np.testing.assert_allclose(last.values[0], selu(last.x.astype(np.float64), alpha=want),
                               rtol=2e-5, atol=2e-6)
    x_drawn, y_drawn = panel.plot.curve_item("selu", 0).getData()
    np.testing.assert_array_equal(y_drawn, last.values[0].astype(float))
    # Typing a value outside the range widens it and re-plots.
    last = shown(qtbot, panel, lambda: panel.set_param("alpha", 5.0),
                 until=lambda c: c.param_values()["alpha"] == 5.0)
    assert slider.bounds()[1] == 5.0 and not last.compiled


def test_pan_resamples_the_new_view(qtbot, panel):
    shown(qtbot, panel, lambda: panel.set_current("sigmoid"))
    curves = shown(qtbot, panel, lambda: panel.plot.setXRange(1.0, 3.0, padding=0),
                   until=lambda c: c.x[0] == pytest.approx(1.0))
    (lo, hi), _ = panel.plot.viewRange()
    assert curves.x[0] == pytest.approx(lo, abs=1e-6) and curves.x[-1] == pytest.approx(hi,
                                                                                        abs=1e-6)
    assert len(curves.x) == panel.points() == 1000  # fresh samples, not stretched old ones
    assert panel.x_range() == (lo, hi)
    assert float(panel.lo_edit.text()) == pytest.approx(lo, rel=1e-5)


def test_crosshair_reads_the_engine_samples(qtbot, panel, load):
    from workbench.engine.curves import sample_curves

    curves = shown(qtbot, panel, lambda: panel.set_current("selu"))
    i = 123
    x = float(curves.x[i])
    panel.plot.set_cursor(x)
    readout = panel.plot.readout_at(x)
    assert readout == {k: float(v[i]) for k, v in enumerate(curves.values)}
    local = sample_curves(load(SOURCE, "plots.py"), "selu", order=2, points=1000,
                          params=curves.param_values())
    np.testing.assert_allclose([readout[k] for k in range(3)],
                               [v[i] for v in local.values], rtol=1e-6)
    assert f"{readout[1]:.6g}" in panel.plot.readout_text()
    panel.tangent_box.setChecked(True)
    tx, ty = panel.plot.tangent_data()
    assert (ty[1] - ty[0]) / (tx[1] - tx[0]) == pytest.approx(readout[1], rel=1e-5)
    panel.error_box.setChecked(True)
    assert set(panel.plot.error_curves()) == {1, 2}


def test_overlay_selu_sigmoid_relu_and_order(qtbot, panel):
    shown(qtbot, panel, lambda: panel.set_current("selu"))
    panel.add_function("sigmoid")
    panel.add_function("relu")
    qtbot.waitUntil(lambda: all(panel.last_curves(n) is not None
                                for n in ("selu", "sigmoid", "relu")), timeout=WAIT_MS)
    assert panel.plot.functions() == ["selu", "sigmoid", "relu"]
    panel.set_order(1)
    qtbot.waitUntil(lambda: all(panel.last_curves(n).order == 1
                                for n in ("selu", "sigmoid", "relu")), timeout=WAIT_MS)
    relu = panel.last_curves("relu")
    np.testing.assert_array_equal(relu.values[1], (relu.x > 0).astype(np.float32))
    # The editor moves on: the followed function is replaced, the added ones stay.
    shown(qtbot, panel, lambda: panel.set_current("power"),
          until=lambda c: c.function == "power")
    assert panel.functions() == ["sigmoid", "relu", "power"]
    panel.remove_function("relu")
    assert "relu" not in panel.plot.functions()


def legend_problems(plot) -> list[str]:
    """Legend entries cut off by the plot's edge or drawn on its view box."""
    def on_screen(item):
        return plot.mapFromScene(item.sceneBoundingRect()).boundingRect().toRectF()

    view, visible = on_screen(plot.vb), QtCore.QRectF(plot.viewport().rect())
    return [f"{label.text} at {on_screen(part)}"
            for sample, label in plot.legend.items for part in (sample, label)
            if not part.isVisible() or not visible.contains(on_screen(part))
            or on_screen(part).intersects(view)]


def test_three_functions_one_colour_each_legend_beside_the_plot(qtbot, panel):
    shown(qtbot, panel, lambda: panel.set_current("selu"))
    panel.add_function("sigmoid")
    panel.add_function("relu")
    names = ("selu", "sigmoid", "relu")
    qtbot.waitUntil(lambda: all(panel.last_curves(n) is not None for n in names),
                    timeout=WAIT_MS)
    colours = {n: panel.plot.colour(n).name() for n in names}
    assert len(set(colours.values())) == 3
    for n in names:  # f, f′, f″ of one function: one colour, three line styles
        pens = [panel.plot.curve_item(n, k).opts["pen"] for k in range(3)]
        assert {pen.color().name() for pen in pens} == {colours[n]}
        assert len({pen.style() for pen in pens}) == 3
    assert panel.plot.legend_labels() == ["selu", "selu′", "selu″", "sigmoid", "sigmoid′",
                                          "sigmoid″", "relu", "relu′", "relu″"]
    qtbot.waitUntil(lambda: legend_problems(panel.plot) == [], timeout=WAIT_MS)


def point_shown(qtbot, panel, action, name, x):
    """Run ``action`` and return the engine's values of ``name`` at ``x`` once on the readout."""
    x32 = float(np.float32(x))
    with qtbot.waitSignal(panel.sig_point_shown, timeout=WAIT_MS,
                          check_params_cb=lambda v: v.function == name and v.x == x32) as b:
        action()
    return b.args[0]


def test_readout_is_the_engines_value_at_the_cursor(qtbot, panel):
    panel.points_spin.setValue(100)  # no sample at 0: interpolation would read relu′ = 0.4
    shown(qtbot, panel, lambda: panel.set_current("relu"),
          until=lambda c: c.function == "relu" and len(c.x) == 100)
    assert panel.plot.readout_at(-0.01)[1] == pytest.approx(0.4, abs=0.01)
    values = point_shown(qtbot, panel, lambda: panel.plot.set_cursor(-0.01), "relu", -0.01)
    assert values.values[1] == 0.0 and values.differentiable
    assert panel.plot.cursor_values() == {0: 0.0, 1: 0.0, 2: 0.0}
    assert "relu′ = 0&" in panel.plot.readout_text()
    assert "not differentiable" not in panel.plot.readout_text()
    values = point_shown(qtbot, panel, lambda: panel.plot.set_cursor(0.0), "relu", 0.0)
    assert not values.differentiable and panel.plot.cursor_differentiable() is False
    text = panel.plot.readout_text()
    assert "relu′ = undefined" in text and "not differentiable here" in text
    assert "left derivative 0, right 1" in text


def test_cursor_requests_coalesce_and_the_latest_x_wins(qtbot, panel):
    shown(qtbot, panel, lambda: panel.set_current("selu"))
    panel.add_function("sigmoid")
    qtbot.waitUntil(lambda: panel.last_curves("sigmoid") is not None, timeout=WAIT_MS)
    sent = []
    panel.requests.engine.sig_request_sent.connect(
        lambda r: sent.append(r) if isinstance(r, p.CurvesAt) else None)
    xs = np.linspace(-2.0, 1.0, 25)  # a fast mouse: no reply can land in between
    last = point_shown(qtbot, panel, lambda: [panel.plot.set_cursor(x) for x in xs],
                       "selu", 1.0)
    qtbot.waitUntil(lambda: panel.plot.cursor_values("sigmoid") != {}, timeout=WAIT_MS)
    assert len([r for r in sent if r.name == "selu"]) == 2  # the first x, then the newest
    assert [r.x for r in sent if r.name == "selu"] == [xs[0], xs[-1]]
    assert last.values[1] == pytest.approx(1.05, rel=1e-6)  # selu′(1) = lmbda
    assert panel.plot.cursor_values("selu")[1] == last.values[1]
    s = 1 / (1 + math.exp(-1.0))
    assert panel.plot.cursor_values("sigmoid")[1] == pytest.approx(s * (1 - s), rel=1e-5)
    # A new lmbda re-plots, and the readout follows with values for the new curves.
    with qtbot.waitSignal(panel.sig_point_shown, timeout=WAIT_MS,
                          check_params_cb=lambda v: v.function == "selu"
                          and v.values[1] == pytest.approx(0.5, rel=1e-6)):
        panel.set_param("lmbda", 0.5, name="selu")
    assert panel.plot.cursor_values("selu")[1] == pytest.approx(0.5, rel=1e-6)


def test_hessian_pane_explains_a_function_of_one_number(qtbot, panel):
    pane = panel.hessian
    shown(qtbot, panel, lambda: panel.set_current("selu"))
    assert pane.explains_one_number()
    assert pane.explanation.isVisible() and "second derivative" in pane.explanation.text()
    assert "selu″" in pane.explanation.text()
    for widget in (panel.heatmap, panel.point_edit, panel.hessian_button, panel.hessian_info):
        assert not widget.isVisible()  # no empty axes, no meaningless point
    shown(qtbot, panel, lambda: panel.set_current("sum_logistic"),
          until=lambda c: c.function == "sum_logistic")
    assert not pane.explains_one_number()
    assert panel.point_edit.isVisible() and panel.hessian_button.isVisible()
    assert not panel.heatmap.isVisible()  # nothing to show yet: no empty axes either
    with qtbot.waitSignal(panel.sig_hessian_shown, timeout=WAIT_MS):
        panel.hessian_button.click()
    assert panel.heatmap.isVisible() and not pane.explanation.isVisible()
    # Back to an R -> R function: its explanation, not sum_logistic's matrix.
    shown(qtbot, panel, lambda: panel.set_current("relu"), until=lambda c: c.function == "relu")
    assert pane.explains_one_number() and not panel.heatmap.isVisible()
    assert "relu″" in pane.explanation.text()


def test_integer_parameter_slider(qtbot, panel):
    curves = shown(qtbot, panel, lambda: panel.set_current("power"))
    slider = panel.slider("n")
    assert slider.integer and slider.step() == 1 and slider.bounds() == (0.0, 10.0)
    assert curves.params[0].integer
    curves = shown(qtbot, panel, lambda: slider.slider.setValue(2),
                   until=lambda c: c.param_values()["n"] == 2)
    np.testing.assert_allclose(curves.values[0], curves.x ** 2, rtol=1e-5, atol=1e-5)


def test_non_scalar_function_message_and_panel_stays_usable(qtbot, panel):
    with qtbot.waitSignal(panel.sig_message, timeout=WAIT_MS,
                          check_params_cb=lambda text: "vector" in text):
        panel.set_current("vector")
    text = panel.message_text()
    assert "f32[2]" in text and "R -> R" in text
    assert panel.message.isVisible()
    shown(qtbot, panel, lambda: panel.set_current("sigmoid"))
    assert "vector" not in panel.message_text()


def test_reversed_range_message_then_recovery(qtbot, panel):
    shown(qtbot, panel, lambda: panel.set_current("sigmoid"))
    panel.lo_edit.setText("3")
    panel.hi_edit.setText("-3")
    with qtbot.waitSignal(panel.sig_message, timeout=WAIT_MS,
                          check_params_cb=lambda text: "reversed" in text):
        panel.lo_edit.editingFinished.emit()
    assert panel.plot.functions() == ["sigmoid"]  # last good curves stay
    panel.lo_edit.setText("abc")
    panel.lo_edit.editingFinished.emit()
    assert "must be numbers" in panel.message_text()
    panel.lo_edit.setText("-2")
    panel.hi_edit.setText("2")
    curves = shown(qtbot, panel, panel.lo_edit.editingFinished.emit,
                   until=lambda c: c.x[0] == -2)
    assert curves.x[-1] == 2
    qtbot.waitUntil(lambda: panel.message_text() == "", timeout=WAIT_MS)


def test_nan_function_shows_gaps(qtbot, panel):
    panel.set_range(-1.0, 1.0)
    curves = shown(qtbot, panel, lambda: panel.set_current("log"))
    assert curves.nonfinite[0][:400].all()
    gx, _gy = panel.plot.gap_item("log", 0).getData()
    assert len(gx) >= 1
    assert "not finite" in panel.message_text() and "gaps" in panel.message_text()


def test_hessian_heatmap_at_a_point(qtbot, panel):
    shown(qtbot, panel, lambda: panel.set_current("sum_logistic"))
    panel.point_edit.setText("1, -1, 0.5")
    with qtbot.waitSignal(panel.sig_hessian_shown, timeout=WAIT_MS) as blocker:
        panel.hessian_button.click()
    result = blocker.args[0]
    x = np.array([1.0, -1.0, 0.5])
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(np.diag(panel.heatmap.matrix()), s * (1 - s) * (1 - 2 * s),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result.gradient, s * (1 - s), rtol=1e-5)
    assert "∇f" in panel.hessian_info.text()
    # A vector-valued function: the engine's message, inline.
    shown(qtbot, panel, lambda: panel.set_current("sigmoid"),
          until=lambda c: c.function == "sigmoid")
    with qtbot.waitSignal(panel.sig_message, timeout=WAIT_MS,
                          check_params_cb=lambda text: "Hessian" in text):
        panel.request_hessian()
    assert "R^n -> R" in panel.message_text()
    panel.point_edit.setText("1, a")
    panel.request_hessian()
    assert "'a' is not a number" in panel.message_text()


def test_slider_bounds_are_editable(qtbot, panel):
    shown(qtbot, panel, lambda: panel.set_current("selu"))
    s = panel.slider("lmbda")
    s.min_edit.setText("2")
    s.max_edit.setText("1")
    s.min_edit.editingFinished.emit()
    assert "minimum must be below" in panel.message_text()
    assert s.bounds() == pytest.approx((0.0, 2.1))
    s.min_edit.setText("0.5")
    s.max_edit.setText("1.5")
    s.max_edit.editingFinished.emit()
    assert s.bounds() == (0.5, 1.5) and s.step() == pytest.approx(0.005)
    assert "minimum" not in panel.message_text()


def test_refresh_lists_functions_and_follows_the_editor(qtbot, panel):
    panel.session.set_call(Call("relu"))
    with qtbot.waitSignal(panel.sig_curves_shown, timeout=WAIT_MS,
                          check_params_cb=lambda c: c.function == "relu"):
        panel.refresh()
    names = [panel.function_choice.itemText(i) for i in range(panel.function_choice.count())]
    assert names[:3] == ["selu", "sigmoid", "relu"] and panel.functions() == ["relu"]


def test_presentation_and_scheme_hooks(panel):
    panel.set_presentation_scale(1.5)
    assert axis_font_size(panel.plot.plotItem) == pytest.approx(9.0 * 1.5)
    panel.set_scheme("light")
    assert panel.plot.backgroundBrush().color().name() == "#ffffff"


def test_helpers():
    assert default_slider_range(1.67) == (0.0, 3.34)
    assert default_slider_range(-2.0) == (-4.0, 0.0)
    assert default_slider_range(0.0) == (-1.0, 1.0)
    assert default_slider_range(3, integer=True) == (0.0, 10.0)
    assert parse_point("[1 -0.5, 2]") == (1.0, -0.5, 2.0)
    for bad in ("", "1, x", "nan"):
        with pytest.raises(ValueError):
            parse_point(bad)
    assert math.isfinite(parse_point("1e3")[0])


def test_the_stale_banner_lies_over_the_plots_and_moves_nothing(qtbot, panel):
    """A lesson shows "from step 3: step 4 has not run yet" on every step until the step's
    results come. Laid into the column, the banner pushed the plots down and back twice a
    step (the re-layout cost more than the rest of a step's display); over the plots'
    top edge it moves nothing, spans their width, and follows their resize."""
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: panel.plot_area.height() > 300)
    before = panel.plot_area.geometry()
    panel.set_stale("from step 3: step 4 has not run yet")
    qtbot.waitUntil(lambda: panel.stale_text() is not None)
    banner = panel.findChild(QtWidgets.QLabel, "staleBanner")
    assert banner.isVisible()
    assert panel.plot_area.geometry() == before
    assert banner.geometry().topLeft() == before.topLeft()
    assert banner.width() == before.width() and banner.height() < before.height() // 4
    # clicks and the wheel on the plots' top reach the plots
    assert banner.testAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    panel.resize(800, 600)
    qtbot.waitUntil(lambda: panel.plot_area.width() < before.width())
    qtbot.waitUntil(lambda: banner.width() == panel.plot_area.width())
    assert banner.geometry().topLeft() == panel.plot_area.geometry().topLeft()
    panel.set_stale(None)
    assert panel.stale_text() is None and banner.isHidden()
