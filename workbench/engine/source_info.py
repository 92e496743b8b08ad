"""Where in the editor an equation came from.

JAX records a traceback on every equation (``eqn.source_info``) but has no public
API to read it; ``jax_internals`` holds that private part, and this module holds
the workbench's rules on top: which frames are the editor's, and when a sub-jaxpr's
own lines are to be trusted.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os
from typing import Any

from workbench.engine.jax_internals import innermost_line, traced_file, traced_location


def editor_location(source_info: Any, filename: str) -> tuple[str | None, int | None]:
    """(base name, line) of the innermost frame of ``filename`` in an equation's traceback.

    Frames of JAX, NumPy and workbench itself are skipped: an equation that
    ``jnp.where`` creates inside JAX takes the line of the user's call. The
    innermost editor frame wins (``inner``'s line, not that of ``outer`` calling it).
    Returns (None, None) when no editor frame is on the stack.
    """
    line = innermost_line(source_info, filename)
    if line is None:
        return None, None
    return os.path.basename(filename), line


def defined_in(jaxpr: Any, filename: str) -> bool:
    """Whether the function traced into ``jaxpr`` (a scan body, a cond branch) is editor code.

    JAX caches the jaxpr of a jitted library helper such as ``jnp.where`` after its
    first trace, equations and tracebacks included; its equations therefore name
    the line of the *first* call and must take the line of the call at hand instead.
    """
    return traced_file(jaxpr) == filename


def def_line(filename: str, first_line: int) -> int:
    """The ``def`` line of the function whose code starts at ``first_line`` of ``filename``.

    A code object's first line is its first decorator's; a teacher pointing at
    "the function" means the ``def``. Unchanged when the source cannot be read.
    """
    text = "".join(linecache.getlines(filename))
    return _def_lines(text).get(first_line, first_line) if text else first_line


@functools.lru_cache(maxsize=16)
def _def_lines(text: str) -> dict[int, int]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    found: dict[int, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.decorator_list:
            first = min(d.lineno for d in node.decorator_list)
            found[first] = node.lineno
    return found


def wrapped_def(jaxpr: Any, filename: str) -> tuple[str | None, int | None]:
    """(base name, def line) when ``jaxpr`` was traced from a whole editor function.

    The equation that holds it (the ``jit`` of an ``@jax.jit`` function, a
    checkpointed function) has no editor frame of its own: JAX made it outside
    the user's code. It stands for that function, so it takes its ``def`` line.
    """
    where, line = traced_location(jaxpr)
    if where != filename or line is None:
        return None, None
    return os.path.basename(filename), def_line(filename, line)
