"""Hints that read the code: a row's hint rewritten where the failing code makes it mislead.

``adapted_hint`` gives the row's hint, or one written for what the failing spot
shows: a function under its own ``jax.jit`` (``own_jit``), or a traced
condition used with ``and``/``or``/``not`` (``boolean_use``).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import re
from dataclasses import dataclass
from types import FrameType
from typing import Any

from workbench.engine.errors.clues import TITLE_MAX, Clues, Span, clip, is_tracer
from workbench.engine.errors.entries import Entry
from workbench.engine.errors.extractors import depends_on
from workbench.engine.static_binding import is_binding_frame

# ------------------------------------------------------------ hints that read the code
#
# A row's hint is its teaching text; two situations make it misleading, so the
# hint is rewritten from what the failing spot shows:
# * the function has its own ``@jax.jit``: that jit traces every argument its
#   decorator does not mark static, even one the argument spec gives as a
#   literal (which the workbench passes as a plain Python value, see
#   ``transforms.bind_static`` and ``static_binding``), so "make the argument
#   static" means the decorator;
# * the traced condition is an operand of ``and``/``or``/``not``: those need a
#   Python bool too, and jnp.logical_and/or/not are what replace them.

# What to do instead of a static argument, for the rows whose hint advises one.
TRACED_ALTERNATIVES: dict[str, str] = {
    "tracer-bool": (
        "choose element by element with jnp.where(cond, a, b) or lax.select(pred, a, b), "
        "or branch with lax.cond(pred, f, g, x)"
    ),
    "tracer-int": "loop with lax.fori_loop and index arrays instead of lists",
    "concretization": "stay in jnp (x.astype(jnp.float32) instead of float(x))",
    "traced-shape": "derive the size from an input's .shape",
}
_JNP_LOGICAL = {"and": "jnp.logical_and", "or": "jnp.logical_or", "not": "jnp.logical_not"}


@dataclass(frozen=True)
class OwnJit:
    """An editor function under its own ``jax.jit`` that traced the arguments the error needs.

    ``traced`` maps each such parameter to its position; ``literals`` holds
    those of them that the argument spec gave as literals, with their value.
    """

    function: str
    traced: dict[str, int]
    literals: dict[str, Any]


def _jit_of(frame: FrameType) -> Any:
    """The module-level ``jax.jit`` object whose Python function ``frame`` runs, or None."""
    obj = frame.f_globals.get(frame.f_code.co_name)
    if obj is None or not (hasattr(obj, "lower") and hasattr(obj, "__wrapped__")):
        return None
    try:
        inner = inspect.unwrap(obj)
    except ValueError:
        return None
    return obj if getattr(inner, "__code__", None) is frame.f_code else None


def _bound_literals(c: Clues, fn: Any) -> dict[int, Any]:
    """The literal arguments (position: value) the workbench bound when it called ``fn``.

    They live in the frame of the closure ``static_binding.bind_literals`` makes
    (for ``transforms.bind_static``), which calls the user's function with them.
    """
    for frame in c.frames():
        if is_binding_frame(frame.f_code) and frame.f_locals.get("fn") is fn:
            statics = frame.f_locals.get("statics")
            return dict(statics) if isinstance(statics, dict) else {}
    return {}


def own_jit(c: Clues) -> OwnJit | None:
    """The innermost editor function on the traceback that has its own ``jax.jit`` and got
    traced parameters (those JAX's message names, if it names any), or None."""
    if c.frame is None:
        return None
    filename = c.frame.f_code.co_filename
    frames = list({id(f): f for f in c.frames() if f.f_code.co_filename == filename}.values())
    found = depends_on(c.message) or ""
    for frame in reversed(frames):
        fn = _jit_of(frame)
        if fn is None:
            continue
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            continue
        traced = {
            p.name: i for i, p in enumerate(params) if is_tracer(frame.f_locals.get(p.name))
        }
        named = {n: i for n, i in traced.items() if re.search(rf"\b{re.escape(n)}\b", found)}
        traced = named or traced
        if not traced:
            continue
        bound = _bound_literals(c, fn)
        literals = {n: bound[i] for n, i in traced.items() if i in bound}
        return OwnJit(frame.f_code.co_name, traced, literals)
    return None


def _own_jit_hint(kind: str, jit: OwnJit) -> tuple[str, str]:
    """(hint, specifics line) for a traced argument of a function with its own jit."""
    names = list(jit.traced)
    quoted = ", ".join(f'"{n}"' for n in names)
    argnames = quoted if len(names) == 1 else f"({quoted})"
    nums = ", ".join(str(i) for i in jit.traced.values())
    argnums = nums if len(names) == 1 else f"({nums})"
    fix = (
        f"@functools.partial(jax.jit, static_argnames={argnames}) above def {jit.function} "
        f"(or static_argnums={argnums})"
    )
    alternative = TRACED_ALTERNATIVES[kind]
    which = " and ".join(names)
    if jit.literals:
        literal = " and ".join(f"{n} as the literal {v!r}" for n, v in jit.literals.items())
        line = (
            f"{jit.function} has its own @jax.jit: it traces {which} although the argument "
            f"spec gives {literal}"
        )
        hint = (
            f"The argument spec's literal reaches {jit.function} as a plain Python value, "
            f"but {jit.function}'s own @jax.jit traces every argument its decorator does not "
            f"mark static, so {which} arrives traced. Mark it static in the decorator: "
            f"{fix}; or keep it traced and {alternative}."
        )
        return hint, line
    line = f"{jit.function} has its own @jax.jit, which traces {which}"
    hint = (
        f"{jit.function}'s own @jax.jit traces every argument its decorator does not mark "
        f"static, so {which} has no value yet: {alternative}; or make it static in the "
        f"decorator, {fix}, and give it a literal value in the argument spec."
    )
    return hint, line


def _span_of(node: ast.AST) -> Span | None:
    """``node``'s position in the form of ``co_positions`` (columns in UTF-8 bytes, as ast's)."""
    found = [getattr(node, a, None) for a in ("lineno", "end_lineno", "col_offset",
                                              "end_col_offset")]
    start, end, col, end_col = found
    if start is None or end is None or col is None or end_col is None:
        return None
    return start, end, col, end_col


@dataclass(frozen=True)
class BooleanUse:
    """A traced condition used with ``and``/``or``/``not``, as found in the editor's code.

    ``ops`` are the operators of the whole boolean expression around it,
    ``rewrite`` that expression with jnp.logical_* (``jnp.logical_and(x > 0,
    x % 2 == 0)``), ``in_test`` whether it is the test of an ``if``, ``while``,
    conditional expression or ``assert``.
    """

    ops: tuple[str, ...]
    rewrite: str
    in_test: bool


def boolean_use(c: Clues) -> BooleanUse | None:
    """The ``and``/``or``/``not`` the failing condition is an operand (or the whole) of.

    Read from the editor file's syntax tree, so ``x > 0 and y`` is told from a
    lone ``x > 0`` whose span is the same.
    """
    if c.frame is None or c.span is None:
        return None
    source = "".join(linecache.getlines(c.frame.f_code.co_filename))
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    parents = {id(child): up for up in ast.walk(tree) for child in ast.iter_child_nodes(up)}
    found = next(
        (
            n for n in ast.walk(tree)
            if _is_boolean(n) and c.span in [_span_of(m) for m in (n, *_operands(n))]
        ),
        None,
    )
    if found is None:
        return None
    while (parent := parents.get(id(found))) is not None and _is_boolean(parent):
        found = parent
    test = parents.get(id(found))
    in_test = isinstance(test, ast.If | ast.While | ast.IfExp | ast.Assert) and test.test is found
    ops = tuple(dict.fromkeys(_op(n) for n in ast.walk(found) if _is_boolean(n)))
    return BooleanUse(ops, _logical(source, found), in_test)


def _is_boolean(node: ast.AST) -> bool:
    return isinstance(node, ast.BoolOp) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    )


def _operands(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    return [node.operand] if isinstance(node, ast.UnaryOp) else []


def _op(node: ast.AST) -> str:
    if isinstance(node, ast.BoolOp):
        return "and" if isinstance(node.op, ast.And) else "or"
    return "not"


def _logical(source: str, node: ast.AST) -> str:
    """``node`` with every ``and``/``or``/``not`` written as jnp.logical_* (nested pairs)."""
    if not _is_boolean(node):
        return " ".join((ast.get_source_segment(source, node) or ast.unparse(node)).split())
    fn = _JNP_LOGICAL[_op(node)]
    parts = [_logical(source, n) for n in _operands(node)]
    if len(parts) == 1:
        return f"{fn}({parts[0]})"
    out = parts[-1]
    for left in reversed(parts[:-1]):
        out = f"{fn}({left}, {out})"
    return out


def _boolean_hint(use: BooleanUse) -> str:
    ops = " and ".join(f"`{o}`" for o in use.ops)
    verb = "needs" if len(use.ops) == 1 else "need"
    rewrite = clip(use.rewrite, TITLE_MAX)
    others = ", ".join(f"{f} for `{o}`" for o, f in _JNP_LOGICAL.items() if o not in use.ops)
    also = f" ({others})" if others else ""
    if use.in_test:
        around = "it" if len(use.ops) == 1 else "them"
        return (
            f"{ops} and the branch around {around} each need one Python True or False, which a "
            f"traced array does not have. Write the condition element by element as "
            f"{rewrite}{also}, then choose values with jnp.where(cond, a, b) or "
            f"lax.select(pred, a, b) instead of the branch, or branch with "
            f"lax.cond(cond, f, g, x)."
        )
    return (
        f"{ops} {verb} one Python True or False of each operand, which a traced array does "
        f"not have. Write it element by element as {rewrite}{also}; to choose values with "
        f"the result use jnp.where(cond, a, b) or lax.select(pred, a, b), to branch "
        f"lax.cond(cond, f, g, x)."
    )


def adapted_hint(entry: Entry, c: Clues) -> tuple[str, str]:
    """The row's hint, or one written for what the failing code shows; and a specifics line."""
    if entry.kind in TRACED_ALTERNATIVES:
        jit = own_jit(c)
        if jit is not None and jit.literals:
            return _own_jit_hint(entry.kind, jit)
        if entry.kind == "tracer-bool":
            use = boolean_use(c)
            if use is not None:
                return _boolean_hint(use), ""
        if jit is not None:
            return _own_jit_hint(entry.kind, jit)
    return entry.hint, ""
