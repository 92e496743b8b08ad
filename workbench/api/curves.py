"""A function and its derivatives sampled on an interval, or at one x; value, gradient and
Hessian at a point."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads with the codec, after the window's first frame
    import numpy as np


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def order_name(function: str, order: int) -> str:
    """``f``, ``f′``, ``f″``, ``f‴``, then ``f⁽⁴⁾``: how the legend, readout and notes name
    the ``order``-th derivative (here so the engine's notes and the plot's labels agree)."""
    if order <= 3:
        return function + "′" * order if order < 2 else function + ("″" if order == 2 else "‴")
    return f"{function}⁽{str(order).translate(_SUPERSCRIPT)}⁾"


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
    # f also maps a vector to one number (f: R^n -> R), so its Hessian is a matrix worth a
    # heatmap; False for a function of one number (elementwise ones such as relu included).
    vector_to_scalar: bool = False
    checks: tuple[DerivativeCheck, ...] = ()  # when asked: each derivative against differences

    @property
    def order(self) -> int:
        return len(self.values) - 1

    def param_values(self) -> dict[str, float]:
        return {p.name: p.value for p in self.params}


@dataclass(frozen=True)
class PointValues:
    """f and its derivatives at exactly ``x`` (the crosshair), computed there, not read off
    samples.

    ``values[k]`` is what JAX returns for the k-th derivative at ``x``; ``defined[k]`` is False
    where that derivative does not exist (f is not continuous there, a lower derivative has a
    kink, or a value is not finite): JAX still returns a number (``jax.grad(relu)(0.0)`` is 0),
    which is a convention, not the derivative. ``differentiable`` says whether f itself has a
    derivative at ``x``; ``note`` says why not, with the one-sided values.
    """

    function: str
    wrt: str
    x: float
    values: tuple[float, ...]
    defined: tuple[bool, ...]
    differentiable: bool
    note: str = ""

    @property
    def order(self) -> int:
        return len(self.values) - 1


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
