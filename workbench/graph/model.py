"""The jaxpr as a dataflow graph: nodes, edges, nested groups and how to find them (no Qt).

Nodes are equations (id: the equation's path, as in the tree view), one input
node per invar and constvar and one output node per outvar of every jaxpr
shown (ids: ``IoId``); edges are variables, from the node that defines one to
each node that uses it (literals are no edges: they are printed in the using
node's label). An equation holding jaxprs (jit, cond, while, scan, custom
rules, remat) is a *group*: collapsed it is one node; expanded it is a box with
a header (the equation's node) around one frame per sub-jaxpr, each laid out
with its own input and output nodes. An outer variable enters the box at the
inner input node it binds (jit, scan, custom rules: by position; cond: after
the index; while: by its const counts), else at the header.

Bounded size: a group of more than ``threshold`` equations starts collapsed
(unless it is the only equation of its jaxpr, as the body of a ``jit`` of the
whole function is), and so does one that is no control flow (the combiner
jaxpr of a ``scatter-add`` or a ``reduce`` is a detail), and a jaxpr with
more than ``level_cap`` equations at one level (an unrolled Python loop) is
cut into chunks of ``chunk_size`` (at most ``max_chunks`` of them) shown as
collapsed groups "equations 0-999", so a program of 100,000 equations lays
out as about a hundred nodes.

The coordinates come from ``build.build_graph``; ``layout`` places one level.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from workbench.api.jaxpr import Eqn, JaxprNode, Var
from workbench.api.values import NodeValues, Path, VarRef


@dataclass(frozen=True)
class IoId:
    """An input (``kind`` "in"), constant ("const") or output ("out") node of the jaxpr
    instance at ``node`` (a tree path: ``()`` for the top one)."""

    kind: Literal["in", "const", "out"]
    node: Path
    index: int


@dataclass(frozen=True)
class ChunkId:
    """Equations ``start``..``stop - 1`` of the jaxpr instance at ``node``, cut out of a level
    too long to draw whole."""

    node: Path
    start: int
    stop: int


@dataclass(frozen=True)
class PortId:
    """Where variable ``name`` enters (``out`` False) or leaves an expanded chunk."""

    chunk: ChunkId
    name: str
    out: bool


NodeId = tuple[int, ...] | IoId | ChunkId | PortId
GroupId = tuple[int, ...] | ChunkId
NodeKind = Literal["eqn", "input", "const", "output", "chunk", "port"]


@dataclass(slots=True)
class GraphNode:
    """One drawn node; ``x``, ``y`` are its top-left corner.

    ``group`` is set on a node that stands for a group: a collapsed one, or the
    header of an expanded one (``expanded``). ``ref`` names the variable of an
    input, output or port node. ``lines`` are the editor lines it shows (a
    collapsed group: all of its equations').
    """

    id: NodeId
    kind: NodeKind
    label: str
    detail: str
    family: str
    line: int | None
    x: float
    y: float
    w: float
    h: float
    instance: Path = ()
    group: GroupId | None = None
    expanded: bool = False
    ref: VarRef | None = None
    eqn: Eqn | None = None
    size: int = 0
    lines: frozenset[int] = frozenset()


@dataclass(slots=True)
class GraphEdge:
    """Variable ``name`` flowing from node ``src`` to node ``dst`` (indices) along ``points``.

    ``ref`` is where the variable is defined, in its own jaxpr instance.
    """

    src: int
    dst: int
    name: str
    type: str
    ref: VarRef | None
    points: np.ndarray  # (k, 2) float64, top to bottom


@dataclass(slots=True)
class GraphBox:
    """A frame drawn behind nodes: an expanded group (``kind`` "group", ``id`` its equation
    path), one sub-jaxpr of it ("sub", ``id`` the instance path) or an expanded chunk."""

    id: GroupId
    kind: Literal["group", "sub", "chunk"]
    title: str
    x: float
    y: float
    w: float
    h: float
    depth: int


@dataclass(frozen=True)
class LayoutOptions:
    """What to show and how big; sizes are pixels at presentation scale 1."""

    threshold: int = 60
    level_cap: int = 4000
    chunk_size: int = 1000
    max_chunks: int = 200
    char_w: float = 6.6
    node_h: float = 38.0
    io_h: float = 24.0
    values_h: float = 0.0
    min_w: float = 56.0
    max_w: float = 240.0
    hgap: float = 22.0
    dummy_gap: float = 8.0
    vgap: float = 34.0
    pad: float = 10.0
    header_h: float = 26.0
    subtitle_h: float = 18.0
    text_pad: float = 8.0
    toggle_w: float = 18.0
    unit: float = 36.0  # pixels per igraph x unit: the wish before the real widths spread it
    maxiter: int = 40
    sweeps: int = 4
    scale: float = 1.0
    # The real width of a text in pixels (the window passes its font's); else char_w per char.
    text_width: Callable[[str], float] | None = field(default=None, compare=False)

    def scaled(self, factor: float) -> LayoutOptions:
        """These options with every pixel size times ``factor``."""
        px = ("char_w", "node_h", "io_h", "values_h", "min_w", "max_w", "hgap", "dummy_gap",
              "vgap", "pad", "header_h", "subtitle_h", "text_pad", "toggle_w", "unit")
        return replace(self, scale=self.scale * factor,
                       **{k: getattr(self, k) * factor for k in px})


@dataclass
class DisplayGraph:
    """The laid-out graph: nodes, edges and boxes in scene coordinates, and how to find them."""

    tree: JaxprNode
    options: LayoutOptions
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    boxes: list[GraphBox]
    width: float
    height: float
    index: dict[NodeId, int]
    groups: dict[GroupId, tuple[int, bool]]  # every group on screen: (equations, expanded)
    chunks: dict[Path, list[ChunkId]]
    lines: dict[int, list[int]]  # editor line -> nodes showing it
    hidden: int  # equations inside collapsed groups

    def visible_for(self, path: Path) -> int | None:
        """The node that shows equation ``path``: its own, or the collapsed group around it."""
        hit = self.index.get(path)
        if hit is not None:
            return hit
        for k in range(0, len(path), 2):
            inst, e = path[:k], path[k]
            chunk = _chunk_containing(self.chunks.get(inst), e)
            if chunk is not None:
                size_expanded = self.groups.get(chunk)
                if size_expanded is not None and not size_expanded[1]:
                    return self.index.get(chunk)
            epath = path[:k + 1]
            i = self.index.get(epath)
            if i is None:
                return None
            group = self.groups.get(epath)
            if group is None or not group[1]:
                return i
        return None

    def node_for_var(self, ref: VarRef) -> int | None:
        """The node that defines variable ``ref`` (or shows the group hiding its definition)."""
        if ref.eqn is not None:
            return self.visible_for((*ref.node, ref.eqn))
        hit = self.index.get(IoId("const" if ref.const else "in", ref.node, ref.index))
        if hit is not None or not ref.node:
            return hit
        return self.visible_for(ref.node[:-1])


def _chunk_containing(chunks: list[ChunkId] | None, e: int) -> ChunkId | None:
    if not chunks:
        return None
    i = bisect.bisect_right([c.start for c in chunks], e) - 1
    return chunks[i] if i >= 0 and e < chunks[i].stop else None


def chunk_bounds(n: int, options: LayoutOptions) -> list[tuple[int, int]]:
    """How a level of ``n`` equations is cut; one piece when it is within ``level_cap``."""
    if n <= options.level_cap:
        return [(0, n)]
    size = max(options.chunk_size, math.ceil(n / options.max_chunks))
    return [(s, min(n, s + size)) for s in range(0, n, size)]


def groups_containing(tree: JaxprNode, path: Path, options: LayoutOptions) -> list[GroupId]:
    """The groups (equations with sub-jaxprs, chunks) to expand for ``path`` to show."""
    out: list[GroupId] = []
    node = tree
    for k in range(0, len(path), 2):
        e = path[k]
        if e >= len(node.eqns):
            break
        bounds = chunk_bounds(len(node.eqns), options)
        if len(bounds) > 1:
            for s, t in bounds:
                if s <= e < t:
                    out.append(ChunkId(path[:k], s, t))
        if k + 1 < len(path):
            subs = node.eqns[e].subjaxprs
            if path[k + 1] >= len(subs):
                break
            out.append(path[:k + 1])
            node = subs[path[k + 1]].jaxpr
    return out


def run_order(eqn: Eqn) -> list[int]:
    """The sub-jaxprs of ``eqn`` in the order JAX runs them: a ``while`` tests its cond before
    each run of its body (the tree lists the body first); other equations as listed."""
    subs = eqn.subjaxprs
    if eqn.primitive != "while":
        return list(range(len(subs)))
    conds = [s for s, sub in enumerate(subs) if sub.param.startswith("cond")]
    return conds + [s for s in range(len(subs)) if s not in conds]


def evaluation_order(tree: JaxprNode, values: NodeValues | None = None) -> list[Path]:
    """Equation paths in the order they run: a group's inside before the group's equation,
    a loop's cond before its body (``run_order``). With ``values``, only what ran; a loop
    records one pass of each sub-jaxpr (``api.values.NodeValues.iteration`` says which)."""
    out: list[Path] = []

    def walk(node: JaxprNode, vals: NodeValues | None, path: Path) -> None:
        for e, eqn in enumerate(node.eqns):
            ev = None
            if vals is not None:
                ev = vals.eqns[e] if e < len(vals.eqns) else None
                if ev is None:
                    continue
            for s in run_order(eqn):
                sv = None
                if ev is not None:
                    sv = ev.subs[s] if s < len(ev.subs) else None
                    if sv is None:
                        continue
                walk(eqn.subjaxprs[s].jaxpr, sv, (*path, e, s))
            out.append((*path, e))

    walk(tree, values, ())
    return out


def eqn_label(eqn: Eqn) -> str:
    """``mul 2.0``: the primitive, a call's name, and the literal operands."""
    text = eqn.primitive
    name = eqn.params.get("name")
    if name and eqn.subjaxprs:
        text += f" {name}"
    lits = [v.literal for v in eqn.invars if v.literal is not None]
    if lits:
        text += " " + ", ".join(lits[:3]) + (" …" if len(lits) > 3 else "")
    return text



def types_text(vars_: tuple[Var, ...], limit: int = 48) -> str:
    """The types of ``vars_`` on one line, cut to ``limit`` characters to fit a node."""
    text = " ".join(v.type for v in vars_)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def iter_eqn_paths(tree: JaxprNode, path: Path = ()) -> Iterator[Path]:
    """Every equation path of the tree, depth first in text order."""
    for e, eqn in enumerate(tree.eqns):
        yield (*path, e)
        for s, sub in enumerate(eqn.subjaxprs):
            yield from iter_eqn_paths(sub.jaxpr, (*path, e, s))
