"""A loop equation run once, as one jitted and instrumented loop (cached per loop equation).

Its carry also holds an iteration counter, the carry entering the current
iteration, and buffers of each scalar carry's history (``carry_traces``); its
outputs are the loop's outputs, so a loop costs one run, not two.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from workbench.api.values import CARRY_TRACE_MAX, CarryTrace
from workbench.engine.values.summaries import has_numbers, wide_dtype

LOOP_CACHE_SIZE = 64
CHECKPOINT_EVERY = 1024
"""A while loop's carry is copied this often, to replay its last iteration's input from."""
_TRACE_SLOTS = 2 * ((CARRY_TRACE_MAX - 1) // 2)  # even, and one point left for the final value

_Carried = tuple[Any, ...]

_loops: OrderedDict[tuple[Any, ...], tuple[Any, Callable[..., Any]]] = OrderedDict()


def _cached_loop(key: tuple[Any, ...], pin: Any, build: Callable[[], Callable[..., Any]]
                 ) -> Callable[..., Any]:
    """One jitted runner per loop equation; ``pin`` keeps the jaxprs whose ids are in ``key``."""
    hit = _loops.get(key)
    if hit is not None:
        _loops.move_to_end(key)
        return hit[1]
    fn = build()
    _loops[key] = (pin, fn)
    if len(_loops) > LOOP_CACHE_SIZE:
        _loops.popitem(last=False)
    return fn


def scalar_positions(avals: Sequence[Any]) -> tuple[int, ...]:
    """Carries whose history is recorded: shape () with numbers (bool, int, float)."""
    import jax.numpy as jnp

    return tuple(i for i, a in enumerate(avals)
                 if a.shape == () and has_numbers(a.dtype)
                 and not jnp.issubdtype(a.dtype, jnp.complexfloating))



def _counter_dtype() -> Any:
    return wide_dtype(np.int64)


def while_runner(cond: Any, body: Any, scalars: tuple[int, ...]) -> Callable[..., Any]:
    """``run(cond_consts, body_consts, init) -> (count, prev, final, bufs, n, stride)``.

    One ``while_loop`` does the loop's work once, counting iterations;
    ``bufs[j][:n]`` is the ``scalars[j]`` carry entering iterations 0, stride,
    2*stride, ... The inner loop only writes one element per scalar per
    iteration, in place (a ``cond`` in the body would copy the buffers every
    iteration, and so would carrying the previous carry along). An outer loop,
    every ``CHECKPOINT_EVERY`` iterations, keeps a copy of the carry; one more,
    when the buffers fill, halves them (every other point, the stride doubled).
    ``prev``, the carry entering the last iteration, is then replayed from the
    last copy: fewer than ``CHECKPOINT_EVERY`` iterations more.
    """
    def build() -> Callable[..., Any]:
        import jax
        import jax.numpy as jnp
        from jax import lax
        from jax.extend.core import jaxpr_as_fun

        cond_fun, body_fun = jaxpr_as_fun(cond), jaxpr_as_fun(body)
        size = _TRACE_SLOTS
        every = CHECKPOINT_EVERY
        itype = _counter_dtype()

        def run(cconsts: _Carried, bconsts: _Carried, init: _Carried) -> Any:
            def test(carry: _Carried) -> Any:
                return cond_fun(*cconsts, *carry)[0]

            def step(carry: _Carried) -> _Carried:
                return tuple(body_fun(*bconsts, *carry))

            def iterate(state: Any) -> Any:
                """The loop's own iterations, nothing more, up to ``limit``."""
                go, k, limit, carry = state
                new = step(carry)
                return test(new), k + 1, limit, new

            def run_to(go: Any, k: Any, limit: Any, carry: _Carried) -> Any:
                go, k, _, carry = lax.while_loop(
                    lambda s: s[0] & (s[1] < s[2]), iterate, (go, k, limit, carry))
                return go, k, carry

            def point(state: Any) -> Any:
                """Record the scalars entering iteration ``k`` (if it is due), then iterate
                to the next due one: the writes cost once per point, not per iteration."""
                go, k, ck, ckpt, carry, bufs, n, stride = state
                bufs = tuple(lax.dynamic_update_slice(b, carry[p][None], (n,))
                             for b, p in zip(bufs, scalars, strict=True))
                n = n + ((k & (stride - 1)) == 0).astype(itype)  # stride is a power of 2
                limit = jnp.minimum((k | (stride - 1)) + 1, ck + every)
                go, k, carry = run_to(go, k, limit, carry)
                return go, k, ck, ckpt, carry, bufs, n, stride

            def stretch(state: Any) -> Any:
                """Up to ``every`` iterations, then a copy of the carry if the loop goes on."""
                if scalars:
                    go, k, ck, ckpt, carry, bufs, n, stride = lax.while_loop(
                        lambda s: s[0] & (s[1] < s[2] + every) & (s[6] < size), point, state)
                else:
                    go, k, ck, ckpt, carry, bufs, n, stride = state
                    go, k, carry = run_to(go, k, ck + every, carry)
                onward = go & (k >= ck + every)
                ckpt = lax.cond(onward, lambda: carry, lambda: ckpt)
                return go, k, jnp.where(onward, k, ck), ckpt, carry, bufs, n, stride

            def epoch(state: Any) -> Any:
                """Stretches until the buffers fill (or the loop ends), then halve them."""
                go, k, ck, ckpt, carry, bufs, n, stride = lax.while_loop(
                    lambda s: s[0] & (s[6] < size), stretch, state)
                full = n >= size
                bufs = tuple(jnp.where(full, jnp.zeros_like(b).at[:size // 2].set(b[::2]), b)
                             for b in bufs)
                return (go, k, ck, ckpt, carry, bufs, jnp.where(full, size // 2, n),
                        jnp.where(full, stride * 2, stride))

            zero, one = jnp.zeros((), itype), jnp.ones((), itype)
            bufs0 = tuple(jnp.zeros(size, init[p].dtype) for p in scalars)
            state = (test(init), zero, zero, init, init, bufs0, zero, one)
            _, k, ck, ckpt, carry, bufs, n, stride = lax.while_loop(
                lambda s: s[0], epoch if scalars else stretch, state)
            prev = lax.fori_loop(ck, k - 1, lambda _, c: step(c), ckpt)
            return k, prev, carry, bufs, n, stride

        return jax.jit(run)

    return _cached_loop(("while", id(cond), id(body), scalars), (cond, body), build)


def scan_stride(length: int) -> int:
    """Every how many iterations a scan's carry is recorded: at most ``CARRY_TRACE_MAX`` points."""
    return max(1, -(-length // (CARRY_TRACE_MAX - 1)))


def scan_runner(body: Any, nc: int, nk: int, length: int, reverse: bool, unroll: Any,
                 scalars: tuple[int, ...]) -> Callable[..., Any]:
    """``run(consts, init, xs) -> (prev, final, ys, bufs)``: the scan once, instrumented.

    The length is known, so the stride is too: the carry entering iteration
    ``k`` is written to slot ``ceil(k / stride)``, which the next due iteration
    overwrites, so no slot needs a test.
    """
    def build() -> Callable[..., Any]:
        import jax
        import jax.numpy as jnp
        from jax import lax
        from jax.extend.core import jaxpr_as_fun

        body_fun = jaxpr_as_fun(body)
        stride = scan_stride(length)
        slots = -(-length // stride) + 1
        itype = _counter_dtype()

        def run(consts: _Carried, init: _Carried, xs: _Carried) -> Any:
            def step(state: Any, x: _Carried) -> Any:
                k, _, carry, bufs = state
                slot = (k + stride - 1) // stride
                bufs = tuple(lax.dynamic_update_slice(b, carry[p][None], (slot,))
                             for b, p in zip(bufs, scalars, strict=True))
                out = body_fun(*consts, *carry, *x)
                return (k + 1, carry, tuple(out[:nk]), bufs), tuple(out[nk:])

            bufs0 = tuple(jnp.zeros(slots, init[p].dtype) for p in scalars)
            state = (jnp.zeros((), itype), init, init, bufs0)
            (_, prev, carry, bufs), ys = lax.scan(step, state, xs, length=length,
                                                  reverse=reverse, unroll=unroll)
            return prev, carry, ys, bufs

        return jax.jit(run)

    key = ("scan", id(body), nc, nk, length, reverse, str(unroll), scalars)
    return _cached_loop(key, body, build)


def carry_traces(scalars: tuple[int, ...], bufs: Sequence[Any], n: int, stride: int,
                  final: Sequence[Any], iterations: int) -> tuple[CarryTrace, ...]:
    """Each scalar carry at iterations 0, stride, ... (< iterations), then its final value."""
    import jax

    traces = []
    steps = np.append(np.arange(n, dtype=np.int64) * stride, np.int64(iterations))
    host_bufs, host_final = jax.device_get((tuple(bufs), [final[p] for p in scalars]))
    for buf, last, p in zip(host_bufs, host_final, scalars, strict=True):
        values = np.append(np.asarray(buf)[:n].astype(np.float64), np.float64(last))
        traces.append(CarryTrace(p, steps, values, stride))
    return tuple(traces)
