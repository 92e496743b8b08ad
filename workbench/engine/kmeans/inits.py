"""Initial centroids: random points, k-means++, farthest-first, or given centroids.

Plain numpy with a seeded generator: the choice of starting points is cheap
next to Lloyd's iterations and must be the same on every machine.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from workbench.api.choices import INITS
from workbench.engine.errors import UsageError
from workbench.engine.userfiles import read_regular_file

MAX_CENTROIDS_FILE_BYTES = 1_000_000  # K x D float64: far more centroids than any demo

METHODS = INITS


def check_k(k: int, n: int) -> None:
    """K must be between 1 and the number of points."""
    if k < 1:
        raise UsageError(f"k must be at least 1, got {k}")
    if k > n:
        raise UsageError(f"k = {k} is larger than the number of points N = {n}")


def init_centroids(
    points: np.ndarray, k: int | None, method: str | np.ndarray | Path = "kmeans++", seed: int = 0
) -> np.ndarray:
    """K starting centroids (float32 [K, D]) for ``points`` by ``method``.

    ``method`` is one of ``METHODS``, an array of centroids, or a path to a
    ``.npy`` file of centroids (then ``k`` may be None; if given it must match).
    """
    n, d = points.shape
    if isinstance(method, str) and method in METHODS:
        if k is None:
            raise UsageError(f"--init {method} needs --k")
        check_k(k, n)
        rng = np.random.default_rng(seed)
        if method == "random":
            return points[np.sort(rng.choice(n, size=k, replace=False))].copy()
        return _seeded(points, k, rng, greedy=method == "farthest")
    given = load_centroids(method) if isinstance(method, (str, Path)) else np.asarray(method)
    return check_given(given, k, n, d)


def check_given(c: np.ndarray, k: int | None, n: int, d: int) -> np.ndarray:
    """Given centroids as float32 [K, D] matching the data, or a UsageError."""
    if c.dtype.kind not in "biuf" or c.ndim != 2:
        raise UsageError(f"initial centroids must be a K x D array of numbers, got shape {c.shape}")
    if c.shape[1] != d:
        raise UsageError(f"initial centroids have D = {c.shape[1]}, the data has D = {d}")
    if k is not None and c.shape[0] != k:
        raise UsageError(f"--k {k} does not match the {c.shape[0]} initial centroids")
    check_k(c.shape[0], n)
    if not np.isfinite(c).all():
        raise UsageError("initial centroids contain NaN or infinite values")
    return np.ascontiguousarray(c, dtype=np.float32)


def load_centroids(path: str | Path) -> np.ndarray:
    """Starting centroids from a ``.npy`` file (``--init FILE.npy``), as stored."""
    p = Path(path)
    if p.suffix.lower() != ".npy":
        raise UsageError(
            f"--init must be one of {', '.join(METHODS)} or a .npy file, got {str(path)!r}"
        )
    if not p.exists():
        raise UsageError(f"initial centroids file not found: {p}")
    data = read_regular_file(p, MAX_CENTROIDS_FILE_BYTES, lambda size: (
        f"initial centroids file {p} is {size / 1e6:.1f} MB; centroids files are read up to "
        f"{MAX_CENTROIDS_FILE_BYTES / 1e6:.0f} MB"))
    if not data:
        raise UsageError(f"initial centroids file is empty: {p}")
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise UsageError(f"cannot read {p} as .npy: {str(exc).splitlines()[0]}") from None


def _seeded(points: np.ndarray, k: int, rng: np.random.Generator, greedy: bool) -> np.ndarray:
    """k-means++ (next point drawn with probability ~ D^2) or farthest-first (argmax D^2)."""
    x = points.astype(np.float64)
    chosen = [int(rng.integers(x.shape[0]))]
    d2 = ((x - x[chosen[0]]) ** 2).sum(axis=1)
    for _ in range(1, k):
        total = d2.sum()
        if greedy:
            nxt = int(np.argmax(d2))
        elif total > 0:
            nxt = int(np.searchsorted(np.cumsum(d2), rng.uniform(0, total), side="right"))
            nxt = min(nxt, x.shape[0] - 1)
        else:  # every point already sits on a centroid (duplicates): pick uniformly
            nxt = int(rng.integers(x.shape[0]))
        chosen.append(nxt)
        d2 = np.minimum(d2, ((x - x[nxt]) ** 2).sum(axis=1))
    return points[chosen].copy()
