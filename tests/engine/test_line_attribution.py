"""Which editor line each equation of a transformed program names, case by case.

The rule: the innermost frame of the editor's file on the stack that made the
equation; the ``def`` line for a call that wraps a whole editor function; no
line at all when nothing in the editor made it. Never the ``def`` line as a
guess, which looks right and is not.
"""

from __future__ import annotations

import pytest

from workbench.api.jaxpr import Eqn, JaxprNode
from workbench.engine.source import load_source
from workbench.engine.trace import format_tree, trace_function, trace_to_json

FILENAME = "/lessons/fidelity.py"
SOURCE = '''\
from functools import partial


@jax.custom_vjp
def f_sin(x):
    return jnp.sin(x)


def f_sin_fwd(x):
    return jnp.sin(x), jnp.cos(x)


def f_sin_bwd(res, g):
    scaled = res * g
    return (scaled * 2.0,)


f_sin.defvjp(f_sin_fwd, f_sin_bwd)


def calls_vjp(x):
    return f_sin(x).sum()


@jax.custom_jvp
def soft(x):
    return jnp.log1p(jnp.exp(x))


@soft.defjvp
def soft_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = soft(x)
    slope = jax.nn.sigmoid(x)
    return y, slope * t


def wave(x):
    return jnp.sin(x) * 2.0


def matvec(x):
    return jnp.dot(x, jnp.ones((3, 3))).sum()


@jax.checkpoint
def heavy(x):
    y = jnp.sin(x)
    return jnp.sin(y)


def uses_heavy(x):
    return heavy(x).sum()


def library_checkpoint(x):
    return jax.checkpoint(jnp.sin)(x).sum()


@partial(
    jax.jit,
    static_argnums=1,
)
def scaled(x, k):
    return x * k


@jax.jit
def doubled(x):
    return x * 2.0
'''


@pytest.fixture(scope="module")
def loaded():
    return load_source(SOURCE, FILENAME)


def line_of(text: str) -> int:
    """The 1-based line of the first source line containing ``text``."""
    return next(i for i, row in enumerate(SOURCE.splitlines(), 1) if text in row)


def eqns(node: JaxprNode) -> list[Eqn]:
    """Every equation, sub-jaxprs included, in tree order."""
    out: list[Eqn] = []
    for eqn in node.eqns:
        out.append(eqn)
        for sub in eqn.subjaxprs:
            out.extend(eqns(sub.jaxpr))
    return out


def lines_by_primitive(result, primitive: str) -> list[int | None]:
    return [e.line for e in eqns(result.jaxpr) if e.primitive == primitive]


def test_custom_vjp_backward_rule_takes_its_own_lines(loaded):
    result = trace_function(loaded, "f_sin", "f32[]", ["grad"])
    # sin and cos come from the forward rule; the two muls from the backward rule.
    assert lines_by_primitive(result, "cos") == [line_of("jnp.sin(x), jnp.cos(x)")]
    assert lines_by_primitive(result, "mul") == [line_of("scaled = res * g"),
                                                 line_of("scaled * 2.0")]
    decorator = line_of("@jax.custom_vjp")
    assert decorator not in [e.line for e in eqns(result.jaxpr)]


def test_custom_vjp_called_from_another_function(loaded):
    result = trace_function(loaded, "calls_vjp", "f32[3]", ["grad"])
    assert lines_by_primitive(result, "mul") == [line_of("scaled = res * g"),
                                                 line_of("scaled * 2.0")]
    assert lines_by_primitive(result, "reduce_sum") == [line_of("f_sin(x).sum()")]


def test_custom_jvp_rule_takes_its_own_lines(loaded):
    result = trace_function(loaded, "soft", "f32[]", ["grad"])
    rule = {line_of("y = soft(x)"), line_of("jax.nn.sigmoid(x)"), line_of("slope * t"),
            line_of("jnp.log1p(jnp.exp(x))")}
    lines = {e.line for e in eqns(result.jaxpr)}
    assert lines <= rule | {None}
    assert line_of("slope * t") in lines
    assert line_of("@jax.custom_jvp") not in lines


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_jacobian_basis_has_no_line(loaded, transform):
    result = trace_function(loaded, "wave", "f32[3]", [transform])
    basis = [e for e in eqns(result.jaxpr) if e.primitive in ("iota", "eq")]
    assert basis and all(e.line is None and e.file is None for e in basis)
    # The user's own equations keep their line.
    assert lines_by_primitive(result, "sin") == [line_of("jnp.sin(x) * 2.0")]
    assert line_of("def wave") not in {e.line for e in eqns(result.jaxpr)}


def test_transpose_that_jax_adds_has_no_line(loaded):
    result = trace_function(loaded, "wave", "f32[3]", ["jacfwd"])
    assert lines_by_primitive(result, "transpose") == [None]


def test_transposed_user_equation_keeps_the_users_line(loaded):
    # grad's transpose of the user's dot is the user's dot, run backwards.
    result = trace_function(loaded, "matvec", "f32[3]", ["grad"])
    assert lines_by_primitive(result, "dot_general") == [line_of("jnp.dot")] * 2


def test_checkpoint_residual_hoisted_out_keeps_its_line(loaded):
    result = trace_function(loaded, "uses_heavy", "f32[3]", ["grad"])
    top = [e for e in result.jaxpr.eqns if e.primitive == "sin"]
    # The forward sins are hoisted out of the checkpoint, at their own lines.
    assert [e.line for e in top] == [line_of("y = jnp.sin(x)"), line_of("jnp.sin(y)")]


def test_checkpoint_residual_with_no_editor_frame_has_no_line(loaded):
    # jnp.sin is traced by the checkpoint itself: the hoisted forward sin's
    # traceback holds no frame of the editor, so no line is the truth.
    result = trace_function(loaded, "library_checkpoint", "f32[4]", ["grad"])
    (sin,) = [e for e in result.jaxpr.eqns if e.primitive == "sin"]
    assert sin.line is None
    assert lines_by_primitive(result, "reduce_sum") == [line_of("jax.checkpoint(jnp.sin)")]


def test_checkpoint_wrapping_a_whole_function_takes_its_def_line(loaded):
    result = trace_function(loaded, "heavy", "f32[3]", ["vmap"])
    (remat,) = [e for e in result.jaxpr.eqns if e.primitive.startswith("remat")]
    assert remat.line == line_of("def heavy")


def test_decorated_function_jit_takes_the_def_line_not_the_decorator(loaded):
    result = trace_function(loaded, "doubled", "f32[3]")
    (jit,) = result.jaxpr.eqns
    assert jit.primitive == "jit" and jit.line == line_of("def doubled")
    result = trace_function(loaded, "scaled", "f32[3], 2")
    (jit,) = result.jaxpr.eqns
    assert jit.line == line_of("def scaled(x, k)")


def test_function_list_names_the_def_line(loaded):
    assert loaded.info("scaled").line == line_of("def scaled(x, k)")
    assert loaded.info("doubled").line == line_of("def doubled")
    assert loaded.info("wave").line == line_of("def wave")


def test_no_line_is_null_in_json_and_a_dash_in_the_tree(loaded):
    result = trace_function(loaded, "wave", "f32[3]", ["jacfwd"])
    data = trace_to_json(result)
    iota = next(e for e in data["jaxpr"]["eqns"] if e["primitive"] == "iota")
    assert iota["line"] is None and iota["file"] is None
    row = next(r for r in format_tree(result).splitlines() if "= iota[" in r)
    assert row.split()[0] == "-"
