"""K-means animation frames per second, offscreen at 800x600: workbench vs matplotlib.

A frame = new labels for every point (random, K=8, changing each frame) plus the
K centroids with short trails, drawn into an 800x600 image. Ours: ``KMeansScatter``
with points set once and ``set_frame`` + ``QWidget.render`` per frame. matplotlib,
with a persistent figure on Agg, three ways, and the best one is the peer:

* ``scatter``: a ``PathCollection`` with ``set_array(labels)`` + ``canvas.draw()``;
* ``imshow``: the same label raster ours uses (cell per point computed once), ``set_data``
  + ``canvas.draw()``;
* ``imshow+blit``: as ``imshow`` but axes drawn once; per frame restore the background and
  draw only the image and centroids (``draw_artist``), matplotlib's own animation path;
* ``rgba+blit``: as ``imshow+blit`` with the colours looked up in numpy (uint8 RGBA image),
  so matplotlib does no colour mapping: the fastest we found.

Run: ``.venv/bin/python benchmarks/kmeans_render.py`` (``--quick`` for a short check).
matplotlib comes with the ``bench`` extra: ``.venv/bin/pip install -e '.[bench]'``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

WIDTH, HEIGHT, K = 800, 600, 8


def blobs(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-6, 6, size=(K, 2))
    which = rng.integers(0, K, n)
    return centres[which] + rng.normal(scale=0.9, size=(n, 2))


def frames_per_s(frame: Callable[[int], None], min_frames: int, budget_s: float) -> float:
    """Median frame rate: a few warm-up frames, then at least ``min_frames`` or ``budget_s``."""
    for i in range(2):
        frame(i)
    times: list[float] = []
    start = time.perf_counter()
    i = 2
    while len(times) < min_frames or (time.perf_counter() - start < budget_s and len(times) < 200):
        t0 = time.perf_counter()
        frame(i)
        times.append(time.perf_counter() - t0)
        i += 1
        if len(times) >= 3 and time.perf_counter() - start > 4 * budget_s:
            break  # a very slow method: three frames tell the story
    return 1.0 / statistics.median(times)


def ours(xy: np.ndarray, labels: list[np.ndarray], centroids: list[np.ndarray]):
    import pyqtgraph as pg
    from PySide6 import QtGui

    from workbench.plots.kmeans_scatter import KMeansScatter

    app = pg.mkQApp()
    w = KMeansScatter()
    w.resize(WIDTH, HEIGHT)
    w.show()
    app.processEvents()
    w.set_points(xy)
    app.processEvents()
    image = QtGui.QImage(WIDTH, HEIGHT, QtGui.QImage.Format.Format_ARGB32_Premultiplied)

    def frame(i: int) -> None:
        c = centroids[i % len(centroids)]
        w.set_frame(labels[i % len(labels)], c, [c - 0.2, c - 0.1])
        painter = QtGui.QPainter(image)
        w.render(painter)
        painter.end()

    return frame, w


def matplotlib_methods(xy: np.ndarray, labels: list[np.ndarray], centroids: list[np.ndarray],
                       cells: np.ndarray, owners: np.ndarray, grid_shape: tuple[int, int],
                       extent: tuple[float, float, float, float]):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure

    from workbench.plots.palette import CLUSTER_COLOURS

    cmap = ListedColormap(list(CLUSTER_COLOURS[:K]))

    def figure():
        fig = Figure(figsize=(WIDTH / 100, HEIGHT / 100), dpi=100)
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.06, 0.06, 0.92, 0.92))
        ax.set_xlim(extent[0], extent[1])
        ax.set_ylim(extent[2], extent[3])
        ax.set_aspect("equal", adjustable="datalim")
        cent = ax.scatter(centroids[0][:, 0], centroids[0][:, 1], s=200, c=range(K), cmap=cmap,
                          edgecolors="w", linewidths=2, zorder=3, animated=False)
        trails = [ax.plot([], [], lw=2, zorder=2)[0] for _ in range(K)]
        return fig, ax, cent, trails

    def update_centroids(cent, trails, i):
        c = centroids[i % len(centroids)]
        cent.set_offsets(c)
        for k, line in enumerate(trails):
            line.set_data([c[k, 0] - 0.2, c[k, 0] - 0.1, c[k, 0]],
                          [c[k, 1] - 0.2, c[k, 1] - 0.1, c[k, 1]])

    methods = {}

    fig1, ax1, cent1, trails1 = figure()
    sc = ax1.scatter(xy[:, 0], xy[:, 1], s=1, c=labels[0], cmap=cmap, vmin=0, vmax=K - 1,
                     linewidths=0, rasterized=True)

    def scatter_frame(i: int) -> None:
        sc.set_array(labels[i % len(labels)])
        update_centroids(cent1, trails1, i)
        fig1.canvas.draw()

    methods["scatter"] = scatter_frame

    grid = np.full(grid_shape, np.nan)
    flat = grid.reshape(-1)

    def raster(i: int) -> np.ndarray:
        flat.fill(np.nan)  # NaN cells are transparent in imshow
        flat[cells] = labels[i % len(labels)][owners]
        return grid

    fig2, ax2, cent2, trails2 = figure()
    im2 = ax2.imshow(raster(0), origin="lower", extent=extent, cmap=cmap, vmin=0, vmax=K - 1,
                     interpolation="nearest", aspect="auto")

    def imshow_frame(i: int) -> None:
        im2.set_data(raster(i))
        update_centroids(cent2, trails2, i)
        fig2.canvas.draw()

    methods["imshow"] = imshow_frame

    fig3, ax3, cent3, trails3 = figure()
    im3 = ax3.imshow(raster(0), origin="lower", extent=extent, cmap=cmap, vmin=0, vmax=K - 1,
                     interpolation="nearest", aspect="auto", animated=True)
    cent3.set_animated(True)
    for line in trails3:
        line.set_animated(True)
    fig3.canvas.draw()
    background = fig3.canvas.copy_from_bbox(ax3.bbox)

    def blit_frame(i: int) -> None:
        fig3.canvas.restore_region(background)
        im3.set_data(raster(i))
        update_centroids(cent3, trails3, i)
        ax3.draw_artist(im3)
        for line in trails3:
            ax3.draw_artist(line)
        ax3.draw_artist(cent3)
        fig3.canvas.blit(ax3.bbox)
        fig3.canvas.buffer_rgba()

    methods["imshow+blit"] = blit_frame

    # The same, but colour-mapped by us (uint8 label raster -> RGBA lookup), so matplotlib
    # only resamples an RGBA image: no masked-array NaN handling and no colormap per frame.
    lut = np.zeros((256, 4), dtype=np.uint8)
    lut[:K] = (np.array(cmap(np.arange(K))) * 255).astype(np.uint8)
    codes = np.full(grid_shape, 255, dtype=np.uint8)
    code_flat = codes.reshape(-1)

    def rgba(i: int) -> np.ndarray:
        code_flat.fill(255)
        code_flat[cells] = labels[i % len(labels)][owners]
        return lut[codes]

    fig4, ax4, cent4, trails4 = figure()
    im4 = ax4.imshow(rgba(0), origin="lower", extent=extent, interpolation="nearest",
                     aspect="auto", animated=True)
    cent4.set_animated(True)
    for line in trails4:
        line.set_animated(True)
    fig4.canvas.draw()
    background4 = fig4.canvas.copy_from_bbox(ax4.bbox)

    def rgba_blit_frame(i: int) -> None:
        fig4.canvas.restore_region(background4)
        im4.set_data(rgba(i))
        update_centroids(cent4, trails4, i)
        ax4.draw_artist(im4)
        for line in trails4:
            ax4.draw_artist(line)
        ax4.draw_artist(cent4)
        fig4.canvas.blit(ax4.bbox)
        fig4.canvas.buffer_rgba()

    methods["rgba+blit"] = rgba_blit_frame
    return methods


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000", help="point counts, comma separated")
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per method and size")
    ap.add_argument("--quick", action="store_true", help="0.5 s per method (a smoke run)")
    args = ap.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is missing: it is the peer here. Install the bench extra:\n"
              "  .venv/bin/pip install -e '.[bench]'", file=sys.stderr)
        return 2
    budget = 0.5 if args.quick else args.budget
    sizes = [int(s) for s in args.sizes.split(",")]
    rng = np.random.default_rng(1)
    print(f"k-means frames/s, offscreen {WIDTH}x{HEIGHT}, K={K}, labels change every frame "
          f"(medians, {budget:g} s per method)")
    rows = []
    for n in sizes:
        xy = blobs(n)
        labels = [rng.integers(0, K, n) for _ in range(6)]
        centroids = [rng.uniform(-6, 6, size=(K, 2)) for _ in range(6)]
        frame, widget = ours(xy, labels, centroids)
        ours_fps = frames_per_s(frame, 10, budget)
        (x0, x1), (y0, y1) = widget.vb.viewRange()
        cells, owners = widget._cells, widget._owners  # the same raster, for matplotlib's imshow
        grid_shape = widget._grid.shape
        methods = matplotlib_methods(xy, labels, centroids, cells, owners, grid_shape,
                                     (x0, x1, y0, y1))
        mpl = {name: frames_per_s(fn, 3, budget) for name, fn in methods.items()}
        best = max(mpl, key=mpl.get)
        rows.append((n, ours_fps, mpl, best))
        widget.close()
        widget.deleteLater()
    print()
    names = list(rows[0][2]) if rows else []
    print("| points | workbench (fps) | " + " | ".join(f"mpl {m}" for m in names)
          + " | best matplotlib | workbench / best |")
    print("| ---: | ---: | " + " | ".join("---:" for _ in names) + " | --- | ---: |")
    for n, f, mpl, best in rows:
        cells_ = " | ".join(f"{mpl[m]:.1f}" for m in names)
        print(f"| {n:,} | {f:.0f} | {cells_} | {best} | {f / mpl[best]:.1f}x |")
    targets = {100_000: 60, 1_000_000: 30}
    for n, f, _mpl, _best in rows:
        if n in targets:
            verdict = "meets" if f >= targets[n] else "MISSES"
            print(f"{n:,} points: {f:.0f} fps {verdict} the target of {targets[n]} fps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
