"""trace_function: spec and transforms in, text + tree + stats out; the JSON shape of the CLI."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import pytest

from workbench.engine.errors import UsageError, UserCodeError
from workbench.engine.source import load_source
from workbench.engine.trace import format_tree, trace_function, trace_to_json

FILENAME = "/home/student/selu.py"
SOURCE = """\
def selu(x, alpha=1.67, lam=1.05):
    return lam * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def scalar(x):
    return jnp.sin(x) * 2.0

def pair(p, n):
    a, b = p
    return a * b + n

def repeat(x, n):
    for i in range(n):
        x = x * 2.0
    return x

def branchy(x):
    if x > 0:
        return x
    return -x

def total(x):
    return jnp.sum(x ** 2)
"""

VAR_KEYS = ({"name", "type"}, {"literal", "type"})
NODE_KEYS = {"invars", "constvars", "outvars", "eqns"}
EQN_KEYS = {"primitive", "params", "invars", "outvars", "file", "line", "subjaxprs"}


@pytest.fixture(scope="module")
def loaded():
    return load_source(SOURCE, FILENAME)


def check_node(node: dict) -> int:
    """Asserts the issue's key sets at every depth; returns the equation count."""
    assert node.keys() >= NODE_KEYS and node.keys() - NODE_KEYS <= {"shared"}
    count = 0
    for var in node["invars"] + node["constvars"] + node["outvars"]:
        assert var.keys() in VAR_KEYS
    for eqn in node["eqns"]:
        count += 1
        assert eqn.keys() == EQN_KEYS
        for var in eqn["invars"] + eqn["outvars"]:
            assert var.keys() in VAR_KEYS
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in eqn["params"].items())
        assert eqn["file"] in (None, "selu.py")
        assert eqn["line"] is None or isinstance(eqn["line"], int)
        for sub in eqn["subjaxprs"]:
            assert sub.keys() == {"param", "jaxpr"}
            count += check_node(sub["jaxpr"])
    return count


def test_json_shape_is_exactly_the_issues(loaded):
    result = trace_function(loaded, "selu", "f32[1000]")
    data = trace_to_json(result)
    assert data.keys() == {"function", "args", "transforms", "text", "stats", "jaxpr"}
    assert data["stats"].keys() == {"eqns", "by_primitive"}
    assert data["function"] == "selu" and data["args"] == ["f32[1000]"]
    assert data["transforms"] == []
    assert check_node(data["jaxpr"]) == data["stats"]["eqns"]
    assert json.loads(json.dumps(data)) == data  # plain JSON, nothing else
    lines = {e["line"] for e in data["jaxpr"]["eqns"]}
    assert lines == {2}
    assert data["text"] == str(jax.make_jaxpr(loaded.function("selu"))(jnp.ones(1000)))


def test_transforms_apply_first_given_first(loaded):
    result = trace_function(loaded, "scalar", "f32[5]", ["grad", "vmap"])  # vmap(grad(f))
    assert result.transforms == ("grad", "vmap")
    assert result.text == str(jax.make_jaxpr(jax.vmap(jax.grad(loaded.function("scalar"))))(
        jnp.ones(5)))
    assert "cos" in result.stats.by_primitive
    assert [v.type for v in result.jaxpr.outvars] == ["f32[5]"]
    with pytest.raises(UserCodeError) as info:  # grad(vmap(f)) has a vector output
        trace_function(loaded, "scalar", "f32[5]", ["vmap", "grad"])
    assert info.value.explanation.exception_type == "TypeError"


def test_hessian_and_jit(loaded):
    hess = trace_function(loaded, "total", "f32[3]", ["hessian"])
    assert [v.type for v in hess.jaxpr.outvars] == ["f32[3,3]"]
    jitted = trace_function(loaded, "total", "f32[3]", ["jit"])
    (eqn,) = jitted.jaxpr.eqns
    assert eqn.primitive == "jit" and eqn.params["name"] == "total"
    assert eqn.line == loaded.info("total").line  # the jit wraps the whole function: its def
    assert [e.line for e in eqn.subjaxprs[0].jaxpr.eqns] == [22, 22]
    both = trace_function(loaded, "total", "f32[3]", ["grad", "jit"])
    assert both.jaxpr.eqns[0].primitive == "jit"
    assert "integer_pow" in both.stats.by_primitive or "mul" in both.stats.by_primitive


def test_pytree_and_static_arguments(loaded):
    result = trace_function(loaded, "pair", "(f32[3], f32[3]), i32[]")
    assert result.args == ("(f32[3], f32[3])", "i32[]")
    assert [(v.name, v.type) for v in result.jaxpr.invars] == [
        ("a", "f32[3]"), ("b", "f32[3]"), ("c", "i32[]")]
    assert all(e.line == 9 for e in result.jaxpr.eqns)
    looped = trace_function(loaded, "repeat", "f32[4], 3")  # range(n) needs a concrete n
    assert looped.args == ("f32[4]", "3")
    assert looped.stats.by_primitive == {"mul": 3}
    assert [e.line for e in looped.jaxpr.eqns] == [13, 13, 13]
    assert [v.type for v in looped.jaxpr.invars] == ["f32[4]"]


def test_literal_static_values_are_not_confused(loaded):
    one = trace_function(loaded, "repeat", "f32[2], 1")
    two = trace_function(loaded, "repeat", "f32[2], 2")
    assert (one.stats.eqns, two.stats.eqns) == (1, 2)
    again = trace_function(loaded, "repeat", "f32[2], 1")
    assert again.text == one.text and again.args == ("f32[2]", "1")


def test_user_errors_and_usage_errors(loaded):
    with pytest.raises(UserCodeError) as info:
        trace_function(loaded, "branchy", "f32[]")
    assert info.value.explanation.line == 17
    assert isinstance(info.value.__cause__, Exception)
    with pytest.raises(UsageError):
        trace_function(loaded, "nope", "f32[]")
    with pytest.raises(UsageError):
        trace_function(loaded, "scalar", "f32[3], f32[3]")
    with pytest.raises(UsageError):
        trace_function(loaded, "scalar", "f32[3]", ["integrate"])


def test_text_is_colour_free_where_jax_would_colour(loaded, monkeypatch):
    # Inside a kernel JAX decides it may colour (pretty_printer.CAN_USE_COLOR).
    from jax._src import pretty_printer

    plain = str(jax.make_jaxpr(loaded.function("selu"))(jnp.ones(7)))
    monkeypatch.setattr(pretty_printer, "CAN_USE_COLOR", True)
    coloured = str(jax.make_jaxpr(loaded.function("selu"))(jnp.ones(7)))
    assert "\x1b[" in coloured
    result = trace_function(loaded, "selu", "f32[7]")
    assert result.text == plain
    assert "\x1b[" not in format_tree(result)


def test_reloaded_source_is_traced_afresh():
    first = load_source("def f(x):\n    return x + 1.0\n", "live.py")
    second = load_source("def f(x):\n\n    return x * 1.0\n", "live.py")
    a = trace_function(first, "f", "f32[2]")
    b = trace_function(second, "f", "f32[2]")
    assert (a.jaxpr.eqns[0].primitive, a.jaxpr.eqns[0].line) == ("add", 2)
    assert (b.jaxpr.eqns[0].primitive, b.jaxpr.eqns[0].line) == ("mul", 3)


def test_format_tree_shows_lines_and_sub_jaxprs(loaded):
    result = trace_function(loaded, "selu", "f32[4]", ["jit"])
    tree = format_tree(result)
    head, *body = tree.splitlines()
    assert head.startswith("jit(selu)(f32[4])") and f"{result.stats.eqns} eqns" in head
    assert body[0] == "{ lambda ; a:f32[4]. let"
    assert any(line.strip().startswith("L2 ") and "= exp " in line for line in body)
    assert any("jaxpr = " in line for line in body)
    assert body[-1].strip() == "in (b) }"


def test_result_travels_over_the_engine_protocol(loaded):
    from workbench.api import codec as protocol

    result = trace_function(loaded, "pair", "(f32[3], f32[3]), i32[]", ["jit"])
    message, buffers = protocol.encode(result)
    assert protocol.decode(json.loads(json.dumps(message)), buffers) == result
