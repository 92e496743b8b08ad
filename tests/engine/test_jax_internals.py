"""One test per private JAX use the workbench makes, all through ``jax_internals``.

Each runs real JAX on a small function. When a JAX upgrade changes a private API
the failure names it and says what to update in ``workbench/engine/jax_internals.py``.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from jax.extend.core import Literal

import workbench
from workbench.engine import jax_internals as ji
from workbench.engine.source import load_source

FILENAME = "/lessons/internals.py"
SOURCE = """\
def inner(x):
    return jnp.sin(x)

def outer(x, y):
    z = inner(x)
    return z * y + 2.0

def uses_where(x):
    return jnp.where(x > 0, x, 0.0)

@jax.jit
def helper(v):
    return jnp.cos(v) * 2.0

def twice(x):
    return helper(x) + helper(x + 1.0)

def looped(x):
    return lax.scan(lambda c, xi: (c + xi, c * xi), 0.0, x)

@jax.custom_vjp
def clip_grad(x):
    return x * 1.0

def clip_fwd(x):
    return x, None

def clip_bwd(res, g):
    return (jnp.clip(g, -1.0, 1.0),)

clip_grad.defvjp(clip_fwd, clip_bwd)

def jits(x):
    a = jax.jit(jnp.sin)(x)
    return jax.jit(jnp.cos, donate_argnums=0)(a)
"""
MODULE = "workbench/engine/jax_internals.py"


def changed(api: str, fix: str) -> str:
    return f"JAX {jax.__version__} changed {api}: {fix} in {MODULE}"


@contextlib.contextmanager
def private(api: str, fix: str) -> Iterator[None]:
    """An error from a vanished or re-signed private API, as a failure that names it."""
    try:
        yield
    except Exception as exc:  # any error here means the private API moved
        pytest.fail(f"{changed(api, fix)} ({type(exc).__name__}: {exc})")


@pytest.fixture(scope="module")
def loaded():
    return load_source(SOURCE, FILENAME)


def closed_of(loaded, name, *args):
    return jax.make_jaxpr(loaded.function(name))(*args)


def test_print_jaxpr_equals_str(loaded):
    api = "jax._src.core.pp_toplevel_jaxpr (JaxprPpContext, _dropvars, pp_jaxpr, pp_shared_jaxpr)"
    fix = "mirror the new pp_toplevel_jaxpr in print_jaxpr"
    for name, args in [("outer", (jnp.ones(3), jnp.ones(3))), ("twice", (jnp.ones(3),)),
                       ("looped", (jnp.ones(4),)), ("uses_where", (jnp.ones(3),))]:
        closed = closed_of(loaded, name, *args)
        with private(api, fix):
            text, _ = ji.print_jaxpr(closed.jaxpr)
        assert text == str(closed), changed(api, f"{fix} (text of {name!r} differs from str())")


def test_print_jaxpr_has_no_colour_where_jax_would_colour(loaded, monkeypatch):
    api = "jax._src.pretty_printer (CAN_USE_COLOR, Doc.format(use_color=...))"
    closed = closed_of(loaded, "outer", jnp.ones(3), jnp.ones(3))
    plain = str(closed)
    from jax._src import pretty_printer

    if not hasattr(pretty_printer, "CAN_USE_COLOR"):
        pytest.fail(changed(api, "find how the printer now decides on colour; keep it off"))
    monkeypatch.setattr(pretty_printer, "CAN_USE_COLOR", True)
    assert "\x1b[" in str(closed), changed(api, "colour is decided elsewhere now; update this test")
    with private(api, "turn colour off the new way in print_jaxpr"):
        text, _ = ji.print_jaxpr(closed.jaxpr)
    assert text == plain, changed(api, "turn colour off the new way in print_jaxpr")


def test_shared_jaxpr_name(loaded):
    api = "JaxprPpContext.shared_jaxprs"
    fix = "read shared jaxpr names the new way in shared_jaxpr_name"
    closed = closed_of(loaded, "twice", jnp.ones(3))
    text, context = ji.print_jaxpr(closed.jaxpr)
    sub = closed.jaxpr.eqns[0].params["jaxpr"].jaxpr  # helper's, called twice: shared
    with private(api, fix):
        name = ji.shared_jaxpr_name(sub, context)
        top = ji.shared_jaxpr_name(closed.jaxpr, context)
    assert name == "helper", changed(api, f"{fix} (got {name!r}, text:\n{text})")
    assert text.startswith(f"let {name} = {{ lambda"), changed(api, fix)
    assert f"jaxpr={name}]" in text, changed(api, fix)
    assert top is None, changed(api, f"{fix} (the top jaxpr is never shared, got {top!r})")


def test_var_name(loaded):
    api = "jax._src.core.Var.pretty_print(context)"
    fix = "name variables the new way in var_name"
    closed = closed_of(loaded, "outer", jnp.ones(3), jnp.ones(3))
    text, context = ji.print_jaxpr(closed.jaxpr)
    with private(api, fix):
        invars = [ji.var_name(v, context) for v in closed.jaxpr.invars]
        first = ji.var_name(closed.jaxpr.eqns[0].outvars[0], context)
    head = text.splitlines()[0]
    assert head == f"{{ lambda ; {invars[0]}:f32[3] {invars[1]}:f32[3]. let", changed(
        api, f"{fix} (names {invars} not those of {head!r})")
    assert f"{first}:f32[3] = sin {invars[0]}" in text, changed(api, fix)


def test_literal_text(loaded):
    api = "jax._src.core.Literal.pretty_print(context, print_dtype=False)"
    fix = "print literals the new way in literal_text"
    closed = closed_of(loaded, "outer", jnp.ones(3), jnp.ones(3))
    text, context = ji.print_jaxpr(closed.jaxpr)
    add = closed.jaxpr.eqns[-1]
    literal = add.invars[1]
    assert isinstance(literal, Literal), changed(
        "how constants appear in jaxprs", "2.0 is no longer a Literal; update this test")
    with private(api, fix):
        shown = ji.literal_text(literal, context)
    assert shown == "2.0", changed(api, f"{fix} (got {shown!r})")
    assert f" {shown}:f32[]" in text, changed(api, fix)


def test_short_type(loaded):
    api = "AbstractValue.str_short(short_dtypes=True)"
    fix = "print short types the new way in short_type"
    closed = closed_of(loaded, "outer", jnp.ones(3), jnp.ones(3))
    with private(api, fix):
        shown = ji.short_type(closed.jaxpr.invars[0].aval)
        scalar = ji.short_type(jax.make_jaxpr(lambda i: i)(jnp.int32(1)).jaxpr.invars[0].aval)
    assert (shown, scalar) == ("f32[3]", "i32[]"), changed(api, f"{fix} (got {shown}, {scalar})")


def test_visible_jit_params(loaded):
    api = "jax._src.pjit._pjit_pp_rule (the jit params it hides)"
    fix = "mirror the new _pjit_pp_rule in visible_jit_params"
    closed = closed_of(loaded, "jits", jnp.ones(3))
    text = str(closed)
    blocks = re.findall(r"= jit\[(.*?)\] ", text, re.S)
    eqns = [e for e in closed.jaxpr.eqns if e.primitive.name == "jit"]
    assert len(blocks) == len(eqns) == 2, changed("the jit primitive", "update this test")
    for eqn, block in zip(eqns, blocks, strict=True):
        printed = set(re.findall(r"^\s*(\w+)=", block, re.M))
        with private(api, fix):
            visible = set(ji.visible_jit_params(eqn.params))
        assert visible == printed, changed(api, f"{fix} (shown {printed}, kept {visible})")
    assert "donated_invars" in blocks[1], changed(api, "donation is shown differently")


def test_innermost_line(loaded):
    api = "SourceInfo.traceback, Traceback.raw_frames(), Traceback.code_addr2location"
    fix = "read equation tracebacks the new way in innermost_line"
    sin, mul, add = closed_of(loaded, "outer", jnp.ones(3), jnp.ones(3)).jaxpr.eqns
    with private(api, fix):
        lines = [ji.innermost_line(e.source_info, FILENAME) for e in (sin, mul, add)]
        other = ji.innermost_line(sin.source_info, "/lessons/other.py")
        missing = ji.innermost_line(None, FILENAME)
    # sin is made in inner (line 2), called from outer (line 5): the innermost wins.
    assert lines == [2, 6, 6], changed(api, f"{fix} (got lines {lines}, want [2, 6, 6])")
    assert (other, missing) == (None, None), changed(api, fix)


def test_innermost_line_without_a_traceback():
    api = "jax._src.source_info_util.new_source_info (a SourceInfo with no traceback)"
    from jax._src import source_info_util

    with private(api, "update innermost_line for a missing traceback"):
        assert ji.innermost_line(source_info_util.new_source_info(), FILENAME) is None


def test_traced_file(loaded):
    api = "DebugInfo.func_src_info ('name at file:line')"
    fix = "read the traced function's file the new way in traced_file"
    closed = closed_of(loaded, "uses_where", jnp.ones(3))
    library = next(e for e in closed.jaxpr.eqns if e.primitive.name == "jit")
    with private(api, fix):
        mine = ji.traced_file(closed.jaxpr)
        theirs = ji.traced_file(library.params["jaxpr"].jaxpr)
    assert mine == FILENAME, changed(api, f"{fix} (got {mine!r})")
    assert theirs is not None and os.path.isfile(theirs), changed(
        api, f"{fix} (jnp.where's jaxpr gave {theirs!r}, not a file)")
    assert ji.traced_file(object()) is None


def test_traced_location(loaded):
    api = "DebugInfo.func_src_info ('name at file:line')"
    fix = "read the traced function's file and line the new way in traced_location"
    closed = closed_of(loaded, "helper", jnp.ones(3))
    (jit,) = closed.jaxpr.eqns
    with private(api, fix):
        where = ji.traced_location(jit.params["jaxpr"].jaxpr)
    # The code object's first line: the @jax.jit decorator of helper.
    decorator = SOURCE.splitlines().index("@jax.jit") + 1
    assert where == (FILENAME, decorator), changed(api, f"{fix} (got {where!r})")
    assert ji.traced_location(object()) == (None, None)


def test_hidden_params_of_a_remat3_checkpoint(loaded):
    api = "jax._src.hijax.VJPHiPrimitive.params (jax_remat3's RematTraced)"
    fix = "find a remat3 checkpoint's jaxpr the new way in hidden_params"
    before = jax.config.jax_remat3
    jax.config.update("jax_remat3", True)
    try:
        closed = jax.make_jaxpr(jax.checkpoint(loaded.function("inner")))(jnp.ones(3))
    finally:
        jax.config.update("jax_remat3", before)
    (eqn,) = closed.jaxpr.eqns
    with private(api, fix):
        found = {k: ji.hidden_params(v) for k, v in eqn.params.items()}
    inner = [h["jaxpr"] for h in found.values() if h is not None and "jaxpr" in h]
    assert len(inner) == 1, changed(api, f"{fix} (params {list(eqn.params)} hide {found})")
    assert [e.primitive.name for e in inner[0].jaxpr.eqns] == ["sin"], changed(api, fix)
    assert ji.hidden_params(3) is None and ji.hidden_params(closed) is None


def test_rule_frames_gives_a_backward_rule_its_own_lines(loaded):
    api = ("ad.primitive_transposes[custom_lin_p], source_info_util.SourceInfo and "
           "_source_info_context")
    fix = "let a custom_vjp backward rule record its live traceback in rule_frames"
    bwd_line = SOURCE.splitlines().index("    return (jnp.clip(g, -1.0, 1.0),)") + 1

    def grad():  # a new function each time: JAX caches a trace per function object
        return jax.grad(lambda x: loaded.function("clip_grad")(x).sum())

    with private(api, fix), ji.rule_frames(FILENAME):
        closed = jax.make_jaxpr(grad())(jnp.ones(3))
    (clip,) = [e for e in closed.jaxpr.eqns if e.params.get("name") == "clip"]
    line = ji.innermost_line(clip.source_info, FILENAME)
    assert line == bwd_line, changed(api, f"{fix} (clip at line {line}, not {bwd_line})")
    # Outside the block, and for rules of other files, JAX's own attribution stays.
    closed = jax.make_jaxpr(grad())(jnp.ones(3))
    (clip,) = [e for e in closed.jaxpr.eqns if e.params.get("name") == "clip"]
    assert ji.innermost_line(clip.source_info, FILENAME) != bwd_line
    with ji.rule_frames("/elsewhere/other.py"):
        closed = jax.make_jaxpr(grad())(jnp.ones(3))
    (clip,) = [e for e in closed.jaxpr.eqns if e.params.get("name") == "clip"]
    assert ji.innermost_line(clip.source_info, FILENAME) != bwd_line


def test_traced_name(loaded):
    api = "debug_info.func_name on callable params (lu.WrappedFun)"
    fix = "read the function name of callable params the new way in traced_name"
    closed = closed_of(loaded, "clip_grad", jnp.ones(3))
    (eqn,) = closed.jaxpr.eqns
    with private(api, fix):
        names = {k: ji.traced_name(v) for k, v in eqn.params.items()}
    assert "clip_bwd" in names.values() and "clip_fwd" in names.values(), changed(
        api, f"{fix} (custom_vjp_call params named {names})")
    assert ji.traced_name(len) is None


def test_compiled_function_name():
    api = "jax._src.dispatch.BACKEND_COMPILE_EVENT and its fun_name keyword"
    fix = "listen for the new backend-compile event in compiled_function_name"
    from jax import monitoring

    seen: list[str] = []

    def listener(event: str, duration: float, **kwargs: object) -> None:
        name = ji.compiled_function_name(event, kwargs)
        if name is not None:
            seen.append(name)

    def internals_probe(x):
        return x * 3.0 + 1.0

    monitoring.register_event_duration_secs_listener(listener)
    try:
        jax.block_until_ready(jax.jit(internals_probe)(jnp.arange(5.0)))
    finally:
        monitoring.unregister_event_duration_listener(listener)
    assert any(n in ("internals_probe", "jit(internals_probe)") for n in seen), changed(
        api, f"{fix} (saw {seen})")


# What only jax_internals may touch: the private module, and the private names it wraps.
PRIVATE = re.compile(
    r"jax\s*\.\s*_src|from\s+jax\s+import\s+_src|\braw_frames\b|\bcode_addr2location\b"
    r"|\bJaxprPpContext\b|\bfunc_src_info\b|\bstr_short\b|\.pretty_print\(|\bshared_jaxprs\b"
    r"|use_color\s*=|backend_compile_duration"
)


def test_only_jax_internals_touches_private_jax():
    root = Path(workbench.__file__).parent
    allowed = root / "engine" / "jax_internals.py"
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == allowed:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if PRIVATE.search(line):
                found.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
    assert not found, (
        "private JAX API outside workbench/engine/jax_internals.py; wrap it there:\n"
        + "\n".join(found)
    )


def test_bind_equation_runs_each_equation_as_eval_jaxpr_does(loaded):
    api = "Primitive.get_bind_params and JaxprEqn.ctx.manager (jax._src.core.eval_jaxpr's loop)"
    fix = "bind one equation the way eval_jaxpr now does in bind_equation"
    x = jnp.linspace(-2.0, 2.0, 8)
    for name in ("twice", "looped"):  # a jit, and a scan with two outputs
        closed = closed_of(loaded, name, x)
        env = dict(zip(closed.jaxpr.invars, [x], strict=True))
        with private(api, fix):
            for eqn in closed.jaxpr.eqns:
                ins = [a.val if isinstance(a, Literal) else env[a] for a in eqn.invars]
                outs = ji.bind_equation(eqn, ins)
                env.update(zip(eqn.outvars, outs, strict=True))
        got = [env[v] for v in closed.jaxpr.outvars]
        want = jax.tree_util.tree_leaves(loaded.function(name)(x))
        assert all(bool((g == w).all()) for g, w in zip(got, want, strict=True)), changed(
            api, f"{fix} ({name} gives {got}, calling it {want})")
    # A custom rule's params (its jaxpr, the rule thunks) become what its primitive binds.
    closed = closed_of(loaded, "clip_grad", x)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive.name == "custom_vjp_call", eqn.primitive.name
    with private(api, fix):
        (out,) = ji.bind_equation(eqn, [x])
    assert bool((out == x).all()), changed(api, fix)
