"""What the catalog reads from an exception: ``Clues`` (the failing editor expression, its
frame and the values it names) and the helpers that find and describe them.

The exception chain (``exception_chain``), an exception's text even when its
``__str__`` fails (``message_of``), an array's type written as the workbench
writes it (``value_type``: ``traced f32[3]``), and the one-line clipping every
line of specifics goes through (``clip``, ``join_lines``).
"""

from __future__ import annotations

import ast
import keyword
import linecache
import re
import sys
import traceback as _tb
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any

from workbench.engine.dtypes import DTYPES

TITLE_MAX = 160
EXPRESSION_MAX = 60


SHORT_DTYPES = {long: short for short, long in DTYPES.items()}


def is_tracer(value: Any) -> bool:
    """Whether ``value`` is a JAX tracer (no tracer can exist before jax is imported)."""
    tracer = getattr(getattr(sys.modules.get("jax"), "core", None), "Tracer", None)
    return isinstance(tracer, type) and isinstance(value, tracer)


def _is_jax_array(value: Any) -> bool:
    array = getattr(sys.modules.get("jax"), "Array", None)
    return is_tracer(value) or (isinstance(array, type) and isinstance(value, array))


def value_type(value: Any, *, traced: bool = True) -> str | None:
    """``f32[3]`` for an array (``traced f32[3]``, ``NumPy f64[3]``); None for anything else."""
    try:
        shape, dtype = value.shape, value.dtype
    except Exception:  # noqa: BLE001 - a user object's attribute may raise anything
        return None
    if not isinstance(shape, tuple):
        return None
    text = f"{SHORT_DTYPES.get(str(dtype), str(dtype))}[{','.join(str(d) for d in shape)}]"
    if is_tracer(value):
        return f"traced {text}" if traced else text
    return f"NumPy {text}" if type(value).__module__ == "numpy" else text


def clip(line: str, limit: int = TITLE_MAX) -> str:
    """``line`` cut to ``limit`` characters with an ellipsis: specifics stay one screen line."""
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "\u2026"


def join_lines(*lines: str | None) -> str:
    """The specifics: the given lines that are not empty, each clipped to one screen line."""
    return "\n".join(clip(line) for line in lines if line)


def _innermost_editor_tb(exc: BaseException, filename: str) -> TracebackType | None:
    """The traceback entry of the innermost editor frame (same exception as ``editor_frames``)."""
    for e in exception_chain(exc):
        last = None
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                last = tb
            tb = tb.tb_next
        if last is not None:
            return last
    return None


Span = tuple[int, int, int, int]  # start line, end line, start column, end column (UTF-8 bytes)


def _position(tb: TracebackType) -> Span | None:
    """Where in the editor the expression was that was running when ``tb`` was recorded."""
    positions = list(tb.tb_frame.f_code.co_positions())
    index = tb.tb_lasti // 2
    if not 0 <= index < len(positions):
        return None
    start, end, col, end_col = positions[index]
    if start is None or end is None or col is None or end_col is None:
        return None
    return start, end, col, end_col


def _source_span(filename: str, span: Span | None) -> str:
    """The editor text of ``span``, on one line."""
    if span is None:
        return ""
    start, end, col, end_col = span
    # Columns are UTF-8 byte offsets.
    rows = [row.encode() for row in linecache.getlines(filename)[start - 1 : end]]
    if not rows:
        return ""
    if len(rows) == 1:
        text = rows[0][col:end_col]
    else:
        text = rows[0][col:] + b"".join(rows[1:-1]) + rows[-1][:end_col]
    return " ".join(text.decode(errors="replace").split())


@dataclass(frozen=True)
class Clues:
    """What an extractor reads: the exception, its text and the failing editor expression.

    ``frame`` is the innermost editor frame (None when JAX raised after tracing,
    as for grad of a non-scalar output); ``expression`` is the source of the
    expression it was running, such as ``x > 0`` or ``jnp.dot(a, b)``.
    """

    exc: BaseException
    message: str
    frame: FrameType | None = None
    expression: str = ""
    span: Span | None = None

    @classmethod
    def gather(cls, exc: BaseException, filename: str) -> Clues:
        tb = _innermost_editor_tb(exc, filename)
        if tb is None:
            return cls(exc, message_of(exc))
        span = _position(tb)
        return cls(exc, message_of(exc), tb.tb_frame, _source_span(filename, span), span)

    @property
    def code(self) -> str:
        """The expression in backquotes, clipped, for a line of specifics."""
        return f"`{clip(self.expression, EXPRESSION_MAX)}`" if self.expression else ""

    def names(self) -> list[str]:
        """The names the expression reads, left to right, once each."""
        try:
            tree = ast.parse(self.expression, mode="eval")
        except SyntaxError:
            found = re.findall(r"(?<![\w.])[A-Za-z_]\w*", self.expression)
            return list(dict.fromkeys(n for n in found if not keyword.iskeyword(n)))
        nodes = sorted(
            (n for n in ast.walk(tree) if isinstance(n, ast.Name)),
            key=lambda n: n.col_offset,
        )
        return list(dict.fromkeys(n.id for n in nodes))

    def values(self) -> dict[str, Any]:
        """The expression's names bound in the failing frame, and their values."""
        if self.frame is None:
            return {}
        scopes = (self.frame.f_locals, self.frame.f_globals)
        return {
            name: next(s[name] for s in scopes if name in s)
            for name in self.names()
            if any(name in s for s in scopes)
        }

    def operands(self, limit: int = 3) -> str:
        """``x: traced f32[1000], w: f32[3,4]``: the arrays the expression names."""
        typed = [(n, t) for n, v in self.values().items() if (t := value_type(v)) is not None]
        return ", ".join(f"{n}: {t}" for n, t in typed[:limit])

    def jax_involved(self) -> bool:
        """Whether JAX raised it (a JAX frame is innermost) or the expression reads a JAX array."""
        for e in exception_chain(self.exc):
            frames = [f for f, _ in _tb.walk_tb(e.__traceback__)]
            if frames and str(frames[-1].f_globals.get("__name__", "")).split(".")[0] == "jax":
                return True
        return any(_is_jax_array(v) for v in self.values().values())

    def frames(self) -> Iterator[FrameType]:
        """Every frame JAX's traceback filtering left on the exception and its chain."""
        for e in exception_chain(self.exc):
            for frame, _ in _tb.walk_tb(e.__traceback__):
                yield frame


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, then its causes and contexts (JAX's ``UnfilteredStackTrace`` among them)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [e.__cause__, e.__context__]


def message_of(exc: BaseException) -> str:
    """``str(exc)``, even for a user exception whose ``__str__`` itself fails."""
    try:
        return str(exc)
    except Exception:
        return f"<{type(exc).__name__} with an unprintable message>"
