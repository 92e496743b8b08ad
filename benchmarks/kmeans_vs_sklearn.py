"""k-means per iteration: the workbench's JAX Lloyd vs scikit-learn's, side by side.

For N = 1e5 and 1e6 (D=2, K=8, Gaussian blobs, the same random-point init for
both) it prints, as medians of several interleaved runs:

* sklearn ms/iter: ``KMeans(algorithm="lloyd", n_init=1, init=<same centroids>,
  tol=0, max_iter=M).fit`` time divided by its real ``n_iter_`` (it stops early
  once labels stop changing), with its default threads (all cores);
* ours ms/iter: ``run_kmeans`` (one compiled call, full history) made to run
  exactly the same number of iterations, its run time divided by them;
* ratio = sklearn / ours (the target is >= 3);
* floor: one jitted read of the data (``jnp.sum`` over the [N, 2] array), the
  least any iteration must cost, and ours / floor;
* history overhead: ours with the labels of every iteration recorded vs only
  the final labels (the target is <= 10%);
* and the check: final centroids vs a float64 numpy Lloyd (max abs diff, must
  be <= 1e-4) and the number of labels that differ (must be 0), for ours and
  for sklearn.

Then ``workbench kmeans`` in-process (the command, in a child process started
without the ``MALLOC_*`` variables, so its malloc tuning is the CLI's own
``mallopt`` at start) vs the same run as a ``KMeans`` request to the engine
kernel, at N = 1e6, D=2, K=8, 40 iterations (``--tol -1``), interleaved: per
iteration each, and in-process / kernel (the target is <= 1.10). The kernel's
figure is given for its first run (a fresh process, as the command always is)
and its second (reusing the heap the first left, as every later run does).

    .venv/bin/python benchmarks/kmeans_vs_sklearn.py [--repeats 15] [--sizes 1e5 1e6]
        [--parts sklearn cli]

The scikit-learn part runs in one process started with the engine kernel's environment
(``workbench.api.process_env``: glibc keeps freed blocks up to 1 GiB for
reuse); the script re-executes itself with it when it is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from workbench.api.process_env import MALLOC_TUNING, engine_env

if any(key not in os.environ for key in MALLOC_TUNING):  # as the engine kernel runs
    os.execve(sys.executable, [sys.executable, *sys.argv], engine_env())

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402

# The float64 yardstick is test code: import it from tests/ at the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.engine.kmeans_reference import lloyd_reference  # noqa: E402
from workbench.engine.kmeans import blobs, init_centroids, run_kmeans  # noqa: E402

K = 8
MAX_ITER = 40
SPREAD = 1.0  # touching blobs; from random points Lloyd needs 100+ iterations


def sklearn_fit(x: np.ndarray, c0: np.ndarray, max_iter: int) -> tuple[float, KMeans]:
    km = KMeans(K, init=c0, n_init=1, algorithm="lloyd", tol=0.0, max_iter=max_iter)
    t0 = time.perf_counter()
    km.fit(x)
    return time.perf_counter() - t0, km


def floor_s(x: np.ndarray, repeats: int) -> float:
    f = jax.jit(jnp.sum)
    xj = jnp.asarray(x)
    f(xj).block_until_ready()
    ts = []
    for _ in range(max(repeats, 5) * 4):
        t0 = time.perf_counter()
        f(xj).block_until_ready()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def measure(n: int, repeats: int) -> dict:
    x = blobs(n, K, spread=SPREAD, seed=0)
    c0 = init_centroids(x, K, "random", seed=1)
    # Agreement at the fixed point: ours, sklearn and float64 numpy from c0.
    r = run_kmeans(x, c0, max_iter=MAX_ITER * 25, tol=0.0)
    ref_c, ref_lab = lloyd_reference(x, c0, MAX_ITER * 25, until_fixed=True)
    _, km = sklearn_fit(x, c0, MAX_ITER)
    iters = int(km.n_iter_)
    # Same number of centroid updates for ours: tol < 0 never stops early.
    run_kmeans(x, c0, max_iter=iters, tol=-1.0)
    run_kmeans(x, c0, max_iter=iters, tol=-1.0, record_labels=False)
    # Ours first: scikit-learn's OpenMP threads keep spinning for a while after
    # a fit and would steal the cores from whatever runs right after it.
    ours, bare = [], []
    for _ in range(repeats):
        ours.append(run_kmeans(x, c0, max_iter=iters, tol=-1.0).per_iter_s)
        bare.append(run_kmeans(x, c0, max_iter=iters, tol=-1.0, record_labels=False).per_iter_s)
        ours.append(run_kmeans(x, c0, max_iter=iters, tol=-1.0).per_iter_s)
    floor = floor_s(x, repeats)
    sk = []
    for _ in range(repeats):
        t, km = sklearn_fit(x, c0, MAX_ITER)
        sk.append(t / km.n_iter_)
    km_full = KMeans(K, init=c0, n_init=1, algorithm="lloyd", tol=0.0, max_iter=MAX_ITER * 25).fit(
        x
    )
    return {
        "n": n,
        "iters": iters,
        "ours": statistics.median(ours),
        "bare": statistics.median(bare),
        "sk": statistics.median(sk),
        "floor": floor,
        "err": float(np.abs(r.final_centroids - ref_c).max()),
        "labdiff": int((r.final_labels != ref_lab).sum()),
        "sk_err": float(np.abs(km_full.cluster_centers_ - ref_c).max()),
        "sk_labdiff": int((km_full.labels_ != ref_lab).sum()),
    }


CLI_N = 1_000_000
CLI_ITERS = 40


def cli_per_iter() -> float:
    """``workbench kmeans`` in a fresh process without the kernel's malloc variables."""
    env = {k: v for k, v in os.environ.items() if k not in MALLOC_TUNING}
    run = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "kmeans", "--blobs", str(CLI_N), "--k", str(K),
         "--init", "random", "--seed", "0", "--max-iter", str(CLI_ITERS), "--tol", "-1",
         "--format", "json"],
        env=env, capture_output=True, text=True, check=True,
    )
    return float(json.loads(run.stdout)["timing"]["per_iter_s"])


def cli_vs_kernel(repeats: int) -> None:
    """Per iteration of the same k-means run: the command in-process vs kernel requests.

    Each repeat starts a kernel and sends the request twice: its first run, in a fresh
    process like the command's, and a second that reuses the heap the first left.
    """
    from workbench.api import messages as p
    from workbench.client.engine_client import EngineClient

    request = p.KMeans(dataset="blobs", n=CLI_N, k=K, seed=0, init="random",
                       max_iter=CLI_ITERS, tol=-1.0)
    cli, first, warm = [], [], []
    for _ in range(repeats):
        cli.append(cli_per_iter())
        with EngineClient() as client:
            for runs in (first, warm):
                reply = client.call(request, timeout=300)
                assert isinstance(reply, p.Result), reply
                runs.append(float(reply.value.run.per_iter_s))
    c, f, w = (statistics.median(v) for v in (cli, first, warm))
    print(f"\n`workbench kmeans` in-process vs the engine kernel: N={CLI_N:,}, D=2, K={K}, "
          f"{CLI_ITERS} iterations, medians of {repeats} interleaved runs\n")
    print("| in-process ms/iter | kernel, first run | kernel, second run "
          "| in-process / kernel second | in-process / kernel first |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    print(f"| {c * 1e3:.3f} | {f * 1e3:.3f} | {w * 1e3:.3f} | {c / w:.2f} | {c / f:.2f} |",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--sizes", type=float, nargs="+", default=[1e5, 1e6])
    ap.add_argument("--parts", nargs="+", choices=("sklearn", "cli"), default=["sklearn", "cli"])
    args = ap.parse_args()
    if "sklearn" in args.parts:
        sklearn_table(args)
    if "cli" in args.parts:
        cli_vs_kernel(max(5, args.repeats // 2))


def sklearn_table(args: argparse.Namespace) -> None:
    print(
        f"jax {jax.__version__} on {jax.devices()[0].platform}, {os.cpu_count()} cores; "
        f"D=2, K={K}, blobs spread {SPREAD}, medians of {args.repeats}; "
        f"malloc as in the engine kernel ({' '.join(f'{k}={v}' for k, v in MALLOC_TUNING.items())})"
        "\n"
    )
    print(
        "| N | iterations | ours ms/iter | sklearn ms/iter | sklearn / ours | floor ms "
        "| ours / floor | history overhead | ours max abs dc, labels differing "
        "| sklearn max abs dc, labels differing |"
    )
    print("|" + " ---: |" * 10)
    for n in args.sizes:
        m = measure(int(n), args.repeats)
        cells = [
            f"{m['n']:,}",
            f"{m['iters']}",
            f"{m['ours'] * 1e3:.3f}",
            f"{m['sk'] * 1e3:.3f}",
            f"{m['sk'] / m['ours']:.1f}x",
            f"{m['floor'] * 1e3:.3f}",
            f"{m['ours'] / m['floor']:.1f}x",
            f"{(m['ours'] / m['bare'] - 1) * 100:+.1f}%",
            f"{m['err']:.1e}, {m['labdiff']}",
            f"{m['sk_err']:.1e}, {m['sk_labdiff']}",
        ]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
