"""``# workbench: VERB ...`` lines in a lesson cell, parsed with the CLI's own argument definitions.

``trace``, ``values``, ``plot``, ``time`` and ``kmeans`` take what the sub-command of that
name takes, minus its FILE (the cell is the file) and its output options
(``workbench.api.commands``); ``values`` takes what ``trace`` does and shows every
variable's value. ``trace`` and ``values`` also take ``--select NAME`` (repeatable, or
comma-separated): the Graph nodes the step talks about, selected and centred (default:
the outputs). ``plot --at X`` puts the crosshair at exactly X. ``expect-error KIND``
marks a step meant to fail with that error kind.

The cell tags a lesson honours are named here too: ``expect-error[:KIND]``, and Jupyter's
``raises-exception`` (any error expected) and ``skip-execution`` (shown, never run), the
tags nbclient and Jupyter Book honour (``workbench.lessons.model`` reads them).
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from workbench.api.choices import INITS, MODES, TRANSFORM_NAMED, TRANSFORMS, Transform
from workbench.api.commands import (
    CommandError,
    add_call_arguments,
    add_kmeans_arguments,
    add_plot_arguments,
    add_time_arguments,
    parse_params,
)

VERBS = ("trace", "values", "plot", "time", "kmeans")
EXPECT_ERROR = "expect-error"
RAISES_EXCEPTION = "raises-exception"
"""Jupyter's tag for a cell expected to raise (nbclient, Jupyter Book): any error kind."""
SKIP_EXECUTION = "skip-execution"
"""Jupyter Book's and nbclient's tag for a cell that is shown but never run."""
# Only the head is a pattern: the text is what follows, stripped. (A lazy ``(.*?)\s*$`` over
# the rest took time quadratic in a run of spaces: 80 KB of them froze the window 20 s.)
_DIRECTIVE_HEAD = re.compile(r"\s*#\s*workbench:")


def directive_text(line: str) -> str | None:
    """What a ``# workbench: ...`` line asks, stripped; None for any other line."""
    head = _DIRECTIVE_HEAD.match(line)
    return None if head is None else line[head.end():].strip()


class DirectiveError(ValueError):
    """A directive that does not parse; the message names what was wrong, in one line."""


@dataclass(frozen=True)
class CallDirective:
    """``trace`` or ``values``: the jaxpr (or every variable's value) of one call."""

    verb: Literal["trace", "values"]
    text: str
    function: str
    args: str
    transforms: tuple[Transform, ...] = ()
    select: tuple[str, ...] = ()
    """Graph nodes to select and centre (jaxpr names, or ``outputs``/``inputs``); none: the
    outputs."""


@dataclass(frozen=True)
class PlotDirective:
    """``plot``: FUNC and its derivatives, with overlays and parameter values."""

    text: str
    function: str
    overlays: tuple[str, ...] = ()
    order: int = 2
    lo: float = -5.0
    hi: float = 5.0
    points: int = 1000
    params: tuple[tuple[str, float], ...] = ()
    wrt: str | None = None
    at: float | None = None
    """Where the crosshair goes (``--at X``): the values there, exactly."""
    verb: Literal["plot"] = "plot"


@dataclass(frozen=True)
class TimeDirective:
    """``time``: jit vs eager on the chosen devices, optionally over a size sweep."""

    text: str
    function: str
    args: str
    devices: str = "all"
    modes: tuple[str, ...] = MODES
    baseline: str | None = None
    sweep: str | None = None
    repeats: int = 7
    min_batch: float = 0.2
    budget: float = 3.0
    verb: Literal["time"] = "time"


@dataclass(frozen=True)
class KMeansDirective:
    """``kmeans``: the tutorial's points or N blobs, K clusters, an initialisation."""

    text: str
    dataset: Literal["tutorial", "blobs"] = "tutorial"
    n: int = 0
    k: int | None = None
    spread: float = 1.0
    init: str = INITS[0]
    seed: int = 0
    max_iter: int = 100
    tol: float = 1e-5
    devices: str | None = None
    verb: Literal["kmeans"] = "kmeans"
    function: str = ""


Directive = CallDirective | PlotDirective | TimeDirective | KMeansDirective


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise DirectiveError(message)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        raise DirectiveError((message or f"exit {status}").strip())


_ADDERS: dict[str, Callable[[argparse.ArgumentParser], None]] = {
    "trace": add_call_arguments,
    "values": add_call_arguments,
    "plot": add_plot_arguments,
    "time": add_time_arguments,
    "kmeans": add_kmeans_arguments,
}


@cache
def _parser(verb: str) -> argparse.ArgumentParser:
    """One parser per verb, built once: a lesson of a thousand directives opens at once."""
    p = _Parser(prog=f"workbench: {verb}", add_help=False, exit_on_error=False)
    _ADDERS[verb](p)
    if verb in ("trace", "values"):  # the window's Graph only: the CLI prints every name
        p.add_argument("--select", action="append", default=[], metavar="NAME")
    return p


MAX_DIRECTIVE_CHARS = 2_000
"""A directive is one line a teacher writes; splitting and parsing a longer one costs
seconds per 100,000 characters, and a crafted lesson may hold a thousand of them."""


def parse_directive(text: str) -> Directive:
    """The directive written after ``# workbench:``; ``DirectiveError`` says what is wrong."""
    if len(text) > MAX_DIRECTIVE_CHARS:
        raise DirectiveError(f"a directive of {len(text):,} characters: directives are read "
                             f"up to {MAX_DIRECTIVE_CHARS:,}")
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise DirectiveError(f"cannot split {text!r}: {exc}") from None
    if not words:
        raise DirectiveError(f"an empty directive: write one of {', '.join(VERBS)}")
    verb, rest = words[0], words[1:]
    if verb not in _ADDERS:
        raise DirectiveError(
            f"unknown directive {verb!r}: one of {', '.join(VERBS)}, or {EXPECT_ERROR} KIND")
    try:
        ns = _parser(verb).parse_args(rest)
    except argparse.ArgumentError as exc:
        raise DirectiveError(str(exc)) from None
    if verb in ("trace", "values"):
        bad = [t for t in ns.transform if t not in TRANSFORMS]
        if bad:
            raise DirectiveError(
                f"unknown transform {bad[0]!r} (known: {', '.join(TRANSFORMS)})")
        call_verb: Literal["trace", "values"] = "trace" if verb == "trace" else "values"
        return CallDirective(call_verb, text, ns.function, ns.args,
                             tuple(TRANSFORM_NAMED[t] for t in ns.transform),
                             tuple(n for item in ns.select for n in item.split(",") if n))
    if verb == "plot":
        try:
            params = parse_params(ns.param)
        except CommandError as exc:
            raise DirectiveError(str(exc)) from None
        return PlotDirective(text, ns.function, tuple(ns.overlay), ns.order, ns.range_[0],
                             ns.range_[1], ns.points, tuple(params.items()), ns.wrt, ns.at)
    if verb == "time":
        modes = tuple(m.strip() for m in ns.modes.split(",") if m.strip())
        bad = [m for m in modes if m not in MODES]
        if bad or not modes:
            raise DirectiveError(f"bad --modes {ns.modes!r}: comma-separated {', '.join(MODES)}")
        return TimeDirective(text, ns.function, ns.args, ns.devices, modes, ns.baseline,
                             ns.sweep, ns.repeats, ns.min_batch, ns.budget)
    if ns.data is not None:
        raise DirectiveError("a lesson's k-means runs on --tutorial or --blobs N, not --data")
    if ns.init not in INITS:
        raise DirectiveError(f"bad --init {ns.init!r}: one of {', '.join(INITS)}")
    if ns.blobs is not None and ns.k is None:
        raise DirectiveError("--blobs needs --k")
    dataset: Literal["tutorial", "blobs"] = "blobs" if ns.blobs is not None else "tutorial"
    return KMeansDirective(text, dataset, ns.blobs or 0, ns.k, ns.spread, ns.init, ns.seed,
                           ns.max_iter, ns.tol, ns.devices)


@dataclass(frozen=True)
class CellDirectives:
    """A code cell split into its code and its ``# workbench:`` lines."""

    code: str
    """The cell without its directive lines: what the editor shows and the engine runs."""
    lines: tuple[str, ...]
    """The directive lines as written, to put back when the lesson is saved."""
    directive: Directive | None = None
    expect_error: str | None = None
    """The error kind the step must fail with; ``""`` for any error."""
    problem: str | None = None
    """Why a directive line was not understood (the step still runs its code)."""


def split_cell(source: str) -> CellDirectives:
    """The code of a cell and what its directive lines ask; never raises."""
    code_lines: list[str] = []
    lines: list[str] = []
    directive: Directive | None = None
    expect: str | None = None
    problems: list[str] = []
    for row in source.splitlines(keepends=True):
        text = directive_text(row)
        if text is None:
            code_lines.append(row)
            continue
        lines.append(row.rstrip("\r\n"))
        head, _, rest = text.partition(" ")
        if head == EXPECT_ERROR:
            expect = rest.strip()
            continue
        if directive is not None:
            problems.append(f"one directive per step: ignored {text!r}")
            continue
        try:
            directive = parse_directive(text)
        except DirectiveError as exc:
            problems.append(f"{text!r}: {exc}")
    code = "".join(code_lines).strip("\n")
    return CellDirectives(code + "\n" if code else "", tuple(lines), directive, expect,
                          "; ".join(problems) if problems else None)
