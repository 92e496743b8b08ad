"""``explain``: any exception raised by user code turned into an ``Explanation``.

It matches the catalog row (``entries.match``), runs the row's extractor and
adapts its hint (``hints.adapted_hint``), and finds the editor line. Where the
line comes from, best first: the innermost editor frame of the exception (or
of its ``__cause__``/``__context__`` chain; JAX's traceback filtering removes
only its own frames, never the editor's), then the function the caller passes
(for errors JAX raises after tracing, such as grad of a non-scalar output),
then an ``editor.py:N`` mentioned in JAX's message.
"""

from __future__ import annotations

import ast
import functools
import linecache
import re
import traceback as _tb
from collections.abc import Callable, Iterator
from typing import Any

from workbench.api.errors import Explanation
from workbench.engine.errors.clues import TITLE_MAX, Clues, exception_chain, join_lines, message_of
from workbench.engine.errors.entries import FALLBACK, match
from workbench.engine.errors.hints import adapted_hint


def editor_frames(exc: BaseException, filename: str) -> list[_tb.FrameSummary]:
    """The editor frames of the first exception in ``exc``'s chain that has any, outermost first."""
    for e in exception_chain(exc):
        frames = [f for f in _tb.extract_tb(e.__traceback__) if f.filename == filename]
        if frames:
            return frames
    return []


def _jax_doc_url(message: str) -> str | None:
    """The first JAX documentation link in JAX's own message, if it carries one."""
    found = re.search(r"https://(?:docs\.jax\.dev|jax\.readthedocs\.io)/[^\s<>\"'`]+", message)
    return found.group(0).rstrip(".,;:)>") if found else None


def _first_line(exc: BaseException) -> str:
    text = message_of(exc).strip()
    line = text.splitlines()[0].strip() if text else ""
    if len(line) > TITLE_MAX:
        line = line[: TITLE_MAX - 1].rstrip() + "\u2026"
    name = type(exc).__name__
    return f"{name}: {line}" if line else name


def _user_code(function: Any, filename: str) -> Any:
    """The code object of the editor function behind jit/grad/vmap/static-binding wrappers."""
    seen: set[int] = set()
    obj = function
    while obj is not None and id(obj) not in seen:
        seen.add(id(obj))
        code = getattr(obj, "__code__", None)
        if code is not None and code.co_filename == filename:
            return code
        if isinstance(obj, functools.partial):
            obj = obj.func
            continue
        obj = getattr(obj, "__wrapped_user__", None) or getattr(obj, "__wrapped__", None)
    return None


def _anchor_line(function: Any, filename: str, anchor: str) -> int | None:
    """The ``def`` line of the user's function, or the line of its last ``return``."""
    code = _user_code(function, filename)
    if code is None:
        return None
    node = _function_node(code, filename)
    if node is None:
        return code.co_firstlineno
    if anchor == "return":
        returns = [n.lineno for n in _own_nodes(node) if isinstance(n, ast.Return)]
        if returns:
            return max(returns)
    return node.lineno


def _function_node(code: Any, filename: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == code.co_name:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if code.co_firstlineno in (first, node.lineno):
                return node
    return None


def _own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    """Nodes of ``func``'s body, not descending into nested functions, lambdas or classes."""
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
        ):
            todo.extend(ast.iter_child_nodes(node))


def _line_in_message(message: str, filename: str) -> int | None:
    found = re.search(rf"(?<![\w/.]){re.escape(filename)}:(\d+)", message)
    return int(found.group(1)) if found else None


def explain(
    exc: BaseException,
    filename: str,
    *,
    function: Callable[..., Any] | None = None,
) -> Explanation:
    """Explain an exception raised by user code compiled under ``filename``.

    ``function`` (optional: the user function, possibly wrapped by transforms)
    lets errors raised outside the user's frames, such as grad of a non-scalar
    output, still point at an editor line. ``message`` keeps the exception's
    own text; ``specifics`` adds what the row's extractor finds in it.
    """
    clues = Clues.gather(exc, filename)
    entry = match(exc, clues)
    message = clues.message
    frames = editor_frames(exc, filename)
    line: int | None = None
    column: int | None = None
    if frames:
        line = frames[-1].lineno
        colno = getattr(frames[-1], "colno", None)
        column = colno + 1 if colno is not None else None
    elif isinstance(exc, SyntaxError) and exc.filename == filename:
        line, column = exc.lineno, exc.offset
    else:
        if function is not None:
            line = _anchor_line(function, filename, entry.anchor)
        if line is None:
            line = _line_in_message(message, filename)
    if entry is FALLBACK:
        title = _first_line(exc)
    elif entry.kind == "syntax" and isinstance(exc, SyntaxError) and exc.msg:
        title = f"Syntax error: {exc.msg}"
    else:
        title = entry.title
    hint, found = adapted_hint(entry, clues)
    specifics = entry.specifics(clues) if entry.specifics is not None else ""
    return Explanation(
        kind=entry.kind,
        title=title,
        hint=hint,
        message=message,
        specifics=join_lines(specifics, found),
        doc_url=_jax_doc_url(message) or entry.doc_url,
        file=filename if line is not None else None,
        line=line,
        column=column,
        exception_type=type(exc).__name__,
        traceback="".join(_tb.format_list(frames)),
    )
