"""PNG/SVG of every plot widget; a k-means run as a GIF and as numbered PNGs."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from workbench.plots.export import (
    KMeansFrame,
    export_kmeans_gif,
    export_kmeans_pngs,
    export_png,
    export_svg,
)
from workbench.plots.function_plot import FunctionPlot
from workbench.plots.heatmap import HessianHeatmap
from workbench.plots.kmeans_scatter import DistortionPlot, KMeansScatter
from workbench.plots.timing_chart import TimingChart

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _function_plot():
    p = FunctionPlot()
    x = np.linspace(-2, 2, 101)
    p.set_curves("tanh", x, {0: np.tanh(x), 1: 1 - np.tanh(x) ** 2})
    return p


def _timing_chart():
    c = TimingChart()
    c.set_bars([("cpu:0", "eager", 1e-3, 1e-5), ("cpu:0", "jit", 2e-4, 1e-6)])
    return c


def _heatmap():
    h = HessianHeatmap()
    h.set_matrix(np.array([[1.0, 0.2], [0.2, -1.0]]))
    return h


def _distortion():
    d = DistortionPlot()
    d.set_history([5.0, 3.0, 2.5])
    d.set_current(1)
    return d


@pytest.mark.parametrize("make", [_function_plot, _timing_chart, _heatmap, _distortion])
def test_png_and_svg(qtbot, tmp_path, make):
    widget = make()
    qtbot.addWidget(widget)
    widget.resize(320, 240)
    png = export_png(widget, tmp_path / "plot.png", width=400)
    assert png.read_bytes()[:8] == PNG_MAGIC
    with Image.open(png) as im:
        assert im.size[0] == 400
    svg = export_svg(widget, tmp_path / "plot.svg")
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")


def _run(scatter: KMeansScatter, n_frames: int) -> list[KMeansFrame]:
    rng = np.random.default_rng(0)
    xy = rng.normal(size=(300, 2))
    scatter.set_points(xy)
    frames = []
    for i in range(n_frames):
        c = rng.normal(size=(3, 2))
        labels = np.argmin(((xy[:, None] - c[None]) ** 2).sum(-1), axis=1)
        frames.append(KMeansFrame(labels, c, empty=np.array([False, False, i == 1])))
    return frames


def test_kmeans_gif_has_one_frame_per_iteration(qtbot, tmp_path):
    scatter = KMeansScatter()
    qtbot.addWidget(scatter)
    scatter.resize(260, 210)
    frames = _run(scatter, 4)
    frames.append(frames[-1])  # a converged run repeats its last frame; the caption differs
    path = export_kmeans_gif(scatter, frames, tmp_path / "run.gif", frame_ms=100)
    with Image.open(path) as im:
        assert im.format == "GIF"
        assert im.n_frames == 5
        assert im.size == (260, 210)


@pytest.mark.parametrize(("frame_ms", "stored"), [(250, 250), (337, 340), (2000, 2000)])
def test_kmeans_gif_frames_last_as_asked(qtbot, tmp_path, frame_ms, stored):
    scatter = KMeansScatter()
    qtbot.addWidget(scatter)
    scatter.resize(260, 210)
    # No suffix Pillow knows: the file is a GIF all the same.
    path = export_kmeans_gif(scatter, _run(scatter, 3), tmp_path / "run.anim", frame_ms=frame_ms)
    with Image.open(path) as im:
        assert im.format == "GIF"
        durations = []
        for i in range(im.n_frames):
            im.seek(i)
            durations.append(im.info["duration"])
    assert durations == [stored] * 3  # GIF keeps hundredths: rounded, not cut


def test_kmeans_gif_refuses_frames_viewers_would_slow_down(qtbot, tmp_path):
    scatter = KMeansScatter()
    qtbot.addWidget(scatter)
    with pytest.raises(ValueError, match="at least 20 ms"):
        export_kmeans_gif(scatter, _run(scatter, 2), tmp_path / "run.gif", frame_ms=10)


def test_kmeans_numbered_pngs(qtbot, tmp_path):
    scatter = KMeansScatter()
    qtbot.addWidget(scatter)
    scatter.resize(260, 210)
    paths = export_kmeans_pngs(scatter, _run(scatter, 3), tmp_path / "frames")
    assert [p.name for p in paths] == ["frame_000.png", "frame_001.png", "frame_002.png"]
    assert all(p.read_bytes()[:8] == PNG_MAGIC for p in paths)
    assert scatter.caption_text().startswith("iteration 2")


def test_png_to_a_missing_folder_raises(qtbot, tmp_path):
    widget = _distortion()
    qtbot.addWidget(widget)
    with pytest.raises(OSError, match="cannot write"):
        export_png(widget, tmp_path / "no such folder" / "plot.png")


def test_export_rejects_non_plots(qtbot, tmp_path):
    from PySide6 import QtWidgets

    w = QtWidgets.QLabel("not a plot")
    qtbot.addWidget(w)
    with pytest.raises(TypeError):
        export_png(w, tmp_path / "x.png")

