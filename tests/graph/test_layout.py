"""The dataflow graph of a jaxpr: nodes, edges, groups, chunks and their coordinates."""

from __future__ import annotations

import itertools
import sys

import pytest

from tests.graph.graph_trees import chain, small_tree, traced
from workbench.api.jaxpr import JaxprNode, Var
from workbench.api.values import VarRef, var_refs
from workbench.graph.build import build_graph
from workbench.graph.layout import assign_layers, igraph_order, place_layers, place_row
from workbench.graph.model import (
    ChunkId,
    DisplayGraph,
    IoId,
    LayoutOptions,
    chunk_bounds,
    evaluation_order,
    groups_containing,
    iter_eqn_paths,
)
from workbench.graph.style import FAMILY_COLOURS, family_of
from workbench.plots.palette import OKABE_ITO


@pytest.fixture(scope="module")
def control_flow() -> JaxprNode:
    return traced("control_flow.py", "all_three", "f32[5,3]", ("jit",))


@pytest.fixture(scope="module")
def kmeans() -> JaxprNode:
    return traced("kmeans_step.py", "kmeans_step", "f32[800,2], f32[3,2]", ("jit",))


def overlaps(g: DisplayGraph) -> list[tuple[object, object]]:
    """Pairs of nodes whose rectangles intersect."""
    bad = []
    for a, b in itertools.combinations(g.nodes, 2):
        if a.x < b.x + b.w - 0.01 and b.x < a.x + a.w - 0.01 and \
                a.y < b.y + b.h - 0.01 and b.y < a.y + a.h - 0.01:
            bad.append((a.id, b.id))
    return bad


def test_families_by_name_with_fallbacks():
    assert family_of("add") == "elementwise"
    assert family_of("integer_pow") == "elementwise"
    assert family_of("reduce_sum") == "reduction"
    assert family_of("reduce_whatever_new") == "reduction"
    assert family_of("argmin") == "reduction"
    assert family_of("dot_general") == "linear algebra"
    assert family_of("cholesky") == "linear algebra"
    assert family_of("triangular_solve") == "linear algebra"
    for prim in ("cond", "while", "scan", "pjit", "jit", "custom_jvp_call", "custom_vjp_call",
                 "remat", "checkpoint"):
        assert family_of(prim) == "control flow", prim
    for prim in ("reshape", "broadcast_in_dim", "transpose", "slice", "gather", "scatter-add",
                 "concatenate", "pad", "squeeze", "convert_element_type", "select_n",
                 "dynamic_update_slice"):
        assert family_of(prim) == "data movement", prim
    assert family_of("random_bits") == "other"
    assert FAMILY_COLOURS["elementwise"] == OKABE_ITO[0]  # the palette's hues, without Qt


def test_layout_needs_no_qt():
    import subprocess

    code = ("import sys; import workbench.graph.build as g; "
            "g.build_graph(g.JaxprNode((), (), (), ())); "
            "assert 'PySide6' not in sys.modules and 'jax' not in sys.modules, sys.modules.keys()")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_small_tree_nodes_edges_and_literals():
    g = build_graph(small_tree())
    eqn_ids = {nd.id for nd in g.nodes if nd.kind == "eqn"}
    assert eqn_ids == set(iter_eqn_paths(small_tree()))  # the cond's branches are expanded
    assert g.index[IoId("in", (), 0)] is not None
    assert {nd.id for nd in g.nodes if nd.kind == "output" and nd.instance == ()} == {
        IoId("out", (), 0), IoId("out", (), 1)}
    gt = g.nodes[g.index[(3,)]]
    assert gt.label == "gt 0.0" and gt.detail == "bool[]"  # the literal is in the label
    assert gt.family == "elementwise" and gt.line == 5
    into_gt = [e for e in g.edges if e.dst == g.index[(3,)]]
    assert [e.name for e in into_gt] == ["d"]  # 0.0 is no edge
    # Every variable use is an edge from its definition, named and typed, with its VarRef.
    refs = var_refs(small_tree())
    add = [e for e in g.edges if e.dst == g.index[(6,)]]
    assert sorted(e.name for e in add) == ["a", "g", "g"]  # g comes out of either branch
    a_edge = next(e for e in add if e.name == "a")
    assert a_edge.src == g.index[IoId("in", (), 0)] and a_edge.ref == refs["a"]
    assert a_edge.type == "f32[3]"
    out_d = next(e for e in g.edges if e.dst == g.index[IoId("out", (), 1)])
    assert out_d.src == g.index[(2,)] and out_d.ref == VarRef((), 2, 0)


def test_cond_operands_enter_each_branch_at_its_input():
    g = build_graph(small_tree())
    c_edges = [e for e in g.edges if e.name == "c" and e.ref == VarRef((), 1, 0)]
    targets = {g.nodes[e.dst].id for e in c_edges}
    # c goes to reduce_sum and, as the cond's operand 1, into both branches' inputs.
    assert targets == {(2,), IoId("in", (5, 0), 0), IoId("in", (5, 1), 0)}
    index_edge = next(e for e in g.edges if e.name == "f")
    assert g.nodes[index_edge.dst].id == (5,)  # the branch index goes to the cond's header
    outs = [e for e in g.edges if e.dst == g.index[(6,)] and e.name == "g"]
    assert {g.nodes[e.src].id for e in outs} == {IoId("out", (5, 0), 0), IoId("out", (5, 1), 0)}


def test_geometry_downward_no_overlap_groups_contain_members(control_flow):
    g = build_graph(control_flow)
    assert not overlaps(g)
    for e in g.edges:
        ys = e.points[:, 1]
        assert (ys[1:] >= ys[:-1] - 1e-6).all(), e.name  # top to bottom
        src, dst = g.nodes[e.src], g.nodes[e.dst]
        assert e.points[0][1] >= src.y - 1e-6 and e.points[-1][1] <= dst.y + dst.h + 1e-6
    for box in g.boxes:
        path = box.id
        members = [nd for nd in g.nodes if isinstance(nd.id, tuple) and len(nd.id) > len(path)
                   and nd.id[:len(path)] == path]
        assert members, box
        for nd in members:
            assert box.x - 1e-6 <= nd.x and nd.x + nd.w <= box.x + box.w + 1e-6
            assert box.y - 1e-6 <= nd.y and nd.y + nd.h <= box.y + box.h + 1e-6
    assert g.width > 0 and g.height > 0
    assert all(nd.x >= 0 and nd.x + nd.w <= g.width + 1e-6 for nd in g.nodes)


def test_real_tree_every_equation_a_node_with_its_line(control_flow):
    g = build_graph(control_flow)
    paths = list(iter_eqn_paths(control_flow))
    assert {nd.id for nd in g.nodes if nd.kind == "eqn"} == set(paths)
    assert g.hidden == 0
    scan = g.nodes[g.index[(0, 0, 3)]]
    assert scan.label == "scan" and scan.expanded and scan.group == (0, 0, 3)
    assert {b.title for b in g.boxes if b.kind == "sub"} >= {"body_jaxpr", "cond_jaxpr",
                                                             "branches[0]", "branches[1]"}
    # The while's carry enters its body and its cond at their inputs.
    h_into = {g.nodes[e.dst].id for e in g.edges if e.ref == VarRef((0, 0), 3, 0)}
    assert IoId("in", (0, 0, 4, 0), 0) in h_into and IoId("in", (0, 0, 4, 1), 0) in h_into
    for line, nodes in g.lines.items():
        assert all(line in g.nodes[i].lines for i in nodes)


def test_threshold_collapses_big_groups(control_flow):
    g = build_graph(control_flow, LayoutOptions(threshold=3))
    assert g.groups[(0, 0, 3)] == (2, True)  # scan body: 2 equations
    assert g.groups[(0, 0, 4)] == (11, False)  # while: cond 6 + body 5
    assert (0, 0, 4, 0, 0) not in g.index
    while_node = g.index[(0, 0, 4)]
    assert g.visible_for((0, 0, 4, 0, 3, 1, 0)) == while_node
    assert g.visible_for((0, 0, 3, 0, 1)) == g.index[(0, 0, 3, 0, 1)]
    assert g.hidden == 13  # 11 + the cond's 2 inside the body
    assert {5, 11, 15} <= g.nodes[while_node].lines  # its inside's editor lines
    assert while_node in g.lines[11]
    # The top jit is the function's only equation: expanded whatever its size.
    assert g.groups[(0,)][1]
    # A user's choice beats the rule, both ways.
    g2 = build_graph(control_flow, LayoutOptions(threshold=3), expanded=[(0, 0, 4)],
                     collapsed=[(0, 0, 3)])
    assert g2.groups[(0, 0, 4)][1] and not g2.groups[(0, 0, 3)][1]
    assert (0, 0, 4, 0, 0) in g2.index and (0, 0, 3, 0, 0) not in g2.index
    assert not overlaps(g2)


def test_combiner_jaxprs_start_collapsed(kmeans):
    g = build_graph(kmeans)
    scatters = [gid for gid in g.groups if isinstance(gid, tuple)
                and g.nodes[g.index[gid]].label.startswith("scatter")]
    assert scatters and all(not g.groups[s][1] for s in scatters)
    assert g.groups[(0,)][1]  # the jit body is shown


def test_groups_containing(control_flow):
    opts = LayoutOptions()
    assert groups_containing(control_flow, (0, 0, 4, 0, 3, 1, 0), opts) == [
        (0,), (0, 0, 4), (0, 0, 4, 0, 3)]
    assert groups_containing(control_flow, (0,), opts) == []
    long = chain(10)
    assert groups_containing(long, (7,), LayoutOptions(level_cap=4, chunk_size=3)) == [
        ChunkId((), 6, 9)]


def test_evaluation_order_puts_a_body_before_its_equation():
    order = evaluation_order(small_tree())
    assert order.index((5, 0, 0)) < order.index((5,)) and order.index((5, 1, 0)) < order.index(
        (5,))
    assert order[:5] == [(0,), (1,), (2,), (3,), (4,)] and order[-1] == (6,)


def test_chunks_bound_a_100k_equation_level():
    tree = chain(100_000)
    opts = LayoutOptions()
    g = build_graph(tree, opts)
    bounds = chunk_bounds(100_000, opts)
    assert len(bounds) == 100 and bounds[0] == (0, 1000)
    assert len(g.nodes) == 100 + 2  # the chunks, the input, the output
    assert g.hidden == 100_000
    first = g.nodes[g.index[ChunkId((), 0, 1000)]]
    assert first.label == "equations 0–999" and first.detail == "1,000 equations"
    assert not g.groups[ChunkId((), 0, 1000)][1]
    # One edge between neighbouring chunks: the loop variable leaving one, entering the next.
    between = [e for e in g.edges if e.src == g.index[ChunkId((), 0, 1000)]]
    assert [(e.name, g.nodes[e.dst].id) for e in between] == [("v999", ChunkId((), 1000, 2000))]
    assert g.visible_for((54_321,)) == g.index[ChunkId((), 54_000, 55_000)]
    assert 3 in g.lines and len(g.lines[3]) == 100
    # Expanded, a chunk shows its equations between ports for the variables crossing it.
    g2 = build_graph(tree, opts, expanded=[ChunkId((), 54_000, 55_000)])
    assert len(g2.nodes) == 102 + 1000 + 2
    assert g2.visible_for((54_321,)) == g2.index[(54_321,)]
    port_in = [nd for nd in g2.nodes if nd.kind == "port" and not nd.id.out]
    assert [nd.label for nd in port_in] == ["v53999"] and port_in[0].ref == VarRef((), 53_999, 0)
    entering = [e for e in g2.edges if e.dst == g2.index[port_in[0].id]]
    assert [g2.nodes[e.src].id for e in entering] == [ChunkId((), 53_000, 54_000)]
    assert not overlaps(build_graph(chain(30), LayoutOptions(level_cap=20, chunk_size=10),
                                    expanded=[ChunkId((), 10, 20)]))


def test_many_chunks_are_capped():
    opts = LayoutOptions(level_cap=100, chunk_size=10, max_chunks=20)
    assert len(chunk_bounds(10_000, opts)) == 20


def test_place_row_is_the_closest_separated_placement():
    assert place_row([0.0, 100.0, 200.0], [10.0, 10.0]) == [0.0, 100.0, 200.0]
    assert place_row([0.0, 0.0, 0.0], [10.0, 10.0]) == [-10.0, 0.0, 10.0]
    xs = place_row([0.0, 1.0, 50.0, 50.0], [20.0, 20.0, 4.0])
    assert xs == pytest.approx([-9.5, 10.5, 48.0, 52.0])
    for a, b, sep in zip(xs, xs[1:], [20.0, 20.0, 4.0], strict=False):
        assert b - a >= sep - 1e-9


def test_sweeps_straighten_edges_and_keep_widths_apart(control_flow):
    import numpy as np

    def run(g: DisplayGraph) -> float:
        return float(sum(np.abs(np.diff(e.points[:, 0])).sum() for e in g.edges))

    rough = build_graph(control_flow, LayoutOptions(sweeps=0))
    smooth = build_graph(control_flow)
    assert run(smooth) < 0.8 * run(rough)
    assert not overlaps(smooth)
    # A long edge past a chain: its dummy points line up under its source.
    widths = [100.0, 100.0, 100.0, 100.0]
    layer = [0, 1, 2, 3]
    edges = [(0, 1), (1, 2), (2, 3), (0, 3)]
    xs, routes = igraph_order(4, edges, layer, maxiter=40)
    centres, dummies = place_layers(widths, layer, [(a, 0.0, b, 0.0) for a, b in edges], xs,
                                    routes, LayoutOptions())
    assert len(dummies[3]) == 2 and dummies[3][0] == pytest.approx(dummies[3][1])
    assert abs(dummies[3][0] - centres[1]) >= 50 + LayoutOptions().hgap / 2 - 1e-6


def test_layers_inputs_on_top_outputs_at_the_bottom_constants_near_their_use():
    # 0: input; 1: iota (no operands); 2 = f(0); 3 = g(2); 4 = h(3, 1); 5: output of 4
    edges = [(0, 2), (2, 3), (3, 4), (1, 4), (4, 5)]
    layer = assign_layers(6, edges, ["top", "", "", "", "", "bottom"])
    assert layer == [0, 2, 1, 2, 3, 4]


def test_igraph_routes_of_a_graph_in_pieces():
    # igraph 1.0.0 alone misroutes (and can crash on) a graph of several components.
    edges = [(0, 2), (0, 5), (2, 3), (3, 4), (4, 5), (1, 6), (5, 7), (6, 8)]
    layer = [0, 0, 1, 2, 3, 4, 1, 5, 5]
    xs, routes = igraph_order(9, edges, layer, maxiter=40)
    for (a, b), route in zip(edges, routes, strict=True):
        assert [int(y) for _, y in route] == list(range(layer[a] + 1, layer[b])), (a, b)
    assert len(xs) == 9


def test_empty_and_trivial_trees():
    g = build_graph(JaxprNode((), (), (), ()))
    assert g.nodes == [] and g.edges == [] and g.width == 0
    ident = JaxprNode((Var("a", "f32[]"),), (), (Var("a", "f32[]"), Var(literal="1.0",
                                                                        type="f32[]")), ())
    g = build_graph(ident)
    assert [nd.kind for nd in g.nodes] == ["input", "output", "output"]
    assert [(g.nodes[e.src].id, g.nodes[e.dst].id) for e in g.edges] == [
        (IoId("in", (), 0), IoId("out", (), 0))]
    assert g.nodes[2].label == "1.0"
