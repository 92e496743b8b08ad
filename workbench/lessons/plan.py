"""A directive turned into the engine requests it stands for, and a step's outcome judged.

One plan for the ``workbench lesson --check`` command and the window: both send
these requests (the window through its panels), and both read a step's result
against its ``expect-error`` the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

from workbench.api import messages as m
from workbench.api.choices import Mode
from workbench.api.kmeans import TUTORIAL_K
from workbench.api.timing import TimingConfig
from workbench.lessons.directives import (
    CallDirective,
    KMeansDirective,
    PlotDirective,
    TimeDirective,
)

Verdict = Literal["ok", "expected-error", "no-error", "wrong-error", "failed"]


def trace_request(d: CallDirective) -> m.Trace:
    return m.Trace(name=d.function, args=d.args, transforms=d.transforms)


def values_request(d: CallDirective) -> m.Values:
    return m.Values(name=d.function, args=d.args, transforms=d.transforms)


def curve_requests(d: PlotDirective) -> list[m.SampleCurves]:
    """One request per plotted function: the directive's function (with its parameters and
    ``--wrt``) first, then each overlay."""
    params = dict(d.params) or None
    return [m.SampleCurves(name=name, order=d.order, lo=d.lo, hi=d.hi, points=d.points,
                           params=params if i == 0 else None, wrt=d.wrt if i == 0 else None)
            for i, name in enumerate((d.function, *d.overlays))]


def point_request(d: PlotDirective) -> m.CurvesAt | None:
    """The values at the directive's ``--at X`` (where the crosshair goes), if it has one."""
    if d.at is None:
        return None
    return m.CurvesAt(name=d.function, x=d.at, order=d.order, params=dict(d.params) or None,
                      wrt=d.wrt)


def timing_config(d: TimeDirective) -> TimingConfig:
    """How long the directive asks the measurement to take."""
    return TimingConfig(min_batch_s=d.min_batch, repeats=d.repeats, max_measure_s=d.budget)


def time_request(d: TimeDirective, config: TimingConfig | None = None) -> m.Time:
    return m.Time(name=d.function, args=d.args, devices=d.devices,
                  modes=cast(tuple[Mode, ...], d.modes), baseline=d.baseline, sweep=d.sweep,
                  config=config if config is not None else timing_config(d))


def kmeans_request(d: KMeansDirective) -> m.KMeans:
    """The animated demo's request (the tutorial's points: K defaults to its 4)."""
    blobs = d.dataset == "blobs"
    return m.KMeans(dataset=d.dataset, n=d.n if blobs else m.KMeans.n,
                    k=d.k if d.k is not None else TUTORIAL_K, spread=d.spread, seed=d.seed,
                    init=cast(Any, d.init), max_iter=d.max_iter, tol=d.tol, devices=d.devices)


@dataclass(frozen=True)
class Judged:
    """A step's outcome against what it expects: the verdict and what was wanted."""

    verdict: Verdict
    wanted: str = ""
    """For no-error and wrong-error: "an error" or "an error of kind KIND"."""


def judge(expect: str | None, error_kind: str | None, may_raise: bool = False) -> Judged:
    """``expect``: None (must run), "" (any error) or a kind; ``error_kind``: None if the
    step ran, else the kind of its error. ``may_raise`` (Jupyter's ``raises-exception``):
    with no ``expect``, an error is allowed and so is none."""
    if may_raise and expect is None:
        return Judged("ok") if error_kind is None else Judged("expected-error")
    wanted = f"an error of kind {expect}" if expect else "an error"
    if error_kind is None:
        return Judged("ok") if expect is None else Judged("no-error", wanted)
    if expect is None:
        return Judged("failed")
    if expect in ("", error_kind):
        return Judged("expected-error")
    return Judged("wrong-error", wanted)
