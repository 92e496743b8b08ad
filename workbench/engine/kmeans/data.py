"""Points to cluster: the tutorial's three blobs, Gaussian blobs, or a user's .npy/.csv file.

Everything here is numpy float32 [N, D] with D >= 2 (the animation draws the
first two columns); bad input raises ``UsageError`` with a one-line message.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from workbench.engine.errors import UsageError
from workbench.engine.userfiles import read_regular_file

# Largest points file read. 50 MB is about 2.5 million 2-D points as CSV (three million
# as float64 .npy), far past what the animation draws smoothly; parsing that much text
# already takes ~7 s and ~1 GB, so a larger file would only slow the engine to a crawl.
MAX_POINTS_FILE_BYTES = 50 * 1000 * 1000

# The tutorial's blobs: (count, centre) in the order the notebook concatenates them.
TUTORIAL_BLOBS: tuple[tuple[int, tuple[float, float]], ...] = (
    (400, (4.0, 0.0)),
    (200, (0.5, 1.0)),
    (200, (-0.5, -1.0)),
)
# A "bad init" for the tutorial's points: the last centroid is so far away that
# it never wins a point, so its cluster is empty in every frame and it stays put.
TUTORIAL_BAD_INIT: tuple[tuple[float, float], ...] = (
    (4.0, 0.0),
    (0.0, 0.0),
    (1.0, -1.0),
    (15.0, 15.0),
)


def tutorial_points() -> np.ndarray:
    """The tutorial's 800 points, bit for bit.

    The notebook splits ``PRNGKey(0)`` five times before drawing the blobs,
    under the PRNG of its day (``jax_threefry_partitionable`` off); the same
    key chain reproduces its printed first point (4.8073673, 0.69552976).
    """
    import jax
    import jax.numpy as jnp
    from jax import random

    def draw() -> np.ndarray:
        key = random.PRNGKey(0)
        for _ in range(3):  # the x, the 3000x3000 matrix, the relu input
            key, _ = random.split(key)
        key, *_ = random.split(key, 3)  # the vmap example
        key, *subkeys = random.split(key, 4)
        parts = [
            random.normal(sk, (count, 2)) + jnp.array(centre)
            for sk, (count, centre) in zip(subkeys, TUTORIAL_BLOBS, strict=True)
        ]
        return np.asarray(jnp.concatenate(parts), dtype=np.float32)

    legacy = getattr(jax, "threefry_partitionable", None)
    if legacy is None:  # a future JAX without the switch: same blobs, other draws
        return draw()
    with legacy(False):
        return draw()


def blobs(n: int, k: int, spread: float = 1.0, seed: int = 0, d: int = 2) -> np.ndarray:
    """N points in K Gaussian blobs (std ``spread``) around centres drawn in [-10, 10]^d."""
    if n < 1:
        raise UsageError(f"--blobs needs at least 1 point, got {n}")
    if k < 1:
        raise UsageError(f"blobs need k >= 1, got {k}")
    if not np.isfinite(spread) or spread < 0:
        raise UsageError(f"--spread must be a finite number >= 0, got {spread}")
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-10.0, 10.0, size=(k, d))
    sizes = np.full(k, n // k)
    sizes[: n % k] += 1
    which = np.repeat(np.arange(k), sizes)
    pts = centres[which] + spread * rng.standard_normal((n, d))
    return pts.astype(np.float32)


def load_points(path: str | Path) -> np.ndarray:
    """Points from a ``.npy`` (2-D numeric array) or text/CSV file (one point per row)."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"data file not found: {p}")
    if p.is_dir():
        raise UsageError(f"data file is a directory: {p}")

    def too_big(size: int) -> str:
        return (f"data file {p} is {size / 1e6:.1f} MB; points files may be at most "
                f"{MAX_POINTS_FILE_BYTES / 1e6:.0f} MB")

    data = read_regular_file(p, MAX_POINTS_FILE_BYTES, too_big)
    if not data:
        raise UsageError(f"data file is empty: {p}")
    if p.suffix.lower() == ".npy":
        try:
            arr = np.load(io.BytesIO(data), allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise UsageError(f"cannot read {p} as .npy: {_first_line(exc)}") from None
    else:
        arr = _load_text(p, data)
    return validate_points(arr, source=str(p))


def _load_text(p: Path, data: bytes) -> np.ndarray:
    """Rows of numbers; a message names a bad line by number, never quotes it.

    The path may be any file the user can read (``/etc/shadow`` as root), so its
    content must not come back in an error.
    """
    try:
        lines = data.decode("utf-8-sig").splitlines()  # -sig: a BOM is not a header
    except UnicodeDecodeError as exc:
        raise UsageError(f"{p} is not UTF-8 text (byte {exc.start})") from None
    rows = [
        (no, ln) for no, ln in enumerate(lines, 1) if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not rows:
        raise UsageError(f"data file has no rows: {p}")
    delim = "," if "," in rows[0][1] else None
    out: list[list[float]] = []
    for i, (no, line) in enumerate(rows):
        fields = [f.strip() for f in line.split(delim)]
        try:
            out.append([float(f) for f in fields])
        except ValueError:
            if i == 0:  # a header line
                continue
            raise UsageError(
                f"{p}: line {no}: expected numbers separated by "
                f"{'commas' if delim else 'spaces'}"
            ) from None
        if len(out[-1]) != len(out[0]):
            raise UsageError(f"{p}: line {no}: {len(out[-1])} columns, expected {len(out[0])}")
    if not out:
        raise UsageError(f"data file has a header but no rows: {p}")
    return np.asarray(out, dtype=np.float64)


def validate_points(points: object, source: str = "data") -> np.ndarray:
    """The points as float32 [N, D]; N >= 1, D >= 2, every value finite."""
    arr = np.asarray(points)
    if arr.dtype.kind not in "biuf":
        raise UsageError(f"{source}: expected numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise UsageError(f"{source}: expected an N x D array, got shape {arr.shape}")
    n, d = arr.shape
    if n == 0:
        raise UsageError(f"{source}: no points (N = 0)")
    if d < 2:
        raise UsageError(f"{source}: points need at least 2 columns to animate, got D = {d}")
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        first = int(np.argmax(bad))
        raise UsageError(
            f"{source}: {int(bad.sum())} of {n} rows have NaN or infinite values "
            f"(first: row {first})"
        )
    out = arr.astype(np.float32)
    if not np.isfinite(out).all():
        raise UsageError(f"{source}: values overflow float32")
    return np.ascontiguousarray(out)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
