"""One request's worth of k-means for the animated demo: make the data, run, send it all back.

The window never imports jax, so it asks for a whole recorded run (points and
every frame) and plays it back locally: a frame, half an iteration (assign or
update) and the scrubber are all views of the same history, which the tests
rebuild by hand, half by half, and compare.
"""

from __future__ import annotations

import numpy as np

from workbench.api.choices import DATASETS
from workbench.api.kmeans import KMeansDemo
from workbench.engine.errors import UsageError
from workbench.engine.kmeans.inits import check_k


def make_points(
    dataset: str = "tutorial",
    n: int = 1000,
    k: int = 4,
    spread: float = 1.0,
    seed: int = 0,
    path: str | None = None,
) -> tuple[np.ndarray, str]:
    """The demo's data: ``k`` is the number of blobs to draw the points from."""
    from workbench.engine.kmeans import blobs, load_points, tutorial_points

    if dataset == "tutorial":
        return tutorial_points(), "the tutorial's points"
    if dataset == "blobs":
        return blobs(n, k, spread=spread, seed=seed), f"{n} points in {k} blobs"
    if dataset == "file":
        if not path:
            raise UsageError("choose a .npy or .csv file of points first")
        return load_points(path), path
    raise UsageError(f"unknown data set {dataset!r} (known: {', '.join(DATASETS)})")


MAX_DEMO_POINTS = 2_000_000  # drawn as a scatter: far beyond what a screen shows
MAX_DEMO_ITER = 10_000
MAX_HISTORY_LABELS = 200_000_000  # one int32 label per point per frame: 800 MB
MAX_DISTANCE_WORK = 200_000_000_000  # point-centroid-dimension terms of a whole run


def _check_size(n: int, k: int, max_iter: int) -> None:
    """Refuse a demo whose data or recording could not fit, before allocating any of it."""
    if not 1 <= n <= MAX_DEMO_POINTS:
        raise UsageError(f"the demo takes 1 to {MAX_DEMO_POINTS:,} points, got {n:,}")
    check_k(k, n)  # before blobs draws k centres
    if not 1 <= max_iter <= MAX_DEMO_ITER:
        raise UsageError(f"max_iter must be 1 to {MAX_DEMO_ITER:,}, got {max_iter:,}")


def check_work(n: int, k: int | None, d: int, max_iter: int) -> None:
    """Refuse a run whose distances (every point to every centroid, k-means++'s seeding and
    each iteration) would hold the engine for minutes: a million points into a million
    clusters once ran for ever (found by the wire fuzz test)."""
    work = n * (k or 0) * max(d, 1) * (max_iter + 1)
    if work > MAX_DISTANCE_WORK:
        raise UsageError(f"k-means of {n:,} points in {d} dimensions into {k:,} clusters over "
                         f"{max_iter} iterations is {work:,} distance terms, more than "
                         f"{MAX_DISTANCE_WORK:,} (minutes of work): use fewer points, "
                         "clusters or iterations")


def check_history(n: int, max_iter: int) -> None:
    """Refuse a run whose recorded labels (one per point per frame) could not fit."""
    if n * (max_iter + 1) > MAX_HISTORY_LABELS:
        raise UsageError(f"a recorded run of {n:,} points over {max_iter} "
                         f"iterations would keep {n * (max_iter + 1):,} labels, more "
                         f"than {MAX_HISTORY_LABELS:,}: use fewer points or iterations")


def run_demo(
    dataset: str = "tutorial",
    *,
    n: int = 1000,
    k: int = 4,
    blob_k: int | None = None,
    spread: float = 1.0,
    seed: int = 0,
    path: str | None = None,
    init: str = "kmeans++",
    centroids: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-5,
    devices: str | None = None,
) -> KMeansDemo:
    """Data, initial centroids (a method, or ``centroids`` placed by clicking) and the run
    (sharded over ``devices`` when given, as ``run_kmeans``)."""
    from workbench.engine.kmeans import init_centroids, run_kmeans

    _check_size(n, blob_k or k, max_iter)
    points, source = make_points(dataset, n, blob_k or k, spread, seed, path)
    check_history(len(points), max_iter)
    if points.shape[1] < 2:
        raise UsageError(f"the animation needs 2 columns, the data has {points.shape[1]}")
    check_work(len(points), len(centroids) if init == "given" and centroids is not None
               else k, points.shape[1], max_iter)
    if init == "given":
        if centroids is None or len(centroids) == 0:
            raise UsageError("click on the plot to place the starting centroids first")
        c0 = init_centroids(points, None, np.asarray(centroids, dtype=np.float32), seed)
    else:
        c0 = init_centroids(points, k, init, seed)
    run = run_kmeans(points, c0, max_iter=max_iter, tol=tol, devices=devices)
    xy = np.ascontiguousarray(points[:, :2], dtype=np.float32)
    return KMeansDemo(xy, source, c0, run)


def run_headless(
    dataset: str = "tutorial",
    *,
    points: np.ndarray | None = None,
    n: int = 0,
    k: int | None = None,
    spread: float = 1.0,
    seed: int = 0,
    init: str = "kmeans++",
    centroids: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-5,
    with_points: bool = False,
    devices: str | None = None,
) -> KMeansDemo:
    """The ``kmeans`` command's run: any N x D data (``points`` for a file the client read),
    without the animation's limits; ``points`` come back (first two columns) only if asked."""
    from workbench.engine.kmeans import init_centroids, run_kmeans, validate_points
    from workbench.engine.kmeans.run import MAX_ITER_LIMIT

    # Every frame's labels are recorded, as in the demo: refuse what could not fit before
    # drawing any data (a max_iter out of range is run_kmeans's to explain, after).
    frames = min(max(max_iter, 0), MAX_ITER_LIMIT)
    if dataset == "blobs" and n >= 1:
        check_k(k or 0, n)
        check_history(n, frames)
    if dataset == "file":
        if points is None:
            raise UsageError("no points were sent for the data set 'file'")
        data, source = validate_points(points, "the points sent"), "the points sent"
    else:
        try:
            data, source = make_points(dataset, n, k or 0, spread, seed)
        except MemoryError:
            raise UsageError(f"{n:,} points do not fit in the engine's memory: use fewer") \
                from None
    check_history(len(data), frames)
    wanted = len(centroids) if centroids is not None else k
    check_work(len(data), wanted, data.shape[1] if data.ndim == 2 else 1, frames)
    c0 = init_centroids(data, k, centroids if centroids is not None else init, seed=seed)
    run = run_kmeans(data, c0, max_iter=max_iter, tol=tol, devices=devices)
    xy = (np.ascontiguousarray(data[:, :2], dtype=np.float32) if with_points
          else np.zeros((0, 2), np.float32))
    return KMeansDemo(xy, source, c0, run)
