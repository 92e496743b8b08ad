"""The IPython shell a cell runs in: the kernel's, else one for this process; the namespace
switched in for the cell; pyplot drawing inline; ``!`` lines spawned, not forked."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


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
def namespace_of(shell: Any, namespace: dict[str, Any]) -> Iterator[None]:
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
def patched(obj: Any, name: str, value: Any) -> Iterator[None]:
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


def inline_figures(shell: Any) -> None:
    """In this process, a step's pyplot draws PNGs for the step (as ipykernel arranges with
    ``MPLBACKEND``), even when matplotlib was imported before with another backend."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        if "inline" not in str(pyplot.get_backend()):
            # IPython's enable_matplotlib("inline") without its GUI event-loop part.
            from IPython.core.pylabtools import activate_matplotlib
            from matplotlib_inline.backend_inline import configure_inline_support

            activate_matplotlib(INLINE_BACKEND)  # interactive, so that figures are flushed
            configure_inline_support(shell, INLINE_BACKEND)
    elif "matplotlib" in sys.modules:
        sys.modules["matplotlib"].use(INLINE_BACKEND)
    else:
        os.environ["MPLBACKEND"] = INLINE_BACKEND


def piped_system(shell: Any) -> Any:
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
