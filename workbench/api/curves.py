"""A function and its derivatives sampled on an interval; value, gradient and Hessian at a point."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CurveParam:
    """A parameter of the plotted function other than the variable: a slider in the GUI."""

    name: str
    value: float
    default: float
    integer: bool = False


@dataclass(frozen=True, eq=False)
class Curves:
    """``values[k]`` is the k-th derivative at ``x``; ``nonfinite[k]`` masks its inf/nan points."""

    function: str
    wrt: str
    params: tuple[CurveParam, ...]
    x: np.ndarray
    values: tuple[np.ndarray, ...]
    nonfinite: tuple[np.ndarray, ...]
    compiled: bool  # True when this call had to compile (first use of its cache key)

    @property
    def order(self) -> int:
        return len(self.values) - 1

    def param_values(self) -> dict[str, float]:
        return {p.name: p.value for p in self.params}


@dataclass(frozen=True)
class DerivativeCheck:
    """Central difference of order k-1 against the order-k derivative, on the same points.

    ``max_rel_error`` is scaled by ``max(1, |f^(k)|)``; ``worst_x`` is where it peaks
    (a kink such as relu's 0 shows up here, honestly).
    """

    order: int
    step: float
    max_abs_error: float
    max_rel_error: float
    worst_x: float
    compared: int


@dataclass(frozen=True, eq=False)
class PointDerivatives:
    """Value, gradient and Hessian of f: R^n -> R at one point."""

    function: str
    point: np.ndarray
    value: float
    gradient: np.ndarray
    hessian: np.ndarray
