"""The arguments of the headless sub-commands, defined once for the CLI and lesson directives.

``workbench trace FILE FUNC --args SPEC`` on the command line and ``# workbench: trace FUNC
--args SPEC`` in a lesson cell are one grammar: each ``add_*_arguments`` adds the arguments
that say *what* to compute (not the output format or file); the CLI adds ``FILE``, its
output options and the engine options around them (``workbench/cli/*_cmd.py``), and
``workbench.lessons.directives`` parses a directive line with the very same definitions.
"""

from __future__ import annotations

import argparse

from workbench.api.choices import DEVICE_CHOICES, INITS, MODES, TRANSFORMS


class CommandError(ValueError):
    """A command line or directive that does not parse: argparse's message, one line."""


def add_call_arguments(p: argparse.ArgumentParser) -> None:
    """FUNC, ``--args`` and ``--transform``: the call ``trace`` (and ``values``) describe."""
    p.add_argument("function", metavar="FUNC")
    p.add_argument("--args", required=True, metavar="SPEC",
                   help="argument spec, e.g. 'f32[1000]' or '(f32[3], f32[3]), i32[], 3'")
    p.add_argument("--transform", action="append", default=[], metavar="T",
                   help=", ".join(TRANSFORMS))


def add_plot_arguments(p: argparse.ArgumentParser) -> None:
    """FUNC and what to sample: derivative order, interval, points, parameters, overlays."""
    p.add_argument("function", metavar="FUNC", help="the function to plot")
    p.add_argument("--order", type=int, default=2, help="highest derivative, 0 to 4 (default 2)")
    p.add_argument("--range", nargs=2, type=float, default=(-5.0, 5.0), metavar=("L", "R"),
                   dest="range_", help="the interval (default -5 5)")
    p.add_argument("--points", type=int, default=1000, help="number of samples (default 1000)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter value, e.g. --param alpha=1.5 (repeatable)")
    p.add_argument("--wrt", metavar="ARG", help="the argument to vary and differentiate "
                   "(default: the first without a default)")
    p.add_argument("--at", type=float, metavar="X",
                   help="f and its derivatives at exactly X, and whether they exist there "
                   "(the window puts its crosshair there)")
    p.add_argument("--overlay", action="append", default=[], metavar="FUNC",
                   help="draw FUNC on the same axes too (repeatable), e.g. "
                   "--overlay sigmoid --overlay relu")


def add_time_arguments(p: argparse.ArgumentParser) -> None:
    """FUNC, ``--args`` and how to measure: devices, modes, baseline, sweep, repeats, budget."""
    p.add_argument("function", metavar="FUNC")
    p.add_argument("--args", required=True, metavar="SPEC",
                   help="argument spec, e.g. 'f32[1000000]' or 'f32[N]' with --sweep")
    p.add_argument("--devices", default=DEVICE_CHOICES[0],
                   metavar="|".join(DEVICE_CHOICES) + "|DEVICE,...",
                   help="all (default: every device of every backend), a platform, or "
                   "devices such as cpu:1 or gpu:0,gpu:1")
    p.add_argument("--modes", default=",".join(MODES),
                   help=f"comma-separated: {','.join(MODES)}")
    p.add_argument("--baseline", metavar="FUNC", help="a NumPy version to time beside it")
    p.add_argument("--sweep", metavar="N=LO:HI[:COUNT]",
                   help="sizes for a placeholder, log-spaced (default one per decade)")
    p.add_argument("--repeats", type=int, default=7, help="repeats per measurement (default 7)")
    p.add_argument("--min-batch", type=float, default=0.2, metavar="SECONDS",
                   help="shortest batch of loops (default 0.2 s, as %%timeit)")
    p.add_argument("--budget", type=float, default=3.0, metavar="SECONDS",
                   help="cap on one measurement (default 3 s)")


def add_kmeans_arguments(p: argparse.ArgumentParser) -> None:
    """The data (tutorial, blobs or a file), K, the start and the stopping rule."""
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--tutorial",
        action="store_true",
        help="the tutorial's 800 points in three blobs (default; K defaults to 4)",
    )
    src.add_argument("--blobs", type=int, metavar="N", help="N points in K Gaussian blobs")
    src.add_argument(
        "--data", metavar="FILE", help="points from a .npy or .csv file (N x D, D >= 2)"
    )
    p.add_argument("--k", type=int, help="number of clusters")
    p.add_argument("--spread", type=float, default=1.0, help="blob standard deviation (default 1)")
    p.add_argument(
        "--init",
        default=INITS[0],
        metavar="|".join((*INITS, "FILE.npy")),
        help=f"initial centroids (default {INITS[0]})",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for blobs and the initialisation")
    p.add_argument("--max-iter", type=int, default=100, help="at most this many iterations")
    p.add_argument(
        "--tol",
        type=float,
        default=1e-5,
        help="stop when the mean squared distance falls by no more than this (default 1e-5; "
        "0: only at a fixed point; negative: run --max-iter iterations)",
    )
    p.add_argument(
        "--devices", metavar="all|cpu|gpu|tpu|DEVICE,...",
        help="shard the points over these devices (all: every device of the default "
        "backend); the result is the one-device result. Default: one device",
    )


def parse_params(items: list[str]) -> dict[str, float]:
    """``--param NAME=VALUE`` items as a dict; a malformed one is a ``CommandError``."""
    params: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            if not sep or not name.strip():
                raise ValueError
            params[name.strip()] = float(value)
        except ValueError:
            raise CommandError(
                f"bad --param {item!r}: write NAME=NUMBER, e.g. alpha=1.5") from None
    return params
