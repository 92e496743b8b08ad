"""The k-means demo on a real engine: frames equal the engine's history; clicks place centroids."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QWidget

from tests.engine.kmeans_stepper import KMeansStepper
from workbench.engine.kmeans import init_centroids, run_kmeans, tutorial_points
from workbench.engine.kmeans.run import MAX_ITER_LIMIT
from workbench.ui.panels.kmeans_panel import MAX_ITER, TUTORIAL_POINTS, KMeansPanel


@pytest.fixture
def panel(qtbot, session, requests):
    panel = KMeansPanel(session, requests)
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
        assert f"mean squared distance {demo.run.inertia_mean[i]:.4g}" in caption
        assert f"(mean distance {demo.run.mean_distance[i]:.4g})" in caption
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


def type_into(qtbot, panel, name, text):
    """Type ``text`` into the box named ``name``, replacing what it held, as a user would."""
    box = panel.findChild(QLineEdit, name)
    assert box is not None, f"no line edit named {name}"
    box.setFocus()
    box.selectAll()
    qtbot.keyClick(box, Qt.Key.Key_Backspace)
    qtbot.keyClicks(box, text)
    return box


def assert_message_under(panel, box_name, message_name, *fragments):
    """The message label ``message_name`` shows every fragment, right under the box."""
    box = panel.findChild(QLineEdit, box_name)
    label = panel.findChild(QLabel, message_name)
    assert label is not None and label.isVisible(), f"{message_name} not shown"
    for fragment in fragments:
        assert fragment in label.text(), (fragment, label.text())
    assert panel.error_label() is label
    assert label.parentWidget() is box.parentWidget()  # the box's own row of the form
    assert box.geometry().bottom() < label.geometry().top() < box.geometry().bottom() + 10


def test_k_larger_than_n_is_said_under_the_k_box(qtbot, panel):
    panel.dataset.setCurrentIndex(panel.dataset.findData("blobs"))
    type_into(qtbot, panel, "kmeansN", "800")
    box = type_into(qtbot, panel, "kmeansK", "900")
    assert box.text() == "900"  # nothing clamped (the old spin box kept "90")
    with qtbot.waitSignal(panel.sig_error_shown, timeout=5000) as blocker:
        panel.run_button.click()
    assert "K = 900" in blocker.args[0] and "N = 800" in blocker.args[0]
    assert_message_under(panel, "kmeansK", "kmeansKMessage", "K = 900", "N = 800",
                         "larger than the number of points")
    assert panel.status.text() != "running ..."  # nothing was sent
    # The tutorial's 800 points: the same message, before asking the engine.
    panel.dataset.setCurrentIndex(panel.dataset.findData("tutorial"))
    panel.run_button.click()
    assert_message_under(panel, "kmeansK", "kmeansKMessage", "K = 900", "N = 800")
    type_into(qtbot, panel, "kmeansK", "3")
    assert not panel.k.message.isVisible()  # typing clears the box's message
    demo = run_and_wait(qtbot, panel)
    assert demo.run.k == 3 and panel.error_label() is None


def test_the_engines_k_larger_than_n_goes_under_the_k_box(qtbot, panel, tmp_path):
    path = tmp_path / "pts.npy"
    np.save(path, np.random.default_rng(1).normal(size=(50, 2)).astype(np.float32))
    panel.set_data_file(str(path))  # N unknown to the panel until the engine reads the file
    type_into(qtbot, panel, "kmeansK", "60")
    with qtbot.waitSignal(panel.sig_error_shown, timeout=30000):
        panel.run()
    assert_message_under(panel, "kmeansK", "kmeansKMessage", "k = 60", "N = 50")


BAD_TEXT = [
    ("kmeansN", "abc", "N must be a whole number, got 'abc'"),
    ("kmeansN", "0", "N must be at least 1, got 0"),
    ("kmeansN", "2.5", "N must be a whole number"),
    ("kmeansBlobK", "", "blobs must be a whole number, got nothing"),
    ("kmeansSpread", "-1", "spread must be at least 0, got -1"),
    ("kmeansSeed", "-5", "seed must be at least 0"),
    ("kmeansK", "0", "K must be at least 1, got 0"),
    ("kmeansK", "300", "at most 254 clusters"),
    ("kmeansTol", "nan", "tolerance must be a finite number"),
    ("kmeansTol", "1e-3x", "tolerance must be a number, got '1e-3x'"),
    ("kmeansMaxIter", "-1", "max iterations must be at least 0, got -1"),
    ("kmeansMaxIter", "1e9", f"max iterations must be at most {MAX_ITER:,}"),
]


def test_any_text_in_any_box_gets_its_message_and_the_panel_stays_usable(qtbot, panel):
    panel.dataset.setCurrentIndex(panel.dataset.findData("blobs"))
    type_into(qtbot, panel, "kmeansN", "5000")
    for name, text, fragment in BAD_TEXT:
        kept = panel.findChild(QLineEdit, name).text()
        box = type_into(qtbot, panel, name, text)
        assert box.text() == text
        with qtbot.waitSignal(panel.sig_error_shown, timeout=5000) as blocker:
            panel.run_button.click()
        assert fragment in blocker.args[0]
        assert_message_under(panel, name, f"{name}Message", fragment)
        type_into(qtbot, panel, name, kept)
    # A tolerance a spin box of 8 decimals would have rounded to 0 is taken as typed.
    type_into(qtbot, panel, "kmeansTol", "1e-9")
    assert panel.tol.value() == 1e-9
    demo = run_and_wait(qtbot, panel)
    assert demo.run.n == 5000 and panel.error_label() is None
    assert MAX_ITER <= MAX_ITER_LIMIT  # the panel's limit is one the engine accepts


def test_the_speed_box_says_what_it_cannot_use(qtbot, panel):
    type_into(qtbot, panel, "kmeansSpeed", "100")
    assert_message_under(panel, "kmeansSpeed", "kmeansSpeedMessage", "speed must be at most 60")
    interval = panel._timer.interval()
    type_into(qtbot, panel, "kmeansSpeed", "4")
    assert not panel.speed.message.isVisible()
    assert panel._timer.interval() == 250 != interval


@pytest.mark.parametrize(
    ("setup", "box", "label", "fragment"),
    [
        (lambda p: p.set_data_file("/nonexistent/points.npy"), "kmeansLoad", "kmeansFileMessage",
         "points.npy"),
        (lambda p: (p.init.setCurrentIndex(p.init.findData("given")),), "kmeansInit",
         "kmeansInitMessage", "click"),
    ],
    ids=["missing-file", "no-clicks"],
)
def test_bad_input_shows_a_message_and_stays_usable(qtbot, panel, setup, box, label, fragment):
    setup(panel)
    with qtbot.waitSignal(panel.sig_error_shown, timeout=30000) as blocker:
        panel.run()
    assert fragment in blocker.args[0]
    shown = panel.findChild(QLabel, label)
    control = panel.findChild(QWidget, box)
    assert shown.isVisible() and fragment in shown.text() and panel.error_label() is shown
    # In the form, right under the control it is about.
    assert control.geometry().bottom() < shown.geometry().top() < control.geometry().bottom() + 12
    panel.dataset.setCurrentIndex(panel.dataset.findData("tutorial"))
    panel.init.setCurrentIndex(panel.init.findData("kmeans++"))
    panel.k.setValue(3)
    run_and_wait(qtbot, panel)
    assert panel.error_label() is None


def test_nan_file_is_rejected_with_its_count(qtbot, panel, tmp_path):
    data = np.random.default_rng(0).normal(size=(50, 2)).astype(np.float32)
    data[[3, 7]] = np.nan
    path = tmp_path / "pts.npy"
    np.save(path, data)
    panel.set_data_file(str(path))
    with qtbot.waitSignal(panel.sig_error_shown, timeout=30000) as blocker:
        panel.run()
    assert "2 of 50 rows have NaN or infinite values" in blocker.args[0]


def gif_durations(path):
    from PIL import Image

    with Image.open(path) as gif:
        out = []
        for i in range(gif.n_frames):
            gif.seek(i)
            out.append(gif.info["duration"])
    return out


def test_export_gif_follows_the_speed_and_says_where_it_saved(qtbot, panel, tmp_path):
    demo = run_and_wait(qtbot, panel)
    frames = demo.run.iterations + 1
    panel.set_position(3)
    for speed, frame_ms in (("5", 400), ("2.5", 800), ("1", 2000)):
        type_into(qtbot, panel, "kmeansSpeed", speed)
        path = tmp_path / f"run-{speed}.gif"
        with qtbot.waitSignal(panel.sig_exported, timeout=30000) as blocker:
            panel.export_to(path)
        assert blocker.args == [str(path)]
        # One iteration is two half-steps at the panel's speed, in the file as on screen.
        assert gif_durations(path) == [frame_ms] * frames
        assert panel.export_status.isVisible() and str(path) in panel.export_status.text()
        assert f"{frame_ms / 1000:g} s each" in panel.export_status.text()
    assert panel.position == 3  # the frame shown before the export is shown again
    with qtbot.waitSignal(panel.sig_exported, timeout=30000) as blocker:
        panel.export_to(tmp_path / "frame.png")
    assert (tmp_path / "frame.png").read_bytes()[:4] == b"\x89PNG"
    assert "PNG saved to" in panel.export_status.text()


def test_export_to_a_place_that_cannot_be_written_says_so(qtbot, panel, tmp_path):
    run_and_wait(qtbot, panel)
    with qtbot.waitSignal(panel.sig_error_shown, timeout=30000):
        assert panel.export_to(tmp_path / "no such folder" / "run.gif") is None
    status = panel.export_status
    assert status.isVisible() and "could not save" in status.text()
    assert "no such folder" in status.text()
    button = panel.export_button.geometry()
    assert button.bottom() < status.geometry().top() < button.bottom() + 12  # under Export
    with qtbot.waitSignal(panel.sig_exported, timeout=30000):
        panel.export_to(tmp_path / "run")  # still usable; a name without suffix gets .gif
    assert gif_durations(tmp_path / "run.gif")


def test_distortion_axes_fit_the_first_run(qtbot, panel):
    ranges = []
    vb = panel.distortion.plotItem.vb
    panel.sig_run_shown.connect(lambda _demo: ranges.append(vb.viewRange()))
    demo = run_and_wait(qtbot, panel)
    (x0, x1), (y0, y1) = ranges[0]  # as the run is shown, before anything paints
    assert panel.distortion.plotItem.getAxis("left").labelText == "mean squared distance"
    d = demo.run.inertia_mean  # the curve plots the mean squared distance
    span = float(d.max() - d.min()) or 1.0
    assert x0 <= 0 and x1 >= demo.run.iterations
    assert y0 <= d.min() and y1 >= d.max()
    assert y0 > d.min() - span and y1 < d.max() + span  # fitted, not merely containing


def test_plots_keep_a_usable_size_at_the_panels_minimum(qtbot, panel):
    for scale in (1.0, 1.5):
        panel.set_presentation_scale(scale)
        panel.resize(panel.minimumSizeHint())
        QApplication.sendPostedEvents()
        scatter, curve = panel.scatter, panel.distortion
        assert scatter.height() >= scatter.minimumHeight() >= 200
        assert scatter.width() >= scatter.minimumWidth() >= 240
        assert curve.height() >= curve.minimumHeight() >= 120 * scale
        assert curve.width() >= curve.minimumWidth() >= 160 * scale
        assert panel.compact and panel.curve_beside  # the smallest arrangement
    assert panel.scatter.height() >= 220


def test_tutorial_size_is_the_engines():
    assert len(tutorial_points()) == TUTORIAL_POINTS


def test_click_ignored_unless_placing(qtbot, panel):
    run_and_wait(qtbot, panel)
    qtbot.mouseClick(panel.scatter.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(100, 100))
    assert panel.placed == []
