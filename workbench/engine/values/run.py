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

The device arrays of the last run are kept, within
``KEEP_BYTES``, for ``variable_array``, until the source they came from is replaced.
A run-time failure keeps its explanation, never the exception: its traceback's
frames hold the run's arrays, and through the run itself a reference cycle that
only the cyclic collector would have freed.
"""

from __future__ import annotations

import contextlib
import math
import time
import traceback
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from workbench.api.errors import Explanation
from workbench.api.values import (
    ArrayValue,
    EqnValues,
    NodeValues,
    Path,
    ValuesResult,
    ValueSummary,
    VarRef,
)
from workbench.engine.argspec import Spec, example_values, format_args
from workbench.engine.errors import UsageError, explain
from workbench.engine.jax_internals import bind_equation
from workbench.engine.jaxpr_tree import inner_jaxprs
from workbench.engine.source import LoadedSource
from workbench.engine.source_info import editor_location
from workbench.engine.trace import closed_jaxpr
from workbench.engine.transforms import PreparedCall
from workbench.engine.values.arrays import array_value, check_ref, ref_text
from workbench.engine.values.loops import (
    CHECKPOINT_EVERY,
    carry_traces,
    scalar_positions,
    scan_runner,
    scan_stride,
    while_runner,
)
from workbench.engine.values.summaries import bad_values, literal_bad_values, summarize

# The knobs of a run: KEEP_BYTES here, the loops' checkpoint interval in ``loops``.
__all__ = ["CHECKPOINT_EVERY", "KEEP_BYTES", "evaluate_values", "variable_array"]


KEEP_BYTES = 128 * 2**20
"""Device arrays of the last run kept for ``variable_array`` (past this, it runs again),
the example arguments among them: all the engine holds after a request."""


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
    _last = None  # the last run's arrays go before this run makes its own
    run = _Run(loaded.filename, prepared.fn, should_stop, want=None)
    result = run.evaluate(closed, prepared, name)
    _last = _Kept(prepared, closed, run.kept, weakref.ref(loaded, _forget_last))
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
    check_ref(closed, ref)
    last = _last
    if last is not None and last.prepared is prepared and last.closed is closed \
            and last.arrays is not None:
        found = last.arrays.get(ref)  # every array of that run is there
    else:
        run = _Run(loaded.filename, prepared.fn, None, want=ref)
        run.evaluate(closed, prepared, name)
        found = run.kept.get(ref) if run.kept is not None else None
    if found is None:
        raise UsageError(f"{ref_text(ref)} did not run (a branch not taken, a loop that "
                         "ran no iteration, or an equation after a failing one)")
    return array_value(ref, found)


# --------------------------------------------------------------------------- the run


@dataclass
class _Kept:
    prepared: PreparedCall
    closed: Any
    arrays: dict[VarRef, Any] | None
    loaded: weakref.ref[LoadedSource]
    """Its death (a new source loaded) drops these arrays: nothing can ask for them again."""


_last: _Kept | None = None
_examples: tuple[str, tuple[Any, ...]] | None = None


def _forget_last(loaded: weakref.ref[LoadedSource]) -> None:
    global _last
    if _last is not None and _last.loaded is loaded:
        _last = None


@dataclass
class _Failure:
    explanation: Explanation
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
        if self.want is None and _bytes_past(closed.jaxpr, KEEP_BYTES):
            self.kept = None  # not kept until past the budget, then dropped: never held
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
            error = self.failure.explanation
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
            bad_in = [literal_bad_values(a) if isinstance(a, literal) else bad_values(sums[a])
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
        """Record the first run-time failure; the run stops there.

        Only its explanation is kept, and its tracebacks are dropped: their frames
        hold every array the run had (out of memory: all of it), and ``self``, so
        keeping ``exc`` made a cycle that held them until a ``gc.collect()``.
        """
        if self.failure is None:
            line = editor_location(eqn.source_info, self.filename)[1]
            self.failure = _Failure(explain(exc, self.filename, function=self.function),
                                    path, line, _short_message(exc))
        _drop_tracebacks(exc)

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
        """The equation's insides first, one equation at a time, then the equation whole.

        In this order the insides' arrays are gone before the whole equation's outputs
        exist: the peak is the larger of the two runs, not their sum plus the outputs.
        """
        subs = self._feed(eqn, invals, path)
        if self.failure is not None:  # found inside: the equation whole fails there too
            return None, {"subs": subs}
        outs, exc = self._bind(eqn, invals)
        if exc is not None:
            self.fail(exc, path, eqn)
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
        """The branch taken, one equation at a time, then the ``cond`` whole (as ``_plain``)."""
        branches = eqn.params["branches"]
        taken = min(max(int(np.asarray(invals[0])), 0), len(branches) - 1)
        subs: list[NodeValues | None] = []
        for s, (label, inner) in enumerate(inner_jaxprs(eqn.params)):
            if label != f"branches[{taken}]" or self.failure is not None:
                subs.append(None)
                continue
            jaxpr, consts = self._open(inner)
            subs.append(self.node(jaxpr, consts or [], invals[1:], (*path, s))[1])
        fields = {"subs": tuple(subs), "taken": taken}
        if self.failure is not None:
            return None, fields
        outs, exc = self._bind(eqn, invals)
        if exc is not None:
            self.fail(exc, path, eqn)
        return outs, fields

    def _while(self, eqn: Any, invals: list[Any], path: Path) -> tuple[list[Any] | None, dict]:
        import jax

        p = eqn.params
        cn, bn = p["cond_nconsts"], p["body_nconsts"]
        cconsts, bconsts, init = invals[:cn], invals[cn:cn + bn], invals[cn + bn:]
        cond, body = p["cond_jaxpr"], p["body_jaxpr"]
        scalars = scalar_positions(body.in_avals[bn:])
        labels = [label for label, _ in inner_jaxprs(p)]
        subs: list[NodeValues | None] = [None] * len(labels)
        try:
            runner = while_runner(cond, body, scalars)
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
        traces = carry_traces(scalars, bufs, int(n), int(stride), final, iterations)
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
        scalars = scalar_positions(body.in_avals[nc:nc + nk])
        labels = [label for label, _ in inner_jaxprs(p)]
        subs: list[NodeValues | None] = [None] * len(labels)
        s = labels.index("jaxpr")
        last = 0 if p["reverse"] else length - 1
        try:
            runner = scan_runner(body, nc, nk, length, p["reverse"], p["unroll"], scalars)
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
        stride = scan_stride(length)
        traces = carry_traces(scalars, bufs, -(-length // stride), stride, final, length)
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


def _bytes_past(jaxpr: Any, budget: int) -> bool:
    """Whether the arrays a run of ``jaxpr`` can make (each sub-jaxpr's, every branch's)
    take more than ``budget`` bytes."""
    from jax.extend.core import ClosedJaxpr

    todo = [jaxpr]
    while todo:
        j = todo.pop()
        j = j.jaxpr if isinstance(j, ClosedJaxpr) else j
        for v in (*j.constvars, *j.invars, *(o for e in j.eqns for o in e.outvars)):
            budget -= _aval_bytes(v.aval)
        if budget < 0:
            return True
        todo += [inner for e in j.eqns for _, inner in inner_jaxprs(e.params)]
    return False


def _aval_bytes(aval: Any) -> int:
    try:
        return math.prod(aval.shape) * np.dtype(aval.dtype).itemsize
    except (AttributeError, TypeError):  # a token, a key: no numbers to keep
        return 0


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


def _drop_tracebacks(exc: BaseException) -> None:
    """Free the frames ``exc``, its causes and contexts hold (their arrays with them)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if e.__traceback__ is not None:
            traceback.clear_frames(e.__traceback__)
            e.__traceback__ = None
        todo += [e.__cause__, e.__context__, *getattr(e, "exceptions", ())]


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
    _examples = None  # not beside the new ones
    leaves = jax.tree_util.tree_leaves(example_values(prepared.dynamic_specs))
    if len(leaves) != len(invars):
        raise UsageError(f"the spec gives {len(leaves)} arrays, the jaxpr takes {len(invars)}")
    args = tuple(x if isinstance(x, jax.Array) and x.dtype == v.aval.dtype
                 else jnp.asarray(x, dtype=v.aval.dtype)
                 for x, v in zip(leaves, invars, strict=True))
    if sum(int(getattr(x, "nbytes", 0)) for x in args) <= KEEP_BYTES:
        _examples = (key, args)
    return list(args)
