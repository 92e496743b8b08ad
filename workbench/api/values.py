"""The values a traced call computed, for every variable at every depth, as plain data.

``ValuesResult`` mirrors the jaxpr tree (``TraceResult.jaxpr``) position for
position: ``NodeValues`` for each jaxpr *instance* (a sub-jaxpr used twice has
two), ``EqnValues`` for each equation. The tree may share one ``JaxprNode``
between uses; the values never do, since each use ran on its own inputs.

Paths are the tree view's row paths. An equation is ``(e0,)`` in the top jaxpr
and ``(e0, s, e1)`` for equation ``e1`` of sub-jaxpr ``s`` of equation ``e0``;
a jaxpr instance is the path that leads to it: ``()`` for the top one, ``(e0,
s)`` for a sub-jaxpr. A variable is a ``VarRef``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.api.choices import Transform
from workbench.api.errors import Explanation
from workbench.api.jaxpr import Eqn, JaxprNode, Var

if TYPE_CHECKING:  # numpy loads with the codec, after the window's first frame
    import numpy as np

HIST_BINS = 32
PREVIEW_MAX = 8
CARRY_TRACE_MAX = 10_000
FULL_ARRAY_MAX = 1_000_000

Path = tuple[int, ...]


@dataclass(frozen=True)
class ValueSummary:
    """One array as a student needs to see it: type, range, moments, bad values, a sketch.

    ``min``..``std`` are over the finite values (None when there are none, or
    for a type without numbers such as a PRNG key); a complex array is
    summarised by its magnitude. ``preview`` is the first ``PREVIEW_MAX`` values,
    flattened; ``hist`` counts the finite values in ``HIST_BINS`` equal bins
    over [``hist_lo``, ``hist_hi``].
    """

    shape: tuple[int, ...]
    dtype: str
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    std: float | None = None
    nan: int = 0
    inf: int = 0
    preview: tuple[float, ...] = ()
    hist: tuple[int, ...] = ()
    hist_lo: float = 0.0
    hist_hi: float = 0.0

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def type_text(self) -> str:
        """``f32[3,4]`` as the jaxpr prints types."""
        return f"{short_dtype(self.dtype)}[{','.join(map(str, self.shape))}]"

    def to_json(self) -> dict[str, Any]:
        return {
            "shape": list(self.shape), "dtype": self.dtype, "min": self.min, "max": self.max,
            "mean": self.mean, "std": self.std, "nan": self.nan, "inf": self.inf,
            "preview": list(self.preview), "hist": list(self.hist),
        }

    def range_text(self) -> str:
        """``min -1.2  max 3.4  mean 0.5`` (and NaN/Inf counts); one line for a node or a row."""
        if self.min is None:
            parts = ["no finite values"] if self.size else ["empty"]
        else:
            parts = [f"min {fmt_number(self.min)}", f"max {fmt_number(self.max)}",
                     f"mean {fmt_number(self.mean)}"]
        if self.nan:
            parts.append(f"{self.nan:,} NaN")
        if self.inf:
            parts.append(f"{self.inf:,} Inf")
        return "  ".join(parts)


@dataclass(frozen=True)
class CarryTrace:
    """A scalar loop carry's value entering each iteration ``steps[i]``, the last one after it.

    ``position`` is the carry's index among the loop's carried values; past
    ``CARRY_TRACE_MAX`` points the iterations are thinned evenly (``stride``).
    """

    position: int
    steps: np.ndarray  # int64 iteration numbers, ascending
    values: np.ndarray  # float64
    stride: int = 1


@dataclass(frozen=True)
class NodeValues:
    """Values of one jaxpr instance; ``eqns[i]`` is None when equation ``i`` did not run.

    For a loop body these are its last iteration's (``iteration``, counted from 0).
    """

    invars: tuple[ValueSummary | None, ...]
    constvars: tuple[ValueSummary | None, ...]
    eqns: tuple[EqnValues | None, ...]
    iteration: int | None = None


@dataclass(frozen=True)
class EqnValues:
    """What one equation produced.

    ``subs[i]`` holds sub-jaxpr ``i``'s values, None where it did not run (a
    branch not taken). ``taken`` is the branch a ``cond``/``switch`` ran;
    ``iterations`` the exact count of a ``while``/``scan``. ``error`` is set
    when this equation raised (its outputs are then missing). ``new_nan`` /
    ``new_inf``: an output holds a NaN (Inf) and no input did.
    """

    outs: tuple[ValueSummary | None, ...]
    subs: tuple[NodeValues | None, ...] = ()
    taken: int | None = None
    iterations: int | None = None
    carry_traces: tuple[CarryTrace, ...] = ()
    error: str | None = None
    new_nan: bool = False
    new_inf: bool = False


@dataclass(frozen=True)
class ValuesResult:
    """Every value of ``function(args)`` under ``transforms`` on the spec's example arguments.

    ``outputs`` are the call's results (top-level outvars, literals included).
    ``error`` explains a run-time failure at equation ``error_path``: values up
    to it are there, none after. ``first_nan`` / ``first_inf``: the first
    equation, in evaluation order, that produced one. ``seconds``: evaluation time.
    """

    function: str
    args: tuple[str, ...]
    transforms: tuple[Transform, ...]
    root: NodeValues
    outputs: tuple[ValueSummary | None, ...] = ()
    error: Explanation | None = None
    error_path: tuple[int, ...] | None = None
    first_nan: tuple[int, ...] | None = None
    first_inf: tuple[int, ...] | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class VarRef:
    """A variable of one jaxpr instance: an invar or constvar (``eqn`` None) or an eqn's output.

    ``index`` counts invars (or constvars when ``const``) or the equation's outvars.
    """

    node: tuple[int, ...] = ()
    eqn: int | None = None
    index: int = 0
    const: bool = False


@dataclass(frozen=True)
class ArrayValue:
    """The full array of one variable; beyond ``FULL_ARRAY_MAX`` elements every ``stride``-th
    element of the flattened array (``data`` is then 1-D)."""

    ref: VarRef
    shape: tuple[int, ...]
    dtype: str
    data: np.ndarray
    stride: int = 1


# --------------------------------------------------------------------------- helpers

_SHORT = {"float": "f", "int": "i", "uint": "u", "complex": "c"}


def short_dtype(dtype: str) -> str:
    """``float32`` -> ``f32`` as in jaxpr types; other names (bool, bfloat16) unchanged."""
    if dtype == "bfloat16":
        return "bf16"
    for long, short in _SHORT.items():
        rest = dtype[len(long):]
        if dtype.startswith(long) and rest.isdigit():
            return short + rest
    return dtype


def fmt_number(x: float | None) -> str:
    if x is None:
        return "-"
    if x != x or x in (float("inf"), float("-inf")):
        return str(x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.4g}"


def node_at(tree: JaxprNode, values: NodeValues, path: Path) -> tuple[JaxprNode, NodeValues] | None:
    """The jaxpr instance at ``path`` (a node path: even length) and its values, if it ran."""
    node, vals = tree, values
    for i in range(0, len(path) - 1, 2):
        e, s = path[i], path[i + 1]
        if e >= len(node.eqns) or e >= len(vals.eqns):
            return None
        eqn, ev = node.eqns[e], vals.eqns[e]
        sub = ev.subs[s] if ev is not None and s < len(ev.subs) else None
        if sub is None or s >= len(eqn.subjaxprs):
            return None
        node, vals = eqn.subjaxprs[s].jaxpr, sub
    return node, vals


def eqn_at(tree: JaxprNode, path: Path) -> Eqn | None:
    """The equation at ``path`` (odd length) of the tree, whether or not it ran."""
    node = tree
    for i in range(0, len(path) - 1, 2):
        e, s = path[i], path[i + 1]
        if e >= len(node.eqns) or s >= len(node.eqns[e].subjaxprs):
            return None
        node = node.eqns[e].subjaxprs[s].jaxpr
    return node.eqns[path[-1]] if path and path[-1] < len(node.eqns) else None


def eqn_values_at(values: NodeValues, path: Path) -> EqnValues | None:
    """The values of the equation at ``path``; None if it did not run."""
    vals: NodeValues | None = values
    for i in range(0, len(path) - 1, 2):
        ev = vals.eqns[path[i]] if vals is not None and path[i] < len(vals.eqns) else None
        vals = ev.subs[path[i + 1]] if ev is not None and path[i + 1] < len(ev.subs) else None
    if vals is None or not path or path[-1] >= len(vals.eqns):
        return None
    return vals.eqns[path[-1]]


def var_refs(node: JaxprNode, path: Path = ()) -> dict[str, VarRef]:
    """Each variable name of one jaxpr instance and where it is defined."""
    refs: dict[str, VarRef] = {}
    for i, v in enumerate(node.constvars):
        if v.name:
            refs[v.name] = VarRef(path, None, i, True)
    for i, v in enumerate(node.invars):
        if v.name:
            refs[v.name] = VarRef(path, None, i)
    for e, eqn in enumerate(node.eqns):
        for j, v in enumerate(eqn.outvars):
            if v.name and v.name != "_":
                refs[v.name] = VarRef(path, e, j)
    return refs


def summary_of(values: NodeValues, ref: VarRef) -> ValueSummary | None:
    """The summary a ``VarRef`` names inside its own jaxpr instance's values."""
    if ref.eqn is None:
        seq = values.constvars if ref.const else values.invars
        return seq[ref.index] if ref.index < len(seq) else None
    ev = values.eqns[ref.eqn] if ref.eqn < len(values.eqns) else None
    if ev is None or ref.index >= len(ev.outs):
        return None
    return ev.outs[ref.index]


def summaries_by_name(node: JaxprNode, values: NodeValues) -> dict[str, ValueSummary]:
    """Name -> summary for every variable of one jaxpr instance that has a value."""
    out: dict[str, ValueSummary] = {}
    for name, ref in var_refs(node).items():
        s = summary_of(values, ref)
        if s is not None:
            out[name] = s
    return out


def var_summary(node: JaxprNode, values: NodeValues, var: Var) -> ValueSummary | None:
    if var.name is None:
        return None
    ref = var_refs(node).get(var.name)
    return summary_of(values, ref) if ref is not None else None


def steps(tree: JaxprNode, values: NodeValues, path: Path = ()) -> Iterator[Path]:
    """Equation paths in evaluation order, only those that ran.

    A control-flow equation's inner equations come before it: its outputs exist
    only once its body has run (for a loop, the last iteration's body is shown).
    """
    for e, (eqn, ev) in enumerate(zip(tree.eqns, values.eqns, strict=False)):
        if ev is None:
            continue
        for s, (sub, sv) in enumerate(zip(eqn.subjaxprs, ev.subs, strict=False)):
            if sv is not None:
                yield from steps(sub.jaxpr, sv, (*path, e, s))
        yield (*path, e)


def annotate_json(node_json: dict[str, Any], node: JaxprNode, values: NodeValues | None) -> None:
    """Add ``value`` to every VAR of a tree JSON node that ran, ``taken``/``iterations``/
    ``carry_trace`` to control-flow EQNs, ``error``/``new_nan``/``new_inf`` where set."""
    if values is None:
        return
    by_name = summaries_by_name(node, values)

    def mark(var_json: dict[str, Any]) -> None:
        s = by_name.get(var_json.get("name", ""))
        if s is not None:
            var_json["value"] = s.to_json()

    for key, seq in (("invars", values.invars), ("constvars", values.constvars)):
        for vj, s in zip(node_json[key], seq, strict=False):
            if s is not None:
                vj["value"] = s.to_json()
    for vj in node_json["outvars"]:
        mark(vj)
    for ej, eqn, ev in zip(node_json["eqns"], node.eqns, values.eqns, strict=False):
        if ev is None:
            continue
        for vj in ej["invars"]:
            mark(vj)
        for vj, s in zip(ej["outvars"], ev.outs, strict=False):
            if s is not None:
                vj["value"] = s.to_json()
        if ev.taken is not None:
            ej["taken"] = ev.taken
        if ev.iterations is not None:
            ej["iterations"] = ev.iterations
        if ev.carry_traces:
            ej["carry_trace"] = [
                {"position": t.position, "stride": t.stride,
                 "steps": [int(i) for i in t.steps], "values": [float(v) for v in t.values]}
                for t in ev.carry_traces
            ]
        if ev.error is not None:
            ej["error"] = ev.error
        if ev.new_nan:
            ej["new_nan"] = True
        if ev.new_inf:
            ej["new_inf"] = True
        for sj, sub, sv in zip(ej["subjaxprs"], eqn.subjaxprs, ev.subs, strict=False):
            sj["executed"] = sv is not None
            if sv is not None:
                if sv.iteration is not None:
                    sj["iteration"] = sv.iteration
                annotate_json(sj["jaxpr"], sub.jaxpr, sv)
