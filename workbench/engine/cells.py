"""Run a lesson step as Jupyter runs a notebook cell: through IPython's own machinery.

The cell is transformed by IPython (magics, ``!`` lines), compiled under the
step's own file name (so its functions, tracebacks and JAX's source lines name
the step), run in the shell's namespace, a real ``__main__`` module (dataclasses
and pickling work, ``if __name__ == "__main__":`` runs), and its outputs are
collected in order: printed text, what it displayed (matplotlib's inline backend
flushes figures after the cell, as in Jupyter) and its last expression's value
through IPython's display hook and formatters.

In the kernel the shell is the kernel's, and outputs also reach the console as
usual; in this process (``workbench lesson --check``, tests) it is one
``InteractiveShell`` for the process, switched to the namespace of the service
that runs the cell.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from workbench.api.cells import MAX_OUTPUTS, MAX_PNG_BYTES, MAX_TEXT_CHARS, CellOutput
from workbench.api.printed import Printed
from workbench.engine.errors import Explanation, UserCodeError, explain
from workbench.engine.printed import PrintedCapture
from workbench.engine.source import check_syntax, exit_as_script, register_source, syntax_error

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # terminal colours (JAX colours its jaxprs)


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape codes: the lesson panel and JSON show plain text."""
    return _ANSI.sub("", text) if "\x1b" in text else text


@dataclass
class CellRun:
    """What one cell did: its outputs in order, and the error that ended it (if any)."""

    outputs: list[CellOutput] = field(default_factory=list)
    dropped: int = 0
    """Outputs past ``MAX_OUTPUTS``, counted only."""
    error: BaseException | None = None


class _Collector:
    """Displays and the displayed result, each placed after the text printed before it."""

    def __init__(self, printed: PrintedCapture) -> None:
        self.printed = printed
        self.marks: list[tuple[int, CellOutput]] = []
        self.dropped = 0

    def add(self, kind: str, data: dict[str, Any], count: int | None = None) -> None:
        if len(self.marks) >= MAX_OUTPUTS:
            self.dropped += 1
            return
        text = strip_ansi(str(data.get("text/plain", "")))
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS] + f"\n[{len(text) - MAX_TEXT_CHARS:,} more characters]"
        png = data.get("image/png", b"")
        if isinstance(png, str):
            try:
                png = base64.b64decode(png)
            except ValueError:
                png = b""
        if not isinstance(png, bytes) or len(png) > MAX_PNG_BYTES:
            png = b""
        self.marks.append((self.printed.position(), CellOutput(
            kind, text, png, execution_count=count)))  # type: ignore[arg-type]

    def outputs(self, printed: Printed) -> list[CellOutput]:
        """Printed text cut at each mark, the marked outputs in between."""
        out: list[CellOutput] = []
        start = 0
        for position, output in self.marks:
            if position > start:
                out.append(CellOutput("stream", strip_ansi(printed.text[start:position]),
                                      stream="stdout"))
                start = position
            out.append(output)
        tail = printed.shown()[start:] if start <= len(printed.text) else ""
        if tail:
            out.append(CellOutput("stream", strip_ansi(tail), stream="stdout"))
        return out


def shell_for(namespace: dict[str, Any] | None) -> Any:
    """The kernel's shell, else this process's one (made on first use, no history file)."""
    from IPython.core.interactiveshell import InteractiveShell

    if InteractiveShell.initialized():
        return InteractiveShell.instance()
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    config.InteractiveShell.colors = "nocolor"
    config.InteractiveShell.xmode = "Plain"
    main = sys.modules.get("__main__")
    shell = InteractiveShell.instance(config=config, user_ns=namespace)
    if main is not None:  # a cell runs in its own __main__ (``_namespace``); not the process
        sys.modules["__main__"] = main
    return shell


class _Main:
    """A module-like object over a namespace dict (IPython's ``DummyMod``)."""


@contextlib.contextmanager
def _namespace(shell: Any, namespace: dict[str, Any]) -> Iterator[None]:
    """Run in ``namespace``: the shell's user namespace and ``sys.modules["__main__"]``."""
    saved = shell.user_module, shell.user_ns, sys.modules.get("__main__")
    if shell.user_ns is not namespace:
        module = _Main()
        module.__dict__ = namespace
        namespace.setdefault("__name__", "__main__")
        namespace.setdefault("__builtins__", __builtins__)
        shell.user_module, shell.user_ns = module, namespace
        if "get_ipython" not in namespace:
            shell.init_user_ns()  # get_ipython, In/Out, _ and friends, as a shell's has
    sys.modules["__main__"] = shell.user_module
    try:
        yield
    finally:
        shell.user_module, shell.user_ns = saved[0], saved[1]
        if saved[2] is not None:
            sys.modules["__main__"] = saved[2]


@contextlib.contextmanager
def _patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    """``obj.name = value`` for the cell only (an instance attribute over the method)."""
    had = name in vars(obj)
    saved = vars(obj).get(name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        if had:
            setattr(obj, name, saved)
        else:
            delattr(obj, name)


def _inline_figures(shell: Any) -> None:
    """In this process, a step's pyplot draws PNGs for the step (as ipykernel arranges with
    ``MPLBACKEND``), even when matplotlib was imported before with another backend."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        if "inline" not in str(pyplot.get_backend()):
            # IPython's enable_matplotlib("inline") without its GUI event-loop part.
            from matplotlib_inline.backend_inline import configure_inline_support

            pyplot.switch_backend(INLINE_BACKEND)
            configure_inline_support(shell, INLINE_BACKEND)
    elif "matplotlib" in sys.modules:
        sys.modules["matplotlib"].use(INLINE_BACKEND)
    else:
        os.environ["MPLBACKEND"] = INLINE_BACKEND


def _system(shell: Any) -> Any:
    """``!cmd`` through a pipe, its output printed as the cell's (as ipykernel's
    ``system_piped``), but spawned without forking this multithreaded process (pexpect's
    ``forkpty`` does, and JAX warns of deadlocks)."""

    def system(cmd: str) -> None:
        command = shell.var_expand(cmd, depth=1)  # $names from the cell's frame
        with subprocess.Popen(command, shell=True, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL) as child:
            assert child.stdout is not None
            for line in iter(child.stdout.readline, b""):
                sys.stdout.write(line.decode(errors="replace"))
        shell.user_ns["_exit_code"] = child.returncode

    return system


def run_cell(shell: Any, source: str, filename: str, namespace: dict[str, Any],
             printed: PrintedCapture, *, forward: bool) -> CellRun:
    """Run ``source`` as a cell named ``filename``; raise ``UserCodeError`` for a syntax error.

    ``forward``: outputs also go where the shell sends them (the kernel's console);
    otherwise only into the run (a plain shell would print them).
    """
    if not forward:
        _inline_figures(shell)
    transformed = shell.transform_cell(source)
    problem = check_syntax(transformed, filename)
    if problem is not None:
        register_source(source, filename)
        raise UserCodeError(syntax_error(problem, filename))
    collector = _Collector(printed)
    hook = shell.displayhook
    publisher = shell.display_pub
    write_format_data = hook.write_format_data
    publish = publisher.publish

    def on_result(format_dict: dict[str, Any], md_dict: dict[str, Any] | None = None) -> None:
        run_result = hook.exec_result
        collector.add("result", format_dict,
                      run_result.execution_count if run_result is not None else None)
        if forward:
            write_format_data(format_dict, md_dict)

    def on_display(data: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        collector.add("display", data)
        if forward:
            publish(data, *args, **kwargs)

    def no_prompt() -> None:
        return None

    def no_traceback(*args: Any, **kwargs: Any) -> None:
        return None  # the error is explained by the catalog, once

    with contextlib.ExitStack() as stack:
        stack.enter_context(_namespace(shell, namespace))
        exit_as_script(namespace)  # IPython's exit would end the kernel
        stack.enter_context(_patched(shell.compile, "get_code_name",
                                     lambda raw_code, code, number: filename))
        stack.enter_context(_patched(hook, "write_format_data", on_result))
        stack.enter_context(_patched(publisher, "publish", on_display))
        if not forward:
            stack.enter_context(_patched(hook, "write_output_prompt", no_prompt))
        stack.enter_context(_patched(shell, "_showtraceback", no_traceback))
        stack.enter_context(_patched(shell, "showsyntaxerror", no_traceback))
        stack.enter_context(_patched(shell, "system", _system(shell)))
        result = shell.run_cell(source, store_history=True)
    register_source(source, filename)  # the editor's lines, not the transformed ones
    error = result.error_before_exec or result.error_in_exec
    if isinstance(error, KeyboardInterrupt):
        raise error
    return CellRun(collector.outputs(printed.result()), collector.dropped, error)


def explain_cell_error(error: BaseException, filename: str,
                       failed: dict[str, tuple[int, str]]) -> Explanation:
    """The catalog's explanation; a NameError for a name that an earlier step, which failed,
    was to bind names that step (``failed``: name -> (step, "imports"/"defines"))."""
    explanation = explain(error, filename)
    name = getattr(error, "name", None)
    if not (isinstance(error, NameError) and isinstance(name, str)):
        return explanation
    if name in failed:
        step, verb = failed[name]
        return replace(explanation,
                       title=f"{name!r} is not defined: step {step}, which {verb} it, failed",
                       hint=f"Step {step} failed before it bound {name}: fix that step (or run "
                       "it again) first; this step then finds the name.")
    return replace(explanation, title=f"{name!r} is not defined",
                   hint="Define or import it in this step or one before it: a notebook's "
                   "steps share their names, and nothing is imported for you.")


def bound_names(source: str) -> dict[str, str]:
    """Top-level names a cell binds, each with how ("imports", "defines"): what a failed cell
    leaves undefined. ``source`` is the transformed cell; one that does not parse binds none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = "defines"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = "imports"
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.setdefault(sub.id, "defines")
    return names
