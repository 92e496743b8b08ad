"""Sharded k-means: one device vs the points sharded over all devices, per iteration.

For each N (D=2, K=8, Gaussian blobs, random-point init) it prints, as medians of
interleaved runs of ``run_kmeans`` (each 30 iterations, the full history
recorded, the time of the compiled call only):

* one device ms/iter: ``run_kmeans(x, c0)``, the default device;
* all devices ms/iter: ``run_kmeans(x, c0, devices="all")``, the points on a
  1-D mesh of every device of the default backend (``engine/kmeans/sharded.py``);
* all / one: the overhead ratio (above 1: sharding costs; below: it gains);
* the check, run to the fixed point (tol=0): iterations of each, the final
  centroids' largest difference and the final labels that differ, one device
  vs all; and each against a float64 NumPy Lloyd (labels that differ). On
  touching blobs a point on a cluster boundary may flip an iteration earlier
  or later on one of them (float32 sums in another order), so the iteration
  counts may differ by a few while the fixed point is the same.

Then a scaling model: what a 4- or 8-GPU host should give, from the bytes one
iteration moves per point and the cost of the all-reduce; its assumptions are
printed with it and can be changed (--hbm-tbs, --loop-us, --allreduce-us).

    .venv/bin/python benchmarks/kmeans_sharded.py [--cpu-devices 4] [--sizes 1e5 1e6]

On a CPU-only machine the devices are ``--cpu-devices`` virtual CPU devices
(``XLA_FLAGS=--xla_force_host_platform_device_count``) sharing the machine's
cores: that measures the cost of sharding (the collectives, the per-device
loop), not a speed-up a real multi-device host would give. The script
re-executes itself with that flag when it is missing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

FLAG = "--xla_force_host_platform_device_count"


def _wanted_cpu_devices(argv: list[str]) -> int:
    for i, arg in enumerate(argv):
        if arg == "--cpu-devices" and i + 1 < len(argv):
            return int(argv[i + 1])
        if arg.startswith("--cpu-devices="):
            return int(arg.split("=", 1)[1])
    return 4


if FLAG not in os.environ.get("XLA_FLAGS", ""):
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {FLAG}={_wanted_cpu_devices(sys.argv)}"
    os.execve(sys.executable, [sys.executable, *sys.argv], env)

from pathlib import Path  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402

# The float64 yardstick is test code: import it from tests/ at the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.engine.kmeans_reference import lloyd_reference  # noqa: E402
from workbench.engine.kmeans import blobs, init_centroids, run_kmeans  # noqa: E402
from workbench.engine.kmeans.lloyd import PAIR_LIMIT, label_dtype, operand_width  # noqa: E402

K = 8
D = 2
ITERS = 30


def measure(n: int, repeats: int) -> dict:
    x = blobs(n, K, spread=1.0, seed=0)
    c0 = init_centroids(x, K, "random", seed=1)
    one = run_kmeans(x, c0, max_iter=1000, tol=0.0)
    many = run_kmeans(x, c0, max_iter=1000, tol=0.0, devices="all")
    _, ref_labels = lloyd_reference(x, c0, 1000, until_fixed=True)
    times: dict[str | None, list[float]] = {None: [], "all": []}
    for devices in times:  # compile and warm up both
        run_kmeans(x, c0, max_iter=ITERS, tol=-1.0, devices=devices)
    for _ in range(repeats):
        for devices, samples in times.items():
            samples.append(run_kmeans(x, c0, max_iter=ITERS, tol=-1.0, devices=devices).per_iter_s)
    return {
        "n": n,
        "one": statistics.median(times[None]),
        "all": statistics.median(times["all"]),
        "iterations": (one.iterations, many.iterations),
        "dc": float(np.abs(one.final_centroids - many.final_centroids).max()),
        "labels_differ": int((one.final_labels != many.final_labels).sum()),
        "vs_float64": (int((one.final_labels != ref_labels).sum()),
                       int((many.final_labels != ref_labels).sum())),
        "devices": many.devices,
    }


def bytes_per_point(d: int, k: int) -> int:
    """What one iteration reads and writes per point: the D coordinates (assignment), the
    W-float scatter operand (the update), the label written to the history and the previous
    label read back."""
    return 4 * d + 4 * operand_width(d) + 2 * label_dtype(k).itemsize


def allreduce_floats(d: int, k: int) -> int:
    """The [P, K, W] cluster sums added across devices (P = K with pair cells) + 2 scalars."""
    p = k if k <= PAIR_LIMIT else 1
    return p * k * operand_width(d) + 2


def model(n: float, p: int, args: argparse.Namespace) -> float:
    """Seconds per iteration on p devices: the fixed cost of one loop iteration, the points'
    bytes over p devices' bandwidth, and (p > 1) one all-reduce."""
    stream = n * bytes_per_point(D, K) / (p * args.hbm_tbs * 1e12 * args.efficiency)
    return args.loop_us * 1e-6 + stream + (args.allreduce_us * 1e-6 if p > 1 else 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--sizes", type=float, nargs="+", default=[1e5, 1e6])
    ap.add_argument("--cpu-devices", type=int, default=4,
                    help="virtual CPU devices (XLA_FLAGS) for a machine without accelerators")
    ap.add_argument("--hbm-tbs", type=float, default=3.35,
                    help="model: one GPU's memory bandwidth, TB/s (H100 SXM: 3.35)")
    ap.add_argument("--efficiency", type=float, default=0.8,
                    help="model: the fraction of it a streaming kernel reaches")
    ap.add_argument("--loop-us", type=float, default=30.0,
                    help="model: fixed cost of one while-loop iteration (launches, the "
                    "predicate read back), microseconds")
    ap.add_argument("--allreduce-us", type=float, default=20.0,
                    help="model: one small all-reduce across the GPUs (NVLink, latency-bound), "
                    "microseconds")
    args = ap.parse_args()

    devices = jax.devices()
    print(f"jax {jax.__version__}; default backend {jax.default_backend()}: {len(devices)} "
          f"device(s) ({', '.join(f'{d.platform}:{d.id}' for d in devices)}), "
          f"{devices[0].device_kind}; {os.cpu_count()} cores; D={D}, K={K}, {ITERS} "
          f"iterations, medians of {args.repeats}")
    if jax.default_backend() == "cpu" and len(devices) > 1:
        print(f"(the {len(devices)} CPU devices are virtual and share the {os.cpu_count()} "
              "cores: this measures what sharding costs, not what more devices give)")
    print()
    print("| N | devices | one device ms/iter | all devices ms/iter | all / one "
          "| iterations to the fixed point (one, all) | final max abs dc, one vs all "
          "| final labels differing | labels differing from float64 (one, all) |")
    print("|" + " ---: |" * 9)
    for n in args.sizes:
        m = measure(int(n), args.repeats)
        cells = [
            f"{m['n']:,}",
            f"{len(m['devices'])}",
            f"{m['one'] * 1e3:.3f}",
            f"{m['all'] * 1e3:.3f}",
            f"{m['all'] / m['one']:.2f}x",
            f"{m['iterations'][0]}, {m['iterations'][1]}",
            f"{m['dc']:.1e}",
            f"{m['labels_differ']}",
            f"{m['vs_float64'][0]}, {m['vs_float64'][1]}",
        ]
        print("| " + " | ".join(cells) + " |", flush=True)

    b = bytes_per_point(D, K)
    floats = allreduce_floats(D, K)
    print()
    print(f"Scaling model (D={D}, K={K}): one iteration moves {b} bytes per point "
          f"(4*D coordinates, 4*W={4 * operand_width(D)} scatter operand, 2 label bytes), "
          f"split over p devices; the devices then add {floats} floats ({4 * floats} bytes: "
          f"the [K, K, W] pair-cell sums and two scalars) in one all-reduce, "
          f"{args.allreduce_us:g} us (latency-bound). Per GPU {args.hbm_tbs:g} TB/s at "
          f"{args.efficiency:.0%}, {args.loop_us:g} us fixed per loop iteration. "
          "Speed-up = time on 1 / time on p.")
    print()
    print("| N | 1 GPU us/iter | 4 GPUs us/iter | speed-up | 8 GPUs us/iter | speed-up |")
    print("|" + " ---: |" * 6)
    for n in (1e6, 1e7, 1e8, 1e9):
        t1, t4, t8 = (model(n, p, args) for p in (1, 4, 8))
        print(f"| {n:.0e} | {t1 * 1e6:.0f} | {t4 * 1e6:.0f} | {t1 / t4:.1f}x "
              f"| {t8 * 1e6:.0f} | {t1 / t8:.1f}x |")
    bw = args.hbm_tbs * 1e12 * args.efficiency
    for p in (4, 8):
        even = args.allreduce_us * 1e-6 * bw * p / (b * (p - 1))
        print(f"{p} GPUs break even at N = {even:.1e} points; below that one GPU is faster.")


if __name__ == "__main__":
    main()
