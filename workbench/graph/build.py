"""The whole dataflow graph built from a jaxpr tree: groups, chunks and their coordinates.

``Builder`` walks the tree, one jaxpr instance at a time: an equation becomes a
node, a group expanded becomes a container of one frame per sub-jaxpr (laid out
first, recursively), a level too long is cut into chunks. ``build_graph`` runs it
and numbers what it made into a ``model.DisplayGraph``.
"""

from __future__ import annotations

import gc
from collections.abc import Collection
from typing import Literal

from workbench.api.jaxpr import Eqn, JaxprNode, Var
from workbench.api.values import Path, VarRef, var_refs
from workbench.graph.blocks import Block, Item, Link, layered, shift
from workbench.graph.model import (
    ChunkId,
    DisplayGraph,
    GraphBox,
    GraphNode,
    GroupId,
    IoId,
    LayoutOptions,
    NodeId,
    NodeKind,
    PortId,
    chunk_bounds,
    eqn_label,
    types_text,
)
from workbench.graph.style import family_of


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


class Builder:
    """Makes the items of every jaxpr instance shown; records the groups and chunks on screen
    and how many equations collapsed groups hide."""

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
              line: int | None, instance: Path, h: float, **kw: object) -> Item:
        extra = self.o.toggle_w if kw.get("group") is not None else 0.0
        width_text = kw.pop("width_text", None)
        w = self._width(*((width_text,) if isinstance(width_text, str) else (label, detail)),
                        extra=extra)
        lines = kw.pop("lines", None)
        if lines is None:
            lines = frozenset() if line is None else frozenset((line,))
        node = GraphNode(nid, kind, label, detail, family, line, 0.0, 0.0, w, h,
                         instance=instance, lines=lines, **kw)  # type: ignore[arg-type]
        return Item(w, h, [node], pinned="top" if kind in ("input", "const") else
                     "bottom" if kind == "output" else "")

    def _io_item(self, nid: IoId, kind: NodeKind, var: Var, ref: VarRef | None) -> Item:
        label = var.name or var.literal or "_"
        return self._leaf(nid, kind, label, var.type, "io", None, nid.node, self.o.io_h, ref=ref,
                          width_text=f"{label}: {var.type}")

    # -- containers

    def _container(self, header: GraphNode, frames: list[tuple[str, Block, GroupId]],
                   kind: Literal["group", "chunk"], depth: int) -> Item:
        o = self.o
        sub_h = o.subtitle_h if kind == "group" else 0.0
        widths = [b.w + 2 * o.pad for _, b, _ in frames]
        inner_w = sum(widths) + o.pad * (len(frames) + 1)
        w = max(header.w, inner_w)
        frame_h = max(b.h for _, b, _ in frames) + 2 * o.pad + sub_h
        h = o.header_h + o.pad + frame_h + o.pad
        header.x, header.y, header.w, header.h = 0.0, 0.0, w, o.header_h
        item = Item(w, h, [header])
        item.boxes.append(GraphBox(header.group or (), kind, header.label, 0.0, 0.0, w, h,
                                   depth))
        x = (w - inner_w) / 2 + o.pad
        top = o.header_h + o.pad
        for (title, block, box_id), fw in zip(frames, widths, strict=True):
            if kind == "group":
                item.boxes.append(GraphBox(box_id, "sub", title, x, top, fw, frame_h, depth + 1))
            bx, by = x + o.pad, top + sub_h + o.pad + (frame_h - 2 * o.pad - sub_h - block.h) / 2
            shift(block.nodes, block.edges, block.boxes, bx, by)
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

    def instance(self, node: JaxprNode, path: Path, depth: int) -> Block:
        """The jaxpr ``node`` at tree ``path`` laid out with its input and output nodes."""
        items: list[Item] = []
        links: list[Link] = []
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
        return layered(items, links, in_keys, out_keys, self.o)

    def _link(self, items: list[Item], links: list[Link], src: tuple[int, object], dst: int,
              dst_key: object, var: Var, ref: VarRef | None) -> None:
        si, skey = src
        name = var.name or ""
        for sp in items[si].out_at(skey):
            for dp in items[dst].in_at(dst_key):
                links.append(Link(si, sp, dst, dp, name, var.type, ref))

    def _eqns(self, node: JaxprNode, path: Path, start: int, stop: int, depth: int,
              items: list[Item], links: list[Link], defs: dict[str, tuple[int, object]],
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

    def _eqn_item(self, eqn: Eqn, epath: Path, depth: int, sole: bool) -> Item:
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
                items: list[Item], links: list[Link], defs: dict[str, tuple[int, object]],
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
                     depth: int) -> Block:
        items: list[Item] = []
        links: list[Link] = []
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
        return layered(items, links, in_keys, out_keys, self.o)


def build_graph(tree: JaxprNode, options: LayoutOptions | None = None,
                expanded: Collection[GroupId] = (),
                collapsed: Collection[GroupId] = ()) -> DisplayGraph:
    """Lay out ``tree``; ``expanded``/``collapsed`` override the size rule for those groups."""
    o = options or LayoutOptions()
    b = Builder(tree, o, expanded, collapsed)
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
