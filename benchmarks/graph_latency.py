"""How fast is the jaxpr graph? Layout libraries compared, then the widget. Targets: layout +
first paint of 300 equations < 150 ms, of 3,000 < 1.5 s; pan/zoom of 3,000 nodes >= 30 fps.

Synthetic jaxpr trees stand in for programs of that size: elementwise-heavy
like real ones, each operand mostly a recent variable (some from far back, as
parameters used late are), some literals, and about a tenth of the
equations inside jit / cond / scan / while groups.

1. The layout libraries on the same flat graph and the same layers: igraph's
   Sugiyama layout (C) and grandalf's SugiyamaLayout (pure Python); Graphviz
   ``dot`` would need a system package and is left out. Quality: edge
   crossings between adjacent layers, and mean horizontal run per edge segment
   in node spacings (the closest two nodes may come; straighter is better).
   The last row is what the widget draws: igraph's order, then the
   workbench's own placement of real node widths (``place_layers``).
2. The widget, offscreen: ``set_graph`` (layout with igraph) plus a synchronous
   first paint, median of repeats.
3. Pan and zoom of the 3,000-equation graph: zoom steps and drags, each
   followed by a synchronous repaint, zoomed out (all nodes, no text) and at
   1:1 (text drawn).
4. An unrolled loop of 100,000 equations (chunked): set_graph + first paint.

    .venv/bin/python benchmarks/graph_latency.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _util import median_time  # noqa: E402

from workbench.api.jaxpr import Eqn, JaxprNode, SubJaxpr, Var  # noqa: E402

TARGETS_S = {300: 0.150, 3000: 1.5}
FPS_TARGET = 30.0

ELEMENTWISE = ("add", "mul", "sub", "div", "exp", "log", "tanh", "max", "neg", "sqrt", "pow",
               "logistic", "gt", "select_n")
DATA = ("broadcast_in_dim", "reshape", "transpose", "convert_element_type", "slice",
        "squeeze", "concatenate")
REDUCTION = ("reduce_sum", "reduce_max", "argmax")
UNARY = {"exp", "log", "tanh", "neg", "sqrt", "logistic", "broadcast_in_dim", "reshape",
         "transpose", "convert_element_type", "slice", "squeeze", "reduce_sum", "reduce_max",
         "argmax"}


class _Names:
    def __init__(self) -> None:
        self.k = 0

    def new(self) -> Var:
        self.k += 1
        n, s = self.k, ""
        while n:
            n, r = divmod(n - 1, 26)
            s = chr(97 + r) + s
        return Var(name=s, type="f32[128]")


def _operands(avail: list[Var], k: int, rng: random.Random) -> list[Var]:
    out = []
    for _ in range(k):
        if rng.random() < 0.08:
            out.append(Var(literal=f"{rng.randint(1, 9)}.0", type="f32[]"))
        elif rng.random() < 0.1:
            out.append(rng.choice(avail))  # a parameter used late: a long edge
        else:
            back = min(int(rng.expovariate(0.35)), len(avail) - 1)
            out.append(avail[-1 - back])
    return out


def _body(n: int, invars: list[Var], rng: random.Random, groups: bool, line: list[int],
          nouts: int = 1) -> JaxprNode:
    """A jaxpr of about ``n`` equations (counting the ones inside groups) over ``invars``."""
    names = _Names()
    local_in = [names.new() for _ in invars]
    avail = list(local_in)
    eqns: list[Eqn] = []
    count = 0
    while count < n:
        line[0] += 1
        left = n - count
        if groups and left > 30 and rng.random() < 0.012:
            size = rng.randint(6, 24)
            kind = rng.choice(("pjit", "cond", "scan", "while"))
            ins = _operands(avail, rng.randint(1, 3), rng)
            ins = [v for v in ins if v.name] or [avail[-1]]
            if kind == "pjit":
                subs = (SubJaxpr("jaxpr", _body(size, ins, rng, False, line, 1)),)
                params = {"name": f"f{line[0]}"}
                operands = ins
            elif kind == "cond":
                subs = tuple(SubJaxpr(f"branches[{b}]", _body(size // 2, ins, rng, False, line))
                             for b in range(2))
                params = {}
                operands = [avail[-1], *ins]
            elif kind == "scan":
                subs = (SubJaxpr("jaxpr", _body(size, ins, rng, False, line, len(ins))),)
                params = {"length": "10", "num_carry": str(len(ins))}
                operands = ins
            else:
                subs = (SubJaxpr("cond_jaxpr", _body(3, ins, rng, False, line, 1)),
                        SubJaxpr("body_jaxpr", _body(size, ins, rng, False, line, len(ins))))
                params = {"cond_nconsts": "0", "body_nconsts": "0"}
                operands = ins
            nout = len(subs[-1].jaxpr.outvars)
            outs = tuple(names.new() for _ in range(nout))
            eqns.append(Eqn(kind, params, tuple(operands), outs, "bench.py", line[0], subs))
            count += 1 + sum(len(s.jaxpr.eqns) for s in subs)
            avail.extend(outs)
            continue
        r = rng.random()
        prim = (rng.choice(ELEMENTWISE) if r < 0.62 else rng.choice(DATA) if r < 0.84
                else rng.choice(REDUCTION) if r < 0.94 else "dot_general" if r < 0.985
                else "iota")
        k = 0 if prim == "iota" else 1 if prim in UNARY else 3 if prim == "select_n" else 2
        ops = _operands(avail, k, rng)
        out = names.new()
        eqns.append(Eqn(prim, {}, tuple(ops), (out,), "bench.py", line[0]))
        avail.append(out)
        count += 1
    outvars = tuple(avail[-1 - i] for i in range(min(nouts, len(avail))))
    return JaxprNode(tuple(local_in), (), outvars, tuple(eqns))


def synthetic_tree(n: int, seed: int = 0, groups: bool = True) -> JaxprNode:
    """A jaxpr of ``n`` equations at every depth, with four inputs."""
    rng = random.Random(seed)
    return _body(n, [Var("x", "f32[128]")] * 4, rng, groups, [0], nouts=3)


def count_eqns(node: JaxprNode) -> int:
    return sum(1 + sum(count_eqns(s.jaxpr) for s in e.subjaxprs) for e in node.eqns)


# --------------------------------------------------------------------------- 1. libraries


def flat_dag(tree: JaxprNode) -> tuple[int, list[tuple[int, int]], list[str]]:
    """The top level of ``tree`` as items (inputs, equations, outputs) and edges."""
    defs: dict[str, int] = {}
    pinned: list[str] = []
    edges: list[tuple[int, int]] = []
    for v in tree.invars:
        defs[v.name or ""] = len(pinned)
        pinned.append("top")
    for eqn in tree.eqns:
        me = len(pinned)
        pinned.append("")
        for v in eqn.invars:
            if v.name in defs:
                edges.append((defs[v.name], me))
        for v in eqn.outvars:
            defs[v.name or ""] = me
    for v in tree.outvars:
        edges.append((defs[v.name or ""], len(pinned)))
        pinned.append("bottom")
    return len(pinned), sorted(set(edges)), pinned


Chains = list[list[tuple[int, float]]]  # per edge: (layer, x) from source to target


def igraph_chains(n: int, edges: list[tuple[int, int]], layer: list[int]) -> Chains:
    from workbench.graph.layout import igraph_order

    xs, routes = igraph_order(n, edges, layer, maxiter=40)
    return [[(layer[a], xs[a]), *[(int(y), x) for x, y in r], (layer[b], xs[b])]
            for (a, b), r in zip(edges, routes, strict=True)]


def grandalf_chains(n: int, edges: list[tuple[int, int]], layer: list[int]) -> Chains:
    """grandalf's Sugiyama on the same layers (its own ranking replaced by ours)."""
    from grandalf.graphs import Edge, Graph, Vertex
    from grandalf.layouts import Layer, SugiyamaLayout

    class View:
        w, h = 10.0, 10.0
        xy = (0.0, 0.0)

    class FixedLayers(SugiyamaLayout):
        def rank_all(self, roots, optimize=False):  # noqa: ARG002 (grandalf's API)
            self.layers = []
            for v in self.g.sV:
                r = layer[v.data]
                self.grx[v].rank = r
                while len(self.layers) <= r:
                    self.layers.append(Layer([]))
                self.layers[r].append(v)
            self.layers = [lay for lay in self.layers if len(lay)]
            remap = {}
            for k, lay in enumerate(self.layers):
                for v in lay:
                    remap[v] = k
            for v, k in remap.items():
                self.grx[v].rank = k

    vs = [Vertex(i) for i in range(n)]
    for v in vs:
        v.view = View()
    es = [Edge(vs[a], vs[b]) for a, b in edges]
    g = Graph(vs, es)
    xs: dict[int, float] = {}
    dummies: dict[int, list[tuple[int, float]]] = {}
    offset = 0.0
    for comp in g.C:
        sug = FixedLayers(comp)
        sug.xspace = 10
        sug.init_all(roots=[v for v in comp.sV if not v.e_in()], inverted_edges=[])
        sug.draw(3)
        comp_layers = sorted({layer[v.data] for v in comp.sV})
        lo = min(v.view.xy[0] for v in comp.sV)
        hi = offset
        for v in comp.sV:
            xs[v.data] = v.view.xy[0] - lo + offset
            hi = max(hi, xs[v.data])
        for e in comp.sE:
            ctrl = sug.ctrls.get(e, {})
            key = edges.index((e.v[0].data, e.v[1].data))
            dummies[key] = [(comp_layers[r], d.view.xy[0] - lo + offset)
                            for r, d in sorted(ctrl.items()) if d not in (e.v[0], e.v[1])]
        offset = hi + 20.0
    return [[(layer[a], xs[a]), *dummies.get(k, []), (layer[b], xs[b])]
            for k, (a, b) in enumerate(edges)]


def placed_chains(n: int, edges: list[tuple[int, int]], layer: list[int]) -> Chains:
    """igraph's order, then the workbench's own placement (nodes 100 px wide, 4 sweeps)."""
    from workbench.graph.layout import igraph_order, place_layers
    from workbench.graph.model import LayoutOptions

    xs, routes = igraph_order(n, edges, layer, maxiter=40)
    centres, dummies = place_layers([100.0] * n, layer, [(a, 0.0, b, 0.0) for a, b in edges],
                                    xs, routes, LayoutOptions())
    return [[(layer[a], centres[a]), *[(int(y), x) for (_, y), x in zip(r, d, strict=True)],
             (layer[b], centres[b])] for (a, b), r, d in zip(edges, routes, dummies, strict=True)]


def quality(chains: Chains, spacing: float | None = None) -> tuple[int, int, float]:
    """(crossings between adjacent layers, dummy points, mean |dx| per segment in spacings:
    ``spacing`` or the median gap between neighbours in a layer)."""
    import numpy as np

    bands: dict[int, list[tuple[float, float]]] = {}
    per_layer: dict[int, set[float]] = {}
    dummies = 0
    for ch in chains:
        dummies += len(ch) - 2
        for (la, xa), (lb, xb) in zip(ch, ch[1:], strict=False):
            for li in range(la, lb):  # a chain may skip layers nothing occupies
                t0 = (li - la) / (lb - la)
                t1 = (li + 1 - la) / (lb - la)
                bands.setdefault(li, []).append((xa + (xb - xa) * t0, xa + (xb - xa) * t1))
        for li, x in ch:
            per_layer.setdefault(li, set()).add(x)
    crossings = 0
    dx_total, segs = 0.0, 0
    for segments in bands.values():
        a = np.array(segments)
        top, bottom = a[:, 0], a[:, 1]
        s = np.sign(top[:, None] - top[None, :]) * np.sign(bottom[:, None] - bottom[None, :])
        crossings += int((s < 0).sum() // 2)
        dx_total += float(np.abs(bottom - top).sum())
        segs += len(a)
    gaps = [b - a for xs in per_layer.values() for a, b in zip(sorted(xs), sorted(xs)[1:],
                                                              strict=False) if b > a]
    if spacing is None:
        spacing = statistics.median(gaps) if gaps else 1.0
    return crossings, dummies, dx_total / max(segs, 1) / spacing


def compare_libraries(sizes: tuple[int, ...], repeats: int) -> None:
    from workbench.graph.layout import assign_layers

    print("## Layout libraries: the same flat graph, the same layers (the workbench's own")
    print("## placement on igraph's order, as the widget uses it, in the last row)")
    print("| equations | library | layout (median) | crossings "
          "| mean |dx| per segment (node spacings) |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for n in sizes:
        tree = synthetic_tree(n, seed=1, groups=False)
        items, edges, pinned = flat_dag(tree)
        layer = assign_layers(items, edges, pinned)
        runs: dict[str, Callable[[], Chains]] = {
            "igraph 1.0.0 (C)": lambda n=items, e=edges, la=layer: igraph_chains(n, e, la),
            "grandalf 0.8 (Python)": lambda n=items, e=edges, la=layer: grandalf_chains(n, e, la),
            "igraph order + workbench placement": lambda n=items, e=edges, la=layer:
                placed_chains(n, e, la),
        }
        for name, fn in runs.items():
            reps = repeats if "igraph" in name or n <= 300 else 1
            t = median_time(fn, repeats=reps, warmup=1 if reps > 1 else 0)
            # The closest two nodes' centres may come: igraph's hgap 1; grandalf's node width
            # 10 plus xspace 10; the workbench's 100 px node plus its 22 px gap.
            spacing = 1.0 if name.startswith("igraph 1") else 122.0 if "workbench" in name \
                else 20.0
            c, _, dx = quality(fn(), spacing)
            print(f"| {n:,} | {name} | {t * 1e3:,.1f} ms | {c:,} | {dx:.2f} |")
    print()


# --------------------------------------------------------------------------- 2-4. widget


def widget_timings(sizes: tuple[int, ...], repeats: int, frames: int) -> None:
    from PySide6.QtWidgets import QApplication

    from workbench.graph.build import build_graph
    from workbench.graph.model import LayoutOptions
    from workbench.plots.graph_view import JaxprGraphView

    app = QApplication.instance() or QApplication(sys.argv[:1])
    view = JaxprGraphView()
    view.resize(1200, 800)
    view.show()
    app.processEvents()

    print("## The widget (offscreen, 1200 x 800)")
    print("| equations | nodes drawn | layout alone | set_graph + first paint (median) "
          "| target | ratio to target |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    trees = {n: synthetic_tree(n, seed=2) for n in sizes}
    for n, tree in trees.items():
        def first_paint(tree: JaxprNode = tree) -> None:
            view.set_graph(tree)
            view.canvas.viewport().repaint()

        t_layout = median_time(lambda tree=tree: build_graph(tree, LayoutOptions()),
                               repeats=repeats, warmup=1)
        t = median_time(first_paint, repeats=repeats, warmup=1)
        g = view.graph
        assert g is not None
        target = TARGETS_S.get(n, TARGETS_S[3000] * n / 3000)
        print(f"| {count_eqns(tree):,} | {len(g.nodes):,} | {t_layout * 1e3:,.0f} ms "
              f"| {t * 1e3:,.0f} ms | {target * 1e3:,.0f} ms | {t / target:.2f} |")
    print()

    big = trees[max(trees)]
    view.set_graph(big)
    app.processEvents()
    g = view.graph
    assert g is not None
    print(f"## Pan and zoom, {count_eqns(big):,} equations ({len(g.nodes):,} nodes, "
          f"{len(g.edges):,} edges), {frames} frames each, synchronous repaints")
    print("| view | median frame | p90 frame | fps (median) | target | ratio fps/target |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    vp = view.canvas.viewport()
    for label, setup in (("fitted: all nodes, no text", view.fit),
                         ("1:1 around the middle: text drawn", lambda: _one_to_one(view))):
        setup()
        app.processEvents()
        samples = []
        centre = vp.rect().center()
        for i in range(frames):
            t0 = time.perf_counter()
            if i % 3 == 0:
                view.zoom_by(1.1 if i % 6 == 0 else 1 / 1.1, centre)
            else:
                bar = view.canvas.horizontalScrollBar() if i % 3 == 1 else \
                    view.canvas.verticalScrollBar()
                bar.setValue(bar.value() + (15 if i % 2 else -15))
            vp.repaint()
            samples.append(time.perf_counter() - t0)
        med = statistics.median(samples)
        p90 = statistics.quantiles(samples, n=10)[-1]
        print(f"| {label} | {med * 1e3:.1f} ms | {p90 * 1e3:.1f} ms | {1 / med:.0f} "
              f"| {FPS_TARGET:.0f} | {1 / med / FPS_TARGET:.1f} |")
    print()

    huge = JaxprNode((Var("a", "f32[]"),), (), (Var("z", "f32[]"),),
                     tuple(Eqn("add", {}, (Var("a" if i == 0 else f"v{i - 1}", "f32[]"),
                                           Var(literal="1.0", type="f32[]")),
                               (Var("z" if i == 99_999 else f"v{i}", "f32[]"),), "loop.py", 3)
                           for i in range(100_000)))

    def huge_paint() -> None:
        view.set_graph(huge)
        vp.repaint()

    t = median_time(huge_paint, repeats=3, warmup=1)
    g = view.graph
    assert g is not None
    print(f"## An unrolled loop of 100,000 equations: {len(g.nodes)} nodes drawn "
          f"({g.hidden:,} equations inside collapsed chunks); set_graph + first paint "
          f"{t * 1e3:.0f} ms")
    view.close()


def _one_to_one(view) -> None:  # noqa: ANN001
    g = view.graph
    view.fit()
    view.zoom_by(1.0 / view.zoom())
    mid = g.nodes[len(g.nodes) // 2]
    view.canvas.centerOn(mid.x, mid.y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, no grandalf at 3k")
    args = parser.parse_args()
    repeats = 3 if args.quick else 7
    compare_libraries((300,) if args.quick else (300, 3000), repeats)
    widget_timings((300, 3000), repeats, frames=30 if args.quick else 90)


if __name__ == "__main__":
    main()
