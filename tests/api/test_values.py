"""The values model's paths and helpers, on a hand-made tree: no engine needed."""

import numpy as np

from workbench.api import codec
from workbench.api import messages as m
from workbench.api.jaxpr import Eqn, JaxprNode, SubJaxpr, Var
from workbench.api.values import (
    CarryTrace,
    EqnValues,
    NodeValues,
    ValuesResult,
    ValueSummary,
    VarRef,
    annotate_json,
    eqn_at,
    eqn_values_at,
    node_at,
    short_dtype,
    steps,
    summaries_by_name,
    summary_of,
    var_refs,
)

F = "f32[]"


def _v(name: str) -> Var:
    return Var(name, F)


def _s(x: float) -> ValueSummary:
    return ValueSummary((), "float32", x, x, x, 0.0, preview=(x,))


BRANCH0 = JaxprNode((_v("a"),), (), (_v("b"),), (Eqn("sin", {}, (_v("a"),), (_v("b"),), None, 3),))
BRANCH1 = JaxprNode((_v("a"),), (), (_v("b"),), (Eqn("cos", {}, (_v("a"),), (_v("b"),), None, 5),))
TREE = JaxprNode(
    (_v("i"), _v("x")), (), (_v("z"),),
    (
        Eqn("cond", {}, (_v("i"), _v("x")), (_v("y"),), None, 7,
            (SubJaxpr("branches[0]", BRANCH0), SubJaxpr("branches[1]", BRANCH1))),
        Eqn("mul", {}, (_v("y"), Var(None, F, "2.0")), (_v("z"),), None, 8),
    ),
)
VALUES = NodeValues(
    (_s(1), _s(0.5)), (),
    (
        EqnValues((_s(0.8776),), (None, NodeValues((_s(0.5),), (), (EqnValues((_s(0.8776),)),))),
                  taken=1),
        EqnValues((_s(1.7552),)),
    ),
)


def test_paths_reach_equations_and_instances_the_tree_view_way():
    assert eqn_at(TREE, (0, 1, 0)).primitive == "cos"
    assert eqn_values_at(VALUES, (0, 1, 0)).outs[0].min == 0.8776
    assert eqn_values_at(VALUES, (0, 0, 0)) is None  # the branch not taken
    assert node_at(TREE, VALUES, (0, 0)) is None
    node, vals = node_at(TREE, VALUES, (0, 1))
    assert node is BRANCH1 and vals.invars[0].min == 0.5


def test_steps_put_a_branch_body_before_its_cond_and_skip_what_did_not_run():
    assert list(steps(TREE, VALUES)) == [(0, 1, 0), (0,), (1,)]
    cut = NodeValues(VALUES.invars, (), (VALUES.eqns[0], None))
    assert list(steps(TREE, cut)) == [(0, 1, 0), (0,)]


def test_names_resolve_to_refs_and_summaries():
    refs = var_refs(TREE)
    assert refs["x"] == VarRef((), None, 1) and refs["z"] == VarRef((), 1, 0)
    assert summary_of(VALUES, refs["y"]).min == 0.8776
    assert set(summaries_by_name(TREE, VALUES)) == {"i", "x", "y", "z"}


def test_annotate_json_marks_vars_taken_branch_and_executed_subs():
    from workbench.engine.jaxpr_tree import node_to_json

    tree_json = node_to_json(TREE)
    annotate_json(tree_json, TREE, VALUES)
    cond = tree_json["eqns"][0]
    assert cond["taken"] == 1
    assert [s["executed"] for s in cond["subjaxprs"]] == [False, True]
    assert "value" not in cond["subjaxprs"][0]["jaxpr"]["eqns"][0]["outvars"][0]
    assert cond["subjaxprs"][1]["jaxpr"]["eqns"][0]["outvars"][0]["value"]["max"] == 0.8776
    mul = tree_json["eqns"][1]
    assert mul["invars"][0]["value"]["min"] == 0.8776  # a use carries its definition's value
    assert "value" not in mul["invars"][1]  # a literal
    assert tree_json["outvars"][0]["value"]["mean"] == 1.7552


def test_a_values_result_crosses_the_wire_intact():
    trace = CarryTrace(0, np.arange(0, 20, 2), np.linspace(1, 0, 10), stride=2)
    ev = EqnValues((_s(1.0),), iterations=19, carry_traces=(trace,))
    result = ValuesResult("f", ("f32[]",), (), NodeValues((), (), (ev,)),
                          first_nan=(0,))
    msg, buffers = codec.encode(m.Result("r", result))
    back = codec.decode(msg, buffers).value
    assert back.root.eqns[0].iterations == 19
    np.testing.assert_array_equal(back.root.eqns[0].carry_traces[0].values, trace.values)
    assert back.first_nan == (0,)


def test_short_dtype_names_types_as_the_jaxpr_prints_them():
    assert [short_dtype(d) for d in ("float32", "int8", "uint32", "complex64", "bfloat16",
                                     "bool")] == ["f32", "i8", "u32", "c64", "bf16", "bool"]
    assert ValueSummary((3, 4), "float32").type_text == "f32[3,4]"
