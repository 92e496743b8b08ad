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


DEVICE_BLOCKS = {"cpu": 2**18}
"""Elements a device summary reads at a time, by platform (else ``DEVICE_BLOCK``): its
temporaries are a few blocks, never a copy of the array. Written as whole-array
expressions, XLA on the CPU made four whole-array temporaries (seven with a NaN), so a
summary needed more memory than the program it described. Measured on the CPU: 4 MB
instead of 384 MB at 25 million float32, and faster (1M: 3.3-4 vs 4.2-5.4 ms, 4M: 10-13
vs 40-46 ms); on an H200, where XLA fused the whole-array version without temporaries,
blocks of 2**22 took the same time within 1% from 1 million to 1 billion elements."""
DEVICE_BLOCK = 2**22

_device_stats_fns: list[Any] = []


def _device_summary(x: Any, shape: tuple[int, ...], name: str) -> ValueSummary:
    """Summary computed where ``x`` lives; only scalars and the histogram come back.

    The common case (every value finite) takes the plain version; only an array
    with NaN or Inf pays for the masked one.
    """
    import jax

    if not _device_stats_fns:  # each compiled once per shape, dtype and block
        _device_stats_fns.append(jax.jit(_device_stats, static_argnums=(1, 2)))
    fn = _device_stats_fns[0]
    devices = x.devices()
    # A sharded array is read whole: a block's slice of it would gather it on each device.
    block = x.size if len(devices) > 1 else DEVICE_BLOCKS.get(
        next(iter(devices)).platform, DEVICE_BLOCK)
    got = jax.device_get(fn(x, block, False))
    if int(got[1]) or int(got[2]):
        got = jax.device_get(fn(x, block, True))
    preview, nan, inf, count, lo, hi, mean, std, hist, hist_lo, hist_hi = got
    preview_t = tuple(float(v) for v in np.asarray(preview, dtype=np.float64))
    if int(count) == 0:
        return ValueSummary(shape, name, nan=int(nan), inf=int(inf), preview=preview_t)
    return ValueSummary(
        shape, name, min=float(lo), max=float(hi), mean=float(mean), std=float(std),
        nan=int(nan), inf=int(inf), preview=preview_t, hist=tuple(int(c) for c in hist),
        hist_lo=float(hist_lo), hist_hi=float(hist_hi),
    )


def _device_stats(x: Any, block: int, masked: bool) -> tuple[Any, ...]:
    """Counts, range, moments (about the first value, so a large mean keeps the spread's
    digits), then the histogram on [min, max]: two passes over ``block``-element blocks
    of ``x`` and its tail. ``masked`` leaves non-finite values out; the plain version is
    right only when there are none."""
    import jax.numpy as jnp
    from jax import lax

    wide = wide_dtype(np.float64)
    count_type = jnp.int32 if x.size < 2**31 else wide
    flat = x.ravel()
    n = flat.size
    block = min(block, n)
    blocks = n // block
    tail = flat[blocks * block:]  # fewer than ``block`` elements, maybe none

    def numbers(a: Any) -> Any:
        return (jnp.abs(a) if jnp.issubdtype(a.dtype, jnp.complexfloating) else a).astype(wide)

    def in_blocks(step: Any, acc: Any) -> Any:
        """``step(f, acc)`` over each block, then over the tail."""
        acc = lax.fori_loop(0, blocks, lambda k, acc: step(numbers(
            lax.dynamic_slice(flat, (k * block,), (block,))), acc), acc)
        return step(numbers(tail), acc) if tail.size else acc

    first = numbers(flat[0])
    shift = jnp.where(jnp.isfinite(first), first, 0) if masked else first

    def moments(f: Any, acc: tuple[Any, ...]) -> tuple[Any, ...]:
        nan, inf, count, lo, hi, s1, s2 = acc
        nan = nan + jnp.sum(jnp.isnan(f), dtype=count_type)
        inf = inf + jnp.sum(jnp.isinf(f), dtype=count_type)
        if masked:
            finite = jnp.isfinite(f)
            count = count + jnp.sum(finite, dtype=count_type)
            lo = jnp.minimum(lo, jnp.min(jnp.where(finite, f, jnp.inf)))
            hi = jnp.maximum(hi, jnp.max(jnp.where(finite, f, -jnp.inf)))
            d = jnp.where(finite, f - shift, 0)
        else:
            count = count + f.size
            lo, hi = jnp.minimum(lo, jnp.min(f)), jnp.maximum(hi, jnp.max(f))
            d = f - shift
        return nan, inf, count, lo, hi, s1 + jnp.sum(d), s2 + jnp.sum(d * d)

    zero, wzero = jnp.zeros((), count_type), jnp.zeros((), wide)
    nan, inf, count, lo, hi, s1, s2 = in_blocks(
        moments, (zero, zero, zero, jnp.full((), jnp.inf, wide), jnp.full((), -jnp.inf, wide),
                  wzero, wzero))
    m = jnp.maximum(count, 1).astype(wide)
    m1 = s1 / m
    var = jnp.maximum(s2 / m - m1 * m1, 0)
    same = hi <= lo
    hist_lo = jnp.where(same, lo - 0.5, lo)
    hist_hi = jnp.where(same, hi + 0.5, hi)
    scale = HIST_BINS / (hist_hi - hist_lo)

    def histogram(f: Any, hist: Any) -> Any:
        t = (f - hist_lo) * scale
        ones: Any = 1
        if masked:
            finite = jnp.isfinite(f)
            t = jnp.where(finite, t, 0)
            ones = finite.astype(jnp.int32)
        idx = jnp.clip(t.astype(jnp.int32), 0, HIST_BINS - 1)
        return hist.at[idx].add(ones)

    hist = in_blocks(histogram, jnp.zeros(HIST_BINS, jnp.int32))
    preview = numbers(flat[:PREVIEW_MAX])
    return (preview, nan, inf, count, lo, hi, m1 + shift, jnp.sqrt(var), hist,
            hist_lo, hist_hi)
