"""The k-means demo on a real engine: frames equal the engine's history; clicks place centroids."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from tests.engine.kmeans_stepper import KMeansStepper
from workbench.engine.kmeans import init_centroids, run_kmeans, tutorial_points
from workbench.ui.kmeans_panel import KMeansPanel


@pytest.fixture
def panel(qtbot, session):
    panel = KMeansPanel(session)
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    return panel


def run_and_wait(qtbot, panel):
    """Run and wait for the run to be shown, or fail with the message shown instead."""
    got = []
    panel.sig_run_shown.connect(got.append)
    panel.sig_error_shown.connect(got.append)
    try:
        panel.run()
        qtbot.waitUntil(lambda: bool(got), timeout=60000)
    finally:
        panel.sig_run_shown.disconnect(got.append)
        panel.sig_error_shown.disconnect(got.append)
    assert not isinstance(got[0], str), got[0]
    return got[0]


def test_frames_equal_the_engine_history(qtbot, panel):
    demo = run_and_wait(qtbot, panel)
    points = tutorial_points()
    np.testing.assert_array_equal(demo.points, points[:, :2])
    expected = run_kmeans(points, init_centroids(points, 4, "kmeans++", 0))
    np.testing.assert_array_equal(demo.run.labels, expected.labels)
    np.testing.assert_allclose(demo.run.centroids, expected.centroids, atol=1e-6)
    assert panel.scrubber.maximum() == 2 * demo.run.iterations
    # every half-step draws what the stepper computes by hand
    stepper = KMeansStepper(points, demo.init)
    state = stepper.assign()
    for i in range(demo.run.iterations + 1):
        panel.set_position(2 * i)
        np.testing.assert_array_equal(panel.scatter.label_image() is not None, True)
        labels, centroids, _, caption = panel.frame_at(2 * i)
        np.testing.assert_array_equal(labels, state.labels)
        np.testing.assert_allclose(centroids, state.centroids, atol=1e-6)
        assert f"iteration {i}" in panel.scatter.caption_text()
        assert panel.distortion.current_marker()[0] == i
        if i < demo.run.iterations:
            state = stepper.update()
            panel.set_position(2 * i + 1)
            np.testing.assert_allclose(panel.frame_at(2 * i + 1)[1], state.centroids, atol=1e-6)
            state = stepper.assign()


def test_step_buttons_and_play(qtbot, panel):
    demo = run_and_wait(qtbot, panel)
    assert panel.position == 0
    panel.update_button.click()
    assert panel.position == 1
    panel.update_button.click()  # already updated: waits for an assign
    assert panel.position == 1
    panel.assign_button.click()
    assert panel.position == 2
    panel.step_button.click()
    assert panel.position == 4
    panel.back_button.click()
    assert panel.position == 3
    panel.speed.setValue(60)
    panel.play_button.setChecked(True)
    qtbot.waitUntil(lambda: panel.position == 2 * demo.run.iterations, timeout=10000)
    qtbot.waitUntil(lambda: not panel.play_button.isChecked(), timeout=5000)


def test_click_to_place_init(qtbot, panel):
    run_and_wait(qtbot, panel)  # the tutorial data, to have points and axes to click on
    panel.init.setCurrentIndex(panel.init.findData("given"))
    for x, y in [(4.0, 0.0), (0.5, 1.0), (-0.5, -1.0)]:
        with qtbot.waitSignal(panel.scatter.sig_clicked, timeout=2000):
            qtbot.mouseClick(panel.scatter.viewport(), Qt.MouseButton.LeftButton,
                             pos=panel.scatter.data_to_widget(x, y))
    assert panel.k.value() == 3
    placed = np.asarray(panel.placed)
    np.testing.assert_allclose(placed, [(4, 0), (0.5, 1), (-0.5, -1)], atol=0.1)
    demo = run_and_wait(qtbot, panel)
    np.testing.assert_allclose(demo.init, placed, atol=1e-6)
    assert demo.run.k == 3


@pytest.mark.parametrize(
    ("setup", "fragment"),
    [
        (lambda p: (p.dataset.setCurrentIndex(p.dataset.findData("blobs")),
                    p.n_points.setValue(3), p.k.setValue(5)), "larger than the number of points"),
        (lambda p: p.set_data_file("/nonexistent/points.npy"), "points.npy"),
        (lambda p: (p.init.setCurrentIndex(p.init.findData("given")),), "click"),
    ],
    ids=["k-greater-than-n", "missing-file", "no-clicks"],
)
def test_bad_input_shows_a_message_and_stays_usable(qtbot, panel, tmp_path, setup, fragment):
    setup(panel)
    with qtbot.waitSignal(panel.sig_error_shown, timeout=30000) as blocker:
        panel.run()
    assert fragment in blocker.args[0]
    assert panel.message.isVisible()
    panel.dataset.setCurrentIndex(panel.dataset.findData("tutorial"))
    panel.init.setCurrentIndex(panel.init.findData("kmeans++"))
    panel.k.setValue(3)
    run_and_wait(qtbot, panel)
    assert not panel.message.isVisible()


def test_nan_file_is_rejected_with_its_count(qtbot, panel, tmp_path):
    data = np.random.default_rng(0).normal(size=(50, 2)).astype(np.float32)
    data[[3, 7]] = np.nan
    path = tmp_path / "pts.npy"
    np.save(path, data)
    panel.set_data_file(str(path))
    with qtbot.waitSignal(panel.sig_error_shown, timeout=30000) as blocker:
        panel.run()
    assert "2 of 50 rows have NaN or infinite values" in blocker.args[0]


def test_export_gif(qtbot, panel, tmp_path):
    from PIL import Image

    demo = run_and_wait(qtbot, panel)
    panel.export_gif(str(tmp_path / "run.gif"))
    with Image.open(tmp_path / "run.gif") as gif:
        assert gif.n_frames == demo.run.iterations + 1


def test_click_ignored_unless_placing(qtbot, panel):
    run_and_wait(qtbot, panel)
    qtbot.mouseClick(panel.scatter.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(100, 100))
    assert panel.placed == []
