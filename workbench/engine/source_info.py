"""Where in the editor an equation came from, and where the user's code was when stopped.

JAX records a traceback on every equation (``eqn.source_info``) but has no public
API to read it; ``jax_internals`` holds that private part, and this module holds
the workbench's rules on top: which frames are the editor's, and when a sub-jaxpr's
own lines are to be trusted. The user's frames are those of the file names the
engine compiles the user's code under (the editor's, a lesson step's): ``stopped_at``
reads them from a Stop's ``KeyboardInterrupt``, ``running_at`` from a running stack, and
``running_threads_note`` says which threads the user's code started still run.
"""

from __future__ import annotations

import ast
import builtins
import functools
import linecache
import os
import sys
import threading
import traceback
from collections.abc import Collection, Iterable
from types import FrameType, ModuleType
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


def user_location(frames: Iterable[tuple[str, int]],
                  user_files: Collection[str]) -> tuple[str, int] | None:
    """The first (file, line) of ``frames`` (innermost first) whose file is the user's code."""
    return next(((name, line) for name, line in frames if name in user_files), None)


def stopped_at(exc: BaseException, user_files: Collection[str]) -> tuple[str, int] | None:
    """Where the user's code was when ``exc`` (a Stop's ``KeyboardInterrupt``) was raised: the
    innermost frame of ``user_files`` on its traceback (``inner``'s line, not ``outer``'s)."""
    frames = [(frame.f_code.co_filename, line) for frame, line
              in traceback.walk_tb(exc.__traceback__)]
    return user_location(reversed(frames), user_files)


def running_at(frame: FrameType | None,
               user_files: Collection[str]) -> tuple[str, int, bool]:
    """(file, line, in_jax) of a running stack whose innermost frame is ``frame``.

    The innermost frame of the user's code (("", 0) when none is on the stack), and
    whether the thread is in JAX: the innermost frame of all is JAX's own, or is the
    user's and its line calls a jitted function (a compiled call leaves no frame of
    JAX's). A thread stuck there past an interrupt waits in a compiled computation (or
    its compilation), which ignores it.
    """
    if frame is None:
        return "", 0, False
    in_jax = _is_jax(frame.f_globals.get("__name__"))
    for f, line in traceback.walk_stack(frame):
        if f.f_code.co_filename in user_files:
            return f.f_code.co_filename, line or 0, in_jax or (f is frame and _calls_jax(f))
    return "", 0, in_jax


def _is_jax(module: object) -> bool:
    return isinstance(module, str) and module.split(".")[0] in ("jax", "jaxlib")


def _calls_jax(frame: FrameType) -> bool:
    """Whether the line ``frame`` is at calls a JAX function by name (``h(x)`` of ``h =
    jax.jit(g)``, ``jnp.dot(a, b)``). Only names and modules' attributes are looked up:
    another thread's objects are never asked for a property."""
    text = "".join(linecache.getlines(frame.f_code.co_filename))
    for dotted in _callees(text, frame.f_lineno or 0):
        head, *rest = dotted
        scope = frame.f_locals if head in frame.f_code.co_varnames else frame.f_globals
        obj = scope.get(head, getattr(builtins, head, None))
        for name in rest:
            obj = getattr(obj, name, None) if isinstance(obj, ModuleType) else None
        if obj is not None and _is_jax(type(obj).__module__):
            return True
    return False


@functools.lru_cache(maxsize=16)
def _callees(text: str, line: int) -> tuple[tuple[str, ...], ...]:
    """The dotted names called on ``line`` of ``text`` (``h``, ``jnp.dot``)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or line):
            parts: list[str] = []
            func = node.func
            while isinstance(func, ast.Attribute):
                parts.append(func.attr)
                func = func.value
            if isinstance(func, ast.Name):
                found.append((func.id, *reversed(parts)))
    return tuple(found)


# --------------------------------------------------------------------------- user threads
# The threads the user's code started, and where each is: what may still hold the engine.
# A thread printing in a loop runs on after a Stop (Python cannot stop a thread), and one a
# request waits for keeps the engine busy: Stop says so ("a thread started at line 6 still
# runs, at line 4"). ``Thread.start`` is wrapped once, in the kernel, to note the line of
# the code that started each.

_STARTED_AT = "_workbench_started_at"
_installed = False


def install_thread_notes() -> None:
    """Note, for every thread started from now on, the file and line that started it."""
    global _installed
    if _installed:
        return
    _installed = True
    original = threading.Thread.start

    def start(self: threading.Thread, *args: Any, **kwargs: Any) -> None:
        caller = sys._getframe(1)
        setattr(self, _STARTED_AT, (caller.f_code.co_filename, caller.f_lineno or 0))
        original(self, *args, **kwargs)

    start.__wrapped__ = original  # type: ignore[attr-defined]
    threading.Thread.start = start  # type: ignore[method-assign]


def running_threads_note(user_files: Collection[str], own_file: str = "") -> str:
    """``a thread started at line 6 still runs, at line 4`` for each live thread the user's
    code started (other files are named); "" when there is none."""
    frames = sys._current_frames()
    notes = []
    for thread in threading.enumerate():
        started = getattr(thread, _STARTED_AT, None)
        if thread is threading.main_thread() or started is None or not thread.is_alive():
            continue
        file, line = started
        if file not in user_files:
            continue
        at_file, at_line, _ = running_at(frames.get(thread.ident or -1), user_files)
        where = f" line {line}" + ("" if file == own_file else f" of {_name(file)}")
        now = (f", at line {at_line}" + ("" if at_file in ("", own_file)
                                         else f" of {_name(at_file)}")) if at_line else ""
        notes.append(f"a thread started at{where} still runs{now}")
    if not notes:
        return ""
    return "; ".join(notes) + " (Stop cannot stop a thread: Restart engine ends it)"


def _name(path: str) -> str:
    return os.path.basename(path)
