"""How the value view describes and scales one value: its words and its numbers (no Qt).

The header and summary lines of a variable's value, its NaN/Inf counts, its one
value as its dtype writes it, a thinned array's note, which loop iteration a
value inside a loop body is from, and the numbers the
pictures need: values as float64, a colour scale's limits, a histogram's edges.
Kept apart from the widget so they read (and test) without a window.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.api.jaxpr import JaxprNode
from workbench.api.values import (
    NodeValues,
    Path,
    ValueSummary,
    eqn_at,
    eqn_values_at,
    fmt_number,
)


def ordinal(n: int) -> str:
    """``1`` -> ``1st``, ``22`` -> ``22nd``, ``1000`` -> ``1,000th``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def stride_note(stride: int, size: int) -> str:
    """What a thinned array shows, said plainly."""
    return f"every {ordinal(stride)} element of {size:,} shown (flattened)"


def shape_text(shape: tuple[int, ...]) -> str:
    """"shape (3,)", "shape (2, 4)" or "scalar"."""
    return f"shape ({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''})" if shape \
        else "scalar"


def plottable(data: np.ndarray) -> np.ndarray | None:
    """float64 values to draw: complex by magnitude, bool as 0/1; None when not numbers."""
    if data.dtype.kind == "c":
        return np.abs(data).astype(np.float64)
    try:
        return np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def levels(finite: np.ndarray) -> tuple[float, float, bool]:
    """Colour-scale limits over the finite values and whether the map diverges at zero."""
    if not finite.size:
        return 0.0, 1.0, False
    lo, hi = float(finite.min()), float(finite.max())
    if lo < 0 < hi:
        m = max(-lo, hi)
        return -m, m, True
    if lo == hi:  # one colour; numpy's histogram widens a point range the same way
        return lo - 0.5, hi + 0.5, False
    return lo, hi, False


def hist_edges(lo: float, hi: float, bins: int) -> np.ndarray:
    """The ``bins + 1`` bar edges of a histogram over [lo, hi] (a point range widened)."""
    if not hi > lo:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, bins + 1)


def scalar_text(x: float, dtype: str) -> str:
    """A summary's one value as its dtype writes it (the preview holds floats)."""
    if dtype == "bool":
        return str(bool(x))
    if dtype.startswith(("int", "uint")) and math.isfinite(x):
        return str(int(x))
    if dtype.startswith("complex"):
        return f"|z| = {x:.8g}"
    return f"{x:.8g}"


def bad_counts(values: np.ndarray) -> tuple[int, int]:
    """How many NaN and how many Inf ``values`` hold."""
    return int(np.isnan(values).sum()), int(np.isinf(values).sum())

def bad_text(nan: int, inf: int) -> str:
    """"3 NaN  1 Inf", leaving out a count of zero ("" when both are)."""
    parts = ([f"{nan:,} NaN"] if nan else []) + ([f"{inf:,} Inf"] if inf else [])
    return "  ".join(parts)

def summary_text(s: ValueSummary) -> str:
    """The header lines of a value: type, shape, dtype and size, range and moments, and
    the first values."""
    if s.shape == ():  # the picture is the value itself
        return f"{s.type_text}   scalar   {s.dtype}"
    many = "element" if s.size == 1 else "elements"
    lines = [f"{s.type_text}   {shape_text(s.shape)}   {s.dtype}   {s.size:,} {many}"]
    if s.min is None:
        lines.append("no finite values" if s.size else "empty")
    else:
        of = " of |z|" if s.dtype.startswith("complex") else ""
        lines.append(f"min {fmt_number(s.min)}   max {fmt_number(s.max)}   "
                     f"mean {fmt_number(s.mean)}   std {fmt_number(s.std)}{of}")
    if s.preview:
        more = ", …" if s.size > len(s.preview) else ""
        lines.append("values: " + ", ".join(fmt_number(v) for v in s.preview) + more)
    return "\n".join(lines)


def loop_phrase(primitive: str, param: str, iteration: int, iterations: int | None) -> str:
    """Which pass of a loop one sub-jaxpr's values are from, counted from 1 as a class
    counts: "iteration 3 of 10 of the scan", "the last test (11 of 11) of the while loop's
    condition, the one that ended it". ``iteration`` is the engine's count from 0."""
    k = iteration + 1
    loop = "the while loop" if primitive == "while" else f"the {primitive}"
    if primitive == "while" and param.startswith("cond"):
        if iterations is None:
            return f"test {k:,} of {loop}'s condition"
        if k == iterations + 1:
            return (f"the last test ({k:,} of {k:,}) of {loop}'s condition, "
                    "the one that ended it")
        return f"test {k:,} of {iterations + 1:,} of {loop}'s condition"
    if iterations is None:
        return f"iteration {k:,} of {loop}"
    if k == iterations:
        return f"the last iteration ({k:,} of {iterations:,}) of {loop}"
    return f"iteration {k:,} of {iterations:,} of {loop}"


def iteration_text(tree: JaxprNode, root: NodeValues, instance: Path) -> str:
    """Which iteration of each loop around jaxpr ``instance`` its values are from,
    innermost first ("" outside any loop): a loop records one pass, its last."""
    parts: list[str] = []
    for k in range(len(instance) - 1, 0, -2):
        owner, s = instance[:k], instance[k]
        eqn, ev = eqn_at(tree, owner), eqn_values_at(root, owner)
        if eqn is None or ev is None or s >= len(ev.subs) or s >= len(eqn.subjaxprs):
            continue
        sub = ev.subs[s]
        if sub is None or sub.iteration is None:
            continue
        parts.append(loop_phrase(eqn.primitive, eqn.subjaxprs[s].param, sub.iteration,
                                 ev.iterations))
    if not parts:
        return ""
    return "values from " + ", in ".join(parts)
