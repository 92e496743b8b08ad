"""Every variable's value: the traced jaxpr run equation by equation, with JAX itself.

``evaluate_values`` runs the ClosedJaxpr the trace shows (``trace.closed_jaxpr``)
on the spec's example arguments. Each equation is bound whole
(``jax_internals.bind_equation``: the same primitive, the same device), so each
output, a jitted region's included, is what calling the function computes. To
see inside an equation that holds jaxprs, the sub-jaxpr the equation ran is run
again, equation by equation, on the equation's inputs: the branch a ``cond``
took, a ``jit``'s or a custom rule's body, a loop body on its last iteration.

A loop runs once, as one jitted and instrumented loop (cached per loop
equation): its carry also holds an iteration counter, the carry entering the
current iteration, and buffers of each scalar carry's history. Its outputs are
the loop's outputs (the same body, compiled by XLA like the original; the tests
check they match bit for bit), so a loop costs one run, not two.

Summaries are computed where the array lives: small ones on the host with NumPy,
large ones on the device by one jitted reduction, so a billion-element array
never travels. The device arrays of the last run are kept, within
``KEEP_BYTES``, for ``variable_array``.
"""

from __future__ import annotations

import contextlib
import math
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from workbench.api.errors import Explanation
from workbench.api.values import (
    CARRY_TRACE_MAX,
    FULL_ARRAY_MAX,
    HIST_BINS,
    PREVIEW_MAX,
    ArrayValue,
    CarryTrace,
    EqnValues,
    NodeValues,
    Path,
    ValuesResult,
    ValueSummary,
    VarRef,
)
from workbench.engine.argspec import Spec, example_values, format_args
from workbench.engine.errors import UsageError
from workbench.engine.jax_internals import bind_equation
from workbench.engine.jaxpr_tree import inner_jaxprs
from workbench.engine.source import LoadedSource
from workbench.engine.source_info import editor_location
from workbench.engine.trace import closed_jaxpr
from workbench.engine.transforms import PreparedCall

KEEP_BYTES = 256 * 2**20
"""Device arrays of the last run kept for ``variable_array``; past this, it runs again."""
DEVICE_SUMMARY_MIN = 100_000
"""Arrays with more elements are summarised on the device (measured: faster than NumPy on
the host from about this size, and a large array is never copied)."""
LOOP_CACHE_SIZE = 64
CHECKPOINT_EVERY = 1024
"""A while loop's carry is copied this often, to replay its last iteration's input from."""
_TRACE_SLOTS = 2 * ((CARRY_TRACE_MAX - 1) // 2)  # even, and one point left for the final value

_Carried = tuple[Any, ...]


# --------------------------------------------------------------------------- public


def evaluate_values(
    loaded: LoadedSource,
    name: str,
    args: str | Sequence[Spec],
    transforms: Sequence[str] = (),
    *,
    should_stop: Callable[[], bool] | None = None,
) -> ValuesResult:
    """Run the traced call on its example arguments and summarise every variable that ran.

    Bad input raises UsageError and a trace-time error UserCodeError, as for the
    trace. A run-time error (a callback that raises, memory exhausted) does not
    raise: the result holds the values up to the failing equation and the
    catalog's explanation. ``should_stop`` is asked between equations; when it
    says yes the run ends with KeyboardInterrupt (the service's Cancelled).
    """
    global _last
    closed, prepared = closed_jaxpr(loaded, name, args, transforms)
    run = _Run(loaded.filename, prepared.fn, should_stop, want=None)
    result = run.evaluate(closed, prepared, name)
    _last = _Kept(prepared, closed, run.kept)
    return result


def variable_array(
    loaded: LoadedSource,
    name: str,
    args: str | Sequence[Spec],
    transforms: Sequence[str],
    ref: VarRef,
) -> ArrayValue:
    """The array of one variable of the last run (run again if it was not kept)."""
    closed, prepared = closed_jaxpr(loaded, name, args, transforms)
    _check_ref(closed, ref)
    last = _last
    if last is not None and last.prepared is prepared and last.closed is closed \
            and last.arrays is not None:
        found = last.arrays.get(ref)  # every array of that run is there
    else:
        run = _Run(loaded.filename, prepared.fn, None, want=ref)
        run.evaluate(closed, prepared, name)
        found = run.kept.get(ref) if run.kept is not None else None
    if found is None:
        raise UsageError(f"{_ref_text(ref)} did not run (a branch not taken, a loop that "
                         "ran no iteration, or an equation after a failing one)")
    return _array_value(ref, found)


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


# --------------------------------------------------------------------------- the run


@dataclass
class _Kept:
    prepared: PreparedCall
    closed: Any
    arrays: dict[VarRef, Any] | None


_last: _Kept | None = None
_examples: tuple[str, tuple[Any, ...]] | None = None


@dataclass
class _Failure:
    exc: Exception
    path: Path
    line: int | None
    message: str = ""


class _Run:
    """One evaluation: walks the jaxpr, binds equations, summarises and keeps values.

    ``want`` None keeps every array while they fit in ``KEEP_BYTES`` (``kept``
    becomes None past it); a ``VarRef`` keeps only that one.
    """

    def __init__(self, filename: str, function: Any,
                 should_stop: Callable[[], bool] | None, want: VarRef | None):
        from jax.extend.core import ClosedJaxpr, DropVar, Literal

        self.filename = filename
        self.function = function
        self.should_stop = should_stop
        self.want = want
        self.kept: dict[VarRef, Any] | None = {}
        self._kept_ids: set[int] = set()
        self._kept_bytes = 0
        self._summaries: dict[int, tuple[weakref.ref[Any], ValueSummary]] = {}
        self.failure: _Failure | None = None
        self._literal = Literal
        self._dropvar = DropVar
        self._closed = ClosedJaxpr

    # ---------------------------------------------------------------- top level

    def evaluate(self, closed: Any, prepared: PreparedCall, name: str) -> ValuesResult:
        start = time.perf_counter()
        args = _example_args(prepared, closed.jaxpr.invars)
        outs, root = self.node(closed.jaxpr, list(closed.consts), args, ())
        _wait_for_effects()
        seconds = time.perf_counter() - start
        outputs: tuple[ValueSummary | None, ...]
        if outs is None:
            outputs = tuple(None for _ in closed.jaxpr.outvars)
        else:
            outputs = tuple(self.summary(x) for x in outs)
        error: Explanation | None = None
        error_path: Path | None = None
        if self.failure is not None:
            from workbench.engine.catalog import explain

            error = explain(self.failure.exc, self.filename, function=self.function)
            if self.failure.line is not None:  # the failing equation's line, not a guess
                error = replace(error, file=self.filename, line=self.failure.line, column=None)
            error_path = self.failure.path
        first_nan = next((p for p, ev in _in_order(root) if ev.new_nan), None)
        first_inf = next((p for p, ev in _in_order(root) if ev.new_inf), None)
        return ValuesResult(
            function=name, args=tuple(prepared.args_text), transforms=prepared.transforms,
            root=root, outputs=outputs, error=error, error_path=error_path,
            first_nan=first_nan, first_inf=first_inf, seconds=seconds,
        )

    # ---------------------------------------------------------------- a jaxpr instance

    def node(self, jaxpr: Any, consts: Sequence[Any], args: Sequence[Any], path: Path,
             iteration: int | None = None) -> tuple[list[Any] | None, NodeValues]:
        """Run ``jaxpr`` (one instance, at node ``path``); its outputs, None after a failure."""
        env: dict[Any, Any] = {}
        sums: dict[Any, ValueSummary] = {}
        const_sums = []
        for i, (v, x) in enumerate(zip(jaxpr.constvars, consts, strict=True)):
            env[v] = x
            sums[v] = s = self.summary(x)
            const_sums.append(s)
            self.keep(VarRef(path, None, i, True), x)
        in_sums = []
        for i, (v, x) in enumerate(zip(jaxpr.invars, args, strict=True)):
            env[v] = x
            sums[v] = s = self.summary(x)
            in_sums.append(s)
            self.keep(VarRef(path, None, i), x)
        literal = self._literal
        dead = _last_uses(jaxpr, literal)
        eqn_values: list[EqnValues | None] = []
        for e, eqn in enumerate(jaxpr.eqns):
            if self.failure is not None:
                eqn_values.append(None)
                continue
            invals = [a.val if isinstance(a, literal) else env[a] for a in eqn.invars]
            bad_in = [_literal_bad(a) if isinstance(a, literal) else _bad(sums[a])
                      for a in eqn.invars]
            for v in dead[e]:  # as eval_jaxpr does: an array goes once nothing reads it
                env.pop(v, None)
            outs, ev = self.eqn(eqn, invals, bad_in, (*path, e))
            del invals
            eqn_values.append(ev)
            if outs is None:
                continue
            for j, (v, x, out_sum) in enumerate(zip(eqn.outvars, outs, ev.outs, strict=True)):
                if not isinstance(v, self._dropvar):
                    env[v] = x
                    if out_sum is not None:
                        sums[v] = out_sum
                self.keep(VarRef(path, e, j), x)
        values = NodeValues(tuple(in_sums), tuple(const_sums), tuple(eqn_values), iteration)
        if self.failure is not None:
            return None, values
        return [a.val if isinstance(a, literal) else env[a] for a in jaxpr.outvars], values

    # ---------------------------------------------------------------- one equation

    def eqn(self, eqn: Any, invals: list[Any], bad_in: list[tuple[bool, bool]],
            path: Path) -> tuple[list[Any] | None, EqnValues]:
        if self.should_stop is not None and self.should_stop():
            raise KeyboardInterrupt
        handler = _HANDLERS.get(eqn.primitive.name, _Run._plain)
        outs, fields = handler(self, eqn, invals, path)
        out_sums: tuple[ValueSummary | None, ...]
        if outs is None:
            out_sums = tuple(None for _ in eqn.outvars)
        else:
            try:
                out_sums = tuple(self.summary(x) for x in outs)
            except Exception as exc:  # an asynchronous failure surfaces when read
                self.fail(exc, path, eqn)
                outs, out_sums = None, tuple(None for _ in eqn.outvars)
        error = None
        if self.failure is not None:
            error = self.failure.message
            if self.failure.line is None:
                self.failure.line = editor_location(eqn.source_info, self.filename)[1]
        nan_in = any(n for n, _ in bad_in)
        inf_in = any(i for _, i in bad_in)
        ev = EqnValues(
            outs=out_sums, error=error,
            new_nan=not nan_in and any(s is not None and s.nan > 0 for s in out_sums),
            new_inf=not inf_in and any(s is not None and s.inf > 0 for s in out_sums),
            **fields,
        )
        return outs, ev

    def fail(self, exc: Exception, path: Path, eqn: Any) -> None:
        """Record the first run-time failure; the run stops there."""
        if self.failure is None:
            line = editor_location(eqn.source_info, self.filename)[1]
            self.failure = _Failure(exc, path, line, _short_message(exc))

    @staticmethod
    def _bind(eqn: Any, invals: list[Any]) -> tuple[list[Any] | None, Exception | None]:
        """The equation's outputs, bound whole, or the run-time error.

        Not waited for: reading the outputs for their summaries waits, and an
        error that surfaces only then is caught there (``eqn``).
        """
        try:
            return bind_equation(eqn, invals), None
        except Exception as exc:  # noqa: BLE001 - a run-time failure of the user's program
            return None, exc

    def _plain(self, eqn: Any, invals: list[Any], path: Path) -> tuple[list[Any] | None, dict]:
        outs, exc = self._bind(eqn, invals)
        subs = self._feed(eqn, invals, path)
        if exc is not None:
            self.fail(exc, path, eqn)  # unless running a sub-jaxpr found it deeper
        return outs, {"subs": subs}

    def _feed(self, eqn: Any, invals: list[Any], path: Path) -> tuple[NodeValues | None, ...]:
        """Each sub-jaxpr that takes exactly the equation's inputs, run on them."""
        subs: list[NodeValues | None] = []
        for s, (_, inner) in enumerate(inner_jaxprs(eqn.params)):
            jaxpr, consts = self._open(inner)
            if self.failure is not None or consts is None or not _takes(jaxpr, eqn.invars):
                subs.append(None)
                continue
            subs.append(self.node(jaxpr, consts, invals, (*path, s))[1])
        return tuple(subs)

    def _open(self, inner: Any) -> tuple[Any, list[Any] | None]:
        """(Jaxpr, consts) of a Jaxpr or ClosedJaxpr; consts None when it needs some unknown."""
        if isinstance(inner, self._closed):
            return inner.jaxpr, list(inner.consts)
        return inner, ([] if not inner.constvars else None)

    # ---------------------------------------------------------------- control flow

    def _cond(self, eqn: Any, invals: list[Any], path: Path) -> tuple[list[Any] | None, dict]:
        outs, exc = self._bind(eqn, invals)
        branches = eqn.params["branches"]
        taken = min(max(int(np.asarray(invals[0])), 0), len(branches) - 1)
        subs: list[NodeValues | None] = []
        for s, (label, inner) in enumerate(inner_jaxprs(eqn.params)):
            if label != f"branches[{taken}]" or self.failure is not None:
                subs.append(None)
                continue
            jaxpr, consts = self._open(inner)
            subs.append(self.node(jaxpr, consts or [], invals[1:], (*path, s))[1])
        if exc is not None:
            self.fail(exc, path, eqn)
        return outs, {"subs": tuple(subs), "taken": taken}

    def _while(self, eqn: Any, invals: list[Any], path: Path) -> tuple[list[Any] | None, dict]:
        import jax

        p = eqn.params
        cn, bn = p["cond_nconsts"], p["body_nconsts"]
        cconsts, bconsts, init = invals[:cn], invals[cn:cn + bn], invals[cn + bn:]
        cond, body = p["cond_jaxpr"], p["body_jaxpr"]
        scalars = _scalar_positions(body.in_avals[bn:])
        labels = [label for label, _ in inner_jaxprs(p)]
        subs: list[NodeValues | None] = [None] * len(labels)
        try:
            runner = _while_runner(cond, body, scalars)
            count, prev, final, bufs, n, stride = jax.block_until_ready(
                runner(tuple(cconsts), tuple(bconsts), tuple(init)))
        except Exception as exc:  # noqa: BLE001 - a run-time failure of the user's program
            # The first test and iteration again, one equation at a time: they show where
            # if they fail too.
            for label, jaxpr, consts in (("cond_jaxpr", cond, cconsts),
                                         ("body_jaxpr", body, bconsts)):
                if self.failure is None:
                    s = labels.index(label)
                    subs[s] = self.node(jaxpr.jaxpr, list(jaxpr.consts), [*consts, *init],
                                        (*path, s), iteration=0)[1]
            self.fail(exc, path, eqn)
            return None, {"subs": tuple(subs)}
        iterations = int(count)
        self._loop_parts(subs, labels, cond, body, cconsts, bconsts, list(prev), list(final),
                         iterations, path)
        traces = _carry_traces(scalars, bufs, int(n), int(stride), final, iterations)
        return list(final), {"subs": tuple(subs), "iterations": iterations,
                             "carry_traces": traces}

    def _loop_parts(self, subs: list[NodeValues | None], labels: list[str], cond: Any, body: Any,
                    cconsts: list[Any], bconsts: list[Any], prev: list[Any], final: list[Any],
                    iterations: int, path: Path) -> None:
        """A while loop's body on its last iteration and its cond on its last test."""
        if iterations > 0 and self.failure is None:
            s = labels.index("body_jaxpr")
            subs[s] = self.node(body.jaxpr, list(body.consts), [*bconsts, *prev], (*path, s),
                                iteration=iterations - 1)[1]
        if self.failure is None:
            s = labels.index("cond_jaxpr")
            subs[s] = self.node(cond.jaxpr, list(cond.consts), [*cconsts, *final], (*path, s),
                                iteration=iterations)[1]

    def _scan(self, eqn: Any, invals: list[Any], path: Path) -> tuple[list[Any] | None, dict]:
        import jax

        p = eqn.params
        nc, nk, length = p["num_consts"], p["num_carry"], p["length"]
        consts, init, xs = invals[:nc], invals[nc:nc + nk], invals[nc + nk:]
        body = p["jaxpr"]
        scalars = _scalar_positions(body.in_avals[nc:nc + nk])
        labels = [label for label, _ in inner_jaxprs(p)]
        subs: list[NodeValues | None] = [None] * len(labels)
        s = labels.index("jaxpr")
        last = 0 if p["reverse"] else length - 1
        try:
            runner = _scan_runner(body, nc, nk, length, p["reverse"], p["unroll"], scalars)
            prev, final, ys, bufs = jax.block_until_ready(
                runner(tuple(consts), tuple(init), tuple(xs)))
        except Exception as exc:  # noqa: BLE001 - a run-time failure of the user's program
            if length > 0:
                first = length - 1 - last
                x0 = [x[first] for x in xs]
                subs[s] = self.node(body.jaxpr, list(body.consts), [*consts, *init, *x0],
                                    (*path, s), iteration=0)[1]
            self.fail(exc, path, eqn)
            return None, {"subs": tuple(subs)}
        if length > 0:
            x_last = [x[last] for x in xs]
            subs[s] = self.node(body.jaxpr, list(body.consts), [*consts, *prev, *x_last],
                                (*path, s), iteration=length - 1)[1]
        stride = _scan_stride(length)
        traces = _carry_traces(scalars, bufs, -(-length // stride), stride, final, length)
        return [*final, *ys], {"subs": tuple(subs), "iterations": length,
                               "carry_traces": traces}

    # ---------------------------------------------------------------- values

    def summary(self, x: Any) -> ValueSummary:
        """Kept by array identity: a value passed on (into a jit, a loop) is summarised once.

        Held weakly, so the memo keeps no array alive past its last use.
        """
        hit = self._summaries.get(id(x))
        if hit is not None and hit[0]() is x:
            return hit[1]
        s = summarize(x)
        with contextlib.suppress(TypeError):  # a Python scalar (a literal): cheap again
            self._summaries[id(x)] = (weakref.ref(x), s)
        return s

    def keep(self, ref: VarRef, x: Any) -> None:
        if self.kept is None:
            return
        if self.want is not None:
            if ref == self.want:
                self.kept[ref] = x
            return
        if id(x) not in self._kept_ids:
            self._kept_ids.add(id(x))
            self._kept_bytes += int(getattr(x, "nbytes", 0) or 0)
            if self._kept_bytes > KEEP_BYTES:
                self.kept = None  # over budget: variable_array runs again for the one it wants
                return
        self.kept[ref] = x


_HANDLERS: dict[str, Callable[..., tuple[list[Any] | None, dict]]] = {
    "cond": _Run._cond,
    "while": _Run._while,
    "scan": _Run._scan,
}


def _last_uses(jaxpr: Any, literal: type) -> list[list[Any]]:
    """For each equation, the variables it is the last to read (never the jaxpr's outputs)."""
    last: dict[Any, int] = {}
    for e, eqn in enumerate(jaxpr.eqns):
        for a in eqn.invars:
            if not isinstance(a, literal):
                last[a] = e
    for a in jaxpr.outvars:
        if not isinstance(a, literal):
            last.pop(a, None)
    dead: list[list[Any]] = [[] for _ in jaxpr.eqns]
    for v, e in last.items():
        dead[e].append(v)
    return dead


def _in_order(values: NodeValues, path: Path = ()) -> Any:
    """(path, EqnValues) in evaluation order: a control-flow equation after its insides."""
    for e, ev in enumerate(values.eqns):
        if ev is None:
            continue
        for s, sv in enumerate(ev.subs):
            if sv is not None:
                yield from _in_order(sv, (*path, e, s))
        yield (*path, e), ev


def _takes(jaxpr: Any, atoms: Sequence[Any]) -> bool:
    """Whether ``jaxpr`` takes exactly values typed as ``atoms`` (an equation's inputs)."""
    if len(jaxpr.invars) != len(atoms):
        return False
    return all(v.aval.shape == a.aval.shape and v.aval.dtype == a.aval.dtype
               for v, a in zip(jaxpr.invars, atoms, strict=True))


def _short_message(exc: BaseException) -> str:
    """The exception in one line, for the failing equation's row."""
    text = str(exc).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # A callback's error carries the Python traceback; its last line is the exception.
    last = lines[-1] if lines else ""
    first = lines[0] if lines else ""
    body = last if "Traceback" in text and last else first
    return f"{type(exc).__name__}: {body}" if body else type(exc).__name__


def _wait_for_effects() -> None:
    """Let debug prints of the run land before the reply (they are asynchronous)."""
    import jax

    with contextlib.suppress(Exception):
        jax.effects_barrier()


# --------------------------------------------------------------------------- arguments


def _example_args(prepared: PreparedCall, invars: Sequence[Any]) -> list[Any]:
    """The spec's example arguments as the jaxpr's inputs (flattened, typed as traced).

    Kept for the next run of the same spec while they fit in ``KEEP_BYTES``: they
    depend only on the spec (a fixed PRNG key).
    """
    global _examples
    import jax
    import jax.numpy as jnp

    key = format_args(prepared.dynamic_specs)
    if _examples is not None and _examples[0] == key and len(_examples[1]) == len(invars):
        return list(_examples[1])
    leaves = jax.tree_util.tree_leaves(example_values(prepared.dynamic_specs))
    if len(leaves) != len(invars):
        raise UsageError(f"the spec gives {len(leaves)} arrays, the jaxpr takes {len(invars)}")
    args = tuple(x if isinstance(x, jax.Array) and x.dtype == v.aval.dtype
                 else jnp.asarray(x, dtype=v.aval.dtype)
                 for x, v in zip(leaves, invars, strict=True))
    if sum(int(getattr(x, "nbytes", 0)) for x in args) <= KEEP_BYTES:
        _examples = (key, args)
    return list(args)


# --------------------------------------------------------------------------- loops

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


def _scalar_positions(avals: Sequence[Any]) -> tuple[int, ...]:
    """Carries whose history is recorded: shape () with numbers (bool, int, float)."""
    import jax.numpy as jnp

    return tuple(i for i, a in enumerate(avals)
                 if a.shape == () and _has_numbers(a.dtype)
                 and not jnp.issubdtype(a.dtype, jnp.complexfloating))


def _wide(dtype: Any) -> Any:
    """``dtype`` if JAX has it (64-bit types need ``jax_enable_x64``), else its 32-bit kin."""
    import jax

    return jax.dtypes.canonicalize_dtype(dtype)


def _counter_dtype() -> Any:
    return _wide(np.int64)


def _while_runner(cond: Any, body: Any, scalars: tuple[int, ...]) -> Callable[..., Any]:
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


def _scan_stride(length: int) -> int:
    return max(1, -(-length // (CARRY_TRACE_MAX - 1)))


def _scan_runner(body: Any, nc: int, nk: int, length: int, reverse: bool, unroll: Any,
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
        stride = _scan_stride(length)
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


def _carry_traces(scalars: tuple[int, ...], bufs: Sequence[Any], n: int, stride: int,
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


# --------------------------------------------------------------------------- summaries


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


def _has_numbers(dtype: Any) -> bool:
    return _dtype_info(dtype)[1]


def _dtype_name(dtype: Any) -> str:
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


def _bad(s: ValueSummary) -> tuple[bool, bool]:
    return s.nan > 0, s.inf > 0


def _literal_bad(atom: Any) -> tuple[bool, bool]:
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
    wide = _wide(np.float64)
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


# --------------------------------------------------------------------------- one array


def _check_ref(closed: Any, ref: VarRef) -> None:
    """A UsageError saying what is wrong with ``ref``, if it names no variable of the jaxpr."""
    from jax.extend.core import ClosedJaxpr

    jaxpr = closed.jaxpr
    node = ref.node
    if len(node) % 2:
        raise UsageError(f"{_ref_text(ref)}: a node path has an even length "
                         "(equation, sub-jaxpr pairs)")
    for i in range(0, len(node), 2):
        e, s = node[i], node[i + 1]
        if not 0 <= e < len(jaxpr.eqns):
            raise UsageError(f"{_ref_text(ref)}: no equation {e} at {node[:i]} "
                             f"(it has {len(jaxpr.eqns)})")
        inner = inner_jaxprs(jaxpr.eqns[e].params)
        if not 0 <= s < len(inner):
            raise UsageError(f"{_ref_text(ref)}: equation {node[:i + 1]} has no sub-jaxpr {s} "
                             f"(it has {len(inner)})")
        sub = inner[s][1]
        jaxpr = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
    if ref.eqn is None:
        atoms = jaxpr.constvars if ref.const else jaxpr.invars
        what = "constvars" if ref.const else "invars"
    else:
        if not 0 <= ref.eqn < len(jaxpr.eqns):
            raise UsageError(f"{_ref_text(ref)}: no equation {ref.eqn} "
                             f"(the jaxpr has {len(jaxpr.eqns)})")
        atoms = jaxpr.eqns[ref.eqn].outvars
        what = "outputs"
    if not 0 <= ref.index < len(atoms):
        raise UsageError(f"{_ref_text(ref)}: index {ref.index} out of range "
                         f"({len(atoms)} {what})")


def _ref_text(ref: VarRef) -> str:
    where = f"node {list(ref.node)}"
    if ref.eqn is None:
        return f"{'constvar' if ref.const else 'invar'} {ref.index} of {where}"
    return f"output {ref.index} of equation {ref.eqn} of {where}"


def _array_value(ref: VarRef, x: Any) -> ArrayValue:
    import jax
    import jax.numpy as jnp

    dtype = x.dtype
    shape = tuple(int(d) for d in np.shape(x))
    name = _dtype_name(dtype)
    if dtype == jax.dtypes.float0:
        return ArrayValue(ref, shape, name, np.zeros(shape, dtype=bool))
    if not _has_numbers(dtype):
        raise UsageError(f"{_ref_text(ref)} is a {name} array: it holds no numbers to show "
                         "(jax.random.key_data gives a key's raw bits)")
    size = math.prod(shape)
    stride = 1
    if size > FULL_ARRAY_MAX:
        stride = -(-size // FULL_ARRAY_MAX)
        data = np.asarray(jnp.ravel(x)[::stride])  # thinned on the device
    else:
        data = np.asarray(x)
    if name == "bfloat16":  # exactly representable; a plot reads float32 without ml_dtypes
        data = data.astype(np.float32)
    return ArrayValue(ref, shape, name, data, stride)
