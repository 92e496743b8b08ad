"""Turn editor text into a namespace of functions whose code points back at editor lines.

The source is compiled under a stable file name and registered with
``linecache`` so tracebacks, ``inspect.getsource`` and JAX's ``source_info``
all name editor lines.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workbench.api.functions import FunctionInfo, ParamInfo, SyntaxProblem
from workbench.engine.errors import (
    Explanation,
    UsageError,
    UserCodeError,
    explain,
    syntax_specifics,
)
from workbench.engine.source_info import def_line

DEFAULT_FILENAME = "editor.py"
_OUTPUT_CACHE = re.compile(r"_+\d*$")  # IPython's Out aliases: _, __, ___, _12


@dataclass
class LoadedSource:
    """Editor source executed in a namespace; ``namespace`` never leaves the engine."""

    source: str
    filename: str
    namespace: dict[str, Any]
    functions: tuple[FunctionInfo, ...] = field(default_factory=tuple)

    def function(self, name: str) -> Callable[..., Any]:
        """The user function called ``name``, or a UsageError that lists the known ones."""
        obj = self.namespace.get(name)
        if obj is None or not callable(obj):
            known = ", ".join(f.name for f in self.functions) or "none"
            raise UsageError(f"unknown function {name!r} in {self.filename} (functions: {known})")
        return obj

    def info(self, name: str) -> FunctionInfo:
        for info in self.functions:
            if info.name == name:
                return info
        self.function(name)  # raises the UsageError with the list
        return describe_function(name, self.namespace[name], self.filename)


def _exit(status: object = None) -> None:
    """``exit()``/``quit()`` as in a script: SystemExit, reported as the code's error.

    IPython's own would ask the console to shut the engine down after the request.
    """
    raise SystemExit(status)


def exit_as_script(namespace: dict[str, Any]) -> None:
    """``exit``/``quit`` in ``namespace`` raise SystemExit (IPython's would end the kernel)."""
    namespace["exit"] = namespace["quit"] = _exit


def fresh_namespace(filename: str = DEFAULT_FILENAME) -> dict[str, Any]:
    """A module-like namespace with jax, jnp, lax and np already imported."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    return {
        "__name__": "__workbench__",
        "__file__": filename,
        "__builtins__": __builtins__,
        "jax": jax,
        "jnp": jnp,
        "lax": lax,
        "np": np,
    }


def check_syntax(source: str, filename: str = DEFAULT_FILENAME) -> SyntaxProblem | None:
    """The first syntax error of ``source``, or None; cheap enough for every keystroke."""
    try:
        ast.parse(source, filename=filename)
    except SyntaxError as exc:
        return SyntaxProblem(
            line=exc.lineno or 1,
            column=exc.offset or 0,
            message=exc.msg,
            text=(exc.text or "").rstrip("\n"),
        )
    return None


def syntax_error(problem: SyntaxProblem, filename: str) -> Explanation:
    """The catalog's explanation of a syntax problem."""
    return Explanation(
        kind="syntax",
        title=f"Syntax error: {problem.message}",
        hint="Python could not read this line; check brackets, colons and indentation.",
        message=problem.message,
        specifics=syntax_specifics(problem.text, problem.column),
        file=filename,
        line=problem.line,
        column=problem.column,
        exception_type="SyntaxError",
    )


def register_source(source: str, filename: str) -> None:
    """Make ``filename`` readable through linecache, so tracebacks show editor lines."""
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    # A None mtime keeps linecache.checkcache from evicting a file that is not on disk.
    linecache.cache[filename] = (len(source), None, lines, filename)


def load_source(
    source: str,
    filename: str = DEFAULT_FILENAME,
    namespace: dict[str, Any] | None = None,
) -> LoadedSource:
    """Compile and run editor source; errors come back as UserCodeError with an Explanation.

    With ``namespace`` given (the kernel's user namespace) the code runs there, so
    the console sees the editor's names; otherwise in a fresh one.
    """
    problem = check_syntax(source, filename)
    if problem is not None:
        raise UserCodeError(syntax_error(problem, filename))
    register_source(source, filename)
    ns = fresh_namespace(filename) if namespace is None else namespace
    if namespace is not None:
        for key, value in fresh_namespace(filename).items():
            ns.setdefault(key, value)
        ns["__file__"] = filename
        exit_as_script(ns)
    code = compile(source, filename, "exec")
    try:
        exec(code, ns)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - sys.exit() in the editor is the code's error
        raise UserCodeError(explain(exc, filename)) from exc
    return LoadedSource(source, filename, ns, list_functions(ns, filename))


def _defined_in(obj: Any, filename: str) -> Callable[..., Any] | None:
    """The plain function behind ``obj`` (jit and friends unwrapped) if the editor made it."""
    try:
        inner = inspect.unwrap(obj)
    except ValueError:
        return None
    code = getattr(inner, "__code__", None)
    if code is None or code.co_filename != filename:
        return None
    return inner


def describe_function(name: str, obj: Callable[..., Any], filename: str) -> FunctionInfo:
    inner = _defined_in(obj, filename) or obj
    try:
        sig = inspect.signature(inner)
    except (TypeError, ValueError):
        return FunctionInfo(name, 0, f"{name}(...)", ())
    params = []
    for p in sig.parameters.values():
        default = None if p.default is inspect.Parameter.empty else repr(p.default)
        numeric = None
        if (
            p.default is not inspect.Parameter.empty
            and isinstance(p.default, numbers.Real)
            and not isinstance(p.default, bool)
        ):
            numeric = float(p.default)
        params.append(ParamInfo(p.name, p.kind.name, default, numeric))
    code = getattr(inner, "__code__", None)
    line = def_line(filename, code.co_firstlineno) if code is not None else 0
    doc = inspect.getdoc(inner) or ""
    return FunctionInfo(name, line, f"{name}{sig}", tuple(params), doc.split("\n\n")[0])


def list_functions(namespace: dict[str, Any], filename: str) -> tuple[FunctionInfo, ...]:
    """Top-level functions defined by the editor source, in source order."""
    found = [
        describe_function(name, obj, filename)
        for name, obj in namespace.items()
        if not name.startswith("__") and callable(obj) and _defined_in(obj, filename) is not None
        and not inspect.isclass(obj) and not _OUTPUT_CACHE.match(name)
    ]
    return tuple(sorted(found, key=lambda f: (f.line, f.name)))
