"""A scalar function and its derivatives sampled on an interval, or at one x, for live plots.

Derivatives are ``vmap`` of repeated ``grad``, compiled ahead of time once per
(source, function, order, variable, point count) and kept. Numeric keyword
parameters (selu's ``alpha``) and the sample points are *arguments* of the
compiled function, so moving a slider, panning the plot or moving the crosshair
never recompiles.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.api.curves import (
    CurveParam,
    Curves,
    DerivativeCheck,
    PointDerivatives,
    PointValues,
    order_name,
)
from workbench.engine.argspec import DTYPES
from workbench.engine.errors import Explanation, UsageError, UserCodeError, explain
from workbench.engine.source import LoadedSource

MAX_ORDER = 4
MAX_POINTS = 1_000_000
CACHE_SIZE = 64
_SHORT_DTYPE = {v: k for k, v in DTYPES.items()}


# --------------------------------------------------------------------------- signature


@dataclass(frozen=True)
class _Slot:
    name: str
    kind: str  # inspect.Parameter kind name
    role: str  # "wrt", "param" or "skip" (left to its default)
    default: float | None
    integer: bool


@dataclass(frozen=True)
class _Plan:
    """How to call the user function with the variable and the traced parameters."""

    name: str
    slots: tuple[_Slot, ...]

    @property
    def wrt(self) -> str:
        return next(s.name for s in self.slots if s.role == "wrt")

    @property
    def params(self) -> tuple[_Slot, ...]:
        return tuple(s for s in self.slots if s.role == "param")

    def call(self, fn: Callable[..., Any], t: Any, pv: Sequence[Any]) -> Any:
        values = iter(pv)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        positional_open = True
        for s in self.slots:
            if s.role == "skip":
                positional_open = positional_open and s.kind != "POSITIONAL_ONLY"
                continue
            v = t if s.role == "wrt" else next(values)
            if s.kind == "POSITIONAL_ONLY":
                if not positional_open:
                    raise UsageError(f"{self.name}: cannot pass {s.name!r} after a skipped "
                                     "positional-only parameter")
                args.append(v)
            else:
                kwargs[s.name] = v
        return fn(*args, **kwargs)


def _is_int_literal(text: str | None) -> bool:
    return text is not None and text.lstrip("+-").isdigit()


def _plan(loaded: LoadedSource, name: str, wrt: str | None) -> _Plan:
    loaded.function(name)  # UsageError with the known names
    info = loaded.info(name)
    usable = [p for p in info.params if p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
    if not usable:
        raise UsageError(f"{name} takes no named argument to plot against")
    names = [p.name for p in usable]
    if wrt is None:
        wrt = next((p.name for p in usable if not p.has_default), names[0])
    elif wrt not in names:
        raise UsageError(f"{name} has no argument {wrt!r} to differentiate "
                         f"(arguments: {', '.join(names)})")
    slots = []
    for p in usable:
        if p.name == wrt:
            role = "wrt"
        elif p.has_default and p.numeric_default is None:
            role = "skip"
        else:
            role = "param"
        slots.append(_Slot(p.name, p.kind, role,
                           p.numeric_default if p.has_default else None,
                           _is_int_literal(p.default)))
    return _Plan(name, tuple(slots))


def curve_params(loaded: LoadedSource, name: str, wrt: str | None = None) -> tuple[CurveParam, ...]:
    """The parameters a plot of ``name`` exposes, at their defaults (0 where none is given)."""
    return _param_values(_plan(loaded, name, wrt), None)


def _param_values(plan: _Plan, given: Mapping[str, float] | None) -> tuple[CurveParam, ...]:
    given = dict(given or {})
    known = [s.name for s in plan.params]
    for key in given:
        if key == plan.wrt:
            raise UsageError(f"{key!r} is the plotted variable of {plan.name}; "
                             "choose another with wrt, not a parameter value")
        if key not in known:
            listed = ", ".join(known) if known else "none"
            raise UsageError(f"unknown parameter {key!r} for {plan.name} (parameters: {listed})")
    out = []
    for s in plan.params:
        default = s.default if s.default is not None else 0.0
        value = float(given.get(s.name, default))
        if not math.isfinite(value):
            raise UsageError(f"parameter {s.name} must be a finite number, got {value}")
        if s.integer and value != int(value):
            raise UsageError(f"parameter {s.name} of {plan.name} is an integer "
                             f"(default {int(default)}), got {value}")
        out.append(CurveParam(s.name, value, float(default), s.integer))
    return tuple(out)


def _param_arrays(params: Sequence[CurveParam]) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(p.value, np.int32 if p.integer else np.float32) for p in params)


# --------------------------------------------------------------------------- compile cache


@dataclass
class CacheStats:
    hits: int = 0
    compiles: int = 0


_cache: OrderedDict[tuple, Any] = OrderedDict()
_lock = threading.Lock()
cache_stats = CacheStats()


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def _source_key(loaded: LoadedSource) -> tuple[str, str]:
    return loaded.filename, hashlib.sha256(loaded.source.encode()).hexdigest()


def _cached(key: tuple, build: Callable[[], Any], *, compiles: bool = True) -> tuple[Any, bool]:
    """The compiled function for ``key``, building (and compiling) it on a miss.

    ``compiles=False`` keeps something cheaper (a traced fact) without counting a compile.
    """
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            cache_stats.hits += 1
            return _cache[key], False
    compiled = build()
    with _lock:
        _cache[key] = compiled
        cache_stats.compiles += compiles
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return compiled, True


def _describe(out: Any) -> str:
    """``f32[3]``-style text for what a function returned (abstractly)."""
    import jax

    leaves = jax.tree.leaves(out)
    if not hasattr(out, "shape") or not hasattr(out, "dtype"):
        inner = ", ".join(_describe(leaf) for leaf in leaves[:4])
        return f"a {type(out).__name__} ({inner})" if leaves else f"a {type(out).__name__}"
    short = _SHORT_DTYPE.get(str(out.dtype), str(out.dtype))
    return f"{short}[{','.join(str(d) for d in out.shape)}]"


def _shape_problem(loaded: LoadedSource, name: str, what: str, needs: str,
                   hint: str) -> UserCodeError:
    """Not an exception of the user's code but its result's shape: explained the same way."""
    title = f"{name} returns {what}; {needs}"
    line = loaded.info(name).line or None
    return UserCodeError(Explanation(
        kind="wrong-output-shape", title=title, hint=hint, message=title,
        file=loaded.filename if line else None, line=line,
    ))


def _user_call(loaded: LoadedSource, thunk: Callable[[], Any]) -> Any:
    """Run ``thunk`` (which traces or runs user code); its exceptions become UserCodeError."""
    try:
        return thunk()
    except (UsageError, UserCodeError):
        raise
    except Exception as exc:
        raise UserCodeError(explain(exc, loaded.filename)) from exc


def _abstract_params(params: Sequence[CurveParam]) -> tuple[Any, ...]:
    import jax

    return tuple(jax.ShapeDtypeStruct((), a.dtype) for a in _param_arrays(params))


# --------------------------------------------------------------------------- curves


def _build_curves(loaded: LoadedSource, plan: _Plan, order: int, points: int,
                  params: Sequence[CurveParam]) -> Any:
    import jax
    import jax.numpy as jnp

    fn = loaded.function(plan.name)

    def scalar(t: Any, pv: Sequence[Any]) -> Any:
        return plan.call(fn, t, pv)

    t0 = jax.ShapeDtypeStruct((), jnp.float32)
    pspecs = _abstract_params(params)
    out = _user_call(loaded, lambda: jax.eval_shape(scalar, t0, pspecs))
    plot_needs = (f"a plot needs f: R -> R, one float out for one float in "
                  f"({plan.wrt} is a scalar f32[])")
    if not hasattr(out, "shape") or out.shape != ():
        raise _shape_problem(
            loaded, plan.name, f"{_describe(out)} for a scalar {plan.wrt}", plot_needs,
            "Reduce to one number (jnp.sum, an index) or look at the Jacobian instead.")
    is_float = jnp.issubdtype(out.dtype, jnp.floating)
    is_count = jnp.issubdtype(out.dtype, jnp.integer) or out.dtype == jnp.bool_
    if not (is_float or (order == 0 and is_count)):
        raise _shape_problem(
            loaded, plan.name, f"{_describe(out)} (not a real float)",
            "derivatives need a real floating-point result",
            "Integers have no derivative: compute in floats (x / 2, not x // 2) "
            "or use .astype(jnp.float32).")

    derivatives = [scalar]
    for _ in range(order):
        derivatives.append(jax.grad(derivatives[-1]))

    def sample(xs: Any, pv: Sequence[Any]) -> Any:
        rows = [jax.vmap(d, in_axes=(0, None))(xs, pv).astype(jnp.float32) for d in derivatives]
        return jnp.stack(rows)

    xs = jax.ShapeDtypeStruct((points,), jnp.float32)
    return _user_call(loaded, lambda: jax.jit(sample).lower(xs, pspecs).compile())


def _validate(order: int, lo: float, hi: float, points: int) -> None:
    if not 0 <= order <= MAX_ORDER:
        raise UsageError(f"order must be 0 to {MAX_ORDER}, got {order}")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise UsageError(f"the range must be finite, got [{lo}, {hi}]")
    if lo >= hi:
        raise UsageError(f"empty or reversed range [{lo}, {hi}]: the left end must be "
                         "smaller than the right")
    if not 2 <= points <= MAX_POINTS:
        raise UsageError(f"points must be 2 to {MAX_POINTS}, got {points}")


def _evaluate(loaded: LoadedSource, plan: _Plan, order: int,
              params: tuple[CurveParam, ...], xs: np.ndarray) -> tuple[np.ndarray, bool]:
    key = (*_source_key(loaded), plan.name, "curves", order, plan.wrt, len(xs),
           tuple((p.name, p.integer) for p in params))
    compiled, fresh = _cached(key, lambda: _build_curves(loaded, plan, order, len(xs), params))
    out = _user_call(loaded, lambda: np.asarray(compiled(xs, _param_arrays(params))))
    return out, fresh


def sample_curves(
    loaded: LoadedSource,
    name: str,
    *,
    order: int = 2,
    lo: float = -5.0,
    hi: float = 5.0,
    points: int = 1000,
    params: Mapping[str, float] | None = None,
    wrt: str | None = None,
) -> Curves:
    """f and its derivatives of order 1..``order`` at ``points`` evenly spaced x in [lo, hi]."""
    _validate(order, lo, hi, points)
    plan = _plan(loaded, name, wrt)
    values = _param_values(plan, params)
    xs = np.linspace(lo, hi, points).astype(np.float32)
    out, fresh = _evaluate(loaded, plan, order, values, xs)
    bad = ~np.isfinite(out)
    return Curves(name, plan.wrt, values, xs, tuple(out), tuple(bad), fresh,
                  _maps_vectors_to_scalars(loaded, plan, values))


def _maps_vectors_to_scalars(loaded: LoadedSource, plan: _Plan,
                             params: tuple[CurveParam, ...]) -> bool:
    """Whether f also maps a vector to one float (f: R^n -> R), so that its Hessian is a
    matrix; relu, which maps a vector to a vector, is a function of one number here."""
    import jax
    import jax.numpy as jnp

    fn = loaded.function(plan.name)

    def probe() -> bool:
        spec = jax.ShapeDtypeStruct((2,), jnp.float32)
        try:
            out = jax.eval_shape(lambda t, pv: plan.call(fn, t, pv), spec,
                                 _abstract_params(params))
        except Exception:  # noqa: BLE001 - refusing a vector in any way means "not R^n -> R"
            return False
        return (hasattr(out, "shape") and out.shape == ()
                and bool(jnp.issubdtype(out.dtype, jnp.floating)))

    key = (*_source_key(loaded), plan.name, "vector_to_scalar", plan.wrt,
           tuple((p.name, p.integer) for p in params))
    answer, _ = _cached(key, probe, compiles=False)
    return bool(answer)


# One-sided offsets at which curves_at looks left and right of x: two decades (times
# max(1, |x|)) and then a few float32 ulps. A jump keeps its size down to the ulps, a smooth
# change shrinks with the offset, and a kink merely near x is no longer between x ± ulps.
SIDE_STEPS = (1e-4, 1e-6)
SIDE_ULPS = 4
SIDE_MIN = 1e-30  # the "ulps" offset at x = 0, where float32 spacing is subnormal
JUMP_TOLERANCE = 1e-3  # relative to max(1, |one-sided value|)


def _side_offsets(x: np.float32) -> np.ndarray:
    tiny = max(SIDE_ULPS * float(np.spacing(np.abs(x))), SIDE_MIN)
    return np.array([*(h * max(1.0, abs(float(x))) for h in SIDE_STEPS), tiny])


def _jump(left: np.ndarray, right: np.ndarray) -> bool:
    """True when ``right - left`` (one-sided values at shrinking offsets) does not shrink."""
    if not (np.isfinite(left).all() and np.isfinite(right).all()):
        return False  # the edge of f's domain (sqrt at 0): no two-sided limit to compare
    gap = np.abs(right.astype(np.float64) - left)
    tol = JUMP_TOLERANCE * max(1.0, abs(float(left[-1])), abs(float(right[-1])))
    return bool(gap[-1] > tol and gap[-1] > 0.5 * gap[0])


def _num(v: float) -> str:
    return f"{v + 0.0:.6g}"  # + 0.0: -0.0 reads 0


def curves_at(
    loaded: LoadedSource,
    name: str,
    x: float,
    *,
    order: int = 2,
    params: Mapping[str, float] | None = None,
    wrt: str | None = None,
) -> PointValues:
    """f and its derivatives of order 1..``order`` at exactly ``x``, and whether they exist.

    Where a derivative jumps at ``x`` (its left and right limits differ) the one below it is
    not differentiable there, whatever number JAX returns; ``note`` says so with both sides.
    """
    if not 0 <= order <= MAX_ORDER:
        raise UsageError(f"order must be 0 to {MAX_ORDER}, got {order}")
    if not math.isfinite(x):
        raise UsageError(f"x must be a finite number, got {x}")
    plan = _plan(loaded, name, wrt)
    values = _param_values(plan, params)
    x32 = np.float32(x)
    h = _side_offsets(x32)
    xs = np.concatenate(([x32], x32 - h, x32 + h)).astype(np.float32)
    top = max(order, 1)  # f's own differentiability needs f′ whatever order is shown
    out, _ = _evaluate(loaded, plan, top, values, xs)
    n = len(h)
    at = out[:, 0].astype(np.float64)
    left, right = out[:, 1:1 + n], out[:, 1 + n:]
    jumps = [_jump(left[k], right[k]) for k in range(top + 1)]
    where = f"at x = {_num(float(x32))}"
    defined: list[bool] = []
    note = ""
    for k in range(top + 1):
        ok = not defined or defined[-1]
        if ok and not np.isfinite(at[k]):
            ok, note = False, f"{order_name(name, k)} is not finite {where} ({at[k]})"
        elif ok and k == 1 and jumps[0]:
            ok, note = False, (f"{name} is not continuous {where} (left limit "
                               f"{_num(left[0, -1])}, right {_num(right[0, -1])}), "
                               "so not differentiable")
        elif ok and k >= 1 and jumps[k]:
            side = "derivative" if k == 1 else order_name(name, k)
            ok, note = False, (f"{order_name(name, k - 1)} is not differentiable {where}: "
                               f"left {side} {_num(left[k, -1])}, right {_num(right[k, -1])}"
                               f"; JAX returns {_num(at[k])} there")
        defined.append(ok)
    return PointValues(name, plan.wrt, float(x32), tuple(float(v) for v in at[:order + 1]),
                       tuple(defined[:order + 1]), defined[1], note)


def check_derivatives(loaded: LoadedSource, curves: Curves) -> tuple[DerivativeCheck, ...]:
    """Compare each derivative with a central difference of the one below it."""
    if curves.order < 1:
        return ()
    plan = _plan(loaded, curves.function, curves.wrt)
    x = curves.x.astype(np.float32)
    # cbrt(eps) balances truncation (h^2) against rounding (eps/h) for a central difference.
    h = (np.cbrt(np.finfo(np.float32).eps) * np.maximum(1.0, np.abs(x))).astype(np.float32)
    xp, xm = x + h, x - h
    step = (xp - xm).astype(np.float64)
    up, _ = _evaluate(loaded, plan, curves.order, curves.params, xp)
    down, _ = _evaluate(loaded, plan, curves.order, curves.params, xm)
    checks = []
    for k in range(1, curves.order + 1):
        fd = (up[k - 1].astype(np.float64) - down[k - 1]) / step
        ad = curves.values[k].astype(np.float64)
        ok = np.isfinite(fd) & np.isfinite(ad)
        if not ok.any():
            checks.append(DerivativeCheck(k, float(h.max()), math.nan, math.nan, math.nan, 0))
            continue
        err = np.abs(fd - ad)
        rel = np.where(ok, err / np.maximum(1.0, np.abs(ad)), -1.0)
        worst = int(np.argmax(rel))
        checks.append(DerivativeCheck(
            k, float(h.max()), float(err[ok].max()), float(rel[worst]), float(x[worst]),
            int(ok.sum())))
    return tuple(checks)


# --------------------------------------------------------------------------- R^n


MAX_HESSIAN_DIM = 2_000


def _point(point: Sequence[float] | np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # past float32's range becomes inf: refused below
        arr = np.asarray(point, dtype=np.float32)
    if arr.ndim == 1 and arr.size > MAX_HESSIAN_DIM:
        raise UsageError(f"the point has {arr.size:,} coordinates; the Hessian view takes up "
                         f"to {MAX_HESSIAN_DIM:,} (its matrix has that many squared entries)")
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise UsageError("the point must be a non-empty vector of finite float32 numbers, "
                         f"got {point!r}"[:200])
    return arr


def _vector_fn(loaded: LoadedSource, plan: _Plan) -> Callable[[Any, Sequence[Any]], Any]:
    fn = loaded.function(plan.name)
    return lambda p, pv: plan.call(fn, p, pv)


def _check_output(loaded: LoadedSource, plan: _Plan, f: Callable[..., Any], n: int,
                  pspecs: tuple[Any, ...], max_ndim: int, needs: str, hint: str) -> Any:
    import jax
    import jax.numpy as jnp

    spec = jax.ShapeDtypeStruct((n,), jnp.float32)
    out = _user_call(loaded, lambda: jax.eval_shape(f, spec, pspecs))
    if (not hasattr(out, "shape") or len(out.shape) > max_ndim
            or not jnp.issubdtype(out.dtype, jnp.floating)):
        raise _shape_problem(loaded, plan.name, f"{_describe(out)} for {plan.wrt} = f32[{n}]",
                             needs, hint)
    return out


def gradient_hessian(
    loaded: LoadedSource,
    name: str,
    point: Sequence[float] | np.ndarray,
    *,
    params: Mapping[str, float] | None = None,
    wrt: str | None = None,
) -> PointDerivatives:
    """Gradient and Hessian (``jax.hessian``) of a scalar function of a vector, at ``point``."""
    import jax

    x = _point(point)
    plan = _plan(loaded, name, wrt)
    values = _param_values(plan, params)
    f = _vector_fn(loaded, plan)
    pspecs = _abstract_params(values)

    def build() -> Any:
        _check_output(loaded, plan, f, x.size, pspecs, 0,
                      "the gradient and Hessian need f: R^n -> R (a float scalar)",
                      "For a vector output use the Jacobian.")

        def all3(p: Any, pv: Sequence[Any]) -> Any:
            return f(p, pv), jax.grad(f)(p, pv), jax.hessian(f)(p, pv)

        spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return _user_call(loaded, lambda: jax.jit(all3).lower(spec, pspecs).compile())

    key = (*_source_key(loaded), name, "hessian", plan.wrt, x.size,
           tuple((p.name, p.integer) for p in values))
    compiled, _ = _cached(key, build)
    value, grad, hess = _user_call(loaded, lambda: compiled(x, _param_arrays(values)))
    return PointDerivatives(name, x, float(value), np.asarray(grad), np.asarray(hess))


__all__ = [
    "CurveParam",
    "Curves",
    "DerivativeCheck",
    "PointDerivatives",
    "PointValues",
    "cache_stats",
    "check_derivatives",
    "clear_cache",
    "curve_params",
    "curves_at",
    "gradient_hessian",
    "sample_curves",
]
