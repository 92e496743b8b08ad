"""The jaxpr as a dataflow graph: nodes, edges, nested groups and their coordinates (no Qt).

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

Layout, recursive: a group's inside is laid out first and then takes part in
its parent's layout as one big node. Each level is a layered top-to-bottom
layout: layers by longest path from the inputs (then, bottom up, a node moves
down next to its uses when that shortens its edges, and one that depends on
no input, like ``iota`` or a broadcast constant, always does; outputs share
the bottom layer), then igraph's Sugiyama layout for the order within each
layer (barycentre crossing reduction, in C) and the dummy points of long
edges. igraph gives every node the same width; ours differ (a group is a big
box), so its x positions are only the first wish: each layer is placed at the
closest positions to the wishes that keep the real widths apart (least
squares under order constraints, solved exactly by pool-adjacent-violators),
and four sweeps down and up move each node and dummy point under (over) its
neighbours the same way. The order, hence igraph's crossings, is kept.

Why igraph (``benchmarks/graph_latency.py``: synthetic jaxprs with realistic
fan-in and fan-out, one operand in ten from far back; the same flat graph and
the same layers for each; medians on a 2-core container; |dx| is the mean
horizontal run of an edge segment in node spacings, lower is straighter):

    | equations | layout                          | time    | crossings | |dx|  |
    |       300 | igraph 1.0.0 (C)                |  4.6 ms |       381 |  2.76 |
    |       300 | grandalf 0.8 (pure Python)      |  125 ms |       237 |  1.32 |
    |       300 | igraph order + our placement    |  9.9 ms |       381 |  0.47 |
    |     3,000 | igraph 1.0.0                    |  240 ms |    38,534 | 44.1  |
    |     3,000 | grandalf 0.8                    |  30.0 s |    22,170 |  4.85 |
    |     3,000 | igraph order + our placement    |  542 ms |    38,534 |  0.80 |

grandalf finds 40% fewer crossings but is 27-125x slower: alone it takes 20
times the 1.5 s budget at 3,000 equations. igraph's order with our placement
is both fast and the straightest. Graphviz ``dot`` needs a system package.
The widget (offscreen, with sub-jaxpr groups): layout + first paint 23 ms for
300 equations, 344 ms for 3,000 (targets 150 ms, 1.5 s); pan/zoom of 3,000
nodes 255 fps fitted, 96 fps at 1:1 with text (target 30); an unrolled loop
of 100,000 equations 0.3 s (100 chunks).
"""

from __future__ import annotations

import bisect
import gc
import math
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

import igraph
import numpy as np

from workbench.api.jaxpr import Eqn, JaxprNode, Var
from workbench.api.values import NodeValues, Path, VarRef, steps, var_refs
from workbench.plots.graph_style import family_of


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


def evaluation_order(tree: JaxprNode, values: NodeValues | None = None) -> list[Path]:
    """Equation paths in the order they run: a group's inside before the group's equation.
    With ``values``, only what ran (``api.values.steps``)."""
    if values is not None:
        return list(steps(tree, values))
    out: list[Path] = []

    def walk(node: JaxprNode, path: Path) -> None:
        for e, eqn in enumerate(node.eqns):
            for s, sub in enumerate(eqn.subjaxprs):
                walk(sub.jaxpr, (*path, e, s))
            out.append((*path, e))

    walk(tree, ())
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
    text = " ".join(v.type for v in vars_)
    return text if len(text) <= limit else text[:limit - 1] + "…"


# --------------------------------------------------------------------------- building


@dataclass
class _Item:
    """One node of a level's layered layout: a plain node or a whole expanded group."""

    w: float
    h: float
    nodes: list[GraphNode]
    edges: list[GraphEdge] = field(default_factory=list)
    boxes: list[GraphBox] = field(default_factory=list)
    in_ports: dict[object, list[tuple[float, float]]] = field(default_factory=dict)
    out_ports: dict[object, list[tuple[float, float]]] = field(default_factory=dict)
    pinned: Literal["top", "bottom", ""] = ""

    def in_at(self, key: object) -> list[tuple[float, float]]:
        return self.in_ports.get(key) or [(self.w / 2, 0.0)]

    def out_at(self, key: object) -> list[tuple[float, float]]:
        return self.out_ports.get(key) or [(self.w / 2, self.h)]


@dataclass
class _Link:
    src: int
    src_port: tuple[float, float]
    dst: int
    dst_port: tuple[float, float]
    name: str
    type: str
    ref: VarRef | None


@dataclass
class _Block:
    w: float
    h: float
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    boxes: list[GraphBox]
    in_ports: dict[object, tuple[float, float]]   # key -> top centre of the inner input node
    out_ports: dict[object, tuple[float, float]]  # key -> bottom centre of the inner output


def _shift(nodes: list[GraphNode], edges: list[GraphEdge], boxes: list[GraphBox],
           dx: float, dy: float) -> None:
    for n in nodes:
        n.x += dx
        n.y += dy
    for ed in edges:
        ed.points += (dx, dy)
    for b in boxes:
        b.x += dx
        b.y += dy


def _invar_map(eqn: Eqn, s: int) -> dict[int, int]:
    """Outer operand index -> sub-jaxpr ``s``'s invar index, where the binding is known."""
    inner = len(eqn.subjaxprs[s].jaxpr.invars)
    outer = len(eqn.invars)
    if eqn.primitive == "while":
        try:
            cn, bn = int(eqn.params.get("cond_nconsts", "")), int(eqn.params.get("body_nconsts",
                                                                                  ""))
        except ValueError:
            return {}
        carry = range(cn + bn, outer)
        if eqn.subjaxprs[s].param.startswith("cond"):
            m = {j: j for j in range(cn)} | {j: j - bn for j in carry}
        else:
            m = {j: j - cn for j in range(cn, cn + bn)} | {j: j - cn for j in carry}
        return {j: k for j, k in m.items() if 0 <= k < inner}
    if eqn.primitive == "cond" and outer == inner + 1:
        return {j: j - 1 for j in range(1, outer)}
    if inner == outer:
        return {j: j for j in range(outer)}
    return {}


class _Builder:
    def __init__(self, tree: JaxprNode, options: LayoutOptions,
                 expanded: Collection[GroupId], collapsed: Collection[GroupId]) -> None:
        self.tree = tree
        self.o = options
        self.expanded = set(expanded)
        self.collapsed = set(collapsed)
        self.groups: dict[GroupId, tuple[int, bool]] = {}
        self.chunks: dict[Path, list[ChunkId]] = {}
        self.hidden = 0
        self._deep_memo: dict[int, tuple[int, frozenset[int]]] = {}

    # -- sizes and labels

    def _width(self, *texts: str, extra: float = 0.0) -> float:
        measure = self.o.text_width
        if measure is not None:
            text_w = max((measure(t) for t in texts), default=0.0)
        else:
            text_w = max((len(t) for t in texts), default=0) * self.o.char_w
        w = text_w + 2 * self.o.text_pad + extra
        return min(self.o.max_w, max(self.o.min_w, w))

    def _deep(self, node: JaxprNode) -> tuple[int, frozenset[int]]:
        """Equations at every depth under ``node`` and their editor lines."""
        hit = self._deep_memo.get(id(node))
        if hit is not None:
            return hit
        count = 0
        lines: set[int] = set()
        for eqn in node.eqns:
            count += 1
            if eqn.line is not None:
                lines.add(eqn.line)
            for sub in eqn.subjaxprs:
                c, ls = self._deep(sub.jaxpr)
                count += c
                lines |= ls
        out = (count, frozenset(lines))
        self._deep_memo[id(node)] = out
        return out

    def _is_expanded(self, gid: GroupId, size: int, sole: bool, control: bool = True) -> bool:
        if gid in self.expanded:
            return True
        if gid in self.collapsed or isinstance(gid, ChunkId) or not control:
            return False
        return size <= self.o.threshold or sole

    def _leaf(self, nid: NodeId, kind: NodeKind, label: str, detail: str, family: str,
              line: int | None, instance: Path, h: float, **kw: object) -> _Item:
        extra = self.o.toggle_w if kw.get("group") is not None else 0.0
        width_text = kw.pop("width_text", None)
        w = self._width(*((width_text,) if isinstance(width_text, str) else (label, detail)),
                        extra=extra)
        lines = kw.pop("lines", None)
        if lines is None:
            lines = frozenset() if line is None else frozenset((line,))
        node = GraphNode(nid, kind, label, detail, family, line, 0.0, 0.0, w, h,
                         instance=instance, lines=lines, **kw)  # type: ignore[arg-type]
        return _Item(w, h, [node], pinned="top" if kind in ("input", "const") else
                     "bottom" if kind == "output" else "")

    def _io_item(self, nid: IoId, kind: NodeKind, var: Var, ref: VarRef | None) -> _Item:
        label = var.name or var.literal or "_"
        return self._leaf(nid, kind, label, var.type, "io", None, nid.node, self.o.io_h, ref=ref,
                          width_text=f"{label}: {var.type}")

    # -- containers

    def _container(self, header: GraphNode, frames: list[tuple[str, _Block, GroupId]],
                   kind: Literal["group", "chunk"], depth: int) -> _Item:
        o = self.o
        sub_h = o.subtitle_h if kind == "group" else 0.0
        widths = [b.w + 2 * o.pad for _, b, _ in frames]
        inner_w = sum(widths) + o.pad * (len(frames) + 1)
        w = max(header.w, inner_w)
        frame_h = max(b.h for _, b, _ in frames) + 2 * o.pad + sub_h
        h = o.header_h + o.pad + frame_h + o.pad
        header.x, header.y, header.w, header.h = 0.0, 0.0, w, o.header_h
        item = _Item(w, h, [header])
        item.boxes.append(GraphBox(header.group or (), kind, header.label, 0.0, 0.0, w, h,
                                   depth))
        x = (w - inner_w) / 2 + o.pad
        top = o.header_h + o.pad
        for (title, block, box_id), fw in zip(frames, widths, strict=True):
            if kind == "group":
                item.boxes.append(GraphBox(box_id, "sub", title, x, top, fw, frame_h, depth + 1))
            bx, by = x + o.pad, top + sub_h + o.pad + (frame_h - 2 * o.pad - sub_h - block.h) / 2
            _shift(block.nodes, block.edges, block.boxes, bx, by)
            item.nodes.extend(block.nodes)
            item.edges.extend(block.edges)
            item.boxes.extend(block.boxes)
            for key, (px, py) in block.in_ports.items():
                item.in_ports.setdefault((box_id, key), []).append((px + bx, py + by))
            for key, (px, py) in block.out_ports.items():
                item.out_ports.setdefault((box_id, key), []).append((px + bx, py + by))
            x += fw + o.pad
        return item

    # -- one jaxpr instance

    def instance(self, node: JaxprNode, path: Path, depth: int) -> _Block:
        items: list[_Item] = []
        links: list[_Link] = []
        defs: dict[str, tuple[int, object]] = {}
        in_keys: dict[object, int] = {}
        for i, v in enumerate(node.constvars):
            ref = VarRef(path, None, i, True)
            items.append(self._io_item(IoId("const", path, i), "const", v, ref))
            if v.name:
                defs[v.name] = (len(items) - 1, None)
        for i, v in enumerate(node.invars):
            ref = VarRef(path, None, i)
            items.append(self._io_item(IoId("in", path, i), "input", v, ref))
            in_keys[i] = len(items) - 1
            if v.name:
                defs[v.name] = (len(items) - 1, None)
        refs = var_refs(node, path)
        bounds = chunk_bounds(len(node.eqns), self.o)
        if len(bounds) == 1:
            self._eqns(node, path, 0, len(node.eqns), depth, items, links, defs, refs)
        else:
            self._chunks(node, path, bounds, depth, items, links, defs, refs)
        out_keys: dict[object, int] = {}
        for i, v in enumerate(node.outvars):
            out_ref = refs.get(v.name) if v.name else None
            items.append(self._io_item(IoId("out", path, i), "output", v, out_ref))
            out_keys[i] = len(items) - 1
            if v.name and v.name in defs:
                self._link(items, links, defs[v.name], len(items) - 1, None, v, out_ref)
        return self._layered(items, links, in_keys, out_keys)

    def _link(self, items: list[_Item], links: list[_Link], src: tuple[int, object], dst: int,
              dst_key: object, var: Var, ref: VarRef | None) -> None:
        si, skey = src
        name = var.name or ""
        for sp in items[si].out_at(skey):
            for dp in items[dst].in_at(dst_key):
                links.append(_Link(si, sp, dst, dp, name, var.type, ref))

    def _eqns(self, node: JaxprNode, path: Path, start: int, stop: int, depth: int,
              items: list[_Item], links: list[_Link], defs: dict[str, tuple[int, object]],
              refs: dict[str, VarRef]) -> None:
        sole = len(node.eqns) == 1
        for e in range(start, stop):
            eqn = node.eqns[e]
            epath = (*path, e)
            item = self._eqn_item(eqn, epath, depth, sole)
            items.append(item)
            me = len(items) - 1
            expanded = item.nodes[0].expanded
            for j, v in enumerate(eqn.invars):
                if v.name is None or v.name not in defs:
                    continue
                if expanded:
                    keys: list[object] = [((*epath, s), k) for s in range(len(eqn.subjaxprs))
                                          for jj, k in _invar_map(eqn, s).items() if jj == j]
                else:
                    keys = []
                for key in keys or [None]:
                    self._link(items, links, defs[v.name], me, key, v, refs.get(v.name))
            for j, v in enumerate(eqn.outvars):
                if v.name and v.name != "_":
                    if expanded:
                        ports = [p for s, sub in enumerate(eqn.subjaxprs)
                                 if len(sub.jaxpr.outvars) == len(eqn.outvars)
                                 for p in item.out_ports.get(((*epath, s), j), [])]
                        item.out_ports[("eqn", j)] = ports
                    defs[v.name] = (me, ("eqn", j))

    def _eqn_item(self, eqn: Eqn, epath: Path, depth: int, sole: bool) -> _Item:
        label = eqn_label(eqn)
        detail = types_text(eqn.outvars)
        family = family_of(eqn.primitive)
        instance = epath[:-1]
        if not eqn.subjaxprs:
            return self._leaf(epath, "eqn", label, detail, family, eqn.line, instance,
                              self.o.node_h + self.o.values_h, eqn=eqn)
        size = sum(len(s.jaxpr.eqns) for s in eqn.subjaxprs)
        expanded = self._is_expanded(epath, size, sole, family == "control flow")
        self.groups[epath] = (size, expanded)
        if not expanded:
            deep_lines = set() if eqn.line is None else {eqn.line}
            count = 0
            for sub in eqn.subjaxprs:
                c, ls = self._deep(sub.jaxpr)
                count += c
                deep_lines |= ls
            self.hidden += count
            return self._leaf(epath, "eqn", label, detail, family, eqn.line, instance,
                              self.o.node_h + self.o.values_h, eqn=eqn, group=epath, size=size,
                              lines=frozenset(deep_lines))
        frames = [(sub.param, self.instance(sub.jaxpr, (*epath, s), depth + 1), (*epath, s))
                  for s, sub in enumerate(eqn.subjaxprs)]
        header = GraphNode(epath, "eqn", label, detail, family, eqn.line, 0, 0,
                           self._width(label + "  " + detail, extra=self.o.toggle_w), 0,
                           instance=instance, group=epath, expanded=True, eqn=eqn, size=size,
                           lines=frozenset() if eqn.line is None else frozenset((eqn.line,)))
        return self._container(header, frames, "group", depth)  # type: ignore[arg-type]

    # -- chunks of a long level

    def _chunks(self, node: JaxprNode, path: Path, bounds: list[tuple[int, int]], depth: int,
                items: list[_Item], links: list[_Link], defs: dict[str, tuple[int, object]],
                refs: dict[str, VarRef]) -> None:
        n = len(node.eqns)
        def_at: dict[str, int] = {}
        last_use: dict[str, int] = {}
        types: dict[str, Var] = {}
        for e, eqn in enumerate(node.eqns):
            for v in eqn.invars:
                if v.name is not None:
                    last_use[v.name] = e
                    types.setdefault(v.name, v)
            for v in eqn.outvars:
                if v.name and v.name != "_":
                    def_at[v.name] = e
                    types[v.name] = v
        for v in node.outvars:
            if v.name:
                last_use[v.name] = n
        ids = [ChunkId(path, s, t) for s, t in bounds]
        self.chunks[path] = ids
        for cid in ids:
            used: dict[str, None] = {}
            for e in range(cid.start, cid.stop):
                for v in node.eqns[e].invars:
                    if v.name is not None and not cid.start <= def_at.get(v.name, -1) < cid.stop:
                        used[v.name] = None
            exports = [v.name for e in range(cid.start, cid.stop) for v in node.eqns[e].outvars
                       if v.name and v.name != "_" and last_use.get(v.name, -1) >= cid.stop]
            size = cid.stop - cid.start
            expanded = self._is_expanded(cid, size, False)
            self.groups[cid] = (size, expanded)
            label = f"equations {cid.start}–{cid.stop - 1}"
            detail = f"{size:,} equations"
            if expanded:
                block = self._chunk_block(node, path, cid, list(used), exports, types, refs,
                                          depth + 1)
                header = GraphNode(cid, "chunk", label, detail, "other", None, 0, 0,
                                   self._width(label + "  " + detail, extra=self.o.toggle_w), 0,
                                   instance=path, group=cid, expanded=True, size=size)
                item = self._container(header, [("", block, cid)], "chunk", depth)
                item.in_ports = {name: item.in_ports.get((cid, name), []) for name in used}
                item.out_ports = {name: item.out_ports.get((cid, name), []) for name in exports}
            else:
                lines: set[int] = set()
                for e in range(cid.start, cid.stop):
                    eqn = node.eqns[e]
                    if eqn.line is not None:
                        lines.add(eqn.line)
                    for sub in eqn.subjaxprs:
                        c, ls = self._deep(sub.jaxpr)
                        self.hidden += c
                        lines |= ls
                self.hidden += size
                item = self._leaf(cid, "chunk", label, detail, "other", None, path,
                                  self.o.node_h + self.o.values_h, group=cid, size=size,
                                  lines=frozenset(lines))
            items.append(item)
            me = len(items) - 1
            for name in used:
                if name in defs:
                    self._link(items, links, defs[name], me, name, types[name], refs.get(name))
            for name in exports:
                defs[name] = (me, name)

    def _chunk_block(self, node: JaxprNode, path: Path, cid: ChunkId, used: list[str],
                     exports: list[str], types: dict[str, Var], refs: dict[str, VarRef],
                     depth: int) -> _Block:
        items: list[_Item] = []
        links: list[_Link] = []
        defs: dict[str, tuple[int, object]] = {}
        in_keys: dict[object, int] = {}
        for name in used:
            items.append(self._leaf(PortId(cid, name, False), "port", name, types[name].type,
                                    "io", None, path, self.o.io_h, ref=refs.get(name),
                                    width_text=f"{name}: {types[name].type}"))
            items[-1].pinned = "top"
            in_keys[name] = len(items) - 1
            defs[name] = (len(items) - 1, None)
        self._eqns(node, path, cid.start, cid.stop, depth, items, links, defs, refs)
        out_keys: dict[object, int] = {}
        for name in exports:
            items.append(self._leaf(PortId(cid, name, True), "port", name, types[name].type,
                                    "io", None, path, self.o.io_h, ref=refs.get(name),
                                    width_text=f"{name}: {types[name].type}"))
            items[-1].pinned = "bottom"
            out_keys[name] = len(items) - 1
            self._link(items, links, defs[name], len(items) - 1, None, types[name],
                       refs.get(name))
        return self._layered(items, links, in_keys, out_keys)

    # -- one level: layers, igraph's order, our placement

    def _layered(self, items: list[_Item], links: list[_Link], in_keys: dict[object, int],
                 out_keys: dict[object, int]) -> _Block:
        o = self.o
        n = len(items)
        layer = assign_layers(n, [(lk.src, lk.dst) for lk in links], [it.pinned for it in items])
        xs, routes = igraph_order(n, [(lk.src, lk.dst) for lk in links], layer, o.maxiter)
        nlayers = max(layer) + 1 if n else 0
        centre_x, dummy_xs = place_layers(
            [it.w for it in items], layer,
            [(lk.src, lk.src_port[0] - items[lk.src].w / 2, lk.dst,
              lk.dst_port[0] - items[lk.dst].w / 2) for lk in links], xs, routes, o)
        dummy_x = {(li, k): x for li, xs_ in enumerate(dummy_xs) for k, x in enumerate(xs_)}
        band_h = [0.0] * nlayers
        for i, it in enumerate(items):
            band_h[layer[i]] = max(band_h[layer[i]], it.h)
        band_top = [0.0] * nlayers
        y = 0.0
        for li in range(nlayers):
            band_top[li] = y
            y += band_h[li] + o.vgap
        height = max(0.0, y - o.vgap)
        left = min([centre_x[i] - items[i].w / 2 for i in range(n)] + list(dummy_x.values()),
                   default=0.0)
        right = max([centre_x[i] + items[i].w / 2 for i in range(n)] + list(dummy_x.values()),
                    default=0.0)
        nodes: list[GraphNode] = []
        edges: list[GraphEdge] = []
        boxes: list[GraphBox] = []
        pos: list[tuple[float, float]] = []
        for i, it in enumerate(items):
            x0 = centre_x[i] - it.w / 2 - left
            y0 = band_top[layer[i]] + (band_h[layer[i]] - it.h) / 2
            pos.append((x0, y0))
            _shift(it.nodes, it.edges, it.boxes, x0, y0)
            nodes.extend(it.nodes)
            edges.extend(it.edges)
            boxes.extend(it.boxes)
        for li, lk in enumerate(links):
            sx, sy = pos[lk.src]
            dx, dy = pos[lk.dst]
            src_it, dst_it = items[lk.src], items[lk.dst]
            pts = [(sx + lk.src_port[0], sy + lk.src_port[1])]
            if lk.src_port[1] < src_it.h:
                pts.append((sx + lk.src_port[0], sy + src_it.h))
            for k, (_, ry) in enumerate(routes[li]):
                band = int(round(ry))
                cx = dummy_x[(li, k)] - left
                pts.append((cx, band_top[band]))
                pts.append((cx, band_top[band] + band_h[band]))
            if lk.dst_port[1] > 0:
                pts.append((dx + lk.dst_port[0], dy))
            pts.append((dx + lk.dst_port[0], dy + lk.dst_port[1]))
            src_node = _port_node(src_it, lk.src_port, bottom=True)
            dst_node = _port_node(dst_it, lk.dst_port, bottom=False)
            # Ends are node objects' ids until build_graph numbers the nodes.
            edges.append(GraphEdge(id(src_node), id(dst_node), lk.name, lk.type,
                                   lk.ref, np.array(pts, dtype=np.float64)))
        in_ports = {k: (pos[i][0] + items[i].w / 2, pos[i][1]) for k, i in in_keys.items()}
        out_ports = {k: (pos[i][0] + items[i].w / 2, pos[i][1] + items[i].h)
                     for k, i in out_keys.items()}
        return _Block(right - left, height, nodes, edges, boxes, in_ports, out_ports)


def place_layers(widths: list[float], layer: list[int],
                 links: list[tuple[int, float, int, float]], xs: list[float],
                 routes: list[list[tuple[float, float]]],
                 o: LayoutOptions) -> tuple[list[float], list[list[float]]]:
    """Centre x of each item and x of each edge's dummy points, in pixels.

    ``links`` are (source, its port's offset from the source's centre, target, offset);
    ``xs``/``routes`` igraph's order and dummy points (``igraph_order``).
    """
    n = len(widths)
    nlayers = max(layer) + 1 if n else 0
    # Entries: the items, then every dummy point of a long edge; ex is a centre's x.
    ex: list[float] = [x * o.unit for x in xs]
    ew: list[float] = list(widths)
    rows: list[list[int]] = [[] for _ in range(nlayers)]
    for i in range(n):
        rows[layer[i]].append(i)
    # up[e] / down[e]: (neighbour, shift) where x[e] = x[neighbour] + shift draws that
    # edge segment vertically (ports off an item's centre included).
    up: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    down: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    dummy_id: dict[tuple[int, int], int] = {}
    for li, ((a, a_off, b, b_off), route) in enumerate(zip(links, routes, strict=True)):
        for k, (x, yl) in enumerate(route):
            d = len(ex)
            ex.append(x * o.unit)
            ew.append(0.0)
            up.append([])
            down.append([])
            rows[int(round(yl))].append(d)
            dummy_id[(li, k)] = d
            down[a].append((d, -a_off))
            up[d].append((a, a_off))
            a, a_off = d, 0.0
        down[a].append((b, b_off - a_off))
        up[b].append((a, a_off - b_off))
    seps_of: list[list[float]] = []
    for row in rows:
        row.sort(key=lambda e: ex[e])
        seps = []
        for a, b in zip(row, row[1:], strict=False):
            wa, wb = ew[a], ew[b]
            gap = o.hgap if wa and wb else o.dummy_gap if not (wa or wb) \
                else (o.hgap + o.dummy_gap) / 2
            seps.append((wa + wb) / 2 + gap)
        seps_of.append(seps)
        for e, x in zip(row, place_row([ex[e] for e in row], seps), strict=True):
            ex[e] = x
    # igraph's x are only wishes; sweeps down and up pull each entry under (over) its
    # neighbours, keeping igraph's order (so its crossings) and the widths apart.
    for sweep in range(o.sweeps):
        nbrs, order = (up, range(1, nlayers)) if sweep % 2 == 0 else \
            (down, range(nlayers - 2, -1, -1))
        for li in order:
            row = rows[li]
            wishes = []
            for e in row:
                near = nbrs[e]
                wishes.append(sum(ex[nb] + shift for nb, shift in near) / len(near)
                              if near else ex[e])
            for e, x in zip(row, place_row(wishes, seps_of[li]), strict=True):
                ex[e] = x
    return ex[:n], [[ex[dummy_id[(li, k)]] for k in range(len(r))]
                    for li, r in enumerate(routes)]


def _port_node(item: _Item, port: tuple[float, float], bottom: bool) -> GraphNode:
    """The node of ``item`` an edge end at ``port`` (item coordinates, already shifted) touches:
    the inner input/output node under it, else the item's first node (header or leaf)."""
    if len(item.nodes) == 1:
        return item.nodes[0]
    x0, y0 = item.nodes[0].x, item.nodes[0].y  # the header sits at the item's corner
    px, py = x0 + port[0], y0 + port[1]
    for nd in item.nodes[1:]:
        if nd.kind in ("input", "const", "output", "port") and nd.x <= px <= nd.x + nd.w and \
                abs((nd.y + nd.h if bottom else nd.y) - py) < 0.5:
            return nd
    return item.nodes[0]


def assign_layers(n: int, edges: list[tuple[int, int]], pinned: list[str]) -> list[int]:
    """Layer of each item (items come in topological order, as a jaxpr's equations do).

    Longest path from the top; then, bottom up, a node moves down next to its first use when
    that shortens the edges drawn (more uses than operands) or when it depends on no pinned
    input at all (``iota``, a broadcast constant); outputs share the bottom layer; empty
    layers are closed up.
    """
    preds: list[list[int]] = [[] for _ in range(n)]
    succs: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        preds[b].append(a)
        succs[a].append(b)
    layer = [0] * n
    rooted = [False] * n
    for i in range(n):
        if pinned[i] == "top":
            rooted[i] = True
            continue
        if preds[i]:
            layer[i] = max(layer[p] for p in preds[i]) + 1
            rooted[i] = any(rooted[p] for p in preds[i])
    bottom = max((layer[i] for i in range(n) if pinned[i] != "bottom"), default=-1) + 1
    for i in range(n):
        if pinned[i] == "bottom":
            layer[i] = max(bottom, max((layer[p] + 1 for p in preds[i]), default=0))
    for i in range(n - 1, -1, -1):
        if pinned[i] == "" and succs[i] and (not rooted[i] or len(preds[i]) < len(succs[i])):
            layer[i] = max(layer[i], min(layer[s] for s in succs[i]) - 1)
    used = sorted(set(layer))
    renumber = {v: k for k, v in enumerate(used)}
    return [renumber[v] for v in layer]


def igraph_order(n: int, edges: list[tuple[int, int]], layer: list[int],
                  maxiter: int) -> tuple[list[float], list[list[tuple[float, float]]]]:
    """igraph's Sugiyama x for each item and the dummy points (x, layer) of each edge, one for
    every layer an edge passes.

    igraph 1.0.0 returns wrong edge routes (and can crash) for a graph of more than one weakly
    connected component, so each component is laid out alone and they are put side by side.
    """
    xs = [0.0] * n
    routes: list[list[tuple[float, float]]] = [[] for _ in edges]
    if n == 0:
        return xs, routes
    g = igraph.Graph(n=n, edges=edges, directed=True)
    comp_of = g.connected_components(mode="weak").membership
    members: dict[int, list[int]] = {}
    for v, c in enumerate(comp_of):
        members.setdefault(c, []).append(v)
    comp_edges: dict[int, list[int]] = {}
    for k, (a, _) in enumerate(edges):
        comp_edges.setdefault(comp_of[a], []).append(k)
    offset = 0.0
    for c, vs in members.items():
        ks = comp_edges.get(c, [])
        if not ks:
            for v in vs:  # a lone node
                xs[v] = offset
                offset += 1.0
            continue
        if len(members) == 1:
            sub = g
        else:
            local = {v: i for i, v in enumerate(vs)}
            sub = igraph.Graph(n=len(vs), edges=[(local[edges[k][0]], local[edges[k][1]])
                                                 for k in ks], directed=True)
        lay = sub.layout_sugiyama(layers=[layer[v] for v in vs], hgap=1, vgap=1,
                                  maxiter=maxiter)
        cx = [p[0] for p in lay.coords[:len(vs)]]
        all_x = cx + [p[0] for r in lay.edge_routing for p in r]
        lo, hi = min(all_x), max(all_x)
        for v, x in zip(vs, cx, strict=True):
            xs[v] = x + offset - lo
        shift = offset - lo
        for k, route in zip(ks, lay.edge_routing, strict=True):
            a, b = edges[k]
            if len(route) == layer[b] - layer[a] - 1:
                routes[k] = [(p[0] + shift, p[1]) for p in route]
                continue
            # Points at every layer between the ends: igraph skips layers its component lacks.
            known = {layer[a]: xs[a], layer[b]: xs[b]}
            for p in route:
                known[int(round(p[1]))] = p[0] + shift
            keys = sorted(known)
            pts = []
            for li in range(layer[a] + 1, layer[b]):
                if li in known:
                    pts.append((known[li], float(li)))
                    continue
                j = bisect.bisect_left(keys, li)
                l0, l1 = keys[j - 1], keys[j]
                t = (li - l0) / (l1 - l0)
                pts.append((known[l0] + (known[l1] - known[l0]) * t, float(li)))
            routes[k] = pts
        offset += hi - lo + 1.0
    return xs, routes


def place_row(wishes: list[float], seps: list[float]) -> list[float]:
    """Positions in the given order, each at least ``seps[i]`` after the one before, closest to
    ``wishes`` in least squares: x_i = p_i + o_i (o: the separations summed), p non-decreasing,
    so p is the isotonic regression of wish - o (pool adjacent violators)."""
    offs = [0.0]
    for s in seps:
        offs.append(offs[-1] + s)
    vals: list[float] = []
    counts: list[int] = []
    for wish, off in zip(wishes, offs, strict=True):
        v, c = wish - off, 1
        while vals and vals[-1] > v:
            pv, pc = vals.pop(), counts.pop()
            v = (pv * pc + v * c) / (pc + c)
            c += pc
        vals.append(v)
        counts.append(c)
    out: list[float] = []
    k = 0
    for v, c in zip(vals, counts, strict=True):
        for _ in range(c):
            out.append(v + offs[k])
            k += 1
    return out


def build_graph(tree: JaxprNode, options: LayoutOptions | None = None,
                expanded: Collection[GroupId] = (),
                collapsed: Collection[GroupId] = ()) -> DisplayGraph:
    """Lay out ``tree``; ``expanded``/``collapsed`` override the size rule for those groups."""
    o = options or LayoutOptions()
    b = _Builder(tree, o, expanded, collapsed)
    # The layout allocates some 100,000 short-lived objects and no cycles; collections
    # triggered in the middle of it cost a third of its time.
    paused = gc.isenabled()
    gc.disable()
    try:
        block = b.instance(tree, (), 0)
    finally:
        if paused:
            gc.enable()
    nodes = block.nodes
    where = {id(nd): k for k, nd in enumerate(nodes)}
    edges = block.edges
    for ed in edges:
        ed.src, ed.dst = where[ed.src], where[ed.dst]
    index: dict[NodeId, int] = {nd.id: k for k, nd in enumerate(nodes)}
    lines: dict[int, list[int]] = {}
    for k, nd in enumerate(nodes):
        for line in nd.lines:
            lines.setdefault(line, []).append(k)
    boxes = sorted(block.boxes, key=lambda bx: bx.depth)
    return DisplayGraph(tree, o, nodes, edges, boxes, block.w, block.h, index, b.groups,
                        b.chunks, lines, b.hidden)


def iter_eqn_paths(tree: JaxprNode, path: Path = ()) -> Iterator[Path]:
    """Every equation path of the tree, depth first in text order."""
    for e, eqn in enumerate(tree.eqns):
        yield (*path, e)
        for s, sub in enumerate(eqn.subjaxprs):
            yield from iter_eqn_paths(sub.jaxpr, (*path, e, s))
