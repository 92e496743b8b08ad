"""The k-means panel on a projector (1.5x font and plots, in a dock of a 1024x768 or
1280x800 screen): the scatter, its axes and the playback controls on screen with no
scrolling, the settings behind a button, the view fitted to the data."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QApplication

from tests.ui.projector import PROJECTOR_DOCKS, clipped, framed, presentation_font
from tests.ui.test_kmeans_panel import run_and_wait, type_into
from workbench.ui.panels.kmeans_panel import HYSTERESIS, KMeansPanel

SLACK = 1.25  # the view's span over the data's: 5% padding a side, and some rounding


@pytest.fixture
def projector_panel(qtbot, session, requests):
    """A k-means panel as presentation mode makes it: application font and plots at 1.5x."""
    with presentation_font():
        panel = KMeansPanel(session, requests)
        panel.set_presentation_scale(1.5)
        yield panel


def on_screen(panel: KMeansPanel, scroll) -> list[str]:
    """What a class must see and cannot: "" for each widget fully shown, else why not."""
    widgets = (panel.scatter, panel.run_button, panel.play_button, panel.back_button,
               panel.assign_button, panel.update_button, panel.step_button, panel.scrubber)
    return [problem for w in widgets if (problem := clipped(w, scroll))]


def axes_inside(panel: KMeansPanel) -> list[str]:
    """The scatter's axes, tick labels included, drawn within the scatter widget."""
    scatter = panel.scatter
    problems = []
    for name in ("left", "bottom"):
        axis = scatter.plotItem.getAxis(name)
        rect = scatter.mapFromScene(axis.sceneBoundingRect()).boundingRect()
        if not QRect(scatter.rect()).adjusted(-1, -1, 1, 1).contains(rect):
            problems.append(f"{name} axis at {rect.getRect()} leaves {scatter.rect().getRect()}")
    return problems


def view_fits(panel: KMeansPanel, xy: np.ndarray) -> str:
    """"" when the scatter's view shows all of ``xy`` with a small margin on both axes."""
    problems = []
    for i, (name, (v0, v1)) in enumerate(zip("xy", panel.scatter.vb.viewRange(), strict=True)):
        lo, hi = float(xy[:, i].min()), float(xy[:, i].max())
        if v0 > lo or v1 < hi or v1 - v0 > SLACK * (hi - lo):
            problems.append(f"{name} view {v0:.3g}..{v1:.3g} for data {lo:.3g}..{hi:.3g}")
    return "; ".join(problems)


def test_the_smallest_arrangement_fits_the_smallest_dock(projector_panel):
    smallest = PROJECTOR_DOCKS["1024x768 lesson"]
    hint = projector_panel.minimumSizeHint()
    assert hint.width() <= smallest.width() and hint.height() <= smallest.height(), hint


@pytest.mark.parametrize("dataset", ["tutorial", "blobs"])
@pytest.mark.parametrize("dock", list(PROJECTOR_DOCKS))
def test_the_plot_and_its_controls_fit_each_projector_dock(qtbot, projector_panel, dock,
                                                           dataset):
    panel = projector_panel
    panel.dataset.setCurrentIndex(panel.dataset.findData(dataset))
    scroll = framed(qtbot, panel, PROJECTOR_DOCKS[dock])
    demo = run_and_wait(qtbot, panel)
    panel.step()

    def settled():  # the plot lays its axes out on a posted event, after the dock resized it
        assert not on_screen(panel, scroll), on_screen(panel, scroll)
        assert not view_fits(panel, demo.points), view_fits(panel, demo.points)
        assert not axes_inside(panel), axes_inside(panel)

    qtbot.waitUntil(settled, timeout=3000)
    assert panel.compact and panel.settings_button.isVisible()  # too short for the side bar
    assert not panel.settings.isVisible()
    assert panel.scatter.height() >= 220
    assert panel.distortion.isVisible() and not clipped(panel.distortion, scroll)
    assert panel.scatter.caption_text().startswith("iteration 1")


def test_settings_show_beside_the_plots_or_in_their_place(qtbot, projector_panel):
    panel = projector_panel
    scroll = framed(qtbot, panel, PROJECTOR_DOCKS["1280x800"])
    run_and_wait(qtbot, panel)
    qtbot.mouseClick(panel.settings_button, Qt.MouseButton.LeftButton)
    # A short but wide dock: the settings scroll beside the plots.
    qtbot.waitUntil(lambda: panel.settings.isVisible() and not clipped(panel.settings, scroll))
    assert not on_screen(panel, scroll), on_screen(panel, scroll)
    assert panel.settings.verticalScrollBar().maximum() > 0  # it scrolls, not the dock
    # A narrow one: in the plots' place, the playback controls still there.
    scroll.resize(PROJECTOR_DOCKS["1024x768 lesson"])
    qtbot.waitUntil(lambda: not panel.plots.isVisible() and not clipped(panel.settings, scroll)
                    and not clipped(panel.step_button, scroll))  # the fold, then its layout
    type_into(qtbot, panel, "kmeansK", "3")
    panel.settings.ensureWidgetVisible(panel.k)
    assert not clipped(panel.k, scroll)
    qtbot.mouseClick(panel.settings_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.plots.isVisible() and not on_screen(panel, scroll))
    assert not panel.settings.isVisible()


def test_a_message_about_a_setting_shows_the_settings_and_run_shows_the_plots(
        qtbot, projector_panel):
    panel = projector_panel
    scroll = framed(qtbot, panel, PROJECTOR_DOCKS["1024x768 lesson"])
    assert panel.compact and not panel.settings.isVisible()
    panel.k.setText("900")
    with qtbot.waitSignal(panel.sig_error_shown, timeout=5000):
        panel.run_button.click()
    message = panel.k.message
    qtbot.waitUntil(lambda: message.isVisible() and not clipped(message, scroll))
    assert "K = 900" in message.text() and panel.settings_button.isChecked()
    panel.k.setText("3")
    demo = run_and_wait(qtbot, panel)
    assert demo.run.k == 3
    assert not panel.settings_button.isChecked() and panel.plots.isVisible()


def test_the_side_bar_comes_back_with_room_and_hysteresis(qtbot, projector_panel):
    panel = projector_panel
    qtbot.addWidget(panel)
    panel.resize(1600, 1000)
    panel.show()
    qtbot.waitExposed(panel)
    assert not panel.compact and panel.settings.isVisible()
    assert not panel.settings_button.isVisible()
    height = 1000
    while not panel.compact:  # shorter until the side bar would scroll: behind its button
        height -= 2
        panel.resize(1600, height)
        assert height > 300, "the side bar never collapsed"
    assert not panel.settings.isVisible() and panel.settings_button.isVisible()
    panel.resize(1600, height + HYSTERESIS - 4)  # past the threshold, within the margin
    assert panel.compact
    panel.resize(1600, height + HYSTERESIS + 4)
    assert not panel.compact and panel.settings.isVisible()
    width = 1600
    while not panel.compact:  # narrower, the same
        width -= 2
        panel.resize(width, height + HYSTERESIS + 4)
        assert width > 300, "the side bar never collapsed"
    assert width > PROJECTOR_DOCKS["1024x768 lesson"].width()  # it never squeezes the plots
    panel.resize(width + HYSTERESIS - 4, height + HYSTERESIS + 4)
    assert panel.compact
    panel.resize(width + HYSTERESIS + 4, height + HYSTERESIS + 4)
    assert not panel.compact


def test_the_curve_goes_under_the_scatter_on_a_tall_panel(qtbot, projector_panel):
    panel = projector_panel
    scroll = framed(qtbot, panel, QSize(700, 1000))
    demo = run_and_wait(qtbot, panel)
    qtbot.waitUntil(lambda: not panel.curve_beside and not view_fits(panel, demo.points))
    scatter, curve = panel.scatter.geometry(), panel.distortion.geometry()
    assert curve.top() > scatter.bottom() and not on_screen(panel, scroll)
    scroll.resize(PROJECTOR_DOCKS["1024x768 lesson"])
    QApplication.sendPostedEvents()
    qtbot.waitUntil(lambda: panel.curve_beside and not on_screen(panel, scroll))
