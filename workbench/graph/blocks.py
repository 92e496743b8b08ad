"""The pieces a level is laid out from: items (a node or a whole expanded group) and links,
and ``layered``, which places them in layers and routes the links (no Qt).

``build.Builder`` makes the items of one jaxpr instance and hands them here; an
expanded group's inside is a ``Block`` that becomes one big item of its parent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from workbench.api.values import VarRef
from workbench.graph.layout import assign_layers, igraph_order, place_layers
from workbench.graph.model import GraphBox, GraphEdge, GraphNode, LayoutOptions


@dataclass
class Item:
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
        """Where an edge for ``key`` enters: its inner input nodes, else the top centre."""
        return self.in_ports.get(key) or [(self.w / 2, 0.0)]

    def out_at(self, key: object) -> list[tuple[float, float]]:
        """Where an edge for ``key`` leaves: its inner output nodes, else the bottom centre."""
        return self.out_ports.get(key) or [(self.w / 2, self.h)]


@dataclass
class Link:
    """A variable from item ``src`` to item ``dst``, between two ports (item coordinates)."""

    src: int
    src_port: tuple[float, float]
    dst: int
    dst_port: tuple[float, float]
    name: str
    type: str
    ref: VarRef | None


@dataclass
class Block:
    """A jaxpr instance laid out: its nodes, edges and boxes from (0, 0), and its ports."""

    w: float
    h: float
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    boxes: list[GraphBox]
    in_ports: dict[object, tuple[float, float]]   # key -> top centre of the inner input node
    out_ports: dict[object, tuple[float, float]]  # key -> bottom centre of the inner output


def shift(nodes: list[GraphNode], edges: list[GraphEdge], boxes: list[GraphBox],
          dx: float, dy: float) -> None:
    """Move nodes, edges and boxes by (``dx``, ``dy``): a laid-out inside put in its place."""
    for n in nodes:
        n.x += dx
        n.y += dy
    for ed in edges:
        ed.points += (dx, dy)
    for b in boxes:
        b.x += dx
        b.y += dy


def port_node(item: Item, port: tuple[float, float], bottom: bool) -> GraphNode:
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


def layered(items: list[Item], links: list[Link], in_keys: dict[object, int],
            out_keys: dict[object, int], o: LayoutOptions) -> Block:
    """Lay out one level: layers, igraph's order, our placement; then each item is moved to
    its place and each link routed through its dummy points. ``in_keys``/``out_keys`` name
    the items whose top (bottom) centre is a port of the block made."""
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
        shift(it.nodes, it.edges, it.boxes, x0, y0)
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
        src_node = port_node(src_it, lk.src_port, bottom=True)
        dst_node = port_node(dst_it, lk.dst_port, bottom=False)
        # Ends are node objects' ids until build_graph numbers the nodes.
        edges.append(GraphEdge(id(src_node), id(dst_node), lk.name, lk.type,
                               lk.ref, np.array(pts, dtype=np.float64)))
    in_ports = {k: (pos[i][0] + items[i].w / 2, pos[i][1]) for k, i in in_keys.items()}
    out_ports = {k: (pos[i][0] + items[i].w / 2, pos[i][1] + items[i].h)
                 for k, i in out_keys.items()}
    return Block(right - left, height, nodes, edges, boxes, in_ports, out_ports)
