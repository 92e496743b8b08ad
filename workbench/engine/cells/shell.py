"""The IPython shell a cell runs in: the kernel's, else one for this process; the namespace
switched in for the cell; pyplot drawing inline; ``!`` lines spawned, not forked.

Magics run as ipykernel runs them, in both: ``%matplotlib inline`` (which makes
``InlineBackend`` a configurable, for ``%config``), ``%xmode``, ``%load_ext``. A
``%matplotlib`` backend whose figures would show nowhere (a GUI in this process, which runs
no event loop, or one without a display in the kernel; a browser's in both) is refused in
one line, ``NO_WINDOWS``."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
_SHELL_MADE = threading.Lock()
FILES_ONLY = ("agg", "cairo", "pdf", "pgf", "ps", "svg", "template")  # matplotlib's, no window
NO_WINDOWS = ("{request}: the workbench shows a step's figures inline; interactive backends "
              "need a desktop kernel: use %matplotlib inline")


def shell_for(namespace: dict[str, Any] | None) -> Any:
    """The kernel's shell (its ``%matplotlib`` guarded, ``kernel_matplotlib``), else this
    process's ``CellShell`` (made on first use, no history file)."""
    with _SHELL_MADE:  # two made at once (in-process engines in one process): one lost
        return _shell_for(namespace)


def _shell_for(namespace: dict[str, Any] | None) -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    if InteractiveShell.initialized():
        shell = InteractiveShell.instance()
        if not isinstance(shell, cell_shell_class()):
            kernel_matplotlib(shell)
        return shell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    config.InteractiveShell.colors = "nocolor"
    config.InteractiveShell.xmode = "Plain"
    main = sys.modules.get("__main__")
    shell = cell_shell_class().instance(config=config, user_ns=namespace)
    if main is not None:  # a cell runs in its own __main__ (``_namespace``); not the process
        sys.modules["__main__"] = main
    return shell


def no_windows(request: str) -> Exception:
    """The one line (an IPython ``UsageError``: shown without a traceback) for a
    ``%matplotlib`` whose figures would show nowhere in the workbench."""
    from IPython.core.error import UsageError

    return UsageError(NO_WINDOWS.format(request=request))


@functools.cache
def cell_shell_class() -> type[InteractiveShell]:
    """``CellShell``: made on first use, so that importing this module imports no IPython."""
    from IPython.core.interactiveshell import InteractiveShell

    class CellShell(InteractiveShell):
        """IPython's shell with ipykernel's GUI answers: no event loop runs in this process
        (``lesson --check``, tests), so ``%matplotlib inline`` works (the base class's
        enable_gui raises NotImplementedError even for no loop) and a GUI is refused in one
        line."""

        def enable_gui(self, gui: str | None = None) -> None:
            if gui not in (None, "inline"):
                # NotImplementedError, as the base class's: pyplot, resolving its default
                # backend where Qt runs (the window's in-process engine), then tries the next.
                raise NotImplementedError(NO_WINDOWS.format(request=f"%gui {gui}"))
            self.active_eventloop = gui

        def enable_matplotlib(self, gui: str | None = None) -> Any:
            matplotlib_loop(self, gui, runs=lambda loop: False)  # before the backend changes
            return super().enable_matplotlib(gui)

    return CellShell


def matplotlib_loop(shell: Any, gui: str | None, runs: Callable[[str], bool]) -> str | None:
    """The GUI event loop ``%matplotlib GUI`` starts (None: inline, or a backend named that
    draws to files, such as agg, as ipykernel takes it); ``no_windows`` for a name IPython
    does not know, a bare ``%matplotlib`` that picks no GUI, a browser's backend, or a loop
    that ``runs`` refuses."""
    from IPython.core.pylabtools import find_gui_and_backend

    request = f"%matplotlib {gui}" if gui else "%matplotlib"
    try:
        loop, backend = find_gui_and_backend(gui, shell.pylab_gui_select)
    except (RuntimeError, ValueError, KeyError):  # widget, ipympl: not installed here
        raise no_windows(request) from None
    if backend in ("inline", INLINE_BACKEND) or (gui is not None and backend in FILES_ONLY):
        return None
    if loop is None or not runs(loop):
        raise no_windows(request)
    return loop


def kernel_matplotlib(shell: Any) -> None:
    """The kernel's ``%matplotlib`` as ipykernel runs it, but in one line, not a traceback,
    where its figures would show nowhere: a browser's backend (the console and the lesson
    panel show inline figures only), a bare one that picks no GUI, or a GUI window the kernel
    cannot open (no display: matplotlib's ImportError). A desktop kernel opens its windows."""
    original = shell.find_line_magic("matplotlib")
    if original is None or getattr(original, "guarded", False):
        return
    from IPython.core.error import UsageError
    from IPython.core.magic_arguments import parse_argstring
    from IPython.core.magics.pylab import PylabMagics

    def runs(loop: str) -> bool:
        from ipykernel.eventloops import loop_map

        return loop_map.get(loop) is not None  # nbagg, webagg, widget: None (a browser's)

    @functools.wraps(original)  # its help, for %matplotlib?
    def matplotlib(line: str = "") -> Any:
        try:
            args = parse_argstring(PylabMagics.matplotlib, line)
        except UsageError:
            return original(line)  # its own usage message
        if args.list or matplotlib_loop(shell, args.gui, runs) is None:
            return original(line)
        selected = shell.pylab_gui_select
        try:
            return original(line)
        except (ImportError, RuntimeError, ValueError, UsageError):
            shell.pylab_gui_select = selected  # not the loop that failed to start
            raise no_windows(f"%matplotlib {args.gui or ''}".strip()) from None

    matplotlib.guarded = True  # type: ignore[attr-defined]
    shell.register_magic_function(matplotlib, "line", "matplotlib")


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
