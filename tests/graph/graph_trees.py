"""Jaxpr trees and their values for the graph tests: a small one written out by hand, real ones
traced by the engine from the bundled examples, and a long unrolled loop."""

from __future__ import annotations

from pathlib import Path

from workbench.api.errors import Explanation
from workbench.api.jaxpr import Eqn, JaxprNode, SubJaxpr, Var
from workbench.api.values import EqnValues, NodeValues, ValuesResult, ValueSummary

EXAMPLES = Path(__file__).resolve().parents[2] / "assets" / "examples"


def v(name: str, type_: str = "f32[3]") -> Var:
    return Var(name=name, type=type_)


def lit(value: str, type_: str = "f32[]") -> Var:
    return Var(literal=value, type=type_)


def eqn(prim: str, ins: list[Var], outs: list[Var], line: int,
        subs: tuple[SubJaxpr, ...] = (), **params: str) -> Eqn:
    return Eqn(prim, dict(params), tuple(ins), tuple(outs), "f.py", line, subs)


def small_tree() -> JaxprNode:
    """log(sin(a)), its sum's sign picks a cond branch, then an add; lines 2-9.

    { lambda ; a:f32[3]. let
        b = sin a; c = log b; d:f32[] = reduce_sum c; e:bool[] = gt d 0.0
        f:i32[] = convert_element_type e
        g = cond[branches=({ lambda ; h. let i = mul h 2.0 in (i,) },
                           { lambda ; j. let k = neg j in (k,) })] f c
        l = add g a
      in (l, d) }
    """
    branch0 = JaxprNode((v("h"),), (), (v("i"),), (eqn("mul", [v("h"), lit("2.0")], [v("i")], 6),))
    branch1 = JaxprNode((v("j"),), (), (v("k"),), (eqn("neg", [v("j")], [v("k")], 7),))
    return JaxprNode(
        invars=(v("a"),), constvars=(), outvars=(v("l"), v("d", "f32[]")),
        eqns=(
            eqn("sin", [v("a")], [v("b")], 2),
            eqn("log", [v("b")], [v("c")], 3),
            eqn("reduce_sum", [v("c")], [v("d", "f32[]")], 4, axes="(0,)"),
            eqn("gt", [v("d", "f32[]"), lit("0.0")], [v("e", "bool[]")], 5),
            eqn("convert_element_type", [v("e", "bool[]")], [v("f", "i32[]")], 5),
            eqn("cond", [v("f", "i32[]"), v("c")], [v("g")], 8,
                (SubJaxpr("branches[0]", branch0), SubJaxpr("branches[1]", branch1))),
            eqn("add", [v("g"), v("a")], [v("l")], 9),
        ))


def s3(lo: float, hi: float, nan: int = 0) -> ValueSummary:
    return ValueSummary((3,), "float32", lo, hi, (lo + hi) / 2, (hi - lo) / 2, nan, 0,
                        (lo, (lo + hi) / 2, hi), (1,) * 32, lo, hi)


def scalar(x: float) -> ValueSummary:
    return ValueSummary((), "float32", x, x, x, 0.0, 0, 0, (x,))


def small_values() -> ValuesResult:
    """Everything ran; branch 0 was taken (branch 1 did not run); ``log`` made the first NaN."""
    eqns = (
        EqnValues((s3(-0.8, 0.9),)),
        EqnValues((s3(-0.1, 0.0, nan=1),), new_nan=True),
        EqnValues((scalar(-0.1),)),
        EqnValues((ValueSummary((), "bool", 0.0, 0.0, 0.0, 0.0, 0, 0, (0.0,)),)),
        EqnValues((ValueSummary((), "int32", 0.0, 0.0, 0.0, 0.0, 0, 0, (0.0,)),)),
        EqnValues((s3(-0.2, 0.0, nan=1),), subs=(
            NodeValues((s3(-0.1, 0.0, nan=1),), (), (EqnValues((s3(-0.2, 0.0, nan=1),)),)),
            None), taken=0),
        EqnValues((s3(-1.2, 2.0, nan=1),)),
    )
    root = NodeValues((s3(-1.0, 2.0),), (), eqns)
    return ValuesResult("f", ("f32[3]",), (), root, outputs=(s3(-1.2, 2.0, nan=1), scalar(-0.1)),
                        first_nan=(1,))


def failing_values() -> ValuesResult:
    """``reduce_sum`` (equation 2) raised: values before it, none after."""
    err = Explanation("runtime", "The computation failed", "Look at the marked line",
                      "boom: bad reduction")
    eqns = (EqnValues((s3(-0.8, 0.9),)), EqnValues((s3(0.1, 0.2),)),
            EqnValues((), error="boom: bad reduction"), None, None, None, None)
    return ValuesResult("f", ("f32[3]",), (), NodeValues((s3(-1.0, 2.0),), (), eqns),
                        error=err, error_path=(2,))


def chain(n: int) -> JaxprNode:
    """An unrolled Python loop: ``x = x + 1.0`` ``n`` times, one line."""
    names = ["a"] + [f"v{i}" for i in range(n)]
    eqns = tuple(eqn("add", [v(names[i], "f32[]"), lit("1.0")], [v(names[i + 1], "f32[]")], 3)
                 for i in range(n))
    return JaxprNode((v("a", "f32[]"),), (), (v(names[-1], "f32[]"),), eqns)


def traced(file: str, function: str, args: str, transforms: tuple[str, ...] = ()) -> JaxprNode:
    """The real tree of a bundled example, traced by the engine."""
    from workbench.engine.source import load_source
    from workbench.engine.trace import trace_function

    loaded = load_source((EXAMPLES / file).read_text(), file)
    return trace_function(loaded, function, args, list(transforms)).jaxpr
