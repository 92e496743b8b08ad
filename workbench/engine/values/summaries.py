"""Summaries of one array (``summarize``): range, moments, NaN/Inf counts, a histogram.

Computed where the array lives: small ones on the host with NumPy, large ones on
the device by one jitted reduction, so a billion-element array never travels.
Also the dtype facts every variable asks for (``dtype_name``, ``has_numbers``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from workbench.api.values import HIST_BINS, PREVIEW_MAX, ValueSummary

DEVICE_SUMMARY_MIN = 100_000
"""Arrays with more elements are summarised on the device (measured: faster than NumPy on
the host from about this size, and a large array is never copied)."""


def summarize(x: Any) -> ValueSummary:
    """A ``ValueSummary`` of one array (a jax.Array, a NumPy array or a Python scalar)."""
    import jax

    dtype = getattr(x, "dtype", None)
    if dtype is None:
        x = np.asarray(x)
        dtype = x.dtype
    shape = tuple(int(d) for d in np.shape(x))
    name, numbers, complex_ = _dtype_info(dtype)
    if not numbers:
        return ValueSummary(shape, name)
    size = math.prod(shape)
    if size > DEVICE_SUMMARY_MIN and isinstance(x, jax.Array):
        return _device_summary(x, shape, name)
    host = np.asarray(x)
    if complex_:
        host = np.abs(host)
    if size == 1:
        return _scalar_summary(float(host.reshape(())), shape, name)
    return _host_summary(host, shape, name)


_dtype_infos: dict[Any, tuple[str, bool, bool]] = {}


def _dtype_info(dtype: Any) -> tuple[str, bool, bool]:
    """(name, has numbers, is complex) of a dtype; asked for every variable, so kept."""
    found = _dtype_infos.get(dtype)
    if found is None:
        import jax
        import jax.numpy as jnp

        if dtype == jax.dtypes.float0:
            name = "float0"
        else:
            try:
                name = np.dtype(dtype).name
            except TypeError:  # an extended dtype: a PRNG key
                name = str(dtype)
        numbers = bool(jnp.issubdtype(dtype, jnp.number) or jnp.issubdtype(dtype, jnp.bool_))
        found = _dtype_infos[dtype] = (name, numbers,
                                       bool(jnp.issubdtype(dtype, jnp.complexfloating)))
    return found

def wide_dtype(dtype: Any) -> Any:
    """``dtype`` if JAX has it (64-bit types need ``jax_enable_x64``), else its 32-bit kin."""
    import jax

    return jax.dtypes.canonicalize_dtype(dtype)


def has_numbers(dtype: Any) -> bool:
    """Whether the dtype's values are numbers (not a PRNG key's) that a summary can read."""
    return _dtype_info(dtype)[1]


def dtype_name(dtype: Any) -> str:
    """The dtype's name as the wire writes it (``float32``, ``key<fry>``)."""
    return _dtype_info(dtype)[0]


def _scalar_summary(v: float, shape: tuple[int, ...], name: str) -> ValueSummary:
    """One value: what ``_host_summary`` gives, without NumPy's per-call costs."""
    if math.isnan(v):
        return ValueSummary(shape, name, nan=1, preview=(v,))
    if math.isinf(v):
        return ValueSummary(shape, name, inf=1, preview=(v,))
    hist = [0] * HIST_BINS
    hist[HIST_BINS // 2] = 1  # v sits in the middle of [v - 0.5, v + 0.5]
    return ValueSummary(shape, name, min=v, max=v, mean=v, std=0.0, preview=(v,),
                        hist=tuple(hist), hist_lo=v - 0.5, hist_hi=v + 0.5)


def bad_values(s: ValueSummary) -> tuple[bool, bool]:
    """Whether a summarised value holds a NaN, an Inf (to tell where one first appears)."""
    return s.nan > 0, s.inf > 0


def literal_bad_values(atom: Any) -> tuple[bool, bool]:
    """Whether a literal input holds a NaN, an Inf (``jnp.nan`` written in the code)."""
    v = np.asarray(atom.val)
    if v.dtype.kind in "biuO":
        return False, False
    try:
        return bool(np.isnan(v).any()), bool(np.isinf(v).any())
    except TypeError:  # a type without NaN
        return False, False


def _host_summary(a: np.ndarray, shape: tuple[int, ...], name: str) -> ValueSummary:
    f = a.astype(np.float64).ravel()
    preview = tuple(float(v) for v in f[:PREVIEW_MAX])
    nan = inf = 0
    finite = f
    if a.dtype.kind not in "biu":
        nan = int(np.count_nonzero(np.isnan(f)))
        inf = int(np.count_nonzero(np.isinf(f)))
        if nan or inf:
            finite = f[np.isfinite(f)]
    if finite.size == 0:
        return ValueSummary(shape, name, nan=nan, inf=inf, preview=preview)
    lo, hi = float(finite.min()), float(finite.max())
    hist_lo, hist_hi = (lo, hi) if hi > lo else (lo - 0.5, hi + 0.5)
    idx = ((finite - hist_lo) * (HIST_BINS / (hist_hi - hist_lo))).astype(np.int64)
    np.clip(idx, 0, HIST_BINS - 1, out=idx)
    hist = np.bincount(idx, minlength=HIST_BINS)
    return ValueSummary(
        shape, name, min=lo, max=hi, mean=float(finite.mean()), std=float(finite.std()),
        nan=nan, inf=inf, preview=preview, hist=tuple(int(c) for c in hist),
        hist_lo=hist_lo, hist_hi=hist_hi,
    )


_device_stats_fns: list[Any] = []


def _device_summary(x: Any, shape: tuple[int, ...], name: str) -> ValueSummary:
    """Summary computed where ``x`` lives; only scalars and the histogram come back.

    The common case (every value finite) is one reduction pass plus the histogram's;
    only an array with NaN or Inf pays for the masked version.
    """
    import jax

    if not _device_stats_fns:  # each compiled once per shape and dtype
        _device_stats_fns.extend([jax.jit(_device_stats, static_argnums=1)])
    fn = _device_stats_fns[0]
    got = jax.device_get(fn(x, False))
    if int(got[1]) or int(got[2]):
        got = jax.device_get(fn(x, True))
    preview, nan, inf, count, lo, hi, mean, std, hist, hist_lo, hist_hi = got
    preview_t = tuple(float(v) for v in np.asarray(preview, dtype=np.float64))
    if int(count) == 0:
        return ValueSummary(shape, name, nan=int(nan), inf=int(inf), preview=preview_t)
    return ValueSummary(
        shape, name, min=float(lo), max=float(hi), mean=float(mean), std=float(std),
        nan=int(nan), inf=int(inf), preview=preview_t, hist=tuple(int(c) for c in hist),
        hist_lo=float(hist_lo), hist_hi=float(hist_hi),
    )


def _device_stats(x: Any, masked: bool) -> tuple[Any, ...]:
    """Counts, range, moments (about the first value, so a large mean keeps the spread's
    digits) and the histogram on [min, max]; ``masked`` leaves non-finite values out,
    the plain version is right only when there are none."""
    import jax.numpy as jnp

    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        x = jnp.abs(x)
    wide = wide_dtype(np.float64)
    f = x.ravel().astype(wide)
    nan = jnp.sum(jnp.isnan(f))
    inf = jnp.sum(jnp.isinf(f))
    if masked:
        finite = jnp.isfinite(f)
        count = jnp.sum(finite)
        lo = jnp.min(jnp.where(finite, f, jnp.inf))
        hi = jnp.max(jnp.where(finite, f, -jnp.inf))
        shift = jnp.where(finite[0], f[0], 0)
        d = jnp.where(finite, f - shift, 0)
        ones = finite.astype(jnp.int32)
    else:
        count = jnp.asarray(f.size, jnp.int32) if f.size < 2**31 else jnp.asarray(f.size, wide)
        lo, hi = jnp.min(f), jnp.max(f)
        shift = f[0]
        d = f - shift
        ones = jnp.ones((), jnp.int32)
    n = jnp.maximum(count, 1).astype(wide)
    m1 = jnp.sum(d) / n
    var = jnp.maximum(jnp.sum(d * d) / n - m1 * m1, 0)
    same = hi <= lo
    hist_lo = jnp.where(same, lo - 0.5, lo)
    hist_hi = jnp.where(same, hi + 0.5, hi)
    t = (f - hist_lo) * (HIST_BINS / (hist_hi - hist_lo))
    if masked:
        t = jnp.where(finite, t, 0)
    idx = jnp.clip(t.astype(jnp.int32), 0, HIST_BINS - 1)
    hist = jnp.zeros(HIST_BINS, jnp.int32).at[idx].add(ones)
    return (f[:PREVIEW_MAX], nan, inf, count, lo, hi, m1 + shift, jnp.sqrt(var), hist,
            hist_lo, hist_hi)
