"""KMeansScatter recolours without moving points; DistortionPlot marks the iteration."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore

from workbench.engine.kmeans.data import blobs, tutorial_points
from workbench.plots.export import qimage_to_array, render_image
from workbench.plots.kmeans_scatter import (
    BACKGROUND,
    DistortionPlot,
    IterationAxis,
    KMeansScatter,
)
from workbench.plots.palette import EMPTY_COLOUR, cluster_colour
from workbench.plots.presentation import axis_font_size

RNG = np.random.default_rng(3)
XY = RNG.uniform(0, 10, size=(400, 2))
CENTROIDS = np.array([[2.0, 2.0], [8.0, 8.0], [2.0, 8.0]])


def nearest(xy: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.argmin(((xy[:, None, :] - c[None]) ** 2).sum(-1), axis=1)


@pytest.fixture
def scatter(qtbot):
    w = KMeansScatter(marker_threshold=0)  # raster path even for a small test set
    qtbot.addWidget(w)
    w.resize(400, 300)
    w.show()
    qtbot.waitExposed(w)
    w.plotItem.showGrid(x=False, y=False)
    w.set_points(XY)
    return w


def test_raster_cells_hold_each_points_label(scatter):
    labels = nearest(XY, CENTROIDS)
    scatter.set_frame(labels, CENTROIDS)
    image = scatter.label_image()
    shown = 0
    for i in range(len(XY)):
        cell = scatter.cell_of(i)
        if cell is not None:
            assert image[cell] == labels[i]
            shown += 1
    assert shown > 300  # a few share a cell with a later point
    assert (image != BACKGROUND).sum() == shown


def test_rendered_pixels_have_the_cluster_colours(scatter):
    scatter.point_size = 6  # big cells: the point's pixel is unambiguous
    scatter._on_view_changed()
    labels = nearest(XY, CENTROIDS)
    scatter.set_frame(labels, np.empty((0, 2)))
    pixels = qimage_to_array(render_image(scatter))
    checked = 0
    for i in range(0, len(XY), 7):
        if scatter.cell_of(i) is None:
            continue
        row, col = scatter.cell_of(i)
        (x0, _), (y0, _) = scatter.vb.viewRange()
        rect = scatter._raster.mapRectToView(scatter._raster.boundingRect())
        cx = rect.left() + (col + 0.5) * rect.width() / scatter.label_image().shape[1]
        cy = rect.top() + (row + 0.5) * rect.height() / scatter.label_image().shape[0]
        p = scatter.data_to_widget(cx, cy)
        if not scatter.rect().contains(p):
            continue
        r, g, b, _ = pixels[p.y(), p.x()]
        want = cluster_colour(int(labels[i]))
        assert (r, g, b) == (want.red(), want.green(), want.blue())
        checked += 1
    assert checked > 20


def test_frames_only_recolour(scatter):
    cells = scatter._cells.copy()
    for k in range(3):
        scatter.set_frame(np.full(len(XY), k), CENTROIDS)
        assert set(np.unique(scatter.label_image())) == {k, BACKGROUND}
    np.testing.assert_array_equal(scatter._cells, cells)  # positions were not recomputed


def test_view_change_rerasterises_with_the_same_labels(scatter):
    labels = nearest(XY, CENTROIDS)
    scatter.set_frame(labels, CENTROIDS)
    scatter.vb.setRange(xRange=(0, 5), yRange=(0, 5), padding=0)
    image = scatter.label_image()
    inside = 0
    for i in range(len(XY)):
        cell = scatter.cell_of(i)
        if cell is not None:
            inside += 1
            assert image[cell] == labels[i]
    assert 0 < inside < 200  # about a quarter of the points are in view


def test_small_data_sets_use_round_markers(qtbot):
    w = KMeansScatter()
    qtbot.addWidget(w)
    w.set_points(XY)
    assert not w.uses_raster
    labels = nearest(XY, CENTROIDS)
    w.set_frame(labels, CENTROIDS)
    brushes = w._markers.data["brush"]
    assert [b.color().name() for b in brushes[:20]] == [
        cluster_colour(int(k)).name() for k in labels[:20]]


def test_centroids_trails_and_empty_clusters(scatter):
    older = CENTROIDS + 1.0
    old = CENTROIDS + 0.5
    scatter.set_frame(nearest(XY, CENTROIDS), CENTROIDS, trails=[older, old],
                      empty=[False, True, False])
    spots = scatter.centroid_spots()
    assert [s["pos"] for s in spots] == [tuple(c) for c in CENTROIDS]
    assert spots[0]["brush"] == cluster_colour(0).name()
    assert spots[1]["brush"] is None and spots[1]["pen"] == EMPTY_COLOUR.lower()
    assert scatter.empty_clusters() == [1]
    assert "empty cluster: 1" in scatter.caption_text()
    x, y = scatter.trail_data(2)
    np.testing.assert_allclose(np.c_[x, y], [older[2], old[2], CENTROIDS[2]])
    with pytest.raises(ValueError):
        scatter.set_frame(np.zeros(3, dtype=int), CENTROIDS)


def test_voronoi_background_is_nearest_centroid(scatter):
    scatter.set_frame(nearest(XY, CENTROIDS), CENTROIDS)
    scatter.set_voronoi_visible(True)
    image = scatter.voronoi_labels()
    rows, cols = image.shape
    (x0, x1), (y0, y1) = scatter.vb.viewRange()
    for r, c in [(0, 0), (rows - 1, cols - 1), (rows // 2, cols // 3)]:
        point = np.array([[x0 + (c + 0.5) * (x1 - x0) / cols, y0 + (r + 0.5) * (y1 - y0) / rows]])
        assert image[r, c] == nearest(point, CENTROIDS)[0]
    scatter.set_voronoi_visible(False)
    assert not scatter._voronoi.isVisible()


def test_click_emits_data_coordinates(scatter, qtbot):
    target = scatter.data_to_widget(3.0, 7.0)
    with qtbot.waitSignal(scatter.sig_clicked, timeout=2000) as blocker:
        qtbot.mouseClick(scatter.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=target)
    x, y = blocker.args
    (x0, x1), _ = scatter.vb.viewRange()
    pixel = (x1 - x0) / scatter.vb.width()
    assert abs(x - 3.0) < 2 * pixel and abs(y - 7.0) < 2 * pixel


def test_distortion_marks_the_current_iteration(qtbot):
    d = DistortionPlot()
    qtbot.addWidget(d)
    history = [10.0, 6.0, 4.5, 4.4]
    d.set_history(history)
    assert d.current_marker() is None
    d.set_current(2)
    assert d.current_marker() == (2.0, 4.5)
    assert d._line.value() == 2
    with pytest.raises(IndexError):
        d.set_current(4)
    d.set_history(history[:2])  # a new, shorter run drops the mark
    assert d.current_marker() is None


def test_distortion_axes_fit_each_history_before_any_paint(qtbot):
    d = DistortionPlot()
    qtbot.addWidget(d)  # never shown: as in a background dock tab
    for history in ([50.0, 30.0, 25.0], [5.0, 4.0]):
        d.plotItem.vb.setRange(xRange=(100, 200), yRange=(-9, -8))  # a user zoomed away
        d.set_history(history)
        (x0, x1), (y0, y1) = d.plotItem.vb.viewRange()
        lo, hi = min(history), max(history)
        assert x0 <= 0 and x1 >= len(history) - 1 and x1 < len(history)
        assert y0 <= lo and y1 >= hi and y1 - y0 < 2 * (hi - lo)


def test_plots_ask_for_room_that_grows_with_the_presentation_scale(qtbot):
    scatter, d = KMeansScatter(), DistortionPlot()
    for w in (scatter, d):
        qtbot.addWidget(w)
    scatter.set_points(XY)
    assert scatter.minimumHeight() >= 200 and d.minimumHeight() >= 120
    view = []
    for factor in (1.0, 2.0):
        scatter.set_presentation_scale(factor)
        scatter.resize(scatter.minimumSize())
        scatter.show()
        qtbot.waitExposed(scatter)
        view.append((scatter.vb.width(), scatter.vb.height()))
    d.set_presentation_scale(2.0)
    assert scatter.minimumHeight() > 200 and d.minimumHeight() >= 240
    # The axes' larger text has its room: the points keep (at least) theirs.
    assert view[1][0] >= view[0][0] and view[1][1] >= view[0][1]


def test_presentation_scale_grows_markers_and_fonts(scatter, qtbot):
    scatter.set_frame(nearest(XY, CENTROIDS), CENTROIDS)
    before = axis_font_size(scatter.plotItem)
    scatter.set_presentation_scale(2.0)
    assert axis_font_size(scatter.plotItem) == pytest.approx(2 * before)
    assert scatter._centroid_item.points()[0].size() == pytest.approx(36)
    d = DistortionPlot()
    qtbot.addWidget(d)
    d.set_presentation_scale(2.0)
    assert axis_font_size(d.plotItem) == pytest.approx(2 * before)


# -- the view fits the data -------------------------------------------------------------------
DATA_SETS = {
    "tutorial": lambda: tutorial_points()[:, :2],
    "blobs": lambda: blobs(10_000, 5, 1.0, 0)[:, :2],  # the panel's blobs defaults
}
SLACK = 1.25  # the view's span over the data's: 5% padding a side, and a few pixels' rounding


def view_fits(scatter: KMeansScatter, xy: np.ndarray, axes: str = "xy") -> str:
    """"" when the view shows all of ``xy`` and, on ``axes``, little more; else why not."""
    problems = []
    for i, (name, (v0, v1)) in enumerate(zip("xy", scatter.vb.viewRange(), strict=True)):
        lo, hi = float(xy[:, i].min()), float(xy[:, i].max())
        if v0 > lo or v1 < hi:
            problems.append(f"{name} view {v0:.3g}..{v1:.3g} cuts data {lo:.3g}..{hi:.3g}")
        elif name in axes and v1 - v0 > SLACK * (hi - lo):
            problems.append(f"{name} view {v0:.3g}..{v1:.3g} for data {lo:.3g}..{hi:.3g}")
    return "; ".join(problems)


def shown_scatter(qtbot, xy: np.ndarray, scale: float) -> KMeansScatter:
    w = KMeansScatter()
    qtbot.addWidget(w)
    w.set_presentation_scale(scale)
    w.set_points(xy)
    w.resize(400, 300)
    w.show()
    qtbot.waitExposed(w)
    return w


def reshaped(w: KMeansScatter, width: int | None = None, height: int | None = None) -> bool:
    """Resize to the shape ``w`` asks for at this width or height; True once it holds (the
    axes take their room only once laid out, so the first answer can be a little off)."""
    if height is not None:
        w.resize(w.width_for_height(height), height)
        return w.width() == w.width_for_height(height)
    assert width is not None
    w.resize(width, w.height_for_width(width))
    return w.height() == w.height_for_width(width)


@pytest.mark.parametrize("scale", [1.0, 1.5])
@pytest.mark.parametrize("name", list(DATA_SETS))
def test_the_datas_shape_shows_it_edge_to_edge(qtbot, name, scale):
    xy = DATA_SETS[name]()
    w = shown_scatter(qtbot, xy, scale)
    qtbot.waitUntil(lambda: reshaped(w, height=300))
    assert not view_fits(w, xy), view_fits(w, xy)
    qtbot.waitUntil(lambda: reshaped(w, width=500))
    assert not view_fits(w, xy), view_fits(w, xy)


@pytest.mark.parametrize("name", list(DATA_SETS))
def test_a_wider_shape_fits_the_data_up_and_shows_it_all_across(qtbot, name):
    """The view keeps one unit as long across as up: a widget wider than the data fits
    the height and shows more across (never less)."""
    xy = DATA_SETS[name]()
    w = shown_scatter(qtbot, xy, 1.5)
    w.resize(3 * w.width_for_height(300), 300)
    qtbot.waitUntil(lambda: w.width() > 2 * w.width_for_height(300))
    assert not view_fits(w, xy, axes="y"), view_fits(w, xy, axes="y")
    (x0, x1), _ = w.vb.viewRange()
    assert x1 - x0 > SLACK * float(np.ptp(xy[:, 0]))  # the aspect is locked


def test_points_on_a_line_still_get_a_usable_shape(qtbot):
    xy = np.c_[np.linspace(0, 10, 50), np.zeros(50)]
    w = shown_scatter(qtbot, xy, 1.0)
    assert w.data_aspect() == 5.0
    assert w.width_for_height(300) < 2000 and w.height_for_width(400) >= w.minimumHeight()


# -- the iteration axis counts ----------------------------------------------------------------
@pytest.mark.parametrize("iterations", [0, 1, 2, 5, 60, 2500])
def test_the_iteration_axis_has_whole_ticks_and_no_scale(qtbot, iterations):
    d = DistortionPlot()
    qtbot.addWidget(d)
    d.set_presentation_scale(1.5)
    d.resize(300, 200)
    d.show()
    qtbot.waitExposed(d)
    d.set_history(np.linspace(5.0, 1.0, iterations + 1))
    axis = d.plotItem.getAxis("bottom")
    assert isinstance(axis, IterationAxis)
    (x0, x1), _ = d.plotItem.vb.viewRange()
    assert x0 <= 0 and x1 >= iterations and x1 - x0 >= 1  # never a span of +-0.5 about 0
    for pixels in (80, 300, 1200):
        levels = axis.tickValues(x0, x1, pixels)
        values = [v for _spacing, level in levels for v in level]
        assert values, f"no ticks on {x0:.3g}..{x1:.3g} over {pixels} px"
        assert all(float(v).is_integer() for v in values), values
        strings = axis.tickStrings(values, 1.0, levels[0][0])
        assert all(text.lstrip("-").isdigit() for text in strings), strings
    assert axis.labelString().count("(x") == 0, axis.labelString()
    assert "iteration" in axis.labelString()
