"""One level of the dataflow graph laid out: layers, igraph's order, our placement (no Qt).

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

from workbench.api.process_env import MATPLOTLIB_IMPORT
from workbench.graph.model import LayoutOptions

with MATPLOTLIB_IMPORT:  # igraph imports matplotlib.pyplot (for its drawing) as it loads
    import igraph


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
