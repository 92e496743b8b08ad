"""What each node of a laid-out graph is drawn as: not run, failed, badged, not yet stepped to,
on the editor's line (no Qt).

The view keeps one ``Marks`` per graph and recomputes a part of it when the
values, the stepping position or the cursor's line change; painting and the
tooltips read it. Also here: looking up the values of a node or a variable.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

import numpy as np

from workbench.api.jaxpr import JaxprNode
from workbench.api.values import (
    EqnValues,
    NodeValues,
    Path,
    ValuesResult,
    ValueSummary,
    VarRef,
    eqn_values_at,
    node_at,
    summary_of,
)
from workbench.graph.model import ChunkId, DisplayGraph, GraphNode, IoId, PortId


def _no_flags() -> np.ndarray:
    return np.zeros(0, dtype=bool)


@dataclass
class Marks:
    """Per-node flags (numpy bool arrays, one entry per node) and badge words by node."""

    dim: np.ndarray = field(default_factory=_no_flags)  # did not run
    step_dim: np.ndarray = field(default_factory=_no_flags)  # not evaluated yet
    error: np.ndarray = field(default_factory=_no_flags)
    line_hl: np.ndarray = field(default_factory=_no_flags)
    badges: dict[int, str] = field(default_factory=dict)


# --------------------------------------------------------------------------- values lookup


def instance_values(tree: JaxprNode | None, values: ValuesResult | None,
                    path: Path) -> NodeValues | None:
    """The recorded values of the jaxpr instance at ``path`` (None: none recorded)."""
    if values is None or tree is None:
        return None
    found = node_at(tree, values.root, path)
    return found[1] if found is not None else None


def var_summary(tree: JaxprNode | None, values: ValuesResult | None,
                ref: VarRef | None) -> ValueSummary | None:
    """The summary of variable ``ref``'s value, if it was recorded."""
    if ref is None:
        return None
    vals = instance_values(tree, values, ref.node)
    return summary_of(vals, ref) if vals is not None else None


def top_output(values: ValuesResult | None, nd: GraphNode) -> ValueSummary | None:
    """The summary of an output of the whole program (``nd`` an output node of the top jaxpr)."""
    if values is None or nd.kind != "output" or not isinstance(nd.id, IoId) or nd.id.node:
        return None
    outs = values.outputs
    return outs[nd.id.index] if nd.id.index < len(outs) else None


def node_summary(g: DisplayGraph, tree: JaxprNode | None, values: ValuesResult,
                 i: int) -> ValueSummary | None:
    """What node ``i``'s values row shows: an equation's first output, else its variable."""
    nd = g.nodes[i]
    if isinstance(nd.id, tuple):
        ev = eqn_values_at(values.root, nd.id)
        return ev.outs[0] if ev is not None and ev.outs else None
    if isinstance(nd.id, IoId) and nd.kind == "output" and not nd.id.node:
        outs = values.outputs
        if nd.id.index < len(outs):
            return outs[nd.id.index]
    return var_summary(tree, values, nd.ref)


# --------------------------------------------------------------------------- values marks


def value_marks(g: DisplayGraph, tree: JaxprNode | None,
                values: ValuesResult | None) -> tuple[np.ndarray, np.ndarray, dict[int, str]]:
    """(did not run, failed, badges) of every node from the values (all clear without)."""
    n = len(g.nodes)
    dim = np.zeros(n, dtype=bool)
    error = np.zeros(n, dtype=bool)
    badges: dict[int, str] = {}
    if values is None or tree is None:
        return dim, error, badges
    for i, nd in enumerate(g.nodes):
        nid = nd.id
        if isinstance(nid, tuple):
            _eqn_marks(i, nd, nid, values, dim, error, badges)
        elif isinstance(nid, ChunkId):
            _chunk_marks(i, nid, values, dim, error, badges)
        else:
            dim[i] = _io_not_run(nd, nid, tree, values)
    return dim, error, badges


def _eqn_marks(i: int, nd: GraphNode, nid: Path, v: ValuesResult, dim: np.ndarray,
               error: np.ndarray, badges: dict[int, str]) -> None:
    err_path = v.error_path
    ev = eqn_values_at(v.root, nid)
    dim[i] = ev is None and err_path != nid
    if ev is not None and ev.error is not None or err_path == nid:
        error[i] = True
    inside = nd.group is not None and not nd.expanded
    badge = _eqn_badge(nid, inside, v, ev)
    if badge:
        badges[i] = badge
    if inside and err_path is not None and err_path[:len(nid)] == nid:
        error[i] = True


def _eqn_badge(nid: Path, inside: bool, v: ValuesResult, ev: EqnValues | None) -> str:
    """"first NaN here", "first Inf inside" (a collapsed group), "new NaN", or ""."""
    firsts = (("NaN", v.first_nan), ("Inf", v.first_inf))
    here = [w for w, p in firsts if p == nid]
    if here:
        return f"first {' and '.join(here)} here"
    within = [w for w, p in firsts if inside and p is not None and p[:len(nid)] == nid]
    if within:
        return f"first {' and '.join(within)} inside"
    new = [w for w, flag in (("NaN", ev and ev.new_nan), ("Inf", ev and ev.new_inf)) if flag]
    return f"new {' and '.join(new)}" if new else ""


def _in_chunk(path: Path | None, cid: ChunkId) -> bool:
    k = len(cid.node)
    return path is not None and path[:k] == cid.node and cid.start <= path[k] < cid.stop


def _chunk_marks(i: int, nid: ChunkId, v: ValuesResult, dim: np.ndarray, error: np.ndarray,
                 badges: dict[int, str]) -> None:
    dim[i] = eqn_values_at(v.root, (*nid.node, nid.start)) is None
    if _in_chunk(v.error_path, nid):
        error[i] = True
        dim[i] = False
    for bad, text in ((v.first_nan, "first NaN inside"), (v.first_inf, "first Inf inside")):
        if _in_chunk(bad, nid):
            badges.setdefault(i, text)


def _io_not_run(nd: GraphNode, nid: IoId | PortId, tree: JaxprNode, v: ValuesResult) -> bool:
    inst = nid.node if isinstance(nid, IoId) else nid.chunk.node
    vals = instance_values(tree, v, inst)
    if vals is None:
        return True
    if nd.kind in ("output", "port"):
        return nd.ref is not None and summary_of(vals, nd.ref) is None
    return False


# --------------------------------------------------------------------------- stepping


def order_ranks(g: DisplayGraph, rank: dict[Path, int]) -> np.ndarray:
    """Each node's position in the evaluation order ``rank`` (inputs -1, not run: never)."""
    never = float(len(rank) + 1)
    first: dict[Path, int] = {}
    for p, k in rank.items():
        inst = p[:-1]
        if inst not in first or k < first[inst]:
            first[inst] = k
    out = np.full(len(g.nodes), never)
    for i, nd in enumerate(g.nodes):
        out[i] = _node_rank(nd, rank, first, never)
    return out


def _node_rank(nd: GraphNode, rank: dict[Path, int], first: dict[Path, int],
               never: float) -> float:
    nid = nd.id
    if isinstance(nid, tuple):
        return rank.get(nid, never)
    if isinstance(nid, ChunkId):
        ks = [rank[(*nid.node, e)] for e in range(nid.start, nid.stop) if (*nid.node, e) in rank]
        return max(ks) if ks else never
    if nd.kind in ("input", "const") and isinstance(nid, IoId):
        return -1.0 if not nid.node else first.get(nid.node, never) - 0.5
    if nd.ref is not None and nd.ref.eqn is not None:
        return rank.get((*nd.ref.node, nd.ref.eqn), never)
    if nd.kind == "port" and isinstance(nid, PortId) and not nid.out:
        return -1.0
    return -1.0 if not nd.instance else first.get(nd.instance, never) - 0.5


def step_marks(g: DisplayGraph, done: int | Collection[Path] | None,
               ranks: Callable[[], np.ndarray], current: int | None) -> np.ndarray:
    """Nodes not evaluated yet: ``done`` is a count into the order (``ranks`` gives each
    node's place in it) or the paths that ran; the ``current`` node is never greyed out."""
    n = len(g.nodes)
    if done is None:
        out = np.zeros(n, dtype=bool)
    elif isinstance(done, int):
        out = ranks() >= done
    else:
        done_set = done if isinstance(done, set | frozenset) else set(done)
        out = np.fromiter((isinstance(nd.id, tuple) and nd.id not in done_set
                           for nd in g.nodes), bool, n)
    if current is not None:
        out[current] = False
    return out


def line_marks(g: DisplayGraph, lines: Iterable[int]) -> np.ndarray:
    """Nodes that show one of the editor ``lines``."""
    out = np.zeros(len(g.nodes), dtype=bool)
    for line in lines:
        for i in g.lines.get(line, ()):
            out[i] = True
    return out
