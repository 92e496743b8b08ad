"""`workbench kmeans`: Lloyd's algorithm in JAX with every iteration recorded.

workbench kmeans --tutorial
workbench kmeans --blobs 100000 --k 8 --spread 1.5 --format json
workbench kmeans --data points.csv --k 3 --init farthest --labels-out labels.npy
workbench kmeans --blobs 1000000 --k 8 --devices all
"""

from __future__ import annotations

import argparse
import io
import json
import math
from pathlib import Path
from typing import cast

import numpy as np

from workbench.api import messages as m
from workbench.api.choices import INITS, Dataset, Init
from workbench.api.commands import add_kmeans_arguments
from workbench.api.kmeans import KMeansDemo, KMeansRun
from workbench.api.writer import atomic_write_bytes
from workbench.cli.runner import add_engine_options, open_engine
from workbench.engine.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "kmeans",
        help="run k-means (Lloyd) in JAX and print every iteration",
        description="Run Lloyd's k-means in one compiled JAX call and print, at every "
        "iteration, the mean squared distance (inertia_mean), the mean distance and the "
        "points that changed cluster.",
    )
    add_kmeans_arguments(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--labels-out", metavar="FILE.npy", help="write the final labels here")
    p.add_argument(
        "-o", "--output", metavar="RUN.gif|FOLDER",
        help="draw every iteration off screen: an animated GIF, or numbered PNGs in a folder",
    )
    add_engine_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from workbench.engine.kmeans import TUTORIAL_K, load_points
    from workbench.engine.kmeans.inits import load_centroids

    k = args.k
    # A file is read here, on the machine the command runs on, and its data sent.
    points = None
    dataset: Dataset
    if args.blobs is not None:
        if k is None:
            raise UsageError("--blobs needs --k")
        dataset = "blobs"
        source = f"{args.blobs} points in {k} blobs (spread {args.spread:g}, seed {args.seed})"
    elif args.data is not None:
        dataset, points, source = "file", load_points(args.data), args.data
    else:
        dataset, source = "tutorial", "the tutorial's points"
        if k is None and not args.init.lower().endswith(".npy"):
            k = TUTORIAL_K
    if args.labels_out is not None and not args.labels_out.lower().endswith(".npy"):
        raise UsageError(f"--labels-out must name a .npy file, got {args.labels_out!r}")
    if math.isnan(args.tol):
        raise UsageError("--tol must be a number, got nan")
    init = args.init
    given = init not in INITS
    request = m.RunKMeans(
        dataset=dataset, points=points, n=args.blobs or 0, k=k, spread=args.spread,
        seed=args.seed, init=INITS[0] if given else cast(Init, init),
        centroids=load_centroids(init) if given else None,
        max_iter=args.max_iter, tol=args.tol, with_points=args.output is not None,
        devices=args.devices)
    with open_engine(args) as engine:
        demo = engine.call(request, KMeansDemo)
    result = demo.run
    if args.labels_out is not None:
        _save_labels(Path(args.labels_out), result.final_labels)
    if args.output is not None:
        _draw(Path(args.output), demo.points, result)
    if args.format == "json":
        print(json.dumps(to_json(result)))
    else:
        print_text(result, source, init)
    return 0


def to_json(r: KMeansRun) -> dict:
    """The JSON document of a run: per-frame histories, the final frame, the timing.

    Every history has ``iterations + 1`` entries: entry 0 is the initial centroids
    and the first assignment to them, entry i the state after i updates, the
    last entry the result (repeated under ``final``).
    """
    sizes = r.counts[-1]
    return {
        "n": r.n,
        "k": r.k,
        "d": r.d,
        "iterations": r.iterations,
        "converged": r.converged,
        "inertia_mean": [float(v) for v in r.inertia_mean],
        "mean_distance": [float(v) for v in r.mean_distance],
        "centroids": r.centroids.astype(float).tolist(),
        "changed": [int(v) for v in r.changed],
        "empty_clusters": [list(e) for e in r.empty_clusters],
        "final": {
            "inertia_mean": float(r.inertia_mean[-1]),
            "mean_distance": float(r.mean_distance[-1]),
            "centroids": r.final_centroids.astype(float).tolist(),
            "sizes": [int(v) for v in sizes],
            "changed": int(r.changed[-1]),
            "empty_clusters": list(r.empty_clusters[-1]),
        },
        "timing": {"compile_s": r.compile_s, "per_iter_s": r.per_iter_s},
        "devices": list(r.devices),
    }


def print_text(r: KMeansRun, source: str, init: str) -> None:
    print(f"k-means on {source}: N={r.n}, D={r.d}, K={r.k}, init {init}")
    if len(r.devices) > 1:
        print(f"points sharded over {len(r.devices)} devices: {', '.join(r.devices)}")
    print(f"{'iter':>5} {'inertia_mean':>14} {'mean_distance':>14} {'changed':>9}  empty")
    for i, (sq, dist, ch, empty) in enumerate(
        zip(r.inertia_mean, r.mean_distance, r.changed, r.empty_clusters, strict=True)
    ):
        print(f"{i:>5} {sq:>14.6g} {dist:>14.6g} {ch:>9}  {' '.join(map(str, empty)) or '-'}")
    state = "converged" if r.converged else "stopped (not converged)"
    print(
        f"{state} after {r.iterations} iterations: inertia_mean {r.inertia_mean[-1]:.6g}, "
        f"mean_distance {r.mean_distance[-1]:.6g}; "
        f"compile {r.compile_s:.3f} s, {r.per_iter_s * 1e3:.3f} ms per iteration"
    )


def _draw(path: Path, points: np.ndarray, r: KMeansRun) -> None:
    """Render the run with the window's own k-means plot, off screen (no display needed)."""
    if points.shape[1] < 2:
        raise UsageError(f"drawing needs 2 columns, the data has {points.shape[1]}")
    from workbench.cli.offscreen import qt_app

    qt_app()
    from workbench.plots.export import export_kmeans_gif, export_kmeans_pngs, run_frames
    from workbench.plots.kmeans_scatter import KMeansScatter

    scatter = KMeansScatter()
    scatter.resize(800, 600)
    scatter.set_points(np.ascontiguousarray(points[:, :2], dtype=np.float32))
    frames = run_frames(r)
    try:
        if path.suffix.lower() == ".gif":
            export_kmeans_gif(scatter, frames, path)
        elif path.suffix == "":
            export_kmeans_pngs(scatter, frames, path)
        else:
            raise UsageError(f"-o takes a .gif file or a folder for PNGs, got {str(path)!r}")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def _save_labels(path: Path, labels: np.ndarray) -> None:
    try:
        out = io.BytesIO()
        np.save(out, labels)
        # np.save's own naming: ".npy" is added to a name without it.
        target = path if path.suffix == ".npy" else path.with_name(path.name + ".npy")
        atomic_write_bytes(target, out.getvalue())
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
