"""One cell through IPython's ``run_cell``, its outputs collected on the way."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from workbench.engine.cells.outputs import CellRun, Collector
from workbench.engine.cells.shell import inline_figures, namespace_of, patched, piped_system
from workbench.engine.errors import UserCodeError
from workbench.engine.printed import PrintedCapture
from workbench.engine.source import check_syntax, exit_as_script, register_source, syntax_error

# One IPython shell a process: its hooks and namespace are swapped for each cell, so cells
# of two engines in one process (the in-process engine of several windows, in tests) take
# turns. In a kernel only its main thread runs cells: the lock is never waited for.
_SHELL_LOCK = threading.Lock()


def run_cell(shell: Any, source: str, filename: str, namespace: dict[str, Any],
             printed: PrintedCapture, *, forward: bool) -> CellRun:
    """Run ``source`` as a cell named ``filename``; raise ``UserCodeError`` for a syntax error.

    ``forward``: outputs also go where the shell sends them (the kernel's console);
    otherwise only into the run (a plain shell would print them).
    """
    if not forward:
        inline_figures(shell)
    transformed = shell.transform_cell(source)
    problem = check_syntax(transformed, filename)
    if problem is not None:
        register_source(source, filename)
        raise UserCodeError(syntax_error(problem, filename))
    collector = Collector(printed)
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

    with _SHELL_LOCK, contextlib.ExitStack() as stack:
        stack.enter_context(namespace_of(shell, namespace))
        exit_as_script(namespace)  # IPython's exit would end the kernel
        stack.enter_context(patched(shell.compile, "get_code_name",
                                     lambda raw_code, code, number: filename))
        stack.enter_context(patched(hook, "write_format_data", on_result))
        stack.enter_context(patched(publisher, "publish", on_display))
        if not forward:
            stack.enter_context(patched(hook, "write_output_prompt", no_prompt))
        stack.enter_context(patched(shell, "_showtraceback", no_traceback))
        stack.enter_context(patched(shell, "showsyntaxerror", no_traceback))
        stack.enter_context(patched(shell, "system", piped_system(shell)))
        result = shell.run_cell(source, store_history=True)
    register_source(source, filename)  # the editor's lines, not the transformed ones
    error = result.error_before_exec or result.error_in_exec
    if isinstance(error, KeyboardInterrupt):
        raise error
    return CellRun(collector.outputs(printed.result()), collector.dropped, error)
