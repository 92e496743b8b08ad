"""A whole k-means run as plain data: ``run_kmeans(points, init) -> KMeansRun``."""

from __future__ import annotations

import functools
import math
import time
from typing import TYPE_CHECKING

import numpy as np

from workbench.api.kmeans import KMeansRun
from workbench.engine.errors import UsageError
from workbench.engine.kmeans.data import validate_points
from workbench.engine.kmeans.inits import check_given

if TYPE_CHECKING:
    from jax.stages import Compiled

MAX_ITER_LIMIT = 100_000


_EXECUTABLES: dict[tuple[int, int, int, int, bool], Compiled] = {}


def _compiled(key: tuple[int, int, int, int, bool]) -> tuple[Compiled, float]:
    """The executable for these shapes and its compile time (0 when cached)."""
    if key in _EXECUTABLES:
        return _EXECUTABLES[key], 0.0
    import jax
    import jax.numpy as jnp

    from workbench.engine.kmeans import lloyd

    n, d, k, max_iter, record_labels = key
    fn = jax.jit(functools.partial(lloyd.run, max_iter=max_iter, record_labels=record_labels))
    x = jax.ShapeDtypeStruct((n, d), jnp.float32)
    c = jax.ShapeDtypeStruct((k, d), jnp.float32)
    t0 = time.perf_counter()
    compiled = fn.lower(x, c, jax.ShapeDtypeStruct((), jnp.float32)).compile()
    if len(_EXECUTABLES) >= 16:
        _EXECUTABLES.pop(next(iter(_EXECUTABLES)))
    _EXECUTABLES[key] = compiled
    return compiled, time.perf_counter() - t0


def run_kmeans(
    points: np.ndarray,
    centroids: np.ndarray,
    *,
    max_iter: int = 100,
    tol: float = 1e-5,
    record_labels: bool = True,
    devices: str | None = None,
) -> KMeansRun:
    """Lloyd's algorithm from ``centroids`` in one compiled call, with its full history.

    Converged when no point changes cluster (a fixed point) or, for tol > 0,
    when the mean squared distance (``inertia_mean``) drops by no more than
    ``tol`` (absolute); a negative tol runs all ``max_iter`` iterations.
    ``compile_s`` is 0 when an executable for these shapes was cached.
    ``devices`` (``"all"``, a platform or devices, as ``--devices``) shards the
    points over those devices (``sharded.py``); None runs on the default device.
    """
    import jax
    import jax.numpy as jnp

    from workbench.engine.devices import device_name, mesh_devices

    x = validate_points(points)
    n, d = x.shape
    c0 = check_given(np.asarray(centroids), None, n, d)
    if not 0 <= max_iter <= MAX_ITER_LIMIT:
        raise UsageError(f"--max-iter must be between 0 and {MAX_ITER_LIMIT}, got {max_iter}")
    if math.isnan(tol):
        raise UsageError("--tol must be a number, got nan")
    if devices is None:
        key = (n, d, c0.shape[0], int(max_iter), bool(record_labels))
        compiled, compile_s = _compiled(key)
        xj, cj, tj = jnp.asarray(x), jnp.asarray(c0), jnp.float32(tol)
        used = list(xj.devices())
    else:
        from workbench.engine.kmeans import sharded

        used = mesh_devices(devices)
        compiled, compile_s, (xj, cj, tj) = sharded.prepare(
            x, c0, tol, int(max_iter), bool(record_labels), used)
    jax.block_until_ready((xj, cj))
    t0 = time.perf_counter()
    h = jax.block_until_ready(compiled(xj, cj, tj))
    run_s = time.perf_counter() - t0
    frames = int(h.passes)
    iterations = frames - 1
    labels = np.asarray(h.labels)
    if labels.shape[1] != n:  # the padding of a sharded run
        labels = np.ascontiguousarray(labels[:, :n])
    if record_labels:
        labels = labels[:frames].copy() if frames < labels.shape[0] else labels
    return KMeansRun(
        centroids=np.asarray(h.centroids)[:frames].copy(),
        labels=labels,
        inertia_mean=np.asarray(h.inertia_mean)[:frames].copy(),
        mean_distance=np.asarray(h.mean_distance)[:frames].copy(),
        changed=np.asarray(h.changed)[:frames].copy(),
        counts=np.asarray(h.counts)[:frames].copy(),
        iterations=iterations,
        converged=bool(h.converged),
        compile_s=compile_s,
        run_s=run_s,
        per_iter_s=run_s / max(iterations, 1),
        devices=tuple(device_name(dv) for dv in used),
    )
