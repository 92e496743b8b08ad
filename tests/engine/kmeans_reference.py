"""A plain float64 numpy Lloyd: the yardstick for the JAX kernels.

Used by tests/engine/test_kmeans_run.py and benchmarks/kmeans_vs_sklearn.py
(which puts the repository root on ``sys.path`` to import it from here).
"""

from __future__ import annotations

import numpy as np


def lloyd_reference(
    points: np.ndarray, centroids: np.ndarray, iterations: int, until_fixed: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Final centroids and labels after ``iterations`` updates, in float64.

    Same rules as the engine: nearest centroid (ties to the lower index),
    empty clusters keep their centroid. ``until_fixed`` stops earlier, at
    the first iteration where no label changes.
    """
    x = np.asarray(points, dtype=np.float64)
    c = np.asarray(centroids, dtype=np.float64).copy()
    k = c.shape[0]
    prev = None
    for _ in range(iterations):
        lab = nearest(x, c)
        if until_fixed and prev is not None and np.array_equal(lab, prev):
            return c, lab
        prev = lab
        n = np.bincount(lab, minlength=k)
        s = np.stack([np.bincount(lab, x[:, j], minlength=k) for j in range(x.shape[1])], axis=1)
        c = np.where(n[:, None] > 0, s / np.maximum(n, 1)[:, None], c)
    return c, nearest(x, c)


def nearest(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Index of the nearest centroid of every point, in chunks to bound memory."""
    out = np.empty(x.shape[0], dtype=np.int64)
    step = max(1, 4_000_000 // max(1, c.shape[0]))
    for a in range(0, x.shape[0], step):
        d = ((x[a : a + step, None, :] - c[None]) ** 2).sum(axis=-1)
        out[a : a + step] = d.argmin(axis=1)
    return out
