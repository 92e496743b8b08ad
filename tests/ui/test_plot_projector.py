"""The plot panel on a projector and its crosshair at an exact x, on a real in-process engine.

In a dock of a 1024x768 or 1280x800 screen in presentation mode (``tests/ui/projector.py``)
the plot, its axes and legend and every slider are on screen together with nothing to
scroll; the crosshair reaches x = 0 exactly, typed, from a lesson or by the mouse's snap.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtWidgets import QApplication

from tests.ui.projector import PROJECTOR_DOCKS, clipped, framed, presentation_font
from workbench.api import messages as p
from workbench.plots.function_plot import SNAP_PX
from workbench.ui.control.session import Call
from workbench.ui.panels.plot_panel import FunctionPlotPanel

SOURCE = """\
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def relu(x):
    return jnp.maximum(0.0, x)

def hinge(x):
    return jnp.maximum(x, 1.0)

def vee(x):
    return jnp.abs(x - 0.123456)

def sum_logistic(x):
    return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))
"""
WAIT_MS = 60_000
KERNEL_SOURCE = p.LoadSource(source=SOURCE, filename="projector.py")  # for ``bridge``
NARROWEST = min(size.width() for size in PROJECTOR_DOCKS.values())


@pytest.fixture
def panel(qtbot, session, requests):
    session.set_call(Call("selu"))
    panel = FunctionPlotPanel(session, requests)
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    return panel


def drawn(qtbot, panel, name: str) -> None:
    qtbot.waitUntil(lambda: panel.last_curves(name) is not None
                    and name in panel.plot.functions(), timeout=WAIT_MS)


def point_shown(qtbot, panel, action, name: str, x: float):
    """Run ``action``; the engine's values of ``name`` at ``x`` once they reach the readout."""
    x32 = float(np.float32(x))
    with qtbot.waitSignal(panel.sig_point_shown, timeout=WAIT_MS,
                          check_params_cb=lambda v: v.function == name and v.x == x32) as b:
        action()
    return b.args[0]


def on_plot_widget(plot) -> list[str]:
    """Legend entries, axes and tick labels the plot widget does not hold entirely."""
    visible = QtCore.QRectF(plot.viewport().rect())

    def rect(item):
        return plot.mapFromScene(item.sceneBoundingRect()).boundingRect().toRectF()

    parts = [("bottom axis", plot.getAxis("bottom")), ("left axis", plot.getAxis("left"))]
    parts += [(label.text, part) for sample, label in plot.legend.items
              for part in (sample, label)]
    return [f"{name} at {rect(item)}" for name, item in parts
            if not item.isVisible() or not visible.contains(rect(item))]


def move_mouse(plot, x: float, dx_px: float = 0.0) -> None:
    """The mouse over the plot at ``x`` plus ``dx_px`` pixels (what pyqtgraph's scene says)."""
    y = sum(plot.viewRange()[1]) / 2
    pos = plot.vb.mapViewToScene(QtCore.QPointF(x, y)) + QtCore.QPointF(dx_px, 0)
    plot.scene().sigMouseMoved.emit(pos)


# ---------------------------------------------------------------------- projector layout


@pytest.mark.parametrize("dock", list(PROJECTOR_DOCKS), ids=lambda d: d.replace(" ", "-"))
def test_projector_dock_shows_the_whole_plot_with_every_slider(qtbot, session, requests,
                                                               dock):
    session.set_call(Call("selu"))
    with presentation_font():
        panel = FunctionPlotPanel(session, requests)
        panel.set_presentation_scale(1.5)
        scroll = framed(qtbot, panel, PROJECTOR_DOCKS[dock])
        drawn(qtbot, panel, "selu")
        sliders = [panel.slider("alpha"), panel.slider("lmbda")]
        widgets = [panel.plot, *sliders]

        def problems() -> str:
            return "; ".join(filter(None, [clipped(w, scroll) for w in widgets]
                                    + on_plot_widget(panel.plot)))

        qtbot.waitUntil(lambda: problems() == "", timeout=5000)
        assert panel.is_compact() and not panel.controls.more_box.isVisible()
        assert panel.plot.height() >= 220
        assert panel.plot.legend_labels() == ["selu", "selu′", "selu″"]
        # The Hessian note of an R -> R function: one line under the plot, the why in its tip.
        note = panel.hessian.explanation
        assert note.isVisible() and "selu″" in note.text()
        assert note.height() < 1.5 * note.fontMetrics().lineSpacing()
        assert note.mapTo(panel, QtCore.QPoint(0, 0)).y() > panel.plot.mapTo(
            panel, QtCore.QPoint(0, 0)).y() + panel.plot.height() - 1  # below, not beside
        assert panel.plot.width() >= panel.width() - 16
        assert "1 × 1 matrix" in note.toolTip()
        # "more" shows the rest: the plot gets shorter, nothing scrolls, and it folds again.
        panel.more_button.click()
        widgets.append(panel.tangent_box)
        qtbot.waitUntil(lambda: panel.tangent_box.isVisible() and problems() == "",
                        timeout=5000)
        panel.more_button.click()
        qtbot.waitUntil(lambda: not panel.tangent_box.isVisible()
                        and panel.plot.height() >= 220, timeout=5000)


def test_narrowest_dock_fits_both_layouts(qtbot, session, requests):
    session.set_call(Call("selu"))
    with presentation_font():
        panel = FunctionPlotPanel(session, requests)
        panel.set_presentation_scale(1.5)
        scroll = framed(qtbot, panel, QtCore.QSize(1250, 1000))
        drawn(qtbot, panel, "selu")
        qtbot.waitUntil(lambda: "alpha" in panel.params(), timeout=WAIT_MS)
        assert not panel.is_compact() and panel.controls.more_box.isVisible()
        assert not panel.more_button.isVisible()
        assert panel.minimumSizeHint().width() <= NARROWEST
        scroll.resize(PROJECTOR_DOCKS["1024x768 lesson"])
        qtbot.waitUntil(panel.is_compact, timeout=5000)
        assert panel.minimumSizeHint().width() <= NARROWEST
        # compact is decided before the folded layout is applied: wait for it to settle
        qtbot.waitUntil(lambda: clipped(panel.plot, scroll) == "", timeout=5000)


def test_controls_switch_with_the_panels_height_and_do_not_flicker(qtbot, session, requests):
    session.set_call(Call("selu"))
    with presentation_font():
        panel = FunctionPlotPanel(session, requests)
        panel.set_presentation_scale(1.5)
        scroll = framed(qtbot, panel, QtCore.QSize(1000, 900))
        drawn(qtbot, panel, "selu")
        assert not panel.is_compact()
        height = 900
        while not panel.is_compact():  # shorter and shorter until the controls fold
            height -= 10
            assert height > 300, "never folded"
            scroll.resize(1000, height)
            QApplication.processEvents()
        assert panel.plot.height() >= 220
        for taller in (height + 10, height + 20):  # just past the fold: it stays folded
            scroll.resize(1000, taller)
            QApplication.processEvents()
            assert panel.is_compact()
        scroll.resize(1000, 900)
        qtbot.waitUntil(lambda: not panel.is_compact(), timeout=5000)
        assert panel.controls.more_box.isVisible()


def test_a_vector_function_keeps_its_hessian_pane_beside_the_plot(qtbot, panel):
    panel.set_current("sum_logistic")
    drawn(qtbot, panel, "sum_logistic")
    assert panel.point_edit.isVisible()
    assert panel.hessian.parentWidget() is panel.splitter
    panel.set_current("relu")
    drawn(qtbot, panel, "relu")
    assert panel.hessian.parentWidget() is not panel.splitter
    assert panel.hessian.explanation.isVisible() and not panel.point_edit.isVisible()


# ---------------------------------------------------------------------- crosshair


def test_set_crosshair_before_the_curves_applies_once_they_are_drawn(qtbot, panel):
    def plot_relu_at_zero():
        panel.set_current("relu")
        assert panel.last_curves("relu") is None  # not drawn yet: it must wait for them
        panel.set_crosshair(0.0)

    values = point_shown(qtbot, panel, plot_relu_at_zero, "relu", 0.0)
    assert values.x == 0.0 and not values.differentiable
    assert panel.crosshair() == 0.0
    text = panel.plot.readout_text()
    assert "x = 0<br>" in text and "not differentiable here" in text
    assert "left derivative 0, right 1" in text
    assert panel.plot.cursor_differentiable("relu") is False
    assert panel.cursor_edit.text() == "0"


def test_selu_at_zero_depends_on_alpha(qtbot, panel):
    panel.set_current("selu")
    drawn(qtbot, panel, "selu")
    values = point_shown(qtbot, panel, lambda: panel.set_crosshair(0.0), "selu", 0.0)
    assert not values.differentiable  # alpha 1.67: left slope lmbda*alpha, right lmbda
    assert "not differentiable here" in panel.plot.readout_text()
    with qtbot.waitSignal(panel.sig_point_shown, timeout=WAIT_MS,
                          check_params_cb=lambda v: v.function == "selu" and v.x == 0.0
                          and v.differentiable):
        panel.set_param("alpha", 1.0)
    assert panel.crosshair() == 0.0  # the crosshair stayed; the readout followed alpha
    text = panel.plot.readout_text()
    assert "not differentiable here" not in text  # selu is; only selu′ has a kink at 0 now
    assert "selu′ is not differentiable at x = 0" in text


def test_the_mouse_snaps_to_zero_within_a_few_pixels(qtbot, panel):
    panel.points_spin.setValue(100)  # no sample at 0
    panel.set_current("relu")
    qtbot.waitUntil(lambda: panel.last_curves("relu") is not None
                    and len(panel.last_curves("relu").x) == 100, timeout=WAIT_MS)
    plot = panel.plot
    values = point_shown(qtbot, panel, lambda: move_mouse(plot, 0.0, 2.0), "relu", 0.0)
    assert plot.cursor_x() == 0.0 and not values.differentiable
    assert "not differentiable here" in plot.readout_text()
    move_mouse(plot, 0.0, -(SNAP_PX - 1))
    assert plot.cursor_x() == 0.0
    move_mouse(plot, 0.0, 3 * SNAP_PX)  # farther: the mouse's own x
    assert plot.cursor_x() != 0.0
    assert plot.cursor_x() == pytest.approx(3 * SNAP_PX * plot.vb.viewPixelSize()[0],
                                            rel=0.05)


def test_the_mouse_snaps_to_a_kink_found_in_the_samples(qtbot, panel):
    panel.set_range(-3.0, 3.0)
    panel.set_current("hinge")  # max(x, 1): f′ jumps from 0 to 1 at x = 1
    drawn(qtbot, panel, "hinge")
    assert 1.0 in panel.plot.snap_targets()
    values = point_shown(qtbot, panel, lambda: move_mouse(panel.plot, 1.0, -3.0), "hinge", 1.0)
    assert panel.plot.cursor_x() == 1.0 and not values.differentiable


def test_a_kink_the_engine_found_becomes_a_snap_target(qtbot, panel):
    panel.set_current("vee")
    drawn(qtbot, panel, "vee")
    x32 = float(np.float32(0.123456))
    assert x32 not in panel.plot.snap_targets()  # the samples' estimate is a decimal
    values = point_shown(qtbot, panel, lambda: panel.set_crosshair(0.123456), "vee", x32)
    assert not values.differentiable
    assert x32 in panel.plot.snap_targets()
    panel.forget_crosshair()
    move_mouse(panel.plot, x32, 1.0)
    assert panel.plot.cursor_x() in panel.plot.snap_targets()


def test_typed_crosshair_x_and_forgetting_it(qtbot, panel):
    panel.set_current("relu")
    drawn(qtbot, panel, "relu")
    panel.cursor_edit.setText("0")
    values = point_shown(qtbot, panel, panel.cursor_edit.returnPressed.emit, "relu", 0.0)
    assert not values.differentiable and panel.crosshair() == 0.0
    panel.cursor_edit.setText("zero")
    panel.cursor_edit.returnPressed.emit()
    assert "crosshair x must be a number" in panel.message_text()
    assert panel.crosshair() == 0.0  # a typo moves nothing
    panel.cursor_edit.setText("-1.5")
    point_shown(qtbot, panel, panel.cursor_edit.returnPressed.emit, "relu", -1.5)
    assert "crosshair" not in panel.message_text()
    assert "x = -1.5<br>" in panel.plot.readout_text()
    panel.forget_crosshair()
    assert panel.crosshair() is None and panel.plot.readout_text() == ""
    assert panel.cursor_edit.text() == "" and not panel.plot._crosshair.isVisible()
    panel.forget_view_state()  # what the window calls when other code is opened
    assert panel.crosshair() is None
    with pytest.raises(ValueError):
        panel.set_crosshair(float("nan"))
