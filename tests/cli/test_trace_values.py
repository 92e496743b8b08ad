"""`workbench trace --values`: the issue's JSON, the text listing, a run-time error's status."""

from __future__ import annotations

import json
import textwrap

import jax
import numpy as np
import pytest

from tests.cli.cli_util import run_cli
from workbench.engine.argspec import example_values
from workbench.engine.source import load_source
from workbench.engine.transforms import prepare

SOURCE = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp
    from jax import lax


    def selu(x, alpha=1.67, lmbda=1.05):
        return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


    def loops(xs):
        def halve(state):
            v, i = state
            v = lax.cond(jnp.sum(v) > 0, lambda a: a * 0.5, lambda a: a + 1.0, v)
            return v, i + 1

        small, steps = lax.while_loop(lambda s: (jnp.max(jnp.abs(s[0])) > 0.1) & (s[1] < 40),
                                      halve, (xs, 0))
        total, _ = lax.scan(lambda c, x: (c + x, c), 0.0, small)
        return total, steps


    def log_zero(x):
        return jnp.log(x - x) * 0.0


    def check(v):
        raise ValueError("negative input!")


    @jax.jit
    def failing(x):
        y = x * 2.0
        z = jax.pure_callback(check, jax.ShapeDtypeStruct(x.shape, x.dtype), y)
        return z + 1.0


    def printing(x):
        jax.debug.print("sum is {s}", s=jnp.sum(x))
        return x * 2.0
    """
)
VALUE_KEYS = {"shape", "dtype", "min", "max", "mean", "std", "nan", "inf", "preview", "hist"}


def strict(text: str):
    """JSON that names no NaN or Infinity as a number (which strict parsers refuse)."""
    def refuse(name):
        raise AssertionError(f"{name} written as a bare JSON number")

    return json.loads(text, parse_constant=refuse)


def walk(node):
    """Every (kind, dict) of a tree JSON node: its VARs and EQNs, at every depth that ran."""
    for key in ("invars", "constvars", "outvars"):
        for var in node[key]:
            yield "var", var
    for eqn in node["eqns"]:
        yield "eqn", eqn
        for var in eqn["invars"] + eqn["outvars"]:
            yield "var", var
        for sub in eqn["subjaxprs"]:
            if sub.get("executed"):
                yield from walk(sub["jaxpr"])


def called(prog, name, args):
    with open(prog) as fh:
        loaded = load_source(fh.read(), prog)
    prepared = prepare(loaded, name, args)
    out = prepared.fn(*example_values(prepared.dynamic_specs))
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(out)]


def test_json_adds_a_value_to_every_variable_that_ran(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "selu", "--args", "f32[1000]",
                             "--values", "--format", "json")
    assert code == 0, err
    doc = strict(out)
    assert set(doc["values"]) == {"seconds", "error", "error_path", "first_nan", "first_inf"}
    assert doc["values"]["error"] is None and doc["values"]["seconds"] > 0
    named = [v for kind, v in walk(doc["jaxpr"]) if kind == "var" and "name" in v]
    assert named and all(set(v["value"]) == VALUE_KEYS for v in named)
    for v in named:
        assert v["value"]["dtype"] in ("float32", "bool")
        assert v["value"]["shape"] == ([1000] if v["type"].endswith("[1000]") else [])
        size = int(np.prod(v["value"]["shape"]))
        assert sum(v["value"]["hist"]) == size - v["value"]["nan"] - v["value"]["inf"]
    (want,) = called(prog, "selu", "f32[1000]")
    (top,) = doc["jaxpr"]["outvars"]
    assert top["value"]["preview"] == [float(x) for x in want[:8]]
    assert top["value"]["min"] == float(want.min()) and top["value"]["max"] == float(want.max())


def test_json_control_flow_taken_iterations_and_carry_trace(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "loops", "--args", "f32[4]",
                             "--values", "--format", "json")
    assert code == 0, err
    doc = strict(out)
    eqns = {e["primitive"]: e for kind, e in walk(doc["jaxpr"]) if kind == "eqn"}
    loop, scan, cond = eqns["while"], eqns["scan"], eqns["cond"]
    _, steps = called(prog, "loops", "f32[4]")
    assert loop["iterations"] == int(steps) and scan["iterations"] == 4
    assert cond["taken"] in (0, 1)
    assert [s["executed"] for s in cond["subjaxprs"]].count(True) == 1
    assert cond["subjaxprs"][cond["taken"]]["executed"]
    (counter,) = [t for t in loop["carry_trace"] if t["position"] == 1]
    assert counter["steps"] == list(range(int(steps) + 1))
    assert counter["values"] == [float(i) for i in counter["steps"]]
    assert {t["position"] for t in scan["carry_trace"]} == {0}
    body = loop["subjaxprs"][0]
    assert body["param"] == "body_jaxpr" and body["iteration"] == int(steps) - 1


def test_json_is_strict_with_nan_and_infinity(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "log_zero", "--args", "f32[3]",
                             "--values", "--format", "json")
    assert code == 0, err
    doc = strict(out)
    (log, mul) = [e for e in doc["jaxpr"]["eqns"] if e["primitive"] in ("log", "mul")]
    assert log["new_inf"] and log["outvars"][0]["value"]["preview"] == ["-Infinity"] * 3
    assert mul["new_nan"] and mul["outvars"][0]["value"]["preview"] == ["NaN"] * 3
    assert mul["outvars"][0]["value"]["min"] is None
    prims = [e["primitive"] for e in doc["jaxpr"]["eqns"]]
    assert doc["values"]["first_inf"] == [prims.index("log")]
    assert doc["values"]["first_nan"] == [prims.index("mul")]


def test_text_lists_each_equation_with_its_range(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "log_zero", "--args", "f32[3]", "--values")
    assert code == 0, err
    head, _, listing = out.partition("# values on the example arguments")
    assert head.startswith("{ lambda")  # the jaxpr text comes first, unchanged
    lines = listing.splitlines()
    (sub,) = [ln for ln in lines if " sub " in f" {ln} "]
    assert "f32[3]" in sub and "min 0" in sub and "max 0" in sub and "mean 0" in sub
    (log,) = [ln for ln in lines if " log " in f" {ln} "]
    assert "3 Inf" in log and "<- first Inf" in log
    (mul,) = [ln for ln in lines if " mul " in f" {ln} "]
    assert "3 NaN" in mul and "<- first NaN" in mul
    assert "outputs:" in listing


def test_text_and_tree_show_loops(capsys, prog):
    for fmt in ("text", "tree"):
        code, out, err = run_cli(capsys, "trace", prog, "loops", "--args", "f32[4]",
                                 "--values", "--format", fmt)
        assert code == 0, err
        listing = out.partition("# values on the example arguments")[2]
        assert "[4 iterations]" in listing  # the scan
        assert "body_jaxpr (iteration" in listing and "cond_jaxpr (iteration" in listing
        assert "[branch " in listing and "carry 1: 0 -> " in listing


def test_a_run_time_error_prints_the_values_so_far_and_exits_1(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "failing", "--args", "f32[3]",
                             "--values", "--format", "json")
    assert code == 1
    doc = strict(out)
    assert doc["values"]["error_path"] == [0, 0, 1]
    assert "negative input!" in doc["values"]["error"]["message"]
    jit = doc["jaxpr"]["eqns"][0]
    assert "negative input!" in jit["error"]
    inner = jit["subjaxprs"][0]["jaxpr"]["eqns"]
    assert "value" in inner[0]["outvars"][0]  # y = x * 2.0 ran
    assert "error" in inner[1] and "value" not in inner[1]["outvars"][0]
    assert "workbench trace: error:" in err

    code, out, err = run_cli(capsys, "trace", prog, "failing", "--args", "f32[3]", "--values")
    assert code == 1
    assert "ERROR: " in out and "(not run)" in out and "workbench trace: error:" in err


def test_what_the_function_prints_while_running_goes_in_output(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "printing", "--args", "f32[3]",
                             "--values", "--format", "json")
    assert code == 0, err
    doc = strict(out)
    assert "sum is" in doc["output"]


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_without_values_nothing_changes(capsys, prog, fmt):
    code, out, err = run_cli(capsys, "trace", prog, "selu", "--args", "f32[10]", "--format", fmt)
    assert code == 0, err
    assert "values" not in (strict(out) if fmt == "json" else {})
    assert '"value"' not in out and "# values" not in out
